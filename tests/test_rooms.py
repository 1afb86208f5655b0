"""Rooms (amteach/rooms): a class plays shared tables through a database log, on SQLite and on
PostgreSQL (a server of the tests' own, tests/postgres.py). Simulated students play in
processes of their own; every game they end with is the game the log replays to."""

from __future__ import annotations

import base64
import hashlib
import json
import multiprocessing
import os
import signal
import sqlite3
import threading
import time

import pandas as pd
import pytest
from postgres import postgres_server

from amteach.bots import make_strategy
from amteach.engine.errors import IllegalChoice, InputError
from amteach.engine.game import Game
from amteach.rooms import (
    Follower,
    Refused,
    RoomSettings,
    RoomsUnavailable,
    RoomTable,
    class_archive,
    class_result,
    clean_name,
    decisions_frame,
    limits,
    new_key,
    open_rooms,
    open_store,
    skeleton,
    spreadsheet_safe,
)
from amteach.rooms import room as room_module
from amteach.rooms.limits import KEY_TRIES, Window
from amteach.rooms.room import CODE_ALPHABET, CODE_LENGTH, roles_by_dice
from amteach.rooms.store import MIGRATIONS, SCHEMA_VERSION, SQLiteStore
from amteach.sim import simulate

FORK = multiprocessing.get_context("fork")
# a short game: the point is the plumbing, not the game
SHORT = {"tables": 1, "seats": 3, "ending": "A", "round_cap": 6, "bot_delay": 0, "seed": 4}
DEADLINE = 240  # seconds a whole simulated game may take on two busy cores


