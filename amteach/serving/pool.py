"""The kernels of a class: Voilà's kernel manager with a cap and prompt clean-up.

- **A cap on kernels.** `max_kernels` (`amteach dashboard --max-visitors N`) bounds the kernels
  alive at once, the preheated pool included, so memory stays at N kernels. The pool Voilà
  refills shrinks to the room the cap leaves, and grows back as visitors leave.
- **Kernels of pages that never opened go promptly** (`unopened_timeout`, 40 s by default).
- **A grace period counted from the moment a page's connection dropped**, not from its last
  click (`cull_idle_timeout`), and a hard one: a kernel whose last websocket closed is shut
  down `disconnect_grace` seconds later whatever it still does (`shut_when_abandoned`).
- **Kernels per client.** `max_per_device` and `max_per_address` bound the kernels handed to
  one browser (its device cookie) and to one network address (`ClientClaim`), so that one
  script cannot take every kernel under the cap.

`amteach.serving.app` puts it under Voilà; docs/deploy.md says how to size a server.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado.ioloop import PeriodicCallback
from traitlets import Int
from voila.utils import ENV_VARIABLE

from .config import address_cap


@dataclass(eq=False)
class ClientClaim:
    """A page being served to one client (a device cookie and a network address), and then the
    kernel it was given: counted against the client's caps until that kernel is shut down."""

    device: str
    address: str
    kernel_id: str | None = None


