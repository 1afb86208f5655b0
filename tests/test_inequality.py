"""Inequality (amteach.analysis.inequality): the Gini coefficient, Lorenz curves, the gap
between the roles, on a batch and on one game, their charts and the sentences that read them."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st

import amteach
from amteach.analysis.inequality import (
    gini,
    gini_by_round,
    gini_figure,
    lorenz,
    lorenz_at_rounds,
    lorenz_figure,
    reading_gini,
    reading_lorenz,
    reading_role_gap,
    role_gap_by_round,
    role_gap_figure,
    wealth_history,
)
from amteach.engine.errors import InputError
from amteach.engine.game import Game
from amteach.engine.rules import RuleSet
from amteach.session import Session
from amteach.sim.play import BatchConfig, SeatSpec, play_bot_game, play_game
from amteach.style import ROLE_COLOURS, ROLE_LABELS

SEED = 11

wealth_lists = st.lists(st.integers(min_value=0, max_value=50_000), min_size=1, max_size=12).filter(
    lambda xs: sum(xs) > 0
)


def gini_by_definition(values: list[float]) -> float:
    """The documented formula, computed the slow way: every ordered pair's gap."""
    x = np.asarray(values, dtype=float)
    return float(np.abs(x[:, None] - x[None, :]).sum() / (2 * len(x) ** 2 * x.mean()))


# -- gini ------------------------------------------------------------------------------------


@pytest.mark.parametrize("amounts", [[1500] * 4, [7, 7], [250.5] * 6, [1]])
def test_gini_is_zero_for_equal_wealth(amounts):
    assert gini(amounts) == 0.0


@pytest.mark.parametrize("n", range(2, 7))
def test_gini_is_n_minus_1_over_n_when_one_player_holds_everything(n):
    amounts = [0] * (n - 1) + [3000]
    assert gini(amounts) == pytest.approx((n - 1) / n)


def test_gini_hand_computed_examples():
    # 1, 2, 3, 4: pair gaps 1+2+3+1+2+1 = 10, twice over = 20; 20 / (2 * 16 * 2.5) = 0.25
    assert gini([4, 1, 3, 2]) == pytest.approx(0.25)
    # 0, 0, 10, 30: pair gaps 0+10+30+10+30+20 = 100, twice = 200; 200 / (2 * 16 * 10)
    assert gini(np.array([30, 0, 10, 0])) == pytest.approx(0.625)


def test_gini_of_all_zero_wealth_is_zero():
    assert gini([0, 0, 0]) == 0.0


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ([], "at least one"),
        ([100, float("nan")], "NaN"),
        ([100, float("inf")], "NaN or infinity"),
        ([100, -5], "at least 0, not -5"),
        (["lots", 3], "numbers"),
    ],
)
def test_gini_rejects_bad_input_naming_values(values, words):
    with pytest.raises(InputError, match=words) as err:
        gini(values)
    assert err.value.field == "values"


@given(wealth_lists)
def test_gini_matches_the_documented_pairwise_formula(amounts):
    assert gini(amounts) == pytest.approx(gini_by_definition(amounts), abs=1e-12)


@given(wealth_lists, st.floats(min_value=0.01, max_value=1000), st.randoms())
def test_gini_ignores_scale_and_order(amounts, factor, rng):
    shuffled = list(amounts)
    rng.shuffle(shuffled)
    assert gini(shuffled) == pytest.approx(gini(amounts), abs=1e-12)
    assert gini([a * factor for a in amounts]) == pytest.approx(gini(amounts), abs=1e-9)


@given(st.lists(st.integers(min_value=0, max_value=50_000), min_size=1, max_size=12))
def test_gini_lies_between_0_and_n_minus_1_over_n(amounts):
    n = len(amounts)
    assert 0.0 <= gini(amounts) <= (n - 1) / n


# -- lorenz ----------------------------------------------------------------------------------


