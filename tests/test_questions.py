"""Questions on the phones (issue 37, "Predictions and exit tickets on phones"): the rooms'
questions and answers (amteach/rooms/questions.py), the lessons' questions as data, and the
hub's `answer` message and `question` part, fed as the websocket would feed them, tried as a
hostile student would (a forged question number, another room's question, a closed question,
no seat, wrong types, a flood). Over a real server and in Chromium: tests/test_question_phones.py."""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from phone_client import Clock, HubPhone

from amteach.engine.errors import InputError
from amteach.rooms import Refused, RoomSettings, new_key, open_rooms
from amteach.rooms import questions as q
from amteach.rooms.hub import Hub, PhoneLimits
from amteach.rooms.phone_view import PARTS

SHARE = q.Question(
    "What share of the games will the Monopolists win?",
    kind="number",
    moment="prediction",
    low=0,
    high=100,
    unit="%",
    compare="monopolist_win_rate",
)
WHO = q.Question(
    "Which role will win more often?",
    kind="choice",
    moment="prediction",
    options=("Competitors", "Monopolists", "About the same"),
)


@pytest.fixture
def room(tmp_path):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    key = new_key()
    code = rooms.create(
        RoomSettings(tables=2, seats=3, ending="A", round_cap=5, bot_delay=0, seed=3), key=key
    )
    return rooms, code, key


@pytest.fixture
def hub_room(room):
    rooms, code, key = room
    clock = Clock()
    hub = Hub(rooms, PhoneLimits(answers_per_seat=4), clock=clock)
    yield rooms, code, key, hub, clock
    hub.close()


@pytest.fixture
def asked(hub_room):
    """A room asked SHARE, and Ana's phone seated in it."""
    rooms, code, key, hub, clock = hub_room
    q.pose(rooms, code, key, SHARE)
    return rooms, code, seated(hub, code, "Ana"), clock


def seated(hub: Hub, code: str, name: str) -> HubPhone:
    phone = HubPhone(hub, name)
    phone.send(type="hello", room=code)
    phone.send(type="join", room=code, name=name)
    assert phone.phone.seat is not None, phone.lines()
    return phone


def news(hub: Hub, clock: Clock) -> None:
    """What the hub does when the database's watcher reports a change (any process's)."""
    hub.heard(None)
    clock.now += 0.1
    hub.tick()


def text_of(fragment: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment)).strip()


# -- a question's limits --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"text": ""}, "text"),
        ({"text": "x" * (q.MAX_TEXT + 1)}, "text"),
        ({"options": ("one",)}, "options"),
        ({"options": tuple("abcdefg")}, "options"),
        ({"options": ("same", "same")}, "options"),
        ({"options": ("ok", "y" * (q.MAX_OPTION + 1))}, "options"),
        ({"options": ("ok", "  ")}, "options"),
        ({"options": "ab"}, "options"),
        ({"moment": "later"}, "moment"),
        ({"kind": "essay"}, "kind"),
        ({"compare": "anything"}, "compare"),
        ({"kind": "number", "options": (), "low": 5, "high": 5}, "low"),
        ({"kind": "number", "options": (), "low": 0, "high": math.inf}, "high"),
        ({"kind": "number", "options": (), "low": 0, "high": 1e12}, "high"),
        ({"kind": "number", "options": (), "low": True, "high": 3}, "low"),
        ({"kind": "number", "options": (), "low": 0, "high": 3, "unit": "u" * 13}, "unit"),
    ],
)
def test_a_question_outside_its_limits_is_refused_naming_the_field(fields, named):
    base = {"text": "Who wins?", "kind": "choice", "options": ("A", "B")}
    with pytest.raises(InputError) as err:
        q.Question(**{**base, **fields})
    assert err.value.field == named


ANY_VALUE = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.lists(st.integers(), max_size=3)
    | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
)


@given(value=ANY_VALUE)
def test_an_answer_is_taken_exactly_when_it_is_a_choice_in_range_or_a_finite_number_in_bounds(
    value,
):
    number_ok = (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 <= value <= 100
    )
    choice_ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 3
    for question, ok in ((SHARE, number_ok), (WHO, choice_ok)):
        if ok:
            assert question.check_answer(value) == value
        else:
            with pytest.raises(Refused) as err:
                question.check_answer(value)
            line = str(err.value)
            assert "\n" not in line and len(line) < 160
            assert ("0% to 100%" in line) if question is SHARE else ("3 choices" in line)


