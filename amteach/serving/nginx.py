"""The nginx site file for `amteach dashboard --nginx-config`: nginx in front of the dashboard
server, sending the page's static files (Voilà's scripts, its template's styles and fonts, the
widget extensions) itself, from the installed packages' folders, compressed and cached; and
passing everything else (the pages, the kernels' API and websockets) on to the server.

Why: a page loads about 100 script files before its widgets start (Voilà's own 73 chunks,
3.5 MB, then the widget extensions'), and the Python server reads and compresses each one on
the processors that run the class's kernels (about 0.35 s of its CPU per visitor's first
page, docs/deploy.md). nginx sends them from disk, gzipped, in a process of its own.

The folders are the ones the server itself serves from, asked of Voilà and Jupyter at the time
the file is written, for the template and the Python environment of this `amteach`: write the
file again after installing a new version of amteach, Voilà or the widgets (a file that is
not there falls through to the server, so an out-of-date site file is slower, never broken).
Imports Voilà: the command line imports this module only when asked for the site file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .environment import (
    AMTEACH_TEMPLATE,
    PLOTLY_BUNDLE,
    TEMPLATE,
    TEMPLATE_FOLDERS,
    plotly_widget_bundle,
    voila_environment,
)

# A year: for URLs that change whenever the file does (`?v=<hash of the file>`, or a name
# that carries a hash of its content, as the widget extensions' chunks do).
VERSIONED_MAX_AGE = 31_536_000
# What nginx sends the files as (its own mime.types may not be included in the http block);
# the compressible ones are gzipped.
TYPES = {
    "application/javascript": "js mjs",
    "text/css": "css",
    "application/json": "json map",
    "image/svg+xml": "svg svgz",
    "font/woff2": "woff2",
    "font/woff": "woff",
    "font/ttf": "ttf",
    "application/vnd.ms-fontobject": "eot",
    "image/png": "png",
    "text/plain": "txt",
}
COMPRESSED_TYPES = "application/javascript text/css application/json image/svg+xml font/ttf"
# The upstream's name in the site file (one Voilà server; docs/deploy.md section 6 shows
# several behind one nginx).
UPSTREAM = "amteach_dashboard"


@dataclass(frozen=True)
class StaticFolders:
    """Where the server finds the files of each static URL path, in the order it looks."""

    voila_static: list[Path]  # {base}voila/static/
    template_static: list[Path]  # {base}voila/templates/<template>/static/
    labextensions: list[Path]  # {base}voila/labextensions/
    plotly_bundle: Path  # {base}voila/templates/<template>/static/plotly-widget.js


def static_folders(template: str = TEMPLATE) -> StaticFolders:
    """The folders the dashboard server serves its static URLs from, as Voilà finds them
    (voila.paths, voila.utils) with the server's own environment (`voila_environment`). The
    amteach template's copy in the server's temporary folder is replaced by the installed
    package's folder, and plotly's bundle by its file in plotly's package."""
    with voila_environment() as env:
        saved = os.environ.get("JUPYTER_PATH")
        os.environ["JUPYTER_PATH"] = env["JUPYTER_PATH"]
        try:
            from voila.paths import collect_static_paths
            from voila.utils import get_voila_labextensions_path

            try:
                from jupyter_server import DEFAULT_STATIC_FILES_PATH
            except ImportError:  # jupyter_server 1 (Voilà adds it only with version 2)
                DEFAULT_STATIC_FILES_PATH = None
            template_static = collect_static_paths(["voila", "nbconvert"], template)
            if not any(
                Path(p).parent.name == template and Path(p).parent.is_dir() for p in template_static
            ):
                raise ValueError(f"no Voilà template named {template!r} is installed")
            labextensions = get_voila_labextensions_path()
        finally:
            if saved is None:
                os.environ.pop("JUPYTER_PATH", None)
            else:
                os.environ["JUPYTER_PATH"] = saved
        temporary = Path(env["JUPYTER_PATH"].split(os.pathsep)[0]).resolve()
        # each of our templates' static folder in the server's temporary copy, and in the
        # installed package
        installed = {
            temporary / "voila" / "templates" / name / "static": Path(
                str(resources.files("amteach") / package_folder / "static")
            )
            for name, package_folder in TEMPLATE_FOLDERS.items()
        }

        def lasting(folder: str) -> Path | None:
            """The folder, or the installed one for the server's temporary copy."""
            path = Path(folder).resolve()
            if path in installed:
                return installed[path]
            return None if path.is_relative_to(temporary) else path

        template_paths = [p for p in map(lasting, template_static) if p is not None]
    voila_static = list(template_paths)
    if DEFAULT_STATIC_FILES_PATH:
        voila_static.append(Path(DEFAULT_STATIC_FILES_PATH).resolve())
    return StaticFolders(
        voila_static=_existing(voila_static),
        template_static=_existing(template_paths),
        labextensions=_existing(Path(p).resolve() for p in labextensions),
        plotly_bundle=plotly_widget_bundle().resolve(),
    )


