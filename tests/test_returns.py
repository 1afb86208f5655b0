"""Returns on titles (amteach.analysis.returns): prices and rents checked by hand against the
board data for both roles (rules 10, 11, 19, 20 and decisions 5, 6, 11), the expected rent and
payback formulas (with decision 13's role split), and the chart and its reading."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amteach.analysis.landing import landing_odds
from amteach.analysis.returns import (
    COLUMNS,
    PLAYER_COUNTS,
    reading_returns,
    returns_figure,
    title_returns,
)
from amteach.engine.board import COMPETITOR, MONOPOLIST, ROLES, standard_board
from amteach.engine.errors import InputError
from amteach.engine.rules import RuleSet
from amteach.style import ROLE_COLOURS, ROLE_LABELS, ROLE_SYMBOLS

BOARD = standard_board()
PACKAGE_BOARD = Path(__file__).resolve().parents[1] / "amteach" / "data" / "board.csv"
# the expected total of two dice, counted over the 36 outcomes
DICE_MEAN = sum(a + b for a in range(1, 7) for b in range(1, 7)) / 36


@pytest.fixture(scope="module")
def frame():
    return title_returns()


@pytest.fixture
def board_rows(spec_dir):
    """The specification's board, by name, checked to agree with the package's copy."""

    def read(path: Path) -> dict[str, dict[str, str]]:
        with path.open(encoding="utf-8") as handle:
            return {row["name"]: row for row in csv.DictReader(handle)}

    spec = read(spec_dir / "board-2005.csv")
    assert spec == read(PACKAGE_BOARD)
    return spec


def levels_of(frame, name: str, role: str, players: int = 2):
    rows = frame[(frame["name"] == name) & (frame["owner_role"] == role)]
    return rows[rows["players"] == players].sort_values("level_order").set_index("level")


def test_rule11_competitor_street_price_rent_and_cost_at_every_level(frame, board_rows):
    """Rule 11 and decision 6: a Competitor builds up to 4 houses, then an apartment costing one
    more house; the rent at each level is the board's c_rent column."""
    for name in ("Rush St.", "Wall St.", "Basin St."):
        data = board_rows[name]
        price, house = int(data["price"]), int(data["house_cost"])
        rows = levels_of(frame, name, "competitor")
        assert list(rows.index) == [
            "title only",
            "1 house",
            "2 houses",
            "3 houses",
            "4 houses",
            "apartment",
        ]
        assert (rows["price"] == price).all()
        expected_rents = [int(data[f"c_rent_{k}"]) for k in range(5)] + [
            int(data["c_rent_apartment"])
        ]
        assert rows["rent"].tolist() == expected_rents
        assert rows["invested"].tolist() == [price + k * house for k in range(5)] + [
            price + 5 * house
        ]
        assert (rows["holding"] == name).all()


def test_rule10_decision5_monopolist_street_rents_need_a_monopolized_city(frame, board_rows):
    """Rule 10 and decision 5: a Monopolist's bare street earns the single rent alone and the
    doubled rent in a monopolized city (2 streets); rule 11: 3 houses, then an apartment that
    costs one more house. The city rows hold the other street, whose price is invested too."""
    fifth, wall = board_rows["Fifth Ave."], board_rows["Wall St."]
    both = int(fifth["price"]) + int(wall["price"])
    house = int(wall["house_cost"])
    rows = levels_of(frame, "Wall St.", "monopolist")
    assert list(rows.index) == [
        "title only",
        "monopolized city",
        "1 house",
        "2 houses",
        "3 houses",
        "apartment",
    ]
    assert rows["rent"].tolist() == [
        int(wall[c])
        for c in (
            "m_rent_single",
            "m_rent_two_owned",
            "m_rent_1",
            "m_rent_2",
            "m_rent_3",
            "m_rent_apartment",
        )
    ]
    assert rows["invested"].tolist() == [int(wall["price"]), both] + [
        both + k * house for k in (1, 2, 3, 4)
    ]
    assert rows.loc["title only", "holding"] == "Wall St."
    assert (rows["holding"].iloc[1:] == "Fifth Ave. + Wall St.").all()


def test_decision5_a_three_street_city_adds_the_cheapest_other_street(frame, board_rows):
    """Decision 5 needs 2 of Chicago's 3 streets: the holding adds the cheapest other one."""
    rush, state = (int(board_rows[n]["price"]) for n in ("Rush St.", "State St."))
    michigan = levels_of(frame, "Michigan Ave.", "monopolist").loc["monopolized city"]
    assert michigan["holding"] == "Rush St. + Michigan Ave."
    assert michigan["invested"] == rush + int(board_rows["Michigan Ave."]["price"])
    rush_row = levels_of(frame, "Rush St.", "monopolist").loc["monopolized city"]
    assert rush_row["holding"] == "Rush St. + State St."
    assert rush_row["invested"] == rush + state


