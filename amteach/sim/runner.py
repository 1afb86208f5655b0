"""Running a batch of bot games: checking its seats and rules, then playing it on the batch
pool (`amteach.sim.pool`: here, on worker processes, or on Dask) and gathering its frames."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ..bots import FAMILY, STRATEGIES, TAX_BEHAVIOURS, FamilyParams
from ..engine.board import ROLES, standard_board
from ..engine.errors import InputError, RulesError
from ..engine.rules import RuleSet
from ..engine.setup import PlayerSetup, Setup, role_split_problem, validate_setup
from . import core
from .cluster import dask_pool, shared_client
from .cpus import default_workers
from .play import BatchConfig, SeatSpec, run_chunk
from .pool import Pool, Progress, shared_pool
from .results import SimulationResult, build_frames

DEFAULT_SEATS = "competitor:investor,monopolist:investor,competitor:investor,monopolist:investor"
DEFAULT_ROUND_CAP = 200


class SeatError(InputError):
    """An invalid seat list: an unknown role, bot or tax behaviour, or an illegal role split."""


def parse_seats(
    seats: str | Iterable[Any] | None, allow_one_role: bool = False
) -> tuple[SeatSpec, ...]:
    """Seats from "competitor:investor,monopolist:builder:flat" or a list of such strings,
    (role, bot[, tax]) tuples or SeatSpecs. Checks decision 13's role split; with
    `allow_one_role` (the counterfactual analysis only) a table of one role is accepted too."""
    if seats is None:
        seats = DEFAULT_SEATS
    items = [s.strip() for s in seats.split(",")] if isinstance(seats, str) else list(seats)
    specs = []
    for i, item in enumerate(items):
        where = f"seats[{i}]"
        if isinstance(item, SeatSpec):
            parts = [item.role, item.bot, item.params if item.bot == FAMILY else item.tax]
        elif isinstance(item, str):
            parts = [p.strip() for p in item.split(":")]
        else:
            parts = [str(p) for p in item]
        if len(parts) not in (2, 3):
            raise SeatError(
                f"a seat is role:bot, role:bot:tax or role:family:<knobs>, not {item!r}",
                field=where,
            )
        role, bot = parts[0].lower(), parts[1].lower()
        tax = parts[2].lower() if len(parts) == 3 else "cheaper"
        if role not in ROLES:
            raise SeatError(
                f"unknown role {parts[0]!r}; valid roles: {', '.join(ROLES)}", field=where
            )
        if bot == FAMILY:
            try:
                params = FamilyParams.parse(parts[2] if len(parts) == 3 else "")
            except RulesError as err:
                raise SeatError(err.reason, field=f"{where}.{err.field}") from None
            specs.append(SeatSpec(role, bot, params.tax_name, params.text()))
            continue
        if bot not in STRATEGIES:
            raise SeatError(
                f"unknown bot {parts[1]!r}; valid bots: {', '.join(STRATEGIES)}", field=where
            )
        if tax not in TAX_BEHAVIOURS:
            raise SeatError(
                f"unknown tax behaviour {parts[2]!r}; valid: {', '.join(TAX_BEHAVIOURS)}",
                field=where,
            )
        specs.append(SeatSpec(role, bot, tax))
    problem = role_split_problem([ROLES.index(s.role) for s in specs], allow_one_role)
    if problem is not None:
        raise SeatError(problem, field="seats")
    return tuple(specs)


def with_round_cap(ruleset: RuleSet, round_cap: int | None, field: str = "round_cap") -> RuleSet:
    """`ruleset` with `round_cap` (if given); refused if it still has none, since unattended
    games must end."""
    if round_cap is not None:
        ruleset = ruleset.replace(round_cap=round_cap)
    if ruleset.round_cap is None:
        raise RulesError("unattended play needs a round cap so every game ends", field=field)
    return ruleset


def batch_rules(
    rules: RuleSet | str | dict[str, Any], overrides: dict[str, Any], round_cap: int | None
) -> RuleSet:
    """The rules a batch plays: `rules` as `RuleSet.coerce` reads them, with `overrides` and
    `round_cap` applied."""
    ruleset = RuleSet.coerce(rules)
    return with_round_cap(ruleset.replace(**overrides) if overrides else ruleset, round_cap)


def simulate(
    games: int = 1000,
    seats: str | Iterable[Any] | None = None,
    rules: RuleSet | str | dict[str, Any] = "default",
    seed: int = 0,
    workers: int | None = None,
    round_cap: int | None = DEFAULT_ROUND_CAP,
    game: str = "A",
    client: Any = None,
    progress: bool | str = True,
    record_rounds: bool = True,
    on_chunk: Callable[[int, int], None] | None = None,
    allow_one_role: bool = False,
    check_invariants: bool = False,
    pool: Pool | None = None,
    **rule_overrides: Any,
) -> SimulationResult:
    """Play `games` bot games and return their tidy frames.

    Game i's seed derives from `seed` and i alone, so the frames are identical whatever
    `workers` or backend. `workers` defaults to this process's share of the machine (its CPU
    affinity and cgroup quota, at most `AMTEACH_WORKERS`: `amteach.sim.cpus.default_workers`);
    1 runs here. Where `AMTEACH_DASK` names a scheduler, a batch that names no `workers`,
    `client` or `pool` plays on that cluster (`amteach.sim.cluster.shared_client`). `client`
    (a dask.distributed Client) runs the batch on Dask instead, and `pool` (an open
    `amteach.sim.pool.Pool`) on that pool, whatever `workers` says; otherwise the batch plays
    on the process's shared pool of `workers` (`amteach.sim.pool.shared_pool`), whose workers
    stay up a minute for the next batch. Ctrl-C stops cleanly: the games finished so far are returned
    (`result.interrupted` is then true). `on_chunk(done, total)` is called after each
    finished chunk (raising KeyboardInterrupt there stops the batch like Ctrl-C). `progress`:
    True for a bar (an ipywidgets bar in notebooks), "text" for a terminal bar on stderr,
    False for none.

    `allow_one_role=True` accepts a table where every seat has the same role, which decision
    13 forbids: it is for the counterfactual analysis (`amteach.analysis.fairness.
    market_structures`), not for games a class plays. Such a table plays Game A or the
    two-hour game (Game B would end at once), settled by the round cap.

    `check_invariants=True` checks after every decision what must always hold (see
    `game.state.invariant_violations()`) and puts the count of violations in
    `result.meta["invariant_violations"]`.

    Batches run on the compiled core where it is built, else on pure Python, with identical
    frames (`result.meta["core"]` says which); a large batch on pure Python warns once.
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise InputError(
            f"games must be a whole number of at least 1, not {games!r}", field="games"
        )
    specs = parse_seats(seats, allow_one_role=allow_one_role)
    ruleset = batch_rules(rules, rule_overrides, round_cap)
    # the engine checks the table (game type, roles) as it would for any game it starts
    validate_setup(
        Setup(
            players=tuple(
                PlayerSetup(f"seat {i + 1}", ROLES.index(s.role)) for i, s in enumerate(specs)
            ),
            rules=ruleset,
            seed=int(seed),
            game_type=game,
            allow_one_role=bool(allow_one_role),
        ),
        standard_board(),
    )
    if workers is None and client is None and pool is None:
        client = shared_client()  # AMTEACH_DASK: every kernel's batches on one cluster
    workers = default_workers() if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"workers must be at least 1, not {workers!r}", field="workers")
    config = BatchConfig(
        specs,
        ruleset.to_dict(),
        int(seed),
        game,
        record_rounds,
        bool(allow_one_role),
        bool(check_invariants),
    )
    if pool is not None:
        return play_batch(pool, config, games, specs, progress, on_chunk)
    if client is not None:  # Dask workers are other machines: their core is their own
        with dask_pool(client, workers) as on_dask:
            return play_batch(on_dask, config, games, specs, progress, on_chunk)
    warn_if_slow(games, workers)
    with shared_pool(workers) as shared:
        return play_batch(shared, config, games, specs, progress, on_chunk)


