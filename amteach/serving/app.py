"""The Voilà server that `amteach dashboard` runs: Voilà itself, plus what a class needs.

- **A cap on kernels** (`amteach.serving.pool`): at most `--max-visitors` kernels, the preheated
  pool included. Visitor N+1 gets a short "the class dashboard is full" page (HTTP 503) that
  tries again by itself, and gets a kernel as soon as one is freed.
- **Kernels of pages that never opened go promptly.** A kernel handed to a page that no
  browser opened (a plain GET, a crawler: the page's first script never ran and never told the
  server, see voila_template/index.html.j2) and that never connected to it is shut
  down `unopened_timeout` seconds after the page was sent (40 s by default; checked every
  10 s), not after the grace period: a loop of plain GETs cannot fill memory.
- **Kernels of closed tabs go promptly.** The page asks the server to shut its kernel down when
  the tab closes (see voila_template/index.html.j2). A page that vanishes without saying so (a
  dropped network, a sleeping laptop) keeps its kernel for a grace period counted from the
  moment its connection dropped, so a page that reconnects finds its game where it was; after
  it the kernel goes, whatever output it still produces.
- **Beacons carry the page's own key.** The alive and release beacons name a kernel and carry
  the key the server put in that page (`page_key`: an HMAC of the kernel's id under a secret
  made at start, so no state is kept), and must say where they come from (an Origin header of
  this server): knowing a kernel's id is not enough to hold or free it.
- **Kernels per client.** A browser (its `amteach_device` cookie) and a network address may
  hold only so many kernels at once (`ClassroomKernelManager.max_per_device`,
  `max_per_address`); beyond, a short "too many pages" page (HTTP 429). One script then cannot
  take every kernel under the cap and lock the class, or its instructor, out.
- **A join link's page has no kernel.** `?room=CODE` on the dashboard's address is served
  the light phone page (`phones.py`), and the server holds the class's tables itself
  (`amteach.rooms.hub`): a phone costs a websocket. Links handed out keep working: they are
  the same address.
- **Stops what it starts.** Voilà shuts its kernels down on SIGTERM; `amteach dashboard`
  replaces itself with this process, so a service manager's SIGTERM reaches it directly.

Run as `python -m amteach.serving.app NOTEBOOK [Voilà options]` (see
`amteach.serving.voila_command`).
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import hmac
import html
import json
import mimetypes
import os
import re
import secrets
import shutil
import sys
import threading
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, urlsplit

from jupyter_server.auth.decorator import allow_unauthenticated
from jupyter_server.base.handlers import FileFindHandler, JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import httputil, ioloop, web
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError
from traitlets import Bool, List, Unicode
from voila.app import Voila
from voila.static_file_handler import (
    MultiStaticFileHandler,
    TemplateStaticFileHandler,
)
from voila.tornado.handler import TornadoVoilaHandler

from ..rooms import SERVER_DRIVES_ENV
from .clients import (
    DEVICE_COOKIE,
    DEVICE_COOKIE_FORM,
    TRUSTED_PROXIES_SETTING,
    client_address,
)
from .environment import PLOTLY_BUNDLE, voila_environment
from .phones import (
    CONNECTIONS_SETTING,
    PHONE_ROUTE,
    PhoneSocket,
    limits_from_environment,
    phone_page,
    phone_settings,
)
from .pool import ClassroomKernelManager, ClientClaim

# how often a full page asks again, in seconds
FULL_PAGE_RETRY = 15
# where a closing page hands its kernel back (the template posts there)
RELEASE_ROUTE = r"/voila/amteach/release/(?P<kernel_id>[\w-]+)"
# where a page that a browser opened says so, before its scripts load (the template posts)
ALIVE_ROUTE = r"/voila/amteach/alive/(?P<kernel_id>[\w-]+)"
# where a load balancer or a monitor asks whether this server has room (HealthHandler)
HEALTH_ROUTE = r"/health"
# the kernel a page is given, in the page's own configuration (what its browser connects to)
PAGE_KERNEL_ID = re.compile(r'"kernelId":\s*"([\w-]+)"')
# the key a page's beacons carry, put in the page's configuration beside the kernel's id
PAGE_KEY_FIELD = "amteachPageKey"
# where the server's settings keep the secret page keys are made with
PAGE_SECRET_SETTING = "amteach_page_secret"


def page_key(secret: bytes, kernel_id: str) -> str:
    """The key of the page given `kernel_id`: only the server, which holds `secret`, can make
    it, and only that page is sent it."""
    return hmac.new(secret, kernel_id.encode(), hashlib.sha256).hexdigest()[:32]


RETRY_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="{retry}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
  body {{ font-family: system-ui, sans-serif; font-size: 24px; line-height: 1.5;
         max-width: 40em; margin: 15vh auto; padding: 0 1em; color: #1a1a1a; }}
  h1 {{ font-size: 36px; }}
</style></head>
<body class="{kind}">
<h1>{headline}</h1>
<p>{advice}</p>
</body></html>
"""


