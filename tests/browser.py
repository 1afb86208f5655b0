"""What the browser tests (and benchmarks/bench_dashboard.py) share: Debian's Chromium driven
by Playwright with one set of launch flags, and the dashboard served exactly as `amteach
dashboard` serves it (same command line, same environment) on a free loopback port."""

from __future__ import annotations

import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from amteach.content import dashboard_notebook
from amteach.serving import TEMPLATE, voila_command, voila_environment

CHROMIUM = "/usr/bin/chromium"
# no sandbox (tests may run as root in a container), no GPU, and no traffic of Chromium's own
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def launch_chromium(playwright: Any) -> Any:
    """Debian's Chromium, headless. Works with Playwright's sync and async APIs (with the
    async one, await the result)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class Served:
    url: str  # ends with "/"
    pid: int


class ServerEnded(RuntimeError):
    """Voilà stopped before it was serving; the message holds its log."""


@contextmanager
def serve_dashboard(
    notebook: Path | None = None,
    pool: int = 1,
    template: str = TEMPLATE,
    cull_after: int = 600,
    env: dict[str, str] | None = None,
) -> Iterator[Served]:
    """Serve `notebook` (default: the dashboard) as `amteach dashboard` does, until the block
    ends; then stop the server by its process id. Ready when Voilà's log says it is running
    (no wall-clock waits); the log is drained afterwards so the server never blocks on it.
    `env` adds to the server's environment (the class database of `--rooms`, say)."""
    port = free_port()
    command = voila_command(
        notebook or dashboard_notebook(), port, "127.0.0.1", pool, template, cull_after
    )
    with voila_environment() as served_env:
        server = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**served_env, **(env or {})},
        )
        try:
            log: list[str] = []
            for line in server.stdout:
                log.append(line)
                if "is running at" in line:
                    break
            else:
                raise ServerEnded("Voilà ended before serving:\n" + "".join(log[-30:]))
            threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
            yield Served(f"http://127.0.0.1:{port}/", server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)
