"""Rule sweeps and presets compared (`amteach.sim.sweep`): planned and checked before any game,
timed beforehand, run value by value, and the `amteach sweep` command. Their charts and
readings are tested in tests/test_fairness.py."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result
from conftest import CAP, FEE, FEES, GAMES, MIXED
from hypothesis import given, settings
from hypothesis import strategies as st

import amteach
from amteach.analysis import fairness
from amteach.cli import main
from amteach.engine.errors import InputError
from amteach.engine.rules import RuleSet
from amteach.sim import sweep as sweeps

ROOT = Path(__file__).resolve().parents[1]


# -- sweeps -------------------------------------------------------------------------------------


def test_a_sweeps_frame_has_one_row_per_value_and_role(fee_sweep):
    assert list(fee_sweep.columns) == list(sweeps.SWEEP_COLUMNS)
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
    frame = sweeps.sweep(
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
        sweeps.sweep(parameter, values, games=4, workers=1, progress=False)
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
        sweeps.sweep(FEE, [10, 20], **{"games": 4, "progress": False, **options})
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
        sweeps.plan_sweep(parameter, [negative], 4, None, "default", 0, 1, 200, "A")
    assert err.value.field == parameter
    assert str(negative) in str(err.value)


def test_ctrl_c_between_values_keeps_the_values_finished():
    seen = []

    def stop_after_first(value: object, rows: pd.DataFrame) -> None:
        seen.append(value)
        raise KeyboardInterrupt

    frame = sweeps.sweep(
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
    monkeypatch.setattr(sweeps, "calibrate", lambda plan, count: 0.05)
    monkeypatch.setattr(sweeps, "free_cores", lambda: 2)
    one = sweeps.estimate_sweep_seconds(FEE, [10, 160, 300], games=1000, workers=1)
    assert one == pytest.approx(0.05 * 3 * 1000)
    two = sweeps.estimate_sweep_seconds(FEE, [10, 160, 300], games=1000, workers=2)
    assert two == pytest.approx(0.05 * 3 * 1000 / 2 + 0.2 * 3)
    # a core busy with other work does not speed the sweep up
    monkeypatch.setattr(sweeps, "free_cores", lambda: 1)
    busy = sweeps.estimate_sweep_seconds(FEE, [10, 160, 300], games=1000, workers=2)
    assert busy == pytest.approx(0.05 * 3 * 1000 + 0.2 * 3)


def test_free_cores_discounts_the_load_average(monkeypatch):
    monkeypatch.setattr(sweeps, "available_cpus", lambda: 4)
    monkeypatch.setattr(sweeps.os, "getloadavg", lambda: (1.2, 0.0, 0.0))
    assert sweeps.free_cores() == 3
    monkeypatch.setattr(sweeps.os, "getloadavg", lambda: (9.0, 0.0, 0.0))
    assert sweeps.free_cores() == 1


def test_the_estimate_is_timed_on_this_machine_and_positive():
    seconds = sweeps.estimate_sweep_seconds(
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
    assert sweeps.describe_duration(seconds) == words


def test_a_long_sweep_says_how_long_before_any_game_is_played(monkeypatch):
    events: list[str] = []
    real_simulate, real_message = sweeps.simulate, sweeps.estimate_message

    def simulate(*args: object, **kwargs: object) -> object:
        events.append("games")
        return real_simulate(*args, **kwargs)

    def message(total: int, seconds: float) -> str:
        events.append("estimate")
        return real_message(total, seconds)

    monkeypatch.setattr(sweeps, "estimate_seconds", lambda plan, count: 3600.0)
    monkeypatch.setattr(sweeps, "simulate", simulate)
    monkeypatch.setattr(sweeps, "estimate_message", message)
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
    monkeypatch.setattr(sweeps, "LONG_SWEEP_SECONDS", 0.0)
    slow = invoke(*args)
    assert slow.exit_code == 0, slow.output
    said = slow.output.index("This sweep plays 6 games; expect about")
    assert said < slow.output.index("parameter")  # before the table, so before the games


def test_python_callers_get_the_estimate_before_the_first_game(monkeypatch):
    events: list[object] = []
    real_simulate = sweeps.simulate

    def simulate(*args: object, **kwargs: object) -> object:
        events.append("games")
        return real_simulate(*args, **kwargs)

    monkeypatch.setattr(sweeps, "simulate", simulate)
    sweeps.sweep(
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
    frame = sweeps.compare_presets(
        games=4, seats=MIXED, seed=1, workers=1, round_cap=20, progress=False
    )
    assert list(frame.columns) == list(sweeps.SWEEP_COLUMNS)
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
    frame = sweeps.compare_presets(
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
        sweeps.compare_presets(presets, games=2, progress=False)
    assert err.value.field == "presets"


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
    assert list(saved.columns) == list(sweeps.SWEEP_COLUMNS) and len(saved) == 4
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
    for column in (*sweeps.SWEEP_COLUMNS, *fairness.MARKET_COLUMNS):
        assert f"| `{column}` |" in text, column
    assert "allow_one_role=True" in text and "decision 13" in text.lower()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "| `amteach sweep --set" in readme
