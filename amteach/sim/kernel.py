# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
# cython: cdivision=True, nonecheck=False, infer_types=True, auto_pickle=False
"""The core of a batch: the engine and the frame recording of `amteach.sim.play`, written over
small state objects so that a bot game runs without creating a Python object per decision.
The bots (the four named bots and the family) decide by `amteach/bots/core.py`, written once
for both cores, which reads the game here through `KernelView`.

This module is Cython's pure-Python mode: `kernel.pxd` beside it types the state as C arrays
inside cdef classes and the functions as C functions, and `setup.py` compiles the two into
the extension that batches use. Uncompiled, it is plain Python (with the `cython` package
for its names) and gives the same frames: tests/test_core.py compares the two.

The rules themselves are not here: the transitions (landing, cards, debts, the end of the
game, the turn flow, the player's actions and their legality) and the rules' arithmetic are
`amteach/engine/core.py`'s, written once for `Game` and for this kernel; `G` below implements
their primitive steps (`core.Steps`) on C arrays. What is still here and in `Game` alike: the
state itself, the walks over a player's titles, the debt queue, the dice and the frame
recording of `amteach.sim.play`.
`tests/test_core.py` plays the same seeds through both and requires every column of every
frame to be identical.

Chance is CPython's own: `random.Random` (Mersenne Twister seeded from an int, `random()`,
`shuffle`, `choice`, `randint`) is reproduced below, draw for draw, so a seed gives the same
game on either core. Every 32-bit step is masked, so uncompiled Python draws the same numbers.

Every division below has operands that are never negative (money and counts), so C division
(`cdivision`) gives the same result as Python's floor division.
"""

# ruff: noqa: SIM102, SIM108, SIM109
# (the functions keep the shape of the engine's code they follow, branch for branch, and
# compare C ints with `==` chains, which Cython compiles to plain C)

import cython
import numpy as np

# The board, the rules and the rules' arithmetic (rent, buildings, taxes, what selling
# raises) are written once, in amteach/engine/core.py, which Game calls too: compiled, the
# kernel cimports it (kernel.pxd) and calls its C functions; uncompiled, it runs on core.py as
# plain Python.
if cython.compiled:
    from amteach.engine import core
else:
    from amteach.engine.builds import source_core

    core = source_core()
# The bots' decisions (the named bots and the family) are written once, in
# amteach/bots/core.py, which the Python bots run too: the kernel implements its `View` on a
# game's arrays (`KernelView` below) and asks it for each decision.
if cython.compiled:
    from amteach.bots import core as bots
else:
    from amteach.bots.builds import source_decisions

    bots = source_decisions()

# compiled (the extension) or plain Python (this file run as it is)
COMPILED = cython.compiled
if cython.compiled:
    # the SHA-256 of kernel.py and kernel.pxd when compiled (setup.py passes it in), so that
    # amteach.sim.core never uses a build older than the sources beside it
    SOURCE_SHA256 = AMTEACH_KERNEL_SHA256.decode("ascii")  # noqa: F821 (kernel.pxd)
else:
    SOURCE_SHA256 = None

# -- sizes ----------------------------------------------------------------------------------
MAX_SEATS = 6
MAX_SPACES = 40
MAX_CARDS = 32
MAX_DEBTS = 16
MAX_CHOICES = 4 * 40
MAX_PHASES = 8
MT_N = 624
MT_M = 397
# the Mersenne Twister's 32-bit constants (C globals when compiled: a literal above 2**31 would
# be a Python int there)
MASK32 = 0xFFFFFFFF
UPPER_MASK = 0x80000000
LOWER_MASK = 0x7FFFFFFF
MATRIX_A = 0x9908B0DF
TEMPER_B = 0x9D2C5680
TEMPER_C = 0xEFC60000

# -- codes (the Python engine's strings, as small ints) --------------------------------------
NOBODY = core.NOBODY  # also TREASURY and NOT_HELD: the engine's three names for -1
COMPETITOR = core.COMPETITOR
MONOPOLIST = core.MONOPOLIST

# the space kinds: the rules core's codes (each the position of its name in the engine's
# vocabulary, worked out there once); card effects are the core's alone (core.play_card)
K_CORNER = core.K_CORNER
K_STREET = core.K_STREET
K_CARD = core.K_CARD
K_TAX = core.K_TAX
K_TRANSPORT = core.K_TRANSPORT
K_UTILITY = core.K_UTILITY
# the phases and the kinds of choice are the bots' core's codes (from the engine's names)
PRE_ROLL = bots.CODES["PRE_ROLL"]
BUY = bots.CODES["BUY_PHASE"]
INCOME_TAX = bots.CODES["INCOME_TAX"]
RAISE = bots.CODES["RAISE"]
POST_ROLL = bots.CODES["POST_ROLL"]
TRADE_ANSWER = bots.CODES["TRADE_ANSWER"]
FINAL_ADJUST = bots.CODES["FINAL_ADJUST"]
OVER = bots.CODES["OVER"]
C_NONE = bots.CODES["C_NONE"]
C_ROLL = bots.CODES["C_ROLL"]
C_BUY = bots.CODES["C_BUY"]
C_DECLINE = bots.CODES["C_DECLINE"]
C_BUILD = bots.CODES["C_BUILD"]
C_SELL = bots.CODES["C_SELL"]
C_MORTGAGE = bots.CODES["C_MORTGAGE"]
C_REDEEM = bots.CODES["C_REDEEM"]
C_TAX_FLAT = bots.CODES["C_TAX_FLAT"]
C_TAX_PERCENT = bots.CODES["C_TAX_PERCENT"]
C_PAY_FINE = bots.CODES["C_PAY_FINE"]
C_TRADE = bots.CODES["C_TRADE"]
C_ACCEPT = bots.CODES["C_ACCEPT"]
C_REJECT = bots.CODES["C_REJECT"]
C_END_TURN = bots.CODES["C_END_TURN"]
C_END_GAME = bots.CODES["C_END_GAME"]
CHOICE_BASE = bots.CODES["CHOICE_BASE"]
# what a debt is for: the rules core's payment codes (the frames count fines and taxes), and
# rent, which has a code of its own after them
D_FINE = core.P_FINE
D_INCOME_TAX = core.P_INCOME_TAX
D_PROPERTY_TAX = core.P_PROPERTY_TAX
D_OTHER = core.P_CARD
D_RENT = len(core.PAYMENTS)
THEN_NONE = core.THEN_NONE
THEN_AFTER_MOVE = core.THEN_AFTER_MOVE
THEN_RELEASED = core.THEN_RELEASED
# how a pawn moves: the rules core's codes
BY_CARD = core.BY_CARD
# how a game ends: the rules core's codes
END_GAME_A = core.END_GAME_A
END_GAME_B = core.END_GAME_B
END_TWO_HOUR = core.END_TWO_HOUR
END_ROUND_CAP = core.END_ROUND_CAP
GAME_A, GAME_B, GAME_TWO_HOUR = range(3)
# the bots, their tax behaviours and the family's knobs: the bots' core's codes
BOT_RANDOM = bots.CODES["BOT_RANDOM"]
BOT_FAMILY = bots.CODES["BOT_FAMILY"]
FAMILY_SIZE = bots.CODES["FAMILY_SIZE"]
TAX_PERCENT = bots.CODES["TAX_PERCENT"]

