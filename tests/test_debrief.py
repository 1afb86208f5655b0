"""The debrief from a class's own decisions (issue 37, rooms/debrief.py): one scripted game whose
debrief is worked out by hand from the rules, the bots' game in the same seats (same seed,
same dice, same stopping point), the phones' `debrief` part (only once the game is over, each
student's own, escaped), and the projector's panel (ui/class_debrief.py)."""

from __future__ import annotations

import html
import io
import json
import re

import pandas as pd
import pytest
from conftest import scenario
from hypothesis import given, settings
from hypothesis import strategies as st
from phone_client import BUTTON, Clock, HubPhone

from amteach.engine import events as ev
from amteach.engine.game import Game
from amteach.engine.rules import RuleSet
from amteach.rooms import Refused, RoomSettings, RoomTable, open_rooms
from amteach.rooms.debrief import (
    BANKRUPTCY,
    CLASS_COLUMNS,
    LARGEST_RENT,
    accounting_decided,
    accounting_sentence,
    board_at,
    bots_in_the_same_seats,
    class_debrief,
    class_frame,
    game_debrief,
    level_before,
    phone_html,
    table_debrief,
)
from amteach.rooms.hub import Hub
from amteach.rooms.phone_view import PARTS
from amteach.session import Session
from amteach.ui.class_debrief import DebriefPanel

XSS = "<img src=x onerror=f()>"

PLAYERS = [
    # Ana, the student: two New Orleans streets (price $60 each)
    {
        "name": "Ana",
        "role": "competitor",
        "cash": 1000,
        "titles": {"Basin St.": None, "French Quarter": None},
    },
    # Ben, a bot: all of Los Angeles, so it is monopolized (monopoly_streets: 2)
    {
        "name": "Ben",
        "role": "monopolist",
        "cash": 500,
        "titles": {"Sunset Blvd.": None, "Wilshire Blvd.": {"houses": 2}, "Hollywood Blvd.": None},
    },
    # Cleo, a bot with $10 and nothing to sell, one step from Wilshire Blvd.'s rent
    {"name": "Cleo", "role": "competitor", "cash": 10, "position": 5},
]
SCRIPT = [
    "roll",  # 1 Ana throws 1+3: Income Tax
    {"income_tax": "flat"},  # 2 Ana pays $200 flat
    "end_turn",  # 3
    "roll",  # 4 Ben throws 4+5: his own Hollywood Blvd.
    "end_turn",  # 5
    "roll",  # 6 Cleo throws 1+2: Wilshire Blvd., $40 she cannot pay: bankrupt
    "roll",  # 7 Ana throws 1+3: Wilshire Blvd., $40 rent to Ben
    {"build": "Basin St."},  # 8 a house, $50
    {"mortgage": "French Quarter"},  # 9 $30
    "end_turn",  # 10
    "end_game",  # 11 time is up (Ben's turn, before he rolls)
    "end_turn",  # 12 Ana: done adjusting
    "end_turn",  # 13 Ben: done adjusting; the accounting
]
DICE = [[1, 3], [4, 5], [1, 2], [1, 3]]
BOTS = ("investor", "investor", "cautious")


@pytest.fixture(scope="module")
def scripted():
    game = scenario(PLAYERS, SCRIPT, game="two-hour", seed=11, dice=DICE)
    assert game.over
    made_by = {n: "student" for n in (1, 2, 3, 7, 8, 9, 10, 12)} | {11: "timer"}
    return game, game_debrief(game, [True, False, False], BOTS, made_by, table=2)


def test_a_scripted_games_tax_choices_are_weighed_against_the_cheaper_option(scripted):
    """Decision 1 of the rules spec: both amounts are shown. Ana's percentage is 10% of $1,000
    cash + 10% of $120 property (two $60 streets) = $112; she chose $200 flat, $88 more."""
    _, debrief = scripted
    ana = debrief.seat(0)
    (tax,) = ana.taxes
    assert (tax.decision, tax.round, tax.flat, tax.percent, tax.chose) == (2, 1, 200, 112, "flat")
    assert (tax.made_by, tax.paid, tax.cheaper, tax.above_cheaper) == ("student", 200, False, 88)
    assert (ana.cheaper_choices, ana.above_cheaper) == (0, 88)
    assert debrief.seat(1).taxes == () and debrief.seat(2).taxes == ()


