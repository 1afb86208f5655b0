"""A room: a class's tables, who sits where, and the rules of the day, kept in the class
database (`store.py`). The instructor opens one (`Rooms.create`) and gets a short code;
students join with the code and a name (`Rooms.join`) and get a seat; bots play every seat
no student plays. Everything here is a few statements in one transaction, so any number of
kernels or servers can share a room.

A student is known by their name within the room: coming back with the same name gives the
same seat back. A name is "taken" only while its student is here (their page has checked in
within `PRESENT_SECONDS`); otherwise the seat goes to whoever comes back with it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import secrets
import unicodedata
from dataclasses import asdict, dataclass, fields
from typing import Any

from ..bots import STRATEGIES
from ..engine.board import ROLES
from ..engine.errors import AmteachError, InputError
from ..engine.rules import RuleSet, preset_names
from ..sim.play import game_seed
from .store import Store, Taken, now

# room codes: no 0/O, 1/I/L, so a code read off a projector is typed right
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
ROLE_MODES = ("alternating", "random", "dice")
ENDINGS = ("A", "B", "two-hour")
ENDING_LABELS = {"A": "Game A", "B": "Game B", "two-hour": "Two-hour game (timer)"}
# a page checks in every HEARTBEAT_SECONDS; a student seen within PRESENT_SECONDS is here
HEARTBEAT_SECONDS = 5
PRESENT_SECONDS = 20
MAX_NAME = 24
PIN_TRIES = 5  # wrong PINs in a row before the controls lock for PIN_LOCK_SECONDS
PIN_LOCK_SECONDS = 60
# room status
LOBBY, PLAYING, PAUSED, ENDED = "lobby", "playing", "paused", "ended"
# who made a decision: a student, a bot, or the two-hour game's timer (its end_game)
STUDENT, BOT, TIMER = "student", "bot", "timer"


class Refused(AmteachError):
    """A polite no: the sentence says why, for the person who asked."""


@dataclass(frozen=True)
class RoomSettings:
    """What the instructor chooses when opening a room."""

    tables: int = 6  # 1 to 20
    seats: int = 4  # seats per table, 2 to 6
    roles: str = "alternating"  # alternating, random, or dice (as in the rules)
    preset: str = "default"
    ending: str = "two-hour"  # A, B or two-hour
    minutes: int = 40  # the two-hour game's timer, 1 to 240
    round_cap: int = 40  # Game A and B: rounds before the final accounting, 5 to 1000
    absent_after: int = 120  # seconds away before a bot takes a student's seat, 20 to 3600
    bot: str = "investor"  # the bot that plays empty seats
    bot_delay: float = 1.0  # seconds a bot waits before it decides, 0 to 10
    seed: int = 0  # the room's master seed; table t plays game_seed(seed, t)

    def __post_init__(self) -> None:
        def whole(name: str, low: int, high: int) -> None:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise InputError(f"must be a whole number from {low} to {high}", field=name)

        whole("tables", 1, 20)
        whole("seats", 2, 6)
        whole("minutes", 1, 240)
        whole("round_cap", 5, 1000)
        whole("absent_after", 20, 3600)
        whole("seed", 0, 2**31 - 1)
        if self.roles not in ROLE_MODES:
            raise InputError(f"must be one of {', '.join(ROLE_MODES)}", field="roles")
        if self.ending not in ENDINGS:
            raise InputError(f"must be one of {', '.join(ENDINGS)}", field="ending")
        if self.preset not in preset_names():
            raise InputError(f"must be one of {', '.join(preset_names())}", field="preset")
        if self.bot not in STRATEGIES:
            raise InputError(f"must be one of {', '.join(STRATEGIES)}", field="bot")
        delay = self.bot_delay
        if isinstance(delay, bool) or not isinstance(delay, int | float) or not 0 <= delay <= 10:
            raise InputError("must be a number of seconds from 0 to 10", field="bot_delay")

    @classmethod
    def from_json(cls, text: str) -> RoomSettings:
        data = json.loads(text)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    def rules(self) -> RuleSet:
        """The rules every table plays: the preset, with the round cap for Game A and B."""
        rules = RuleSet.preset(self.preset)
        return rules.replace(round_cap=self.round_cap) if self.ending != "two-hour" else rules

    def table_seed(self, table: int) -> int:
        return game_seed(self.seed, table)


@dataclass(frozen=True)
class SeatRow:
    """One seat of a room, as the database has it."""

    table: int
    seat: int
    name: str | None  # the student's name, or None if no student ever sat here
    role: str | None  # None until the roles are assigned (by the dice: at the start)
    bot: str  # the bot that plays the seat when no student does
    playing: str  # STUDENT or BOT
    prefers: str | None
    roll: int | None
    last_seen: float | None

    @property
    def label(self) -> str:
        """The player's name in the game: the student's, or "Bot 3" for seat 3."""
        return self.name or f"Bot {self.seat + 1}"

    @property
    def student(self) -> bool:
        return self.playing == STUDENT

    def present(self, at: float | None = None) -> bool:
        """The student's page checked in lately."""
        seen = self.last_seen
        return seen is not None and (at or now()) - seen <= PRESENT_SECONDS

    def away_for(self, at: float | None = None) -> float | None:
        return None if self.last_seen is None else (at or now()) - self.last_seen


