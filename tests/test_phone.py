"""Class play on a 390x844 phone (issue 22): a student plays a whole two-hour game on the student
page of `amteach dashboard --rooms` in Chromium, through a pause, *Time is up* and the final
accounting to *Game over*. At each moment the test measures what is drawn: the computed size of
every piece of visible type (16 px and more), every box inside the screen's width, no text cut,
the sections in the order a student needs them (their choices, what just happened, their cash
and titles, the board), each seat's pawn with initials and a shape of its own, no build or
trade panels once the game is over, and no engine words anywhere. Any console error fails.

`tests/phone_screenshots.py` runs the same game and keeps the screenshots for docs/img/."""

from __future__ import annotations

import re
from pathlib import Path

from browser import launch_chromium, serve_dashboard
from hypothesis import given
from hypothesis import strategies as st
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from amteach.engine.game import Game
from amteach.rooms import ROOMS_ENV, RoomSettings, open_rooms
from amteach.session import Session
from amteach.style import PAWN_CLIPS, pawn_initials, pawn_shapes

SHOTS = Path(__file__).resolve().parents[1] / "test-output" / "browser"
WAIT = 180_000  # ms: the machine is shared and busy
PHONE = {"width": 390, "height": 844}
MIN_TYPE_PX = 16
# a long name with no place to break it (24 characters is the most a name may have)
LONG_NAME = "Wolfeschlegelsteinhause"
# the engine's names for the moments of a turn, which no screen may show
ENGINE_WORDS = re.compile(
    r"pre[ _]roll|post[ _]roll|final[ _]adjust|trade[ _]answer|income_tax|end_game|rule25"
    r"|\b[a-z]+_[a-z]+\b",
    re.IGNORECASE,
)