def test_a_scripted_games_rent_buildings_and_key_moments_by_hand(scripted):
    """Wilshire Blvd. with 2 houses in a monopolized city: $40 (board.csv). Cleo cannot pay it
    with $10 and nothing to sell (rule 25: bankrupt to Ben, at decision 6); Ana pays it at
    decision 7, the largest rent of the game."""
    game, debrief = scripted
    ana, ben, cleo = debrief.seats
    assert (ana.play.rent_paid, ana.play.rent_earned) == (40, 0)
    assert (ben.play.rent_paid, ben.play.rent_earned) == (0, 40)
    assert (cleo.play.rent_paid, cleo.bankrupt_at) == (0, 6)
    assert (ana.houses_built, ana.apartments_built, ana.build_cost) == (1, 0, 50)
    assert (ana.mortgages, ana.mortgage_cash, ana.redemptions, ana.buildings_sold) == (1, 30, 0, 0)
    assert (ben.houses_built, ben.mortgages) == (0, 0)
    bankrupt, largest = debrief.moments  # in the order they happened
    assert (bankrupt.kind, bankrupt.decision, bankrupt.round) == (BANKRUPTCY, 6, 1)
    assert (bankrupt.payer, bankrupt.payee, bankrupt.amount) == (2, 1, 40)
    assert (largest.kind, largest.decision, largest.round) == (LARGEST_RENT, 7, 2)
    assert (largest.payer, largest.payee, largest.amount) == (0, 1, 40)
    assert ana.moments == (largest,) and ben.moments == (bankrupt, largest)
    # the moment's decision number replays to the moment: Ana has paid, not yet built
    before, at = board_at(game, 6), board_at(game, 7)
    assert before.cash[0] == 1000 - 200 and at.cash[0] == 1000 - 200 - 40
    assert at.position[0] == 8 and at.houses[1] == 0


def test_what_decided_a_scripted_game_by_hand(scripted):
    """Decision 12: Ana led the accounting with $1,000 - 200 tax - 40 rent - 50 house + 30
    mortgage = $740, against Ben's $500 + Cleo's $10 + Ana's $40 = $550. Ana keeps 10% ($74,
    hands over $666), Ben 20% ($110, hands over $440); the Treasurer's tour pays Ana $11 (Basin
    St. with a house; French Quarter is mortgaged) and Ben $20 + $40 + $24 = $84 (Los Angeles
    monopolized: bare rents doubled, Wilshire's 2 houses $40). After it: Ana $85, Ben $194."""
    game, debrief = scripted
    acc = debrief.accounting
    assert acc is not None and acc.reason == "two_hour"
    ana, ben, _ = acc.seats
    assert (ana.cash_before, ana.handed_over, ana.treasurer_rent, ana.cash_after) == (
        740,
        666,
        11,
        85,
    )
    assert (ben.cash_before, ben.handed_over, ben.treasurer_rent, ben.cash_after) == (
        550,
        440,
        84,
        194,
    )
    assert (acc.leader_before, acc.winner, acc.changed_winner) == (0, 1, True)
    assert game.cash[:2] == [85, 194]
    words = phone_html(debrief, 0)
    assert "Table 3, 2 rounds, 13 decisions" in words
    assert "before the final accounting Ana led (Ana $740, Ben $550)" in words
    assert "After it: Ben $194, Ana $85; Ben won" in words
    assert "changed the winner" in words


