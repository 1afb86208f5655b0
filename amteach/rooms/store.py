"""Where rooms live: a database that holds each room's settings, its seats and, for every
table, the append-only log of decisions. SQLite (a file beside the server, WAL mode) by
default; PostgreSQL (psycopg 3, LISTEN/NOTIFY) when a class outgrows one server.

Every query is parameterized: nothing a person types is ever part of SQL text. The one rule
that settles races is the primary key on (room, table, decision number): two devices that
append the same decision number find that one of them was first (`Taken`).

The schema grows by numbered migrations (`MIGRATIONS`), applied in order when a store opens
and recorded in `schema_version`; a database written by a newer amteach is refused with a
clear message instead of being changed.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..engine.errors import AmteachError, InputError

# Each migration is a list of statements that both SQLite and PostgreSQL read. Never edit one
# that has shipped: add the next.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE rooms (
            code TEXT PRIMARY KEY,
            created DOUBLE PRECISION NOT NULL,
            settings TEXT NOT NULL,
            pin_hash TEXT,
            status TEXT NOT NULL,
            started DOUBLE PRECISION,
            paused_at DOUBLE PRECISION,
            ends_at DOUBLE PRECISION,
            pin_failures INTEGER NOT NULL DEFAULT 0,
            pin_locked_until DOUBLE PRECISION
        )""",
        """CREATE TABLE seats (
            room TEXT NOT NULL REFERENCES rooms (code),
            table_no INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            name TEXT,
            name_key TEXT,
            role TEXT,
            bot TEXT NOT NULL,
            playing TEXT NOT NULL,
            prefers TEXT,
            roll INTEGER,
            last_seen DOUBLE PRECISION,
            PRIMARY KEY (room, table_no, seat)
        )""",
        "CREATE UNIQUE INDEX seats_by_name ON seats (room, name_key)",
        """CREATE TABLE decisions (
            room TEXT NOT NULL REFERENCES rooms (code),
            table_no INTEGER NOT NULL,
            number INTEGER NOT NULL,
            seat INTEGER,
            choice TEXT NOT NULL,
            made_by TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (room, table_no, number)
        )""",
    ),
    # 2: the instructor key (a hash of it), closing that can be undone, seats bound to the
    # device that joined (a hash of its rejoin token), and when a seat was last taken (the
    # room's join rate). name_key now holds the name's confusables skeleton (names.py).
    (
        "ALTER TABLE rooms ADD COLUMN key_hash TEXT",
        "ALTER TABLE rooms ADD COLUMN closed_at DOUBLE PRECISION",
        "ALTER TABLE rooms ADD COLUMN closed_from TEXT",
        "ALTER TABLE seats ADD COLUMN token_hash TEXT",
        "ALTER TABLE seats ADD COLUMN joined_at DOUBLE PRECISION",
        "CREATE INDEX rooms_by_created ON rooms (created)",
    ),
    # 3: the instructor's room-level controls (issue 36): joining can be locked; who opened a
    # room (an opaque client id's hash) and when a student first joined (an unused room goes
    # sooner); when a seat's student sat down (what "unplayed" is measured from); a seat
    # being moved to a new device holds its one-time code's hash until it expires; and the
    # wrong move codes typed in a room (they are limited per room).
    (
        "ALTER TABLE rooms ADD COLUMN joining_locked INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE rooms ADD COLUMN opened_by TEXT",
        "ALTER TABLE rooms ADD COLUMN first_join DOUBLE PRECISION",
        "ALTER TABLE seats ADD COLUMN seated_at DOUBLE PRECISION",
        "ALTER TABLE seats ADD COLUMN move_hash TEXT",
        "ALTER TABLE seats ADD COLUMN move_until DOUBLE PRECISION",
        """CREATE TABLE move_tries (
            room TEXT NOT NULL REFERENCES rooms (code),
            at DOUBLE PRECISION NOT NULL
        )""",
        "CREATE INDEX move_tries_by_room ON move_tries (room, at)",
        "CREATE INDEX rooms_by_opener ON rooms (opened_by, created)",
    ),
    # 4: the class's own play as the lesson (issue 37): questions the instructor poses to the
    # phones (a prediction, an exit ticket; `kind` is choice or number, `options` JSON: the
    # choices' labels or the number's bounds, see rooms/questions.py), one answer per seat and
    # question (a later answer replaces it while the question is open; the choice's index or
    # the number, as JSON), and a seat's optional student ID
    # for the gradebook (kept as typed, checked like a name).
    (
        """CREATE TABLE questions (
            room TEXT NOT NULL REFERENCES rooms (code),
            number INTEGER NOT NULL,
            moment TEXT NOT NULL,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            options TEXT NOT NULL,
            asked_at DOUBLE PRECISION NOT NULL,
            closed_at DOUBLE PRECISION,
            PRIMARY KEY (room, number)
        )""",
        """CREATE TABLE answers (
            room TEXT NOT NULL REFERENCES rooms (code),
            question INTEGER NOT NULL,
            table_no INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            answer TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (room, question, table_no, seat)
        )""",
        "ALTER TABLE seats ADD COLUMN student_id TEXT",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)
