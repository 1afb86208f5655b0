"""Parts of a page built only when a viewer first needs them, so a visitor's first page is
interactive sooner and the kernel holds only what is used: tabs built when first opened
(`LazyTabs`), and `NearScreen`, which says when a box below the first screen is about to be
scrolled to (the Play tab's live charts)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import anywidget
import ipywidgets as widgets
import traitlets

OPENING = "<p>Opening…</p>"


class LazyTabs:
    """Tabs whose pages are built the first time a viewer opens them. A page not built yet
    is an empty box showing "Opening…": every such box shares one text and one layout, so a
    tab not opened costs the page one widget."""

    def __init__(self, pages: Sequence[tuple[str, Any]]) -> None:
        self._builders: dict[int, Any] = {}
        opening: widgets.HTML | None = None
        placeholder_layout: widgets.Layout | None = None
        children = []
        for index, (_, page) in enumerate(pages):
            if isinstance(page, widgets.Widget):
                children.append(page)
                continue
            if opening is None:
                opening, placeholder_layout = widgets.HTML(OPENING), widgets.Layout()
            self._builders[index] = page
            children.append(widgets.VBox([opening], layout=placeholder_layout))
        self.widget = widgets.Tab(children=children, titles=[title for title, _ in pages])
        self.widget.observe(lambda change: self.open(change["new"]), names="selected_index")

    def built(self, index: int) -> bool:
        """True once page `index` is built (a page given as a widget is built from the start)."""
        return index not in self._builders

    def open(self, index: int | None) -> widgets.Widget | None:
        """Build page `index` if it is not built yet, and return it."""
        if index is None:
            return None
        builder = self._builders.pop(index, None)
        if builder is not None:
            self.widget.children[index].children = [builder()]
        return self.widget.children[index]


# The browser side: a thin block whose distance from the screen is watched. Once it is less
# than one screen's height below the screen (or on it), and the page is idle, the module named
# by `prepare` is imported (plotly's bundle, which the charts' widgets import: anywidget gives
# a widget 2 s to load its module, too little for 4.8 MB on a busy laptop), then the kernel
# is told, once.
NEAR_SCREEN_ESM = """
function whenIdle(then) {
  (window.requestIdleCallback || ((f) => setTimeout(f, 200)))(then, { timeout: 3000 });
}
async function prepare(path) {
  if (!path) return;
  const voila = new URL(document.body.dataset.baseUrl || "./", document.baseURI);
  try {
    await import(new URL(path, voila).href);
  } catch (failed) {
    console.warn("amteach: could not load", path, failed);
  }
}
function render({ model, el }) {
  el.style.height = "1px";
  const observer = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    observer.disconnect();
    whenIdle(async () => {
      await prepare(model.get("prepare"));
      model.set("near", true);
      model.save_changes();
    });
  }, { rootMargin: "0px 0px 100% 0px" });
  observer.observe(el);
  return () => observer.disconnect();
}
export default { render };
"""


class NearScreen(anywidget.AnyWidget):
    """An invisible widget placed above a part that is built only when needed: `when_near`'s
    action runs once, when the browser says this widget came within one screen's height of
    the screen (a hidden tab's never does until the tab opens). Whatever a visitor sends, the
    action runs at most once. `prepare`: a module the page imports first (a path relative to
    Voilà's base URL, as `serving.figure_widget`'s bundle path is)."""

    _esm = NEAR_SCREEN_ESM
    near = traitlets.Bool(False).tag(sync=True)
    prepare = traitlets.Unicode("").tag(sync=True)

    def when_near(self, action: Callable[[], Any]) -> None:
        def once(change: dict[str, Any]) -> None:
            if change["new"]:
                self.unobserve(once, names="near")
                action()

        self.observe(once, names="near")
