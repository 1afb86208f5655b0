"""The package data is the specification's figures, validated when loaded."""

from __future__ import annotations

import csv

import pytest

from amteach import DataError, RuleSet
from amteach.engine import board as board_module
from amteach.engine.board import parse_board, parse_cards, standard_board


def _spec_rows(spec_dir, name):
    with open(spec_dir / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_board_figures_equal_the_specification(spec_dir):
    """Data, not code: every board figure comes from board-2005.csv unchanged."""
    board = standard_board()
    for row in _spec_rows(spec_dir, "board-2005.csv"):
        space = board.spaces[int(row["index"])]
        assert space.name == row["name"]
        assert space.kind == row["kind"]
        if space.kind in ("street", "transport", "utility"):
            assert space.price == int(row["price"])
            assert space.mortgage == int(row["mortgage"])
            assert space.redeem == int(row["redeem"])
        if space.kind == "street":
            expected_c = [int(row[f"c_rent_{k}"]) for k in range(5)] + [
                int(row["c_rent_apartment"])
            ]
            expected_m = [
                int(row[c])
                for c in (
                    "m_rent_single",
                    "m_rent_two_owned",
                    "m_rent_1",
                    "m_rent_2",
                    "m_rent_3",
                    "m_rent_apartment",
                )
            ]
            assert list(space.competitor_rents) == expected_c
            assert list(space.monopolist_rents) == expected_m
            assert space.city == row["city"]


def test_card_effects_equal_the_specification(spec_dir):
    """Both 25-card decks carry the effects, amounts and targets of cards.csv."""
    board = standard_board()
    rows = _spec_rows(spec_dir, "cards.csv")
    assert len(rows) == 50
    for row in rows:
        card = board.card(row["id"])
        assert card.effect == row["effect"]
        assert card.amount == int(row["amount"] or 0)
        assert card.target == int(row["target"] or 0)
        assert card.deck == (0 if row["deck"] == "competitor" else 1)


def test_card_texts_are_our_own_words_and_state_the_figures(spec_dir):
    """Card texts are written for the project; the figures in them come from the data."""
    board = standard_board()
    topics = {row["id"]: row["topic"] for row in _spec_rows(spec_dir, "cards.csv")}
    for card in board.cards:
        assert card.text and card.text != topics[card.id]
        if card.effect in ("collect", "pay") or card.effect.startswith(("collect_from", "all_")):
            assert f"${card.amount}" in card.text
        if card.effect == "move_to":
            assert board.spaces[card.target].name in card.text


def test_printed_mortgage_and_redeem_values_follow_the_default_percentages():
    """decisions.md: mortgage 1/2 of the price, redeem 55 % rounded half up, as printed."""
    rules = RuleSet.preset("default")
    for space in standard_board().spaces:
        if space.is_title:
            assert space.mortgage == (space.price * rules.mortgage_percent + 50) // 100
            assert space.redeem == (space.price * rules.redeem_percent + 50) // 100


def test_street_rent_ladders_follow_the_published_formulas():
    """spec README: competitor rent = base + k*house/10; monopolist = 2*base + k*house/5."""
    for space in standard_board().spaces:
        if space.kind != "street":
            continue
        base, house = space.price // 10, space.house_cost
        assert list(space.competitor_rents) == [base + k * house // 10 for k in (0, 1, 2, 3, 4, 5)]
        assert list(space.monopolist_rents) == [base, 2 * base] + [
            2 * base + k * house // 5 for k in (1, 2, 3, 4)
        ]


def test_board_has_eight_cities_four_transports_two_utilities():
    board = standard_board()
    assert len(board.cities) == 8
    assert len(board.transports) == 4 and len(board.utilities) == 2
    assert len(board.titles) == 28  # seed rules: 28 title cards


def test_default_rule_parameters_match_the_decisions_table():
    """decisions.md's parameter table, one figure each."""
    r = RuleSet.preset("default")
    assert r.starting_cash == 1500 and r.start_payment == 100
    assert r.income_tax_flat == 200
    assert r.income_tax_percent_competitor == (10, 10, 10)
    assert r.income_tax_percent_monopolist == (20, 10, 10)
    assert r.property_tax == 75
    assert r.foundation_monopolist_fee == 10
    assert dict(r.foundation_competitor_prizes) == {1: 25, 2: 50}
    assert r.fine == 50
    assert (r.max_houses_competitor, r.max_houses_monopolist) == (4, 3)
    assert (r.supply_houses, r.supply_apartments, r.building_supply) == (35, 15, "limited")
    assert r.transport_fare_competitor == 20
    assert r.transport_fares_monopolist == (40, 80, 160, 320)
    assert r.utility_multiplier_competitor == 4
    assert r.utility_multipliers_monopolist == (4, 10)
    assert (r.mortgage_percent, r.redeem_percent, r.building_sellback_percent) == (50, 55, 50)
    assert (r.settlement_keep_percent_competitor, r.settlement_keep_percent_monopolist) == (10, 20)


def test_edition_2005_preset_changes_only_the_foundation_fee():
    """decisions.md: preset edition-2005 uses 160 for the monopolist's Foundation fee."""
    assert RuleSet.preset("edition-2005").changed_from_default() == {
        "foundation_monopolist_fee": 160
    }


def _board_rows():
    return [dict(row) for row in board_module._read_csv("board.csv")]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda rows: rows.pop(), "index"),
        (lambda rows: rows[11].update(price="lots"), "row 13, column price"),
        (lambda rows: rows[3].update(kind="castle"), "kind"),
        (lambda rows: rows[11].update(city=""), "row 13, column city"),
        (lambda rows: rows.__setitem__(5, {**rows[5], "index": "7"}), "index"),
    ],
)
def test_a_malformed_board_file_names_the_field(change, field):
    """Bad data gets one clear message naming the file and the field."""
    rows = _board_rows()
    change(rows)
    with pytest.raises(DataError) as err:
        parse_board(rows)
    assert err.value.source == "board.csv"
    assert field in err.value.field


def test_a_malformed_cards_file_names_the_row():
    spaces = parse_board(_board_rows())
    rows = [dict(r) for r in board_module._read_csv("cards.csv")]
    texts = {r["id"]: r["text"] for r in board_module._read_csv("card_texts.csv")}
    rows[4]["effect"] = "teleport"
    with pytest.raises(DataError, match="unknown effect 'teleport'") as err:
        parse_cards(rows, texts, spaces)
    assert err.value.field == "row 6, column effect"
    rows[4]["effect"] = "collect"
    rows.pop()
    with pytest.raises(DataError, match="monopolist deck has 24 cards"):
        parse_cards(rows, texts, spaces)
