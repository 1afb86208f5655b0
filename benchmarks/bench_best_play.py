"""Rerun the full best-play searches shipped with amteach, and time them; and finish a run
for shipping.

    .venv/bin/python benchmarks/bench_best_play.py              # both presets, as shipped
    .venv/bin/python benchmarks/bench_best_play.py --preset default --budget 5
    .venv/bin/python benchmarks/bench_best_play.py --length two-hour
    .venv/bin/python benchmarks/bench_best_play.py finish RUN --length two-hour [--check 6]

The shipped runs (amteach/data/best_play/<preset>/<length>/) were made with `amteach
best-play ... --round-cap N --workers 1` under `nice -n 19` (each summary.json records the
command), then finished with `finish`: it plays the run's strategies at every length of the
by-length chart (`summary["by_length"]`), runs the best-response check that measures how
approximate the equilibrium is (`summary["approximation"]`), drops any path of the machine
that made it, and copies the run into amteach/data/best_play/<preset>/<length>/.

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
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from amteach.analysis import stats
from amteach.analysis.best_play_reading import reading_best_play, strategy_words
from amteach.analysis.best_play_results import (
    SHIPPED_LENGTHS,
    SHIPPED_PRESETS,
    BestPlayResult,
    shipped,
)
from amteach.analysis.best_play_search import best_response_check, by_length, masters
from amteach.analysis.outcomes import CHART_ROUNDS, LENGTH_ASSUMPTIONS, LENGTHS_BY_KEY, time_is_up
from amteach.cli import recorded_command

PACKAGE_RUNS = Path(__file__).resolve().parents[1] / "amteach" / "data" / "best_play"


def rerun(
    preset: str, out: Path, budget: float | None, length: str = "round-200"
) -> BestPlayResult:
    """Run the shipped run's own command again (its budget replaced if asked), into `out`."""
    args = shlex.split(shipped(preset, length).summary["command"])[1:]
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


def finish(
    run: Path,
    length: str,
    check_minutes: float,
    games: int,
    workers: int,
    into: Path = PACKAGE_RUNS,
) -> Path:
    """Add the by-length figures and the best-response check to a run, drop machine paths,
    and copy it into the package's shipped runs (see the module's docstring)."""
    result = BestPlayResult.load(run)
    summary = result.summary
    if summary["round_cap"] != LENGTHS_BY_KEY[length].rounds:
        raise SystemExit(
            f"{run} was played to round {summary['round_cap']}, not {length}'s "
            f"{LENGTHS_BY_KEY[length].rounds}"
        )
    summary["command"] = recorded_command(shlex.split(summary["command"])[1:])
    summary["length"] = length
    summary["game_length"] = time_is_up(summary["round_cap"])
    summary["length_assumptions"] = LENGTH_ASSUMPTIONS
    seed = int(summary["seed"]) + 1000  # fresh games the search never saw
    fresh = masters(seed)
    print(f"{run}: by length", flush=True)
    summary["by_length"] = by_length(result, CHART_ROUNDS, games, fresh["final"], workers)
    if check_minutes > 0:
        print(f"{run}: best-response check, {check_minutes:g} minutes", flush=True)
        summary["approximation"] = best_response_check(
            result,
            games_per_candidate=2 * int(summary["games_per_candidate"]),
            budget_minutes=check_minutes,
            seed=seed,
            check_games=games,
            workers=workers,
        )
    for role in ("competitor", "monopolist"):  # every knob written, words within the rules
        params = result.best(role)
        result.strategies[role].update(
            text=params.text(),
            knobs=params.as_dict(),
            words=strategy_words(params, role, summary["preset"]),
        )
    if summary.get("equilibrium"):
        summary["reading"] = reading_best_play(result)
    target = into / summary["preset"] / length
    result.save(target, force=True)
    text = json.dumps(summary)
    for name in ("/tmp", "/work", "/home"):
        if name in text:
            raise SystemExit(f"{target}/summary.json still names a path ({name})")
    print(f"finished: {target}")
    return target


def main() -> None:
    if sys.argv[1:2] == ["finish"]:
        finishing = argparse.ArgumentParser(description="finish a best-play run for shipping")
        finishing.add_argument("run", type=Path)
        finishing.add_argument("--length", choices=SHIPPED_LENGTHS, required=True)
        finishing.add_argument("--check", type=float, default=6.0, help="minutes, 0 for none")
        finishing.add_argument("--games", type=int, default=4000, help="fresh games a length")
        finishing.add_argument("--workers", type=int, default=1)
        finishing.add_argument("--into", type=Path, default=PACKAGE_RUNS, help="shipped runs")
        a = finishing.parse_args(sys.argv[2:])
        finish(a.run, a.length, a.check, a.games, a.workers, a.into)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=SHIPPED_PRESETS, action="append")
    parser.add_argument(
        "--budget", type=float, default=None, help="minutes, instead of the shipped run's"
    )
    parser.add_argument("--out", type=Path, default=None, help="folder for the reruns")
    parser.add_argument("--length", choices=SHIPPED_LENGTHS, default="round-200")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="amteach-best-play-"))
    for preset in args.preset or SHIPPED_PRESETS:
        old = shipped(preset, args.length)
        new = rerun(preset, out / preset, args.budget, args.length)
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