@given(st.lists(st.integers(min_value=0, max_value=50_000), min_size=1, max_size=12))
def test_lorenz_runs_from_0_0_to_1_1_rising_convex_and_below_equality(amounts):
    curve = lorenz(amounts)
    assert list(curve.columns) == ["population_share", "wealth_share"]
    assert len(curve) == len(amounts) + 1
    x, y = curve["population_share"].to_numpy(), curve["wealth_share"].to_numpy()
    assert (x[0], y[0]) == (0.0, 0.0)
    assert (x[-1], y[-1]) == (1.0, 1.0)
    steps = np.diff(y)
    assert (steps >= -1e-12).all()  # rising
    assert (np.diff(steps) >= -1e-12).all()  # convex: each player holds at least the last
    assert (y <= x + 1e-12).all()  # on or below the equality line


@given(wealth_lists)
def test_gini_is_one_minus_twice_the_area_under_the_lorenz_curve(amounts):
    curve = lorenz(amounts)
    y = curve["wealth_share"].to_numpy()
    area = float(np.sum((y[1:] + y[:-1]) / 2) / len(amounts))
    assert gini(amounts) == pytest.approx(1 - 2 * area, abs=1e-12)


def test_lorenz_hand_computed():
    curve = lorenz([30, 0, 10, 0])
    assert curve["wealth_share"].tolist() == pytest.approx([0, 0, 0, 0.25, 1])
    assert curve["population_share"].tolist() == pytest.approx([0, 0.25, 0.5, 0.75, 1])


# -- a small batch ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def batch():
    return amteach.simulate(games=20, workers=1, progress=False, seed=SEED)


@pytest.fixture(scope="module")
def rounds(batch):
    return batch.rounds


def test_batch_gini_is_zero_at_round_0_because_everyone_starts_with_starting_cash(rounds):
    """Every player starts with the rule set's one starting_cash, whatever the role."""
    start = rounds[rounds["round"] == 0]
    assert (start["wealth"] == RuleSet.preset("default").starting_cash).all()
    frame = gini_by_round(rounds)
    first = frame.iloc[0]
    assert first["round"] == 0
    assert (first["gini_mean"], first["gini_low"], first["gini_high"]) == (0.0, 0.0, 0.0)
    assert first["games"] == 20


def test_batch_gini_matches_gini_by_hand_for_each_game_and_round(rounds):
    frame = gini_by_round(rounds).set_index("round")
    for r in (1, 15, 40):
        by_hand = [gini(rows["wealth"]) for _, rows in rounds[rounds["round"] == r].groupby("game")]
        assert frame.loc[r, "gini_mean"] == pytest.approx(np.mean(by_hand))
        assert frame.loc[r, "gini_low"] == pytest.approx(np.percentile(by_hand, 2.5))
        assert frame.loc[r, "gini_high"] == pytest.approx(np.percentile(by_hand, 97.5))
        assert frame.loc[r, "gini_sd"] == pytest.approx(np.std(by_hand, ddof=1))
        assert frame.loc[r, "games"] == len(by_hand)
    assert (frame["gini_low"] <= frame["gini_mean"] + 1e-12).all()
    assert (frame["gini_mean"] <= frame["gini_high"] + 1e-12).all()
    assert (frame["players"] == 4).all()


def test_batch_gini_counts_only_the_games_still_running(batch, rounds):
    frame = gini_by_round(rounds).set_index("round")
    lengths = batch.games["rounds"].to_numpy()
    for r in (0, 50, int(lengths.min()) + 1, int(lengths.max())):
        assert frame.loc[r, "games"] == (lengths >= r).sum()


@given(
    st.lists(
        st.lists(st.integers(min_value=0, max_value=9000), min_size=2, max_size=6),
        min_size=1,
        max_size=5,
    )
)
def test_grouped_gini_equals_gini_of_each_game(games):
    rows = [
        {"game": g, "round": 3, "seat": s, "role": "competitor", "wealth": w}
        for g, wealth in enumerate(games)
        for s, w in enumerate(wealth)
    ]
    frame = gini_by_round(pd.DataFrame(rows).sample(frac=1, random_state=0))
    assert frame["gini_mean"].iloc[0] == pytest.approx(np.mean([gini(w) for w in games]))


