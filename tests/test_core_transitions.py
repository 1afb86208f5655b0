"""The transitions written once in the rules core (`amteach.engine.core`), driven through a
recording `core.Steps`: what each rule asks of a game, step by step, with no `Game` and no
kernel in between. `Game` and the kernel's `G` implement the same steps on their own state
(tests/test_core.py compares their frames; the rules tests play `Game`); these tests pin the
decisions the transitions take where no rules test did."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from amteach.engine.board import COMPETITOR, MONOPOLIST, standard_board
from amteach.engine.builds import rules_core
from amteach.engine.choices import Choice
from amteach.engine.game import Game
from amteach.engine.rules import RuleSet
from amteach.engine.terms import NOBODY, PaymentReason
from amteach.sim import core as sim_core

core = rules_core()
BOARD = standard_board()


class Recorder(core.Steps):
    """A game of a few seats that records each step a transition takes."""

    def __init__(
        self,
        roles,
        cash=None,
        out=(),
        game_b=False,
        scores=None,
        throws=(),
        held=None,
        position=None,
        pairs=(),
        round_number=1,
        extra_throw=False,
        extra_due=False,
    ):
        self.roles = list(roles)
        self.cash = list(cash or [1000] * len(roles))
        self.out = set(out)
        self.game_b = game_b
        self.scores = scores or [0] * len(roles)
        self.throws = list(throws)
        self.owner = [NOBODY] * len(BOARD.spaces)
        self.queue = []
        self.reason = None
        self.log = []
        # the turn flow
        self.held = list(held or [NOBODY] * len(roles))
        self.position = list(position or [0] * len(roles))
        self.pairs = list(pairs)  # the pairs of dice thrown, in order
        self.current = 0
        self.round = round_number
        self.extra_now = extra_throw
        self.extra = extra_due

    def seats(self):
        return len(self.roles)

    def seat_role(self, q):
        return self.roles[q]

    def seat_out(self, q):
        return int(q in self.out)

    def title_owner(self, space):
        return self.owner[space]

    def is_game_b(self):
        return int(self.game_b)

    def is_two_hour(self):
        return int(getattr(self, "two_hour", False))

    def cash_of(self, p):
        return self.cash[p]

    def game_b_score(self, p):
        return self.scores[p]

    def rent_at(self, space, dice):
        return 0

    def throw(self, count, purpose):
        self.log.append(("throw", count, core.THROWS[purpose]))
        return self.throws.pop(0)

    def treasury_pays(self, p, amount, reason, space):
        self.log.append(("treasury_pays", p, amount, core.PAYMENTS[reason].value, space))
        return 0

    def owes(self, debtor, creditor, amount, reason, space):
        self.log.append(("owes", debtor, creditor, amount, core.PAYMENTS[reason].value, space))
        return 0

    def settle_after_move(self):
        self.log.append(("settle_after_move",))
        return 0

    def after_move(self):
        self.log.append(("after_move",))
        return 0

    def begin_final(self, reason):
        self.reason = reason
        self.log.append(("begin_final", core.ENDINGS[reason]))
        return 0

    def queue_adjuster(self, p):
        self.queue.append(p)
        return 0

    def next_adjuster(self):
        return self.queue[0] if self.queue else NOBODY

    def final_cause(self):
        return self.reason

    def hands_over(self, p, amount, keep_percent):
        self.cash[p] -= amount
        self.log.append(("hands_over", p, amount, keep_percent))
        return 0

    def finish(self, winner, reason):
        self.log.append(("finish", winner, core.ENDINGS[reason]))
        return 0

    def return_buildings(self, d, space):
        self.log.append(("return_buildings", d, space))
        return 0

    def hand_over_cash(self, d, creditor):
        self.log.append(("hand_over_cash", d, creditor))
        return 0

    def hand_over_title(self, space, creditor):
        self.log.append(("hand_over_title", space, creditor))
        self.owner[space] = creditor
        return 0

    def declare_bankrupt(self, d, creditor, debt):
        self.log.append(("declare_bankrupt", d, creditor, debt))
        self.out.add(d)
        return 0

    # the turn flow
    def offer_title(self, p, space):
        self.log.append(("offer_title", p, space))
        return 0

    def set_then(self, then):
        self.log.append(("set_then", core.THENS[then]))
        return 0

    def current_seat(self):
        return self.current

    def resume_turn(self):
        self.log.append(("resume_turn",))
        return 0

    def start_turn(self, p):
        self.log.append(("start_turn", p))
        self.current = p
        return self.held[p]

    def held_turns(self, p):
        return self.held[p]

    def owes_fine(self, p, amount):
        self.log.append(("owes_fine", p, amount))
        return 0

    def throw_pair(self, purpose):
        self.log.append(("throw_pair", core.THROWS[purpose]))
        first, second = self.pairs.pop(0)
        return core.pair_of(first, second)

    def stays_held(self, p):
        self.log.append(("stays_held", p))
        return 0

    def released_by_doubles(self, p):
        self.log.append(("released_by_doubles", p))
        self.held[p] = NOBODY
        return 0

    def is_extra_throw(self):
        return int(self.extra_now)

    def note_throw(self, total, extra):
        self.log.append(("note_throw", total, extra))
        return 0

    def position_of(self, p):
        return self.position[p]

    def place(self, p, end, by):
        self.log.append(("place", p, end, core.MOVES[by]))
        start = self.position[p]
        self.position[p] = end
        return start

    def extra_due(self):
        return int(self.extra)

    def extra_throw(self, p):
        self.log.append(("extra_throw", p))
        return 0

    def post_roll(self, p):
        self.log.append(("post_roll", p))
        return 0

    def round_number(self):
        return self.round

    def new_round(self):
        self.log.append(("new_round",))
        self.round += 1
        return 0


def tables(**rules):
    return core.tables(BOARD, RuleSet.preset("default", **rules))


def test_foundation_a_monopolist_owes_nothing_when_the_fee_is_zero():
    # seed rules, the Foundation: a Monopolist pays the fee; at a fee of 0 no debt is queued
    # and the turn goes on at once
    game = Recorder([MONOPOLIST, COMPETITOR])
    core.land(game, tables(foundation_monopolist_fee=0), 0, BOARD.foundation_space)
    assert game.log == [("after_move",)]


def test_foundation_a_monopolist_owes_the_fee_as_a_debt():
    game = Recorder([MONOPOLIST, COMPETITOR])
    core.land(game, tables(foundation_monopolist_fee=15), 0, BOARD.foundation_space)
    space = BOARD.foundation_space
    assert game.log == [
        ("owes", 0, NOBODY, 15, "foundation_fee", space),
        ("settle_after_move",),
    ]


@pytest.mark.parametrize("face", [3, 4, 5, 6])
def test_foundation_a_competitor_throwing_a_face_without_a_prize_is_paid_nothing(face):
    # seed rules: 1 = collect $25, 2 = collect $50, otherwise nothing (no payment at all)
    game = Recorder([COMPETITOR, MONOPOLIST], throws=[face])
    core.land(game, tables(), 0, BOARD.foundation_space)
    assert game.log == [("throw", 1, "foundation"), ("after_move",)]


def test_game_a_ends_when_one_player_is_left():
    game = Recorder([COMPETITOR, MONOPOLIST, COMPETITOR], out={0, 1})
    core.check_end(game, tables())
    assert game.log == [("finish", 2, "game_a")]


def test_game_a_goes_on_while_two_players_are_left():
    game = Recorder([COMPETITOR, MONOPOLIST, COMPETITOR], out={0})
    core.check_end(game, tables())
    assert game.log == []


def test_rule25_game_b_ends_when_one_role_is_left_and_a_tie_goes_to_the_first_seat():
    # Game B: the richest Competitor once the Monopolists are out; equal scores: first seat
    game = Recorder(
        [MONOPOLIST, COMPETITOR, COMPETITOR, MONOPOLIST],
        out={0, 3},
        game_b=True,
        scores=[0, 700, 700, 0],
    )
    core.check_end(game, tables())
    assert game.log == [("finish", 1, "game_b")]


def test_rule25_game_b_goes_on_while_both_roles_are_in():
    game = Recorder([MONOPOLIST, COMPETITOR, COMPETITOR], out={2}, game_b=True)
    core.check_end(game, tables())
    assert game.log == []


def test_decision12_the_settlement_keeps_the_role_percentage_rounded_down():
    # Competitors keep 10 %, Monopolists 20 %, rounded down; the rest goes to the Treasury
    game = Recorder([COMPETITOR, MONOPOLIST], cash=[999, 999])
    core.start_final(game, tables(), core.ENDINGS.index("two_hour"))
    game.queue.clear()  # both players have adjusted
    game.log.clear()
    core.next_final(game, tables())
    assert game.log == [
        ("hands_over", 0, 900, 10),
        ("hands_over", 1, 800, 20),
        ("finish", 1, "two_hour"),
    ]


def test_decision12_most_cash_wins_and_a_tie_goes_to_the_first_seat():
    game = Recorder([MONOPOLIST, COMPETITOR, MONOPOLIST], cash=[500, 1000, 500], out={1})
    core.start_final(game, tables(), core.ENDINGS.index("round_cap"))
    assert game.queue == [0, 2]  # the players still in adjust first, in seat order
    game.queue.clear()
    game.log.clear()
    core.next_final(game, tables())
    assert game.log[-1] == ("finish", 0, "round_cap")


def test_decision9_owed_to_a_player_already_out_the_titles_return_to_the_treasury():
    # decision 9: owed to the Treasury, titles return to it; a creditor who is already out of
    # the game takes nothing either, so the Treasury stands in for it
    game = Recorder([COMPETITOR, MONOPOLIST, COMPETITOR], out={1})
    titles = BOARD.titles[:2]
    for space in titles:
        game.owner[space] = 0
    core.go_bankrupt(game, tables(), 0, 1, 300)
    assert game.log == [
        *(("return_buildings", 0, space) for space in titles),
        ("hand_over_cash", 0, NOBODY),
        *(("hand_over_title", space, NOBODY) for space in titles),
        ("declare_bankrupt", 0, NOBODY, 300),
        ("finish", 2, "game_a"),  # one player is left
    ]


def test_decision9_a_bankrupt_hands_cash_and_titles_to_the_player_owed():
    game = Recorder([COMPETITOR, MONOPOLIST, COMPETITOR, MONOPOLIST])
    game.owner[BOARD.titles[0]] = 2
    core.go_bankrupt(game, tables(), 2, 3, 80)
    assert game.log == [
        ("return_buildings", 2, BOARD.titles[0]),
        ("hand_over_cash", 2, 3),
        ("hand_over_title", BOARD.titles[0], 3),
        ("declare_bankrupt", 2, 3, 80),
    ]  # three players left: the game goes on


def test_the_kernel_debt_ring_refuses_a_debt_beyond_max_debts():
    # the debts (core.State's, which the kernel's G is) are a ring of MAX_DEBTS; bounds checking is off when compiled, so a
    # debt past the ring is refused and flagged (Batch.play then stops), never written over
    # one still owed
    source = Path(sim_core.__file__).with_name("kernel.py")
    spec = importlib.util.spec_from_file_location("amteach_kernel_uncompiled_debts", source)
    kernel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernel)
    g = kernel.G()
    rules_tables = kernel.core.tables(BOARD, RuleSet.preset("default"))  # the core it runs on
    g.reset(rules_tables, [COMPETITOR, MONOPOLIST], 0, 1)  # the one debt queue: core.State's
    g.debt_head = 3  # mid-ring
    for k in range(kernel.MAX_DEBTS + 1):
        g.owes(0, kernel.NOBODY, k + 1, kernel.D_OTHER, kernel.core.NO_SPACE)
    assert g.debt_count == kernel.MAX_DEBTS
    assert g.debt_overflow
    owed = [g.debt_amount[(3 + k) % kernel.MAX_DEBTS] for k in range(kernel.MAX_DEBTS)]
    assert owed == list(range(1, kernel.MAX_DEBTS + 1))


# -- the turn flow (core.begin_turn, roll, move_to, after_move, next_turn) --------------------

START = PaymentReason.START.value
BY_DICE = core.MOVES.index("dice")
BY_CARD = core.MOVES.index("card")


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_decision3_held_the_set_number_of_turns_the_fine_is_owed_as_the_turn_begins(limit):
    # decision 3: at the start of the turn after `held_turns_before_forced_fine` turns held,
    # the fine is owed (a debt: paid, it releases the player; then the turn goes on)
    game = Recorder([COMPETITOR, MONOPOLIST], held=[limit, NOBODY])
    core.begin_turn(game, tables(held_turns_before_forced_fine=limit, fine=70), 0)
    assert game.log == [("start_turn", 0), ("owes_fine", 0, 70), ("set_then", "released")]


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_decision3_held_fewer_turns_the_player_decides_before_throwing(limit):
    # decision 3: on the turns before that, the player may pay or try for doubles
    game = Recorder([COMPETITOR, MONOPOLIST], held=[limit - 1, NOBODY])
    core.begin_turn(game, tables(held_turns_before_forced_fine=limit, fine=70), 0)
    assert game.log == [("start_turn", 0)]  # and p decides before throwing


def test_decision3_a_player_not_held_owes_no_fine_even_at_a_limit_of_zero():
    game = Recorder([COMPETITOR, MONOPOLIST])
    core.begin_turn(game, tables(held_turns_before_forced_fine=0), 1)
    assert game.log == [("start_turn", 1)]


def test_decision3_doubles_release_a_held_player_who_moves_by_them_and_throws_again():
    # decision 3: doubles: move by that throw, and the normal extra throw follows
    hold = BOARD.hold_space
    game = Recorder([MONOPOLIST, COMPETITOR], held=[1, NOBODY], position=[hold, 0], pairs=[(3, 3)])
    core.roll(game, tables(), 0)
    assert game.log == [
        ("throw_pair", "doubles_attempt"),
        ("released_by_doubles", 0),
        ("note_throw", 6, 1),
        ("place", 0, hold + 6, "dice"),
        ("offer_title", 0, hold + 6),  # an unowned street
    ]


def test_decision3_no_doubles_the_held_player_stays_and_does_not_move():
    hold = BOARD.hold_space
    game = Recorder([COMPETITOR, MONOPOLIST], held=[0, NOBODY], position=[hold, 0], pairs=[(2, 5)])
    core.roll(game, tables(), 0)
    assert game.log == [("throw_pair", "doubles_attempt"), ("stays_held", 0), ("post_roll", 0)]
    assert game.position[0] == hold


@pytest.mark.parametrize(
    ("pair", "extra_throw", "due"),
    [((4, 4), False, 1), ((4, 4), True, 0), ((3, 5), False, 0)],
)
def test_decision2_doubles_give_one_extra_throw_but_not_on_the_extra_throw(pair, extra_throw, due):
    # decision 2: one extra throw; doubles on the extra throw give nothing more
    game = Recorder(
        [COMPETITOR, MONOPOLIST], position=[3, 0], pairs=[pair], extra_throw=extra_throw
    )
    core.roll(game, tables(), 0)
    assert game.log[:3] == [
        ("throw_pair", "move"),
        ("note_throw", 8, due),
        ("place", 0, 11, "dice"),
    ]


def test_decision2_after_the_move_the_extra_throw_due_is_thrown():
    game = Recorder([COMPETITOR, MONOPOLIST], extra_due=True)
    core.after_move(game, tables(), 0)
    assert game.log == [("extra_throw", 0)]


def test_decision3_a_player_sent_to_prison_on_the_move_throws_no_extra_throw():
    game = Recorder([MONOPOLIST, COMPETITOR], held=[0, NOBODY], extra_due=True)
    core.after_move(game, tables(), 0)
    assert game.log == [("post_roll", 0)]


def test_a_player_bankrupt_on_the_move_ends_the_turn():
    game = Recorder([MONOPOLIST, COMPETITOR, COMPETITOR], out={0}, extra_due=True)
    core.after_move(game, tables(), 0)
    assert game.log == [("start_turn", 1)]


@pytest.mark.parametrize(
    ("start", "end", "paid"),
    [(36, 0, True), (38, 5, True), (1, 5, False)],  # landing on START, passing it, neither
)
def test_start_payment_is_paid_on_landing_on_or_passing_start(start, end, paid):
    # the parameters' table: START pays `start_payment` on landing or passing, by card too
    game = Recorder([COMPETITOR, MONOPOLIST], position=[start, 0])
    core.move_to(game, tables(start_payment=250), 0, end, BY_CARD)
    pay = [("treasury_pays", 0, 250, START, 0)] if paid else []
    landing = [("after_move",)] if end == 0 else [("offer_title", 0, end)]
    assert game.log == [("place", 0, end, "card"), *pay, *landing]


def test_start_payment_of_zero_pays_nothing():
    game = Recorder([COMPETITOR, MONOPOLIST], position=[38, 0])
    core.move_to(game, tables(start_payment=0), 0, 5, BY_DICE)
    assert game.log == [("place", 0, 5, "dice"), ("offer_title", 0, 5)]


def test_the_next_player_still_in_plays_and_a_new_round_begins_past_the_last_seat():
    game = Recorder([COMPETITOR, MONOPOLIST, COMPETITOR], out={2}, round_number=4)
    core.next_turn(game, tables(round_cap=5), 1)
    assert game.log == [("new_round",), ("start_turn", 0)]
    assert game.round == 5


def test_decision12_once_the_round_cap_is_played_the_final_accounting_begins():
    # decision 12: the round cap reached, the game is settled by the final accounting, and
    # the round stays the last one played
    game = Recorder([COMPETITOR, MONOPOLIST], round_number=5)
    core.next_turn(game, tables(round_cap=5), 1)
    assert game.log == [("begin_final", "round_cap")]
    assert game.queue == [0, 1]


# -- the player's actions and their legality ---------------------------------------------------


class Board(Recorder):
    """A Recorder with buildings, mortgages, the supply, held seats, debts and a trade: what
    the actions and their legality read."""

    def __init__(self, roles, **kwargs):
        super().__init__(roles, **kwargs)
        n = len(BOARD.spaces)
        self.houses = [0] * n
        self.apartment = [0] * n
        self.mortgaged = [0] * n
        self.supply = [35, 15]
        self.held = set()
        self.debts = []
        self.then = 0
        self.raising = NOBODY
        self.trades = {}  # standing -> (partner, give, get, pay)

    def houses_on(self, space):
        return self.houses[space]

    def has_apartment(self, space):
        return self.apartment[space]

    def is_mortgaged(self, space):
        return self.mortgaged[space]

    def streets_held(self, p, city):
        streets = BOARD.cities[list(BOARD.cities)[city]]
        return sum(1 for s in streets if self.owner[s] == p and not self.mortgaged[s])

    def houses_left(self):
        return self.supply[0]

    def apartments_left(self):
        return self.supply[1]

    def seat_held(self, q):
        return int(q in self.held)

    def raiser(self):
        return self.raising

    def trade_partner(self, standing):
        return self.trades[standing][0]

    def trade_titles(self, standing, side):
        return len(self.trades[standing][1 + side])

    def trade_title(self, standing, side, i):
        return self.trades[standing][1 + side][i]

    def trade_pay(self, standing):
        return self.trades[standing][3]

    def builds(self, p, space, houses, apartment, cost):
        self.log.append(("builds", p, space, houses, apartment, cost))
        return 0

    def sells_building(self, p, space, houses, apartment, refund):
        self.log.append(("sells_building", p, space, houses, apartment, refund))
        return 0

    def mortgages(self, p, space, amount):
        self.log.append(("mortgages", p, space, amount))
        return 0

    def redeems(self, p, space, amount):
        self.log.append(("redeems", p, space, amount))
        return 0

    def tax_chosen(self, p, flat, percent, percent_chosen):
        self.log.append(("tax_chosen", p, flat, percent, percent_chosen))
        return 0

    def owes(self, debtor, creditor, amount, reason, space):
        super().owes(debtor, creditor, amount, reason, space)
        self.debts.append((debtor, creditor, amount))
        return 0

    def set_then(self, then):
        self.then = then
        return 0

    def take_then(self):
        then, self.then = self.then, 0
        return then

    def first_debtor(self):
        return self.debts[0][0] if self.debts else NOBODY

    def first_creditor(self):
        return self.debts[0][1]

    def first_debt(self):
        return self.debts[0][2]

    def pay_first_debt(self):
        debtor, _, amount = self.debts.pop(0)
        self.cash[debtor] -= amount
        self.log.append(("paid", debtor, amount))
        return 0

    def liquidation_of(self, p):
        return self.cash[p]

    def is_over(self):
        return 0

    def trade_proposed(self, p):
        self.log.append(("trade_proposed", p))
        self.trades[1] = self.trades[0]  # the trade weighed is the offer standing
        return 0

    def awaits_answer(self, q):
        self.log.append(("awaits_answer", q))
        return 0

    def end_adjusting(self):
        if not getattr(self, "adjusting", False):
            return 0
        self.log.append(("end_adjusting", self.queue.pop(0)))
        return 1

    def trade_answered(self, accepted):
        self.log.append(("trade_answered", accepted))
        return 0

    def transfer_title(self, space, to):
        self.log.append(("transfer_title", space, to))
        return 0

    def pays(self, payer, payee, amount, reason):
        self.log.append(("pays", payer, payee, amount, core.PAYMENTS[reason].value))
        return 0

    def current_seat(self):
        return 0


def refusal(code):
    return core.REFUSALS[core.refusal_code(code)]


CHICAGO = BOARD.cities["Chicago"]  # three streets, houses at $100
NEW_YORK = BOARD.cities["New York"]  # two streets


@pytest.mark.parametrize(
    ("role", "houses", "built"),
    [
        (COMPETITOR, 3, (4, 0)),
        (COMPETITOR, 4, (0, 1)),  # the fifth building is the apartment
        (MONOPOLIST, 2, (3, 0)),
        (MONOPOLIST, 3, (0, 1)),  # the fourth
    ],
)
def test_decision6_the_apartment_follows_the_role_maximum_of_houses(role, houses, built):
    # decision 6 and the rule parameters: 4 houses (Competitor) or 3 (Monopolist), then an
    # apartment in their place at one more house price
    game = Board([role, COMPETITOR])
    space = CHICAGO[0]
    game.owner[space] = 0
    game.houses[space] = houses
    core.build(game, tables(), 0, space)
    assert game.log == [("builds", 0, space, *built, 100)]


def test_decision5_a_monopolist_builds_only_while_the_city_is_monopolized():
    # decision 5: at least 2 unmortgaged streets of the city; a mortgaged one does not count
    game = Board([MONOPOLIST, COMPETITOR])
    t = tables()
    game.owner[CHICAGO[0]] = 0
    assert refusal(core.why_not_build(game, t, 0, CHICAGO[0])) == "no_monopoly"
    game.owner[CHICAGO[1]] = 0
    game.mortgaged[CHICAGO[1]] = 1
    assert refusal(core.why_not_build(game, t, 0, CHICAGO[0])) == "no_monopoly"
    game.mortgaged[CHICAGO[1]] = 0
    assert core.why_not_build(game, t, 0, CHICAGO[0]) == 0
    # a Competitor needs no monopoly
    game = Board([COMPETITOR, MONOPOLIST])
    game.owner[CHICAGO[0]] = 0
    assert core.why_not_build(game, t, 0, CHICAGO[0]) == 0


def test_decision6_building_needs_an_unmortgaged_street_the_supply_and_the_cash():
    game = Board([COMPETITOR, MONOPOLIST], cash=[99, 1000])
    t = tables()
    space = CHICAGO[0]
    game.owner[space] = 0
    assert refusal(core.why_not_build(game, t, 0, space)) == "short_of_cash"  # rule 26
    game.cash[0] = 100
    assert core.why_not_build(game, t, 0, space) == 0
    game.supply[0] = 0
    assert refusal(core.why_not_build(game, t, 0, space)) == "no_houses_left"
    assert core.why_not_build(game, tables(building_supply="unlimited"), 0, space) == 0
    game.houses[space] = 4  # the next building is the apartment: the houses do not matter
    assert core.why_not_build(game, t, 0, space) == 0
    game.supply[1] = 0
    assert refusal(core.why_not_build(game, t, 0, space)) == "no_apartments_left"
    game.mortgaged[space] = 1
    assert refusal(core.why_not_build(game, t, 0, space)) == "mortgaged"
    assert refusal(core.why_not_build(game, t, 0, BOARD.transports[0])) == "not_owner"
    game.owner[BOARD.transports[0]] = 0
    assert refusal(core.why_not_build(game, t, 0, BOARD.transports[0])) == "not_a_street"


def test_decision5_a_monopolist_may_not_mortgage_a_street_that_breaks_a_built_monopoly():
    game = Board([MONOPOLIST, COMPETITOR])
    t = tables()
    for space in CHICAGO[:2]:
        game.owner[space] = 0
    assert core.why_not_mortgage(game, t, 0, CHICAGO[1]) == 0  # no buildings: allowed
    game.houses[CHICAGO[0]] = 1
    assert refusal(core.why_not_mortgage(game, t, 0, CHICAGO[1])) == "breaks_monopoly"
    assert refusal(core.why_not_mortgage(game, t, 0, CHICAGO[0])) == "buildings_stand"
    game.owner[CHICAGO[2]] = 0  # a third street keeps the monopoly
    assert core.why_not_mortgage(game, t, 0, CHICAGO[1]) == 0


def test_decision7_mortgage_raises_half_the_price_and_redeeming_costs_55_percent():
    game = Board([COMPETITOR, MONOPOLIST], cash=[76, 1000])
    t = tables()
    space = CHICAGO[2]  # price $160
    game.owner[space] = 0
    core.mortgage(game, t, 0, space)
    assert game.log == [("mortgages", 0, space, 80)]
    game.mortgaged[space] = 1
    assert refusal(core.why_not_mortgage(game, t, 0, space)) == "already_mortgaged"
    assert refusal(core.why_not_redeem(game, t, 0, space)) == "short_of_cash"  # $88 due
    game.cash[0] = 88
    assert core.why_not_redeem(game, t, 0, space) == 0
    game.log.clear()
    core.redeem(game, t, 0, space)
    assert game.log == [("redeems", 0, space, 88)]


@pytest.mark.parametrize(("role", "refund"), [(COMPETITOR, 250), (MONOPOLIST, 200)])
def test_decision6_selling_an_apartment_leaves_the_street_bare_for_half_of_all_paid(role, refund):
    # half of 5 house prices (Competitor) or of 4 (Monopolist)
    game = Board([role, COMPETITOR])
    space = CHICAGO[0]
    game.owner[space] = 0
    game.apartment[space] = 1
    core.sell_building(game, tables(), 0, space)
    assert game.log == [("sells_building", 0, space, 0, 0, refund)]


def test_decision6_a_house_sells_back_for_half_its_cost():
    game = Board([COMPETITOR, MONOPOLIST])
    space = CHICAGO[0]
    game.owner[space] = 0
    game.houses[space] = 2
    core.sell_building(game, tables(), 0, space)
    assert game.log == [("sells_building", 0, space, 1, 0, 50)]


def test_decision9_raising_money_pays_the_debt_once_the_cash_is_there():
    game = Board([COMPETITOR, MONOPOLIST], cash=[30, 1000])
    t = tables()
    game.owner[BOARD.transports[0]] = 0
    game.debts.append((0, 1, 100))
    game.raising = 0
    game.then = core.THENS.index("after_move")
    core.mortgage(game, t, 0, BOARD.transports[0])  # raises $100 on the recorder's books
    assert ("paid", 0, 100) not in game.log  # $30: still short
    game.cash[0] = 130
    core.after_raise(game, t)
    assert game.log[-2:] == [("paid", 0, 100), ("after_move",)]


@pytest.mark.parametrize("percent_chosen", [0, 1])
def test_decision1_income_tax_owes_the_amount_chosen(percent_chosen):
    # Competitor: 10 % of cash + 10 % of unmortgaged titles at price + 10 % of improvements
    game = Board([COMPETITOR, MONOPOLIST], cash=[1000, 1000])
    t = tables()
    game.owner[CHICAGO[0]] = 0  # $140, 2 houses ($200)
    game.houses[CHICAGO[0]] = 2
    game.owner[CHICAGO[1]] = 0  # mortgaged: not counted
    game.mortgaged[CHICAGO[1]] = 1
    percent = (10 * 1000 + 10 * 140 + 10 * 200 + 50) // 100
    assert core.income_tax_percent(game, t, 0) == percent
    core.income_tax(game, t, 0, percent_chosen)
    amount = percent if percent_chosen else 200
    assert game.log == [
        ("tax_chosen", 0, 200, percent, percent_chosen),
        ("owes", 0, NOBODY, amount, "income_tax", BOARD.income_tax_space),
        ("paid", 0, amount),
        ("after_move",),
    ]


def test_decision3_only_a_held_player_pays_the_fine_and_only_from_cash():
    game = Board([COMPETITOR, MONOPOLIST], cash=[49, 1000])
    t = tables()
    assert refusal(core.why_not_pay_fine(game, t, 0)) == "not_held"
    game.held.add(0)
    assert refusal(core.why_not_pay_fine(game, t, 0)) == "short_of_cash"
    game.cash[0] = 50
    assert core.why_not_pay_fine(game, t, 0) == 0


def test_decision12_only_the_two_hour_game_is_ended_by_the_clock():
    game = Board([COMPETITOR, MONOPOLIST])
    assert refusal(core.why_not_end_game(game, tables())) == "not_two_hour"
    game.two_hour = True
    assert core.why_not_end_game(game, tables()) == 0


@pytest.mark.parametrize("game_type", ["A", "B", "two-hour"])
def test_decision12_a_game_offers_end_game_exactly_when_it_is_the_two_hour_game(game_type):
    # the engine's legal choices ask the core's legality; the kernel's list for the random
    # bot is held to the engine's by tests/test_core.py's frame comparisons
    game = Game.new([("Ana", "competitor"), ("Ben", "monopolist")], seed=3, game=game_type)
    kinds = {choice.kind for choice in game.legal_choices()}
    assert ("end_game" in kinds) == (game_type == "two-hour")
    assert game.is_legal(Choice("end_game")) == (game_type == "two-hour")


def trade(game, partner, give=(), get=(), pay=0, standing=0):
    game.trades[standing] = (partner, list(give), list(get), pay)


def test_rule23_a_proposed_trade_stands_until_its_partner_answers():
    game = Board([COMPETITOR, MONOPOLIST, COMPETITOR])
    trade(game, 2, give=[CHICAGO[0]], pay=40)
    core.propose_trade(game, tables(), 0)
    assert game.log == [("trade_proposed", 0), ("awaits_answer", 2)]


def test_decision12_a_turn_ended_in_the_final_accounting_passes_to_the_next_adjuster():
    game = Board([COMPETITOR, MONOPOLIST])
    game.adjusting, game.queue = True, [0, 1]
    core.end_turn(game, tables(), 0)
    assert game.log == [("end_adjusting", 0)]  # player 1 adjusts next: no turn, no settlement
    assert game.queue == [1]
    playing = Recorder([COMPETITOR, MONOPOLIST])  # outside it, the next seat's turn
    core.end_turn(playing, tables(), 0)
    assert ("start_turn", 1) in playing.log


def test_decision8_a_trade_lists_titles_each_once_bare_and_owned_by_its_side():
    game = Board([COMPETITOR, MONOPOLIST, COMPETITOR], cash=[100, 100, 100])
    t = tables()
    game.owner[CHICAGO[0]] = 0
    game.owner[NEW_YORK[0]] = 1
    trade(game, 1, pay=50)
    assert refusal(core.why_not_trade(game, t, 0)) == "no_titles"  # cash alone: a loan
    trade(game, 0, give=[CHICAGO[0]])
    assert refusal(core.why_not_trade(game, t, 0)) == "no_partner"
    game.out.add(2)
    trade(game, 2, give=[CHICAGO[0]])
    assert refusal(core.why_not_trade(game, t, 0)) == "no_partner"
    trade(game, 1, give=[CHICAGO[0], CHICAGO[0]])
    assert refusal(core.why_not_trade(game, t, 0)) == "listed_twice"
    trade(game, 1, give=[CHICAGO[0]], get=[NEW_YORK[0], CHICAGO[1]])
    code = core.why_not_trade(game, t, 0)
    assert refusal(code) == "trade_not_owner"
    assert core.refused_at(code) == 2 * 1 + 1  # the second title asked for
    game.houses[CHICAGO[0]] = 1
    trade(game, 1, give=[CHICAGO[0]], get=[NEW_YORK[0]])
    code = core.why_not_trade(game, t, 0)
    assert refusal(code) == "trade_buildings"
    assert core.refused_at(code) == 0
    game.houses[CHICAGO[0]] = 0
    assert core.why_not_trade(game, t, 0) == 0
    trade(game, 1, give=[CHICAGO[0]], get=[NEW_YORK[0]], pay=101)
    assert refusal(core.why_not_trade(game, t, 0)) == "proposer_short"  # rule 26
    trade(game, 1, give=[CHICAGO[0]], get=[NEW_YORK[0]], pay=-101)
    assert refusal(core.why_not_trade(game, t, 0)) == "partner_short"


def test_decision5_a_trade_may_not_break_a_monopolists_built_monopoly():
    game = Board([COMPETITOR, MONOPOLIST])
    t = tables()
    for space in CHICAGO[:2]:
        game.owner[space] = 1
    game.houses[CHICAGO[0]] = 1
    trade(game, 1, get=[CHICAGO[1]])
    code = core.why_not_trade(game, t, 0)
    assert refusal(code) == "trade_breaks_monopoly"
    assert core.refused_at(code) == 1  # the first title asked for, on the partner's side


def test_rule23_an_accepted_trade_moves_the_titles_and_the_cash():
    game = Board([COMPETITOR, MONOPOLIST])
    trade(game, 1, give=[CHICAGO[0]], get=[NEW_YORK[0]], pay=-30, standing=1)
    core.answer_trade(game, tables(), 1)
    assert game.log == [
        ("trade_answered", 1),
        ("transfer_title", CHICAGO[0], 1),
        ("transfer_title", NEW_YORK[0], 0),
        ("pays", 1, 0, 30, "trade"),  # a negative pay: the partner pays
    ]
    game.log.clear()
    core.answer_trade(game, tables(), 0)
    assert game.log == [("trade_answered", 0)]  # declined: nothing moves
