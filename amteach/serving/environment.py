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

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

TEMPLATE = "amteach"
# the template's folder in the amteach package, and in it the scripts a page fetches after its
# load event (benchmarks/record_preload.py writes it), named in the page's head as preload hints
TEMPLATE_FOLDER = "voila_template"
PRELOAD_LIST = "preload.json"
# where the template's index asks for the preload hints (replaced as the server starts)
PRELOAD_MARK = "{#- amteach: preload hints -#}"
# Set in the kernels' environment: the bundle's path relative to Voilà's base URL + "voila/".
PLOTLY_BUNDLE_ENV = "AMTEACH_PLOTLY_BUNDLE"
# Set in the server's (and so the kernels') environment by `amteach dashboard`: the app is
# served to visitors, who must never reach the server's files (docs/dashboard.md).
SERVED_ENV = "AMTEACH_SERVED"
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
        folder = Path(share) / "voila" / "templates" / TEMPLATE
        shutil.copytree(Path(str(resources.files("amteach") / TEMPLATE_FOLDER)), folder)
        shutil.copyfile(plotly_widget_bundle(), folder / "static" / PLOTLY_BUNDLE)
        index = folder / "index.html.j2"
        index.write_text(
            index.read_text(encoding="utf-8").replace(PRELOAD_MARK, preload_links()),
            encoding="utf-8",
        )
        env = dict(os.environ)
        env["JUPYTER_PATH"] = os.pathsep.join(p for p in (share, env.get("JUPYTER_PATH")) if p)
        env[PLOTLY_BUNDLE_ENV] = f"templates/{TEMPLATE}/static/{PLOTLY_BUNDLE}"
        env[SERVED_ENV] = "1"
        yield env


def preloaded_scripts() -> list[str]:
    """The scripts a served page fetches after its load event (PRELOAD_LIST), as paths under
    Voilà's `voila/` route, less any this installation does not serve (an upgraded Voilà or
    widget extension renames its files: benchmarks/record_preload.py records them again)."""
    from importlib.util import find_spec

    from jupyter_core.paths import jupyter_path

    listed = Path(str(resources.files("amteach") / TEMPLATE_FOLDER / PRELOAD_LIST))
    try:
        paths = json.loads(listed.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    # where Voilà finds what it serves under voila/static/ (its package's and its templates'
    # static folders) and voila/labextensions/ (voila.paths, voila.utils: not imported here,
    # importing voila costs seconds)
    voila = find_spec("voila")
    package = (
        [Path(p) / "static" for p in (voila.submodule_search_locations or [])] if voila else []
    )
    voila_roots = [Path(root) for root in jupyter_path("voila")]
    statics = package + [
        folder for root in voila_roots for folder in root.glob("templates/*/static")
    ]
    extensions = [Path(p) for p in jupyter_path("labextensions")] + [
        root / "labextensions" for root in voila_roots
    ]

    def served(path: str) -> bool:
        kind, _, rest = path.split("?", 1)[0].partition("/")
        folders = {"static": statics, "labextensions": extensions}.get(kind, [])
        return any((folder / rest).is_file() for folder in folders)

    return [path for path in paths if isinstance(path, str) and served(path)]


def preload_links() -> str:
    """The page's preload hints for `preloaded_scripts`, under the page's base URL. Each is
    fetched while the page's first scripts load, not in the waves that follow its load
    event (each wave waiting for the one before)."""
    return "\n".join(
        f'<link rel="preload" as="script" href="{{{{ resources.base_url }}}}voila/{path}">'
        for path in preloaded_scripts()
        if all(c.isalnum() or c in "-_./?=@" for c in path)  # no markup, no Jinja
    )


def is_served() -> bool:
    """True in a kernel of `amteach dashboard`: visitors use the app, and nothing they send
    may name a file on the server. Read from the environment the server was started with,
    which no widget (and so no visitor) can change."""
    return os.environ.get(SERVED_ENV) == "1"


def lighten_dashboard_kernel() -> None:
    """Under `amteach dashboard` only, skip what plotly imports for notebooks and a served
    kernel never uses: plotly's renderers import nbformat (for `fig.show()` in a notebook),
    which imports jsonschema, which builds a URI grammar (rfc3987_syntax). Together about 1 s
    of CPU and 5 MB per visitor's kernel. The dashboard draws every chart as a widget, and
    plotly treats a missing nbformat as "not installed"; notebooks outside the dashboard are
    left alone."""
    if os.environ.get(PLOTLY_BUNDLE_ENV):
        skip_uri_grammar()
        if "nbformat" not in sys.modules:
            sys.modules["nbformat"] = None  # type: ignore[assignment]


def skip_uri_grammar() -> None:
    """jsonschema treats a missing rfc3987_syntax as "not installed" and skips the URI format
    checks it would serve; building its grammar costs about a second of CPU."""
    if "rfc3987_syntax" not in sys.modules:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]
