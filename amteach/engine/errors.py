"""Precise exceptions. Each names what was wrong and where, so callers can show one clear line."""

from __future__ import annotations


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
