"""Bot players: a `Strategy` takes the game and the legal choices and returns one of them."""

from .strategies import (
    STRATEGIES,
    TAX_BEHAVIOURS,
    Bot,
    BuilderStrategy,
    CautiousStrategy,
    InvestorStrategy,
    RandomStrategy,
    Strategy,
    make_strategy,
)

__all__ = [
    "STRATEGIES",
    "TAX_BEHAVIOURS",
    "Bot",
    "BuilderStrategy",
    "CautiousStrategy",
    "InvestorStrategy",
    "RandomStrategy",
    "Strategy",
    "make_strategy",
]
