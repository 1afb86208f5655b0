"""Several sections (issue 37, "Several sections"): classes (rooms) pooled into one analysis
with the section as a column, each opened by its own instructor key, and the tidy download
of every decision and every seat's outcome. Pooled sections equal the concatenation of each
section's own results."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pandas as pd
import pytest
from class_games import play_class
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amteach.rooms import Refused, class_result, open_rooms
from amteach.rooms.results import FORMULA_STARTS
from amteach.rooms.sections import (
    MAX_SECTIONS,
    TIDY_DECISION_COLUMNS,
    TIDY_OUTCOME_COLUMNS,
    clean_label,
    open_section,
    open_sections,
    pooled_result,
    tidy_archive,
    tidy_decisions,
    tidy_outcomes,
)
from amteach.sim.results import TABLES


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """Three sections of one course, each played to the end: 2 tables with 2 students, 1
    table with a student named like a formula, 1 table of bots only."""
    path = tmp_path_factory.mktemp("sections") / "class.sqlite"
    rooms = open_rooms(str(path))
    monday = play_class(rooms, ["Ana", "Ben"], tables=2, seed=4)
    tuesday = play_class(rooms, ['=HYPERLINK("x")'], tables=1, seed=5)
    bots = play_class(rooms, [], tables=1, seed=6)
    return rooms, [(*monday, "Monday 9am"), (*tuesday, "Tuesday"), (*bots, None)]


def part(frame: pd.DataFrame, label: str, offset: int) -> pd.DataFrame:
    """One section's rows of a pooled frame, as its own class_result frame has them."""
    mine = frame[frame["section"] == label].drop(columns=["section", "table"])
    mine = mine.reset_index(drop=True)
    mine["game"] = mine["game"] - offset
    return mine


