"""Batches on a Dask cluster of separate processes: the speed-up of two workers over one, and
the overhead Dask adds to each task. One run, medians of `--repeats`:

    .venv/bin/python benchmarks/bench_dask.py [--games 10000] [--repeats 3] [--tasks 400]

- A `dask scheduler` and one `dask worker` (one thread) start on loopback, as in
  tests/test_dask.py; `simulate(games, client=...)` is timed; a second worker joins and the
  same batch is timed again. For scale, the same batch in this process and on a local pool of
  two processes. Every run's frames are checked to be the same.
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


def timed(run, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def nothing(i: int) -> int:
    return i


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=400)
    args = parser.parse_args()
    from distributed import Client

    batch = {"games": args.games, "seed": 1, "progress": False, "record_rounds": False}
    print(
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {core.core_name()} "
        f"core; {args.games:,} games a batch, median of {args.repeats}"
    )
    here, local = timed(lambda: simulate(workers=1, **batch), args.repeats)
    pool, pooled = timed(lambda: simulate(workers=2, **batch), args.repeats)
    with tempfile.TemporaryDirectory() as folder:
        cluster = DaskCluster(Path(folder))
        try:
            cluster.start_scheduler()
            cluster.start_worker("worker-1")
            with Client(cluster.address) as client:
                one, on_one = timed(lambda: simulate(client=client, **batch), args.repeats)
                # overhead per task, on one worker
                config = BatchConfig(parse_seats(None), _rules(), 1, record_rounds=False)
                started = time.perf_counter()
                for i in range(args.tasks):
                    run_chunk(i, i + 1, config)
                in_process = time.perf_counter() - started
                started = time.perf_counter()
                client.gather(
                    client.map(
                        run_chunk,
                        range(args.tasks),
                        range(1, args.tasks + 1),
                        [config] * args.tasks,
                        pure=False,
                    )
                )
                on_cluster = time.perf_counter() - started
                started = time.perf_counter()
                client.gather(client.map(nothing, range(args.tasks), pure=False))
                empty = time.perf_counter() - started
                cluster.start_worker("worker-2")
                client.wait_for_workers(2)
                two, on_two = timed(lambda: simulate(client=client, **batch), args.repeats)
        finally:
            cluster.stop()
    for result in (pooled, on_one, on_two):
        for table in ("games", "players"):
            pd.testing.assert_frame_equal(getattr(result, table), getattr(local, table))
    rate = args.games
    print("| where | seconds | games per second | speed-up over one Dask worker |")
    print("|---|---|---|---|")
    for name, seconds in (
        ("this process", here),
        ("local pool, 2 processes", pool),
        ("Dask, 1 worker", one),
        ("Dask, 2 workers", two),
    ):
        print(f"| {name} | {seconds:.2f} | {rate / seconds:,.0f} | {one / seconds:.2f} |")
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
