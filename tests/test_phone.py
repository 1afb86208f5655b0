"""Class play on a 390x844 phone (issues 22 and 36): a student plays a whole two-hour game on the
light page a join link opens (`amteach dashboard --rooms`, no kernel: amteach/serving/phones.py)
in Chromium, through a reload, a pause, *Time is up* and the final accounting to *Game over*. At
each moment the test measures what is drawn: the computed size of every piece of visible type (16
px and more), every box inside the screen's width, no text cut, every button and panel heading a
finger wide (44 px), the sections in the order a student needs them (their choices, what just
happened, their cash and titles, the board), each seat's pawn with initials and a shape of its
own, choices only on the student's own turn, no build or trade panels once the game is over, and
no engine words anywhere. Any console error fails.

`tests/phone_screenshots.py` runs the same game and keeps the screenshots for docs/img/."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from playwright.sync_api import Error as PlaywrightError

from amteach.engine.game import Game
from amteach.render import board_html
from amteach.rooms import RoomSettings, open_rooms
from amteach.rooms.phone_view import HAPPENED_LINES, PARTS
from amteach.session import Session
from amteach.style import PAWN_CLIPS, pawn_initials, pawn_shapes

SHOTS = Path(__file__).resolve().parents[1] / "test-output" / "browser"
WAIT = 180_000  # ms: the machine is shared and busy
PHONE = {"width": 390, "height": 844}
MIN_TYPE_PX = 16
MIN_TARGET_PX = 44  # a finger's width: buttons and the panels' headings
# a long name with no place to break it (24 characters is the most a name may have)
LONG_NAME = "Wolfeschlegelsteinhause"
# the engine's names for the moments of a turn, which no screen may show
ENGINE_WORDS = re.compile(
    r"pre[ _]roll|post[ _]roll|final[ _]adjust|trade[ _]answer|income_tax|end_game|rule25"
    r"|\b[a-z]+_[a-z]+\b",
    re.IGNORECASE,
)
# the light page's parts (amteach/rooms/phone_view.py)
STATUS = "#am-part-status"
CHOICE = ".am-choices button.am-choice:not([aria-disabled=true])"
PANEL = "details.am-panel"

# What is drawn on the phone, measured in the page: boxes past the right edge, visible type
# under 16 px, boxes whose text is wider than the box (cut or spilling out), and buttons or
# panel headings smaller than a finger. Text kept for screen readers only (.am-visually-hidden,
# the live region) is not drawn and not measured.
MEASURE = r"""([minPx, minTarget]) => {
  const width = document.documentElement.clientWidth;
  const out = {width, scrollWidth: document.documentElement.scrollWidth, wide: [], small: [],
               cut: [], targets: []};
  const name = (el) => (el.className && el.className.baseVal === undefined ? el.className : '')
    + ' "' + (el.innerText || el.textContent || '').trim().slice(0, 40) + '"';
  const unseen = (el) => el.closest('.am-visually-hidden, style, script');
  for (const el of document.body.querySelectorAll('*')) {
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    if (unseen(el) || !el.checkVisibility()) continue;
    if (box.right > width + 0.5) out.wide.push(name(el) + ' right=' + Math.round(box.right));
    if (el.matches('button, summary') && (box.height < minTarget || box.width < minTarget))
      out.targets.push(name(el) + ' ' + Math.round(box.width) + 'x' + Math.round(box.height));
    const text = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!text) continue;
    if (parseFloat(style.fontSize) < minPx) out.small.push(name(el) + ' ' + style.fontSize);
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
      out.cut.push(name(el) + ' ' + el.scrollWidth + '>' + el.clientWidth);
  }
  // a word split over two lines ("her" / "e") is cut too: each word's boxes on one line (a
  // line may end at a hyphen or a slash: "Anti-" / "Monopoly" is a word's own break)
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || unseen(parent) || !parent.checkVisibility()) continue;
    for (const word of node.textContent.matchAll(/[^\s\-\u2013\u2014/]+/g)) {
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0)
        .map((r) => Math.round(r.bottom)));
      if (lines.size > 1) out.cut.push(name(parent) + ': "' + word[0] + '" split over two lines');
    }
  }
  return out;
}"""

PAWNS = """() => [...document.querySelectorAll('.am-ph-players .am-pawn')].map((pawn) => ({
  text: pawn.innerText.trim(),
  shape: pawn.dataset.shape,
  clip: getComputedStyle(pawn, '::before').clipPath,
  fill: getComputedStyle(pawn, '::before').backgroundImage + getComputedStyle(pawn, '::before').backgroundColor,
}))"""

# Choices only on the student's own turn: the page notes every redraw whose status names
# another player's turn (or no turn of the student's) while a choice button is on screen.
WATCH_TURNS = r"""() => {
  window.amWrongTurns = [];
  const seat = document.getElementById('am-seat');
  new MutationObserver(() => {
    const status = document.querySelector('#am-part-status')?.innerText || '';
    const buttons = document.querySelectorAll('.am-choices button.am-choice').length;
    if (buttons && !/Your turn|after your choice/.test(status))
      window.amWrongTurns.push(status.replace(/\s+/g, ' ') + ' with ' + buttons + ' choices');
  }).observe(seat, {childList: true, subtree: true});
}"""

# the sections, in the order a student reads them (the choices' place is kept while empty)
SECTIONS = (
    STATUS,
    "#am-part-choices",
    ".am-heading:text('What happened')",
    ".am-happened",
    ".am-ph-mine",
    ".am-ph-reach",
    ".am-ph-players",
)


def assert_reads_on_a_phone(page, moment: str) -> None:
    """Everything on screen at `moment` reads at 390 px and is a finger wide, with no engine
    words."""
    seen = page.evaluate(MEASURE, [MIN_TYPE_PX, MIN_TARGET_PX])
    assert seen["scrollWidth"] <= seen["width"], (moment, seen["scrollWidth"], seen["wide"][:5])
    assert seen["wide"] == [], (moment, seen["wide"][:10])
    assert seen["small"] == [], (moment, seen["small"][:10])
    assert seen["cut"] == [], (moment, seen["cut"][:10])
    assert seen["targets"] == [], (moment, seen["targets"][:10])
    text = page.locator("body").inner_text()
    assert not ENGINE_WORDS.search(text), (moment, ENGINE_WORDS.search(text).group(0))


def assert_sections_in_order(page) -> None:
    # what just happened: the newest lines, on the page itself (no box of its own to scroll)
    lines = page.locator(".am-happened li:visible").count()
    assert 1 <= lines <= HAPPENED_LINES, lines
    assert page.locator(".am-happened").evaluate("(el) => el.scrollHeight <= el.clientHeight + 1")
    tops = []
    for selector in SECTIONS:
        found = page.locator(selector).first
        found.wait_for(state="attached", timeout=WAIT)
        tops.append(found.bounding_box()["y"])
    assert tops == sorted(tops), list(zip(SECTIONS, tops, strict=True))


def assert_pawns_differ(page, seats: int) -> None:
    pawns = page.evaluate(PAWNS)
    assert len(pawns) == seats
    assert len({p["text"] for p in pawns}) == seats, pawns  # initials
    assert len({p["shape"] for p in pawns}) == seats, pawns
    assert len({p["clip"] for p in pawns}) == seats, pawns  # the shapes as drawn
    for pawn in pawns:
        assert pawn["clip"] not in ("", "none"), pawn
    # each seat's role in words beside its pawn (never the colour alone)
    words = page.locator(".am-ph-players li").all_inner_texts()
    assert all(re.search(r"(Competitor|Monopolist)", w) for w in words), words


def scroll_to(page, selector: str) -> None:
    """Scroll the page to put `selector` at the top."""
    page.locator(selector).first.evaluate("(el) => el.scrollIntoView({block: 'start'})")


def status(page) -> str:
    return page.locator(STATUS).inner_text()


def wait_for_status(page, pattern: str) -> None:
    page.wait_for_function(
        "(p) => new RegExp(p).test(document.querySelector('#am-part-status')?.innerText || '')",
        arg=pattern,
        timeout=WAIT,
    )


def panels_shown(page) -> int:
    return page.locator(f"{PANEL}:visible").count()


def my_turn_or_over(page) -> bool:
    """Waits until the student has choices or the game is over; True if it is over."""
    page.wait_for_function(
        """(choice) => document.querySelector(choice)
           || /Game over/.test(document.querySelector('#am-part-status')?.innerText || '')""",
        arg=CHOICE,
        timeout=WAIT,
    )
    return "Game over" in status(page)


def choose_first(page) -> str:
    """Press the student's first choice and wait until the page has taken it; "" if the
    choices went away first (a bot moved, the clock ran out)."""
    button = page.locator(CHOICE).first.element_handle(timeout=WAIT)
    label = button.inner_text()
    try:
        button.click(timeout=WAIT)
    except PlaywrightError as err:
        if "not attached" not in str(err):
            raise
        return ""
    button.wait_for_element_state("hidden", timeout=WAIT)  # choices are redrawn
    return label


def look_into_panels(page, shots: Path, seen: set[str]) -> None:
    """Open each build or trade panel not seen yet (a tap on its heading), measure it open,
    keep a screenshot, and close it again."""
    for panel in page.locator(f"{PANEL}:visible").all():
        heading = panel.locator("summary")
        title = heading.inner_text().strip()
        if title in seen:
            continue
        seen.add(title)
        heading.click()
        page.wait_for_function("(el) => el.open", arg=panel.element_handle(), timeout=WAIT)
        assert_reads_on_a_phone(page, f"the panel {title!r} open")
        kind = "build" if "Build" in title else "trade"
        panel.evaluate("(el) => el.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(shots / f"phone-panel-{kind}.png"))
        heading.click()
        page.wait_for_function("(el) => !el.open", arg=panel.element_handle(), timeout=WAIT)
        scroll_to(page, "body")


def play_a_game_on_a_phone(shots: Path, browser, server, student: str = LONG_NAME) -> list[str]:
    """A student (by default with a long name) plays at a table of three (two bots, "Bot 2" and
    "Bot 3") on a 390x844 phone, in a room of its own on `server` (served with a class
    database, `server.database`), in `browser`: some turns (until the build and trade panels
    have both been shown), a reload of the page, a pause, Time is up, the final accounting and
    Game over; every moment is measured. Returns the console errors; screenshots go to
    `shots`."""
    shots.mkdir(parents=True, exist_ok=True)
    rooms = open_rooms(server.database)
    seats = 3
    code = rooms.create(
        RoomSettings(tables=1, seats=seats, ending="two-hour", minutes=60, bot_delay=0, seed=5)
    )
    errors: list[str] = []
    page = browser.new_page(viewport=PHONE)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server.url}?room={code}", timeout=WAIT)
    page.get_by_placeholder("first name").wait_for(timeout=WAIT)
    assert page.get_by_label("Room code").input_value() == code
    assert_reads_on_a_phone(page, "the join form")
    page.get_by_placeholder("first name").fill(student)
    page.get_by_role("button", name="Join").click()
    page.get_by_text(f"Welcome, {student}").wait_for(timeout=WAIT)
    # the form goes with the seat: the student sees their table, not the form again
    assert page.get_by_placeholder("first name").is_hidden()
    wait_for_status(page, "Waiting for your teacher")
    assert_reads_on_a_phone(page, "the lobby")
    page.evaluate(WATCH_TURNS)
    rooms.start(code)

    # some turns of the game, each measured at the student's choice
    # (until both the build and the trade panel were on screen and measured too)
    turns, panels, reloaded, refused = 0, set(), False, False
    while turns < 4 or (len(panels) < 2 and turns < 15):
        assert not my_turn_or_over(page)
        wait_for_status(page, "Your turn")
        assert_reads_on_a_phone(page, f"turn {turns}")
        assert_sections_in_order(page)
        assert_pawns_differ(page, seats)
        look_into_panels(page, shots, panels)
        if turns == 0:
            # what just happened is on the first screen, under the student's choices
            happened = page.locator(".am-heading", has_text="What happened").bounding_box()
            assert happened["y"] + happened["height"] <= PHONE["height"], happened
            page.screenshot(path=str(shots / "phone-your-turn.png"))
            scroll_to(page, ".am-ph-reach")
            page.screenshot(path=str(shots / "phone-around-your-pawn.png"))
            scroll_to(page, "body")
        if turns == 2 and not reloaded:
            # a reload (the phone's browser dropped the page): back to the same seat, at
            # the same moment, with the same choices
            reloaded = True
            before = page.locator(CHOICE).all_inner_texts()
            page.reload(timeout=WAIT)
            page.get_by_text(f"Welcome back, {student}").wait_for(timeout=WAIT)
            assert page.get_by_placeholder("first name").is_hidden()
            wait_for_status(page, "Your turn")
            page.locator(CHOICE).first.wait_for(timeout=WAIT)
            assert page.locator(CHOICE).all_inner_texts() == before
            page.evaluate(WATCH_TURNS)
            continue
        if turns == 1 and not refused:
            # a press the server refuses (its button for an earlier moment: here its
            # decision number changed in the page) gets one line, and the same choices
            # can be pressed again (the page dims them while a choice is on its way)
            refused = True
            button = page.locator(CHOICE).first.element_handle(timeout=WAIT)
            at = button.get_attribute("data-at")
            button.evaluate("(b) => b.setAttribute('data-at', '0')")
            button.click()
            line = page.locator("#am-message", has_text="earlier moment")
            line.wait_for(timeout=WAIT)
            assert "\n" not in line.inner_text().strip()
            page.wait_for_function(
                "(b) => b.isConnected && !b.hasAttribute('aria-disabled')",
                arg=button,
                timeout=WAIT,
            )
            button.evaluate("(b, at) => b.setAttribute('data-at', at)", at)
            continue
        if choose_first(page).startswith("Roll"):
            turns += 1

    assert refused
    assert panels == {"Build, sell or mortgage", "Propose a trade"}

    # Paused: no choices and no panels, and the page says so
    rooms.pause(code)
    wait_for_status(page, "Paused")
    assert page.locator(".am-choices button").count() == 0 and panels_shown(page) == 0
    assert_reads_on_a_phone(page, "paused")
    rooms.resume(code)
    wait_for_status(page, "^(?![\\s\\S]*Paused)")

    # Time is up: every device says so at once, but the choice in play is still made (a
    # trade stays open to it, as the engine says); then the final accounting (its choice
    # is Done adjusting), in plain words, with no trade panel; then Game over
    rooms.time_is_up(code)
    wait_for_status(page, "Time is up|Game over")
    saw_accounting = False
    while not my_turn_or_over(page):
        if page.locator(CHOICE, has_text="Done adjusting").count():
            # the status comes with the choices in one redraw: once it says so, they are set
            wait_for_status(page, "Time is up: the final accounting")
            assert page.locator("details.am-trade").count() == 0
            assert_reads_on_a_phone(page, "the final accounting")
            if not saw_accounting:
                page.screenshot(path=str(shots / "phone-time-is-up.png"))
            saw_accounting = True
        # the choices can be redrawn between the look above and this press: a press of
        # Done adjusting is the final accounting seen too
        if choose_first(page).startswith("Done adjusting"):
            saw_accounting = True
    assert saw_accounting
    # Game over: what the page offers changes (no choices, no build or trade panels)
    assert page.locator(".am-choices button").count() == 0 and panels_shown(page) == 0
    assert "Game over" in status(page)
    assert_reads_on_a_phone(page, "game over")
    assert_sections_in_order(page)
    assert_pawns_differ(page, seats)
    # choices came only on the student's own turn, at every redraw of the game
    assert page.evaluate("window.amWrongTurns") == []
    scroll_to(page, "body")
    page.screenshot(path=str(shots / "phone-game-over.png"))
    return errors


def test_a_student_plays_a_whole_game_on_a_390_px_phone(class_server, browser):
    assert play_a_game_on_a_phone(SHOTS, browser, class_server) == []


# -- pawns: initials and shapes of their own at every table ------------------------------------
NAMES = st.text(alphabet=st.sampled_from("ABbenoOt 12-é"), min_size=1, max_size=8).filter(
    lambda n: n.strip()
)


@given(st.lists(NAMES, min_size=2, max_size=6))
def test_pawn_initials_differ_at_a_table(names):
    initials = pawn_initials(names)
    assert len(set(initials)) == len(names)
    assert all(1 <= len(i) <= 3 for i in initials)


def test_pawn_initials_are_one_letter_unless_two_names_share_it():
    assert pawn_initials(["Ana", "Ben", "Cleo"]) == ["A", "B", "C"]
    assert pawn_initials(["Ana", "Ben", "Bo"]) == ["A", "Be", "Bo"]
    assert pawn_initials(["Ben", "Bot 2", "Bot 3"]) == ["B", "B2", "B3"]
    assert pawn_initials(["Ben", "Bea", "Cleo"]) == ["B", "B2", "C"]


@given(st.lists(st.sampled_from([0, 1]), min_size=2, max_size=6))
def test_every_seat_has_a_pawn_shape_of_its_own(roles):
    shapes = pawn_shapes(roles)
    assert len(set(shapes)) == len(roles)
    assert all(shape in PAWN_CLIPS for shape in shapes)
    # a role's first seat keeps the role's own shape
    assert shapes[roles.index(roles[0])] == ("circle", "square")[roles[0]]


def test_two_pawns_of_one_role_and_one_initial_differ_on_the_board():
    """The issue's two blue "B" pawns: Ben and Bea, both Monopolists, at one table."""
    seats = [
        ("Ana", "competitor", "investor"),
        ("Ben", "monopolist", "investor"),
        ("Cleo", "competitor", "investor"),
        ("Bea", "monopolist", "investor"),
    ]
    game: Game = Session(seats, seed=2).game
    html = str(board_html(game))
    pawns = re.findall(r'class="am-pawn[^"]*" data-shape="(\w+)"[^>]*>([^<]+)</span>', html)
    # all four stand on START: each pawn once on the board (and again in the players table)
    assert list(dict.fromkeys(pawns)) == [
        ("circle", "A"),
        ("square", "B"),
        ("diamond", "C"),
        ("hexagon", "B2"),
    ]