# The strings each code above stands for, in code order. tests/test_core_rules.py requires
# them to equal the engine's own vocabulary (the bots, the tax behaviours, the game types, the
# family's knobs) in the same order, and the sizes below to match the codes.
BOTS = bots.BOTS
TAX_BEHAVIOURS = bots.TAX_BEHAVIOURS
GAME_TYPES = ("A", "B", "two-hour")
ENUM_SIZES = {
    "bots": BOT_FAMILY + 1,
    "tax_behaviours": TAX_PERCENT + 1,
    "game_types": GAME_TWO_HOUR + 1,
    "family_knobs": FAMILY_SIZE,
    "max_debts": MAX_DEBTS,
}
if (len(BOTS), len(TAX_BEHAVIOURS), len(GAME_TYPES)) != (
    ENUM_SIZES["bots"],
    ENUM_SIZES["tax_behaviours"],
    ENUM_SIZES["game_types"],
):
    raise ImportError("amteach.sim.kernel: a vocabulary tuple and its code differ in size")
ROWS_PER_BLOCK = 16384


def reals(size: int) -> list:
    """A list of zeros for a C array of doubles."""
    return [0.0] * size


def zeros(*shape: int) -> list:
    """A list (of lists) of zeros: an array's first value, compiled or not."""
    if len(shape) == 1:
        return [0] * shape[0]
    return [zeros(*shape[1:]) for _ in range(shape[0])]


# -- CPython's random.Random ----------------------------------------------------------------


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


def mt_next(mt):
    y: cython.uint
    kk: cython.int
    if mt.index >= MT_N:
        for kk in range(MT_N - MT_M):
            y = (mt.state[kk] & UPPER_MASK) | (mt.state[kk + 1] & LOWER_MASK)
            mt.state[kk] = mt.state[kk + MT_M] ^ (y >> 1) ^ (MATRIX_A if (y & 1) else 0)
        for kk in range(MT_N - MT_M, MT_N - 1):
            y = (mt.state[kk] & UPPER_MASK) | (mt.state[kk + 1] & LOWER_MASK)
            mt.state[kk] = mt.state[kk + (MT_M - MT_N)] ^ (y >> 1) ^ (MATRIX_A if (y & 1) else 0)
        y = (mt.state[MT_N - 1] & UPPER_MASK) | (mt.state[0] & LOWER_MASK)
        mt.state[MT_N - 1] = mt.state[MT_M - 1] ^ (y >> 1) ^ (MATRIX_A if (y & 1) else 0)
        mt.index = 0
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


# -- the board and the rules, fixed for a batch ----------------------------------------------


@cython.cclass
class Static(core.Tables):
    """The board and the rules (`core.Tables`, filled by `core.fill_tables`) and the table,
    fixed for a batch (filled by `Batch`)."""

    def __init__(self):
        super().__init__()
        if not cython.compiled:  # compiled, the C arrays start zeroed
            self.roles = zeros(MAX_SEATS)
            self.bot = zeros(MAX_SEATS)
            self.tax = zeros(MAX_SEATS)
            self.family = zeros(MAX_SEATS, FAMILY_SIZE)
            self.role_landings = [reals(MAX_SPACES), reals(MAX_SPACES)]
            self.allowed = zeros(MAX_PHASES, CHOICE_BASE)
            self.phase_kinds = zeros(MAX_PHASES, CHOICE_BASE)
            self.n_phase_kinds = zeros(MAX_PHASES)


@cython.cclass
class Trade:
    """A trade offered: titles given and asked for, and cash (positive: paid to `other`)."""

    def __init__(self):
        if not cython.compiled:  # compiled, the C arrays start zeroed
            self.give = zeros(MAX_SPACES)
            self.get = zeros(MAX_SPACES)


