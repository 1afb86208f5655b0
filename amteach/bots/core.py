# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
# cython: cdivision=True, nonecheck=False, infer_types=True, auto_pickle=False
"""Every decision of the built-in bots and of the family, written once (issue 26).

The four named bots (cautious, builder, investor, random) and the family of strategies
(`amteach.bots.family`) decide here, for both cores. They read the game through a `View`, a
small read interface (whose turn it is, cash, owners, buildings, rents, the offer on the table,
the titles a choice may name), and answer with a choice code (`choice(kind, arg)`):

- `EngineView` reads a `Game` (amteach/engine/game.py): the classes of
  `amteach.bots.strategies` and `amteach.bots.family` keep their names and hooks and hand each
  decision to the functions below through it.
- The compiled kernel (amteach/sim/kernel.py) implements `View` on its own game state, so a
  batch runs the same functions compiled.

What a bot remembers between decisions (its offers, the buildings of its turn, its landing
weights) is a `BotState`. The vocabulary matched by position (phases, choice kinds, bot names,
tax behaviours, the family's knobs) is defined here once, from the engine's own names where
it has them; the kernel and the Python classes take it from here.

This module is Cython's pure-Python mode: `core.pxd` beside it types the state as C arrays and
the functions as C functions, and `setup.py` compiles the two; uncompiled, it runs as plain
Python and gives the same decisions. `amteach.bots.builds` says which build the bots use.
"""

# ruff: noqa: SIM102, SIM108, SIM109
# (one `if` per rule of a bot, as the bots read; `==` chains on C ints compile to plain C)

from functools import lru_cache

import cython

from amteach.engine import choices as engine_choices
from amteach.engine.choices import CHOICE_KINDS, TAX_OPTIONS, TITLE_CHOICES, Choice, Trade
from amteach.engine.odds import landing_odds
from amteach.engine.terms import Phase

# compiled (the extension) or plain Python (this file run as it is)
COMPILED = cython.compiled
if cython.compiled:
    # the SHA-256 of this file, core.pxd and the rules core it cimports, when compiled
    # (setup.py passes it in), so that amteach.bots.builds never uses a stale build
    SOURCE_SHA256 = AMTEACH_BOTS_SHA256.decode("ascii")  # noqa: F821 (core.pxd)
else:
    SOURCE_SHA256 = None

# the rules core, compiled with this one or run as plain Python with it (as the kernel does)
if cython.compiled:
    from amteach.engine import core as rules
else:
    from amteach.engine.builds import source_core

    rules = source_core()

# -- sizes (core.pxd writes them as numbers) --------------------------------------------------
MAX_SPACES = 40
MAX_CITIES = 16
MAX_CHOICES = 4 * 40
CHOICE_BASE = 16  # a choice code is kind + CHOICE_BASE * (argument + 1)

# -- the vocabulary, each code the position of a name (the board's: the rules core's codes) ----
NOBODY = rules.NOBODY
COMPETITOR = rules.COMPETITOR
MONOPOLIST = rules.MONOPOLIST
K_STREET = rules.K_STREET
K_TRANSPORT = rules.K_TRANSPORT

# the engine's phases, in their order (amteach.engine.terms.Phase)
PHASES = tuple(Phase)
PRE_ROLL = PHASES.index(Phase.PRE_ROLL)
BUY_PHASE = PHASES.index(Phase.BUY)
INCOME_TAX = PHASES.index(Phase.INCOME_TAX)
RAISE = PHASES.index(Phase.RAISE)
POST_ROLL = PHASES.index(Phase.POST_ROLL)
TRADE_ANSWER = PHASES.index(Phase.TRADE_ANSWER)
FINAL_ADJUST = PHASES.index(Phase.FINAL_ADJUST)
OVER = PHASES.index(Phase.OVER)

# the kinds of choice: "none" (a hook with nothing to do), then the engine's kinds in their
# order, the income tax split by its two options
CHOICE_CODES = (
    "none",
    *(
        name
        for kind in CHOICE_KINDS
        for name in (
            (f"{kind}:{option}" for option in TAX_OPTIONS) if kind == "income_tax" else (kind,)
        )
    ),
)
C_NONE = CHOICE_CODES.index("none")
C_ROLL = CHOICE_CODES.index("roll")
C_BUY = CHOICE_CODES.index("buy")
C_DECLINE = CHOICE_CODES.index("decline")
C_BUILD = CHOICE_CODES.index("build")
C_SELL = CHOICE_CODES.index("sell_building")
C_MORTGAGE = CHOICE_CODES.index("mortgage")
C_REDEEM = CHOICE_CODES.index("redeem")
C_TAX_FLAT = CHOICE_CODES.index("income_tax:flat")
C_TAX_PERCENT = CHOICE_CODES.index("income_tax:percent")
C_PAY_FINE = CHOICE_CODES.index("pay_fine")
C_TRADE = CHOICE_CODES.index("trade")
C_ACCEPT = CHOICE_CODES.index("accept")
C_REJECT = CHOICE_CODES.index("reject")
C_END_TURN = CHOICE_CODES.index("end_turn")
C_END_GAME = CHOICE_CODES.index("end_game")

# the bots by name: the order of amteach.bots.registry.STRATEGIES (the named bots, then the
# family); a bot of the base class `Bot` is of no kind
BOTS = ("cautious", "builder", "investor", "random", "family")
BOT_PLAIN = -1
BOT_CAUTIOUS = BOTS.index("cautious")
BOT_BUILDER = BOTS.index("builder")
BOT_INVESTOR = BOTS.index("investor")
BOT_RANDOM = BOTS.index("random")
BOT_FAMILY = BOTS.index("family")
# each kind's cash reserve and the margin it asks of a trade (a family bot's are its knobs)
PLAIN_RESERVE = 200
RESERVES = (400, 75, 150, 0, 0)
MARGINS = (1.0, 0.2, 0.2, 0.2, 0.0)
PLAIN_MARGIN = 0.2
MIN_RETURN = 0.005  # the investor's least expected rent per round per dollar of a building
TRADE_RATE = 0.05  # how often the random bot offers a trade when it may

TAX_BEHAVIOURS = ("cheaper", "flat", "percent")
TAX_RANDOM = -1  # the random bot without a tax behaviour chooses at random
TAX_CHEAPER = TAX_BEHAVIOURS.index("cheaper")
TAX_FLAT = TAX_BEHAVIOURS.index("flat")
TAX_PERCENT = TAX_BEHAVIOURS.index("percent")

