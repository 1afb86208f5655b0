"""Pieces the dashboard's pages share: a panel that runs a batch of bot games in the
background (`BatchPanel`), charts shown with the sentence that reads them (`chart_widgets`), and
tabs built when first opened (`LazyTabs`)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any, ClassVar

import ipywidgets as widgets

from ..engine.rules import RuleSet, preset_names
from ..render import html_text
from ..serving import figure_widget

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
