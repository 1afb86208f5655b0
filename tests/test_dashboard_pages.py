"""The dashboard's analysis tabs: built when first opened, each chart with a sentence that reads
it, and the controls change what is shown."""

from __future__ import annotations

import ipywidgets as widgets
import plotly.graph_objects as go
from browser import DASHBOARD_TABS

from amteach.ui.batch import BatchPanel, LazyTabs
from amteach.ui.dashboard import Dashboard


def page_of(dashboard: Dashboard, title: str) -> widgets.Widget:
    titles = [dashboard.tabs.get_title(i) for i in range(len(dashboard.tabs.children))]
    index = titles.index(title)
    dashboard.tabs.selected_index = index  # what a click on the tab does
    return dashboard.tabs.children[index]


def walk(widget: widgets.Widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from walk(child)


def figures(widget: widgets.Widget) -> list[go.FigureWidget]:
    return [w for w in walk(widget) if isinstance(w, go.FigureWidget)]


def readings(widget: widgets.Widget) -> list[str]:
    return [
        w.value for w in walk(widget) if isinstance(w, widgets.HTML) and "am-reading" in w.value
    ]


def test_the_dashboard_has_the_analysis_tabs_and_builds_each_only_when_opened():
    dashboard = Dashboard()
    titles = [dashboard.tabs.get_title(i) for i in range(len(dashboard.tabs.children))]
    assert titles == list(DASHBOARD_TABS)
    landing = dashboard.tabs.children[3]
    assert figures(landing) == []  # not built yet: a placeholder
    page_of(dashboard, "Landing odds")
    assert len(figures(landing)) == 1 and len(readings(landing)) == 1


def test_lazy_tabs_build_a_page_once():
    built = []

    def build() -> widgets.Widget:
        built.append(1)
        return widgets.HTML("page")

    tabs = LazyTabs([("First", widgets.HTML("first")), ("Second", build)])
    assert built == []
    tabs.widget.selected_index = 1
    tabs.widget.selected_index = 0
    tabs.widget.selected_index = 1
    assert built == [1]
    assert tabs.widget.children[1].children[0].value == "page"


def test_the_landing_tab_switches_between_the_two_ways_of_leaving_prison():
    page = page_of(Dashboard(), "Landing odds")
    policy = next(w for w in walk(page) if isinstance(w, widgets.ToggleButtons))
    before = list(figures(page)[0].data[0].y)
    policy.value = "doubles"
    after = list(figures(page)[0].data[0].y)
    assert before != after and "doubles" in figures(page)[0].layout.title.text


def test_the_returns_tab_follows_the_number_of_players_and_the_owner_role():
    page = page_of(Dashboard(), "Returns")
    players = next(w for w in walk(page) if isinstance(w, widgets.IntSlider))
    owner = next(w for w in walk(page) if isinstance(w, widgets.ToggleButtons))
    assert "With 4 players" in readings(page)[0]
    players.value = 2
    assert "With 2 players" in readings(page)[0]
    owner.value = "monopolist"
    assert "Monopolist" in readings(page)[0] and "Competitor" not in readings(page)[0]
    table = next(w for w in walk(page) if isinstance(w, widgets.HTML) and "<table" in w.value)
    assert "Competitor" not in table.value.replace("competitor", "")  # only Monopolist owners


def panels(page: widgets.Widget) -> list[BatchPanel]:
    return [
        BatchPanel.by_widget[w.model_id] for w in walk(page) if w.model_id in BatchPanel.by_widget
    ]


def run_batch(panel: BatchPanel, games: int = 50) -> None:
    panel.games.value = games
    panel.run_button.click()
    panel.wait()
    assert "stopped" not in panel.status.value, panel.status.value


def test_the_taxes_tab_shows_the_break_even_and_runs_a_batch_of_all_three_behaviours():
    page = page_of(Dashboard(), "Taxes")
    assert len(figures(page)) == 1 and "break-even" in readings(page)[0]
    (panel,) = panels(page)
    run_batch(panel)
    assert sorted(panel.result.players["tax"].unique()) == ["cheaper", "flat", "percent"]
    assert len(figures(panel.charts)) == 1 and len(readings(panel.charts)) == 1


def test_the_inequality_tab_reads_the_game_on_the_play_tab():
    dashboard = Dashboard()
    page = page_of(dashboard, "Inequality")
    show = next(w for w in walk(page) if isinstance(w, widgets.Button))
    show.click()
    game_charts = page.children[0].children[3]
    assert "Play at least one whole round" in game_charts.children[0].value
    session = dashboard.app.session
    for seat in range(len(session.game.names)):
        session.set_controller(seat, "investor")
    session.play_until_human(max_decisions=300)
    show.click()
    assert len(figures(game_charts)) == 3
    assert "in this game" in readings(game_charts)[0]


def test_the_fairness_tab_runs_win_rates_a_sweep_the_presets_and_the_market_structures():
    page = page_of(Dashboard(), "Is it fair?")
    win_rates, rule_sweep, presets, structures = panels(page)
    run_batch(win_rates)
    assert len(figures(win_rates.charts)) == 3  # by role, by seat, by bot
    values = next(w for w in walk(page) if isinstance(w, widgets.Text))
    values.value = "10, 160"
    run_batch(rule_sweep)
    assert sorted(rule_sweep.result["value"].unique()) == [10, 160]
    assert len(rule_sweep.result) == 4  # one row per value and role
    run_batch(presets)
    assert set(presets.result["value"]) == {"default", "edition-2005"}
    run_batch(structures)
    assert len(structures.result) == 3 and len(readings(structures.charts)) == 1


def test_a_bad_sweep_value_is_named_on_the_page_and_nothing_is_played():
    page = page_of(Dashboard(), "Is it fair?")
    rule_sweep = panels(page)[1]
    values = next(w for w in walk(page) if isinstance(w, widgets.Text))
    values.value = "10, -5"
    rule_sweep.run_button.click()
    rule_sweep.wait()
    # the page names the rule in words, as its Rule list does (never foundation_monopolist_fee)
    assert "fee at the Foundation ($): must be 0 or more" in rule_sweep.status.value
    assert "_" not in rule_sweep.status.value
    assert "-5" in rule_sweep.status.value and rule_sweep.result is None
    assert not rule_sweep.run_button.disabled


def test_a_long_sweep_says_how_long_it_will_take_before_it_starts(monkeypatch):
    from amteach.sim import sweep as sweeps

    said_before_play: list[str] = []
    page = page_of(Dashboard(), "Is it fair?")
    rule_sweep = panels(page)[1]
    monkeypatch.setattr(sweeps, "estimate_seconds", lambda plan, calibration_games: 600.0)

    def no_games(*args, **kwargs):  # the estimate must come first; then stop the sweep
        said_before_play.append(rule_sweep.status.value)
        raise KeyboardInterrupt

    monkeypatch.setattr(sweeps, "simulate", no_games)
    rule_sweep.run_button.click()
    rule_sweep.wait()
    assert "expect about 10 minutes" in said_before_play[0]


def test_the_inequality_tab_reads_a_two_player_scenario_on_the_play_tab():
    dashboard = Dashboard()
    app = dashboard.app
    assert app.load_scenario("doubled-rent")
    assert len(app.game.names) == 2
    for seat in range(len(app.game.names)):
        app.session.set_controller(seat, "investor")
    app.session.play_until_human(max_decisions=200)
    page = page_of(dashboard, "Inequality")
    next(w for w in walk(page) if isinstance(w, widgets.Button)).click()
    game_charts = page.children[0].children[3]
    assert len(figures(game_charts)) == 3


def intro_text(app) -> str:
    """The Play tab's intro as read, pawns by their initial."""
    import html
    import re

    part = app.head.value.split('<p class="am-play-intro">', 1)[1].split("</p>", 1)[0]
    return " ".join(html.unescape(re.sub("<[^>]+>", "", part)).split())


def test_the_play_tab_says_what_the_game_is_who_is_which_pawn_and_what_to_press_first():
    """Issue 39: a viewer opening the dashboard found a Play tab that said nothing about the
    game. Its intro names the roles in their colours with each seat's pawn shape (the board's
    own, style.pawn_shapes) and the button to press first."""
    from amteach.style import pawn_shapes

    dashboard = Dashboard()
    app = dashboard.app
    assert dashboard.tabs.children[0] is app.widget and "am-with-intro" in app.widget._dom_classes
    said = intro_text(app)
    game = app.game
    for name, shape in zip(game.names, pawn_shapes(game.roles), strict=True):
        assert f"{name[0]} {name}, {shape}" in said, (name, shape, said)
    assert "● Competitors, green" in said and "■ Monopolists, blue" in said
    assert "You decide for Ana, bots for the others: press Roll on your turn" in said
    # other seats, all bots: the intro says who they are, and what to press then
    from amteach.session import Session
    from amteach.ui.app import ClassroomApp

    bots = ClassroomApp(
        seats=[("Zoe", "monopolist", "cautious"), ("Yan", "competitor", "investor")], intro=True
    )
    said = intro_text(bots)
    assert "Y Yan, circle" in said and "Z Zoe, square" in said
    assert "Bots play every seat: press Step or ▶ Play" in said and "Roll" not in said
    # a notebook's app (play.ipynb) has its own text in the notebook, and no intro
    assert "am-play-intro" not in ClassroomApp(session=Session()).head.value
    # once another game starts (a lesson's scenario), the board takes the intro's lines back
    app.session.new_game()
    assert "am-play-intro" not in app.head.value
    assert "am-with-intro" not in app.widget._dom_classes
