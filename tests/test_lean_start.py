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

from amteach.engine.choices import Choice
from amteach.render import html_text
from amteach.serving import PLOTLY_BUNDLE_ENV, SERVED_ENV
from amteach.ui.dashboard import Dashboard
from amteach.ui.play_panels import why_not

# widgets (each one a model the browser asks for and creates before the Roll button works)
# the dashboard makes at start: 113 when this was written, down from 275 and then 193 (issue
# 24: the Play tab's closed panels are built when first opened)
START_WIDGETS = 115


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


def test_the_play_tabs_closed_panels_are_built_when_first_opened_from_the_game_as_it_is():
    dashboard = Dashboard()
    app = dashboard.app
    panels = app.decision_tabs
    assert [app.decision_panels.built(i) for i in (0, 1)] == [False, False]
    assert not app.more_panels.built(0)
    # lesson 1's scenario: Ben, a Monopolist played by a person, is to move and owns a
    # street in Los Angeles; the titles say the panels are open to use, though neither is built
    assert app.load_scenario("who-may-build")
    assert panels.titles == ("Build, sell, mortgage, redeem", "Trade")
    game = app.game
    # what the page sends when Build, sell is opened (a click, or Enter on its header)
    _, made = built_widgets(lambda: from_browser(panels, selected_index=0))
    assert app.decision_panels.built(0) and not app.decision_panels.built(1) and made
    manage = app.manage
    assert panels.children[0].children == (manage.widget,)
    titles = [game.board.spaces[s].name for s in game.titles_of(game.actor)]
    assert [label for label, _ in manage.picker.options] == titles
    # the engine's reason, for the title picked, why Ben may not build there
    why = why_not(game, Choice("build", manage.picker.value))
    assert "builds only in a monopolized city" in why
    assert html_text("{}", why) in manage.reasons.value and manage.buttons["build"].disabled
    # then it follows the session: a new game, where nobody owns anything yet
    assert app.new_game(seed=3)
    assert app.manage is manage and manage.picker.options == ()
    assert all(b.disabled for b in manage.buttons.values())
    # closed and opened again: nothing is built again
    from_browser(panels, selected_index=None)
    _, again = built_widgets(lambda: from_browser(panels, selected_index=0))
    assert again == [] and app.manage is manage
    # Trade, opened: the offer while Ana may trade, its partners the other players
    from_browser(panels, selected_index=1)
    assert app.decision_panels.built(1)
    trade = app.trade
    if "trade" in app.game.pending.kinds:
        assert trade.offer.layout.display == "flex"
        assert [p for _, p in trade.partner.options] == [
            p
            for p in [p for p in range(len(app.game.names)) if not app.game.bankrupt[p]]
            if p != app.game.actor
        ]
    else:
        assert trade.not_now.layout.display == "flex"
    _, again = built_widgets(lambda: from_browser(panels, selected_index=1))
    assert again == [] and app.trade is trade


def test_new_game_plays_the_same_rules_and_players_whether_or_not_its_panel_was_opened():
    for opened in (False, True):
        app = Dashboard().app
        app.load_scenario("who-may-build")
        if opened:
            from_browser(app.more, selected_index=0)
            assert app.more_panels.built(0)
            files = app.files
            assert files.preset.value == "default" and files.players.value == "table"
            assert "Ana, Ben, Cleo, Dev" in files.players.options[0][0]
        else:
            assert not app.more_panels.built(0)
        app.click("New game")
        assert app.game.names == ("Ana", "Ben", "Cleo", "Dev"), opened
        assert app.session.rules.preset_name == "default"
        assert app.more_panels.built(0) == opened  # New game built nothing


def test_a_forged_open_message_for_a_panel_or_tab_that_does_not_exist_builds_nothing():
    dashboard = Dashboard()
    app = dashboard.app
    for container, lazy in (
        (app.decision_tabs, app.decision_panels),
        (app.more, app.more_panels),
        (dashboard.tabs, dashboard.pages),
    ):
        pages = len(container.children)
        forged = (pages, pages + 97, -1, 10**30, 1e300, float("nan"), 0.5, "Trade", "")
        before = container.selected_index
        for value in (*forged, [0], {"index": 0}, True):
            _, made = built_widgets(lambda v=value, c=container: from_browser(c, selected_index=v))
            assert made == [] and container.selected_index == before, value
        assert not any(lazy.built(i) for i in range(1, len(container.children)))
    assert not app.decision_panels.built(0) and not app.more_panels.built(0)
    # a real index still opens its panel
    from_browser(app.decision_tabs, selected_index="1")
    assert app.decision_panels.built(1) and app.decision_tabs.selected_index == 1


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


def test_served_a_tab_of_plotly_charts_is_built_once_the_page_has_loaded_plotly(monkeypatch):
    """anywidget gives a chart's module 2 s from the moment its model is made: a tab's
    charts are made once the page says plotly's bundle is in, never while it loads."""
    monkeypatch.setenv(PLOTLY_BUNDLE_ENV, "templates/amteach/static/plotly-widget.js")
    dashboard = Dashboard()
    gate = dashboard.plotly_ready
    assert gate is not None and gate.module.endswith("plotly-widget.js") and not gate.loaded
    titles = list(dashboard.tabs.titles)
    taxes, landing, rules = (titles.index(t) for t in ("Taxes", "Landing odds", "Rules"))
    from_browser(dashboard.tabs, selected_index=landing)  # a visitor opens it at once
    assert not dashboard.pages.built(landing)
    assert "Opening" in dashboard.tabs.children[landing].children[0].value
    from_browser(dashboard.tabs, selected_index=rules)  # no charts: built at once
    assert dashboard.pages.built(rules)
    # the page's message once the bundle is loaded: the tab opened meanwhile is built
    from_browser(gate, ready=True)
    assert dashboard.pages.built(landing) and not dashboard.pages.built(taxes)
    page = dashboard.tabs.children[landing]
    assert any(isinstance(w, go.FigureWidget) for w in walk(page))
    # said again, or unsaid (a forged message): nothing is built again, nothing waits again
    _, made = built_widgets(lambda: from_browser(gate, ready=True))
    from_browser(gate, ready=False)
    assert made == [] and dashboard.tabs.children[landing] is page
    from_browser(dashboard.tabs, selected_index=taxes)
    assert dashboard.pages.built(taxes)


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
        "amteach.rooms",  # the Class tab
    ):
        assert heavy not in modules, heavy
