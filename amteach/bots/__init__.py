"""Bot players: a `Strategy` takes the game and the legal choices and returns one of them."""

from .family import FAMILY, KNOBS, FamilyParams, FamilyStrategy
from .registry import STRATEGIES, check_bot, make_strategy
from .strategies import (
    NAMED_BOTS,
    TAX_BEHAVIOURS,
    Bot,
    BuilderStrategy,
    CautiousStrategy,
    InvestorStrategy,
    RandomStrategy,
    Strategy,
)

__all__ = [
    "FAMILY",
    "KNOBS",
    "NAMED_BOTS",
    "STRATEGIES",
    "TAX_BEHAVIOURS",
    "Bot",
    "BuilderStrategy",
    "CautiousStrategy",
    "FamilyParams",
    "FamilyStrategy",
    "InvestorStrategy",
    "RandomStrategy",
    "Strategy",
    "check_bot",
    "make_strategy",
]
