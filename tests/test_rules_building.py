"""Rules tests: building (rule 11, decisions 5-6), the building supply, selling buildings
(rule 13), mortgaging and redeeming (rule 12, decision 7). Figures from board-2005.csv."""

from __future__ import annotations

import pytest
from conftest import assert_illegal, events_of, scenario, two

from amteach import Game, IllegalChoice
from amteach.engine.choices import CHOICE_KINDS

RUSH, STATE, MICHIGAN = 11, 13, 14


def ana(**fields) -> Game:
    """Ana (Competitor) to move, before her throw."""
    return scenario(two(ana=fields))


def ben(**fields) -> Game:
    """Ben (Monopolist) to move, before his throw."""
    return scenario(list(reversed(two(ben=fields))))


def supply(game: Game) -> tuple[int, int]:
    treasury = game.state.as_dict()["treasury"]
    return treasury["houses"], treasury["apartments"]


# -- rule 11: building ------------------------------------------------------------------------


def test_rule11_competitor_builds_on_any_street_they_own():
    """Rule 11: Competitors build on any street they own, even the only one of its city."""
    game = ana(titles={"Rush St.": {}})
    game.apply({"build": "Rush St."})
    assert game.houses[RUSH] == 1
    assert game.cash[0] == 1500 - 100  # Rush St. house cost
    assert supply(game) == (35 - 1, 15)
    assert "builds a house on Rush St. for $100" in events_of(game, "build")[0].text


def test_rule11_competitor_builds_up_to_4_houses_then_an_apartment():
    """Rule 11: a Competitor builds up to 4 houses per street, then replaces them with an apartment."""
    game = ana(titles={"Rush St.": {"houses": 3}})
    game.apply({"build": "Rush St."})
    assert (game.houses[RUSH], game.apartment[RUSH]) == (4, False)
    assert supply(game) == (35 - 4, 15)
    game.apply({"build": "Rush St."})
    assert (game.houses[RUSH], game.apartment[RUSH]) == (0, True)
    assert supply(game) == (35, 15 - 1)  # the 4 houses went back to the supply
    assert game.cash[0] == 1500 - 100 - 100
    assert events_of(game, "build")[-1].building == "apartment"


def test_rule11_an_apartment_is_the_most_a_street_can_hold():
    """Rule 11: the apartment replaces the houses; nothing more is built on that street."""
    game = ana(titles={"Rush St.": {"apartment": True}})
    assert_illegal(game, {"build": "Rush St."}, "rule 11")


def test_rule11_monopolist_builds_only_in_a_monopolized_city():
    """Rule 11: Monopolists build only in monopolized cities."""
    game = ben(titles={"Rush St.": {}, "State St.": {}})
    game.apply({"build": "State St."})
    assert game.houses[STATE] == 1
    assert game.cash[0] == 1500 - 100


def test_rule10_monopolist_without_a_monopoly_cannot_build():
    """Rule 10 / decision 5: a Monopolist with one street of a city may not build there."""
    game = ben(titles={"Rush St.": {}, "Locust St.": {}})
    err = assert_illegal(game, {"build": "Rush St."}, "rule 10", "decision 5")
    assert "monopolized" in err.reason
    assert "build" not in game.pending.kinds


def test_decision5_mortgaged_street_does_not_count_toward_the_monopoly_for_building():
    """Decision 5: a city is monopolized only with 2 unmortgaged streets; only then build."""
    game = ben(titles={"Rush St.": {}, "State St.": {"mortgaged": True}})
    assert_illegal(game, {"build": "Rush St."}, "decision 5")


def test_rule11_monopolist_builds_up_to_3_houses_then_an_apartment():
    """Rule 11: a Monopolist builds up to 3 houses per street, then replaces them with an apartment."""
    game = ben(titles={"Rush St.": {"houses": 2}, "State St.": {}})
    game.apply({"build": "Rush St."})
    assert (game.houses[RUSH], game.apartment[RUSH]) == (3, False)
    assert supply(game) == (35 - 3, 15)
    game.apply({"build": "Rush St."})
    assert (game.houses[RUSH], game.apartment[RUSH]) == (0, True)
    assert supply(game) == (35, 15 - 1)  # the 3 houses went back
    assert game.cash[0] == 1500 - 2 * 100
    assert_illegal(game, {"build": "Rush St."}, "rule 11")


