# cython: language_level=3
# The C types of amteach/engine/core.py (Cython's pure-Python mode): compiled, `Tables` is C
# arrays and the rule arithmetic is `cpdef` C functions, which amteach/sim/kernel.py cimports;
# uncompiled, core.py runs as plain Python with lists, and gives the same answers.
#
# Array sizes are written as numbers here (a .pxd cannot use core.py's names): 40 spaces
# (MAX_SPACES), 32 cards (MAX_CARDS), 16 cities (MAX_CITIES), 6 rents a role (RENT_LADDER),
# 8 fares or multipliers (MAX_LIST), 7 die faces (MAX_FACE). tests/test_core.py requires the
# lists core.py makes to have these sizes.
#
# The small functions that others here call are declared `inline` (Cython warns
# "Declarations should not be declared inline"): a hint to the C compiler within core.c, which
# callgrind shows it does not always take; other modules call them through a pointer, as any
# cpdef function.
#
# A rule parameter that is one whole number is a `public` field named as in RuleSet:
# `fill_tables` copies it by name (a parameter not declared here stops a compiled build's
# `fill_tables` with an AttributeError).
#
# `State` is a game's state, once (issue 38): `Game` keeps one and the kernel's `G` extends it
# with a batch's things. Its fields are C arrays and C numbers; the ones `Game` reads by name are
# `public` (arrays through `State.seat_value` and `State.space_value`). The transitions take a
# `State` and read and write its fields directly; a step (a state change a transition takes,
# told to the sink) is a `cdef inline` method of `State`, declared once here
# (docs/architecture.md, "Add a step"), which a transition calls as a plain C function.

from libc.stdint cimport uint32_t, uint64_t

cdef extern from *:
    """
    #ifndef AMTEACH_CORE_SHA256
    #define AMTEACH_CORE_SHA256 "unknown"
    #endif
    """
    const char* AMTEACH_CORE_SHA256

cdef int COMPETITOR, MONOPOLIST, NOBODY, NO_SPACE, APARTMENT_RUNG
cdef int MAX_GROUPS, GROUP_TRANSPORTS, GROUP_UTILITIES, NO_GROUP
cdef int K_CORNER, K_STREET, K_CARD, K_TAX, K_TRANSPORT, K_UTILITY
cdef int E_COLLECT, E_PAY, E_COLLECT_FROM_MONOPOLISTS, E_COLLECT_FROM_COMPETITORS
cdef int E_ALL_MONOPOLISTS_COLLECT, E_NOTHING, E_MOVE_TO, E_GO_TO_PRICE_WAR, E_GO_TO_PRISON
cdef int E_ROLL_FOR
cdef int P_START, P_INCOME_TAX, P_PROPERTY_TAX, P_FOUNDATION_FEE, P_FOUNDATION_GRANT, P_CARD
cdef int P_FINE, P_SETTLEMENT, P_TRADE
cdef int T_MOVE, T_DOUBLES_ATTEMPT, T_FOUNDATION, T_CARD
cdef int BY_DICE, BY_CARD, DIE_BASE
cdef int END_GAME_A, END_GAME_B, END_TWO_HOUR, END_ROUND_CAP
cdef int THEN_NONE, THEN_AFTER_MOVE, THEN_RELEASED
cdef int R_MORTGAGED, R_PRISON, R_APARTMENT, R_HOUSES, R_BARE, R_SINGLE, R_MONOPOLY
cdef int R_MONOPOLY_HOUSES, R_TRANSPORT_COMPETITOR, R_TRANSPORT_MONOPOLIST, R_UTILITY
cdef int OK, NOT_OWNER, NOT_A_STREET, MORTGAGED, NO_MONOPOLY, FULL, NO_APARTMENTS_LEFT
cdef int NO_HOUSES_LEFT, SHORT_OF_CASH, NO_BUILDINGS, ALREADY_MORTGAGED, BUILDINGS_STAND
cdef int BREAKS_MONOPOLY, NOT_MORTGAGED, NOT_HELD, NO_PARTNER, NO_TITLES, LISTED_TWICE
cdef int TRADE_NOT_OWNER, TRADE_BUILDINGS, TRADE_BREAKS_MONOPOLY, PROPOSER_SHORT
cdef int PARTNER_SHORT, REFUSAL_AT


