"""Events are the one record of a game: typed, complete, and each one plain English."""

from __future__ import annotations

from conftest import events_of, scenario, two

from amteach.bots import RandomStrategy
from amteach.engine.events import EVENT_TYPES, Event
from amteach.engine.game import Game


def _random_game(seed: int, players: int = 4) -> Game:
    roles = ["competitor", "monopolist"] * 3
    game = Game.new([(f"P{i}", roles[i]) for i in range(players)], seed=seed, round_cap=40)
    bot = RandomStrategy(seed)
    while not game.over:
        game.apply(bot.choose(game, game.legal_choices()))
    return game


def test_every_event_renders_one_plain_sentence():
    seen: set[str] = set()
    for seed in range(12):
        for event in _random_game(seed, players=2 + seed % 5).events:
            text = event.text
            seen.add(event.type)
            assert isinstance(event, Event)
            assert text[0].isupper() and text.endswith("."), text
            assert "{" not in text and "None" not in text and ".." not in text, text
            data = event.to_dict()
            assert data["type"] == event.type and data["text"] == text
    # a random game touches most kinds of event
    assert {"turn_started", "dice", "moved", "purchase", "rent", "payment", "game_over"} <= seen
    assert seen <= set(EVENT_TYPES)


def test_rent_sentence_names_both_roles_and_why_it_is_doubled():
    """Events carry payer, payee, roles and space, and say why: rule 10 doubled rent."""
    game = scenario(two(ben={"titles": {"Rush St.": {}, "State St.": {}}}), ["roll"], dice=[[5, 6]])
    (rent,) = events_of(game, "rent")
    assert (rent.payer, rent.payee, rent.space, rent.amount) == (0, 1, 11, 28)
    assert rent.to_dict()["basis"] == "monopoly"
    assert rent.text == (
        "Ana (Competitor) pays Ben (Monopolist) $28 rent for Rush St.; "
        "Ben owns 2 Chicago streets, so the rent is doubled."
    )


def test_dice_and_cards_are_logged_as_chance_events():
    """The engine logs every chance outcome: each throw and each card drawn."""
    game = scenario(two(), ["roll"], dice=[[1, 1]], cards={"competitor": ["C3"]})
    dice = events_of(game, "dice")
    cards = events_of(game, "card")
    assert dice[0].dice == (1, 1) and dice[0].purpose == "move"
    assert [c.card for c in cards] == ["C3"]
    assert "Collect $50" in cards[0].text


def test_events_render_lazily_from_cheap_records():
    """A batch run never pays for sentences: events hold numbers and render on demand."""
    game = scenario(two(), ["roll"], dice=[[5, 6]])
    moved = events_of(game, "moved")[0]
    assert not hasattr(moved, "__dict__")  # slots only
    assert (moved.start, moved.end) == (0, 11)
    assert moved.text == "Ana moves from START to Rush St."


def test_decision1_both_income_tax_amounts_are_shown_before_the_choice():
    """Decision 1: the game shows both amounts (flat and the role's percentage) before the choice."""
    game = scenario(
        two({"cash": 1000, "titles": {"Rush St.": {"houses": 2}}}), ["roll"], dice=[[1, 3]]
    )
    (due,) = events_of(game, "income_tax_due")
    # competitor: 10% of cash + 10% of property (140) + 10% of buildings (2 x 100)
    expected = (10 * 1000 + 10 * 140 + 10 * 200 + 50) // 100
    assert (due.flat, due.percent) == (200, expected)
    assert due.text == (
        f"Ana (Competitor) lands on Income Tax and chooses: $200 flat, or ${expected} "
        "(10% of $1000 cash + 10% of $140 property + 10% of $200 buildings)."
    )
    assert game.state.as_dict()["pending"] == {
        "player": "Ana",
        "choices": ["income_tax"],
        "income_tax": {"flat": 200, "percent": expected},
    }
    assert not events_of(game, "income_tax_choice")  # nothing chosen yet


def test_an_event_prints_in_a_line_without_the_board():
    """Issue 26: each event shares the game's table (names, roles, the whole board); its repr
    leaves the table out, so a notebook cell that returns events shows a line each."""
    game = _random_game(3)
    for event in game.events:
        assert "Board(" not in repr(event) and "Table(" not in repr(event), type(event).__name__
        assert len(repr(event)) < 300, repr(event)[:400]
    first = Game.new([("Ana", "competitor"), ("Ben", "monopolist")], rules="default", seed=7)
    assert len(repr(first.apply("roll"))) < 2_000  # the README's example (75 KB before)


def test_the_version_is_written_once():
    """Issue 26: pyproject.toml reads the version from amteach.__version__."""
    from importlib.metadata import version

    import amteach

    assert amteach.__version__ == version("amteach")