@pytest.fixture(scope="module")
def postgres_url():
    with postgres_server() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    """The address of an empty class database of each kind."""
    if request.param == "sqlite":
        return str(tmp_path / "rooms.sqlite")
    base = request.getfixturevalue("postgres_url")
    import psycopg

    name = f"t{os.getpid()}_{time.monotonic_ns()}"
    with psycopg.connect(base, autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return base.rsplit("/", 1)[0] + "/" + name


def until(rooms, condition, seconds: float = DEADLINE) -> None:
    """Wait until `condition()` holds, woken by the database's own news (no fixed sleeps)."""
    news = threading.Event()
    stop = rooms.store.watch(lambda room: news.set())
    deadline = time.monotonic() + seconds
    try:
        while not condition():
            assert time.monotonic() < deadline, "the room never got there"
            news.wait(1.0)
            news.clear()
    finally:
        stop()


def replayed(rooms, code: str, table: RoomTable) -> Game:
    """The table's game rebuilt from nothing but its set-up and the log."""
    log = rooms.decisions(code, table.table_no)
    return Game.replay(table.game.setup, [choice for _, choice, _, _ in log])


# -- simulated students, each in a process of their own ----------------------------------------------
def student(url: str, code: str, name: str, results) -> None:
    """Join as `name` and play with a cautious bot's judgement until the game is over; report
    the final state. News comes through the database's own channel (SQLite's poll,
    PostgreSQL's LISTEN)."""
    rooms = open_rooms(url)
    seat = rooms.join(code, name)
    until(rooms, lambda: rooms.info(code).status != "lobby")
    table = RoomTable(rooms, code, seat.table, seat)
    follower = Follower(rooms, code, [table])
    brain = make_strategy("cautious", seed=seat.seat)
    deadline = time.monotonic() + DEADLINE
    while not table.game.over and time.monotonic() < deadline:
        follower.tick()
        game = table.game
        if not game.over and game.actor == seat.seat:
            table.decide(brain.choose(game, game.legal()), table.moment)
        else:
            follower.news.wait(0.2)
    follower.stop()
    results.put((name, len(table.game.decisions), json.dumps(table.game.state.as_dict())))


def play_in_processes(url: str, names: list[str]):
    rooms = open_rooms(url)
    code = rooms.create(RoomSettings(**SHORT))
    results = FORK.Queue()
    players = [FORK.Process(target=student, args=(url, code, name, results)) for name in names]
    for process in players:
        process.start()
    until(rooms, lambda: len([s for s in rooms.seats(code) if s.name]) == len(names))
    rooms.start(code)
    return rooms, code, players, results


def test_students_in_processes_play_a_whole_game_that_the_log_replays(database):
    rooms, code, players, results = play_in_processes(database, ["Ana", "Ben"])
    reports = [results.get(timeout=DEADLINE + 60) for _ in players]
    for process in players:
        process.join(timeout=60)
        assert process.exitcode == 0
    # the instructor's device follows too, driving nothing
    table = RoomTable(rooms, code, 0)
    assert table.game.over
    again = replayed(rooms, code, table)
    assert again.state.as_dict() == table.game.state.as_dict()
    for name, decisions, state in reports:
        assert decisions == len(table.game.decisions), name
        assert json.loads(state) == json.loads(json.dumps(again.state.as_dict()))
    made_by = {by for _, _, _, by in rooms.decisions(code, 0)}
    assert made_by == {"student", "bot"}  # Bot 3 played the third seat


def test_a_server_killed_mid_game_resumes_every_table_at_the_same_decision(database):
    rooms, code, players, _ = play_in_processes(database, ["Ana", "Ben"])
    until(rooms, lambda: len(rooms.decisions(code, 0)) >= 30)
    for process in players:  # every device and its server, without warning
        os.kill(process.pid, signal.SIGKILL)
        process.join()
    logged = len(rooms.decisions(code, 0))
    # started again: new connections, new devices
    again = open_rooms(database)
    table = RoomTable(again, code, 0)
    assert len(table.game.decisions) == logged
    assert table.game.state.as_dict() == replayed(again, code, table).state.as_dict()
    # and the game goes on from that decision (bots take the students' seats)
    for seat in (0, 1):
        again.set_playing(code, 0, seat, "bot")
    table.sync()
    while not table.game.over:
        assert table.drive(0)
    assert table.game.decisions[:logged] == replayed(again, code, table).decisions[:logged]


def test_two_devices_clicking_the_same_choice_at_once_append_it_once(database):
    rooms = open_rooms(database)
    code = rooms.create(RoomSettings(**{**SHORT, "seats": 2}))
    ana = rooms.join(code, "Ana")
    bens = RoomTable(rooms, code, 0, rooms.join(code, "Ben")) if rooms.start(code) else None
    for attempt in range(4):
        bens.sync()
        while bens.game.actor != 0:  # Ben takes his turns on his own device
            assert bens.decide(bens.game.legal_choices()[0], bens.moment).ok
        # a phone and a laptop of Ana's, each with its own connection (two kernels)
        devices = [RoomTable(open_rooms(database), code, 0, ana) for _ in range(2)]
        choice = devices[0].game.legal_choices()[0]
        together = threading.Barrier(2)
        replies = []

        def click(device, choice=choice, together=together, replies=replies):
            moment = device.moment
            together.wait()
            replies.append(device.decide(choice, moment))

        clicks = [threading.Thread(target=click, args=(d,)) for d in devices]
        for thread in clicks:
            thread.start()
        for thread in clicks:
            thread.join()
        assert sorted(r.ok for r in replies) == [False, True], (attempt, replies)
        (refused,) = [r for r in replies if not r.ok]
        assert "first" in refused.message or "earlier moment" in refused.message
        log = rooms.decisions(code, 0)
        assert [number for number, *_ in log] == list(range(1, len(log) + 1))
        for device in devices:
            device.sync()
        assert devices[0].game.state.as_dict() == devices[1].game.state.as_dict()
        assert len(devices[0].game.decisions) == len(log)


# -- joining: codes, names, seats -----------------------------------------------------------------------
def test_codes_are_short_unguessable_and_typed_loosely(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "SERVER_OPENS_PER_HOUR", 40)  # 40 rooms in a moment, on purpose
    rooms = open_rooms(str(tmp_path / "r.sqlite"))
    codes = {rooms.create(RoomSettings(tables=1, seats=2)) for _ in range(40)}
    assert len(codes) == 40
    assert all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in codes)
    code = next(iter(codes))
    seat = rooms.join(f" {code.lower()} ", "Ana")
    assert seat.code == code


