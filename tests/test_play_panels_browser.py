"""The Play tab's closed panels (issue 24): *Build, sell, mortgage, redeem*, *Trade* and *Rules
and players for New game, save and load* are built by the kernel when first opened, so the
first page sends fewer widgets. A person who uses the keyboard alone still reaches each panel's
header with Tab, hears it as a button with its name and whether it is open, opens it with
Enter or Space, and finds in it what the game on the board is now (tests/test_lean_start.py
pins the kernel's side: built once, forged messages build nothing)."""

from __future__ import annotations

import re

import pytest
from browser import POLL, WAIT, open_dashboard_tab, watched_page

# presses of Tab enough to go from the top of the Play tab past the charts to its last panel
MOST_TABS = 250
# characters of an icon font (private use), which a screen reader does not read as words
ICON = re.compile("[\ue000-\uf8ff] ?")


def focused_name(page) -> str:
    """The focused element as the accessibility tree has it (what a screen reader says): its
    role and accessible name, the first line of Playwright's ARIA snapshot."""
    focused = page.locator(":focus")
    if not focused.count():
        return ""
    name = focused.aria_snapshot().splitlines()[0].lstrip("- ").rstrip(":")
    return ICON.sub("", name)  # an accordion header's caret (an icon font's character)


def tab_to(page, header: str):
    """Press Tab until the focus is on the button named `header` (a panel's header), and
    return that header."""
    heard = ""
    for _ in range(MOST_TABS):
        page.keyboard.press("Tab")
        heard = focused_name(page)
        if heard.startswith(f'button "{header}'):
            found = page.locator(".jupyter-widget-Collapse-header").filter(has_text=header).first
            assert found.evaluate("(el) => el === document.activeElement")
            return found
    raise AssertionError(f"Tab never reached the header {header!r} (last: {heard!r})")


def opened(page, header: str, key: str):
    """Reach the panel `header` by Tab, open it with `key`, and return its drawn contents,
    once the kernel has built it."""
    button = tab_to(page, header)
    assert button.get_attribute("aria-expanded") == "false"
    page.keyboard.press(key)
    page.wait_for_function(
        "(el) => el.getAttribute('aria-expanded') === 'true'",
        arg=button.element_handle(),
        timeout=WAIT,
        polling=POLL,
    )
    contents = button.locator("xpath=..").locator(".jupyter-widget-Collapse-contents").first
    page.wait_for_function(
        "(el) => el.offsetParent !== null && el.innerText.trim() !== ''"
        " && !el.innerText.includes('Opening…')",
        arg=contents.element_handle(),
        timeout=WAIT,
        polling=POLL,
    )
    return contents


def options(select) -> list[str]:
    """A list's options as drawn (ipywidgets draws an option's spaces as no-break spaces)."""
    return [text.replace("\xa0", " ") for text in select.locator("option").all_inner_texts()]


@pytest.fixture(scope="module")
def dashboard(dashboard_url, chromium):
    """One dashboard page (one kernel running the dashboard notebook) for both tests, in the
    order of this file: first a chart tab opened as soon as the page works, which needs the
    page as it opens, then the Play tab's closed panels, which that leaves closed and unbuilt
    (the second test asserts they are)."""
    errors: list[str] = []
    page = watched_page(chromium, dashboard_url, errors)
    yield page, errors
    page.close()


def test_a_chart_tab_opened_at_once_waits_for_plotly_then_draws_its_charts(dashboard):
    """anywidget gives a chart's module 2 s to load from the moment its model is made; on a
    busy machine plotly's 4.8 MB bundle took longer, and the page logged "[anywidget] Failed
    to initialize model.". A tab of charts is now built once the page has the bundle (ui/lazy.py,
    ModuleReady): opened as soon as the Play tab works, it shows "Opening…", then its charts,
    and the console stays clean."""
    page, errors = dashboard
    page.locator(".am-choices button", has_text="Roll").wait_for(timeout=WAIT)
    page.get_by_role("tab", name="Landing odds", exact=True).click()
    shown = ".am-pages > .widget-tab-contents > :not(.lm-mod-hidden)"
    chart = page.locator(f"{shown} .js-plotly-plot .main-svg").first
    chart.wait_for(timeout=WAIT)
    box = chart.bounding_box()
    assert box["width"] > 300 and box["height"] > 150, box
    assert errors == [], errors


def test_each_closed_panel_opens_by_keyboard_and_shows_the_game_as_it_is(dashboard):
    page, errors = dashboard
    open_dashboard_tab(page, "Play")  # the test before left the page on Landing odds
    page.locator(".am-choices button", has_text="Roll").wait_for(timeout=WAIT)
    # a closed panel is drawn as its header only: nothing of it is in the page yet
    assert page.locator(".am-manage").count() == 0
    assert page.get_by_text("Propose trade").count() == 0
    assert page.locator("text=Save (download)").count() == 0
    # lesson 1's moment: Ben, a Monopolist, owns one street of Los Angeles
    page.get_by_label("Scenario").select_option(label="who may build")
    page.get_by_role("button", name="Load scenario", exact=True).click()
    page.get_by_text("Scenario who may build is set up").wait_for(timeout=WAIT)
    page.locator("body").click(position={"x": 2, "y": 2})  # Tab starts from the top

    manage = opened(page, "Build, sell, mortgage, redeem", "Enter")
    titles = manage.locator("select").first
    assert options(titles) == [
        "Hollywood Blvd.",
        "Rush St.",
        "State St.",
    ]
    why = manage.locator(".am-why-not")
    why.get_by_text("a Monopolist builds only in a monopolized city").wait_for(timeout=WAIT)
    build = manage.get_by_role("button", name="Build", exact=True)
    assert build.is_visible() and build.is_disabled()
    # the panel follows the game: Mortgage now, and Hollywood Blvd. is mortgaged
    mortgage = manage.get_by_role("button", name=re.compile("^Mortgage Hollywood"))
    mortgage.click()
    why.get_by_text("Hollywood Blvd. is mortgaged").first.wait_for(timeout=WAIT)

    trade = opened(page, "Trade", " ")
    assert trade.get_by_role("button", name="Propose trade").is_visible()
    partners = options(trade.locator("select").first)
    assert partners == ["Ana"]
    # Ben's titles without buildings, as they are now: Hollywood Blvd. just mortgaged
    give = options(trade.get_by_label("Give"))
    assert give == ["Hollywood Blvd. (mortgaged)", "State St."]

    files = opened(page, "Rules and players for New game", "Enter")
    assert files.get_by_label("Rules").input_value() == "default"
    assert files.get_by_role("button", name="Save (download)").is_visible()
    assert files.get_by_text("Load (upload)").is_visible()
    assert errors == [], errors
