# cython: language_level=3
# The C types of amteach/sim/kernel.py (Cython's pure-Python mode): compiled, a game's state is
# the rules core's `core.State` (C arrays, amteach/engine/core.pxd), which `G` extends with a
# batch's things only, and the functions are C functions; uncompiled, kernel.py runs as plain
# Python with lists, and gives the same frames.
#
# Array sizes are written as numbers here (a .pxd cannot use kernel.py's names): 6 seats
# (MAX_SEATS), 40 spaces (MAX_SPACES), 18 knobs (FAMILY_SIZE).
# Uncompiled, kernel.py makes each array a list of its size; tests/test_core.py requires those
# sizes to be the ones declared here.

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

# the board, the rules and the rules' arithmetic, written once (amteach/engine/core.pxd)
from amteach.engine cimport core
# the bots' decisions, written once, reading `G` itself through a `bots.Context`
# (amteach/bots/core.pxd)
from amteach.bots cimport core as bots

cdef extern from *:
    """
    #ifndef AMTEACH_KERNEL_SHA256
    #define AMTEACH_KERNEL_SHA256 "unknown"
    #endif
    """
    const char* AMTEACH_KERNEL_SHA256

# -- sizes and codes: C globals, set once by kernel.py --------------------------------------
cdef int MAX_SEATS, MAX_SPACES, MAX_CARDS, MAX_DEBTS, MAX_CHOICES, MAX_PHASES
cdef int NOBODY, COMPETITOR, MONOPOLIST
cdef int K_CORNER, K_STREET, K_CARD, K_TAX, K_TRANSPORT, K_UTILITY
cdef int PRE_ROLL, BUY, INCOME_TAX, RAISE, POST_ROLL, TRADE_ANSWER, FINAL_ADJUST, OVER
cdef int C_NONE, C_ROLL, C_BUY, C_DECLINE, C_BUILD, C_SELL, C_MORTGAGE, C_REDEEM, C_TAX_FLAT
cdef int C_TAX_PERCENT, C_PAY_FINE, C_TRADE, C_ACCEPT, C_REJECT, C_END_TURN, C_END_GAME
cdef int D_RENT, D_FINE, D_INCOME_TAX, D_PROPERTY_TAX, D_OTHER
cdef int THEN_NONE, THEN_AFTER_MOVE, THEN_RELEASED
cdef int BY_CARD
cdef int END_GAME_A, END_GAME_B, END_TWO_HOUR, END_ROUND_CAP
cdef int GAME_A, GAME_B, GAME_TWO_HOUR
cdef int CHOICE_BASE, BOT_RANDOM, BOT_FAMILY, FAMILY_SIZE, TAX_PERCENT

# -- the state -------------------------------------------------------------------------------

cdef class Static(core.Tables):
    # the board and the rules: core.Tables
    # the table
    cdef int game_type
    cdef int n
    cdef int roles[6]
    cdef int bot[6]
    cdef int tax[6]
    cdef int family[6][18]
    cdef double role_landings[2][40]
    cdef bint record_rounds
    cdef bint check_invariants
    cdef list seat_roles


cdef class Rows:
    cdef int width
    cdef Py_ssize_t size
    cdef Py_ssize_t capacity
    cdef list full
    cdef object block
    cdef int32_t[:, ::1] data


cdef class G(core.State):
    # the game's state and its steps: core.State; a batch adds
    cdef Static s
    cdef list bots
    cdef Rows taxes
    cdef int64_t game_index


# -- the bots: the bots' core's state and context (amteach/bots/core.pxd) ---------------------

cdef class Bot(bots.BotState):
    cdef bots.Context ctx


cdef class Batch:
    cdef Static s


# -- rows ------------------------------------------------------------------------------------
cdef Py_ssize_t add_row(Rows rows) noexcept

# -- applying a choice -----------------------------------------------------------------------
cdef void tax_row(G g, bint percent_chosen) noexcept
cdef void apply(G g, int c) noexcept

# -- the bots --------------------------------------------------------------------------------
cdef inline int choice(int kind, int arg) noexcept
cdef inline int choice_kind(int c) noexcept
cdef inline int choice_arg(int c) noexcept
cdef void reset_bots(G g, Static s, uint64_t seed) noexcept
cdef bots.Context bot_context(G g, Static s)
cdef int choose(G g, Bot bot) noexcept

# -- one game --------------------------------------------------------------------------------
cdef int invariant_violations(G g) noexcept
cdef void snapshot(G g, Rows rounds, int64_t index, int round_number) noexcept
cdef void reset_game(G g, Static s, int64_t index, uint64_t seed, Rows taxes) noexcept
cdef int64_t play_one(G g, int64_t index, Rows games, Rows players, Rows rounds) noexcept