# -- the student's page without a browser: every moment of a whole game in plain words ---------
def test_every_moment_of_a_game_on_the_light_page_is_told_in_plain_words(tmp_path):
    """The same game for the light page (what the server sends a phone, `phone_view` through
    the `Hub`): every part of every view in plain words; the build and trade panels only on
    the student's own turn while playing, no trade in the final accounting, nothing to press
    while paused or after Game over."""
    from phone_client import HubPhone
    from served import narration_text
    from test_hub import Clock

    from amteach.rooms.hub import Hub

    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    code = rooms.create(
        RoomSettings(tables=1, seats=2, ending="two-hour", minutes=60, bot_delay=0, seed=8)
    )
    clock = Clock()
    hub = Hub(rooms, clock=clock)
    ana = HubPhone(hub, "Ana")
    ana.send(type="hello", room=code)
    ana.send(type="join", room=code, name="Ana")
    rooms.start(code)
    hub.heard(None)
    states, seen = set(), set()
    try:
        for step in range(3000):
            clock.now += 1
            hub.tick()
            parts = ana.parts
            words = " ".join(narration_text(parts.get(part, "")) for part in PARTS)
            assert not ENGINE_WORDS.search(words), (step, ENGINE_WORDS.search(words).group(0))
            panels = parts.get("manage", "") + parts.get("trade", "")
            status_text = narration_text(parts.get("status", ""))
            if "Game over" in status_text:
                states.add("over")
                assert ana.buttons() == [] and panels == ""
                break
            if step == 40:
                rooms.pause(code)
                hub.heard(code)
                hub.tick()
                assert "Paused" in narration_text(ana.parts["status"])
                assert ana.buttons() == [] and ana.parts["manage"] + ana.parts["trade"] == ""
                states.add("paused")
                rooms.resume(code)
                hub.heard(code)
                continue
            if step == 150:
                rooms.time_is_up(code)
                hub.heard(code)
            if "final accounting" in status_text and "Your turn" in status_text:
                states.add("time is up")
                assert parts["trade"] == ""
            # the student's moment: their turn, or the choice in play when time ran out
            if "Your turn" in status_text or "after your choice" in status_text:
                seen.update(part for part in ("manage", "trade") if parts.get(part))
                ana.press_first()
            else:
                assert ana.buttons() == [] and panels == "", status_text
    finally:
        hub.close()
    assert states == {"paused", "time is up", "over"}
    assert seen == {"manage", "trade"}


