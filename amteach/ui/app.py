"""The classroom app: the board, the players, the decision bar, narration, controls and live
charts, in ipywidgets. It is a view of a `Session` (amteach/session.py), which holds the game
and the seats: the app shows what the session and the engine say and sends them what a person
clicks; it never applies a rule or a decision of its own. Several apps can show one session.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import ipywidgets as widgets
from IPython.display import display

from ..engine.game import Game
from ..engine.rules import RuleSet
from ..render import board_html, html_text, players_table_html, role_legend
from ..serving import is_served
from ..session import DEFAULT_SEATS, Change, Reply, Session
from .charts import ChartFeed
from .play_panels import (
    Controls,
    DecisionBar,
    GameFiles,
    ManagePanel,
    Messages,
    Narration,
    TradePanel,
)


class ClassroomApp:
    """A game for a class: humans decide for their seats, bots for the rest.

    `seats` are (name, role, controller) triples in turn order; a controller is "human" or a
    bot's name (cautious, builder, investor, random). Or pass a `session` to show one that
    exists (another screen of the same table). The app shows itself in a notebook cell;
    `app.widget` is its root widget, `app.game` its game, `app.charts` the live charts.

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
    ) -> None:
        self.served = is_served()
        self.session = session or Session(
            seats, seed, rules, game, scenario_dir, files_on_disk=not self.served
        )
        paths = self.session.files_on_disk and not self.served
        self.messages = Messages()
        self.decisions = DecisionBar(self.session, self.answer)
        self.manage = ManagePanel(self.session, self.answer)
        self.trade = TradePanel(self.session, self.answer)
        self.controls = Controls(self.session, self.answer)
        self.files = GameFiles(self.session, self.answer, paths)
        self.narration = Narration(self.session)
        self.feed = ChartFeed(self.session)
        self.board_view = widgets.HTML(layout=widgets.Layout(width="600px"))
        self.players_view = widgets.HTML()
        self.widget = self.layout()
        self.session.subscribe(self._changed)
        self.refresh()

    # -- the layout ---------------------------------------------------------------------------
    def layout(self) -> widgets.Widget:
        """Place the parts: the toolbar, the choices above the board (so they stay in sight
        when a laptop's narrow screen puts the side column under the board), the board with the
        other decisions, narration and charts beside it, the players, and the files."""
        w = widgets
        title = w.HTML(
            html_text(
                "<span style='white-space:nowrap'><b style='font-size:16px'>Anti-Monopoly</b>"
                " &nbsp; {}</span>",
                role_legend(plural=True, bold=True),
            ),
            layout=w.Layout(margin="0 12px 0 0"),
        )
        controls = self.controls
        toolbar = w.HBox(
            [title, controls.step, controls.play, controls.speed, controls.undo, controls.reset],
            layout=w.Layout(flex_flow="row wrap", align_items="center"),
        )
        self.decision_tabs = w.Accordion(
            children=[self.manage.widget, self.trade.widget],
            titles=("Build, sell, mortgage, redeem", "Trade"),
        )
        self.chart_tabs = w.Tab(children=self._chart_list(), titles=("Wealth", "Rents", "Taxes"))
        self.chart_tabs.add_class("am-charts")
        side = w.VBox(
            [
                self.decision_tabs,
                w.HTML("<b>What happened</b> (newest first)"),
                self.narration.widget,
                self.chart_tabs,
            ],
            layout=w.Layout(width="610px"),
        )
        self.more = w.Accordion(
            children=[self.files.widget],
            titles=("New game, save and load, scenarios",),
            selected_index=None,
        )
        return w.VBox(
            [
                toolbar,
                w.VBox([self.decisions.widget, self.messages.widget]),
                w.HBox([self.board_view, side], layout=w.Layout(flex_flow="row wrap")),
                self.players_view,
                self.more,
            ],
            layout=w.Layout(max_width="1280px"),
        )

    def _chart_list(self) -> list[widgets.Widget]:
        return [self.charts["wealth"], self.charts["rents"], self.charts["taxes"]]

    def _ipython_display_(self) -> None:
        display(self.widget)

    # -- following the session ------------------------------------------------------------------
    def _changed(self, change: Change) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Redraw every part from the session."""
        game = self.session.game
        self.board_view.value = board_html(game, with_players=False)
        self.players_view.value = players_table_html(game)
        self.feed.update()
        charts = self._chart_list()
        if list(self.chart_tabs.children) != charts:
            self.chart_tabs.children = charts  # a table with another number of seats
        self.narration.refresh()
        pending = game.pending  # computed once: it lists the legal kinds of choice
        self.decisions.refresh(pending)
        kinds = pending.kinds if pending is not None and self.session.human_to_move else ()
        self.manage.refresh(kinds)
        self.trade.refresh(kinds)
        shown = self.manage.available or self.trade.available
        self.decision_tabs.layout.display = "flex" if shown else "none"
        self.controls.refresh()
        self.files.refresh()

    def answer(self, reply: Reply) -> bool:
        """Show the session's reply to what was done at this screen; True if it was done."""
        return self.messages.show(reply)

    # -- what this screen does (each asks the session) --------------------------------------------
    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def charts(self) -> dict[str, widgets.Widget]:
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
        """The decision buttons on screen now, by their text."""
        shown = {b.description: b for b in self.decisions.choices.children}
        shown.update({b.description: b for b in self.manage.buttons.values() if not b.disabled})
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