cdef class Tables:
    # the board
    cdef public int n_spaces
    cdef int kind[40]
    cdef int city[40]
    cdef int price[40]
    cdef int house_cost[40]
    cdef int crent[40][6]
    cdef int mrent[40][6]
    cdef public int n_cities
    cdef int city_size[16]
    cdef int city_member[16][40]
    # the group a title counts in (its city, GROUP_TRANSPORTS or GROUP_UTILITIES), else NO_GROUP
    cdef int group[40]
    cdef public int n_titles
    cdef int titles[40]
    cdef public int n_streets
    cdef int streets[40]
    cdef public int n_transports
    cdef int transports[40]
    cdef public int n_utilities
    cdef int utilities[40]
    cdef public int income_tax_space
    cdef public int property_tax_space
    cdef public int hold_space
    cdef public int go_to_hold_space
    cdef public int foundation_space
    cdef int deck_size[2]
    cdef int card_effect[2][32]
    cdef int card_amount[2][32]
    cdef int card_target[2][32]
    # the rules: every whole-number parameter of RuleSet, by its name
    cdef public int starting_cash
    cdef public int start_payment
    cdef public int income_tax_flat
    cdef public int property_tax
    cdef public int foundation_monopolist_fee
    cdef public int fine
    cdef public int held_turns_before_forced_fine
    cdef public int max_houses_competitor
    cdef public int max_houses_monopolist
    cdef public int supply_houses
    cdef public int supply_apartments
    cdef public int monopoly_streets
    cdef public int transport_fare_competitor
    cdef public int utility_multiplier_competitor
    cdef public int mortgage_percent
    cdef public int redeem_percent
    cdef public int building_sellback_percent
    cdef public int settlement_keep_percent_competitor
    cdef public int settlement_keep_percent_monopolist
    cdef public int settlement_utility_dice
    cdef public int round_cap
    # ... and the rest, by role or as lists
    cdef int tax_rates[2][3]
    cdef int prizes[7]
    cdef int max_houses[2]
    cdef int keep_percent[2]
    cdef public bint unlimited_supply
    cdef public int n_fares
    cdef int fares_monopolist[8]
    cdef public int n_utility_multipliers
    cdef int utility_monopolist[8]


cpdef inline long long percent_of(long long amount, int percent) noexcept
cpdef inline int rent_basis(Tables t, int space, int role, bint held, bint mortgaged, int houses,
                     bint apartment, int count) noexcept
cpdef inline int utility_multiplier(Tables t, int role, int count) noexcept
cpdef inline int rent_amount(Tables t, int space, int basis, int role, int houses, int count,
                      int dice) noexcept
cpdef int rent_count(Tables t, int basis, int role, int houses, int count) noexcept
cpdef int rent(Tables t, int space, int role, bint held, bint mortgaged, int houses,
               bint apartment, int count, int dice) noexcept
cpdef inline bint next_is_apartment(Tables t, int role, int houses) noexcept
cpdef int rent_after_build(Tables t, int space, int role, bint held, bint mortgaged,
                           int houses, int count) noexcept
cpdef inline int buildings_paid(Tables t, int space, int role, int houses, bint apartment) noexcept
cpdef inline int buildings_refund(Tables t, int space, int role, int houses, bint apartment) noexcept
cpdef int building_sale_value(Tables t, int space, int role, int houses,
                              bint apartment) noexcept
cpdef int mortgage_value(Tables t, int space) noexcept
cpdef int redeem_value(Tables t, int space) noexcept
cpdef long long title_liquidation(Tables t, int space, int role, int houses, bint apartment,
                                  bint mortgaged, int mortgage) noexcept