# the channel PostgreSQL notifies on; the payload is the room's code
CHANNEL = "amteach_rooms"
SQLITE_POLL_SECONDS = 0.05


class RoomsUnavailable(AmteachError):
    """The class database cannot be reached (or refused the request): nothing was changed."""


class Taken(AmteachError):
    """A row with that key is already there: another device was first."""


def _describe(url: str) -> str:
    """A database address fit to show: a PostgreSQL password is left out."""
    parts = urlsplit(url)
    if parts.scheme.startswith("postgres") and parts.password:
        host = parts.hostname or ""
        user = f"{parts.username}@" if parts.username else ""
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{user}{host}{port}{parts.path}"
    return url


class Store(ABC):
    """One connection to the class database, shared by the threads of a process (a lock
    keeps one statement at a time). Subclasses say how to connect, how parameters are marked
    and how other processes hear of a change."""

    placeholder = "?"

    def __init__(self, url: str) -> None:
        self.url = url
        self.where = _describe(url)
        self._lock = threading.RLock()
        self._connection: Any = None
        with self._lock:
            self._connection = self._connect()
            self._migrate()

    # -- what each database does its own way ------------------------------------------------------
    @abstractmethod
    def _connect(self) -> Any: ...

    @abstractmethod
    def _is_taken(self, err: Exception) -> bool: ...

    @abstractmethod
    def _is_unavailable(self, err: Exception) -> bool: ...

    def _begin(self, cursor: Any) -> None:
        cursor.execute("BEGIN")

    def _begin_read(self, cursor: Any) -> None:
        """Start a transaction that only reads."""
        self._begin(cursor)

    def _lock_schema(self, cursor: Any) -> None:
        """Keep two servers from migrating the same database at once."""
        return None  # SQLite: BEGIN IMMEDIATE already keeps a second migration out

    def notify(self, cursor: Any, room: str) -> None:
        """Tell other processes that `room` changed (inside the writing transaction)."""
        return None  # SQLite: watchers notice changes by polling `PRAGMA data_version`

    def lock_room(self, cursor: Any, room: str) -> None:
        """See `Transaction.lock_room`."""
        return None  # SQLite: BEGIN IMMEDIATE already serialises writers

    def lock_opening(self, cursor: Any) -> None:
        """See `Transaction.lock_opening`."""
        return None  # SQLite: BEGIN IMMEDIATE already serialises writers

    @abstractmethod
    def watch(self, on_change: Callable[[str | None], None]) -> Callable[[], None]:
        """Call `on_change(news)` from a background thread when another connection changed the
        database: news is "ROOM" (the room changed), "ROOM:TABLE" (a table's log grew) or None
        (something changed: look); returns a function that stops."""

    # -- statements -------------------------------------------------------------------------------
    def _sql(self, sql: str) -> str:
        return sql if self.placeholder == "?" else sql.replace("?", self.placeholder)

    @contextmanager
    def transaction(self, read: bool = False) -> Iterator[Transaction]:
        """Statements that happen together or not at all. Raises Taken when a key is already
        used, RoomsUnavailable when the database cannot be reached; nothing is changed then.
        `read=True`: the statements only read, so they never wait for a writer (nor make one
        wait)."""
        with self._lock:
            try:
                cursor = self._cursor()
                (self._begin_read if read else self._begin)(cursor)
                try:
                    yield Transaction(self, cursor)
                except BaseException:
                    self._rollback()
                    raise
                self._connection.commit()
            except AmteachError:
                raise
            except Exception as err:
                self._rollback()
                if self._is_taken(err):
                    raise Taken(str(err)) from None
                if self._is_unavailable(err):
                    self._reconnect_later()
                    raise RoomsUnavailable(self._unavailable_message(err)) from None
                raise

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of one read (it takes no write lock: see `transaction(read=True)`)."""
        with self.transaction(read=True) as tx:
            return tx.query(sql, params)

    def _cursor(self) -> Any:
        if self._connection is None:
            self._connection = self._connect()
        return self._connection.cursor()

    def _rollback(self) -> None:
        try:
            if self._connection is not None:
                self._connection.rollback()
        except Exception:  # the connection is gone; the next request reconnects
            self._reconnect_later()

    def _reconnect_later(self) -> None:
        try:
            if self._connection is not None:
                self._connection.close()
        except Exception:
            pass
        self._connection = None

    def _unavailable_message(self, err: Exception) -> str:
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        return f"the class database ({self.where}) cannot be reached: {reason}"

    def _migrate(self) -> None:
        with self.transaction() as tx:
            self._lock_schema(tx.cursor)
            tx.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            rows = tx.query("SELECT version FROM schema_version")
            version = rows[0][0] if rows else 0
            if version > SCHEMA_VERSION:
                raise InputError(
                    f"was written by a newer amteach (schema {version}; this amteach knows "
                    f"up to {SCHEMA_VERSION}); upgrade amteach to open it",
                    self.where,
                )
            for statements in MIGRATIONS[version:]:
                for statement in statements:
                    tx.execute(statement)
            if not rows:
                tx.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
            elif version < SCHEMA_VERSION:
                tx.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))

    def schema_version(self) -> int:
        return self.query("SELECT version FROM schema_version")[0][0]

    def close(self) -> None:
        with self._lock:
            self._reconnect_later()


class Transaction:
    """Statements inside `Store.transaction()`."""

    def __init__(self, store: Store, cursor: Any) -> None:
        self.store, self.cursor = store, cursor

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; returns the number of rows it changed."""
        self.cursor.execute(self.store._sql(sql), tuple(params))
        return self.cursor.rowcount

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        self.cursor.execute(self.store._sql(sql), tuple(params))
        return list(self.cursor.fetchall())

    def notify(self, room: str, table: int | None = None) -> None:
        """Tell other processes that `room` (only its table `table`, if given) changed."""
        self.store.notify(self.cursor, room if table is None else f"{room}:{table}")

    def lock_room(self, room: str) -> None:
        """Make the room's other writers wait for this transaction (joins take seats one at
        a time). SQLite's BEGIN IMMEDIATE already does; PostgreSQL locks the room's row."""
        self.store.lock_room(self.cursor, room)

    def lock_opening(self) -> None:
        """Make other openings of rooms wait for this transaction, so that counting the rooms
        opened in the last hour and opening one more happen as one step."""
        self.store.lock_opening(self.cursor)


