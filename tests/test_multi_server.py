"""Several dashboard servers, one class: two `amteach dashboard` servers behind Debian's nginx,
configured with the several-servers site file of docs/deploy.md (a visitor stays on one server
by a cookie; websockets upgraded), sharing one PostgreSQL class database (a server of the test's
own, tests/postgres.py). Students join through nginx on the light phone page's websocket, two
landing on each server, at tables that span both; they play, and every phone of a table shows
every move, whichever server it is on; exactly one server drives each table's bots (its
lease); the instructor's grid on one server counts the moves made on the other.

Which server a visitor lands on is forced the way nginx decides it: by the visitor's cookie
(the test finds, through nginx, a cookie value for each server)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser import start_server, stop_server
from phone_client import Client, wait_until
from postgres import postgres_server
from served import REPO, bench_visitors, nginx

from amteach.content import dashboard_notebook
from amteach.rooms import ROOMS_ENV, open_rooms
from amteach.serving import TEMPLATE, voila_command, voila_environment

BASE = "/amteach/"
COOKIE = "amteach_server"
TIMEOUT = 240.0  # seconds: two loaded cores start seven kernels


def several_servers_site() -> str:
    """The several-servers nginx site file that docs/deploy.md gives."""
    text = (REPO / "docs" / "deploy.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```nginx several-servers\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/deploy.md has one several-servers nginx site file"
    return blocks[0]


@dataclass
class Dashboard:
    port: int
    process: subprocess.Popen
    log: list[str]

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def kernels(self) -> set[str]:
        """Ids of the kernels this server started (from their command lines)."""
        out = subprocess.run(
            ["ps", "-ww", "-o", "args=", "--ppid", str(self.process.pid)],
            capture_output=True,
            text=True,
        ).stdout
        return {
            line.split("kernel-", 1)[1].split(".json", 1)[0]
            for line in out.splitlines()
            if "kernel-" in line
        }


@contextmanager
def dashboard(database: str, pool: int) -> Iterator[Dashboard]:
    """A dashboard server as `amteach dashboard --base-url /amteach/ --rooms DATABASE` runs it,
    on a free port; stopped by its process id."""
    with voila_environment() as env:
        started = start_server(
            lambda port: voila_command(
                dashboard_notebook(), port, "127.0.0.1", pool, TEMPLATE, 600, BASE
            ),
            env={**env, ROOMS_ENV: database},
        )
        try:
            yield Dashboard(started.port, started.process, started.log)
        finally:
            stop_server(started.process, 60)


@contextmanager
def nginx_in_front(upstreams: list[int], folder: Path) -> Iterator[str]:
    """nginx with the documented several-servers site in front of the servers on `upstreams`.
    Each answer names its upstream (a header the test adds, to probe)."""
    site = several_servers_site()
    servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+;\n", site, re.M)
    assert len(servers) >= 2, site
    site = site.replace(
        "".join(servers), "".join(f"    server 127.0.0.1:{p};\n" for p in upstreams)
    )
    site = site.replace(
        "proxy_pass http://amteach;",
        "proxy_pass http://amteach;\n        add_header X-Upstream $upstream_addr always;",
    )
    with nginx(site, folder) as port:
        yield f"http://127.0.0.1:{port}{BASE}"


def upstream_of(url: str, cookie: str) -> tuple[str, str]:
    """(upstream address, cookie nginx set) for a request with the visitor cookie `cookie`;
    the request asks for a file that does not exist, so it costs no kernel."""
    request = urllib.request.Request(url + "no-such-file", headers={"Cookie": f"{COOKIE}={cookie}"})
    try:
        response = urllib.request.urlopen(request, timeout=60)
    except urllib.error.HTTPError as err:
        response = err
    set_cookie = response.headers.get("Set-Cookie", "")
    return response.headers.get("X-Upstream", ""), set_cookie


def cookie_for_each(url: str, servers: list[Dashboard]) -> dict[str, str]:
    """A visitor cookie value that nginx sends to each server (by upstream address)."""
    found: dict[str, str] = {}
    for i in range(200):
        value = f"visitor{i}"
        upstream, set_cookie = upstream_of(url, value)
        assert f"{COOKIE}={value}" in set_cookie  # nginx keeps the visitor's cookie
        found.setdefault(upstream, value)
        if all(s.address in found for s in servers):
            return {s.address: found[s.address] for s in servers}
    pytest.fail(f"nginx sent 200 visitors to {sorted(found)} only")


async def until(visitors: list, ready, timeout: float = TIMEOUT) -> None:
    """Wait until `ready()`, woken by a message on any of `visitors`' websockets."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not ready():
        if loop.time() > deadline:
            pytest.fail("timed out waiting for the pages")
        waits = [asyncio.ensure_future(v.changed.wait()) for v in visitors]
        for visitor in visitors:
            visitor.changed.clear()
        if not ready():
            await asyncio.wait(waits, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
        for wait in waits:
            wait.cancel()


async def open_tab(visitor, title: str) -> None:
    """Select the dashboard's tab called `title` (the page builds it when it opens)."""
    tabs = next(
        comm_id
        for comm_id, state in visitor.models.items()
        if state.get("_model_name") == "TabModel" and title in state.get("titles", ())
    )
    index = list(visitor.models[tabs]["titles"]).index(title)
    await visitor.update(tabs, {"selected_index": index})
    await until(
        [visitor], lambda: any(s.get("description") == "Tables" for s in visitor.models.values())
    )


async def click(visitor, description: str) -> None:
    """Click the page's button called `description`; wait until its kernel handled it."""
    comm_id = visitor.widget_where(_model_name="ButtonModel", description=description)
    data = {"method": "custom", "content": {"event": "click"}}
    await visitor.request("comm_msg", {"comm_id": comm_id, "data": data})


def grid_rows(grid_html: str) -> dict[int, int]:
    """The instructor's grid: table number (from 0) -> decisions it counts."""
    text = " ".join(re.sub(r"<[^>]+>", " ", grid_html).split())
    return {
        int(t) - 1: int(d) for t, d in re.findall(r"Table (\d+) round \d+ decision (\d+)", text)
    }


def test_a_class_across_two_servers_behind_nginx_sees_every_move(tmp_path):
    load = bench_visitors()
    with ExitStack() as stack:
        database = stack.enter_context(postgres_server())
        # phones hold no kernel: a pool of one, for the instructor's page on server 1, and
        # none on server 0 (only phones land there)
        servers = [
            stack.enter_context(dashboard(database, pool=0)),
            stack.enter_context(dashboard(database, pool=1)),
        ]
        url = stack.enter_context(nginx_in_front([s.port for s in servers], tmp_path))
        cookies = cookie_for_each(url, servers)
        # a first visit gets a cookie of its own, and keeps its server with it
        first, set_cookie = upstream_of(url, "")
        own = re.search(rf"{COOKIE}=([^;]+)", set_cookie).group(1)
        assert first and own and upstream_of(url, own)[0] == first

        async def lesson() -> None:
            teacher = load.WidgetPage(url)
            teacher.cookies = f"{COOKIE}={cookies[servers[1].address]}"
            students = [Client(url) for _ in range(4)]
            try:
                await teacher.connect()
                assert teacher.kernel_id in servers[1].kernels()
                # the instructor opens a class of two tables of two seats, on server 1
                await open_tab(teacher, "Class")
                await teacher.update(teacher.widget_where(description="Tables"), {"value": 2})
                seats = teacher.widget_where(description="Seats each")
                assert teacher.models[seats]["_options_labels"][0] == "2"
                await teacher.update(seats, {"index": 0})
                await click(teacher, "Open the class")
                banner = next(
                    str(state["value"])
                    for state in teacher.models.values()
                    if "am-room-code" in str(state.get("value", ""))
                )
                code = re.search(r"am-room-code[^>]*>\s*([A-Z0-9]+)\s*<", banner).group(1)

                # students join through nginx on the light page's websocket: Ana and Ben on
                # server 0, Cy and Di on server 1. A newcomer sits at the table with the fewest
                # students, so each table has a student on each server.
                homes = [0, 0, 1, 1]
                for student, name, server in zip(
                    students, ["Ana", "Ben", "Cy", "Di"], homes, strict=True
                ):
                    student.cookie = f"{COOKIE}={cookies[servers[server].address]}"
                    await student.open()
                    assert (await student.join(code, name))["type"] == "seated", name
                    student.name = name
                    student.table = (
                        next(m for m in student.messages if m["type"] == "seated")["table"] - 1
                    )
                tables = sorted({s.table for s in students})
                assert tables == [0, 1]
                for table in tables:
                    assert {homes[i] for i, s in enumerate(students) if s.table == table} == {0, 1}

                await click(teacher, "Start the games")
                rooms = open_rooms(database)
                for table in tables:
                    mates = [s for s in students if s.table == table]
                    # a few turns each; every device of the table, on either server, shows
                    # each move: the same narration as the mover's page
                    for _ in range(6):
                        await wait_until(mates, lambda m=mates: any(x.first_button() for x in m))
                        mover = next(m for m in mates if m.first_button())
                        choice, at = mover.first_button()
                        await mover.send(type="choose", choice=choice, at=at)
                        for mate in mates:
                            await mate.until(
                                lambda m, at=at: (
                                    m["type"] == "view"
                                    and f'data-at="{at + 1}"' in m["parts"].get("status", "")
                                ),
                                timeout=60,
                            )
                        happened = {mate.parts["happened"] for mate in mates}
                        assert len(happened) == 1 and "Traceback" not in happened.pop()
                    # the instructor's grid on server 1 counts every decision of the table,
                    # the ones taken on server 0 included
                    decisions = len(rooms.decisions(code, table))
                    assert decisions >= 6
                    await until(
                        [teacher],
                        lambda d=decisions, t=table: (
                            grid_rows(teacher.find_value("am-class-grid") or "").get(t) - d
                            in (0, 1, 2)
                        ),
                        timeout=60,
                    )
                    assert "Ana" in (teacher.find_value("am-class-grid") or "")
                # each table's bots are moved by exactly one server (its lease), whichever
                # servers its phones are on
                for table in tables:
                    line = f"this server drives table {table + 1} of room {code}"
                    drivers = [s for s in servers if any(line in entry for entry in s.log)]
                    assert len(drivers) == 1, [s.address for s in drivers]
            finally:
                await teacher.close()
                for student in students:
                    if student.connection is not None:
                        student.connection.close()

        asyncio.run(lesson())
