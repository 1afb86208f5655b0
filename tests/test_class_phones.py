"""A class of 30 phones on the light page (issue 36): 30 Chromium contexts at 390x844 (each its
own phone: its own cookies and localStorage) in one browser join one room of `amteach dashboard
--rooms` by its join link, 6 tables of 5 students and no bots. The games start (as the
instructor's Start does: `Rooms.start`, the Class tab's own test drives the button) and every
phone plays its whole Game A to "Game over" by pressing its first choice whenever it has one.

What a person sees is asserted: every phone says "Game over" and every table's game is over in
the class database; no console error on any phone; axe-core finds no serious or critical WCAG
2.1 A/AA violation on the join form, in the lobby and mid-game; and one student uses the
keyboard alone: Tab into the name field, type, Enter to join; on their turn Tab to a choice and
press it with Enter (and, next turn, Space), and the decision is taken.

The phones are kept cheap: no kernel per phone (the server holds the games), no images, no
service workers, and one page each. The module's runtime is in docs/deploy.md's figures."""

from __future__ import annotations

import re
import time

from browser import WAIT, launch_chromium, serve_dashboard
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright
from test_accessibility import axe_violations

from amteach.rooms import ROOMS_ENV, RoomSettings, open_rooms
from amteach.rooms.table import RoomTable

PHONE = {"width": 390, "height": 844}
TABLES, SEATS = 6, 5
CHOICE = ".am-choices button.am-choice:not([disabled])"
MANAGE = ".am-manage button.am-choice:not([disabled])"
# one look at a phone: over, a choice to press (in the choices, or only in the build panel:
# raising money may take a mortgage), or whose turn it is
LOOK = """([choice, manage]) => {
  const status = document.querySelector('#am-part-status')?.innerText || '';
  if (/Game over/.test(status)) return {state: 'over'};
  if (document.querySelector(choice)) return {state: 'choice'};
  if (document.querySelector(manage)) return {state: 'manage'};
  const turn = status.match(/(\\S+)'s turn/);
  return {state: 'wait', turn: turn ? turn[1] : ''};
}"""
TURN_OR_OVER = """([choice, manage]) => document.querySelector(choice)
  || document.querySelector(manage)
  || /Game over/.test(document.querySelector('#am-part-status')?.innerText || '')"""


def name_of(n: int) -> str:
    return f"Pupil{n + 1:02d}"


