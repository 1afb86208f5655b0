"""The parts of the Play tab. Each is a small view of a `Session`: it holds its widgets
(`widget`), redraws them from the session (`refresh`) and sends what a person does to the
session, whose reply goes to `answer`. None of them applies a rule or a decision itself.
`ClassroomApp` lays them out."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from ..bots.family import bot_words
from ..engine.choices import Choice, Trade
from ..engine.errors import IllegalChoice
from ..engine.rules import preset_names
from ..render import PHASE_WORDS, TITLE_ACTIONS, html_join, html_text, pawn_html
from ..session import (
    GAME_PLAYERS,
    SAVE_FILENAME,
    TABLE_PLAYERS,
    Reply,
    Session,
    choice_label,
)
from .download import DownloadButton
from .widgets import button

NARRATION_LINES = 300
NO_TRADE_NOW = (
    "<p>A trade is proposed by the player whose turn it is, before or after the throw, when "
    "someone has a title without buildings to trade.</p>"
)
# Play's speeds, in decisions per second
SPEEDS = (1, 2, 3, 5, 8, 12, 20)

Answer = Callable[[Reply], bool]
UPLOAD_BROKEN = "Could not load that game; the current game is kept. The file did not arrive whole."


def why_not(game: Any, choice: Choice) -> str:
    """The engine's reason a choice is not allowed now ("" if it is)."""
    try:
        game.check(choice)
    except IllegalChoice as err:
        return err.reason
    return ""


def title_action_name(kind: str) -> str:
    return kind.replace("_", " ").capitalize()


def may_manage(kinds: tuple[str, ...]) -> bool:
    """True if a person who may choose `kinds` now may build, sell, mortgage or redeem."""
    return any(kind in kinds for kind in TITLE_ACTIONS)


def may_trade(kinds: tuple[str, ...]) -> bool:
    """True if a person who may choose `kinds` now may propose a trade."""
    return "trade" in kinds


class DecisionBar:
    """Who is to decide, and their choices as buttons that state the stakes. A choice the
    moment offers but the rules refuse (a title the player cannot afford, a fine they cannot
    pay) is shown disabled, with the engine's reason. Building, selling, mortgages and trades
    have panels of their own."""

    def __init__(self, session: Session, answer: Answer) -> None:
        self.session, self.answer = session, answer
        self.status = widgets.HTML()
        self.status.add_class("am-status")
        self.choices = widgets.HBox(layout=widgets.Layout(flex_flow="row wrap"))
        self.choices.add_class("am-choices")
        self.refused = widgets.HTML()
        self.refused.add_class("am-why-not")
        self.widget = widgets.VBox([self.status, self.choices, self.refused])

    def refresh(self, pending: Any) -> None:
        """Redraw for the decision pending now (`game.pending`, None once the game is over)."""
        session, game = self.session, self.session.game
        self.refused.value = ""
        if pending is None:
            winner = "nobody" if game.winner is None else game.names[game.winner]
            self.status.value = html_text("<b>Game over.</b> Winner: {}.", winner)
            self.choices.children = ()
            return
        seat = game.actor
        if session.bot_to_move:
            self.status.value = html_text(
                "{} <b>{}</b> is a bot ({}): press Step or Play.",
                pawn_html(game, seat, True),
                session.who(seat),
                bot_words(session.controller(seat)),
            )
            self.choices.children = ()
            return
        self.status.value = html_text(
            "{} <b>{}</b> to decide: {}.",
            pawn_html(game, seat, True),
            session.who(seat),
            PHASE_WORDS.get(pending.phase, str(pending.phase).replace("_", " ")),
        )
        moment = session.moment
        shown = [
            self._choice_button(choice, moment)
            for choice in game.legal_choices()
            if choice.kind not in TITLE_ACTIONS
        ]
        refused = self._refused(pending)
        for label, reason in refused:
            shown.append(
                widgets.Button(
                    description=label,
                    disabled=True,
                    tooltip=reason,
                    layout=widgets.Layout(width="auto"),
                )
            )
        self.choices.children = tuple(shown)
        self.refused.value = html_join(
            html_text("<div>{}: {}.</div>", label, reason) for label, reason in refused
        )

    def _refused(self, pending: Any) -> list[tuple[str, str]]:
        """The moment's own choices that the rules refuse now, with the engine's reason: the
        title on offer, and the fine of a held player."""
        game = self.session.game
        refused = []
        if pending.phase == "buy" and "buy" not in pending.kinds:
            space = game.board.spaces[game.state.pending_buy]
            refused.append((f"Buy {space.name} for ${space.price}", why_not(game, Choice("buy"))))
        if (
            pending.phase == "pre_roll"
            and game.is_held(game.actor)
            and "pay_fine" not in pending.kinds
        ):
            refused.append((f"Pay the ${game.rules.fine} fine", why_not(game, Choice("pay_fine"))))
        return [(label, reason) for label, reason in refused if reason]

    def _choice_button(self, choice: Choice, moment: int) -> widgets.Button:
        return button(
            choice_label(self.session.game, choice),
            lambda _: self.answer(self.session.decide(choice, moment)),
        )


