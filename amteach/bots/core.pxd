# cython: language_level=3
# The C types of amteach/bots/core.py (Cython's pure-Python mode): compiled, the bots' state is
# C arrays, `View` is a class of `cdef` methods (C virtual calls, no Python dispatch) that
# `EngineView` implements on a `Game` and the kernel's `KernelView` on its `G` (both read the one
# game state, `core.State`: Game's through its Python readers, G's as C arrays), and the decisions are `cpdef` C functions, which
# amteach/sim/kernel.py cimports;
# uncompiled, core.py runs as plain Python with lists, and gives the same decisions.
#
# Array sizes are written as numbers here (a .pxd cannot use core.py's names): 40 spaces
# (MAX_SPACES), 16 cities (MAX_CITIES), 18 knobs (FAMILY_SIZE). tests/test_core.py requires
# the lists core.py makes to have these sizes.
#
# Every method and decision that can fail (the methods a Python `Game` answers) returns a C
# number with an error value (`except? -1`): a virtual call that checks one number.

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


cdef class View:
    cdef public rules.Tables t
    cdef int spaces[40]
    cdef int actor(self) except? -1
    cdef int current(self) except? -1
    cdef int phase(self) except? -1
    cdef int round(self) except? -1
    cdef int seats(self) except? -1
    cdef int role(self, int p) except? -1
    cdef int bankrupt(self, int p) except? -1
    cdef int held(self, int p) except? -1
    cdef long long cash(self, int p) except? -1
    cdef int owner(self, int space) except? -2
    cdef int houses(self, int space) except? -1
    cdef int apartment(self, int space) except? -1
    cdef int mortgaged(self, int space) except? -1
    cdef int redeem_value(self, int space) except? -1
    cdef int monopoly_count(self, int p, int city) except? -1
    cdef int rent(self, int space) except? -1
    cdef int rent_after_build(self, int space) except? -1
    cdef int rent_redeemed(self, int space) except? -1
    cdef int percent_tax_is_cheaper(self, int p) except? -1
    cdef int targets(self, int kind) except? -1
    cdef int can_pay_fine(self) except? -1
    cdef int can_buy(self) except? -1
    cdef int pending_buy(self) except? -2
    cdef double landing_weight(self, int role, int space) except? -1
    cdef int offer_other(self) except? -1
    cdef int offer_gives(self) except? -1
    cdef int offer_give(self, int i) except? -1
    cdef int offer_gets(self) except? -1
    cdef int offer_get(self, int i) except? -1
    cdef long long offer_pay(self) except? -1
    cdef int propose(self, int other) except? -1
    cdef int propose_give(self, int space) except? -1
    cdef int propose_get(self, int space) except? -1
    cdef int proposal_gives(self) except? -1
    cdef int proposal_gets(self) except? -1
    cdef int propose_pay(self, long long pay) except? -1
    cdef int proposal_is_legal(self) except? -1
    cdef int trade_possible(self) except? -1
    cdef int legal_choices(self) except? -1
    cdef int legal_choice(self, int i) except? -1
    cdef double random(self) except? -1
    cdef long long randbelow(self, long long n) except? -1


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
    cdef int city_order[16]
    cdef int city_counts[16]
    cpdef void forget(self) noexcept


cdef class EngineView(View):
    cdef object game
    cdef object legal
    cdef object legal_list
    cdef object offer
    cdef object proposal
    cdef object rng
    cdef int other
    cdef list give
    cdef list get
    cdef long long pay
    cdef tuple city_names
    cdef object for_tables


cdef inline int choice(int kind, int arg) noexcept
cdef inline int choice_kind(int code) noexcept
cdef inline int choice_arg(int code) noexcept
cpdef void reset_bot(BotState bot, int kind, int tax) noexcept
cpdef int landings(View view, BotState bot) except? -1
cpdef int completes(View view, int p, int space) except? -1
cpdef int income_tax_choice(View view, BotState bot) except? -1
cpdef int family_wants(View view, BotState bot, int space) except? -1
cpdef int wants(View view, BotState bot, int space) except? -1
cpdef int least_rent(View view, int count) except? -1
cpdef int raise_money(View view, BotState bot) except? -1
cpdef int final_adjust(View view, BotState bot) except? -1
cpdef double title_value(View view, int player, int space, bint gaining) except? -1
cpdef double offer_gain(View view) except? -1
cpdef double offer_loss(View view) except? -1
cpdef int completes_teammates_city(View view) except? -1
cpdef int accepts(View view, BotState bot) except? -1
cpdef long long offer_amount(BotState bot, int price, int tries) except? -1
cpdef int offer_for(View view, BotState bot, int other, int space) except? -1
cpdef int propose_monopoly_trade(View view, BotState bot) except? -1
cpdef int propose_blocking_trade(View view, BotState bot) except? -1
cpdef int family_build(View view, BotState bot) except? -1
cpdef int family_manage(View view, BotState bot) except? -1
cpdef int cautious_manage(View view, BotState bot) except? -1
cpdef int builder_manage(View view, BotState bot) except? -1
cpdef int investor_manage(View view, BotState bot) except? -1
cpdef int manage(View view, BotState bot) except? -1
cpdef int before_throw(View view, BotState bot) except? -1
cpdef int random_trade(View view, BotState bot) except? -1
cpdef int random_choose(View view, BotState bot) except? -1
cpdef int choose(View view, BotState bot) except? -1
