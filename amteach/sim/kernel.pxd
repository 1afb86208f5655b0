# cython: language_level=3
# The C types of amteach/sim/kernel.py (Cython's pure-Python mode): compiled, the state below
# is C arrays inside cdef classes and the functions are C functions; uncompiled, kernel.py runs
# as plain Python with lists, and gives the same frames.
#
# Array sizes are written as numbers here (a .pxd cannot use kernel.py's names): 6 seats
# (MAX_SEATS), 40 spaces (MAX_SPACES), 32 cards (MAX_CARDS), 16 debts, 8 phases (MAX_PHASES)
# by 16 kinds of choice (CHOICE_BASE),
# (MAX_DEBTS), 160 choices (MAX_CHOICES), 624 words (MT_N), 18 knobs (FAMILY_SIZE).
# Uncompiled, kernel.py makes each array a list of its size; tests/test_core.py requires those
# sizes to be the ones declared here.

from libc.stdint cimport int64_t, uint32_t, uint64_t

# the board, the rules and the rules' arithmetic, written once (amteach/engine/core.pxd)
from amteach.engine cimport core
# the bots' decisions, written once (amteach/bots/core.pxd)
from amteach.bots cimport core as bots

cdef extern from *:
    """
    #ifndef AMTEACH_KERNEL_SHA256
    #define AMTEACH_KERNEL_SHA256 "unknown"
    #endif
    """
    const char* AMTEACH_KERNEL_SHA256

# -- sizes and codes: C globals, set once by kernel.py --------------------------------------
cdef uint64_t MASK32
cdef uint32_t UPPER_MASK, LOWER_MASK, MATRIX_A, TEMPER_B, TEMPER_C
cdef int MAX_SEATS, MAX_SPACES, MAX_CARDS, MAX_DEBTS, MAX_CHOICES, MAX_PHASES, MT_N, MT_M
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

cdef class MT:
    cdef uint32_t state[624]
    cdef int index


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
    cdef bint allowed[8][16]
    cdef int phase_kinds[8][16]
    cdef int n_phase_kinds[8]


cdef class Trade:
    cdef int other
    cdef int n_give
    cdef int give[40]
    cdef int n_get
    cdef int get[40]
    cdef int64_t pay


cdef class Rows:
    cdef int width
    cdef Py_ssize_t size
    cdef Py_ssize_t capacity
    cdef list full
    cdef object block
    cdef int64_t[:, ::1] data