# set in the environment of the join page's pool kernels (their pool's name): a refill held
# back by the cap is then known to be for that page
POOL_ENV = "AMTEACH_POOL"


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

    max_per_device = Int(
        4,
        config=True,
        help="Most kernels handed to one browser (its device cookie) at once (0: no limit).",
    )
    max_per_address = Int(
        -1,
        config=True,
        help="Most kernels handed to one network address at once: -1 for half of max_kernels "
        "(at least 1, no limit without max_kernels), 0 for no limit.",
    )
    disconnect_grace = Int(
        0,
        config=True,
        help="Seconds a kernel is kept once its last websocket closed, whatever it still does "
        "(output counts for nothing); cancelled when a page reconnects (0: never).",
    )

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.starting_ids: set[str] = set()  # start_kernel in progress
        self.stopping_ids: set[str] = set()  # shutdown_kernel in progress
        self.waiting_pool_starts = 0  # pool refills held back by the cap
        self.waiting_by_pool: dict[str, int] = {}  # the same, by the page they are for
        self.pool_starts = 0  # kernels started for the pool, ever
        self.pool_handouts = 0  # pool kernels given to visitors, ever
        # the same two, by pool: what tells a pool's kernels from its entries still to start
        self.starts_by_pool: dict[str, int] = {}
        self.handouts_by_pool: dict[str, int] = {}
        self.room: asyncio.Condition | None = None
        self.pool_size_wanted: int | None = None  # --pool, before the cap trims it
        # the join page's notebook, with a pool of its own beside the dashboard's (set by
        # amteach.serving.app; "" for none)
        self.join_notebook = ""
        self.stopping_everything = False
        self.unopened: dict[str, float] = {}  # kernel id -> when its page was sent
        self.opened_ids: set[str] = set()  # kernels whose page a browser opened or connected
        self.unopened_watch: PeriodicCallback | None = None
        self.claims: list[ClientClaim] = []  # pages served or being served, per client
        # kernel id -> the timer that shuts it down, running while no page is connected
        self.abandoned: dict[str, asyncio.TimerHandle] = {}
        self.abandoned_shutdowns: set[asyncio.Future] = set()

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

    def note_pool_handout(self, notebook: str) -> None:
        """The handler is giving the oldest entry of `notebook`'s pool to a visitor (Voilà
        refills the pool next)."""
        self.pool_handouts += 1
        self.handouts_by_pool[notebook] = self.handouts_by_pool.get(notebook, 0) + 1
        self.fit_pool_to_cap()

    def unstarted_entries(self, notebook: str) -> int:
        """Entries of `notebook`'s pool that have not asked for their kernel yet, counting
        those already handed to a visitor. Voilà adds an entry at once but starts its kernel
        only after its refill delay and after preparing the page (seconds on a busy machine),
        so the pool's size alone counts kernels that do not exist yet. Every entry leaves its
        pool by a handout (counted), so: entries, less those that asked for a kernel and are
        still in the pool."""
        asked = self.starts_by_pool.get(notebook, 0) - self.handouts_by_pool.get(notebook, 0)
        return max(0, self.get_pool_size(notebook) - asked)

    def started_entries(self, notebook: str) -> int:
        """Entries of `notebook`'s pool whose kernel runs or is starting, at least (an entry
        still to start may already be with a visitor, so this can count low, never high)."""
        return max(
            0,
            self.get_pool_size(notebook)
            - self.waiting_by_pool.get(notebook, 0)
            - self.unstarted_entries(notebook),
        )

    def fit_pool_to_cap(self) -> None:
        """Keep the pools Voilà refills (kernel_pools_config, of Voilà's preheating manager
        built on this class) within the room the cap leaves. A refill that could not start
        would still cost the server's event loop its preparation (about 0.15 s each), so a
        class arriving together would wait behind its own refills. With a join page, the room
        is shared out one kernel at a time, the dashboard's pool first."""
        if not self.max_kernels or not hasattr(self, "kernel_pools_config"):
            return
        config = self.kernel_pools_config
        default = config.get("default", {})
        if self.pool_size_wanted is None:
            self.pool_size_wanted = default.get("pool_size", 0)
        room = max(0, self.max_kernels - self.visitor_kernels())
        pools = ["default"] + ([self.join_notebook] if self.join_notebook else [])
        sizes = dict.fromkeys(pools, 0)
        while room and any(size < self.pool_size_wanted for size in sizes.values()):
            for pool in pools:
                if room and sizes[pool] < self.pool_size_wanted:
                    sizes[pool] += 1
                    room -= 1
        changed = {
            pool: {**config.get(pool, default), "pool_size": size}
            for pool, size in sizes.items()
            if config.get(pool, default).get("pool_size") != size
        }
        if changed:
            self.kernel_pools_config = {**config, **changed}

    def pooled_notebooks(self) -> list[str]:
        """The notebooks with a preheated pool: the dashboard, and the join page if served."""
        served = getattr(self, "notebook_path", None)  # Voilà's preheating manager sets it
        return [name for name in (served, self.join_notebook) if name]

    async def make_room_for(self, notebook: str) -> None:
        """A visitor of `notebook` is let in (under the cap) but no kernel is ready in its
        pool (none, or only refills waiting for room): when the kernels alive already fill the
        cap, a kernel waiting in another page's pool (the join page's, say) is shut down first.
        Pool kernels live within the cap, and a kernel built for one page cannot serve the
        other."""
        if not self.max_kernels or not hasattr(self, "get_rendered_notebook"):
            return
        if self.live_kernels() < self.max_kernels:
            return
        if self.started_entries(notebook) > 0:
            return  # a kernel is ready (or starting) in this page's pool
        # An entry still to start (Voilà's refill not at its kernel yet) is no kernel: at the
        # cap it would wait for room, and this visitor's page with it, until someone left.
        for other in self.pooled_notebooks():
            # the oldest kernel of a pool is taken; one still waiting for room under the cap,
            # or still to start, never comes, so a pool holding only such entries is left alone
            if other != notebook and self.started_entries(other) > 0:
                # counted out of the pool first, so that the pools fit the cap before Voilà
                # refills the one it leaves
                self.note_pool_handout(other)
                render, _, kernel_id = await self.get_rendered_notebook(notebook_name=other)
                render.add_done_callback(lambda task: task.cancelled() or task.exception())
                self.log.info(
                    "Shutting down kernel %s of the %s pool: room for a visitor", kernel_id, other
                )
                await self.shutdown_kernel(kernel_id)
                return

    async def _announce_room(self) -> None:
        if self.room is not None:
            async with self.room:
                self.room.notify_all()

    # --- starting and stopping ------------------------------------------------------------
    async def start_kernel(self, *, kernel_id: str | None = None, **kwargs: Any) -> str:
        env = kwargs.get("env", {})
        for_pool = env.get(ENV_VARIABLE.VOILA_PREHEAT) == "True"
        if for_pool:
            pool = env.get(POOL_ENV) or getattr(self, "notebook_path", None) or ""
            self.pool_starts += 1
            self.starts_by_pool[pool] = self.starts_by_pool.get(pool, 0) + 1
            if self.max_kernels and self.live_kernels() >= self.max_kernels:
                # a pool refill waits until a visitor's kernel is freed: the pool lives within
                # the cap, so memory never holds more than max_kernels kernels
                self.waiting_pool_starts += 1
                self.waiting_by_pool[pool] = self.waiting_by_pool.get(pool, 0) + 1
                if self.room is None:
                    self.room = asyncio.Condition()
                try:
                    async with self.room:
                        await self.room.wait_for(lambda: self.live_kernels() < self.max_kernels)
                finally:
                    self.waiting_pool_starts -= 1
                    self.waiting_by_pool[pool] -= 1
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
            self.forget_kernel(kernel_id)
        if not self.stopping_everything and hasattr(self, "fill_if_needed"):
            # room under the cap again: let the pools grow back towards --pool
            self.fit_pool_to_cap()
            for notebook in self.pooled_notebooks():
                self.fill_if_needed(delay=0, notebook_name=notebook)

    async def shutdown_all(self, now: bool = False) -> None:
        """Shut down every kernel that has started. Not jupyter_client's own, which also names
        the kernels still starting: jupyter_server's shutdown_kernel does not know those yet,
        and its 404 ("Kernel does not exist") ended the server's SIGTERM with status 1 when a
        pool refill was starting. Voilà stops the server's event loop first and shuts the
        kernels down on a loop of its own (jupyter_core's run_sync), so a start under way
        never finishes: its kernel, if launched, ends with the server (ipykernel watches its
        parent process)."""
        self.stopping_everything = True  # no refills while the server stops
        running = self.list_kernel_ids()
        stops = [self.shutdown_kernel(kernel_id, now=now) for kernel_id in running]
        outcomes = await asyncio.gather(*stops, return_exceptions=True)
        for kernel_id, outcome in zip(running, outcomes, strict=True):
            if isinstance(outcome, Exception):
                self.log.warning("Kernel %s did not shut down: %s", kernel_id, outcome)

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
        self.cancel_abandoned(kernel_id)  # a page is back: the kernel is kept
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
        gets the whole grace period to reconnect. When it was the kernel's last connection,
        the kernel is shut down `disconnect_grace` seconds later unless a page reconnects:
        the idle cull alone never fires for a kernel that keeps producing output (a class
        table's updates, a batch's progress), and the server buffers that output for the
        closed page meanwhile."""
        super().notify_disconnect(kernel_id)
        if kernel_id not in self:
            return
        self.get_kernel(kernel_id).last_activity = datetime.now(UTC)
        if self.disconnect_grace > 0 and self.kernel_model(kernel_id)["connections"] <= 0:
            self.cancel_abandoned(kernel_id)
            loop = asyncio.get_running_loop()
            self.abandoned[kernel_id] = loop.call_later(
                self.disconnect_grace, self.start_abandoned_shutdown, kernel_id
            )

    def start_abandoned_shutdown(self, kernel_id: str) -> None:
        # the loop keeps only a weak reference to a task: held here until it is done
        task = asyncio.ensure_future(self.shut_when_abandoned(kernel_id))
        self.abandoned_shutdowns.add(task)
        task.add_done_callback(self.abandoned_shutdowns.discard)

    def cancel_abandoned(self, kernel_id: str) -> None:
        timer = self.abandoned.pop(kernel_id, None)
        if timer is not None:
            timer.cancel()

    async def shut_when_abandoned(self, kernel_id: str) -> None:
        """The grace period of a kernel with no page connected has passed: shut it down, busy
        or not."""
        self.abandoned.pop(kernel_id, None)
        if kernel_id not in self or kernel_id in self.stopping_ids:
            return
        if self.kernel_model(kernel_id)["connections"] > 0:
            return  # a page reconnected (its timer should have been cancelled; kept anyway)
        self.log.info(
            "Shutting down kernel %s: no page connected for %d s",
            kernel_id,
            self.disconnect_grace,
        )
        await self.shutdown_kernel(kernel_id)

    # --- kernels per client --------------------------------------------------------------
    def address_cap(self) -> int:
        """The most kernels one network address may hold at once (0: no limit)."""
        return address_cap(self.max_kernels, self.max_per_address)

    def client_kernels(self, device: str, address: str) -> tuple[int, int]:
        """Kernels held (or pages being served) by this device and by this address."""
        # a kernel that ended without shutdown_kernel (it died and was removed) counts no more
        self.claims = [c for c in self.claims if c.kernel_id is None or c.kernel_id in self]
        by_device = sum(1 for c in self.claims if device and c.device == device)
        by_address = sum(1 for c in self.claims if c.address == address)
        return by_device, by_address

    def claim_for_client(self, device: str, address: str) -> ClientClaim | str:
        """Count a page about to be served to this client, or say which cap it is over:
        "device" or "address". Counted before the page is rendered, so that a burst of
        requests cannot all pass the check before any of them is given a kernel."""
        by_device, by_address = self.client_kernels(device, address)
        if self.max_per_device and by_device >= self.max_per_device:
            return "device"
        cap = self.address_cap()
        if cap and by_address >= cap:
            return "address"
        claim = ClientClaim(device, address)
        self.claims.append(claim)
        return claim

    def give_claim_kernel(self, claim: ClientClaim, kernel_id: str) -> None:
        """The page being served was given this kernel: it counts until the kernel is shut
        down."""
        claim.kernel_id = kernel_id

    def drop_claim(self, claim: ClientClaim) -> None:
        """A page that was given no kernel (the request failed or was refused) counts no more."""
        if claim.kernel_id is None and claim in self.claims:
            self.claims.remove(claim)

    def forget_kernel(self, kernel_id: str) -> None:
        """The kernel is gone: its client's count and its grace timer with it."""
        self.claims = [c for c in self.claims if c.kernel_id != kernel_id]
        self.cancel_abandoned(kernel_id)
