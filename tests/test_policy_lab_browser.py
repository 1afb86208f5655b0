"""The *What if…* panel in Chromium (issue 38): on the Is it fair? tab, a teacher changes a
rule and starts best play under it by keyboard alone, sees the progress bar move, and cancels;
axe-core finds no serious or critical violation before, during and after. The panel's result
on a second run is tested without a browser (tests/test_policy_lab.py)."""

from __future__ import annotations

from browser import POLL, WAIT, open_dashboard_tab
from browser import watched_page as watched
from test_accessibility import axe_report, axe_violations

from amteach.engine.rules import RuleSet
from amteach.ui.what_if import WHAT_IF_RULES

PROGRESS_MOVED = """(panel) => {
  const bar = panel.querySelector('.progress-bar');
  return bar && parseFloat(bar.style.width || '0') > 0;
}"""


def test_the_what_if_panel_runs_and_cancels_by_keyboard_and_passes_axe(dashboard_url, chromium):
    errors: list[str] = []
    page = watched(chromium, dashboard_url, errors)
    open_dashboard_tab(page, "Is it fair?")
    panel = page.locator(".am-whatif")
    panel.wait_for(timeout=WAIT)
    found = {"before a search": axe_violations(page)}
    # by keyboard: the game length and the rule (selects: the arrow keys choose), the value,
    # then the button. The longest length (the last of its list): the search must still run
    # when Cancel is pressed, after an axe run; at two-hour games it took 4.4 s on one core
    # (7 December 2026), and the compiled core keeps getting faster; at 200 rounds, 24 s
    length = panel.get_by_label("Game length", exact=True)
    length.focus()
    page.keyboard.press("End")
    page.wait_for_function(
        # (ipywidgets writes an option's spaces as no-break spaces)
        "(el) => el.selectedOptions[0].text.replace(/\\s/g, ' ')"
        ".startsWith('Time is up after 200 rounds')",
        arg=length.element_handle(),
        timeout=WAIT,
        polling=POLL,
    )
    rule = panel.get_by_label("Rule", exact=True)
    rule.focus()
    page.keyboard.press("End")  # the last rule of the list: the fine
    page.wait_for_function(
        "(el) => el.value === '' || el.selectedOptions[0].text.startsWith('Fine')",
        arg=rule.element_handle(),
        timeout=WAIT,
        polling=POLL,
    )
    assert rule.evaluate("(el) => el.selectedOptions[0].text").startswith("Fine")
    # the kernel answers a new rule with its value under the rules (the box's start): typed
    # before that answer came, $150 would be overwritten by it. Once it shows, the kernel has
    # also had the game length, sent before the rule
    value = panel.get_by_label("New value ($)", exact=True)
    fine = RuleSet.preset("default").to_dict()["fine"]
    assert fine != RuleSet.preset("default").to_dict()[WHAT_IF_RULES[0]]  # the box changes
    page.wait_for_function(
        "([el, fine]) => el.value === String(fine)",
        arg=[value.element_handle(), fine],
        timeout=WAIT,
        polling=POLL,
    )
    value.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("150")
    page.keyboard.press("Tab")  # on to the preset: the value is sent
    button = panel.get_by_role("button", name="Show best play", exact=True)
    button.focus()
    page.keyboard.press("Enter")
    panel.get_by_text(
        "Searching best play with the fine to leave Prison or Price War set to $150 "
        "(default rules, time is up after 200 rounds)"
    ).wait_for(timeout=WAIT)
    page.wait_for_function(PROGRESS_MOVED, arg=panel.element_handle(), timeout=WAIT, polling=POLL)
    found["while it searches"] = axe_violations(page)
    cancel = panel.get_by_role("button", name="Cancel", exact=True)
    cancel.focus()
    page.keyboard.press("Enter")
    panel.get_by_text("Cancelled: the search stopped before a result.").wait_for(timeout=WAIT)
    assert button.is_enabled() and cancel.is_disabled()
    found["after Cancel"] = axe_violations(page)
    page.close()
    assert not any(found.values()), axe_report(found)
    assert errors == []
