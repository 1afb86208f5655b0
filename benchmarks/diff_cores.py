"""The large differential run: the compiled and the pure-Python core on the same seeds.

    .venv/bin/python benchmarks/diff_cores.py [--games 2000] [--workers 2]

For every table of bots and tax behaviours the test suite plays (`tests/test_core.MIXES`), it
plays `--games` seeds on both cores (default rules, the default round cap of 200) and compares
every column of every frame. It prints one line per table and exits 1 if any column differs.
`tests/test_core.py` runs the same comparison on fewer seeds in every `./dev test`; this script
is the 2,000-seed version, too long for the suite (about 7 CPU-minutes).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_core import MIXES

from amteach import RuleSet
from amteach.sim import core
from amteach.sim.play import BatchConfig, compiled_chunk, python_chunk
from amteach.sim.runner import parse_seats


def compare(mix: str, games: int, seed: int) -> tuple[str, int, str]:
    rules = RuleSet.preset("default", round_cap=200)
    config = BatchConfig(parse_seats(MIXES[mix]), rules.to_dict(), seed)
    compiled = compiled_chunk(core.kernel(), 0, games, config, rules)
    pure = python_chunk(0, games, config, rules)
    for table, columns in pure.items():
        for column, values in columns.items():
            other = compiled[table][column]
            if other.dtype != values.dtype or not np.array_equal(other, values):
                return mix, games, f"{table}.{column} differs"
    turns = int(pure["games"]["turns"].sum())
    return mix, games, f"identical ({turns:,} player-turns)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    if core.kernel() is None:
        sys.exit("the compiled core is not built here: run ./dev test (or pip install .) first")
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(
            pool.map(compare, list(MIXES), [args.games] * len(MIXES), [args.seed] * len(MIXES))
        )
    failed = False
    for mix, games, verdict in results:
        print(f"{mix:<30} {games:>6} seeds: {verdict}")
        failed |= not verdict.startswith("identical")
    print(f"{time.perf_counter() - started:.0f} s")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
