"""Each lesson plan, followed click by click on the dashboard (issue 23).

A plan names tabs, buttons, lists, panels and labels ("press **Load scenario**", "open the
panel "Rules and players for New game, save and load""). Each lesson's `walk.yaml` lists
what its plan.md names, in the order it names them, with what a teacher does with it:

    - tab: Rules                                  # open the dashboard's tab
    - see: "Income tax, percentage"               # text shown on the open tab
    - choose: {list: Scenario, option: prison no rent}   # pick an option of a list
    - press: Load scenario                        # a button, pressed
      wait: is set up                             #   then wait for this text
    - open: Build, sell, mortgage, redeem         # open a panel by its title
    - control: Players                            # a control (button or labelled list/box)
    - games: 50                                   # set a batch panel's Games (fewer games)
    - type: {box: Values, text: "300"}            # type into a labelled box
    - phone: Done adjusting                       # on a student's page, not the dashboard's
      panel: Change one rule                      #   in the batch panel whose text holds this

An entry's `plan:` is the words the plan uses for it, when they differ from its name. The
tests check that the plan names every entry in the walk's order, that every control the plan
names in bold and every "*Name* tab" is in the walk, and then walk each plan on one served
dashboard (served with a class database, so the Class tab opens a class), finding each item
on screen in a 1280x720 projector's page. Any console error fails the walk. Walks that change
nothing another reads follow each other on one page (PAGES says which, and why).

The same served dashboard also checks lesson 1's screen at 1280x720 and 1920x1080: the Who
wins chart above the fold, "in Prison" and "in Price War" whole on the player card, the Build
panel's refusal reasons in view, and every tab's type scaled at 1920x1080.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from browser import PROJECTOR, WAIT, open_dashboard_tab, type_games, watched_page

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted(p for p in (ROOT / "lessons").iterdir() if re.match(r"\d\d-", p.name))
LARGE = {"width": 1920, "height": 1080}
KINDS = ("tab", "see", "choose", "press", "open", "control", "games", "type", "phone")
# bold words in a plan that are not controls: step headings, moments, rules of the lesson
NOT_CONTROLS = re.compile(r"^(\d|Before class|Moment|A rule|The |Under the|expected)")


def walk_of(lesson: Path) -> list[dict[str, Any]]:
    return yaml.safe_load((lesson / "walk.yaml").read_text())


def flat(text: str) -> str:
    return " ".join(text.split())


def plan_words(entry: dict[str, Any]) -> str:
    """The words the plan uses for a walk entry."""
    if "plan" in entry:
        return entry["plan"]
    (kind,) = [k for k in KINDS if k in entry]
    value = entry[kind]
    if kind == "tab":
        return f"*{value}*"
    if kind == "choose":
        return value["option"]
    if kind == "type":
        return value["box"]
    if kind == "games":
        return "Games"
    return str(value)


def activity(lesson: Path) -> str:
    """What a teacher does in class: "What to open" and "Activity" of plan.md."""
    plan = (lesson / "plan.md").read_text()
    return flat(plan[plan.index("## What to open") : plan.index("## Discussion questions")])


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_each_walk_follows_its_plan_in_order(lesson):
    """The plan names every entry of its walk, in the walk's order."""
    text = activity(lesson)
    at = 0
    for entry in walk_of(lesson):
        words = flat(plan_words(entry))
        found = text.find(words, at)
        assert found >= 0, (
            f"{lesson.name}: the plan names no {words!r} after {text[at : at + 80]!r}"
        )
        at = found


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_every_control_and_tab_a_plan_names_is_walked(lesson):
    """A plan names controls in bold and tabs as *Name* tab: each is an entry of the walk."""
    text = activity(lesson)
    walked = " | ".join(flat(plan_words(e)) for e in walk_of(lesson))
    bold = {b for b in re.findall(r"\*\*([^*]+)\*\*", text) if not NOT_CONTROLS.match(b)}
    tabs = {f"*{t}*" for t in re.findall(r"\*([A-Z][^*]{1,25})\* tab", text)}
    missing = sorted(name for name in bold | tabs if name not in walked)
    assert missing == [], f"{lesson.name}: named in the plan, not walked: {missing}"


# -- the browser -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def served(class_server):
    """The session's dashboard with a class database (tests/conftest.py): a walk that opens a
    class makes a room of its own in it."""
    return class_server.url


