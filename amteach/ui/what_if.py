"""The *What if…* panel on the *Is it fair?* tab: change one rule and see best play under it,
in about a minute (`amteach.analysis.best_play_quick`), with a progress bar and a Cancel
button. It reports what `amteach best-play` reports: the win rates with their intervals, the
conditions, how approximate the result is, and how far it is from best play under the rules
unchanged."""

from __future__ import annotations

import threading
from typing import Any

import ipywidgets as widgets

from ..analysis import best_play_quick, outcomes
from ..analysis.best_play_reading import strategy_words
from ..analysis.best_play_results import BestPlayResult
from ..analysis.rules_table import parameter_label, parameter_words
from ..engine.board import ROLES
from ..engine.errors import AmteachError
from ..engine.rules import RuleSet, preset_names
from ..render import html_join, html_text
from ..style import ROLE_COLOURS, ROLE_PLURALS, ROLE_SHAPES
from .batch import on_kernel_thread

# the rules a class changes most often, each a sum of money (plain words from the Rules tab)
WHAT_IF_RULES = (
    "foundation_monopolist_fee",
    "starting_cash",
    "start_payment",
    "income_tax_flat",
    "property_tax",
    "fine",
)
MOST_DOLLARS = 10_000  # the kernel's own bound on a typed value (a browser can send any number)
# the lengths a class can wait a minute for (games played to the end take far longer)
WHAT_IF_LENGTHS = [
    (length.label, length.rounds) for length in outcomes.GAME_LENGTHS if length.rounds <= 200
]