class SQLiteStore(Store):
    """A SQLite file in WAL mode: readers never wait for the writer, and a write waits (up to
    `busy_seconds`) for another process's write to finish. Other processes' changes are
    noticed by polling `PRAGMA data_version`, which costs microseconds."""

    busy_seconds = 10.0

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        super().__init__(str(self.path))

    def _connect(self) -> sqlite3.Connection:
        try:
            connection = sqlite3.connect(
                self.path, timeout=self.busy_seconds, isolation_level=None, check_same_thread=False
            )
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")  # durable at each checkpoint
            connection.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as err:
            raise RoomsUnavailable(self._unavailable_message(err)) from None
        return _AutocommitSQLite(connection)

    def _begin(self, cursor: Any) -> None:
        cursor.execute("BEGIN IMMEDIATE")  # take the write lock now: no upgrade deadlocks

    def _begin_read(self, cursor: Any) -> None:
        cursor.execute("BEGIN")  # deferred: in WAL mode a reader never waits for the writer

    def _is_taken(self, err: Exception) -> bool:
        return isinstance(err, sqlite3.IntegrityError) and "UNIQUE" in str(err)

    def _is_unavailable(self, err: Exception) -> bool:
        return isinstance(err, sqlite3.DatabaseError) and not isinstance(
            err, sqlite3.IntegrityError
        )

    def watch(self, on_change: Callable[[str | None], None]) -> Callable[[], None]:
        stop = threading.Event()

        def poll() -> None:
            connection: sqlite3.Connection | None = None
            last = None
            while not stop.is_set():
                try:
                    if connection is None:
                        connection = sqlite3.connect(self.path, timeout=1, check_same_thread=False)
                    version = connection.execute("PRAGMA data_version").fetchone()[0]
                except sqlite3.Error:
                    connection = None
                    version = None
                if version is not None and version != last:
                    if last is not None:
                        on_change(None)
                    last = version
                stop.wait(SQLITE_POLL_SECONDS)
            if connection is not None:
                connection.close()

        threading.Thread(target=poll, name="amteach-rooms-watch", daemon=True).start()
        return stop.set