@cython.cclass
class G(core.Steps):
    """One game's state (Game's attributes), reused game after game, and the steps of the
    transitions (core.Steps) on it."""

    def __init__(self):
        if not cython.compiled:  # compiled, the C arrays start zeroed
            self.cash = zeros(MAX_SEATS)
            self.position = zeros(MAX_SEATS)
            self.held = zeros(MAX_SEATS)
            self.bankrupt = zeros(MAX_SEATS)
            self.turns_taken = zeros(MAX_SEATS)
            self.final_queue = zeros(MAX_SEATS)
            self.rent_paid = zeros(MAX_SEATS)
            self.rent_received = zeros(MAX_SEATS)
            self.income_tax = zeros(MAX_SEATS)
            self.property_tax = zeros(MAX_SEATS)
            self.fines = zeros(MAX_SEATS)
            self.bankrupt_round = zeros(MAX_SEATS)
            self.cash_at_final = zeros(MAX_SEATS)
            self.wealth_titles = zeros(MAX_SEATS)
            self.wealth_buildings = zeros(MAX_SEATS)
            self.owner = zeros(MAX_SPACES)
            self.houses = zeros(MAX_SPACES)
            self.apartment = zeros(MAX_SPACES)
            self.mortgaged = zeros(MAX_SPACES)
            self.mortgage_values = zeros(MAX_SPACES)
            self.redeem_values = zeros(MAX_SPACES)
            self.spaces = zeros(MAX_SPACES)
            self.doomed = zeros(MAX_SPACES)
            self.legal = zeros(MAX_CHOICES)
            self.debt_debtor = zeros(MAX_DEBTS)
            self.debt_creditor = zeros(MAX_DEBTS)
            self.debt_amount = zeros(MAX_DEBTS)
            self.debt_kind = zeros(MAX_DEBTS)
            self.debt_releases = zeros(MAX_DEBTS)
            self.deck = zeros(2, MAX_CARDS)
            self.deck_head = zeros(2)
        self.rng = MT()
        self.offer = Trade()
        self.proposal = Trade()
        self.bots = [Bot() for _ in range(MAX_SEATS)]

    # the player's actions (core.Steps)
    def houses_on(self, space):
        return self.houses[space]

    def has_apartment(self, space):
        return 1 if self.apartment[space] else 0

    def is_mortgaged(self, space):
        return 1 if self.mortgaged[space] else 0

    def streets_held(self, p, city):
        return monopoly_count(self, p, city)

    def houses_left(self):
        return self.supply_houses

    def apartments_left(self):
        return self.supply_apartments

    def seat_held(self, q):
        return 1 if self.held[q] != NOBODY else 0

    def raiser(self):
        if self.phase == RAISE:
            return self.actor
        return NOBODY

    def offered(self):
        return self.pending_buy

    def trade_partner(self, standing):
        t: Trade = self.offer if standing else self.proposal
        return t.other

    def trade_titles(self, standing, side):
        t: Trade = self.offer if standing else self.proposal
        return t.n_get if side else t.n_give

    def trade_title(self, standing, side, i):
        t: Trade = self.offer if standing else self.proposal
        return t.get[i] if side else t.give[i]

    def trade_pay(self, standing):
        t: Trade = self.offer if standing else self.proposal
        return t.pay

    def buys(self, p, space, price):
        self.cash[p] -= price
        self.treasury += price
        self.owner[space] = p
        self.pending_buy = NOBODY
        return 0

    def declines(self, p, space):
        self.pending_buy = NOBODY
        return 0

    def builds(self, p, space, houses, apartment, cost):
        self.supply_houses += self.houses[space] - houses
        self.supply_apartments += (1 if self.apartment[space] else 0) - apartment
        self.houses[space] = houses
        self.apartment[space] = apartment != 0
        self.cash[p] -= cost
        self.treasury += cost
        return 0

    def sells_building(self, p, space, houses, apartment, refund):
        self.supply_houses += self.houses[space] - houses
        self.supply_apartments += (1 if self.apartment[space] else 0) - apartment
        self.houses[space] = houses
        self.apartment[space] = apartment != 0
        self.cash[p] += refund
        self.treasury -= refund
        return 0

    def mortgages(self, p, space, amount):
        self.mortgaged[space] = True
        self.cash[p] += amount
        self.treasury -= amount
        return 0

    def redeems(self, p, space, amount):
        self.mortgaged[space] = False
        self.cash[p] -= amount
        self.treasury += amount
        return 0

    def tax_chosen(self, p, flat, percent, percent_chosen):
        # the taxes frame: one row a decision
        taxes: Rows = self.taxes
        r: cython.Py_ssize_t = add_row(taxes)
        taxes.data[0, r] = self.game_index
        taxes.data[1, r] = self.round
        taxes.data[2, r] = p
        taxes.data[3, r] = flat
        taxes.data[4, r] = percent
        taxes.data[5, r] = 1 if percent_chosen else 0
        return 0

    def pays_treasury(self, p, amount, reason, space):
        self.cash[p] -= amount
        self.treasury += amount
        if reason == D_FINE:
            self.fines[p] += amount
        return 0

    def leaves_hold(self, p, by_doubles):
        self.held[p] = NOBODY
        return 0

    def trade_proposed(self, p):
        # the proposal weighed becomes the offer (the old offer's object is the next proposal)
        offer: Trade = self.proposal
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
        self.actor = self.current
        self.phase = self.offer_phase
        return 0

    def transfer_title(self, space, to):
        self.owner[space] = to
        return 0

    def pays(self, payer, payee, amount, reason):
        self.cash[payer] -= amount
        self.cash[payee] += amount
        return 0

    # the landings, the debts, the end of the game and the turn (core.Steps)
    def seats(self):
        return self.n

    def seat_role(self, q):
        return self.s.roles[q]

    def seat_out(self, q):
        return 1 if self.bankrupt[q] else 0

    def title_owner(self, space):
        return self.owner[space]

    def treasury_pays(self, p, amount, reason, space):
        self.cash[p] += amount
        self.treasury -= amount
        return 0

    def owes(self, debtor, creditor, amount, reason, space):
        owe(self, debtor, creditor, amount, reason, False)
        return 0

    def owes_rent(self, p, owner, space):
        amount: cython.int = rent_for(self, space, self.last_dice)
        if amount:
            owe(self, p, owner, amount, D_RENT, False)
            return 1
        return 0

    def settle_after_move(self):
        settle(self, THEN_AFTER_MOVE)
        return 0

    def offer_title(self, p, space):
        self.pending_buy = space
        self.phase = BUY
        return 0

    def ask_income_tax(self, p):
        self.phase = INCOME_TAX
        return 0

    def card_moves(self, p, target):
        return core.move_to(self, self.s, p, target, BY_CARD)

    def send_to_hold(self, p, by_card):
        self.position[p] = self.s.hold_space
        self.held[p] = 0
        self.extra_pending = False
        return 0

    def throw(self, count, purpose):
        # one die: as Game._throw's int(random() * 6) + 1
        total: cython.int = 0
        _k: cython.int
        for _k in range(count):
            total += cython.cast(cython.int, mt_random(self.rng) * 6) + 1
        return total

    def next_card(self, p, role):
        index: cython.int = self.deck[role][self.deck_head[role]]
        self.deck_head[role] = (self.deck_head[role] + 1) % self.s.deck_size[role]
        return index

    def after_move(self):
        return core.after_move(self, self.s, self.current)

    def is_game_b(self):
        return 1 if self.s.game_type == GAME_B else 0

    def is_two_hour(self):
        return 1 if self.s.game_type == GAME_TWO_HOUR else 0

    def cash_of(self, p):
        return self.cash[p]

    def game_b_score(self, p):
        return rule25_wealth(self, p)

    def rent_at(self, space, dice):
        return rent_for(self, space, dice)

    def begin_final(self, reason):
        p: cython.int
        self.final_reason = reason
        for p in range(self.n):
            self.cash_at_final[p] = self.cash[p]
        self.leader_at_final = core.most_cash(self)
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

    def final_cause(self):
        return self.final_reason

    def hands_over(self, p, amount, keep_percent):
        self.cash[p] -= amount
        self.treasury += amount
        return 0

    def treasurer_pays(self, owner, space, amount):
        self.cash[owner] += amount
        self.treasury -= amount
        return 0

    def finish(self, winner, reason):
        finish(self, winner, reason)
        return 0

    def first_debtor(self):
        if self.debt_count:
            return self.debt_debtor[self.debt_head]
        return NOBODY

    def first_creditor(self):
        return self.debt_creditor[self.debt_head]

    def first_debt(self):
        return self.debt_amount[self.debt_head]

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
        elif kind == D_FINE:
            self.fines[d] += amount
        elif kind == D_INCOME_TAX:
            self.income_tax[d] += amount
        elif kind == D_PROPERTY_TAX:
            self.property_tax[d] += amount
        if self.debt_releases[at]:
            self.held[d] = NOBODY
        return 0

    def drop_first_debt(self):
        self.debt_head = (self.debt_head + 1) % MAX_DEBTS
        self.debt_count -= 1
        return 0

    def liquidation_of(self, p):
        return liquidation_value(self, p)

    def must_raise(self, d):
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

    def is_over(self):
        return 1 if self.phase == OVER else 0

    def return_buildings(self, d, space):
        s: Static = self.s
        refund: cython.int = core.buildings_refund(
            s, space, s.roles[d], self.houses[space], self.apartment[space]
        )
        self.supply_houses += self.houses[space]
        self.supply_apartments += 1 if self.apartment[space] else 0
        self.houses[space] = 0
        self.apartment[space] = False
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
        return 0

    def hand_over_title(self, space, creditor):
        self.owner[space] = creditor
        if creditor == NOBODY:
            self.mortgaged[space] = False
        return 0

    def declare_bankrupt(self, d, creditor, debt):
        self.bankrupt[d] = True
        self.held[d] = NOBODY
        self.bankrupt_round[d] = self.round
        return 0

    def current_seat(self):
        return self.current

    def next_turn(self):
        return core.next_turn(self, self.s, self.current)

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
        return self.held[p]

    def held_turns(self, p):
        return self.held[p]

    def owes_fine(self, p, amount):
        owe(self, p, NOBODY, amount, D_FINE, True)
        return 0

    def throw_pair(self, purpose):
        first: cython.int = cython.cast(cython.int, mt_random(self.rng) * 6) + 1
        second: cython.int = cython.cast(cython.int, mt_random(self.rng) * 6) + 1
        return core.pair_of(first, second)

    def stays_held(self, p):
        self.held[p] += 1
        return 0

    def released_by_doubles(self, p):
        self.held[p] = NOBODY
        return 0

    def is_extra_throw(self):
        return 1 if self.is_extra else 0

    def note_throw(self, total, extra):
        self.last_dice = total
        self.extra_pending = extra != 0
        return 0

    def position_of(self, p):
        return self.position[p]

    def place(self, p, end, by):
        start: cython.int = self.position[p]
        self.position[p] = end
        return start

    def extra_due(self):
        return 1 if self.extra_pending else 0

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

    def round_number(self):
        return self.round

    def new_round(self):
        self.round += 1
        return 0


