"""What the wheel's Limited API (abi3) build costs in batch speed, against a build for this
Python only (issue 41; docs/development.md, "Packages"):

    .venv/bin/python benchmarks/bench_abi3.py [--games 20000] [--repeats 3]

Two copies of this checkout's tracked files are built in a temporary folder, one with
`AMTEACH_LIMITED_API=1` (core.abi3.so, as in the wheel) and one with `=0`
(core.cpython-3XY-*.so), both stripped as setup.py builds them. Each then plays the same batch
in a fresh process, `simulate(games, workers=1)` with its frames, the two taking turns
`--repeats` times so that the machine's other load falls on each alike. Printed: wall-clock
and CPU seconds (the process's own user time, which a shared machine's load inflates less)
per run, their medians, and the abi3 build's speed as a share of the other's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PLAY = (
    "import json, resource, time; from amteach.sim import simulate, core_name; "
    "t = time.perf_counter(); r = simulate(games={games}, workers=1, seed=3, progress=False); "
    "print(json.dumps([core_name(), time.perf_counter() - t, "
    "resource.getrusage(resource.RUSAGE_SELF).ru_utime, len(r.games)]))"
)


def build(folder: Path, limited: bool) -> None:
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=REPO, capture_output=True, check=True)
    folder.mkdir()
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    env = {**os.environ, "AMTEACH_LIMITED_API": "1" if limited else "0"}
    subprocess.run(
        [sys.executable, "setup.py", "--quiet", "build_ext", "--inplace"],
        cwd=folder,
        env=env,
        check=True,
        capture_output=True,
    )
    suffix = ".abi3.so" if limited else ".cpython-"
    assert any(suffix in p.name for p in (folder / "amteach" / "sim").glob("kernel*.so"))


def play(folder: Path, games: int) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": str(folder)}
    out = subprocess.run(
        [sys.executable, "-c", PLAY.format(games=games)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    core, wall, cpu, played = json.loads(out.strip().splitlines()[-1])
    assert core == "compiled" and played == games, (core, played)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    times: dict[str, list[tuple[float, float]]] = {"abi3": [], "this Python": []}
    with tempfile.TemporaryDirectory() as tmp:
        folders = {"abi3": Path(tmp) / "abi3", "this Python": Path(tmp) / "version"}
        for name, folder in folders.items():
            build(folder, limited=name == "abi3")
        for _ in range(args.repeats):
            for name, folder in folders.items():
                times[name].append(play(folder, args.games))
                wall, cpu = times[name][-1]
                print(f"{name}: {wall:.2f} s wall, {cpu:.2f} s CPU; load {os.getloadavg()[0]:.1f}")
    print(f"{os.cpu_count()} cores; {args.games:,} games on one worker, median of {args.repeats}")
    medians = {
        name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
        for name, runs in times.items()
    }
    for name, (wall, cpu) in medians.items():
        print(f"| {name} | {wall:.2f} s wall | {cpu:.2f} s CPU |")
    abi3, other = medians["abi3"], medians["this Python"]
    print(
        f"abi3's speed as a share of this Python's build: {other[1] / abi3[1]:.0%} by CPU time, "
        f"{other[0] / abi3[0]:.0%} by wall clock"
    )


if __name__ == "__main__":
    main()
