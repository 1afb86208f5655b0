"""The health endpoint for load balancers (`GET <base-url>health`, docs/deploy.md section 6):
200 with room while a new visitor would get a kernel, 503 once `--max-visitors` kernels belong
to visitors, counts only in its JSON, no login and no kernel started by asking."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from served import dashboard_server, nginx

from amteach.serving.nginx import site_file

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


def test_health_without_a_cap_always_has_room_and_through_the_generated_nginx_site(tmp_path):
    """No cap: always room, the visitors counted. And `amteach dashboard --nginx-config`'s
    site file passes the health check on (valid for nginx -t, which the fixture runs first),
    leaving it out of the access log."""
    # no pool (issue 40): the visitor's GET starts its kernel itself, one dashboard rendered
    # where a pool rendered two (its kernel, then its refill); what is counted is the same
    with dashboard_server(pool=0, max_visitors=0, base_url="/amteach/") as server:
        with urllib.request.urlopen(server.url, timeout=180):
            pass
        status, _, report = health(server.url)
        assert status == 200
        assert report["room"] is True and report["max_visitors"] is None
        assert report["visitors"] == 1
        port = int(server.url.split(":")[2].split("/")[0])
        with nginx(site_file(port, "/amteach/"), tmp_path) as proxy:
            status, _, through = health(f"http://127.0.0.1:{proxy}/amteach/")
            assert status == 200 and through["room"] is True
            assert (through["visitors"], through["max_visitors"]) == (1, None)
            try:  # any other request is logged
                urllib.request.urlopen(f"http://127.0.0.1:{proxy}/amteach/no-such-file.js")
            except urllib.error.HTTPError as err:
                assert err.code in (403, 404)  # the dashboard serves no such file
        log = (tmp_path / "access.log").read_text()
        assert "/amteach/health" not in log and "no-such-file" in log
