"""The game: state, legal choices, applying a choice, the log, save, load and undo.

One `Game` is one play of Anti-Monopoly. At every moment `game.pending` says whose decision it
is and which kinds of choice are legal; `game.apply(choice)` carries one out, or raises
`IllegalChoice` naming the rule and leaves the state untouched. Chance (dice, card order) comes
from one seeded stream, so a game is its set-up plus its decisions: that is what a save holds,
and undo replays all but the last decision.
"""

from __future__ import annotations

import builtins
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
from .terms import NOBODY, NOT_HELD, TREASURY, PaymentReason, Phase

__all__ = [
    "GAME_TYPES",
    "NOBODY",
    "NOT_HELD",
    "TREASURY",
    "BuildingQuote",
    "Game",
    "LandingOutcome",
    "LegalChoices",
    "Pending",
    "Phase",
    "PlayerSetup",
    "Setup",
    "StateView",
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


# more than any cash: a trade's payment as the rules core reads it (a C long long compiled)
_MOST_CASH = 2**62
# the rules core's field of the turns a seat has been held
_HELD = core.SEAT_FIELDS.index("held")


@lru_cache(maxsize=8)
def _city_codes(board: Board) -> dict[str, int]:
    """Each city's code in the rules' tables (its position among the board's cities)."""
    return {city: k for k, city in enumerate(board.cities)}


def _group_name(board: Board, group: int) -> str:
    """A group of the rules core's counts (`core.State.group_held`) in words: a city, the
    transports or the utilities."""
    for name, code in core.GROUP_CODES.items():
        if group == code:
            return f"the {name}"
    return list(board.cities)[group]


@lru_cache(maxsize=8)
def _deck_positions(board: Board, role: int) -> dict[str, int]:
    """Each card's position in its role's deck (how the rules' tables number the cards)."""
    return {card.id: k for k, card in enumerate(board.deck(role))}


class Column(Sequence[Any]):
    """One field of the game's state for every seat or space, read-only (`game.cash[p]`,
    `game.owner[space]`): a view of the rules core's `State`, never a copy."""

    __slots__ = ("_field", "_read", "_size")

    def __init__(self, read: Any, field: int, size: int) -> None:
        self._read = read
        self._field = field
        self._size = size

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self._read(self._field, i) for i in range(self._size)[index]]
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError(index)
        return self._read(self._field, index)

    def __iter__(self) -> Any:
        read, field = self._read, self._field
        return (read(field, i) for i in range(self._size))

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self) -> str:
        return repr(list(self))


def _game_of(owner: Any) -> Game:
    """The game a field is read from: the game itself, or the game of its `StateView`."""
    return owner if isinstance(owner, Game) else owner._game


def _seat_column(field: str) -> Any:
    code = core.SEAT_FIELDS.index(field)

    def read(owner: Any) -> Column:
        game = _game_of(owner)
        return Column(game._state.seat_value, code, len(game.names))

    return builtins.property(read, doc=f"Each seat's {field.replace('_', ' ')} (read-only).")


def _space_column(field: str) -> Any:
    code = core.SPACE_FIELDS.index(field)

    def read(owner: Any) -> Column:
        game = _game_of(owner)
        return Column(game._state.space_value, code, len(game.board.spaces))

    return builtins.property(read, doc=f"Each space's {field.replace('_', ' ')} (read-only).")


def _state_value(name: str, doc: str) -> Any:
    def read(owner: Any) -> Any:
        return getattr(_game_of(owner)._state, name)

    return builtins.property(read, doc=doc)