# -- posing, answering, closing -------------------------------------------------------------
def test_posing_needs_the_instructor_key_and_closes_the_question_open_before(room):
    rooms, code, key = room
    with pytest.raises(Refused, match="instructor link"):
        q.pose(rooms, code, "not-the-key", WHO)
    with pytest.raises(Refused, match="instructor link"):
        q.close(rooms, code, None)
    first = q.pose(rooms, code, key, WHO)
    second = q.pose(rooms, code, key, SHARE)
    assert (first.number, second.number) == (1, 2)
    asked = q.questions(rooms, code)
    assert [x.text for x in asked] == [WHO.text, SHARE.text]
    assert asked[0].closed_at is not None and asked[1].is_open  # one open at a time
    assert asked[1] == second and asked[1].compare == "monopolist_win_rate"
    closed = q.close(rooms, code, key)
    assert closed is not None and closed.number == 2 and not q.latest(rooms, code).is_open
    assert q.close(rooms, code, key) is None  # nothing open


def test_a_room_is_asked_at_most_max_questions(room):
    rooms, code, key = room
    for _ in range(q.MAX_QUESTIONS):
        q.pose(rooms, code, key, WHO)
    with pytest.raises(Refused, match=f"as many as a class may \\({q.MAX_QUESTIONS}\\)"):
        q.pose(rooms, code, key, WHO)
    assert len(q.questions(rooms, code)) == q.MAX_QUESTIONS


def test_one_answer_per_seat_replaced_while_open_and_listed_with_name_and_role(room):
    rooms, code, key = room
    ana, ben = rooms.join(code, "Ana"), rooms.join(code, "Ben")
    q.pose(rooms, code, key, SHARE)
    q.answer(rooms, ana, 1, 40)
    q.answer(rooms, ana, 1, 62.5)  # changed her mind: replaced, not added
    q.answer(rooms, ben, 1, 90)
    frame = q.answers_frame(rooms, code)
    assert list(frame.columns) == list(q.ANSWER_COLUMNS)
    assert len(frame) == 2 and q.answer_count(rooms, code, 1) == 2
    rows = {row.name: row for row in frame.itertuples()}
    seats = {row.name: row for row in rooms.seats(code) if row.name}
    for name, value, words in (("Ana", 62.5, "62.5%"), ("Ben", 90, "90%")):
        row, seat = rows[name], seats[name]
        assert (row.table, row.seat, row.role) == (seat.table + 1, seat.seat + 1, seat.role)
        assert (row.value, row.answer, row.moment, row.kind) == (
            value,
            words,
            "prediction",
            "number",
        )
    # the gradebook reads the table itself: the answer is kept as JSON text
    kept = rooms.store.query("SELECT answer FROM answers WHERE room = ? ORDER BY at", (code,))
    assert sorted(json.loads(a) for (a,) in kept) == [62.5, 90]
    q.close(rooms, code, key)
    with pytest.raises(Refused, match="closed that question"):
        q.answer(rooms, ana, 1, 10)
    assert q.answer_of(rooms, code, 1, ana.table, ana.seat) == 62.5


def test_a_seat_given_away_cannot_answer_for_it_and_its_next_student_starts_afresh(room):
    rooms, code, key = room
    ana = rooms.join(code, "Ana")
    q.pose(rooms, code, key, WHO)
    q.answer(rooms, ana, 1, 1)
    rooms.remove(code, ana.table, ana.seat)
    with pytest.raises(Refused, match="no longer yours"):
        q.answer(rooms, ana, 1, 0)
    assert q.answer_count(rooms, code, 1) == 0  # Ana left: her answer is nobody's now
    # the freed seat's next student does not see Ana's answer as theirs
    seats = [rooms.join(code, name) for name in ("Ben", "Cy", "Dee", "Eve", "Fay", "Gus")]
    taker = next(s for s in seats if (s.table, s.seat) == (ana.table, ana.seat))
    assert q.answer_of(rooms, code, 1, taker.table, taker.seat) is None
    assert q.answers_frame(rooms, code).empty
    q.answer(rooms, taker, 1, 2)
    frame = q.answers_frame(rooms, code)
    assert frame[["name", "answer"]].values.tolist() == [[taker.name, "About the same"]]


# -- the lessons' questions -----------------------------------------------------------------
def test_every_lesson_ships_a_prediction_and_an_exit_question_that_parse():
    from amteach.content import lessons_dir

    lessons = sorted(p.name for p in lessons_dir().iterdir() if (p / "plan.md").is_file())
    assert len(lessons) == 8
    found = q.lesson_questions()
    for lesson in lessons:
        moments = {x.question.moment for x in found if x.lesson == lesson}
        assert {"prediction", "exit"} <= moments, lesson
    for item in found:
        assert isinstance(item.question, q.Question) and item.label.startswith("Lesson ")
    # lessons 1 and 7: the Monopolists' share, set beside the class's outcome
    for lesson in ("01-two-rulebooks", "07-class-play"):
        share = [
            x.question
            for x in found
            if x.lesson == lesson and x.question.compare == "monopolist_win_rate"
        ]
        assert share == [SHARE], lesson


