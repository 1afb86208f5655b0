"""The *Class* tab's "Questions for the phones" (issue 37): the instructor asks a lesson's
question (each lesson ships its prediction and exit questions, `lessons/NN-*/questions.yaml`)
or types one, multiple choice or a number; every phone of the room shows it at once; the
panel counts the answers live and draws them for the projector. A question that compares
with the outcome (`compare: monopolist_win_rate`) gets one line beside the answers: the
class's prediction (the median answer), the class's finished tables, and bots at each of
those tables' own rounds.

Every action needs the class's instructor key (`questions.pose` and `questions.close` check
it), as every other control of the tab does.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from ..engine.errors import InputError
from ..render import html_join, html_text
from ..rooms import Refused, RoomsUnavailable, RoomTable, unavailable_reply
from ..rooms import questions as asking
from ..rooms.treatments import DEFAULT_BOT_GAMES, bots_at_table, table_outcomes, treatment_summary
from ..session import Reply
from ..sim import SimulationResult
from ..style import NEUTRAL_COLOUR
from .live import Ticker
from .widgets import button

HEADING = "Questions for the phones"
OWN = "None: I type my own question below"
KINDS = (("Multiple choice", "choice"), ("A number", "number"))
# bot games per finished table, each stopped at that table's own round
BOT_GAMES_PER_TABLE = DEFAULT_BOT_GAMES
# the live count is read this often (seconds); the Class tab's own tick draws the games
COUNT_SECONDS = 1.0
# the answers' bars: not a role's colour (answers are not by role), each bar labelled in words
BAR = NEUTRAL_COLOUR


@dataclass(frozen=True)
class Outcome:
    """Monopolist wins out of games: the class's finished tables, or the bots' batch."""

    wins: int
    games: int

    @property
    def percent(self) -> int:
        return round(100 * self.wins / self.games) if self.games else 0

    def words(self) -> str:
        return f"{self.percent}%"


@dataclass(frozen=True)
class Comparison:
    """What the line beside a Monopolists'-share prediction says: the class's finished tables,
    bots at those tables' own rounds, and, when the tables played several rule sets
    (treatments), both by rule set (label, tables, bots)."""

    tables: Outcome
    bots: Outcome
    by_rule_set: tuple[tuple[str, Outcome, Outcome], ...] = ()


def compare_with_outcome(
    tables: Sequence[RoomTable],
    games_per_table: int = BOT_GAMES_PER_TABLE,
    played: dict[tuple[int, int], SimulationResult] | None = None,
) -> Comparison:
    """The class's finished tables beside bots at each table's own round: the treatments'
    counting (`rooms.treatments`: `table_outcomes`, `bots_at_table`, `treatment_summary`),
    with the room's seed. A game nobody won counts as not won by a Monopolist. `played`
    keeps each table's bots by (table, round), so a table that finishes later adds only its
    own batch."""
    outcomes = table_outcomes(tables)
    seed = tables[0].info.settings.seed if tables else 0
    played = {} if played is None else played
    bots = {}
    for outcome in outcomes:
        if outcome.finished:
            key = (outcome.table, outcome.rounds)
            if key not in played:
                played[key] = bots_at_table(outcome, games_per_table, seed)
            bots[outcome.table] = played[key]
    summary = treatment_summary(outcomes, bots)

    def pair(row: Any) -> tuple[Outcome, Outcome]:
        return (
            Outcome(int(row["monopolist_wins"]), int(row["games"])),
            Outcome(int(row["bot_monopolist_wins"]), int(row["bot_games"])),
        )

    total = summary[["monopolist_wins", "games", "bot_monopolist_wins", "bot_games"]].sum()
    mine, theirs = pair(total)
    by = tuple((str(row["label"]), *pair(row)) for _, row in summary.iterrows())
    return Comparison(mine, theirs, by if len(by) > 1 else ())


def compare_line(
    question: asking.Question, values: Sequence[float], comparison: Comparison | None
) -> str:
    """The line beside a Monopolists'-share prediction: the class's median answer, its
    finished tables, and the bots at those tables' rounds (and by rule set, if several)."""
    if not values:
        return "Nobody has answered yet."
    median = statistics.median(values)
    said = (
        f"You predicted Monopolists win {question.show(median)} (median of {len(values)} "
        f"answer{'s' if len(values) != 1 else ''})."
    )
    if comparison is None or not comparison.tables.games:
        return said + " No table has finished its game yet."
    tables, bots = comparison.tables, comparison.bots
    said += (
        f" Your tables gave {tables.words()} ({tables.wins} of {tables.games} finished "
        f"table{'s' if tables.games != 1 else ''}, at the rounds they reached)."
    )
    if bots.games:
        said += f" Bots at your tables' rounds gave {bots.words()} ({bots.games:,} games)."
    for label, mine, theirs in comparison.by_rule_set:
        if mine.games:
            said += (
                f" {label}: your tables {mine.words()} ({mine.wins} of {mine.games}), bots "
                f"{theirs.words()} ({theirs.games:,} games)."
            )
        else:
            said += f" {label}: no table has finished yet."
    return said


