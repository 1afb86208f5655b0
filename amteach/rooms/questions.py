"""Questions the instructor poses to the phones of a room: a prediction before the games, an
exit ticket after them, or any other question; multiple choice or a number (issue 37).

A question is posed with the room's instructor key (`pose`); posing one closes the question
open before it, so a room has at most one open question. Each seat answers once (`answer`);
a later answer replaces its earlier one while the question is open, never after `close`.
The database keeps them in the tables `questions` and `answers` (store.py, migration 4):

- `questions.options` is JSON: `{"choices": [label, ...]}` for a choice, or `{"low": 0,
  "high": 100, "unit": "%"}` for a number, with `"compare": "monopolist_win_rate"` when the
  answers are to be set beside the class's outcome;
- `answers.answer` is the choice's index (0 for the first) or the number, as JSON text.

Limits, on by default: a question's text up to MAX_TEXT characters, a choice's label up to
MAX_OPTION, MIN_OPTIONS to MAX_OPTIONS choices, at most MAX_QUESTIONS questions a room. An
answer is checked here, whoever sends it: an index in range, or a finite number within the
bounds; anything else is refused with one line naming what was wrong.

Lessons ship their questions as data (`lessons/NN-*/questions.yaml`, read by
`lesson_questions`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..content import lessons_dir
from ..engine.errors import InputError
from .names import Refused
from .room import Rooms, Seat, clean_code
from .store import Taken, now

if TYPE_CHECKING:
    import pandas as pd

MOMENTS = ("prediction", "exit", "other")
MOMENT_LABELS = {"prediction": "Prediction", "exit": "Exit ticket", "other": "Question"}
KINDS = ("choice", "number")
COMPARES = ("monopolist_win_rate",)  # what a question's answers may be set beside
MAX_TEXT = 300  # a question's text, characters
MAX_OPTION = 80  # a choice's label, characters
MIN_OPTIONS, MAX_OPTIONS = 2, 6
MAX_UNIT = 12  # a number's unit ("%", "rounds", "$")
MAX_QUESTIONS = 50  # questions one room may be asked
MAX_BOUND = 1e9  # a number question's bounds lie within plus or minus this
KEEP_OPEN = "you can change it until your teacher closes the question"


@dataclass(frozen=True)
class Question:
    """One question: its words, its kind and what may answer it. `number` (from 1),
    `asked_at` and `closed_at` are set once it is posed to a room."""

    text: str
    kind: str = "choice"
    moment: str = "other"
    options: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    unit: str = ""
    compare: str | None = None
    number: int | None = None
    asked_at: float | None = field(default=None, compare=False)
    closed_at: float | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        text = self.text.strip() if isinstance(self.text, str) else ""
        if not text:
            raise InputError("a question needs its words", field="text")
        if len(text) > MAX_TEXT:
            raise InputError(f"a question has at most {MAX_TEXT} characters", field="text")
        object.__setattr__(self, "text", text)
        if self.moment not in MOMENTS:
            raise InputError(f"must be one of {', '.join(MOMENTS)}", field="moment")
        if self.kind not in KINDS:
            raise InputError(f"must be one of {', '.join(KINDS)}", field="kind")
        if self.compare is not None and self.compare not in COMPARES:
            raise InputError(f"must be one of {', '.join(COMPARES)}", field="compare")
        if self.kind == "choice":
            self._check_choices()
        else:
            self._check_bounds()

    def _check_choices(self) -> None:
        if isinstance(self.options, str) or not isinstance(self.options, list | tuple):
            raise InputError("give the choices as a list", field="options")
        labels = tuple(o.strip() if isinstance(o, str) else "" for o in self.options)
        if not MIN_OPTIONS <= len(labels) <= MAX_OPTIONS:
            raise InputError(
                f"a multiple-choice question has {MIN_OPTIONS} to {MAX_OPTIONS} choices",
                field="options",
            )
        if not all(labels):
            raise InputError("every choice needs its words", field="options")
        if any(len(label) > MAX_OPTION for label in labels):
            raise InputError(f"a choice has at most {MAX_OPTION} characters", field="options")
        if len(set(labels)) != len(labels):
            raise InputError("two choices have the same words", field="options")
        object.__setattr__(self, "options", labels)
        if self.low is not None or self.high is not None:
            raise InputError("a multiple-choice question has no bounds", field="low")

    def _check_bounds(self) -> None:
        for name in ("low", "high"):
            value = getattr(self, name)
            if not is_number(value) or abs(value) > MAX_BOUND:
                raise InputError(
                    f"a number question needs its {name} bound, a number within "
                    f"{MAX_BOUND:,.0f} either side of 0",
                    field=name,
                )
        if not self.low < self.high:  # type: ignore[operator]
            raise InputError("the low bound must be below the high bound", field="low")
        if self.options:
            raise InputError("a number question has no choices", field="options")
        unit = self.unit.strip() if isinstance(self.unit, str) else None
        if unit is None or len(unit) > MAX_UNIT:
            raise InputError(f"a unit has at most {MAX_UNIT} characters", field="unit")
        object.__setattr__(self, "unit", unit)

    # -- what is kept, and what is shown ----------------------------------------------------------
    @property
    def is_open(self) -> bool:
        return self.number is not None and self.closed_at is None

    def options_json(self) -> str:
        """The `questions.options` column: the choices or the bounds (and the comparison)."""
        data: dict[str, Any] = (
            {"choices": list(self.options)}
            if self.kind == "choice"
            else {"low": self.low, "high": self.high, "unit": self.unit}
        )
        if self.compare:
            data["compare"] = self.compare
        return json.dumps(data)

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Question:
        """A question as `questions` keeps it: (number, moment, kind, text, options, asked_at,
        closed_at)."""
        number, moment, kind, text, options, asked_at, closed_at = row
        data = json.loads(options)
        return cls(
            text=text,
            kind=kind,
            moment=moment,
            options=tuple(data.get("choices", ())),
            low=data.get("low"),
            high=data.get("high"),
            unit=data.get("unit", ""),
            compare=data.get("compare"),
            number=number,
            asked_at=asked_at,
            closed_at=closed_at,
        )

    @property
    def label(self) -> str:
        """The question's moment in words ("Prediction", "Exit ticket", "Question")."""
        return MOMENT_LABELS[self.moment]

    def bounds_words(self) -> str:
        """What a number answer may be, in words: "a number from 0 to 100 %"."""
        return f"a number from {self.show(self.low)} to {self.show(self.high)}"

    def show(self, value: Any) -> str:
        """An answer as words: the choice's label, or the number with its unit."""
        if self.kind == "choice":
            return self.options[int(value)]
        text = f"{float(value):,.10g}"
        unit = self.unit
        if not unit:
            return text
        if unit == "$":
            return "$" + text
        return text + unit if unit == "%" else f"{text} {unit}"

    def check_answer(self, value: Any) -> int | float:
        """The answer as kept (an index, or a number), or Refused naming what was wrong."""
        if self.kind == "choice":
            count = len(self.options)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
                raise Refused(f"Choose one of the {count} choices (the page sent something else).")
            return value
        if not is_number(value):
            raise Refused(
                f"The page sent something that is not a number; your answer must be "
                f"{self.bounds_words()}."
            )
        if not self.low <= value <= self.high:  # type: ignore[operator]
            raise Refused(
                f"{self.show(value)} is out of range: your answer must be {self.bounds_words()}."
            )
        return int(value) if float(value).is_integer() else float(value)