cpdef int title_worth(Tables t, int space, bint mortgaged, int redeem) noexcept
cpdef long long tax_percent(Tables t, int role, long long cash, long long prop,
                            long long improvements) noexcept


# CPython's random.Random, draw for draw (one stream a game, drawn in `State`)
cdef class MT:
    cdef uint32_t state[624]
    cdef int index

cdef void mt_init_genrand(MT mt, uint32_t s) noexcept
cdef void mt_seed(MT mt, uint64_t seed) noexcept
# the next word: inline, for the dice's four words a throw; the state's refill (every 624
# words) is a function of its own, so that the inline part stays small
cdef void mt_twist(MT mt) noexcept
cdef inline uint32_t mt_next(MT mt) noexcept
cdef double mt_random(MT mt) noexcept
cdef int bit_length(long long n) noexcept
cdef long long mt_randbelow(MT mt, long long n) noexcept

cdef int MAX_SEATS, MAX_DEBTS, MT_N, MT_M
cdef unsigned long long MASK32
cdef uint32_t UPPER_MASK, LOWER_MASK, MATRIX_A, TEMPER_B, TEMPER_C
cdef int PRE_ROLL, BUY, INCOME_TAX, RAISE, POST_ROLL, TRADE_ANSWER, FINAL_ADJUST, OVER
cdef int GAME_A, GAME_B, GAME_TWO_HOUR, D_RENT
cdef int N_PURCHASED, N_DECLINED, N_BUILT, N_BUILDING_SOLD, N_MORTGAGED, N_REDEEMED
cdef int N_TAX_CHOSEN, N_PAYMENT, N_LEFT_HOLD, N_TRADE_PROPOSED, N_TRADE_ANSWERED, N_NO_RENT
cdef int N_INCOME_TAX_DUE, N_SENT_TO_HOLD, N_DICE, N_CARD, N_FINAL_ACCOUNTING
cdef int N_TREASURER_PAID, N_GAME_OVER, N_RENT_PAID, N_MUST_RAISE, N_BANKRUPT
cdef int N_TURN_STARTED, N_STAYED_HELD, N_MOVED
cdef int A_BUILD, A_SELL, A_MORTGAGE, A_REDEEM


# A trade offered or weighed: 40 titles a side at most
cdef class Trade:
    cdef public int other
    cdef public int n_give
    cdef int give[40]
    cdef public int n_get
    cdef int get[40]
    cdef public long long pay
    # side 0 (the titles given) or 1 (asked for): how many, and the i-th
    cdef inline int titles(self, int side) noexcept
    cdef inline int title(self, int side, int i) noexcept


