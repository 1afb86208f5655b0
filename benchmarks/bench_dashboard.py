"""Benchmark the Voilà dashboard in headless Chromium (Debian's, through Playwright).

    .venv/bin/python benchmarks/bench_dashboard.py [--visitors 20] [--repeat 3] [--template amteach]
        [--skip-class]

Prints, with medians:
- time to interactive (issue 24's targets: 1.5 s each, pool warmed): from navigation until
  the Roll button is drawn and enabled, with a warmed pool (`amteach dashboard --pool 2`,
  every pool kernel quiet), and cold (no kernel kept ready); and a student's join page
  (`?room=CODE`, the server serving a class database as `--rooms` does) until its Join button
  is drawn and enabled and the room's code is filled in. Each twice, on the same server in
  the same run: straight from the Python server, and through nginx with the site file of
  `amteach dashboard --nginx-config` (the static files sent by nginx); each first with an
  empty browser cache (a new browser context), then again in the same context (a second
  visit, the cache warm). With each, where the time went (medians): the page's HTML received,
  DOMContentLoaded, the window's load event (Voilà's scripts have run), the kernel's
  websocket open (the page's first message sent), every widget's state received; and, not
  depending on the machine's load, the CPU time the Python server (and nginx) spent while the
  page loaded, and the megabytes on the wire;
- kernel memory per visitor (issue 24's target: 70 MB idle): each kernel's proportional set
  size (PSS, /proc/PID/smaps_rollup: shared pages counted once among the processes sharing
  them), idle in a warmed pool of 4, and after a visitor played a game of 10 turns with the
  bots (protocol-level, benchmarks/bench_visitors.py's visitor);
- with each time, counts that do not depend on the machine's load: the browser's main-thread
  CPU time until interactive, the JavaScript it loaded, and the widget models the kernel sent
  (the reply to the page's request for every widget's state);
- the import profile of a dashboard kernel's start (`python -X importtime`): modules imported
  and the packages that cost most;
- N concurrent visitors on this machine, each playing a turn: errors and time to interactive,
  once with a pool as large as the class (`amteach dashboard --pool N`) and once with the
  default pool of 2. The browser runs on the same 2 cores as the server and every kernel.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.async_api import async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_visitors import Visitor  # the protocol-level visitor of the dashboard page
from browser import launch_chromium, serve_dashboard  # the tests' own helper
from served import nginx  # the tests' nginx on a free loopback port

from amteach.rooms import ROOMS_ENV, RoomSettings, open_rooms
from amteach.serving import TEMPLATE
from amteach.serving.nginx import site_file


def pooled_pages() -> int:
    """How many pages the server keeps a pool for: the dashboard's (join links get the light
    phone page, with no kernel)."""
    return 1


def load_average() -> str:
    """The machine's load (1-minute average), printed with every figure: the machine is
    shared, so only figures measured side by side compare."""
    return f"load {os.getloadavg()[0]:.1f}"


# seconds from navigation until the page's HTML had fully arrived, per visit (the server's
# part: a preheated kernel's page is sent at once; the rest is the browser's and the widgets')
PAGE_SENT: list[float] = []
# per visit, counts that do not depend on the machine's load: CPU seconds of the page's main
# thread until interactive, kB of JavaScript loaded by then, widget models sent at start
MAIN_CPU: list[float] = []
JS_KB: list[float] = []
MODELS: list[int] = []
# and the main thread's time in tasks and in running scripts (Chrome's TaskDuration and
# ScriptDuration), and the requests the page made until interactive
MAIN_TASKS: list[float] = []
MAIN_SCRIPT: list[float] = []
REQUESTS: list[int] = []


def ws_content(frame: bytes) -> dict:
    """The content of a Jupyter websocket message in the binary framing Voilà's page uses
    (v1.kernel.websocket.jupyter.org): offsets, then channel, header, parent header,
    metadata, content, buffers."""
    count = struct.unpack("<Q", frame[:8])[0]
    offsets = [*struct.unpack(f"<{count}Q", frame[8 : 8 + 8 * count]), len(frame)]
    return json.loads(frame[offsets[4] : offsets[5]])


async def watch_page(page) -> tuple[object, list[int]]:
    """Start counting what a visit costs the browser: its main thread's CPU time (Chrome's
    performance metrics) and the widget models in the kernel's reply to the page's request
    for every widget's state (counted from the websocket)."""
    models: list[int] = []

    def frames(ws) -> None:
        def received(payload) -> None:
            if isinstance(payload, bytes) and len(payload) > 1000:
                try:
                    data = ws_content(payload).get("data", {})
                except (ValueError, struct.error):
                    return
                if isinstance(data, dict) and data.get("method") == "update_states":
                    models.append(len(data.get("states", {})))

        ws.on("framereceived", received)

    page.on("websocket", frames)
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("Performance.enable", {"timeDomain": "threadTicks"})
    return cdp, models


