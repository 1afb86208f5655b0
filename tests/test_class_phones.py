"""A class of 30 phones on the light page (issue 36): 30 phones join one room of `amteach
dashboard --rooms` by its join link, 6 tables of 5 students and no bots. The games start (as the
instructor's Start does: `Rooms.start`; tests/test_class_browser.py drives the Class tab's
button) and every phone plays its whole Game A to "Game over", each on its own like a student:
it waits until it has a choice and presses the first one.

Six of the phones are Chromium contexts at 390x844 (each its own phone: its own cookies and
localStorage) in one browser, one at each table, pressing with real clicks; the other 24 speak
the phone protocol over a websocket each (tests/phone_client.py), as the light page does. The
server holds all 30 connections and the 441-odd decisions either way; what only a browser can
show is asserted on the six pages, whose page code, parts and style are the same for every
phone. (All 30 were Chromium pages until session 5: about 80 of the module's 100 CPU-seconds
were Chromium drawing the same view 30 times over.)

What a person sees is asserted: every phone says "Game over" (each page on screen, each protocol
phone in its status part) with no choice left, and every table's game is over in the class
database; no console error on any page and no error line to any phone; axe-core finds no
serious or critical WCAG 2.1 A/AA violation on the join form, in the lobby and mid-game; and one
student uses the keyboard alone: Tab into the name field, type, Enter to join; on their turn Tab
to a choice and press it with Enter (and, next turn, Space), and the decision is taken.

The phones are cheap: no kernel per phone (the server holds the games; the session's
`class_server` serves them), nothing to fetch but the page (no images, fonts or scripts), no
service workers, one page each, and asyncio so that 30 phones wait at once, each on its own
view changing, instead of being looked at one by one (it prints its times)."""

from __future__ import annotations

import asyncio
import html
import json
import time

from browser import CHROMIUM, CHROMIUM_ARGS, WAIT
from phone_client import BUTTON, Client
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import async_playwright
from test_accessibility import AXE, AXE_RUN

from amteach.rooms import RoomSettings, open_rooms
from amteach.rooms.table import RoomTable

PHONE = {"width": 390, "height": 844}
TABLES, SEATS = 6, 5
PAGES = TABLES  # phones in Chromium: one at each table (a newcomer takes the emptiest table)
CHOICE = ".am-choices button.am-choice:not([aria-disabled=true])"
MANAGE = ".am-manage button.am-choice:not([aria-disabled=true])"
# Until a phone's student can act ('choice'; 'manage' when raising money leaves only the build
# panel's choices, a mortgage) or their game is over ('over'): the page looks again whenever
# its seat's view changes (no polling: 30 waiting phones cost nothing until the server speaks)
TURN_OR_OVER = """([choice, manage]) => new Promise((resolve) => {
  const look = () => {
    const status = document.querySelector('#am-part-status')?.innerText || '';
    if (/Game over/.test(status)) return 'over';
    if (document.querySelector(choice)) return 'choice';
    if (document.querySelector(manage)) return 'manage';
    return '';
  };
  const now = look();
  if (now) return resolve(now);
  const watcher = new MutationObserver(() => {
    const found = look();
    if (found) { watcher.disconnect(); resolve(found); }
  });
  watcher.observe(document.getElementById('am-seat'),
    {childList: true, subtree: true, characterData: true, attributes: true});
})"""


def name_of(n: int) -> str:
    return f"Pupil{n + 1:02d}"


async def axe_violations(page) -> list[str]:
    """axe-core's serious and critical WCAG 2.1 A/AA violations (tests/test_accessibility.py's
    run) on the page as it is now."""
    assert AXE.is_file(), "axe-core is missing: ./dev test installs it (npm, tests/package.json)"
    if not await page.evaluate("() => typeof window.axe === 'object'"):
        await page.add_script_tag(path=str(AXE))
    return await page.evaluate(AXE_RUN)


async def focused(page) -> dict:
    return await page.evaluate(
        """() => { const el = document.activeElement;
          return {id: el.id, tag: el.tagName, cls: el.className || '',
                  text: (el.innerText || '').trim(), outline: getComputedStyle(el).outlineStyle}; }"""
    )


async def tab_to(page, matches, limit: int = 20) -> dict:
    """Press Tab until the focused element matches; fail after `limit` presses."""
    for _ in range(limit):
        await page.keyboard.press("Tab")
        now = await focused(page)
        if matches(now):
            return now
    raise AssertionError(f"Tab never reached the control (last: {await focused(page)})")


