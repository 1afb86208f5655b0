"""Lesson 1, moment D on a 1280x720 projector (issue 39), in a real browser.

The plan opens the Build panel in moment C (*who may build*) and never closes it; moment D then
loads *same cash two tax rates*, and the teacher reads Ben's two tax options aloud from What
happened ("Ben's percentage would be $300"). With the panel still open, What happened started
below line 720. Another game now starts with the Build and Trade panels closed: after D loads,
the two buttons, and after Ana pays, ends her turn and Ben's bot plays, the line with Ben's
$300 option, lie inside the 1280x720 screen and inside the boxes that scroll them.
"""

from __future__ import annotations

from pathlib import Path

from browser import PROJECTOR, WAIT, load, narration_changes, watched_page

SHOTS = Path(__file__).resolve().parents[1] / "test-output" / "browser"

# how much of an element shows: its box cut by the screen and by every ancestor that clips
# (scroll boxes), as a share of its height
SHOWN = """(el) => {
  const r = el.getBoundingClientRect();
  let top = Math.max(r.top, 0), bottom = Math.min(r.bottom, window.innerHeight);
  let left = Math.max(r.left, 0), right = Math.min(r.right, window.innerWidth);
  for (let up = el.parentElement; up; up = up.parentElement) {
    const style = getComputedStyle(up);
    if (style.overflowY !== 'visible' || style.overflowX !== 'visible') {
      const box = up.getBoundingClientRect();
      top = Math.max(top, box.top); bottom = Math.min(bottom, box.bottom);
      left = Math.max(left, box.left); right = Math.min(right, box.right);
    }
  }
  return bottom > top && right > left ? (bottom - top) / r.height : 0;
}"""


def test_moment_d_shows_bens_300_option_on_a_1280x720_projector(dashboard_url, browser):
    errors: list[str] = []
    page = watched_page(browser, dashboard_url, errors, PROJECTOR)
    page.locator(".am-choices button").first.wait_for(timeout=WAIT)
    # moment C: the Build panel opened, and left open
    load(page, "who may build")
    header = page.locator(".am-decide-more .jupyter-widget-Collapse-header").filter(
        has_text="Build, sell, mortgage, redeem"
    )
    header.click()
    page.locator(".am-manage").first.wait_for(timeout=WAIT)
    assert page.locator(".am-manage").first.is_visible()

    # moment D: the panel is closed, the two options are on screen
    load(page, "same cash two tax rates")
    page.locator(".am-manage").first.wait_for(state="hidden", timeout=WAIT)
    flat = page.get_by_role("button", name="Pay $200 flat")
    cheaper = page.locator(".am-choices button", has_text="Pay $150")
    for button in (flat, cheaper):
        assert button.evaluate(SHOWN) == 1, button.inner_text()
    narration_changes(page, cheaper.click)
    narration_changes(page, lambda: page.get_by_role("button", name="End turn").click())
    for _ in range(2):
        narration_changes(page, lambda: page.get_by_role("button", name="Step", exact=True).click())
    page.screenshot(path=str(SHOTS / "lesson1-moment-d-1280.png"))
    # the line with Ben's two options, $300 among them, whole on the screen and in its
    # scroll boxes (a line of What happened, not the box of all of them)
    line = page.locator(".am-narration .widget-html-content > div").filter(
        has_text="Ben (Monopolist) lands on Income Tax and chooses"
    )
    line.wait_for(timeout=WAIT)
    assert "$300" in line.inner_text()
    assert line.evaluate(SHOWN) == 1, (line.inner_text(), line.bounding_box())
    # and What happened's heading too
    heading = page.locator(".am-narration-box b", has_text="What happened").first
    assert heading.evaluate(SHOWN) == 1, heading.bounding_box()
    # taking a decision back keeps a panel open: only another game closes it
    header.click()
    page.locator(".am-manage").first.wait_for(timeout=WAIT)
    page.get_by_role("button", name="Undo").click()
    page.get_by_text("Took back the last decision").wait_for(timeout=WAIT)
    assert page.locator(".am-manage").first.is_visible()
    assert errors == []
    page.close()