# -- growable columns -------------------------------------------------------------------------


@cython.cclass
class Rows:
    """A table's rows as int64 columns, in blocks of ROWS_PER_BLOCK rows: a full block is kept
    as it is and a new one begun, so rows are copied once, at the end."""

    def __init__(self, width: int):
        self.width = width
        self.size = 0
        self.capacity = ROWS_PER_BLOCK
        self.full = []
        self.block = np.empty((width, ROWS_PER_BLOCK), dtype=np.int64)
        self.data = self.block

    def arrays(self, names: tuple) -> dict:
        out = {}
        for c in range(self.width):
            array = np.concatenate([block[c] for block in self.full] + [self.block[c, : self.size]])
            name = names[c]
            out[name] = array if name == "seed" else array.astype(np.int32)
        return out


def add_row(rows):
    """A new row's index in `rows.data` (its values are written column by column)."""
    if rows.size == rows.capacity:
        rows.full.append(rows.block)
        rows.block = np.empty((rows.width, rows.capacity), dtype=np.int64)
        rows.data = rows.block
        rows.size = 0
    rows.size += 1
    return rows.size - 1


# -- reading the engine (Game's queries) ------------------------------------------------------


def monopoly_count(g, player, city):
    """Game.monopoly_count (the step streets_held)"""
    s: Static = g.s
    count: cython.int = 0
    i: cython.int
    sp: cython.int
    for i in range(s.city_size[city]):
        sp = s.city_member[city][i]
        if g.owner[sp] == player and not g.mortgaged[sp]:
            count += 1
    return count


