"""`amteach simulate --length`: the round cap named as what it stands for, time is up after N
rounds (outcomes.GAME_LENGTHS), with the report's win rates by how the games ended."""

from __future__ import annotations

import re
import subprocess
import sys

import pandas as pd
import pytest
from click.testing import CliRunner

from amteach.analysis import outcomes
from amteach.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=True)


@pytest.mark.parametrize(
    ("length", "rounds"),
    [("two-hour", outcomes.TWO_HOUR_ROUNDS), ("round-200", 200), ("to-the-end", 2000), ("60", 60)],
)
def test_a_named_length_plays_to_its_round_and_says_so(tmp_path, length, rounds):
    out = tmp_path / "batch"
    result = run(
        "simulate", "--games", "24", "--seed", "4", "--workers", "1", "--quiet",
        "--length", length, "--out", str(out), "--format", "csv",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    games = pd.read_csv(out / "games.csv")
    assert games["rounds"].max() <= rounds
    capped = int((games["end_reason"] == "round_cap").sum())
    first = result.output.splitlines()[0]
    assert first.startswith(f"Length played: {outcomes.time_is_up(rounds)}.")
    assert f"Time was up for {capped} of 24 games" in first
    # the report splits the win rates by how the games ended, at this length
    assert (
        f"Win rate by how the games ended (95% Wilson interval), time up after {rounds} rounds"
        in result.output
    )
    report = result.output.split("Win rate by how the games ended")[1]
    time_up = re.findall(r"time up\s+(Competitor|Monopolist)\s.*?(\d+) of (\d+) games", report)
    if capped:
        assert {int(n) for _, _, n in time_up} == {capped}
        for role, wins, _ in time_up:
            assert int(wins) == int(
                (games.loc[games["end_reason"] == "round_cap", "winner_role"] == role.lower()).sum()
            )
    else:
        assert not time_up


def test_the_two_hour_length_reads_as_a_two_hour_game():
    result = run("simulate", "--games", "10", "--workers", "1", "--quiet", "--length", "two-hour")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(
        f"Length played: two-hour game (about {outcomes.TWO_HOUR_ROUNDS} rounds)."
    )


def test_length_and_round_cap_agreeing_are_one_length():
    agree = run(
        "simulate", "--games", "8", "--workers", "1", "--quiet",
        "--length", "two-hour", "--round-cap", str(outcomes.TWO_HOUR_ROUNDS),
    )  # fmt: skip
    assert agree.exit_code == 0, agree.output
    old = run("simulate", "--games", "8", "--workers", "1", "--quiet", "--round-cap", "30")
    assert old.exit_code == 0 and "time is up after 30 rounds" in old.output.splitlines()[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--length", "two-hour", "--round-cap", "50"),
            "--length two-hour (time is up after 40 rounds) and --round-cap 50 both say when "
            "time is up; give one of them",
        ),
        (
            ("--length", "banana"),
            "--length 'banana' is not a game length: give one of two-hour, round-200, "
            "to-the-end, or a whole number of rounds",
        ),
        (("--length", "0"), "--length '0' is not a game length"),
        (("--length", "-5"), "--length '-5' is not a game length"),
        (
            ("--length", "to-the-end", "--set", "round_cap=300"),
            "--length to-the-end, time up after 2000 and --set round_cap=300 both give the "
            "round cap; give it once",
        ),
    ],
)
def test_conflicting_or_unknown_lengths_get_one_clear_line(args, message):
    result = run("simulate", "--games", "5", "--quiet", *args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_installed_command_takes_a_length():
    done = subprocess.run(
        [sys.executable, "-m", "amteach.cli", "simulate", "--games", "6", "--workers", "1",
         "--quiet", "--length", "to-the-end"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Length played: played to the end (stopped at 2,000 rounds).")
    assert "Win rate by how the games ended" in done.stdout
