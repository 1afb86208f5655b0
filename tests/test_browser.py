"""The dashboard in a real browser: Voilà serves notebooks/dashboard.ipynb on a free local
port and headless Chromium (Debian's, driven by Playwright) plays a turn, presses Play and
Pause, and runs a small batch. Screenshots land in test-output/browser/."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from browser import POLL

from amteach.content import dashboard_notebook
from amteach.serving import TEMPLATE, voila_command

SHOTS = Path(__file__).resolve().parents[1] / "test-output" / "browser"


@pytest.fixture(scope="module")
def dashboard(dashboard_url, chromium):
    """One dashboard page (one kernel running the dashboard notebook) for both tests that
    open one, watched from before its first request: what it fetches from outside, its
    downloads of plotly's bundle, its console, and every deadline its scripts ask the browser
    for (RECORD_DEADLINES, installed before any of them runs)."""
    seen = SimpleNamespace(console_errors=[], outside_requests=[], plotly_downloads=[])
    page = chromium.new_page(viewport={"width": 1280, "height": 720})
    page.add_init_script(RECORD_DEADLINES)

    # a classroom may have no internet: every file must come from our server. Anything
    # else is noted (and answered empty, so the page cannot hang on it).
    def outside(route) -> None:
        seen.outside_requests.append(route.request.url)
        route.fulfill(status=404, body="")

    page.route(lambda url: not url.startswith(dashboard_url), outside)
    page.on(
        "requestfinished",
        lambda request: (
            seen.plotly_downloads.append(request.url) if "plotly-widget" in request.url else None
        ),
    )
    page.on(
        "console",
        lambda message: (
            seen.console_errors.append(message.text) if message.type == "error" else None
        ),
    )
    page.on("pageerror", lambda error: seen.console_errors.append(str(error)))
    page.goto(dashboard_url)
    yield page, seen
    page.close()


def test_the_dashboard_plays_a_turn_plays_pauses_and_runs_a_batch(dashboard):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page, seen = dashboard
    console_errors, outside_requests = seen.console_errors, seen.outside_requests
    plotly_downloads = seen.plotly_downloads

    # 1. interactive: the board is drawn and the Roll button is there
    page.wait_for_selector(".am-board", timeout=180_000)
    roll = page.locator(".am-choices button", has_text="Roll")
    roll.wait_for(timeout=120_000)
    page.screenshot(path=str(SHOTS / "1-interactive.png"))
    board_before = page.locator(".am-board").inner_html()
    narration_before = page.locator(".am-narration").inner_text()
    charts_before = page.locator(".am-charts").inner_html()

    # 2. a human turn: Roll, then whatever the landing asks (Buy/Decline, a tax), then End turn.
    # Each click replaces the choice buttons, so wait until the clicked one has left the page.
    def click_choice(button) -> None:
        handle = button.element_handle()
        handle.click()
        page.wait_for_function("(el) => !el.isConnected", arg=handle, timeout=120_000, polling=POLL)

    click_choice(roll)
    end_turn = page.locator(".am-choices button", has_text="End turn")
    for _ in range(6):
        page.wait_for_function(
            "document.querySelectorAll('.am-choices button').length > 0",
            timeout=120_000,
            polling=POLL,
        )
        if end_turn.count():
            break
        click_choice(page.locator(".am-choices button").first)
    end_turn.click()
    page.wait_for_function(
        "document.querySelector('.am-narration').innerText.includes('Round 1: Ben')",
        timeout=120_000,
        polling=POLL,
    )
    page.screenshot(path=str(SHOTS / "2-after-human-turn.png"))
    assert page.locator(".am-board").inner_html() != board_before
    assert page.locator(".am-narration").inner_text() != narration_before

    # 3. Play, then Pause: bots move by themselves until a human must choose again
    narration_paused = page.locator(".am-narration").inner_text()
    page.get_by_role("button", name="▶ Play").click()
    page.wait_for_function(
        "(before) => document.querySelector('.am-narration').innerText !== before",
        arg=narration_paused,
        timeout=120_000,
        polling=POLL,
    )
    page.get_by_role("button", name="❚❚ Pause").click()  # the same button, now Pause
    page.get_by_role("button", name="▶ Play").wait_for(timeout=120_000)
    # the charts are built once the page is quiet (plotly's bundle waits for a pause in
    # the clicks: issue 40), and then show the turns played
    page.wait_for_selector(".am-charts .js-plotly-plot", timeout=180_000)
    page.screenshot(path=str(SHOTS / "3-after-play.png"))
    assert page.locator(".am-charts").inner_html() != charts_before

    # 4. a small batch in the Who wins tab
    page.get_by_role("tab", name="Who wins").click()
    page.get_by_role("button", name="Run").first.click()
    charts_on_page = page.locator(".js-plotly-plot").count()
    page.wait_for_selector("text=Who wins, by role", timeout=180_000)
    # the batch adds its charts (win rates, wealth, rents) to those of the Play tab
    page.wait_for_function(
        "(n) => document.querySelectorAll('.js-plotly-plot').length >= n + 3",
        arg=charts_on_page,
        timeout=120_000,
        polling=POLL,
    )
    page.screenshot(path=str(SHOTS / "4-who-wins.png"))

    # 5. an analysis tab, built when first opened: its chart and the sentence reading it
    charts_on_page = page.locator(".js-plotly-plot").count()
    page.get_by_role("tab", name="Landing odds").click()
    page.wait_for_selector("text=is landed on most often", timeout=120_000)
    page.wait_for_function(
        "(n) => document.querySelectorAll('.js-plotly-plot').length >= n + 1",
        arg=charts_on_page,
        timeout=120_000,
        polling=POLL,
    )
    page.screenshot(path=str(SHOTS / "5-landing-odds.png"))

    text = page.locator("body").inner_text()
    assert "Traceback" not in text and "Error" not in text
    assert console_errors == []
    assert outside_requests == []
    # six charts on the page, one download of plotly's bundle (not one copy per chart)
    assert len(plotly_downloads) == 1


# Installed before any of the page's scripts: notes every deadline they ask the browser for
RECORD_DEADLINES = """
window.amteachDeadlines = [];
const native = AbortSignal.timeout.bind(AbortSignal);
AbortSignal.timeout = (ms) => { window.amteachDeadlines.push(ms); return native(ms); };
"""


def test_anywidget_gives_a_widget_60_s_to_start_not_2_s(dashboard):
    """anywidget (0.9 to 0.11) marks a widget's model failed for good when loading its module
    and running its initialize take more than 2 s of wall-clock time
    (AbortSignal.timeout(2000)), which a page on a busy machine can exceed while it draws a
    screen. The template makes that deadline 60 s: the first screen's anywidget (the live
    charts' watcher) gets 60 s, and no script of the page asks for 2 s."""
    # the module's page, which has this recorder from its start (after the test before, it
    # has drawn a batch's and an analysis tab's charts too: all their deadlines count)
    page, _ = dashboard
    # the first screen drawn: its board (Roll on a page of its own; on the module's page the
    # test before has played on, and left it on the Landing odds tab)
    page.get_by_role("tab", name="Play", exact=True).click(timeout=180_000)
    page.locator(".am-board").wait_for(timeout=180_000)
    page.wait_for_function("window.amteachDeadlines.includes(60000)", timeout=180_000, polling=POLL)
    asked = page.evaluate("window.amteachDeadlines")
    assert 2000 not in asked, asked


def test_the_dashboard_command_prints_where_it_serves():
    from click.testing import CliRunner

    from amteach.cli import main

    result = CliRunner().invoke(main, ["dashboard", "--help"])
    assert result.exit_code == 0 and "--port" in result.output and "--ip" in result.output
    template = next(p for p in main.commands["dashboard"].params if p.name == "template")
    assert template.default == TEMPLATE == "amteach-lean"  # issue 24: the lean front end
    command = voila_command(
        dashboard_notebook(), 9999, "0.0.0.0", pool=3, template=TEMPLATE, cull_after=900
    )
    assert command[:3] == [sys.executable, "-m", "amteach.serving.app"]  # Voilà, with a kernel cap
    assert "--strip_sources=True" in command and "--show_tracebacks=False" in command
    assert "--VoilaConfiguration.file_allowlist=[]" in command  # /voila/files/ serves nothing
    assert "--preheat_kernel=True" in command and "--pool_size=3" in command
    assert "--VoilaExecutor.iopub_timeout=120" in command
    assert any("extension_denylist" in part and "jupyterlab-plotly" in part for part in command)
    assert "--MappingKernelManager.cull_idle_timeout=900" in command
    assert "--Voila.ip=0.0.0.0" in command and "--port=9999" in command
