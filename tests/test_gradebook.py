"""The gradebook (issue 37, "Gradebook"): an optional student ID or email at join, checked
like a name and sent by phones that may be hostile; and the CSV files Canvas and Moodle
import, parsed here and checked against each one's column rules (docs/class-play.md,
"Downloads and the gradebook")."""

from __future__ import annotations

import csv
import io
import json
import time
import unicodedata

import pytest
from class_games import play_class
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from phone_client import HubPhone

from amteach.rooms import Refused, RoomSettings, new_key, open_rooms
from amteach.rooms.gradebook import (
    CANVAS_COLUMNS,
    MOODLE_EMAIL,
    MOODLE_ID,
    POINTS_POSSIBLE,
    canvas_csv,
    moodle_csv,
    participation,
)
from amteach.rooms.hub import Hub, PhoneLimits
from amteach.rooms.names import MAX_STUDENT_ID, clean_student_id
from amteach.rooms.results import FORMULA_STARTS
from amteach.rooms.sections import open_sections

FIELD = "Student ID or email"


# -- the student ID: what it may hold -------------------------------------------------------------
@pytest.mark.parametrize(
    "typed, kept",
    [
        ("  s1234567 ", "s1234567"),
        ("ana.lima@uni.example.edu", "ana.lima@uni.example.edu"),
        ("A-17/3_b.x:2", "A-17/3_b.x:2"),
        ("Zoë@école.fr", "Zoë@école.fr"),
        ("e\u0301tudiant42", "\u00e9tudiant42"),  # NFC: one é, as typed on another phone
        ("x" * MAX_STUDENT_ID, "x" * MAX_STUDENT_ID),
    ],
)
def test_a_student_id_or_email_is_kept_trimmed_and_nfc(typed, kept):
    assert clean_student_id(typed) == kept


@pytest.mark.parametrize(
    "typed, why",
    [
        (None, "type your student ID"),
        ("   ", "type your student ID"),
        ("x" * (MAX_STUDENT_ID + 1), f"at most {MAX_STUDENT_ID}"),
        ("x" * 100_000, f"at most {MAX_STUDENT_ID}"),
        ('=HYPERLINK("http://x")', "starts with a letter or a digit"),
        ("+123", "starts with a letter or a digit"),
        ("-5", "starts with a letter or a digit"),
        ("@ana", "starts with a letter or a digit"),
        ("s12\u202e34", "cannot be seen"),  # a bidi override
        ("s12\u200b34", "cannot be seen"),  # zero width
        ("s12\x0034", "cannot be seen"),
        ("\u3164", "cannot be seen"),  # the Hangul filler
        ("s12\n34", "cannot be seen"),
        ("s 1234", "without spaces"),
        ("ana@@x.edu", "not an email"),
        ("ana@localhost", "not an email"),
        ("ana@x..edu", "not an email"),
        ("<img src=x onerror=f()>", "without spaces"),
        ("s1<script>", "letters, digits"),
        ("s1;DROP TABLE seats", "without spaces"),
        ("s1';--", "letters, digits"),
        (12345, "not text"),
        (["s1"], "not text"),
        ({"id": "s1"}, "not text"),
    ],
)
def test_a_student_id_that_is_not_one_is_refused_with_one_line_naming_the_field(typed, why):
    with pytest.raises(Refused) as refused:
        clean_student_id(typed)
    assert str(refused.value).startswith(FIELD + ": ")
    assert why in str(refused.value)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80) | st.from_regex(r"[a-z0-9.]{1,20}@[a-z]{1,10}\.[a-z]{2,4}"))
def test_whatever_is_typed_an_id_is_refused_or_kept_within_every_rule(typed):
    try:
        kept = clean_student_id(typed)
    except Refused as err:
        assert str(err).startswith(FIELD + ": ") and "\n" not in str(err)
        return
    assert kept == unicodedata.normalize("NFC", kept) == kept.strip()
    assert 1 <= len(kept) <= MAX_STUDENT_ID
    assert not kept.startswith(FORMULA_STARTS) and kept[0].isalnum()
    assert all(unicodedata.category(c)[0] not in "CZ" for c in kept)


def test_old_room_settings_still_load_and_the_flag_must_be_true_or_false():
    old = json.dumps({"tables": 2, "seats": 3})  # written before issue 37
    assert RoomSettings.from_json(old).ask_student_id is False
    assert RoomSettings.from_json(RoomSettings(ask_student_id=True).to_json()).ask_student_id
    for bad in ("yes", 1, None):
        with pytest.raises(Exception, match="true or false"):
            RoomSettings(ask_student_id=bad)


