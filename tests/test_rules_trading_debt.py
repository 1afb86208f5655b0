"""Rules tests: trading (rule 23, decision 8), no borrowing (rule 26), raising money and
bankruptcy to a player or to the Treasury (rule 24, decision 9)."""

from __future__ import annotations

import pytest
from conftest import assert_illegal, events_of, scenario, two

RUSH, STATE, LOCUST, BASIN = 11, 13, 16, 1
UNOWNED = -1


def trade(give=(), get=(), pay=0, with_="Ben") -> dict:
    return {"trade": {"with": with_, "give": list(give), "get": list(get), "pay": pay}}


def three(ana=None, ben=None, cy=None) -> list[dict]:
    return [
        {"name": "Ana", "role": "competitor", **(ana or {})},
        {"name": "Ben", "role": "monopolist", **(ben or {})},
        {"name": "Cy", "role": "competitor", **(cy or {})},
    ]


# -- rule 23 and decision 8: trading -----------------------------------------------------------


def test_rule23_players_trade_titles_and_cash():
    """Rule 23 / decision 8: players trade titles and any agreed cash."""
    game = scenario(
        two(ana={"titles": {"Rush St.": {}}}, ben={"titles": {"Locust St.": {}}}),
        [trade(give=["Rush St."], get=["Locust St."], pay=-200)],
    )
    assert game.pending.player == 1
    assert game.pending.phase == "trade_answer"
    assert set(game.pending.kinds) == {"accept", "reject"}
    assert "$200 paid by Ben" in events_of(game, "trade_proposed")[0].text
    game.apply("accept")
    assert (game.owner[RUSH], game.owner[LOCUST]) == (1, 0)
    assert game.cash == [1500 + 200, 1500 - 200]
    assert "accepts" in events_of(game, "trade_answered")[0].text
    assert game.pending.player == 0
    assert game.pending.phase == "pre_roll"


def test_rule23_a_rejected_trade_changes_nothing():
    """Rule 23: a trade needs both players' agreement."""
    game = scenario(
        two(ana={"titles": {"Rush St.": {}}}),
        [trade(give=["Rush St."], pay=-300), "reject"],
    )
    assert game.owner[RUSH] == 0
    assert game.cash == [1500, 1500]
    assert "turns down" in events_of(game, "trade_answered")[0].text
    assert game.pending.phase == "pre_roll"


def test_rule12_mortgaged_titles_may_be_sold_to_players_at_any_agreed_price():
    """Rule 12 / decision 8: mortgaged properties may be sold at any agreed price, as they are."""
    game = scenario(
        two(ana={"titles": {"Rush St.": {"mortgaged": True}}}),
        [trade(give=["Rush St."], pay=-10), "accept"],
    )
    assert game.owner[RUSH] == 1
    assert game.mortgaged[RUSH]
    assert game.cash == [1500 + 10, 1500 - 10]


def test_rule23_streets_with_houses_are_not_traded():
    """Rule 23 / decision 8: houses must be returned to the Treasurer; a street is traded only bare."""
    game = scenario(two(ana={"titles": {"Rush St.": {"houses": 1}}}))
    err = assert_illegal(game, trade(give=["Rush St."], pay=-100), "rule 23")
    assert "buildings" in err.reason
    game.apply({"sell_building": "Rush St."})
    game.apply(trade(give=["Rush St."], pay=-100))
    game.apply("accept")
    assert game.owner[RUSH] == 1
    assert game.houses[RUSH] == 0


def test_rule23_a_street_with_an_apartment_is_not_traded_either_side():
    """Rule 23: apartments are not traded, whichever side holds them."""
    game = scenario(
        two(
            ana={"titles": {"Wall St.": {}}},
            ben={"titles": {"Rush St.": {"apartment": True}, "State St.": {}}},
        )
    )
    assert_illegal(game, trade(give=["Wall St."], get=["Rush St."]), "rule 23")


def test_decision8_monopolist_may_not_trade_away_a_street_breaking_a_built_monopoly():
    """Decisions 5/8: trading away State St. would break Ben's built monopoly of Chicago."""
    game = scenario(
        two(
            ana={"titles": {"Wall St.": {}}},
            ben={"titles": {"Rush St.": {"houses": 1}, "State St.": {}}},
        )
    )
    assert_illegal(game, trade(give=["Wall St."], get=["State St."]), "decision 5")


