"""The house rules of the code (docs/architecture.md): imports run one way (import-linter's
contracts in .importlinter), no module reaches for another module's private names, and the
conda environment lists the same dependencies as pyproject.toml."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "amteach"


def test_imports_run_one_way():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint_imports), "--config", str(REPO / ".importlinter"), "--no-cache"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def module_names(tree: ast.Module, path: Path) -> set[str]:
    """Names bound to a module in this file: `import x`, `import x as y`, and `from .pkg import
    mod` where mod is a module of amteach."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level:
            base = path.parent
            for _ in range(node.level - 1):
                base = base.parent
            folder = base.joinpath(*(node.module or "").split(".")) if node.module else base
            for alias in node.names:
                if (folder / f"{alias.name}.py").is_file() or (folder / alias.name).is_dir():
                    bound.add(alias.asname or alias.name)
    return bound


def private_names_taken(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            found += [
                f"line {node.lineno}: imports {a.name}" for a in node.names if private(a.name)
            ]
    modules = module_names(tree, path)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            found.append(f"line {node.lineno}: uses {node.value.id}.{node.attr}")
    return found


# taken today, and given back by the issue named (then this list must lose the entry)
KNOWN: dict[str, tuple[str, str]] = {}


def test_no_module_takes_a_private_name_from_another():
    taken = {
        str(path.relative_to(REPO)): names
        for path in sorted(PACKAGE.rglob("*.py"))
        if (names := private_names_taken(path))
    }
    for path, (what, _issue) in KNOWN.items():
        assert any(what in name for name in taken.pop(path, [])), f"{path} no longer {what}"
    assert taken == {}


def test_the_private_name_check_sees_both_ways_of_taking_one(tmp_path):
    module = tmp_path / "pkg" / "user.py"
    module.parent.mkdir()
    (module.parent / "runner.py").write_text("def _bar(): pass\n")
    module.write_text("from .runner import _bar\nfrom . import runner\nrunner._bar()\n")
    assert private_names_taken(module) == ["line 1: imports _bar", "line 3: uses runner._bar"]


def requirement(text: str) -> tuple[list[str], str]:
    """'dask[distributed]>=2024.1' -> (['dask', 'distributed'], '>=2024.1'): the package
    names (an extra is its own conda package) and the version bound."""
    match = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[([^\]]+)\])?\s*(.*)", text.strip())
    assert match, text
    name, extras, bound = match.groups()
    names = [name] + ([e.strip() for e in extras.split(",")] if extras else [])
    return [n.lower().replace("_", "-") for n in names], bound.replace(" ", "")


def test_the_conda_environment_lists_the_same_dependencies_as_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted: dict[str, str] = {}
    for text in [*project["dependencies"], *project["optional-dependencies"]["dev"]]:
        names, bound = requirement(text)
        wanted.update(dict.fromkeys(names, bound))
    environment = yaml.safe_load((REPO / "environment.yml").read_text(encoding="utf-8"))
    listed: dict[str, str] = {}
    for entry in environment["dependencies"]:
        if isinstance(entry, str) and not re.match(r"(python|pip)\b", entry):
            (name,), bound = requirement(entry)
            listed[name] = bound
    assert listed == wanted
