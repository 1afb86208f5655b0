"""The lean front end's bundle and the Python packages it talks to cannot drift apart (issue 40).

frontend/build.mjs writes amteach-lean.versions.json beside the bundle: the npm packages it
bundled and the widget model versions they draw. These tests tie it to the lockfile it was
built from, to pyproject.toml's pins and to the packages installed: anywidget's Python and
JavaScript halves, ipywidgets' model versions, jupyterlab_widgets' own front end (the npm
versions ipywidgets' release was built with), and Voilà's lab template, which the amteach-lean
template extends."""

from __future__ import annotations

import json
import re
import tomllib
from importlib.metadata import files, version
from pathlib import Path

import ipywidgets
import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "amteach" / "voila_template_lean" / "static" / "amteach-lean.versions.json"
PINNED = ("anywidget", "ipywidgets", "jupyterlab_widgets", "voila")


def manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def pins() -> dict[str, SpecifierSet]:
    """pyproject.toml's version ranges of the packages the bundle pairs with."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = {}
    for text in project["dependencies"]:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(.*)", text)
        if match and match.group(1) in PINNED:
            found[match.group(1)] = SpecifierSet(match.group(2))
    return found


def caret(npm_range: str) -> SpecifierSet:
    """An npm caret range (^6.0.12: 6.0.12 and later 6.x) as a Python specifier set."""
    match = re.fullmatch(r"\^(\d+)\.(\d+)\.(\d+)", npm_range)
    if not match:
        raise ValueError(f"not a caret range of three numbers: {npm_range!r}")
    major = int(match.group(1))
    if major == 0:
        raise ValueError(f"a caret range below 1.0 pins the minor version: {npm_range!r}")
    return SpecifierSet(f">={npm_range[1:]},<{major + 1}")


def installed_package_json(distribution: str, ending: str) -> dict:
    """The package.json a Python distribution installs (its JupyterLab extension's)."""
    for file in files(distribution) or []:
        if str(file).replace("\\", "/").endswith(ending):
            return json.loads(Path(file.locate()).read_text(encoding="utf-8"))
    raise AssertionError(f"{distribution} installs no {ending}")


def mismatches(bundle: dict) -> list[str]:
    """Every way the bundle's versions (a manifest) disagree with the Python side installed
    here and pinned in pyproject.toml; empty when they agree."""
    wrong = []
    packages = bundle["packages"]
    ranges = pins()
    for name in PINNED:
        if name not in ranges:
            wrong.append(f"pyproject.toml does not pin {name}")
        elif version(name) not in ranges[name]:
            wrong.append(f"{name} {version(name)} is installed; pyproject asks {ranges[name]}")
    # anywidget's Python and JavaScript halves are released together, with one version
    bundled = Version(packages["anywidget"])
    if bundled not in ranges.get("anywidget", SpecifierSet()):
        wrong.append(f"the bundle's anywidget {bundled} is outside pyproject's range")
    if Version(version("anywidget")).release[:2] != bundled.release[:2]:
        wrong.append(f"anywidget {version('anywidget')} is installed; the bundle has {bundled}")
    # the npm packages ipywidgets' own front end (jupyterlab_widgets) was built with
    lab = installed_package_json("jupyterlab_widgets", "jupyterlab-manager/package.json")
    for name in ("base", "base-manager", "controls", "output"):
        npm = f"@jupyter-widgets/{name}"
        if packages[npm] not in caret(lab["dependencies"][npm]):
            wrong.append(
                f"the bundle's {npm} {packages[npm]} is outside {lab['dependencies'][npm]}, "
                f"which jupyterlab_widgets {version('jupyterlab_widgets')} was built with"
            )
    # the widget models ipywidgets' kernel side names
    models = bundle["widgetModels"]
    kernel_side = {
        "@jupyter-widgets/base": ipywidgets._version.__jupyter_widgets_base_version__,
        "@jupyter-widgets/controls": ipywidgets._version.__jupyter_widgets_controls_version__,
        "@jupyter-widgets/output": ipywidgets._version.__jupyter_widgets_output_version__,
        "protocol": ipywidgets._version.__protocol_version__,
    }
    for name, expected in kernel_side.items():
        if models[name] != expected:
            wrong.append(f"{name}: the bundle draws {models[name]}, ipywidgets sends {expected}")
    return wrong


def test_the_manifest_lists_what_the_lockfile_installed():
    lock = json.loads((ROOT / "frontend" / "package-lock.json").read_text(encoding="utf-8"))
    declared = json.loads((ROOT / "frontend" / "package.json").read_text(encoding="utf-8"))
    packages = manifest()["packages"]
    assert sorted(packages) == sorted(declared["dependencies"])
    for name, bundled in packages.items():
        assert lock["packages"][f"node_modules/{name}"]["version"] == bundled, name
        assert declared["dependencies"][name] == bundled, f"{name} is not pinned exactly"


def test_the_bundle_agrees_with_the_python_packages_installed_and_pinned():
    assert mismatches(manifest()) == []


def test_a_bundle_built_for_other_versions_is_caught():
    # what a `pip install` pairing the bundle with other releases would look like
    bundle = manifest()
    bundle["packages"] = {**bundle["packages"], "anywidget": "0.9.13"}
    bundle["packages"]["@jupyter-widgets/base"] = "5.0.9"
    bundle["widgetModels"] = {**bundle["widgetModels"], "@jupyter-widgets/controls": "1.5.0"}
    found = "\n".join(mismatches(bundle))
    assert "the bundle's anywidget 0.9.13 is outside pyproject's range" in found
    assert "anywidget 0.11" in found and "the bundle has 0.9.13" in found
    assert "@jupyter-widgets/base 5.0.9 is outside" in found
    assert "@jupyter-widgets/controls: the bundle draws 1.5.0" in found


def test_npm_caret_ranges_read_as_npm_reads_them():
    assert "6.0.12" in caret("^6.0.12") and "6.9.0" in caret("^6.0.12")
    assert "6.0.11" not in caret("^6.0.12") and "7.0.0" not in caret("^6.0.12")
    with pytest.raises(ValueError, match=r"below 1\.0"):
        caret("^0.11.0")
    with pytest.raises(ValueError, match="caret range"):
        caret(">=6")


def test_voila_lab_template_still_has_the_blocks_the_lean_template_replaces():
    """amteach-lean extends Voilà's lab template and replaces its notebook_css and body_footer
    blocks (by the template mechanism, no text replaced); a Voilà whose template lost them
    would draw the page with its own front end."""
    (lab,) = [
        Path(file.locate())
        for file in files("voila") or []
        if str(file).replace("\\", "/").endswith("voila/templates/lab/index.html.j2")
    ]
    text = lab.read_text(encoding="utf-8")
    for block in ("notebook_css", "body_footer", "body_loop"):
        assert re.search(r"\{%-?\s*block " + block + r"\b", text), block
    assert "voila-style.js" in text and "voila_setup_labextensions" in text
