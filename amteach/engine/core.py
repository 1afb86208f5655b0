# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
# cython: cdivision=True, nonecheck=False, infer_types=True, auto_pickle=False
"""The board, the rules and the rule arithmetic, written once for both cores (issue 26).

`Tables` holds what never changes during a game: the board (kinds, prices, rent ladders,
cities, decks) and the rule parameters, as arrays indexed by space. `fill_tables` builds it
from the engine's own `Board` and `RuleSet`, taking every code (space kinds, card effects)
from the engine's names, never by position.

The functions below are the rules' arithmetic: the rent of a title (its amount, its basis and
its count), buildings paid for, the rent once the next building stands, the income tax's
percentage, what selling buildings and mortgaging raise. Each takes the `Tables` and the few
numbers of the game's state it needs. Then the game's state itself, once (`State`, issue 38:
`Game` keeps one, the compiled kernel's `G` extends it), with the walks over a player's titles,
the debt queue, the dice (`MT`, CPython's stream) and the steps of the transitions on it, and
the transitions, each a function of a `State` and the `Tables` that reads and writes the
state's fields directly and takes its steps (`State`'s `cdef inline` methods: compiled, plain
C calls).

This module is Cython's pure-Python mode: `core.pxd` beside it types `Tables` as C arrays and
the functions as `cpdef` C functions, which the kernel cimports. `setup.py` compiles it; run as
plain Python (with the `cython` package, a dependency) it gives the same answers.
`amteach.engine.builds` says which build the engine uses.

Every division has operands that are never negative (money and counts), so C division
(`cdivision`) gives the same result as Python's floor division.
"""

# ruff: noqa: SIM102, SIM108, SIM109
# (one `if` per rule, as the rules read; `==` chains on C ints, which Cython compiles to plain C)

import dataclasses

import cython

from amteach.engine import board as engine_board
from amteach.engine.board import CARD_EFFECTS, KINDS
from amteach.engine.choices import CHOICE_KINDS, TAX_OPTIONS, TITLE_CHOICES, Choice
from amteach.engine.terms import PaymentReason, Phase

# compiled (the extension) or plain Python (this file run as it is)
COMPILED = cython.compiled
if cython.compiled:
    # the SHA-256 of core.py and core.pxd when compiled (setup.py passes it in), so that
    # amteach.engine.builds never uses a build older than the sources beside it
    SOURCE_SHA256 = AMTEACH_CORE_SHA256.decode("ascii")  # noqa: F821 (core.pxd)
else:
    SOURCE_SHA256 = None

# -- sizes (a board may have at most these; core.pxd writes them as numbers) -----------------
MAX_SPACES = 40
MAX_CARDS = 32
MAX_CITIES = 16
# the groups a title counts in for its rent and a monopoly: each city, then the transports and
# the utilities (`Tables.group`; `State.group_held` counts each seat's, unmortgaged)
MAX_GROUPS = MAX_CITIES + 2
GROUP_TRANSPORTS = MAX_CITIES
GROUP_UTILITIES = MAX_CITIES + 1
NO_GROUP = -1
# the same for Python readers (compiled, the names above are C ints, not the module's
# attributes): the groups past the cities by name, and how many groups a seat's counts have
GROUP_CODES = {"transports": GROUP_TRANSPORTS, "utilities": GROUP_UTILITIES}
N_GROUPS = MAX_GROUPS
MAX_LIST = 8  # the monopolists' transport fares and utility multipliers
MAX_FACE = 7  # the Foundation's prizes, by die face 1..6
RENT_LADDER = 6  # a street's rents for either role: the last rung is the apartment
APARTMENT_RUNG = RENT_LADDER - 1

# -- codes: each the position of a name in the engine's own vocabulary -----------------------
# the roles (C ints when compiled: compared with a role, a Python name would cost a lookup)
COMPETITOR = engine_board.COMPETITOR
MONOPOLIST = engine_board.MONOPOLIST
NOBODY = -1  # an unowned title's owner (the engine's NOBODY); also the Treasury as a creditor
NO_SPACE = -1  # a payment tied to no space
K_CORNER = KINDS.index("corner")
K_STREET = KINDS.index("street")
K_CARD = KINDS.index("card")
K_TAX = KINDS.index("tax")
K_TRANSPORT = KINDS.index("transport")
K_UTILITY = KINDS.index("utility")
EFFECTS = tuple(CARD_EFFECTS)
E_COLLECT = EFFECTS.index("collect")
E_PAY = EFFECTS.index("pay")
E_COLLECT_FROM_MONOPOLISTS = EFFECTS.index("collect_from_each_monopolist")
E_COLLECT_FROM_COMPETITORS = EFFECTS.index("collect_from_each_competitor")
E_ALL_MONOPOLISTS_COLLECT = EFFECTS.index("all_monopolists_collect")
E_NOTHING = EFFECTS.index("nothing")
E_MOVE_TO = EFFECTS.index("move_to")
E_GO_TO_PRICE_WAR = EFFECTS.index("go_to_price_war")
E_GO_TO_PRISON = EFFECTS.index("go_to_prison")
E_ROLL_FOR = EFFECTS.index("roll_for")

# Why money moves (`PaymentReason`, whose values the events carry), and what dice are thrown
# for (`Game._throw`'s purposes): the codes the steps take, each its position here.
PAYMENTS = tuple(PaymentReason)
P_START = PAYMENTS.index(PaymentReason.START)
P_INCOME_TAX = PAYMENTS.index(PaymentReason.INCOME_TAX)
P_PROPERTY_TAX = PAYMENTS.index(PaymentReason.PROPERTY_TAX)
P_FOUNDATION_FEE = PAYMENTS.index(PaymentReason.FOUNDATION_FEE)
P_FOUNDATION_GRANT = PAYMENTS.index(PaymentReason.FOUNDATION_GRANT)
P_CARD = PAYMENTS.index(PaymentReason.CARD)
P_FINE = PAYMENTS.index(PaymentReason.FINE)
P_SETTLEMENT = PAYMENTS.index(PaymentReason.SETTLEMENT)
P_TRADE = PAYMENTS.index(PaymentReason.TRADE)
THROWS = ("move", "doubles_attempt", "foundation", "card")
T_MOVE = THROWS.index("move")
T_DOUBLES_ATTEMPT = THROWS.index("doubles_attempt")
T_FOUNDATION = THROWS.index("foundation")
T_CARD = THROWS.index("card")
# How a pawn moves forward (`Moved.by`), and how a pair of dice thrown crosses the interface
# (`State.throw_pair` returns `pair_of(first, second)`: the first die times DIE_BASE plus the
# second; a die is 1 to 6).
MOVES = ("dice", "card")
BY_DICE = MOVES.index("dice")
BY_CARD = MOVES.index("card")
DIE_BASE = 8

# How a game ends (`Game.end_reason`, the frames' end reason): the codes, each its position.
ENDINGS = ("game_a", "game_b", "two_hour", "round_cap")
END_GAME_A = ENDINGS.index("game_a")
END_GAME_B = ENDINGS.index("game_b")
END_TWO_HOUR = ENDINGS.index("two_hour")
END_ROUND_CAP = ENDINGS.index("round_cap")

# What follows once the debts are paid (`Game.then`): nothing, the rest of the move, or the
# turn of a player released by the fine.
THENS = ("", "after_move", "released")
THEN_NONE = THENS.index("")
THEN_AFTER_MOVE = THENS.index("after_move")
THEN_RELEASED = THENS.index("released")

# What a rent is charged for (`Game.rent_for`'s basis, which events and the UI show): this
# module's own vocabulary, the code of each its position here.
RENT_BASES = (
    "mortgaged",  # or unowned: no rent
    "prison",  # a Monopolist owner in Prison collects nothing
    "apartment",
    "houses",  # a Competitor's street with houses
    "bare",  # a Competitor's street without buildings
    "single",  # a Monopolist's street without the monopoly
    "monopoly",  # a monopolized street without buildings
    "monopoly_houses",
    "transport_competitor",
    "transport_monopolist",
    "utility",
)
R_MORTGAGED = RENT_BASES.index("mortgaged")
R_PRISON = RENT_BASES.index("prison")
R_APARTMENT = RENT_BASES.index("apartment")
R_HOUSES = RENT_BASES.index("houses")
R_BARE = RENT_BASES.index("bare")
R_SINGLE = RENT_BASES.index("single")
R_MONOPOLY = RENT_BASES.index("monopoly")
R_MONOPOLY_HOUSES = RENT_BASES.index("monopoly_houses")
R_TRANSPORT_COMPETITOR = RENT_BASES.index("transport_competitor")
R_TRANSPORT_MONOPOLIST = RENT_BASES.index("transport_monopolist")
R_UTILITY = RENT_BASES.index("utility")


def zeros(*shape: int) -> list:
    """A list (of lists) of zeros: an array's first value, compiled or not."""
    if len(shape) == 1:
        return [0] * shape[0]
    return [zeros(*shape[1:]) for _ in range(shape[0])]


@cython.cclass
class Tables:
    """The board and the rules, fixed for a game or a batch (filled by `fill_tables`).

    A rule parameter that is one whole number is a field of the same name as in `RuleSet`
    (`fill_tables` copies those by name); the per-role and list parameters are arrays."""

    def __init__(self):
        if not cython.compiled:  # compiled, the C arrays start zeroed
            self.kind = zeros(MAX_SPACES)
            self.city = zeros(MAX_SPACES)
            self.group = zeros(MAX_SPACES)
            self.price = zeros(MAX_SPACES)
            self.house_cost = zeros(MAX_SPACES)
            self.titles = zeros(MAX_SPACES)
            self.streets = zeros(MAX_SPACES)
            self.transports = zeros(MAX_SPACES)
            self.utilities = zeros(MAX_SPACES)
            self.crent = zeros(MAX_SPACES, RENT_LADDER)
            self.mrent = zeros(MAX_SPACES, RENT_LADDER)
            self.city_size = zeros(MAX_CITIES)
            self.city_member = zeros(MAX_CITIES, MAX_SPACES)
            self.deck_size = zeros(2)
            self.card_effect = zeros(2, MAX_CARDS)
            self.card_amount = zeros(2, MAX_CARDS)
            self.card_target = zeros(2, MAX_CARDS)
            self.tax_rates = zeros(2, 3)
            self.prizes = zeros(MAX_FACE)
            self.max_houses = zeros(2)
            self.fares_monopolist = zeros(MAX_LIST)
            self.utility_monopolist = zeros(MAX_LIST)
            self.keep_percent = zeros(2)


def whole_number_rules(rules) -> dict:
    """The rule parameters that are one whole number (a `Tables` field each, by name)."""
    out = {}
    for field in dataclasses.fields(rules):
        value = getattr(rules, field.name)
        if type(value) is int:
            out[field.name] = value
    return out


def fill_tables(t: Tables, board, rules) -> Tables:
    """Fill `t` (a `Tables`, or the kernel's `Static`, which extends it) from a `Board` and a
    `RuleSet`. Raises ValueError for a board larger than the arrays."""
    if len(board.spaces) > MAX_SPACES:
        raise ValueError(f"the rules' tables hold at most {MAX_SPACES} spaces")
    cities = list(board.cities)
    if len(cities) > MAX_CITIES:
        raise ValueError(f"the rules' tables hold at most {MAX_CITIES} cities")
    t.n_spaces = len(board.spaces)
    for space in board.spaces:
        i = space.index
        t.kind[i] = KINDS.index(space.kind)
        t.city[i] = cities.index(space.city) if space.kind == "street" else -1
        if space.kind == "street":
            t.group[i] = t.city[i]
        elif space.kind == "transport":
            t.group[i] = GROUP_TRANSPORTS
        elif space.kind == "utility":
            t.group[i] = GROUP_UTILITIES
        else:
            t.group[i] = NO_GROUP
        t.price[i] = space.price
        t.house_cost[i] = space.house_cost
        if space.kind == "street" and (
            len(space.competitor_rents) != RENT_LADDER or len(space.monopolist_rents) != RENT_LADDER
        ):
            raise ValueError(f"the rules' tables need {RENT_LADDER} rents per role on street {i}")
        for k, rent in enumerate(space.competitor_rents):
            t.crent[i][k] = rent
        for k, rent in enumerate(space.monopolist_rents):
            t.mrent[i][k] = rent
    t.n_cities = len(cities)
    for c, city in enumerate(cities):
        t.city_size[c] = len(board.cities[city])
        for k, member in enumerate(board.cities[city]):
            t.city_member[c][k] = member
    t.n_titles = len(board.titles)
    for k, sp in enumerate(board.titles):
        t.titles[k] = sp
    t.n_streets = len(board.streets)
    for k, sp in enumerate(board.streets):
        t.streets[k] = sp
    t.n_transports = len(board.transports)
    for k, sp in enumerate(board.transports):
        t.transports[k] = sp
    t.n_utilities = len(board.utilities)
    for k, sp in enumerate(board.utilities):
        t.utilities[k] = sp
    t.income_tax_space = board.income_tax_space
    t.property_tax_space = board.property_tax_space
    t.hold_space = board.hold_space
    t.go_to_hold_space = board.go_to_hold_space
    t.foundation_space = board.foundation_space
    for role in (COMPETITOR, MONOPOLIST):
        deck = board.deck(role)
        if len(deck) > MAX_CARDS or not deck:
            raise ValueError(f"the rules' tables hold decks of 1 to {MAX_CARDS} cards")
        t.deck_size[role] = len(deck)
        for k, card in enumerate(deck):
            t.card_effect[role][k] = EFFECTS.index(card.effect)
            t.card_amount[role][k] = card.amount
            t.card_target[role][k] = card.target
    # the rules: every whole-number parameter by its name, then the rest
    for name, value in whole_number_rules(rules).items():
        setattr(t, name, value)
    for role in (COMPETITOR, MONOPOLIST):
        for k, rate in enumerate(rules.income_tax_percents(role)):
            t.tax_rates[role][k] = rate
        t.max_houses[role] = rules.max_houses(role)
        t.keep_percent[role] = rules.settlement_keep_percent(role)
    for face, amount in rules.foundation_competitor_prizes:
        t.prizes[face] = amount
    t.unlimited_supply = rules.unlimited_supply
    if len(rules.transport_fares_monopolist) > MAX_LIST:
        raise ValueError(f"the rules' tables hold at most {MAX_LIST} fares")
    t.n_fares = len(rules.transport_fares_monopolist)
    for k, fare in enumerate(rules.transport_fares_monopolist):
        t.fares_monopolist[k] = fare
    if len(rules.utility_multipliers_monopolist) > MAX_LIST:
        raise ValueError(f"the rules' tables hold at most {MAX_LIST} utility multipliers")
    t.n_utility_multipliers = len(rules.utility_multipliers_monopolist)
    for k, m in enumerate(rules.utility_multipliers_monopolist):
        t.utility_monopolist[k] = m
    t.round_cap = -1 if rules.round_cap is None else rules.round_cap
    return t


