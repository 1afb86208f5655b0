"""The lessons (lessons/NN-name/plan.md and worksheet.md) are complete, their links and files
exist, their scenarios play, and every number they state comes from the tool.

A lesson never types a number the tool computes. Every dollar amount or percentage in a lesson
must be part of a sentence listed in that lesson's checks.yaml, with what the tool says it is:

    - file: plan.md                      # the lesson file the sentence is in
      text: "Ana pays Ben $28 rent"      # the sentence, word for word; one number in it
      scenario_cash_change: {scenario: doubled-rent.yaml, player: Ana}   # how to compute it

The kinds of check are the functions in CHECKS below. Everything else (durations, counts of
students, question numbers) is plain text and needs no check.

Claims about bot games ("the Monopolists win more often than luck would explain", an answer
key's "90% to 97%") are checks too, of the kinds in CLAIMS: each names a batch of
lessons/batches.yaml (the dashboard's own seats, seed and games), which the tests play once
per run and share between the test workers:

    - file: manual.md
      text: "the Monopolists' win rate: 90% to 97%"       # a range: the sentence's two numbers
      rate_range: {batch: who-wins, role: monopolist}

Each lesson also has an instructor's manual (manual.md) with the parts in MANUAL_SECTIONS.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import re
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from amteach.analysis import (
    best_play_reading,
    best_play_results,
    fairness,
    inequality,
    outcomes,
    returns,
    stats,
    taxes,
)
from amteach.analysis.landing import landing_table, reading_landing
from amteach.analysis.returns import title_returns
from amteach.bots import FamilyParams
from amteach.engine.rules import RuleSet
from amteach.engine.scenario import run_scenario
from amteach.files import load_scenario_file, read_yaml
from amteach.rooms.rule_sets import named_rule_set
from amteach.sim import DEFAULT_ROUND_CAP, SimulationResult, simulate, wilson_interval
from amteach.sim.sweep import SWEEP_COLUMNS, sweep

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"
SCENARIOS = LESSONS / "scenarios"
LESSON_DIRS = sorted(p for p in LESSONS.iterdir() if p.is_dir() and re.match(r"\d\d-", p.name))
BATCHES = yaml.safe_load((LESSONS / "batches.yaml").read_text())
PLAN_SECTIONS = (
    "Audience and level",
    "Duration",
    "Learning objectives",
    "Concepts",
    "What to open",
    "Activity",
    "Discussion questions",
    "Extension",
    "Assessment",
)
# the instructor's manual of every lesson (manual.md)
MANUAL_SECTIONS = (
    "Standards alignment",
    "Warm-up quiz",
    "Answer keys",
    "Misconceptions",
    "A 45-minute version",
    "A class of 100",
    "Real-world cases",
)
# a dollar amount ($1,995) or a percentage (20%, 94.5%)
NUMBER = re.compile(r"\$\d[\d,]*(?:\.\d+)?|\b\d+(?:\.\d+)?\s?%")


def lesson_files() -> list[Path]:
    return sorted(LESSONS.rglob("*.md"))


def flat(text: str) -> str:
    """A lesson's text as one line: whitespace runs and block-quote markers (">") dropped."""
    return " ".join(re.sub(r"^\s*>", "", line) for line in text.splitlines()).strip()


def number_in(text: str) -> float:
    found = NUMBER.findall(text)
    assert len(found) == 1, f"a checked sentence holds exactly one number: {text!r}"
    return float(found[0].strip("$% ").replace(",", ""))


# -- what the tool says a number is -------------------------------------------------------------
@cache
def played(name: str):
    return load_scenario_file(SCENARIOS / name)


@cache
def before(name: str):
    return load_scenario_file(SCENARIOS / name, play=False)


def player_index(game: Any, name: str) -> int:
    return list(game.names).index(name)


def scenario_cash_change(scenario: str, player: str) -> float:
    """How much a player's cash changed while the scenario's script played (negative: paid)."""
    start, end = before(scenario), played(scenario)
    return end.cash[player_index(end, player)] - start.cash[player_index(start, player)]


def scenario_rent(scenario: str, space: str) -> float:
    """One landing's rent on a title after the scenario's script (Game.rent_for)."""
    game = played(scenario)
    index = next(s.index for s in game.board.spaces if s.name == space)
    return game.rent_for(index)[0]


def scenario_tax(scenario: str, player: str, option: str) -> float:
    """A player's income tax after the scenario's script: option "flat" or "percent"."""
    game = played(scenario)
    return getattr(game.tax_options(player_index(game, player)), option)


def rule(name: str, preset: str = "default", index: int | None = None) -> float:
    """A rule parameter of a preset (an item of it, for list parameters)."""
    value = RuleSet.preset(preset).to_dict()[name]
    return value if index is None else value[index]


def treatment_rule(key: str, name: str) -> float:
    """A rule parameter of a named rule set the Class tab offers (amteach/data/treatments.yaml),
    e.g. the keep share of "Equal keep shares"."""
    return named_rule_set(key).rules().to_dict()[name]


def tax_break_even(role: str, asset: str = "cash", preset: str = "default") -> float:
    """The assets at which a role's percentage income tax reaches the flat amount."""
    frame = taxes.tax_break_even(preset).set_index("role")
    return frame.loc[role, f"break_even_{asset}"]


@cache
def returns_frame():
    return title_returns()


def title_return(name: str, owner: str, level: str, column: str, players: int = 4) -> float:
    """A row of the Returns tab's table: `column` (rent, invested, ...) of a title at a level."""
    frame = returns_frame()
    row = frame[
        (frame["name"] == name)
        & (frame["owner_role"] == owner)
        & (frame["level"] == level)
        & (frame["players"] == players)
    ]
    assert len(row) == 1, (name, owner, level, players)
    return float(row[column].iloc[0])


def share(wins: int, games: int) -> float:
    """A worked example's win rate, in percent."""
    return 100 * wins / games


def wilson(wins: int, games: int, end: str) -> float:
    """An end ("low" or "high") of the tool's 95% Wilson interval, in percent."""
    low, high = wilson_interval(wins, games)
    return 100 * (low if end == "low" else high)


CHECKS = {
    "share": share,
    "wilson": wilson,
    "scenario_cash_change": scenario_cash_change,
    "scenario_rent": scenario_rent,
    "scenario_tax": scenario_tax,
    "rule": rule,
    "treatment_rule": treatment_rule,
    "tax_break_even": tax_break_even,
    "title_return": title_return,
}


# -- the batches the claims are about --------------------------------------------------------------
def best_play_seats(preset: str, length: str = "round-200") -> list[str]:
    """The usual table with each role's strongest strategy of a shipped best-play run (the
    run searched at `length`)."""
    run = best_play_results.shipped(preset, length)
    return [
        f"{role}:family:{run.strategies[role]['text']}" for role in best_play_results.TABLE_ROLES
    ]


def play_batch(name: str) -> Any:
    """Play a batch of lessons/batches.yaml, on one worker (the test workers share the cores)."""
    spec = BATCHES[name]
    if spec.get("kind") == "sweep":
        return sweep(
            spec["parameter"],
            spec["values"],
            games=spec["games"],
            seats=spec["seats"],
            seed=spec["seed"],
            workers=1,
            round_cap=spec.get("round_cap", DEFAULT_ROUND_CAP),
            progress=False,
        )
    if spec.get("kind") == "structures":
        return fairness.market_structures(
            games=spec["games"], bot=spec["bot"], seed=spec["seed"], workers=1, progress=False
        )
    seats = (
        spec["seats"]
        if spec.get("kind") != "best-play"
        else best_play_seats(spec["rules"], spec.get("strategies", "round-200"))
    )
    return simulate(
        games=spec["games"],
        seats=seats,
        rules=RuleSet.preset(spec.get("rules", "default"), **spec.get("set", {})),
        seed=spec["seed"],
        workers=1,
        round_cap=spec.get("round_cap", DEFAULT_ROUND_CAP),
        progress=False,
        record_rounds=bool(spec.get("rounds", False)),
    )