# -- the student ID at the hub: hostile phones ------------------------------------------------------
@pytest.fixture
def asking(tmp_path):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    code = rooms.create(RoomSettings(tables=2, seats=3, ending="A", ask_student_id=True))
    hub = Hub(rooms, PhoneLimits(joins_per_device=50, joins_per_address=200))
    yield rooms, code, hub
    hub.close()


def join(hub: Hub, code: str, name: str, device: str | None = None, **extra) -> HubPhone:
    phone = HubPhone(hub, device or name)
    phone.send(type="hello", room=code)
    phone.send(type="join", room=code, name=name, **extra)
    return phone


def stored(rooms, code) -> dict[str, str | None]:
    rows = rooms.store.query("SELECT name, student_id FROM seats WHERE room = ?", (code,))
    return {name: sid for name, sid in rows if name is not None}


def test_a_room_that_asks_shows_the_box_and_keeps_the_id_with_the_seat(asking):
    rooms, code, hub = asking
    ana = join(hub, code, "Ana", student_id="ana@uni.edu")
    form = next(m for m in ana.received if m["type"] == "form")
    assert form["asks_id"] is True
    assert ana.phone.seat is not None, ana.lines()
    assert stored(rooms, code) == {"Ana": "ana@uni.edu"}
    # a reload comes back by its token, asking for nothing
    token = next(m["token"] for m in ana.received if m["type"] == "seated")
    again = HubPhone(hub, "Ana")
    again.send(type="hello", room=code, token=token)
    assert again.phone.seat is not None


@pytest.mark.parametrize(
    "student_id, why",
    [
        (None, "type your student ID"),
        ("", "type your student ID"),
        (12, "not text"),
        (True, "not text"),
        ([1, 2], "not text"),
        ({"$ne": ""}, "not text"),
        ("x" * 10_000, f"at most {MAX_STUDENT_ID}"),
        ("=cmd|' /C calc'!A0", "without spaces"),
        ("=cmd|calc!A0", "starts with a letter"),
        ("s1\u202egpj.exe", "cannot be seen"),
        ("<b>s1</b>", "starts with a letter"),
        ("s1' OR '1'='1", "without spaces"),
    ],
)
def test_a_forged_or_missing_id_gets_one_line_naming_the_field_and_no_seat(asking, student_id, why):
    rooms, code, hub = asking
    phone = join(hub, code, "Ana", student_id=student_id)
    assert phone.phone.seat is None
    lines = phone.lines()
    assert len(lines) == 1 and FIELD in lines[0] and why in lines[0], lines
    assert "Traceback" not in lines[0] and "went wrong" not in lines[0]
    assert stored(rooms, code) == {}


def test_one_id_one_seat_whatever_its_case_and_the_name_typed(asking):
    rooms, code, hub = asking
    assert join(hub, code, "Ana", student_id="ana@uni.edu").phone.seat is not None
    other = join(hub, code, "Someone", student_id="ANA@Uni.edu")
    assert other.phone.seat is None and "already has a seat" in other.lines()[-1]
    assert stored(rooms, code) == {"Ana": "ana@uni.edu"}


def test_a_room_that_does_not_ask_keeps_no_id_even_a_forged_one(tmp_path):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    code = rooms.create(RoomSettings(tables=1, seats=3))
    hub = Hub(rooms)
    try:
        phone = join(hub, code, "Ana", student_id="ana@uni.edu")
        form = next(m for m in phone.received if m["type"] == "form")
        assert form["asks_id"] is False
        assert phone.phone.seat is not None
        forged = join(hub, code, "Ben", student_id={"nested": ["x" * 1000]})
        assert forged.phone.seat is not None
        assert stored(rooms, code) == {"Ana": None, "Ben": None}
    finally:
        hub.close()


def test_wrong_ids_count_as_joins_so_a_flood_is_limited(tmp_path):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    code = rooms.create(RoomSettings(tables=1, seats=3, ask_student_id=True))
    hub = Hub(rooms, PhoneLimits(joins_per_device=3))
    try:
        phone = HubPhone(hub, "script")
        for n in range(5):
            phone.send(type="join", room=code, name=f"S{n}", student_id=f"bad id {n}")
        assert "without spaces" in phone.lines()[2]
        assert "Too many tries to join from this device" in phone.lines()[-1]
        assert stored(rooms, code) == {}
    finally:
        hub.close()


