"""Rule sets for a class's tables (treatments): each table of a room plays one rule set, a
preset plus changed rule parameters, and its students' phones say which in one plain line.

Named rule sets ship as data (amteach/data/treatments.yaml); the instructor may also type
changed parameters (`name=value` lines, read by the engine's rule input and checked by
`RuleSet.replace`). How tables get their rule set (`ASSIGNMENTS`): one for every table (the
default, as before treatments), balanced at random (`balanced`: each rule set gets the floor
or the ceiling of tables / rule sets tables, shuffled by the room's seed), or by hand.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from ..engine.errors import DataError, InputError, RulesError, quoted
from ..engine.rule_input import parse_overrides, read_plain_yaml
from ..engine.rules import RuleSet, preset_names

SAME, BALANCED, BY_HAND = "same", "balanced", "by_hand"
ASSIGNMENTS = (SAME, BALANCED, BY_HAND)
# a class compares a few rule sets; more would leave each with a table or two
MAX_RULE_SETS = 6
MAX_KEY = 40
MAX_LABEL = 60
MAX_LINE = 240
# what the room's own settings decide, never a rule set: the round cap (Game A and B) and the
# preset's name (a rule set names its preset)
NOT_CHANGED = ("round_cap", "preset_name")
# the Class tab's typed changes: at most this many lines
MAX_CHANGED_LINES = 30
LINE_HEAD = "Rules at your table: "


@dataclass(frozen=True)
class RuleSetChoice:
    """One rule set a table can play: `preset` with `changes` (rule parameters), its `label`
    for the instructor and `line`, the plain words a phone shows after LINE_HEAD."""

    key: str
    label: str
    line: str
    preset: str = "default"
    changes: dict[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        for name, limit in (("key", MAX_KEY), ("label", MAX_LABEL), ("line", MAX_LINE)):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip() or len(value) > limit:
                raise InputError(
                    f"must be text of 1 to {limit} characters, not {quoted(value)}",
                    field=f"treatments {name}",
                )
        if self.preset not in preset_names():
            raise InputError(
                f"must be one of {', '.join(preset_names())}, not {quoted(self.preset)}",
                field="treatments preset",
            )
        if not isinstance(self.changes, dict):
            raise InputError("must be a mapping of rule parameters", field="treatments changes")
        checked_changes(self.preset, self.changes)

    def rules(self) -> RuleSet:
        """The rules of this rule set (no round cap: the room adds it for Game A and B)."""
        return checked_changes(self.preset, self.changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "line": self.line,
            "preset": self.preset,
            "changes": dict(self.changes),
        }

    @classmethod
    def from_dict(cls, data: Any) -> RuleSetChoice:
        if isinstance(data, RuleSetChoice):
            return data
        if not isinstance(data, dict):
            raise InputError(
                f"each rule set must be a mapping, not {type(data).__name__}", field="treatments"
            )
        known = {"key", "label", "line", "preset", "changes"}
        unknown = sorted(set(data) - known, key=str)
        if unknown:
            raise InputError(f"unknown item {quoted(unknown[0])}", field="treatments")
        return cls(**data)

    def on_preset(self, preset: str) -> RuleSetChoice:
        """This rule set started from `preset` instead, when it names none of its own (its
        preset is "default"): a named rule set's changes apply to the instructor's preset."""
        if self.preset != "default" or preset == "default":
            return self
        return RuleSetChoice(self.key, self.label, self.line, preset, dict(self.changes))


def checked_changes(preset: str, changes: dict[str, Any]) -> RuleSet:
    """`preset` with `changes`, checked by the engine: an unknown name or a value out of range
    raises InputError naming the parameter."""
    for name in changes:
        if name in NOT_CHANGED:
            raise InputError(
                "is set by the room (the Round cap box), not by a rule set"
                if name == "round_cap"
                else "is not a rule parameter (a rule set names its preset)",
                field=str(name),
            )
    try:
        text = json.dumps([preset, changes], sort_keys=True)
    except (TypeError, ValueError):  # not JSON data: a forged settings object
        raise InputError("must be plain rule values", field="treatments changes") from None
    return _rules_of(text)


@lru_cache(maxsize=256)
def _rules_of(text: str) -> RuleSet:
    """The rules of a [preset, changes] pair written as JSON: a room's settings are read
    again at every news, and checking a RuleSet costs a few hundred microseconds, so each
    rule set is checked once (a refused one is not kept: lru_cache keeps no exception)."""
    preset, changes = json.loads(text)
    try:
        return RuleSet.preset(preset).replace(**changes)
    except RulesError as err:
        raise InputError(err.reason, field=err.field or "treatments") from None


def read_changes(text: str, where: str = "Changed rules") -> dict[str, Any]:
    """Changed rule parameters typed as `name=value` lines (blank lines and # comments are
    left out), read by the engine's rule input and checked against the default preset; one
    InputError names what is wrong."""
    if not isinstance(text, str):
        raise InputError("must be text", field=where)
    lines = [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    if len(lines) > MAX_CHANGED_LINES:
        raise InputError(f"takes at most {MAX_CHANGED_LINES} lines", field=where)
    changes = parse_overrides(tuple(lines), where)
    checked_changes("default", changes)
    return changes


@cache
def _named() -> tuple[RuleSetChoice, ...]:
    text = resources.files("amteach.data").joinpath("treatments.yaml").read_text("utf-8")
    data = read_plain_yaml(text)
    if not isinstance(data, list) or not data:
        raise DataError("must be a list of rule sets", "treatments.yaml")
    try:
        return tuple(RuleSetChoice.from_dict(item) for item in data)
    except InputError as err:
        raise DataError(err.reason, "treatments.yaml", err.field) from None


def named_rule_sets() -> dict[str, RuleSetChoice]:
    """The named rule sets (data/treatments.yaml), by key, in the file's order."""
    return {choice.key: choice for choice in _named()}


def named_rule_set(key: str) -> RuleSetChoice:
    named = named_rule_sets()
    if key not in named:
        raise InputError(
            f"must be one of {', '.join(named)}, not {quoted(key)}", field="treatments"
        )
    return named[key]


def as_written(preset: str) -> RuleSetChoice:
    """The rule set of a room without treatments: `preset` unchanged."""
    if preset == "default":
        return named_rule_set("as-written")
    return RuleSetChoice(
        key=f"preset-{preset}"[:MAX_KEY],
        label=f"Preset {preset}"[:MAX_LABEL],
        line=f"the {preset} rules, as the Rules tab shows them."[:MAX_LINE],
        preset=preset,
    )


def balanced(tables: int, rule_sets: int, seed: int) -> list[int]:
    """Each table's rule set (an index), balanced at random: every rule set gets the floor or
    the ceiling of tables / rule_sets tables (which ones get the extra table is drawn too),
    shuffled by `seed`; the same seed gives the same tables."""
    if tables < 1 or rule_sets < 1:
        raise InputError("needs at least one table and one rule set", field="treatments")
    rng = random.Random(f"treatments:{seed}")
    extra = set(rng.sample(range(rule_sets), tables % rule_sets))
    plan = [
        index for index in range(rule_sets) for _ in range(tables // rule_sets + (index in extra))
    ]
    rng.shuffle(plan)
    return plan


def rule_set_line(choice: RuleSetChoice) -> str:
    """The one plain line a phone shows: "Rules at your table: equal keep shares — ..."."""
    return LINE_HEAD + choice.line
