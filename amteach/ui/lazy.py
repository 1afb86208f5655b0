"""Parts of a page built only when a viewer first needs them, so a visitor's first page is
interactive sooner and the kernel holds only what is used: tabs built when first opened
(`LazyTabs`), sections of an accordion built when first opened (`LazySections`: the Play
tab's closed panels), and `NearScreen`, which says when a box below the first screen is about to be
scrolled to (the Play tab's live charts)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import anywidget
import ipywidgets as widgets
import traitlets

OPENING = "<p>Opening…</p>"


def _opened_index(value: Any, count: int) -> int | None:
    """`value` as the index of one of `count` pages, or None (closed); raises ValueError for
    anything else."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(value)
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(value)  # (an infinity or NaN too)
    index = int(value)
    if not 0 <= index < count:
        raise ValueError(value)
    return index


class _ForgivingIndex(traitlets.HasTraits):
    """A Tab or Accordion whose `selected_index`, as a visitor's page may send it, is never an
    error: a page that does not exist (an index out of range, or not a number) changes
    nothing. ipywidgets' own check raises, and the kernel would log a traceback for every
    forged message."""

    selected_index = traitlets.Any(None, allow_none=True).tag(sync=True)
    # the last index accepted: a message's state is set before it is checked, so the trait
    # itself already holds what was sent
    _accepted_index: int | None = None

    @traitlets.validate("selected_index")
    def _validated_index(self, proposal: dict[str, Any]) -> int | None:
        try:
            index = _opened_index(proposal["value"], len(self.children))  # type: ignore[attr-defined]
        except (ValueError, OverflowError):
            return self._accepted_index
        self._accepted_index = index
        return index


class OpenableTab(_ForgivingIndex, widgets.Tab):
    """ipywidgets' Tab, whose page index from the browser is checked as `_ForgivingIndex`."""


class OpenableAccordion(_ForgivingIndex, widgets.Accordion):
    """ipywidgets' Accordion, whose open section from the browser is checked as
    `_ForgivingIndex`."""


class Placeholder:
    """What a page not built yet shows: one "Opening…" text and one layout, shared by every
    such page of a screen (each costs the page one widget, its box)."""

    def __init__(self) -> None:
        self.text = widgets.HTML(OPENING)
        self.layout = widgets.Layout()

    def box(self) -> widgets.VBox:
        return widgets.VBox([self.text], layout=self.layout)


class LazySections:
    """The pages of a Tab, or the sections of an Accordion, built the first time a viewer
    opens them (the browser sends the open page's index). A page not built yet is an empty
    box showing "Opening…": every such box shares one text and one layout, so a page not
    opened costs one widget. `pages` are (title, page) pairs: a widget is shown from the
    start; a function is called once, on first opening, and returns the page's widget.
    `placeholder`: the "Opening…" shared with other lazy parts of the same screen."""

    container: type[widgets.Widget] = OpenableAccordion
    first_shown: int | None = None  # the page open from the start (None: all closed)

    def __init__(
        self,
        pages: Sequence[tuple[str, Any]],
        placeholder: Placeholder | None = None,
        gate: ModuleReady | None = None,
        gated: Sequence[str] = (),
    ) -> None:
        self._builders: dict[int, Any] = {}
        # the pages (by title) built only once `gate` says its module is loaded in the page
        self._gate = gate
        self._gated = {i for i, (title, _) in enumerate(pages) if title in gated}
        self._waiting: set[int] = set()
        if gate is not None:
            gate.when_ready(self._open_waiting)
        children = []
        for index, (_, page) in enumerate(pages):
            if isinstance(page, widgets.Widget):
                children.append(page)
                continue
            placeholder = placeholder or Placeholder()
            self._builders[index] = page
            children.append(placeholder.box())
        self.widget = self.container(
            children=children, titles=[title for title, _ in pages], selected_index=None
        )
        self.widget.observe(lambda change: self.open(change["new"]), names="selected_index")
        if pages and self.first_shown is not None:
            self.widget.selected_index = self.first_shown

    def built(self, index: int) -> bool:
        """True once page `index` is built (a page given as a widget is built from the start)."""
        return index not in self._builders

    def open(self, index: int | None) -> widgets.Widget | None:
        """Build page `index` if it is not built yet, and return it (None: no such page)."""
        if index is None or not 0 <= index < len(self.widget.children):
            return None
        if self._gate is not None and not self._gate.loaded and index in self._gated:
            self._waiting.add(index)  # "Opening…" until the page has the module
            return self.widget.children[index]
        builder = self._builders.pop(index, None)
        if builder is not None:
            self.widget.children[index].children = [builder()]
        return self.widget.children[index]

    def _open_waiting(self) -> None:
        waiting, self._waiting = sorted(self._waiting), set()
        for index in waiting:
            self.open(index)