class BatchStore:
    """Each batch played once per test run: the first test worker to need it plays it and
    saves it in the run's temporary folder; the others wait for it and read it."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.memory: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self.memory:
            self.memory[name] = self._load_or_play(name)
        return self.memory[name]

    def _load_or_play(self, name: str) -> Any:
        if self.folder is None:
            return play_batch(name)
        self.folder.mkdir(parents=True, exist_ok=True)
        saved = self.folder / f"{name}.pickle"
        with open(self.folder / f"{name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if saved.exists():
                return pickle.loads(saved.read_bytes())
            batch = play_batch(name)
            partial = saved.with_suffix(".partial")
            partial.write_bytes(pickle.dumps(batch))
            partial.rename(saved)
            return batch


@pytest.fixture(scope="session")
def batches(tmp_path_factory: pytest.TempPathFactory) -> BatchStore:
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return BatchStore(None)
    # the run's temporary folder, shared by its workers (each has its own folder inside it)
    return BatchStore(tmp_path_factory.getbasetemp().parent / "lesson-batches")


def first_games(result: SimulationResult, games: int | None) -> SimulationResult:
    """The first `games` games of a batch: what the same panel plays with fewer games (game i's
    dice depend only on the seed and i)."""
    if games is None:
        return result
    frames = {
        name: frame[frame["game"] < games] if "game" in frame else frame
        for name, frame in (
            ("games", result.games),
            ("players", result.players),
            ("rounds", result.rounds),
            ("taxes", result.taxes),
        )
    }
    assert len(frames["games"]) == games, f"the batch has fewer than {games} games"
    return SimulationResult(**frames, meta=result.meta)


def numbers_of(text: str) -> list[float]:
    return [float(n.strip("$% ").replace(",", "")) for n in NUMBER.findall(text)]


def range_in(text: str, bounds: list[float] | None = None) -> tuple[float, float]:
    """A claim's range: the two numbers of its sentence, or `bounds` when the sentence says it
    in words ("about a third")."""
    if bounds is not None:
        return min(bounds), max(bounds)
    found = numbers_of(text)
    assert len(found) == 2, f"a range holds exactly two numbers, low and high: {text!r}"
    return min(found), max(found)


def group_key(role: str | None, seat: int | None, bot: str | None) -> tuple[str, Any]:
    ((by, key),) = [
        (b, k) for b, k in (("role", role), ("seat", seat), ("bot", bot)) if k is not None
    ]
    return by, key


def group_row(result: SimulationResult, by: str, key: Any) -> pd.Series:
    table = fairness.win_rate_table(result, by)
    return table[table[by] == key].iloc[0]


def group_in(
    batches: BatchStore,
    batch: str,
    role: str | None,
    seat: int | None,
    bot: str | None,
    first: int | None,
) -> tuple[SimulationResult, pd.Series]:
    """A batch (or its first games) and the win-rate row of one role, seat or bot in it."""
    result = first_games(batches[batch], first)
    return result, group_row(result, *group_key(role, seat, bot))


# -- the claims -------------------------------------------------------------------------------------
def rate_range(
    batches: BatchStore,
    text: str,
    batch: str,
    role: str | None = None,
    seat: int | None = None,
    bot: str | None = None,
    first: int | None = None,
    bounds: list[float] | None = None,
) -> None:
    """An answer key's range for a win rate: the batch's rate is in it, and the range is about
    as wide as the rate's 95% interval, so other seeds will mostly land in it too."""
    low, high = range_in(text, bounds)
    _, row = group_in(batches, batch, role, seat, bot, first)
    assert low <= 100 * row["rate"] <= high, (100 * row["rate"], text)
    assert low - 2 <= 100 * row["ci_low"] and 100 * row["ci_high"] <= high + 2, (
        f"the range is narrower than the 95% interval {100 * row['ci_low']:.1f}% to "
        f"{100 * row['ci_high']:.1f}%: {text!r}"
    )


def even_test(
    batches: BatchStore,
    text: str,
    batch: str,
    expect: str,
    role: str | None = None,
    seat: int | None = None,
    bot: str | None = None,
    first: int | None = None,
) -> None:
    """A group of one batch against its even mark (exact binomial test): "more", "less" or
    "even" (within what luck could give an even game)."""
    result, row = group_in(batches, batch, role, seat, bot, first)
    test = stats.group_even_test(row["wins"], row["games"], row["even_share"], len(result.games))
    assert test is not None and test.direction == expect, (test, text)


def rate_is(
    batches: BatchStore,
    text: str,
    batch: str,
    role: str | None = None,
    seat: int | None = None,
    bot: str | None = None,
    first: int | None = None,
) -> None:
    """The one number in the sentence is the batch's win rate (in percent, one decimal)."""
    _, row = group_in(batches, batch, role, seat, bot, first)
    assert number_in(text) == pytest.approx(100 * row["rate"], abs=0.051), (row, text)


def change(
    batches: BatchStore,
    text: str,
    a: str,
    b: str,
    expect: str,
    role: str = "monopolist",
    first_a: int | None = None,
    first_b: int | None = None,
) -> None:
    """A win rate from batch a to batch b (or their first games), by Newcombe's interval:
    "more", "less" or "luck"."""
    moved = moved_between(batches, a, b, role, first_a, first_b)
    found = "luck" if not moved.significant else "more" if moved.difference > 0 else "less"
    assert found == expect, (moved, text)


def change_reaches(
    batches: BatchStore, text: str, a: str, b: str, points: float, role: str = "monopolist"
) -> None:
    """Newcombe's interval for a win rate's change from batch a to batch b reaches at least
    `points` percentage points on both sides of 0: "cannot tell" is not "no effect", since
    a real change that size fits the interval too."""
    row_a, row_b = group_row(batches[a], "role", role), group_row(batches[b], "role", role)
    moved = stats.compare_batches(row_a["wins"], row_a["games"], row_b["wins"], row_b["games"])
    assert 100 * moved.low <= -points and 100 * moved.high >= points, (moved, text)


def moved_between(
    batches: BatchStore, a: str, b: str, role: str, first_a: int | None, first_b: int | None
) -> stats.BatchDifference:
    """Newcombe's interval for a role's win rate from batch a to batch b (or their first
    games), as `amteach sweep` prints it."""
    row_a = group_row(first_games(batches[a], first_a), "role", role)
    row_b = group_row(first_games(batches[b], first_b), "role", role)
    return stats.compare_batches(row_a["wins"], row_a["games"], row_b["wins"], row_b["games"])


def change_points(
    batches: BatchStore,
    text: str,
    a: str,
    b: str,
    role: str = "monopolist",
    first_a: int | None = None,
    first_b: int | None = None,
) -> None:
    """The text's three signed numbers are the change in a role's win rate from batch a to
    batch b and its 95% interval (Newcombe's), in percentage points to one decimal."""
    moved = moved_between(batches, a, b, role, first_a, first_b)
    found = [float(n.replace("\u2212", "-")) for n in SIGNED.findall(text)]
    want = [100 * moved.difference, 100 * moved.low, 100 * moved.high]
    assert found == pytest.approx(want, abs=0.051), (found, want, text)


def lead_beyond_change(
    batches: BatchStore, text: str, a: str, b: str, role: str = "monopolist"
) -> None:
    """Arguing from an interval's bound: the role's whole interval in batch a lies more than
    the text's number of points above its even mark, and the largest fall the change's
    interval allows (from a to b) is a few points, far less than that lead."""
    (lead,) = [float(n) for n in re.findall(r"more than (\d+) points", text)]
    row = group_row(batches[a], "role", role)
    assert 100 * (row["ci_low"] - row["even_share"]) > lead, (row, text)
    moved = moved_between(batches, a, b, role, None, None)
    assert -100 * moved.low < lead / 8, (moved, text)


def bonferroni_passes(
    batches: BatchStore,
    text: str,
    batch: str,
    tests: int,
    role: str | None = None,
    seat: int | None = None,
    bot: str | None = None,
) -> None:
    """The Is it fair? tab's three charts test `tests` groups (roles, seats and bots) of a
    batch against the even mark, and this group's exact test passes Bonferroni's rule for
    them: p below 0.05 / tests."""
    result = batches[batch]
    groups = sum(len(fairness.win_rate_table(result, by)) for by in ("role", "seat", "bot"))
    assert groups == tests, (groups, text)
    _, row = group_in(batches, batch, role, seat, bot, None)
    test = stats.group_even_test(row["wins"], row["games"], row["even_share"], len(result.games))
    assert test is not None and test.p_value < 0.05 / tests, (test, text)


def cap_range(
    batches: BatchStore,
    text: str,
    batch: str,
    first: int | None = None,
    bounds: list[float] | None = None,
) -> None:
    """The share of a batch's games settled by the round cap lies in the range the text gives."""
    low, high = range_in(text, bounds)
    share = 100 * stats.round_cap_share(first_games(batches[batch], first))
    assert low <= share <= high, (share, text)