def test_a_broken_questions_file_is_refused_naming_the_file_and_the_question(tmp_path):
    lesson = tmp_path / "09-x"
    lesson.mkdir()
    (lesson / "questions.yaml").write_text(
        "questions:\n  - {moment: prediction, kind: choice, text: Who, options: [A]}\n"
    )
    with pytest.raises(InputError, match=r"question 1: .*2 to 6 choices"):
        q.lesson_questions(tmp_path)
    (lesson / "questions.yaml").write_text("questions:\n  - {text: Who, secret: 1}\n")
    with pytest.raises(InputError, match="fields amteach does not know"):
        q.lesson_questions(tmp_path)
    (lesson / "questions.yaml").write_text("questions:\n  - {text: Who?, kind: [}\n")
    with pytest.raises(InputError, match="is not YAML"):
        q.lesson_questions(tmp_path)


# -- on the phones, through the hub ----------------------------------------------------------
def test_a_posed_question_reaches_every_phone_in_the_lobby_during_play_and_after_the_game(
    hub_room,
):
    rooms, code, key, hub, clock = hub_room
    ana, ben = seated(hub, code, "Ana"), seated(hub, code, "Ben")
    assert ana.parts["question"] == ""
    q.pose(rooms, code, key, WHO)
    news(hub, clock)
    for phone in (ana, ben):
        shown = phone.parts["question"]
        assert "Which role will win more often?" in shown and 'data-question="1"' in shown
        assert shown.count('type="radio"') == 3 and "You have not answered yet" in shown
    ana.send(type="answer", question=1, answer=1)
    assert ana.lines()[-1] == "Your answer is in: Monopolists."
    assert (
        "Your answer: Monopolists (you can change it until your teacher closes the question)"
        in text_of(ana.parts["question"])
    )
    assert 'value="1" checked' in ana.parts["question"]
    assert "You have not answered yet" in ben.parts["question"]  # Ben's own view only
    ana.send(type="answer", question=1, answer=2)
    assert "Your answer: About the same" in text_of(ana.parts["question"])
    q.close(rooms, code, key)
    news(hub, clock)
    assert "This question is closed. Your answer: About the same." in text_of(ana.parts["question"])
    assert "<form" not in ana.parts["question"] and "did not answer" in ben.parts["question"]
    # during play: a number question, next to the game's parts
    rooms.start(code)
    news(hub, clock)
    q.pose(rooms, code, key, SHARE)
    news(hub, clock)
    assert 'type="number"' in ana.parts["question"] and 'max="100"' in ana.parts["question"]
    assert set(ana.parts) == set(PARTS)
    for _ in range(3000):  # play to the end: the question stays on show
        clock.now += 1
        hub.tick()
        for phone in (ana, ben):
            phone.press_first()
        if all("Game over" in p.parts["status"] for p in (ana, ben)):
            break
    assert all("Game over" in p.parts["status"] for p in (ana, ben))
    ben.send(type="answer", question=2, answer=75)
    assert "Your answer: 75%" in text_of(ben.parts["question"])
    assert q.answers_frame(rooms, code, 2)["value"].tolist() == [75]


def test_an_answer_a_student_forges_changes_nothing_and_gets_one_line(hub_room, tmp_path):
    rooms, code, key, hub, clock = hub_room
    ana = seated(hub, code, "Ana")
    other_key = new_key()
    other = rooms.create(RoomSettings(tables=1, seats=2, ending="A"), key=other_key)
    q.pose(rooms, other, other_key, WHO)  # another room's question 1 ...
    q.pose(rooms, other, other_key, WHO)  # ... and 2
    q.pose(rooms, code, key, SHARE)  # this room's only question is 1
    news(hub, clock)
    nobody = HubPhone(hub, "nobody")
    nobody.send(type="answer", question=1, answer=50)
    assert nobody.lines()[-1] == "This page has no seat yet: join first."
    cases = [
        ({"question": 2, "answer": 50}, "not asked"),  # another room's number
        ({"question": 99, "answer": 50}, "not asked"),
        ({"question": "1", "answer": 50}, "not asked"),
        ({"question": True, "answer": 50}, "not asked"),
        ({"question": None, "answer": 50}, "not asked"),
        ({"question": 1, "answer": "50"}, "not a number"),
        ({"question": 1, "answer": None}, "not a number"),
        ({"question": 1, "answer": True}, "not a number"),
        ({"question": 1, "answer": [50]}, "not a number"),
        ({"question": 1, "answer": 10**400}, "not a number"),
        ({"question": 1, "answer": 100.5}, "out of range"),
    ]
    for fields, words in cases:
        clock.now += 61  # the per-seat limit is not what refuses these
        before = len(ana.lines())
        ana.send(type="answer", **fields)
        assert len(ana.lines()) == before + 1, fields
        assert words in ana.lines()[-1], (fields, ana.lines()[-1])
    for value in (math.nan, math.inf, -math.inf):  # what json.loads makes of NaN, Infinity
        clock.now += 61
        ana.send(type="answer", question=1, answer=value)
        assert "not a number" in ana.lines()[-1]
    assert q.answer_count(rooms, code, 1) == 0
    assert q.answer_count(rooms, other, 1) == q.answer_count(rooms, other, 2) == 0
    q.close(rooms, code, key)
    ana.send(type="answer", question=1, answer=50)
    assert "closed that question" in ana.lines()[-1]
    assert "This question is closed" in ana.parts["question"]  # the phone learns at once
    assert not [line for line in ana.lines() if "went wrong" in line]


