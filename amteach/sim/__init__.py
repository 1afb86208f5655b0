"""Batches of bot games: per-game seeds, a process pool or Dask, and tidy pandas frames."""

from .cluster import dask_client
from .core import core_name
from .play import BatchConfig, SeatSpec, game_seed, play_game
from .results import COLUMNS_DOC, SimulationResult, wilson_interval
from .runner import DEFAULT_ROUND_CAP, SeatError, parse_seats, simulate

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
