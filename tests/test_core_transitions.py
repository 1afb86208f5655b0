"""The transitions written once in the rules core (`amteach.engine.core`), driven on a real
`core.State` with no `Game` and no kernel in between: each test sets up a position on the state
(`State.reset`, `place_seat`, `place_title`, `State.poke` for what no set-up can say), runs one
transition, and reads what happened from the records the steps tell the state's sink
(`core.NOTES`) and from the state itself. `Game` and the kernel's `G` run the same transitions
on the same `State` (tests/test_core.py compares their frames; the rules tests play `Game`);
these tests pin the decisions the transitions take where no rules test did."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from state_edit import poke

from amteach.engine.board import COMPETITOR, MONOPOLIST, standard_board
from amteach.engine.builds import rules_core
from amteach.engine.choices import Choice
from amteach.engine.game import Game
from amteach.engine.rules import RuleSet
from amteach.engine.terms import NOBODY, PaymentReason, Phase
from amteach.sim import core as sim_core

core = rules_core()
BOARD = standard_board()
NO_SPACE = -1  # a payment tied to no space (core.NO_SPACE, a C int when compiled)
HOLD = BOARD.hold_space
CHICAGO = BOARD.cities["Chicago"]  # three streets, houses at $100
NEW_YORK = BOARD.cities["New York"]  # two streets
# the phases' codes (core.PRE_ROLL, ... are C ints when compiled)
PRE_ROLL, BUY, RAISE, POST_ROLL, TRADE_ANSWER, FINAL_ADJUST, OVER = (
    core.PHASES.index(phase)
    for phase in (
        Phase.PRE_ROLL,
        Phase.BUY,
        Phase.RAISE,
        Phase.POST_ROLL,
        Phase.TRADE_ANSWER,
        Phase.FINAL_ADJUST,
        Phase.OVER,
    )
)


def tables(**rules):
    return core.tables(BOARD, RuleSet.preset("default", **rules))


def readable(name, numbers):
    """A record as a test reads it: codes given by their names."""
    numbers = list(numbers)
    if name == "payment":
        numbers[3] = core.PAYMENTS[numbers[3]].value
    elif name == "dice":
        numbers[0] = core.THROWS[numbers[0]]
    elif name == "moved":
        numbers[3] = core.MOVES[numbers[3]]
    elif name in ("game_over", "final_accounting"):
        numbers[-1] = core.ENDINGS[numbers[-1]]
    return (name, *numbers)


class Play:
    """A real `core.State` of a few seats on the standard board, and the records its steps
    told the sink, in order (`log`)."""

    def __init__(
        self,
        roles,
        t=None,
        cash=None,
        out=(),
        game_type="A",
        held=None,
        position=None,
        dice=(),
        round_number=1,
    ):
        self.t = t if t is not None else tables()
        self.state = state = core.State()
        state.reset(self.t, list(roles), core.GAME_TYPES.index(game_type), 1)
        for p in range(len(roles)):
            state.place_seat(
                p,
                (cash or [1000] * len(roles))[p],
                (position or [0] * len(roles))[p],
                (held or [NOBODY] * len(roles))[p],
            )
        for p in out:
            state.poke("bankrupt", p, 1)
        state.round = round_number
        self.dice = [tuple(d) for d in dice]
        state.forced = lambda count: self.dice.pop(0) if self.dice else None
        self.log = []
        state.sink = lambda code, *numbers: self.log.append(readable(core.NOTES[code], numbers))

    def own(self, space, p, houses=0, apartment=0, mortgaged=0):
        self.state.place_title(space, p, houses, apartment, mortgaged)

    def owner(self, space):
        return self.state.space_value(core.SPACE_FIELDS.index("owner"), space)

    def seat(self, field, p):
        return self.state.seat_value(core.SEAT_FIELDS.index(field), p)

    def space(self, field, space):
        return self.state.space_value(core.SPACE_FIELDS.index(field), space)


START = PaymentReason.START.value
BY_DICE = core.MOVES.index("dice")
BY_CARD = core.MOVES.index("card")


# -- the landings and the end of the game ----------------------------------------------------


def test_foundation_a_monopolist_owes_nothing_when_the_fee_is_zero():
    # seed rules, the Foundation: a Monopolist pays the fee; at a fee of 0 no debt is queued
    # and the turn goes on at once
    play = Play([MONOPOLIST, COMPETITOR], t=tables(foundation_monopolist_fee=0))
    core.land(play.state, play.t, 0, BOARD.foundation_space)
    assert play.log == []
    assert play.state.debt_count == 0
    assert (play.state.phase, play.seat("cash", 0)) == (POST_ROLL, 1000)


def test_foundation_a_monopolist_owes_the_fee_as_a_debt():
    play = Play([MONOPOLIST, COMPETITOR], t=tables(foundation_monopolist_fee=15))
    space = BOARD.foundation_space
    core.land(play.state, play.t, 0, space)
    # the debt is queued and settled at once (the cash is there), then the turn goes on
    assert play.log == [("payment", 0, NOBODY, 15, "foundation_fee", space, 0)]
    assert (play.state.phase, play.seat("cash", 0)) == (POST_ROLL, 985)


@pytest.mark.parametrize("face", [3, 4, 5, 6])
def test_foundation_a_competitor_throwing_a_face_without_a_prize_is_paid_nothing(face):
    # seed rules: 1 = collect $25, 2 = collect $50, otherwise nothing (no payment at all)
    play = Play([COMPETITOR, MONOPOLIST], dice=[(face,)])
    core.land(play.state, play.t, 0, BOARD.foundation_space)
    assert play.log == [("dice", "foundation", (face,))]
    assert (play.state.phase, play.seat("cash", 0)) == (POST_ROLL, 1000)


def test_game_a_ends_when_one_player_is_left():
    play = Play([COMPETITOR, MONOPOLIST, COMPETITOR], out={0, 1})
    core.check_end(play.state, play.t)
    assert play.log == [("game_over", 2, "game_a")]
    assert (play.state.phase, play.state.winner) == (OVER, 2)


def test_game_a_goes_on_while_two_players_are_left():
    play = Play([COMPETITOR, MONOPOLIST, COMPETITOR], out={0})
    core.check_end(play.state, play.t)
    assert play.log == []
    assert play.state.phase == PRE_ROLL


def test_rule25_game_b_ends_when_one_role_is_left_and_a_tie_goes_to_the_first_seat():
    # Game B: the richest Competitor once the Monopolists are out (rule 25's score: cash, and
    # no titles here); equal scores: the first seat
    play = Play(
        [MONOPOLIST, COMPETITOR, COMPETITOR, MONOPOLIST],
        cash=[0, 700, 700, 0],
        out={0, 3},
        game_type="B",
    )
    core.check_end(play.state, play.t)
    assert play.log == [("game_over", 1, "game_b")]


def test_rule25_game_b_goes_on_while_both_roles_are_in():
    play = Play([MONOPOLIST, COMPETITOR, COMPETITOR], out={2}, game_type="B")
    core.check_end(play.state, play.t)
    assert play.log == []


def test_decision12_the_settlement_keeps_the_role_percentage_rounded_down():
    # Competitors keep 10 %, Monopolists 20 %, rounded down; the rest goes to the Treasury
    play = Play([COMPETITOR, MONOPOLIST], cash=[999, 999])
    core.start_final(play.state, play.t, core.ENDINGS.index("two_hour"))
    core.end_turn(play.state, play.t, 0)  # each player adjusts, then the settlement
    play.log.clear()
    core.end_turn(play.state, play.t, 1)
    settlement = PaymentReason.SETTLEMENT.value
    assert play.log == [
        ("payment", 0, NOBODY, 900, settlement, NO_SPACE, 10),
        ("payment", 1, NOBODY, 800, settlement, NO_SPACE, 20),
        ("game_over", 1, "two_hour"),
    ]


def test_decision12_most_cash_wins_and_a_tie_goes_to_the_first_seat():
    play = Play([MONOPOLIST, COMPETITOR, MONOPOLIST], cash=[500, 1000, 500], out={1})
    core.start_final(play.state, play.t, core.ENDINGS.index("round_cap"))
    assert play.state.adjusters() == [0, 2]  # the players still in adjust, in seat order
    core.end_turn(play.state, play.t, 0)
    core.end_turn(play.state, play.t, 2)
    assert play.log[-1] == ("game_over", 0, "round_cap")


def test_decision9_owed_to_a_player_already_out_the_titles_return_to_the_treasury():
    # decision 9: owed to the Treasury, titles return to it; a creditor who is already out of
    # the game takes nothing either, so the Treasury stands in for it
    play = Play([COMPETITOR, MONOPOLIST, COMPETITOR], out={1})
    titles = BOARD.titles[:2]
    play.own(titles[0], 0, houses=2)
    play.own(titles[1], 0, mortgaged=1)
    core.go_bankrupt(play.state, play.t, 0, 1, 300)
    refund = core.buildings_refund(play.t, titles[0], COMPETITOR, 2, False)
    assert play.log == [
        ("bankrupt", 0, NOBODY, 300, 1000 + refund, tuple(titles)),
        ("game_over", 2, "game_a"),  # one player is left
    ]
    assert [play.owner(space) for space in titles] == [NOBODY, NOBODY]
    assert not play.space("mortgaged", titles[1])  # back to the Treasury unmortgaged
    assert play.space("houses", titles[0]) == 0  # the buildings went back first


def test_decision9_a_bankrupt_hands_cash_and_titles_to_the_player_owed():
    play = Play([COMPETITOR, MONOPOLIST, COMPETITOR, MONOPOLIST])
    play.own(BOARD.titles[0], 2, mortgaged=1)
    core.go_bankrupt(play.state, play.t, 2, 3, 80)
    assert play.log == [("bankrupt", 2, 3, 80, 1000, (BOARD.titles[0],))]
    assert play.owner(BOARD.titles[0]) == 3
    assert play.space("mortgaged", BOARD.titles[0])  # a mortgaged title is handed over as it is
    assert (play.seat("cash", 2), play.seat("cash", 3)) == (0, 2000)
    assert play.state.phase != OVER  # three players left: the game goes on


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


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_decision3_held_the_set_number_of_turns_the_fine_is_owed_as_the_turn_begins(limit):
    # decision 3: at the start of the turn after `held_turns_before_forced_fine` turns held,
    # the fine is owed (a debt: paid, it releases the player; then the turn goes on)
    t = tables(held_turns_before_forced_fine=limit, fine=70)
    play = Play([COMPETITOR, MONOPOLIST], t=t, held=[limit, NOBODY], position=[HOLD, 0])
    core.begin_turn(play.state, t, 0)
    assert play.log == [
        ("turn_started", 0, 1),
        ("payment", 0, NOBODY, 70, PaymentReason.FINE.value, NO_SPACE, 0),
        ("left_hold", 0, 0),
    ]
    assert (play.state.phase, play.state.actor) == (PRE_ROLL, 0)  # then p throws


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_decision3_held_fewer_turns_the_player_decides_before_throwing(limit):
    # decision 3: on the turns before that, the player may pay or try for doubles
    t = tables(held_turns_before_forced_fine=limit, fine=70)
    play = Play([COMPETITOR, MONOPOLIST], t=t, held=[limit - 1, NOBODY], position=[HOLD, 0])
    core.begin_turn(play.state, t, 0)
    assert play.log == [("turn_started", 0, 1)]  # and p decides before throwing
    assert play.seat("held", 0) == limit - 1


def test_decision3_a_player_not_held_owes_no_fine_even_at_a_limit_of_zero():
    t = tables(held_turns_before_forced_fine=0)
    play = Play([COMPETITOR, MONOPOLIST], t=t)
    core.begin_turn(play.state, t, 1)
    assert play.log == [("turn_started", 1, 1)]


def test_decision3_doubles_release_a_held_player_who_moves_by_them_and_throws_again():
    # decision 3: doubles: move by that throw, and the normal extra throw follows
    play = Play([MONOPOLIST, COMPETITOR], held=[1, NOBODY], position=[HOLD, 0], dice=[(3, 3)])
    core.roll(play.state, play.t, 0)
    assert play.log == [
        ("dice", "doubles_attempt", (3, 3)),
        ("left_hold", 0, 1),
        ("moved", 0, HOLD, HOLD + 6, "dice"),
    ]
    # an unowned street: offered, and the extra throw is due after it
    assert (play.state.phase, play.state.pending_buy) == (BUY, HOLD + 6)
    assert play.state.extra_pending


def test_decision3_no_doubles_the_held_player_stays_and_does_not_move():
    play = Play([COMPETITOR, MONOPOLIST], held=[0, NOBODY], position=[HOLD, 0], dice=[(2, 5)])
    core.roll(play.state, play.t, 0)
    assert play.log == [("dice", "doubles_attempt", (2, 5)), ("stayed_held", 0, 1)]
    assert play.seat("position", 0) == HOLD
    assert play.state.phase == POST_ROLL


@pytest.mark.parametrize(
    ("pair", "extra_throw", "due"),
    [((4, 4), False, 1), ((4, 4), True, 0), ((3, 5), False, 0)],
)
def test_decision2_doubles_give_one_extra_throw_but_not_on_the_extra_throw(pair, extra_throw, due):
    # decision 2: one extra throw; doubles on the extra throw give nothing more
    play = Play([COMPETITOR, MONOPOLIST], position=[3, 0], dice=[pair])
    play.state.is_extra = extra_throw
    core.roll(play.state, play.t, 0)
    assert play.log[:2] == [("dice", "move", pair), ("moved", 0, 3, 11, "dice")]
    assert play.state.extra_pending == bool(due)


def test_decision2_after_the_move_the_extra_throw_due_is_thrown():
    play = Play([COMPETITOR, MONOPOLIST])
    play.state.extra_pending = True
    core.after_move(play.state, play.t, 0)
    assert (play.state.phase, play.state.actor) == (PRE_ROLL, 0)
    assert play.state.is_extra and not play.state.extra_pending


def test_decision3_a_player_sent_to_prison_on_the_move_throws_no_extra_throw():
    play = Play([MONOPOLIST, COMPETITOR], held=[0, NOBODY], position=[HOLD, 0])
    play.state.extra_pending = True
    core.after_move(play.state, play.t, 0)
    assert (play.state.phase, play.state.actor) == (POST_ROLL, 0)
    assert not play.state.is_extra


def test_a_player_bankrupt_on_the_move_ends_the_turn():
    play = Play([MONOPOLIST, COMPETITOR, COMPETITOR], out={0})
    play.state.extra_pending = True
    core.after_move(play.state, play.t, 0)
    assert play.log == [("turn_started", 1, 1)]


@pytest.mark.parametrize(
    ("start", "end", "paid"),
    [(36, 0, True), (38, 5, True), (1, 5, False)],  # landing on START, passing it, neither
)
def test_start_payment_is_paid_on_landing_on_or_passing_start(start, end, paid):
    # the parameters' table: START pays `start_payment` on landing or passing, by card too
    t = tables(start_payment=250)
    play = Play([COMPETITOR, MONOPOLIST], t=t, position=[start, 0])
    core.move_to(play.state, t, 0, end, BY_CARD)
    pay = [("payment", NOBODY, 0, 250, START, 0, 0)] if paid else []
    assert play.log == [("moved", 0, start, end, "card"), *pay]
    assert play.seat("cash", 0) == 1000 + (250 if paid else 0)
    # START itself is no title; space 5 is offered
    assert play.state.phase == (POST_ROLL if end == 0 else BUY)


def test_start_payment_of_zero_pays_nothing():
    t = tables(start_payment=0)
    play = Play([COMPETITOR, MONOPOLIST], t=t, position=[38, 0])
    core.move_to(play.state, t, 0, 5, BY_DICE)
    assert play.log == [("moved", 0, 38, 5, "dice")]
    assert (play.seat("cash", 0), play.state.phase) == (1000, BUY)


def test_the_next_player_still_in_plays_and_a_new_round_begins_past_the_last_seat():
    t = tables(round_cap=5)
    play = Play([COMPETITOR, MONOPOLIST, COMPETITOR], t=t, out={2}, round_number=4)
    core.next_turn(play.state, t, 1)
    assert play.log == [("turn_started", 0, 5)]
    assert play.state.round == 5


def test_decision12_once_the_round_cap_is_played_the_final_accounting_begins():
    # decision 12: the round cap reached, the game is settled by the final accounting, and
    # the round stays the last one played
    t = tables(round_cap=5)
    play = Play([COMPETITOR, MONOPOLIST], t=t, round_number=5)
    core.next_turn(play.state, t, 1)
    assert play.log == [("final_accounting", "round_cap")]
    assert play.state.adjusters() == [0, 1]
    assert (play.state.phase, play.state.actor) == (FINAL_ADJUST, 0)
    assert play.state.round == 5


# -- the player's actions and their legality ---------------------------------------------------


def refusal(code):
    return core.REFUSALS[core.refusal_code(code)]


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
    play = Play([role, COMPETITOR])
    space = CHICAGO[0]
    play.own(space, 0, houses=houses)
    core.build(play.state, play.t, 0, space)
    assert play.log == [("built", 0, space, built[1], 100)]
    assert (play.space("houses", space), play.space("apartment", space)) == (built[0], built[1])
    assert play.seat("cash", 0) == 900


def test_decision5_a_monopolist_builds_only_while_the_city_is_monopolized():
    # decision 5: at least 2 unmortgaged streets of the city; a mortgaged one does not count
    play = Play([MONOPOLIST, COMPETITOR])
    state, t = play.state, play.t
    play.own(CHICAGO[0], 0)
    assert refusal(core.why_not_build(state, t, 0, CHICAGO[0])) == "no_monopoly"
    play.own(CHICAGO[1], 0, mortgaged=1)
    assert refusal(core.why_not_build(state, t, 0, CHICAGO[0])) == "no_monopoly"
    play.own(CHICAGO[1], 0)
    assert core.why_not_build(state, t, 0, CHICAGO[0]) == 0
    # a Competitor needs no monopoly
    play = Play([COMPETITOR, MONOPOLIST])
    play.own(CHICAGO[0], 0)
    assert core.why_not_build(play.state, t, 0, CHICAGO[0]) == 0


def test_decision6_building_needs_an_unmortgaged_street_the_supply_and_the_cash():
    play = Play([COMPETITOR, MONOPOLIST], cash=[99, 1000])
    state, t = play.state, play.t
    space = CHICAGO[0]
    play.own(space, 0)
    assert refusal(core.why_not_build(state, t, 0, space)) == "short_of_cash"  # rule 26
    state.poke("cash", 0, 100)
    assert core.why_not_build(state, t, 0, space) == 0
    state.supply_houses = 0
    assert refusal(core.why_not_build(state, t, 0, space)) == "no_houses_left"
    assert core.why_not_build(state, tables(building_supply="unlimited"), 0, space) == 0
    state.poke("houses", space, 4)  # the next building is the apartment: no house needed
    assert core.why_not_build(state, t, 0, space) == 0
    state.supply_apartments = 0
    assert refusal(core.why_not_build(state, t, 0, space)) == "no_apartments_left"
    state.poke("mortgaged", space, 1)
    assert refusal(core.why_not_build(state, t, 0, space)) == "mortgaged"
    assert refusal(core.why_not_build(state, t, 0, BOARD.transports[0])) == "not_owner"
    play.own(BOARD.transports[0], 0)
    assert refusal(core.why_not_build(state, t, 0, BOARD.transports[0])) == "not_a_street"


def test_decision5_a_monopolist_may_not_mortgage_a_street_that_breaks_a_built_monopoly():
    play = Play([MONOPOLIST, COMPETITOR])
    state, t = play.state, play.t
    for space in CHICAGO[:2]:
        play.own(space, 0)
    assert core.why_not_mortgage(state, t, 0, CHICAGO[1]) == 0  # no buildings: allowed
    play.own(CHICAGO[0], 0, houses=1)
    assert refusal(core.why_not_mortgage(state, t, 0, CHICAGO[1])) == "breaks_monopoly"
    assert refusal(core.why_not_mortgage(state, t, 0, CHICAGO[0])) == "buildings_stand"
    play.own(CHICAGO[2], 0)  # a third street keeps the monopoly
    assert core.why_not_mortgage(state, t, 0, CHICAGO[1]) == 0


def test_decision7_mortgage_raises_half_the_price_and_redeeming_costs_55_percent():
    play = Play([COMPETITOR, MONOPOLIST], cash=[76, 1000])
    state, t = play.state, play.t
    space = CHICAGO[2]  # price $160
    play.own(space, 0)
    core.mortgage(state, t, 0, space)
    assert play.log == [("mortgaged", 0, space, 80)]
    assert play.space("mortgaged", space) and play.seat("cash", 0) == 156
    assert refusal(core.why_not_mortgage(state, t, 0, space)) == "already_mortgaged"
    state.poke("cash", 0, 87)
    assert refusal(core.why_not_redeem(state, t, 0, space)) == "short_of_cash"  # $88 due
    state.poke("cash", 0, 88)
    assert core.why_not_redeem(state, t, 0, space) == 0
    play.log.clear()
    core.redeem(state, t, 0, space)
    assert play.log == [("redeemed", 0, space, 88)]
    assert not play.space("mortgaged", space) and play.seat("cash", 0) == 0


@pytest.mark.parametrize(("role", "refund"), [(COMPETITOR, 250), (MONOPOLIST, 200)])
def test_decision6_selling_an_apartment_leaves_the_street_bare_for_half_of_all_paid(role, refund):
    # half of 5 house prices (Competitor) or of 4 (Monopolist)
    play = Play([role, COMPETITOR])
    space = CHICAGO[0]
    play.own(space, 0, apartment=1)
    core.sell_building(play.state, play.t, 0, space)
    assert play.log == [("building_sold", 0, space, 1, refund)]
    assert (play.space("houses", space), play.space("apartment", space)) == (0, False)


def test_decision6_a_house_sells_back_for_half_its_cost():
    play = Play([COMPETITOR, MONOPOLIST])
    space = CHICAGO[0]
    play.own(space, 0, houses=2)
    core.sell_building(play.state, play.t, 0, space)
    assert play.log == [("building_sold", 0, space, 0, 50)]
    assert play.space("houses", space) == 1


def test_decision9_raising_money_pays_the_debt_once_the_cash_is_there():
    # a $180 property tax on $30 of cash: two transports' mortgages could raise it, so the
    # player raises money (decision 9); the debt is paid as soon as the cash is there
    t = tables(property_tax=180)
    play = Play([COMPETITOR, MONOPOLIST], t=t, cash=[30, 1000])
    state = play.state
    first, second = BOARD.transports[:2]
    play.own(first, 0)
    play.own(second, 0)
    space = BOARD.property_tax_space
    core.land(state, t, 0, space)
    assert play.log == [("must_raise", 0, NOBODY, 180, 30)]
    assert (state.phase, state.actor) == (RAISE, 0)
    core.mortgage(state, t, 0, first)
    assert play.seat("cash", 0) == 30 + core.mortgage_value(t, first) < 180
    assert state.phase == RAISE  # still short: the debt waits
    play.log.clear()
    core.mortgage(state, t, 0, second)
    tax = PaymentReason.PROPERTY_TAX.value
    assert play.log == [
        ("mortgaged", 0, second, core.mortgage_value(t, second)),
        ("payment", 0, NOBODY, 180, tax, space, 0),
    ]
    assert state.phase == POST_ROLL  # and the move goes on


@pytest.mark.parametrize("percent_chosen", [0, 1])
def test_decision1_income_tax_owes_the_amount_chosen(percent_chosen):
    # Competitor: 10 % of cash + 10 % of unmortgaged titles at price + 10 % of improvements
    play = Play([COMPETITOR, MONOPOLIST], cash=[1000, 1000])
    state, t = play.state, play.t
    play.own(CHICAGO[0], 0, houses=2)  # $140, 2 houses ($200)
    play.own(CHICAGO[1], 0, mortgaged=1)  # mortgaged: not counted
    percent = (10 * 1000 + 10 * 140 + 10 * 200 + 50) // 100
    assert core.income_tax_percent(state, t, 0) == percent
    core.income_tax(state, t, 0, percent_chosen)
    amount = percent if percent_chosen else 200
    tax = PaymentReason.INCOME_TAX.value
    assert play.log == [
        ("tax_chosen", 0, percent_chosen),
        ("payment", 0, NOBODY, amount, tax, BOARD.income_tax_space, 0),
    ]
    assert (state.last_tax_flat, state.last_tax_percent) == (200, percent)
    assert (play.seat("cash", 0), state.phase) == (1000 - amount, POST_ROLL)


def test_decision3_only_a_held_player_pays_the_fine_and_only_from_cash():
    play = Play([COMPETITOR, MONOPOLIST], cash=[49, 1000])
    state, t = play.state, play.t
    assert refusal(core.why_not_pay_fine(state, t, 0)) == "not_held"
    state.place_seat(0, 49, HOLD, 0)
    assert refusal(core.why_not_pay_fine(state, t, 0)) == "short_of_cash"
    state.poke("cash", 0, 50)
    assert core.why_not_pay_fine(state, t, 0) == 0


def test_decision12_only_the_two_hour_game_is_ended_by_the_clock():
    play = Play([COMPETITOR, MONOPOLIST])
    assert refusal(core.why_not_end_game(play.state, play.t)) == "not_two_hour"
    play = Play([COMPETITOR, MONOPOLIST], game_type="two-hour")
    assert core.why_not_end_game(play.state, play.t) == 0


@pytest.mark.parametrize("game_type", ["A", "B", "two-hour"])
def test_decision12_a_game_offers_end_game_exactly_when_it_is_the_two_hour_game(game_type):
    # the engine's legal choices ask the core's legality; the kernel's list for the random
    # bot is held to the engine's by tests/test_core.py's frame comparisons
    game = Game.new([("Ana", "competitor"), ("Ben", "monopolist")], seed=3, game=game_type)
    kinds = {choice.kind for choice in game.legal_choices()}
    assert ("end_game" in kinds) == (game_type == "two-hour")
    assert game.is_legal(Choice("end_game")) == (game_type == "two-hour")


def weigh(play, partner, give=(), get=(), pay=0):
    """The trade the actor weighs (`State.proposal`)."""
    play.state.proposal.fill(partner, list(give), list(get), pay)


def test_rule23_a_proposed_trade_stands_until_its_partner_answers():
    play = Play([COMPETITOR, MONOPOLIST, COMPETITOR])
    play.own(CHICAGO[0], 0)
    weigh(play, 2, give=[CHICAGO[0]], pay=40)
    core.propose_trade(play.state, play.t, 0)
    assert play.log == [("trade_proposed", 0)]
    assert (play.state.phase, play.state.actor) == (TRADE_ANSWER, 2)
    assert play.state.offer.other == 2
    assert play.owner(CHICAGO[0]) == 0  # nothing moves before the answer


def test_decision12_a_turn_ended_in_the_final_accounting_passes_to_the_next_adjuster():
    play = Play([COMPETITOR, MONOPOLIST])
    core.start_final(play.state, play.t, core.ENDINGS.index("two_hour"))
    play.log.clear()
    core.end_turn(play.state, play.t, 0)
    assert play.log == []  # player 1 adjusts next: no turn, no settlement
    assert play.state.adjusters() == [1]
    assert (play.state.phase, play.state.actor) == (FINAL_ADJUST, 1)
    playing = Play([COMPETITOR, MONOPOLIST])  # outside it, the next seat's turn
    core.end_turn(playing.state, playing.t, 0)
    assert playing.log == [("turn_started", 1, 1)]


def test_decision8_a_trade_lists_titles_each_once_bare_and_owned_by_its_side():
    play = Play([COMPETITOR, MONOPOLIST, COMPETITOR], cash=[100, 100, 100])
    state, t = play.state, play.t
    play.own(CHICAGO[0], 0)
    play.own(NEW_YORK[0], 1)
    weigh(play, 1, pay=50)
    assert refusal(core.why_not_trade(state, t, 0)) == "no_titles"  # cash alone: a loan
    weigh(play, 0, give=[CHICAGO[0]])
    assert refusal(core.why_not_trade(state, t, 0)) == "no_partner"
    state.poke("bankrupt", 2, 1)
    weigh(play, 2, give=[CHICAGO[0]])
    assert refusal(core.why_not_trade(state, t, 0)) == "no_partner"
    weigh(play, 1, give=[CHICAGO[0], CHICAGO[0]])
    assert refusal(core.why_not_trade(state, t, 0)) == "listed_twice"
    weigh(play, 1, give=[CHICAGO[0]], get=[NEW_YORK[0], CHICAGO[1]])
    code = core.why_not_trade(state, t, 0)
    assert refusal(code) == "trade_not_owner"
    assert core.refused_at(code) == 2 * 1 + 1  # the second title asked for
    state.poke("houses", CHICAGO[0], 1)
    weigh(play, 1, give=[CHICAGO[0]], get=[NEW_YORK[0]])
    code = core.why_not_trade(state, t, 0)
    assert refusal(code) == "trade_buildings"
    assert core.refused_at(code) == 0
    state.poke("houses", CHICAGO[0], 0)
    assert core.why_not_trade(state, t, 0) == 0
    weigh(play, 1, give=[CHICAGO[0]], get=[NEW_YORK[0]], pay=101)
    assert refusal(core.why_not_trade(state, t, 0)) == "proposer_short"  # rule 26
    weigh(play, 1, give=[CHICAGO[0]], get=[NEW_YORK[0]], pay=-101)
    assert refusal(core.why_not_trade(state, t, 0)) == "partner_short"


def test_decision5_a_trade_may_not_break_a_monopolists_built_monopoly():
    play = Play([COMPETITOR, MONOPOLIST])
    play.own(CHICAGO[0], 1, houses=1)
    play.own(CHICAGO[1], 1)
    weigh(play, 1, get=[CHICAGO[1]])
    code = core.why_not_trade(play.state, play.t, 0)
    assert refusal(code) == "trade_breaks_monopoly"
    assert core.refused_at(code) == 1  # the first title asked for, on the partner's side


def test_rule23_an_accepted_trade_moves_the_titles_and_the_cash():
    play = Play([COMPETITOR, MONOPOLIST])
    play.own(CHICAGO[0], 0)
    play.own(NEW_YORK[0], 1)
    play.state.offer.fill(1, [CHICAGO[0]], [NEW_YORK[0]], -30)
    core.answer_trade(play.state, play.t, 1)
    assert play.log == [
        ("trade_answered", 1),
        (
            "payment",
            1,
            0,
            30,
            PaymentReason.TRADE.value,
            NO_SPACE,
            0,
        ),  # a negative pay: the partner pays
    ]
    assert (play.owner(CHICAGO[0]), play.owner(NEW_YORK[0])) == (1, 0)
    assert (play.seat("cash", 0), play.seat("cash", 1)) == (1030, 970)
    assert play.state.monopoly_count(1, list(BOARD.cities).index("Chicago")) == 1
    play = Play([COMPETITOR, MONOPOLIST])
    play.own(CHICAGO[0], 0)
    play.state.offer.fill(1, [CHICAGO[0]], [], 0)
    core.answer_trade(play.state, play.t, 0)
    assert play.log == [("trade_answered", 0)]  # declined: nothing moves
    assert play.owner(CHICAGO[0]) == 0


# -- the counts of titles held (core.State.group_held) ----------------------------------------

GROUPS = [*BOARD.cities.values(), BOARD.transports, BOARD.utilities]  # by group code


def counted_on_the_board(play, p, group):
    spaces = GROUPS[
        group
        if group < len(BOARD.cities)
        else len(BOARD.cities) + group - core.GROUP_CODES["transports"]
    ]
    return sum(1 for s in spaces if play.owner(s) == p and not play.space("mortgaged", s))


def make_move(play: Play, move: str, space: int, p: int, q: int) -> None:
    """One change of a property test's list, where the rules allow it: seat p buys, builds,
    sells a building, mortgages, redeems, trades `space` to q, or goes bankrupt to q."""
    state, t = play.state, play.t
    if move == "buy" and play.owner(space) == NOBODY:
        state.current = p
        state.pending_buy = space
        core.buy_title(state, t, p)
    elif move == "build":
        # a Monopolist builds in a city it holds whole: buy the rest of the city first
        if space in BOARD.streets and play.seat("roles", p) == MONOPOLIST:
            for street in BOARD.cities[BOARD.spaces[space].city]:
                if play.owner(street) == NOBODY:
                    state.pending_buy = street
                    core.buy_title(state, t, p)
        if core.why_not_build(state, t, p, space) == 0:
            core.build(state, t, p, space)
    elif move == "sell" and core.why_not_sell_building(state, t, p, space) == 0:
        core.sell_building(state, t, p, space)
    elif move == "mortgage" and core.why_not_mortgage(state, t, p, space) == 0:
        core.mortgage(state, t, p, space)
    elif move == "redeem" and core.why_not_redeem(state, t, p, space) == 0:
        core.redeem(state, t, p, space)
    elif move == "trade" and play.owner(space) not in (NOBODY, q) and q != p:
        owner = play.owner(space)  # the title changes hands as it is, mortgaged or not
        state.current = owner
        state.offer.fill(q, [space], [], 0)
        core.answer_trade(state, t, 1)
    elif move == "bankrupt":  # buildings go back to the Treasury, titles to the creditor
        creditor = NOBODY if q == p else q
        core.go_bankrupt(state, t, p, creditor, 0)


@settings(max_examples=60, deadline=None)
@given(
    moves=st.lists(
        st.tuples(
            st.sampled_from(["buy", "mortgage", "redeem", "trade", "bankrupt"]),
            st.integers(min_value=0, max_value=len(BOARD.titles) - 1),
            st.integers(min_value=0, max_value=3),
            st.integers(min_value=0, max_value=3),
        ),
        max_size=60,
    )
)
def test_the_counts_of_titles_held_follow_every_change_of_hands(moves):
    # issue 38: a monopoly's count and a rent's group are one read of `group_held`, kept where
    # a title is bought, traded, handed over in a bankruptcy, mortgaged or redeemed; after
    # each, the count is the titles' own, and `core.invariants` finds nothing wrong
    play = Play([COMPETITOR, MONOPOLIST, COMPETITOR, MONOPOLIST], cash=[5000] * 4)
    state = play.state
    for move, k, p, q in moves:
        if play.seat("bankrupt", p) or state.phase == OVER:
            continue
        make_move(play, move, BOARD.titles[k], p, q)
        for seat in range(4):
            for city, streets in enumerate(BOARD.cities.values()):
                held = sum(
                    1 for s in streets if play.owner(s) == seat and not play.space("mortgaged", s)
                )
                assert state.monopoly_count(seat, city) == held
        for space in BOARD.titles:
            owner = play.owner(space)
            if owner != NOBODY:
                group = (
                    core.GROUP_CODES["transports"]
                    if space in BOARD.transports
                    else (
                        core.GROUP_CODES["utilities"]
                        if space in BOARD.utilities
                        else list(BOARD.cities).index(BOARD.spaces[space].city)
                    )
                )
                # the rent's group: its owner's unmortgaged titles, this one counted
                mortgaged = 1 if play.space("mortgaged", space) else 0
                assert (
                    state.group_count(space) == counted_on_the_board(play, owner, group) + mortgaged
                )
        found = []
        core.invariants(state, found)
        assert [record for record in found if record[0] == "counts"] == []


def test_a_count_of_titles_held_that_is_wrong_is_reported():
    # the invariant check recounts `group_held` from the titles and names the count that is off
    game = Game.new([("Ana", "competitor"), ("Ben", "monopolist")], seed=1)
    assert game.state.invariant_violations() == []
    chicago = list(BOARD.cities).index("Chicago")
    poke(game, group_held={1 * core.N_GROUPS + chicago: 2})
    assert game.state.invariant_violations() == [
        "Ben is counted as holding 2 unmortgaged titles of Chicago, but holds 0"
    ]
    poke(game, owner={BOARD.transports[0]: 0})  # a poke of an owner recounts
    assert game.state.invariant_violations() == []
    poke(game, group_held={0 * core.N_GROUPS + core.GROUP_CODES["transports"]: 0})
    assert game.state.invariant_violations() == [
        "Ana is counted as holding 0 unmortgaged titles of the transports, but holds 1"
    ]


# -- each seat's net worth in titles and buildings (core.State.wealth_titles, wealth_buildings)

RULES = RuleSet.preset("default")


def worth_on_the_board(play, p):
    """Seat p's titles at price (a mortgaged one less its redeem price) and its buildings at
    what was paid for them (an apartment: the role's maximum of houses and one more), summed
    from the board as the rounds frame describes them."""
    titles = buildings = 0
    role = play.seat("roles", p)
    for space in BOARD.titles:
        if play.owner(space) != p:
            continue
        price = BOARD.spaces[space].price
        titles += price - (
            play.space("redeem_values", space) if play.space("mortgaged", space) else 0
        )
        cost = BOARD.spaces[space].house_cost
        if play.space("apartment", space):
            buildings += cost * (RULES.max_houses(role) + 1)
        else:
            buildings += cost * play.space("houses", space)
    return titles, buildings


@settings(max_examples=60, deadline=None)
@given(
    moves=st.lists(
        st.tuples(
            st.sampled_from(["buy", "build", "sell", "mortgage", "redeem", "trade", "bankrupt"]),
            st.integers(min_value=0, max_value=len(BOARD.titles) - 1),
            st.integers(min_value=0, max_value=3),
            st.integers(min_value=0, max_value=3),
        ),
        max_size=80,
    )
)
def test_the_sums_of_net_worth_and_the_lists_of_titles_follow_every_change(moves):
    # issue 38: the rounds frame reads each seat's titles and buildings in net worth from
    # `wealth_titles` and `wealth_buildings`, kept where a title is bought, traded, handed over
    # in a bankruptcy, mortgaged or redeemed, and where a building is put up, sold or returned;
    # after each change they are the sums over the board, and `core.invariants` agrees; it
    # also finds each seat's `held_titles` (what `title_targets` walks) its titles in board
    # order, and the legal targets are those of every title asked one by one
    play = Play([COMPETITOR, MONOPOLIST, COMPETITOR, MONOPOLIST], cash=[5000] * 4)
    state, t = play.state, play.t
    for move, k, p, q in moves:
        if play.seat("bankrupt", p) or state.phase == OVER:
            continue
        make_move(play, move, BOARD.titles[k], p, q)
        for seat in range(4):
            assert state.wealth_of(seat) == worth_on_the_board(play, seat)
        found = []
        core.invariants(state, found)
        assert [record for record in found if record[0] in ("wealth", "held_titles")] == []
        state.actor = p
        for action, why_not in enumerate(
            (
                core.why_not_build,
                core.why_not_sell_building,
                core.why_not_mortgage,
                core.why_not_redeem,
            )
        ):
            spaces = BOARD.streets if action < 2 else BOARD.titles
            legal = [s for s in spaces if why_not(state, t, p, s) == 0]
            assert core.found_list(state, core.title_targets(state, action)) == legal


def test_a_sum_of_net_worth_that_is_wrong_is_reported():
    # the invariant check sums each seat's titles and buildings afresh and names the sum off
    game = Game.new([("Ana", "competitor"), ("Ben", "monopolist")], seed=1)
    poke(game, owner={BOARD.transports[0]: 0})  # a poke of an owner recounts the sums
    assert game.state.invariant_violations() == []
    price = BOARD.spaces[BOARD.transports[0]].price
    poke(game, wealth_titles={0: price + 10})
    assert game.state.invariant_violations() == [
        f"Ana's titles are counted at ${price + 10} and buildings at $0, but they are worth "
        f"${price} and cost $0"
    ]
    poke(game, owner={BOARD.transports[0]: 0})
    poke(game, wealth_buildings={1: 5})
    assert game.state.invariant_violations() == [
        "Ben's titles are counted at $0 and buildings at $5, but they are worth $0 and cost $0"
    ]
    poke(game, owner={BOARD.transports[0]: 0})
    poke(game, n_held={0: 0})  # Ana's list of titles left empty
    assert game.state.invariant_violations() == [
        "Ana's titles are listed as 0, not as the 1 titles held, in board order"
    ]