def test_bad_joins_get_one_polite_line_each(tmp_path):
    rooms = open_rooms(str(tmp_path / "r.sqlite"))
    code = rooms.create(RoomSettings(tables=1, seats=2))
    rooms.join(code, "Ana")
    cases = {
        "ZZZZZZ": ("Bo", "There is no room ZZZZZZ"),
        "'; DROP TABLE rooms; --": ("Bo", "There is no room"),
        code: ("ANA", "already taken in this class by another device"),
        "": ("Bo", "Type the room code"),
    }
    for typed, (name, says) in cases.items():
        with pytest.raises(Refused, match=says):
            rooms.join(typed, name)
    with pytest.raises(Refused, match="Type your name"):
        rooms.join(code, "   ")
    with pytest.raises(Refused, match="kept for the bots"):
        rooms.join(code, "bot 2")
    rooms.join(code, "Bo'); DROP TABLE x;--")
    with pytest.raises(Refused, match="room is full"):
        rooms.join(code, "Cleo")
    names = [s.name for s in rooms.seats(code)]
    assert names == ["Ana", "Bo'); DROP TABLE x;--"]  # a name is only ever a value


def test_a_student_coming_back_gets_the_same_seat_and_a_bot_keeps_it_warm(tmp_path):
    rooms = open_rooms(str(tmp_path / "r.sqlite"))
    code = rooms.create(RoomSettings(tables=2, seats=2, absent_after=20, **{"bot_delay": 0}))
    ana, ben, cleo = (rooms.join(code, n) for n in ("Ana", "Ben", "Cleo"))
    assert {ana.table, ben.table} == {0, 1}  # the tables fill evenly
    rooms.start(code)
    # Ana's page stops checking in: after the limit a bot plays her seat
    with rooms.store.transaction() as tx:
        tx.execute("UPDATE seats SET last_seen = ? WHERE name = ?", (time.time() - 60, "Ana"))
    assert rooms.replace_absent(code, 20) == 1
    table = RoomTable(rooms, code, ana.table, ana)
    assert table.seat_status(ana.seat) == "bot (student away)"
    assert not table.decide("roll").ok
    assert "Take my seat back" in table.decide("roll").message
    with pytest.raises(Refused, match="already taken"):  # a typed name never takes a seat
        rooms.join(code, "ana")
    back = rooms.rejoin(code, ana.token)  # her device's token does
    assert back.returned and (back.table, back.seat) == (ana.table, ana.seat)
    table.sync()
    assert table.seat_status(ana.seat) == "student"
    assert cleo.table == ana.table


def test_roles_by_the_dice_follow_the_throws_and_stay_balanced():
    import random

    for seed in range(30):
        rng = random.Random(seed)
        wants = [rng.choice(["competitor", "monopolist", None]) for _ in range(rng.randint(2, 6))]
        roles, throws = roles_by_dice(wants, random.Random(seed))
        assert abs(roles.count("competitor") - roles.count("monopolist")) <= 1
        assert all(2 <= t <= 12 for t in throws)
        # the highest throw always gets the role it wanted (rule 3: it chooses first)
        first = max(range(len(wants)), key=lambda s: throws[s])
        if wants[first] and throws.count(throws[first]) == 1:
            assert roles[first] == wants[first]


def test_each_assignment_mode_gives_a_legal_table(tmp_path):
    rooms = open_rooms(str(tmp_path / "r.sqlite"))
    for mode in ("alternating", "random", "dice"):
        code = rooms.create(RoomSettings(tables=3, seats=5, roles=mode, seed=9))
        rooms.join(code, "Ana", prefers="monopolist")
        rooms.start(code)
        for t in range(3):
            roles = [s.role for s in rooms.seats(code, t)]
            assert sorted([roles.count("competitor"), roles.count("monopolist")]) == [2, 3], roles
            RoomTable(rooms, code, t)  # the engine accepts the table


def test_room_settings_name_the_field_that_is_wrong():
    for field, value in (("seats", 7), ("tables", 0), ("roles", "vote"), ("ending", "C")):
        with pytest.raises(InputError) as err:
            RoomSettings(**{field: value})
        assert err.value.field == field


