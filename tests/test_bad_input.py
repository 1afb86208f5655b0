"""Bad input through the Python API: illegal decisions, stale buttons, bad rules, corrupt saves.

Every refusal is a precise exception (IllegalChoice naming the rule; RulesError, ScenarioError
and SaveError naming the source and the field), and a refusal never changes anything: not the
game, not a file on disk.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import scenario, two
from hypothesis import given, settings
from hypothesis import strategies as st

import amteach.files
from amteach import (
    AmteachError,
    Choice,
    Game,
    IllegalChoice,
    InputError,
    RulesError,
    RuleSet,
    SaveError,
    ScenarioError,
    Trade,
)
from amteach.bots import RandomStrategy
from amteach.files import load_game, save_game

PLAYERS = [("Ana", "competitor"), ("Ben", "monopolist"), ("Cleo", "competitor")]


def snapshot(game: Game) -> tuple[Any, ...]:
    return (
        game.state.as_dict(),
        len(game.events),
        len(game.decisions),
        [e.to_dict() for e in game.events],
        list(game.decisions),
    )


def assert_refused(game: Game, choice: Any, rule_part: str = "", **kwargs: Any) -> IllegalChoice:
    """The choice raises IllegalChoice naming a rule, and nothing at all changes."""
    before = snapshot(game)
    with pytest.raises(IllegalChoice) as err:
        game.apply(choice, **kwargs)
    assert err.value.rule, "IllegalChoice.rule names the rule broken"
    assert err.value.rule in str(err.value)
    assert rule_part in err.value.rule, err.value.rule
    assert snapshot(game) == before
    return err.value


def played(seed: int = 1, decisions: int = 60, **kwargs: Any) -> Game:
    game = Game.new(PLAYERS, seed=seed, round_cap=20, **kwargs)
    bots = [RandomStrategy(seed + seat, trade_rate=0.2) for seat in range(len(game.names))]
    for _ in range(decisions):
        if game.over:
            break
        game.apply(bots[game.actor].choose(game, game.legal_choices()))
    return game


# -- illegal decisions -------------------------------------------------------------------------


def test_building_without_a_monopoly_names_decision_5():
    game = scenario(two(ben={"titles": {"Rush St.": {}}}), ["roll"], dice=[[1, 2]])
    game.apply("decline")
    game.apply("end_turn")
    assert game.pending.player == 1
    error = assert_refused(game, ("build", "Rush St."), "decision 5")
    assert game.board.space("Rush St.").city in str(error)


def test_buying_without_the_cash_names_no_borrowing():
    game = scenario(two(ana={"cash": 10}), ["roll"], dice=[[1, 2]])
    assert game.phase == "buy"
    assert_refused(game, "buy", "rule 26")


def test_mortgaging_a_street_with_houses_names_the_mortgage_rule():
    game = scenario(two(ana={"titles": {"Basin St.": {"houses": 2}}}))
    assert_refused(game, ("mortgage", "Basin St."), "mortgage")


def test_building_on_a_title_of_another_player_is_refused():
    game = scenario(two(ben={"titles": {"Basin St.": {}}}))
    assert_refused(game, ("build", "Basin St."), "rule 11")


def test_a_choice_out_of_phase_names_the_turn_order():
    game = scenario(two())
    for choice in ("end_turn", "buy", "accept", ("income_tax", "flat"), "pay_fine"):
        assert_refused(game, choice)
    error = assert_refused(game, "end_turn", "turn order")
    assert "roll" in str(error), "the message says what is legal now"


def test_end_game_outside_the_two_hour_game_is_refused():
    assert_refused(scenario(two()), "end_game", "decision 12")


def test_unreadable_choices_raise_illegal_choice_and_change_nothing():
    game = scenario(two(ana={"titles": {"Basin St.": {}}}))
    for choice in (
        "fly",
        42,
        None,
        ("build",),
        {"build": 1, "sell_building": 1},
        {},
        ("build", "Baker St."),
        ("build", 99),
        ("build", None),
        ("roll", 3),
        {"trade": {"give": ["Basin St."]}},
        {"trade": {"with": "Zed", "give": ["Basin St."]}},
        {"trade": {"with": "Ben", "give": ["Basin St."], "pay": 1.5}},
        {"trade": {"with": "Ben", "give": ["Basin St."], "pay": True}},
        {"trade": {"with": "Ben", "give": ["Basin St."], "lend": 100}},
        Choice("teleport"),
    ):
        assert_refused(game, choice)
        assert not game.is_legal(choice)


def test_a_trade_naming_titles_in_an_unexpected_shape_is_refused_cleanly():
    """`give` as one title instead of a list (a typo in a lesson script, a JSON save edited by
    hand): refused as an IllegalChoice, not a TypeError from deep inside the engine."""
    game = scenario(two(ana={"titles": {"Basin St.": {}}}))
    assert_refused(game, {"trade": {"with": "Ben", "give": 1}})
    assert not game.is_legal({"trade": {"with": "Ben", "give": 1}})


def test_a_trade_object_with_title_names_is_refused_cleanly():
    """A `Trade` built by hand with title names instead of space indices."""
    game = scenario(two(ana={"titles": {"Basin St.": {}}}))
    choice = Choice("trade", Trade(1, give=("Basin St.",)))
    assert not game.is_legal(choice)
    assert_refused(game, choice)


def test_a_trade_listing_more_titles_than_the_board_has_is_refused_in_one_sentence():
    """Rule 23: a side lists at most as many titles as the board has spaces (the game's state
    holds no more); a longer list, by name or by number, is refused as such, not as a crash."""
    game = scenario(two(ana={"titles": {"Basin St.": {}}}))
    basin = game.board.space("Basin St.").index
    many = list(range(41))
    for choice in (
        {"trade": {"with": "Ben", "give": ["Basin St."] * 41}},
        Choice("trade", Trade(1, give=(basin,), get=tuple(many))),
    ):
        err = assert_refused(game, choice)
        assert "at most 40 titles a side" in str(err)
    assert "at most" not in str(assert_refused(game, Choice("trade", Trade(1, get=(basin,) * 40))))


def test_a_trade_paying_a_fraction_of_a_dollar_is_refused_however_it_is_given():
    """Money is whole dollars: the dict form is refused, so the `Trade` form must be too."""
    game = scenario(two(ana={"titles": {"Basin St.": {}}}))
    basin = game.board.space("Basin St.").index
    assert_refused(game, {"trade": {"with": "Ben", "give": ["Basin St."], "pay": 0.5}})
    assert_refused(game, Choice("trade", Trade(1, give=(basin,), pay=0.5)))


def test_illegal_choices_in_a_random_game_change_nothing():
    """Every kind of choice with every argument, at many moments of a real game."""
    game = Game.new(PLAYERS, seed=9, round_cap=15)
    bots = [RandomStrategy(9 + seat, trade_rate=0.2) for seat in range(len(game.names))]
    refused = 0
    for _ in range(150):
        if game.over:
            break
        legal = set(game.legal_choices())
        for kind in ("roll", "buy", "end_turn", "accept", "pay_fine", "end_game", "decline"):
            if Choice(kind) not in legal:
                assert_refused(game, Choice(kind))
                refused += 1
        for space in (0, 1, 11, 39):
            for kind in ("build", "mortgage", "redeem", "sell_building"):
                if Choice(kind, space) not in legal:
                    assert_refused(game, Choice(kind, space))
                    refused += 1
        game.apply(bots[game.actor].choose(game, game.legal_choices()))
    assert refused > 500


def test_a_forced_throw_of_the_wrong_size_is_refused_and_changes_nothing():
    """A set-up forcing a one-die throw where a move needs two: the roll is refused with an
    error naming the field, and - like any refusal - leaves the game as it was: no decision
    recorded, no forced throw used up, so the game still equals a replay of its decisions."""
    game = scenario(two(), dice=[[3]])
    before = snapshot(game)
    with pytest.raises(AmteachError) as err:
        game.apply("roll")
    assert "dice" in str(err.value)
    assert snapshot(game) == before
    assert Game.replay(game.setup, game.decisions).state.as_dict() == game.state.as_dict()


# -- stale buttons: the wrong player --------------------------------------------------------------


def test_a_stale_button_for_another_seat_is_refused():
    game = scenario(two(), ["roll"], dice=[[1, 2]])
    assert game.pending.player == 0
    error = assert_refused(game, "decline", player=1)
    assert "Ana" in str(error) and "Ben" in str(error)
    assert_refused(game, "decline", player="Ben")
    assert_refused(game, "decline", player="ben")  # names are matched whatever the case
    # the right player's button works
    game.apply("decline", player="Ana")
    assert game.decisions[-1] == Choice("decline")


def test_a_stale_button_from_a_previous_turn_is_refused():
    """Ana's "end turn" pressed again after Ben's turn has started."""
    game = scenario(two(), ["roll", "decline", "end_turn"], dice=[[1, 2]])
    assert game.pending.player == 1
    assert_refused(game, "end_turn", player="Ana")
    assert_refused(game, "roll", player=0)


@pytest.mark.parametrize("player", ["Zed", 7, -1])
def test_a_button_for_nobody_raises_and_changes_nothing(player: Any):
    game = scenario(two())
    before = snapshot(game)
    with pytest.raises((IllegalChoice, KeyError)) as err:
        game.apply("roll", player=player)
    assert str(player) in str(err.value)
    assert snapshot(game) == before


def test_player_names_differing_only_in_case_are_not_confused():
    """Names are matched case-insensitively, so two players called "Ana" and "ana" either
    cannot sit at one table or must each be found as themselves."""
    try:
        game = Game.new([("Ana", "competitor"), ("ana", "monopolist")], seed=1)
    except ScenarioError as err:
        assert err.field.startswith("players")
        return
    partners = [game.parse_choice(("trade", {"with": name})).arg.other for name in game.names]
    assert partners == list(range(len(game.names)))


# -- rules ----------------------------------------------------------------------------------------


def test_an_unknown_preset_raises_rules_error_naming_the_presets():
    with pytest.raises(RulesError) as err:
        RuleSet.preset("house-rules")
    assert err.value.field == "rules"
    assert "house-rules" in str(err.value)
    assert "edition-2005" in str(err.value)
    with pytest.raises(RulesError):
        Game.new(PLAYERS, rules="house-rules")


def test_an_unknown_parameter_raises_rules_error_naming_it():
    with pytest.raises(RulesError) as err:
        Game.new(PLAYERS, free_parking=500)
    assert err.value.field == "free_parking"
    assert "free_parking" in str(err.value)
    with pytest.raises(RulesError) as err:
        RuleSet.preset("default").replace(free_parking=500)
    assert err.value.field == "free_parking"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("foundation_monopolist_fee", -5),
        ("fine", -1),
        ("starting_cash", -1500),
        ("property_tax", "lots"),
        ("mortgage_percent", 101),
        ("round_cap", 0),
        ("max_houses_competitor", 5),
        ("max_houses_monopolist", 0),
        ("building_supply", "infinite"),
        ("transport_fares_monopolist", [40, 80]),
        ("income_tax_percent_competitor", [10, 10]),
        ("foundation_competitor_prizes", {7: 25}),
        ("starting_cash", 1.5),
        ("fine", True),
    ],
)
def test_an_impossible_value_raises_rules_error_naming_the_parameter(name: str, value: Any):
    for make in (
        lambda: RuleSet.preset("default", **{name: value}),
        lambda: RuleSet.preset("edition-2005").replace(**{name: value}),
        lambda: Game.new(PLAYERS, **{name: value}),
    ):
        with pytest.raises(RulesError) as err:
            make()
        assert err.value.field == name
        assert name in str(err.value)


def test_bad_players_raise_scenario_error_naming_the_field():
    cases = [
        ([("Ana", "competitor"), ("Ben", "banker")], "players[1].role"),
        ([("Ana", "competitor")], "players"),
        (
            [
                ("Ana", "competitor"),
                ("Ben", "competitor"),
                ("Cleo", "competitor"),
                ("Dev", "monopolist"),
            ],
            "players",
        ),
        ([("Ana", "competitor"), ("Ana", "monopolist")], "players[1].name"),
        ([("Ana", "competitor"), ("", "monopolist")], "players[1].name"),
    ]
    for players, field in cases:
        with pytest.raises(ScenarioError) as err:
            Game.new(players)
        assert err.value.field == field, (players, err.value)
    with pytest.raises(ScenarioError) as err:
        Game.new(PLAYERS, game="C")
    assert err.value.field == "game"


# -- corrupt saves ----------------------------------------------------------------------------------


def saved(tmp_path: Path, data: Any, name: str = "game.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def good_save() -> dict[str, Any]:
    return json.loads(json.dumps(played(seed=3, decisions=40).to_save()))


def assert_save_error(path: Path, *field_parts: str) -> SaveError:
    """load_game raises SaveError naming the file and the field, and leaves the file alone."""
    before = path.read_bytes()
    with pytest.raises(SaveError) as err:
        load_game(path)
    assert err.value.source == str(path)
    assert str(path) in str(err.value)
    assert err.value.field, "the field is named"
    for part in field_parts:
        assert part in err.value.field, (part, err.value.field)
    assert path.read_bytes() == before, "loading never modifies the file"
    return err.value


def test_a_file_that_is_not_json(tmp_path: Path):
    assert_save_error(saved(tmp_path, "{'format': amteach"), "line 1")
    assert_save_error(saved(tmp_path, "", "empty.json"), "line 1")


def test_a_binary_file(tmp_path: Path):
    path = tmp_path / "game.json"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    with pytest.raises(SaveError) as err:
        load_game(path)
    assert str(path) in str(err.value)


def test_a_missing_file(tmp_path: Path):
    path = tmp_path / "nowhere.json"
    with pytest.raises(SaveError) as err:
        load_game(path)
    assert str(path) in str(err.value)
    assert not path.exists()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(format="monopoly-save"), "format"),
        (lambda d: d.pop("format"), "format"),
        (lambda d: d.update(version=99), "version"),
        (lambda d: d.update(version="1"), "version"),
        (lambda d: d.update(decisions="roll"), "decisions"),
        (lambda d: d.pop("setup"), "setup"),
        (lambda d: d["setup"]["players"][1].update(role="banker"), "setup.players[1].role"),
        (lambda d: d["setup"]["players"][0].update(cash=-1), "setup.players[0].cash"),
        (lambda d: d["setup"]["players"][0].update(colour="red"), "setup.players[0].colour"),
        (lambda d: d["setup"].update(players=d["setup"]["players"][:1]), "setup.players"),
        (lambda d: d["setup"].update(dice=[[9, 9]]), "setup.dice[0]"),
        (lambda d: d["setup"]["rules"].update(fine=-50), "setup.rules.fine"),
        (lambda d: d["setup"]["rules"].update(preset="house-rules"), "rules"),
        (lambda d: d["setup"].update(game="C"), "setup.game"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_a_corrupt_save_names_the_field(tmp_path: Path, change: Any, field: str):
    data = good_save()
    change(data)
    assert_save_error(saved(tmp_path, data), field)


def test_a_save_that_is_a_list(tmp_path: Path):
    assert_save_error(saved(tmp_path, [1, 2, 3]), "format")


def test_a_decision_that_cannot_be_replayed(tmp_path: Path):
    data = good_save()
    index = len(data["decisions"])
    data["decisions"].append("accept")  # nobody offered a trade
    error = assert_save_error(saved(tmp_path, data), f"decisions[{index}]")
    assert "accept" in str(error)


@pytest.mark.parametrize(
    "decision",
    [
        "fly",
        42,
        None,
        {"build": "Baker St."},
        {"roll": 1, "buy": 1},
        {"trade": {"with": "Zed"}},
        {"trade": {"with": 1, "give": 5}},
        {"trade": {"with": 1, "give": [1], "pay": "all"}},
    ],
)
def test_an_unreadable_decision_names_its_index(tmp_path: Path, decision: Any):
    data = good_save()
    data["decisions"].insert(2, decision)
    assert_save_error(saved(tmp_path, data), "decisions[2]")


def test_a_forced_throw_of_the_wrong_size_in_a_save_is_a_save_error(tmp_path: Path):
    """A hand-edited save forcing a one-die throw where the first move needs two: loading
    must fail with SaveError naming the file and the field, like any other corrupt save."""
    data = good_save()
    data["setup"]["dice"] = [[3]]
    assert_save_error(saved(tmp_path, data), "dice")


# -- save_game never leaves a partial file -------------------------------------------------------


def test_a_failed_write_leaves_the_old_save_and_no_partial_file(tmp_path: Path, monkeypatch):
    target = tmp_path / "game.json"
    first = played(seed=5, decisions=10)
    save_game(first, target)
    old = target.read_bytes()

    real_fdopen = os.fdopen

    class FailingHalfway:
        """A file that writes half the text, then the disk is full."""

        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()
            return False

        def write(self, text):
            self.handle.write(text[: len(text) // 2])
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(
        amteach.files.os, "fdopen", lambda fd, *a, **k: FailingHalfway(real_fdopen(fd, *a, **k))
    )
    with pytest.raises(OSError):
        save_game(played(seed=6, decisions=80), target)
    monkeypatch.undo()
    assert target.read_bytes() == old, "the old save is untouched"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"], "no partial file is left"
    assert load_game(target).state.as_dict() == first.state.as_dict()


def test_a_failed_replace_leaves_no_temporary_file(tmp_path: Path, monkeypatch):
    target = tmp_path / "game.json"

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(amteach.files.os, "replace", refuse)
    with pytest.raises(OSError):
        save_game(played(seed=5, decisions=10), target)
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == [], "neither the save nor a temporary file"


def test_saving_an_unsaveable_game_writes_nothing(tmp_path: Path):
    """If the game cannot be turned into JSON, nothing is written (the old save survives)."""
    target = tmp_path / "game.json"
    game = played(seed=5, decisions=10)
    save_game(game, target)
    old = target.read_bytes()
    game.decisions.append(Choice("build", object()))  # corrupt the in-memory game
    with pytest.raises((TypeError, ValueError, AmteachError)):
        save_game(game, target)
    assert target.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


# -- found by fuzzing (issue 13): one clear line, exit 2 -----------------------------------------

FUZZ_PLAYERS = "  - {name: Ana, role: competitor%s}\n  - {name: Ben, role: monopolist}\n"


def scenario_cli(tmp_path: Path, text: str | bytes) -> tuple[int, str]:
    """Run `amteach scenario` on a file with this content: (exit status, stderr)."""
    from click.testing import CliRunner

    from amteach.cli import main

    path = tmp_path / "fuzz.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["scenario", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    return result.exit_code, result.stderr


@pytest.mark.parametrize("digit", ["²", "③", "٣", "１"])
def test_a_title_written_as_a_non_ascii_digit_is_refused(tmp_path: Path, digit: str):
    status, message = scenario_cli(
        tmp_path, "players:\n" + FUZZ_PLAYERS % f", titles: {{'{digit}': {{}}}}"
    )
    assert status == 2
    assert "players[0].titles" in message and f"no space called '{digit}'" in message


@pytest.mark.parametrize("digit", ["²", "③", "٣"])
def test_a_script_step_naming_a_non_ascii_digit_is_refused(tmp_path: Path, digit: str):
    status, message = scenario_cli(
        tmp_path, "players:\n" + FUZZ_PLAYERS % "" + f"script:\n  - build: '{digit}'\n"
    )
    assert status == 2
    assert "script[0]" in message and digit in message


@pytest.mark.parametrize("digit", ["²", "③", "٣"])
def test_building_on_a_non_ascii_digit_raises_illegal_choice(digit: str):
    game = Game.new(PLAYERS, seed=1)
    assert_refused(game, {"build": digit}, "turn order")
    assert game.board.space("12").index == 12  # ASCII digits still name a space


@pytest.mark.parametrize(
    ("player_fields", "extra", "field"),
    [
        (", cash: true", "", "players[0].cash"),
        (", titles: {1: {houses: true}}", "", "players[0].titles[1].houses"),
        (", titles: {true: {}}", "", "players[0].titles"),
        ("", "dice: [[true, 2]]\n", "dice[0][0]"),
        ("", "seed: true\n", "seed"),
    ],
)
def test_true_is_not_read_as_one(tmp_path: Path, player_fields: str, extra: str, field: str):
    status, message = scenario_cli(tmp_path, "players:\n" + FUZZ_PLAYERS % player_fields + extra)
    assert status == 2
    assert field in message and "true" in message


def test_yaml_nested_hundreds_deep_is_refused(tmp_path: Path):
    status, message = scenario_cli(tmp_path, "players: " + "[" * 600 + "]" * 600 + "\n")
    assert status == 2
    assert "nested too deeply" in message


def test_a_save_nested_hundreds_of_thousands_deep_is_refused(tmp_path: Path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    with pytest.raises(SaveError, match="nested too deeply"):
        load_game(path)


def test_a_nul_byte_is_named_once(tmp_path: Path):
    status, message = scenario_cli(tmp_path, ("players:\n" + FUZZ_PLAYERS % "" + "\x00\n").encode())
    assert status == 2
    assert "a NUL byte" in message and "line 4" in message
    assert message.count("not valid YAML") == 1


# -- limits on what a person types or uploads (issue 22; docs/dashboard.md) -------------------


def alias_bomb(levels: int = 7, width: int = 9) -> str:
    """One rule value of under 300 characters whose YAML aliases stand for width**levels numbers
    (about 14 MB once written out): each anchored list repeats the one before it `width` times."""
    lists = ["&l0 [" + ",".join("1" * width) + "]"]
    lists += [f"&l{n} [" + ",".join([f"*l{n - 1}"] * width) + "]" for n in range(1, levels)]
    return "[" + ", ".join(lists) + "]"


def peak_rss_of(command: list[str]) -> tuple[int, str, int]:
    """Run `command`: (exit status, stderr, the process's peak resident memory in kB, from the
    kernel's own accounting of that child)."""
    import subprocess

    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    process.stderr.close()
    return process.returncode, stderr, usage.ru_maxrss


def test_an_alias_bomb_is_refused_before_it_is_built():
    from amteach.engine.rule_input import parse_overrides, parse_sweep_values

    bomb = alias_bomb()
    assert len(bomb) < 300
    for parse in (
        lambda: parse_overrides((f"foundation_monopolist_fee={bomb}",)),
        lambda: parse_sweep_values((f"foundation_monopolist_fee={bomb},10",)),
    ):
        with pytest.raises(AmteachError) as err:
            parse()
        message = str(err.value)
        assert "anchors and aliases" in message and "--set foundation_monopolist_fee" in message
        assert len(message) < 300 and "\n" not in message


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("&a 10", "anchors and aliases"),  # an anchor alone is refused too: nothing can use it
        ("{<<: *x}", "anchors and aliases"),
        ("[" * 30 + "]" * 30, "nested too deeply"),
        ("9" * 501, "at most 500 characters"),
        ("[1, 2", "cannot read the value '[1, 2'"),
    ],
)
def test_a_typed_value_is_read_plainly_and_within_limits(typed: str, words: str):
    from amteach.engine.rule_input import parse_overrides

    with pytest.raises(AmteachError) as err:
        parse_overrides((f"starting_cash={typed}",))
    assert words in str(err.value) and len(str(err.value)) < 300


