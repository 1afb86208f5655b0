"""What the browser tests (and benchmarks/bench_dashboard.py) share: Debian's Chromium driven
by Playwright with one set of launch flags, and the dashboard served exactly as `amteach
dashboard` serves it (same command line, same environment) on a free loopback port."""

from __future__ import annotations

import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from amteach.content import dashboard_notebook
from amteach.serving import TEMPLATE, voila_command, voila_environment

CHROMIUM = "/usr/bin/chromium"
# Playwright's own --disable-features list (its driver's chromiumSwitches): Chromium takes the
# last --disable-features it is given, so a list of ours must repeat Playwright's
# (tests/test_class_browser.py checks it still holds the installed Playwright's)
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
# Chromium 156 draws each window's address-bar popup as a WebUI page: headless, every browser
# context (each phone, each page a test opens) got a renderer of its own for a popup never
# shown, some 0.2 CPU-s and 150 MB each (30 phones: 5 CPU-s and 4.5 GB)
UNUSED_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup")
# no sandbox (tests may run as root in a container), no GPU, and no traffic of Chromium's own
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES + UNUSED_FEATURES),
)


def launch_chromium(playwright: Any) -> Any:
    """Debian's Chromium, headless. Works with Playwright's sync and async APIs (with the
    async one, await the result)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class Served:
    url: str  # ends with "/"
    pid: int


class ServerEnded(RuntimeError):
    """A server stopped before it was serving; the message holds its log's end."""


# Voilà stops with this line when its port is taken (voila_command's port_retries=0: it used to
# move to another port and serve there unannounced, so a test's page could open another
# worker's server). A port free_port() found can be taken before the server binds it.
PORT_TAKEN = "already in use"
PORT_ATTEMPTS = 3


@dataclass(frozen=True)
class Started:
    process: subprocess.Popen
    port: int
    log: list[str]

    def read_log(self) -> None:
        self.log.extend(self.process.stdout)


def start_server(command_on: Callable[[int], list[str]], **popen: Any) -> Started:
    """Start `command_on(port)` on a free loopback port (another, up to PORT_ATTEMPTS times,
    when the port was taken meanwhile) and read its log until it says it is serving. The log
    keeps being read into `Started.log` by a thread, so the server never blocks on a full pipe.
    ServerEnded, with the log's end, if the server stops first. The caller stops it."""
    for attempt in range(1, PORT_ATTEMPTS + 1):
        port = free_port()
        process = subprocess.Popen(
            command_on(port), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **popen
        )
        log: list[str] = []
        try:
            for line in process.stdout:
                log.append(line)
                if "is running at" in line:
                    started = Started(process, port, log)
                    threading.Thread(target=started.read_log, daemon=True).start()
                    return started
        except BaseException:
            process.kill()
            process.wait()
            raise
        process.wait()
        if attempt == PORT_ATTEMPTS or not any(PORT_TAKEN in line for line in log):
            raise ServerEnded("the server ended before serving:\n" + "".join(log[-30:]))
    raise AssertionError("unreachable")


def stop_server(process: subprocess.Popen, seconds: float = 120) -> None:
    """SIGTERM to the server's process id, and wait for it (its kernels stop first: slow at
    load 70)."""
    if process.poll() is None:
        process.terminate()
        process.wait(timeout=seconds)


@contextmanager
def serve_dashboard(
    notebook: Path | None = None,
    pool: int = 1,
    template: str = TEMPLATE,
    cull_after: int = 600,
    env: dict[str, str] | None = None,
) -> Iterator[Served]:
    """Serve `notebook` (default: the dashboard) as `amteach dashboard` does, until the block
    ends; then stop the server by its process id. Ready when Voilà's log says it is running
    (no wall-clock waits). `env` adds to the server's environment (the class database of
    `--rooms`, say)."""
    notebook = notebook or dashboard_notebook()
    with voila_environment() as served_env:
        started = start_server(
            lambda port: voila_command(notebook, port, "127.0.0.1", pool, template, cull_after),
            env={**served_env, **(env or {})},
        )
        try:
            yield Served(f"http://127.0.0.1:{started.port}/", started.process.pid)
        finally:
            stop_server(started.process)


