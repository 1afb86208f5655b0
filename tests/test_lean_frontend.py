"""The amteach-lean template's script and style sheet (issue 24) are built from frontend/ with
esbuild and committed, since the wheel carries them and a machine installing amteach has no
node. A rebuild from the source and its lockfile (`npm ci`, a type check, then
frontend/build.mjs) must give the committed files byte for byte: nobody edits the bundle by
hand, and nobody changes the source without rebuilding it. Needs node and npm (./dev installs
them) and the npm registry."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "amteach" / "voila_template_lean" / "static"


def test_committed_bundle_is_what_the_source_builds(tmp_path: Path) -> None:
    work = tmp_path / "frontend"
    shutil.copytree(ROOT / "frontend", work, ignore=shutil.ignore_patterns("node_modules"))
    # from npm's cache as it is, without asking the registry whether its entries are current
    # (the lockfile names each package's exact tarball and checksum), and without the packages'
    # install scripts: esbuild's checks its binary, Font Awesome's prints a notice; the bundle
    # is the same bytes without them, and the install took a third less CPU (issue 40)
    subprocess.run(
        [
            "npm",
            "ci",
            "--no-audit",
            "--no-fund",
            "--silent",
            "--prefer-offline",
            "--ignore-scripts",
        ],
        cwd=work,
        check=True,
        timeout=600,
    )
    # the source's types hold (esbuild only strips them)
    subprocess.run(["npm", "run", "--silent", "check"], cwd=work, check=True, timeout=300)
    built = tmp_path / "built"
    subprocess.run(["node", "build.mjs", str(built)], cwd=work, check=True, timeout=300)
    names = sorted(path.name for path in built.iterdir())
    assert names == sorted(path.name for path in COMMITTED.iterdir())
    assert "amteach-lean.js" in names and "amteach-lean.css" in names
    for name in names:
        assert (built / name).read_bytes() == (COMMITTED / name).read_bytes(), (
            f"{name} differs from a rebuild: run `npm ci && npm run build` in frontend/"
        )
