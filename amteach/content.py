"""Where the notebooks, lessons and scenarios are. The one place that knows it: the dashboard
command, the copy commands and the UI's scenario picker all ask here.

They live at the top of the repository (`notebooks/`, `lessons/`). `amteach/notebooks` and
`amteach/lessons` are symbolic links to them, so a wheel carries real copies inside the package
and an installed amteach finds them there. A checkout whose links did not survive (git on a
system without symbolic links) still finds the repository's own folders.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def _folder(name: str) -> Path:
    packaged = PACKAGE / name
    return packaged if packaged.is_dir() else PACKAGE.parent / name


def notebooks_dir() -> Path:
    """The folder of the dashboard and the analysis notebooks."""
    return _folder("notebooks")


def lessons_dir() -> Path:
    """The folder of the lessons: one folder per lesson (plan, worksheet, checks) and scenarios/."""
    return _folder("lessons")


def scenarios_dir() -> Path:
    """The scenarios the lessons use, offered by the Play tab's scenario picker."""
    return lessons_dir() / "scenarios"


def dashboard_notebook() -> Path:
    """The notebook that `amteach dashboard` serves."""
    return notebooks_dir() / "dashboard.ipynb"