def test_a_freed_seat_forgets_its_students_id(asking):
    rooms, code, hub = asking
    ana = join(hub, code, "Ana", student_id="s1")
    seat = ana.phone.seat
    rooms.remove(code, seat.table, seat.seat)
    assert rooms.student_ids(code) == {}
    assert join(hub, code, "Ana2", student_id="s1").phone.seat is not None


# -- the gradebook files ------------------------------------------------------------------------------
def ask(rooms, code: str, number: int, moment: str) -> None:
    """A question as the questions code keeps it (schema 4)."""
    with rooms.store.transaction() as tx:
        tx.execute(
            "INSERT INTO questions (room, number, moment, kind, text, options, asked_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (code, number, moment, "choice", "Who wins?", "[]", time.time()),
        )


def answer(rooms, code: str, number: int, table: int, seat: int, at: float | None = None):
    with rooms.store.transaction() as tx:
        tx.execute(
            "INSERT INTO answers (room, question, table_no, seat, answer, at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (code, number, table, seat, "0", time.time() if at is None else at),
        )


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """Two sections: one asks for IDs (emails and plain IDs, a student named like a
    formula), one asked for nothing; the first asked a prediction and an exit ticket."""
    rooms = open_rooms(str(tmp_path_factory.mktemp("gradebook") / "class.sqlite"))
    names = ["Ana", "Ben", "=SUM(A1:A9)", "Dee"]
    ids = ["ana@uni.edu", "ben@uni.edu", "cy@uni.edu", "S-1004"]
    monday = play_class(rooms, names, tables=2, seed=4, ids=ids)
    tuesday = play_class(rooms, ["Eve"], tables=1, seed=5)
    code = monday[0]
    seat_of = {r.name: (r.table, r.seat) for r in rooms.seats(code) if r.name}
    ask(rooms, code, 1, "prediction")
    ask(rooms, code, 2, "exit")
    for name in ("Ana", "=SUM(A1:A9)", "Dee"):
        answer(rooms, code, 1, *seat_of[name])
    answer(rooms, code, 2, *seat_of["Ana"])
    answer(rooms, code, 2, *seat_of["Ben"], at=0.0)  # before Ben sat down: not Ben's
    sections = open_sections(rooms, [(*monday, "Monday"), (*tuesday, "Tuesday")])
    return rooms, sections, seat_of


def rows_of(text: str) -> list[list[str]]:
    assert "\r\n" in text  # RFC 4180 line ends
    return list(csv.reader(io.StringIO(text)))


def decisions_by(rooms, code: str, table: int, seat: int) -> int:
    return rooms.store.query(
        "SELECT COUNT(*) FROM decisions WHERE room = ? AND table_no = ? AND seat = ? "
        "AND made_by = 'student'",
        (code, table, seat),
    )[0][0]


def no_formula(rows: list[list[str]]) -> None:
    for row in rows:
        for cell in row:
            assert not cell.startswith(FORMULA_STARTS), cell


def test_the_canvas_file_follows_canvass_import_columns_and_matches_by_email(course):
    rooms, sections, seat_of = course
    frame = participation(rooms, sections)
    book = canvas_csv(frame)
    rows = rows_of(book.text)
    header, points, *students = rows
    # Canvas: Student, ID, SIS User ID, SIS Login ID, Section, then one column per assignment
    assert tuple(header[:5]) == CANVAS_COLUMNS
    grades = header[5:]
    assert grades == [
        "Anti-Monopoly: Joined",
        "Anti-Monopoly: Decisions made",
        "Anti-Monopoly: Game finished",
        "Anti-Monopoly: Question 1 (prediction)",
        "Anti-Monopoly: Question 2 (exit)",
    ]
    assert len(set(header)) == len(header)
    # the optional second row: Points Possible, the ID columns empty, a number per assignment
    assert points[0] == POINTS_POSSIBLE and points[1:5] == ["", "", "", ""]
    possible = [int(p) for p in points[5:]]
    assert possible[0] == 1 and possible[2:] == [1, 1, 1]
    # three typed emails, so the file matches by email: SIS Login ID; Canvas's own ID empty
    assert book.match_by == "email"
    by_login = {row[3]: row for row in students}
    assert set(by_login) == {"ana@uni.edu", "ben@uni.edu", "cy@uni.edu"}
    code = sections[0].code
    for row in students:
        assert row[1] == "" and row[2] == "" and row[4] == "Monday"
        values = [int(v) for v in row[5:7]] + [int(v) for v in row[7:] if v != ""]
        assert all(0 <= v <= p for v, p in zip(values, possible, strict=False))
    # every number recomputed from the store
    most = 0
    for name, login in (
        ("Ana", "ana@uni.edu"),
        ("Ben", "ben@uni.edu"),
        ("=SUM(A1:A9)", "cy@uni.edu"),
    ):
        row = by_login[login]
        made = decisions_by(rooms, code, *seat_of[name])
        most = max(most, made)
        assert row[5] == "1" and int(row[6]) == made and row[7] == "1"
    assert by_login["ana@uni.edu"][8:] == ["1", "1"]
    assert by_login["ben@uni.edu"][8:] == ["0", "0"]  # an answer from before Ben sat is not his
    assert by_login["cy@uni.edu"][8:] == ["1", "0"]
    all_made = max(
        decisions_by(rooms, s.code, r.table, r.seat)
        for s in sections
        for r in rooms.seats(s.code)
        if r.name
    )
    assert possible[1] == all_made >= most
    # the formula-like name is text, and no cell starts a formula
    assert by_login["cy@uni.edu"][0] == "'=SUM(A1:A9)"
    no_formula(rows)
    # matched by ID or email, never by a name: Dee typed an ID, Eve's section asked nothing
    left = {r.name: r.reason for r in book.left_out.itertuples()}
    assert left == {"Dee": "an ID, not an email", "Eve": "no student ID"}