def bankrupt_range(batches: BatchStore, text: str, batch: str, bounds: list[float]) -> None:
    """The share of a batch's games in which a player went bankrupt lies in `bounds` (percent):
    in a short game time is up with everyone still in."""
    players = batches[batch].players
    games = players.groupby("game")["bankrupt"].any()
    share = 100 * games.mean()
    assert min(bounds) <= share <= max(bounds), (share, text)


def ending_range(
    batches: BatchStore,
    text: str,
    batch: str,
    ending: str,
    role: str,
    bounds: list[float] | None = None,
) -> None:
    """A role's win rate among the games that ended one way ("played to the end" or
    "settled by the round cap") lies in the range the text gives."""
    low, high = range_in(text, bounds)
    frame = stats.win_rates_by_ending(batches[batch]).set_index(["ending", "role"])
    rate = 100 * frame.loc[(ending, role), "rate"]
    assert low <= rate <= high, (rate, text)


def preset_rows(name: str, result: SimulationResult) -> pd.DataFrame:
    """A batch as one value of `compare_presets`' frame, named after its batch."""
    rates = result.win_rates("role")
    return rates.assign(
        parameter="preset",
        value=name,
        mean_rounds=float(result.games["rounds"].mean()),
        round_cap_share=stats.round_cap_share(result),
    )[list(SWEEP_COLUMNS)]


def reading(
    batches: BatchStore,
    text: str,
    batch: str,
    says: str,
    by: str = "role",
    first: int | None = None,
    against: str | None = None,
) -> None:
    """The sentence the tool prints under a chart says `says`: a win-rate reading (by role,
    seat or bot), a comparison of two batches (`against`, as the presets panel reads them), or
    the market-structure reading."""
    result = batches[batch]
    if against is not None:
        frame = pd.concat(
            [preset_rows(name, batches[name]) for name in (batch, against)], ignore_index=True
        )
        sentence = fairness.reading_sweep(frame)
    elif isinstance(result, pd.DataFrame):
        sentence = fairness.reading_market_structures(result)
    else:
        sentence = fairness.reading_win_rates(first_games(result, first), by)
    assert says in sentence, (says, sentence)


def structure_order(
    batches: BatchStore, text: str, batch: str, column: str, lower: str, higher: str
) -> None:
    """In a market-structure batch, `lower` has the smaller `column` (rent, Gini, ...)."""
    rows = batches[batch].set_index("structure")
    assert rows.loc[lower, column] < rows.loc[higher, column], (rows[column], text)


def structure_range(
    batches: BatchStore,
    text: str,
    batch: str,
    structure: str,
    column: str,
    scale: float = 1,
    bounds: list[float] | None = None,
) -> None:
    """A market structure's `column` (times `scale`, 100 for a share) lies in the text's range."""
    low, high = range_in(text, bounds)
    value = scale * batches[batch].set_index("structure").loc[structure, column]
    assert low <= value <= high, (value, text)


def structure_close(batches: BatchStore, text: str, batch: str, column: str, within: float) -> None:
    """All Competitors and all Monopolists differ by less than `within` in `column`."""
    rows = batches[batch].set_index("structure")
    gap = abs(rows.loc["all Monopolists", column] - rows.loc["all Competitors", column])
    assert gap < within, (gap, text)


def tax_share_range(
    batches: BatchStore,
    text: str,
    batch: str,
    role: str,
    bounds: list[float] | None = None,
) -> None:
    """The share of a role's income-tax decisions where the percentage was cheaper."""
    low, high = range_in(text, bounds)
    summary = taxes.tax_choice_summary(batches[batch])
    rows = summary[summary["role"] == role]
    share = 100 * rows["percent_cheaper"].sum() / rows["decisions"].sum()
    assert low <= share <= high, (share, text)


def sweep_rows(batches: BatchStore, batch: str, value: Any, role: str = "monopolist") -> pd.Series:
    """A role's row of one value of a sweep batch ("Change one rule"), as its chart draws it
    (rate and its Wilson interval, as the sweep's frame holds them)."""
    frame = batches[batch]
    rows = frame[(frame["value"] == value) & (frame["role"] == role)]
    assert len(rows) == 1, (batch, value, role)
    return rows.iloc[0]


def sweep_even(
    batches: BatchStore, text: str, batch: str, values: list[Any], role: str = "monopolist"
) -> None:
    """At every one of `values`, the role's interval (as the sweep chart draws it) includes
    the halfway mark: those games cannot tell any of these values from an even game."""
    for value in values:
        row = sweep_rows(batches, batch, value, role)
        assert row["ci_low"] <= 0.5 <= row["ci_high"], (value, row, text)


def sweep_cross(
    batches: BatchStore, text: str, batch: str, above: Any, below: Any, role: str = "monopolist"
) -> None:
    """The role's win rate is above half at `above` and below half at `below`: its line
    crosses the halfway mark between the two values."""
    assert sweep_rows(batches, batch, above, role)["rate"] > 0.5, text
    assert sweep_rows(batches, batch, below, role)["rate"] < 0.5, text


def sweep_within(
    batches: BatchStore,
    text: str,
    batch: str,
    value: Any,
    bounds: list[float] | None = None,
    interval: bool = True,
    role: str = "monopolist",
) -> None:
    """With `interval` (an equivalence margin): the role's whole interval at `value` lies
    within the text's range. Without: the rate lies in the range, and the range is about as
    wide as the interval (an answer key's range)."""
    low, high = range_in(text, bounds)
    row = sweep_rows(batches, batch, value, role)
    if interval:
        assert low <= 100 * row["ci_low"] and 100 * row["ci_high"] <= high, (row, text)
    else:
        assert low <= 100 * row["rate"] <= high, (row, text)
        assert low - 2 <= 100 * row["ci_low"] and 100 * row["ci_high"] <= high + 2, (row, text)


def sweep_cap(
    batches: BatchStore, text: str, batch: str, value: Any, bounds: list[float] | None = None
) -> None:
    """The share of a sweep value's games that the round cap settled lies in the range."""
    low, high = range_in(text, bounds)
    share = 100 * sweep_rows(batches, batch, value)["round_cap_share"]
    assert low <= share <= high, (share, text)


def exact_against_wilson(batches: BatchStore, text: str, wins: int, games: int) -> None:
    """A worked example against an even game's half: the exact test's p-value as the text
    prints it, the exact interval (the test's own) reaching the halfway mark, and the Wilson
    interval of the same games leaving it out."""
    test = stats.compare_with_even(wins, games, 0.5)
    (said,) = re.findall(r"p-value of (0\.\d+)", text)
    assert float(said) == round(test.p_value, len(said) - 2), (test, text)
    assert test.direction == "even" and test.low <= 0.5, (test, text)
    assert wilson_interval(wins, games)[0] > 0.5, text


def difference_interval(
    batches: BatchStore, text: str, wins_a: int, games_a: int, wins_b: int, games_b: int
) -> None:
    """A worked example: the sentence's two plain numbers are the ends of Newcombe's interval
    for the difference (B minus A), in percentage points."""
    found = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", text)]
    moved = stats.compare_batches(wins_a, games_a, wins_b, games_b)
    assert found[-2:] == pytest.approx([100 * moved.low, 100 * moved.high], abs=0.051), text


def wins_mostly(batches: BatchStore, text: str, batch: str, role: str, ending: str) -> None:
    """Most of a role's wins in a batch came from games that ended one way."""
    frame = stats.win_rates_by_ending(batches[batch])
    wins = frame[frame["role"] == role].set_index("ending")["wins"]
    assert wins[ending] > wins.drop(ending).sum(), (wins, text)


def wins_all(batches: BatchStore, text: str, batch: str, role: str) -> None:
    """A role won every game of a batch."""
    row = group_row(batches[batch], "role", role)
    assert row["wins"] == row["games"], (row, text)


def width_range(
    batches: BatchStore,
    text: str,
    batch: str,
    bounds: list[float],
    role: str = "monopolist",
    first: int | None = None,
) -> None:
    """The width of a role's 95% interval, in percentage points, lies within `bounds`."""
    row = group_row(first_games(batches[batch], first), "role", role)
    width = 100 * (row["ci_high"] - row["ci_low"])
    assert min(bounds) <= width <= max(bounds), (width, text)


def row_numbers(text: str) -> tuple[str, list[float]]:
    """A Markdown table row: its first cell, and the numbers in the other cells."""
    cells = [cell.strip() for cell in text.strip().strip("|").split("|")]
    return cells[0], [float(c.strip("$").replace(",", "")) for c in cells[1:]]


def landings(space: int, policy: str = "pay") -> float:
    """Landings per 100 throws of a Competitor pawn on a space."""
    table = landing_table()
    row = table[(table["role"] == "competitor") & (table["policy"] == policy)]
    return 100 * float(row[row["space"] == space]["arrival"].iloc[0])