# The game's state, once: `Game` keeps one, the kernel's `G` is one (with a batch's things
# added). Sizes: 6 seats (MAX_SEATS), 40 spaces, 32 cards, 16 debts (MAX_DEBTS).
cdef class State:
    cdef public Tables t
    cdef public int n
    cdef public int game_type
    cdef int roles[6]
    cdef long long cash[6]
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
    # each seat's unmortgaged titles of each group (a city, the transports, the utilities: 18
    # groups, MAX_GROUPS), kept by `set_owner` and `set_mortgaged`; `invariants` recounts it
    cdef int group_held[6][18]
    # each seat's titles, in board order (`n_held` of them), kept by `set_owner`: the walks
    # over a player's titles (`title_targets`) read these, not the board's 28 titles
    cdef int held_titles[6][40]
    cdef int n_held[6]
    cdef public long long treasury
    cdef public long long total_money
    cdef public int supply_houses
    cdef public int supply_apartments
    cdef MT rng
    cdef int deck[2][32]
    cdef int deck_head[2]
    # the debts, a ring of MAX_DEBTS: who owes whom, how much, for what (a payment's reason,
    # or D_RENT), whether paying releases the debtor, and what the record of it says
    cdef int debt_debtor[16]
    cdef int debt_creditor[16]
    cdef long long debt_amount[16]
    cdef int debt_kind[16]
    cdef bint debt_releases[16]
    cdef int debt_space[16]
    cdef int debt_basis[16]
    cdef int debt_count_[16]
    cdef int debt_dice[16]
    cdef bint debt_announced[16]
    cdef public int debt_head
    cdef public int debt_count
    cdef public bint debt_overflow
    cdef public int then
    cdef public int round
    cdef public int current
    cdef public int actor
    cdef public int phase
    cdef public bint is_extra
    cdef public bint extra_pending
    cdef public int last_dice
    cdef public int pending_buy
    cdef public Trade offer
    cdef public Trade proposal
    cdef public int offer_phase
    # the final accounting: who adjusts next, why it began, the standing when it began
    cdef int final_queue[6]
    cdef public int final_head
    cdef public int final_count
    cdef public int final_reason
    cdef public bint began_final
    cdef long long cash_at_final[6]
    cdef public int leader_at_final
    cdef public int winner
    cdef public int end_reason
    # a bankruptcy's hand-over, for its record
    cdef public long long handed_cash
    cdef int handed[40]
    cdef int n_handed
    # what the frames count
    cdef long long rent_paid[6]
    cdef long long rent_received[6]
    cdef long long income_tax[6]
    cdef long long property_tax[6]
    cdef long long fines[6]
    cdef int bankrupt_round[6]
    cdef public long long last_tax_flat
    cdef public long long last_tax_percent
    # each seat's titles at price (a mortgaged one less its redeem price) and buildings at
    # cost, kept by `set_owner`, `set_mortgaged` and `set_buildings`; `invariants` recounts them
    cdef long long wealth_titles[6]
    cdef long long wealth_buildings[6]
    # `title_targets`' answer
    cdef int found[40]
    # told of each step a person reads about (None in a batch), and a scenario's dice
    cdef public object sink
    cdef public object forced
    # the walks over the board, which Game and the kernel read too
    cpdef int monopoly_count(self, int p, int city) noexcept
    cpdef int group_count(self, int space) noexcept
    cpdef int rent_basis_of(self, int space, int houses, bint apartment, bint mortgaged) noexcept
    cpdef int rent_count_of(self, int space, int basis, int houses) noexcept
    cpdef int rent_if(self, int space, int houses, bint apartment, bint mortgaged,
                      int dice) noexcept
    cpdef int rent_now(self, int space, int dice) noexcept
    cpdef int rent_built(self, int space) noexcept
    cpdef int paid_for(self, int space) noexcept
    cpdef long long liquidation_value(self, int p) noexcept
    cpdef long long rule25_wealth(self, int p) noexcept
    # where a title changes hands, is mortgaged or is built on (the counts of `group_held` and
    # the sums of `wealth_titles` and `wealth_buildings` follow)
    cdef inline int rent_group(self, int space) noexcept
    cdef inline int set_owner(self, int space, int p) noexcept
    cdef inline int set_mortgaged(self, int space, bint mortgaged) noexcept
    cdef inline int set_buildings(self, int space, int houses, bint apartment) noexcept
    cdef inline int enlist(self, int p, int space) noexcept
    cdef inline int unlist(self, int p, int space) noexcept
    cdef int recount(self) noexcept
    cdef inline int owe(self, int debtor, int creditor, long long amount, int kind, bint releases,
                        int space, int basis, int count) except -1
    # the steps of the transitions, each declared once, here: `inline`, so that a
    # transition's call is a direct C call (no vtable, no check for a Python override),
    # which the C compiler may inline. A step returns an int; `except -1` lets an exception
    # raised on the way (a sink's, a scenario's forced dice) pass through.
    # the player's actions
    cdef inline int raiser(self) noexcept
    cdef inline int buys(self, int p, int space, int price) except -1
    cdef inline int declines(self, int p, int space) except -1
    cdef inline int builds(self, int p, int space, int houses, int apartment, int cost) except -1
    cdef inline int sells_building(self, int p, int space, int houses, int apartment,
                                   int refund) except -1
    cdef inline int mortgages(self, int p, int space, int amount) except -1
    cdef inline int redeems(self, int p, int space, int amount) except -1
    cdef inline int tax_chosen(self, int p, long long flat, long long percent,
                               int percent_chosen) except -1
    cdef inline int pays_treasury(self, int p, int amount, int reason, int space) except -1
    cdef inline int leaves_hold(self, int p, int by_doubles) except -1
    cdef inline int trade_proposed(self, int p) except -1
    cdef inline int awaits_answer(self, int q) except -1
    cdef inline int end_adjusting(self) except -1
    cdef inline int trade_answered(self, int accepted) except -1
    cdef inline int transfer_title(self, int space, int to) except -1
    cdef inline int pays(self, int payer, int payee, long long amount, int reason) except -1
    # the turn, the landings, the debts and the end
    cdef inline int begin_final(self, int reason) except -1
    cdef inline int queue_adjuster(self, int p) except -1
    cdef inline int next_adjuster(self) except -2
    cdef inline int hands_over(self, int p, long long amount, int keep_percent) except -1
    cdef inline int treasurer_pays(self, int owner, int space, int amount) except -1
    cdef inline int finish(self, int winner, int reason) except -1
    cdef inline int first_debtor(self) noexcept
    cdef inline int pay_first_debt(self) except -1
    cdef inline int drop_first_debt(self) except -1
    cdef inline int must_raise(self, int d) except -1
    cdef inline int set_then(self, int then) except -1
    cdef inline int take_then(self) except -1
    cdef inline int return_buildings(self, int d, int space) except -1
    cdef inline int hand_over_cash(self, int d, int creditor) except -1
    cdef inline int hand_over_title(self, int space, int creditor) except -1
    cdef inline int declare_bankrupt(self, int d, int creditor, long long debt) except -1
    cdef inline int resume_turn(self) except -1
    cdef inline int start_turn(self, int p) except -2
    cdef inline int owes_fine(self, int p, int amount) except -1
    cdef inline int throw_pair(self, int purpose) except -1
    cdef inline int stays_held(self, int p) except -1
    cdef inline int released_by_doubles(self, int p) except -1
    cdef inline int note_throw(self, int total, int extra) except -1
    cdef inline int place(self, int p, int end, int by) except -1
    cdef inline int extra_throw(self, int p) except -1
    cdef inline int post_roll(self, int p) except -1
    cdef inline int new_round(self) except -1
    cdef inline int treasury_pays(self, int p, int amount, int reason, int space) except -1
    cdef inline int owes(self, int debtor, int creditor, int amount, int reason,
                         int space) except -1
    cdef inline int owes_rent(self, int p, int owner, int space) except -1
    cdef inline int offer_title(self, int p, int space) except -1
    cdef inline int ask_income_tax(self, int p) except -1
    cdef inline int send_to_hold(self, int p, int by_card) except -1
    cdef inline int throw(self, int count, int purpose) except -1
    cdef inline int next_card(self, int p, int role) except -1


