"""Several sections in one analysis (issue 37): the games of several classes (rooms), each
opened by its own instructor key, pooled into the frames `simulate` returns with the section
as a column, and the tidy download of every decision and every seat's outcome.

A *section* is one room: its code, a label the instructor gives (the code if none) and its
tables. Pooling is concatenation: the pooled frames hold each section's `class_result`
frames one after the other, with `section` and `table` (from 1) in front and the game
numbers made unique across sections (section k's games follow section k-1's), so every
analysis that groups by game reads the pooled frames unchanged.

Nothing here trusts a code alone: `open_section` checks the room's instructor key (and PIN)
with `Rooms.check_instructor` before it reads a single decision.
"""

from __future__ import annotations

import io
import json
import unicodedata
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from ..sim import SimulationResult
from ..sim.results import TABLES
from .names import INVISIBLE, Refused
from .results import STUDENT_BOT, class_result, spreadsheet_safe
from .room import LOBBY, STUDENT, RoomInfo, Rooms
from .table import RoomTable

MAX_SECTIONS = 12  # sections one analysis pools (a course's sections, not a server's rooms)
MAX_LABEL = 40  # characters of a section's label
ROLE_NAMES = ("competitor", "monopolist")
TIDY_DECISION_COLUMNS = (
    "section",
    "room",
    "table",
    "number",
    "seat",
    "player",
    "role",
    "made_by",
    "choice",
    "at",
)
TIDY_OUTCOME_COLUMNS = (
    "section",
    "room",
    "table",
    "seat",
    "player",
    "role",
    "played_by",
    "bot",
    "finished",
    "rounds",
    "won",
    "end_reason",
    "final_cash",
    "net_worth",
    "rule25_wealth",
    "rent_paid",
    "rent_received",
    "taxes_paid",
    "bankrupt",
    "student_decisions",
)


@dataclass
class Section:
    """One class in a pooled analysis: its room, the label it goes by, and its tables (none
    before its games start)."""

    code: str
    label: str
    info: RoomInfo
    tables: list[RoomTable] = field(default_factory=list)


def clean_label(text: Any, code: str) -> str:
    """A section's label as the instructor typed it (NFKC, one line, single spaces, at most
    MAX_LABEL characters, nothing invisible), or the room's code when blank."""
    raw = "" if text is None else str(text)
    if len(raw) > 4 * MAX_LABEL:
        raise Refused(f"Section label: please use at most {MAX_LABEL} characters.")
    label = " ".join(unicodedata.normalize("NFKC", raw).split())
    if not label:
        return code
    for char in label:
        if unicodedata.category(char).startswith("C") or ord(char) in INVISIBLE:
            raise Refused(
                f"Section label: it has a character that cannot be seen or shown "
                f"(U+{ord(char):04X}); type it with ordinary letters."
            )
    if len(label) > MAX_LABEL:
        raise Refused(f"Section label: please use at most {MAX_LABEL} characters.")
    return label


def open_section(
    rooms: Rooms,
    code: str,
    key: str,
    label: str | None = None,
    pin: str | None = None,
    with_pin: bool = True,
    tables: Sequence[RoomTable] | None = None,
) -> Section:
    """The section of room `code`, once `key` (and `pin`) open its controls (Refused
    otherwise, as `Rooms.check_instructor`). Its tables are rebuilt from the log unless the
    caller holds them already (`tables`, the instructor's own class)."""
    info = rooms.check_instructor(code, key, pin, with_pin=with_pin)
    if tables is None:
        held = (
            []
            if info.status == LOBBY
            else [RoomTable(rooms, info.code, t) for t in range(info.settings.tables)]
        )
    else:
        held = list(tables)
    return Section(info.code, clean_label(label, info.code), info, held)


def open_sections(
    rooms: Rooms, pairs: Sequence[tuple[str, str] | tuple[str, str, str | None]]
) -> list[Section]:
    """Sections from (code, key) or (code, key, label) triples, each checked with its own
    instructor key. Refused: more than MAX_SECTIONS, a room twice, or two sections with one
    label (the pooled frames could not tell them apart)."""
    if len(pairs) > MAX_SECTIONS:
        raise Refused(f"At most {MAX_SECTIONS} sections can be pooled at once.")
    sections = []
    for pair in pairs:
        code, key, *rest = pair
        sections.append(open_section(rooms, code, key, rest[0] if rest else None))
    check_distinct([(s.code, s.label) for s in sections])
    return sections


