# cython: language_level=3
# The C types of amteach/bots/core.py (Cython's pure-Python mode): compiled, the bots' state is
# C arrays, the decisions are `cpdef` C functions, which amteach/sim/kernel.py cimports, and they
# read the game's state itself: the rules core's `State` (amteach/engine/core.pxd), whose
# arrays are C struct members here, through a small `Context` that holds only what the state
# does not (the offer weighed, the legal choices, the bot's random stream, landing weights);
# uncompiled, core.py runs as plain Python with lists, and gives the same decisions.
#
# Array sizes are written as numbers here (a .pxd cannot use core.py's names): 40 spaces
# (MAX_SPACES), 16 cities (MAX_CITIES), 18 knobs (FAMILY_SIZE). tests/test_core.py requires
# the lists core.py makes to have these sizes.
#
# A decision that can fail (a Python `random.Random` drawn, the landing weights read) returns a
# C number with an error value (`except? -1`).

# the board and the rules (amteach/engine/core.pxd)
from amteach.engine cimport core as rules

cdef extern from *:
    """
    #ifndef AMTEACH_BOTS_SHA256
    #define AMTEACH_BOTS_SHA256 "unknown"
    #endif
    """
    const char* AMTEACH_BOTS_SHA256

cdef int MAX_SPACES, MAX_CITIES, MAX_CHOICES, CHOICE_BASE
cdef int NOBODY, COMPETITOR, MONOPOLIST, K_STREET, K_TRANSPORT
cdef int PRE_ROLL, BUY_PHASE, INCOME_TAX, RAISE, POST_ROLL, TRADE_ANSWER, FINAL_ADJUST, OVER
cdef int C_NONE, C_ROLL, C_BUY, C_DECLINE, C_BUILD, C_SELL, C_MORTGAGE, C_REDEEM, C_TAX_FLAT
cdef int C_TAX_PERCENT, C_PAY_FINE, C_TRADE, C_ACCEPT, C_REJECT, C_END_TURN, C_END_GAME
cdef int BOT_PLAIN, BOT_CAUTIOUS, BOT_BUILDER, BOT_INVESTOR, BOT_RANDOM, BOT_FAMILY
cdef int PLAIN_RESERVE
cdef double PLAIN_MARGIN, MIN_RETURN, TRADE_RATE
cdef int TAX_RANDOM, TAX_CHEAPER, TAX_FLAT, TAX_PERCENT
cdef int FAMILY_SIZE
cdef int F_RESERVE, F_STREETS, F_TRANSPORTS, F_UTILITIES, F_KEY_STREETS, F_BUILD_RESERVE
cdef int F_HOUSES, F_APARTMENTS, F_BUILD_ORDER, F_BUILDS_PER_TURN, F_REDEEM_RESERVE
cdef int F_RAISE_FIRST, F_TAX, F_OFFER, F_ACCEPT, F_FINE_CASH, F_FINAL_ADJUST, F_TEAM


cdef class Context:
    cdef public rules.State s
    cdef public rules.Tables t
    cdef public rules.Trade offer
    cdef public rules.Choices legal
    cdef public rules.MT mt
    cdef public object rng
    cdef public object landing_source
    cdef public bint has_landings
    cdef int spaces[40]
    cdef double landing[2][40]

cdef int fill_landings(Context ctx) except? -1
cdef inline rules.Trade offer_of(Context ctx)
cdef inline int rent_now(Context ctx, int space) noexcept
cdef inline int rent_redeemed(Context ctx, int space) noexcept
cdef int targets(Context ctx, int kind) except? -1
cdef inline int can_pay_fine(Context ctx) except? -1
cdef inline int trade_possible(Context ctx) except? -1
cdef inline int propose(Context ctx, int other) noexcept
cdef inline int propose_give(Context ctx, int space) noexcept
cdef inline int propose_get(Context ctx, int space) noexcept
cdef inline int propose_pay(Context ctx, long long pay) noexcept
cdef double draw(Context ctx) except? -1
cdef long long draw_below(Context ctx, long long n) except? -1


cdef class BotState:
    cdef public int kind
    cdef public int tax
    cdef public int reserve
    cdef public double margin
    cdef public double min_return
    cdef public double trade_rate
    cdef public int built_round
    cdef public int built_seat
    cdef public int built_count
    cdef int fam[18]
    cdef int offers[40]
    cdef public int landings_key
    cdef double landings[40]
    # scratch: a Monopolist's streets counted by city, cities in board order
    cpdef void forget(self) noexcept


cdef inline int choice(int kind, int arg) noexcept
cdef inline int choice_kind(int code) noexcept
cdef inline int choice_arg(int code) noexcept
cpdef void reset_bot(BotState bot, int kind, int tax) noexcept
cpdef int landings(Context ctx, BotState bot) except? -1
cpdef int completes(Context ctx, int p, int space) except? -1
cpdef int income_tax_choice(Context ctx, BotState bot) except? -1
cpdef int family_wants(Context ctx, BotState bot, int space) except? -1
cpdef int wants(Context ctx, BotState bot, int space) except? -1
cpdef int least_rent(Context ctx, int count) except? -1
cpdef int raise_money(Context ctx, BotState bot) except? -1
cpdef int final_adjust(Context ctx, BotState bot) except? -1
cpdef double title_value(Context ctx, int player, int space, bint gaining) except? -1
cpdef double offer_gain(Context ctx) except? -1
cpdef double offer_loss(Context ctx) except? -1
cpdef int completes_teammates_city(Context ctx) except? -1
cpdef int accepts(Context ctx, BotState bot) except? -1
cpdef long long offer_amount(BotState bot, int price, int tries) except? -1
cpdef int offer_for(Context ctx, BotState bot, int other, int space) except? -1
cpdef int propose_monopoly_trade(Context ctx, BotState bot) except? -1
cpdef int propose_blocking_trade(Context ctx, BotState bot) except? -1
cpdef int family_build(Context ctx, BotState bot) except? -1
cpdef int family_manage(Context ctx, BotState bot) except? -1
cpdef int cautious_manage(Context ctx, BotState bot) except? -1
cpdef int builder_manage(Context ctx, BotState bot) except? -1
cpdef int investor_manage(Context ctx, BotState bot) except? -1
cpdef int manage(Context ctx, BotState bot) except? -1
cpdef int before_throw(Context ctx, BotState bot) except? -1
cpdef int random_trade(Context ctx, BotState bot) except? -1
cpdef int random_choose(Context ctx, BotState bot) except? -1
cpdef int choose(Context ctx, BotState bot) except? -1
