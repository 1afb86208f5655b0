"""Saves and replay: a game is its set-up plus its decisions.

The dice and the decks come from one seeded stream, so replaying the decisions from the set-up
gives the identical game. That is what a save file holds, how a save is loaded, and how
`Game.undo` takes a decision back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .board import Board
from .errors import IllegalChoice, SaveError, ScenarioError, quoted
from .setup import Setup

if TYPE_CHECKING:
    from .game import Game

SAVE_FORMAT = "amteach-game"
SAVE_VERSION = 1


def replay(
    setup: Setup,
    decisions: list[Any],
    board: Board | None = None,
    source: str = "",
    *,
    game_type: type[Game],
) -> Game:
    """A new game from `setup` with `decisions` applied; a decision that cannot be replayed
    raises SaveError naming it."""
    game = game_type(setup, board)
    for i, decision in enumerate(decisions):
        try:
            game.apply(decision)
        except IllegalChoice as err:
            raise SaveError(
                f"decision {i + 1} ({quoted(decision)}) cannot be replayed: {err}",
                source,
                f"decisions[{i}]",
            ) from None
        except ScenarioError as err:
            raise SaveError(
                f"{err.reason} (at decision {i + 1}, {quoted(decision)})",
                source,
                f"setup.{err.field}",
            ) from None
    return game


def to_save(game: Game) -> dict[str, Any]:
    """The game as JSON-ready data: the set-up, the seed and the decisions."""
    return {
        "format": SAVE_FORMAT,
        "version": SAVE_VERSION,
        "setup": game.setup.to_json(),
        "decisions": [c.to_json() for c in game.decisions],
    }


def from_save(data: Any, source: str, *, game_type: type[Game]) -> Game:
    """Rebuild a saved game by replay. A corrupt save raises SaveError naming the field."""
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise SaveError(
            f"not an amteach saved game (expected format {SAVE_FORMAT!r})", source, "format"
        )
    if data.get("version") != SAVE_VERSION:
        raise SaveError(
            f"unsupported version {quoted(data.get('version'))}; this amteach reads {SAVE_VERSION}",
            source,
            "version",
        )
    decisions = data.get("decisions")
    if not isinstance(decisions, list):
        raise SaveError("must be a list of decisions", source, "decisions")
    from .setup_schema import parse_setup  # pydantic: only when a save is read

    setup = parse_setup(data.get("setup"), source, SaveError, field_prefix="setup.")
    return replay(setup, decisions, source=source, game_type=game_type)