def is_number(value: Any) -> bool:
    """A finite int or float (not a bool, not NaN or infinity, not a huge integer)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, int):
        return abs(value) <= 2**53  # larger than any bound; float() of it may overflow
    return math.isfinite(value)


@dataclass(frozen=True)
class Answer:
    """One seat's answer to one question, as kept."""

    question: int
    table: int
    seat: int
    value: int | float
    at: float


QUESTION_COLUMNS = "number, moment, kind, text, options, asked_at, closed_at"
# the answers given by each seat's present student: a freed seat's next student starts with
# no answer (as the gradebook counts them, rooms/gradebook.py)
PRESENT = (
    "FROM answers a JOIN seats s ON s.room = a.room AND s.table_no = a.table_no "
    "AND s.seat = a.seat WHERE a.room = ? AND a.question = ? AND s.name IS NOT NULL "
    "AND a.at >= COALESCE(s.seated_at, 0)"
)


# -- the instructor -----------------------------------------------------------------------------
def pose(rooms: Rooms, code: str, key: str | None, question: Question) -> Question:
    """Ask `question` on every phone of room `code`: the instructor key must open the room
    (Refused otherwise, as `Rooms.check_instructor`). The question open before it closes.
    Refused when the room has had MAX_QUESTIONS questions. Returns the posed question."""
    info = rooms.check_instructor(code, key, with_pin=False)
    for _ in range(5):  # two pages posing at the same moment: the second takes the next number
        try:
            with rooms.store.transaction() as tx:
                tx.lock_room(info.code)
                count, last = tx.query(
                    "SELECT COUNT(*), MAX(number) FROM questions WHERE room = ?", (info.code,)
                )[0]
                if count >= MAX_QUESTIONS:
                    raise Refused(
                        f"This class has been asked {count} questions, as many as a class may "
                        f"({MAX_QUESTIONS}). Open a new class for more."
                    )
                moment = now()
                tx.execute(
                    "UPDATE questions SET closed_at = ? WHERE room = ? AND closed_at IS NULL",
                    (moment, info.code),
                )
                number = (last or 0) + 1
                tx.execute(
                    "INSERT INTO questions (room, number, moment, kind, text, options, asked_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        info.code,
                        number,
                        question.moment,
                        question.kind,
                        question.text,
                        question.options_json(),
                        moment,
                    ),
                )
                tx.notify(info.code)  # every server's phones of the room show it
            return replace(question, number=number, asked_at=moment, closed_at=None)
        except Taken:
            continue
    raise Refused("Another page asked a question at the same moment; try again.")