def test_decision6_building_in_any_distribution_no_even_building_rule():
    """Rule 11 / decision 6: no restriction on distribution across the streets of a city."""
    game = ben(titles={"Rush St.": {}, "State St.": {}, "Michigan Ave.": {}})
    for _ in range(3):
        game.apply({"build": "Michigan Ave."})
    assert [game.houses[s] for s in (RUSH, STATE, MICHIGAN)] == [0, 0, 3]
    assert game.cash[0] == 1500 - 3 * 100


def test_rule11_houses_may_only_be_bought_on_your_own_turn():
    """Rule 11 / decision 6: houses and apartments may only be purchased on your turn."""
    game = scenario(
        two(ana={"titles": {"Wall St.": {}}}, ben={"titles": {"Rush St.": {}, "State St.": {}}})
    )
    assert_illegal(game, {"build": "Rush St."}, "turn order", player="Ben")
    # even while answering Ana's trade offer, Ben may not build
    game.apply({"trade": {"with": "Ben", "give": ["Wall St."], "pay": -10}})
    assert game.pending.player == 1
    assert game.pending.phase == "trade_answer"
    assert_illegal(game, {"build": "Rush St."}, "turn order")


def test_rule11_houses_once_placed_cannot_be_moved():
    """Rule 11: once placed, houses cannot be moved: no choice moves a building."""
    assert not any("move" in kind for kind in CHOICE_KINDS)
    game = ana(titles={"Rush St.": {"houses": 2}, "State St.": {}})
    before = game.state.as_dict()
    with pytest.raises(IllegalChoice):
        game.apply({"move_building": "Rush St."})
    assert game.state.as_dict() == before


def test_decision6_no_building_on_a_mortgaged_street():
    """Decision 6: building happens on unmortgaged streets only."""
    game = ana(titles={"Rush St.": {"mortgaged": True}})
    assert_illegal(game, {"build": "Rush St."}, "rule 12", "decision 7")


def test_rule11_buildings_go_on_streets_only():
    """Rule 11: houses are built on streets, not on transport companies or utilities."""
    game = ana(titles={"U.S. Railroad": {}, "U.S. Electric Company": {}})
    assert_illegal(game, {"build": "U.S. Railroad"}, "rule 11")
    assert_illegal(game, {"build": "U.S. Electric Company"}, "rule 11")


def test_rule11_no_building_on_a_street_you_do_not_own():
    """Rule 11: a player builds on their own streets only."""
    game = scenario(two(ben={"titles": {"Rush St.": {}}}))
    assert_illegal(game, {"build": "Rush St."}, "rule 11")


def test_rule26_no_building_on_credit():
    """Rule 26: a house is paid in cash; nobody lends the difference."""
    game = ana(cash=99, titles={"Rush St.": {}})
    assert_illegal(game, {"build": "Rush St."}, "rule 26")


# -- the building supply ---------------------------------------------------------------------


def test_supply_35_houses_is_a_hard_limit():
    """Components / decisions table: 35 houses, a hard limit."""
    four = {"houses": 4}
    titles = {
        name: four
        for name in (
            "Basin St.",
            "French Quarter",
            "Sunset Blvd.",
            "Wilshire Blvd.",
            "Hollywood Blvd.",
            "Rush St.",
            "State St.",
            "Michigan Ave.",
        )
    }
    titles["Locust St."] = {"houses": 3}  # 8 * 4 + 3 = 35 houses on the board
    game = ana(titles=titles)
    assert supply(game) == (35 - 35, 15)
    err = assert_illegal(game, {"build": "Locust St."}, "supply")
    assert "no houses left" in err.reason
    # an apartment needs no house from the supply and gives 4 back
    game.apply({"build": "Basin St."})
    assert game.apartment[1]
    assert supply(game) == (4, 15 - 1)
    game.apply({"build": "Locust St."})
    assert game.houses[16] == 4
    assert supply(game) == (3, 14)


def test_supply_15_apartments_is_a_hard_limit():
    """Components / decisions table: 15 apartments, a hard limit."""
    apartment_streets = (
        "Basin St.",
        "French Quarter",
        "Sunset Blvd.",
        "Wilshire Blvd.",
        "Hollywood Blvd.",
        "Rush St.",
        "State St.",
        "Michigan Ave.",
        "Locust St.",
        "Chestnut St.",
        "Walnut St.",
        "Brattle St.",
        "Harvard Square",
        "Beacon St.",
        "Georgetown",
    )
    titles = {name: {"apartment": True} for name in apartment_streets}
    titles["Constitution Ave."] = {"houses": 4}
    titles["Pennsylvania Ave."] = {}
    game = ana(titles=titles)
    assert supply(game) == (35 - 4, 0)
    err = assert_illegal(game, {"build": "Constitution Ave."}, "supply")
    assert "no apartments left" in err.reason
    game.apply({"build": "Pennsylvania Ave."})  # houses are still available
    assert game.houses[29] == 1