def same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Equal cell by cell (categories compared as text: pooling unites their categories)."""

    def plain(frame):
        out = frame.copy()
        for column in out.columns:
            if isinstance(out[column].dtype, pd.CategoricalDtype):
                out[column] = out[column].astype(str)
        return out

    pd.testing.assert_frame_equal(plain(a), plain(b), check_dtype=False)


def test_pooled_sections_equal_the_concatenation_of_each_sections_results(three):
    rooms, pairs = three
    sections = open_sections(rooms, pairs)
    assert [s.label for s in sections] == ["Monday 9am", "Tuesday", pairs[2][0]]
    pooled = pooled_result(sections)
    offset = 0
    for section in sections:
        own = class_result(section.tables)
        for name in TABLES:
            frame = getattr(pooled, name)
            assert list(frame.columns[:2]) == ["section", "table"]
            same(part(frame, section.label, offset), getattr(own, name))
            rows = frame[frame["section"] == section.label]
            # the table column is the section's own table number, from 1
            assert set(rows["table"]) <= set(range(1, len(section.tables) + 1))
        offset += len(section.tables)
    # game numbers are unique across sections, so grouping by game never mixes two classes
    assert pooled.games["game"].is_unique and len(pooled.games) == 4
    assert pooled.meta["sections"] == [s.label for s in sections]
    assert pooled.meta["finished"] == 4 and pooled.meta["tables"] == 4
    # the pooled win rates count every section's games
    rates = pooled.win_rates("role")
    assert int(rates["wins"].sum()) == sum(len(class_result(s.tables).games) for s in sections)


# 12 examples, whatever the profile: the six orders of three sections about twice each, under
# new labels each time; an example pools three classes' frames and compares them with pandas
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    order=st.permutations([0, 1, 2]),
    labels=st.lists(st.sampled_from("ABCXYZ"), min_size=3, max_size=3, unique=True),
)
def test_pooling_in_any_order_under_any_labels_is_the_concatenation(three, order, labels):
    rooms, pairs = three
    sections = open_sections(rooms, [(*pairs[i][:2], labels[n]) for n, i in enumerate(order)])
    pooled = pooled_result(sections)
    offset = 0
    for section in sections:
        own = class_result(section.tables)
        for name in TABLES:
            same(part(getattr(pooled, name), section.label, offset), getattr(own, name))
        offset += len(section.tables)
    assert list(pooled.games["section"].cat.categories) == [labels[n] for n in range(3)]


def test_each_section_opens_only_with_its_own_instructor_key(three):
    rooms, pairs = three
    (a, key_a, _), (b, key_b, _), _ = pairs
    with pytest.raises(Refused, match="instructor link"):
        open_sections(rooms, [(a, key_a), (b, key_a)])  # one key does not open another class
    with pytest.raises(Refused, match="instructor link"):
        open_section(rooms, b, "")
    with pytest.raises(Refused, match="already"):
        open_sections(rooms, [(a, key_a), (a, key_a, "again")])
    with pytest.raises(Refused, match="same label"):
        open_sections(rooms, [(a, key_a, "X"), (b, key_b, "X")])
    with pytest.raises(Refused, match=f"At most {MAX_SECTIONS}"):
        open_sections(rooms, [(a, key_a)] * (MAX_SECTIONS + 1))


def test_a_section_label_is_one_short_visible_line_or_the_room_code():
    assert clean_label("  Monday\t 9am ", "ABC234") == "Monday 9am"
    assert clean_label("", "ABC234") == clean_label(None, "ABC234") == "ABC234"
    for bad in ("Mon\u202eday", "a\u200bb", "x" * 41, "x" * 10_000, "\u3164"):
        with pytest.raises(Refused, match="Section label"):
            clean_label(bad, "ABC234")


def test_the_tidy_download_holds_every_decision_and_every_seats_outcome(three):
    rooms, pairs = three
    sections = open_sections(rooms, pairs)
    decisions = tidy_decisions(rooms, sections)
    assert tuple(decisions.columns) == TIDY_DECISION_COLUMNS
    # one row per decision in the log, recounted from the store
    for section in sections:
        logged = rooms.store.query(
            "SELECT COUNT(*) FROM decisions WHERE room = ?", (section.code,)
        )[0][0]
        mine = decisions[decisions["section"] == section.label]
        assert len(mine) == logged == sum(len(t.game.decisions) for t in section.tables)
        for table in section.tables:
            rows = mine[mine["table"] == table.table_no + 1]
            assert list(rows["number"]) == list(range(1, len(table.game.decisions) + 1))
            assert rows["at"].is_monotonic_increasing
    assert set(decisions["made_by"]) == {"student", "bot"}
    assert str(decisions["at"].dtype).endswith("UTC]")
    outcomes = tidy_outcomes(rooms, sections)
    assert tuple(outcomes.columns) == TIDY_OUTCOME_COLUMNS
    assert len(outcomes) == sum(len(range(len(t.game.names))) for s in sections for t in s.tables)
    pooled = pooled_result(sections)
    for section in sections:
        for table in section.tables:
            rows = outcomes[
                (outcomes["section"] == section.label) & (outcomes["table"] == table.table_no + 1)
            ]
            game = table.game
            assert rows["finished"].all() and set(rows["rounds"]) == {game.round}
            assert list(rows.loc[rows["won"], "seat"]) == [game.winner]
            assert list(rows["player"]) == list(game.names)
            assert list(rows["final_cash"]) == list(game.cash)
            # a student's own decisions, recounted from the decisions download
            by_student = decisions[
                (decisions["section"] == section.label)
                & (decisions["table"] == table.table_no + 1)
                & (decisions["made_by"] == "student")
            ]
            for row in rows.itertuples():
                assert row.student_decisions == int((by_student["seat"] == row.seat).sum())
                assert row.played_by == ("student" if row.student_decisions else "bot")
    assert int(outcomes["won"].sum()) == len(pooled.games)


def test_the_tidy_csv_never_holds_a_formula_and_parquet_keeps_the_frames(three):
    rooms, pairs = three
    sections = open_sections(rooms, pairs)
    decisions, outcomes = tidy_decisions(rooms, sections), tidy_outcomes(rooms, sections)
    zipped = zipfile.ZipFile(io.BytesIO(tidy_archive(decisions, outcomes, "csv")))
    assert sorted(zipped.namelist()) == ["decisions.csv", "outcomes.csv"]
    seen_name = False
    for name in zipped.namelist():
        for row in csv.reader(io.StringIO(zipped.read(name).decode())):
            for cell in row:
                assert not cell.startswith(FORMULA_STARTS) or cell.lstrip("-").isdigit(), cell
                seen_name |= cell == '\'=HYPERLINK("x")'
    assert seen_name, "the formula-like name is there, made text"
    back = pd.read_csv(io.BytesIO(zipped.read("decisions.csv")))
    assert len(back) == len(decisions)
    # times in ISO 8601 with their UTC offset, to the microsecond
    assert list(pd.to_datetime(back["at"], utc=True)) == list(decisions["at"])
    zipped = zipfile.ZipFile(io.BytesIO(tidy_archive(decisions, outcomes, "parquet")))
    for name, frame in (("decisions", decisions), ("outcomes", outcomes)):
        read = pd.read_parquet(io.BytesIO(zipped.read(f"{name}.parquet")))
        same(read, frame)
    # a choice is written as the save file writes it: JSON for a structured one
    structured = decisions[decisions["choice"].str.startswith("{")]
    assert all(isinstance(json.loads(c), dict) for c in structured["choice"])


def test_a_section_whose_games_have_not_started_adds_nothing(tmp_path):
    rooms = open_rooms(str(tmp_path / "c.sqlite"))
    played = play_class(rooms, ["Ana"], tables=1, seed=4)
    from amteach.rooms import RoomSettings, new_key

    key = new_key()
    lobby = rooms.create(RoomSettings(tables=2, seats=2), key=key)
    sections = open_sections(rooms, [played, (lobby, key, "Later")])
    assert sections[1].tables == []
    pooled = pooled_result(sections)
    assert set(pooled.games["section"]) == {played[0]}
    assert len(tidy_decisions(rooms, sections)) == len(tidy_decisions(rooms, sections[:1]))


# -- the Class tab's panel ------------------------------------------------------------------------
def test_the_class_tab_pools_another_section_by_its_link_and_downloads_cover_both(tmp_path):
    from amteach.ui.class_tab import ClassTab
    from amteach.ui.keeper import instructor_link

    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    other_code, other_key = play_class(rooms, ["Ben"], tables=1, seed=5, ids=["ben@uni.edu"])
    tab = ClassTab(rooms)
    tab.table_count.value, tab.seat_count.value = 1, 3
    assert tab.ask_id.description == "Ask for a student ID at join"
    tab.ask_id.value = True
    assert tab.open_class(), tab.messages.widget.value
    assert rooms.info(tab.code).settings.ask_student_id is True
    rooms.join(tab.code, "Ana", student_id="ana@uni.edu")
    panel = tab.exports
    labels = [b.description for b in panel.downloads.children]
    assert labels == [
        "Decisions (CSV)",
        "Decisions (Parquet)",
        "Gradebook for Canvas (CSV)",
        "Gradebook for Moodle (CSV)",
    ]
    # a wrong key is refused and counted against the page; its own link adds nothing
    panel.link.value = instructor_link(other_code, other_key[:-2], "http://x/")
    assert not panel.add() and "instructor link" in panel.messages.widget.value
    assert len(tab.guesses.events) == 1
    panel.link.value = instructor_link(tab.code, tab.key, "http://x/")
    assert not panel.add() and "own link" in panel.messages.widget.value
    panel.link.value = other_key  # a bare key: which class?
    assert not panel.add() and "whole instructor link" in panel.messages.widget.value
    # the right link, with a label typed like markup: shown as text
    panel.link.value = instructor_link(other_code, other_key, "http://x/")
    panel.label.value = "<b>Tuesday</b>"
    assert panel.add(), panel.messages.widget.value
    assert (
        "&lt;b&gt;Tuesday&lt;/b&gt;" in panel.listing.value
        and "<b>Tuesday" not in panel.listing.value
    )
    assert "Pooled sections (2)" in panel.listing.value
    assert panel.link.value == ""  # the key does not stay on screen
    # the downloads hold both sections
    message = panel.downloads.children[0].file_message()
    zipped = zipfile.ZipFile(io.BytesIO(message["data"]))
    outcomes = pd.read_csv(io.BytesIO(zipped.read("outcomes.csv")))
    assert set(outcomes["section"]) == {"<b>Tuesday</b>"}  # this class has not started
    canvas = panel.downloads.children[2].file_message()["text"]
    rows = list(csv.reader(io.StringIO(canvas)))
    assert {row[3] for row in rows[2:]} == {"ana@uni.edu", "ben@uni.edu"}
    assert {row[4] for row in rows[2:]} == {tab.code, "<b>Tuesday</b>"}
    assert "all 2 students" in panel.left_out.value
    # a replaced link stops counting at once: the download says why and makes no file
    rooms.replace_key(other_code, other_key)
    with pytest.raises(Refused):
        panel.downloads.children[3].file_message()
    assert "instructor link" in panel.messages.widget.value
    panel.remove_picker.value = other_code
    assert panel.take_out() and "Pooled sections (1)" in panel.listing.value
    moodle = panel.downloads.children[3].file_message()["text"]
    assert [row[0] for row in csv.reader(io.StringIO(moodle))] == ["Email address", "ana@uni.edu"]