def group_count(g, space):
    """Game._group_count: the titles of the space's group its owner has unmortgaged, this one
    counted as unmortgaged"""
    s: Static = g.s
    owner: cython.int = g.owner[space]
    count: cython.int = 0
    city: cython.int
    i: cython.int
    sp: cython.int
    kind: cython.int = s.kind[space]
    if kind == K_STREET:
        city = s.city[space]
        for i in range(s.city_size[city]):
            sp = s.city_member[city][i]
            if g.owner[sp] == owner and (sp == space or not g.mortgaged[sp]):
                count += 1
    elif kind == K_TRANSPORT:
        for i in range(s.n_transports):
            sp = s.transports[i]
            if g.owner[sp] == owner and (sp == space or not g.mortgaged[sp]):
                count += 1
    else:
        for i in range(s.n_utilities):
            sp = s.utilities[i]
            if g.owner[sp] == owner and (sp == space or not g.mortgaged[sp]):
                count += 1
    return count


def rent_if(g, space, mortgaged, dice):
    """Game.rent_if(space, mortgaged=..., dice_total=dice)[0]: core.rent on this game's state"""
    owner: cython.int = g.owner[space]
    if owner == NOBODY:
        return 0
    return core.rent(
        g.s,
        space,
        g.s.roles[owner],
        g.held[owner] != NOBODY,
        mortgaged,
        g.houses[space],
        g.apartment[space],
        group_count(g, space),
        dice,
    )


def rent_for(g, space, dice):
    """Game.rent_for(space, dice)[0]"""
    return rent_if(g, space, g.mortgaged[space], dice)


def rent_after_build(g, space):
    """Game.rent_after_build"""
    owner: cython.int = g.owner[space]
    return core.rent_after_build(
        g.s,
        space,
        g.s.roles[owner],
        g.held[owner] != NOBODY,
        g.mortgaged[space],
        g.houses[space],
        group_count(g, space),
    )


def buildings_paid(g, space):
    """Game.buildings_paid"""
    return core.buildings_paid(
        g.s, space, g.s.roles[g.owner[space]], g.houses[space], g.apartment[space]
    )


def liquidation_value(g, player):
    """Game.liquidation_value"""
    s: Static = g.s
    total: cython.longlong = g.cash[player]
    i: cython.int
    sp: cython.int
    for i in range(s.n_titles):
        sp = s.titles[i]
        if g.owner[sp] == player:
            total += core.title_liquidation(
                s,
                sp,
                s.roles[player],
                g.houses[sp],
                g.apartment[sp],
                g.mortgaged[sp],
                g.mortgage_values[sp],
            )
    return total


def rule25_wealth(g, player):
    """Game.rule25_wealth"""
    s: Static = g.s
    total: cython.longlong = g.cash[player]
    i: cython.int
    sp: cython.int
    for i in range(s.n_titles):
        sp = s.titles[i]
        if g.owner[sp] == player:
            total += rent_for(g, sp, s.settlement_utility_dice)
    return total


def wealth_parts(g):
    """Game.wealth_parts into g.wealth_titles and g.wealth_buildings"""
    s: Static = g.s
    i: cython.int
    sp: cython.int
    p: cython.int
    for p in range(g.n):
        g.wealth_titles[p] = 0
        g.wealth_buildings[p] = 0
    for i in range(s.n_titles):
        sp = s.titles[i]
        p = g.owner[sp]
        if p != NOBODY:
            g.wealth_titles[p] += core.title_worth(s, sp, g.mortgaged[sp], g.redeem_values[sp])
            if g.houses[sp] or g.apartment[sp]:
                g.wealth_buildings[p] += buildings_paid(g, sp)


def phase_allows(g, phase, kind):
    """kind in core.PHASE_KINDS[phase] (the table `Batch` makes of it)"""
    return g.s.allowed[phase][kind]


def targets(g, kind, out):
    """Game.targets: the titles on which build, sell, mortgage or redeem is legal now, by the
    rules core's legality"""
    s: Static = g.s
    actor: cython.int = g.actor
    count: cython.int = 0
    i: cython.int
    sp: cython.int
    if not phase_allows(g, g.phase, kind):
        return 0
    if kind == C_BUILD or kind == C_SELL:
        for i in range(s.n_streets):
            sp = s.streets[i]
            if g.owner[sp] != actor:
                continue
            if kind == C_BUILD:
                if core.why_not_build(g, s, actor, sp) != 0:
                    continue
            elif core.why_not_sell_building(g, s, actor, sp) != 0:
                continue
            out[count] = sp
            count += 1
    else:
        for i in range(s.n_titles):
            sp = s.titles[i]
            if g.owner[sp] != actor:
                continue
            if kind == C_MORTGAGE:
                if core.why_not_mortgage(g, s, actor, sp) != 0:
                    continue
            elif core.why_not_redeem(g, s, actor, sp) != 0:
                continue
            out[count] = sp
            count += 1
    return count


def can_pay_fine(g):
    """is_legal(pay_fine): the phase, then the rules core's legality"""
    return phase_allows(g, g.phase, C_PAY_FINE) and core.why_not_pay_fine(g, g.s, g.actor) == 0


def trade_is_legal(g):
    """Game.is_legal(Choice("trade", g.proposal)): the phase, then the rules core's legality"""
    return phase_allows(g, g.phase, C_TRADE) and core.why_not_trade(g, g.s, g.actor) == 0


# -- applying a choice (Game's handlers) -------------------------------------------------------


def owe(g, debtor, creditor, amount, kind, releases):
    # bounds checking is off: a full ring must never overwrite a debt still owed
    at: cython.int
    if g.debt_count >= MAX_DEBTS:
        g.debt_overflow = True
        return
    at = (g.debt_head + g.debt_count) % MAX_DEBTS
    g.debt_debtor[at] = debtor
    g.debt_creditor[at] = creditor
    g.debt_amount[at] = amount
    g.debt_kind[at] = kind
    g.debt_releases[at] = releases
    g.debt_count += 1


def finish(g, winner, reason):
    """Game._finish"""
    g.winner = winner
    g.end_reason = reason
    g.phase = OVER
    g.debt_count = 0


def settle(g, then):
    """Pay the queued debts, then `then`: core.settle, written once"""
    core.settle(g, g.s, then)


def next_turn(g):
    """The next player's turn: core.next_turn, written once"""
    core.next_turn(g, g.s, g.current)


def after_move(g):
    """The rest of the turn once the move is over: core.after_move, written once"""
    core.after_move(g, g.s, g.current)