class Game:
    """One game of Anti-Monopoly, from its set-up and the decisions taken so far.

    The state is the rules core's `State` (the one the batches play on too); `Game` adds what
    people need: parsing choices, the events (the state tells `_note` of each step), saves and
    undo. Its fields read as before (`game.cash[p]`, `game.owner[space]`, `game.phase`, ...),
    read-only: a scenario (`Setup`) says where a game starts."""

    __slots__ = (
        "_answers",
        "_choices",
        "_forced_dice",
        "_offer",
        "_state",
        "_table",
        "_tables",
        "_weighed",
        "board",
        "decisions",
        "events",
        "names",
        "roles",
        "rules",
        "setup",
    )

    # -- construction -------------------------------------------------------------------
    def __init__(self, setup: Setup, board: Board | None = None) -> None:
        self.board = board or standard_board()
        validate_setup(setup, self.board)
        self.setup = setup
        self.rules = rules = setup.rules
        self.names = tuple(p.name for p in setup.players)
        self.roles = tuple(p.role for p in setup.players)
        self._table = ev.Table(self.names, self.roles, self.board)
        self._tables = tables = rule_tables(self.board, rules)
        state = core.State()
        state.reset(tables, list(self.roles), GAME_TYPES.index(setup.game_type), setup.seed)
        for seat, player in enumerate(setup.players):
            state.place_seat(
                seat,
                rules.starting_cash if player.cash is None else player.cash,
                player.position,
                NOT_HELD if player.held is None else player.held,
            )
            for title in player.titles:
                state.place_title(
                    title.space, seat, title.houses, int(title.apartment), int(title.mortgaged)
                )
        for role in (COMPETITOR, MONOPOLIST):
            if setup.cards[role]:
                positions = _deck_positions(self.board, role)
                state.force_cards(role, [positions[card] for card in setup.cards[role]])
        self._forced_dice = deque(setup.dice)
        self.events: list[ev.Event] = []
        self.decisions: list[Choice] = []
        self._offer: Trade | None = None
        self._answers = _Answers(self)
        self._choices = core.Choices()  # the rules core's scratch for `legal_codes`
        self._weighed: Trade | None = None
        self._state = state
        self._listen()
        core.begin_turn(state, tables, 0)

    def _listen(self) -> None:
        """The state tells this game of its steps (the events) and asks it for forced dice."""
        self._state.sink = self._note
        self._state.forced = self._force if self._forced_dice else None

    # -- the state, read-only (the rest of it: `game.state`) ---------------------------------
    cash = _seat_column("cash")
    position = _seat_column("position")
    bankrupt = _seat_column("bankrupt")
    owner = _space_column("owner")
    houses = _space_column("houses")
    apartment = _space_column("apartment")
    mortgaged = _space_column("mortgaged")
    round = _state_value("round", "The round being played (the first is 1).")
    current = _state_value("current", "The seat whose turn it is.")
    actor = _state_value("actor", "The seat whose decision it is.")

    @builtins.property
    def phase(self) -> Phase:
        """What kind of decision the game waits for."""
        return core.PHASES[self._state.phase]

    @builtins.property
    def winner(self) -> int | None:
        """The winning seat once the game is over (None: no winner, or not over)."""
        winner = self._state.winner
        return None if winner == NOBODY else winner

    @builtins.property
    def end_reason(self) -> str | None:
        """How the game ended (`core.ENDINGS`), None while it goes on."""
        reason = self._state.end_reason
        return None if reason < 0 else core.ENDINGS[reason]

    @builtins.property
    def state(self) -> StateView:
        """Everything else the state holds, read-only: the Treasury, the supply, the turns
        held, the offer on the table, the final accounting, the debts and the decks."""
        return StateView(self)

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
        return Pending(self.actor, self.phase, tuple(self._legal_kinds()))

    @property
    def over(self) -> bool:
        return self.phase == OVER

    def _seat(self, key: int | str) -> int:
        """A seat number from a player's index or name."""
        if isinstance(key, int) and not isinstance(key, bool) and 0 <= key < len(self.names):
            return key
        for seat, name in enumerate(self.names):
            if name.casefold() == str(key).strip().casefold():
                return seat
        raise KeyError(f"there is no player {quoted(key)}; players: {', '.join(self.names)}")

    def is_held(self, player: int) -> bool:
        """Is the player held in Prison (a Monopolist) or Price War (a Competitor)?"""
        return self._state.seat_value(_HELD, player) != NOT_HELD

    # -- money and titles (the UI, bots and analysis read these; they never recompute a rule) --
    def titles_of(self, player: int) -> list[int]:
        return [s for s in self.board.titles if self.owner[s] == player]

    def is_monopolized(self, player: int, city: str) -> bool:
        """Decision 5: a monopolist's city is monopolized while they own enough unmortgaged streets."""
        code = _city_codes(self.board)[city]
        return bool(core.is_monopolized(self._state, self._tables, player, code))

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
        state = self._state
        dice = self.rules.settlement_utility_dice if dice_total is None else dice_total
        basis = state.rent_basis_of(space, houses, apartment, mortgaged)
        return (
            state.rent_if(space, houses, apartment, mortgaged, dice),
            core.RENT_BASES[basis],
            state.rent_count_of(space, basis, houses),
        )

    def tax_options(self, player: int) -> TaxOptions:
        """Decision 1: both income-tax amounts, and the sums behind the percentage."""
        prop = core.taxed_property(self._state, self._tables, player)
        improvements = core.taxed_improvements(self._state, self._tables, player)
        role = self.roles[player]
        rates = self.rules.income_tax_percents(role)
        cash = self.cash[player]
        percent = core.tax_percent(self._tables, role, cash, prop, improvements)
        return TaxOptions(self.rules.income_tax_flat, percent, cash, prop, improvements, rates)

    def rule25_wealth(self, player: int) -> int:
        """Decision 11: cash + one landing's rent on every unmortgaged title (utilities at 7)."""
        return self._state.rule25_wealth(player)

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
        state = self._state
        return [(self.cash[p], *state.wealth_of(p)) for p in range(len(self.names))]

    # -- legal choices ---------------------------------------------------------------------
    def _legal_kinds(self) -> list[str]:
        """The kinds of choice legal now, each with at least one legal instance (the rules
        core's `legal_kinds`, one call)."""
        mask = core.legal_kinds(self._state, self._choices)
        return [kind for kind, bit in _KIND_BITS[self._state.phase] if mask & bit]

    def legal_choices(self) -> list[Choice]:
        """Every legal choice now, each with its argument; trades (open-ended) are left out:
        test one with `is_legal`. The rules core's `legal_codes` lists them, in one call (the
        batches' bots read the same list)."""
        choices = self._choices
        core.legal_codes(self._state, choices)
        return [_choice_of(code) for code in choices.as_list()]

    def targets(self, kind: str) -> list[int]:
        """The titles on which `kind` (build, sell_building, mortgage, redeem) is legal now:
        the actor's titles the rules core's legality lets through (`core.title_targets`, one
        call for the whole list)."""
        if kind not in PHASE_KINDS[self.phase]:
            return []
        state = self._state
        return core.found_list(state, core.title_targets(state, core.TITLE_ACTIONS.index(kind)))

    def _title_refusal(self, kind: str, space: int) -> int:
        """Why the actor may not `kind` (build, sell_building, mortgage, redeem) the title on
        `space`: a refusal code of the rules core (`core.REFUSALS`), 0 when allowed."""
        return _TITLE_RULES[kind](self._state, self._tables, self.actor, space)

    def _trade_refusal(self, trade: Trade) -> int:
        """Why the actor may not propose `trade` (its fields whole numbers): a refusal of the
        rules core (`core.refusal_code`, `core.refused_at`), 0 when allowed."""
        self._weigh(trade)
        try:
            return core.why_not_trade(self._state, self._tables, self.actor)
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

    def building(self, space: int) -> BuildingQuote:
        """What one more building, or one building sold, means on this owned street now: the
        next building and the rent once it stands, what selling one returns, and what was
        paid for those standing (the rules core's answers; the game is only read)."""
        state, tables = self._state, self._tables
        role = self.roles[self.owner[space]]
        houses, apartment = self.houses[space], self.apartment[space]
        return BuildingQuote(
            next="apartment" if core.next_is_apartment(tables, role, houses) else "house",
            rent_after=state.rent_built(space),
            sale=_building(apartment),
            sale_value=core.building_sale_value(tables, space, role, houses, apartment),
            paid=state.paid_for(space),
        )

    def is_legal(self, choice: Any) -> bool:
        try:
            return why_not(self, self.parse_choice(choice), self._answers) is None
        except (IllegalChoice, KeyError, ValueError):
            return False

    def check(self, choice: Any) -> Choice:
        """The choice as a `Choice`, or IllegalChoice naming the rule it breaks."""
        parsed = self.parse_choice(choice)
        problem = why_not(self, parsed, self._answers)
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
        return Trade(other=self._seat(raw["with"]), give=sides["give"], get=sides["get"], pay=pay)

    # -- applying a choice ----------------------------------------------------------------------
    def apply(self, choice: Any, player: int | str | None = None) -> list[ev.Event]:
        """Carry out one decision for the pending player and return the events it caused.

        `player`, if given, must be the pending player (a stale button raises IllegalChoice).
        """
        if player is not None and self.phase != OVER:
            seat = self._seat(player)
            if seat != self.actor:
                raise IllegalChoice(
                    f"it is {self.names[self.actor]}'s decision, not {self.names[seat]}'s", R_TURN
                )
        if type(choice) is Choice and (choice.arg is None or type(choice.arg) is int):
            parsed = choice  # a choice the engine handed out: nothing to read
            problem = why_not(self, parsed, self._answers)
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

    # -- the events: what the state tells of its steps (`core.NOTES`), as the engine's events
    def _note(self, code: int, *args: Any) -> None:
        self.events.append(_NOTES[code](self, *args))

    def _force(self, count: int) -> tuple[int, ...] | None:
        """A scenario's next forced throw, or None when there is none left (the stream
        throws)."""
        if not self._forced_dice:
            return None
        dice = self._forced_dice.popleft()
        if len(dice) != count:
            raise ScenarioError(
                f"the next forced throw {list(dice)} has {len(dice)} dice, but this throw needs {count}",
                field="dice",
            )
        return tuple(dice)

    def _tax_event(self, cls: type[ev.IncomeTaxDue], p: int, *choice: str) -> ev.IncomeTaxDue:
        o = self.tax_options(p)
        return cls(
            self._table, p, o.flat, o.percent, o.cash, o.property, o.improvements, o.rates, *choice
        )

    def _weigh(self, trade: Trade) -> None:
        """The trade whose legality the rules core weighs (or that is proposed), in its form."""
        n = len(self.board.spaces)
        if len(trade.give) > n or len(trade.get) > n:  # the state holds as many as the board
            raise ValueError(f"a trade lists at most {n} titles a side")
        other = trade.other if 0 <= trade.other < len(self.names) else NOBODY
        # a number beyond a C int stands for itself as a space off the board
        give = [s if -(2**31) <= s < 2**31 else n for s in trade.give]
        get = [s if -(2**31) <= s < 2**31 else n for s in trade.get]
        pay = max(-_MOST_CASH, min(trade.pay, _MOST_CASH))  # beyond any cash, in a C long long
        self._state.proposal.fill(other, give, get, pay)
        self._weighed = trade

    # decisions: each a transition of the rules core on the state
    def _do_roll(self, _: None) -> None:
        core.roll(self._state, self._tables, self._state.current)

    def _do_end_turn(self, _: None) -> None:
        core.end_turn(self._state, self._tables, self._state.current)

    def _do_buy(self, _: None) -> None:
        core.buy_title(self._state, self._tables, self._state.current)

    def _do_decline(self, _: None) -> None:
        core.decline_title(self._state, self._tables, self._state.current)

    def _do_income_tax(self, option: str) -> None:
        core.income_tax(self._state, self._tables, self._state.current, option == "percent")

    def _do_pay_fine(self, _: None) -> None:
        core.pay_fine(self._state, self._tables, self._state.current)

    def _do_build(self, space: int) -> None:
        core.build(self._state, self._tables, self._state.actor, space)

    def _do_sell_building(self, space: int) -> None:
        core.sell_building(self._state, self._tables, self._state.actor, space)

    def _do_mortgage(self, space: int) -> None:
        core.mortgage(self._state, self._tables, self._state.actor, space)

    def _do_redeem(self, space: int) -> None:
        core.redeem(self._state, self._tables, self._state.actor, space)

    def _do_trade(self, trade: Trade) -> None:
        self._weigh(trade)
        try:
            core.propose_trade(self._state, self._tables, self._state.actor)
        finally:
            self._weighed = None

    def _do_accept(self, _: None) -> None:
        self._answer(True)

    def _do_reject(self, _: None) -> None:
        self._answer(False)

    def _answer(self, accepted: bool) -> None:
        core.answer_trade(self._state, self._tables, int(accepted))
        self._offer = None

    def _do_end_game(self, _: None) -> None:
        core.start_final(self._state, self._tables, END_TWO_HOUR)

    # -- log, save, load, undo ------------------------------------------------------------------
    def undo(self, count: int = 1) -> None:
        """Take back the last `count` decisions by replaying the rest from the set-up."""
        if count < 1 or count > len(self.decisions):
            raise IllegalChoice(
                f"there {'is' if len(self.decisions) == 1 else 'are'} only {len(self.decisions)} decisions to undo",
                "undo",
            )
        replayed = Game.replay(self.setup, self.decisions[:-count], self.board)
        for name in ("_forced_dice", "_state", "decisions", "events", "_offer"):
            setattr(self, name, getattr(replayed, name))
        self._listen()

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

    def __repr__(self) -> str:
        state = "over" if self.over else f"{self.names[self.actor]} to decide ({self.phase})"
        return f"<Game seed={self.setup.seed} round={self.round} {state}>"


