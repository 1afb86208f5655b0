"""Benchmark the Voilà dashboard in headless Chromium (Debian's, through Playwright).

    .venv/bin/python benchmarks/bench_dashboard.py [--visitors 20] [--repeat 3] [--template amteach]

Prints, with medians:
- time to interactive: from the page request until the Roll button is there and the board is
  drawn, with a preheated kernel waiting, and cold (no kernel kept ready);
- kernel memory per visitor: the resident size of each visitor's kernel process;
- N concurrent visitors on this machine, each playing a turn: errors and time to interactive,
  once with a pool as large as the class (`amteach dashboard --pool N`) and once with the
  default pool of 2. The browser runs on the same 2 cores as the server and every kernel.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

from playwright.async_api import async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from browser import launch_chromium, serve_dashboard  # the tests' own helper

from amteach.serving import TEMPLATE


async def visit(browser, url: str, play_turn: bool = False) -> float:
    context = await browser.new_context(viewport={"width": 1280, "height": 720})
    page = await context.new_page()
    console_errors: list[str] = []
    page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(str(error)))

    async def offline(route) -> None:  # the lab and classic templates link a CDN
        await route.fulfill(status=200, content_type="text/css", body="")

    await page.route(lambda u: not u.startswith(url), offline)
    started = time.perf_counter()
    try:
        await page.goto(url, timeout=600_000)
        await page.wait_for_selector(".am-board", timeout=300_000)
        roll = page.locator(".am-choices button", has_text="Roll")
        await roll.wait_for(timeout=300_000)
        elapsed = time.perf_counter() - started
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


def wait_for_warm_pool(server_pid: int, size: int) -> None:
    """A benchmark may wait (a test never does): until `size` pool kernels exist and have
    finished running the notebook, seen as a second with no CPU use."""
    while True:
        pids = kernel_pids(server_pid)
        if len(pids) >= size:
            before = {pid: cpu_ticks(pid) for pid in pids}
            time.sleep(1)
            if all(cpu_ticks(pid) - ticks < 3 for pid, ticks in before.items()):
                return
        else:
            time.sleep(0.5)


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


async def run(visitors: int, repeat: int, template: str) -> None:
    async with async_playwright() as playwright:
        browser = await launch_chromium(playwright)
        print(f"template: {template}")
        for label, pool in (("preheated (pool of 2)", 2), ("cold (no pool)", 0)):
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
    args = parser.parse_args()
    asyncio.run(run(args.visitors, args.repeat, args.template))


if __name__ == "__main__":
    main()
