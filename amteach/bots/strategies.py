"""Bot strategies. A strategy reads the engine (legal choices, rents, tax options, landing
odds) and never a rule of its own, so a bot can only ever make a legal choice.

Bots are called once per decision in batches of thousands of games, so the common case
(nothing to do but roll or end the turn) returns at once, and the full list of legal choices
is only built by the random bot.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, ClassVar, Protocol, runtime_checkable

from ..engine.board import MONOPOLIST, Board
from ..engine.choices import (
    ACCEPT,
    BUY,
    DECLINE,
    END_TURN,
    PAY_FINE,
    REJECT,
    ROLL,
    TAX_FLAT,
    TAX_PERCENT,
    Choice,
    Trade,
)
from ..engine.errors import RulesError
from ..engine.game import NOBODY, Game, Phase
from ..engine.odds import landing_odds
from ..engine.rules import RuleSet

TAX_BEHAVIOURS = ("cheaper", "flat", "percent")


@runtime_checkable
class Strategy(Protocol):
    """Chooses for one seat: given the game and the legal choices, return one of them.
    `describe` is one sentence a student understands."""

    name: str
    describe: str

    def choose(self, game: Game, legal: Sequence[Choice]) -> Choice: ...


class Bot:
    """Shared behaviour of the built-in bots: income tax by a `tax` behaviour, raising money
    by selling the least useful building or title first, and weighing trade offers."""

    name: ClassVar[str] = "bot"
    describe: ClassVar[str] = ""
    reserve: int = 200  # cash a bot tries to keep in hand

    def __init__(
        self, tax: str = "cheaper", seed: int | None = None, reserve: int | None = None
    ) -> None:
        if reserve is not None:
            self.reserve = reserve
        if tax not in TAX_BEHAVIOURS:
            raise RulesError(
                f"unknown tax behaviour {tax!r}; valid: {', '.join(TAX_BEHAVIOURS)}", field="tax"
            )
        self.tax = tax
        self.rng = random.Random(seed)
        self._offers: dict[int, int] = {}  # street -> offers made for it

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tax={self.tax!r})"

    # -- dispatch -----------------------------------------------------------------------------
    def choose(self, game: Game, legal: Sequence[Choice]) -> Choice:
        phase = game.phase
        if phase == Phase.PRE_ROLL:
            return self.before_throw(game) or ROLL
        if phase == Phase.POST_ROLL:
            return self.manage(game) or END_TURN
        if phase == Phase.BUY:
            return BUY if game.is_legal(BUY) and self.wants(game, game.pending_buy) else DECLINE
        if phase == Phase.INCOME_TAX:
            return self.income_tax(game)
        if phase == Phase.RAISE:
            return self.raise_money(game)
        if phase == Phase.TRADE_ANSWER:
            return ACCEPT if self.accepts(game, game.offer) else REJECT
        if phase == Phase.FINAL_ADJUST:
            return self.final_adjust(game) or END_TURN
        return legal[0]

    # -- hooks the bots override ------------------------------------------------------------------
    def before_throw(self, game: Game) -> Choice | None:
        me = game.actor
        if game.is_held(me) and game.cash[me] >= 4 * self.reserve and game.is_legal(PAY_FINE):
            return PAY_FINE
        return self.manage(game)

    def manage(self, game: Game) -> Choice | None:
        """Build, redeem or trade on the bot's own turn; None when there is nothing to do."""
        return None

    def wants(self, game: Game, space: int) -> bool:
        return game.cash[game.actor] - game.board.spaces[space].price >= self.reserve

    def income_tax(self, game: Game) -> Choice:
        if self.tax == "flat":
            return TAX_FLAT
        if self.tax == "percent":
            return TAX_PERCENT
        return TAX_PERCENT if game.tax_options(game.actor).cheaper == "percent" else TAX_FLAT

    def raise_money(self, game: Game) -> Choice:
        """Sell the building that loses the least rent, else mortgage the least-earning title."""
        sells = game.targets("sell_building")
        if sells:
            return Choice("sell_building", min(sells, key=lambda s: game.rent_for(s)[0]))
        mortgages = game.targets("mortgage")
        return Choice("mortgage", min(mortgages, key=lambda s: (game.rent_for(s)[0], s)))

    def final_adjust(self, game: Game) -> Choice | None:
        """In the final accounting most cash is handed back, so a building or a redeemed title
        that earns more on the Treasurer's trip than the cash it costs would keep is worth it."""
        me = game.actor
        keep = game.rules.settlement_keep_percent(game.roles[me]) / 100
        for space in game.targets("build"):
            cost = game.board.spaces[space].house_cost
            before = game.rent_for(space)[0]
            after = game.rent_after_build(space)
            if after - before > keep * cost:
                return Choice("build", space)
        for space in game.targets("redeem"):
            rent = game.rent_if(
                space, mortgaged=False, dice_total=game.rules.settlement_utility_dice
            )
            if rent > keep * game.redeem_values[space]:
                return Choice("redeem", space)
        return None

    # -- trades --------------------------------------------------------------------------------
    def title_value(self, game: Game, player: int, space: int, gaining: bool) -> float:
        """What a title is worth to `player`: its price, more if it makes (or would break)
        a monopoly for a Monopolist."""
        sp = game.board.spaces[space]
        value = float(sp.price)
        if game.mortgaged[space]:
            value -= game.redeem_values[space]
        if sp.kind == "street" and game.roles[player] == MONOPOLIST:
            have = game.monopoly_count(player, sp.city) - (0 if gaining else 1)
            if have + 1 == game.rules.monopoly_streets:
                value += 2 * sp.price
        return value

    def accepts(self, game: Game, trade: Trade | None, margin: float = 0.2) -> bool:
        if trade is None:
            return False
        gain, loss = self.trade_value(game, trade)
        return gain >= (1 + margin) * loss and game.cash[trade.other] + min(trade.pay, 0) >= 0

    def trade_value(self, game: Game, trade: Trade) -> tuple[float, float]:
        """What the player asked gains and loses by a trade: the titles at `title_value`
        and the cash; a street that gives the proposer a monopoly costs future rent too."""
        me, proposer = trade.other, game.current
        gain = sum(self.title_value(game, me, s, True) for s in trade.give) + trade.pay
        loss = sum(self.title_value(game, me, s, False) for s in trade.get)
        for s in trade.get:
            if game.roles[proposer] == MONOPOLIST and game.board.spaces[s].kind == "street":
                city = game.board.spaces[s].city
                if game.monopoly_count(proposer, city) + 1 >= game.rules.monopoly_streets:
                    loss += 2 * game.board.spaces[s].price
        return gain, loss

    def offer_amount(self, price: int, tries: int) -> int:
        """The cash offered for a street after `tries` refusals: twice its price, then half
        the price more after each refusal."""
        return int(price * (2 + tries / 2))

    def propose_monopoly_trade(self, game: Game) -> Choice | None:
        """As a Monopolist owning one street of a city, offer cash for a second one."""
        me = game.actor
        if game.roles[me] != MONOPOLIST or game.phase != Phase.POST_ROLL:
            return None
        owner, board, need = game.owner, game.board, game.rules.monopoly_streets
        mine: dict[str, int] = {}
        for s in board.streets:
            if owner[s] == me and not game.mortgaged[s]:
                city = board.spaces[s].city
                mine[city] = mine.get(city, 0) + 1
        for city, count in mine.items():
            if count != need - 1:
                continue
            for s in board.cities[city]:
                other = owner[s]
                if other in (NOBODY, me) or game.houses[s] or game.apartment[s]:
                    continue
                # at most five offers for a street (up to 4x its price for the named bots)
                tries = self._offers.get(s, 0)
                if tries > 4:
                    continue
                self._offers[s] = tries + 1
                offer = self.offer_amount(board.spaces[s].price, tries)
                if game.cash[me] - offer < self.reserve:
                    continue
                choice = Choice("trade", Trade(other, (), (s,), offer))
                if game.is_legal(choice):
                    return choice
        return None


