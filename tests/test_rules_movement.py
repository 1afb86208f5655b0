"""Rules tests: set-up, the turn, moving, doubles (seed rules: Setup, Turn Structure;
decisions 2, 3 and 13). Figures come from shared/spec/board-2005.csv."""

from __future__ import annotations

import pytest
from conftest import assert_illegal, events_of, scenario, two

from amteach import Game, ScenarioError


def cash(game: Game, name: str) -> int:
    return game.cash[game.names.index(name)]


# -- set-up ---------------------------------------------------------------------------------


def test_setup_each_player_receives_1500_and_starts_on_start():
    """Setup 4-5: each player receives $1,500 and places a token on START."""
    game = Game.new([("Ana", "competitor"), ("Ben", "monopolist"), ("Cy", "competitor")], seed=3)
    state = game.state.as_dict()
    assert [p["cash"] for p in state["players"]] == [1500, 1500, 1500]
    assert [p["position"] for p in state["players"]] == [0, 0, 0]
    assert [p["role"] for p in state["players"]] == ["competitor", "monopolist", "competitor"]
    assert state["treasury"] == {"balance": 0, "houses": 35, "apartments": 15}


def test_setup_roles_divide_evenly_with_a_difference_of_at_most_one():
    """Setup 3: players divide evenly into Competitors and Monopolists (difference at most 1)."""
    Game.new([("A", "competitor"), ("B", "competitor"), ("C", "monopolist")], seed=1)
    with pytest.raises(ScenarioError, match="decision 13"):
        Game.new(
            [("A", "competitor"), ("B", "competitor"), ("C", "competitor"), ("D", "monopolist")],
            seed=1,
        )
    with pytest.raises(ScenarioError):
        Game.new([("A", "monopolist"), ("B", "monopolist")], seed=1)


def test_decision13_two_to_six_players_at_most_three_of_each_role():
    """Decision 13: 2 to 6 players, at most 3 of each role, role counts differ by at most one."""
    six = [(f"P{i}", "competitor" if i % 2 else "monopolist") for i in range(6)]
    assert len(Game.new(six, seed=1).names) == 6
    with pytest.raises(ScenarioError, match="2 to 6"):
        Game.new([("Solo", "competitor")], seed=1)
    seven = [(f"P{i}", "competitor" if i % 2 else "monopolist") for i in range(7)]
    with pytest.raises(ScenarioError):
        Game.new(seven, seed=1)


def test_setup_roles_are_fixed_for_the_game():
    """Setup 3: roles are fixed for the game (no choice ever changes a role)."""
    game = scenario(two(), ["roll", "decline", "end_turn", "roll"], dice=[[2, 3], [1, 2]])
    assert [p["role"] for p in game.state.as_dict()["players"]] == ["competitor", "monopolist"]
    assert game.roles == (0, 1)


# -- the turn ---------------------------------------------------------------------------------


def test_turn_roll_moves_clockwise_by_the_dice_total_and_resolves_the_space():
    """Turn 1-3: roll both dice, move clockwise that many spaces, resolve the space."""
    game = scenario(two(), ["roll"], dice=[[2, 3]])
    assert game.position[0] == 0 + 2 + 3  # U.S. Railroad, unowned
    assert game.pending.player == 0
    assert game.pending.phase == "buy"
    assert set(game.pending.kinds) >= {"buy", "decline"}
    moved = events_of(game, "moved")
    assert [(e.start, e.end) for e in moved] == [(0, 5)]
    assert "U.S. Railroad" in moved[0].text


def test_turn_without_doubles_there_is_no_extra_throw_and_play_passes_on():
    """Turn 4: only doubles give an extra turn; otherwise the turn ends and play passes on."""
    game = scenario(two(), ["roll", "decline"], dice=[[2, 3]])
    assert game.pending.phase == "post_roll"
    assert "roll" not in game.pending.kinds
    assert "end_turn" in game.pending.kinds
    game.apply("end_turn")
    assert game.pending.player == 1
    assert game.pending.phase == "pre_roll"
    assert_illegal(game, "roll", "turn order", player="Ana")


def test_turn_order_goes_round_the_table_and_counts_rounds():
    """Turn structure: players take turns in order; after the last, a new round begins."""
    game = scenario(
        two(),
        ["roll", "decline", "end_turn", "roll", "decline", "end_turn"],
        dice=[[2, 3], [1, 2]],
    )
    assert game.position == [5, 3]
    assert game.pending.player == 0
    assert game.round == 2


