"""A student's page in class play: join a room with its code and a name, then follow your own
table on a phone-sized screen (your cash and titles, whose turn it is, and on your turn only
your legal choices, each with its stakes). Everything a student does goes to the room's
`RoomTable`, where the engine and the shared log check it; the page never applies a rule."""

from __future__ import annotations

import contextlib
from typing import Any

import ipywidgets as widgets

from ..engine.board import ROLES
from ..render import (
    html_join,
    html_text,
    phone_html,
    phone_mine_html,
    phone_players_html,
    phone_reach_html,
)
from ..rooms import (
    HEARTBEAT_SECONDS,
    Follower,
    Refused,
    Rooms,
    RoomsUnavailable,
    RoomTable,
    Seat,
    open_rooms,
    unavailable_reply,
)
from ..rooms.limits import JOIN_WINDOW_SECONDS, PAGE_JOINS, Window
from ..rooms.phone_view import STATUS_BACKGROUNDS, clock, role_badge, status_line
from ..rooms.room import clean_code
from ..serving import when_page_known
from ..session import Change, Reply, choice_label
from .callback_errors import ProblemLine, report_callback_errors
from .keeper import SEAT_SPACE, BrowserMemory
from .live import Ticker, room_in_query
from .play_panels import (
    TITLE_ACTIONS,
    ManagePanel,
    Narration,
    TradePanel,
)
from .widgets import Messages, button

PHONE_WIDTH = "min(100%, 640px)"
STATUS_STYLE = (
    "font-size:18px;line-height:1.35;padding:8px 10px;border-radius:6px;margin:4px 0;"
    "background:{};border:1px solid #bbb"
)


def fit_to_phone(manage: ManagePanel, trade: TradePanel) -> None:
    """The build and trade panels' boxes as wide as the phone, never wider."""
    for box in (manage.picker, trade.partner, trade.pay, trade.give, trade.get):
        box.layout.width = "100%"
        box.layout.max_width = "100%"
        box.style.description_width = "3.6em"  # the boxes line up under each other


