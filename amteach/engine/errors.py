"""Precise exceptions. Each names what was wrong and where, so callers can show one clear line."""

from __future__ import annotations

import reprlib


class AmteachError(Exception):
    """Base class of every error amteach raises on purpose."""


class IllegalChoice(AmteachError):
    """A decision the rules do not allow right now. The game state is left untouched.

    `rule` names the rule or decision broken, e.g. "rule 11 (building)".
    """

    def __init__(self, message: str, rule: str) -> None:
        super().__init__(f"{message} [{rule}]")
        self.reason = message
        self.rule = rule


class InputError(AmteachError):
    """Bad input from a file or a caller: names the source and the field."""

    def __init__(self, message: str, source: str = "", field: str = "") -> None:
        where = ", ".join(part for part in (source, f"field {field}" if field else "") if part)
        super().__init__(f"{where}: {message}" if where else message)
        self.source = source
        self.field = field
        self.reason = message


class DataError(InputError):
    """A package data file (board, cards, rules) is malformed."""


class RulesError(InputError):
    """An unknown preset or parameter, or an impossible parameter value."""


class ScenarioError(InputError):
    """A malformed scenario file or an invalid set-up."""


class SaveError(InputError):
    """A corrupt or incompatible saved game."""


# An error message quotes at most this many characters of what was typed or uploaded, so a
# huge or hostile value never becomes a huge message (docs/dashboard.md, "What a visitor can
# and cannot do").
QUOTE_LIMIT = 80

_SHORT_REPR = reprlib.Repr()  # (keyword arguments need Python 3.12)
_SHORT_REPR.maxlevel = 3
_SHORT_REPR.maxtuple = _SHORT_REPR.maxlist = _SHORT_REPR.maxset = 6
_SHORT_REPR.maxdict = 4
_SHORT_REPR.maxstring = _SHORT_REPR.maxother = QUOTE_LIMIT
_SHORT_REPR.maxlong = 40


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """`value` as an error message quotes it: its repr, cut to about `limit` characters with
    "..." where it was cut. Nested values are shortened level by level (reprlib), so quoting
    costs little however large the value is."""
    try:
        text = _SHORT_REPR.repr(value)
    except ValueError:  # an integer with more digits than Python will print
        return "(a number too long to show)"
    return shortened(text, limit)


def shortened(text: str, limit: int = QUOTE_LIMIT) -> str:
    """`text` cut to `limit` characters, with "..." where it was cut (a name quoted as it is)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."