def _existing(paths: Iterable[Path]) -> list[Path]:
    seen: list[Path] = []
    for path in paths:
        if path.is_dir() and path not in seen:
            seen.append(path)
    return seen


def _quoted(path: Path | str, variable: str = "") -> str:
    """A folder's path (then `variable`, an nginx variable) as one quoted nginx argument. A
    path holding a quote, a backslash or a $ is refused: nginx would read it otherwise."""
    text = str(path)
    if re.search(r'["\\$]', text):
        raise ValueError(f"{text!r}: nginx cannot be given a path holding quotes, \\ or $")
    return f'"{text}{variable}"'


def _try_files(folders: list[Path], capture: str) -> str:
    """Each folder in turn, then the server; only the server when there is no folder."""
    if not folders:
        return f"error_page 418 = @{UPSTREAM}; return 418;"
    tries = " ".join(_quoted(folder, f"/${capture}") for folder in folders)
    return f"try_files {tries} @{UPSTREAM};"


def site_file(
    port: int = 8866,
    base_url: str = "/",
    template: str = TEMPLATE,
    server_name: str = "_",
    upstream_host: str = "127.0.0.1",
    folders: StaticFolders | None = None,
) -> str:
    """The nginx site file (a `map` and a `server` block, for nginx's `http` context, as
    Debian's sites-enabled files are) for a dashboard server on `upstream_host:port` under
    `base_url`: static files from disk, everything else proxied."""
    folders = folders or static_folders(template)
    base = re.escape(base_url)
    types = "\n".join(f"            {kind} {names};" for kind, names in TYPES.items())
    cached = f"public, max-age={VERSIONED_MAX_AGE}, immutable"
    # what every static location shares: types, gzip, and the cache rule of $amteach_cache
    static_common = f"""        types {{
{types}
        }}
        default_type application/octet-stream;
        gzip on;
        gzip_vary on;
        gzip_comp_level 5;
        gzip_min_length 1024;
        gzip_types {COMPRESSED_TYPES};
        add_header Cache-Control $amteach_cache always;
        add_header X-Served-By "nginx static" always;"""
    proxy = f"""        proxy_pass http://{UPSTREAM};
        proxy_http_version 1.1;
        # $http_host keeps the port: the server checks that a websocket comes from its own page
        proxy_set_header Host $http_host;
        proxy_set_header X-Real-IP $remote_addr;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        # a student may read the board for a long time without a click
        proxy_read_timeout 1h;
        proxy_send_timeout 1h;
        # Voilà sends the page while it builds it
        proxy_buffering off;"""
    template_url = f"{base_url}voila/templates/{template}/static/"
    # the amteach template's folder, which every page of ours links whichever of our templates
    # draws it (amteach/serving/environment.py)
    amteach_url = f"{base_url}voila/templates/{AMTEACH_TEMPLATE}/static/"
    plotly = (
        f"""
    # plotly's widget bundle, under the amteach template's static URL
    location = {amteach_url}{PLOTLY_BUNDLE} {{
{static_common}
        alias {_quoted(folders.plotly_bundle)};
    }}
"""
        if template in TEMPLATE_FOLDERS
        else ""
    )
    if template != AMTEACH_TEMPLATE and template in TEMPLATE_FOLDERS:
        # the lean template's page links the amteach template's projector styles
        projector = Path(str(resources.files("amteach") / "voila_template" / "static"))
        plotly += f"""
    # the projector styles, under the amteach template's static URL
    location = {amteach_url}projector.css {{
{static_common}
        alias {_quoted(projector / "projector.css")};
    }}
"""
    return f"""# Written by `amteach dashboard --nginx-config` for the Python environment at the time:
# write it again after upgrading amteach, Voila or the widgets.
# Static files from disk (gzipped; cached for a year when their URL is versioned), the rest
# passed on to the dashboard server.

# websockets: pass the Upgrade header on, and close the connection when there is none
map $http_upgrade $connection_upgrade {{
    default upgrade;
    ''      close;
}}

# versioned URLs (?v=<hash>, or a content hash in the file's name) never change: cache a year;
# other files are checked again on each visit (an answer of 304 when unchanged)
map $request_uri $amteach_cache {{
    default                              "no-cache";
    "~[?&]v=[0-9a-zA-Z]+"                "{cached}";
    "~/voila/labextensions/.+\\.[0-9a-f]{{8,}}\\.js$"   "{cached}";
    "~/voila/templates/[^/]+/static/[0-9a-f]{{20}}\\.(woff2?|ttf|eot|svg)$"  "{cached}";
    # the lean front end's parts and MathJax's fonts: esbuild puts a content hash in their names
    "~/voila/templates/amteach-lean/static/[A-Za-z0-9_-]+-[A-Z0-9]{{8}}\\.(js|woff)$"  "{cached}";
}}

upstream {UPSTREAM} {{
    server {upstream_host}:{port};
}}

server {{
    listen 80;
    server_name {server_name};

    # TLS: get a certificate (for example `sudo apt-get install certbot python3-certbot-nginx`
    # and `sudo certbot --nginx -d class.example.org`, which edits these lines for you), or
    # uncomment them with your own certificate's paths:
    # listen 443 ssl;
    # ssl_certificate     /etc/letsencrypt/live/class.example.org/fullchain.pem;
    # ssl_certificate_key /etc/letsencrypt/live/class.example.org/privkey.pem;
    # if ($scheme = http) {{ return 301 https://$host$request_uri; }}

    # Voila's scripts (voila.js and its chunks)
    location ~ ^{base}voila/static/(?<amteach_file>[^?]+)$ {{
{static_common}
        root /;
        {_try_files(folders.voila_static, "amteach_file")}
    }}

    # the template's styles, fonts and scripts
    location ~ ^{re.escape(template_url)}(?<amteach_file>[^?]+)$ {{
{static_common}
        root /;
        {_try_files(folders.template_static, "amteach_file")}
    }}
{plotly}
    # the widget extensions (the widget manager, anywidget, Voila's widget manager)
    location ~ ^{base}voila/labextensions/(?<amteach_file>[^?]+)$ {{
{static_common}
        root /;
        {_try_files(folders.labextensions, "amteach_file")}
    }}

    # the server's health for a monitor or a load balancer's check: 200 while a new visitor
    # would get a kernel, 503 when --max-visitors is reached (docs/deploy.md, section 6);
    # checks every few seconds stay out of the access log
    location = {base_url}health {{
        proxy_pass http://{UPSTREAM};
        access_log off;
    }}

    # everything else: the pages, the kernels' API and websockets
    location {base_url} {{
{proxy}
    }}

    # what the static locations do not have on disk
    location @{UPSTREAM} {{
{proxy}
    }}
}}
"""
