"""What decided a game: the breakdown of the final accounting (rules decision 12; issue 37),
by hand for one scripted game and as properties over random bot games."""

from __future__ import annotations

from conftest import scenario
from hypothesis import given, settings
from hypothesis import strategies as st

from amteach.engine.game import Game
from amteach.engine.rules import RuleSet
from amteach.sim.accounting import SeatAccounting, accounting_breakdown
from amteach.sim.play import BatchConfig, play_bot_game
from amteach.sim.runner import parse_seats

ANA_TITLES = {
    "Rush St.": {"houses": 2},
    "U.S. Electric Company": {},
    "Wall St.": {"mortgaged": True},
}
BEN_TITLES = {"Locust St.": {}, "Chestnut St.": {}, "U.S. Gas Company": {}}


def scripted_game() -> Game:
    """Cy goes bankrupt to the Treasury (property tax, no cash, no titles); then time is up
    with Ana the Competitor ahead on cash, and the accounting hands the win to Ben."""
    players = [
        {"name": "Cy", "role": "competitor", "cash": 0, "position": 35},
        {"name": "Ana", "role": "competitor", "cash": 2000, "titles": ANA_TITLES},
        {"name": "Ben", "role": "monopolist", "cash": 1501, "titles": BEN_TITLES},
    ]
    return scenario(
        players,
        [
            "roll",  # Cy: 35 + 3 = Property Tax, $75 he cannot pay
            "end_game",  # Ana, on her turn: time is up
            {"sell_building": "Rush St."},  # Ana +50 (Rush St. keeps 1 house)
            {"redeem": "Wall St."},  # Ana -220
            "end_turn",
            {"mortgage": "Chestnut St."},  # Ben +90 (Philadelphia no longer his monopoly)
            "end_turn",
        ],
        dice=[[1, 2]],
        game="two-hour",
    )


def test_decision12_breakdown_by_hand_of_a_scripted_game():
    """Decision 12: the players adjust with the Treasury, Competitors keep 10% and Monopolists
    20% (rounded down), the Treasurer pays one landing's rent per owned, unmortgaged title,
    most cash wins. Ana leads before (2000 to 1501); Ben wins after."""
    game = scripted_game()
    assert game.over and game.bankrupt == [True, False, False]
    breakdown = accounting_breakdown(game)
    assert breakdown is not None
    ana_cut = 2000 + 50 - 220  # 1830 when the settlement comes
    ben_cut = 1501 + 90  # 1591
    # the trip: Ana Rush St. with 1 house 24, Electric 4 x 7 = 28, Wall St. bare 40;
    # Ben Locust St. single rent 18, Gas 28 (Chestnut St. mortgaged pays nothing)
    assert breakdown.seats == (
        SeatAccounting(0, "competitor", 0, 0, 0, 0, 0, 0),  # out before: took no part
        SeatAccounting(
            1,
            "competitor",
            cash_before=2000,
            adjustments=50 - 220,
            handed_over=ana_cut - ana_cut * 10 // 100,  # keeps 183
            kept_percent=10,
            treasurer_rent=24 + 28 + 40,
            cash_after=183 + 92,
        ),
        SeatAccounting(
            2,
            "monopolist",
            cash_before=1501,
            adjustments=90,
            handed_over=ben_cut - ben_cut * 20 // 100,  # keeps 318
            kept_percent=20,
            treasurer_rent=18 + 28,
            cash_after=318 + 46,
        ),
    )
    assert game.cash == [0, 275, 364]
    assert breakdown.reason == "two_hour"
    assert (breakdown.leader_before, breakdown.winner) == (1, 2)
    assert breakdown.changed_winner
    assert breakdown.changed_winning_role


def test_decision12_an_accounting_that_keeps_the_leader_changes_nothing():
    """Decision 12: Ben (Monopolist, 1501) leads Ana (1234) before and wins after."""
    game = scenario(
        [
            {"name": "Ana", "role": "competitor", "cash": 1234},
            {"name": "Ben", "role": "monopolist", "cash": 1501},
        ],
        ["end_game", "end_turn", "end_turn"],
        game="two-hour",
    )
    breakdown = accounting_breakdown(game)
    assert [s.cash_before for s in breakdown.seats] == [1234, 1501]
    assert [s.cash_after for s in breakdown.seats] == [123, 300]
    assert (breakdown.leader_before, breakdown.winner) == (1, 1)
    assert not breakdown.changed_winner
    assert not breakdown.changed_winning_role