# -- rule 13 and decision 6: selling buildings ------------------------------------------------


def test_rule13_a_house_is_sold_to_the_treasury_for_half_its_price():
    """Rule 13: compensation is half the purchase price; houses go back to the Treasurer."""
    game = ana(titles={"Rush St.": {"houses": 2}})
    game.apply({"sell_building": "Rush St."})
    assert game.houses[RUSH] == 1
    assert game.cash[0] == 1500 + 100 // 2
    assert supply(game) == (35 - 1, 15)
    assert "back to the Treasury for $50" in events_of(game, "sell_building")[0].text


def test_rule13_a_house_sells_for_half_on_an_expensive_street():
    """Rule 13: half of what was paid: a Wall St. house (200) returns 100."""
    game = ana(titles={"Wall St.": {"houses": 1}})
    game.apply({"sell_building": "Wall St."})
    assert game.cash[0] == 1500 + 200 // 2
    assert game.houses[39] == 0


def test_decision6_selling_a_competitor_apartment_pays_half_of_five_house_prices():
    """Decision 6: selling an apartment leaves the street bare and pays half of 5 house prices."""
    game = ana(titles={"Rush St.": {"apartment": True}})
    game.apply({"sell_building": "Rush St."})
    assert (game.houses[RUSH], game.apartment[RUSH]) == (0, False)
    assert game.cash[0] == 1500 + (5 * 100) // 2
    assert supply(game) == (35, 15)


def test_decision6_selling_a_monopolist_apartment_pays_half_of_four_house_prices():
    """Decision 6: for a Monopolist the apartment stands for 4 house prices; half of that back."""
    game = ben(titles={"Rush St.": {"apartment": True}, "State St.": {}})
    game.apply({"sell_building": "Rush St."})
    assert (game.houses[RUSH], game.apartment[RUSH]) == (0, False)
    assert game.cash[0] == 1500 + (4 * 100) // 2
    assert supply(game) == (35, 15)


def test_decision6_buildings_are_sold_one_at_a_time():
    """Decision 6: buildings are sold back one at a time."""
    game = ana(titles={"Rush St.": {"houses": 3}})
    game.apply({"sell_building": "Rush St."})
    game.apply({"sell_building": "Rush St."})
    assert game.houses[RUSH] == 1
    assert game.cash[0] == 1500 + 2 * 50
    assert len(events_of(game, "sell_building")) == 2


def test_rule13_nothing_to_sell_on_a_bare_street():
    """Rule 13: only buildings that stand can be sold back."""
    game = ana(titles={"Rush St.": {}})
    assert_illegal(game, {"sell_building": "Rush St."}, "rule 13")


