"""Shared helpers: build a game from a scenario mapping (the same format as the YAML files)."""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from amteach.engine.errors import IllegalChoice
from amteach.engine.game import Game
from amteach.engine.scenario import load_scenario, play_script


def pytest_sessionstart(session: pytest.Session) -> None:
    """Stop at once, saying why, when .venv is out of date for this checkout (a dependency
    added since it was installed, say): run ./dev, which reinstalls (tests/installed.py)."""
    from installed import problems

    if found := problems():
        pytest.exit(
            ".venv is out of date for this checkout; run ./dev check (it reinstalls):\n  "
            + "\n  ".join(found),
            returncode=2,
        )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Take what collection left alive (pytest, hypothesis, numpy, pandas, plotly, the test
    modules: some 200,000 objects) out of the garbage collector's sight. CPython's full
    collections traverse every tracked object, and a test that keeps many objects (a game's
    events) sets them off again and again: tests that play engine games used 15-20% more CPU
    with them (a run of tests/test_core.py's frame comparisons: 87 CPU-s against 71). Objects made
    afterwards are collected as usual; nothing a test checks changes."""
    gc.collect()
    gc.freeze()


# -- hypothesis: how many examples each property gets (docs/development.md, "The suite") ------
# A profile sets the examples of every @given that does not set its own. No deadline anywhere:
# an example's time on a shared two-core machine says nothing about the code (speed is measured
# in benchmarks/), and a whole game of random play is "too slow" by hypothesis's measure.
_PROPERTIES = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
# "ci", `./dev test` on the compiled core (and plain pytest): 100 examples. In
# tests/test_properties.py one example is a whole game with the invariants checked after every
# decision, so its eight properties play 800 games a run (about 26 CPU-s in all since the check
# reads each state column once; 56 before). 300 took 400 s when a check cost more, two thirds
# of the ten-minute budget's share for one module; 100 still plays each property's
# game shapes (2 to 6 seats, any bots, scarce supply, trades) many times over, and every run
# draws new seeds, so the examples add up across runs. Hypothesis keeps each failure it finds in
# .hypothesis/ and replays it first; `amteach simulate --check-invariants` checks the same
# invariants over 100,000 games (docs/development.md, "Invariants at scale").
settings.register_profile("ci", max_examples=100, **_PROPERTIES)
# "dev", `./dev check` and `./dev test`'s second pass on the pure-Python core (the same
# properties once more, on the slower core, after the compiled core's 100): 60 examples, which
# keeps `./dev check` near a minute.
settings.register_profile("dev", max_examples=60, **_PROPERTIES)
# "thorough", by hand after a change to the rules, the bots or either core, or before a release
# (HYPOTHESIS_PROFILE=thorough .venv/bin/pytest tests/test_properties.py): 1,000 examples, 8,000
# games for test_properties.py alone, some 5 CPU-minutes, the depth the old 300 was meant for.
settings.register_profile("thorough", max_examples=1000, **_PROPERTIES)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO.parent / "shared" / "spec"

# the small sweep that tests/test_sweep.py and tests/test_fairness.py share
FEE = "foundation_monopolist_fee"
FEES = (10, 160)
GAMES = 12
CAP = 60
MIXED = "competitor:investor,monopolist:builder,competitor:cautious,monopolist:investor"


def scenario(players: list[dict[str, Any]], script: list[Any] = (), **fields: Any) -> Game:
    """A game set up from scenario fields, with `script` played. Example:

    scenario([{"name": "Ana", "role": "competitor"}, {"name": "Ben", "role": "monopolist"}],
             ["roll"], dice=[[3, 4]])
    """
    game, _ = load_scenario({"players": players, **fields})
    return play_script(game, list(script))


def two(
    ana: dict[str, Any] | None = None, ben: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Ana the Competitor and Ben the Monopolist, with any extra fields for each."""
    return [
        {"name": "Ana", "role": "competitor", **(ana or {})},
        {"name": "Ben", "role": "monopolist", **(ben or {})},
    ]


def events_of(game: Game, kind: str) -> list[Any]:
    return [e for e in game.events if e.type == kind]


@pytest.fixture
def spec_dir() -> Path:
    """The rules specification (shared/spec beside the checkout), which a few tests compare
    the package's data with."""
    if not SPEC.is_dir():
        pytest.fail(
            f"this test needs the rules specification, which is missing: expected the folder "
            f"{SPEC} (shared/spec beside this checkout, with seed-rules.txt, decisions.md, "
            "board-2005.csv and cards.csv)",
            pytrace=False,
        )
    return SPEC


@pytest.fixture(scope="module")
def fee_sweep() -> Any:
    from amteach.sim.sweep import sweep

    return sweep(
        FEE, list(FEES), games=GAMES, seats=MIXED, seed=3, workers=1, round_cap=CAP, progress=False
    )


# -- the browser tests' Chromium and dashboard (tests/browser.py) --------------------------------
@pytest.fixture(scope="module")
def chromium() -> Any:
    """Debian's Chromium, headless, shared by the tests of one module: each test opens pages of
    its own in it (through `browser`, which closes them after the test). One per module and not
    per session: while Playwright's sync API is open it leaves its event loop set as the
    thread's running loop, so `asyncio.run` and `loop.run_until_complete` fail in the test
    process (tests/test_serving.py, test_phones.py, test_client_limits.py, ... run their own
    loops), and Playwright's sync and async APIs do not run side by side in a thread; the
    modules that drive asyncio start their loops after this one is stopped (`./dev test` runs a
    module's tests together, --dist loadscope). What a session shares is the servers
    (`class_server`): a Chromium starts in about 1.5 s, a served dashboard with its first
    kernel in 16 to 20 s at load 14."""
    from browser import launch_chromium
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        yield browser
        browser.close()


@pytest.fixture
def browser(chromium: Any) -> Any:
    """The module's Chromium for one test, which opens its pages in contexts of its own
    (`browser.new_page()` makes one; `browser.new_context()` for a device of several pages):
    the contexts the test opened are closed when it ends, so no page, storage, cookie or
    websocket of one test is left for the next."""
    before = set(chromium.contexts)
    yield chromium
    for context in chromium.contexts:
        if context not in before:
            context.close()


@pytest.fixture(scope="session")
def dashboard_url(class_server: Any) -> str:
    """The dashboard served as `amteach dashboard` serves it, once per test process and shared
    by the modules that only open pages of it (each page has a kernel of its own): the session's
    `class_server`, whose class database is a temporary file where `amteach dashboard`'s is
    amteach-rooms.sqlite in the folder it runs in (one server, not two, and no class database
    left in the checkout). A test that needs other server options starts its own server."""
    return class_server.url


@dataclass(frozen=True)
class ClassServer:
    url: str  # ends with "/"
    pid: int
    database: str  # the class database (`--rooms`): each test makes rooms of its own in it


@pytest.fixture(scope="session")
def class_server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The dashboard served as `amteach dashboard --rooms DATABASE` serves it, once per test
    process, for the class-play browser tests that need only rooms of their own: each makes
    its room (a fresh code, so no seat, table or game of another test's) with
    `open_rooms(class_server.database)`, and opens its pages in contexts of its own (the
    `browser` fixture closes them). Two preheated kernels: an instructor's page and a second
    dashboard page each get one at once. A test that kills the server, counts its kernels or
    requests, or needs other options, starts a server of its own (tests/served.py)."""
    from browser import serve_dashboard

    from amteach.rooms import ROOMS_ENV, open_rooms

    database = str(tmp_path_factory.mktemp("class-server") / "class.sqlite")
    open_rooms(database)
    with serve_dashboard(pool=2, env={ROOMS_ENV: database}) as served:
        yield ClassServer(served.url, served.pid, database)


@pytest.fixture
def no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if any game is played (bad input must be refused before that)."""
    from amteach.analysis import fairness
    from amteach.sim import sweep

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a game was played before the input was checked")

    for module in (sweep, fairness):
        monkeypatch.setattr(module, "simulate", refuse)
    monkeypatch.setattr(sweep, "play_game", refuse)


def ben_first(
    ana: dict[str, Any] | None = None, ben: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Ben the Monopolist moves first, then Ana the Competitor."""
    return list(reversed(two(ana=ana, ben=ben)))


def assert_illegal(game: Game, choice: Any, *rule_parts: str, player: Any = None) -> IllegalChoice:
    """The choice raises IllegalChoice naming one of `rule_parts`, and nothing changes."""
    before, n_events, n_decisions = game.state.as_dict(), len(game.events), len(game.decisions)
    with pytest.raises(IllegalChoice) as err:
        game.apply(choice, player=player)
    assert any(part in err.value.rule for part in rule_parts), err.value.rule
    assert game.state.as_dict() == before
    assert (len(game.events), len(game.decisions)) == (n_events, n_decisions)
    return err.value


# -- the order in which `./dev test`'s two workers take the modules -----------------------------
# With --dist loadscope a worker takes one whole module at a time, in collection order (./dev
# passes --no-loadscope-reorder: xdist's own order, most tests first, left the long one-test
# browser and server modules to the end, one worker busy with them while the other idled).
# Longest first, so the two finish together: the seconds one module took in a `./dev test` run
# (setup + call + teardown of its tests, from --junitxml; the main pass of 7 December 2026,
# 02:16 UTC, after jsonschema's pin: 2,103 tests in 510 s on a quiet machine, load 2 to 5 from
# the suite itself, 977 worker-seconds in all). Unlisted modules are short and go last, in
# their own order; a module's own tests keep their order.
# Only the order changes: the same tests run.
MODULE_SECONDS: dict[str, float] = {
    "tests/test_accessibility.py": 85,
    "tests/test_lesson_plans.py": 61,
    "tests/test_core.py": 56,
    "tests/test_class_browser.py": 36,
    "tests/test_abandoned_kernels.py": 36,
    "tests/test_serving.py": 34,
    "tests/test_faults.py": 33,
    "tests/test_dask.py": 31,
    "tests/test_jupyterhub.py": 30,
    "tests/test_class_lesson.py": 30,
    "tests/test_chart_legends.py": 29,
    "tests/test_best_play.py": 27,
    "tests/test_dashboard_security.py": 26,
    "tests/test_packaging.py": 26,
    "tests/test_projector.py": 25,
    "tests/test_client_limits.py": 24,
    "tests/test_serving_static.py": 20,
    "tests/test_phones.py": 18,
    "tests/test_proxy.py": 18,
    "tests/test_lean_frontend.py": 13,
    "tests/test_play_panels_browser.py": 12,
    "tests/test_browser.py": 12,
    "tests/test_phone.py": 12,
    "tests/test_policy_lab_browser.py": 12,
    "tests/test_page_beacons.py": 12,
    "tests/test_question_phones.py": 11,
    "tests/test_multi_server.py": 11,
    "tests/test_properties.py": 10,
    "tests/test_gradebook_browser.py": 10,
    "notebooks/fairness.ipynb": 9,
    "tests/test_core_rules.py": 9,
    "tests/test_lessons.py": 9,
    "tests/test_health.py": 9,
    "tests/test_class_phones.py": 8,
    "tests/test_landing.py": 8,
    "tests/test_deploy_guide.py": 7,
    "tests/test_dev_setup.py": 7,
    "tests/test_policy_lab.py": 7,
    "tests/test_cli.py": 6,
    "tests/test_visitor_safety.py": 6,
    "tests/test_lesson1_moment_d.py": 6,
    "tests/test_rooms.py": 6,
    "tests/test_recipes.py": 6,
    "tests/test_room_limits.py": 6,
    "tests/test_ui.py": 5,
    "tests/test_sim.py": 5,
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def longest_first(item: pytest.Item) -> float:
        return -MODULE_SECONDS.get(item.nodeid.split("::", 1)[0], 0.0)

    items.sort(key=longest_first)  # stable: each module's tests stay together and in order