def test_plain_values_still_read_as_before():
    from amteach.engine.rule_input import parse_overrides, parse_sweep_values

    assert parse_overrides(("a=10", "b=[10, 10, 10]", "c={1: 25}", "d=null", "e=limited")) == {
        "a": 10,
        "b": [10, 10, 10],
        "c": {1: 25},
        "d": None,
        "e": "limited",
    }
    assert parse_sweep_values(("fee = 10, 85, [1, 2]",)) == ("fee", [10, 85, [1, 2]])


def test_no_error_quotes_more_than_200_characters_of_input():
    from amteach.engine.errors import quoted
    from amteach.engine.rule_input import parse_overrides

    long_name = "x" * 400
    for items in ((long_name + "=1",), ("a" * 499,), ("starting_cash=" + "'" + "z" * 480 + "'",)):
        with pytest.raises(AmteachError) as err:
            RuleSet.preset("default", **parse_overrides(items))
        assert len(str(err.value)) < 400, str(err.value)
        assert "z" * 200 not in str(err.value) and "x" * 200 not in str(err.value)
    # a value no check foresaw is quoted short too, however it nests or however many digits
    assert len(quoted(list(range(10**6)))) <= 80
    assert len(quoted([[[["deep" * 1000]]]])) <= 80
    big = 10**5000
    assert quoted(big) == "(a number too long to show)" or len(quoted(big)) <= 80


