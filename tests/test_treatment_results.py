"""Treatments in the Class tab (issue 37): the instructor picks the rule sets, the grid says
each table's, and the results compare them, each table at the round it reached beside bots
under its rules stopped at that round, with Newcombe's interval. Every number is recomputed
here from the class database's log alone (Game.replay, simulate, statsmodels)."""

from __future__ import annotations

import html
import re

import pytest
from statsmodels.stats.proportion import confint_proportions_2indep

from amteach.engine.board import ROLES
from amteach.engine.game import Game
from amteach.engine.rules import RuleSet
from amteach.rooms import RoomSettings, RoomTable, open_rooms
from amteach.rooms.rule_sets import balanced, named_rule_set
from amteach.rooms.treatments import (
    bots_at_tables,
    role_wins,
    table_outcomes,
    treatment_summary,
)
from amteach.sim import SeatSpec, simulate
from amteach.sim.play import game_seed
from amteach.ui.class_tab import ClassTab
from amteach.ui.class_treatments import differences, treatment_fields

TABLES, SEED, CAP = 6, 11, 6
EQUAL = named_rule_set("equal-keep")


def play_out(tables: list[RoomTable]) -> None:
    for _ in range(50000):
        if all(t.game.over for t in tables):
            return
        for table in tables:
            table.drive(delay=0)
    raise AssertionError("the tables never finished")


@pytest.fixture(scope="module")
def finished_class(tmp_path_factory):
    """A class of TABLES tables of four bots, two rule sets balanced at random, Game A capped
    at CAP rounds, played to the end."""
    rooms = open_rooms(str(tmp_path_factory.mktemp("class") / "class.sqlite"))
    settings = RoomSettings(
        tables=TABLES,
        seats=4,
        ending="A",
        round_cap=CAP,
        bot_delay=0,
        seed=SEED,
        treatments=[named_rule_set("as-written").to_dict(), EQUAL.to_dict()],
        assignment="balanced",
    )
    code = rooms.create(settings)
    rooms.start(code)
    play_out([RoomTable(rooms, code, t) for t in range(TABLES)])
    return rooms, code


def from_the_log(rooms, code: str, table: int) -> Game:
    """Table `table`'s game from the log alone: its seats' roles, its seed, the rule set the
    room's seed gives it (decision 12's keep shares for equal keep), the round cap."""
    settings = rooms.info(code).settings
    changes = EQUAL.changes if balanced(TABLES, 2, SEED)[table] == 1 else {}
    rules = RuleSet.preset("default", **changes).replace(round_cap=CAP)
    seats = rooms.seats(code, table)
    game = Game.new(
        [(s.label, s.role) for s in seats],
        seed=settings.table_seed(table),
        rules=rules,
        game="A",
    )
    for _, choice, _, _ in rooms.decisions(code, table):
        game.apply(game.parse_choice(choice))
    return game


def test_the_comparison_is_recomputed_from_the_log_and_the_bots_and_newcombe(finished_class):
    rooms, code = finished_class
    tables = [RoomTable(rooms, code, t) for t in range(TABLES)]  # a page that comes later
    outcomes = table_outcomes(tables)
    bots = bots_at_tables(outcomes, games=60, seed=SEED)
    summary = treatment_summary(outcomes, bots).set_index("rule_set")
    plan = balanced(TABLES, 2, SEED)
    keys = [("as-written", "equal-keep")[i] for i in plan]
    assert list(summary.index) == list(dict.fromkeys(keys))  # in the order tables play them
    expected = {
        key: {"tables": 0, "games": 0, "mono": 0, "comp": 0, "rounds": [], "bots": [0, 0, 0]}
        for key in ("as-written", "equal-keep")
    }
    for t in range(TABLES):
        game = from_the_log(rooms, code, t)
        row = expected[keys[t]]
        row["tables"] += 1
        assert game.over
        row["games"] += 1
        row["rounds"].append(game.round)
        winner = None if game.winner is None else ROLES[game.roles[game.winner]]
        row["mono"] += winner == "monopolist"
        row["comp"] += winner == "competitor"
        # the bots at this table: its roles, its rules, stopped at its own round
        mine = simulate(
            games=60,
            seats=[SeatSpec(ROLES[r], "investor") for r in game.roles],
            rules=game.rules,
            seed=game_seed(SEED, t),
            round_cap=game.round,
            progress=False,
            workers=1,
        )
        assert mine.games["rounds"].max() <= game.round
        row["bots"][0] += len(mine.games)
        row["bots"][1] += role_wins(mine.games, "monopolist")
        row["bots"][2] += role_wins(mine.games, "competitor")
    for key, row in expected.items():
        got = summary.loc[key]
        assert got["tables"] == got["finished"] == row["tables"] == row["games"]
        assert got["rounds"] == ", ".join(str(r) for r in sorted(row["rounds"]))
        assert (got["monopolist_wins"], got["competitor_wins"]) == (row["mono"], row["comp"])
        assert (got["bot_games"], got["bot_monopolist_wins"], got["bot_competitor_wins"]) == tuple(
            row["bots"]
        )
    # the difference, second rule set minus first, with Newcombe's interval (statsmodels)
    ordered = treatment_summary(outcomes, bots)
    (item,) = differences(ordered)
    first, other = ordered.iloc[0], ordered.iloc[1]
    low, high = confint_proportions_2indep(
        other["monopolist_wins"],
        other["games"],
        first["monopolist_wins"],
        first["games"],
        method="newcomb",
        compare="diff",
    )
    assert item["class"].low == pytest.approx(low) and item["class"].high == pytest.approx(high)
    rate = other["bot_monopolist_wins"] / other["bot_games"]
    rate -= first["bot_monopolist_wins"] / first["bot_games"]
    assert item["bots"].difference == pytest.approx(rate)


