"""Room-level limits and the instructor's controls (issue 36): clearing seats in one action,
locking joining, opening limits (per page, per client, per class database), unused rooms
expiring within a day, moving a seat by a one-time code (and the limit on guessing it),
replacing the instructor link, and the names a class may use. On SQLite; the schema's
migration and one control on PostgreSQL too (tests/postgres.py)."""

from __future__ import annotations

import os
import sqlite3
import tempfile
import time
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from phone_client import HubPhone
from postgres import postgres_server

from amteach.rooms import Refused, RoomSettings, RoomTable, clean_name, limits, open_rooms
from amteach.rooms import room as room_module
from amteach.rooms.hub import Hub
from amteach.rooms.limits import (
    CLIENT_OPENS_PER_HOUR,
    MOVE_TRIES,
    MOVE_TRIES_SECONDS,
    PAGE_OPENS,
    SERVER_OPENS_PER_HOUR,
    Window,
)
from amteach.rooms.names import is_bot_name
from amteach.rooms.room import MOVE_CODE_MINUTES, UNUSED_KEEP_HOURS
from amteach.rooms.store import MIGRATIONS, SCHEMA_VERSION
from amteach.ui.class_tab import ClassTab

SHORT = {"tables": 1, "seats": 3, "ending": "A", "round_cap": 6, "bot_delay": 0, "seed": 4}


def new_rooms(tmp_path, name: str = "r.sqlite"):
    return open_rooms(str(tmp_path / name))


def opened_tab(rooms, tables: int = 2, seats: int = 3, pin: str = "") -> ClassTab:
    tab = ClassTab(rooms)
    tab.table_count.value, tab.seat_count.value = tables, seats
    tab.ending.value, tab.round_cap.value = "A", 5
    tab.pin.value = pin
    assert tab.open_class(), tab.messages.widget.value
    return tab


def students(rooms, code: str) -> list[str]:
    return sorted(s.name for s in rooms.seats(code) if s.name)


# -- clearing seats in one action ------------------------------------------------------------------
def test_a_script_hoarding_seats_is_cleared_by_the_instructor_in_one_action(tmp_path):
    rooms = new_rooms(tmp_path)
    tab = opened_tab(rooms, tables=2, seats=4)
    # a script joins under new names until every seat is taken (one token each)
    hoard = [rooms.join(tab.code, f"Sock {n}") for n in range(8)]
    with pytest.raises(Refused, match="This room is full"):
        rooms.join(tab.code, "Ana")
    assert tab.clear_unplayed() and len(students(rooms, tab.code)) == 8  # only asked
    tab.yes_button.click()
    assert "Cleared 8 unplayed seats" in tab.messages.widget.value
    assert students(rooms, tab.code) == []
    assert all(s.playing == "bot" for s in rooms.seats(tab.code))
    for seat in hoard:  # the script's tokens hold nothing any more
        assert not rooms.holds(seat)
        with pytest.raises(Refused, match="no seat in this room"):
            rooms.rejoin(tab.code, seat.token)
    # the class joins; locking joining then keeps the script out for good
    ana = rooms.join(tab.code, "Ana")
    tab.lock_button.click()
    with pytest.raises(Refused, match="Joining is locked by your teacher"):
        rooms.join(tab.code, "Sock 9")
    assert students(rooms, tab.code) == ["Ana"] and rooms.holds(ana)