def test_decision2_doubles_grant_one_extra_throw():
    """Decision 2 / Turn 4: doubles give one extra throw, which must be taken before ending."""
    game = scenario(two(), ["roll", "decline"], dice=[[4, 4], [1, 2]])
    assert game.position[0] == 4 + 4  # Wilshire Blvd.
    assert game.pending.player == 0
    assert game.pending.phase == "pre_roll"
    assert "roll" in game.pending.kinds
    assert "doubles" in events_of(game, "dice")[0].text
    game.apply("roll")
    assert game.position[0] == 8 + 1 + 2  # Rush St.
    assert game.pending.phase == "buy"
    game.apply("decline")
    assert game.pending.phase == "post_roll"


def test_decision2_doubles_on_the_extra_throw_give_nothing_more():
    """Decision 2: doubles on the extra throw give nothing more; there is no three-doubles rule."""
    game = scenario(two(), ["roll", "decline", "roll"], dice=[[4, 4], [1, 1]])
    assert game.position[0] == 4 + 4 + 1 + 1  # space 10, a Sightseeing Tour
    assert game.pending.phase == "post_roll"
    assert "roll" not in game.pending.kinds
    assert game.state.held[0] == -1
    assert events_of(game, "sent_to_hold") == []
    game.apply("end_turn")
    assert game.pending.player == 1


def test_decision2_doubles_again_on_a_later_turn_grant_a_fresh_extra_throw():
    """Decision 2: the limit is per turn: doubles on the next turn's first throw count again."""
    game = scenario(
        two(),
        ["roll", "decline", "roll", "end_turn", "roll", "decline", "end_turn", "roll"],
        dice=[[4, 4], [1, 1], [1, 2], [2, 2]],
    )
    # Ana: 0 -> 8 -> 10, Ben: 0 -> 3, Ana: 10 -> 14 (Michigan Ave.) with doubles
    assert game.position == [14, 3]
    assert game.pending.player == 0
    assert game.pending.phase == "buy"
    game.apply("decline")
    assert game.pending.phase == "pre_roll"


def test_decision3_arriving_by_a_normal_move_is_a_sightseeing_tour():
    """Decision 3: arriving on space 10 by a normal move is a Sightseeing Tour; nothing happens."""
    game = scenario(two(ana={"position": 3}), ["roll"], dice=[[3, 4]])
    assert game.position[0] == 3 + 3 + 4
    assert game.cash[0] == 1500
    assert game.state.held[0] == -1
    assert game.state.as_dict()["players"][0]["held"] is False
    assert game.pending.phase == "post_roll"
    assert "pay_fine" not in game.pending.kinds


def test_decision3_a_monopolist_arriving_by_a_normal_move_is_not_in_prison():
    """Decision 3: a Monopolist passing through space 10 by a throw still collects rent."""
    players = [
        {"name": "Ben", "role": "monopolist", "position": 3, "titles": {"Rush St.": {}}},
        {"name": "Ana", "role": "competitor", "position": 5},
    ]
    game = scenario(players, ["roll", "end_turn", "roll"], dice=[[3, 4], [2, 4]])
    assert game.position == [10, 11]
    assert game.cash == [1500 + 14, 1500 - 14]  # Rush St. single rent 14


def test_decision13_players_cash_plus_treasury_never_changes():
    """Decision 13: the Treasury is accounted for: players' cash plus its balance is constant."""
    game = scenario(
        two(ana={"position": 36}, ben={"titles": {"Rush St.": {}, "State St.": {}}}),
        # Ana passes START (+100), buys Basin St. (-60); Ben lands on Income Tax and pays 20%
        ["roll", "buy", "end_turn", "roll", {"income_tax": "percent"}, "end_turn"],
        dice=[[2, 3], [1, 3]],
    )
    assert game.cash[0] == 1500 + 100 - 60
    # Ben: 20 % of 1500 cash + 10 % of 280 property = 300 + 28
    assert game.cash[1] == 1500 - (300 + 28)
    assert sum(game.cash) + game.state.treasury == 1500 + 1500
    assert game.state.treasury == -100 + 60 + 328