async def note_costs(page, cdp, models: list[int]) -> None:
    """Record the counts `watch_page` started (at the moment the page became interactive)."""
    metrics = {m["name"]: m["value"] for m in (await cdp.send("Performance.getMetrics"))["metrics"]}
    MAIN_CPU.append(metrics["ThreadTime"])
    MAIN_TASKS.append(metrics["TaskDuration"])
    MAIN_SCRIPT.append(metrics["ScriptDuration"])
    REQUESTS.append(await page.evaluate("performance.getEntriesByType('resource').length + 1"))
    scripts = await page.evaluate(
        "performance.getEntriesByType('resource')"
        ".filter((r) => r.name.split('?')[0].endsWith('.js'))"
        ".reduce((sum, r) => sum + r.decodedBodySize, 0)"
    )
    JS_KB.append(scripts / 1024)
    MODELS.append(models[0] if models else 0)


def clear_costs() -> None:
    for figures in (PAGE_SENT, MAIN_CPU, JS_KB, MODELS, MAIN_TASKS, MAIN_SCRIPT, REQUESTS):
        figures.clear()


async def html_received(page) -> float:
    return await page.evaluate("performance.getEntriesByType('navigation')[0].responseEnd") / 1000


async def visit(browser, url: str, play_turn: bool = False, counted: bool = False) -> float:
    context = await browser.new_context(viewport={"width": 1280, "height": 720})
    page = await context.new_page()
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(str(error)))

    async def offline(route) -> None:  # the lab and classic templates link a CDN
        await route.fulfill(status=200, content_type="text/css", body="")

    await page.route(lambda u: not u.startswith(url), offline)
    if counted:
        cdp, models = await watch_page(page)
    started = time.perf_counter()
    try:
        await page.goto(url, timeout=600_000)
        await page.wait_for_selector(".am-board", timeout=300_000)
        roll = page.locator(".am-choices button", has_text="Roll")
        await roll.wait_for(timeout=300_000)
        await page.wait_for_function(
            "[...document.querySelectorAll('.am-choices button')]"
            ".some(b => b.innerText.includes('Roll') && !b.disabled)",
            timeout=300_000,
        )
        elapsed = time.perf_counter() - started
        if counted:
            await note_costs(page, cdp, models)
        PAGE_SENT.append(await html_received(page))
        if play_turn:
            await roll.click()
            await page.wait_for_function(
                "document.querySelector('.am-narration').innerText.includes('throws')",
                timeout=300_000,
            )
        if console_errors:
            raise RuntimeError(f"browser console: {console_errors[0]}")
        return elapsed
    finally:
        await context.close()


def kernel_pids(server_pid: int) -> list[int]:
    out = subprocess.run(
        ["ps", "-o", "pid=,ppid=,args=", "-A"], capture_output=True, text=True
    ).stdout
    return [
        int(p[0])
        for p in (line.split(None, 2) for line in out.splitlines())
        if len(p) == 3 and p[1] == str(server_pid) and "ipykernel" in p[2]
    ]


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def wait_for_warm_pool(server_pid: int, size: int, quiet_seconds: int = 1) -> None:
    """A benchmark may wait (a test never does): until at least `size` pool kernels exist and
    every kernel and the server have finished running the notebook, seen as `quiet_seconds`
    with (almost) no CPU use."""
    while True:
        pids = kernel_pids(server_pid)
        if len(pids) >= size:
            watched = [server_pid, *pids]
            try:
                before = {pid: cpu_ticks(pid) for pid in watched}
                time.sleep(quiet_seconds)
                if all(cpu_ticks(pid) - t < 3 * quiet_seconds for pid, t in before.items()):
                    return
            except FileNotFoundError:  # a visitor's kernel ended meanwhile: look again
                continue
        else:
            time.sleep(0.5)


