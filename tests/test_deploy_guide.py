"""docs/deploy.md works as written, on loopback: its PostgreSQL commands and settings (the role
and the database, `listen_addresses`, the `pg_hba.conf` lines), its `amteach@.service` unit
(`systemd-analyze verify`, then its ExecStart line run), its nginx main configuration
(`worker_connections`, and the rule the guide sizes it by: two connections per open websocket)
and its several-servers site file (the health locations, and a visitor who met a full server
losing their key). The guide's addresses are mapped onto loopback: the database machine
10.0.0.5 becomes 127.0.0.2 (Linux answers on all of 127.0.0.0/8) and the first dashboard
server 10.0.0.11 becomes 127.0.0.1, the address loopback connections come from. Everything
runs in temporary folders on free ports and is stopped by process id."""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import pwd
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import psycopg
import pytest
from browser import ServerEnded, free_port, start_server, stop_server
from postgres import postgres_bin
from served import REPO, nginx

GUIDE = REPO / "docs" / "deploy.md"
DATABASE_HOST = "127.0.0.2"  # the guide's 10.0.0.5
SERVER_ADDRESS = "127.0.0.1"  # the guide's 10.0.0.11: where loopback connections come from


def block(tag: str) -> str:
    """The one fenced block of the guide whose info string is `tag`."""
    found = re.findall(rf"```{re.escape(tag)}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert len(found) == 1, f"docs/deploy.md has one ```{tag} block"
    return found[0]


def unit_setting(unit: str, key: str) -> str:
    found = re.findall(rf"^{key}=(.*)$", unit, re.M)
    assert len(found) == 1, f"the unit sets {key} once"
    return found[0]


def guide_password() -> str:
    """The password the guide's role is made with, and its file hands to the servers."""
    sql = block("bash postgres-setup")
    password = re.search(r"CREATE ROLE amteach LOGIN PASSWORD '([^']+)';", sql).group(1)
    text = GUIDE.read_text(encoding="utf-8")
    assert f"echo 'PGPASSWORD={password}' | sudo tee /etc/amteach/database.env" in text
    return password


# --- PostgreSQL, set up by the guide ----------------------------------------------------------


def as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, run its programs as `postgres`."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextmanager
def guide_postgres() -> Iterator[int]:
    """A new cluster whose superuser is `postgres` (as Debian's), local connections only
    through its socket, and the guide's `listen_addresses` and `pg_hba.conf` lines (mapped onto
    loopback); then the guide's SQL, run as the guide runs it (`sudo -u postgres psql`, here
    through the socket). Yields the port."""
    folder = Path(tempfile.mkdtemp(prefix="amteach-guide-pg-"))
    data, sockets = folder / "data", folder / "sockets"
    data.mkdir()
    sockets.mkdir()
    if os.geteuid() == 0:
        folder.chmod(0o755)
        user = pwd.getpwnam("postgres")
        for path in (data, sockets):
            os.chown(path, user.pw_uid, user.pw_gid)
    port = free_port()
    subprocess.run(
        as_postgres(
            [
                *(postgres_bin("initdb"), "-D", str(data), "-U", "postgres", "-E", "UTF8"),
                *("--auth-local=trust", "--auth-host=reject"),
            ]
        ),
        check=True,
        capture_output=True,
    )
    # the guide's settings, its addresses mapped onto loopback
    listen = block("conf postgresql-conf").replace("10.0.0.5", DATABASE_HOST)
    hba = block("conf pg-hba").replace("10.0.0.11/32", f"{SERVER_ADDRESS}/32")
    hba = hba.replace("10.0.0.12/32", "127.0.0.3/32")
    assert "listen_addresses" in listen and "scram-sha-256" in hba
    with (data / "postgresql.conf").open("a") as conf:
        conf.write(f"\n{listen}\nport = {port}\nunix_socket_directories = '{sockets}'\n")
        conf.write("fsync = off\n")  # a throwaway cluster
    # initdb's own lines first (the socket, trusted; "host" lines: reject), as Debian's file
    # has its own before an administrator's: the guide's lines must come before "reject"
    lines = (data / "pg_hba.conf").read_text().splitlines()
    kept = [line for line in lines if not line.startswith("host")]
    (data / "pg_hba.conf").write_text("\n".join([*kept, hba]) + "\n")
    server = subprocess.Popen(
        as_postgres([postgres_bin("postgres"), "-D", str(data)]),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lines_seen: list[str] = []
        for line in server.stdout:
            lines_seen.append(line)
            if "ready to accept connections" in line:
                break
        else:
            pytest.fail("PostgreSQL did not start:\n" + "".join(lines_seen[-20:]))
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
        # the guide's commands: `sudo -u postgres psql -v ON_ERROR_STOP=1 <<'SQL' ... SQL`
        setup = block("bash postgres-setup")
        command, sql = re.search(
            r"^(sudo -u postgres psql [^<]*)<<'SQL'\n(.*?)^SQL$", setup, re.S | re.M
        ).groups()
        argv = shlex.split(command)[3:]  # psql and its options, as the postgres user
        argv[0] = postgres_bin("psql")
        done = subprocess.run(
            as_postgres([*argv, "-h", str(sockets), "-p", str(port)]),
            input=sql,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        yield port
    finally:
        pid_file = data / "postmaster.pid"
        postmaster = int(pid_file.read_text().split()[0]) if pid_file.exists() else server.pid
        with suppress(ProcessLookupError):
            os.kill(postmaster, signal.SIGINT)
        server.wait(timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


# --- nginx with the guide's main configuration -------------------------------------------------


@contextmanager
def guide_nginx(site: str, folder: Path, main: str | None = None) -> Iterator[tuple[int, Path]]:
    """`served.nginx` under the guide's main configuration (or `main`): yields the port and
    the error log."""
    main = block("nginx main-config") if main is None else main
    with nginx(site, folder, main) as port:
        yield port, folder / "error.log"


def several_servers_site(ports: list[int]) -> str:
    """The guide's several-servers site file, its two servers' ports replaced by `ports`."""
    site = block("nginx several-servers")
    assert site.count("127.0.0.1:8866") == 1 and site.count("127.0.0.1:8867") == 1
    site = site.replace("127.0.0.1:8866", f"127.0.0.1:{ports[0]}")
    site = site.replace("127.0.0.1:8867", f"127.0.0.1:{ports[1]}")
    assert "(?<amteach_port>8866|8867)" in site
    return site.replace("(?<amteach_port>8866|8867)", f"(?<amteach_port>{ports[0]}|{ports[1]})")


@contextmanager
def stand_in(status: int) -> Iterator[int]:
    """A stand-in dashboard server on a free port: every GET gets `status` (503: the "full"
    page) and a body naming the port. Stopped when the block ends."""

    class Answer(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"port": self.server.server_port, "path": self.path}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        server.server_close()


def get(url: str, cookie: str | None = None) -> tuple[int, dict[str, list[str]], bytes]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            status, headers, body = answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as err:
        status, headers, body = err.code, err.headers, err.read()
    found: dict[str, list[str]] = {}
    for name, value in headers.items():
        found.setdefault(name.lower(), []).append(value)
    return status, found, body


# --- the tests --------------------------------------------------------------------------------


def test_the_guide_installs_libpq5_and_gives_the_unit_in_full():
    text = GUIDE.read_text(encoding="utf-8")
    assert re.search(r"^sudo apt-get install -y .*\blibpq5\b", text, re.M)
    unit = block("ini amteach@.service")
    for section in ("[Unit]", "[Service]", "[Install]"):
        assert section in unit
    assert unit_setting(unit, "User") == "amteach"
    assert "--port %i" in unit_setting(unit, "ExecStart")
    assert unit_setting(unit, "EnvironmentFile") == "/etc/amteach/database.env"


def test_the_unit_passes_systemd_analyze_verify(tmp_path):
    """The unit as given, its files made the test's own (the venv's amteach, the home, the
    password file), checked by systemd for an instance (amteach@8866)."""
    systemd_analyze = shutil.which("systemd-analyze")
    assert systemd_analyze, "systemd-analyze is missing (Debian's systemd package)"
    unit = block("ini amteach@.service")
    amteach = Path(sys.executable).parent / "amteach"
    assert amteach.exists(), amteach
    unit = unit.replace("/srv/amteach/venv/bin/amteach", str(amteach))
    unit = unit.replace("WorkingDirectory=/srv/amteach", f"WorkingDirectory={tmp_path}")
    (tmp_path / "database.env").write_text(f"PGPASSWORD={guide_password()}\n")
    unit = unit.replace("/etc/amteach/database.env", str(tmp_path / "database.env"))
    path = tmp_path / "amteach@8866.service"
    path.write_text(unit)
    done = subprocess.run([systemd_analyze, "verify", str(path)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr
    # and systemd does check: a unit with a broken line fails
    path.write_text(unit.replace("TimeoutStopSec=30", "TimeoutStopSec=thirty seconds"))
    done = subprocess.run([systemd_analyze, "verify", str(path)], capture_output=True, text=True)
    assert "Failed to parse time value" in done.stderr, done.stderr


def test_the_guides_database_lets_the_server_in_and_its_unit_serves_through_nginx(tmp_path):
    password = guide_password()
    with guide_postgres() as port:
        address = f"postgresql://amteach@{DATABASE_HOST}:{port}/amteach"
        # the role gets in to its database with the password, from the server's address
        with psycopg.connect(address, password=password, connect_timeout=10) as connection:
            assert connection.execute("select current_user").fetchone() == ("amteach",)
        # a wrong password, and another database, are refused
        with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
            psycopg.connect(address, password="not-it", connect_timeout=10)
        with pytest.raises(psycopg.OperationalError, match=r"no pg_hba\.conf entry"):
            psycopg.connect(
                f"postgresql://amteach@{DATABASE_HOST}:{port}/postgres",
                password=password,
                connect_timeout=10,
            )

        # the unit's ExecStart, as systemd would run it for amteach@PORT, with its password
        # file's variable: the database machine's name and the venv made the test's own
        unit = block("ini amteach@.service")
        assert unit_setting(unit, "ExecStart").startswith("/srv/amteach/venv/bin/amteach ")

        def unit_command(server_port: int) -> list[str]:
            argv = shlex.split(unit_setting(unit, "ExecStart").replace("%i", str(server_port)))
            argv = [sys.executable, "-m", "amteach", *argv[1:]]
            argv = [part.replace("db.example.org", f"{DATABASE_HOST}:{port}") for part in argv]
            argv = [re.sub(r"^13$", "1", part) for part in argv]  # --pool 13: one kernel here
            assert f"postgresql://amteach@{DATABASE_HOST}:{port}/amteach" in argv
            return argv

        env = {**os.environ, "PGPASSWORD": password}  # the password file's one variable
        try:
            started = start_server(unit_command, cwd=tmp_path, env=env)
        except ServerEnded as ended:
            pytest.fail(f"the unit's server ended: {ended}")
        server_port = started.port
        try:
            # it made its tables in the guide's database
            with psycopg.connect(address, password=password) as connection:
                tables = connection.execute(
                    "select count(*) from pg_tables where tableowner = 'amteach'"
                ).fetchone()[0]
            assert tables > 0
            # its health, straight and through the guide's nginx (its health location)
            status, _, body = get(f"http://127.0.0.1:{server_port}/amteach/health")
            assert status == 200 and json.loads(body)["room"] is True
            site = several_servers_site([server_port, free_port()])
            with guide_nginx(site, tmp_path) as (nginx_port, _):
                status, _, body = get(f"http://127.0.0.1:{nginx_port}/amteach-health/{server_port}")
                assert status == 200, body
                report = json.loads(body)
                assert report["room"] is True and report["max_visitors"] == 34
                # only the listed servers' ports
                assert get(f"http://127.0.0.1:{nginx_port}/amteach-health/22")[0] == 404
        finally:
            stop_server(started.process, 60)


def test_a_visitor_who_meets_a_full_server_draws_a_new_key_and_others_keep_theirs(tmp_path):
    with stand_in(503) as full, stand_in(200) as room:
        site = several_servers_site([full, room])
        with guide_nginx(site, tmp_path) as (port, _):
            seen: dict[int, list[str]] = {full: [], room: []}
            for _ in range(40):  # new visitors: a new random key each
                status, headers, body = get(f"http://127.0.0.1:{port}/amteach/")
                cookies = headers["set-cookie"]
                assert len(cookies) == 1, cookies
                seen[json.loads(body)["port"]].append(cookies[0])
                assert status == (503 if json.loads(body)["port"] == full else 200)
            assert seen[full] and seen[room], "the keys never fell on both servers"
            # the full server's visitors lose their key; the others get theirs, and keep
            # going to the same server with it
            assert all(c.startswith("amteach_server=;") and "Max-Age=0" in c for c in seen[full])
            for cookie in seen[room]:
                key = re.match(r"amteach_server=([0-9a-f]+);", cookie).group(1)
                status, headers, body = get(
                    f"http://127.0.0.1:{port}/amteach/", f"amteach_server={key}"
                )
                assert json.loads(body)["port"] == room
                assert headers["set-cookie"] == [cookie]
            # each server's health location reaches that server
            for upstream in (full, room):
                status, _, body = get(f"http://127.0.0.1:{port}/amteach-health/{upstream}")
                assert json.loads(body) == {"port": upstream, "path": "/amteach/health"}


async def open_websockets(url: str, count: int) -> int:
    """Open `count` websockets to `url` one after another, each kept open while the next
    opens (each answers an echo first); how many opened. All are closed before returning."""
    from tornado.websocket import websocket_connect

    opened = []
    for _ in range(count):
        try:
            socket_ = await asyncio.wait_for(websocket_connect(url), timeout=10)
            socket_.write_message("ping")
            if await asyncio.wait_for(socket_.read_message(), timeout=10) != "ping":
                break
            opened.append(socket_)
        except Exception:  # refused, reset or closed by nginx: not opened
            break
    for socket_ in opened:
        socket_.close()
    return len(opened)


@contextmanager
def websocket_stand_in() -> Iterator[int]:
    """An echo websocket server (tornado) on its own thread and loop, at /amteach/ws."""
    from tornado.httpserver import HTTPServer
    from tornado.ioloop import IOLoop
    from tornado.web import Application
    from tornado.websocket import WebSocketHandler

    class Echo(WebSocketHandler):
        def on_message(self, message: str | bytes) -> None:
            self.write_message(message)

    port = free_port()
    started = threading.Event()
    state: dict[str, object] = {}

    def run() -> None:
        async def serve() -> None:
            server = HTTPServer(Application([(r"/amteach/ws", Echo)]))
            server.listen(port, "127.0.0.1")
            state["stop"] = asyncio.Event()
            state["loop"] = asyncio.get_running_loop()
            started.set()
            await state["stop"].wait()
            server.stop()

        IOLoop.current()  # tornado's loop for this thread
        asyncio.run(serve())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(30)
    try:
        yield port
    finally:
        state["loop"].call_soon_threadsafe(state["stop"].set)
        thread.join(timeout=30)


def test_worker_connections_are_two_per_open_websocket_as_the_guide_sizes_them(tmp_path):
    """The guide's rule: each open page holds two of nginx's connections. One worker (so
    one count), which also counts its listening socket and its channel to nginx's master
    process (the guide's "+ 100" covers these): 2 × 6 + 2 lets 6 websockets stay open;
    6 + 2 lets 3, and nginx says why."""
    main = block("nginx main-config")
    assert re.search(r"worker_connections \d+;", main)
    with websocket_stand_in() as upstream:
        site = several_servers_site([upstream, upstream])
        for connections, expected in ((2 * 6 + 2, 6), (6 + 2, 3)):
            folder = tmp_path / str(connections)
            folder.mkdir()
            sized = re.sub(r"worker_processes \w+;", "worker_processes 1;", main)
            sized = re.sub(r"worker_connections \d+;", f"worker_connections {connections};", sized)
            with guide_nginx(site, folder, sized) as (port, error_log):
                url = f"ws://127.0.0.1:{port}/amteach/ws"
                opened = asyncio.run(open_websockets(url, 6))
                assert opened == expected, (connections, opened)
                if expected < 6:
                    assert "worker_connections are not enough" in error_log.read_text()
