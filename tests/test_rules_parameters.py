"""Rules tests: every rule parameter of decisions.md's table changes play when overridden, and
the `edition-2005` preset charges a Monopolist 160 at the Foundation."""

from __future__ import annotations

import pytest
from conftest import assert_illegal, ben_first, events_of, scenario, two

from amteach import Game, RulesError, RuleSet, ScenarioError
from amteach.engine.rules import LARGEST_WHOLE


def rules(**overrides) -> dict:
    return {"preset": "default", **overrides}


# -- money at the start and at START -----------------------------------------------------------


def test_param_starting_cash():
    """Parameter 'starting cash' (default 1500)."""
    players = [("Ana", "competitor"), ("Ben", "monopolist")]
    assert Game.new(players, seed=1).cash == [1500, 1500]
    assert Game.new(players, seed=1, starting_cash=2000).cash == [2000, 2000]
    assert scenario(two(), rules=rules(starting_cash=900)).cash == [900, 900]


@pytest.mark.parametrize("payment", [100, 200, 0])
def test_param_start_payment_by_dice_and_by_card(payment):
    """Parameter 'START payment' (default 100): a card moving a pawn past START pays it too."""
    by_dice = scenario(
        two(ana={"position": 36}), ["roll"], dice=[[2, 3]], rules=rules(start_payment=payment)
    )
    assert by_dice.cash[0] == 1500 + payment
    by_card = scenario(
        two(),
        ["roll"],
        dice=[[3, 4]],
        cards={"competitor": ["C12"]},
        rules=rules(start_payment=payment),
    )
    assert by_card.position[0] == 3
    assert by_card.cash[0] == 1500 + payment


# -- taxes ---------------------------------------------------------------------------------------


def test_param_income_tax_flat():
    """Parameter 'income tax, flat' (default 200)."""
    game = scenario(
        two(), ["roll", {"income_tax": "flat"}], dice=[[1, 3]], rules=rules(income_tax_flat=150)
    )
    assert game.cash[0] == 1500 - 150
    assert events_of(game, "income_tax_choice")[0].flat == 150


def test_param_income_tax_percent_competitor():
    """Parameter 'income tax, percentage: competitor' (default 10/10/10)."""
    titles = {"Rush St.": {"houses": 2}}
    default = scenario(two(ana={"cash": 1000, "titles": titles}))
    assert default.tax_options(0).percent == 100 + 14 + 20
    game = scenario(
        two(ana={"cash": 1000, "titles": titles}),
        rules=rules(income_tax_percent_competitor=[5, 20, 50]),
    )
    assert game.tax_options(0).percent == 1000 * 5 // 100 + 140 * 20 // 100 + 200 * 50 // 100
    assert game.tax_options(1).rates == (20, 10, 10)  # the Monopolist's rates are untouched


def test_param_income_tax_percent_monopolist():
    """Parameter 'income tax, percentage: monopolist' (default 20/10/10)."""
    game = scenario(
        ben_first(ben={"cash": 1000}),
        ["roll", {"income_tax": "percent"}],
        dice=[[1, 3]],
        rules=rules(income_tax_percent_monopolist=[30, 0, 0]),
    )
    assert game.cash[0] == 1000 - 300
    assert game.tax_options(1).rates == (10, 10, 10)


def test_param_property_tax():
    """Parameter 'property tax' (default 75)."""
    game = scenario(
        two(ana={"position": 35}), ["roll"], dice=[[1, 2]], rules=rules(property_tax=100)
    )
    assert game.cash[0] == 1500 - 100


# -- the Foundation -------------------------------------------------------------------------------


def test_param_foundation_monopolist_fee():
    """Parameter 'Foundation: monopolist pays' (default 10)."""
    game = scenario(
        ben_first(ben={"position": 15}),
        ["roll"],
        dice=[[2, 3]],
        rules=rules(foundation_monopolist_fee=25),
    )
    assert game.cash[0] == 1500 - 25


def test_edition_2005_preset_foundation_fee_is_160():
    """Decisions table: preset `edition-2005` charges the Monopolist 160 at the Foundation."""
    preset = RuleSet.preset("edition-2005")
    assert preset.foundation_monopolist_fee == 160
    assert preset.changed_from_default() == {"foundation_monopolist_fee": 160}
    assert RuleSet.preset("default").foundation_monopolist_fee == 10
    game = scenario(ben_first(ben={"position": 15}), ["roll"], dice=[[2, 3]], rules="edition-2005")
    assert game.position[0] == 20
    assert game.cash[0] == 1500 - 160
    assert "$160" in events_of(game, "payment")[0].text


