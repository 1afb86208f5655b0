"""amteach: play and study Anti-Monopoly in Jupyter."""

from .engine.board import Board, standard_board
from .engine.choices import Choice, Trade
from .engine.errors import (
    AmteachError,
    DataError,
    IllegalChoice,
    InputError,
    RulesError,
    SaveError,
    ScenarioError,
)
from .engine.game import Game, Pending, Setup
from .engine.rules import RuleSet, preset_names

__all__ = [
    "AmteachError",
    "Board",
    "Choice",
    "DataError",
    "Game",
    "IllegalChoice",
    "InputError",
    "Pending",
    "RuleSet",
    "RulesError",
    "SaveError",
    "ScenarioError",
    "Setup",
    "Trade",
    "preset_names",
    "simulate",
    "standard_board",
]


def __getattr__(name: str) -> object:
    # the simulator pulls in pandas; load it only when asked for
    if name == "simulate":
        from .sim import simulate

        return simulate
    raise AttributeError(f"module 'amteach' has no attribute {name!r}")


__version__ = "0.1.0"

# a notebook shows a Game as its board (the drawing lives above the engine, in render)
from .render import show_games_as_boards  # noqa: E402

show_games_as_boards()
