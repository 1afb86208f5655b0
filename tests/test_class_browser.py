"""Class play in Chromium: the dashboard served as `amteach dashboard --rooms` serves it, the
instructor's Class tab and two students' phones (join links, ?room=CODE) in one browser. One
student acts; the other student's page and the instructor's grid update. Then the server is
killed and started again on the same class database: the table is at the same decision."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import signal
import struct
import zipfile
from pathlib import Path

import nbformat
from browser import launch_chromium, serve_dashboard
from playwright.sync_api import sync_playwright

from amteach.rooms import ROOMS_ENV, RoomSettings, new_key, open_rooms

SHOTS = Path(__file__).resolve().parents[1] / "test-output" / "browser"
WAIT = 180_000  # ms: two busy cores start three kernels at once
PHONE = {"width": 390, "height": 844}


def descendants(pid: int) -> list[int]:
    """The processes started by `pid` and by them (the server's kernels), from /proc."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def join(browser, url: str, code: str, name: str, errors: list[str]):
    """A student's phone (a browser context of its own: its own localStorage) joins."""
    page = browser.new_context(viewport=PHONE).new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}?room={code}", timeout=WAIT)
    page.get_by_placeholder("first name").wait_for(timeout=WAIT)
    assert page.get_by_placeholder("the code on the projector").input_value() == code
    page.get_by_placeholder("first name").fill(name)
    page.get_by_placeholder("first name").press("Enter")
    page.get_by_role("button", name="Join").click()
    page.get_by_text(f"Welcome, {name}").wait_for(timeout=WAIT)
    return page


def test_one_student_acts_and_the_other_phone_and_the_instructors_grid_follow(tmp_path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    database = str(tmp_path / "class.sqlite")
    rooms = open_rooms(database)
    key = new_key()
    code = rooms.create(
        RoomSettings(tables=1, seats=2, ending="A", round_cap=5, seed=3), pin="2468", key=key
    )
    errors: list[str] = []
    with serve_dashboard(pool=3, env={ROOMS_ENV: database}) as server, sync_playwright() as pw:
        browser = launch_chromium(pw)
        teacher = browser.new_page(viewport={"width": 1280, "height": 720})
        teacher.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        teacher.on("pageerror", lambda error: errors.append(str(error)))
        teacher.goto(server.url, timeout=WAIT)
        teacher.get_by_role("tab", name="Class").click(timeout=WAIT)
        teacher.get_by_placeholder("paste your instructor link").fill(
            f"{server.url}#class={code}&key={key}", timeout=WAIT
        )
        teacher.get_by_placeholder("if it has one").fill("0000")
        teacher.get_by_role("button", name="Open its controls").click()
        teacher.get_by_text("does not open this room").wait_for(timeout=WAIT)
        teacher.get_by_placeholder("if it has one").fill("2468")
        teacher.get_by_role("button", name="Open its controls").click()
        teacher.locator(".am-room-code", has_text=code).wait_for(timeout=WAIT)
        link = teacher.locator(".am-join-link").inner_text()
        assert link == f"{server.url}?room={code}"
        assert teacher.locator(".am-class svg path").count() >= 1  # the QR code

        ana = join(browser, server.url, code, "Ana", errors)
        ben = join(browser, server.url, code, "Ben", errors)
        teacher.get_by_text("2 of 2 seats have a student").wait_for(timeout=WAIT)
        teacher.get_by_role("button", name="Start the games").click()
        grid = teacher.locator(".am-class-grid")
        grid.get_by_text("decision 0").wait_for(timeout=WAIT)
        ana.get_by_text("Your turn").wait_for(timeout=WAIT)
        ben.get_by_text("Ana's turn").wait_for(timeout=WAIT)
        assert ben.locator(".am-choices button").count() == 0
        # the phone view fits a phone: the board and the choices lie inside its width
        for box in (
            ana.locator(".am-ph-reach").bounding_box(),
            ana.locator(".am-choices").bounding_box(),
        ):
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 1, box
        ana.screenshot(path=str(SHOTS / "class-student-turn.png"), full_page=True)

        ana.locator(".am-choices button", has_text="Roll").click()
        # Ben's phone and the instructor's grid follow Ana's throw
        ben.locator(".am-narration", has_text="Ana").wait_for(timeout=WAIT)
        grid.get_by_text("decision 1").wait_for(timeout=WAIT)
        ben.screenshot(path=str(SHOTS / "class-student-waiting.png"), full_page=True)
        teacher.screenshot(path=str(SHOTS / "class-instructor.png"), full_page=True)
        browser.close()
        # the server and its kernels die without warning
        for pid in [server.pid, *descendants(server.pid)]:
            os.kill(pid, signal.SIGKILL)
    decisions = len(rooms.decisions(code, 0))
    assert decisions >= 1
    # started again on the same class database: the table resumes at that decision
    with serve_dashboard(pool=1, env={ROOMS_ENV: database}) as server, sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url, timeout=WAIT)
        page.get_by_role("tab", name="Class").click(timeout=WAIT)
        page.get_by_placeholder("paste your instructor link").fill(
            f"#class={code}&key={key}", timeout=WAIT
        )
        page.get_by_placeholder("if it has one").fill("2468")
        page.get_by_role("button", name="Open its controls").click()
        page.locator(".am-class-grid").get_by_text(f"decision {decisions}").wait_for(timeout=WAIT)
        text = page.locator(".am-class-grid").inner_text()
        assert re.search(r"Ana", text) and re.search(r"Ben", text)
        browser.close()
    assert errors == []


