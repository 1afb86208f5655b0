"""Class play held by the server: every table's `Session` lives here, once per server, and a
student's phone holds only a view of its own seat (docs/class-play.md, "How it works").

A `Hub` is the server's side of the phone protocol (`PROTOCOL`). It runs on one thread of
its own (`amteach.serving.phones` hands it every message and a tick), so its tables need no
locks and the server's event loop only carries bytes. For each message from a phone it asks
the rooms and the engine, appends a decision to the log, and sends every phone of the table
the parts of its own seat's view that changed (`phone_view`). Phones cost a websocket each:
a lecture hall of 300 shares one process and one database connection.

- **Tables** are rebuilt from the log (a `RoomTable` with no seat of its own) when a room is
  playing, and dropped when their game is over and no phone watches them.
- **Bots, the two-hour timer and absent students** are moved by the server that holds the
  table's lease (`Lease`): with several servers on one PostgreSQL, exactly one drives a
  table's bots at a time; every server relays every move to its own phones.
- **Limits** (`PhoneLimits`, on by default): joins per device and per address, messages per
  connection; the server adds connections per address and device and a bounded send queue.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine.errors import AmteachError
from ..session import Reply
from .debrief import phone_part as debrief_part
from .limits import Window
from .names import Refused
from .phone_view import lobby_view, question_html, seat_view, status_html
from .questions import Question, answer_of, latest
from .questions import answer as record_answer
from .room import ENDED, LOBBY, Rooms, Seat, clean_code
from .store import RoomsUnavailable, Store
from .table import RoomTable, unavailable_reply

log = logging.getLogger("amteach.phones")

PROTOCOL = 1  # the phone protocol's version (docs/class-play.md, "The phone protocol")
# how often a server says a connected student is here (seconds; room.PRESENT_SECONDS is 20)
PRESENCE_SECONDS = 5.0
# how often the hub looks for rooms that play (to drive their bots) and tends absent students
SURVEY_SECONDS = 5.0
# the lines of "What happened" a table keeps for its phones
KEPT_LINES = 40
MAX_TEXT = 200  # the longest name, code or token a phone may send, in characters


@dataclass
class PhoneLimits:
    """What one client may do (docs/deploy.md says how to size them for a class behind one
    address). Joins are presses of Join (or of a moved seat's code) that reach the rooms."""

    joins_per_device: int = 6  # a minute
    joins_per_address: int = 300  # a minute: a lecture hall behind one NAT joins within it
    messages_per_second: int = 20  # per connection; more closes it
    answers_per_seat: int = 10  # a minute: a student changing their mind, not a script
    connections_per_address: int = 500
    connections_per_device: int = 4
    send_queue: int = 64  # messages a phone may have unsent before it is dropped


@dataclass(eq=False)
class Phone:
    """One phone's connection, as the hub sees it. `deliver(text)` is called from the hub's
    thread and must only queue the text for the connection's own loop."""

    device: str
    address: str
    deliver: Callable[[str], None]
    seat: Seat | None = None
    shown: dict[str, str] = field(default_factory=dict)  # the parts last sent
    closed: bool = False

    def send(self, message: dict[str, Any]) -> None:
        if not self.closed:
            self.deliver(encode(message))


def encode(message: dict[str, Any]) -> str:
    import json

    return json.dumps({"v": PROTOCOL, **message}, separators=(",", ":"))


class HubTable:
    """A table the server holds: its session, the phones that watch it, and the last lines of
    what happened, read once from the session's events for every phone."""

    def __init__(self, table: RoomTable) -> None:
        self.table = table
        self.phones: set[Phone] = set()
        self.cursor = table.cursor()
        self.lines: deque[str] = deque(maxlen=KEPT_LINES)
        self.changed = True
        self.seconds_left = -1  # the two-hour timer's, as the phones last saw it
        table.subscribe(self._changed)
        self.read_events()

    def _changed(self, _change: Any) -> None:
        self.changed = True

    def read_events(self) -> None:
        events, restarted = self.cursor.take()
        if restarted:
            self.lines.clear()
        for event in events:
            self.lines.appendleft(event.text)


class Lease:
    """Which tables this server drives (bots, the timer, absent students). With SQLite there
    is one server per file, so it drives every table; with PostgreSQL a session-level advisory
    lock per table, held on a connection of its own, so a server that dies frees its tables
    at once and another takes them at its next survey."""

    def __init__(self, store: Store, logger: logging.Logger = log) -> None:
        self.log = logger
        self.url = store.url
        self.postgres = self.url.startswith(("postgresql://", "postgres://"))
        self.connection: Any = None
        self.held: set[tuple[str, int]] = set()

    def holds(self, code: str, table: int) -> bool:
        if not self.postgres:
            return True
        key = (code, table)
        if key in self.held:
            return True
        try:
            if self.connection is None or self.connection.closed:
                import psycopg

                self.connection = psycopg.connect(self.url, autocommit=True, connect_timeout=5)
                self.held.clear()
            lock = int.from_bytes(
                hashlib.sha256(f"{code}:{table}".encode()).digest()[:8], "big", signed=True
            )
            got = self.connection.execute("SELECT pg_try_advisory_lock(%s)", (lock,)).fetchone()[0]
        except Exception as err:  # the database is away: drive nothing until it is back
            self.log.warning("table lease unavailable: %s", err)
            self.connection = None
            self.held.clear()
            return False
        if got:
            self.held.add(key)
            self.log.info("this server drives table %d of room %s", table + 1, code)
        return bool(got)

    def held_now(self, code: str, table: int) -> bool:
        """This server drives the table now (no database call: new leases are tried when a
        table is first held and at each survey)."""
        return not self.postgres or (code, table) in self.held

    def close(self) -> None:
        if self.connection is not None:
            with contextlib.suppress(Exception):
                self.connection.close()


class Hub:
    """The server's class play: phones, the tables they play and the limits. Every method runs
    on the hub's one thread (`amteach.serving.phones.HubThread`); `heard`, called by the
    store's watcher, is the only one safe from any thread."""

    def __init__(
        self,
        rooms: Rooms,
        limits: PhoneLimits | None = None,
        clock: Callable[[], float] = time.monotonic,
        logger: logging.Logger = log,
    ) -> None:
        self.log = logger
        self.rooms = rooms
        self.limits = limits or PhoneLimits()
        self.clock = clock
        self.tables: dict[tuple[str, int], HubTable] = {}
        self.phones: set[Phone] = set()
        self.lease = Lease(rooms.store, logger)
        self.device_joins: dict[str, Window] = {}
        self.address_joins: dict[str, Window] = {}
        # the questions the phones are shown (`refresh_questions`): each room's last question,
        # each seat's answer to it, and the answers each seat sent in the last minute
        self.asked: dict[str, Question | None] = {}
        self.answered: dict[tuple[str, int, int, int], int | float | None] = {}
        self.seat_answers: dict[tuple[str, int, int], Window] = {}
        self.news: set[str | None] = set()
        self.news_lock = threading.Lock()
        self.error: str | None = None
        self.last_presence = 0.0
        self.last_survey = -SURVEY_SECONDS
        self.stop_watching = rooms.store.watch(self.heard)

    # -- news from the database (any thread) ------------------------------------------------------
    def heard(self, news: str | None) -> None:
        with self.news_lock:
            self.news.add(news)

    def take_news(self) -> set[str | None]:
        with self.news_lock:
            news, self.news = self.news, set()
        return news

    # -- phones -----------------------------------------------------------------------------------
    def connect(self, phone: Phone) -> None:
        self.phones.add(phone)

    def disconnect(self, phone: Phone) -> None:
        """A phone's connection closed (a goodbye or not): nothing of it is kept."""
        phone.closed = True
        self.phones.discard(phone)
        for held in self.tables.values():
            held.phones.discard(phone)

    def receive(self, phone: Phone, message: Any) -> None:
        """One message from a phone (already parsed from JSON). Anything malformed gets one
        line naming what was wrong; nothing a phone sends reaches a traceback."""
        try:
            kind = message.get("type") if isinstance(message, dict) else None
            handler = {
                "hello": self.hello,
                "join": self.join,
                "claim": self.claim,
                "choose": self.choose,
                "take_back": self.take_back,
                "answer": self.answer,
            }.get(kind if isinstance(kind, str) else "")
            if handler is None:
                self.say(
                    phone,
                    Reply(False, "The page sent a message the server does not know.", "warning"),
                )
                return
            handler(phone, message)
        except RoomsUnavailable as err:
            self.say(phone, unavailable_reply(err))
        except AmteachError as err:  # Refused among them: a polite no
            self.say(phone, Reply(False, str(err), "warning"))
        except Exception:  # a bug of ours: the log has the traceback, the phone one line
            self.log.exception("a phone's message failed")
            self.say(phone, Reply(False, "Something went wrong on the server; try again.", "error"))

    def say(self, phone: Phone, reply: Reply) -> None:
        phone.send({"type": "message", "ok": reply.ok, "level": reply.level, "text": reply.message})

    def hello(self, phone: Phone, message: dict[str, Any]) -> None:
        """A page opened (or reconnected): with its device's token it goes back to its seat;
        otherwise it gets the join form for its link's room."""
        code = text_field(message, "room", required=False)
        token = text_field(message, "token", required=False)
        if code:
            try:
                code = clean_code(code)
                info = self.rooms.info(code)
            except Refused as err:
                # a mistyped or forged link: the form with an empty code box, and one line
                phone.send({"type": "form", "room": "", "asks_role": False})
                self.say(phone, Reply(False, link_refusal(code, err), "warning"))
                return
            if token:
                with contextlib.suppress(Refused):
                    self.seated(phone, self.rooms.rejoin(code, token))
                    return
                phone.send({"type": "forget", "room": code})
            phone.send(
                {
                    "type": "form",
                    "room": code,
                    "asks_role": info.settings.roles == "dice" and info.status == LOBBY,
                    "asks_id": info.settings.ask_student_id,
                }
            )
            return
        phone.send({"type": "form", "room": "", "asks_role": False})

    def _count_join(self, phone: Phone) -> None:
        limits = self.limits
        device = self.device_joins.setdefault(
            phone.device, Window(limits.joins_per_device, 60, self.clock)
        )
        address = self.address_joins.setdefault(
            phone.address, Window(limits.joins_per_address, 60, self.clock)
        )
        device.check("Too many tries to join from this device.")
        address.check("Too many tries to join from this network.")
        device.add()
        address.add()

    def join(self, phone: Phone, message: dict[str, Any]) -> None:
        if phone.seat is not None:
            raise Refused(
                f"This page already has a seat: {phone.seat.name} at table "
                f"{phone.seat.table + 1}. One seat per page."
            )
        code = clean_code(text_field(message, "room"))
        name = text_field(message, "name", required=False) or ""
        prefers = message.get("prefers")
        prefers = prefers if prefers in ("competitor", "monopolist") else None
        token = text_field(message, "token", required=False)
        # checked by the rooms (names.clean_student_id) when the room asks for one
        student_id = message.get("student_id")
        self._count_join(phone)
        seat = self.rooms.join(code, name, prefers, token=token, student_id=student_id)
        self.seated(phone, seat)

    def claim(self, phone: Phone, message: dict[str, Any]) -> None:
        """A student's new device takes their seat with the one-time code the teacher gave."""
        if phone.seat is not None:
            raise Refused("This page already has a seat. One seat per page.")
        code = clean_code(text_field(message, "room"))
        move_code = text_field(message, "code")
        self._count_join(phone)
        self.seated(phone, self.rooms.claim_moved(code, move_code))

    def seated(self, phone: Phone, seat: Seat) -> None:
        phone.seat, phone.shown = seat, {}
        # the seat may have answered from another server meanwhile: read its answers again
        for key in [
            k for k in self.answered if k[0] == seat.code and k[2:] == (seat.table, seat.seat)
        ]:
            del self.answered[key]
        welcome = "Welcome back" if seat.returned else "Welcome"
        phone.send(
            {
                "type": "seated",
                "room": seat.code,
                "token": seat.token,
                "name": seat.name,
                "table": seat.table + 1,
                "text": f"{welcome}, {seat.name}: you play at table {seat.table + 1}.",
            }
        )
        self.heard(seat.code)  # classmates waiting at the table see the new name
        self.show(phone)

    def choose(self, phone: Phone, message: dict[str, Any]) -> None:
        """A student's choice for their own seat: the engine checks it, the log takes it, and
        every phone of the table sees it."""
        if phone.seat is None:
            raise Refused("This page has no seat yet: join first.")
        held = self.table_of(phone)
        if held is None:
            raise Refused("The game has not started yet: wait for your teacher to start it.")
        table, seat = held.table, phone.seat
        assert seat is not None
        at = message.get("at")
        if isinstance(at, bool) or not isinstance(at, int) or at != len(table.game.decisions):
            self.say(
                phone,
                Reply(
                    False,
                    "That button was for an earlier moment of the game; here are the current choices.",
                    "warning",
                ),
            )
            self.show(phone)
            return
        choice = message.get("choice")
        table.student = seat
        try:
            reply = table.decide(choice)
        finally:
            table.student = None
        if not reply.ok:
            self.say(phone, reply)
        self.push(held)

    def take_back(self, phone: Phone, _message: dict[str, Any]) -> None:
        if phone.seat is None:
            raise Refused("This page has no seat yet: join first.")
        try:
            self.rooms.take_back(phone.seat)
        except Refused:
            self.lost(phone)
            return
        held = self.table_of(phone)
        if held is not None:
            held.table.sync()
            self.push(held)
        self.heard(phone.seat.code)
        self.say(phone, Reply(True, "Your seat is yours again."))

    # -- questions from the teacher ---------------------------------------------------------------
    def answer(self, phone: Phone, message: dict[str, Any]) -> None:
        """A student's answer to the room's open question: checked and kept by the rooms
        (`questions.answer`), then shown back on their phone. At most `answers_per_seat` a
        minute per seat, besides the connection's messages per second."""
        seat = phone.seat
        if seat is None:
            raise Refused("This page has no seat yet: join first.")
        window = self.seat_answers.setdefault(
            (seat.code, seat.table, seat.seat), Window(self.limits.answers_per_seat, 60, self.clock)
        )
        window.check("You have sent many answers in a minute; your last one is kept.")
        window.add()
        try:
            kept = record_answer(self.rooms, seat, message.get("question"), message.get("answer"))
        except Refused:  # closed meanwhile, perhaps: the phone shows the question as it is
            self.asked[seat.code] = latest(self.rooms, seat.code)
            self.send_view(phone, {"question": self.question_part(seat)})
            raise
        question = self.asked.get(seat.code)
        if question is None or question.number != kept.question:
            self.asked[seat.code] = question = latest(self.rooms, seat.code)
        self.answered[(seat.code, kept.question, seat.table, seat.seat)] = kept.value
        self.send_view(phone, {"question": self.question_part(seat)})
        if question is not None and question.number == kept.question:
            self.say(phone, Reply(True, f"Your answer is in: {question.show(kept.value)}."))

    def question_part(self, seat: Seat) -> str:
        """The `question` part of a seat's view: the room's last question and the seat's own
        answer, from what the hub keeps (read once when first needed)."""
        if seat.code not in self.asked:
            self.asked[seat.code] = latest(self.rooms, seat.code)
        question = self.asked[seat.code]
        if question is None or question.number is None:
            return ""
        key = (seat.code, question.number, seat.table, seat.seat)
        if key not in self.answered:
            self.answered[key] = answer_of(self.rooms, *key)
        return str(question_html(question, self.answered[key]))

    def refresh_questions(self, rooms: set[str] | None) -> None:
        """A room's news may be a question posed or closed (by the Class tab, from any
        process): read the last question of each room with news (None: every room) that has
        seated phones, and show it on every phone of the room if it changed."""
        seated: dict[str, list[Phone]] = {}
        for phone in self.phones:
            if phone.seat is not None and (rooms is None or phone.seat.code in rooms):
                seated.setdefault(phone.seat.code, []).append(phone)
        for code, phones in seated.items():
            known, before = code in self.asked, self.asked.get(code)
            question = self.asked[code] = latest(self.rooms, code)
            if known and (before, getattr(before, "closed_at", None)) == (
                question,
                getattr(question, "closed_at", None),
            ):
                continue
            for phone in phones:
                assert phone.seat is not None
                self.send_view(phone, {"question": self.question_part(phone.seat)})

    def lost(self, phone: Phone) -> None:
        """The teacher gave this device's seat away: back to the join form, one line why."""
        seat, phone.seat, phone.shown = phone.seat, None, {}
        for held in self.tables.values():
            held.phones.discard(phone)
        phone.send({"type": "forget", "room": seat.code if seat else ""})
        asks_id = False
        if seat is not None:
            with contextlib.suppress(Refused):
                asks_id = self.rooms.info(seat.code).settings.ask_student_id
        phone.send(
            {
                "type": "form",
                "room": seat.code if seat else "",
                "asks_role": False,
                "asks_id": asks_id,
            }
        )
        self.say(
            phone,
            Reply(
                False,
                "Your teacher has given your seat to someone else (or to your new device). "
                "Ask your teacher if you should join again.",
                "warning",
            ),
        )

    # -- tables -----------------------------------------------------------------------------------
    def table_of(self, phone: Phone) -> HubTable | None:
        seat = phone.seat
        if seat is None:
            return None
        held = self.hold(seat.code, seat.table)
        if held is not None:
            held.phones.add(phone)
        return held

    def hold(self, code: str, table: int) -> HubTable | None:
        """The table, rebuilt from the log the first time; None before the games start."""
        key = (code, table)
        held = self.tables.get(key)
        if held is None:
            try:
                held = HubTable(RoomTable(self.rooms, code, table))
            except Refused:
                return None
            self.tables[key] = held
            self.lease.holds(code, table)  # drive it if no other server does
        return held

    def show(self, phone: Phone) -> None:
        """Send the phone the parts of its view that changed since it was last sent."""
        seat = phone.seat
        if seat is None or phone.closed:
            return
        held = self.table_of(phone)
        if held is None:
            info = self.rooms.info(seat.code)
            view = lobby_view(
                self.rooms.seats(seat.code, seat.table), seat.table, info.status, info.settings
            )
        else:
            view = seat_view(held.table, seat.seat, list(held.lines))
            view["debrief"] = debrief_part(held.table, seat.seat)  # "" until the game is over
        view["question"] = self.question_part(seat)
        self.send_view(phone, view)

    def send_view(self, phone: Phone, view: dict[str, str]) -> None:
        changed = {part: html for part, html in view.items() if phone.shown.get(part) != html}
        if changed:
            phone.shown.update(changed)
            phone.send({"type": "view", "parts": changed})

    def push(self, held: HubTable) -> None:
        held.read_events()
        held.changed = False
        for phone in list(held.phones):
            self.show(phone)

    # -- the clock --------------------------------------------------------------------------------
    def tick(self) -> None:
        """Read the database's news, let bots move, start the timer's accounting, keep
        students present, and send every phone what changed. Runs every fraction of a second
        and whenever news arrives."""
        try:
            self._tick()
            self.error = None
        except RoomsUnavailable as err:
            self.heard(None)  # read everything again once the database answers
            if self.error is None:
                for phone in list(self.phones):
                    self.say(phone, unavailable_reply(err))
            self.error = str(err)

    def _tick(self) -> None:
        moment = self.clock()
        news = self.take_news()
        if moment - self.last_survey >= SURVEY_SECONDS:
            self.last_survey = moment
            self.survey()
            news.add(None)
        everything = None in news
        whole_rooms = {n for n in news if n and ":" not in n}
        tables_with_news = {n for n in news if n and ":" in n}

        def has_news(code: str, number: int) -> bool:
            return everything or code in whole_rooms or f"{code}:{number}" in tables_with_news

        self.refresh_questions(None if everything else whole_rooms)

        self.show_lobbies(has_news)
        # the database's news, read once per room: SQLite says only that something changed
        # (this server's own writes included), PostgreSQL which room or which table
        rooms = {code for code, _ in self.tables} if everything else whole_rooms
        for code in rooms:
            self.catch_up_room(code)
        for (code, number), held in list(self.tables.items()):
            table = held.table
            if code not in rooms and f"{code}:{number}" in tables_with_news:
                table.catch_up()
            if self.lease.held_now(code, number):
                self.drive(table)
            if held.changed:
                self.push(held)
            elif table.playing and table.info.ends_at is not None:
                # the two-hour timer: each phone's status line once a second, nothing else
                left = int(table.info.seconds_left() or 0)
                if left != held.seconds_left:
                    held.seconds_left = left
                    for phone in list(held.phones):
                        if phone.seat is not None:
                            status = {"status": status_html(table, phone.seat.seat)}
                            self.send_view(phone, status)
            if table.game.over and not held.phones:
                del self.tables[(code, number)]
        if moment - self.last_presence >= PRESENCE_SECONDS:
            self.last_presence = moment
            self.presence()

    def show_lobbies(self, has_news: Callable[[str, int], bool]) -> None:
        """Seated phones whose table is not held yet (the games have not started): the room's
        news may be the start, or a classmate joining; each table is read once."""
        waiting: dict[tuple[str, int], list[Phone]] = {}
        for phone in self.phones:
            seat = phone.seat
            if seat is None:
                continue
            held = self.tables.get((seat.code, seat.table))
            # a table held since (the survey found the room playing), or the room's news
            if (held is not None and phone not in held.phones) or (
                held is None and has_news(seat.code, seat.table)
            ):
                waiting.setdefault((seat.code, seat.table), []).append(phone)
        for (code, number), phones in waiting.items():
            held = self.hold(code, number)
            if held is not None:
                held.phones.update(phones)
                self.push(held)
                continue
            info = self.rooms.info(code)
            view = lobby_view(self.rooms.seats(code, number), number, info.status, info.settings)
            for phone in phones:
                assert phone.seat is not None
                self.send_view(phone, {**view, "question": self.question_part(phone.seat)})

    def catch_up_room(self, code: str) -> None:
        """The room's status, seats and decision counts in three reads, then each held table
        of it reads only what differs."""
        held = [(number, h) for (room, number), h in self.tables.items() if room == code]
        if not held:
            return
        info = self.rooms.info(code)
        rows = self.rooms.seats(code)
        counts = self.rooms.counts(code)
        for number, table in held:
            mine = [row for row in rows if row.table == number]
            table.table.sync_with(info, mine, counts.get(number, 0))

    def drive(self, table: RoomTable) -> None:
        """This server drives the table: the timer's accounting when time is up, and a bot's
        move when it has waited the room's delay."""
        if not table.playing:
            return
        if table.info.settings.ending == "two-hour" and table.info.seconds_left() == 0:
            table.end_game()
        table.drive()

    def presence(self) -> None:
        """Connected students are here (what the instructor's grid shows, and what keeps a bot
        off their seat)."""
        seated = [phone for phone in self.phones if phone.seat is not None]
        if not seated:
            return
        held = self.rooms.heartbeat_all([phone.seat for phone in seated])
        for phone, holds in zip(seated, held, strict=True):
            if not holds:  # the teacher freed or moved the seat
                self.lost(phone)

    def survey(self) -> None:
        """Hold every table of every playing room, so their bots move with no phone open (a
        server restarted mid-class); let tables of ended rooms go; hand seats of students away
        too long to bots; forget the join counts of clients quiet for a minute (a script that
        drops its cookie makes a new device each time: memory stays flat)."""
        for windows in (self.device_joins, self.address_joins, self.seat_answers):
            for client, window in list(windows.items()):
                if window.wait() == 0 and not window.events:
                    del windows[client]
        for code in self.rooms.playing_rooms():
            info = self.rooms.info(code)
            for number in range(info.settings.tables):
                if self.lease.holds(code, number):
                    self.hold(code, number)
            if self.lease.holds(code, 0):
                self.rooms.replace_absent(code, info.settings.absent_after)
        for key, held in list(self.tables.items()):
            if held.table.info.status == ENDED and not held.phones:
                del self.tables[key]
        # the questions of rooms no phone of this server shows any more
        watched = {phone.seat.code for phone in self.phones if phone.seat is not None}
        for code in [code for code in self.asked if code not in watched]:
            del self.asked[code]
        for key in [key for key in self.answered if key[0] not in watched]:
            del self.answered[key]

    def close(self) -> None:
        self.stop_watching()
        self.lease.close()


def link_refusal(code: str, err: Refused) -> str:
    """What a page opened by a join link whose code is no room's says (the student types the
    code from the projector in the form below)."""
    typed = "".join(code.split()).upper()
    try:
        clean_code(typed)
    except Refused:
        shown = typed[:12] + ("…" if len(typed) > 12 else "")
        return (
            f"The room code in this join link ({shown!r}) is not a room code. Type the code "
            "shown on the projector."
        )
    return str(err)


def text_field(message: dict[str, Any], name: str, required: bool = True) -> str | None:
    """A short text a phone sent, or one clear refusal naming it."""
    value = message.get(name)
    if value is None or value == "":
        if required:
            raise Refused(f"The page sent no {name}.")
        return None
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise Refused(f"The page sent a {name} that is not a short text.")
    return value


__all__ = ["PROTOCOL", "Hub", "HubTable", "Lease", "Phone", "PhoneLimits", "encode"]