def tables(board, rules) -> Tables:
    """A new `Tables` for this board and these rules."""
    return fill_tables(Tables(), board, rules)


# -- the rules' arithmetic -------------------------------------------------------------------


@cython.ccall
@cython.exceptval(check=False)
def percent_of(amount: cython.longlong, percent: cython.int) -> cython.longlong:
    """`percent` % of `amount` in whole dollars, rounded half up."""
    return (amount * percent + 50) // 100


@cython.ccall
@cython.exceptval(check=False)
def rent_basis(
    t: Tables,
    space: cython.int,
    role: cython.int,
    held: cython.bint,
    mortgaged: cython.bint,
    houses: cython.int,
    apartment: cython.bint,
    count: cython.int,
) -> cython.int:
    """What one landing's rent on `space` is charged for (an `R_...` code of `RENT_BASES`).
    `role` is the owner's (NOBODY: unowned), `held` whether the owner is held, `count` how
    many titles of the space's group (its city, the transports, the utilities) the owner has
    unmortgaged, this one counted as unmortgaged."""
    kind: cython.int = t.kind[space]
    if role == NOBODY or mortgaged:
        return R_MORTGAGED
    if role == MONOPOLIST and held:
        return R_PRISON
    if kind == K_STREET:
        if role == COMPETITOR:
            if apartment:
                return R_APARTMENT
            if houses:
                return R_HOUSES
            return R_BARE
        # decision 5: the monopoly needs monopoly_streets unmortgaged streets of the city
        if count < t.monopoly_streets:
            return R_SINGLE
        if apartment:
            return R_APARTMENT
        if houses:
            return R_MONOPOLY_HOUSES
        return R_MONOPOLY
    if kind == K_TRANSPORT:
        if role == COMPETITOR:
            return R_TRANSPORT_COMPETITOR
        return R_TRANSPORT_MONOPOLIST
    return R_UTILITY


@cython.ccall
@cython.exceptval(check=False)
def utility_multiplier(t: Tables, role: cython.int, count: cython.int) -> cython.int:
    """What a utility's rent multiplies the dice by, for an owner of `role` with `count`
    utilities unmortgaged."""
    if role == COMPETITOR:
        return t.utility_multiplier_competitor
    return t.utility_monopolist[(count - 1 + t.n_utility_multipliers) % t.n_utility_multipliers]


@cython.ccall
@cython.exceptval(check=False)
def rent_amount(
    t: Tables,
    space: cython.int,
    basis: cython.int,
    role: cython.int,
    houses: cython.int,
    count: cython.int,
    dice: cython.int,
) -> cython.int:
    """The rent for this basis (`rent_basis`'s arguments; `dice` for a utility)."""
    if basis == R_MORTGAGED or basis == R_PRISON:
        return 0
    if basis == R_APARTMENT:
        if role == COMPETITOR:
            return t.crent[space][APARTMENT_RUNG]
        return t.mrent[space][APARTMENT_RUNG]
    if basis == R_HOUSES or basis == R_BARE:
        return t.crent[space][houses]
    if basis == R_SINGLE:
        return t.mrent[space][0]
    if basis == R_MONOPOLY:
        return t.mrent[space][1]
    if basis == R_MONOPOLY_HOUSES:
        return t.mrent[space][1 + houses]
    if basis == R_TRANSPORT_COMPETITOR:
        return t.transport_fare_competitor
    if basis == R_TRANSPORT_MONOPOLIST:
        return t.fares_monopolist[(count - 1 + t.n_fares) % t.n_fares]
    return utility_multiplier(t, role, count) * dice


@cython.ccall
@cython.exceptval(check=False)
def rent_count(
    t: Tables, basis: cython.int, role: cython.int, houses: cython.int, count: cython.int
) -> cython.int:
    """The number a rent event shows beside its basis: the houses, the titles of the group
    owned, or a utility's multiplier."""
    if basis == R_HOUSES or basis == R_BARE or basis == R_MONOPOLY_HOUSES:
        return houses
    if basis == R_SINGLE or basis == R_MONOPOLY or basis == R_TRANSPORT_MONOPOLIST:
        return count
    if basis == R_TRANSPORT_COMPETITOR:
        return 1
    if basis == R_UTILITY:
        return utility_multiplier(t, role, count)
    return 0


@cython.ccall
@cython.exceptval(check=False)
def rent(
    t: Tables,
    space: cython.int,
    role: cython.int,
    held: cython.bint,
    mortgaged: cython.bint,
    houses: cython.int,
    apartment: cython.bint,
    count: cython.int,
    dice: cython.int,
) -> cython.int:
    """One landing's rent: `rent_amount` of `rent_basis` (the same arguments)."""
    return rent_amount(
        t,
        space,
        rent_basis(t, space, role, held, mortgaged, houses, apartment, count),
        role,
        houses,
        count,
        dice,
    )


@cython.ccall
@cython.exceptval(check=False)
def next_is_apartment(t: Tables, role: cython.int, houses: cython.int) -> cython.bint:
    """Does the next building on a street with `houses` replace them with an apartment? (Once
    the owner's role has its maximum of houses there.)"""
    return houses >= t.max_houses[role]


@cython.ccall
@cython.exceptval(check=False)
def rent_after_build(
    t: Tables,
    space: cython.int,
    role: cython.int,
    held: cython.bint,
    mortgaged: cython.bint,
    houses: cython.int,
    count: cython.int,
) -> cython.int:
    """The rent (utilities at the settlement dice) once the next building stands on a
    street: the next house, or the apartment that replaces the role's maximum of houses."""
    if next_is_apartment(t, role, houses):
        return rent(t, space, role, held, mortgaged, 0, True, count, t.settlement_utility_dice)
    return rent(
        t, space, role, held, mortgaged, houses + 1, False, count, t.settlement_utility_dice
    )


@cython.ccall
@cython.exceptval(check=False)
def buildings_paid(
    t: Tables, space: cython.int, role: cython.int, houses: cython.int, apartment: cython.bint
) -> cython.int:
    """What was paid for the buildings on a street (the 'improvements' of the income tax):
    an apartment stands for the role's maximum of houses and one more."""
    if apartment:
        return t.house_cost[space] * (t.max_houses[role] + 1)
    return t.house_cost[space] * houses


@cython.ccall
@cython.exceptval(check=False)
def buildings_refund(
    t: Tables, space: cython.int, role: cython.int, houses: cython.int, apartment: cython.bint
) -> cython.int:
    """What selling every building on a street at once returns (a bankruptcy, the
    liquidation value): the sell-back percentage of all that was paid."""
    return percent_of(
        buildings_paid(t, space, role, houses, apartment), t.building_sellback_percent
    )


@cython.ccall
@cython.exceptval(check=False)
def building_sale_value(
    t: Tables, space: cython.int, role: cython.int, houses: cython.int, apartment: cython.bint
) -> cython.int:
    """What selling one building returns: an apartment, part of everything paid for the
    street; a house, part of its cost."""
    if apartment:
        return buildings_refund(t, space, role, houses, apartment)
    return percent_of(t.house_cost[space], t.building_sellback_percent)


@cython.ccall
@cython.exceptval(check=False)
def mortgage_value(t: Tables, space: cython.int) -> cython.int:
    """What mortgaging a title raises."""
    return percent_of(t.price[space], t.mortgage_percent)


@cython.ccall
@cython.exceptval(check=False)
def redeem_value(t: Tables, space: cython.int) -> cython.int:
    """What redeeming a mortgaged title costs."""
    return percent_of(t.price[space], t.redeem_percent)


@cython.ccall
@cython.exceptval(check=False)
def title_liquidation(
    t: Tables,
    space: cython.int,
    role: cython.int,
    houses: cython.int,
    apartment: cython.bint,
    mortgaged: cython.bint,
    mortgage: cython.int,
) -> cython.longlong:
    """What one title adds to its owner's liquidation value: its buildings sold, and its
    mortgage (`mortgage`, the game's figure) when it is not mortgaged yet."""
    total: cython.longlong = buildings_refund(t, space, role, houses, apartment)
    if not mortgaged:
        total += mortgage
    return total


@cython.ccall
@cython.exceptval(check=False)
def title_worth(
    t: Tables, space: cython.int, mortgaged: cython.bint, redeem: cython.int
) -> cython.int:
    """A title in net worth: its price, less the redeem price (`redeem`) while mortgaged."""
    if mortgaged:
        return t.price[space] - redeem
    return t.price[space]


@cython.ccall
@cython.exceptval(check=False)
def tax_percent(
    t: Tables,
    role: cython.int,
    cash: cython.longlong,
    prop: cython.longlong,
    improvements: cython.longlong,
) -> cython.longlong:
    """Decision 1: the income tax's percentage amount, from cash, the unmortgaged titles at
    price (`prop`) and what was paid for their buildings (`improvements`), at the role's
    rates, rounded half up."""
    return (
        t.tax_rates[role][0] * cash
        + t.tax_rates[role][1] * prop
        + t.tax_rates[role][2] * improvements
        + 50
    ) // 100


# -- chance: CPython's random.Random, draw for draw ---------------------------------------------
# One stream per game (the dice and the decks' shuffles), drawn in `State` only; the kernel's
# random bots draw from streams of their own. Every 32-bit step is masked, so uncompiled Python
# draws the same numbers as the compiled build.
MT_N = 624
MT_M = 397
MASK32 = 0xFFFFFFFF
UPPER_MASK = 0x80000000
LOWER_MASK = 0x7FFFFFFF
MATRIX_A = 0x9908B0DF
TEMPER_B = 0x9D2C5680
TEMPER_C = 0xEFC60000


@cython.cclass
class MT:
    """The Mersenne Twister's state."""

    def __init__(self):
        if not cython.compiled:  # compiled, the C arrays start zeroed
            self.state = zeros(MT_N)
        self.index = MT_N


