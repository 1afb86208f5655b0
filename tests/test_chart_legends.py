"""What the class sees on the dashboard's charts (issue 39), in a real browser at a 1280x720
projector and a 1920x1080 screen, read from the SVG plotly drew:

- no chart's legend box overlaps an axis title, a tick label or a label written on the plot
  (the Best play chart's legend sat on its game lengths and their "settled" percentages, the
  Wealth chart's "turn" on a player's entry, the Taxes chart's "assets" on "flat tax $200"),
  and every legend lies inside its chart;
- the Best play heatmap's interval labels are as large as the rest of its type (16 px and more
  at 1280, larger at 1920);
- the class-beside-the-bots chart (drawn in the browser on its own: it needs a class's games)
  tells the roles apart by colour and by pattern, in its legend too.
"""

from __future__ import annotations

import json
from pathlib import Path

import plotly
import pytest
from browser import (
    POLL,
    PROJECTOR,
    WAIT,
    load,
    narration_changes,
    open_dashboard_tab,
    type_games,
    watched_page,
)
from hypothesis import given
from hypothesis import strategies as st

SHOTS = Path(__file__).resolve().parents[1] / "test-output" / "browser"
LARGE = {"width": 1920, "height": 1080}

# For every chart on screen: its legends' boxes, and each one's overlaps with the chart's
# labels (tick labels, axis titles, text written on bars and points, subplot titles).
OVERLAPS = """() => {
  const box = (el) => el.getBoundingClientRect();
  const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  return [...document.querySelectorAll('.js-plotly-plot')]
    .filter((plot) => plot.offsetParent !== null && plot.querySelector('.main-svg'))
    .map((plot) => {
      const title = (plot.querySelector('.gtitle') || {}).textContent || '';
      const svg = box(plot.querySelector('.main-svg'));
      const labels = [...plot.querySelectorAll(
        '.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .g-x2title text, '
        + '.g-y2title text, .bartext, .textpoint text, .annotation-text')]
        .filter((t) => box(t).width > 0);
      const legends = [...plot.querySelectorAll('.legend')].map((legend) => {
        const r = box(legend.querySelector('.bg') || legend);
        return {
          top: r.top, bottom: r.bottom, left: r.left, right: r.right,
          inside: r.left >= svg.left - 1 && r.right <= svg.right + 1
            && r.top >= svg.top - 1 && r.bottom <= svg.bottom + 1,
          overlaps: labels.filter((t) => meets(r, box(t)))
            .map((t) => `${t.textContent} (y ${Math.round(box(t).top)}-${Math.round(box(t).bottom)})`),
        };
      });
      return {title, legends};
    });
}"""


def assert_no_legend_overlaps(page, where: str, at_least: int) -> list[dict]:
    """Every chart on screen (at least `at_least`, once drawn) has its legends inside it and
    clear of its labels; returns what was measured."""
    page.wait_for_function(
        f"""() => [...document.querySelectorAll('.js-plotly-plot')]
          .filter((plot) => plot.offsetParent !== null && plot.querySelector('.main-svg'))
          .length >= {at_least}""",
        timeout=WAIT,
        polling=POLL,
    )
    # charts take their boxes' widths a moment after their tab opens (ui/resize.py): measure
    # once every chart is as wide as its box
    page.wait_for_function(
        """() => [...document.querySelectorAll('.js-plotly-plot')]
          .filter((plot) => plot.offsetParent !== null && plot.querySelector('.main-svg'))
          .every((plot) => Math.abs(plot.querySelector('.main-svg').getBoundingClientRect()
            .width - plot.parentElement.getBoundingClientRect().width) <= 2)""",
        timeout=WAIT,
        polling=POLL,
    )
    charts = page.evaluate(OVERLAPS)
    assert len(charts) >= at_least, where
    for chart in charts:
        for legend in chart["legends"]:
            assert legend["inside"], (where, chart["title"], legend)
            assert legend["overlaps"] == [], (where, chart["title"], legend)
    return charts


# whether each pawn on START lies inside START's box
PAWNS_ON_START = """() => [...document.querySelectorAll('.am-board [data-space="0"] .am-pawn')]
  .map((pawn) => {
    const p = pawn.getBoundingClientRect();
    const s = pawn.closest('.am-space').getBoundingClientRect();
    return p.left >= s.left - 0.5 && p.right <= s.right + 0.5 && p.top >= s.top - 0.5
      && p.bottom <= s.bottom + 0.5;
  })"""


def run_small_batch(page, panel) -> None:
    type_games(page, panel, 50)
    panel.get_by_role("button", name="Run").click()


