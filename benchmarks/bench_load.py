"""A class playing on students' phones, measured at the protocol level (issue 36).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_load.py --class-of 60 --tables 10 \\
        [--seconds 60] [--rooms sqlite|postgresql] [--servers 1|2] [--nginx] \\
        [--chromium 3] [--repeat 3] [--think 1 2] [--profile] [--dump PATH]

    e.g. 300 phones on one server:   --class-of 300 --tables 50 --chromium 3 --repeat 3
         1,000 on two behind nginx:  --class-of 1000 --tables 167 --servers 2 --nginx \
                                     --rooms postgresql

What runs, all on loopback, in a temporary folder, every process stopped by its id:
- `amteach dashboard`'s server (`amteach.serving.app`, pool of 1: the instructor's kernel)
  with the class database in `AMTEACH_ROOMS`; with `--servers 2` two of them on one
  PostgreSQL (`--rooms postgresql`, a private server of tests/postgres.py), and with
  `--nginx` Debian's nginx in front with the site file of docs/deploy.md (several-servers
  when there are two);
- the class: `--tables` tables of `--class-of / --tables` seats (at most 6), in rooms of at
  most 10 tables: a room holds 20 tables at most and lets 60 students join a minute
  (ROOM_JOINS_PER_MINUTE), so a lecture hall is several rooms. Game A, round cap 1000 (the
  games last the run), bot delay 1 s. The phones all come from 127.0.0.1, so the server's
  per-address limits are raised for the run (AMTEACH_PHONE_JOINS_PER_ADDRESS and
  AMTEACH_PHONE_CONNECTIONS_PER_ADDRESS, ten times the class: a lecture hall behind one NAT
  needs the same);
- N phones, each as the light page does it (amteach/serving/phone_page/phone.js): GET the join
  link `?room=CODE` (timed: "page"), open the websocket `amteach/phone/ws` (with the page's
  cookies), `hello`, then `join` with a name. When every phone has joined, the instructor
  starts the rooms (`Rooms.start`, from this process, as the Class tab does);
- each phone, whenever its choices part offers buttons for a decision count it has not
  clicked, thinks `--think` s (uniform, default 1 to 2 s), then chooses the first button
  (`choose` with the button's data-choice and data-at);
- `--chromium K`: K of the N phones are real Chromium pages (390x844, Playwright) that open
  the link, type a name, press Join and click the first choice the same way. What a page
  shows is timed by the page itself (a MutationObserver, Date.now(), the same clock); its
  click is timed when Playwright is asked to click (a few ms before the page sends it).
The class arrives once the server's kernel has built the instructor's dashboard (its CPU
quiet for two seconds): a class meets a server that has been up for a while.

Measured (p50 / p95 / max over every phone or every pair):
- **first frame**: from sending `join` (a Chromium phone: pressing Join) to the first `view`
  after `seated` (the seat's lobby: "You sit at table T"); also the page GET, and **start to
  table**: from the instructor's start to the phone's first view of its table (a status part
  with `data-at`);
- **click to others**: from a phone sending `choose` at decision count n to the moment each
  other phone of its table receives a status part with `data-at` > n (the table's decision
  count is in the status part, amteach/rooms/phone_view.py), and the same to the mover's
  own phone ("own");
- **errors**: HTTP errors, failed joins, `message`s of level error, websockets closed by the
  server, and moves that never reached another phone of the table within 10 s after the end;
  warnings (a stale button) are counted apart;
- **decisions**: decisions the tables made during the run (students' and bots');
- **PSS**: proportional set size of every server process and its children (the instructor's
  kernel) together, at the end of play (and the peak of samples every 5 s); nginx and
  PostgreSQL apart;
- **loop lag**: latency of a tiny request (a 404 of the server's own) sent to each server
  every 0.25 s during play, from a process of its own: when the server's event loop is
  blocked, it waits; and the load generator's own loop lag (a late timer), which says
  whether the figures are the server's or this process's;
- CPU seconds during play of the servers (processes and kernels), of their main threads (the
  event loop) and other threads (the hub's, with the database watcher's), the hub's CPU per
  decision (ms: a figure the machine's load moves little), of this load generator, and the
  load average at the end. Another job on the machine slows everything: note the load.

`--repeat R` runs the whole thing R times (new servers, new database) and prints each run and
the median of each figure (for the latencies: the percentiles of the run whose p95 is the
median). `--dump PATH` writes each click's delays to the other phones with when the click was
sent (PATH.RUN.json), to see when a tail happens. `--profile` samples the server(s) with py-spy during play (pip
install py-spy into the virtualenv; measuring only) and prints each thread's share and the
hub thread's heaviest functions.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import json
import multiprocessing
import os
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

REPO = Path(__file__).resolve().parents[1]
PHONE_ROUTE = "amteach/phone/ws"
SEATS_MAX = 6
ROOM_TABLES = 10  # tables per room: 60 seats, what a room lets join in a minute
CONNECT_TIMEOUT = 60.0
JOIN_TIMEOUT = 120.0  # every phone has this long to join
CATCH_UP = 10.0  # after play, seconds for the last moves to reach every phone
PROBE_EVERY = 0.25
PY_SPY = Path(sys.executable).with_name("py-spy")
STATUS_AT = re.compile(r'class="am-status[^"]*" data-at="(\d+)"')
BUTTON = re.compile(
    r'<button type="button" class="am-choice" data-choice="([^"]*)" data-at="(\d+)"'
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def stats(values: list[float], scale: float = 1000.0) -> str:
    """p50 / p95 / max, in ms by default."""
    if not values:
        return "-"
    return (
        f"{percentile(values, 50) * scale:.0f} / {percentile(values, 95) * scale:.0f} / "
        f"{max(values) * scale:.0f}"
    )


# --- the servers ------------------------------------------------------------------------------


@dataclass
class Served:
    port: int
    process: subprocess.Popen
    log: list[str] = field(default_factory=list)

    def pids(self) -> list[int]:
        try:
            me = psutil.Process(self.process.pid)
            return [me.pid, *(child.pid for child in me.children(recursive=True))]
        except psutil.NoSuchProcess:
            return []


@contextlib.contextmanager
def dashboard(folder: Path, database: str, base_url: str, env: dict[str, str]) -> Iterator[Served]:
    """`amteach dashboard --rooms DATABASE` on a free loopback port (pool of 1), until the block
    ends; then SIGTERM to its process id."""
    from amteach.content import dashboard_notebook
    from amteach.rooms import ROOMS_ENV
    from amteach.serving import TEMPLATE, voila_command

    port = free_port()
    command = voila_command(dashboard_notebook(), port, "127.0.0.1", 1, TEMPLATE, 600, base_url)
    extra = {ROOMS_ENV: database}
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=folder,
        env={**env, **extra},
        start_new_session=True,
    )
    served = Served(port, process)
    try:
        deadline = time.monotonic() + 300
        for line in process.stdout:
            served.log.append(line)
            if "is running at" in line:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start in 300 s")
        else:
            raise RuntimeError("the server ended:\n" + "".join(served.log[-30:]))
        threading.Thread(target=lambda: served.log.extend(process.stdout), daemon=True).start()
        yield served
    finally:
        if process.poll() is None:
            # the server and its kernel: SIGTERM to the server; it stops its kernels
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=30)


def site_file(several: bool) -> str:
    text = (REPO / "docs" / "deploy.md").read_text(encoding="utf-8")
    fence = "```nginx several-servers\n" if several else "```nginx\n"
    blocks = re.findall(re.escape(fence) + r"(.*?)```", text, re.S)
    assert len(blocks) == 1, f"docs/deploy.md has one {fence!r} block"
    return blocks[0]


@contextlib.contextmanager
def nginx_in_front(upstreams: list[int], folder: Path) -> Iterator[int]:
    """Debian's nginx with docs/deploy.md's site file (several-servers with two upstreams) on a
    free loopback port in front of `upstreams`; stopped by process id."""
    several = len(upstreams) > 1
    site = site_file(several)
    if several:
        servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+;\n", site, re.M)
        site = site.replace(
            "".join(servers), "".join(f"    server 127.0.0.1:{p};\n" for p in upstreams)
        )
    else:
        site = site.replace("127.0.0.1:8866", f"127.0.0.1:{upstreams[0]}")
    port = free_port()
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    temp = "\n".join(
        f"    {kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    user = "user root;\n" if os.geteuid() == 0 else ""
    (folder / "nginx.conf").write_text(
        f"{user}worker_processes 1;\nworker_rlimit_nofile 16384;\npid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'} warn;\n"
        "events { worker_connections 8192; }\n"
        f"http {{\n    access_log off;\n{temp}\n{site}\n}}\n"
    )
    command = ["/usr/sbin/nginx", "-p", str(folder), "-c", str(folder / "nginx.conf")]
    check = subprocess.run([*command, "-t"], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    process = subprocess.Popen([*command, "-g", "daemon off;"], stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("nginx never accepted a connection")
        yield port
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def thread_seconds(servers: list[Served]) -> tuple[float, float]:
    """CPU seconds of the servers' main threads (the event loop) and of their other threads
    (the hub's, with the database watcher's), kernels not counted."""
    loop = others = 0.0
    for server in servers:
        with contextlib.suppress(psutil.Error):
            for thread in psutil.Process(server.process.pid).threads():
                spent = thread.user_time + thread.system_time
                if thread.id == server.process.pid:
                    loop += spent
                else:
                    others += spent
    return loop, others


def wait_until_quiet(servers: list[Served], limit: float = 300.0) -> float:
    """Until each server has its kernel and they all used under 5 % of a core for two seconds
    running (the pool's kernel has built the instructor's dashboard): a class arrives at a
    server that has been up for a while. Returns the seconds waited."""
    began = time.monotonic()
    quiet = 0
    while time.monotonic() - began < limit and quiet < 2:
        pids = [pid for server in servers for pid in server.pids()]
        before = cpu_seconds(pids)
        time.sleep(1.0)
        enough = all(len(server.pids()) >= 2 for server in servers)
        quiet = quiet + 1 if enough and cpu_seconds(pids) - before < 0.05 else 0
    return time.monotonic() - began


def pss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            total += psutil.Process(pid).memory_full_info().pss
    return total / 2**20


def cpu_seconds(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            times = psutil.Process(pid).cpu_times()
            total += times.user + times.system
    return total


# --- the event loop's lag, seen from outside ----------------------------------------------------


def probe(urls: list[str], stop: Any, results: Any) -> None:
    """In a process of its own: GET each URL (a tiny 404) every PROBE_EVERY s; put
    (wall-clock time, seconds) for each answer, None for none within 10 s."""
    import http.client
    from urllib.parse import urlsplit

    found: list[tuple[float, float | None]] = []
    while not stop.is_set():
        for url in urls:
            parts = urlsplit(url)
            began = time.time()
            try:
                connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
                connection.request("GET", parts.path)
                connection.getresponse().read()
                connection.close()
                found.append((began, time.time() - began))
            except OSError:
                found.append((began, None))
        stop.wait(PROBE_EVERY)
    results.put(found)


# --- a protocol-level phone ---------------------------------------------------------------------


@dataclass
class Phone:
    """One student's phone, as phone.js does it."""

    index: int
    page_url: str  # the join link
    ws_url: str
    code: str
    name: str
    think: tuple[float, float]
    rng: random.Random
    cookies: dict[str, str] = field(default_factory=dict)
    table: int = -1
    page: float | None = None
    first_frame: float | None = None
    start_view: float | None = None
    seen: list[tuple[float, int]] = field(default_factory=list)  # (when, decision count)
    clicks: list[tuple[float, int]] = field(default_factory=list)  # (when sent, at)
    refused: set[int] = field(default_factory=set)  # clicks answered with a warning
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    offer: tuple[int, Any] | None = None  # the first button: (at, choice)
    closing: bool = False
    seated: bool = False
    started_at: float | None = None

    async def join(self) -> None:
        try:
            began = time.perf_counter()
            response = await AsyncHTTPClient().fetch(
                self.page_url, request_timeout=CONNECT_TIMEOUT, follow_redirects=False
            )
            self.page = time.perf_counter() - began
            for cookie in response.headers.get_list("Set-Cookie"):
                name, _, value = cookie.split(";", 1)[0].partition("=")
                self.cookies[name.strip()] = value
            if 'data-ws="' not in response.body.decode():
                raise RuntimeError("the join link gave no light page")
            cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            self.socket = await websocket_connect(
                HTTPRequest(
                    self.ws_url,
                    headers={"Cookie": cookie},
                    connect_timeout=CONNECT_TIMEOUT,
                    request_timeout=CONNECT_TIMEOUT,
                ),
                compression_options={},  # browsers ask for permessage-deflate
            )
        except (TimeoutError, HTTPClientError, OSError, RuntimeError) as err:
            self.errors.append(f"page or websocket: {type(err).__name__}: {err}")
            return
        self.formed = asyncio.Event()
        self.seated_event = asyncio.Event()
        self.framed = asyncio.Event()
        self.changed = asyncio.Event()
        self.reader = asyncio.ensure_future(self.read())
        self.send({"type": "hello", "room": self.code, "token": None})
        await asyncio.wait_for(self.formed.wait(), CONNECT_TIMEOUT)
        self.join_sent = time.perf_counter()
        self.send(
            {"type": "join", "room": self.code, "name": self.name, "prefers": None, "token": None}
        )
        await asyncio.wait_for(self.framed.wait(), JOIN_TIMEOUT)

    def send(self, message: dict[str, Any]) -> None:
        self.socket.write_message(json.dumps({**message, "v": 1}))

    async def read(self) -> None:
        while True:
            frame = await self.socket.read_message()
            if frame is None:
                if not self.closing:
                    self.errors.append(f"websocket closed by the server ({self.socket.close_code})")
                for event in (self.formed, self.framed, self.changed):
                    event.set()
                return
            moment = time.perf_counter()
            message = json.loads(frame)
            kind = message.get("type")
            if kind == "form":
                self.formed.set()
            elif kind == "seated":
                self.seated = True
                self.table = message["table"] - 1
            elif kind == "view":
                self.on_view(moment, message.get("parts", {}))
            elif kind == "message":
                level = message.get("level")
                if level == "error":
                    self.errors.append(f"message: {message.get('text')}")
                elif level == "warning":
                    self.warnings.append(message.get("text", ""))
                    if self.clicks:
                        self.refused.add(self.clicks[-1][1])
                if not self.seated and not message.get("ok", True):
                    self.errors.append(f"join refused: {message.get('text')}")
                    self.framed.set()
            elif kind == "forget":
                self.errors.append("the server forgot this seat")

    def on_view(self, moment: float, parts: dict[str, str]) -> None:
        if self.seated and not self.framed.is_set():
            self.first_frame = moment - self.join_sent
            self.framed.set()
        status = parts.get("status")
        if status is not None:
            found = STATUS_AT.search(status)
            if found:
                at = int(found.group(1))
                if self.start_view is None and self.started_at is not None:
                    self.start_view = moment - self.started_at
                if not self.seen or at > self.seen[-1][1]:
                    self.seen.append((moment, at))
        if "choices" in parts:
            button = BUTTON.search(parts["choices"])
            self.offer = (
                (int(button.group(2)), json.loads(html.unescape(button.group(1))))
                if button
                else None
            )
            self.changed.set()

    async def play(self, until: float) -> None:
        """Until `until`: whenever a new decision is offered, think, then choose the first."""
        clicked = -1
        while time.perf_counter() < until and not self.socket_closed():
            if self.offer is None or self.offer[0] <= clicked:
                self.changed.clear()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(
                        self.changed.wait(), max(0.05, until - time.perf_counter())
                    )
                continue
            await asyncio.sleep(self.rng.uniform(*self.think))
            if self.offer is None or time.perf_counter() >= until:
                continue
            at, choice = self.offer
            clicked = at
            self.clicks.append((time.perf_counter(), at))
            self.send({"type": "choose", "choice": choice, "at": at})

    def socket_closed(self) -> bool:
        return self.reader.done()

    async def close(self) -> None:
        self.closing = True
        if getattr(self, "socket", None) is not None:
            self.socket.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.reader, 10)

    def seen_at(self, count: int) -> float | None:
        """When this phone first showed a decision count of at least `count`."""
        k = bisect_left([c for _, c in self.seen], count)
        return self.seen[k][0] if k < len(self.seen) else None


