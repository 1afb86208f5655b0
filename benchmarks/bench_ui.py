"""Benchmark the classroom app: time to handle one decision in the kernel, with the board,
players, narration, choice buttons and charts refreshed.

    .venv/bin/python benchmarks/bench_ui.py          # inside a real IPython kernel
    .venv/bin/python benchmarks/bench_ui.py --here   # in this process, widgets without a kernel

Plays a 200-round game in Play mode (four bots, one decision per tick) and a game with two
human seats clicking their first button, and prints the median and 95th percentile per
decision, and the median of the first and last 200 decisions (the charts append, so a long
game should not be slower at its end).
"""

from __future__ import annotations

import statistics
import time

from amteach import RuleSet
from amteach.ui import ClassroomApp


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(label: str, times: list[float]) -> None:
    ms = [t * 1000 for t in times]
    print(
        f"{label:<34} {len(ms):>5} decisions  median {statistics.median(ms):6.1f} ms  p95 {percentile(ms, 0.95):6.1f} ms"
        f"  first 200 {statistics.median(ms[:200]):6.1f} ms  last 200 {statistics.median(ms[-200:]):6.1f} ms"
    )


def bots_in_play_mode(seed: int) -> list[float]:
    app = ClassroomApp(
        seats=[
            ("Ana", "competitor", "cautious"),
            ("Ben", "monopolist", "cautious"),
            ("Cleo", "competitor", "cautious"),
            ("Dev", "monopolist", "cautious"),
        ],
        seed=seed,
        rules=RuleSet.preset("default", round_cap=200),
    )
    times = []
    while app.game.pending is not None:
        started = time.perf_counter()
        app.controls.play.value += 1  # one tick of the Play widget
        times.append(time.perf_counter() - started)
    print(f"(the Play-mode game lasted {app.game.round} rounds and ended by {app.game.end_reason})")
    return times


def humans_clicking(seed: int, decisions: int = 600) -> list[float]:
    app = ClassroomApp(
        seats=[("Ana", "competitor", "human"), ("Ben", "monopolist", "human")],
        seed=seed,
        rules=RuleSet.preset("default", round_cap=200),
    )
    times = []
    for _ in range(decisions):
        if app.game.pending is None:
            break
        button = next(iter(app.buttons().values()))
        started = time.perf_counter()
        button.click()
        times.append(time.perf_counter() - started)
    return times


def run_here() -> None:
    report("Play mode, 4 cautious bots", bots_in_play_mode(1))
    report("humans clicking", humans_clicking(2))


def run_in_kernel() -> None:
    """The same measurements inside a real IPython kernel, where every widget change is
    serialized and published as a comm message, as it is for a class."""
    import sys
    from pathlib import Path

    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    try:
        here = Path(__file__).resolve().parent
        code = (
            f"import sys; sys.path.insert(0, {str(here)!r}); import bench_ui; bench_ui.run_here()"
        )

        def show(message: dict) -> None:
            if message["msg_type"] == "stream":
                sys.stdout.write(message["content"]["text"])
            elif message["msg_type"] == "error":
                sys.stdout.write("\n".join(message["content"]["traceback"]) + "\n")

        client.execute_interactive(code, output_hook=show, timeout=1800)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def main() -> None:
    import sys

    if "--here" in sys.argv:
        print("In this process (widgets without a kernel):")
        run_here()
    else:
        print("Inside an IPython kernel (widget messages serialized and sent):")
        run_in_kernel()


if __name__ == "__main__":
    main()
