"""Charts that fill their width, even on a tab that was hidden when they were drawn.

plotly's widget measures its box once, when it first draws; a chart drawn on a hidden tab (or
before its box is on the page) keeps plotly's default width of 700 px. Every amteach chart is
made `responsive` (`amteach.ui.figures.figure_widget`), so plotly redraws it at its box's size
when the window is resized. A `ChartSizer` placed beside charts watches its own width, which
is its box's: when a tab opens (its width goes from 0 to the page's), when the page changes
size, or when plotly's widget says it has drawn a chart, it tells the page, and every visible
chart takes its box's width. Hidden charts are left alone until their tab opens.
"""

from __future__ import annotations

import anywidget

# The browser side: an empty block whose size is watched; a change of width (a tab opened,
# a window resized) is passed on as the window's resize event, which responsive charts follow.
SIZER_ESM = """
function resizeCharts() {
  // one resize for the page per frame, however many sizers ask
  if (window.amteachResizePending) return;
  window.amteachResizePending = requestAnimationFrame(() => {
    window.amteachResizePending = 0;
    window.dispatchEvent(new Event("resize"));
  });
}
function render({ el }) {
  el.style.height = "0px";
  let width = -1;
  const observer = new ResizeObserver((entries) => {
    const now = Math.round(entries[entries.length - 1].contentRect.width);
    if (now === width) return;
    width = now;
    if (now > 0) resizeCharts();
  });
  observer.observe(el);
  // a chart is first drawn before its box is on the page (at plotly's default width): plotly's
  // widget announces each drawing, and the charts then take their boxes' widths
  document.addEventListener("plotlywidget-after-render", resizeCharts);
  return () => {
    observer.disconnect();
    document.removeEventListener("plotlywidget-after-render", resizeCharts);
  };
}
export default { render };
"""


class ChartSizer(anywidget.AnyWidget):
    """An invisible widget that resizes the charts beside it when its box is shown or
    changes width (see the module's docstring)."""

    _esm = SIZER_ESM
