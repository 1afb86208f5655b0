"""Batches of bot games: per-game seeds, one pool for the workers (or Dask), and tidy pandas
frames.

The names below load their module when first asked for: a batch worker imports
`amteach.sim.play` (the engine, the bots and numpy) and never the frames' pandas.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .cluster import dask_client
    from .core import core_name
    from .play import BatchConfig, SeatSpec, game_seed, play_game
    from .results import COLUMNS_DOC, SimulationResult, wilson_interval
    from .runner import DEFAULT_ROUND_CAP, SeatError, parse_seats, simulate

# each public name and the module of this package that holds it
HOMES = {
    "COLUMNS_DOC": "results",
    "DEFAULT_ROUND_CAP": "runner",
    "BatchConfig": "play",
    "SeatError": "runner",
    "SeatSpec": "play",
    "SimulationResult": "results",
    "core_name": "core",
    "dask_client": "cluster",
    "game_seed": "play",
    "parse_seats": "runner",
    "play_game": "play",
    "simulate": "runner",
    "wilson_interval": "results",
}

__all__ = [
    "COLUMNS_DOC",
    "DEFAULT_ROUND_CAP",
    "BatchConfig",
    "SeatError",
    "SeatSpec",
    "SimulationResult",
    "core_name",
    "dask_client",
    "game_seed",
    "parse_seats",
    "play_game",
    "simulate",
    "wilson_interval",
]


def __getattr__(name: str) -> Any:
    if name not in HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{HOMES[name]}", __name__), name)
    globals()[name] = value
    return value
