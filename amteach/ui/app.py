"""The classroom app: the board, the players, the decision bar, narration, controls and live
charts, in ipywidgets. It shows what the engine says and sends the engine the choices made;
it never applies a rule of its own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ipywidgets as widgets
from IPython.display import display

from ..bots import STRATEGIES, make_strategy
from ..engine.board import ROLES
from ..engine.choices import Choice, Trade
from ..engine.errors import AmteachError, IllegalChoice, InputError
from ..engine.game import Game
from ..engine.rules import RuleSet, preset_names
from ..engine.scenario import ScriptStepError
from ..render import (
    ROLE_LABELS,
    board_html,
    html_text,
    players_table_html,
    role_legend,
)
from ..serving import is_served
from .charts import ChartFeed
from .download import DownloadButton

HUMAN = "human"
NARRATION_LINES = 300
SAVE_FILENAME = "amteach-game.json"
# a save holds the set-up and the decisions: a long game's is about 50 kB
MAX_UPLOAD_BYTES = 2_000_000
SERVED_FILES_MESSAGE = (
    "This dashboard keeps files on your own computer: use Save (download) and Load (upload)."
)


def read_upload(content: bytes, source: str = "uploaded file") -> Any:
    """The JSON inside an uploaded save file; an InputError says what is wrong with it."""
    if len(content) > MAX_UPLOAD_BYTES:
        raise InputError(
            f"is {len(content) / 1e6:.1f} MB; a saved game is at most "
            f"{MAX_UPLOAD_BYTES / 1e6:.0f} MB",
            source,
        )
    try:
        return json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(f"not valid JSON ({err})", source) from None


def default_scenario_dir() -> Path:
    """`lessons/scenarios` beside the package (a source checkout) or under the working folder."""
    here = Path(__file__).resolve().parents[2] / "lessons" / "scenarios"
    return here if here.is_dir() else Path.cwd() / "lessons" / "scenarios"


# New game's choice of players: the app's own table, or the players of the game on screen
TABLE_PLAYERS, GAME_PLAYERS = "table", "game"


class ClassroomApp:
    """A game for a class: humans decide for their seats, bots for the rest.

    `seats` are (name, role, controller) triples in turn order; a controller is "human" or a
    bot's name (cautious, builder, investor, random). The app shows itself in a notebook cell;
    `app.widget` is its root widget, `app.game` its game, `app.charts` the live charts.
    """

    def __init__(
        self,
        seats: Sequence[tuple[str, str, str]] = (
            ("Ana", "competitor", HUMAN),
            ("Ben", "monopolist", "investor"),
            ("Cleo", "competitor", "cautious"),
            ("Dev", "monopolist", "builder"),
        ),
        seed: int | None = 1,
        rules: RuleSet | str = "default",
        game: str = "A",
        scenario_dir: str | Path | None = None,
    ) -> None:
        self.controllers = [self._check_controller(seat, i) for i, seat in enumerate(seats)]
        # the app's own table, which New game can return to after a scenario or a loaded game
        self.table = [(name, role) for name, role, _ in seats]
        self.table_controllers = list(self.controllers)
        self.rules = rules if isinstance(rules, RuleSet) else RuleSet.preset(rules)
        self.game_type = game
        self.game = Game.new(
            [(name, role) for name, role, _ in seats], rules=self.rules, seed=seed, game=game
        )
        self.scenario_dir = (
            Path(scenario_dir) if scenario_dir is not None else default_scenario_dir()
        )
        self.bots = self._make_bots()
        self.feed = ChartFeed(self.game)
        self.charts = self.feed.charts
        self._narrated = 0
        self._lines: list[str] = []
        self._build_widgets()
        self.refresh(full=True)

    # -- set-up -------------------------------------------------------------------------------
    @staticmethod
    def _check_controller(seat: tuple[str, str, str], index: int) -> str:
        if len(seat) != 3:
            raise InputError("a seat is (name, role, controller)", field=f"seats[{index}]")
        controller = str(seat[2]).lower()
        if controller != HUMAN and controller not in STRATEGIES:
            raise InputError(
                f"controller must be 'human' or a bot ({', '.join(STRATEGIES)}), not {seat[2]!r}",
                field=f"seats[{index}]",
            )
        return controller

    def _make_bots(self) -> dict[int, Any]:
        return {
            seat: make_strategy(controller, seed=self.game.seed + seat)
            for seat, controller in enumerate(self.controllers[: len(self.game.names)])
            if controller != HUMAN
        }

    def _build_widgets(self) -> None:
        w = widgets
        self.board_view = w.HTML(layout=w.Layout(width="600px"))
        self.players_view = w.HTML()
        self.status = w.HTML()
        self.message = w.HTML()
        self.choice_box = w.HBox(layout=w.Layout(flex_flow="row wrap"))
        self.choice_box.add_class("am-choices")
        self.title_picker = w.Dropdown(description="Title", layout=w.Layout(width="260px"))
        self.title_picker.observe(lambda _: self._refresh_title_buttons(), names="value")
        self.title_buttons = {
            kind: self._button(
                kind.replace("_", " ").capitalize(), lambda _, k=kind: self._title_action(k)
            )
            for kind in ("build", "sell_building", "mortgage", "redeem")
        }
        self.manage_box = w.VBox(
            [
                self.title_picker,
                w.HBox(list(self.title_buttons.values()), layout=w.Layout(flex_flow="row wrap")),
            ]
        )
        self.trade_partner = w.Dropdown(description="With", layout=w.Layout(width="200px"))
        self.trade_partner.observe(lambda _: self._refresh_trade_lists(), names="value")
        self.trade_give = w.SelectMultiple(
            description="Give", rows=4, layout=w.Layout(width="260px")
        )
        self.trade_get = w.SelectMultiple(description="Get", rows=4, layout=w.Layout(width="260px"))
        self.trade_pay = w.IntText(
            description="Pay $",
            value=0,
            layout=w.Layout(width="180px"),
            tooltip="cash you pay; negative: cash you receive",
        )
        self.trade_button = self._button("Propose trade", lambda _: self._propose_trade())
        self.trade_box = w.VBox(
            [
                w.HBox([self.trade_partner, self.trade_pay]),
                w.HBox([self.trade_give, self.trade_get]),
                self.trade_button,
            ]
        )
        self.decision_tabs = w.Accordion(
            children=[self.manage_box, self.trade_box],
            titles=("Build, sell, mortgage, redeem", "Trade"),
        )
        self.narration = w.HTML(
            layout=w.Layout(
                height="150px", overflow="auto", border="1px solid #ccc", padding="2px 6px"
            )
        )
        self.narration.add_class("am-narration")

        self.step_button = self._button(
            "Step", lambda _: self.step(), tooltip="the next decision; a bot decides for its seat"
        )
        self.play = w.Play(
            value=0,
            min=0,
            max=10**9,
            step=1,
            interval=700,
            description="Play",
            show_repeat=False,
            tooltip="Play / Pause: bots decide by themselves",
            layout=w.Layout(width="100px"),
        )
        self.play.observe(lambda change: self._tick(), names="value")
        self.speed = w.IntSlider(
            value=2,
            min=1,
            max=20,
            description="Speed",
            tooltip="decisions per second",
            layout=w.Layout(width="230px"),
        )
        self.speed.observe(
            lambda change: setattr(self.play, "interval", int(1000 / change["new"])), names="value"
        )
        self.play.interval = int(1000 / self.speed.value)
        self.undo_button = self._button(
            "Undo", lambda _: self.undo(), tooltip="take back the last decision"
        )
        self.reset_button = self._button(
            "Reset", lambda _: self.reset(), tooltip="start this game again"
        )
        self.seed_field = w.IntText(
            value=self.game.seed, description="Seed", layout=w.Layout(width="170px")
        )
        self.preset_picker = w.Dropdown(
            options=preset_names(),
            value=self.rules.preset_name if self.rules.preset_name in preset_names() else "default",
            description="Rules",
            layout=w.Layout(width="210px"),
        )
        self.players_picker = w.Dropdown(
            options=[
                (", ".join(name for name, _ in self.table), TABLE_PLAYERS),
                ("this game's players", GAME_PLAYERS),
            ],
            value=TABLE_PLAYERS,
            description="Players",
            layout=w.Layout(width="300px"),
        )
        self.new_button = self._button(
            "New game",
            lambda _: self.new_game(
                self.seed_field.value, self.preset_picker.value, self.players_picker.value
            ),
        )
        # Save downloads to the visitor's computer and Load uploads from it. A path on the
        # server is offered only outside `amteach dashboard` (a notebook the user runs).
        self.served = is_served()
        self.download_button = DownloadButton(
            SAVE_FILENAME,
            self.save_text,
            description="Save (download)",
            tooltip="save this game as a file on your computer",
        )
        self.upload = w.FileUpload(
            accept=".json",
            multiple=False,
            description="Load (upload)",
            layout=w.Layout(width="auto"),
        )
        self.upload.observe(lambda change: self._load_upload(), names="value")
        file_row: list[widgets.Widget] = [self.download_button, self.upload]
        if not self.served:
            self.file_field = w.Text(
                value=SAVE_FILENAME, description="File", layout=w.Layout(width="260px")
            )
            self.save_button = self._button("Save", lambda _: self.save(self.file_field.value))
            self.load_button = self._button("Load", lambda _: self.load(self.file_field.value))
            file_row = [self.file_field, self.save_button, self.load_button, *file_row]
        self.scenario_picker = w.Dropdown(description="Scenario", layout=w.Layout(width="300px"))
        self.scenario_button = self._button(
            "Load scenario", lambda _: self.load_scenario(self.scenario_picker.value)
        )
        self._refresh_scenarios()

        game_files = w.VBox(
            [
                w.HBox([self.seed_field, self.preset_picker, self.players_picker, self.new_button]),
                w.HBox(file_row, layout=w.Layout(flex_flow="row wrap")),
                w.HBox([self.scenario_picker, self.scenario_button]),
            ]
        )
        game_files.add_class("am-files")
        self.more = w.Accordion(
            children=[game_files],
            titles=("New game, save and load, scenarios",),
            selected_index=None,
        )
        toolbar = w.HBox(
            [
                w.HTML(
                    html_text(
                        "<span style='white-space:nowrap'><b style='font-size:16px'>"
                        "Anti-Monopoly</b> &nbsp; {}</span>",
                        role_legend(plural=True, bold=True),
                    ),
                    layout=w.Layout(margin="0 12px 0 0"),
                ),
                self.step_button,
                self.play,
                self.speed,
                self.undo_button,
                self.reset_button,
            ],
            layout=w.Layout(flex_flow="row wrap", align_items="center"),
        )
        self.chart_tabs = w.Tab(
            children=[self.charts["wealth"], self.charts["rents"], self.charts["taxes"]],
            titles=("Wealth", "Rents", "Taxes"),
        )
        self.chart_tabs.add_class("am-charts")
        side = w.VBox(
            [
                self.decision_tabs,
                w.HTML("<b>What happened</b> (newest first)"),
                self.narration,
                self.chart_tabs,
            ],
            layout=w.Layout(width="610px"),
        )
        self.widget = w.VBox(
            [
                toolbar,
                # the choices sit above the board, so they stay in sight when a laptop's
                # narrow screen puts the side column under the board
                w.VBox([self.status, self.choice_box, self.message]),
                w.HBox([self.board_view, side], layout=w.Layout(flex_flow="row wrap")),
                self.players_view,
                self.more,
            ],
            layout=w.Layout(max_width="1280px"),
        )

    @staticmethod
    def _button(description: str, handler: Any, tooltip: str = "") -> widgets.Button:
        button = widgets.Button(
            description=description,
            tooltip=tooltip or description,
            layout=widgets.Layout(width="auto"),
        )
        button.on_click(handler)
        return button

    def _ipython_display_(self) -> None:
        display(self.widget)

    # -- what the humans see ---------------------------------------------------------------------
    def refresh(self, full: bool = False) -> None:
        """Redraw the board, players, choices and narration; append to the charts."""
        game = self.game
        self.board_view.value = board_html(game, with_players=False)
        self.players_view.value = players_table_html(game)
        if full:
            self.feed.reset(game)
            charts = (self.charts["wealth"], self.charts["rents"], self.charts["taxes"])
            if hasattr(self, "chart_tabs") and tuple(self.chart_tabs.children) != charts:
                self.chart_tabs.children = charts  # a table with another number of seats
            self._lines = []
            self._narrated = 0
        else:
            self.feed.feed(game)
        new = [event.text for event in game.events[self._narrated :]]
        self._narrated = len(game.events)
        self._lines = (new[::-1] + self._lines)[:NARRATION_LINES]
        self.narration.value = "".join(
            html_text('<div style="line-height:1.3;margin:2px 0">{}</div>', line)
            for line in self._lines
        )
        self._refresh_choices()

    def _say(self, text: str, kind: str = "info") -> None:
        colour = {"info": "#1f4fb4", "warning": "#8a4b00", "error": "#b00020"}[kind]
        self.message.value = (
            html_text('<div role="status" style="color:{}">{}</div>', colour, text) if text else ""
        )

    def _refresh_choices(self) -> None:
        game = self.game
        pending = game.pending
        if pending is None:
            winner = "nobody" if game.winner is None else game.names[game.winner]
            self.status.value = html_text("<b>Game over.</b> Winner: {}.", winner)
            self.choice_box.children = ()
            self.decision_tabs.layout.display = "none"
            self._disable_title_buttons()
            return
        seat = pending.player
        who = f"{game.names[seat]} ({ROLE_LABELS[game.roles[seat]]})"
        if seat in self.bots:
            self.status.value = html_text(
                "<b>{}</b> is a bot ({}): press Step or Play.", who, self.controllers[seat]
            )
            self.choice_box.children = ()
            self.decision_tabs.layout.display = "none"
            self._disable_title_buttons()
            return
        self.status.value = html_text(
            "<b>{}</b> to decide ({}).", who, pending.phase.replace("_", " ")
        )
        stamp = len(game.decisions)
        buttons = []
        for choice in game.legal_choices():
            if choice.kind in ("build", "sell_building", "mortgage", "redeem"):
                continue
            buttons.append(self._choice_button(choice, stamp))
        self.choice_box.children = tuple(buttons)
        manage = any(kind in pending.kinds for kind in self.title_buttons)
        trade = "trade" in pending.kinds
        self.decision_tabs.layout.display = "flex" if manage or trade else "none"
        self.manage_box.layout.display = "flex" if manage else "none"
        self.trade_box.layout.display = "flex" if trade else "none"
        # only titles with something to do, so the first one shown always has a live button
        actionable = (
            {s for kind in self.title_buttons for s in game.targets(kind)} if manage else set()
        )
        titles = [s for s in game.board.titles if s in actionable]
        self.title_picker.options = [(game.board.spaces[s].name, s) for s in titles]
        if titles and self.title_picker.value not in titles:
            self.title_picker.value = titles[0]
        self._refresh_title_buttons()
        if trade:
            others = [p for p in game.alive() if p != seat]
            self.trade_partner.options = [(game.names[p], p) for p in others]
            if others and self.trade_partner.value not in others:
                self.trade_partner.value = others[0]
            self._refresh_trade_lists()

    def label(self, choice: Choice) -> str:
        """The button text for a choice: what it is and what is at stake."""
        game = self.game
        kind, arg = choice.kind, choice.arg
        if kind == "roll":
            return "Try for doubles" if game.held[game.actor] >= 0 else "Roll"
        if kind == "buy":
            space = game.board.spaces[game.pending_buy]
            return f"Buy {space.name} for ${space.price}"
        if kind == "decline":
            return "Decline"
        if kind == "income_tax":
            options = game.tax_options(game.actor)
            if arg == "flat":
                return f"Pay ${options.flat} flat"
            r = options.rates
            return f"Pay ${options.percent} ({r[0]}% of cash + {r[1]}% of property + {r[2]}% of buildings)"
        if kind == "pay_fine":
            return f"Pay the ${game.rules.fine} fine"
        if kind == "end_turn":
            return "Done adjusting" if game.phase == "final_adjust" else "End turn"
        if kind == "end_game":
            return "Time is up: final accounting"
        if kind == "accept":
            return "Accept the trade"
        if kind == "reject":
            return "Reject the trade"
        space = game.board.spaces[arg]
        if kind == "build":
            return f"Build {'an apartment' if game.next_building(arg) == 'apartment' else 'a house'} on {space.name} for ${space.house_cost}"
        if kind == "sell_building":
            building, value = game.building_sale_value(arg)
            return f"Sell {'the apartment' if building == 'apartment' else 'a house'} on {space.name} for ${value}"
        if kind == "mortgage":
            return f"Mortgage {space.name} for ${game.mortgage_values[arg]}"
        if kind == "redeem":
            return f"Redeem {space.name} for ${game.redeem_values[arg]}"
        return str(choice)

    def _choice_button(self, choice: Choice, stamp: int) -> widgets.Button:
        return self._button(self.label(choice), lambda _: self.choose(choice, stamp))

    def _refresh_title_buttons(self) -> None:
        game, space = self.game, self.title_picker.value
        stamp = len(game.decisions)
        for kind, button in self.title_buttons.items():
            choice = Choice(kind, space) if space is not None else None
            legal = choice is not None and game.is_legal(choice)
            button.disabled = not legal
            button.description = (
                self.label(choice) if legal else kind.replace("_", " ").capitalize()
            )
            button._amteach_stamp = stamp  # type: ignore[attr-defined]

    def _disable_title_buttons(self) -> None:
        for kind, button in self.title_buttons.items():
            button.disabled = True
            button.description = kind.replace("_", " ").capitalize()

    def _refresh_trade_lists(self) -> None:
        game = self.game
        partner = self.trade_partner.value
        me = game.actor

        def bare(player: int | None) -> list[tuple[str, int]]:
            if player is None:
                return []
            return [
                (game.board.spaces[s].name + (" (mortgaged)" if game.mortgaged[s] else ""), s)
                for s in game.titles_of(player)
                if not game.houses[s] and not game.apartment[s]
            ]

        self.trade_give.options = bare(me)
        self.trade_get.options = bare(partner)
        self.trade_button._amteach_stamp = len(game.decisions)  # type: ignore[attr-defined]

    # -- acting -----------------------------------------------------------------------------------
    def choose(self, choice: Any, stamp: int | None = None) -> bool:
        """Apply a human's choice. A stale or illegal click changes nothing and says why."""
        game = self.game
        if stamp is not None and stamp != len(game.decisions):
            self._say(
                "That button was for an earlier moment of the game; here are the current choices.",
                "warning",
            )
            self._refresh_choices()
            return False
        if game.pending is None:
            self._say("The game is over. Start a new game or load one.", "warning")
            return False
        if game.actor in self.bots:
            self._say(
                f"It is {game.names[game.actor]}'s decision, and a bot plays that seat: press Step.",
                "warning",
            )
            return False
        try:
            game.apply(choice, player=game.actor)
        except IllegalChoice as err:
            self._say(f"That is not allowed now: {err.reason} ({err.rule}).", "warning")
            return False
        self._say("")
        self.refresh()
        return True

    def _title_action(self, kind: str) -> None:
        button = self.title_buttons[kind]
        self.choose(Choice(kind, self.title_picker.value), getattr(button, "_amteach_stamp", None))

    def _propose_trade(self) -> None:
        partner = self.trade_partner.value
        if partner is None:
            self._say("Choose a player to trade with.", "warning")
            return
        trade = Trade(
            partner,
            tuple(self.trade_give.value),
            tuple(self.trade_get.value),
            int(self.trade_pay.value or 0),
        )
        if self.choose(Choice("trade", trade), getattr(self.trade_button, "_amteach_stamp", None)):
            self.trade_pay.value = 0
            if partner in self.bots:
                self.step()  # the bot answers at once

    def step(self) -> bool:
        """One decision by the bot whose turn it is. False (with a message) if a human must
        decide or the game is over."""
        game = self.game
        if game.pending is None:
            self._say("The game is over.", "info")
            self.play.playing = False
            return False
        seat = game.actor
        bot = self.bots.get(seat)
        if bot is None:
            self._say(f"Waiting for {game.names[seat]} to choose.", "info")
            return False
        game.apply(bot.choose(game, game.legal()))
        self._say("")
        self.refresh()
        return True

    def _tick(self) -> None:
        if self.game.pending is None:
            self.play.playing = False
            return
        if self.game.actor in self.bots:
            self.step()

    def undo(self) -> None:
        """Take back the last decision (a human's or a bot's)."""
        if not self.game.decisions:
            self._say("There is nothing to undo yet.", "info")
            return
        self.game.undo()
        self._say("Took back the last decision.")
        self.refresh(full=True)

    def reset(self) -> None:
        """Start the same game again: same seats, seed and rules."""
        self.game = Game(self.game.setup, self.game.board)
        self.bots = self._make_bots()
        self._say("The game starts again.")
        self.refresh(full=True)

    def new_game(
        self, seed: int | None = None, preset: str | None = None, players: str = GAME_PLAYERS
    ) -> None:
        """A new game with a new seed and (optionally) another rules preset. `players` is
        "game" for this game's players (after a scenario or a load, its own) or "table" for
        the players the app was made with, each again human or bot as at the start."""
        try:
            rules = RuleSet.preset(preset) if preset else self.game.rules
            if players == TABLE_PLAYERS:
                seats = list(self.table)
            else:
                seats = [
                    (name, ROLES[role])
                    for name, role in zip(self.game.names, self.game.roles, strict=True)
                ]
            game = Game.new(seats, rules=rules, seed=seed, game=self.game.game_type)
        except AmteachError as err:
            self._say(f"Could not start a new game: {err}", "error")
            return
        if players == TABLE_PLAYERS:
            self.controllers = list(self.table_controllers)
        self.game = game
        self.rules = rules
        self.seed_field.value = game.seed
        self.bots = self._make_bots()
        self._say(f"New game, seed {game.seed}, rules {rules.preset_name}.")
        self.refresh(full=True)

    def _replace_game(self, game: Game, message: str) -> None:
        while len(self.controllers) < len(game.names):
            self.controllers.append(HUMAN)
        self.game = game
        self.bots = self._make_bots()
        self.seed_field.value = game.seed
        self._say(message)
        self.refresh(full=True)

    # -- files ------------------------------------------------------------------------------------
    def save_text(self) -> str:
        """The game as a save file's text (set-up, seed, decisions): what Save downloads."""
        return json.dumps(self.game.to_save(), indent=1)

    def save(self, path: str | Path) -> None:
        """Save the game to a file on this computer (outside `amteach dashboard` only)."""
        from ..files import save_game

        if self.served:
            self._say(SERVED_FILES_MESSAGE, "warning")
            return
        try:
            saved = save_game(self.game, path)
        except OSError as err:
            self._say(f"Could not save to {path}: {err.strerror}.", "error")
            return
        self._say(f"Saved the game to {saved}.")

    def load(self, source: str | Path | bytes) -> bool:
        """Load a saved game: the bytes of an uploaded file, or (outside `amteach dashboard`)
        a path. A corrupt file gives a message naming the problem and the current game is
        kept."""
        from ..files import load_game

        is_upload = isinstance(source, bytes | bytearray | memoryview)
        if self.served and not is_upload:
            self._say(SERVED_FILES_MESSAGE, "warning")
            return False
        try:
            if is_upload:
                game = Game.from_save(read_upload(bytes(source)), "uploaded file")
            else:
                game = load_game(source)
        except AmteachError as err:
            self._say(f"Could not load that game; the current game is kept. {err}", "error")
            return False
        self._replace_game(game, f"Loaded a saved game ({len(game.decisions)} decisions replayed).")
        return True

    def _load_upload(self) -> None:
        files = self.upload.value
        if files:
            content = bytes(files[0]["content"])
            self.upload.value = ()  # ready for the next file, even the same one again
            self.load(content)

    def scenario_names(self) -> list[str]:
        """The scenarios the picker offers: the names of the scenario folder's YAML files."""
        if not self.scenario_dir.is_dir():
            return []
        return sorted(f.stem for f in self.scenario_dir.glob("*.yaml") if f.is_file())

    def _refresh_scenarios(self) -> None:
        names = self.scenario_names()
        self.scenario_picker.options = [(name.replace("-", " "), name) for name in names]
        if names:
            self.scenario_picker.value = names[0]

    def load_scenario(self, name: str | None) -> bool:
        """Set up the scenario `name` (a file of the scenario folder, by name: never a path)
        and play its script. A malformed file gives a message naming the problem and the
        current game is kept."""
        from ..files import load_scenario_file

        if not name:
            self._say("Choose a scenario first.", "warning")
            return False
        if name not in self.scenario_names():
            self._say(f"There is no scenario called {name!r}.", "warning")
            return False
        try:
            game = load_scenario_file(self.scenario_dir / f"{name}.yaml")
        except (AmteachError, ScriptStepError) as err:
            self._say(
                f"Could not load that scenario; the current game is kept. {err}",
                "error",
            )
            return False
        self._replace_game(game, f"Scenario {name.replace('-', ' ')} is set up.")
        return True

    # -- for tests and scripts ---------------------------------------------------------------------
    def buttons(self) -> dict[str, widgets.Button]:
        """The decision buttons on screen now, by their text."""
        shown = {b.description: b for b in self.choice_box.children}
        shown.update({b.description: b for b in self.title_buttons.values() if not b.disabled})
        return shown

    def click(self, description: str) -> None:
        """Click the button whose text starts with `description` (as a person would)."""
        shown = {**self.buttons(), **self._control_buttons()}
        exact = shown.get(description)
        matches = [exact] if exact else [b for t, b in shown.items() if t.startswith(description)]
        if matches:
            matches[0].click()
            return
        raise KeyError(f"no button {description!r}; on screen: {', '.join(self.buttons())}")

    def _control_buttons(self) -> dict[str, widgets.Button]:
        controls = [
            self.step_button,
            self.undo_button,
            self.reset_button,
            self.new_button,
            self.scenario_button,
            self.trade_button,
        ]
        if not self.served:
            controls += [self.save_button, self.load_button]
        return {b.description: b for b in controls}

    @property
    def narration_lines(self) -> list[str]:
        """The narration, newest first."""
        return list(self._lines)