def test_role_gap_matches_a_direct_groupby(rounds):
    frame = role_gap_by_round(rounds).set_index("round")
    means = rounds.groupby(["round", "role"], observed=True)["wealth"].mean().unstack()
    assert frame["competitor_mean"].to_numpy() == pytest.approx(means["competitor"].to_numpy())
    assert frame["monopolist_mean"].to_numpy() == pytest.approx(means["monopolist"].to_numpy())
    assert frame["gap"].to_numpy() == pytest.approx(
        (means["monopolist"] - means["competitor"]).to_numpy()
    )
    assert frame["ratio"].to_numpy() == pytest.approx(
        (means["monopolist"] / means["competitor"]).to_numpy()
    )
    assert (frame["games"] == rounds.groupby("round")["game"].nunique()).all()
    assert frame.loc[0, "gap"] == 0


def test_lorenz_at_rounds_pools_the_games_still_running(batch, rounds):
    shortest = int(batch.games["rounds"].min())
    late = shortest + 1  # the shortest game has ended by then and is left out
    frame = lorenz_at_rounds(rounds, at=(0, 10, late, 10_000))
    assert sorted(frame["round"].unique()) == [0, 10, late]  # round 10,000: no game
    at_late = frame[frame["round"] == late]
    running = rounds[rounds["round"] == late]
    assert at_late["games"].iloc[0] == (batch.games["rounds"] >= late).sum() < 20
    assert at_late["players"].iloc[0] == len(running)
    expected = lorenz(running["wealth"])
    assert at_late["wealth_share"].to_numpy() == pytest.approx(expected["wealth_share"].to_numpy())
    start = frame[frame["round"] == 0]
    assert start["wealth_share"].to_numpy() == pytest.approx(start["population_share"])


def test_lorenz_at_rounds_thins_a_long_curve_onto_the_same_curve(rounds):
    full = lorenz_at_rounds(rounds, at=[30])
    thin = lorenz_at_rounds(rounds, at=[30], max_points=11)
    assert len(full) == full["players"].iloc[0] + 1
    assert thin["population_share"].tolist() == pytest.approx(np.linspace(0, 1, 11))
    on_curve = np.interp(thin["population_share"], full["population_share"], full["wealth_share"])
    assert thin["wealth_share"].to_numpy() == pytest.approx(on_curve)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda r: gini_by_round(r.drop(columns="wealth")), "rounds"),
        (lambda r: gini_by_round(r.iloc[0:0]), "rounds"),
        (lambda r: gini_by_round([1, 2]), "rounds"),
        (lambda r: role_gap_by_round(r.assign(wealth=-1)), "rounds"),
        (lambda r: gini_by_round(r, coverage=1.5), "coverage"),
        (lambda r: role_gap_by_round(r.assign(role="banker")), "role"),
        (lambda r: lorenz_at_rounds(r, at=[-1]), "at"),
        (lambda r: lorenz_at_rounds(r, at=["ten"]), "at"),
        (lambda r: lorenz_at_rounds(r, at=[10_000]), "at"),
        (lambda r: lorenz_at_rounds(r, max_points=1), "max_points"),
    ],
)
def test_batch_functions_name_the_bad_argument(rounds, call, field):
    with pytest.raises(InputError) as err:
        call(rounds)
    assert err.value.field == field


# -- one game --------------------------------------------------------------------------------


def bot_game(decisions: int) -> Game:
    seats = [("Ana", "competitor", "investor"), ("Ben", "monopolist", "investor")]
    session = Session([*seats, ("Cleo", "competitor", "investor")], seed=4)
    session.play_until_human(max_decisions=decisions)
    return session.game