# --- a Chromium phone -----------------------------------------------------------------------


SEEN_SCRIPT = """
window.__amSeen = [];
new MutationObserver(function () {
  var status = document.querySelector('#am-part-status .am-status[data-at]');
  if (!status) return;
  var at = Number(status.getAttribute('data-at'));
  var seen = window.__amSeen;
  if (!seen.length || at > seen[seen.length - 1][1]) seen.push([Date.now(), at]);
}).observe(document, {subtree: true, childList: true, attributes: true});
"""


@dataclass
class ChromiumPhone(Phone):
    """A real page in Chromium (390x844) that joins and clicks as a student does. Times of
    what it shows are its own page's (a MutationObserver), on the same machine's clock."""

    context: Any = None

    async def open(self, browser: Any) -> None:
        self.context = await browser.new_context(viewport={"width": 390, "height": 844})
        self.tab = await self.context.new_page()
        await self.tab.add_init_script(SEEN_SCRIPT)
        self.tab.on("pageerror", lambda err: self.errors.append(f"page error: {err}"))
        began = time.perf_counter()
        try:
            response = await self.tab.goto(self.page_url, timeout=CONNECT_TIMEOUT * 1000)
            if response is None or not response.ok:
                raise RuntimeError(f"HTTP {response.status if response else '?'}")
            await self.tab.wait_for_selector("#am-join:not([hidden])", timeout=60_000)
            self.page = time.perf_counter() - began
            await self.tab.fill("#am-name", self.name)
            self.join_sent = time.perf_counter()
            await self.tab.click("#am-join-button")
            await self.tab.wait_for_selector(
                "#am-seat:not([hidden]) #am-part-status .am-status", timeout=JOIN_TIMEOUT * 1000
            )
            self.first_frame = time.perf_counter() - self.join_sent
            said = await self.tab.inner_text("#am-message")
            found = re.search(r"table (\d+)", said)
            self.table = int(found.group(1)) - 1 if found else -1
            self.seated = True
        except Exception as err:  # Playwright's errors: one line each
            self.errors.append(f"chromium join: {type(err).__name__}: {err}"[:300])

    async def wait_table(self) -> None:
        with contextlib.suppress(Exception):
            await self.tab.wait_for_selector("#am-part-status .am-status[data-at]", timeout=60_000)
            if self.started_at is not None:
                self.start_view = time.perf_counter() - self.started_at

    async def play(self, until: float) -> None:
        clicked = -1
        button = "#am-part-choices button.am-choice:not([disabled])"
        while time.perf_counter() < until:
            try:
                left = until - time.perf_counter()
                handle = await self.tab.wait_for_selector(button, timeout=max(50, left * 1000))
                at = int(await handle.get_attribute("data-at"))
                if at <= clicked:
                    await asyncio.sleep(0.05)
                    continue
                await asyncio.sleep(self.rng.uniform(*self.think))
                if time.perf_counter() >= until:
                    break
                handle = await self.tab.query_selector(button)
                if handle is None:
                    continue
                at = int(await handle.get_attribute("data-at"))
                clicked = at
                self.clicks.append((time.perf_counter(), at))
                await handle.click(timeout=5000)
            except Exception as err:
                if time.perf_counter() < until and "Timeout" not in type(err).__name__:
                    self.errors.append(f"chromium play: {type(err).__name__}: {err}"[:300])

    async def collect(self) -> None:
        """The page's own record of what it showed, on this process's clock."""
        with contextlib.suppress(Exception):
            seen = await self.tab.evaluate("window.__amSeen")
            offset = time.time() - time.perf_counter()
            self.seen = [(when / 1000 - offset, at) for when, at in seen]
            text = await self.tab.inner_text("#am-message")
            if "error" in (await self.tab.get_attribute("#am-message", "class") or ""):
                self.errors.append(f"message: {text}")

    def socket_closed(self) -> bool:
        return False

    async def close(self) -> None:
        if self.context is not None:
            with contextlib.suppress(Exception):
                await self.context.close()


