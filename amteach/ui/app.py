"""The classroom app: the board, the players, the decision bar, narration, controls and live
charts, in ipywidgets. It is a view of a `Session` (amteach/session.py), which holds the game
and the seats: the app shows what the session and the engine say and sends them what a person
clicks; it never applies a rule or a decision of its own. Several apps can show one session.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import ipywidgets as widgets
from IPython.display import display
from markupsafe import Markup

from ..engine.game import Game
from ..engine.rules import RuleSet
from ..render import (
    HOLE_LEFT,
    HOLE_TOP,
    board_html,
    html_join,
    html_text,
    pawn_html,
    players_panel_html,
)
from ..serving import PLOTLY_BUNDLE_ENV, is_served
from ..session import DEFAULT_SEATS, HUMAN, Change, Reply, Session
from ..style import HIGHLIGHT_COLOUR, ROLE_COLOURS, ROLE_PLURALS, ROLE_SHAPES, pawn_shapes
from .lazy import LazySections, NearScreen, Placeholder
from .live import Announcer
from .play_panels import (
    Controls,
    DecisionBar,
    GameFiles,
    ManagePanel,
    Narration,
    TradePanel,
    may_manage,
    may_trade,
)
from .resize import ChartSizer
from .widgets import Messages

if TYPE_CHECKING:
    from .charts import ChartFeed

# The app's look, in the page itself so it works in JupyterLab as in the dashboard. The board
# fills the width; its middle (HOLE_LEFT and HOLE_TOP: where the corners end) holds the
# decisions and the players, so nothing a class needs is below the board. `.am-projector`
# (the dashboard's default) also fits the board to the screen's height and sets the type for
# the back row; a narrow stage puts the middle panel under the board instead.
APP_STYLE = (
    """
<style>
.am-app{--am-ui-font:16px;font-family:system-ui,-apple-system,'Segoe UI',sans-serif}
.am-app.am-projector{--am-ui-font:clamp(18px,2.1vh,26px)}
.am-app .am-board,.am-app .am-hole{--am-font:clamp(12px,1.15cqw,26px)}
.am-app.am-projector .am-board,.am-app.am-projector .am-hole{--am-font:clamp(14px,min(1.15cqw,2.05vh),26px)}
.am-app.am-projector .am-board{--am-board-max-height:calc(100vh - var(--am-top,150px) - var(--am-intro-height,0px))}
@container am-board (max-width:1150px){.am-app.am-projector .am-board{--am-font:clamp(11px,1.15cqw,26px)}}
.am-app .widget-html-content{line-height:1.25}
.am-toolbar{gap:4px 6px;align-items:center}
.am-toolbar{--am-bar-font:16px}
.am-projector .am-toolbar{--am-bar-font:clamp(16px,1.6vh,22px)}
.am-toolbar .widget-button,.am-toolbar .widget-label,.am-toolbar select,.am-toolbar input,.am-toolbar .widget-readout{font-size:var(--am-bar-font)}
.am-toolbar .widget-button,.am-toolbar select,.am-toolbar input{height:calc(var(--am-bar-font)*2.2)}
.am-toolbar .widget-readout{min-width:5.6em;max-width:none;overflow:visible;white-space:nowrap}
.am-toolbar .widget-hslider .slider-container{min-width:90px}
.am-play-timer{display:none !important}
.am-stage{container:am-stage/inline-size;position:relative;width:100%;flex:0 0 auto;flex-direction:column}
.am-stage>.widget-html{margin:0;width:100%}
.am-hole{--am-pawn-gap:calc(max(28px,2 * var(--am-font)) + 6px);
  position:absolute !important;left:calc(HOLE_LEFT% + var(--am-pawn-gap));right:calc(HOLE_LEFT% + var(--am-pawn-gap));
  top:calc(HOLE_TOP% + var(--am-pawn-gap));bottom:calc(HOLE_TOP% + var(--am-pawn-gap));
  display:flex;flex-direction:row;gap:14px;z-index:4;font-size:var(--am-ui-font);min-height:0}
