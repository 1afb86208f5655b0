"""Issue 26: the two cores are compared on behaviour, rule parameter by rule parameter.

`tests/test_core.py` plays tables of bots on both cores. This file makes sure that the
comparison covers every field of `RuleSet`, whatever is added later:

- `TEST_VALUES` gives each field a value unlike its default and unlike every other field's
  default, so a field that the compiled core read into the wrong slot (two fields swapped,
  or a coinciding default such as 50 and 50) changes the games on one core only;
- `RANGES` gives each field a hypothesis strategy over its whole valid range;
- both are built against `dataclasses.fields(RuleSet)`, and a test fails while a field is
  missing from either;
- the vocabulary the compiled core matches by position (space kinds, card effects, bots, tax
  behaviours, game types, the family's knobs, rent ladders) must equal the engine's own.

`./dev check` runs this file, so a drift between the cores is caught in the quick loop.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amteach import RuleSet
from amteach.bots import KNOBS, STRATEGIES, TAX_BEHAVIOURS
from amteach.engine.board import CARD_EFFECTS, KINDS, standard_board
from amteach.engine.game import GAME_TYPES
from amteach.sim import core
from amteach.sim.play import BatchConfig, compiled_chunk, python_chunk
from amteach.sim.runner import parse_seats

KERNEL = core.kernel()
pytestmark = pytest.mark.skipif(KERNEL is None, reason="needs the compiled core")

FIELDS = tuple(f.name for f in dataclasses.fields(RuleSet))
DEFAULTS = RuleSet.preset("default").to_dict()

# a table that buys, builds, mortgages, trades, goes bankrupt and pays every tax
SEATS = (
    "competitor:investor,monopolist:builder:percent,competitor:cautious:flat,"
    "monopolist:family:offer=6/accept=1,competitor:family:houses=2/tax=percent"
)

# A value for each field: unlike its own default and every other field's default (so a swap
# shows), and chosen so that the rule bites within a few games. `preset_name` is a label that
# no rule reads; the presets themselves are varied in the property test below.
TEST_VALUES: dict[str, Any] = {
    "preset_name": None,
    "starting_cash": 1234,
    "start_payment": 137,
    "income_tax_flat": 173,
    "income_tax_percent_competitor": [13, 7, 19],
    "income_tax_percent_monopolist": [23, 11, 17],
    "property_tax": 91,
    "foundation_monopolist_fee": 47,
    "foundation_competitor_prizes": {1: 31, 2: 59, 5: 83},
    "fine": 67,
    "held_turns_before_forced_fine": 1,
    "max_houses_competitor": 1,
    "max_houses_monopolist": 1,
    "building_supply": "unlimited",
    "supply_houses": 9,
    "supply_apartments": 1,
    "monopoly_streets": 1,
    "transport_fare_competitor": 29,
    "transport_fares_monopolist": [41, 79, 163, 317],
    "utility_multiplier_competitor": 6,
    "utility_multipliers_monopolist": [5, 12],
    "mortgage_percent": 43,
    "redeem_percent": 61,
    "building_sellback_percent": 37,
    "settlement_keep_percent_competitor": 14,
    "settlement_keep_percent_monopolist": 26,
    "settlement_utility_dice": 9,
    "round_cap": 60,
}

# the settlement rules only act at the final accounting of a two-hour game
GAME_TYPE = {name: "two-hour" for name in FIELDS if name.startswith("settlement_")}

percent = st.integers(0, 100)
money = st.integers(0, 400)
RANGES: dict[str, st.SearchStrategy[Any]] = {
    "preset_name": st.sampled_from(["default", "edition-2005"]),
    "starting_cash": st.integers(100, 5000),
    "start_payment": money,
    "income_tax_flat": money,
    "income_tax_percent_competitor": st.lists(percent, min_size=3, max_size=3),
    "income_tax_percent_monopolist": st.lists(percent, min_size=3, max_size=3),
    "property_tax": money,
    "foundation_monopolist_fee": money,
    "foundation_competitor_prizes": st.dictionaries(st.integers(1, 6), money, max_size=6),
    "fine": money,
    "held_turns_before_forced_fine": st.integers(0, 4),
    "max_houses_competitor": st.integers(1, 4),
    "max_houses_monopolist": st.integers(1, 3),
    "building_supply": st.sampled_from(["limited", "unlimited"]),
    "supply_houses": st.integers(0, 40),
    "supply_apartments": st.integers(0, 16),
    "monopoly_streets": st.integers(1, 3),
    "transport_fare_competitor": money,
    "transport_fares_monopolist": st.lists(money, min_size=4, max_size=4),
    "utility_multiplier_competitor": st.integers(0, 12),
    "utility_multipliers_monopolist": st.lists(st.integers(0, 12), min_size=2, max_size=2),
    "mortgage_percent": percent,
    "redeem_percent": percent,
    "building_sellback_percent": percent,
    "settlement_keep_percent_competitor": percent,
    "settlement_keep_percent_monopolist": percent,
    "settlement_utility_dice": st.integers(0, 12),
    "round_cap": st.integers(1, 120),
}


def play_both(rules: RuleSet, games: int, seed: int, game_type: str = "A") -> tuple[dict, dict]:
    config = BatchConfig(parse_seats(SEATS), rules.to_dict(), seed, game_type=game_type)
    return (
        compiled_chunk(KERNEL, 0, games, config, rules),
        python_chunk(0, games, config, rules),
    )


def same_frames(first: dict, second: dict) -> bool:
    return first.keys() == second.keys() and all(
        first[t].keys() == second[t].keys()
        and all(
            len(first[t][c]) == len(second[t][c]) and (first[t][c] == second[t][c]).all()
            for c in first[t]
        )
        for t in first
    )


def test_every_rule_parameter_has_a_test_value_and_a_range():
    assert set(TEST_VALUES) == set(FIELDS), "give the new RuleSet field a value in TEST_VALUES"
    assert set(RANGES) == set(FIELDS), "give the new RuleSet field a range in RANGES"


def test_test_values_differ_from_every_default():
    """A swapped pair of fields shows only if each test value differs from the other's default."""
    for name, value in TEST_VALUES.items():
        if name == "preset_name":
            continue
        coerced = RuleSet.preset("default", **{name: value}).to_dict()[name]
        for other, default in DEFAULTS.items():
            assert coerced != default, f"{name}'s test value equals {other}'s default"