def landing_row(batches: BatchStore, text: str, space: int) -> None:
    """ "| 13. State St. | pay | doubles | went down by |", each to two decimals."""
    _, found = row_numbers(text)
    pay, doubles = landings(space, "pay"), landings(space, "doubles")
    assert found == pytest.approx([pay, doubles, pay - doubles], abs=0.006), (found, text)


def street_row(batches: BatchStore, text: str, name: str, players: int = 4) -> None:
    """ "| street | cost | rent | landings per 100 throws | expected rent per 100 throws |
    rounds to pay back |" for a Competitor owner of the bare title."""
    first, found = row_numbers(text)
    assert first == name
    rent = title_return(name, "competitor", "title only", "rent", players)
    cost = title_return(name, "competitor", "title only", "invested", players)
    frame = returns_frame()
    space = int(frame[frame["name"] == name]["space"].iloc[0])
    landed = landings(space)
    payback = title_return(name, "competitor", "title only", "payback_rounds", players)
    assert found[:2] == [cost, rent], (found, text)
    assert found[2] == pytest.approx(landed, abs=0.006)
    assert found[3] == pytest.approx(landed * rent, abs=0.051)
    assert found[4] == round(payback)


def landing_says(batches: BatchStore, text: str, says: str, policy: str = "pay") -> None:
    """The sentence under the Landing odds chart says `says`."""
    sentence = reading_landing(landing_table(), policy)
    assert says in sentence, (says, sentence)


def structure_row(batches: BatchStore, text: str, batch: str, structure: str) -> None:
    """ "| structure | $a to $b | rounds a to b | a% to b% | Gini a to b |": rent paid per turn,
    mean game length, share stopped by the round cap and the Gini at the fixed round the chart
    compares (fairness.GINI_ROUND), each within its range."""
    cells = [cell.strip() for cell in text.strip().strip("|").split("|")]
    assert cells[0] == structure
    row = batches[batch].set_index("structure").loc[structure.replace("All", "all")]
    values = (
        row["rent_per_turn"],
        row["mean_rounds"],
        100 * row["round_cap_share"],
        row["gini_at_round"],
    )
    for cell, value in zip(cells[1:], values, strict=True):
        low, high = (float(n.strip("$%")) for n in cell.split(" to "))
        assert low <= value <= high, (cell, value, text)


def structure_between(batches: BatchStore, text: str, batch: str) -> None:
    """The mixed table lies between the two one-role tables on every measure."""
    rows = batches[batch].set_index("structure")
    for column in ("rent_per_turn", "mean_rounds", "round_cap_share", "gini_at_round"):
        ends = sorted(rows.loc[["all Competitors", "all Monopolists"], column])
        assert ends[0] <= rows.loc["mixed", column] <= ends[1], (column, text)


def structure_gap_smaller(
    batches: BatchStore, text: str, batch: str, than: str, column: str, at_most: float
) -> None:
    """The gap in `column` between the all-Monopolists and the all-Competitors tables of
    `batch` is at most `at_most` times the gap of `than` ("much smaller")."""

    def gap(name: str) -> float:
        rows = batches[name].set_index("structure")
        return abs(rows.loc["all Monopolists", column] - rows.loc["all Competitors", column])

    assert gap(batch) <= at_most * gap(than), (gap(batch), gap(than), text)


def structure_gini_gap(
    batches: BatchStore, text: str, batch: str, expect: str = "more", places: int = 2
) -> None:
    """The Gini gap at the chart's round (the all-Monopolists table minus the all-Competitors
    table) with Welch's interval (`fairness.gini_gap`, as the sentence under the chart gives
    it): "more" (the interval lies above 0), "less" or "luck". A sentence with three signed
    numbers gives the gap and its interval, to `places` decimals."""
    gap = fairness.gini_gap(batches[batch])
    found = "luck" if not gap.significant else "more" if gap.difference > 0 else "less"
    assert found == expect, (gap, text)
    said = [float(n.replace("\u2212", "-")) for n in SIGNED.findall(text)]
    if said:
        want = [round(v, places) for v in (gap.difference, gap.low, gap.high)]
        assert said == pytest.approx(want, abs=10**-places / 2), (said, gap, text)
    assert f"{gap.difference:+.2f}" in fairness.reading_market_structures(batches[batch])


def two_hour_before(batches: BatchStore, text: str) -> None:
    """The chart's round comes after the end of a two-hour game, whose length (in rounds)
    the sentence gives as "about N rounds"."""
    (said,) = [int(n) for n in re.findall(r"about (\d+) rounds", text)]
    assert said == outcomes.TWO_HOUR_ROUNDS, (said, text)
    assert fairness.GINI_ROUND > outcomes.TWO_HOUR_ROUNDS, text


def structure_running(batches: BatchStore, text: str, batch: str, at_least: float) -> None:
    """At the round the market-structure chart compares inequality, at least `at_least` of
    every table's games are still running ("almost every game")."""
    rows = batches[batch]
    assert (rows["gini_round"] == fairness.GINI_ROUND).all(), rows["gini_round"]
    assert (rows["gini_games"] >= at_least * rows["games"]).all(), (rows["gini_games"], text)


def gini_when_one_left(batches: BatchStore, text: str, batch: str) -> None:
    """Every game of a batch that ended with one player left ends at the Gini the text gives
    ((n - 1) / n), whatever happened on the way; and the batch has such games."""
    result = batches[batch]
    ended = result.games.loc[result.games["end_reason"] == "game_a", "game"]
    assert len(ended) > 0, "no game of the batch ended with one player left"
    players = result.players[result.players["game"].isin(ended)]
    ginis = players.groupby("game")["net_worth"].apply(lambda w: inequality.gini(w.to_numpy()))
    (said,) = {float(n) for n in re.findall(r"\b0\.\d+\b", text)}
    assert ginis.to_numpy() == pytest.approx(said), (ginis.describe(), text)


def lorenz_range(
    batches: BatchStore, text: str, batch: str, at: int, bounds: list[float] | None = None
) -> None:
    """The share of all wealth (percent) the poorest half hold at round `at` of a batch."""
    low, high = range_in(text, bounds)
    curves = inequality.lorenz_at_rounds(batches[batch].rounds, at=[at])
    held = 100 * np.interp(0.5, curves["population_share"], curves["wealth_share"])
    assert low <= held <= high, (held, text)


def inequality_range(
    batches: BatchStore, text: str, batch: str, measure: str, bounds: list[float]
) -> None:
    """A number the Inequality tab's sentences give for a batch: "round" (the round the Gini
    sentence reports), "gini" (its average Gini), "band" (its band's two ends) or "times" (how
    many times as much the richer role holds)."""
    rounds = batches[batch].rounds
    gini = inequality.reading_gini(inequality.gini_by_round(rounds))
    gap = inequality.reading_role_gap(inequality.role_gap_by_round(rounds))
    found = {
        "round": re.search(r"by round (\d+)", gini),
        "gini": re.search(r"it is (\d\.\d+) on average", gini),
        "band": re.search(r"between (\d\.\d+) and (\d\.\d+)", gini),
        "times": re.search(r"hold (\d+\.\d) times as much", gap),
    }[measure]
    assert found, (measure, gini, gap)
    for value in (float(v) for v in found.groups()):
        assert min(bounds) <= value <= max(bounds), (measure, value, text)


def tax_says(batches: BatchStore, text: str, batch: str, says: str) -> None:
    """The sentence under the Taxes tab's batch chart says `says`."""
    sentence = taxes.reading_tax_choice(taxes.tax_choice_summary(batches[batch]))
    assert says in sentence, (says, sentence)


def landing_drops(
    batches: BatchStore,
    text: str,
    least: list[int] = (),
    most: list[int] = (),
    alike: list[int] = (),
    within: float = 0.005,
) -> None:
    """How landings per 100 throws change from "pay the fine at once" to "stay and try for
    doubles", by space number: `least` drop least, `most` drop most, and the `alike` spaces
    drop by the same amount (within `within`)."""
    table = landing_table()
    table = table[table["role"] == "competitor"]
    arrival = {
        p: table[table["policy"] == p].set_index("space")["arrival"] for p in ("pay", "doubles")
    }
    drop = (100 * (arrival["pay"] - arrival["doubles"])).sort_values()
    if least:
        assert set(drop.index[: len(least)]) == set(least), drop.head(len(least) + 2)
    if most:
        assert set(drop.index[-len(most) :]) == set(most), drop.tail(len(most) + 2)
    if alike:
        assert drop[list(alike)].max() - drop[list(alike)].min() < within, drop[list(alike)]


