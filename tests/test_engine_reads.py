"""Issue 26: the engine's what-if questions read the game and never change it."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from amteach.bots import RandomStrategy
from amteach.engine.game import Game


def played(seed: int, decisions: int) -> Game:
    game = Game.new(
        [("Ana", "competitor"), ("Ben", "monopolist"), ("Cy", "competitor"), ("Di", "monopolist")],
        rules="default",
        seed=seed,
    )
    bot = RandomStrategy(seed)
    for _ in range(decisions):
        if game.over:
            break
        game.apply(bot.choose(game, game.legal_choices()))
    return game


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    decisions=st.integers(0, 600),
    houses=st.integers(0, 3),
    apartment=st.booleans(),
    mortgaged=st.booleans(),
)
def test_rent_if_reads_and_never_writes(seed, decisions, houses, apartment, mortgaged):
    """Any owned title, any what-if: the game's state is the same afterwards, and asking with no
    what-if gives the rent of now (decisions.md's rents, as `rent_for` applies them)."""
    game = played(seed, decisions)
    before = copy.deepcopy(game.state.as_dict())
    owned = [s for s in game.board.titles if game.owner[s] >= 0]
    for space in owned:
        assert game.rent_if(space) == game.rent_for(space)[0]
        street = game.board.spaces[space].kind == "street"
        game.rent_if(
            space,
            houses=houses if street else None,
            apartment=apartment if street else None,
            mortgaged=mortgaged,
        )
    assert game.state.as_dict() == before