def test_unplayed_means_no_decision_by_the_seat_since_its_student_sat_down(tmp_path):
    rooms = new_rooms(tmp_path)
    code = rooms.create(RoomSettings(**SHORT))
    ana, ben = rooms.join(code, "Ana"), rooms.join(code, "Ben")  # seats 0 and 1; a bot at 2
    assert rooms.clear_unplayed(code) == 2  # before the start every student seat is unplayed
    ana, ben = rooms.join(code, "Ana"), rooms.join(code, "Ben")
    rooms.start(code)
    assert RoomTable(rooms, code, 0, ana).decide("roll").ok  # Ana has played; Ben has not
    assert rooms.clear_unplayed(code) == 1
    assert students(rooms, code) == ["Ana"] and rooms.holds(ana) and not rooms.holds(ben)
    # a move to a new device is the same student: still played
    move = rooms.move_seat(code, 0, ana.seat)
    phone = rooms.claim_moved(code, move)
    assert rooms.clear_unplayed(code) == 0 and rooms.holds(phone)
    # Ana is removed and Cleo sits in her seat: Ana's decisions are not Cleo's
    rooms.remove(code, 0, ana.seat)
    cleo = rooms.join(code, "Cleo")
    assert cleo.seat == ana.seat
    assert rooms.clear_unplayed(code) == 1 and students(rooms, code) == []
    assert rooms.clear_unplayed(code) == 0  # nothing left: a count, never an error


