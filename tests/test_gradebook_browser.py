"""The student ID box and the sections panel in Chromium (issue 37): a phone of a room that
asks for an ID shows the labelled box, refuses a bad ID with one line and joins with a good
one; the Class tab's "Several sections and the gradebook" panel pools another class by its
instructor link, by keyboard. Both pass axe-core with no serious or critical violation."""

from __future__ import annotations

from pathlib import Path

from browser import WAIT
from browser import watched_page as watched
from class_games import play_class
from test_accessibility import PHONE, axe_report, axe_violations

from amteach.rooms import RoomSettings, new_key, open_rooms

LABEL = "Student ID or email (for the gradebook)"


def test_a_phone_types_its_id_and_the_class_tab_pools_a_section_by_keyboard(class_server, browser):
    server = class_server
    rooms = open_rooms(server.database)
    key = new_key()
    code = rooms.create(RoomSettings(tables=1, seats=2, ask_student_id=True), key=key)
    other, other_key = play_class(rooms, ["Ben"], tables=1, seed=5, ids=["ben@uni.edu"])
    errors: list[str] = []
    found: dict[str, list[str]] = {}
    student = watched(browser, f"{server.url}?room={code}", errors, PHONE)
    box = student.get_by_label(LABEL, exact=True)
    box.wait_for(timeout=WAIT)
    found["student, the join form with the ID box"] = axe_violations(student)
    student.get_by_placeholder("first name").fill("Ana")
    box.fill("ana lima")
    student.get_by_role("button", name="Join").click()
    student.get_by_text("Student ID or email: type it without spaces.").wait_for(timeout=WAIT)
    assert rooms.student_ids(code) == {}
    # by keyboard: from the name box, Tab reaches the ID box next
    student.get_by_placeholder("first name").focus()
    student.keyboard.press("Tab")
    assert student.evaluate("() => document.activeElement.id") == "am-student-id"
    student.keyboard.press("Control+A")
    student.keyboard.type("ana@uni.edu")
    student.keyboard.press("Enter")
    student.get_by_text("Welcome, Ana").wait_for(timeout=WAIT)
    assert list(rooms.student_ids(code).values()) == ["ana@uni.edu"]

    teacher = watched(browser, server.url, errors)
    teacher.get_by_role("tab", name="Class", exact=True).click(timeout=WAIT)
    teacher.get_by_placeholder("paste your instructor link").wait_for(timeout=WAIT)
    ask = teacher.get_by_role("checkbox", name="Ask for a student ID at join", exact=True)
    assert ask.count() == 1
    teacher.get_by_placeholder("paste your instructor link").fill(
        f"{server.url}#class={code}&key={key}"
    )
    teacher.get_by_role("button", name="Open its controls").click()
    teacher.locator(".am-room-code", has_text=code).wait_for(timeout=WAIT)
    link = teacher.get_by_placeholder("another class's instructor link")
    link.fill(f"{server.url}#class={other}&key={other_key}")
    link.focus()
    for _ in range(6):  # Tab: the label box, the PIN box, then the button
        teacher.keyboard.press("Tab")
        focused = teacher.evaluate("() => document.activeElement.innerText || ''")
        if focused.strip() == "Add another section":
            break
    teacher.keyboard.press("Enter")
    teacher.get_by_text("Pooled sections (2)").wait_for(timeout=WAIT)
    for name in (
        "Decisions (CSV)",
        "Decisions (Parquet)",
        "Gradebook for Canvas (CSV)",
        "Gradebook for Moodle (CSV)",
    ):
        assert teacher.get_by_role("button", name=name, exact=True).count() == 1
    with teacher.expect_download(timeout=WAIT) as download:
        teacher.get_by_role("button", name="Gradebook for Canvas (CSV)", exact=True).click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert "ana@uni.edu" in text and "ben@uni.edu" in text
    found["Class tab, two sections pooled"] = axe_violations(teacher)
    student.close()
    teacher.close()
    assert not any(found.values()), axe_report(found)
    assert errors == []
