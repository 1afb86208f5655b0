"""A PostgreSQL server of the tests' own: Debian's binaries (./dev installs `postgresql`),
a new cluster in a temporary folder, a free loopback port, stopped by its process id.
As root the server runs as the `postgres` user (PostgreSQL refuses to run as root)."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from browser import free_port


def postgres_bin(name: str) -> str:
    """A PostgreSQL program (initdb, pg_ctl) of Debian's package, newest version first."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)
    if found:
        return found[0]
    on_path = shutil.which(name)
    if on_path:
        return on_path
    raise RuntimeError(
        f"PostgreSQL's {name} is missing: ./dev test installs Debian's postgresql package"
    )


def _as_server_user(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


@contextmanager
def postgres_server() -> Iterator[str]:
    """Start a throwaway PostgreSQL server; yields its address (postgresql://...)."""
    folder = Path(tempfile.mkdtemp(prefix="amteach-pg-"))
    data, sockets = folder / "data", folder / "sockets"
    data.mkdir()
    sockets.mkdir()
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        folder.chmod(0o755)
        for path in (data, sockets):
            os.chown(path, user.pw_uid, user.pw_gid)
    port = free_port()
    subprocess.run(
        _as_server_user(
            [
                postgres_bin("initdb"),
                "-D",
                str(data),
                "-U",
                "amteach",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ]
        ),
        check=True,
        capture_output=True,
    )
    server = subprocess.Popen(
        _as_server_user(
            [
                postgres_bin("postgres"),
                "-D",
                str(data),
                "-p",
                str(port),
                "-k",
                str(sockets),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",  # a throwaway cluster: speed over durability
            ]
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"postgresql://amteach@127.0.0.1:{port}/postgres"
    try:
        lines: list[str] = []
        for line in server.stdout:  # ready when the server says so (no wall-clock waits)
            lines.append(line)
            if "ready to accept connections" in line:
                break
        else:
            raise RuntimeError("PostgreSQL did not start:\n" + "".join(lines[-20:]))
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
        yield url
    finally:
        postmaster = server.pid
        # runuser's child is the postmaster; postmaster.pid names it
        pid_file = data / "postmaster.pid"
        if pid_file.exists():
            postmaster = int(pid_file.read_text().split()[0])
        with contextlib.suppress(ProcessLookupError):
            os.kill(postmaster, signal.SIGINT)  # "fast" shutdown
        server.wait(timeout=60)
        shutil.rmtree(folder, ignore_errors=True)
