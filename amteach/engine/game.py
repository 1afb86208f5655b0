"""The game: state, legal choices, applying a choice, the log, save, load and undo.

One `Game` is one play of Anti-Monopoly. At every moment `game.pending` says whose decision it
is and which kinds of choice are legal; `game.apply(choice)` carries one out, or raises
`IllegalChoice` naming the rule and leaves the state untouched. Chance (dice, card order) comes
from one seeded stream, so a game is its set-up plus its decisions: that is what a save holds,
and undo replays all but the last decision.
"""

from __future__ import annotations

import builtins
import random
import secrets
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from . import events as ev
from .board import COMPETITOR, MONOPOLIST, ROLES, Board, standard_board
from .builds import rules_core
from .choices import (
    CHOICE_KINDS,
    TAX_OPTIONS,
    TITLE_CHOICES,
    Choice,
    Trade,
)
from .errors import IllegalChoice, ScenarioError, quoted
from .refusals import (
    PHASE_KINDS,
    R_TURN,
    why_not,
)
from .rules import RuleSet
from .saves import from_save, replay, to_save
from .setup import GAME_TYPES, PlayerSetup, Setup, TitleSetup, role_index, validate_setup
from .terms import NO_SPACE, NOBODY, NOT_HELD, TREASURY, PaymentReason, Phase

__all__ = [
    "GAME_TYPES",
    "NOBODY",
    "NOT_HELD",
    "TREASURY",
    "Game",
    "LandingOutcome",
    "LegalChoices",
    "Pending",
    "Phase",
    "PlayerSetup",
    "Setup",
    "TaxOptions",
    "TitleSetup",
    "landing_outcomes",
    "validate_setup",
]

# the phases by their short names (the engine's own code reads better with them)
PRE_ROLL = Phase.PRE_ROLL
BUY = Phase.BUY
INCOME_TAX = Phase.INCOME_TAX
RAISE = Phase.RAISE
POST_ROLL = Phase.POST_ROLL
TRADE_ANSWER = Phase.TRADE_ANSWER
FINAL_ADJUST = Phase.FINAL_ADJUST
OVER = Phase.OVER


# The rules' arithmetic (rent, buildings, taxes, what selling raises) and the board and rules
# as tables: written once in `amteach.engine.core`, which the compiled kernel runs too.
core = rules_core()
# a payment's reason by its code in the rules core
PAYMENT_REASONS = tuple(PaymentReason)
# how a game ends, by its code in the rules core
END_TWO_HOUR = core.ENDINGS.index("two_hour")
# a pawn moved by a card, by its code in the rules core
BY_CARD = core.MOVES.index("card")


@lru_cache(maxsize=64)
def rule_tables(board: Board, rules: RuleSet) -> Any:
    """The board and rules as `core.Tables` (built once per board and rule set; never changed)."""
    return core.tables(board, rules)


@dataclass(frozen=True, slots=True)
class Pending:
    """Whose decision it is, in which phase, and which kinds of choice are legal."""

    player: int
    phase: Phase
    kinds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TaxOptions:
    """Both income-tax amounts and the sums behind the percentage."""

    flat: int
    percent: int
    cash: int
    property: int
    improvements: int
    rates: tuple[int, int, int]

    @builtins.property  # the field above is called "property"
    def cheaper(self) -> str:
        return "percent" if self.percent < self.flat else "flat"


# card effects that move the pawn: to a target space (a landing there), or to the hold space
MOVE_EFFECT = "move_to"
HOLD_EFFECTS = ("go_to_price_war", "go_to_prison")


@dataclass(frozen=True, slots=True)
class LandingOutcome:
    """One way a landing can end, with its probability (see `landing_outcomes`).

    `result` is "stays" (the pawn stands on `space`), "moves" (a card moves it on to `space`,
    which is then a landing of its own) or "sent_to_hold" (it goes to the hold space, `space`).
    """

    probability: float
    result: str
    space: int


def landing_outcomes(
    space: int, role: int, board: Board | None = None
) -> tuple[LandingOutcome, ...]:
    """Where a landing on `space` by a pawn of `role` can lead, and with what probability, as
    `core.land` and `core.play_card` resolve it. A card is drawn from the role's deck, each
    card with probability 1/(cards in the deck): the long-run frequency of a deck that is cycled.
    Outcomes that lead to the same place are merged, in the order the cards first give them."""
    board = board or standard_board()
    sp = board.spaces[space]
    if sp.is_title:
        return (LandingOutcome(1.0, "stays", space),)
    if space == board.go_to_hold_space:
        return (LandingOutcome(1.0, "sent_to_hold", board.hold_space),)
    if sp.kind != "card":
        return (LandingOutcome(1.0, "stays", space),)
    deck = board.deck(role)
    if not deck:
        raise ValueError(f"the {ROLES[role]} deck is empty")
    each = 1.0 / len(deck)
    merged: dict[tuple[str, int], float] = {}
    for card in deck:
        if card.effect == MOVE_EFFECT:
            key = ("moves", card.target)
        elif card.effect in HOLD_EFFECTS:
            key = ("sent_to_hold", board.hold_space)
        else:
            key = ("stays", space)
        merged[key] = merged.get(key, 0.0) + each
    return tuple(LandingOutcome(p, result, where) for (result, where), p in merged.items())


@dataclass(slots=True)
class _Debt:
    debtor: int
    creditor: int
    amount: int
    event: ev.Event  # emitted when paid in full
    releases: bool = False  # paying it releases the debtor from Prison or Price War (the fine)
    announced: bool = False


_STATE_FIELDS = (
    "_forced_dice",
    "_handed_over",
    "actor",
    "apartment",
    "bankrupt",
    "board",
    "cash",
    "cash_at_final",
    "current",
    "debts",
    "decisions",
    "decks",
    "end_reason",
    "events",
    "extra_pending",
    "final_queue",
    "final_reason",
    "game_type",
    "held",
    "houses",
    "is_extra",
    "last_dice",
    "leader_at_final",
    "mortgage_values",
    "mortgaged",
    "names",
    "offer",
    "offer_phase",
    "owner",
    "pending_buy",
    "phase",
    "position",
    "redeem_values",
    "rng",
    "roles",
    "round",
    "rules",
    "seed",
    "setup",
    "supply_apartments",
    "supply_houses",
    "table",
    "tables",
    "then",
    "total_money",
    "treasury",
    "turns_taken",
    "winner",
)