def close(rooms: Rooms, code: str, key: str | None) -> Question | None:
    """Close the room's open question (no more answers, none changed); returns it, or None
    if no question was open. Needs the instructor key, as `pose`."""
    info = rooms.check_instructor(code, key, with_pin=False)
    with rooms.store.transaction() as tx:
        rows = tx.query(
            f"SELECT {QUESTION_COLUMNS} FROM questions WHERE room = ? AND closed_at IS NULL",
            (info.code,),
        )
        if not rows:
            return None
        moment = now()
        tx.execute(
            "UPDATE questions SET closed_at = ? WHERE room = ? AND closed_at IS NULL",
            (moment, info.code),
        )
        tx.notify(info.code)
    return replace(Question.from_row(rows[-1]), closed_at=moment)


# -- reading ----------------------------------------------------------------------------------
def questions(rooms: Rooms, code: str) -> list[Question]:
    """Every question the room was asked, in order."""
    rows = rooms.store.query(
        f"SELECT {QUESTION_COLUMNS} FROM questions WHERE room = ? ORDER BY number",
        (clean_code(code),),
    )
    return [Question.from_row(row) for row in rows]


def latest(rooms: Rooms, code: str) -> Question | None:
    """The room's last question (open or closed), or None: what the phones show."""
    rows = rooms.store.query(
        f"SELECT {QUESTION_COLUMNS} FROM questions WHERE room = ? ORDER BY number DESC LIMIT 1",
        (code,),
    )
    return Question.from_row(rows[0]) if rows else None


def answer_of(rooms: Rooms, code: str, number: int, table: int, seat: int) -> int | float | None:
    """One seat's answer to question `number` (given by its present student), or None."""
    rows = rooms.store.query(
        f"SELECT a.answer {PRESENT} AND a.table_no = ? AND a.seat = ?", (code, number, table, seat)
    )
    return json.loads(rows[0][0]) if rows else None


def answer_count(rooms: Rooms, code: str, number: int) -> int:
    """How many seats answered question `number`."""
    return answers_changed(rooms, code, number)[0]


def answers_changed(rooms: Rooms, code: str, number: int) -> tuple[int, float | None]:
    """How many seats' present students answered question `number`, and when the last
    answer came: a reader polls this and reads the answers again only when it changed."""
    count, last = rooms.store.query(f"SELECT COUNT(*), MAX(a.at) {PRESENT}", (code, number))[0]
    return count, last


ANSWER_COLUMNS = (
    "question",
    "moment",
    "kind",
    "text",
    "table",
    "seat",
    "name",
    "student_id",
    "role",
    "answer",
    "value",
    "at",
)


def answers_frame(rooms: Rooms, code: str, number: int | None = None) -> pd.DataFrame:
    """Every answer of the room (or to question `number`) given by a seat's present student
    (an answer left by a student whose seat was freed is not theirs to show), one row each:
    the question's
    number, moment, kind and text; the table and seat (from 1), the student's name, student
    ID (if the class asked for one; "" otherwise) and role;
    `answer`, the answer in words (the choice's label, or the number with its unit) and
    `value`, the index of the choice (from 0) or the number."""
    import pandas as pd

    code = clean_code(code)
    asked = {q.number: q for q in questions(rooms, code)}
    sql = (
        "SELECT a.question, a.table_no, a.seat, s.name, s.student_id, s.role, a.answer, a.at "
        "FROM answers a JOIN seats s ON s.room = a.room AND s.table_no = a.table_no "
        "AND s.seat = a.seat WHERE a.room = ? AND s.name IS NOT NULL "
        "AND a.at >= COALESCE(s.seated_at, 0)"
    )
    params: tuple[Any, ...] = (code,)
    if number is not None:
        sql += " AND a.question = ?"
        params += (number,)
    rows = []
    for question, table, seat, name, student_id, role, kept, at in rooms.store.query(
        sql + " ORDER BY a.question, a.table_no, a.seat", params
    ):
        q = asked[question]
        value = json.loads(kept)
        rows.append(
            (question, q.moment, q.kind, q.text, table + 1, seat + 1, name or "",
             student_id or "", role or "", q.show(value), value, at)
        )  # fmt: skip
    return pd.DataFrame(rows, columns=list(ANSWER_COLUMNS))