class Teacher:
    """A page of the dashboard that follows a walk; console errors are collected."""

    def __init__(self, chromium, url: str, viewport: dict) -> None:
        self.errors: list[str] = []
        self.page = watched_page(chromium, url, self.errors, viewport)
        self.page.locator(".am-choices button").first.wait_for(timeout=WAIT)

    @property
    def pane(self):
        """The tab on screen."""
        outer = self.page.locator(".widget-tab").first  # the dashboard's tabs, not a panel's
        return outer.locator(":scope > .widget-tab-contents > .lm-Widget:visible").first

    def tab(self, title: str) -> None:
        open_dashboard_tab(self.page, title)

    def scope(self, panel: str | None = None):
        """The tab on screen, or its batch panel whose text holds `panel`."""
        if panel is None:
            return self.pane
        return self.pane.locator(".am-batch").filter(has_text=panel).first

    def control(self, name: str, panel: str | None = None):
        """A visible button named `name`, or a control labelled `name` (a list, a box, a
        slider), or a panel's title."""
        pane = self.scope(panel)
        candidates = [
            pane.get_by_role("button", name=name, exact=True),
            pane.locator(".widget-label", has_text=re.compile(rf"^\s*{re.escape(name)}\s*$")),
            pane.locator(".jupyter-widget-Collapse-header", has_text=name),
            # a button whose name holds `name`, with its case: "Players" must not find the
            # "Rules and players …" header while the list under it is still being drawn
            pane.get_by_role("button", name=re.compile(re.escape(name))),
        ]
        anyone = candidates[0]
        for other in candidates[1:]:
            anyone = anyone.or_(other)
        try:  # it may be drawn a moment after the click before it
            anyone.filter(visible=True).first.wait_for(timeout=WAIT)
        except Exception:
            raise AssertionError(f"no control {name!r} on screen") from None
        return next(
            c.filter(visible=True).first for c in candidates if c.filter(visible=True).count()
        )

    def box(self, label: str, panel: str | None = None):
        """The list or box whose own label is `label` (every list and box a walk names is an
        ipywidgets control with a description, drawn as a .widget-label). Not `control`,
        which takes whichever of its candidates shows first: while the Players list was still
        being drawn, the panel header "Rules and players" (its text holds "players") showed
        first, and the walk read the Rules list beside it (a failure at load 20)."""
        own = re.compile(rf"^\s*{re.escape(label)}\s*$")
        name = self.scope(panel).locator(".widget-label", has_text=own).filter(visible=True).first
        try:  # it may be drawn a moment after the click before it
            name.wait_for(timeout=WAIT)
        except Exception:
            raise AssertionError(f"no list or box labelled {label!r} on screen") from None
        return name.locator("xpath=..").locator("select, input").first

    def see(self, text: str) -> None:
        self.pane.get_by_text(text).filter(visible=True).first.wait_for(timeout=WAIT)

    def follow(self, entry: dict[str, Any]) -> None:
        (kind,) = [k for k in KINDS if k in entry]
        value, panel = entry[kind], entry.get("panel")
        if kind == "phone":  # a student's page (tests/test_class_browser.py plays one)
            return
        if kind == "tab":
            self.tab(value)
        elif kind == "see":
            self.see(value)
        elif kind == "control":
            assert self.control(value, panel).is_visible()
        elif kind == "open":
            header = self.control(value)
            header.click()
            header.locator("xpath=..").locator(".jupyter-widget-Collapse-contents").first.wait_for(
                timeout=WAIT
            )
        elif kind == "choose":
            select = self.box(value["list"], panel)
            # ipywidgets fills a list's options in an update after drawing the list: on a busy
            # machine the list can be on screen a moment before its options (seen once in 2
            # full runs at load 12)
            select.locator("option").first.wait_for(state="attached", timeout=WAIT)
            # ipywidgets draws an option's spaces as no-break spaces
            labels = [
                label.replace("\xa0", " ") for label in select.locator("option").all_inner_texts()
            ]
            assert value["option"] in labels, (value, labels)
            select.select_option(index=labels.index(value["option"]))
        elif kind == "type":
            self.box(value["box"], panel).fill(str(value["text"]))
            self.box(value["box"], panel).press("Enter")
        elif kind == "games":
            type_games(self.page, self.scope(panel), value)
        elif kind == "press":
            button = self.control(value, panel)
            assert button.is_enabled(), f"{value!r} is greyed out"
            button.click()
        if "wait" in entry:
            self.see(entry["wait"])


def inside(box: dict | None, viewport: dict) -> bool:
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= viewport["width"]
        and box["y"] + box["height"] <= viewport["height"]
    )


@pytest.fixture(scope="module")
def pages(served, chromium):
    """The module's dashboard pages by name (PAGES below): each opened by the first test on it,
    and closed after the last (a walk closes its page when it fails, so that the next walk on
    it opens a fresh one); any left open are closed at the module's end."""
    opened: dict[str, Teacher] = {}
    yield opened
    for teacher in opened.values():
        teacher.page.close()