# a title's choice kind -> its legality in the rules core
_TITLE_RULES = {
    "build": core.why_not_build,
    "sell_building": core.why_not_sell_building,
    "mortgage": core.why_not_mortgage,
    "redeem": core.why_not_redeem,
}

# choice kind -> the method that carries it out (a dict beats getattr on the hot path)
_HANDLERS = {kind: getattr(Game, "_do_" + kind) for kind in CHOICE_KINDS}


def _building(apartment: int) -> str:
    return "apartment" if apartment else "house"


def _trade_proposed(game: Game, p: int) -> ev.Event:
    trade = game._weighed
    assert trade is not None
    game._offer = trade
    return ev.TradeProposed(game._table, p, trade.other, trade.give, trade.get, trade.pay)


def _trade_answered(game: Game, accepted: int) -> ev.Event:
    trade = game._offer
    assert trade is not None
    return ev.TradeAnswered(
        game._table, trade.other, game.current, bool(accepted), trade.give, trade.get, trade.pay
    )


def _game_over(game: Game, winner: int, reason: int) -> ev.Event:
    state = game._state
    if core.ENDINGS[reason] == "game_b":
        scores = tuple(state.rule25_wealth(p) for p in range(len(game.names)))
    else:
        scores = tuple(game.cash)
    return ev.GameOver(
        game._table, None if winner == NOBODY else winner, core.ENDINGS[reason], scores
    )


