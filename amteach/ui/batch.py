"""Pieces the dashboard's pages share: a panel that runs a batch of bot games in the
background (`BatchPanel`), charts shown with the sentence that reads them (`chart_widgets`), and
tabs built when first opened (`LazyTabs`)."""

from __future__ import annotations

import secrets
import threading
import weakref
from collections.abc import Sequence
from typing import Any, ClassVar

import ipywidgets as widgets

from ..analysis import fairness, outcomes, stats
from ..engine.board import ROLES
from ..engine.rules import RuleSet, preset_names
from ..render import html_join, html_text
from ..style import (
    NEUTRAL_COLOUR,
    PERCENT_AXIS,
    ROLE_COLOURS,
    ROLE_DASHES,
    ROLE_PLURALS,
    ROLE_SHAPES,
    ROLE_SYMBOLS,
    chart_layout,
)
from .charts import data_details_html
from .figures import figure_widget
from .lazy import LazyTabs  # noqa: F401 (its home was here; tests import it from here)
from .resize import ChartSizer

# the batches' usual table: investor bots, two of each role
INVESTOR_SEATS = "competitor:investor,monopolist:investor,competitor:investor,monopolist:investor"


def on_kernel_thread(action: Any) -> None:
    """Run `action` on the kernel's own event loop: widgets are created and changed there,
    never from the batch's background thread. Outside a kernel (scripts, tests) run it now."""
    try:
        from IPython import get_ipython

        loop = getattr(getattr(get_ipython(), "kernel", None), "io_loop", None)
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        loop = None
    if loop is None:
        action()
    else:
        loop.add_callback(action)


# Jargon, said where it first appears on a page
INTERVAL_EXPLAINED = (
    "95% interval: the range of win rates that fits these games. Played again with other "
    "dice, it would catch the true rate 95 times in 100; more games make it narrower. It is "
    "the exact (Clopper-Pearson) interval, the same one the charts draw and the even test "
    "reads: when it leaves out an even share, the test says more than luck."
)
# how batch games end, in plain words (the engine's end reasons)
ENDINGS = {
    "game_a": "ended with one player left standing (Game A: the last player in the game wins)",
    "game_b": "ended when one role was out (Game B: the richest player of the other role wins)",
    "two_hour": "ended with the two-hour game's final accounting",
    "round_cap": "ran until time was up after {cap} rounds and were settled by the final "
    "accounting",
}
# the game lengths a batch offers, and how the two-hour one was estimated (a tooltip)
LENGTH_OPTIONS = [(length.label, length.rounds) for length in outcomes.GAME_LENGTHS]
LENGTH_TOOLTIP = outcomes.LENGTH_ASSUMPTIONS
# games a length when a panel compares game lengths (one batch a length): the Games slider's,
# at most this many, since games played to the end are long
LENGTH_GAMES = 1000
MAX_SEED = 2**31 - 1


def batch_summary_html(result: Any) -> str:
    """A batch of bot games in a small table (role, win rate, 95% interval, games won), then
    one line on how the games ended, with the jargon explained. The interval is the exact one
    the Who wins chart draws (`fairness.win_rate_table`), so a cell and its whisker agree."""
    from ..sim.runner import DEFAULT_ROUND_CAP

    games = len(result.games)
    meta = result.meta
    head = html_text(
        "<p><b>{} games</b>, seed {}{}.</p>",
        games,
        meta.get("seed", "?"),
        html_text(", played in {} s", f"{meta['elapsed']:.1f}") if meta.get("elapsed") else "",
    )
    if games == 0:
        return head
    rows = html_join(
        html_text(
            '<tr><td style="color:{}">{} {}</td><td>{}</td><td>{} to {}</td><td>{} of {}</td></tr>',
            ROLE_COLOURS[ROLES.index(row.role)],
            ROLE_SHAPES[ROLES.index(row.role)],
            ROLE_PLURALS[ROLES.index(row.role)],
            f"{100 * row.rate:.1f}%",
            f"{100 * row.ci_low:.1f}%",
            f"{100 * row.ci_high:.1f}%",
            row.wins,
            row.games,
        )
        for row in fairness.win_rate_table(result, "role").itertuples()
    )
    cap = (meta.get("rules") or {}).get("round_cap") or DEFAULT_ROUND_CAP
    ends = result.games["end_reason"].value_counts(normalize=True)
    endings = "; ".join(
        f"{100 * share:.0f}% {ENDINGS.get(reason, reason).format(cap=cap)}"
        for reason, share in ends.items()
        if share > 0
    )
    return html_text(
        '{}<table class="am-summary"><thead><tr><th>role</th><th>win rate</th>'
        '<th title="{}">95% interval <span class="am-info">?</span></th><th>games won</th>'
        "</tr></thead><tbody>{}</tbody></table>"
        '<p class="am-note">{}</p><p>Games lasted {} rounds on average; {}.</p>{}{}',
        head,
        INTERVAL_EXPLAINED,
        rows,
        INTERVAL_EXPLAINED,
        f"{result.games['rounds'].mean():.0f}",
        endings,
        endings_table_html(result, cap),
        accounting_html(result),
    )


