"""Issue 36, a class that no script can lock out: the kernels one client may hold, and the
beacons that hold or free a kernel. A real server with a small cap; a hostile student's
script (plain HTTP, no browser) that reads everything the page holds, its key included, and
comes from another loopback address than the class (Linux accepts any 127.x source address,
so no proxy has to be trusted to model two addresses)."""

from __future__ import annotations

import asyncio
import http.client
import re
from urllib.parse import urlsplit

from served import bench_visitors, dashboard_server

from amteach.serving.app import PAGE_KEY_FIELD
from amteach.serving.clients import DEVICE_COOKIE

CAP = 8  # --max-visitors: so --max-per-address auto is 4
PER_DEVICE = 2
CONFIG_KERNEL = re.compile(r'"kernelId":\s*"([\w-]+)"')
CONFIG_KEY = re.compile(rf'"{PAGE_KEY_FIELD}":\s*"(\w+)"')


def request(
    url: str,
    method: str = "GET",
    path: str = "",
    source: str = "127.0.0.1",
    headers: dict[str, str] | None = None,
    body: str | None = None,
) -> tuple[int, list[str], str]:
    """One plain HTTP request from `source` (a loopback address), as a script sends it: the
    status, the cookies set and the body."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(
        parts.hostname, parts.port, timeout=300, source_address=(source, 0)
    )
    try:
        connection.request(method, parts.path + path, body=body, headers=headers or {})
        response = connection.getresponse()
        cookies = response.headers.get_all("Set-Cookie") or []
        return response.status, cookies, response.read().decode()
    finally:
        connection.close()


def scraped(page: str) -> tuple[str, str]:
    """The kernel's id and the page's key, read from the page as any script can."""
    return CONFIG_KERNEL.search(page)[1], CONFIG_KEY.search(page)[1]


def beacon(url: str, route: str, kernel: str, key: str | None, source: str, **headers: str) -> int:
    return request(url, "POST", f"voila/amteach/{route}/{kernel}", source, headers, key)[0]


def test_a_script_looping_page_and_alive_beacon_cannot_lock_out_the_class_or_the_instructor():
    extra = [f"--ClassroomKernelManager.max_per_device={PER_DEVICE}"]
    with dashboard_server(pool=1, max_visitors=CAP, extra=extra) as server:
        origin = {"Origin": server.url.rstrip("/")}
        # the script: page, then the alive beacon with all it scraped, again and again, with
        # no cookie, an Origin header of the server's own, and a made-up address
        statuses, held = [], []
        for n in range(CAP + 2):
            # each time claiming to be someone else, to a server that trusts no proxy
            spoofed = {"X-Real-IP": f"10.0.0.{n}", "X-Forwarded-For": f"10.1.0.{n}"}
            status, _, page = request(server.url, source="127.0.0.2", headers=spoofed)
            statuses.append(status)
            if status == 200:
                kernel, key = scraped(page)
                assert beacon(server.url, "alive", kernel, key, "127.0.0.2", **origin) == 204
                held.append((kernel, key))
            else:
                refused = page
        # half the cap for one address (--max-per-address auto), then a plain 429 page
        assert statuses == [200] * (CAP // 2) + [429] * (CAP // 2 + 2), statuses
        assert "Too many dashboard pages are open from your network: 4." in refused
        assert "Traceback" not in refused and "<html" in refused
        assert {kernel for kernel, _ in held} <= set(server.kernels())

        # the instructor, from another address: the dashboard, with a kernel that plays
        instructor = bench_visitors().Visitor(server.url)
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(instructor.open())
            assert instructor.kernel_id in server.kernels()
            loop.run_until_complete(instructor.click("Roll"))
            assert "throws" in instructor.narration()
        finally:
            loop.run_until_complete(instructor.close())
            loop.close()

        # the beacons want the page's own key, and an Origin of this server
        kernel, key = held[0]
        other_kernel, other_key = scraped(request(server.url, source="127.0.0.5")[2])
        elsewhere = {"Origin": "http://elsewhere.example"}
        for route in ("alive", "release"):
            assert beacon(server.url, route, kernel, None, "127.0.0.5", **origin) == 403
            assert beacon(server.url, route, kernel, other_key, "127.0.0.5", **origin) == 403
            assert beacon(server.url, route, other_kernel, other_key, "127.0.0.5") == 403
            assert (
                beacon(server.url, route, other_kernel, other_key, "127.0.0.5", **elsewhere) == 403
            )
        assert kernel in server.kernels() and other_kernel in server.kernels()
        # with its key and this server's origin, a page frees its kernel
        assert beacon(server.url, "release", other_kernel, other_key, "127.0.0.5", **origin) == 204
        assert beacon(server.url, "release", kernel, key, "127.0.0.2", **origin) == 204
        assert kernel not in server.kernels() and other_kernel not in server.kernels()

        # a browser (its device cookie) holds at most PER_DEVICE pages; another browser at
        # the same address still gets in
        cookie = None
        device_statuses = []
        for _ in range(PER_DEVICE + 1):
            headers = {"Cookie": cookie} if cookie else {}
            status, set_cookies, page = request(server.url, source="127.0.0.3", headers=headers)
            device_statuses.append(status)
            device = [c for c in set_cookies if c.startswith(DEVICE_COOKIE + "=")]
            if device:
                assert cookie is None  # set once, then sent back
                assert "HttpOnly" in device[0] and "SameSite=Lax" in device[0]
                cookie = device[0].split(";", 1)[0]
        assert device_statuses == [200] * PER_DEVICE + [429], device_statuses
        assert f"This browser already has {PER_DEVICE} dashboard pages open." in page
        assert request(server.url, source="127.0.0.3")[0] == 200
        # and the script's address has a place again, freed by its page's own beacon
        assert request(server.url, source="127.0.0.2")[0] == 200

        log = "".join(server.log)
        assert "Traceback" not in log, log[-3000:]


def test_behind_a_trusted_proxy_each_visitor_counts_for_the_address_it_names():
    """nginx on this machine (127.0.0.1, --trusted-proxy) names each visitor in X-Real-IP; a
    request from anywhere else counts for its own address, whatever it names."""
    proxy = ["--ClassroomVoila.trusted_proxies=['127.0.0.1']"]
    with dashboard_server(pool=1, max_visitors=4, extra=proxy) as server:  # 2 per address
        ana = {"X-Real-IP": "203.0.113.1"}
        assert [request(server.url, headers=ana)[0] for _ in range(3)] == [200, 200, 429]
        assert request(server.url, headers={"X-Real-IP": "203.0.113.2"})[0] == 200
        # not from the proxy: its own address counts, not the one it names
        assert request(server.url, source="127.0.0.2", headers=ana)[0] == 200
        assert "Traceback" not in "".join(server.log)


# --- the parts, without a server --------------------------------------------------------------


def test_a_proxys_word_on_the_visitors_address_counts_only_when_the_proxy_is_trusted():
    from tornado.httputil import HTTPHeaders

    from amteach.serving.clients import client_address

    headers = HTTPHeaders({"X-Real-IP": "203.0.113.7", "X-Forwarded-For": "1.2.3.4, 198.51.100.9"})
    # a visitor cannot name another address for itself
    assert client_address("192.0.2.1", headers, []) == "192.0.2.1"
    assert client_address("192.0.2.1", headers, ["127.0.0.1"]) == "192.0.2.1"
    # nginx on this machine names the visitor
    assert client_address("127.0.0.1", headers, ["127.0.0.1"]) == "203.0.113.7"
    # without X-Real-IP, the entry the proxy added (the last), not the one a client wrote
    forwarded = HTTPHeaders({"X-Forwarded-For": "1.2.3.4, 198.51.100.9"})
    assert client_address("127.0.0.1", forwarded, ["127.0.0.1"]) == "198.51.100.9"
    nonsense = HTTPHeaders({"X-Real-IP": "<script>"})
    assert client_address("127.0.0.1", nonsense, ["127.0.0.1"]) == "127.0.0.1"
    assert client_address("127.0.0.1", HTTPHeaders(), ["127.0.0.1"]) == "127.0.0.1"


def test_the_caps_count_pages_being_served_and_free_a_place_when_the_kernel_goes():
    from amteach.serving.pool import ClassroomKernelManager

    manager = ClassroomKernelManager(max_kernels=8, max_per_device=2)
    assert manager.address_cap() == 4  # auto: half of the cap
    assert ClassroomKernelManager(max_kernels=1).address_cap() == 1
    assert ClassroomKernelManager(max_kernels=0).address_cap() == 0  # no cap, no share of it
    assert ClassroomKernelManager(max_kernels=8, max_per_address=30).address_cap() == 30
    # pages still being served count: a burst cannot pass the check all at once
    first = manager.claim_for_client("phone", "10.0.0.1")
    second = manager.claim_for_client("phone", "10.0.0.1")
    assert manager.claim_for_client("phone", "10.0.0.1") == "device"
    third = manager.claim_for_client("laptop", "10.0.0.1")
    manager.claim_for_client("", "10.0.0.1")  # a script without the cookie
    assert manager.claim_for_client("tablet", "10.0.0.1") == "address"
    assert not isinstance(manager.claim_for_client("tablet", "10.0.0.2"), str)
    # a page that was given no kernel counts no more; one that was, until its kernel goes
    manager.drop_claim(third)
    assert not isinstance(manager.claim_for_client("tablet", "10.0.0.1"), str)
    manager.give_claim_kernel(first, "k1")
    manager.drop_claim(first)  # (the page's end: its kernel still counts)
    manager.drop_claim(second)
    assert manager.client_kernels("phone", "10.0.0.1")[0] == 0  # k1 is no kernel it holds
    manager.claims.append(first)
    manager.forget_kernel("k1")
    assert first not in manager.claims