def test_a_seats_news_keeps_the_buttons_a_finger_is_on_its_way_to(tmp_path):
    """A redraw for news that changes no choice (another seat handed to a bot) sends no new
    buttons: the very buttons stay on screen; once a decision is made, a button pressed again
    is refused as stale."""
    from phone_client import HubPhone

    from amteach.rooms.hub import Hub

    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    code = rooms.create(RoomSettings(tables=1, seats=2, ending="A", round_cap=5, seed=3))
    hub = Hub(open_rooms(str(tmp_path / "class.sqlite")))
    try:
        ana, ben = HubPhone(hub, "Ana"), HubPhone(hub, "Ben")
        for phone, name in ((ana, "Ana"), (ben, "Ben")):
            phone.send(type="join", room=code, name=name)
            assert phone.phone.seat is not None, phone.lines()
        rooms.start(code)
        hub.heard(None)
        hub.tick()
        first = ana if ana.buttons() else ben
        other = ben if first is ana else ana
        before = first.buttons()
        assert before
        sent = len(first.received)
        rooms.set_playing(code, 0, other.phone.seat.seat, "bot")
        hub.heard(code)
        hub.tick()
        table = hub.tables[(code, 0)].table
        assert table.controller(other.phone.seat.seat) != "human"  # the news arrived
        news = [m for m in first.received[sent:] if m["type"] == "view"]
        assert all("choices" not in m["parts"] for m in news)  # the same buttons stay
        assert first.buttons() == before
        decisions = len(table.game.decisions)
        choice, at, _ = before[0]
        first.send(type="choose", choice=choice, at=at)
        assert len(table.game.decisions) >= decisions + 1
        taken = len(rooms.decisions(code, 0))
        first.send(type="choose", choice=choice, at=at)  # the same, now stale, button again
        assert len(rooms.decisions(code, 0)) == taken
        assert "earlier moment" in first.lines()[-1]
    finally:
        hub.close()


