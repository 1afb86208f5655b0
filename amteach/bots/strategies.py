"""Bot strategies. A strategy reads the engine (legal choices, rents, tax options, landing
odds) and never a rule of its own, so a bot can only ever make a legal choice.

Each decision of the built-in bots is written once, in `amteach.bots.core` (compiled with
Cython where a compiler exists, like the rules core), which the batch kernel runs too. The
classes here keep the bots' names, hooks and settings and hand each decision to that core
with a `core.Context` bound to the game's state itself (`game.state.core`, the rules core's
`State`); what a bot remembers between decisions is its `state` (a `core.BotState`).

Bots are called once per decision in batches of thousands of games, so the common case
(nothing to do but roll or end the turn) returns at once, and the full list of legal choices
is only built by the random bot.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, ClassVar, Protocol, runtime_checkable

from ..engine.board import COMPETITOR, MONOPOLIST, Board
from ..engine.choices import Choice, Trade
from ..engine.errors import RulesError
from ..engine.game import Game
from ..engine.rules import RuleSet
from ..engine.setup import GAME_TYPES
from .builds import decisions, source_tables

# the vocabulary is the core's (the same in either build)
CORE = decisions()
TAX_BEHAVIOURS: tuple[str, ...] = CORE.TAX_BEHAVIOURS
CODE: dict[str, Any] = CORE.CODES  # the core's codes by name (BOT_CAUTIOUS, C_NONE, ...)


@runtime_checkable
class Strategy(Protocol):
    """Chooses for one seat: given the game and the legal choices, return one of them.
    `describe` is one sentence a student understands."""

    name: str
    describe: str

    def choose(self, game: Game, legal: Sequence[Choice]) -> Choice: ...


def check_tax(tax: str) -> int:
    """A tax behaviour's code; RulesError for an unknown one."""
    if tax not in TAX_BEHAVIOURS:
        raise RulesError(
            f"unknown tax behaviour {tax!r}; valid: {', '.join(TAX_BEHAVIOURS)}", field="tax"
        )
    return TAX_BEHAVIOURS.index(tax)


def game_state(module: Any, game: Game) -> Any:
    """The rules core's `State` of `game` that `module` (a build of the bots' core) reads: the
    game's own, or, for the plain-Python build beside a compiled engine (a stale build, or a
    test comparing the two), a plain-Python copy of it made from what `Game` shows."""
    state = game.state.core
    rules_core = module.rules
    if type(state) is rules_core.State:
        return state
    copy = rules_core.State()
    copy.reset(
        source_tables(game.board, game.rules),
        list(game.roles),
        GAME_TYPES.index(game.setup.game_type),
        0,
    )
    view = game.state
    for p in range(len(game.names)):
        copy.place_seat(p, game.cash[p], game.position[p], view.held[p])
        copy.bankrupt[p] = game.bankrupt[p]
    for space in game.board.titles:
        copy.place_title(
            space,
            game.owner[space],
            game.houses[space],
            int(game.apartment[space]),
            int(game.mortgaged[space]),
        )
    copy.supply_houses = view.supply_houses
    copy.supply_apartments = view.supply_apartments
    copy.round, copy.current, copy.actor = game.round, game.current, game.actor
    copy.phase = state.phase
    copy.pending_buy = view.pending_buy
    if view.offer is not None:
        offer = view.offer
        copy.offer.fill(offer.other, list(offer.give), list(offer.get), offer.pay)
    return copy


def weighed_trade(module: Any, trade: Trade) -> Any:
    """A `Trade` of the engine's as the rules core's (for a bot weighing it)."""
    weighed = module.rules.Trade()
    weighed.fill(trade.other, list(trade.give), list(trade.get), trade.pay)
    return weighed


def read_game(
    module: Any,
    game: Game,
    context: Any = None,
    offer: Trade | None = None,
    rng: random.Random | None = None,
) -> Any:
    """A `Context` of `module` (a build of the bots' core) bound to `game`'s state, answering
    `offer` (default: the game's own) and drawing from `rng`; `context` is reused if given."""
    if context is None:
        context = module.Context()
        context.set_landings(landings_source(module, game.rules, game.board))
    weighed = None if offer is None else weighed_trade(module, offer)
    context.bind(game_state(module, game), weighed, rng)
    return context


