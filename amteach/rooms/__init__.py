"""Play together: a class joins shared tables from their own devices.

A room is a set of tables, each an append-only log of decisions in a database (SQLite by
default, PostgreSQL for a bigger class). A table held by a server (`hub.Hub`, for students'
phones) or followed by the instructor's Class tab is a `RoomTable`, a `Session` whose
decisions are written to the log before they are applied; every other holder of the table
reads the log and shows the same game. See docs/class-play.md.

Layers: rooms uses the session, the sim's frames and the engine; the UI (ui/class_tab.py),
the server (serving/phones.py) and the command line use rooms.
"""

import os
from importlib import import_module
from typing import TYPE_CHECKING, Any

from .follow import SERVER_DRIVES_ENV, Follower
from .names import MAX_NAME, clean_name, skeleton
from .room import (
    BOT,
    ENDING_LABELS,
    ENDINGS,
    HEARTBEAT_SECONDS,
    ROLE_MODES,
    STUDENT,
    Refused,
    RoomInfo,
    Rooms,
    RoomSettings,
    Seat,
    SeatRow,
    new_key,
)
from .store import RoomsUnavailable, Store, Taken, open_store
from .table import RoomTable, unavailable_reply

if TYPE_CHECKING:
    from .results import class_archive, class_result, decisions_frame, spreadsheet_safe

# The class's results (a table of games, an archive) need pandas, which a student's page never
# uses: imported when first asked for, so a join page's kernel does without (92 -> 57 MB PSS)
RESULTS = ("class_archive", "class_result", "decisions_frame", "spreadsheet_safe")


def __getattr__(name: str) -> Any:
    if name in RESULTS:
        return getattr(import_module(".results", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Set by `amteach dashboard --rooms`: the class database every kernel of the server opens.
ROOMS_ENV = "AMTEACH_ROOMS"
DEFAULT_FILE = "amteach-rooms.sqlite"


def rooms_url() -> str:
    """The class database of this server (`amteach dashboard --rooms`), or the default file
    in the working folder outside a server."""
    return os.environ.get(ROOMS_ENV) or os.path.abspath(DEFAULT_FILE)


def open_rooms(url: str | None = None) -> Rooms:
    """The rooms of the class database at `url` (default: this server's)."""
    return Rooms(open_store(url or rooms_url()))


__all__ = [
    "BOT",
    "DEFAULT_FILE",
    "ENDINGS",
    "ENDING_LABELS",
    "HEARTBEAT_SECONDS",
    "MAX_NAME",
    "ROLE_MODES",
    "ROOMS_ENV",
    "SERVER_DRIVES_ENV",
    "STUDENT",
    "Follower",
    "Refused",
    "RoomInfo",
    "RoomSettings",
    "RoomTable",
    "Rooms",
    "RoomsUnavailable",
    "Seat",
    "SeatRow",
    "Store",
    "Taken",
    "class_archive",
    "class_result",
    "clean_name",
    "decisions_frame",
    "new_key",
    "open_rooms",
    "open_store",
    "rooms_url",
    "skeleton",
    "spreadsheet_safe",
    "unavailable_reply",
]