cdef class G(core.Steps):
    cdef Static s
    cdef int n
    cdef int64_t cash[6]
    cdef int position[6]
    cdef int held[6]
    cdef bint bankrupt[6]
    cdef int turns_taken[6]
    cdef int owner[40]
    cdef int houses[40]
    cdef bint apartment[40]
    cdef bint mortgaged[40]
    cdef int mortgage_values[40]
    cdef int redeem_values[40]
    cdef int64_t treasury
    cdef int64_t total_money
    cdef int supply_houses
    cdef int supply_apartments
    cdef MT rng
    cdef int deck[2][32]
    cdef int deck_head[2]
    # the debts, a ring of MAX_DEBTS
    cdef int debt_debtor[16]
    cdef int debt_creditor[16]
    cdef int64_t debt_amount[16]
    cdef int debt_kind[16]
    cdef bint debt_releases[16]
    cdef int debt_head
    cdef int debt_count
    cdef bint debt_overflow
    cdef int then
    cdef int round
    cdef int current
    cdef int actor
    cdef int phase
    cdef bint is_extra
    cdef bint extra_pending
    cdef int last_dice
    cdef int pending_buy
    cdef Trade offer
    cdef int offer_phase
    cdef int final_queue[6]
    cdef int final_head
    cdef int final_count
    cdef int final_reason
    # the standing when the final accounting began (sim.accounting)
    cdef int64_t cash_at_final[6]
    cdef int leader_at_final
    cdef int winner
    cdef int end_reason
    # what the frames count
    cdef int64_t rent_paid[6]
    cdef int64_t rent_received[6]
    cdef int64_t income_tax[6]
    cdef int64_t property_tax[6]
    cdef int64_t fines[6]
    cdef int bankrupt_round[6]
    # the bots
    cdef list bots
    cdef Trade proposal
    cdef Rows taxes
    cdef int64_t game_index
    # scratch arrays (a compiled function's local arrays)
    cdef int spaces[40]
    cdef int legal[160]
    cdef int doomed[40]
    cdef int64_t wealth_titles[6]
    cdef int64_t wealth_buildings[6]
    # the steps of the transitions (core.Steps): the player's actions
    cpdef int houses_on(self, int space) except -1
    cpdef int has_apartment(self, int space) except -1
    cpdef int is_mortgaged(self, int space) except -1
    cpdef int streets_held(self, int p, int city) except -1
    cpdef int houses_left(self) except? -1
    cpdef int apartments_left(self) except? -1
    cpdef int seat_held(self, int q) except -1
    cpdef int raiser(self) except -2
    cpdef int offered(self) except -2
    cpdef int trade_partner(self, int standing) except -2
    cpdef int trade_titles(self, int standing, int side) except -1
    cpdef int trade_title(self, int standing, int side, int i) except? -1
    cpdef long long trade_pay(self, int standing) except? -1
    cpdef int buys(self, int p, int space, int price) except -1
    cpdef int declines(self, int p, int space) except -1
    cpdef int builds(self, int p, int space, int houses, int apartment, int cost) except -1
    cpdef int sells_building(self, int p, int space, int houses, int apartment,
                             int refund) except -1
    cpdef int mortgages(self, int p, int space, int amount) except -1
    cpdef int redeems(self, int p, int space, int amount) except -1
    cpdef int tax_chosen(self, int p, long long flat, long long percent,
                         int percent_chosen) except -1
    cpdef int pays_treasury(self, int p, int amount, int reason, int space) except -1
    cpdef int leaves_hold(self, int p, int by_doubles) except -1
    cpdef int trade_proposed(self, int p) except -1
    cpdef int awaits_answer(self, int q) except -1
    cpdef int end_adjusting(self) except -1
    cpdef int trade_answered(self, int accepted) except -1
    cpdef int transfer_title(self, int space, int to) except -1
    cpdef int pays(self, int payer, int payee, long long amount, int reason) except -1
    # ... the landings, the debts, the end of the game and the turn
    cpdef int seats(self) except -1
    cpdef int seat_role(self, int q) except -1
    cpdef int seat_out(self, int q) except -1
    cpdef int title_owner(self, int space) except -2
    cpdef int treasury_pays(self, int p, int amount, int reason, int space) except -1
    cpdef int owes(self, int debtor, int creditor, int amount, int reason, int space) except -1
    cpdef int owes_rent(self, int p, int owner, int space) except -1
    cpdef int settle_after_move(self) except -1
    cpdef int offer_title(self, int p, int space) except -1
    cpdef int ask_income_tax(self, int p) except -1
    cpdef int card_moves(self, int p, int target) except -1
    cpdef int send_to_hold(self, int p, int by_card) except -1
    cpdef int throw(self, int count, int purpose) except -1
    cpdef int next_card(self, int p, int role) except -1
    cpdef int after_move(self) except -1
    cpdef int is_game_b(self) except -1
    cpdef int is_two_hour(self) except -1
    cpdef long long cash_of(self, int p) except? -1
    cpdef long long game_b_score(self, int p) except? -1
    cpdef int rent_at(self, int space, int dice) except -1
    cpdef int begin_final(self, int reason) except -1
    cpdef int queue_adjuster(self, int p) except -1
    cpdef int next_adjuster(self) except -2
    cpdef int final_cause(self) except -1
    cpdef int hands_over(self, int p, long long amount, int keep_percent) except -1
    cpdef int treasurer_pays(self, int owner, int space, int amount) except -1
    cpdef int finish(self, int winner, int reason) except -1
    cpdef int first_debtor(self) except -2
    cpdef int first_creditor(self) except -2
    cpdef long long first_debt(self) except? -1
    cpdef int pay_first_debt(self) except -1
    cpdef int drop_first_debt(self) except -1
    cpdef long long liquidation_of(self, int p) except? -1
    cpdef int must_raise(self, int d) except -1
    cpdef int set_then(self, int then) except -1
    cpdef int take_then(self) except -1
    cpdef int is_over(self) except -1
    cpdef int return_buildings(self, int d, int space) except -1
    cpdef int hand_over_cash(self, int d, int creditor) except -1
    cpdef int hand_over_title(self, int space, int creditor) except -1
    cpdef int declare_bankrupt(self, int d, int creditor, long long debt) except -1
    cpdef int current_seat(self) except -1
    cpdef int next_turn(self) except -1
    cpdef int resume_turn(self) except -1
    cpdef int start_turn(self, int p) except -2
    cpdef int held_turns(self, int p) except -2
    cpdef int owes_fine(self, int p, int amount) except -1
    cpdef int throw_pair(self, int purpose) except -1
    cpdef int stays_held(self, int p) except -1
    cpdef int released_by_doubles(self, int p) except -1
    cpdef int is_extra_throw(self) except -1
    cpdef int note_throw(self, int total, int extra) except -1
    cpdef int position_of(self, int p) except -1
    cpdef int place(self, int p, int end, int by) except -1
    cpdef int extra_due(self) except -1
    cpdef int extra_throw(self, int p) except -1
    cpdef int post_roll(self, int p) except -1
    cpdef int round_number(self) except -1
    cpdef int new_round(self) except -1