def apply(g, c):
    """Game.apply for a choice a bot made (bots make only legal choices)"""
    kind: cython.int = choice_kind(c)
    if kind == C_ROLL:
        core.roll(g, g.s, g.current)
    elif kind == C_END_TURN:
        core.end_turn(g, g.s, g.current)
    elif kind == C_BUY:
        core.buy_title(g, g.s, g.current)
    elif kind == C_DECLINE:
        core.decline_title(g, g.s, g.current)
    elif kind == C_TAX_FLAT or kind == C_TAX_PERCENT:
        core.income_tax(g, g.s, g.current, kind == C_TAX_PERCENT)
    elif kind == C_PAY_FINE:
        core.pay_fine(g, g.s, g.current)
    elif kind == C_BUILD:
        core.build(g, g.s, g.actor, choice_arg(c))
    elif kind == C_SELL:
        core.sell_building(g, g.s, g.actor, choice_arg(c))
    elif kind == C_MORTGAGE:
        core.mortgage(g, g.s, g.actor, choice_arg(c))
    elif kind == C_REDEEM:
        core.redeem(g, g.s, g.actor, choice_arg(c))
    elif kind == C_TRADE:
        core.propose_trade(g, g.s, g.actor)
    elif kind == C_ACCEPT:
        core.answer_trade(g, g.s, 1)
    elif kind == C_REJECT:
        core.answer_trade(g, g.s, 0)
    elif kind == C_END_GAME:
        core.start_final(g, g.s, END_TWO_HOUR)


# -- the bots (amteach/bots/core.py) ----------------------------------------------------------
# A choice is one int: its kind (C_...) plus CHOICE_BASE times (its space + 1), so a kind alone
# is the choice with no space (amteach.bots.core.choice). Every decision is the bots' core's;
# the kernel answers what it reads through `KernelView`.


def choice(kind, arg):
    return kind + CHOICE_BASE * (arg + 1)


def choice_kind(c):
    return c % CHOICE_BASE


def choice_arg(c):
    return c // CHOICE_BASE - 1


@cython.cclass
class Bot(bots.BotState):
    """One seat's bot (the bots' core's `BotState`), its random numbers, and its view of the
    game it plays."""

    def __init__(self):
        super().__init__()
        self.rng = MT()
        self.view = None


@cython.cclass
class KernelView(bots.View):
    """A game's arrays (`G`) as the bots' core's `View`: each answer is a read of the arrays
    or a call of the kernel's own function for it."""

    def __init__(self, g: G, rng: MT):
        super().__init__()
        self.g = g
        self.t = g.s
        self.rng = rng

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def actor(self) -> cython.int:
        return self.g.actor

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def current(self) -> cython.int:
        return self.g.current

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def phase(self) -> cython.int:
        return self.g.phase

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def round(self) -> cython.int:
        return self.g.round

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def seats(self) -> cython.int:
        return self.g.n

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def role(self, p: cython.int) -> cython.int:
        return self.g.s.roles[p]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def bankrupt(self, p: cython.int) -> cython.int:
        return self.g.bankrupt[p]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def held(self, p: cython.int) -> cython.int:
        return self.g.held[p] != NOBODY

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def cash(self, p: cython.int) -> cython.longlong:
        return self.g.cash[p]

    @cython.cfunc
    @cython.exceptval(-2, check=True)
    def owner(self, space: cython.int) -> cython.int:
        return self.g.owner[space]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def houses(self, space: cython.int) -> cython.int:
        return self.g.houses[space]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def apartment(self, space: cython.int) -> cython.int:
        return self.g.apartment[space]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def mortgaged(self, space: cython.int) -> cython.int:
        return self.g.mortgaged[space]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def redeem_value(self, space: cython.int) -> cython.int:
        return self.g.redeem_values[space]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def monopoly_count(self, p: cython.int, city: cython.int) -> cython.int:
        return monopoly_count(self.g, p, city)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def rent(self, space: cython.int) -> cython.int:
        return rent_for(self.g, space, self.g.s.settlement_utility_dice)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def rent_after_build(self, space: cython.int) -> cython.int:
        return rent_after_build(self.g, space)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def rent_redeemed(self, space: cython.int) -> cython.int:
        return rent_if(self.g, space, False, self.g.s.settlement_utility_dice)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def percent_tax_is_cheaper(self, p: cython.int) -> cython.int:
        return core.income_tax_percent(self.g, self.g.s, p) < self.g.s.income_tax_flat

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def targets(self, kind: cython.int) -> cython.int:
        return targets(self.g, kind, self.spaces)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def can_pay_fine(self) -> cython.int:
        return can_pay_fine(self.g)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def can_buy(self) -> cython.int:
        return core.why_not_buy(self.g, self.g.s, self.g.actor) == 0

    @cython.cfunc
    @cython.exceptval(-2, check=True)
    def pending_buy(self) -> cython.int:
        return self.g.pending_buy

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def landing_weight(self, role: cython.int, space: cython.int) -> cython.double:
        return self.g.s.role_landings[role][space]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_other(self) -> cython.int:
        return self.g.offer.other

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_gives(self) -> cython.int:
        return self.g.offer.n_give

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_give(self, i: cython.int) -> cython.int:
        return self.g.offer.give[i]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_gets(self) -> cython.int:
        return self.g.offer.n_get

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_get(self, i: cython.int) -> cython.int:
        return self.g.offer.get[i]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def offer_pay(self) -> cython.longlong:
        return self.g.offer.pay

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def propose(self, other: cython.int) -> cython.int:
        t: Trade = self.g.proposal
        t.other = other
        t.n_give = 0
        t.n_get = 0
        t.pay = 0
        return 0

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def propose_give(self, space: cython.int) -> cython.int:
        t: Trade = self.g.proposal
        t.give[t.n_give] = space
        t.n_give += 1
        return 0

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def propose_get(self, space: cython.int) -> cython.int:
        t: Trade = self.g.proposal
        t.get[t.n_get] = space
        t.n_get += 1
        return 0

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def proposal_gives(self) -> cython.int:
        return self.g.proposal.n_give

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def proposal_gets(self) -> cython.int:
        return self.g.proposal.n_get

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def propose_pay(self, pay: cython.longlong) -> cython.int:
        self.g.proposal.pay = pay
        return 0

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def proposal_is_legal(self) -> cython.int:
        return trade_is_legal(self.g)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def trade_possible(self) -> cython.int:
        return phase_allows(self.g, self.g.phase, C_TRADE) and core.trade_possible(
            self.g, self.g.s, self.g.actor
        )

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def legal_choices(self) -> cython.int:
        return legal_choices(self.g, self.g.legal)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def legal_choice(self, i: cython.int) -> cython.int:
        return self.g.legal[i]

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def random(self) -> cython.double:
        return mt_random(self.rng)

    @cython.cfunc
    @cython.exceptval(-1, check=True)
    def randbelow(self, n: cython.longlong) -> cython.longlong:
        return mt_randbelow(self.rng, n)


