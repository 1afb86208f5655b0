"""The environment `amteach dashboard` gives Voilà and its kernels, and what a kernel reads back
from it.

The server side (`voila_environment`) puts the amteach template, with plotly's widget bundle
among its static files, on a temporary JUPYTER_PATH, and sets flags in the environment that
every kernel inherits: the bundle's address (read by `amteach.ui.figures`, which serves each
chart's plotly.js from there instead of sending 5 MB through the websocket), the served-mode
flag (`is_served`) and the public address for join links. A kernel reads those flags here
(`is_served`) and lightens its own imports (`lighten_dashboard_kernel`).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from ..sim.cpus import WORKERS_ENV

# The amteach template: Voilà's lab page and JupyterLab's front end (`--template amteach`).
# Its static folder holds the projector styles and plotly's bundle, which every page links
# there, whichever of our templates draws it.
AMTEACH_TEMPLATE = "amteach"
# Issue 24: the amteach template's page without JupyterLab's front end (frontend/, one script
# of ours draws the widgets), interactive in about half the time. Its page links the amteach
# template's styles and plotly bundle, so both templates are always installed together.
LEAN_TEMPLATE = "amteach-lean"
# The template `amteach dashboard` serves unless told otherwise (--template)
TEMPLATE = LEAN_TEMPLATE
# each template of ours, and its folder in the package
TEMPLATE_FOLDERS = {AMTEACH_TEMPLATE: "voila_template", LEAN_TEMPLATE: "voila_template_lean"}
# Set in the kernels' environment: the bundle's path relative to Voilà's base URL + "voila/".
PLOTLY_BUNDLE_ENV = "AMTEACH_PLOTLY_BUNDLE"
# Set in the server's (and so the kernels') environment by `amteach dashboard`: the app is
# served to visitors, who must never reach the server's files (docs/dashboard.md).
SERVED_ENV = "AMTEACH_SERVED"
# worker processes for a batch in a visitor's kernel (amteach.sim.cpus.default_workers)
SERVED_KERNEL_WORKERS = 1
# `amteach dashboard --public-url`: the address students open, for the Class tab's join link
PUBLIC_URL_ENV = "AMTEACH_PUBLIC_URL"


# No version in the name: the template names it too. The server answers with an ETag, so a
# browser notices a new plotly.
PLOTLY_BUNDLE = "plotly-widget.js"


def plotly_widget_bundle() -> Path:
    """plotly's widget bundle (plotly.js and its widget), in plotly's installed package."""
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "widgetbundle.js"


@contextmanager
def voila_environment() -> Iterator[dict[str, str]]:
    """The environment for a Voilà server: the amteach template on JUPYTER_PATH, the
    bundle's path for the kernels, and the served-mode flag (`is_served`). Voilà serves a
    template's static files whichever template draws the page, so the bundle works with any of
    them. The files live in a temporary folder for as long as the server runs."""
    with tempfile.TemporaryDirectory(prefix="amteach-voila-") as share:
        for name, package_folder in TEMPLATE_FOLDERS.items():
            shutil.copytree(
                Path(str(resources.files("amteach") / package_folder)),
                Path(share) / "voila" / "templates" / name,
            )
        folder = Path(share) / "voila" / "templates" / AMTEACH_TEMPLATE
        shutil.copyfile(plotly_widget_bundle(), folder / "static" / PLOTLY_BUNDLE)
        env = dict(os.environ)
        env["JUPYTER_PATH"] = os.pathsep.join(p for p in (share, env.get("JUPYTER_PATH")) if p)
        env[PLOTLY_BUNDLE_ENV] = f"templates/{AMTEACH_TEMPLATE}/static/{PLOTLY_BUNDLE}"
        env[SERVED_ENV] = "1"
        # issue 41: a visitor's batch plays on one process, in its kernel, unless the server
        # was started with AMTEACH_WORKERS: the visitors' kernels share the machine's CPUs
        env.setdefault(WORKERS_ENV, str(SERVED_KERNEL_WORKERS))
        yield env


def is_served() -> bool:
    """True in a kernel of `amteach dashboard`: visitors use the app, and nothing they send
    may name a file on the server. Read from the environment the server was started with,
    which no widget (and so no visitor) can change."""
    return os.environ.get(SERVED_ENV) == "1"


def lighten_dashboard_kernel() -> None:
    """Under `amteach dashboard` only, skip what plotly imports for notebooks and a served
    kernel never uses: plotly's renderers import nbformat (for `fig.show()` in a notebook),
    which imports jsonschema. Together about 0.25 s of CPU and 5 MB per visitor's kernel.
    The dashboard draws every chart as a widget, and plotly treats a missing nbformat as
    "not installed"; notebooks outside the dashboard are left alone."""
    if os.environ.get(PLOTLY_BUNDLE_ENV) and "nbformat" not in sys.modules:
        sys.modules["nbformat"] = None  # type: ignore[assignment]
