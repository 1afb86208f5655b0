"""Treatments in the Class tab (issue 37): when opening a class the instructor picks the rule
sets its tables play and how tables get them; the live grid says each table's rule set; the
class's results compare the rule sets by their win rates, each table at the round it reached,
beside bots under that table's rules stopped at that round, with Newcombe's interval for the
difference between two rule sets (analysis.stats.compare_batches).

The Class tab makes one `ClassTreatments` and places its `choice` (in the form) and `results`
(under the class's results); `settings()` gives RoomSettings' treatment fields, and
`table_cell(table)` a table's rule set for the grid. What the rooms count is
rooms/treatments.py; this module adds the intervals and the words.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import pandas as pd
from markupsafe import Markup

from ..analysis.rules_table import parameter_value, parameter_words
from ..analysis.stats import BatchDifference, compare_batches, points
from ..engine.errors import InputError
from ..render import html_join, html_text
from ..rooms.room import RoomSettings
from ..rooms.rule_sets import (
    BALANCED,
    BY_HAND,
    MAX_LINE,
    SAME,
    RuleSetChoice,
    as_written,
    named_rule_sets,
    read_changes,
)
from ..rooms.table import RoomTable
from ..rooms.treatments import (
    DEFAULT_BOT_GAMES,
    MAX_BOT_GAMES,
    bots_at_tables,
    table_outcomes,
    treatment_summary,
)
from ..session import Reply
from ..style import ROLE_COLOURS, ROLE_PLURALS, ROLE_SHAPES
from .widgets import button

# the labels a lesson plan names (lessons 1 and 7): keep them as they are
TREATMENT_MODES = (
    ("One rule set for every table", SAME),
    ("Two rule sets, balanced at random", BALANCED),
    ("Set each table by hand", BY_HAND),
)
CHANGED = "changed"  # the second rule set: the instructor's typed changes
CHANGED_LABEL = "Changed rules (typed below)"
WIDE = {"description_width": "initial"}


def changed_rule_set(preset: str, changes: dict[str, Any]) -> RuleSetChoice:
    """The instructor's typed changes as a rule set, with a phone line in plain words ("changed
    rules — the Monopolists' fee at the Foundation is $300.")."""
    said = "; ".join(
        f"{parameter_words(name)} is {parameter_value(name, value)}"
        for name, value in changes.items()
    )
    line = f"changed rules — {said}."
    if len(line) > MAX_LINE:
        line = line[: MAX_LINE - 1] + "…"
    return RuleSetChoice(CHANGED, "Changed rules", line, preset, dict(changes))


def treatment_fields(
    mode: str, second: str, typed: str, preset: str, by_hand: list[int]
) -> dict[str, Any]:
    """RoomSettings' treatment fields from the Class tab's choices; InputError names the box
    that is wrong."""
    changes = read_changes(typed) if typed.strip() else {}
    if mode == SAME:
        if not changes:
            return {"treatments": [], "assignment": SAME, "by_hand": []}
        return {
            "treatments": [changed_rule_set(preset, changes).to_dict()],
            "assignment": SAME,
            "by_hand": [],
        }
    if mode not in (BALANCED, BY_HAND):
        raise InputError("choose how the tables get their rule sets", field="Treatments")
    if second == CHANGED:
        if not changes:
            raise InputError(
                "type the changed rules, one name=value a line (e.g. "
                "foundation_monopolist_fee=300), or choose a named second rule set",
                field="Changed rules",
            )
        other = changed_rule_set(preset, changes)
    else:
        if changes:
            raise InputError(
                f"apply to the second rule set {CHANGED_LABEL!r}: choose it as the Second "
                "rule set, or empty the box",
                field="Changed rules",
            )
        named = named_rule_sets()
        if second not in named:
            raise InputError("choose a named rule set", field="Second rule set")
        other = named[second].on_preset(preset)
    first = as_written(preset)
    if other.rules() == first.rules():
        raise InputError(
            f"{other.label} plays the same rules as {first.label}: choose another",
            field="Second rule set",
        )
    return {
        "treatments": [first.to_dict(), other.to_dict()],
        "assignment": mode,
        "by_hand": list(by_hand) if mode == BY_HAND else [],
    }