def retry_page(kind: str, title: str, headline: str, advice: str) -> str:
    """A short page, in plain words, that asks again by itself every FULL_PAGE_RETRY s."""
    return RETRY_PAGE.format(
        retry=FULL_PAGE_RETRY,
        kind=kind,
        title=html.escape(title),
        headline=html.escape(headline),
        advice=html.escape(advice),
    )


# where the server's settings say that visitors log in at JupyterHub (ClassroomVoila.hub_login)
HUB_LOGIN_SETTING = "amteach_hub_login"
# where the server's settings say that join links get the light phone page (phones.py)
LIGHT_PHONES_SETTING = "amteach_light_phones"

TOO_MANY = {
    "device": (
        "This browser already has {cap} dashboard pages open.",
        "Close a dashboard tab you no longer use: its place is freed at once.",
    ),
    "address": (
        "Too many dashboard pages are open from your network: {cap}.",
        "Close a dashboard page you no longer use, or try again in a few minutes. If your "
        "whole class shares one network address, ask the person who runs the server to raise "
        "--max-per-address.",
    ),
}


def is_join_link(query: str) -> bool:
    """A join link's query: `room=` with a value (what the page then reads, ui/live.py)."""
    return bool(parse_qs(query).get("room"))


class ClassroomVoilaHandler(TornadoVoilaHandler):
    """Voilà's page handler behind a door: a polite "full" page when the cap is reached, and
    a join link (`?room=CODE`) served the light phone page, with no kernel."""

    page_kernel: str | None = None
    claim: ClientClaim | None = None

    def write(self, chunk: Any) -> None:
        """Note the kernel the page is given (the page's first chunk carries its
        configuration), count it for the client, and put the page's key beside it."""
        if self.page_kernel is None and isinstance(chunk, str):
            found = PAGE_KERNEL_ID.search(chunk)
            if found:
                self.page_kernel = found.group(1)
                if self.claim is not None and isinstance(
                    self.kernel_manager, ClassroomKernelManager
                ):
                    self.kernel_manager.give_claim_kernel(self.claim, self.page_kernel)
                secret = self.settings.get(PAGE_SECRET_SETTING)
                if secret:
                    key = page_key(secret, self.page_kernel)
                    # the configuration is JSON: one more field after the kernel's id
                    chunk = (
                        chunk[: found.end()]
                        + f', "{PAGE_KEY_FIELD}": "{key}"'
                        + chunk[found.end() :]
                    )
        super().write(chunk)

    def client(self) -> tuple[str, str]:
        """This visitor's device cookie (set now if missing) and network address."""
        device = self.get_cookie(DEVICE_COOKIE) or ""
        if not DEVICE_COOKIE_FORM.fullmatch(device):
            device = secrets.token_urlsafe(18)
            self.set_cookie(
                DEVICE_COOKIE,
                device,
                path=self.base_url,
                httponly=True,
                samesite="Lax",
                secure=self.request.protocol == "https",
            )
        trusted = self.settings.get(TRUSTED_PROXIES_SETTING) or []
        return device, client_address(self.request.remote_ip or "", self.request.headers, trusted)

    def refuse(self, status: int, page: str) -> None:
        self.set_status(status)
        self.set_header("Retry-After", str(FULL_PAGE_RETRY))
        self.set_header("Cache-Control", "no-store")
        self.finish(page)

    def _page_sent(self) -> None:
        """The page is sent (or its visitor left before the end): its browser connects to the
        kernel within moments, or never. The clock starts now, not while a busy server still
        renders the page."""
        manager = self.kernel_manager
        if self.page_kernel is not None and isinstance(manager, ClassroomKernelManager):
            manager.note_page_served(self.page_kernel)
            self.page_kernel = None

    def _page_done(self) -> None:
        self._page_sent()
        manager = self.kernel_manager
        if self.claim is not None and isinstance(manager, ClassroomKernelManager):
            manager.drop_claim(self.claim)  # only if it was given no kernel

    def on_finish(self) -> None:
        self._page_done()
        super().on_finish()

    def on_connection_close(self) -> None:
        self._page_done()
        super().on_connection_close()

    # as Voilà's own page handler: a visitor the identity provider does not know (behind the
    # hub's login: one who has not logged in) is sent to its login
    @web.authenticated
    async def get(self, path: str | None = None) -> None:
        if self.settings.get(LIGHT_PHONES_SETTING) and is_join_link(self.request.query):
            # a join link: the light page, with no kernel (the server holds the game)
            room = (parse_qs(self.request.query).get("room") or [""])[0]
            self.client()  # the device cookie, which the phone's websocket is counted by
            self.set_header("Cache-Control", "no-store")
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(phone_page(self.base_url, room))
            return
        manager = self.kernel_manager
        if not isinstance(manager, ClassroomKernelManager):
            await super().get(path)
            return
        if not manager.has_room_for_a_visitor():
            self.refuse(
                503,
                retry_page(
                    "am-full",
                    "The class dashboard is full",
                    f"The class dashboard is full: {manager.max_kernels} visitors.",
                    "Try again in a minute. This page tries again by itself every "
                    f"{FULL_PAGE_RETRY} seconds and opens the dashboard as soon as a place is "
                    "free.",
                ),
            )
            return
        claim = manager.claim_for_client(*self.client())
        if isinstance(claim, str):  # over the cap of this device or address
            cap = manager.max_per_device if claim == "device" else manager.address_cap()
            headline, advice = TOO_MANY[claim]
            self.refuse(
                429,
                retry_page(
                    "am-too-many",
                    "Too many dashboard pages open",
                    headline.format(cap=cap),
                    f"{advice} This page tries again by itself every {FULL_PAGE_RETRY} seconds.",
                ),
            )
            return
        self.claim = claim
        await manager.make_room_for(self.notebook_path)
        await super().get(path)

    def should_use_rendered_notebook(self, *args: Any, **kwargs: Any) -> bool:
        use_pool = super().should_use_rendered_notebook(*args, **kwargs)
        if use_pool and isinstance(self.kernel_manager, ClassroomKernelManager):
            # the handler now takes a kernel from the pool, without awaiting in between
            self.kernel_manager.note_pool_handout(self.notebook_path)
        return use_pool


