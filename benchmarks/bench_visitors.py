"""Capacity of one dashboard server for its visitors (each a kernel), measured without browsers:
a protocol-level load generator.

    .venv/bin/python benchmarks/bench_visitors.py [--visitors 10 30 50] [--turns 10] [--think 2]
        [--server-cpus 0,1] [--client-cpu 1]

Each simulated visitor does what a page does, with the same messages a browser sends (captured
from Chromium; tests/test_proxy.py checks that they give the same game as a real browser):
- fetches the page (Voilà hands it a preheated kernel and its rendered dashboard);
- opens the kernel's websocket (protocol v1.kernel.websocket.jupyter.org), asks for the
  kernel's info, opens the `jupyter.widget.control` comm and asks for every widget's state
  (`request_states`): the page can draw its first interactive frame then;
- plays turns: clicks Roll, then whatever the landing asks (the first choice offered: buy,
  a tax choice, ...), then End turn, each click a `comm_msg` with {"method": "custom",
  "content": {"event": "click"}} to the button's comm. A click is done when the kernel is idle
  again after handling it; its widget updates have arrived by then.
Between clicks a visitor waits `--think` seconds (±50 %, seeded), as a student reads the board.

The server runs as `amteach dashboard` runs it, with a pool as large as the class and
--max-visitors the class size (docs/deploy.md), and the benchmark waits until every pool
kernel has built its dashboard before the visitors arrive. Reported per class size: time to
first interactive frame and time per click (p50, p95), errors, peak memory of the server and
its kernels (resident, summed; and proportional, which counts shared pages once), kernels alive.

Class play's phones hold no kernel any more: benchmarks/bench_load.py measures a class on the
light phone page. `WidgetPage` (a page followed widget by widget) serves tests that drive the
instructor's Class tab at the protocol level (tests/test_multi_server.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jupyter_server.services.kernels.connection.base import (
    deserialize_msg_from_ws_v1,
    serialize_msg_to_ws_v1,
)
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

from amteach.content import dashboard_notebook
from amteach.serving import TEMPLATE, voila_command

PROTOCOL = "v1.kernel.websocket.jupyter.org"
CONFIG = re.compile(
    r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', re.S
)
TIMEOUT = 300.0
TICKS = os.sysconf("SC_CLK_TCK")


class VisitorError(RuntimeError):
    pass


@dataclass
class Visitor:
    """One page's worth of traffic: the page, the kernel's websocket, the widgets' states."""

    url: str  # the dashboard's page, e.g. http://127.0.0.1:8866/amteach/
    cookies: str = ""
    kernel_id: str = ""
    models: dict[str, dict[str, Any]] = field(default_factory=dict)  # comm id -> widget state
    first_frame: float = 0.0
    clicks: list[float] = field(default_factory=list)

    async def open(self) -> None:
        started = time.perf_counter()
        await self.connect()
        if not self.choices():
            raise VisitorError("the dashboard offers no choice to click")
        self.first_frame = time.perf_counter() - started

    async def connect(self, query: str = "") -> None:
        """Fetch the page (`query`: e.g. "?room=CODE"), open its kernel's websocket and
        receive every widget's state. Cookies already in `self.cookies` go with the page's
        request (a reverse proxy's sticky cookie, for example)."""
        headers = {"Cookie": self.cookies} if self.cookies else None
        response = await AsyncHTTPClient().fetch(
            self.url + query, headers=headers, request_timeout=TIMEOUT
        )
        page = response.body.decode()
        found = CONFIG.search(page)
        if not found:
            raise VisitorError(f"no dashboard in the page (HTTP {response.code})")
        self.kernel_id = json.loads(found.group(1))["kernelId"]
        jar = dict(c.split("=", 1) for c in self.cookies.split("; ") if "=" in c)
        for cookie in response.headers.get_list("Set-Cookie"):
            name, _, value = cookie.split(";", 1)[0].partition("=")
            jar[name] = value
        self.cookies = "; ".join(f"{name}={value}" for name, value in jar.items())
        ws_url = re.sub(r"^http", "ws", self.url) + (
            f"api/kernels/{self.kernel_id}/channels?session_id={uuid.uuid4()}"
        )
        self.socket = await websocket_connect(
            HTTPRequest(ws_url, headers={"Cookie": self.cookies}, request_timeout=TIMEOUT),
            subprotocols=[PROTOCOL],
        )
        self.replies: dict[str, asyncio.Future] = {}  # msg id -> future of its idle status
        self.reader = asyncio.ensure_future(self._read())
        self.changed = asyncio.Event()
        await self.request("kernel_info_request", {})
        control = str(uuid.uuid4())
        await self.request(
            "comm_open",
            {"comm_id": control, "target_name": "jupyter.widget.control", "data": {}},
            {"version": "1.0.0"},
        )
        await self.request("comm_msg", {"comm_id": control, "data": {"method": "request_states"}})
        await self.send("comm_close", {"comm_id": control, "data": {}})
        # a page's browser memory reports what this device keeps as soon as it is drawn (none
        # kept here); a join link's page closes the dashboard it replaced on that report
        for comm_id, state in list(self.models.items()):
            if "space" in state and "max_kept" in state:  # ui/keeper.py: BrowserMemory
                stored = {"kind": "stored", "items": {}, "fragment": {}}
                data = {"method": "custom", "content": stored}
                await self.request("comm_msg", {"comm_id": comm_id, "data": data})
        # the Play tab's live charts are built when their box nears the screen; on a 1280x720
        # screen it does at once, so the page's watcher says so (ui/lazy.py: NearScreen)
        for comm_id, state in list(self.models.items()):
            if state.get("near") is False:
                await self.update(comm_id, {"near": True})
        for comm_id, state in list(self.models.items()):
            if state.get("_view_count") == 0:  # the charts count their views (plotly)
                update = {"method": "update", "state": {"_view_count": 1}, "buffer_paths": []}
                await self.send("comm_msg", {"comm_id": comm_id, "data": update})

    def message(self, msg_type: str, content: dict, metadata: dict) -> tuple[str, bytes]:
        msg_id = str(uuid.uuid4())
        header = {
            "msg_id": msg_id,
            "msg_type": msg_type,
            "username": "",
            "session": "bench",
            "date": datetime.now(UTC).isoformat(),
            "version": "5.2",
        }
        parts = [json.dumps(part).encode() for part in (header, {}, metadata, content)]
        return msg_id, serialize_msg_to_ws_v1(parts, "shell")

    async def send(self, msg_type: str, content: dict, metadata: dict | None = None) -> str:
        msg_id, frame = self.message(msg_type, content, metadata or {})
        await self.socket.write_message(frame, binary=True)
        return msg_id

    async def request(self, msg_type: str, content: dict, metadata: dict | None = None) -> None:
        """Send a message and wait until the kernel is idle again after it."""
        msg_id, frame = self.message(msg_type, content, metadata or {})
        done = self.replies[msg_id] = asyncio.get_running_loop().create_future()
        await self.socket.write_message(frame, binary=True)
        await asyncio.wait_for(done, TIMEOUT)

    async def _read(self) -> None:
        while True:
            frame = await self.socket.read_message()
            if frame is None:
                for future in self.replies.values():
                    if not future.done():
                        future.set_exception(VisitorError("the kernel's websocket closed"))
                return
            channel, parts = deserialize_msg_from_ws_v1(frame)
            header, parent, _, content = (json.loads(p) for p in parts[:4])
            kind = header["msg_type"]
            if kind == "comm_open" and content.get("target_name") == "jupyter.widget":
                self.models[content["comm_id"]] = dict(content["data"].get("state", {}))
            elif kind == "comm_msg":
                data = content.get("data", {})
                if data.get("method") == "update_states":
                    for comm_id, model in data["states"].items():
                        self.models[comm_id] = dict(model["state"])
                elif data.get("method") in ("update", "echo_update"):
                    self.models.setdefault(content["comm_id"], {}).update(data.get("state", {}))
            elif kind == "comm_close":
                self.models.pop(content.get("comm_id"), None)
            elif kind == "status" and content.get("execution_state") in ("restarting", "dead"):
                for future in self.replies.values():
                    if not future.done():
                        future.set_exception(VisitorError("the kernel died"))
            self.changed.set()
            self.on_message()
            if (
                channel == "iopub"
                and kind == "status"
                and content.get("execution_state") == "idle"
                and parent.get("msg_id") in self.replies
            ):
                future = self.replies.pop(parent["msg_id"])
                if not future.done():
                    future.set_result(None)

    def on_message(self) -> None:
        """Called after each message from the kernel has been applied (for subclasses)."""

    def classed(self, css_class: str) -> dict[str, Any]:
        for state in self.models.values():
            if css_class in state.get("_dom_classes", ()):
                return state
        raise VisitorError(f"no widget with class {css_class}")

    def choices(self) -> list[tuple[str, str]]:
        """(label, comm id) of the choice buttons on the page, in order."""
        children = self.classed("am-choices").get("children", [])
        ids = [child.removeprefix("IPY_MODEL_") for child in children]
        return [(self.models[i].get("description", ""), i) for i in ids if i in self.models]

    def narration(self) -> str:
        return self.classed("am-narration").get("value", "")

    async def click(self, label: str | None = None) -> str:
        """Click the choice called `label` (or the first one); wait until it is handled."""
        offered = await self.wait_for_choices()
        name, comm_id = next((c for c in offered if c[0] == label), offered[0])
        started = time.perf_counter()
        await self.request(
            "comm_msg",
            {"comm_id": comm_id, "data": {"method": "custom", "content": {"event": "click"}}},
        )
        self.clicks.append(time.perf_counter() - started)
        return name

    async def wait_for_choices(self) -> list[tuple[str, str]]:
        deadline = time.perf_counter() + TIMEOUT
        while not (offered := self.choices()):
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), max(0.1, deadline - time.perf_counter()))
        return offered

    async def play_turn(self, think: float = 0.0, rng: random.Random | None = None) -> None:
        """Roll, then the first choice offered until End turn is, then End turn (what
        tests/test_browser.py clicks); then Play until the bots have moved and it is this
        visitor's turn again."""
        await self.take_turn(think, rng)
        await self.play_bots()

    async def take_turn(self, think: float = 0.0, rng: random.Random | None = None) -> None:
        await self.pause(think, rng)
        await self.click("Roll")
        for _ in range(6):
            labels = [label for label, _ in await self.wait_for_choices()]
            await self.pause(think, rng)
            if "End turn" in labels:
                break
            await self.click()
        await self.click("End turn")

    async def play_bots(self) -> None:
        """Press Play and let it run until a human must choose, then Pause: the messages the
        Play widget's timer sends (one value update per interval, one bot decision each)."""
        comm_id, play = next(
            (i, state)
            for i, state in self.models.items()
            if state.get("_model_name") == "PlayModel"
        )
        value = play.get("value", 0)
        await self.update(comm_id, {"playing": True})
        while not self.choices():
            value += 1
            ticked = time.perf_counter()
            await self.update(comm_id, {"value": value})
            await asyncio.sleep(max(0.0, play["interval"] / 1000 - (time.perf_counter() - ticked)))
        await self.update(comm_id, {"playing": False})

    async def update(self, comm_id: str, state: dict) -> None:
        data = {"method": "update", "state": state, "buffer_paths": []}
        await self.request("comm_msg", {"comm_id": comm_id, "data": data})

    @staticmethod
    async def pause(think: float, rng: random.Random | None) -> None:
        if think > 0:
            await asyncio.sleep(think * (rng.uniform(0.5, 1.5) if rng else 1.0))

    async def close(self) -> None:
        if getattr(self, "socket", None) is not None:
            self.socket.close()
            await asyncio.gather(self.reader, return_exceptions=True)


