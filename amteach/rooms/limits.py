"""Limits on what one page, one client, one room or one class database may try.

A `Window` lives in one page's kernel, so it throttles that page only: a student who types
wrong PINs slows down their own page, never the room, and never the instructor's page. The
limits counted in the class database (classes opened in an hour, wrong move codes in a
room) hold for every kernel and server that shares it; `room.py` reads them from here when
it counts, so a server (or a test) may change them. docs/class-play.md has the table."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable

from .names import Refused

# wrong keys or PINs one page may type within KEY_WINDOW_SECONDS
KEY_TRIES = 5
KEY_WINDOW_SECONDS = 60
# presses of Join one page may make within JOIN_WINDOW_SECONDS (one seat per page besides)
PAGE_JOINS = 6
JOIN_WINDOW_SECONDS = 60
# classes one page (one Class tab) may open within OPEN_WINDOW_SECONDS
PAGE_OPENS = 5
OPEN_WINDOW_SECONDS = 3600
# classes opened in the last hour: by one client (the opaque id a server passes as
# `Rooms.create(opened_by=...)`, e.g. a hash of its address), and in the whole class
# database (every server that shares it). A school's teachers open a few each hour.
CLIENT_OPENS_PER_HOUR = 10
SERVER_OPENS_PER_HOUR = 30
# wrong move codes a room takes within MOVE_TRIES_SECONDS, from all devices together. A move
# code has 6 digits and lives MOVE_CODE_MINUTES (room.py): at most 10 * 15 = 150 of its
# million values can be tried, a 1 in 6,666 chance, and a new code starts afresh.
MOVE_TRIES = 10
MOVE_TRIES_SECONDS = 60


class Window:
    """At most `limit` events in any `seconds`: `check()` says Refused (with how long to wait)
    when the window is full; `add()` counts one event."""

    def __init__(
        self, limit: int, seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit, self.seconds, self.clock = limit, seconds, clock
        self.events: deque[float] = deque()

    def _drop_old(self) -> None:
        moment = self.clock()
        while self.events and moment - self.events[0] >= self.seconds:
            self.events.popleft()

    def wait(self) -> float:
        """Seconds until one more event is allowed (0 if it is now)."""
        self._drop_old()
        if len(self.events) < self.limit:
            return 0.0
        return max(0.0, self.seconds - (self.clock() - self.events[0]))

    def check(self, what: str) -> None:
        wait = math.ceil(self.wait())
        if wait > 0:
            raise Refused(f"{what} Try again in {wait} second{'s' if wait != 1 else ''}.")

    def add(self) -> None:
        self._drop_old()
        self.events.append(self.clock())

    def clear(self) -> None:
        self.events.clear()