def returns_row(
    batches: BatchStore, text: str, name: str, owner: str, level: str, players: int = 4
) -> None:
    """A table row "| level | titles held | cost | rent per landing on this title | rent per
    landing, every title held | rounds to pay back |" of the Returns tab: every cell is the
    tool's (rounds to the nearest whole round)."""
    cells = [cell.strip() for cell in text.strip().strip("|").split("|")]
    assert cells[0] == level, (cells, level)
    assert cells[1] == title_return_text(name, owner, level, "holding", players), cells
    found = [float(c.strip("$").replace(",", "")) for c in cells[2:]]
    expected = [
        title_return(name, owner, level, column, players)
        for column in ("invested", "rent", "holding_rent")
    ]
    assert found[:3] == pytest.approx(expected), (found, expected)
    payback = title_return(name, owner, level, "payback_rounds", players)
    assert found[3] == round(payback), (found[3], payback)


def title_return_text(name: str, owner: str, level: str, column: str, players: int = 4) -> str:
    """A text cell of the Returns tab's table (the titles held)."""
    frame = returns_frame()
    row = frame[
        (frame["name"] == name)
        & (frame["owner_role"] == owner)
        & (frame["level"] == level)
        & (frame["players"] == players)
    ]
    assert len(row) == 1, (name, owner, level, players)
    return str(row[column].iloc[0])


def returns_says(
    batches: BatchStore, text: str, says: str, players: int = 4, owner: str | None = None
) -> None:
    """The sentence under the Returns chart says `says`."""
    sentence = returns.reading_returns(returns_frame(), players, owner)
    assert says in sentence, (says, sentence)


# -- claims about the shipped best-play runs (amteach/data/best_play) -----------------------------
def shipped_range(
    batches: BatchStore,
    text: str,
    preset: str,
    role: str = "monopolist",
    bounds: list[float] | None = None,
    length: str = "round-200",
) -> None:
    """A role's win rate under the strongest strategies found (the run searched at `length`)
    lies in the text's range, and the range is about as wide as its exact 95% interval, the
    one a rate read against 50% carries."""
    low, high = range_in(text, bounds)
    figures = best_play_results.shipped(preset, length).summary["equilibrium"]
    row = figures[role]
    assert low <= 100 * row["rate"] <= high, (100 * row["rate"], text)
    ci_low, ci_high = stats.exact_interval(row["wins"], figures["games"])
    assert low - 2 <= 100 * ci_low and 100 * ci_high <= high + 2, (row, text)


def shipped_even(
    batches: BatchStore, text: str, preset: str, expect: str, length: str = "round-200"
) -> None:
    """The exact test of the Monopolists' equilibrium rate against half: more, less or even."""
    found = best_play_results.shipped(preset, length).summary["equilibrium"]["even_test"][
        "direction"
    ]
    assert found == expect, (found, text)


def shipped_change(batches: BatchStore, text: str, a: str, b: str, expect: str) -> None:
    """The Monopolists' equilibrium rate from preset a to preset b (Newcombe's interval)."""
    moved = best_play_results.compare_presets(
        best_play_results.shipped(a), best_play_results.shipped(b)
    )
    found = "luck" if not moved.significant else "more" if moved.difference > 0 else "less"
    assert found == expect, (moved, text)


def shipped_cap(
    batches: BatchStore,
    text: str,
    preset: str,
    bounds: list[float] | None = None,
    length: str = "round-200",
) -> None:
    """The share of the equilibrium's games the round cap settled lies in the text's range."""
    low, high = range_in(text, bounds)
    share = (
        100 * best_play_results.shipped(preset, length).summary["equilibrium"]["round_cap_share"]
    )
    assert low <= share <= high, (share, text)


def shipped_says(batches: BatchStore, text: str, preset: str, says: str) -> None:
    """The reading of a shipped run (the Best play tab's first sentence) says `says`."""
    reading = best_play_reading.reading_best_play(best_play_results.shipped(preset))
    assert says in reading, (says, reading)


def shipped_knob(
    batches: BatchStore,
    text: str,
    preset: str,
    role: str,
    knob: str,
    values: list[str],
    length: str = "round-200",
) -> None:
    """A knob of a role's strongest strategy found is one of `values` (as written)."""
    found = best_play_results.shipped(preset, length).best(role).as_dict()[knob]
    assert found in [str(v) for v in values], (knob, found, text)


def shipped_top(
    batches: BatchStore,
    text: str,
    preset: str,
    role: str,
    knob: str,
    top: int = 3,
    expect: bool = True,
) -> None:
    """`knob` is (or, with expect false, is not) among the `top` knobs that matter most for a
    role, by the sensitivity of its win rate."""
    table = best_play_results.importance(best_play_results.shipped(preset), role)
    assert (knob in list(table["knob"].head(top))) == expect, (table.head(top + 2), text)


def shipped_probe(
    batches: BatchStore, text: str, preset: str, role: str, knob: str, value: str
) -> None:
    """Moving one knob of a role's strongest strategy alone to `value` costs the role most
    of its wins (its win rate falls below half of what it was)."""
    frame = best_play_results.shipped(preset).sensitivity
    row = frame[(frame["role"] == role) & (frame["knob"] == knob) & (frame["value"] == value)]
    assert len(row) == 1, (knob, value)
    assert row["rate"].iloc[0] < row["found_rate"].iloc[0] / 2, (row, text)


def shipped_importance(
    batches: BatchStore, text: str, preset: str, role: str, bounds: list[float]
) -> None:
    """The most any one knob's move costs a role's win rate, in points, lies in `bounds`."""
    drop = 100 * best_play_results.importance(best_play_results.shipped(preset), role)["drop"].max()
    assert min(bounds) <= drop <= max(bounds), (drop, text)


def shipped_best_row(
    batches: BatchStore, text: str, preset: str, monopolist: str, expect: str
) -> None:
    """In a Monopolist column of the matrix, the Competitor row where the Monopolists win
    least (the Competitors' best response among the rows)."""
    cells = best_play_results.shipped(preset).matrix
    column = cells[cells["monopolist"] == monopolist]
    found = column.loc[column["monopolist_rate"].idxmin(), "competitor"]
    assert found == expect, (column[["competitor", "monopolist_rate"]], text)


def shipped_best_column(
    batches: BatchStore, text: str, preset: str, competitor: str, expect: list[str]
) -> None:
    """In a Competitor row of the matrix, the Monopolist column where the Monopolists win
    most is one of `expect`, and the others of `expect` are within luck of it (Newcombe)."""
    cells = best_play_results.shipped(preset).matrix
    row = cells[cells["competitor"] == competitor].set_index("monopolist")
    top = row["monopolist_rate"].idxmax()
    assert top in expect, (row["monopolist_rate"], text)
    for other in expect:
        change = stats.compare_batches(
            row.loc[top, "monopolist_wins"],
            row.loc[top, "games"],
            row.loc[other, "monopolist_wins"],
            row.loc[other, "games"],
        )
        assert not change.significant, (other, change, text)


def shipped_cell(
    batches: BatchStore,
    text: str,
    preset: str,
    competitor: str | list[str],
    monopolist: str,
    role: str = "monopolist",
    bounds: list[float] | None = None,
) -> None:
    """A cell of the tournament matrix (or several rows of one column): the role's win rate
    lies in the text's range."""
    low, high = range_in(text, bounds)
    cells = best_play_results.shipped(preset).matrix.set_index(["competitor", "monopolist"])
    for row in [competitor] if isinstance(competitor, str) else competitor:
        rate = 100 * cells.loc[(row, monopolist), f"{role}_rate"]
        assert low <= rate <= high, (row, rate, text)


def shipped_last_gain(batches: BatchStore, text: str, preset: str, role: str) -> None:
    """The size of "approximate": the upper end of the 95% interval for a role's gain (in
    points of its own win rate) in that role's last search of the shipped run, as the text
    gives it ("up to 3.4 points")."""
    phases = best_play_results.shipped(preset).phases
    last = phases[phases["role"] == role].iloc[-1]
    (found,) = re.findall(r"up to (\d+(?:\.\d+)?) points", text)
    assert float(found) == pytest.approx(100 * last["ci_high"], abs=0.051), (last, text)
    assert not last["improved"], f"the last {role} search still improved: {text!r}"


def shipped_converged(
    batches: BatchStore, text: str, preset: str, expect: bool, length: str = "round-200"
) -> None:
    """Whether the shipped search stopped at an approximate equilibrium."""
    assert best_play_results.shipped(preset, length).summary["converged"] == expect, text