def landings_source(module: Any, rules: RuleSet, board: Board) -> Callable[[], tuple]:
    """Each role's expected landings per round on each space (`core.role_landings`), worked
    out when a bot first needs them."""
    return lambda: tuple(
        module.role_landings(rules, board, role) for role in (COMPETITOR, MONOPOLIST)
    )


class CoreBot:
    """A bot whose decisions are `amteach.bots.core`'s: its kind (a code of `core.BOTS`),
    its `state`, and a `core.Context` bound to the game it is asked about."""

    kind: ClassVar[int] = CODE["BOT_PLAIN"]

    def __init__(self, tax_code: int, seed: int | None, knobs: Sequence[int] = ()) -> None:
        self.rng = random.Random(seed)
        self._core = decisions()
        self.state = self._core.BotState()
        for index, value in enumerate(knobs):
            self.state.set_knob(index, value)
        self._core.reset_bot(self.state, self.kind, tax_code)
        self._context = self._core.Context()
        self._game: Game | None = None

    def _read(self, game: Game, offer: Trade | None = None) -> Any:
        """The context bound to `game` (a new game: its landing weights are worked out afresh)."""
        context = self._context
        if game is not self._game:
            self._game = game
            self.state.landings_key = -1
            context.set_landings(landings_source(self._core, game.rules, game.board))
        return read_game(self._core, game, context, offer, self.rng)

    def _hook(self, game: Game, decision: Callable[[Any, Any], int]) -> Choice | None:
        """A decision of the core that may have nothing to do (None)."""
        context = self._read(game)
        code = decision(context, self.state)
        return None if code == CODE["C_NONE"] else self._core.as_choice(context, code)

    def choose(self, game: Game, legal: Sequence[Choice]) -> Choice:
        """The bot's choice; `legal` is the game's legal choices, which the core lists itself
        (the rules core's `legal_codes`)."""
        context = self._read(game)
        return self._core.as_choice(context, self._core.choose(context, self.state))


class Bot(CoreBot):
    """Shared behaviour of the built-in bots: income tax by a `tax` behaviour, raising money
    by selling the least useful building or title first, and weighing trade offers."""

    name: ClassVar[str] = "bot"
    describe: ClassVar[str] = ""

    def __init__(
        self, tax: str = "cheaper", seed: int | None = None, reserve: int | None = None
    ) -> None:
        super().__init__(check_tax(tax), seed, self._knobs())
        if reserve is not None:
            self.state.reserve = reserve
        self.tax = tax

    def _knobs(self) -> Sequence[int]:
        return ()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tax={self.tax!r})"

    @property
    def reserve(self) -> int:
        """Cash the bot tries to keep in hand."""
        return self.state.reserve

    @reserve.setter
    def reserve(self, value: int) -> None:
        self.state.reserve = value

    # -- the hooks: each a decision of amteach.bots.core -------------------------------------
    def before_throw(self, game: Game) -> Choice | None:
        return self._hook(game, self._core.before_throw)

    def manage(self, game: Game) -> Choice | None:
        """Build, redeem or trade on the bot's own turn; None when there is nothing to do."""
        return self._hook(game, self._core.manage)

    def wants(self, game: Game, space: int) -> bool:
        return bool(self._core.wants(self._read(game), self.state, space))

    def income_tax(self, game: Game) -> Choice:
        context = self._read(game)
        return self._core.as_choice(context, self._core.income_tax_choice(context, self.state))

    def raise_money(self, game: Game) -> Choice:
        """Sell the building that loses the least rent, else mortgage the least-earning title."""
        context = self._read(game)
        return self._core.as_choice(context, self._core.raise_money(context, self.state))

    def final_adjust(self, game: Game) -> Choice | None:
        """In the final accounting most cash is handed back, so a building or a redeemed title
        that earns more on the Treasurer's trip than the cash it costs would keep is worth it."""
        return self._hook(game, self._core.final_adjust)

    # -- trades --------------------------------------------------------------------------------
    def title_value(self, game: Game, player: int, space: int, gaining: bool) -> float:
        """What a title is worth to `player`: its price, more if it makes (or would break)
        a monopoly for a Monopolist."""
        return self._core.title_value(self._read(game), player, space, gaining)

    def accepts(self, game: Game, trade: Trade | None, margin: float | None = None) -> bool:
        """Is `trade` (asked of the player `trade.other`) worth accepting? `margin`, if given,
        replaces the bot's own."""
        if trade is None:
            return False
        own = self.state.margin
        if margin is not None:
            self.state.margin = margin
        try:
            return bool(self._core.accepts(self._read(game, offer=trade), self.state))
        finally:
            self.state.margin = own

    def trade_value(self, game: Game, trade: Trade) -> tuple[float, float]:
        """What the player asked gains and loses by a trade: the titles at `title_value`
        and the cash; a street that gives the proposer a monopoly costs future rent too."""
        context = self._read(game, offer=trade)
        return self._core.offer_gain(context), self._core.offer_loss(context)

    def offer_amount(self, price: int, tries: int) -> int:
        """The cash offered for a street after `tries` refusals."""
        return self._core.offer_amount(self.state, price, tries)

    def propose_monopoly_trade(self, game: Game) -> Choice | None:
        """As a Monopolist owning all but one street of a city, offer cash for the last one."""
        return self._hook(game, self._core.propose_monopoly_trade)


