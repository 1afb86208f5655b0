"""The phone screenshots of docs/classroom.md (docs/img/phone-*.png): the game that
tests/test_phone.py plays on a 390x844 phone, kept for the docs.

    .venv/bin/python tests/phone_screenshots.py"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

from browser import launch_chromium, serve_dashboard
from playwright.sync_api import sync_playwright
from test_phone import play_a_game_on_a_phone

from amteach.rooms import ROOMS_ENV, open_rooms

IMG = Path(__file__).resolve().parents[1] / "docs" / "img"

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        database = str(Path(folder) / "class.sqlite")
        open_rooms(database)
        with (
            serve_dashboard(pool=1, env={ROOMS_ENV: database}) as served,
            sync_playwright() as playwright,
        ):
            browser = launch_chromium(playwright)
            server = SimpleNamespace(url=served.url, database=database)
            errors = play_a_game_on_a_phone(IMG, browser, server, student="Ben")
            browser.close()
    for kept_by_the_test_only in IMG.glob("phone-panel-*.png"):
        kept_by_the_test_only.unlink()
    for error in errors:
        print("console error:", error, file=sys.stderr)
    sys.exit(1 if errors else 0)
