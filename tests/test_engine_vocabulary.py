"""The engine's vocabulary (issue 14): phases and payment reasons as enums that still compare
with their text, one name for each meaning of -1, `is_held`, and `landing_outcomes`, the
engine's own answer to where a landing can lead (the landing chain is built from it)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from amteach.engine import (
    NO_SPACE,
    NOBODY,
    NOT_HELD,
    TREASURY,
    PaymentReason,
    Phase,
    landing_outcomes,
)
from amteach.engine import events as ev
from amteach.engine.board import COMPETITOR, MONOPOLIST, standard_board
from amteach.engine.game import Game, PlayerSetup, Setup
from amteach.engine.rules import RuleSet

BOARD = standard_board()


def test_phases_compare_and_save_as_their_text():
    game = Game.new([("Ana", "competitor"), ("Ben", "monopolist")], seed=1)
    assert game.phase is Phase.PRE_ROLL
    assert game.phase == "pre_roll"
    assert game.pending.phase == "pre_roll"
    assert json.loads(json.dumps(game.state.as_dict()))["phase"] == "pre_roll"
    assert {p.value for p in Phase} >= {"pre_roll", "buy", "raise", "post_roll", "over"}


def test_payment_reasons_compare_as_text_and_render():
    game = Game(
        Setup(
            players=(PlayerSetup("Ana", COMPETITOR, position=35), PlayerSetup("Ben", MONOPOLIST)),
            rules=RuleSet.preset("default"),
            seed=1,
            dice=((2, 3),),
        )
    )
    events = game.apply("roll")
    start = [e for e in events if isinstance(e, ev.Payment)]
    assert [e.reason for e in start] == [PaymentReason.START]
    assert start[0].reason == "start" and start[0].payer == TREASURY
    assert "START" in start[0].text
    assert start[0].to_dict()["reason"] == "start"


def test_each_meaning_of_minus_one_has_a_name():
    game = Game.new([("Ana", "competitor"), ("Ben", "monopolist")], seed=1)
    assert game.owner[1] == NOBODY
    assert game.state.held == [NOT_HELD, NOT_HELD]
    assert not game.is_held(0)
    table = ev.Table(game.names, game.roles, game.board)
    assert ev.Payment(table, 0, TREASURY, 10, PaymentReason.CARD).space == NO_SPACE


def test_decision3_is_held_and_the_fine_releases():
    setup = Setup(
        players=(
            PlayerSetup("Ana", COMPETITOR, position=BOARD.hold_space, held=1),
            PlayerSetup("Ben", MONOPOLIST),
        ),
        rules=RuleSet.preset("default"),
        seed=1,
    )
    game = Game(setup)
    assert game.is_held(0) and game.state.held[0] == 1
    game.apply("pay_fine")
    assert not game.is_held(0)
    # the forced fine (a debt paid as the turn starts) releases too
    forced = RuleSet.preset("default").held_turns_before_forced_fine
    game = Game(
        Setup(
            players=(
                PlayerSetup("Ana", COMPETITOR, position=BOARD.hold_space, held=forced),
                PlayerSetup("Ben", MONOPOLIST),
            ),
            rules=RuleSet.preset("default"),
            seed=1,
        )
    )
    assert not game.is_held(0)
    assert [e.how for e in game.events if isinstance(e, ev.LeftHold)] == ["fine"]


@pytest.mark.parametrize("role", [COMPETITOR, MONOPOLIST])
def test_landing_outcomes_are_what_the_engine_does(role):
    """Every card of the role's deck, forced on every card space: the engine's resolution,
    counted, is landing_outcomes times the deck size."""
    deck = BOARD.deck(role)
    other = 1 - role
    for space in range(len(BOARD.spaces)):
        outcomes = landing_outcomes(space, role)
        assert sum(o.probability for o in outcomes) == pytest.approx(1.0)
        if BOARD.spaces[space].kind != "card":
            assert len(outcomes) == 1
            continue
        seen: Counter[tuple[str, int]] = Counter()
        for card in deck:
            cards = ((card.id,), ()) if role == COMPETITOR else ((), (card.id,))
            game = Game(
                Setup(
                    players=(
                        PlayerSetup("A", role, position=(space - 3) % len(BOARD.spaces)),
                        PlayerSetup("B", other),
                    ),
                    rules=RuleSet.preset("default", starting_cash=10_000),
                    seed=1,
                    dice=((1, 2),),
                    cards=cards,
                )
            )
            events = game.apply("roll")
            moved = [e for e in events if isinstance(e, ev.Moved) and e.by == "card"]
            if moved:
                seen["moves", moved[0].end] += 1
            elif game.is_held(0):
                seen["sent_to_hold", BOARD.hold_space] += 1
            else:
                assert game.position[0] == space
                seen["stays", space] += 1
        expected = {(o.result, o.space): o.probability * len(deck) for o in outcomes}
        assert set(expected) == set(seen)
        for key, count in seen.items():
            assert expected[key] == pytest.approx(count)


def test_landing_outcomes_of_the_corners():
    go = landing_outcomes(BOARD.go_to_hold_space, COMPETITOR)
    assert [(o.result, o.space, o.probability) for o in go] == [
        ("sent_to_hold", BOARD.hold_space, 1.0)
    ]
    assert landing_outcomes(0, MONOPOLIST)[0].result == "stays"
