"""Rerun the full best-play searches shipped with amteach, and time them; and finish a run
for shipping.

    .venv/bin/python benchmarks/bench_best_play.py              # both presets, as shipped
    .venv/bin/python benchmarks/bench_best_play.py --preset default --budget 5
    .venv/bin/python benchmarks/bench_best_play.py --length two-hour
    .venv/bin/python benchmarks/bench_best_play.py finish RUN --length two-hour [--check 6]
    .venv/bin/python benchmarks/bench_best_play.py second-seed edition-2005 two-hour
    .venv/bin/python benchmarks/bench_best_play.py check edition-2005 round-200 --minutes 8
    .venv/bin/python benchmarks/bench_best_play.py team-gain edition-2005 two-hour
    .venv/bin/python benchmarks/bench_best_play.py ship-team RUN --folder round-200-team-play
    .venv/bin/python benchmarks/bench_best_play.py quick --set foundation_monopolist_fee=160
    .venv/bin/python benchmarks/bench_best_play.py quick --scaling       # 1 worker against 2

`quick` times the policy lab (`amteach best-play --set ... --length two-hour`, the quick
search) as a user runs it, process start included: the median of 3 wall-clock times, with the
machine's load before and after, the games played and the games a second. With --scaling it
runs the same command (with --budget 10, so that every run plays the same games) on 1 and on 2
worker processes, and on a Dask LocalCluster of 1 and of 2 workers (`--dask ADDRESS`), and
prints the per-task cost that docs/analysis.md's model for 16 workers reads.

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
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from amteach.analysis import stats
from amteach.analysis.best_play_reading import reading_best_play, strategy_words
from amteach.analysis.best_play_results import (
    SHIPPED_LENGTHS,
    SHIPPED_PRESETS,
    BestPlayResult,
    shipped,
)
from amteach.analysis.best_play_search import best_response_check, by_length, compare_runs, masters
from amteach.analysis.outcomes import CHART_ROUNDS, LENGTH_ASSUMPTIONS, LENGTHS_BY_KEY, time_is_up
from amteach.cli import recorded_command

PACKAGE_RUNS = Path(__file__).resolve().parents[1] / "amteach" / "data" / "best_play"


def full_args(args: list[str]) -> list[str]:
    """A shipped run's recorded arguments as the command takes them now: the full search is
    behind --full (a run recorded before the quick search became the default has none)."""
    return args if "--full" in args else [args[0], "--full", *args[1:]]


def rerun(
    preset: str, out: Path, budget: float | None, length: str = "round-200"
) -> BestPlayResult:
    """Run the shipped run's own command again (its budget replaced if asked), into `out`."""
    args = full_args(shlex.split(shipped(preset, length).summary["command"])[1:])
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


def shipped_folder(preset: str, length: str, into: Path = PACKAGE_RUNS) -> Path:
    """Where a shipped run lives in the source tree (the folder `best_play_results.shipped` reads)."""
    folder = into / preset / length
    if not (folder / "summary.json").is_file():
        raise SystemExit(f"{folder} holds no shipped run")
    return folder


