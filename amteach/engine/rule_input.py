"""Rule parameters typed by a person, as `NAME=VALUE` text: the command line's `--set` and the
dashboard's sweep box. Values are read as YAML (numbers, lists, mappings, null) and checked
later by `RuleSet`; a malformed item raises InputError naming it."""

from __future__ import annotations

from typing import Any

import yaml

from .errors import InputError


def parse_overrides(items: tuple[str, ...], option: str = "--set") -> dict[str, Any]:
    """NAME=VALUE items as {name: value}; `option` names where the items came from."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise InputError(f"{option} takes name=value, not {item!r}", field=option)
        try:
            out[name.strip()] = yaml.safe_load(raw)
        except yaml.YAMLError:
            raise InputError(f"cannot read the value {raw!r}", field=f"{option} {name}") from None
    return out


def parse_sweep_values(items: tuple[str, ...], option: str = "--set") -> tuple[str, list[Any]]:
    """NAME=V1,V2,...: the parameter's name and its values, each read like a NAME=VALUE value
    (so [10,10,10] is a list and {1: 25} a mapping)."""
    if not items:
        raise InputError(
            "name the parameter to sweep and its values, e.g. "
            f"{option} foundation_monopolist_fee=10,160",
            field=option,
        )
    if len(items) > 1:
        raise InputError(
            f"a sweep varies one parameter; got {len(items)} {option} options", field=option
        )
    name, sep, raw = items[0].partition("=")
    name = name.strip()
    if not sep or not name:
        raise InputError(f"{option} takes NAME=V1,V2,..., not {items[0]!r}", field=option)
    if not raw.strip():
        raise InputError(f"a sweep of {name} needs at least one value after '='", field=name)
    values = parse_overrides((f"{name}=[{raw}]",), option)[name]
    if not isinstance(values, list):  # pragma: no cover - a YAML flow list always reads as one
        raise InputError(f"cannot read the values {raw!r}", field=name)
    return name, values