# a gain in points, signed, as the lessons write it: "+0.9", "-0.2" or with a minus sign (U+2212)
SIGNED = re.compile(r"(?<![\w.])[+\-\u2212]\d+(?:\.\d+)?")


def points_are(text: str, row: dict[str, Any], role: str | None = None) -> None:
    """The text's three signed numbers are a gain and its 95% interval, in points. A table row
    with both roles' gains (six numbers) gives the Competitors' first."""
    found = [float(n.replace("\u2212", "-")) for n in SIGNED.findall(text)]
    if len(found) == 6 and role is not None:
        found = found[:3] if role == "competitor" else found[3:]
    want = [100 * row["gain"], 100 * row["ci_low"], 100 * row["ci_high"]]
    assert found == pytest.approx(want, abs=0.051), (found, want, text)


def shipped_gain(batches: BatchStore, text: str, preset: str, length: str, role: str) -> None:
    """The size of "approximate": the largest gain found for `role` against the final
    strategies of the run searched at `length` (`best_play_results.largest_gains`: the best-response
    check on fresh games, or a second search's strategy), with Newcombe's 95% interval, in
    points, as the text gives it ("+0.9 (+0.2 to +1.6)")."""
    found = best_play_results.largest_gains(best_play_results.shipped(preset, length).summary)
    assert role in found, f"no gain was measured for the {role}s of {preset} {length}: {text!r}"
    points_are(text, found[role], role)


def shipped_team_gain(
    batches: BatchStore, text: str, preset: str, length: str, more_than_luck: bool
) -> None:
    """Team play (a Monopolist sells a teammate the street that completes a city) turned on in
    the shipped Monopolists' strategy: the Monopolists' gain in points, with its interval
    (`summary["team_play_gain"]`), as the text gives it, and whether that interval lies
    wholly above 0 (a gain more than luck would explain)."""
    row = best_play_results.shipped(preset, length).summary["team_play_gain"]
    points_are(text, row)
    assert (row["ci_low"] > 0) == more_than_luck, (row, text)


def shipped_team_rates(batches: BatchStore, text: str, preset: str, length: str) -> None:
    """The Monopolists' win rate without and with team play, the text's two percentages."""
    row = best_play_results.shipped(preset, length).summary["team_play_gain"]
    assert numbers_of(text) == pytest.approx(
        [100 * row["without"], 100 * row["with_team_play"]], abs=0.051
    ), (row, text)


def shipped_second_seed(batches: BatchStore, text: str, preset: str, length: str) -> None:
    """Two searches from two seeds: the Monopolists' equilibrium win rates of the shipped run
    and of the second search, the text's two percentages, in that order."""
    second = best_play_results.shipped(preset, length).summary["second_seed"]
    assert numbers_of(text) == pytest.approx(
        [100 * rate for rate in second["monopolist_rates"]], abs=0.051
    ), (second["monopolist_rates"], text)


def shipped_by_length(
    batches: BatchStore,
    text: str,
    preset: str,
    length: str,
    rounds: int,
    role: str = "monopolist",
    bounds: list[float] | None = None,
) -> None:
    """The strategies searched at `length` played at another length (`rounds`; summary.json's
    `by_length`): the role's win rate lies in the text's range."""
    low, high = range_in(text, bounds)
    rows = best_play_results.shipped(preset, length).summary["by_length"]
    (row,) = [r for r in rows if r["rounds"] == rounds and r["role"] == role]
    assert low <= 100 * row["rate"] <= high, (row, text)


def shipped_gain_below(
    batches: BatchStore, text: str, preset: str, lengths: list[str], points: float
) -> None:
    """At each of `lengths`, the largest gain found for either role (the upper end of its 95%
    interval) is below `points`: no side found more than that."""
    for length in lengths:
        found = best_play_results.largest_gains(best_play_results.shipped(preset, length).summary)
        assert set(found) == {"competitor", "monopolist"}, (length, found, text)
        for role, row in found.items():
            assert 100 * row["ci_high"] < points, (length, role, row, text)


def shipped_gain_none(batches: BatchStore, text: str, preset: str, length: str) -> None:
    """No gain found for either role that luck could not explain (each interval holds 0)."""
    found = best_play_results.largest_gains(best_play_results.shipped(preset, length).summary)
    assert set(found) == {"competitor", "monopolist"}, (found, text)
    for role, row in found.items():
        assert row["ci_low"] <= 0 <= row["ci_high"], (role, row, text)


def shipped_gain_above(
    batches: BatchStore, text: str, preset: str, length: str, role: str, points: float
) -> None:
    """A role's largest gain found is far from 0: its interval's lower end is above `points`."""
    row = best_play_results.largest_gains(best_play_results.shipped(preset, length).summary)[role]
    assert 100 * row["ci_low"] > points, (row, text)


def shipped_switch_gain(
    batches: BatchStore, text: str, preset: str, length: str, bounds: list[float]
) -> None:
    """What each role gains by switching to the second search's strategy (`second_seed`), in
    points, lies in `bounds` ("about a point")."""
    second = best_play_results.shipped(preset, length).summary["second_seed"]
    for role in ("competitor", "monopolist"):
        gain = 100 * second[f"{role}_gain"]["gain"]
        assert min(bounds) <= gain <= max(bounds), (role, gain, text)


def shipped_second_knobs(
    batches: BatchStore, text: str, preset: str, length: str, at_least: int
) -> None:
    """The two searches' strategies differ on at least `at_least` knobs for each role."""
    differ = best_play_results.shipped(preset, length).summary["second_seed"]["knobs_differ"]
    for role, knobs in differ.items():
        assert len(knobs) >= at_least, (role, knobs, text)


def shipped_second_luck(batches: BatchStore, text: str, preset: str, length: str) -> None:
    """The two searches' Monopolist equilibrium rates differ by no more than luck would explain
    (Newcombe's interval for the difference holds 0)."""
    second = best_play_results.shipped(preset, length).summary["second_seed"]
    assert second["ci_low"] <= 0 <= second["ci_high"], (second["difference"], text)


def shipped_second_gain(
    batches: BatchStore, text: str, preset: str, length: str, role: str
) -> None:
    """What `role` gains by switching to the second search's strategy against the shipped
    run's other role (`second_seed`), in points with its 95% interval, as the text gives it."""
    points_are(
        text, best_play_results.shipped(preset, length).summary["second_seed"][f"{role}_gain"]
    )


def shipped_second_gain_none(batches: BatchStore, text: str, preset: str, length: str) -> None:
    """Neither role gains by switching to the second search's strategy by more than luck would
    explain (each gain's interval reaches 0 or below)."""
    second = best_play_results.shipped(preset, length).summary["second_seed"]
    for role in ("competitor", "monopolist"):
        assert second[f"{role}_gain"]["ci_low"] <= 0, (role, second[f"{role}_gain"], text)


def shipped_second_knob(
    batches: BatchStore,
    text: str,
    preset: str,
    length: str,
    role: str,
    knob: str,
    first: str,
    second: str,
) -> None:
    """A knob of a role's strategy in the shipped run (`first`) and in the second search
    (`second`, from `second_seed`'s strategies)."""
    run = best_play_results.shipped(preset, length)
    found = FamilyParams.parse(run.summary["second_seed"]["second_strategies"][role])
    assert run.best(role).as_dict()[knob] == first, text
    assert found.as_dict()[knob] == second, text


def shipped_team_games(batches: BatchStore, text: str, preset: str, games: dict[str, int]) -> None:
    """How many fresh games each length's team-play comparison played (one seed: the same
    games with the knob off and on)."""
    for length, count in games.items():
        row = best_play_results.shipped(preset, length).summary["team_play_gain"]
        assert row["games"] == count and isinstance(row["seed"], int), (length, row, text)


def shipped_team_none(batches: BatchStore, text: str, preset: str, length: str) -> None:
    """Team play changes nothing: the Monopolists win the same games with it and without."""
    row = best_play_results.shipped(preset, length).summary["team_play_gain"]
    assert row["with_team_play"] == row["without"], (row, text)


def team_run(preset: str, folder: str) -> best_play_results.BestPlayResult:
    """A shipped team-play search (amteach/data/best_play/<preset>/<folder>)."""
    from importlib import resources

    return best_play_results.BestPlayResult.load(
        resources.files("amteach.data").joinpath("best_play", preset, folder)
    )


