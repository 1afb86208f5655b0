"""Class play in Chromium: the dashboard served as `amteach dashboard --rooms` serves it, the
instructor's Class tab and two students' phones (join links, ?room=CODE) in one browser. One
student acts; the other student's page and the instructor's grid update. Then the server is
killed and started again on the same class database: the table is at the same decision."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

from browser import launch_chromium, serve_dashboard
from playwright.sync_api import sync_playwright

from amteach.rooms import ROOMS_ENV, RoomSettings, open_rooms

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
    page = browser.new_page(viewport=PHONE)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{url}?room={code}")
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
    code = rooms.create(
        RoomSettings(tables=1, seats=2, ending="A", round_cap=5, seed=3), pin="2468"
    )
    errors: list[str] = []
    with serve_dashboard(pool=3, env={ROOMS_ENV: database}) as server, sync_playwright() as pw:
        browser = launch_chromium(pw)
        teacher = browser.new_page(viewport={"width": 1280, "height": 720})
        teacher.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        teacher.on("pageerror", lambda error: errors.append(str(error)))
        teacher.goto(server.url)
        teacher.get_by_role("tab", name="Class").click(timeout=WAIT)
        teacher.get_by_placeholder("its code").fill(code, timeout=WAIT)
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
        page.goto(server.url)
        page.get_by_role("tab", name="Class").click(timeout=WAIT)
        page.get_by_placeholder("its code").fill(code, timeout=WAIT)
        page.get_by_placeholder("if it has one").fill("2468")
        page.get_by_role("button", name="Open its controls").click()
        page.locator(".am-class-grid").get_by_text(f"decision {decisions}").wait_for(timeout=WAIT)
        text = page.locator(".am-class-grid").inner_text()
        assert re.search(r"Ana", text) and re.search(r"Ben", text)
        browser.close()
    assert errors == []
