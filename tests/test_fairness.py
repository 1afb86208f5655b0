"""Is the game fair? Rule sweeps, presets compared, win-rate charts, the counterfactual of one
role's rules for everyone (decision 13's opt-in), and the sentences that read each chart."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from conftest import CAP, FEE, FEES, GAMES, MIXED
from hypothesis import given, settings
from hypothesis import strategies as st

import amteach
from amteach.analysis import fairness, stats
from amteach.analysis.inequality import gini
from amteach.analysis.rules_table import parameter_label, parameter_value, parameter_words
from amteach.engine.errors import InputError, ScenarioError
from amteach.engine.game import Game, PlayerSetup, Setup
from amteach.engine.rules import RuleSet
from amteach.sim import SeatError, wilson_interval
from amteach.style import ROLE_COLOURS, ROLE_SYMBOLS

ROOT = Path(__file__).resolve().parents[1]


def pct(x: float) -> str:
    """A rate as the readings print it: one decimal place."""
    return f"{100 * x:.1f}%"


@pytest.fixture(scope="module")
def batch() -> amteach.sim.SimulationResult:
    return amteach.simulate(
        games=GAMES, seats=MIXED, seed=3, workers=1, round_cap=CAP, progress=False
    )


@pytest.fixture(scope="module")
def structures() -> pd.DataFrame:
    return fairness.market_structures(games=6, seed=2, workers=1, round_cap=40, progress=False)


# -- charts -------------------------------------------------------------------------------------


def test_sweep_figure_draws_each_role_in_its_colour_and_shape(fee_sweep):
    figure = fairness.sweep_figure(fee_sweep)
    assert type(figure) is go.Figure
    lines = {t.name: t for t in figure.data if t.name}
    assert set(lines) == {"Competitors", "Monopolists"}
    for r, name in enumerate(("Competitors", "Monopolists")):
        trace = lines[name]
        rows = fee_sweep[fee_sweep["role"] == ("competitor", "monopolist")[r]]
        assert trace.marker.color == ROLE_COLOURS[r] and trace.marker.symbol == ROLE_SYMBOLS[r]
        assert list(trace.x) == list(FEES)
        assert list(trace.y) == pytest.approx(list(rows["rate"]))
        assert [
            y + up for y, up in zip(trace.y, trace.error_y.array, strict=True)
        ] == pytest.approx(list(rows["ci_high"]))
    # the parameter in words, with its unit (never its snake_case name)
    assert (
        figure.layout.xaxis.title.text
        == parameter_label(FEE)
        == ("Monopolists' fee at the Foundation ($)")
    )
    assert figure.layout.yaxis.title.text == "share of games won"


@pytest.mark.parametrize(
    ("by", "labels"),
    [
        ("role", ["Competitors", "Monopolists"]),
        (
            "seat",
            [
                "1st to play (Competitor)",
                "2nd to play (Monopolist)",
                "3rd to play (Competitor)",
                "4th to play (Monopolist)",
            ],
        ),
        ("bot", ["builder", "cautious", "investor"]),
    ],
)
def test_win_rates_figure_has_intervals_and_plain_labels(batch, by, labels):
    """The bars carry the exact (Clopper-Pearson) interval the even test reads (issue 23):
    its whisker leaves out the even mark exactly when the test says more or less than luck."""
    figure = fairness.win_rates_figure(batch, by)
    assert type(figure) is go.Figure
    bars = figure.data[0]
    expected = batch.win_rates(by)
    assert list(bars.x) == labels
    assert list(bars.y) == pytest.approx(list(expected["rate"]))
    games = len(batch.games)
    even_share = 0.5 if by == "role" else 0.25
    tests = [
        stats.compare_with_even(row.wins, games, even_share, row.games // games)
        for row in expected.itertuples()
    ]
    lows = [y - down for y, down in zip(bars.y, bars.error_y.arrayminus, strict=True)]
    highs = [y + up for y, up in zip(bars.y, bars.error_y.array, strict=True)]
    assert lows == pytest.approx([test.low for test in tests])
    assert highs == pytest.approx([test.high for test in tests])
    for low, high, test in zip(lows, highs, tests, strict=True):
        assert (low <= test.even <= high) == (test.direction == "even")
    if by == "role":
        assert list(bars.marker.color) == list(ROLE_COLOURS)
    if by == "seat":
        assert list(bars.marker.color) == [ROLE_COLOURS[0], ROLE_COLOURS[1]] * 2
    even = figure.data[1]
    assert even.name == "an even game"
    assert list(even.y) == pytest.approx([0.5, 0.5] if by == "role" else [0.25] * len(labels))


def test_market_structures_figure_has_a_panel_per_measure(structures):
    figure = fairness.market_structures_figure(structures)
    assert type(figure) is go.Figure
    assert len(figure.data) == 3
    for trace, column in zip(
        figure.data, ("rent_per_turn", "mean_rounds", "gini_at_round"), strict=True
    ):
        assert list(trace.x) == list(fairness.MARKET_STRUCTURES)
        assert list(trace.y) == pytest.approx(list(structures[column]))
        assert list(trace.marker.color)[::2] == list(ROLE_COLOURS)


# -- readings -----------------------------------------------------------------------------------


def test_reading_a_sweep_value_quotes_the_frames_numbers(fee_sweep):
    for fee in FEES:
        text = fairness.reading_sweep_value(fee_sweep, fee)
        rows = fee_sweep[fee_sweep["value"] == fee].set_index("role")
        m, c = rows.loc["monopolist"], rows.loc["competitor"]
        assert f"{FEE} = {fee}" in text
        assert (
            f"Monopolists won {pct(m['rate'])} (95% interval {pct(m['ci_low'])} to {pct(m['ci_high'])})"
            in text
        )
        assert (
            f"Competitors {pct(c['rate'])} (95% interval {pct(c['ci_low'])} to {pct(c['ci_high'])})"
            in text
        )
        assert f"{m['mean_rounds']:.0f} rounds on average" in text


def _synthetic_sweep(wins: list[tuple[int, int]], games: int) -> pd.DataFrame:
    rows = []
    for value, (monopolist, competitor) in enumerate(wins):
        for role, w in (("competitor", competitor), ("monopolist", monopolist)):
            low, high = wilson_interval(w, games)
            rows.append(
                {
                    "parameter": FEE,
                    "value": value * 10,
                    "role": role,
                    "wins": w,
                    "games": games,
                    "rate": w / games,
                    "ci_low": low,
                    "ci_high": high,
                    "mean_rounds": 100.0,
                    "round_cap_share": 0.5,
                }
            )
    return pd.DataFrame(rows)


@settings(max_examples=40, deadline=None)
@given(
    games=st.integers(20, 3000),
    shares=st.lists(st.floats(0, 1), min_size=2, max_size=4),
)
def test_reading_a_sweep_quotes_the_ends_and_says_whether_the_change_is_more_than_luck(
    games, shares
):
    wins = [(round(s * games), games - round(s * games)) for s in shares]
    frame = _synthetic_sweep(wins, games)
    text = fairness.reading_sweep(frame)
    first, last = frame.iloc[1], frame.iloc[-1]  # the Monopolists' rows
    last_value = (len(shares) - 1) * 10
    assert (
        f"As {parameter_words(FEE)} goes from {parameter_value(FEE, 0)} to "
        f"{parameter_value(FEE, last_value)}" in text
    )
    assert (
        f"goes from {pct(first['rate'])} (95% interval {pct(first['ci_low'])} to {pct(first['ci_high'])})"
        in text
    )
    assert (
        f"to {pct(last['rate'])} (95% interval {pct(last['ci_low'])} to {pct(last['ci_high'])})"
        in text
    )
    # Newcombe's interval for the change, never whether the two intervals overlap
    change = stats.compare_batches(first["wins"], games, last["wins"], games)
    assert ("more than luck would explain" in text) == change.significant
    assert ("cannot rule out luck" in text) == (not change.significant)
    assert "overlap" not in text


@pytest.mark.parametrize("by", ["role", "seat", "bot"])
def test_reading_win_rates_quotes_the_batchs_numbers(batch, by):
    text = fairness.reading_win_rates(batch, by)
    table = fairness.win_rate_table(batch, by)
    if by == "role":
        assert text.startswith(f"Of these {GAMES} games, ")
        for row in table.itertuples():
            assert (
                f"{row.label} won {pct(row.rate)} (95% interval {pct(row.ci_low)} to {pct(row.ci_high)})"
                in text
            )
        assert "50% for Competitors, 50% for Monopolists" in text
    else:
        best = table.loc[table["rate"].idxmax()]
        worst = table.loc[table["rate"].idxmin()]
        assert f"{best['label']}" in text and f"won {pct(best['rate'])} of its games" in text
        assert f"against {pct(worst['rate'])} for" in text and worst["label"] in text
        assert "If the game were even, each would win 25%." in text


def test_reading_market_structures_quotes_the_frames_numbers(structures):
    text = fairness.reading_market_structures(structures)
    rows = structures.set_index("structure")
    c, m = rows.loc["all Competitors"], rows.loc["all Monopolists"]
    assert f"costs ${m['rent_per_turn']:,.0f} in rent" in text
    assert f"against ${c['rent_per_turn']:,.0f}" in text
    assert f"games last {m['mean_rounds']:.0f} rounds against {c['mean_rounds']:.0f}" in text
    assert "the 40-round cap" in text
    # inequality at one round for every table (the 40-round cap comes before round 50)
    assert "At round 40, in the games still running then" in text
    assert (
        f"{m['gini_at_round']:.2f} among Monopolists and {c['gini_at_round']:.2f} among "
        "Competitors" in text
    )


# -- the counterfactual and decision 13 ---------------------------------------------------------

ALL_COMPETITORS = ["competitor:investor"] * 4
ALL_MONOPOLISTS = ["monopolist:investor"] * 4


def _one_role_setup(role: int, allow: bool, game_type: str = "A") -> Setup:
    players = tuple(PlayerSetup(f"P{i}", role) for i in range(4))
    return Setup(
        players=players,
        rules=RuleSet.preset("default"),
        seed=1,
        game_type=game_type,
        allow_one_role=allow,
    )


@pytest.mark.parametrize("seats", [ALL_COMPETITORS, ALL_MONOPOLISTS])
def test_decision_13_refuses_a_table_of_one_role_without_the_opt_in(seats):
    with pytest.raises(SeatError, match="decision 13"):
        amteach.simulate(games=1, seats=seats, progress=False)
    role = 0 if seats is ALL_COMPETITORS else 1
    with pytest.raises(ScenarioError, match="decision 13"):
        Game(_one_role_setup(role, allow=False))
    with pytest.raises(ScenarioError, match="decision 13"):
        Game.new([(f"P{i}", ("competitor", "monopolist")[role]) for i in range(2)])


def test_decision_13_opt_in_still_refuses_an_uneven_mixed_table_and_game_b():
    uneven = ["competitor:investor"] * 4 + ["monopolist:investor"]
    with pytest.raises(SeatError, match="decision 13"):
        amteach.simulate(games=1, seats=uneven, progress=False, allow_one_role=True)
    with pytest.raises(InputError, match="cannot play Game B") as err:
        amteach.simulate(
            games=1, seats=ALL_MONOPOLISTS, game="B", progress=False, allow_one_role=True
        )
    assert err.value.field == "game"
    with pytest.raises(ScenarioError, match="cannot play Game B"):
        Game(_one_role_setup(1, allow=True, game_type="B"))


@pytest.mark.parametrize("game_type", ["A", "two-hour"])
@pytest.mark.parametrize("seats", [ALL_COMPETITORS, ALL_MONOPOLISTS])
def test_decision_13_opt_in_one_role_games_play_to_the_end(seats, game_type):
    result = amteach.simulate(
        games=4,
        seats=seats,
        seed=4,
        workers=1,
        round_cap=40,
        game=game_type,
        progress=False,
        allow_one_role=True,
    )
    role = seats[0].split(":")[0]
    assert result.completed == 4
    assert result.games["end_reason"].isin(["game_a", "round_cap"]).all()
    assert (result.games["rounds"] <= 40).all() and (result.games["rounds"] >= 1).all()
    assert (result.games["winner_role"] == role).all()
    assert (result.players["role"] == role).all() and len(result.players) == 16


def test_decision_13_opt_in_leaves_a_mixed_batch_exactly_as_it_was():
    args = {"games": 3, "seats": MIXED, "seed": 8, "workers": 1, "round_cap": 25, "progress": False}
    plain, opted = amteach.simulate(**args), amteach.simulate(**args, allow_one_role=True)
    for name in ("games", "players", "rounds", "taxes"):
        pd.testing.assert_frame_equal(getattr(plain, name), getattr(opted, name))


def test_market_structures_has_one_row_per_structure_computed_from_the_games(structures):
    assert list(structures.columns) == list(fairness.MARKET_COLUMNS)
    assert list(structures["structure"]) == list(fairness.MARKET_STRUCTURES)
    assert (structures["games"] == 6).all() and (structures["round_cap"] == 40).all()
    direct = amteach.simulate(
        games=6,
        seats=ALL_MONOPOLISTS,
        seed=2,
        workers=1,
        round_cap=40,
        progress=False,
        allow_one_role=True,
        record_rounds=True,
    )
    row = structures.set_index("structure").loc["all Monopolists"]
    rent = direct.players.groupby("game")["rent_paid"].sum()
    assert row["rent_per_turn"] == pytest.approx(rent.sum() / direct.games["turns"].sum())
    assert row["rent_per_game"] == pytest.approx(rent.mean())
    ginis = [gini(g["net_worth"]) for _, g in direct.players.groupby("game")]
    assert row["mean_gini"] == pytest.approx(sum(ginis) / len(ginis))
    # issue 23: inequality compared at a fixed round (here the cap, 40, before round 50), over
    # the games still running then, each game's Gini of its players' wealth at that round
    assert row["gini_round"] == 40
    at = direct.rounds[direct.rounds["round"] == 40]
    running = [gini(g["wealth"].to_numpy()) for _, g in at.groupby("game")]
    assert row["gini_games"] == len(running)
    assert row["gini_at_round"] == pytest.approx(sum(running) / len(running))
    assert row["gini_sd_at_round"] == pytest.approx(np.std(running, ddof=1))
    assert row["mean_rounds"] == pytest.approx(direct.games["rounds"].mean())
    assert row["bankrupt_share"] == pytest.approx(direct.players["bankrupt"].mean())
    assert structures["mean_gini"].between(0, 0.75).all()


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"players": 7}, "players"),
        ({"bot": "genius"}, "bot"),
        ({"games": 0}, "games"),
        ({"gini_round": 0}, "gini_round"),
    ],
)
def test_market_structures_bad_input_is_named(options, field, no_games):
    with pytest.raises(InputError) as err:
        fairness.market_structures(**{"progress": False, **options})
    assert err.value.field == field


def test_mixed_structure_follows_decision_13():
    for n in range(2, 7):
        roles = [s.split(":")[0] for s in fairness.structure_seats("mixed", n, "investor")]
        assert abs(roles.count("competitor") - roles.count("monopolist")) <= 1
