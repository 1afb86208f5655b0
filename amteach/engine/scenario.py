"""Scenarios: set up a teaching moment, play a script of decisions, report the state."""

from __future__ import annotations

from typing import Any

from .errors import AmteachError, IllegalChoice, ScenarioError
from .game import Game
from .setup_schema import ScenarioSpec, setup_from_spec, validate_model


class ScriptStepError(AmteachError):
    """A script step the rules do not allow (the scenario runner exits with status 1)."""

    def __init__(self, step: int, choice: Any, error: IllegalChoice, source: str = "") -> None:
        where = f"{source}: " if source else ""
        super().__init__(
            f"{where}script step {step} ({_show(choice)}) is illegal: {error.reason} [{error.rule}]"
        )
        self.step = step
        self.rule = error.rule


def _show(choice: Any) -> str:
    if isinstance(choice, dict):
        ((kind, arg),) = choice.items()
        return f"{kind}: {arg}"
    return str(choice)


def load_scenario(data: Any, source: str = "scenario") -> tuple[Game, list[Any]]:
    """The game a scenario sets up (before its script) and the script's steps."""
    spec = validate_model(ScenarioSpec, data, source, ScenarioError)
    game = Game(setup_from_spec(spec, source, ScenarioError))
    return game, list(spec.script)


def play_script(game: Game, script: list[Any], source: str = "scenario") -> Game:
    """Apply each step in order. Malformed steps raise ScenarioError, illegal ones ScriptStepError."""
    for number, step in enumerate(script, start=1):
        try:
            choice = game.parse_choice(step)
        except IllegalChoice as err:
            raise ScenarioError(err.reason, source, f"script[{number - 1}]") from None
        try:
            game.apply(choice)
        except IllegalChoice as err:
            raise ScriptStepError(number, step, err, source) from None
        except ScenarioError as err:
            raise ScenarioError(
                f"at script step {number}: {err.reason}", source, err.field
            ) from None
    return game


def run_scenario(data: Any, source: str = "scenario") -> Game:
    game, script = load_scenario(data, source)
    return play_script(game, script, source)


def scenario_report(game: Game) -> dict[str, Any]:
    """The state after the script, with every event as {type, text, ...}."""
    report = game.state.as_dict()
    report["events"] = [event.to_dict() for event in game.events]
    return report
