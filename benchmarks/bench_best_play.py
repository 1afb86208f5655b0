"""Rerun the full best-play searches shipped with amteach, and time them.

    .venv/bin/python benchmarks/bench_best_play.py              # both presets, as shipped
    .venv/bin/python benchmarks/bench_best_play.py --preset default --budget 5

Each run is the command recorded in the shipped run's summary.json (games per candidate,
budget, seed, preset), written to a folder of its own (--out, a temporary folder by default).
It prints, for the shipped run and the rerun side by side: the Monopolists' win rate under the
strongest strategies found with its 95% interval, the share of games the round cap settled,
whether the search converged, how many candidates and games it played, and the games per
second. The two need not match: the search is bounded by its time budget, so a busier or
faster machine searches further or less far. Newcombe's interval for the difference of the
two Monopolists' rates says whether they differ by more than luck. To ship a rerun, copy its
folder over amteach/data/best_play/<preset>/.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from amteach.analysis import stats
from amteach.analysis.strategy import SHIPPED_PRESETS, BestPlayResult, shipped


def rerun(preset: str, out: Path, budget: float | None) -> BestPlayResult:
    """Run the shipped run's own command again (its budget replaced if asked), into `out`."""
    args = shlex.split(shipped(preset).summary["command"])[1:]
    if "--out" in args:
        at = args.index("--out")
        del args[at : at + 2]
    if budget is not None and "--budget" in args:
        args[args.index("--budget") + 1] = f"{budget:g}"
    args += ["--out", str(out), "--force"]
    command = [sys.executable, "-m", "amteach.cli", *args]
    print("$", " ".join(shlex.quote(a) for a in command), flush=True)
    subprocess.run(command, check=True)
    return BestPlayResult.load(out)


def line(name: str, run: BestPlayResult) -> str:
    s = run.summary
    m = s["equilibrium"]["monopolist"]
    rate = s["games_played"] / max(s["elapsed_seconds"], 1e-9)
    return (
        f"{name:<8} Monopolists {100 * m['rate']:5.1f}% [{100 * m['ci_low']:.1f}%, "
        f"{100 * m['ci_high']:.1f}%]  cap {100 * s['equilibrium']['round_cap_share']:4.1f}%  "
        f"converged {s['converged']!s:<5}  {s['candidates']:>5} candidates  "
        f"{s['games_played']:>9,} games in {s['elapsed_seconds']:6.0f} s ({rate:,.0f} games/s, "
        f"{s['core']} core)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=SHIPPED_PRESETS, action="append")
    parser.add_argument(
        "--budget", type=float, default=None, help="minutes, instead of the shipped run's"
    )
    parser.add_argument("--out", type=Path, default=None, help="folder for the reruns")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="amteach-best-play-"))
    for preset in args.preset or SHIPPED_PRESETS:
        old = shipped(preset)
        new = rerun(preset, out / preset, args.budget)
        print(f"\n{preset}:")
        print(line("shipped", old))
        print(line("rerun", new))
        a, b = old.summary["equilibrium"], new.summary["equilibrium"]
        change = stats.compare_batches(
            a["monopolist"]["wins"], a["games"], b["monopolist"]["wins"], b["games"]
        )
        print("  " + stats.difference_sentence("the Monopolists' win rate", change))
    print(f"\nThe reruns are in {out}")


if __name__ == "__main__":
    main()