class _AutocommitSQLite:
    """sqlite3 in autocommit mode with explicit BEGIN/COMMIT, behind the connection API."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    def cursor(self) -> sqlite3.Cursor:
        return self.connection.cursor()

    def commit(self) -> None:
        if self.connection.in_transaction:
            self.connection.execute("COMMIT")

    def rollback(self) -> None:
        if self.connection.in_transaction:
            self.connection.execute("ROLLBACK")

    def close(self) -> None:
        self.connection.close()


class PostgresStore(Store):
    """PostgreSQL through psycopg 3. A write that matters to other devices notifies
    `CHANNEL` with the room's code in the same transaction, and watchers LISTEN, so nobody
    polls."""

    placeholder = "%s"
    connect_seconds = 5

    def _connect(self) -> Any:
        import psycopg

        try:
            return psycopg.connect(self.url, connect_timeout=self.connect_seconds)
        except psycopg.Error as err:
            raise RoomsUnavailable(self._unavailable_message(err)) from None

    def _begin(self, cursor: Any) -> None:
        pass  # psycopg opens a transaction with the first statement

    def _lock_schema(self, cursor: Any) -> None:
        cursor.execute("SELECT pg_advisory_xact_lock(7717017)")

    def _is_taken(self, err: Exception) -> bool:
        import psycopg

        return isinstance(err, psycopg.errors.UniqueViolation)

    def _is_unavailable(self, err: Exception) -> bool:
        import psycopg

        return isinstance(err, psycopg.OperationalError | psycopg.InterfaceError)

    def notify(self, cursor: Any, room: str) -> None:
        cursor.execute("SELECT pg_notify(%s, %s)", (CHANNEL, room))

    def lock_room(self, cursor: Any, room: str) -> None:
        cursor.execute("SELECT code FROM rooms WHERE code = %s FOR UPDATE", (room,))

    def lock_opening(self, cursor: Any) -> None:
        cursor.execute("SELECT pg_advisory_xact_lock(7717018)")

    def watch(self, on_change: Callable[[str | None], None]) -> Callable[[], None]:
        import psycopg

        stop = threading.Event()

        def listen() -> None:
            while not stop.is_set():
                try:
                    with psycopg.connect(
                        self.url, autocommit=True, connect_timeout=self.connect_seconds
                    ) as connection:
                        connection.execute(f"LISTEN {CHANNEL}")
                        on_change(None)  # changes made while we were not listening
                        while not stop.is_set():
                            for note in connection.notifies(timeout=0.5):
                                on_change(note.payload)
                except psycopg.Error:
                    stop.wait(1.0)  # the server is down: try again shortly

        threading.Thread(target=listen, name="amteach-rooms-listen", daemon=True).start()
        return stop.set


def open_store(url: str | Path) -> Store:
    """The class database at `url`: `postgresql://...` (or `postgres://...`), or a SQLite file
    (a path, or `sqlite:///path`). Creates the SQLite file and the tables when missing. Bad
    addresses raise InputError; an unreachable database raises RoomsUnavailable."""
    text = str(url).strip()
    if not text:
        raise InputError("give a SQLite file or a postgresql:// address", "--rooms")
    scheme = urlsplit(text).scheme.lower()
    if scheme in ("postgresql", "postgres"):
        try:
            import psycopg  # noqa: F401
        except ImportError:  # pragma: no cover - psycopg is a dependency
            raise InputError(
                "PostgreSQL needs psycopg 3 (pip install psycopg)", "--rooms"
            ) from None
        return PostgresStore(text)
    if scheme == "sqlite":
        text = text[len("sqlite://") :]
        text = text[1:] if text.startswith("//") else text  # sqlite:////abs/path
    elif scheme and len(scheme) > 1:
        raise InputError(
            f"{_describe(text)}: use a SQLite file or a postgresql:// address", "--rooms"
        )
    path = Path(text).expanduser()
    if path.is_dir():
        raise InputError("is a folder; give the SQLite file's name", str(path))
    if not path.parent.is_dir():
        raise InputError(f"the folder {path.parent} does not exist", str(path))
    return SQLiteStore(path.resolve())


def now() -> float:
    """The time rooms record (seconds since the epoch)."""
    return time.time()