def accounting_html(result: Any) -> str:
    """What the final accounting decided: the lines `amteach simulate` prints
    (`SimulationResult.accounting_text`), with the exact intervals the tables above show;
    nothing for frames saved before the batches recorded the standing when it began."""
    from ..sim.results import LEADER_BEFORE

    if LEADER_BEFORE not in result.games:
        return ""
    head, *notes = result.accounting_text("exact").split("\n")
    return html_text(
        '<p class="am-accounting">{}</p>{}',
        head,
        html_join(html_text('<p class="am-note">{}</p>', note.strip()) for note in notes),
    )


def class_accounting_html(result: Any) -> str:
    """How many of a class's finished games the final accounting decided (its winner was not
    the player with the most cash when time was up), and in how many it gave the win to the
    other role, with the rounds and keep shares they hold under (the Class tab's results)."""
    changes = result.accounting_changes().set_index("change")
    winner, role = changes.loc["winner"], changes.loc["winning role"]
    settled, total = int(winner["games"]), int(winner["of"])
    if total == 0:
        return ""
    finished = html_text("{} finished game{}", total, "" if total == 1 else "s")
    if settled == 0:
        return html_text(
            '<p class="am-accounting">None of the class\'s {} ended with time up, so the final '
            "accounting decided none of them.</p>",
            finished,
        )
    return html_text(
        '<p class="am-accounting"><b>The final accounting decided {} of the class\'s {}</b>: '
        "time was up in {}, and in {} of those the player with the most cash when time was up "
        "did not win; in {} the win went to the other role.</p>"
        '<p class="am-note">Time was up {}. A game the accounting decided says little about '
        "who was winning the play itself.</p>",
        int(winner["changed"]),
        finished,
        settled,
        int(winner["changed"]),
        int(role["changed"]),
        result.accounting_conditions(),
    )


def endings_table_html(result: Any, cap: int) -> str:
    """Win rates by how the games ended: played out (the game's own end) or when time was up
    (the final accounting after `cap` rounds), each role with its exact 95% interval
    (`stats.win_rates_by_ending`)."""
    frame = stats.win_rates_by_ending(result)
    words = {stats.ENDINGS[0]: "Played out", stats.ENDINGS[1]: f"Time up after {cap} rounds"}
    rows = html_join(
        html_text(
            '<tr><td>{}</td><td style="color:{}">{} {}</td><td>{}</td><td>{} to {}</td>'
            "<td>{} of {}</td></tr>",
            words.get(row.ending, row.ending),
            ROLE_COLOURS[ROLES.index(row.role)],
            ROLE_SHAPES[ROLES.index(row.role)],
            ROLE_PLURALS[ROLES.index(row.role)],
            f"{100 * row.rate:.1f}%",
            f"{100 * row.ci_low:.1f}%",
            f"{100 * row.ci_high:.1f}%",
            row.wins,
            row.games,
        )
        for row in frame.itertuples()
        if row.games > 0
    )
    return html_text(
        '<table class="am-endings"><caption>Who won, by how the games ended'
        "</caption><thead><tr><th>how it ended</th><th>role</th><th>win rate</th>"
        "<th>95% interval</th><th>games won</th></tr></thead><tbody>{}</tbody></table>",
        rows,
    )