class TreatmentChoice:
    """The form's treatment widgets: how tables get rule sets, the second rule set, the typed
    changes, and with by hand a rule set per table."""

    def __init__(self, tables: widgets.IntSlider, preset: widgets.Dropdown) -> None:
        w = widgets
        self.tables, self.preset = tables, preset
        self.mode = w.Dropdown(
            options=TREATMENT_MODES, value=SAME, description="Treatments", style=WIDE
        )
        seconds = [(c.label, c.key) for c in named_rule_sets().values() if c.key != "as-written"]
        self.second = w.Dropdown(
            options=[*seconds, (CHANGED_LABEL, CHANGED)],
            value="equal-keep",
            description="Second rule set",
            style=WIDE,
        )
        self.changed = w.Textarea(
            description="Changed rules",
            placeholder="name=value, one a line, e.g. foundation_monopolist_fee=300",
            style=WIDE,
            layout=w.Layout(width="460px", height="70px"),
        )
        self.per_table = w.HBox(layout=w.Layout(flex_flow="row wrap"))
        self.note = w.HTML()
        for control in (self.mode, self.second, self.tables, self.preset):
            control.observe(lambda _: self.redraw(), names="value")
        self.widget = w.VBox(
            [
                w.HBox([self.mode, self.second], layout=w.Layout(flex_flow="row wrap")),
                self.changed,
                self.note,
                self.per_table,
            ]
        )
        self.widget.add_class("am-treatments")
        self.redraw()

    def labels(self) -> tuple[str, str]:
        first = as_written(self.preset.value).label
        second = dict((key, label) for label, key in self.second.options)[self.second.value]
        return first, "Changed rules" if self.second.value == CHANGED else second

    def redraw(self) -> None:
        """Show what the chosen way needs: the second rule set, and by hand a choice a table."""
        mode = self.mode.value
        self.second.layout.display = "none" if mode == SAME else "flex"
        first, second = self.labels()
        if mode == SAME:
            text = (
                f"Every table plays {first}, with the changed rules below if you type any "
                "(name=value, one a line)."
            )
        elif mode == BALANCED:
            text = (
                f"Half the tables play {first} and half {second} (one more of one if the "
                "tables are odd), drawn at random. Each phone says its table's rules."
            )
        else:
            text = f"Choose {first} or {second} for each table. Each phone says its table's rules."
        self.note.value = html_text("<p style='margin:2px 0'>{}</p>", text)
        if mode != BY_HAND:
            self.per_table.children = ()
            return
        count = int(self.tables.value)
        old = [d.value for d in self.per_table.children]
        options = [(f"First: {first}", 0), (f"Second: {second}", 1)]
        self.per_table.children = [
            widgets.Dropdown(
                options=options,
                value=old[t] if t < len(old) else t % 2,
                description=f"Table {t + 1}",
                layout=widgets.Layout(width="300px"),
            )
            for t in range(count)
        ]

    def settings(self) -> dict[str, Any]:
        """RoomSettings' treatment fields for the choices made (InputError names the box)."""
        return treatment_fields(
            self.mode.value,
            self.second.value,
            self.changed.value,
            self.preset.value,
            [int(d.value) for d in self.per_table.children],
        )


# -- the comparison ----------------------------------------------------------------------------


def _rate(wins: int, games: int) -> str:
    return f"{wins / games:.0%} ({wins} of {games})" if games else "no games yet"


def differences(summary: pd.DataFrame) -> list[dict[str, Any]]:
    """For each rule set after the first, its difference from the first in the Monopolists'
    win rate (this rule set minus the first), for the class and for the bots, each with
    Newcombe's interval (None where a rule set has no finished game)."""
    out = []
    if len(summary) < 2:
        return out
    first = summary.iloc[0]
    for _, row in summary.iloc[1:].iterrows():
        item: dict[str, Any] = {"first": first["label"], "other": row["label"]}
        for who, games, wins in (
            ("class", "games", "monopolist_wins"),
            ("bots", "bot_games", "bot_monopolist_wins"),
        ):
            ok = first[games] > 0 and row[games] > 0
            item[who] = (
                compare_batches(
                    int(first[wins]), int(first[games]), int(row[wins]), int(row[games])
                )
                if ok
                else None
            )
        out.append(item)
    return out


def _difference_words(change: BatchDifference | None) -> str:
    if change is None:
        return "not yet (a rule set has no finished table)"
    return (
        f"{points(change.difference)} points, {change.confidence:.0%} interval "
        f"{points(change.low)} to {points(change.high)}"
    )