class WhatIfPanel:
    """Rule, new value, rules preset and game length; a Show best play button, Cancel, a
    progress bar, and the result. `sizes` are `QuickSettings` fields (tests pass small ones);
    `workers` the processes to use (None: one per core)."""

    def __init__(self, sizes: dict[str, Any] | None = None, workers: int | None = None) -> None:
        w = widgets
        self.sizes = dict(sizes or {})
        self.workers = workers
        self.rule = w.Dropdown(
            options=[(parameter_label(name), name) for name in WHAT_IF_RULES],
            value=WHAT_IF_RULES[0],
            description="Rule",
            style={"description_width": "auto"},
            layout=w.Layout(width="auto"),
        )
        self.value = w.BoundedIntText(
            value=0,
            min=0,
            max=MOST_DOLLARS,
            description="New value ($)",
            style={"description_width": "auto"},
            layout=w.Layout(width="220px"),
        )
        self.preset = w.Dropdown(options=preset_names(), value="default", description="Rules")
        self.length = w.Dropdown(
            options=WHAT_IF_LENGTHS,
            value=outcomes.TWO_HOUR_ROUNDS,
            description="Game length",
            style={"description_width": "auto"},
            layout=w.Layout(width="auto"),
        )
        self.run_button = w.Button(
            description="Show best play",
            button_style="primary",
            tooltip="search each role's strongest strategy under the changed rule (about a minute)",
        )
        self.cancel_button = w.Button(description="Cancel", disabled=True)
        self.progress = w.IntProgress(
            value=0, min=0, max=1, description="Progress", layout=w.Layout(width="420px")
        )
        self.status = w.HTML()
        self.answer = w.HTML()
        self.result: BestPlayResult | None = None  # the last run, finished or cancelled
        self.progressed = threading.Event()  # set at the first games of a run (tests wait on it)
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self.rule.observe(lambda _: self.show_current(), names="value")
        self.preset.observe(lambda _: self.show_current(), names="value")
        self.run_button.on_click(lambda _: self.start())
        self.cancel_button.on_click(lambda _: self._cancel.set())
        self.show_current()
        self.widget = w.VBox(
            [
                w.HTML(
                    "<p><b>What if…</b> we changed a rule? Change one and see who wins when "
                    "both roles play the strongest strategies a quick search finds under it "
                    "(about a minute). It starts from the best play shipped with amteach and "
                    "says how far the answer could be from the best.</p>"
                ),
                w.HBox(
                    [self.rule, self.value, self.preset, self.length],
                    layout=w.Layout(flex_flow="row wrap", align_items="center"),
                ),
                w.HBox(
                    [self.run_button, self.cancel_button, self.progress],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                self.status,
                self.answer,
            ]
        )
        self.widget.add_class("am-whatif")

    def current_value(self) -> int:
        return int(RuleSet.preset(self.preset.value).to_dict()[self.rule.value])

    def show_current(self) -> None:
        """Put the rule's value under the chosen preset in the box, to change from there."""
        self.value.value = self.current_value()

    def chosen(self) -> tuple[str, str, int, int]:
        """The preset, rule, value and round cap to search, each kept to the kernel's own
        lists and bounds (whatever a browser sends)."""
        preset = self.preset.value if self.preset.value in preset_names() else "default"
        rule = self.rule.value if self.rule.value in WHAT_IF_RULES else WHAT_IF_RULES[0]
        value = min(max(int(self.value.value or 0), 0), MOST_DOLLARS)
        rounds = [r for _, r in WHAT_IF_LENGTHS]
        cap = self.length.value if self.length.value in rounds else outcomes.TWO_HOUR_ROUNDS
        return preset, rule, value, cap

    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            self.status.value = "A search is already running."
            return
        preset, rule, value, cap = self.chosen()
        self._cancel.clear()
        self._done.clear()
        self.progressed.clear()
        self.progress.value, self.progress.max = 0, 1
        self.run_button.disabled = True
        self.cancel_button.disabled = False
        self.answer.value = ""
        self.status.value = html_text(
            "<p>Searching best play with {} set to ${:,} ({} rules, {})…</p>",
            parameter_words(rule),
            value,
            preset,
            outcomes.time_is_up(cap),
        )
        self._thread = threading.Thread(
            target=self._run, args=(preset, rule, value, cap), daemon=True
        )
        self._thread.start()

    def _run(self, preset: str, rule: str, value: int, cap: int) -> None:
        def on_progress(done: int, total: int) -> None:
            self.progressed.set()
            on_kernel_thread(lambda: self._show_progress(done, total))
            if self._cancel.is_set():
                raise KeyboardInterrupt  # the search stops after the games running now

        try:
            result = best_play_quick.quick_best_play(
                preset,
                {rule: value},
                round_cap=cap,
                workers=self.workers,
                on_progress=on_progress,
                **self.sizes,
            )
        except AmteachError as err:  # a rule value the rules refuse: said in its words
            message = html_text(
                "<p style='color:#b00020'>{}: {}</p>", parameter_label(rule), err.reason
            )
            on_kernel_thread(lambda: self._finish(message, None))
        except Exception as err:  # shown politely; the page keeps working
            message = html_text("<p style='color:#b00020'>The search stopped: {}</p>", err)
            on_kernel_thread(lambda: self._finish(message, None))
        else:
            if result.interrupted:
                message = html_text("<p>Cancelled: the search stopped before a result.</p>")
            else:
                message = html_text(
                    "<p>Done in {:g} s ({:,} games).</p>",
                    result.summary["elapsed_seconds"],
                    result.summary["games_played"],
                )
            on_kernel_thread(lambda: self._finish(message, result))

    def _show_progress(self, done: int, total: int) -> None:
        self.progress.max = max(total, 1)
        self.progress.value = min(done, self.progress.max)

    def _finish(self, message: str, result: BestPlayResult | None) -> None:
        self.result = result
        if result is not None and not result.interrupted:
            self.answer.value = answer_html(result)
            self.progress.value = self.progress.max
        self.status.value = message
        self.run_button.disabled = False
        self.cancel_button.disabled = True
        self._done.set()

    def wait(self) -> None:
        """Block until the running search ends and its result is shown (scripts and tests)."""
        if self._thread is not None:
            self._thread.join()
            self._done.wait()


SIDE_STYLE = "border-left:6px solid {};padding:4px 10px;margin:6px 0;max-width:900px"


def answer_html(result: BestPlayResult) -> str:
    """The result in sentences (the command line's lines) and each side's strategy in words,
    edged in its colour and led by its shape and name (never told by colour alone)."""
    lines = best_play_quick.report_lines(result)
    sides = [
        html_text(
            "<div style='{}'><b>{} {}' strategy</b>: {}</div>",
            SIDE_STYLE.format(ROLE_COLOURS[index]),
            ROLE_SHAPES[index],
            ROLE_PLURALS[index],
            " ".join(strategy_words(result.best(role), role, result.summary["preset"])),
        )
        for index, role in enumerate(ROLES)
    ]
    return html_join(
        [
            html_text("<p style='max-width:900px'><b>{}</b></p>", lines[0]),
            *sides,
            *(html_text("<p style='max-width:900px'>{}</p>", line) for line in lines[1:]),
        ]
    )
