"""Treatments (issue 37): each table of a class plays a rule set (a preset with changed rule
parameters), given to tables by hand or balanced at random; each phone says its table's rules
in one plain line; the tables play by them (decision 12's keep shares in the final
accounting). The class's comparison of rule sets is in tests/test_treatment_results.py."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phone_client import HubPhone

from amteach.engine.errors import InputError
from amteach.engine.rules import RuleSet
from amteach.rooms import RoomSettings, RoomTable, open_rooms
from amteach.rooms.hub import Hub, PhoneLimits
from amteach.rooms.phone_view import PARTS
from amteach.rooms.rule_sets import (
    MAX_RULE_SETS,
    balanced,
    named_rule_set,
    named_rule_sets,
    read_changes,
)
from amteach.rooms.treatments import table_rule_sets
from amteach.serving.phones import phone_page

AS_WRITTEN = named_rule_set("as-written").to_dict()
EQUAL = named_rule_set("equal-keep").to_dict()
FEE = named_rule_set("foundation-300").to_dict()
# settings as a room of the release before treatments kept them (no treatment fields)
OLD_JSON = (
    '{"tables": 3, "seats": 4, "roles": "alternating", "preset": "edition-2005", '
    '"ending": "A", "minutes": 40, "round_cap": 30, "absent_after": 120, "bot": "investor", '
    '"bot_delay": 1.0, "seed": 7}'
)


def treated(**extra) -> RoomSettings:
    base = {"tables": 2, "seats": 2, "ending": "A", "round_cap": 5, "bot_delay": 0, "seed": 5}
    return RoomSettings(**{**base, **extra})


# -- the named rule sets -------------------------------------------------------------------------
def test_the_named_rule_sets_ship_with_their_changes_and_one_plain_line():
    named = named_rule_sets()
    assert list(named)[:3] == ["as-written", "equal-keep", "foundation-300"]
    assert [named[k].label for k in named] == [
        "Rules as written",
        "Equal keep shares",
        "Foundation fee $300",
    ]
    # decision 12: the final accounting's keep shares; equal keep shares give the Monopolists
    # what the Competitors keep under the rules as written (both 10%)
    equal = named["equal-keep"].rules()
    written = named["as-written"].rules()
    assert equal.settlement_keep_percent_competitor == equal.settlement_keep_percent_monopolist
    assert equal.settlement_keep_percent_monopolist == written.settlement_keep_percent_competitor
    assert equal.settlement_keep_percent_monopolist == 10
    assert named["foundation-300"].rules().foundation_monopolist_fee == 300
    assert named["as-written"].rules() == RuleSet.preset("default")
    for choice in named.values():
        assert "\n" not in choice.line and len(choice.line) < 200


# -- how tables get their rule set --------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(
    tables=st.integers(1, 60),
    rule_sets=st.integers(1, MAX_RULE_SETS),
    seed=st.integers(0, 2**31 - 1),
)
def test_balanced_assignment_gives_every_table_one_rule_set_in_counts_that_differ_by_one(
    tables, rule_sets, seed
):
    plan = balanced(tables, rule_sets, seed)
    assert len(plan) == tables
    assert all(0 <= index < rule_sets for index in plan)
    counts = Counter(plan)
    sizes = [counts.get(index, 0) for index in range(rule_sets)]
    assert max(sizes) - min(sizes) <= 1
    assert sorted(sizes) == sorted(
        [tables // rule_sets + (i < tables % rule_sets) for i in range(rule_sets)]
    )
    assert balanced(tables, rule_sets, seed) == plan  # the same seed, the same tables


@settings(max_examples=40, deadline=None)
@given(tables=st.integers(2, 60), seed=st.integers(0, 2**31 - 1))
def test_a_room_balanced_at_random_gives_each_table_the_rule_set_its_seed_draws(tables, seed):
    room = RoomSettings(
        tables=tables, treatments=[AS_WRITTEN, EQUAL], assignment="balanced", seed=seed
    )
    again = RoomSettings.from_json(room.to_json())
    keys = [room.rule_set(t).key for t in range(tables)]
    assert keys == [again.rule_set(t).key for t in range(tables)]
    assert abs(keys.count("as-written") - keys.count("equal-keep")) <= 1
    for t in range(tables):
        assert room.rules(t) == room.rule_set(t).rules().replace(round_cap=room.round_cap) or (
            room.ending == "two-hour" and room.rules(t) == room.rule_set(t).rules()
        )


def test_seeds_draw_different_tables_for_the_same_rule_sets():
    plans = {tuple(balanced(12, 2, seed)) for seed in range(20)}
    assert len(plans) > 10  # random, not always the same halves


def test_by_hand_each_table_plays_the_rule_set_chosen_for_it():
    room = treated(tables=3, treatments=[AS_WRITTEN, FEE], assignment="by_hand", by_hand=[1, 0, 1])
    assert [room.rule_set(t).key for t in range(3)] == [
        "foundation-300",
        "as-written",
        "foundation-300",
    ]
    assert room.rules(0).foundation_monopolist_fee == 300
    assert room.rules(1).foundation_monopolist_fee == 10
    assert room.rules(0).round_cap == 5  # Game A keeps the room's round cap


def test_each_tables_rule_set_is_a_frame_to_join_to_the_class_data():
    room = treated(tables=3, treatments=[AS_WRITTEN, FEE], assignment="by_hand", by_hand=[1, 0, 1])
    frame = table_rule_sets(room)
    assert list(frame["table"]) == [1, 2, 3]
    assert list(frame["rule_set"]) == ["foundation-300", "as-written", "foundation-300"]
    assert json.loads(frame["changes"][0]) == {"foundation_monopolist_fee": 300}


def test_old_rooms_settings_load_and_play_their_preset_at_every_table():
    old = RoomSettings.from_json(OLD_JSON)
    assert old.assignment == "same" and old.treatments == ()
    for table in range(3):
        assert old.rules(table) == RuleSet.preset("edition-2005").replace(round_cap=30)
    assert old.rule_set(0).label == "Preset edition-2005"
    # written again, it loads to the same settings
    assert RoomSettings.from_json(old.to_json()) == old
    assert json.loads(old.to_json())["treatments"] == []


# -- what an instructor (or a forged settings text) may give -------------------------------------
@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"treatments": [{**EQUAL, "changes": {"no_such_rule": 1}}]}, "no_such_rule"),
        (
            {"treatments": [{**EQUAL, "changes": {"settlement_keep_percent_competitor": 150}}]},
            "settlement_keep_percent_competitor",
        ),
        ({"treatments": [{**EQUAL, "changes": {"round_cap": 3}}]}, "round_cap"),
        (
            {"treatments": [{**EQUAL, "changes": {"foundation_monopolist_fee": "lots"}}]},
            "foundation_monopolist_fee",
        ),
        ({"treatments": [{**EQUAL, "changes": ["a"]}]}, "treatments changes"),
        ({"treatments": [{**EQUAL, "changes": {"fine": float("nan")}}]}, "fine"),
        ({"treatments": [{**EQUAL, "changes": {1: 2, "fine": 3}}]}, "treatments changes"),
        ({"treatments": [{**EQUAL, "changes": {"fine": {1, 2}}}]}, "treatments changes"),
        ({"treatments": [{**EQUAL, "preset": "nope"}]}, "treatments preset"),
        ({"treatments": [{**EQUAL, "label": "x" * 500}]}, "treatments label"),
        ({"treatments": [{**EQUAL, "line": ""}]}, "treatments line"),
        ({"treatments": [{**EQUAL, "script": 1}]}, "treatments"),
        ({"treatments": ["equal-keep"]}, "treatments"),
        ({"treatments": {"a": 1}}, "treatments"),
        ({"treatments": [EQUAL] * 2, "assignment": "balanced"}, "treatments"),
        (
            {
                "treatments": [{**EQUAL, "key": f"k{i}"} for i in range(MAX_RULE_SETS + 1)],
                "assignment": "balanced",
            },
            "treatments",
        ),
        ({"treatments": [AS_WRITTEN, EQUAL]}, "treatments"),  # two rule sets, one for all?
        ({"treatments": [EQUAL], "assignment": "balanced"}, "treatments"),
        ({"assignment": "vote"}, "assignment"),
        ({"treatments": [AS_WRITTEN, EQUAL], "assignment": "by_hand", "by_hand": [0]}, "by_hand"),
        (
            {"treatments": [AS_WRITTEN, EQUAL], "assignment": "by_hand", "by_hand": [0, 2]},
            "by_hand",
        ),
        (
            {"treatments": [AS_WRITTEN, EQUAL], "assignment": "by_hand", "by_hand": [0, True]},
            "by_hand",
        ),
        ({"treatments": [AS_WRITTEN, EQUAL], "assignment": "by_hand", "by_hand": "01"}, "by_hand"),
        ({"by_hand": [0, 0]}, "by_hand"),
    ],
)
def test_hostile_or_wrong_treatments_are_refused_with_one_message_naming_the_field(extra, field):
    with pytest.raises(InputError) as err:
        treated(**extra)
    assert err.value.field == field
    assert "Traceback" not in str(err.value) and len(str(err.value)) < 1000


def test_a_table_outside_the_room_has_no_rules():
    room = treated()
    for table in (-1, 2, True, "0"):
        with pytest.raises(InputError) as err:
            room.rules(table)
        assert err.value.field == "table"


def test_typed_changes_are_read_as_name_value_lines_and_checked_by_the_engine():
    assert read_changes("foundation_monopolist_fee=300\n\n# a comment\nfine = 60") == {
        "foundation_monopolist_fee": 300,
        "fine": 60,
    }
    for text, field in (
        ("foundation_monopolist_fee 300", "Changed rules"),
        ("no_such_rule=1", "no_such_rule"),
        ("settlement_keep_percent_monopolist=101", "settlement_keep_percent_monopolist"),
        ("fine=&a [1]", "Changed rules fine"),
        ("fine=" + "9" * 600, "Changed rules fine"),
        ("round_cap=5", "round_cap"),
        ("\n".join(["fine=1"] * 31), "Changed rules"),
        ("x" * 80 + "=1", "Changed rules"),
    ):
        with pytest.raises(InputError) as err:
            read_changes(text)
        assert err.value.field == field, (text[:30], err.value)
        assert len(str(err.value)) < 1000


# -- the tables play by their rule sets ----------------------------------------------------------
def play_out(table: RoomTable) -> list[str]:
    """Bots play the table to its end; the lines of what happened."""
    cursor = table.cursor()
    lines = []
    for _ in range(20000):
        if table.game.over:
            break
        table.drive(delay=0)
        lines.extend(event.text for event in cursor.take()[0])
    assert table.game.over
    return lines


def test_a_treated_table_plays_by_its_own_rules_to_its_final_accounting(tmp_path):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    code = rooms.create(
        treated(treatments=[AS_WRITTEN, EQUAL], assignment="by_hand", by_hand=[0, 1])
    )
    rooms.start(code)
    written, equal = (RoomTable(rooms, code, t) for t in range(2))
    assert written.game.rules.settlement_keep_percent_competitor == 10
    assert equal.game.rules.settlement_keep_percent_monopolist == 10
    assert equal.game.rules.round_cap == written.game.rules.round_cap == 5
    # decision 12: in the final accounting each player keeps their role's share of cash
    kept = {}
    for table in (written, equal):
        lines = play_out(table)
        kept[table.table_no] = {
            line.split("keeping ")[1].split("%")[0]
            for line in lines
            if "in the final accounting, keeping" in line
        }
    assert kept[0] == {"10", "20"}
    assert kept[1] == {"10"}
    # the log replays to the same game under the table's own rules (another device's view)
    again = RoomTable(rooms, code, 1)
    assert (
        again.game.rules == equal.game.rules
        and again.game.state.as_dict() == equal.game.state.as_dict()
    )


# -- the phones ----------------------------------------------------------------------------------
def test_the_phone_page_has_a_place_for_the_rules_line():
    assert "rules" in PARTS
    assert '<div id="am-part-rules" class="am-part-rules"></div>' in phone_page("http://x/", "ABC")


def test_each_phone_shows_its_own_tables_rules_in_one_plain_line(tmp_path):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    html_line = {**FEE, "key": "mine", "label": "Mine", "line": "<b>fee</b> & more"}
    code = rooms.create(
        treated(treatments=[EQUAL, html_line], assignment="by_hand", by_hand=[0, 1])
    )
    hub = Hub(rooms, PhoneLimits(joins_per_device=3, joins_per_address=5))
    try:
        phones = []
        for name in ("Ana", "Ben", "Cy", "Di"):
            phone = HubPhone(hub, name)
            phone.send(type="hello", room=code)
            phone.send(type="join", room=code, name=name)
            phones.append(phone)
        by_table = {p.phone.seat.table: p for p in phones}
        assert set(by_table) == {0, 1}
        equal_line = (
            "<b>Rules at your table:</b> equal keep shares — Competitors and Monopolists both "
            "keep 10% of their cash at the end."
        )
        # before the games start (the lobby) and once they play (the seat's view)
        assert equal_line in by_table[0].parts["rules"]
        assert "&lt;b&gt;fee&lt;/b&gt; &amp; more" in by_table[1].parts["rules"]
        assert "<b>fee</b>" not in by_table[1].parts["rules"]
        rooms.start(code)
        hub.heard(None)
        hub.tick()
        assert "Waiting for your teacher" not in by_table[0].parts["status"]
        assert equal_line in by_table[0].parts["rules"]
        assert by_table[0].parts["rules"].count("<p") == 1  # one line
        assert "fee" in by_table[1].parts["rules"]
    finally:
        hub.close()
