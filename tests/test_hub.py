"""The server's class play without a network (issue 36): the `Hub` that holds every table's
session, fed phone messages as the websocket would feed them, and what it sends back. The
same hub behind a real server, websockets and limits at the door: tests/test_phones.py."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from phone_client import Clock, HubPhone

from amteach.rooms import BOT, RoomSettings, open_rooms
from amteach.rooms.hub import Hub, PhoneLimits
from amteach.rooms.phone_view import PARTS


@pytest.fixture
def class_room(tmp_path):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    code = rooms.create(
        RoomSettings(tables=2, seats=3, ending="A", round_cap=5, bot_delay=0, seed=3)
    )
    clock = Clock()
    hub = Hub(rooms, PhoneLimits(joins_per_device=3, joins_per_address=5), clock=clock)
    yield rooms, code, hub, clock
    hub.close()


def seated(hub: Hub, code: str, name: str, address: str = "10.0.0.1") -> HubPhone:
    phone = HubPhone(hub, name, address)
    phone.send(type="hello", room=code)
    phone.send(type="join", room=code, name=name)
    assert phone.phone.seat is not None, phone.lines()
    return phone


def test_a_class_plays_whole_games_on_the_server_and_each_phone_sees_only_its_own_choices(
    class_room,
):
    rooms, code, hub, clock = class_room
    ana, ben = seated(hub, code, "Ana"), seated(hub, code, "Ben")
    assert "Waiting for your teacher" in ana.parts["status"]
    assert "Ana" in ana.parts["status"] and ana.parts["choices"] == ""
    rooms.start(code)
    hub.heard(None)
    for _ in range(2000):
        clock.now += 1
        hub.tick()
        for phone in (ana, ben):
            phone.press_first()
        if all("Game over" in p.parts["status"] for p in (ana, ben)):
            break
    assert all("Game over" in p.parts["status"] for p in (ana, ben))
    assert not [line for p in (ana, ben) for line in p.lines() if "went wrong" in line]
    # every view a phone got names its own seat, and choices came only on its own turn
    for phone, name in ((ana, "Ana"), (ben, "Ben")):
        assert f"<b>{name}</b>" in phone.parts["status"]
        assert set(phone.parts) == set(PARTS)
    decisions = {t: rooms.decisions(code, t) for t in range(2)}
    by_student = [d for t in decisions.values() for d in t if d[3] == "student"]
    assert by_student, "the students decided for their own seats"
    seats_of = {0: ana.phone.seat.seat, 1: ben.phone.seat.seat}
    tables_of = {ana.phone.seat.table: 0, ben.phone.seat.table: 1}
    for table, log in decisions.items():
        mine = seats_of[tables_of[table]]
        assert all(seat == mine for _, _, seat, by in log if by == "student")


def test_a_phone_that_presses_an_old_button_or_forges_a_choice_changes_nothing(class_room):
    rooms, code, hub, clock = class_room
    ana = seated(hub, code, "Ana")
    rooms.start(code)
    hub.heard(None)
    for _ in range(200):
        clock.now += 1
        hub.tick()
        if ana.buttons():
            break
    choice, at, _ = ana.buttons()[0]
    before = len(rooms.decisions(code, ana.phone.seat.table))
    ana.send(type="choose", choice=choice, at=at - 1)  # a double click: an older moment
    assert "earlier moment" in ana.lines()[-1]
    ana.send(type="choose", choice={"build": 39}, at=at)  # not a legal choice now
    assert ana.lines()[-1].startswith("That is not allowed now")
    ana.send(type="choose", choice="end_game", at=at)  # only the teacher's timer ends it
    assert "timer" in ana.lines()[-1]
    assert len(rooms.decisions(code, ana.phone.seat.table)) == before


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    message=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=300),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=12,
    )
    | st.fixed_dictionaries(
        {"type": st.sampled_from(["hello", "join", "claim", "choose", "take_back", "x"])},
        optional={
            "room": st.just("THE-CODE") | st.text(max_size=300) | st.integers(),
            "name": st.text(max_size=300) | st.none(),
            "token": st.text(max_size=300),
            "choice": st.text(max_size=20)
            | st.integers()
            | st.dictionaries(st.text(max_size=6), st.integers()),
            "at": st.integers() | st.text(max_size=3),
            "code": st.text(max_size=20),
        },
    )
)
def test_any_message_a_student_can_forge_gets_at_most_one_plain_line(class_room, message):
    # the invariant: whatever arrives, the hub answers in plain lines (never a traceback or
    # a path) and never seats a phone without a room's code and a name
    _rooms, code, hub, _clock = class_room
    phone = HubPhone(hub, "forger")
    if isinstance(message, dict) and message.get("room") == "THE-CODE":
        message = {**message, "room": code}  # the room's real code, as a student has it
    hub.receive(phone.phone, message)
    if phone.phone.seat is not None:
        assert message["type"] == "join" and message["room"] == code
        assert isinstance(message.get("name"), str) and message["name"].strip()
    for line in phone.lines():
        assert "Traceback" not in line and "/work" not in line and "File " not in line
        assert "went wrong" not in line, line  # no bug of ours was reached
    assert len([m for m in phone.received if m["type"] == "message"]) <= 1


def test_one_page_holds_one_seat_and_joins_are_limited_per_device_and_per_address(class_room):
    rooms, code, hub, _clock = class_room
    ana = seated(hub, code, "Ana")
    ana.send(type="join", room=code, name="Ana2")
    assert "One seat per page" in ana.lines()[-1]
    # a script that hoards seats under new names from one device, then from one address
    script = HubPhone(hub, "script")
    for n in range(3):
        script.phone.seat = None  # a new page each time
        script.send(type="join", room=code, name=f"Hoarder {n}")
    script.phone.seat = None
    script.send(type="join", room=code, name="Hoarder 9")
    assert "Too many tries to join from this device" in script.lines()[-1]
    held = 0
    for n in range(10):
        page = HubPhone(hub, f"cookie-{n}", address="10.0.0.1")  # fresh device cookies
        page.send(type="join", room=code, name=f"Other {n}")
        held += page.phone.seat is not None
    # joins_per_address is 5 a minute: Ana, three hoarder joins, and one more
    assert held == 1
    students = [row for row in rooms.seats(code) if row.name is not None]
    assert len(students) == 5
    # another network is not held up by this one
    assert seated(hub, code, "Dee", address="10.0.0.2").phone.seat is not None


def test_a_seat_the_teacher_frees_returns_the_phone_to_the_form_and_a_reload_rejoins(
    class_room,
):
    rooms, code, hub, clock = class_room
    ana = seated(hub, code, "Ana")
    token = next(m["token"] for m in ana.received if m["type"] == "seated")
    hub.disconnect(ana.phone)  # the tab closed, without a goodbye
    assert ana.phone not in hub.phones
    again = HubPhone(hub, "Ana")  # the same device reloads its page
    again.send(type="hello", room=code, token=token)
    assert again.phone.seat is not None and "Welcome back, Ana" in again.received[0]["text"]
    seat = again.phone.seat
    rooms.remove(code, seat.table, seat.seat)
    clock.now += 10
    hub.tick()
    assert again.phone.seat is None
    assert [m["type"] for m in again.received[-3:]] == ["forget", "form", "message"]
    assert "given your seat to someone else" in again.lines()[-1]


def test_a_phone_that_goes_leaves_nothing_behind_in_the_hub(class_room):
    rooms, code, hub, clock = class_room
    phones = [seated(hub, code, name) for name in ("Ana", "Ben", "Cy", "Dee")]
    rooms.start(code)
    hub.heard(None)
    clock.now += 1
    hub.tick()
    assert sum(len(held.phones) for held in hub.tables.values()) == 4
    for phone in phones:
        hub.disconnect(phone.phone)
    assert not hub.phones
    assert all(not held.phones for held in hub.tables.values())
    # the tables play on with nobody watching: the server drives their bots (here the
    # teacher hands the students' seats to bots, as the Bot after time would)
    decisions = sum(len(h.table.game.decisions) for h in hub.tables.values())
    for phone in phones:
        seat = phone.phone.seat
        rooms.set_playing(code, seat.table, seat.seat, BOT)
    hub.heard(code)
    for _ in range(50):
        clock.now += 1
        hub.tick()
    assert sum(len(h.table.game.decisions) for h in hub.tables.values()) > decisions


def test_join_counts_of_clients_gone_quiet_are_forgotten(class_room):
    # a script that drops its cookie is a new device at every join: the hub's memory of the
    # join windows stays bounded by the last minute's clients
    _rooms, code, hub, clock = class_room
    for n in range(20):
        HubPhone(hub, f"script-{n}", address=f"10.1.0.{n}").send(
            type="join", room=code, name=f"Sock {n}"
        )
    assert len(hub.device_joins) == 20 and len(hub.address_joins) == 20
    clock.now += 61
    hub.tick()  # the survey
    assert hub.device_joins == {} and hub.address_joins == {}
