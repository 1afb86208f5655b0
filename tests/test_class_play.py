"""Class play's pages without a browser: the instructor's Class tab and students' pages as
widgets in one process, sharing a SQLite class database; and the command line's --rooms.
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

from amteach.cli import main
from amteach.rooms import Refused, open_rooms
from amteach.ui.class_tab import ClassTab
from amteach.ui.dashboard import Dashboard, show_page
from amteach.ui.live import join_link, room_in_query
from amteach.ui.student import StudentPage

XSS = "<img src=x onerror=f()>"


@pytest.fixture
def room(tmp_path):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    tab = ClassTab(rooms)
    tab.table_count.value, tab.seat_count.value = 1, 3
    tab.ending.value, tab.round_cap.value = "A", 5
    assert tab.open_class(), tab.messages.widget.value
    return rooms, tab


def student(rooms, tab, name: str) -> StudentPage:
    page = StudentPage(tab.code, rooms)
    page.name.value = name
    assert page.join(), page.messages.widget.value
    return page


def catch_up(*pages) -> None:
    """What the kernels' tickers do: read the news and let the bots move."""
    for page in pages:
        page.follower.news.set()
        page.tick()


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


def test_students_join_by_the_link_and_see_only_their_own_choices(room):
    rooms, tab = room
    assert "am-room-code" in tab.banner.value and tab.code in tab.banner.value
    assert "<svg" in tab.banner.value or "?room=" in tab.banner.value
    ana, evil = student(rooms, tab, "Ana"), student(rooms, tab, XSS)
    catch_up(tab)
    assert "2</b> of 3 seats" in tab.grid.value
    assert XSS not in tab.grid.value and "&lt;img src=x" in tab.grid.value
    assert tab.start()
    catch_up(ana, evil, tab)
    assert "Your turn" in ana.status.value
    assert list(ana.buttons()) == ["Roll"] and evil.buttons() == {}
    assert "Ana&#39;s turn" in evil.status.value or "Ana's turn" in evil.status.value
    ana.buttons()["Roll"].click()
    catch_up(evil, tab)
    assert ana.table.game.decisions == evil.table.game.decisions == tab.tables[0].game.decisions
    assert XSS not in evil.players.value and XSS not in evil.status.value
    assert XSS not in tab.grid.value


def test_a_stale_click_and_a_paused_room_each_get_one_polite_line(room):
    rooms, tab = room
    ana = student(rooms, tab, "Ana")
    tab.start()
    catch_up(ana)
    stale = ana.buttons()["Roll"]
    stale.click()
    stale.click()  # a double click: the second is for an earlier moment
    assert "earlier moment" in ana.messages.widget.value
    assert len(ana.table.game.decisions) == 1
    tab.pause()
    catch_up(ana)
    assert "Paused" in ana.status.value and ana.buttons() == {}
    tab.resume()
    catch_up(ana)
    assert "Paused" not in ana.status.value


def test_the_instructor_hands_a_seat_to_a_bot_and_the_student_takes_it_back(room):
    rooms, tab = room
    ana = student(rooms, tab, "Ana")
    tab.start()
    catch_up(tab, ana)
    tab.seat_picker.value = (0, ana.seat.seat)
    assert tab.hand_seat("bot")
    catch_up(ana)
    assert ana.take_back_button.layout.display == "flex"
    assert "bot is playing your seat" in ana.status.value
    assert ana.take_back()
    catch_up(ana)
    assert ana.take_back_button.layout.display == "none"


def test_a_whole_class_game_gives_results_and_downloads_in_simulates_shape(room):
    rooms, tab = room
    ana = student(rooms, tab, "Ana")
    tab.start()
    for _ in range(3000):
        catch_up(ana, tab)
        if ana.buttons():
            next(iter(ana.buttons().values())).click()
        for table in tab.tables:
            table.drive(0)
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
    # cap), under the class's rules, not at the 200-round cap of the Who wins tab
    reached = int(tab.result().games["rounds"].median())
    tab.bots.games.value = 50
    tab.bots.start()
    tab.bots.wait()
    bots = tab.bots.result
    assert bots is not None, tab.bots.status.value
    assert bots.games["rounds"].max() == reached == 5
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
    show_page(Dashboard(), "room=abc123")
    assert "am-student" in shown[-1]._dom_classes
    assert dashboard.app.widget.comm is None  # the dashboard's widgets were closed


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
def stored(page, items=None, fragment=None) -> None:
    """What the browser sends when a page opens: its kept keys or tokens (and a link's key)."""
    page.memory._heard(
        page.memory, {"kind": "stored", "items": items or {}, "fragment": fragment or {}}, None
    )


def test_a_visitor_with_only_the_room_code_reaches_no_control(room):
    rooms, tab = room
    ana = student(rooms, tab, "Ana")
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
    assert rooms.holds(ana.seat)
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