def test_rule19_transport_fares_by_role_and_number_owned(frame, board_rows):
    """Rule 19: a Competitor's fare is 20 whatever the count; a Monopolist's doubles with each
    company owned (40, 80, 160, 320). Each holding costs every company's price."""
    price = int(board_rows["U.S. Air Line"]["price"])
    competitor = levels_of(frame, "U.S. Air Line", "competitor")
    monopolist = levels_of(frame, "U.S. Air Line", "monopolist")
    labels = ["title only", "2 owned", "3 owned", "4 owned"]
    assert list(competitor.index) == labels == list(monopolist.index)
    assert competitor["rent"].tolist() == [20, 20, 20, 20]
    assert monopolist["rent"].tolist() == [40, 80, 160, 320]
    assert competitor["invested"].tolist() == [price * k for k in (1, 2, 3, 4)]
    assert monopolist["holding"].iloc[-1].count("+") == 3


def test_rule20_decision11_utility_rent_with_the_expected_dice_total(frame, board_rows):
    """Rule 20: 4 x the dice for a Competitor; 4 x with one and 10 x with both for a
    Monopolist; the dice total is the expected total of two dice, 7 (as decision 11 uses)."""
    assert DICE_MEAN == 7
    price = int(board_rows["U.S. Gas Company"]["price"])
    competitor = levels_of(frame, "U.S. Gas Company", "competitor")
    monopolist = levels_of(frame, "U.S. Gas Company", "monopolist")
    assert competitor["rent"].tolist() == [4 * DICE_MEAN, 4 * DICE_MEAN]
    assert monopolist["rent"].tolist() == [4 * DICE_MEAN, 10 * DICE_MEAN]
    assert monopolist["invested"].tolist() == [price, 2 * price]
    assert monopolist.loc["2 owned", "holding"] == "U.S. Electric Company + U.S. Gas Company"


def test_every_title_appears_with_both_owner_roles_and_every_player_count(frame):
    assert list(frame.columns) == list(COLUMNS)
    seen = set(zip(frame["space"], frame["owner_role"], frame["players"], strict=True))
    expected = {(s, r, n) for s in BOARD.titles for r in ROLES for n in PLAYER_COUNTS}
    assert seen == expected
    assert not frame.duplicated(["space", "owner_role", "level", "players"]).any()


def test_decision6_full_build_is_the_apartment_on_every_street(frame):
    """Decision 6: the apartment is the last building on a street, for both roles; each
    title has exactly one full build, its highest level."""
    one = frame[frame["players"] == 2]
    for (space, role), rows in one.groupby(["space", "owner_role"]):
        full = rows[rows["full_build"]]
        assert len(full) == 1
        assert full["level_order"].iloc[0] == rows["level_order"].max()
        if BOARD.spaces[space].kind == "street":
            assert full["level"].iloc[0] == "apartment", (space, role)


def test_invested_and_rent_grow_with_the_level(frame):
    one = frame[frame["players"] == 2]
    for _, rows in one.groupby(["space", "owner_role"]):
        rows = rows.sort_values("level_order")
        assert rows["invested"].is_monotonic_increasing
        assert rows["invested"].is_unique
        assert rows["rent"].is_monotonic_increasing


def test_expected_rent_is_the_other_roles_landing_odds_times_the_rent(frame):
    """The opponent of the other role lands on the title with its own landing odds."""
    odds = {role: landing_odds(role) for role in (COMPETITOR, MONOPOLIST)}
    lander = frame["lander_role"].map(ROLES.index)
    assert (lander == 1 - frame["owner_role"].map(ROLES.index)).all()
    arrivals = [odds[r].arrivals[s] for r, s in zip(lander, frame["space"], strict=True)]
    assert np.allclose(frame["landing_per_throw"], arrivals, rtol=0, atol=1e-15)
    assert np.allclose(
        frame["expected_rent_per_throw"], frame["landing_per_throw"] * frame["rent"], rtol=1e-12
    )
    single = frame[~frame["holding"].str.contains(r" \+ ", regex=True)]
    assert np.allclose(single["holding_rent_per_throw"], single["expected_rent_per_throw"])


def test_decision5_holding_rent_counts_the_other_streets_monopoly_rent(frame, board_rows):
    """The monopolized city's other street earns the doubled bare rent (decision 5) too."""
    arrivals = landing_odds(COMPETITOR).arrivals  # a Competitor lands on a Monopolist's city
    row = levels_of(frame, "Basin St.", "monopolist").loc["2 houses"]
    basin, quarter = board_rows["Basin St."], board_rows["French Quarter"]
    expected = arrivals[1] * int(basin["m_rent_2"]) + arrivals[3] * int(quarter["m_rent_two_owned"])
    assert row["holding_rent_per_throw"] == pytest.approx(expected, rel=1e-12)


