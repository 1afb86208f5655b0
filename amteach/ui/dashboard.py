"""The dashboard served to a class with Voilà: Play, Who wins, the analysis tabs, and Rules.
Controls replace code everywhere. Batches run in a background thread (`batch.BatchPanel`), so
the page stays responsive, shows progress and can be cancelled."""

from __future__ import annotations

import os
from typing import Any

import ipywidgets as widgets
from IPython.display import display
from markupsafe import Markup

from ..engine.board import ROLES
from ..engine.rules import preset_names
from ..render import html_join, html_text
from ..serving import PLOTLY_BUNDLE_ENV, when_page_known
from ..style import ROLE_COLOURS, ROLE_SHAPES
from .app import ClassroomApp
from .callback_errors import ProblemLine, report_callback_errors
from .lazy import LazyTabs, ModuleReady
from .live import room_in_query

# the tabs that draw plotly charts (when built, or after a Run); Rules and Class draw none
PLOTLY_TABS = (
    "Who wins",
    "Taxes",
    "Landing odds",
    "Returns",
    "Inequality",
    "Is it fair?",
    "Best play",
)


def who_wins_charts(result: Any) -> list[Any]:
    """The Who wins tab's charts: win rates by role (with the sentence reading them), mean
    wealth by role round by round, and rent flows."""
    from ..analysis import fairness, outcomes

    return [
        (fairness.win_rates_figure(result, "role"), fairness.reading_win_rates(result, "role")),
        outcomes.wealth_by_role_figure(result),
        outcomes.rent_flows_figure(result),
    ]


RULES_STYLE = """<style>
.am-rules{border-collapse:collapse;font-size:17px;line-height:1.35;max-width:1200px}
.am-rules th,.am-rules td{border-bottom:1px solid #ccc;padding:6px 12px;text-align:left;vertical-align:top}
.am-rules thead th{font-size:18px;border-bottom:2px solid #888}
.am-rules .am-group th{background:#eef2ea;font-size:16px;padding-top:10px}
.am-rules td.am-both{text-align:center;color:#222}
.am-rules .am-changed{background:#fff4dc}
</style>"""