def test_the_teachers_move_qr_code_gives_the_seat_to_the_phone_that_scans_it(class_server, browser):
    """Move to a new device (issue 36): the Class tab's QR code is the join link with the
    one-time code (`&move=`); the phone that opens it takes the seat, with nothing to type."""
    server = class_server
    rooms = open_rooms(server.database)
    code = rooms.create(RoomSettings(tables=1, seats=2, ending="A", round_cap=5, seed=2))
    ana = rooms.join(code, "Ana")
    move = rooms.move_seat(code, ana.table, ana.seat)
    errors: list[str] = []
    page = browser.new_page(viewport=PHONE)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{server.url}?room={code}&move={move}", timeout=WAIT)
    page.get_by_text("Welcome back, Ana").wait_for(timeout=WAIT)
    assert page.get_by_placeholder("first name").is_hidden()
    # the welcome and the status are parts of the view, drawn one after the other
    wait_for_status(page, "Waiting for your teacher")
    # the old phone's token no longer holds the seat, and the code worked once
    assert not rooms.holds(ana)
    other = browser.new_page(viewport=PHONE)
    other.goto(f"{server.url}?room={code}&move={move}", timeout=WAIT)
    other.get_by_text("does not open any seat").wait_for(timeout=WAIT)
    assert other.get_by_placeholder("first name").is_visible()
    assert errors == []