class PhoneSocketBehindLogin(PhoneSocket):
    """The phones' websocket, opened only by a user the hub knows when the server is behind
    the hub's login (`ClassroomVoila.hub_login`): its page is behind it too, so a phone that
    got the page has the service's cookie. Without the hub login, anyone may open it, as any
    page of the server."""

    async def get(self, *args: Any, **kwargs: Any) -> None:
        if self.settings.get(HUB_LOGIN_SETTING):
            user = await self.settings["identity_provider"].get_user(self)
            if user is None:
                raise web.HTTPError(403, "log in at the hub first")
        await super().get(*args, **kwargs)


class ReleaseKernelHandler(JupyterHandler):
    """A closing page hands its kernel back (navigator.sendBeacon in the amteach template).
    Voilà's own shutdown route wants an XSRF token that a Voilà page never receives; the
    page's key (sent in the beacon's body) and a same-origin check guard this one instead."""

    def check_xsrf_cookie(self) -> None:
        # a browser's beacon always says where it comes from; a request that does not is no
        # page's (a script's), and one from another site's page is refused as before
        # (compared here, not by Jupyter's check_origin: behind the hub's login this runs
        # while the hub's client is still finding out who the visitor is, and check_origin
        # would ask for that answer)
        origin = self.request.headers.get("Origin")
        if origin is None or urlsplit(origin.lower()).netloc != self.request.headers.get("Host"):
            raise web.HTTPError(403, "not from a page of this server (Origin)")

    def check_page_key(self, kernel_id: str) -> None:
        secret = self.settings.get(PAGE_SECRET_SETTING)
        if not secret:
            return
        sent = self.request.body.decode("ascii", "replace").strip()
        if not hmac.compare_digest(sent, page_key(secret, kernel_id)):
            raise web.HTTPError(403, "not this page's key")

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        # one plain line: Voilà's server has no error page templates of Jupyter's
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"{status_code} {HTTPStatus(status_code).phrase}\n")

    @web.authenticated
    async def post(self, kernel_id: str) -> None:
        self.check_page_key(kernel_id)
        if kernel_id in self.kernel_manager:
            await self.kernel_manager.shutdown_kernel(kernel_id)
        self.set_status(204)
        self.finish()


