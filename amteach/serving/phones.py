"""Students' phones without kernels: the light page a join link opens, and its websocket.

`amteach dashboard` serves a join link (`?room=CODE`) this page, from its own process: a
small HTML page with the phone's style sheet and one small script (`phone_page/`). The page
opens one websocket to `PHONE_ROUTE` and speaks the phone protocol (docs/class-play.md): it
sends the student's choices, and the server sends the parts of its seat's view that changed.
The tables' sessions live in the server's `Hub` (`amteach.rooms.hub`), on one thread of their
own (`HubThread`), so the event loop only carries bytes and a phone costs a websocket.

Limits, on by default (`PhoneLimits`): connections per address and per device cookie, the
size and rate of messages, joins per device and per address, and a bounded send queue: a
phone that falls `send_queue` messages behind is dropped, and resumes from the log when it
reconnects. Dead connections are found by websocket pings.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import os
import secrets
import threading
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from importlib.resources import files
from typing import Any

from tornado import web, websocket
from tornado.ioloop import IOLoop, PeriodicCallback

from ..render import PHONE_STYLE
from ..rooms import open_rooms
from ..rooms.hub import Hub, Phone, PhoneLimits
from .clients import DEVICE_COOKIE, DEVICE_COOKIE_FORM, TRUSTED_PROXIES_SETTING, client_address

log = logging.getLogger("amteach.phones")

# where a phone's websocket connects, under the server's base URL
PHONE_ROUTE = "amteach/phone/ws"
MAX_MESSAGE_BYTES = 16 * 1024  # the longest message a phone may send (a trade offer is < 1 kB)
# a phone's messages still waiting for the hub: more closes the connection, so a busy hub's
# queue holds at most this many per connection (a person waits for each answer)
IN_HUB = 16
TICK_SECONDS = 0.1  # how often the hub looks at its tables (bots, the timer) at most
PING_SECONDS = 10  # websocket pings find phones that vanished without a goodbye
# a phone that answers no ping within this long is closed (at most the ping interval)
PING_TIMEOUT_SECONDS = 10


def page_asset(name: str) -> str:
    return files("amteach.serving").joinpath("phone_page", name).read_text(encoding="utf-8")


class Outbox:
    """Messages from the hub's thread to the phones' sockets, handed to the event loop in
    batches: the hub queues what one piece of work sends (a decision: a view for every phone
    of the table) and wakes the loop once when the work is done, not once per message; each
    socket's messages keep their order. (Each wake-up is a write that gives the GIL to the
    loop's thread, and the hub's thread then waits to get it back: a quarter of the hub's
    time with 300 phones, benchmarks/bench_load.py.)"""

    def __init__(self, loop: IOLoop) -> None:
        self.loop = loop
        self.lock = threading.Lock()
        self.waiting: list[tuple[PhoneSocket, str]] = []
        self.woken = False

    def put(self, socket: PhoneSocket, text: str) -> None:
        """Queue `text` for `socket` (the hub's thread); `wake` sends it."""
        with self.lock:
            self.waiting.append((socket, text))

    def wake(self) -> None:
        """Have the loop send what is queued (the hub's thread, after each piece of work)."""
        with self.lock:
            if not self.waiting or self.woken:
                return
            self.woken = True
        self.loop.add_callback(self.flush)

    def flush(self) -> None:
        """Send everything queued (on the loop)."""
        with self.lock:
            batch, self.waiting, self.woken = self.waiting, [], False
        for socket, text in batch:
            socket.push(text)


class HubThread:
    """The hub on one thread of its own: every message, connection and tick is handed to it in
    order, and it hands back only text to send. At most one tick waits at a time, so a busy
    hub never piles up ticks."""

    def __init__(self, hub: Hub, loop: IOLoop) -> None:
        self.hub, self.loop = hub, loop
        self.outbox = Outbox(loop)
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="amteach-hub")
        self.tick_waiting = threading.Event()
        self.ticker = PeriodicCallback(self.tick, TICK_SECONDS * 1000)
        self.ticker.start()

    def submit(self, work: Any, *args: Any) -> Future:
        return self.executor.submit(self._run, work, *args)

    def _run(self, work: Any, *args: Any) -> None:
        try:
            work(*args)
        except Exception:  # a bug of ours: logged, and the hub goes on
            log.exception("class play: %s failed", getattr(work, "__name__", work))
        finally:
            self.outbox.wake()

    def tick(self) -> None:
        if not self.tick_waiting.is_set():
            self.tick_waiting.set()
            self.submit(self._tick)

    def _tick(self) -> None:
        self.tick_waiting.clear()
        self.hub.tick()

    def stop(self) -> None:
        self.ticker.stop()
        self.submit(self.hub.close)
        self.executor.shutdown(wait=True, cancel_futures=True)