def by_length_figure(frame: Any, title: str = "") -> Any:
    """Each role's win rate by game length (one batch a length, `outcomes.win_rates_by_length`):
    a line a role in its colour, shape and dash, with exact 95% intervals (recomputed from the
    wins and games, so a run stored with another interval draws the same whiskers), and grey
    bars for the share of games that time settled (the final accounting picked their winner)."""
    import plotly.graph_objects as go

    frame = stats.exact_intervals(frame)
    figure = go.Figure()
    lengths = sorted(frame["rounds"].unique())
    labels = [
        f"{r} (two hours)"
        if r == outcomes.TWO_HOUR_ROUNDS
        else f"{r:,} (to the end)"
        if r == outcomes.PLAYED_OUT_ROUNDS
        else f"{r:,}"
        for r in lengths
    ]
    label_of = dict(zip(lengths, labels, strict=True))
    capped = frame.drop_duplicates("rounds").set_index("rounds").loc[lengths]
    figure.add_bar(
        x=labels,
        y=capped["capped_share"],
        name="games settled when time was up",
        marker={"color": "#d9d9d9", "line": {"color": NEUTRAL_COLOUR, "width": 1}},
        text=[f"{100 * v:.0f}%" for v in capped["capped_share"]],
        textposition="inside",
        insidetextanchor="start",
        textfont={"color": "#333", "size": 14},
        hovertemplate="%{x} rounds: time settled %{y:.0%} of the games<extra></extra>",
    )
    for index, role in enumerate(ROLES):
        part = frame[frame["role"] == role].sort_values("rounds")
        figure.add_scatter(
            x=[label_of[r] for r in part["rounds"]],
            y=part["rate"],
            mode="lines+markers+text",
            name=f"{ROLE_PLURALS[index]} win",
            line={"color": ROLE_COLOURS[index], "dash": ROLE_DASHES[index], "width": 3},
            marker={"symbol": ROLE_SYMBOLS[index], "size": 11, "color": ROLE_COLOURS[index]},
            text=[f"{100 * v:.0f}%" for v in part["rate"]],
            textposition="top center" if index else "bottom center",
            textfont={"size": 15, "color": ROLE_COLOURS[index]},
            error_y={
                "type": "data",
                "symmetric": False,
                "array": part["ci_high"] - part["rate"],
                "arrayminus": part["rate"] - part["ci_low"],
                "color": ROLE_COLOURS[index],
                "thickness": 2,
                "width": 8,
            },
            customdata=part[["wins", "games", "ci_low", "ci_high"]].to_numpy(),
            hovertemplate=(
                "%{x} rounds: won %{y:.1%} (%{customdata[0]} of %{customdata[1]})<br>95% "
                "interval %{customdata[2]:.1%} to %{customdata[3]:.1%}<extra>"
                + ROLE_PLURALS[index]
                + "</extra>"
            ),
        )
    return figure.update_layout(
        chart_layout(
            title or "Who wins, by game length (thin lines: 95% intervals)",
            height=420,
            xaxis={"title": {"text": "time is up after this many rounds"}, "type": "category"},
            yaxis={"title": {"text": "share of games"}, **PERCENT_AXIS, "range": [0, 1.08]},
            bargap=0.5,
        )
    )


SUMMARY_STYLE = """<style>
.am-summary{border-collapse:collapse;font-size:16px;margin:4px 0}
.am-summary th,.am-summary td{border-bottom:1px solid #ccc;padding:4px 12px;text-align:right}
.am-summary th:first-child,.am-summary td:first-child{text-align:left;font-weight:700}
.am-endings{border-collapse:collapse;font-size:16px;margin:8px 0}
.am-endings caption{text-align:left;font-weight:700;padding:2px 0}
.am-endings th,.am-endings td{border-bottom:1px solid #ccc;padding:4px 12px;text-align:right}
.am-endings th:nth-child(-n+2),.am-endings td:nth-child(-n+2){text-align:left}
.am-info{display:inline-block;width:1.1em;height:1.1em;line-height:1.1em;border-radius:50%;border:1px solid currentColor;
  text-align:center;font-size:0.8em;font-weight:700;cursor:help}
.am-note{font-size:14px;color:#444;max-width:900px;margin:2px 0}
.am-batch .am-reading{font-size:17px;max-width:960px;white-space:normal}
</style>"""