# -- the turn, the seat and the room's state --------------------------------------------------------------
def test_students_act_only_for_their_own_seat_on_their_own_turn(tmp_path):
    rooms = open_rooms(str(tmp_path / "r.sqlite"))
    code = rooms.create(RoomSettings(**{**SHORT, "seats": 2}))
    ana, ben = rooms.join(code, "Ana"), rooms.join(code, "Ben")
    rooms.start(code)
    bens = RoomTable(rooms, code, 0, ben)
    reply = bens.decide("roll")
    assert not reply.ok and "It is Ana's turn" in reply.message
    with pytest.raises(IllegalChoice, match="Ana's decision, not Ben's"):
        bens.apply("roll", seat=1)  # the engine, on the server side, names the turn
    # a forged append for Ana's seat with Ben's key is refused by the log
    with pytest.raises(Refused):
        rooms.append(code, 0, 1, 0, "roll", "student", student_key=ben.key)
    # and only the two-hour game's timer ends a game, once time is up
    with pytest.raises(Refused, match="timer"):
        rooms.append(code, 0, 1, 0, "end_game", "timer")
    assert rooms.decisions(code, 0) == []
    anas = RoomTable(rooms, code, 0, ana)
    assert "timer ends the game" in anas.decide("end_game").message
    assert "cannot read the choice" in anas.decide(["x", 1, 2]).message
    assert anas.decide("roll").ok
    assert not RoomTable(rooms, code, 0).decide("roll").ok  # the instructor decides for no seat


def test_pause_stops_every_decision_and_resume_keeps_the_timer(tmp_path):
    rooms = open_rooms(str(tmp_path / "r.sqlite"))
    code = rooms.create(RoomSettings(tables=1, seats=2, ending="two-hour", minutes=30))
    ana = rooms.join(code, "Ana")
    info = rooms.start(code)
    assert 29 * 60 < info.seconds_left() <= 30 * 60
    rooms.pause(code)
    anas = RoomTable(rooms, code, 0, ana)
    reply = anas.decide("roll")
    assert not reply.ok and "paused" in reply.message
    left = rooms.info(code).seconds_left()
    rooms.resume(code)
    assert rooms.info(code).seconds_left() == pytest.approx(left, abs=2)
    assert anas.decide("roll", anas.moment).ok
    while not anas.game.is_legal("end_game"):
        assert anas.decide(anas.game.legal_choices()[0], anas.moment).ok
    # time is up: every table starts the final accounting
    rooms.time_is_up(code)
    follower = Follower(rooms, code, [RoomTable(rooms, code, 0)])
    follower.tick()
    follower.stop()
    anas.sync()
    assert anas.game.phase == "final_adjust" or anas.game.over
    assert rooms.decisions(code, 0)[-1][1] == "end_game"


def test_an_unreachable_database_gets_one_clear_message_and_loses_nothing(tmp_path):
    path = tmp_path / "r.sqlite"
    rooms = open_rooms(str(path))
    code = rooms.create(RoomSettings(**{**SHORT, "seats": 2}))
    ana = rooms.join(code, "Ana")
    rooms.start(code)
    anas = RoomTable(rooms, code, 0, ana)
    before = anas.game.state.as_dict()
    # another process holds the write lock for longer than the device waits
    assert isinstance(rooms.store, SQLiteStore)
    rooms.store.busy_seconds = 0.2
    rooms.store.close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    reply = anas.decide("roll", anas.moment)
    holder.execute("ROLLBACK")
    holder.close()
    assert not reply.ok and reply.level == "error"
    assert "class database" in reply.message and "nothing is lost" in reply.message
    assert anas.game.state.as_dict() == before and rooms.decisions(code, 0) == []
    assert anas.decide("roll", anas.moment).ok  # it answers again: play on


def test_a_postgresql_server_that_stops_is_one_message_and_the_tables_resume(tmp_path):
    with postgres_server() as url:
        rooms = open_rooms(url)
        code = rooms.create(RoomSettings(**{**SHORT, "seats": 2}))
        ana = rooms.join(code, "Ana")
        rooms.start(code)
        anas = RoomTable(rooms, code, 0, ana)
        assert anas.decide("roll").ok
        decisions = len(anas.game.decisions)
    reply = anas.decide(anas.game.legal_choices()[0], anas.moment)
    assert not reply.ok and "cannot be reached" in reply.message
    assert len(anas.game.decisions) == decisions
    with pytest.raises(RoomsUnavailable, match="cannot be reached"):
        open_rooms(url)


# -- the schema ------------------------------------------------------------------------------------------
def test_migrations_bring_an_old_database_up_and_refuse_a_newer_one(database):
    store = open_store(database)
    assert store.schema_version() == SCHEMA_VERSION
    with store.transaction() as tx:
        tx.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    store.close()
    with pytest.raises(InputError, match="newer amteach"):
        open_store(database)


