"""Class play's pages without a browser: the instructor's Class tab (widgets) and students'
phones, handed straight to the server's `Hub` as its websocket would hand them, in one
process, sharing a SQLite class database; and the command line's --rooms.
(tests/test_class_browser.py plays the same through the served dashboard in Chromium.)"""

from __future__ import annotations

import csv
import html
import io
import re
import zipfile

import pandas as pd
import pytest
from click.testing import CliRunner
from phone_client import HubPhone

from amteach.cli import main
from amteach.rooms import SERVER_DRIVES_ENV, Refused, open_rooms
from amteach.rooms.hub import Hub
from amteach.ui.class_tab import ClassTab
from amteach.ui.dashboard import Dashboard, show_page
from amteach.ui.live import join_link, room_in_query

XSS = "<img src=x onerror=f()>"


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """The server's side of class play, with a connection of its own (as `amteach dashboard`
    holds); the Class tab then leaves the bots to it, as under the server."""
    monkeypatch.setenv(SERVER_DRIVES_ENV, "1")
    held = Hub(open_rooms(str(tmp_path / "class.sqlite")))
    yield held
    held.close()


@pytest.fixture
def room(tmp_path, hub):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    tab = ClassTab(rooms)
    tab.table_count.value, tab.seat_count.value = 1, 3
    tab.ending.value, tab.round_cap.value = "A", 5
    assert tab.open_class(), tab.messages.widget.value
    return rooms, tab


def phone(hub: Hub, tab: ClassTab, device: str = "phone") -> HubPhone:
    """A student's light page, opened from the join link: the server sends the join form."""
    page = HubPhone(hub, device)
    page.send(type="hello", room=tab.code)
    return page


def student(hub: Hub, tab: ClassTab, name: str) -> HubPhone:
    page = phone(hub, tab, f"{name}'s phone")
    page.send(type="join", room=tab.code, name=name)
    assert page.phone.seat is not None, page.lines()
    return page


def catch_up(*pages) -> None:
    """What the server's hub and the Class tab's ticker do: read the news, let bots move."""
    for page in pages:
        if isinstance(page, HubPhone):
            page.hub.heard(None)
            page.hub.tick()
        else:
            page.follower.news.set()
            page.tick()


def status(page: HubPhone) -> str:
    return page.parts.get("status", "")


def labels(page: HubPhone) -> list[str]:
    return [label for _, _, label in page.buttons()]


def test_a_class_opened_before_the_page_address_came_gets_its_qr_code_once_it_comes(
    tmp_path, monkeypatch
):
    # a preheated kernel learns the page's address only after the page is served
    # (serving.when_page_known); an instructor may open a class before then
    for name in ("AMTEACH_PUBLIC_URL", "VOILA_REQUEST_URL", "SERVER_NAME", "SERVER_PORT"):
        monkeypatch.delenv(name, raising=False)
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    tab = ClassTab(rooms)
    assert tab.open_class(), tab.messages.widget.value
    assert "<svg" not in tab.banner.value and f"?room={tab.code}" in tab.banner.value
    monkeypatch.setenv("VOILA_REQUEST_URL", "http://class.example:8866/")
    tab.address_known()
    assert "<svg" in tab.banner.value
    assert f"http://class.example:8866/?room={tab.code}" in tab.banner.value
    assert tab.code in tab.banner.value


def test_students_join_by_the_link_and_see_only_their_own_choices(room, hub):
    rooms, tab = room
    assert "am-room-code" in tab.banner.value and tab.code in tab.banner.value
    assert "<svg" in tab.banner.value or "?room=" in tab.banner.value
    ana, evil = student(hub, tab, "Ana"), student(hub, tab, XSS)
    catch_up(tab)
    assert "2</b> of 3 seats" in tab.grid.value
    assert XSS not in tab.grid.value and "&lt;img src=x" in tab.grid.value
    assert tab.start()
    catch_up(ana, tab)
    assert "Your turn" in status(ana)
    assert labels(ana) == ["Roll"] and labels(evil) == []
    assert "Ana&#39;s turn" in status(evil) or "Ana's turn" in status(evil)
    ana.press("Roll")
    catch_up(evil, tab)
    log = rooms.decisions(tab.code, 0)
    assert len(log) >= 1 and tab.tables[0].game.decisions[:1] == [
        tab.tables[0].game.parse_choice("roll")
    ]
    assert "Ana" in ana.parts["happened"] and ana.parts["happened"] == evil.parts["happened"]
    assert XSS not in evil.parts["players"] and XSS not in status(evil)
    assert "&lt;img src=x" in evil.parts["players"]
    assert XSS not in tab.grid.value


