"""Helpers for the serving tests: the dashboard server with the options of `amteach dashboard`
(or any command) on a free loopback port, stopped by process id; its kernels' processes; nginx
with a site file of docs/deploy.md; and the protocol-level visitor of benchmarks/bench_visitors.py.
Chromium comes from tests/browser.py."""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from browser import ServerEnded, free_port, start_server, stop_server

from amteach.content import dashboard_notebook
from amteach.serving import TEMPLATE, UNOPENED_SECONDS, voila_command

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    log: list[str] = field(default_factory=list)

    def wait_for_pool(self, seconds: float = 180) -> None:
        """Until the server's log says its pool of preheated kernels is filled (a teacher's page
        then takes one at once), polling its log; fails after `seconds`."""
        deadline = time.monotonic() + seconds
        while not any("is filled" in line for line in self.log):
            assert time.monotonic() < deadline, "the dashboard's pool never filled"
            time.sleep(0.2)

    def kernels(self) -> dict[str, int]:
        """Kernel id -> process id of the kernels this server started."""
        out = subprocess.run(
            ["ps", "-ww", "-o", "pid=,args=", "--ppid", str(self.process.pid)],
            capture_output=True,
            text=True,
        ).stdout
        found = {}
        for line in out.splitlines():
            pid, _, args = line.strip().partition(" ")
            if "kernel-" in args:
                found[args.split("kernel-", 1)[1].split(".json", 1)[0]] = int(pid)
        return found


@contextmanager
def dashboard_server(
    command: list[str] | None = None,
    *,
    pool: int = 1,
    max_visitors: int = 0,
    base_url: str = "/",
    cwd: Path | None = None,
    # slow pages on a loaded machine: wait five times the default for a browser
    # (tests/test_serving.py checks the default and the cull themselves)
    unopened_after: int = 5 * UNOPENED_SECONDS,
    env: dict[str, str] | None = None,
    template: str = TEMPLATE,
    extra: list[str] | None = None,
) -> Iterator[Server]:
    """The dashboard served as `amteach dashboard` serves it (or by `command`, whose `{port}`
    is filled with a free port), until the block ends; then SIGTERM to its process id.
    `env` adds to the server's environment (the class database of `--rooms`, say); `extra`
    sets options of the server's command line (replacing the command's own)."""

    def command_on(port: int) -> list[str]:
        if command is None:
            line = voila_command(
                dashboard_notebook(),
                port,
                "127.0.0.1",
                pool,
                template,
                300,
                base_url,
                max_visitors,
                unopened_after,
            )
        else:
            line = [part.replace("{port}", str(port)) for part in command]
        # an option given twice is refused: `extra` replaces the command's own
        replaced = {option.split("=", 1)[0] for option in extra or []}
        line = [part for part in line if part.split("=", 1)[0] not in replaced]
        return [*line, *(extra or [])]

    try:
        started = start_server(command_on, cwd=cwd, env={**os.environ, **(env or {})})
    except ServerEnded as ended:
        pytest.fail(str(ended))
    server = Server(f"http://127.0.0.1:{started.port}{base_url}", started.process, started.log)
    try:
        yield server
    finally:
        stop_server(started.process, 60)


NGINX = "/usr/sbin/nginx"
# the main configuration of a test's nginx: one worker is enough on a loopback port
NGINX_MAIN = "worker_processes 1;\nevents { worker_connections 512; }"


@contextmanager
def nginx(site: str, folder: Path, main: str = NGINX_MAIN) -> Iterator[int]:
    """Debian's nginx serving `site` (a server block of docs/deploy.md, whose `listen 80;` is
    moved to a free loopback port), under the main configuration `main` (the guide's, in
    tests/test_deploy_guide.py), with its configuration, logs and temporary files in
    `folder`; yields the port once nginx accepts connections, and stops it by process id.
    Its access log (`folder`/access.log) names, for each request, the upstream that answered
    it, or "-" for nginx itself; its error log is `folder`/error.log."""
    port = free_port()
    assert "listen 80;" in site, site
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    temp = "\n".join(
        f"    {kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    user = "user root;\n" if os.geteuid() == 0 else ""
    (folder / "nginx.conf").write_text(
        f"{user}pid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'} info;\n{main}\n"
        "http {\n"
        # each line: status, request, and the upstream that answered ("-": nginx itself)
        "    log_format served '$status \"$request\" upstream=$upstream_addr';\n"
        f"    access_log {folder / 'access.log'} served;\n{temp}\n{site}\n}}\n"
    )
    command = [NGINX, "-p", str(folder), "-c", str(folder / "nginx.conf")]
    check = subprocess.run([*command, "-t"], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    process = subprocess.Popen([*command, "-g", "daemon off;"], stderr=subprocess.PIPE, text=True)
    try:
        # ready when it accepts a connection (each try waits on the process, not the clock)
        for _ in range(1200):
            if process.poll() is not None:
                pytest.fail(f"nginx ended: {process.stderr.read()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
                break
            except OSError:
                with suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=0.05)
        else:
            pytest.fail("nginx never accepted a connection")
        yield port
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def descendants(pid: int) -> list[int]:
    """The processes started by `pid` and by them (a server's kernels), from /proc."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def command_line(pid: int) -> list[str]:
    """The process's arguments, from /proc (none once it has ended)."""
    with suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    return []


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return status != "Z"


def bench_visitors():
    """benchmarks/bench_visitors.py (the protocol-level visitor of a dashboard page, a kernel
    each) as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "bench_visitors", REPO / "benchmarks" / "bench_visitors.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_visitors", module)
    spec.loader.exec_module(module)
    return module


def narration_text(html_value: str) -> str:
    """The words of the narration widget's HTML, as a browser's textContent has them."""
    from html.parser import HTMLParser

    parts: list[str] = []
    parser = HTMLParser()
    parser.handle_data = parts.append
    parser.feed(html_value)
    return " ".join("".join(parts).split())


def environment_without(*names: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in names}