@dataclass(frozen=True)
class RoomInfo:
    code: str
    settings: RoomSettings
    status: str
    created: float
    started: float | None
    paused_at: float | None
    ends_at: float | None
    has_pin: bool

    def seconds_left(self, at: float | None = None) -> float | None:
        """The two-hour timer: seconds until time is up (frozen while paused)."""
        if self.ends_at is None:
            return None
        moment = self.paused_at if self.paused_at is not None else (at or now())
        return max(0.0, self.ends_at - moment)


@dataclass(frozen=True)
class Seat:
    """Where a student sits: their room, table and seat, and their name's key."""

    code: str
    table: int
    seat: int
    name: str
    key: str
    returned: bool = False  # the seat was theirs before (same name)


def name_key(name: str) -> str:
    """The form names are compared in: Unicode-normalized, case-folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def clean_name(name: Any) -> str:
    """A student's name as shown, or Refused saying what is wrong with it."""
    text = " ".join(unicodedata.normalize("NFKC", str(name or "")).split())
    if not text:
        raise Refused("Type your name first.")
    if len(text) > MAX_NAME:
        raise Refused(f"Please use a shorter name (at most {MAX_NAME} letters).")
    if any(unicodedata.category(c).startswith("C") for c in text):
        raise Refused("That name has characters that cannot be shown; please type it again.")
    key = name_key(text)
    if key.startswith("bot ") and key[4:].isdigit():
        raise Refused("Names like 'Bot 2' are kept for the bots; please use your own name.")
    return text


def clean_code(code: Any) -> str:
    """A room code as typed, in the form the database keeps: upper case, no spaces."""
    text = "".join(str(code or "").split()).upper()
    if not text:
        raise Refused("Type the room code first (it is on the projector).")
    if len(text) > 12 or any(c not in CODE_ALPHABET for c in text):
        raise Refused(f"There is no room {text[:12]!r}. Check the code on the projector.")
    return text


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _hash_pin(pin: str, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, 100_000)
    return f"{salt.hex()}:{digest.hex()}"


def _pin_matches(pin: str, stored: str) -> bool:
    salt, _ = stored.split(":")
    return hmac.compare_digest(_hash_pin(pin, bytes.fromhex(salt)), stored)


def role_plan(seats: int, mode: str, rng: random.Random) -> list[str]:
    """Each seat's role for the alternating and random modes: Competitor first, then turn
    about, at most one more of one role than the other (rule 3 and decision 13)."""
    plan = [ROLES[i % 2] for i in range(seats)]
    if mode == "random":
        rng.shuffle(plan)
    return plan