# --- the server, as `amteach dashboard` runs it ---------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def served(
    pool: int,
    max_visitors: int = 0,
    cpus: str | None = None,
    template: str = TEMPLATE,
    env: dict[str, str] | None = None,
):
    """The server as `amteach dashboard` runs it, on a free port; (url, pid) until the block
    ends. `cpus`: a taskset list for the server and the kernels it starts; `env`: added to
    its environment (the class database, for example)."""
    port = free_port()
    # every visitor comes from this machine's address, as a class behind one NAT: no cap per
    # address (docs/deploy.md)
    command = voila_command(
        dashboard_notebook(),
        port,
        "127.0.0.1",
        pool,
        template,
        600,
        "/",
        max_visitors,
        max_per_address=0,
    )
    if cpus:
        command = ["taskset", "-c", cpus, *command]
    server = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
    )
    for line in server.stdout:
        if "is running at" in line:
            break
    threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
    try:
        yield f"http://127.0.0.1:{port}/", server.pid
    finally:
        server.terminate()
        server.wait(timeout=60)


def children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


def cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def wait_for_warm_pool(server_pid: int, size: int) -> None:
    """Until `size` kernels exist and have finished building the dashboard (a quiet second)."""
    while True:
        pids = children(server_pid)
        if len(pids) >= size:
            before = {pid: cpu_ticks(pid) for pid in [server_pid, *pids]}
            time.sleep(1)
            if all(cpu_ticks(pid) - ticks < 3 for pid, ticks in before.items()):
                return
        else:
            time.sleep(1)