def test_a_bad_rooms_address_names_what_is_wrong(tmp_path):
    with pytest.raises(InputError, match="is a folder"):
        open_store(tmp_path)
    with pytest.raises(InputError, match="does not exist"):
        open_store(tmp_path / "missing" / "r.sqlite")
    with pytest.raises(InputError, match="postgresql://"):
        open_store("mysql://somewhere/db")


# -- the class's results ---------------------------------------------------------------------------------
def test_the_class_results_have_the_shape_of_simulates_frames(tmp_path):
    rooms = open_rooms(str(tmp_path / "r.sqlite"))
    code = rooms.create(RoomSettings(**{**SHORT, "tables": 2}))
    ana = rooms.join(code, "Ana")
    rooms.start(code)
    tables = [RoomTable(rooms, code, t) for t in range(2)]
    mine = RoomTable(rooms, code, 0, ana)
    brain = make_strategy("investor", seed=1)
    for _ in range(5000):
        if all(t.game.over for t in tables):
            break
        for t in tables:
            t.drive(0)
        mine.sync()
        if not mine.game.over and mine.game.actor == ana.seat:
            mine.decide(brain.choose(mine.game, mine.game.legal()))
        for t in tables:
            t.sync()
    assert all(t.game.over for t in tables)
    result = class_result(tables)
    batch = simulate(games=2, seats=None, seed=1, workers=1, round_cap=6, progress=False)
    for name in ("games", "players", "rounds", "taxes"):
        assert list(getattr(result, name).columns) == list(getattr(batch, name).columns), name
    assert len(result.games) == 2
    assert set(result.players["bot"].astype(str)) == {"student", "investor"}
    student = result.players[result.players["bot"] == "student"]
    assert list(student["tax"].astype(str)) == ["own choice"]
    rates = result.win_rates("role")
    assert rates["wins"].sum() == 2 and set(rates["games"]) == {2}
    log = decisions_frame(rooms, code, tables)
    assert len(log) == sum(len(t.game.decisions) for t in tables)
    assert set(log["made_by"]) == {"student", "bot"}
    import io
    import zipfile

    for kind in ("csv", "parquet"):
        archive = zipfile.ZipFile(io.BytesIO(class_archive(result, log, kind)))
        assert sorted(archive.namelist()) == sorted(
            f"{n}.{kind}" for n in ("games", "players", "rounds", "taxes", "decisions")
        )


# -- trust: the instructor key, seats bound to devices, names, limits, expiry (issue 22) -----------
def test_the_instructor_key_opens_the_controls_and_the_code_alone_never_does(tmp_path):
    path = tmp_path / "r.sqlite"
    rooms = open_rooms(str(path))
    key = new_key()
    assert len(base64.urlsafe_b64decode(key + "==")) * 8 >= 128
    code = rooms.create(RoomSettings(tables=1, seats=2), key=key)
    for guess in (None, "", code, key[:-1], key + "x", "x" * 10_000):
        with pytest.raises(Refused, match="instructor link"):
            rooms.check_instructor(code, guess)
    assert rooms.check_instructor(code, key).code == code
    assert rooms.check_instructor(code.lower(), f" {key} ").code == code
    with pytest.raises(Refused, match="instructor link"):  # an unknown room answers the same
        rooms.check_instructor("ZZZZZZ", key)
    # the database keeps a hash of the key, never the key
    rooms.store.close()
    assert key.encode() not in path.read_bytes()
    (stored,) = sqlite3.connect(path).execute("SELECT key_hash FROM rooms").fetchone()
    assert stored == hashlib.sha256(key.encode()).hexdigest()


def test_a_pin_is_an_extra_and_its_slow_hash_runs_outside_the_write_lock(tmp_path, monkeypatch):
    path = tmp_path / "r.sqlite"
    rooms = open_rooms(str(path))
    key = new_key()
    code = rooms.create(RoomSettings(tables=1, seats=2), pin="2468", key=key)
    with pytest.raises(Refused, match="also has a PIN"):
        rooms.check_instructor(code, key)
    with pytest.raises(Refused, match="PIN does not open"):
        rooms.check_instructor(code, key, "0000")
    with pytest.raises(Refused, match="instructor link"):  # the PIN alone opens nothing
        rooms.check_instructor(code, None, "2468")
    writable = []
    real = room_module._pin_matches

    def while_hashing(pin, stored):
        # another process takes the database's write lock at once, without waiting
        other = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            writable.append(True)
        except sqlite3.OperationalError:
            writable.append(False)
        finally:
            other.close()
        return real(pin, stored)

    monkeypatch.setattr(room_module, "_pin_matches", while_hashing)
    assert rooms.check_instructor(code, key, "2468").code == code
    for _ in range(5):
        with pytest.raises(Refused):
            rooms.check_instructor(code, key, "9999")
    assert writable == [True] * 6
    # wrong PINs change nothing in the room: nobody is locked out by them
    assert rooms.check_instructor(code, key, "2468").code == code
    assert rooms.store.query("SELECT pin_failures, pin_locked_until FROM rooms") == [(0, None)]