def test_decision5_holding_rent_adds_every_title_helds_rent_per_landing(frame, board_rows):
    """A Monopolist's monopolized Chicago holds Rush St. and State St. (decision 5): its cost is
    both prices, and its rent per landing beside that cost is both streets' doubled bare rent,
    so cost / rent keeps the doubling (issue 39: the table showed $280 beside one $28)."""
    row = levels_of(frame, "Rush St.", "monopolist", players=4).loc["monopolized city"]
    rush, state = board_rows["Rush St."], board_rows["State St."]
    assert row["holding"] == "Rush St. + State St."
    assert row["invested"] == int(rush["price"]) + int(state["price"])
    assert row["rent"] == int(rush["m_rent_two_owned"])
    assert row["holding_rent"] == int(rush["m_rent_two_owned"]) + int(state["m_rent_two_owned"])
    single = frame[~frame["holding"].str.contains(r" \+ ", regex=True)]
    assert (single["holding_rent"] == single["rent"]).all()
    held = frame[frame["holding"].str.contains(r" \+ ", regex=True)]
    assert (held["holding_rent"] > held["rent"]).all()


def test_the_returns_tabs_table_shows_the_titles_held_beside_their_cost_and_rent(frame):
    """The tab's table names the holding and gives the rent of every title held, so a cost of
    two streets never stands beside one street's rent alone (issue 39)."""
    from amteach.ui.economics import RETURNS_TABLE_NOTE, returns_table_html

    page = returns_table_html(frame, 4, "monopolist")
    assert "titles held" in page and "rent per landing, every title held ($)" in page
    assert "monopolized city" in RETURNS_TABLE_NOTE and "every title held" in RETURNS_TABLE_NOTE
    row = re.search(
        r"<td>Rush St\.</td>\s*<td>monopolist</td>\s*<td>monopolized city</td>(.*?)</tr>",
        page,
        re.S,
    )
    assert row is not None
    cells = re.findall(r"<td>(.*?)</td>", row.group(1))
    assert cells[:4] == ["Rush St. + State St.", "280", "28", "56"]


def test_payback_with_two_players_is_invested_over_one_opponents_rent_per_turn(frame):
    """Two players: one opponent of the other role (decision 13), so payback = invested /
    (holding rent per throw x that opponent's throws per turn)."""
    two = frame[frame["players"] == 2]
    assert (two["opponent_competitors"] == (two["owner_role"] == "monopolist").astype(float)).all()
    assert (two["opponent_monopolists"] == (two["owner_role"] == "competitor").astype(float)).all()
    throws = two["lander_role"].map(lambda r: landing_odds(ROLES.index(r)).throws_per_turn)
    expected = two["invested"] / (two["holding_rent_per_throw"] * throws)
    assert np.allclose(two["payback_rounds"], expected, rtol=1e-12)


def test_decision13_role_split_sets_the_opponents_at_each_table_size(frame):
    """Decision 13: roles split evenly (3 players: either role may have the extra seat, so
    the counts are the average of the two seatings)."""
    expected = {
        ("competitor", 3): (0.5, 1.5),
        ("monopolist", 3): (1.5, 0.5),
        ("competitor", 4): (1, 2),
        ("monopolist", 4): (2, 1),
        ("competitor", 5): (1.5, 2.5),
        ("competitor", 6): (2, 3),
        ("monopolist", 6): (3, 2),
    }
    for (role, n), (competitors, monopolists) in expected.items():
        rows = frame[(frame["owner_role"] == role) & (frame["players"] == n)]
        assert (rows["opponent_competitors"] == competitors).all()
        assert (rows["opponent_monopolists"] == monopolists).all()


def test_payback_counts_every_opponent_with_its_own_roles_odds(frame):
    """Four players, a Competitor's bare Fifth Ave.: one Competitor and two Monopolists pay
    rent, each landing with its own role's odds and throws per turn."""
    row = levels_of(frame, "Fifth Ave.", "competitor", players=4).loc["title only"]
    c, m = landing_odds(COMPETITOR), landing_odds(MONOPOLIST)
    per_round = row["rent"] * (
        1 * c.throws_per_turn * c.arrivals[37] + 2 * m.throws_per_turn * m.arrivals[37]
    )
    assert row["rent_per_round"] == pytest.approx(per_round, rel=1e-12)
    assert row["payback_rounds"] == pytest.approx(row["invested"] / per_round, rel=1e-12)
    more = levels_of(frame, "Fifth Ave.", "competitor", players=6).loc["title only"]
    assert more["payback_rounds"] < row["payback_rounds"]  # more opponents, quicker payback