# -- the bots: the bots' core's state and view (amteach/bots/core.pxd) -------------------------

cdef class KernelView(bots.View):
    cdef G g
    cdef MT rng
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


cdef class Bot(bots.BotState):
    cdef MT rng
    cdef KernelView view


cdef class Batch:
    cdef Static s


# -- chance ----------------------------------------------------------------------------------
cdef void mt_init_genrand(MT mt, uint32_t s) noexcept
cdef void mt_seed(MT mt, uint64_t seed) noexcept
cdef uint32_t mt_next(MT mt) noexcept
cdef inline double mt_random(MT mt) noexcept
cdef inline int bit_length(int64_t n) noexcept
cdef int64_t mt_randbelow(MT mt, int64_t n) noexcept

# -- rows ------------------------------------------------------------------------------------
cdef Py_ssize_t add_row(Rows rows) noexcept

# -- reading the engine ----------------------------------------------------------------------
cdef inline int monopoly_count(G g, int player, int city) noexcept
cdef inline int group_count(G g, int space) noexcept
cdef inline int rent_if(G g, int space, bint mortgaged, int dice) noexcept
cdef inline int rent_for(G g, int space, int dice) noexcept
cdef int rent_after_build(G g, int space) noexcept
cdef inline int buildings_paid(G g, int space) noexcept
cdef int64_t liquidation_value(G g, int player) noexcept
cdef int64_t rule25_wealth(G g, int player) noexcept
cdef void wealth_parts(G g) noexcept
cdef inline bint phase_allows(G g, int phase, int kind) noexcept
cdef int targets(G g, int kind, int* out) except -1
cdef inline int can_pay_fine(G g) except -1
cdef int trade_is_legal(G g) except -1

# -- applying a choice -----------------------------------------------------------------------
cdef inline void owe(G g, int debtor, int creditor, int64_t amount, int kind, bint releases) noexcept
cdef void finish(G g, int winner, int reason) noexcept
cdef void settle(G g, int then) noexcept
cdef void next_turn(G g) noexcept
cdef void after_move(G g) noexcept
cdef void apply(G g, int c) noexcept

# -- the bots --------------------------------------------------------------------------------
cdef inline int choice(int kind, int arg) noexcept
cdef inline int choice_kind(int c) noexcept
cdef inline int choice_arg(int c) noexcept
cdef void reset_bots(G g, Static s, uint64_t seed) noexcept
cdef int choose(G g, Bot bot) noexcept
cdef int legal_choices(G g, int* out) noexcept

# -- one game --------------------------------------------------------------------------------
cdef int invariant_violations(G g) noexcept
cdef void snapshot(G g, Rows rounds, int64_t index, int round_number) noexcept
cdef void reset_game(G g, Static s, int64_t index, uint64_t seed, Rows taxes) noexcept
cdef int64_t play_one(G g, int64_t index, uint64_t seed, Rows games, Rows players,
                      Rows rounds) noexcept