@pytest.fixture
def screen(pages, served, chromium, request):
    """One dashboard page (one kernel running the dashboard notebook) for lesson 1's screen at
    1280x720 and every tab's type at 1920x1080: the second test resizes the page
    (page.set_viewport_size) instead of opening another, as the type's sizes are CSS (vh,
    media queries, projector.css) that follow the window. Lesson 7's walk follows them on it
    (PAGES says why), unless one failed: then the page is closed, and the walk opens another."""
    if "screen" not in pages:
        pages["screen"] = Teacher(chromium, served, PROJECTOR)
    failed = request.session.testsfailed
    yield pages["screen"]
    if request.session.testsfailed > failed:
        pages.pop("screen").page.close()


def test_lesson_1s_moments_read_whole_on_a_1280x720_projector(screen):
    """Moments A and B: "in Prison" and "in Price War" whole on the player card (not "in…");
    moment C: with the Build panel open, the refusal reasons in view; step 5: the Who wins
    chart above the fold."""
    teacher = screen
    page = teacher.page
    page.set_viewport_size(PROJECTOR)
    teacher.tab("Play")  # where the page opens
    for scenario, status in (("prison no rent", "in Prison"), ("price war", "in Price War")):
        name = "price war still collects" if scenario == "price war" else scenario
        teacher.follow({"choose": {"list": "Scenario", "option": name}})
        teacher.follow({"press": "Load scenario", "wait": f"Scenario {name} is set up"})
        shown = page.locator(".am-card-status", has_text=status)
        assert shown.count() == 1 and inside(shown.bounding_box(), PROJECTOR), status
        assert shown.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
        name_line = page.locator(".am-card-name", has=shown)
        assert name_line.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
        assert name_line.evaluate("(el) => el.getBoundingClientRect().right") <= (
            name_line.evaluate("(el) => el.closest('.am-card').getBoundingClientRect().right")
        )
    teacher.follow({"choose": {"list": "Scenario", "option": "who may build"}})
    teacher.follow({"press": "Load scenario", "wait": "Scenario who may build is set up"})
    teacher.follow({"open": "Build, sell, mortgage, redeem"})
    teacher.follow({"choose": {"list": "Title", "option": "Hollywood Blvd."}})
    reasons = page.locator(".am-manage .am-why-not")
    reasons.get_by_text("builds only in a monopolized city").wait_for(timeout=WAIT)
    turn = page.locator(".am-turn").bounding_box()
    box = reasons.bounding_box()
    assert inside(box, PROJECTOR), box
    assert turn["y"] <= box["y"] and box["y"] + box["height"] <= turn["y"] + turn["height"]
    build = teacher.control("Build")
    assert build.is_disabled() and inside(build.bounding_box(), PROJECTOR)

    teacher.tab("Who wins")
    teacher.follow({"games": 50})
    teacher.follow({"press": "Run", "wait": "Games lasted"})
    chart = teacher.pane.locator(".js-plotly-plot").first
    chart.locator(".main-svg").first.wait_for(timeout=WAIT)
    assert inside(chart.bounding_box(), PROJECTOR), chart.bounding_box()
    assert page.evaluate("window.scrollY") == 0
    assert teacher.errors == []


# the rendered size of each piece of text on a tab (its font size times any CSS zoom)
TEXT_SIZES = """(pane) => [...pane.querySelectorAll('*')]
  .filter((el) => el.offsetParent !== null && !el.closest('.js-plotly-plot')
    && [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()))
  .map((el) => parseFloat(getComputedStyle(el).fontSize) * (el.currentCSSZoom || 1))"""


