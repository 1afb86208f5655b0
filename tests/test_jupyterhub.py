"""The dashboard through a real JupyterHub on loopback, as docs/deploy.md recommends for a class:
one shared `amteach dashboard` that the hub starts and stops as a service, at /services/amteach/,
behind the hub's login, as its own unprivileged user. The hub (from PyPI), its proxy
(configurable-http-proxy from npm, installed by ./dev into .tools/chp), a dummy authenticator and
a local spawner run in a temporary folder on free ports; everything is stopped by process id.

The service runs as `nobody` (the guide's "amteach" user does not exist on test machines), with
a Python that user may run: Debian's python3, in a virtual environment that reads this checkout
and the project's packages (the project's own interpreter may sit in root's home). A visitor who
has not logged in is sent to the hub's login (the page, the kernels' API and the phones'
websocket refuse them); a user who logs in in Chromium lands on the dashboard and plays a turn:
Roll, then an event in "What happened"."""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
from browser import free_port, narration_changes
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from served import REPO, alive, command_line, descendants

PROXY = REPO / ".tools" / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"
WAIT = 180_000  # ms
SERVICE = "/services/amteach/"
# the unprivileged user the service runs as here, in place of the guide's "amteach"
SERVICE_USER = "nobody"
# an interpreter outside root's home, of the project's Python version (Debian's)
# the token of a service the hub knows that has no access to amteach's
OTHER_TOKEN = "other-service-token-with-no-access-to-amteach"
SYSTEM_PYTHON = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"