def test_a_tie_before_the_accounting_is_said_to_be_level_and_decided_by_it():
    """Decision 12 at the first decision: both have the $1,500 they started with; the
    Competitor keeps 10% ($150), the Monopolist 20% ($300). Nobody led: the accounting
    decided it."""
    players = [{"name": "Ana", "role": "competitor"}, {"name": "Ben", "role": "monopolist"}]
    game = scenario(players, ["end_game", "end_turn", "end_turn"], game="two-hour", seed=2)
    debrief = game_debrief(game, [True, False], ["investor", "investor"])
    words = phone_html(debrief, 0)
    assert "Table 1, 1 round, 3 decisions" in words
    assert "Ana and Ben were level (Ana $1,500, Ben $1,500)" in words
    assert "After it: Ben $300, Ana $150; Ben won. The final accounting decided the winner" in words
    assert level_before(debrief) == [0, 1] and accounting_decided(debrief)
    frame = class_frame([debrief])
    assert frame["accounting_decided"].tolist() == [True, True]
    assert frame["won"].tolist() == [False, True]


def tax_turns_before(game: Game, kind: str) -> int:
    """The turns begun before the first decision of `kind`."""
    again = Game(game.setup, game.board)
    turns = sum(isinstance(e, ev.TurnStarted) for e in again.events)
    for decision in game.decisions:
        if decision.kind == kind:
            return turns
        turns += sum(isinstance(e, ev.TurnStarted) for e in again.apply(decision))
    raise AssertionError(f"no {kind} decision")


def test_the_bots_game_has_the_same_seed_and_dice_and_stops_at_the_same_turn(scripted):
    game, debrief = scripted
    bots = debrief.bot_game
    assert bots.game.setup == game.setup  # the same seed and the same scripted dice
    assert bots.game.setup.seed == game.setup.seed and bots.replaced == (0,) and bots.bots == BOTS
    # the bot in Ana's seat throws the same 1+3 and takes the cheaper $112 at decision 2
    assert bots.first_difference == 2
    assert [d.to_json() for d in bots.game.decisions[:1]] == ["roll"]
    assert bots.game.decisions[1].to_json() == {"income_tax": "percent"}
    # time is up at the same turn of the bots' game, and it ends in the same accounting
    assert tax_turns_before(bots.game, "end_game") == tax_turns_before(game, "end_game")
    assert bots.game.over and bots.game.end_reason == "two_hour"
    rent = [0, 0, 0]
    for event in bots.game.events:
        if isinstance(event, ev.RentPaid):
            rent[event.payer] += event.amount
    assert [s.bot.rent_paid for s in debrief.seats] == rent
    assert [s.bot.final_cash for s in debrief.seats] == bots.game.cash
    assert "the rest of the game differs too" in phone_html(debrief, 0)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31), cap=st.integers(5, 9))
def test_a_game_played_by_its_own_bots_is_played_again_exactly(seed, cap):
    """With nobody replaced, the bots in the same seats replay the table's game decision for
    decision: the counterfactual's only difference is the students' choices."""
    seats = [
        ("A", "competitor", "investor"),
        ("B", "monopolist", "builder"),
        ("C", "competitor", "cautious"),
    ]
    rules = RuleSet.preset("default").replace(round_cap=cap)
    session = Session(seats, seed=seed, rules=rules, game="A")
    session.play_until_human()
    assert session.game.over
    played = bots_in_the_same_seats(session.game, [c for *_, c in seats])
    assert played.first_difference is None
    assert [d.to_json() for d in played.game.decisions] == [
        d.to_json() for d in session.game.decisions
    ]
    assert played.game.cash == session.game.cash


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    students=st.lists(st.booleans(), min_size=4, max_size=4),
    cap=st.integers(5, 12),
)
def test_every_debrief_adds_up_and_every_moment_replays_to_its_own_event(seed, students, cap):
    """Invariants of any game's debrief: rent paid equals rent earned over the seats (at the
    table and in the bots' game); no tax choice costs less than the cheaper option; the
    moments are in order, and replaying the log to a moment's decision ends with its event."""
    seats = [(f"P{i}", ("competitor", "monopolist")[i % 2], "builder") for i in range(4)]
    rules = RuleSet.preset("default").replace(round_cap=cap)
    session = Session(seats, seed=seed, rules=rules, game="A")
    session.play_until_human()
    game = session.game
    debrief = game_debrief(game, students, ["investor"] * 4)
    for plays in ([s.play for s in debrief.seats], [s.bot for s in debrief.seats]):
        assert sum(p.rent_paid for p in plays) == sum(p.rent_earned for p in plays)
    assert [s.bot.final_cash for s in debrief.seats] == debrief.bot_game.game.cash
    for seat in debrief.seats:
        assert all(t.above_cheaper >= 0 and t.paid >= t.cheaper_amount for t in seat.taxes)
        assert seat.cheaper_choices <= len(seat.taxes)
    assert [m.decision for m in debrief.moments] == sorted(m.decision for m in debrief.moments)
    for moment in debrief.moments:
        before, after = board_at(game, moment.decision - 1), board_at(game, moment.decision)
        caused = [e.text for e in after.events[len(before.events) :]]
        assert moment.text in caused


