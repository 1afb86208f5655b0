"""The configuration of the server `amteach dashboard` runs: how long a visitor's kernel is
kept, how many visitors fit in memory, where the class database is, and the command line that
starts Voilà with all of it (`voila_command`, run by `amteach dashboard` and by the tests).

Light on purpose: the command line imports it at start-up, so it imports neither Voilà nor the
Jupyter server (those run in the process it starts, `amteach.serving.app`).
"""

from __future__ import annotations

import errno
import os
import socket
import sys
import tempfile
from pathlib import Path

from ..engine.errors import AmteachError, InputError
from .environment import PUBLIC_URL_ENV

# A page that lost its connection keeps its kernel this long. The page's own reconnection gives
# up after at most about two minutes (seven tries, backing off to a minute), so five minutes
# covers every retry with room to spare, and a laptop lid closed for a few minutes too. Closed
# tabs do not wait for it: the page hands its kernel back as it closes.
GRACE_SECONDS = 300
# A page that was served but never connected to its kernel (a plain GET, a crawler) gives the
# kernel back this long after it was served; checked every quarter of it, so within 50 s.
# A browser connects within seconds of receiving the page, even on a loaded server.
UNOPENED_SECONDS = 40

# Kernels one browser (its device cookie) may hold at once: a student with a few tabs open.
# A script can drop the cookie; the cap per network address is what bounds a script.
PER_DEVICE = 4
# Kernels one network address may hold at once, by default: half of --max-visitors, so one
# address (a script, or one classroom behind a NAT) can take at most half the seats and the
# rest of the class, and the instructor, still get in. docs/deploy.md says how to size it.
PER_ADDRESS_AUTO = -1


