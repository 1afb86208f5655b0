"""Best play in a minute: the policy lab. "What if we changed this rule?" answered during a
class, where the full search (`amteach.analysis.best_play_search`) takes about 15 minutes.

How it is quick (docs/analysis.md, "Best play in a minute"):

1. **Start from the nearest shipped run.** The strategies shipped for the preset at the
   nearest game length (`best_play_results.shipped`) are each role's first incumbent. A small
   rule change moves best play a little, so the answer is near them.
2. **A short list of candidates.** For the role whose turn it is: its incumbent with each
   knob moved alone (`probe_values`), and every shipped run's best strategy for that role.
3. **Successive halving on common random numbers.** Every candidate plays the same games
   (the same seeds) against the other role's incumbent; after each rung the worse half is
   dropped, and so is any candidate whose gain over the incumbent (Newcombe's interval) lies
   wholly below 0: even luck could not make it better. The survivors play twice as many
   games at the next rung (the games after the earlier rung's, so none is wasted).
4. **A check on other seeds.** The top survivor plays the incumbent on the check games; it
   takes over only if its gain's interval leaves out 0. The roles alternate until neither
   improves (two quiet checks in a row), as in the full search.
5. **Fresh seeds.** The win rates are played on games the search never saw, with their exact
   intervals; each role's last check is the size of "approximate": the largest gain it found,
   a lower bound on what a role could still gain.

Everything is deterministic for a seed; a time budget can skip the last rungs on a slow
machine (the summary says so). Under an unchanged preset at a shipped length the result also
says how far it is from the shipped full search.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from ..bots import KNOBS, FamilyParams
from ..engine.board import ROLES
from ..engine.errors import InputError
from ..engine.rules import RuleSet, preset_names
from ..sim import core
from ..sim.cpus import default_workers
from ..sim.runner import DEFAULT_ROUND_CAP
from ..style import ROLE_PLURALS
from . import stats
from .best_play_reading import reading_best_play, strategy_record
from .best_play_results import (
    COMPETITOR,
    MONOPOLIST,
    SHIPPED_LENGTHS,
    SHIPPED_PRESETS,
    BestPlayResult,
    Tally,
    equilibrium_figures,
    family_name,
    shipped,
    shipped_lengths,
    shipped_strategies,
)
from .best_play_search import (
    TEAM_KNOBS,
    MatchRunner,
    check_row,
    masters,
    match_for,
    other,
    probe_values,
)
from .outcomes import LENGTHS_BY_KEY, time_is_up

MIN_GAMES = 10  # the smallest rung; below it one game moves a rate by 10 points


@dataclass(frozen=True)
class QuickSettings:
    """What a quick best-play search does. The rungs start at `first_games` games a candidate
    and double up to `most_games`; `check_games` games each side decide a challenger;
    `final_games` fresh games give the win rates. `budget_seconds` is a guard: rungs that
    would not fit are skipped (the summary says so)."""

    preset: str = "default"
    overrides: tuple[tuple[str, Any], ...] = ()  # rule values changed from the preset (--set)
    round_cap: int = DEFAULT_ROUND_CAP
    seed: int = 0
    workers: int | None = None
    first_games: int = 100
    most_games: int = 1600
    check_games: int = 2400
    final_games: int = 4800
    phases: int = 6
    budget_seconds: float = 45.0
    min_gain: float = 0.01  # a challenger takes over only when its gain's interval is above it

    def check(self) -> QuickSettings:
        """The settings, refused with one message naming the first bad one."""
        if self.preset not in preset_names():
            raise InputError(
                f"unknown rules preset {self.preset!r}; valid: {', '.join(preset_names())}",
                field="preset",
            )
        for name, least in (
            ("first_games", MIN_GAMES),
            ("most_games", MIN_GAMES),
            ("check_games", MIN_GAMES),
            ("final_games", MIN_GAMES),
            ("phases", 1),
            ("round_cap", 1),
            ("seed", 0),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                words = name.replace("_", " ")
                raise InputError(
                    f"{words} must be a whole number of at least {least}, not {value!r}",
                    field=name,
                )
        if self.most_games < self.first_games:
            raise InputError(
                f"most games ({self.most_games}) must be at least first games ({self.first_games})",
                field="most_games",
            )
        workers = self.workers
        if workers is not None and (
            isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
        ):
            raise InputError(f"workers must be at least 1, not {workers!r}", field="workers")
        if not 0 <= self.min_gain < 1:
            raise InputError(
                f"the least gain must be from 0 to below 1, not {self.min_gain!r}",
                field="min_gain",
            )
        budget = self.budget_seconds
        if isinstance(budget, bool) or not isinstance(budget, int | float) or not budget > 0:
            raise InputError(
                f"the budget must be a number of seconds above 0, not {budget!r}", field="budget"
            )
        self.rules()  # a bad rule value says so here, before any game
        return self

    def rules(self) -> RuleSet:
        return RuleSet.preset(self.preset, **dict(self.overrides)).replace(round_cap=self.round_cap)

    def rungs(self) -> list[int]:
        """Games a candidate has played after each rung: first_games, doubling to most_games."""
        sizes = [self.first_games]
        while sizes[-1] < self.most_games:
            sizes.append(min(2 * sizes[-1], self.most_games))
        return sizes

    def unchanged(self) -> bool:
        """Whether the rules are the preset's own (any --set gives its preset value)."""
        return self.rules().to_dict() == RuleSet.preset(self.preset).replace(
            round_cap=self.round_cap
        ).to_dict() and not any(name == "preset_name" for name, _ in self.overrides)