def test_a_seat_that_floods_answers_is_told_to_wait_and_its_last_answer_is_kept(hub_room):
    rooms, code, key, hub, clock = hub_room
    ana, ben = seated(hub, code, "Ana"), seated(hub, code, "Ben")
    q.pose(rooms, code, key, SHARE)
    news(hub, clock)
    for value in range(4):  # answers_per_seat is 4 a minute here
        ana.send(type="answer", question=1, answer=value)
    ana.send(type="answer", question=1, answer=99)
    assert ana.lines()[-1].startswith("You have sent many answers in a minute; your last one")
    assert "Try again in 60 seconds" in ana.lines()[-1]
    assert q.answer_of(rooms, code, 1, ana.phone.seat.table, ana.phone.seat.seat) == 3
    ben.send(type="answer", question=1, answer=80)  # another seat is not held up
    assert ben.lines()[-1] == "Your answer is in: 80%."
    clock.now += 61
    ana.send(type="answer", question=1, answer=99)
    assert ana.lines()[-1] == "Your answer is in: 99%."


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    message=st.fixed_dictionaries(
        {"type": st.just("answer")},
        optional={
            "question": st.integers(min_value=-3, max_value=60) | ANY_VALUE,
            "answer": ANY_VALUE,
        },
    )
)
def test_any_answer_message_gets_one_plain_line_and_keeps_only_a_valid_answer(asked, message):
    # one room, question and phone for every example (a function-scoped fixture)
    rooms, code, phone, clock = asked
    clock.now += 61
    before = len(phone.lines())
    phone.send(**message)
    lines = phone.lines()[before:]
    assert len(lines) == 1 and "went wrong" not in lines[0] and "Traceback" not in lines[0]
    value, number = message.get("answer"), message.get("question")
    valid = (
        number == 1
        and not isinstance(number, bool)
        and isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 <= value <= 100
    )
    assert lines[0].startswith("Your answer is in") == valid
    seat = phone.phone.seat
    kept = q.answer_of(rooms, code, 1, seat.table, seat.seat)
    assert kept is None or 0 <= kept <= 100


# -- on PostgreSQL: the news is a NOTIFY with the room's code --------------------------------
def test_on_postgresql_a_question_posed_elsewhere_reaches_the_hub_by_its_notify():
    import threading

    from postgres import postgres_server

    with postgres_server() as url:
        teacher_rooms = open_rooms(url)  # the Class tab's connection (another process's)
        key = new_key()
        code = teacher_rooms.create(RoomSettings(tables=1, seats=2, ending="A"), key=key)
        hub = Hub(open_rooms(url), clock=Clock())
        try:
            heard, listening = threading.Event(), threading.Event()
            listened = hub.heard

            def hear(news):
                listened(news)
                if news == code:
                    heard.set()
                elif news is None:  # the watcher LISTENs from now on
                    listening.set()

            hub.stop_watching()
            hub.stop_watching = hub.rooms.store.watch(hear)
            assert listening.wait(30)
            ana = seated(hub, code, "Ana")
            assert heard.wait(30)  # the join's own NOTIFY; the next one is the question's
            heard.clear()
            assert ana.parts["question"] == ""
            q.pose(teacher_rooms, code, key, WHO)
            assert heard.wait(30), "no NOTIFY with the room's code"
            hub.tick()
            assert 'data-question="1"' in ana.parts["question"]
            ana.send(type="answer", question=1, answer=0)
            ana.send(type="answer", question=1, answer=2)  # replaced: ON CONFLICT on PostgreSQL
            frame = q.answers_frame(teacher_rooms, code)
            assert frame["answer"].tolist() == ["About the same"]
            heard.clear()
            q.close(teacher_rooms, code, key)
            assert heard.wait(30)
            hub.tick()
            assert "This question is closed" in ana.parts["question"]
        finally:
            hub.close()
