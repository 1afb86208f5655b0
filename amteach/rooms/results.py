"""A class's own games as the frames `simulate` returns (games, players, rounds, taxes), so
the same charts and notebooks read them: game i is table i + 1, a seat played by a student
has the bot "student" and the tax behaviour "own choice". Games still going appear in the
players, rounds and taxes frames as they stand; only finished games are in the games frame,
so win rates count finished games only. Also the log itself, one row per decision. The CSV
files are safe to open in a spreadsheet: no cell starts a formula (`spreadsheet_safe`)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..sim import SeatSpec, SimulationResult
from ..sim.play import ROUND_COLUMNS, game_rows
from ..sim.results import TABLES, build_frames
from .room import Rooms
from .table import RoomTable

STUDENT_BOT = "student"
OWN_CHOICE = "own choice"
DECISION_COLUMNS = ("table", "number", "seat", "name", "role", "made_by", "choice")


def _categories(frames: list[pd.DataFrame], column: str) -> None:
    """Give one categorical column the same categories in every frame (so they concatenate
    as categories, not as text)."""
    present = [f for f in frames if column in f]
    if not present:
        return
    union = sorted({str(c) for f in present for c in f[column].cat.categories})
    for frame in present:
        frame[column] = frame[column].cat.set_categories(union)


def table_frames(table: RoomTable) -> dict[str, pd.DataFrame]:
    """One table's game as the four frames (game number = table number)."""
    game = table.game
    rounds: dict[str, list[int]] = {c: [] for c in ROUND_COLUMNS}
    for round_number, seat, cash, titles, buildings in table.recorder.table(game):
        for column, value in zip(
            ROUND_COLUMNS,
            (table.table_no, round_number, seat, cash, titles, buildings),
            strict=True,
        ):
            rounds[column].append(value)
    rows = game_rows(table.table_no, game, len(game.decisions), rounds)
    chunk = {
        name: {
            column: np.asarray(values, dtype=np.int64 if column == "seed" else np.int32)
            for column, values in columns.items()
        }
        for name, columns in rows.items()
    }
    students = [row.name is not None for row in table.seat_rows]
    seats = tuple(
        SeatSpec(role, STUDENT_BOT if student else row.bot)
        for role, student, row in zip(
            (("competitor", "monopolist")[r] for r in game.roles),
            students,
            table.seat_rows,
            strict=True,
        )
    )
    frames = build_frames([chunk], seats)
    players = frames["players"]
    tax = players["tax"].cat.add_categories([OWN_CHOICE])
    tax[players["bot"].astype(str).to_numpy() == STUDENT_BOT] = OWN_CHOICE
    players["tax"] = tax
    return frames


def class_result(tables: Sequence[RoomTable]) -> SimulationResult:
    """The class's games so far as one result (SimulationResult), in table order."""
    per_table = [table_frames(t) for t in tables]
    frames: dict[str, pd.DataFrame] = {}
    for name in TABLES:
        parts = [f[name] for f in per_table]
        for column in ("role", "bot", "tax", "winner_role", "winner_bot", "choice", "cheaper"):
            _categories(parts, column)
        frames[name] = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    compositions = {tuple(t.game.roles) for t in tables}
    meta: dict[str, Any] = {
        "source": "class",
        "room": tables[0].code if tables else None,
        "tables": len(tables),
        "finished": len(frames["games"]),
        "game_type": tables[0].game.setup.game_type if tables else None,
        # the rules every table played; None when the tables played several rule sets
        # (treatments): each game's are its table's (`rule_sets`, one label per table)
        "rules": None,
        "rule_sets": [t.info.settings.rule_set(t.table_no).label for t in tables],
    }
    rules = [t.game.rules.to_dict() for t in tables]
    if rules and all(r == rules[0] for r in rules):
        meta["rules"] = rules[0]
    if len(compositions) == 1 and tables:
        # the same roles in the same seats at every table: the even share of each role is known
        meta["seats"] = [
            {"role": ("competitor", "monopolist")[r], "bot": STUDENT_BOT, "tax": "cheaper"}
            for r in tables[0].game.roles
        ]
    return SimulationResult(**frames, meta=meta)


def decisions_frame(rooms: Rooms, code: str, tables: Sequence[RoomTable]) -> pd.DataFrame:
    """Every decision of the room, one row each: table (from 1), number, seat, the player's
    name and role, who made it (student, bot, instructor) and the choice as the save file
    writes it."""
    rows = []
    for table in tables:
        names, roles = table.game.names, table.game.roles
        for number, choice, seat, made_by in rooms.decisions(code, table.table_no):
            rows.append(
                (
                    table.table_no + 1,
                    number,
                    seat,
                    names[seat] if seat is not None else "",
                    ("competitor", "monopolist")[roles[seat]] if seat is not None else "",
                    made_by,
                    choice if isinstance(choice, str) else _compact(choice),
                )
            )
    return pd.DataFrame(rows, columns=list(DECISION_COLUMNS))


def _compact(choice: Any) -> str:
    import json

    return json.dumps(choice, separators=(",", ":"))


def class_archive(
    result: SimulationResult, decisions: pd.DataFrame, file_format: str = "csv"
) -> bytes:
    """A zip of the class's frames and decisions in CSV or Parquet, as `simulate --out`
    writes a batch (games, players, rounds, taxes), plus decisions."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        frames = {name: getattr(result, name) for name in TABLES}
        frames["decisions"] = decisions
        for name, frame in frames.items():
            if file_format == "parquet":
                data = io.BytesIO()
                frame.to_parquet(data, index=False)
                archive.writestr(f"{name}.parquet", data.getvalue())
            else:
                archive.writestr(f"{name}.csv", spreadsheet_safe(frame).to_csv(index=False))
    return buffer.getvalue()


# a cell a spreadsheet would read as a formula (or a command): = + - @, tab, carriage return
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with every text cell that a spreadsheet would run as a formula (a student
    named `=HYPERLINK(...)`) prefixed with an apostrophe, which spreadsheets read as "this is
    text". Numbers are left alone (a negative number is not a formula)."""
    out = frame.copy()
    for column in out.columns:
        values = out[column]
        if values.dtype == object or isinstance(values.dtype, pd.CategoricalDtype | pd.StringDtype):
            out[column] = values.astype(object).map(
                lambda v: "'" + v if isinstance(v, str) and v.startswith(FORMULA_STARTS) else v
            )
    return out