class CautiousStrategy(Bot):
    name = "cautious"
    describe = (
        "Keeps a safety cushion of cash, buys only what it can easily afford, and rarely builds."
    )
    reserve = 400

    def __init__(
        self, tax: str = "cheaper", seed: int | None = None, reserve: int | None = None
    ) -> None:
        super().__init__(tax, seed, reserve)
        self._built_on: tuple[int, int] | None = None

    def manage(self, game: Game) -> Choice | None:
        me = game.actor
        cash = game.cash[me]
        if cash < 3 * self.reserve:
            return None
        turn = (game.round, me)
        if self._built_on != turn:  # at most one building a turn
            builds = [
                s
                for s in game.targets("build")
                if cash - game.board.spaces[s].house_cost >= 3 * self.reserve
            ]
            if builds:
                self._built_on = turn
                return Choice("build", max(builds, key=lambda s: game.board.spaces[s].price))
        redeem = [
            s for s in game.targets("redeem") if cash - game.redeem_values[s] >= 2 * self.reserve
        ]
        return Choice("redeem", redeem[0]) if redeem else None

    def accepts(self, game: Game, trade: Trade | None, margin: float = 1.0) -> bool:
        return super().accepts(game, trade, margin)

    def final_adjust(self, game: Game) -> Choice | None:
        return None


