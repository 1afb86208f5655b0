"""Strategies. Each reads the engine (legal choices, rents, tax options) and never a rule of
its own, so a bot can only ever make a legal choice."""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from ..engine.choices import END_TURN, REJECT, ROLL, Choice, Trade
from ..engine.errors import RulesError
from ..engine.game import Game


@runtime_checkable
class Strategy(Protocol):
    """Chooses for one seat. `describe` is one sentence a student understands."""

    name: str
    describe: str

    def choose(self, game: Game, legal: list[Choice]) -> Choice: ...


class RandomStrategy:
    """A uniformly random legal choice; now and then it also offers a random trade."""

    name = "random"
    describe = "Picks any legal move at random, like a player who does not think ahead."

    def __init__(self, seed: int | None = None, trade_rate: float = 0.05) -> None:
        self.rng = random.Random(seed)
        self.trade_rate = trade_rate

    def choose(self, game: Game, legal: list[Choice]) -> Choice:
        if "trade" in game.pending.kinds and self.rng.random() < self.trade_rate:
            trade = self._random_trade(game)
            if trade is not None and game.is_legal(trade):
                return trade
        return self.rng.choice(legal)

    def _random_trade(self, game: Game) -> Choice | None:
        me = game.actor
        others = [p for p in game.alive() if p != me]
        if not others:
            return None
        other = self.rng.choice(others)
        mine = [s for s in game.titles_of(me) if not game.houses[s] and not game.apartment[s]]
        theirs = [s for s in game.titles_of(other) if not game.houses[s] and not game.apartment[s]]
        give = tuple(s for s in mine if self.rng.random() < 0.3)
        get = tuple(s for s in theirs if self.rng.random() < 0.3)
        if not give and not get:
            return None
        low, high = -game.cash[other], game.cash[me]
        pay = self.rng.randint(low, high) if self.rng.random() < 0.7 else 0
        return Choice("trade", Trade(other, give, get, pay))


class CautiousStrategy:
    """Keeps a cash reserve, buys what it can afford above it, seldom builds, pays the
    cheaper income tax, and turns down trades."""

    name = "cautious"
    describe = (
        "Keeps a safety cushion of cash, buys only what it can easily afford, and rarely builds."
    )

    def __init__(self, reserve: int = 300, tax: str = "cheaper") -> None:
        self.reserve = reserve
        self.tax = tax

    def choose(self, game: Game, legal: list[Choice]) -> Choice:
        me = game.actor
        kinds = {c.kind for c in legal}
        cash = game.cash[me]
        if "income_tax" in kinds:
            option = game.tax_options(me).cheaper if self.tax == "cheaper" else self.tax
            return Choice("income_tax", option)
        if "accept" in kinds:
            return REJECT
        if game.phase == "raise":
            sells = [c for c in legal if c.kind == "sell_building"]
            return sells[0] if sells else next(c for c in legal if c.kind == "mortgage")
        if "decline" in kinds:
            price = game.board.spaces[game.pending_buy].price
            return (
                Choice("buy")
                if "buy" in kinds and cash - price >= self.reserve
                else Choice("decline")
            )
        builds = [
            c
            for c in legal
            if c.kind == "build" and cash - game.board.spaces[c.arg].house_cost >= 3 * self.reserve
        ]
        if builds:
            return max(builds, key=lambda c: game.board.spaces[c.arg].price)
        if "pay_fine" in kinds and cash >= 2 * self.reserve:
            return Choice("pay_fine")
        if "roll" in kinds:
            return ROLL
        return END_TURN if "end_turn" in kinds else legal[0]


STRATEGIES: dict[str, type] = {"random": RandomStrategy, "cautious": CautiousStrategy}


def make_strategy(name: str, **options: object) -> Strategy:
    if name not in STRATEGIES:
        raise RulesError(f"unknown bot {name!r}; valid bots: {', '.join(STRATEGIES)}", field="bot")
    return STRATEGIES[name](**options)


def play_until_human(game: Game, bots: dict[int, Strategy], max_decisions: int = 100_000) -> int:
    """Let bots decide for their seats until a human seat must decide or the game ends.
    Returns how many decisions the bots took."""
    taken = 0
    while not game.over and game.actor in bots and taken < max_decisions:
        game.apply(bots[game.actor].choose(game, game.legal_choices()))
        taken += 1
    return taken