def watch(page, errors: list[str], who: str) -> None:
    page.on("console", lambda m: errors.append(f"{who}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(f"{who}: {error}"))


def focused(page) -> dict:
    return page.evaluate(
        """() => { const el = document.activeElement;
          return {id: el.id, tag: el.tagName, cls: el.className || '',
                  text: (el.innerText || '').trim(), outline: getComputedStyle(el).outlineStyle}; }"""
    )


def tab_to(page, matches, limit: int = 20) -> dict:
    """Press Tab until the focused element matches; fail after `limit` presses."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        now = focused(page)
        if matches(now):
            return now
    raise AssertionError(f"Tab never reached the control (last: {focused(page)})")


def join_by_keyboard(page, name: str) -> None:
    """Tab into the name field (past the room code the link filled in), type, and Enter."""
    now = tab_to(page, lambda f: f["id"] == "am-name")
    assert now["outline"] != "none", now  # the focus is seen
    page.keyboard.type(name)
    page.keyboard.press("Enter")


def press_by_keyboard(page, rooms, code: str, table: int, key: str) -> str:
    """On the student's turn: from the top of the page, Tab to the first choice and press
    `key` on it; wait until the decision is taken (in the database and on the page)."""
    page.locator(CHOICE).first.wait_for(timeout=WAIT)
    before = len(rooms.decisions(code, table))
    page.evaluate("() => { document.activeElement?.blur(); window.scrollTo(0, 0); }")
    now = tab_to(page, lambda f: f["tag"] == "BUTTON" and "am-choice" in f["cls"])
    assert now["outline"] != "none", now
    button = page.locator(":focus").element_handle()
    page.keyboard.press(key)
    button.wait_for_element_state("hidden", timeout=WAIT)  # the choices were redrawn
    after = len(rooms.decisions(code, table))
    assert after > before, (now, before, after)
    return now["text"]


def test_a_class_of_30_phones_plays_whole_games_on_the_light_page(tmp_path):
    began = time.monotonic()
    database = str(tmp_path / "class.sqlite")
    rooms = open_rooms(database)
    code = rooms.create(
        RoomSettings(tables=TABLES, seats=SEATS, ending="A", round_cap=5, bot_delay=0, seed=11)
    )
    errors: list[str] = []
    found: dict[str, list[str]] = {}
    phones = TABLES * SEATS
    with serve_dashboard(pool=1, env={ROOMS_ENV: database}) as server, sync_playwright() as pw:
        browser = launch_chromium(pw)
        pages = []
        for n in range(phones):
            context = browser.new_context(viewport=PHONE, service_workers="block")
            context.route(re.compile(r"\.(png|jpe?g|gif|webp|svg|ico)(\?|$)"), lambda r: r.abort())
            page = context.new_page()
            watch(page, errors, name_of(n))
            page.goto(f"{server.url}?room={code}", timeout=WAIT)
            pages.append(page)

        # the first phone joins by keyboard alone; axe on its join form first
        keyboard = pages[0]
        keyboard.get_by_label("Your name").wait_for(timeout=WAIT)
        assert keyboard.get_by_label("Room code").input_value() == code
        found["join form"] = axe_violations(keyboard)
        join_by_keyboard(keyboard, name_of(0))
        keyboard.get_by_text(f"Welcome, {name_of(0)}").wait_for(timeout=WAIT)
        for n, page in enumerate(pages[1:], start=1):
            page.get_by_label("Your name").fill(name_of(n), timeout=WAIT)
            page.get_by_role("button", name="Join").click()
        for n, page in enumerate(pages):
            page.get_by_text(f"Welcome, {name_of(n)}").wait_for(timeout=WAIT)
        seats = {s.name: s.table for s in rooms.seats(code)}
        assert sorted(seats) == sorted(name_of(n) for n in range(phones))
        assert sorted(seats.values()) == sorted(t for t in range(TABLES) for _ in range(SEATS))
        by_name = {name_of(n): page for n, page in enumerate(pages)}
        # the lobby: each phone names its table and waits for the teacher
        keyboard.get_by_text("Waiting for your teacher").wait_for(timeout=WAIT)
        found["lobby"] = axe_violations(keyboard)

        joined = time.monotonic()
        rooms.start(code)
        for page in pages:
            page.locator("#am-part-status", has_text="turn").wait_for(timeout=WAIT)

        # the keyboard student's first two turns: Enter, then Space
        pressed = []
        table = seats[name_of(0)]
        for key in ("Enter", "Space"):
            while True:
                look = keyboard.evaluate(LOOK, [CHOICE, MANAGE])
                if look["state"] == "choice":
                    break
                assert look["state"] == "wait", look
                actor = by_name[look["turn"]]
                if actor.evaluate(LOOK, [CHOICE, MANAGE])["state"] == "choice":
                    press_first(actor)
                else:
                    actor.wait_for_function(TURN_OR_OVER, arg=[CHOICE, MANAGE], timeout=WAIT)
            if key == "Enter":
                # mid-game, the student's turn, choices on screen
                found["mid-game"] = axe_violations(keyboard)
            pressed.append(press_by_keyboard(keyboard, rooms, code, table, key))
        assert all(pressed), pressed

        # everybody plays on, pressing their first choice, until every game is over
        over: set[int] = set()
        presses = 0
        while len(over) < phones:
            acted, waiting_on = [], []
            for n, page in enumerate(pages):
                if n in over:
                    continue
                look = page.evaluate(LOOK, [CHOICE, MANAGE])
                if look["state"] == "over":
                    over.add(n)
                elif look["state"] in ("choice", "manage"):
                    handle = press_first(page, look["state"] == "manage")
                    if handle is not None:
                        acted.append(handle)
                elif look["turn"] in by_name:
                    waiting_on.append(by_name[look["turn"]])
            for handle in acted:  # each press taken: its choices redrawn
                handle.wait_for_element_state("hidden", timeout=WAIT)
            presses += len(acted)
            if not acted and len(over) < phones:
                # nothing to press anywhere yet: wait for a phone whose turn it is to have
                # its choices (the server's view on its way)
                (waiting_on or [p for n, p in enumerate(pages) if n not in over])[
                    0
                ].wait_for_function(TURN_OR_OVER, arg=[CHOICE, MANAGE], timeout=WAIT)
        played = time.monotonic()

        for page in pages:
            assert "Game over" in page.locator("#am-part-status").inner_text()
            assert page.locator(".am-choices button").count() == 0
        browser.close()
    for number in range(TABLES):
        assert RoomTable(rooms, code, number).game.over, number
    assert not any(found.values()), "\n".join(
        f"{where}: {line}" for where, lines in found.items() for line in lines
    )
    assert errors == []
    print(
        f"\n30 phones: joined in {joined - began:.1f} s, {presses} presses played in "
        f"{played - joined:.1f} s, {time.monotonic() - began:.1f} s in all"
    )


def press_first(page, manage: bool = False):
    """Press the phone's first choice (a real click); with `manage`, its only choices are in
    the build panel, which is opened first. The button pressed, or None if it went away."""
    try:
        if manage:
            panel = page.locator("details.am-manage")
            if not panel.evaluate("(el) => el.open"):
                panel.locator("summary").click(timeout=WAIT)
            handle = page.locator(MANAGE).first.element_handle(timeout=WAIT)
        else:
            handle = page.locator(CHOICE).first.element_handle(timeout=WAIT)
        handle.click(timeout=WAIT)
    except PlaywrightError as err:
        if "not attached" in str(err) or "detached" in str(err):
            return None
        raise
    return handle