class CautiousStrategy(Bot):
    name = CORE.BOTS[CODE["BOT_CAUTIOUS"]]
    kind = CODE["BOT_CAUTIOUS"]
    describe = (
        "Keeps a safety cushion of cash, buys only what it can easily afford, and rarely builds."
    )
    # (core.cautious_manage: at most one building a turn, from three times its reserve; it
    # asks twice the value it gives up in a trade and skips the final adjustments)


class BuilderStrategy(Bot):
    name = CORE.BOTS[CODE["BOT_BUILDER"]]
    kind = CODE["BOT_BUILDER"]
    describe = "Buys every title it can and builds houses whenever it has the cash, hoping high rents pay off."


class InvestorStrategy(Bot):
    """Weighs every purchase and building by its expected return for its role: landing odds
    (from the Markov chain) times the rent it would earn, per dollar spent."""

    name = CORE.BOTS[CODE["BOT_INVESTOR"]]
    kind = CODE["BOT_INVESTOR"]
    describe = (
        "Buys and builds where the expected rent per dollar is highest, using the odds of "
        "landing on each space, and as a Monopolist offers to buy a second street in a city."
    )

    def __init__(
        self,
        tax: str = "cheaper",
        seed: int | None = None,
        reserve: int | None = None,
        min_return: float = CODE["MIN_RETURN"],
    ) -> None:
        super().__init__(tax, seed, reserve)
        self.state.min_return = min_return

    @property
    def min_return(self) -> float:
        """The least expected rent per round per dollar spent on a building."""
        return self.state.min_return

    def landings(self, game: Game) -> tuple[float, ...]:
        """Expected landings per round on each space by this bot's opponents."""
        self._core.landings(self._read(game), self.state)
        return self.state.landing_weights()[: len(game.board.spaces)]


@lru_cache(maxsize=256)
def opponent_landings(
    rules: RuleSet, board: Board, opponents: tuple[int, ...]
) -> tuple[float, ...]:
    """Expected landings per round on each space by opponents of these roles (Markov chain):
    each role's weights (`core.role_landings`) added in seat order, as the investor adds them."""
    weights = [0.0] * len(board.spaces)
    for role in opponents:
        for s, weight in enumerate(CORE.role_landings(rules, board, role)):
            weights[s] += weight
    return tuple(weights)


class RandomStrategy(CoreBot):
    """A uniformly random legal choice; now and then it also offers a random trade."""

    name = CORE.BOTS[CODE["BOT_RANDOM"]]
    kind = CODE["BOT_RANDOM"]
    describe = "Picks any legal move at random, like a player who does not think ahead."

    def __init__(
        self,
        seed: int | None = None,
        trade_rate: float = CODE["TRADE_RATE"],
        tax: str | None = None,
    ) -> None:
        super().__init__(CODE["TAX_RANDOM"] if tax is None else check_tax(tax), seed)
        self.tax = tax
        self.state.trade_rate = trade_rate

    @property
    def trade_rate(self) -> float:
        """How often it offers a random trade when it may."""
        return self.state.trade_rate


# the four named bots, in the core's order; amteach.bots.registry adds the family
NAMED_BOTS: dict[str, type] = {
    cls.name: cls for cls in (CautiousStrategy, BuilderStrategy, InvestorStrategy, RandomStrategy)
}
if tuple(NAMED_BOTS) != CORE.BOTS[: len(NAMED_BOTS)]:
    raise ImportError("amteach.bots.strategies: the named bots are not in the core's order")
