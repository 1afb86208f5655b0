"""How fast the instructor's Pause, Resume and Time is up reach every student's phone (issue
22: within 1 s). The server's side of class play (`amteach.rooms.hub.Hub`) runs as under
`amteach dashboard`: on a thread of its own, ticking every 0.1 s and at once when its watcher
hears the class database change. The students are phones of that hub (8 tables of 4 by
default); the instructor, another process's connection, pauses and resumes a few times, then
ends the time; each phone notes when the status line it is sent first says so. Reports, from
one run, the delay from the instructor's write to each phone's status (p50, p95, max) and how
many phones missed one.

    .venv/bin/python benchmarks/bench_class_news.py                  # 8 tables x 4 students
    .venv/bin/python benchmarks/bench_class_news.py --tables 2 --students 3 --rounds 3

The last hop, from the server to the browser over the phone's websocket, is not included
(benchmarks/bench_load.py measures whole clicks over websockets; the browser tests show the
same states on real pages).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from amteach.rooms import RoomSettings, open_rooms
from amteach.rooms.hub import Hub, Phone, PhoneLimits

TICK_SECONDS = 0.1  # as amteach.serving.phones.TICK_SECONDS


def state_of(status: str) -> str:
    if "Time is up" in status:
        return "Time is up"
    return "Paused" if "Paused" in status else "playing"


class Watcher:
    """One phone's status line over time: (state, when) at each change."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.changes: list[tuple[str, float]] = []
        self.last: str | None = None

    def deliver(self, text: str) -> None:
        message = json.loads(text)
        status = message.get("parts", {}).get("status") if message["type"] == "view" else None
        if status and "Table " in status:  # a table's view, not the lobby's
            state = state_of(status)
            if state != self.last:
                self.last = state
                self.changes.append((state, time.time()))


def run(tables: int, students: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = str(Path(folder) / "class.sqlite")
        instructor = open_rooms(url)
        code = instructor.create(
            RoomSettings(tables=tables, seats=students, ending="two-hour", minutes=60)
        )
        limits = PhoneLimits(joins_per_address=10_000)
        hub = Hub(open_rooms(url), limits)  # the server's own connection
        watchers = []
        for i in range(tables * students):
            watcher = Watcher(f"S{i}")
            phone = Phone(f"bench-device-{i:06d}", "127.0.0.1", watcher.deliver)
            hub.connect(phone)
            hub.receive(phone, {"type": "join", "room": code, "name": watcher.name})
            assert phone.seat is not None, watcher.name
            watchers.append(watcher)
        stop = threading.Event()
        woken = threading.Event()
        hub.heard = lambda news, heard=hub.heard: (heard(news), woken.set())  # wake at once

        def serve() -> None:
            while not stop.is_set():
                woken.wait(TICK_SECONDS)
                woken.clear()
                hub.tick()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        instructor.start(code)
        delays: list[float] = []
        missed = 0

        def wait_for(state: str, since: float) -> None:
            nonlocal missed
            deadline = time.time() + 10
            while time.time() < deadline:
                if all(any(s == state and at >= since for s, at in w.changes) for w in watchers):
                    break
                time.sleep(0.01)
            for watcher in watchers:
                seen = [at for s, at in watcher.changes if s == state and at >= since]
                if seen:
                    delays.append(1000 * (seen[0] - since))
                else:
                    missed += 1

        wait_for("playing", 0)  # every phone has its table
        delays.clear()
        for _ in range(rounds):
            moment = time.time()
            instructor.pause(code)
            wait_for("Paused", moment)
            moment = time.time()
            instructor.resume(code)
            wait_for("playing", moment)
        moment = time.time()
        instructor.time_is_up(code)
        wait_for("Time is up", moment)
        stop.set()
        thread.join(timeout=10)
        hub.close()
        delays.sort()
        p95 = delays[int(0.95 * (len(delays) - 1))] if delays else float("nan")
        print(f"{tables} tables x {students} students, {rounds} pauses and resumes, then time up")
        print(
            f"instructor's write to each phone's status ({len(delays)} phone updates): "
            f"p50 {statistics.median(delays):.0f} ms, p95 {p95:.0f} ms, max {delays[-1]:.0f} ms; "
            f"missed: {missed}; load {os.getloadavg()[0]:.1f}"
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