class PageAliveHandler(ReleaseKernelHandler):
    """A page that a browser opened says so as soon as its first script runs, so its kernel
    is kept while the rest of the page loads (a plain GET never runs the script). Guarded as
    the release route is: the page's key and a same-origin check."""

    @web.authenticated
    async def post(self, kernel_id: str) -> None:
        self.check_page_key(kernel_id)
        manager = self.kernel_manager
        if isinstance(manager, ClassroomKernelManager):
            manager.note_page_alive(kernel_id)
        self.set_status(204)
        self.finish()


def health_report(manager: Any, phones: int) -> dict[str, Any]:
    """What /health answers: whether a new visitor would get a kernel (`room`), the kernels
    visitors hold against the cap (`max_visitors`, null for no cap), every kernel alive (the
    warm pool included) and the phones' open connections (phones hold no kernel, so they never
    fill a server). Counts only: no address, no name, no room code."""
    if isinstance(manager, ClassroomKernelManager):
        visitors, kernels = manager.visitor_kernels(), manager.live_kernels()
        cap = manager.max_kernels or None
        room = manager.has_room_for_a_visitor()
    else:  # Voilà's own manager: no cap
        kernels = visitors = len(manager.list_kernel_ids())
        cap, room = None, True
    return {
        "room": room,
        "visitors": visitors,
        "max_visitors": cap,
        "kernels": kernels,
        "phones": phones,
    }


class HealthHandler(web.RequestHandler):
    """`GET /health` (under the base URL): 200 while a new visitor would get a kernel, 503
    when the cap is reached, with the counts of `health_report` as JSON. For load balancers'
    checks: it starts nothing, reads a few counters, and needs no login (not even behind the
    hub's: it is a plain tornado handler, not a Jupyter one)."""

    def report(self) -> dict[str, Any]:
        connections = self.settings.get(CONNECTIONS_SETTING)
        phones = sum(connections.by_address.values()) if connections is not None else 0
        report = health_report(self.settings["kernel_manager"], phones)
        self.set_status(200 if report["room"] else 503)
        self.set_header("Cache-Control", "no-store")
        return report

    def get(self) -> None:
        report = self.report()
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(report))

    def head(self) -> None:
        self.report()
        self.finish()


