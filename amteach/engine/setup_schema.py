"""Reading a set-up (scenario files and saved games share the format) into a `Setup`.

pydantic checks the shape and types and tells us which field is wrong; the game's own
`validate_setup` then checks the rules (role split, buildings, supply).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from .board import ROLES, Board, standard_board
from .errors import InputError, RulesError, ScenarioError
from .rules import RuleSet
from .setup import PlayerSetup, Setup, TitleSetup, validate_setup


def _refuse_true_false(value: Any) -> Any:
    # YAML reads `true` as a boolean, which Python (and pydantic) would take for 1
    if isinstance(value, bool):
        raise PydanticCustomError(
            "whole_number", "should be a whole number, not {value}", {"value": str(value).lower()}
        )
    return value


def _title_key(value: Any) -> Any:
    if isinstance(value, bool):
        raise PydanticCustomError(
            "title_key",
            "a title is named by its board name or its space number, not {value}",
            {"value": str(value).lower()},
        )
    return value


Whole = Annotated[int, BeforeValidator(_refuse_true_false)]
TitleKey = Annotated[str | int, BeforeValidator(_title_key)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)


class TitleSpec(_Strict):
    houses: Whole = Field(0, ge=0)
    apartment: bool = False
    mortgaged: bool = False


class PlayerSpec(_Strict):
    name: str = Field(min_length=1)
    role: Literal["competitor", "monopolist"]
    cash: Whole | None = Field(None, ge=0)
    position: Whole = Field(0, ge=0, le=39)
    held: Whole | None = Field(None, ge=0)
    titles: dict[TitleKey, TitleSpec | None] = Field(default_factory=dict)


class SetupSpec(_Strict):
    rules: str | dict[str, Any] = "default"
    game: Literal["A", "B", "two-hour"] = "A"
    seed: Whole = 0
    players: list[PlayerSpec]
    dice: list[list[Whole]] = Field(default_factory=list)
    cards: dict[Literal["competitor", "monopolist"], list[str]] = Field(default_factory=dict)


class ScenarioSpec(SetupSpec):
    script: list[str | dict[str, Any]] = Field(default_factory=list)


def _location(loc: tuple[Any, ...]) -> str:
    if "[key]" in loc:  # a bad mapping key: name the mapping (the key is in the message)
        loc = loc[: loc.index("[key]") - 1]
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


_UNION_TAGS = {"str", "int", "bool", "dict[str,any]", "TitleSpec", "PlayerSpec"}
_EXPECTED = {
    "string_type": "text",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "bool_type": "true or false",
    "list_type": "a list",
}


def validate_model(
    model: type[BaseModel], data: Any, source: str, error: type[InputError], prefix: str = ""
) -> Any:
    """Validate with pydantic and turn its first complaint into one clear InputError."""
    if not isinstance(data, dict):
        raise error(
            "must be a mapping of fields (rules, players, ...)",
            source,
            prefix.rstrip(".") or "top level",
        )
    try:
        return model.model_validate(data)
    except ValidationError as err:
        errors = err.errors()
        first = errors[0]
        # a union reports one error per branch, tagged with the branch's type in the path
        is_union = len(first["loc"]) > 0 and first["loc"][-1] in _UNION_TAGS
        loc = first["loc"][:-1] if is_union else first["loc"]
        if is_union:
            expected = [_EXPECTED.get(e["type"], e["type"]) for e in errors if e["loc"][:-1] == loc]
            message = "should be " + " or ".join(dict.fromkeys(expected))
        elif first["type"] == "extra_forbidden":
            message = "is not a field here"
        else:
            message = first["msg"][0].lower() + first["msg"][1:]
        raise error(message, source, prefix + _location(loc)) from None


def rules_from_spec(
    spec: str | dict[str, Any], source: str, error: type[InputError], prefix: str = ""
) -> RuleSet:
    try:
        if isinstance(spec, str):
            return RuleSet.preset(spec)
        values = dict(spec)
        preset = values.pop("preset", "default")
        values.pop("preset_name", None)
        return RuleSet.preset(str(preset), **values)
    except RulesError as err:
        field = f"rules.{err.field}" if err.field and err.field != "rules" else "rules"
        raise error(err.reason, source, prefix + field) from None


def setup_from_spec(
    spec: SetupSpec,
    source: str,
    error: type[InputError],
    prefix: str = "",
    board: Board | None = None,
) -> Setup:
    board = board or standard_board()
    rules = rules_from_spec(spec.rules, source, error, prefix)
    players = []
    for i, p in enumerate(spec.players):
        titles = []
        for key, title in p.titles.items():
            try:
                space = board.space(key)
            except KeyError as err:
                raise error(
                    str(err.args[0]), source, f"{prefix}players[{i}].titles.{key}"
                ) from None
            title = title or TitleSpec()
            titles.append(TitleSetup(space.index, title.houses, title.apartment, title.mortgaged))
        position = board.hold_space if p.held is not None and p.position == 0 else p.position
        players.append(
            PlayerSetup(p.name, ROLES.index(p.role), p.cash, position, p.held, tuple(titles))
        )
    setup = Setup(
        players=tuple(players),
        rules=rules,
        seed=spec.seed,
        game_type=spec.game,
        dice=tuple(tuple(throw) for throw in spec.dice),
        cards=(tuple(spec.cards.get("competitor", ())), tuple(spec.cards.get("monopolist", ()))),
    )
    try:
        validate_setup(setup, board)
    except ScenarioError as err:
        raise error(err.reason, source, prefix + err.field) from None
    return setup


def parse_setup(
    data: Any, source: str, error: type[InputError] = ScenarioError, field_prefix: str = ""
) -> Setup:
    spec = validate_model(SetupSpec, data, source, error, field_prefix)
    return setup_from_spec(spec, source, error, field_prefix)
