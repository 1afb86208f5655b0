"""Rules tests: Prison and Price War (seed: Special Rules; decision 3): rent while held,
leaving by doubles or by the fine, and the fine forced on the third turn."""

from __future__ import annotations

import pytest
from conftest import assert_illegal, ben_first, events_of, scenario, two

from amteach import Game

HOLD = 10


def held_state(game: Game, seat: int = 0) -> tuple[bool, int | None]:
    player = game.state.as_dict()["players"][seat]
    return player["held"], player["held_turns"]


# -- rent while held ---------------------------------------------------------------------------


def test_prison_competitor_in_price_war_still_collects_rent():
    """Prison/Price War: Competitors go to PRICE WAR and still collect rent."""
    game = scenario(
        ben_first(ana={"held": 0, "titles": {"Rush St.": {"houses": 1}}}, ben={"position": 5}),
        ["roll"],
        dice=[[2, 4]],
    )
    assert game.position == [11, HOLD]
    assert game.cash == [1500 - 24, 1500 + 24]  # c_rent_1 of Rush St.
    assert held_state(game, 1) == (True, 0)


def test_prison_monopolist_in_prison_collects_no_rent():
    """Prison/Price War: Monopolists go to PRISON and do NOT collect rent."""
    game = scenario(
        two(ana={"position": 5}, ben={"held": 0, "titles": {"Rush St.": {}, "State St.": {}}}),
        ["roll"],
        dice=[[2, 4]],
    )
    assert game.position == [11, HOLD]
    assert game.cash == [1500, 1500]
    (no_rent,) = events_of(game, "no_rent")
    assert "in Prison" in no_rent.text
    assert "collects no rent" in no_rent.text
    assert game.rent_for(11) == (0, "prison", 0)


@pytest.mark.parametrize(
    ("title", "start", "dice"),
    [("U.S. Railroad", 0, [2, 3]), ("U.S. Electric Company", 9, [1, 2])],
)
def test_prison_monopolist_in_prison_collects_no_fares_or_utility_rent(title, start, dice):
    """Prison/Price War: a Monopolist in Prison collects no rent on any title."""
    game = scenario(
        two(ana={"position": start}, ben={"held": 1, "titles": {title: {}}}),
        ["roll"],
        dice=[dice],
    )
    assert game.cash == [1500, 1500]
    assert len(events_of(game, "no_rent")) == 1


def test_prison_monopolist_collects_again_once_out_of_prison():
    """Prison/Price War: the no-rent rule lasts only while the Monopolist is held."""
    game = scenario(
        ben_first(
            ana={"position": 5}, ben={"held": 0, "titles": {"Rush St.": {}, "State St.": {}}}
        ),
        ["pay_fine", "roll", "end_turn", "roll"],
        dice=[[1, 2], [2, 4]],
    )
    # Ben pays 50, moves 10 -> 13 (his own State St.); Ana lands on Rush St.
    assert game.position == [13, 11]
    assert game.cash == [1500 - 50 + 28, 1500 - 28]


# -- leaving by doubles ------------------------------------------------------------------------


def test_decision3_doubles_attempt_moves_and_grants_extra_throw():
    """Decision 3: trying for doubles: doubles move by that throw, and the normal extra throw follows."""
    game = scenario(two(ana={"held": 0}), ["roll"], dice=[[2, 2], [3, 4]])
    assert game.position[0] == HOLD + 4  # Michigan Ave.
    assert held_state(game) == (False, None)
    assert "by throwing doubles" in events_of(game, "left_hold")[0].text
    assert "tries for doubles in Price War" in events_of(game, "dice")[0].text
    assert game.pending.phase == "buy"
    game.apply("decline")
    assert game.pending.phase == "pre_roll"  # the extra throw
    game.apply("roll")
    assert game.position[0] == 14 + 7
    game.apply("decline")
    assert game.pending.phase == "post_roll"
    assert game.cash[0] == 1500  # no fine was paid


def test_decision3_monopolist_leaves_prison_by_doubles_on_the_second_turn():
    """Decision 3 / seed: roll doubles on either of the first 2 turns to leave."""
    game = scenario(ben_first(ben={"held": 1}), ["roll"], dice=[[5, 5], [1, 2]])
    assert game.position[0] == 20  # the Foundation: a Monopolist pays 10
    assert game.cash[0] == 1500 - 10
    assert held_state(game) == (False, None)
    assert game.pending.phase == "pre_roll"


def test_decision3_failed_doubles_attempt_stays_held():
    """Decision 3: without doubles the player stays held; that turn counts as one spent there."""
    game = scenario(two(ana={"held": 0}), ["roll"], dice=[[2, 3]])
    assert game.position[0] == HOLD
    assert held_state(game) == (True, 1)
    assert "stays in Price War (1 turn spent there)" in events_of(game, "stayed_held")[0].text
    assert "no doubles, so stays" in events_of(game, "dice")[0].text
    assert game.pending.phase == "post_roll"
    assert "roll" not in game.pending.kinds
    assert game.cash[0] == 1500


# -- leaving by the fine -----------------------------------------------------------------------


