"""What decided a game: the breakdown of the final accounting (rules decision 12; issue 37),
by hand for one scripted game and as properties over random bot games; the frames' columns,
`amteach simulate`'s line, the batch tabs' line and the Class tab's, each recomputed."""

from __future__ import annotations

import html
import re

import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import scenario
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from amteach.cli import main
from amteach.engine.errors import InputError
from amteach.engine.game import Game
from amteach.engine.rules import RuleSet
from amteach.rooms import SERVER_DRIVES_ENV, open_rooms
from amteach.rooms.hub import Hub
from amteach.sim import SimulationResult, simulate
from amteach.sim.accounting import SeatAccounting, accounting_breakdown
from amteach.sim.play import BatchConfig, play_bot_game
from amteach.sim.runner import parse_seats
from amteach.ui.batch import accounting_html, batch_summary_html
from amteach.ui.class_tab import ClassTab

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
        if game.state.final_reason and "cash" not in seen:
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


# -- the frames, the command, the batch tabs and the class's results ---------------------------


def first_of_most(players: pd.DataFrame) -> pd.Series:
    """Recomputed from the players frame: each game's seat still in with the most cash when the
    accounting began, the first seat of the most (decision 12's winner rule)."""
    alive = players[~players["bankrupt"]].sort_values(["game", "seat"])
    top = alive.groupby("game")["cash_before_accounting"].transform("max")
    return alive[alive["cash_before_accounting"] == top].groupby("game")["seat"].min()


def changes_by_hand(games: pd.DataFrame, players: pd.DataFrame) -> tuple[int, int, int]:
    """(games the accounting settled, winners it changed, winning roles it changed)."""
    settled = games[games["end_reason"].isin(["two_hour", "round_cap"])]
    role = {(g, s): r for g, s, r in players[["game", "seat", "role"]].itertuples(index=False)}
    winner = role_changed = 0
    for game, leader, won in settled[["game", "leader_before_accounting", "winner"]].itertuples(
        index=False
    ):
        winner += leader != won
        role_changed += role.get((game, leader)) != role.get((game, won))
    return len(settled), winner, role_changed


