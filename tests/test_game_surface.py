"""The public `Game` stays small (issue 38): like python-chess's `Board`, it offers the legal
choices, apply and undo, the reads that charts and bots need, and save and load. Everything
else of the state is read through `game.state`, read-only; the transitions live in the rules
core. A new public name is a decision, made here on purpose, not by accident."""

from __future__ import annotations

import pytest

from amteach.engine.board import COMPETITOR, MONOPOLIST, standard_board
from amteach.engine.errors import IllegalChoice
from amteach.engine.game import BuildingQuote, Game, StateView
from amteach.engine.rules import RuleSet
from amteach.engine.setup import PlayerSetup, Setup, TitleSetup

GAME_PUBLIC = {
    # making, saving and loading a game
    "new", "from_save", "to_save", "replay", "setup", "rules", "board",
    # who plays and what is going on
    "names", "roles", "pending", "over", "winner", "end_reason", "round", "actor", "current",
    "phase",
    # the state the board shows, read-only; the rest of it is `state`
    "cash", "position", "owner", "houses", "apartment", "mortgaged", "bankrupt", "is_held",
    "state",
    # the rules' reads for charts, panels and bots
    "titles_of", "rent_for", "rent_if", "tax_options", "wealth", "wealth_parts",
    "rule25_wealth", "is_monopolized", "building",
    # choices
    "legal", "legal_choices", "targets", "is_legal", "check", "parse_choice", "apply", "undo",
    # the record
    "events", "decisions",
}  # fmt: skip

STATE_PUBLIC = {
    "held", "turns_taken", "mortgage_values", "redeem_values", "treasury", "total_money",
    "supply_houses", "supply_apartments", "last_dice", "pending_buy", "leader_at_final",
    "offer", "is_extra", "final_reason", "cash_at_final", "final_queue", "decks", "debts",
    "monopoly_count", "liquidation_value", "invariant_violations", "as_dict", "core",
}  # fmt: skip


def public_names(obj: object) -> set[str]:
    return {name for name in dir(obj) if not name.startswith("_")}


@pytest.fixture
def game() -> Game:
    return Game.new([("Ana", "competitor"), ("Ben", "monopolist")], seed=3)


def test_the_public_game_is_the_listed_45_names_at_most(game):
    assert public_names(game) == GAME_PUBLIC
    assert len(GAME_PUBLIC) <= 45


def test_the_state_view_is_the_listed_names(game):
    assert isinstance(game.state, StateView)
    assert public_names(game.state) == STATE_PUBLIC


def test_the_state_cannot_be_changed_through_the_public_game(game):
    """Issue 38: `g.pays(0, 1, 5000, 0)` once left a player at -$3,500 with no exception."""
    with pytest.raises(AttributeError):
        game.pays(0, 1, 5000, 0)  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        game.cash[0] = -3500  # type: ignore[index]
    with pytest.raises(AttributeError):
        game.state.treasury = 10  # type: ignore[misc]
    with pytest.raises(AttributeError):
        game.round = 9  # type: ignore[misc]
    assert list(game.cash) == [1500, 1500]
    assert game.state.as_dict()["treasury"]["balance"] == game.state.treasury


def test_a_change_goes_through_apply_which_checks_it(game):
    with pytest.raises(IllegalChoice, match="Ana does not own"):
        game.apply(("build", 1))
    game.apply("roll")
    assert game.decisions[0].kind == "roll"
    assert game.state.invariant_violations() == []


def test_the_building_quote_is_the_rules_cores_answer():
    """Rule 11: a Competitor builds houses up to the role's most, then an apartment; what was
    paid for the houses standing is the income tax's improvements (decision 1)."""
    rules = RuleSet.preset("default")
    street = standard_board().streets[0]

    def quote(houses: int) -> tuple[Game, BuildingQuote]:
        ana = PlayerSetup("Ana", COMPETITOR, titles=(TitleSetup(street, houses=houses),))
        setup = Setup(players=(ana, PlayerSetup("Ben", MONOPOLIST)), rules=rules, seed=1)
        game = Game(setup)
        return game, game.building(street)

    game, bare = quote(0)
    assert (bare.next, bare.paid) == ("house", 0)
    assert bare.rent_after == game.rent_if(street, houses=1) > game.rent_for(street)[0]
    most = rules.max_houses_competitor
    game, full = quote(most)
    assert full.next == "apartment"
    assert full.paid == most * game.board.spaces[street].house_cost
    assert full.sale == "house" and 0 < full.sale_value <= game.board.spaces[street].house_cost