def nearest_length(preset: str, round_cap: int) -> str:
    """The shipped game length nearest `round_cap` rounds (by ratio) for a shipped preset."""
    lengths = shipped_lengths(preset)
    return min(lengths, key=lambda key: abs(math.log(LENGTHS_BY_KEY[key].rounds / round_cap)))


def start_run(preset: str, round_cap: int) -> BestPlayResult:
    """The nearest shipped run: the preset's own (or the default's, for a preset nothing was
    shipped for) at the nearest game length."""
    base = preset if preset in SHIPPED_PRESETS else SHIPPED_PRESETS[0]
    return shipped(base, nearest_length(base, round_cap))


class QuickSearch:
    """One quick best-play run (see the module's docstring); `run()` returns its result.
    `on_progress(done, total)` is told the games played (total: the plan's, an estimate) and
    may raise KeyboardInterrupt to stop the run (a Cancel button): `run()` then returns what
    it has, marked interrupted."""

    def __init__(
        self,
        settings: QuickSettings,
        command: str | None = None,
        on_event: Callable[[str], None] | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        executor: Executor | None = None,
    ) -> None:
        self.settings = settings.check()
        self.command = command
        self.on_event = on_event
        self.on_progress = on_progress
        self.executor = executor
        self.seeds = masters(settings.seed)
        self.start = start_run(settings.preset, settings.round_cap)
        self.current = {role: self.start.best(role) for role in ROLES}
        self.searched = tuple(k for k in KNOBS if k.name not in TEAM_KNOBS)
        self.known = {role: shipped_strategies(role) for role in ROLES}
        self.history: list[dict[str, Any]] = []
        self.phase_rows: list[dict[str, Any]] = []
        self.last_check: dict[str, dict[str, Any]] = {}
        self.budget_stopped = False
        self.tasks = 0
        self.done = 0
        self.total = self.planned_games()

    # -- the plan -----------------------------------------------------------------------------
    def candidates(self, role: str) -> list[FamilyParams]:
        """The role's incumbent first, then each knob of it moved alone, then the shipped
        runs' best strategies for the role (without repeats)."""
        found = self.current[role]
        moved = [
            found.changed(**{knob.name: value})
            for knob in self.searched
            for value in probe_values(knob, getattr(found, knob.name))
        ]
        # the shipped runs' strategies with the knobs not searched as the incumbent has them
        # (the team-play runs' sell to a teammate; this search leaves team play off)
        held = {k.name: getattr(found, k.name) for k in KNOBS if k not in self.searched}
        known = [params.changed(**held) for params in self.known[role]]
        return list(dict.fromkeys([found, *moved, *known]))

    def rungs(self) -> list[int]:
        return self.settings.rungs()

    def phase_games(self, pool: int) -> int:
        """Games a phase plays with `pool` candidates (incumbent included), check included."""
        games, alive, played = 0, pool - 1, 0
        for size in self.rungs():
            if alive < 1:
                break
            games += (alive + 1) * (size - played)
            played = size
            alive = -(-alive // 2) if alive > 1 else 0
        return games + 2 * self.settings.check_games

    def planned_games(self) -> int:
        """An estimate for the progress bar: two phases (one a role) and the final games."""
        phases = sum(self.phase_games(len(self.candidates(role))) for role in ROLES)
        return phases + self.settings.final_games

    def say(self, text: str) -> None:
        if self.on_event is not None:
            self.on_event(text)

    def played(self, games: int) -> None:
        self.done += games
        self.total = max(self.total, self.done)
        if self.on_progress is not None:
            self.on_progress(self.done, self.total)

    # -- the run ------------------------------------------------------------------------------
    def run(self) -> BestPlayResult:
        settings = self.settings
        began = time.perf_counter()
        deadline = began + settings.budget_seconds
        workers = settings.workers or default_workers()
        interrupted = converged = False
        final: dict[str, Any] = {}
        runner = MatchRunner(settings.rules(), workers, self.executor, on_games=self.played)
        with runner:
            try:
                quiet = 0
                role = COMPETITOR
                for phase in range(settings.phases):
                    tail = runner.seconds_per_game * (
                        2 * settings.check_games + settings.final_games
                    )
                    rung = (
                        runner.seconds_per_game * len(self.candidates(role)) * settings.first_games
                    )
                    # the first phase always runs; a later one when its first rung, its check
                    # and the final games still fit
                    if phase >= 1 and time.perf_counter() + rung + tail > deadline:
                        self.budget_stopped = True
                        break
                    self.say(
                        f"Phase {phase + 1}: the {ROLE_PLURALS[ROLES.index(role)]}' best response"
                    )
                    challenger = self.halve(runner, phase, role, deadline - tail)
                    improved = self.check(runner, phase, role, challenger)
                    quiet = 0 if improved else quiet + 1
                    if quiet >= 2:
                        converged = True
                        break
                    role = other(role)
                games = self.final_size(deadline - time.perf_counter(), runner.seconds_per_game)
                self.say("Final games: the strategies found, on fresh seeds")
                (result,) = runner.play(
                    [
                        match_for(
                            COMPETITOR,
                            family_name(self.current[COMPETITOR]),
                            family_name(self.current[MONOPOLIST]),
                            self.seeds["final"],
                            games,
                        )
                    ]
                )
                final = equilibrium_figures(result)
            except KeyboardInterrupt:
                interrupted = True
            games_played = runner.games_played
            self.tasks = runner.tasks
        return self.result(began, interrupted, converged, final, games_played)

    def final_size(self, left: float, seconds_per_game: float) -> int:
        """The final games: `final_games`, or as many hundreds as the time left allows when
        the budget is short, but never under a quarter of them (their intervals widen)."""
        wanted = self.settings.final_games
        if seconds_per_game * wanted <= left:
            return wanted
        self.budget_stopped = True
        fits = int(max(left, 0.0) / seconds_per_game) // 100 * 100
        return max(min(wanted, fits), -(-wanted // 4))

    def halve(self, runner: MatchRunner, phase: int, role: str, deadline: float) -> FamilyParams:
        """Successive halving for `role` against the other role's incumbent, every candidate
        on the same search games: the best survivor (or, when none survives, the best
        candidate of the last rung, for the check to measure)."""
        pool = self.candidates(role)
        incumbent, alive = pool[0], pool[1:]
        tallies = {c: Tally(0, 0, 0, 0) for c in pool}
        opponent = family_name(self.current[other(role)])
        played = 0
        best = alive[0] if alive else incumbent
        for rung, size in enumerate(self.rungs(), start=1):
            batch = [incumbent, *alive]
            cost = runner.seconds_per_game * len(batch) * (size - played)
            if rung > 1 and time.perf_counter() + cost > deadline:
                self.budget_stopped = True
                break
            # the games after the last rung's: every candidate, the same new games
            results = runner.play(
                [
                    replace(
                        match_for(
                            role, family_name(c), opponent, self.seeds["search"], size - played
                        ),
                        first=played,
                    )
                    for c in batch
                ]
            )
            for candidate, result in zip(batch, results, strict=True):
                tallies[candidate] += result
            played = size
            base = tallies[incumbent]
            gains = {
                c: stats.compare_batches(
                    base.wins(role), base.games, tallies[c].wins(role), tallies[c].games
                )
                for c in alive
            }
            for candidate in batch:
                t = tallies[candidate]
                self.history.append(
                    {
                        "phase": phase + 1,
                        "role": role,
                        "rung": rung,
                        "incumbent": candidate == incumbent,
                        "wins": t.wins(role),
                        "games": t.games,
                        "rate": t.rate(role),
                        "gain": gains[candidate].difference if candidate in gains else 0.0,
                        "gain_ci_high": gains[candidate].high if candidate in gains else 0.0,
                        **candidate.as_dict(),
                    }
                )
            if alive:
                best = max(alive, key=lambda c: tallies[c].wins(role))
            # a candidate whose gain lies wholly below 0 cannot beat the incumbent, even by luck
            alive = [c for c in alive if gains[c].high > 0]
            alive.sort(key=lambda c: -tallies[c].wins(role))  # stable: the pool's order breaks ties
            if len(alive) <= 1:
                break
            alive = alive[: -(-len(alive) // 2)]
        return alive[0] if alive else best

    def check(self, runner: MatchRunner, phase: int, role: str, challenger: FamilyParams) -> bool:
        """The challenger against the role's incumbent on the check games: it takes over only
        if it wins more often by more than luck and by more than `min_gain` (the lower end of
        Newcombe's interval is above it). A smaller gain is kept as the size of "approximate"."""
        incumbent = self.current[role]
        games = self.settings.check_games
        opponent = family_name(self.current[other(role)])
        old, new = runner.play(
            [
                match_for(role, family_name(c), opponent, self.seeds["check"], games)
                for c in (incumbent, challenger)
            ]
        )
        row = check_row(
            phase,
            role,
            self.current[other(role)],
            incumbent,
            challenger,
            games,
            (old, new),
            min_gain=self.settings.min_gain,
            candidates=sum(1 for h in self.history if h["phase"] == phase + 1 and h["rung"] == 1),
        )
        improved = row["improved"]
        self.phase_rows.append(row)
        self.last_check[role] = {
            "final_rate": old.rate(role),
            "best_response_rate": new.rate(role),
            "gain": row["difference"],
            "ci_low": row["ci_low"],
            "ci_high": row["ci_high"],
            "candidates": row["candidates"],
            "best_response": challenger.text(),
            "same": challenger == incumbent,
            "improved": improved,
            "games": games,
        }
        if improved:
            self.current[role] = challenger
        return improved

    # -- the result ---------------------------------------------------------------------------
    def result(
        self,
        began: float,
        interrupted: bool,
        converged: bool,
        final: dict[str, Any],
        games_played: int,
    ) -> BestPlayResult:
        from importlib.metadata import version

        settings = self.settings
        strategies = {
            role: strategy_record(self.current[role], role, settings.preset) for role in ROLES
        } | {"start": strategy_record(FamilyParams(), None)}
        # the check measures a role's gain against the final strategies only when it was the
        # role's last and nothing changed after it: then it is the size of "approximate"
        approximation: dict[str, Any] = {"check_games": settings.check_games, "seed": settings.seed}
        for role in ROLES:
            row = self.last_check.get(role)
            if row is not None and not row["improved"]:
                approximation[role] = {k: v for k, v in row.items() if k != "improved"}
        summary: dict[str, Any] = {
            "command": self.command or quick_command(settings),
            "search": "quick",
            "seed": settings.seed,
            "preset": settings.preset,
            "rules_changed": dict(settings.overrides),
            "round_cap": settings.round_cap,
            "game_length": time_is_up(settings.round_cap),
            "length": length_key(settings.round_cap),
            "start": {
                "preset": self.start.summary["preset"],
                "length": self.start.summary.get("length"),
                "command": self.start.summary["command"],
            },
            "rungs": self.rungs(),
            "games": {
                "first_rung": settings.first_games,
                "last_rung": settings.most_games,
                "check": settings.check_games,
                "final": settings.final_games,
            },
            "budget_seconds": settings.budget_seconds,
            "min_gain": settings.min_gain,
            "budget_stopped": self.budget_stopped,
            "version": version("amteach"),
            "date": datetime.now(UTC).strftime("%Y-%m-%d"),
            "core": core.core_name(),
            "workers": settings.workers or default_workers(),
            "elapsed_seconds": round(time.perf_counter() - began, 1),
            "games_played": games_played,
            "tasks": self.tasks,
            "candidates": self.candidates_tried(),
            "phases": len(self.phase_rows),
            "converged": converged,
            "interrupted": interrupted,
            "seeds": self.seeds,
            "team_play": False,
            "equilibrium": final,
            "approximation": approximation,
        }
        result = BestPlayResult(
            summary,
            strategies,
            pd.DataFrame(self.history),
            pd.DataFrame(self.phase_rows),
            pd.DataFrame(),
        )
        if final:
            summary["against_start"] = against_run(result, self.start)
            if settings.unchanged() and summary["length"] in shipped_lengths(settings.preset):
                full = shipped(settings.preset, summary["length"])
                summary["full_search"] = against_run(result, full)
            summary["reading"] = reading_best_play(result)
        return result

    def candidates_tried(self) -> int:
        """Distinct (role, strategy) pairs the halving played."""
        knob_names = [k.name for k in KNOBS]
        return len({(h["role"], *(h[n] for n in knob_names)) for h in self.history})


def against_run(result: BestPlayResult, run: BestPlayResult) -> dict[str, Any]:
    """How far a quick result's win rates are from another run's (the shipped full search,
    or the run it started from): each run's Monopolist rate and interval, the difference with
    Newcombe's interval (separate batches of fresh games), whether the quick rate falls in the
    run's interval, and whether each role's strategy is the same."""
    mine, theirs = result.summary["equilibrium"], run.summary["equilibrium"]
    m = theirs[MONOPOLIST]
    change = stats.compare_batches(
        m["wins"], theirs["games"], mine[MONOPOLIST]["wins"], mine["games"]
    )
    rate = mine[MONOPOLIST]["rate"]
    return {
        "preset": run.summary["preset"],
        "length": run.summary.get("length"),
        "command": run.summary["command"],
        "elapsed_seconds": run.summary.get("elapsed_seconds"),
        "games": theirs["games"],
        "monopolist_rate": m["rate"],
        "ci_low": m["ci_low"],
        "ci_high": m["ci_high"],
        "quick_rate": rate,
        "difference": change.difference,
        "difference_low": change.low,
        "difference_high": change.high,
        "within_interval": bool(m["ci_low"] <= rate <= m["ci_high"]),
        "same_strategy": {role: result.best(role) == run.best(role) for role in ROLES},
    }


def length_key(rounds: int) -> str:
    """A round cap as `--length` takes it: a length's name, or the number of rounds."""
    return next((k for k in SHIPPED_LENGTHS if LENGTHS_BY_KEY[k].rounds == rounds), str(rounds))


def quick_command(settings: QuickSettings) -> str:
    """The command that makes this run again."""
    parts = ["amteach best-play", f"--rules {settings.preset}"]
    parts += [f"--set {name}={json.dumps(value)}" for name, value in settings.overrides]
    parts += [f"--length {length_key(settings.round_cap)}", f"--seed {settings.seed}"]
    return " ".join(parts)


def _points(x: float) -> str:
    return f"{100 * x:+.1f}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def rules_words(summary: dict[str, Any]) -> str:
    """The rules in words: the preset, and any rule changed from it."""
    changed = summary.get("rules_changed") or {}
    if not changed:
        return f"{summary['preset']} rules, unchanged"
    values = ", ".join(f"{name} = {json.dumps(value)}" for name, value in changed.items())
    return f"{summary['preset']} rules with {values}"


def report_lines(result: BestPlayResult) -> list[str]:
    """What a quick run reports, line by line, for the command line and the dashboard: the
    win rates with their intervals; the conditions (strategies, rules, length, games); the
    size of "approximate"; and how far it is from the shipped full search (an unchanged
    preset) or from best play under the unchanged rules (a changed rule set)."""
    s = result.summary
    figures = s.get("equilibrium") or {}
    if not figures:
        return ["The search stopped before its final games, so there are no win rates yet."]
    c, m = figures[COMPETITOR], figures[MONOPOLIST]
    lines = [
        f"Under best play ({rules_words(s)}; {s['game_length']}), Monopolists win "
        f"{_pct(m['rate'])} of {figures['games']:,} fresh games (95% interval "
        f"{_pct(m['ci_low'])} to {_pct(m['ci_high'])}); Competitors win {_pct(c['rate'])} "
        f"({_pct(c['ci_low'])} to {_pct(c['ci_high'])}).",
        f"Conditions: strategies: the strongest a quick search found in "
        f"{s['elapsed_seconds']:g} s ({s['candidates']} candidates in {s['phases']} checks, "
        f"{s['games_played']:,} games, seed {s['seed']}), starting from the shipped run for "
        f"{s['start']['preset']} rules, {s['start']['length']}; rules: {rules_words(s)}; "
        f"length: {s['game_length']} (time settled "
        f"{_pct(figures['round_cap_share'])} of the games); games: {figures['games']:,} "
        "fresh games the search never saw.",
    ]
    check = s.get("approximation") or {}
    gains = [(role, check[role]) for role in ROLES if role in check]
    if gains:
        role, row = max(gains, key=lambda item: item[1]["gain"])
        lines.append(
            f"How approximate: the largest gain a check found was {_points(row['gain'])} points "
            f"for the {ROLE_PLURALS[ROLES.index(role)]} (95% interval {_points(row['ci_low'])} "
            f"to {_points(row['ci_high'])}, {row['games']:,} games each side): a lower bound, "
            "since a longer search could find more."
        )
    else:
        lines.append(
            "How approximate: not measured (a role's last check changed its strategy, and "
            "there was no time to check it again)."
        )
    full = s.get("full_search")
    if full:
        inside = "inside" if full["within_interval"] else "outside"
        lines.append(
            f"Against the full search ({full['command']}, {full['elapsed_seconds']:,.0f} s): "
            f"there Monopolists won {_pct(full['monopolist_rate'])} (95% interval "
            f"{_pct(full['ci_low'])} to {_pct(full['ci_high'])}); the quick result is "
            f"{_points(full['difference'])} points from it (95% interval "
            f"{_points(full['difference_low'])} to {_points(full['difference_high'])}), "
            f"{inside} its interval."
        )
        gained = result.phases[result.phases["improved"]] if len(result.phases) else []
        if len(gained):
            row = gained.iloc[-1]
            lines.append(
                f"The quick search changed the {ROLE_PLURALS[ROLES.index(row['role'])]}' "
                f"strategy: on its check games the new one won {_points(row['difference'])} "
                f"points more (95% interval {_points(row['ci_low'])} to "
                f"{_points(row['ci_high'])}), a response the full search had not found."
            )
    elif s.get("against_start"):
        start = s["against_start"]
        moved = (
            "more than luck would explain"
            if start["difference_low"] > 0 or start["difference_high"] < 0
            else "no more than luck would explain"
        )
        lines.append(
            f"Against best play under {start['preset']} rules unchanged (the shipped run, "
            f"{start['length']}): there Monopolists won {_pct(start['monopolist_rate'])} "
            f"(95% interval {_pct(start['ci_low'])} to {_pct(start['ci_high'])}); the change "
            f"moves their rate by {_points(start['difference'])} points (95% interval "
            f"{_points(start['difference_low'])} to {_points(start['difference_high'])}), "
            f"{moved}."
        )
    if s.get("budget_stopped"):
        lines.append(
            "The time budget ran out before the search finished its rungs; a larger budget "
            "(--budget) searches further."
        )
    if s.get("interrupted"):
        lines.append("The search was stopped early; these are the strategies found so far.")
    return lines


def quick_best_play(
    preset: str = "default",
    overrides: dict[str, Any] | None = None,
    round_cap: int = DEFAULT_ROUND_CAP,
    seed: int = 0,
    workers: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    executor: Executor | None = None,
    **sizes: Any,
) -> BestPlayResult:
    """Best play under a rule set in about a minute (see the module's docstring): `overrides`
    are rule values changed from `preset`; `sizes` are `QuickSettings` fields (first_games,
    most_games, check_games, final_games, phases, budget_seconds). `on_progress(done, total)`
    may raise KeyboardInterrupt to stop (the result is then marked interrupted)."""
    settings = QuickSettings(
        preset=preset,
        overrides=tuple((overrides or {}).items()),
        round_cap=round_cap,
        seed=seed,
        workers=workers,
        **sizes,
    )
    return QuickSearch(settings, on_progress=on_progress, executor=executor).run()