# -- phones ---------------------------------------------------------------------------------------
@pytest.fixture
def timed_room(tmp_path):
    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    code = rooms.create(
        RoomSettings(tables=1, seats=3, ending="two-hour", minutes=5, bot_delay=0, seed=4)
    )
    clock = Clock()
    hub = Hub(rooms, clock=clock)
    yield rooms, code, hub, clock
    hub.close()


def seated(hub: Hub, code: str, name: str) -> HubPhone:
    phone = HubPhone(hub, f"{name[:8]}-{len(name)}")
    phone.send(type="hello", room=code)
    phone.send(type="join", room=code, name=name)
    assert phone.phone.seat is not None, phone.lines()
    return phone


def numbers(text: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(r"\$([\d,]+)", html.unescape(text))]


def press(phone: HubPhone) -> None:
    """The first choice shown, or else the first of the build/sell/mortgage panel (a debt
    to raise has only those)."""
    if phone.press_first():
        return
    found = BUTTON.search(phone.parts.get("manage", ""))
    if found is not None:
        phone.send(
            type="choose", choice=json.loads(html.unescape(found.group(1))), at=int(found.group(2))
        )


def play_to_the_end(
    hub: Hub, clock: Clock, phones: list[HubPhone], rooms, code, ticks: int = 0
) -> None:
    """`ticks` of play, then time is up; the students press their first choice until the game
    is over."""
    hub.heard(None)
    for _ in range(ticks):
        clock.now += 1
        hub.tick()
        for phone in phones:
            press(phone)
    rooms.time_is_up(code)
    hub.heard(None)
    for _ in range(400):
        clock.now += 1
        hub.tick()
        for phone in phones:
            press(phone)
        if all("Game over" in phone.parts["status"] for phone in phones):
            return
    raise AssertionError(f"the game did not end: {[p.parts['status'] for p in phones]}")


def test_the_phones_debrief_appears_only_once_the_game_is_over_and_is_each_students_own(
    timed_room,
):
    rooms, code, hub, clock = timed_room
    ana, other = seated(hub, code, "Ana"), seated(hub, code, XSS)
    rooms.start(code)
    hub.heard(None)
    for _ in range(120):  # some decisions, the game going on: no debrief yet
        clock.now += 1
        hub.tick()
        press(ana)
        press(other)
        assert ana.parts["debrief"] == "" and other.parts["debrief"] == ""
    assert set(ana.parts) == set(PARTS)
    play_to_the_end(hub, clock, [ana, other], rooms, code)
    assert "Game over" in ana.parts["status"]
    mine, theirs = ana.parts["debrief"], other.parts["debrief"]
    assert "Your debrief" in mine and "Your debrief" in theirs
    assert XSS not in theirs and XSS not in mine  # escaped
    # every number is recomputed from the store: the log replayed from the room's seed
    table = RoomTable(rooms, code, 0)
    log = rooms.decisions(code, 0)
    game = Game.replay(table.game.setup, [choice for _, choice, _, _ in log])
    bots = table_debrief(table).bot_game.game
    for phone in (ana, other):
        seat, shown_html = phone.phone.seat.seat, phone.parts["debrief"]
        rents = [e for e in game.events if isinstance(e, ev.RentPaid)]
        paid = sum(e.amount for e in rents if e.payer == seat)
        earned = sum(e.amount for e in rents if e.payee == seat)
        cells = re.findall(
            r"<tr><th scope='row'>([^<]+)</th><td>([^<]+)</td><td>([^<]+)</td>", shown_html
        )
        shown = {row: (numbers(you)[0], numbers(bot)[0]) for row, you, bot in cells}
        assert shown["Rent paid"][0] == paid and shown["Rent earned"][0] == earned
        assert shown["Cash at the end"] == (game.cash[seat], bots.cash[seat])
        role = ("Competitor", "Monopolist")[game.roles[seat]]
        assert "Your seat: <span" in shown_html and f"{role}</span>" in shown_html
        rounds = "1 round" if game.round == 1 else f"{game.round} rounds"
        assert f"Table 1, {rounds}, {len(game.decisions)} decisions" in shown_html
        taxes = [e for e in game.events if isinstance(e, ev.IncomeTaxChoice) and e.player == seat]
        if taxes:
            assert f"of {len(taxes)} time" in shown_html
        else:
            assert "never landed on Income Tax" in shown_html
    assert game.roles[ana.phone.seat.seat] != game.roles[other.phone.seat.seat]


