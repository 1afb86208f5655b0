"""Is this checkout's .venv up to date? What `./dev` asks before it trusts the virtual
environment, and what tests/conftest.py asks before a test runs (so `.venv/bin/pytest`, run
without ./dev, stops at once with the reason instead of failing a browser test three minutes
later).

The environment is out of date when:
- a dependency that pyproject.toml declares (its dev extra included) is missing, or installed
  at a version it excludes (a long-lived .venv after a pull that added one);
- `amteach` is imported from somewhere else than this checkout (a .venv copied from another
  checkout: its editable install points at the other one's files);
- the installed amteach's version is not the checkout's (its metadata is from an older install).

Run as a script: prints each problem on a line of its own and exits 1, or exits 0. It must be
run with the venv's Python and with this checkout's folder not on sys.path (a script's
sys.path starts with its own folder, tests/), so that `amteach` is found as installed."""

from __future__ import annotations

import importlib.metadata as metadata
import importlib.util
import re
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

CHECKOUT = Path(__file__).resolve().parents[1]
EXTRAS = ("dev",)


def declared(pyproject: Path, extras: tuple[str, ...] = EXTRAS) -> list[Requirement]:
    """The project's dependencies and those of `extras`, as pyproject.toml declares them."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    lines = list(project.get("dependencies", []))
    for extra in extras:
        lines += project.get("optional-dependencies", {}).get(extra, [])
    return [Requirement(line) for line in lines]


def unmet(requirements: list[Requirement]) -> list[str]:
    """One line for each requirement (and each requirement of the extras it asks for, such as
    dask[distributed]) that the running Python's environment does not satisfy."""
    problems: list[str] = []
    seen: set[str] = set()
    todo = [(requirement, "") for requirement in requirements]
    while todo:
        requirement, extra = todo.pop(0)
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(requirement.name)
        key = f"{name}[{','.join(sorted(requirement.extras))}]{requirement.specifier}"
        if key in seen:
            continue
        seen.add(key)
        try:
            version = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            problems.append(f"{requirement} is not installed")
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            problems.append(f"{requirement} is wanted; {requirement.name} {version} is installed")
            continue
        for wanted in requirement.extras:
            for line in metadata.requires(requirement.name) or []:
                todo.append((Requirement(line), wanted))
    return problems


def source_version(checkout: Path) -> str:
    """amteach.__version__ as this checkout's amteach/__init__.py writes it."""
    text = (checkout / "amteach" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", text, re.MULTILINE)
    return found.group(1) if found else ""


def problems(checkout: Path = CHECKOUT) -> list[str]:
    """Every way the running environment is out of date for `checkout` ([] when it is not)."""
    found = unmet(declared(checkout / "pyproject.toml"))
    spec = importlib.util.find_spec("amteach")
    if spec is None or spec.origin is None:
        return [*found, "amteach is not installed"]
    where = Path(spec.origin).resolve().parent
    if where != (checkout / "amteach").resolve():
        found.append(f"amteach is imported from {where}, not from this checkout's amteach/")
    try:
        installed = metadata.version("amteach")
    except metadata.PackageNotFoundError:
        installed = None
    if installed != source_version(checkout):
        found.append(
            f"amteach {installed} is installed, while this checkout is {source_version(checkout)}"
        )
    return found


if __name__ == "__main__":
    lines = problems()
    for line in lines:
        print(line)
    sys.exit(1 if lines else 0)
