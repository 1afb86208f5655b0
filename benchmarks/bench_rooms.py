"""Class play under load: 6 tables x 5 simulated students (30 processes, each what a
student's kernel runs: a RoomTable and a Follower on the class database), each taking one
decision every 2 seconds when it is their turn. Reports, from one run:

- click-to-update: from the moment a student decides to the moment each other device of the
  table shows that decision (p50, p95, max), over every decision and every other device;
- the memory of the student processes (RSS, median and total) and the database's size.

    .venv/bin/python benchmarks/bench_rooms.py                 # SQLite, 60 s
    .venv/bin/python benchmarks/bench_rooms.py --postgresql    # a PostgreSQL server of its own
    .venv/bin/python benchmarks/bench_rooms.py --seconds 120 --tables 6 --students 5

Target (issue 17): p50 and p95 under 500 ms on SQLite on this machine (2 shared cores).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from amteach.bots import make_strategy
from amteach.rooms import Follower, RoomSettings, RoomTable, open_rooms

FORK = multiprocessing.get_context("fork")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def student(url: str, code: str, name: str, pace: float, until: float, out) -> None:
    rooms = open_rooms(url)
    seat = rooms.join(code, name)
    while rooms.info(code).status == "lobby":
        time.sleep(0.05)
    table = RoomTable(rooms, code, seat.table, seat)
    follower = Follower(rooms, code, [table])
    brain = make_strategy("investor", seed=seat.seat)
    seen = len(table.game.decisions)
    last_mine = 0.0
    clicks, updates = [], []
    while time.time() < until and not table.game.over:
        follower.news.wait(0.05)
        follower.tick()
        game = table.game
        now = time.time()
        for number in range(seen + 1, len(game.decisions) + 1):
            updates.append((seat.table, number, now))
        seen = len(game.decisions)
        if game.actor == seat.seat and not game.over and now - last_mine >= pace:
            number = len(game.decisions) + 1
            clicked = time.time()
            if table.decide(brain.choose(game, game.legal()), table.moment).ok:
                clicks.append((seat.table, number, clicked))
                last_mine = clicked
                seen = len(table.game.decisions)
    follower.stop()
    out.put((name, clicks, updates, rss_mb()))


def run(url: str, tables: int, students: int, seconds: float, pace: float) -> None:
    rooms = open_rooms(url)
    code = rooms.create(
        RoomSettings(tables=tables, seats=students, ending="two-hour", minutes=240, bot_delay=0.5)
    )
    out = FORK.Queue()
    until = time.time() + seconds + 20
    processes = [
        FORK.Process(target=student, args=(url, code, f"S{i}", pace, until, out))
        for i in range(tables * students)
    ]
    for process in processes:
        process.start()
    while len([s for s in rooms.seats(code) if s.name]) < len(processes):
        time.sleep(0.1)
    rooms.start(code)
    reports = [out.get(timeout=seconds + 120) for _ in processes]
    for process in processes:
        process.join(timeout=30)
    clicked = {(t, n): at for _, clicks, _, _ in reports for t, n, at in clicks}
    delays = [
        1000 * (seen - clicked[(t, n)])
        for _, _, updates, _ in reports
        for t, n, seen in updates
        if (t, n) in clicked
    ]
    decisions = sum(rooms.counts(code).values())
    memory = [r for *_, r in reports]
    delays.sort()
    print(f"database: {rooms.store.where}")
    print(f"{tables} tables x {students} students, {seconds:.0f} s, one decision per {pace} s each")
    print(f"decisions logged: {decisions} ({len(clicked)} by students, the rest by the timer/bots)")
    if delays:
        p95 = delays[int(0.95 * (len(delays) - 1))]
        print(
            f"click-to-update on the other devices ({len(delays)} updates): "
            f"p50 {statistics.median(delays):.0f} ms, p95 {p95:.0f} ms, max {delays[-1]:.0f} ms"
        )
    print(
        f"student process memory (RSS): median {statistics.median(memory):.0f} MB, "
        f"total {sum(memory):.0f} MB for {len(memory)} processes"
    )
    if url.endswith(".sqlite"):
        size = sum(
            Path(url + suffix).stat().st_size
            for suffix in ("", "-wal")
            if Path(url + suffix).exists()
        )
        print(f"SQLite file with its WAL: {size / 1e6:.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--students", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--pace", type=float, default=2.0, help="seconds between one's decisions")
    parser.add_argument(
        "--postgresql", action="store_true", help="start and use a PostgreSQL server"
    )
    args = parser.parse_args()
    if args.postgresql:
        from postgres import postgres_server

        with postgres_server() as url:
            run(url, args.tables, args.students, args.seconds, args.pace)
    else:
        with tempfile.TemporaryDirectory() as folder:
            run(
                str(Path(folder) / "class.sqlite"),
                args.tables,
                args.students,
                args.seconds,
                args.pace,
            )


if __name__ == "__main__":
    main()