def test_a_stale_click_and_a_paused_room_each_get_one_polite_line(room, hub):
    rooms, tab = room
    ana = student(hub, tab, "Ana")
    tab.start()
    catch_up(ana)
    (choice, at, label), *_ = ana.buttons()
    assert label == "Roll"
    ana.send(type="choose", choice=choice, at=at)
    ana.send(type="choose", choice=choice, at=at)  # a double click: for an earlier moment
    assert "earlier moment" in ana.lines()[-1]
    assert len(rooms.decisions(tab.code, 0)) == 1
    tab.pause()
    catch_up(ana)
    assert "Paused" in status(ana) and ana.buttons() == []
    tab.resume()
    catch_up(ana)
    assert "Paused" not in status(ana)


def test_the_instructor_hands_a_seat_to_a_bot_and_the_student_takes_it_back(room, hub):
    _rooms, tab = room
    ana = student(hub, tab, "Ana")
    tab.start()
    catch_up(tab, ana)
    tab.seat_picker.value = (0, ana.phone.seat.seat)
    assert tab.hand_seat("bot")
    catch_up(ana)
    assert "Take my seat back" in ana.parts["away"]
    assert "bot is playing your seat" in status(ana)
    ana.send(type="take_back")
    assert ana.lines()[-1] == "Your seat is yours again."
    catch_up(ana)
    assert ana.parts["away"] == ""


def test_a_whole_class_game_gives_results_and_downloads_in_simulates_shape(room, hub):
    _rooms, tab = room
    ana = student(hub, tab, "Ana")
    tab.start()
    for _ in range(3000):
        catch_up(ana, tab)
        if ana.buttons():
            (choice, at, _), *_ = ana.buttons()
            ana.send(type="choose", choice=choice, at=at)
        for table in hub.tables.values():
            table.table.drive(0)  # the server's bots, without their delay
        if all(t.game.over for t in tab.tables):
            break
    assert all(t.game.over for t in tab.tables)
    assert tab.show_results() and len(tab.results.children) >= 2
    for kind in ("csv", "parquet"):
        archive = zipfile.ZipFile(io.BytesIO(tab.archive(kind)))
        games = archive.read(f"games.{kind}")
        frame = (
            pd.read_csv(io.BytesIO(games)) if kind == "csv" else pd.read_parquet(io.BytesIO(games))
        )
        assert list(frame.columns)[:3] == ["game", "seed", "winner"] and len(frame) == 1
    message = tab.downloads.children[1].file_message()
    assert message["binary"] and message["filename"].endswith(".zip")
    # issue 23: the bots beside the class stop at the round the class reached (its 5-round
    # cap), under the class's rules, not at the 200-round cap of the Who wins tab; issue 39:
    # at each table's own round (one table here), the Games slider's games for each table
    reached = int(tab.result().games["rounds"].median())
    tab.bots.games.value = 50
    tab.bots.start()
    tab.bots.wait()
    bots = tab.bots.result
    assert bots is not None, tab.bots.status.value
    assert bots.games["rounds"].max() == reached == 5
    assert bots.meta["round_caps"] == {0: 5} and (bots.games["table"] == 0).sum() == 50
    assert (bots.games["end_reason"] == "round_cap").all()
    reading = html.unescape(tab.bots.charts.children[1].value)
    assert f"the bots' at round {reached}: both were settled at about the same point" in reading


def test_a_join_link_carries_the_room_and_nothing_else():
    assert join_link("K7Q2XH", "http://10.0.0.5:8866/amteach/?x=1#top") == (
        "http://10.0.0.5:8866/amteach/?room=K7Q2XH"
    )
    assert room_in_query("room=K7Q2XH&other=1") == "K7Q2XH"
    assert room_in_query("") is None and room_in_query(None) is None