cpdef int land(State game, Tables t, int p, int space) except -1
cpdef int play_card(State game, Tables t, int p, int role, int index) except -1
cpdef inline int pair_of(int first, int second) noexcept
cpdef int begin_turn(State game, Tables t, int p) except -1
cpdef int next_turn(State game, Tables t, int p) except -1
cpdef int roll(State game, Tables t, int p) except -1
cpdef int move_to(State game, Tables t, int p, int end, int by) except -1
cpdef int after_move(State game, Tables t, int p) except -1
cpdef int check_end(State game, Tables t) except -1
cpdef int start_final(State game, Tables t, int reason) except -1
cpdef int next_final(State game, Tables t) except -1
cpdef int most_cash(State game) except -2
cpdef int end_turn(State game, Tables t, int p) except -1
cpdef int settle(State game, Tables t, int then) except -1
cpdef int go_bankrupt(State game, Tables t, int d, int creditor, long long debt) except -1

# the player's actions and their legality
cpdef int refusal_code(int refusal) noexcept
cpdef int refused_at(int refusal) noexcept
cpdef int is_monopolized(State game, Tables t, int p, int city) except -1
cpdef int breaks_built_monopoly(State game, Tables t, int p, int city,
                                unsigned long long leaving) except -1
cpdef int why_not_buy(State game, Tables t, int p) except -1
cpdef int why_not_pay_fine(State game, Tables t, int p) except -1
cpdef int why_not_end_game(State game, Tables t) except -1
cpdef inline int why_not_build(State game, Tables t, int p, int space) except -1
cpdef int why_not_sell_building(State game, Tables t, int p, int space) except -1
cpdef int why_not_mortgage(State game, Tables t, int p, int space) except -1
cpdef int why_not_redeem(State game, Tables t, int p, int space) except -1
cpdef int trade_possible(State game, Tables t, int p) except -1
cpdef int why_not_trade(State game, Tables t, int p) except -1
cpdef int buy_title(State game, Tables t, int p) except -1
cpdef int decline_title(State game, Tables t, int p) except -1
cpdef int pay_fine(State game, Tables t, int p) except -1
cpdef int build(State game, Tables t, int p, int space) except -1
cpdef int sell_building(State game, Tables t, int p, int space) except -1
cpdef int mortgage(State game, Tables t, int p, int space) except -1
cpdef int redeem(State game, Tables t, int p, int space) except -1
cpdef int after_raise(State game, Tables t) except -1
cpdef long long taxed_property(State game, Tables t, int p) except? -1
cpdef long long taxed_improvements(State game, Tables t, int p) except? -1
cpdef long long income_tax_percent(State game, Tables t, int p) except? -1
cpdef int income_tax(State game, Tables t, int p, int percent_chosen) except -1
cpdef int propose_trade(State game, Tables t, int p) except -1
cpdef int answer_trade(State game, Tables t, int accepted) except -1

