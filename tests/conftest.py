"""Shared helpers: build a game from a scenario mapping (the same format as the YAML files)."""

from __future__ import annotations

import gc
import os
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


settings.register_profile(
    "ci", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
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
    its own in it. One per module and not per session: Playwright's sync API runs one at a time
    in a thread, and the modules that drive a browser (or asyncio) themselves start theirs
    after this one is stopped (`./dev test` runs a module's tests together, --dist loadscope)."""
    from browser import launch_chromium
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        yield browser
        browser.close()


@pytest.fixture
def fresh_chromium() -> Any:
    """A Chromium of the test's own, for tests that meet a page's first moments under load: in
    one Chromium shared by the module, anywidget's charts missed their two seconds to start on a
    loaded machine (tests/test_projector.py, in two runs of two)."""
    from browser import launch_chromium
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def dashboard_url() -> Any:
    """The dashboard served as `amteach dashboard` serves it, with its default options, once
    per test process and shared by the modules that only open pages of it (each page has a
    kernel of its own). A test that needs other server options starts its own server."""
    from browser import serve_dashboard

    with serve_dashboard() as served:
        yield served.url


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
# (setup + call + teardown of its tests, --durations=0; a run of 2 December 2026 with the exact
# landing test, at a load of 5 to 19 on 2 cores, so only the proportions count). Unlisted
# modules are short and go last, in their own order; a module's own tests keep their order.
# Only the order changes: the same tests run.
MODULE_SECONDS: dict[str, float] = {
    "tests/test_properties.py": 403,
    "tests/test_accessibility.py": 395,
    "tests/test_lesson_plans.py": 336,
    "tests/test_packaging.py": 179,
    "tests/test_core.py": 161,
    "tests/test_serving_static.py": 159,
    "tests/test_class_browser.py": 115,
    # issue 37 and 39's modules, timed alone on a quiet machine (6 December 2026)
    "tests/test_chart_legends.py": 63,
    "tests/test_question_phones.py": 36,
    "tests/test_gradebook_browser.py": 33,
    "tests/test_class_lesson.py": 30,
    "tests/test_lesson1_moment_d.py": 22,
    "tests/test_accounting.py": 22,
    "tests/test_class_questions.py": 19,
    "tests/test_board_pawns.py": 13,
    "tests/test_class_phones.py": 75,
    "tests/test_client_limits.py": 70,
    "tests/test_page_beacons.py": 50,
    "tests/test_phones.py": 45,
    "tests/test_abandoned_kernels.py": 40,
    "tests/test_serving.py": 97,
    "tests/test_dask.py": 94,
    "tests/test_best_play.py": 77,
    "tests/test_faults.py": 74,
    "tests/test_dashboard_security.py": 72,
    "tests/test_core_rules.py": 49,
    "tests/test_projector.py": 44,
    "tests/test_jupyterhub.py": 43,
    "tests/test_phone.py": 41,
    "tests/test_proxy.py": 40,
    "tests/test_multi_server.py": 38,
    "tests/test_play_panels_browser.py": 34,
    "tests/test_inequality.py": 32,
    "tests/test_browser.py": 29,
    "notebooks/play.ipynb": 28,
    "tests/test_ui.py": 25,
    "tests/test_rooms.py": 24,
    "tests/test_bad_input.py": 24,
    "tests/test_sim.py": 20,
    "tests/test_landing.py": 19,
    "notebooks/who-wins.ipynb": 18,
    "tests/test_save_load.py": 17,
    "notebooks/fairness.ipynb": 16,
    "tests/test_tax_analysis.py": 16,
    "notebooks/landing-odds.ipynb": 14,
    "notebooks/inequality.ipynb": 14,
    "notebooks/returns.ipynb": 14,
    "notebooks/taxes.ipynb": 13,
    "tests/test_cli.py": 12,
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def longest_first(item: pytest.Item) -> float:
        return -MODULE_SECONDS.get(item.nodeid.split("::", 1)[0], 0.0)

    items.sort(key=longest_first)  # stable: each module's tests stay together and in order
