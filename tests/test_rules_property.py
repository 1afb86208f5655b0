"""Rules tests: buying (rule 9, decision 4), rent for both roles, monopolized cities (rule 10,
decision 5), transport (rule 19) and utilities (rule 20). Figures from board-2005.csv."""

from __future__ import annotations

import pytest
from conftest import assert_illegal, ben_first, events_of, scenario, two

from amteach import Game

UNOWNED = -1


def ana_lands(ben_titles: dict, from_space: int, dice: list[int], **ben) -> Game:
    """Ana (Competitor) throws `dice` from `from_space` onto a title of Ben (Monopolist)."""
    return scenario(
        two(ana={"position": from_space}, ben={"titles": ben_titles, **ben}),
        ["roll"],
        dice=[dice],
    )


def ben_lands(ana_titles: dict, from_space: int, dice: list[int], **ana) -> Game:
    """Ben (Monopolist) throws `dice` from `from_space` onto a title of Ana (Competitor)."""
    return scenario(
        ben_first(ana={"titles": ana_titles, **ana}, ben={"position": from_space}),
        ["roll"],
        dice=[dice],
    )


def rent_event(game: Game):
    (rent,) = events_of(game, "rent")
    return rent


# -- rule 9: buying --------------------------------------------------------------------------


def test_rule9_landing_on_an_unowned_street_may_buy_it_at_the_listed_price():
    """Rule 9: land on an unowned street: you may buy at the listed price."""
    game = scenario(two(), ["roll"], dice=[[1, 2]])  # French Quarter, price 60
    assert game.pending.phase == "buy"
    assert game.pending.player == 0
    game.apply("buy")
    assert game.owner[3] == 0
    assert game.cash[0] == 1500 - 60
    assert game.state.treasury == 60
    assert "French Quarter" in events_of(game, "purchase")[0].text
    assert game.pending.phase == "post_roll"


@pytest.mark.parametrize(
    ("start", "dice", "space", "price"),
    [(0, [2, 3], 5, 200), (9, [1, 2], 12, 150)],
    ids=["transport", "utility"],
)
def test_rule9_transport_companies_and_utilities_are_bought_at_their_price(
    start, dice, space, price
):
    """Rule 9: an unowned transportation company or utility may be bought at the listed price."""
    game = scenario(two(ana={"position": start}), ["roll", "buy"], dice=[dice])
    assert game.position[0] == space
    assert game.owner[space] == 0
    assert game.cash[0] == 1500 - price


def test_rule9_declined_property_remains_in_the_treasury():
    """Rule 9: if declined, the property remains in the Treasury."""
    game = scenario(two(), ["roll", "decline"], dice=[[1, 2]])
    assert game.owner[3] == UNOWNED
    assert game.cash == [1500, 1500]
    assert "stays with the Treasury" in events_of(game, "decline")[0].text


def test_decision4_no_auction_after_a_decline():
    """Decision 4: no auctions: after a decline the other players are not offered the title."""
    game = scenario(two(), ["roll", "decline"], dice=[[1, 2]])
    assert game.pending.player == 0
    assert game.pending.phase == "post_roll"
    assert "buy" not in game.pending.kinds
    game.apply("end_turn")
    assert game.pending.phase == "pre_roll"
    assert game.owner[3] == UNOWNED
    assert_illegal(game, "buy", "turn order")


def test_rule9_a_declined_title_can_be_bought_by_the_next_player_to_land_on_it():
    """Rule 9 / decision 4: a declined title stays for sale to whoever lands on it next."""
    game = scenario(two(), ["roll", "decline", "end_turn", "roll", "buy"], dice=[[1, 2], [2, 1]])
    assert game.owner[3] == 1
    assert game.cash == [1500, 1500 - 60]


def test_rule9_no_buying_on_credit():
    """Rule 9 with rule 26: a title costs its price in cash; nobody lends the difference."""
    game = scenario(two(ana={"cash": 59}), ["roll"], dice=[[1, 2]])  # French Quarter 60
    assert "buy" not in game.pending.kinds
    assert "decline" in game.pending.kinds
    assert_illegal(game, "buy", "rule 26")
    game.apply("decline")
    assert game.owner[3] == UNOWNED


def test_rule9_landing_on_your_own_title_costs_nothing():
    """Rule 9: an owner landing on their own title pays no one."""
    game = scenario(two(ana={"titles": {"French Quarter": {}}}), ["roll"], dice=[[1, 2]])
    assert game.cash == [1500, 1500]
    assert events_of(game, "rent") == []
    assert game.pending.phase == "post_roll"


# -- rent: competitor owners -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "rent"),
    [
        ({}, 14),  # c_rent_0 of Rush St.
        ({"houses": 1}, 24),
        ({"houses": 2}, 34),
        ({"houses": 3}, 44),
        ({"houses": 4}, 54),
        ({"apartment": True}, 64),
    ],
    ids=["bare", "1-house", "2-houses", "3-houses", "4-houses", "apartment"],
)
def test_rule11_competitor_rent_follows_houses_and_apartment(title, rent):
    """Rules 9/11: a Competitor owner's rent is the printed rent for the street's buildings."""
    game = ben_lands({"Rush St.": title}, 5, [2, 4])
    assert game.position[0] == 11
    assert game.cash == [1500 - rent, 1500 + rent]  # Ben pays Ana
    assert rent_event(game).amount == rent