# --- one run -------------------------------------------------------------------------------


@dataclass
class Figures:
    phones: int = 0
    pages: list[float] = field(default_factory=list)
    frames: list[float] = field(default_factory=list)
    start_views: list[float] = field(default_factory=list)
    others: list[float] = field(default_factory=list)
    others_at: list[tuple[float, float]] = field(default_factory=list)  # (click sent, delay)
    own: list[float] = field(default_factory=list)
    chromium_frames: list[float] = field(default_factory=list)
    chromium_others: list[float] = field(default_factory=list)  # to or from a Chromium phone
    clicks: int = 0
    decisions: int = 0
    errors: int = 0
    warnings: int = 0
    missing: int = 0
    pss: float = 0.0
    pss_peak: float = 0.0
    pss_other: float = 0.0
    processes: int = 0
    server_cpu: float = 0.0
    loop_cpu: float = 0.0
    hub_cpu: float = 0.0
    client_cpu: float = 0.0
    probe: list[float] = field(default_factory=list)
    probe_lost: int = 0
    client_lag: list[float] = field(default_factory=list)
    load: str = ""
    error_lines: list[str] = field(default_factory=list)


def room_sizes(tables: int) -> list[int]:
    rooms = -(-tables // ROOM_TABLES)
    return [tables // rooms + (1 if r < tables % rooms else 0) for r in range(rooms)]


async def client_lag(stop: asyncio.Event, lags: list[float]) -> None:
    while not stop.is_set():
        began = time.perf_counter()
        await asyncio.sleep(0.1)
        lags.append(time.perf_counter() - began - 0.1)


async def play_class(
    args: argparse.Namespace,
    urls: list[str],
    rooms: Any,
    codes: list[tuple[str, int]],
    seats: int,
    figures: Figures,
    watch: Any,
) -> list[Phone]:
    AsyncHTTPClient.configure(None, max_clients=min(args.class_of, 1000) + 10)
    phones: list[Phone] = []
    slots = [code for code, tables in codes for _ in range(tables * seats)]
    rng = random.Random(args.seed)
    chromium_at = set(
        range(0, len(slots), max(1, len(slots) // max(1, args.chromium)))[: args.chromium]
    )
    for i, code in enumerate(slots[: args.class_of]):
        base = urls[i % len(urls)]
        kind = ChromiumPhone if i in chromium_at else Phone
        phones.append(
            kind(
                i,
                f"{base}?room={code}",
                re.sub(r"^http", "ws", base) + PHONE_ROUTE,
                code,
                f"Student{i + 1}",
                tuple(args.think),
                random.Random(rng.random()),
            )
        )
    chromium = [p for p in phones if isinstance(p, ChromiumPhone)]
    lag_stop = asyncio.Event()
    lagger = asyncio.ensure_future(client_lag(lag_stop, figures.client_lag))
    async with contextlib.AsyncExitStack() as stack:
        browser = None
        if chromium:
            from playwright.async_api import async_playwright

            sys.path.insert(0, str(REPO / "tests"))
            from browser import CHROMIUM, CHROMIUM_ARGS

            playwright = await stack.enter_async_context(async_playwright())
            browser = await playwright.chromium.launch(
                executable_path=CHROMIUM, args=list(CHROMIUM_ARGS)
            )
            stack.push_async_callback(browser.close)
        for phone in phones:
            stack.push_async_callback(phone.close)

        async def join(phone: Phone) -> None:
            try:
                if isinstance(phone, ChromiumPhone):
                    await phone.open(browser)
                else:
                    await phone.join()
            except (TimeoutError, OSError) as err:
                phone.errors.append(f"join: {type(err).__name__}: {err}")

        # every phone at once, as a class opens the link the projector shows
        await asyncio.wait_for(
            asyncio.gather(*(join(p) for p in phones)), JOIN_TIMEOUT + CONNECT_TIMEOUT * 2
        )
        # the instructor starts every room
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        for phone in phones:
            phone.started_at = started
        for code, _ in codes:
            await loop.run_in_executor(None, rooms.start, code)
        await asyncio.gather(*(p.wait_table() for p in chromium))
        # play
        watch.profiles = start_profiles(args, watch.servers) if args.profile else []
        cpu_before = cpu_seconds(watch.pids())
        threads_before = thread_seconds(watch.servers)
        client_before = time.process_time()
        watch.play_began = time.time()
        until = time.perf_counter() + args.seconds
        playing = [p for p in phones if p.seated and not p.errors]
        await asyncio.wait_for(
            asyncio.gather(*(p.play(until) for p in playing)), args.seconds + 120
        )
        watch.play_ended = time.time()
        figures.server_cpu = cpu_seconds(watch.pids()) - cpu_before
        threads_after = thread_seconds(watch.servers)
        figures.loop_cpu = threads_after[0] - threads_before[0]
        figures.hub_cpu = threads_after[1] - threads_before[1]
        figures.client_cpu = time.process_time() - client_before
        figures.pss = pss_mb(watch.pids())
        figures.processes = len(watch.pids())
        # the last moves reach every phone
        await asyncio.sleep(min(CATCH_UP, 3.0))
        deadline = time.perf_counter() + CATCH_UP
        while time.perf_counter() < deadline and not caught_up(phones):
            await asyncio.sleep(0.25)
        await asyncio.gather(*(p.collect() for p in chromium))
        lag_stop.set()
        await lagger
    return phones


def caught_up(phones: list[Phone]) -> bool:
    last: dict[tuple[str, int], int] = {}
    for p in phones:
        if p.seen:
            key = (p.code, p.table)
            last[key] = max(last.get(key, 0), p.seen[-1][1])
    return all(p.seen[-1][1] >= last[(p.code, p.table)] for p in phones if p.seen and p.seated)


def analyse(phones: list[Phone], figures: Figures) -> None:
    figures.phones = len(phones)
    by_table: dict[tuple[str, int], list[Phone]] = {}
    for p in phones:
        figures.errors += len(p.errors)
        figures.error_lines += [f"{p.name}: {e}" for e in p.errors[:2]]
        figures.warnings += len(p.warnings)
        if p.page is not None:
            figures.pages.append(p.page)
        if p.first_frame is not None:
            (figures.chromium_frames if isinstance(p, ChromiumPhone) else figures.frames).append(
                p.first_frame
            )
        if p.start_view is not None:
            figures.start_views.append(p.start_view)
        if p.seated:
            by_table.setdefault((p.code, p.table), []).append(p)
    for mates in by_table.values():
        counts = [p.seen[-1][1] - p.seen[0][1] for p in mates if p.seen]
        figures.decisions += max(counts, default=0)
        for mover in mates:
            for sent, at in mover.clicks:
                figures.clicks += 1
                if at in mover.refused:
                    continue
                mine = mover.seen_at(at + 1)
                if mine is not None:
                    figures.own.append(max(0.0, mine - sent))
                for other in mates:
                    if other is mover:
                        continue
                    seen = other.seen_at(at + 1)
                    if seen is None:
                        figures.missing += 1
                        continue
                    delay = max(0.0, seen - sent)
                    figures.others.append(delay)
                    figures.others_at.append((sent, delay))
                    if isinstance(mover, ChromiumPhone) or isinstance(other, ChromiumPhone):
                        figures.chromium_others.append(delay)
    figures.errors += figures.missing


class Watch:
    """The servers' processes, and a sample of their PSS every 5 s (the peak)."""

    def __init__(self, servers: list[Served]) -> None:
        self.servers = servers
        self.peak = 0.0
        self.stop = threading.Event()
        self.play_began = self.play_ended = 0.0
        self.profiles: list[tuple[Path, Any]] = []
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def pids(self) -> list[int]:
        return [pid for server in self.servers for pid in server.pids()]

    def run(self) -> None:
        while not self.stop.wait(5.0):
            self.peak = max(self.peak, pss_mb(self.pids()))


def one_run(args: argparse.Namespace, run: int) -> Figures:
    from amteach.rooms import RoomSettings, open_rooms

    figures = Figures()
    tables = args.tables
    seats = min(SEATS_MAX, -(-args.class_of // tables))
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="amteach-bench-")))
        others: list[int] = []
        if args.rooms == "postgresql":
            sys.path.insert(0, str(REPO / "tests"))
            from postgres import postgres_server

            database = stack.enter_context(postgres_server())
            others += [p.pid for p in psutil.process_iter(["name"]) if p.info["name"] == "postgres"]
        else:
            database = str(folder / "class.sqlite")
        rooms = open_rooms(database)
        codes = []
        for size in room_sizes(tables):
            settings = RoomSettings(
                tables=size,
                seats=seats,
                ending="A",
                round_cap=1000,
                bot_delay=args.bot_delay,
                seed=run,
            )
            codes.append((rooms.create(settings), size))
        from amteach.serving import voila_environment

        env = stack.enter_context(voila_environment())
        env = {
            **env,
            "AMTEACH_PHONE_JOINS_PER_ADDRESS": str(10 * args.class_of),
            "AMTEACH_PHONE_CONNECTIONS_PER_ADDRESS": str(10 * args.class_of),
        }
        base_url = "/amteach/" if args.nginx else "/"
        servers = []
        for _ in range(args.servers):
            servers.append(stack.enter_context(dashboard(folder, database, base_url, env)))
        direct = [f"http://127.0.0.1:{s.port}{base_url}" for s in servers]
        if args.nginx:
            (folder / "nginx").mkdir()
            port = stack.enter_context(nginx_in_front([s.port for s in servers], folder / "nginx"))
            urls = [f"http://127.0.0.1:{port}{base_url}"]
        else:
            urls = direct
        wait_until_quiet(servers)
        watch = Watch(servers)
        stack.callback(watch.stop.set)
        # the loop's lag, from a process of its own
        context = multiprocessing.get_context("spawn")
        probe_stop, probe_results = context.Event(), context.Queue()
        prober = context.Process(
            target=probe,
            args=([u + "amteach-bench-probe" for u in direct], probe_stop, probe_results),
            daemon=True,
        )
        prober.start()
        try:
            phones = asyncio.run(play_class(args, urls, rooms, codes, seats, figures, watch))
        finally:
            probe_stop.set()
            found = []
            with contextlib.suppress(Exception):
                found = probe_results.get(timeout=30)
            prober.join(timeout=30)
            if prober.is_alive():
                prober.kill()
        figures.pss_peak = max(watch.peak, figures.pss)
        if args.rooms == "postgresql":  # our PostgreSQL: the postmaster on its port, children
            port = database.rsplit(":", 1)[1].split("/")[0]
            for process in psutil.process_iter(["name", "cmdline"]):
                command = process.info["cmdline"] or []
                if process.info["name"] == "postgres" and port in command:
                    with contextlib.suppress(psutil.Error):
                        others += [process.pid, *(c.pid for c in process.children())]
            figures.pss_other += pss_mb(others)
        if args.nginx:
            with contextlib.suppress(OSError, ValueError):
                nginx_pid = int((folder / "nginx" / "nginx.pid").read_text())
                nginx_pids = [nginx_pid, *(c.pid for c in psutil.Process(nginx_pid).children())]
                figures.pss_other += pss_mb(nginx_pids)
        for when, latency in found:
            if watch.play_began <= when <= watch.play_ended:
                if latency is None:
                    figures.probe_lost += 1
                else:
                    figures.probe.append(latency)
        figures.load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
        analyse(phones, figures)
        for server in servers:
            for line in server.log:
                if "Traceback" in line or " ERROR " in line or "[E " in line:
                    figures.error_lines.append(f"server log: {line.strip()[:200]}")
    report_profiles(watch.profiles)
    return figures


def start_profiles(args: argparse.Namespace, servers: list[Served]) -> list[tuple[Path, Any]]:
    """py-spy sampling each server (not its kernel) for the play time, its stacks folded."""
    out = []
    folder = Path(tempfile.mkdtemp(prefix="amteach-bench-profile-"))
    for k, server in enumerate(servers):
        path = folder / f"server{k}.folded"
        process = subprocess.Popen(
            [
                str(PY_SPY),
                "record",
                "--pid",
                str(server.process.pid),
                "--duration",
                str(int(args.seconds)),
                "--rate",
                "50",
                "--threads",
                "--nonblocking",
                "--format",
                "raw",
                "--output",
                str(path),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        out.append((path, process))
    return out


def report_profiles(profiles: list[tuple[Path, Any]]) -> None:
    """Per server: each thread's share of the samples; the hub thread's heaviest functions,
    inclusive (anywhere on the stack) and self (on top)."""
    for path, process in profiles:
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
        if not path.exists():
            print(f"profile: py-spy wrote nothing ({process.stderr.read()[-300:]})")
            continue
        threads: dict[str, int] = {}
        inclusive: dict[str, int] = {}
        own: dict[str, int] = {}
        hub_total = 0
        for line in path.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            frames = stack.split(";")
            n = int(count)
            thread = frames[0]
            threads[thread] = threads.get(thread, 0) + n
            if not any("hub.py" in f for f in frames):
                continue
            hub_total += n
            for name in {
                f.split(" (")[0] + " (" + f.split(" (")[-1].split(":")[0].split("/")[-1] + ")"
                for f in frames[1:]
            }:
                inclusive[name] = inclusive.get(name, 0) + n
            top = (
                frames[-1].split(" (")[0]
                + " ("
                + frames[-1].split(" (")[-1].split(":")[0].split("/")[-1]
                + ")"
            )
            own[top] = own.get(top, 0) + n
        total = sum(threads.values()) or 1
        print(f"profile of {path.name} ({total} samples at 50 Hz over the play, idle included):")
        for thread, n in sorted(threads.items(), key=lambda t: -t[1])[:6]:
            print(f"  {100 * n / total:5.1f} %  {thread}")
        if hub_total:
            print(f"  hub work: {hub_total} samples; inclusive share of the hub's samples:")
            for name, n in sorted(inclusive.items(), key=lambda t: -t[1])[:25]:
                print(f"    {100 * n / hub_total:5.1f} %  {name}")
            print("  self (top of stack):")
            for name, n in sorted(own.items(), key=lambda t: -t[1])[:15]:
                print(f"    {100 * n / hub_total:5.1f} %  {name}")


# --- the table -------------------------------------------------------------------------------

HEADER = (
    "| phones | tables | rooms db | servers | page GET ms p50/p95 | first frame ms p50/p95/max "
    "| start to table ms p50/p95/max | click to others ms p50/p95/max (n) | own ms p50/p95 "
    "| decisions | errors (warnings) | servers' PSS MB end (peak), processes | loop probe ms p50/p95/max (lost) "
    "| server CPU s (loop thread + hub threads; hub ms a decision) | load generator CPU s, lag p95 ms | load avg |"
)


def row(args: argparse.Namespace, f: Figures) -> str:
    servers = f"{args.servers}{' + nginx' if args.nginx else ''}"
    return (
        f"| {f.phones} | {args.tables} | {args.rooms} | {servers} "
        f"| {percentile(f.pages, 50) * 1000:.0f} / {percentile(f.pages, 95) * 1000:.0f} "
        f"| {stats(f.frames)} | {stats(f.start_views)} | {stats(f.others)} ({len(f.others)}) "
        f"| {percentile(f.own, 50) * 1000:.0f} / {percentile(f.own, 95) * 1000:.0f} "
        f"| {f.decisions} | {f.errors} ({f.warnings}) "
        f"| {f.pss:.0f} ({f.pss_peak:.0f}), {f.processes:.0f} proc"
        f"{f' (+{f.pss_other:.0f} nginx/PostgreSQL)' if f.pss_other else ''} "
        f"| {stats(f.probe)} ({f.probe_lost}) | {f.server_cpu:.1f} ({f.loop_cpu:.1f} + "
        f"{f.hub_cpu:.1f}; {1000 * f.hub_cpu / max(1, f.decisions):.1f}) "
        f"| {f.client_cpu:.0f}, {percentile(f.client_lag, 95) * 1000:.0f} | {f.load} |"
    )


def chromium_row(f: Figures) -> str:
    return (
        f"  Chromium phones: first frame {stats(f.chromium_frames)} ms; click to others "
        f"(to or from them) {stats(f.chromium_others)} ms ({len(f.chromium_others)})"
    )


def median_figures(runs: list[Figures]) -> Figures:
    """Each figure's median over the runs (the percentiles of each run, then their median)."""
    out = Figures()
    keys = ("pages", "frames", "start_views", "others", "own", "probe", "client_lag")
    for key in keys:
        # the median run for each percentile: keep the run whose p95 is the median's
        ordered = sorted(runs, key=lambda f: percentile(getattr(f, key), 95))
        setattr(out, key, getattr(ordered[len(ordered) // 2], key))
    for key in ("chromium_frames", "chromium_others"):
        ordered = sorted(runs, key=lambda f: percentile(getattr(f, key), 95))
        setattr(out, key, getattr(ordered[len(ordered) // 2], key))
    for key in (
        "phones",
        "decisions",
        "errors",
        "warnings",
        "pss",
        "pss_peak",
        "server_cpu",
        "loop_cpu",
        "hub_cpu",
        "client_cpu",
        "probe_lost",
        "processes",
        "pss_other",
    ):
        setattr(out, key, statistics.median(getattr(f, key) for f in runs))
    out.load = runs[-1].load
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--class-of", type=int, required=True, metavar="N", help="phones")
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=60.0, help="play time")
    parser.add_argument("--rooms", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--servers", type=int, choices=[1, 2], default=1)
    parser.add_argument("--nginx", action="store_true", help="nginx in front (docs/deploy.md)")
    parser.add_argument("--chromium", type=int, default=0, metavar="K", help="of them Chromium")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--think", type=float, nargs=2, default=[1.0, 2.0], metavar=("MIN", "MAX"))
    parser.add_argument("--bot-delay", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dump", help="write each click's delays to DUMP.RUN.json")
    parser.add_argument("--profile", action="store_true", help="py-spy the server(s) during play")
    args = parser.parse_args()
    if args.servers > 1 and args.rooms != "postgresql":
        parser.error("--servers 2 needs --rooms postgresql (one database for both)")
    if not 0 < args.tables <= args.class_of:
        parser.error("--tables: from 1 to --class-of")
    if args.class_of > args.tables * SEATS_MAX:
        parser.error(f"--class-of: at most {SEATS_MAX} a table")
    print(
        f"{os.cpu_count()} cores; {args.class_of} phones ({args.chromium} Chromium) on "
        f"{args.tables} tables of {min(SEATS_MAX, -(-args.class_of // args.tables))} seats in "
        f"{len(room_sizes(args.tables))} rooms; Game A, bot delay {args.bot_delay} s, "
        f"think {args.think[0]:g}-{args.think[1]:g} s, {args.seconds:g} s of play; "
        f"load before: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}",
        flush=True,
    )
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
    runs = []
    for run in range(args.repeat):
        figures = one_run(args, run)
        runs.append(figures)
        print(row(args, figures), flush=True)
        if args.dump:
            with open(f"{args.dump}.{run}.json", "w") as out:
                json.dump({"others": sorted(figures.others_at)}, out)
        if args.chromium:
            print(chromium_row(figures), flush=True)
        for line in figures.error_lines[:8]:
            print(f"  error: {line}", file=sys.stderr, flush=True)
    if args.repeat > 1:
        median = median_figures(runs)
        print(f"median of {args.repeat}:")
        print(row(args, median))
        if args.chromium:
            print(chromium_row(median))


if __name__ == "__main__":
    main()
