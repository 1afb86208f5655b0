"""The batch simulator: tidy frames that reconcile with the engine's events, the same results
whatever the worker count or backend, saving and loading, clean stops, and clear errors."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from amteach import simulate
from amteach.cli import main
from amteach.engine import events as ev
from amteach.engine.errors import InputError, RulesError
from amteach.sim import COLUMNS_DOC, BatchConfig, SeatError, SeatSpec, SimulationResult, parse_seats
from amteach.sim.play import play_bot_game

MIXED = "competitor:investor,monopolist:builder:flat,competitor:cautious:percent,monopolist:random"


@pytest.fixture(scope="module")
def batch() -> SimulationResult:
    return simulate(games=24, seats=MIXED, seed=5, workers=1, round_cap=60, progress=False)


def test_frames_have_the_documented_columns_and_types(batch):
    for name, doc in COLUMNS_DOC.items():
        assert list(getattr(batch, name).columns) == list(doc), name
    assert len(batch.games) == 24 and len(batch.players) == 24 * 4
    players = batch.players
    assert isinstance(players["role"].dtype, pd.CategoricalDtype)
    assert set(players["role"].cat.categories) == {"competitor", "monopolist"}
    assert players["final_cash"].dtype == np.int32
    assert players["bankrupt"].dtype == bool
    assert str(players["bankrupt_round"].dtype) == "Int32"
    assert batch.games["end_reason"].isin(["game_a", "game_b", "two_hour", "round_cap"]).all()
    assert batch.rounds["round"].min() == 0
    assert (
        batch.rounds["wealth"] == batch.rounds[["cash", "titles", "buildings"]].sum(axis=1)
    ).all()
    assert batch.taxes["choice"].isin(["flat", "percent"]).all()


def test_rent_paid_equals_rent_received_in_every_game(batch):
    per_game = batch.players.groupby("game")[["rent_paid", "rent_received"]].sum()
    assert (per_game["rent_paid"] == per_game["rent_received"]).all()
    assert per_game["rent_paid"].sum() > 0


def test_frames_reconcile_with_the_engines_events(batch):
    """Every figure in the frames is what the game's own events say."""
    config = BatchConfig(parse_seats(MIXED), batch.meta["rules"], 5)
    for index in (0, 7, 23):
        game, decisions = play_bot_game(index, config)
        rows = batch.players[batch.players["game"] == index].set_index("seat")
        for p in range(len(game.names)):
            rents_paid = sum(
                e.amount for e in game.events if isinstance(e, ev.RentPaid) and e.payer == p
            )
            rents_got = sum(
                e.amount for e in game.events if isinstance(e, ev.RentPaid) and e.payee == p
            )
            income = sum(
                e.amount
                for e in game.events
                if isinstance(e, ev.Payment) and e.payer == p and e.reason == "income_tax"
            )
            assert rows.loc[p, "rent_paid"] == rents_paid
            assert rows.loc[p, "rent_received"] == rents_got
            assert rows.loc[p, "income_tax_paid"] == income
            assert rows.loc[p, "final_cash"] == game.cash[p]
            assert rows.loc[p, "net_worth"] == game.wealth(p)["net_worth"]
            assert rows.loc[p, "turns"] == game.state.turns_taken[p]
            assert rows.loc[p, "bankrupt"] == game.bankrupt[p]
        row = batch.games[batch.games["game"] == index].iloc[0]
        assert row["decisions"] == decisions and row["rounds"] == game.round
        assert row["winner"] == (-1 if game.winner is None else game.winner)
        choices = [e for e in game.events if isinstance(e, ev.IncomeTaxChoice)]
        taxes = batch.taxes[batch.taxes["game"] == index]
        assert list(taxes["flat"]) == [e.flat for e in choices]
        assert list(taxes["percent"]) == [e.percent for e in choices]
        assert list(taxes["choice"]) == [e.choice for e in choices]


def test_tax_behaviour_is_followed_by_every_seat(batch):
    taxes = batch.taxes
    assert (taxes[taxes["seat"] == 1]["choice"] == "flat").all()  # builder:flat
    assert (taxes[taxes["seat"] == 2]["choice"] == "percent").all()  # cautious:percent
    cheaper_seat = taxes[taxes["seat"] == 0]  # investor, cheaper
    assert (cheaper_seat["paid"] == cheaper_seat[["flat", "percent"]].min(axis=1)).all()


def _frames(result: SimulationResult) -> dict[str, pd.DataFrame]:
    return {name: getattr(result, name) for name in ("games", "players", "rounds", "taxes")}


def test_same_seed_gives_identical_frames_across_worker_counts_and_dask():
    """Game i's seed derives from the master seed and i alone."""
    from distributed import Client, LocalCluster

    args = {"games": 16, "seats": MIXED, "seed": 11, "round_cap": 40, "progress": False}
    one = simulate(workers=1, **args)
    two = simulate(workers=2, **args)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        on_dask = simulate(client=client, **args)
    assert on_dask.meta["backend"] == "dask" and two.meta["backend"] == "process-pool"
    for name, frame in _frames(one).items():
        pd.testing.assert_frame_equal(frame, _frames(two)[name])
        pd.testing.assert_frame_equal(frame, _frames(on_dask)[name])
    different = simulate(workers=1, **{**args, "seed": 12})
    assert not one.games["seed"].equals(different.games["seed"])


