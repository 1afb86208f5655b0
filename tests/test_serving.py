"""What `amteach dashboard` sets up around Voilà: the amteach template, plotly's widget bundle
served once, and a lighter kernel."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

from amteach.serving import PLOTLY_BUNDLE_ENV, TEMPLATE, voila_environment


def test_the_served_environment_holds_the_template_and_one_plotly_bundle():
    with voila_environment() as env:
        share = Path(env["JUPYTER_PATH"].split(os.pathsep)[0])
        template = share / "voila" / "templates" / TEMPLATE
        assert (template / "conf.json").is_file() and (template / "index.html.j2").is_file()
        bundle = share / "voila" / env[PLOTLY_BUNDLE_ENV]
        assert bundle.is_file() and bundle.stat().st_size > 1_000_000
    assert not share.exists()  # removed with the server


def test_a_dashboard_kernel_skips_what_plotly_imports_for_notebooks_and_a_notebook_does_not():
    """nbformat, jsonschema and its URI grammar (and Voilà itself) stay out of a served
    kernel; a chart widget still works there."""
    probe = (
        "import sys, amteach.ui, plotly.graph_objects as go; go.FigureWidget; "
        "from amteach.ui.dashboard import ServedPage; ServedPage(); "
        "print(*(sys.modules.get(m) is not None "
        "for m in ('rfc3987_syntax', 'jsonschema', 'nbformat', 'voila')))"
    )
    served = dict(os.environ, **{PLOTLY_BUNDLE_ENV: "templates/amteach/static/plotly-widget.js"})
    plain = {k: v for k, v in os.environ.items() if k != PLOTLY_BUNDLE_ENV}
    run = [sys.executable, "-c", probe]
    served_run = subprocess.run(run, env=served, capture_output=True, text=True)
    assert served_run.stdout.split() == ["False"] * 4, served_run.stderr
    plain_run = subprocess.run(run, env=plain, capture_output=True, text=True)
    assert plain_run.stdout.split() == ["True", "True", "True", "False"], plain_run.stderr


def test_charts_load_plotly_from_the_server_only_when_served(monkeypatch):
    import plotly.graph_objects as go

    from amteach.ui.figures import figure_widget

    monkeypatch.delenv(PLOTLY_BUNDLE_ENV, raising=False)
    plain = figure_widget(go.Figure())
    assert len(plain._esm) > 1_000_000  # plotly's own widget, carrying plotly.js
    monkeypatch.setenv(PLOTLY_BUNDLE_ENV, "templates/amteach/static/plotly-widget-x.js")
    served = figure_widget(go.Figure(layout={"title": "Wealth"}))
    assert isinstance(served, go.FigureWidget)
    assert len(served._esm) < 1_000 and "templates/amteach/static/plotly-widget-x.js" in served._esm
    assert served.layout.title.text == "Wealth"


# --- the served page: preheated for the dashboard and for join links (issue 24) -------------


def test_a_page_known_at_start_builds_only_what_it_shows(tmp_path, monkeypatch):
    """A kernel started for one request (or a notebook outside Voilà) knows its address at
    once: a join link builds the student's page and never the dashboard."""
    from amteach.ui.dashboard import ServedPage

    monkeypatch.setenv("AMTEACH_ROOMS", str(tmp_path / "class.sqlite"))
    monkeypatch.delenv("VOILA_PREHEAT", raising=False)
    monkeypatch.setenv("QUERY_STRING", "room=abc123")
    student = ServedPage()
    assert student.dashboard is None
    assert [child._dom_classes for child in student.page.children] == [
        student.student.widget._dom_classes
    ]
    assert "am-student" in student.student.widget._dom_classes
    monkeypatch.setenv("QUERY_STRING", "")
    dashboard = ServedPage()
    assert dashboard.student is None
    assert dashboard.page.children == (dashboard.dashboard.widget,)


