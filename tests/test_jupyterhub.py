"""The dashboard through a real JupyterHub on loopback, as docs/deploy.md recommends for a class:
one shared `amteach dashboard` that the hub starts and stops as a service, at /services/amteach/.
The hub (from PyPI), its proxy (configurable-http-proxy from npm, installed by ./dev into
.tools/chp), a dummy authenticator and a local spawner run in a temporary folder on free ports;
everything is stopped by process id. A user logs in at the hub, opens the dashboard, and plays a
turn in Chromium: Roll, then an event in "What happened"."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from browser import free_port, launch_chromium
from playwright.sync_api import sync_playwright
from served import REPO

PROXY = REPO / ".tools" / "chp" / "node_modules" / ".bin" / "configurable-http-proxy"
WAIT = 180_000  # ms
SERVICE = "/services/amteach/"


def hub_config() -> str:
    """The jupyterhub_config.py of docs/deploy.md (the service way)."""
    text = (REPO / "docs" / "deploy.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python jupyterhub-service\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/deploy.md has one hub-service jupyterhub_config.py"
    return blocks[0]


def descendants(pid: int) -> list[int]:
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


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@contextmanager
def jupyterhub(folder: Path) -> Iterator[str]:
    """JupyterHub with the documented config, its paths and ports made the test's own; yields
    the hub's public address. Stopped by its process id; whatever it started that is still
    alive afterwards (it should stop its proxy and its service itself) is stopped by pid."""
    assert PROXY.exists(), "./dev installs configurable-http-proxy into .tools/chp"
    port, hub_port, api_port, service_port = (free_port() for _ in range(4))
    bin_dir = Path(sys.executable).parent
    config = hub_config()
    # the documented paths and ports, made this test's own
    config = config.replace("/srv/amteach/venv/bin/", f"{bin_dir}/")
    config = config.replace("/srv/amteach/class.sqlite", str(folder / "class.sqlite"))
    config = config.replace("http://127.0.0.1:8866", f"http://127.0.0.1:{service_port}")
    config = config.replace('"--port", "8866"', f'"--port", "{service_port}"')
    config = re.sub(r'"--pool", "\d+"', '"--pool", "1"', config)
    assert str(service_port) in config and f"{bin_dir}/amteach" in config, config
    config += f"""
# --- the test's own users: anyone may log in with any password ---
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
# --- the test's own folder and ports ---
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{str(PROXY)!r}]
c.JupyterHub.db_url = "sqlite:///{folder / "hub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(folder / "cookie_secret")!r}
c.JupyterHub.pid_file = {str(folder / "hub.pid")!r}
c.ConfigurableHTTPProxy.pid_file = {str(folder / "proxy.pid")!r}
"""
    (folder / "jupyterhub_config.py").write_text(config)
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

    def read() -> None:
        # the service's log comes through the hub's: ready once both say they serve
        for line in process.stdout:
            log.append(line)
            text = "".join(log)
            if "JupyterHub is now running at" in text and "Voilà is running at" in text:
                started.set()
        started.set()

    threading.Thread(target=read, daemon=True).start()
    started_by_hub: list[int] = []
    try:
        started.wait(240)
        text = "".join(log)
        if process.poll() is not None or "Voilà is running at" not in text:
            pytest.fail("JupyterHub or its service did not start:\n" + "".join(log[-40:]))
        yield f"http://127.0.0.1:{port}"
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
        # nothing went wrong while it served (at shutdown, a kernel still building its page
        # may complain that its sockets closed under it: that is the stop, not the service)
        served = "".join(log).split("Received signal SIGTERM", 1)[0]
        assert "Traceback" not in served, served[-6000:]


def service_answers(url: str) -> bool:
    """True once the dashboard itself answers through the hub's proxy: a file it does not
    serve gets its refusal (the proxy's own 503 while the service is down). Costs no kernel."""
    try:
        with urllib.request.urlopen(url + "no-such-file", timeout=30):
            return True
    except urllib.error.HTTPError as err:
        return err.code in (403, 404) and "Tornado" in err.headers.get("Server", "")
    except OSError:
        return False


def test_a_user_logs_in_at_the_hub_and_plays_a_turn_on_the_dashboard_service(tmp_path):
    with jupyterhub(tmp_path) as hub, sync_playwright() as playwright:
        # the hub started its service and routes it
        assert service_answers(hub + SERVICE)
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        # log in with the dummy authenticator, then to the dashboard
        page.goto(f"{hub}/hub/login?next={SERVICE}")
        page.locator("#username_input").fill("ana")
        page.locator("#password_input").fill("class-password")
        page.locator("#login_submit").click()
        page.wait_for_url(re.compile(re.escape(SERVICE)), timeout=WAIT)
        # the hub knows the user now
        cookies = {c["name"] for c in page.context.cookies()}
        assert any(name.startswith("jupyterhub-session") for name in cookies), cookies
        roll = page.locator(".am-choices button", has_text="Roll")
        roll.wait_for(timeout=WAIT)
        narration = page.locator(".am-narration")
        before = narration.inner_text()
        roll.click()
        page.wait_for_function(
            "(before) => { const n = document.querySelector('.am-narration');"
            " return n && n.innerText !== before && n.innerText.includes('throws'); }",
            arg=before,
            timeout=WAIT,
        )
        assert "throws" in narration.inner_text()
        assert page.url.startswith(f"{hub}{SERVICE}")
        browser.close()
    assert errors == []
