"""Benchmark the batch simulator: both cores side by side, a peer, the end-to-end batch.

    .venv/bin/python benchmarks/bench_sim.py            # everything below
    .venv/bin/python benchmarks/bench_sim.py --quick    # smaller batches, for a quick look
    .venv/bin/python benchmarks/bench_sim.py --pool-against /tmp/main   # the pool, before/after

    AMTEACH_PEER_MONOPOLY=/path/to/monopoly .venv/bin/python benchmarks/bench_sim.py

Every figure is the median of --repeat runs (the machine is shared and noisy), and the cores
alternate run by run, so a ratio compares runs made under the same load.

- One worker, four investor bots (two Competitors, two Monopolists), default rules, the
  default round cap of 200, frames recorded: player-turns/s on the compiled core and on the
  pure-Python core, and, when AMTEACH_PEER_MONOPOLY names a checkout of
  gamescomputersplay/monopoly (pure Python, full Monopoly with its own trading bots), that
  program with its game log off, counted the same way (one player-turn = one call of
  `Player.make_a_move`). The peer is not part of amteach: clone it yourself outside this
  repository; nothing of it is copied here. Without the variable its column is left out.
- The kernel uncompiled: amteach/sim/kernel.py run as plain Python (the source the compiled
  core is built from, issue 26) beside the engine and bots, each timed on one chunk of games
  in this process (no pool), so the two figures compare alike.
- All cores, compiled: the same table on a process pool.
- End to end: 10,000 games with the four frames on all cores, compiled; peak memory.
- Who wins: what the dashboard's *Who wins* tab does on a click, 1,000 games on all cores and
  its three charts built (the kernel is warm: this process has run batches already).

With --turns-against DIR (a tree as for --pool-against), only this: 20,000 games on one worker,
end to end, player-turns per wall-clock and per CPU second, this checkout and DIR taking turns
run by run, and the peer in the same run (issue 38's figure).

With --pool-against DIR (a copy of another checkout's tree, such as main's before a change to
the batch pool: `git archive main amteach | tar -x -C DIR`, and its built core copied beside
it), only this: 2,000 and 20,000 games on 1 and 2 workers, this checkout and DIR's taking
turns run by run. Each run is a fresh process that first plays 20 games here, as below, then
times its first batch (which starts the worker processes, and on a fork server the server
too) and, for the small batch, a second one (on the same workers where they are shared):
wall-clock seconds, and the CPU seconds of the calling process (on one worker, the batch's own
work, which the load of a shared machine does not inflate).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from amteach import simulate
from amteach.sim import core

PEER_ENV = "AMTEACH_PEER_MONOPOLY"


def peak_mb() -> float:
    """Largest resident size so far among this process and its finished children (MB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


@contextmanager
def pure_python() -> Iterator[None]:
    """Run batches on the pure-Python core in this process (as AMTEACH_PURE_PYTHON=1 does)."""
    saved = core.kernel
    core.kernel = lambda: None  # type: ignore[assignment]
    try:
        yield
    finally:
        core.kernel = saved  # type: ignore[assignment]


def amteach_rate(games: int, workers: int, seed: int) -> tuple[float, float]:
    """(player-turns/s, seconds) of one batch."""
    started = time.perf_counter()
    result = simulate(games=games, workers=workers, seed=seed, progress=False)
    elapsed = time.perf_counter() - started
    return int(result.games["turns"].sum()) / elapsed, elapsed


PEER_SCRIPT = textwrap.dedent(
    """
    import sys, tempfile, time
    from pathlib import Path
    sys.path.insert(0, ".")
    from monopoly.log_settings import LogSettings
    LogSettings.KEEP_GAME_LOG = False
    out = Path(tempfile.mkdtemp())
    LogSettings.EVENTS_LOG_PATH = out / "events.log"
    LogSettings.BANKRUPTCIES_PATH = out / "bankruptcies.tsv"
    from monopoly.core import game as peer_game
    from monopoly.core.player import Player
    peer_game.LogSettings = LogSettings
    moves = 0
    make_a_move = Player.make_a_move
    def counted(self, *args, **kwargs):
        global moves
        moves += 1
        return make_a_move(self, *args, **kwargs)
    Player.make_a_move = counted
    games, seed = int(sys.argv[1]), int(sys.argv[2])
    started = time.perf_counter()
    for i in range(games):
        peer_game.monopoly_game((i, seed * 100_000 + i))
    print(moves / (time.perf_counter() - started))
    """
)


def peer_rate(path: str, games: int, seed: int) -> float:
    """Player-turns/s of the peer in a process of its own, run from its checkout."""
    done = subprocess.run(
        [sys.executable, "-c", PEER_SCRIPT, str(games), str(seed)],
        cwd=path,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip().splitlines()[-1])


def who_wins_seconds(games: int) -> float:
    """The dashboard's Who wins click (`ui.economics.fairness_page`): the batch on all cores,
    then its three charts and their readings, by role, by seat and by bot."""
    from amteach.analysis import fairness

    started = time.perf_counter()
    result = simulate(games=games, seed=1, progress=False)
    for by in ("role", "seat", "bot"):
        fairness.win_rates_figure(result, by)
        fairness.reading_win_rates(result, by)
    return time.perf_counter() - started


def chunk_rates(games: int, seed: int) -> tuple[float, float]:
    """(kernel.py uncompiled, the engine and bots) player-turns/s on the same chunk of games,
    played in this process."""
    from amteach import RuleSet
    from amteach.sim.play import BatchConfig, compiled_chunk, python_chunk
    from amteach.sim.runner import parse_seats

    source = Path(core.__file__).with_name("kernel.py")
    spec = importlib.util.spec_from_file_location("amteach_kernel_uncompiled", source)
    uncompiled = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(uncompiled)
    rules = RuleSet.preset("default", round_cap=200)
    seats = parse_seats(",".join(["competitor:investor", "monopolist:investor"] * 2))
    config = BatchConfig(seats, rules.to_dict(), seed)
    rates = []
    for play in (
        lambda: compiled_chunk(uncompiled, 0, games, config, rules),
        lambda: python_chunk(0, games, config, rules),
    ):
        started = time.perf_counter()
        tables = play()
        rates.append(int(tables["games"]["turns"].sum()) / (time.perf_counter() - started))
    return rates[0], rates[1]


POOL_SCRIPT = textwrap.dedent(
    """
    import sys, time
    import amteach
    from amteach import simulate
    games, workers, seed, again = (int(a) for a in sys.argv[1:5])
    print(amteach.__file__, file=sys.stderr)
    simulate(games=20, workers=1, progress=False)  # the kernel and landing odds loaded here
    times = []
    for run in range(1 + again):
        started, cpu = time.perf_counter(), time.process_time()
        simulate(games=games, workers=workers, seed=seed + run, progress=False)
        times.append((time.perf_counter() - started, time.process_time() - cpu))
    print(*(f"{wall},{cpu}" for wall, cpu in times))
    """
)


def pool_seconds(
    tree: str, games: int, workers: int, seed: int, again: bool
) -> list[tuple[float, float]]:
    """(Wall-clock, this process's CPU) seconds of the first batch (and the second, if
    `again`) in a fresh process that imports amteach from `tree`. On one worker the CPU
    seconds are the batch's, whatever else the machine is doing."""
    done = subprocess.run(
        [sys.executable, "-c", POOL_SCRIPT, str(games), str(workers), str(seed), str(int(again))],
        env={**os.environ, "PYTHONPATH": tree},
        cwd=tree,  # `python -c` puts the working folder first on the path
        capture_output=True,
        text=True,
        check=True,
    )
    imported = Path(done.stderr.strip().splitlines()[-1]).resolve()
    if not imported.is_relative_to(Path(tree).resolve()):
        sys.exit(f"amteach came from {imported}, not from {tree}")
    return [tuple(float(x) for x in pair.split(",")) for pair in done.stdout.split()]


TURNS_SCRIPT = textwrap.dedent(
    """
    import sys, time
    import amteach
    from amteach import simulate
    games, seed = (int(a) for a in sys.argv[1:3])
    print(amteach.__file__, file=sys.stderr)
    simulate(games=20, workers=1, progress=False)  # the kernel and landing odds loaded here
    started, cpu = time.perf_counter(), time.process_time()
    result = simulate(games=games, workers=1, seed=seed, progress=False)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(int(result.games["turns"].sum()), wall, cpu)
    """
)


def turns_rates(tree: str, games: int, seed: int) -> tuple[float, float]:
    """(player-turns per wall-clock second, per CPU second) of one batch of `games` on one
    worker, end to end (frames included), in a fresh process importing amteach from `tree`."""
    done = subprocess.run(
        [sys.executable, "-c", TURNS_SCRIPT, str(games), str(seed)],
        env={**os.environ, "PYTHONPATH": tree},
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    imported = Path(done.stderr.strip().splitlines()[-1]).resolve()
    if not imported.is_relative_to(Path(tree).resolve()):
        sys.exit(f"amteach came from {imported}, not from {tree}")
    turns, wall, cpu = (float(x) for x in done.stdout.split())
    return turns / wall, turns / cpu


def compare_turns(other: str, repeat: int, games: int) -> None:
    """Player-turns/s of `games` games on one worker, end to end: this checkout and the tree
    at `other` taking turns run by run, and the peer (AMTEACH_PEER_MONOPOLY) in the same run."""
    here = str(Path(__file__).resolve().parents[1])
    trees = {"before": str(Path(other).resolve()), "after": here}
    peer = os.environ.get(PEER_ENV)
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    peers = []
    for run in range(repeat):
        for name, tree in trees.items():
            rates[name].append(turns_rates(tree, games, run))
        if peer:
            peers.append(peer_rate(peer, 200, run))
    print(f"{games:,} games, one worker, end to end, frames recorded, median of {repeat}:")
    for name, tree in trees.items():
        wall = statistics.median(r[0] for r in rates[name])
        cpu = statistics.median(r[1] for r in rates[name])
        print(f"  {name:<7} {wall:>11,.0f} player-turns/s wall, {cpu:>11,.0f} per CPU s   ({tree})")
    if peer:
        q = statistics.median(peers)
        after = statistics.median(r[0] for r in rates["after"])
        print(f"  peer    {q:>11,.0f} player-turns/s (200 games a run, game log off)")
        print(f"  after / peer {after / q:.1f}x")


def compare_pools(other: str, repeat: int) -> None:
    """This checkout's batch pool against the tree at `other`, taking turns run by run."""
    here = str(Path(__file__).resolve().parents[1])
    trees = {"before": str(Path(other).resolve()), "after": here}
    print(f"The batch pool, before ({trees['before']}) and after ({here}), median of {repeat}:")
    print(
        f"{'games':>7} {'workers':>7} {'batch':>6} {'before s':>9} {'after s':>9} "
        f"{'after/before':>12}   {'CPU here, before':>16} {'after':>6}"
    )
    for games in (2000, 20_000):
        for workers in (1, 2):
            again = games == 2000
            seconds: dict[str, list[list[tuple[float, float]]]] = {name: [] for name in trees}
            for run in range(repeat):
                for name, tree in trees.items():
                    seconds[name].append(pool_seconds(tree, games, workers, run, again))
            for batch, label in enumerate(("first", "second")[: 1 + again]):
                before, after = (
                    [statistics.median(t[batch][kind] for t in seconds[name]) for kind in (0, 1)]
                    for name in trees
                )
                print(
                    f"{games:>7,} {workers:>7} {label:>6} {before[0]:>9.2f} {after[0]:>9.2f} "
                    f"{after[0] / before[0]:>12.2f}   {before[1]:>16.2f} {after[1]:>6.2f}",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller batches")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    parser.add_argument(
        "--pool-against",
        metavar="DIR",
        default=None,
        help="only compare the batch pool with the amteach tree in DIR (see above)",
    )
    parser.add_argument(
        "--turns-against",
        metavar="DIR",
        default=None,
        help="only the player-turns/s of 20,000 games on one worker, here and in DIR, "
        "beside the peer",
    )
    args = parser.parse_args()
    if args.turns_against is not None:
        compare_turns(args.turns_against, args.repeat, 2000 if args.quick else 20_000)
        return
    if args.pool_against is not None:
        compare_pools(args.pool_against, args.repeat)
        return
    cores = os.cpu_count() or 1
    compiled_games = 300 if args.quick else 2000
    pure_games = 60 if args.quick else 300
    peer_games = 50 if args.quick else 200
    big = 2000 if args.quick else 10_000
    peer = os.environ.get(PEER_ENV)
    print(
        f"amteach simulator benchmark: {cores} cores, Python {sys.version.split()[0]}, "
        f"core here: {core.core_name()}, median of {args.repeat} runs"
    )
    if core.kernel() is None:
        sys.exit("the compiled core is not built here: run ./dev test (or pip install .) first")
    simulate(games=20, workers=1, progress=False)  # load the kernel and the landing odds once

    compiled, pure, peers = [], [], []
    for run in range(args.repeat):
        compiled.append(amteach_rate(compiled_games, 1, run)[0])
        with pure_python():
            pure.append(amteach_rate(pure_games, 1, run)[0])
        if peer:
            peers.append(peer_rate(peer, peer_games, run))
    c, p = statistics.median(compiled), statistics.median(pure)
    print("\nOne worker, 4 investor bots, default rules, frames recorded (player-turns/s):")
    print(f"  compiled core      {c:>11,.0f}   ({compiled_games} games a run)")
    print(f"  pure-Python core   {p:>11,.0f}   ({pure_games} games a run)")
    if peer:
        q = statistics.median(peers)
        print(f"  peer (monopoly)    {q:>11,.0f}   ({peer_games} games a run, game log off)")
    else:
        print(f"  peer               (set {PEER_ENV} to a checkout of gamescomputersplay/monopoly)")
    print(f"  compiled / pure    {c / p:>11.2f}x")
    chunks = [chunk_rates(pure_games // 2, run) for run in range(args.repeat)]
    u = statistics.median(rate for rate, _ in chunks)
    e = statistics.median(rate for _, rate in chunks)
    print(f"  kernel.py uncompiled {u:>9,.0f}   (one chunk of {pure_games // 2} games, in process)")
    print(f"  engine and bots    {e:>11,.0f}   (the same chunk): uncompiled / engine {u / e:.2f}x")
    if peer:
        print(f"  compiled / peer    {c / q:>11.2f}x")
        print(f"  pure / peer        {p / q:>11.2f}x")

    many = statistics.median(
        amteach_rate(2 * compiled_games, cores, run)[0] for run in range(args.repeat)
    )
    print(f"\nAll {cores} cores, compiled: {many:,.0f} player-turns/s ({many / c:.2f}x one worker)")

    seconds = statistics.median(
        amteach_rate(big, cores, 100 + run)[1] for run in range(args.repeat)
    )
    print(f"End to end, {big:,} games with frames on {cores} cores, compiled: {seconds:.1f} s")
    clicks = statistics.median(who_wins_seconds(1000) for _ in range(args.repeat))
    print(f"Who wins, 1,000 games and their three charts: {clicks:.2f} s")
    print(f"Peak memory (largest process): {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