OPS = st.lists(
    st.tuples(st.sampled_from(["join", "decide", "remove", "move"]), st.integers(0, 2)),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(ops=OPS)
@example(ops=[("join", 0), ("decide", 0), ("remove", 0), ("join", 0)])  # a played seat, re-let
@example(ops=[("join", 0), ("decide", 0), ("move", 0), ("join", 0), ("move", 1)])
def test_clear_unplayed_frees_exactly_the_seats_without_a_decision_since_seated(ops):
    """Invariant: after any joins, decisions, removals and moves, `clear_unplayed` frees
    exactly the student seats whose current student made no decision, and no other."""
    clock = iter(range(10**9))
    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as folder:
        patch.setattr(room_module, "now", lambda: float(next(clock)) + 1e9)
        rooms = open_rooms(os.path.join(folder, "r.sqlite"))
        code = rooms.create(RoomSettings(tables=1, seats=3))  # freed seats are taken again
        rooms.start(code)
        model: dict[tuple[int, int], bool] = {}  # a student's seat -> has played
        held: dict[tuple[int, int], str] = {}  # the seat's device key
        number, joined = [0], [0]
        for op, pick in ops:
            seated = sorted(model)
            target = seated[pick % len(seated)] if seated else None
            if op == "join" and len(model) < 3:
                joined[0] += 1
                seat = rooms.join(code, f"Student {chr(65 + joined[0] % 26)}{joined[0]}")
                model[(seat.table, seat.seat)], held[(seat.table, seat.seat)] = False, seat.key
            elif op == "decide" and target is not None:
                number[0] += 1
                rooms.append(code, target[0], number[0], target[1], "roll", "student", held[target])
                model[target] = True
            elif op == "remove" and target is not None:
                rooms.remove(code, *target)
                del model[target], held[target]
            elif op == "move" and target is not None:
                claimed = rooms.claim_moved(code, rooms.move_seat(code, *target))
                held[target] = claimed.key  # the same student: whether they played stays
        unplayed = {seat for seat, played in model.items() if not played}
        assert rooms.clear_unplayed(code) == len(unplayed)
        left = {(s.table, s.seat) for s in rooms.seats(code) if s.name}
        assert left == {seat for seat, played in model.items() if played}
        rooms.store.close()


def test_clear_this_table_frees_every_student_seat_of_one_table_and_asks_first(tmp_path):
    rooms = new_rooms(tmp_path)
    tab = opened_tab(rooms, tables=2, seats=2)
    seats = {name: rooms.join(tab.code, name) for name in ("Ana", "Ben", "Cleo", "Dan")}
    first = sorted(n for n, s in seats.items() if s.table == 0)
    tab.refresh()
    assert [label for label, _ in tab.table_picker.options] == ["Table 1", "Table 2"]
    tab.table_picker.value = 1
    assert tab.clear_table() and len(students(rooms, tab.code)) == 4  # only asked
    tab.no_button.click()
    assert len(students(rooms, tab.code)) == 4
    tab.clear_table()
    tab.yes_button.click()
    assert "Cleared 2 seats at table 2" in tab.messages.widget.value
    assert students(rooms, tab.code) == first
    assert rooms.clear_table(tab.code, 1) == 0


# -- locking joining -------------------------------------------------------------------------------
def test_locked_joining_refuses_new_names_but_not_a_rejoin_or_a_moved_seat(tmp_path):
    rooms = new_rooms(tmp_path)
    tab = opened_tab(rooms)
    ana, ben = rooms.join(tab.code, "Ana"), rooms.join(tab.code, "Ben")
    move = rooms.move_seat(tab.code, ben.table, ben.seat)
    tab.lock_button.click()
    assert rooms.info(tab.code).joining_locked and tab.lock_button.description == "Unlock joining"
    assert "Joining is locked" in tab.grid.value
    hub = Hub(new_rooms(tmp_path))
    page = HubPhone(hub, "Cleo's phone")  # a student's light page, as the server sees it
    page.send(type="join", room=tab.code, name="Cleo")
    assert page.phone.seat is None
    assert "Joining is locked by your teacher" in page.lines()[-1]  # one line
    hub.close()
    assert rooms.rejoin(tab.code, ana.token).seat == ana.seat  # a reload
    assert rooms.join(tab.code, "", token=ana.token).seat == ana.seat
    assert rooms.join(tab.code, move).seat == ben.seat  # the move code, typed as the name
    tab.lock_button.click()
    assert not rooms.info(tab.code).joining_locked and tab.lock_button.description == "Lock joining"
    assert rooms.join(tab.code, "Cleo").name == "Cleo"


def test_a_visitor_without_the_key_reaches_none_of_the_new_controls(tmp_path):
    rooms = new_rooms(tmp_path)
    tab = opened_tab(rooms)
    ana = rooms.join(tab.code, "Ana")
    mallory = ClassTab(rooms)
    mallory.code = tab.code  # a page that names the room, without its key
    mallory.seat_picker.options = [("Table 1 · Ana", (ana.table, ana.seat))]
    mallory.table_picker.options = [("Table 1", 0)]
    assert not mallory.toggle_joining()
    assert not mallory.clear_unplayed(confirmed=True)
    assert not mallory.clear_table(confirmed=True)
    assert not mallory.move_student()
    assert not mallory.replace_link(confirmed=True)
    assert "instructor link" in mallory.messages.widget.value
    assert mallory.move_code.value == "" and mallory.secret.text == ""
    assert not rooms.info(tab.code).joining_locked and rooms.holds(ana)
    assert rooms.check_instructor(tab.code, tab.key).code == tab.code  # the key is unchanged


# -- opening classes -------------------------------------------------------------------------------
def test_a_page_opens_at_most_PAGE_OPENS_classes_an_hour(tmp_path):
    rooms = new_rooms(tmp_path)
    moment = [0.0]
    tab = ClassTab(rooms)
    tab.table_count.value, tab.seat_count.value = 1, 2
    tab.opens = Window(PAGE_OPENS, limits.OPEN_WINDOW_SECONDS, clock=lambda: moment[0])
    for _ in range(PAGE_OPENS):
        assert tab.open_class(), tab.messages.widget.value
    assert not tab.open_class()
    assert f"This page has opened {PAGE_OPENS} classes in the last hour" in (
        tab.messages.widget.value
    )
    assert len(rooms.store.query("SELECT code FROM rooms")) == PAGE_OPENS
    other = ClassTab(rooms)  # another teacher's page is not held up
    other.table_count.value, other.seat_count.value = 1, 2
    assert other.open_class()
    moment[0] = limits.OPEN_WINDOW_SECONDS
    assert tab.open_class(), tab.messages.widget.value


def test_opening_is_limited_per_class_database_and_per_client(tmp_path, monkeypatch):
    assert (SERVER_OPENS_PER_HOUR, CLIENT_OPENS_PER_HOUR) == (30, 10)  # the defaults
    monkeypatch.setattr(limits, "SERVER_OPENS_PER_HOUR", 4)
    monkeypatch.setattr(limits, "CLIENT_OPENS_PER_HOUR", 2)
    rooms = new_rooms(tmp_path)
    small = RoomSettings(tables=1, seats=2)
    rooms.create(small, opened_by="203.0.113.7")
    rooms.create(small, opened_by="203.0.113.7")
    with pytest.raises(Refused, match="2 classes were opened from this computer in the last"):
        rooms.create(small, opened_by="203.0.113.7")
    rooms.create(small, opened_by="198.51.100.2")  # another client
    rooms.create(small)  # a page of the dashboard (no client id): the database's limit only
    with pytest.raises(Refused, match=r"4 classes were opened on this server .* Try again in"):
        rooms.create(small, opened_by="192.0.2.1")
    kept = {c for (c,) in rooms.store.query("SELECT opened_by FROM rooms") if c}
    assert len(kept) == 2 and not any("203.0.113.7" in c for c in kept)  # kept hashed
    with rooms.store.transaction() as tx:  # an hour later
        tx.execute("UPDATE rooms SET created = created - 3601")
    assert rooms.create(small, opened_by="203.0.113.7")


# -- unused rooms ----------------------------------------------------------------------------------
def test_a_room_nobody_used_goes_within_a_day_and_a_used_one_is_kept(tmp_path):
    assert UNUSED_KEEP_HOURS == 24
    rooms = new_rooms(tmp_path)
    settings = RoomSettings(**{**SHORT, "seats": 2})
    empty, lobby, bots_only, played, closed = (rooms.create(settings) for _ in range(5))
    rooms.join(lobby, "Ana")  # joined, but no decision was ever made
    rooms.start(bots_only)  # decisions, but no student ever joined
    assert RoomTable(rooms, bots_only, 0).drive(0)
    ana = rooms.join(played, "Ana")
    rooms.start(played)
    assert RoomTable(rooms, played, 0, ana).decide("roll").ok
    rooms.close(closed)
    day = UNUSED_KEEP_HOURS * 3600
    assert rooms.purge(at=time.time() + day - 60) == 0  # not yet a day
    later = time.time() + day + 60
    with rooms.store.transaction() as tx:  # closed just before that moment
        tx.execute("UPDATE rooms SET closed_at = ? WHERE code = ?", (later - 60, closed))
    assert rooms.purge(at=later) == 3
    left = {c for (c,) in rooms.store.query("SELECT code FROM rooms")}
    assert left == {played, closed}  # used: the 14-day rule; closed lately: can be reopened
    assert (
        rooms.store.query(
            "SELECT DISTINCT room FROM seats WHERE room IN (?, ?, ?)", (empty, lobby, bots_only)
        )
        == []
    )
    assert rooms.purge(at=later + 3600) == 1  # the closed one, an hour after closing
    assert rooms.purge(at=time.time() + 15 * 86400) == 1  # the used one after 14 days


# -- moving a seat by a one-time code --------------------------------------------------------------
def test_a_move_code_is_six_digits_kept_hashed_works_once_and_expires(tmp_path):
    rooms = new_rooms(tmp_path)
    code = rooms.create(RoomSettings(tables=1, seats=3))
    ana = rooms.join(code, "Ana")
    with pytest.raises(Refused, match="no student to move"):
        rooms.move_seat(code, 0, 2)
    first = rooms.move_seat(code, 0, ana.seat)
    assert len(first) == 6 and first.isdigit()
    ((kept, until),) = rooms.store.query(
        "SELECT move_hash, move_until FROM seats WHERE move_hash IS NOT NULL"
    )
    assert first not in kept and until - time.time() == pytest.approx(60 * MOVE_CODE_MINUTES, abs=5)
    second = rooms.move_seat(code, 0, ana.seat)  # a new code replaces the first
    if second != first:
        with pytest.raises(Refused, match="does not open any seat"):
            rooms.claim_moved(code, first)
    with rooms.store.transaction() as tx:  # fifteen minutes later
        tx.execute("UPDATE seats SET move_until = ?", (time.time() - 1,))
    with pytest.raises(Refused, match="does not open any seat"):
        rooms.claim_moved(code, second)
    with pytest.raises(Refused, match="already taken"):  # and the name still takes nothing
        rooms.join(code, "Ana")
    third = rooms.move_seat(code, 0, ana.seat)
    seat = rooms.claim_moved(code, f" {third[:3]} {third[3:]} ")  # typed loosely
    assert (seat.seat, seat.name, seat.returned) == (ana.seat, "Ana", True)
    assert seat.token and rooms.holds(seat) and not rooms.holds(ana)
    with pytest.raises(Refused, match="does not open any seat"):
        rooms.claim_moved(code, third)
    for junk in ("", "12345", "1234567", "abcdef", None, "x" * 10_000):
        with pytest.raises(Refused, match="does not open any seat"):
            rooms.claim_moved(code, junk)
    assert rooms.store.query("SELECT COUNT(*) FROM move_tries")[0][0] == 3  # junk is not a guess


def test_guessing_a_move_code_is_limited_per_room_so_brute_force_is_infeasible(
    tmp_path, monkeypatch
):
    clock = [time.time()]
    monkeypatch.setattr(room_module, "now", lambda: clock[0])
    rooms = new_rooms(tmp_path)
    code, other = (rooms.create(RoomSettings(tables=1, seats=2)) for _ in range(2))
    ana = rooms.join(code, "Ana")
    move = rooms.move_seat(code, 0, ana.seat)
    wrong = (f"{n:06d}" for n in range(10**6) if f"{n:06d}" != move)
    for _ in range(MOVE_TRIES):
        with pytest.raises(Refused, match="does not open any seat"):
            rooms.claim_moved(code, next(wrong))
    # the window is full: even the right code waits, and the page says how long
    with pytest.raises(Refused, match=r"Too many wrong move codes .* Wait 1 minute"):
        rooms.claim_moved(code, move)
    ben = rooms.join(other, "Ben")  # another room is not held up
    assert rooms.claim_moved(other, rooms.move_seat(other, 0, ben.seat)).name == "Ben"
    # a guesser at one code a second for the code's whole life gets MOVE_TRIES a minute
    guessed = MOVE_TRIES
    for _ in range(60 * MOVE_CODE_MINUTES):
        clock[0] += 1
        try:
            rooms.claim_moved(code, next(wrong))
        except Refused as err:
            guessed += "does not open any seat" in str(err)
    lifetime = MOVE_CODE_MINUTES * 60 // MOVE_TRIES_SECONDS
    assert MOVE_TRIES * lifetime <= guessed <= MOVE_TRIES * (lifetime + 1) == 160  # of 10**6
    with pytest.raises(Refused):  # and by then the code has expired
        clock[0] += MOVE_TRIES_SECONDS
        rooms.claim_moved(code, move)
    fresh = rooms.move_seat(code, 0, ana.seat)
    assert rooms.claim_moved(code, fresh).name == "Ana"


def test_the_class_tab_shows_the_move_code_big_with_a_qr_code(tmp_path, monkeypatch):
    monkeypatch.setenv("AMTEACH_PUBLIC_URL", "http://class.example:8866/")
    rooms = new_rooms(tmp_path)
    tab = opened_tab(rooms, tables=1, seats=2)
    ana = rooms.join(tab.code, "Ana")
    tab.refresh()
    tab.seat_picker.value = (0, ana.seat)
    assert tab.move_student(), tab.messages.widget.value
    shown = tab.move_code.value
    assert "font-size:64px" in shown and "<svg" in shown and "Move code for Ana" in shown
    digits = shown.split("am-move-digits")[1].split(">")[1].split("<")[0].replace(" ", "")
    assert len(digits) == 6 and not rooms.holds(ana)
    assert rooms.claim_moved(tab.code, digits).seat == ana.seat
    tab.hide_move_button.click()
    assert tab.move_code.value == "" and tab.move_box.layout.display == "none"


# -- the instructor link ---------------------------------------------------------------------------
def test_the_instructor_key_can_be_replaced_and_the_old_one_stops_at_once(tmp_path):
    rooms = new_rooms(tmp_path)
    tab = opened_tab(rooms, tables=1, seats=2, pin="2468")
    old_key = tab.key
    laptop = ClassTab(rooms)  # a second page that holds the old key
    laptop.back_link.value, laptop.back_pin.value = tab.secret.text, "2468"
    assert laptop.reopen()
    with pytest.raises(Refused, match="also has a PIN"):
        rooms.replace_key(tab.code, old_key)
    with pytest.raises(Refused, match="PIN does not open"):
        rooms.replace_key(tab.code, old_key, "1111")
    with pytest.raises(Refused, match="does not open"):
        rooms.replace_key(tab.code, "forged", "2468")
    sent = []
    tab.memory.send = sent.append
    assert tab.replace_pin.layout.display == "flex"  # the class has a PIN: the box is shown
    assert tab.replace_link() and rooms.check_instructor(tab.code, old_key, "2468")  # asks
    tab.replace_pin.value = "2468"
    tab.yes_button.click()
    assert tab.key != old_key and tab.key in tab.secret.text
    assert {"kind": "remember", "name": tab.code, "value": tab.key} in sent
    with pytest.raises(Refused, match="does not open"):
        rooms.check_instructor(tab.code, old_key, "2468")
    assert rooms.check_instructor(tab.code, tab.key, "2468").code == tab.code
    assert not laptop.start() and "instructor link" in laptop.messages.widget.value
    assert rooms.info(tab.code).status == "lobby" and tab.start()
    # the API: a room without a PIN, the key alone
    code = rooms.create(RoomSettings(tables=1, seats=2), key="k" * 32)
    new = rooms.replace_key(code, "k" * 32)
    assert len(new) >= 32 and rooms.check_instructor(code, new).code == code
    with pytest.raises(Refused):
        rooms.replace_key(code, "k" * 32)


# -- names -----------------------------------------------------------------------------------------
def test_bot_names_and_their_look_alikes_are_refused_and_real_names_are_not():
    for name in ("B0t 3", "Bot 3", "BOT3", "bot-3", "Bot ３", "Вot 3", "B.o.t 12", "Bot O"):
        with pytest.raises(Refused, match="kept for the bots"):
            clean_name(name)
    for name in ("Bot", "Botha", "Bottom 3", "Robot 3", "Bo 3", "Bot 3a"):
        assert clean_name(name) == name


def _look_alikes(letter: str) -> list[str]:
    from confusable_homoglyphs import confusables

    found = {letter}
    for key in (letter, letter.upper(), letter.lower()):
        for alike in confusables.confusables_data.get(key, []):
            if len(alike["c"]) == 1:
                found.add(alike["c"])
    return sorted(found)


@settings(max_examples=300, deadline=None)
@given(
    b=st.sampled_from(_look_alikes("B")),
    o=st.sampled_from(_look_alikes("o") + _look_alikes("O") + ["0"]),
    t=st.sampled_from(_look_alikes("t")),
    gap=st.sampled_from(["", " ", "  ", "-", "_", ".", " #"]),
    number=st.integers(min_value=1, max_value=99),
)
def test_every_look_alike_of_a_bot_name_is_refused(b, o, t, gap, number):
    """Invariant: "Bot N" with any letter swapped for one the confusables table lists as
    alike, and any gap, is never a student's name."""
    name = f"{b}{o}{t}{gap}{number}"
    assert is_bot_name(unicodedata.normalize("NFKC", name)), name
    with pytest.raises(Refused):
        clean_name(name)


def test_names_in_living_scripts_pass_and_historic_or_huge_ones_are_refused():
    for name in ("Zoë", "Ngọc Ánh", "मनीष", "عمر", "王小明", "김민준", "สมชาย", "Δημήτρης",
                 "יוסף", "Аня", "ጌታቸው", "Ana 😀", "O'Brien-Smith"):  # fmt: skip
        assert clean_name(name) == name
    refused = {
        "\U00012000" * 24: "Cuneiform script",  # 24 cuneiform signs, each several letters wide
        "A\U00013000": "Egyptian Hieroglyphs script",
        "Ana\U00010000": "Linear B script",
        "\u16a0\u16a2": "Runic script",
        "Ana\ufdfd": "draws as wide as a word",
        "a" + "\u0300\u0301\u0302\u0303\u0304\u0306": "more than 4 accents",
    }
    for name, says in refused.items():
        with pytest.raises(Refused, match=says):
            clean_name(name)


# -- the schema ------------------------------------------------------------------------------------
def _second_schema(execute) -> None:
    for statements in MIGRATIONS[:2]:
        for statement in statements:
            execute(statement)
    execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    execute("INSERT INTO schema_version VALUES (2)")


def _check_migrated(rooms, code: str) -> None:
    assert rooms.store.schema_version() == SCHEMA_VERSION == 4
    info = rooms.info(code)
    assert not info.joining_locked
    rooms.lock_joining(code, True)
    with pytest.raises(Refused, match="Joining is locked"):
        rooms.join(code, "Ben")
    rooms.lock_joining(code, False)
    # the seat of a student who joined before the migration: unplayed, cleared in one action
    assert rooms.clear_unplayed(code) == 1 and students(rooms, code) == []
    ben = rooms.join(code, "Ben")
    move = rooms.move_seat(code, ben.table, ben.seat)
    assert rooms.claim_moved(code, move).seat == ben.seat
    assert rooms.clear_table(code, 0) == 1


def test_a_database_of_the_second_schema_is_migrated_and_its_rooms_work(tmp_path):
    path = tmp_path / "old.sqlite"
    old = sqlite3.connect(path, isolation_level=None)
    _second_schema(old.execute)
    settings = RoomSettings(tables=1, seats=2).to_json()
    old.execute(
        "INSERT INTO rooms (code, created, settings, status, key_hash) "
        "VALUES ('ABCDEF', ?, ?, 'lobby', 'x')",
        (time.time(), settings),
    )
    for seat, name in ((0, "Ana"), (1, None)):
        old.execute(
            "INSERT INTO seats (room, table_no, seat, name, name_key, bot, playing, token_hash) "
            "VALUES ('ABCDEF', 0, ?, ?, ?, 'investor', ?, ?)",
            (seat, name, name and name.lower(), "student" if name else "bot", name and "h"),
        )
    old.close()
    _check_migrated(open_rooms(str(path)), "ABCDEF")


def test_postgresql_migrates_the_second_schema_and_a_hoard_is_cleared():
    import psycopg

    with postgres_server() as base:
        url = base.rsplit("/", 1)[0] + f"/t{os.getpid()}"
        with psycopg.connect(base, autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE t{os.getpid()}")
        with psycopg.connect(url, autocommit=True) as connection:
            _second_schema(connection.execute)
            connection.execute(
                "INSERT INTO rooms (code, created, settings, status, key_hash) "
                "VALUES ('ABCDEF', %s, %s, 'lobby', 'x')",
                (time.time(), RoomSettings(tables=1, seats=2).to_json()),
            )
            for seat, name in ((0, "Ana"), (1, None)):
                connection.execute(
                    "INSERT INTO seats (room, table_no, seat, name, name_key, bot, playing) "
                    "VALUES ('ABCDEF', 0, %s, %s, %s, 'investor', 'bot')",
                    (seat, name, name and name.lower()),
                )
        rooms = open_rooms(url)
        _check_migrated(rooms, "ABCDEF")
        # a control on PostgreSQL: a hoard of seats cleared in one action
        code = rooms.create(RoomSettings(tables=2, seats=3))
        hoard = [rooms.join(code, f"Sock {n}") for n in range(6)]
        assert rooms.clear_unplayed(code) == 6 and not any(rooms.holds(s) for s in hoard)
        rooms.store.close()