def test_a_preheated_dashboard_turns_into_a_students_page_when_the_join_link_arrives(
    tmp_path, monkeypatch
):
    """In the pool the dashboard is built and shown before the visitor comes; a join link's
    query then puts the student's page in the same place on the page, and every widget of the
    dashboard is closed once the browser draws that page (closed before, a browser that had
    connected but not yet asked for its widgets would hear of widgets it never had:
    tests/test_class_browser.py)."""
    from amteach.ui import dashboard as served

    monkeypatch.setenv("AMTEACH_ROOMS", str(tmp_path / "class.sqlite"))
    monkeypatch.setenv("VOILA_PREHEAT", "True")
    waiting = []
    monkeypatch.setattr(served, "when_page_known", waiting.append)
    page = served.ServedPage()
    assert page.dashboard is not None and page.student is None
    built = page.dashboard
    assert page.page.children == (built.widget,)
    assert len(waiting) == 1  # the page waits for its address without blocking the notebook
    waiting[0]("room=abc123")
    assert page.dashboard is None
    assert "am-student" in page.page.children[0]._dom_classes
    assert page.page.comm is not None  # the page the browser shows stays open
    closed = [built.widget, built.app.widget, built.app.board_view, built.rules_view]
    assert all(widget.comm is not None for widget in closed)
    # the student's page is drawn: its browser memory sends what the browser keeps
    stored = {"method": "custom", "content": {"kind": "stored", "items": {}, "fragment": {}}}
    page.student.memory._handle_msg({"content": {"data": stored}, "buffers": []})
    assert all(widget.comm is None for widget in closed)
    assert page.page.comm is not None and page.student.widget.comm is not None


def test_a_preheated_dashboard_stays_the_dashboard_for_its_own_address(monkeypatch):
    from amteach.ui import dashboard as served

    monkeypatch.setenv("VOILA_PREHEAT", "True")
    waiting = []
    monkeypatch.setattr(served, "when_page_known", waiting.append)
    page = served.ServedPage()
    built = page.dashboard
    waiting[0]("x=1")
    assert page.dashboard is built and built.widget.comm is not None


# --- hard limits: pages that never connect, and the default cap (issue 22) ------------------


def server_memory_mb(server) -> float:
    """Resident memory of the server and its kernels, in MB."""
    pids = [server.process.pid, *server.kernels().values()]
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):  # a kernel that just ended
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    return total * os.sysconf("SC_PAGE_SIZE") / 2**20