def chart_widgets(charts: Sequence[Any]) -> list[widgets.Widget]:
    """Widgets for charts given as figures or (figure, reading) pairs; a reading is a
    sentence for students, shown under its chart. A `ChartSizer` at the end resizes the
    charts when their tab opens."""
    shown: list[widgets.Widget] = []
    for chart in charts:
        figure, reading = chart if isinstance(chart, tuple) else (chart, None)
        shown.append(figure_widget(figure))
        if reading:
            shown.append(
                widgets.HTML(
                    html_text(
                        "<p class='am-reading' style='white-space:normal;max-width:960px;"
                        "font-size:17px;line-height:1.4'>{}</p>",
                        reading,
                    )
                )
            )
        shown.append(widgets.HTML(data_details_html(figure)))  # the chart's data, as tables
    if shown:
        shown.append(ChartSizer())
    return shown


class BatchPanel:
    """A games slider, a seed, Run and Cancel buttons, a progress bar, and what to show
    afterwards.

    `run(games, preset, seed, on_chunk)` plays the batch and returns its result; by default it
    is `simulate` with `seats` (investor bots, two of each role); `on_chunk(done, total)` moves
    the progress bar and stops the batch when Cancel is pressed. `show(result)` returns the
    charts to show, each a figure or a (figure, reading) pair, where the reading is a sentence
    for students. `controls` are extra widgets shown above the Run button; `rules=False` hides
    the Rules choice (a batch that plays its own rule sets).

    The seed starts at `seed`, the one the lessons' answer keys use; a pair of students can
    type another or press New seed for a sample of their own, and the summary names the seed
    played so they can write it down."""

    # every panel by its widget's model id, so a page's panels can be found from its widgets
    by_widget: ClassVar[weakref.WeakValueDictionary[str, BatchPanel]] = (
        weakref.WeakValueDictionary()
    )

    def __init__(
        self,
        title: str,
        show: Any,
        default_games: int = 500,
        seats: str = INVESTOR_SEATS,
        seed: int = 1,
        run: Any = None,
        controls: Sequence[widgets.Widget] = (),
        max_games: int = 10_000,
        rules: bool = True,
    ) -> None:
        w = widgets
        self.show = show
        self.seats = seats
        self.run_job = run if run is not None else self._simulate
        # the kernel's own bounds: a visitor's browser can change a slider's min and max
        self.min_games, self.max_games = 50, max_games
        self.games = w.IntSlider(
            value=default_games,
            min=50,  # as self.min_games
            max=max_games,
            step=50,
            description="Games",
            continuous_update=False,
            layout=w.Layout(width="420px"),
        )
        self.preset = w.Dropdown(options=preset_names(), value="default", description="Rules")
        self.preset.layout.display = None if rules else "none"
        # how long the games are: the round where time is up (for the panel's own batches)
        own_batches = run is None
        self.length = w.Dropdown(
            options=LENGTH_OPTIONS,
            value=outcomes.SIMULATION_ROUNDS,
            description="Game length",
            tooltip=LENGTH_TOOLTIP,
            style={"description_width": "auto"},
            layout=w.Layout(width="auto"),
        )
        self.length_help = w.HTML(
            html_text(
                '<span class="am-info" title="{}" aria-label="{}" role="img">?</span>',
                LENGTH_TOOLTIP,
                LENGTH_TOOLTIP,
            )
        )
        self.compare_button = w.Button(
            description="Compare game lengths",
            tooltip=f"play the Games slider's games (at most {LENGTH_GAMES:,}) at each of "
            + ", ".join(f"{r:,}" for r in outcomes.CHART_ROUNDS)
            + " rounds, with the same seats, rules and seed, and chart who wins at each",
            layout=w.Layout(width="auto"),
        )
        self.compare_button.on_click(lambda _: self.start_lengths())
        self.length_charts = w.VBox()
        for widget in (self.length, self.length_help, self.compare_button):
            widget.layout.display = None if own_batches else "none"
        self.round_cap = outcomes.SIMULATION_ROUNDS
        self.chart_rounds: tuple[int, ...] = outcomes.CHART_ROUNDS  # the lengths compared
        self.seed_box = w.BoundedIntText(
            value=seed,
            min=0,
            max=MAX_SEED,
            description="Seed",
            tooltip="the same seed plays the same games; another seed, another sample",
            layout=w.Layout(width="200px"),
        )
        self.new_seed = w.Button(
            description="New seed",
            tooltip="draw a seed of your own: another sample of games",
            layout=w.Layout(width="auto"),
        )
        self.new_seed.on_click(
            lambda _: setattr(self.seed_box, "value", secrets.randbelow(MAX_SEED))
        )
        self.run_button = w.Button(
            description="Run", button_style="primary", tooltip="play the games with bots"
        )
        self.cancel_button = w.Button(description="Cancel", disabled=True)
        self.progress = w.IntProgress(
            value=0, min=0, max=1, description="Progress", layout=w.Layout(width="420px")
        )
        self.status = w.HTML()
        self.charts = w.VBox()
        self.result: Any = None
        self.length_frame: Any = None
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self.run_button.on_click(lambda _: self.start())
        self.cancel_button.on_click(lambda _: self._cancel.set())
        self.widget = w.VBox(
            [
                w.HTML(SUMMARY_STYLE + title),
                *controls,
                w.HBox(
                    [self.games, self.preset, self.length, self.length_help],
                    layout=w.Layout(flex_flow="row wrap", align_items="center"),
                ),
                w.HBox([self.seed_box, self.new_seed], layout=w.Layout(align_items="center")),
                w.HBox(
                    [self.run_button, self.cancel_button, self.progress, self.compare_button],
                    layout=w.Layout(flex_flow="row wrap"),
                ),
                self.status,
                self.charts,
                self.length_charts,
            ]
        )
        self.widget.add_class("am-batch")
        # the summary and the charts by name, for layouts that place them (projector.css)
        self.status.add_class("am-batch-summary")
        self.charts.add_class("am-batch-charts")
        self.length_charts.add_class("am-batch-lengths")
        BatchPanel.by_widget[self.widget.model_id] = self

    @property
    def seed(self) -> int:
        """The seed the next batch plays (the kernel keeps it in bounds)."""
        return min(max(int(self.seed_box.value or 0), 0), MAX_SEED)

    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            self.status.value = "A batch is already running."
            return
        games = min(max(int(self.games.value), self.min_games), self.max_games)
        seed = self.seed
        self.round_cap = self.chosen_length()
        self._cancel.clear()
        self._done.clear()
        self.progress.max = games
        self.progress.value = 0
        self.run_button.disabled = True
        self.cancel_button.disabled = False
        self.status.value = f"Playing {games} games with seed {seed}…"
        self._thread = threading.Thread(
            target=self._run, args=(games, self.preset.value, seed), daemon=True
        )
        self._thread.start()

    def chosen_length(self) -> int:
        """The round where time is up in the next batch: one of the offered lengths (the
        kernel's own list, whatever a browser sends)."""
        value = self.length.value
        allowed = [rounds for _, rounds in LENGTH_OPTIONS]
        return value if value in allowed else outcomes.SIMULATION_ROUNDS

    def start_lengths(self) -> None:
        """One batch a game length (`outcomes.CHART_ROUNDS`), the panel's seats, rules and
        seed, in the background; then the by-length chart under the batch's charts."""
        if self._thread is not None and self._thread.is_alive():
            self.status.value = "A batch is already running."
            return
        preset, seed = self.preset.value, self.seed
        games = min(max(int(self.games.value), self.min_games), LENGTH_GAMES)
        lengths = self.chart_rounds
        self._cancel.clear()
        self._done.clear()
        self.progress.max = len(lengths)
        self.progress.value = 0
        self.run_button.disabled = self.compare_button.disabled = True
        self.cancel_button.disabled = False
        self.status.value = (
            f"Playing {games} games at each of {len(lengths)} game lengths with seed {seed}…"
        )
        self._thread = threading.Thread(
            target=self._run_lengths, args=(games, preset, seed, lengths), daemon=True
        )
        self._thread.start()

    def _run_lengths(self, games: int, preset: str, seed: int, lengths: Sequence[int]) -> None:
        def on_length(done: int, total: int) -> None:
            on_kernel_thread(lambda: self._show_progress(done, total))
            if self._cancel.is_set():
                raise KeyboardInterrupt

        try:
            frame = outcomes.play_by_length(
                self.seats, preset, seed, games, lengths, None, on_length
            )
        except KeyboardInterrupt:
            on_kernel_thread(lambda: self._finish_lengths("The comparison was cancelled.", None))
        except Exception as err:  # shown politely; the page keeps working
            message = html_text("<span style='color:#b00020'>The batches stopped: {}</span>", err)
            on_kernel_thread(lambda: self._finish_lengths(message, None))
        else:
            message = html_text(
                "<p>Done: {} games at each game length, seed {}, {} rules.</p>",
                games,
                seed,
                preset,
            )
            on_kernel_thread(lambda: self._finish_lengths(message, frame))

    def _finish_lengths(self, message: str, frame: Any) -> None:
        if frame is not None:
            self.length_frame = frame
            self.length_charts.children = chart_widgets(
                [(by_length_figure(frame), outcomes.reading_by_length(frame))]
            )
        self.status.value = message
        self.run_button.disabled = self.compare_button.disabled = False
        self.cancel_button.disabled = True
        self._done.set()

    def wait(self) -> None:
        """Block until the running batch ends and its results are shown (scripts and tests;
        inside a kernel the results arrive through the kernel's event loop instead)."""
        if self._thread is not None:
            self._thread.join()
            self._done.wait()

    def _simulate(self, games: int, preset: str, seed: int, on_chunk: Any) -> Any:
        from ..sim import simulate

        return simulate(
            games=games,
            seats=self.seats,
            rules=RuleSet.preset(preset),
            round_cap=self.round_cap,
            seed=seed,
            progress=False,
            on_chunk=on_chunk,
        )

    def _run(self, games: int, preset: str, seed: int) -> None:
        def on_chunk(done: int, total: int) -> None:
            on_kernel_thread(lambda: self._show_progress(done, total))
            if self._cancel.is_set():
                raise KeyboardInterrupt  # the simulator stops cleanly and keeps finished games

        try:
            result = self.run_job(games, preset, seed, on_chunk)
        except Exception as err:  # shown politely; the page keeps working
            message = html_text("<span style='color:#b00020'>The batch stopped: {}</span>", err)
            on_kernel_thread(lambda: self._finish(message, None))
        else:
            # a simulation says so itself; an analysis frame keeps it in its attrs
            interrupted = getattr(result, "attrs", {}).get(
                "interrupted", getattr(result, "interrupted", False)
            )
            note = (
                html_text("<p>(The batch was cancelled: these are the games that finished.)</p>")
                if interrupted
                else ""
            )
            if hasattr(result, "win_rates") and hasattr(result, "games"):
                text = batch_summary_html(result)
            else:
                text = html_text("<p>Done: {} games for each setting, seed {}.</p>", games, seed)
            message = html_text("{}{}", text, note)
            on_kernel_thread(lambda: self._finish(message, result))

    def _show_progress(self, done: int, total: int) -> None:
        self.progress.max = max(total, 1)  # a sweep plays its games for every value
        self.progress.value = done

    def _finish(self, message: str, result: Any) -> None:
        if result is not None:
            self.result = result
            try:
                self.charts.children = chart_widgets(self.show(result))
            except Exception as err:  # e.g. a cancelled batch too small to chart
                message = html_text("{}<p style='color:#b00020'>No chart: {}</p>", message, err)
        self.status.value = message
        self.run_button.disabled = False
        self.cancel_button.disabled = True
        self._done.set()