async def wait_to_act(page) -> str:
    """Wait until the phone's student can act or their game is over: 'choice', 'manage' or
    'over'."""
    return await asyncio.wait_for(page.evaluate(TURN_OR_OVER, [CHOICE, MANAGE]), WAIT / 1000)


async def press_first(page, where: str) -> bool:
    """Press the phone's first choice (a real click); with 'manage', its choices are in the
    build panel, opened first. The page dims its choices (aria-disabled) as it sends one, so
    the next wait_to_act waits for the server's redraw. False if the choices went away before
    the press."""
    try:
        if where == "manage":
            panel = page.locator("details.am-manage")
            if not await panel.evaluate("(el) => el.open"):
                await panel.locator("summary").click(timeout=WAIT)
            handle = await page.locator(MANAGE).first.element_handle(timeout=WAIT)
        else:
            handle = await page.locator(CHOICE).first.element_handle(timeout=WAIT)
        await handle.click(timeout=WAIT)
    except PlaywrightError as err:
        if "not attached" in str(err) or "detached" in str(err):
            return False
        raise
    return True


async def press_by_keyboard(page, rooms, code: str, table: int, key: str) -> str:
    """On the student's turn: from the top of the page, Tab to the first choice and press
    `key` on it; wait until the decision is taken (on the page and in the database)."""
    assert await wait_to_act(page) == "choice"
    before = len(rooms.decisions(code, table))
    await page.evaluate("() => { document.activeElement?.blur(); window.scrollTo(0, 0); }")
    now = await tab_to(page, lambda f: f["tag"] == "BUTTON" and "am-choice" in f["cls"])
    assert now["outline"] != "none", now  # the focus is seen
    button = await page.locator(":focus").element_handle()
    await page.keyboard.press(key)
    await button.wait_for_element_state("hidden", timeout=WAIT)  # the choices were redrawn
    assert len(rooms.decisions(code, table)) > before, now
    return now["text"]


async def student(page, keyboard: dict | None = None) -> int:
    """One student's whole game: whenever they can act, the first choice. The keyboard
    student (`keyboard`: the room and table) takes their first two decisions by Tab and
    Enter, then Tab and Space, with axe run once at the first. Returns the presses."""
    presses = 0
    keys = ["Enter", "Space"] if keyboard else []
    while (where := await wait_to_act(page)) != "over":
        if keys and where == "choice":
            if keys[0] == "Enter":
                keyboard["mid-game"] = await axe_violations(page)  # the choices on screen
            keyboard["pressed"].append(
                await press_by_keyboard(
                    page, keyboard["rooms"], keyboard["code"], keyboard["table"], keys.pop(0)
                )
            )
        elif await press_first(page, where):
            presses += 1
    return presses


async def protocol_student(phone: Client) -> int:
    """One student's whole game on a phone at the protocol level: whenever its view offers a
    choice (in the choices, or only in the build panel when raising money), the first one.
    Returns the presses."""
    presses = 0
    while "Game over" not in phone.parts.get("status", ""):
        found = BUTTON.search(phone.parts.get("choices", "")) or BUTTON.search(
            phone.parts.get("manage", "")
        )
        if found:
            choice, at = json.loads(html.unescape(found.group(1))), int(found.group(2))
            await phone.send(type="choose", choice=choice, at=at)
            phone.parts["choices"] = phone.parts["manage"] = ""  # pressed: the next view
            presses += 1
        message = await phone.read(timeout=WAIT / 1000)
        assert message is not None, f"the server closed the connection: {phone.messages[-3:]}"
    return presses