def test_rule10_competitor_rent_is_never_doubled_for_owning_a_whole_city():
    """Rule 10: only Monopolists monopolize: a Competitor with all of Chicago gets plain rent."""
    titles = {"Rush St.": {}, "State St.": {}, "Michigan Ave.": {}}
    game = ben_lands(titles, 5, [2, 4])
    assert game.cash == [1500 - 14, 1500 + 14]  # c_rent_0 of Rush St., not doubled
    assert "doubled" not in rent_event(game).text


# -- rent: monopolist owners (rule 10, decision 5) -------------------------------------------


def test_rule10_monopolist_with_one_street_charges_single_rent():
    """Rule 10: a Monopolist owning one street of a city charges the single rent."""
    game = ana_lands({"Rush St.": {}}, 5, [2, 4])
    assert game.cash == [1500 - 14, 1500 + 14]  # m_rent_single of Rush St.
    assert "single rent" in rent_event(game).text


def test_rule10_monopolist_with_two_streets_charges_double_rent():
    """Rule 10: Monopolists who own any 2 streets in a city charge double rent on them."""
    game = ana_lands({"Rush St.": {}, "State St.": {}}, 5, [2, 4])
    assert game.cash == [1500 - 2 * 14, 1500 + 2 * 14]  # m_rent_two_owned 28
    text = rent_event(game).text
    assert "doubled" in text
    assert "2 Chicago streets" in text


def test_rule10_any_two_streets_of_a_three_street_city_monopolize_it():
    """Rule 10: any 2 streets of a city do: State St. + Michigan Ave. double Michigan's rent."""
    game = ana_lands({"State St.": {}, "Michigan Ave.": {}}, 9, [2, 3])
    assert game.position[0] == 14
    assert game.cash == [1500 - 2 * 16, 1500 + 2 * 16]  # m_rent_two_owned 32


def test_rule10_all_three_streets_still_charge_double_bare_rent():
    """Rule 10: owning the whole city is still the doubled bare rent (m_rent_two_owned)."""
    titles = {"Rush St.": {}, "State St.": {}, "Michigan Ave.": {}}
    game = ana_lands(titles, 9, [2, 3])
    assert game.cash == [1500 - 32, 1500 + 32]
    assert "3 Chicago streets" in rent_event(game).text


def test_rule10_two_streets_in_different_cities_are_not_a_monopoly():
    """Rule 10: the 2 streets must be in the same city."""
    game = ana_lands({"Rush St.": {}, "Locust St.": {}}, 5, [2, 4])
    assert game.cash == [1500 - 14, 1500 + 14]
    assert "single rent" in rent_event(game).text


def test_rule10_a_two_street_city_is_monopolized_by_both_its_streets():
    """Rule 10: New York has 2 streets; owning both doubles Wall St. (40 -> 80)."""
    game = ana_lands({"Fifth Ave.": {}, "Wall St.": {}}, 34, [2, 3])
    assert game.position[0] == 39
    assert game.cash == [1500 - 80, 1500 + 80]


@pytest.mark.parametrize(
    ("title", "rent", "why"),
    [
        ({"houses": 1}, 48, "monopolized and the street has 1 house"),
        ({"houses": 2}, 68, "monopolized and the street has 2 houses"),
        ({"houses": 3}, 88, "monopolized and the street has 3 houses"),
        ({"apartment": True}, 108, "apartment"),
    ],
    ids=["1-house", "2-houses", "3-houses", "apartment"],
)
def test_rule10_monopolized_street_with_buildings_charges_the_monopolist_rent(title, rent, why):
    """Rules 10/11: in a monopolized city a built street charges m_rent_1..3 or the apartment."""
    game = ana_lands({"Rush St.": title, "State St.": {}}, 5, [2, 4])
    assert game.cash == [1500 - rent, 1500 + rent]
    assert why in rent_event(game).text


def test_rule10_bare_street_of_a_built_monopoly_is_the_doubled_bare_rent():
    """Rule 10: the bare street of a monopolized city charges 2 x base even if another is built."""
    game = ana_lands({"Rush St.": {"houses": 3}, "State St.": {}}, 9, [2, 2])
    assert game.position[0] == 13
    assert game.cash[1] == 1500 + 2 * 14


def test_rule12_monopoly_lost_when_a_needed_street_is_mortgaged():
    """Rule 12 / decision 5: mortgaging a needed street ends the monopoly: single rent only."""
    game = ana_lands({"Rush St.": {}, "State St.": {"mortgaged": True}}, 5, [2, 4])
    assert game.cash == [1500 - 14, 1500 + 14]
    assert "single rent" in rent_event(game).text


