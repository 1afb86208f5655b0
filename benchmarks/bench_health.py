"""What the health check (`GET <base-url>health`, docs/deploy.md section 6) costs a server:

    .venv/bin/python benchmarks/bench_health.py [--requests 500] [--pool 2]

A dashboard server as `amteach dashboard --pool P --max-visitors 40` runs it (tests/served.py),
its pool warm. Then `--requests` health checks one after another on one kept-alive connection
(as a load balancer's checker sends them), and as many requests for a small static file (the
same server's cheapest other answer) for comparison: the median and p95 time per request, and
the server process's CPU time per request (from /proc, so the client's own time is left out).
Prints the load average before and after: the times depend on it, the CPU per request less.
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from served import dashboard_server


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process `pid`, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(host: str, port: int, path: str, count: int, pid: int) -> tuple[list[float], float]:
    """`count` GETs of `path` on one connection: each one's seconds, and the server's CPU
    seconds per request."""
    connection = http.client.HTTPConnection(host, port, timeout=60)
    times = []
    cpu_before = cpu_seconds(pid)
    for _ in range(count):
        start = time.perf_counter()
        connection.request("GET", path)
        answer = connection.getresponse()
        answer.read()
        times.append(time.perf_counter() - start)
        assert answer.status in (200, 503), answer.status
    cpu = (cpu_seconds(pid) - cpu_before) / count
    connection.close()
    return times, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--pool", type=int, default=2)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    with dashboard_server(pool=args.pool, max_visitors=40, base_url="/amteach/") as server:
        server.wait_for_pool()
        port = int(server.url.split(":")[2].split("/")[0])
        cases = {
            "health": "/amteach/health",
            # a small file of Voilà's, packed and kept in memory by the server
            "static file": "/amteach/voila/static/voila.js",
        }
        for name, path in cases.items():
            timed("127.0.0.1", port, path, 20, server.process.pid)  # warm up
            times, cpu = timed("127.0.0.1", port, path, args.requests, server.process.pid)
            times.sort()
            print(
                f"{name:12s} median {statistics.median(times) * 1000:.2f} ms, "
                f"p95 {times[int(len(times) * 0.95)] * 1000:.2f} ms, "
                f"server CPU {cpu * 1000:.2f} ms a request ({args.requests} requests)"
            )
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