@pytest.mark.parametrize("file_format", ["parquet", "csv"])
def test_save_and_load_round_trip(batch, tmp_path, file_format):
    batch.save(tmp_path / "out", format=file_format)
    loaded = SimulationResult.load(tmp_path / "out")
    for name, frame in _frames(batch).items():
        pd.testing.assert_frame_equal(getattr(loaded, name), frame, check_categorical=False)
    assert loaded.meta["seed"] == 5 and loaded.meta["completed"] == 24


def test_existing_results_are_not_overwritten_without_force(batch, tmp_path):
    target = batch.save(tmp_path / "out")
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    with pytest.raises(InputError, match="already holds results"):
        batch.save(target)
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before
    batch.save(target, force=True, format="csv")
    assert sorted(p.name for p in target.iterdir()) == sorted(
        ["games.csv", "players.csv", "rounds.csv", "taxes.csv", "meta.json"]
    )


@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_batch_keeps_the_games_already_finished(workers):
    """Ctrl-C stops a batch cleanly; the finished games are kept, complete and in order."""
    seen = []

    def stop_after_first_chunk(done: int, total: int) -> None:
        seen.append(done)
        raise KeyboardInterrupt

    result = simulate(
        games=200,
        seed=3,
        workers=workers,
        round_cap=30,
        progress=False,
        on_chunk=stop_after_first_chunk,
    )
    assert result.interrupted and result.meta["requested"] == 200
    assert 0 < result.completed < 200
    assert result.completed >= seen[0]
    games = result.games["game"].tolist()
    assert games == sorted(games)
    full = simulate(games=200, seed=3, workers=1, round_cap=30, progress=False)
    kept = full.games[full.games["game"].isin(games)].reset_index(drop=True)
    pd.testing.assert_frame_equal(result.games.reset_index(drop=True), kept)


def test_win_rates_have_wilson_intervals(batch):
    rates = batch.win_rates("role")
    assert list(rates["role"]) == ["competitor", "monopolist"]
    assert rates["wins"].sum() + (batch.games["winner"] < 0).sum() == len(batch.games)
    assert ((rates["ci_low"] <= rates["rate"]) & (rates["rate"] <= rates["ci_high"])).all()
    by_bot = batch.win_rates("bot")
    assert set(by_bot["bot"]) == {"investor", "builder", "cautious", "random"}
    assert by_bot["games"].sum() == len(batch.players)
    by_seat = batch.win_rates("seat")
    assert list(by_seat["seat"]) == [0, 1, 2, 3]
    summary = batch.summary()
    assert "Win rate by role (95% Wilson interval)" in summary
    assert "Game length: mean" in summary and "End reasons:" in summary


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        (
            "competitor:genius,monopolist:investor",
            "unknown bot 'genius'; valid bots: cautious, builder, investor, random",
        ),
        (
            "worker:investor,monopolist:investor",
            "unknown role 'worker'; valid roles: competitor, monopolist",
        ),
        ("competitor:investor:sometimes,monopolist:investor", "unknown tax behaviour 'sometimes'"),
        (
            "competitor:investor,competitor:investor,competitor:cautious,monopolist:random",
            "decision 13",
        ),
        ("competitor:investor", "2 to 6 players"),
    ],
)
def test_invalid_seats_are_named_with_the_valid_values(seats, message):
    with pytest.raises(SeatError, match=message.replace("(", r"\(").replace(")", r"\)")):
        simulate(games=2, seats=seats, progress=False)


def test_unknown_preset_and_impossible_parameters_are_named():
    with pytest.raises(RulesError, match="unknown rules preset 'classic'"):
        simulate(games=2, rules="classic", progress=False)
    with pytest.raises(RulesError, match="foundation_monopolist_fee"):
        simulate(games=2, foundation_monopolist_fee=-5, progress=False)
    with pytest.raises(InputError, match="games must be"):
        simulate(games=0, progress=False)