# the family's knobs, in the order of a strategy's vector (amteach.bots.family.KNOBS follows it)
FAMILY_KNOBS = (
    "reserve",
    "streets",
    "transports",
    "utilities",
    "key_streets",
    "build_reserve",
    "houses",
    "apartments",
    "build_order",
    "builds_per_turn",
    "redeem_reserve",
    "raise_first",
    "tax",
    "offer",
    "accept",
    "fine_cash",
    "final_adjust",
    "team",
)
FAMILY_SIZE = len(FAMILY_KNOBS)
F_RESERVE = FAMILY_KNOBS.index("reserve")
F_STREETS = FAMILY_KNOBS.index("streets")
F_TRANSPORTS = FAMILY_KNOBS.index("transports")
F_UTILITIES = FAMILY_KNOBS.index("utilities")
F_KEY_STREETS = FAMILY_KNOBS.index("key_streets")
F_BUILD_RESERVE = FAMILY_KNOBS.index("build_reserve")
F_HOUSES = FAMILY_KNOBS.index("houses")
F_APARTMENTS = FAMILY_KNOBS.index("apartments")
F_BUILD_ORDER = FAMILY_KNOBS.index("build_order")
F_BUILDS_PER_TURN = FAMILY_KNOBS.index("builds_per_turn")
F_REDEEM_RESERVE = FAMILY_KNOBS.index("redeem_reserve")
F_RAISE_FIRST = FAMILY_KNOBS.index("raise_first")
F_TAX = FAMILY_KNOBS.index("tax")
F_OFFER = FAMILY_KNOBS.index("offer")
F_ACCEPT = FAMILY_KNOBS.index("accept")
F_FINE_CASH = FAMILY_KNOBS.index("fine_cash")
F_FINAL_ADJUST = FAMILY_KNOBS.index("final_adjust")
F_TEAM = FAMILY_KNOBS.index("team")

# what codes are matched against, with their sizes (core.pxd declares the arrays by number)
ENUM_SIZES = {
    "bots": BOT_FAMILY + 1,
    "tax_behaviours": TAX_PERCENT + 1,
    "family_knobs": F_TEAM + 1,
    "choice_kinds": C_END_GAME + 1,
    "phases": OVER + 1,
}
if (
    (len(BOTS), len(TAX_BEHAVIOURS), FAMILY_SIZE, len(CHOICE_CODES), len(PHASES))
    != tuple(ENUM_SIZES.values())
    or len(RESERVES) != len(BOTS)
    or len(MARGINS) != len(BOTS)
    or len(CHOICE_CODES) > CHOICE_BASE
    or FAMILY_SIZE != 18
):
    raise ImportError("amteach.bots.core: a vocabulary and its codes differ in size")


# The codes above by name, for Python code: compiled, a module's C globals (core.pxd) are not
# attributes of the module. tests/test_bots_core.py checks that every one is here.
CODES = {
    "MAX_SPACES": MAX_SPACES,
    "MAX_CITIES": MAX_CITIES,
    "MAX_CHOICES": MAX_CHOICES,
    "CHOICE_BASE": CHOICE_BASE,
    "NOBODY": NOBODY,
    "COMPETITOR": COMPETITOR,
    "MONOPOLIST": MONOPOLIST,
    "K_STREET": K_STREET,
    "K_TRANSPORT": K_TRANSPORT,
    "PRE_ROLL": PRE_ROLL,
    "BUY_PHASE": BUY_PHASE,
    "INCOME_TAX": INCOME_TAX,
    "RAISE": RAISE,
    "POST_ROLL": POST_ROLL,
    "TRADE_ANSWER": TRADE_ANSWER,
    "FINAL_ADJUST": FINAL_ADJUST,
    "OVER": OVER,
    "C_NONE": C_NONE,
    "C_ROLL": C_ROLL,
    "C_BUY": C_BUY,
    "C_DECLINE": C_DECLINE,
    "C_BUILD": C_BUILD,
    "C_SELL": C_SELL,
    "C_MORTGAGE": C_MORTGAGE,
    "C_REDEEM": C_REDEEM,
    "C_TAX_FLAT": C_TAX_FLAT,
    "C_TAX_PERCENT": C_TAX_PERCENT,
    "C_PAY_FINE": C_PAY_FINE,
    "C_TRADE": C_TRADE,
    "C_ACCEPT": C_ACCEPT,
    "C_REJECT": C_REJECT,
    "C_END_TURN": C_END_TURN,
    "C_END_GAME": C_END_GAME,
    "BOT_PLAIN": BOT_PLAIN,
    "BOT_CAUTIOUS": BOT_CAUTIOUS,
    "BOT_BUILDER": BOT_BUILDER,
    "BOT_INVESTOR": BOT_INVESTOR,
    "BOT_RANDOM": BOT_RANDOM,
    "BOT_FAMILY": BOT_FAMILY,
    "PLAIN_RESERVE": PLAIN_RESERVE,
    "PLAIN_MARGIN": PLAIN_MARGIN,
    "MIN_RETURN": MIN_RETURN,
    "TRADE_RATE": TRADE_RATE,
    "TAX_RANDOM": TAX_RANDOM,
    "TAX_CHEAPER": TAX_CHEAPER,
    "TAX_FLAT": TAX_FLAT,
    "TAX_PERCENT": TAX_PERCENT,
    "FAMILY_SIZE": FAMILY_SIZE,
    "F_RESERVE": F_RESERVE,
    "F_STREETS": F_STREETS,
    "F_TRANSPORTS": F_TRANSPORTS,
    "F_UTILITIES": F_UTILITIES,
    "F_KEY_STREETS": F_KEY_STREETS,
    "F_BUILD_RESERVE": F_BUILD_RESERVE,
    "F_HOUSES": F_HOUSES,
    "F_APARTMENTS": F_APARTMENTS,
    "F_BUILD_ORDER": F_BUILD_ORDER,
    "F_BUILDS_PER_TURN": F_BUILDS_PER_TURN,
    "F_REDEEM_RESERVE": F_REDEEM_RESERVE,
    "F_RAISE_FIRST": F_RAISE_FIRST,
    "F_TAX": F_TAX,
    "F_OFFER": F_OFFER,
    "F_ACCEPT": F_ACCEPT,
    "F_FINE_CASH": F_FINE_CASH,
    "F_FINAL_ADJUST": F_FINAL_ADJUST,
    "F_TEAM": F_TEAM,
}