def plain(value: object) -> object:
    """numpy's numbers as JSON numbers."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON")


def write_summary_key(folder: Path, key: str, value: object) -> None:
    """Add one key to a shipped run's summary.json and leave every other file as it was; refuse
    to write a path of this machine."""
    path = folder / "summary.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    summary[key] = value
    text = json.dumps(summary, indent=1, default=plain)
    for name in ("/tmp", "/work", "/home"):
        if name in json.dumps(value, default=plain):
            raise SystemExit(f"{path}: {key} names a path ({name}); nothing written")
    path.write_text(text, encoding="utf-8")
    print(f"wrote {key} into {path}", flush=True)


def second_seed(
    preset: str,
    length: str,
    games: int,
    workers: int,
    out: Path | None = None,
    into: Path = PACKAGE_RUNS,
    done: Path | None = None,
) -> dict[str, object]:
    """Search again from the shipped run's seed + 1 with its own command, compare the two
    equilibria (`best_play_search.compare_runs`, `games` fresh games a pairing) and write the result
    into the shipped summary.json as `second_seed`, as the default two-hour run has it. `done`:
    a second search already run with that command (for example beside the first, to save
    time), compared instead of searching again."""
    folder = shipped_folder(preset, length, into)
    first = BestPlayResult.load(folder)
    args = full_args(shlex.split(first.summary["command"])[1:])
    seed = int(first.summary["seed"]) + 1
    args[args.index("--seed") + 1] = str(seed)
    if done is None:
        scratch = out or Path(tempfile.mkdtemp(prefix="amteach-second-seed-"))
        command = [sys.executable, "-m", "amteach.cli", *args, "--out", str(scratch), "--force"]
        print("$", " ".join(shlex.quote(a) for a in command), flush=True)
        began = time.perf_counter()
        subprocess.run(command, check=True)
        search_seconds = time.perf_counter() - began
    else:
        scratch = done
        ran = full_args(shlex.split(BestPlayResult.load(done).summary["command"])[1:])
        if recorded_command(ran) != recorded_command(args):
            raise SystemExit(
                f"{done} ran {recorded_command(ran)!r}, not {recorded_command(args)!r}"
            )
        search_seconds = float(BestPlayResult.load(done).summary["elapsed_seconds"])
    second = BestPlayResult.load(scratch)
    if second.summary.get("interrupted"):
        raise SystemExit(f"the second search in {scratch} was interrupted; nothing written")
    compare_seed = masters(int(first.summary["seed"]) + 2000)["final"]  # games neither saw
    began = time.perf_counter()
    out_ = compare_runs(first, second, games=games, seed=compare_seed, workers=workers)
    compare_seconds = time.perf_counter() - began
    out_.update(
        compare_seed=int(compare_seed),
        second_command=recorded_command(args),
        second_strategies={role: second.best(role).text() for role in ("competitor", "monopolist")},
        second_equilibrium=second.summary["equilibrium"],
        second_converged=bool(second.summary["converged"]),
        second_elapsed_seconds=round(search_seconds, 1),
        compare_elapsed_seconds=round(compare_seconds, 1),
    )
    write_summary_key(folder, "second_seed", out_)
    print(
        f"{preset} {length}: search {search_seconds:.0f} s, compare {compare_seconds:.0f} s; "
        f"Monopolists {100 * out_['monopolist_rates'][0]:.1f}% then "  # type: ignore[index]
        f"{100 * out_['monopolist_rates'][1]:.1f}%",  # type: ignore[index]
        flush=True,
    )
    return out_


def team_gain(
    preset: str, length: str, games: int, workers: int, into: Path = PACKAGE_RUNS
) -> dict[str, object]:
    """Team play against a shipped equilibrium: the Monopolists' strategy with the team knob
    on (`team=sell`) and off (`team=no`), against the found Competitors, on the same `games` fresh
    games (master seed `masters(seed + 3000)["final"]`, games the search never saw); the
    Monopolists' gain with Newcombe's interval, written into summary.json as `team_play_gain`."""
    from amteach.analysis.best_play_results import family_name
    from amteach.analysis.best_play_search import Match, MatchRunner
    from amteach.engine.rules import RuleSet

    folder = shipped_folder(preset, length, into)
    result = BestPlayResult.load(folder)
    summary = result.summary
    seed = masters(int(summary["seed"]) + 3000)["final"]
    rules = RuleSet.preset(preset, round_cap=int(summary["round_cap"]))
    competitor = family_name(result.best("competitor"))
    found = result.best("monopolist")
    with MatchRunner(rules, workers) as runner:
        without, with_team = runner.play(
            [
                Match(competitor, family_name(params), seed, games)
                for params in (found.changed(team=0), found.changed(team=1))
            ]
        )
    change = stats.compare_batches(without.monopolist_wins, games, with_team.monopolist_wins, games)
    row = {
        "games": games,
        "seed": int(seed),
        "without": without.rate("monopolist"),
        "with_team_play": with_team.rate("monopolist"),
        "gain": change.difference,
        "ci_low": change.low,
        "ci_high": change.high,
    }
    write_summary_key(folder, "team_play_gain", row)
    return row


def check_shipped(
    preset: str,
    length: str,
    minutes: float,
    games: int,
    workers: int,
    into: Path = PACKAGE_RUNS,
) -> dict[str, object]:
    """Run the best-response check (`best_play_search.best_response_check`, as `finish` does it: twice
    the search's games a candidate, fresh seeds) on a shipped run and write it into its
    summary.json as `approximation`; the search itself is left as shipped."""
    folder = shipped_folder(preset, length, into)
    result = BestPlayResult.load(folder)
    summary = result.summary
    print(f"{preset} {length}: best-response check, {minutes:g} minutes", flush=True)
    check = best_response_check(
        result,
        games_per_candidate=2 * int(summary["games_per_candidate"]),
        budget_minutes=minutes,
        seed=int(summary["seed"]) + 1000,
        check_games=games,
        workers=workers,
    )
    write_summary_key(folder, "approximation", check)
    print(f"{preset} {length}: check took {check['elapsed_seconds']} s", flush=True)
    return check


def ship_team(run: Path, folder: str, into: Path = PACKAGE_RUNS) -> Path:
    """Copy a finished team-play search (`amteach best-play ... --team-play`) into the shipped
    runs as amteach/data/best_play/<preset>/<folder>, its command recorded without --out; a
    run that was interrupted, or that names a path of this machine, is refused."""
    result = BestPlayResult.load(run)
    summary = result.summary
    if summary.get("interrupted"):
        raise SystemExit(f"{run} was interrupted; only a finished search is shipped")
    if "--team-play" not in summary["command"]:
        raise SystemExit(f"{run} is not a team-play search (no --team-play in its command)")
    summary["command"] = recorded_command(shlex.split(summary["command"])[1:])
    for name in ("/tmp", "/work", "/home"):
        if name in json.dumps(summary, default=plain):
            raise SystemExit(f"{run}: summary.json names a path ({name}); nothing shipped")
    target = result.save(into / summary["preset"] / folder, force=True)
    print(f"shipped: {target}")
    return target


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f} (5-min {five:.2f}) on {os.cpu_count()} cores"


def quick_once(settings: list[str], extra: list[str]) -> tuple[float, dict[str, object]]:
    """One quick run as a user types it (a new process, imports and worker start included):
    its wall-clock seconds and its summary."""
    with tempfile.TemporaryDirectory(prefix="amteach-quick-") as scratch:
        command = [sys.executable, "-m", "amteach.cli", "best-play", *settings, *extra]
        command += ["--quiet", "--out", scratch]
        began = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - began
        summary = json.loads((Path(scratch) / "summary.json").read_text(encoding="utf-8"))
    return seconds, summary


def quick_median(settings: list[str], extra: list[str], repeats: int) -> dict[str, object]:
    """The median of `repeats` quick runs, with the load before and after each."""
    times, summary = [], {}
    for i in range(repeats):
        before = load()
        seconds, summary = quick_once(settings, extra)
        times.append(seconds)
        print(f"  run {i + 1}: {seconds:5.1f} s  ({before}; after: {load()})", flush=True)
    median = statistics.median(times)
    games = int(summary["games_played"])  # type: ignore[arg-type]
    print(
        f"  median {median:.1f} s of {repeats}; {games:,} games ({games / median:,.0f} a "
        f"second, process start included), {summary['candidates']} candidates, "
        f"{summary['phases']} checks, budget stopped: {summary['budget_stopped']}",
        flush=True,
    )
    return {"median": median, "games": games, "summary": summary}


def quick(settings: list[str], repeats: int, scaling: bool) -> None:
    print(f"amteach best-play {' '.join(settings)} (quick search)", flush=True)
    if not scaling:
        quick_median(settings, [], repeats)
        return
    from distributed import LocalCluster

    # the same work on every backend: a budget the search never reaches
    settings = [*settings, "--budget", "10"]
    rows = []
    for workers in (1, 2):
        print(f"{workers} worker process(es) here:", flush=True)
        rows.append(("here", workers, quick_median(settings, ["--workers", str(workers)], repeats)))
    for workers in (1, 2):
        with LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster:
            print(f"Dask LocalCluster of {workers} worker(s) at {cluster.scheduler_address}:")
            extra = ["--dask", cluster.scheduler_address]
            rows.append(("dask", workers, quick_median(settings, extra, repeats)))
    # the model's inputs (docs/analysis.md): T(W) = S + P / W, from the 1- and 2-worker
    # medians of each backend; P / tasks is the cost of one task (a chunk of games)
    for where in ("here", "dask"):
        (t1, row1), (t2, _) = [(r["median"], r) for w_, n, r in rows if w_ == where]
        parallel, serial = 2 * (t1 - t2), 2 * t2 - t1  # type: ignore[operator]
        tasks = int(row1["summary"].get("tasks", 0) or 0)  # type: ignore[union-attr]
        per_task = parallel / tasks if tasks else float("nan")
        print(
            f"{where}: 1 worker {t1:.1f} s, 2 workers {t2:.1f} s; model T(W) = {serial:.1f} s "
            f"+ {parallel:.1f} s / W ({tasks:,} tasks, {1000 * per_task:.1f} ms a task, "
            f"{row1['games']:,} games): T(16) = {serial + parallel / 16:.1f} s",
            flush=True,
        )


def main() -> None:
    if sys.argv[1:2] == ["quick"]:
        timing = argparse.ArgumentParser(description="time the quick search (the policy lab)")
        timing.add_argument("--set", dest="overrides", action="append", default=[])
        timing.add_argument("--length", default="two-hour")
        timing.add_argument("--rules", default="default")
        timing.add_argument("--repeats", type=int, default=3)
        timing.add_argument("--scaling", action="store_true")
        a = timing.parse_args(sys.argv[2:])
        settings = ["--rules", a.rules, "--length", a.length]
        for item in a.overrides or ["foundation_monopolist_fee=160"]:
            settings += ["--set", item]
        quick(settings, a.repeats, a.scaling)
        return
    if sys.argv[1:2] == ["ship-team"]:
        shipping = argparse.ArgumentParser(description="ship a finished team-play search")
        shipping.add_argument("run", type=Path)
        shipping.add_argument("--folder", required=True, help="e.g. round-200-team-play")
        a = shipping.parse_args(sys.argv[2:])
        ship_team(a.run, a.folder)
        return
    if sys.argv[1:2] == ["second-seed"]:
        again = argparse.ArgumentParser(description="a shipped run's search from a second seed")
        again.add_argument("preset", choices=SHIPPED_PRESETS)
        again.add_argument("length", choices=SHIPPED_LENGTHS)
        again.add_argument("--games", type=int, default=4000, help="fresh games a pairing")
        again.add_argument("--workers", type=int, default=1)
        again.add_argument("--out", type=Path, default=None, help="folder for the second run")
        again.add_argument(
            "--done", type=Path, default=None, help="a second search already run: compare it"
        )
        a = again.parse_args(sys.argv[2:])
        second_seed(a.preset, a.length, a.games, a.workers, a.out, done=a.done)
        return
    if sys.argv[1:2] == ["team-gain"]:
        team = argparse.ArgumentParser(description="team play against a shipped equilibrium")
        team.add_argument("preset", choices=SHIPPED_PRESETS)
        team.add_argument("length", choices=SHIPPED_LENGTHS)
        team.add_argument("--games", type=int, default=4000, help="fresh games, each way")
        team.add_argument("--workers", type=int, default=1)
        a = team.parse_args(sys.argv[2:])
        team_gain(a.preset, a.length, a.games, a.workers)
        return
    if sys.argv[1:2] == ["check"]:
        checking = argparse.ArgumentParser(description="best-response check of a shipped run")
        checking.add_argument("preset", choices=SHIPPED_PRESETS)
        checking.add_argument("length", choices=SHIPPED_LENGTHS)
        checking.add_argument("--minutes", type=float, default=6.0)
        checking.add_argument("--games", type=int, default=4000, help="fresh games a check")
        checking.add_argument("--workers", type=int, default=1)
        a = checking.parse_args(sys.argv[2:])
        check_shipped(a.preset, a.length, a.minutes, a.games, a.workers)
        return
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