def test_an_alias_bomb_on_the_command_line_keeps_memory_flat():
    """`amteach sweep --set NAME=<bomb>`: one short line, exit status 2, and the process's peak
    memory is that of a plain bad value (measured, with 50 MB to spare: written out, the bomb's
    message alone would be 14 MB, and the 1.2 GB of issue 22 came from it)."""
    import sys

    amteach = [sys.executable, "-m", "amteach", "sweep", "--games", "1"]
    status, plain, plain_peak = peak_rss_of([*amteach, "--set", "foundation_monopolist_fee=x"])
    assert status == 2 and "whole number" in plain, plain
    status, stderr, bomb_peak = peak_rss_of(
        [*amteach, "--set", f"foundation_monopolist_fee={alias_bomb()},10"]
    )
    assert status == 2
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert "anchors and aliases (& and *) are not accepted" in stderr and len(stderr) < 300
    assert bomb_peak < plain_peak + 50_000, (bomb_peak, plain_peak)


def test_a_scenario_with_anchors_is_refused_naming_the_line(tmp_path: Path):
    status, message = scenario_cli(
        tmp_path, "players:\n" + FUZZ_PLAYERS % "" + "extra: &x [1]\nagain: *x\n"
    )
    assert status == 2 and "anchors and aliases" in message and "line " in message