def team_search_range(batches: BatchStore, text: str, preset: str, folder: str) -> None:
    """The Monopolists' win rate under the team-play search's strategies: the text's two
    numbers are its exact 95% interval."""
    figures = team_run(preset, folder).summary["equilibrium"]
    low, high = stats.exact_interval(figures["monopolist"]["wins"], figures["games"])
    assert numbers_of(text) == pytest.approx([100 * low, 100 * high], abs=0.051), text


def team_search_change(
    batches: BatchStore, text: str, preset: str, folder: str, length: str, expect: str
) -> None:
    """The Monopolists' equilibrium win rate with the team knob free against the shipped
    search without it (Newcombe's interval for the difference): more, less or luck."""
    a = best_play_results.shipped(preset, length).summary["equilibrium"]
    b = team_run(preset, folder).summary["equilibrium"]
    moved = stats.compare_batches(
        a["monopolist"]["wins"], a["games"], b["monopolist"]["wins"], b["games"]
    )
    found = "luck" if not moved.significant else "more" if moved.difference > 0 else "less"
    assert found == expect, (moved, text)


def team_search(
    batches: BatchStore,
    text: str,
    preset: str,
    folder: str,
    team: str,
    converged: bool,
    minutes: float,
    streets: str | None = None,
) -> None:
    """A shipped search with the team-play knob free (amteach/data/best_play/<preset>/<folder>):
    the Monopolists' team knob it found (and their streets knob), whether it converged, and
    its budget in minutes."""
    run = team_run(preset, folder)
    assert "--team-play" in run.summary["command"], text
    # the Competitors searched after the Monopolists turned it on: they answered the cartel
    phases = run.phases
    on = phases[(phases["role"] == "monopolist") & phases["challenger"].str.contains("team=sell")]
    assert (
        not on.empty and (phases["phase"] > on["phase"].min())[phases["role"] == "competitor"].any()
    )
    assert run.best("monopolist").as_dict()["team"] == team, text
    assert run.summary["converged"] == converged, text
    assert run.summary["budget_minutes"] == minutes, text
    if streets is not None:
        assert run.best("monopolist").as_dict()["streets"] == streets, text


CLAIMS = {
    "shipped_range": shipped_range,
    "shipped_even": shipped_even,
    "shipped_change": shipped_change,
    "shipped_cap": shipped_cap,
    "shipped_says": shipped_says,
    "shipped_knob": shipped_knob,
    "shipped_top": shipped_top,
    "shipped_cell": shipped_cell,
    "shipped_best_row": shipped_best_row,
    "shipped_probe": shipped_probe,
    "shipped_importance": shipped_importance,
    "shipped_best_column": shipped_best_column,
    "shipped_converged": shipped_converged,
    "shipped_last_gain": shipped_last_gain,
    "shipped_gain": shipped_gain,
    "shipped_team_gain": shipped_team_gain,
    "shipped_team_rates": shipped_team_rates,
    "shipped_second_seed": shipped_second_seed,
    "shipped_by_length": shipped_by_length,
    "shipped_gain_below": shipped_gain_below,
    "shipped_gain_none": shipped_gain_none,
    "shipped_gain_above": shipped_gain_above,
    "shipped_switch_gain": shipped_switch_gain,
    "shipped_second_knobs": shipped_second_knobs,
    "shipped_team_none": shipped_team_none,
    "shipped_team_games": shipped_team_games,
    "shipped_second_knob": shipped_second_knob,
    "shipped_second_luck": shipped_second_luck,
    "shipped_second_gain": shipped_second_gain,
    "shipped_second_gain_none": shipped_second_gain_none,
    "team_search": team_search,
    "team_search_range": team_search_range,
    "team_search_change": team_search_change,
    "rate_range": rate_range,
    "rate_is": rate_is,
    "even_test": even_test,
    "change": change,
    "change_reaches": change_reaches,
    "change_points": change_points,
    "structure_gini_gap": structure_gini_gap,
    "two_hour_before": two_hour_before,
    "bonferroni_passes": bonferroni_passes,
    "lead_beyond_change": lead_beyond_change,
    "cap_range": cap_range,
    "ending_range": ending_range,
    "bankrupt_range": bankrupt_range,
    "reading": reading,
    "structure_order": structure_order,
    "structure_range": structure_range,
    "structure_close": structure_close,
    "tax_share_range": tax_share_range,
    "tax_says": tax_says,
    "difference_interval": difference_interval,
    "sweep_even": sweep_even,
    "sweep_cross": sweep_cross,
    "sweep_within": sweep_within,
    "sweep_cap": sweep_cap,
    "exact_against_wilson": exact_against_wilson,
    "wins_mostly": wins_mostly,
    "wins_all": wins_all,
    "width_range": width_range,
    "landing_row": landing_row,
    "street_row": street_row,
    "landing_says": landing_says,
    "structure_row": structure_row,
    "structure_between": structure_between,
    "structure_gap_smaller": structure_gap_smaller,
    "structure_running": structure_running,
    "gini_when_one_left": gini_when_one_left,
    "lorenz_range": lorenz_range,
    "inequality_range": inequality_range,
    "landing_drops": landing_drops,
    "returns_row": returns_row,
    "returns_says": returns_says,
}


def checks_of(lesson: Path) -> list[dict[str, Any]]:
    path = lesson / "checks.yaml"
    return (yaml.safe_load(path.read_text()) or []) if path.exists() else []


# -- the tests ------------------------------------------------------------------------------------
def test_there_are_at_least_six_lessons_covering_the_six_topics():
    assert len(LESSON_DIRS) >= 6
    titles = " ".join((d / "plan.md").read_text().splitlines()[0].lower() for d in LESSON_DIRS)
    for topic in ("rulebooks", "pricing", "tax", "fair", "landing", "inequality"):
        assert topic in titles, topic


@pytest.mark.parametrize("lesson", LESSON_DIRS, ids=lambda p: p.name)
def test_each_lesson_has_a_complete_plan_and_a_separate_worksheet(lesson):
    plan = (lesson / "plan.md").read_text()
    headings = [line.lstrip("#").strip() for line in plan.splitlines() if line.startswith("## ")]
    for section in PLAN_SECTIONS:
        assert any(h.startswith(section) for h in headings), f"{lesson.name}: no {section!r}"
    worksheet = (lesson / "worksheet.md").read_text()
    assert worksheet.startswith("# ") and "worksheet" in worksheet.splitlines()[0].lower()
    assert "Name:" in worksheet  # printable: students write on it


