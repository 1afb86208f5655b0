"""The kernel cap (amteach/serving/pool.py) driven step by step, in a chosen order: Voilà's
preheating pools and the kernels themselves are fakes that move only when the test lets them
(events), so every ordering is the same on any machine. No browser, no server, no clock.
tests/test_faults.py plays the same class in a real browser."""

from __future__ import annotations

import asyncio
from typing import Any

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from voila.utils import ENV_VARIABLE

from amteach.serving.pool import POOL_ENV, ClassroomKernelManager

DASHBOARD = "dashboard.ipynb"
JOIN = "join.ipynb"


class FakeKernels(AsyncMappingKernelManager):
    """Kernels that are names only: alive from the moment their start returns."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alive: set[str] = set()
        self.made = 0

    def new_kernel_id(self, **kwargs: Any) -> str:
        self.made += 1
        return f"k{self.made}"

    async def start_kernel(self, *, kernel_id: str | None = None, **kwargs: Any) -> str:
        await asyncio.sleep(0)  # a start takes the event loop at least once
        self.alive.add(kernel_id)
        return kernel_id

    def list_kernel_ids(self) -> list[str]:
        return list(self.alive)

    async def shutdown_kernel(self, kernel_id: str, *args: Any, **kwargs: Any) -> None:
        self.alive.discard(kernel_id)


class FakePools(ClassroomKernelManager):
    """What Voilà's preheating manager does with its pools, in the same order: an entry is added
    at once and asks for its kernel only later (Voilà's refill delay, then preparing the page:
    here, until `prepared` is set); a visitor gets the oldest entry, and the pool is refilled."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.notebook_path = DASHBOARD
        self.join_notebook = JOIN
        self.kernel_pools_config = {"default": {"pool_size": 1}}
        self.pools: dict[str, list[asyncio.Future]] = {}
        self.prepared = asyncio.Event()

    def get_pool_size(self, notebook_name: str) -> int:
        return len(self.pools.get(notebook_name, []))

    def fill_if_needed(self, delay: float | None = None, notebook_name: str = "", **_: Any) -> None:
        config = self.kernel_pools_config
        size = config.get(notebook_name, config["default"])["pool_size"]
        pool = self.pools.setdefault(notebook_name, [])
        for _ in range(size - len(pool)):
            pool.append(asyncio.ensure_future(self.prepare(notebook_name)))

    async def prepare(self, notebook: str) -> str:
        await self.prepared.wait()
        env = {ENV_VARIABLE.VOILA_PREHEAT: "True"}
        if notebook == JOIN:
            env[POOL_ENV] = JOIN
        return await self.start_kernel(env=env)

    async def get_rendered_notebook(self, notebook_name: str, **_: Any) -> tuple:
        kernel_id = await self.pools[notebook_name].pop(0)
        self.fill_if_needed(notebook_name=notebook_name)
        rendered = asyncio.get_running_loop().create_future()
        rendered.set_result(None)
        return rendered, [], kernel_id

    async def shutdown_kernel(self, kernel_id: str, *args: Any, **kwargs: Any) -> None:
        for pool in self.pools.values():
            for entry in pool:
                if entry.done() and entry.result() == kernel_id:
                    pool.remove(entry)
                    break
        await super().shutdown_kernel(kernel_id, *args, **kwargs)


class Manager(FakePools, FakeKernels):
    """The cap between the fake pools and the fake kernels, where Voilà puts it."""


async def visit(manager: Manager, notebook: str) -> str:
    """A visitor's page, as amteach.serving.app.ClassroomVoilaHandler and Voilà's handler ask
    the manager: the door, room made, then the pool's oldest entry or a kernel of its own.
    "full" for the full page."""
    if not manager.has_room_for_a_visitor():
        return "full"
    await manager.make_room_for(notebook)
    if manager.get_pool_size(notebook):
        manager.note_pool_handout(notebook)
        _, _, kernel_id = await manager.get_rendered_notebook(notebook_name=notebook)
        return kernel_id
    return await manager.start_kernel(env={ENV_VARIABLE.VOILA_PREHEAT: "False"})


async def arrive(manager: Manager, notebook: str) -> str:
    """A visitor's page once every task that can move has moved: its kernel (or "full"); a
    page still waiting then would wait for someone to leave."""
    page = asyncio.ensure_future(visit(manager, notebook))
    await until_quiet()
    assert page.done(), f"a visitor of {notebook} waits for a seat that never comes"
    return page.result()


async def until_quiet() -> None:
    """Let every task that can move move (the event loop's turns, not the clock)."""
    for _ in range(100):
        await asyncio.sleep(0)


async def class_of_two() -> Manager:
    """`--max-visitors 2 --pool 1`, started: one kernel ready in each page's pool. From now on
    a refill's entry waits to be prepared until the test says so."""
    manager = Manager()
    manager.max_kernels = 2
    manager.fit_pool_to_cap()
    for notebook in manager.pooled_notebooks():
        manager.fill_if_needed(delay=0, notebook_name=notebook)
    manager.prepared.set()
    await until_quiet()
    assert manager.live_kernels() == 2 and manager.get_pool_size(JOIN) == 1
    manager.prepared.clear()
    return manager


def test_a_visitor_given_a_refill_still_to_start_is_not_left_waiting_at_the_cap():
    """Ana takes the dashboard's ready kernel; Voilà adds the refill's entry at once, but its
    kernel is asked for only later. Ben comes in between: the join page's ready kernel holds
    the last seat. Ben's page used to take the entry as if it were a kernel, and its start then
    waited for room until someone left (the page loading forever)."""

    async def play() -> None:
        manager = await class_of_two()
        assert await arrive(manager, DASHBOARD) == "k1"
        ben = asyncio.ensure_future(visit(manager, DASHBOARD))
        await until_quiet()
        manager.prepared.set()  # the refill's entry now asks for its kernel
        await until_quiet()
        assert ben.done(), "Ben's page waits for a seat the join page's pool holds"
        assert ben.result() in manager.alive and ben.result() != "k1"
        # the join page's waiting kernel made room: two kernels, both visitors'
        assert manager.live_kernels() == 2 and manager.visitor_kernels() == 2
        assert manager.waiting_pool_starts == 0

    asyncio.run(play())


def test_a_freed_seat_goes_to_the_visitor_waiting_before_any_refill():
    """A full class: Cleo gets the full page. Ben leaves; the freed seat is refilled only for
    the dashboard's pool (its first), and Cleo's next try takes it, through a dashboard link or
    a join link alike; no refill of the other pool takes the seat from her, and the cap holds at
    every step."""

    async def play(cleo_page: str) -> None:
        manager = await class_of_two()
        ana = await arrive(manager, DASHBOARD)
        manager.prepared.set()  # refills start as soon as they can from here on
        ben = await arrive(manager, DASHBOARD)
        assert manager.live_kernels() == 2 and {ana, ben} == manager.alive
        assert await arrive(manager, cleo_page) == "full"
        await manager.shutdown_kernel(ben)  # Ben's tab closed
        await until_quiet()
        assert manager.live_kernels() <= 2
        assert manager.kernel_pools_config[JOIN]["pool_size"] == 0  # the join pool waits
        cleo = await arrive(manager, cleo_page)
        assert cleo in manager.alive and manager.alive == {ana, cleo}
        assert manager.visitor_kernels() == 2 and manager.live_kernels() == 2
        assert await arrive(manager, DASHBOARD) == "full"  # the next visitor waits in turn

    asyncio.run(play(DASHBOARD))
    asyncio.run(play(JOIN))
