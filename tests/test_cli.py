"""The `amteach` command line: `demo`, `scenario` and `rules`.

Run in-process with click's CliRunner, and as a real subprocess (the installed console script
and `python -m amteach.cli`). Exit status 0 = success, 1 = an illegal script step, 2 = bad
input; bad input gets one line naming the file and the field, never a traceback.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from amteach import IllegalChoice
from amteach.cli import main
from amteach.engine.rules import RuleSet
from amteach.engine.scenario import load_scenario, play_script, scenario_report
from amteach.files import load_scenario_file

SUBCOMMANDS = ("demo", "scenario", "rules")
TIMEOUT = 120


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=True)


def run_process(
    *args: str, executable: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [*(executable or [sys.executable, "-m", "amteach.cli"]), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    text = data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return path


def spec_price(spec_dir: Path, name: str) -> int:
    with (spec_dir / "board-2005.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["name"] == name:
                return int(row["price"])
    raise AssertionError(f"{name} is not in the specification's board")


def spec_foundation_fees(spec_dir: Path) -> tuple[int, int]:
    """(default, edition-2005) Foundation fee for a Monopolist, as decisions.md states them."""
    text = (spec_dir / "decisions.md").read_text(encoding="utf-8")
    row = next(
        line for line in text.splitlines() if line.startswith("| Foundation: monopolist pays")
    )
    default = re.search(r"\*\*(\d+)\*\* \(the specification\)", row)
    edition = re.search(r"`edition-2005` uses \*\*(\d+)\*\*", row)
    assert default and edition, row
    return int(default.group(1)), int(edition.group(1))


def assert_clean_failure(
    result: Result | subprocess.CompletedProcess[str], status: int, *parts: str
) -> str:
    """Failed with `status`, nothing on stdout, one message naming every part, no traceback."""
    code = result.exit_code if isinstance(result, Result) else result.returncode
    stdout, stderr = result.stdout, result.stderr
    assert code == status, f"exit {code}, stdout={stdout!r}, stderr={stderr!r}"
    assert stdout == "", f"stdout should be empty on failure, got {stdout!r}"
    assert "Traceback" not in stdout + stderr, stderr
    if isinstance(result, Result):
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(
            result.exception
        )
    for part in parts:
        assert part in stderr, f"{part!r} not named in {stderr!r}"
    return stderr


# -- help --------------------------------------------------------------------------------------


def test_group_help_lists_every_subcommand():
    result = run("--help")
    assert result.exit_code == 0
    assert "Usage" in result.output
    for command in SUBCOMMANDS:
        assert command in result.output


@pytest.mark.parametrize("command", SUBCOMMANDS)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_every_subcommand_has_help(command: str, flag: str):
    result = run(command, flag)
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output
    assert command in result.output
    assert "Traceback" not in result.output


def test_help_as_a_real_process():
    for args in (["--help"], *([c, "--help"] for c in SUBCOMMANDS)):
        done = run_process(*args)
        assert done.returncode == 0, done.stderr
        assert "Usage" in done.stdout


def test_the_installed_console_script_runs():
    script = Path(sys.executable).parent / "amteach"
    assert script.exists(), "pyproject.toml declares the `amteach` console script"
    done = run_process("rules", executable=[str(script)])
    assert done.returncode == 0, done.stderr
    assert "foundation_monopolist_fee" in done.stdout


# -- scenario: success -------------------------------------------------------------------------

BUY_SCENARIO = {
    "players": [
        {"name": "Ana", "role": "competitor"},
        {"name": "Ben", "role": "monopolist", "titles": {"Rush St.": None}},
    ],
    "dice": [[1, 2]],
    "script": ["roll", "buy", "end_turn"],
}


def test_scenario_prints_the_state_as_json(tmp_path: Path, spec_dir: Path):
    path = write(tmp_path, "buy.yaml", BUY_SCENARIO)
    result = run("scenario", str(path))
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    for key in ("players", "treasury", "pending", "events", "winner", "end_reason"):
        assert key in report
    # the same as the Python API gives for the same file
    assert report == json.loads(json.dumps(scenario_report(load_scenario_file(path))))
    # Ana threw 1 and 2 from START, landing on French Quarter, and bought it at its price
    ana = report["players"][0]
    price = spec_price(spec_dir, "French Quarter")
    assert ana["cash"] == RuleSet.preset("default").starting_cash - price
    assert [t["name"] for t in ana["titles"]] == ["French Quarter"]
    assert report["pending"]["player"] == "Ben"
    assert (report["winner"], report["end_reason"]) == (None, None)
    assert [e["type"] for e in report["events"]].count("purchase") == 1
    assert all(isinstance(e["text"], str) and e["text"] for e in report["events"])
    assert report["treasury"]["balance"] == price


def test_scenario_as_a_real_process(tmp_path: Path):
    path = write(tmp_path, "buy.yaml", BUY_SCENARIO)
    done = run_process("scenario", str(path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(run("scenario", str(path)).stdout)


def test_scenario_indent_option(tmp_path: Path):
    path = write(tmp_path, "buy.yaml", BUY_SCENARIO)
    compact, wide = (
        run("scenario", str(path), "--indent", "0"),
        run("scenario", str(path), "--indent", "4"),
    )
    assert compact.exit_code == wide.exit_code == 0
    assert json.loads(compact.stdout) == json.loads(wide.stdout)
    assert '\n    "players"' in wide.stdout


def test_scenario_of_a_finished_game_reports_winner_and_end_reason(tmp_path: Path):
    """Ana cannot pay the Property Tax and has nothing to sell: bankrupt, Ben wins Game A."""
    data = {
        "players": [
            {"name": "Ana", "role": "competitor", "cash": 10, "position": 35},
            {"name": "Ben", "role": "monopolist"},
        ],
        "dice": [[1, 2]],
        "script": ["roll"],
    }
    result = run("scenario", str(write(tmp_path, "end.yaml", data)))
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["players"][0]["bankrupt"] is True
    assert (report["winner"], report["end_reason"]) == ("Ben", "game_a")
    assert report["pending"] is None


# -- scenario: an illegal step exits 1 ---------------------------------------------------------


def test_an_illegal_step_exits_1_naming_the_step_and_the_rule(tmp_path: Path):
    """Step 4: Ben, a Monopolist with one Chicago street, tries to build (decision 5)."""
    data = {
        "players": [
            {"name": "Ana", "role": "competitor"},
            {"name": "Ben", "role": "monopolist", "titles": {"Rush St.": None}},
        ],
        "dice": [[1, 2]],
        "script": ["roll", "decline", "end_turn", {"build": "Rush St."}],
    }
    path = write(tmp_path, "illegal.yaml", data)
    game, script = load_scenario(data)
    play_script(game, script[:3])
    with pytest.raises(IllegalChoice) as err:
        game.apply(script[3])
    message = assert_clean_failure(
        run("scenario", str(path)), 1, "step 4", err.value.rule, str(path)
    )
    assert "Rush St." in message
    assert_clean_failure(run_process("scenario", str(path)), 1, "step 4", err.value.rule)


def test_a_step_out_of_turn_exits_1(tmp_path: Path):
    data = {**BUY_SCENARIO, "script": ["roll", "end_turn"]}  # must buy or decline first
    game, script = load_scenario(data)
    game.apply(script[0])
    with pytest.raises(IllegalChoice) as err:
        game.apply(script[1])
    assert_clean_failure(
        run("scenario", str(write(tmp_path, "turn.yaml", data))), 1, "step 2", err.value.rule
    )


# -- scenario: malformed files exit 2 ----------------------------------------------------------

TWO = [{"name": "Ana", "role": "competitor"}, {"name": "Ben", "role": "monopolist"}]


def with_players(*changes: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**player, **change} for player, change in zip(TWO, changes, strict=False)] + TWO[
        len(changes) :
    ]


MALFORMED: dict[str, tuple[Any, tuple[str, ...]]] = {
    "bad YAML": ("players: [\n  {name: Ana, role: competitor\n", ("not valid YAML", "line")),
    "unknown field": ({"players": TWO, "colour": "red"}, ("colour",)),
    "unknown field with a capital": ({"players": TWO, "Seed": 3}, ("Seed",)),
    "unknown player field": (
        {"players": with_players({"nickname": "A"})},
        ("players[0].nickname",),
    ),
    "bad role": ({"players": with_players({}, {"role": "banker"})}, ("players[1].role",)),
    "illegal role split": (
        {
            "players": [
                *TWO,
                {"name": "Cy", "role": "competitor"},
                {"name": "Di", "role": "competitor"},
            ]
        },
        ("players", "decision 13"),
    ),
    "too many of one role": (
        {
            "players": [{"name": f"P{i}", "role": "competitor"} for i in range(4)]
            + [{"name": "M", "role": "monopolist"}]
        },
        ("players",),
    ),
    "one player": ({"players": TWO[:1]}, ("players",)),
    "no players": ({"seed": 3}, ("players",)),
    "unknown title name": (
        {"players": with_players({"titles": {"Baker St.": None}})},
        ("players[0].titles.Baker St.",),
    ),
    "title that is no title": (
        {"players": with_players({"titles": {"Income Tax": None}})},
        ("players[0].titles.Income Tax",),
    ),
    "negative houses on a title": (
        {"players": with_players({"titles": {"Basin St.": {"houses": -1}}})},
        ("players[0].titles.Basin St.",),
    ),
    "too many houses": (
        {"players": with_players({"titles": {"Basin St.": {"houses": 5}}})},
        ("players[0].titles.Basin St.",),
    ),
    "negative cash": ({"players": with_players({"cash": -5})}, ("players[0].cash",)),
    "cash not a number": ({"players": with_players({"cash": "lots"})}, ("players[0].cash",)),
    "position off the board": (
        {"players": with_players({"position": 40})},
        ("players[0].position",),
    ),
    "bad dice value": ({"players": TWO, "dice": [[7, 1]]}, ("dice[0]",)),
    "dice value zero": ({"players": TWO, "dice": [[3, 4], [0, 2]]}, ("dice[1]",)),
    "three dice": ({"players": TWO, "dice": [[1, 2, 3]]}, ("dice[0]",)),
    "dice not numbers": ({"players": TWO, "dice": [["six", 1]]}, ("dice[0]",)),
    "unknown card": ({"players": TWO, "cards": {"competitor": ["C99"]}}, ("cards.competitor[0]",)),
    "unknown preset": ({"players": TWO, "rules": "house-rules"}, ("rules", "house-rules")),
    "unknown rule parameter": (
        {"players": TWO, "rules": {"free_parking": 500}},
        ("rules.free_parking",),
    ),
    "negative rule value": (
        {"players": TWO, "rules": {"foundation_monopolist_fee": -5}},
        ("rules.foundation_monopolist_fee",),
    ),
    "bad game type": ({"players": TWO, "game": "C"}, ("game",)),
    "unknown script choice": ({"players": TWO, "script": ["fly"]}, ("script[0]", "fly")),
    "script names an unknown title": (
        {"players": TWO, "script": [{"build": "Baker St."}]},
        ("script[0]", "Baker St."),
    ),
    "script trade gives a number, not a list": (
        {
            "players": with_players({"titles": {"Basin St.": None}}),
            "script": [{"trade": {"with": "Ben", "give": 1}}],
        },
        ("script[0]",),
    ),
    "script trade with nobody": (
        {"players": TWO, "script": [{"trade": {"with": "Zed", "give": ["Basin St."]}}]},
        ("script[0]", "Zed"),
    ),
    "not a mapping": ("- just\n- a list\n", ("top level",)),
    "empty file": ("", ("top level",)),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_file_exits_2_naming_file_and_field(tmp_path: Path, case: str):
    data, parts = MALFORMED[case]
    path = write(tmp_path, "lesson.yaml", data)
    assert_clean_failure(run("scenario", str(path)), 2, str(path), *parts)


def test_a_malformed_file_as_a_real_process(tmp_path: Path):
    path = write(tmp_path, "lesson.yaml", {"players": with_players({}, {"role": "banker"})})
    assert_clean_failure(run_process("scenario", str(path)), 2, str(path), "players[1].role")


def test_a_wrongly_sized_forced_throw_exits_2(tmp_path: Path):
    """A forced one-die throw where a move needs two dice: a set-up error, named."""
    path = write(tmp_path, "dice.yaml", {"players": TWO, "dice": [[3]], "script": ["roll"]})
    assert_clean_failure(run("scenario", str(path)), 2, str(path), "dice", "step 1")


def test_missing_file_exits_2_naming_it(tmp_path: Path):
    path = tmp_path / "nowhere.yaml"
    assert_clean_failure(run("scenario", str(path)), 2, str(path))


def test_a_folder_instead_of_a_file_exits_2(tmp_path: Path):
    result = run("scenario", str(tmp_path))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "Traceback" not in result.output
    assert str(tmp_path) in result.stderr


def test_a_binary_file_exits_2(tmp_path: Path):
    path = tmp_path / "image.yaml"
    path.write_bytes(b"\xff\xfe\x00\x81players")
    assert_clean_failure(run("scenario", str(path)), 2, str(path))


def test_scenario_without_a_file_is_a_usage_error():
    result = run("scenario")
    assert result.exit_code == 2
    assert "Usage" in result.output


# -- rules ---------------------------------------------------------------------------------------


def shown_parameters(output: str) -> dict[str, str]:
    """`name value` lines of `amteach rules` (a trailing * marks a change from default)."""
    out = {}
    for line in output.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and parts[0] in RuleSet.__dataclass_fields__:
            out[parts[0]] = parts[1].strip()
    return out


def test_rules_edition_2005_shows_the_2005_foundation_fee(spec_dir: Path):
    default_fee, edition_fee = spec_foundation_fees(spec_dir)
    result = run("rules", "edition-2005")
    assert result.exit_code == 0, result.stderr
    shown = shown_parameters(result.stdout)
    assert shown["foundation_monopolist_fee"] == f"{edition_fee}  *"
    assert "differs from the default" in result.stdout
    default = shown_parameters(run("rules").stdout)
    assert default["foundation_monopolist_fee"] == str(default_fee)
    # every parameter is shown
    assert set(shown) == set(RuleSet.__dataclass_fields__) - {"preset_name"}


def test_rules_set_overrides_a_parameter():
    result = run("rules", "--set", "round_cap=40", "--set", "fine=75")
    assert result.exit_code == 0, result.stderr
    shown = shown_parameters(result.stdout)
    assert shown["round_cap"] == "40  *"
    assert shown["fine"] == "75  *"


@pytest.mark.parametrize(
    ("args", "parts"),
    [
        (["--set", "foundation_monopolist_fee=-5"], ("foundation_monopolist_fee", "-5")),
        (["edition-2005", "--set", "foundation_monopolist_fee=-5"], ("foundation_monopolist_fee",)),
        (["--set", "free_parking=500"], ("free_parking",)),
        (["--set", "fine=lots"], ("fine",)),
        (["--set", "mortgage_percent=150"], ("mortgage_percent",)),
        (["--set", "round_cap=0"], ("round_cap",)),
        (["--set", "building_supply=some"], ("building_supply",)),
        (["--set", "fine"], ("--set",)),
        (["house-rules"], ("house-rules",)),
    ],
)
def test_rules_bad_input_exits_2_naming_the_parameter(args: list[str], parts: tuple[str, ...]):
    assert_clean_failure(run("rules", *args), 2, *parts)


def test_rules_bad_parameter_as_a_real_process():
    assert_clean_failure(
        run_process("rules", "--set", "foundation_monopolist_fee=-5"),
        2,
        "foundation_monopolist_fee",
    )


# -- demo ----------------------------------------------------------------------------------------


def standings(output: str) -> list[str]:
    lines = output.rstrip("\n").splitlines()
    at = lines.index("Final standings:")
    return lines[at + 1 :]


def test_demo_narrates_and_ends_with_final_standings():
    result = run("demo", "--rounds", "5", "--seed", "3")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    rounds = [int(m.group(1)) for line in lines if (m := re.match(r"Round (\d+):", line))]
    assert rounds and min(rounds) == 1 and max(rounds) <= 5, "the demo respects --rounds"
    assert any("throws" in line for line in lines), "the dice are narrated"
    table = standings(result.stdout)
    names = [row.split()[0] for row in table]
    assert len(names) == 4 == len(set(names)), table
    assert all(name in result.stdout.split("Final standings:")[0] for name in names)
    # most cash first; bankrupt players (no cash) last
    cash = [int(m.group(1)) if (m := re.search(r"\$(\d+) cash", row)) else -1 for row in table]
    assert cash == sorted(cash, reverse=True), table
    before = result.stdout.split("Final standings:")[0].strip().splitlines()
    assert before[-1].startswith("Game over"), "the narration ends with the result"


def test_demo_is_reproducible_with_the_same_seed():
    first = run("demo", "--rounds", "5", "--seed", "3")
    second = run("demo", "--rounds", "5", "--seed", "3")
    assert first.exit_code == second.exit_code == 0
    assert first.stdout == second.stdout
    other = run("demo", "--rounds", "5", "--seed", "4")
    assert other.exit_code == 0
    assert other.stdout != first.stdout, "the seed is what makes the two runs alike"


def test_demo_as_a_real_process_matches_in_process():
    done = run_process("demo", "--rounds", "5", "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert done.stdout == run("demo", "--rounds", "5", "--seed", "3").stdout
    again = run_process("demo", "--rounds", "5", "--seed", "3")
    assert again.stdout == done.stdout


def test_demo_with_the_2005_preset_runs():
    result = run("demo", "--rounds", "3", "--seed", "1", "--rules", "edition-2005")
    assert result.exit_code == 0, result.stderr
    assert "Final standings:" in result.stdout


@pytest.mark.parametrize(
    ("args", "parts"),
    [
        (["--rules", "house-rules"], ("house-rules",)),
        (["--set", "foundation_monopolist_fee=-5"], ("foundation_monopolist_fee",)),
        (["--rounds", "0"], ("--rounds",)),
        (["--seed", "abc"], ("--seed",)),
    ],
)
def test_demo_bad_options_exit_2(args: list[str], parts: tuple[str, ...]):
    assert_clean_failure(run("demo", *args), 2, *parts)
