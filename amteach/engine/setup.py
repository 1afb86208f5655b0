"""What a game starts from: the players, their positions and titles, the rules, the seed, and
forced dice or cards; and the check that a set-up is one the rules allow.

Scenario files and saved games are read into a `Setup` by `setup_schema`; `Game` starts from one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .board import COMPETITOR, MONOPOLIST, ROLES, Board
from .errors import ScenarioError, quoted
from .rules import RuleSet

GAME_TYPES = ("A", "B", "two-hour")
# a player's name, wherever it comes from (a save, a scenario, a class): fits every screen
MAX_PLAYER_NAME = 24


@dataclass(frozen=True, slots=True)
class TitleSetup:
    space: int
    houses: int = 0
    apartment: bool = False
    mortgaged: bool = False


@dataclass(frozen=True, slots=True)
class PlayerSetup:
    name: str
    role: int
    cash: int | None = None
    position: int = 0
    held: int | None = None
    titles: tuple[TitleSetup, ...] = ()


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything a game starts from. With the decisions taken, it fixes the whole game."""

    players: tuple[PlayerSetup, ...]
    rules: RuleSet
    seed: int
    game_type: str = "A"
    dice: tuple[tuple[int, ...], ...] = ()
    cards: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    # analysis only (amteach.analysis.fairness.market_structures): also accept a table where
    # every player has the same role, which decision 13 forbids; never set for a class's game
    allow_one_role: bool = False

    def to_json(self) -> dict[str, Any]:
        """The set-up in the scenario file format (titles keyed by space index)."""
        rules = self.rules.to_dict()
        return {
            "rules": {"preset": rules.pop("preset_name"), **rules},
            "seed": self.seed,
            "game": self.game_type,
            "players": [
                {
                    "name": p.name,
                    "role": ROLES[p.role],
                    "cash": p.cash,
                    "position": p.position,
                    "held": p.held,
                    "titles": {
                        str(t.space): {
                            "houses": t.houses,
                            "apartment": t.apartment,
                            "mortgaged": t.mortgaged,
                        }
                        for t in p.titles
                    },
                }
                for p in self.players
            ],
            "dice": [list(d) for d in self.dice],
            "cards": {"competitor": list(self.cards[0]), "monopolist": list(self.cards[1])},
        }


def role_index(role: Any, field: str) -> int:
    """A role's number from its number or its name ("competitor", "monopolist")."""
    if isinstance(role, int) and role in (0, 1):
        return role
    text = str(role).strip().lower()
    if text not in ROLES:
        raise ScenarioError(
            f"role must be 'competitor' or 'monopolist', not {quoted(role)}", field=field
        )
    return ROLES.index(text)


def role_split_problem(roles: Sequence[int], allow_one_role: bool = False) -> str | None:
    """What decision 13 finds wrong with a table of these roles (2 to 6 players, at most 3 of
    each role, counts differing by at most one), or None. `allow_one_role` (the
    counterfactual analysis only) also accepts a table of one role."""
    if not 2 <= len(roles) <= 6:
        return f"2 to 6 players play; found {len(roles)}"
    counts = [sum(r == role for r in roles) for role in (COMPETITOR, MONOPOLIST)]
    if allow_one_role and min(counts) == 0:
        return None
    if max(counts) > 3 or abs(counts[0] - counts[1]) > 1:
        return (
            f"{counts[0]} competitors and {counts[1]} monopolists: at most 3 of each role, "
            "and the counts may differ by at most one (decision 13)"
        )
    return None