class ManagePanel:
    """Build, sell, mortgage or redeem: pick one of your titles, and each button says what it
    costs or returns; a button the rules refuse is disabled, and the engine's reason is shown
    above the buttons ("Build: a Monopolist builds only in a monopolized city; ...")."""

    def __init__(self, session: Session, answer: Answer) -> None:
        self.session, self.answer = session, answer
        self.picker = widgets.Dropdown(description="Title", layout=widgets.Layout(width="320px"))
        self.picker.observe(lambda _: self._refresh_buttons(), names="value")
        self.buttons = {
            kind: button(title_action_name(kind), lambda _, k=kind: self._act(k))
            for kind in TITLE_ACTIONS
        }
        self.reasons = widgets.HTML()
        self.reasons.add_class("am-why-not")
        self._moment = -1
        self.available = False
        # the reasons come before the buttons: in the board's middle the panel has little
        # room, and a refused button's reason is what a lesson reads (issue 23)
        self.widget = widgets.VBox(
            [
                self.picker,
                self.reasons,
                widgets.HBox(
                    list(self.buttons.values()), layout=widgets.Layout(flex_flow="row wrap")
                ),
            ]
        )
        self.widget.add_class("am-manage")

    def refresh(self, kinds: tuple[str, ...] = ()) -> None:
        """Redraw for a person who may choose `kinds` now (none while a bot plays). Every
        title of the player to move is offered, so a refused action says why."""
        game = self.session.game
        self.available = may_manage(kinds)
        person = self.session.human_to_move
        titles = game.titles_of(game.actor) if person else []
        if not titles:
            if self.picker.options:
                self.picker.options = []
            self._disable()
            if person:
                self.reasons.value = html_text(
                    "<div>{} owns no titles yet.</div>", game.names[game.actor]
                )
            return
        options = [(game.board.spaces[space].name, space) for space in titles]
        if list(self.picker.options) != options:
            self.picker.options = options
        actionable = {space for kind in TITLE_ACTIONS for space in game.targets(kind)}
        if self.picker.value not in titles:
            first = next((space for space in titles if space in actionable), titles[0])
            self.picker.value = first
        self._refresh_buttons()

    def _refresh_buttons(self) -> None:
        game, space = self.session.game, self.picker.value
        self._moment = self.session.moment
        reasons = []
        for kind, shown in self.buttons.items():
            choice = Choice(kind, space) if space is not None else None
            reason = why_not(game, choice) if choice is not None else "choose a title"
            legal = choice is not None and not reason
            shown.disabled = not legal
            shown.description = (
                choice_label(game, choice) if legal and choice else title_action_name(kind)
            )
            shown.tooltip = reason or shown.description
            if reason and space is not None:
                reasons.append((title_action_name(kind), reason))
        self.reasons.value = html_join(
            html_text("<div><b>{}</b>: {}.</div>", name, reason) for name, reason in reasons
        )

    def _disable(self) -> None:
        for kind, shown in self.buttons.items():
            shown.disabled = True
            shown.description = title_action_name(kind)
            shown.tooltip = "you have no titles to manage now"
        self.reasons.value = ""

    def _act(self, kind: str) -> None:
        self.answer(self.session.decide(Choice(kind, self.picker.value), self._moment))


