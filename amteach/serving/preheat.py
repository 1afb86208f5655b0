"""How a kernel from Voilà's preheated pool learns which page its visitor opened.

Voilà keeps kernels started ahead of visitors (`amteach dashboard --pool`), each of which has
run the dashboard notebook before anyone came. The visitor's request (a join link's
`?room=CODE`) reaches such a kernel only later, over a socket; `when_page_known` waits for it
without blocking the notebook. Runs in the kernel, so it never imports Voilà itself.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable

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
