"""What a served page does when a widget callback fails: the error and its traceback go to the
server's log, the visitor sees one plain line, and no traceback goes over the websocket.

ipywidgets reports a failing callback (a click handler, an observer, a forged message a widget
cannot read) by calling the kernel shell's `showtraceback`, which sends the whole traceback,
with source lines, to the page. `report_callback_errors` replaces that method in the kernel of a
served page. The kernel's stderr is forwarded to the page too, so amteach's own log ("amteach")
is pointed at the kernel's log, which writes to the server's terminal."""

from __future__ import annotations

import logging
import sys
from typing import Any

import ipywidgets as widgets

LOG = logging.getLogger("amteach")
PLAIN_LINE = (
    "Something went wrong on the server, so that was not done. "
    "Try again, or reload the page if it happens again."
)


class ProblemLine:
    """One line at the top of the page for an error no panel answered; hidden until then."""

    def __init__(self) -> None:
        self.widget = widgets.HTML(layout=widgets.Layout(display="none"))
        self.widget.add_class("am-problem")

    def show(self, text: str = PLAIN_LINE) -> None:
        self.widget.value = (
            '<p role="alert" style="font-size:18px;color:#8a0010;margin:4px 0">'
            f"{text}</p>"  # our own words: nothing from the error is shown
        )
        self.widget.layout.display = None


def server_log_handlers() -> list[logging.Handler]:
    """The handlers of the kernel's own log (they write to the server's terminal), or [] when
    not in a kernel."""
    try:
        from ipykernel.kernelapp import IPKernelApp
    except ImportError:  # pragma: no cover - ipykernel comes with ipywidgets
        return []
    if not IPKernelApp.initialized():
        return []
    return list(IPKernelApp.instance().log.handlers)


# loggers whose records carry tracebacks of what a page sent: amteach's own, and the comm
# manager's (a forged comm_open or comm_msg logs the traceback of the handler that failed)
SERVER_ONLY_LOGS = ("amteach", "Comm", "ipykernel.comm")


def log_to_server() -> None:
    """Send amteach's log and the comm manager's to the server's terminal rather than the
    kernel's stderr (which goes to the page: a forged comm_open would send back a traceback
    with the server's paths)."""
    handlers = server_log_handlers()
    if handlers:
        for name in SERVER_ONLY_LOGS:
            logger = logging.getLogger(name)
            logger.handlers = handlers
            logger.propagate = False


def report_callback_errors(line: ProblemLine, shell: Any = None) -> bool:
    """In this kernel (or `shell`), log every widget-callback error on the server and show
    `line`, instead of sending a traceback to the page. False when there is no kernel shell
    (plain Python: errors are raised as usual)."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:  # pragma: no cover - IPython comes with ipywidgets
            return False
        shell = get_ipython()
    if shell is None:
        return False
    log_to_server()

    def showtraceback(exc_tuple: Any = None, *args: Any, **kwargs: Any) -> None:
        error = exc_tuple if exc_tuple is not None else sys.exc_info()
        LOG.error("a widget callback failed", exc_info=error)
        line.show()

    shell.showtraceback = showtraceback
    return True
