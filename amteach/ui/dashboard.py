"""The dashboard served to a class with Voilà: Play, Who wins, the analysis tabs, and Rules.
Controls replace code everywhere. Batches run in a background thread (`batch.BatchPanel`), so
the page stays responsive, shows progress and can be cancelled."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
from IPython.display import display

from ..engine.rules import RuleSet, preset_names
from ..render import html_join, html_text
from .app import ClassroomApp
from .batch import BatchPanel, LazyTabs
from .live import room_in_query


def who_wins_charts(result: Any) -> list[Any]:
    """The Who wins tab's charts: win rates by role (with the sentence reading them), mean
    wealth by role round by round, and rent flows."""
    from ..analysis import fairness, outcomes

    return [
        (fairness.win_rates_figure(result, "role"), fairness.reading_win_rates(result, "role")),
        outcomes.wealth_by_role_figure(result),
        outcomes.rent_flows_figure(result),
    ]


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


def _economics() -> Any:
    """The analysis pages, imported when a viewer first opens one (pandas-heavy analysis
    modules would otherwise slow every visitor's first page)."""
    from . import economics

    return economics


def _best_play() -> Any:
    """The Best play page, imported when a viewer first opens it."""
    from . import best_play

    return best_play


class Dashboard:
    """The Voilà app: Play and Who wins, then the economics behind the game (taxes, landing
    odds, returns on titles, inequality, fairness) and the rules. Only the Play tab is built
    at once; the others are built when first opened."""

    def __init__(self, seed: int = 1) -> None:
        w = widgets
        self.app = ClassroomApp(seed=seed)
        self.class_tab: Any = None  # the Class tab, once opened
        self.who_wins = BatchPanel(
            "<p>Play many games with investor bots (two Competitors, two Monopolists) and compare the roles.</p>",
            lambda result: who_wins_charts(result) + self.class_beside(result),
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
                ("Inequality", lambda: _economics().inequality_page(self.app.session)),
                ("Is it fair?", lambda: _economics().fairness_page()),
                (
                    "Best play",
                    lambda: _best_play().best_play_page(self.app.session, self.show_play),
                ),
                ("Rules", w.VBox([self.rules_preset, self.rules_view])),
                ("Class", self.class_page),
            ]
        )
        self.tabs = self.pages.widget
        self.widget = self.tabs

    def show_play(self) -> None:
        """Bring the Play tab to the front (the Best play tab's button sets up a game there)."""
        self.tabs.selected_index = 0

    def class_page(self) -> widgets.Widget:
        """The Class tab: class play, where each student plays from their own device."""
        from .class_tab import ClassTab

        self.class_tab = ClassTab()
        return self.class_tab.widget

    def class_beside(self, bots: Any) -> list[Any]:
        """On Who wins: the class's own finished games beside the bots' batch, once a class
        has played (the Class tab)."""
        tab = self.class_tab
        if tab is None or not tab.tables:
            return []
        result = tab.result()
        if not len(result.games):
            return []
        from .class_tab import class_beside_bots

        return class_beside_bots(result, bots)

    def _ipython_display_(self) -> None:
        display(self.widget)


def show_page(dashboard: Dashboard, query: str | None) -> None:
    """What the served page shows: the dashboard, or, for a join link (`?room=CODE`), a
    student's page for that room. The dashboard is built while the kernel waits in Voilà's
    pool (before the page's address is known); a student's page closes it first, so a phone
    receives only its own small page."""
    code = room_in_query(query)
    if code is None:
        display(dashboard)
        return
    from .student import StudentPage

    widgets.Widget.close_all()
    display(StudentPage(code).widget)