# each record of the state (`core.NOTES`, by its code) -> the event it stands for
_NOTES: tuple[Any, ...] = tuple(
    {
        "purchased": lambda g, p, space, price: ev.Purchased(g._table, p, space, price),
        "declined": lambda g, p, space: ev.Declined(g._table, p, space),
        "built": lambda g, p, space, apartment, cost: ev.Built(
            g._table, p, space, _building(apartment), cost
        ),
        "building_sold": lambda g, p, space, apartment, refund: ev.BuildingSold(
            g._table, p, space, _building(apartment), refund
        ),
        "mortgaged": lambda g, p, space, amount: ev.Mortgaged(g._table, p, space, amount),
        "redeemed": lambda g, p, space, amount: ev.Redeemed(g._table, p, space, amount),
        "tax_chosen": lambda g, p, percent: g._tax_event(
            ev.IncomeTaxChoice, p, "percent" if percent else "flat"
        ),
        "payment": lambda g, payer, payee, amount, reason, space, percent: ev.Payment(
            g._table, payer, payee, amount, PAYMENT_REASONS[reason], space, percent
        ),
        "left_hold": lambda g, p, by_doubles: ev.LeftHold(
            g._table, p, "doubles" if by_doubles else "fine"
        ),
        "trade_proposed": _trade_proposed,
        "trade_answered": _trade_answered,
        "rent_owed_nothing": lambda g, p, owner, space, basis: ev.NoRent(
            g._table, p, owner, space, core.RENT_BASES[basis]
        ),
        "income_tax_due": lambda g, p: g._tax_event(ev.IncomeTaxDue, p),
        "sent_to_hold": lambda g, p, by_card: ev.SentToHold(
            g._table, p, "card" if by_card else "space"
        ),
        "dice": lambda g, purpose, dice: ev.DiceThrown(
            g._table, g.actor, tuple(dice), core.THROWS[purpose]
        ),
        "card": lambda g, p, role, index: ev.CardDrawn(g._table, p, g.board.deck(role)[index].id),
        "final_accounting": lambda g, reason: ev.FinalAccounting(g._table, core.ENDINGS[reason]),
        "treasurer_paid": lambda g, owner, space, amount: ev.TreasurerPaid(
            g._table, owner, space, amount
        ),
        "game_over": _game_over,
        "rent_paid": lambda g, p, owner, space, amount, basis, count, dice: ev.RentPaid(
            g._table, p, owner, space, amount, core.RENT_BASES[basis], count, dice
        ),
        "must_raise": lambda g, d, creditor, amount, cash: ev.MustRaiseMoney(
            g._table, d, creditor, amount, cash
        ),
        "bankrupt": lambda g, d, creditor, debt, cash, titles: ev.Bankrupt(
            g._table, d, creditor, debt, cash, tuple(titles)
        ),
        "turn_started": lambda g, p, round_number: ev.TurnStarted(g._table, p, round_number),
        "stayed_held": lambda g, p, turns: ev.StayedHeld(g._table, p, turns),
        "moved": lambda g, p, start, end, by: ev.Moved(g._table, p, start, end, core.MOVES[by]),
    }[name]
    for name in core.NOTES
)


