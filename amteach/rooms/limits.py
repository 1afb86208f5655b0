"""Limits on what one page may try: wrong instructor keys or PINs, and joins. A `Window`
lives in one page's kernel, so it throttles that guesser only: a student who types wrong
PINs slows down their own page, never the room, and never the instructor's page."""

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