class Connections:
    """Open phone connections by address and by device (the limits' counts)."""

    def __init__(self) -> None:
        self.by_address: Counter[str] = Counter()
        self.by_device: Counter[str] = Counter()

    def add(self, address: str, device: str) -> None:
        self.by_address[address] += 1
        self.by_device[device] += 1

    def remove(self, address: str, device: str) -> None:
        for counter, key in ((self.by_address, address), (self.by_device, device)):
            counter[key] -= 1
            if counter[key] <= 0:
                del counter[key]


# the server's settings: the hub's thread, the limits and the open connections
HUB_SETTING = "amteach_phone_hub"
LIMITS_SETTING = "amteach_phone_limits"
CONNECTIONS_SETTING = "amteach_phone_connections"


def device_of(handler: web.RequestHandler) -> str:
    """The device cookie's value (set by the page), or a name of this connection's own."""
    value = handler.get_cookie(DEVICE_COOKIE) or ""
    return value if DEVICE_COOKIE_FORM.fullmatch(value) else "anon-" + secrets.token_urlsafe(12)


class PhoneSocket(websocket.WebSocketHandler):
    """One phone's websocket: limits at the door, messages in order to the hub, and a
    bounded queue of messages out."""

    phone: Phone | None = None
    pending = 0
    in_hub = 0  # messages handed to the hub and not yet handled
    refused = False
    window: list[float]

    @property
    def max_message_size(self) -> int:  # type: ignore[override]
        return MAX_MESSAGE_BYTES

    def check_origin(self, origin: str) -> bool:
        # a page of this server only: the origin's host is the Host header (tornado's rule)
        return super().check_origin(origin)

    def get_compression_options(self) -> dict[str, Any] | None:
        return {}  # views are HTML: permessage-deflate makes them a fifth

    def open(self, *args: Any, **kwargs: Any) -> None:
        hub: HubThread = self.settings[HUB_SETTING]
        limits: PhoneLimits = self.settings[LIMITS_SETTING]
        connections: Connections = self.settings[CONNECTIONS_SETTING]
        trusted = self.settings.get(TRUSTED_PROXIES_SETTING) or []
        peer = self.request.remote_ip or ""
        self.address = client_address(peer, self.request.headers, trusted)
        self.device = device_of(self)
        self.window = []
        if connections.by_address[self.address] >= limits.connections_per_address:
            self.refuse("Too many pages are open from this network; close some and reload.")
            return
        if connections.by_device[self.device] >= limits.connections_per_device:
            self.refuse("Too many pages are open on this device; close the others and reload.")
            return
        connections.add(self.address, self.device)
        self.phone = Phone(self.device, self.address, lambda text: hub.outbox.put(self, text))
        hub.submit(hub.hub.connect, self.phone)

    def refuse(self, text: str) -> None:
        """One line saying which limit, then the connection closes (1008: policy)."""
        self.refused = True
        if self.ws_connection is not None and not self.ws_connection.is_closing():
            message = {"v": 1, "type": "message", "ok": False, "level": "error", "text": text}
            self.write_message(json.dumps(message))
            self.close(1008, "limit")

    def on_message(self, message: str | bytes) -> None:
        phone = self.phone
        if phone is None or self.refused:
            return
        limits: PhoneLimits = self.settings[LIMITS_SETTING]
        moment = IOLoop.current().time()
        self.window = [t for t in self.window if moment - t < 1.0]
        self.window.append(moment)
        if len(self.window) > limits.messages_per_second:
            self.refuse("This page sent too many messages at once and was disconnected; reload it.")
            return
        try:
            data = json.loads(message)
        except (ValueError, UnicodeDecodeError):
            self.push(
                json.dumps(
                    {
                        "v": 1,
                        "type": "message",
                        "ok": False,
                        "level": "warning",
                        "text": "The page sent a message that is not JSON.",
                    }
                )
            )
            return
        if self.in_hub >= IN_HUB:
            self.refuse("This page sent too many messages at once and was disconnected; reload it.")
            return
        hub: HubThread = self.settings[HUB_SETTING]
        self.in_hub += 1
        loop = IOLoop.current()
        handled = hub.submit(hub.hub.receive, phone, data)
        handled.add_done_callback(lambda _: loop.add_callback(self._handled))

    def _handled(self) -> None:
        self.in_hub -= 1

    def push(self, text: str) -> None:
        """Send one message, or drop a phone that has `send_queue` messages still unsent (a
        dead or slow phone): it resumes from the log when it reconnects."""
        if self.refused or self.ws_connection is None or self.ws_connection.is_closing():
            return
        limits: PhoneLimits = self.settings[LIMITS_SETTING]
        if self.pending >= limits.send_queue:
            self.close(1013, "too far behind")
            return
        self.pending += 1
        try:
            sent = self.write_message(text)
        except websocket.WebSocketClosedError:
            return
        sent.add_done_callback(self._sent)

    def _sent(self, future: asyncio.Future) -> None:
        self.pending -= 1
        if not future.cancelled():
            future.exception()  # a closed connection: nothing to do, and nothing to log

    def on_close(self) -> None:
        phone, self.phone = self.phone, None
        if phone is None:
            return
        self.settings[CONNECTIONS_SETTING].remove(self.address, self.device)
        hub: HubThread = self.settings[HUB_SETTING]
        hub.submit(hub.hub.disconnect, phone)


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Anti-Monopoly: your seat</title>
<link rel="icon" href="data:,">
{style}<style>{css}</style></head>
<body>
<main class="am-light" data-ws="{ws}" data-room="{room}">
<h1 id="am-title" data-seated="Anti-Monopoly">Anti-Monopoly: join your class</h1>
<div id="am-message" class="am-message" role="status" aria-live="polite"></div>
<form id="am-join" class="am-join" aria-labelledby="am-title" hidden>
  <label for="am-room">Room code</label>
  <input id="am-room" name="room" autocomplete="off" autocapitalize="characters" maxlength="12"
    placeholder="the code on the projector">
  <label for="am-name">Your name</label>
  <input id="am-name" name="name" autocomplete="given-name" maxlength="24" placeholder="first name">
  <div id="am-student-id-box" class="am-student-id" hidden>
    <label for="am-student-id">Student ID or email (for the gradebook)</label>
    <input id="am-student-id" name="student_id" autocomplete="off" autocapitalize="none"
      spellcheck="false" maxlength="64">
  </div>
  <fieldset id="am-prefers" hidden><legend>Roles are chosen by the dice: you would rather be</legend>
    <label><input type="radio" name="prefers" value="competitor"> a Competitor</label>
    <label><input type="radio" name="prefers" value="monopolist"> a Monopolist</label>
  </fieldset>
  <button type="submit" id="am-join-button">Join</button>
  <details class="am-moved"><summary>Moving your seat to this device?</summary>
    <label for="am-move-code">The code your teacher gave you</label>
    <input id="am-move-code" name="code" autocomplete="one-time-code" maxlength="12" inputmode="text">
    <button type="button" id="am-claim">Take my seat on this device</button>
  </details>