def choice_html(question: asking.Question, values: Sequence[int]) -> Any:
    """How many chose each answer, as labelled bars (counts and shares in words)."""
    total = len(values)
    rows = []
    for i, label in enumerate(question.options):
        count = sum(1 for v in values if v == i)
        share = round(100 * count / total) if total else 0
        rows.append(
            html_text(
                "<tr><th scope='row' style='text-align:left;padding-right:12px'>{}</th>"
                "<td style='width:55%'><div style='background:{};height:26px;width:{}%;"
                "min-width:2px'></div></td><td style='padding-left:10px;white-space:nowrap'>"
                "<b>{}</b> ({}%)</td></tr>",
                label,
                BAR,
                share,
                count,
                share,
            )
        )
    return html_text(
        "<table class='am-answers' style='font-size:20px;width:100%;max-width:1100px;"
        "border-collapse:collapse'><caption style='text-align:left'>Answers by choice "
        "({} answer{})</caption>{}</table>",
        total,
        "s" if total != 1 else "",
        html_join(rows),
    )


def number_html(question: asking.Question, values: Sequence[float]) -> Any:
    """The number answers' median and spread (the middle half, the lowest and the highest),
    and how many fell in each tenth of the range."""
    if not values:
        return html_text("<p style='font-size:20px'>No answers yet.</p>")
    ordered = sorted(values)
    median = statistics.median(ordered)
    if len(ordered) >= 2:
        quarter, _, three = statistics.quantiles(ordered, n=4, method="inclusive")
    else:
        quarter = three = ordered[0]
    low, high = float(question.low), float(question.high)  # type: ignore[arg-type]
    width = (high - low) / 10
    counts = [0] * 10
    for value in ordered:
        counts[min(9, int((value - low) / width))] += 1
    most = max(counts)
    rows = html_join(
        html_text(
            "<tr><th scope='row' style='text-align:left;padding-right:12px;"
            "white-space:nowrap'>{} to {}</th><td style='width:60%'><div style='background:{};"
            "height:18px;width:{}%;min-width:{}px'></div></td><td style='padding-left:8px'>{}"
            "</td></tr>",
            question.show(low + i * width),
            question.show(low + (i + 1) * width),
            BAR,
            round(100 * n / most),
            2 if n else 0,
            n,
        )
        for i, n in enumerate(counts)
    )
    return html_text(
        "<p style='font-size:24px;margin:4px 0'>Median <b>{}</b> · middle half {} to {} · "
        "lowest {}, highest {} · {} answer{}</p>"
        "<table class='am-answers' style='font-size:17px;width:100%;max-width:1100px;"
        "border-collapse:collapse'><caption style='text-align:left'>How many answered in each "
        "tenth of the range</caption>{}</table>",
        question.show(median),
        question.show(quarter),
        question.show(three),
        question.show(ordered[0]),
        question.show(ordered[-1]),
        len(ordered),
        "s" if len(ordered) != 1 else "",
        rows,
    )


