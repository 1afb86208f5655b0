# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
# cython: cdivision=True, nonecheck=False, infer_types=True
"""The compiled core of a batch: the engine, the four named bots, the family of strategies
(`amteach.bots.family`) and the frame recording of `amteach.sim.play`, written again over C
structs so that a bot game runs without creating a Python object per decision.

The Python engine (`amteach.engine.game`) and bots (`amteach.bots.strategies`) are the
reference: they serve the classroom app, scenarios, saves and docs, and this file follows
them line for line (each function names the one it mirrors). `tests/test_core.py` plays the
same seeds through both and requires every column of every frame to be identical, so any rule
changed there must be changed here too.

Chance is CPython's own: `random.Random` (Mersenne Twister seeded from an int, `random()`,
`shuffle`, `choice`, `randint`) is reproduced below, draw for draw, so a seed gives the same
game on either core.

Every division below has operands that are never negative (money and counts), so C division
(`cdivision`) gives the same result as Python's floor division.
"""

from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport abort, free, malloc, realloc
from libc.string cimport memcpy, memset

import numpy as np

cdef extern from *:
    """
    #ifndef AMTEACH_KERNEL_SHA256
    #define AMTEACH_KERNEL_SHA256 "unknown"
    #endif
    """
    const char* AMTEACH_KERNEL_SHA256

# the SHA-256 of this file when it was compiled (setup.py passes it in), so that
# amteach.sim.core never uses a build older than the source beside it
SOURCE_SHA256 = AMTEACH_KERNEL_SHA256.decode("ascii")

# -- sizes ----------------------------------------------------------------------------------
cdef enum:
    MAX_SEATS = 6
    MAX_SPACES = 40
    MAX_CARDS = 32
    MAX_CITIES = 16
    MAX_DEBTS = 16
    MAX_CHOICES = 4 * MAX_SPACES
    MT_N = 624
    MT_M = 397

# -- codes (the Python engine's strings, as small ints) --------------------------------------
cdef enum:
    NOBODY = -1  # also TREASURY and NOT_HELD: the engine's three names for -1
    COMPETITOR = 0
    MONOPOLIST = 1

cdef enum Kind:
    K_CORNER, K_STREET, K_CARD, K_TAX, K_TRANSPORT, K_UTILITY

cdef enum Phase:
    PRE_ROLL, BUY, INCOME_TAX, RAISE, POST_ROLL, TRADE_ANSWER, FINAL_ADJUST, OVER

cdef enum Effect:
    E_COLLECT, E_PAY, E_COLLECT_FROM_MONOPOLISTS, E_COLLECT_FROM_COMPETITORS,
    E_ALL_MONOPOLISTS_COLLECT, E_NOTHING, E_MOVE_TO, E_GO_TO_HOLD, E_ROLL_FOR

cdef enum ChoiceKind:
    C_NONE, C_ROLL, C_BUY, C_DECLINE, C_BUILD, C_SELL, C_MORTGAGE, C_REDEEM, C_TAX_FLAT,
    C_TAX_PERCENT, C_PAY_FINE, C_TRADE, C_ACCEPT, C_REJECT, C_END_TURN, C_END_GAME

cdef enum DebtKind:
    D_RENT, D_FINE, D_INCOME_TAX, D_PROPERTY_TAX, D_OTHER

cdef enum Then:
    THEN_NONE, THEN_AFTER_MOVE, THEN_RELEASED

cdef enum Ending:
    END_GAME_A, END_GAME_B, END_TWO_HOUR, END_ROUND_CAP

cdef enum GameType:
    GAME_A, GAME_B, GAME_TWO_HOUR

cdef enum BotKind:
    BOT_CAUTIOUS, BOT_BUILDER, BOT_INVESTOR, BOT_RANDOM, BOT_FAMILY

# a family bot's knobs, in amteach.bots.family.KNOBS order (FamilyParams.vector())
cdef enum:
    F_RESERVE, F_STREETS, F_TRANSPORTS, F_UTILITIES, F_KEY_STREETS, F_BUILD_RESERVE, F_HOUSES,
    F_APARTMENTS, F_BUILD_ORDER, F_BUILDS_PER_TURN, F_REDEEM_RESERVE, F_RAISE_FIRST, F_TAX,
    F_OFFER, F_ACCEPT, F_FINE_CASH, F_FINAL_ADJUST, F_TEAM, FAMILY_SIZE

cdef enum Tax:
    TAX_CHEAPER, TAX_FLAT, TAX_PERCENT

# The strings each enum above stands for, in enum order. The kernel reads the engine's names
# through these tuples only; tests/test_core_rules.py requires them to equal the engine's own
# vocabulary (board.KINDS, board.CARD_EFFECTS, the bots, the tax behaviours, the game types,
# the family's knobs) in the same order, and the sizes below to match the enums.
KINDS = ("corner", "street", "card", "tax", "transport", "utility")
CARD_EFFECTS = ("collect", "pay", "collect_from_each_monopolist",
                "collect_from_each_competitor", "all_monopolists_collect", "nothing",
                "move_to", "go_to_price_war", "go_to_prison", "roll_for")
BOTS = ("cautious", "builder", "investor", "random", "family")
TAX_BEHAVIOURS = ("cheaper", "flat", "percent")
GAME_TYPES = ("A", "B", "two-hour")
RENT_LADDER = 6  # a space's rents: index 5 is the apartment for either role
ENUM_SIZES = {
    "kinds": K_UTILITY + 1,
    "bots": BOT_FAMILY + 1,
    "tax_behaviours": TAX_PERCENT + 1,
    "game_types": GAME_TWO_HOUR + 1,
    "family_knobs": FAMILY_SIZE,
    "max_debts": MAX_DEBTS,
}
if (len(KINDS), len(BOTS), len(TAX_BEHAVIOURS), len(GAME_TYPES)) != (
    ENUM_SIZES["kinds"], ENUM_SIZES["bots"], ENUM_SIZES["tax_behaviours"], ENUM_SIZES["game_types"]
):
    raise ImportError("amteach.sim.kernel: a vocabulary tuple and its enum differ in size")

# -- CPython's random.Random ----------------------------------------------------------------

cdef struct MT:
    uint32_t state[MT_N]
    int index


cdef void mt_init_genrand(MT* mt, uint32_t s) noexcept nogil:
    cdef int i
    mt.state[0] = s
    for i in range(1, MT_N):
        mt.state[i] = <uint32_t>(1812433253U * (mt.state[i - 1] ^ (mt.state[i - 1] >> 30)) + <uint32_t>i)
    mt.index = MT_N


cdef void mt_seed(MT* mt, uint64_t seed) noexcept nogil:
    """random.Random(seed) for 0 <= seed < 2**64: init_by_array over the 32-bit words."""
    cdef uint32_t key[2]
    cdef int key_length = 1
    cdef int i = 1, j = 0, k
    key[0] = <uint32_t>(seed & 0xFFFFFFFFU)
    key[1] = <uint32_t>(seed >> 32)
    if key[1] != 0:
        key_length = 2
    mt_init_genrand(mt, 19650218U)
    k = MT_N if MT_N > key_length else key_length
    while k > 0:
        mt.state[i] = <uint32_t>((mt.state[i] ^ ((mt.state[i - 1] ^ (mt.state[i - 1] >> 30)) * 1664525U))
                                 + key[j] + <uint32_t>j)
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
        mt.state[i] = <uint32_t>((mt.state[i] ^ ((mt.state[i - 1] ^ (mt.state[i - 1] >> 30)) * 1566083941U))
                                 - <uint32_t>i)
        i += 1
        if i >= MT_N:
            mt.state[0] = mt.state[MT_N - 1]
            i = 1
        k -= 1
    mt.state[0] = 0x80000000U


cdef uint32_t mt_next(MT* mt) noexcept nogil:
    cdef uint32_t y
    cdef int kk
    if mt.index >= MT_N:
        for kk in range(MT_N - MT_M):
            y = (mt.state[kk] & 0x80000000U) | (mt.state[kk + 1] & 0x7fffffffU)
            mt.state[kk] = mt.state[kk + MT_M] ^ (y >> 1) ^ (0x9908b0dfU if (y & 1U) else 0U)
        for kk in range(MT_N - MT_M, MT_N - 1):
            y = (mt.state[kk] & 0x80000000U) | (mt.state[kk + 1] & 0x7fffffffU)
            mt.state[kk] = mt.state[kk + (MT_M - MT_N)] ^ (y >> 1) ^ (0x9908b0dfU if (y & 1U) else 0U)
        y = (mt.state[MT_N - 1] & 0x80000000U) | (mt.state[0] & 0x7fffffffU)
        mt.state[MT_N - 1] = mt.state[MT_M - 1] ^ (y >> 1) ^ (0x9908b0dfU if (y & 1U) else 0U)
        mt.index = 0
    y = mt.state[mt.index]
    mt.index += 1
    y ^= (y >> 11)
    y ^= (y << 7) & 0x9d2c5680U
    y ^= (y << 15) & 0xefc60000U
    y ^= (y >> 18)
    return y


cdef inline double mt_random(MT* mt) noexcept nogil:
    """random.random(): 53 bits from two draws."""
    cdef uint32_t a = mt_next(mt) >> 5
    cdef uint32_t b = mt_next(mt) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


cdef inline int bit_length(int64_t n) noexcept nogil:
    cdef int k = 0
    while n > 0:
        k += 1
        n >>= 1
    return k


cdef int64_t mt_randbelow(MT* mt, int64_t n) noexcept nogil:
    """random._randbelow_with_getrandbits(n) for 0 < n < 2**32."""
    cdef int k = bit_length(n)
    cdef int64_t r
    if k == 0:
        return 0
    r = mt_next(mt) >> (32 - k)
    while r >= n:
        r = mt_next(mt) >> (32 - k)
    return r


def random_stream(seed, int draws):
    """For tests: this file's random.Random(seed): `draws` of (random(), randbelow(1..50))."""
    cdef MT mt
    mt_seed(&mt, <uint64_t>seed)
    out = []
    for i in range(draws):
        out.append(mt_random(&mt))
        out.append(mt_randbelow(&mt, 1 + i % 50))
    return out