</form>
<div id="am-seat" class="am-seat" hidden>
{parts}
</div>
<div id="am-announce" class="am-visually-hidden" aria-live="polite"></div>
<noscript>This page needs JavaScript to play.</noscript>
</main>
<script>{js}</script>
</body></html>
"""


def phone_page(base_url: str, room: str) -> str:
    """The light page for a join link (`room` as the link gives it, escaped; the code box is
    filled by the page once the server has checked it)."""
    from ..rooms.phone_view import PARTS

    parts = "\n".join(f'<div id="am-part-{part}" class="am-part-{part}"></div>' for part in PARTS)
    return PAGE.format(
        style=PHONE_STYLE,
        css=page_asset("phone.css"),
        js=page_asset("phone.js"),
        ws=html.escape(base_url.rstrip("/") + "/" + PHONE_ROUTE, quote=True),
        # one character more than a code may have: the server can tell a link's code too long
        room=html.escape(room[:13], quote=True),
        parts=parts,
    )


def phone_settings(
    limits: PhoneLimits | None = None,
    rooms_url: str | None = None,
    logger: logging.Logger = log,
) -> dict[str, Any]:
    """The server settings the phone handlers need: the hub on its thread (rooms from
    `rooms_url`, default the server's `--rooms`), the limits and the connection counts."""
    limits = limits or PhoneLimits()
    hub = Hub(open_rooms(rooms_url), limits, logger=logger)
    return {
        HUB_SETTING: HubThread(hub, IOLoop.current()),
        LIMITS_SETTING: limits,
        CONNECTIONS_SETTING: Connections(),
        "websocket_ping_interval": PING_SECONDS,
        "websocket_ping_timeout": PING_TIMEOUT_SECONDS,
    }


def limits_from_environment() -> PhoneLimits:
    """PhoneLimits, with any field set as AMTEACH_PHONE_<FIELD> (a whole number)."""
    limits = PhoneLimits()
    for name in vars(limits):
        value = os.environ.get(f"AMTEACH_PHONE_{name.upper()}")
        if value is not None:
            try:
                setattr(limits, name, max(1, int(value)))
            except ValueError:
                raise ValueError(
                    f"AMTEACH_PHONE_{name.upper()} must be a whole number, not {value!r}"
                ) from None
    return limits
