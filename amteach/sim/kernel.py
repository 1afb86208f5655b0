# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
# cython: cdivision=True, nonecheck=False, infer_types=True, auto_pickle=False
"""The core of a batch: the engine and the frame recording of `amteach.sim.play`, written over
small state objects so that a bot game runs without creating a Python object per decision.
The bots (the four named bots and the family) decide by `amteach/bots/core.py`, written once
for both cores, which reads the game's state (`G`, a `core.State`) itself through a small
`bots.Context` (the landing weights, the bot's random stream, the legal choices).

This module is Cython's pure-Python mode: `kernel.pxd` beside it types the state as C arrays
inside cdef classes and the functions as C functions, and `setup.py` compiles the two into
the extension that batches use. Uncompiled, it is plain Python (with the `cython` package
for its names) and gives the same frames: tests/test_core.py compares the two.

The rules themselves are not here: the transitions (landing, cards, debts, the end of the
game, the turn flow, the player's actions and their legality) and the rules' arithmetic are
`amteach/engine/core.py`'s, written once for `Game` and for this kernel, and so is the game's
state with the steps of the transitions on it (`core.State`: the walks over a player's titles,
the debt queue, the dice); `G` below is a `core.State` with a batch's things added. What is
still written here again: the frame recording of `amteach.sim.play`.
`tests/test_core.py` plays the same seeds through both and requires every column of every
frame to be identical.

Chance is CPython's own: `random.Random` (Mersenne Twister seeded from an int, `random()`,
`shuffle`, `choice`, `randint`) is reproduced below, draw for draw, so a seed gives the same
game on either core. Every 32-bit step is masked, so uncompiled Python draws the same numbers.

Every division below has operands that are never negative (money and counts), so C division
(`cdivision`) gives the same result as Python's floor division.
"""

# ruff: noqa: SIM108, SIM109
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
# amteach/bots/core.py, which the Python bots run too: each bot reads the game's state itself
# through a `bots.Context` bound to it (`bot_context` below).
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
MAX_DEBTS = core.MAX_DEBTS
MAX_CHOICES = 4 * 40
MAX_PHASES = 8

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


# -- chance: CPython's random.Random, drawn in the rules core (core.MT) -------------------
random_stream = core.random_stream


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


@cython.cclass
class G(core.State):
    """One game of a batch: the game's state (`core.State`, with its steps) and what only a
    batch needs: the table's `Static`, the bots, the taxes frame's rows."""

    def __init__(self):
        super().__init__()
        self.bots = [Bot() for _ in range(MAX_SEATS)]


# -- growable columns -------------------------------------------------------------------------


@cython.cclass
class Rows:
    """A table's rows as int32 columns (the frames' type: every count and sum fits), in blocks
    of ROWS_PER_BLOCK rows: a full block is kept as it is and a new one begun, so rows are
    copied once, at the end (into arrays of their own size: a view would keep a whole block)."""

    def __init__(self, width: int):
        self.width = width
        self.size = 0
        self.capacity = ROWS_PER_BLOCK
        self.full = []
        self.block = np.empty((width, ROWS_PER_BLOCK), dtype=np.int32)
        self.data = self.block

    def arrays(self, names: tuple) -> dict:
        out = {}
        for c in range(self.width):
            out[names[c]] = np.concatenate(
                [block[c] for block in self.full] + [self.block[c, : self.size]]
            )
        return out


def add_row(rows):
    """A new row's index in `rows.data` (its values are written column by column)."""
    if rows.size == rows.capacity:
        rows.full.append(rows.block)
        rows.block = np.empty((rows.width, rows.capacity), dtype=np.int32)
        rows.data = rows.block
        rows.size = 0
    rows.size += 1
    return rows.size - 1


# -- applying a choice (Game's handlers) -------------------------------------------------------


def tax_row(g, percent_chosen):
    """The taxes frame: one row a decision (the amounts the rules core works out)"""
    taxes: Rows = g.taxes
    r: cython.Py_ssize_t = add_row(taxes)
    taxes.data[0, r] = g.game_index
    taxes.data[1, r] = g.round
    taxes.data[2, r] = g.current
    taxes.data[3, r] = g.s.income_tax_flat
    taxes.data[4, r] = core.income_tax_percent(g, g.s, g.current)
    taxes.data[5, r] = 1 if percent_chosen else 0


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
        tax_row(g, kind == C_TAX_PERCENT)
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
# is the choice with no space (the rules core's `choice`). Every decision is the bots' core's,
# which reads `G` itself.


