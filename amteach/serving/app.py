"""The Voilà server that `amteach dashboard` runs: Voilà itself, plus what a class needs.

- **A cap on kernels.** `max_kernels` (`amteach dashboard --max-visitors N`) bounds the kernels
  alive at once, the preheated pool included, so memory stays at N kernels. Visitor N+1 gets a
  short "the class dashboard is full" page (HTTP 503) that tries again by itself, and gets a
  kernel as soon as one is freed.
- **Kernels of pages that never opened go promptly.** A kernel handed to a page that no
  browser opened (a plain GET, a crawler: the page's first script never ran and never told the
  server, see voila_template/index.html.j2) and that never connected to it is shut
  down `unopened_timeout` seconds after the page was sent (40 s by default; checked every
  10 s), not after the grace period: a loop of plain GETs cannot fill memory.
- **Kernels of closed tabs go promptly.** The page asks the server to shut its kernel down when
  the tab closes (see voila_template/index.html.j2). A page that vanishes without saying so (a
  dropped network, a sleeping laptop) keeps its kernel for a grace period counted from the
  moment its connection dropped, so a page that reconnects finds its game where it was.
- **Stops what it starts.** Voilà shuts its kernels down on SIGTERM; `amteach dashboard`
  replaces itself with this process, so a service manager's SIGTERM reaches it directly.

Run as `python -m amteach.serving_app NOTEBOOK [Voilà options]` (see `cli.voila_command`).
"""

from __future__ import annotations

import asyncio
import html
import os
import re
import sys
import time
from datetime import UTC, datetime
from http import HTTPStatus
from typing import Any

from .serving import skip_uri_grammar, voila_environment

# the server never checks URI formats either; skipping the grammar halves its start-up time
skip_uri_grammar()

from jupyter_server.base.handlers import JupyterHandler  # noqa: E402
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager  # noqa: E402
from jupyter_server.utils import url_path_join  # noqa: E402
from tornado import web  # noqa: E402
from tornado.ioloop import PeriodicCallback  # noqa: E402
from traitlets import Int  # noqa: E402
from voila.app import Voila  # noqa: E402
from voila.tornado.handler import TornadoVoilaHandler  # noqa: E402
from voila.utils import ENV_VARIABLE  # noqa: E402

# how often a full page asks again, in seconds
FULL_PAGE_RETRY = 15
# where a closing page hands its kernel back (the template posts there)
RELEASE_ROUTE = r"/voila/amteach/release/(?P<kernel_id>[\w-]+)"
# where a page that a browser opened says so, before its scripts load (the template posts)
ALIVE_ROUTE = r"/voila/amteach/alive/(?P<kernel_id>[\w-]+)"
# the kernel a page is given, in the page's own configuration (what its browser connects to)
PAGE_KERNEL_ID = re.compile(r'"kernelId":\s*"([\w-]+)"')


