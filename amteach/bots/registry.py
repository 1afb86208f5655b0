"""Every bot by name: the four named bots and the family, and `make_strategy`, which builds
one from its name ("investor"), its class, or a family strategy's text ("family:reserve=100")."""

from __future__ import annotations

from ..engine.errors import RulesError
from .family import FAMILY, FamilyStrategy, family_params, is_family
from .strategies import NAMED_BOTS, Strategy

STRATEGIES: dict[str, type] = {**NAMED_BOTS, FAMILY: FamilyStrategy}


def check_bot(name: str) -> str:
    """A bot's name as seats and controllers give it, checked: a named bot, "family" or
    "family:<knobs>" (the knobs in their canonical text). RulesError names what is wrong."""
    name = str(name).strip().lower()
    if is_family(name):
        params = family_params(name)
        return FAMILY if name == FAMILY else f"{FAMILY}:{params.text()}"
    if name not in STRATEGIES:
        raise RulesError(
            f"unknown bot {name!r}; valid bots: {', '.join(STRATEGIES)} "
            "(a family strategy is family:<knobs>, such as family:reserve=100/tax=flat)",
            field="bot",
        )
    return name


def make_strategy(
    name: str | type | Strategy, tax: str | None = None, seed: int | None = None
) -> Strategy:
    """A strategy by name ("investor", "family:reserve=100/offer=3"), by class, or an
    instance passed through."""
    if isinstance(name, str):
        name = check_bot(name)
        if is_family(name):
            return FamilyStrategy(family_params(name), tax=tax, seed=seed)
        cls = STRATEGIES[name]
    elif isinstance(name, type):
        cls = name
    elif isinstance(name, Strategy):
        return name
    else:
        raise RulesError(f"a bot is a name, a class or a strategy, not {name!r}", field="bot")
    if tax is None:
        return cls(seed=seed)
    return cls(tax=tax, seed=seed)