def test_a_page_that_guesses_waits_and_no_other_page_does():
    moment = [0.0]
    guesser, instructor = (Window(KEY_TRIES, 60, clock=lambda: moment[0]) for _ in range(2))
    for _ in range(KEY_TRIES):
        guesser.check("Too many.")
        guesser.add()
    with pytest.raises(Refused, match=r"Too many\. Try again in 60 seconds"):
        guesser.check("Too many.")
    instructor.check("Too many.")  # a page of its own: untouched
    moment[0] = 59.5
    with pytest.raises(Refused, match=r"Try again in 1 second\."):
        guesser.check("Too many.")
    moment[0] = 60.0
    guesser.check("Too many.")


def test_a_seat_belongs_to_the_device_that_joined_not_to_a_typed_name(database):
    rooms = open_rooms(database)
    code = rooms.create(RoomSettings(tables=2, seats=3))
    ana = rooms.join(code, "Ana")
    assert ana.token and len(ana.token) >= 22 and ana.key == room_module.digest(ana.token)
    for typed in ("Ana", "ANA", " ana ", "Ａｎａ"):  # the same name, typed on another device
        with pytest.raises(Refused, match="Ana is already taken in this class by another device"):
            rooms.join(code, typed)
    for alike in ("Аna", "АNА", "Anа"):  # Cyrillic А/а: looks the same, is not
        with pytest.raises(Refused, match="looks too much like Ana's"):
            rooms.join(code, alike)
    # a reload comes back with the token, whatever it types
    again = rooms.join(code, "", token=ana.token)
    assert again.returned and (again.table, again.seat, again.name) == (ana.table, ana.seat, "Ana")
    assert rooms.rejoin(code, ana.token).seat == ana.seat
    with pytest.raises(Refused, match="no seat in this room"):
        rooms.rejoin(code, "forged-token")
    names = [s.name for s in rooms.seats(code) if s.name]
    assert names == ["Ana"]  # one seat, whatever was tried
    # seats hold a hash of the token, never the token
    rows = rooms.store.query("SELECT token_hash FROM seats WHERE name IS NOT NULL")
    assert rows == [(ana.key,)] and ana.token not in ana.key


def test_names_are_normalised_and_invisible_or_bidi_characters_refused(tmp_path):
    rooms = open_rooms(str(tmp_path / "r.sqlite"))
    code = rooms.create(RoomSettings(tables=2, seats=6))
    refused = {
        "\u3164": "cannot be seen",  # HANGUL FILLER: a name that looks like nothing
        "Ana\u3164": "cannot be seen",
        "A\u200bna": "cannot be seen",  # zero-width space
        "\u202eanA": "cannot be seen",  # right-to-left override
        "Ana\u2066x": "cannot be seen",  # a bidi isolate
        "An\x07a": "cannot be seen",  # a control character
        "Ana\nBen": "cannot be seen",
        "\u2800": "cannot be seen",  # braille blank
        "...": "at least one letter",
        "x" * 25: "at most 24",
        "Bot 3": "kept for the bots",
        "Вot 3": "kept for the bots",  # Cyrillic В
        "BOT 3": "kept for the bots",
    }
    for name, says in refused.items():
        with pytest.raises(Refused, match=says):
            rooms.join(code, name)
    assert [s.name for s in rooms.seats(code) if s.name] == []
    seat = rooms.join(code, "  Ｍａｒｉａ   José ")  # NFKC: full-width letters, spaces collapsed
    assert seat.name == "Maria José"
    assert rooms.join(code, "x" * 24).name == "x" * 24
    assert clean_name("Zoë") == "Zoë" and skeleton("Zoë") != skeleton("Zoe")