class TradePanel:
    """A trade offer: the partner, the titles to give and to get (without buildings), and the
    cash to pay (negative: to receive). A bot answers at once."""

    def __init__(self, session: Session, answer: Answer) -> None:
        self.session, self.answer = session, answer
        w = widgets
        self.partner = w.Dropdown(description="With", layout=w.Layout(width="200px"))
        self.partner.observe(lambda _: self._refresh_lists(), names="value")
        self.give = w.SelectMultiple(description="Give", rows=4, layout=w.Layout(width="260px"))
        self.get = w.SelectMultiple(description="Get", rows=4, layout=w.Layout(width="260px"))
        self.pay = w.IntText(
            description="Pay $",
            value=0,
            layout=w.Layout(width="180px"),
            tooltip="cash you pay; negative: cash you receive",
        )
        self.propose = button("Propose trade", lambda _: self._propose())
        self._moment = -1
        self.available = False
        self.offer = w.VBox(
            [w.HBox([self.partner, self.pay]), w.HBox([self.give, self.get]), self.propose]
        )
        self.not_now = w.HTML(NO_TRADE_NOW)
        self.widget = w.VBox([self.not_now, self.offer])

    def refresh(self, kinds: tuple[str, ...] = ()) -> None:
        """Redraw for a person who may choose `kinds` now (none while a bot plays)."""
        self.available = may_trade(kinds)
        self.offer.layout.display = "flex" if self.available else "none"
        self.not_now.layout.display = "none" if self.available else "flex"
        if not self.available:
            return
        game = self.session.game
        others = [p for p in range(len(game.names)) if not game.bankrupt[p] and p != game.actor]
        self.partner.options = [(game.names[p], p) for p in others]
        if others and self.partner.value not in others:
            self.partner.value = others[0]
        self._refresh_lists()

    def _refresh_lists(self) -> None:
        game = self.session.game

        def bare(player: int | None) -> list[tuple[str, int]]:
            if player is None:
                return []
            return [
                (game.board.spaces[s].name + (" (mortgaged)" if game.mortgaged[s] else ""), s)
                for s in game.titles_of(player)
                if not game.houses[s] and not game.apartment[s]
            ]

        self.give.options = bare(None if game.over else game.actor)
        self.get.options = bare(self.partner.value)
        self._moment = self.session.moment

    def _propose(self) -> None:
        partner = self.partner.value
        if partner is None:
            self.answer(Reply(False, "Choose a player to trade with.", "warning"))
            return
        offer = Trade(
            partner, tuple(self.give.value), tuple(self.get.value), int(self.pay.value or 0)
        )
        if self.answer(self.session.decide(Choice("trade", offer), self._moment)):
            self.pay.value = 0


class Controls:
    """Step, Play and Pause at a speed, Undo and Reset: bots decide by themselves, and
    whatever a person did can be taken back. Play's timer is the Play widget's, in the
    browser (so a slow kernel never piles up ticks); its own icons are hidden behind one
    button that says Play or Pause."""

    def __init__(self, session: Session, answer: Answer) -> None:
        self.session, self.answer = session, answer
        w = widgets
        self.step = button(
            "Step",
            lambda _: self.answer(session.step()),
            "the next decision: a bot decides for its seat",
        )
        self.play = w.Play(
            value=0,
            min=0,
            max=10**9,
            step=1,
            interval=500,
            show_repeat=False,
            layout=w.Layout(width="0px", visibility="hidden", overflow="hidden"),
        )
        self.play.add_class("am-play-timer")
        self.play.observe(lambda change: self._tick(), names="value")
        self.play.observe(lambda change: self._show_playing(), names="playing")
        self.play_pause = button(
            "▶ Play", lambda _: self.toggle(), "Play: bots decide by themselves, one by one"
        )
        self.play_pause.add_class("am-play")
        self.speed = w.SelectionSlider(
            options=[(f"{n} step{'s' if n > 1 else ''}/s", n) for n in SPEEDS],
            value=2,
            description="Speed",
            tooltip="how many decisions Play makes per second",
            continuous_update=False,
            layout=w.Layout(width="250px"),
        )
        self.speed.style.description_width = "initial"
        self.speed.observe(
            lambda change: setattr(self.play, "interval", int(1000 / change["new"])), names="value"
        )
        self.play.interval = int(1000 / self.speed.value)
        self.undo = button(
            "Undo", lambda _: self.answer(session.undo()), "take back the last decision"
        )
        self.reset = button(
            "Reset", lambda _: self.answer(session.reset()), "start this game again"
        )
        self.buttons = (self.step, self.play_pause, self.undo, self.reset)

    def toggle(self) -> None:
        """Play, or Pause if playing."""
        self.play.playing = not self.play.playing and not self.session.game.over

    def _show_playing(self) -> None:
        playing = self.play.playing
        self.play_pause.description = "❚❚ Pause" if playing else "▶ Play"
        self.play_pause.tooltip = (
            "Pause: stop after this decision"
            if playing
            else "Play: bots decide by themselves, one by one"
        )

    def refresh(self) -> None:
        if self.session.game.over:
            self.play.playing = False

    def _tick(self) -> None:
        """One tick of Play: a bot decides if it is a bot's turn; a person is waited for."""
        if self.session.game.over:
            self.play.playing = False
        elif self.session.bot_to_move:
            self.answer(self.session.step())


