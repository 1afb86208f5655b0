"""Best play, the search: each role's strongest strategy in the family (`amteach.bots.family`),
found by search, and who wins when both roles play theirs.

The table is the usual one: two Competitors and two Monopolists, the roles taking turns, each
role's two seats playing the same strategy. A role's *best response* to the other role's
strategy is the family strategy that wins it the most games against it; a pair of strategies
where neither role can find a better response is an (approximate) *equilibrium*.

How the search works (docs/analysis.md, "Best play"):

1. **Common random numbers.** Every candidate of a search plays the same games (the same
   seeds), so two candidates differ by their play, not by their dice.
2. **A well-kept optimizer, started warm.** CMA-ES (the `cma` package) moves through the
   family's grid; a candidate's score is its role's win rate over `games_per_candidate`
   games. Before it, a role's search plays its incumbent, the incumbent with each knob moved
   alone and every shipped run's best strategy for the role, and CMA-ES starts from the best
   of them: a phase with little time left still tries the strategies known to be strong
   (without it, the first edition-2005 two-hour search stopped short of one).
3. **Alternating roles.** The Competitors' best response to the Monopolists' strategy, then
   the Monopolists' to that, and so on. After each search the winner is checked on other
   seeds (the *check* games) against the strategy it would replace; it replaces it only when
   Newcombe's interval for the difference leaves out 0, so a lucky winner does not. When
   neither role improves by more than the noise, the search stops: an approximate
   equilibrium.
4. **Fresh seeds.** The equilibrium's win rates, the tournament matrix (every named bot and
   the strategies found, against each other) and the sensitivity of each role's win rate to
   each knob are played on seeds the search never saw.

Everything is deterministic given the seed and the number of generations; a time budget can
stop the search sooner on a slower machine.

The run it returns (and the runs shipped with amteach) is kept by
`amteach.analysis.best_play_results`, and read for students by
`amteach.analysis.best_play_reading`. The matches play on the batch pool (`amteach.sim.pool`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd

from ..bots import KNOBS, FamilyParams
from ..engine.board import ROLES
from ..engine.errors import InputError
from ..engine.rules import RuleSet, preset_names
from ..sim import core
from ..sim.cpus import default_workers
from ..sim.play import BatchConfig, run_chunk
from ..sim.pool import Pool, Progress, chunks, shared_pool
from ..sim.results import wilson_interval
from ..sim.runner import DEFAULT_ROUND_CAP, parse_seats
from ..style import ROLE_PLURALS
from . import stats
from .best_play_reading import reading_best_play, strategy_record
from .best_play_results import (
    BEST,
    COMPETITOR,
    MONOPOLIST,
    NAMED,
    START,
    BestPlayResult,
    Tally,
    equilibrium_figures,
    family_name,
    matrix_cell,
    shipped_strategies,
    tally,
)
from .outcomes import length_rows, time_is_up

MIN_GAMES = 20
TEAM_KNOBS = ("team",)  # searched only with team play on (SearchSettings.team_play)


def masters(seed: int) -> dict[str, int]:
    """The master seeds of the four sets of games, all from `seed`: the search's games, the
    check games, and the fresh games of the final figures and of the matrix."""
    names = ("search", "check", "final", "matrix", "sensitivity")
    state = np.random.SeedSequence([int(seed), 15]).generate_state(len(names), dtype=np.uint64)
    return {name: int(s >> 1) for name, s in zip(names, state, strict=True)}


@dataclass(frozen=True)
class Match:
    """`games` games of one Competitor strategy against one Monopolist strategy (each a bot
    name: "investor" or "family:<knobs>"), on the games of master seed `master` from game
    number `first` on (a later rung of the quick search plays the games after an earlier
    one's)."""

    competitor: str
    monopolist: str
    master: int
    games: int
    first: int = 0

    def config(self, rules: dict[str, Any]) -> BatchConfig:
        seats = parse_seats(
            [f"{COMPETITOR}:{self.competitor}", f"{MONOPOLIST}:{self.monopolist}"] * 2
        )
        return BatchConfig(seats, rules, self.master, record_rounds=False)


class MatchRunner:
    """Plays matches on the batch pool (`amteach.sim.pool`) for the whole search: the
    process's shared worker processes, or here with one worker, or `executor` (for example a
    Dask cluster's, `amteach.sim.cluster`, whose owner shuts it down). It times the matches, so
    the search knows what its budget still buys."""

    def __init__(
        self,
        rules: RuleSet,
        workers: int,
        executor: Executor | None = None,
        on_games: Callable[[int], None] | None = None,
    ) -> None:
        self.rules = rules.to_dict()
        self.workers = workers
        self.executor = executor
        # told each chunk's games as it finishes; may raise KeyboardInterrupt (a Cancel button)
        self.on_games = on_games
        self.pool: Pool | None = None
        self.games_played = 0
        self.tasks = 0  # chunks sent to the workers (the cost model in docs/analysis.md)
        self.seconds = 0.0

    def __enter__(self) -> MatchRunner:
        if self.executor is None:
            pool = shared_pool(self.workers)
        else:
            pool = Pool(self.workers, self.executor)
        self.pool = pool.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    @property
    def seconds_per_game(self) -> float:
        """Wall-clock seconds per game so far (a guess before any game: 2,000 games a second
        a worker on the compiled core, 25 on pure Python)."""
        if self.games_played:
            return self.seconds / self.games_played
        per_worker = 2000.0 if core.kernel() is not None else 25.0
        return 1.0 / (per_worker * self.workers)

    def play(self, matches: list[Match]) -> list[Tally]:
        """Play every match; each one's tally, in order. Ctrl-C drops what has not started and
        raises KeyboardInterrupt."""
        started = time.perf_counter()
        jobs: list[tuple[int, int, BatchConfig]] = []
        owners: list[int] = []
        for m, match in enumerate(matches):
            config = match.config(self.rules)
            # one chunk a worker: a match is small, and the search waits for all of it; with
            # a match a worker or more, one chunk a match (a chunk has its cost to start)
            pieces = 1 if len(matches) >= self.workers else self.workers
            for start, stop in chunks(match.games, pieces, per_worker=1, most=None):
                jobs.append((match.first + start, match.first + stop, config))
                owners.append(m)
        results = [Tally(0, 0, 0, 0) for _ in matches]

        def add(index: int, tables: dict[str, dict[str, np.ndarray]]) -> None:
            results[owners[index]] += tally(tables)
            if self.on_games is not None:
                self.on_games(jobs[index][1] - jobs[index][0])

        pool = self.pool or Pool(1)  # outside a `with` block: here
        if pool.run(run_chunk, jobs, add):
            raise KeyboardInterrupt
        self.seconds += time.perf_counter() - started
        self.games_played += sum(m.games for m in matches)
        self.tasks += len(jobs)
        return results


@dataclass(frozen=True)
class SearchSettings:
    """What a best-play search does. `budget_minutes` bounds the whole run (search, check,
    final figures and matrix); `generations` bounds each role's search (None: the budget
    alone); `phases` bounds the number of alternations."""

    games_per_candidate: int = 500
    budget_minutes: float = 10.0
    seed: int = 0
    preset: str = "default"
    round_cap: int = DEFAULT_ROUND_CAP
    workers: int | None = None
    generations: int | None = None
    phases: int = 8
    popsize: int | None = None
    team_play: bool = False
    overrides: tuple[tuple[str, Any], ...] = ()  # rule values changed from the preset (--set)
    # each role's search first tries its incumbent with each knob moved alone and every
    # shipped run's best strategy, and CMA-ES starts from the best of them (the warm start)
    warm_start: bool = True

    def check(self) -> SearchSettings:
        """The settings, refused with one message naming the first bad one."""
        n = self.games_per_candidate
        if isinstance(n, bool) or not isinstance(n, int) or n < MIN_GAMES:
            raise InputError(
                f"games per candidate must be a whole number of at least {MIN_GAMES}, not {n!r}",
                field="games_per_candidate",
            )
        budget = self.budget_minutes
        if isinstance(budget, bool) or not isinstance(budget, int | float) or not budget > 0:
            raise InputError(
                f"the budget must be a number of minutes above 0, not {budget!r}", field="budget"
            )
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise InputError(
                f"the seed must be a whole number, 0 or more, not {self.seed!r}", field="seed"
            )
        if self.preset not in preset_names():
            raise InputError(
                f"unknown rules preset {self.preset!r}; valid: {', '.join(preset_names())}",
                field="preset",
            )
        cap = self.round_cap
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise InputError(f"the round cap must be at least 1, not {cap!r}", field="round_cap")
        workers = self.workers
        if workers is not None and (
            isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
        ):
            raise InputError(f"workers must be at least 1, not {workers!r}", field="workers")
        for name in ("generations", "popsize"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise InputError(f"{name} must be at least 1, not {value!r}", field=name)
        if isinstance(self.phases, bool) or not isinstance(self.phases, int) or self.phases < 1:
            raise InputError(f"phases must be at least 1, not {self.phases!r}", field="phases")
        return self

    def rules(self) -> RuleSet:
        return RuleSet.preset(self.preset, **dict(self.overrides)).replace(round_cap=self.round_cap)


def _cma() -> Any:
    with warnings.catch_warnings():  # cma says once that it draws no plots without matplotlib
        warnings.simplefilter("ignore")
        import cma
    return cma


def other(role: str) -> str:
    return MONOPOLIST if role == COMPETITOR else COMPETITOR


def check_row(
    phase: int,
    role: str,
    opponent: FamilyParams,
    incumbent: FamilyParams,
    challenger: FamilyParams,
    games: int,
    results: tuple[Any, Any],
    min_gain: float,
    candidates: int,
) -> dict[str, Any]:
    """One check of a challenger against the role's incumbent on the same games (`results`:
    the incumbent's, then the challenger's), as a row of the phases' table. It improves only
    if the challenger is another strategy and Newcombe's interval for its gain starts above
    `min_gain` (0: more than luck)."""
    old, new = results
    change = stats.compare_batches(old.wins(role), old.games, new.wins(role), new.games)
    return {
        "phase": phase + 1,
        "role": role,
        "opponent": opponent.text(),
        "incumbent": incumbent.text(),
        "challenger": challenger.text(),
        "games": games,
        "incumbent_rate": old.rate(role),
        "challenger_rate": new.rate(role),
        "difference": change.difference,
        "ci_low": change.low,
        "ci_high": change.high,
        "improved": challenger != incumbent and change.low > min_gain,
        "candidates": candidates,
    }


def match_for(role: str, mine: str, theirs: str, master: int, games: int) -> Match:
    """A match where `role` plays `mine` and the other role `theirs` (bot names)."""
    if role == COMPETITOR:
        return Match(mine, theirs, master, games)
    return Match(theirs, mine, master, games)


class Search:
    """One best-play run (see the module's docstring); `run()` returns its result."""

    def __init__(
        self,
        settings: SearchSettings,
        progress: bool | str = True,
        command: str | None = None,
        on_event: Callable[[str], None] | None = None,
        executor: Executor | None = None,
    ) -> None:
        self.settings = settings.check()
        self.executor = executor  # plays the matches instead of a process pool of our own
        self.progress = progress
        self.command = command
        self.on_event = on_event
        self.seeds = masters(settings.seed)
        self.n = settings.games_per_candidate
        self.history: list[dict[str, Any]] = []
        self.phase_rows: list[dict[str, Any]] = []
        self.start = FamilyParams()
        self.current = {COMPETITOR: self.start, MONOPOLIST: self.start}
        # the knobs searched: all, or all but team play, held at "no" (today's family)
        self.searched = tuple(k for k in KNOBS if settings.team_play or k.name not in TEAM_KNOBS)
        # the shipped runs' best strategies, as the run found them (summary["warm_start"])
        self.known = {
            role: shipped_strategies(role) if settings.warm_start else [] for role in ROLES
        }

    def warm_pool(self, role: str) -> list[tuple[FamilyParams, str]]:
        """The candidates a role's search plays before CMA-ES, each with where it came from:
        the incumbent; with the warm start, the incumbent with each knob moved alone (the
        sensitivity check's values) and every shipped run's best strategy for the role (the
        knobs not searched as the incumbent has them). Without repeats, in that order."""
        found = self.current[role]
        pool = [(found, "incumbent")]
        if self.settings.warm_start:
            pool += [
                (found.changed(**{knob.name: value}), "one knob")
                for knob in self.searched
                for value in probe_values(knob, getattr(found, knob.name))
            ]
            held = {k.name: getattr(found, k.name) for k in KNOBS if k not in self.searched}
            pool += [(params.changed(**held), "shipped") for params in self.known[role]]
        seen: dict[FamilyParams, str] = {}
        for params, source in pool:
            seen.setdefault(params, source)
        return list(seen.items())

    def tail_sizes(self, seconds_per_game: float, budget: float) -> dict[str, int]:
        """Games per match after the search: the final figures (four times a candidate's),
        each matrix cell and each sensitivity probe (a candidate's), scaled down together
        when they would take more than 40% of the budget."""
        n = self.n
        sizes = {"final": 4 * n, "matrix": n, "sensitivity": n}
        allowed = 0.4 * budget / max(seconds_per_game, 1e-9)
        total = self.tail_games(sizes)
        if total > allowed:
            scale = allowed / total
            sizes = {k: max(MIN_GAMES, int(v * scale)) for k, v in sizes.items()}
        return sizes

    def tail_games(self, sizes: dict[str, int]) -> int:
        """How many games the tail of these sizes plays."""
        cells = (len(NAMED) + 2) ** 2
        probes = sum(
            1 + len(probe_values(k, getattr(self.current[r], k.name)))
            for r in ROLES
            for k in self.searched
        )
        return sizes["final"] + cells * sizes["matrix"] + probes * sizes["sensitivity"]

    def say(self, text: str) -> None:
        if self.on_event is not None:
            self.on_event(text)

    def run(self) -> BestPlayResult:
        settings = self.settings
        began = time.perf_counter()
        budget = 60.0 * settings.budget_minutes
        deadline = began + budget
        workers = settings.workers or default_workers()
        bar = Progress(self.progress, round(budget), unit="s", description="Searching")
        interrupted = converged = False
        sizes: dict[str, int] = {}
        final: dict[str, Any] = {}
        matrix = pd.DataFrame()
        sensitivity = pd.DataFrame()

        def tick(**status: Any) -> None:
            bar.to(int(time.perf_counter() - began), **status)

        with MatchRunner(settings.rules(), workers, self.executor) as runner:
            try:
                quiet = 0  # alternations in a row where the role did not improve
                role = COMPETITOR
                for phase in range(settings.phases):
                    sizes = self.tail_sizes(runner.seconds_per_game, budget)
                    left = deadline - time.perf_counter()
                    left -= runner.seconds_per_game * (self.tail_games(sizes) + 4 * self.n)
                    if phase and left < runner.seconds_per_game * self.n * 4:
                        break
                    share = max(2, min(4, settings.phases - phase))
                    phase_deadline = time.perf_counter() + max(left, 0.0) / share
                    self.say(
                        f"Phase {phase + 1}: the {ROLE_PLURALS[ROLES.index(role)]}' best response"
                    )
                    challenger = self.best_response(
                        runner, phase, role, phase_deadline, lambda **s: tick(**s)
                    )
                    improved = self.check(runner, phase, role, challenger)
                    quiet = 0 if improved else quiet + 1
                    if quiet >= 2:
                        converged = True
                        break
                    role = other(role)
                tick(stage="final games")
                sizes = self.tail_sizes(runner.seconds_per_game, budget)
                final = self.final(runner, sizes["final"])
                tick(stage="matrix")
                matrix = self.matrix(runner, sizes["matrix"])
                tick(stage="sensitivity")
                sensitivity = self.sensitivity(runner, sizes["sensitivity"])
            except KeyboardInterrupt:
                interrupted = True
            finally:
                tick(stage="done")
                bar.close()
            games_played = runner.games_played
        return self.result(
            began, interrupted, converged, final, matrix, sensitivity, games_played, sizes
        )

    def evaluate(
        self,
        runner: MatchRunner,
        role: str,
        candidates: list[FamilyParams],
        master: int,
        games: int,
    ) -> list[Tally]:
        opponent = family_name(self.current[other(role)])
        return runner.play(
            [match_for(role, family_name(c), opponent, master, games) for c in candidates]
        )

    def best_response(
        self,
        runner: MatchRunner,
        phase: int,
        role: str,
        deadline: float,
        tick: Callable[..., None],
    ) -> FamilyParams:
        """CMA-ES over the family's grid for `role` against the other role's current
        strategy, on the search's games; the best candidate it evaluated."""
        cma = _cma()
        settings = self.settings
        knobs = self.searched
        sizes = [k.size for k in knobs]
        options = {
            "bounds": [[0] * len(knobs), [s - 1 for s in sizes]],
            "CMA_stds": [max(0.5, (s - 1) / 4) for s in sizes],
            "integer_variables": list(range(len(knobs))),
            "seed": settings.seed * 100 + phase + 1,
            "verbose": -9,
            "tolfun": 0,
            "tolfunhist": 0,
            "tolflatfitness": 10**9,
            "tolstagnation": 10**9,
        }
        if settings.popsize is not None:
            options["popsize"] = settings.popsize
        scores: dict[FamilyParams, float] = {}
        sources: dict[FamilyParams, str] = {}

        def score(candidates: list[FamilyParams], generation: int) -> None:
            new = list(dict.fromkeys(c for c in candidates if c not in scores))
            for candidate, result in zip(
                new,
                self.evaluate(runner, role, new, self.seeds["search"], self.n),
                strict=True,
            ):
                scores[candidate] = result.rate(role)
                self.history.append(
                    {
                        "phase": phase + 1,
                        "role": role,
                        "generation": generation,
                        "source": sources.get(candidate, "cma-es"),
                        "wins": result.wins(role),
                        "games": result.games,
                        "rate": result.rate(role),
                        "round_cap_share": result.capped / result.games,
                        **candidate.as_dict(),
                    }
                )

        # the warm start: generation 0 plays the incumbent and its neighbours and the known
        # strategies on the search games; CMA-ES starts from the best (the incumbent on a tie)
        pool = self.warm_pool(role)
        sources.update(pool)
        score([params for params, _ in pool], 0)
        start = max((params for params, _ in pool), key=lambda c: scores[c])
        full = list(start.grid())
        free = [KNOBS.index(k) for k in knobs]
        strategy = cma.CMAEvolutionStrategy([full[i] for i in free], 1.0, options)

        def at(point: Any) -> FamilyParams:
            position = list(full)
            for i, x in zip(free, point, strict=True):
                position[i] = x
            return FamilyParams.from_grid(position)

        stale = 0
        generation = 0
        while time.perf_counter() < deadline:
            generation += 1
            if settings.generations is not None and generation > settings.generations:
                break
            points = strategy.ask()
            candidates = [at(x) for x in points]
            before = len(scores)
            score(candidates, generation)
            strategy.tell(points, [-scores[c] for c in candidates])
            best_rate = max(scores.values())
            tick(phase=phase + 1, role=role, best=f"{100 * best_rate:.1f}%")
            stale = stale + 1 if len(scores) == before else 0
            # every candidate was one already played (the search has settled), or one wins
            # every game (nothing can do better)
            if stale >= 3 or best_rate >= 1.0:
                break
        return max(scores, key=lambda c: scores[c])

    def check(self, runner: MatchRunner, phase: int, role: str, challenger: FamilyParams) -> bool:
        """The challenger against the role's current strategy on the check games: it takes
        over only if it wins more often by more than luck (Newcombe's interval leaves out 0)."""
        incumbent = self.current[role]
        games = 2 * self.n
        old, new = self.evaluate(runner, role, [incumbent, challenger], self.seeds["check"], games)
        row = check_row(
            phase,
            role,
            self.current[other(role)],
            incumbent,
            challenger,
            games,
            (old, new),
            min_gain=0.0,
            candidates=sum(1 for h in self.history if h["phase"] == phase + 1),
        )
        self.phase_rows.append(row)
        improved = row["improved"]
        if improved:
            self.current[role] = challenger
        return improved

    def final(self, runner: MatchRunner, games: int) -> dict[str, Any]:
        """The equilibrium's win rates on fresh seeds."""
        (result,) = runner.play(
            [
                Match(
                    family_name(self.current[COMPETITOR]),
                    family_name(self.current[MONOPOLIST]),
                    self.seeds["final"],
                    games,
                )
            ]
        )
        return equilibrium_figures(result)

    def matrix(self, runner: MatchRunner, games: int) -> pd.DataFrame:
        """Every named bot, the family's start and the best found, for each role, against
        each other on fresh seeds."""
        players = {
            COMPETITOR: [*((n, n) for n in NAMED), (START, family_name(self.start))],
            MONOPOLIST: [*((n, n) for n in NAMED), (START, family_name(self.start))],
        }
        for role in ROLES:
            players[role].append((BEST, family_name(self.current[role])))
        cells = [
            (c_label, c_bot, m_label, m_bot)
            for c_label, c_bot in players[COMPETITOR]
            for m_label, m_bot in players[MONOPOLIST]
        ]
        results = runner.play(
            [Match(c_bot, m_bot, self.seeds["matrix"], games) for _, c_bot, _, m_bot in cells]
        )
        rows = []
        for (c_label, c_bot, m_label, m_bot), result in zip(cells, results, strict=True):
            row = {"competitor": c_label, "monopolist": m_label}
            row.update(matrix_cell(result))
            row.update({"competitor_bot": c_bot, "monopolist_bot": m_bot})
            rows.append(row)
        return pd.DataFrame(rows)

    def sensitivity(self, runner: MatchRunner, games: int) -> pd.DataFrame:
        """Each knob of each role's best strategy moved alone to other values, the other role
        kept at its best: the role's win rate on the same fresh games."""
        rows = []
        for role in ROLES:
            found = self.current[role]
            probes = [
                (knob, value)
                for knob in self.searched
                for value in probe_values(knob, getattr(found, knob.name))
            ]
            candidates = [found] + [found.changed(**{k.name: v}) for k, v in probes]
            results = self.evaluate(runner, role, candidates, self.seeds["sensitivity"], games)
            base = results[0].rate(role)
            for (knob, value), result in zip(probes, results[1:], strict=True):
                rows.append(
                    {
                        "role": role,
                        "knob": knob.name,
                        "found": knob.text(getattr(found, knob.name)),
                        "value": knob.text(value),
                        "games": result.games,
                        "found_rate": base,
                        "rate": result.rate(role),
                        "change": result.rate(role) - base,
                    }
                )
        return pd.DataFrame(rows)

    def result(
        self,
        began: float,
        interrupted: bool,
        converged: bool,
        final: dict[str, Any],
        matrix: pd.DataFrame,
        sensitivity: pd.DataFrame,
        games_played: int,
        sizes: dict[str, int],
    ) -> BestPlayResult:
        from importlib.metadata import version

        settings = self.settings
        strategies = {
            role: strategy_record(self.current[role], role, settings.preset) for role in ROLES
        } | {"start": strategy_record(self.start, None)}
        summary = {
            "command": self.command
            or (
                f"amteach best-play --games-per-candidate {settings.games_per_candidate} "
                f"--budget {settings.budget_minutes:g} --seed {settings.seed} "
                f"--preset {settings.preset} --length {settings.round_cap}"
                + "".join(f" --set {name}={value}" for name, value in settings.overrides)
                + (" --team-play" if settings.team_play else "")
            ),
            "seed": settings.seed,
            "preset": settings.preset,
            "round_cap": settings.round_cap,
            "rules_changed": dict(settings.overrides),
            "games_per_candidate": settings.games_per_candidate,
            "budget_minutes": settings.budget_minutes,
            "version": version("amteach"),
            "date": datetime.now(UTC).strftime("%Y-%m-%d"),
            "core": core.core_name(),
            "elapsed_seconds": round(time.perf_counter() - began, 1),
            "games_played": games_played,
            "candidates": len(self.history),
            "phases": len(self.phase_rows),
            "converged": converged,
            "interrupted": interrupted,
            "seeds": self.seeds,
            "games": sizes,
            "game_length": time_is_up(settings.round_cap),
            "team_play": settings.team_play,
            "warm_start": {role: [params.text() for params in self.known[role]] for role in ROLES}
            if settings.warm_start
            else None,
            "equilibrium": final,
        }
        history = pd.DataFrame(self.history)
        phases = pd.DataFrame(self.phase_rows)
        result = BestPlayResult(summary, strategies, history, phases, matrix, sensitivity)
        if final:
            summary["reading"] = reading_best_play(result)
        return result


def probe_values(knob: Any, found: int) -> list[int]:
    """The values a knob is moved to in the sensitivity check: every other value of a small
    knob; the ends, quarters and middle of a large one."""
    if knob.size <= 6:
        values = [knob.value_at(i) for i in range(knob.size)]
    else:
        values = [knob.value_at(round(q * (knob.size - 1))) for q in (0, 0.25, 0.5, 0.75, 1)]
    return [v for v in dict.fromkeys(values) if v != found]


def best_play(
    games_per_candidate: int = 500,
    budget_minutes: float = 10.0,
    seed: int = 0,
    preset: str = "default",
    workers: int | None = None,
    round_cap: int = DEFAULT_ROUND_CAP,
    generations: int | None = None,
    phases: int = 8,
    popsize: int | None = None,
    team_play: bool = False,
    warm_start: bool = True,
    progress: bool | str = True,
    command: str | None = None,
    on_event: Callable[[str], None] | None = None,
    executor: Executor | None = None,
) -> BestPlayResult:
    """Search the family for each role's best response, alternating until neither improves
    by more than the noise, then play the equilibrium, the tournament matrix and the
    sensitivity check on fresh seeds (see the module's docstring). Ctrl-C stops the search and
    returns what it found (`result.interrupted`). `executor` plays the games instead of a
    process pool here, for example a Dask cluster's (`amteach.sim.cluster.cluster_executor`,
    with `workers` its worker threads): the result is the same for the same seed."""
    settings = SearchSettings(
        games_per_candidate=games_per_candidate,
        budget_minutes=budget_minutes,
        seed=seed,
        preset=preset,
        round_cap=round_cap,
        workers=workers,
        generations=generations,
        phases=phases,
        popsize=popsize,
        team_play=team_play,
        warm_start=warm_start,
    )
    return Search(settings, progress, command, on_event, executor).run()


def by_length(
    result: BestPlayResult,
    rounds: tuple[int, ...],
    games: int,
    seed: int,
    workers: int = 1,
) -> list[dict[str, Any]]:
    """The run's strategies (both roles at their best) played at each game length in `rounds`,
    `games` fresh games a length (the same games at every length, from master seed `seed`):
    each role's wins with its 95% Wilson interval and how many games time settled. Rows as in
    `outcomes.length_rows`, for summary.json (`summary["by_length"]`)."""
    c, m = family_name(result.best(COMPETITOR)), family_name(result.best(MONOPOLIST))
    rows: list[dict[str, Any]] = []
    for cap in rounds:
        rules = RuleSet.preset(result.summary["preset"], round_cap=int(cap))
        with MatchRunner(rules, workers) as runner:
            (played,) = runner.play([Match(c, m, seed, games)])
        rows += length_rows(
            cap, played.competitor_wins, played.monopolist_wins, played.games, played.capped
        )
    for row in rows:
        row["seed"] = int(seed)
    return rows


def best_response_check(
    result: BestPlayResult,
    games_per_candidate: int,
    budget_minutes: float,
    seed: int,
    check_games: int,
    workers: int = 1,
    roles: tuple[str, ...] = ROLES,
) -> dict[str, Any]:
    """How approximate the run's equilibrium is: for each role, a new search for its best
    response to the other role's final strategy (CMA-ES on games of master seed `seed`, never
    the run's, `games_per_candidate` games a candidate, half the budget each), then the best
    found against the final strategy on `check_games` other fresh games. The gain is the
    difference of their win rates with Newcombe's 95% interval: a gain whose interval holds 0
    is none we can tell from luck."""
    summary = result.summary
    settings = SearchSettings(
        games_per_candidate=games_per_candidate,
        budget_minutes=budget_minutes,
        seed=seed,
        preset=summary["preset"],
        round_cap=int(summary["round_cap"]),
        workers=workers,
    )
    search = Search(settings, progress=False)
    search.current = {role: result.best(role) for role in ROLES}
    out: dict[str, Any] = {
        "seed": seed,
        "games_per_candidate": games_per_candidate,
        "check_games": check_games,
        "budget_minutes": budget_minutes,
    }
    began = time.perf_counter()
    with MatchRunner(settings.rules(), workers) as runner:
        for index, role in enumerate(roles):
            deadline = began + 60.0 * budget_minutes * (index + 1) / len(roles)
            found = search.best_response(runner, 100 + index, role, deadline, lambda **_: None)
            old, new = search.evaluate(
                runner, role, [search.current[role], found], search.seeds["check"], check_games
            )
            change = stats.compare_batches(old.wins(role), old.games, new.wins(role), new.games)
            out[role] = {
                "final_rate": old.rate(role),
                "best_response_rate": new.rate(role),
                "gain": change.difference,
                "ci_low": change.low,
                "ci_high": change.high,
                "candidates": sum(1 for h in search.history if h["phase"] == 101 + index),
                "best_response": found.text(),
                "same": found == search.current[role],
            }
        out["games_played"] = runner.games_played
    out["elapsed_seconds"] = round(time.perf_counter() - began, 1)
    return out


def compare_runs(
    a: BestPlayResult, b: BestPlayResult, games: int, seed: int, workers: int = 1
) -> dict[str, Any]:
    """How far two runs' equilibria (the same preset and length, searched from two seeds) are
    apart: the Monopolists' equilibrium win rates with Newcombe's interval for the difference,
    the knobs on which each role's strategies differ, and each role's strategy from `b` played
    against the other role's from `a` on `games` fresh games (master seed `seed`)."""
    fa, fb = a.summary["equilibrium"], b.summary["equilibrium"]
    change = stats.compare_batches(
        fa[MONOPOLIST]["wins"], fa["games"], fb[MONOPOLIST]["wins"], fb["games"]
    )
    out: dict[str, Any] = {
        "seeds": [a.summary["seed"], b.summary["seed"]],
        "monopolist_rates": [fa[MONOPOLIST]["rate"], fb[MONOPOLIST]["rate"]],
        "difference": change.difference,
        "ci_low": change.low,
        "ci_high": change.high,
        "knobs_differ": {
            role: [
                k.name
                for k in KNOBS
                if getattr(a.best(role), k.name) != getattr(b.best(role), k.name)
            ]
            for role in ROLES
        },
    }
    rules = RuleSet.preset(a.summary["preset"], round_cap=int(a.summary["round_cap"]))
    pairs = {
        "a_against_a": (a.best(COMPETITOR), a.best(MONOPOLIST)),
        "b_competitors_against_a": (b.best(COMPETITOR), a.best(MONOPOLIST)),
        "b_monopolists_against_a": (a.best(COMPETITOR), b.best(MONOPOLIST)),
        "b_against_b": (b.best(COMPETITOR), b.best(MONOPOLIST)),
    }
    with MatchRunner(rules, workers) as runner:
        played = runner.play(
            [Match(family_name(c), family_name(m), seed, games) for c, m in pairs.values()]
        )
    for name, tally_ in zip(pairs, played, strict=True):
        low, high = wilson_interval(tally_.monopolist_wins, tally_.games)
        out[name] = {
            "games": tally_.games,
            "competitor_wins": tally_.competitor_wins,
            "monopolist_wins": tally_.monopolist_wins,
            "monopolist_rate": tally_.rate(MONOPOLIST),
            "ci_low": low,
            "ci_high": high,
        }
    # what each role of run a would gain by switching to run b's strategy (same games)
    base = played[0]
    for role, switched in ((COMPETITOR, played[1]), (MONOPOLIST, played[2])):
        change = stats.compare_batches(
            base.wins(role), base.games, switched.wins(role), switched.games
        )
        out[f"{role}_gain"] = {
            "gain": change.difference,
            "ci_low": change.low,
            "ci_high": change.high,
        }
    return out