def test_rule23_only_titles_a_player_owns_are_traded():
    """Rule 23: each side trades its own titles."""
    game = scenario(two(ana={"titles": {"Rush St.": {}}}))
    assert_illegal(game, trade(give=["Wall St."]), "rule 23")
    assert_illegal(game, trade(give=["Rush St."], get=["State St."]), "rule 23")


def test_rule23_trades_are_between_players():
    """Rule 23: a trade is with another player still in the game."""
    game = scenario(two(ana={"titles": {"Rush St.": {}}}))
    assert_illegal(game, trade(give=["Rush St."], with_="Ana"), "rule 23")


def test_rule26_cash_alone_would_be_a_loan():
    """Rule 26 / decision 8: players may NOT borrow from other players; no cash-only deals."""
    game = scenario(two(ana={"titles": {"Rush St.": {}}}))
    err = assert_illegal(game, trade(pay=-300), "rule 26")
    assert "loan" in err.reason


@pytest.mark.parametrize("pay", [1501, -1501])
def test_rule26_no_iou_each_side_pays_from_cash_in_hand(pay):
    """Rule 26 / decision 8: no IOUs: the cash promised must be in hand."""
    game = scenario(two(ana={"titles": {"Rush St.": {}}}))
    assert_illegal(game, trade(give=["Rush St."], pay=pay), "rule 26")


# -- decision 9: raising money --------------------------------------------------------------


def test_decision9_a_short_player_must_raise_money_by_mortgaging():
    """Decision 9: a player who cannot pay from cash must first raise money."""
    game = scenario(
        two(ana={"cash": 10, "position": 35, "titles": {"Rush St.": {}}}), ["roll"], dice=[[1, 2]]
    )
    assert game.position[0] == 38  # Property Tax, 75
    assert game.pending.player == 0
    assert game.pending.phase == "raise"
    assert set(game.pending.kinds) == {"mortgage"}
    assert "owes the Treasury $75 but has only $10" in events_of(game, "must_raise")[0].text
    assert_illegal(game, "end_turn", "turn order")
    assert_illegal(game, trade(give=["Rush St."], pay=-100), "turn order")
    game.apply({"mortgage": "Rush St."})
    assert game.cash[0] == 10 + 70 - 75
    assert game.state.treasury == -70 + 75
    assert game.pending.phase == "post_roll"


def test_decision9_raise_money_by_selling_buildings_then_mortgaging():
    """Decision 9: buildings are sold at half, then titles mortgaged, until the debt is covered."""
    game = scenario(
        two(ana={"cash": 0, "position": 35, "titles": {"Rush St.": {"houses": 1}}}),
        ["roll", {"sell_building": "Rush St."}],
        dice=[[1, 2]],
    )
    assert game.cash[0] == 50
    assert game.pending.phase == "raise"  # 50 < 75: still short
    game.apply({"mortgage": "Rush St."})
    assert game.cash[0] == 50 + 70 - 75
    assert game.pending.phase == "post_roll"


def test_decision9_rent_owed_to_a_player_is_paid_after_raising_money():
    """Decision 9: rent owed to a player waits while the debtor raises money, then is paid."""
    game = scenario(
        two(
            ana={"cash": 10, "position": 5, "titles": {"U.S. Railroad": {}}},
            ben={"titles": {"Rush St.": {}, "State St.": {}}},
        ),
        ["roll", {"mortgage": "U.S. Railroad"}],
        dice=[[2, 4]],
    )
    assert game.cash == [10 + 100 - 28, 1500 + 28]
    assert game.pending.phase == "post_roll"


def test_decision9_exactly_enough_to_raise_is_not_bankruptcy():
    """Decision 9: a player who can raise the whole debt pays it, even to the last dollar."""
    game = scenario(
        three(ana={"cash": 5, "position": 35, "titles": {"Rush St.": {}}}),
        ["roll", {"mortgage": "Rush St."}],
        dice=[[1, 2]],
    )
    assert game.bankrupt == [False, False, False]
    assert game.cash[0] == 5 + 70 - 75 == 0


# -- rule 24 and decision 9: bankruptcy --------------------------------------------------------