def test_the_instructor_frees_a_seat_or_moves_it_to_a_new_device(database):
    rooms = open_rooms(database)
    code = rooms.create(RoomSettings(**{**SHORT, "seats": 2}))
    ana, ben = rooms.join(code, "Ana"), rooms.join(code, "Ben")
    rooms.start(code)
    anas = RoomTable(rooms, code, 0, ana)
    # a new phone for Ana: the seat waits for its one-time code; her old device can no
    # longer play, and no typed name takes the seat, not even her own
    move = rooms.move_seat(code, 0, ana.seat)
    assert len(move) == 6 and move.isdigit()
    assert not rooms.holds(ana)
    assert not anas.decide("roll").ok
    with pytest.raises(Refused, match="no seat"):
        rooms.rejoin(code, ana.token)
    with pytest.raises(Refused, match="looks too much like Ana"):
        rooms.join(code, "Аna")
    for typed in ("Ana", "ana", "ANA"):
        with pytest.raises(Refused, match="type the 6-digit move code"):
            rooms.join(code, typed)
    phone = rooms.claim_moved(code, move)
    assert (phone.seat, phone.name, phone.returned) == (ana.seat, "Ana", True)
    assert phone.token != ana.token and rooms.holds(phone)
    with pytest.raises(Refused, match="does not open any seat"):  # the code worked once
        rooms.claim_moved(code, move)
    with pytest.raises(Refused, match="already taken"):
        rooms.join(code, "Ana")
    # Ben is removed: his seat is free (a bot plays it) and a new student can take it
    rooms.remove(code, 0, ben.seat)
    assert not rooms.holds(ben)
    row = rooms.seats(code)[ben.seat]
    assert (row.name, row.playing) == (None, "bot")
    cleo = rooms.join(code, "Cleo")
    assert cleo.seat == ben.seat and rooms.join(code, "", token=cleo.token).seat == ben.seat
    with pytest.raises(Refused, match="no seat"):
        rooms.rejoin(code, ben.token)


def test_joins_are_limited_per_room(tmp_path, monkeypatch):
    monkeypatch.setattr(room_module, "ROOM_JOINS_PER_MINUTE", 3)
    rooms = open_rooms(str(tmp_path / "r.sqlite"))
    code = rooms.create(RoomSettings(tables=2, seats=4))
    for name in ("A1", "A2", "A3"):
        rooms.join(code, name)
    with pytest.raises(Refused, match="Many students are joining this room right now"):
        rooms.join(code, "A4")
    with rooms.store.transaction() as tx:  # a minute later
        tx.execute("UPDATE seats SET joined_at = joined_at - 61")
    assert rooms.join(code, "A4").name == "A4"


def test_a_closed_class_can_be_reopened_and_its_timer_did_not_run(database):
    rooms = open_rooms(database)
    code = rooms.create(RoomSettings(tables=1, seats=2, minutes=30))
    ana = rooms.join(code, "Ana")
    rooms.start(code)
    left = rooms.info(code).seconds_left()
    rooms.close(code)
    assert rooms.info(code).status == "ended"
    with pytest.raises(Refused, match="class has ended"):
        rooms.join(code, "Ben")
    with pytest.raises(Refused, match="class has ended"):
        rooms.rejoin(code, ana.token)
    with rooms.store.transaction() as tx:  # closed for ten minutes
        tx.execute("UPDATE rooms SET closed_at = closed_at - 600")
    rooms.reopen(code)
    info = rooms.info(code)
    assert info.status == "playing" and info.closed_at is None
    assert info.seconds_left() >= left - 5  # the ten minutes closed did not count
    assert rooms.rejoin(code, ana.token).seat == ana.seat