def hub_config() -> str:
    """The jupyterhub_config.py of docs/deploy.md (the service way)."""
    text = (REPO / "docs" / "deploy.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python jupyterhub-service\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/deploy.md has one hub-service jupyterhub_config.py"
    return blocks[0]


def real_uid(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^Uid:\s+(\d+)", status, re.M).group(1))


@pytest.fixture(scope="module")
def service_python() -> Iterator[Path]:
    """A virtual environment that SERVICE_USER can run: Debian's python3 reading this checkout
    and the project's packages (a .pth file), with an `amteach` command. Yields its bin/."""
    assert os.geteuid() == 0, "the hub switches to the service's user only when run as root"
    assert Path(SYSTEM_PYTHON).exists(), f"{SYSTEM_PYTHON} (Debian's python3) is missing"
    folder = Path(tempfile.mkdtemp(prefix="amteach-hub-python-"))
    # the service's user must reach the checkout and its venv: a checkout in a private folder
    # (a CI clone in a mode-700 temporary folder, or under /root) gets "others may pass
    # through" on the folders above it for the test, and its modes back afterwards
    opened = []
    for path in [*reversed(REPO.parents), REPO]:
        mode = path.stat().st_mode
        if not mode & 0o001:
            path.chmod(mode | 0o001)
            opened.append((path, mode))
    try:
        venv = folder / "venv"
        subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(venv)], check=True)
        site = Path(
            subprocess.run(
                [
                    str(venv / "bin" / "python"),
                    "-c",
                    "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                ],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
        )
        (site / "amteach-tests.pth").write_text(f"{REPO}\n{sysconfig.get_paths()['purelib']}\n")
        script = venv / "bin" / "amteach"
        script.write_text(
            f"#!{venv}/bin/python\nimport sys\nfrom amteach.cli import main\nsys.exit(main())\n"
        )
        script.chmod(0o755)
        for path in [folder, *folder.rglob("*")]:
            if not path.is_symlink():
                path.chmod(
                    path.stat().st_mode | 0o555 if path.is_dir() else path.stat().st_mode | 0o444
                )
        # (whether SERVICE_USER can import the server is what the hub's start shows: the
        # service runs as that user, and a failed import is in the end of the hub's log that
        # the test prints; a first import here of its own took some 2 CPU-seconds, issue 40)
        yield venv / "bin"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        for path, mode in reversed(opened):
            path.chmod(mode)


def plays_a_turn(page) -> None:
    """Roll on the dashboard and see the throw told in What happened."""
    roll = page.locator(".am-choices button", has_text="Roll")
    roll.wait_for(timeout=WAIT)
    narration_changes(page, roll.click)
    page.locator(".am-narration", has_text="throws").wait_for(timeout=WAIT)


@contextmanager
def jupyterhub(service_bin: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    """JupyterHub with the documented config, its paths and ports made the test's own; yields
    the hub's public address and its process. Stopped by its process id; whatever it started
    that is still alive afterwards (it should stop its proxy and its service itself) is
    stopped by pid."""
    folder = Path(tempfile.mkdtemp(prefix="amteach-hub-"))
    folder.chmod(0o755)  # the service's user reaches its home in it
    home = folder / "service"
    home.mkdir()
    user = pwd.getpwnam(SERVICE_USER)
    os.chown(home, user.pw_uid, user.pw_gid)
    service_port = free_port()
    config = hub_config()
    # the documented user, paths and ports, made this test's own
    assert '"user": "amteach"' in config, "the service runs as a user of its own"
    config = config.replace('"user": "amteach"', f'"user": "{SERVICE_USER}"')
    config = config.replace("/srv/amteach/venv/bin/", f"{service_bin}/")
    config = config.replace("/srv/amteach/class.sqlite", str(home / "class.sqlite"))
    config = config.replace('"cwd": "/srv/amteach"', f'"cwd": "{home}"')
    config = config.replace("http://127.0.0.1:8866", f"http://127.0.0.1:{service_port}")
    config = config.replace('"--port", "8866"', f'"--port", "{service_port}"')
    # no preheated kernel (issue 40): the one page's kernel is started for it, where a pool of
    # one started a second, for the pool, as the page took the first; the login and the
    # service's user do not depend on it (the page's kernel is checked for its user below)
    config = re.sub(r'"--pool", "\d+"', '"--pool", "0"', config)
    assert str(service_port) in config and f"{service_bin}/amteach" in config, config
    assert str(home) in config, config
    port, settings = hub_settings(folder)
    config += settings + 'c.JupyterHub.spawner_class = "simple"\n'
    config += f"""
# --- the service user's Jupyter folders ({SERVICE_USER}'s home does not exist), and the
# project's Jupyter data (Voila's templates, the kernel spec, whose "python" is the PATH's) ---
c.JupyterHub.services[0]["environment"] = {{
    "PATH": "{service_bin}:/usr/bin:/bin",
    "JUPYTER_PATH": "{Path(sys.prefix) / "share" / "jupyter"}",
    "JUPYTER_RUNTIME_DIR": "{home / "runtime"}",
    "JUPYTER_DATA_DIR": "{home / "data"}",
    "JUPYTER_CONFIG_DIR": "{home / "config"}",
    "IPYTHONDIR": "{home / "ipython"}",
}}
"""
    # a second service, with a token of its own and no access to amteach's: known to the hub,
    # not allowed in (what a user without the guide's role meets)
    config += f"""
c.JupyterHub.services.append({{"name": "other", "api_token": "{OTHER_TOKEN}"}})
"""
    with running_hub(folder, config, ("Voilà is running at",)) as (process, log):
        text = "".join(log)
        # the service said the login is on, and did not warn of root
        assert "Visitors log in at the JupyterHub" in text, text[-4000:]
        assert "running as root" not in text, text[-4000:]
        yield f"http://127.0.0.1:{port}", process


def hub_settings(folder: Path) -> tuple[int, str]:
    """The test's own users (anyone may log in with any password), folder and ports, as
    lines of jupyterhub_config.py; and the hub's public port."""
    port, hub_port, api_port = (free_port() for _ in range(3))
    return (
        port,
        f"""
# --- the test's own users: anyone may log in with any password ---
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
# --- the test's own folder and ports ---
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{str(PROXY)!r}]
c.JupyterHub.db_url = "sqlite:///{folder / "hub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(folder / "cookie_secret")!r}
c.JupyterHub.pid_file = {str(folder / "hub.pid")!r}
c.ConfigurableHTTPProxy.pid_file = {str(folder / "proxy.pid")!r}
""",
    )


@contextmanager
def running_hub(
    folder: Path, config: str, ready: tuple[str, ...] = ()
) -> Iterator[tuple[subprocess.Popen, list[str]]]:
    """JupyterHub with `config` (written to `folder`), until its log says it runs and holds
    every line of `ready`; yields its process and its log (which its services' and servers'
    logs join). Stopped by its process id; whatever it started that is still alive afterwards
    (it should stop its proxy, services and servers itself) is stopped by pid; the folder is
    removed. Its log must hold no traceback from before the stop."""
    assert PROXY.exists(), "./dev installs configurable-http-proxy into .tools/chp"
    (folder / "jupyterhub_config.py").write_text(config)
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    process = subprocess.Popen(
        [str(bin_dir / "jupyterhub"), "-f", str(folder / "jupyterhub_config.py")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=folder,
        env=env,
    )
    log: list[str] = []
    started = threading.Event()
    markers = ("JupyterHub is now running at", *ready)

    def read() -> None:
        for line in process.stdout:
            log.append(line)
            text = "".join(log)
            if all(marker in text for marker in markers):
                started.set()
        started.set()

    threading.Thread(target=read, daemon=True).start()
    started_by_hub: list[int] = []
    try:
        started.wait(240)
        text = "".join(log)
        if process.poll() is not None or not all(marker in text for marker in markers):
            pytest.fail("JupyterHub or its service did not start:\n" + "".join(log[-40:]))
        yield process, log
    finally:
        started_by_hub = descendants(process.pid)
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=30)
        leftover = [pid for pid in started_by_hub if alive(pid)]
        for pid in leftover:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        shutil.rmtree(folder, ignore_errors=True)
        # nothing went wrong while it served (at shutdown, a kernel still building its page
        # may complain that its sockets closed under it: that is the stop, not the service)
        served = "".join(log).split("Received signal SIGTERM", 1)[0]
        assert "Traceback" not in served, served[-6000:]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def anonymous(url: str) -> tuple[int, dict[str, str], bytes]:
    """One request with no cookie, redirects not followed: status, headers (names in lower
    case, as the hub's proxy sends them), body."""
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(url, timeout=60) as answer:
            status, headers, body = answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as err:
        status, headers, body = err.code, err.headers, err.read()
    return status, {name.lower(): value for name, value in headers.items()}, body


def served_processes(hub_pid: int) -> list[int]:
    """The dashboard server's processes under the hub: the server and its kernels."""
    return [
        pid
        for pid in descendants(hub_pid)
        if "amteach.serving.app" in " ".join(command_line(pid))
        or "ipykernel" in " ".join(command_line(pid))
    ]


def test_a_visitor_must_log_in_at_the_hub_then_plays_a_turn_on_the_dashboard_service(
    service_python, browser
):
    with jupyterhub(service_python) as (hub, process):
        # the service's server runs as the service's user, not as the hub's root (and so does
        # the kernel it starts for the page, below)
        served = served_processes(process.pid)
        assert served, "the hub started no dashboard server"
        nobody = pwd.getpwnam(SERVICE_USER).pw_uid
        assert {real_uid(pid) for pid in served} == {nobody}

        # a visitor without a login: the dashboard sends them to the hub's OAuth page...
        status, headers, _ = anonymous(hub + SERVICE)
        assert status == 302, (status, headers)
        authorize = urljoin(hub + SERVICE, headers["location"])
        assert urlsplit(authorize).path == "/hub/api/oauth2/authorize", authorize
        query = parse_qs(urlsplit(authorize).query)
        assert query["client_id"] == ["service-amteach"]
        assert query["redirect_uri"] == [f"{SERVICE}oauth_callback"]
        # ... which sends them to the hub's login, and no page of the dashboard is served
        status, headers, _ = anonymous(authorize)
        assert status == 302 and urlsplit(headers["location"]).path == "/hub/login", headers
        # a join link, the kernels' API and the phones' websocket refuse them too
        status, headers, _ = anonymous(hub + SERVICE + "?room=ABCDEF")
        assert status == 302 and "/hub/api/oauth2/authorize" in headers["location"]
        assert anonymous(hub + SERVICE + "api/kernels")[0] in (302, 403)
        status, _, body = anonymous(hub + SERVICE + "amteach/phone/ws")
        assert status == 403, (status, body[:300])
        # known to the hub but without the scope the guide's role gives: refused
        request = urllib.request.Request(
            hub + SERVICE, headers={"Authorization": f"token {OTHER_TOKEN}"}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.build_opener(NoRedirect).open(request, timeout=60)
        assert refused.value.code == 403
        assert b"403: Forbidden" in refused.value.read()
        # the health check for load balancers needs no login, and holds counts only
        status, _, body = anonymous(hub + SERVICE + "health")
        assert status == 200
        assert json.loads(body)["room"] is True

        # a user logs in at the hub (the dummy authenticator) and lands on the dashboard
        # (in the module's Chromium, in a context of its own)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(hub + SERVICE)
        assert urlsplit(page.url).path == "/hub/login", page.url
        page.locator("#username_input").fill("ana")
        page.locator("#password_input").fill("class-password")
        page.locator("#login_submit").click()
        page.wait_for_url(re.compile(re.escape(hub + SERVICE)), timeout=WAIT)
        # the hub knows the user, and the service has its own cookie from the hub's OAuth
        cookies = {c["name"] for c in page.context.cookies()}
        assert any(name.startswith("jupyterhub-session") for name in cookies), cookies
        assert "service-amteach" in cookies, cookies
        plays_a_turn(page)
        assert page.url.startswith(f"{hub}{SERVICE}")
        # the kernel that played the turn runs as the service's user too
        served = served_processes(process.pid)
        assert any("ipykernel" in " ".join(command_line(pid)) for pid in served), served
        assert {real_uid(pid) for pid in served} == {nobody}
        page.context.close()
    assert errors == []


def per_user_config() -> str:
    """The jupyterhub_config.py of docs/deploy.md for Voilà in each student's own server."""
    text = (REPO / "docs" / "deploy.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python jupyterhub-per-user\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/deploy.md has one per-user jupyterhub_config.py"
    return blocks[0]


def test_a_students_own_server_copies_the_notebooks_and_opens_the_dashboard(browser):
    """The per-user way as written: the student's server (not the hub: the guide has no
    pre_spawn_hook) copies the notebooks into the student's home as it starts, and the
    default_url is the copied dashboard, which plays a turn."""
    config = per_user_config()
    assert "pre_spawn_hook" not in config
    folder = Path(tempfile.mkdtemp(prefix="amteach-hub-users-"))
    homes = folder / "home"
    # the class database: a SQLite file here in place of the guide's PostgreSQL
    assert "postgresql://amteach@db.example.org/amteach" in config
    config = config.replace(
        "postgresql://amteach@db.example.org/amteach", str(folder / "class.sqlite")
    )
    port, settings = hub_settings(folder)
    config += settings
    config += f"""
# --- each user's server a local process, in a home of its own under the test's folder ---
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = "{homes}/{{username}}"
c.Spawner.start_timeout = 240
# the simple spawner keeps the hub's user, root here, which Jupyter's server refuses unless
# told (a real spawner runs each server as its student); passed through the guide's `cmd`
c.Spawner.args = ["--allow-root"]
c.Spawner.http_timeout = 240
"""
    hub = f"http://127.0.0.1:{port}"
    with running_hub(folder, config) as (process, log):
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{hub}/hub/login")
        page.locator("#username_input").fill("ana")
        page.locator("#password_input").fill("class-password")
        page.locator("#login_submit").click()
        # the hub starts ana's server, which opens its default_url
        dashboard = "/user/ana/voila/render/amteach/notebooks/dashboard.ipynb"
        try:
            page.wait_for_url(re.compile(re.escape(hub + dashboard)), timeout=WAIT)
        except PlaywrightTimeout:
            pytest.fail(f"never reached the dashboard, at {page.url}:\n" + "".join(log[-30:]))
        # the copy is in ana's home, made by her server's command before it started
        copied = homes / "ana" / "amteach" / "notebooks"
        assert (copied / "dashboard.ipynb").is_file()
        assert {p.name for p in copied.glob("*.ipynb")} >= {"dashboard.ipynb", "who-wins.ipynb"}
        server = [
            pid
            for pid in descendants(process.pid)
            if "jupyterhub-singleuser" in " ".join(command_line(pid))
        ]
        assert server, "ana's server is not the hub's child"
        assert Path(f"/proc/{server[0]}/cwd").resolve() == (homes / "ana").resolve()
        # the dashboard plays
        plays_a_turn(page)
        page.context.close()
    assert errors == []