def batch_once(page, panel) -> None:
    """Run a small batch in `panel` unless it already shows a batch's charts: the page is
    shared by both sizes (`dashboard`), and the charts a batch drew at 1280x720 are redrawn
    at 1920x1080 when the window grows (ui/resize.py), which is what the larger size
    measures; a second batch would draw the same charts again."""
    if panel.locator(".js-plotly-plot").count() == 0:
        run_small_batch(page, panel)


@pytest.fixture(scope="module")
def dashboard(dashboard_url, chromium):
    """One dashboard page (one kernel running the dashboard notebook) for both sizes: the
    1920x1080 test resizes the page the 1280x720 test used (page.set_viewport_size) instead
    of loading another, so the batches run once. The layout follows the window as it does
    on a fresh page: the type's sizes are CSS (vh, container and media queries,
    projector.css) and the charts take their boxes' widths on the window's resize event.
    What each size needs a fresh game for, every pawn on START, is measured here at once at
    both sizes, before anything is played."""
    errors: list[str] = []
    page = watched_page(chromium, dashboard_url, errors, PROJECTOR)
    page.locator(".am-choices button").first.wait_for(timeout=WAIT)
    pawns_on_start = {}
    for viewport in (LARGE, PROJECTOR):
        page.set_viewport_size(viewport)
        pawns_on_start[viewport["width"]] = page.evaluate(PAWNS_ON_START)
    yield page, errors, pawns_on_start
    page.close()


@pytest.mark.parametrize("viewport", [PROJECTOR, LARGE], ids=["1280x720", "1920x1080"])
def test_no_legend_overlaps_a_label_on_any_tab(dashboard, viewport):
    page, errors, pawns_on_start = dashboard
    page.set_viewport_size(viewport)
    # at the start every pawn is on START: inside START's own space (issue 39)
    pawns = pawns_on_start[viewport["width"]]
    assert len(pawns) == 4 and all(inside for inside in pawns), pawns
    # the live charts with points, so their legends are drawn: a rent paid (doubled rent:
    # Ana's throw lands on Ben's street), then, in another game, an income-tax decision
    measured = {}
    charts = page.locator(".am-charts")
    open_dashboard_tab(page, "Play")  # the other size's test left the page on Best play
    load(page, "doubled rent")
    for title in ("Wealth", "Rents", "Taxes"):
        if title == "Taxes":
            load(page, "income tax cash or titles")
            pay = page.locator(".am-choices button", has_text="Pay $").first
            narration_changes(page, pay.click)
        charts.get_by_role("tab", name=title, exact=True).click()
        measured[f"Play: {title}"] = shown = assert_no_legend_overlaps(page, f"Play: {title}", 1)
        assert shown[0]["legends"], (title, shown)  # its legend was drawn, and checked

    who = open_dashboard_tab(page, "Who wins")
    batch_once(page, who)
    page.wait_for_function(
        "(el) => el.querySelectorAll('.js-plotly-plot').length >= 3",
        arg=who.element_handle(),
        timeout=WAIT,
        polling=POLL,
    )
    measured["Who wins"] = assert_no_legend_overlaps(page, "Who wins", 3)
    for tab, batch, at_least in (
        ("Taxes", False, 1),
        ("Landing odds", False, 1),
        ("Returns", False, 1),
        ("Inequality", True, 3),
        ("Is it fair?", True, 3),
        ("Best play", False, 2),
    ):
        panel = open_dashboard_tab(page, tab)
        if batch:
            batch_once(page, panel.locator(".am-batch").first)
        measured[tab] = assert_no_legend_overlaps(page, tab, at_least)
        page.screenshot(
            path=str(SHOTS / f"legends-{tab.split()[0].lower()}-{viewport['width']}.png")
        )
    # the Best play chart of game lengths has its legend, and the lengths are all drawn
    lengths = [c for c in measured["Best play"] if c["title"].startswith("Who wins at each")]
    assert len(lengths) == 1 and lengths[0]["legends"], measured["Best play"]
    ticks = page.evaluate(
        "[...document.querySelectorAll('.js-plotly-plot .xtick text')]"
        ".filter((t) => t.getBoundingClientRect().width > 0).map((t) => t.textContent)"
    )
    assert "40 (two hours)" in ticks
    plots = page.locator(".js-plotly-plot").filter(visible=True)
    for index in range(plots.count()):
        plots.nth(index).screenshot(path=str(SHOTS / f"best-play-{index}-{viewport['width']}.png"))

    # the heatmap's interval labels: 16 px and more at 1280, larger at 1920 (issue 39)
    sizes = page.evaluate(
        """[...document.querySelectorAll('.js-plotly-plot .heatmap-label text')]
          .filter((t) => t.getBoundingClientRect().width > 0)
          .flatMap((t) => [t, ...t.querySelectorAll('tspan')])
          .map((t) => parseFloat(getComputedStyle(t).fontSize))"""
    )
    assert len(sizes) >= 36
    assert min(sizes) >= (16 if viewport["width"] < 1600 else 19), sizes
    print(json.dumps({viewport["width"]: measured}))
    assert errors == []