def roles_by_dice(preferences: list[str | None], rng: random.Random) -> tuple[list[str], list[int]]:
    """Rule 3: everyone throws two dice; the highest chooses a role first, then the next, as
    long as their role has room (the roles may differ by at most one). A seat without a
    preference (a bot, or a student who did not say) takes a role at random. Returns each
    seat's role and throw; equal throws are settled by throwing again."""
    n = len(preferences)
    throws = [rng.randint(1, 6) + rng.randint(1, 6) for _ in range(n)]
    again = [rng.random() for _ in range(n)]
    order = sorted(range(n), key=lambda s: (-throws[s], again[s]))
    room = {role: (n + 1) // 2 for role in ROLES}
    roles: list[str] = [""] * n
    for seat in order:
        wanted = preferences[seat] if preferences[seat] in ROLES else rng.choice(ROLES)
        role = wanted if room[wanted] > 0 else next(r for r in ROLES if r != wanted)
        room[role] -= 1
        roles[seat] = role
    return roles, throws


SEAT_COLUMNS = "table_no, seat, name, role, bot, playing, prefers, roll, last_seen"


class Rooms:
    """The rooms of one class database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- opening and reading a room ------------------------------------------------------------
    def create(self, settings: RoomSettings, pin: str | None = None) -> str:
        """Open a room; returns its code. Roles are set now, except by the dice (at the start)."""
        if pin is not None and pin != "":
            pin = str(pin).strip()
            if not 4 <= len(pin) <= 32:
                raise InputError("a PIN has 4 to 32 characters", field="pin")
        rng = random.Random(settings.seed)
        for _ in range(20):  # a code already in use is astronomically rare; try another
            code = new_code()
            try:
                with self.store.transaction() as tx:
                    tx.execute(
                        "INSERT INTO rooms (code, created, settings, pin_hash, status) "
                        "VALUES (?, ?, ?, ?, ?)",
                        (code, now(), settings.to_json(), _hash_pin(pin) if pin else None, LOBBY),
                    )
                    for table in range(settings.tables):
                        plan = (
                            role_plan(settings.seats, settings.roles, rng)
                            if settings.roles != "dice"
                            else [None] * settings.seats
                        )
                        for seat, role in enumerate(plan):
                            tx.execute(
                                "INSERT INTO seats (room, table_no, seat, role, bot, playing) "
                                "VALUES (?, ?, ?, ?, ?, ?)",
                                (code, table, seat, role, settings.bot, BOT),
                            )
                return code
            except Taken:
                continue
        raise Refused("Could not find a free room code; please try again.")  # pragma: no cover

    def info(self, code: str) -> RoomInfo:
        """The room `code`, or Refused if there is none."""
        code = clean_code(code)
        rows = self.store.query(
            "SELECT code, settings, status, created, started, paused_at, ends_at, pin_hash "
            "FROM rooms WHERE code = ?",
            (code,),
        )
        if not rows:
            raise Refused(f"There is no room {code}. Check the code on the projector.")
        code, settings, status, created, started, paused_at, ends_at, pin_hash = rows[0]
        return RoomInfo(
            code,
            RoomSettings.from_json(settings),
            status,
            created,
            started,
            paused_at,
            ends_at,
            pin_hash is not None,
        )

    def seats(self, code: str, table: int | None = None) -> list[SeatRow]:
        """The seats of a room (or of one of its tables), by table and seat."""
        sql = f"SELECT {SEAT_COLUMNS} FROM seats WHERE room = ?"
        params: tuple[Any, ...] = (code,)
        if table is not None:
            sql += " AND table_no = ?"
            params += (table,)
        rows = self.store.query(sql + " ORDER BY table_no, seat", params)
        return [SeatRow(*row) for row in rows]

    def check_pin(self, code: str, pin: str | None) -> None:
        """Refused unless `pin` opens the instructor's controls of room `code` (any PIN does
        for a room without one). Wrong PINs in a row lock the controls for a while."""
        info = self.info(code)
        if not info.has_pin:
            return
        with self.store.transaction() as tx:
            pin_hash, failures, locked_until = tx.query(
                "SELECT pin_hash, pin_failures, pin_locked_until FROM rooms WHERE code = ?",
                (info.code,),
            )[0]
            moment = now()
            if locked_until is not None and moment < locked_until:
                wait = int(locked_until - moment) + 1
                raise Refused(f"Too many wrong PINs; try again in {wait} seconds.")
            if pin and _pin_matches(str(pin).strip(), pin_hash):
                tx.execute("UPDATE rooms SET pin_failures = 0 WHERE code = ?", (info.code,))
                return
            failures += 1
            lock = moment + PIN_LOCK_SECONDS if failures >= PIN_TRIES else None
            tx.execute(
                "UPDATE rooms SET pin_failures = ?, pin_locked_until = ? WHERE code = ?",
                (0 if lock else failures, lock, info.code),
            )
        raise Refused("That PIN does not open this room's controls.")

    # -- students --------------------------------------------------------------------------------
    def join(self, code: str, name: str, prefers: str | None = None) -> Seat:
        """Seat a student. The same name gets the same seat back (unless its student is here
        now); a new name gets a free seat at the table with the fewest students. Refused:
        unknown code, a room that ended, a full room, a name in use."""
        code = clean_code(code)
        shown = clean_name(name)
        key = name_key(shown)
        prefers = prefers if prefers in ROLES else None
        info = self.info(code)
        if info.status == ENDED:
            raise Refused("This class has ended. Ask your teacher for the new code.")
        for _ in range(5):  # another student took the same free seat first: look again
            with self.store.transaction() as tx:
                tx.lock_room(code)
                rows = [
                    SeatRow(*row)
                    for row in tx.query(
                        f"SELECT {SEAT_COLUMNS} FROM seats WHERE room = ? ORDER BY table_no, seat",
                        (code,),
                    )
                ]
                moment = now()
                mine = [s for s in rows if s.name is not None and name_key(s.name) == key]
                if mine:
                    seat = mine[0]
                    if seat.student and seat.present(moment):
                        raise Refused(
                            f"Someone called {shown} is already playing in this room. If "
                            "that is you on another page, close it (or wait half a minute) and "
                            "join again; otherwise add your initial to your name."
                        )
                    tx.execute(
                        "UPDATE seats SET playing = ?, last_seen = ? "
                        "WHERE room = ? AND table_no = ? AND seat = ?",
                        (STUDENT, moment, code, seat.table, seat.seat),
                    )
                    tx.notify(code)
                    return Seat(code, seat.table, seat.seat, seat.name or shown, key, True)
                free = [s for s in rows if s.name is None]
                if not free:
                    raise Refused(
                        "This room is full: every seat has a student. Ask your teacher for a seat."
                    )
                students = {t: 0 for t in range(info.settings.tables)}
                for s in rows:
                    if s.name is not None:
                        students[s.table] += 1
                seat = min(free, key=lambda s: (students[s.table], s.table, s.seat))
                changed = tx.execute(
                    "UPDATE seats SET name = ?, name_key = ?, playing = ?, prefers = ?, "
                    "last_seen = ? WHERE room = ? AND table_no = ? AND seat = ? AND name IS NULL",
                    (shown, key, STUDENT, prefers, moment, code, seat.table, seat.seat),
                )
                if changed:
                    tx.notify(code)
                    return Seat(code, seat.table, seat.seat, shown, key)
        raise Refused("Many students are joining at once; please press Join again.")

    def heartbeat(self, seat: Seat) -> None:
        """The student's page is open (no notification: nobody needs to redraw for it)."""
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE seats SET last_seen = ? WHERE room = ? AND table_no = ? AND seat = ? "
                "AND name_key = ?",
                (now(), seat.code, seat.table, seat.seat, seat.key),
            )

    def take_back(self, seat: Seat) -> None:
        """A student takes their seat back from the bot that played it while they were away."""
        with self.store.transaction() as tx:
            changed = tx.execute(
                "UPDATE seats SET playing = ?, last_seen = ? WHERE room = ? AND table_no = ? "
                "AND seat = ? AND name_key = ?",
                (STUDENT, now(), seat.code, seat.table, seat.seat, seat.key),
            )
            if not changed:
                raise Refused("That seat is no longer yours; join again with your name.")
            tx.notify(seat.code)

    # -- the instructor ---------------------------------------------------------------------------
    def start(self, code: str) -> RoomInfo:
        """Start every table: roles by the dice if so chosen, the timer of a two-hour game."""
        info = self.info(code)
        if info.status != LOBBY:
            return info
        settings = info.settings
        with self.store.transaction() as tx:
            if settings.roles == "dice":
                rng = random.Random(settings.seed)
                for table in range(settings.tables):
                    seats = [
                        SeatRow(*row)
                        for row in tx.query(
                            f"SELECT {SEAT_COLUMNS} FROM seats WHERE room = ? AND table_no = ? "
                            "ORDER BY seat",
                            (info.code, table),
                        )
                    ]
                    roles, throws = roles_by_dice(
                        [s.prefers if s.name is not None else None for s in seats], rng
                    )
                    for s, role, throw in zip(seats, roles, throws, strict=True):
                        tx.execute(
                            "UPDATE seats SET role = ?, roll = ? "
                            "WHERE room = ? AND table_no = ? AND seat = ?",
                            (role, throw, info.code, table, s.seat),
                        )
            moment = now()
            ends_at = moment + 60 * settings.minutes if settings.ending == "two-hour" else None
            tx.execute(
                "UPDATE rooms SET status = ?, started = ?, ends_at = ? WHERE code = ? "
                "AND status = ?",
                (PLAYING, moment, ends_at, info.code, LOBBY),
            )
            tx.notify(info.code)
        return self.info(code)

    def pause(self, code: str) -> None:
        """Stop every table: no decision is taken until `resume`."""
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE rooms SET status = ?, paused_at = ? WHERE code = ? AND status = ?",
                (PAUSED, now(), code, PLAYING),
            )
            tx.notify(code)

    def resume(self, code: str) -> None:
        """Play on; the two-hour timer did not run while the room was paused."""
        with self.store.transaction() as tx:
            rows = tx.query(
                "SELECT paused_at, ends_at FROM rooms WHERE code = ? AND status = ?",
                (code, PAUSED),
            )
            if not rows:
                return
            paused_at, ends_at = rows[0]
            if ends_at is not None and paused_at is not None:
                ends_at += now() - paused_at
            tx.execute(
                "UPDATE rooms SET status = ?, paused_at = NULL, ends_at = ? WHERE code = ?",
                (PLAYING, ends_at, code),
            )
            tx.notify(code)

    def time_is_up(self, code: str) -> None:
        """Stop the two-hour timer at zero (the tables then start their final accounting)."""
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE rooms SET ends_at = ? WHERE code = ? AND ends_at IS NOT NULL",
                (now(), code),
            )
            tx.notify(code)

    def close(self, code: str) -> None:
        """The class is over: nobody can join or decide any more; the logs stay."""
        with self.store.transaction() as tx:
            tx.execute("UPDATE rooms SET status = ? WHERE code = ?", (ENDED, code))
            tx.notify(code)

    def set_playing(self, code: str, table: int, seat: int, playing: str) -> None:
        """Hand a seat to its bot (BOT) or back to its student (STUDENT, if it has one)."""
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE seats SET playing = ? WHERE room = ? AND table_no = ? AND seat = ? "
                "AND (? = 'bot' OR name IS NOT NULL)",
                (playing, code, table, seat, playing),
            )
            tx.notify(code)

    def replace_absent(self, code: str, absent_after: int) -> int:
        """Bots take the seats of students away longer than `absent_after` seconds; returns
        how many seats changed hands."""
        with self.store.transaction() as tx:
            changed = tx.execute(
                "UPDATE seats SET playing = ? WHERE room = ? AND playing = ? AND last_seen < ?",
                (BOT, code, STUDENT, now() - absent_after),
            )
            if changed:
                tx.notify(code)
        return changed

    # -- the decision logs ------------------------------------------------------------------------
    def decisions(self, code: str, table: int, after: int = 0) -> list[tuple[int, Any, int, str]]:
        """Decisions after number `after`: (number, choice as JSON data, seat, made_by)."""
        rows = self.store.query(
            "SELECT number, choice, seat, made_by FROM decisions "
            "WHERE room = ? AND table_no = ? AND number > ? ORDER BY number",
            (code, table, after),
        )
        return [(number, json.loads(choice), seat, by) for number, choice, seat, by in rows]

    def counts(self, code: str) -> dict[int, int]:
        """How many decisions each table has taken."""
        rows = self.store.query(
            "SELECT table_no, MAX(number) FROM decisions WHERE room = ? GROUP BY table_no", (code,)
        )
        return {table: count for table, count in rows}

    def append(
        self,
        code: str,
        table: int,
        number: int,
        seat: int,
        choice: Any,
        made_by: str,
        student_key: str | None = None,
    ) -> None:
        """Add decision `number` to a table's log. Taken if that number is there already
        (another device was first); Refused if the room is not playing, or the seat is not
        this student's (or this bot's) any more."""
        with self.store.transaction() as tx:
            status = tx.query("SELECT status FROM rooms WHERE code = ?", (code,))
            if not status:
                raise Refused(f"There is no room {code}.")
            if status[0][0] == PAUSED:
                raise Refused("The teacher has paused the game. Wait for it to go on.")
            if status[0][0] in (LOBBY, ENDED):
                raise Refused(
                    "The game has not started yet."
                    if status[0][0] == LOBBY
                    else "This class has ended; the game is closed."
                )
            if made_by in (STUDENT, BOT):
                rows = tx.query(
                    "SELECT playing, name_key FROM seats WHERE room = ? AND table_no = ? "
                    "AND seat = ?",
                    (code, table, seat),
                )
                playing, key = rows[0] if rows else (None, None)
                if made_by == STUDENT and (playing != STUDENT or key != student_key):
                    raise Refused(
                        "A bot is playing your seat now. Press 'Take my seat back' to play again."
                    )
                if made_by == BOT and playing != BOT:
                    raise Refused("A student plays that seat now.")
            elif made_by == TIMER:
                ends_at = tx.query("SELECT ends_at FROM rooms WHERE code = ?", (code,))[0][0]
                if choice != "end_game" or ends_at is None or ends_at > now():
                    raise Refused("Only the two-hour game's timer ends a game, when time is up.")
            else:
                raise Refused(f"Unknown decision maker {made_by!r}.")
            tx.execute(
                "INSERT INTO decisions (room, table_no, number, seat, choice, made_by, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (code, table, number, seat, json.dumps(choice), made_by, now()),
            )
            tx.notify(code, table)