def mt_init_genrand(mt, s):
    i: cython.int
    prev: cython.ulonglong
    mt.state[0] = s
    for i in range(1, MT_N):
        prev = mt.state[i - 1]
        mt.state[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & MASK32
    mt.index = MT_N


def mt_seed(mt, seed):
    """random.Random(seed) for 0 <= seed < 2**64: init_by_array over the 32-bit words."""
    key0: cython.ulonglong = seed & MASK32
    key1: cython.ulonglong = seed >> 32
    key: cython.ulonglong
    prev: cython.ulonglong
    x: cython.ulonglong
    key_length: cython.int = 2 if key1 != 0 else 1
    i: cython.int = 1
    j: cython.int = 0
    k: cython.int
    mt_init_genrand(mt, 19650218)
    k = MT_N if key_length < MT_N else key_length
    while k > 0:
        key = key0 if j == 0 else key1
        prev = mt.state[i - 1]
        x = mt.state[i]
        mt.state[i] = ((x ^ (((prev ^ (prev >> 30)) * 1664525) & MASK32)) + key + j) & MASK32
        i += 1
        j += 1
        if i >= MT_N:
            mt.state[0] = mt.state[MT_N - 1]
            i = 1
        if j >= key_length:
            j = 0
        k -= 1
    k = MT_N - 1
    while k > 0:
        prev = mt.state[i - 1]
        x = mt.state[i]
        mt.state[i] = ((x ^ (((prev ^ (prev >> 30)) * 1566083941) & MASK32)) - i) & MASK32
        i += 1
        if i >= MT_N:
            mt.state[0] = mt.state[MT_N - 1]
            i = 1
        k -= 1
    mt.state[0] = UPPER_MASK


def mt_seed_words(mt: MT, seed: int) -> None:
    """random.Random(seed) for a seed of any size (0 <= seed): init_by_array over all of its
    32-bit words, lowest first (`mt_seed` is the same for seeds below 2**64)."""
    key = []
    while seed:
        key.append(seed & MASK32)
        seed >>= 32
    key = key or [0]
    mt_init_genrand(mt, 19650218)
    i = 1
    j = 0
    for _ in range(max(MT_N, len(key))):
        prev = mt.state[i - 1]
        mt.state[i] = (
            (mt.state[i] ^ (((prev ^ (prev >> 30)) * 1664525) & MASK32)) + key[j] + j
        ) & MASK32
        i += 1
        j += 1
        if i >= MT_N:
            mt.state[0] = mt.state[MT_N - 1]
            i = 1
        if j >= len(key):
            j = 0
    for _ in range(MT_N - 1):
        prev = mt.state[i - 1]
        mt.state[i] = ((mt.state[i] ^ (((prev ^ (prev >> 30)) * 1566083941) & MASK32)) - i) & MASK32
        i += 1
        if i >= MT_N:
            mt.state[0] = mt.state[MT_N - 1]
            i = 1
    mt.state[0] = UPPER_MASK


def mt_twist(mt):
    """The next MT_N words of the state (the Mersenne Twister's refill)."""
    y: cython.uint
    kk: cython.int
    for kk in range(MT_N - MT_M):
        y = (mt.state[kk] & UPPER_MASK) | (mt.state[kk + 1] & LOWER_MASK)
        mt.state[kk] = mt.state[kk + MT_M] ^ (y >> 1) ^ (MATRIX_A if (y & 1) else 0)
    for kk in range(MT_N - MT_M, MT_N - 1):
        y = (mt.state[kk] & UPPER_MASK) | (mt.state[kk + 1] & LOWER_MASK)
        mt.state[kk] = mt.state[kk + (MT_M - MT_N)] ^ (y >> 1) ^ (MATRIX_A if (y & 1) else 0)
    y = (mt.state[MT_N - 1] & UPPER_MASK) | (mt.state[0] & LOWER_MASK)
    mt.state[MT_N - 1] = mt.state[MT_M - 1] ^ (y >> 1) ^ (MATRIX_A if (y & 1) else 0)
    mt.index = 0


def mt_next(mt):
    y: cython.uint
    if mt.index >= MT_N:
        mt_twist(mt)
    y = mt.state[mt.index]
    mt.index += 1
    y ^= y >> 11
    y ^= (y << 7) & TEMPER_B
    y ^= (y << 15) & TEMPER_C
    y ^= y >> 18
    return y


def mt_random(mt):
    """random.random(): 53 bits from two draws."""
    a: cython.uint = mt_next(mt) >> 5
    b: cython.uint = mt_next(mt) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


def bit_length(n):
    k: cython.int = 0
    while n > 0:
        k += 1
        n >>= 1
    return k


def mt_randbelow(mt, n):
    """random._randbelow_with_getrandbits(n) for 0 < n < 2**32."""
    k: cython.int = bit_length(n)
    r: cython.longlong
    if k == 0:
        return 0
    r = mt_next(mt) >> (32 - k)
    while r >= n:
        r = mt_next(mt) >> (32 - k)
    return r


def random_stream(seed, draws: int) -> list:
    """For tests: this file's random.Random(seed): `draws` of (random(), randbelow(1..50))."""
    mt = MT()
    mt_seed(mt, seed)
    out = []
    for i in range(draws):
        out.append(mt_random(mt))
        out.append(mt_randbelow(mt, 1 + i % 50))
    return out


# -- the game's state, once ---------------------------------------------------------------------
MAX_SEATS = 6
MAX_DEBTS = 16
# the phases: the engine's `Phase` by position (the bots' core and the kernel use these codes)
PHASES = tuple(Phase)
PRE_ROLL = PHASES.index(Phase.PRE_ROLL)
BUY = PHASES.index(Phase.BUY)
INCOME_TAX = PHASES.index(Phase.INCOME_TAX)
RAISE = PHASES.index(Phase.RAISE)
POST_ROLL = PHASES.index(Phase.POST_ROLL)
TRADE_ANSWER = PHASES.index(Phase.TRADE_ANSWER)
FINAL_ADJUST = PHASES.index(Phase.FINAL_ADJUST)
OVER = PHASES.index(Phase.OVER)
# the game types (`Setup.game_type`) by position
GAME_TYPES = ("A", "B", "two-hour")
GAME_A = 0
GAME_B = 1
GAME_TWO_HOUR = 2
# a debt's kind: a payment's reason (`PAYMENTS`), or rent, which has a code after them
D_RENT = len(PAYMENTS)

# What `State` tells its `sink` (a callable, or None: a batch pays one pointer test), one code
# per record, each with its numbers: `Game` makes each record the event of
# `amteach.engine.events` it stands for, reading the state at that moment.
NOTES = (
    "purchased",  # p, space, price
    "declined",  # p, space
    "built",  # p, space, apartment, cost
    "building_sold",  # p, space, apartment (the building sold), refund
    "mortgaged",  # p, space, amount
    "redeemed",  # p, space, amount
    "tax_chosen",  # p, percent_chosen
    "payment",  # payer, payee, amount, reason, space, percent
    "left_hold",  # p, by_doubles
    "trade_proposed",  # p
    "trade_answered",  # accepted
    "rent_owed_nothing",  # p, owner, space, basis (mortgaged or prison: no rent)
    "income_tax_due",  # p
    "sent_to_hold",  # p, by_card
    "dice",  # purpose, dice (a tuple)
    "card",  # p, role, index in the role's deck
    "final_accounting",  # reason
    "treasurer_paid",  # owner, space, amount
    "game_over",  # winner, reason
    "rent_paid",  # p, owner, space, amount, basis, count, dice
    "must_raise",  # d, creditor, amount, cash
    "bankrupt",  # d, creditor, debt, cash handed over, titles handed over (a tuple)
    "turn_started",  # p, round
    "stayed_held",  # p, turns held
    "moved",  # p, start, end, by
)
N_PURCHASED = 0
N_DECLINED = 1
N_BUILT = 2
N_BUILDING_SOLD = 3
N_MORTGAGED = 4
N_REDEEMED = 5
N_TAX_CHOSEN = 6
N_PAYMENT = 7
N_LEFT_HOLD = 8
N_TRADE_PROPOSED = 9
N_TRADE_ANSWERED = 10
N_NO_RENT = 11
N_INCOME_TAX_DUE = 12
N_SENT_TO_HOLD = 13
N_DICE = 14
N_CARD = 15
N_FINAL_ACCOUNTING = 16
N_TREASURER_PAID = 17
N_GAME_OVER = 18
N_RENT_PAID = 19
N_MUST_RAISE = 20
N_BANKRUPT = 21
N_TURN_STARTED = 22
N_STAYED_HELD = 23
N_MOVED = 24


@cython.cclass
class Trade:
    """A trade offered or weighed: titles given and asked for, and cash (positive: paid to
    `other`)."""

    def __init__(self):
        if not cython.compiled:  # compiled, the C arrays start zeroed
            self.give = zeros(MAX_SPACES)
            self.get = zeros(MAX_SPACES)

    def fill(self, other: int, give, get, pay: int) -> None:
        """Copy a trade in (at most MAX_SPACES titles a side; `Game` refuses more)."""
        self.other = other
        self.n_give = len(give)
        self.n_get = len(get)
        for i in range(self.n_give):
            self.give[i] = give[i]
        for i in range(self.n_get):
            self.get[i] = get[i]
        self.pay = pay

    def titles(self, side):
        """How many titles side 0 (given) or 1 (asked for) lists."""
        return self.n_get if side else self.n_give

    def title(self, side, i):
        """The i-th title side 0 (given) or 1 (asked for) lists."""
        return self.get[i] if side else self.give[i]


@cython.cclass
class State:
    """One game's state, for `Game` and for the kernel's batches alike (the kernel's `G` adds
    only a batch's things), and the steps of the transitions on it, each written once: the
    transitions below take a `State` and read and write its fields directly.

    Compiled, the state is C arrays; uncompiled, lists. `reset` sets up the start of a game;
    `sink`, when not None, is told of each step a person would read about (`NOTES`)."""

    def __init__(self):
        if not cython.compiled:  # compiled, the C arrays start zeroed
            self.roles = zeros(MAX_SEATS)
            self.cash = zeros(MAX_SEATS)
            self.position = zeros(MAX_SEATS)
            self.held = zeros(MAX_SEATS)
            self.bankrupt = zeros(MAX_SEATS)
            self.turns_taken = zeros(MAX_SEATS)
            self.final_queue = zeros(MAX_SEATS)
            self.cash_at_final = zeros(MAX_SEATS)
            self.rent_paid = zeros(MAX_SEATS)
            self.rent_received = zeros(MAX_SEATS)
            self.income_tax = zeros(MAX_SEATS)
            self.property_tax = zeros(MAX_SEATS)
            self.fines = zeros(MAX_SEATS)
            self.bankrupt_round = zeros(MAX_SEATS)
            self.wealth_titles = zeros(MAX_SEATS)
            self.wealth_buildings = zeros(MAX_SEATS)
            self.owner = zeros(MAX_SPACES)
            self.houses = zeros(MAX_SPACES)
            self.apartment = zeros(MAX_SPACES)
            self.mortgaged = zeros(MAX_SPACES)
            self.mortgage_values = zeros(MAX_SPACES)
            self.redeem_values = zeros(MAX_SPACES)
            self.group_held = zeros(MAX_SEATS, MAX_GROUPS)
            self.held_titles = zeros(MAX_SEATS, MAX_SPACES)
            self.n_held = zeros(MAX_SEATS)
            self.handed = zeros(MAX_SPACES)
            self.found = zeros(MAX_SPACES)
            self.deck = zeros(2, MAX_CARDS)
            self.deck_head = zeros(2)
            self.debt_debtor = zeros(MAX_DEBTS)
            self.debt_creditor = zeros(MAX_DEBTS)
            self.debt_amount = zeros(MAX_DEBTS)
            self.debt_kind = zeros(MAX_DEBTS)
            self.debt_releases = zeros(MAX_DEBTS)
            self.debt_space = zeros(MAX_DEBTS)
            self.debt_basis = zeros(MAX_DEBTS)
            self.debt_count_ = zeros(MAX_DEBTS)
            self.debt_dice = zeros(MAX_DEBTS)
            self.debt_announced = zeros(MAX_DEBTS)
        self.rng = MT()
        self.offer = Trade()
        self.proposal = Trade()
        self.sink = None
        self.forced = None

    # -- the start of a game (one starting state for `Game` and the batches)
    def reset(self, t: Tables, roles, game_type: int, seed: int) -> None:
        """A new game of `len(roles)` seats on these tables: the starting cash, nobody's titles,
        the decks shuffled from `seed`'s stream (as `random.Random(seed).shuffle` would), the
        first seat to throw. `Game` then places a scenario's set-up with `place_seat`,
        `place_title` and `force_cards`."""
        p: cython.int
        sp: cython.int
        role: cython.int
        i: cython.int
        j: cython.int
        tmp: cython.int
        self.t = t
        self.n = len(roles)
        self.game_type = game_type
        self.treasury = 0
        self.total_money = 0
        for p in range(MAX_SEATS):
            self.roles[p] = roles[p] if p < self.n else 0
            self.cash[p] = t.starting_cash if p < self.n else 0
            self.total_money += self.cash[p]
            self.position[p] = 0
            self.held[p] = NOBODY
            self.bankrupt[p] = False
            self.turns_taken[p] = 0
            self.rent_paid[p] = 0
            self.rent_received[p] = 0
            self.income_tax[p] = 0
            self.property_tax[p] = 0
            self.fines[p] = 0
            self.bankrupt_round[p] = -1
            self.cash_at_final[p] = 0
        for sp in range(MAX_SPACES):
            self.owner[sp] = NOBODY
            self.houses[sp] = 0
            self.apartment[sp] = False
            self.mortgaged[sp] = False
            self.mortgage_values[sp] = mortgage_value(t, sp)
            self.redeem_values[sp] = redeem_value(t, sp)
        self.recount()
        self.supply_houses = t.supply_houses
        self.supply_apartments = t.supply_apartments
        if 0 <= seed < 2**64:
            mt_seed(self.rng, seed)
        else:  # random.Random(seed) of any other int: its absolute value's 32-bit words
            mt_seed_words(self.rng, abs(seed))
        for role in range(2):  # each deck in data order, shuffled as random.shuffle does
            for i in range(t.deck_size[role]):
                self.deck[role][i] = i
            for i in range(t.deck_size[role] - 1, 0, -1):
                j = mt_randbelow(self.rng, i + 1)
                tmp = self.deck[role][i]
                self.deck[role][i] = self.deck[role][j]
                self.deck[role][j] = tmp
            self.deck_head[role] = 0
        self.debt_head = 0
        self.debt_count = 0
        self.debt_overflow = False
        self.then = THEN_NONE
        self.round = 1
        self.current = 0
        self.actor = 0
        self.phase = PRE_ROLL
        self.is_extra = False
        self.extra_pending = False
        self.last_dice = t.settlement_utility_dice
        self.pending_buy = NOBODY
        self.offer_phase = PRE_ROLL
        self.final_head = 0
        self.final_count = 0
        self.final_reason = 0
        self.began_final = False
        self.leader_at_final = NOBODY
        self.winner = NOBODY
        self.end_reason = -1
        self.n_handed = 0
        self.handed_cash = 0
        self.last_tax_flat = 0
        self.last_tax_percent = 0

    def place_seat(self, p: int, cash: int, position: int, held: int) -> None:
        """A scenario's seat: its cash (the money in the game follows), space and turns held
        (NOBODY: not held)."""
        self.total_money += cash - self.cash[p]
        self.cash[p] = cash
        self.position[p] = position
        self.held[p] = held

    def place_title(self, space: int, owner: int, houses: int, apartment: int, mortgaged: int):
        """A scenario's title: its owner (NOBODY: the Treasury's), buildings and mortgage;
        the Treasury's supply gives the buildings."""
        self.set_owner(space, owner)
        self.set_mortgaged(space, mortgaged != 0)
        self.set_buildings(space, houses, apartment != 0)

    def force_cards(self, role: int, indices) -> None:
        """A scenario's cards: these (positions in the role's deck) drawn first, in this order,
        then the rest in their shuffled order."""
        t: Tables = self.t
        rest = [self.deck[role][i] for i in range(t.deck_size[role])]
        order = list(indices) + [k for k in rest if k not in indices]
        for i in range(t.deck_size[role]):
            self.deck[role][i] = order[i]
        self.deck_head[role] = 0

    def card_order(self, role: int) -> list:
        """The role's deck from the next card on (positions in the role's deck)."""
        t: Tables = self.t
        size = t.deck_size[role]
        return [self.deck[role][(self.deck_head[role] + i) % size] for i in range(size)]

    # -- reading: one value of a seat or a space, for `Game`'s read-only views
    def seat_value(self, field: int, p: int):
        """Field `field` (a position in `SEAT_FIELDS`) of seat p."""
        if field == 0:
            return self.cash[p]
        if field == 1:
            return self.position[p]
        if field == 2:
            return self.held[p]
        if field == 3:
            return bool(self.bankrupt[p])
        if field == 4:
            return self.turns_taken[p]
        if field == 5:
            return self.roles[p]
        return self.cash_at_final[p]

    def space_value(self, field: int, space: int):
        """Field `field` (a position in `SPACE_FIELDS`) of a space."""
        if field == 0:
            return self.owner[space]
        if field == 1:
            return self.houses[space]
        if field == 2:
            return bool(self.apartment[space])
        if field == 3:
            return bool(self.mortgaged[space])
        if field == 4:
            return self.mortgage_values[space]
        return self.redeem_values[space]

    def poke(self, field: str, index: int, value: int) -> None:
        """Tests only (tests/state_edit.py): write one seat's or space's field as it is, no
        other field following it (a broken invariant, a position no scenario can set up), but
        the counts of `group_held`, the lists of `held_titles` and the sums of `wealth_titles`
        and `wealth_buildings`, which are recounted (`invariants` checks them)."""
        if field == "cash":
            self.cash[index] = value
        elif field == "position":
            self.position[index] = value
        elif field == "held":
            self.held[index] = value
        elif field == "owner":
            self.owner[index] = value
        elif field == "houses":
            self.houses[index] = value
        elif field == "apartment":
            self.apartment[index] = value != 0
        elif field == "mortgaged":
            self.mortgaged[index] = value != 0
        elif field == "bankrupt":
            self.bankrupt[index] = value != 0
        elif field == "group_held":  # a broken count: seat index // MAX_GROUPS, its group
            self.group_held[index // MAX_GROUPS][index % MAX_GROUPS] = value
            return
        elif field == "wealth_titles":  # a broken sum of a seat's titles
            self.wealth_titles[index] = value
            return
        elif field == "wealth_buildings":  # a broken sum of a seat's buildings
            self.wealth_buildings[index] = value
            return
        elif field == "n_held":  # a broken list of a seat's titles: its length
            self.n_held[index] = value
            return
        else:
            raise KeyError(field)
        self.recount()

    def debts_owed(self) -> list:
        """The queued debts, first first: (debtor, creditor, amount) each."""
        out = []
        for i in range(self.debt_count):
            at = (self.debt_head + i) % MAX_DEBTS
            out.append((self.debt_debtor[at], self.debt_creditor[at], self.debt_amount[at]))
        return out

    def adjusters(self) -> list:
        """The seats still to adjust in the final accounting, the one adjusting first."""
        return [self.final_queue[self.final_head + i] for i in range(self.final_count)]

    # -- the titles held: one count a seat and group, and each seat's titles and buildings in
    # net worth, kept where a title changes hands, is mortgaged or redeemed, or is built on
    def rent_group(self, space):
        """`group_count` of an owned title: its owner's unmortgaged titles of its group, this
        one counted as unmortgaged."""
        return self.group_held[self.owner[space]][self.t.group[space]] + (
            1 if self.mortgaged[space] else 0
        )

    def set_owner(self, space, p):
        """The title on `space` goes to p (NOBODY: back to the Treasury): the one place a title
        changes hands, so the counts of `group_held` and the sums of `wealth_titles` and
        `wealth_buildings` follow."""
        t: Tables = self.t
        group: cython.int = t.group[space]
        old: cython.int = self.owner[space]
        worth: cython.int = title_worth(t, space, self.mortgaged[space], self.redeem_values[space])
        if old != NOBODY:
            self.unlist(old, space)
            if not self.mortgaged[space]:
                self.group_held[old][group] -= 1
            self.wealth_titles[old] -= worth
            self.wealth_buildings[old] -= buildings_paid(
                t, space, self.roles[old], self.houses[space], self.apartment[space]
            )
        self.owner[space] = p
        if p != NOBODY:
            self.enlist(p, space)
            if not self.mortgaged[space]:
                self.group_held[p][group] += 1
            self.wealth_titles[p] += worth
            self.wealth_buildings[p] += buildings_paid(
                t, space, self.roles[p], self.houses[space], self.apartment[space]
            )
        return 0

    def enlist(self, p, space):
        """`space` into p's `held_titles`, in board order."""
        i: cython.int = self.n_held[p]
        while i > 0 and self.held_titles[p][i - 1] > space:
            self.held_titles[p][i] = self.held_titles[p][i - 1]
            i -= 1
        self.held_titles[p][i] = space
        self.n_held[p] += 1
        return 0

    def unlist(self, p, space):
        """`space` out of p's `held_titles`, the order kept."""
        i: cython.int
        at: cython.int = 0
        for i in range(self.n_held[p]):
            if self.held_titles[p][i] != space:
                self.held_titles[p][at] = self.held_titles[p][i]
                at += 1
        self.n_held[p] = at
        return 0

    def set_mortgaged(self, space, mortgaged):
        """The title on `space` is mortgaged, or redeemed: its owner's count and the worth of
        its titles follow."""
        t: Tables = self.t
        owner: cython.int = self.owner[space]
        if self.mortgaged[space] != mortgaged and owner != NOBODY:
            self.group_held[owner][t.group[space]] += -1 if mortgaged else 1
            self.wealth_titles[owner] += title_worth(
                t, space, mortgaged, self.redeem_values[space]
            ) - title_worth(t, space, self.mortgaged[space], self.redeem_values[space])
        self.mortgaged[space] = mortgaged
        return 0

    def set_buildings(self, space, houses, apartment):
        """The buildings on `space` are now `houses` houses and `apartment`: the one place
        buildings are put up or taken down, so the Treasury's supply (the buildings not on the
        board) and the owner's `wealth_buildings` follow. With an unlimited supply the supply
        may go below zero: only the legality check (not this bookkeeping) looks at the limit."""
        t: Tables = self.t
        owner: cython.int = self.owner[space]
        if owner != NOBODY:
            self.wealth_buildings[owner] -= buildings_paid(
                t, space, self.roles[owner], self.houses[space], self.apartment[space]
            )
        self.supply_houses += self.houses[space] - houses
        self.supply_apartments += (1 if self.apartment[space] else 0) - (1 if apartment else 0)
        self.houses[space] = houses
        self.apartment[space] = apartment
        if owner != NOBODY:
            self.wealth_buildings[owner] += buildings_paid(
                t, space, self.roles[owner], self.houses[space], self.apartment[space]
            )
        return 0

    def recount(self):
        """`group_held`, `held_titles`, `wealth_titles` and `wealth_buildings` counted afresh
        from the titles (a new game, a test's poke)."""
        t: Tables = self.t
        p: cython.int
        g: cython.int
        i: cython.int
        sp: cython.int
        for p in range(MAX_SEATS):
            self.wealth_titles[p] = 0
            self.wealth_buildings[p] = 0
            self.n_held[p] = 0
            for g in range(MAX_GROUPS):
                self.group_held[p][g] = 0
        for i in range(t.n_titles):
            sp = t.titles[i]
            p = self.owner[sp]
            if p != NOBODY:
                self.held_titles[p][self.n_held[p]] = sp
                self.n_held[p] += 1
                if not self.mortgaged[sp]:
                    self.group_held[p][t.group[sp]] += 1
                self.wealth_titles[p] += title_worth(
                    t, sp, self.mortgaged[sp], self.redeem_values[sp]
                )
                self.wealth_buildings[p] += buildings_paid(
                    t, sp, self.roles[p], self.houses[sp], self.apartment[sp]
                )
        return 0

    # -- the walks over the board, once
    def monopoly_count(self, p, city):
        """How many unmortgaged streets of `city` (a city code) p owns (decision 5)."""
        return self.group_held[p][city]

    def group_count(self, space):
        """The titles of the space's group (its city, the transports or the utilities) its
        owner has unmortgaged, this one counted as unmortgaged (a rent if it were redeemed)."""
        if self.owner[space] == NOBODY:
            return 0
        return self.rent_group(space)

    def rent_basis_of(self, space, houses, apartment, mortgaged):
        """`rent_basis` of the title on `space` with these buildings and mortgage."""
        owner: cython.int = self.owner[space]
        if owner == NOBODY:
            return rent_basis(self.t, space, NOBODY, False, mortgaged, houses, apartment, 0)
        return rent_basis(
            self.t,
            space,
            self.roles[owner],
            self.held[owner] != NOBODY,
            mortgaged,
            houses,
            apartment,
            self.rent_group(space),
        )

    def rent_count_of(self, space, basis, houses):
        """`rent_count` of the title on `space` (what its rent counts)."""
        owner: cython.int = self.owner[space]
        if owner == NOBODY:
            return rent_count(self.t, basis, NOBODY, houses, 0)
        return rent_count(self.t, basis, self.roles[owner], houses, self.rent_group(space))

    def rent_if(self, space, houses, apartment, mortgaged, dice):
        """One landing's rent on the title on `space` with these buildings and mortgage."""
        owner: cython.int = self.owner[space]
        if owner == NOBODY:
            return rent(self.t, space, NOBODY, False, mortgaged, houses, apartment, 0, dice)
        return rent(
            self.t,
            space,
            self.roles[owner],
            self.held[owner] != NOBODY,
            mortgaged,
            houses,
            apartment,
            self.rent_group(space),
            dice,
        )

    def rent_now(self, space, dice):
        """One landing's rent on the title on `space` now."""
        return self.rent_if(
            space, self.houses[space], self.apartment[space], self.mortgaged[space], dice
        )

    def rent_built(self, space):
        """The rent on a street once one more building stands on it."""
        owner: cython.int = self.owner[space]
        return rent_after_build(
            self.t,
            space,
            self.roles[owner],
            self.held[owner] != NOBODY,
            self.mortgaged[space],
            self.houses[space],
            self.rent_group(space),
        )

    def paid_for(self, space):
        """What was paid for the buildings on a street (its owner's role's prices)."""
        return buildings_paid(
            self.t, space, self.roles[self.owner[space]], self.houses[space], self.apartment[space]
        )

    def liquidation_value(self, p):
        """Cash plus all that selling every building and mortgaging every title would raise."""
        t: Tables = self.t
        total: cython.longlong = self.cash[p]
        i: cython.int
        sp: cython.int
        for i in range(t.n_titles):
            sp = t.titles[i]
            if self.owner[sp] == p:
                total += title_liquidation(
                    t,
                    sp,
                    self.roles[p],
                    self.houses[sp],
                    self.apartment[sp],
                    self.mortgaged[sp],
                    self.mortgage_values[sp],
                )
        return total

    def rule25_wealth(self, p):
        """Decision 11: cash + one landing's rent on every title (utilities at the settlement
        dice)."""
        t: Tables = self.t
        total: cython.longlong = self.cash[p]
        i: cython.int
        sp: cython.int
        for i in range(t.n_titles):
            sp = t.titles[i]
            if self.owner[sp] == p:
                total += self.rent_now(sp, t.settlement_utility_dice)
        return total

    def wealth_of(self, p: int) -> tuple:
        """(titles, buildings) of seat p: its titles at price (a mortgaged one less its redeem
        price) and its buildings at cost, kept as they change (`set_owner`, `set_mortgaged`,
        `set_buildings`)."""
        return (self.wealth_titles[p], self.wealth_buildings[p])

    # -- the debts, one queue (a ring of MAX_DEBTS)
    def owe(self, debtor, creditor, amount, kind, releases, space, basis, count):
        # bounds checking is off: a full ring must never overwrite a debt still owed
        at: cython.int
        if self.debt_count >= MAX_DEBTS:
            self.debt_overflow = True
            return 0
        at = (self.debt_head + self.debt_count) % MAX_DEBTS
        self.debt_debtor[at] = debtor
        self.debt_creditor[at] = creditor
        self.debt_amount[at] = amount
        self.debt_kind[at] = kind
        self.debt_releases[at] = releases
        self.debt_space[at] = space
        self.debt_basis[at] = basis
        self.debt_count_[at] = count
        self.debt_dice[at] = self.last_dice
        self.debt_announced[at] = False
        self.debt_count += 1
        return 0

    # -- the steps of the transitions: the state changes a transition takes, each told to the
    # sink where a person reads about it (declared `cdef inline` in core.pxd)
    def raiser(self):
        if self.phase == RAISE:
            return self.actor
        return NOBODY

    def buys(self, p, space, price):
        self.cash[p] -= price
        self.treasury += price
        self.set_owner(space, p)
        self.pending_buy = NOBODY
        if self.sink is not None:
            self.sink(N_PURCHASED, p, space, price)
        return 0

    def declines(self, p, space):
        if self.sink is not None:
            self.sink(N_DECLINED, p, space)
        self.pending_buy = NOBODY
        return 0

    def builds(self, p, space, houses, apartment, cost):
        self.set_buildings(space, houses, apartment != 0)
        self.cash[p] -= cost
        self.treasury += cost
        if self.sink is not None:
            self.sink(N_BUILT, p, space, apartment, cost)
        return 0

    def sells_building(self, p, space, houses, apartment, refund):
        sold: cython.int = 1 if self.apartment[space] else 0
        self.set_buildings(space, houses, apartment != 0)
        self.cash[p] += refund
        self.treasury -= refund
        if self.sink is not None:
            self.sink(N_BUILDING_SOLD, p, space, sold, refund)
        return 0

    def mortgages(self, p, space, amount):
        self.set_mortgaged(space, True)
        self.cash[p] += amount
        self.treasury -= amount
        if self.sink is not None:
            self.sink(N_MORTGAGED, p, space, amount)
        return 0

    def redeems(self, p, space, amount):
        self.set_mortgaged(space, False)
        self.cash[p] -= amount
        self.treasury += amount
        if self.sink is not None:
            self.sink(N_REDEEMED, p, space, amount)
        return 0

    def tax_chosen(self, p, flat, percent, percent_chosen):
        # the batch's taxes frame reads these after the decision
        self.last_tax_flat = flat
        self.last_tax_percent = percent
        if self.sink is not None:
            self.sink(N_TAX_CHOSEN, p, percent_chosen)
        return 0

    def pays_treasury(self, p, amount, reason, space):
        self.cash[p] -= amount
        self.treasury += amount
        if reason == P_FINE:
            self.fines[p] += amount
        if self.sink is not None:
            self.sink(N_PAYMENT, p, NOBODY, amount, reason, space, 0)
        return 0

    def leaves_hold(self, p, by_doubles):
        self.held[p] = NOBODY
        if self.sink is not None:
            self.sink(N_LEFT_HOLD, p, by_doubles)
        return 0

    def trade_proposed(self, p):
        # the proposal weighed becomes the offer (the old offer's object is the next proposal)
        offer: Trade = self.proposal
        if self.sink is not None:
            self.sink(N_TRADE_PROPOSED, p)
        self.proposal = self.offer
        self.offer = offer
        self.offer_phase = self.phase
        return 0

    def awaits_answer(self, q):
        self.actor = q
        self.phase = TRADE_ANSWER
        return 0

    def end_adjusting(self):
        if self.phase != FINAL_ADJUST:
            return 0
        self.final_head += 1
        self.final_count -= 1
        return 1

    def trade_answered(self, accepted):
        if self.sink is not None:
            self.sink(N_TRADE_ANSWERED, accepted)
        self.actor = self.current
        self.phase = self.offer_phase
        return 0

    def transfer_title(self, space, to):
        return self.set_owner(space, to)

    def pays(self, payer, payee, amount, reason):
        self.cash[payer] -= amount
        self.cash[payee] += amount
        if self.sink is not None:
            self.sink(N_PAYMENT, payer, payee, amount, reason, NO_SPACE, 0)
        return 0

    # the landings, the debts, the end of the game and the turn
    def treasury_pays(self, p, amount, reason, space):
        self.cash[p] += amount
        self.treasury -= amount
        if self.sink is not None:
            self.sink(N_PAYMENT, NOBODY, p, amount, reason, space, 0)
        return 0

    def owes(self, debtor, creditor, amount, reason, space):
        return self.owe(debtor, creditor, amount, reason, False, space, 0, 0)

    def owes_rent(self, p, owner, space):
        own_role: cython.int = self.roles[owner]
        count: cython.int = self.rent_group(space)
        basis: cython.int = rent_basis(
            self.t,
            space,
            own_role,
            self.held[owner] != NOBODY,
            self.mortgaged[space],
            self.houses[space],
            self.apartment[space],
            count,
        )
        amount: cython.int = rent_amount(
            self.t, space, basis, own_role, self.houses[space], count, self.last_dice
        )
        if amount:
            self.owe(
                p,
                owner,
                amount,
                D_RENT,
                False,
                space,
                basis,
                rent_count(self.t, basis, own_role, self.houses[space], count),
            )
            return 1
        if self.sink is not None and (basis == R_MORTGAGED or basis == R_PRISON):
            self.sink(N_NO_RENT, p, owner, space, basis)
        return 0

    def offer_title(self, p, space):
        self.pending_buy = space
        self.phase = BUY
        return 0

    def ask_income_tax(self, p):
        if self.sink is not None:
            self.sink(N_INCOME_TAX_DUE, p)
        self.phase = INCOME_TAX
        return 0

    def send_to_hold(self, p, by_card):
        self.position[p] = self.t.hold_space
        self.held[p] = 0
        self.extra_pending = False
        if self.sink is not None:
            self.sink(N_SENT_TO_HOLD, p, by_card)
        return 0

    def throw(self, count, purpose):
        # one die: as random.Random's int(random() * 6) + 1; a scenario's forced throws first
        total: cython.int = 0
        die: cython.int
        if self.forced is not None or self.sink is not None:
            dice = self.forced(count) if self.forced is not None else None
            if dice is None:
                dice = tuple(
                    [cython.cast(cython.int, mt_random(self.rng) * 6) + 1 for _ in range(count)]
                )
            if self.sink is not None:
                self.sink(N_DICE, purpose, dice)
            for die in dice:
                total += die
            return total
        for _k in range(count):
            total += cython.cast(cython.int, mt_random(self.rng) * 6) + 1
        return total

    def next_card(self, p, role):
        index: cython.int = self.deck[role][self.deck_head[role]]
        self.deck_head[role] = (self.deck_head[role] + 1) % self.t.deck_size[role]
        if self.sink is not None:
            self.sink(N_CARD, p, role, index)
        return index

    def begin_final(self, reason):
        p: cython.int
        self.final_reason = reason
        self.began_final = True
        for p in range(self.n):
            self.cash_at_final[p] = self.cash[p]
        self.leader_at_final = most_cash(self)
        if self.sink is not None:
            self.sink(N_FINAL_ACCOUNTING, reason)
        self.final_head = 0
        self.final_count = 0
        return 0

    def queue_adjuster(self, p):
        self.final_queue[self.final_head + self.final_count] = p
        self.final_count += 1
        return 0

    def next_adjuster(self):
        if self.final_count:
            self.actor = self.final_queue[self.final_head]
            self.current = self.actor
            self.phase = FINAL_ADJUST
            return self.actor
        return NOBODY

    def hands_over(self, p, amount, keep_percent):
        self.cash[p] -= amount
        self.treasury += amount
        if self.sink is not None:
            self.sink(N_PAYMENT, p, NOBODY, amount, P_SETTLEMENT, NO_SPACE, keep_percent)
        return 0

    def treasurer_pays(self, owner, space, amount):
        self.cash[owner] += amount
        self.treasury -= amount
        if self.sink is not None:
            self.sink(N_TREASURER_PAID, owner, space, amount)
        return 0

    def finish(self, winner, reason):
        self.winner = winner
        self.end_reason = reason
        self.phase = OVER
        self.debt_count = 0
        if self.sink is not None:
            self.sink(N_GAME_OVER, winner, reason)
        return 0

    def first_debtor(self):
        if self.debt_count:
            return self.debt_debtor[self.debt_head]
        return NOBODY

    def pay_first_debt(self):
        at: cython.int = self.debt_head
        d: cython.int = self.debt_debtor[at]
        creditor: cython.int = self.debt_creditor[at]
        amount: cython.longlong = self.debt_amount[at]
        kind: cython.int = self.debt_kind[at]
        self.debt_head = (self.debt_head + 1) % MAX_DEBTS
        self.debt_count -= 1
        self.cash[d] -= amount
        if creditor == NOBODY:
            self.treasury += amount
        else:
            self.cash[creditor] += amount
        if kind == D_RENT:
            self.rent_paid[d] += amount
            self.rent_received[creditor] += amount
        elif kind == P_FINE:
            self.fines[d] += amount
        elif kind == P_INCOME_TAX:
            self.income_tax[d] += amount
        elif kind == P_PROPERTY_TAX:
            self.property_tax[d] += amount
        if self.sink is not None:
            if kind == D_RENT:
                self.sink(
                    N_RENT_PAID,
                    d,
                    creditor,
                    self.debt_space[at],
                    amount,
                    self.debt_basis[at],
                    self.debt_count_[at],
                    self.debt_dice[at],
                )
            else:
                self.sink(N_PAYMENT, d, creditor, amount, kind, self.debt_space[at], 0)
        if self.debt_releases[at]:
            self.held[d] = NOBODY
            if self.sink is not None:
                self.sink(N_LEFT_HOLD, d, 0)
        return 0

    def drop_first_debt(self):
        self.debt_head = (self.debt_head + 1) % MAX_DEBTS
        self.debt_count -= 1
        return 0

    def must_raise(self, d):
        at: cython.int = self.debt_head
        if not self.debt_announced[at]:
            self.debt_announced[at] = True
            if self.sink is not None:
                self.sink(
                    N_MUST_RAISE, d, self.debt_creditor[at], self.debt_amount[at], self.cash[d]
                )
        self.actor = d
        self.phase = RAISE
        return 0

    def set_then(self, then):
        self.then = then
        return 0

    def take_then(self):
        then: cython.int = self.then
        self.then = THEN_NONE
        return then

    def return_buildings(self, d, space):
        t: Tables = self.t
        refund: cython.int = buildings_refund(
            t, space, self.roles[d], self.houses[space], self.apartment[space]
        )
        self.set_buildings(space, 0, False)
        self.cash[d] += refund
        self.treasury -= refund
        return 0

    def hand_over_cash(self, d, creditor):
        cash: cython.longlong = self.cash[d]
        self.cash[d] = 0
        if creditor == NOBODY:
            self.treasury += cash
        else:
            self.cash[creditor] += cash
        self.handed_cash = cash  # the bankruptcy's record tells both
        self.n_handed = 0
        return 0

    def hand_over_title(self, space, creditor):
        self.set_owner(space, creditor)
        if creditor == NOBODY:
            self.set_mortgaged(space, False)
        self.handed[self.n_handed] = space
        self.n_handed += 1
        return 0

    def declare_bankrupt(self, d, creditor, debt):
        self.bankrupt[d] = True
        self.held[d] = NOBODY
        self.bankrupt_round[d] = self.round
        if self.sink is not None:
            self.sink(
                N_BANKRUPT,
                d,
                creditor,
                debt,
                self.handed_cash,
                tuple([self.handed[i] for i in range(self.n_handed)]),
            )
        return 0

    def resume_turn(self):
        self.actor = self.current
        self.phase = PRE_ROLL
        return 0

    def start_turn(self, p):
        self.current = p
        self.actor = p
        self.phase = PRE_ROLL
        self.is_extra = False
        self.extra_pending = False
        self.turns_taken[p] += 1
        if self.sink is not None:
            self.sink(N_TURN_STARTED, p, self.round)
        return self.held[p]

    def owes_fine(self, p, amount):
        return self.owe(p, NOBODY, amount, P_FINE, True, NO_SPACE, 0, 0)

    def throw_pair(self, purpose):
        first: cython.int
        second: cython.int
        if self.forced is not None or self.sink is not None:
            total_dice = self.forced(2) if self.forced is not None else None
            if total_dice is None:
                first = cython.cast(cython.int, mt_random(self.rng) * 6) + 1
                second = cython.cast(cython.int, mt_random(self.rng) * 6) + 1
                total_dice = (first, second)
            if self.sink is not None:
                self.sink(N_DICE, purpose, total_dice)
            return pair_of(total_dice[0], total_dice[1])
        first = cython.cast(cython.int, mt_random(self.rng) * 6) + 1
        second = cython.cast(cython.int, mt_random(self.rng) * 6) + 1
        return pair_of(first, second)

    def stays_held(self, p):
        self.held[p] += 1
        if self.sink is not None:
            self.sink(N_STAYED_HELD, p, self.held[p])
        return 0

    def released_by_doubles(self, p):
        self.held[p] = NOBODY
        if self.sink is not None:
            self.sink(N_LEFT_HOLD, p, 1)
        return 0

    def note_throw(self, total, extra):
        self.last_dice = total
        self.extra_pending = extra != 0
        return 0

    def place(self, p, end, by):
        start: cython.int = self.position[p]
        self.position[p] = end
        if self.sink is not None:
            self.sink(N_MOVED, p, start, end, by)
        return start

    def extra_throw(self, p):
        self.extra_pending = False
        self.is_extra = True
        self.actor = p
        self.phase = PRE_ROLL
        return 0

    def post_roll(self, p):
        self.actor = p
        self.phase = POST_ROLL
        return 0

    def new_round(self):
        self.round += 1
        return 0


# the fields `Game` reads by name (`State.seat_value`, `State.space_value`)
SEAT_FIELDS = ("cash", "position", "held", "bankrupt", "turns_taken", "roles", "cash_at_final")
SPACE_FIELDS = ("owner", "houses", "apartment", "mortgaged", "mortgage_values", "redeem_values")


@cython.ccall
@cython.exceptval(-1, check=False)
def land(game: State, t: Tables, p: cython.int, space: cython.int) -> cython.int:
    """What landing on `space` does to p, for each kind of space and each role (`move_to`
    calls this once the pawn stands there)."""
    kind: cython.int = t.kind[space]
    owner: cython.int
    prize: cython.int
    role: cython.int
    if kind == K_STREET or kind == K_TRANSPORT or kind == K_UTILITY:
        owner = game.owner[space]
        if owner == NOBODY:
            return game.offer_title(p, space)
        if owner != p:
            if game.owes_rent(p, owner, space):
                return settle(game, t, THEN_AFTER_MOVE)
    elif space == t.go_to_hold_space:
        game.send_to_hold(p, 0)
    elif space == t.income_tax_space:
        return game.ask_income_tax(p)
    elif space == t.property_tax_space:
        game.owes(p, NOBODY, t.property_tax, P_PROPERTY_TAX, space)
        return settle(game, t, THEN_AFTER_MOVE)
    elif space == t.foundation_space:
        # seed rules: a Monopolist pays the fee; a Competitor throws one die for a prize
        if game.roles[p] == MONOPOLIST:
            if t.foundation_monopolist_fee:
                game.owes(p, NOBODY, t.foundation_monopolist_fee, P_FOUNDATION_FEE, space)
                return settle(game, t, THEN_AFTER_MOVE)
        else:
            prize = t.prizes[game.throw(1, T_FOUNDATION)]
            if prize:
                game.treasury_pays(p, prize, P_FOUNDATION_GRANT, space)
    elif kind == K_CARD:
        role = game.roles[p]
        return play_card(game, t, p, role, game.next_card(p, role))
    return after_move(game, t, game.current)


@cython.ccall
@cython.exceptval(-1, check=False)
def play_card(
    game: State, t: Tables, p: cython.int, role: cython.int, index: cython.int
) -> cython.int:
    """What card `index` of the `role` deck does when p has drawn it."""
    effect: cython.int = t.card_effect[role][index]
    amount: cython.int = t.card_amount[role][index]
    n: cython.int
    k: cython.int
    q: cython.int
    payer_role: cython.int
    if effect == E_COLLECT:
        game.treasury_pays(p, amount, P_CARD, NO_SPACE)
    elif effect == E_PAY:
        game.owes(p, NOBODY, amount, P_CARD, NO_SPACE)
        return settle(game, t, THEN_AFTER_MOVE)
    elif effect == E_COLLECT_FROM_MONOPOLISTS or effect == E_COLLECT_FROM_COMPETITORS:
        payer_role = MONOPOLIST if effect == E_COLLECT_FROM_MONOPOLISTS else COMPETITOR
        n = game.n
        for k in range(1, n):
            q = (p + k) % n
            if game.roles[q] == payer_role and not game.bankrupt[q]:
                game.owes(q, p, amount, P_CARD, NO_SPACE)
        return settle(game, t, THEN_AFTER_MOVE)
    elif effect == E_ALL_MONOPOLISTS_COLLECT:
        n = game.n
        for q in range(n):
            if game.roles[q] == MONOPOLIST and not game.bankrupt[q]:
                game.treasury_pays(q, amount, P_CARD, NO_SPACE)
    elif effect == E_MOVE_TO:
        return move_to(game, t, p, t.card_target[role][index], BY_CARD)
    elif effect == E_GO_TO_PRICE_WAR or effect == E_GO_TO_PRISON:
        game.send_to_hold(p, 1)
    elif effect == E_ROLL_FOR:
        if game.throw(2, T_CARD) >= t.card_target[role][index]:
            game.treasury_pays(p, amount, P_CARD, NO_SPACE)
    return after_move(game, t, game.current)


# -- the turn flow -----------------------------------------------------------------------------


@cython.ccall
@cython.exceptval(check=False)
def pair_of(first: cython.int, second: cython.int) -> cython.int:
    """Two dice thrown as one number (what `State.throw_pair` returns)."""
    return first * DIE_BASE + second


@cython.ccall
@cython.exceptval(-1, check=False)
def begin_turn(game: State, t: Tables, p: cython.int) -> cython.int:
    """p's turn begins. Decision 3: a player held in Prison or Price War for
    `held_turns_before_forced_fine` turns must pay the `fine` at the start of this one (a debt,
    so a player short of cash raises it or goes bankrupt, decision 9); paid, p is released and
    throws as usual. Otherwise p decides before throwing."""
    held: cython.int = game.start_turn(p)
    if held != NOBODY and held >= t.held_turns_before_forced_fine:
        game.owes_fine(p, t.fine)
        return settle(game, t, THEN_RELEASED)
    return 0


@cython.ccall
@cython.exceptval(-1, check=False)
def next_turn(game: State, t: Tables, p: cython.int) -> cython.int:
    """p's turn is over: the next player still in the game takes a turn, in seat order. Coming
    round to the first seat again starts a new round, unless the round cap (`round_cap`,
    decision 12) has been played: then the final accounting begins (the round stays the last
    one played)."""
    n: cython.int = game.n
    q: cython.int = p
    step: cython.int
    for step in range(1, n + 1):
        q = (p + step) % n
        if not game.bankrupt[q]:
            break
    if q <= p:
        if t.round_cap >= 0 and game.round >= t.round_cap:
            return start_final(game, t, END_ROUND_CAP)
        game.new_round()
    return begin_turn(game, t, q)


@cython.ccall
@cython.exceptval(-1, check=False)
def roll(game: State, t: Tables, p: cython.int) -> cython.int:
    """p, whose turn it is, throws two dice. Held in Prison or Price War (decision 3): doubles
    release p, who moves by that throw and has the extra throw after it; no doubles, p stays
    held (one more turn spent there) and does not move. Not held: p moves by the throw, and
    doubles give one extra throw, but not on the extra throw itself (decision 2: no third
    throw, no three-doubles rule)."""
    pair: cython.int
    extra: cython.int
    total: cython.int
    if game.held[p] != NOBODY:
        pair = game.throw_pair(T_DOUBLES_ATTEMPT)
        if pair // DIE_BASE != pair % DIE_BASE:
            game.stays_held(p)
            return game.post_roll(p)
        game.released_by_doubles(p)
        extra = 1
    else:
        pair = game.throw_pair(T_MOVE)
        extra = 1 if pair // DIE_BASE == pair % DIE_BASE and not game.is_extra else 0
    total = pair // DIE_BASE + pair % DIE_BASE
    game.note_throw(total, extra)
    return move_to(game, t, p, (game.position[p] + total) % t.n_spaces, BY_DICE)


@cython.ccall
@cython.exceptval(-1, check=False)
def move_to(game: State, t: Tables, p: cython.int, end: cython.int, by: cython.int) -> cython.int:
    """p's pawn moves forward to `end` (by: a `MOVES` code) and lands there. Reaching or
    passing START (space 0) pays the `start_payment`, a card's move forward too (the table of
    parameters in decisions.md); a pawn sent to Prison or Price War does not move forward and
    is paid nothing (decision 3, `send_to_hold`)."""
    start: cython.int = game.place(p, end, by)
    if end <= start or end == 0:
        if t.start_payment:
            game.treasury_pays(p, t.start_payment, P_START, 0)
    return land(game, t, p, end)


@cython.ccall
@cython.exceptval(-1, check=False)
def after_move(game: State, t: Tables, p: cython.int) -> cython.int:
    """p's move is over (its landing and debts done). A player who went bankrupt on the way
    ends the turn; after doubles a player not held throws once more (decisions 2 and 3);
    otherwise the rest of the turn."""
    if game.bankrupt[p]:
        return next_turn(game, t, p)
    if game.extra_pending and game.held[p] == NOBODY:
        return game.extra_throw(p)
    return game.post_roll(p)


# -- the debts ---------------------------------------------------------------------------------


@cython.ccall
@cython.exceptval(-1, check=False)
def settle(game: State, t: Tables, then: cython.int) -> cython.int:
    """Decision 9: pay the queued debts in order. A debtor short of cash who could raise the
    money by selling and mortgaging must do so first (the RAISE phase: the queue waits); one
    who could not is bankrupt. Then `then` (a `THENS` code) follows."""
    d: cython.int
    creditor: cython.int
    amount: cython.longlong
    game.set_then(then)
    while True:
        d = game.first_debtor()
        if d == NOBODY:
            break
        if game.bankrupt[d]:
            game.drop_first_debt()
            continue
        amount = game.debt_amount[game.debt_head]
        if game.cash[d] >= amount:
            game.pay_first_debt()
            continue
        if game.liquidation_value(d) >= amount:
            return game.must_raise(d)
        creditor = game.debt_creditor[game.debt_head]
        game.drop_first_debt()
        go_bankrupt(game, t, d, creditor, amount)
        if game.phase == OVER:
            return 0
    then = game.take_then()
    if then == THEN_AFTER_MOVE:
        return after_move(game, t, game.current)
    if then == THEN_RELEASED:
        if game.bankrupt[game.current]:
            return next_turn(game, t, game.current)
        return game.resume_turn()
    return 0


@cython.ccall
@cython.exceptval(-1, check=False)
def go_bankrupt(
    game: State, t: Tables, d: cython.int, creditor: cython.int, debt: cython.longlong
) -> cython.int:
    """Decision 9: the buildings go back to the Treasury at their liquidation value, then the
    cash and the titles (mortgaged ones as they are) to the creditor; owed to the Treasury
    (or to a creditor already out), the titles return to it unowned and unmortgaged."""
    i: cython.int
    sp: cython.int
    for i in range(t.n_titles):
        sp = t.titles[i]
        if game.owner[sp] == d:
            game.return_buildings(d, sp)
    if creditor != NOBODY and game.bankrupt[creditor]:
        creditor = NOBODY
    game.hand_over_cash(d, creditor)
    for i in range(t.n_titles):
        sp = t.titles[i]
        if game.owner[sp] == d:
            game.hand_over_title(sp, creditor)
    game.declare_bankrupt(d, creditor, debt)
    return check_end(game, t)


# -- the end of the game -----------------------------------------------------------------------


@cython.ccall
@cython.exceptval(-1, check=False)
def check_end(game: State, t: Tables) -> cython.int:
    """After a bankruptcy: Game B ends when the players left are all of one role, the richest
    by Game B score winning (rule 25; the first seat of the highest score); any game ends when
    one player (or none) is left (Game A)."""
    n: cython.int = game.n
    p: cython.int
    alive: cython.int = 0
    last: cython.int = NOBODY
    roles_seen: cython.int = 0
    best: cython.int = NOBODY
    score: cython.longlong
    best_score: cython.longlong = 0
    for p in range(n):
        if not game.bankrupt[p]:
            alive += 1
            last = p
            roles_seen |= 1 << game.roles[p]
    if game.game_type == GAME_B and (roles_seen == 1 or roles_seen == 2):
        for p in range(n):
            if not game.bankrupt[p]:
                score = game.rule25_wealth(p)
                if best == NOBODY or score > best_score:
                    best = p
                    best_score = score
        return game.finish(best, END_GAME_B)
    if alive <= 1:
        return game.finish(last if alive else NOBODY, END_GAME_A)
    return 0


@cython.ccall
@cython.exceptval(-1, check=False)
def start_final(game: State, t: Tables, reason: cython.int) -> cython.int:
    """The final accounting (the two-hour game's end, or the round cap): every player still in
    adjusts in seat order, then `next_final` settles."""
    p: cython.int
    game.begin_final(reason)
    for p in range(game.n):
        if not game.bankrupt[p]:
            game.queue_adjuster(p)
    return next_final(game, t)


@cython.ccall
@cython.exceptval(-1, check=False)
def next_final(game: State, t: Tables) -> cython.int:
    """The next player adjusts; once all have, the settlement: each player keeps the role's
    percentage of cash and hands the rest to the Treasury, the Treasurer pays each title's
    rent (utilities at the settlement dice) to its owner, and the most cash wins (the first
    seat of the most)."""
    n: cython.int = game.n
    p: cython.int
    i: cython.int
    sp: cython.int
    owner: cython.int
    amount: cython.int
    cash: cython.longlong
    keep: cython.longlong
    pct: cython.int
    if game.next_adjuster() != NOBODY:
        return 0
    for p in range(n):
        if not game.bankrupt[p]:
            cash = game.cash[p]
            pct = t.keep_percent[game.roles[p]]
            keep = cash * pct // 100
            game.hands_over(p, cash - keep, pct)
    for i in range(t.n_titles):
        sp = t.titles[i]
        owner = game.owner[sp]
        if owner == NOBODY:
            continue
        amount = game.rent_now(sp, t.settlement_utility_dice)
        if amount:
            game.treasurer_pays(owner, sp, amount)
    return game.finish(most_cash(game), game.final_reason)


@cython.ccall
@cython.exceptval(-2, check=False)
def most_cash(game: State) -> cython.int:
    """The seat still in with the most cash, the first seat of the most on a tie (NOBODY when
    no one is left): the final accounting's winner (decision 12), and, asked when the
    accounting begins, the leader it may overturn (amteach.sim.accounting)."""
    p: cython.int
    best: cython.int = NOBODY
    cash: cython.longlong
    best_cash: cython.longlong = 0
    for p in range(game.n):
        if not game.bankrupt[p]:
            cash = game.cash[p]
            if best == NOBODY or cash > best_cash:
                best = p
                best_cash = cash
    return best


@cython.ccall
@cython.exceptval(-1, check=False)
def end_turn(game: State, t: Tables, p: cython.int) -> cython.int:
    """p ends the turn: in the final accounting (decision 12) the next player adjusts, or the
    settlement follows; else the next seat still in plays."""
    if game.end_adjusting():
        return next_final(game, t)
    return next_turn(game, t, p)


# -- the player's actions ----------------------------------------------------------------------
# Each action a player takes (buy, build, sell, mortgage, redeem, the income tax, the fine, a
# trade answered) and its legality, written once over `State`. A legality function returns 0
# when the action is allowed, else a refusal code (a position in `REFUSALS`), which
# `amteach.engine.refusals` turns into the sentence a player reads; the kernel only asks
# whether it is 0. Each refusal is checked in the order a player is told of it.

# The kinds of choice each phase allows, before the state is looked at (the engine's names:
# `amteach.engine.terms.Phase` and `amteach.engine.choices.CHOICE_KINDS`). The refusals and
# `Game`'s legal choices read it as it is; the kernel makes it a table of its codes.
PHASE_KINDS = {
    Phase.PRE_ROLL: (
        "roll",
        "pay_fine",
        "build",
        "sell_building",
        "mortgage",
        "redeem",
        "trade",
        "end_game",
    ),
    Phase.POST_ROLL: (
        "build",
        "sell_building",
        "mortgage",
        "redeem",
        "trade",
        "end_turn",
        "end_game",
    ),
    Phase.BUY: ("buy", "decline", "sell_building", "mortgage"),
    Phase.INCOME_TAX: ("income_tax",),
    Phase.RAISE: ("sell_building", "mortgage"),
    Phase.TRADE_ANSWER: ("accept", "reject"),
    Phase.FINAL_ADJUST: ("build", "sell_building", "mortgage", "redeem", "end_turn"),
    Phase.OVER: (),
}

REFUSALS = (
    "",  # allowed
    "not_owner",  # the player does not own the title
    "not_a_street",  # buildings go on streets only
    "mortgaged",  # a mortgaged street is redeemed before it is built on
    "no_monopoly",  # a Monopolist builds only in a monopolized city
    "full",  # the street has its apartment, the most it can hold
    "no_apartments_left",
    "no_houses_left",
    "short_of_cash",  # rule 26: no borrowing
    "no_buildings",  # nothing to sell
    "already_mortgaged",
    "buildings_stand",  # buildings are sold before the title is mortgaged
    "breaks_monopoly",  # a Monopolist's built-up city would fall below a monopoly
    "not_mortgaged",  # nothing to redeem
    "not_held",  # only a held player pays the fine
    "no_partner",  # a trade is with another player still in the game
    "no_titles",  # a trade without titles would be a loan
    "listed_twice",
    "trade_not_owner",  # a side does not own a title it lists
    "trade_buildings",  # only bare titles are traded
    "trade_breaks_monopoly",
    "proposer_short",  # the proposer has not the cash the trade pays
    "partner_short",  # the partner has not the cash the trade asks
    "not_two_hour",  # only the two-hour game ends when time is up
)
OK = 0
NOT_OWNER = REFUSALS.index("not_owner")
NOT_A_STREET = REFUSALS.index("not_a_street")
MORTGAGED = REFUSALS.index("mortgaged")
NO_MONOPOLY = REFUSALS.index("no_monopoly")
FULL = REFUSALS.index("full")
NO_APARTMENTS_LEFT = REFUSALS.index("no_apartments_left")
NO_HOUSES_LEFT = REFUSALS.index("no_houses_left")
SHORT_OF_CASH = REFUSALS.index("short_of_cash")
NO_BUILDINGS = REFUSALS.index("no_buildings")
ALREADY_MORTGAGED = REFUSALS.index("already_mortgaged")
BUILDINGS_STAND = REFUSALS.index("buildings_stand")
BREAKS_MONOPOLY = REFUSALS.index("breaks_monopoly")
NOT_MORTGAGED = REFUSALS.index("not_mortgaged")
NOT_HELD = REFUSALS.index("not_held")
NO_PARTNER = REFUSALS.index("no_partner")
NO_TITLES = REFUSALS.index("no_titles")
LISTED_TWICE = REFUSALS.index("listed_twice")
TRADE_NOT_OWNER = REFUSALS.index("trade_not_owner")
TRADE_BUILDINGS = REFUSALS.index("trade_buildings")
TRADE_BREAKS_MONOPOLY = REFUSALS.index("trade_breaks_monopoly")
PROPOSER_SHORT = REFUSALS.index("proposer_short")
PARTNER_SHORT = REFUSALS.index("partner_short")
NOT_TWO_HOUR = REFUSALS.index("not_two_hour")
# A trade's refusal about one listed title also says which: the code plus REFUSAL_AT times
# (2 * its position in its list + its side), which `refused_at` reads back.
REFUSAL_AT = 256


@cython.ccall
@cython.exceptval(check=False)
def refusal_code(refusal: cython.int) -> cython.int:
    """The `REFUSALS` code of a refusal (without the title a trade's refusal points at)."""
    return refusal % REFUSAL_AT


@cython.ccall
@cython.exceptval(check=False)
def refused_at(refusal: cython.int) -> cython.int:
    """For a trade's refusal about one title: 2 * its position in its list + its side."""
    return refusal // REFUSAL_AT


@cython.ccall
@cython.exceptval(-1, check=False)
def is_monopolized(game: State, t: Tables, p: cython.int, city: cython.int) -> cython.int:
    """Decision 5: a Monopolist's city is monopolized while they own monopoly_streets
    unmortgaged streets of it. 1 when it is, else 0."""
    if game.roles[p] != MONOPOLIST:
        return 0
    return 1 if game.group_held[p][city] >= t.monopoly_streets else 0


@cython.ccall
@cython.exceptval(-1, check=False)
def breaks_built_monopoly(
    game: State, t: Tables, p: cython.int, city: cython.int, leaving: cython.ulonglong
) -> cython.int:
    """Rule 10 and decision 5: would losing the titles in `leaving` (a bit per space) take a
    city where p has buildings below a monopoly? 1 when it would, else 0."""
    i: cython.int
    sp: cython.int
    keep: cython.int = 0
    built: cython.int = 0
    for i in range(t.city_size[city]):
        sp = t.city_member[city][i]
        if game.owner[sp] == p and (game.houses[sp] or game.apartment[sp]):
            built = 1
            break
    if not built:
        return 0
    for i in range(t.city_size[city]):
        sp = t.city_member[city][i]
        if game.owner[sp] == p and not game.mortgaged[sp] and not (leaving >> sp) & 1:
            keep += 1
    return 1 if keep < t.monopoly_streets else 0


# -- what is legal


@cython.ccall
@cython.exceptval(-1, check=False)
def why_not_buy(game: State, t: Tables, p: cython.int) -> cython.int:
    """Rule 9 and rule 26: p buys the title offered at its price, from cash."""
    if game.cash[p] < t.price[game.pending_buy]:
        return SHORT_OF_CASH
    return OK


@cython.ccall
@cython.exceptval(-1, check=False)
def why_not_pay_fine(game: State, t: Tables, p: cython.int) -> cython.int:
    """Decision 3 and rule 26: a held player may pay the fine, from cash."""
    if game.held[p] == NOBODY:
        return NOT_HELD
    if game.cash[p] < t.fine:
        return SHORT_OF_CASH
    return OK


@cython.ccall
@cython.exceptval(-1, check=False)
def why_not_end_game(game: State, t: Tables) -> cython.int:
    """Decision 12: only the two-hour game is ended by the clock."""
    if game.game_type != GAME_TWO_HOUR:
        return NOT_TWO_HOUR
    return OK


@cython.ccall
@cython.exceptval(-1, check=False)
def why_not_build(game: State, t: Tables, p: cython.int, space: cython.int) -> cython.int:
    """Rule 11, rule 10 with decision 5, the supply and rule 26: p builds on a street p owns,
    unmortgaged; a Monopolist only in a monopolized city; houses up to the role's maximum, then
    an apartment in their place, while the Treasury has one; paid from cash."""
    role: cython.int
    if game.owner[space] != p:
        return NOT_OWNER
    if t.kind[space] != K_STREET:
        return NOT_A_STREET
    if game.mortgaged[space]:
        return MORTGAGED
    role = game.roles[p]
    # decision 5 (is_monopolized, with the role already in hand)
    if role == MONOPOLIST and game.group_held[p][t.city[space]] < t.monopoly_streets:
        return NO_MONOPOLY
    if game.apartment[space]:
        return FULL
    if next_is_apartment(t, role, game.houses[space]):
        if not t.unlimited_supply and game.supply_apartments <= 0:
            return NO_APARTMENTS_LEFT
    elif not t.unlimited_supply and game.supply_houses <= 0:
        return NO_HOUSES_LEFT
    if game.cash[p] < t.house_cost[space]:
        return SHORT_OF_CASH
    return OK


@cython.ccall
@cython.exceptval(-1, check=False)
def why_not_sell_building(game: State, t: Tables, p: cython.int, space: cython.int) -> cython.int:
    """Rule 13: p sells a building from a street p owns."""
    if game.owner[space] != p:
        return NOT_OWNER
    if not (game.houses[space] or game.apartment[space]):
        return NO_BUILDINGS
    return OK


@cython.ccall
@cython.exceptval(-1, check=False)
def why_not_mortgage(game: State, t: Tables, p: cython.int, space: cython.int) -> cython.int:
    """Rule 12 and decision 7: p mortgages a title p owns, bare of buildings, that is not
    mortgaged yet; a Monopolist not while that would break a built-up monopoly."""
    if game.owner[space] != p:
        return NOT_OWNER
    if game.mortgaged[space]:
        return ALREADY_MORTGAGED
    if game.houses[space] or game.apartment[space]:
        return BUILDINGS_STAND
    if (
        game.roles[p] == MONOPOLIST
        and t.kind[space] == K_STREET
        and breaks_built_monopoly(
            game, t, p, t.city[space], cython.cast(cython.ulonglong, 1) << space
        )
    ):
        return BREAKS_MONOPOLY
    return OK


@cython.ccall
@cython.exceptval(-1, check=False)
def why_not_redeem(game: State, t: Tables, p: cython.int, space: cython.int) -> cython.int:
    """Rule 12 and rule 26: p redeems a mortgaged title p owns, paying the redeem price from
    cash."""
    if game.owner[space] != p:
        return NOT_OWNER
    if not game.mortgaged[space]:
        return NOT_MORTGAGED
    if game.cash[p] < redeem_value(t, space):
        return SHORT_OF_CASH
    return OK


@cython.ccall
@cython.exceptval(-1, check=False)
def trade_possible(game: State, t: Tables, p: cython.int) -> cython.int:
    """Could p propose any trade? Another player is in the game and a bare title is owned by
    p or by a player still in. 1 when so, else 0."""
    q: cython.int
    i: cython.int
    sp: cython.int
    owner: cython.int
    others: cython.int = 0
    for q in range(game.n):
        if q != p and not game.bankrupt[q]:
            others += 1
    if others == 0:
        return 0
    for i in range(t.n_titles):
        sp = t.titles[i]
        owner = game.owner[sp]
        if owner == NOBODY or game.houses[sp] or game.apartment[sp]:
            continue
        if owner == p or not game.bankrupt[owner]:
            return 1
    return 0


@cython.ccall
@cython.exceptval(-1, check=False)
def why_not_trade(game: State, t: Tables, p: cython.int) -> cython.int:
    """Rule 23, decision 8 and rule 26: the trade p weighs (`State.proposal`)
    is with another player still in; it lists at least one title (cash alone would be a
    loan), none twice, each owned by its side and bare of buildings; it breaks no
    Monopolist's built-up monopoly; each side has the cash it pays. A refusal about one title
    says which (`refused_at`)."""
    weighed: Trade = game.proposal
    q: cython.int = weighed.other
    side: cython.int
    who: cython.int
    n: cython.int
    i: cython.int
    j: cython.int
    sp: cython.int
    pay: cython.longlong
    leaving: cython.ulonglong
    if not (0 <= q < game.n) or q == p or game.bankrupt[q]:
        return NO_PARTNER
    if weighed.titles(0) == 0 and weighed.titles(1) == 0:
        return NO_TITLES
    for side in range(2):
        n = weighed.titles(side)
        for i in range(n):
            sp = weighed.title(side, i)
            for j in range(i):
                if weighed.title(side, j) == sp:
                    return LISTED_TWICE
    for side in range(2):
        who = p if side == 0 else q
        n = weighed.titles(side)
        leaving = 0
        for i in range(n):
            sp = weighed.title(side, i)
            if not (0 <= sp < t.n_spaces) or game.owner[sp] != who:
                return TRADE_NOT_OWNER + REFUSAL_AT * (2 * i + side)
            if game.houses[sp] or game.apartment[sp]:
                return TRADE_BUILDINGS + REFUSAL_AT * (2 * i + side)
            leaving |= cython.cast(cython.ulonglong, 1) << sp
        if game.roles[who] == MONOPOLIST:
            for i in range(n):
                sp = weighed.title(side, i)
                if t.kind[sp] == K_STREET and breaks_built_monopoly(
                    game, t, who, t.city[sp], leaving
                ):
                    return TRADE_BREAKS_MONOPOLY + REFUSAL_AT * (2 * i + side)
    pay = weighed.pay
    if pay > 0 and game.cash[p] < pay:
        return PROPOSER_SHORT
    if pay < 0 and game.cash[q] < -pay:
        return PARTNER_SHORT
    return OK


# -- what the actions do


@cython.ccall
@cython.exceptval(-1, check=False)
def buy_title(game: State, t: Tables, p: cython.int) -> cython.int:
    """Rule 9: p buys the title offered at its price; the turn goes on."""
    space: cython.int = game.pending_buy
    game.buys(p, space, t.price[space])
    return after_move(game, t, game.current)


@cython.ccall
@cython.exceptval(-1, check=False)
def decline_title(game: State, t: Tables, p: cython.int) -> cython.int:
    """Rule 9: p does not buy the title offered; the turn goes on."""
    game.declines(p, game.pending_buy)
    return after_move(game, t, game.current)


@cython.ccall
@cython.exceptval(-1, check=False)
def pay_fine(game: State, t: Tables, p: cython.int) -> cython.int:
    """Decision 3: a held player pays the fine before throwing and is held no longer."""
    game.pays_treasury(p, t.fine, P_FINE, NO_SPACE)
    return game.leaves_hold(p, 0)


@cython.ccall
@cython.exceptval(-1, check=False)
def build(game: State, t: Tables, p: cython.int, space: cython.int) -> cython.int:
    """Rule 11: one more building on a street, at its house cost: a house, or, once the
    owner's role has its maximum of houses there, an apartment in their place (the houses go
    back to the supply)."""
    houses: cython.int = game.houses[space]
    if next_is_apartment(t, game.roles[game.owner[space]], houses):
        return game.builds(p, space, 0, 1, t.house_cost[space])
    return game.builds(p, space, houses + 1, 0, t.house_cost[space])


@cython.ccall
@cython.exceptval(-1, check=False)
def sell_building(game: State, t: Tables, p: cython.int, space: cython.int) -> cython.int:
    """Rule 13 and decision 6: sell one building back to the Treasury at the sell-back
    percentage (the apartment first, for part of everything paid for the street; else a
    house); a player raising money may then pay the debt."""
    houses: cython.int = game.houses[space]
    apartment: cython.int = game.apartment[space]
    refund: cython.int = building_sale_value(
        t, space, game.roles[game.owner[space]], houses, apartment
    )
    if apartment:
        game.sells_building(p, space, houses, 0, refund)
    else:
        game.sells_building(p, space, houses - 1, 0, refund)
    return after_raise(game, t)


@cython.ccall
@cython.exceptval(-1, check=False)
def mortgage(game: State, t: Tables, p: cython.int, space: cython.int) -> cython.int:
    """Rule 12: the Treasury lends the mortgage percentage of the title's price; a player
    raising money may then pay the debt."""
    game.mortgages(p, space, mortgage_value(t, space))
    return after_raise(game, t)


@cython.ccall
@cython.exceptval(-1, check=False)
def redeem(game: State, t: Tables, p: cython.int, space: cython.int) -> cython.int:
    """Rule 12: redeeming costs the redeem percentage of the title's price."""
    return game.redeems(p, space, redeem_value(t, space))


@cython.ccall
@cython.exceptval(-1, check=False)
def after_raise(game: State, t: Tables) -> cython.int:
    """Decision 9: once a player raising money has the cash for the first debt, the debts are
    paid, and what was to follow them follows."""
    d: cython.int = game.raiser()
    if d != NOBODY and game.cash[d] >= game.debt_amount[game.debt_head]:
        return settle(game, t, game.take_then())
    return 0


@cython.ccall
@cython.exceptval(-1, check=True)
def taxed_property(game: State, t: Tables, p: cython.int) -> cython.longlong:
    """Decision 1: p's unmortgaged titles at their price."""
    total: cython.longlong = 0
    i: cython.int
    sp: cython.int
    for i in range(t.n_titles):
        sp = t.titles[i]
        if game.owner[sp] == p and not game.mortgaged[sp]:
            total += t.price[sp]
    return total


@cython.ccall
@cython.exceptval(-1, check=True)
def taxed_improvements(game: State, t: Tables, p: cython.int) -> cython.longlong:
    """Decision 1: what was paid for the buildings on p's unmortgaged titles."""
    total: cython.longlong = 0
    i: cython.int
    sp: cython.int
    role: cython.int = game.roles[p]
    for i in range(t.n_titles):
        sp = t.titles[i]
        if game.owner[sp] == p and not game.mortgaged[sp]:
            total += buildings_paid(t, sp, role, game.houses[sp], game.apartment[sp])
    return total


@cython.ccall
@cython.exceptval(-1, check=True)
def income_tax_percent(game: State, t: Tables, p: cython.int) -> cython.longlong:
    """Decision 1: the income tax's percentage amount for p now."""
    return tax_percent(
        t,
        game.roles[p],
        game.cash[p],
        taxed_property(game, t, p),
        taxed_improvements(game, t, p),
    )


@cython.ccall
@cython.exceptval(-1, check=False)
def income_tax(game: State, t: Tables, p: cython.int, percent_chosen: cython.int) -> cython.int:
    """Decision 1: p owes the flat income tax or the percentage, as p chose; the debt is paid
    and the turn goes on."""
    flat: cython.longlong = t.income_tax_flat
    percent: cython.longlong = income_tax_percent(game, t, p)
    game.tax_chosen(p, flat, percent, percent_chosen)
    game.owes(p, NOBODY, percent if percent_chosen else flat, P_INCOME_TAX, t.income_tax_space)
    return settle(game, t, THEN_AFTER_MOVE)


@cython.ccall
@cython.exceptval(-1, check=False)
def propose_trade(game: State, t: Tables, p: cython.int) -> cython.int:
    """Rule 23: the trade p weighed is offered, and its partner answers it before play goes
    on (the answer returns play to the phase the offer was made in)."""
    game.trade_proposed(p)
    game.awaits_answer(game.offer.other)
    return 0


@cython.ccall
@cython.exceptval(-1, check=False)
def answer_trade(game: State, t: Tables, accepted: cython.int) -> cython.int:
    """Rule 23: the partner accepts or declines the offer standing; accepted, the titles
    change hands as they are and the cash is paid."""
    p: cython.int = game.current
    offer: Trade = game.offer
    q: cython.int = offer.other
    i: cython.int
    pay: cython.longlong
    game.trade_answered(accepted)
    if not accepted:
        return 0
    for i in range(offer.titles(0)):
        game.transfer_title(offer.title(0, i), q)
    for i in range(offer.titles(1)):
        game.transfer_title(offer.title(1, i), p)
    pay = offer.pay
    if pay > 0:
        game.pays(p, q, pay, P_TRADE)
    elif pay < 0:
        game.pays(q, p, -pay, P_TRADE)
    return 0


# -- answers over the whole state, in one call -------------------------------------------------

# the actions on one title a player may take, each a `why_not_<action>` above
TITLE_ACTIONS = ("build", "sell_building", "mortgage", "redeem")
A_BUILD = 0
A_SELL = 1
A_MORTGAGE = 2
A_REDEEM = 3


@cython.ccall
@cython.exceptval(-1, check=False)
def title_targets(game: State, action: cython.int) -> cython.int:
    """The titles on which the actor may take `action` (an `A_...` code) now, by the rules'
    legality: into `game.found`, in board order; returns how many. One call for the whole list
    (a street's build and sale are asked of the streets, a mortgage and a redeem of every
    title), the phase not looked at."""
    t: Tables = game.t
    actor: cython.int = game.actor
    count: cython.int = 0
    i: cython.int
    sp: cython.int
    why: cython.int
    # read once: compiled, the codes are C globals that each call below might change, so a
    # test of them inside the loop would be read again for every title
    streets: cython.bint = action == A_BUILD or action == A_SELL
    if actor == NOBODY:
        return 0
    for i in range(game.n_held[actor]):  # the actor's titles, in board order
        sp = game.held_titles[actor][i]
        if streets and t.kind[sp] != K_STREET:
            continue
        if action == A_BUILD:
            why = why_not_build(game, t, actor, sp)
        elif action == A_SELL:
            why = why_not_sell_building(game, t, actor, sp)
        elif action == A_MORTGAGE:
            why = why_not_mortgage(game, t, actor, sp)
        else:
            why = why_not_redeem(game, t, actor, sp)
        if why == 0:
            game.found[count] = sp
            count += 1
    return count


@cython.ccall
def found_list(game: State, count: cython.int) -> list:
    """The first `count` spaces `title_targets` found, as a list."""
    return [game.found[i] for i in range(count)]


def titles_held(game: State, t: Tables, p: cython.int, group: cython.int) -> cython.int:
    """p's unmortgaged titles of a group (a city code, GROUP_TRANSPORTS or GROUP_UTILITIES),
    counted on the board: what `State.group_held` must say."""
    count: cython.int = 0
    i: cython.int
    sp: cython.int
    size: cython.int = t.n_transports
    if group < MAX_CITIES:
        size = t.city_size[group]
    elif group == GROUP_UTILITIES:
        size = t.n_utilities
    for i in range(size):
        if group < MAX_CITIES:
            sp = t.city_member[group][i]
        elif group == GROUP_TRANSPORTS:
            sp = t.transports[i]
        else:
            sp = t.utilities[i]
        if game.owner[sp] == p and not game.mortgaged[sp]:
            count += 1
    return count


# what `invariants` reports, one record a broken invariant
INVARIANTS = (
    "negative_cash",
    "held_off_hold",
    "money",
    "monopoly",
    "supply",
    "counts",
    "wealth",
    "held_titles",
)


@cython.ccall
@cython.exceptval(-1, check=False)
def invariants(game: State, out: list) -> cython.int:
    """What must hold after every decision: no cash is negative; held players stand on the
    hold space; cash plus the Treasury's balance is constant; a Monopolist with buildings in a
    city has its monopoly; the building supply balances; each count of `group_held` is the
    count of the titles, each seat's `wealth_titles` and `wealth_buildings` the sum over its
    titles, and its `held_titles` its titles in board order. Returns how many fail; with `out` (a list, or None in a batch) also
    appends a record of each: (name in `INVARIANTS`, numbers)."""
    t: Tables = game.t
    found: cython.int = 0
    money: cython.longlong = game.treasury
    houses: cython.int = game.supply_houses
    apartments: cython.int = game.supply_apartments
    p: cython.int
    i: cython.int
    sp: cython.int
    owner: cython.int
    group: cython.int
    count: cython.int
    worth: cython.longlong
    paid: cython.longlong
    listed: cython.bint
    for p in range(game.n):
        money += game.cash[p]
        if game.cash[p] < 0:
            found += 1
            if out is not None:
                out.append(("negative_cash", p, game.cash[p]))
        if game.held[p] != NOBODY and game.position[p] != t.hold_space:
            found += 1
            if out is not None:
                out.append(("held_off_hold", p, game.position[p]))
    if money != game.total_money:
        found += 1
        if out is not None:
            out.append(("money", money, game.total_money))
    for i in range(t.n_streets):
        sp = t.streets[i]
        houses += game.houses[sp]
        apartments += 1 if game.apartment[sp] else 0
        owner = game.owner[sp]
        if (game.houses[sp] or game.apartment[sp]) and owner != NOBODY:
            if game.roles[owner] == MONOPOLIST and not is_monopolized(game, t, owner, t.city[sp]):
                found += 1
                if out is not None:
                    out.append(("monopoly", owner, sp))
    if houses != t.supply_houses or apartments != t.supply_apartments:
        found += 1
        if out is not None:
            out.append(("supply", houses, apartments))
    # every count of `group_held` that is not 0 is the count of the titles, and a title owned
    # unmortgaged has its owner's count not 0 (so the counts of 0 are right too)
    for p in range(MAX_SEATS):
        for group in range(MAX_GROUPS):
            if game.group_held[p][group] != 0:
                count = titles_held(game, t, p, group)
                if count != game.group_held[p][group]:
                    found += 1
                    if out is not None:
                        out.append(("counts", p, group, game.group_held[p][group], count))
    for i in range(t.n_titles):
        sp = t.titles[i]
        owner = game.owner[sp]
        if owner != NOBODY and not game.mortgaged[sp] and game.group_held[owner][t.group[sp]] == 0:
            found += 1
            if out is not None:
                out.append(
                    ("counts", owner, t.group[sp], 0, titles_held(game, t, owner, t.group[sp]))
                )
    for p in range(game.n):
        worth = 0
        paid = 0
        count = 0
        listed = True
        for i in range(t.n_titles):
            sp = t.titles[i]
            if game.owner[sp] == p:
                worth += title_worth(t, sp, game.mortgaged[sp], game.redeem_values[sp])
                paid += buildings_paid(t, sp, game.roles[p], game.houses[sp], game.apartment[sp])
                if count >= game.n_held[p] or game.held_titles[p][count] != sp:
                    listed = False
                count += 1
        if not listed or count != game.n_held[p]:
            found += 1
            if out is not None:
                out.append(("held_titles", p, game.n_held[p], count))
        if worth != game.wealth_titles[p] or paid != game.wealth_buildings[p]:
            found += 1
            if out is not None:
                out.append(
                    ("wealth", p, game.wealth_titles[p], game.wealth_buildings[p], worth, paid)
                )
    return found


# -- the legal choices, in one call (issue 38) -------------------------------------------------
# A choice as one whole number, for the bots and the batches: its kind (a position in
# `CHOICE_CODES`: "none", then the engine's kinds in `CHOICE_KINDS`' order, the income tax split
# by its two options) plus CHOICE_BASE times (its title's space + 1), so a kind alone is the
# choice with no title. `legal_codes` lists every legal choice of the moment, in the engine's
# order, once for `Game.legal_choices` and the batches' bots (a title choice's titles by
# `title_targets`, one call for the whole list); `legal_kinds` says which kinds have one.
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
CHOICE_BASE = 16
MAX_CHOICES = 4 * MAX_SPACES  # the most a phase lists: four actions on every title
MAX_PHASES = 8
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
if len(CHOICE_CODES) > CHOICE_BASE or len(PHASES) > MAX_PHASES:
    raise ImportError("amteach.engine.core: more kinds of choice or phases than a code holds")


@cython.ccall
@cython.exceptval(check=False)
def choice(kind: cython.int, arg: cython.int) -> cython.int:
    """The code of a choice of `kind` (C_BUILD, ...) naming `arg` (a space), or none (-1)."""
    return kind + CHOICE_BASE * (arg + 1)


@cython.ccall
@cython.exceptval(check=False)
def choice_kind(code: cython.int) -> cython.int:
    return code % CHOICE_BASE


@cython.ccall
@cython.exceptval(check=False)
def choice_arg(code: cython.int) -> cython.int:
    return code // CHOICE_BASE - 1


def phase_listing(phase) -> tuple:
    """The codes of the kinds `phase` (a `Phase`) lists, in `PHASE_KINDS`' order: an income
    tax is both options; a trade, open-ended, is left out (as `Game.legal_choices` leaves it)."""
    return tuple(
        c
        for kind in PHASE_KINDS[phase]
        if kind != "trade"
        for c, name in enumerate(CHOICE_CODES)
        if name.partition(":")[0] == kind
    )


# each phase's kinds of choice as codes: a bit per code allowed, and the codes listed in order
PHASE_ALLOWED = tuple(
    sum(
        1 << c
        for c, name in enumerate(CHOICE_CODES)
        if name.partition(":")[0] in PHASE_KINDS[phase]
    )
    for phase in PHASES
)
PHASE_LISTED = tuple(phase_listing(phase) for phase in PHASES)


@cython.cclass
class Choices:
    """The legal choices `legal_codes` found (`codes[:n]`), and each phase's kinds as codes:
    `allowed[phase]` a bit per kind (`PHASE_KINDS`), `listed[phase]` in the order listed."""

    def __init__(self):
        ph: cython.int
        c: cython.int
        if not cython.compiled:  # compiled, the C arrays start zeroed
            self.codes = zeros(MAX_CHOICES)
            self.allowed = zeros(MAX_PHASES)
            self.listed = zeros(MAX_PHASES, CHOICE_BASE)
            self.n_listed = zeros(MAX_PHASES)
        for ph in range(len(PHASES)):
            self.allowed[ph] = PHASE_ALLOWED[ph]
            listing = PHASE_LISTED[ph]
            for c in range(len(listing)):
                self.listed[ph][c] = listing[c]
            self.n_listed[ph] = len(listing)
        self.n = 0

    def as_list(self) -> list:
        """The codes found, as a list."""
        return [self.codes[i] for i in range(self.n)]


@cython.ccall
@cython.exceptval(check=False)
def allows(c: Choices, phase: cython.int, kind: cython.int) -> cython.bint:
    """Does `phase` allow choices of `kind` at all (`PHASE_KINDS`), the state not looked at?"""
    return (c.allowed[phase] >> kind) & 1


@cython.ccall
@cython.exceptval(check=False)
def title_action(kind: cython.int) -> cython.int:
    """The `A_...` action of a title choice's kind (C_BUILD, C_SELL, C_MORTGAGE, C_REDEEM)."""
    if kind == C_BUILD:
        return A_BUILD
    if kind == C_SELL:
        return A_SELL
    if kind == C_MORTGAGE:
        return A_MORTGAGE
    return A_REDEEM


@cython.ccall
@cython.exceptval(-1, check=False)
def kind_is_legal(game: State, c: Choices, kind: cython.int) -> cython.int:
    """Is a choice of `kind` (not a title's, not a trade) legal now? The phase, then the
    rules' legality (`why_not_...`); a throw, declining, an income tax option, ending a turn
    and answering a trade are legal whenever the phase allows them. 1 when so, else 0."""
    if not allows(c, game.phase, kind):
        return 0
    if kind == C_PAY_FINE:
        return why_not_pay_fine(game, game.t, game.actor) == 0
    if kind == C_BUY:
        return why_not_buy(game, game.t, game.actor) == 0
    if kind == C_END_GAME:
        return why_not_end_game(game, game.t) == 0
    return 1


@cython.ccall
@cython.exceptval(-1, check=False)
def trade_is_legal(game: State, c: Choices) -> cython.int:
    """Is the trade weighed (`game.proposal`) legal now? The phase, then `why_not_trade`."""
    return allows(c, game.phase, C_TRADE) and why_not_trade(game, game.t, game.actor) == 0


@cython.ccall
@cython.exceptval(-1, check=False)
def legal_codes(game: State, c: Choices) -> cython.int:
    """Every legal choice now but trades, in the engine's order (the phase's kinds in
    `PHASE_KINDS`' order, a title choice's titles in board order), into `c.codes`; returns how
    many (`c.n`)."""
    phase: cython.int = game.phase
    count: cython.int = 0
    i: cython.int
    j: cython.int
    n: cython.int
    kind: cython.int
    for i in range(c.n_listed[phase]):
        kind = c.listed[phase][i]
        if kind == C_BUILD or kind == C_SELL or kind == C_MORTGAGE or kind == C_REDEEM:
            n = title_targets(game, title_action(kind))
            for j in range(n):
                c.codes[count] = choice(kind, game.found[j])
                count += 1
        elif kind_is_legal(game, c, kind):
            c.codes[count] = kind
            count += 1
    c.n = count
    return count


@cython.ccall
@cython.exceptval(-1, check=False)
def legal_kinds(game: State, c: Choices) -> cython.int:
    """The kinds of choice legal now, each with at least one legal instance (a trade when
    `trade_possible`): a bit per code, an income tax's two options both set."""
    phase: cython.int = game.phase
    mask: cython.int = 0
    kind: cython.int
    for kind in range(1, len(CHOICE_CODES)):
        if not allows(c, phase, kind):
            continue
        if kind == C_BUILD or kind == C_SELL or kind == C_MORTGAGE or kind == C_REDEEM:
            if title_targets(game, title_action(kind)):
                mask |= 1 << kind
        elif kind == C_TRADE:
            if trade_possible(game, game.t, game.actor):
                mask |= 1 << kind
        elif kind_is_legal(game, c, kind):
            mask |= 1 << kind
    return mask


def as_choice(code: int) -> Choice:
    """The engine's `Choice` for a code (not a trade's: a trade's terms are not in its code)."""
    name = CHOICE_CODES[code % CHOICE_BASE]
    kind, _, option = name.partition(":")
    if option:
        return Choice(kind, option)
    if kind in TITLE_CHOICES:
        return Choice(kind, code // CHOICE_BASE - 1)
    return Choice(kind)


def trade_parts(trade: Trade) -> tuple:
    """A `Trade`'s terms as Python values: (other, titles given, titles asked for, pay)."""
    return (
        trade.other,
        tuple(trade.give[i] for i in range(trade.n_give)),
        tuple(trade.get[i] for i in range(trade.n_get)),
        trade.pay,
    )