def test_an_oversized_scenario_or_save_is_refused_before_it_is_read(tmp_path: Path):
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * amteach.files.MAX_SCENARIO_BYTES + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"at most 0\.2 MB"):
        amteach.files.read_yaml(big)
    save = tmp_path / "big.json"
    save.write_text(" " * (amteach.files.MAX_SAVE_BYTES + 1) + "{}", encoding="utf-8")
    with pytest.raises(SaveError, match="at most 2 MB"):
        load_game(save)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
        (b'{"a": ' * 21 + b"1" + b"}" * 21, "nested too deeply"),
        (b'{"format": "amteach-game", "seed": ' + b"9" * 5000 + b"}", "too large to read"),
        (b'["' + b"[" * 5000 + b'"]', "not an amteach saved game"),  # brackets in a string
        (b"\xff\xfe", "not a text file"),
        (b"x" * 2_000_001, "at most 2 MB"),
    ],
)
def test_an_upload_is_checked_before_it_is_parsed(content: bytes, words: str):
    from amteach.session import Session

    session = Session(seed=2)
    session.decide("roll")
    before = session.game.state.as_dict()
    reply = session.load(content)
    assert not reply.ok and words in reply.message, reply.message
    assert reply.message.startswith("Could not load that game; the current game is kept.")
    assert "\n" not in reply.message and len(reply.message) < 300
    assert session.game.state.as_dict() == before


