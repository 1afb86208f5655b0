"""Batches on a Dask cluster of separate processes: the speed-up of two workers over one, and
the overhead Dask adds to each task. One run, medians of `--repeats`:

    .venv/bin/python benchmarks/bench_dask.py [--games 10000] [--repeats 3] [--tasks 400]

- A `dask scheduler` and two `dask worker` processes (one thread each) start on loopback, as
  in tests/test_dask.py. A batch's chunks (what `simulate(client=...)` maps) are played on one
  worker, then on both, and in this process, taking turns `--repeats` times so that the
  machine's other load falls on each alike; the speed-up is the median of the paired ratios.
  `simulate` on the cluster is checked to give this process's frames.
- Overhead per task: `--tasks` tasks that each play one game, on the cluster of one worker,
  against the same games played one by one in this process: (cluster - here) / tasks. And
  `--tasks` tasks that do nothing, for the floor.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import pandas as pd
from test_dask import DaskCluster

from amteach.sim import core, simulate
from amteach.sim.play import BatchConfig, run_chunk
from amteach.sim.runner import parse_seats


def nothing(i: int) -> int:
    return i


def play_on(client, workers: list[str], chunks: list[tuple[int, int]], config) -> float:
    """Seconds to play `chunks` on the cluster's `workers` only (what simulate maps)."""
    started = time.perf_counter()
    client.gather(
        client.map(
            run_chunk,
            [a for a, _ in chunks],
            [b for _, b in chunks],
            [config] * len(chunks),
            pure=False,
            workers=workers,
            allow_other_workers=False,
        )
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tasks", type=int, default=400)
    args = parser.parse_args()
    from distributed import Client

    print(
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {core.core_name()} "
        f"core; {args.games:,} games a batch in chunks of 100, median of {args.repeats}, "
        "the settings taking turns"
    )
    config = BatchConfig(parse_seats(None), _rules(), 1, record_rounds=False)
    chunks = [(a, min(a + 100, args.games)) for a in range(0, args.games, 100)]
    times: dict[str, list[float]] = {"here": [], "one": [], "two": []}
    with tempfile.TemporaryDirectory() as folder:
        cluster = DaskCluster(Path(folder))
        try:
            cluster.start_scheduler()
            cluster.start_worker("worker-1")
            cluster.start_worker("worker-2")
            with Client(cluster.address) as client:
                client.wait_for_workers(2)
                addresses = sorted(client.scheduler_info()["workers"])
                # the same frames on the cluster as here (simulate's own Dask path)
                batch = {"games": 400, "seed": 1, "progress": False}
                on_dask = simulate(client=client, **batch)
                here = simulate(workers=1, **batch)
                for table in ("games", "players", "rounds"):
                    pd.testing.assert_frame_equal(getattr(on_dask, table), getattr(here, table))
                play_on(client, addresses, chunks[:4], config)  # warm both workers
                for _ in range(args.repeats):
                    started = time.perf_counter()
                    for a, b in chunks:
                        run_chunk(a, b, config)
                    times["here"].append(time.perf_counter() - started)
                    times["one"].append(play_on(client, addresses[:1], chunks, config))
                    times["two"].append(play_on(client, addresses, chunks, config))
                # overhead per task, on one worker: one game a task, against one game at a
                # time here; and a task that does nothing
                started = time.perf_counter()
                for i in range(args.tasks):
                    run_chunk(i, i + 1, config)
                in_process = time.perf_counter() - started
                one_game = [(i, i + 1) for i in range(args.tasks)]
                on_cluster = play_on(client, addresses[:1], one_game, config)
                started = time.perf_counter()
                client.gather(
                    client.map(nothing, range(args.tasks), pure=False, workers=addresses[:1])
                )
                empty = time.perf_counter() - started
        finally:
            cluster.stop()
    median = {k: statistics.median(v) for k, v in times.items()}
    ratios = [one / two for one, two in zip(times["one"], times["two"], strict=True)]
    print("| where | seconds (median) | games per second |")
    print("|---|---|---|")
    for name, key in (
        ("this process", "here"),
        ("Dask, 1 worker", "one"),
        ("Dask, 2 workers", "two"),
    ):
        print(f"| {name} | {median[key]:.2f} | {args.games / median[key]:,.0f} |")
    print(
        f"Speed-up of 2 workers over 1: {statistics.median(ratios):.2f} (median of the "
        f"{len(ratios)} paired runs; each: {', '.join(f'{r:.2f}' for r in ratios)})"
    )
    print(
        f"Overhead per task on Dask (one worker, {args.tasks} tasks of one game each): "
        f"{1000 * (on_cluster - in_process) / args.tasks:.1f} ms "
        f"({1000 * on_cluster / args.tasks:.1f} ms a task there, "
        f"{1000 * in_process / args.tasks:.1f} ms a game here); an empty task: "
        f"{1000 * empty / args.tasks:.1f} ms"
    )


def _rules() -> dict:
    from amteach.sim.runner import DEFAULT_ROUND_CAP, batch_rules

    return batch_rules("default", {}, DEFAULT_ROUND_CAP).to_dict()


if __name__ == "__main__":
    main()
