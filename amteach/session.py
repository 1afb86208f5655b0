"""A table: one game, who controls each seat, and what a screen needs to follow it, without
widgets. The classroom app, the command line's demo and the inequality analysis all drive
games through a `Session`, so one loop drives bots in interactive play (a batch of bot games
has its own tight loop in `amteach.sim.play`).

Every decision (a person's click, a bot's move, a script) enters the game through one method,
`Session.apply`: a table whose decisions come from a shared log overrides that one method.
Views never call each other: each subscribes to the session and redraws when told what
changed (`Change`), reading new events through its own `EventCursor`. Many views can follow
one session, e.g. a projector and a student's screen.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .bots import STRATEGIES, Strategy, check_bot, make_strategy
from .content import scenarios_dir
from .engine.board import ROLES
from .engine.choices import Choice
from .engine.errors import AmteachError, IllegalChoice, InputError, RulesError, quoted
from .engine.events import Event
from .engine.game import Game
from .engine.rules import RuleSet
from .engine.scenario import ScriptStepError
from .style import ROLE_LABELS

HUMAN = "human"
DEFAULT_SEATS = (
    ("Ana", "competitor", HUMAN),
    ("Ben", "monopolist", "investor"),
    ("Cleo", "competitor", "cautious"),
    ("Dev", "monopolist", "builder"),
)
# New game's choice of players: the session's own table, or the players of the game now
TABLE_PLAYERS, GAME_PLAYERS = "table", "game"
SAVE_FILENAME = "amteach-game.json"

# what changed, for subscribers
DECIDED = "decided"  # decisions were added: new events follow the old ones
RESTARTED = "restarted"  # another game, or the same one taken back: redraw from the start
SEATS = "seats"  # a seat changed hands (a person or a bot): the game is as it was


def default_scenario_dir() -> Path:
    """The lessons' scenarios: amteach.content says where they are (a source checkout, or the
    copies an installed wheel carries)."""
    return scenarios_dir()


@dataclass(frozen=True)
class Reply:
    """What a request came to, for the person who made it: done or not, and why."""

    ok: bool
    message: str = ""
    level: str = "info"  # "info", "warning" or "error"


@dataclass(frozen=True)
class Change:
    """Sent to every subscriber after the session changed."""

    kind: str  # DECIDED, RESTARTED or SEATS
    session: Session


def replay(game: Game) -> Iterator[Game]:
    """`game` played again from its set-up: one fresh game, yielded at the start and after
    each of the decisions (the same object, moving on)."""
    again = Game(game.setup, game.board)
    yield again
    for decision in game.decisions:
        again.apply(decision)
        yield again


class RoundRecorder:
    """Each seat's cash, titles and buildings at the moments a batch records them
    (`amteach.sim.play`): round 0 at the start, round r at the end of round r, and once more
    at the end of the game (or, while it goes on, as it stands now)."""

    def __init__(self, game: Game) -> None:
        self.rows: list[tuple[int, int, int, int, int]] = []  # round, seat, cash, titles, buildings
        self._snapshot(game, 0)
        self._round = game.round

    @classmethod
    def of(cls, game: Game) -> RoundRecorder:
        """A recorder that has followed `game` from its set-up (it replays the game)."""
        states = replay(game)
        recorder = cls(next(states))
        for state in states:
            recorder.after_decision(state)
        return recorder

    def after_decision(self, game: Game) -> None:
        if game.round != self._round:
            self._snapshot(game, self._round)
            self._round = game.round

    def table(self, game: Game) -> list[tuple[int, int, int, int, int]]:
        """The rows so far and a last one for `game` as it stands (over or not)."""
        return self.rows + self._rows_now(game, game.round)

    def _snapshot(self, game: Game, round_number: int) -> None:
        self.rows.extend(self._rows_now(game, round_number))

    @staticmethod
    def _rows_now(game: Game, round_number: int) -> list[tuple[int, int, int, int, int]]:
        return [
            (round_number, seat, cash, titles, buildings)
            for seat, (cash, titles, buildings) in enumerate(game.wealth_parts())
        ]


class EventCursor:
    """One viewer's place in the session's events."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._generation = -1
        self._seen = 0

    def take(self) -> tuple[list[Event], bool]:
        """The events this viewer has not seen yet, and whether the game started over since
        (then the events are all of the new game's, from its start)."""
        session = self.session
        restarted = self._generation != session.generation
        if restarted:
            self._generation, self._seen = session.generation, 0
        events = session.game.events[self._seen :]
        self._seen = len(session.game.events)
        return list(events), restarted


