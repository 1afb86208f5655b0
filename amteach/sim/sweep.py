"""Rule sweeps: the same bot games played for several values of one rule parameter, or under
several rules presets. A sweep is planned and checked before any game is played, timed on
this machine beforehand (so a long one can say so), and run as one batch of `simulate` per
value. It returns a tidy frame with one row per value and role; `amteach.analysis.fairness`
draws and reads it. `amteach sweep` and the dashboard's *Is it fair?* tab both run sweeps
through this module.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..engine.errors import InputError, RulesError, quoted
from ..engine.game import GAME_TYPES
from ..engine.rules import RuleSet, preset_names
from .cpus import available_cpus, default_workers
from .play import BatchConfig, SeatSpec, play_game
from .pool import Progress, shared_pool
from .results import SimulationResult
from .runner import DEFAULT_ROUND_CAP, parse_seats, simulate, warn_if_slow, with_round_cap

LONG_SWEEP_SECONDS = 20.0
# games played on one worker to time a sweep before it starts
CALIBRATION_GAMES = 12

SWEEP_COLUMNS = (
    "parameter",
    "value",
    "role",
    "wins",
    "games",
    "rate",
    "ci_low",
    "ci_high",
    "mean_rounds",
    "round_cap_share",
)


@dataclass(frozen=True)
class SweepPlan:
    """A checked sweep: the rule sets to play, in order, with the seats and settings."""

    parameter: str
    values: tuple[Any, ...]
    rulesets: tuple[RuleSet, ...]
    seats: tuple[SeatSpec, ...]
    games: int
    workers: int
    seed: int
    game: str

    @property
    def total_games(self) -> int:
        return self.games * len(self.rulesets)


def check_batch_settings(games: Any, workers: Any, game: Any) -> int:
    """Refuse bad games, workers or game type before any game; returns the workers to use."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise InputError(
            f"games must be a whole number of at least 1, not {quoted(games)}", field="games"
        )
    if game not in GAME_TYPES:
        raise InputError(
            f"game must be one of {', '.join(GAME_TYPES)}, not {quoted(game)}", field="game"
        )
    workers = default_workers() if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"workers must be at least 1, not {quoted(workers)}", field="workers")
    return workers


def _shown_value(ruleset: RuleSet, parameter: str) -> Any:
    """The parameter's value as the frame shows it: numbers and words as they are, lists and
    mappings as compact text."""
    value = ruleset.to_dict()[parameter]
    return value if isinstance(value, int | str) else str(value)


def plan_sweep(
    parameter: str,
    values: Sequence[Any],
    games: int,
    seats: Any,
    rules: RuleSet | str | dict[str, Any],
    seed: int,
    workers: int | None,
    round_cap: int | None,
    game: str,
) -> SweepPlan:
    """Check every value before any game is played; errors name the parameter."""
    if not isinstance(parameter, str) or not parameter.strip():
        raise InputError("name the rule parameter to sweep", field="parameter")
    parameter = parameter.strip()
    base = RuleSet.coerce(rules)
    known = [name for name in base.to_dict() if name != "preset_name"]
    if parameter not in known:
        hint = " (to compare presets use compare_presets)" if parameter == "preset" else ""
        raise RulesError(
            f"unknown rule parameter {quoted(parameter)}{hint}; valid parameters: "
            + ", ".join(sorted(known)),
            field=parameter,
        )
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise InputError(
            f"the values to sweep must be a list, such as [10, 160], not {quoted(values)}",
            field=parameter,
        )
    values = list(values)
    if not values:
        raise InputError(f"a sweep of {parameter} needs at least one value", field=parameter)
    workers = check_batch_settings(games, workers, game)
    specs = parse_seats(seats)
    rulesets: list[RuleSet] = []
    for value in values:
        ruleset = base.replace(**{parameter: value})
        # the round cap being swept is the games' cap, not simulate's default
        cap = None if parameter == "round_cap" else round_cap
        ruleset = with_round_cap(ruleset, cap, parameter if cap is None else "round_cap")
        if any(getattr(r, parameter) == getattr(ruleset, parameter) for r in rulesets):
            raise InputError(
                f"the value {quoted(_shown_value(ruleset, parameter))} appears twice in the sweep",
                field=parameter,
            )
        rulesets.append(ruleset)
    shown = tuple(_shown_value(r, parameter) for r in rulesets)
    return SweepPlan(parameter, shown, tuple(rulesets), specs, games, workers, int(seed), game)