def check_distinct(pairs: Sequence[tuple[str, str]]) -> None:
    """Refused if a room or a label of the (code, label) pairs comes twice."""
    codes = [code for code, _ in pairs]
    labels = [label for _, label in pairs]
    if len(set(codes)) != len(codes):
        raise Refused("That class is in the pooled sections already.")
    if len(set(labels)) != len(labels):
        raise Refused("Two sections have the same label; give each its own.")


def _union_categories(parts: list[pd.DataFrame]) -> None:
    """Give each categorical column the same categories in every part, so the parts
    concatenate as categories (not as text)."""
    columns = {
        c for part in parts for c in part.columns if isinstance(part[c].dtype, pd.CategoricalDtype)
    }
    for column in columns:
        union = sorted({str(v) for part in parts for v in part[column].cat.categories})
        for part in parts:
            part[column] = part[column].cat.set_categories(union)


def pooled_result(sections: Sequence[Section]) -> SimulationResult:
    """Every section's games as one result: each frame is the concatenation of the
    sections' `class_result` frames, in the order given, with `section` (the label) and
    `table` (from 1) in front; game numbers run on from one section to the next. Sections
    whose games have not started add nothing."""
    playing = [s for s in sections if s.tables]
    labels = [s.label for s in playing]
    frames: dict[str, pd.DataFrame] = {}
    per_section = [class_result(s.tables) for s in playing]
    offsets, total = [], 0
    for section in playing:
        offsets.append(total)
        total += len(section.tables)
    for name in TABLES:
        parts = []
        for section, result, offset in zip(playing, per_section, offsets, strict=True):
            frame = getattr(result, name).copy()
            frame.insert(0, "table", (frame["game"] + 1).astype("int32"))
            frame.insert(0, "section", section.label)
            frame["game"] = (frame["game"] + offset).astype("int32")
            parts.append(frame)
        if not parts:
            frames[name] = pd.DataFrame(columns=["section", "table"])
            continue
        _union_categories(parts)
        frame = pd.concat(parts, ignore_index=True)
        frame["section"] = pd.Categorical(frame["section"], categories=labels)
        frames[name] = frame
    rules = [r.meta.get("rules") for r in per_section]
    seats = [r.meta.get("seats") for r in per_section]
    meta: dict[str, Any] = {
        "source": "class",
        "sections": labels,
        "rooms": [s.code for s in playing],
        "room": playing[0].code if len(playing) == 1 else None,
        "tables": total,
        "finished": len(frames["games"]),
        "game_type": per_section[0].meta.get("game_type") if per_section else None,
        # one rule set for all, or None: a caller comparing with the bots needs one
        "rules": rules[0] if rules and all(r == rules[0] for r in rules) else None,
    }
    if seats and seats[0] is not None and all(s == seats[0] for s in seats):
        meta["seats"] = seats[0]
    return SimulationResult(**frames, meta=meta)


def _compact(choice: Any) -> str:
    return choice if isinstance(choice, str) else json.dumps(choice, separators=(",", ":"))


def tidy_decisions(rooms: Rooms, sections: Sequence[Section]) -> pd.DataFrame:
    """One row per decision of every section: section, room, table (from 1), decision
    number (from 1), seat (from 0, as in the frames), the player's name in the game ("Bot 3"
    for a bot's seat), role, who made it (student, bot, or timer: the two-hour game's end),
    the choice as the save file writes it, and when (UTC)."""
    rows = []
    for section in sections:
        for table in section.tables:
            names, roles = table.game.names, table.game.roles
            log = rooms.store.query(
                "SELECT number, seat, choice, made_by, at FROM decisions "
                "WHERE room = ? AND table_no = ? ORDER BY number",
                (section.code, table.table_no),
            )
            for number, seat, choice, made_by, at in log:
                rows.append(
                    (
                        section.label,
                        section.code,
                        table.table_no + 1,
                        number,
                        seat,
                        names[seat] if seat is not None else "",
                        ROLE_NAMES[roles[seat]] if seat is not None else "",
                        made_by,
                        _compact(json.loads(choice)),
                        datetime.fromtimestamp(at, UTC),
                    )
                )
    frame = pd.DataFrame(rows, columns=list(TIDY_DECISION_COLUMNS))
    frame["seat"] = frame["seat"].astype("Int64")  # the timer's end has no seat
    frame["at"] = pd.to_datetime(frame["at"], utc=True)
    return frame