# -- the order a busy machine can give: the join link heard after the page connected ------------
# In the server's pool a kernel builds the dashboard before its visitor comes; the visitor's
# address (a join link) reaches it later. On a busy machine (a kernel taken from the pool while
# still running the notebook) it can arrive after the page connected but before the page asked
# for its widgets. This notebook makes that order certain: its kernels hear their join link
# just as the page asks for its widgets (the widgets' "control" channel opens).
JOIN_LINK_HEARD_LATE = """
from comm import get_comm_manager
from ipywidgets import Widget

from amteach.ui import dashboard as served

waiting = []
served.when_page_known = waiting.append  # the visitor's address waits for the page
page = served.ServedPage()


def page_asks_for_its_widgets(comm, message):
    while waiting:
        waiting.pop()("room={code}")
    Widget.handle_control_comm_opened(comm, message)


get_comm_manager().register_target("jupyter.widget.control", page_asks_for_its_widgets)
page
"""


def kernel_message(payload: str | bytes) -> dict:
    """A kernel message as the page's websocket carries it: JSON, or Jupyter's binary v1
    protocol (offsets, then the channel, header, parent header, metadata and content)."""
    if isinstance(payload, str):
        return json.loads(payload)
    (count,) = struct.unpack_from("<Q", payload, 0)
    offsets = [*struct.unpack_from(f"<{count}Q", payload, 8), len(payload)]
    parts = [payload[offsets[i] : offsets[i + 1]] for i in range(count)]
    names = ("header", "parent_header", "metadata", "content")
    return {
        "channel": parts[0].decode(),
        **{n: json.loads(p) for n, p in zip(names, parts[1:5], strict=True)},
    }


def test_a_join_link_heard_after_the_page_connected_closes_only_widgets_the_page_knows(tmp_path):
    """The dashboard built in the pool is closed once the student's page is drawn, so the page
    hears only of widgets it was told of: no "Comm not found for comm id" in its console (it
    logged one for each of the dashboard's widgets when they were closed as soon as the join
    link was heard)."""
    database = str(tmp_path / "class.sqlite")
    code = open_rooms(database).create(RoomSettings(tables=1, seats=2, round_cap=5, seed=3))
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(JOIN_LINK_HEARD_LATE.replace("{code}", code))]
    )
    path = tmp_path / "heard-late.ipynb"
    nbformat.write(notebook, path)
    errors: list[str] = []
    closed: list[str] = []

    def on_websocket(socket):
        def received(payload):
            message = kernel_message(payload)
            if message["header"]["msg_type"] == "comm_close":
                closed.append(message["content"]["comm_id"])

        socket.on("framereceived", received)

    with (
        serve_dashboard(path, pool=1, env={ROOMS_ENV: database}) as server,
        sync_playwright() as pw,
    ):
        browser = launch_chromium(pw)
        phone = watched(browser.new_context(viewport=PHONE).new_page(), errors)
        phone.on("websocket", on_websocket)
        phone.goto(f"{server.url}?room={code}", timeout=WAIT)
        assert (
            phone.get_by_placeholder("the code on the projector").input_value(timeout=WAIT) == code
        )
        # the kernel hears the student only after the page was drawn: by the time Ana is
        # welcomed, every close sent before has reached the page
        type_name(phone, "Ana")
        phone.get_by_role("button", name="Join").click()
        phone.get_by_text("Welcome, Ana").wait_for(timeout=WAIT)
        browser.close()
    assert len(closed) >= 100  # the dashboard's widgets were closed, on the page too
    assert errors == []


# -- trust (issue 22): each attack as a hostile student runs it, in Chromium ------------------------
FORMULA = '=HYPERLINK("//x.ru","a")'