def test_the_moodle_file_has_one_identifier_column_to_map_and_numeric_grade_items(course):
    rooms, sections, seat_of = course
    frame = participation(rooms, sections)
    for match_by, column, expected in (
        ("email", MOODLE_EMAIL, {"ana@uni.edu", "ben@uni.edu", "cy@uni.edu"}),
        ("id", MOODLE_ID, {"S-1004"}),
    ):
        book = moodle_csv(frame, match_by)
        header, *students = rows_of(book.text)
        # Moodle maps one identifier column (Map from) to useremail or useridnumber (Map to)
        assert header[0] == column and header[1:3] == ["Name", "Section"]
        assert MOODLE_ID not in header[1:] and MOODLE_EMAIL not in header[1:]
        assert POINTS_POSSIBLE not in {row[0] for row in students}  # Moodle has no such row
        ids = [row[0] for row in students]
        assert set(ids) == expected and len(ids) == len(set(ids))
        for row in students:
            assert all(v == "" or v.isdigit() for v in row[3:])
        no_formula([header, *students])
        assert "Eve" in set(book.left_out["name"])
    dee = next(r for r in rows_of(moodle_csv(frame, "id").text)[1:])
    assert int(dee[4]) == decisions_by(rooms, sections[0].code, *seat_of["Dee"])


def test_a_student_id_seen_in_two_sections_is_left_out_not_merged(tmp_path):
    rooms = open_rooms(str(tmp_path / "c.sqlite"))
    a = play_class(rooms, ["Ana"], tables=1, seed=4, ids=["s1"])
    b = play_class(rooms, ["Ana B"], tables=1, seed=5, ids=["S1"])
    sections = open_sections(rooms, [a, b])
    book = canvas_csv(participation(rooms, sections), "id")
    assert len(rows_of(book.text)) == 2  # the header and Points Possible only
    assert set(book.left_out["reason"]) == {"the same ID in two seats (two sections?)"}
    with pytest.raises(ValueError, match="match_by"):
        canvas_csv(participation(rooms, sections), "name")
    # nothing is ever matched by a name: the file holds no row for a student without an ID
    key = new_key()
    code = rooms.create(RoomSettings(tables=1, seats=2), key=key)
    rooms.join(code, "Nameonly")
    plain = open_sections(rooms, [(code, key)])
    book = moodle_csv(participation(rooms, plain))
    assert rows_of(book.text)[1:] == [] and list(book.left_out["name"]) == ["Nameonly"]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(names=st.lists(st.text(min_size=1, max_size=24), min_size=1, max_size=6))
def test_any_names_give_gradebooks_whose_cells_never_start_a_formula(course, names):
    rooms, sections, _ = course
    frame = participation(rooms, sections).iloc[: len(names)].copy()
    frame["name"] = names[: len(frame)]
    frame["section"] = ["=" + n for n in names[: len(frame)]]
    for book in (canvas_csv(frame), moodle_csv(frame)):
        rows = rows_of(book.text)
        no_formula(rows)
        assert len(rows) - (2 if rows[0][0] == "Student" else 1) == len(book.rows)