def address_cap(max_visitors: int, max_per_address: int = PER_ADDRESS_AUTO) -> int:
    """The most kernels one network address may hold at once (0: no limit): `max_per_address`,
    or for PER_ADDRESS_AUTO half of `max_visitors` (at least 1; no limit without a cap)."""
    if max_per_address >= 0:
        return max_per_address
    return max(1, max_visitors // 2) if max_visitors else 0


# `--max-visitors auto` (the default): sized from the memory available when the server starts.
# A visitor's kernel holds about 90 MB (proportional set size) after a played game, and about
# 220 MB once it ran a Who wins batch and opened every analysis tab (docs/deploy.md); VISITOR_MB
# is a visitor who does some of both. A quarter of the available memory is left for the server,
# the class database and the machine's other work.
VISITOR_MB = 200
MEMORY_SHARE_FOR_VISITORS = 0.75


def available_memory_mb() -> int | None:
    """The memory the system could give to new processes now (MemAvailable), or None when
    the system does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2**20
    except (ValueError, OSError, AttributeError):
        return None


def default_max_visitors(available_mb: int | None = None) -> int:
    """`--max-visitors auto`: three quarters of the available memory over VISITOR_MB per
    visitor, at least 2; 20 when the system does not say how much memory it has."""
    available = available_mb if available_mb is not None else available_memory_mb()
    if available is None:
        return 20
    return max(2, int(available * MEMORY_SHARE_FOR_VISITORS) // VISITOR_MB)


# What JupyterHub puts in the environment of a service it starts (jupyterhub.services.service):
# the hub login (`amteach dashboard --hub-login`) needs every one of them.
HUB_SERVICE_ENV = (
    "JUPYTERHUB_API_TOKEN",
    "JUPYTERHUB_API_URL",
    "JUPYTERHUB_CLIENT_ID",
    "JUPYTERHUB_OAUTH_CALLBACK_URL",
    "JUPYTERHUB_SERVICE_PREFIX",
)


def started_by_hub(env: dict[str, str] | None = None) -> bool:
    """True when JupyterHub started this process as a service (its name and token are set):
    `amteach dashboard` then puts its visitors behind the hub's login unless told not to."""
    env = os.environ if env is None else env
    return bool(env.get("JUPYTERHUB_SERVICE_NAME") and env.get("JUPYTERHUB_API_TOKEN"))


def check_hub_login(base_url: str, env: dict[str, str] | None = None) -> None:
    """InputError, in one line, when the hub login cannot work: a JUPYTERHUB_* variable the
    hub gives its services is missing (the server was not started by the hub), jupyterhub is
    not installed beside amteach, or `base_url` is not the service's prefix (the hub's proxy
    passes /services/NAME/ on unchanged, and sends users back to the callback under it)."""
    import importlib.util

    env = os.environ if env is None else env
    missing = [name for name in HUB_SERVICE_ENV if not env.get(name)]
    if missing:
        raise InputError(
            f"--hub-login: {', '.join(missing)} not set: start the dashboard from "
            "jupyterhub_config.py's c.JupyterHub.services (docs/deploy.md, section 7)"
        )
    if importlib.util.find_spec("jupyterhub") is None:
        raise InputError(
            "--hub-login: jupyterhub is not installed in this Python environment: "
            "pip install jupyterhub (the hub's login client)"
        )
    prefix = env["JUPYTERHUB_SERVICE_PREFIX"]
    if normalized_base_url(prefix) != base_url:
        raise InputError(
            f"--base-url {base_url} is not the hub's address for this service: use --base-url "
            f"{prefix}"
        )


def check_port_free(ip: str, port: int) -> None:
    """InputError, naming the port, when the server could not listen on `port` at `ip`
    (another process has it, or this user may not take it); the server, told to use this port
    or none (voila_command), would stop with a line in its log instead."""
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # as the server binds: a port whose last connections are closing (TIME_WAIT) is free
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((ip, port))
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                raise InputError(
                    f"port {port} is already in use on {ip} (another dashboard or server?): "
                    "stop it, or choose another port with --port"
                ) from None
            if err.errno == errno.EACCES:
                raise InputError(
                    f"port {port} needs more rights than this user has: choose a port above "
                    "1023 with --port"
                ) from None
            raise InputError(f"cannot listen on {ip} port {port}: {err.strerror or err}") from None


def running_as_root() -> bool:
    """True when this process runs as root (uid 0)."""
    return hasattr(os, "geteuid") and os.geteuid() == 0


# A Unix socket's path has at most 107 bytes on Linux and 103 on macOS. Voilà keeps each
# kernel's sockets (transport=ipc, below) at FOLDER/voila_XXXXXXXX/kernel-<36-character
# id>-ipc-N, 65 bytes after the folder's own path.
SOCKET_PATH_MAX = 103 if sys.platform == "darwin" else 107
KERNEL_SOCKET_SUFFIX = len("/voila_XXXXXXXX/kernel-") + 36 + len("-ipc-1")
SHORT_TEMPORARY_FOLDER = "/tmp"


def kernel_socket_folder() -> str:
    """The folder for Voilà's kernel connection files and sockets: the temporary folder, or
    /tmp when the temporary folder's path is too long for a socket's (macOS's own, under
    /var/folders, is; so is a deep TMPDIR). Too long, a kernel cannot start and every page
    waits without a word, so InputError says so when neither will do."""
    room = SOCKET_PATH_MAX - KERNEL_SOCKET_SUFFIX
    temporary = tempfile.gettempdir()
    for folder in (temporary, SHORT_TEMPORARY_FOLDER):
        if len(os.fsencode(folder)) <= room and os.access(folder, os.W_OK | os.X_OK):
            return folder
    raise InputError(
        f"the temporary folder {temporary} is too long for the kernels' sockets "
        f"({len(os.fsencode(temporary))} characters; at most {room}), and "
        f"{SHORT_TEMPORARY_FOLDER} cannot be used instead: set TMPDIR to a shorter folder"
    )


def voila_command(
    notebook: Path,
    port: int,
    ip: str,
    pool: int,
    template: str,
    cull_after: int = GRACE_SECONDS,
    base_url: str = "/",
    max_visitors: int = 0,
    unopened_after: int = UNOPENED_SECONDS,
    *,
    max_per_device: int = PER_DEVICE,
    max_per_address: int = PER_ADDRESS_AUTO,
    trusted_proxies: tuple[str, ...] = (),
    hub_login: bool = False,
) -> list[str]:
    """The command line of the server that serves the dashboard to a class (Voilà with
    amteach's kernel cap and culling, `amteach.serving.app`), with a pool of `pool` kernels.
    Join links get the light phone page, which needs no kernel."""
    return [
        sys.executable,
        "-m",
        "amteach.serving.app",
        str(notebook),
        f"--port={port}",
        # this port or none: Voilà would otherwise move to a nearby free port unannounced, while
        # `amteach dashboard` has printed this one and nginx's upstream names it
        "--Voila.port_retries=0",
        f"--Voila.connection_dir_root={kernel_socket_folder()}",
        f"--Voila.ip={ip}",
        f"--Voila.base_url={base_url}",
        "--no-browser",
        f"--template={template}",
        "--strip_sources=True",  # viewers see controls, never code
        "--show_tracebacks=False",  # errors stay in the server's log
        # /voila/files/ would serve the notebook folder's images; the dashboard needs none
        "--VoilaConfiguration.file_allowlist=[]",
        # the dashboard draws every chart as a widget: plotly's renderer extension and code
        # highlighting would only add megabytes to each page
        "--VoilaConfiguration.extension_denylist=['jupyterlab-plotly', 'jupyterlab_pygments']",
        "--preheat_kernel=True",
        # when many visitors arrive at once, a busy machine is slow to send the notebook's output;
        # the default 4 s wait would drop it and leave a page without the dashboard
        "--VoilaExecutor.iopub_timeout=120",
        f"--pool_size={min(pool, max_visitors) if max_visitors else pool}",
        f"--ClassroomKernelManager.max_kernels={max_visitors}",
        # a kernel whose page never connects is shut down `unopened_after` s after it was served
        f"--ClassroomKernelManager.unopened_timeout={unopened_after}",
        # a kernel with no page connected is shut down `cull_after` seconds after its page
        # disconnected (or its last activity); kernels with a page connected are kept
        f"--MappingKernelManager.cull_idle_timeout={cull_after}",
        f"--MappingKernelManager.cull_interval={max(1, min(60, cull_after // 5))}",
        "--MappingKernelManager.cull_connected=False",
        # and `cull_after` seconds after its last page disconnected, whatever output it still
        # produces (output counts as activity for the cull above)
        f"--ClassroomKernelManager.disconnect_grace={cull_after}",
        # kernels per browser and per network address (-1: half of max_kernels)
        f"--ClassroomKernelManager.max_per_device={max_per_device}",
        f"--ClassroomKernelManager.max_per_address={max_per_address}",
        f"--ClassroomVoila.trusted_proxies={list(trusted_proxies)!r}",
        # kernels talk to the server over Unix sockets in Voilà's private folder, not over TCP
        # ports picked ahead of time: when many kernels start at once, another process can take
        # a picked port first, and the server then waits on that kernel forever (seen with 30)
        "--KernelManager.transport=ipc",
        # visitors log in at the JupyterHub that started the server (amteach.serving.hub)
        *(["--ClassroomVoila.hub_login=True"] if hub_login else []),
    ]


def normalized_base_url(value: str) -> str:
    """`/amteach/` from `amteach`, `/amteach` or `/amteach/`; ValueError, saying what a path
    may hold, otherwise."""
    parts = [part for part in value.strip().split("/") if part]
    for part in parts:
        if part in (".", "..") or not all(c.isalnum() or c in "-_.~" for c in part):
            raise ValueError(
                f"{value!r}: use letters, digits and - _ . ~ between slashes, e.g. /amteach/"
            )
    return "/" + "".join(f"{part}/" for part in parts)


def rooms_environment(rooms_url: str, public_url: str | None) -> dict[str, str]:
    """The environment that tells the kernels where the class database is (`--rooms`) and the
    address students open (`--public-url`). Opens (and if need be creates or migrates) the
    database once, before serving, so a bad address fails here, as an InputError naming the
    option, and not in every visitor's kernel."""
    from urllib.parse import urlsplit

    from ..rooms import ROOMS_ENV, open_store

    try:
        store = open_store(rooms_url)
    except AmteachError as err:  # RoomsUnavailable included
        raise InputError(f"--rooms: {err}") from None
    store.close()
    env = {ROOMS_ENV: rooms_url if "://" in rooms_url else str(store.where)}
    if public_url is not None:
        parts = urlsplit(public_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise InputError(f"--public-url: {public_url!r} is not an http:// or https:// address")
        env[PUBLIC_URL_ENV] = public_url
    return env