# What is drawn on the phone, measured in the page: boxes past the right edge, visible type
# under 16 px, and boxes whose text is wider than the box (cut or spilling out).
MEASURE = r"""(minPx) => {
  const width = document.documentElement.clientWidth;
  const out = {width, scrollWidth: document.documentElement.scrollWidth, wide: [], small: [], cut: []};
  const name = (el) => (el.className && el.className.baseVal === undefined ? el.className : '')
    + ' "' + (el.innerText || el.textContent || '').trim().slice(0, 40) + '"';
  for (const el of document.body.querySelectorAll('*')) {
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    if (el.closest('[style*="display: none"], .widget-play, style, script')) continue;
    if (box.right > width + 0.5) out.wide.push(name(el) + ' right=' + Math.round(box.right));
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
    if (!parent || parent.closest('style, script') || !parent.checkVisibility()) continue;
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

# the sections, in the order a student reads them
SECTIONS = (
    ".am-student-status",
    ".am-choices",
    ".am-ph-heading:text('What happened')",
    ".am-narration",
    ".am-ph-mine",
    ".am-ph-reach",
    ".am-ph-players",
)


def assert_reads_on_a_phone(page, moment: str) -> None:
    """Everything on screen at `moment` reads at 390 px, with no engine words."""
    seen = page.evaluate(MEASURE, MIN_TYPE_PX)
    assert seen["scrollWidth"] <= seen["width"], (moment, seen["scrollWidth"], seen["wide"][:5])
    assert seen["wide"] == [], (moment, seen["wide"][:10])
    assert seen["small"] == [], (moment, seen["small"][:10])
    assert seen["cut"] == [], (moment, seen["cut"][:10])
    text = page.locator("body").inner_text()
    assert not ENGINE_WORDS.search(text), (moment, ENGINE_WORDS.search(text).group(0))


def assert_sections_in_order(page) -> None:
    # what just happened: the newest lines, on the page (no box to scroll)
    lines = page.locator(".am-narration .widget-html-content > div:visible").count()
    assert 1 <= lines <= 6, lines
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


def scroll_to(page, selector: str) -> None:
    """Scroll the page (Voila scrolls a box, not the window) to put `selector` at the top."""
    page.locator(selector).first.evaluate("(el) => el.scrollIntoView({block: 'start'})")


def status(page) -> str:
    return page.locator(".am-student-status").inner_text()


def wait_for_status(page, pattern: str) -> None:
    page.wait_for_function(
        "(p) => new RegExp(p).test(document.querySelector('.am-student-status')?.innerText || '')",
        arg=pattern,
        timeout=WAIT,
    )


def panels_shown(page) -> int:
    return page.locator(".am-phone-panel:visible").count()


def my_turn_or_over(page) -> bool:
    """Waits until the student has choices or the game is over; True if it is over."""
    page.wait_for_function(
        """() => document.querySelector('.am-choices button')
           || /Game over/.test(document.querySelector('.am-student-status')?.innerText || '')""",
        timeout=WAIT,
    )
    return "Game over" in status(page)


def choose_first(page) -> str:
    """Press the student's first choice and wait until the page has taken it; "" if the
    choices went away first (a bot moved, the clock ran out)."""
    button = page.locator(".am-choices button").first.element_handle(timeout=WAIT)
    label = button.inner_text()
    try:
        button.click(timeout=WAIT)
    except PlaywrightError as err:
        if "not attached" not in str(err):
            raise
        return ""
    button.wait_for_element_state("hidden", timeout=WAIT)  # choices are redrawn
    return label


def play_a_game_on_a_phone(shots: Path, tmp_path: Path, student: str = LONG_NAME) -> list[str]:
    """A student (by default with a long name) plays at a table of three (two bots, "Bot 2" and "Bot 3") on a
    390x844 phone: some turns (until the build and trade panels have both been shown), a pause,
    Time is up, the final accounting and Game over; every moment is measured. Returns the
    console errors; screenshots go to `shots`."""
    shots.mkdir(parents=True, exist_ok=True)
    database = str(tmp_path / "class.sqlite")
    rooms = open_rooms(database)
    seats = 3
    code = rooms.create(
        RoomSettings(tables=1, seats=seats, ending="two-hour", minutes=60, bot_delay=0, seed=5)
    )
    errors: list[str] = []
    with serve_dashboard(pool=1, env={ROOMS_ENV: database}) as server, sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = browser.new_page(viewport=PHONE)
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{server.url}?room={code}", timeout=WAIT)
        page.get_by_placeholder("first name").wait_for(timeout=WAIT)
        assert_reads_on_a_phone(page, "the join form")
        page.get_by_placeholder("first name").fill(student)
        page.get_by_role("button", name="Join").click()
        page.get_by_text(f"Welcome, {student}").wait_for(timeout=WAIT)
        rooms.start(code)

        # some turns of the game, each measured at the student's choice
        # (until both the build and the trade panel were on screen and measured too)
        turns, panels = 0, set()
        while turns < 4 or (len(panels) < 2 and turns < 15):
            assert not my_turn_or_over(page)
            wait_for_status(page, "Your turn")
            assert_reads_on_a_phone(page, f"turn {turns}")
            assert_sections_in_order(page)
            assert_pawns_differ(page, seats)
            for panel in page.locator(".am-phone-panel:visible .am-ph-heading").all():
                if panel.inner_text() not in panels:
                    panels.add(panel.inner_text())
                    name = panel.inner_text().split(",")[0].lower()
                    scroll_to(page, ".am-phone-panel:visible >> nth=-1")
                    page.screenshot(path=str(shots / f"phone-panel-{name}.png"))
                    scroll_to(page, "body")
            if turns == 0:
                # what just happened is on the first screen, under the student's choices
                happened = page.locator(".am-ph-heading", has_text="What happened").bounding_box()
                assert happened["y"] + happened["height"] <= PHONE["height"], happened
                page.screenshot(path=str(shots / "phone-your-turn.png"))
                scroll_to(page, ".am-ph-reach")
                page.screenshot(path=str(shots / "phone-around-your-pawn.png"))
                scroll_to(page, "body")
            if choose_first(page).startswith("Roll"):
                turns += 1

        assert panels == {"Build, sell or mortgage", "Trade"}

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
            if page.locator(".am-choices button", has_text="Done adjusting").count():
                # the status comes after the panels in one redraw: once it says so, they are set
                wait_for_status(page, "Time is up: the final accounting")
                assert page.locator(".am-phone-panel:visible", has_text="Trade").count() == 0
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
        scroll_to(page, "body")
        page.screenshot(path=str(shots / "phone-game-over.png"))
        browser.close()
    return errors


def test_a_student_plays_a_whole_game_on_a_390_px_phone(tmp_path):
    assert play_a_game_on_a_phone(SHOTS, tmp_path) == []


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
    html = str(game._repr_html_())
    pawns = re.findall(r'class="am-pawn[^"]*" data-shape="(\w+)"[^>]*>([^<]+)</span>', html)
    # all four stand on START: each pawn once on the board (and again in the players table)
    assert list(dict.fromkeys(pawns)) == [
        ("circle", "A"),
        ("square", "B"),
        ("diamond", "C"),
        ("hexagon", "B2"),
    ]


# -- the student's page without a browser: every moment of a whole game in plain words ---------
def page_words(page) -> str:
    """The words of every part of the student's page that is shown now."""
    from served import narration_text

    shown = [page.status, page.mine, page.board, page.players, page.narration.widget]
    return " ".join(narration_text(part.value) for part in shown) + " " + " ".join(page.buttons())


