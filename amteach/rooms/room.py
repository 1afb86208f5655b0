"""A room: a class's tables, who sits where, and the rules of the day, kept in the class
database (`store.py`). The instructor opens one (`Rooms.create`) and gets a short code;
students join with the code and a name (`Rooms.join`) and get a seat; bots play every seat
no student plays. Everything here is a few statements in one transaction, so any number of
kernels or servers can share a room.

Who may do what (docs/class-play.md has the table):
- Opening a room makes an *instructor key*, a random secret of 192 bits that only the
  instructor's page holds; the database keeps its SHA-256 hash. Every control and download
  needs the key (and the PIN, if the room has one). Checking them writes nothing, and the
  PIN's PBKDF2 runs outside any transaction; wrong guesses are throttled per page
  (`limits.Window`), never per room, so nobody can lock the instructor out.
- A seat is bound to the device that joined: joining gives the device a random *rejoin
  token* (kept in its browser), and the seat keeps the token's hash. Coming back with the
  token gives the seat back; typing the same name on another device does not, ever. The
  instructor can free a seat (remove the student, clear a table or every unplayed seat) or
  move it to a new device with a one-time *move code* (`move_seat`, `claim_moved`): six
  digits, kept hashed, good for MOVE_CODE_MINUTES, and wrong guesses are limited per room.
- The instructor can lock joining (rejoining and moved seats still work) and replace the
  instructor key (the old one stops working at once).
- Opening rooms is limited per hour: per page (the Class tab), per client (`opened_by`)
  and per class database (limits.py).
- Rooms are deleted with their seats and decisions `keep_days` after they were opened
  (`KEEP_DAYS`, or the environment's AMTEACH_ROOMS_KEEP_DAYS), and a room nobody used (no
  student ever joined, or no decision was ever made) UNUSED_KEEP_HOURS after; never within
  an hour of being closed, so a closed class can be reopened.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import random
import secrets
import unicodedata
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ..bots import STRATEGIES
from ..engine.board import ROLES
from ..engine.errors import InputError
from ..engine.rules import RuleSet, preset_names
from ..sim.play import game_seed
from . import limits
from .names import (
    Refused,
    clean_name,
    clean_student_id,
    look_alike,
    same_name,
    skeleton,
    student_id_key,
)
from .rule_sets import (
    ASSIGNMENTS,
    BALANCED,
    BY_HAND,
    MAX_RULE_SETS,
    SAME,
    RuleSetChoice,
    as_written,
    balanced,
)
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
# rooms are kept this many days after they are opened (AMTEACH_ROOMS_KEEP_DAYS overrides)
KEEP_DAYS = 14
KEEP_DAYS_ENV = "AMTEACH_ROOMS_KEEP_DAYS"
REOPEN_SECONDS = 3600  # a closed room is kept at least this long, so it can be reopened
# a room nobody used (no student ever joined, or no decision was ever made) goes this many
# hours after it was opened, whatever keep_days says: an abandoned or scripted room
UNUSED_KEEP_HOURS = 24
# a seat moved to a new device waits this long for its one-time code (MOVE_CODE_DIGITS)
MOVE_CODE_DIGITS = 6
MOVE_CODE_MINUTES = 15
# seats one room may hand out in a minute (a lecture hall of 300 joins within it)
ROOM_JOINS_PER_MINUTE = 300
KEY_BYTES = 24  # the instructor key: 192 random bits
TOKEN_BYTES = 18  # a device's rejoin token: 144 random bits
# room status
LOBBY, PLAYING, PAUSED, ENDED = "lobby", "playing", "paused", "ended"
# who made a decision: a student, a bot, or the two-hour game's timer (its end_game)
STUDENT, BOT, TIMER = "student", "bot", "timer"


@dataclass(frozen=True)
class RoomSettings:
    """What the instructor chooses when opening a room."""

    tables: int = 6  # 1 to 60 (a lecture hall of 300 at tables of 5)
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
    # treatments (rule_sets.py): the rule sets the tables play (none: `preset` as written at
    # every table), how tables get them (same, balanced, by_hand) and, by hand, each table's
    treatments: tuple[RuleSetChoice, ...] = ()
    assignment: str = SAME
    by_hand: tuple[int, ...] = ()
    # the join form also asks for a student ID or email, for the gradebook (gradebook.py)
    ask_student_id: bool = False

    def __post_init__(self) -> None:
        def whole(name: str, low: int, high: int) -> None:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise InputError(f"must be a whole number from {low} to {high}", field=name)

        whole("tables", 1, 60)
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
        if not isinstance(self.ask_student_id, bool):
            raise InputError("must be true or false", field="ask_student_id")
        delay = self.bot_delay
        if isinstance(delay, bool) or not isinstance(delay, int | float) or not 0 <= delay <= 10:
            raise InputError("must be a number of seconds from 0 to 10", field="bot_delay")
        self._check_treatments()

    def _check_treatments(self) -> None:
        """The rule sets and how tables get them, as one InputError naming the field."""
        given = self.treatments
        if not isinstance(given, list | tuple) or len(given) > MAX_RULE_SETS:
            raise InputError(
                f"must be a list of at most {MAX_RULE_SETS} rule sets", field="treatments"
            )
        treatments = tuple(RuleSetChoice.from_dict(item) for item in given)
        object.__setattr__(self, "treatments", treatments)  # JSON's lists, as rule sets
        if len({t.key for t in treatments}) != len(treatments):
            raise InputError("two rule sets have the same key", field="treatments")
        if self.assignment not in ASSIGNMENTS:
            raise InputError(f"must be one of {', '.join(ASSIGNMENTS)}", field="assignment")
        count = len(self.rule_sets())
        if self.assignment == SAME and count != 1:
            raise InputError("one rule set for every table takes one rule set", field="treatments")
        if self.assignment == BALANCED and count < 2:
            raise InputError("balancing needs at least two rule sets", field="treatments")
        hand = self.by_hand
        if not isinstance(hand, list | tuple):
            raise InputError("must be a list of rule sets, one a table", field="by_hand")
        object.__setattr__(self, "by_hand", tuple(hand))
        if self.assignment != BY_HAND:
            if hand:
                raise InputError("is only for rule sets set by hand", field="by_hand")
            return
        if len(hand) != self.tables:
            raise InputError(
                f"must give each of the {self.tables} tables a rule set", field="by_hand"
            )
        for index in hand:
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
                raise InputError(
                    f"each table's rule set is a number from 0 to {count - 1}", field="by_hand"
                )

    def rule_sets(self) -> tuple[RuleSetChoice, ...]:
        """The rule sets the tables play: the treatments, or the preset as written."""
        return self.treatments or (as_written(self.preset),)

    def rule_set_index(self, table: int) -> int:
        """Which of `rule_sets()` table `table` (from 0) plays."""
        if isinstance(table, bool) or not isinstance(table, int) or not 0 <= table < self.tables:
            raise InputError(f"must be a table from 0 to {self.tables - 1}", field="table")
        if self.assignment == BY_HAND:
            return self.by_hand[table]
        if self.assignment == BALANCED:
            return balanced(self.tables, len(self.rule_sets()), self.seed)[table]
        return 0

    def rule_set(self, table: int) -> RuleSetChoice:
        """The rule set table `table` plays."""
        return self.rule_sets()[self.rule_set_index(table)]

    @classmethod
    def from_json(cls, text: str) -> RoomSettings:
        data = json.loads(text)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    def rules(self, table: int) -> RuleSet:
        """The rules table `table` plays: its rule set, with the round cap for Game A and B."""
        rules = self.rule_set(table).rules()
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
    closed_at: float | None = None
    joining_locked: bool = False  # the instructor locked joining: new names are refused

    def seconds_left(self, at: float | None = None) -> float | None:
        """The two-hour timer: seconds until time is up (frozen while paused)."""
        if self.ends_at is None:
            return None
        moment = self.paused_at if self.paused_at is not None else (at or now())
        return max(0.0, self.ends_at - moment)


@dataclass(frozen=True)
class Seat:
    """Where a student sits: their room, table and seat, their name, and `key`, the hash of
    the device's rejoin token (what the database checks each decision against). `token`, the
    token itself, is known only on the device that joined (None elsewhere)."""

    code: str
    table: int
    seat: int
    name: str
    key: str
    returned: bool = False  # the seat was this device's before (a reload)
    token: str | None = field(default=None, repr=False, compare=False)


def name_key(name: str) -> str:
    """The form names are compared in: the confusables skeleton (names.skeleton)."""
    return skeleton(name)


def digest(secret: str) -> str:
    """The hash a high-entropy secret (an instructor key, a rejoin token) is kept as."""
    return hashlib.sha256(secret.encode()).hexdigest()


def new_key() -> str:
    """A fresh instructor key."""
    return secrets.token_urlsafe(KEY_BYTES)


def new_token() -> str:
    """A fresh rejoin token for a device."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def keep_days_setting() -> float:
    """How many days rooms are kept: AMTEACH_ROOMS_KEEP_DAYS, or KEEP_DAYS."""
    text = os.environ.get(KEEP_DAYS_ENV, "").strip()
    try:
        days = float(text) if text else KEEP_DAYS
    except ValueError:
        raise InputError(f"must be a number of days, not {text[:20]!r}", KEEP_DAYS_ENV) from None
    if not 0 < days <= 3650:
        raise InputError("must be a number of days from 0 to 3650", KEEP_DAYS_ENV)
    return days


