"""Rule parameters typed by a person, as `NAME=VALUE` text: the command line's `--set` and the
dashboard's sweep box. Values are read as plain YAML (numbers, lists, mappings, null) and checked
later by `RuleSet`; a malformed item raises InputError naming it.

What a person types is bounded before it is read: at most `MAX_TYPED_CHARS` characters, no YAML
anchors or aliases (`&a`, `*a`: a few hundred characters of aliases can stand for gigabytes),
and lists or mappings at most `MAX_NESTING` levels deep. `read_plain_yaml` is the same reader
for YAML files (amteach/files.py)."""

from __future__ import annotations

from typing import Any

import yaml

from .errors import InputError, quoted

# a typed value is a number or a short list; 500 characters hold eight sweep values of
# four-element lists many times over
MAX_TYPED_CHARS = 500
# the longest parameter name has 34 characters
MAX_NAME_CHARS = 60
# a rule value nests two levels, a scenario five; a hundred levels would exhaust the stack
MAX_NESTING = 20


class RefusedYaml(yaml.YAMLError):
    """YAML that plain reading refuses (an anchor or alias, too deep a nesting), with where."""

    def __init__(self, problem: str, mark: yaml.Mark | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark


class _PlainLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses anchors and aliases and deep nesting as it composes,
    before anything is built."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise RefusedYaml("anchors and aliases (& and *) are not accepted", event.start_mark)
        if not isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            return super().compose_node(parent, index)
        self.depth += 1
        try:
            if self.depth > MAX_NESTING:
                raise RefusedYaml(
                    f"lists or mappings are nested too deeply (more than {MAX_NESTING} levels)",
                    event.start_mark,
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def read_plain_yaml(text: str) -> Any:
    """`text` read as YAML without anchors, aliases or more than MAX_NESTING levels of
    nesting; raises yaml.YAMLError (with `problem` and `problem_mark` where known)."""
    loader = _PlainLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def read_typed_value(raw: str, where: str) -> Any:
    """One value a person typed, read as plain YAML; `where` names the box or option."""
    if len(raw) > MAX_TYPED_CHARS:
        raise InputError(
            f"a value is at most {MAX_TYPED_CHARS} characters; this one has {len(raw)}",
            field=where,
        )
    try:
        return read_plain_yaml(raw)
    except yaml.YAMLError as err:
        problem = getattr(err, "problem", None)
        reason = f": {problem}" if isinstance(problem, str) and problem else ""
        raise InputError(f"cannot read the value {quoted(raw)}{reason}", field=where) from None


def checked_name(name: str, option: str) -> str:
    """A typed parameter name, stripped; one longer than any parameter's is refused here, so
    no message quotes it at length."""
    name = name.strip()
    if len(name) > MAX_NAME_CHARS:
        raise InputError(
            f"no parameter has a name of {len(name)} characters ({quoted(name, 40)})",
            field=option,
        )
    return name


def parse_overrides(items: tuple[str, ...], option: str = "--set") -> dict[str, Any]:
    """NAME=VALUE items as {name: value}; `option` names where the items came from."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise InputError(f"{option} takes name=value, not {quoted(item)}", field=option)
        name = checked_name(name, option)
        out[name] = read_typed_value(raw, f"{option} {name}")
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
    if not sep or not name.strip():
        raise InputError(f"{option} takes NAME=V1,V2,..., not {quoted(items[0])}", field=option)
    name = checked_name(name, option)
    if not raw.strip():
        raise InputError(f"a sweep of {name} needs at least one value after '='", field=name)
    values = parse_overrides((f"{name}=[{raw}]",), option)[name]
    if not isinstance(values, list):  # pragma: no cover - a YAML flow list always reads as one
        raise InputError(f"cannot read the values {quoted(raw)}", field=name)
    return name, values