def wilson(count: int, n: int) -> str:
    low, high = proportion_confint(count, n, method="wilson")
    return f"{100 * count / n:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def test_simulate_prints_what_the_accounting_decided_recomputed_from_its_frames(tmp_path):
    out = tmp_path / "batch"
    result = CliRunner().invoke(
        main,
        ["simulate", "--games", "60", "--seed", "5", "--workers", "1", "--quiet",
         "--length", "6", "--out", str(out), "--format", "csv"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    games, players = pd.read_csv(out / "games.csv"), pd.read_csv(out / "players.csv")
    # the column is the standing recorded when the accounting began, by the winner's rule
    leader = first_of_most(players)
    settled = games[games["end_reason"] == "round_cap"]
    assert len(settled) > 0
    assert (settled.set_index("game")["leader_before_accounting"] == leader[settled["game"]]).all()
    n, winner, role = changes_by_hand(games, players)
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("The final accounting"))
    assert lines[-1].startswith("Saved games")  # the accounting is the report's last part
    assert lines[at] == (
        f"The final accounting changed the winner of {winner} of {n} games ({wilson(winner, n)}); "
        f"the winning role in {role} ({wilson(role, n)})."
    )
    assert lines[at + 1] == "  " + (
        f"Over the {n} of 60 games that time ended, after 6 rounds; Competitors keep 10% of "
        "their cash, Monopolists 20%; changed: the player with the most cash when time was up "
        "did not win; 95% Wilson intervals."
    )


def test_a_game_played_out_has_its_final_cash_as_the_cash_before_and_no_leader():
    """Game A's last player standing: no final accounting (-1), the frame's documented
    fallback for cash_before_accounting is the final cash."""
    batch = simulate(
        games=30, seats="competitor:random,monopolist:random", seed=2, round_cap=2000,
        workers=1, progress=False,
    )  # fmt: skip
    played_out = batch.games[batch.games["end_reason"] == "game_a"]["game"]
    assert len(played_out) > 0
    assert (batch.games.set_index("game").loc[played_out, "leader_before_accounting"] == -1).all()
    rows = batch.players[batch.players["game"].isin(played_out)]
    assert (rows["cash_before_accounting"] == rows["final_cash"]).all()
    table = batch.accounting_changes()
    n, winner, role = changes_by_hand(batch.games, batch.players)
    assert table["games"].tolist() == [n, n] and table["changed"].tolist() == [winner, role]
    only_played_out = SimulationResult(
        batch.games[batch.games["end_reason"] == "game_a"], batch.players, batch.rounds,
        batch.taxes, batch.meta,
    )  # fmt: skip
    assert only_played_out.accounting_text() == (
        f"None of the {len(played_out)} games ended in the final accounting (every one was "
        "played out), so it decided none."
    )


def test_frames_saved_before_the_column_get_one_clear_message():
    batch = simulate(games=4, seed=1, round_cap=3, workers=1, progress=False)
    old = SimulationResult(
        batch.games.drop(columns="leader_before_accounting"), batch.players, batch.rounds,
        batch.taxes, batch.meta,
    )  # fmt: skip
    with pytest.raises(InputError, match="leader_before_accounting column"):
        old.accounting_changes()
    assert accounting_html(old) == ""
    with pytest.raises(InputError, match="interval must be one of Wilson, exact"):
        batch.accounting_changes(interval="bayes")


def test_the_batch_tabs_print_the_line_under_their_win_rates_with_exact_intervals():
    batch = simulate(games=50, seed=3, round_cap=6, workers=1, progress=False)
    page = batch_summary_html(batch)
    # under the win rate tables
    assert page.index('class="am-accounting"') > page.index('<table class="am-endings">')
    n, winner, role = changes_by_hand(batch.games, batch.players)

    def exact(count: int) -> str:
        low, high = proportion_confint(count, n, method="beta")
        return f"{100 * count / n:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"

    text = html.unescape(page)
    assert (
        f"The final accounting changed the winner of {winner} of {n} games ({exact(winner)}); "
        f"the winning role in {role} ({exact(role)})."
    ) in text
    assert "after 6 rounds; Competitors keep 10% of their cash, Monopolists 20%" in text
    assert "95% exact intervals." in text


@pytest.fixture
def class_hub(tmp_path, monkeypatch):
    monkeypatch.setenv(SERVER_DRIVES_ENV, "1")
    held = Hub(open_rooms(str(tmp_path / "class.sqlite")))
    yield held
    held.close()


def test_the_class_results_say_how_many_games_the_accounting_decided(tmp_path, class_hub):
    """Three tables of bots, time up after a few rounds: the line above the class's charts is
    recomputed from each table's own game (the engine's events, not the frames)."""
    tab = ClassTab(open_rooms(str(tmp_path / "class.sqlite")))
    tab.table_count.value, tab.seat_count.value = 3, 2
    tab.ending.value, tab.round_cap.value = "A", 4
    assert tab.open_class(), tab.messages.widget.value
    tab.start()
    for _ in range(3000):
        tab.follower.news.set()
        tab.tick()
        class_hub.heard(None)
        class_hub.tick()
        for table in class_hub.tables.values():
            table.table.drive(0)  # the server's bots, without their delay
        if all(t.game.over for t in tab.tables):
            break
    assert all(t.game.over for t in tab.tables)
    assert tab.show_results()
    line = html.unescape(re.sub("<[^>]+>", "", tab.results.children[0].value))
    breakdowns = [accounting_breakdown(t.game) for t in tab.tables]
    settled = [b for b in breakdowns if b is not None]
    decided = sum(b.changed_winner for b in settled)
    other_role = sum(b.changed_winning_role for b in settled)
    # $1,500 each: a table's last player standing within 4 rounds is all but impossible
    assert settled
    assert (
        f"The final accounting decided {decided} of the class's {len(breakdowns)} finished "
        f"games: time was up in {len(settled)}, and in {decided} of those the player with "
        f"the most cash when time was up did not win; in {other_role} the win went to the "
        "other role."
    ) in line
    cap = tab.round_cap.value  # the tab's smallest cap may be above 4
    assert (
        f"Time was up after {cap} rounds; Competitors keep 10% of their cash, Monopolists 20%"
        in line
    )
    assert all(t.game.round == cap for t in tab.tables)