def tidy_outcomes(rooms: Rooms, sections: Sequence[Section]) -> pd.DataFrame:
    """One row per seat of every section: who played it (a student sat there, or only a
    bot), whether its table's game is finished, the rounds played, whether the seat won,
    and the seat's money at the end (or now, for a game still going), from the pooled
    players frame; `student_decisions` counts the decisions its student made since they
    sat down."""
    pooled = pooled_result(sections)
    players = pooled.players
    if not len(players):
        return pd.DataFrame(columns=list(TIDY_OUTCOME_COLUMNS))
    games = pooled.games[["section", "table", "winner", "end_reason"]]
    out = players.merge(games, on=["section", "table"], how="left")
    by_table = {(s.label, t.table_no + 1): t for s in sections for t in s.tables}
    made = {s.label: student_decisions(rooms, s.code) for s in sections}
    tables = [
        by_table[(str(sec), int(t))] for sec, t in zip(out["section"], out["table"], strict=True)
    ]
    seats = out["seat"].astype(int).tolist()
    out["room"] = [t.code for t in tables]
    out["player"] = [t.game.names[s] for t, s in zip(tables, seats, strict=True)]
    out["played_by"] = [STUDENT if bot == STUDENT_BOT else "bot" for bot in out["bot"].astype(str)]
    out["finished"] = [t.game.over for t in tables]
    out["rounds"] = [t.game.round for t in tables]
    out["won"] = out["winner"].notna() & (out["winner"] == out["seat"])
    out["student_decisions"] = [
        made[str(sec)].get((t.table_no, s), 0)
        for sec, t, s in zip(out["section"], tables, seats, strict=True)
    ]
    out["end_reason"] = out["end_reason"].astype(object).where(out["finished"], "")
    out["role"] = out["role"].astype(str)
    out["bot"] = out["bot"].astype(str)
    out["section"] = out["section"].astype(str)
    return out[list(TIDY_OUTCOME_COLUMNS)].reset_index(drop=True)


def student_decisions(rooms: Rooms, code: str) -> dict[tuple[int, int], int]:
    """(table, seat) -> decisions the seat's present student made since they sat down (a
    seat freed and taken by someone else starts again at 0)."""
    rows = rooms.store.query(
        "SELECT d.table_no, d.seat, COUNT(*) FROM decisions d JOIN seats s "
        "ON s.room = d.room AND s.table_no = d.table_no AND s.seat = d.seat "
        "WHERE d.room = ? AND d.made_by = ? AND s.name IS NOT NULL "
        "AND d.at >= COALESCE(s.seated_at, 0) GROUP BY d.table_no, d.seat",
        (code, STUDENT),
    )
    return {(table, seat): count for table, seat, count in rows}


def tidy_archive(
    decisions: pd.DataFrame, outcomes: pd.DataFrame, file_format: str = "csv"
) -> bytes:
    """A zip of decisions and outcomes, in CSV (spreadsheet-safe: no cell starts a formula;
    times in ISO 8601, UTC) or Parquet."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, frame in (("decisions", decisions), ("outcomes", outcomes)):
            if file_format == "parquet":
                data = io.BytesIO()
                frame.to_parquet(data, index=False)
                archive.writestr(f"{name}.parquet", data.getvalue())
            else:
                text = frame.copy()
                if "at" in text:
                    text["at"] = text["at"].map(lambda t: t.isoformat())
                archive.writestr(f"{name}.csv", spreadsheet_safe(text).to_csv(index=False))
    return buffer.getvalue()


__all__ = [
    "MAX_SECTIONS",
    "Section",
    "check_distinct",
    "clean_label",
    "open_section",
    "open_sections",
    "pooled_result",
    "student_decisions",
    "tidy_archive",
    "tidy_decisions",
    "tidy_outcomes",
]