# each phase's kinds, with the bits of their codes in `core.legal_kinds`' answer
_KIND_BITS = tuple(
    tuple(
        (
            kind,
            sum(
                1 << c for c, name in enumerate(core.CHOICE_CODES) if name.partition(":")[0] == kind
            ),
        )
        for kind in PHASE_KINDS[phase]
    )
    for phase in core.PHASES
)


@lru_cache(maxsize=1024)
def _choice_of(code: int) -> Choice:
    """The `Choice` a code of the rules core stands for (`core.as_choice`)."""
    return core.as_choice(code)


class _Answers:
    """The rules core's legality codes for one game (`refusals.RulesAnswers`)."""

    __slots__ = ("_game",)

    def __init__(self, game: Game) -> None:
        self._game = game

    def pay_fine(self) -> int:
        game = self._game
        return core.why_not_pay_fine(game._state, game._tables, game.actor)

    def buy(self) -> int:
        game = self._game
        return core.why_not_buy(game._state, game._tables, game.actor)

    def end_game(self) -> int:
        game = self._game
        return core.why_not_end_game(game._state, game._tables)

    def title(self, kind: str, space: int) -> int:
        return self._game._title_refusal(kind, space)

    def trade(self, trade: Trade) -> int:
        return self._game._trade_refusal(trade)

    def kinds(self) -> list[str]:
        return self._game._legal_kinds()


