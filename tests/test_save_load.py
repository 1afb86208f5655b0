"""Save, load, replay and undo.

A game is its set-up plus its decisions: a save holds exactly those, loading replays them, and
undo replays all but the last ones. So save-then-load, replay and undo must all give back the
very same game: the same state, the same events (and event texts), and the same future.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from amteach import Game, IllegalChoice
from amteach.bots import RandomStrategy
from amteach.engine.scenario import load_scenario, play_script
from amteach.files import load_game, load_scenario_file, save_game

PLAYERS = [
    ("Ana", "competitor"),
    ("Ben", "monopolist"),
    ("Cleo", "competitor"),
    ("Dev", "monopolist"),
]


def event_dicts(game: Game) -> list[dict[str, Any]]:
    return [event.to_dict() for event in game.events]


def event_texts(game: Game) -> list[str]:
    return [event.text for event in game.events]


def assert_same_game(a: Game, b: Game) -> None:
    assert a.state.as_dict() == b.state.as_dict()
    assert event_texts(a) == event_texts(b)
    assert event_dicts(a) == event_dicts(b)
    assert a.decisions == b.decisions
    assert a.to_save() == b.to_save()


def bot_play(game: Game, bot_seed: int, decisions: int, trade_rate: float = 0.2) -> Game:
    """Random legal decisions (trades included) for every seat."""
    bots = [
        RandomStrategy(bot_seed + seat, trade_rate=trade_rate) for seat in range(len(game.names))
    ]
    for _ in range(decisions):
        if game.over:
            break
        game.apply(bots[game.actor].choose(game, game.legal_choices()))
    return game


def through_json(game: Game) -> Game:
    """Save to JSON text and load back, as a file would."""
    return Game.from_save(json.loads(json.dumps(game.to_save())), "test save")


@st.composite
def started_games(draw: st.DrawFn) -> Game:
    n = draw(st.integers(min_value=2, max_value=6))
    roles = ["competitor", "monopolist"] * 3
    players = [(f"P{i}", roles[i]) for i in range(n)]
    game = Game.new(
        players,
        rules=draw(st.sampled_from(["default", "edition-2005"])),
        seed=draw(st.integers(min_value=0, max_value=2**31)),
        game=draw(st.sampled_from(["A", "B", "two-hour"])),
        round_cap=draw(st.integers(min_value=3, max_value=12)),
        starting_cash=draw(st.one_of(st.just(1500), st.integers(min_value=0, max_value=400))),
    )
    return bot_play(
        game, draw(st.integers(0, 2**31)), draw(st.integers(min_value=0, max_value=300))
    )


# -- save and load ------------------------------------------------------------------------------


@given(game=started_games())
def test_save_load_gives_the_same_state_and_event_texts(game: Game) -> None:
    loaded = through_json(game)
    assert_same_game(loaded, game)
    assert loaded.pending == game.pending
    assert loaded.legal_choices() == game.legal_choices()


@given(
    game=started_games(),
    more=st.integers(min_value=1, max_value=80),
    bot_seed=st.integers(0, 2**31),
)
def test_a_loaded_game_goes_on_exactly_like_the_original(
    game: Game, more: int, bot_seed: int
) -> None:
    """The dice stream and the card decks are restored too: the same decisions after loading
    throw the same dice and draw the same cards."""
    loaded = through_json(game)
    bots = [RandomStrategy(bot_seed + seat, trade_rate=0.2) for seat in range(len(game.names))]
    for _ in range(more):
        if game.over:
            break
        choice = bots[game.actor].choose(game, game.legal_choices())
        assert [e.to_dict() for e in loaded.apply(choice)] == [
            e.to_dict() for e in game.apply(choice)
        ]
    assert_same_game(loaded, game)


def test_a_save_is_plain_json_with_format_version_setup_and_decisions():
    game = bot_play(Game.new(PLAYERS, seed=5, round_cap=10), 5, 120)
    data = json.loads(json.dumps(game.to_save()))  # only JSON types: dumps would raise
    assert {"format", "version", "setup", "decisions"} <= set(data)
    assert len(data["decisions"]) == len(game.decisions)
    assert data["setup"]["seed"] == game.setup.seed
    assert [p["name"] for p in data["setup"]["players"]] == [name for name, _ in PLAYERS]


def test_a_finished_game_round_trips_with_its_winner():
    game = bot_play(Game.new(PLAYERS, seed=11, round_cap=6), 11, 20_000)
    assert game.over
    loaded = through_json(game)
    assert_same_game(loaded, game)
    assert loaded.over
    assert (loaded.winner, loaded.end_reason) == (game.winner, game.end_reason)


@pytest.mark.parametrize("phase", ["raise", "trade_answer", "income_tax", "buy", "final_adjust"])
def test_a_game_saved_mid_phase_round_trips(phase: str):
    """Saving while a debt is being raised, a trade awaits its answer, etc."""
    for seed in range(300):
        game = Game.new(PLAYERS, seed=seed, round_cap=4, starting_cash=150, game="two-hour")
        bots = [RandomStrategy(seed * 7 + seat, trade_rate=0.3) for seat in range(len(game.names))]
        while not game.over and game.phase != phase:
            game.apply(bots[game.actor].choose(game, game.legal_choices()))
        if game.phase == phase:
            break
    assert game.phase == phase, f"no random game reached phase {phase!r}"
    loaded = through_json(game)
    assert_same_game(loaded, game)
    assert loaded.phase == phase
    choice = game.legal_choices()[-1]
    assert [e.to_dict() for e in loaded.apply(choice)] == [e.to_dict() for e in game.apply(choice)]
    assert_same_game(loaded, game)


# -- determinism: the seed and the decisions fix the whole game -----------------------------------


@given(game=started_games())
def test_same_seed_and_decisions_give_the_same_log(game: Game) -> None:
    again = Game.new(
        [
            (name, ("competitor", "monopolist")[role])
            for name, role in zip(game.names, game.roles, strict=True)
        ],
        rules=game.rules,
        seed=game.setup.seed,
        game=game.setup.game_type,
    )
    for choice in game.decisions:
        again.apply(choice)
    assert event_dicts(again) == event_dicts(game)
    assert again.state.as_dict() == game.state.as_dict()
    assert event_dicts(Game.replay(game.setup, game.decisions)) == event_dicts(game)


def test_the_seed_decides_the_dice():
    """Two seeds, the same decisions while both games allow them: the dice differ somewhere
    (otherwise the seed would not be what fixes the game)."""

    def plain(game: Game) -> Any:
        legal = game.legal_choices()
        for kind in ("roll", "end_turn", "decline", "income_tax", "reject"):
            for choice in legal:
                if choice.kind == kind:
                    return choice
        return legal[0]

    def dice(seed: int) -> list[tuple[int, ...]]:
        game = Game.new(PLAYERS, seed=seed, round_cap=30)
        for _ in range(60):
            game.apply(plain(game))
        return [e.dice for e in game.events if e.type == "dice"]

    assert dice(1) == dice(1)
    assert dice(1) != dice(2)


# -- undo ---------------------------------------------------------------------------------------


@given(game=started_games())
def test_undo_of_the_last_decision_gives_back_the_previous_state(game: Game) -> None:
    if not game.decisions:
        with pytest.raises(IllegalChoice):
            game.undo()
        return
    previous = Game.replay(game.setup, game.decisions[:-1])
    expected_state, expected_events = previous.state.as_dict(), event_dicts(previous)
    last = game.decisions[-1]
    game.undo()
    assert game.state.as_dict() == expected_state
    assert event_dicts(game) == expected_events
    assert game.decisions == previous.decisions
    # and the same decision taken again gives the same outcome as the first time
    redo_events = [e.to_dict() for e in game.apply(last)]
    assert redo_events == [e.to_dict() for e in previous.apply(last)]


def test_undo_returns_exactly_the_state_before_the_decision():
    """Snapshots taken before each decision, then undone one by one back to the start."""
    game = Game.new(PLAYERS, seed=21, round_cap=8)
    bots = [RandomStrategy(21 + seat, trade_rate=0.2) for seat in range(len(game.names))]
    snapshots = []
    for _ in range(150):
        if game.over:
            break
        snapshots.append((game.state.as_dict(), event_dicts(game), list(game.decisions)))
        game.apply(bots[game.actor].choose(game, game.legal_choices()))
    assert len(snapshots) > 50
    while snapshots:
        state, events, decisions = snapshots.pop()
        game.undo()
        assert game.state.as_dict() == state
        assert event_dicts(game) == events
        assert game.decisions == decisions
    assert_same_game(game, Game(game.setup))


@pytest.mark.parametrize("count", [2, 3, 7])
def test_undo_several_decisions_at_once(count: int):
    game = bot_play(Game.new(PLAYERS, seed=count, round_cap=10), count, 90)
    decisions = list(game.decisions)
    one_by_one = Game.replay(game.setup, decisions)
    for _ in range(count):
        one_by_one.undo()
    game.undo(count)
    expected = Game.replay(game.setup, decisions[:-count])
    assert_same_game(game, expected)
    assert_same_game(one_by_one, expected)


def test_undo_more_than_was_decided_raises_and_changes_nothing():
    game = bot_play(Game.new(PLAYERS, seed=4, round_cap=10), 4, 5)
    before, events = game.state.as_dict(), event_dicts(game)
    for count in (len(game.decisions) + 1, 0, -1):
        with pytest.raises(IllegalChoice) as err:
            game.undo(count)
        assert err.value.rule
        assert game.state.as_dict() == before
        assert event_dicts(game) == events
        assert len(game.decisions) == 5


def test_undo_after_loading_works_like_undo_before_saving():
    game = bot_play(Game.new(PLAYERS, seed=8, round_cap=10), 8, 70)
    loaded = through_json(game)
    game.undo(3)
    loaded.undo(3)
    assert_same_game(loaded, game)


# -- files --------------------------------------------------------------------------------------


def test_save_game_and_load_game_through_a_file(tmp_path: Path):
    game = bot_play(
        Game.new(PLAYERS, rules="edition-2005", seed=13, round_cap=10, game="B"), 13, 200
    )
    target = tmp_path / "game.json"
    written = save_game(game, target)
    assert Path(written) == target
    assert json.loads(target.read_text(encoding="utf-8")) == json.loads(json.dumps(game.to_save()))
    loaded = load_game(target)
    assert_same_game(loaded, game)
    assert loaded.rules == game.rules
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"], "no temporary files left"


def test_save_game_replaces_an_older_save(tmp_path: Path):
    target = tmp_path / "game.json"
    game = Game.new(PLAYERS, seed=3, round_cap=10)
    save_game(game, target)
    bot_play(game, 3, 40)
    save_game(game, target)
    assert_same_game(load_game(target), game)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_save_load_accepts_a_string_path(tmp_path: Path):
    game = bot_play(Game.new(PLAYERS, seed=2, round_cap=10), 2, 30)
    target = str(tmp_path / "as-string.json")
    save_game(game, target)
    assert_same_game(load_game(target), game)


SCENARIO = {
    "rules": {
        "preset": "edition-2005",
        "round_cap": 9,
        "foundation_competitor_prizes": {1: 30, 3: 10},
    },
    "seed": 42,
    "game": "B",
    "players": [
        {
            "name": "Ana",
            "role": "competitor",
            "cash": 900,
            "position": 35,
            "titles": {
                "Basin St.": {"houses": 4},
                "French Quarter": {"apartment": True},
                "U.S. Railroad": None,
            },
        },
        {
            "name": "Ben",
            "role": "monopolist",
            "held": 1,
            "titles": {
                "Rush St.": {"houses": 3},
                "State St.": None,
                "U.S. Bus Company": {"mortgaged": True},
            },
        },
        {"name": "Cy", "role": "competitor", "position": 7, "cash": 40},
    ],
    "dice": [[3, 4], [1, 1], [2, 5], [6, 6]],
    "cards": {"competitor": ["C7", "C3"], "monopolist": ["M5"]},
    "script": ["roll"],
}


def scenario_game() -> Game:
    game, script = load_scenario(SCENARIO, "test scenario")
    return play_script(game, script)


def test_a_scenario_game_round_trips(tmp_path: Path):
    """Forced dice and cards, placed titles with buildings and mortgages, a held player,
    custom cash, positions and rules: all are in the save and come back."""
    game = scenario_game()
    first_dice = next(e for e in game.events if e.type == "dice")
    assert list(first_dice.dice) == SCENARIO["dice"][0]  # the forced throw was used
    bot_play(game, 42, 150)
    target = tmp_path / "scenario-game.json"
    save_game(game, target)
    loaded = load_game(target)
    assert_same_game(loaded, game)
    assert loaded.setup == game.setup
    # the set-up itself round-trips: at the start, the loaded game is the scenario's position
    start = Game(loaded.setup)
    fresh, _ = load_scenario(SCENARIO, "test scenario")
    assert_same_game(start, fresh)
    rush = loaded.board.space("Rush St.").index
    assert (start.owner[rush], start.houses[rush]) == (1, 3)
    assert start.state.held[1] == 1
    assert start.cash == [900, start.rules.starting_cash, 40]
    assert start.rules.foundation_competitor_prizes == ((1, 30), (3, 10))


def test_a_scenario_file_game_round_trips(tmp_path: Path):
    source = tmp_path / "lesson.yaml"
    source.write_text(yaml.safe_dump(SCENARIO), encoding="utf-8")
    game = load_scenario_file(source)
    assert_same_game(game, scenario_game())
    save_game(game, tmp_path / "lesson.json")
    assert_same_game(load_game(tmp_path / "lesson.json"), game)


def test_undo_in_a_scenario_game_keeps_the_forced_dice():
    """Undo replays from the set-up, so forced dice are thrown again in the same order."""
    game = scenario_game()
    dice_before = [e.dice for e in game.events if e.type == "dice"]
    game.undo()
    assert game.decisions == []
    game.apply("roll")
    assert [e.dice for e in game.events if e.type == "dice"] == dice_before
    assert_same_game(game, scenario_game())