def test_an_unfinished_table_counts_as_a_table_but_not_a_game(tmp_path):
    rooms = open_rooms(str(tmp_path / "c.sqlite"))
    code = rooms.create(
        RoomSettings(
            tables=2,
            seats=2,
            ending="A",
            round_cap=5,
            bot_delay=0,
            seed=1,
            treatments=[named_rule_set("as-written").to_dict(), EQUAL.to_dict()],
            assignment="by_hand",
            by_hand=[0, 1],
        )
    )
    rooms.start(code)
    done, going = RoomTable(rooms, code, 0), RoomTable(rooms, code, 1)
    play_out([done])
    summary = treatment_summary(table_outcomes([done, going]), {})
    assert list(summary["finished"]) == [1, 0] and list(summary["tables"]) == [1, 1]
    assert list(summary["games"]) == [1, 0]
    (item,) = differences(summary)
    assert item["class"] is None and item["bots"] is None  # no interval from no games


# -- the Class tab -------------------------------------------------------------------------------
def test_the_class_tab_opens_a_class_with_two_rule_sets_and_compares_them(tmp_path):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    tab = ClassTab(rooms)
    tab.table_count.value, tab.seat_count.value = 4, 2
    tab.ending.value, tab.round_cap.value = "A", 5
    chooser = tab.treatments.chooser
    assert [label for label, _ in chooser.mode.options] == [
        "One rule set for every table",
        "Two rule sets, balanced at random",
        "Set each table by hand",
    ]
    assert chooser.mode.description == "Treatments"
    assert chooser.second.description == "Second rule set"
    assert chooser.changed.description == "Changed rules"
    assert chooser.second.label == "Equal keep shares"
    chooser.mode.value = "by_hand"
    assert [d.description for d in chooser.per_table.children] == [
        f"Table {t}" for t in range(1, 5)
    ]
    chooser.per_table.children[0].value = 1
    chooser.per_table.children[1].value = 1
    chooser.per_table.children[2].value = 0
    chooser.per_table.children[3].value = 0
    assert tab.open_class(), tab.messages.widget.value
    settings = rooms.info(tab.code).settings
    assert [settings.rule_set(t).label for t in range(4)] == [
        "Equal keep shares",
        "Equal keep shares",
        "Rules as written",
        "Rules as written",
    ]
    banner = html.unescape(tab.banner.value)
    assert "rules Rules as written or Equal keep shares, set by hand" in banner
    assert tab.treatments.comparer.compare() is False  # before the start: one plain line
    assert "not started" in tab.messages.widget.value
    tab.start()
    for _ in range(20):
        tab.tick()
        if tab.tables:
            break
    assert len(tab.tables) == 4
    grid = html.unescape(tab.grid_html(tab.info()))
    for t, label in enumerate(["Equal keep shares"] * 2 + ["Rules as written"] * 2):
        assert re.search(rf"Table {t + 1}</th>.*?rules</small><br>{label}</td>", grid)
    play_out(tab.tables)
    tab.treatments.comparer.games.value = 40
    assert tab.treatments.comparer.compare(), tab.messages.widget.value
    shown = html.unescape(tab.treatments.comparer.output.value)
    summary = treatment_summary(
        table_outcomes(tab.tables), bots_at_tables(table_outcomes(tab.tables), 40, settings.seed)
    )
    for _, row in summary.iterrows():
        rate = row["monopolist_wins"] / row["games"]
        assert f"{rate:.0%} ({row['monopolist_wins']} of {row['games']})" in shown
        bots = f"({row['bot_monopolist_wins']} of {row['bot_games']})"
        assert bots in shown and row["bot_games"] == 80
    assert "Rounds reached" in shown and "5, 5" in shown
    assert "Rules as written minus Equal keep shares" in shown or (
        "Equal keep shares minus Rules as written" in shown
    )
    assert "interval" in shown
    # the batch beside the class runs under one rule set: it says to look here instead
    tab.bots.games.value = 20
    tab.bots.start()
    tab.bots.wait()
    assert tab.bots.result is None and "several rule sets" in tab.bots.status.value