def class_database(folder: str) -> tuple[dict[str, str], str]:
    """A SQLite class database with one open room, as `amteach dashboard --rooms FILE` serves
    it: (the server's environment, the room's code)."""
    path = str(Path(folder) / "rooms.sqlite")
    rooms = open_rooms(path)
    code = rooms.create(RoomSettings(tables=2, seats=4))
    rooms.store.close()
    return {ROOMS_ENV: path}, code


def pss_mb(pid: int) -> float:
    """A process's proportional set size in MB."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no Pss in /proc/{pid}/smaps_rollup")


async def kernel_memory(template: str, turns: int = 10) -> None:
    """PSS of each kernel idle in a warmed pool of 4, then of one that served a game."""
    with serve_dashboard(pool=4, template=template) as server:
        wait_for_warm_pool(server.pid, 4, quiet_seconds=3)
        idle = [pss_mb(pid) for pid in kernel_pids(server.pid)]
        visitor = Visitor(server.url)
        rng = random.Random(1)
        try:
            await visitor.open()
            for _ in range(turns):
                await visitor.play_turn(0.0, rng)
            played = next(
                pss_mb(pid)
                for pid in kernel_pids(server.pid)
                if visitor.kernel_id in Path(f"/proc/{pid}/cmdline").read_text()
            )
        finally:
            await visitor.close()
        server_pss = pss_mb(server.pid)
    print(
        f"kernel PSS idle (pool of 4 warmed): median {statistics.median(idle):.0f} MB"
        f"  ({', '.join(f'{m:.0f}' for m in sorted(idle))}; target 70 MB)"
    )
    print(f"kernel PSS after a game of {turns} turns with the bots: {played:.0f} MB")
    print(f"server PSS: {server_pss:.0f} MB", flush=True)


# the phases of a visit, in the order they happen, as `timed_visit` names them
PHASES = (
    ("html", "HTML received"),
    ("dom", "DOMContentLoaded"),
    ("load", "load event"),
    ("socket", "kernel websocket open"),
    ("states", "widget states received"),
    ("interactive", "interactive"),
)


async def timed_visit(context, url: str, code: str | None = None) -> dict[str, float]:
    """One visit in `context` (a new context has an empty cache; a second visit in it finds
    its cache warm): seconds from navigation to each of PHASES, the last being a usable page
    (the dashboard's Roll button enabled, or with `code`, a join page's Join button enabled
    and the room's code filled in). Counts its costs (`note_costs`); fails on any console
    error."""
    page = await context.new_page()
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(str(error)))
    cdp, models = await watch_page(page)
    seen: dict[str, float] = {}

    def frames(ws) -> None:
        def sent(_payload) -> None:  # the page's first message: the socket is open
            seen.setdefault("socket", time.perf_counter() - started)

        def received(payload) -> None:
            if "states" not in seen and isinstance(payload, bytes) and len(payload) > 1000:
                try:
                    data = ws_content(payload).get("data", {})
                except (ValueError, struct.error):
                    return
                if isinstance(data, dict) and data.get("method") == "update_states":
                    seen["states"] = time.perf_counter() - started

        ws.on("framesent", sent)
        ws.on("framereceived", received)

    page.on("websocket", frames)
    started = time.perf_counter()
    try:
        if code is None:
            await page.goto(url, timeout=600_000)
            await page.wait_for_function(
                "[...document.querySelectorAll('.am-choices button')]"
                ".some(b => b.innerText.includes('Roll') && !b.disabled)",
                timeout=300_000,
            )
        else:
            await page.goto(f"{url}?room={code}", timeout=600_000)
            await page.wait_for_function(
                "document.querySelector('input[placeholder=\"the code on the projector\"]')"
                f"?.value === {code!r} && [...document.querySelectorAll('button')]"
                ".some(b => b.innerText.trim() === 'Join' && !b.disabled)",
                timeout=300_000,
            )
        seen["interactive"] = time.perf_counter() - started
        await note_costs(page, cdp, models)
        navigation = await page.evaluate(
            "(() => { const n = performance.getEntriesByType('navigation')[0];"
            " return [n.responseEnd, n.domContentLoadedEventStart, n.loadEventStart]; })()"
        )
        seen.update(zip(("html", "dom", "load"), (ms / 1000 for ms in navigation), strict=True))
        seen["transferred_kb"] = await transferred_kb(page)
        if console_errors:
            raise RuntimeError(f"browser console: {console_errors[0]}")
        return seen
    finally:
        await page.close()


def phases(visits: list[dict[str, float]]) -> str:
    """The medians of each phase over `visits`."""
    return ", ".join(
        f"{label} {statistics.median(v.get(name, float('nan')) for v in visits):.2f}"
        for name, label in PHASES
    )


def upstream_port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time of these processes so far."""
    return sum(cpu_ticks(pid) for pid in pids) / os.sysconf("SC_CLK_TCK")


def nginx_pids(folder: Path) -> list[int]:
    """nginx's master process (its pid file in `folder`) and its workers."""
    master = int((folder / "nginx.pid").read_text())
    workers = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(master)], capture_output=True, text=True
    ).stdout.split()
    return [master, *map(int, workers)]


