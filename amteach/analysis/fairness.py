"""Is the game fair? Win rates by role, seat and bot; rule sweeps; presets compared; and a
counterfactual baseline where every player follows one role's rules.

Every number here comes from bot games played by the engine (`amteach.simulate`): nothing
re-implements a rule. Each analysis returns a tidy pandas DataFrame, has a plotly chart
(`*_figure`) and a sentence that reads the chart for a student (`reading_*`).

A 95% interval is the range of win rates that fits what we saw: with more games it narrows.
The readings compare rates as `stats` says: a group of one batch with its even mark (exact
binomial test), and one rate across two batches by Newcombe's interval for the difference.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..bots import STRATEGIES
from ..engine.board import ROLES
from ..engine.errors import InputError, RulesError
from ..engine.game import GAME_TYPES
from ..engine.rules import RuleSet, preset_names
from ..render import ROLE_COLOURS, ROLE_LABELS, ROLE_SYMBOLS
from ..sim.play import BatchConfig, SeatSpec, play_game
from ..sim.results import SimulationResult
from ..sim.runner import DEFAULT_ROUND_CAP, _progress_bar, parse_seats, simulate
from . import stats

if TYPE_CHECKING:
    import plotly.graph_objects as go

# a sweep expected to take longer than this says so before it starts
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
MARKET_STRUCTURES = ("all Competitors", "mixed", "all Monopolists")
MARKET_COLUMNS = (
    "structure",
    "players",
    "games",
    "rent_per_turn",
    "rent_per_game",
    "mean_rounds",
    "round_cap_share",
    "round_cap",
    "mean_gini",
    "bankrupt_share",
)
NEUTRAL_COLOUR = "#6b6b6b"  # bars that are not a role (bots, a mixed table)
_PLURAL = {role: ROLE_LABELS[i] + "s" for i, role in enumerate(ROLES)}


def _percent(x: float) -> str:
    """A rate for a reading, to one decimal place: whole percents would let a rate look equal
    to an end of its interval."""
    return "n/a" if x != x else f"{100 * x:.1f}%"


def _share(x: float) -> str:
    """An even share such as 50% or 33.3%: no decimals when it is a whole percent."""
    text = _percent(x)
    return text.replace(".0%", "%")


def _interval(row: Any) -> str:
    return f"95% interval {_percent(row['ci_low'])} to {_percent(row['ci_high'])}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def seat_label(seat: int) -> str:
    """Turn order in words: seat 0 is "1st to play"."""
    return f"{_ordinal(int(seat) + 1)} to play"


# -- win rates by role, seat or bot -----------------------------------------------------------


def win_rate_table(result: SimulationResult, by: str = "role") -> pd.DataFrame:
    """`result.win_rates(by)` with a plain-English `label` for each row and `even_share`, the
    rate every row would have if the game were even (a role's share of the seats; 1 in n for
    a seat or a bot).

    By role, the rate is the share of games a player of that role won. By seat or bot, it is
    the share of that seat's (or bot's) games that it won.
    """
    rates = result.win_rates(by)
    seats = [SeatSpec(**s) for s in result.meta.get("seats", [])]
    n = len(seats) or int(result.players.groupby("game").size().max())
    if by == "role":
        labels = [_PLURAL[r] for r in rates["role"]]
        even = [
            sum(s.role == r for s in seats) / n if seats else float("nan") for r in rates["role"]
        ]
    elif by == "seat":
        labels = [
            seat_label(s) + (f" ({ROLE_LABELS[ROLES.index(seats[s].role)]})" if seats else "")
            for s in rates["seat"]
        ]
        even = [1 / n] * len(rates)
    else:
        labels = [str(b) for b in rates["bot"]]
        even = [1 / n] * len(rates)
    return rates.assign(label=labels, even_share=even)


def _bar_colour(by: str, key: Any, seats: list[SeatSpec]) -> str:
    if by == "role":
        return ROLE_COLOURS[ROLES.index(key)]
    if by == "seat" and seats:
        return ROLE_COLOURS[ROLES.index(seats[int(key)].role)]
    return NEUTRAL_COLOUR


def win_rates_figure(result: SimulationResult, by: str = "role") -> go.Figure:
    """Bars of the win rate by role, seat ("1st to play", ...) or bot, each with its 95%
    Wilson interval, and a mark where an even game would put it. Roles are green
    (Competitors) and blue (Monopolists), always with their name under the bar."""
    import plotly.graph_objects as go

    table = win_rate_table(result, by)
    seats = [SeatSpec(**s) for s in result.meta.get("seats", [])]
    colours = [_bar_colour(by, key, seats) for key in table[by]]
    figure = go.Figure()
    figure.add_bar(
        x=table["label"],
        y=table["rate"],
        marker={"color": colours},
        error_y={
            "type": "data",
            "symmetric": False,
            "array": table["ci_high"] - table["rate"],
            "arrayminus": table["rate"] - table["ci_low"],
            "color": "#333",
        },
        customdata=table[["wins", "games", "ci_low", "ci_high"]].to_numpy(),
        hovertemplate=(
            "%{x}: won %{y:.1%} (%{customdata[0]} of %{customdata[1]})<br>"
            "95% interval %{customdata[2]:.1%} to %{customdata[3]:.1%}<extra></extra>"
        ),
        name="win rate",
        showlegend=False,
    )
    figure.add_scatter(
        x=table["label"],
        y=table["even_share"],
        mode="markers",
        marker={"symbol": "line-ew-open", "size": 40, "color": "#b00020", "line": {"width": 2}},
        name="an even game",
        hovertemplate="an even game: %{y:.0%}<extra></extra>",
    )
    what = {"role": "role", "seat": "turn order", "bot": "bot"}[by]
    figure.update_layout(
        title={"text": f"Who wins, by {what} (thin lines: 95% intervals)", "font": {"size": 15}},
        xaxis={"title": {"text": what}},
        yaxis={"title": {"text": "share of games won"}, "tickformat": ".0%", "rangemode": "tozero"},
        legend={"orientation": "h", "y": -0.2},
        template="plotly_white",
        margin={"l": 60, "r": 10, "t": 45, "b": 40},
    )
    return figure


def reading_win_rates(result: SimulationResult, by: str = "role") -> str:
    """One or two sentences reading `win_rates_figure` for a student, numbers from the batch."""
    table = win_rate_table(result, by)
    games = len(result.games)
    if games == 0 or table.empty:
        return "No games finished, so there is nothing to read yet."
    if by == "role":
        parts = [
            f"{row['label']} won {_percent(row['rate'])} ({_interval(row)})"
            for _, row in table.iterrows()
        ]
        text = f"Of these {games} games, " + "; ".join(parts) + "."
        even = [row for _, row in table.iterrows() if row["even_share"] == row["even_share"]]
        if even:
            text += " If the game were even, each role would win its share of the seats: " + (
                ", ".join(f"{_share(r['even_share'])} for {r['label']}" for r in even) + "."
            )
            rows = [(f"the {r['label']}", r["wins"], r["games"], r["even_share"]) for r in even]
            text += stats.even_tests_sentence(rows, games)
        return text + stats.cap_sentence(result)
    best = table.loc[table["rate"].idxmax()]
    worst = table.loc[table["rate"].idxmin()]

    def who(row: pd.Series) -> str:
        return f"the player who was {row['label']}" if by == "seat" else f"the {row['label']} bot"

    name = who(best)
    name = name[0].upper() + name[1:]
    if len(table) == 1:
        return (
            f"{name} played every seat and won {_percent(best['rate'])} of its plays "
            f"({_interval(best)}); an even game gives each play {_share(best['even_share'])}."
        )
    rows = [(who(r), r["wins"], r["games"], r["even_share"]) for r in (best, worst)]
    return (
        f"{name} won {_percent(best['rate'])} of its games "
        f"({_interval(best)}), against {_percent(worst['rate'])} for {who(worst)} "
        f"({_interval(worst)}). If the game were even, each would win "
        f"{_share(best['even_share'])}."
        + stats.even_tests_sentence(rows, games)
        + stats.cap_sentence(result)
    )


# -- sweeps and presets -----------------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
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


def _base_rules(rules: RuleSet | str | dict[str, Any]) -> RuleSet:
    if isinstance(rules, RuleSet):
        return rules
    if isinstance(rules, dict):
        values = dict(rules)
        return RuleSet.preset(str(values.pop("preset", "default")), **values)
    return RuleSet.preset(str(rules))


def _with_round_cap(ruleset: RuleSet, round_cap: int | None, field: str) -> RuleSet:
    if round_cap is not None:
        ruleset = ruleset.replace(round_cap=round_cap)
    if ruleset.round_cap is None:
        raise RulesError("unattended play needs a round cap so every game ends", field=field)
    return ruleset


def _check_common(games: Any, workers: Any, game: Any) -> int:
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise InputError(
            f"games must be a whole number of at least 1, not {games!r}", field="games"
        )
    if game not in GAME_TYPES:
        raise InputError(f"game must be one of {', '.join(GAME_TYPES)}, not {game!r}", field="game")
    workers = (os.cpu_count() or 1) if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"workers must be at least 1, not {workers!r}", field="workers")
    return workers


def _shown_value(ruleset: RuleSet, parameter: str) -> Any:
    """The parameter's value as the frame shows it: numbers and words as they are, lists and
    mappings as compact text."""
    value = ruleset.to_dict()[parameter]
    return value if isinstance(value, int | str) else str(value)


def _plan_sweep(
    parameter: str,
    values: Sequence[Any],
    games: int,
    seats: Any,
    rules: RuleSet | str | dict[str, Any],
    seed: int,
    workers: int | None,
    round_cap: int | None,
    game: str,
) -> _Plan:
    """Check every value before any game is played; errors name the parameter."""
    if not isinstance(parameter, str) or not parameter.strip():
        raise InputError("name the rule parameter to sweep", field="parameter")
    parameter = parameter.strip()
    base = _base_rules(rules)
    known = [name for name in base.to_dict() if name != "preset_name"]
    if parameter not in known:
        hint = " (to compare presets use compare_presets)" if parameter == "preset" else ""
        raise RulesError(
            f"unknown rule parameter {parameter!r}{hint}; valid parameters: "
            + ", ".join(sorted(known)),
            field=parameter,
        )
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise InputError(
            f"the values to sweep must be a list, such as [10, 160], not {values!r}",
            field=parameter,
        )
    values = list(values)
    if not values:
        raise InputError(f"a sweep of {parameter} needs at least one value", field=parameter)
    workers = _check_common(games, workers, game)
    specs = parse_seats(seats)
    rulesets: list[RuleSet] = []
    for value in values:
        ruleset = base.replace(**{parameter: value})
        # the round cap being swept is the games' cap, not simulate's default
        cap = None if parameter == "round_cap" else round_cap
        ruleset = _with_round_cap(ruleset, cap, parameter if cap is None else "round_cap")
        if any(getattr(r, parameter) == getattr(ruleset, parameter) for r in rulesets):
            raise InputError(
                f"the value {_shown_value(ruleset, parameter)!r} appears twice in the sweep",
                field=parameter,
            )
        rulesets.append(ruleset)
    shown = tuple(_shown_value(r, parameter) for r in rulesets)
    return _Plan(parameter, shown, tuple(rulesets), specs, games, workers, int(seed), game)


def _plan_presets(
    presets: Sequence[str],
    games: int,
    seats: Any,
    seed: int,
    workers: int | None,
    round_cap: int | None,
    game: str,
    overrides: dict[str, Any],
) -> _Plan:
    if isinstance(presets, str) or not isinstance(presets, Iterable):
        raise InputError(
            f"presets must be a list of preset names, not {presets!r}", field="presets"
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
                f"unknown rules preset {name!r}; valid presets: {', '.join(known)}",
                field="presets",
            )
        if name in presets[:i]:
            raise InputError(f"the preset {name!r} appears twice", field="presets")
    workers = _check_common(games, workers, game)
    specs = parse_seats(seats)
    rulesets = tuple(
        _with_round_cap(RuleSet.preset(name, **overrides), round_cap, "round_cap")
        for name in presets
    )
    return _Plan("preset", tuple(presets), rulesets, specs, games, workers, int(seed), game)


def _calibrate(plan: _Plan, calibration_games: int) -> float:
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


def _free_cores() -> int:
    """Cores not busy with other work, from the one-minute load average (all cores where the
    platform has none): on a shared machine, two workers may run no faster than one."""
    cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):
        return cores
    return max(1, cores - round(busy))


def _estimate(plan: _Plan, calibration_games: int) -> float:
    per_game = _calibrate(plan, calibration_games)
    parallel = max(1, min(plan.workers, _free_cores()))
    # a process pool takes a moment to start for each value
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
    plan = _plan_sweep(parameter, values, games, seats, rules, seed, workers, round_cap, game)
    return _estimate(plan, calibration_games)


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


def _play(
    plan: _Plan,
    progress: bool | str,
    on_value: Callable[[Any, pd.DataFrame], None] | None,
    on_estimate: Callable[[float, int], None] | None,
    calibration_games: int,
    on_progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    if on_estimate is not None:
        on_estimate(_estimate(plan, calibration_games), plan.total_games)
    bar = _progress_bar(progress, plan.total_games)
    frames: list[pd.DataFrame] = []
    interrupted = False
    try:
        for i, (value, ruleset) in enumerate(zip(plan.values, plan.rulesets, strict=True)):
            played = i * plan.games

            def advance(done: int, _total: int, played: int = played) -> None:
                if bar is not None:
                    bar.update(played + done - bar.n)
                if on_progress is not None:  # may raise KeyboardInterrupt to stop (Cancel)
                    on_progress(played + done, plan.total_games)

            result = simulate(
                games=plan.games,
                seats=plan.seats,
                rules=ruleset,
                seed=plan.seed,
                workers=plan.workers,
                round_cap=None,  # already in the rule set
                game=plan.game,
                progress=False,
                record_rounds=False,
                on_chunk=advance,
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
    finally:
        if bar is not None:
            bar.close()
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
    plan = _plan_sweep(parameter, values, games, seats, rules, seed, workers, round_cap, game)
    return _play(plan, progress, on_value, on_estimate, calibration_games, on_progress)


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
    plan = _plan_presets(presets, games, seats, seed, workers, round_cap, game, rule_overrides)
    return _play(plan, progress, on_value, on_estimate, calibration_games, on_progress)


def _axis_title(parameter: str) -> str:
    return "rules preset" if parameter == "preset" else parameter.replace("_", " ")


def _is_numeric(values: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(values))


def sweep_figure(frame: pd.DataFrame) -> go.Figure:
    """Win rate by role against the swept value (a sweep or `compare_presets`), with 95%
    intervals as error bars and a shaded band; Competitors green circles, Monopolists blue
    squares, each named in the legend."""
    import plotly.graph_objects as go

    _check_sweep_frame(frame)
    parameter = str(frame["parameter"].iloc[0])
    numeric = _is_numeric(frame["value"])
    figure = go.Figure()
    for r, role in enumerate(ROLES):
        rows = frame[frame["role"] == role]
        if numeric:
            rows = rows.sort_values("value")
        x = rows["value"] if numeric else rows["value"].astype(str)
        if numeric and len(rows) > 1:
            # the interval as a band: the upper edge, then the lower edge filled up to it
            figure.add_scatter(
                x=list(x) + list(x)[::-1],
                y=list(rows["ci_high"]) + list(rows["ci_low"])[::-1],
                fill="toself",
                fillcolor=ROLE_COLOURS[r],
                opacity=0.15,
                line={"width": 0},
                hoverinfo="skip",
                showlegend=False,
            )
        figure.add_scatter(
            x=x,
            y=rows["rate"],
            mode="lines+markers" if numeric else "markers",
            name=_PLURAL[role],
            line={"color": ROLE_COLOURS[r], "width": 2},
            marker={"symbol": ROLE_SYMBOLS[r], "size": 10, "color": ROLE_COLOURS[r]},
            error_y={
                "type": "data",
                "symmetric": False,
                "array": rows["ci_high"] - rows["rate"],
                "arrayminus": rows["rate"] - rows["ci_low"],
                "color": ROLE_COLOURS[r],
            },
            customdata=rows[["wins", "games", "ci_low", "ci_high"]].to_numpy(),
            hovertemplate=(
                f"{_PLURAL[role]}, {_axis_title(parameter)} %{{x}}: won %{{y:.1%}} "
                "(%{customdata[0]} of %{customdata[1]})<br>95% interval "
                "%{customdata[2]:.1%} to %{customdata[3]:.1%}<extra></extra>"
            ),
        )
    title = (
        "Who wins under each rules preset (95% intervals)"
        if parameter == "preset"
        else f"Who wins as the {_axis_title(parameter)} changes (95% intervals)"
    )
    figure.update_layout(
        title={"text": title, "font": {"size": 15}},
        xaxis={
            "title": {"text": _axis_title(parameter)},
            "type": "linear" if numeric else "category",
        },
        yaxis={"title": {"text": "share of games won"}, "tickformat": ".0%", "range": [0, 1]},
        legend={"orientation": "h", "y": -0.2},
        template="plotly_white",
        margin={"l": 60, "r": 10, "t": 45, "b": 40},
    )
    return figure


def _check_sweep_frame(frame: pd.DataFrame) -> None:
    missing = [c for c in SWEEP_COLUMNS[:8] if c not in frame]
    if missing:
        raise InputError(
            f"not a sweep's frame: the column {missing[0]!r} is missing", field="frame"
        )
    if frame.empty:
        raise InputError("the sweep's frame has no rows (no games finished)", field="frame")


def _role_row(rows: pd.DataFrame, role: str) -> pd.Series:
    return rows[rows["role"] == role].iloc[0]


def _value_text(parameter: str, value: Any) -> str:
    return f"the {value} preset" if parameter == "preset" else f"{parameter} = {value}"


def reading_sweep_value(frame: pd.DataFrame, value: Any) -> str:
    """One line for one value of a sweep: each role's win rate with its interval and the
    mean game length."""
    _check_sweep_frame(frame)
    rows = frame[frame["value"] == value]
    if rows.empty:
        raise InputError(f"{value!r} is not a value of this sweep", field="value")
    parameter = str(rows["parameter"].iloc[0])
    c, m = _role_row(rows, "competitor"), _role_row(rows, "monopolist")
    text = (
        f"With {_value_text(parameter, value)}: Monopolists won {_percent(m['rate'])} "
        f"({_interval(m)}), Competitors {_percent(c['rate'])} ({_interval(c)})"
    )
    if "mean_rounds" in rows:
        text += f"; games lasted {rows['mean_rounds'].iloc[0]:.0f} rounds on average"
    if "round_cap_share" in rows:
        text += f", and the round cap settled {_percent(rows['round_cap_share'].iloc[0])} of them"
    return text + "."


def reading_sweep(frame: pd.DataFrame) -> str:
    """Sentences reading `sweep_figure` for a student: how the Monopolists' and the
    Competitors' win rates move between the first and the last value, whether the change is
    more than luck (Newcombe's interval for the difference, `stats.compare_batches`), and
    how many games the round cap settled."""
    _check_sweep_frame(frame)
    parameter = str(frame["parameter"].iloc[0])
    values = list(dict.fromkeys(frame["value"]))
    if _is_numeric(frame["value"]):
        values.sort()
    first = frame[frame["value"] == values[0]]
    last = frame[frame["value"] == values[-1]]
    if len(values) == 1:
        return reading_sweep_value(frame, values[0])
    m0, m1 = _role_row(first, "monopolist"), _role_row(last, "monopolist")
    c0, c1 = _role_row(first, "competitor"), _role_row(last, "competitor")
    subject = (
        f"From the {values[0]} preset to the {values[-1]} preset"
        if parameter == "preset"
        else f"As {parameter} goes from {values[0]} to {values[-1]}"
    )
    text = (
        f"{subject}, the Monopolists' win rate goes from {_percent(m0['rate'])} "
        f"({_interval(m0)}) to {_percent(m1['rate'])} ({_interval(m1)}), and the "
        f"Competitors' from {_percent(c0['rate'])} to {_percent(c1['rate'])}."
    )
    change = stats.compare_batches(m0["wins"], m0["games"], m1["wins"], m1["games"])
    text += " " + stats.difference_sentence("the Monopolists' win rate", change)
    if "round_cap_share" in frame:
        text += (
            f" The round cap settled {_percent(m0['round_cap_share'])} of the games at the "
            f"first value and {_percent(m1['round_cap_share'])} at the last."
        )
    return text


# -- the counterfactual: one role's rules for everyone ----------------------------------------


def structure_seats(structure: str, players: int, bot: str) -> list[str]:
    """The seats of a market structure: "all Competitors", "mixed" (roles taking turns, as
    decision 13 allows) or "all Monopolists"."""
    if structure == "all Competitors":
        roles = ["competitor"] * players
    elif structure == "all Monopolists":
        roles = ["monopolist"] * players
    elif structure == "mixed":
        roles = [ROLES[i % 2] for i in range(players)]
    else:
        raise InputError(
            f"structure must be one of {', '.join(MARKET_STRUCTURES)}, not {structure!r}",
            field="structure",
        )
    return [f"{role}:{bot}" for role in roles]


def market_structures(
    games: int = 500,
    players: int = 4,
    bot: str = "investor",
    rules: RuleSet | str | dict[str, Any] = "default",
    seed: int = 0,
    workers: int | None = None,
    round_cap: int | None = DEFAULT_ROUND_CAP,
    progress: bool | str = True,
    on_progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """A counterfactual baseline: the same board and bots with every player under the
    Competitors' rules, with the usual mix, and with every player under the Monopolists'
    rules. One row per structure: `rent_per_turn` (rent paid per turn taken),
    `rent_per_game`, `mean_rounds`, `round_cap_share`, `round_cap`, `mean_gini` (the mean
    final Gini coefficient of the players' net worth: 0 is equal, 0.75 means one of four
    players holds everything) and `bankrupt_share` (share of players who went bankrupt).

    Decision 13 forbids a table of one role; these games are an analysis, not a game a class
    plays, so they use `simulate(..., allow_one_role=True)`. They play Game A (last player
    standing) with the round cap settling the rest: Game B would end at once with one role.
    """
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6:
        raise InputError(f"players must be from 2 to 6, not {players!r}", field="players")
    if bot not in STRATEGIES:
        raise InputError(f"unknown bot {bot!r}; valid bots: {', '.join(STRATEGIES)}", field="bot")
    workers = _check_common(games, workers, "A")
    ruleset = _with_round_cap(_base_rules(rules), round_cap, "round_cap")
    rows = []
    interrupted = False
    for i, structure in enumerate(MARKET_STRUCTURES):

        def advance(done: int, _total: int, played: int = i * games) -> None:
            if on_progress is not None:  # may raise KeyboardInterrupt to stop (Cancel)
                on_progress(played + done, len(MARKET_STRUCTURES) * games)

        result = simulate(
            games=games,
            seats=structure_seats(structure, players, bot),
            rules=ruleset,
            seed=seed,
            workers=workers,
            round_cap=None,
            game="A",
            progress=progress,
            record_rounds=False,
            allow_one_role=structure != "mixed",
            on_chunk=advance,
        )
        if result.completed:
            rows.append(_structure_row(structure, players, ruleset, result))
        if result.interrupted:
            interrupted = True
            break
    frame = pd.DataFrame(rows, columns=list(MARKET_COLUMNS))
    frame.attrs["interrupted"] = interrupted
    return frame


def _structure_row(
    structure: str, players: int, ruleset: RuleSet, result: SimulationResult
) -> dict[str, Any]:
    from .inequality import gini  # imported here: it brings plotly, which a sweep never needs

    g, p = result.games, result.players
    rent = p.groupby("game")["rent_paid"].sum()
    ginis = p.groupby("game")["net_worth"].apply(lambda worth: gini(worth.to_numpy()))
    return {
        "structure": structure,
        "players": players,
        "games": len(g),
        "rent_per_turn": float(rent.sum() / g["turns"].sum()),
        "rent_per_game": float(rent.mean()),
        "mean_rounds": float(g["rounds"].mean()),
        "round_cap_share": float((g["end_reason"] == "round_cap").mean()),
        "round_cap": ruleset.round_cap,
        "mean_gini": float(ginis.mean()),
        "bankrupt_share": float(p["bankrupt"].mean()),
    }


def _structure_colour(structure: str) -> str:
    if structure == "all Competitors":
        return ROLE_COLOURS[0]
    if structure == "all Monopolists":
        return ROLE_COLOURS[1]
    return NEUTRAL_COLOUR


def market_structures_figure(frame: pd.DataFrame) -> go.Figure:
    """Three panels, one bar per market structure (named under each bar): rent paid per
    turn, mean game length in rounds (with the share of games the round cap settled), and
    the mean final Gini coefficient of net worth."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    if frame.empty or "structure" not in frame:
        raise InputError("not a market_structures frame (no structures)", field="frame")
    figure = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=(
            "Rent paid per turn",
            "Game length (rounds)",
            "Inequality at the end (Gini)",
        ),
    )
    colours = [_structure_colour(s) for s in frame["structure"]]
    panels = (
        ("rent_per_turn", "$%{y:,.0f} per turn", [f"${v:,.0f}" for v in frame["rent_per_turn"]]),
        (
            "mean_rounds",
            "%{y:.0f} rounds",
            [
                f"{v:.0f}<br>{100 * s:.0f}% hit<br>the cap"
                for v, s in zip(frame["mean_rounds"], frame["round_cap_share"], strict=True)
            ],
        ),
        ("mean_gini", "Gini %{y:.2f}", [f"{v:.2f}" for v in frame["mean_gini"]]),
    )
    for col, (column, hover, text) in enumerate(panels, start=1):
        figure.add_trace(
            go.Bar(
                x=frame["structure"],
                y=frame[column],
                marker={"color": colours},
                text=text,
                textposition="inside",
                insidetextanchor="end",
                textangle=0,
                hovertemplate=f"%{{x}}: {hover}<extra></extra>",
                showlegend=False,
            ),
            row=1,
            col=col,
        )
    figure.update_yaxes(tickprefix="$", row=1, col=1)
    figure.update_yaxes(rangemode="tozero", row=1, col=2)
    figure.update_yaxes(range=[0, 1], row=1, col=3)
    figure.update_layout(
        title={
            "text": "What market structure does: the same board with different rules",
            "font": {"size": 15},
        },
        template="plotly_white",
        height=360,
        margin={"l": 55, "r": 10, "t": 70, "b": 40},
    )
    return figure