def reset_bots(g, s, seed):
    """Each seat's bot fresh for a game (the Python bots are made anew for each game)"""
    p: cython.int
    i: cython.int
    bot: Bot
    for p in range(g.n):
        bot = g.bots[p]
        for i in range(FAMILY_SIZE):
            bot.fam[i] = s.family[p][i] if s.bot[p] == BOT_FAMILY else 0
        bots.reset_bot(bot, s.bot[p], s.tax[p])
        if bot.view is None or bot.view.g is not g:
            bot.view = KernelView(g, bot.rng)
        if bot.kind == BOT_RANDOM:
            mt_seed(bot.rng, seed + p)


def choose(g, bot):
    """Bot.choose: one decision for the pending player, by the bots' core"""
    return bots.choose(bot.view, bot)


def legal_choices(g, out):
    """Game.legal_choices: every legal choice but trades, in the engine's order (the phase's
    kinds in `core.PHASE_KINDS`' order, each asked of the rules core's legality)"""
    s: Static = g.s
    count: cython.int = 0
    phase: cython.int = g.phase
    n: cython.int
    i: cython.int
    j: cython.int
    kind: cython.int
    legal: cython.bint
    for i in range(s.n_phase_kinds[phase]):
        kind = s.phase_kinds[phase][i]
        if kind == C_BUILD or kind == C_SELL or kind == C_MORTGAGE or kind == C_REDEEM:
            n = targets(g, kind, g.spaces)
            for j in range(n):
                out[count] = choice(kind, g.spaces[j])
                count += 1
            continue
        if kind == C_PAY_FINE:
            legal = core.why_not_pay_fine(g, s, g.actor) == 0
        elif kind == C_BUY:
            legal = core.why_not_buy(g, s, g.actor) == 0
        elif kind == C_END_GAME:
            legal = core.why_not_end_game(g, s) == 0
        else:  # a throw, declining, an income tax option, ending a turn, answering a trade
            legal = True
        if legal:
            out[count] = kind
            count += 1
    return count


# -- the invariants (`amteach simulate --check-invariants`) ----------------------------------


def invariant_violations(g):
    """Game.invariant_violations, counted: what the property tests check, after a decision"""
    s: Static = g.s
    money: cython.longlong = g.treasury
    houses: cython.int = g.supply_houses
    apartments: cython.int = g.supply_apartments
    found: cython.int = 0
    p: cython.int
    i: cython.int
    sp: cython.int
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
        apartments += 1 if g.apartment[sp] else 0
        if (g.houses[sp] or g.apartment[sp]) and g.owner[sp] != NOBODY:
            if s.roles[g.owner[sp]] == MONOPOLIST and not core.is_monopolized(
                g, s, g.owner[sp], s.city[sp]
            ):
                found += 1
    if houses != s.supply_houses or apartments != s.supply_apartments:
        found += 1
    return found


# -- one game, and a chunk of games -----------------------------------------------------------


def snapshot(g, rounds, index, round_number):
    p: cython.int
    r: cython.Py_ssize_t
    wealth_parts(g)
    for p in range(g.n):
        r = add_row(rounds)
        rounds.data[0, r] = index
        rounds.data[1, r] = round_number
        rounds.data[2, r] = p
        rounds.data[3, r] = g.cash[p]
        rounds.data[4, r] = g.wealth_titles[p]
        rounds.data[5, r] = g.wealth_buildings[p]


def reset_game(g, s, index, seed, taxes):
    """Game(setup): the state at the start of game `index` (what play_one then plays)"""
    p: cython.int
    sp: cython.int
    role: cython.int
    i: cython.int
    j: cython.int
    tmp: cython.int
    g.s = s
    g.n = s.n
    g.game_index = index
    g.taxes = taxes
    g.treasury = 0
    g.total_money = 0
    for p in range(MAX_SEATS):
        g.cash[p] = 0
        g.position[p] = 0
        g.held[p] = NOBODY
        g.bankrupt[p] = False
        g.turns_taken[p] = 0
        g.rent_paid[p] = 0
        g.rent_received[p] = 0
        g.income_tax[p] = 0
        g.property_tax[p] = 0
        g.fines[p] = 0
        g.bankrupt_round[p] = -1
        g.cash_at_final[p] = 0
    for p in range(g.n):
        g.cash[p] = s.starting_cash
        g.total_money += s.starting_cash
    for sp in range(MAX_SPACES):
        g.owner[sp] = NOBODY
        g.houses[sp] = 0
        g.apartment[sp] = False
        g.mortgaged[sp] = False
        g.mortgage_values[sp] = core.mortgage_value(s, sp)
        g.redeem_values[sp] = core.redeem_value(s, sp)
    g.supply_houses = s.supply_houses
    g.supply_apartments = s.supply_apartments
    mt_seed(g.rng, seed)
    for role in range(2):  # each deck in data order, shuffled as random.shuffle does
        for i in range(s.deck_size[role]):
            g.deck[role][i] = i
        for i in range(s.deck_size[role] - 1, 0, -1):
            j = mt_randbelow(g.rng, i + 1)
            tmp = g.deck[role][i]
            g.deck[role][i] = g.deck[role][j]
            g.deck[role][j] = tmp
        g.deck_head[role] = 0
    g.debt_head = 0
    g.debt_count = 0
    g.debt_overflow = False
    g.then = THEN_NONE
    g.round = 1
    g.current = 0
    g.actor = 0
    g.phase = PRE_ROLL
    g.is_extra = False
    g.extra_pending = False
    g.last_dice = s.settlement_utility_dice
    g.pending_buy = NOBODY
    g.offer_phase = PRE_ROLL
    g.final_head = 0
    g.final_count = 0
    g.final_reason = 0
    g.leader_at_final = NOBODY
    g.winner = NOBODY
    g.end_reason = 0
    reset_bots(g, s, seed)


