"""The served dashboard attacked as a visitor would: over HTTP, on the kernel's websocket, and in
a real browser (Debian's Chromium through Playwright). The dashboard is served exactly as
`amteach dashboard` serves it, from a copy of its notebook in a temporary folder that also
holds files a visitor must not reach; after every test those files are unchanged and nothing
was added beside them. The kernel-side checks are in tests/test_visitor_safety.py."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from browser import watched_page
from tornado.websocket import websocket_connect

from amteach.content import dashboard_notebook
from amteach.engine.game import Game

SHOTS = Path(__file__).resolve().parents[1] / "test-output" / "browser"
# names a person could type: each would run a script if it reached the page as HTML
# each fits a player's name (24 characters at most) and would set a global if it ran
XSS_NAMES = ("<img src=x onerror=X=1>", "<script>Y=2</script>")


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@dataclass(frozen=True)
class Site:
    """The served dashboard (`server`: its url, process and log), the folder `root` around it,
    and a snapshot of `root` before it was served."""

    server: Any
    root: Path
    before: dict[str, tuple[bytes, int]]

    @property
    def url(self) -> str:
        return self.server.url


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The dashboard served as `amteach dashboard` serves it (its command line and its
    environment), with the server's log kept, once for the whole module: root/served/
    dashboard.ipynb is served (the kernels start in root/served); beside it lie a picture and a
    saved game, and root holds the targets of an absolute and a `../` path. No test, and no
    hostile visitor of any test, changes a file under root."""
    from served import dashboard_server

    from amteach.serving import TEMPLATE, UNOPENED_SECONDS, voila_command, voila_environment

    root = tmp_path_factory.mktemp("site")
    served = root / "served"
    served.mkdir()
    shutil.copyfile(dashboard_notebook(), served / "dashboard.ipynb")
    (served / "picture.png").write_bytes(b"\x89PNG not a dashboard file")
    (served / "amteach-game.json").write_text('{"kept": "in the served folder"}')
    (root / "above.json").write_text('{"kept": "one folder up"}')
    (root / "absolute.json").write_text('{"kept": "at an absolute path"}')
    before = snapshot(root)
    # dashboard_server puts the free port it found in place of "{port}"
    command = voila_command(
        served / "dashboard.ipynb",
        "{port}",
        "127.0.0.1",
        1,
        TEMPLATE,
        unopened_after=UNOPENED_SECONDS,
    )
    with voila_environment() as env, dashboard_server(command, env=env) as server:
        yield Site(server, root, before)
    assert snapshot(root) == before


def fetch(url: str) -> tuple[int, str, str]:
    """(status, Location header, body) without following redirects."""

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    try:
        with urllib.request.build_opener(Stay).open(url, timeout=300) as response:
            return response.status, "", response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Location") or "", err.read().decode("utf-8", "replace")


