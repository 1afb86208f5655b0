"""./dev reinstalls when the .venv no longer matches the checkout, and tests/conftest.py stops a
run on such a .venv: tests/installed.py says what is out of date. A long-lived .venv missed a
dependency added since it was installed (confusable-homoglyphs), and the class-play browser
test then waited three minutes for a student's "Welcome" that the missing import broke."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

from installed import CHECKOUT, declared, problems, unmet

PYPROJECT = """
[project]
name = "amteach"
dependencies = [{dependencies}]

[project.optional-dependencies]
dev = [{dev}]
"""


def project(folder: Path, dependencies: list[str], dev: list[str] = (), version: str = "") -> Path:
    """A checkout's two files that installed.py reads: pyproject.toml and amteach/__init__.py."""
    quoted = lambda lines: ", ".join(f'"{line}"' for line in lines)  # noqa: E731
    (folder / "pyproject.toml").write_text(
        PYPROJECT.format(dependencies=quoted(dependencies), dev=quoted(dev))
    )
    (folder / "amteach").mkdir(exist_ok=True)
    (folder / "amteach" / "__init__.py").write_text(f'__version__ = "{version}"\n')
    return folder


def test_a_dependency_added_after_the_install_or_at_an_excluded_version_is_named(tmp_path):
    project(
        tmp_path,
        ["pytest>=8", "amteach-no-such-dependency>=1.0", "dask[distributed]>=2024.1"],
        ["hypothesis>=9999"],
    )
    found = unmet(declared(tmp_path / "pyproject.toml"))
    assert found[0] == "amteach-no-such-dependency>=1.0 is not installed"
    assert found[1].startswith("hypothesis>=9999 is wanted; hypothesis ")
    assert len(found) == 2  # pytest, dask and its distributed extra are installed


def test_an_extras_own_requirements_are_checked(tmp_path):
    # dask[distributed] needs the distributed package: found; a made-up extra asks for nothing
    project(tmp_path, ["dask[distributed]>=2024.1", "dask[amteach-no-such-extra]"])
    assert unmet(declared(tmp_path / "pyproject.toml")) == []
    requirements = declared(tmp_path / "pyproject.toml")
    assert {r.name for r in requirements} == {"dask"}
    assert "distributed" in requirements[0].extras


def test_a_venv_installed_for_another_checkout_or_version_is_out_of_date(tmp_path):
    other = project(tmp_path, ["pytest>=8"], version="99.0")
    found = problems(other)
    assert "not from this checkout's amteach/" in found[0] and str(CHECKOUT) in found[0]
    assert found[1].endswith("while this checkout is 99.0")
    assert len(found) == 2


def test_this_checkouts_venv_is_up_to_date_and_the_script_says_so_by_its_exit_code():
    assert problems() == []
    script = [sys.executable, str(CHECKOUT / "tests" / "installed.py")]
    done = subprocess.run(script, capture_output=True, text=True, cwd="/", timeout=120)
    assert (done.returncode, done.stdout) == (0, "")


# A stand-in for .venv/bin/python: logs each call; `tests/installed.py` exits with the status
# in the file `check` (0: up to date); `-m pip` exits 0, and `-m uv` as the file `uv` says
# ("works", "fails" its installs, or is "missing"). An install that succeeds copies
# `check-after-pip`, if any, to `check`.
FAKE_PYTHON = """#!/bin/sh
here="$(dirname "$0")"
echo "$*" >>"$here/../calls"
uv=$(cat "$here/../uv")
case "$1 $2" in
  "tests/installed.py "*) status=$(cat "$here/../check"); [ "$status" = 0 ] || echo "a problem"; exit "$status" ;;
  "-m uv") [ "$uv" = missing ] && exit 1; [ "$3" = --version ] && exit 0; [ "$uv" = fails ] && exit 1 ;;
  "-m pip") ;;
  *) exit 0 ;;
esac
if [ "$3 $4" = "pip install" ] || [ "$3" = install ]; then
  [ "$(cat "$here/../check-after-pip" 2>/dev/null)" ] && cp "$here/../check-after-pip" "$here/../check"
fi
exit 0
"""


def dev_setup(
    checkout: Path,
    check: int,
    after_pip: int | None = None,
    uv: str = "works",
    env: dict[str, str] | None = None,
) -> tuple[int, list[str]]:
    """Run `./dev setup` in `checkout` with the stand-in Python (and its uv, which `uv` says
    works, fails or is missing): its exit code, and which of its calls were installs, by pip
    or uv."""
    venv = checkout / ".venv"
    (venv / "check").write_text(str(check))
    if after_pip is not None:
        (venv / "check-after-pip").write_text(str(after_pip))
    (venv / "uv").write_text(uv)
    (venv / "calls").write_text("")
    done = subprocess.run(
        ["bash", str(checkout / "dev"), "setup"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    calls = (venv / "calls").read_text().splitlines()
    return done.returncode, [
        call for call in calls if call.startswith(("-m pip install", "-m uv pip install"))
    ]


def test_dev_reinstalls_when_the_checkout_changed_by_content_or_the_check_fails(tmp_path):
    for name in ("dev", "pyproject.toml", "setup.py"):
        (tmp_path / name).write_bytes((CHECKOUT / name).read_bytes())
    (tmp_path / "dev").chmod(0o755)
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    python = tmp_path / ".venv" / "bin" / "python"
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)

    # the build's requirements first (pyproject.toml's [build-system]), then amteach built
    # with them (./dev says why), by uv
    uv = "-m uv pip install --quiet --python .venv/bin/python --compile-bytecode"
    build = " ".join(
        tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["build-system"]["requires"]
    )
    assert dev_setup(tmp_path, check=0) == (
        0,
        [f"{uv} {build}", f"{uv} --no-build-isolation -e .[dev]"],
    )
    # the compiled core is built beside pip's install of the dependencies (./dev says why)
    assert "setup.py --quiet build_ext" in (tmp_path / ".venv" / "calls").read_text()
    assert dev_setup(tmp_path, check=0) == (0, [])  # up to date: nothing to do
    # a dependency missing although the files did not change (the long-lived .venv's case)
    assert dev_setup(tmp_path, check=1, after_pip=0)[1] != []
    assert dev_setup(tmp_path, check=0) == (0, [])
    # pyproject.toml changed, with a file time older than the last install's
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n# changed\n")
    os.utime(pyproject, (0, 0))
    assert dev_setup(tmp_path, check=0)[1] != []
    assert dev_setup(tmp_path, check=0) == (0, [])
    # uv (./dev says why) comes from pip where .venv lacks it, and pip installs in its place
    # where uv cannot be had, or cannot install
    pip = "-m pip install --quiet --disable-pip-version-check"
    by_pip = [f"{pip} {build}", f"{pip} --no-build-isolation -e .[dev]"]
    for uv_is, env, installs in (
        ("missing", {}, [f"{pip} uv", by_pip[0], f"{pip} uv", by_pip[1]]),
        (
            "fails",
            {},
            [f"{uv} {build}", by_pip[0], f"{uv} --no-build-isolation -e .[dev]", by_pip[1]],
        ),
        ("works", {"AMTEACH_INSTALLER": "pip"}, by_pip),
    ):
        assert dev_setup(tmp_path, check=1, after_pip=0, uv=uv_is, env=env) == (0, installs)
    # still out of date after the install: ./dev stops, saying so, and tries again the next time
    assert dev_setup(tmp_path, check=1, after_pip=1)[0] == 2
    assert dev_setup(tmp_path, check=1, after_pip=0)[1] != []