def name_in_use(typed: str, seated: str) -> str:
    """Why a name cannot be had: the same name, or one that looks like it, has a seat."""
    if same_name(typed, seated):
        return (
            f"The name {seated} is already taken in this class by another device. If it is "
            "yours, go back to the device you joined with, or ask your teacher to move your "
            "seat to this one; otherwise add your initial."
        )
    return (
        f"That name looks too much like {seated}'s, who is already in this class; please "
        "add your initial or use another name."
    )


JOINING_LOCKED = (
    "Joining is locked by your teacher. If you already have a seat, go back to the device "
    "you joined with; if your teacher is moving your seat, type the move code they give you."
)
MOVING = (
    "Your teacher is moving {}'s seat to a new device: type the {}-digit move code your "
    "teacher gives you in the name box (your name alone does not take the seat)."
)
WRONG_MOVE_CODE = (
    "That move code does not open any seat of this class: check it with your teacher (a "
    "move code works once, for {} minutes)."
)
FREE_SEAT = (
    "name = NULL, name_key = NULL, token_hash = NULL, prefers = NULL, last_seen = NULL, "
    "seated_at = NULL, move_hash = NULL, move_until = NULL, student_id = NULL, playing = ?"
)


def move_code_typed(text: Any) -> str | None:
    """The move code in what was typed ("482 913", full-width digits), or None if it is not
    one: exactly MOVE_CODE_DIGITS ASCII digits once spaces are left out."""
    raw = str(text if text is not None else "")[:40]
    typed = "".join(unicodedata.normalize("NFKC", raw).split())
    ok = len(typed) == MOVE_CODE_DIGITS and all(c in "0123456789" for c in typed)
    return typed if ok else None


