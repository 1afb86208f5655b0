"""Batches on a Dask cluster of separate processes: two Dask workers against one local process,
and the cost Dask adds to each task. One run, medians of `--repeats`:

    .venv/bin/python benchmarks/bench_dask.py [--games 10000] [--repeats 3]

- A `dask scheduler` and two `dask worker` processes (one thread each) start on loopback, as
  in tests/test_dask.py. `simulate` on the cluster is checked to give this process's frames.
- End to end (issue 41's figure): `simulate(games, workers=1)` (one local process, the chunks
  of 100 played here) against `simulate(games, client=client)` (the cluster's chunks,
  `amteach.sim.cluster.DASK_CHUNKING`, on both workers), frames built in both; the two take
  turns `--repeats` times, so the machine's other load falls on each alike, and the speed-up
  is the median of the paired ratios.
- The same chunks (without frames) on one worker, then on both: the cluster's own scaling.
- Cost per task: the batch's chunks on the cluster of one worker against the same chunks
  played here, (cluster - here) / tasks, and as a share of a task's time here; and `--tasks`
  tasks that do nothing, for the floor.
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
from amteach.sim.cluster import DASK_CHUNKING
from amteach.sim.play import BatchConfig, run_chunk
from amteach.sim.pool import chunks
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
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=200)
    args = parser.parse_args()
    from distributed import Client

    parts = chunks(args.games, 2, DASK_CHUNKING.per_worker, DASK_CHUNKING.most, DASK_CHUNKING.least)
    print(
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {core.core_name()} "
        f"core; {args.games:,} games a batch, on Dask in {len(parts)} tasks of "
        f"{parts[0][1] - parts[0][0]:,} games; median of {args.repeats}, the settings taking turns"
    )
    config = BatchConfig(parse_seats(None), _rules(), 1, record_rounds=False)
    times: dict[str, list[float]] = {k: [] for k in ("local", "dask", "here", "one", "two")}
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
                batch = {"games": 1200, "seed": 1, "progress": False}
                on_dask = simulate(client=client, **batch)
                here = simulate(workers=1, **batch)
                for table in ("games", "players", "rounds", "taxes"):
                    pd.testing.assert_frame_equal(getattr(on_dask, table), getattr(here, table))
                play_on(client, addresses, parts[:2], config)  # warm both workers
                batch = {"games": args.games, "seed": 1, "progress": False}
                for _ in range(args.repeats):
                    started = time.perf_counter()
                    simulate(workers=1, **batch)
                    times["local"].append(time.perf_counter() - started)
                    started = time.perf_counter()
                    simulate(client=client, **batch)
                    times["dask"].append(time.perf_counter() - started)
                    started = time.perf_counter()
                    for a, b in parts:
                        run_chunk(a, b, config)
                    times["here"].append(time.perf_counter() - started)
                    times["one"].append(play_on(client, addresses[:1], parts, config))
                    times["two"].append(play_on(client, addresses, parts, config))
                started = time.perf_counter()
                client.gather(
                    client.map(nothing, range(args.tasks), pure=False, workers=addresses[:1])
                )
                empty = time.perf_counter() - started
        finally:
            cluster.stop()
    median = {k: statistics.median(v) for k, v in times.items()}
    print("| where | seconds (median) | games per second |")
    print("|---|---|---|")
    for name, key in (
        ("simulate, 1 local process (frames built)", "local"),
        ("simulate on Dask, 2 workers (frames built)", "dask"),
        ("the Dask chunks, played in this process", "here"),
        ("the Dask chunks, Dask 1 worker", "one"),
        ("the Dask chunks, Dask 2 workers", "two"),
    ):
        print(f"| {name} | {median[key]:.2f} | {args.games / median[key]:,.0f} |")
    paired = [a / b for a, b in zip(times["local"], times["dask"], strict=True)]
    print(
        f"Speed-up of simulate on 2 Dask workers over 1 local process: "
        f"{statistics.median(paired):.2f} (median of {len(paired)} paired runs: "
        f"{', '.join(f'{r:.2f}' for r in paired)})"
    )
    scaling = [a / b for a, b in zip(times["one"], times["two"], strict=True)]
    print(f"Dask 2 workers over 1 (same chunks): {statistics.median(scaling):.2f}")
    cost = (median["one"] - median["here"]) / len(parts)
    task = median["here"] / len(parts)
    print(
        f"Cost per task on Dask: {1000 * cost:.1f} ms, {100 * cost / task:.1f}% of a task "
        f"({1000 * task:.0f} ms here); an empty task: {1000 * empty / args.tasks:.1f} ms"
    )


def _rules() -> dict:
    from amteach.sim.runner import DEFAULT_ROUND_CAP, batch_rules

    return batch_rules("default", {}, DEFAULT_ROUND_CAP).to_dict()


if __name__ == "__main__":
    main()