def watched(page, errors: list[str]):
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page


def device(browser, errors: list[str], viewport=PHONE):
    """A device of its own: its own browser storage (localStorage), like a student's phone."""
    return watched(browser.new_context(viewport=viewport).new_page(), errors)


def type_name(page, name: str) -> None:
    """Type a name and press Enter, which sends it to the kernel (the box sends on Enter or
    when it loses focus, not on each key)."""
    box = page.get_by_placeholder("first name")
    box.fill(name, timeout=WAIT)
    box.press("Enter")


def boxes_apart(page) -> None:
    """The Class tab's header: the QR code, the join link, "Room code" and the code each in
    their own box, none overlapping, each box at least as tall as its type."""
    found = page.evaluate(
        """() => ['.am-qr', '.am-join-link', '.am-room-code-label', '.am-room-code'].map(s => {
            const el = document.querySelector(s);
            const r = el.getBoundingClientRect();
            return {s, x: r.x, y: r.y, w: r.width, h: r.height,
                    size: parseFloat(getComputedStyle(el).fontSize)};
        })"""
    )
    for box in found:
        assert box["w"] > 0 and box["h"] >= box["size"], box
        assert box["x"] + box["w"] <= page.viewport_size["width"] + 1, box
    for i, a in enumerate(found):
        for b in found[i + 1 :]:
            apart = (
                a["x"] + a["w"] <= b["x"] + 0.5
                or b["x"] + b["w"] <= a["x"] + 0.5
                or a["y"] + a["h"] <= b["y"] + 0.5
                or b["y"] + b["h"] <= a["y"] + 0.5
            )
            assert apart, (a, b)


