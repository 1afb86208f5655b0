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