class ClassroomKernelManager(AsyncMappingKernelManager):
    """Voilà's kernel manager with a cap on live kernels and a grace period that starts when a
    page's connection drops. Voilà builds its preheating pool on top of this class."""

    max_kernels = Int(
        0, config=True, help="Most kernels alive at once, the pool included (0: no limit)."
    )
    unopened_timeout = Int(
        40,
        config=True,
        help="Seconds a kernel handed to a page is kept if the page never connects to it.",
    )

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.starting_ids: set[str] = set()  # start_kernel in progress
        self.stopping_ids: set[str] = set()  # shutdown_kernel in progress
        self.waiting_pool_starts = 0  # pool refills held back by the cap
        self.pool_starts = 0  # kernels started for the pool, ever
        self.pool_handouts = 0  # pool kernels given to visitors, ever
        self.room: asyncio.Condition | None = None
        self.pool_size_wanted: int | None = None  # --pool, before the cap trims it
        self.stopping_everything = False
        self.unopened: dict[str, float] = {}  # kernel id -> when its page was sent
        self.opened_ids: set[str] = set()  # kernels whose page a browser opened or connected
        self.unopened_watch: PeriodicCallback | None = None

    # --- counting -----------------------------------------------------------------------
    def live_kernels(self) -> int:
        """Kernels running or starting, not counting those being shut down."""
        return len((set(self.list_kernel_ids()) | self.starting_ids) - self.stopping_ids)

    def visitor_kernels(self) -> int:
        """Kernels that belong to visitors. Every kernel started for the pool either still
        waits there or was handed to a visitor, so: all kernels, plus refills held back by the
        cap, less the pool's kernels that were never handed out."""
        return (
            self.live_kernels() + self.waiting_pool_starts - (self.pool_starts - self.pool_handouts)
        )

    def has_room_for_a_visitor(self) -> bool:
        return not self.max_kernels or self.visitor_kernels() < self.max_kernels

    def note_pool_handout(self) -> None:
        """The handler is giving a pool kernel to a visitor (Voilà refills the pool next)."""
        self.pool_handouts += 1
        self._fit_pool_to_cap()

    def _fit_pool_to_cap(self) -> None:
        """Keep the pool Voilà refills (kernel_pools_config, of Voilà's preheating manager built
        on this class) within the room the cap leaves. A refill that could not start would
        still cost the server's event loop its preparation (about 0.15 s each), so a class
        arriving together would wait behind its own refills."""
        if not self.max_kernels or not hasattr(self, "kernel_pools_config"):
            return
        config = self.kernel_pools_config
        default = config.get("default", {})
        if self.pool_size_wanted is None:
            self.pool_size_wanted = default.get("pool_size", 0)
        room = max(0, self.max_kernels - self.visitor_kernels())
        size = min(self.pool_size_wanted, room)
        if default.get("pool_size") != size:
            self.kernel_pools_config = {**config, "default": {**default, "pool_size": size}}

    async def _announce_room(self) -> None:
        if self.room is not None:
            async with self.room:
                self.room.notify_all()

    # --- starting and stopping ------------------------------------------------------------
    async def start_kernel(self, *, kernel_id: str | None = None, **kwargs: Any) -> str:
        for_pool = kwargs.get("env", {}).get(ENV_VARIABLE.VOILA_PREHEAT) == "True"
        if for_pool:
            self.pool_starts += 1
            if self.max_kernels and self.live_kernels() >= self.max_kernels:
                # a pool refill waits until a visitor's kernel is freed: the pool lives within
                # the cap, so memory never holds more than max_kernels kernels
                self.waiting_pool_starts += 1
                if self.room is None:
                    self.room = asyncio.Condition()
                try:
                    async with self.room:
                        await self.room.wait_for(lambda: self.live_kernels() < self.max_kernels)
                finally:
                    self.waiting_pool_starts -= 1
        kernel_id = kernel_id or self.new_kernel_id()
        self.starting_ids.add(kernel_id)
        try:
            return await super().start_kernel(kernel_id=kernel_id, **kwargs)
        finally:
            self.starting_ids.discard(kernel_id)

    async def shutdown_kernel(self, kernel_id: str, *args: Any, **kwargs: Any) -> None:
        self.stopping_ids.add(kernel_id)
        await self._announce_room()  # a held-back pool refill may start now
        try:
            await super().shutdown_kernel(kernel_id, *args, **kwargs)
        finally:
            self.stopping_ids.discard(kernel_id)
            self.opened_ids.discard(kernel_id)
            self.unopened.pop(kernel_id, None)
        if not self.stopping_everything and hasattr(self, "fill_if_needed") and self.notebook_path:
            # room under the cap again: let the pool grow back towards --pool
            self._fit_pool_to_cap()
            self.fill_if_needed(delay=0, notebook_name=self.notebook_path)

    async def shutdown_all(self, *args: Any, **kwargs: Any) -> None:
        self.stopping_everything = True  # no refills while the server stops
        await super().shutdown_all(*args, **kwargs)

    # --- pages that never connect ----------------------------------------------------------
    def note_page_served(self, kernel_id: str) -> None:
        """A page was sent with this kernel: its browser should connect within moments."""
        if kernel_id not in self.opened_ids:
            self.unopened[kernel_id] = time.monotonic()
        if self.unopened_watch is None:
            # checked a few times per timeout, so a kernel goes within 1.25 timeouts
            every = max(1.0, self.unopened_timeout / 4)
            self.unopened_watch = PeriodicCallback(self.shut_unopened, every * 1000)
            self.unopened_watch.start()

    def note_page_alive(self, kernel_id: str) -> None:
        """A browser opened the page (its first script ran): keep the kernel while the page's
        scripts load, however slowly; from now the grace period (cull_idle_timeout) applies."""
        if kernel_id not in self:
            return
        # the beacon may come before the server has finished sending the page
        self.opened_ids.add(kernel_id)
        self.unopened.pop(kernel_id, None)
        self.get_kernel(kernel_id).last_activity = datetime.now(UTC)

    def notify_connect(self, kernel_id: str) -> None:
        super().notify_connect(kernel_id)
        self.opened_ids.add(kernel_id)
        self.unopened.pop(kernel_id, None)

    async def shut_unopened(self) -> None:
        """Shut down kernels whose page never connected within `unopened_timeout`."""
        now = time.monotonic()
        for kernel_id, served in list(self.unopened.items()):
            if kernel_id not in self or kernel_id in self.stopping_ids:
                self.unopened.pop(kernel_id, None)
            elif now - served >= self.unopened_timeout:
                self.unopened.pop(kernel_id, None)
                self.log.info(
                    "Shutting down kernel %s: its page never connected in %d s",
                    kernel_id,
                    self.unopened_timeout,
                )
                await self.shutdown_kernel(kernel_id)

    def notify_disconnect(self, kernel_id: str) -> None:
        """A page's connection closed: its grace period (cull_idle_timeout) starts now, not at
        its last click, so a student who read for ten minutes and then lost the network still
        gets the whole grace period to reconnect."""
        super().notify_disconnect(kernel_id)
        if kernel_id in self:
            self.get_kernel(kernel_id).last_activity = datetime.now(UTC)


