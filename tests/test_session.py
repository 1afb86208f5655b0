"""The session (amteach/session.py): one game at a table, driven by people and bots through one
`apply`, followed by any number of views through subscriptions and event cursors, with a
round recorder that keeps the moments a batch records."""

from __future__ import annotations

import pytest
from conftest import scenario, two

from amteach.engine.choices import Choice, Trade
from amteach.engine.errors import InputError
from amteach.engine.game import Game
from amteach.session import DECIDED, RESTARTED, SEATS, RoundRecorder, Session, choice_label
from amteach.sim.play import BatchConfig, SeatSpec, play_bot_game
from amteach.ui import ClassroomApp

BOTS = [
    ("Ana", "competitor", "investor"),
    ("Ben", "monopolist", "builder"),
    ("Cy", "competitor", "cautious"),
]
HUMANS = [("Ana", "competitor", "human"), ("Ben", "monopolist", "human")]


class LoggedSession(Session):
    """A table whose decisions go through a log first, as a shared room's will."""

    def __init__(self, *args, **kwargs) -> None:
        self.log: list[tuple[object, int | None]] = []
        super().__init__(*args, **kwargs)

    def apply(self, choice, seat=None) -> None:
        self.log.append((choice, seat))
        super().apply(choice, seat)


def test_every_decision_goes_through_apply_whoever_makes_it():
    session = LoggedSession(
        [("Ana", "competitor", "human"), ("Ben", "monopolist", "cautious")], seed=6
    )
    assert session.decide("roll").ok  # a person
    while session.human_to_move:
        session.decide(next(iter(session.game.legal_choices())))
    session.step()  # a bot
    session.play_until_human(max_decisions=50)
    assert len(session.log) == len(session.game.decisions) > 3
    # the log alone rebuilds the game: it is the table's whole story
    again = Game(session.game.setup, session.game.board)
    for choice, seat in session.log:
        again.apply(choice, player=seat)
    assert again.state.as_dict() == session.game.state.as_dict()


def test_a_bot_answers_a_trade_at_once_through_the_same_apply():
    session = LoggedSession(
        [("Ana", "competitor", "human"), ("Ben", "monopolist", "cautious")], seed=2
    )
    session.replace_game(scenario(two(ana={"titles": {"Rush St.": {}}})))
    reply = session.decide(Choice("trade", Trade(1, (11,), (), -10)))
    assert reply.ok and session.game.actor == 0  # the answer came back already
    (proposal, by_ana), (answer, by_ben) = session.log
    assert (proposal.kind, by_ana) == ("trade", 0)
    assert answer.kind in ("accept", "reject") and by_ben == 1


def test_views_hear_each_request_once_and_can_unsubscribe():
    session = Session(BOTS, seed=3)
    heard: list[str] = []
    stop = session.subscribe(lambda change: heard.append(change.kind))
    session.step()
    taken = session.play_until_human(max_decisions=40)
    assert taken == 40 and heard == [DECIDED, DECIDED]  # one per request, not per decision
    session.undo()
    session.set_controller(0, "human")
    assert heard[2:] == [RESTARTED, SEATS]
    stop()
    session.new_game(seed=4)
    assert len(heard) == 4


def test_each_cursor_reads_every_event_once_and_starts_over_with_the_game():
    session = Session(BOTS, seed=3)
    first, late = session.cursor(), None
    events, restarted = first.take()
    assert restarted and events == list(session.game.events)
    session.play_until_human(max_decisions=30)
    late = session.cursor()
    more, restarted = first.take()
    assert not restarted and more == list(session.game.events[len(events) :])
    assert first.take() == ([], False)
    all_of_them, restarted = late.take()  # a view that arrives later reads from the start
    assert restarted and all_of_them == list(session.game.events)
    session.undo()
    after_undo, restarted = first.take()
    assert restarted and after_undo == list(session.game.events)