class StudentPage:
    """The page a join link opens. `code` comes from the link (`?room=...`); `rooms` is the
    class database (default: this server's, `amteach dashboard --rooms`)."""

    def __init__(self, code: str | None = None, rooms: Rooms | None = None) -> None:
        w = widgets
        self._rooms = rooms
        self.seat: Seat | None = None
        # the seat is this device's: its rejoin token is kept in the browser (one per room)
        self.tokens: dict[str, str] = {}
        self.memory = BrowserMemory(SEAT_SPACE, self._stored)
        self.joins = Window(PAGE_JOINS, JOIN_WINDOW_SECONDS)  # this page's presses of Join
        self.table: RoomTable | None = None
        self.follower: Follower | None = None
        self.messages = Messages()
        self.code = w.Text(
            description="Room",
            placeholder="the code on the projector",
            layout=w.Layout(width="260px"),
        )
        self.name = w.Text(
            description="Your name", placeholder="first name", layout=w.Layout(width="260px")
        )
        self.name.continuous_update = False
        self.prefers = w.ToggleButtons(
            options=[("I'd rather be a Competitor", "competitor"), ("a Monopolist", "monopolist")],
            value=None,
            description="By the dice:",
            layout=w.Layout(display="none"),
        )
        self.join_button = button("Join", lambda _: self.join())
        self.join_button.button_style = "primary"
        self.form = w.VBox(
            [
                w.HTML("<h2 style='margin:4px 0'>Anti-Monopoly: join your class</h2>"),
                self.code,
                self.name,
                self.prefers,
                self.join_button,
            ]
        )
        # the seat's view (its parts are built once the student has a seat: a join page
        # shows only the form, and the fewer widgets it sends, the sooner Join works)
        self.seat_view = w.VBox(layout=w.Layout(display="none"))
        self.seat_view_built = False
        self.widget = w.VBox(
            [self.form, self.messages.widget, self.seat_view, self.memory],
            layout=w.Layout(width=PHONE_WIDTH),
        )
        self.widget.add_class("am-student")
        self.ticker = Ticker(self.tick)
        self._shown: tuple[Any, ...] = ()  # the decision and the choices the buttons are for
        self.use_link_code(code)

    def use_link_code(self, code: str | None) -> None:
        """Fill in the room code a join link carries. A code that cannot be a room's (a
        mistyped or forged link) is not put in the box: one line says so, and the student
        types the code from the projector. A device that holds a seat in the room (its token
        arrived already) takes it back."""
        if code is None:
            return
        try:
            self.code.value = clean_code(code)
        except Refused:
            typed = "".join(code.split()).upper()
            shown = typed[:12] + ("…" if len(typed) > 12 else "")
            self.answer(
                Reply(
                    False,
                    f"The room code in this join link ({shown!r}) is not a room code. Type "
                    "the code shown on the projector.",
                    "warning",
                )
            )
            return
        self._rejoin_kept_seat()

    def _build_seat_view(self) -> None:
        """The parts of the seat's view, once, as the student first takes a seat: the status
        line, the choices, their cash and titles, the spaces around their pawn, the players,
        the button that takes the seat back from a bot, and the heartbeat that says the page
        is open."""
        if self.seat_view_built:
            return
        self.seat_view_built = True
        w = widgets
        self.status = w.HTML()
        self.status.add_class("am-student-status")
        self.choices = w.HBox(layout=w.Layout(flex_flow="row wrap"))
        self.choices.add_class("am-choices")
        self.mine = w.HTML(layout=w.Layout(width="100%"))
        self.take_back_button = button("Take my seat back", lambda _: self.take_back())
        self.take_back_button.layout.display = "none"
        self.board = w.HTML(layout=w.Layout(width="100%"))
        self.players = w.HTML(layout=w.Layout(width="100%", overflow="auto"))
        self.players.add_class("am-scroll")  # scrolled by keyboard too (the template)
        self.heartbeat = w.Play(
            value=0,
            min=0,
            max=10**9,
            interval=HEARTBEAT_SECONDS * 1000,
            layout=w.Layout(display="none"),
        )
        self.heartbeat.observe(lambda _: self.check_in(), names="value")
        self.widget.children = (*self.widget.children, self.heartbeat)

    @property
    def rooms(self) -> Rooms:
        if self._rooms is None:
            self._rooms = open_rooms()
        return self._rooms

    def answer(self, reply: Reply) -> bool:
        return self.messages.show(reply)

    # -- joining -------------------------------------------------------------------------------
    def join(self) -> bool:
        """Join with the code and name typed; one polite line if that cannot be done. A page
        holds one seat; a device that has a seat in the room gets it back (its token)."""
        try:
            if self.seat is not None:
                raise Refused(
                    f"This page already has a seat: {self.seat.name} at table "
                    f"{self.seat.table + 1}. One seat per page."
                )
            self.joins.check("Too many tries to join from this page.")
            self.joins.add()
            info = self.rooms.info(self.code.value)
            asks = info.settings.roles == "dice" and info.status == "lobby"
            if asks and self.prefers.layout.display == "none":
                self.prefers.layout.display = "flex"
                return self.answer(
                    Reply(
                        False,
                        "Roles are chosen by the dice: say which you would rather be, "
                        "then press Join again (or just press Join).",
                        "info",
                    )
                )
            seat = self.rooms.join(
                info.code, self.name.value, self.prefers.value, token=self.tokens.get(info.code)
            )
        except Refused as err:
            return self.answer(Reply(False, str(err), "warning"))
        except RoomsUnavailable as err:
            return self.answer(unavailable_reply(err))
        return self._seated(seat)

    def _stored(self, tokens: dict[str, str], _fragment: dict[str, str]) -> None:
        """The browser's kept tokens arrived (a reload, a lost connection): a device that has
        a seat in this page's room takes it back at once."""
        self.tokens = tokens
        self._rejoin_kept_seat()

    def _rejoin_kept_seat(self) -> None:
        code = self.code.value.strip().upper()
        if self.seat is not None or code not in self.tokens:
            return
        try:
            seat = self.rooms.rejoin(code, self.tokens[code])
        except Refused:  # freed by the teacher, or the class is over: the form stays
            self.memory.forget(code)
            return
        except RoomsUnavailable as err:
            self.answer(unavailable_reply(err))
            return
        self._seated(seat)

    def _seated(self, seat: Seat) -> bool:
        if seat.token:
            self.tokens[seat.code] = seat.token
            self.memory.remember(seat.code, seat.token)
        self.seat = seat
        self._build_seat_view()
        self.code.value = seat.code
        self.form.layout.display = "none"
        self.seat_view.layout.display = "flex"
        self.heartbeat.playing = True
        welcome = "Welcome back" if seat.returned else "Welcome"
        self.answer(Reply(True, f"{welcome}, {seat.name}: you play at table {seat.table + 1}."))
        self.follower = Follower(self.rooms, seat.code, [], wake=self.ticker.wake)
        self.tick()
        return True

    def check_in(self) -> None:
        """The page is open: the browser's heartbeat reached the kernel. A seat the teacher
        freed (or moved to a new device) is let go here."""
        if self.seat is not None:
            with contextlib.suppress(RoomsUnavailable):  # the next check-in will do
                if not self.rooms.holds(self.seat):
                    self.seat_lost()
                    return
                self.rooms.heartbeat(self.seat)

    def seat_lost(self) -> None:
        """The teacher took this device's seat away: back to the join form, one line why."""
        seat, self.seat = self.seat, None
        if self.follower is not None:
            self.follower.stop()
        self.follower = self.table = None
        if self.seat_view_built:
            self.heartbeat.playing = False
        if seat is not None:
            self.tokens.pop(seat.code, None)
            self.memory.forget(seat.code)
        self.seat_view.children = []
        self.seat_view.layout.display = "none"
        self.form.layout.display = "flex"
        self.answer(
            Reply(
                False,
                "Your teacher has given your seat to someone else (or to your new device). "
                "Ask your teacher if you should join again.",
                "warning",
            )
        )

    def take_back(self) -> bool:
        if self.seat is None:
            return False
        try:
            self.rooms.take_back(self.seat)
        except Refused as err:
            return self.answer(Reply(False, str(err), "warning"))
        except RoomsUnavailable as err:
            return self.answer(unavailable_reply(err))
        if self.follower is not None:
            self.follower.news.set()
        self.tick()
        return self.answer(Reply(True, "Your seat is yours again."))

    # -- following the table ----------------------------------------------------------------------
    def tick(self) -> None:
        """Catch up with the room; build the table once the games have started."""
        follower = self.follower
        if follower is None or self.seat is None:
            return
        if self.table is None:
            if not follower.news.is_set():
                return
            try:
                self.table = RoomTable(self.rooms, self.seat.code, self.seat.table, self.seat)
            except Refused:
                follower.news.clear()
                self.show_waiting()
                return
            except RoomsUnavailable as err:
                self.answer(unavailable_reply(err))
                return
            follower.tables.append(self.table)
            self.manage = ManagePanel(self.table, self.answer)
            self.trade = TradePanel(self.table, self.answer)
            self.narration = Narration(self.table)
            self.seat_view.children = self.phone_layout()
            self.table.subscribe(self._changed)
            self.refresh()
        before = self.table.info
        follower.tick()
        if follower.error:
            self.answer(
                Reply(
                    False,
                    "The class database cannot be reached; your game is safe and will go on "
                    "when it answers.",
                    "error",
                )
            )
        elif self.table.info.seconds_left() != before.seconds_left():
            self.refresh_status()

    def phone_layout(self) -> list[widgets.Widget]:
        """A phone's page, top to bottom: whose turn it is, then the student's own choices (and
        the build and trade panels, only while they may use them), then what just happened,
        then their cash and titles, then the spaces around their pawn and every player."""
        fit_to_phone(self.manage, self.trade)
        for panel, label in ((self.manage, "Build, sell or mortgage"), (self.trade, "Trade")):
            heading = widgets.HTML(html_text("<h2 class='am-ph-heading'>{}</h2>", label))
            panel.widget.children = (heading, *panel.widget.children)
            panel.widget.add_class("am-phone-panel")
            panel.widget.layout.display = "none"
        happened = widgets.HTML("<h2 class='am-ph-heading'>What happened (newest first)</h2>")
        return [
            self.status,
            self.choices,
            self.manage.widget,
            self.trade.widget,
            self.take_back_button,
            happened,
            self.narration.widget,
            self.mine,
            self.board,
            self.players,
        ]

    def show_waiting(self) -> None:
        rows = self.rooms.seats(self.seat.code, self.seat.table)
        names = html_join((html_text("<li>{}</li>", row.label) for row in rows), separator="")
        self.status.value = html_text(
            "<div style='" + STATUS_STYLE.format("#f4f4f4") + "'>You sit at <b>table {}</b>. "
            "Waiting for your teacher to start the games.<ul>{}</ul></div>",
            self.seat.table + 1,
            names,
        )
        self.seat_view.children = [self.status]

    def _changed(self, change: Change) -> None:
        self.refresh()

    def refresh(self) -> None:
        table = self.table
        if table is None:
            return
        game = table.game
        seat = table.seat
        self.board.value = phone_html(phone_reach_html(game, seat))
        self.players.value = phone_html(phone_players_html(game, seat))
        self.mine.value = phone_mine_html(game, seat)
        away = table.controller(seat) != "human" and not game.over
        self.take_back_button.layout.display = "flex" if away else "none"
        pending = game.pending
        mine = pending is not None and game.actor == seat and not away and table.playing
        kinds = pending.kinds if mine else ()
        offered = tuple(
            (choice, choice_label(game, choice))
            for choice in (game.legal_choices() if mine else ())
            if choice.kind not in TITLE_ACTIONS and choice.kind != "end_game"
        )
        # the same choices at the same decision keep their buttons (a seat's news or the clock
        # redraws the page), so a finger on its way to a button never finds it replaced
        shown = (len(game.decisions), offered)
        if shown != self._shown:
            self._shown = shown
            self.choices.children = tuple(
                self._choice_button(choice, label, len(game.decisions)) for choice, label in offered
            )
        self.manage.refresh(kinds)
        self.trade.refresh(kinds)
        # the panels only while the student may use them: never after the game, while paused,
        # on another player's turn, or in the final accounting for trades
        self.manage.widget.layout.display = "flex" if self.manage.available else "none"
        self.trade.widget.layout.display = "flex" if self.trade.available else "none"
        self.narration.refresh()
        self.refresh_status()

    def refresh_status(self) -> None:
        table = self.table
        if table is None:
            return
        game, seat, info = table.game, table.seat, table.info
        left = info.seconds_left()
        final = game.over or game.phase == "final_adjust"
        timer = f" · time left {clock(left)}" if left is not None and not final else ""
        text, kind = status_line(table, seat)
        colour = STATUS_BACKGROUNDS[kind]
        self.status.value = html_text(
            "<div style='" + STATUS_STYLE.format(colour) + "'>Table {} · <b>{}</b> {} · "
            "round {}{}<br>{}</div>",
            table.table_no + 1,
            game.names[seat],
            role_badge(game.roles[seat]),
            game.round,
            timer,
            text,
        )

    def _choice_button(self, choice: Any, label: str, decisions: int) -> widgets.Button:
        """A button for `choice`, good while the game has `decisions` decisions: pressed after
        another decision, it is stale and the table says so."""

        def press(_: Any) -> None:
            table = self.table
            fresh = len(table.game.decisions) == decisions
            self.answer(table.decide(choice, table.moment if fresh else -1))

        made = button(label, press)
        made.layout.min_height = "44px"  # a finger's width on a phone
        return made

    # -- for tests and scripts -------------------------------------------------------------------
    def buttons(self) -> dict[str, widgets.Button]:
        if not self.seat_view_built:
            return {}  # no seat yet: the join form only
        return {b.description: b for b in self.choices.children}

    @property
    def role(self) -> str | None:
        if self.table is None:
            return None
        return ROLES[self.table.game.roles[self.table.seat]]


class JoinPage:
    """The page a join link opens under `amteach dashboard` (notebooks/join.ipynb): a
    student's page with its own preheated pool. Its kernel builds the page while it waits in
    the pool, before any student comes; the room code in the link (`?room=CODE`) is filled in
    as the student arrives (`serving.when_page_known`). Above it, a hidden line shows if a
    widget callback fails; the traceback goes to the server's log, never to the page."""

    def __init__(self) -> None:
        self.student = StudentPage()
        self.problems = ProblemLine()
        self.shows_problems = report_callback_errors(self.problems)
        when_page_known(self.show)

    def show(self, query: str | None) -> None:
        """The visitor's address is known: fill in its room code."""
        self.student.use_link_code(room_in_query(query))

    def _ipython_display_(self) -> None:
        from IPython.display import display

        if self.shows_problems:
            display(self.problems.widget)
        display(self.student.widget)