class QuestionsPanel:
    """The panel, for one `ClassTab` (it reads the tab's room, key, tables and message line)."""

    def __init__(self, tab: Any) -> None:
        w = widgets
        self.tab = tab
        try:
            self.lesson_questions = asking.lesson_questions()
        except (InputError, OSError):  # a broken lesson file: typed questions still work
            self.lesson_questions = []

        def wide() -> widgets.Layout:  # a Layout each: hiding one box must not hide another
            return w.Layout(width="100%", max_width="900px")

        label = {"description_width": "150px"}
        self.lesson_pick = w.Dropdown(
            description="Lesson question",
            options=[(OWN, -1)] + [(q.label, i) for i, q in enumerate(self.lesson_questions)],
            value=-1,
            layout=wide(),
            style=label,
        )
        self.own_text = w.Textarea(
            description="Your own question",
            placeholder=f"up to {asking.MAX_TEXT} characters",
            layout=wide(),
            style=label,
        )
        self.answer_type = w.Dropdown(
            description="Answer type", options=KINDS, value="choice", style=label
        )
        self.choices = w.Textarea(
            description="Choices",
            placeholder=f"one per line, {asking.MIN_OPTIONS} to {asking.MAX_OPTIONS}",
            layout=w.Layout(width="100%", max_width="900px", height="110px"),
            style=label,
        )
        self.low = w.FloatText(value=0, description="From", style=label)
        self.high = w.FloatText(value=100, description="To", style=label)
        self.unit = w.Text(value="%", description="Unit", style=label)
        self.bounds = w.HBox(
            [self.low, self.high, self.unit], layout=w.Layout(flex_flow="row wrap")
        )
        self.ask_button = button("Ask on the phones", lambda _: self.ask())
        self.ask_button.button_style = "primary"
        self.close_button = button("Close the question", lambda _: self.close())
        self.count = w.HTML()
        self.count.add_class("am-answer-count")
        self.drawing = w.HTML()
        self.drawing.add_class("am-answers-drawn")
        self.answer_type.observe(lambda _: self._show_kind(), names="value")
        self.lesson_pick.observe(lambda _: self._show_kind(), names="value")
        self._show_kind()
        self.widget = w.VBox(
            [
                w.HTML(f"<h3>{HEADING}</h3>"),
                self.lesson_pick,
                self.own_text,
                self.answer_type,
                self.choices,
                self.bounds,
                w.HBox([self.ask_button, self.close_button], layout=w.Layout(flex_flow="row wrap")),
                self.count,
                self.drawing,
            ]
        )
        self.widget.add_class("am-phone-questions")
        self._code: str | None = None  # the class drawn
        self._shown: Any = None  # what is drawn now (redrawn when it changes)
        self._read: Any = None  # the answers last read: (room, question, (count, last))
        self._values: list[Any] = []
        self._prediction: Any = None  # an earlier prediction kept beside the outcome
        self._compared: Comparison | None = None  # for the finished tables `_compared_key`
        self._compared_key: Any = None
        self._played: dict[tuple[int, int], Any] = {}  # each finished table's bots
        self.ticker = Ticker(self.tick, COUNT_SECONDS)

    def _show_kind(self) -> None:
        own = self.lesson_pick.value == -1
        number = self.answer_type.value == "number"
        for box, shown in (
            (self.own_text, own),
            (self.answer_type, own),
            (self.choices, own and not number),
            (self.bounds, own and number),
        ):
            box.layout.display = "flex" if shown else "none"

    # -- the instructor's actions -----------------------------------------------------------------
    def typed(self) -> asking.Question:
        """The question the boxes hold (InputError naming what is missing)."""
        if self.answer_type.value == "choice":
            options = tuple(line for line in self.choices.value.splitlines() if line.strip())
            return asking.Question(self.own_text.value, "choice", "other", options)
        return asking.Question(
            self.own_text.value,
            "number",
            "other",
            low=float(self.low.value),
            high=float(self.high.value),
            unit=self.unit.value,
        )

    def chosen(self) -> asking.Question:
        if self.lesson_pick.value != -1:
            return self.lesson_questions[self.lesson_pick.value].question
        return self.typed()

    def _act(self, action: Any) -> bool:
        tab = self.tab
        try:
            if tab.code is None or tab.key is None:
                raise Refused("Open a class (or go back to one with its instructor link) first.")
            said = action()
        except Refused as err:
            return tab.answer(Reply(False, str(err), "warning"))
        except RoomsUnavailable as err:
            return tab.answer(unavailable_reply(err))
        except InputError as err:
            return tab.answer(Reply(False, f"The question cannot be asked: {err}", "warning"))
        self.tick()
        return tab.answer(Reply(True, said))

    def ask(self) -> bool:
        """Ask the chosen (or typed) question on every phone of the class."""

        def pose() -> str:
            question = asking.pose(self.tab.rooms, self.tab.code, self.tab.key, self.chosen())
            if self.lesson_pick.value == -1:
                self.own_text.value = self.choices.value = ""
            return f"Question {question.number} is on the phones: {question.text}"

        return self._act(pose)

    def close(self) -> bool:
        """Close the open question: the phones lock it, and no answer changes any more."""

        def close() -> str:
            closed = asking.close(self.tab.rooms, self.tab.code, self.tab.key)
            if closed is None:
                return "No question is open."
            return f"Question {closed.number} is closed: the phones show it locked."

        return self._act(close)

    # -- the live count and the drawing --------------------------------------------------------------
    def tick(self) -> None:
        """Read the room's last question and its answers; redraw what changed."""
        tab = self.tab
        if tab.code is None:
            return
        if tab.code != self._code:  # another class: nothing drawn or played is its
            self._code, self._shown, self._read = tab.code, None, None
            self._compared, self._compared_key, self._played = None, None, {}
            self._prediction = None
        try:
            question = asking.latest(tab.rooms, tab.code)
            if question is None:
                self._draw(None, [], 0)
                return
            changed = asking.answers_changed(tab.rooms, tab.code, question.number)
            students = sum(1 for row in tab.rooms.seats(tab.code) if row.name is not None)
            read = (tab.code, question.number, changed)
            if read != self._read:  # the answers themselves only when some came
                frame = asking.answers_frame(tab.rooms, tab.code, question.number)
                self._read, self._values = read, frame["value"].tolist()
                self._prediction = self._earlier_prediction(question)
        except RoomsUnavailable:
            return  # the Class tab says so; the next tick reads again
        self._draw(question, self._values, students)

    def _earlier_prediction(self, latest: asking.Question) -> Any:
        """The class's last prediction set beside the outcome, when a later question (the exit
        ticket, say) is the one on screen: (question, answers), else None. Its answers no
        longer change (posing the later question closed it)."""
        tab = self.tab
        earlier = [
            asked
            for asked in asking.questions(tab.rooms, tab.code)
            if asked.compare == "monopolist_win_rate" and asked.number != latest.number
        ]
        if latest.compare == "monopolist_win_rate" or not earlier:
            return None
        last = earlier[-1]
        return last, asking.answers_frame(tab.rooms, tab.code, last.number)["value"].tolist()

    def _draw(self, question: asking.Question | None, values: list[Any], students: int) -> None:
        tables = self.tab.tables
        finished = tuple(
            (t.table_no, t.game.round, len(t.game.decisions)) for t in tables if t.game.over
        )
        prediction = self._prediction
        shown = (question, getattr(question, "closed_at", None), values, students, finished)
        shown += (prediction,)
        if shown == self._shown:
            return
        self._shown = shown
        if question is None:
            self.count.value = ""
            self.drawing.value = html_text(
                "<p style='font-size:18px'>No question has been asked in this class yet.</p>"
            )
            return
        self.count.value = html_text(
            "<p style='font-size:26px;margin:6px 0'><b>{} of {} students answered</b></p>",
            len(values),
            students,
        )
        state = "open: the phones take answers" if question.is_open else "closed"
        head = html_text(
            "<p style='font-size:22px;margin:4px 0'>{} {} ({}): <b>{}</b></p>",
            question.label,
            question.number,
            state,
            question.text,
        )
        body = (
            choice_html(question, values)
            if question.kind == "choice"
            else number_html(question, values)
        )
        line = ""
        if question.compare == "monopolist_win_rate":
            line = html_text(
                "<p class='am-compare' style='font-size:22px;margin:8px 0;max-width:1100px'>{}</p>",
                compare_line(question, values, self.compared(tables) if values else None),
            )
        elif prediction is not None:  # the prediction stays beside the outcome
            earlier, answers = prediction
            line = html_text(
                "<p class='am-compare' style='font-size:22px;margin:8px 0;max-width:1100px'>"
                "Question {} ({}): {}</p>",
                earlier.number,
                earlier.text,
                compare_line(earlier, answers, self.compared(tables) if answers else None),
            )
        self.drawing.value = html_text("{}{}{}", head, body, line)

    def compared(self, tables: Sequence[RoomTable]) -> Comparison:
        """The tables beside the bots, drawn again when a table finishes; each finished
        table's bots are played once (`self._played`)."""
        key = tuple(
            (t.table_no, t.game.round, len(t.game.decisions)) for t in tables if t.game.over
        )
        if key != self._compared_key:
            self._compared = compare_with_outcome(tables, played=self._played)
            self._compared_key = key
        assert self._compared is not None
        return self._compared
