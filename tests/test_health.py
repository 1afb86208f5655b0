"""The health endpoint for load balancers (`GET <base-url>health`, docs/deploy.md section 6):
200 with room while a new visitor would get a kernel, 503 once `--max-visitors` kernels belong
to visitors, counts only in its JSON, no login and no kernel started by asking."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from served import dashboard_server

# what the answer may hold: counts and the one yes/no, nothing that names a visitor or a room
FIELDS = {"room", "visitors", "max_visitors", "kernels", "phones"}


def health(url: str, method: str = "GET") -> tuple[int, dict, dict]:
    request = urllib.request.Request(url + "health", method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            status, headers, body = answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as err:
        status, headers, body = err.code, dict(err.headers), err.read()
    return status, headers, json.loads(body) if body else {}


def test_health_says_room_while_empty_and_503_once_the_visitor_cap_is_reached():
    with dashboard_server(pool=1, max_visitors=1, base_url="/amteach/") as server:
        server.wait_for_pool()
        kernels_before = set(server.kernels())
        status, headers, report = health(server.url)
        assert status == 200, report
        assert set(report) == FIELDS
        assert report["room"] is True
        assert report["visitors"] == 0 and report["max_visitors"] == 1
        assert report["kernels"] == 1  # the warm pool's kernel, not a visitor's
        assert report["phones"] == 0
        assert headers["Cache-Control"] == "no-store"
        assert headers["Content-Type"] == "application/json"
        # asking starts nothing
        assert set(server.kernels()) == kernels_before
        assert health(server.url, "HEAD")[0] == 200

        # a visitor takes the one place (a plain GET of the page is handed a kernel)
        with urllib.request.urlopen(server.url, timeout=180) as page:
            assert page.status == 200
        status, _, report = health(server.url)
        assert status == 503, report
        assert report["room"] is False
        assert report["visitors"] == 1 and report["max_visitors"] == 1
        assert health(server.url, "HEAD")[0] == 503
        # and the next visitor indeed gets the "full" page: health said the truth
        try:
            urllib.request.urlopen(server.url, timeout=60)
            raise AssertionError("a second visitor got a page past a cap of 1")
        except urllib.error.HTTPError as err:
            assert err.code == 503


def test_health_without_a_cap_always_has_room_and_counts_what_is_served():
    with dashboard_server(pool=1, max_visitors=0) as server:
        server.wait_for_pool()
        with urllib.request.urlopen(server.url, timeout=180):
            pass
        status, _, report = health(server.url)
        assert status == 200
        assert report["room"] is True and report["max_visitors"] is None
        assert report["visitors"] == 1
