"""The policy lab (issue 38): best play under a changed rule set in a minute
(`amteach.analysis.best_play_quick`), the `amteach best-play` options it shares with
`amteach simulate` (--rules, --set, --length), and its agreement with the shipped full searches.
Budgets here are small (tens of games a rung); the minute is measured in
benchmarks/bench_best_play.py."""

from __future__ import annotations

import functools
import html
import itertools

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from amteach.analysis import best_play_quick, best_play_results, outcomes, stats
from amteach.analysis.best_play_quick import MIN_GAMES
from amteach.analysis.best_play_results import COMPETITOR, MONOPOLIST
from amteach.cli import main
from amteach.engine.board import ROLES
from amteach.engine.errors import InputError

# a small plan: rungs of 40, 80 and 160 games, the checks on 600 games a side; the final
# figures on as many games as a quick run plays by default, since they are the headline
SMALL = {"first_games": 40, "most_games": 160, "check_games": 600, "budget_seconds": 600.0}


@pytest.fixture(scope="module")
def changed_run():
    """A quick run under a changed rule (the Monopolists' Foundation fee of edition-2005 on
    the default rules), two-hour games, on one worker."""
    return best_play_quick.quick_best_play(
        "default",
        {"foundation_monopolist_fee": 160},
        round_cap=outcomes.TWO_HOUR_ROUNDS,
        seed=4,
        workers=1,
        final_games=1200,
        **SMALL,
    )


# -- the command's options -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--set", "no_such_rule=3"], "no_such_rule"),
        (["--set", "foundation_monopolist_fee"], "--set takes name=value"),
        (["--set", "foundation_monopolist_fee=-5"], "foundation_monopolist_fee"),
        (["--length", "forever"], "--length 'forever' is not a game length"),
        (["--length", "two-hour", "--round-cap", "200"], "both say when time is up"),
        (["--length", "60", "--set", "round_cap=9"], "both give the round cap; give it once"),
        (["--rules", "house"], "unknown rules preset 'house'"),
        (["--generations", "2"], "--generations belongs to the full search; add --full"),
        (["--budget", "0"], "--budget must be above 0"),
        (["--phases", "none"], "--phases must be a whole number"),
    ],
)
def test_bad_options_get_one_line_naming_what_was_wrong(args, words):
    """The same parsing as `amteach simulate` (its --set and --length), one line, exit 2."""
    result = CliRunner().invoke(main, ["best-play", *args])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.strip().splitlines() if "deprecated" not in line]
    assert len(lines) == 1 and lines[0].startswith("amteach: "), result.stderr
    assert words in lines[0] and "Traceback" not in result.output


def test_the_round_cap_option_is_a_deprecated_name_for_length():
    result = CliRunner().invoke(main, ["best-play", "--round-cap", "40", "--set", "fine=-1"])
    assert "--round-cap is deprecated; use --length 40" in result.stderr
    assert result.exit_code == 2 and "fine" in result.stderr.splitlines()[-1]


def test_best_play_and_simulate_take_the_same_length_names():
    """--length's words are simulate's: every name it offers, in the help of both."""
    for command in ("best-play", "simulate"):
        (option,) = [p for p in main.commands[command].params if p.name == "length"]
        for key in outcomes.LENGTHS_BY_KEY:
            assert key in option.help, (command, key)


def test_the_settings_refuse_a_bad_rule_value_before_any_game():
    with pytest.raises(InputError, match="foundation_monopolist_fee"):
        best_play_quick.QuickSettings(overrides=(("foundation_monopolist_fee", -1),)).check()
    with pytest.raises(InputError, match="most games"):
        best_play_quick.QuickSettings(first_games=200, most_games=100).check()


# -- the quick search against the full one -------------------------------------------------------
def quick_on(preset: str) -> best_play_results.BestPlayResult:
    return best_play_quick.quick_best_play(
        preset, round_cap=outcomes.TWO_HOUR_ROUNDS, seed=0, workers=1, **SMALL
    )


def assert_says_how_far(result: best_play_results.BestPlayResult, preset: str) -> bool:
    """The quick run's distance from the shipped full search, recomputed from the wins; returns
    whether the quick headline lies in the full search's 95% interval."""
    full = best_play_results.shipped(preset, "two-hour").summary["equilibrium"]
    quick = result.summary["equilibrium"]
    rate = quick[MONOPOLIST]["wins"] / quick["games"]
    inside = full[MONOPOLIST]["ci_low"] <= rate <= full[MONOPOLIST]["ci_high"]
    far = result.summary["full_search"]
    change = stats.compare_batches(
        full[MONOPOLIST]["wins"], full["games"], quick[MONOPOLIST]["wins"], quick["games"]
    )
    assert (far["difference"], far["difference_low"], far["difference_high"]) == pytest.approx(
        (change.difference, change.low, change.high)
    )
    assert far["within_interval"] is inside
    line = next(x for x in best_play_quick.report_lines(result) if x.startswith("Against"))
    assert f"{100 * change.difference:+.1f} points" in line
    assert ("inside its interval" if inside else "outside its interval") in line
    # it started from the shipped run for that preset and length
    assert result.summary["start"] == {
        "preset": preset,
        "length": "two-hour",
        "command": best_play_results.shipped(preset, "two-hour").summary["command"],
    }
    return inside