class BuilderStrategy(Bot):
    name = "builder"
    describe = "Buys every title it can and builds houses whenever it has the cash, hoping high rents pay off."
    reserve = 75

    def before_throw(self, game: Game) -> Choice | None:
        me = game.actor
        if (
            game.is_held(me)
            and game.cash[me] >= game.rules.fine + self.reserve
            and game.is_legal(PAY_FINE)
        ):
            return PAY_FINE
        return self.manage(game)

    def manage(self, game: Game) -> Choice | None:
        me = game.actor
        cash = game.cash[me]
        if cash < self.reserve + 50:
            return None
        builds = [
            s
            for s in game.targets("build")
            if cash - game.board.spaces[s].house_cost >= self.reserve
        ]
        if builds:
            return Choice(
                "build", max(builds, key=lambda s: game.rent_after_build(s) - game.rent_for(s)[0])
            )
        return None


class InvestorStrategy(Bot):
    """Weighs every purchase and building by its expected return for its role: landing odds
    (from the Markov chain) times the rent it would earn, per dollar spent."""

    name = "investor"
    describe = (
        "Buys and builds where the expected rent per dollar is highest, using the odds of "
        "landing on each space, and as a Monopolist offers to buy a second street in a city."
    )
    reserve = 150

    def __init__(
        self,
        tax: str = "cheaper",
        seed: int | None = None,
        reserve: int | None = None,
        min_return: float = 0.005,
    ) -> None:
        super().__init__(tax, seed, reserve)
        self.min_return = min_return  # expected rent per round per dollar spent on a building
        self._odds: tuple[Any, ...] | None = None

    def landings(self, game: Game) -> tuple[float, ...]:
        """Expected landings per round on each space by this bot's opponents."""
        me = game.actor
        opponents = tuple(game.roles[p] for p in game.players if p != me and not game.bankrupt[p])
        cached = self._odds
        if cached is None or cached[0] is not game.rules or cached[1] != opponents:
            cached = self._odds = (
                game.rules,
                opponents,
                opponent_landings(game.rules, game.board, opponents),
            )
        return cached[2]

    def wants(self, game: Game, space: int) -> bool:
        me = game.actor
        sp = game.board.spaces[space]
        spare = game.cash[me] - sp.price
        if spare < self.reserve:
            return False
        if game.roles[me] == MONOPOLIST:
            if sp.kind == "transport":
                return True  # fares double with each company
            if (
                sp.kind == "street"
                and game.monopoly_count(me, sp.city) + 1 >= game.rules.monopoly_streets
            ):
                return True  # completes a monopoly: doubled rent and the right to build
        # otherwise only titles landed on at least as often as the average title
        landings = self.landings(game)
        # added one by one, in board order (sum() of floats differs between Python versions)
        total = 0.0
        for s in game.board.titles:
            total += landings[s]
        average = total / len(game.board.titles)
        return landings[space] >= 0.9 * average or spare >= 3 * self.reserve

    def before_throw(self, game: Game) -> Choice | None:
        me = game.actor
        if game.is_held(me) and game.cash[me] >= 4 * self.reserve and game.is_legal(PAY_FINE):
            return PAY_FINE
        return None  # it builds and trades after the throw, once it knows where it stands

    def manage(self, game: Game) -> Choice | None:
        me = game.actor
        cash = game.cash[me]
        trade = self.propose_monopoly_trade(game)
        if trade is not None:
            return trade
        if cash < self.reserve + 50:
            return None
        builds = game.targets("build")
        if builds:
            landings = self.landings(game)
            best, best_return = None, self.min_return
            for s in builds:
                cost = game.board.spaces[s].house_cost
                if cash - cost < self.reserve:
                    continue
                gain = (game.rent_after_build(s) - game.rent_for(s)[0]) * landings[s] / cost
                if gain > best_return:
                    best, best_return = s, gain
            if best is not None:
                return Choice("build", best)
        if cash >= 3 * self.reserve:
            redeem = game.targets("redeem")
            if redeem:
                return Choice("redeem", redeem[0])
        return None


