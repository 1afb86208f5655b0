"""The gradebook (issue 37): each student's participation in the class's game and answers to
its questions, as a CSV that Canvas or Moodle imports. Both match rows by a student ID or an
email, never by a name, so a room that feeds a gradebook asks for one at join
(`RoomSettings.ask_student_id`); students without one are left out of the file and listed
(`Gradebook.left_out`), never guessed from their names.

One row per student seated now (a student removed from their seat is gone with it):
- **Joined**: 1 (they are in the class);
- **Decisions made**: the decisions they made themselves since they sat down (a bot's
  moves on their seat while they were away are not theirs); its points possible is the
  most any student of the file made, so the column reads as a share of the busiest;
- **Game finished**: 1 if their table's game is over, else 0;
- **Question N (moment)**: 1 if they answered question N (a prediction, an exit ticket)
  since they sat down, 0 if not; empty for a section that was never asked it.

**Canvas** (Grades > Import): the columns Student, ID, SIS User ID, SIS Login ID, Section,
then one column per assignment (a column Canvas does not know becomes a new assignment),
and a second row "Points Possible". An email goes in SIS Login ID, an ID in SIS User ID;
Canvas's own ID is left empty. **Moodle** (Grades > Import > CSV file): one identifier
column, "Email address" or "ID number", which the instructor maps at import (Map from: that
column; Map to: useremail or useridnumber), then the grade items; Moodle compares emails
case-sensitively, so an email is written as the student typed it.

A file matches by emails or by IDs (`match_by`); a student who typed the other kind is
listed as left out, with the reason. No cell starts a formula (`results.spreadsheet_safe`):
IDs cannot (names.clean_student_id), and names and labels are made safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from .names import looks_like_email, student_id_key
from .results import spreadsheet_safe
from .room import Rooms
from .sections import Section, student_decisions

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
POINTS_POSSIBLE = "Points Possible"
MOODLE_EMAIL, MOODLE_ID = "Email address", "ID number"
MATCHES = ("email", "id")
DEFAULT_TITLE = "Anti-Monopoly"
PARTICIPATION = ("Joined", "Decisions made", "Game finished")
MAX_TITLE = 60


@dataclass(frozen=True)
class Gradebook:
    """A gradebook file: its text (UTF-8 CSV, CRLF line ends, RFC 4180), the students it
    holds, and those left out with the reason (no ID, the other kind of ID, one ID twice)."""

    text: str
    rows: pd.DataFrame
    left_out: pd.DataFrame
    match_by: str


def _questions(rooms: Rooms, code: str) -> list[tuple[int, str]]:
    return [
        (int(number), str(moment))
        for number, moment in rooms.store.query(
            "SELECT number, moment FROM questions WHERE room = ? ORDER BY number", (code,)
        )
    ]


def _answered(rooms: Rooms, code: str) -> set[tuple[int, int, int]]:
    """(question, table, seat) of every answer given by the seat's present student."""
    rows = rooms.store.query(
        "SELECT a.question, a.table_no, a.seat FROM answers a JOIN seats s "
        "ON s.room = a.room AND s.table_no = a.table_no AND s.seat = a.seat "
        "WHERE a.room = ? AND s.name IS NOT NULL AND a.at >= COALESCE(s.seated_at, 0)",
        (code,),
    )
    return {(int(q), int(t), int(s)) for q, t, s in rows}


def question_title(number: int, moment: str) -> str:
    return f"Question {number} ({moment})"


def participation(rooms: Rooms, sections: Sequence[Section]) -> pd.DataFrame:
    """One row per student seated now in any section: section, room, table (from 1), seat
    (from 0), name, student_id (None if they typed none), Joined, Decisions made, Game
    finished, and one column per question asked in any section (see the module's notes)."""
    titles: list[str] = []
    records = []
    for section in sections:
        asked = _questions(rooms, section.code)
        for number, moment in asked:
            if question_title(number, moment) not in titles:
                titles.append(question_title(number, moment))
        answered = _answered(rooms, section.code)
        made = student_decisions(rooms, section.code)
        ids = rooms.student_ids(section.code)
        over = {t.table_no: t.game.over for t in section.tables}
        for row in rooms.seats(section.code):
            if row.name is None:
                continue
            record = {
                "section": section.label,
                "room": section.code,
                "table": row.table + 1,
                "seat": row.seat,
                "name": row.name,
                "student_id": ids.get((row.table, row.seat)),
                "Joined": 1,
                "Decisions made": made.get((row.table, row.seat), 0),
                "Game finished": int(over.get(row.table, False)),
            }
            for number, moment in asked:
                record[question_title(number, moment)] = int(
                    (number, row.table, row.seat) in answered
                )
            records.append(record)
    columns = ["section", "room", "table", "seat", "name", "student_id", *PARTICIPATION, *titles]
    frame = pd.DataFrame(records, columns=columns)
    frame["student_id"] = frame["student_id"].astype(object)  # None stays None, not NaN
    for title in titles:
        frame[title] = frame[title].astype("Int64")  # empty where a section was not asked
    return frame


