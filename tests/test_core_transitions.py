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
from amteach.engine.rules import RuleSet
from amteach.engine.terms import NOBODY
from amteach.sim import core as sim_core

core = rules_core()
BOARD = standard_board()


class Recorder(core.Steps):
    """A game of a few seats that records each step a transition takes."""

    def __init__(self, roles, cash=None, out=(), game_b=False, scores=None, throws=()):
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


def test_the_kernel_debt_ring_refuses_a_debt_beyond_max_debts():
    # the kernel's debts are a ring of MAX_DEBTS; bounds checking is off when compiled, so a
    # debt past the ring is refused and flagged (Batch.play then stops), never written over
    # one still owed
    source = Path(sim_core.__file__).with_name("kernel.py")
    spec = importlib.util.spec_from_file_location("amteach_kernel_uncompiled_debts", source)
    kernel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernel)
    g = kernel.G()
    g.debt_head, g.debt_count, g.debt_overflow = 3, 0, False  # as reset_game leaves it, mid-ring
    for k in range(kernel.MAX_DEBTS + 1):
        kernel.owe(g, 0, kernel.NOBODY, k + 1, kernel.D_OTHER, False)
    assert g.debt_count == kernel.MAX_DEBTS
    assert g.debt_overflow
    owed = [g.debt_amount[(3 + k) % kernel.MAX_DEBTS] for k in range(kernel.MAX_DEBTS)]
    assert owed == list(range(1, kernel.MAX_DEBTS + 1))