class QuickGzip(web.GZipContentEncoding):
    """gzip at level 1, and never plotly's bundle. Compressing on the fly takes the server's
    CPU from the kernels: level 1 takes about 40 % of the default level's time (Voilà's
    scripts: 3.5 MB into 1.18 MB against 0.99 MB). Plotly's bundle (4.9 MB) is fetched when
    the page is idle, and a chart's widget gives it only 2 s (anywidget): compressing it on a
    busy server made charts fail to load in tests/test_faults.py. Static files (plotly's
    bundle included) are sent from copies compressed once (`PackedStaticFiles`) and pass
    through here unchanged; this compresses the rest (the pages, the API's answers)."""

    GZIP_LEVEL = 1

    def __init__(self, request: httputil.HTTPServerRequest) -> None:
        super().__init__(request)
        self.as_is = request.path.endswith("/" + PLOTLY_BUNDLE)

    @classmethod
    def compressible(cls, content_type: str) -> bool:
        """Whether responses of this type are gzipped (as tornado's transform decides)."""
        return content_type.startswith("text/") or content_type in cls.CONTENT_TYPES

    def transform_first_chunk(
        self,
        status_code: int,
        headers: httputil.HTTPHeaders,
        chunk: bytes,
        finishing: bool,
    ) -> tuple[int, httputil.HTTPHeaders, bytes]:
        if self.as_is:
            return status_code, headers, chunk
        return super().transform_first_chunk(status_code, headers, chunk, finishing)

    def transform_chunk(self, chunk: bytes, finishing: bool) -> bytes:
        return chunk if self.as_is else super().transform_chunk(chunk, finishing)


# Static files compressed once and kept (PackedStaticFiles): up to this size each, in memory
PACKED_MAX_BYTES = 8 * 2**20
PACKED_GZIP_LEVEL = 1  # as QuickGzip: the first visitor after a start pays the packing
# absolute path -> ((modification time in ns, size), the file gzipped)
_packed: dict[str, tuple[tuple[int, int], bytes]] = {}
_packed_lock = threading.Lock()


def already_packed(path: str, stat: os.stat_result) -> bytes | None:
    """The file at `path` gzipped, if this version of it (its modification time and size) was
    packed already."""
    with _packed_lock:
        found = _packed.get(path)
    return found[1] if found is not None and found[0] == (stat.st_mtime_ns, stat.st_size) else None


def packed_file(path: str, stat: os.stat_result) -> bytes:
    """The file at `path` gzipped, compressed once per version of the file (its modification
    time and size) and kept in memory for every later request. zlib lets other threads run
    while it compresses, so this can run beside the server's event loop."""
    version = (stat.st_mtime_ns, stat.st_size)
    found = already_packed(path, stat)
    if found is not None:
        return found
    with open(path, "rb") as file:
        body = gzip.compress(file.read(), compresslevel=PACKED_GZIP_LEVEL, mtime=0)
    with _packed_lock:
        _packed[path] = (version, body)
    return body