def test_every_tab_scales_its_type_on_a_1920x1080_screen_as_the_play_tab_does(screen):
    """At 1280x720 the analysis tabs' text is 15 to 17 px; at 1920x1080 it grows as the Play
    tab's does (a quarter larger): most text 18 px and more, the middle of it 19 px and more."""
    teacher = screen
    teacher.page.set_viewport_size(LARGE)
    tabs = ("Who wins", "Taxes", "Landing odds", "Returns", "Inequality", "Is it fair?")
    for title in (*tabs, "Best play", "Rules", "Class"):
        teacher.tab(title)
        sizes = sorted(teacher.pane.evaluate(TEXT_SIZES))
        assert sizes, title
        assert sizes[len(sizes) // 2] >= 19, (title, sizes)
        assert sum(size >= 18 for size in sizes) >= 0.9 * len(sizes), (title, sizes)
    assert teacher.errors == []


# Walks that follow each other on one dashboard page, in the suite's order (a page costs a
# kernel running the whole dashboard notebook and Chromium drawing the Play tab: about half of
# a walk's time when each had a page of its own). A page's first walk sees the dashboard as a
# teacher opens it; a later walk on it starts where the one before left, which is only shared
# where no walk of the page reads what another changed:
# - "plays": lessons 1, 3, 5, 6 and 8 load different scenarios (a "... is set up" line is
#   never left by another walk), only lesson 1 opens a panel of the Play tab, runs a batch or
#   opens a class, and lessons 3, 5, 6 and 8 neither run batches nor read the Class tab;
# - "rules": lesson 2 (the Play and Returns tabs) before lesson 4, which changes the Rules tab's
#   rule set and runs the Who wins and Is it fair? batches: nothing follows it on its page;
# - "screen": lesson 7 (the Class and Who wins tabs only; it opens a class and starts its
#   games, and nothing follows it on its page) after lesson 1's screen and the 1920x1080 type,
#   which load scenarios, run a Who wins batch and visit the Class tab without changing it.
# Lessons 1 and 7 each open a class, and lessons 1 and 2 each open the Build panel (a second
# click would close it), so they walk on different pages. Before a walk on a used page, none
# of its `wait` texts may be on the page (`stale_waits`): each wait still proves its own press.
PAGES = {
    "01-two-rulebooks": "plays",
    "03-taxes-and-incentives": "plays",
    "05-chance-and-landing-odds": "plays",
    "06-inequality-over-time": "plays",
    "08-best-play": "plays",
    "02-monopoly-pricing": "rules",
    "04-is-the-game-fair": "rules",
    "07-class-play": "screen",
}
LAST_ON_PAGE = {"08-best-play", "04-is-the-game-fair", "07-class-play"}


# Which of [tab, text] pairs are drawn on that tab of the dashboard (its page, shown or not):
# in an element shown but for the tab it is on. Not the texts of controls drawn hidden until
# needed ("Start the games" before a class is open): Playwright's waits take a shown one only.
DRAWN = """(pairs) => {
  const outer = document.querySelector('.widget-tab');
  const pages = [...outer.querySelector(':scope > .widget-tab-contents').children];
  const titles = [...outer.querySelectorAll(':scope > .lm-TabBar .lm-TabBar-tab')]
    .map((tab) => tab.innerText.trim());
  const drawn = (el, page) => {
    for (; el && el !== page; el = el.parentElement)
      if (getComputedStyle(el).display === 'none') return false;
    return true;
  };
  const holds = (el, t) => el.textContent.includes(t)
    && ![...el.children].some((child) => child.textContent.includes(t));
  return pairs.filter(([title, t]) => {
    const page = pages[titles.indexOf(title)];
    return [...page.querySelectorAll('*')].some((el) => holds(el, t) && drawn(el, page));
  });
}"""
# the Inequality tab's own introduction names the Gini coefficient, so lesson 6's wait for
# "Gini" is met once that tab is drawn, on a fresh page as on a used one
DRAWN_ANYWAY = {"Gini"}


def stale_waits(teacher: Teacher, walk: list[dict[str, Any]]) -> list[list[str]]:
    """The walk's `wait` texts that the walks before it left drawn on its page, on the tab
    where the walk waits for them (a walk's waits look at the tab on screen only)."""
    assert "tab" in walk[0], "a walk opens a tab first"
    waits, tab = [], None
    for entry in walk:
        tab = entry.get("tab", tab)
        if "wait" in entry and entry["wait"] not in DRAWN_ANYWAY:
            waits.append([tab, entry["wait"]])
    return teacher.page.evaluate(DRAWN, waits)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_each_lesson_plan_can_be_followed_on_the_dashboard(pages, served, chromium, lesson):
    name = PAGES[lesson.name]
    walk = walk_of(lesson)
    teacher = pages.get(name)
    if teacher is None:
        teacher = pages[name] = Teacher(chromium, served, PROJECTOR)
    else:
        teacher.page.set_viewport_size(PROJECTOR)
        assert stale_waits(teacher, walk) == [], f"{lesson.name}: left on its page before it"
        teacher.errors.clear()  # the walks before it on the page asserted theirs
    done = False
    try:
        for number, entry in enumerate(walk, start=1):
            try:
                teacher.follow(entry)
            except Exception as err:
                raise AssertionError(f"{lesson.name}, walk entry {number} {entry}: {err}") from err
        assert teacher.errors == []
        done = True
    finally:
        if not done or lesson.name in LAST_ON_PAGE:
            del pages[name]
            teacher.page.close()
