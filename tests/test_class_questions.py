"""The Class tab's "Questions for the phones" without a browser (issue 37): the instructor asks
a lesson's question or types one, students answer from phones handed to the server's `Hub`,
the panel counts and draws the answers, and the line beside a Monopolists'-share prediction
is recomputed, number by number, from the class database. (In Chromium:
tests/test_question_phones.py.)"""

from __future__ import annotations

import html
import json
import re
import statistics

import pytest
from phone_client import HubPhone

from amteach.rooms import SERVER_DRIVES_ENV, RoomSettings, RoomTable, new_key, open_rooms
from amteach.rooms import questions as q
from amteach.rooms.hub import Hub
from amteach.rooms.rule_sets import as_written, named_rule_set
from amteach.sim import SeatSpec, simulate
from amteach.sim.play import game_seed
from amteach.ui.class_questions import BOT_GAMES_PER_TABLE, HEADING
from amteach.ui.class_tab import ClassTab


def open_class(tmp_path, monkeypatch, **settings):
    monkeypatch.setenv(SERVER_DRIVES_ENV, "1")  # the server's hub drives the bots
    database = str(tmp_path / "class.sqlite")
    rooms = open_rooms(database)
    key = new_key()
    values = {"tables": 2, "seats": 3, "ending": "A", "round_cap": 5, "bot_delay": 0, "seed": 11}
    code = rooms.create(RoomSettings(**{**values, **settings}), key=key)
    hub = Hub(open_rooms(database))
    tab = ClassTab(rooms)
    assert tab.go_back(code, key), tab.messages.widget.value
    return rooms, tab, hub


@pytest.fixture
def classroom(tmp_path, monkeypatch):
    rooms, tab, hub = open_class(tmp_path, monkeypatch)
    yield rooms, tab, hub
    hub.close()
    tab.phone_questions.ticker.stop()


@pytest.fixture
def two_rule_sets(tmp_path, monkeypatch):
    """Lesson 7's treatments: the rules as written at one table, equal keep shares at the
    other (by hand)."""
    treatments = (as_written("default"), named_rule_set("equal-keep"))
    rooms, tab, hub = open_class(
        tmp_path, monkeypatch, treatments=treatments, assignment="by_hand", by_hand=(0, 1)
    )
    yield rooms, tab, hub
    hub.close()
    tab.phone_questions.ticker.stop()


def student(hub: Hub, code: str, name: str) -> HubPhone:
    page = HubPhone(hub, f"{name}'s phone")
    page.send(type="hello", room=code)
    page.send(type="join", room=code, name=name)
    assert page.phone.seat is not None, page.lines()
    return page


def catch_up(hub: Hub, tab: ClassTab) -> None:
    hub.heard(None)
    hub.tick()
    tab.follower.news.set()
    tab.tick()
    tab.phone_questions.tick()


def words(html_text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html_text)).replace("&#39;", "'").strip()


def pick(panel, lesson: str, moment: str) -> None:
    index = next(
        i
        for i, item in enumerate(panel.lesson_questions)
        if item.lesson == lesson and item.question.moment == moment
        and (moment != "prediction" or item.question.compare)
    )  # fmt: skip
    panel.lesson_pick.value = index


def test_the_panel_has_the_labels_the_lesson_plans_name(classroom):
    _rooms, tab, _hub = classroom
    panel = tab.phone_questions
    assert panel.widget in tab.running.children
    assert HEADING == "Questions for the phones" and HEADING in panel.widget.children[0].value
    assert panel.lesson_pick.description == "Lesson question"
    assert panel.own_text.description == "Your own question"
    assert panel.answer_type.description == "Answer type"
    assert [label for label, _ in panel.answer_type.options] == ["Multiple choice", "A number"]
    assert panel.choices.description == "Choices"
    assert panel.ask_button.description == "Ask on the phones"
    assert panel.close_button.description == "Close the question"
    # a lesson's question hides the boxes of a typed one, and only those
    pick(panel, "07-class-play", "exit")
    assert panel.lesson_pick.layout.display != "none"
    assert panel.own_text.layout.display == panel.choices.layout.display == "none"
    labels = [label for label, _ in panel.lesson_pick.options]
    assert "Lesson 7 · Prediction: What share of the games will the Monopolists win?" in labels
    assert any(label.startswith("Lesson 1 · Exit ticket: ") for label in labels)