# more than any cash: a trade's payment as the rules core reads it (a C long long compiled)
_MOST_CASH = 2**62


@lru_cache(maxsize=8)
def _city_codes(board: Board) -> dict[str, int]:
    """Each city's code in the rules' tables (its position among the board's cities)."""
    return {city: k for k, city in enumerate(board.cities)}


@lru_cache(maxsize=8)
def _city_names(board: Board) -> tuple[str, ...]:
    """The cities by their codes in the rules' tables."""
    return tuple(board.cities)


@lru_cache(maxsize=8)
def _deck_positions(board: Board, role: int) -> dict[str, int]:
    """Each card's position in its role's deck (how the rules' tables number the cards)."""
    return {card.id: k for k, card in enumerate(board.deck(role))}


class Game(core.Steps):
    """One game of Anti-Monopoly, from its set-up and the decisions taken so far."""

    # `_weighed`: the trade whose legality the rules core is weighing (`trade_refusal`)
    __slots__ = (*_STATE_FIELDS, "_weighed")

    # -- construction -------------------------------------------------------------------
    def __init__(self, setup: Setup, board: Board | None = None) -> None:
        self.board = board or standard_board()
        validate_setup(setup, self.board)
        self.setup = setup
        self.rules = rules = setup.rules
        self.seed = setup.seed
        self.game_type = setup.game_type
        self.names = tuple(p.name for p in setup.players)
        self.roles = tuple(p.role for p in setup.players)
        self.table = ev.Table(self.names, self.roles, self.board)
        self.tables = tables = rule_tables(self.board, rules)
        n = len(setup.players)
        self.cash = [rules.starting_cash if p.cash is None else p.cash for p in setup.players]
        self.position = [p.position for p in setup.players]
        self.held = [NOT_HELD if p.held is None else p.held for p in setup.players]
        self.bankrupt = [False] * n
        self.turns_taken = [0] * n
        spaces = self.board.spaces
        self.owner = [NOBODY] * len(spaces)
        self.houses = [0] * len(spaces)
        self.apartment = [False] * len(spaces)
        self.mortgaged = [False] * len(spaces)
        self.mortgage_values = [core.mortgage_value(tables, s.index) for s in spaces]
        self.redeem_values = [core.redeem_value(tables, s.index) for s in spaces]
        self.treasury = 0
        self.supply_houses = rules.supply_houses
        self.supply_apartments = rules.supply_apartments
        for seat, player in enumerate(setup.players):
            for title in player.titles:
                self.owner[title.space] = seat
                self.mortgaged[title.space] = title.mortgaged
                self.houses[title.space] = title.houses
                self.apartment[title.space] = title.apartment
                self.supply_houses -= title.houses
                self.supply_apartments -= title.apartment
        self.total_money = sum(self.cash)
        self.rng = random.Random(setup.seed)
        self.decks = []
        for role in (COMPETITOR, MONOPOLIST):
            ids = [card.id for card in self.board.deck(role)]
            self.rng.shuffle(ids)
            forced = list(setup.cards[role])
            rest = [card_id for card_id in ids if card_id not in forced]
            self.decks.append(deque(forced + rest))
        self._forced_dice = deque(setup.dice)
        self.events: list[ev.Event] = []
        self.decisions: list[Choice] = []
        self.debts: deque[_Debt] = deque()
        self._handed_over: tuple[int, list[int]] = (0, [])
        self.then = ""
        self.round = 1
        self.current = 0
        self.actor = 0
        self.phase = PRE_ROLL
        self.is_extra = False
        self.extra_pending = False
        self.last_dice = rules.settlement_utility_dice
        self.pending_buy = NOBODY
        self.offer: Trade | None = None
        self.offer_phase = PRE_ROLL
        self.final_queue: deque[int] = deque()
        self.final_reason = ""
        # the standing when the final accounting began (what it changed: sim.accounting)
        self.cash_at_final: tuple[int, ...] | None = None
        self.leader_at_final = NOBODY
        self._weighed: Trade | None = None
        self.winner: int | None = None
        self.end_reason: str | None = None
        self._begin_turn(0)

    @classmethod
    def new(
        cls,
        players: list[tuple[str, str]] | list[dict[str, Any]],
        rules: RuleSet | str = "default",
        seed: int | None = None,
        game: str = "A",
        **rule_overrides: Any,
    ) -> Game:
        """A new game: `players` as (name, role) pairs in turn order."""
        if isinstance(rules, str):
            rules = RuleSet.preset(rules, **rule_overrides)
        elif rule_overrides:
            rules = rules.replace(**rule_overrides)
        seats = []
        for i, player in enumerate(players):
            name, role = (player["name"], player["role"]) if isinstance(player, dict) else player
            seats.append(PlayerSetup(name=str(name), role=role_index(role, f"players[{i}].role")))
        if seed is None:
            seed = secrets.randbelow(2**31)
        return cls(Setup(players=tuple(seats), rules=rules, seed=int(seed), game_type=game))

    # -- what is going on ---------------------------------------------------------------------
    @property
    def pending(self) -> Pending | None:
        """Whose decision it is and the legal kinds of choice; None once the game is over."""
        if self.phase == OVER:
            return None
        return Pending(self.actor, self.phase, tuple(self.legal_kinds()))

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def players(self) -> range:
        return range(len(self.names))

    def alive(self) -> list[int]:
        return [p for p in self.players if not self.bankrupt[p]]

    def seat(self, key: int | str) -> int:
        """A seat number from a player's index or name."""
        if isinstance(key, int) and not isinstance(key, bool) and 0 <= key < len(self.names):
            return key
        for seat, name in enumerate(self.names):
            if name.casefold() == str(key).strip().casefold():
                return seat
        raise KeyError(f"there is no player {quoted(key)}; players: {', '.join(self.names)}")

    def hold_name(self, player: int) -> str:
        return ev.HOLD_NAMES[self.roles[player]]

    def landing_outcomes(self, space: int, role: int) -> tuple[LandingOutcome, ...]:
        """Where a landing on `space` by a pawn of `role` can lead (see `landing_outcomes`)."""
        return landing_outcomes(space, role, self.board)

    def is_held(self, player: int) -> bool:
        """Is the player held in Prison (a Monopolist) or Price War (a Competitor)?"""
        return self.held[player] != NOT_HELD

    # -- money and titles (the UI, bots and analysis read these; they never recompute a rule) --
    def titles_of(self, player: int) -> list[int]:
        return [s for s in self.board.titles if self.owner[s] == player]

    def monopoly_count(self, player: int, city: str) -> int:
        """How many unmortgaged streets of `city` the player owns."""
        owner, mortgaged = self.owner, self.mortgaged
        return sum(1 for s in self.board.cities[city] if owner[s] == player and not mortgaged[s])

    def is_monopolized(self, player: int, city: str) -> bool:
        """Decision 5: a monopolist's city is monopolized while they own enough unmortgaged streets."""
        code = _city_codes(self.board)[city]
        return bool(core.is_monopolized(self, self.tables, player, code))

    def rent_for(self, space: int, dice_total: int | None = None) -> tuple[int, str, int]:
        """One landing's rent on an owned title now: (amount, basis, count). Zero when mortgaged,
        or when the owner is a monopolist in Prison. Utilities use `dice_total` (default: the
        rules' settlement_utility_dice, 7)."""
        return self._rent(
            space, self.houses[space], self.apartment[space], self.mortgaged[space], dice_total
        )

    def _rent(
        self, space: int, houses: int, apartment: bool, mortgaged: bool, dice_total: int | None
    ) -> tuple[int, str, int]:
        """`rent_for` with this space's buildings and mortgage as given: reads, never writes."""
        owner = self.owner[space]
        if owner == NOBODY:
            role, held, count = NOBODY, False, 0
        else:
            role, held, count = self.roles[owner], self.is_held(owner), self._group_count(space)
        t = self.tables
        basis = core.rent_basis(t, space, role, held, mortgaged, houses, apartment, count)
        dice = self.rules.settlement_utility_dice if dice_total is None else dice_total
        return (
            core.rent_amount(t, space, basis, role, houses, count, dice),
            core.RENT_BASES[basis],
            core.rent_count(t, basis, role, houses, count),
        )

    def _group_count(self, space: int) -> int:
        """How many titles of the space's group (its city, the transports or the utilities)
        its owner has unmortgaged, this one counted as unmortgaged (rent_if may redeem it)."""
        board = self.board
        sp = board.spaces[space]
        if sp.kind == "street":
            group = board.cities[sp.city]
        elif sp.kind == "transport":
            group = board.transports
        else:
            group = board.utilities
        owner, mortgaged, me = self.owner, self.mortgaged, self.owner[space]
        return sum(1 for s in group if owner[s] == me and (s == space or not mortgaged[s]))

    def buildings_paid(self, space: int) -> int:
        """What was paid for the buildings on a street (the 'improvements' of the income tax)."""
        return core.buildings_paid(
            self.tables,
            space,
            self.roles[self.owner[space]],
            self.houses[space],
            self.apartment[space],
        )

    def tax_options(self, player: int) -> TaxOptions:
        """Decision 1: both income-tax amounts, and the sums behind the percentage."""
        prop = core.taxed_property(self, self.tables, player)
        improvements = core.taxed_improvements(self, self.tables, player)
        role = self.roles[player]
        rates = self.rules.income_tax_percents(role)
        cash = self.cash[player]
        percent = core.tax_percent(self.tables, role, cash, prop, improvements)
        return TaxOptions(self.rules.income_tax_flat, percent, cash, prop, improvements, rates)

    def liquidation_value(self, player: int) -> int:
        """Cash plus all that selling every building and mortgaging every title would raise."""
        total = self.cash[player]
        t, role = self.tables, self.roles[player]
        for s in self.board.titles:
            if self.owner[s] == player:
                total += core.title_liquidation(
                    t,
                    s,
                    role,
                    self.houses[s],
                    self.apartment[s],
                    self.mortgaged[s],
                    self.mortgage_values[s],
                )
        return total

    def net_worth(self, player: int) -> int:
        """Cash + unmortgaged titles at price + mortgaged titles at price less the redeem price
        + buildings at what was paid for them."""
        return sum(self.wealth_parts()[player])

    def rule25_wealth(self, player: int) -> int:
        """Decision 11: cash + one landing's rent on every unmortgaged title (utilities at 7)."""
        rules_dice = self.rules.settlement_utility_dice
        return self.cash[player] + sum(
            self.rent_for(s, rules_dice)[0] for s in self.board.titles if self.owner[s] == player
        )

    def wealth(self, player: int) -> dict[str, int]:
        """Cash, titles at price and buildings at cost: the parts of net worth for charts."""
        cash, titles, buildings = self.wealth_parts()[player]
        return {
            "cash": cash,
            "titles": titles,
            "buildings": buildings,
            "net_worth": cash + titles + buildings,
        }

    def wealth_parts(self) -> list[tuple[int, int, int]]:
        """(cash, titles at price, buildings at cost) for every seat, in one pass over the
        board; a mortgaged title counts its price less the redeem price."""
        titles = [0] * len(self.names)
        buildings = [0] * len(self.names)
        t, owner, mortgaged = self.tables, self.owner, self.mortgaged
        for s in self.board.titles:
            p = owner[s]
            if p != NOBODY:
                titles[p] += core.title_worth(t, s, mortgaged[s], self.redeem_values[s])
                if self.houses[s] or self.apartment[s]:
                    buildings[p] += self.buildings_paid(s)
        return [(self.cash[p], titles[p], buildings[p]) for p in self.players]

    def invariant_violations(self) -> list[str]:
        """What must hold after every decision, one sentence for each thing that does not:
        cash plus the Treasury's balance is constant; the building supply balances; no cash
        is negative; a Monopolist with buildings in a city has its monopoly; held players
        stand on the hold space. Empty when all is well (`amteach simulate
        --check-invariants` counts these; the compiled core counts the same)."""
        out = []
        for p in self.players:
            if self.cash[p] < 0:
                out.append(f"{self.names[p]} has negative cash (${self.cash[p]})")
            if self.is_held(p) and self.position[p] != self.board.hold_space:
                out.append(f"{self.names[p]} is held but stands on space {self.position[p]}")
        money = self.treasury + sum(self.cash)
        if money != self.total_money:
            out.append(f"cash plus the Treasury is ${money}, not ${self.total_money}")
        houses, apartments = self.supply_houses, self.supply_apartments
        for s in self.board.streets:
            houses += self.houses[s]
            apartments += self.apartment[s]
            owner = self.owner[s]
            if (self.houses[s] or self.apartment[s]) and owner != NOBODY:
                city = self.board.spaces[s].city
                if self.roles[owner] == MONOPOLIST and not self.is_monopolized(owner, city):
                    out.append(
                        f"{self.names[owner]} has buildings on {self.board.spaces[s].name} "
                        f"without a monopoly of {city}"
                    )
        if houses != self.rules.supply_houses or apartments != self.rules.supply_apartments:
            out.append(
                f"{houses} houses and {apartments} apartments in all, not "
                f"{self.rules.supply_houses} and {self.rules.supply_apartments}"
            )
        return out

    # -- legal choices ---------------------------------------------------------------------
    def legal_kinds(self) -> list[str]:
        """The kinds of choice legal now, each with at least one legal instance."""
        kinds = []
        for kind in PHASE_KINDS[self.phase]:
            if kind in TITLE_CHOICES:
                if self.targets(kind):
                    kinds.append(kind)
            elif kind == "trade":
                if core.trade_possible(self, self.tables, self.actor):
                    kinds.append(kind)
            elif why_not(self, Choice(kind, "flat" if kind == "income_tax" else None)) is None:
                kinds.append(kind)
        return kinds

    def legal_choices(self) -> list[Choice]:
        """Every legal choice now, each with its argument; trades (open-ended) are left out:
        test one with `is_legal`."""
        out: list[Choice] = []
        for kind in PHASE_KINDS[self.phase]:
            if kind in TITLE_CHOICES:
                out.extend(Choice(kind, s) for s in self.targets(kind))
            elif kind == "income_tax":
                out.extend(Choice(kind, option) for option in TAX_OPTIONS)
            elif kind != "trade" and why_not(self, Choice(kind)) is None:
                out.append(Choice(kind))
        return out

    def targets(self, kind: str) -> list[int]:
        """The titles on which `kind` (build, sell_building, mortgage, redeem) is legal now:
        the actor's titles the rules core's legality lets through (`title_refusal`)."""
        if kind not in PHASE_KINDS[self.phase]:
            return []
        actor, owner, why_not, t = self.actor, self.owner, _TITLE_RULES[kind], self.tables
        candidates = self.board.streets if kind in ("build", "sell_building") else self.board.titles
        return [s for s in candidates if owner[s] == actor and not why_not(self, t, actor, s)]

    def title_refusal(self, kind: str, space: int) -> int:
        """Why the actor may not `kind` (build, sell_building, mortgage, redeem) the title on
        `space`: a refusal code of the rules core (`core.REFUSALS`), 0 when allowed."""
        return _TITLE_RULES[kind](self, self.tables, self.actor, space)

    def trade_refusal(self, trade: Trade) -> int:
        """Why the actor may not propose `trade` (its fields whole numbers): a refusal of the
        rules core (`core.refusal_code`, `core.refused_at`), 0 when allowed."""
        self._weighed = trade
        try:
            return core.why_not_trade(self, self.tables, self.actor)
        finally:
            self._weighed = None

    def legal(self) -> LegalChoices:
        """The legal choices as a lazy sequence: `.kinds` is cheap, the full list is built
        only when a strategy looks at it. This is what bots are given."""
        return LegalChoices(self)

    def rent_if(
        self,
        space: int,
        houses: int | None = None,
        apartment: bool | None = None,
        mortgaged: bool | None = None,
        dice_total: int | None = None,
    ) -> int:
        """One landing's rent on an owned title if it carried these buildings or mortgage
        state (for bots and charts weighing a build or a redeem; the engine's rules answer).
        The game is only read, never changed."""
        return self._rent(
            space,
            self.houses[space] if houses is None else houses,
            self.apartment[space] if apartment is None else apartment,
            self.mortgaged[space] if mortgaged is None else mortgaged,
            dice_total,
        )[0]

    def next_building(self, space: int) -> str:
        """What building on this street adds next: "house", or "apartment" once the owner's
        role has its maximum of houses there."""
        role = self.roles[self.owner[space]]
        return (
            "apartment"
            if core.next_is_apartment(self.tables, role, self.houses[space])
            else "house"
        )

    def building_sale_value(self, space: int) -> tuple[str, int]:
        """What selling one building on this street returns now: ("apartment" or "house",
        dollars). Selling an apartment returns part of everything paid for the street."""
        apartment = self.apartment[space]
        value = core.building_sale_value(
            self.tables, space, self.roles[self.owner[space]], self.houses[space], apartment
        )
        return ("apartment" if apartment else "house"), value

    def rent_after_build(self, space: int) -> int:
        """The rent on a street once one more building stands on it (the next house, or the
        apartment that replaces the role's maximum of houses)."""
        owner = self.owner[space]
        return core.rent_after_build(
            self.tables,
            space,
            self.roles[owner],
            self.is_held(owner),
            self.mortgaged[space],
            self.houses[space],
            self._group_count(space),
        )

    def is_legal(self, choice: Any) -> bool:
        try:
            return why_not(self, self.parse_choice(choice)) is None
        except (IllegalChoice, KeyError, ValueError):
            return False

    def check(self, choice: Any) -> Choice:
        """The choice as a `Choice`, or IllegalChoice naming the rule it breaks."""
        parsed = self.parse_choice(choice)
        problem = why_not(self, parsed)
        if problem is not None:
            raise IllegalChoice(*problem)
        return parsed

    # -- parsing ----------------------------------------------------------------------------
    def parse_choice(self, choice: Any) -> Choice:
        """A Choice from a Choice, "roll", ("build", "Rush St."), or {"build": 11}.
        Titles by name or index, trade partners by name or seat. Raises IllegalChoice when
        the choice cannot be read."""
        if isinstance(choice, Choice):
            kind, arg = choice.kind, choice.arg
        elif isinstance(choice, str):
            kind, arg = choice.strip(), None
        elif isinstance(choice, tuple | list) and len(choice) == 2:
            kind, arg = choice
        elif isinstance(choice, dict) and len(choice) == 1:
            ((kind, arg),) = choice.items()
        else:
            raise IllegalChoice(f"cannot read the choice {quoted(choice)}", R_TURN)
        if kind not in CHOICE_KINDS:
            raise IllegalChoice(
                f"unknown choice {quoted(kind)}; choices are: {', '.join(CHOICE_KINDS)}", R_TURN
            )
        try:
            if kind in TITLE_CHOICES:
                return Choice(kind, self._title_index(arg))
            if kind == "income_tax":
                return Choice(kind, str(arg).strip() if arg is not None else None)
            if kind == "trade":
                return Choice(kind, arg if isinstance(arg, Trade) else self._parse_trade(arg))
        except KeyError as err:
            raise IllegalChoice(str(err.args[0]), R_TURN) from None
        if arg is not None:
            raise IllegalChoice(f"{kind} takes no argument", R_TURN)
        return Choice(kind)

    def _title_index(self, key: Any) -> int:
        if key is None:
            raise KeyError("name the title")
        space = self.board.space(key)
        return space.index

    def _parse_trade(self, raw: Any) -> Trade:
        if not isinstance(raw, dict) or "with" not in raw:
            raise KeyError("a trade needs 'with', and may have 'give', 'get' and 'pay'")
        unknown = set(raw) - {"with", "give", "get", "pay"}
        if unknown:
            raise KeyError(f"a trade has no field {quoted(sorted(unknown)[0])}")
        pay = raw.get("pay", 0) or 0
        if isinstance(pay, bool) or not isinstance(pay, int):
            raise KeyError(f"a trade's pay must be a whole number, not {quoted(pay)}")
        sides = {}
        for side in ("give", "get"):
            titles = raw.get(side) or []
            if not isinstance(titles, list | tuple):
                raise KeyError(f"a trade's {side} must be a list of titles, not {quoted(titles)}")
            sides[side] = tuple(self._title_index(t) for t in titles)
        return Trade(other=self.seat(raw["with"]), give=sides["give"], get=sides["get"], pay=pay)

    # -- applying a choice ----------------------------------------------------------------------
    def apply(self, choice: Any, player: int | str | None = None) -> list[ev.Event]:
        """Carry out one decision for the pending player and return the events it caused.

        `player`, if given, must be the pending player (a stale button raises IllegalChoice).
        """
        if player is not None and self.phase != OVER:
            seat = self.seat(player)
            if seat != self.actor:
                raise IllegalChoice(
                    f"it is {self.names[self.actor]}'s decision, not {self.names[seat]}'s", R_TURN
                )
        if type(choice) is Choice and (choice.arg is None or type(choice.arg) is int):
            parsed = choice  # a choice the engine handed out: nothing to read
            problem = why_not(self, parsed)
            if problem is not None:
                raise IllegalChoice(*problem)
        else:
            parsed = self.check(choice)
        start = len(self.events)
        self.decisions.append(parsed)
        try:
            _HANDLERS[parsed.kind](self, parsed.arg)
        except ScenarioError:
            # a scenario's forced throw did not fit this moment: put everything back as it was
            self.undo()
            raise
        return self.events[start:]

    def _emit(self, event: ev.Event) -> None:
        self.events.append(event)

    # turn flow: written once, in the rules core (`core.begin_turn`, `roll`, `move_to`,
    # `after_move`, `next_turn`), over the steps below
    def _begin_turn(self, player: int) -> None:
        core.begin_turn(self, self.tables, player)

    def _do_roll(self, _: None) -> None:
        core.roll(self, self.tables, self.current)

    def _throw(self, count: int, purpose: str) -> tuple[int, ...]:
        if self._forced_dice:
            dice = self._forced_dice.popleft()
            if len(dice) != count:
                raise ScenarioError(
                    f"the next forced throw {list(dice)} has {len(dice)} dice, but this throw needs {count}",
                    field="dice",
                )
        else:
            rand = self.rng.random
            if count == 2:
                dice = (int(rand() * 6) + 1, int(rand() * 6) + 1)
            else:
                dice = tuple(int(rand() * 6) + 1 for _ in range(count))
        self._emit(ev.DiceThrown(self.table, self.actor, dice, purpose))
        return dice

    # the steps of the transitions (core.Steps), with their events; each returns an int
    # (0 when it only acts), as the compiled interface requires
    # the player's actions
    def houses_on(self, space: int) -> int:
        return self.houses[space]

    def has_apartment(self, space: int) -> int:
        return int(self.apartment[space])

    def is_mortgaged(self, space: int) -> int:
        return int(self.mortgaged[space])

    def streets_held(self, p: int, city: int) -> int:
        return self.monopoly_count(p, _city_names(self.board)[city])

    def houses_left(self) -> int:
        return self.supply_houses

    def apartments_left(self) -> int:
        return self.supply_apartments

    def seat_held(self, q: int) -> int:
        return int(self.held[q] != NOT_HELD)

    def raiser(self) -> int:
        return self.actor if self.phase == RAISE else NOBODY

    def offered(self) -> int:
        return self.pending_buy

    def _trade(self, standing: int) -> Trade:
        trade = self.offer if standing else self._weighed
        assert trade is not None
        return trade

    def trade_partner(self, standing: int) -> int:
        other = self._trade(standing).other
        return other if 0 <= other < len(self.names) else NOBODY

    def trade_titles(self, standing: int, side: int) -> int:
        trade = self._trade(standing)
        return len(trade.get if side else trade.give)

    def trade_title(self, standing: int, side: int, i: int) -> int:
        trade = self._trade(standing)
        space = (trade.get if side else trade.give)[i]
        # a number beyond a C int (for the compiled core) stands for itself as a space off
        # the board
        return space if -(2**31) <= space < 2**31 else len(self.board.spaces)

    def trade_pay(self, standing: int) -> int:
        pay = self._trade(standing).pay
        return max(-_MOST_CASH, min(pay, _MOST_CASH))  # beyond any cash, within a C long long

    def buys(self, p: int, space: int, price: int) -> int:
        self.cash[p] -= price
        self.treasury += price
        self.owner[space] = p
        self.pending_buy = NOBODY
        self._emit(ev.Purchased(self.table, p, space, price))
        return 0

    def declines(self, p: int, space: int) -> int:
        self._emit(ev.Declined(self.table, p, space))
        self.pending_buy = NOBODY
        return 0

    def builds(self, p: int, space: int, houses: int, apartment: int, cost: int) -> int:
        # the supply counts buildings not on the board; with an unlimited supply it may go
        # below zero, and only the legality check (not this bookkeeping) looks at the limit
        self.supply_houses += self.houses[space] - houses
        self.supply_apartments += self.apartment[space] - apartment
        self.houses[space] = houses
        self.apartment[space] = bool(apartment)
        self.cash[p] -= cost
        self.treasury += cost
        building = "apartment" if apartment else "house"
        self._emit(ev.Built(self.table, p, space, building, cost))
        return 0

    def sells_building(self, p: int, space: int, houses: int, apartment: int, refund: int) -> int:
        building = "apartment" if self.apartment[space] else "house"
        self.supply_houses += self.houses[space] - houses
        self.supply_apartments += self.apartment[space] - apartment
        self.houses[space] = houses
        self.apartment[space] = bool(apartment)
        self.cash[p] += refund
        self.treasury -= refund
        self._emit(ev.BuildingSold(self.table, p, space, building, refund))
        return 0

    def mortgages(self, p: int, space: int, amount: int) -> int:
        self.mortgaged[space] = True
        self.cash[p] += amount
        self.treasury -= amount
        self._emit(ev.Mortgaged(self.table, p, space, amount))
        return 0

    def redeems(self, p: int, space: int, amount: int) -> int:
        self.mortgaged[space] = False
        self.cash[p] -= amount
        self.treasury += amount
        self._emit(ev.Redeemed(self.table, p, space, amount))
        return 0

    def tax_chosen(self, p: int, flat: int, percent: int, percent_chosen: int) -> int:
        option = "percent" if percent_chosen else "flat"
        self._emit(self._tax_event(ev.IncomeTaxChoice, p, option))
        return 0

    def pays_treasury(self, p: int, amount: int, reason: int, space: int) -> int:
        self.cash[p] -= amount
        self.treasury += amount
        self._emit(ev.Payment(self.table, p, TREASURY, amount, PAYMENT_REASONS[reason], space))
        return 0

    def leaves_hold(self, p: int, by_doubles: int) -> int:
        self.held[p] = NOT_HELD
        self._emit(ev.LeftHold(self.table, p, "doubles" if by_doubles else "fine"))
        return 0

    def trade_proposed(self, p: int) -> int:
        trade = self._trade(0)
        self._emit(ev.TradeProposed(self.table, p, trade.other, trade.give, trade.get, trade.pay))
        self.offer = trade
        self.offer_phase = self.phase
        return 0

    def awaits_answer(self, q: int) -> int:
        self.actor = q
        self.phase = TRADE_ANSWER
        return 0

    def end_adjusting(self) -> int:
        if self.phase != FINAL_ADJUST:
            return 0
        self.final_queue.popleft()
        return 1

    def trade_answered(self, accepted: int) -> int:
        trade = self._trade(1)
        p = self.current
        self._emit(
            ev.TradeAnswered(
                self.table, trade.other, p, bool(accepted), trade.give, trade.get, trade.pay
            )
        )
        self.actor = p
        self.phase = self.offer_phase
        return 0

    def transfer_title(self, space: int, to: int) -> int:
        self.owner[space] = to
        return 0

    def pays(self, payer: int, payee: int, amount: int, reason: int) -> int:
        self.cash[payer] -= amount
        self.cash[payee] += amount
        self._emit(ev.Payment(self.table, payer, payee, amount, PAYMENT_REASONS[reason]))
        return 0

    # the landings, the debts, the end of the game and the turn
    def seats(self) -> int:
        return len(self.names)

    def seat_role(self, q: int) -> int:
        return self.roles[q]

    def seat_out(self, q: int) -> int:
        return int(self.bankrupt[q])

    def title_owner(self, space: int) -> int:
        return self.owner[space]

    def treasury_pays(self, p: int, amount: int, reason: int, space: int) -> int:
        self.cash[p] += amount
        self.treasury -= amount
        self._emit(ev.Payment(self.table, TREASURY, p, amount, PAYMENT_REASONS[reason], space))
        return 0

    def owes(self, debtor: int, creditor: int, amount: int, reason: int, space: int) -> int:
        payment = ev.Payment(self.table, debtor, creditor, amount, PAYMENT_REASONS[reason], space)
        self._owe(debtor, creditor, amount, payment)
        return 0

    def owes_rent(self, p: int, owner: int, space: int) -> int:
        amount, basis, count = self.rent_for(space, self.last_dice)
        if amount:
            rent = ev.RentPaid(self.table, p, owner, space, amount, basis, count, self.last_dice)
            self._owe(p, owner, amount, rent)
            return 1
        if basis in ("mortgaged", "prison"):
            self._emit(ev.NoRent(self.table, p, owner, space, basis))
        return 0

    def settle_after_move(self) -> int:
        self._settle("after_move")
        return 0

    def offer_title(self, p: int, space: int) -> int:
        self.pending_buy = space
        self.phase = BUY
        return 0

    def ask_income_tax(self, p: int) -> int:
        self._emit(self._tax_event(ev.IncomeTaxDue, p))
        self.phase = INCOME_TAX
        return 0

    def card_moves(self, p: int, target: int) -> int:
        return core.move_to(self, self.tables, p, target, BY_CARD)

    def send_to_hold(self, p: int, by_card: int) -> int:
        self.position[p] = self.board.hold_space
        self.held[p] = 0
        self.extra_pending = False
        self._emit(ev.SentToHold(self.table, p, "card" if by_card else "space"))
        return 0

    def throw(self, count: int, purpose: int) -> int:
        return sum(self._throw(count, core.THROWS[purpose]))

    def next_card(self, p: int, role: int) -> int:
        deck = self.decks[role]
        card_id = deck.popleft()
        deck.append(card_id)
        self._emit(ev.CardDrawn(self.table, p, card_id))
        return _deck_positions(self.board, role)[card_id]

    def after_move(self) -> int:
        return core.after_move(self, self.tables, self.current)

    def is_game_b(self) -> int:
        return int(self.game_type == "B")

    def is_two_hour(self) -> int:
        return int(self.game_type == "two-hour")

    def cash_of(self, p: int) -> int:
        return self.cash[p]

    def game_b_score(self, p: int) -> int:
        return self.rule25_wealth(p)

    def rent_at(self, space: int, dice: int) -> int:
        return self.rent_for(space, dice)[0]

    def begin_final(self, reason: int) -> int:
        self.final_reason = core.ENDINGS[reason]
        self.cash_at_final = tuple(self.cash)
        self.leader_at_final = core.most_cash(self)
        self._emit(ev.FinalAccounting(self.table, self.final_reason))
        self.final_queue = deque()
        return 0

    def queue_adjuster(self, p: int) -> int:
        self.final_queue.append(p)
        return 0

    def next_adjuster(self) -> int:
        if self.final_queue:
            self.actor = self.current = self.final_queue[0]
            self.phase = FINAL_ADJUST
            return self.actor
        return NOBODY

    def final_cause(self) -> int:
        return core.ENDINGS.index(self.final_reason)

    def hands_over(self, p: int, amount: int, keep_percent: int) -> int:
        self.cash[p] -= amount
        self.treasury += amount
        self._emit(
            ev.Payment(
                self.table, p, TREASURY, amount, PaymentReason.SETTLEMENT, NO_SPACE, keep_percent
            )
        )
        return 0

    def treasurer_pays(self, owner: int, space: int, amount: int) -> int:
        self.cash[owner] += amount
        self.treasury -= amount
        self._emit(ev.TreasurerPaid(self.table, owner, space, amount))
        return 0

    def finish(self, winner: int, reason: int) -> int:
        self._finish(None if winner == NOBODY else winner, core.ENDINGS[reason])
        return 0

    def first_debtor(self) -> int:
        return self.debts[0].debtor if self.debts else NOBODY

    def first_creditor(self) -> int:
        return self.debts[0].creditor

    def first_debt(self) -> int:
        return self.debts[0].amount

    def pay_first_debt(self) -> int:
        debt = self.debts.popleft()
        d = debt.debtor
        self.cash[d] -= debt.amount
        if debt.creditor == TREASURY:
            self.treasury += debt.amount
        else:
            self.cash[debt.creditor] += debt.amount
        self._emit(debt.event)
        if debt.releases:
            self.held[d] = NOT_HELD
            self._emit(ev.LeftHold(self.table, d, "fine"))
        return 0

    def drop_first_debt(self) -> int:
        self.debts.popleft()
        return 0

    def liquidation_of(self, p: int) -> int:
        return self.liquidation_value(p)

    def must_raise(self, d: int) -> int:
        debt = self.debts[0]
        if not debt.announced:
            debt.announced = True
            self._emit(ev.MustRaiseMoney(self.table, d, debt.creditor, debt.amount, self.cash[d]))
        self.actor = d
        self.phase = RAISE
        return 0

    def set_then(self, then: int) -> int:
        self.then = core.THENS[then]
        return 0

    def take_then(self) -> int:
        then = core.THENS.index(self.then)
        self.then = ""
        return then

    def is_over(self) -> int:
        return int(self.phase == OVER)

    def return_buildings(self, d: int, space: int) -> int:
        refund = core.buildings_refund(
            self.tables, space, self.roles[d], self.houses[space], self.apartment[space]
        )
        self.supply_houses += self.houses[space]
        self.supply_apartments += self.apartment[space]
        self.houses[space] = 0
        self.apartment[space] = False
        self.cash[d] += refund
        self.treasury -= refund
        return 0

    def hand_over_cash(self, d: int, creditor: int) -> int:
        cash = self.cash[d]
        self.cash[d] = 0
        if creditor == TREASURY:
            self.treasury += cash
        else:
            self.cash[creditor] += cash
        self._handed_over = (cash, [])  # the Bankrupt event tells both
        return 0

    def hand_over_title(self, space: int, creditor: int) -> int:
        self.owner[space] = creditor
        if creditor == TREASURY:
            self.mortgaged[space] = False
        self._handed_over[1].append(space)
        return 0

    def declare_bankrupt(self, d: int, creditor: int, debt: int) -> int:
        self.bankrupt[d] = True
        self.held[d] = NOT_HELD
        cash, titles = self._handed_over
        self._emit(ev.Bankrupt(self.table, d, creditor, debt, cash, tuple(titles)))
        return 0

    def current_seat(self) -> int:
        return self.current

    def next_turn(self) -> int:
        return core.next_turn(self, self.tables, self.current)

    def resume_turn(self) -> int:
        self.actor = self.current
        self.phase = PRE_ROLL
        return 0

    def start_turn(self, p: int) -> int:
        self.current = self.actor = p
        self.phase = PRE_ROLL
        self.is_extra = self.extra_pending = False
        self.turns_taken[p] += 1
        self._emit(ev.TurnStarted(self.table, p, self.round))
        return self.held[p]

    def held_turns(self, p: int) -> int:
        return self.held[p]  # NOT_HELD is NOBODY

    def owes_fine(self, p: int, amount: int) -> int:
        fine = ev.Payment(self.table, p, TREASURY, amount, PaymentReason.FINE)
        self._owe(p, TREASURY, amount, fine, releases=True)
        return 0

    def throw_pair(self, purpose: int) -> int:
        first, second = self._throw(2, core.THROWS[purpose])
        return core.pair_of(first, second)

    def stays_held(self, p: int) -> int:
        self.held[p] += 1
        self._emit(ev.StayedHeld(self.table, p, self.held[p]))
        return 0

    def released_by_doubles(self, p: int) -> int:
        self.held[p] = NOT_HELD
        self._emit(ev.LeftHold(self.table, p, "doubles"))
        return 0

    def is_extra_throw(self) -> int:
        return int(self.is_extra)

    def note_throw(self, total: int, extra: int) -> int:
        self.last_dice = total
        self.extra_pending = bool(extra)
        return 0

    def position_of(self, p: int) -> int:
        return self.position[p]

    def place(self, p: int, end: int, by: int) -> int:
        start = self.position[p]
        self.position[p] = end
        self._emit(ev.Moved(self.table, p, start, end, core.MOVES[by]))
        return start

    def extra_due(self) -> int:
        return int(self.extra_pending)

    def extra_throw(self, p: int) -> int:
        self.extra_pending = False
        self.is_extra = True
        self.actor = p
        self.phase = PRE_ROLL
        return 0

    def post_roll(self, p: int) -> int:
        self.actor = p
        self.phase = POST_ROLL
        return 0

    def round_number(self) -> int:
        return self.round

    def new_round(self) -> int:
        self.round += 1
        return 0

    # debts
    def _owe(
        self, debtor: int, creditor: int, amount: int, event: ev.Event, releases: bool = False
    ) -> None:
        self.debts.append(_Debt(debtor, creditor, amount, event, releases))

    def _settle(self, then: str) -> None:
        """Pay queued debts in order, then `then`: `core.settle`, written once."""
        core.settle(self, self.tables, core.THENS.index(then))

    def _finish(self, winner: int | None, reason: str) -> None:
        self.winner = winner
        self.end_reason = reason
        self.phase = OVER
        self.debts.clear()
        scores = tuple(
            self.rule25_wealth(p) if reason == "game_b" else self.cash[p] for p in self.players
        )
        self._emit(ev.GameOver(self.table, winner, reason, scores))

    # decisions
    def _do_end_turn(self, _: None) -> None:
        core.end_turn(self, self.tables, self.current)

    def _do_buy(self, _: None) -> None:
        core.buy_title(self, self.tables, self.current)

    def _do_decline(self, _: None) -> None:
        core.decline_title(self, self.tables, self.current)

    def _tax_event(self, cls: type[ev.IncomeTaxDue], p: int, *choice: str) -> ev.IncomeTaxDue:
        o = self.tax_options(p)
        return cls(
            self.table, p, o.flat, o.percent, o.cash, o.property, o.improvements, o.rates, *choice
        )

    def _do_income_tax(self, option: str) -> None:
        core.income_tax(self, self.tables, self.current, option == "percent")

    def _do_pay_fine(self, _: None) -> None:
        core.pay_fine(self, self.tables, self.current)

    def _do_build(self, space: int) -> None:
        core.build(self, self.tables, self.actor, space)

    def _do_sell_building(self, space: int) -> None:
        core.sell_building(self, self.tables, self.actor, space)

    def _do_mortgage(self, space: int) -> None:
        core.mortgage(self, self.tables, self.actor, space)

    def _do_redeem(self, space: int) -> None:
        core.redeem(self, self.tables, self.actor, space)

    def _do_trade(self, trade: Trade) -> None:
        self._weighed = trade
        try:
            core.propose_trade(self, self.tables, self.actor)
        finally:
            self._weighed = None

    def _do_accept(self, _: None) -> None:
        self._answer(True)

    def _do_reject(self, _: None) -> None:
        self._answer(False)

    def _answer(self, accepted: bool) -> None:
        core.answer_trade(self, self.tables, int(accepted))
        self.offer = None

    def _do_end_game(self, _: None) -> None:
        core.start_final(self, self.tables, END_TWO_HOUR)

    # -- log, save, load, undo ------------------------------------------------------------------
    def undo(self, count: int = 1) -> None:
        """Take back the last `count` decisions by replaying the rest from the set-up."""
        if count < 1 or count > len(self.decisions):
            raise IllegalChoice(
                f"there {'is' if len(self.decisions) == 1 else 'are'} only {len(self.decisions)} decisions to undo",
                "undo",
            )
        replayed = Game.replay(self.setup, self.decisions[:-count], self.board)
        for name in _STATE_FIELDS:
            setattr(self, name, getattr(replayed, name))

    @classmethod
    def replay(
        cls, setup: Setup, decisions: list[Any], board: Board | None = None, source: str = ""
    ) -> Game:
        """The game after these decisions, played again from the set-up (`engine.saves`)."""
        return replay(setup, decisions, board, source, game_type=cls)

    def to_save(self) -> dict[str, Any]:
        """The game as JSON-ready data: the set-up, the seed and the decisions."""
        return to_save(self)

    @classmethod
    def from_save(cls, data: Any, source: str = "saved game") -> Game:
        """Rebuild a saved game by replay. A corrupt save raises SaveError naming the field."""
        return from_save(data, source, game_type=cls)

    def state_dict(self) -> dict[str, Any]:
        """The state as plain data (the scenario runner's output, and save/load comparison)."""
        players = []
        for p in self.players:
            players.append(
                {
                    "name": self.names[p],
                    "role": ROLES[self.roles[p]],
                    "cash": self.cash[p],
                    "position": self.position[p],
                    "held": self.is_held(p),
                    "held_turns": self.held[p] if self.is_held(p) else None,
                    "bankrupt": self.bankrupt[p],
                    "net_worth": self.net_worth(p),
                    "rule25_wealth": self.rule25_wealth(p),
                    "titles": [
                        {
                            "space": s,
                            "name": self.board.spaces[s].name,
                            "houses": self.houses[s],
                            "apartment": self.apartment[s],
                            "mortgaged": self.mortgaged[s],
                        }
                        for s in self.titles_of(p)
                    ],
                }
            )
        pending = self.pending
        return {
            "players": players,
            "treasury": {
                "balance": self.treasury,
                "houses": self.supply_houses,
                "apartments": self.supply_apartments,
            },
            "round": self.round,
            "phase": self.phase,
            "pending": None if pending is None else self._pending_dict(pending),
            "winner": None if self.winner is None else self.names[self.winner],
            "end_reason": self.end_reason,
        }

    def _pending_dict(self, pending: Pending) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.names[pending.player], "choices": list(pending.kinds)}
        if pending.phase == INCOME_TAX:
            options = self.tax_options(pending.player)
            out["income_tax"] = {"flat": options.flat, "percent": options.percent}
        return out

    def __repr__(self) -> str:
        state = "over" if self.over else f"{self.names[self.actor]} to decide ({self.phase})"
        return f"<Game seed={self.seed} round={self.round} {state}>"

    def _repr_html_(self) -> str:
        from ..render import board_html

        return board_html(self)


# a title's choice kind -> its legality in the rules core
_TITLE_RULES = {
    "build": core.why_not_build,
    "sell_building": core.why_not_sell_building,
    "mortgage": core.why_not_mortgage,
    "redeem": core.why_not_redeem,
}

# choice kind -> the method that carries it out (a dict beats getattr on the hot path)
_HANDLERS = {kind: getattr(Game, "_do_" + kind) for kind in CHOICE_KINDS}


class LegalChoices(Sequence[Choice]):
    """The legal choices of the moment, computed on first use."""

    __slots__ = ("_game", "_items")

    def __init__(self, game: Game) -> None:
        self._game = game
        self._items: list[Choice] | None = None

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self._game.legal_kinds())

    def _all(self) -> list[Choice]:
        if self._items is None:
            self._items = self._game.legal_choices()
        return self._items

    def __getitem__(self, index: Any) -> Any:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Any:
        return iter(self._all())

    def __contains__(self, choice: object) -> bool:
        return choice in self._all()