# -- the board and the rules, fixed for a batch ----------------------------------------------

cdef struct Card:
    int effect
    int amount
    int target


cdef struct Static:
    # board
    int n_spaces
    int kind[MAX_SPACES]
    int city[MAX_SPACES]
    int price[MAX_SPACES]
    int house_cost[MAX_SPACES]
    int crent[MAX_SPACES][6]
    int mrent[MAX_SPACES][6]
    int n_cities
    int city_size[MAX_CITIES]
    int city_member[MAX_CITIES][MAX_SPACES]
    int n_titles
    int titles[MAX_SPACES]
    int n_streets
    int streets[MAX_SPACES]
    int n_transports
    int transports[MAX_SPACES]
    int n_utilities
    int utilities[MAX_SPACES]
    int income_tax_space
    int property_tax_space
    int hold_space
    int go_to_hold_space
    int foundation_space
    int deck_size[2]
    Card cards[2][MAX_CARDS]
    # rules
    int starting_cash
    int start_payment
    int income_tax_flat
    int tax_rates[2][3]
    int property_tax
    int foundation_fee
    int prizes[7]
    int fine
    int held_forced
    int max_houses[2]
    bint unlimited_supply
    int supply_houses
    int supply_apartments
    int monopoly_streets
    int fare_competitor
    int n_fares
    int fares_monopolist[8]
    int utility_competitor
    int n_utility_multipliers
    int utility_monopolist[8]
    int mortgage_percent
    int redeem_percent
    int sellback_percent
    int keep_percent[2]
    int settle_dice
    int round_cap  # -1: none
    # the table
    int game_type
    int n
    int roles[MAX_SEATS]
    int bot[MAX_SEATS]
    int tax[MAX_SEATS]
    int family[MAX_SEATS][FAMILY_SIZE]  # a family bot's knobs
    # investor bots: expected landings per round by one opponent of each role
    double role_landings[2][MAX_SPACES]
    bint record_rounds
    bint check_invariants


cdef struct Debt:
    int debtor
    int creditor
    int64_t amount
    int kind
    bint releases


cdef struct Trade:
    int other
    int n_give
    int give[MAX_SPACES]
    int n_get
    int get[MAX_SPACES]
    int64_t pay


cdef struct Bot:
    int kind
    int tax
    int reserve
    double margin
    # cautious and family: the turn it last built on (and the family: how often that turn)
    int built_round
    int built_seat
    int built_count
    # family: its knobs
    int fam[FAMILY_SIZE]
    # investor: offers made per street, and its landing weights for a set of opponents
    int offers[MAX_SPACES]
    int landings_key
    double landings[MAX_SPACES]
    # random
    MT rng


cdef struct Choice:
    int kind
    int arg


cdef struct G:
    const Static* s
    int n
    int64_t cash[MAX_SEATS]
    int position[MAX_SEATS]
    int held[MAX_SEATS]
    bint bankrupt[MAX_SEATS]
    int turns_taken[MAX_SEATS]
    int owner[MAX_SPACES]
    int houses[MAX_SPACES]
    bint apartment[MAX_SPACES]
    bint mortgaged[MAX_SPACES]
    int mortgage_values[MAX_SPACES]
    int redeem_values[MAX_SPACES]
    int64_t treasury
    int64_t total_money
    int supply_houses
    int supply_apartments
    MT rng
    int deck[2][MAX_CARDS]
    int deck_head[2]
    Debt debts[MAX_DEBTS]
    int debt_head
    int debt_count
    bint debt_overflow  # more than MAX_DEBTS debts at once: the game's frames are not kept
    int then
    int round
    int current
    int actor
    int phase
    bint is_extra
    bint extra_pending
    int last_dice
    int pending_buy
    Trade offer
    int offer_phase
    int final_queue[MAX_SEATS]
    int final_head
    int final_count
    int final_reason
    int winner
    int end_reason
    # what the frames count
    int64_t rent_paid[MAX_SEATS]
    int64_t rent_received[MAX_SEATS]
    int64_t income_tax[MAX_SEATS]
    int64_t property_tax[MAX_SEATS]
    int64_t fines[MAX_SEATS]
    int bankrupt_round[MAX_SEATS]
    # the bots
    Bot bots[MAX_SEATS]
    Trade proposal  # a bot's trade, before it is applied
    # income-tax decisions, for the taxes frame
    Rows* taxes
    int64_t game_index


# -- growable columns -------------------------------------------------------------------------

cdef struct Column:
    int64_t* data
    Py_ssize_t size
    Py_ssize_t capacity


cdef struct Rows:
    int width
    Column columns[16]


cdef int rows_init(Rows* rows, int width) except -1:
    rows.width = width
    for c in range(width):
        rows.columns[c].data = <int64_t*>malloc(1024 * sizeof(int64_t))
        if rows.columns[c].data == NULL:
            raise MemoryError()
        rows.columns[c].size = 0
        rows.columns[c].capacity = 1024
    return 0


cdef void rows_free(Rows* rows) noexcept:
    for c in range(rows.width):
        free(rows.columns[c].data)
        rows.columns[c].data = NULL


cdef inline void push(Column* column, int64_t value) noexcept:
    cdef int64_t* grown
    if column.size == column.capacity:
        grown = <int64_t*>realloc(column.data, 2 * column.capacity * sizeof(int64_t))
        if grown == NULL:  # out of memory: stopping beats frames with rows missing
            abort()
        column.data = grown
        column.capacity *= 2
    column.data[column.size] = value
    column.size += 1


cdef object rows_to_arrays(Rows* rows, tuple names):
    out = {}
    cdef Py_ssize_t size
    cdef int64_t[::1] view
    for c in range(rows.width):
        size = rows.columns[c].size
        array = np.empty(size, dtype=np.int64)
        if size:
            view = array
            memcpy(&view[0], rows.columns[c].data, size * sizeof(int64_t))
        name = names[c]
        out[name] = array if name == "seed" else array.astype(np.int32)
    return out


# -- reading the engine (Game's queries) ------------------------------------------------------