def test_rule24_bankrupt_to_a_player_who_takes_cash_and_titles():
    """Rule 24 / decision 9: buildings go back at half, then cash and titles (mortgaged as they
    are) go to the player owed."""
    game = scenario(
        three(
            ana={
                "cash": 5,
                "position": 36,
                "titles": {"Rush St.": {"houses": 2}, "Locust St.": {"mortgaged": True}},
            },
            ben={"titles": {"Fifth Ave.": {}, "Wall St.": {"houses": 3}}},
        ),
        ["roll"],
        dice=[[1, 2]],
    )
    # Wall St. with 3 houses, monopolized: 200. Ana could raise 5 + 2 * 50 + 70 = 175 only.
    assert game.position[0] == 39
    assert game.bankrupt == [True, False, False]
    assert game.cash == [0, 1500 + 5 + 2 * 100 // 2, 1500]
    assert (game.owner[RUSH], game.owner[LOCUST]) == (1, 1)
    assert (game.mortgaged[RUSH], game.mortgaged[LOCUST]) == (False, True)
    assert game.houses[RUSH] == 0
    assert game.state.as_dict()["treasury"]["houses"] == 35 - 3  # Ana's 2 came back
    assert game.state.treasury == -100
    (bankrupt,) = events_of(game, "bankrupt")
    assert "Ben takes their $105 and 2 titles" in bankrupt.text
    assert events_of(game, "rent") == []  # the rent was never paid in full


def test_rule24_bankrupt_to_the_treasury_titles_return_unowned_and_unmortgaged():
    """Rule 24 / decision 9: bankrupted by the Treasury, all assets become unowned Treasury property."""
    game = scenario(
        three(
            ana={
                "cash": 5,
                "position": 35,
                "titles": {"Basin St.": {"houses": 1}, "Locust St.": {"mortgaged": True}},
            }
        ),
        ["roll"],
        dice=[[1, 2]],
    )
    # Property Tax 75; Ana could raise only 5 + 50 // 2 + 30 = 60
    assert game.bankrupt == [True, False, False]
    assert (game.owner[BASIN], game.owner[LOCUST]) == (UNOWNED, UNOWNED)
    assert (game.mortgaged[BASIN], game.mortgaged[LOCUST]) == (False, False)
    assert game.houses[BASIN] == 0
    assert game.state.as_dict()["treasury"]["houses"] == 35
    assert game.cash == [0, 1500, 1500]
    assert game.state.treasury == -25 + (5 + 25)
    assert "go back to the Treasury, unowned" in events_of(game, "bankrupt")[0].text


def test_decision9_a_bankrupt_player_leaves_the_game():
    """Decision 9: a player is bankrupt at most once and leaves the game."""
    game = scenario(
        three(ana={"cash": 5, "position": 35}), ["roll"], dice=[[1, 2], [1, 2], [1, 3], [2, 3]]
    )
    assert game.bankrupt == [True, False, False]
    assert game.pending.player == 1
    game.apply("roll")
    game.apply("decline")  # Ben on French Quarter
    game.apply("end_turn")
    assert game.pending.player == 2
    game.apply("roll")
    game.apply({"income_tax": "flat"})
    game.apply("end_turn")
    assert game.pending.player == 1  # Ana is skipped
    assert game.round == 2
    assert_illegal(game, trade(get=["French Quarter"], with_="Ana"), "rule 23")
    assert len(events_of(game, "bankrupt")) == 1


def test_rule24_titles_returned_to_the_treasury_are_for_sale_again():
    """Rule 24: a bankrupt's titles become unowned Treasury property, for sale to the next lander."""
    game = scenario(
        three(ana={"cash": 0, "position": 35, "titles": {"Basin St.": {}}}, ben={"position": 36}),
        ["roll", "roll"],
        dice=[[1, 2], [2, 3]],
    )
    # Ana went bankrupt to the Treasury (Basin St. raised only 30 of 75); Ben lands on Basin St.
    assert game.bankrupt == [True, False, False]
    assert game.owner[BASIN] == UNOWNED
    assert game.position[1] == 1
    assert game.pending.phase == "buy"
    game.apply("buy")
    assert game.cash[1] == 1500 + 100 - 60
    assert events_of(game, "rent") == []
