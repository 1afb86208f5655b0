"""The class's rule sets compared (treatments, issue 37): for each rule set, how often the
class's finished tables were won by a Monopolist and by a Competitor, each table at the round
it reached, beside bots playing under that table's own rules, with its roles, stopped at that
same round (a win rate depends on where play stops, and short class games are decided by the
final accounting). What is counted here is plain counting; the interval of the difference
between two rule sets (Newcombe's) is the analysis layer's (ui/class_treatments.py).

Each table's bots play Game A capped at the table's round when the class played the
two-hour game (time up is the final accounting at the round reached, as the round cap is), and
the class's own game otherwise."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
from pandas.api.types import union_categoricals

from ..engine.board import ROLES
from ..engine.errors import InputError
from ..engine.rules import RuleSet
from ..sim import SeatSpec, SimulationResult, simulate
from ..sim.play import game_seed
from .room import RoomSettings
from .table import RoomTable

# bot games per finished table: enough for a rule set's bot rate to within a few points
DEFAULT_BOT_GAMES = 200
MAX_BOT_GAMES = 2000
SUMMARY_COLUMNS = (
    "rule_set",
    "label",
    "tables",
    "finished",
    "rounds_low",
    "rounds_high",
    "rounds",
    "games",
    "monopolist_wins",
    "competitor_wins",
    "bot_games",
    "bot_monopolist_wins",
    "bot_competitor_wins",
)


@dataclass(frozen=True)
class TableOutcome:
    """One table of the class as the comparison reads it."""

    table: int  # from 0
    rule_set: str  # the rule set's key
    label: str
    rules: RuleSet  # the table's rules (with the room's round cap for Game A and B)
    game_type: str  # A, B or two-hour
    roles: tuple[str, ...]  # each seat's role
    bot: str  # the room's bot
    finished: bool
    rounds: int  # the round the table reached
    winner_role: str | None  # competitor or monopolist; None: not finished, or nobody won


def table_outcomes(tables: Sequence[RoomTable]) -> list[TableOutcome]:
    """Each table's rule set, roles, round reached and (once finished) its winner's role."""
    out = []
    for table in tables:
        game, settings = table.game, table.info.settings
        choice = settings.rule_set(table.table_no)
        winner = None
        if game.over and game.winner is not None:
            winner = ROLES[game.roles[game.winner]]
        out.append(
            TableOutcome(
                table=table.table_no,
                rule_set=choice.key,
                label=choice.label,
                rules=game.rules,
                game_type=game.setup.game_type,
                roles=tuple(ROLES[r] for r in game.roles),
                bot=settings.bot,
                finished=bool(game.over),
                rounds=int(game.round),
                winner_role=winner,
            )
        )
    return out


def bots_at_table(outcome: TableOutcome, games: int, seed: int) -> SimulationResult:
    """Bots in the table's seats (its roles, the room's bot) under the table's rules, stopped
    at the round the table reached and settled there by the final accounting."""
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_BOT_GAMES:
        raise InputError(f"must be a whole number from 1 to {MAX_BOT_GAMES}", field="bot games")
    return simulate(
        games=games,
        seats=[SeatSpec(role, outcome.bot) for role in outcome.roles],
        rules=outcome.rules,
        seed=game_seed(seed, outcome.table),
        round_cap=max(1, outcome.rounds),
        game="A" if outcome.game_type == "two-hour" else outcome.game_type,
        progress=False,
        workers=1,
    )


def bots_at_tables(
    outcomes: Sequence[TableOutcome],
    games: int = DEFAULT_BOT_GAMES,
    seed: int = 0,
    on_table: Callable[[int, int], None] | None = None,
) -> dict[int, SimulationResult]:
    """`bots_at_table` for every finished table, by table number; `on_table(done, total)`
    after each."""
    finished = [o for o in outcomes if o.finished]
    out = {}
    for done, outcome in enumerate(finished, 1):
        out[outcome.table] = bots_at_table(outcome, games, seed)
        if on_table is not None:
            on_table(done, len(finished))
    return out


def pooled(results: Sequence[SimulationResult]) -> SimulationResult:
    """Several batches as one result, as a class's tables are one (`rooms.results`): each
    batch's games numbered on after the batch before, and every category of a column kept.
    meta says how many batches and games, whether one was cut short, and the seats when every
    batch had the same (so the even share of each role is known)."""
    if not results:
        raise InputError("there are no games to pool", field="bot games")
    frames: dict[str, pd.DataFrame] = {}
    for name in ("games", "players", "rounds", "taxes"):
        parts, offset = [], 0
        for result in results:
            parts.append(getattr(result, name).assign(game=lambda f, o=offset: f["game"] + o))
            offset += len(result.games)
        frame = pd.concat(parts, ignore_index=True)
        for column, dtype in parts[0].dtypes.items():
            if isinstance(dtype, pd.CategoricalDtype):
                frame[column] = union_categoricals([part[column] for part in parts])
        frames[name] = frame
    seats = [result.meta.get("seats") for result in results]
    meta: dict[str, Any] = {
        "batches": len(results),
        "requested": sum(int(r.meta.get("requested", len(r.games))) for r in results),
        "completed": len(frames["games"]),
        "interrupted": any(r.interrupted for r in results),
    }
    if all(s == seats[0] for s in seats):
        meta["seats"] = seats[0]
    return SimulationResult(**frames, meta=meta)


def bots_beside_class(
    outcomes: Sequence[TableOutcome],
    games: int = DEFAULT_BOT_GAMES,
    seed: int = 0,
    on_table: Callable[[int, int], None] | None = None,
) -> SimulationResult:
    """The bots at every finished table (`bots_at_tables`: its roles and the room's bot, under
    its rules, stopped at the round it reached) as one result, to set beside the class's
    finished games: `games` for each table, so each table weighs as much among the bots as
    among the class's games. The games frame's `table` column names each game's table (from
    0); meta["round_caps"] holds each table's round."""
    per_table = bots_at_tables(outcomes, games, seed, on_table)
    if not per_table:
        raise InputError("no table has finished its game yet", field="tables")
    result = pooled(list(per_table.values()))
    # which table each bot game stood in for
    result.games["table"] = [t for t, r in per_table.items() for _ in range(len(r.games))]
    rounds = {o.table: max(1, o.rounds) for o in outcomes if o.table in per_table}
    result.meta.update({"seed": seed, "games_per_table": games, "round_caps": rounds})
    return result


