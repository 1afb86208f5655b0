"""A student's phone at the protocol level (docs/class-play.md, "The phone protocol"): one
websocket to a server's `amteach/phone/ws`, the messages it got, and the parts of its seat's
view as last sent. Used by tests/test_phones.py and tests/test_multi_server.py."""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import re
import time

from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from amteach.rooms.hub import Hub, Phone

BUTTON = re.compile(r'class="am-choice" data-choice="([^"]*)" data-at="(\d+)"')
LABELLED = re.compile(r'class="am-choice" data-choice="([^"]*)" data-at="(\d+)">([^<]*)<')


class Client:
    """One phone at the protocol level, optionally from another loopback address."""

    def __init__(self, url: str, source: str | None = None, cookie: str | None = None) -> None:
        self.url, self.source, self.cookie = url, source, cookie
        self.parts: dict[str, str] = {}
        self.messages: list[dict] = []
        self.connection = None

    async def open(self) -> Client:
        address = self.url.replace("http://", "ws://") + "amteach/phone/ws"
        headers = {"Cookie": self.cookie} if self.cookie else None
        request = HTTPRequest(address, network_interface=self.source, headers=headers)
        self.connection = await websocket_connect(request)
        return self

    async def send(self, **message) -> None:
        await self.connection.write_message(json.dumps(message))

    async def read(self, timeout: float = 20.0) -> dict | None:
        text = await asyncio.wait_for(self.connection.read_message(), timeout)
        if text is None:
            return None
        message = json.loads(text)
        self.messages.append(message)
        if message["type"] == "view":
            self.parts.update(message["parts"])
        return message

    async def until(self, check, timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = await self.read(max(0.1, deadline - time.monotonic()))
            assert message is not None, f"the server closed the connection: {self.messages[-3:]}"
            if check(message):
                return message
        raise AssertionError(f"not seen within {timeout} s: {self.messages[-3:]}")

    async def join(self, code: str, name: str) -> dict:
        await self.send(type="hello", room=code)
        await self.until(lambda m: m["type"] == "form")
        await self.send(type="join", room=code, name=name)
        return await self.until(lambda m: m["type"] in ("seated", "message"))

    def first_button(self) -> tuple[object, int] | None:
        found = BUTTON.search(self.parts.get("choices", ""))
        if found is None:
            return None
        return json.loads(html.unescape(found.group(1))), int(found.group(2))


async def play_until(phones: list[Client], done, timeout: float = 120.0) -> None:
    """Each phone presses its first choice whenever it has one, until `done()`."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"not done within {timeout} s"
        for phone in phones:
            with contextlib.suppress(TimeoutError):
                await phone.read(timeout=0.1)
            button = phone.first_button()
            if button is not None:
                choice, at = button
                await phone.send(type="choose", choice=choice, at=at)
                phone.parts["choices"] = ""  # pressed: wait for the next view


async def wait_until(phones: list[Client], done, timeout: float = 60.0) -> None:
    """Read what the phones are sent, pressing nothing, until `done()`."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"not seen within {timeout} s: " + repr(
            [p.messages[-2:] for p in phones]
        )
        for phone in phones:
            with contextlib.suppress(TimeoutError):
                await phone.read(timeout=0.1)


class Clock:
    """A hub's clock that a test moves by hand (`clock.now += 60`): join windows, presence and
    the two-hour timer, without waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class HubPhone:
    """A phone handed straight to a `Hub` (no network), keeping what it was sent: what the
    websocket handler would pass on."""

    def __init__(self, hub: Hub, name: str, address: str = "10.0.0.1") -> None:
        self.hub = hub
        self.received: list[dict] = []
        self.parts: dict[str, str] = {}
        self.phone = Phone(f"device-of-{name}-0123456789", address, self._deliver)
        hub.connect(self.phone)

    def _deliver(self, text: str) -> None:
        message = json.loads(text)
        assert message["v"] == 1
        self.received.append(message)
        if message["type"] == "view":
            self.parts.update(message["parts"])

    def send(self, **message) -> None:
        self.hub.receive(self.phone, message)

    def lines(self) -> list[str]:
        return [m["text"] for m in self.received if m["type"] == "message"]

    def buttons(self) -> list[tuple[object, int, str]]:
        """(choice, decision number, label) of each choice button shown now."""
        return [
            (json.loads(html.unescape(choice)), int(at), html.unescape(label))
            for choice, at, label in LABELLED.findall(self.parts.get("choices", ""))
        ]

    def press(self, label: str) -> None:
        choice, at = next((c, a) for c, a, shown in self.buttons() if shown == label)
        self.send(type="choose", choice=choice, at=at)

    def press_first(self) -> bool:
        found = self.buttons()
        if not found:
            return False
        choice, at, _ = found[0]
        self.send(type="choose", choice=choice, at=at)
        return True