def reals(size: int) -> list:
    """A list of zeros for a C array of doubles."""
    return [0.0] * size


def zeros(size: int) -> list:
    """A list of zeros for a C array of ints."""
    return [0] * size


def choice(kind, arg):
    """The code of a choice of `kind` (C_BUILD, ...) naming `arg` (a space), or none (-1)."""
    return kind + CHOICE_BASE * (arg + 1)


def choice_kind(code):
    return code % CHOICE_BASE


def choice_arg(code):
    return code // CHOICE_BASE - 1


# -- what a bot reads of a game ---------------------------------------------------------------


@cython.cclass
class View:
    """What a bot reads of a game. `t` is the board and the rules (the rules core's `Tables`);
    `targets` leaves its answer in `spaces`. Each core implements the methods on its own
    state: `EngineView` on a `Game`, the kernel's `KernelView` on its arrays."""

    def __init__(self):
        if not cython.compiled:  # compiled, the C arrays start zeroed
            self.spaces = zeros(MAX_SPACES)
        self.t = None

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def actor(self) -> cython.int:
        """The seat whose decision it is."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def current(self) -> cython.int:
        """The seat whose turn it is (who proposed the offer on the table)."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def phase(self) -> cython.int:
        """The phase, as its position in PHASES."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def round(self) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def seats(self) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def role(self, p: cython.int) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def bankrupt(self, p: cython.int) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def held(self, p: cython.int) -> cython.int:
        """1 when p is held in Prison or the Price War."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def cash(self, p: cython.int) -> cython.longlong:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-2, check=True)
    def owner(self, space: cython.int) -> cython.int:
        """The owner's seat, NOBODY (-1) for none."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def houses(self, space: cython.int) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def apartment(self, space: cython.int) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def mortgaged(self, space: cython.int) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def redeem_value(self, space: cython.int) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def monopoly_count(self, p: cython.int, city: cython.int) -> cython.int:
        """How many unmortgaged streets of city number `city` p owns."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def rent(self, space: cython.int) -> cython.int:
        """One landing's rent on the title now (utilities at the settlement's dice)."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def rent_after_build(self, space: cython.int) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def rent_redeemed(self, space: cython.int) -> cython.int:
        """The rent on the title were it redeemed (utilities at the settlement's dice)."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def percent_tax_is_cheaper(self, p: cython.int) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def targets(self, kind: cython.int) -> cython.int:
        """How many titles a choice of `kind` (C_BUILD, C_SELL, C_MORTGAGE, C_REDEEM) may
        name now; they are left in `spaces`, in board order."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def can_pay_fine(self) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def can_buy(self) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-2, check=True)
    def pending_buy(self) -> cython.int:
        """The title on offer in the BUY phase."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def landing_weight(self, role: cython.int, space: cython.int) -> cython.double:
        """Expected landings per round on `space` by one opponent of `role` (Markov chain)."""
        raise NotImplementedError

    # the offer to answer (TRADE_ANSWER)
    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_other(self) -> cython.int:
        """The seat asked."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_gives(self) -> cython.int:
        """How many titles the proposer gives."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_give(self, i: cython.int) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_gets(self) -> cython.int:
        """How many titles the proposer asks for."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_get(self, i: cython.int) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_pay(self) -> cython.longlong:
        """The cash the proposer pays (negative: receives)."""
        raise NotImplementedError

    # a trade the bot proposes: begun, titles added, the cash set, then checked
    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def propose(self, other: cython.int) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def propose_give(self, space: cython.int) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def propose_get(self, space: cython.int) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def proposal_gives(self) -> cython.int:
        """How many titles the proposal gives so far."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def proposal_gets(self) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def propose_pay(self, pay: cython.longlong) -> cython.int:
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def proposal_is_legal(self) -> cython.int:
        raise NotImplementedError

    # what the random bot reads
    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def trade_possible(self) -> cython.int:
        """Is a trade among the legal kinds of choice now?"""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def legal_choices(self) -> cython.int:
        """How many legal choices there are now, trades left out (see `legal_choice`)."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def legal_choice(self, i: cython.int) -> cython.int:
        """The code of legal choice i, in the engine's order."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def random(self) -> cython.double:
        """The acting bot's next random number in [0, 1) (random.Random.random)."""
        raise NotImplementedError

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def randbelow(self, n: cython.longlong) -> cython.longlong:
        """The acting bot's next random whole number below n (random.Random.randrange(n))."""
        raise NotImplementedError


# -- what a bot remembers ---------------------------------------------------------------------


@cython.cclass
class BotState:
    """One bot: its kind, tax behaviour, reserve and knobs, and what it remembers between
    decisions (offers made for each street, the buildings of its turn, landing weights)."""

    def __init__(self):
        if not cython.compiled:  # compiled, the C arrays start zeroed
            self.fam = zeros(FAMILY_SIZE)
            self.offers = zeros(MAX_SPACES)
            self.landings = reals(MAX_SPACES)
            self.city_order = zeros(MAX_CITIES)
            self.city_counts = zeros(MAX_CITIES)
        self.kind = BOT_PLAIN
        self.tax = TAX_CHEAPER
        self.reserve = PLAIN_RESERVE
        self.margin = PLAIN_MARGIN
        self.min_return = MIN_RETURN
        self.trade_rate = TRADE_RATE
        self.forget()

    def set_knob(self, index: int, value: int) -> None:
        """For the Python classes: knob `index` of a family bot."""
        self.fam[index] = value

    def knob(self, index: int) -> int:
        return self.fam[index]

    def landing_weights(self) -> tuple:
        """The landing weights last computed (see `landings`)."""
        return tuple(self.landings[s] for s in range(MAX_SPACES))

    @cython.ccall
    @cython.exceptval(check=False)
    def forget(self) -> cython.void:
        """Forget what a game taught it: offers, buildings this turn, landing weights."""
        i: cython.int
        self.built_round = -1
        self.built_seat = 0
        self.built_count = 0
        for i in range(MAX_SPACES):
            self.offers[i] = 0
            self.landings[i] = 0.0
        self.landings_key = -1


@cython.ccall
@cython.exceptval(check=False)
def reset_bot(bot: BotState, kind: cython.int, tax: cython.int) -> cython.void:
    """Make `bot` a fresh bot of `kind` (BOT_...) with tax behaviour `tax` (TAX_..., or
    TAX_RANDOM). A family bot's knobs are set first (`bot.fam`); its reserve is its knob."""
    bot.kind = kind
    bot.tax = tax
    bot.reserve = PLAIN_RESERVE if kind == BOT_PLAIN else RESERVES[kind]
    bot.margin = PLAIN_MARGIN if kind == BOT_PLAIN else MARGINS[kind]
    bot.min_return = MIN_RETURN
    bot.trade_rate = TRADE_RATE
    if kind == BOT_FAMILY:
        bot.reserve = bot.fam[F_RESERVE]
    bot.forget()


# -- reading the game ------------------------------------------------------------------------


@cython.ccall
@cython.exceptval(-1, check=True)
def landings(view: View, bot: BotState) -> cython.int:
    """InvestorStrategy.landings: `bot.landings`, the expected landings per round on each
    space by the bot's opponents (each opponent's weights added in seat order); recomputed
    only when the set of opponents changes. Returns 0."""
    me: cython.int = view.actor()
    key: cython.int = 0
    p: cython.int
    sp: cython.int
    role: cython.int
    n: cython.int = view.seats()
    n_spaces: cython.int = view.t.n_spaces
    for p in range(n):
        if p != me and not view.bankrupt(p):
            key |= 1 << p
    if bot.landings_key != key:
        bot.landings_key = key
        for sp in range(MAX_SPACES):
            bot.landings[sp] = 0.0
        for p in range(n):
            if (key >> p) & 1:
                role = view.role(p)
                for sp in range(n_spaces):
                    bot.landings[sp] += view.landing_weight(role, sp)
    return 0


@cython.ccall
@cython.exceptval(-1, check=True)
def completes(view: View, p: cython.int, space: cython.int) -> cython.int:
    """Would one more street of this street's city give p (a Monopolist) a monopoly?"""
    return (
        view.monopoly_count(p, view.t.city[space]) + 1 >= view.t.monopoly_streets
        if view.t.kind[space] == K_STREET
        else 0
    )


# -- the income tax, buying, money -----------------------------------------------------------


@cython.ccall
@cython.exceptval(-1, check=True)
def income_tax_choice(view: View, bot: BotState) -> cython.int:
    """Bot.income_tax: by the bot's tax behaviour (the cheaper of the two by default)."""
    if bot.tax == TAX_FLAT:
        return C_TAX_FLAT
    if bot.tax == TAX_PERCENT:
        return C_TAX_PERCENT
    return C_TAX_PERCENT if view.percent_tax_is_cheaper(view.actor()) else C_TAX_FLAT


@cython.ccall
@cython.exceptval(-1, check=True)
def family_wants(view: View, bot: BotState, space: cython.int) -> cython.int:
    """FamilyStrategy.wants: by the kind of title, a key street whenever it can pay."""
    me: cython.int = view.actor()
    kind: cython.int = view.t.kind[space]
    q: cython.int
    level: cython.int
    if kind == K_STREET and bot.fam[F_KEY_STREETS]:
        if view.role(me) == MONOPOLIST and completes(view, me, space):
            return 1
        if bot.fam[F_KEY_STREETS] == 2:
            for q in range(view.seats()):
                if (
                    q != me
                    and not view.bankrupt(q)
                    and view.role(q) == MONOPOLIST
                    and completes(view, q, space)
                ):
                    return 1
    if kind == K_STREET:
        level = bot.fam[F_STREETS]
    elif kind == K_TRANSPORT:
        level = bot.fam[F_TRANSPORTS]
    else:
        level = bot.fam[F_UTILITIES]
    return level == 2 or (level == 1 and view.cash(me) - view.t.price[space] >= bot.fam[F_RESERVE])


@cython.ccall
@cython.exceptval(-1, check=True)
def wants(view: View, bot: BotState, space: cython.int) -> cython.int:
    """Bot.wants: a title that leaves the reserve in hand; the investor's by landing odds."""
    me: cython.int = view.actor()
    i: cython.int
    spare: cython.longlong = view.cash(me) - view.t.price[space]
    total: cython.double
    average: cython.double
    if bot.kind == BOT_FAMILY:
        return family_wants(view, bot, space)
    if bot.kind != BOT_INVESTOR:
        return spare >= bot.reserve
    if spare < bot.reserve:
        return 0
    if view.role(me) == MONOPOLIST:
        if view.t.kind[space] == K_TRANSPORT:
            return 1  # fares double with each company
        if completes(view, me, space):
            return 1  # completes a monopoly: doubled rent and the right to build
    # otherwise only titles landed on at least as often as the average title
    landings(view, bot)
    # added one by one, in board order (as plain Python adds floats)
    total = 0.0
    for i in range(view.t.n_titles):
        total += bot.landings[view.t.titles[i]]
    average = total / view.t.n_titles
    return bot.landings[space] >= 0.9 * average or spare >= 3 * bot.reserve


@cython.ccall
@cython.exceptval(-1, check=True)
def least_rent(view: View, count: cython.int) -> cython.int:
    """The first of `view.spaces[:count]` with the least rent now (-1 for none)."""
    i: cython.int
    rent: cython.int
    best: cython.int = -1
    best_rent: cython.int = 0
    for i in range(count):
        rent = view.rent(view.spaces[i])
        if best < 0 or rent < best_rent:
            best = view.spaces[i]
            best_rent = rent
    return best


@cython.ccall
@cython.exceptval(-1, check=True)
def raise_money(view: View, bot: BotState) -> cython.int:
    """Bot.raise_money: sell the building that loses the least rent, else mortgage the
    least-earning title (a family bot with raise_first=titles: the other way round)."""
    first: cython.int = C_SELL
    second: cython.int = C_MORTGAGE
    count: cython.int
    if bot.kind == BOT_FAMILY and bot.fam[F_RAISE_FIRST] == 1:
        first = C_MORTGAGE
        second = C_SELL
    count = view.targets(first)
    if count:
        return choice(first, least_rent(view, count))
    count = view.targets(second)
    return choice(second, least_rent(view, count))


@cython.ccall
@cython.exceptval(-1, check=True)
def final_adjust(view: View, bot: BotState) -> cython.int:
    """Bot.final_adjust: in the final accounting most cash is handed back, so a building or a
    redeemed title that earns more on the Treasurer's trip than the cash it costs would keep
    is worth it (the cautious bot, and a family bot with final_adjust=no, do nothing)."""
    count: cython.int
    i: cython.int
    sp: cython.int
    before: cython.int
    after: cython.int
    keep: cython.double
    if bot.kind == BOT_CAUTIOUS or (bot.kind == BOT_FAMILY and not bot.fam[F_FINAL_ADJUST]):
        return C_NONE
    keep = view.t.keep_percent[view.role(view.actor())] / 100.0
    count = view.targets(C_BUILD)
    for i in range(count):
        sp = view.spaces[i]
        before = view.rent(sp)
        after = view.rent_after_build(sp)
        if after - before > keep * view.t.house_cost[sp]:
            return choice(C_BUILD, sp)
    count = view.targets(C_REDEEM)
    for i in range(count):
        sp = view.spaces[i]
        if view.rent_redeemed(sp) > keep * view.redeem_value(sp):
            return choice(C_REDEEM, sp)
    return C_NONE


# -- trades ----------------------------------------------------------------------------------


@cython.ccall
@cython.exceptval(-1, check=True)
def title_value(
    view: View, player: cython.int, space: cython.int, gaining: cython.bint
) -> cython.double:
    """Bot.title_value: what a title is worth to `player`: its price, more if it makes (or
    would break) a monopoly for a Monopolist."""
    value: cython.double = view.t.price[space]
    have: cython.int
    if view.mortgaged(space):
        value -= view.redeem_value(space)
    if view.t.kind[space] == K_STREET and view.role(player) == MONOPOLIST:
        have = view.monopoly_count(player, view.t.city[space]) - (0 if gaining else 1)
        if have + 1 == view.t.monopoly_streets:
            value += 2 * view.t.price[space]
    return value


@cython.ccall
@cython.exceptval(-1, check=True)
def offer_gain(view: View) -> cython.double:
    """Bot.trade_value's gain: what the player asked gains by the offer on the table."""
    me: cython.int = view.offer_other()
    i: cython.int
    gain: cython.double = 0.0
    for i in range(view.offer_gives()):
        gain += title_value(view, me, view.offer_give(i), True)
    return gain + view.offer_pay()


@cython.ccall
@cython.exceptval(-1, check=True)
def offer_loss(view: View) -> cython.double:
    """Bot.trade_value's loss: the titles given up, and a street that gives the proposer a
    monopoly costs future rent too."""
    me: cython.int = view.offer_other()
    proposer: cython.int = view.current()
    i: cython.int
    sp: cython.int
    loss: cython.double = 0.0
    for i in range(view.offer_gets()):
        loss += title_value(view, me, view.offer_get(i), False)
    for i in range(view.offer_gets()):
        sp = view.offer_get(i)
        if view.role(proposer) == MONOPOLIST and completes(view, proposer, sp):
            loss += 2 * view.t.price[sp]
    return loss


@cython.ccall
@cython.exceptval(-1, check=True)
def completes_teammates_city(view: View) -> cython.int:
    """FamilyStrategy.completes_teammates_city: is the offer a teammate's cash (or nothing)
    for the one street that completes its city? Both Monopolists, the proposer gives no
    title and asks for one street that gives it a monopoly."""
    me: cython.int = view.offer_other()
    proposer: cython.int = view.current()
    if not (view.role(me) == MONOPOLIST and view.role(proposer) == MONOPOLIST):
        return 0
    if view.offer_gives() or view.offer_gets() != 1 or view.offer_pay() < 0:
        return 0
    return completes(view, proposer, view.offer_get(0))


@cython.ccall
@cython.exceptval(-1, check=True)
def accepts(view: View, bot: BotState) -> cython.int:
    """Bot.accepts: what it gets is worth its margin more than what it gives up, and the
    proposer can pay; a family bot asks `accept` tenths, and with team=sell sells a teammate
    the street that completes its city."""
    pay: cython.longlong = view.offer_pay()
    can_pay: cython.bint = view.cash(view.offer_other()) + (pay if pay < 0 else 0) >= 0
    gain: cython.double
    loss: cython.double
    if bot.kind == BOT_FAMILY and bot.fam[F_TEAM] and completes_teammates_city(view):
        return 1
    gain = offer_gain(view)
    loss = offer_loss(view)
    if bot.kind == BOT_FAMILY:
        return 10 * gain >= bot.fam[F_ACCEPT] * loss and can_pay
    return gain >= (1 + bot.margin) * loss and can_pay


@cython.ccall
@cython.exceptval(-1, check=True)
def offer_amount(bot: BotState, price: cython.int, tries: cython.int) -> cython.longlong:
    """The cash offered for a street after `tries` refusals: for the named bots twice its
    price, then half the price more after each refusal; for a family bot from half its top
    offer up to it in four steps."""
    if bot.kind == BOT_FAMILY:
        return cython.cast(cython.longlong, price) * bot.fam[F_OFFER] * (4 + tries) // 32
    return cython.cast(cython.longlong, price * (2 + tries / 2.0))


@cython.ccall
@cython.exceptval(-1, check=True)
def offer_for(view: View, bot: BotState, other: cython.int, space: cython.int) -> cython.int:
    """Offer `other` cash for `space` (at most five offers for a street), if it keeps its
    reserve and the trade is legal: C_TRADE, else C_NONE."""
    tries: cython.int = bot.offers[space]
    offer: cython.longlong
    if tries > 4:
        return C_NONE
    bot.offers[space] = tries + 1
    offer = offer_amount(bot, view.t.price[space], tries)
    if view.cash(view.actor()) - offer < bot.reserve:
        return C_NONE
    view.propose(other)
    view.propose_get(space)
    view.propose_pay(offer)
    return C_TRADE if view.proposal_is_legal() else C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def propose_monopoly_trade(view: View, bot: BotState) -> cython.int:
    """Bot.propose_monopoly_trade: as a Monopolist owning all but one street of a city, offer
    cash for the missing one (cities in the order of its streets on the board)."""
    t = view.t
    me: cython.int = view.actor()
    need: cython.int = t.monopoly_streets
    i: cython.int
    j: cython.int
    sp: cython.int
    city: cython.int
    other: cython.int
    n_order: cython.int = 0
    if view.role(me) != MONOPOLIST or view.phase() != POST_ROLL:
        return C_NONE
    for i in range(t.n_cities):
        bot.city_counts[i] = 0
    for i in range(t.n_streets):
        sp = t.streets[i]
        if view.owner(sp) == me and not view.mortgaged(sp):
            city = t.city[sp]
            if bot.city_counts[city] == 0:
                bot.city_order[n_order] = city
                n_order += 1
            bot.city_counts[city] += 1
    for i in range(n_order):
        city = bot.city_order[i]
        if bot.city_counts[city] != need - 1:
            continue
        for j in range(t.city_size[city]):
            sp = t.city_member[city][j]
            other = view.owner(sp)
            if other == NOBODY or other == me or view.houses(sp) or view.apartment(sp):
                continue
            if offer_for(view, bot, other, sp) == C_TRADE:
                return C_TRADE
    return C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def propose_blocking_trade(view: View, bot: BotState) -> cython.int:
    """FamilyStrategy.propose_blocking_trade: as a Competitor, offer cash for a street a
    Monopolist holds in a city it has not monopolized yet, so that it cannot complete it."""
    t = view.t
    me: cython.int = view.actor()
    i: cython.int
    sp: cython.int
    other: cython.int
    if view.role(me) == MONOPOLIST or view.phase() != POST_ROLL:
        return C_NONE
    for i in range(t.n_streets):
        sp = t.streets[i]
        other = view.owner(sp)
        if (
            other == NOBODY
            or view.role(other) != MONOPOLIST
            or view.houses(sp)
            or view.apartment(sp)
            or view.monopoly_count(other, t.city[sp]) >= t.monopoly_streets
        ):
            continue
        if offer_for(view, bot, other, sp) == C_TRADE:
            return C_TRADE
    return C_NONE


# -- the turn --------------------------------------------------------------------------------


@cython.ccall
@cython.exceptval(-1, check=True)
def family_build(view: View, bot: BotState) -> cython.int:
    """FamilyStrategy.build: the next building, if the strategy wants one now."""
    t = view.t
    me: cython.int = view.actor()
    count: cython.int
    i: cython.int
    sp: cython.int
    cost: cython.int
    full: cython.int
    gain: cython.int
    best: cython.int = -1
    built: cython.int = 0
    cash: cython.longlong = view.cash(me)
    score: cython.double
    best_score: cython.double = 0.0
    by_landings: cython.bint = bot.fam[F_BUILD_ORDER] == 1
    if bot.fam[F_HOUSES] == 0:
        return C_NONE
    if bot.built_round == view.round() and bot.built_seat == me:
        built = bot.built_count
    if built >= bot.fam[F_BUILDS_PER_TURN]:
        return C_NONE
    full = t.max_houses[view.role(me)]
    if by_landings:
        landings(view, bot)
    count = view.targets(C_BUILD)
    for i in range(count):
        sp = view.spaces[i]
        cost = t.house_cost[sp]
        if cash - cost < bot.fam[F_BUILD_RESERVE]:
            continue
        if view.houses(sp) >= full:
            if not bot.fam[F_APARTMENTS] or bot.fam[F_HOUSES] < full:
                continue
        elif view.houses(sp) >= bot.fam[F_HOUSES]:
            continue
        gain = view.rent_after_build(sp) - view.rent(sp)
        if by_landings:
            score = gain * bot.landings[sp] / cython.cast(cython.double, cost)
        else:
            score = gain
        if score > best_score:
            best = sp
            best_score = score
    if best < 0:
        return C_NONE
    bot.built_round = view.round()
    bot.built_seat = me
    bot.built_count = built + 1
    return choice(C_BUILD, best)


@cython.ccall
@cython.exceptval(-1, check=True)
def family_manage(view: View, bot: BotState) -> cython.int:
    """FamilyStrategy.manage: offer a trade, build, or redeem."""
    count: cython.int
    i: cython.int
    cash: cython.longlong
    c: cython.int
    if bot.fam[F_OFFER]:
        c = propose_monopoly_trade(view, bot)
        if c != C_NONE:
            return c
        c = propose_blocking_trade(view, bot)
        if c != C_NONE:
            return c
    c = family_build(view, bot)
    if c != C_NONE:
        return c
    cash = view.cash(view.actor())
    count = view.targets(C_REDEEM)
    for i in range(count):
        if cash - view.redeem_value(view.spaces[i]) >= bot.fam[F_REDEEM_RESERVE]:
            return choice(C_REDEEM, view.spaces[i])
    return C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def cautious_manage(view: View, bot: BotState) -> cython.int:
    """CautiousStrategy.manage: at most one building a turn, the dearest street first, and
    only from three times its reserve; redeems from twice its reserve."""
    t = view.t
    me: cython.int = view.actor()
    cash: cython.longlong = view.cash(me)
    count: cython.int
    i: cython.int
    sp: cython.int
    best: cython.int = -1
    if cash < 3 * bot.reserve:
        return C_NONE
    if not (bot.built_round == view.round() and bot.built_seat == me):
        count = view.targets(C_BUILD)
        for i in range(count):
            sp = view.spaces[i]
            if cash - t.house_cost[sp] >= 3 * bot.reserve:
                if best < 0 or t.price[sp] > t.price[best]:
                    best = sp
        if best >= 0:
            bot.built_round = view.round()
            bot.built_seat = me
            return choice(C_BUILD, best)
    count = view.targets(C_REDEEM)
    for i in range(count):
        if cash - view.redeem_value(view.spaces[i]) >= 2 * bot.reserve:
            return choice(C_REDEEM, view.spaces[i])
    return C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def builder_manage(view: View, bot: BotState) -> cython.int:
    """BuilderStrategy.manage: builds wherever one landing's rent rises most, keeping its
    reserve."""
    cash: cython.longlong = view.cash(view.actor())
    count: cython.int
    i: cython.int
    sp: cython.int
    best: cython.int = -1
    gain: cython.int
    best_gain: cython.int = 0
    if cash < bot.reserve + 50:
        return C_NONE
    count = view.targets(C_BUILD)
    for i in range(count):
        sp = view.spaces[i]
        if cash - view.t.house_cost[sp] >= bot.reserve:
            gain = view.rent_after_build(sp) - view.rent(sp)
            if best < 0 or gain > best_gain:
                best = sp
                best_gain = gain
    return choice(C_BUILD, best) if best >= 0 else C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def investor_manage(view: View, bot: BotState) -> cython.int:
    """InvestorStrategy.manage: offer for a monopoly's last street; build where the expected
    rent per dollar is highest (at least `min_return`); redeem from three times its reserve."""
    cash: cython.longlong = view.cash(view.actor())
    count: cython.int
    i: cython.int
    sp: cython.int
    best: cython.int = -1
    gain: cython.double
    best_return: cython.double
    c: cython.int = propose_monopoly_trade(view, bot)
    if c != C_NONE:
        return c
    if cash < bot.reserve + 50:
        return C_NONE
    count = view.targets(C_BUILD)
    if count:
        landings(view, bot)
        best_return = bot.min_return
        for i in range(count):
            sp = view.spaces[i]
            if cash - view.t.house_cost[sp] < bot.reserve:
                continue
            gain = (
                cython.cast(cython.double, view.rent_after_build(sp) - view.rent(sp))
                * bot.landings[sp]
                / cython.cast(cython.double, view.t.house_cost[sp])
            )
            if gain > best_return:
                best = sp
                best_return = gain
        if best >= 0:
            return choice(C_BUILD, best)
    if cash >= 3 * bot.reserve:
        count = view.targets(C_REDEEM)
        if count:
            return choice(C_REDEEM, view.spaces[0])
    return C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def manage(view: View, bot: BotState) -> cython.int:
    """Bot.manage: build, redeem or trade on the bot's own turn; C_NONE for nothing."""
    if bot.kind == BOT_FAMILY:
        return family_manage(view, bot)
    if bot.kind == BOT_CAUTIOUS:
        return cautious_manage(view, bot)
    if bot.kind == BOT_BUILDER:
        return builder_manage(view, bot)
    if bot.kind == BOT_INVESTOR:
        return investor_manage(view, bot)
    return C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def before_throw(view: View, bot: BotState) -> cython.int:
    """Bot.before_throw: pay the fine to leave the hold when rich enough, else manage (the
    investor and a family bot build and trade after the throw)."""
    me: cython.int = view.actor()
    fine_from: cython.longlong
    if bot.kind == BOT_FAMILY:
        fine_from = bot.fam[F_FINE_CASH]
    elif bot.kind == BOT_BUILDER:
        fine_from = view.t.fine + bot.reserve
    else:
        fine_from = 4 * bot.reserve
    if view.held(me) and view.cash(me) >= fine_from and view.can_pay_fine():
        return C_PAY_FINE
    if bot.kind == BOT_FAMILY or bot.kind == BOT_INVESTOR:
        return C_NONE
    return manage(view, bot)


# -- the random bot --------------------------------------------------------------------------


@cython.ccall
@cython.exceptval(-1, check=True)
def random_trade(view: View, bot: BotState) -> cython.int:
    """RandomStrategy._random_trade: a random trade with a random other player (some of each
    side's bare titles, and random cash), proposed; 0 for none."""
    t = view.t
    me: cython.int = view.actor()
    other: cython.int
    n_others: cython.int = 0
    p: cython.int
    i: cython.int
    sp: cython.int
    low: cython.longlong
    high: cython.longlong
    for p in range(view.seats()):
        if not view.bankrupt(p) and p != me:
            n_others += 1
    if n_others == 0:
        return 0
    other = view.randbelow(n_others)  # the k-th other player, in seat order
    for p in range(view.seats()):
        if not view.bankrupt(p) and p != me:
            if other == 0:
                other = p
                break
            other -= 1
    view.propose(other)
    for i in range(t.n_titles):
        sp = t.titles[i]
        if view.owner(sp) == me and not view.houses(sp) and not view.apartment(sp):
            if view.random() < 0.3:
                view.propose_give(sp)
    for i in range(t.n_titles):
        sp = t.titles[i]
        if view.owner(sp) == other and not view.houses(sp) and not view.apartment(sp):
            if view.random() < 0.3:
                view.propose_get(sp)
    if view.proposal_gives() == 0 and view.proposal_gets() == 0:
        return 0
    low = -view.cash(other)
    high = view.cash(me)
    if view.random() < 0.7:
        view.propose_pay(low + view.randbelow(high - low + 1))  # randint(low, high)
    else:
        view.propose_pay(0)
    return 1


@cython.ccall
@cython.exceptval(-1, check=True)
def random_choose(view: View, bot: BotState) -> cython.int:
    """RandomStrategy.choose: a uniformly random legal choice; now and then a random trade."""
    count: cython.int
    if bot.tax != TAX_RANDOM and view.phase() == INCOME_TAX:
        return income_tax_choice(view, bot)
    if view.trade_possible() and view.random() < bot.trade_rate:
        if random_trade(view, bot) and view.proposal_is_legal():
            return C_TRADE
    count = view.legal_choices()
    return view.legal_choice(view.randbelow(count))


# -- one decision ----------------------------------------------------------------------------


@cython.ccall
@cython.exceptval(-1, check=True)
def choose(view: View, bot: BotState) -> cython.int:
    """Bot.choose: the bot's choice for the pending decision, as a code."""
    c: cython.int
    phase: cython.int = view.phase()
    if bot.kind == BOT_RANDOM:
        return random_choose(view, bot)
    if phase == PRE_ROLL:
        c = before_throw(view, bot)
        return C_ROLL if c == C_NONE else c
    if phase == POST_ROLL:
        c = manage(view, bot)
        return C_END_TURN if c == C_NONE else c
    if phase == BUY_PHASE:
        return C_BUY if view.can_buy() and wants(view, bot, view.pending_buy()) else C_DECLINE
    if phase == INCOME_TAX:
        return income_tax_choice(view, bot)
    if phase == RAISE:
        return raise_money(view, bot)
    if phase == TRADE_ANSWER:
        return C_ACCEPT if accepts(view, bot) else C_REJECT
    c = final_adjust(view, bot)
    return C_END_TURN if c == C_NONE else c


# -- a `Game` as a View ------------------------------------------------------------------------

# the choice each argument-free code stands for (None: a code that names a title or a trade)
PLAIN_CHOICES = {
    C_ROLL: engine_choices.ROLL,
    C_BUY: engine_choices.BUY,
    C_DECLINE: engine_choices.DECLINE,
    C_TAX_FLAT: engine_choices.TAX_FLAT,
    C_TAX_PERCENT: engine_choices.TAX_PERCENT,
    C_PAY_FINE: engine_choices.PAY_FINE,
    C_ACCEPT: engine_choices.ACCEPT,
    C_REJECT: engine_choices.REJECT,
    C_END_TURN: engine_choices.END_TURN,
    C_END_GAME: engine_choices.END_GAME,
}
TITLE_CODES = {CHOICE_CODES.index(kind): kind for kind in TITLE_CHOICES}
PHASE_CODES = {phase: PHASES.index(phase) for phase in PHASES}


@lru_cache(maxsize=256)
def role_landings(rules, board, role: int) -> tuple:
    """Expected landings per round on each space by one opponent of `role` (Markov chain)."""
    odds = landing_odds(role, "pay", rules, board)
    return tuple(float(a) * odds.throws_per_turn for a in odds.arrivals)


@cython.cclass
class EngineView(View):
    """A `Game` (amteach/engine/game.py) as a `View`, for the Python classes of the bots.
    `bind` points it at a game and the decision's legal choices before each decision."""

    def __init__(self):
        super().__init__()
        self.game = None
        self.legal = None
        self.legal_list = None
        self.offer = None
        self.proposal = None
        self.rng = None
        self.other = 0
        self.give = []
        self.get = []
        self.pay = 0
        self.city_names = ()
        self.for_tables = None

    def bind(self, game, tables, legal=None, offer=None, rng=None) -> None:
        """Read `game` (whose board and rules are `tables`, the rules core's build this module
        cimports), answering `offer` (default: the game's) and drawing from `rng`."""
        self.game = game
        self.t = tables
        self.legal = legal
        self.legal_list = None
        self.offer = game.state.offer if offer is None else offer
        self.rng = rng
        if self.for_tables is not tables:
            self.for_tables = tables
            self.city_names = tuple(game.board.cities)

    def as_choice(self, code: int) -> Choice:
        """The engine's `Choice` for a code (a trade: the proposal last checked)."""
        plain = PLAIN_CHOICES.get(code % CHOICE_BASE)
        if plain is not None:
            return plain
        if code % CHOICE_BASE == C_TRADE:
            return self.proposal
        return Choice(TITLE_CODES[code % CHOICE_BASE], code // CHOICE_BASE - 1)

    def code_of(self, c: Choice) -> int:
        """The code of a choice (trades have none: the random bot proposes its own)."""
        if c.kind == "income_tax":
            return CHOICE_CODES.index(f"income_tax:{c.arg}")
        code = CHOICE_CODES.index(c.kind)
        return choice(code, c.arg) if c.kind in TITLE_CHOICES else code

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def actor(self) -> cython.int:
        return self.game.actor

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def current(self) -> cython.int:
        return self.game.current

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def phase(self) -> cython.int:
        return PHASE_CODES[self.game.phase]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def round(self) -> cython.int:
        return self.game.round

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def seats(self) -> cython.int:
        return len(self.game.names)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def role(self, p: cython.int) -> cython.int:
        return self.game.roles[p]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def bankrupt(self, p: cython.int) -> cython.int:
        return self.game.bankrupt[p]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def held(self, p: cython.int) -> cython.int:
        return self.game.is_held(p)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def cash(self, p: cython.int) -> cython.longlong:
        return self.game.cash[p]

    @cython.cfunc
    @cython.exceptval(-2, check=True)
    def owner(self, space: cython.int) -> cython.int:
        return self.game.owner[space]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def houses(self, space: cython.int) -> cython.int:
        return self.game.houses[space]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def apartment(self, space: cython.int) -> cython.int:
        return self.game.apartment[space]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def mortgaged(self, space: cython.int) -> cython.int:
        return self.game.mortgaged[space]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def redeem_value(self, space: cython.int) -> cython.int:
        return self.game.state.redeem_values[space]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def monopoly_count(self, p: cython.int, city: cython.int) -> cython.int:
        return self.game.state.monopoly_count(p, self.city_names[city])

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def rent(self, space: cython.int) -> cython.int:
        return self.game.rent_for(space)[0]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def rent_after_build(self, space: cython.int) -> cython.int:
        return self.game.building(space).rent_after

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def rent_redeemed(self, space: cython.int) -> cython.int:
        game = self.game
        return game.rent_if(space, mortgaged=False, dice_total=game.rules.settlement_utility_dice)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def percent_tax_is_cheaper(self, p: cython.int) -> cython.int:
        return self.game.tax_options(p).cheaper == "percent"

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def targets(self, kind: cython.int) -> cython.int:
        i: cython.int
        spaces = self.game.targets(CHOICE_CODES[kind])
        for i in range(len(spaces)):
            self.spaces[i] = spaces[i]
        return len(spaces)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def can_pay_fine(self) -> cython.int:
        return self.game.is_legal(engine_choices.PAY_FINE)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def can_buy(self) -> cython.int:
        return self.game.is_legal(engine_choices.BUY)

    @cython.cfunc
    @cython.exceptval(-2, check=True)
    def pending_buy(self) -> cython.int:
        return self.game.state.pending_buy

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def landing_weight(self, role: cython.int, space: cython.int) -> cython.double:
        return role_landings(self.game.rules, self.game.board, role)[space]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_other(self) -> cython.int:
        return self.offer.other

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_gives(self) -> cython.int:
        return len(self.offer.give)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_give(self, i: cython.int) -> cython.int:
        return self.offer.give[i]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_gets(self) -> cython.int:
        return len(self.offer.get)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_get(self, i: cython.int) -> cython.int:
        return self.offer.get[i]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_pay(self) -> cython.longlong:
        return self.offer.pay

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def propose(self, other: cython.int) -> cython.int:
        self.other = other
        self.give = []
        self.get = []
        self.pay = 0
        self.proposal = None
        return 0

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def propose_give(self, space: cython.int) -> cython.int:
        self.give.append(space)
        return 0

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def propose_get(self, space: cython.int) -> cython.int:
        self.get.append(space)
        return 0

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def proposal_gives(self) -> cython.int:
        return len(self.give)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def proposal_gets(self) -> cython.int:
        return len(self.get)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def propose_pay(self, pay: cython.longlong) -> cython.int:
        self.pay = pay
        return 0

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def proposal_is_legal(self) -> cython.int:
        self.proposal = Choice(
            "trade", Trade(self.other, tuple(self.give), tuple(self.get), self.pay)
        )
        return self.game.is_legal(self.proposal)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def trade_possible(self) -> cython.int:
        legal = self.legal
        kinds = getattr(legal, "kinds", None)
        if kinds is None:
            pending = self.game.pending
            kinds = () if pending is None else pending.kinds
        return "trade" in kinds

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def legal_choices(self) -> cython.int:
        self.legal_list = list(self.legal)
        return len(self.legal_list)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def legal_choice(self, i: cython.int) -> cython.int:
        return self.code_of(self.legal_list[i])

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def random(self) -> cython.double:
        return self.rng.random()

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def randbelow(self, n: cython.longlong) -> cython.longlong:
        return self.rng.randrange(n)