def reading_market_structures(frame: pd.DataFrame) -> str:
    """Two sentences reading `market_structures_figure` for a student, comparing a table of
    Monopolists with a table of Competitors."""
    if "structure" not in frame:
        raise InputError("not a market_structures frame (no structures)", field="frame")
    rows = frame.set_index("structure")
    missing = [s for s in ("all Competitors", "all Monopolists") if s not in rows.index]
    if missing:
        raise InputError(f"the frame has no {missing[0]!r} row", field="frame")
    c, m = rows.loc["all Competitors"], rows.loc["all Monopolists"]
    capped = stats.compare_batches(
        round(c["round_cap_share"] * c["games"]),
        int(c["games"]),
        round(m["round_cap_share"] * m["games"]),
        int(m["games"]),
    )
    return (
        f"When every player follows the Monopolists' rules, each turn costs "
        f"${m['rent_per_turn']:,.0f} in rent on average, against ${c['rent_per_turn']:,.0f} "
        f"when everyone is a Competitor; games last {m['mean_rounds']:.0f} rounds against "
        f"{c['mean_rounds']:.0f} ({_percent(m['round_cap_share'])} and "
        f"{_percent(c['round_cap_share'])} reach the {int(m['round_cap'])}-round cap). "
        f"At the end, the Gini coefficient of net worth is {m['mean_gini']:.2f} among "
        f"Monopolists and {c['mean_gini']:.2f} among Competitors (0 means everyone is "
        "equally rich). "
        + stats.difference_sentence(
            "the share of games the cap settled (Monopolists' table minus Competitors')",
            capped,
            noun="difference",
        )
    )