def test_json_nesting_is_counted_without_parsing():
    from amteach.files import json_nesting

    assert json_nesting('{"a": [1, {"b": []}], "c": "[[[[\\"[["}') == 4
    assert json_nesting("[" * 100_000 + "]" * 100_000) == 100_000
    assert json_nesting("3") == 0


YAMLISH = st.text(alphabet="[]{}&*!:,-<> 019ax'\"\n|#%@`\\\t\u3164", max_size=600)


@settings(max_examples=300, deadline=None)
@given(YAMLISH)
def test_any_typed_value_is_read_or_refused_in_one_short_line(typed: str):
    from amteach.engine.rule_input import parse_overrides

    try:
        parse_overrides((f"starting_cash={typed}",))
    except InputError as err:
        message = str(err)
        assert "\n" not in message and len(message) < 300, message


def mutated_saves() -> st.SearchStrategy[bytes]:
    """A real save with one field replaced by any JSON value, or any bytes at all."""
    game = Game.new(PLAYERS, seed=5)
    for _ in range(6):
        game.apply(game.legal_choices()[0])
    save = game.to_save()
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
        max_leaves=12,
    )

    def replaced(key: str, value: Any) -> bytes:
        return json.dumps({**save, key: value}).encode()

    return st.one_of(
        st.builds(replaced, st.sampled_from(sorted(save)), json_values),
        st.binary(max_size=400),
    )


@settings(max_examples=150, deadline=None)
@given(mutated_saves())
def test_any_upload_is_loaded_or_refused_in_one_line_keeping_the_game(content: bytes):
    from amteach.session import Session

    session = Session(seed=2)
    before = session.game.state.as_dict()
    reply = session.load(content)
    # (two quotes of at most 80 characters each, and the list of choices a save may hold)
    assert "\n" not in reply.message and len(reply.message) < 600, reply.message
    if not reply.ok:
        assert reply.message.startswith("Could not load that game; the current game is kept.")
        assert session.game.state.as_dict() == before


@pytest.mark.parametrize("command", [["rules"], ["simulate", "--games", "1"], ["sweep"]])
def test_every_set_option_refuses_an_alias_bomb_in_one_line(command: list[str]):
    from click.testing import CliRunner

    from amteach.cli import main

    result = CliRunner().invoke(main, [*command, "--set", f"starting_cash={alias_bomb()}"])
    assert result.exit_code == 2 and result.stdout == ""
    assert "anchors and aliases (& and *) are not accepted" in result.stderr
    assert result.stderr.count("\n") == 1 and len(result.stderr) < 300