class PackedStaticFiles(web.StaticFileHandler):
    """A static file handler (put before Voilà's or Jupyter's in a subclass) that sends a text
    file (Voilà's scripts and styles, the widget extensions, plotly's bundle) gzipped from a
    copy compressed once, instead of reading and compressing it again for each visitor: a
    page's 95 files cost the server about 0.25 s of CPU each visit otherwise, on the path to
    every visitor's first page. Range requests, clients that do not accept gzip, other types
    and large files take the handler's usual way."""

    @allow_unauthenticated  # static files, as Jupyter's FileFindHandler serves them
    async def get(self, path: str, include_body: bool = True) -> None:
        headers = self.request.headers
        if (
            not self.settings.get(PACKED_SETTING)
            or "Range" in headers
            or "gzip" not in headers.get("Accept-Encoding", "")
        ):
            await super().get(path, include_body)
            return
        self.path = self.parse_url_path(path)
        absolute_path = self.get_absolute_path(self.root, self.path)
        self.absolute_path = self.validate_absolute_path(self.root, absolute_path)
        if self.absolute_path is None:
            return
        stat = os.stat(self.absolute_path)
        content_type = self.get_content_type() or ""
        if stat.st_size > PACKED_MAX_BYTES or not QuickGzip.compressible(content_type):
            await super().get(path, include_body)
            return
        self.modified = self.get_modified_time()
        self.set_headers()
        if self.should_return_304():
            self.set_status(304)
            return
        body = already_packed(self.absolute_path, stat)
        if body is None:  # the first request for this file: compressed beside the event loop
            loop = asyncio.get_running_loop()
            body = await loop.run_in_executor(None, packed_file, self.absolute_path, stat)
        self.set_header("Content-Encoding", "gzip")  # the transforms then leave it as it is
        self.set_header("Content-Length", len(body))
        self.clear_header("Accept-Ranges")
        if include_body:
            self.write(body)


def pack_ahead(roots: list[str], skip: set[str]) -> int:
    """Pack every file a page may ask for under `roots` (Voilà's and the template's static
    folders, the widget extensions' folders) before any visitor asks, so the first visitor
    after a start does not wait while the server compresses about 90 files (about 0.2 to
    0.3 s of a 2-core server's CPU, on that visitor's path to a usable page). Folders named in
    `skip` (extensions the page never loads) are left out. Returns the number of files
    packed."""
    count = 0
    for root in roots:
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = [name for name in subfolders if name not in skip]
            for name in files:
                path = os.path.join(folder, name)
                content_type = mimetypes.guess_type(name)[0] or ""
                try:
                    stat = os.stat(path)
                    if stat.st_size <= PACKED_MAX_BYTES and QuickGzip.compressible(content_type):
                        packed_file(path, stat)
                        count += 1
                except OSError:  # a file removed meanwhile: packed on request, if asked for
                    continue
    return count


def packed(handler: type) -> type:
    """`handler` (a static file handler of Voilà's or Jupyter's) sending packed files."""
    return type(f"Packed{handler.__name__}", (PackedStaticFiles, handler), {})


# the static file handlers whose files are sent packed
PACKED_HANDLERS = (TemplateStaticFileHandler, MultiStaticFileHandler, FileFindHandler)
# where the server's settings say whether to compress responses, for PackedStaticFiles
PACKED_SETTING = "amteach_packed_static"