def test_cli_simulate_summarizes_and_saves(tmp_path):
    runner = CliRunner()
    out = tmp_path / "results"
    args = [
        "simulate",
        "--games",
        "12",
        "--workers",
        "1",
        "--round-cap",
        "30",
        "--seed",
        "4",
        "--quiet",
        "--out",
        str(out),
    ]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "Win rate by role (95% Wilson interval):" in result.output
    assert "Competitor" in result.output and "Monopolist" in result.output
    assert SimulationResult.load(out).completed == 12
    again = runner.invoke(main, args)
    assert (
        again.exit_code == 2
        and "already holds results" in again.output
        and "--force" in again.output
    )
    forced = runner.invoke(main, [*args, "--force", "--set", "foundation_monopolist_fee=160"])
    assert forced.exit_code == 0
    assert SimulationResult.load(out).meta["rules"]["foundation_monopolist_fee"] == 160


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--seats", "competitor:genius,monopolist:investor"],
            "valid bots: cautious, builder, investor, random",
        ),
        (["--rules", "classic"], "valid presets: default, edition-2005"),
        (["--set", "fine=-1"], "fine"),
        (["--set", "no_such_rule=1"], "unknown rule parameter 'no_such_rule'"),
    ],
)
def test_cli_simulate_bad_input_exits_2_naming_it(extra, message):
    result = CliRunner().invoke(main, ["simulate", "--games", "2", "--quiet", *extra])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("extra", "cap"),
    [([], 200), (["--round-cap", "7"], 7), (["--set", "round_cap=9"], 9)],
)
def test_cli_simulate_takes_the_round_cap_from_either_option(extra, cap, tmp_path):
    """`--set round_cap=N` is a round cap like `--round-cap N` (it was once ignored)."""
    out = tmp_path / "batch"
    result = CliRunner().invoke(
        main,
        [
            "simulate",
            "--games",
            "6",
            "--quiet",
            "--workers",
            "1",
            "--out",
            str(out),
            "--format",
            "csv",
            *extra,
        ],
    )
    assert result.exit_code == 0, result.output
    saved = SimulationResult.load(out)
    assert saved.games["rounds"].max() <= cap
    assert saved.meta["rules"]["round_cap"] == cap
    if cap < 20:  # so short that every game is settled by the final accounting
        assert (saved.games["end_reason"] == "round_cap").all()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--round-cap", "7", "--set", "round_cap=9"], "both give the round cap; give it once"),
        (["--set", "round_cap=none"], "unattended play needs a round cap"),
    ],
)
def test_cli_simulate_refuses_two_round_caps_or_none(extra, message):
    result = CliRunner().invoke(main, ["simulate", "--games", "2", "--quiet", *extra])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_ctrl_c_stops_the_command_cleanly_and_keeps_finished_games(tmp_path):
    """A real SIGINT, sent once the progress bar shows finished games (no wall-clock waits)."""
    out = tmp_path / "partial"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "amteach",
            "simulate",
            "--games",
            "100000",
            "--workers",
            "2",
            "--round-cap",
            "20",
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "80"},
        # a test runner's workers may ignore SIGINT, and children inherit that: restore it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        progress = ""
        while not re.search(r"\| [1-9]\d*/100000", progress):
            chunk = process.stderr.read(1)
            assert chunk, f"the batch ended before showing progress: {progress!r}"
            progress += chunk
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, stderr
    assert "Stopped early" in stderr and "Traceback" not in stderr
    assert "stopped early" in stdout
    saved = SimulationResult.load(out)
    assert 0 < saved.completed < 100000 and saved.interrupted


def test_the_simulation_docs_list_every_column_and_bot():
    from pathlib import Path

    from amteach.bots import STRATEGIES

    text = (Path(__file__).resolve().parents[1] / "docs" / "simulation.md").read_text(
        encoding="utf-8"
    )
    for table, columns in COLUMNS_DOC.items():
        section = text.split(f"### `{table}`")[1].split("###")[0]
        for column in columns:
            assert f"| `{column}` |" in section, (table, column)
    for name, cls in STRATEGIES.items():
        assert f"| `{name}` | {cls.describe} |" in text


@st.composite
def bot_tables(draw: st.DrawFn) -> tuple[SeatSpec, ...]:
    n = draw(st.integers(2, 6))
    competitors = draw(st.sampled_from(sorted({n // 2, n - n // 2})))
    roles = draw(st.permutations(["competitor"] * competitors + ["monopolist"] * (n - competitors)))
    bots = st.sampled_from(["cautious", "builder", "investor", "random"])
    taxes = st.sampled_from(["cheaper", "flat", "percent"])
    return tuple(SeatSpec(role, draw(bots), draw(taxes)) for role in roles)


# 150 examples, whatever the profile: an example is one game of 25 rounds (1.6 s for
# all 150), enough for every bot and tax behaviour at every table size several times a run
@settings(max_examples=150, deadline=None)
@given(
    seats=bot_tables(),
    seed=st.integers(0, 2**31),
    preset=st.sampled_from(["default", "edition-2005"]),
    game_type=st.sampled_from(["A", "B", "two-hour"]),
)
def test_every_bot_only_makes_legal_choices(seats, seed, preset, game_type):
    """Bots read the engine and never a rule of their own: a whole game of any mix of bots
    and tax behaviours runs to its end without one illegal choice (apply would raise)."""
    from amteach import RuleSet

    rules = RuleSet.preset(preset, round_cap=25)
    config = BatchConfig(seats, rules.to_dict(), seed, game_type)
    game, decisions = play_bot_game(0, config, rules)
    assert game.over and decisions > 0
    assert sum(game.cash) + game.state.treasury == game.state.total_money
    for p, spec in enumerate(seats):
        if spec.bot == "random":
            continue
        chosen = [
            e.choice for e in game.events if isinstance(e, ev.IncomeTaxChoice) and e.player == p
        ]
        if spec.tax in ("flat", "percent"):
            assert set(chosen) <= {spec.tax}