async def transferred_kb(page) -> float:
    """kB the page's resources took on the wire so far (0 for what came from the cache)."""
    total = await page.evaluate(
        "performance.getEntriesByType('resource').concat(performance.getEntriesByType"
        "('navigation')).reduce((sum, r) => sum + r.transferSize, 0)"
    )
    return total / 1024


async def interactive_times(
    browser, repeat: int, template: str, pages: tuple[str, ...] = ("dashboard", "join page")
) -> None:
    """Issue 24's figures: the dashboard and a join page, pool of 2 warmed, `repeat` fresh
    servers each, straight and through nginx (in alternating order), each with an empty
    cache and then a warm one; medians."""
    warm = 2 * pooled_pages()  # every page's pool warmed
    for label in pages:
        visits: dict[tuple[str, str], list[dict[str, float]]] = collections.defaultdict(list)
        counted: dict[str, list[list]] = {}
        for run in range(repeat):
            with tempfile.TemporaryDirectory(prefix="amteach-bench-") as folder:
                env, code = class_database(folder)
                with (
                    serve_dashboard(pool=2, template=template, env=env) as server,
                    nginx(
                        site_file(upstream_port(server.url), template=template),
                        Path(folder),
                    ) as proxy_port,
                ):
                    routes = [("direct", server.url), ("nginx", f"http://127.0.0.1:{proxy_port}/")]
                    for route, url in routes if run % 2 == 0 else routes[::-1]:
                        context = await browser.new_context(viewport={"width": 1280, "height": 720})
                        try:
                            for cache in ("empty cache", "warm cache"):
                                wait_for_warm_pool(server.pid, warm, quiet_seconds=3)
                                found_load = os.getloadavg()[0]
                                clear_costs()
                                proxy = nginx_pids(Path(folder))
                                before = cpu_seconds([server.pid]), cpu_seconds(proxy)
                                found = await timed_visit(
                                    context, url, None if label == "dashboard" else code
                                )
                                found["server_cpu"] = cpu_seconds([server.pid]) - before[0]
                                found["nginx_cpu"] = cpu_seconds(proxy) - before[1]
                                found["machine_load"] = found_load
                                visits[route, cache].append(found)
                                if cache == "empty cache":
                                    counted.setdefault(route, []).append(
                                        [
                                            MAIN_CPU[0],
                                            JS_KB[0],
                                            MODELS[0],
                                            MAIN_TASKS[0],
                                            MAIN_SCRIPT[0],
                                            REQUESTS[0],
                                            found.get("socket", float("nan")) - found["load"],
                                        ]
                                    )
                        finally:
                            await context.close()
        print(
            f"time to interactive, {label}, pool of 2 warmed (target 1.5 s), medians of {repeat}"
            f" ({warm} pool kernels; the machine's load now: {load_average()}):"
        )
        for (route, cache), found in visits.items():
            times = [v["interactive"] for v in found]
            loads = ", ".join(f"{v['machine_load']:.1f}" for v in found)
            print(
                f"  {route}, {cache}: {statistics.median(times):.2f} s"
                f"  (runs: {', '.join(f'{t:.2f}' for t in times)}; load at each: {loads});"
                f" {phases(found)}",
                flush=True,
            )
            print(
                "    CPU while loading: the Python server"
                f" {statistics.median(v['server_cpu'] for v in found):.2f} s, nginx"
                f" {statistics.median(v['nginx_cpu'] for v in found):.2f} s; on the wire"
                f" {statistics.median(v['transferred_kb'] for v in found) / 1024:.2f} MB"
            )
        for route, rows in counted.items():
            cpu, js, models, tasks, script, requests, gap = (
                statistics.median(column) for column in zip(*rows, strict=True)
            )
            print(
                f"  {route}, empty cache: main-thread CPU {cpu:.2f} s (tasks {tasks:.2f} s,"
                f" scripts {script:.2f} s), JavaScript {js / 1024:.1f} MB, {requests:.0f}"
                f" requests, {models:.0f} widget models; load event to websocket {gap:.2f} s"
            )