def id_kind(student_id: object) -> str | None:
    """ "email", "id", or None for no ID."""
    if not isinstance(student_id, str) or not student_id:
        return None
    return "email" if looks_like_email(student_id) else "id"


def split_rows(
    frame: pd.DataFrame, match_by: str | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """The rows a gradebook can match (by `match_by`: "email" or "id"; None: the kind most
    students typed, emails on a tie) and those it cannot, with a `reason` column."""
    kinds = frame["student_id"].map(id_kind)
    if match_by is None:
        emails, plain = int((kinds == "email").sum()), int((kinds == "id").sum())
        match_by = "id" if plain > emails else "email"
    if match_by not in MATCHES:
        raise ValueError(f"match_by must be one of {', '.join(MATCHES)}")
    keys = frame["student_id"].map(lambda v: student_id_key(v) if id_kind(v) else None)
    twice = keys.notna() & keys.duplicated(keep=False)
    other = "an ID, not an email" if match_by == "email" else "an email, not an ID"
    reason = pd.Series("", index=frame.index, dtype=object)
    reason[kinds.isna()] = "no student ID"
    reason[kinds.notna() & (kinds != match_by)] = other
    reason[twice & (reason == "")] = "the same ID in two seats (two sections?)"
    kept = frame[reason == ""].reset_index(drop=True)
    left = frame[reason != ""].assign(reason=reason[reason != ""]).reset_index(drop=True)
    left = left[["section", "table", "seat", "name", "student_id", "reason"]].copy()
    left["student_id"] = [v if isinstance(v, str) else "" for v in left["student_id"]]
    return kept, left, match_by


def _title(title: str) -> str:
    text = " ".join(str(title).split())[:MAX_TITLE]
    return text or DEFAULT_TITLE


def _grade_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c in PARTICIPATION or c.startswith("Question ")]


def _csv(frame: pd.DataFrame) -> str:
    return spreadsheet_safe(frame).to_csv(index=False, lineterminator="\r\n")


def canvas_csv(
    frame: pd.DataFrame, match_by: str | None = None, title: str = DEFAULT_TITLE
) -> Gradebook:
    """The participation frame as Canvas's gradebook import: Student, ID, SIS User ID, SIS
    Login ID, Section, then "<title>: <assignment>" columns, with a Points Possible row."""
    kept, left, match_by = split_rows(frame, match_by)
    grades = _grade_columns(frame)
    name = _title(title)
    out = pd.DataFrame(
        {
            "Student": kept["name"],
            "ID": "",
            "SIS User ID": kept["student_id"] if match_by == "id" else "",
            "SIS Login ID": kept["student_id"] if match_by == "email" else "",
            "Section": kept["section"].astype(str),
        }
    )
    for column in grades:
        out[f"{name}: {column}"] = kept[column].astype("Int64")
    points: dict[str, object] = dict.fromkeys(CANVAS_COLUMNS, "")
    points["Student"] = POINTS_POSSIBLE
    for column in grades:
        most = int(frame[column].max()) if column == "Decisions made" and len(frame) else 1
        points[f"{name}: {column}"] = max(most, 1)
    table = pd.concat([pd.DataFrame([points]), out], ignore_index=True)
    return Gradebook(_csv(table), kept, left, match_by)


def moodle_csv(
    frame: pd.DataFrame, match_by: str | None = None, title: str = DEFAULT_TITLE
) -> Gradebook:
    """The participation frame as Moodle's CSV grade import: the identifier column ("Email
    address" or "ID number", mapped at import to useremail or useridnumber), Name and
    Section (mapped to nothing), then "<title>: <item>" grade columns."""
    kept, left, match_by = split_rows(frame, match_by)
    name = _title(title)
    out = pd.DataFrame(
        {
            MOODLE_EMAIL if match_by == "email" else MOODLE_ID: kept["student_id"],
            "Name": kept["name"],
            "Section": kept["section"].astype(str),
        }
    )
    for column in _grade_columns(frame):
        out[f"{name}: {column}"] = kept[column].astype("Int64")
    return Gradebook(_csv(out), kept, left, match_by)


__all__ = [
    "CANVAS_COLUMNS",
    "MOODLE_EMAIL",
    "MOODLE_ID",
    "POINTS_POSSIBLE",
    "Gradebook",
    "canvas_csv",
    "id_kind",
    "moodle_csv",
    "participation",
    "question_title",
    "split_rows",
]