def test_rooms_expire_with_their_data_after_the_keeping_time(tmp_path, monkeypatch):
    monkeypatch.setenv(room_module.KEEP_DAYS_ENV, "2")
    rooms = open_rooms(str(tmp_path / "r.sqlite"))
    assert rooms.keep_days == 2
    settings = RoomSettings(**{**SHORT, "seats": 2})
    old, closed_lately, fresh = (rooms.create(settings) for _ in range(3))
    for code in (old, closed_lately):
        rooms.join(code, "Ana")
        rooms.start(code)
        RoomTable(rooms, code, 0).drive(0)
    rooms.close(closed_lately)
    with rooms.store.transaction() as tx:
        tx.execute("UPDATE rooms SET created = created - 3 * 86400 WHERE code <> ?", (fresh,))
    assert rooms.purge() == 1  # the room closed a moment ago is kept (it can be reopened)
    for table in ("rooms", "seats", "decisions"):
        column = "code" if table == "rooms" else "room"
        left = {c for (c,) in rooms.store.query(f"SELECT DISTINCT {column} FROM {table}")}
        assert old not in left and (table == "decisions" or fresh in left)
    assert rooms.purge(at=time.time() + 3601) == 1  # an hour after closing, it goes too
    monkeypatch.setenv(room_module.KEEP_DAYS_ENV, "soon")
    with pytest.raises(InputError, match="AMTEACH_ROOMS_KEEP_DAYS"):
        open_rooms(str(tmp_path / "r.sqlite"))


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised():
    frame = pd.DataFrame(
        {
            "name": ['=HYPERLINK("//x.ru","a")', "+1", "-2", "@SUM(A1)", "\tx", "\rx", "Ana"],
            "cash": [-5, 1, 2, 3, 4, 5, 6],
        }
    )
    safe = spreadsheet_safe(frame)
    assert list(safe["name"]) == [
        '\'=HYPERLINK("//x.ru","a")',
        "'+1",
        "'-2",
        "'@SUM(A1)",
        "'\tx",
        "'\rx",
        "Ana",
    ]
    assert list(safe["cash"]) == [-5, 1, 2, 3, 4, 5, 6]  # numbers are not formulas
    assert frame["name"][0].startswith("=")  # the frame itself is left as it was


def test_a_database_of_the_first_schema_is_brought_up_to_date(tmp_path):
    path = tmp_path / "old.sqlite"
    old = sqlite3.connect(path, isolation_level=None)
    for statement in MIGRATIONS[0]:
        old.execute(statement)
    old.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    old.execute("INSERT INTO schema_version VALUES (1)")
    settings = RoomSettings(tables=1, seats=2).to_json()
    old.execute(
        "INSERT INTO rooms (code, created, settings, status) VALUES ('ABCDEF', ?, ?, 'lobby')",
        (time.time(), settings),
    )
    old.close()
    rooms = open_rooms(str(path))
    assert rooms.store.schema_version() == SCHEMA_VERSION == 4
    with pytest.raises(Refused):  # a room from before the keys: no key opens it from a page
        rooms.check_instructor("ABCDEF", "")
    rooms.create(RoomSettings(tables=1, seats=2), key=new_key())


def test_a_save_with_a_name_longer_than_24_characters_is_refused_naming_the_field():
    from amteach import Game
    from amteach.engine.errors import AmteachError

    game = Game.new([("Ana", "competitor"), ("Ben", "monopolist")], seed=1)
    save = json.loads(json.dumps(game.to_save()))
    save["setup"]["players"][1]["name"] = "B" * 25
    with pytest.raises(AmteachError, match=r"players\[1\]\.name.*at most 24|at most 24.*players"):
        Game.from_save(save, "class.json")
    save["setup"]["players"][1]["name"] = "B" * 24
    assert Game.from_save(save, "class.json").names[1] == "B" * 24
    with pytest.raises(AmteachError, match="at most 24"):
        Game.new([("A" * 25, "competitor"), ("Ben", "monopolist")], seed=1)


def test_reads_take_no_write_lock_so_a_writer_never_holds_up_a_page(tmp_path, monkeypatch):
    monkeypatch.setattr(SQLiteStore, "busy_seconds", 0)  # a lock would be an error at once
    path = tmp_path / "r.sqlite"
    rooms = open_rooms(str(path))
    key = new_key()
    code = rooms.create(RoomSettings(tables=1, seats=2), pin="2468", key=key)
    ana = rooms.join(code, "Ana")
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another kernel is writing
    try:
        assert rooms.info(code).code == code
        assert [s.name for s in rooms.seats(code) if s.name] == ["Ana"]
        assert rooms.check_instructor(code, key, "2468").code == code
        assert rooms.holds(ana) and rooms.decisions(code, 0) == []
        with pytest.raises(RoomsUnavailable):  # while a write does wait for it
            rooms.heartbeat(ana)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
