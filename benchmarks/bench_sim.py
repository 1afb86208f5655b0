"""Benchmark the batch simulator: games/s, player-turns/s and peak memory.

    .venv/bin/python benchmarks/bench_sim.py            # all three measurements
    .venv/bin/python benchmarks/bench_sim.py --quick    # smaller batches, for a quick look

Three measurements, each the median of --repeat runs (the machine is shared and noisy):
one worker; all cores; and 10,000 games end to end with the four frames. Four investor bots
(two Competitors, two Monopolists), default rules, the default round cap of 200. Peak memory is
the largest process's resident size (this process or the largest worker).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time

from amteach import simulate


def peak_mb() -> float:
    """Largest resident size so far among this process and its finished children (MB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def measure(games: int, workers: int, repeat: int) -> dict[str, float]:
    rates, turn_rates, seconds = [], [], []
    for run in range(repeat):
        started = time.perf_counter()
        result = simulate(games=games, workers=workers, seed=run, progress=False)
        elapsed = time.perf_counter() - started
        turns = int(result.games["turns"].sum())
        rates.append(games / elapsed)
        turn_rates.append(turns / elapsed)
        seconds.append(elapsed)
    return {
        "games/s": statistics.median(rates),
        "player-turns/s": statistics.median(turn_rates),
        "seconds": statistics.median(seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller batches")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per measurement (median reported)"
    )
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    small = 100 if args.quick else 400
    big = 1000 if args.quick else 10_000
    print(
        f"amteach simulator benchmark: {cores} cores, Python {sys.version.split()[0]}, median of {args.repeat} runs"
    )
    one = measure(small, 1, args.repeat)
    print(
        f"one worker   {small:>6} games: {one['games/s']:7.1f} games/s  {one['player-turns/s']:9,.0f} player-turns/s"
    )
    many = measure(2 * small, cores, args.repeat)
    print(
        f"{cores} workers    {2 * small:>6} games: {many['games/s']:7.1f} games/s  {many['player-turns/s']:9,.0f} player-turns/s"
        f"  ({many['games/s'] / one['games/s']:.2f}x one worker)"
    )
    end = measure(big, cores, 1 if not args.quick else args.repeat)
    print(
        f"end to end   {big:>6} games: {end['seconds']:7.1f} s  ({end['games/s']:.1f} games/s, frames included)"
    )
    print(f"peak memory (largest process): {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