def memory_mb(pids: list[int], proportional: bool = False) -> float:
    total = 0
    for pid in pids:
        try:
            if proportional:
                text = Path(f"/proc/{pid}/smaps_rollup").read_text()
                total += int(re.search(r"^Pss:\s+(\d+)", text, re.M).group(1)) * 1024
            else:
                total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf(
                    "SC_PAGE_SIZE"
                )
        except (OSError, AttributeError):
            pass
    return total / 2**20


class MemoryWatch(threading.Thread):
    def __init__(self, server_pid: int) -> None:
        super().__init__(daemon=True)
        self.server_pid = server_pid
        self.peak_rss = self.peak_pss = 0.0
        self.kernels = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(1.0):
            pids = [self.server_pid, *children(self.server_pid)]
            self.kernels = max(self.kernels, len(pids) - 1)
            rss = memory_mb(pids)
            if rss > self.peak_rss:
                self.peak_rss = rss
                self.peak_pss = memory_mb(pids, proportional=True)


def percentile(values: list[float], q: float) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[q - 1]
        if len(values) > 1
        else values[0]
    )


async def visit(url: str, turns: int, think: float, seed: int) -> Visitor:
    visitor = Visitor(url)
    rng = random.Random(seed)
    try:
        await visitor.open()
        for _ in range(turns):
            await visitor.play_turn(think, rng)
    finally:
        await visitor.close()
    return visitor