async def a_class_plays(url: str, rooms, code: str, phones: int) -> dict:
    found: dict[str, list[str]] = {}
    errors: list[str] = []
    times: dict[str, float] = {"began": time.monotonic()}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))

        async def phone(n: int):
            # the light page has no images, fonts or scripts to fetch (its icon is empty)
            context = await browser.new_context(viewport=PHONE, service_workers="block")
            page = await context.new_page()
            who = name_of(n)
            page.on(
                "console",
                lambda m: errors.append(f"{who}: {m.text}") if m.type == "error" else None,
            )
            page.on("pageerror", lambda error: errors.append(f"{who}: {error}"))
            await page.goto(f"{url}?room={code}", timeout=WAIT)
            await page.get_by_label("Your name").wait_for(timeout=WAIT)
            assert await page.get_by_label("Room code").input_value() == code
            return page

        pages = await asyncio.gather(*(phone(n) for n in range(PAGES)))
        times["opened"] = time.monotonic()

        # the first phone joins by keyboard alone: Tab into the name (past the room code the
        # link filled in), type, Enter; axe on its join form first
        keyboard = pages[0]
        found["join form"] = await axe_violations(keyboard)
        now = await tab_to(keyboard, lambda f: f["id"] == "am-name")
        assert now["outline"] != "none", now  # the focus is seen
        await keyboard.keyboard.type(name_of(0))
        await keyboard.keyboard.press("Enter")

        async def join(n: int, page) -> None:
            if n:
                await page.get_by_label("Your name").fill(name_of(n), timeout=WAIT)
                await page.get_by_role("button", name="Join").click(timeout=WAIT)
            await page.get_by_text(f"Welcome, {name_of(n)}").wait_for(timeout=WAIT)
            assert await page.get_by_label("Your name").is_hidden()

        await asyncio.gather(*(join(n, page) for n, page in enumerate(pages)))

        # the rest of the class, at the protocol level (joined after the pages, so each
        # page sits at a table of its own)
        async def join_by_protocol(n: int) -> Client:
            client = await Client(url).open()
            answer = await client.join(code, name_of(n))
            assert answer["type"] == "seated", answer
            return client

        clients = await asyncio.gather(*(join_by_protocol(n) for n in range(PAGES, phones)))
        # the lobby: each phone names its table and waits for the teacher
        await keyboard.get_by_text("Waiting for your teacher").wait_for(timeout=WAIT)
        found["lobby"] = await axe_violations(keyboard)
        for client in clients:
            while "Waiting for your teacher" not in client.parts.get("status", ""):
                assert await client.read(timeout=WAIT / 1000) is not None, client.messages[-3:]
        times["joined"] = time.monotonic()

        seats = {s.name: s.table for s in rooms.seats(code)}
        assert sorted(seats) == sorted(name_of(n) for n in range(phones))
        assert sorted(seats.values()) == sorted(t for t in range(TABLES) for _ in range(SEATS))
        assert sorted(seats[name_of(n)] for n in range(PAGES)) == list(range(TABLES))
        rooms.start(code)
        keys = {"rooms": rooms, "code": code, "table": seats[name_of(0)], "pressed": []}
        presses = await asyncio.gather(
            *(student(page, keys if n == 0 else None) for n, page in enumerate(pages)),
            *(protocol_student(client) for client in clients),
        )
        times["played"] = time.monotonic()
        found["mid-game"] = keys.pop("mid-game")
        assert len(keys["pressed"]) == 2 and all(keys["pressed"]), keys["pressed"]

        for page in pages:
            assert "Game over" in await page.locator("#am-part-status").inner_text()
            assert await page.locator(".am-choices button").count() == 0
            # and the whole page still fits the phone's width
            assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        for n, client in enumerate(clients, start=PAGES):
            assert "Game over" in client.parts["status"], name_of(n)
            assert not BUTTON.search(client.parts["choices"] + client.parts["manage"]), name_of(n)
            errors += [
                f"{name_of(n)}: {m['text']}" for m in client.messages if m.get("level") == "error"
            ]
            client.connection.close()
        await browser.close()
    return {"found": found, "errors": errors, "presses": sum(presses), "times": times}


def test_a_class_of_30_phones_plays_whole_games_on_the_light_page(class_server):
    rooms = open_rooms(class_server.database)
    code = rooms.create(
        RoomSettings(tables=TABLES, seats=SEATS, ending="A", round_cap=5, bot_delay=0, seed=11)
    )
    played = asyncio.run(a_class_plays(class_server.url, rooms, code, TABLES * SEATS))
    for number in range(TABLES):
        assert RoomTable(rooms, code, number).game.over, number
    found = played["found"]
    assert not any(found.values()), "\n".join(
        f"{where}: {line}" for where, lines in found.items() for line in lines
    )
    assert played["errors"] == []
    times = played["times"]
    print(
        f"\n30 phones: {PAGES} pages open in {times['opened'] - times['began']:.1f} s, joined "
        f"(with {TABLES * SEATS - PAGES} at the protocol level, and axe twice) in "
        f"{times['joined'] - times['opened']:.1f} s, {played['presses']} presses played in "
        f"{times['played'] - times['joined']:.1f} s"
    )