def choice(kind, arg):
    return kind + CHOICE_BASE * (arg + 1)


def choice_kind(c):
    return c % CHOICE_BASE


def choice_arg(c):
    return c // CHOICE_BASE - 1


@cython.cclass
class Bot(bots.BotState):
    """One seat's bot (the bots' core's `BotState`) and its `Context`: the game it reads (the
    batch's `G`, a `core.State`) and its random numbers."""

    def __init__(self):
        super().__init__()
        self.ctx = None


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
        if bot.ctx is None or bot.ctx.s is not g or bot.ctx.t is not s:
            bot.ctx = bot_context(g, s)
        if bot.kind == BOT_RANDOM:
            core.mt_seed(bot.ctx.mt, seed + p)


def bot_context(g, s):
    """A bot's `Context` on the batch's game: the landing weights are the batch's."""
    ctx: bots.Context = bots.Context()
    role: cython.int
    k: cython.int
    ctx.bind(g)
    for role in range(2):
        for k in range(MAX_SPACES):
            ctx.landing[role][k] = s.role_landings[role][k]
    ctx.has_landings = True
    return ctx


def choose(g, bot):
    """Bot.choose: one decision for the pending player, by the bots' core"""
    return bots.choose(bot.ctx, bot)


# -- the invariants (`amteach simulate --check-invariants`) ----------------------------------


def invariant_violations(g):
    """Game.invariant_violations, counted (the rules core's `invariants`)"""
    return core.invariants(g, None)


# -- one game, and a chunk of games -----------------------------------------------------------


def snapshot(g, rounds, index, round_number):
    p: cython.int
    r: cython.Py_ssize_t
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
    g.s = s
    g.reset(s, s.seat_roles, s.game_type, seed)
    g.game_index = index
    g.taxes = taxes
    reset_bots(g, s, seed)


def play_one(g, index, games, players, rounds):
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
    # the games table's row (its seed column is the seeds played, added by `Batch.play`)
    r = add_row(games)
    games.data[0, r] = index
    games.data[1, r] = g.winner
    games.data[2, r] = g.round
    games.data[3, r] = g.end_reason
    games.data[4, r] = decisions
    games.data[5, r] = turns
    # what the final accounting changed (sim.accounting): the leader and the cash when it began;
    # a game without it has no leader before it (NOBODY) and its final cash as the cash before
    accounted = g.end_reason == END_TWO_HOUR or g.end_reason == END_ROUND_CAP
    games.data[6, r] = g.leader_at_final if accounted else NOBODY
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
        players.data[5, r] = g.rule25_wealth(p)
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
        s.seat_roles = [role for role, _, _, _ in seats]
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
        self.s = s

    def play(self, start: int, seeds, columns) -> tuple:
        """Play games start, start+1, ... with these seeds: (tables of arrays, violations).
        `columns` names the columns of the games, players, rounds and taxes tables."""
        games = Rows(7)
        players = Rows(15)
        rounds = Rows(6)
        taxes = Rows(6)
        g = G()
        violations = 0
        for k in range(len(seeds)):
            reset_game(g, self.s, start + k, seeds[k], taxes)
            violations += play_one(g, start + k, games, players, rounds)
            if g.debt_overflow:
                raise RuntimeError(
                    f"game {start + k}: more than {MAX_DEBTS} debts at once, which the "
                    "compiled core cannot hold; play this batch on the pure-Python core"
                )
        game_columns, player_columns, round_columns, tax_columns = columns
        # one row a game, in the order played: the seed column is the seeds (64-bit)
        game_table = games.arrays(tuple(c for c in game_columns if c != "seed"))
        game_table["seed"] = np.asarray(seeds, dtype=np.int64)
        tables = {
            "games": game_table,
            "players": players.arrays(tuple(player_columns)),
            "rounds": rounds.arrays(tuple(round_columns)),
            "taxes": taxes.arrays(tuple(tax_columns)),
        }
        return tables, int(violations)