@pytest.mark.parametrize("preset", best_play_results.SHIPPED_PRESETS)
def test_the_quick_headline_falls_in_the_full_searchs_interval(preset):
    """On either preset's rules unchanged (issue 38: "on both presets"), the quick search's
    Monopolist win rate (4,800 fresh games, the default) lies in the shipped full search's 95%
    interval, and it says how far it is."""
    assert assert_says_how_far(quick_on(preset), preset)


# -- what it reports -----------------------------------------------------------------------------
def test_the_report_names_its_conditions(changed_run):
    s = changed_run.summary
    assert s["rules_changed"] == {"foundation_monopolist_fee": 160}
    assert s["round_cap"] == outcomes.TWO_HOUR_ROUNDS and s["search"] == "quick"
    assert "full_search" not in s  # a changed rule set has no shipped full search
    lines = best_play_quick.report_lines(changed_run)
    text = "\n".join(lines)
    figures = s["equilibrium"]
    for role in ROLES:
        wins, games = figures[role]["wins"], figures["games"]
        low, high = stats.exact_interval(wins, games)
        assert (figures[role]["ci_low"], figures[role]["ci_high"]) == pytest.approx((low, high))
        assert f"{100 * wins / games:.1f}%" in text
        assert f"{100 * low:.1f}% to {100 * high:.1f}%" in text
    assert "default rules with foundation_monopolist_fee = 160" in text
    assert "two-hour game (about 40 rounds)" in text
    assert f"{games:,} fresh games" in text and f"seed {s['seed']}" in text
    assert f"{s['candidates']} candidates" in text
    # the strategies: each role's, read back from the files' text
    for role in ROLES:
        assert changed_run.best(role).text() == changed_run.strategies[role]["text"]


def test_how_approximate_is_the_largest_gain_its_checks_found(changed_run):
    check = changed_run.summary["approximation"]
    rows = {role: check[role] for role in ROLES if role in check}
    assert rows, "no role's last check measured against the final strategies"
    n = check["check_games"]
    for row in rows.values():
        change = stats.compare_batches(
            round(row["final_rate"] * n), n, round(row["best_response_rate"] * n), n
        )
        assert (row["gain"], row["ci_low"], row["ci_high"]) == pytest.approx(
            (change.difference, change.low, change.high)
        )
    role, largest = max(rows.items(), key=lambda item: item[1]["gain"])
    line = next(
        x for x in best_play_quick.report_lines(changed_run) if x.startswith("How approximate")
    )
    plural = {COMPETITOR: "Competitors", MONOPOLIST: "Monopolists"}[role]
    assert f"{100 * largest['gain']:+.1f} points for the {plural}" in line
    assert "lower bound" in line
    # the same figure the Best play tab reads from a shipped run
    assert best_play_results.largest_gains(changed_run.summary)[role]["gain"] == largest["gain"]


def test_a_changed_rule_is_compared_with_best_play_under_the_unchanged_rules(changed_run):
    start = best_play_results.shipped("default", "two-hour").summary["equilibrium"]
    mine = changed_run.summary["equilibrium"]
    change = stats.compare_batches(
        start[MONOPOLIST]["wins"], start["games"], mine[MONOPOLIST]["wins"], mine["games"]
    )
    row = changed_run.summary["against_start"]
    assert (row["difference"], row["difference_low"], row["difference_high"]) == pytest.approx(
        (change.difference, change.low, change.high)
    )
    line = next(x for x in best_play_quick.report_lines(changed_run) if "unchanged" in x)
    assert f"{100 * change.difference:+.1f} points" in line