@pytest.mark.parametrize("name", [n for n in FIELDS if n != "preset_name"])
def test_both_cores_play_each_rule_parameter_alike(name: str):
    """Each field alone at its test value: the rule changes the games, identically on both."""
    base = {"round_cap": 120} if name != "round_cap" else {}
    game_type = GAME_TYPE.get(name, "A")
    changed = RuleSet.preset("default", **base, **{name: TEST_VALUES[name]})
    compiled, pure = play_both(changed, 12, seed=26, game_type=game_type)
    assert same_frames(compiled, pure), f"the cores differ when {name} = {TEST_VALUES[name]!r}"
    _, at_default = play_both(RuleSet.preset("default", **base), 12, 26, game_type)
    assert not same_frames(pure, at_default), f"{name} = {TEST_VALUES[name]!r} changed nothing"


@settings(max_examples=25, deadline=None)
@given(values=st.fixed_dictionaries(RANGES), seed=st.integers(0, 2**40))
def test_both_cores_agree_on_any_rules(values: dict[str, Any], seed: int):
    """Every field at once, anywhere in its range, on either preset."""
    preset = values.pop("preset_name")
    rules = RuleSet.preset(preset, **values)
    compiled, pure = play_both(rules, 3, seed, game_type="two-hour")
    assert same_frames(compiled, pure), rules.changed_from_default()


def test_the_kernels_vocabulary_is_the_engines():
    """The kernel matches names by position: its tuples must be the engine's, in order."""
    assert KERNEL.KINDS == KINDS
    assert tuple(CARD_EFFECTS) == KERNEL.CARD_EFFECTS
    assert tuple(STRATEGIES) == KERNEL.BOTS
    assert KERNEL.TAX_BEHAVIOURS == TAX_BEHAVIOURS
    assert KERNEL.GAME_TYPES == GAME_TYPES
    assert KERNEL.ENUM_SIZES["family_knobs"] == len(KNOBS)
    board = standard_board()
    for space in (board.spaces[i] for i in board.streets):
        assert len(space.competitor_rents) == KERNEL.RENT_LADDER, space.name
        assert len(space.monopolist_rents) == KERNEL.RENT_LADDER, space.name
    # the apartment is the last rung for either role, which the kernel reads as index 5
    assert KERNEL.RENT_LADDER - 1 == 5
