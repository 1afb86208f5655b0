"""Keeping a page live: a `Ticker` runs a class page's `tick` on the kernel's event loop every
fraction of a second, and at once when a watcher thread says the class database changed
(`wake`). Widgets are only ever changed on that loop. Outside a kernel (scripts, tests)
nothing runs by itself: call `tick()`. And `Announcer`, the live region that tells a screen
reader what just happened in a game."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

import ipywidgets as widgets

from ..render import html_join, html_text
from ..serving import PUBLIC_URL_ENV

TICK_SECONDS = 0.25


def kernel_loop() -> Any:
    """The kernel's tornado event loop, or None outside a kernel."""
    try:
        from IPython import get_ipython

        return getattr(getattr(get_ipython(), "kernel", None), "io_loop", None)
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return None


class Ticker:
    """Calls `tick()` every TICK_SECONDS on the kernel's loop (if there is one); `wake()`,
    callable from any thread, asks for a tick now."""

    def __init__(self, tick: Callable[[], Any], seconds: float = TICK_SECONDS) -> None:
        self.tick = tick
        self.loop = kernel_loop()
        self.periodic = None
        if self.loop is not None:
            from tornado.ioloop import PeriodicCallback

            self.periodic = PeriodicCallback(self._safe_tick, seconds * 1000)
            self.loop.add_callback(self.periodic.start)

    def _safe_tick(self) -> None:
        try:
            self.tick()
        except Exception:  # a page keeps working; the error goes to the server's log
            import logging

            logging.getLogger("amteach").exception("class page tick failed")

    def wake(self) -> None:
        if self.loop is not None:
            self.loop.add_callback(self._safe_tick)

    def stop(self) -> None:
        if self.periodic is not None:
            self.periodic.stop()


def page_address() -> str:
    """The address of this page as the visitor opened it (Voilà hands it to the kernel), or
    the server's public address (`--public-url`); "" outside a server."""
    public = os.environ.get(PUBLIC_URL_ENV)
    if public:
        return public
    request = os.environ.get("VOILA_REQUEST_URL")
    if request:
        return request
    host, port = os.environ.get("SERVER_NAME"), os.environ.get("SERVER_PORT")
    if host:
        where = f"{host}:{port}" if port else host
        return f"http://{where}{os.environ.get('SCRIPT_NAME', '/')}"
    return ""


def join_link(code: str, address: str | None = None) -> str:
    """The page's address with `?room=CODE` and nothing else in its query."""
    parts = urlsplit(address if address is not None else page_address())
    if not parts.scheme:
        return f"?room={code}"
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", f"room={code}", ""))


def room_in_query(query: str | None) -> str | None:
    """The room code a join link carries (`?room=K7Q2XH`), or None."""
    values = parse_qs(query or "").get("room")
    return values[0] if values else None


# the class that makes a widget a polite live region: the page's template gives the widget's
# content box role="status" once (ipywidgets cannot set ARIA attributes), and that box then
# stays while its text changes, which is what screen readers announce
LIVE_CLASS = "am-live"
# after a new game, a scenario or an undo: how many of the game's events are announced
RESTART_LINES = 6


class Announcer:
    """What the last decision did, in the narration's sentences, for a screen reader: a
    visually hidden polite live region that holds only the newest events, so each event is
    announced once (the visible narration keeps the history, newest first). `session` is
    anything with `cursor()` (amteach.session.Session)."""

    def __init__(self, session: Any) -> None:
        self.cursor = session.cursor()
        self.cursor.take()  # what happened before this page opened is on the page already
        self.count = 0
        self.widget = widgets.HTML()
        self.widget.add_class(LIVE_CLASS)
        self.widget.add_class("am-sr-only")

    def refresh(self) -> None:
        events, restarted = self.cursor.take()
        lines = [event.text for event in events]
        if restarted:  # a new game, a scenario, an undo: the game's last few events
            lines = lines[-RESTART_LINES:] or ["A new game is on the board."]
        if not lines:
            return
        self.count += 1  # the same words twice are still news: the HTML differs
        self.widget.value = html_text(
            '<div data-news="{}">{}</div>',
            self.count,
            html_join(html_text("<p>{}</p>", line) for line in lines),
        )