@lru_cache(maxsize=256)
def opponent_landings(
    rules: RuleSet, board: Board, opponents: tuple[int, ...]
) -> tuple[float, ...]:
    """Expected landings per round on each space by opponents of these roles (Markov chain)."""
    weights = [0.0] * len(board.spaces)
    for role in opponents:
        odds = landing_odds(role, "pay", rules, board)
        for s, a in enumerate(odds.arrivals):
            weights[s] += float(a) * odds.throws_per_turn
    return tuple(weights)


class RandomStrategy:
    """A uniformly random legal choice; now and then it also offers a random trade."""

    name = "random"
    describe = "Picks any legal move at random, like a player who does not think ahead."

    def __init__(
        self, seed: int | None = None, trade_rate: float = 0.05, tax: str | None = None
    ) -> None:
        if tax is not None and tax not in TAX_BEHAVIOURS:
            raise RulesError(
                f"unknown tax behaviour {tax!r}; valid: {', '.join(TAX_BEHAVIOURS)}", field="tax"
            )
        self.tax = tax
        self.rng = random.Random(seed)
        self.trade_rate = trade_rate

    def choose(self, game: Game, legal: Sequence[Choice]) -> Choice:
        if self.tax is not None and game.phase == Phase.INCOME_TAX:
            return Bot.income_tax(self, game)  # type: ignore[arg-type]
        if "trade" in legal_kinds(game, legal) and self.rng.random() < self.trade_rate:
            trade = self._random_trade(game)
            if trade is not None and game.is_legal(trade):
                return trade
        return self.rng.choice(list(legal))

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


# the four named bots; amteach.bots.registry adds the family (amteach.bots.family)
NAMED_BOTS: dict[str, type] = {
    cls.name: cls for cls in (CautiousStrategy, BuilderStrategy, InvestorStrategy, RandomStrategy)
}


def legal_kinds(game: Game, legal: Sequence[Choice]) -> tuple[str, ...]:
    kinds = getattr(legal, "kinds", None)
    if kinds is not None:
        return tuple(kinds)
    pending = game.pending
    return () if pending is None else pending.kinds
