"""Issue 24: the dashboard's first page is lean. What a preheated kernel builds before a
visitor comes (and what the browser must load and draw before the Roll button works) is
pinned here by counts that do not depend on the machine's load: the widgets made at start,
the pages and charts not built until a viewer needs them, and the modules a kernel imports.
The times themselves are measured in benchmarks/bench_dashboard.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import ipywidgets as widgets
import plotly.graph_objects as go

from amteach.serving import PLOTLY_BUNDLE_ENV, SERVED_ENV
from amteach.ui.dashboard import Dashboard

# widgets (each one a model the browser asks for and creates before the Roll button works)
# the dashboard makes at start: 184 when this was written, down from 275 (issue 24)
START_WIDGETS = 200


def built_widgets(make):
    made: list[widgets.Widget] = []
    widgets.Widget.on_widget_constructed(made.append)
    try:
        result = make()
    finally:
        widgets.Widget.on_widget_constructed(None)
    return result, made


def from_browser(widget: widgets.Widget, **state) -> None:
    """A state update as the page sends it over the widget's comm."""
    widget._handle_msg(
        {
            "content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
            "buffers": [],
        }
    )


def walk(widget: widgets.Widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from walk(child)


def test_the_dashboard_makes_few_widgets_at_start_and_none_of_plotly():
    dashboard, made = built_widgets(Dashboard)
    assert len(made) <= START_WIDGETS, len(made)
    assert not any(isinstance(w, go.FigureWidget) for w in made)
    # the Play tab is the first screen: built, with its Roll button
    assert dashboard.pages.built(0)
    assert "Roll" in [b.description for b in dashboard.app.decisions.choices.children]


def test_a_hidden_tab_is_built_only_when_first_opened():
    dashboard = Dashboard()
    titles = [dashboard.tabs.get_title(i) for i in range(len(dashboard.tabs.children))]
    for title in ("Who wins", "Rules", "Class"):
        index = titles.index(title)
        assert not dashboard.pages.built(index)
        assert "Opening" in dashboard.tabs.children[index].children[0].value
    who_wins = titles.index("Who wins")
    _, made = built_widgets(lambda: setattr(dashboard.tabs, "selected_index", who_wins))
    assert dashboard.pages.built(who_wins) and len(made) > 10
    page = dashboard.tabs.children[who_wins]
    assert dashboard.who_wins.widget in page.children and dashboard.who_wins.run_button
    # opened again: nothing new is built
    dashboard.tabs.selected_index = 0
    _, again = built_widgets(lambda: setattr(dashboard.tabs, "selected_index", who_wins))
    assert again == []
    # the rules' table is drawn when its tab opens, and follows the preset
    assert dashboard.rules_view.value == ""
    dashboard.tabs.selected_index = titles.index("Rules")
    assert "<table class='am-rules'>" in dashboard.rules_view.value


def test_the_live_charts_are_built_when_the_browser_says_they_near_the_screen():
    dashboard = Dashboard()
    app = dashboard.app
    assert app.feed is None  # no charts, and no plotly figure, yet
    for page in app.chart_tabs.children:
        assert not any(isinstance(w, go.FigureWidget) for w in walk(page))
    app.step()  # a game goes on meanwhile
    app.step()
    # what the page's watcher sends when the charts' box comes within a screen of the screen
    from_browser(app.charts_near, near=True)
    assert app.feed is not None
    pages = app.chart_tabs.children
    assert [page.children[0] for page in pages] == [
        app.charts[k] for k in ("wealth", "rents", "taxes")
    ]
    # the charts caught up with the game so far: a point per turn started
    assert len(app.charts["wealth"].data[0].x) >= 1
    # sent again (a forged message, or a second view): the same charts, nothing rebuilt
    charts = dict(app.charts)
    _, made = built_widgets(lambda: from_browser(app.charts_near, near=True))
    from_browser(app.charts_near, near=False)
    from_browser(app.charts_near, near=True)
    assert made == [] and app.charts == charts


def test_a_notebook_app_builds_its_charts_at_once():
    from amteach.ui import ClassroomApp

    app = ClassroomApp()
    assert app.feed is not None and app.charts_near is None
    assert isinstance(app.chart_tabs.children[0].children[0], go.FigureWidget)


IDLE_KERNEL = """
import json, sys
from amteach.ui.dashboard import ServedPage
ServedPage()
print(json.dumps(sorted(sys.modules)))
"""


def test_an_idle_dashboard_kernel_imports_neither_pandas_nor_plotly():
    """What a kernel in the server's pool imports to build the first page (as it runs the
    dashboard notebook): each of these is imported when a tab needs it."""
    env = {**os.environ, PLOTLY_BUNDLE_ENV: "templates/amteach/static/plotly-widget.js"}
    env[SERVED_ENV] = "1"
    env["VOILA_PREHEAT"] = "False"  # a kernel started for its request: the page shows at once
    env.pop("QUERY_STRING", None)
    out = subprocess.run(
        [sys.executable, "-c", IDLE_KERNEL], env=env, capture_output=True, text=True, check=True
    ).stdout
    modules = set(json.loads(out.splitlines()[-1]))
    assert "amteach.ui.app" in modules  # the Play tab was built
    for heavy in (
        "pandas",  # the analysis tabs and Who wins
        "plotly.graph_objs",  # the charts
        "amteach.analysis",
        "amteach.ui.batch",
        "amteach.ui.charts",
        "amteach.rooms",  # the Class tab and a student's page
        "amteach.ui.student",
    ):
        assert heavy not in modules, heavy
