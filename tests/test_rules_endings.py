"""Rules tests: how a game ends: Game A, Game B with rule-25 wealth (decision 11), the
two-hour game's final accounting (decision 12) and the round cap."""

from __future__ import annotations

import pytest
from conftest import assert_illegal, events_of, scenario, two

from amteach import Game


def game_over_text(game: Game) -> str:
    (over,) = events_of(game, "game_over")
    return over.text


# -- Game A -----------------------------------------------------------------------------------


def test_game_a_win_by_bankrupting_all_other_players():
    """Game A: win by bankrupting all other players."""
    game = scenario(two(ana={"cash": 0, "position": 35}), ["roll"], dice=[[1, 2]], game="A")
    assert game.over
    assert game.pending is None
    state = game.state.as_dict()
    assert (state["winner"], state["end_reason"]) == ("Ben", "game_a")
    assert "last player standing" in game_over_text(game)
    assert_illegal(game, "roll", "turn order")


def test_game_a_goes_on_until_one_player_is_left():
    """Game A: the game continues while two or more players remain."""
    players = [
        {"name": "Ana", "role": "competitor", "cash": 0, "position": 35},
        {"name": "Ben", "role": "monopolist", "cash": 0, "position": 35},
        {"name": "Cy", "role": "competitor"},
    ]
    game = scenario(players, ["roll"], dice=[[1, 2], [1, 2]], game="A")
    assert not game.over
    assert game.bankrupt == [True, False, False]
    game.apply("roll")
    assert game.bankrupt == [True, True, False]
    assert game.over
    assert game.state.as_dict()["winner"] == "Cy"


def test_game_a_has_no_time_limit():
    """Games A and B end by bankruptcy only: 'end_game' belongs to the two-hour game."""
    for kind in ("A", "B"):
        game = scenario(two(), game=kind)
        assert "end_game" not in game.pending.kinds
        assert_illegal(game, "end_game", "decision 12")


# -- Game B and rule 25 -----------------------------------------------------------------------


def test_rule25_game_b_richest_competitor_wins_after_all_monopolists_are_bankrupt():
    """Game B / rule 25: richest = cash + income earnable on unmortgaged properties from one landing."""
    players = [
        {"name": "Ben", "role": "monopolist", "cash": 0, "position": 35},
        {
            "name": "Ana",
            "role": "competitor",
            "cash": 500,
            "titles": {
                "Wall St.": {"houses": 4},
                "U.S. Electric Company": {},
                "Fifth Ave.": {"mortgaged": True},
            },
        },
        {"name": "Cy", "role": "competitor", "cash": 640},
    ]
    game = scenario(players, ["roll"], dice=[[1, 2]], game="B")
    assert game.over
    # Ana: 500 + Wall St. with 4 houses (120) + Electric Company 4 x 7 + mortgaged Fifth Ave. 0
    assert game.rule25_wealth(1) == 500 + 120 + 4 * 7 + 0
    assert game.rule25_wealth(2) == 640
    state = game.state.as_dict()
    assert (state["winner"], state["end_reason"]) == ("Ana", "game_b")
    assert "richest of the role still in play (Game B)" in game_over_text(game)
    assert events_of(game, "game_over")[0].scores[1:] == (648, 640)


def test_game_b_richest_monopolist_wins_after_all_competitors_are_eliminated():
    """Game B: be the richest Monopolist after all Competitors are eliminated."""
    players = [
        {"name": "Ana", "role": "competitor", "cash": 0, "position": 35},
        {
            "name": "Ben",
            "role": "monopolist",
            "cash": 1000,
            "titles": {
                "Rush St.": {},
                "State St.": {},
                "U.S. Electric Company": {},
                "U.S. Gas Company": {},
                "U.S. Railroad": {},
                "U.S. Bus Company": {},
            },
        },
        {"name": "Dee", "role": "monopolist", "cash": 1280},
    ]
    game = scenario(players, ["roll"], dice=[[1, 2]], game="B")
    # Ben: 1000 + 2 x 28 (monopolized Chicago) + 2 x 10 x 7 (both utilities) + 2 x 80 (2 companies)
    assert game.rule25_wealth(1) == 1000 + 2 * 28 + 2 * 70 + 2 * 80
    assert game.over
    assert game.state.as_dict()["winner"] == "Ben"
    assert game.state.as_dict()["end_reason"] == "game_b"


def test_game_b_goes_on_while_both_roles_remain():
    """Game B: it ends only once one role is wholly eliminated."""
    players = [
        {"name": "Ana", "role": "competitor", "cash": 0, "position": 35},
        {"name": "Ben", "role": "monopolist"},
        {"name": "Cy", "role": "competitor"},
        {"name": "Dee", "role": "monopolist"},
    ]
    game = scenario(players, ["roll"], dice=[[1, 2]], game="B")
    assert game.bankrupt == [True, False, False, False]
    assert not game.over
    assert game.pending.player == 1


