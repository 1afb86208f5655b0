"""nginx in front of the dashboard with the site file of `amteach dashboard --nginx-config`
(docs/deploy.md): the page's static files (Voilà's scripts, the template's styles and fonts,
the widget extensions) come from nginx, from the installed folders, gzipped and with cache
headers, and never reach the Python server; the rest (the page, the kernel's API and
websocket) is passed on, and the dashboard works through it. Times are measured in
benchmarks/bench_dashboard.py, never here."""

from __future__ import annotations

import http.client
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser import launch_chromium
from playwright.sync_api import sync_playwright
from served import Server, dashboard_server, nginx

from amteach.serving.environment import AMTEACH_TEMPLATE, LEAN_TEMPLATE, TEMPLATE

WAIT = 180_000
BASE = "/amteach/"
# the static URL paths the site file gives to nginx
STATIC = re.compile(
    rf"^{BASE}voila/(static/|labextensions/|templates/amteach/static/)[^?]+(\?.*)?$"
)
YEAR = "public, max-age=31536000, immutable"


def written_site_file(upstream_port: int, template: str | None = None, process: bool = True) -> str:
    """The site file, as `amteach dashboard --nginx-config` prints it for this server: the
    command in a process of its own, or (`process=False`) run in this one by click's test
    runner, which keeps stdout and stderr apart too. A process of its own imports Voilà and
    Jupyter's server anew, 5 CPU-seconds: the module runs the command so once (the amteach
    template's site file), which shows a real process prints the site file and nothing on
    stderr; the lean template's is the same command with another --template (issue 40)."""
    options = [
        "dashboard",
        "--nginx-config",
        f"--port={upstream_port}",
        f"--base-url={BASE}",
        *([f"--template={template}"] if template else []),
    ]
    if not process:
        from click.testing import CliRunner

        from amteach.cli import main

        ran = CliRunner().invoke(main, options)
        assert ran.exit_code == 0, (ran.stderr, ran.exception)
        assert ran.stderr == ""
        return ran.stdout
    done = subprocess.run(
        [sys.executable, "-m", "amteach", *options],
        capture_output=True,
        text=True,
        timeout=600,  # a loaded machine: 225 s wall for its 5 CPU-seconds at load 30
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def access_log(folder: Path) -> list[tuple[int, str, str]]:
    """(status, path, upstream) of each request nginx answered; upstream "-" is nginx itself
    (tests/served.py's log format)."""
    lines = (folder / "access.log").read_text().splitlines()
    found = []
    for line in lines:
        status, request, upstream = re.fullmatch(r'(\d+) "(.*)" upstream=(.*)', line).groups()
        found.append((int(status), request.split(" ")[1], upstream))
    return found


def raw_get(port: int, path: str) -> tuple[int, bytes]:
    """A GET of `path` exactly as written (no client-side clean-up of dot segments)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.putrequest("GET", path, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_static_files_come_from_nginx_gzipped_and_cached_and_the_dashboard_plays(tmp_path):
    # the amteach template's page, whichever is the default: Voilà's scripts and extensions.
    # No preheated kernel (issue 40): each of the two visits starts its page's kernel, where a
    # pool of one started a third for the pool that nothing opened; what is asserted here is
    # where the page's files come from, which a pool does not change
    with dashboard_server(pool=0, base_url=BASE, template=AMTEACH_TEMPLATE) as server:
        upstream = int(server.url.split(":")[2].split("/")[0])
        site = written_site_file(upstream, AMTEACH_TEMPLATE)
        with nginx(site, tmp_path) as port, sync_playwright() as pw:
            url = f"http://127.0.0.1:{port}{BASE}"
            browser = launch_chromium(pw)
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            page = context.new_page()
            console_errors: list[str] = []
            page.on(
                "console", lambda m: console_errors.append(m.text) if m.type == "error" else None
            )
            page.on("pageerror", lambda error: console_errors.append(str(error)))
            responses = []
            page.on("response", lambda response: responses.append(response))
            page.goto(url, timeout=WAIT)  # the default 30 s ran out at load 70
            page.wait_for_function(
                "[...document.querySelectorAll('.am-choices button')]"
                ".some(b => b.innerText.includes('Roll') && !b.disabled)",
                timeout=WAIT,
            )
            # a turn through nginx: the click and the narration travel over the websocket
            page.locator(".am-choices button", has_text="Roll").click()
            page.wait_for_function(
                "document.querySelector('.am-narration').innerText.includes('throws')",
                timeout=WAIT,
            )

            static = {}
            for response in responses:
                path = response.url.removeprefix(f"http://127.0.0.1:{port}")
                if STATIC.match(path):
                    static[path] = response
            kinds = {p.split("/")[3] for p in static}
            assert kinds == {"static", "labextensions", "templates"}, kinds
            chunks = [p for p in static if re.search(r"/voila/static/\d+\.voila\.js$", p)]
            assert len(chunks) > 20, sorted(static)  # Voilà's script chunks
            for path, response in static.items():
                headers = response.all_headers()
                assert response.status == 200, (path, response.status)
                assert headers.get("x-served-by") == "nginx static", (path, headers)
                if re.search(r"\.(js|css)(\?|$)", path) and len(response.body()) > 1024:
                    assert headers.get("content-encoding") == "gzip", (path, headers)
                if "?v=" in path:
                    assert headers["cache-control"] == YEAR, (path, headers)
            for path in chunks:  # unversioned names: checked again on each visit
                headers = static[path].all_headers()
                assert headers["cache-control"] == "no-cache", (path, headers)
                assert headers.get("etag"), (path, headers)
            remote_entries = [p for p in static if "/remoteEntry." in p]
            assert len(remote_entries) == 3, remote_entries  # the three widget extensions
            for path in remote_entries:  # a hash of the content in the name
                assert static[path].all_headers()["cache-control"] == YEAR, path

            # the Python server never saw them: nginx answered each itself
            log = access_log(tmp_path)
            answered = {path: upstream for _, path, upstream in log}
            for path in static:
                assert answered[path] == "-", (path, answered[path])
            # while the page, the kernel's API and its websocket went through to the server
            assert answered[BASE].startswith("127.0.0.1:")
            assert any(
                p.startswith(f"{BASE}api/kernels/") and u != "-" for p, u in answered.items()
            )

            # a second visit in the same browser: versioned files come from its cache, the
            # others are checked again (304 from nginx)
            before = len(log)
            page.close()
            again = context.new_page()
            again.on(
                "console", lambda m: console_errors.append(m.text) if m.type == "error" else None
            )
            again.goto(url, timeout=WAIT)
            again.wait_for_function(
                "[...document.querySelectorAll('.am-choices button')]"
                ".some(b => b.innerText.includes('Roll') && !b.disabled)",
                timeout=WAIT,
            )
            second = access_log(tmp_path)[before:]
            asked = {path: (status, upstream) for status, path, upstream in second}
            assert not [p for p in remote_entries if p in asked], asked
            revalidated = [p for p in chunks if p in asked]
            assert revalidated and all(asked[p] == (304, "-") for p in revalidated), asked
            browser.close()
        assert console_errors == []


ROLL_ENABLED = (
    "[...document.querySelectorAll('.am-choices button')]"
    ".some(b => b.innerText.includes('Roll') && !b.disabled)"
)


@dataclass(frozen=True)
class LeanSite:
    port: int  # nginx's
    folder: Path  # nginx's configuration and logs (access_log reads it)
    server: Server  # the dashboard server behind nginx, which a test may also ask directly


@pytest.fixture(scope="module")
def lean_site(tmp_path_factory) -> Iterator[LeanSite]:
    """The lean template (the default) under BASE, behind nginx with the site file written for
    it, shared by the tests that need that pair (issue 40: one server, one site file written
    and one nginx fewer): the lean page's and the hostile paths'; and its server, asked
    directly, by the two tests of the Python server's own static files (one server and its
    kernels fewer again). None changes the server; each reads only its own lines of the access
    log. No preheated kernel: each page asked for starts its own (a pool of one started one
    more for the pool, which nothing opened), and nothing here counts kernels."""
    folder = tmp_path_factory.mktemp("lean-site")
    with dashboard_server(pool=0, base_url=BASE, template=LEAN_TEMPLATE) as server:
        upstream = int(server.url.split(":")[2].split("/")[0])
        with nginx(written_site_file(upstream, LEAN_TEMPLATE, process=False), folder) as port:
            yield LeanSite(port, folder, server)


def test_the_lean_page_gets_its_files_from_nginx_and_plays(lean_site):
    """The amteach-lean template (issue 24) behind nginx, with the site file written for it:
    its script and styles, and the amteach template's projector styles it links, come from
    nginx, gzipped (the versioned ones cached a year), and never reach the Python server; the
    page loads none of Voilà's scripts or widget extensions; a turn plays through nginx."""
    port = lean_site.port
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        console_errors: list[str] = []
        page.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: console_errors.append(str(error)))
        responses = []
        page.on("response", lambda response: responses.append(response))
        page.goto(f"http://127.0.0.1:{port}{BASE}", timeout=WAIT)
        page.wait_for_function(ROLL_ENABLED, timeout=WAIT)
        page.locator(".am-choices button", has_text="Roll").click()
        page.wait_for_function(
            "document.querySelector('.am-narration').innerText.includes('throws')",
            timeout=WAIT,
        )
        static = {}
        for response in responses:
            path = response.url.removeprefix(f"http://127.0.0.1:{port}")
            if re.match(rf"{BASE}voila/(static|labextensions|templates)/", path):
                static[path] = response
        names = {path.split("?")[0].rsplit("/", 1)[1] for path in static}
        assert {"amteach-lean.js", "amteach-lean.css", "projector.css"} <= names, names
        assert not [p for p in static if "/voila/static/" in p or "/labextensions/" in p]
        for path, response in static.items():
            headers = response.all_headers()
            assert response.status == 200, (path, response.status)
            assert headers.get("x-served-by") == "nginx static", (path, headers)
            if re.search(r"\.(js|css)(\?|$)", path) and len(response.body()) > 1024:
                assert headers.get("content-encoding") == "gzip", (path, headers)
            # versioned, or named by their content (the lean script's chunks, issue 40)
            if "?v=" in path or re.search(r"/chunk-[A-Z0-9]{8}\.js$", path):
                assert headers["cache-control"] == YEAR, (path, headers)
        assert any(name.startswith("chunk-") for name in names), names
        # the app's pages have no Output widget, non-widget output or math: the part of the
        # script that draws those is never fetched (docs/dashboard.md)
        assert "amteach-lean-rich.css" not in names, names
        answered = {path: upstream for _, path, upstream in access_log(lean_site.folder)}
        for path in static:
            assert answered[path] == "-", (path, answered[path])
        browser.close()
    assert console_errors == []