def test_the_debrief_part_is_sent_once_not_with_every_tick(timed_room):
    rooms, code, hub, clock = timed_room
    ana = seated(hub, code, "Ana")
    rooms.start(code)
    play_to_the_end(hub, clock, [ana], rooms, code)
    sent = [m for m in ana.received if m["type"] == "view" and m["parts"].get("debrief")]
    for _ in range(5):
        clock.now += 1
        hub.heard(None)
        hub.tick()
    again = [m for m in ana.received if m["type"] == "view" and m["parts"].get("debrief")]
    assert len(sent) == 1 and again == sent


def test_a_class_closed_mid_game_shows_the_debrief_so_far_and_a_forged_ask_gets_one_line(
    timed_room,
):
    rooms, code, hub, clock = timed_room
    ana = seated(hub, code, "Ana")
    rooms.start(code)
    hub.heard(None)
    for _ in range(60):
        clock.now += 1
        hub.tick()
        press(ana)
    assert ana.parts["debrief"] == ""
    # a page asking for a debrief (its own or another seat's): no such message, one line
    ana.send(type="debrief", seat=1, table=0)
    assert ana.lines()[-1] == "The page sent a message the server does not know."
    assert ana.parts["debrief"] == ""
    rooms.close(code)
    hub.heard(code)
    clock.now += 1
    hub.tick()
    assert "class has ended" in ana.parts["status"]
    shown = ana.parts["debrief"]
    assert "Your debrief" in shown
    table = RoomTable(rooms, code, 0)
    assert not table.game.over and "did not reach its final accounting" in shown
    # the bots' game stops at the same turn as the table's (no accounting in either)
    bots = table_debrief(table).bot_game
    assert bots.stop == f"to the same turn (round {table.game.round})"
    assert not bots.game.over and bots.game.round == table.game.round