def test_wealth_history_of_a_game_in_progress():
    game = bot_game(300)
    assert not game.over
    history = wealth_history(game, ["human", "investor", "cautious"])
    assert list(history.columns) == [
        "game",
        "round",
        "seat",
        "role",
        "bot",
        "cash",
        "titles",
        "buildings",
        "wealth",
    ]
    # one row per player per round, rounds 0 to the one in progress
    assert not history.duplicated(["round", "seat"]).any()
    assert history.groupby("round").size().eq(3).all()
    assert sorted(history["round"].unique()) == list(range(game.round + 1))
    assert (history["game"] == 0).all()
    assert history.groupby("seat")["bot"].first().tolist() == ["human", "investor", "cautious"]
    assert history.groupby("seat")["role"].first().astype(str).tolist() == [
        "competitor",
        "monopolist",
        "competitor",
    ]
    start = history[history["round"] == 0]
    assert start["wealth"].nunique() == 1
    last = history[history["round"] == game.round].sort_values("seat")
    assert last["wealth"].tolist() == [game.wealth(p)["net_worth"] for p in range(len(game.names))]
    assert last["cash"].tolist() == list(game.cash)
    assert gini_by_round(history)["gini_mean"].iloc[-1] == pytest.approx(
        gini([game.wealth(p)["net_worth"] for p in range(len(game.names))])
    )


def test_wealth_history_of_a_finished_game_equals_what_a_batch_records():
    """The history is taken at the moments the simulation records its rounds frame."""
    config = BatchConfig(
        seats=(SeatSpec("competitor", "builder"), SeatSpec("monopolist", "investor")),
        rules=RuleSet.preset("default", round_cap=25).to_dict(),
        seed=SEED,
    )
    game, _ = play_bot_game(3, config)
    assert game.over
    recorded = pd.DataFrame(play_game(3, config)["rounds"])
    history = wealth_history(game)
    columns = ["round", "seat", "cash", "titles", "buildings"]
    assert history[columns].to_numpy().tolist() == recorded[columns].to_numpy().tolist()
    assert (history["bot"] == "").all()
    final = history[history["round"] == game.round]
    assert final["wealth"].tolist() == [game.wealth(p)["net_worth"] for p in range(len(game.names))]


@pytest.mark.parametrize(
    ("bots", "field"), [(["human"], "bots"), ({7: "human"}, "bots"), ("human", "bots")]
)
def test_wealth_history_names_bad_bot_labels(bots, field):
    with pytest.raises(InputError) as err:
        wealth_history(bot_game(5), bots)
    assert err.value.field == field


def test_wealth_history_rejects_something_that_is_not_a_game():
    with pytest.raises(InputError) as err:
        wealth_history("my game")
    assert err.value.field == "game"


# -- charts ----------------------------------------------------------------------------------


def test_gini_figure_draws_the_average_and_its_band(rounds):
    frame = gini_by_round(rounds)
    figure = gini_figure(frame)
    assert isinstance(figure, go.Figure) and not isinstance(figure, go.FigureWidget)
    band, line = figure.data
    assert band.fill == "toself"
    assert list(line.y) == pytest.approx(frame["gini_mean"].tolist())
    assert max(band.y) == pytest.approx(frame["gini_high"].max())
    assert "Gini" in figure.layout.title.text
    assert figure.layout.xaxis.title.text == "round"


def test_lorenz_figure_draws_one_curve_per_round_and_the_equality_line(rounds):
    frame = lorenz_at_rounds(rounds, at=(0, 10, 25))
    figure = lorenz_figure(frame)
    names = [trace.name for trace in figure.data]
    assert names == ["everyone equal", "round 0", "round 10", "round 25"]
    assert list(figure.data[0].x) == [0, 1] and list(figure.data[0].y) == [0, 1]
    symbols = {trace.marker.symbol for trace in figure.data[1:]}
    assert len(symbols) == 3  # told apart by shape as well as shade