# -- a student ----------------------------------------------------------------------------------
def answer(rooms: Rooms, seat: Seat, number: Any, value: Any) -> Answer:
    """Seat `seat` answers question `number` of its own room with `value` (an option's index
    from 0, or a number). Refused, with one line, when the question is not one of the room's,
    is closed, the seat is no longer this device's, or the answer is not one the question
    takes; nothing is written then."""
    if isinstance(number, bool) or not isinstance(number, int) or not 0 < number <= MAX_QUESTIONS:
        raise Refused("The page answered a question your class was not asked.")
    with rooms.store.transaction() as tx:
        rows = tx.query(
            f"SELECT {QUESTION_COLUMNS} FROM questions WHERE room = ? AND number = ?",
            (seat.code, number),
        )
        if not rows:
            raise Refused("The page answered a question your class was not asked.")
        question = Question.from_row(rows[0])
        if question.closed_at is not None:
            raise Refused("Your teacher has closed that question: answers are no longer taken.")
        kept = question.check_answer(value)
        holds = tx.query(
            "SELECT 1 FROM seats WHERE room = ? AND table_no = ? AND seat = ? AND token_hash = ?",
            (seat.code, seat.table, seat.seat, seat.key),
        )
        if not holds:
            raise Refused("That seat is no longer yours; ask your teacher for a seat.")
        moment = now()
        tx.execute(
            "INSERT INTO answers (room, question, table_no, seat, answer, at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (room, question, table_no, seat) "
            "DO UPDATE SET answer = excluded.answer, at = excluded.at",
            (seat.code, number, seat.table, seat.seat, json.dumps(kept), moment),
        )
        # no news: only this seat's phone shows it (its server does), and the Class tab
        # counts answers by reading them (a burst of a class's answers wakes no server)
    return Answer(number, seat.table, seat.seat, kept, moment)


# -- the lessons' questions ---------------------------------------------------------------------
QUESTIONS_FILE = "questions.yaml"


@dataclass(frozen=True)
class LessonQuestion:
    """A question a lesson ships: its lesson's folder name and title, and the question."""

    lesson: str
    title: str
    question: Question

    @property
    def label(self) -> str:
        """How the Class tab lists it: "Lesson 7 · Prediction: What share of ..."."""
        number = self.lesson.split("-", 1)[0].lstrip("0") or "0"
        return f"Lesson {number} · {self.question.label}: {self.question.text}"


def read_questions_file(path: Path) -> list[Question]:
    """The questions of one lesson's questions.yaml; InputError naming the file and the
    question when one is not a question amteach can ask."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as err:
        raise InputError(f"is not YAML: {str(err).splitlines()[0]}", str(path)) from None
    items = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise InputError("has no list of questions", str(path))
    found = []
    known = {"moment", "kind", "text", "options", "low", "high", "unit", "compare"}
    for i, item in enumerate(items, start=1):
        if not isinstance(item, dict) or set(item) - known:
            raise InputError(f"question {i} has fields amteach does not know", str(path))
        try:
            found.append(
                Question(**{k: tuple(v) if isinstance(v, list) else v for k, v in item.items()})
            )
        except (InputError, TypeError) as err:
            raise InputError(f"question {i}: {err}", str(path)) from None
    return found


def lesson_questions(folder: Path | None = None) -> list[LessonQuestion]:
    """Every lesson's questions, in lesson order (each lesson's title from its plan.md)."""
    folder = folder or lessons_dir()
    found = []
    for lesson in sorted(p for p in folder.iterdir() if (p / QUESTIONS_FILE).is_file()):
        plan = lesson / "plan.md"
        title = lesson.name
        if plan.is_file():
            first = plan.read_text(encoding="utf-8").splitlines()[0]
            title = first.lstrip("# ").strip()
        for question in read_questions_file(lesson / QUESTIONS_FILE):
            found.append(LessonQuestion(lesson.name, title, question))
    return found


__all__ = [
    "COMPARES",
    "KINDS",
    "MAX_OPTION",
    "MAX_OPTIONS",
    "MAX_QUESTIONS",
    "MAX_TEXT",
    "MIN_OPTIONS",
    "MOMENTS",
    "Answer",
    "LessonQuestion",
    "Question",
    "answer",
    "answer_count",
    "answer_of",
    "answers_frame",
    "close",
    "latest",
    "lesson_questions",
    "pose",
    "questions",
    "read_questions_file",
]
