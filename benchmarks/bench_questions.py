"""How fast a question the instructor asks reaches every student's phone, and how fast the
answers come back (issue 37). The server's side of class play (`amteach.rooms.hub.Hub`) runs
as under `amteach dashboard`: on a thread of its own, ticking every 0.1 s and at once when its
watcher hears the class database change. The students are phones of that hub (6 tables of 4
by default); the instructor, another connection (the Class tab's kernel is another process),
asks a question a few times; each phone notes when its `question` part first shows it, and
answers it at once. Reports the delay from the instructor's write to each phone (p50, p95,
max), how many phones missed one, and the time to take each answer (the hub's handling).

    .venv/bin/python benchmarks/bench_questions.py                 # 6 tables x 4 students
    .venv/bin/python benchmarks/bench_questions.py --tables 50 --students 6 --questions 3

The last hop, from the server to the browser over the phone's websocket, is not included
(tests/test_question_phones.py asserts it over real websockets: a median under 0.5 s).
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

from amteach.rooms import RoomSettings, new_key, open_rooms
from amteach.rooms import questions as asking
from amteach.rooms.hub import Hub, Phone, PhoneLimits

TICK_SECONDS = 0.1  # as amteach.serving.phones.TICK_SECONDS
QUESTION = asking.Question(
    "Which role will win more often?", options=("Competitors", "Monopolists")
)


class Watcher:
    """One phone: when it first showed each question (by number)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.shown: dict[int, float] = {}

    def deliver(self, text: str) -> None:
        message = json.loads(text)
        part = message.get("parts", {}).get("question", "") if message["type"] == "view" else ""
        for number in range(1, asking.MAX_QUESTIONS + 1):
            if f'data-question="{number}"' in part and number not in self.shown:
                self.shown[number] = time.time()


def percentile(values: list[float], share: float) -> float:
    return values[int(share * (len(values) - 1))] if values else float("nan")


def run(tables: int, students: int, questions: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = str(Path(folder) / "class.sqlite")
        instructor = open_rooms(url)
        key = new_key()
        code = instructor.create(RoomSettings(tables=tables, seats=students), key=key)
        hub = Hub(open_rooms(url), PhoneLimits(joins_per_address=10_000))
        lock = threading.Lock()  # the hub runs on one thread: its tick, or an answer
        watchers, phones = [], []
        for i in range(tables * students):
            watcher = Watcher(f"S{i}")
            phone = Phone(f"bench-device-{i:06d}", "127.0.0.1", watcher.deliver)
            hub.connect(phone)
            hub.receive(phone, {"type": "join", "room": code, "name": watcher.name})
            assert phone.seat is not None, watcher.name
            watchers.append(watcher)
            phones.append(phone)
        stop = threading.Event()
        woken = threading.Event()
        hub.heard = lambda news, heard=hub.heard: (heard(news), woken.set())  # wake at once

        def serve() -> None:
            while not stop.is_set():
                woken.wait(TICK_SECONDS)
                woken.clear()
                with lock:
                    hub.tick()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        delays: list[float] = []
        handling: list[float] = []
        missed = 0
        for number in range(1, questions + 1):
            moment = time.time()
            asking.pose(instructor, code, key, QUESTION)
            deadline = moment + 10
            while time.time() < deadline and not all(number in w.shown for w in watchers):
                time.sleep(0.01)
            for watcher in watchers:
                if number in watcher.shown:
                    delays.append(1000 * (watcher.shown[number] - moment))
                else:
                    missed += 1
            for i, phone in enumerate(phones):
                started = time.perf_counter()
                with lock:
                    hub.receive(phone, {"type": "answer", "question": number, "answer": i % 2})
                handling.append(1000 * (time.perf_counter() - started))
            assert asking.answer_count(instructor, code, number) == len(phones)
        stop.set()
        thread.join(timeout=10)
        hub.close()
        delays.sort()
        handling.sort()
        print(f"{tables} tables x {students} students, {questions} questions asked")
        print(
            f"instructor's question to each phone ({len(delays)} phone updates): "
            f"p50 {statistics.median(delays):.0f} ms, p95 {percentile(delays, 0.95):.0f} ms, "
            f"max {delays[-1]:.0f} ms; missed: {missed}"
        )
        print(
            f"an answer taken and shown back ({len(handling)}): p50 "
            f"{statistics.median(handling):.1f} ms, p95 {percentile(handling, 0.95):.1f} ms; "
            f"load {os.getloadavg()[0]:.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--students", type=int, default=4)
    parser.add_argument("--questions", type=int, default=5)
    args = parser.parse_args()
    run(args.tables, args.students, args.questions)


if __name__ == "__main__":
    main()