# every heading drawn on the page, in order (role=heading too)
HEADINGS = """() => [...document.querySelectorAll('h1,h2,h3,h4,h5,h6,[role=heading]')]
  .filter((h) => h.offsetParent !== null).map((h) => h.innerText.trim())"""


def test_the_join_form_has_one_heading_and_the_seat_the_games_name(class_server, browser):
    """Issue 39: the join form showed its heading twice (the page's "Anti-Monopoly" and the
    form's "Join your class", one above the other). The form now has one heading, which names
    it; once seated the page's heading is the game's name again, above the seat's own."""
    server = class_server
    rooms = open_rooms(server.database)
    code = rooms.create(RoomSettings(tables=1, seats=2, ending="A", round_cap=5, seed=2))
    errors: list[str] = []
    page = browser.new_page(viewport=PHONE)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{server.url}?room={code}", timeout=WAIT)
    page.get_by_placeholder("first name").wait_for(timeout=WAIT)
    assert page.evaluate(HEADINGS) == ["Anti-Monopoly: join your class"]
    # the form is named by that heading for a screen reader
    assert page.get_by_role("form", name="Anti-Monopoly: join your class").is_visible()
    page.get_by_placeholder("first name").fill("Ana")
    page.get_by_role("button", name="Join").click()
    page.get_by_text("Welcome, Ana").wait_for(timeout=WAIT)
    shown = page.evaluate(HEADINGS)
    assert shown[0] == "Anti-Monopoly"
    assert not any("join" in heading.lower() for heading in shown), shown
    assert errors == []
