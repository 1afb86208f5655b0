"""Record the scripts a served page fetches between its load event and the moment it is
interactive, into amteach/voila_template/preload.json (the amteach template's preload hints).

    .venv/bin/python benchmarks/record_preload.py

Voilà's page starts its widgets only at the window's load event, and then fetches in waves,
each wave asked for by the one before: the widget extensions' entry files, their chunks, the
kernel API, more of Voilà's own chunks, more of the widget manager's. Each wave waits for the
last over the network. Named in the page's head as preload hints (`amteach.serving.
environment.preload_links`), they are fetched while the page's first scripts load instead.

The file names carry the content hashes of Voilà's and the widget extensions' builds, so run
this again after upgrading voila, ipywidgets or anywidget: tests/test_serving.py fails when a
name in the list is no longer served (and the server leaves out such a name meanwhile).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from browser import launch_chromium, serve_dashboard  # the tests' own helpers

from amteach.rooms import ROOMS_ENV, RoomSettings, open_rooms
from amteach.serving.environment import PRELOAD_LIST, TEMPLATE_FOLDER

REPO = Path(__file__).resolve().parents[1]
# the page's path to interactive, as benchmarks/bench_dashboard.py times it
DASHBOARD_READY = (
    "[...document.querySelectorAll('.am-choices button')]"
    ".some(b => b.innerText.includes('Roll') && !b.disabled)"
)
JOIN_READY = (
    "[...document.querySelectorAll('button')]"
    ".some(b => b.innerText.trim() === 'Join' && !b.disabled)"
)
AFTER_LOAD = """() => {
    const load = performance.getEntriesByType('navigation')[0].loadEventStart;
    const now = performance.now();
    return performance.getEntriesByType('resource')
        .filter((r) => r.initiatorType === 'script' && r.startTime >= load && r.startTime <= now)
        .map((r) => r.name);
}"""


def fetched_after_load(url: str, ready: str) -> list[str]:
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(url, timeout=600_000)
        page.wait_for_function(ready, timeout=300_000)
        names = page.evaluate(AFTER_LOAD)
        browser.close()
    return names


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="amteach-preload-") as folder:
        database = str(Path(folder) / "class.sqlite")
        code = open_rooms(database).create(RoomSettings(tables=1, seats=2))
        with serve_dashboard(pool=1, env={ROOMS_ENV: database}) as server:
            found: list[str] = []
            for address, ready in (
                (server.url, DASHBOARD_READY),
                (f"{server.url}?room={code}", JOIN_READY),
            ):
                for name in fetched_after_load(address, ready):
                    path = name.removeprefix(server.url + "voila/")
                    if path != name and path not in found and "templates/" not in path:
                        found.append(path)
    target = REPO / "amteach" / TEMPLATE_FOLDER / PRELOAD_LIST
    target.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    print(f"{len(found)} scripts fetched after the load event, written to {target}")


if __name__ == "__main__":
    main()