def test_two_screens_of_one_session_show_the_same_game():
    session = Session(HUMANS, seed=1)
    projector, phone = ClassroomApp(session=session), ClassroomApp(session=session)
    phone.click("Roll")
    assert projector.narration_lines == phone.narration_lines != []
    assert projector.board_view.value == phone.board_view.value
    assert list(projector.buttons()) == list(phone.buttons())
    # a stale click on the projector is refused there, and only there
    stale = projector.buttons()
    projector.click(next(iter(stale)))
    decisions = len(session.game.decisions)
    next(iter(stale.values())).click()
    assert len(session.game.decisions) == decisions
    assert "earlier moment" in projector.message.value and phone.message.value == ""


def test_a_stale_moment_changes_nothing_and_says_why():
    session = Session(HUMANS, seed=1)
    moment = session.moment
    assert session.decide("roll", moment).ok
    before = session.game.state.as_dict()
    reply = session.decide(next(iter(session.game.legal_choices())), moment)
    assert not reply.ok and "earlier moment" in reply.message
    assert session.game.state.as_dict() == before


def test_people_and_bots_keep_to_their_seats():
    session = Session([("Ana", "competitor", "investor"), ("Ben", "monopolist", "human")], seed=5)
    assert not session.decide("roll").ok  # a bot's seat
    assert "a bot plays that seat" in session.decide("roll").message
    session.play_until_human()
    assert session.human_to_move and session.game.actor == 1
    assert "Waiting for Ben" in session.step().message
    session.set_controller(1, "cautious")
    assert session.step().ok
    with pytest.raises(InputError, match="controller must be 'human' or a bot"):
        session.set_controller(0, "wizard")
    with pytest.raises(InputError, match="no seat"):
        session.set_controller(5, "human")


def test_the_round_recorder_keeps_the_moments_a_batch_records():
    config = BatchConfig(
        (SeatSpec("competitor", "investor"), SeatSpec("monopolist", "builder")),
        {"round_cap": 15},
        seed=7,
    )
    rows: list[tuple[int, int, int, int, int]] = []

    def snapshot(game: Game, round_number: int) -> None:
        rows.extend((round_number, seat, *parts) for seat, parts in enumerate(game.wealth_parts()))

    game, _ = play_bot_game(0, config, on_round=snapshot)
    assert game.over
    assert RoundRecorder.of(game).table(game) == rows


def test_the_sessions_recorder_follows_the_game_as_it_goes():
    session = Session(BOTS, seed=8)
    session.play_until_human(max_decisions=120)
    session.step()
    live = session.recorder.table(session.game)
    assert live == RoundRecorder.of(session.game).table(session.game)
    rounds = {row[0] for row in live}
    assert rounds == set(range(session.game.round + 1))
    session.undo()
    assert session.recorder.table(session.game) == RoundRecorder.of(session.game).table(
        session.game
    )


def test_new_game_can_return_to_the_table_after_a_scenario():
    session = Session(BOTS, seed=1)
    assert session.load_scenario("doubled-rent").ok
    assert session.game.names == ("Ana", "Ben")
    assert session.new_game(seed=3, players="game").ok and session.game.names == ("Ana", "Ben")
    reply = session.new_game(seed=3, players="table")
    assert reply.ok and session.game.names == ("Ana", "Ben", "Cy")
    assert "seed 3" in reply.message


def test_a_session_without_files_on_disk_refuses_paths(tmp_path):
    session = Session(HUMANS, seed=1, files_on_disk=False)
    assert not session.save(tmp_path / "x.json").ok and not list(tmp_path.iterdir())
    assert not session.load("/etc/passwd").ok
    assert session.load(session.save_text().encode()).ok


def test_choice_labels_state_the_stakes():
    game = scenario(two(), ["roll"], dice=[[1, 3]])  # Ana lands on Income Tax
    labels = [choice_label(game, choice) for choice in game.legal_choices()]
    assert labels[0] == "Pay $200 flat"
    assert labels[1] == "Pay $150 (10% of cash + 10% of property + 10% of buildings)"
    assert choice_label(game, Choice("end_game")) == "Time is up: final accounting"