def check_controller(controller: Any, field: str = "controller") -> str:
    """A seat's controller, "human" or a bot's name (a family strategy as
    "family:<knobs>"), in lower case; InputError otherwise."""
    name = str(controller).lower()
    if name == HUMAN:
        return name
    try:
        return check_bot(name)
    except RulesError as err:
        raise InputError(
            f"controller must be 'human' or a bot ({', '.join(STRATEGIES)}), not "
            f"{quoted(controller)}: {err.reason}",
            field=field,
        ) from None


def check_seats(seats: Sequence[tuple[str, str, str]]) -> list[str]:
    """The controllers of (name, role, controller) seats."""
    controllers = []
    for index, seat in enumerate(seats):
        if len(seat) != 3:
            raise InputError("a seat is (name, role, controller)", field=f"seats[{index}]")
        controllers.append(check_controller(seat[2], f"seats[{index}]"))
    return controllers


class Session:
    """A game at a table: humans decide for their seats, bots for the others.

    `seats` are (name, role, controller) triples in turn order; a controller is "human" or a
    bot's name (cautious, builder, investor, random). They are the session's own table, which
    New game can return to after a scenario or a loaded game. `files_on_disk=False` refuses
    every path (a served dashboard, whose visitors save and load through their browser)."""

    def __init__(
        self,
        seats: Sequence[tuple[str, str, str]] = DEFAULT_SEATS,
        seed: int | None = 1,
        rules: RuleSet | str = "default",
        game: str = "A",
        scenario_dir: str | Path | None = None,
        files_on_disk: bool = True,
    ) -> None:
        self.controllers = check_seats(seats)
        self.table = [(name, role) for name, role, _ in seats]
        self.table_controllers = list(self.controllers)
        self.rules = RuleSet.coerce(rules)
        self.scenario_dir = (
            Path(scenario_dir) if scenario_dir is not None else default_scenario_dir()
        )
        self.files_on_disk = files_on_disk
        self._listeners: list[Callable[[Change], None]] = []
        self._held = 0
        self._pending: str | None = None
        self.generation = 0  # counts the games shown: new, loaded, reset or taken back
        self.moment = 0  # counts every change, so a button can tell it is stale
        self._start(Game.new(self.table, rules=self.rules, seed=seed, game=game))

    # -- views ----------------------------------------------------------------------------------
    def subscribe(self, listener: Callable[[Change], None]) -> Callable[[], None]:
        """Call `listener(change)` after every change; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def cursor(self) -> EventCursor:
        """A new viewer's place in the events (it starts before the first one)."""
        return EventCursor(self)

    @contextmanager
    def grouped(self) -> Iterator[None]:
        """Changes inside the block reach the views once, when it ends."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
            if not self._held and self._pending is not None:
                kind, self._pending = self._pending, None
                self._notify(kind)

    def _changed(self, kind: str) -> None:
        self.moment += 1
        if kind == RESTARTED:
            self.generation += 1
        if self._held:  # the biggest change wins: RESTARTED, then DECIDED, then SEATS
            kinds = (RESTARTED, DECIDED, SEATS)
            self._pending = min(kind, self._pending or SEATS, key=kinds.index)
        else:
            self._notify(kind)

    def _notify(self, kind: str) -> None:
        change = Change(kind, self)
        for listener in list(self._listeners):
            listener(change)

    # -- who is who -------------------------------------------------------------------------------
    def controller(self, seat: int) -> str:
        return self.controllers[seat] if seat < len(self.controllers) else HUMAN

    @property
    def seat_controllers(self) -> list[str]:
        """The controller of each seat of the game now, in seat order."""
        return [self.controller(seat) for seat in range(len(self.game.names))]

    @property
    def bot_to_move(self) -> bool:
        return not self.game.over and self.game.actor in self.bots

    @property
    def human_to_move(self) -> bool:
        return not self.game.over and self.game.actor not in self.bots

    def who(self, seat: int) -> str:
        """A player's name and role, e.g. "Ana (Competitor)"."""
        return f"{self.game.names[seat]} ({ROLE_LABELS[self.game.roles[seat]]})"

    def set_controller(self, seat: int, controller: str) -> None:
        """Hand a seat to a person ("human") or a bot, from the next decision on."""
        if not 0 <= seat < len(self.game.names):
            raise InputError(f"there is no seat {quoted(seat)}", field="seat")
        controller = check_controller(controller)
        while len(self.controllers) <= seat:
            self.controllers.append(HUMAN)
        self.controllers[seat] = controller
        if controller == HUMAN:
            self.bots.pop(seat, None)
        else:
            self.bots[seat] = make_strategy(controller, seed=self.game.setup.seed + seat)
        self._changed(SEATS)

    # -- decisions ------------------------------------------------------------------------------
    def apply(self, choice: Any, seat: int | None = None) -> None:
        """The one way a decision enters the game, whoever makes it. Raises IllegalChoice (the
        game unchanged) when the rules forbid it. A table whose decisions go through a shared
        log overrides this method."""
        self.game.apply(choice, player=seat)
        if self._recorder is not None:
            self._recorder.after_decision(self.game)
        self._changed(DECIDED)

    def decide(self, choice: Any, moment: int | None = None) -> Reply:
        """A person's choice for the seat whose turn it is. `moment` is `session.moment` when
        the choice was offered: an older one (a double click, a stale page) changes nothing."""
        game = self.game
        if moment is not None and moment != self.moment:
            return Reply(
                False,
                "That button was for an earlier moment of the game; here are the current choices.",
                "warning",
            )
        if game.over:
            return Reply(False, "The game is over. Start a new game or load one.", "warning")
        if game.actor in self.bots:
            return Reply(
                False,
                f"It is {game.names[game.actor]}'s decision, and a bot plays that seat: press Step.",
                "warning",
            )
        try:
            with self.grouped():
                self.apply(choice, seat=game.actor)
                # a bot answers a trade at once, so the proposer sees the answer
                if getattr(choice, "kind", None) == "trade" and self.bot_to_move:
                    self._bot_decides()
        except IllegalChoice as err:
            return Reply(False, f"That is not allowed now: {err.reason} ({err.rule}).", "warning")
        return Reply(True)

    def step(self) -> Reply:
        """One decision by the bot whose turn it is; refused if a person must decide or the
        game is over."""
        game = self.game
        if game.over:
            return Reply(False, "The game is over.")
        if game.actor not in self.bots:
            return Reply(False, f"Waiting for {game.names[game.actor]} to choose.")
        self._bot_decides()
        return Reply(True)

    def play_until_human(self, max_decisions: int = 100_000) -> int:
        """Bots decide until a person must, the game ends or `max_decisions` are taken; the
        views hear of it once. Returns how many decisions the bots took."""
        taken = 0
        with self.grouped():
            while taken < max_decisions and self.bot_to_move:
                self._bot_decides()
                taken += 1
        return taken

    def _bot_decides(self) -> None:
        game = self.game
        self.apply(self.bots[game.actor].choose(game, game.legal()), seat=game.actor)

    # -- whole games --------------------------------------------------------------------------------
    def undo(self) -> Reply:
        """Take back the last decision (a person's or a bot's)."""
        if not self.game.decisions:
            return Reply(False, "There is nothing to undo yet.")
        self.game.undo()
        self._recorder = None  # rebuilt when next asked for
        self._changed(RESTARTED)
        return Reply(True, "Took back the last decision.")

    def reset(self) -> Reply:
        """Start the same game again: same seats, seed and rules."""
        self._start(Game(self.game.setup, self.game.board))
        return Reply(True, "The game starts again.")

    def new_game(
        self, seed: int | None = None, preset: str | None = None, players: str = GAME_PLAYERS
    ) -> Reply:
        """A new game with a new seed and (optionally) another rules preset. `players` is
        "game" for the players of the game now (after a scenario or a load, its own) or
        "table" for the session's own table, each again human or bot as at the start."""
        try:
            rules = RuleSet.preset(preset) if preset else self.game.rules
            if players == TABLE_PLAYERS:
                seats = list(self.table)
            else:
                seats = [
                    (name, ROLES[role])
                    for name, role in zip(self.game.names, self.game.roles, strict=True)
                ]
            game = Game.new(seats, rules=rules, seed=seed, game=self.game.setup.game_type)
        except AmteachError as err:
            return Reply(False, f"Could not start a new game: {err}", "error")
        if players == TABLE_PLAYERS:
            self.controllers = list(self.table_controllers)
        self.rules = rules
        self._start(game)
        return Reply(True, f"New game, seed {game.setup.seed}, rules {rules.preset_name}.")

    def replace_game(self, game: Game, message: str = "") -> Reply:
        """Play `game` from now on (a loaded save, a scenario); seats beyond the session's
        table are played by people."""
        while len(self.controllers) < len(game.names):
            self.controllers.append(HUMAN)
        self._start(game)
        return Reply(True, message)

    def _start(self, game: Game) -> None:
        self.game = game
        self.bots: dict[int, Strategy] = {
            seat: make_strategy(controller, seed=game.setup.seed + seat)
            for seat, controller in enumerate(self.controllers[: len(game.names)])
            if controller != HUMAN
        }
        self._recorder: RoundRecorder | None = None  # built when first asked for
        self._changed(RESTARTED)

    # -- files --------------------------------------------------------------------------------------
    def save_text(self) -> str:
        """The game as a save file's text: the set-up, the seed and the decisions (JSON)."""
        return json.dumps(self.game.to_save(), indent=1)

    def save(self, path: str | Path) -> Reply:
        """Save the game to a file on this computer (not in a served dashboard)."""
        from .files import save_game

        if not self.files_on_disk:
            return Reply(False, FILES_ELSEWHERE, "warning")
        try:
            saved = save_game(self.game, path)
        except OSError as err:
            return Reply(False, f"Could not save to {path}: {err.strerror}.", "error")
        return Reply(True, f"Saved the game to {saved}.")

    def load(self, source: str | Path | bytes) -> Reply:
        """Load a saved game: the bytes of an uploaded file, or (not in a served dashboard) a
        path. A corrupt file gives a message naming the problem and the game is kept."""
        from .files import load_game, parse_upload

        uploaded = isinstance(source, bytes | bytearray | memoryview)
        if not uploaded and not self.files_on_disk:
            return Reply(False, FILES_ELSEWHERE, "warning")
        try:
            if uploaded:
                game = Game.from_save(parse_upload(bytes(source)), "uploaded file")
            else:
                game = load_game(source)
        except AmteachError as err:
            return Reply(
                False, f"Could not load that game; the current game is kept. {err}", "error"
            )
        except Exception:  # a file no check foresaw: said in one line, the details logged
            logging.getLogger("amteach").exception("loading a saved game failed")
            return Reply(
                False,
                "Could not load that game; the current game is kept. "
                "The file is not a saved game amteach can read.",
                "error",
            )
        return self.replace_game(
            game, f"Loaded a saved game ({len(game.decisions)} decisions replayed)."
        )

    def scenario_names(self) -> list[str]:
        """The scenarios on offer: the names of the scenario folder's YAML files."""
        if not self.scenario_dir.is_dir():
            return []
        return sorted(f.stem for f in self.scenario_dir.glob("*.yaml") if f.is_file())

    def load_scenario(self, name: str | None) -> Reply:
        """Set up the scenario `name` (a file of the scenario folder, by name: never a path)
        and play its script. A malformed file gives a message naming the problem and the game
        is kept."""
        from .files import load_scenario_file

        if not name:
            return Reply(False, "Choose a scenario first.", "warning")
        if name not in self.scenario_names():
            return Reply(False, f"There is no scenario called {quoted(name)}.", "warning")
        try:
            game = load_scenario_file(self.scenario_dir / f"{name}.yaml")
        except (AmteachError, ScriptStepError) as err:
            return Reply(
                False, f"Could not load that scenario; the current game is kept. {err}", "error"
            )
        return self.replace_game(game, f"Scenario {name.replace('-', ' ')} is set up.")

    # -- records ------------------------------------------------------------------------------------
    @property
    def recorder(self) -> RoundRecorder:
        """The game's wealth, round by round (`RoundRecorder`), kept up to date as it goes."""
        if self._recorder is None:
            self._recorder = RoundRecorder.of(self.game)
        return self._recorder


