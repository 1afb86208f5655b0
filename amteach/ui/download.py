"""A button that saves a file in the visitor's own browser (their Downloads folder), never on
the server. A click asks the kernel for the file; the kernel answers with its text, and the
browser hands it to the visitor as a download. The file's name is fixed by the kernel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anywidget
import traitlets

# The browser side: a plain button; the kernel's answer becomes a Blob saved by a link click.
DOWNLOAD_ESM = """
function render({ model, el }) {
  const button = document.createElement("button");
  button.className = "jupyter-widgets jupyter-button widget-button am-download";
  const show = () => {
    button.textContent = model.get("description");
    button.title = model.get("tooltip");
  };
  show();
  model.on("change:description", show);
  model.on("change:tooltip", show);
  button.addEventListener("click", () => model.send({ request: "file" }));
  model.on("msg:custom", (message, buffers) => {
    if (!message || message.kind !== "file") return;
    const content = message.binary && buffers && buffers.length ? buffers[0] : message.text;
    const blob = new Blob([content], { type: message.mime });
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url;
    link.download = message.filename;
    link.style.display = "none";
    document.body.appendChild(link);
    link.click();
    link.remove();
    URL.revokeObjectURL(url);
  });
  el.appendChild(button);
}
export default { render };
"""


class DownloadButton(anywidget.AnyWidget):
    """A button whose click downloads `filename` with the text (or bytes) `make_text()`
    returns.

    `make_text` runs in the kernel at the moment of the click, so the file holds what is on
    screen then. The file name is the kernel's; nothing from the browser names a path."""

    _esm = DOWNLOAD_ESM
    description = traitlets.Unicode("Download").tag(sync=True)
    tooltip = traitlets.Unicode("").tag(sync=True)

    def __init__(
        self,
        filename: str,
        make_text: Callable[[], str | bytes],
        description: str = "Download",
        tooltip: str = "",
        mime: str = "application/json",
    ) -> None:
        super().__init__(description=description, tooltip=tooltip or description)
        self.filename = filename
        self.make_text = make_text
        self.mime = mime
        self.on_msg(self._answer)

    def file_message(self) -> dict[str, Any]:
        """What the kernel sends the browser for one click: the file's name, type and text
        (bytes go as a binary buffer beside the message, under "data")."""
        content = self.make_text()
        message: dict[str, Any] = {"kind": "file", "filename": self.filename, "mime": self.mime}
        if isinstance(content, bytes):
            return {**message, "binary": True, "data": content}
        return {**message, "text": content}

    def _answer(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("request") == "file":
            message = self.file_message()
            data = message.pop("data", None)
            self.send(message, buffers=[data] if data is not None else None)
