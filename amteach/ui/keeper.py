"""What a class page keeps in the visitor's own browser (localStorage), never on the server:
the instructor keys of the classes this browser opened, and the rejoin tokens of the seats
this device holds. `BrowserMemory` tells the kernel what is kept when the page opens and
keeps what the kernel hands it. `SecretLink` shows the instructor link once, hidden until
asked, with a copy button.

An instructor link carries its key in the URL *fragment* (`#class=CODE&key=KEY`), which
browsers never send to a server; the page reads it, keeps it and takes it off the address
bar, so the projector never shows it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

import anywidget
import traitlets

INSTRUCTOR_SPACE = "amteach-instructor-keys"
SEAT_SPACE = "amteach-seat-tokens"
MAX_KEPT = 20  # entries one browser keeps per space (the oldest go first)

MEMORY_ESM = """
function render({ model, el }) {
  const space = model.get("space");
  const read = () => {
    try {
      const items = JSON.parse(localStorage.getItem(space) || "{}");
      return items && typeof items === "object" ? items : {};
    } catch (e) { return {}; }
  };
  const write = (items) => {
    try { localStorage.setItem(space, JSON.stringify(items)); } catch (e) { /* private mode */ }
  };
  let fragment = {};
  if (model.get("read_fragment") && location.hash.length > 1) {
    const params = new URLSearchParams(location.hash.slice(1));
    if (params.get("class") && params.get("key")) {
      fragment = { code: params.get("class"), key: params.get("key") };
      history.replaceState(null, "", location.pathname + location.search);
    }
  }
  model.send({ kind: "stored", items: read(), fragment: fragment });
  model.on("msg:custom", (message) => {
    if (!message) return;
    const items = read();
    if (message.kind === "remember") {
      delete items[message.name];
      items[message.name] = message.value;
      const names = Object.keys(items);
      while (names.length > model.get("max_kept")) delete items[names.shift()];
      write(items);
    } else if (message.kind === "forget") {
      delete items[message.name];
      write(items);
    }
  });
  el.style.display = "none";
}
export default { render };
"""

SECRET_LINK_ESM = """
function render({ model, el }) {
  const box = document.createElement("div");
  box.className = "am-secret-link";
  const label = document.createElement("label");
  const field = document.createElement("input");
  field.type = "password";
  field.readOnly = true;
  field.id = "am-secret-" + Math.random().toString(36).slice(2);
  field.style.width = "min(36em, 90vw)";
  field.style.fontSize = "16px";
  label.htmlFor = field.id;
  label.style.display = "block";
  label.style.fontSize = "16px";
  const copy = document.createElement("button");
  copy.className = "jupyter-widgets jupyter-button widget-button";
  copy.textContent = "Copy";
  const show = document.createElement("button");
  show.className = "jupyter-widgets jupyter-button widget-button";
  const said = document.createElement("span");
  said.setAttribute("role", "status");
  said.style.marginLeft = "8px";
  const draw = () => {
    label.textContent = model.get("label");
    field.value = model.get("text");
    show.textContent = field.type === "password" ? "Show" : "Hide";
    box.style.display = model.get("text") ? "block" : "none";
  };
  copy.addEventListener("click", async () => {
    const text = model.get("text");
    try {
      await navigator.clipboard.writeText(text);
    } catch (e) {
      // no clipboard API on a plain-http classroom server: copy the selected field instead
      const type = field.type;
      field.type = "text";
      field.select();
      document.execCommand("copy");
      field.type = type;
    }
    said.textContent = "Copied.";
  });
  show.addEventListener("click", () => {
    field.type = field.type === "password" ? "text" : "password";
    draw();
  });
  model.on("change:text", draw);
  model.on("change:label", draw);
  box.append(label, field, copy, show, said);
  draw();
  el.appendChild(box);
}
export default { render };
"""


class BrowserMemory(anywidget.AnyWidget):
    """Name -> value pairs kept in the browser's localStorage under `space`. When the page
    opens, the browser sends them (and an instructor link's fragment, if `read_fragment`);
    `on_stored(items, fragment)` hears them. `remember` and `forget` change what is kept.
    Whatever arrives is checked here: only short text names and values get through."""

    _esm = MEMORY_ESM
    space = traitlets.Unicode(SEAT_SPACE).tag(sync=True)
    read_fragment = traitlets.Bool(False).tag(sync=True)
    max_kept = traitlets.Int(MAX_KEPT).tag(sync=True)

    def __init__(
        self,
        space: str,
        on_stored: Callable[[dict[str, str], dict[str, str]], Any],
        read_fragment: bool = False,
    ) -> None:
        super().__init__(space=space, read_fragment=read_fragment)
        self.on_stored = on_stored
        self.on_msg(self._heard)

    def _heard(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("kind") == "stored":
            self.on_stored(texts(content.get("items")), texts(content.get("fragment")))

    def remember(self, name: str, value: str) -> None:
        self.send({"kind": "remember", "name": name, "value": value})

    def forget(self, name: str) -> None:
        self.send({"kind": "forget", "name": name})


def texts(value: Any, most: int = MAX_KEPT) -> dict[str, str]:
    """The short text pairs of what a browser sent (anything else is dropped)."""
    if not isinstance(value, dict):
        return {}
    pairs = [
        (k, v)
        for k, v in value.items()
        if isinstance(k, str) and isinstance(v, str) and len(k) <= 64 and len(v) <= 200
    ]
    return dict(pairs[-most:])


class SecretLink(anywidget.AnyWidget):
    """A secret shown hidden (dots) with Show and Copy buttons; nothing when `text` is ""."""

    _esm = SECRET_LINK_ESM
    text = traitlets.Unicode("").tag(sync=True)
    label = traitlets.Unicode("").tag(sync=True)


def instructor_link(code: str, key: str, address: str) -> str:
    """The page's address with the class and its key in the fragment (never sent to a
    server) and no query: the link that opens a class's controls on another computer."""
    parts = urlsplit(address)
    fragment = f"class={code}&key={key}"
    if not parts.scheme:
        return f"#{fragment}"
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", "", fragment))


def parse_instructor_link(text: str) -> tuple[str | None, str]:
    """(code, key) from a pasted instructor link (or (None, text) for a bare key)."""
    text = str(text or "").strip()
    if "key=" in text:
        fragment = text.split("#", 1)[1] if "#" in text else text
        values = parse_qs(fragment)
        code = (values.get("class") or [None])[0]
        return code, (values.get("key") or [""])[0]
    return None, text