def test_the_treatment_boxes_refuse_what_cannot_be_played_with_one_line(tmp_path):
    assert treatment_fields("same", "equal-keep", "", "default", []) == {
        "treatments": [],
        "assignment": "same",
        "by_hand": [],
    }  # a class as before treatments
    every = treatment_fields("same", "equal-keep", "foundation_monopolist_fee=300", "default", [])
    (only,) = every["treatments"]
    assert only["changes"] == {"foundation_monopolist_fee": 300}
    assert only["line"] == "changed rules — the Monopolists' fee at the Foundation is $300."
    typed = treatment_fields("balanced", "changed", "fine=75", "default", [])
    assert [t["label"] for t in typed["treatments"]] == ["Rules as written", "Changed rules"]
    for args, field in (
        (("balanced", "changed", "", "default", []), "Changed rules"),
        (("balanced", "equal-keep", "fine=75", "default", []), "Changed rules"),
        (("balanced", "changed", "fine=50", "default", []), "Second rule set"),  # no change
        (("balanced", "changed", "fine=-5", "default", []), "fine"),
        (("balanced", "changed", "nonsense", "default", []), "Changed rules"),
        (("balanced", "<script>", "", "default", []), "Second rule set"),
        (("vote", "equal-keep", "", "default", []), "Treatments"),
    ):
        with pytest.raises(Exception) as err:
            treatment_fields(*args)
        assert getattr(err.value, "field", None) == field, (args, err.value)
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    tab = ClassTab(rooms)
    chooser = tab.treatments.chooser
    chooser.mode.value = "balanced"
    chooser.second.value = "changed"
    chooser.changed.value = "settlement_keep_percent_monopolist=250"
    assert not tab.open_class()
    said = html.unescape(tab.messages.widget.value)
    assert "settlement_keep_percent_monopolist" in said and "Traceback" not in said
    assert tab.code is None  # nothing was opened


def test_the_bots_beside_the_class_stop_at_each_tables_own_round_under_its_rules():
    """Issue 39 (lesson 7): the Class tab's Run panel stopped its bots at the middle table's
    round. `bots_beside_class` plays each finished table's bots (`bots_at_table`: its roles,
    the room's bot, its rules) to that table's own round, and pools them, games numbered on."""
    from amteach.engine.errors import InputError
    from amteach.rooms.treatments import TableOutcome, bots_at_table, bots_beside_class

    def outcome(table: int, rules: RuleSet, rounds: int, finished: bool = True) -> TableOutcome:
        return TableOutcome(
            table=table,
            rule_set="x",
            label="x",
            rules=rules,
            game_type="two-hour",
            roles=("competitor", "monopolist", "competitor"),
            bot="investor",
            finished=finished,
            rounds=rounds,
            winner_role="monopolist" if finished else None,
        )

    tables = [
        outcome(0, RuleSet.preset("default"), 3),
        outcome(1, EQUAL.rules(), 9),
        outcome(2, RuleSet.preset("default"), 20, finished=False),  # no bots for it
        outcome(3, RuleSet.preset("default"), 14),
    ]
    pooled = bots_beside_class(tables, games=12, seed=4)
    games = pooled.games
    assert list(games["table"].value_counts().sort_index().items()) == [(0, 12), (1, 12), (3, 12)]
    assert list(games["game"]) == list(range(36))  # numbered on, one table after another
    assert pooled.meta["round_caps"] == {0: 3, 1: 9, 3: 14}
    for table in (0, 1, 3):
        alone = bots_at_table(tables[table], 12, 4)  # the same games as the table's own batch
        mine = games[games["table"] == table]
        assert list(mine["rounds"]) == list(alone.games["rounds"])
        assert list(mine["winner_role"].astype(str)) == list(alone.games["winner_role"].astype(str))
        assert mine["rounds"].max() <= tables[table].rounds
    # each table at its own round: the 3-round table's games are not played on to round 9
    assert games.loc[games["table"] == 0, "rounds"].max() == 3
    assert games.loc[games["table"] == 3, "rounds"].max() > 9
    # every player of the pooled games, and categories kept (roles read as roles)
    assert len(pooled.players) == 36 * 3 and set(pooled.players["game"]) == set(range(36))
    assert str(pooled.players["role"].dtype) == "category"
    assert pooled.win_rates("role")["games"].tolist() == [36, 36]
    assert pooled.meta["seats"] == [dict(s) for s in alone.meta["seats"]]
    with pytest.raises(InputError):
        bots_beside_class([tables[2]], games=12, seed=4)