def test_decision5_monopoly_kept_while_two_unmortgaged_streets_remain():
    """Decision 5: monopolized while at least 2 unmortgaged streets are owned."""
    titles = {"Rush St.": {}, "State St.": {}, "Michigan Ave.": {"mortgaged": True}}
    game = ana_lands(titles, 5, [2, 4])
    assert game.cash[1] == 1500 + 28


@pytest.mark.parametrize("owner_role", ["competitor", "monopolist"])
def test_rule12_no_rent_on_a_mortgaged_title(owner_role):
    """Rule 12 / decision 7: no rent is collected on mortgaged property."""
    players = [
        {"name": "Lander", "role": "monopolist" if owner_role == "competitor" else "competitor"},
        {"name": "Owner", "role": owner_role, "titles": {"French Quarter": {"mortgaged": True}}},
    ]
    game = scenario(players, ["roll"], dice=[[1, 2]])
    assert game.cash == [1500, 1500]
    (no_rent,) = events_of(game, "no_rent")
    assert "mortgaged" in no_rent.text
    assert game.pending.phase == "post_roll"


# -- rule 19: transport ----------------------------------------------------------------------

TRANSPORTS = ["U.S. Railroad", "U.S. Bus Company", "U.S. Air Line", "U.S. Trucking Company"]


@pytest.mark.parametrize("count", [1, 2, 3, 4])
def test_rule19_competitor_fare_is_10_percent_however_many_owned(count):
    """Rule 19: Competitors earn the standard 10% return (20) regardless of how many owned."""
    game = ben_lands({name: {} for name in TRANSPORTS[:count]}, 0, [2, 3])
    assert game.position[0] == 5
    assert game.cash == [1500 - 200 // 10, 1500 + 200 // 10]
    assert "same however many" in rent_event(game).text


@pytest.mark.parametrize(("count", "fare"), [(1, 40), (2, 80), (3, 160), (4, 320)])
def test_rule19_monopolist_fares_double_with_each_company(count, fare):
    """Rule 19: Monopolists' fares double with each additional company (40/80/160/320)."""
    game = ana_lands({name: {} for name in TRANSPORTS[:count]}, 0, [2, 3])
    assert fare == 40 * 2 ** (count - 1)
    assert game.cash == [1500 - fare, 1500 + fare]
    assert rent_event(game).count == count
    if count > 1:
        assert "doubled with each" in rent_event(game).text


def test_rule19_monopolist_fare_on_any_of_the_companies_owned():
    """Rule 19: the doubled fare applies on each company the Monopolist owns."""
    game = ana_lands({"U.S. Railroad": {}, "U.S. Trucking Company": {}}, 31, [2, 2])
    assert game.position[0] == 35
    assert game.cash[0] == 1500 - 80


# -- rule 20: utilities ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "titles",
    [{"U.S. Electric Company": {}}, {"U.S. Electric Company": {}, "U.S. Gas Company": {}}],
    ids=["one", "both"],
)
def test_rule20_competitor_collects_4x_dice_regardless_of_count(titles):
    """Rule 20: Competitors collect 4x the dice throw, regardless of how many utilities."""
    game = ben_lands(titles, 9, [1, 2])
    assert game.position[0] == 12
    assert game.cash == [1500 - 4 * 3, 1500 + 4 * 3]
    assert "4 times the dice total of 3" in rent_event(game).text


def test_rule20_monopolist_with_one_utility_collects_4x_dice():
    """Rule 20: Monopolists collect 4x the dice throw for 1 utility."""
    game = ana_lands({"U.S. Gas Company": {}}, 23, [2, 3])
    assert game.position[0] == 28
    assert game.cash == [1500 - 4 * 5, 1500 + 4 * 5]


def test_rule20_monopolist_with_both_utilities_collects_10x_dice():
    """Rule 20: Monopolists collect 10x the dice throw when they own both utilities."""
    game = ana_lands({"U.S. Electric Company": {}, "U.S. Gas Company": {}}, 9, [1, 2])
    assert game.cash == [1500 - 10 * 3, 1500 + 10 * 3]
    assert "10 times the dice total of 3" in rent_event(game).text


def test_rule20_rent_for_reports_the_same_figures_the_game_charges():
    """Rules 10/19/20: rent_for(space, dice) is the rent one landing would cost now."""
    game = scenario(
        two(
            ben={
                "titles": {
                    "Rush St.": {"houses": 2},
                    "State St.": {},
                    "U.S. Railroad": {},
                    "U.S. Bus Company": {},
                    "U.S. Electric Company": {},
                    "U.S. Gas Company": {},
                }
            }
        )
    )
    assert game.rent_for(11)[0] == 68  # m_rent_2 of Rush St.
    assert game.rent_for(13)[0] == 28  # doubled bare State St.
    assert game.rent_for(5)[0] == 80  # two companies
    assert game.rent_for(12, 9)[0] == 10 * 9
    assert game.rent_for(28)[0] == 10 * 7  # default dice total 7