def test_role_gap_figure_uses_role_colours_markers_and_labels(rounds):
    figure = role_gap_figure(role_gap_by_round(rounds))
    competitor, monopolist = figure.data
    assert competitor.line.color == ROLE_COLOURS[0] and competitor.marker.symbol == "circle"
    assert monopolist.line.color == ROLE_COLOURS[1] and monopolist.marker.symbol == "square"
    assert ROLE_LABELS[0] in competitor.name and ROLE_LABELS[1] in monopolist.name
    assert figure.layout.yaxis.title.text


def test_charts_name_a_wrong_frame():
    with pytest.raises(InputError) as err:
        lorenz_figure(pd.DataFrame({"round": [0]}))
    assert err.value.field == "lorenz_frame"


# -- readings: their numbers come from the frame --------------------------------------------


def numbers_in(text: str) -> list[str]:
    return re.findall(r"\$?\d+(?:,\d{3})*(?:\.\d+)?%?", text)


def test_reading_gini_quotes_the_frame(rounds):
    frame = gini_by_round(rounds)
    row = frame.set_index("round").loc[40]
    text = reading_gini(frame, at=40)
    for value in (row["gini_mean"], row["gini_low"], row["gini_high"]):
        assert f"{value:.2f}" in numbers_in(text)
    assert "round 40" in text and f"the {int(row['games'])} games" in text
    assert "0.75" in numbers_in(text)  # one of 4 players holding everything
    assert "round 0" in text and "0.00" in numbers_in(text)


def test_reading_gini_by_default_reads_the_last_round_half_the_games_reach(batch, rounds):
    lengths = batch.games["rounds"].to_numpy()
    typical = max(r for r in range(lengths.max() + 1) if 2 * (lengths >= r).sum() >= 20)
    assert f"by round {typical} " in reading_gini(gini_by_round(rounds))
    assert f"At round {typical}," in reading_role_gap(role_gap_by_round(rounds))


def test_reading_role_gap_quotes_the_frame(rounds):
    frame = role_gap_by_round(rounds)
    row = frame.set_index("round").loc[30]
    text = reading_role_gap(frame, at=30)
    numbers = numbers_in(text)
    assert f"${row['monopolist_mean']:,.0f}" in numbers
    assert f"${row['competitor_mean']:,.0f}" in numbers
    assert f"${abs(row['gap']):,.0f}" in numbers
    richer = "Monopolists" if row["gap"] > 0 else "Competitors"
    assert f"{richer} are" in text
    ratio = max(row["ratio"], 1 / row["ratio"])
    assert f"{ratio:.1f}" in numbers


def test_reading_role_gap_says_level_at_the_start(rounds):
    assert "level" in reading_role_gap(role_gap_by_round(rounds), at=0)


def test_reading_lorenz_quotes_the_poorest_half_share(rounds):
    frame = lorenz_at_rounds(rounds, at=(0, 20))
    text = reading_lorenz(frame)
    running = np.sort(rounds.loc[rounds["round"] == 20, "wealth"].to_numpy())
    half = running[: len(running) // 2].sum() / running.sum()  # an even number of players
    assert f"{half:.0%} at round 20" in text
    assert "50% of all the wealth at round 0" in text


def test_readings_of_one_game_speak_of_this_game():
    history = wealth_history(bot_game(300))
    assert "in this game" in reading_gini(gini_by_round(history))
    assert "in this game" in reading_role_gap(role_gap_by_round(history))
    assert "round 5" in reading_lorenz(lorenz_at_rounds(history, at=[0, 5]))


def test_every_reading_is_one_or_two_sentences(rounds):
    texts = [
        reading_gini(gini_by_round(rounds)),
        reading_role_gap(role_gap_by_round(rounds)),
        reading_lorenz(lorenz_at_rounds(rounds)),
    ]
    for text in texts:
        ends = [i for i, (a, b) in enumerate(itertools.pairwise(text)) if a == "." and b == " "]
        assert len(ends) + 1 <= 2
        assert text.endswith(".")
