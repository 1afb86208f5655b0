"""Who a request comes from, for the limits per client: the browser (a device cookie that
the pages set) and the network address (the connection's own, or the one a trusted reverse
proxy names). The kernels' caps (`app.py`) and the phones' limits (`phones.py`) count by both.
"""

from __future__ import annotations

import ipaddress
import re

from tornado import httputil

# the cookie that tells one browser from another, for the kernels-per-device cap
DEVICE_COOKIE = "amteach_device"
DEVICE_COOKIE_FORM = re.compile(r"[A-Za-z0-9_-]{16,64}")
# where the server's settings name the reverse proxies trusted to say who the visitor is
TRUSTED_PROXIES_SETTING = "amteach_trusted_proxies"


def client_address(peer: str, headers: httputil.HTTPHeaders, trusted: list[str]) -> str:
    """The visitor's network address: the connection's own (`peer`), or, when `peer` is a
    trusted reverse proxy, the address it names: X-Real-IP (nginx's $remote_addr), else the
    last X-Forwarded-For entry (the one the proxy added; earlier ones come from the client)."""
    if peer not in trusted:
        return peer
    named = headers.get("X-Real-IP", "").strip()
    if not named:
        forwarded = [part.strip() for part in headers.get("X-Forwarded-For", "").split(",")]
        named = forwarded[-1] if forwarded else ""
    try:
        return str(ipaddress.ip_address(named))
    except ValueError:  # no header, or nonsense in it: the proxy itself
        return peer