def test_a_typed_question_is_asked_closed_and_refused_when_it_breaks_a_limit(classroom):
    rooms, tab, hub = classroom
    panel = tab.phone_questions
    ana = student(hub, tab.code, "Ana")
    panel.own_text.value = "Who will trade first?"
    panel.choices.value = "Ana\n\nBen\nNobody\n"
    assert panel.ask()
    catch_up(hub, tab)
    assert "Who will trade first?" in ana.parts["question"]
    assert ana.parts["question"].count('type="radio"') == 3
    assert panel.own_text.value == ""  # asked: the boxes are ready for the next one
    ana.send(type="answer", question=1, answer=2)
    catch_up(hub, tab)
    assert "1 of 1 students answered" in words(panel.count.value)
    drawn = words(panel.drawing.value)
    assert "Nobody 1 (100%)" in drawn and "Ana 0 (0%)" in drawn
    panel.own_text.value = "Only one choice?"
    panel.choices.value = "Yes"
    assert not panel.ask()
    assert "2 to 6 choices" in tab.messages.widget.value
    panel.answer_type.value = "number"
    panel.own_text.value = "How many rounds will we play?"
    panel.low.value, panel.high.value, panel.unit.value = 0, 40, "rounds"
    assert panel.ask()
    catch_up(hub, tab)
    assert 'max="40"' in ana.parts["question"]
    assert [x.closed_at is not None for x in q.questions(rooms, tab.code)] == [True, False]
    assert panel.close()
    catch_up(hub, tab)
    assert "This question is closed" in ana.parts["question"]
    assert "closed" in words(panel.drawing.value)
    # a page whose key no longer opens the class asks nothing
    tab.key = "not-the-key"
    panel.own_text.value = "Sneaky?"
    panel.answer_type.value = "choice"
    panel.choices.value = "a\nb"
    assert not panel.ask()
    assert "instructor link" in tab.messages.widget.value
    assert len(q.questions(rooms, tab.code)) == 2


PREDICTED = (
    r"You predicted Monopolists win ([\d.]+)% \(median of (\d+) answers\)\. Your tables "
    r"gave (\d+)% \((\d+) of (\d+) finished tables, at the rounds they reached\)\. Bots at "
    r"your tables' rounds gave (\d+)% \(([\d,]+) games\)\."
)


def predict_and_play(rooms, tab, hub, phones: list | None = None) -> str:
    """Lesson 7's prediction asked, three students answer, the class plays to the end: the
    line beside the answers, as the panel shows it."""
    panel = tab.phone_questions
    phones = phones if phones is not None else []
    phones.extend(student(hub, tab.code, name) for name in ("Ana", "Ben", "Cy"))
    pick(panel, "07-class-play", "prediction")
    assert panel.ask()
    catch_up(hub, tab)
    for phone, guess in zip(phones, (40, 65.5, 90), strict=True):
        phone.send(type="answer", question=1, answer=guess)
    catch_up(hub, tab)
    assert "3 of 3 students answered" in words(panel.count.value)
    assert "Median 65.5%" in words(panel.drawing.value)
    assert "No table has finished its game yet" in words(panel.drawing.value)
    assert tab.start()
    for _ in range(4000):
        catch_up(hub, tab)
        for phone in phones:
            phone.press_first()
        if len(tab.tables) == 2 and all(t.game.over for t in tab.tables):
            break
    catch_up(hub, tab)
    return words(panel.drawing.value.split("am-compare", 1)[1])


def recomputed(rooms, code: str, tables: list[int]) -> tuple[int, int, int, int]:
    """Monopolist wins and finished games of the given tables, each rebuilt from its log in
    the database, and of bots beside each: the table's seats (its roles, the room's bot) and
    rules, stopped at its round, seeded by the room's seed and the table's number."""
    wins = games = bot_wins = bot_games = 0
    for number in tables:
        table = RoomTable(rooms, code, number)
        game = table.game
        if not game.over:
            continue
        games += 1
        wins += game.winner is not None and game.roles[game.winner] == 1
        batch = simulate(
            games=BOT_GAMES_PER_TABLE,
            seats=[
                SeatSpec(("competitor", "monopolist")[r], table.info.settings.bot)
                for r in game.roles
            ],
            rules=game.rules,
            seed=game_seed(table.info.settings.seed, number),
            round_cap=game.round,
            game="A",
            progress=False,
            workers=1,
        )
        assert set(batch.games["rounds"]) <= set(range(1, game.round + 1))
        bot_wins += int((batch.games["winner_role"].astype(str) == "monopolist").sum())
        bot_games += len(batch.games)
    return wins, games, bot_wins, bot_games