class GameFiles:
    """New game (seed, rules, players), save and load, and the scenarios. Save downloads to
    the computer in front of the screen and Load uploads from it; `paths=True` adds a File box
    that names a path on this machine (a notebook, never the served dashboard).

    New game draws a fresh seed unless another seed is typed in the Seed box, which always
    shows the seed of the game on screen, so a class can write it down and replay it.
    `toolbar` lists what a lesson reaches for (the scenarios, New game and the seed), built at
    once; `widget` holds the rest (rules, players, files), built the first time it is asked
    for (its closed panel opened): until then New game plays with the rules the app started
    with and the table's players, which is what the panel then shows."""

    def __init__(self, session: Session, answer: Answer, paths: bool) -> None:
        self.session, self.answer = session, answer
        w = widgets
        self.paths = paths
        self.seed = w.IntText(
            value=session.game.setup.seed,
            description="Seed",
            tooltip="the seed of this game; type another before New game to replay that one",
            style={"description_width": "initial"},
            layout=w.Layout(width="140px"),
        )
        self.seed.add_class("am-seed")
        preset = session.rules.preset_name
        # New game's rules until the panel is built and someone picks others there
        self.start_preset = preset if preset in preset_names() else "default"
        self.new = button(
            "New game",
            lambda _: self.answer(session.new_game(self.typed_seed(), *self.new_game_settings())),
            "a new game with a new seed (or the seed you typed), the Rules and the Players below",
        )
        names = session.scenario_names()
        self.scenario = w.Dropdown(
            options=[(name.replace("-", " "), name) for name in names],
            value=names[0] if names else None,
            description="Scenario",
            tooltip="a moment of a lesson, set up on the board",
            style={"description_width": "initial"},
            layout=w.Layout(width="280px"),
        )
        self.load_scenario = button(
            "Load scenario", lambda _: self.answer(session.load_scenario(self.scenario.value))
        )
        self.toolbar = (self.scenario, self.load_scenario, self.new, self.seed)
        self._panel: FilesPanel | None = None

    @property
    def panel(self) -> FilesPanel:
        """Rules and players for New game, save and load: built now if it was not."""
        if self._panel is None:
            self._panel = FilesPanel(self.session, self.answer, self.paths, self.start_preset)
        return self._panel

    @property
    def widget(self) -> widgets.Widget:
        return self.panel.widget

    # the panel's parts, for scripts and tests (each builds the panel, as opening it does)
    @property
    def preset(self) -> widgets.Dropdown:
        return self.panel.preset

    @property
    def players(self) -> widgets.Dropdown:
        return self.panel.players

    @property
    def download(self) -> DownloadButton:
        return self.panel.download

    @property
    def upload(self) -> widgets.FileUpload:
        return self.panel.upload

    @property
    def file(self) -> widgets.Text:
        return self.panel.file

    @property
    def save(self) -> widgets.Button:
        return self.panel.save

    @property
    def load(self) -> widgets.Button:
        return self.panel.load

    @property
    def buttons(self) -> tuple[widgets.Button, ...]:
        shown = (self.new, self.load_scenario)
        return (*shown, self.save, self.load) if self.paths else shown

    def new_game_settings(self) -> tuple[str, str]:
        """The rules and the players New game plays with: the panel's, once it is built."""
        if self._panel is None:
            return self.start_preset, TABLE_PLAYERS
        return self._panel.preset.value, self._panel.players.value

    def typed_seed(self) -> int | None:
        """The seed for New game: the one typed in the box, or None (a fresh one) while the
        box still shows the seed of the game on screen."""
        typed = self.seed.value
        return None if typed == self.session.game.setup.seed else int(typed)

    def refresh(self) -> None:
        self.seed.value = self.session.game.setup.seed