class StateView:
    """The rest of a game's state, read-only (`game.state`): what the rules core's `State`
    holds beyond the seats' cash, positions and titles that `Game` shows itself."""

    __slots__ = ("_game",)

    def __init__(self, game: Game) -> None:
        self._game = game

    @property
    def core(self) -> Any:
        """The rules core's `State` itself (`amteach.engine.core`), for code that reads its
        arrays directly, as the bots do (`amteach.bots.core`): read it, never change it
        (changes go through `Game.apply`). Undo replaces it: read it again after one."""
        return self._game._state

    held = _seat_column("held")
    turns_taken = _seat_column("turns_taken")
    mortgage_values = _space_column("mortgage_values")
    redeem_values = _space_column("redeem_values")
    treasury = _state_value("treasury", "The Treasury's balance.")
    total_money = _state_value("total_money", "Cash plus the Treasury: constant in a game.")
    supply_houses = _state_value("supply_houses", "The houses the Treasury has.")
    supply_apartments = _state_value("supply_apartments", "The apartments the Treasury has.")
    last_dice = _state_value("last_dice", "The move's throw (a utility's rent reads it).")
    pending_buy = _state_value("pending_buy", "The title offered for purchase (BUY phase).")
    leader_at_final = _state_value(
        "leader_at_final", "The seat with the most cash when the final accounting began."
    )

    @property
    def offer(self) -> Trade | None:
        """The trade on the table, waiting for its answer (None when there is none)."""
        return self._game._offer

    @property
    def is_extra(self) -> bool:
        """Is this turn's throw the extra throw after doubles?"""
        return bool(self._game._state.is_extra)

    @property
    def final_reason(self) -> str:
        """Why the final accounting began ("" before it)."""
        state = self._game._state
        return core.ENDINGS[state.final_reason] if state.began_final else ""

    @property
    def cash_at_final(self) -> tuple[int, ...] | None:
        """Each seat's cash when the final accounting began (None before it)."""
        game = self._game
        state = game._state
        if not state.began_final:
            return None
        field = core.SEAT_FIELDS.index("cash_at_final")
        return tuple(state.seat_value(field, p) for p in range(len(game.names)))

    @property
    def final_queue(self) -> tuple[int, ...]:
        """The seats still to adjust in the final accounting, the one adjusting first."""
        return tuple(self._game._state.adjusters())

    @property
    def decks(self) -> tuple[deque[str], ...]:
        """Each role's deck (card ids) from the next card on."""
        game = self._game
        return tuple(
            deque(game.board.deck(role)[k].id for k in game._state.card_order(role))
            for role in (COMPETITOR, MONOPOLIST)
        )

    @property
    def debts(self) -> tuple[tuple[int, int, int], ...]:
        """The debts queued, first first: (debtor, creditor, amount) each."""
        return tuple(self._game._state.debts_owed())

    def monopoly_count(self, player: int, city: str) -> int:
        """How many unmortgaged streets of `city` the player owns."""
        game = self._game
        return game._state.monopoly_count(player, _city_codes(game.board)[city])

    def liquidation_value(self, player: int) -> int:
        """Cash plus all that selling every building and mortgaging every title would raise."""
        return self._game._state.liquidation_value(player)

    def invariant_violations(self) -> list[str]:
        """What must hold after every decision, one sentence for each thing that does not:
        cash plus the Treasury's balance is constant; the building supply balances; no cash
        is negative; a Monopolist with buildings in a city has its monopoly; held players
        stand on the hold space; the rules core's kept counts of titles and sums of net worth
        are what the board says. Empty when all is well (the rules core's `invariants`, which
        `amteach simulate --check-invariants` counts)."""
        game = self._game
        found: list[tuple[Any, ...]] = []
        core.invariants(game._state, found)
        names, spaces, rules = game.names, game.board.spaces, game.rules
        out = []
        for name, *numbers in found:
            if name == "negative_cash":
                p, cash = numbers
                out.append(f"{names[p]} has negative cash (${cash})")
            elif name == "held_off_hold":
                p, position = numbers
                out.append(f"{names[p]} is held but stands on space {position}")
            elif name == "money":
                money, total = numbers
                out.append(f"cash plus the Treasury is ${money}, not ${total}")
            elif name == "monopoly":
                owner, space = numbers
                out.append(
                    f"{names[owner]} has buildings on {spaces[space].name} "
                    f"without a monopoly of {spaces[space].city}"
                )
            elif name == "supply":
                houses, apartments = numbers
                out.append(
                    f"{houses} houses and {apartments} apartments in all, not "
                    f"{rules.supply_houses} and {rules.supply_apartments}"
                )
            elif name == "counts":  # the core's count of a seat's titles of a group
                p, group, counted, held = numbers
                out.append(
                    f"{names[p]} is counted as holding {counted} unmortgaged titles of "
                    f"{_group_name(game.board, group)}, but holds {held}"
                )
            elif name == "held_titles":  # the core's list of a seat's titles
                p, listed, held = numbers
                out.append(
                    f"{names[p]}'s titles are listed as {listed}, not as the {held} "
                    "titles held, in board order"
                )
            else:  # "wealth": the core's sums of a seat's titles and buildings in net worth
                p, titles, buildings, worth, paid = numbers
                out.append(
                    f"{names[p]}'s titles are counted at ${titles} and buildings at "
                    f"${buildings}, but they are worth ${worth} and cost ${paid}"
                )
        return out

    def as_dict(self) -> dict[str, Any]:
        """The state as plain data (the scenario runner's output, and save/load comparison)."""
        game = self._game
        players = []
        for p in range(len(game.names)):
            held = game.is_held(p)
            players.append(
                {
                    "name": game.names[p],
                    "role": ROLES[game.roles[p]],
                    "cash": game.cash[p],
                    "position": game.position[p],
                    "held": held,
                    "held_turns": self.held[p] if held else None,
                    "bankrupt": game.bankrupt[p],
                    "net_worth": game.wealth(p)["net_worth"],
                    "rule25_wealth": game.rule25_wealth(p),
                    "titles": [
                        {
                            "space": s,
                            "name": game.board.spaces[s].name,
                            "houses": game.houses[s],
                            "apartment": game.apartment[s],
                            "mortgaged": game.mortgaged[s],
                        }
                        for s in game.titles_of(p)
                    ],
                }
            )
        pending = game.pending
        return {
            "players": players,
            "treasury": {
                "balance": self.treasury,
                "houses": self.supply_houses,
                "apartments": self.supply_apartments,
            },
            "round": game.round,
            "phase": game.phase,
            "pending": None if pending is None else self._pending_dict(pending),
            "winner": None if game.winner is None else game.names[game.winner],
            "end_reason": game.end_reason,
        }

    def _pending_dict(self, pending: Pending) -> dict[str, Any]:
        game = self._game
        out: dict[str, Any] = {"player": game.names[pending.player], "choices": list(pending.kinds)}
        if pending.phase == INCOME_TAX:
            options = game.tax_options(pending.player)
            out["income_tax"] = {"flat": options.flat, "percent": options.percent}
        return out


@dataclass(frozen=True)
class BuildingQuote:
    """What one more building, or one building sold, means on a street now (`Game.building`)."""

    next: str  # "house", or "apartment" once the owner's role has its most houses there
    rent_after: int  # one landing's rent once that building stands
    sale: str  # what selling one building sells: "apartment" or "house"
    sale_value: int  # what selling it returns (an apartment returns part of all paid)
    paid: int  # what was paid for the buildings standing (the income tax's improvements)


class LegalChoices(Sequence[Choice]):
    """The legal choices of the moment, computed on first use."""

    __slots__ = ("_game", "_items")

    def __init__(self, game: Game) -> None:
        self._game = game
        self._items: list[Choice] | None = None

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self._game._legal_kinds())

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
