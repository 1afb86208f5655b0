"""What `amteach dashboard` sets up around Voilà: the amteach template and a shared plotly bundle.

A plotly `FigureWidget` normally carries plotly.js (about 5 MB) inside its own state, so every
chart sends it through the kernel's websocket and the browser compiles it once per chart. Under
Voilà we instead serve plotly's widget bundle once, as a static file of the amteach template,
and give each chart a small module that imports it from there: the browser fetches it once,
caches it, and compiles it once per page.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import plotly.graph_objects as go

TEMPLATE = "amteach"
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


def _plotly_widget_bundle() -> Path:
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "widgetbundle.js"


@contextmanager
def voila_environment() -> Iterator[dict[str, str]]:
    """The environment for a Voilà server: the amteach template on JUPYTER_PATH, the
    bundle's path for the kernels, and the served-mode flag (`is_served`). Voilà serves a template's static files whichever template
    draws the page, so the bundle works with any of them. The files live in a temporary folder
    for as long as the server runs."""
    with tempfile.TemporaryDirectory(prefix="amteach-voila-") as share:
        folder = Path(share) / "voila" / "templates" / TEMPLATE
        shutil.copytree(Path(str(resources.files("amteach") / "voila_template")), folder)
        shutil.copyfile(_plotly_widget_bundle(), folder / "static" / PLOTLY_BUNDLE)
        env = dict(os.environ)
        env["JUPYTER_PATH"] = os.pathsep.join(p for p in (share, env.get("JUPYTER_PATH")) if p)
        env[PLOTLY_BUNDLE_ENV] = f"templates/{TEMPLATE}/static/{PLOTLY_BUNDLE}"
        env[SERVED_ENV] = "1"
        yield env


def _bundle_loader(bundle_path: str) -> str:
    """A tiny ES module that re-exports plotly's widget from the served bundle. The lab
    template puts Voilà's URL ("<base>voila/") on <body data-base-url>."""
    return (
        "const voila = new URL(document.body.dataset.baseUrl || './', document.baseURI);\n"
        f"const bundle = await import(new URL({bundle_path!r}, voila).href);\n"
        "export default bundle.default;\n"
    )


@cache
def _served_figure_widget(bundle_path: str) -> type:
    import plotly.graph_objects as go

    return type("FigureWidget", (go.FigureWidget,), {"_esm": _bundle_loader(bundle_path)})


def figure_widget(figure: Any = None) -> go.FigureWidget:
    """A plotly FigureWidget for `figure`, redrawn at its box's width when the page resizes;
    under `amteach dashboard` it loads plotly.js from the server instead of carrying it."""
    import plotly.graph_objects as go

    bundle_path = os.environ.get(PLOTLY_BUNDLE_ENV)
    widget_type = _served_figure_widget(bundle_path) if bundle_path else go.FigureWidget
    made = widget_type(figure)
    # redrawn at its box's size when the page resizes (ui/resize.py: also when a tab opens)
    made._config = {**made._config, "responsive": True, "displaylogo": False}
    return made


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


# What Voilà puts in a kernel's environment (voila.utils.ENV_VARIABLE, read here without
# importing Voilà: the voila package pulls the whole server into each kernel, seconds of CPU
# and tens of MB)
VOILA_PREHEAT = "VOILA_PREHEAT"
QUERY_STRING = "QUERY_STRING"


def _voila_query_url() -> str:
    """Where Voilà hands a preheated kernel its visitor's request (its `voila/query` socket)."""
    env = os.environ
    server_url = env.get("VOILA_SERVER_URL", "/")
    return (
        f"{env.get('VOILA_WS_PROTOCOL', 'ws')}://{env.get('VOILA_APP_IP', '127.0.0.1')}:"
        f"{env.get('VOILA_APP_PORT', '8866')}{env.get('VOILA_WS_BASE_URL', server_url)}"
        f"voila/query/{env.get('VOILA_KERNEL_ID', '')}"
    )


async def _receive_request_info(url: str) -> dict[str, str]:
    from tornado.websocket import websocket_connect

    connection = await websocket_connect(url, connect_timeout=30)
    try:
        message = await connection.read_message()
    finally:
        connection.close()
    info = json.loads(message) if message else {}
    return {str(k): str(v) for k, v in info.items()} if isinstance(info, dict) else {}


def when_page_known(show: Callable[[str], None]) -> None:
    """Call `show(query string of the visitor's page)` on the kernel's main thread, without
    blocking the notebook.

    A kernel in Voilà's preheated pool runs the whole notebook before any visitor comes, so
    the page is ready when one does; Voilà then passes the visitor's request (its query
    string: a join link's `?room=CODE`) over a socket. We listen on a background thread and
    hand the query to the main thread, where the widgets live. Outside the pool (a kernel
    started for one request, or a notebook outside Voilà) the query is in the environment
    already, and `show` runs at once."""
    if os.environ.get(VOILA_PREHEAT) != "True":
        show(os.environ.get(QUERY_STRING, ""))
        return
    from IPython import get_ipython

    main_loop = get_ipython().kernel.io_loop  # the kernel's main thread's loop
    url = _voila_query_url()

    def listen() -> None:
        import asyncio

        try:
            info = asyncio.run(_receive_request_info(url))
        except Exception:  # the server went away: no visitor will come
            logging.getLogger("amteach").warning("no request info from %s", url, exc_info=True)
            return
        os.environ.update(info)  # as Voilà's get_query_string does (SERVER_NAME, ...)
        main_loop.add_callback(show, info.get(QUERY_STRING, ""))

    threading.Thread(target=listen, name="amteach-page-request", daemon=True).start()