def rules_html(preset: str) -> str:
    """The rules of a preset as a Competitor | Monopolist table with units; a rule both roles
    share spans both columns, and a rule the preset changes is marked."""
    from ..analysis.rules_table import rules_table

    rows = []
    group = None
    for row in rules_table(preset):
        if row.group != group:
            group = row.group
            rows.append(html_text('<tr class="am-group"><th colspan="3">{}</th></tr>', group))
        changed = html_text(" <b>(changed)</b>")
        if row.monopolist is None:
            cells = html_text(
                '<td class="am-both" colspan="2">{}{}</td>',
                row.competitor,
                changed if row.changed else "",
            )
        else:
            # a changed parameter marks its role's cell; one about both roles marks both
            marks = [any(ROLES[other] not in name for name in row.changed) for other in (1, 0)]
            cells = html_text(
                "<td>{}{}</td><td>{}{}</td>",
                row.competitor,
                changed if row.changed and marks[0] else "",
                row.monopolist,
                changed if row.changed and marks[1] else "",
            )
        rows.append(
            html_text(
                '<tr class="{}"><th scope="row">{}</th>{}</tr>',
                "am-changed" if row.changed else "",
                row.rule,
                cells,
            )
        )
    return html_text(
        "{}<p style='max-width:1100px;font-size:17px'>Competitors (<span style='color:{}'>{}"
        "</span>, green) and Monopolists (<span style='color:{}'>{}</span>, blue) play by "
        "different rules. These are the <b>{}</b> rules: a rule that is the same for both roles "
        "spans both columns, and a rule this preset changes from the default is marked "
        "<b>(changed)</b>.</p><table class='am-rules'><thead><tr><th>Rule</th>"
        "<th style='color:{}'>{} Competitors</th><th style='color:{}'>{} Monopolists</th></tr>"
        "</thead><tbody>{}</tbody></table>",
        Markup(RULES_STYLE),
        ROLE_COLOURS[0],
        ROLE_SHAPES[0],
        ROLE_COLOURS[1],
        ROLE_SHAPES[1],
        preset,
        ROLE_COLOURS[0],
        ROLE_SHAPES[0],
        ROLE_COLOURS[1],
        ROLE_SHAPES[1],
        html_join(rows),
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
    at once (and its live charts when they come near the screen); the others are built when
    first opened."""

    def __init__(self, seed: int = 1) -> None:
        w = widgets
        # the Play tab's live charts are built as they come near the screen (ui/app.py)
        self.app = ClassroomApp(seed=seed, projector=True, lazy_charts=True, intro=True)
        self.class_tab: Any = None  # the Class tab, once opened
        self._who_wins: Any = None  # the Who wins panel, once opened
        # the Rules tab's table (28 kB) is drawn when the tab first opens
        self.rules_preset = w.Dropdown(options=preset_names(), value="default", description="Rules")
        self.rules_view = w.HTML()
        self.rules_preset.observe(lambda _: self._draw_rules(), names="value")
        # served: the tabs that draw plotly charts are built once the page has plotly's
        # bundle (ui/lazy.py, ModuleReady says why), as the Play tab's charts' watcher says
        served_bundle = bool(os.environ.get(PLOTLY_BUNDLE_ENV))
        self.plotly_ready: ModuleReady | None = self.app.charts_near if served_bundle else None
        self.pages = LazyTabs(
            [
                ("Play", self.app.widget),
                ("Who wins", lambda: self.who_wins.widget),
                ("Taxes", lambda: _economics().taxes_page()),
                ("Landing odds", lambda: _economics().landing_page()),
                ("Returns", lambda: _economics().returns_page()),
                ("Inequality", lambda: _economics().inequality_page(self.app.session)),
                ("Is it fair?", lambda: _economics().fairness_page()),
                (
                    "Best play",
                    lambda: _best_play().best_play_page(self.app.session, self.show_play),
                ),
                ("Rules", self._rules_page),
                ("Class", self.class_page),
            ],
            self.app.placeholder,  # one "Opening…" for the whole page
            self.plotly_ready,
            PLOTLY_TABS,
        )
        self.tabs = self.pages.widget
        self.tabs.add_class("am-pages")
        self.widget = self.tabs

    @property
    def who_wins(self) -> Any:
        """The Who wins panel (`batch.BatchPanel`), built the first time it is asked for (its
        tab opened): the batch module brings pandas, which the first page does without."""
        if self._who_wins is None:
            from .batch import BatchPanel

            self._who_wins = BatchPanel(
                "<p>Play many games with investor bots (two Competitors, two Monopolists) and "
                "compare the roles. The seed starts at the one the lessons use: the same seed "
                "plays the same games, and another seed draws a sample of your own.</p>",
                lambda result: who_wins_charts(result) + self.class_beside(result),
                default_games=200,
            )
            self._who_wins.widget.add_class("am-who-wins")  # its projector layout (projector.css)
        return self._who_wins

    def _rules_page(self) -> widgets.Widget:
        self._draw_rules()
        return widgets.VBox([self.rules_preset, self.rules_view])

    def _draw_rules(self) -> None:
        self.rules_view.value = rules_html(self.rules_preset.value)

    def show_play(self) -> None:
        """Bring the Play tab to the front (the Best play tab's button sets up a game there)."""
        self.tabs.selected_index = 0

    def class_page(self) -> widgets.Widget:
        """The Class tab: class play, where each student plays from their own device."""
        from .class_tab import ClassTab

        self.class_tab = ClassTab()
        return self.class_tab.widget

    def address_known(self) -> None:
        """The page's address has arrived: the Class tab, if opened, shows its full join link."""
        if self.class_tab is not None:
            self.class_tab.address_known()

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


# what a join link shows where no server holds the class's tables (Voilà's own server, a
# notebook): students' phones are served by `amteach dashboard` itself (amteach.serving.phones)
JOIN_ELSEWHERE = (
    "<p style='font-size:20px;max-width:36em'>This is a class's join link (room {}). Students "
    "join on a page of the server that <code>amteach dashboard</code> runs; ask your teacher "
    "for the join link or the QR code on the projector.</p>"
)


def join_elsewhere(code: str) -> widgets.HTML:
    """One plain line for a join link that reached a notebook rather than the server."""
    line = widgets.HTML(html_text(JOIN_ELSEWHERE, code))
    line.add_class("am-join-elsewhere")
    return line


def show_page(dashboard: Dashboard, query: str | None) -> None:
    """What the served page shows: the dashboard, or, for a join link (`?room=CODE`) that
    reached a notebook, one line saying where join links work (and the dashboard's widgets
    closed). Above either, a hidden line shows if a widget callback fails; its traceback goes
    to the server's log, never to the page (ui/callback_errors.py)."""
    code = room_in_query(query)
    page: Any = dashboard
    if code is not None:
        widgets.Widget.close_all()
        page = join_elsewhere(code)
    problems = ProblemLine()  # a failing callback: one plain line here, its traceback logged
    if report_callback_errors(problems):  # (in a kernel, as when served)
        display(problems.widget)
    display(page)


class ServedPage:
    """The page `amteach dashboard` serves (notebooks/dashboard.ipynb): the dashboard.

    A kernel in the server's preheated pool builds and displays the dashboard before any
    visitor comes, so a visitor's page is ready at once; the page's address arrives later
    (`serving.when_page_known`). `amteach dashboard` answers join links (`?room=CODE`) with
    its light phone page and no kernel, so this notebook sees one only when served another
    way (Voilà's own server): it then shows one line saying where join links work. A kernel
    started for one request knows the address at once and builds only what it shows."""

    def __init__(self) -> None:
        self.page = widgets.Box(layout=widgets.Layout(display="block"))
        self.page.add_class("am-page")
        self.dashboard: Dashboard | None = None
        # a failing callback: one plain line above the page, its traceback in the server's log
        self.problems = ProblemLine()
        self.shows_problems = report_callback_errors(self.problems)
        if not _known_now():
            self._build_dashboard()  # while the kernel waits in the pool
        when_page_known(self.show)

    def _build_dashboard(self) -> None:
        self.dashboard = Dashboard()
        self.page.children = (self.dashboard.widget,)

    def show(self, query: str | None) -> None:
        """Show the page for this address: the dashboard (built now if it was not built
        ahead), or one line for a join link."""
        code = room_in_query(query)
        if code is None:
            if self.dashboard is None:
                self._build_dashboard()
            else:  # an instructor quick enough to open a class before the address came
                self.dashboard.address_known()
            return
        self.page.children = (join_elsewhere(code),)
        self.dashboard = None

    def _ipython_display_(self) -> None:
        if self.shows_problems:
            display(self.problems.widget)
        display(self.page)


def _known_now() -> bool:
    """True when the page's address is known as the kernel starts (a kernel started for one
    request, or a notebook outside Voilà); False in Voilà's preheated pool."""
    from ..serving import VOILA_PREHEAT

    return os.environ.get(VOILA_PREHEAT) != "True"
