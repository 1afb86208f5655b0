"""Accessibility (issue 25; docs/accessibility.md): WCAG 2.1 AA on the dashboard and the
student's page, checked the way a person who does not use a mouse or a screen would meet them.

- axe-core (npm, tests/package.json; ./dev test installs it) runs in Chromium on every
  dashboard tab after its batch has run, on the Class tab with a class open and on a student's
  page (the light page of a join link) before joining, in the lobby, during play and after the
  game: no serious or critical violation. The student plays by keyboard, and after each choice
  the focus stays in their seat's view and the newest event is in the live region.
- Lesson 1's moment A is played with the keyboard alone, reading the accessibility tree (what
  a screen reader reads): find the scenario, load it, hear the landing and the rent, end the
  turn.
- Tab goes through every tab's controls in reading order, each with a visible focus ring.
- Every chart has a text alternative and a "Show the data" table.
- Colours: contrast of the role colours, the city bars and the pawns; reduced motion; the Play
  tab at 200% zoom (a 640 x 360 CSS viewport) without sideways scrolling.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from browser import DASHBOARD_TABS as TABS
from browser import POLL, PROJECTOR, WAIT, type_games
from browser import watched_page as watched
from playwright.sync_api import Error as PlaywrightError

from amteach.content import scenarios_dir
from amteach.files import load_scenario_file
from amteach.render import CITY_COLOURS, board_html, space_words
from amteach.rooms import RoomSettings, new_key, open_rooms
from amteach.style import HIGHLIGHT_COLOUR, NEUTRAL_COLOUR, ROLE_COLOURS, ROLE_TONES

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = Path(__file__).resolve().parents[1] / "test-output" / "accessibility"
PHONE = {"width": 390, "height": 844}

# axe's WCAG 2.0 and 2.1, A and AA rules; only what a person is blocked by fails a test
AXE_RUN = """async () => {
  const result = await axe.run(document, {
    runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']},
    resultTypes: ['violations'],
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) at ${n.target.join(' ')}: ` +
      (n.failureSummary || '').replace(/\\s+/g, ' ')));
}"""


def axe_violations(page) -> list[str]:
    """axe-core's serious and critical WCAG 2.1 A/AA violations on the page as it is now."""
    assert AXE.is_file(), "axe-core is missing: ./dev test installs it (npm, tests/package.json)"
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(AXE_RUN)


def axe_report(found: dict[str, list[str]]) -> str:
    return "\n".join(f"{where}: {line}" for where, lines in found.items() for line in lines)


# the fixtures `dashboard_url` and `class_server` (served dashboards), `chromium` and `browser`
# are tests/conftest.py's


# the dashboard's page on show (its tabs are built when first opened)
SHOWN = ".am-pages > .widget-tab-contents > :not(.lm-mod-hidden)"


def open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click(timeout=WAIT)
    page.wait_for_function(
        "(shown) => { const page = document.querySelector(shown);"
        " return page && page.innerText.trim() !== 'Opening…'; }",
        arg=SHOWN,
        timeout=WAIT,
        polling=POLL,
    )


def run_batches(page) -> None:
    """Press Run on every batch of the tab that is open, one after the other, and wait for
    each one's charts (or its message). Each batch plays the Games slider's least, 50 games
    (typed in its readout, as a teacher does), not its 100 to 200 (a sweep's for each of its
    values): what these tests read is the page a batch leaves (its charts, their text
    alternatives and data tables, axe on all of it), drawn the same for 50 games as for
    200, and the games were most of the module's work."""
    panels = page.locator(f"{SHOWN}.am-batch:visible, {SHOWN} .am-batch:visible")
    for i in range(panels.count()):
        panel = panels.nth(i)
        shown = panel.locator(".am-data").count()
        type_games(page, panel, 50)
        panel.get_by_role("button", name="Run", exact=True).click()
        panel.page.wait_for_function(
            "([panel, shown]) => panel.querySelectorAll('.am-data').length > shown"
            " || panel.innerText.includes('The batch stopped')",
            arg=[panel.element_handle(), shown],
            timeout=WAIT,
            polling=POLL,
        )
        assert "The batch stopped" not in panel.inner_text()


@pytest.fixture(scope="module")
def batched(dashboard_url, chromium):
    """One dashboard page for the tests that read tabs after their batches have run (axe on
    every tab, and every chart's text alternative and data table): a tab's batches run the
    first time one of them opens it (`open_batched`), not once a test, and the page (a
    kernel running the dashboard notebook) is opened once. The Tab-order test walks the
    same page's tabs before their batches run, and the reduced-motion test reads it under
    emulated media: neither needs a page of its own. Its console errors are collected for
    all of them, and each asserts there are none."""
    errors: list[str] = []
    page = watched(chromium, dashboard_url, errors)
    page.locator(".am-choices button", has_text="Roll").wait_for(timeout=WAIT)
    yield SimpleNamespace(page=page, errors=errors, ran=set())
    page.close()


def open_batched(batched, name: str) -> None:
    """Open the tab `name` of the `batched` page; run its batches if they have not run."""
    open_tab(batched.page, name)
    if name not in batched.ran:
        run_batches(batched.page)
        batched.ran.add(name)


# -- keyboard everywhere ------------------------------------------------------------------------

FOCUS_RING = """(shown) => {
  const scrolled = (el, key) => {
    let sum = 0;
    for (let node = el.parentElement; node; node = node.parentElement) sum += node[key];
    return sum;
  };
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  return {
    outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2
      ? style.outlineColor : null,
    box: [box.x, box.y, box.width, box.height],
    visible: box.width > 0 && box.height > 0 && style.visibility !== 'hidden',
    // where it is on the page, whichever box scrolls (Voila's page scrolls inside the body)
    top: box.top + scrolled(el, 'scrollTop'),
    left: box.left + scrolled(el, 'scrollLeft'),
    tag: el.tagName,
    name: el.getAttribute('aria-label') || el.innerText || el.title || el.value || '',
    // whether it is in the tab's page (read in the same call as the ring)
    inside: !!el.closest(shown),
  };
}"""

# Where the focus is after each Tab, as FOCUS_RING reads it, kept in the page: a listener on
# the window (capturing, so before any of the page's own) reads it when the Tab key comes up,
# which is when `keyboard.press` returns, so the entry is what reading the focus after the
# press would have read. The test then reads a run of presses' entries in one round trip to
# the browser instead of one a press (the presses stay real ones, one `keyboard.press` each).
FOCUS_LOG = (
    """(shown) => {
  window.amFocusShown = shown;
  window.amFocusLog = [];
  if (window.amFocusRing) return;
  window.amFocusRing = """
    + FOCUS_RING
    + """;
  window.addEventListener('keyup', (event) => {
    if (event.key === 'Tab') window.amFocusLog.push(window.amFocusRing(window.amFocusShown));
  }, true);
}"""
)


def test_tab_reaches_every_control_of_every_tab_in_order_with_a_visible_focus_ring(batched):
    # the `batched` page before any batch has run (this test comes before the axe test that
    # runs them): the tabs as a page first opens them, and each tab is built once for both
    # tests instead of on a page (and a kernel) of this test's own. Tab moves the focus and
    # nothing else, so the axe test then finds the tabs as it would on a fresh page.
    page, errors = batched.page, batched.errors
    # the tab bar: the arrow keys move between tabs, Enter opens one
    page.get_by_role("tab", name="Play", exact=True).focus()
    page.keyboard.press("ArrowRight")
    assert focused_name(page).startswith('tab "Who wins"')
    page.keyboard.press("Enter")
    page.get_by_role("tab", name="Who wins", selected=True).wait_for(timeout=WAIT)
    for name in TABS:
        open_tab(page, name)
        # start from the tab itself (as a keyboard user arrives there)
        page.get_by_role("tab", name=name, exact=True).focus()
        visible_controls = page.evaluate(
            """(shown) => [...document.querySelectorAll(shown
              + ' :is(button, input, select, textarea, summary, [tabindex="0"])')]
              .filter((el) => !el.disabled && el.getClientRects().length > 0
                && getComputedStyle(el).visibility !== 'hidden'
                && el.getBoundingClientRect().width > 2).length""",
            SHOWN,
        )
        page.evaluate(FOCUS_LOG, SHOWN)
        reached, order, pressed, left = 0, [], 0, False
        while not left and pressed < visible_controls + 40:
            # Tab must reach every visible control and then leave the page, so the first run
            # is visible_controls + 1 presses (never more than the walk needs: stopping
            # sooner fails the reached >= visible_controls below); then one press at a time
            run = visible_controls + 1 if pressed == 0 else 1
            for _ in range(run):
                page.keyboard.press("Tab")
            pressed += run
            seen = page.evaluate("() => window.amFocusLog.splice(0)")
            # a Tab whose keyup the page did not hear had taken the focus out of the page
            for focus in seen + [None] * (run - len(seen)):
                if focus is None:
                    left = True
                    break
                if not focus["inside"]:
                    if order:  # Tab has left the page after its last control
                        left = True
                        break
                    continue  # not in it yet (the tab bar's own stops)
                reached += 1
                assert focus["visible"], (name, focus)
                assert focus["outline"] is not None, (name, focus)
                order.append((focus["top"], focus["left"], focus["name"][:40]))
        # every control was reached, and Tab then left the tab's page (no trap)
        assert reached >= visible_controls, (name, reached, visible_controls)
        assert reached < visible_controls + 40, (name, "focus never left the page")
        # reading order: each control is below, or on the same line to the right of, ... an
        # earlier one; the toolbar's rows wrap, so "same line" allows a control's height
        backwards = [(a, b) for a, b in itertools.pairwise(order) if b[0] < a[0] - 200]
        assert backwards == [], (name, backwards)
    assert errors == []


def test_every_dashboard_tab_passes_axe_after_its_batch_has_run(batched):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page, errors = batched.page, batched.errors
    found: dict[str, list[str]] = {}
    for name in TABS:
        open_batched(batched, name)
        if name == "Play":
            page.locator(".js-plotly-plot").first.wait_for(timeout=WAIT)
        found[name] = axe_violations(page)
        shot = re.sub(r"\W+", "-", name).strip("-")
        page.screenshot(path=str(SHOTS / f"tab-{shot}.png"))
    assert not any(found.values()), axe_report(found)
    assert errors == []


# -- the board, by the accessibility tree and the keyboard alone ---------------------------------


def tab_until(page, matches, limit: int = 150) -> str:
    """Press Tab until the focused element's accessible description (its role and name)
    satisfies `matches`; return it. Fails after `limit` presses (never a keyboard trap)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = focused_name(page)
        if matches(focused):
            return focused
    raise AssertionError(f"Tab never reached the control (last: {focused_name(page)!r})")


def focused_name(page) -> str:
    """The focused element as the accessibility tree has it: its role and accessible name
    (the first line of Playwright's ARIA snapshot, e.g. 'button "End turn"')."""
    focused = page.locator(":focus")
    if not focused.count():
        return ""
    return focused.aria_snapshot().splitlines()[0].lstrip("- ").rstrip(":")


def test_lesson_1_moment_a_is_played_with_the_keyboard_and_the_accessibility_tree(
    dashboard_url, chromium
):
    """Lesson 1, moment A (lessons/01-two-rulebooks/plan.md): Ana, a Competitor, lands on
    Rush St.; Ben, a Monopolist, owns both Chicago streets and collects $28. Nothing is
    clicked: Tab, arrows and Enter, and what is read is what the accessibility tree says."""
    errors: list[str] = []
    page = watched(chromium, dashboard_url, errors)
    page.locator(".am-choices button", has_text="Roll").wait_for(timeout=WAIT)

    # the board reads as a list of 40 spaces in play order, each a sentence
    board = page.get_by_role("list", name=re.compile("The board"))
    assert board.get_by_role("listitem").count() == 40
    tree = board.aria_snapshot()
    assert "1 of 40: START" in tree and "12 of 40: Rush St., a Chicago street. For sale" in tree

    # the scenario box, by keyboard: choose "doubled rent", then Load scenario
    tab_until(page, lambda f: f.startswith('combobox "Scenario"'))
    # type-ahead: "d" picks the one scenario starting with d, in one change (stepping through
    # the list with the arrows sends a change per step, and the kernel's echoes race them)
    page.keyboard.type("d")
    assert page.evaluate("document.activeElement.value") == "doubled rent"
    tab_until(page, lambda f: f == 'button "Load scenario"')
    page.keyboard.press("Enter")

    # heard at once from the live region (polite): Ana's throw, her landing and the rent
    live = page.locator(".am-live [role=status][aria-live=polite]")
    live.filter(has_text="Rush St.").wait_for(timeout=WAIT)
    heard = live.inner_text()
    assert "Ana" in heard and "$28" in heard and "Ben" in heard, heard
    # the board says the same, space by space: Ben's street with its rent, Ana on it
    rush = board.get_by_role("listitem").nth(11)
    words = rush.aria_snapshot()
    assert "Owned by Ben, Monopolist: rent $28" in words and "Here: Ana, Competitor" in words
    assert rush.get_attribute("aria-current") == "location"
    # the rent is paid: Ana's card shows the engine's cash after paying it
    paid = load_scenario_file(scenarios_dir() / "doubled-rent.yaml")
    assert paid.cash[0] == paid.rules.starting_cash - 28
    cards = page.get_by_role("list", name="Players").aria_snapshot()
    assert re.search(rf"Ana.*\${paid.cash[0]:,}", cards), cards

    # End turn: reached by Tab, pressed with Enter; the next event is announced once
    tab_until(page, lambda f: f == 'button "End turn"')
    page.keyboard.press("Enter")
    live.filter(has_text="Ben").filter(has_not_text="Rush St.").wait_for(timeout=WAIT)
    assert live.inner_text().count("Rush St.") == 0  # the landing is not announced again
    page.close()
    assert errors == []


# -- charts --------------------------------------------------------------------------------------


def test_every_chart_has_a_text_alternative_and_its_data_in_a_table(batched):
    page, errors = batched.page, batched.errors
    for name in ("Play", "Who wins", "Landing odds", "Returns", "Taxes"):
        open_batched(batched, name)
        tab = page.locator(SHOWN)
        charts = tab.locator(".js-plotly-plot:visible")
        charts.first.wait_for(timeout=WAIT)
        # every chart's role and accessible name, read in one call (not two a chart)
        marks = charts.evaluate_all(
            "(all) => all.map((el) => [el.getAttribute('role'), el.getAttribute('aria-label')])"
        )
        for role, label in marks:
            assert role == "figure" and (label or "").startswith("Chart: "), label
        # a "Show the data" for each chart drawn on this tab
        data = tab.locator(".am-data:visible")
        assert data.count() >= len(marks), name
        details = data.first
        details.locator("summary, .jupyter-widget-Collapse-header").first.focus()
        page.keyboard.press("Enter")
        table = details.locator("table").first
        table.wait_for(timeout=WAIT)
        rows = table.locator("tbody tr")
        assert rows.count() >= 1
        assert re.search(r"\d", rows.first.inner_text())
    assert errors == []


# -- colour, motion and zoom ----------------------------------------------------------------------


def contrast(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio of two #rrggbb colours."""

    def luminance(colour: str) -> float:
        channels = [int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


BOARD_GREEN = "#d9e4d2"  # the board behind the spaces and the pawns (render.STYLE)


def test_role_colours_city_bars_and_pawns_have_enough_contrast():
    assert "background:" + BOARD_GREEN in board_html.__globals__["STYLE"]
    for colour in ROLE_COLOURS:  # role names are written in them: text, 4.5:1
        assert contrast(colour, "#ffffff") >= 4.5, colour
        assert contrast(colour, BOARD_GREEN) >= 3, colour  # a pawn on the board
        assert contrast("#ffffff", colour) >= 4.5, colour  # the pawn's white initial
    for tones in ROLE_TONES:  # chart lines: 3:1 (WCAG 1.4.11)
        for colour in tones:
            assert contrast(colour, "#ffffff") >= 3, colour
    for city, colour in CITY_COLOURS.items():  # the bar on a white space
        assert contrast(colour, "#ffffff") >= 3, city
    for colour in (HIGHLIGHT_COLOUR, NEUTRAL_COLOUR):
        assert contrast(colour, "#ffffff") >= 3 and contrast(colour, BOARD_GREEN) >= 3, colour


def test_reduced_motion_stops_every_animation_and_the_focus_ring_shows(batched):
    # the `batched` page with reduced motion asked for: the dashboard follows it in CSS alone
    # (projector.css's media query, which the browser applies at once; no script reads it),
    # so the page reads as one opened with it would, and every tab is built, each batch's
    # charts and progress bars with them, so every element of the dashboard is checked
    page, errors = batched.page, batched.errors
    page.emulate_media(reduced_motion="reduce")
    open_tab(page, "Play")
    moving = page.evaluate(
        """() => [...document.querySelectorAll('*')].filter((el) => {
          const s = getComputedStyle(el);
          const long = (v) => v.split(',').some((t) => parseFloat(t) > 0);
          return (s.animationName !== 'none' && long(s.animationDuration))
            || long(s.transitionDuration);
        }).map((el) => el.className.toString()).slice(0, 10)"""
    )
    assert moving == []
    # and with more contrast asked for, the board's spaces have black borders: the same page
    # with the media query changed (CSS follows it at once), not a second page and kernel
    page.emulate_media(reduced_motion="no-preference", contrast="more")
    space = page.locator(".am-board .am-space").first
    space.wait_for(timeout=WAIT)
    assert space.evaluate("(el) => getComputedStyle(el).borderTopColor") == "rgb(0, 0, 0)"
    page.emulate_media(reduced_motion="null", contrast="null")  # the page as it was
    assert errors == []


@pytest.fixture(scope="module")
def zoomed(dashboard_url, chromium):
    """A dashboard page opened at 640 x 360 for the zoom test, whose throw of the dice then
    serves the choice-button test (one page and kernel for both, not one each)."""
    errors: list[str] = []
    page = watched(chromium, dashboard_url, errors, viewport={"width": 640, "height": 360})
    yield SimpleNamespace(page=page, errors=errors, rolled=False)
    page.close()


def test_the_play_tab_at_200_percent_zoom_has_no_sideways_scroll_and_loses_nothing(zoomed):
    """1280 x 720 zoomed to 200% is a 640 x 360 CSS-pixel viewport (WCAG 1.4.10)."""
    page, errors = zoomed.page, zoomed.errors
    page.locator(".am-choices button", has_text="Roll").wait_for(timeout=WAIT)
    # the live charts are built as they come near the screen: scroll down to them, as a
    # player does, then back
    page.locator(".am-charts").scroll_into_view_if_needed(timeout=WAIT)
    page.locator(".js-plotly-plot").first.wait_for(timeout=WAIT)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / "play-640x360.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 640
    # everything a player needs lies within the width: the board, its 40 names, the choices,
    # the toolbar, the players and the charts
    outside = page.evaluate(
        """() => [...document.querySelectorAll('.am-board, .am-space, .am-choices button, '
          + '.am-toolbar > *, .am-card, .am-narration, .js-plotly-plot')]
          .filter((el) => el.getClientRects().length > 0)
          .map((el) => [el.className.toString().slice(0, 40), el.getBoundingClientRect()])
          .filter(([, r]) => r.left < -1 || r.right > 641)
          .map(([name, r]) => name + ' ' + Math.round(r.left) + '..' + Math.round(r.right))"""
    )
    assert outside == []
    # no name on the board is cut off: each fits its space (the short names are used)
    cut = page.evaluate(
        """() => [...document.querySelectorAll('.am-board .am-name')]
          .filter((n) => n.scrollWidth > n.clientWidth + 1).map((n) => n.innerText)"""
    )
    assert cut == []
    # the choices still work: Roll by keyboard
    page.locator(".am-choices button", has_text="Roll").focus()
    page.keyboard.press("Enter")
    zoomed.rolled = True
    page.locator(".am-choices button", has_text=re.compile("End turn|Buy|Pay")).first.wait_for(
        timeout=WAIT
    )
    assert errors == []


def test_every_choice_button_says_what_it_does_and_what_is_at_stake(zoomed):
    # the zoom test's page, back at 1280 x 720: that test ends by throwing the dice with the
    # keyboard (Roll, Enter) on a game as the page opened it, which is where this test reads
    # the choices; run on its own, it throws them itself
    page, errors = zoomed.page, zoomed.errors
    page.set_viewport_size(PROJECTOR)
    thrown = page.locator(".am-choices button", has_text=re.compile("End turn|Buy|Pay")).first
    if not zoomed.rolled:
        roll = page.locator(".am-choices button", has_text="Roll")
        roll.wait_for(timeout=WAIT)
        roll.focus()
        page.keyboard.press("Enter")
    # after the throw, every choice names its action and its amount or title
    thrown.wait_for(timeout=WAIT)
    names = [b.inner_text() for b in page.locator(".am-choices button").all()]
    for name in names:
        assert re.fullmatch(
            r"End turn|Decline|Roll|Buy .+ for \$\d+|Pay \$\d+.*|Pay the \$\d+ fine", name
        ), names
    assert errors == []


# -- class play: the instructor's Class tab and a student's page -------------------------------


def test_the_class_tab_and_a_students_page_pass_axe_before_during_and_after_a_game(
    class_server, browser
):
    server = class_server
    rooms = open_rooms(server.database)
    key = new_key()
    code = rooms.create(
        RoomSettings(tables=1, seats=2, ending="two-hour", seed=3, bot_delay=0),
        pin="2468",
        key=key,
    )
    errors: list[str] = []
    found: dict[str, list[str]] = {}
    teacher = watched(browser, server.url, errors)
    teacher.get_by_role("tab", name="Class", exact=True).click(timeout=WAIT)
    teacher.get_by_placeholder("paste your instructor link").wait_for(timeout=WAIT)
    found["Class tab, no class open"] = axe_violations(teacher)
    # the room's controls open with its instructor link (the key) and its PIN
    teacher.get_by_placeholder("paste your instructor link").fill(
        f"{server.url}#class={code}&key={key}"
    )
    teacher.get_by_placeholder("if it has one", exact=True).fill("2468")
    teacher.get_by_role("button", name="Open its controls").click()
    teacher.locator(".am-room-code", has_text=code).wait_for(timeout=WAIT)
    found["Class tab, a class open"] = axe_violations(teacher)

    student = watched(browser, f"{server.url}?room={code}", errors, PHONE)
    student.get_by_placeholder("first name").wait_for(timeout=WAIT)
    found["student, before joining"] = axe_violations(student)
    student.get_by_placeholder("first name").fill("Ana")
    student.get_by_role("button", name="Join").click()
    student.get_by_text("Welcome, Ana").wait_for(timeout=WAIT)
    student.get_by_text("Waiting for your teacher").wait_for(timeout=WAIT)
    found["student, in the lobby"] = axe_violations(student)
    teacher.get_by_role("button", name="Start the games").click()
    student.get_by_text("Your turn").wait_for(timeout=WAIT)
    found["student, during play"] = axe_violations(student)
    found["Class tab, during play"] = axe_violations(teacher)

    # time is up (the Class tab asks first): the final accounting starts at the next turn;
    # Ana plays on to it by keyboard (Enter on her choices) until the game is over; after
    # each choice her focus stays in her seat's view (the next choice, or the status when
    # the turn has passed), never dropped to the page's top, and the newest event is in
    # the live region
    free = ".am-choices button:not([disabled]):not([aria-disabled=true])"
    teacher.get_by_role("button", name="Time is up: end the game").click()
    teacher.get_by_text("End the game at every table now?").wait_for(timeout=WAIT)
    found["Class tab, asking before time is up"] = axe_violations(teacher)
    teacher.get_by_role("button", name="Yes, time is up").click()
    for _ in range(40):
        student.wait_for_function(
            "(free) => document.body.innerText.includes('Game over')"
            " || document.querySelectorAll(free).length > 0",
            arg=free,
            timeout=WAIT,
            polling=POLL,
        )
        if "Game over" in student.locator("body").inner_text():
            break
        choices = student.locator(free)
        texts = [c.inner_text() for c in choices.all()]
        order = ("Time is up", "Done adjusting", "End turn", "Decline", "Roll", "Pay")
        pick = next((i for want in order for i, t in enumerate(texts) if t.startswith(want)), 0)
        handle = choices.nth(pick).element_handle()
        try:
            handle.focus()
        except PlaywrightError:  # the page redrew its choices meanwhile: look again
            continue
        student.keyboard.press("Enter")
        student.wait_for_function("(el) => !el.isConnected", arg=handle, timeout=WAIT, polling=POLL)
        kept = student.evaluate(
            "() => !!document.activeElement.closest('#am-seat')"
            " && document.getElementById('am-announce').innerText.trim() !== ''"
        )
        assert kept, student.evaluate("() => document.activeElement.outerHTML.slice(0, 80)")
    student.get_by_text("Game over").first.wait_for(timeout=WAIT)
    student.get_by_role("heading", name="Your debrief").wait_for(timeout=WAIT)
    found["student, after the game"] = axe_violations(student)
    # the class's debrief on the projector, and a key moment on the board (or the line
    # that says the game had none)
    teacher.get_by_role("button", name="Show the class's debrief").click()
    teacher.get_by_text("What the final accounting decided").wait_for(timeout=WAIT)
    found["Class tab, the class's debrief"] = axe_violations(teacher)
    moments = teacher.get_by_role("button", name="Show on the board")
    if moments.count():
        moments.first.click()
        teacher.get_by_text("just after decision").wait_for(timeout=WAIT)
    else:
        teacher.get_by_text("No rent was paid and nobody went bankrupt").wait_for(timeout=WAIT)
    found["Class tab, a key moment on the board"] = axe_violations(teacher)
    teacher.screenshot(path=str(SHOTS / "class-debrief.png"), full_page=True)
    student.screenshot(path=str(SHOTS / "student-after.png"), full_page=True)
    student.close()
    teacher.close()
    assert not any(found.values()), axe_report(found)
    assert errors == []


def test_the_treatment_controls_and_the_comparison_pass_axe_and_work_by_keyboard(
    class_server, browser
):
    """Issue 37: the Class tab's treatment controls (chosen by keyboard), the grid's rule set
    per table, the comparison of the rule sets, and a phone's rules line."""
    from amteach.rooms.rule_sets import named_rule_set

    server = class_server
    rooms = open_rooms(server.database)
    key = new_key()
    code = rooms.create(
        RoomSettings(
            tables=2,
            seats=2,
            ending="A",
            round_cap=5,
            seed=3,
            bot_delay=0,
            treatments=[
                named_rule_set("as-written").to_dict(),
                named_rule_set("equal-keep").to_dict(),
            ],
            assignment="by_hand",
            by_hand=[0, 1],
        ),
        key=key,
    )
    errors: list[str] = []
    found: dict[str, list[str]] = {}
    teacher = watched(browser, server.url, errors)
    teacher.get_by_role("tab", name="Class", exact=True).click(timeout=WAIT)
    treatments = teacher.get_by_label("Treatments", exact=True)
    treatments.wait_for(timeout=WAIT)
    # by keyboard: the menu takes the focus and the arrow keys choose
    treatments.focus()
    teacher.keyboard.press("ArrowDown")
    teacher.keyboard.press("ArrowDown")
    teacher.get_by_label("Table 1", exact=True).wait_for(timeout=WAIT)
    assert treatments.evaluate("(el) => el.selectedOptions[0].text.replace(/\\s/g, ' ')") == (
        "Set each table by hand"
    )
    second = teacher.get_by_label("Second rule set", exact=True)
    assert (
        second.evaluate("(el) => el.selectedOptions[0].text.replace(/\\s/g, ' ')")
        == "Equal keep shares"
    )
    teacher.get_by_label("Changed rules", exact=True).wait_for(timeout=WAIT)
    found["Class tab, treatments by hand"] = axe_violations(teacher)

    student = watched(browser, f"{server.url}?room={code}", errors, PHONE)
    student.get_by_placeholder("first name").fill("Ana")
    student.get_by_role("button", name="Join").click()
    student.get_by_text("Rules at your table:").wait_for(timeout=WAIT)
    found["student, the rules line in the lobby"] = axe_violations(student)

    teacher.get_by_placeholder("paste your instructor link").fill(
        f"{server.url}#class={code}&key={key}"
    )
    teacher.get_by_role("button", name="Open its controls").click()
    teacher.locator(".am-room-code", has_text=code).wait_for(timeout=WAIT)
    teacher.get_by_role("button", name="Start the games").click()
    teacher.locator(".am-class-grid", has_text="Equal keep shares").wait_for(timeout=WAIT)
    student.get_by_text("Your turn").or_(student.get_by_text("turn.")).first.wait_for(timeout=WAIT)
    found["student, the rules line during play"] = axe_violations(student)
    student.close()
    ana = next(row for row in rooms.seats(code) if row.name == "Ana")
    rooms.set_playing(code, ana.table, ana.seat, "bot")  # a bot plays on for her
    teacher.get_by_role("button", name="Compare the rule sets").wait_for(timeout=WAIT)
    teacher.wait_for_function(
        "() => (document.querySelector('.am-class-grid')?.innerText.match(/game over/g)"
        " || []).length === 2",
        timeout=WAIT,
        polling=POLL,
    )
    teacher.get_by_role("button", name="Compare the rule sets").click()
    teacher.locator(".am-treatment-table").wait_for(timeout=WAIT)
    found["Class tab, the rule sets compared"] = axe_violations(teacher)
    teacher.close()
    assert not any(found.values()), axe_report(found)
    assert errors == []


# -- without a browser: the board's words and a chart's tables ----------------------------------


def test_the_board_is_a_list_of_spaces_each_read_as_one_sentence():
    game = load_scenario_file(scenarios_dir() / "doubled-rent.yaml")
    html = str(board_html(game, with_players=False, centre=False))
    assert html.count('role="listitem"') == 40
    assert 'role="list" aria-label="The board: 40 spaces in play order, from START"' in html
    # Rush St. (space 12): the engine's rent for Ben's monopolized Chicago, and Ana on it
    words = space_words(game, 11, game.actor)
    assert words == (
        "12 of 40: Rush St., a Chicago street. Owned by Ben, Monopolist: rent $28. "
        "Here: Ana, Competitor, to move."
    )
    assert game.rent_for(11)[0] == 28
    # what the eye reads is hidden from a screen reader, so nothing is read twice
    assert html.count('class="am-pawns" aria-hidden="true"') == 40
    assert html.count('class="am-name" aria-hidden="true"') == 40
    # a title nobody owns says its price
    assert space_words(game, 1, -1).endswith("For sale: $60.")


def test_a_charts_data_table_holds_every_point_as_its_axes_show_it():
    import plotly.graph_objects as go

    from amteach.style import DOLLAR_AXIS, PERCENT_AXIS
    from amteach.ui.charts import data_details_html, figure_tables_html

    figure = go.Figure(layout={"title": {"text": "Who <b>wins</b>"}})
    figure.add_bar(
        x=["Competitors", "Monopolists"],
        y=[0.25, 0.75],
        name="win rate",
        error_y={"type": "data", "array": [0.05, 0.05], "arrayminus": [0.05, 0.1]},
    )
    figure.add_scatter(x=[1, 2], y=[1500, 1620.5], name="Ana <i>(Competitor)</i>", yaxis="y2")
    figure.update_layout(
        yaxis={"title": {"text": "win rate"}, **PERCENT_AXIS},
        yaxis2={"title": {"text": "net worth"}, **DOLLAR_AXIS},
        xaxis={"title": {"text": "role"}},
    )
    tables = str(figure_tables_html(figure))
    assert tables.count("<table>") == 2
    assert (
        "<caption>win rate</caption>" in tables and "<caption>Ana (Competitor)</caption>" in tables
    )
    assert "<th scope='row'>Monopolists</th><td>75.0%</td><td>65.0% to 80.0%</td>" in tables
    assert "<td>$1,500</td>" in tables and "<td>$1,620</td>" in tables
    details = str(data_details_html(figure))
    assert details.startswith('<details class="am-data"><summary>Show the data: Who wins</summary>')