@settings(max_examples=6, deadline=None)
@given(
    max_houses=st.integers(1, 4),
    monopoly_streets=st.integers(1, 3),
    fares=st.lists(st.integers(0, 500), min_size=4, max_size=4),
)
def test_rule_parameters_change_the_levels_as_the_engine_plays_them(
    max_houses, monopoly_streets, fares
):
    """Decision 5 and rule 11 as parameters: the Competitor's house levels follow
    max_houses_competitor (the apartment costs one house more); a Monopolist's city rows need
    monopoly_streets streets, and a city with fewer streets has none; rule 19's fares follow
    transport_fares_monopolist."""
    rules = RuleSet.preset(
        "default",
        max_houses_competitor=max_houses,
        monopoly_streets=monopoly_streets,
        transport_fares_monopolist=fares,
    )
    result = title_returns(rules)
    one = result[result["players"] == 2]
    wall = one[(one["name"] == "Wall St.") & (one["owner_role"] == "competitor")]
    assert len(wall) == max_houses + 2
    assert wall["invested"].max() == 400 + (max_houses + 1) * 200
    for city, streets in BOARD.cities.items():
        rows = one[(one["city"] == city) & (one["owner_role"] == "monopolist")]
        city_rows = rows[rows["level"] == "monopolized city"]
        if len(streets) < monopoly_streets:
            assert city_rows.empty and set(rows["level"]) == {"title only"}
        else:
            assert len(city_rows) == len(streets)
            assert (city_rows["holding"].str.count(r" \+ ") == monopoly_streets - 1).all()
    railroad = one[(one["name"] == "U.S. Railroad") & (one["owner_role"] == "monopolist")]
    assert railroad.sort_values("level_order")["rent"].tolist() == fares
    finite = one[np.isfinite(one["payback_rounds"])]
    assert np.allclose(finite["payback_rounds"] * finite["rent_per_round"], finite["invested"])


# -- the chart and its reading ----------------------------------------------------------------


def test_returns_figure_plots_the_frames_paybacks_in_role_colours_and_shapes(frame):
    figure = returns_figure(frame, players=4)
    assert type(figure) is go.Figure
    assert figure.layout.yaxis.type == "log"
    assert "rounds" in figure.layout.yaxis.title.text
    assert "4 players" in figure.layout.title.text
    names = [trace.name for trace in figure.data]
    assert "Competitor: title only" in names and "Monopolist: monopolized city" in names
    rows = frame[frame["players"] == 4]
    for trace in figure.data:
        role = ROLE_LABELS.index(trace.name.split(":")[0])
        assert trace.marker.color == ROLE_COLOURS[role]
        assert trace.marker.symbol.startswith(ROLE_SYMBOLS[role])
        mine = rows[rows["owner_role"] == ROLES[role]]
        if trace.name.endswith("title only"):
            expected = mine[mine["level"] == "title only"].sort_values("space")
        elif "full build" in trace.name:
            expected = mine[mine["full_build"]].sort_values("space")
        else:
            expected = mine[mine["level"] == "monopolized city"].sort_values("space")
        assert list(trace.x) == expected["name"].tolist()
        assert np.allclose(trace.y, expected["payback_rounds"])
    only = returns_figure(frame, players=2, owner_role="competitor", levels=["2 houses"])
    assert [t.name for t in only.data] == ["Competitor: 2 houses"]


def test_reading_returns_states_the_quickest_payback_from_the_frame(frame):
    for players in (2, 4, 5):
        text = reading_returns(frame, players=players)
        sentences = text.split(". With ")
        assert len(sentences) == 2
        for role, sentence in zip(("competitor", "monopolist"), sentences, strict=True):
            rows = frame[(frame["players"] == players) & (frame["owner_role"] == role)]
            best = rows.loc[rows["payback_rounds"].idxmin()]
            cost, per_round, rounds = re.search(
                r"costs \$([\d,]+) and brings in about \$([\d.]+) of rent a round, so it pays "
                r"for itself in (\d+) rounds",
                sentence,
            ).groups()
            assert int(cost.replace(",", "")) == best["invested"]
            assert float(per_round) == round(best["rent_per_round"], 2)
            assert int(rounds) == round(best["payback_rounds"])
            assert f"{players} players, a {ROLE_LABELS[ROLES.index(role)]}" in sentence
    one = reading_returns(frame, players=3, owner_role="monopolist")
    assert "Monopolist" in one and "Competitor" not in one


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda f: title_returns(policy="sometimes"), "policy"),
        (lambda f: title_returns(rules=42), "rules"),
        (lambda f: returns_figure(f, players=7), "players"),
        (lambda f: returns_figure(f, owner_role="banker"), "owner_role"),
        (lambda f: reading_returns(f.drop(columns=["payback_rounds"])), "frame"),
        (lambda f: reading_returns("returns"), "frame"),
    ],
)
def test_bad_input_names_the_parameter(frame, call, field):
    with pytest.raises(InputError) as err:
        call(frame)
    assert err.value.field == field
    assert field in str(err.value)