def test_close_and_time_is_up_ask_first_and_a_closed_class_reopens(tmp_path):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    tab = ClassTab(rooms)
    tab.table_count.value, tab.seat_count.value, tab.ending.value = 1, 2, "two-hour"
    assert tab.open_class()
    ana = student(rooms, tab, "Ana")
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
    assert "class has ended" in ana.status.value and ana.buttons() == {}
    assert tab.reopen_button.layout.display == "flex"
    tab.reopen_button.click()
    assert rooms.info(tab.code).status == "playing"
    catch_up(tab, ana)
    tab.end()
    assert rooms.info(tab.code).seconds_left() > 60
    tab.yes_button.click()
    assert rooms.info(tab.code).seconds_left() == 0
    catch_up(tab, ana)
    assert "Time is up" in ana.status.value or "final accounting" in ana.status.value
    assert "Time is up" in tab.grid.value


def test_a_reload_rejoins_the_same_seat_by_its_token_never_by_the_name(room):
    rooms, tab = room
    sent = []
    ana = StudentPage(tab.code, rooms)
    ana.memory.send = sent.append
    ana.name.value = "Ana"
    assert ana.join()
    (remember,) = [m for m in sent if m["kind"] == "remember"]
    assert remember["name"] == tab.code and rooms.holds(ana.seat)
    # another device types her name: refused with one clear line, no seat
    other = StudentPage(tab.code, rooms)
    other.name.value = "ANA"
    assert not other.join() and "already taken in this class by another device" in (
        other.messages.widget.value
    )
    assert other.seat is None
    # Ana reloads: a new page (a new kernel) whose browser hands over the token
    reloaded = StudentPage(tab.code, rooms)
    stored(reloaded, items={tab.code: remember["value"]})
    assert reloaded.seat is not None and reloaded.seat.seat == ana.seat.seat
    assert "Welcome back, Ana" in reloaded.messages.widget.value
    # a forged token gets nothing
    forger = StudentPage(tab.code, rooms)
    stored(forger, items={tab.code: "x" * 24})
    assert forger.seat is None and forger.form.layout.display != "none"
    assert [s.name for s in rooms.seats(tab.code) if s.name] == ["Ana"]


def test_one_page_holds_one_seat_and_cannot_flood_joins(tmp_path):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    tab = ClassTab(rooms)
    tab.table_count.value, tab.seat_count.value = 2, 3
    assert tab.open_class()
    flood = StudentPage(tab.code, rooms)
    replies = []
    for n in range(20):
        flood.name.value = f"Sock {n}"
        flood.join()
        replies.append(flood.messages.widget.value)
    assert [s.name for s in rooms.seats(tab.code) if s.name] == ["Sock 0"]
    assert all("One seat per page" in r for r in replies[1:])
    # a page that never got a seat is limited too
    typo = StudentPage(tab.code, rooms)
    for n in range(10):
        typo.name.value = "\u3164" if n < 9 else "Ben"
        typo.join()
    assert "Too many tries" in typo.messages.widget.value and typo.seat is None
    # real students still join
    assert student(rooms, tab, "Ana").seat is not None


def test_the_instructor_removes_a_student_and_the_seat_is_free(room):
    rooms, tab = room
    ana, ben = student(rooms, tab, "Ana"), student(rooms, tab, "Ben")
    catch_up(tab)
    bens_seat = ben.seat.seat
    tab.seat_picker.value = (0, bens_seat)
    assert tab.remove_student() and rooms.holds(ben.seat)  # asks first
    tab.yes_button.click()
    assert not rooms.holds(ben.seat)
    ben.check_in()  # his page's next heartbeat
    assert ben.seat is None and ben.form.layout.display == "flex"
    assert "given your seat to someone else" in ben.messages.widget.value
    cleo = student(rooms, tab, "Cleo")
    assert cleo.seat.seat == bens_seat
    assert sorted(s.name for s in rooms.seats(tab.code) if s.name) == ["Ana", "Cleo"]
    # Ana's phone breaks: her seat moves to a new device by a one-time code shown big on
    # the instructor's page; her name alone no longer takes it
    tab.seat_picker.value = (0, ana.seat.seat)
    assert tab.move_student()
    digits = re.search(r"am-move-digits[^>]*>(\d{3}) (\d{3})<", tab.move_code.value)
    assert digits and tab.move_box.layout.display == "flex"
    typed = StudentPage(tab.code, rooms)
    typed.name.value = "Ana"
    assert not typed.join() and "move code" in typed.messages.widget.value
    phone = student(rooms, tab, " ".join(digits.groups()))  # typed in the name box
    assert phone.seat.seat == ana.seat.seat and "Welcome back, Ana" in phone.messages.widget.value
    ana.check_in()
    assert ana.seat is None
    again = StudentPage(tab.code, rooms)  # the code worked once
    again.name.value = "".join(digits.groups())
    assert not again.join() and "does not open any seat" in again.messages.widget.value


def test_the_class_csv_never_holds_a_formula(room):
    rooms, tab = room
    hostile = student(rooms, tab, '=HYPERLINK("//x.ru","a")')
    student(rooms, tab, "@cmd")
    tab.start()
    catch_up(hostile, tab)
    hostile.buttons()["Roll"].click()
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
