"""Keeping a device's tables in step with the room: a watcher thread hears that the database
changed (SQLite: a cheap poll; PostgreSQL: LISTEN/NOTIFY) and asks for a `tick`, which reads
the news, lets bots move when they have waited their delay, and starts the final accounting
when a two-hour game's time is up. `tick` runs on the device's own thread (a kernel's event
loop), never on the watcher's."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from .room import Rooms
from .store import RoomsUnavailable
from .table import RoomTable

# set in the kernels' environment by a server that holds its tables' games (rooms.hub)
SERVER_DRIVES_ENV = "AMTEACH_SERVER_DRIVES_TABLES"
# how often the instructor's device hands away students' seats to bots (seconds)
TEND_SECONDS = 5.0


class Follower:
    """Follows `tables` of room `code`. `wake`, if given, is called from the watcher thread
    when news arrives: it should arrange for `tick()` to run soon on the device's thread.
    `tend=True` (the instructor's device) also replaces absent students with bots;
    `drive=False` leaves bots, the timer and absent students to the server that holds the
    tables (SERVER_DRIVES_ENV)."""

    def __init__(
        self,
        rooms: Rooms,
        code: str,
        tables: list[RoomTable],
        wake: Callable[[], None] | None = None,
        tend: bool = False,
        drive: bool = True,
    ) -> None:
        self.rooms, self.code, self.tables = rooms, code, tables
        self.wake = wake
        self.tend = tend
        # False where a server holds the tables (`amteach dashboard`: rooms.hub) and moves
        # their bots, the timer and absent students itself
        self.drive = drive
        self.error: str | None = None  # the database's trouble, for the page to show
        self.news = threading.Event()
        self.news.set()
        self._last_tend = 0.0
        self._stop = rooms.store.watch(self._heard)

    def _heard(self, news: str | None) -> None:
        room, _, table = (news or "").partition(":")
        mine = not table or not self.tables or any(str(t.table_no) == table for t in self.tables)
        if news is None or (room == self.code and mine):
            self.news.set()
            if self.wake is not None:
                self.wake()

    def tick(self) -> bool:
        """Catch up with the room and let bots move; True if any table changed. A database
        that cannot be reached sets `error` (cleared when it answers again); nothing is lost."""
        changed = False
        try:
            if self.news.is_set():
                self.news.clear()
                for table in self.tables:
                    changed |= table.sync()
            for table in self.tables if self.drive else ():
                left = table.info.seconds_left()
                if table.playing and left == 0 and table.info.settings.ending == "two-hour":
                    ended = table.end_game().ok
                    changed |= ended and table.game.phase == "final_adjust"
                changed |= table.drive()
            if self.tend and self.drive and time.monotonic() - self._last_tend >= TEND_SECONDS:
                self._last_tend = time.monotonic()
                if self.tables and self.tables[0].playing:
                    self.rooms.replace_absent(self.code, self.tables[0].info.settings.absent_after)
            self.error = None
        except RoomsUnavailable as err:
            self.news.set()  # read everything again once the database answers
            self.error = str(err)
        return changed

    def stop(self) -> None:
        self._stop()
