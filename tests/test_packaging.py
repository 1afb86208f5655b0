"""The wheel as a new user gets it: built from a copy of this checkout, installed into a new
virtual environment, `amteach dashboard` run from an empty folder serves the dashboard (Chromium
sees the Play tab), `amteach lessons --copy` writes the lessons and notebooks, and SIGTERM (what
a service manager sends) stops the server and every kernel it started.

The new environment gets amteach only from the wheel. Its dependencies are the ones already
installed in this checkout's .venv (a path file, and Jupyter's data folder linked), so the test
takes seconds, not the minutes of a download and install of Jupyter."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from browser import launch_chromium
from playwright.sync_api import expect, sync_playwright
from served import REPO, alive, dashboard_server

from amteach.content import lessons_dir, notebooks_dir

SKIP_IN_COPY = shutil.ignore_patterns(
    ".git",
    ".venv",
    "*.egg-info",
    "build",
    "dist",
    "test-output",
    "results",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".ruff_cache",
    ".ipynb_checkpoints",
    "node_modules",  # frontend/'s build tools: the wheel carries the built bundle only
)


def build_wheel(folder: Path) -> Path:
    source = folder / "source"
    shutil.copytree(REPO, source, symlinks=True, ignore=SKIP_IN_COPY)
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"),
            *("--no-build-isolation", "--wheel-dir", str(folder / "dist"), str(source)),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = (folder / "dist").glob("amteach-*.whl")
    return wheel


def new_environment(folder: Path, wheel: Path) -> Path:
    """A virtual environment with amteach from the wheel and the rest from this .venv."""
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"),
            *("--no-deps", "--no-index", str(wheel)),
        ],
        check=True,
        capture_output=True,
    )
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # after the new environment's own site-packages: the dependencies installed here
    (Path(purelib) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (venv / "share").mkdir(exist_ok=True)
    (venv / "share" / "jupyter").symlink_to(Path(sys.prefix) / "share" / "jupyter")
    return venv


def test_the_wheel_serves_the_dashboard_from_an_empty_folder_and_stops_on_sigterm(tmp_path):
    wheel = build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    expected = {
        f"amteach/{kind}/{path.relative_to(folder).as_posix()}"
        for kind, folder in (("notebooks", notebooks_dir()), ("lessons", lessons_dir()))
        for path in folder.rglob("*")
        if path.is_file() and ".ipynb_checkpoints" not in path.parts
    }
    assert "amteach/notebooks/dashboard.ipynb" in expected
    assert "amteach/lessons/scenarios/doubled-rent.yaml" in expected
    assert "amteach/lessons/01-two-rulebooks/worksheet.md" in expected
    assert expected <= names, sorted(expected - names)[:5]

    venv = new_environment(tmp_path, wheel)
    amteach = str(venv / "bin" / "amteach")
    empty = tmp_path / "empty"
    empty.mkdir()
    probe = (
        "import amteach.content as c, amteach.session as s; print(c.dashboard_notebook()); "
        "print(len(list(s.default_scenario_dir().glob('*.yaml'))))"
    )
    found = subprocess.run(
        [venv / "bin" / "python", "-c", probe],
        cwd=empty,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert found[0].startswith(str(venv)) and Path(found[0]).is_file()  # the wheel's own copy
    assert int(found[1]) == len(list((lessons_dir() / "scenarios").glob("*.yaml")))  # the picker's

    # the lessons and notebooks, copied for an instructor to edit; never overwritten unasked
    copied = subprocess.run(
        [amteach, "lessons", "--copy", "class"], cwd=empty, capture_output=True, text=True
    )
    assert copied.returncode == 0, copied.stderr
    assert (empty / "class" / "lessons" / "02-monopoly-pricing" / "plan.md").is_file()
    assert (empty / "class" / "lessons" / "scenarios" / "doubled-rent.yaml").is_file()
    assert json.loads((empty / "class" / "notebooks" / "dashboard.ipynb").read_text())["cells"]
    again = subprocess.run(
        [amteach, "lessons", "--copy", "class"], cwd=empty, capture_output=True, text=True
    )
    assert again.returncode == 2 and "--force" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1 and "Traceback" not in again.stderr

    # 1. served from an empty folder, by the installed command
    command = [amteach, "dashboard", "--port", "{port}", "--pool", "1"]
    with dashboard_server(command, cwd=empty) as server, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(server.url)
        expect(page.get_by_role("tab", name="Play", exact=True)).to_be_visible(timeout=180_000)
        page.locator(".am-choices button", has_text="Roll").wait_for(timeout=180_000)
        browser.close()
        assert server.process.args[0] == amteach

        # 2. SIGTERM, as `systemctl stop` sends it: the server and all its kernels stop
        kernels = list(server.kernels().values())
        assert kernels
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=60) == 0
    assert [pid for pid in kernels if alive(pid)] == []
    assert not list(empty.glob("*.ipynb"))  # nothing written where it was started