FULL_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="{retry}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>The class dashboard is full</title>
<style>
  body {{ font-family: system-ui, sans-serif; font-size: 24px; line-height: 1.5;
         max-width: 40em; margin: 15vh auto; padding: 0 1em; color: #1a1a1a; }}
  h1 {{ font-size: 36px; }}
</style></head>
<body class="am-full">
<h1>The class dashboard is full: {visitors} visitors.</h1>
<p>Try again in a minute. This page tries again by itself every {retry} seconds and opens the
dashboard as soon as a place is free.</p>
</body></html>
"""


class ClassroomVoilaHandler(TornadoVoilaHandler):
    """Voilà's page handler behind a door: a polite "full" page when the cap is reached."""

    page_kernel: str | None = None

    def write(self, chunk: Any) -> None:
        """Note the kernel the page is given (the page's first chunk carries its
        configuration)."""
        if self.page_kernel is None and isinstance(chunk, str):
            found = PAGE_KERNEL_ID.search(chunk)
            if found:
                self.page_kernel = found.group(1)
        super().write(chunk)

    def _page_sent(self) -> None:
        """The page is sent (or its visitor left before the end): its browser connects to the
        kernel within moments, or never. The clock starts now, not while a busy server still
        renders the page."""
        manager = self.kernel_manager
        if self.page_kernel is not None and isinstance(manager, ClassroomKernelManager):
            manager.note_page_served(self.page_kernel)
            self.page_kernel = None

    def on_finish(self) -> None:
        self._page_sent()
        super().on_finish()

    def on_connection_close(self) -> None:
        self._page_sent()
        super().on_connection_close()

    async def get(self, path: str | None = None) -> None:
        manager = self.kernel_manager
        if isinstance(manager, ClassroomKernelManager) and not manager.has_room_for_a_visitor():
            self.set_status(503)
            self.set_header("Retry-After", str(FULL_PAGE_RETRY))
            self.set_header("Cache-Control", "no-store")
            self.finish(
                FULL_PAGE.format(
                    visitors=html.escape(str(manager.max_kernels)), retry=FULL_PAGE_RETRY
                )
            )
            return
        await super().get(path)

    def should_use_rendered_notebook(self, *args: Any, **kwargs: Any) -> bool:
        use_pool = super().should_use_rendered_notebook(*args, **kwargs)
        if use_pool and isinstance(self.kernel_manager, ClassroomKernelManager):
            # the handler now takes a kernel from the pool, without awaiting in between
            self.kernel_manager.note_pool_handout()
        return use_pool


class ReleaseKernelHandler(JupyterHandler):
    """A closing page hands its kernel back (navigator.sendBeacon in the amteach template).
    Voilà's own shutdown route wants an XSRF token that a Voilà page never receives; the
    kernel's id, known only to its page, and a same-origin check guard this one instead."""

    def check_xsrf_cookie(self) -> None:
        if not self.check_origin():
            raise web.HTTPError(403, "cross-origin request")

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        # one plain line: Voilà's server has no error page templates of Jupyter's
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"{status_code} {HTTPStatus(status_code).phrase}\n")

    @web.authenticated
    async def post(self, kernel_id: str) -> None:
        if kernel_id in self.kernel_manager:
            await self.kernel_manager.shutdown_kernel(kernel_id)
        self.set_status(204)
        self.finish()


class PageAliveHandler(ReleaseKernelHandler):
    """A page that a browser opened says so as soon as its first script runs, so its kernel
    is kept while the rest of the page loads (a plain GET never runs the script). Guarded as
    the release route is: the kernel's id, known only to its page, and a same-origin check."""

    @web.authenticated
    async def post(self, kernel_id: str) -> None:
        manager = self.kernel_manager
        if isinstance(manager, ClassroomKernelManager):
            manager.note_page_alive(kernel_id)
        self.set_status(204)
        self.finish()


class ClassroomVoila(Voila):
    """Voilà with amteach's kernel manager and page handler."""

    name = "amteach-voila"

    def initialize(self, argv: Any = None) -> None:
        super().initialize(argv)
        self.voila_configuration.multi_kernel_manager_class = ClassroomKernelManager

    def init_handlers(self) -> list:
        handlers = super().init_handlers()
        release = (url_path_join(self.server_url, RELEASE_ROUTE), ReleaseKernelHandler)
        alive = (url_path_join(self.server_url, ALIVE_ROUTE), PageAliveHandler)
        return [release, alive] + [
            (route[0], ClassroomVoilaHandler, *route[2:])
            if route[1] is TornadoVoilaHandler
            else route
            for route in handlers
        ]


def main(argv: list[str] | None = None) -> None:
    with voila_environment() as env:
        os.environ.update(env)  # the template and plotly's bundle, for the server and kernels
        ClassroomVoila.launch_instance(argv if argv is not None else sys.argv[1:])


if __name__ == "__main__":
    main()