def wait_until(condition, timeout: float, what: str) -> None:
    """Poll `condition` until it holds; fail with `what` after `timeout` seconds."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.5)


def plain_get(url: str) -> bytes:
    import urllib.request

    with urllib.request.urlopen(url, timeout=300) as response:
        assert response.status == 200
        return response.read()


def test_a_loop_of_plain_gets_leaves_no_kernels_behind_and_memory_flat():
    """Issue 22: plain GETs (no websocket) each took a kernel until the 300 s cull. Now a
    kernel whose page never connects goes after the unopened timeout (40 s by default, lowered
    here to keep the test short), while a page that connected keeps its kernel and plays."""
    import asyncio
    import re
    import urllib.error
    import urllib.request
    from concurrent.futures import ThreadPoolExecutor

    import pytest
    from served import bench_load, dashboard_server

    pool = 1
    with dashboard_server(pool=pool, unopened_after=10) as server:
        wait_until(lambda: len(server.kernels()) >= pool, 300, "the pool's kernel")
        visitor = bench_load().Visitor(server.url)
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(visitor.open())  # a page that connects
            after_rounds = []
            for _ in range(2):
                with ThreadPoolExecutor(4) as getters:
                    pages = list(getters.map(plain_get, [server.url] * 4))
                assert all(b"kernelId" in page for page in pages)
                # each GET took a kernel (the log below counts them) and gives it back: only
                # the pool and the connected visitor remain
                wait_until(
                    lambda: len(server.kernels()) == pool + 1,
                    300,
                    f"kernels back to {pool + 1}: {len(server.kernels())} alive",
                )
                after_rounds.append(server_memory_mb(server))
            assert visitor.kernel_id in server.kernels()
            loop.run_until_complete(visitor.click("Roll"))  # the connected page still plays
            assert "throws" in visitor.narration()
            # a page whose first script ran (a browser, loading slowly) says so and keeps its
            # kernel; another site cannot say it for it
            slow = re.search(r'"kernelId":\s*"([\w-]+)"', plain_get(server.url).decode())[1]
            forged = urllib.request.Request(
                f"{server.url}voila/amteach/alive/{slow}",
                method="POST",
                headers={"Origin": "http://elsewhere.example"},
            )
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(forged, timeout=60)
            assert refused.value.code == 403
            alive = urllib.request.Request(f"{server.url}voila/amteach/alive/{slow}", method="POST")
            with urllib.request.urlopen(alive, timeout=60) as response:
                assert response.status == 204
            plain_get(server.url)  # and one that no browser opened
            wait_until(
                lambda: "".join(server.log).count("its page never connected in 10 s") == 9,
                300,
                "the unopened page's kernel to go",
            )
            assert slow in server.kernels()
        finally:
            loop.run_until_complete(visitor.close())
            loop.close()
        assert after_rounds[1] < after_rounds[0] * 1.15 + 50, after_rounds
        log = "".join(server.log)
        assert log.count("its page never connected in 10 s") == 9, log[-3000:]
        assert "Traceback" not in log


def test_pages_that_never_connect_give_their_kernel_back_within_a_minute_by_default():
    from amteach.serving import UNOPENED_SECONDS, voila_command

    command = voila_command(Path("d.ipynb"), 8866, "127.0.0.1", 2, TEMPLATE)
    assert f"--ClassroomKernelManager.unopened_timeout={UNOPENED_SECONDS}" in command
    # checked every quarter of the timeout (serving.pool.ClassroomKernelManager)
    assert UNOPENED_SECONDS * 1.25 <= 60


def test_the_visitor_cap_defaults_to_what_the_memory_holds():
    from click.testing import CliRunner

    from amteach.cli import MaxVisitors, main
    from amteach.serving import (
        MEMORY_SHARE_FOR_VISITORS,
        VISITOR_MB,
        available_memory_mb,
        default_max_visitors,
    )

    assert default_max_visitors(24_000) == int(24_000 * MEMORY_SHARE_FOR_VISITORS) // VISITOR_MB
    assert default_max_visitors(100) == 2  # a tiny machine still serves two
    assert available_memory_mb() > 0
    assert MaxVisitors().convert("auto", None, None) == default_max_visitors()
    assert MaxVisitors().convert("0", None, None) == 0  # no limit, when asked for
    assert MaxVisitors().convert(" 25 ", None, None) == 25
    help_text = CliRunner().invoke(main, ["dashboard", "--help"]).output
    assert "[default: auto]" in " ".join(help_text.split())
    for bad, says in (("lots", "not a whole number or 'auto'"), ("10001", "between 0 and 10000")):
        result = CliRunner().invoke(main, ["dashboard", "--max-visitors", bad])
        assert result.exit_code == 2 and says in result.output
        assert "Traceback" not in result.output
    # ./dev run serves with the cap in its command line
    dev = (Path(__file__).resolve().parents[1] / "dev").read_text()
    assert 'dashboard --max-visitors auto "$@"' in dev


def test_preheated_kernels_serve_both_the_dashboard_and_a_join_link(tmp_path):
    """Issue 24: the pool renders the whole dashboard before anyone comes, and a join link
    (`?room=CODE`) gets a pool kernel too, whose page turns into the student's: a Join form
    with the room's code, and none of the dashboard's tabs."""
    from browser import launch_chromium
    from playwright.sync_api import sync_playwright
    from served import dashboard_server

    from amteach.rooms import ROOMS_ENV, RoomSettings, open_rooms

    database = str(tmp_path / "class.sqlite")
    rooms = open_rooms(database)
    code = rooms.create(RoomSettings(tables=1, seats=2))
    rooms.store.close()
    wait = 180_000
    with (
        dashboard_server(pool=2, env={ROOMS_ENV: database}) as server,
        sync_playwright() as playwright,
    ):
        browser = launch_chromium(playwright)
        errors: list[str] = []

        def visit(address: str):
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(address)
            return page

        student = visit(f"{server.url}?room={code}")
        join = student.get_by_role("button", name="Join", exact=True)
        join.wait_for(timeout=wait)
        assert join.is_enabled()
        assert student.get_by_placeholder("the code on the projector").input_value() == code
        assert student.locator(".am-page .am-student").count() == 1
        assert student.locator(".widget-tab, .am-board").count() == 0  # no dashboard

        teacher = visit(server.url)
        roll = teacher.locator(".am-choices button", has_text="Roll")
        roll.wait_for(timeout=wait)
        assert roll.is_enabled()
        assert teacher.locator(".am-page .lm-TabBar-tabLabel", has_text="Who wins").count() == 1
        assert teacher.locator(".am-student").count() == 0
        browser.close()
        assert errors == []
        # read before the server stops: a pool kernel still warming up when it is stopped
        # may print its KeyboardInterrupt, which says nothing about the pages served
        log = "".join(server.log)
    assert log.count("Using pre-heated kernel") == 2, log[-3000:]
    assert "Traceback" not in log
