"""Widgets that several pages of the dashboard share: the Play tab, the Class tab and a
student's page each answer their person with a `Messages` line and draw their actions with
`button`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from ..render import html_text
from ..session import Reply

# the colour of a message by its level (its words say the level too)
MESSAGE_COLOURS = {"info": "#1f4fb4", "warning": "#8a4b00", "error": "#b00020"}


def button(description: str, handler: Callable[[Any], None], tooltip: str = "") -> widgets.Button:
    made = widgets.Button(
        description=description, tooltip=tooltip or description, layout=widgets.Layout(width="auto")
    )
    made.on_click(handler)
    return made


class Messages:
    """One line that answers the person at this screen: a refusal, a warning, a confirmation."""

    def __init__(self) -> None:
        self.widget = widgets.HTML()
        self.widget.add_class("am-message")

    def show(self, reply: Reply) -> bool:
        if reply.message:
            self.widget.value = html_text(
                '<div role="status" style="color:{}">{}</div>',
                MESSAGE_COLOURS[reply.level],
                reply.message,
            )
        else:
            self.widget.value = ""
        return reply.ok
