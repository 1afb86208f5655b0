"""The plotly widget every chart of the dashboard is drawn in (`figure_widget`).

A plotly `FigureWidget` normally carries plotly.js (about 5 MB) inside its own state, so every
chart sends it through the kernel's websocket and the browser compiles it once per chart. Under
`amteach dashboard` the server serves plotly's widget bundle once, as a static file of the
amteach template (`amteach.serving.voila_environment`), and each chart gets a small module that
imports it from there: the browser fetches it once, caches it, and compiles it once per page.
"""

from __future__ import annotations

import os
from functools import cache
from typing import TYPE_CHECKING, Any

from ..serving import PLOTLY_BUNDLE_ENV

if TYPE_CHECKING:
    import plotly.graph_objects as go


def _bundle_loader(bundle_path: str) -> str:
    """A tiny ES module that re-exports plotly's widget from the served bundle. The lab
    template puts Voilà's URL ("<base>voila/") on <body data-base-url>."""
    return (
        "const voila = new URL(document.body.dataset.baseUrl || './', document.baseURI);\n"
        f"const bundle = await import(new URL({bundle_path!r}, voila).href);\n"
        "export default bundle.default;\n"
    )


@cache
def _served_figure_widget(bundle_path: str) -> type:
    import plotly.graph_objects as go

    return type("FigureWidget", (go.FigureWidget,), {"_esm": _bundle_loader(bundle_path)})


def figure_widget(figure: Any = None) -> go.FigureWidget:
    """A plotly FigureWidget for `figure`, redrawn at its box's width when the page resizes;
    under `amteach dashboard` it loads plotly.js from the server instead of carrying it."""
    import plotly.graph_objects as go

    bundle_path = os.environ.get(PLOTLY_BUNDLE_ENV)
    widget_type = _served_figure_widget(bundle_path) if bundle_path else go.FigureWidget
    made = widget_type(figure)
    # redrawn at its box's size when the page resizes (ui/resize.py: also when a tab opens)
    made._config = {**made._config, "responsive": True, "displaylogo": False}
    return made
