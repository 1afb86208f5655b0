"""The dashboard under a path (`--base-url /amteach/`) behind Debian's nginx, configured with the
site file of docs/deploy.md: Chromium plays a turn and runs a batch through the proxy, and the
load generator's messages (benchmarks/bench_visitors.py) give the same game as the browser."""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
from browser import launch_chromium
from playwright.sync_api import sync_playwright
from served import REPO, bench_visitors, dashboard_server, narration_text, nginx

WAIT = 180_000


def site_file() -> str:
    """The nginx site file that docs/deploy.md gives instructors."""
    text = (REPO / "docs" / "deploy.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```nginx\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/deploy.md has one nginx site file"
    return blocks[0]


@contextmanager
def nginx_in_front(upstream_port: int, folder: Path) -> Iterator[str]:
    """nginx with the documented site, in front of the dashboard on `upstream_port`."""
    site = site_file()
    assert "proxy_pass http://127.0.0.1:8866;" in site, site
    with nginx(site.replace("127.0.0.1:8866", f"127.0.0.1:{upstream_port}"), folder) as port:
        yield f"http://127.0.0.1:{port}"


def test_the_dashboard_under_a_path_plays_and_runs_a_batch_through_nginx(tmp_path):
    # no preheated kernel (issue 40): the browser's page and the load generator's each start
    # their own, where a pool of one started a third, for the pool, that nothing opened; what
    # is asserted is the path through nginx, which a pool does not change
    with (
        dashboard_server(pool=0, base_url="/amteach/") as server,
        nginx_in_front(int(server.url.split(":")[2].split("/")[0]), tmp_path) as proxy,
        sync_playwright() as playwright,
    ):
        url = f"{proxy}/amteach/"
        # the path is the dashboard's; nginx answers anything else itself
        with pytest.raises(urllib.error.HTTPError) as outside:
            urllib.request.urlopen(f"{proxy}/elsewhere/")
        assert outside.value.code == 404

        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        console_errors: list[str] = []
        sockets: list[str] = []
        page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: console_errors.append(str(error)))
        page.on("websocket", lambda ws: sockets.append(ws.url))
        page.goto(url)

        # a turn: Roll, whatever the landing asks, End turn (as tests/test_browser.py clicks)
        roll = page.locator(".am-choices button", has_text="Roll")
        roll.wait_for(timeout=WAIT)

        def click_choice(button) -> None:
            handle = button.element_handle()
            handle.click()
            page.wait_for_function("(el) => !el.isConnected", arg=handle, timeout=WAIT)

        click_choice(roll)
        end_turn = page.locator(".am-choices button", has_text="End turn")
        for _ in range(6):
            page.wait_for_function(
                "document.querySelectorAll('.am-choices button').length > 0", timeout=WAIT
            )
            if end_turn.count():
                break
            click_choice(page.locator(".am-choices button").first)
        click_choice(end_turn)
        browser_turn = " ".join(page.locator(".am-narration").text_content().split())
        assert "throws" in browser_turn
        # the kernel's websocket went through nginx, under the path
        assert sockets and all(s.startswith(f"ws{proxy[4:]}/amteach/api/kernels/") for s in sockets)

        # the load generator sends the same messages through the same proxy: the same game
        module = bench_visitors()

        async def protocol_turn() -> str:
            visitor = module.Visitor(url)
            try:
                await visitor.open()
                await visitor.take_turn()
                return narration_text(visitor.narration())
            finally:
                await visitor.close()

        # (in a thread of its own: Playwright's sync API holds this thread's event loop)
        with ThreadPoolExecutor(1) as thread:
            assert thread.submit(asyncio.run, protocol_turn()).result() == browser_turn

        # a batch in the Who wins tab
        page.get_by_role("tab", name="Who wins").click()
        page.get_by_role("button", name="Run").first.click()
        page.wait_for_selector("table.am-summary", timeout=WAIT)  # win rates by role
        assert "Traceback" not in page.locator("body").inner_text()
        browser.close()
    assert console_errors == []