def test_the_class_beside_the_bots_chart_tells_roles_apart_without_colour(chromium):
    """The class's games beside the bots': one colour and one pattern a role (Competitors
    green and plain, Monopolists blue and hatched), in the bars and in the legend, the sets
    named on the axis with their games counted ("1 game", "50 games"), type as large as the
    other charts', and its legend clear of its labels at both widths."""
    from amteach.sim import simulate
    from amteach.style import CHART_FONT_SIZE, ROLE_COLOURS
    from amteach.ui.class_tab import class_beside_bots

    bots = simulate(50, seed=4, progress=False, workers=1)
    one = simulate(1, seed=5, progress=False, workers=1)
    figure, reading = class_beside_bots(one, bots)[0]
    assert reading.startswith("Of the class's 1 finished game, ")
    spec = json.loads(figure.to_json())
    bundle = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    # one page for both widths: plotly's bundle (some 4 MB of script, most of this test's
    # work) is loaded once, and each width gets a chart drawn anew (Plotly.purge, then
    # newPlot) in a box of that width, in a window of that width, as on a page of its own
    page = chromium.new_page(viewport={"width": 600, "height": 800})
    page.set_content("<div id='chart'></div>")
    page.add_script_tag(path=str(bundle))
    for width in (560, 900):
        page.set_viewport_size({"width": width + 40, "height": 800})
        page.evaluate(
            """([spec, width]) => {
              const box = document.getElementById('chart');
              Plotly.purge(box);
              box.style.width = width + 'px';
              return Plotly.newPlot(box, spec.data, spec.layout);
            }""",
            [spec, width],
        )
        # each legend entry and each bar: its text, fill and outline (a pattern is a url fill)
        swatches = page.evaluate(
            """() => [...document.querySelectorAll('.legend .traces')].map((t) => {
              const p = t.querySelector('.legendpoints path');
              return [t.querySelector('.legendtext').textContent, p.style.fill, p.style.stroke];
            })"""
        )
        green, blue = "rgb(24, 118, 58)", "rgb(31, 79, 180)"
        assert [(text, fill.startswith("url"), stroke) for text, fill, stroke in swatches] == [
            ("Competitors ●", False, green),
            ("Monopolists ■", True, blue),
        ], swatches
        assert swatches[0][1] == green  # solid green; the Monopolists' swatch is hatched blue
        bars = page.evaluate(
            """() => [...document.querySelectorAll('.barlayer .trace')].map((trace) =>
              [...trace.querySelectorAll('.point path')].map((p) =>
                [p.style.fill.startsWith('url'), p.style.stroke]))"""
        )
        assert bars == [[[False, green]] * 2, [[True, blue]] * 2], bars
        # the x-axis names each set with its games, in the right plural
        ticks = page.evaluate(
            "[...document.querySelectorAll('.xtick text')].map((t) => t.textContent)"
        )
        assert ticks == ["Your class (1 game)", "Bots (50 games)"], ticks
        sizes = page.evaluate(
            "[...document.querySelectorAll('.xtick text, .ytick text, .legendtext')]"
            ".map((t) => parseFloat(getComputedStyle(t).fontSize))"
        )
        assert min(sizes) >= CHART_FONT_SIZE
        charts = page.evaluate(OVERLAPS)
        assert charts and all(
            legend["inside"] and legend["overlaps"] == []
            for chart in charts
            for legend in chart["legends"]
        ), charts
    page.close()
    # one colour a role in the figure itself, and a pattern for the Monopolists only
    competitors, monopolists = figure.data
    assert (competitors.marker.color, monopolists.marker.color) == ROLE_COLOURS
    assert not competitors.marker.pattern.shape and monopolists.marker.pattern.shape


@given(st.integers(min_value=0, max_value=10**7))
def test_a_number_of_games_reads_in_the_right_plural(games):
    """Issue 39: "Your class (1 games)". One game is "1 game", any other number "games"."""
    from amteach.analysis.fairness import games_count

    words = games_count(games)
    assert words == f"{games:,} " + ("game" if games == 1 else "games")
