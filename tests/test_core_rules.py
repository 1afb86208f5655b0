"""Issue 26: the two cores are compared on behaviour, rule parameter by rule parameter.

`tests/test_core.py` plays tables of bots on both cores. This file makes sure that the
comparison covers every field of `RuleSet`, whatever is added later:

- `TEST_VALUES` gives each field a value unlike its default and unlike every other field's
  default, so a field that the compiled core read into the wrong slot (two fields swapped,
  or a coinciding default such as 50 and 50) changes the games on one core only;
- `RANGES` gives each field a hypothesis strategy over its whole valid range;
- both are built against `dataclasses.fields(RuleSet)`, and a test fails while a field is
  missing from either;
- the vocabulary the compiled core still matches by position (bots, tax behaviours, game
  types, the family's knobs) must equal the engine's own; space kinds, card effects and the
  whole-number rule parameters reach the rules' tables (amteach/engine/core.py) by name, which
  is checked on both builds of that core, and the two builds must compute alike.

`./dev check` runs this file, so a drift between the cores is caught in the quick loop.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amteach import RuleSet
from amteach.bots import KNOBS, STRATEGIES, TAX_BEHAVIOURS
from amteach.engine import builds
from amteach.engine.board import CARD_EFFECTS, KINDS, standard_board
from amteach.engine.game import GAME_TYPES
from amteach.engine.rules import preset_names
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


@functools.cache
def default_frames(round_cap: int | None, game_type: str) -> dict:
    """The pure-Python core's frames of `play_both`'s games (seed 26, 12 games) at the default
    rules: every parameter's test compares its games with these, and most parameters
    share one `round_cap` and game type, so they are played once per module, not once a test."""
    base = {"round_cap": round_cap} if round_cap is not None else {}
    rules = RuleSet.preset("default", **base)
    config = BatchConfig(parse_seats(SEATS), rules.to_dict(), 26, game_type=game_type)
    return python_chunk(0, 12, config, rules)


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
    at_default = default_frames(base.get("round_cap"), game_type)
    assert not same_frames(pure, at_default), f"{name} = {TEST_VALUES[name]!r} changed nothing"


# 25 examples, whatever the profile: each plays 3 two-hour games on both cores with every field
# drawn at once (3.2 s in the full run of 6 December), new draws each run; each field alone, at
# a value chosen to bite, is the parametrized test above
@settings(max_examples=25, deadline=None)
@given(values=st.fixed_dictionaries(RANGES), seed=st.integers(0, 2**40))
def test_both_cores_agree_on_any_rules(values: dict[str, Any], seed: int):
    """Every field at once, anywhere in its range, on either preset."""
    preset = values.pop("preset_name")
    rules = RuleSet.preset(preset, **values)
    compiled, pure = play_both(rules, 3, seed, game_type="two-hour")
    assert same_frames(compiled, pure), rules.changed_from_default()


def test_the_kernels_vocabulary_is_the_engines():
    """The kernel matches these names by position: its tuples must be the engine's, in order."""
    assert tuple(STRATEGIES) == KERNEL.BOTS
    assert KERNEL.TAX_BEHAVIOURS == TAX_BEHAVIOURS
    assert KERNEL.GAME_TYPES == GAME_TYPES
    assert KERNEL.ENUM_SIZES["family_knobs"] == len(KNOBS)


@pytest.mark.parametrize("preset", preset_names())
def test_the_rules_tables_take_every_name_from_the_engine(preset: str):
    """core.fill_tables codes space kinds and card effects by their names in the engine's
    board, and copies every whole-number rule parameter into the field of its name, on either
    build of the rules core."""
    board, rules = standard_board(), RuleSet.preset(preset)
    whole = {f: getattr(rules, f) for f in FIELDS if type(getattr(rules, f)) is int}
    assert len(whole) >= 19
    for module in (builds.rules_core(), builds.source_core()):
        tables = module.tables(board, rules)
        assert module.whole_number_rules(rules) == whole
        for name, value in whole.items():
            assert getattr(tables, name) == value, (module.COMPILED, name)
    tables = builds.source_core().tables(board, rules)  # its arrays are lists
    for space in board.spaces:
        assert tables.kind[space.index] == KINDS.index(space.kind), space.name
    for role in (0, 1):
        for k, card in enumerate(board.deck(role)):
            assert tables.card_effect[role][k] == tuple(CARD_EFFECTS).index(card.effect)


def test_the_rules_tables_refuse_a_rent_ladder_of_another_length():
    """The apartment is the last rung of a street's ladder for either role; the tables hold
    ladders of one length and say so rather than read a wrong rung."""
    board = standard_board()
    street = board.spaces[board.streets[0]]
    short = dataclasses.replace(street, competitor_rents=street.competitor_rents[:-1])
    spaces = tuple(short if s.index == street.index else s for s in board.spaces)
    odd = dataclasses.replace(board, spaces=spaces)
    for module in (builds.rules_core(), builds.source_core()):
        with pytest.raises(ValueError, match="rents per role"):
            module.tables(odd, RuleSet.preset("default"))


# 300 examples, whatever the profile: an example is a few dozen calls on each build (0.5 s
# for all 300), so many cheap draws cover the grid of space, role, buildings and dice
@settings(max_examples=300, deadline=None)
@given(
    preset=st.sampled_from(preset_names()),
    space=st.sampled_from(standard_board().titles),
    role=st.sampled_from([-1, 0, 1]),
    held=st.booleans(),
    mortgaged=st.booleans(),
    houses=st.integers(0, 3),
    apartment=st.booleans(),
    count=st.integers(1, 4),
    dice=st.integers(2, 12),
    cash=st.integers(0, 10**6),
    value=st.integers(0, 10**4),
)
def test_both_builds_of_the_rules_core_compute_alike(
    preset, space, role, held, mortgaged, houses, apartment, count, dice, cash, value
):
    """The rules core compiled and run as plain Python answer every function alike."""
    compiled, source = builds.rules_core(), builds.source_core()
    assert compiled.COMPILED and not source.COMPILED
    board, rules = standard_board(), RuleSet.preset(preset)
    answers = []
    for module in (compiled, source):
        t = module.tables(board, rules)
        owner = max(role, 0)
        basis = module.rent_basis(t, space, role, held, mortgaged, houses, apartment, count)
        answers.append(
            (
                basis,
                module.rent_amount(t, space, basis, owner, houses, count, dice),
                module.rent_count(t, basis, owner, houses, count),
                module.rent(t, space, role, held, mortgaged, houses, apartment, count, dice),
                module.rent_after_build(t, space, owner, held, mortgaged, houses, count),
                module.next_is_apartment(t, owner, houses),
                module.buildings_paid(t, space, owner, houses, apartment),
                module.buildings_refund(t, space, owner, houses, apartment),
                module.building_sale_value(t, space, owner, houses, apartment),
                module.mortgage_value(t, space),
                module.redeem_value(t, space),
                module.title_liquidation(t, space, owner, houses, apartment, mortgaged, value),
                module.title_worth(t, space, mortgaged, value),
                module.tax_percent(t, owner, cash, value, value // 2),
            )
        )
    assert answers[0] == answers[1]