def play_batch(
    pool: Pool,
    config: BatchConfig,
    games: int,
    specs: tuple[SeatSpec, ...],
    progress: bool | str = False,
    on_chunk: Callable[[int, int], None] | None = None,
) -> SimulationResult:
    """Play games 0..games-1 of a checked batch on `pool` and gather their frames (see
    `simulate`)."""
    parts = pool.chunks(games)
    done: dict[int, Any] = {}
    started = time.perf_counter()
    with Progress(progress, games, on_advance=on_chunk) as shown:

        def finished(index: int, tables: Any) -> None:
            done[index] = tables  # kept before the progress callback may stop the batch
            start, stop = parts[index]
            shown.advance(stop - start)

        interrupted = pool.run(run_chunk, [(a, b, config) for a, b in parts], finished)
    elapsed = time.perf_counter() - started
    ordered = [done.pop(index) for index in range(len(parts)) if index in done]
    violations = sum(
        int(chunk.pop("checks")["violations"].sum()) for chunk in ordered if "checks" in chunk
    )
    frames = build_frames(ordered, specs)
    del ordered
    meta = {
        "requested": games,
        "completed": len(frames["games"]),
        "interrupted": interrupted,
        "seed": config.seed,
        "seats": [vars(s) for s in specs],
        "rules": config.rules,
        "game": config.game_type,
        "workers": pool.workers,
        "backend": pool.backend,
        "core": core.core_name(),
        "elapsed": elapsed,
    }
    if config.check_invariants:
        meta["invariant_violations"] = violations
    return SimulationResult(meta=meta, **frames)


# a batch this large on pure Python takes long enough to say why, once per process
PURE_PYTHON_WARN_GAMES = 2000
PURE_PYTHON_GAMES_PER_SECOND = 100  # one worker, four investor bots, measured (benchmarks/)
_warned = False


class PurePythonWarning(UserWarning):
    """A large batch runs on the pure-Python core (no compiled core built here)."""


def warn_if_slow(games: int, workers: int) -> None:
    """Warn once per process when a large batch is about to run on the pure-Python core."""
    global _warned
    if _warned or games < PURE_PYTHON_WARN_GAMES or core.kernel() is not None:
        return
    _warned = True
    seconds = games / (PURE_PYTHON_GAMES_PER_SECOND * max(1, min(workers, default_workers())))
    warnings.warn(
        f"{games:,} games will run on amteach's pure-Python core (about {seconds:,.0f} s here); "
        "the compiled core is dozens of times faster. Build it with `pip install .` or "
        "`./dev test` on a machine with a C compiler; see docs/development.md.",
        PurePythonWarning,
        stacklevel=3,
    )