def role_wins(games: pd.DataFrame, role: str) -> int:
    """Games of a games frame won by a player of `role`."""
    return int((games["winner_role"].astype(str) == role).sum())


def treatment_summary(
    outcomes: Sequence[TableOutcome], bots: dict[int, SimulationResult] | None = None
) -> pd.DataFrame:
    """One row per rule set, in the order the tables first play them (SUMMARY_COLUMNS): its
    tables and finished tables, the rounds they reached (lowest, highest, each one), the
    class's games and wins by role, and the bots' games and wins at those tables' rounds."""
    bots = bots or {}
    rows: dict[str, dict[str, Any]] = {}
    for o in outcomes:
        row = rows.setdefault(
            o.rule_set,
            {
                "rule_set": o.rule_set,
                "label": o.label,
                "tables": 0,
                "finished": 0,
                "reached": [],
                "games": 0,
                "monopolist_wins": 0,
                "competitor_wins": 0,
                "bot_games": 0,
                "bot_monopolist_wins": 0,
                "bot_competitor_wins": 0,
            },
        )
        row["tables"] += 1
        if not o.finished:
            continue
        row["finished"] += 1
        row["games"] += 1
        row["reached"].append(o.rounds)
        row["monopolist_wins"] += o.winner_role == "monopolist"
        row["competitor_wins"] += o.winner_role == "competitor"
        if o.table in bots:
            games = bots[o.table].games
            row["bot_games"] += len(games)
            row["bot_monopolist_wins"] += role_wins(games, "monopolist")
            row["bot_competitor_wins"] += role_wins(games, "competitor")
    records = []
    for row in rows.values():
        reached = sorted(row.pop("reached"))
        records.append(
            {
                **row,
                "rounds_low": reached[0] if reached else None,
                "rounds_high": reached[-1] if reached else None,
                "rounds": ", ".join(str(r) for r in reached),
            }
        )
    return pd.DataFrame(records, columns=list(SUMMARY_COLUMNS))


RULE_SET_COLUMNS = ("table", "rule_set", "label", "preset", "changes")


def table_rule_sets(settings: RoomSettings) -> pd.DataFrame:
    """Each table's rule set (RULE_SET_COLUMNS; table from 1, as the class's frames number
    games: game i is table i + 1), to join to the class's frames or a download: the changes
    as JSON text."""
    rows = []
    for table in range(settings.tables):
        choice = settings.rule_set(table)
        rows.append(
            (table + 1, choice.key, choice.label, choice.preset, json.dumps(choice.changes))
        )
    return pd.DataFrame(rows, columns=list(RULE_SET_COLUMNS))
