"""The dashboard served to a class with Voilà: Play, Who wins, the analysis tabs, and Rules.
Controls replace code everywhere. Batches run in a background thread, so the page stays
responsive, shows progress and can be cancelled."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any, ClassVar

import ipywidgets as widgets
import plotly.graph_objects as go
from IPython.display import display

from ..engine.rules import RuleSet, preset_names
from ..render import ROLE_COLOURS, ROLE_LABELS, html_join, html_text
from ..serving import figure_widget
from .app import ClassroomApp

ROLE_KEYS = ("competitor", "monopolist")
# the batches' usual table: investor bots, two of each role
INVESTOR_SEATS = "competitor:investor,monopolist:investor,competitor:investor,monopolist:investor"


def win_rate_figure(result: Any) -> go.Figure:
    """Win rate by role with its 95% Wilson interval."""
    rates = result.win_rates("role")
    figure = go.Figure(
        layout={
            "title": "Who wins: win rate by role (95% interval)",
            "height": 300,
            "template": "plotly_white",
            "yaxis": {"tickformat": ".0%", "range": [0, 1]},
        }
    )
    for _, row in rates.iterrows():
        role = ROLE_KEYS.index(row["role"])
        figure.add_bar(
            x=[ROLE_LABELS[role] + "s"],
            y=[row["rate"]],
            name=ROLE_LABELS[role] + "s",
            marker={"color": ROLE_COLOURS[role], "pattern": {"shape": "" if role == 0 else "/"}},
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [row["ci_high"] - row["rate"]],
                "arrayminus": [row["rate"] - row["ci_low"]],
            },
            text=[f"{row['rate']:.1%}"],
            textposition="inside",
        )
    return figure


def wealth_by_role_figure(result: Any) -> go.Figure:
    """Mean wealth by role at the end of each round, over all games still running."""
    rounds = result.rounds
    mean = rounds.groupby(["round", "role"], observed=True)["wealth"].mean().reset_index()
    figure = go.Figure(
        layout={
            "title": "Mean wealth by role, round by round",
            "height": 300,
            "template": "plotly_white",
            "xaxis": {"title": "round"},
            "yaxis": {"title": "wealth", "tickprefix": "$"},
        }
    )
    for role, key in enumerate(ROLE_KEYS):
        part = mean[mean["role"] == key]
        figure.add_scatter(
            x=part["round"],
            y=part["wealth"],
            name=ROLE_LABELS[role] + "s",
            line={"color": ROLE_COLOURS[role], "dash": "solid" if role == 0 else "dash"},
        )
    return figure


def rent_flows_figure(result: Any) -> go.Figure:
    """Mean rent paid and received per player, by role."""
    by_role = result.players.groupby("role", observed=True)[["rent_paid", "rent_received"]].mean()
    figure = go.Figure(
        layout={
            "title": "Rent flows: mean per player",
            "height": 300,
            "template": "plotly_white",
            "barmode": "group",
            "yaxis": {"tickprefix": "$"},
        }
    )
    for role, key in enumerate(ROLE_KEYS):
        if key in by_role.index:
            figure.add_bar(
                x=["rent received", "rent paid"],
                y=[by_role.loc[key, "rent_received"], by_role.loc[key, "rent_paid"]],
                name=ROLE_LABELS[role] + "s",
                marker={
                    "color": ROLE_COLOURS[role],
                    "pattern": {"shape": "" if role == 0 else "/"},
                },
            )
    return figure


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


def chart_widgets(charts: Sequence[Any]) -> list[widgets.Widget]:
    """Widgets for charts given as figures or (figure, reading) pairs; a reading is a
    sentence for students, shown under its chart."""
    shown: list[widgets.Widget] = []
    for chart in charts:
        figure, reading = chart if isinstance(chart, tuple) else (chart, None)
        shown.append(figure_widget(figure))
        if reading:
            shown.append(
                widgets.HTML(
                    html_text(
                        "<p class='am-reading' style='white-space:normal;max-width:900px;"
                        "font-size:1.05em'>{}</p>",
                        reading,
                    )
                )
            )
    return shown


class BatchPanel:
    """A games slider, Run and Cancel buttons, a progress bar, and what to show afterwards.

    `run(games, preset, on_chunk)` plays the batch and returns its result; by default it is
    `simulate` with `seats` (investor bots, two of each role) and `seed`; `on_chunk(done, total)` moves the progress bar and stops the
    batch when Cancel is pressed. `show(result)` returns the charts to show, each a figure or
    a (figure, reading) pair, where the reading is a sentence for students. `controls` are
    extra widgets shown above the Run button."""

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
    ) -> None:
        w = widgets
        self.show = show
        self.seats = seats
        self.seed = seed
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
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self.run_button.on_click(lambda _: self.start())
        self.cancel_button.on_click(lambda _: self._cancel.set())
        self.widget = w.VBox(
            [
                w.HTML(title),
                *controls,
                w.HBox([self.games, self.preset]),
                w.HBox([self.run_button, self.cancel_button, self.progress]),
                self.status,
                self.charts,
            ]
        )
        BatchPanel.by_widget[self.widget.model_id] = self

    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            self.status.value = "A batch is already running."
            return
        games = min(max(int(self.games.value), self.min_games), self.max_games)
        self._cancel.clear()
        self._done.clear()
        self.progress.max = games
        self.progress.value = 0
        self.run_button.disabled = True
        self.cancel_button.disabled = False
        self.status.value = f"Playing {games} games…"
        self._thread = threading.Thread(
            target=self._run, args=(games, self.preset.value), daemon=True
        )
        self._thread.start()

    def wait(self) -> None:
        """Block until the running batch ends and its results are shown (scripts and tests;
        inside a kernel the results arrive through the kernel's event loop instead)."""
        if self._thread is not None:
            self._thread.join()
            self._done.wait()

    def _simulate(self, games: int, preset: str, on_chunk: Any) -> Any:
        from ..sim import simulate

        return simulate(
            games=games,
            seats=self.seats,
            rules=RuleSet.preset(preset),
            seed=self.seed,
            progress=False,
            on_chunk=on_chunk,
        )

    def _run(self, games: int, preset: str) -> None:
        def on_chunk(done: int, total: int) -> None:
            on_kernel_thread(lambda: self._show_progress(done, total))
            if self._cancel.is_set():
                raise KeyboardInterrupt  # the simulator stops cleanly and keeps finished games

        try:
            result = self.run_job(games, preset, on_chunk)
        except Exception as err:  # shown politely; the page keeps working
            message = html_text("<span style='color:#b00020'>The batch stopped: {}</span>", err)
            on_kernel_thread(lambda: self._finish(message, None))
        else:
            # a simulation says so itself; an analysis frame keeps it in its attrs
            interrupted = getattr(result, "attrs", {}).get(
                "interrupted", getattr(result, "interrupted", False)
            )
            note = " (cancelled: these are the games that finished)" if interrupted else ""
            summary = getattr(result, "summary", None)
            text = summary() if callable(summary) else "Done."
            message = html_text("<pre style='white-space:pre-wrap'>{}</pre>{}", text, note)
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


def rules_html(preset: str) -> str:
    ruleset = RuleSet.preset(preset)
    changed = ruleset.changed_from_default()
    rows = html_join(
        html_text(
            "<tr><td>{}</td><td>{}{}</td></tr>",
            name.replace("_", " "),
            value,
            html_text(" <b>(changed)</b>") if name in changed else "",
        )
        for name, value in ruleset.to_dict().items()
        if name != "preset_name"
    )
    return html_text(
        "<p>Competitors and Monopolists follow different rules. Competitors may build on any street "
        "they own and still collect rent in Price War; Monopolists charge double rent once they own two "
        "streets of a city, build only there, and collect nothing while in Prison. These are the "
        "parameters of the <b>{}</b> rules:</p>"
        "<table style='border-collapse:collapse'>{}</table>",
        preset,
        rows,
    )


class LazyTabs:
    """Tabs whose pages are built the first time a viewer opens them, so the first page is
    interactive sooner and a visitor's kernel holds only the pages they use."""

    def __init__(self, pages: Sequence[tuple[str, Any]]) -> None:
        self._builders: dict[int, Any] = {}
        children = []
        for index, (_, page) in enumerate(pages):
            if isinstance(page, widgets.Widget):
                children.append(page)
            else:
                self._builders[index] = page
                children.append(widgets.VBox([widgets.HTML("<p>Opening…</p>")]))
        self.widget = widgets.Tab(children=children, titles=[title for title, _ in pages])
        self.widget.observe(lambda change: self.open(change["new"]), names="selected_index")

    def open(self, index: int | None) -> widgets.Widget | None:
        """Build page `index` if it is not built yet, and return it."""
        if index is None:
            return None
        builder = self._builders.pop(index, None)
        if builder is not None:
            self.widget.children[index].children = [builder()]
        return self.widget.children[index]


def _economics() -> Any:
    """The analysis pages, imported when a viewer first opens one (pandas-heavy analysis
    modules would otherwise slow every visitor's first page)."""
    from . import economics

    return economics


class Dashboard:
    """The Voilà app: Play and Who wins, then the economics behind the game (taxes, landing
    odds, returns on titles, inequality, fairness) and the rules. Only the Play tab is built
    at once; the others are built when first opened."""

    def __init__(self, seed: int = 1) -> None:
        w = widgets
        self.app = ClassroomApp(seed=seed)
        self.who_wins = BatchPanel(
            "<p>Play many games with investor bots (two Competitors, two Monopolists) and compare the roles.</p>",
            lambda r: [win_rate_figure(r), wealth_by_role_figure(r), rent_flows_figure(r)],
            default_games=200,
        )
        self.rules_preset = w.Dropdown(options=preset_names(), value="default", description="Rules")
        self.rules_view = w.HTML(rules_html("default"))
        self.rules_preset.observe(
            lambda change: setattr(self.rules_view, "value", rules_html(change["new"])),
            names="value",
        )
        self.pages = LazyTabs(
            [
                ("Play", self.app.widget),
                ("Who wins", self.who_wins.widget),
                ("Taxes", lambda: _economics().taxes_page()),
                ("Landing odds", lambda: _economics().landing_page()),
                ("Returns", lambda: _economics().returns_page()),
                ("Inequality", lambda: _economics().inequality_page(self.app)),
                ("Is it fair?", lambda: _economics().fairness_page()),
                ("Rules", w.VBox([self.rules_preset, self.rules_view])),
            ]
        )
        self.tabs = self.pages.widget
        self.widget = self.tabs

    def _ipython_display_(self) -> None:
        display(self.widget)
