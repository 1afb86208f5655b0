"""Screenshots for the docs (docs/img/): the Play tab mid-game, the *Who wins* tab after a
batch and the *Rules* tab, at a classroom projector's 1280x720 and at 1920x1080, from the
dashboard served exactly as `amteach dashboard` serves it.

    .venv/bin/python tests/screenshots.py after      # docs/img/play-1280-after.png, ...

The game on the Play tab is a saved game (bots played its first decisions), uploaded with
*Load (upload)* as a visitor would, so every run shows the same moment."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from browser import launch_chromium, serve_dashboard
from playwright.sync_api import sync_playwright

from amteach.session import Session

IMG = Path(__file__).resolve().parents[1] / "docs" / "img"
SIZES = ((1280, 720), (1920, 1080))
MID_GAME_DECISIONS = 160
WAIT = 180_000


def mid_game_save() -> bytes:
    """A four-player game after `MID_GAME_DECISIONS` bot decisions, stopped where Ana (a
    person's seat when loaded) has a choice to make."""
    seats = [
        ("Ana", "competitor", "investor"),
        ("Ben", "monopolist", "investor"),
        ("Cleo", "competitor", "cautious"),
        ("Dev", "monopolist", "builder"),
    ]
    session = Session(seats, seed=11)
    game = session.game
    taken = 0
    while not game.over and (taken < MID_GAME_DECISIONS or game.actor != 0):
        session.step()
        taken += 1
    return json.dumps(game.to_save()).encode()


def load_mid_game(page) -> None:
    # the accordion that holds Load (upload): "... save and load ..." (its title changed)
    opener = page.get_by_text("save and load")
    if opener.count() and not page.get_by_role("button", name="Load (upload)").is_visible():
        opener.first.click()
    with page.expect_file_chooser(timeout=WAIT) as chooser:
        page.get_by_role("button", name="Load (upload)").click()
    chooser.value.set_files(
        [{"name": "mid-game.json", "mimeType": "application/json", "buffer": mid_game_save()}]
    )
    page.get_by_text("Loaded a saved game").wait_for(timeout=WAIT)
    page.locator(".am-choices button").first.wait_for(timeout=WAIT)


def to_top(page) -> None:
    """Scroll every scrolled box back to its top (Voilà scrolls a box, not the window)."""
    page.evaluate(
        "for (const el of document.querySelectorAll('*')) if (el.scrollTop) el.scrollTop = 0;"
        "window.scrollTo(0, 0)"
    )


def shoot(url: str, label: str, width: int, height: int) -> list[Path]:
    saved = []
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(url)
        page.locator(".am-choices button").first.wait_for(timeout=WAIT)
        load_mid_game(page)
        to_top(page)
        page.locator(".js-plotly-plot").first.wait_for(timeout=WAIT)
        path = IMG / f"play-{width}-{label}.png"
        page.screenshot(path=str(path))
        saved.append(path)

        page.get_by_role("tab", name="Who wins").click()
        page.get_by_role("button", name="Run").first.click()
        page.get_by_text("Who wins, by role").first.wait_for(timeout=WAIT)
        page.wait_for_function(
            "document.querySelectorAll('.js-plotly-plot .bars').length > 0", timeout=WAIT
        )
        to_top(page)
        path = IMG / f"who-wins-{width}-{label}.png"
        page.screenshot(path=str(path))
        saved.append(path)

        page.get_by_role("tab", name="Rules").click()
        page.locator("table:visible").first.wait_for(timeout=WAIT)
        to_top(page)
        path = IMG / f"rules-{width}-{label}.png"
        page.screenshot(path=str(path))
        saved.append(path)
        browser.close()
    return saved


def main(label: str) -> None:
    IMG.mkdir(parents=True, exist_ok=True)
    with serve_dashboard() as served:
        for width, height in SIZES:
            for path in shoot(served.url, label, width, height):
                print(path)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "after")