cdef inline int percent_of(int64_t amount, int percent) noexcept nogil:
    return <int>((amount * percent + 50) // 100)


cdef inline int monopoly_count(G* g, int player, int city) noexcept nogil:
    """Game.monopoly_count"""
    cdef const Static* s = g.s
    cdef int count = 0, i, sp
    for i in range(s.city_size[city]):
        sp = s.city_member[city][i]
        if g.owner[sp] == player and not g.mortgaged[sp]:
            count += 1
    return count


cdef inline bint is_monopolized(G* g, int player, int city) noexcept nogil:
    """Game.is_monopolized"""
    return g.s.roles[player] == MONOPOLIST and monopoly_count(g, player, city) >= g.s.monopoly_streets


cdef inline int unmortgaged_owned(G* g, int player, const int* spaces, int count) noexcept nogil:
    cdef int total = 0, i
    for i in range(count):
        if g.owner[spaces[i]] == player and not g.mortgaged[spaces[i]]:
            total += 1
    return total


cdef int rent_for(G* g, int space, int dice) noexcept nogil:
    """Game.rent_for(space, dice)[0]"""
    cdef const Static* s = g.s
    cdef int owner = g.owner[space], role, kind, count, houses, multiplier
    if owner == NOBODY or g.mortgaged[space]:
        return 0
    role = s.roles[owner]
    if role == MONOPOLIST and g.held[owner] != NOBODY:
        return 0
    kind = s.kind[space]
    if kind == K_STREET:
        if role == COMPETITOR:
            if g.apartment[space]:
                return s.crent[space][5]
            return s.crent[space][g.houses[space]]
        count = monopoly_count(g, owner, s.city[space])
        if count < s.monopoly_streets:
            return s.mrent[space][0]
        if g.apartment[space]:
            return s.mrent[space][5]
        houses = g.houses[space]
        if houses:
            return s.mrent[space][1 + houses]
        return s.mrent[space][1]
    if kind == K_TRANSPORT:
        if role == COMPETITOR:
            return s.fare_competitor
        count = unmortgaged_owned(g, owner, s.transports, s.n_transports)
        return s.fares_monopolist[(count - 1 + s.n_fares) % s.n_fares]
    if role == COMPETITOR:
        multiplier = s.utility_competitor
    else:
        count = unmortgaged_owned(g, owner, s.utilities, s.n_utilities)
        multiplier = s.utility_monopolist[(count - 1 + s.n_utility_multipliers) % s.n_utility_multipliers]
    return multiplier * dice


cdef inline int max_houses_of_owner(G* g, int space) noexcept nogil:
    return g.s.max_houses[g.s.roles[g.owner[space]]]


cdef inline int buildings_paid(G* g, int space) noexcept nogil:
    """Game.buildings_paid"""
    cdef int cost = g.s.house_cost[space]
    if g.apartment[space]:
        return cost * (max_houses_of_owner(g, space) + 1)
    return cost * g.houses[space]


cdef int rent_after_build(G* g, int space) noexcept nogil:
    """Game.rent_after_build: the rent once the next building stands on the street."""
    cdef int houses = g.houses[space], rent
    cdef bint apartment = g.apartment[space]
    if houses >= max_houses_of_owner(g, space):
        g.houses[space] = 0
        g.apartment[space] = True
    else:
        g.houses[space] = houses + 1
    rent = rent_for(g, space, g.s.settle_dice)
    g.houses[space] = houses
    g.apartment[space] = apartment
    return rent


cdef int rent_if_redeemed(G* g, int space) noexcept nogil:
    """Game.rent_if(space, mortgaged=False, dice_total=settlement dice)"""
    cdef bint mortgaged = g.mortgaged[space]
    cdef int rent
    g.mortgaged[space] = False
    rent = rent_for(g, space, g.s.settle_dice)
    g.mortgaged[space] = mortgaged
    return rent


cdef void tax_options(G* g, int player, int* flat, int* percent) noexcept nogil:
    """Game.tax_options: the flat and the percentage amounts"""
    cdef const Static* s = g.s
    cdef int64_t prop = 0, improvements = 0
    cdef int i, sp
    cdef const int* rates = s.tax_rates[s.roles[player]]
    for i in range(s.n_titles):
        sp = s.titles[i]
        if g.owner[sp] == player and not g.mortgaged[sp]:
            prop += s.price[sp]
            improvements += buildings_paid(g, sp)
    flat[0] = s.income_tax_flat
    percent[0] = <int>((rates[0] * g.cash[player] + rates[1] * prop + rates[2] * improvements + 50) // 100)


cdef int64_t liquidation_value(G* g, int player) noexcept nogil:
    """Game.liquidation_value"""
    cdef const Static* s = g.s
    cdef int64_t total = g.cash[player]
    cdef int i, sp
    for i in range(s.n_titles):
        sp = s.titles[i]
        if g.owner[sp] == player:
            total += percent_of(buildings_paid(g, sp), s.sellback_percent)
            if not g.mortgaged[sp]:
                total += g.mortgage_values[sp]
    return total


cdef int64_t rule25_wealth(G* g, int player) noexcept nogil:
    """Game.rule25_wealth"""
    cdef const Static* s = g.s
    cdef int64_t total = g.cash[player]
    cdef int i, sp
    for i in range(s.n_titles):
        sp = s.titles[i]
        if g.owner[sp] == player:
            total += rent_for(g, sp, s.settle_dice)
    return total


cdef void wealth_parts(G* g, int64_t* titles, int64_t* buildings) noexcept nogil:
    """Game.wealth_parts: titles at price (mortgaged: less the redeem price), buildings at cost"""
    cdef const Static* s = g.s
    cdef int i, sp, p
    for p in range(g.n):
        titles[p] = 0
        buildings[p] = 0
    for i in range(s.n_titles):
        sp = s.titles[i]
        p = g.owner[sp]
        if p != NOBODY:
            titles[p] += s.price[sp] - g.redeem_values[sp] if g.mortgaged[sp] else s.price[sp]
            if g.houses[sp] or g.apartment[sp]:
                buildings[p] += buildings_paid(g, sp)


cdef bint breaks_built_monopoly(G* g, int player, int city, uint64_t leaving) noexcept nogil:
    """Game._breaks_built_monopoly (`leaving` as a bit per space)"""
    cdef const Static* s = g.s
    cdef int i, sp, keep = 0
    cdef bint built = False
    for i in range(s.city_size[city]):
        sp = s.city_member[city][i]
        if g.owner[sp] == player and (g.houses[sp] or g.apartment[sp]):
            built = True
            break
    if not built:
        return False
    for i in range(s.city_size[city]):
        sp = s.city_member[city][i]
        if g.owner[sp] == player and not g.mortgaged[sp] and not (leaving >> sp) & 1:
            keep += 1
    return keep < s.monopoly_streets


cdef inline bint phase_allows(int phase, int kind) noexcept nogil:
    """kind in _PHASE_KINDS[phase] (for the kinds the bots ask about)"""
    if phase == PRE_ROLL:
        return kind in (C_ROLL, C_PAY_FINE, C_BUILD, C_SELL, C_MORTGAGE, C_REDEEM, C_TRADE, C_END_GAME)
    if phase == POST_ROLL:
        return kind in (C_BUILD, C_SELL, C_MORTGAGE, C_REDEEM, C_TRADE, C_END_TURN, C_END_GAME)
    if phase == BUY:
        return kind in (C_BUY, C_DECLINE, C_SELL, C_MORTGAGE)
    if phase == INCOME_TAX:
        return kind == C_TAX_FLAT or kind == C_TAX_PERCENT
    if phase == RAISE:
        return kind == C_SELL or kind == C_MORTGAGE
    if phase == TRADE_ANSWER:
        return kind == C_ACCEPT or kind == C_REJECT
    if phase == FINAL_ADJUST:
        return kind in (C_BUILD, C_SELL, C_MORTGAGE, C_REDEEM, C_END_TURN)
    return False


cdef int targets(G* g, int kind, int* out) noexcept nogil:
    """Game.targets: the titles on which build, sell, mortgage or redeem is legal now"""
    cdef const Static* s = g.s
    cdef int actor = g.actor, count = 0, i, sp, role = s.roles[g.actor]
    cdef int64_t cash = g.cash[g.actor]
    if not phase_allows(g.phase, kind):
        return 0
    if kind == C_BUILD:
        for i in range(s.n_streets):
            sp = s.streets[i]
            if (g.owner[sp] != actor or g.apartment[sp] or g.mortgaged[sp]
                    or s.house_cost[sp] > cash):
                continue
            if role == MONOPOLIST and not is_monopolized(g, actor, s.city[sp]):
                continue
            if not s.unlimited_supply:
                if g.houses[sp] >= s.max_houses[role]:
                    if g.supply_apartments <= 0:
                        continue
                elif g.supply_houses <= 0:
                    continue
            out[count] = sp
            count += 1
    elif kind == C_REDEEM:
        for i in range(s.n_titles):
            sp = s.titles[i]
            if g.mortgaged[sp] and g.owner[sp] == actor and cash >= g.redeem_values[sp]:
                out[count] = sp
                count += 1
    elif kind == C_SELL:
        for i in range(s.n_streets):
            sp = s.streets[i]
            if (g.houses[sp] or g.apartment[sp]) and g.owner[sp] == actor:
                out[count] = sp
                count += 1
    else:  # mortgage
        for i in range(s.n_titles):
            sp = s.titles[i]
            if g.mortgaged[sp] or g.owner[sp] != actor or g.houses[sp] or g.apartment[sp]:
                continue
            if (role == MONOPOLIST and s.kind[sp] == K_STREET
                    and breaks_built_monopoly(g, actor, s.city[sp], (<uint64_t>1) << sp)):
                continue
            out[count] = sp
            count += 1
    return count


cdef inline bint can_pay_fine(G* g) noexcept nogil:
    """is_legal(pay_fine): in the pre-roll phase, held, and the fine in hand"""
    return (g.phase == PRE_ROLL and g.held[g.actor] != NOBODY
            and g.cash[g.actor] >= g.s.fine)


cdef bint trade_possible(G* g) noexcept nogil:
    """Game._trade_possible"""
    cdef const Static* s = g.s
    cdef int me = g.actor, others = 0, p, i, sp, owner
    for p in range(g.n):
        if p != me and not g.bankrupt[p]:
            others += 1
    if others == 0:
        return False
    for i in range(s.n_titles):
        sp = s.titles[i]
        owner = g.owner[sp]
        if owner == NOBODY or g.houses[sp] or g.apartment[sp]:
            continue
        if owner == me or not g.bankrupt[owner]:
            return True
    return False


cdef bint trade_is_legal(G* g, Trade* t) noexcept nogil:
    """Game.is_legal(Choice("trade", t)): the phase, then Game._why_not_trade"""
    cdef const Static* s = g.s
    cdef int p = g.actor, q = t.other, side, n_titles, i, j, sp, city
    cdef const int* titles
    cdef uint64_t leaving
    if not phase_allows(g.phase, C_TRADE):
        return False
    if not (0 <= q < g.n) or q == p or g.bankrupt[q]:
        return False
    if t.n_give == 0 and t.n_get == 0:
        return False
    for side in range(2):
        if side == 0:
            who, titles, n_titles = p, t.give, t.n_give
        else:
            who, titles, n_titles = q, t.get, t.n_get
        leaving = 0
        for i in range(n_titles):
            sp = titles[i]
            if (leaving >> sp) & 1:
                return False  # listed twice
            leaving |= (<uint64_t>1) << sp
            if not (0 <= sp < s.n_spaces) or g.owner[sp] != who:
                return False
            if g.houses[sp] or g.apartment[sp]:
                return False
        if s.roles[who] == MONOPOLIST:
            for i in range(n_titles):
                sp = titles[i]
                if s.kind[sp] != K_STREET:
                    continue
                city = s.city[sp]
                if breaks_built_monopoly(g, who, city, leaving):
                    return False
    if t.pay > 0 and g.cash[p] < t.pay:
        return False
    if t.pay < 0 and g.cash[q] < -t.pay:
        return False
    return True


# -- applying a choice (Game's handlers) -------------------------------------------------------



cdef inline void owe(G* g, int debtor, int creditor, int64_t amount, int kind, bint releases) noexcept:
    # bounds checking is off: a full ring must never overwrite a debt still owed
    if g.debt_count >= MAX_DEBTS:
        g.debt_overflow = True
        return
    cdef Debt* d = &g.debts[(g.debt_head + g.debt_count) % MAX_DEBTS]
    d.debtor = debtor
    d.creditor = creditor
    d.amount = amount
    d.kind = kind
    d.releases = releases
    g.debt_count += 1


cdef inline int throw_die(G* g) noexcept:
    return <int>(mt_random(&g.rng) * 6) + 1


cdef void finish(G* g, int winner, int reason) noexcept:
    """Game._finish"""
    g.winner = winner
    g.end_reason = reason
    g.phase = OVER
    g.debt_count = 0


cdef void check_end(G* g) noexcept:
    """Game._check_end"""
    cdef int p, alive = 0, last = NOBODY, roles_seen = 0, best = NOBODY
    cdef int64_t wealth, best_wealth = 0
    for p in range(g.n):
        if not g.bankrupt[p]:
            alive += 1
            last = p
            roles_seen |= 1 << g.s.roles[p]
    if g.s.game_type == GAME_B and (roles_seen == 1 or roles_seen == 2):
        # richest by (Game B score, -seat): the first seat of the highest score
        for p in range(g.n):
            if not g.bankrupt[p]:
                wealth = rule25_wealth(g, p)
                if best == NOBODY or wealth > best_wealth:
                    best, best_wealth = p, wealth
        finish(g, best, END_GAME_B)
    elif alive <= 1:
        finish(g, last if alive else NOBODY, END_GAME_A)


cdef void go_bankrupt(G* g, int d, int creditor, int64_t debt) noexcept:
    """Game._go_bankrupt (decision 9)"""
    cdef const Static* s = g.s
    cdef int i, sp, refund
    cdef int64_t cash
    cdef int titles[MAX_SPACES]
    cdef int n_titles = 0
    for i in range(s.n_titles):
        sp = s.titles[i]
        if g.owner[sp] == d:
            titles[n_titles] = sp
            n_titles += 1
    for i in range(n_titles):
        sp = titles[i]
        refund = percent_of(buildings_paid(g, sp), s.sellback_percent)
        g.supply_houses += g.houses[sp]
        g.supply_apartments += g.apartment[sp]
        g.houses[sp] = 0
        g.apartment[sp] = False
        g.cash[d] += refund
        g.treasury -= refund
    cash = g.cash[d]
    g.cash[d] = 0
    if creditor == NOBODY or g.bankrupt[creditor]:
        g.treasury += cash
        for i in range(n_titles):
            g.owner[titles[i]] = NOBODY
            g.mortgaged[titles[i]] = False
    else:
        g.cash[creditor] += cash
        for i in range(n_titles):
            g.owner[titles[i]] = creditor
    g.bankrupt[d] = True
    g.held[d] = NOBODY
    g.bankrupt_round[d] = g.round
    check_end(g)


cdef void settle(G* g, int then) noexcept:
    """Game._settle: pay queued debts in order; stop in RAISE when a debtor must sell first"""
    cdef Debt* debt
    cdef int d
    g.then = then
    while g.debt_count:
        debt = &g.debts[g.debt_head]
        d = debt.debtor
        if g.bankrupt[d]:
            g.debt_head = (g.debt_head + 1) % MAX_DEBTS
            g.debt_count -= 1
            continue
        if g.cash[d] >= debt.amount:
            g.debt_head = (g.debt_head + 1) % MAX_DEBTS
            g.debt_count -= 1
            g.cash[d] -= debt.amount
            if debt.creditor == NOBODY:
                g.treasury += debt.amount
            else:
                g.cash[debt.creditor] += debt.amount
            if debt.kind == D_RENT:
                g.rent_paid[d] += debt.amount
                g.rent_received[debt.creditor] += debt.amount
            elif debt.kind == D_FINE:
                g.fines[d] += debt.amount
            elif debt.kind == D_INCOME_TAX:
                g.income_tax[d] += debt.amount
            elif debt.kind == D_PROPERTY_TAX:
                g.property_tax[d] += debt.amount
            if debt.releases:
                g.held[d] = NOBODY
            continue
        if liquidation_value(g, d) >= debt.amount:
            g.actor = d
            g.phase = RAISE
            return
        g.debt_head = (g.debt_head + 1) % MAX_DEBTS
        g.debt_count -= 1
        go_bankrupt(g, d, debt.creditor, debt.amount)
        if g.phase == OVER:
            g.debt_count = 0
            return
    then = g.then
    g.then = THEN_NONE
    if then == THEN_AFTER_MOVE:
        after_move(g)
    elif then == THEN_RELEASED:
        if g.bankrupt[g.current]:
            next_turn(g)
        else:
            g.actor = g.current
            g.phase = PRE_ROLL


cdef void begin_turn(G* g, int player) noexcept:
    """Game._begin_turn"""
    g.current = g.actor = player
    g.is_extra = g.extra_pending = False
    g.turns_taken[player] += 1
    if g.held[player] != NOBODY and g.held[player] >= g.s.held_forced:
        owe(g, player, NOBODY, g.s.fine, D_FINE, True)
        settle(g, THEN_RELEASED)
    else:
        g.phase = PRE_ROLL




cdef void next_turn(G* g) noexcept:
    """Game._next_turn"""
    cdef int n = g.n, p = g.current, q = p, step
    for step in range(1, n + 1):
        q = (p + step) % n
        if not g.bankrupt[q]:
            break
    if q <= p:
        if g.s.round_cap >= 0 and g.round >= g.s.round_cap:
            start_final(g, END_ROUND_CAP)
            return
        g.round += 1
    begin_turn(g, q)


cdef void after_move(G* g) noexcept:
    """Game._after_move"""
    cdef int p = g.current
    if g.bankrupt[p]:
        next_turn(g)
    elif g.extra_pending and g.held[p] == NOBODY:
        g.extra_pending = False
        g.is_extra = True
        g.actor = p
        g.phase = PRE_ROLL
    else:
        g.actor = p
        g.phase = POST_ROLL


cdef inline void pay_from_treasury(G* g, int p, int64_t amount) noexcept:
    g.cash[p] += amount
    g.treasury -= amount


cdef void send_to_hold(G* g, int p) noexcept:
    g.position[p] = g.s.hold_space
    g.held[p] = 0
    g.extra_pending = False


cdef void move_to(G* g, int p, int end) noexcept:
    """Game._move_to: reaching or passing START pays the START money"""
    cdef int start = g.position[p]
    g.position[p] = end
    if end <= start or end == 0:
        if g.s.start_payment:
            pay_from_treasury(g, p, g.s.start_payment)
    land(g, p, end)


cdef void draw_card(G* g, int p) noexcept:
    """Game._draw_card"""
    cdef const Static* s = g.s
    cdef int role = s.roles[p], k, q, a, b
    cdef int index = g.deck[role][g.deck_head[role]]
    cdef const Card* card = &s.cards[role][index]
    g.deck_head[role] = (g.deck_head[role] + 1) % s.deck_size[role]
    if card.effect == E_COLLECT:
        pay_from_treasury(g, p, card.amount)
    elif card.effect == E_PAY:
        owe(g, p, NOBODY, card.amount, D_OTHER, False)
        settle(g, THEN_AFTER_MOVE)
        return
    elif card.effect == E_COLLECT_FROM_MONOPOLISTS or card.effect == E_COLLECT_FROM_COMPETITORS:
        payer_role = MONOPOLIST if card.effect == E_COLLECT_FROM_MONOPOLISTS else COMPETITOR
        for k in range(1, g.n):
            q = (p + k) % g.n
            if s.roles[q] == payer_role and not g.bankrupt[q]:
                owe(g, q, p, card.amount, D_OTHER, False)
        settle(g, THEN_AFTER_MOVE)
        return
    elif card.effect == E_ALL_MONOPOLISTS_COLLECT:
        for q in range(g.n):
            if s.roles[q] == MONOPOLIST and not g.bankrupt[q]:
                pay_from_treasury(g, q, card.amount)
    elif card.effect == E_MOVE_TO:
        move_to(g, p, card.target)
        return
    elif card.effect == E_GO_TO_HOLD:
        send_to_hold(g, p)
    elif card.effect == E_ROLL_FOR:
        a = throw_die(g)
        b = throw_die(g)
        if a + b >= card.target:
            pay_from_treasury(g, p, card.amount)
    after_move(g)


cdef void land(G* g, int p, int space) noexcept:
    """Game._land"""
    cdef const Static* s = g.s
    cdef int kind = s.kind[space], owner, amount, face, prize
    if kind == K_STREET or kind == K_TRANSPORT or kind == K_UTILITY:
        owner = g.owner[space]
        if owner == NOBODY:
            g.pending_buy = space
            g.phase = BUY
            return
        if owner != p:
            amount = rent_for(g, space, g.last_dice)
            if amount:
                owe(g, p, owner, amount, D_RENT, False)
                settle(g, THEN_AFTER_MOVE)
                return
    elif space == s.go_to_hold_space:
        send_to_hold(g, p)
    elif space == s.income_tax_space:
        g.phase = INCOME_TAX
        return
    elif space == s.property_tax_space:
        owe(g, p, NOBODY, s.property_tax, D_PROPERTY_TAX, False)
        settle(g, THEN_AFTER_MOVE)
        return
    elif space == s.foundation_space:
        if s.roles[p] == MONOPOLIST:
            if s.foundation_fee:
                owe(g, p, NOBODY, s.foundation_fee, D_OTHER, False)
                settle(g, THEN_AFTER_MOVE)
                return
        else:
            face = throw_die(g)
            prize = s.prizes[face]
            if prize:
                pay_from_treasury(g, p, prize)
    elif kind == K_CARD:
        draw_card(g, p)
        return
    after_move(g)


cdef void do_roll(G* g) noexcept:
    """Game._do_roll"""
    cdef int p = g.current, a, b
    a = throw_die(g)
    b = throw_die(g)
    if g.held[p] != NOBODY:
        if a != b:
            g.held[p] += 1
            g.phase = POST_ROLL
            return
        g.held[p] = NOBODY
        g.extra_pending = True
    else:
        g.extra_pending = a == b and not g.is_extra
    g.last_dice = a + b
    move_to(g, p, (g.position[p] + a + b) % g.s.n_spaces)


cdef void start_final(G* g, int reason) noexcept:
    """Game._start_final"""
    cdef int p
    g.final_reason = reason
    g.final_head = 0
    g.final_count = 0
    for p in range(g.n):
        if not g.bankrupt[p]:
            g.final_queue[g.final_count] = p
            g.final_count += 1
    next_final(g)


cdef void next_final(G* g) noexcept:
    """Game._next_final: each player adjusts, then the settlement and the Treasurer's trip"""
    cdef const Static* s = g.s
    cdef int p, i, sp, owner, amount, best = NOBODY
    cdef int64_t cash, keep
    if g.final_count:
        g.actor = g.current = g.final_queue[g.final_head]
        g.phase = FINAL_ADJUST
        return
    for p in range(g.n):
        if not g.bankrupt[p]:
            cash = g.cash[p]
            keep = cash * s.keep_percent[s.roles[p]] // 100
            g.cash[p] = keep
            g.treasury += cash - keep
    for i in range(s.n_titles):
        sp = s.titles[i]
        owner = g.owner[sp]
        if owner == NOBODY:
            continue
        amount = rent_for(g, sp, s.settle_dice)
        if amount:
            g.cash[owner] += amount
            g.treasury -= amount
    for p in range(g.n):
        if not g.bankrupt[p] and (best == NOBODY or g.cash[p] > g.cash[best]):
            best = p
    finish(g, best, g.final_reason)


cdef void do_build(G* g, int space) noexcept:
    """Game._do_build"""
    cdef int p = g.actor, cost = g.s.house_cost[space]
    if g.houses[space] >= max_houses_of_owner(g, space):
        g.supply_houses += g.houses[space]
        g.supply_apartments -= 1
        g.houses[space] = 0
        g.apartment[space] = True
    else:
        g.supply_houses -= 1
        g.houses[space] += 1
    g.cash[p] -= cost
    g.treasury += cost


cdef void after_raise(G* g) noexcept:
    """Game._after_raise"""
    if g.phase == RAISE and g.cash[g.actor] >= g.debts[g.debt_head].amount:
        settle(g, g.then)


cdef void do_sell_building(G* g, int space) noexcept:
    """Game._do_sell_building"""
    cdef int p = g.actor, refund
    if g.apartment[space]:
        refund = percent_of(buildings_paid(g, space), g.s.sellback_percent)
        g.apartment[space] = False
        g.supply_apartments += 1
    else:
        refund = percent_of(g.s.house_cost[space], g.s.sellback_percent)
        g.houses[space] -= 1
        g.supply_houses += 1
    g.cash[p] += refund
    g.treasury -= refund
    after_raise(g)


cdef void do_mortgage(G* g, int space) noexcept:
    cdef int p = g.actor
    g.mortgaged[space] = True
    g.cash[p] += g.mortgage_values[space]
    g.treasury -= g.mortgage_values[space]
    after_raise(g)


cdef void do_redeem(G* g, int space) noexcept:
    cdef int p = g.actor
    g.mortgaged[space] = False
    g.cash[p] -= g.redeem_values[space]
    g.treasury += g.redeem_values[space]


cdef void do_income_tax(G* g, bint percent_chosen) noexcept:
    """Game._do_income_tax, recording the decision for the taxes frame"""
    cdef int p = g.current, flat, percent
    tax_options(g, p, &flat, &percent)
    push(&g.taxes.columns[0], g.game_index)
    push(&g.taxes.columns[1], g.round)
    push(&g.taxes.columns[2], p)
    push(&g.taxes.columns[3], flat)
    push(&g.taxes.columns[4], percent)
    push(&g.taxes.columns[5], 1 if percent_chosen else 0)
    owe(g, p, NOBODY, percent if percent_chosen else flat, D_INCOME_TAX, False)
    settle(g, THEN_AFTER_MOVE)


cdef void answer(G* g, bint accepted) noexcept:
    """Game._answer"""
    cdef Trade* t = &g.offer
    cdef int p = g.current, q = t.other, i
    cdef int64_t amount
    g.actor = p
    g.phase = g.offer_phase
    if not accepted:
        return
    for i in range(t.n_give):
        g.owner[t.give[i]] = q
    for i in range(t.n_get):
        g.owner[t.get[i]] = p
    if t.pay > 0:
        g.cash[p] -= t.pay
        g.cash[q] += t.pay
    elif t.pay < 0:
        g.cash[q] += t.pay
        g.cash[p] -= t.pay


cdef void apply(G* g, Choice c) noexcept:
    """Game.apply for a choice a bot made (bots make only legal choices)"""
    cdef int kind = c.kind, p
    if kind == C_ROLL:
        do_roll(g)
    elif kind == C_END_TURN:
        if g.phase == FINAL_ADJUST:
            g.final_head += 1
            g.final_count -= 1
            next_final(g)
        else:
            next_turn(g)
    elif kind == C_BUY:
        p = g.current
        g.cash[p] -= g.s.price[g.pending_buy]
        g.treasury += g.s.price[g.pending_buy]
        g.owner[g.pending_buy] = p
        g.pending_buy = NOBODY
        after_move(g)
    elif kind == C_DECLINE:
        g.pending_buy = NOBODY
        after_move(g)
    elif kind == C_TAX_FLAT or kind == C_TAX_PERCENT:
        do_income_tax(g, kind == C_TAX_PERCENT)
    elif kind == C_PAY_FINE:
        p = g.current
        g.cash[p] -= g.s.fine
        g.treasury += g.s.fine
        g.fines[p] += g.s.fine
        g.held[p] = NOBODY
    elif kind == C_BUILD:
        do_build(g, c.arg)
    elif kind == C_SELL:
        do_sell_building(g, c.arg)
    elif kind == C_MORTGAGE:
        do_mortgage(g, c.arg)
    elif kind == C_REDEEM:
        do_redeem(g, c.arg)
    elif kind == C_TRADE:
        g.offer = g.proposal
        g.offer_phase = g.phase
        g.actor = g.offer.other
        g.phase = TRADE_ANSWER
    elif kind == C_ACCEPT:
        answer(g, True)
    elif kind == C_REJECT:
        answer(g, False)
    elif kind == C_END_GAME:
        start_final(g, END_TWO_HOUR)


# -- the bots (amteach.bots.strategies) --------------------------------------------------------

cdef inline Choice choice(int kind, int arg=-1) noexcept nogil:
    cdef Choice c
    c.kind = kind
    c.arg = arg
    return c


cdef const double* landings(G* g, Bot* bot) noexcept:
    """InvestorStrategy._landings: expected landings per round by the bot's opponents"""
    cdef const Static* s = g.s
    cdef int me = g.actor, key = 0, p, sp, role
    for p in range(g.n):
        if p != me and not g.bankrupt[p]:
            key |= 1 << p
    if bot.landings_key != key:
        bot.landings_key = key
        for sp in range(s.n_spaces):
            bot.landings[sp] = 0.0
        # opponent_landings: each opponent's role in seat order, added space by space
        for p in range(g.n):
            if (key >> p) & 1:
                role = s.roles[p]
                for sp in range(s.n_spaces):
                    bot.landings[sp] += s.role_landings[role][sp]
    return bot.landings


cdef int income_tax_choice(G* g, Bot* bot) noexcept:
    """Bot.income_tax"""
    cdef int flat, percent
    if bot.tax == TAX_FLAT:
        return C_TAX_FLAT
    if bot.tax == TAX_PERCENT:
        return C_TAX_PERCENT
    tax_options(g, g.actor, &flat, &percent)
    return C_TAX_PERCENT if percent < flat else C_TAX_FLAT


cdef bint family_wants(G* g, Bot* bot, int space) noexcept:
    """FamilyStrategy.wants"""
    cdef const Static* s = g.s
    cdef int me = g.actor, need = s.monopoly_streets, city, q, level
    if s.kind[space] == K_STREET and bot.fam[F_KEY_STREETS]:
        city = s.city[space]
        if s.roles[me] == MONOPOLIST and monopoly_count(g, me, city) + 1 >= need:
            return True
        if bot.fam[F_KEY_STREETS] == 2:
            for q in range(g.n):
                if (q != me and not g.bankrupt[q] and s.roles[q] == MONOPOLIST
                        and monopoly_count(g, q, city) + 1 >= need):
                    return True
    if s.kind[space] == K_STREET:
        level = bot.fam[F_STREETS]
    elif s.kind[space] == K_TRANSPORT:
        level = bot.fam[F_TRANSPORTS]
    else:
        level = bot.fam[F_UTILITIES]
    return level == 2 or (level == 1 and g.cash[me] - s.price[space] >= bot.fam[F_RESERVE])


cdef bint wants(G* g, Bot* bot, int space) noexcept:
    """Bot.wants, and InvestorStrategy.wants"""
    cdef const Static* s = g.s
    cdef int me = g.actor, i
    cdef int64_t spare = g.cash[me] - s.price[space]
    cdef double total, average
    cdef const double* weights
    if bot.kind == BOT_FAMILY:
        return family_wants(g, bot, space)
    if bot.kind != BOT_INVESTOR:
        return spare >= bot.reserve
    if spare < bot.reserve:
        return False
    if s.roles[me] == MONOPOLIST:
        if s.kind[space] == K_TRANSPORT:
            return True
        if (s.kind[space] == K_STREET
                and monopoly_count(g, me, s.city[space]) + 1 >= s.monopoly_streets):
            return True
    weights = landings(g, bot)
    total = 0.0
    for i in range(s.n_titles):
        total += weights[s.titles[i]]
    average = total / s.n_titles
    return weights[space] >= 0.9 * average or spare >= 3 * bot.reserve


cdef double title_value(G* g, int player, int space, bint gaining) noexcept:
    """Bot.title_value"""
    cdef const Static* s = g.s
    cdef double value = <double>s.price[space]
    cdef int have
    if g.mortgaged[space]:
        value -= g.redeem_values[space]
    if s.kind[space] == K_STREET and s.roles[player] == MONOPOLIST:
        have = monopoly_count(g, player, s.city[space]) - (0 if gaining else 1)
        if have + 1 == s.monopoly_streets:
            value += 2 * s.price[space]
    return value


cdef bint accepts(G* g, Bot* bot) noexcept:
    """Bot.accepts (CautiousStrategy with a margin of 1.0)"""
    cdef const Static* s = g.s
    cdef Trade* t = &g.offer
    cdef int me = t.other, proposer = g.current, i, sp
    cdef double gain = 0.0, loss = 0.0
    for i in range(t.n_give):
        gain += title_value(g, me, t.give[i], True)
    gain += t.pay
    for i in range(t.n_get):
        loss += title_value(g, me, t.get[i], False)
    for i in range(t.n_get):
        sp = t.get[i]
        if s.roles[proposer] == MONOPOLIST and s.kind[sp] == K_STREET:
            if monopoly_count(g, proposer, s.city[sp]) + 1 >= s.monopoly_streets:
                loss += 2 * s.price[sp]
    if bot.kind == BOT_FAMILY:  # FamilyStrategy.accepts
        # team play: FamilyStrategy.completes_teammates_city
        if (bot.fam[F_TEAM] == 1 and s.roles[me] == MONOPOLIST and s.roles[proposer] == MONOPOLIST
                and t.n_give == 0 and t.n_get == 1 and t.pay >= 0
                and s.kind[t.get[0]] == K_STREET
                and monopoly_count(g, proposer, s.city[t.get[0]]) + 1 >= s.monopoly_streets):
            return True
        return (10 * gain >= bot.fam[F_ACCEPT] * loss
                and g.cash[me] + (t.pay if t.pay < 0 else 0) >= 0)
    return gain >= (1 + bot.margin) * loss and g.cash[me] + (t.pay if t.pay < 0 else 0) >= 0


cdef Choice raise_money(G* g, Bot* bot) noexcept:
    """Bot.raise_money: sell the building that loses least rent, else mortgage (and
    FamilyStrategy.raise_money with raise_first=titles: the other way round)"""
    cdef int spaces[MAX_SPACES]
    cdef int count, i, best = -1, rent, best_rent = 0
    cdef int first = C_SELL, second = C_MORTGAGE, kind
    if bot.kind == BOT_FAMILY and bot.fam[F_RAISE_FIRST] == 1:
        first, second = C_MORTGAGE, C_SELL
    kind = first
    count = targets(g, first, spaces)
    if count == 0:
        count = targets(g, second, spaces)
        kind = second
    for i in range(count):
        rent = rent_for(g, spaces[i], g.s.settle_dice)
        if best < 0 or rent < best_rent:
            best, best_rent = spaces[i], rent
    return choice(kind, best)


cdef Choice final_adjust(G* g, Bot* bot) noexcept:
    """Bot.final_adjust (CautiousStrategy does nothing)"""
    cdef const Static* s = g.s
    cdef int spaces[MAX_SPACES]
    cdef int count, i, sp, before, after
    cdef double keep
    if bot.kind == BOT_CAUTIOUS or (bot.kind == BOT_FAMILY and not bot.fam[F_FINAL_ADJUST]):
        return choice(C_NONE)
    keep = s.keep_percent[s.roles[g.actor]] / 100.0
    count = targets(g, C_BUILD, spaces)
    for i in range(count):
        sp = spaces[i]
        before = rent_for(g, sp, s.settle_dice)
        after = rent_after_build(g, sp)
        if after - before > keep * s.house_cost[sp]:
            return choice(C_BUILD, sp)
    count = targets(g, C_REDEEM, spaces)
    for i in range(count):
        sp = spaces[i]
        if rent_if_redeemed(g, sp) > keep * g.redeem_values[sp]:
            return choice(C_REDEEM, sp)
    return choice(C_NONE)


cdef Choice propose_monopoly_trade(G* g, Bot* bot) noexcept:
    """Bot.propose_monopoly_trade: as a Monopolist with one street of a city, offer cash for
    a second one (2x the price, half the price more after each refusal, up to 4x)"""
    cdef const Static* s = g.s
    cdef int me = g.actor, need = s.monopoly_streets, i, j, sp, city, other, tries
    cdef int order[MAX_CITIES]
    cdef int counts[MAX_CITIES]
    cdef int n_order = 0
    cdef int64_t offer
    if s.roles[me] != MONOPOLIST or g.phase != POST_ROLL:
        return choice(C_NONE)
    memset(counts, 0, sizeof(counts))
    for i in range(s.n_streets):
        sp = s.streets[i]
        if g.owner[sp] == me and not g.mortgaged[sp]:
            city = s.city[sp]
            if counts[city] == 0:
                order[n_order] = city
                n_order += 1
            counts[city] += 1
    for i in range(n_order):
        city = order[i]
        if counts[city] != need - 1:
            continue
        for j in range(s.city_size[city]):
            sp = s.city_member[city][j]
            other = g.owner[sp]
            if other == NOBODY or other == me or g.houses[sp] or g.apartment[sp]:
                continue
            tries = bot.offers[sp]
            if tries > 4:
                continue
            bot.offers[sp] = tries + 1
            if bot.kind == BOT_FAMILY:  # FamilyStrategy.offer_amount
                offer = <int64_t>s.price[sp] * bot.fam[F_OFFER] * (4 + tries) // 32
            else:
                offer = <int64_t>(s.price[sp] * (2 + tries / 2.0))
            if g.cash[me] - offer < bot.reserve:
                continue
            g.proposal.other = other
            g.proposal.n_give = 0
            g.proposal.n_get = 1
            g.proposal.get[0] = sp
            g.proposal.pay = offer
            if trade_is_legal(g, &g.proposal):
                return choice(C_TRADE)
    return choice(C_NONE)


cdef Choice family_build(G* g, Bot* bot) noexcept:
    """FamilyStrategy.build: the next building, if the strategy wants one now"""
    cdef const Static* s = g.s
    cdef int spaces[MAX_SPACES]
    cdef int me = g.actor, count, i, sp, cost, full, gain, best = -1, built = 0
    cdef int64_t cash = g.cash[me]
    cdef double score, best_score = 0.0
    cdef const double* weights = NULL
    if bot.fam[F_HOUSES] == 0:
        return choice(C_NONE)
    if bot.built_round == g.round and bot.built_seat == me:
        built = bot.built_count
    if built >= bot.fam[F_BUILDS_PER_TURN]:
        return choice(C_NONE)
    full = s.max_houses[s.roles[me]]
    if bot.fam[F_BUILD_ORDER] == 1:
        weights = landings(g, bot)
    count = targets(g, C_BUILD, spaces)
    for i in range(count):
        sp = spaces[i]
        cost = s.house_cost[sp]
        if cash - cost < bot.fam[F_BUILD_RESERVE]:
            continue
        if g.houses[sp] >= full:
            if not bot.fam[F_APARTMENTS] or bot.fam[F_HOUSES] < full:
                continue
        elif g.houses[sp] >= bot.fam[F_HOUSES]:
            continue
        gain = rent_after_build(g, sp) - rent_for(g, sp, s.settle_dice)
        if weights == NULL:
            score = <double>gain
        else:
            score = gain * weights[sp] / <double>cost
        if score > best_score:
            best, best_score = sp, score
    if best < 0:
        return choice(C_NONE)
    bot.built_round = g.round
    bot.built_seat = me
    bot.built_count = built + 1
    return choice(C_BUILD, best)


cdef Choice family_blocking_trade(G* g, Bot* bot) noexcept:
    """FamilyStrategy.propose_blocking_trade: as a Competitor, offer cash for a street a
    Monopolist holds in a city it has not monopolized yet"""
    cdef const Static* s = g.s
    cdef int me = g.actor, i, sp, other, tries
    cdef int64_t offer
    if s.roles[me] == MONOPOLIST or g.phase != POST_ROLL:
        return choice(C_NONE)
    for i in range(s.n_streets):
        sp = s.streets[i]
        other = g.owner[sp]
        if (other == NOBODY or s.roles[other] != MONOPOLIST or g.houses[sp] or g.apartment[sp]
                or monopoly_count(g, other, s.city[sp]) >= s.monopoly_streets):
            continue
        tries = bot.offers[sp]
        if tries > 4:
            continue
        bot.offers[sp] = tries + 1
        offer = <int64_t>s.price[sp] * bot.fam[F_OFFER] * (4 + tries) // 32
        if g.cash[me] - offer < bot.reserve:
            continue
        g.proposal.other = other
        g.proposal.n_give = 0
        g.proposal.n_get = 1
        g.proposal.get[0] = sp
        g.proposal.pay = offer
        if trade_is_legal(g, &g.proposal):
            return choice(C_TRADE)
    return choice(C_NONE)


cdef Choice family_manage(G* g, Bot* bot) noexcept:
    """FamilyStrategy.manage: offer a trade, build, or redeem"""
    cdef int spaces[MAX_SPACES]
    cdef int count, i
    cdef int64_t cash
    cdef Choice c
    if bot.fam[F_OFFER]:
        c = propose_monopoly_trade(g, bot)
        if c.kind != C_NONE:
            return c
        c = family_blocking_trade(g, bot)
        if c.kind != C_NONE:
            return c
    c = family_build(g, bot)
    if c.kind != C_NONE:
        return c
    cash = g.cash[g.actor]
    count = targets(g, C_REDEEM, spaces)
    for i in range(count):
        if cash - g.redeem_values[spaces[i]] >= bot.fam[F_REDEEM_RESERVE]:
            return choice(C_REDEEM, spaces[i])
    return choice(C_NONE)


cdef Choice manage(G* g, Bot* bot) noexcept:
    """CautiousStrategy.manage, BuilderStrategy.manage, InvestorStrategy.manage"""
    cdef const Static* s = g.s
    cdef int spaces[MAX_SPACES]
    cdef int me = g.actor, count, i, sp, best = -1, gain_i, best_gain_i = 0
    cdef int64_t cash = g.cash[me]
    cdef double gain, best_return
    cdef const double* weights
    cdef Choice trade
    if bot.kind == BOT_FAMILY:
        return family_manage(g, bot)
    if bot.kind == BOT_CAUTIOUS:
        if cash < 3 * bot.reserve:
            return choice(C_NONE)
        if not (bot.built_round == g.round and bot.built_seat == me):
            count = targets(g, C_BUILD, spaces)
            for i in range(count):
                sp = spaces[i]
                if cash - s.house_cost[sp] >= 3 * bot.reserve:
                    if best < 0 or s.price[sp] > s.price[best]:
                        best = sp
            if best >= 0:
                bot.built_round = g.round
                bot.built_seat = me
                return choice(C_BUILD, best)
        count = targets(g, C_REDEEM, spaces)
        for i in range(count):
            if cash - g.redeem_values[spaces[i]] >= 2 * bot.reserve:
                return choice(C_REDEEM, spaces[i])
        return choice(C_NONE)
    if bot.kind == BOT_BUILDER:
        if cash < bot.reserve + 50:
            return choice(C_NONE)
        count = targets(g, C_BUILD, spaces)
        for i in range(count):
            sp = spaces[i]
            if cash - s.house_cost[sp] >= bot.reserve:
                gain_i = rent_after_build(g, sp) - rent_for(g, sp, s.settle_dice)
                if best < 0 or gain_i > best_gain_i:
                    best, best_gain_i = sp, gain_i
        return choice(C_BUILD, best) if best >= 0 else choice(C_NONE)
    # investor
    trade = propose_monopoly_trade(g, bot)
    if trade.kind != C_NONE:
        return trade
    if cash < bot.reserve + 50:
        return choice(C_NONE)
    count = targets(g, C_BUILD, spaces)
    if count:
        weights = landings(g, bot)
        best_return = 0.005  # InvestorStrategy.min_return
        for i in range(count):
            sp = spaces[i]
            if cash - s.house_cost[sp] < bot.reserve:
                continue
            gain = (<double>(rent_after_build(g, sp) - rent_for(g, sp, s.settle_dice))
                    * weights[sp] / <double>s.house_cost[sp])
            if gain > best_return:
                best, best_return = sp, gain
        if best >= 0:
            return choice(C_BUILD, best)
    if cash >= 3 * bot.reserve:
        count = targets(g, C_REDEEM, spaces)
        if count:
            return choice(C_REDEEM, spaces[0])
    return choice(C_NONE)


cdef Choice before_throw(G* g, Bot* bot) noexcept:
    """Bot.before_throw and its overrides"""
    cdef int me = g.actor
    if bot.kind == BOT_FAMILY:  # FamilyStrategy.before_throw
        if g.held[me] != NOBODY and g.cash[me] >= bot.fam[F_FINE_CASH] and can_pay_fine(g):
            return choice(C_PAY_FINE)
        return choice(C_NONE)
    if bot.kind == BOT_BUILDER:
        if g.held[me] != NOBODY and g.cash[me] >= g.s.fine + bot.reserve and can_pay_fine(g):
            return choice(C_PAY_FINE)
        return manage(g, bot)
    if g.held[me] != NOBODY and g.cash[me] >= 4 * bot.reserve and can_pay_fine(g):
        return choice(C_PAY_FINE)
    if bot.kind == BOT_INVESTOR:
        return choice(C_NONE)
    return manage(g, bot)


cdef int legal_choices(G* g, Choice* out) noexcept:
    """Game.legal_choices: every legal choice but trades, in the engine's order"""
    cdef const Static* s = g.s
    cdef int spaces[MAX_SPACES]
    cdef int count = 0, phase = g.phase, n, i, kind
    cdef int kinds[8]
    cdef int n_kinds = 0
    if phase == PRE_ROLL:
        out[count] = choice(C_ROLL)
        count += 1
        if can_pay_fine(g):
            out[count] = choice(C_PAY_FINE)
            count += 1
    elif phase == BUY:
        if g.cash[g.actor] >= s.price[g.pending_buy]:
            out[count] = choice(C_BUY)
            count += 1
        out[count] = choice(C_DECLINE)
        count += 1
    elif phase == INCOME_TAX:
        out[0] = choice(C_TAX_FLAT)
        out[1] = choice(C_TAX_PERCENT)
        return 2
    elif phase == TRADE_ANSWER:
        out[0] = choice(C_ACCEPT)
        out[1] = choice(C_REJECT)
        return 2
    if phase == PRE_ROLL or phase == POST_ROLL or phase == FINAL_ADJUST:
        kinds[0] = C_BUILD
        kinds[1] = C_SELL
        kinds[2] = C_MORTGAGE
        kinds[3] = C_REDEEM
        n_kinds = 4
    else:  # BUY, RAISE
        kinds[0] = C_SELL
        kinds[1] = C_MORTGAGE
        n_kinds = 2
    for i in range(n_kinds):
        kind = kinds[i]
        n = targets(g, kind, spaces)
        for j in range(n):
            out[count] = choice(kind, spaces[j])
            count += 1
    if phase == POST_ROLL or phase == FINAL_ADJUST:
        out[count] = choice(C_END_TURN)
        count += 1
    if (phase == PRE_ROLL or phase == POST_ROLL) and s.game_type == GAME_TWO_HOUR:
        out[count] = choice(C_END_GAME)
        count += 1
    return count


cdef bint random_trade(G* g, Bot* bot) noexcept:
    """RandomStrategy._random_trade, into g.proposal; False for no trade"""
    cdef const Static* s = g.s
    cdef int me = g.actor, other, n_others = 0, p, i, sp
    cdef int others[MAX_SEATS]
    cdef Trade* t = &g.proposal
    cdef int64_t low, high
    for p in range(g.n):
        if not g.bankrupt[p] and p != me:
            others[n_others] = p
            n_others += 1
    if n_others == 0:
        return False
    other = others[mt_randbelow(&bot.rng, n_others)]
    t.other = other
    t.n_give = 0
    t.n_get = 0
    for i in range(s.n_titles):
        sp = s.titles[i]
        if g.owner[sp] == me and not g.houses[sp] and not g.apartment[sp]:
            if mt_random(&bot.rng) < 0.3:
                t.give[t.n_give] = sp
                t.n_give += 1
    for i in range(s.n_titles):
        sp = s.titles[i]
        if g.owner[sp] == other and not g.houses[sp] and not g.apartment[sp]:
            if mt_random(&bot.rng) < 0.3:
                t.get[t.n_get] = sp
                t.n_get += 1
    if t.n_give == 0 and t.n_get == 0:
        return False
    low = -g.cash[other]
    high = g.cash[me]
    if mt_random(&bot.rng) < 0.7:
        t.pay = low + mt_randbelow(&bot.rng, high - low + 1)  # randint(low, high)
    else:
        t.pay = 0
    return True


cdef Choice random_choose(G* g, Bot* bot) noexcept:
    """RandomStrategy.choose (its tax behaviour is always set in a batch)"""
    cdef Choice legal[MAX_CHOICES]
    cdef int count
    if g.phase == INCOME_TAX:
        return choice(income_tax_choice(g, bot))
    if (g.phase == PRE_ROLL or g.phase == POST_ROLL) and trade_possible(g):
        if mt_random(&bot.rng) < 0.05:  # RandomStrategy's trade_rate
            if random_trade(g, bot) and trade_is_legal(g, &g.proposal):
                return choice(C_TRADE)
    count = legal_choices(g, legal)
    return legal[mt_randbelow(&bot.rng, count)]


cdef Choice choose(G* g, Bot* bot) noexcept:
    """Bot.choose: one decision for the pending player"""
    cdef Choice c
    cdef int phase = g.phase
    if bot.kind == BOT_RANDOM:
        return random_choose(g, bot)
    if phase == PRE_ROLL:
        c = before_throw(g, bot)
        return choice(C_ROLL) if c.kind == C_NONE else c
    if phase == POST_ROLL:
        c = manage(g, bot)
        return choice(C_END_TURN) if c.kind == C_NONE else c
    if phase == BUY:
        if g.cash[g.actor] >= g.s.price[g.pending_buy] and wants(g, bot, g.pending_buy):
            return choice(C_BUY)
        return choice(C_DECLINE)
    if phase == INCOME_TAX:
        return choice(income_tax_choice(g, bot))
    if phase == RAISE:
        return raise_money(g, bot)
    if phase == TRADE_ANSWER:
        return choice(C_ACCEPT if accepts(g, bot) else C_REJECT)
    c = final_adjust(g, bot)
    return choice(C_END_TURN) if c.kind == C_NONE else c


# -- the invariants (`amteach simulate --check-invariants`) ----------------------------------

cdef int invariant_violations(G* g) noexcept:
    """Game.invariant_violations, counted: what the property tests check, after a decision"""
    cdef const Static* s = g.s
    cdef int64_t money = g.treasury
    cdef int houses = g.supply_houses, apartments = g.supply_apartments, found = 0, p, i, sp
    for p in range(g.n):
        money += g.cash[p]
        if g.cash[p] < 0:
            found += 1
        if g.held[p] != NOBODY and g.position[p] != s.hold_space:
            found += 1
    if money != g.total_money:
        found += 1
    for i in range(s.n_streets):
        sp = s.streets[i]
        houses += g.houses[sp]
        apartments += g.apartment[sp]
        if (g.houses[sp] or g.apartment[sp]) and g.owner[sp] != NOBODY:
            if s.roles[g.owner[sp]] == MONOPOLIST and not is_monopolized(g, g.owner[sp], s.city[sp]):
                found += 1
    if houses != s.supply_houses or apartments != s.supply_apartments:
        found += 1
    return found


# -- one game, and a chunk of games -----------------------------------------------------------

cdef void snapshot(G* g, Rows* rounds, int64_t index, int round_number) noexcept:
    cdef int64_t titles[MAX_SEATS]
    cdef int64_t buildings[MAX_SEATS]
    cdef int p
    wealth_parts(g, titles, buildings)
    for p in range(g.n):
        push(&rounds.columns[0], index)
        push(&rounds.columns[1], round_number)
        push(&rounds.columns[2], p)
        push(&rounds.columns[3], g.cash[p])
        push(&rounds.columns[4], titles[p])
        push(&rounds.columns[5], buildings[p])


cdef int RESERVES[5]
# CautiousStrategy, BuilderStrategy, InvestorStrategy, random; a family bot's is its own
RESERVES[:] = [400, 75, 150, 0, 0]


cdef void play_one(const Static* s, G* g, int64_t index, uint64_t seed, Rows* games,
                   Rows* players, Rows* rounds, Rows* taxes, int64_t* violations) noexcept:
    """Game(setup) then play_bot_game(...) and _rows(...) for one game"""
    cdef int p, sp, role, i, j, tmp, last_round
    cdef int64_t decisions = 0, turns = 0
    cdef int64_t titles[MAX_SEATS]
    cdef int64_t buildings[MAX_SEATS]
    cdef Bot* bot
    cdef int n_titles
    memset(g, 0, sizeof(G))
    g.s = s
    g.n = s.n
    g.game_index = index
    g.taxes = taxes
    for p in range(g.n):
        g.cash[p] = s.starting_cash
        g.held[p] = NOBODY
        g.total_money += s.starting_cash
    for sp in range(s.n_spaces):
        g.owner[sp] = NOBODY
        g.mortgage_values[sp] = percent_of(s.price[sp], s.mortgage_percent)
        g.redeem_values[sp] = percent_of(s.price[sp], s.redeem_percent)
    g.supply_houses = s.supply_houses
    g.supply_apartments = s.supply_apartments
    mt_seed(&g.rng, seed)
    for role in range(2):  # each deck in data order, shuffled as random.shuffle does
        for i in range(s.deck_size[role]):
            g.deck[role][i] = i
        for i in range(s.deck_size[role] - 1, 0, -1):
            j = <int>mt_randbelow(&g.rng, i + 1)
            tmp = g.deck[role][i]
            g.deck[role][i] = g.deck[role][j]
            g.deck[role][j] = tmp
    g.round = 1
    g.last_dice = s.settle_dice
    g.pending_buy = NOBODY
    g.winner = NOBODY
    for p in range(g.n):
        g.bankrupt_round[p] = -1
        bot = &g.bots[p]
        bot.kind = s.bot[p]
        bot.tax = s.tax[p]
        bot.reserve = RESERVES[bot.kind]
        bot.margin = 1.0 if bot.kind == BOT_CAUTIOUS else 0.2
        bot.built_round = -1
        if bot.kind == BOT_FAMILY:
            memcpy(bot.fam, s.family[p], sizeof(bot.fam))
            bot.reserve = bot.fam[F_RESERVE]
        bot.landings_key = -1
        if bot.kind == BOT_RANDOM:
            mt_seed(&bot.rng, seed + p)
    begin_turn(g, 0)
    if s.record_rounds:
        snapshot(g, rounds, index, 0)
    last_round = g.round
    while g.phase != OVER:
        apply(g, choose(g, &g.bots[g.actor]))
        decisions += 1
        if s.check_invariants:
            violations[0] += invariant_violations(g)
        if g.round != last_round:
            if s.record_rounds:
                snapshot(g, rounds, index, last_round)
            last_round = g.round
    if s.record_rounds:
        snapshot(g, rounds, index, g.round)
    for p in range(g.n):
        turns += g.turns_taken[p]
    push(&games.columns[0], index)
    push(&games.columns[1], <int64_t>seed)
    push(&games.columns[2], g.winner)
    push(&games.columns[3], g.round)
    push(&games.columns[4], g.end_reason)
    push(&games.columns[5], decisions)
    push(&games.columns[6], turns)
    wealth_parts(g, titles, buildings)
    for p in range(g.n):
        n_titles = 0
        for i in range(s.n_titles):
            if g.owner[s.titles[i]] == p:
                n_titles += 1
        push(&players.columns[0], index)
        push(&players.columns[1], p)
        push(&players.columns[2], g.turns_taken[p])
        push(&players.columns[3], g.cash[p])
        push(&players.columns[4], g.cash[p] + titles[p] + buildings[p])
        push(&players.columns[5], rule25_wealth(g, p))
        push(&players.columns[6], g.rent_paid[p])
        push(&players.columns[7], g.rent_received[p])
        push(&players.columns[8], g.income_tax[p] + g.property_tax[p])
        push(&players.columns[9], g.income_tax[p])
        push(&players.columns[10], g.property_tax[p])
        push(&players.columns[11], g.fines[p])
        push(&players.columns[12], n_titles)
        push(&players.columns[13], g.bankrupt_round[p])


cdef class Batch:
    """A batch's fixed part in C form: the board, the rules, the seats and the investors'
    landing odds. Built once per chunk by `amteach.sim.play.compiled_chunk`."""

    cdef Static s

    def __init__(self, board, rules, seats, game_type, role_landings,
                 bint record_rounds, bint check_invariants):
        cdef Static* s = &self.s
        memset(s, 0, sizeof(Static))
        if len(board.spaces) > MAX_SPACES or len(seats) > MAX_SEATS:
            raise ValueError("the compiled core plays at most 40 spaces and 6 seats")
        s.n_spaces = len(board.spaces)
        cities = list(board.cities)
        if len(cities) > MAX_CITIES:
            raise ValueError("the compiled core plays at most 16 cities")
        for space in board.spaces:
            i = space.index
            s.kind[i] = KINDS.index(space.kind)
            s.city[i] = cities.index(space.city) if space.kind == "street" else -1
            s.price[i] = space.price
            s.house_cost[i] = space.house_cost
            if space.kind == "street" and (len(space.competitor_rents) != RENT_LADDER
                                           or len(space.monopolist_rents) != RENT_LADDER):
                raise ValueError(f"the compiled core needs {RENT_LADDER} rents per role on street {i}")
            for k, rent in enumerate(space.competitor_rents):
                s.crent[i][k] = rent
            for k, rent in enumerate(space.monopolist_rents):
                s.mrent[i][k] = rent
        s.n_cities = len(cities)
        for c, city in enumerate(cities):
            s.city_size[c] = len(board.cities[city])
            for k, member in enumerate(board.cities[city]):
                s.city_member[c][k] = member
        s.n_titles = len(board.titles)
        for k, sp in enumerate(board.titles):
            s.titles[k] = sp
        s.n_streets = len(board.streets)
        for k, sp in enumerate(board.streets):
            s.streets[k] = sp
        s.n_transports = len(board.transports)
        for k, sp in enumerate(board.transports):
            s.transports[k] = sp
        s.n_utilities = len(board.utilities)
        for k, sp in enumerate(board.utilities):
            s.utilities[k] = sp
        s.income_tax_space = board.income_tax_space
        s.property_tax_space = board.property_tax_space
        s.hold_space = board.hold_space
        s.go_to_hold_space = board.go_to_hold_space
        s.foundation_space = board.foundation_space
        for role in range(2):
            deck = board.deck(role)
            if len(deck) > MAX_CARDS or not deck:
                raise ValueError("the compiled core plays decks of 1 to 32 cards")
            s.deck_size[role] = len(deck)
            for k, card in enumerate(deck):
                effect = CARD_EFFECTS.index(card.effect)
                s.cards[role][k].effect = (
                    E_GO_TO_HOLD if card.effect in ("go_to_price_war", "go_to_prison")
                    else (E_ROLL_FOR if card.effect == "roll_for" else effect)
                )
                s.cards[role][k].amount = card.amount
                s.cards[role][k].target = card.target
        s.starting_cash = rules.starting_cash
        s.start_payment = rules.start_payment
        s.income_tax_flat = rules.income_tax_flat
        for role in range(2):
            for k, rate in enumerate(rules.income_tax_percents(role)):
                s.tax_rates[role][k] = rate
            s.max_houses[role] = rules.max_houses(role)
            s.keep_percent[role] = rules.settlement_keep_percent(role)
        s.property_tax = rules.property_tax
        s.foundation_fee = rules.foundation_monopolist_fee
        for face, amount in rules.foundation_competitor_prizes:
            s.prizes[face] = amount
        s.fine = rules.fine
        s.held_forced = rules.held_turns_before_forced_fine
        s.unlimited_supply = rules.unlimited_supply
        s.supply_houses = rules.supply_houses
        s.supply_apartments = rules.supply_apartments
        s.monopoly_streets = rules.monopoly_streets
        s.fare_competitor = rules.transport_fare_competitor
        s.n_fares = len(rules.transport_fares_monopolist)
        for k, fare in enumerate(rules.transport_fares_monopolist):
            s.fares_monopolist[k] = fare
        s.utility_competitor = rules.utility_multiplier_competitor
        s.n_utility_multipliers = len(rules.utility_multipliers_monopolist)
        for k, m in enumerate(rules.utility_multipliers_monopolist):
            s.utility_monopolist[k] = m
        s.mortgage_percent = rules.mortgage_percent
        s.redeem_percent = rules.redeem_percent
        s.sellback_percent = rules.building_sellback_percent
        s.settle_dice = rules.settlement_utility_dice
        s.round_cap = -1 if rules.round_cap is None else rules.round_cap
        s.game_type = GAME_TYPES.index(game_type)
        s.n = len(seats)
        for p, (role, bot, tax, knobs) in enumerate(seats):
            s.roles[p] = role
            s.bot[p] = BOTS.index(bot)
            s.tax[p] = TAX_BEHAVIOURS.index(tax)
            if s.bot[p] == BOT_FAMILY:
                if len(knobs) != FAMILY_SIZE:
                    raise ValueError(f"a family bot has {FAMILY_SIZE} knobs, not {len(knobs)}")
                for k in range(FAMILY_SIZE):
                    s.family[p][k] = knobs[k]
        for role in range(2):
            for k in range(s.n_spaces):
                s.role_landings[role][k] = role_landings[role][k]
        s.record_rounds = record_rounds
        s.check_invariants = check_invariants

    def play(self, int64_t start, seeds, columns):
        """Play games start, start+1, ... with these seeds: (tables of arrays, violations).
        `columns` names the columns of the games, players, rounds and taxes tables."""
        cdef Rows games, players, rounds, taxes
        cdef G* g = <G*>malloc(sizeof(G))
        cdef int64_t violations = 0
        cdef Py_ssize_t k
        if g == NULL:
            raise MemoryError()
        rows_init(&games, 7)
        rows_init(&players, 14)
        rows_init(&rounds, 6)
        rows_init(&taxes, 6)
        try:
            for k in range(len(seeds)):
                play_one(&self.s, g, start + k, <uint64_t>seeds[k], &games, &players, &rounds,
                         &taxes, &violations)
                if g.debt_overflow:
                    raise RuntimeError(
                        f"game {start + k}: more than {MAX_DEBTS} debts at once, which the "
                        "compiled core cannot hold; play this batch on the pure-Python core"
                    )
            game_columns, player_columns, round_columns, tax_columns = columns
            tables = {
                "games": rows_to_arrays(&games, tuple(game_columns)),
                "players": rows_to_arrays(&players, tuple(player_columns)),
                "rounds": rows_to_arrays(&rounds, tuple(round_columns)),
                "taxes": rows_to_arrays(&taxes, tuple(tax_columns)),
            }
            return tables, int(violations)
        finally:
            rows_free(&games)
            rows_free(&players)
            rows_free(&rounds)
            rows_free(&taxes)
            free(g)