# -- the projector ---------------------------------------------------------------------------------
def test_the_projector_panel_draws_the_class_and_shows_a_moment_on_the_board(timed_room):
    rooms, code, hub, clock = timed_room
    ana = seated(hub, code, "Ana")
    rooms.start(code)
    tables: list[RoomTable] = []
    panel = DebriefPanel(lambda: tables)
    assert not panel.show() and "not started" in panel.messages.widget.value
    play_to_the_end(hub, clock, [ana], rooms, code, ticks=150)
    table = RoomTable(rooms, code, 0)
    tables.append(table)
    assert table.game.over
    assert panel.show()
    summary = panel.summary.value
    frame = class_debrief([table])
    assert frame.equals(class_frame([table_debrief(table)]))
    assert list(frame.columns) == list(CLASS_COLUMNS) and len(frame) == 3
    assert frame["player"].tolist().count("student") == 1
    assert f"reached round {table.game.round}" in summary
    assert "What the final accounting decided" in summary and "Table 1" in summary
    label = rooms.info(code).settings.rule_set(0).label  # the table's rule set (treatments)
    assert f"rules: {html.escape(label, quote=False)})" in summary
    assert frame["rules"].tolist() == [label] * 3
    ana = frame[frame["name"] == "Ana"].iloc[0]
    assert f"${ana.rent_paid:,} <span class='am-bot'>(bot ${ana.bot_rent_paid:,})</span>" in summary
    # Ana is the only student: the students' row is hers, recomputed from the store's log
    game = Game.replay(table.game.setup, [c for _, c, _, _ in rooms.decisions(code, 0)])
    seat = game.names.index("Ana")
    rents = [e for e in game.events if isinstance(e, ev.RentPaid)]
    paid = sum(e.amount for e in rents if e.payer == seat)
    earned = sum(e.amount for e in rents if e.payee == seat)
    students = re.search(r"Seats</th>.*?<tbody>(.*?)</tbody>", summary, re.S).group(1)
    cells = [numbers(cell) for cell in re.findall(r"<td>(.*?)</td>", students)]
    assert cells[0] == [] and cells[1:] == [
        [paid, ana.bot_rent_paid],
        [earned, ana.bot_rent_earned],
        [game.cash[seat], ana.bot_final_cash],
    ]
    # the download: the same frame, as CSV a spreadsheet opens safely
    assert pd.read_csv(io.StringIO(panel.csv())).equals(frame)
    rows = [row for row in panel.moments.children if hasattr(row, "children")]
    assert rows, "a key moment with its button"
    _label, show = rows[0].children
    assert show.description == "Show on the board"
    show.click()
    moment = table_debrief(table).moments[0]
    assert f"just after decision {moment.decision}" in panel.board.value
    assert 'aria-label="The board: 40 spaces' in panel.board.value


def test_the_debrief_download_asks_for_the_key_and_never_holds_a_formula(timed_room):
    rooms, code, hub, clock = timed_room
    formula = "=HYPERLINK(1)"
    student = seated(hub, code, formula)
    rooms.start(code)
    play_to_the_end(hub, clock, [student], rooms, code, ticks=20)
    tables = [RoomTable(rooms, code, 0)]

    def wrong_key() -> None:
        raise Refused("This page does not hold the class's instructor key.")

    with pytest.raises(Refused, match="instructor key"):
        DebriefPanel(lambda: tables, wrong_key).csv()
    text = DebriefPanel(lambda: tables).csv()
    names = pd.read_csv(io.StringIO(text))["name"].tolist()
    assert "'" + formula in names and formula not in names


def test_each_tables_debrief_names_its_rule_set_and_its_keep_shares(tmp_path):
    """Two treatments (rule sets by hand): the equal-keep table's accounting says both roles
    kept 10%, the as-written table's 10% and 20% (decision 12 with each table's rules)."""
    from amteach.rooms.rule_sets import named_rule_set

    rooms = open_rooms(str(tmp_path / "class.sqlite"))
    code = rooms.create(
        RoomSettings(
            tables=2,
            seats=2,
            ending="two-hour",
            bot_delay=0,
            seed=6,
            treatments=(named_rule_set("as-written"), named_rule_set("equal-keep")),
            assignment="by_hand",
            by_hand=(0, 1),
        )
    )
    rooms.start(code)
    tables = [RoomTable(rooms, code, t) for t in range(2)]
    for table in tables:
        for _ in range(40):
            table.drive(0)
    rooms.time_is_up(code)
    for table in tables:
        table.sync()
        table.end_game()
        while not table.game.over:
            assert table.drive(0)
    as_written, equal = (table_debrief(t) for t in tables)
    names = [s.name for s in as_written.seats]
    assert (as_written.rules, equal.rules) == ("Rules as written", "Equal keep shares")
    assert "Competitors kept 10% and Monopolists kept 20%" in accounting_sentence(as_written, names)
    assert "Both roles kept 10% of their cash" in accounting_sentence(equal, names)
    assert (
        class_debrief(tables)["rules"].tolist()
        == ["Rules as written"] * 2 + ["Equal keep shares"] * 2
    )