KERNEL_START = (
    "import ipykernel.ipkernel; from amteach.ui.dashboard import ServedPage; ServedPage()"
)


def import_profile() -> None:
    """What a dashboard kernel imports to build its first page (`python -X importtime`, as a
    kernel started for one request builds it): modules, and the packages that cost most."""
    from amteach.serving import PLOTLY_BUNDLE_ENV, SERVED_ENV

    env = {
        **os.environ,
        PLOTLY_BUNDLE_ENV: "templates/x/static/y.js",
        SERVED_ENV: "1",
    }
    log = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", KERNEL_START],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    own: collections.Counter[str] = collections.Counter()
    modules = 0
    for line in log.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        self_us, _, name = line[len("import time:") :].split("|")
        modules += 1
        own[name.strip().split(".")[0]] += int(self_us)
    top = ", ".join(f"{name} {us / 1000:.0f} ms" for name, us in own.most_common(8))
    print(f"kernel start imports {modules} modules; most costly packages: {top}", flush=True)


def kernel_rss_mb(server_pid: int) -> list[float]:
    """Resident memory of the kernels started by the Voilà server."""
    out = subprocess.run(
        ["ps", "-o", "pid=,ppid=,rss=,args=", "-A"], capture_output=True, text=True
    ).stdout
    sizes = []
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[1] == str(server_pid) and "ipykernel" in parts[3]:
            sizes.append(int(parts[2]) / 1024)
    return sizes


async def run(
    visitors: int, repeat: int, template: str, skip_class: bool, pages: tuple[str, ...]
) -> None:
    async with async_playwright() as playwright:
        browser = await launch_chromium(playwright)
        print(f"template: {template}; {load_average()}")
        import_profile()
        await interactive_times(browser, repeat, template, pages)
        if skip_class:
            await browser.close()
            return
        await kernel_memory(template)
        for label, pool in (("cold (no pool)", 0),):
            times = []
            for _ in range(repeat):
                with serve_dashboard(pool=pool, template=template) as server:
                    if pool:
                        wait_for_warm_pool(server.pid, pool)
                    times.append(await visit(browser, server.url))
            print(
                f"time to interactive, {label}: median {statistics.median(times):.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times)})"
            )
        for pool in (visitors, 2):
            with serve_dashboard(pool=pool, template=template) as server:
                wait_for_warm_pool(server.pid, pool)
                results = await asyncio.gather(
                    *(visit(browser, server.url, play_turn=True) for _ in range(visitors)),
                    return_exceptions=True,
                )
                ok = [r for r in results if isinstance(r, float)]
                errors = [r for r in results if not isinstance(r, float)]
                memory = kernel_rss_mb(server.pid)
            summary = f"{visitors} concurrent visitors, pool of {pool}, each playing a turn: {len(errors)} errors"
            if ok:
                summary += f"; time to interactive median {statistics.median(ok):.2f} s, slowest {max(ok):.2f} s"
            print(summary)
            if memory:
                print(
                    f"  kernel memory per visitor: median {statistics.median(memory):.0f} MB over {len(memory)} kernels"
                )
            for error in errors[:3]:
                print("  error:", str(error).splitlines()[0])
        await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--visitors", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--template", default=TEMPLATE)
    parser.add_argument(
        "--skip-class",
        action="store_true",
        help="skip kernel memory and the concurrent class (time to interactive only)",
    )
    parser.add_argument(
        "--page",
        choices=("dashboard", "join page"),
        action="append",
        help="time only this page (repeatable; default: both)",
    )
    args = parser.parse_args()
    pages = tuple(args.page or ("dashboard", "join page"))
    asyncio.run(run(args.visitors, args.repeat, args.template, args.skip_class, pages))


if __name__ == "__main__":
    main()
