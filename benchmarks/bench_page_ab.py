"""Compare two checkouts' first pages side by side (A/B), visit by visit, in headless Chromium.

    .venv/bin/python benchmarks/bench_page_ab.py --base /path/to/other/checkout [--visits 5]
        [--page dashboard|join] [--pool 2] [--template amteach-lean]

Starts `amteach dashboard` twice on this machine at once: once from another checkout (`--base`,
put first on PYTHONPATH, so its amteach package, template and notebooks are served; its
compiled cores must be built or copied in place) and once from this one, each with a class
database holding one room. Then visits each server in turn (A, B, B, A, ...), each visit in a
new browser context (an empty cache), at 1280x720, waiting before each visit until every
kernel of both servers is quiet. So both sides see the same machine load, and their times
compare even on a shared machine. `--template` serves this checkout's side with another Voilà
template than its default (the base keeps its default), e.g. amteach-lean (issue 24).

Prints per visit and as medians: time to interactive (the dashboard's Roll button enabled;
a join page's Join button enabled with the room's code filled in), and the figures that do
not depend on the load: the main thread's script and task time (Chrome's performance
metrics ScriptDuration and TaskDuration; ThreadTime is the main thread's CPU), requests
made, kB of JavaScript (decoded), the JupyterLab extensions the page loads, widget models
the kernel sent at start; and the time from the window's load event to the kernel's
websocket sending its first message.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from playwright.async_api import async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_dashboard import class_database, pooled_pages, wait_for_warm_pool, watch_page
from browser import free_port, launch_chromium

ROLL_ENABLED = (
    "[...document.querySelectorAll('.am-choices button')]"
    ".some(b => b.innerText.includes('Roll') && !b.disabled)"
)


def join_ready(code: str) -> str:
    return (
        "document.querySelector('input[placeholder=\"the code on the projector\"]')"
        f"?.value === {code!r} && [...document.querySelectorAll('button')]"
        ".some(b => b.innerText.trim() === 'Join' && !b.disabled)"
    )


@contextmanager
def dashboard(checkout: Path | None, rooms: str, pool: int, template: str | None = None):
    """`amteach dashboard` from `checkout` (None: this one) on a free port."""
    port = free_port()
    env = dict(os.environ)
    if checkout is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(checkout), env.get("PYTHONPATH")) if p)
    command = [
        sys.executable,
        "-m",
        "amteach",
        "dashboard",
        f"--port={port}",
        f"--pool={pool}",
        f"--rooms={rooms}",
        "--max-visitors=0",
    ] + ([f"--template={template}"] if template else [])
    # `python -m` puts the working directory first on the path, before PYTHONPATH: the server
    # runs in the checkout it serves
    server = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=checkout or Path(__file__).resolve().parents[1],
    )
    try:
        log = []
        for line in server.stdout:
            log.append(line)
            if "is running at" in line:
                break
        else:
            raise RuntimeError("server ended:\n" + "".join(log[-30:]))
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
        yield f"http://127.0.0.1:{port}/", server.pid
    finally:
        server.terminate()
        server.wait(timeout=30)


async def one_visit(browser, url: str, code: str | None) -> dict:
    context = await browser.new_context(viewport={"width": 1280, "height": 720})
    page = await context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    cdp, models = await watch_page(page)
    socket_at: list[float] = []

    def frames(ws) -> None:
        ws.on(
            "framesent", lambda _p: socket_at.append(time.perf_counter()) if not socket_at else None
        )

    page.on("websocket", frames)
    started = time.perf_counter()
    try:
        await page.goto(url if code is None else f"{url}?room={code}", timeout=300_000)
        await page.wait_for_function(
            ROLL_ENABLED if code is None else join_ready(code), timeout=300_000
        )
        found = {"interactive": time.perf_counter() - started}
        metrics = {
            m["name"]: m["value"] for m in (await cdp.send("Performance.getMetrics"))["metrics"]
        }
        found.update(
            script=metrics["ScriptDuration"],
            task=metrics["TaskDuration"],
            thread=metrics["ThreadTime"],
            style=metrics["RecalcStyleDuration"],
            layout=metrics["LayoutDuration"],
            compile=metrics.get("V8CompileDuration", 0.0),
            other=metrics.get("TaskOtherDuration", 0.0),
        )
        info = await page.evaluate(
            """() => {
              const r = performance.getEntriesByType('resource');
              const js = r.filter((e) => e.name.split('?')[0].endsWith('.js'));
              const n = performance.getEntriesByType('navigation')[0];
              const config = JSON.parse(document.getElementById('jupyter-config-data').textContent);
              const marks = Object.fromEntries(performance.getEntriesByType('mark')
                .map((m) => [m.name, m.startTime / 1000]));
              return {marks, requests: r.length + 1, js: js.reduce((s, e) => s + e.decodedBodySize, 0),
                      jsFiles: js.length, load: n.loadEventStart,
                      extensions: (config.federated_extensions || []).map((e) => e.name)};
            }"""
        )
        found.update(
            requests=info["requests"],
            js_kb=info["js"] / 1024,
            js_files=info["jsFiles"],
            load=info["load"] / 1000,
            extensions=info["extensions"],
            models=models[0] if models else 0,
            # the amteach-lean front end's own steps (frontend/src/index.ts), if it drew the page
            marks=info["marks"],
        )
        found["load_to_socket"] = (
            (socket_at[0] - started) - found["load"] if socket_at else float("nan")
        )
        found["errors"] = errors
        return found
    finally:
        await context.close()


NUMERIC = (
    "interactive",
    "style",
    "layout",
    "compile",
    "other",
    "load",
    "load_to_socket",
    "script",
    "task",
    "thread",
    "requests",
    "js_kb",
    "js_files",
    "models",
)


async def run(base: Path, visits: int, page: str, pool: int, template: str | None) -> None:
    with tempfile.TemporaryDirectory(prefix="amteach-ab-") as folder:
        env, code = class_database(folder)
        rooms = next(iter(env.values()))
        with (
            dashboard(base, rooms, pool) as (url_a, pid_a),
            dashboard(None, rooms, pool, template) as (url_b, pid_b),
        ):
            sides = {"A (base)": (url_a, pid_a), "B (this)": (url_b, pid_b)}
            results: dict[str, list[dict]] = {side: [] for side in sides}
            async with async_playwright() as playwright:
                browser = await launch_chromium(playwright)
                order = []
                for i in range(visits):
                    order += list(sides) if i % 2 == 0 else list(sides)[::-1]
                for side in order:
                    for pid in (pid_a, pid_b):
                        wait_for_warm_pool(pid, pooled_pages() * pool, quiet_seconds=2)
                    load = os.getloadavg()[0]
                    url, _ = sides[side]
                    found = await one_visit(browser, url, None if page == "dashboard" else code)
                    found["machine_load"] = load
                    results[side].append(found)
                    print(
                        f"{side}: {found['interactive']:.2f} s (load {load:.1f}); load event"
                        f" {found['load']:.2f}, load->socket {found['load_to_socket']:.2f};"
                        f" script {found['script']:.2f} task {found['task']:.2f} thread"
                        f" {found['thread']:.2f} s (style {found['style']:.2f}, layout {found['layout']:.2f},"
                        f" compile {found['compile']:.2f}, other {found['other']:.2f});"
                        f" {found['requests']} requests,"
                        f" {found['js_files']} js files {found['js_kb']:.0f} kB; {found['models']} models"
                        + "".join(
                            f"; {name.split(':')[-1]} {at:.2f}"
                            for name, at in found["marks"].items()
                        )
                        + (f"; ERRORS {found['errors'][:2]}" if found["errors"] else ""),
                        flush=True,
                    )
                await browser.close()
            print(f"\n{page}, medians of {visits} visits each, alternating:")
            for side, found in results.items():
                print(
                    f"  {side}: "
                    + ", ".join(
                        f"{name} {statistics.median(f[name] for f in found):.2f}"
                        for name in NUMERIC
                    )
                )
                print(f"    extensions: {json.dumps(found[0]['extensions'])}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--visits", type=int, default=5)
    parser.add_argument("--page", choices=("dashboard", "join"), default="dashboard")
    parser.add_argument("--pool", type=int, default=2)
    parser.add_argument("--template", help="this checkout's template (default: its default)")
    args = parser.parse_args()
    asyncio.run(run(args.base, args.visits, args.page, args.pool, args.template))


if __name__ == "__main__":
    main()