def test_edition_2005_preset_leaves_the_competitor_throw_alone():
    """Decisions table: `edition-2005` changes only the Monopolist's fee."""
    game = scenario(two(ana={"position": 15}), ["roll"], dice=[[2, 3], [2]], rules="edition-2005")
    assert game.cash[0] == 1500 + 50


def test_edition_2005_preset_with_an_override():
    """Scenario format: {preset: edition-2005, parameter: value} overrides on top of the preset."""
    game = scenario(
        ben_first(ben={"position": 15}),
        ["roll"],
        dice=[[2, 3]],
        rules={"preset": "edition-2005", "fine": 70},
    )
    assert game.cash[0] == 1500 - 160
    assert game.rules.fine == 70


def test_param_foundation_competitor_prizes():
    """Parameter 'Foundation: competitor rolls one die' (default 1 -> 25, 2 -> 50)."""
    prizes = {3: 100}
    three = scenario(
        two(ana={"position": 15}),
        ["roll"],
        dice=[[2, 3], [3]],
        rules=rules(foundation_competitor_prizes=prizes),
    )
    assert three.cash[0] == 1500 + 100
    one = scenario(
        two(ana={"position": 15}),
        ["roll"],
        dice=[[2, 3], [1]],
        rules=rules(foundation_competitor_prizes=prizes),
    )
    assert one.cash[0] == 1500


# -- Prison / Price War ---------------------------------------------------------------------------


def test_param_fine():
    """Parameter 'Prison / Price War fine' (default 50), paid by choice or forced."""
    chosen = scenario(two(ana={"held": 0}), ["pay_fine"], rules=rules(fine=100))
    assert chosen.cash[0] == 1500 - 100
    forced = scenario(two(ana={"held": 2}), rules=rules(fine=100))
    assert forced.cash[0] == 1500 - 100


def test_param_held_turns_before_forced_fine():
    """Parameter: turns a held player may try for doubles before the forced fine (default 2)."""
    default = scenario(two(ana={"held": 1}))
    assert default.cash[0] == 1500
    assert "pay_fine" in default.pending.kinds
    game = scenario(two(ana={"held": 1}), rules=rules(held_turns_before_forced_fine=1))
    assert game.cash[0] == 1500 - 50
    assert game.state.held[0] == -1


# -- buildings ----------------------------------------------------------------------------------


def test_param_max_houses_competitor():
    """Parameter 'max houses: competitor' (default 4, then an apartment)."""
    game = scenario(
        two(ana={"titles": {"Rush St.": {"houses": 2}}}), rules=rules(max_houses_competitor=2)
    )
    game.apply({"build": "Rush St."})
    assert (game.houses[11], game.apartment[11]) == (0, True)
    assert game.tax_options(0).improvements == 3 * 100
    game.apply({"sell_building": "Rush St."})
    assert game.cash[0] == 1500 - 100 + 3 * 100 // 2
    default = scenario(two(ana={"titles": {"Rush St.": {"houses": 2}}}))
    default.apply({"build": "Rush St."})
    assert (default.houses[11], default.apartment[11]) == (3, False)


def test_param_max_houses_monopolist():
    """Parameter 'max houses: monopolist' (default 3, then an apartment)."""
    titles = {"Rush St.": {"houses": 2}, "State St.": {}}
    game = scenario(ben_first(ben={"titles": titles}), rules=rules(max_houses_monopolist=2))
    game.apply({"build": "Rush St."})
    assert (game.houses[11], game.apartment[11]) == (0, True)
    assert game.state.as_dict()["treasury"]["houses"] == 35
    default = scenario(ben_first(ben={"titles": titles}))
    default.apply({"build": "Rush St."})
    assert default.houses[11] == 3