def move_digest(code: str, move: str) -> str:
    """The hash a move code is kept as (salted by its room's code)."""
    return digest(f"move:{code}:{move}")


def wait_words(seconds: float) -> str:
    """ "12 seconds", "1 minute", "25 minutes": how long to wait, for a person."""
    seconds = max(1, round(seconds))
    if seconds < 60:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = -(-seconds // 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


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

    def __init__(self, store: Store, keep_days: float | None = None) -> None:
        self.store = store
        self.keep_days = keep_days if keep_days is not None else keep_days_setting()

    # -- opening and reading a room ------------------------------------------------------------
    def create(
        self,
        settings: RoomSettings,
        pin: str | None = None,
        key: str | None = None,
        opened_by: str | None = None,
    ) -> str:
        """Open a room; returns its code. `key` is the instructor key its controls will need
        (see `new_key`; a room opened without one can be run only from a script). Roles are
        set now, except by the dice (at the start). Rooms past their keeping time go.
        `opened_by` is an opaque id of the client (a server may pass a hash of its address;
        it is kept hashed): one client may open `limits.CLIENT_OPENS_PER_HOUR` rooms an hour,
        and the whole database `limits.SERVER_OPENS_PER_HOUR`; Refused past either."""
        if pin is not None and pin != "":
            pin = str(pin).strip()
            if not 4 <= len(pin) <= 32:
                raise InputError("a PIN has 4 to 32 characters", field="pin")
        # the slow hash is made before the transaction: nobody waits for it
        pin_hash = _hash_pin(pin) if pin else None
        key_hash = digest(key or new_key())
        opener = digest(f"opener:{opened_by}") if opened_by else None
        self.purge()
        rng = random.Random(settings.seed)
        for _ in range(20):  # a code already in use is astronomically rare; try another
            code = new_code()
            try:
                with self.store.transaction() as tx:
                    tx.lock_opening()
                    moment = now()
                    self._check_opening(tx, moment, opener)
                    tx.execute(
                        "INSERT INTO rooms (code, created, settings, pin_hash, status, key_hash, "
                        "opened_by) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (code, moment, settings.to_json(), pin_hash, LOBBY, key_hash, opener),
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

    @staticmethod
    def _check_opening(tx: Any, moment: float, opener: str | None) -> None:
        """Refused if the class database (or this client) opened its hour's rooms already."""
        hour = moment - 3600
        checks = [
            (
                "SELECT COUNT(*), MIN(created) FROM rooms WHERE created > ?",
                (hour,),
                limits.SERVER_OPENS_PER_HOUR,
                "on this server",
            )
        ]
        if opener is not None:
            checks.append(
                (
                    "SELECT COUNT(*), MIN(created) FROM rooms WHERE opened_by = ? AND created > ?",
                    (opener, hour),
                    limits.CLIENT_OPENS_PER_HOUR,
                    "from this computer",
                )
            )
        for sql, params, most, where in checks:
            count, first = tx.query(sql, params)[0]
            if count >= most:
                wait = wait_words((first or moment) + 3600 - moment)
                raise Refused(
                    f"{count} classes were opened {where} in the last hour, as many as it "
                    f"allows ({most} an hour). Try again in {wait}, or go back to a class "
                    "you opened with its instructor link."
                )

    def purge(self, at: float | None = None) -> int:
        """Delete the rooms opened more than `keep_days` ago, and the unused ones (no student
        ever joined, or no decision was ever made) opened more than UNUSED_KEEP_HOURS ago,
        never one closed within the last hour, with their seats and decisions; returns how
        many rooms went. Runs whenever a room is opened; a server may also run it on a timer."""
        moment = at if at is not None else now()
        old = moment - self.keep_days * 86400
        unused = moment - UNUSED_KEEP_HOURS * 3600
        recent = moment - REOPEN_SECONDS
        # a room opened before migration 3 has no first_join: its seats' names tell
        where = (
            "(created < ? OR (created < ? AND ("
            "NOT EXISTS (SELECT 1 FROM decisions d WHERE d.room = rooms.code) OR "
            "(first_join IS NULL AND NOT EXISTS "
            "(SELECT 1 FROM seats s WHERE s.room = rooms.code AND s.name IS NOT NULL)))))"
            " AND (closed_at IS NULL OR closed_at < ?)"
        )
        with self.store.transaction() as tx:
            codes = [
                c
                for (c,) in tx.query(f"SELECT code FROM rooms WHERE {where}", (old, unused, recent))
            ]
            tx.execute("DELETE FROM move_tries WHERE at < ?", (moment - limits.MOVE_TRIES_SECONDS,))
            for code in codes:
                tx.execute("DELETE FROM move_tries WHERE room = ?", (code,))
                tx.execute("DELETE FROM answers WHERE room = ?", (code,))
                tx.execute("DELETE FROM questions WHERE room = ?", (code,))
                tx.execute("DELETE FROM decisions WHERE room = ?", (code,))
                tx.execute("DELETE FROM seats WHERE room = ?", (code,))
                tx.execute("DELETE FROM rooms WHERE code = ?", (code,))
        return len(codes)

    def info(self, code: str) -> RoomInfo:
        """The room `code`, or Refused if there is none."""
        code = clean_code(code)
        rows = self.store.query(
            "SELECT code, settings, status, created, started, paused_at, ends_at, pin_hash, "
            "closed_at, joining_locked FROM rooms WHERE code = ?",
            (code,),
        )
        if not rows:
            raise Refused(f"There is no room {code}. Check the code on the projector.")
        code, settings, status, created, started, paused_at, ends_at, pin_hash, closed, locked = (
            rows[0]
        )
        return RoomInfo(
            code,
            RoomSettings.from_json(settings),
            status,
            created,
            started,
            paused_at,
            ends_at,
            pin_hash is not None,
            closed,
            bool(locked),
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

    def check_instructor(
        self, code: str, key: str | None, pin: str | None = None, with_pin: bool = True
    ) -> RoomInfo:
        """The room, if `key` is its instructor key (and `pin` its PIN, if it has one);
        otherwise Refused. Writes nothing: throttling wrong guesses is the page's job
        (`limits.Window`), so no guesser can lock the room. The PIN's slow hash runs after
        the read's transaction has ended. `with_pin=False` checks the key alone (each
        control of a page that was let in with the PIN)."""
        code = clean_code(code)
        rows = self.store.query("SELECT key_hash, pin_hash FROM rooms WHERE code = ?", (code,))
        wrong = Refused(
            "That does not open this class's controls: they open with the instructor link "
            "(or key) made when the class was opened."
        )
        if not rows:
            raise wrong  # the same answer as a wrong key: a guesser learns nothing
        key_hash, pin_hash = rows[0]
        key_text = str(key or "").strip()
        if not key_hash or not key_text or len(key_text) > 200:
            raise wrong
        if not hmac.compare_digest(digest(key_text), key_hash):
            raise wrong
        if pin_hash is not None and with_pin:
            pin_text = str(pin or "").strip()
            if not pin_text:
                raise Refused("This class also has a PIN: type it to open the controls.")
            if len(pin_text) > 32 or not _pin_matches(pin_text, pin_hash):
                raise Refused("That PIN does not open this room's controls.")
        return self.info(code)

    # -- students --------------------------------------------------------------------------------
    def join(
        self,
        code: str,
        name: str,
        prefers: str | None = None,
        token: str | None = None,
        student_id: str | None = None,
    ) -> Seat:
        """Seat a student's device. A device that comes back with its rejoin `token` gets its
        seat back, whatever name it types. A move code typed as the name (six digits) claims
        the seat being moved (`claim_moved`). Otherwise a name (or a look-alike of a name)
        that has a seat is refused, always: a typed name never takes a student's seat, nor
        one being moved. A new name gets a free seat at the table with the fewest students;
        the Seat carries the new token for the device to keep. Refused: unknown code, a
        closed class, joining locked, a full room, a name in use, too many joins in the last
        minute; a room that asks for a student ID (`ask_student_id`) refuses a join without
        one, or with one that is not an ID or an email (names.clean_student_id), or with the
        ID of a student already seated. A room that does not ask keeps none."""
        code = clean_code(code)
        if token:
            with contextlib.suppress(Refused):
                return self.rejoin(code, token)
        move = move_code_typed(name)
        if move is not None:
            return self.claim_moved(code, move)
        shown = clean_name(name)
        key = name_key(shown)
        prefers = prefers if prefers in ROLES else None
        info = self.info(code)
        if info.status == ENDED:
            raise Refused("This class has ended. Ask your teacher for the new code.")
        typed_id = clean_student_id(student_id) if info.settings.ask_student_id else None
        token = new_token()
        token_hash = digest(token)
        for _ in range(5):  # another student took the same free seat first: look again
            with self.store.transaction() as tx:
                tx.lock_room(code)
                locked = tx.query("SELECT joining_locked FROM rooms WHERE code = ?", (code,))
                if locked and locked[0][0]:
                    raise Refused(JOINING_LOCKED)
                rows = tx.query(
                    "SELECT table_no, seat, name, name_key, token_hash, joined_at, move_until "
                    "FROM seats WHERE room = ? ORDER BY table_no, seat",
                    (code,),
                )
                moment = now()
                alike = [r for r in rows if r[2] is not None and look_alike(r[2], shown)]
                if alike:
                    seated, held_by, move_until = alike[0][2], alike[0][4], alike[0][6]
                    moving = held_by is None and move_until is not None and move_until > moment
                    if moving and same_name(shown, seated):
                        raise Refused(MOVING.format(seated, MOVE_CODE_DIGITS))
                    raise Refused(name_in_use(shown, seated))
                if typed_id is not None and self._id_taken(tx, code, typed_id):
                    raise Refused(
                        "Student ID or email: that ID already has a seat in this class. If it "
                        "is yours, go back to the device you joined with, or ask your teacher "
                        "to move your seat; otherwise check what you typed."
                    )
                recent = sum(1 for r in rows if r[5] is not None and moment - r[5] < 60)
                if recent >= ROOM_JOINS_PER_MINUTE:
                    raise Refused(
                        "Many students are joining this room right now; wait a moment and "
                        "press Join again."
                    )
                free = [r for r in rows if r[2] is None]
                if not free:
                    raise Refused(
                        "This room is full: every seat has a student. Ask your teacher for a seat."
                    )
                students = {t: 0 for t in range(info.settings.tables)}
                for r in rows:
                    if r[2] is not None:
                        students[r[0]] += 1
                table, seat, *_ = min(free, key=lambda r: (students[r[0]], r[0], r[1]))
                changed = tx.execute(
                    "UPDATE seats SET name = ?, name_key = ?, playing = ?, prefers = ?, "
                    "last_seen = ?, token_hash = ?, joined_at = ?, seated_at = ?, "
                    "move_hash = NULL, move_until = NULL, student_id = ? "
                    "WHERE room = ? AND table_no = ? AND seat = ? AND name IS NULL",
                    (
                        *(shown, key, STUDENT, prefers, moment, token_hash, moment, moment),
                        typed_id,
                        code,
                        table,
                        seat,
                    ),
                )
                if changed:
                    tx.execute(
                        "UPDATE rooms SET first_join = ? WHERE code = ? AND first_join IS NULL",
                        (moment, code),
                    )
                    tx.notify(code)
                    return Seat(code, table, seat, shown, token_hash, False, token)
        raise Refused("Many students are joining at once; please press Join again.")

    @staticmethod
    def _id_taken(tx: Any, code: str, typed: str) -> bool:
        """Another seat of the room holds this student ID (compared case-folded)."""
        held = tx.query(
            "SELECT student_id FROM seats WHERE room = ? AND student_id IS NOT NULL", (code,)
        )
        wanted = student_id_key(typed)
        return any(student_id_key(row[0]) == wanted for row in held)

    def student_ids(self, code: str) -> dict[tuple[int, int], str]:
        """(table, seat) -> the student ID its student typed, for the seats that have one."""
        rows = self.store.query(
            "SELECT table_no, seat, student_id FROM seats WHERE room = ? "
            "AND student_id IS NOT NULL",
            (code,),
        )
        return {(table, seat): sid for table, seat, sid in rows}

    def claim_moved(self, code: str, move_code: str) -> Seat:
        """The seat the instructor is moving to a new device (`move_seat`), for the device
        that typed its one-time code: the seat is this device's now (a new rejoin token in
        the Seat), and the code stops working. Works while joining is locked. Refused: a
        wrong or expired code (wrong codes are counted per room: after `limits.MOVE_TRIES`
        in `limits.MOVE_TRIES_SECONDS`, every device of the room waits), a closed class."""
        code = clean_code(code)
        move = move_code_typed(move_code)
        info = self.info(code)
        if info.status == ENDED:
            raise Refused("This class has ended. Ask your teacher for the new code.")
        if move is None:  # not a code at all: nothing guessed, nothing counted
            raise Refused(WRONG_MOVE_CODE.format(MOVE_CODE_MINUTES))
        token = new_token()
        token_hash = digest(token)
        claimed = None
        with self.store.transaction() as tx:
            tx.lock_room(code)
            moment = now()
            window = moment - limits.MOVE_TRIES_SECONDS
            tries, first = tx.query(
                "SELECT COUNT(*), MIN(at) FROM move_tries WHERE room = ? AND at > ?",
                (code, window),
            )[0]
            if tries >= limits.MOVE_TRIES:
                wait = wait_words((first or moment) + limits.MOVE_TRIES_SECONDS - moment)
                raise Refused(
                    f"Too many wrong move codes were typed in this class ({limits.MOVE_TRIES} "
                    f"in {wait_words(limits.MOVE_TRIES_SECONDS)}). Wait {wait}, then type "
                    "the code again."
                )
            rows = tx.query(
                "SELECT table_no, seat, name FROM seats WHERE room = ? AND move_hash = ? "
                "AND move_until > ? AND name IS NOT NULL",
                (code, move_digest(code, move), moment),
            )
            if rows:
                table, seat, seated = rows[0]
                tx.execute(
                    "UPDATE seats SET token_hash = ?, playing = ?, last_seen = ?, joined_at = ?, "
                    "move_hash = NULL, move_until = NULL "
                    "WHERE room = ? AND table_no = ? AND seat = ?",
                    (token_hash, STUDENT, moment, moment, code, table, seat),
                )
                tx.notify(code)
                claimed = Seat(code, table, seat, seated, token_hash, True, token)
            else:  # counted, and committed: the refusal comes after the transaction
                tx.execute("INSERT INTO move_tries (room, at) VALUES (?, ?)", (code, moment))
        if claimed is None:
            raise Refused(WRONG_MOVE_CODE.format(MOVE_CODE_MINUTES))
        return claimed

    def rejoin(self, code: str, token: str) -> Seat:
        """The seat of the device that holds `token` (a reload, a lost connection), played by
        its student again; Refused if no seat of the room is this device's (any more)."""
        code = clean_code(code)
        token_hash = digest(str(token)[:200])
        info = self.info(code)
        if info.status == ENDED:
            raise Refused("This class has ended. Ask your teacher for the new code.")
        with self.store.transaction() as tx:
            rows = tx.query(
                "SELECT table_no, seat, name FROM seats WHERE room = ? AND token_hash = ?",
                (code, token_hash),
            )
            if not rows:
                raise Refused("This device has no seat in this room (any more): join again.")
            table, seat, seated = rows[0]
            tx.execute(
                "UPDATE seats SET playing = ?, last_seen = ? "
                "WHERE room = ? AND table_no = ? AND seat = ?",
                (STUDENT, now(), code, table, seat),
            )
            tx.notify(code)
        return Seat(code, table, seat, seated, token_hash, True, str(token))

    def holds(self, seat: Seat) -> bool:
        """The seat is still this device's (the instructor has not freed or moved it)."""
        rows = self.store.query(
            "SELECT 1 FROM seats WHERE room = ? AND table_no = ? AND seat = ? AND token_hash = ?",
            (seat.code, seat.table, seat.seat, seat.key),
        )
        return bool(rows)

    def heartbeat(self, seat: Seat) -> None:
        """The student's page is open (no notification: nobody needs to redraw for it)."""
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE seats SET last_seen = ? WHERE room = ? AND table_no = ? AND seat = ? "
                "AND token_hash = ?",
                (now(), seat.code, seat.table, seat.seat, seat.key),
            )

    def heartbeat_all(self, seats: list[Seat]) -> list[bool]:
        """Every seat's page is open (a server's connected phones, in one transaction);
        returns, for each seat, whether it is still its device's (the teacher may have freed
        or moved it)."""
        moment = now()
        with self.store.transaction() as tx:
            return [
                bool(
                    tx.execute(
                        "UPDATE seats SET last_seen = ? WHERE room = ? AND table_no = ? "
                        "AND seat = ? AND token_hash = ?",
                        (moment, seat.code, seat.table, seat.seat, seat.key),
                    )
                )
                for seat in seats
            ]

    def playing_rooms(self) -> list[str]:
        """The codes of the rooms whose games are under way (not paused, not closed)."""
        return [
            row[0]
            for row in self.store.query("SELECT code FROM rooms WHERE status = ?", (PLAYING,))
        ]

    def take_back(self, seat: Seat) -> None:
        """A student takes their seat back from the bot that played it while they were away."""
        with self.store.transaction() as tx:
            changed = tx.execute(
                "UPDATE seats SET playing = ?, last_seen = ? WHERE room = ? AND table_no = ? "
                "AND seat = ? AND token_hash = ?",
                (STUDENT, now(), seat.code, seat.table, seat.seat, seat.key),
            )
            if not changed:
                raise Refused("That seat is no longer yours; ask your teacher for a seat.")
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
        """The class is over: nobody can join or decide any more; the logs stay, and the
        instructor can reopen it (`reopen`) while the room is kept."""
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE rooms SET closed_from = status, closed_at = ?, status = ? "
                "WHERE code = ? AND status <> ?",
                (now(), ENDED, code, ENDED),
            )
            tx.notify(code)

    def reopen(self, code: str) -> None:
        """Undo `close`: the room is as it was when closed; a two-hour game's timer did not
        run while it was closed."""
        with self.store.transaction() as tx:
            rows = tx.query(
                "SELECT closed_from, closed_at, ends_at FROM rooms WHERE code = ? AND status = ?",
                (code, ENDED),
            )
            if not rows:
                return
            was, closed_at, ends_at = rows[0]
            if was == PLAYING and ends_at is not None and closed_at is not None:
                ends_at += max(0.0, now() - closed_at)
            tx.execute(
                "UPDATE rooms SET status = ?, closed_from = NULL, closed_at = NULL, ends_at = ? "
                "WHERE code = ?",
                (was or LOBBY, ends_at, code),
            )
            tx.notify(code)

    def remove(self, code: str, table: int, seat: int) -> None:
        """Take a student out of their seat: the seat is free for anyone to join, a bot plays
        it meanwhile, and the student's device can no longer decide for it."""
        with self.store.transaction() as tx:
            tx.execute(
                f"UPDATE seats SET {FREE_SEAT} WHERE room = ? AND table_no = ? AND seat = ?",
                (BOT, code, table, seat),
            )
            tx.notify(code)

    def clear_unplayed(self, code: str) -> int:
        """Free, in one step, every *unplayed* student seat: one whose student has made no
        decision in the log since they sat down (a move to a new device does not count as
        sitting down again). Before the games start every student seat is unplayed. Freed
        seats are played by bots and open to the next student who joins; returns how many."""
        with self.store.transaction() as tx:
            changed = tx.execute(
                f"UPDATE seats SET {FREE_SEAT} WHERE room = ? AND name IS NOT NULL "
                "AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.room = seats.room "
                "AND d.table_no = seats.table_no AND d.seat = seats.seat AND d.made_by = ? "
                "AND d.at >= COALESCE(seats.seated_at, 0))",
                (BOT, code, STUDENT),
            )
            if changed:
                tx.notify(code)
        return changed

    def clear_table(self, code: str, table: int) -> int:
        """Free every student seat of one table in one step (bots play them); returns how
        many seats had a student."""
        with self.store.transaction() as tx:
            changed = tx.execute(
                f"UPDATE seats SET {FREE_SEAT} WHERE room = ? AND table_no = ? "
                "AND name IS NOT NULL",
                (BOT, code, table),
            )
            if changed:
                tx.notify(code)
        return changed

    def move_seat(self, code: str, table: int, seat: int) -> str:
        """Move a student's seat to a new device (a flat battery, a borrowed laptop): returns
        a one-time code of MOVE_CODE_DIGITS digits, kept only as a hash, that gives the seat
        to the device that types it (`claim_moved`) within MOVE_CODE_MINUTES. The old device
        can no longer decide for the seat; a bot plays it meanwhile. A new code replaces the
        seat's previous one. Refused if the seat has no student."""
        code = clean_code(code)
        for _ in range(20):  # a code another seat of the room waits for: draw again
            move = f"{secrets.randbelow(10**MOVE_CODE_DIGITS):0{MOVE_CODE_DIGITS}d}"
            hashed = move_digest(code, move)
            with self.store.transaction() as tx:
                moment = now()
                clash = tx.query(
                    "SELECT 1 FROM seats WHERE room = ? AND move_hash = ? AND move_until > ?",
                    (code, hashed, moment),
                )
                if clash:
                    continue
                changed = tx.execute(
                    "UPDATE seats SET token_hash = NULL, playing = ?, move_hash = ?, "
                    "move_until = ? WHERE room = ? AND table_no = ? AND seat = ? "
                    "AND name IS NOT NULL",
                    (BOT, hashed, moment + 60 * MOVE_CODE_MINUTES, code, table, seat),
                )
                if not changed:
                    raise Refused("That seat has no student to move.")
                tx.notify(code)
            return move
        raise Refused("Could not make a move code; please try again.")  # pragma: no cover

    def lock_joining(self, code: str, locked: bool) -> None:
        """Lock (or unlock) joining: while locked, a new name is refused; a device's rejoin
        with its token, and a moved seat's code, still work."""
        with self.store.transaction() as tx:
            tx.execute(
                "UPDATE rooms SET joining_locked = ? WHERE code = ?", (1 if locked else 0, code)
            )
            tx.notify(code)

    def replace_key(self, code: str, key: str, pin: str | None = None) -> str:
        """A new instructor key for the room, given its current key (and PIN, if it has one);
        the old key stops working at once (a link that was seen, or a lost laptop). Returns
        the new key; Refused as `check_instructor` is."""
        info = self.check_instructor(code, key, pin)
        fresh = new_key()
        with self.store.transaction() as tx:
            changed = tx.execute(
                "UPDATE rooms SET key_hash = ? WHERE code = ? AND key_hash = ?",
                (digest(fresh), info.code, digest(str(key).strip())),
            )
            if not changed:  # replaced by another page a moment ago
                raise Refused(
                    "The instructor link was replaced meanwhile; use the new link to open "
                    "this class's controls."
                )
        return fresh

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
                    "SELECT playing, token_hash FROM seats WHERE room = ? AND table_no = ? "
                    "AND seat = ?",
                    (code, table, seat),
                )
                playing, key = rows[0] if rows else (None, None)
                if made_by == STUDENT and (student_key is None or key != student_key):
                    raise Refused("That seat is no longer yours; ask your teacher for a seat.")
                if made_by == STUDENT and playing != STUDENT:
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
