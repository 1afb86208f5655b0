"""Issue 36: the page's beacons carry the page's own key, in both templates. A browser opens
the dashboard, its first script tells the server it has the page (the alive beacon), and its
closing tab hands the kernel back (the release beacon): both accepted (HTTP 204), and the
kernel goes at once, not after the grace period. tests/test_client_limits.py refuses the
beacons that lack the key or the Origin."""

from __future__ import annotations

import time
import urllib.error
import urllib.request

import pytest
from served import dashboard_server
from test_faults import RELEASED_WITHIN, WAIT, settle

from amteach.serving import TEMPLATE

KERNEL_OF_PAGE = "JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"


@pytest.mark.parametrize("template", [TEMPLATE, "amteach"])
def test_a_browsers_beacons_carry_the_pages_key_and_are_accepted(template, browser):
    # one Chromium for both templates (the module's, tests/conftest.py): each test's page is in
    # a context of its own, closed after it. A cap of one visitor: the page still gets the
    # preheated kernel, and the pool's refill then waits for room instead of rendering a
    # dashboard no page opens (issue 40: a Chromium start and a kernel per template fewer)
    with dashboard_server(pool=1, max_visitors=1, template=template) as server:
        page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        beacons: list[tuple[str, str | None]] = []  # (address, body)
        page.on(
            "request",
            lambda request: (
                "/voila/amteach/" in request.url
                and beacons.append((request.url, request.post_data))
            ),
        )
        with page.expect_response(lambda r: "/voila/amteach/alive/" in r.url) as alive:
            page.goto(server.url)
        # accepted: the server refuses a beacon without this server's Origin or the page's key
        assert alive.value.status == 204
        page.locator(".am-choices button", has_text="Roll").wait_for(timeout=WAIT)
        kernel = page.evaluate(KERNEL_OF_PAGE)
        url, key = beacons[0]
        assert url.endswith(f"/voila/amteach/alive/{kernel}") and key and len(key) == 32
        assert kernel in server.kernels()
        # a script that knows the kernel's id, not the key, or sends no Origin, is refused
        beacon = f"{server.url}voila/amteach/release/{kernel}"
        for body, headers in [
            (b"", {"Origin": server.url.rstrip("/")}),
            (b"0" * 32, {"Origin": server.url.rstrip("/")}),
            (key.encode(), {}),
        ]:
            request = urllib.request.Request(beacon, body, headers, method="POST")
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=60)
            assert refused.value.code == 403
        assert kernel in server.kernels()
        settle(page, server.url)
        page.close(run_before_unload=True)
        # handed back by the release beacon (nothing else frees it within the 300 s grace)
        deadline = time.monotonic() + RELEASED_WITHIN
        while kernel in server.kernels():  # polling the server's processes, never to pass
            assert time.monotonic() < deadline, "the closed page's kernel was not handed back"
            time.sleep(0.2)
        log = "".join(server.log)
        # the three refused above, and no beacon of the browser's
        assert log.count("(127.0.0.1): not this page's key") == 2
        assert log.count("(127.0.0.1): not from a page of this server (Origin)") == 1
        assert "Traceback" not in log, log[-3000:]