def test_game_b_two_players_the_survivor_wins_under_game_b():
    """Game B: with one player of each role, bankrupting the other role is a Game B win."""
    game = scenario(two(ana={"cash": 0, "position": 35}), ["roll"], dice=[[1, 2]], game="B")
    assert game.over
    assert game.state.as_dict()["winner"] == "Ben"
    assert game.state.as_dict()["end_reason"] == "game_b"
    assert "(Game A)" not in game_over_text(game)


def test_decision11_rule25_wealth_counts_role_buildings_monopoly_and_utilities_at_7():
    """Decision 11: cash + what every unmortgaged title would earn now from one landing."""
    game = scenario(
        two(
            ana={
                "cash": 700,
                "titles": {
                    "Basin St.": {"apartment": True},
                    "U.S. Gas Company": {},
                    "U.S. Bus Company": {},
                },
            },
            ben={
                "cash": 1000,
                "titles": {
                    "Rush St.": {"houses": 2},
                    "State St.": {},
                    "Wall St.": {},
                    "U.S. Railroad": {},
                    "U.S. Air Line": {},
                    "U.S. Electric Company": {},
                    "Locust St.": {"mortgaged": True},
                },
            },
        )
    )
    # Ana: Basin St. apartment 31 + Gas 4 x 7 + Bus 20 (a Competitor's flat fare)
    assert game.rule25_wealth(0) == 700 + 31 + 4 * 7 + 20
    # Ben: Rush St. m_rent_2 68 + State St. doubled 28 + Wall St. single 40 + 2 companies
    # 80 each + one utility 4 x 7 + mortgaged Locust St. 0
    assert game.rule25_wealth(1) == 1000 + 68 + 28 + 40 + 2 * 80 + 4 * 7 + 0
    assert [p["rule25_wealth"] for p in game.state.as_dict()["players"]] == [
        game.rule25_wealth(0),
        game.rule25_wealth(1),
    ]


# -- the two-hour game (decision 12) ------------------------------------------------------------

ANA_TITLES = {
    "Rush St.": {"houses": 2},
    "U.S. Electric Company": {},
    "Wall St.": {"mortgaged": True},
}
BEN_TITLES = {"Locust St.": {}, "Chestnut St.": {}, "U.S. Gas Company": {}}


def two_hour(ana_cash=1234, ben_cash=1501, ana=None, ben=None) -> Game:
    return scenario(
        two(
            ana={"cash": ana_cash, "titles": ANA_TITLES, **(ana or {})},
            ben={"cash": ben_cash, "titles": BEN_TITLES, **(ben or {})},
        ),
        game="two-hour",
    )


def test_two_hour_time_up_starts_the_final_accounting_with_the_treasury_only():
    """Two-hour game 1 / decision 12: players adjust holdings with the Treasurer only."""
    game = two_hour()
    game.apply("end_game")
    assert game.pending.player == 0
    assert game.pending.phase == "final_adjust"
    assert set(game.pending.kinds) <= {"build", "sell_building", "mortgage", "redeem", "end_turn"}
    assert {"sell_building", "mortgage", "redeem", "end_turn"} <= set(game.pending.kinds)
    assert "final accounting" in events_of(game, "final_accounting")[0].text
    assert_illegal(game, "roll", "turn order")


def test_decision8_no_trading_between_players_in_the_final_accounting():
    """Decisions 8/12: in the two-hour game's final accounting players deal only with the Treasury."""
    game = two_hour()
    game.apply("end_game")
    err = assert_illegal(
        game,
        {"trade": {"with": "Ben", "give": ["U.S. Electric Company"], "pay": -10}},
        "decision 8",
        "decision 12",
        "turn order",
    )
    assert "trade" in err.reason