class FilesPanel:
    """The closed panel under the Play tab's charts: the rules and the players New game plays
    with (`preset`, starting at `start_preset`), Save (a download) and Load (an upload), and
    with `paths` a File box and its Save and Load buttons."""

    def __init__(self, session: Session, answer: Answer, paths: bool, start_preset: str) -> None:
        self.session, self.answer = session, answer
        w = widgets
        self.preset = w.Dropdown(
            options=preset_names(),
            value=start_preset,
            description="Rules",
            layout=w.Layout(width="260px"),
        )
        self.players = w.Dropdown(
            options=[
                (", ".join(name for name, _ in session.table), TABLE_PLAYERS),
                ("this game's players", GAME_PLAYERS),
            ],
            value=TABLE_PLAYERS,
            description="Players",
            layout=w.Layout(width="340px"),
        )
        self.download = DownloadButton(
            SAVE_FILENAME,
            session.save_text,
            description="Save (download)",
            tooltip="save this game as a file on your computer",
        )
        self.upload = w.FileUpload(
            accept=".json",
            multiple=False,
            description="Load (upload)",
            layout=w.Layout(width="auto"),
        )
        self.upload.observe(lambda change: self._uploaded(), names="value")
        file_row: list[widgets.Widget] = [self.download, self.upload]
        if paths:
            self.file = w.Text(
                value=SAVE_FILENAME, description="File", layout=w.Layout(width="260px")
            )
            self.save = button("Save", lambda _: self.answer(session.save(self.file.value)))
            self.load = button("Load", lambda _: self.answer(session.load(self.file.value)))
            file_row = [self.file, self.save, self.load, *file_row]
        self.widget = w.VBox(
            [
                w.HTML("<p>New game plays with these rules and players:</p>"),
                w.HBox([self.preset, self.players], layout=w.Layout(flex_flow="row wrap")),
                w.HBox(file_row, layout=w.Layout(flex_flow="row wrap")),
            ]
        )
        self.widget.add_class("am-files")

    def _uploaded(self) -> None:
        files = self.upload.value
        if not files:
            return
        self.upload.value = ()  # ready for the next file, even the same one again
        # the browser sends the file; a forged message may send anything in its place
        content = files[0].get("content") if isinstance(files[0], dict) else None
        if not isinstance(content, bytes | bytearray | memoryview):
            self.answer(Reply(False, UPLOAD_BROKEN, "error"))
            return
        self.answer(self.session.load(bytes(content)))


class Narration:
    """Every event as a sentence, newest first (the last `NARRATION_LINES`)."""

    def __init__(self, session: Session) -> None:
        self.cursor = session.cursor()
        self.lines: list[str] = []
        self._html: list[str] = []  # the lines as HTML, escaped once each
        self.widget = widgets.HTML()
        self.widget.add_class("am-narration")

    def refresh(self) -> None:
        events, restarted = self.cursor.take()
        if restarted:
            self.lines, self._html = [], []
        if not events and not restarted:
            return
        new = [event.text for event in events][::-1]
        self.lines = (new + self.lines)[:NARRATION_LINES]
        self._html = ([html_text("<div>{}</div>", line) for line in new] + self._html)[
            :NARRATION_LINES
        ]
        self.widget.value = "".join(self._html)
