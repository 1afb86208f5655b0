"""How fast the instructor's Pause, Resume and Time is up reach every student's page (issue
22: within 1 s). Each simulated student is a process running what a student's kernel runs: a
StudentPage (its widgets, without a browser) whose Follower hears the class database change
and ticks the page at once. The instructor pauses and resumes a few times, then ends the time;
each student notes when its status line first says so. Reports, from one run, the delay from
the instructor's write to each page's status (p50, p95, max) and how many pages missed one.

    .venv/bin/python benchmarks/bench_class_news.py                  # 8 tables x 4 students
    .venv/bin/python benchmarks/bench_class_news.py --tables 2 --students 3 --rounds 3

The last hop, from a kernel to its browser over the websocket, is not included (the browser
test tests/test_class_browser.py shows the same states on real pages).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import tempfile
import time
from pathlib import Path

from amteach.rooms import RoomSettings, open_rooms
from amteach.ui.student import StudentPage

FORK = multiprocessing.get_context("fork")
EVENTS = ("Paused", "playing", "Time is up")


def status_of(page: StudentPage) -> str:
    text = str(page.status.value)
    if "Time is up" in text:
        return "Time is up"
    return "Paused" if "Paused" in text else "playing"


def student(url: str, code: str, name: str, ready, out, until: float) -> None:
    rooms = open_rooms(url)
    page = StudentPage(code, rooms)
    page.name.value = name
    assert page.join(), page.messages.widget.value
    ready.put(name)
    last = None
    while time.time() < until:
        page.follower.news.wait(0.5)  # the watcher's news (SQLite poll, PostgreSQL NOTIFY)
        page.tick()
        if page.table is None:
            continue
        now = status_of(page)
        if now != last:
            out.put((name, now, time.time()))
            last = now
    page.follower.stop()


def run(tables: int, students: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = str(Path(folder) / "class.sqlite")
        rooms = open_rooms(url)
        code = rooms.create(
            RoomSettings(tables=tables, seats=students, ending="two-hour", minutes=60)
        )
        ready, out = FORK.Queue(), FORK.Queue()
        count = tables * students
        until = time.time() + 60 + 10 * rounds
        processes = [
            FORK.Process(target=student, args=(url, code, f"S{i}", ready, out, until))
            for i in range(count)
        ]
        for process in processes:
            process.start()
        for _ in processes:
            ready.get(timeout=120)
        rooms.start(code)
        delays: list[float] = []
        missed = 0

        def wait_for(state: str, since: float) -> None:
            nonlocal missed
            seen: set[str] = set()
            deadline = time.time() + 10
            while len(seen) < count and time.time() < deadline:
                try:
                    name, now, at = out.get(timeout=max(0.01, deadline - time.time()))
                except Exception:
                    break
                if now == state and name not in seen and at >= since:
                    seen.add(name)
                    delays.append(1000 * (at - since))
            missed += count - len(seen)

        wait_for("playing", 0)  # every page has its table
        delays.clear()
        for _ in range(rounds):
            moment = time.time()
            rooms.pause(code)
            wait_for("Paused", moment)
            moment = time.time()
            rooms.resume(code)
            wait_for("playing", moment)
        moment = time.time()
        rooms.time_is_up(code)
        wait_for("Time is up", moment)
        for process in processes:
            process.terminate()
            process.join(timeout=30)
        delays.sort()
        p95 = delays[int(0.95 * (len(delays) - 1))] if delays else float("nan")
        print(f"{tables} tables x {students} students, {rounds} pauses and resumes, then time up")
        print(
            f"instructor's write to each page's status ({len(delays)} page updates): "
            f"p50 {statistics.median(delays):.0f} ms, p95 {p95:.0f} ms, max {delays[-1]:.0f} ms; "
            f"missed: {missed}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--students", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    run(args.tables, args.students, args.rounds)


if __name__ == "__main__":
    main()