def test_decision12_final_accounting_keeps_10_and_20_percent_then_the_treasurer_pays_rent():
    """Two-hour game 2-4 / decision 12: Competitors keep 10%, Monopolists 20% (rounded down);
    the Treasurer travels once round the board paying one landing's rent; most cash wins."""
    game = two_hour()
    game.apply("end_game")
    game.apply("end_turn")  # Ana changes nothing
    assert game.pending.player == 1
    assert game.pending.phase == "final_adjust"
    game.apply("end_turn")  # nor does Ben
    assert game.over
    ana_kept = 1234 * 10 // 100  # 123
    ben_kept = 1501 * 20 // 100  # 300
    # Ana: Rush St. 2 houses 34 + Electric 4 x 7; mortgaged Wall St. nothing
    # Ben: Locust and Chestnut doubled 36 + 36 + Gas 4 x 7
    assert game.cash == [ana_kept + 34 + 28, ben_kept + 36 + 36 + 28]
    paid = [(e.space, e.amount) for e in events_of(game, "treasurer_rent")]
    assert paid == [(11, 34), (12, 28), (16, 36), (18, 36), (28, 28)]
    settlement = [e for e in events_of(game, "payment") if e.reason == "settlement"]
    assert [e.amount for e in settlement] == [1234 - 123, 1501 - 300]
    assert "keeping 10% of their cash" in settlement[0].text
    assert "keeping 20% of their cash" in settlement[1].text
    state = game.state.as_dict()
    assert (state["winner"], state["end_reason"]) == ("Ben", "two_hour")
    assert "most cash" in game_over_text(game)
    assert sum(game.cash) + game.state.treasury == 1234 + 1501


def test_decision12_players_may_sell_mortgage_and_redeem_before_the_cut():
    """Two-hour game 1 / decision 12: buy or sell buildings, mortgage and redeem first."""
    game = two_hour()
    game.apply("end_game")
    game.apply({"sell_building": "Rush St."})  # +50, Rush St. now 1 house
    game.apply({"redeem": "Wall St."})  # -220
    game.apply("end_turn")
    game.apply({"mortgage": "Chestnut St."})  # +90, Philadelphia no longer monopolized
    game.apply("end_turn")
    ana_cash = 1234 + 50 - 220
    ben_cash = 1501 + 90
    assert game.cash == [
        ana_cash * 10 // 100 + 24 + 28 + 40,  # Rush 1 house, Electric, Wall St. bare
        ben_cash * 20 // 100 + 18 + 28,  # Locust St. single rent, Gas
    ]


def test_decision12_players_may_build_in_the_final_accounting():
    """Decision 12: players may buy buildings from the Treasury before the cut."""
    game = two_hour()
    game.apply("end_game")
    game.apply({"build": "Rush St."})
    game.apply("end_turn")
    game.apply("end_turn")
    assert game.cash[0] == (1234 - 100) * 10 // 100 + 44 + 28  # Rush St. with 3 houses


@pytest.mark.parametrize(("ana_cash", "ben_cash"), [(1239, 1504), (9, 4)])
def test_decision12_cash_kept_is_rounded_down(ana_cash, ben_cash):
    """Decision 12: the kept share is rounded down."""
    game = scenario(
        two(ana={"cash": ana_cash}, ben={"cash": ben_cash}),
        ["end_game", "end_turn", "end_turn"],
        game="two-hour",
    )
    assert game.cash == [ana_cash * 10 // 100, ben_cash * 20 // 100]


def test_decision12_a_monopolist_held_in_prison_collects_nothing_on_the_trip():
    """Decision 12: a Monopolist held in Prison collects nothing from the Treasurer's trip."""
    game = two_hour(ben={"held": 0})
    game.apply("end_game")
    game.apply("end_turn")
    game.apply("end_turn")
    assert game.cash[1] == 1501 * 20 // 100
    assert [e.space for e in events_of(game, "treasurer_rent")] == [11, 12]


def test_decision12_a_competitor_in_price_war_still_collects_on_the_trip():
    """Decision 12 / Prison-Price War: a Competitor in Price War still collects rent."""
    game = two_hour(ana={"held": 1})
    game.apply("end_game")
    game.apply("end_turn")
    game.apply("end_turn")
    assert game.cash[0] == 1234 * 10 // 100 + 34 + 28


def test_decision12_round_cap_settles_the_game_by_the_final_accounting():
    """Decisions table / 12: the round cap, when reached, settles the game; end reason recorded."""
    game = scenario(
        two(),
        ["roll", "decline", "end_turn", "roll", "decline", "end_turn"],
        dice=[[1, 2], [2, 3]],
        rules={"preset": "default", "round_cap": 1},
    )
    assert game.pending.phase == "final_adjust"
    assert "round limit is reached" in events_of(game, "final_accounting")[0].text
    game.apply("end_turn")
    game.apply("end_turn")
    assert game.over
    assert game.cash == [1500 * 10 // 100, 1500 * 20 // 100]
    state = game.state.as_dict()
    assert (state["winner"], state["end_reason"]) == ("Ben", "round_cap")
    assert "round limit reached" in game_over_text(game)


def test_game_over_accepts_no_further_choices():
    """After the end no choice is legal and the state no longer changes."""
    game = scenario(two(), ["end_game", "end_turn", "end_turn"], game="two-hour")
    assert game.pending is None
    assert game.legal_choices() == []
    assert_illegal(game, "end_turn", "turn order")