async def class_of(url: str, visitors: int, turns: int, think: float) -> list[Any]:
    AsyncHTTPClient.configure(None, max_clients=visitors + 10)
    return await asyncio.gather(
        *(visit(url, turns, think, seed) for seed in range(visitors)), return_exceptions=True
    )


def run(
    sizes: list[int], turns: int, think: float, server_cpus: str | None, client_cpu: int | None
) -> None:
    if client_cpu is not None:
        os.sched_setaffinity(0, {client_cpu})
    print(
        f"{os.cpu_count()} cores; server on cpus {server_cpus or 'all'}, load generator on "
        f"{client_cpu if client_cpu is not None else 'all'}; {turns} turns each, think {think} s"
    )
    print(
        "| visitors | first frame p50 / p95 | click p50 / p95 | clicks | errors | peak memory RSS (PSS) | kernels alive |"
    )
    print("|---|---|---|---|---|---|---|")
    for size in sizes:
        with served(pool=size, max_visitors=size, cpus=server_cpus) as (url, pid):
            wait_for_warm_pool(pid, size)
            watch = MemoryWatch(pid)
            watch.start()
            kernels = children(pid)
            server_cpu, kernels_cpu = cpu_ticks(pid), sum(cpu_ticks(k) for k in kernels)
            load_cpu, wall = time.process_time(), time.perf_counter()
            results = asyncio.run(class_of(url, size, turns, think))
            load_cpu, wall = time.process_time() - load_cpu, time.perf_counter() - wall
            server_cpu = (cpu_ticks(pid) - server_cpu) / TICKS
            kernels_cpu = (sum(cpu_ticks(k) for k in kernels) - kernels_cpu) / TICKS
            watch.stop.set()
            watch.join()
        done = [r for r in results if isinstance(r, Visitor)]
        errors = [r for r in results if not isinstance(r, Visitor)]
        frames = [v.first_frame for v in done]
        clicks = [c for v in done for c in v.clicks]
        row = (
            f"| {size} | {percentile(frames, 50):.2f} / {percentile(frames, 95):.2f} s"
            f" | {percentile(clicks, 50):.2f} / {percentile(clicks, 95):.2f} s | {len(clicks)}"
            if done
            else f"| {size} | - | - | 0"
        )
        print(
            f"{row} | {len(errors)} | {watch.peak_rss / 1024:.1f} GB ({watch.peak_pss / 1024:.1f} GB)"
            f" | {watch.kernels} |",
            flush=True,
        )
        for error in errors[:3]:
            print(f"  error: {type(error).__name__}: {error}", file=sys.stderr)
        print(
            f"  {size} visitors, {wall:.0f} s: CPU used by the server {server_cpu:.1f} s, its"
            f" kernels {kernels_cpu:.1f} s ({1000 * kernels_cpu / max(1, len(clicks)):.0f} ms"
            f" per click, Play ticks included), the load generator {load_cpu:.1f} s",
            file=sys.stderr,
        )