def validate_setup(setup: Setup, board: Board, source: str = "") -> None:
    """Decision 13 and a consistent position: raises ScenarioError naming the field.

    The one place that checks a table's roles (the simulator asks it too, before a batch)."""

    def fail(message: str, field: str) -> None:
        raise ScenarioError(message, source, field)

    players = setup.players
    roles = [p.role for p in players]
    problem = role_split_problem(roles, setup.allow_one_role)
    if problem is not None:
        fail(problem, "players")
    if setup.game_type not in GAME_TYPES:
        fail(f"game must be one of {', '.join(GAME_TYPES)}, not {quoted(setup.game_type)}", "game")
    if setup.allow_one_role and len(set(roles)) == 1 and setup.game_type == "B":
        # Game B ends once one role is gone, so a table of one role would end at once
        fail(
            "a table of one role cannot play Game B (it ends once only one role is left, "
            "which is so from the start); play Game A or the two-hour game",
            "game",
        )
    names = [p.name.strip() for p in players]
    for i, name in enumerate(names):
        if not name:
            fail("every player needs a name", f"players[{i}].name")
        if len(name) > MAX_PLAYER_NAME:
            fail(
                f"a name has at most {MAX_PLAYER_NAME} characters (this one has {len(name)})",
                f"players[{i}].name",
            )
        if [n.casefold() for n in names].index(name.casefold()) != i:
            fail(
                f"two players are called {quoted(name)} (names are matched ignoring case)",
                f"players[{i}].name",
            )
    rules = setup.rules
    seen: dict[int, int] = {}
    houses = apartments = 0
    for i, p in enumerate(players):
        where = f"players[{i}]"
        if p.cash is not None and p.cash < 0:
            fail("cash cannot be negative", f"{where}.cash")
        if not 0 <= p.position < len(board.spaces):
            fail("position must be a space index 0..39", f"{where}.position")
        if p.held is not None:
            if not 0 <= p.held <= rules.held_turns_before_forced_fine:
                fail(
                    f"held must be 0..{rules.held_turns_before_forced_fine} turns spent",
                    f"{where}.held",
                )
            if p.position != board.hold_space:
                fail(f"a held player stands on space {board.hold_space}", f"{where}.position")
        for t in p.titles:
            sp = board.spaces[t.space]
            tw = f"{where}.titles.{sp.name}"
            if not sp.is_title:
                fail(f"{sp.name} is not a title that can be owned", tw)
            if t.space in seen:
                fail(f"{sp.name} is already owned by {players[seen[t.space]].name}", tw)
            seen[t.space] = i
            if (t.houses or t.apartment) and sp.kind != "street":
                fail("only streets carry buildings", tw)
            if t.houses and t.apartment:
                fail("a street has houses or an apartment, not both", tw)
            if t.houses < 0 or t.houses > rules.max_houses(p.role):
                fail(
                    f"a {ROLES[p.role]} has 0 to {rules.max_houses(p.role)} houses on a street", tw
                )
            if t.mortgaged and (t.houses or t.apartment):
                fail("a mortgaged street carries no buildings (decision 7)", tw)
            houses += t.houses
            apartments += t.apartment
    for i, p in enumerate(players):
        if p.role != MONOPOLIST:
            continue
        for t in p.titles:
            sp = board.spaces[t.space]
            if t.houses or t.apartment:
                owned = sum(
                    1
                    for u in p.titles
                    if board.spaces[u.space].city == sp.city
                    and board.spaces[u.space].kind == "street"
                    and not u.mortgaged
                )
                if owned < rules.monopoly_streets:
                    fail(
                        f"a monopolist builds only in a monopolized city (decision 5); they own {owned} unmortgaged {sp.city} street(s)",
                        f"players[{i}].titles.{sp.name}",
                    )
    if not rules.unlimited_supply and (
        houses > rules.supply_houses or apartments > rules.supply_apartments
    ):
        fail(
            f"the set-up places {houses} houses and {apartments} apartments; the supply has "
            f"{rules.supply_houses} and {rules.supply_apartments}",
            "players",
        )
    for i, throw in enumerate(setup.dice):
        if len(throw) not in (1, 2) or any(not (isinstance(d, int) and 1 <= d <= 6) for d in throw):
            fail("each throw is one or two dice from 1 to 6", f"dice[{i}]")
    for role, ids in enumerate(setup.cards):
        valid = {card.id for card in board.deck(role)}
        for j, card_id in enumerate(ids):
            if card_id not in valid:
                fail(f"{quoted(card_id)} is not a {ROLES[role]} card", f"cards.{ROLES[role]}[{j}]")
        if len(set(ids)) != len(ids):
            fail(
                "a card can be forced only once (it goes to the bottom of the deck)",
                f"cards.{ROLES[role]}",
            )