def in_a_thread(coroutine: Any) -> Any:
    """Run `coroutine` with asyncio in a thread of its own: the module's Chromium (Playwright's
    sync API) holds this thread's event loop once a browser test has run."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_voila_serves_no_file_of_the_notebook_folder(site):
    url, root, before = site.url, site.root, site.before
    for path in (
        "voila/files/picture.png",  # Voilà's default would serve pictures
        "voila/files/amteach-game.json",
        "voila/files/dashboard.ipynb",
        "voila/files/../above.json",
        "voila/files/%2e%2e/above.json",
        "picture.png",  # redirected to voila/files/
    ):
        status, location, body = fetch(url + path)
        if status == 302:
            status, _, body = fetch(url.rstrip("/") + location)
        assert status == 403, (path, status)
        assert "kept" not in body and "PNG" not in body
    # what the page does need: the template's own static files
    status, _, body = fetch(url + "voila/templates/amteach/static/projector.css")
    assert status == 200 and "classroom" in body
    for path in ("voila/templates/amteach/conf.json", "voila/static/../../../etc/passwd"):
        status, _, body = fetch(url + path)
        assert status >= 400 and "root:" not in body
    assert snapshot(root) == before


def test_the_jupyter_api_and_editor_routes_only_redirect_to_refused_files(site):
    url, root, before = site.url, site.root, site.before
    for path in (
        "api/contents",
        "api/contents/dashboard.ipynb",
        "api/sessions",
        "api/terminals",
        "api/kernels",
        "api/kernelspecs",
        "lab",
        "tree",
        "edit/dashboard.ipynb",
        "files/amteach-game.json",
    ):
        status, location, _ = fetch(url + path)
        assert status == 302 and location == "/voila/files/" + path, (path, status, location)
        status, _, body = fetch(url.rstrip("/") + location)
        assert status == 403 and "kept" not in body and '"content"' not in body
    assert snapshot(root) == before


async def execute_over_the_websocket(url: str, kernel: str, code: str) -> list[dict]:
    """Send `code` as a raw execute_request on the kernel's websocket, then a
    kernel_info_request (which Voilà allows). The kernel answers shell requests in order, so
    once the info reply is in, an executed request would have been answered too. Returns
    every message received."""
    session = uuid.uuid4().hex
    socket = await websocket_connect(
        f"{url.replace('http', 'ws', 1)}api/kernels/{kernel}/channels?session_id={session}"
    )

    def request(msg_type: str, content: dict) -> tuple[str, str]:
        msg_id = uuid.uuid4().hex
        header = {
            "msg_id": msg_id,
            "msg_type": msg_type,
            "session": session,
            "username": "visitor",
            "version": "5.3",
            "date": "2024-01-01T00:00:00Z",
        }
        message = {
            "header": header,
            "parent_header": {},
            "metadata": {},
            "content": content,
            "channel": "shell",
            "buffers": [],
        }
        return msg_id, json.dumps(message)

    execute_id, execute = request(
        "execute_request",
        {"code": code, "silent": False, "store_history": False, "allow_stdin": False},
    )
    info_id, info = request("kernel_info_request", {})
    await socket.write_message(execute)
    await socket.write_message(info)
    received = []
    while True:
        raw = await asyncio.wait_for(socket.read_message(), timeout=300)
        assert raw is not None, "the kernel's websocket closed"
        message = json.loads(raw)
        received.append(message)
        if (
            message["header"]["msg_type"] == "kernel_info_reply"
            and message["parent_header"].get("msg_id") == info_id
        ):
            break
    socket.close()
    assert all(m["parent_header"].get("msg_id") != execute_id for m in received)
    return received


def test_a_raw_execute_request_on_the_kernel_websocket_runs_nothing(site):
    url, root, before = site.url, site.root, site.before
    status, _, page = fetch(url)
    assert status == 200
    kernel = re.search(r'"kernelId": "([0-9a-f-]{36})"', page).group(1)
    marker = root / "executed.txt"
    code = f"open({str(marker)!r}, 'w').write('a visitor ran code')"
    received = in_a_thread(execute_over_the_websocket(url, kernel, code))
    assert [m["header"]["msg_type"] for m in received].count("kernel_info_reply") == 1
    assert not marker.exists()
    assert snapshot(root) == before


def html_names_save() -> bytes:
    game = Game.new([(XSS_NAMES[0], "competitor"), (XSS_NAMES[1], "monopolist")], seed=3)
    game.apply("roll")  # the narration names the player
    return json.dumps(game.to_save()).encode()


def test_a_visitor_finds_no_way_to_the_servers_files_and_names_stay_text(site, browser):
    url, root, before = site.url, site.root, site.before
    SHOTS.mkdir(parents=True, exist_ok=True)
    console_errors: list[str] = []
    attempts = (str(root / "absolute.json"), "../above.json", "/etc/passwd")
    page = watched_page(
        browser, url, console_errors, accept_downloads=True, timeout=300_000
    )  # the machine may be loaded
    page.locator(".am-choices button", has_text="Roll").wait_for(timeout=180_000)
    page.get_by_text("Rules and players for New game, save and load").click()
    save = page.get_by_role("button", name="Save (download)")
    save.wait_for(timeout=120_000)

    # 1. no box takes a path, and no button saves or loads by one
    # (a slider's number readout is the only other thing a visitor can type in)
    typed = "input[type=text], textarea, [contenteditable=true]:not(.widget-readout)"
    assert page.locator(typed).count() == 0
    assert page.get_by_role("button", name="Save", exact=True).count() == 0
    assert page.get_by_role("button", name="Load", exact=True).count() == 0
    # every field a visitor can type in (the seed) refuses a path; then press everything
    for field in page.locator(".am-files input:not([type=file])").all():
        for path in attempts:
            field.click()
            page.keyboard.press("Control+A")
            page.keyboard.type(path)
            page.keyboard.press("Enter")
            assert "/" not in field.input_value()
    page.screenshot(path=str(SHOTS / "security-1-files.png"))

    # 2. Save is a download to the visitor's computer, named by the page
    with page.expect_download(timeout=120_000) as download:
        save.click()
    assert download.value.suggested_filename == "amteach-game.json"
    saved = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert saved["format"] == "amteach-game" and saved["setup"]["players"][0]["name"] == "Ana"

    # 3. Load is an upload of the visitor's own file: /etc/passwd is refused, not shown
    def upload(files) -> None:
        with page.expect_file_chooser(timeout=120_000) as chooser:
            page.get_by_role("button", name="Load (upload)").click()
        chooser.value.set_files(files)

    upload("/etc/passwd")
    page.get_by_text("not valid JSON").wait_for(timeout=120_000)
    assert "root:" not in page.locator("body").inner_text()

    # 4. players named with HTML are shown as text, and no script runs
    upload([{"name": "names.json", "mimeType": "application/json", "buffer": html_names_save()}])
    page.get_by_text("Loaded a saved game").wait_for(timeout=120_000)
    # the wealth chart's legend names the players too (plotly reads some tags in labels)
    page.wait_for_function(
        "(name) => [...document.querySelectorAll('.am-charts .legendtext')]"
        ".some((label) => label.textContent.startsWith(name))",
        arg=XSS_NAMES[0],
        timeout=120_000,
    )
    page.screenshot(path=str(SHOTS / "security-2-html-names.png"))
    narration = page.locator(".am-narration").inner_text()
    assert XSS_NAMES[0] in narration
    assert XSS_NAMES[1] in page.locator(".am-cards").inner_text()
    assert page.evaluate("[window.X, window.Y]") == [None, None]
    assert page.locator("img[src='x']").count() == 0
    with page.expect_download(timeout=120_000) as download:
        save.click()
    saved = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert [p["name"] for p in saved["setup"]["players"]] == list(XSS_NAMES)
    page.close()
    assert console_errors == []
    assert snapshot(root) == before


# -- widget callbacks that fail: one plain line, no traceback over the websocket (issue 22) ----

WS_PROTOCOL = "v1.kernel.websocket.jupyter.org"
# what a traceback sent to the page would contain: IPython's error message and source lines
TRACEBACK_MARKS = (b"Traceback", b"traceback", b'File "', b'.py", line', b'"evalue"')


def page_kernel(url: str) -> str:
    status, _, page = fetch(url)
    assert status == 200
    return re.search(r'"kernelId": "([0-9a-f-]{36})"', page).group(1)


async def forge_failing_callbacks(
    url: str, kernel: str, forge_widget: bool = False
) -> tuple[list[bytes], dict, dict]:
    """As a hostile page would: open the kernel's websocket, read every widget's state, then send
    three messages each of which makes a widget callback fail in the kernel: a click whose
    content is not a click (the button's own handler fails), an upload value that is not a file
    (the upload widget cannot read it), and a choice out of range (a dropdown's index 9999).
    Returns every frame received, the widgets' states as they were, and their updates since."""
    from jupyter_server.services.kernels.connection.base import (
        deserialize_msg_from_ws_v1,
        serialize_msg_to_ws_v1,
    )

    socket = await websocket_connect(
        f"{url.replace('http', 'ws', 1)}api/kernels/{kernel}/channels?session_id={uuid.uuid4()}",
        subprotocols=[WS_PROTOCOL],
    )
    frames: list[bytes] = []
    states: dict[str, dict] = {}
    updates: dict[str, dict] = {}
    waiting: dict[str, asyncio.Future] = {}

    async def read() -> None:
        while (frame := await socket.read_message()) is not None:
            frames.append(frame if isinstance(frame, bytes) else frame.encode())
            channel, parts = deserialize_msg_from_ws_v1(frames[-1])
            header, parent, _, content = (json.loads(part) for part in parts[:4])
            data = content.get("data", {}) if isinstance(content, dict) else {}
            if header.get("msg_type") == "comm_open":  # a widget built since (an opened panel)
                states[content["comm_id"]] = dict(data.get("state", {}))
            elif data.get("method") == "update_states":
                states.update({k: dict(v["state"]) for k, v in data["states"].items()})
            elif data.get("method") == "update":  # (not the echo of what was sent)
                updates.setdefault(content["comm_id"], {}).update(data.get("state", {}))
            done = waiting.get(parent.get("msg_id"))
            if channel == "iopub" and content.get("execution_state") == "idle" and done:
                done.set_result(None)

    async def request(msg_type: str, content: dict, metadata: dict | None = None) -> None:
        """Send a message; wait until the kernel is idle again after it."""
        header = {
            "msg_id": uuid.uuid4().hex,
            "msg_type": msg_type,
            "session": "hostile",
            "username": "visitor",
            "version": "5.3",
            "date": "2024-01-01T00:00:00Z",
        }
        parts = [json.dumps(p).encode() for p in (header, {}, metadata or {}, content)]
        done = waiting[header["msg_id"]] = asyncio.get_running_loop().create_future()
        await socket.write_message(serialize_msg_to_ws_v1(parts, "shell"), binary=True)
        await asyncio.wait_for(done, 300)

    reader = asyncio.ensure_future(read())
    await request("kernel_info_request", {})
    control = str(uuid.uuid4())
    await request(
        "comm_open",
        {"comm_id": control, "target_name": "jupyter.widget.control", "data": {}},
        {"version": "1.0.0"},
    )
    await request("comm_msg", {"comm_id": control, "data": {"method": "request_states"}})

    def comm_of(model: str, **having: Any) -> str:
        return next(
            comm
            for comm, state in states.items()
            if state.get("_model_name") == model
            and all(state.get(k) == v for k, v in having.items())
        )

    roll = comm_of("ButtonModel", description="Roll")
    # the upload is in the Play tab's closed panel "Rules and players ...", built when opened
    panel = next(
        comm
        for comm, state in states.items()
        if any("Rules and players" in title for title in state.get("titles", ()))
    )
    opening = {"method": "update", "state": {"selected_index": 0}, "buffer_paths": []}
    await request("comm_msg", {"comm_id": panel, "data": opening})
    updates.clear()  # what opening it changed; what the forged messages change is next
    upload = comm_of("FileUploadModel")
    dropdown = comm_of("DropdownModel")
    forged = (
        (roll, {"method": "custom", "content": "not a click"}),
        (
            upload,
            {"method": "update", "state": {"value": [{"name": "x.json"}]}, "buffer_paths": []},
        ),
        (dropdown, {"method": "update", "state": {"index": 9999}, "buffer_paths": []}),
    )
    for comm, data in forged:
        await request("comm_msg", {"comm_id": comm, "data": data})
    if forge_widget:
        # a widget forged from the page (issue 36): its comm_open fails in the kernel, whose
        # comm manager logs the traceback, on the server, never to the page (the kernel then
        # closes that comm on every page of the kernel, so a browser test leaves it out)
        await request(
            "comm_open",
            {"comm_id": str(uuid.uuid4()), "target_name": "jupyter.widget", "data": {"state": 5}},
            {"version": "2.1.0"},
        )
    socket.close()
    reader.cancel()
    return frames, states, updates


def forged_in_a_thread(
    url: str, kernel: str, forge_widget: bool = False
) -> tuple[list[bytes], dict, dict]:
    return in_a_thread(forge_failing_callbacks(url, kernel, forge_widget))


def problem_comm(states: dict) -> str:
    return next(c for c, s in states.items() if "am-problem" in s.get("_dom_classes", ()))


def wait_for_log(server: Any, *words: str) -> str:
    """The server's log once it holds every word (the kernel writes it as it handles)."""
    import time

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        text = "".join(server.log)
        if all(word in text for word in words):
            return text
        time.sleep(0.2)  # polling the log for a condition, never to pass
    pytest.fail("the server's log lacks " + ", ".join(words) + ":\n" + "".join(server.log[-30:]))


def test_failing_callbacks_send_no_traceback_over_the_websocket(site):
    from jupyter_server.services.kernels.connection.base import deserialize_msg_from_ws_v1

    from amteach.ui.callback_errors import PLAIN_LINE

    url = site.url
    frames, states, updates = forged_in_a_thread(url, page_kernel(url), forge_widget=True)
    for mark in TRACEBACK_MARKS:
        assert not any(mark in frame for frame in frames), mark
    kinds = {json.loads(deserialize_msg_from_ws_v1(f)[1][0])["msg_type"] for f in frames}
    assert "error" not in kinds and "stream" not in kinds, kinds
    # the page's problem line now says one plain sentence, and nothing else changed
    problem = problem_comm(states)
    assert PLAIN_LINE in updates[problem]["value"]
    shown = states[problem]["layout"].removeprefix("IPY_MODEL_")
    assert updates[shown] == {"display": None}
    # nothing else changed: not the game, not the forged widgets
    assert set(updates) == {problem, shown}, {states[c].get("_model_name") for c in updates}
    # each failure went to the server's log, with its traceback
    log = wait_for_log(
        site.server,
        "a widget callback failed",
        "AttributeError",
        "KeyError",
        "Exception opening comm with target: jupyter.widget",
    )
    assert log.count("a widget callback failed") >= 3 and "Traceback" in log


def test_a_failing_callback_shows_one_plain_line_in_the_browser(site, browser):
    from amteach.ui.callback_errors import PLAIN_LINE

    url = site.url
    console_errors: list[str] = []
    page = watched_page(browser, url, console_errors, timeout=300_000)
    page.locator(".am-choices button", has_text="Roll").wait_for(timeout=180_000)
    narration = page.locator(".am-narration").inner_text()
    assert not page.locator(".am-problem").is_visible()
    kernel = page.evaluate(
        "JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"
    )
    # a hostile student forges the messages from their own script, beside the page
    forged_in_a_thread(url, kernel)
    line = page.locator(".am-problem")
    line.wait_for(state="visible", timeout=120_000)
    assert line.inner_text().strip() == PLAIN_LINE
    box = line.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 720
    body = page.locator("body").inner_text()
    assert "Traceback" not in body and "Error" not in body
    assert page.locator(".am-narration").inner_text() == narration
    assert page.locator(".am-choices button", has_text="Roll").is_enabled()
    page.screenshot(path=str(SHOTS / "security-3-callback-error.png"))
    page.close()
    assert console_errors == []


def resident_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no resident size for process {pid}")


def test_an_alias_bomb_and_hostile_uploads_get_one_line_and_keep_memory_and_game(site, browser):
    """Issue 22, as a hostile student in Chromium: 283 characters of YAML aliases in the sweep's
    Values box (it became a 17 MB message and a 1.2 GB server), then a save nested 5,000 deep
    (an uncaught RecursionError) and one of 2.5 MB. Each gets one short line; the server's and
    the kernel's memory stay flat; the game on the Play tab is unchanged."""
    from test_bad_input import alias_bomb

    url = site.url
    console_errors: list[str] = []
    page = watched_page(browser, url, console_errors, timeout=300_000)
    page.locator(".am-choices button", has_text="Roll").wait_for(timeout=180_000)
    narration = page.locator(".am-narration").inner_text()
    kernel = page.evaluate(
        "JSON.parse(document.getElementById('jupyter-config-data').textContent).kernelId"
    )
    processes = (site.server.process.pid, site.server.kernels()[kernel])

    page.get_by_role("tab", name="Is it fair?", exact=True).click()
    values = page.locator("input[placeholder='e.g. 10, 85, 160']")
    values.wait_for(timeout=180_000)
    sweep = page.locator(".am-batch", has=values)
    before = sum(resident_kb(pid) for pid in processes)
    values.fill(alias_bomb() + ", 10")
    sweep.get_by_role("button", name="Run").click()
    said = sweep.get_by_text("anchors and aliases (& and *) are not accepted")
    said.wait_for(timeout=180_000)
    assert len(said.inner_text()) < 400
    grown = sum(resident_kb(pid) for pid in processes) - before
    assert grown < 50_000, f"the server and its kernel grew by {grown} kB"
    page.screenshot(path=str(SHOTS / "security-4-alias-bomb.png"))

    page.get_by_role("tab", name="Play", exact=True).click()
    page.get_by_text("Rules and players for New game, save and load").click()
    for name, content, words in (
        ("deep.json", b"[" * 5000 + b"]" * 5000, "nested too deeply"),
        ("big.json", b" " * 2_500_000, "at most 2 MB"),
    ):
        with page.expect_file_chooser(timeout=120_000) as chooser:
            page.get_by_role("button", name="Load (upload)").click()
        chooser.value.set_files([{"name": name, "mimeType": "application/json", "buffer": content}])
        line = page.get_by_text(words)
        line.wait_for(timeout=120_000)
        assert "the current game is kept" in line.inner_text()
        assert len(line.inner_text()) < 300 and "\n" not in line.inner_text().strip()
        assert page.locator(".am-narration").inner_text() == narration
    assert not page.locator(".am-problem").is_visible()  # every one was answered, none failed
    line.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "security-5-big-upload.png"))
    page.close()
    assert console_errors == []