def test_a_hostile_student_reaches_no_control_and_takes_no_seat(tmp_path):
    database = str(tmp_path / "class.sqlite")
    rooms = open_rooms(database)
    errors: list[str] = []
    with serve_dashboard(pool=3, env={ROOMS_ENV: database}) as server, sync_playwright() as pw:
        browser = launch_chromium(pw)
        # the instructor opens a class with a PIN
        teacher = device(browser, errors, {"width": 1280, "height": 720})
        teacher.goto(server.url, timeout=WAIT)
        teacher.get_by_role("tab", name="Class").click(timeout=WAIT)
        teacher.get_by_placeholder("optional, 4+ characters").fill("2468", timeout=WAIT)
        teacher.get_by_role("button", name="Open the class").click()
        code = teacher.locator(".am-room-code").inner_text(timeout=WAIT).strip()
        assert rooms.info(code).has_pin
        boxes_apart(teacher)
        teacher.set_viewport_size({"width": 1920, "height": 1080})
        boxes_apart(teacher)
        teacher.set_viewport_size({"width": 1280, "height": 720})
        secret = teacher.locator(".am-secret-link input")
        assert secret.get_attribute("type") == "password"  # never shown on the projector
        link = secret.input_value()
        kept = json.loads(teacher.evaluate("localStorage.getItem('amteach-instructor-keys')"))
        key = kept[code]
        assert link.endswith(f"#class={code}&key={key}") and len(key) >= 32
        join_at = teacher.locator(".am-join-link").inner_text()
        assert key not in join_at and key not in teacher.locator(".am-class").inner_text()

        # a student with the code opens the Class tab and tries the controls
        mallory = device(browser, errors, {"width": 1280, "height": 720})
        mallory.goto(server.url, timeout=WAIT)
        mallory.get_by_role("tab", name="Class").click(timeout=WAIT)
        mallory.get_by_placeholder("its code").fill(code, timeout=WAIT)
        mallory.get_by_role("button", name="Open its controls").click()
        mallory.get_by_text("open with the instructor link").wait_for(timeout=WAIT)
        for guess in ("0000", "1111", "2222", "3333", "4444"):
            mallory.get_by_placeholder("if it has one").fill(guess)
            mallory.get_by_role("button", name="Open its controls").click()
        mallory.get_by_text("Too many wrong tries from this page").wait_for(timeout=WAIT)
        assert mallory.locator(".am-room-code").count() == 0
        assert not mallory.get_by_role("button", name="Start the games").is_visible()

        # the instructor, on a second computer, opens the link: in at once with the PIN
        laptop = device(browser, errors, {"width": 1280, "height": 720})
        laptop.goto(link, timeout=WAIT)
        laptop.get_by_role("tab", name="Class").click(timeout=WAIT)
        laptop.get_by_text("also has a PIN").wait_for(timeout=WAIT)
        assert "key=" not in laptop.url  # taken off the address bar
        laptop.get_by_placeholder("if it has one").fill("2468")
        laptop.get_by_role("button", name="Open its controls").click()
        laptop.locator(".am-room-code", has_text=code).wait_for(timeout=WAIT)

        # students join; a second device types a seated name; one page floods joins
        ana = device(browser, errors)
        ana.goto(f"{server.url}?room={code}", timeout=WAIT)
        type_name(ana, "Ana")
        ana.get_by_role("button", name="Join").click()
        ana.get_by_text("Welcome, Ana").wait_for(timeout=WAIT)
        (anas,) = [(s.table, s.seat) for s in rooms.seats(code) if s.name == "Ana"]
        phone = device(browser, errors)
        phone.goto(f"{server.url}?room={code}", timeout=WAIT)
        # the same name, and a Cyrillic look-alike: each gets its line, neither a seat
        for name, says in (("ANA", "already taken in this class"), ("Аna", "looks too much")):
            type_name(phone, name)
            phone.get_by_role("button", name="Join").click()
            phone.get_by_text(says).wait_for(timeout=WAIT)
        type_name(phone, FORMULA)
        phone.get_by_role("button", name="Join").click()
        phone.get_by_text(f"Welcome, {FORMULA}").wait_for(timeout=WAIT)
        assert phone.get_by_placeholder("first name").is_hidden()  # the form went with the seat
        # the page brings the hidden form back (as from the browser's developer tools) and
        # presses Join again and again with new names
        phone.evaluate(
            """() => document.querySelectorAll('.am-student *').forEach(el => {
                if (el.style && el.style.display === 'none') el.style.display = '';
            })"""
        )
        for n in range(1, 8):
            type_name(phone, f"Sock {n}")
            phone.get_by_role("button", name="Join").click()
        phone.get_by_text("One seat per page").wait_for(timeout=WAIT)
        seated = sorted(s.name for s in rooms.seats(code) if s.name)
        assert seated == sorted(["Ana", FORMULA])

        # Ana's tab is closed and opened again (a new kernel; her browser keeps her token):
        # the same seat. (A reload does the same, but Voilà's own page then posts to its
        # kernel-shutdown route, which amteach's server answers 403: a console error that
        # is not this test's.)
        context = ana.context
        ana.close()
        ana = watched(context.new_page(), errors)
        ana.goto(f"{server.url}?room={code}", timeout=WAIT)
        ana.get_by_text("Welcome back, Ana").wait_for(timeout=WAIT)
        assert [(s.table, s.seat) for s in rooms.seats(code) if s.name == "Ana"] == [anas]

        # the instructor starts, pauses and resumes: every phone shows it
        teacher.get_by_role("button", name="Start the games").click()
        phone.get_by_text("Your turn").wait_for(timeout=WAIT)
        phone.locator(".am-choices button", has_text="Roll").click()
        teacher.locator(".am-class-grid").get_by_text("decision 1").first.wait_for(timeout=WAIT)
        teacher.get_by_role("button", name="Pause all").click()
        for page in (ana, phone):
            page.locator(".am-student").get_by_text("Paused").wait_for(timeout=WAIT)
        teacher.get_by_role("button", name="Resume all").click()
        # Time is up and Close ask first
        teacher.get_by_role("button", name="Time is up: end the game").click()
        teacher.get_by_text("End the game at every table now?").wait_for(timeout=WAIT)
        assert rooms.info(code).seconds_left() > 60
        teacher.get_by_role("button", name="Yes, time is up").click()
        for page in (ana, phone):
            page.locator(".am-student").get_by_text("Time is up").first.wait_for(timeout=WAIT)
        assert rooms.info(code).seconds_left() == 0

        # the class's data: the formula name is text in the CSV
        with teacher.expect_download(timeout=WAIT) as download:
            teacher.get_by_role("button", name="Data (CSV)").click()
        archive = zipfile.ZipFile(download.value.path())
        rows = list(csv.reader(io.StringIO(archive.read("decisions.csv").decode())))
        for name in archive.namelist():
            for row in csv.reader(io.StringIO(archive.read(name).decode())):
                assert not any(c.startswith(("=", "+", "@", "\t", "\r")) for c in row), row
        assert any(row[3] == "'" + FORMULA for row in rows[1:])

        teacher.get_by_role("button", name="Close the class").click()
        teacher.get_by_role("button", name="Yes, close the class").click()
        ana.get_by_text("class has ended").first.wait_for(timeout=WAIT)
        teacher.get_by_role("button", name="Reopen the class").click(timeout=WAIT)
        ana.get_by_text("class has ended").first.wait_for(state="detached", timeout=WAIT)
        assert rooms.info(code).status == "playing"
        browser.close()
    assert errors == []