def quiet_when_a_visitor_left(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The event loop's handler of errors no one awaited, except one that is no error: a
    message the server was still sending when the visitor's page closed its websocket (tornado's
    write_message fails, and the server does not wait for it). Anything else is logged as
    asyncio would, traceback included."""
    if isinstance(context.get("exception"), WebSocketClosedError | StreamClosedError):
        return
    loop.default_exception_handler(context)


class ClassroomVoila(Voila):
    """Voilà with amteach's kernel manager and page handler, and compressed responses."""

    name = "amteach-voila"

    compress_responses = Bool(
        True,
        config=True,
        help="gzip the responses of the server (a page's scripts: 5.2 MB on the wire, about "
        "1.6 MB gzipped) for browsers that accept it (QuickGzip).",
    )

    light_phones = Bool(
        True,
        config=True,
        help="Serve join links (?room=CODE) the light phone page: no kernel per phone, the "
        "server holds each table's game (amteach.serving.phones).",
    )

    hub_login = Bool(
        False,
        config=True,
        help="Visitors log in at the JupyterHub that started this server as a service "
        "(jupyterhub's HubOAuth, amteach.serving.hub): the hub's JUPYTERHUB_* environment "
        "names the hub, the service's token and its OAuth client.",
    )

    trusted_proxies = List(
        Unicode(),
        [],
        config=True,
        help="Addresses of the reverse proxies in front of this server (nginx: 127.0.0.1): a "
        "request from one of them is counted for the visitor its X-Real-IP header names. "
        "Without it, every request counts for the address it came from.",
    )

    def init_settings(self) -> dict:
        # before Voilà preheats its kernels: an instructor's Class tab leaves the bots, the
        # timer and absent students to this server, which holds the tables (phones.py)
        if self.light_phones:
            os.environ[SERVER_DRIVES_ENV] = "1"
        else:
            os.environ.pop(SERVER_DRIVES_ENV, None)
        settings = super().init_settings()
        # made anew at each start: pages of an earlier run have no kernel to keep anyway
        settings[PAGE_SECRET_SETTING] = secrets.token_bytes(32)
        settings[TRUSTED_PROXIES_SETTING] = list(self.trusted_proxies)
        if self.compress_responses:
            # Voilà builds tornado's application with these settings, then applies its own
            # tornado_settings: too late for compress_response, so the transforms go here
            settings["transforms"] = [QuickGzip]
            settings[PACKED_SETTING] = True
        settings[LIGHT_PHONES_SETTING] = self.light_phones
        settings[HUB_LOGIN_SETTING] = self.hub_login
        if self.light_phones:
            # the tables' games, held by this server for the phones (amteach.serving.phones);
            # Voilà builds its application in start(), on the loop that will run it
            settings.update(phone_settings(limits_from_environment(), logger=self.log))
        return settings

    def initialize(self, argv: Any = None) -> None:
        super().initialize(argv)
        self.voila_configuration.multi_kernel_manager_class = ClassroomKernelManager
        if self.hub_login:
            # imported only here: a server that is no hub service needs no jupyterhub
            from .hub import HubLogin

            self.identity_provider_class = HubLogin

    def start(self) -> None:
        if self.compress_responses:
            # beside the pool's warm-up, so that the first visitor's files are ready too
            skip = set(self.voila_configuration.extension_denylist or ())
            roots = [*self.static_paths, *self.labextensions_path]

            def pack() -> None:
                count = pack_ahead(roots, skip)
                self.log.info("packed %d static files ahead of the first visitor", count)

            threading.Thread(target=pack, name="pack-static-files", daemon=True).start()
        loop = ioloop.IOLoop.current().asyncio_loop  # type: ignore[attr-defined]
        loop.set_exception_handler(quiet_when_a_visitor_left)
        try:
            super().start()
        except SystemExit:
            # Voilà makes its folder for kernels' connection files, then stops before serving
            # when its port is taken; only a server that served removes the folder (stop())
            shutil.rmtree(self.connection_dir, ignore_errors=True)
            raise

    def init_handlers(self) -> list:
        handlers = super().init_handlers()
        release = (url_path_join(self.server_url, RELEASE_ROUTE), ReleaseKernelHandler)
        alive = (url_path_join(self.server_url, ALIVE_ROUTE), PageAliveHandler)
        phones = (url_path_join(self.server_url, PHONE_ROUTE), PhoneSocketBehindLogin)
        health = (url_path_join(self.server_url, HEALTH_ROUTE), HealthHandler)
        return [release, alive, phones, health] + [
            (route[0], ClassroomVoilaHandler, *route[2:])
            if route[1] is TornadoVoilaHandler
            else (route[0], packed(route[1]), *route[2:])
            if route[1] in PACKED_HANDLERS
            else route
            for route in handlers
        ]


def main(argv: list[str] | None = None) -> None:
    with voila_environment() as env:
        os.environ.update(env)  # the template and plotly's bundle, for the server and kernels
        ClassroomVoila.launch_instance(argv if argv is not None else sys.argv[1:])


if __name__ == "__main__":
    main()
