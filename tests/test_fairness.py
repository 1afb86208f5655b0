"""Is the game fair? Rule sweeps, presets compared, win-rate charts, the counterfactual of one
role's rules for everyone (decision 13's opt-in), and the sentences that read each chart."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

import amteach
from amteach.analysis import fairness, stats
from amteach.analysis.inequality import gini
from amteach.cli import main
from amteach.engine.errors import InputError, ScenarioError
from amteach.engine.game import Game, PlayerSetup, Setup
from amteach.engine.rules import RuleSet
from amteach.render import ROLE_COLOURS, ROLE_SYMBOLS
from amteach.sim import SeatError, wilson_interval

FEE = "foundation_monopolist_fee"
FEES = (10, 160)
GAMES = 12
CAP = 60
MIXED = "competitor:investor,monopolist:builder,competitor:cautious,monopolist:investor"
ROOT = Path(__file__).resolve().parents[1]


def pct(x: float) -> str:
    """A rate as the readings print it: one decimal place."""
    return f"{100 * x:.1f}%"


@pytest.fixture(scope="module")
def fee_sweep() -> pd.DataFrame:
    return fairness.sweep(
        FEE, list(FEES), games=GAMES, seats=MIXED, seed=3, workers=1, round_cap=CAP, progress=False
    )


@pytest.fixture(scope="module")
def batch() -> amteach.sim.SimulationResult:
    return amteach.simulate(
        games=GAMES, seats=MIXED, seed=3, workers=1, round_cap=CAP, progress=False
    )


@pytest.fixture(scope="module")
def structures() -> pd.DataFrame:
    return fairness.market_structures(games=6, seed=2, workers=1, round_cap=40, progress=False)


@pytest.fixture
def no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if any game is played (bad input must be refused before that)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a game was played before the input was checked")

    monkeypatch.setattr(fairness, "simulate", refuse)
    monkeypatch.setattr(fairness, "play_game", refuse)


# -- sweeps -------------------------------------------------------------------------------------


def test_a_sweeps_frame_has_one_row_per_value_and_role(fee_sweep):
    assert list(fee_sweep.columns) == list(fairness.SWEEP_COLUMNS)
    assert len(fee_sweep) == len(FEES) * 2
    pairs = list(zip(fee_sweep["value"], fee_sweep["role"], strict=True))
    assert pairs == [(v, r) for v in FEES for r in ("competitor", "monopolist")]
    assert (fee_sweep["parameter"] == FEE).all()
    assert (fee_sweep["games"] == GAMES).all()
    assert (
        (fee_sweep["ci_low"] <= fee_sweep["rate"]) & (fee_sweep["rate"] <= fee_sweep["ci_high"])
    ).all()
    assert (fee_sweep["mean_rounds"] <= CAP).all()
    assert fee_sweep["round_cap_share"].between(0, 1).all()
    assert fee_sweep.attrs["interrupted"] is False


def test_sweep_rates_agree_with_a_batch_played_directly_with_the_same_seed_and_rules(fee_sweep):
    for fee in FEES:
        direct = amteach.simulate(
            games=GAMES, seats=MIXED, seed=3, workers=1, round_cap=CAP, progress=False, **{FEE: fee}
        )
        rows = fee_sweep[fee_sweep["value"] == fee].reset_index(drop=True)
        expected = direct.win_rates("role")
        pd.testing.assert_frame_equal(
            rows[["role", "wins", "games", "rate", "ci_low", "ci_high"]], expected
        )
        assert rows["mean_rounds"].iloc[0] == pytest.approx(direct.games["rounds"].mean())
        capped = (direct.games["end_reason"] == "round_cap").mean()
        assert rows["round_cap_share"].iloc[0] == pytest.approx(capped)


def test_a_sweep_of_the_round_cap_uses_each_value_as_the_games_cap():
    frame = fairness.sweep(
        "round_cap", [5, 9], games=3, seats=MIXED, workers=1, progress=False, seed=1
    )
    for cap in (5, 9):
        assert (frame.loc[frame["value"] == cap, "mean_rounds"] <= cap).all()
    assert frame.loc[frame["value"] == 5, "mean_rounds"].iloc[0] == 5


@pytest.mark.parametrize(
    ("parameter", "values", "message"),
    [
        (FEE, [-5, 10], "must be 0 or more, not -5"),
        (FEE, [], "needs at least one value"),
        (FEE, ["ten"], "must be a whole number, not 'ten'"),
        (FEE, [10, 160, 10], "the value 10 appears twice"),
        (FEE, "10,160", "must be a list"),
        ("fee", [10], "unknown rule parameter 'fee'; valid parameters: "),
        ("building_supply", ["limited", "sometimes"], "must be 'limited' or 'unlimited'"),
        ("round_cap", [None], "needs a round cap"),
        ("preset", ["default"], "compare_presets"),
    ],
)
def test_bad_sweep_input_names_the_parameter_before_any_game(parameter, values, message, no_games):
    with pytest.raises(InputError) as err:
        fairness.sweep(parameter, values, games=4, workers=1, progress=False)
    assert err.value.field == parameter
    assert message in str(err.value) and parameter in str(err.value)
    if parameter == "fee":
        assert FEE in str(err.value)  # the valid names are listed


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"games": 0}, "games"),
        ({"workers": 0}, "workers"),
        ({"game": "C"}, "game"),
        ({"seats": "competitor:investor,competitor:builder"}, "seats"),
        ({"rules": "classic"}, "rules"),
    ],
)
def test_bad_sweep_settings_are_named_before_any_game(options, field, no_games):
    with pytest.raises(InputError) as err:
        fairness.sweep(FEE, [10, 20], **{"games": 4, "progress": False, **options})
    assert err.value.field == field


_INT_PARAMETERS = sorted(
    name
    for name, value in RuleSet.preset("default").to_dict().items()
    if isinstance(value, int) and not isinstance(value, bool)
)


@settings(max_examples=40, deadline=None)
@given(parameter=st.sampled_from(_INT_PARAMETERS), negative=st.integers(max_value=-1))
def test_a_negative_value_of_any_whole_number_parameter_is_refused_naming_it(parameter, negative):
    with pytest.raises(InputError) as err:
        fairness._plan_sweep(parameter, [negative], 4, None, "default", 0, 1, 200, "A")
    assert err.value.field == parameter
    assert str(negative) in str(err.value)


def test_ctrl_c_between_values_keeps_the_values_finished():
    seen = []

    def stop_after_first(value: object, rows: pd.DataFrame) -> None:
        seen.append(value)
        raise KeyboardInterrupt

    frame = fairness.sweep(
        FEE,
        [10, 160],
        games=2,
        seats=MIXED,
        workers=1,
        round_cap=10,
        progress=False,
        on_value=stop_after_first,
    )
    assert seen == [10]
    assert list(frame["value"]) == [10, 10] and frame.attrs["interrupted"] is True


# -- the time estimate --------------------------------------------------------------------------


def test_the_estimate_scales_the_calibrated_game_time_by_games_and_free_workers(monkeypatch):
    monkeypatch.setattr(fairness, "_calibrate", lambda plan, count: 0.05)
    monkeypatch.setattr(fairness, "_free_cores", lambda: 2)
    one = fairness.estimate_sweep_seconds(FEE, [10, 160, 300], games=1000, workers=1)
    assert one == pytest.approx(0.05 * 3 * 1000)
    two = fairness.estimate_sweep_seconds(FEE, [10, 160, 300], games=1000, workers=2)
    assert two == pytest.approx(0.05 * 3 * 1000 / 2 + 0.2 * 3)
    # a core busy with other work does not speed the sweep up
    monkeypatch.setattr(fairness, "_free_cores", lambda: 1)
    busy = fairness.estimate_sweep_seconds(FEE, [10, 160, 300], games=1000, workers=2)
    assert busy == pytest.approx(0.05 * 3 * 1000 + 0.2 * 3)


def test_free_cores_discounts_the_load_average(monkeypatch):
    monkeypatch.setattr(fairness.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(fairness.os, "getloadavg", lambda: (1.2, 0.0, 0.0))
    assert fairness._free_cores() == 3
    monkeypatch.setattr(fairness.os, "getloadavg", lambda: (9.0, 0.0, 0.0))
    assert fairness._free_cores() == 1


def test_the_estimate_is_timed_on_this_machine_and_positive():
    seconds = fairness.estimate_sweep_seconds(
        FEE, [10, 160], games=100, seats=MIXED, workers=1, round_cap=20, calibration_games=2
    )
    assert 0 < seconds < 600


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (34, "about 30 seconds"),
        (5, "about 10 seconds"),
        (125, "about 2 minutes"),
        (3600, "about 60 minutes"),
        (9000, "about 2.5 hours"),
    ],
)
def test_durations_are_described_in_words(seconds, words):
    assert fairness.describe_duration(seconds) == words


def test_a_long_sweep_says_how_long_before_any_game_is_played(monkeypatch):
    events: list[str] = []
    real_simulate, real_message = fairness.simulate, fairness.estimate_message

    def simulate(*args: object, **kwargs: object) -> object:
        events.append("games")
        return real_simulate(*args, **kwargs)

    def message(total: int, seconds: float) -> str:
        events.append("estimate")
        return real_message(total, seconds)

    monkeypatch.setattr(fairness, "_estimate", lambda plan, count: 3600.0)
    monkeypatch.setattr(fairness, "simulate", simulate)
    monkeypatch.setattr(fairness, "estimate_message", message)
    result = invoke(
        "sweep",
        "--set",
        f"{FEE}=10,160",
        "--games",
        "2",
        "--workers",
        "1",
        "--round-cap",
        "10",
        "--quiet",
    )
    assert result.exit_code == 0, result.output
    assert events[0] == "estimate" and events.count("games") == 2
    assert "This sweep plays 4 games; expect about 60 minutes." in result.stderr


def test_the_estimate_is_printed_first_only_above_the_threshold(monkeypatch):
    args = (
        "sweep",
        "--set",
        f"{FEE}=10,160",
        "--games",
        "3",
        "--workers",
        "1",
        "--round-cap",
        "10",
        "--quiet",
    )
    quick = invoke(*args)
    assert quick.exit_code == 0 and "This sweep plays" not in quick.output
    monkeypatch.setattr(fairness, "LONG_SWEEP_SECONDS", 0.0)
    slow = invoke(*args)
    assert slow.exit_code == 0, slow.output
    said = slow.output.index("This sweep plays 6 games; expect about")
    assert said < slow.output.index("parameter")  # before the table, so before the games


def test_python_callers_get_the_estimate_before_the_first_game(monkeypatch):
    events: list[object] = []
    real_simulate = fairness.simulate

    def simulate(*args: object, **kwargs: object) -> object:
        events.append("games")
        return real_simulate(*args, **kwargs)

    monkeypatch.setattr(fairness, "simulate", simulate)
    fairness.sweep(
        FEE,
        [10],
        games=2,
        seats=MIXED,
        workers=1,
        round_cap=10,
        progress=False,
        on_estimate=lambda seconds, total: events.append(("estimate", total, seconds > 0)),
    )
    assert events == [("estimate", 2, True), "games"]


# -- presets compared ---------------------------------------------------------------------------


def test_compare_presets_returns_both_presets_with_both_roles():
    frame = fairness.compare_presets(
        games=4, seats=MIXED, seed=1, workers=1, round_cap=20, progress=False
    )
    assert list(frame.columns) == list(fairness.SWEEP_COLUMNS)
    assert (frame["parameter"] == "preset").all()
    assert set(zip(frame["value"], frame["role"], strict=True)) == {
        (p, r) for p in ("default", "edition-2005") for r in ("competitor", "monopolist")
    }
    figure = fairness.sweep_figure(frame)
    assert figure.layout.xaxis.type == "category"
    assert "preset" in figure.layout.title.text and "preset" in figure.layout.xaxis.title.text
    reading = fairness.reading_sweep(frame)
    assert reading.startswith("From the default preset to the edition-2005 preset")


def test_compare_presets_agrees_with_a_batch_played_directly():
    frame = fairness.compare_presets(
        ["edition-2005"], games=4, seats=MIXED, seed=2, workers=1, round_cap=20, progress=False
    )
    direct = amteach.simulate(
        games=4, seats=MIXED, rules="edition-2005", seed=2, workers=1, round_cap=20, progress=False
    )
    assert list(frame["wins"]) == list(direct.win_rates("role")["wins"])


@pytest.mark.parametrize(
    ("presets", "message"),
    [
        ([], "at least one preset"),
        (["default", "classic"], "unknown rules preset 'classic'"),
        (["default", "default"], "appears twice"),
        ("default", "must be a list"),
    ],
)
def test_bad_presets_are_named(presets, message, no_games):
    with pytest.raises(InputError, match=message) as err:
        fairness.compare_presets(presets, games=2, progress=False)
    assert err.value.field == "presets"


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
    assert figure.layout.xaxis.title.text == "foundation monopolist fee"
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
    figure = fairness.win_rates_figure(batch, by)
    assert type(figure) is go.Figure
    bars = figure.data[0]
    expected = batch.win_rates(by)
    assert list(bars.x) == labels
    assert list(bars.y) == pytest.approx(list(expected["rate"]))
    assert [
        y - down for y, down in zip(bars.y, bars.error_y.arrayminus, strict=True)
    ] == pytest.approx(list(expected["ci_low"]))
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
        figure.data, ("rent_per_turn", "mean_rounds", "mean_gini"), strict=True
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
    assert f"from 0 to {(len(shares) - 1) * 10}" in text
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
    assert (
        f"{m['mean_gini']:.2f} among Monopolists and {c['mean_gini']:.2f} among Competitors" in text
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
    )
    row = structures.set_index("structure").loc["all Monopolists"]
    rent = direct.players.groupby("game")["rent_paid"].sum()
    assert row["rent_per_turn"] == pytest.approx(rent.sum() / direct.games["turns"].sum())
    assert row["rent_per_game"] == pytest.approx(rent.mean())
    ginis = [gini(g["net_worth"]) for _, g in direct.players.groupby("game")]
    assert row["mean_gini"] == pytest.approx(sum(ginis) / len(ginis))
    assert row["mean_rounds"] == pytest.approx(direct.games["rounds"].mean())
    assert row["bankrupt_share"] == pytest.approx(direct.players["bankrupt"].mean())
    assert structures["mean_gini"].between(0, 0.75).all()


@pytest.mark.parametrize(
    ("options", "field"),
    [({"players": 7}, "players"), ({"bot": "genius"}, "bot"), ({"games": 0}, "games")],
)
def test_market_structures_bad_input_is_named(options, field, no_games):
    with pytest.raises(InputError) as err:
        fairness.market_structures(**{"progress": False, **options})
    assert err.value.field == field


def test_mixed_structure_follows_decision_13():
    for n in range(2, 7):
        roles = [s.split(":")[0] for s in fairness.structure_seats("mixed", n, "investor")]
        assert abs(roles.count("competitor") - roles.count("monopolist")) <= 1


# -- the command --------------------------------------------------------------------------------


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=True)


def test_cli_sweep_prints_the_table_and_a_reading_per_value_and_saves_csv(tmp_path):
    out = tmp_path / "fee.csv"
    args = [
        "sweep",
        "--set",
        f"{FEE}=10,160",
        "--games",
        "4",
        "--seats",
        MIXED,
        "--seed",
        "5",
        "--workers",
        "1",
        "--round-cap",
        "20",
        "--quiet",
        "--out",
        str(out),
    ]
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    saved = pd.read_csv(out)
    assert list(saved.columns) == list(fairness.SWEEP_COLUMNS) and len(saved) == 4
    for fee in FEES:
        assert fairness.reading_sweep_value(saved, fee) in result.stdout
    assert fairness.reading_sweep(saved) in result.stdout
    assert re.search(r"foundation_monopolist_fee\s+10\s+monopolist", result.stdout)
    before = out.read_text()
    again = invoke(*args)
    assert again.exit_code == 2 and "already exists" in again.stderr and "--force" in again.stderr
    assert again.stdout == "" and out.read_text() == before
    forced = invoke(*args, "--force")
    assert forced.exit_code == 0


def test_cli_sweep_saves_its_chart_as_a_page_that_opens_offline(tmp_path):
    chart = tmp_path / "fee.html"
    args = ["sweep", "--set", f"{FEE}=10,160", "--games", "4", "--seats", MIXED]
    result = invoke(*args, "--workers", "1", "--round-cap", "20", "--quiet", "--chart", str(chart))
    assert result.exit_code == 0, result.output
    page = chart.read_text()
    assert "Saved the chart (HTML)" in result.stdout
    assert 'src="https://cdn.plot.ly' not in page and len(page) > 1_000_000  # plotly.js inside
    assert "Monopolists" in page and "Competitors" in page
    folder = invoke(*args, "--chart", str(tmp_path))
    assert folder.exit_code == 2 and "--chart" in folder.stderr and "directory" in folder.stderr


def test_cli_sweep_compares_presets():
    result = invoke(
        "sweep",
        "--set",
        "preset=default,edition-2005",
        "--games",
        "2",
        "--workers",
        "1",
        "--round-cap",
        "10",
        "--quiet",
    )
    assert result.exit_code == 0, result.output
    assert "With the default preset:" in result.stdout
    assert "With the edition-2005 preset:" in result.stdout


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--set", f"{FEE}=-5,10"], FEE),
        (["--set", f"{FEE}="], FEE),
        (["--set", f"{FEE}=10,10"], FEE),
        (["--set", f"{FEE}=abc"], FEE),
        (["--set", "fee=1,2"], "fee"),
        (["--set", "preset=default,classic"], "classic"),
        ([], "--set"),
        (["--set", f"{FEE}=1", "--set", "fine=2"], "--set"),
        (["--set", f"{FEE}=1,2", "--games", "0"], "games"),
    ],
)
def test_cli_sweep_bad_input_exits_2_with_one_line_naming_it(args, named, no_games):
    result = invoke("sweep", *args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("amteach: ") and named in lines[0]


def test_cli_sweep_has_help():
    result = invoke("sweep", "--help")
    assert result.exit_code == 0 and "--set NAME=V1,V2,..." in result.output


def test_the_docs_list_the_sweep_command_and_every_column():
    text = (ROOT / "docs" / "simulation.md").read_text(encoding="utf-8")
    for column in (*fairness.SWEEP_COLUMNS, *fairness.MARKET_COLUMNS):
        assert f"| `{column}` |" in text, column
    assert "allow_one_role=True" in text and "decision 13" in text.lower()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "| `amteach sweep --set" in readme