HOSTILE_PATHS = (
    "voila/static/../../../../../../etc/passwd",
    "voila/static/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "voila/labextensions/..%2f..%2f..%2f..%2f..%2f..%2f..%2f..%2fetc/passwd",
    "voila/templates/amteach/static/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc/passwd",
    "voila/templates/amteach/static//etc/passwd",
    "voila/static/%00/etc/passwd",
)


def test_a_path_outside_the_static_folders_gives_no_file(lean_site):
    """A hostile visitor's URL that tries to climb out of the static folders gets no file of
    the server's: nginx refuses it, or finds nothing and passes it to Voilà, which refuses.
    (The default template's site file: the lean template's, lean_site's.)"""
    assert TEMPLATE == LEAN_TEMPLATE
    for path in HOSTILE_PATHS:
        status, body = raw_get(lean_site.port, BASE + path)
        assert status in (400, 403, 404), (path, status, body[:200])
        assert b"root:" not in body, path


# The JupyterLab extensions a dashboard page loads (its scripts after the window's load event,
# before the kernel's websocket opens), and why each: Voilà's widget manager (it holds the
# kernel's connection); Jupyter's widget manager, whose plugins register ipywidgets' models
# and views (Voilà leaves out only its manager plugin); anywidget (plotly's charts and
# ui/lazy.py's ModuleReady). plotly's renderer and code highlighting are left out
# (serving.voila_command's extension_denylist): no output of ours needs them.
PAGE_EXTENSIONS = {
    "@voila-dashboards/widgets-manager8",
    "@jupyter-widgets/jupyterlab-manager",
    "anywidget",
}