# --- a page followed widget by widget ----------------------------------------------------------


@dataclass
class WidgetPage(Visitor):
    """A page followed widget by widget (the instructor's dashboard, say): its widgets found by
    their state, and its narration ("What happened", newest first) followed as a count of the
    events it has shown, with the moment each count arrived."""

    name: str = ""
    table: int = -1
    lines: list[str] = field(default_factory=list)  # the narration now, newest first
    shown: list[tuple[float, int]] = field(default_factory=list)  # (when, events shown)
    moves: list[tuple[float, int, int]] = field(default_factory=list)  # when, events before, after

    @property
    def events(self) -> int:
        return self.shown[-1][1] if self.shown else 0

    def on_message(self) -> None:
        value = self.find_value("am-narration")
        if value is None:
            return
        lines = re.findall(r"<div>(.*?)</div>", value, re.S)
        if lines == self.lines:
            return
        # the new lines sit before the old ones (which may have lost their oldest lines)
        new = next(
            (k for k in range(len(lines) + 1) if lines[k:] == self.lines[: len(lines) - k]),
            len(lines),
        )
        self.lines = lines
        self.shown.append((time.perf_counter(), self.events + new))

    def find_value(self, css_class: str) -> str | None:
        for state in self.models.values():
            if css_class in state.get("_dom_classes", ()):
                return state.get("value")
        return None

    def widget_where(self, **wanted: str) -> str:
        """The comm id of the (first) widget whose state has every `wanted` value."""
        for comm_id, state in self.models.items():
            if all(state.get(k) == v for k, v in wanted.items()):
                return comm_id
        raise VisitorError(f"no widget with {wanted}")

    async def wait_until(self, ready: Any, timeout: float = TIMEOUT) -> None:
        deadline = time.perf_counter() + timeout
        while not ready():
            self.changed.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                raise VisitorError("timed out waiting for the page")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(1.0, left))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--visitors", type=int, nargs="+", default=[10, 30, 50])
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--think", type=float, default=2.0, help="seconds between clicks")
    parser.add_argument("--server-cpus", help="taskset list for the server and its kernels")
    parser.add_argument("--client-cpu", type=int, help="one cpu for the load generator")
    args = parser.parse_args()
    run(args.visitors, args.turns, args.think, args.server_cpus, args.client_cpu)


if __name__ == "__main__":
    main()