def play_one(g, index, seed, games, players, rounds):
    """Game(setup) then play_bot_game(...) and _rows(...) for one game: its count of
    invariant violations (0 unless the batch checks them)"""
    s: Static = g.s
    p: cython.int
    i: cython.int
    last_round: cython.int
    n_titles: cython.int
    accounted: cython.bint
    decisions: cython.longlong = 0
    turns: cython.longlong = 0
    violations: cython.longlong = 0
    r: cython.Py_ssize_t
    core.begin_turn(g, s, 0)
    if s.record_rounds:
        snapshot(g, rounds, index, 0)
    last_round = g.round
    while g.phase != OVER:
        apply(g, choose(g, g.bots[g.actor]))
        decisions += 1
        if s.check_invariants:
            violations += invariant_violations(g)
        if g.round != last_round:
            if s.record_rounds:
                snapshot(g, rounds, index, last_round)
            last_round = g.round
    if s.record_rounds:
        snapshot(g, rounds, index, g.round)
    for p in range(g.n):
        turns += g.turns_taken[p]
    r = add_row(games)
    games.data[0, r] = index
    games.data[1, r] = cython.cast(cython.longlong, seed)
    games.data[2, r] = g.winner
    games.data[3, r] = g.round
    games.data[4, r] = g.end_reason
    games.data[5, r] = decisions
    games.data[6, r] = turns
    # what the final accounting changed (sim.accounting): the leader and the cash when it began;
    # a game without it has no leader before it (NOBODY) and its final cash as the cash before
    accounted = g.end_reason == END_TWO_HOUR or g.end_reason == END_ROUND_CAP
    games.data[7, r] = g.leader_at_final if accounted else NOBODY
    wealth_parts(g)
    for p in range(g.n):
        n_titles = 0
        for i in range(s.n_titles):
            if g.owner[s.titles[i]] == p:
                n_titles += 1
        r = add_row(players)
        players.data[0, r] = index
        players.data[1, r] = p
        players.data[2, r] = g.turns_taken[p]
        players.data[3, r] = g.cash[p]
        players.data[4, r] = g.cash[p] + g.wealth_titles[p] + g.wealth_buildings[p]
        players.data[5, r] = rule25_wealth(g, p)
        players.data[6, r] = g.rent_paid[p]
        players.data[7, r] = g.rent_received[p]
        players.data[8, r] = g.income_tax[p] + g.property_tax[p]
        players.data[9, r] = g.income_tax[p]
        players.data[10, r] = g.property_tax[p]
        players.data[11, r] = g.fines[p]
        players.data[12, r] = n_titles
        players.data[13, r] = g.bankrupt_round[p]
        players.data[14, r] = g.cash_at_final[p] if accounted else g.cash[p]
    return violations


@cython.cclass
class Batch:
    """A batch's fixed part in C form: the board, the rules, the seats and the investors'
    landing odds. Built once per chunk by `amteach.sim.play.compiled_chunk`."""

    def __init__(
        self, board, rules, seats, game_type, role_landings, record_rounds, check_invariants
    ):
        s = Static()
        if len(seats) > MAX_SEATS:
            raise ValueError(f"the compiled core plays at most {MAX_SEATS} seats")
        core.fill_tables(s, board, rules)
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
        # which kinds of choice each phase allows: the rules core's PHASE_KINDS, in codes
        if len(bots.PHASES) > MAX_PHASES:
            raise ValueError(f"the compiled core knows at most {MAX_PHASES} phases")
        # and, for the random bot's list, in the engine's order (an income tax is both options;
        # a trade, open-ended, is left out, as Game.legal_choices leaves it out)
        for ph, phase in enumerate(bots.PHASES):
            for c, name in enumerate(bots.CHOICE_CODES):
                s.allowed[ph][c] = name.split(":")[0] in core.PHASE_KINDS[phase]
            listed = [
                c
                for kind in core.PHASE_KINDS[phase]
                if kind != "trade"
                for c, name in enumerate(bots.CHOICE_CODES)
                if name.split(":")[0] == kind
            ]
            for i, c in enumerate(listed):
                s.phase_kinds[ph][i] = c
            s.n_phase_kinds[ph] = len(listed)
        s.record_rounds = record_rounds
        s.check_invariants = check_invariants
        self.s = s

    def play(self, start: int, seeds, columns) -> tuple:
        """Play games start, start+1, ... with these seeds: (tables of arrays, violations).
        `columns` names the columns of the games, players, rounds and taxes tables."""
        games = Rows(8)
        players = Rows(15)
        rounds = Rows(6)
        taxes = Rows(6)
        g = G()
        violations = 0
        for k in range(len(seeds)):
            reset_game(g, self.s, start + k, seeds[k], taxes)
            violations += play_one(g, start + k, seeds[k], games, players, rounds)
            if g.debt_overflow:
                raise RuntimeError(
                    f"game {start + k}: more than {MAX_DEBTS} debts at once, which the "
                    "compiled core cannot hold; play this batch on the pure-Python core"
                )
        game_columns, player_columns, round_columns, tax_columns = columns
        tables = {
            "games": games.arrays(tuple(game_columns)),
            "players": players.arrays(tuple(player_columns)),
            "rounds": rounds.arrays(tuple(round_columns)),
            "taxes": taxes.arrays(tuple(tax_columns)),
        }
        return tables, int(violations)