def plan_presets(
    presets: Sequence[str],
    games: int,
    seats: Any,
    seed: int,
    workers: int | None,
    round_cap: int | None,
    game: str,
    overrides: dict[str, Any],
) -> SweepPlan:
    if isinstance(presets, str) or not isinstance(presets, Iterable):
        raise InputError(
            f"presets must be a list of preset names, not {quoted(presets)}", field="presets"
        )
    presets = [str(p) for p in presets]
    if not presets:
        raise InputError(
            "name at least one preset to compare; presets: " + ", ".join(preset_names()),
            field="presets",
        )
    known = preset_names()
    for i, name in enumerate(presets):
        if name not in known:
            raise InputError(
                f"unknown rules preset {quoted(name)}; valid presets: {', '.join(known)}",
                field="presets",
            )
        if name in presets[:i]:
            raise InputError(f"the preset {quoted(name)} appears twice", field="presets")
    workers = check_batch_settings(games, workers, game)
    specs = parse_seats(seats)
    rulesets = tuple(
        with_round_cap(RuleSet.preset(name, **overrides), round_cap, "round_cap")
        for name in presets
    )
    return SweepPlan("preset", tuple(presets), rulesets, specs, games, workers, int(seed), game)


def calibrate(plan: SweepPlan, calibration_games: int) -> float:
    """Seconds one game takes on one worker, timed on this machine on the first, middle and
    last values (a high fee and a low one can play very differently)."""
    last = len(plan.rulesets) - 1
    points = sorted({0, last // 2, last})
    per_point = max(1, -(-int(calibration_games) // len(points)))
    elapsed = 0.0
    for point in points:
        ruleset = plan.rulesets[point]
        config = BatchConfig(plan.seats, ruleset.to_dict(), plan.seed, plan.game, False)
        # an untimed game first: it fills the bots' caches for these rules (landing odds),
        # which a worker fills once for a whole batch
        play_game(0, config, ruleset)
        started = time.perf_counter()
        for index in range(1, per_point + 1):
            play_game(index, config, ruleset)
        elapsed += time.perf_counter() - started
    return elapsed / (per_point * len(points))


def free_cores() -> int:
    """Cores not busy with other work, from the one-minute load average (all cores where the
    platform has none): on a shared machine, two workers may run no faster than one."""
    cores = available_cpus()
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):
        return cores
    return max(1, cores - round(busy))


def estimate_seconds(plan: SweepPlan, calibration_games: int) -> float:
    per_game = calibrate(plan, calibration_games)
    parallel = max(1, min(plan.workers, free_cores()))
    # every value's rules take the workers a moment to learn (their landing odds), which
    # calibrate() did here, in another process
    start_up = 0.2 * len(plan.rulesets) if plan.workers > 1 else 0.0
    return per_game * plan.total_games / parallel + start_up


def estimate_sweep_seconds(
    parameter: str,
    values: Sequence[Any],
    games: int,
    seats: str | Iterable[Any] | None = None,
    rules: RuleSet | str | dict[str, Any] = "default",
    seed: int = 0,
    workers: int | None = None,
    round_cap: int | None = DEFAULT_ROUND_CAP,
    game: str = "A",
    calibration_games: int = CALIBRATION_GAMES,
) -> float:
    """About how many seconds `sweep` with these arguments would take on this machine.

    It times a few games (`calibration_games`) on one worker, spread over the values, and
    scales by the number of games and by the workers that can run at once (cores already busy
    with other work, by the load average, do not count). Bad input raises the same errors as
    `sweep`.
    """
    plan = plan_sweep(parameter, values, games, seats, rules, seed, workers, round_cap, game)
    return estimate_seconds(plan, calibration_games)


def describe_duration(seconds: float) -> str:
    """A rough duration in words: "about 40 seconds", "about 3 minutes", "about 2.5 hours"."""
    if seconds < 90:
        return f"about {max(10, round(seconds / 10) * 10)} seconds"
    minutes = seconds / 60
    if minutes < 90:
        return f"about {round(minutes)} minutes"
    return f"about {minutes / 60:.1f} hours"


def estimate_message(total_games: int, seconds: float) -> str:
    """What a long sweep says before it starts."""
    return f"This sweep plays {total_games} games; expect {describe_duration(seconds)}."


def run_plan(
    plan: SweepPlan,
    progress: bool | str,
    on_value: Callable[[Any, pd.DataFrame], None] | None,
    on_estimate: Callable[[float, int], None] | None,
    calibration_games: int,
    on_progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    if on_estimate is not None:
        on_estimate(estimate_seconds(plan, calibration_games), plan.total_games)
    warn_if_slow(plan.total_games, plan.workers)
    frames: list[pd.DataFrame] = []
    interrupted = False
    with (
        Progress(progress, plan.total_games, on_advance=on_progress) as shown,
        shared_pool(plan.workers) as pool,
    ):
        try:
            for i, (value, ruleset) in enumerate(zip(plan.values, plan.rulesets, strict=True)):
                played = i * plan.games

                def advance(done: int, _total: int, played: int = played) -> None:
                    # on_progress may raise KeyboardInterrupt to stop (Cancel)
                    shown.to(played + done)

                result = simulate(
                    games=plan.games,
                    seats=plan.seats,
                    rules=ruleset,
                    seed=plan.seed,
                    round_cap=None,  # already in the rule set
                    game=plan.game,
                    progress=False,
                    record_rounds=False,
                    on_chunk=advance,
                    pool=pool,
                )
                if result.completed:
                    rows = _value_rows(plan.parameter, value, result)
                    frames.append(rows)
                    if on_value is not None:
                        on_value(value, rows)
                if result.interrupted:
                    interrupted = True
                    break
        except KeyboardInterrupt:  # between two values' batches
            interrupted = True
    frame = (
        pd.concat(frames, ignore_index=True)
        if frames
        else pd.DataFrame({c: [] for c in SWEEP_COLUMNS})
    )
    frame.attrs.update(
        {
            "parameter": plan.parameter,
            "seats": [s.label() for s in plan.seats],
            "seed": plan.seed,
            "game": plan.game,
            "interrupted": interrupted,
        }
    )
    return frame


def _value_rows(parameter: str, value: Any, result: SimulationResult) -> pd.DataFrame:
    rates = result.win_rates("role")
    games = result.games
    return pd.DataFrame(
        {
            "parameter": parameter,
            "value": [value] * len(rates),
            "role": rates["role"],
            "wins": rates["wins"],
            "games": rates["games"],
            "rate": rates["rate"],
            "ci_low": rates["ci_low"],
            "ci_high": rates["ci_high"],
            "mean_rounds": float(games["rounds"].mean()),
            "round_cap_share": float((games["end_reason"] == "round_cap").mean()),
        }
    )[list(SWEEP_COLUMNS)]


def sweep(
    parameter: str,
    values: Sequence[Any],
    games: int = 1000,
    seats: str | Iterable[Any] | None = None,
    rules: RuleSet | str | dict[str, Any] = "default",
    seed: int = 0,
    workers: int | None = None,
    round_cap: int | None = DEFAULT_ROUND_CAP,
    game: str = "A",
    progress: bool | str = True,
    on_value: Callable[[Any, pd.DataFrame], None] | None = None,
    on_estimate: Callable[[float, int], None] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    calibration_games: int = CALIBRATION_GAMES,
) -> pd.DataFrame:
    """Play `games` bot games for each value of one rule parameter and compare who wins.

    Returns one row per value and role: `parameter`, `value`, `role`, `wins`, `games`,
    `rate` (share of games won), `ci_low` and `ci_high` (its 95% Wilson interval),
    `mean_rounds` (mean game length) and `round_cap_share` (share of games settled by the
    round cap). Every value plays the same game seeds, so the dice start alike and the
    differences come from the rule as far as possible.

    Every value is checked before any game is played: a negative fee, an unknown parameter,
    an empty or repeated value raises `InputError` naming the parameter.
    `on_estimate(seconds, total_games)` is called before the first game with the expected
    duration (see `estimate_sweep_seconds`); `on_value(value, rows)` after each value;
    `on_progress(done, total)` after each chunk of games (raising KeyboardInterrupt there
    stops the sweep like Ctrl-C). Ctrl-C stops cleanly: the values finished are returned (the last one with the games it
    finished) and `frame.attrs["interrupted"]` is true.

    Example: ``sweep("foundation_monopolist_fee", [10, 160], games=2000)``.
    """
    plan = plan_sweep(parameter, values, games, seats, rules, seed, workers, round_cap, game)
    return run_plan(plan, progress, on_value, on_estimate, calibration_games, on_progress)


def compare_presets(
    presets: Sequence[str] = ("default", "edition-2005"),
    games: int = 1000,
    seats: str | Iterable[Any] | None = None,
    seed: int = 0,
    workers: int | None = None,
    round_cap: int | None = DEFAULT_ROUND_CAP,
    game: str = "A",
    progress: bool | str = True,
    on_value: Callable[[Any, pd.DataFrame], None] | None = None,
    on_estimate: Callable[[float, int], None] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    calibration_games: int = CALIBRATION_GAMES,
    **rule_overrides: Any,
) -> pd.DataFrame:
    """Who wins under each rules preset: the same frame as `sweep`, with `parameter` "preset"
    and the preset's name as `value`, so `sweep_figure` draws it.

    The publisher says the game's prices were balanced using probability and computer
    simulation; this lets a class test that claim for itself, preset by preset.
    `rule_overrides` change a parameter in every preset alike.
    """
    plan = plan_presets(presets, games, seats, seed, workers, round_cap, game, rule_overrides)
    return run_plan(plan, progress, on_value, on_estimate, calibration_games, on_progress)