@pytest.mark.parametrize("turns_spent", [0, 1])
def test_decision3_pay_fine_then_roll_normally(turns_spent):
    """Decision 3: on each of the first two turns held, the player may pay 50 and roll normally."""
    game = scenario(two(ana={"held": turns_spent}), ["pay_fine"], dice=[[2, 3]])
    assert game.cash[0] == 1500 - 50
    assert game.state.treasury == 50
    assert held_state(game) == (False, None)
    assert "pays a $50 fine to leave Price War" in events_of(game, "payment")[0].text
    assert game.pending.phase == "pre_roll"
    game.apply("roll")  # a normal throw: no doubles needed
    assert game.position[0] == HOLD + 2 + 3


def test_decision3_after_paying_the_fine_doubles_give_the_normal_extra_throw():
    """Decision 3: after the fine the player rolls normally, doubles included."""
    game = scenario(two(ana={"held": 0}), ["pay_fine", "roll", "decline"], dice=[[3, 3]])
    assert game.position[0] == 16
    assert game.pending.phase == "pre_roll"
    assert "roll" in game.pending.kinds


def test_decision3_pay_fine_is_only_for_a_held_player():
    """Decision 3: only a player held in Prison or Price War pays the fine to leave."""
    game = scenario(two())
    assert "pay_fine" not in game.pending.kinds
    assert_illegal(game, "pay_fine", "decision 3")


def test_decision3_the_fine_is_paid_before_the_throw_not_after():
    """Decision 3: the fine is an alternative to trying for doubles, chosen before throwing."""
    game = scenario(two(ana={"held": 0}), ["roll"], dice=[[2, 3]])
    assert_illegal(game, "pay_fine", "turn order")


def test_rule26_the_fine_is_paid_in_cash():
    """Rule 26 / decision 3: a player without $50 cannot pay the fine and must try for doubles."""
    game = scenario(two(ana={"held": 0, "cash": 49}), dice=[[1, 2]])
    assert "pay_fine" not in game.pending.kinds
    assert_illegal(game, "pay_fine", "rule 26")
    game.apply("roll")
    assert held_state(game) == (True, 1)


# -- the third turn ----------------------------------------------------------------------------


def test_decision3_forced_fine_at_the_start_of_the_third_turn():
    """Prison/Price War, decision 3: pay $50 before the 3rd turn, then roll normally."""
    game = scenario(two(ana={"held": 2}), dice=[[1, 2]])
    assert game.cash[0] == 1500 - 50
    assert held_state(game) == (False, None)
    assert game.pending.phase == "pre_roll"
    assert "pay_fine" not in game.pending.kinds
    assert "leaves Price War by paying the fine" in events_of(game, "left_hold")[0].text
    game.apply("roll")
    assert game.position[0] == HOLD + 1 + 2


def test_decision3_two_failed_attempts_then_the_fine_on_the_third_turn():
    """Decision 3: two failed tries for doubles; at the start of the third turn pay 50."""
    game = scenario(
        two(ana={"held": 0}),
        [
            "roll",  # Ana: 1 + 2, stays (1 turn spent)
            "end_turn",
            "roll",  # Ben: 0 -> 3 French Quarter
            "decline",
            "end_turn",
            "roll",  # Ana: 4 + 5, stays (2 turns spent)
            "end_turn",
            "roll",  # Ben: 3 -> 10, a Sightseeing Tour
            "end_turn",
        ],
        dice=[[1, 2], [1, 2], [4, 5], [3, 4], [2, 3]],
    )
    assert game.pending.player == 0
    assert game.cash[0] == 1500 - 50
    assert held_state(game) == (False, None)
    assert held_state(game, 1) == (False, None)  # Ben's visit is only a Sightseeing Tour
    game.apply("roll")
    assert game.position[0] == 15


def test_decision3_forced_fine_with_too_little_cash_must_raise_money():
    """Decisions 3/9: the forced fine is a debt: a player short of cash mortgages to pay it."""
    game = scenario(two(ana={"held": 2, "cash": 20, "titles": {"Rush St.": {}}}))
    assert game.pending.phase == "raise"
    assert game.pending.player == 0
    assert_illegal(game, "roll", "turn order")
    game.apply({"mortgage": "Rush St."})
    assert game.cash[0] == 20 + 70 - 50
    assert held_state(game) == (False, None)
    assert game.pending.phase == "pre_roll"


def test_decision3_forced_fine_bankrupts_a_player_who_cannot_raise_it():
    """Decisions 3/9: a held player who cannot raise the fine is bankrupt to the Treasury."""
    players = [
        {"name": "Ana", "role": "competitor", "held": 2, "cash": 20},
        {"name": "Ben", "role": "monopolist"},
        {"name": "Cy", "role": "competitor"},
    ]
    game = scenario(players)
    assert game.bankrupt == [True, False, False]
    assert game.state.treasury == 20
    assert game.pending.player == 1
    assert game.pending.phase == "pre_roll"


def test_decision3_a_held_player_may_still_build_on_their_turn():
    """Decisions 3/6: a Competitor in Price War still manages holdings on their own turn."""
    game = scenario(
        two(ana={"held": 0, "titles": {"Rush St.": {}}}),
        ["roll", {"build": "Rush St."}],
        dice=[[1, 2]],
    )
    assert game.houses[11] == 1
    assert game.cash[0] == 1500 - 100
    assert held_state(game) == (True, 1)