def test_decision12_a_tie_before_goes_to_the_first_seat_as_the_winner_does():
    """Decision 12 ties: the first seat of the most cash, the engine's rule for the winner.
    Two Competitors tied before stay tied after (same share, no titles): seat 0 both times."""
    game = scenario(
        [
            {"name": "Ana", "role": "competitor", "cash": 900},
            {"name": "Ben", "role": "monopolist", "cash": 100},
            {"name": "Cy", "role": "competitor", "cash": 900},
        ],
        ["end_game", "end_turn", "end_turn", "end_turn"],
        game="two-hour",
    )
    breakdown = accounting_breakdown(game)
    assert game.cash == [90, 20, 90]
    assert (breakdown.leader_before, breakdown.winner) == (0, 0)


def test_games_without_the_final_accounting_have_no_breakdown():
    """Game A's last player standing and a game not over have no final accounting."""
    over = scenario(
        [
            {"name": "Ana", "role": "competitor", "cash": 0, "position": 35},
            {"name": "Ben", "role": "monopolist"},
        ],
        ["roll"],
        dice=[[1, 2]],
        game="A",
    )
    assert over.over and over.end_reason == "game_a"
    assert accounting_breakdown(over) is None
    going = scenario([{"name": "Ana", "role": "competitor"}, {"name": "Ben", "role": "monopolist"}])
    assert accounting_breakdown(going) is None


MIXES = (
    "competitor:random:flat,monopolist:random:percent,competitor:random",
    "competitor:investor,monopolist:builder,competitor:cautious,monopolist:investor",
    "competitor:builder,monopolist:random",
)


@settings(max_examples=40, deadline=None)
@given(
    mix=st.sampled_from(MIXES),
    cap=st.integers(1, 40),
    seed=st.integers(0, 2**31 - 1),
    equal_keep=st.booleans(),
)
def test_property_the_breakdown_adds_up_and_names_the_engines_winner(mix, cap, seed, equal_keep):
    """For every seat of a random bot game that reached the round cap: before + adjustments
    - handed over + the Treasurer's rent = after; the cash before is the cash the game held
    when the accounting began (taken during play); the winner is the engine's."""
    overrides = {"round_cap": cap}
    if equal_keep:
        overrides["settlement_keep_percent_monopolist"] = 10
    rules = RuleSet.preset("default", **overrides)
    config = BatchConfig(parse_seats(mix), rules.to_dict(), seed)
    seen: dict[str, list[int]] = {}

    def watch(game: Game) -> None:
        if game.final_reason and "cash" not in seen:
            seen["cash"] = list(game.cash)
            seen["out"] = list(game.bankrupt)

    game, _ = play_bot_game(0, config, rules, on_decision=watch)
    breakdown = accounting_breakdown(game)
    if game.end_reason == "game_a":  # everyone else went bankrupt before the cap
        assert breakdown is None
        return
    assert breakdown.reason == "round_cap"
    assert breakdown.winner == game.winner
    for s in breakdown.seats:
        assert s.cash_before + s.adjustments - s.handed_over + s.treasurer_rent == s.cash_after
        assert s.cash_after == game.cash[s.seat]
        assert s.cash_before == seen["cash"][s.seat]
        if seen["out"][s.seat]:
            assert (s.cash_before, s.handed_over, s.treasurer_rent, s.cash_after) == (0, 0, 0, 0)
        else:
            assert s.kept_percent == rules.settlement_keep_percent(game.roles[s.seat])
    alive = [s for s in breakdown.seats if not seen["out"][s.seat]]
    top = max(s.cash_before for s in alive)
    assert breakdown.leader_before == min(s.seat for s in alive if s.cash_before == top)
    assert breakdown.changed_winner == (breakdown.leader_before != game.winner)
