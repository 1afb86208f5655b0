"""Rule parameters (decisions.md) as one frozen type, with named presets from data/rules.yaml."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from .errors import DataError, RulesError, quoted, shortened


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every rule parameter of the game. Build one with `RuleSet.preset(name, **overrides)`."""

    preset_name: str
    starting_cash: int
    start_payment: int
    income_tax_flat: int
    income_tax_percent_competitor: tuple[int, int, int]
    income_tax_percent_monopolist: tuple[int, int, int]
    property_tax: int
    foundation_monopolist_fee: int
    foundation_competitor_prizes: tuple[tuple[int, int], ...]
    fine: int
    held_turns_before_forced_fine: int
    max_houses_competitor: int
    max_houses_monopolist: int
    building_supply: str
    supply_houses: int
    supply_apartments: int
    monopoly_streets: int
    transport_fare_competitor: int
    transport_fares_monopolist: tuple[int, ...]
    utility_multiplier_competitor: int
    utility_multipliers_monopolist: tuple[int, ...]
    mortgage_percent: int
    redeem_percent: int
    building_sellback_percent: int
    settlement_keep_percent_competitor: int
    settlement_keep_percent_monopolist: int
    settlement_utility_dice: int
    round_cap: int | None

    # -- construction -------------------------------------------------------------------
    @classmethod
    def preset(cls, name: str = "default", **overrides: Any) -> RuleSet:
        """A named preset, with any parameters overridden. Unknown names raise RulesError."""
        presets = _presets()
        if name not in presets:
            raise RulesError(
                f"unknown rules preset {quoted(name)}; valid presets: {', '.join(presets)}",
                field="rules",
            )
        values = {**_defaults(), **presets[name], **overrides}
        return cls.from_dict({"preset_name": name, **values})

    @classmethod
    def from_dict(cls, values: dict[str, Any], source: str = "") -> RuleSet:
        """Validate a full or partial parameter mapping (missing ones take the defaults)."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known, key=str)
        if unknown:
            raise RulesError(
                f"unknown rule parameter {quoted(unknown[0])}; valid parameters: "
                + ", ".join(sorted(known - {"preset_name"})),
                source,
                shortened(str(unknown[0])),
            )
        merged = {"preset_name": "default", **_defaults(), **values}
        return cls(**{name: _coerce(name, merged[name], source) for name in known})

    @classmethod
    def coerce(cls, rules: Any = None, field: str = "rules") -> RuleSet:
        """Whatever a caller passed as rules, as a RuleSet: a RuleSet as it is, a preset's
        name, a mapping of parameters (with "preset" naming the one to start from), or None
        for the default preset. Anything else raises RulesError naming `field`."""
        if rules is None:
            return cls.preset("default")
        if isinstance(rules, RuleSet):
            return rules
        if isinstance(rules, str):
            return cls.preset(rules)
        if isinstance(rules, dict):
            values = dict(rules)
            return cls.preset(str(values.pop("preset", "default")), **values)
        raise RulesError(
            "rules must be a RuleSet, a preset name or a mapping of parameters, "
            f"not {type(rules).__name__}",
            field=field,
        )

    def replace(self, **overrides: Any) -> RuleSet:
        return RuleSet.from_dict({**self.to_dict(), **overrides})

    def to_dict(self) -> dict[str, Any]:
        out = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name == "foundation_competitor_prizes":
                value = {face: amount for face, amount in value}
            elif isinstance(value, tuple):
                value = list(value)
            out[field.name] = value
        return out

    def changed_from_default(self) -> dict[str, Any]:
        """The parameters that differ from the `default` preset, for display and saves."""
        base = RuleSet.preset("default").to_dict()
        return {k: v for k, v in self.to_dict().items() if v != base[k] and k != "preset_name"}

    # -- derived values -------------------------------------------------------------------
    def max_houses(self, role: int) -> int:
        return self.max_houses_monopolist if role else self.max_houses_competitor

    def income_tax_percents(self, role: int) -> tuple[int, int, int]:
        return self.income_tax_percent_monopolist if role else self.income_tax_percent_competitor

    def settlement_keep_percent(self, role: int) -> int:
        return (
            self.settlement_keep_percent_monopolist
            if role
            else self.settlement_keep_percent_competitor
        )

    @property
    def unlimited_supply(self) -> bool:
        return self.building_supply == "unlimited"


@cache
def _rules_file() -> dict[str, Any]:
    text = resources.files("amteach.data").joinpath("rules.yaml").read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise DataError(f"not valid YAML: {err}", "rules.yaml") from None
    for key in ("parameters", "presets"):
        if not isinstance(data, dict) or not isinstance(data.get(key), dict):
            raise DataError("must be a mapping", "rules.yaml", key)
    return data


def _defaults() -> dict[str, Any]:
    return dict(_rules_file()["parameters"])


def _presets() -> dict[str, dict[str, Any]]:
    return {name: dict(values or {}) for name, values in _rules_file()["presets"].items()}


def preset_names() -> list[str]:
    return list(_presets())


_NON_NEGATIVE_INTS = {
    "starting_cash",
    "start_payment",
    "income_tax_flat",
    "property_tax",
    "foundation_monopolist_fee",
    "fine",
    "held_turns_before_forced_fine",
    "supply_houses",
    "supply_apartments",
    "transport_fare_competitor",
    "utility_multiplier_competitor",
    "settlement_utility_dice",
}
_PERCENTS = {
    "mortgage_percent",
    "redeem_percent",
    "building_sellback_percent",
    "settlement_keep_percent_competitor",
    "settlement_keep_percent_monopolist",
}


# The largest amount or count a rule parameter may be: the rules core holds each in a C int,
# and a game's sums of them must stay inside one too.
LARGEST_WHOLE = 1_000_000_000


def _whole(name: str, value: Any, source: str, low: int = 0, high: int = LARGEST_WHOLE) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            if isinstance(value, str) and value.strip().lstrip("-").isdigit():
                value = int(value)
            else:
                raise ValueError
        except ValueError:
            raise RulesError(f"must be a whole number, not {quoted(value)}", source, name) from None
    if value < low or value > high:
        if high != LARGEST_WHOLE:
            span = f"from {low} to {high}"
        elif value < low:
            span = f"{low} or more"
        else:
            span = f"at most {LARGEST_WHOLE:,}"
        raise RulesError(f"must be {span}, not {quoted(value)}", source, name)
    return value


def _coerce(name: str, value: Any, source: str) -> Any:
    if name == "preset_name":
        return str(value)
    if name in _NON_NEGATIVE_INTS:
        return _whole(name, value, source)
    if name in _PERCENTS:
        return _whole(name, value, source, 0, 100)
    if name in ("max_houses_competitor", "max_houses_monopolist"):
        limit = 4 if name == "max_houses_competitor" else 3
        return _whole(name, value, source, 1, limit)
    if name == "monopoly_streets":
        return _whole(name, value, source, 1, 3)
    if name == "round_cap":
        return (
            None
            if value is None or str(value).lower() == "none"
            else _whole(name, value, source, 1)
        )
    if name == "building_supply":
        if value not in ("limited", "unlimited"):
            raise RulesError(f"must be 'limited' or 'unlimited', not {quoted(value)}", source, name)
        return value
    if name in ("income_tax_percent_competitor", "income_tax_percent_monopolist"):
        if not isinstance(value, list | tuple) or len(value) != 3:
            raise RulesError(
                "must be three percentages: cash, property, improvements", source, name
            )
        return tuple(_whole(name, v, source, 0, 100) for v in value)
    if name in ("transport_fares_monopolist", "utility_multipliers_monopolist"):
        size = 4 if name.startswith("transport") else 2
        if not isinstance(value, list | tuple) or len(value) != size:
            raise RulesError(f"must be a list of {size} whole numbers", source, name)
        return tuple(_whole(name, v, source) for v in value)
    if name == "foundation_competitor_prizes":
        if not isinstance(value, dict):
            raise RulesError("must map die faces 1-6 to amounts, e.g. {1: 25, 2: 50}", source, name)
        pairs = tuple(
            sorted(
                (_whole(name, face, source, 1, 6), _whole(name, amount, source))
                for face, amount in value.items()
            )
        )
        return pairs
    raise RulesError("is not a rule parameter", source, name)  # pragma: no cover - fields are fixed