def test_the_served_page_is_the_dashboard_or_a_students_page(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AMTEACH_ROOMS", str(tmp_path / "class.sqlite"))
    shown = []
    monkeypatch.setattr("amteach.ui.dashboard.display", shown.append)
    dashboard = Dashboard()
    show_page(dashboard, "")
    assert shown == [dashboard]
    titles = [dashboard.tabs.get_title(i) for i in range(len(dashboard.tabs.children))]
    assert "Class" in titles
    # a join link outside `amteach dashboard` (Voilà's own server, a notebook): one line
    # saying where join links work, and the dashboard's widgets closed
    show_page(Dashboard(), "room=abc123")
    assert "amteach dashboard" in shown[-1].value and "join link" in shown[-1].value
    assert dashboard.app.widget.comm is None


def test_the_command_line_refuses_a_bad_class_database_with_one_line(tmp_path):
    runner = CliRunner()
    for rooms, says in (
        (str(tmp_path / "missing" / "x.sqlite"), "does not exist"),
        (str(tmp_path), "is a folder"),
        ("mysql://host/db", "postgresql://"),
    ):
        result = runner.invoke(main, ["dashboard", "--rooms", rooms])
        assert result.exit_code == 2, result.output
        assert says in result.output and "Traceback" not in result.output
    result = runner.invoke(
        main, ["dashboard", "--rooms", str(tmp_path / "ok.sqlite"), "--public-url", "ftp://x"]
    )
    assert result.exit_code == 2 and "--public-url" in result.output


# -- trust (issue 22): what a hostile student can try from their own page -------------------------
def stored(page, items=None, fragment=None) -> None:  # the Class tab's browser memory
    """What the browser sends when a page opens: its kept keys or tokens (and a link's key)."""
    page.memory._heard(
        page.memory, {"kind": "stored", "items": items or {}, "fragment": fragment or {}}, None
    )


def test_a_visitor_with_only_the_room_code_reaches_no_control(room, hub):
    rooms, tab = room
    ana = student(hub, tab, "Ana")
    mallory = ClassTab(rooms)  # the dashboard's Class tab on a student's own page
    mallory.back_code.value = tab.code
    assert not mallory.reopen()
    assert "instructor link" in mallory.messages.widget.value
    assert mallory.code is None and mallory.downloads.children == ()
    # forged clicks on every control of that page: each is refused, nothing changes
    for control in (
        mallory.start_button,
        mallory.pause_button,
        mallory.end_button,
        mallory.close_button,
        mallory.to_bot,
        mallory.remove_button,
    ):
        control.click()
        mallory.confirmed()
    mallory.code = tab.code  # a page that somehow names the room still holds no key
    assert not mallory.start() and not mallory.close_class(confirmed=True)
    assert "instructor link" in mallory.messages.widget.value
    with pytest.raises(Refused):
        mallory.archive("csv")
    assert rooms.info(tab.code).status == "lobby"
    assert [s.playing for s in rooms.seats(tab.code) if s.name] == ["student"]
    assert rooms.holds(ana.phone.seat)
    # the instructor's own page goes on
    assert tab.start() and rooms.info(tab.code).status == "playing"


def test_five_wrong_pins_slow_the_guessers_page_and_never_the_instructors(tmp_path):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    tab = ClassTab(rooms)
    tab.table_count.value, tab.seat_count.value = 1, 2
    tab.pin.value = "2468"
    assert tab.open_class()
    link = tab.secret.text
    assert tab.key in link and link.index("#") < link.index(tab.key)  # the key is in the fragment
    assert (
        tab.key not in tab.banner.value and "?room=" in tab.banner.value
    )  # never in the join link
    mallory = ClassTab(rooms)
    mallory.back_code.value = tab.code
    for guess in ("0000", "1111", "2222", "3333", "4444"):
        mallory.back_pin.value = guess
        assert not mallory.reopen()
    mallory.back_link.value, mallory.back_pin.value = link, "2468"  # even the right answer waits
    assert (
        not mallory.reopen()
        and "Too many wrong tries from this page" in mallory.messages.widget.value
    )
    # the instructor, on a second computer, with the link and the PIN: in at once
    laptop = ClassTab(rooms)
    laptop.back_link.value, laptop.back_pin.value = link, "2468"
    assert laptop.reopen(), laptop.messages.widget.value
    assert laptop.code == tab.code and laptop.start()
    assert rooms.info(tab.code).status == "playing"


def test_an_instructor_link_opens_its_class_and_the_browser_keeps_the_key(room):
    rooms, tab = room
    sent = []
    teacher = ClassTab(rooms)
    teacher.memory.send = sent.append
    stored(teacher, fragment={"code": tab.code, "key": tab.key})
    assert teacher.code == tab.code and teacher.key == tab.key
    assert {"kind": "remember", "name": tab.code, "value": tab.key} in sent
    assert teacher.secret.text == ""  # the link was shown once, on the page that opened it
    # a later visit: the kept key offers the class back
    later = ClassTab(rooms)
    stored(later, items={tab.code: tab.key, "ZZZZZZ": "forged", "<b>x</b>": "y"})
    buttons = {b.description: b for b in later.remembered.children}
    assert sorted(buttons) == sorted(f"Go back to class {c}" for c in (tab.code, "ZZZZZZ"))
    buttons[f"Go back to class {tab.code}"].click()
    assert later.code == tab.code
    # forged messages from the browser: ignored, never an error
    for junk in (None, "x", {"kind": "stored", "items": ["a"], "fragment": 5}, {"kind": 1}):
        later.memory._heard(later.memory, junk, None)


def test_close_and_time_is_up_ask_first_and_a_closed_class_reopens(tmp_path, hub):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    tab = ClassTab(rooms)
    tab.table_count.value, tab.seat_count.value, tab.ending.value = 1, 2, "two-hour"
    assert tab.open_class()
    ana = student(hub, tab, "Ana")
    tab.start()
    catch_up(tab, ana)
    assert tab.close_class() and tab.confirm.layout.display == "flex"
    assert rooms.info(tab.code).status == "playing"  # only asked
    tab.no_button.click()
    assert tab.confirm.layout.display == "none" and rooms.info(tab.code).status == "playing"
    tab.close_class()
    tab.yes_button.click()
    assert rooms.info(tab.code).status == "ended"
    catch_up(tab, ana)
    assert "class has ended" in status(ana) and ana.buttons() == []
    assert tab.reopen_button.layout.display == "flex"
    tab.reopen_button.click()
    assert rooms.info(tab.code).status == "playing"
    catch_up(tab, ana)
    tab.end()
    assert rooms.info(tab.code).seconds_left() > 60
    tab.yes_button.click()
    assert rooms.info(tab.code).seconds_left() == 0
    catch_up(tab, ana)
    assert "Time is up" in status(ana) or "final accounting" in status(ana)
    assert "Time is up" in tab.grid.value


def test_a_reload_rejoins_the_same_seat_by_its_token_never_by_the_name(room, hub):
    rooms, tab = room
    ana = student(hub, tab, "Ana")
    (seated,) = [m for m in ana.received if m["type"] == "seated"]
    token = seated["token"]
    assert seated["room"] == tab.code and rooms.holds(ana.phone.seat)
    # another device types her name: refused with one clear line, no seat
    other = phone(hub, tab, "another device")
    other.send(type="join", room=tab.code, name="ANA")
    assert "already taken in this class by another device" in other.lines()[-1]
    assert other.phone.seat is None
    # Ana reloads: a new page whose browser hands over the token it kept
    reloaded = HubPhone(hub, "Ana's phone")
    reloaded.send(type="hello", room=tab.code, token=token)
    assert reloaded.phone.seat is not None and reloaded.phone.seat.seat == ana.phone.seat.seat
    assert "Welcome back, Ana" in reloaded.received[0]["text"]
    # a forged token gets nothing but the form (and the page forgets it)
    forger = HubPhone(hub, "forger")
    forger.send(type="hello", room=tab.code, token="x" * 24)
    assert forger.phone.seat is None
    assert [m["type"] for m in forger.received] == ["forget", "form"]
    assert [s.name for s in rooms.seats(tab.code) if s.name] == ["Ana"]


def test_one_page_holds_one_seat_and_cannot_flood_joins(tmp_path, hub):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    tab = ClassTab(rooms)
    tab.table_count.value, tab.seat_count.value = 2, 3
    assert tab.open_class()
    flood = phone(hub, tab, "flood")
    for n in range(20):
        flood.send(type="join", room=tab.code, name=f"Sock {n}")
    assert [s.name for s in rooms.seats(tab.code) if s.name] == ["Sock 0"]
    assert all("One seat per page" in line for line in flood.lines()[1:])
    # a page that never got a seat is limited too (joins per device)
    typo = phone(hub, tab, "typo")
    for n in range(10):
        typo.send(type="join", room=tab.code, name="\u3164" if n < 9 else "Ben")
    assert "Too many tries" in typo.lines()[-1] and typo.phone.seat is None
    # real students still join
    assert student(hub, tab, "Ana").phone.seat is not None


def test_the_instructor_removes_a_student_and_the_seat_is_free(room, hub):
    rooms, tab = room
    ana, ben = student(hub, tab, "Ana"), student(hub, tab, "Ben")
    catch_up(tab)
    bens_seat = ben.phone.seat
    tab.seat_picker.value = (0, bens_seat.seat)
    assert tab.remove_student() and rooms.holds(bens_seat)  # asks first
    tab.yes_button.click()
    assert not rooms.holds(bens_seat)
    hub.presence()  # the server's next check that its phones are here
    assert ben.phone.seat is None and [m["type"] for m in ben.received[-3:]] == [
        "forget",
        "form",
        "message",
    ]
    assert "given your seat to someone else" in ben.lines()[-1]
    cleo = student(hub, tab, "Cleo")
    assert cleo.phone.seat.seat == bens_seat.seat
    assert sorted(s.name for s in rooms.seats(tab.code) if s.name) == ["Ana", "Cleo"]
    # Ana's phone breaks: her seat moves to a new device by a one-time code shown big on
    # the instructor's page; her name alone no longer takes it
    anas_seat = ana.phone.seat
    tab.seat_picker.value = (0, anas_seat.seat)
    assert tab.move_student()
    digits = re.search(r"am-move-digits[^>]*>(\d{3}) (\d{3})<", tab.move_code.value)
    assert digits and tab.move_box.layout.display == "flex"
    typed = phone(hub, tab, "typed")
    typed.send(type="join", room=tab.code, name="Ana")
    assert "move code" in typed.lines()[-1] and typed.phone.seat is None
    new_phone = phone(hub, tab, "Ana's new phone")
    new_phone.send(type="claim", room=tab.code, code=" ".join(digits.groups()))
    assert new_phone.phone.seat.seat == anas_seat.seat
    assert "Welcome back, Ana" in new_phone.received[-2]["text"]
    hub.presence()
    assert ana.phone.seat is None  # the old phone lost it
    again = phone(hub, tab, "again")  # the code worked once
    again.send(type="claim", room=tab.code, code="".join(digits.groups()))
    assert "does not open any seat" in again.lines()[-1]
    # typed in the name box, a move code is a move code too
    tab.seat_picker.value = (0, cleo.phone.seat.seat)
    assert tab.move_student()
    digits = re.search(r"am-move-digits[^>]*>(\d{3}) (\d{3})<", tab.move_code.value)
    boxed = phone(hub, tab, "Cleo's new phone")
    boxed.send(type="join", room=tab.code, name="".join(digits.groups()))
    assert boxed.phone.seat is not None and boxed.phone.seat.name == "Cleo"


def test_the_class_csv_never_holds_a_formula(room, hub):
    _rooms, tab = room
    hostile = student(hub, tab, '=HYPERLINK("//x.ru","a")')
    student(hub, tab, "@cmd")
    tab.start()
    catch_up(hostile, tab)
    hostile.press("Roll")
    catch_up(tab)
    archive = zipfile.ZipFile(io.BytesIO(tab.archive("csv")))
    for name in archive.namelist():
        for row in csv.reader(io.StringIO(archive.read(name).decode())):
            assert not any(cell.startswith(("=", "+", "@", "\t", "\r")) for cell in row), row
    decisions = pd.read_csv(io.BytesIO(archive.read("decisions.csv")), dtype=str)
    assert decisions["name"][0] == '\'=HYPERLINK("//x.ru","a")'
    # the Parquet download keeps the name as it is (it is data, not a spreadsheet)
    parquet = zipfile.ZipFile(io.BytesIO(tab.archive("parquet")))
    frame = pd.read_parquet(io.BytesIO(parquet.read("decisions.parquet")))
    assert frame["name"][0] == '=HYPERLINK("//x.ru","a")'