# -- rule 12 and decision 7: mortgages --------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "space", "value"),
    [
        ("Rush St.", 11, 140 // 2),
        ("U.S. Railroad", 5, 200 // 2),
        ("U.S. Gas Company", 28, 150 // 2),
    ],
)
def test_rule12_mortgage_value_is_half_the_purchase_price(title, space, value):
    """Rule 12: mortgage value = half the purchase price."""
    game = ana(titles={title: {}})
    game.apply({"mortgage": title})
    assert game.mortgaged[space]
    assert game.owner[space] == 0
    assert game.cash[0] == 1500 + value
    assert f"receives ${value}" in events_of(game, "mortgage")[0].text


def test_rule12_houses_must_be_sold_before_mortgaging():
    """Rule 12 / decision 7: houses must be sold first; mortgaging needs the street bare."""
    game = ana(titles={"Rush St.": {"houses": 1}})
    assert_illegal(game, {"mortgage": "Rush St."}, "rule 12")
    game.apply({"sell_building": "Rush St."})
    game.apply({"mortgage": "Rush St."})
    assert game.cash[0] == 1500 + 50 + 70


def test_decision7_a_mortgaged_title_earns_nothing_until_redeemed():
    """Decision 7: mortgaging needs the street bare, a mortgaged title earns nothing, and
    redeeming pays the redeem price."""
    players = list(reversed(two(ana={"position": 5}, ben={"titles": {"Rush St.": {}}})))
    game = scenario(
        players,
        [{"mortgage": "Rush St."}, "roll", "decline", "end_turn", "roll"],
        dice=[[1, 2], [2, 4]],
    )
    assert game.position == [3, 11]
    assert game.cash == [1500 + 70, 1500]  # Ana owed nothing on the mortgaged Rush St.
    assert "earns nothing" in events_of(game, "no_rent")[0].text
    assert game.rent_for(RUSH) == (0, "mortgaged", 0)


def test_rule12_a_mortgaged_title_cannot_be_mortgaged_again():
    """Rule 12: a title is mortgaged once."""
    game = ana(titles={"Rush St.": {"mortgaged": True}})
    assert_illegal(game, {"mortgage": "Rush St."}, "rule 12")


def test_decision5_monopolist_may_not_mortgage_a_street_breaking_a_built_monopoly():
    """Decision 5: no mortgage that would break the monopoly while any building stands in the city."""
    game = ben(titles={"Rush St.": {"houses": 2}, "State St.": {}})
    err = assert_illegal(game, {"mortgage": "State St."}, "decision 5")
    assert "break" in err.reason


def test_decision5_monopolist_may_mortgage_a_street_the_monopoly_does_not_need():
    """Decision 5: with 3 streets, one bare street may be mortgaged and the monopoly stays."""
    game = ben(titles={"Rush St.": {"houses": 2}, "State St.": {}, "Michigan Ave.": {}})
    game.apply({"mortgage": "State St."})
    assert game.cash[0] == 1500 + 70
    assert game.is_monopolized(0, "Chicago")
    assert_illegal(game, {"mortgage": "Michigan Ave."}, "decision 5")


def test_decision5_monopolist_may_mortgage_a_street_of_an_unbuilt_monopoly():
    """Decision 5: with no building in the city, mortgaging is allowed and ends the monopoly."""
    game = ben(titles={"Rush St.": {}, "State St.": {}})
    game.apply({"mortgage": "State St."})
    assert not game.is_monopolized(0, "Chicago")
    assert game.rent_for(RUSH)[0] == 14  # single rent again


@pytest.mark.parametrize(
    ("title", "space", "redeem"),
    [("Rush St.", 11, 77), ("U.S. Railroad", 5, 110), ("U.S. Electric Company", 12, 83)],
)
def test_rule12_redeeming_pays_the_redeem_price_on_the_title(title, space, redeem):
    """Rule 12 / decision 7: to unmortgage, pay the redeem price printed on the card (55 %)."""
    game = ana(titles={title: {"mortgaged": True}})
    game.apply({"redeem": title})
    assert not game.mortgaged[space]
    assert game.cash[0] == 1500 - redeem
    assert f"pays ${redeem}" in events_of(game, "redeem")[0].text


def test_rule12_redeem_prices_are_55_percent_rounded_half_up():
    """Board README: redeem = 55 % of price, rounded half up (150 -> 82.5 -> 83)."""
    game = ana()
    assert game.state.redeem_values[12] == 83
    assert game.state.redeem_values[1] == 33  # 60 * 0.55
    assert game.state.redeem_values[39] == 220  # 400 * 0.55
    assert game.state.mortgage_values[37] == 175  # 350 / 2


def test_rule12_only_a_mortgaged_title_can_be_redeemed():
    """Rule 12: redeeming lifts a mortgage; an unmortgaged title has none."""
    game = ana(titles={"Rush St.": {}})
    assert_illegal(game, {"redeem": "Rush St."}, "rule 12")


def test_rule26_no_redeeming_on_credit():
    """Rule 26: the redeem price is paid in cash."""
    game = ana(cash=76, titles={"Rush St.": {"mortgaged": True}})
    assert_illegal(game, {"redeem": "Rush St."}, "rule 26")


def test_rule12_redeeming_restores_the_monopoly_and_its_double_rent():
    """Rule 12 / decision 5: once redeemed, the needed street counts again for the monopoly."""
    players = list(
        reversed(
            two(
                ana={"position": 5},
                ben={"titles": {"Rush St.": {}, "State St.": {"mortgaged": True}}},
            )
        )
    )
    game = scenario(
        players,
        [{"redeem": "State St."}, "roll", "decline", "end_turn", "roll"],
        dice=[[1, 2], [2, 4]],
    )
    assert game.position == [3, 11]
    assert game.cash == [1500 - 77 + 28, 1500 - 28]
    assert "doubled" in events_of(game, "rent")[0].text