.am-turn{flex:1 1 55%;min-width:0;min-height:0;overflow-y:auto;gap:6px}
.am-turn>*{flex-shrink:0}
.am-turn>.am-narration-box{flex:1 1 auto;min-height:5.5em}
.am-narration-box .am-narration{flex:1 1 auto;min-height:0}
.am-side{flex:1 1 45%;min-width:0;min-height:0;overflow-y:auto}
@container am-stage (max-width:980px){
  .am-hole{position:static !important;flex-direction:column;margin-top:10px}
  .am-turn,.am-side{overflow:visible}
  .am-narration{max-height:10em}
}
.am-status{font-size:max(18px,1.15em)}
.am-status .widget-html-content{line-height:1.35;white-space:normal}
.am-status .am-pawn{--am-pawn:28px;vertical-align:middle;margin-right:4px}
.am-app .am-choices{gap:6px}
.am-app .am-choices .widget-button,.am-app .am-manage .widget-button{font-size:var(--am-ui-font);height:auto;min-height:42px;
  white-space:normal;text-align:left;line-height:1.25;padding:4px 12px;max-width:100%}
.am-app .am-choices .widget-button:not(:disabled){background:#fff;border:2px solid #1f4fb4;color:#0f2a6e;font-weight:600}
.am-why-not{font-size:max(14px,0.85em);color:#6b3a00}
.am-message{min-height:1.3em;font-size:max(16px,0.9em)}
.am-narration-box{gap:2px}
.am-narration{background:#fff;border:1px solid #bbb;border-radius:4px;padding:2px 8px;
  overflow-y:auto;font-size:var(--am-ui-font)}
.am-narration .widget-html-content{line-height:1.35;white-space:normal}
.am-narration div{margin:2px 0}
.am-app .am-decide-more .jupyter-widget-Collapse-header{font-size:16px;padding:4px 10px}
.am-app .am-decide-more .jupyter-widget-Collapse-contents{padding:6px}
.am-players-box .am-cards{font-size:var(--am-ui-font)}
.am-players-box .am-card-cash{font-size:max(18px,1.1em)}
.am-players-box .am-card-name{white-space:normal;text-overflow:clip}
.am-players-box .am-card-status{white-space:nowrap}
.am-players-box .am-card.am-to-move{box-shadow:0 0 0 3px HIGHLIGHT}
</style>
""".replace("HOLE_LEFT", str(HOLE_LEFT))
    .replace("HOLE_TOP", str(HOLE_TOP))
    .replace("HIGHLIGHT", HIGHLIGHT_COLOUR)
)


# The Play tab's intro (the dashboard's: `ClassroomApp(intro=True)`), two lines above the
# toolbar; the board leaves room for them when it fits itself to the screen's height.
INTRO_STYLE = """
<style>
.am-app{--am-intro-font:16px}
.am-app.am-projector{--am-intro-font:clamp(16px,1.6vh,22px)}
.am-app.am-with-intro{--am-intro-height:calc(3 * var(--am-intro-font) + 4px)}
.am-play-intro{font-size:var(--am-intro-font);line-height:1.5;margin:0 0 4px;max-width:none}
.am-play-intro .am-pawn{--am-pawn:calc(1.25 * var(--am-intro-font));vertical-align:middle;margin:0 2px}
</style>
"""


def play_intro_html(session: Session) -> Markup:
    """What the Play tab says to a viewer new to the game, in two lines: what the game is, the
    two roles with each seat's pawn (its shape named, not only drawn), who decides for whom,
    and what to press first."""
    game = session.game
    shapes = pawn_shapes(game.roles)
    roles = []
    for role in (0, 1):
        pawns = html_join(
            (
                html_text("{} {}, {}", pawn_html(game, seat), game.names[seat], shapes[seat])
                for seat in range(len(game.names))
                if game.roles[seat] == role
            ),
            "; ",
        )
        roles.append(
            html_text(
                '<b style="color:{}">{} {}</b>, {} ({})',
                ROLE_COLOURS[role],
                ROLE_SHAPES[role],
                ROLE_PLURALS[role],
                ("green", "blue")[role],
                pawns,
            )
        )
    humans = [
        name for name, who in zip(game.names, session.seat_controllers, strict=True) if who == HUMAN
    ]
    if not humans:
        press = html_text("Bots play every seat: press <b>Step</b> or <b>▶ Play</b> to watch.")
    else:
        people = " and ".join([", ".join(humans[:-1]), humans[-1]] if len(humans) > 1 else humans)
        press = html_text(
            "You decide for {}{}: press <b>Roll</b> on your turn, <b>Step</b> or <b>▶ Play</b> "
            "for the bots.",
            people,
            ", bots for the others" if len(humans) < len(game.names) else "",
        )
    return html_text(
        '<p class="am-play-intro"><b>Anti-Monopoly</b>: buy streets and charge rent, with '
        "different rules for {} and {}. {}</p>",
        roles[0],
        roles[1],
        press,
    )


# the live charts, in the order of their tabs (ui/charts.py)
CHART_KEYS = ("wealth", "rents", "taxes")


class ClassroomApp:
    """A game for a class: humans decide for their seats, bots for the rest.

    `seats` are (name, role, controller) triples in turn order; a controller is "human" or a
    bot's name (cautious, builder, investor, random). Or pass a `session` to show one that
    exists (another screen of the same table). The app shows itself in a notebook cell;
    `app.widget` is its root widget, `app.game` its game, `app.charts` the live charts.

    `projector=True` (the dashboard's default) fits the board, the decisions and the
    players to the screen and sets type large enough for the back of a classroom.

    `intro=True` (the dashboard's) says above the toolbar what the game is, who plays which
    pawn, and what to press first (`play_intro_html`).

    `lazy_charts=True` (the dashboard's) builds the live charts, and imports plotly, only when
    their box comes within a screen of the screen, or when `charts` is first read: the first
    page is interactive sooner, and a visitor who never scrolls to them never loads plotly.

    Under `amteach dashboard` (a served dashboard) the app has no File box: Save downloads to
    the visitor's computer and Load uploads from it (docs/dashboard.md).
    """

    def __init__(
        self,
        seats: Sequence[tuple[str, str, str]] = DEFAULT_SEATS,
        seed: int | None = 1,
        rules: RuleSet | str = "default",
        game: str = "A",
        scenario_dir: str | Path | None = None,
        session: Session | None = None,
        projector: bool = False,
        lazy_charts: bool = False,
        intro: bool = False,
    ) -> None:
        self.served = is_served()
        self.intro = intro
        self.projector = projector
        self.session = session or Session(
            seats, seed, rules, game, scenario_dir, files_on_disk=not self.served
        )
        paths = self.session.files_on_disk and not self.served
        self.messages = Messages()
        self.decisions = DecisionBar(self.session, self.answer)
        # the Build, sell and Trade panels, built when first opened (or first asked for)
        self._manage: ManagePanel | None = None
        self._trade: TradePanel | None = None
        self.controls = Controls(self.session, self.answer)
        self.files = GameFiles(self.session, self.answer, paths)
        self.narration = Narration(self.session)
        self.announcer = Announcer(self.session)
        self.feed: ChartFeed | None = None  # the live charts, once built (`show_charts`)
        self.board_view = widgets.HTML()
        self.board_view.add_class("am-board-view")
        self.players_view = widgets.HTML()
        self.widget = self.layout(lazy_charts)
        self._game_shown = self.session.game  # the panels close when another game starts
        self.session.subscribe(self._changed)
        if self.charts_near is None:
            self.show_charts()
        self.refresh()

    # -- the layout ---------------------------------------------------------------------------
    def layout(self, lazy_charts: bool = False) -> widgets.Widget:
        """Place the parts: the toolbar (Step, Play, speed, Undo, Reset; scenarios, New game
        and its seed), then the board, with whose turn it is, the choices, the narration and
        the players in its middle; the live charts and the rest of the files below."""
        w = widgets
        controls = self.controls
        toolbar = w.HBox(
            [
                controls.step,
                controls.play_pause,
                controls.play,
                controls.speed,
                controls.undo,
                controls.reset,
                *self.files.toolbar,
            ],
            layout=w.Layout(flex_flow="row wrap", align_items="center"),
        )
        toolbar.add_class("am-toolbar")
        toolbar.add_class("am-files")
        # what every part not built yet shows ("Opening…"), one for the whole page
        self.placeholder = Placeholder()
        # closed panels: each is built the first time it is opened
        self.decision_panels = LazySections(
            [
                ("Build, sell, mortgage, redeem", lambda: self.manage.widget),
                ("Trade", lambda: self.trade.widget),
            ],
            self.placeholder,
        )
        self.decision_tabs = self.decision_panels.widget
        self.decision_tabs.add_class("am-decide-more")
        narration = w.VBox([w.HTML("<b>What happened</b> (newest first)"), self.narration.widget])
        narration.add_class("am-narration-box")
        turn = w.VBox(
            [
                self.decisions.widget,
                self.messages.widget,
                self.decision_tabs,
                narration,
                self.announcer.widget,
            ]
        )
        turn.add_class("am-turn")
        side = w.VBox([self.players_view])
        side.add_class("am-side")
        side.add_class("am-players-box")
        side.add_class("am-scroll")  # it scrolls on a short screen: the keyboard can scroll it
        hole = w.HBox([turn, side])
        hole.add_class("am-hole")
        stage = w.Box([self.board_view, hole])
        stage.add_class("am-stage")
        # the live charts' tabs: a box each, filled when the charts are built (`show_charts`)
        self.chart_tabs = w.Tab(
            children=[self.placeholder.box() for _ in CHART_KEYS],
            titles=("Wealth", "Rents", "Taxes"),
        )
        self.chart_tabs.add_class("am-charts")
        # lazy charts: a watcher above them says when their box nears the screen
        # (served: the page loads plotly's bundle first, which the charts' widgets import)
        bundle = os.environ.get(PLOTLY_BUNDLE_ENV, "")
        self.charts_near = NearScreen(module=bundle) if lazy_charts else None
        if self.charts_near is not None:
            self.charts_near.when_near(self.show_charts)
        self.more_panels = LazySections(
            [("Rules and players for New game, save and load", lambda: self.files.widget)],
            self.placeholder,
        )
        self.more = self.more_panels.widget
        near = [self.charts_near] if self.charts_near is not None else []
        # the styles, and the intro (in the same widget: the first page makes no more models)
        self.head = w.HTML(self._head())
        root = w.VBox(
            [self.head, toolbar, stage, *near, self.chart_tabs, self.more],
            layout=w.Layout(width="100%"),
        )
        root.add_class("am-app")
        if self.intro:
            root.add_class("am-with-intro")
        if self.projector:
            root.add_class("am-projector")
        return root

    def _head(self) -> str:
        """The app's styles, then the intro if it has one."""
        if not self.intro:
            return APP_STYLE
        return APP_STYLE + INTRO_STYLE + str(play_intro_html(self.session))

    def show_charts(self) -> None:
        """Build the live charts if they are not built yet: each chart with its data table
        and a sizer, so a chart drawn while its tab was hidden fills its width when the tab
        opens. The chart widgets then stay for the app's life (ui/charts.py says why)."""
        if self.feed is not None:
            return
        from .charts import ChartFeed

        self.feed = ChartFeed(self.session)  # catches up with the game so far
        for page, key in zip(self.chart_tabs.children, CHART_KEYS, strict=True):
            page.children = [self.feed.charts[key], self.feed.data_tables[key].widget, ChartSizer()]

    def _ipython_display_(self) -> None:
        display(self.widget)

    # -- following the session ------------------------------------------------------------------
    def _changed(self, change: Change) -> None:
        if self.session.game is not self._game_shown:
            self.close_decision_panels()
            self.retire_intro()
        self.refresh()

    def retire_intro(self) -> None:
        """The intro greets whoever opens a fresh page. Once another game starts (a scenario,
        a loaded save, New game, Reset) the board takes its lines back: a lesson's moment then
        shows its choices and what happened within a projector's 720 lines (issue 39)."""
        if self.intro:
            self.intro = False
            self.widget.remove_class("am-with-intro")
            self.head.value = self._head()

    def close_decision_panels(self) -> None:
        """Close the Build and Trade panels: another game (a scenario, a loaded save, New game)
        starts with them closed, so its choices and what happened show within a projector's
        720 lines (issue 39: a Build panel left open since the last scenario pushed the
        narration off screen). Taking a decision back keeps them as they are."""
        self._game_shown = self.session.game
        self.decision_tabs.selected_index = None

    def refresh(self) -> None:
        """Redraw every part from the session."""
        game = self.session.game
        self.board_view.value = board_html(game, with_players=False, centre=False)
        self.players_view.value = players_panel_html(game)
        if self.feed is not None:
            self.feed.update()
        self.narration.refresh()
        self.announcer.refresh()
        pending = game.pending  # computed once: it lists the legal kinds of choice
        self.decisions.refresh(pending)
        kinds = self._kinds(pending)
        if self._manage is not None:
            self._manage.refresh(kinds)
        if self._trade is not None:
            self._trade.refresh(kinds)
        # the panels stay in place (no jump): their titles say whether they are open to use
        self.decision_tabs.titles = (
            "Build, sell, mortgage, redeem" + ("" if may_manage(kinds) else " (not now)"),
            "Trade" + ("" if may_trade(kinds) else " (not now)"),
        )
        self.controls.refresh()
        self.files.refresh()

    def answer(self, reply: Reply) -> bool:
        """Show the session's reply to what was done at this screen; True if it was done."""
        return self.messages.show(reply)

    def _kinds(self, pending: object = None) -> tuple[str, ...]:
        """The kinds of choice a person at this screen may make now (none while a bot
        plays); `pending`: the game's pending decision, if already at hand."""
        if pending is None:
            pending = self.session.game.pending
        if pending is None or not self.session.human_to_move:
            return ()
        return tuple(pending.kinds)  # type: ignore[attr-defined]

    # -- the closed panels, built when first opened -----------------------------------------------
    @property
    def manage(self) -> ManagePanel:
        """The Build, sell, mortgage, redeem panel, built now (from the game as it is) if it
        was not; from then on it follows the session with the rest of the app."""
        if self._manage is None:
            self._manage = ManagePanel(self.session, self.answer)
            self._manage.refresh(self._kinds())
        return self._manage

    @property
    def trade(self) -> TradePanel:
        """The Trade panel, built now if it was not (as `manage`)."""
        if self._trade is None:
            self._trade = TradePanel(self.session, self.answer)
            self._trade.refresh(self._kinds())
        return self._trade

    # -- what this screen does (each asks the session) --------------------------------------------
    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def charts(self) -> dict[str, widgets.Widget]:
        """The live charts by name (wealth, rents, taxes), built now if they were not."""
        self.show_charts()
        assert self.feed is not None
        return self.feed.charts

    @property
    def controllers(self) -> list[str]:
        return self.session.controllers

    def choose(self, choice: object, moment: int | None = None) -> bool:
        """A person's choice for the seat to move; a stale or illegal one changes nothing."""
        return self.answer(self.session.decide(choice, moment))

    def step(self) -> bool:
        """One decision by the bot whose turn it is."""
        return self.answer(self.session.step())

    def undo(self) -> bool:
        return self.answer(self.session.undo())

    def reset(self) -> bool:
        return self.answer(self.session.reset())

    def new_game(
        self, seed: int | None = None, preset: str | None = None, players: str = "game"
    ) -> bool:
        return self.answer(self.session.new_game(seed, preset, players))

    def save(self, path: str | Path) -> bool:
        """Save to a path on this computer (refused in a served dashboard)."""
        return self.answer(self.session.save(path))

    def load(self, source: str | Path | bytes) -> bool:
        """Load a saved game: uploaded bytes, or a path (refused in a served dashboard)."""
        return self.answer(self.session.load(source))

    def load_scenario(self, name: str | None) -> bool:
        """Set up the scenario called `name` from the scenario folder."""
        return self.answer(self.session.load_scenario(name))

    # -- for tests and scripts ---------------------------------------------------------------------
    @property
    def message(self) -> widgets.HTML:
        return self.messages.widget

    @property
    def narration_lines(self) -> list[str]:
        """The narration, newest first."""
        return list(self.narration.lines)

    def buttons(self) -> dict[str, widgets.Button]:
        """The decision buttons a person can press now, by their text (a refused choice is
        on screen too, disabled, with its reason)."""
        shown = {b.description: b for b in self.decisions.choices.children if not b.disabled}
        panel = self.manage  # a script presses what a person sees once the panel is open
        shown.update({b.description: b for b in panel.buttons.values() if not b.disabled})
        return shown

    def click(self, description: str) -> None:
        """Click the button whose text is, or else starts with, `description` (as a person
        would)."""
        controls = (*self.controls.buttons, *self.files.buttons, self.trade.propose)
        shown = {**self.buttons(), **{b.description: b for b in controls}}
        exact = shown.get(description)
        matches = [exact] if exact else [b for t, b in shown.items() if t.startswith(description)]
        if not matches:
            raise KeyError(f"no button {description!r}; on screen: {', '.join(self.buttons())}")
        matches[0].click()