def test_successive_halving_plays_every_candidate_on_the_same_games(changed_run):
    history = changed_run.history
    first = history[(history["phase"] == 1) & (history["rung"] == 1)]
    assert (first["games"] == SMALL["first_games"]).all() and first["incumbent"].sum() == 1
    for (_, _), rows in history.groupby(["phase", "rung"]):
        assert rows["games"].nunique() == 1  # the same games for every candidate of a rung
    # each rung keeps at most half of the last one's challengers (ceiling), never more
    for _, phase in history.groupby("phase"):
        sizes = [len(r) - 1 for _, r in phase.groupby("rung")]
        for before, after in itertools.pairwise(sizes):
            assert after <= -(-before // 2)


@given(first=st.integers(MIN_GAMES, 400), extra=st.integers(0, 5000))
def test_the_rungs_double_from_the_first_to_the_most_games(first, extra):
    """Successive halving's plan: each rung at most doubles the games a candidate has played,
    from `first_games` to exactly `most_games`."""
    rungs = best_play_quick.QuickSettings(first_games=first, most_games=first + extra).rungs()
    assert rungs[0] == first and rungs[-1] == first + extra
    for before, after in itertools.pairwise(rungs):
        assert before < after <= 2 * before


# -- cancel --------------------------------------------------------------------------------------
def test_cancel_stops_the_search_soon_and_keeps_what_it_found():
    seen: list[tuple[int, int]] = []

    def cancel_after_some(done: int, total: int) -> None:
        seen.append((done, total))
        if done >= 200:
            raise KeyboardInterrupt  # what the dashboard's Cancel button does

    result = best_play_quick.quick_best_play(
        "default",
        round_cap=outcomes.TWO_HOUR_ROUNDS,
        workers=1,
        on_progress=cancel_after_some,
        **SMALL,
    )
    assert result.interrupted and result.summary["equilibrium"] == {}
    assert seen[0][0] > 0 and all(total >= done for done, total in seen)
    # it stopped within a chunk or two of the cancel, far short of the plan
    assert result.summary["games_played"] < 200 + 3 * SMALL["first_games"]
    assert "stopped before its final games" in best_play_quick.report_lines(result)[0]


# -- the dashboard's What if… panel --------------------------------------------------------------
def test_the_what_if_panel_changes_a_rule_shows_progress_cancels_and_answers_on_a_second_run():
    from amteach.ui.economics import fairness_page
    from amteach.ui.what_if import WHAT_IF_RULES, WhatIfPanel

    page = fairness_page()  # the panel sits on the Is it fair? tab
    assert any("am-whatif" in child._dom_classes for child in page.children)
    panel = WhatIfPanel(sizes={**SMALL, "final_games": 600}, workers=1)
    assert [value for _, value in panel.rule.options] == list(WHAT_IF_RULES)
    panel.rule.value = "fine"
    assert panel.value.value == 50  # the preset's own fine, to change from
    panel.value.value = 150
    panel.run_button.click()
    assert panel.run_button.disabled and not panel.cancel_button.disabled
    assert panel.progressed.wait(120), "no progress within two minutes"
    panel.cancel_button.click()
    panel.wait()
    assert panel.result is not None and panel.result.interrupted
    assert "Cancelled" in panel.status.value and panel.answer.value == ""
    assert not panel.run_button.disabled and panel.cancel_button.disabled
    # a second run, to its end
    panel.run_button.click()
    panel.wait()
    result = panel.result
    assert result is not None and not result.interrupted
    assert result.summary["rules_changed"] == {"fine": 150}
    assert panel.progress.value == panel.progress.max > 1
    text = html.unescape(str(panel.answer.value))
    assert best_play_quick.report_lines(result)[0] in text
    assert "● Competitors' strategy" in text and "■ Monopolists' strategy" in text


def test_the_what_if_panel_keeps_a_browsers_values_in_bounds():
    from amteach.ui.what_if import MOST_DOLLARS, WhatIfPanel

    panel = WhatIfPanel()
    panel.rule.value = "starting_cash"
    panel.value.value = 5_000
    assert panel.chosen() == ("default", "starting_cash", 5_000, outcomes.TWO_HOUR_ROUNDS)
    # what a browser could send past the widgets' own bounds
    panel.value.__dict__["_trait_values"]["value"] = MOST_DOLLARS * 10
    panel.length.__dict__["_trait_values"]["value"] = 2000
    assert panel.chosen()[2:] == (MOST_DOLLARS, outcomes.TWO_HOUR_ROUNDS)


def test_the_command_runs_the_quick_search_and_saves_what_it_reports(tmp_path, monkeypatch):
    """`amteach best-play --set ... --length two-hour` with no other option is the quick search
    (its sizes made small here; the minute is measured in benchmarks/bench_best_play.py)."""
    small = functools.partial(
        best_play_quick.QuickSettings,
        first_games=20,
        most_games=40,
        check_games=100,
        final_games=200,
    )
    monkeypatch.setattr(best_play_quick, "QuickSettings", small)
    out = tmp_path / "quick"
    args = ["best-play", "--set", "starting_cash=2000", "--length", "two-hour", "--workers", "1"]
    result = CliRunner().invoke(main, [*args, "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    saved = best_play_results.BestPlayResult.load(out)
    assert saved.summary["search"] == "quick"
    assert saved.summary["rules_changed"] == {"starting_cash": 2000}
    assert saved.summary["round_cap"] == outcomes.TWO_HOUR_ROUNDS
    assert saved.summary["games"]["final"] == 200
    printed = result.stdout.splitlines()
    assert printed[: len(report := best_play_quick.report_lines(saved))] == report
    assert f"competitor:family:{saved.strategies['competitor']['text']}" in printed
    assert printed[-1].startswith("Saved ") and str(out) in printed[-1]
