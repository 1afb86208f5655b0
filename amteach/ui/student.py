"""A student's page in class play: join a room with its code and a name, then follow your own
table on a phone-sized screen (your cash and titles, whose turn it is, and on your turn only
your legal choices, each with its stakes). Everything a student does goes to the room's
`RoomTable`, where the engine and the shared log check it; the page never applies a rule."""

from __future__ import annotations

import contextlib
from typing import Any

import ipywidgets as widgets

from ..engine.board import ROLES
from ..render import board_html, html_join, html_text, players_table_html
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
from ..session import Change, Reply, choice_label
from ..style import ROLE_COLOURS, ROLE_LABELS, ROLE_SHAPES
from .live import Ticker
from .play_panels import TITLE_ACTIONS, ManagePanel, Messages, Narration, TradePanel, button

PHONE_WIDTH = "min(100%, 640px)"
STATUS_STYLE = (
    "font-size:18px;line-height:1.35;padding:8px 10px;border-radius:6px;margin:4px 0;"
    "background:{};border:1px solid #bbb"
)


def role_badge(role: int) -> Any:
    return html_text(
        '<span style="color:{};font-weight:600">{} {}</span>',
        ROLE_COLOURS[role],
        ROLE_SHAPES[role],
        ROLE_LABELS[role],
    )


def clock(seconds: float | None) -> str:
    if seconds is None:
        return ""
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}:{rest:02d}"


class StudentPage:
    """The page a join link opens. `code` comes from the link (`?room=...`); `rooms` is the
    class database (default: this server's, `amteach dashboard --rooms`)."""

    def __init__(self, code: str | None = None, rooms: Rooms | None = None) -> None:
        w = widgets
        self._rooms = rooms
        self.seat: Seat | None = None
        self.table: RoomTable | None = None
        self.follower: Follower | None = None
        self.messages = Messages()
        self.code = w.Text(
            value=(code or "").strip().upper()[:12],
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
        self.status = w.HTML()
        self.choices = w.HBox(layout=w.Layout(flex_flow="row wrap"))
        self.choices.add_class("am-choices")
        self.mine = w.HTML()
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
        self.seat_view = w.VBox(layout=w.Layout(display="none"))
        self.widget = w.VBox(
            [self.form, self.messages.widget, self.seat_view, self.heartbeat],
            layout=w.Layout(width=PHONE_WIDTH),
        )
        self.widget.add_class("am-student")
        self.ticker = Ticker(self.tick)

    @property
    def rooms(self) -> Rooms:
        if self._rooms is None:
            self._rooms = open_rooms()
        return self._rooms

    def answer(self, reply: Reply) -> bool:
        return self.messages.show(reply)

    # -- joining -------------------------------------------------------------------------------
    def join(self) -> bool:
        """Join with the code and name typed; one polite line if that cannot be done."""
        try:
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
            seat = self.rooms.join(info.code, self.name.value, self.prefers.value)
        except Refused as err:
            return self.answer(Reply(False, str(err), "warning"))
        except RoomsUnavailable as err:
            return self.answer(unavailable_reply(err))
        self.seat = seat
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
        """The page is open: the browser's heartbeat reached the kernel."""
        if self.seat is not None:
            with contextlib.suppress(RoomsUnavailable):  # the next check-in will do
                self.rooms.heartbeat(self.seat)

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
            self.seat_view.children = [
                self.status,
                self.choices,
                self.manage.widget,
                self.trade.widget,
                self.take_back_button,
                self.mine,
                self.board,
                self.players,
                widgets.HTML("<b>What happened</b> (newest first)"),
                self.narration.widget,
            ]
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
        self.board.value = board_html(game, with_players=False)
        self.players.value = players_table_html(game)
        titles = [
            html_text(
                "{}{}",
                game.board.spaces[s].name,
                " (mortgaged)" if game.mortgaged[s] else "",
            )
            for s in game.titles_of(seat)
        ]
        self.mine.value = html_text(
            "<div style='font-size:17px;margin:4px 0'>{} · cash <b>${}</b> · titles: {}</div>",
            role_badge(game.roles[seat]),
            game.cash[seat],
            html_join(titles, ", ") if titles else "none yet",
        )
        away = table.controller(seat) != "human" and not game.over
        self.take_back_button.layout.display = "flex" if away else "none"
        pending = game.pending
        mine = pending is not None and game.actor == seat and not away and table.playing
        kinds = pending.kinds if mine else ()
        moment = table.moment
        self.choices.children = tuple(
            self._choice_button(choice, moment)
            for choice in (game.legal_choices() if mine else ())
            if choice.kind not in TITLE_ACTIONS and choice.kind != "end_game"
        )
        self.manage.refresh(kinds)
        self.trade.refresh(kinds)
        self.narration.refresh()
        self.refresh_status()

    def refresh_status(self) -> None:
        table = self.table
        if table is None:
            return
        game, seat, info = table.game, table.seat, table.info
        left = info.seconds_left()
        timer = f" · time left {clock(left)}" if left is not None and not game.over else ""
        if game.over:
            winner = "nobody" if game.winner is None else game.names[game.winner]
            text, colour = html_text("<b>Game over.</b> Winner: {}.", winner), "#f4f4f4"
        elif info.status == "paused":
            text, colour = html_text("<b>Paused</b> by your teacher."), "#fff4d6"
        elif info.status == "ended":
            text, colour = html_text("<b>The class has ended.</b>"), "#f4f4f4"
        elif table.controller(seat) != "human":
            text, colour = html_text("A bot is playing your seat while you are away."), "#fff4d6"
        elif game.actor == seat:
            phase = game.phase.replace("_", " ")
            text, colour = html_text("<b>Your turn</b> ({}): choose below.", phase), "#e3f4e7"
        else:
            text, colour = html_text("{}'s turn.", game.names[game.actor]), "#f4f4f4"
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

    def _choice_button(self, choice: Any, moment: int) -> widgets.Button:
        made = button(
            choice_label(self.table.game, choice),
            lambda _: self.answer(self.table.decide(choice, moment)),
        )
        made.layout.min_height = "40px"  # a finger's width on a phone
        return made

    # -- for tests and scripts -------------------------------------------------------------------
    def buttons(self) -> dict[str, widgets.Button]:
        return {b.description: b for b in self.choices.children}

    @property
    def role(self) -> str | None:
        if self.table is None:
            return None
        return ROLES[self.table.game.roles[self.table.seat]]