FULL_BOARD = {
    name: {"houses": 4}
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
FULL_BOARD["Locust St."] = {"houses": 3}


def test_param_building_supply_unlimited():
    """Parameter 'building supply' (default limited; `unlimited` lifts the hard limit)."""
    limited = scenario(two(ana={"titles": FULL_BOARD}))
    assert_illegal(limited, {"build": "Locust St."}, "supply")
    game = scenario(two(ana={"titles": FULL_BOARD}), rules=rules(building_supply="unlimited"))
    game.apply({"build": "Locust St."})
    assert game.houses[16] == 4


def test_param_supply_houses():
    """Parameter 'building supply: 35 houses'."""
    game = scenario(two(ana={"titles": {"Rush St.": {}}}), rules=rules(supply_houses=1))
    game.apply({"build": "Rush St."})
    assert game.state.as_dict()["treasury"]["houses"] == 0
    assert_illegal(game, {"build": "Rush St."}, "supply")


def test_param_supply_apartments():
    """Parameter 'building supply: 15 apartments'."""
    game = scenario(
        two(ana={"titles": {"Rush St.": {"houses": 4}}}), rules=rules(supply_apartments=0)
    )
    assert_illegal(game, {"build": "Rush St."}, "supply")


def test_param_building_sellback_percent():
    """Parameter 'buildings sold back' (default 1/2 of what was paid)."""
    game = scenario(
        two(ana={"titles": {"Rush St.": {"houses": 1}}}), rules=rules(building_sellback_percent=100)
    )
    game.apply({"sell_building": "Rush St."})
    assert game.cash[0] == 1500 + 100


def test_param_building_sellback_zero_still_returns_buildings_on_bankruptcy():
    """Decision 9 with parameter 'buildings sold back' = 0: the buildings still go back to the
    Treasury; a title never passes on (or returns unowned) with buildings on it."""
    game = scenario(
        two(ana={"cash": 0, "position": 35, "titles": {"Rush St.": {"houses": 2}}}),
        ["roll"],
        dice=[[1, 2]],
        rules=rules(building_sellback_percent=0),
    )
    assert game.bankrupt[0]
    assert game.owner[11] == -1
    assert game.houses[11] == 0
    assert game.state.as_dict()["treasury"]["houses"] == 35


# -- monopolies, transport, utilities -------------------------------------------------------------


def test_param_monopoly_streets():
    """Parameter: unmortgaged streets of a city a Monopolist needs for a monopoly (default 2)."""
    two_streets = {"Rush St.": {}, "State St.": {}}
    game = scenario(
        two(ana={"position": 5}, ben={"titles": two_streets}),
        ["roll"],
        dice=[[2, 4]],
        rules=rules(monopoly_streets=3),
    )
    assert game.cash[0] == 1500 - 14  # single rent: 2 streets are not enough
    three = {**two_streets, "Michigan Ave.": {}}
    game = scenario(
        two(ana={"position": 5}, ben={"titles": three}),
        ["roll"],
        dice=[[2, 4]],
        rules=rules(monopoly_streets=3),
    )
    assert game.cash[0] == 1500 - 28
    builder = scenario(ben_first(ben={"titles": two_streets}), rules=rules(monopoly_streets=3))
    assert_illegal(builder, {"build": "Rush St."}, "decision 5")


def test_param_transport_fare_competitor():
    """Parameter 'transport fare: competitor owner' (default 20)."""
    game = scenario(
        ben_first(ana={"titles": {"U.S. Railroad": {}}}),
        ["roll"],
        dice=[[2, 3]],
        rules=rules(transport_fare_competitor=25),
    )
    assert game.cash == [1500 - 25, 1500 + 25]


def test_param_transport_fares_monopolist():
    """Parameter 'transport fare: monopolist owner' (default 40/80/160/320)."""
    titles = {"U.S. Railroad": {}, "U.S. Bus Company": {}}
    game = scenario(
        two(ben={"titles": titles}),
        ["roll"],
        dice=[[2, 3]],
        rules=rules(transport_fares_monopolist=[50, 60, 70, 80]),
    )
    assert game.cash == [1500 - 60, 1500 + 60]


def test_param_utility_multiplier_competitor():
    """Parameter 'utilities: competitor owner' (default 4 x dice)."""
    game = scenario(
        ben_first(ana={"titles": {"U.S. Electric Company": {}}}, ben={"position": 9}),
        ["roll"],
        dice=[[1, 2]],
        rules=rules(utility_multiplier_competitor=6),
    )
    assert game.cash == [1500 - 6 * 3, 1500 + 6 * 3]


def test_param_utility_multipliers_monopolist():
    """Parameter 'utilities: monopolist owner' (default 4 x with one, 10 x with both)."""
    both = {"U.S. Electric Company": {}, "U.S. Gas Company": {}}
    game = scenario(
        two(ana={"position": 9}, ben={"titles": both}),
        ["roll"],
        dice=[[1, 2]],
        rules=rules(utility_multipliers_monopolist=[5, 12]),
    )
    assert game.cash == [1500 - 12 * 3, 1500 + 12 * 3]


# -- mortgages ----------------------------------------------------------------------------------


def test_param_mortgage_percent():
    """Parameter 'mortgage value' (default 1/2 of the price)."""
    game = scenario(
        two(ana={"titles": {"Rush St.": {}}}),
        [{"mortgage": "Rush St."}],
        rules=rules(mortgage_percent=40),
    )
    assert game.cash[0] == 1500 + 140 * 40 // 100


def test_param_redeem_percent():
    """Parameter 'redeem price' (default 55 % of the price)."""
    game = scenario(
        two(ana={"titles": {"Rush St.": {"mortgaged": True}}}),
        [{"redeem": "Rush St."}],
        rules=rules(redeem_percent=60),
    )
    assert game.cash[0] == 1500 - 140 * 60 // 100


# -- endings ------------------------------------------------------------------------------------


def test_param_settlement_keep_percent_competitor_and_monopolist():
    """Decision 12 parameters: cash kept in the final accounting (default 10 % / 20 %)."""
    game = scenario(
        two(),
        ["end_game", "end_turn", "end_turn"],
        game="two-hour",
        rules=rules(settlement_keep_percent_competitor=50, settlement_keep_percent_monopolist=0),
    )
    assert game.cash == [1500 * 50 // 100, 0]
    assert game.state.as_dict()["winner"] == "Ana"


def test_param_settlement_utility_dice():
    """Decisions 11/12 parameter: the dice total used for utilities (default 7)."""
    titles = {"U.S. Electric Company": {}}
    assert scenario(two(ana={"titles": titles})).rule25_wealth(0) == 1500 + 4 * 7
    game = scenario(
        two(ana={"titles": titles}), game="two-hour", rules=rules(settlement_utility_dice=10)
    )
    assert game.rule25_wealth(0) == 1500 + 4 * 10
    game.apply("end_game")
    game.apply("end_turn")
    game.apply("end_turn")
    assert game.cash[0] == 150 + 4 * 10


def test_param_round_cap():
    """Parameter 'round cap for unattended play' (default none)."""
    script = ["roll", "decline", "end_turn", "roll", "decline", "end_turn"]
    uncapped = scenario(two(), script, dice=[[1, 2], [2, 3]])
    assert uncapped.pending.phase == "pre_roll"
    assert uncapped.round == 2
    capped_later = scenario(two(), script, dice=[[1, 2], [2, 3]], rules=rules(round_cap=2))
    assert capped_later.pending.phase == "pre_roll"
    capped = scenario(two(), script, dice=[[1, 2], [2, 3]], rules=rules(round_cap=1))
    assert capped.pending.phase == "final_adjust"


# -- impossible values --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [("redeem_percent", 101), ("fine", -1), ("max_houses_competitor", 5), ("no_such_rule", 1)],
)
def test_param_impossible_values_are_refused(name, value):
    """Decisions: every rule parameter is named and checked; impossible values are refused."""
    with pytest.raises(RulesError):
        RuleSet.preset("default", **{name: value})
    with pytest.raises(ScenarioError):
        scenario(two(), rules=rules(**{name: value}))


@pytest.mark.parametrize(
    "name", ["starting_cash", "fine", "round_cap", "transport_fares_monopolist"]
)
def test_param_amounts_above_the_largest_whole_number_are_refused_by_name(name):
    """Decisions: every rule parameter is checked. An amount the rules core cannot hold (a
    C int) is refused with one message naming the parameter, never an OverflowError."""
    too_large = LARGEST_WHOLE + 1
    value = [too_large, 50, 100, 200] if name.startswith("transport") else too_large
    with pytest.raises(RulesError, match=f"{name}.*1,000,000,000"):
        RuleSet.preset("default", **{name: value})


def test_param_the_largest_whole_number_plays():
    """The ceiling itself is a rule the engine plays: a game starts with it as starting cash
    (the landing-odds simulation uses it so that no pawn runs out of money)."""
    game = Game.new(
        [("Ana", "competitor"), ("Ben", "monopolist")], starting_cash=LARGEST_WHOLE, seed=1
    )
    assert game.cash[0] == LARGEST_WHOLE
    game.apply("roll")
    assert game.rule25_wealth(0) >= 0