class LazyTabs(LazySections):
    """Tabs whose pages are built the first time a viewer opens them (`LazySections`); the
    first tab is shown, and built, at once."""

    container = OpenableTab
    first_shown = 0


# The browser side of `ModuleReady` and `NearScreen`: a thin block. Once it is in the page (the
# first screen is drawn with it) and the page is quiet, the module is imported and the kernel
# told, once (`ready`); a module that cannot be loaded is reported as ready too, so nothing
# waits for ever (its widgets then fail as they would have). Quiet: no click, key, touch or
# wheel for QUIET_MS, and then idle. Evaluating plotly's 4.8 MB bundle holds the browser's
# main thread for 1.6 to 5.1 s on a busy machine (benchmarks/bench_first_click.py), and a click
# meanwhile waits for it: so it is never started while the page is being used (the first
# Roll, Buy, End turn), nor while the first screen is drawn. The block's distance from the
# screen is watched too: once it is less than one screen's height below the screen (or on it),
# and the page is quiet and has the module, the kernel is told, once (`near`). The browser
# imports a module once, however often it is asked.
MODULE_ESM = """
const QUIET_MS = 2000;
let lastInput = performance.now();
for (const type of ["pointerdown", "keydown", "touchstart", "wheel"]) {
  addEventListener(type, () => { lastInput = performance.now(); }, { capture: true, passive: true });
}
function whenQuiet(then) {
  const left = QUIET_MS - (performance.now() - lastInput);
  if (left > 0) return setTimeout(() => whenQuiet(then), left);
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 200));
  idle(() => (performance.now() - lastInput < QUIET_MS ? whenQuiet(then) : then()), { timeout: 3000 });
}
async function load(path) {
  if (!path) return;
  const voila = new URL(document.body.dataset.baseUrl || "./", document.baseURI);
  try {
    await import(new URL(path, voila).href);
  } catch (failed) {
    console.warn("amteach: could not load", path, failed);
  }
}
function whenDrawn(el, then) {
  const check = () => (el.isConnected ? then() : requestAnimationFrame(check));
  requestAnimationFrame(check);
}
function say(model, name) {
  if (model.get(name)) return;
  model.set(name, true);
  model.save_changes();
}
function render({ model, el }) {
  el.style.height = "1px";
  whenDrawn(el, () => whenQuiet(() => load(model.get("module")).then(() => say(model, "ready"))));
  if (model.get("near") === undefined) return;  // a ModuleReady, not a NearScreen
  const observer = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    observer.disconnect();
    whenQuiet(() => load(model.get("module")).then(() => say(model, "near")));
  }, { rootMargin: "0px 0px 100% 0px" });
  observer.observe(el);
  return () => observer.disconnect();
}
export default { render };
"""


class ModuleReady(anywidget.AnyWidget):
    """Says when the page has loaded `module` (a path relative to Voilà's base URL, as
    `serving.figure_widget`'s plotly bundle): `ready` turns True, and `loaded` stays True
    from then on, whatever a visitor sends. The page loads it when idle once this widget is
    drawn (put it on the first screen, as the Play tab's `NearScreen` is). anywidget gives a
    widget's module 2 s to load from the moment its model is created ("[anywidget] Failed to
    initialize model." after that), too little for plotly's 4.8 MB bundle on a busy machine;
    so a page of plotly charts is built only once the bundle is in (`LazyTabs`'s `gate`), and
    each chart's own module then loads at once."""

    _esm = MODULE_ESM
    module = traitlets.Unicode("").tag(sync=True)
    ready = traitlets.Bool(False).tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.loaded = bool(self.ready)
        self._actions: list[Callable[[], Any]] = []
        self.observe(self._said_ready, names="ready")

    def _said_ready(self, change: dict[str, Any]) -> None:
        if change["new"] and not self.loaded:
            self.loaded = True
            actions, self._actions = self._actions, []
            for action in actions:
                action()

    def when_ready(self, action: Callable[[], Any]) -> None:
        """Run `action` once, when the module is loaded (now if it is)."""
        if self.loaded:
            action()
        else:
            self._actions.append(action)


class NearScreen(ModuleReady):
    """An invisible widget placed above a part that is built only when needed: `when_near`'s
    action runs once, when the browser says this widget came within one screen's height of
    the screen (a hidden tab's never does until the tab opens) and has loaded `module` (the
    part's widgets import it). Whatever a visitor sends, the action runs at most once. It is
    a `ModuleReady` too: one small widget at start says both."""

    near = traitlets.Bool(False).tag(sync=True)

    def when_near(self, action: Callable[[], Any]) -> None:
        def once(change: dict[str, Any]) -> None:
            if change["new"]:
                self.unobserve(once, names="near")
                action()

        self.observe(once, names="near")
