"""The `amteach` command line. Every subcommand has --help; bad input gets one line, no traceback."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from .engine.errors import AmteachError, InputError
from .engine.rules import RuleSet, preset_names
from .engine.scenario import ScriptStepError, scenario_report


def _fail(message: str, status: int) -> None:
    click.echo(f"amteach: {message}", err=True)
    sys.exit(status)


def parse_overrides(items: tuple[str, ...]) -> dict[str, Any]:
    """--set name=value pairs; values are read as YAML (numbers, lists, null)."""
    import yaml

    out: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise InputError(f"--set takes name=value, not {item!r}", field="--set")
        try:
            out[name.strip()] = yaml.safe_load(raw)
        except yaml.YAMLError:
            raise InputError(f"cannot read the value {raw!r}", field=f"--set {name}") from None
    return out


override_option = click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="NAME=VALUE",
    help="Override a rule parameter, e.g. --set foundation_monopolist_fee=160 (repeatable).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="amteach")
def main() -> None:
    """amteach: play and study the board game Anti-Monopoly."""


@main.command()
@click.option(
    "--seed", type=int, default=1, show_default=True, help="Seed for the dice and the cards."
)
@click.option(
    "--rounds",
    type=click.IntRange(1, 1000),
    default=30,
    show_default=True,
    help="Round limit; then the final accounting settles the game.",
)
@click.option(
    "--rules",
    "preset",
    default="default",
    show_default=True,
    help="Rules preset (list them with `amteach rules`).",
)
@override_option
def demo(seed: int, rounds: int, preset: str, overrides: tuple[str, ...]) -> None:
    """Play and narrate a demo game: two Competitors and two Monopolists, all bots."""
    from .bots import CautiousStrategy, play_until_human
    from .engine.game import Game

    try:
        rules = RuleSet.preset(preset, **parse_overrides(overrides)).replace(round_cap=rounds)
        game = Game.new(
            [
                ("Ana", "competitor"),
                ("Ben", "monopolist"),
                ("Cleo", "competitor"),
                ("Dev", "monopolist"),
            ],
            rules=rules,
            seed=seed,
        )
    except AmteachError as err:
        _fail(str(err), 2)
    bots = {p: CautiousStrategy() for p in game.players}
    printed = 0
    while not game.over:
        play_until_human(game, bots, max_decisions=1)
        for event in game.events[printed:]:
            click.echo(event.text)
        printed = len(game.events)
    click.echo()
    click.echo("Final standings:")
    for p in sorted(game.players, key=lambda p: -game.cash[p]):
        role = "Competitor" if game.roles[p] == 0 else "Monopolist"
        state = "bankrupt" if game.bankrupt[p] else f"${game.cash[p]} cash"
        click.echo(f"  {game.names[p]:<6} {role:<11} {state}")


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--indent", type=int, default=1, show_default=True, help="JSON indentation.")
def scenario(file: str, indent: int) -> None:
    """Set up the position in FILE (YAML), play its script, print the state as JSON.

    Exit status 0: the script played; 1: a script step was illegal (the message names the
    step and the rule); 2: the file is malformed or the set-up is invalid.
    """
    from .files import load_scenario_file

    try:
        game = load_scenario_file(file)
    except ScriptStepError as err:
        _fail(str(err), 1)
    except AmteachError as err:
        _fail(str(err), 2)
    click.echo(json.dumps(scenario_report(game), indent=indent))


@main.command()
@click.argument("preset", required=False, default="default")
@override_option
def rules(preset: str, overrides: tuple[str, ...]) -> None:
    """Show every rule parameter of PRESET (default: the specification)."""
    try:
        ruleset = RuleSet.preset(preset, **parse_overrides(overrides))
    except AmteachError as err:
        _fail(str(err), 2)
    click.echo(f"Rules preset: {preset} (presets: {', '.join(preset_names())})")
    changed = ruleset.changed_from_default()
    for name, value in ruleset.to_dict().items():
        if name != "preset_name":
            mark = "  *" if name in changed else ""
            click.echo(f"  {name:<38} {value}{mark}")
    if changed:
        click.echo("  * differs from the default preset")


if __name__ == "__main__":  # pragma: no cover
    main()