def test_lesson_7s_prediction_is_set_beside_the_tables_and_the_bots_each_number_recomputed(
    classroom,
):
    rooms, tab, hub = classroom
    line = predict_and_play(rooms, tab, hub)
    found = re.search(PREDICTED, line)
    assert found, line
    said = found.groups()
    # the prediction: the median of the answers as the database keeps them
    kept = rooms.store.query(
        "SELECT answer FROM answers WHERE room = ? AND question = 1", (tab.code,)
    )
    values = [json.loads(a) for (a,) in kept]
    assert (float(said[0]), int(said[1])) == (statistics.median(values), len(values)) == (65.5, 3)
    wins, games, bot_wins, bot_games = recomputed(rooms, tab.code, [0, 1])
    assert (int(said[3]), int(said[4])) == (wins, games) == (wins, 2)
    assert int(said[2]) == round(100 * wins / games)
    assert int(said[6].replace(",", "")) == bot_games == 2 * BOT_GAMES_PER_TABLE
    assert int(said[5]) == round(100 * bot_wins / bot_games)
    assert "your tables" not in line.split("games).", 1)[1]  # one rule set: no breakdown


def test_with_two_rule_sets_the_line_also_gives_each_rule_sets_tables_and_bots(two_rule_sets):
    rooms, tab, hub = two_rule_sets
    phones: list[HubPhone] = []
    line = predict_and_play(rooms, tab, hub, phones)
    assert re.search(PREDICTED, line), line
    keeps = [t.game.rules.settlement_keep_percent_monopolist for t in tab.tables]
    assert keeps == [20, 10]  # the rules as written, then equal keep shares (both 10%)
    for number, label in enumerate(("Rules as written", "Equal keep shares")):
        assert tab.tables[number].info.settings.rule_set(number).label == label
        wins, games, bot_wins, bot_games = recomputed(rooms, tab.code, [number])
        expected = (
            f"{label}: your tables {round(100 * wins / games)}% ({wins} of {games}), bots "
            f"{round(100 * bot_wins / bot_games)}% ({bot_games:,} games)."
        )
        assert expected in line, (expected, line)

    # after the game: lesson 7's exit ticket, on the phones beside the debrief
    panel = tab.phone_questions
    pick(panel, "07-class-play", "exit")
    exit_ticket = panel.lesson_questions[panel.lesson_pick.value].question
    assert panel.ask()
    catch_up(hub, tab)
    for n, phone in enumerate(phones):
        assert "Game over" in phone.parts["status"]
        assert exit_ticket.text in html.unescape(phone.parts["question"])
        phone.send(type="answer", question=2, answer=n % len(exit_ticket.options))
    catch_up(hub, tab)
    assert "3 of 3 students answered" in words(panel.count.value)
    assert panel.close()
    catch_up(hub, tab)
    frame = q.answers_frame(rooms, tab.code, 2)
    seats = {row.name: row for row in rooms.seats(tab.code) if row.name}
    assert sorted(frame["name"]) == ["Ana", "Ben", "Cy"]
    for row in frame.itertuples():
        assert row.role == seats[row.name].role and row.moment == "exit"
        assert row.answer == exit_ticket.options[row.value]
    # the prediction stays answered as it was
    assert sorted(q.answers_frame(rooms, tab.code, 1)["value"]) == [40, 65.5, 90]


def test_going_back_to_another_class_draws_that_class_only(classroom):
    rooms, tab, hub = classroom
    panel = tab.phone_questions
    student(hub, tab.code, "Ana")
    panel.own_text.value = "Ready?"
    panel.choices.value = "Yes\nNo"
    assert panel.ask()
    assert "Ready?" in panel.drawing.value and "0 of 1 students" in words(panel.count.value)
    key = new_key()
    other = rooms.create(RoomSettings(tables=1, seats=2, ending="A"), key=key)
    assert tab.go_back(other, key)
    panel.tick()
    assert "No question has been asked in this class yet" in panel.drawing.value
    assert panel.count.value == ""