# the dashboard's tabs, in order: tests/test_dashboard_pages.py asserts the dashboard has exactly
# these, and tests/test_accessibility.py visits each of them in a browser
DASHBOARD_TABS = (
    "Play",
    "Who wins",
    "Taxes",
    "Landing odds",
    "Returns",
    "Inequality",
    "Is it fair?",
    "Best play",
    "Rules",
    "Class",
)


# -- what the browser tests do on a page (tests/test_accessibility.py, test_lesson_plans.py,
# test_projector.py, test_dashboard_security.py) -----------------------------------------------
WAIT = 180_000  # ms: a loaded two-core machine starts kernels slowly
# ms between two checks of a wait_for_function's condition. Playwright's default checks it
# on every frame (requestAnimationFrame), which keeps the page drawing frames while it waits:
# about 0.13 CPU-s a second of waiting on a plain page (0.005 at 100 ms), and more on the
# dashboard's, over minutes of waits for kernels and batches on a loaded machine. Every
# condition waited on stays true once met, so checking it 10 times a second misses nothing.
POLL = 100
PROJECTOR = {"width": 1280, "height": 720}


def watched_page(
    browser: Any,
    url: str,
    errors: list[str],
    viewport: dict | None = None,
    timeout: float = WAIT,
    **options: Any,
) -> Any:
    """A new page of `browser` (a 1280 x 720 projector unless `viewport` says otherwise) opened
    at `url`, whose console errors and uncaught exceptions are added to `errors`: a browser
    test asserts that list is empty."""
    page = browser.new_page(viewport=viewport or PROJECTOR, **options)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url, timeout=timeout)
    return page


# the dashboard's tab on show, once it is built (a tab is built when first opened)
TAB_SHOWN = """(title) => {
  const bar = document.querySelector('.widget-tab > .lm-TabBar');
  const current = bar && bar.querySelector('.lm-mod-current');
  const shown = [...document.querySelectorAll('.widget-tab-contents > .lm-Widget')]
    .find((pane) => pane.offsetParent !== null);
  return current && current.innerText.trim() === title && shown
    && !shown.innerText.startsWith('Opening');
}"""


def open_dashboard_tab(page: Any, title: str) -> Any:
    """Open one of the dashboard's tabs (its own tab bar, not a panel's) and wait until its page
    is shown and built; return the page."""
    page.locator(".widget-tab > .lm-TabBar").first.get_by_role(
        "tab", name=title, exact=True
    ).click()
    page.wait_for_function(TAB_SHOWN, arg=title, timeout=WAIT, polling=POLL)
    return page.locator(".widget-tab-contents > .lm-Widget:visible").first


def type_games(page: Any, panel: Any, games: int) -> None:
    """Type `games` into a batch panel's Games slider readout (as a teacher does) and wait until
    the slider shows it."""
    readout = panel.locator(".widget-readout").filter(visible=True).first
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(str(games))
    page.keyboard.press("Enter")
    page.wait_for_function(
        "([el, n]) => el.innerText.trim() === n",
        arg=[readout.element_handle(), str(games)],
        timeout=WAIT,
        polling=POLL,
    )


# -- the Play tab: a scenario loaded, a press that adds to What happened ------------------------
def load(page: Any, scenario: str) -> None:
    """Load a lesson's scenario from the Play tab's toolbar."""
    page.locator(".am-toolbar select").first.select_option(label=scenario)
    page.get_by_role("button", name="Load scenario").click()
    page.get_by_text(f"Scenario {scenario} is set up").wait_for(timeout=WAIT)


def narration_changes(page: Any, press: Any) -> None:
    """Do `press` and wait until What happened has a new line."""
    before = page.locator(".am-narration").inner_text()
    press()
    page.wait_for_function(
        "(b) => document.querySelector('.am-narration').innerText !== b",
        arg=before,
        timeout=WAIT,
        polling=POLL,
    )