def test_every_moment_of_a_game_is_told_in_plain_words_and_panels_go_with_the_game(tmp_path):
    """Issue 22: "(pre roll)" on the status; build and trade panels after Game over."""
    from amteach.engine.terms import Phase
    from amteach.ui.play_panels import PHASE_WORDS
    from amteach.ui.student import StudentPage

    assert {str(phase) for phase in Phase} - {"over"} <= set(PHASE_WORDS)
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    code = rooms.create(
        RoomSettings(tables=1, seats=2, ending="two-hour", minutes=60, bot_delay=0, seed=8)
    )
    page = StudentPage(code, rooms)
    page.name.value = "Ana"
    assert page.join(), page.messages.widget.value
    rooms.start(code)
    phases, states = set(), set()
    for step in range(3000):
        page.follower.news.set()
        page.tick()
        game = page.table.game
        words = page_words(page)
        assert not ENGINE_WORDS.search(words), (game.phase, ENGINE_WORDS.search(words).group(0))
        panels = {
            "build": page.manage.widget.layout.display != "none",
            "trade": page.trade.widget.layout.display != "none",
        }
        if game.over:
            states.add("over")
            assert page.buttons() == {} and not any(panels.values())
            assert "Game over" in page.status.value
            break
        if step == 40:
            rooms.pause(code)
            page.follower.news.set()
            page.tick()
            assert "Paused" in page.status.value and page.buttons() == {}
            assert page.manage.widget.layout.display == "none"
            assert page.trade.widget.layout.display == "none"
            states.add("paused")
            rooms.resume(code)
            continue
        if step == 150:
            rooms.time_is_up(code)
        if game.phase == "final_adjust":
            states.add("time is up")
            assert "Time is up" in page.status.value and not panels["trade"]
        if game.actor == page.table.seat and page.buttons():
            phases.add(str(game.phase))
            assert "Your turn" in page.status.value
            page.buttons()[next(iter(page.buttons()))].click()
        elif game.actor != page.table.seat:
            assert not any(panels.values())  # another player's turn: not hers to use
    assert states == {"paused", "time is up", "over"}
    assert {"pre_roll", "post_roll", "final_adjust"} <= phases


def test_a_seats_news_keeps_the_buttons_a_finger_is_on_its_way_to(tmp_path):
    """A redraw for news that changes no choice (another seat handed to a bot) keeps the very
    buttons on screen; once a decision is made, a button pressed again is refused as stale."""
    from amteach.ui.student import StudentPage

    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    code = rooms.create(RoomSettings(tables=1, seats=2, ending="A", round_cap=5, seed=3))
    ana, ben = StudentPage(code, rooms), StudentPage(code, rooms)
    for page, name in ((ana, "Ana"), (ben, "Ben")):
        page.name.value = name
        assert page.join(), page.messages.widget.value
    rooms.start(code)
    for page in (ana, ben):
        page.follower.news.set()
        page.tick()
    first = ana if ana.buttons() else ben
    other = ben if first is ana else ana
    before = list(first.choices.children)
    assert before
    rooms.set_playing(code, 0, other.table.seat, "bot")
    first.follower.news.set()
    first.tick()
    assert first.table.controller(other.table.seat) != "human"  # the news arrived
    assert list(first.choices.children) == before  # the same buttons, not new ones
    decisions = len(first.table.game.decisions)
    before[0].click()
    assert len(first.table.game.decisions) == decisions + 1
    before[0].click()  # a second press of the same, now stale, button
    assert len(first.table.game.decisions) == decisions + 1
    assert "earlier moment" in first.messages.widget.value
