# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
# cython: cdivision=True, nonecheck=False, infer_types=True, auto_pickle=False
"""Every decision of the built-in bots and of the family, written once (issue 26).

The four named bots (cautious, builder, investor, random) and the family of strategies
(`amteach.bots.family`) decide here, for both cores. They read the game's state itself, the
rules core's `State` (issue 38: `Game` keeps one, the kernel's `G` is one), whose arrays
(owners, buildings, cash, roles, the offer on the table) a compiled decision reads as C struct
members, and ask the rules core for rents and legality (`title_targets`, `legal_codes`, ...).
What the state does not hold is a small `Context`, written once: the offer being weighed, the
legal choices found, the bot's random stream and the landing weights. Each decision answers
with a choice code (`choice(kind, arg)`, the rules core's codes):

- the classes of `amteach.bots.strategies` and `amteach.bots.family` keep their names and hooks
  and bind a `Context` to a `Game`'s state (`game.state.core`);
- the compiled kernel (amteach/sim/kernel.py) binds one to each game of a batch.

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

from amteach.engine.choices import Choice, Trade
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
MAX_CHOICES = rules.MAX_CHOICES
CHOICE_BASE = rules.CHOICE_BASE  # a choice code is kind + CHOICE_BASE * (argument + 1)

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

# the kinds of choice: the rules core's codes ("none", a hook with nothing to do, then the
# engine's kinds in their order, the income tax split by its two options)
CHOICE_CODES = rules.CHOICE_CODES
C_NONE = rules.C_NONE
C_ROLL = rules.C_ROLL
C_BUY = rules.C_BUY
C_DECLINE = rules.C_DECLINE
C_BUILD = rules.C_BUILD
C_SELL = rules.C_SELL
C_MORTGAGE = rules.C_MORTGAGE
C_REDEEM = rules.C_REDEEM
C_TAX_FLAT = rules.C_TAX_FLAT
C_TAX_PERCENT = rules.C_TAX_PERCENT
C_PAY_FINE = rules.C_PAY_FINE
C_TRADE = rules.C_TRADE
C_ACCEPT = rules.C_ACCEPT
C_REJECT = rules.C_REJECT
C_END_TURN = rules.C_END_TURN
C_END_GAME = rules.C_END_GAME

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


# -- what a bot reads: the game's state itself, and a small context ---------------------------


@cython.cclass
class Context:
    """What a bot reads: the game's state itself (`s`, the rules core's `State`, whose arrays
    the decisions below read directly, compiled as C struct members) and its board and rules
    (`t`), with the little the state does not hold, written once for `Game`'s bots and the
    kernel's: the offer to answer (`offer`: the state's own, or a trade being weighed), the
    legal choices (`legal`, the rules core's `legal_codes`), the bot's random stream (`mt`, or
    `rng`, a Python `random.Random`), the landing weights by role and a scratch list of
    titles (`spaces`, `targets`' answer). A proposal is written into the state's own
    `proposal`, whose legality the rules core answers."""

    def __init__(self):
        if not cython.compiled:  # compiled, the C arrays start zeroed
            self.spaces = zeros(MAX_SPACES)
            self.landing = [reals(MAX_SPACES), reals(MAX_SPACES)]
        self.s = None
        self.t = None
        self.offer = None
        self.legal = rules.Choices()
        self.mt = rules.MT()
        self.rng = None
        self.landing_source = None
        self.has_landings = False

    def bind(self, state, offer=None, rng=None) -> None:
        """Read `state` (a rules core `State`, this build's), answering `offer` (a rules core
        `Trade`; None: the state's own, `offer_of`) and drawing from `rng` (a `random.Random`; None:
        the context's own `mt`)."""
        self.s = state
        self.t = state.t
        self.offer = offer
        self.rng = rng

    def set_landings(self, source) -> None:
        """Where the landing weights come from: `source()` gives each role's expected landings
        per round on each space by one opponent of that role (read when first needed)."""
        self.landing_source = source
        self.has_landings = False

    def found(self, count: int) -> tuple:
        """The first `count` titles of `spaces` (`targets`' answer)."""
        return tuple(self.spaces[i] for i in range(count))


@cython.cfunc
@cython.exceptval(-1, check=True)
def fill_landings(ctx: Context) -> cython.int:
    """The landing weights from the context's source, the first time they are read."""
    role: cython.int
    sp: cython.int
    weights = ctx.landing_source()
    for role in range(2):
        for sp in range(len(weights[role])):
            ctx.landing[role][sp] = weights[role][sp]
    ctx.has_landings = True
    return 0


@cython.cfunc
def offer_of(ctx: Context) -> rules.Trade:
    """The offer to answer: the one being weighed, else the state's own (read at each
    decision: the state swaps its offer and proposal when a trade is proposed)."""
    if ctx.offer is not None:
        return ctx.offer
    return ctx.s.offer


@cython.cfunc
@cython.exceptval(check=False)
def rent_now(ctx: Context, space: cython.int) -> cython.int:
    """One landing's rent on the title now (utilities at the settlement's dice)."""
    return ctx.s.rent_now(space, ctx.t.settlement_utility_dice)


@cython.cfunc
@cython.exceptval(check=False)
def rent_redeemed(ctx: Context, space: cython.int) -> cython.int:
    """The rent on the title were it redeemed (utilities at the settlement's dice)."""
    s: rules.State = ctx.s
    return s.rent_if(
        space, s.houses[space], s.apartment[space], False, ctx.t.settlement_utility_dice
    )


@cython.cfunc
@cython.exceptval(-1, check=True)
def targets(ctx: Context, kind: cython.int) -> cython.int:
    """How many titles a choice of `kind` (C_BUILD, C_SELL, C_MORTGAGE, C_REDEEM) may name
    now (the phase, then the rules core's `title_targets`, one call for the whole list); they
    are left in `ctx.spaces`, in board order."""
    s: rules.State = ctx.s
    count: cython.int
    i: cython.int
    if not rules.allows(ctx.legal, s.phase, kind):
        return 0
    count = rules.title_targets(s, rules.title_action(kind))
    for i in range(count):
        ctx.spaces[i] = s.found[i]
    return count


@cython.cfunc
@cython.exceptval(-1, check=True)
def can_pay_fine(ctx: Context) -> cython.int:
    return rules.kind_is_legal(ctx.s, ctx.legal, C_PAY_FINE)


@cython.cfunc
@cython.exceptval(-1, check=True)
def trade_possible(ctx: Context) -> cython.int:
    """Is a trade among the legal kinds of choice now?"""
    s: rules.State = ctx.s
    return rules.allows(ctx.legal, s.phase, C_TRADE) and rules.trade_possible(s, ctx.t, s.actor)


# a trade the bot proposes, written into the state's `proposal`: begun, titles added, the cash


@cython.cfunc
@cython.exceptval(check=False)
def propose(ctx: Context, other: cython.int) -> cython.int:
    proposal: rules.Trade = ctx.s.proposal
    proposal.other = other
    proposal.n_give = 0
    proposal.n_get = 0
    proposal.pay = 0
    return 0


@cython.cfunc
@cython.exceptval(check=False)
def propose_give(ctx: Context, space: cython.int) -> cython.int:
    proposal: rules.Trade = ctx.s.proposal
    proposal.give[proposal.n_give] = space
    proposal.n_give += 1
    return 0


@cython.cfunc
@cython.exceptval(check=False)
def propose_get(ctx: Context, space: cython.int) -> cython.int:
    proposal: rules.Trade = ctx.s.proposal
    proposal.get[proposal.n_get] = space
    proposal.n_get += 1
    return 0


@cython.cfunc
@cython.exceptval(check=False)
def propose_pay(ctx: Context, pay: cython.longlong) -> cython.int:
    proposal: rules.Trade = ctx.s.proposal
    proposal.pay = pay
    return 0


@cython.cfunc
@cython.exceptval(-1, check=True)
def draw(ctx: Context) -> cython.double:
    """The bot's next random number in [0, 1) (random.Random.random)."""
    if ctx.rng is None:
        return rules.mt_random(ctx.mt)
    return ctx.rng.random()


@cython.cfunc
@cython.exceptval(-1, check=True)
def draw_below(ctx: Context, n: cython.longlong) -> cython.longlong:
    """The bot's next random whole number below n (random.Random.randrange(n))."""
    if ctx.rng is None:
        return rules.mt_randbelow(ctx.mt, n)
    return ctx.rng.randrange(n)


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
def landings(ctx: Context, bot: BotState) -> cython.int:
    """InvestorStrategy.landings: `bot.landings`, the expected landings per round on each
    space by the bot's opponents (each opponent's weights added in seat order); recomputed
    only when the set of opponents changes. Returns 0."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    me: cython.int = s.actor
    key: cython.int = 0
    p: cython.int
    sp: cython.int
    role: cython.int
    n: cython.int = s.n
    n_spaces: cython.int = t.n_spaces
    for p in range(n):
        if p != me and not s.bankrupt[p]:
            key |= 1 << p
    if bot.landings_key != key:
        bot.landings_key = key
        if not ctx.has_landings:
            fill_landings(ctx)
        for sp in range(MAX_SPACES):
            bot.landings[sp] = 0.0
        for p in range(n):
            if (key >> p) & 1:
                role = s.roles[p]
                for sp in range(n_spaces):
                    bot.landings[sp] += ctx.landing[role][sp]
    return 0


@cython.ccall
@cython.exceptval(-1, check=True)
def completes(ctx: Context, p: cython.int, space: cython.int) -> cython.int:
    """Would one more street of this street's city give p (a Monopolist) a monopoly?"""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    return (
        s.monopoly_count(p, t.city[space]) + 1 >= t.monopoly_streets
        if t.kind[space] == K_STREET
        else 0
    )


# -- the income tax, buying, money -----------------------------------------------------------


@cython.ccall
@cython.exceptval(-1, check=True)
def income_tax_choice(ctx: Context, bot: BotState) -> cython.int:
    """Bot.income_tax: by the bot's tax behaviour (the cheaper of the two by default)."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    if bot.tax == TAX_FLAT:
        return C_TAX_FLAT
    if bot.tax == TAX_PERCENT:
        return C_TAX_PERCENT
    return (
        C_TAX_PERCENT if rules.income_tax_percent(s, t, s.actor) < t.income_tax_flat else C_TAX_FLAT
    )


@cython.ccall
@cython.exceptval(-1, check=True)
def family_wants(ctx: Context, bot: BotState, space: cython.int) -> cython.int:
    """FamilyStrategy.wants: by the kind of title, a key street whenever it can pay."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    me: cython.int = s.actor
    kind: cython.int = t.kind[space]
    q: cython.int
    level: cython.int
    if kind == K_STREET and bot.fam[F_KEY_STREETS]:
        if s.roles[me] == MONOPOLIST and completes(ctx, me, space):
            return 1
        if bot.fam[F_KEY_STREETS] == 2:
            for q in range(s.n):
                if (
                    q != me
                    and not s.bankrupt[q]
                    and s.roles[q] == MONOPOLIST
                    and completes(ctx, q, space)
                ):
                    return 1
    if kind == K_STREET:
        level = bot.fam[F_STREETS]
    elif kind == K_TRANSPORT:
        level = bot.fam[F_TRANSPORTS]
    else:
        level = bot.fam[F_UTILITIES]
    return level == 2 or (level == 1 and s.cash[me] - t.price[space] >= bot.fam[F_RESERVE])


@cython.ccall
@cython.exceptval(-1, check=True)
def wants(ctx: Context, bot: BotState, space: cython.int) -> cython.int:
    """Bot.wants: a title that leaves the reserve in hand; the investor's by landing odds."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    me: cython.int = s.actor
    i: cython.int
    spare: cython.longlong = s.cash[me] - t.price[space]
    total: cython.double
    average: cython.double
    if bot.kind == BOT_FAMILY:
        return family_wants(ctx, bot, space)
    if bot.kind != BOT_INVESTOR:
        return spare >= bot.reserve
    if spare < bot.reserve:
        return 0
    if s.roles[me] == MONOPOLIST:
        if t.kind[space] == K_TRANSPORT:
            return 1  # fares double with each company
        if completes(ctx, me, space):
            return 1  # completes a monopoly: doubled rent and the right to build
    # otherwise only titles landed on at least as often as the average title
    landings(ctx, bot)
    # added one by one, in board order (as plain Python adds floats)
    total = 0.0
    for i in range(t.n_titles):
        total += bot.landings[t.titles[i]]
    average = total / t.n_titles
    return bot.landings[space] >= 0.9 * average or spare >= 3 * bot.reserve


@cython.ccall
@cython.exceptval(-1, check=True)
def least_rent(ctx: Context, count: cython.int) -> cython.int:
    """The first of `ctx.spaces[:count]` with the least rent now (-1 for none)."""
    i: cython.int
    rent: cython.int
    best: cython.int = -1
    best_rent: cython.int = 0
    for i in range(count):
        rent = rent_now(ctx, ctx.spaces[i])
        if best < 0 or rent < best_rent:
            best = ctx.spaces[i]
            best_rent = rent
    return best


@cython.ccall
@cython.exceptval(-1, check=True)
def raise_money(ctx: Context, bot: BotState) -> cython.int:
    """Bot.raise_money: sell the building that loses the least rent, else mortgage the
    least-earning title (a family bot with raise_first=titles: the other way round)."""
    first: cython.int = C_SELL
    second: cython.int = C_MORTGAGE
    count: cython.int
    if bot.kind == BOT_FAMILY and bot.fam[F_RAISE_FIRST] == 1:
        first = C_MORTGAGE
        second = C_SELL
    count = targets(ctx, first)
    if count:
        return choice(first, least_rent(ctx, count))
    count = targets(ctx, second)
    return choice(second, least_rent(ctx, count))


@cython.ccall
@cython.exceptval(-1, check=True)
def final_adjust(ctx: Context, bot: BotState) -> cython.int:
    """Bot.final_adjust: in the final accounting most cash is handed back, so a building or a
    redeemed title that earns more on the Treasurer's trip than the cash it costs would keep
    is worth it (the cautious bot, and a family bot with final_adjust=no, do nothing)."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    count: cython.int
    i: cython.int
    sp: cython.int
    before: cython.int
    after: cython.int
    keep: cython.double
    if bot.kind == BOT_CAUTIOUS or (bot.kind == BOT_FAMILY and not bot.fam[F_FINAL_ADJUST]):
        return C_NONE
    keep = t.keep_percent[s.roles[s.actor]] / 100.0
    count = targets(ctx, C_BUILD)
    for i in range(count):
        sp = ctx.spaces[i]
        before = rent_now(ctx, sp)
        after = s.rent_built(sp)
        if after - before > keep * t.house_cost[sp]:
            return choice(C_BUILD, sp)
    count = targets(ctx, C_REDEEM)
    for i in range(count):
        sp = ctx.spaces[i]
        if rent_redeemed(ctx, sp) > keep * s.redeem_values[sp]:
            return choice(C_REDEEM, sp)
    return C_NONE


# -- trades ----------------------------------------------------------------------------------


@cython.ccall
@cython.exceptval(-1, check=True)
def title_value(
    ctx: Context, player: cython.int, space: cython.int, gaining: cython.bint
) -> cython.double:
    """Bot.title_value: what a title is worth to `player`: its price, more if it makes (or
    would break) a monopoly for a Monopolist."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    value: cython.double = t.price[space]
    have: cython.int
    if s.mortgaged[space]:
        value -= s.redeem_values[space]
    if t.kind[space] == K_STREET and s.roles[player] == MONOPOLIST:
        have = s.monopoly_count(player, t.city[space]) - (0 if gaining else 1)
        if have + 1 == t.monopoly_streets:
            value += 2 * t.price[space]
    return value


@cython.ccall
@cython.exceptval(-1, check=True)
def offer_gain(ctx: Context) -> cython.double:
    """Bot.trade_value's gain: what the player asked gains by the offer on the table."""
    offer: rules.Trade = offer_of(ctx)
    me: cython.int = offer.other
    i: cython.int
    gain: cython.double = 0.0
    for i in range(offer.n_give):
        gain += title_value(ctx, me, offer.give[i], True)
    return gain + offer.pay


@cython.ccall
@cython.exceptval(-1, check=True)
def offer_loss(ctx: Context) -> cython.double:
    """Bot.trade_value's loss: the titles given up, and a street that gives the proposer a
    monopoly costs future rent too."""
    s: rules.State = ctx.s
    offer: rules.Trade = offer_of(ctx)
    t: rules.Tables = ctx.t
    me: cython.int = offer.other
    proposer: cython.int = s.current
    i: cython.int
    sp: cython.int
    loss: cython.double = 0.0
    for i in range(offer.n_get):
        loss += title_value(ctx, me, offer.get[i], False)
    for i in range(offer.n_get):
        sp = offer.get[i]
        if s.roles[proposer] == MONOPOLIST and completes(ctx, proposer, sp):
            loss += 2 * t.price[sp]
    return loss


@cython.ccall
@cython.exceptval(-1, check=True)
def completes_teammates_city(ctx: Context) -> cython.int:
    """FamilyStrategy.completes_teammates_city: is the offer a teammate's cash (or nothing)
    for the one street that completes its city? Both Monopolists, the proposer gives no
    title and asks for one street that gives it a monopoly."""
    s: rules.State = ctx.s
    offer: rules.Trade = offer_of(ctx)
    me: cython.int = offer.other
    proposer: cython.int = s.current
    if not (s.roles[me] == MONOPOLIST and s.roles[proposer] == MONOPOLIST):
        return 0
    if offer.n_give or offer.n_get != 1 or offer.pay < 0:
        return 0
    return completes(ctx, proposer, offer.get[0])


@cython.ccall
@cython.exceptval(-1, check=True)
def accepts(ctx: Context, bot: BotState) -> cython.int:
    """Bot.accepts: what it gets is worth its margin more than what it gives up, and the
    proposer can pay; a family bot asks `accept` tenths, and with team=sell sells a teammate
    the street that completes its city."""
    s: rules.State = ctx.s
    offer: rules.Trade = offer_of(ctx)
    pay: cython.longlong = offer.pay
    can_pay: cython.bint = s.cash[offer.other] + (pay if pay < 0 else 0) >= 0
    gain: cython.double
    loss: cython.double
    if bot.kind == BOT_FAMILY and bot.fam[F_TEAM] and completes_teammates_city(ctx):
        return 1
    gain = offer_gain(ctx)
    loss = offer_loss(ctx)
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
def offer_for(ctx: Context, bot: BotState, other: cython.int, space: cython.int) -> cython.int:
    """Offer `other` cash for `space` (at most five offers for a street), if it keeps its
    reserve and the trade is legal: C_TRADE, else C_NONE."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    tries: cython.int = bot.offers[space]
    offer: cython.longlong
    if tries > 4:
        return C_NONE
    bot.offers[space] = tries + 1
    offer = offer_amount(bot, t.price[space], tries)
    if s.cash[s.actor] - offer < bot.reserve:
        return C_NONE
    propose(ctx, other)
    propose_get(ctx, space)
    propose_pay(ctx, offer)
    return C_TRADE if rules.trade_is_legal(s, ctx.legal) else C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def propose_monopoly_trade(ctx: Context, bot: BotState) -> cython.int:
    """Bot.propose_monopoly_trade: as a Monopolist owning all but one street of a city, offer
    cash for the missing one (cities in board order: a city is numbered by its first street).
    The streets it owns are the state's count of its unmortgaged titles in each city."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    me: cython.int = s.actor
    need: cython.int = t.monopoly_streets
    j: cython.int
    sp: cython.int
    city: cython.int
    other: cython.int
    if s.roles[me] != MONOPOLIST or s.phase != POST_ROLL or need < 2:
        return C_NONE
    for city in range(t.n_cities):
        if s.group_held[me][city] != need - 1:
            continue
        for j in range(t.city_size[city]):
            sp = t.city_member[city][j]
            other = s.owner[sp]
            if other == NOBODY or other == me or s.houses[sp] or s.apartment[sp]:
                continue
            if offer_for(ctx, bot, other, sp) == C_TRADE:
                return C_TRADE
    return C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def propose_blocking_trade(ctx: Context, bot: BotState) -> cython.int:
    """FamilyStrategy.propose_blocking_trade: as a Competitor, offer cash for a street a
    Monopolist holds in a city it has not monopolized yet, so that it cannot complete it."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    me: cython.int = s.actor
    i: cython.int
    sp: cython.int
    other: cython.int
    if s.roles[me] == MONOPOLIST or s.phase != POST_ROLL:
        return C_NONE
    for i in range(t.n_streets):
        sp = t.streets[i]
        other = s.owner[sp]
        if (
            other == NOBODY
            or s.roles[other] != MONOPOLIST
            or s.houses[sp]
            or s.apartment[sp]
            or s.monopoly_count(other, t.city[sp]) >= t.monopoly_streets
        ):
            continue
        if offer_for(ctx, bot, other, sp) == C_TRADE:
            return C_TRADE
    return C_NONE


# -- the turn --------------------------------------------------------------------------------


@cython.ccall
@cython.exceptval(-1, check=True)
def family_build(ctx: Context, bot: BotState) -> cython.int:
    """FamilyStrategy.build: the next building, if the strategy wants one now."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    me: cython.int = s.actor
    count: cython.int
    i: cython.int
    sp: cython.int
    cost: cython.int
    full: cython.int
    gain: cython.int
    best: cython.int = -1
    built: cython.int = 0
    cash: cython.longlong = s.cash[me]
    score: cython.double
    best_score: cython.double = 0.0
    by_landings: cython.bint = bot.fam[F_BUILD_ORDER] == 1
    if bot.fam[F_HOUSES] == 0:
        return C_NONE
    if bot.built_round == s.round and bot.built_seat == me:
        built = bot.built_count
    if built >= bot.fam[F_BUILDS_PER_TURN]:
        return C_NONE
    full = t.max_houses[s.roles[me]]
    if by_landings:
        landings(ctx, bot)
    count = targets(ctx, C_BUILD)
    for i in range(count):
        sp = ctx.spaces[i]
        cost = t.house_cost[sp]
        if cash - cost < bot.fam[F_BUILD_RESERVE]:
            continue
        if s.houses[sp] >= full:
            if not bot.fam[F_APARTMENTS] or bot.fam[F_HOUSES] < full:
                continue
        elif s.houses[sp] >= bot.fam[F_HOUSES]:
            continue
        gain = s.rent_built(sp) - rent_now(ctx, sp)
        if by_landings:
            score = gain * bot.landings[sp] / cython.cast(cython.double, cost)
        else:
            score = gain
        if score > best_score:
            best = sp
            best_score = score
    if best < 0:
        return C_NONE
    bot.built_round = s.round
    bot.built_seat = me
    bot.built_count = built + 1
    return choice(C_BUILD, best)


@cython.ccall
@cython.exceptval(-1, check=True)
def family_manage(ctx: Context, bot: BotState) -> cython.int:
    """FamilyStrategy.manage: offer a trade, build, or redeem."""
    s: rules.State = ctx.s
    count: cython.int
    i: cython.int
    cash: cython.longlong
    c: cython.int
    if bot.fam[F_OFFER]:
        c = propose_monopoly_trade(ctx, bot)
        if c != C_NONE:
            return c
        c = propose_blocking_trade(ctx, bot)
        if c != C_NONE:
            return c
    c = family_build(ctx, bot)
    if c != C_NONE:
        return c
    cash = s.cash[s.actor]
    count = targets(ctx, C_REDEEM)
    for i in range(count):
        if cash - s.redeem_values[ctx.spaces[i]] >= bot.fam[F_REDEEM_RESERVE]:
            return choice(C_REDEEM, ctx.spaces[i])
    return C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def cautious_manage(ctx: Context, bot: BotState) -> cython.int:
    """CautiousStrategy.manage: at most one building a turn, the dearest street first, and
    only from three times its reserve; redeems from twice its reserve."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    me: cython.int = s.actor
    cash: cython.longlong = s.cash[me]
    count: cython.int
    i: cython.int
    sp: cython.int
    best: cython.int = -1
    if cash < 3 * bot.reserve:
        return C_NONE
    if not (bot.built_round == s.round and bot.built_seat == me):
        count = targets(ctx, C_BUILD)
        for i in range(count):
            sp = ctx.spaces[i]
            if cash - t.house_cost[sp] >= 3 * bot.reserve:
                if best < 0 or t.price[sp] > t.price[best]:
                    best = sp
        if best >= 0:
            bot.built_round = s.round
            bot.built_seat = me
            return choice(C_BUILD, best)
    count = targets(ctx, C_REDEEM)
    for i in range(count):
        if cash - s.redeem_values[ctx.spaces[i]] >= 2 * bot.reserve:
            return choice(C_REDEEM, ctx.spaces[i])
    return C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def builder_manage(ctx: Context, bot: BotState) -> cython.int:
    """BuilderStrategy.manage: builds wherever one landing's rent rises most, keeping its
    reserve."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    cash: cython.longlong = s.cash[s.actor]
    count: cython.int
    i: cython.int
    sp: cython.int
    best: cython.int = -1
    gain: cython.int
    best_gain: cython.int = 0
    if cash < bot.reserve + 50:
        return C_NONE
    count = targets(ctx, C_BUILD)
    for i in range(count):
        sp = ctx.spaces[i]
        if cash - t.house_cost[sp] >= bot.reserve:
            gain = s.rent_built(sp) - rent_now(ctx, sp)
            if best < 0 or gain > best_gain:
                best = sp
                best_gain = gain
    return choice(C_BUILD, best) if best >= 0 else C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def investor_manage(ctx: Context, bot: BotState) -> cython.int:
    """InvestorStrategy.manage: offer for a monopoly's last street; build where the expected
    rent per dollar is highest (at least `min_return`); redeem from three times its reserve."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    cash: cython.longlong = s.cash[s.actor]
    count: cython.int
    i: cython.int
    sp: cython.int
    best: cython.int = -1
    gain: cython.double
    best_return: cython.double
    c: cython.int = propose_monopoly_trade(ctx, bot)
    if c != C_NONE:
        return c
    if cash < bot.reserve + 50:
        return C_NONE
    count = targets(ctx, C_BUILD)
    if count:
        landings(ctx, bot)
        best_return = bot.min_return
        for i in range(count):
            sp = ctx.spaces[i]
            if cash - t.house_cost[sp] < bot.reserve:
                continue
            gain = (
                cython.cast(cython.double, s.rent_built(sp) - rent_now(ctx, sp))
                * bot.landings[sp]
                / cython.cast(cython.double, t.house_cost[sp])
            )
            if gain > best_return:
                best = sp
                best_return = gain
        if best >= 0:
            return choice(C_BUILD, best)
    if cash >= 3 * bot.reserve:
        count = targets(ctx, C_REDEEM)
        if count:
            return choice(C_REDEEM, ctx.spaces[0])
    return C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def manage(ctx: Context, bot: BotState) -> cython.int:
    """Bot.manage: build, redeem or trade on the bot's own turn; C_NONE for nothing."""
    if bot.kind == BOT_FAMILY:
        return family_manage(ctx, bot)
    if bot.kind == BOT_CAUTIOUS:
        return cautious_manage(ctx, bot)
    if bot.kind == BOT_BUILDER:
        return builder_manage(ctx, bot)
    if bot.kind == BOT_INVESTOR:
        return investor_manage(ctx, bot)
    return C_NONE


@cython.ccall
@cython.exceptval(-1, check=True)
def before_throw(ctx: Context, bot: BotState) -> cython.int:
    """Bot.before_throw: pay the fine to leave the hold when rich enough, else manage (the
    investor and a family bot build and trade after the throw)."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    me: cython.int = s.actor
    fine_from: cython.longlong
    if bot.kind == BOT_FAMILY:
        fine_from = bot.fam[F_FINE_CASH]
    elif bot.kind == BOT_BUILDER:
        fine_from = t.fine + bot.reserve
    else:
        fine_from = 4 * bot.reserve
    if s.held[me] != NOBODY and s.cash[me] >= fine_from and can_pay_fine(ctx):
        return C_PAY_FINE
    if bot.kind == BOT_FAMILY or bot.kind == BOT_INVESTOR:
        return C_NONE
    return manage(ctx, bot)


# -- the random bot --------------------------------------------------------------------------


@cython.ccall
@cython.exceptval(-1, check=True)
def random_trade(ctx: Context, bot: BotState) -> cython.int:
    """RandomStrategy._random_trade: a random trade with a random other player (some of each
    side's bare titles, and random cash), proposed; 0 for none."""
    s: rules.State = ctx.s
    t: rules.Tables = ctx.t
    me: cython.int = s.actor
    other: cython.int
    n_others: cython.int = 0
    p: cython.int
    i: cython.int
    sp: cython.int
    low: cython.longlong
    high: cython.longlong
    for p in range(s.n):
        if not s.bankrupt[p] and p != me:
            n_others += 1
    if n_others == 0:
        return 0
    other = draw_below(ctx, n_others)  # the k-th other player, in seat order
    for p in range(s.n):
        if not s.bankrupt[p] and p != me:
            if other == 0:
                other = p
                break
            other -= 1
    propose(ctx, other)
    for i in range(t.n_titles):
        sp = t.titles[i]
        if s.owner[sp] == me and not s.houses[sp] and not s.apartment[sp]:
            if draw(ctx) < 0.3:
                propose_give(ctx, sp)
    for i in range(t.n_titles):
        sp = t.titles[i]
        if s.owner[sp] == other and not s.houses[sp] and not s.apartment[sp]:
            if draw(ctx) < 0.3:
                propose_get(ctx, sp)
    if s.proposal.n_give == 0 and s.proposal.n_get == 0:
        return 0
    low = -s.cash[other]
    high = s.cash[me]
    if draw(ctx) < 0.7:
        propose_pay(ctx, low + draw_below(ctx, high - low + 1))  # randint(low, high)
    else:
        propose_pay(ctx, 0)
    return 1


@cython.ccall
@cython.exceptval(-1, check=True)
def random_choose(ctx: Context, bot: BotState) -> cython.int:
    """RandomStrategy.choose: a uniformly random legal choice; now and then a random trade."""
    s: rules.State = ctx.s
    count: cython.int
    if bot.tax != TAX_RANDOM and s.phase == INCOME_TAX:
        return income_tax_choice(ctx, bot)
    if trade_possible(ctx) and draw(ctx) < bot.trade_rate:
        if random_trade(ctx, bot) and rules.trade_is_legal(s, ctx.legal):
            return C_TRADE
    count = rules.legal_codes(s, ctx.legal)
    return ctx.legal.codes[draw_below(ctx, count)]


# -- one decision ----------------------------------------------------------------------------


@cython.ccall
@cython.exceptval(-1, check=True)
def choose(ctx: Context, bot: BotState) -> cython.int:
    """Bot.choose: the bot's choice for the pending decision, as a code."""
    s: rules.State = ctx.s
    c: cython.int
    phase: cython.int = s.phase
    if bot.kind == BOT_RANDOM:
        return random_choose(ctx, bot)
    if phase == PRE_ROLL:
        c = before_throw(ctx, bot)
        return C_ROLL if c == C_NONE else c
    if phase == POST_ROLL:
        c = manage(ctx, bot)
        return C_END_TURN if c == C_NONE else c
    if phase == BUY_PHASE:
        if rules.why_not_buy(s, ctx.t, s.actor) == 0 and wants(ctx, bot, s.pending_buy):
            return C_BUY
        return C_DECLINE
    if phase == INCOME_TAX:
        return income_tax_choice(ctx, bot)
    if phase == RAISE:
        return raise_money(ctx, bot)
    if phase == TRADE_ANSWER:
        return C_ACCEPT if accepts(ctx, bot) else C_REJECT
    c = final_adjust(ctx, bot)
    return C_END_TURN if c == C_NONE else c


# -- a choice's code as the engine's `Choice` ---------------------------------------------------


@lru_cache(maxsize=256)
def role_landings(rules, board, role: int) -> tuple:
    """Expected landings per round on each space by one opponent of `role` (Markov chain)."""
    odds = landing_odds(role, "pay", rules, board)
    return tuple(float(a) * odds.throws_per_turn for a in odds.arrivals)


def as_choice(ctx: Context, code: int) -> Choice:
    """The engine's `Choice` for a code a decision returned (a trade: the proposal written
    into the state)."""
    if code % CHOICE_BASE == C_TRADE:
        return Choice("trade", Trade(*rules.trade_parts(ctx.s.proposal)))
    return rules.as_choice(code)