def sections(text: str) -> dict[str, str]:
    """A Markdown file's "## " sections: heading to body."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return {heading.strip(): body for heading, body in zip(parts[1::2], parts[2::2], strict=True)}


@pytest.mark.parametrize("lesson", LESSON_DIRS, ids=lambda p: p.name)
def test_each_lesson_has_an_instructors_manual_with_every_part(lesson):
    manual = lesson / "manual.md"
    assert manual.exists(), f"{lesson.name}: no manual.md"
    text = manual.read_text()
    assert "manual" in text.splitlines()[0].lower()
    found = sections(text)
    for section in MANUAL_SECTIONS:
        assert any(h.startswith(section) for h in found), f"{lesson.name}: no {section!r}"
        body = next(b for h, b in found.items() if h.startswith(section))
        assert len(body.split()) >= 40, f"{lesson.name}: {section!r} is too short to teach from"
    standards = next(b for h, b in found.items() if h.startswith("Standards alignment"))
    for framework in ("Voluntary National Content Standards", "C3 Framework", "AP Micro"):
        assert framework in standards, f"{lesson.name}: the standards name no {framework}"
    assert re.search(r"Standard \d+, \*[A-Z]", standards), (
        "an economics standard by number and name"
    )
    assert re.search(r"D2\.Eco\.\d+\.9-12", standards), "a C3 indicator by its code"
    quiz = next(b for h, b in found.items() if h.startswith("Warm-up quiz"))
    assert len(re.findall(r"^\d+\. ", quiz, flags=re.MULTILINE)) >= 4, "at least four questions"
    cases = next(b for h, b in found.items() if h.startswith("Real-world cases"))
    assert "../cases.md" in cases and re.search(r"\((?:1[89]|20)\d\d\)", cases), (
        "cases with their year, linked to the cases file"
    )
    plan = (lesson / "plan.md").read_text()
    assert "(manual.md)" in plan, f"{lesson.name}: the plan does not link its manual"
    assert f"({lesson.name}/manual.md)" in (LESSONS / "README.md").read_text()


def test_the_cases_are_cited_with_their_courts_and_dates():
    cases = sections((LESSONS / "cases.md").read_text())
    for name, citation in {
        "Standard Oil": "221 U.S. 1 (1911)",
        "AT&T": "552 F. Supp. 131",
        "Microsoft": "253 F.3d 34 (D.C. Cir. 2001)",
        "Google": "747 F. Supp. 3d 1",
        "Anti-Monopoly": "684 F.2d 1316 (9th Cir. 1982)",
    }.items():
        (body,) = [" ".join(b.split()) for h, b in cases.items() if name in h]
        assert citation in body, (name, citation)
    assert "748,626" in cases[next(h for h in cases if "Anti-Monopoly" in h)]


def test_no_lesson_says_overlapping_intervals_mean_no_difference():
    """Overlapping 95% intervals can still differ by more than luck. A sentence that links
    overlapping intervals with "cannot tell apart", "no difference" or "the same" must be
    saying that the link does not hold (or be a misconception, in quotation marks)."""
    says_same = re.compile(
        r"cannot tell|can't tell|tell (?:the two|them|the \w+) apart|no (?:real )?difference"
        r"|the same|equal",
        flags=re.IGNORECASE,
    )
    denies = re.compile(r"\b(?:do(?:es)? not|never|can|still|even)\b", flags=re.IGNORECASE)
    for path in [*lesson_files(), ROOT / "docs" / "analysis.md"]:
        for sentence in re.split(r"(?<=[.!?])\s+", " ".join(path.read_text().split())):
            found = re.search(r"overlap", sentence, flags=re.IGNORECASE)
            if not found or sentence[: found.start()].count('"') % 2 == 1:  # a quoted myth
                continue
            assert not says_same.search(sentence) or denies.search(sentence), (
                f"{path.relative_to(ROOT)}: {sentence!r}"
            )


def test_every_link_and_referenced_file_in_the_lessons_exists():
    missing = []
    for path in lesson_files():
        text = path.read_text()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+://", target) or target.startswith("#"):
                continue
            if not (path.parent / target.split("#")[0]).exists():
                missing.append(f"{path.relative_to(ROOT)} -> {target}")
        for reference in re.findall(r"`((?:notebooks|lessons|docs)/[^`\s]+)`", text):
            if not (ROOT / reference).exists():
                missing.append(f"{path.relative_to(ROOT)} -> {reference}")
    assert missing == []


def test_every_dashboard_tab_a_lesson_names_exists():
    from amteach.ui.dashboard import Dashboard

    tabs = Dashboard().tabs
    titles = {tabs.get_title(i) for i in range(len(tabs.children))}
    named = {
        (path.relative_to(ROOT), tab)
        for path in lesson_files()
        for tab in re.findall(r"\*([A-Z][^*]{1,20})\* tab", path.read_text())
    }
    assert named, "lessons point to dashboard tabs as *Name* tab"
    assert [(str(p), tab) for p, tab in named if tab not in titles] == []


@pytest.mark.parametrize("scenario", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_scenario_loads_and_plays(scenario):
    game = run_scenario(read_yaml(scenario), source=str(scenario))
    assert game.decisions  # its script was played


def test_every_scenario_is_used_by_a_lesson():
    used = " ".join(path.read_text() for path in lesson_files())
    assert [s.name for s in SCENARIOS.glob("*.yaml") if s.name not in used] == []


def test_every_notebook_a_lesson_uses_is_one_the_test_suite_runs():
    used = {
        name
        for path in lesson_files()
        for name in re.findall(r"notebooks/([\w-]+\.ipynb)", path.read_text())
    }
    assert used and all((ROOT / "notebooks" / name).exists() for name in used)


@pytest.mark.parametrize("lesson", LESSON_DIRS, ids=lambda p: p.name)
def test_every_number_a_lesson_states_is_the_tool_s_own(lesson):
    checks = checks_of(lesson)
    for check in checks:
        text = (lesson / check["file"]).read_text()
        assert check["text"] in " ".join(flat(text).split()), (
            f"{lesson.name}: not found: {check['text']!r}"
        )
        kinds = [k for k in check if k in CHECKS or k in CLAIMS]
        assert len(kinds) == 1, f"{lesson.name}: one kind of check per entry: {check}"
        if kinds[0] in CHECKS:
            computed = CHECKS[kinds[0]](**check[kinds[0]])
            assert number_in(check["text"]) == pytest.approx(float(computed), abs=0.051), check
    for path in sorted(lesson.glob("*.md")):
        text = " ".join(flat(path.read_text()).split())
        checked = " ".join(c["text"] for c in checks if c["file"] == path.name)
        for number in NUMBER.findall(text):
            assert number in checked, f"{path.relative_to(ROOT)}: {number} is not checked"
        # a gain in points ("+0.9 (+0.2 to +1.6)") is the tool's own too
        for number in SIGNED.findall(text):
            assert number in checked, f"{path.relative_to(ROOT)}: {number} is not checked"


CLAIM_CHECKS = [
    (lesson, check)
    for lesson in LESSON_DIRS
    for check in checks_of(lesson)
    if any(kind in CLAIMS for kind in check)
]


@pytest.mark.parametrize(
    "lesson, check",
    CLAIM_CHECKS,
    ids=[f"{lesson.name}:{check['text'][:40]}" for lesson, check in CLAIM_CHECKS],
)
def test_every_claim_about_bot_games_holds_for_the_batches_the_lesson_names(lesson, check, batches):
    (kind,) = [k for k in check if k in CLAIMS]
    CLAIMS[kind](batches, check["text"], **check[kind])


def test_the_equal_keep_batches_play_the_class_tabs_equal_keep_shares():
    """A lesson's "equal keep shares" figure is for the rule set the Class tab gives a table
    (decision 12's keep shares, both roles keeping what the Competitors keep as written)."""
    equal = named_rule_set("equal-keep")
    written = RuleSet.preset("default")
    assert equal.rules().settlement_keep_percent_monopolist == (
        written.settlement_keep_percent_competitor
    )
    named = [name for name in BATCHES if name.endswith("-equal")]
    assert {"class-3-equal", "class-6-equal", "best-two-hour-equal"} <= set(named)
    for name in named:
        spec = BATCHES[name]
        assert spec["set"] == equal.changes, name
        base = RuleSet.preset(spec.get("rules", "default"), **spec["set"])
        assert base == equal.rules(), name


def test_the_taxes_notebook_plays_the_taxes_tabs_batch():
    """Lesson 3 says the notebook shows the same numbers as the Taxes tab."""
    import json

    cells = json.loads((ROOT / "notebooks" / "taxes.ipynb").read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    spec = BATCHES["taxes"]
    assert re.search(rf"^GAMES = {spec['games']}\b", code, flags=re.MULTILINE), "games"
    assert f"seed={spec['seed']}" in code, "seed"


def test_the_batches_the_lessons_name_are_the_dashboards_own():
    """The lessons quote the dashboard's panels as they start: same seats, seed and games
    (each panel's seed box starts at the lessons' seed; a pair may change it)."""
    from amteach.ui import economics
    from amteach.ui.batch import BatchPanel
    from amteach.ui.dashboard import Dashboard

    def panels(widget: Any) -> list[BatchPanel]:
        """The batch panels on a page, top to bottom."""
        if getattr(widget, "model_id", None) in BatchPanel.by_widget:
            return [BatchPanel.by_widget[widget.model_id]]
        return [p for child in getattr(widget, "children", ()) for p in panels(child)]

    def same(panel: BatchPanel, name: str) -> None:
        spec = BATCHES[name]
        assert (panel.seats, panel.seed, panel.games.value) == (
            spec["seats"],
            spec["seed"],
            spec["games"],
        ), name

    dashboard = Dashboard()
    same(dashboard.who_wins, "who-wins")
    fair, rule_sweep, presets, structures = panels(economics.fairness_page())
    same(fair, "fairness")
    same(rule_sweep, "fairness-fee-300")  # the sweep, the presets and the market structures
    same(presets, "fairness-2005")  # read their seed from the panel's seed box too
    spec = BATCHES["structures"]
    assert (structures.bot, structures.seed, structures.games.value) == (
        spec["bot"],
        spec["seed"],
        spec["games"],
    )
    (tax,) = panels(economics.taxes_page())
    same(tax, "taxes")
    same(tax, "taxes-two-hour")  # the same panel with its Game length at "Two-hour game"
    assert tax.length.value == BATCHES["taxes"].get("round_cap", DEFAULT_ROUND_CAP)
    two_hour = next(rounds for label, rounds in tax.length.options if "Two-hour" in label)
    assert two_hour == BATCHES["taxes-two-hour"]["round_cap"]
    (many,) = panels(economics.inequality_page(dashboard.app.session))
    same(many, "who-wins")
