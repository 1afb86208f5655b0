"""Class play's pages without a browser: the instructor's Class tab and students' pages as
widgets in one process, sharing a SQLite class database; and the command line's --rooms.
(tests/test_class_browser.py plays the same through the served dashboard in Chromium.)"""

from __future__ import annotations

import html
import io
import zipfile

import pandas as pd
import pytest
from click.testing import CliRunner

from amteach.cli import main
from amteach.rooms import open_rooms
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