def comparison_html(summary: pd.DataFrame, bot_games: int) -> str:
    """The comparison as the Class tab shows it: per rule set the conditions (tables, rounds
    reached, games) and the win rates by role, class and bots; then the differences."""
    mono = html_text(
        "<span style='color:{}'>{} {}</span>", ROLE_COLOURS[1], ROLE_SHAPES[1], ROLE_PLURALS[1]
    )
    comp = html_text(
        "<span style='color:{}'>{} {}</span>", ROLE_COLOURS[0], ROLE_SHAPES[0], ROLE_PLURALS[0]
    )
    rows = [
        html_text(
            "<tr><th scope='row'>{}</th><td>{} of {}</td><td>{}</td><td>{}</td><td>{}</td>"
            "<td>{}</td><td>{}</td></tr>",
            row["label"],
            int(row["finished"]),
            int(row["tables"]),
            row["rounds"] or "none finished",
            _rate(int(row["monopolist_wins"]), int(row["games"])),
            _rate(int(row["competitor_wins"]), int(row["games"])),
            _rate(int(row["bot_monopolist_wins"]), int(row["bot_games"])),
            _rate(int(row["bot_competitor_wins"]), int(row["bot_games"])),
        )
        for _, row in summary.iterrows()
    ]
    lines = [
        html_text(
            "<li>{} minus {}, {} win rate: your class {}; bots {}.</li>",
            item["other"],
            item["first"],
            mono,
            _difference_words(item["class"]),
            _difference_words(item["bots"]),
        )
        for item in differences(summary)
    ]
    return str(
        html_text(
            "<table class='am-treatment-table'><caption>The rule sets compared: finished "
            "tables only, each at the round it reached; bots play {} games per finished "
            "table in its seats, under its rules, stopped at its round.</caption>"
            "<thead><tr><th scope='col'>Rule set</th><th scope='col'>Tables finished</th>"
            "<th scope='col'>Rounds reached</th><th scope='col'>Class: {} win</th>"
            "<th scope='col'>Class: {} win</th><th scope='col'>Bots: {} win</th>"
            "<th scope='col'>Bots: {} win</th></tr></thead><tbody>{}</tbody></table>"
            "<ul>{}</ul><p><small>Intervals: Newcombe's method for two separate groups of "
            "games. A class has few tables, so its interval is wide. Short games are mostly "
            "decided by the final accounting (decision 12): compare the rule sets at the "
            "rounds your tables reached, not with longer games.</small></p>",
            bot_games,
            mono,
            comp,
            mono,
            comp,
            html_join(rows),
            html_join(lines),
        )
    )


class TreatmentResults:
    """The Class tab's comparison of the rule sets: a button, the bot games per table, and
    the table of conditions and win rates."""

    def __init__(self, tables: Any, seed: Any, say: Any) -> None:
        w = widgets
        self._tables, self._seed, self._say = tables, seed, say
        self.games = w.BoundedIntText(
            value=DEFAULT_BOT_GAMES,
            min=20,
            max=MAX_BOT_GAMES,
            description="Bot games per table",
            style=WIDE,
        )
        self.button = button("Compare the rule sets", lambda _: self.compare())
        self.output = w.HTML()
        self.output.add_class("am-treatment-results")
        self.widget = w.VBox(
            [
                w.HTML("<h3>The rule sets compared</h3>"),
                w.HBox([self.games, self.button], layout=w.Layout(flex_flow="row wrap")),
                self.output,
            ]
        )

    def compare(self) -> bool:
        tables: list[RoomTable] = list(self._tables())
        if not tables:
            return self._say(Reply(False, "The games have not started yet.", "warning"))
        outcomes = table_outcomes(tables)
        if not any(o.finished for o in outcomes):
            return self._say(Reply(False, "No table has finished its game yet.", "warning"))
        games = int(self.games.value)
        try:
            bots = bots_at_tables(outcomes, games, int(self._seed()))
        except InputError as err:
            return self._say(Reply(False, f"Could not compare: {err}", "warning"))
        self.output.value = comparison_html(treatment_summary(outcomes, bots), games)
        return True


class ClassTreatments:
    """The Class tab's treatments: `choice` for the form, `results` for the class's results,
    `settings()` for opening a room, `table_cell(table)` for the live grid."""

    def __init__(self, tab: Any) -> None:
        self.tab = tab
        self.chooser = TreatmentChoice(tab.table_count, tab.preset)
        self.choice = self.chooser.widget
        self.comparer = TreatmentResults(
            lambda: tab.tables,
            lambda: tab.tables[0].info.settings.seed if tab.tables else 0,
            tab.answer,
        )
        self.results = self.comparer.widget

    def settings(self) -> dict[str, Any]:
        return self.chooser.settings()

    @staticmethod
    def rules_words(settings: RoomSettings) -> str:
        """The room's rules for its banner: the preset, or its rule sets and how tables get
        them ("Rules as written or Equal keep shares, balanced at random")."""
        sets = settings.rule_sets()
        if len(sets) == 1:
            return settings.preset if not settings.treatments else sets[0].label
        how = "balanced at random" if settings.assignment == BALANCED else "set by hand"
        return f"{' or '.join(s.label for s in sets)}, {how}"

    @staticmethod
    def table_cell(table: RoomTable) -> Markup:
        """The table's rule set in words, for the live grid."""
        settings: RoomSettings = table.info.settings
        return html_text(
            "<td><small>rules</small><br>{}</td>", settings.rule_set(table.table_no).label
        )
