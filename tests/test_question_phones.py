"""Questions on phones against a real server (issue 37): a question posed in another process
(the Class tab's kernel, or here the test) reaches every phone through the class database's
news, promptly; answers travel over the websocket with the server's limits; and in Chromium a
student answers a choice and a number by keyboard on the light page while the instructor's
Class tab asks, counts and closes, with axe-core on both pages. (The hub alone:
tests/test_questions.py; the Class tab's panel without a browser: tests/test_class_questions.py.)"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path

import pytest
from browser import PROJECTOR, WAIT, launch_chromium, watched_page
from phone_client import Client
from playwright.sync_api import sync_playwright
from test_accessibility import PHONE, axe_report, axe_violations

from amteach.rooms import RoomSettings, new_key, open_rooms
from amteach.rooms import questions as q

SHOTS = Path(__file__).resolve().parents[1] / "test-output" / "questions"
WHO = q.Question("Who wins at your table?", options=("Competitors", "Monopolists"))


@pytest.fixture(scope="module")
def server(class_server):
    """The session's class server: each test opens rooms of its own in its database, and
    nothing here needs server options of its own (a server of the module's own cost a start
    and a kernel more)."""
    return class_server


def new_room(server, **settings) -> tuple[str, str]:
    key = new_key()
    values = {"tables": 2, "seats": 4, "ending": "A", "round_cap": 8, "bot_delay": 0.0, **settings}
    return open_rooms(server.database).create(RoomSettings(**values), key=key), key


def shows(phone: Client, words: str) -> bool:
    return words in phone.parts.get("question", "")


def test_a_question_posed_in_another_process_reaches_every_phone_promptly(server):
    code, key = new_room(server)
    rooms = open_rooms(server.database)  # this process is not the server's

    async def run() -> list[float]:
        phones = [await Client(server.url).open() for _ in range(6)]
        for i, phone in enumerate(phones):
            assert (await phone.join(code, f"Student {i}"))["type"] == "seated"
        seen: list[float] = []
        for number, question in enumerate((WHO, WHO, WHO), start=1):
            asked = time.monotonic()
            await asyncio.to_thread(q.pose, rooms, code, key, question)
            for phone in phones:
                await phone.until(
                    lambda m, n=number: (
                        m["type"] == "view"
                        and f'data-question="{n}"' in m["parts"].get("question", "")
                    )
                )
                seen.append(time.monotonic() - asked)
        # an answer over the websocket, then the teacher closes: every phone locks it
        await phones[0].send(type="answer", question=3, answer=1)
        said = await phones[0].until(lambda m: m["type"] == "message")
        assert said["text"] == "Your answer is in: Monopolists.", said
        await asyncio.to_thread(q.close, rooms, code, key)
        for phone in phones:
            await phone.until(
                lambda m: (
                    m["type"] == "view"
                    and "This question is closed" in m["parts"].get("question", "")
                )
            )
        assert "Your answer: Monopolists." in phones[0].parts["question"]
        for phone in phones:
            phone.connection.close()
        return seen

    seen = asyncio.run(run())
    # SQLite's watcher polls every 50 ms and the hub looks every 100 ms: well under a second
    assert len(seen) == 18 and statistics.median(seen) < 0.5 and max(seen) < 2.0, seen
    assert q.answers_frame(rooms, code)["answer"].tolist() == ["Monopolists"]


def test_a_phone_forging_or_flooding_answers_over_the_websocket_gets_one_line_each(server):
    code, key = new_room(server)
    rooms = open_rooms(server.database)
    other, other_key = new_room(server)
    q.pose(rooms, other, other_key, WHO)
    q.pose(rooms, other, other_key, WHO)
    q.pose(rooms, code, key, WHO)

    async def run() -> list[str]:
        stranger = await Client(server.url).open()
        await stranger.send(v=1, type="answer", question=1, answer=0)
        said = await stranger.until(lambda m: m["type"] == "message")
        assert "no seat yet" in said["text"]
        phone = await Client(server.url).open()
        assert (await phone.join(code, "Forger"))["type"] == "seated"
        lines = []
        # another room's question number, a string, JSON's NaN, Infinity and a huge number
        for raw in (
            '{"v":1,"type":"answer","question":2,"answer":0}',
            '{"v":1,"type":"answer","question":1,"answer":"0"}',
            '{"v":1,"type":"answer","question":1,"answer":NaN}',
            '{"v":1,"type":"answer","question":1,"answer":Infinity}',
            '{"v":1,"type":"answer","question":1,"answer":1e400}',
            '{"v":1,"type":"answer","question":1,"answer":5}',
        ):
            await phone.connection.write_message(raw)
            lines.append((await phone.until(lambda m: m["type"] == "message"))["text"])
        # then 11 answers at once: 10 a minute are taken (with the first 6 refused ones
        # counted), the rest are told to wait
        for value in (0, 1, 0, 1, 0):
            await phone.send(v=1, type="answer", question=1, answer=value)
        for _ in range(5):
            lines.append((await phone.until(lambda m: m["type"] == "message"))["text"])
        # answers count among the connection's messages: a burst past 20 a second closes it
        for _ in range(30):
            await phone.send(v=1, type="answer", question=1, answer=0)
        closed = await phone.until(lambda m: "too many messages" in m.get("text", ""))
        assert closed["level"] == "error"
        assert await phone.read() is None  # the server closed the connection
        stranger.connection.close()
        return lines

    lines = asyncio.run(run())
    assert "not asked" in lines[0]
    assert all("2 choices" in line for line in lines[1:6]), lines
    assert lines[6:10] == ["Your answer is in: Competitors.", "Your answer is in: Monopolists."] * 2
    assert lines[10].startswith("You have sent many answers in a minute"), lines[10]
    assert q.answers_frame(rooms, code)["value"].tolist() == [1]
    assert q.answer_count(rooms, other, 1) == q.answer_count(rooms, other, 2) == 0


def test_a_student_answers_by_keyboard_while_the_class_tab_asks_counts_and_closes(server):
    code, key = new_room(server, tables=1, seats=2)
    found: dict[str, list[str]] = {}
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        teacher = watched_page(browser, server.url, errors, PROJECTOR)
        teacher.get_by_role("tab", name="Class", exact=True).click(timeout=WAIT)
        teacher.get_by_placeholder("paste your instructor link").fill(
            f"{server.url}#class={code}&key={key}", timeout=WAIT
        )
        teacher.get_by_role("button", name="Open its controls").click()
        teacher.locator(".am-room-code", has_text=code).wait_for(timeout=WAIT)
        student = watched_page(browser, f"{server.url}?room={code}", errors, PHONE)
        student.get_by_placeholder("first name").fill("Ana", timeout=WAIT)
        student.get_by_role("button", name="Join").click()
        student.get_by_text("Waiting for your teacher").wait_for(timeout=WAIT)

        # the prediction of lesson 7, a number, from the Class tab
        panel = teacher.locator(".am-phone-questions")
        panel.get_by_label("Lesson question").select_option(
            label="Lesson 7 · Prediction: What share of the games will the Monopolists win?"
        )
        panel.get_by_role("button", name="Ask on the phones").click()
        box = student.get_by_label("What share of the games will the Monopolists win?")
        box.wait_for(timeout=WAIT)
        found["phone, a number question"] = axe_violations(student)
        box.focus()
        student.keyboard.type("62.5")
        student.keyboard.press("Enter")  # the form's implicit submission
        student.get_by_text(
            "Your answer: 62.5% (you can change it until your teacher closes the question)"
        ).wait_for(timeout=WAIT)
        assert student.evaluate("() => document.activeElement.id") == "am-q-number"
        panel.get_by_text("1 of 1 students answered").wait_for(timeout=WAIT)
        panel.get_by_text("Median 62.5%").wait_for(timeout=WAIT)
        assert "You predicted Monopolists win 62.5% (median of 1 answer)." in panel.inner_text()
        found["Class tab, the answers drawn"] = axe_violations(teacher)
        SHOTS.mkdir(parents=True, exist_ok=True)
        panel.screenshot(path=str(SHOTS / "class-tab-answers.png"))

        # a typed multiple-choice question: the phone answers with the arrow keys and Enter
        panel.get_by_label("Lesson question").select_option(index=0)
        panel.get_by_label("Your own question").fill("Who will win at your table?")
        panel.get_by_label("Choices").fill("A Competitor\nA Monopolist\nNobody")
        panel.get_by_role("button", name="Ask on the phones").click()
        first = student.get_by_role("radio", name="A Competitor")
        first.wait_for(timeout=WAIT)
        found["phone, a choice question"] = axe_violations(student)
        student.screenshot(path=str(SHOTS / "phone-choice-question.png"), full_page=True)
        first.focus()
        student.keyboard.press("ArrowDown")  # the radio group: the next choice is picked
        assert student.get_by_role("radio", name="A Monopolist").is_checked()
        student.keyboard.press("Tab")
        assert student.evaluate("() => document.activeElement.id") == "am-q-send"
        student.keyboard.press("Enter")
        student.get_by_text(
            "Your answer: A Monopolist (you can change it until your teacher closes the question)"
        ).wait_for(timeout=WAIT)
        panel.get_by_text("1 of 1 students answered").wait_for(timeout=WAIT)
        panel.get_by_role("button", name="Close the question").click()
        student.get_by_text("This question is closed.").wait_for(timeout=WAIT)
        assert student.get_by_role("radio").count() == 0
        found["phone, the question closed"] = axe_violations(student)
        browser.close()
    assert not any(found.values()), axe_report(found)
    assert errors == []
    answers = q.answers_frame(open_rooms(server.database), code)
    assert answers["answer"].tolist() == ["62.5%", "A Monopolist"]