# answers over the whole state, in one call
cpdef int title_targets(State game, int action) except -1
cpdef list found_list(State game, int count)
cdef int titles_held(State game, Tables t, int p, int group) noexcept
cpdef int invariants(State game, list out) except -1


# the legal choices, in one call (issue 38): a choice as one int (kind + CHOICE_BASE * (space + 1));
# 160 codes (MAX_CHOICES), 8 phases (MAX_PHASES) by 16 kinds (CHOICE_BASE)
cdef int CHOICE_BASE, MAX_CHOICES, MAX_PHASES
cdef int C_NONE, C_ROLL, C_BUY, C_DECLINE, C_BUILD, C_SELL, C_MORTGAGE, C_REDEEM, C_TAX_FLAT
cdef int C_TAX_PERCENT, C_PAY_FINE, C_TRADE, C_ACCEPT, C_REJECT, C_END_TURN, C_END_GAME

cdef class Choices:
    cdef int codes[160]
    cdef public int n
    cdef unsigned int allowed[8]
    cdef int listed[8][16]
    cdef int n_listed[8]

cpdef inline int choice(int kind, int arg) noexcept
cpdef inline int choice_kind(int code) noexcept
cpdef inline int choice_arg(int code) noexcept
cpdef inline bint allows(Choices c, int phase, int kind) noexcept
cpdef inline int title_action(int kind) noexcept
cpdef int kind_is_legal(State game, Choices c, int kind) except -1
cpdef int trade_is_legal(State game, Choices c) except -1
cpdef int legal_codes(State game, Choices c) except -1
cpdef int legal_kinds(State game, Choices c) except -1