FILES_ELSEWHERE = (
    "This dashboard keeps files on your own computer: use Save (download) and Load (upload)."
)


def choice_label(game: Game, choice: Choice) -> str:
    """A choice in words, with what is at stake: the text of its button."""
    kind, arg = choice.kind, choice.arg
    if kind == "roll":
        return "Try for doubles" if game.is_held(game.actor) else "Roll"
    if kind == "buy":
        space = game.board.spaces[game.state.pending_buy]
        return f"Buy {space.name} for ${space.price}"
    if kind == "decline":
        return "Decline"
    if kind == "income_tax":
        options = game.tax_options(game.actor)
        if arg == "flat":
            return f"Pay ${options.flat} flat"
        r = options.rates
        return (
            f"Pay ${options.percent} ({r[0]}% of cash + {r[1]}% of property + {r[2]}% of buildings)"
        )
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
        building = "an apartment" if game.building(arg).next == "apartment" else "a house"
        return f"Build {building} on {space.name} for ${space.house_cost}"
    if kind == "sell_building":
        quote = game.building(arg)
        building, value = quote.sale, quote.sale_value
        sold = "the apartment" if building == "apartment" else "a house"
        return f"Sell {sold} on {space.name} for ${value}"
    if kind == "mortgage":
        return f"Mortgage {space.name} for ${game.state.mortgage_values[arg]}"
    if kind == "redeem":
        return f"Redeem {space.name} for ${game.state.redeem_values[arg]}"
    return str(choice)