def page_extensions(page: bytes) -> set[str]:
    """The names of the federated extensions in a Voilà page's configuration."""
    import json

    config = re.search(
        rb'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page, re.S
    )
    assert config, "no page configuration"
    return {extension["name"] for extension in json.loads(config.group(1))["federated_extensions"]}


@pytest.fixture(scope="module")
def plain_server(lean_site: LeanSite) -> Server:
    """`amteach dashboard`'s server asked directly, with no nginx on the way: lean_site's, the
    default template's server (issue 40: a server of their own cost a start, its kernels and
    its packing). Its base URL is BASE, not "/": the two tests of its static files ask for
    paths under the server's own URL, and compressing and packing do not depend on it."""
    return lean_site.server


def test_the_python_server_gzips_its_scripts_and_page_when_the_browser_accepts_it(plain_server):
    """Without nginx in front, `amteach dashboard` compresses what it sends (Voilà's scripts
    are 4.8 MB a page), and still sends plain bytes to a client that does not accept gzip.
    Static files (Voilà's scripts, the template's styles, the widget extensions) are
    compressed once and kept (app.PackedStaticFiles), and give the same file at each answer, a browser's cached copy is confirmed with a 304 (where the
    handler sends an ETag), and a range request gets its part. The page loads only the
    widget extensions it needs (PAGE_EXTENSIONS)."""
    import gzip
    import json
    import urllib.error
    import urllib.request

    server = plain_server
    extension = "voila/labextensions/anywidget/"
    with urllib.request.urlopen(server.url + extension + "package.json") as response:
        entry = json.load(response)["jupyterlab"]["_build"]["load"].removeprefix("./")
    static = (
        "voila/static/voila.js",
        "voila/templates/amteach/static/projector.css",
        extension + entry,  # a widget extension's script
    )
    for path in (*static, ""):
        asked = urllib.request.Request(server.url + path, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(asked, timeout=120) as response:
            assert response.headers["Content-Encoding"] == "gzip", (path, response.headers)
            first = response.read()
            tag = response.headers["Etag"]
            zipped = gzip.decompress(first)
        with urllib.request.urlopen(server.url + path, timeout=120) as response:
            assert response.headers["Content-Encoding"] is None
            plain = response.read()
        if not path:  # each page has a kernel of its own
            assert b'"kernelId"' in zipped and b'"kernelId"' in plain
            assert page_extensions(plain) == PAGE_EXTENSIONS
            continue
        assert zipped == plain and len(plain) > 1_000, path
        with urllib.request.urlopen(asked, timeout=120) as response:
            assert gzip.decompress(response.read()) == plain, path  # the same file again
        if tag:
            cached = urllib.request.Request(
                server.url + path, headers={"Accept-Encoding": "gzip", "If-None-Match": tag}
            )
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(cached, timeout=120)
            assert answer.value.code == 304, path
        part = urllib.request.Request(
            server.url + path, headers={"Accept-Encoding": "gzip", "Range": "bytes=0-99"}
        )
        with urllib.request.urlopen(part, timeout=120) as response:
            assert response.status == 206, path  # (tornado gzips the part on the fly)
            assert gzip.decompress(response.read()) == plain[:100], path


def test_nginx_config_names_what_was_wrong_in_one_line():
    """Bad options for `--nginx-config` give one clear message and no site file. (The command
    line run in this process, by click's test runner, which keeps stdout and stderr apart and
    turns any exception but the usage error's exit into another exit code: a process of its
    own for each, importing Voilà and Jupyter's server, took 5 CPU-seconds; issue 40. The
    command in a process of its own writes the site files above.)"""
    from click.testing import CliRunner

    from amteach.cli import main

    for options, message in (
        (["--template", "nope"], "no Voilà template named 'nope' is installed"),
        (["--public-url", "ftp://class.example.org/"], "--public-url: 'ftp://class.example.org/'"),
        (["--base-url", "a/../b"], "--base-url"),
    ):
        done = CliRunner().invoke(main, ["dashboard", "--nginx-config", *options])
        assert done.exit_code == 2, (options, done.stdout[-500:], done.exception)
        assert done.stdout == ""
        assert message in done.stderr and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_static_files_are_packed_before_the_first_visitor_asks(tmp_path):
    """The server packs the files a page may ask for when it starts (app.pack_ahead), so the
    first visitor after a start does not wait while it compresses about 90 files: every
    text file under the given folders is packed once, an extension the page never loads is
    left out, and images and files over the size limit are not packed."""
    import gzip

    from amteach.serving import app

    voila = tmp_path / "voila" / "static"
    voila.mkdir(parents=True)
    script = voila / "1234.voila.js"
    script.write_text("console.log('chunk');\n" * 200)
    style = voila / "index.css"
    style.write_text("body { margin: 0 }\n" * 50)
    picture = voila / "logo.png"
    picture.write_bytes(b"\x89PNG\r\n" + bytes(2000))
    huge = voila / "huge.js"
    huge.write_bytes(b"x" * (app.PACKED_MAX_BYTES + 1))
    skipped = tmp_path / "labextensions" / "jupyterlab-plotly" / "static"
    skipped.mkdir(parents=True)
    (skipped / "remoteEntry.js").write_text("var plotly = 1;\n" * 100)
    kept = tmp_path / "labextensions" / "anywidget" / "static"
    kept.mkdir(parents=True)
    entry = kept / "remoteEntry.js"
    entry.write_text("var anywidget = 1;\n" * 100)

    count = app.pack_ahead([str(voila), str(tmp_path / "labextensions")], {"jupyterlab-plotly"})

    assert count == 3
    for path in (script, style, entry):
        body = app.already_packed(str(path), path.stat())
        assert body is not None and gzip.decompress(body) == path.read_bytes(), path
    for path in (picture, huge, skipped / "remoteEntry.js"):
        assert app.already_packed(str(path), path.stat()) is None, path
    script.write_text("console.log('changed');\n")  # a new version is packed again on request
    assert app.already_packed(str(script), script.stat()) is None


def test_a_started_server_packs_its_static_files_ahead(plain_server):
    """`amteach dashboard` packs its static files as it starts, beside the pool's warm-up,
    and says so in its log."""
    server = plain_server
    deadline = time.monotonic() + 120
    while not any("packed" in line and "ahead" in line for line in server.log):
        assert time.monotonic() < deadline, "".join(server.log[-20:])
        time.sleep(0.2)
    line = next(line for line in server.log if "static files ahead" in line)
    assert int(re.search(r"packed (\d+) static files", line).group(1)) > 150, line
