"""A debrief from a class's own decisions (issue 37): for each seat of a table, its income-tax
choices against the cheaper option, its rent paid and earned against a bot in the same seat
with the same dice, its buildings and mortgages, the key moments (the largest rent, a
bankruptcy) with the decision number that replays them, and what decided the game
(`amteach.sim.accounting`).

Everything is read from the engine's events, as the batch recorders read them
(`amteach.sim.play`); nothing here applies a rule of its own. "A bot in the same seat"
replays the table from its own seed (so the same dice stream) with every student's seat
played by the room's bot, and the bots' seats by their own bots, to the same moment the
table reached (`bots_in_the_same_seats`). Once one choice differs, the dice fall on other
moments and the rest of that game differs too: the comparison says what the bot's whole
game came to, not what one choice was worth.

`table_debrief` reads a `RoomTable`; `game_debrief` a plain engine `Game` (tests, saved
games); `class_frame` makes the projector's tidy frame (one row per seat); `phone_part` is
the HTML of a student's `debrief` part on the phone (`phone_view.PARTS`).
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ..bots import make_strategy
from ..engine import events as ev
from ..engine.game import Game
from ..render import html_join, html_text
from ..sim.accounting import AccountingBreakdown, accounting_breakdown
from ..style import ROLE_COLOURS, ROLE_LABELS, ROLE_PLURALS, ROLE_SHAPES
from .room import ENDED, STUDENT
from .store import RoomsUnavailable
from .table import RoomTable

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("amteach.phones")

# the bots' game of `bots_in_the_same_seats` stops by itself (a round cap, a two-hour game's
# accounting); this bounds it should a rule set ever let a game run on
MOST_BOT_DECISIONS = 100_000
LARGEST_RENT, BANKRUPTCY = "largest_rent", "bankruptcy"


@dataclass(frozen=True)
class TaxChoice:
    """One income-tax decision (decision 1 of the rules spec: both amounts are shown)."""

    decision: int  # the decision's number in the table's log (from 1)
    round: int
    flat: int
    percent: int
    chose: str  # "flat" or "percent"
    made_by: str = ""  # "student" or "bot" (a bot played the seat then); "" if unknown

    @property
    def paid(self) -> int:
        return self.flat if self.chose == "flat" else self.percent

    @property
    def cheaper_amount(self) -> int:
        return min(self.flat, self.percent)

    @property
    def cheaper(self) -> bool:
        """The choice cost no more than the other option (a tie counts as cheaper)."""
        return self.paid == self.cheaper_amount

    @property
    def above_cheaper(self) -> int:
        """Dollars paid above the cheaper option (0 for the cheaper one)."""
        return self.paid - self.cheaper_amount


@dataclass(frozen=True)
class Moment:
    """A key moment of a table's game, which `board_at(game, decision)` shows on the board."""

    kind: str  # LARGEST_RENT or BANKRUPTCY
    decision: int  # replay the log up to and including this decision to see it
    round: int
    payer: int  # the seat that paid (went bankrupt)
    payee: int  # the seat paid (the creditor; engine.terms.TREASURY for the Treasury)
    amount: int  # the rent, or the debt that could not be paid
    text: str  # the engine's own sentence for it

    def involves(self, seat: int) -> bool:
        return seat in (self.payer, self.payee)


@dataclass(frozen=True)
class Play:
    """What one seat's play came to: rent paid and earned, and cash at the end (after the
    final accounting when the game is over)."""

    rent_paid: int
    rent_earned: int
    final_cash: int


@dataclass(frozen=True)
class SeatDebrief:
    seat: int
    name: str
    role: int  # 0 Competitor, 1 Monopolist
    student: bool  # a student sat here (else a bot played it all game)
    taxes: tuple[TaxChoice, ...]
    play: Play  # what happened at the table
    bot: Play  # a bot in the same seat with the same dice (`bots_in_the_same_seats`)
    houses_built: int
    apartments_built: int
    build_cost: int
    buildings_sold: int
    sale_refunds: int
    mortgages: int
    mortgage_cash: int
    redemptions: int
    redeem_cost: int
    bankrupt_at: int | None  # the decision at which the seat went bankrupt
    moments: tuple[Moment, ...]  # the table's key moments this seat took part in

    @property
    def cheaper_choices(self) -> int:
        return sum(t.cheaper for t in self.taxes)

    @property
    def above_cheaper(self) -> int:
        """Dollars of income tax paid above the cheaper option, over the whole game."""
        return sum(t.above_cheaper for t in self.taxes)


@dataclass(frozen=True)
class BotGame:
    """The table's game played again from its set-up (seed, dice, seats) by bots."""

    game: Game
    bots: tuple[str, ...]  # the bot of each seat
    replaced: tuple[int, ...]  # the seats a student played at the table
    first_difference: int | None  # the first decision where a bot chose otherwise
    stop: str  # how far it was played, in words


@dataclass(frozen=True)
class TableDebrief:
    table: int  # from 0 (shown from 1)
    over: bool
    round: int
    decisions: int
    rules: str  # the table's rule set (treatments), or the rules preset's name
    ending: str  # the engine's game type: A, B or two-hour
    seats: tuple[SeatDebrief, ...]
    moments: tuple[Moment, ...]
    bot_game: BotGame
    accounting: AccountingBreakdown | None = field(default=None)

    def seat(self, seat: int) -> SeatDebrief:
        return self.seats[seat]


# -- reading a game ---------------------------------------------------------------------------------
def decision_events(game: Game) -> list[tuple[int, ev.Event]]:
    """Each event of `game` with the number of the decision that caused it (0: the set-up),
    by playing the game again from its set-up (`Game.apply` returns a decision's events)."""
    again = Game(game.setup, game.board)
    out: list[tuple[int, ev.Event]] = [(0, event) for event in again.events]
    for number, decision in enumerate(game.decisions, start=1):
        out.extend((number, event) for event in again.apply(decision))
    return out


def board_at(game: Game, decision: int) -> Game:
    """The game just after decision `decision` (0: the set-up), from its set-up and log."""
    decision = max(0, min(decision, len(game.decisions)))
    return Game.replay(game.setup, list(game.decisions[:decision]), game.board)


class _Turns:
    """Where a game is: the turns begun so far, and the decisions since the last one began.
    The same count on the table's game and the bots' tells the bots where to stop."""

    def __init__(self, events: Sequence[ev.Event]) -> None:
        self.turns = sum(isinstance(e, ev.TurnStarted) for e in events)
        self.since = 0

    def after(self, events: Sequence[ev.Event]) -> None:
        begun = sum(isinstance(e, ev.TurnStarted) for e in events)
        self.turns, self.since = (self.turns + begun, 0) if begun else (self.turns, self.since + 1)

    @property
    def at(self) -> tuple[int, int]:
        return self.turns, self.since


def _where_it_stopped(game: Game) -> tuple[str, tuple[int, int]]:
    """How the bots' game stops, by how the table's did: "time" (the two-hour timer ended it at
    this point: the bots' accounting starts at the same point), "own_end" (a round cap: the
    bots play to the same cap), or "point" (a bankruptcy ended it, or it goes on: the bots stop
    at the same point)."""
    again = Game(game.setup, game.board)
    turns = _Turns(again.events)
    for decision in game.decisions:
        if decision.kind == "end_game":
            return "time", turns.at
        turns.after(again.apply(decision))
    if game.end_reason == "round_cap":
        return "own_end", turns.at
    return "point", turns.at


def bots_in_the_same_seats(
    game: Game, bots: Sequence[str], replaced: Sequence[int] = ()
) -> BotGame:
    """`game` played again from its own set-up and seed (the same dice stream, the same
    cards) by `bots` (one per seat; each seeded as a table seeds it, seed + seat) to the
    point the table reached: the same turn when the timer ended it, the same round cap, or
    the same turn when it stopped otherwise."""
    again = Game(game.setup, game.board)
    players = [make_strategy(bot, seed=game.setup.seed + seat) for seat, bot in enumerate(bots)]
    mode, target = _where_it_stopped(game)
    turns = _Turns(again.events)
    first: int | None = None
    for _ in range(MOST_BOT_DECISIONS):
        if again.over:
            break
        if mode != "own_end" and turns.at >= target:
            if mode == "point":
                break
            if again.phase != "final_adjust" and again.is_legal("end_game"):
                choice = again.parse_choice("end_game")
            else:
                choice = players[again.actor].choose(again, again.legal())
        else:
            choice = players[again.actor].choose(again, again.legal())
        number = len(again.decisions)
        if (
            first is None
            and number < len(game.decisions)
            and game.decisions[number].to_json() != choice.to_json()
        ):
            first = number + 1
        turns.after(again.apply(choice))
    stop = {
        "time": f"to the same turn (round {again.round}), then the same final accounting",
        "own_end": "to the same round limit",
        "point": f"to the same turn (round {again.round})",
    }[mode]
    return BotGame(again, tuple(bots), tuple(replaced), first, stop)


def play_of(game: Game) -> list[Play]:
    """Each seat's rent paid and earned (its `RentPaid` events, as `sim.play` counts them) and
    its cash now."""
    paid, earned = [0] * len(game.names), [0] * len(game.names)
    for event in game.events:
        if isinstance(event, ev.RentPaid):
            paid[event.payer] += event.amount
            earned[event.payee] += event.amount
    return [Play(paid[p], earned[p], game.cash[p]) for p in range(len(game.names))]


def game_debrief(
    game: Game,
    students: Sequence[bool],
    bots: Sequence[str],
    made_by: dict[int, str] | None = None,
    table: int = 0,
    rules: str | None = None,
) -> TableDebrief:
    """The debrief of one game: `students[seat]` says a student sat there, `bots[seat]` is the
    bot that plays the seat when nobody does (the room's bot for a student's seat), and
    `made_by` (decision number -> "student", "bot" or "timer", from the room's log) who made
    each decision; `rules` names the table's rule set (default: the rules preset's name)."""
    made_by = made_by or {}
    n = len(game.names)
    taxes: list[list[TaxChoice]] = [[] for _ in range(n)]
    built = [[0, 0, 0] for _ in range(n)]  # houses, apartments, cost
    sold = [[0, 0] for _ in range(n)]  # buildings, refunds
    mortgaged = [[0, 0] for _ in range(n)]
    redeemed = [[0, 0] for _ in range(n)]
    bankrupt: list[int | None] = [None] * n
    moments: list[Moment] = []
    largest: Moment | None = None
    round_now = 1
    for number, event in decision_events(game):
        if isinstance(event, ev.TurnStarted):
            round_now = event.round
        elif isinstance(event, ev.IncomeTaxChoice):
            taxes[event.player].append(
                TaxChoice(
                    number,
                    round_now,
                    event.flat,
                    event.percent,
                    event.choice,
                    made_by.get(number, ""),
                )
            )
        elif isinstance(event, ev.RentPaid):
            if largest is None or event.amount > largest.amount:
                largest = Moment(
                    LARGEST_RENT,
                    number,
                    round_now,
                    event.payer,
                    event.payee,
                    event.amount,
                    event.text,
                )
        elif isinstance(event, ev.Built):
            built[event.player][0 if event.building == "house" else 1] += 1
            built[event.player][2] += event.cost
        elif isinstance(event, ev.BuildingSold):
            sold[event.player][0] += 1
            sold[event.player][1] += event.refund
        elif isinstance(event, ev.Mortgaged):
            mortgaged[event.player][0] += 1
            mortgaged[event.player][1] += event.amount
        elif isinstance(event, ev.Redeemed):
            redeemed[event.player][0] += 1
            redeemed[event.player][1] += event.amount
        elif isinstance(event, ev.Bankrupt):
            bankrupt[event.player] = number
            moments.append(
                Moment(
                    BANKRUPTCY,
                    number,
                    round_now,
                    event.player,
                    event.payee,
                    event.debt,
                    event.text,
                )
            )
    if largest is not None:
        moments.append(largest)
    moments.sort(key=lambda m: m.decision)  # in the order they happened
    replaced = tuple(seat for seat in range(n) if students[seat])
    bot_game = bots_in_the_same_seats(game, bots, replaced)
    here, there = play_of(game), play_of(bot_game.game)
    seats = tuple(
        SeatDebrief(
            seat=p,
            name=game.names[p],
            role=game.roles[p],
            student=bool(students[p]),
            taxes=tuple(taxes[p]),
            play=here[p],
            bot=there[p],
            houses_built=built[p][0],
            apartments_built=built[p][1],
            build_cost=built[p][2],
            buildings_sold=sold[p][0],
            sale_refunds=sold[p][1],
            mortgages=mortgaged[p][0],
            mortgage_cash=mortgaged[p][1],
            redemptions=redeemed[p][0],
            redeem_cost=redeemed[p][1],
            bankrupt_at=bankrupt[p],
            moments=tuple(m for m in moments if m.involves(p)),
        )
        for p in range(n)
    )
    return TableDebrief(
        table=table,
        over=game.over,
        round=game.round,
        decisions=len(game.decisions),
        rules=rules or game.rules.preset_name,
        ending=game.setup.game_type,
        seats=seats,
        moments=tuple(moments),
        bot_game=bot_game,
        accounting=accounting_breakdown(game) if game.over else None,
    )


def table_debrief(table: RoomTable) -> TableDebrief:
    """The debrief of a room's table, with who made each decision read from its log."""
    made_by = {number: by for number, _, _, by in table.rooms.decisions(table.code, table.table_no)}
    rows = table.seat_rows
    return game_debrief(
        table.game,
        [row.name is not None for row in rows],
        [row.bot for row in rows],
        made_by,
        table.table_no,
        table.info.settings.rule_set(table.table_no).label,
    )


# a table's debrief, kept while its log stays as it is (a server shows it to every phone of
# the table, and again after each change of a phone's view)
_KEPT: weakref.WeakKeyDictionary[RoomTable, tuple[int, TableDebrief]] = weakref.WeakKeyDictionary()


def kept_debrief(table: RoomTable) -> TableDebrief:
    """`table_debrief`, computed once per state of the table's log."""
    kept = _KEPT.get(table)
    if kept is not None and kept[0] == len(table.game.decisions):
        return kept[1]
    made = table_debrief(table)
    _KEPT[table] = (len(table.game.decisions), made)
    return made


def shows_debrief(table: RoomTable) -> bool:
    """A student sees their debrief once the table's game is over, or the class has ended."""
    return table.game.over or table.info.status == ENDED


# -- words ------------------------------------------------------------------------------------------
def money(amount: int) -> str:
    return f"-${-amount:,}" if amount < 0 else f"${amount:,}"


def _count(number: int, word: str) -> str:
    return f"{number} {word}" if number == 1 else f"{number} {word}s"


def tax_sentence(seat: SeatDebrief, you: bool = True) -> str:
    who = "You" if you else seat.name
    if not seat.taxes:
        return f"{who} never landed on Income Tax."
    bots = sum(t.made_by not in ("", STUDENT) for t in seat.taxes)
    by_bot = f" ({bots} of them made by the bot while {'you were' if you else 'they were'} away)"
    text = (
        f"Income tax: {who.lower() if you else who} chose the cheaper option "
        f"{seat.cheaper_choices} of {_count(len(seat.taxes), 'time')}"
        + (by_bot if bots and seat.student else "")
        + "; "
    )
    text = text[0].upper() + text[1:]
    if seat.above_cheaper:
        text += f"{money(seat.above_cheaper)} paid above the cheaper option in all."
    else:
        text += "nothing paid above the cheaper option."
    return text


def rent_sentence(seat: SeatDebrief, bot_game: BotGame, you: bool = True) -> str:
    who, where = ("you", "your seat") if you else (seat.name, "the same seat")
    return (
        f"Rent: {who} paid {money(seat.play.rent_paid)} and earned "
        f"{money(seat.play.rent_earned)}. A bot in {where} with the same dice paid "
        f"{money(seat.bot.rent_paid)} and earned {money(seat.bot.rent_earned)} (played "
        f"{bot_game.stop}). After one different choice the rest of the game differs too."
    )


def buildings_sentence(seat: SeatDebrief, you: bool = True) -> str:
    who = "You" if you else seat.name
    parts = []
    if seat.houses_built or seat.apartments_built:
        built = [
            _count(seat.houses_built, "house") if seat.houses_built else "",
            _count(seat.apartments_built, "apartment") if seat.apartments_built else "",
        ]
        parts.append(f"built {' and '.join(b for b in built if b)} ({money(seat.build_cost)})")
    else:
        parts.append("built nothing")
    if seat.buildings_sold:
        parts.append(f"sold {_count(seat.buildings_sold, 'building')} ({money(seat.sale_refunds)})")
    if seat.mortgages:
        parts.append(f"mortgaged {_count(seat.mortgages, 'title')} ({money(seat.mortgage_cash)})")
    if seat.redemptions:
        parts.append(f"redeemed {_count(seat.redemptions, 'title')} ({money(seat.redeem_cost)})")
    return f"{who} {', '.join(parts)}."


def moment_sentence(moment: Moment, names: Sequence[str]) -> str:
    def name(seat: int) -> str:
        return names[seat] if 0 <= seat < len(names) else "the Treasury"

    if moment.kind == LARGEST_RENT:
        return (
            f"The largest rent: {name(moment.payer)} paid {name(moment.payee)} "
            f"{money(moment.amount)} (round {moment.round}, decision {moment.decision})."
        )
    return (
        f"{name(moment.payer)} went bankrupt owing {name(moment.payee)} "
        f"{money(moment.amount)} (round {moment.round}, decision {moment.decision})."
    )


def level_before(debrief: TableDebrief) -> list[int]:
    """The seats with the most cash when the final accounting began (more than one: a tie),
    among the seats still in; [] without an accounting."""
    acc = debrief.accounting
    if acc is None:
        return []
    inside = [s for s in acc.seats if debrief.seats[s.seat].bankrupt_at is None]
    top = max((s.cash_before for s in inside), default=0)
    return [s.seat for s in inside if s.cash_before == top]


def accounting_decided(debrief: TableDebrief) -> bool:
    """The final accounting decided who won: it changed the leader, or broke a tie."""
    acc = debrief.accounting
    return acc is not None and (acc.changed_winner or len(level_before(debrief)) > 1)


def accounting_sentence(debrief: TableDebrief, names: Sequence[str]) -> str:
    """What decided the game: the standing before the final accounting, what the keep shares
    and the Treasurer's tour changed, and the standing after it."""
    acc = debrief.accounting
    if acc is None:
        if debrief.over:
            return "The game ended before any final accounting (a bankruptcy decided it)."
        return "The game did not reach its final accounting."
    # a seat bankrupt before the accounting took no part in it
    inside = [s for s in acc.seats if debrief.seats[s.seat].bankrupt_at is None]

    def standing(cash: Sequence[int]) -> str:
        order = sorted(inside, key=lambda s: -cash[s.seat])
        return ", ".join(f"{names[s.seat]} {money(cash[s.seat])}" for s in order)

    keeps = {
        ROLE_PLURALS[s.role == "monopolist"]: s.kept_percent for s in acc.seats if s.kept_percent
    }
    if len(keeps) > 1 and len(set(keeps.values())) == 1:  # equal keep shares
        kept = f"Both roles kept {next(iter(keeps.values()))}%"
    else:
        kept = " and ".join(f"{role} kept {percent}%" for role, percent in sorted(keeps.items()))
    tour = sum(s.treasurer_rent for s in acc.seats)
    before = [s.cash_before for s in acc.seats]
    after = [s.cash_after for s in acc.seats]
    winner = "nobody" if acc.winner is None else names[acc.winner]
    level = [names[seat] for seat in level_before(debrief)]
    if len(level) > 1:  # a tie: the engine's rule names the first seat, but nobody led
        led = f"{' and '.join(level)} were level"
    else:
        led = f"{'nobody' if acc.leader_before is None else names[acc.leader_before]} led"
    text = (
        f"What decided this game: before the final accounting {led} "
        f"({standing(before)}). {kept or 'Nobody kept anything'} of their cash, and the "
        f"Treasurer's tour paid {money(tour)} in rent. After it: {standing(after)}; "
        f"{winner} won."
    )
    if len(level) > 1:
        text += " The final accounting decided the winner."
    elif acc.changed_winner:
        text += " The final accounting changed the winner."
    else:
        text += " The final accounting did not change the winner."
    return text


# -- the phone's part -------------------------------------------------------------------------------
def phone_html(debrief: TableDebrief, seat: int) -> Markup:
    """A student's own debrief on a 390-pixel phone: a few short lines and a small table."""
    mine = debrief.seat(seat)
    names = [s.name for s in debrief.seats]
    lines = [
        tax_sentence(mine),
        rent_sentence(mine, debrief.bot_game),
        buildings_sentence(mine),
        *(moment_sentence(m, names) for m in mine.moments),
        accounting_sentence(debrief, names),
    ]
    rows = (
        ("Rent paid", mine.play.rent_paid, mine.bot.rent_paid),
        ("Rent earned", mine.play.rent_earned, mine.bot.rent_earned),
        ("Cash at the end", mine.play.final_cash, mine.bot.final_cash),
    )
    table = html_join(
        html_text("<tr><th scope='row'>{}</th><td>{}</td><td>{}</td></tr>", a, money(b), money(c))
        for a, b, c in rows
    )
    return html_text(
        '<section class="am-debrief" aria-labelledby="am-debrief-head">'
        '<h2 class="am-heading" id="am-debrief-head">Your debrief</h2>'
        "<p>Table {table}, {round}, {decisions}. Your seat: "
        '<span style="color:{colour};font-weight:600">{shape} {role}</span>.</p>'
        "<ul>{lines}</ul>"
        '<table class="am-debrief-table"><caption>You and a bot in your seat (same dice)'
        "</caption><thead><tr><th scope='col'></th><th scope='col'>You</th>"
        "<th scope='col'>Bot</th></tr></thead><tbody>{rows}</tbody></table></section>",
        table=debrief.table + 1,
        round=_count(debrief.round, "round"),
        decisions=_count(debrief.decisions, "decision"),
        colour=ROLE_COLOURS[mine.role],
        shape=ROLE_SHAPES[mine.role],
        role=ROLE_LABELS[mine.role],
        lines=html_join(html_text("<li>{}</li>", line) for line in lines),
        rows=table,
    )


def phone_part(table: RoomTable, seat: int) -> str:
    """The `debrief` part of a seat's phone view: empty until the game is over."""
    if not shows_debrief(table):
        return ""
    try:
        return str(phone_html(kept_debrief(table), seat))
    except RoomsUnavailable:
        raise  # the hub says so to every phone, and reads again when the database is back
    except Exception:  # a bug of ours must not stop the server's tables: logged, one line shown
        log.exception("the debrief of table %d of room %s failed", table.table_no + 1, table.code)
        return str(html_text("<p>Your debrief could not be drawn; ask your teacher.</p>"))


# -- the class --------------------------------------------------------------------------------------
CLASS_COLUMNS = (
    "table",
    "seat",
    "name",
    "role",
    "player",
    "rules",
    "rounds",
    "over",
    "tax_choices",
    "tax_cheaper",
    "tax_above_cheaper",
    "rent_paid",
    "rent_earned",
    "final_cash",
    "bot_rent_paid",
    "bot_rent_earned",
    "bot_final_cash",
    "houses_built",
    "apartments_built",
    "buildings_sold",
    "mortgages",
    "redemptions",
    "bankrupt_at",
    "won",
    "led_before_accounting",
    "accounting_decided",
)


def class_frame(debriefs: Sequence[TableDebrief]) -> pd.DataFrame:
    """One row per seat of every table (tidy, for the projector and a download): table (from
    1), seat (from 0, as the log), name, role, "student" or "bot", the table's rule set, the
    rounds played, the tax
    choices, rent and cash beside the bot in the same seat, buildings and mortgages, the
    decision of a bankruptcy (-1: none), whether the seat won and led before the final
    accounting (a tie: the first seat of the most, the engine's rule), and whether the
    accounting decided the table's winner (`accounting_decided`)."""
    import pandas as pd

    rows: list[tuple[Any, ...]] = []
    for debrief in debriefs:
        acc = debrief.accounting
        winner = acc.winner if acc is not None else None
        leader = acc.leader_before if acc is not None else None
        for s in debrief.seats:
            rows.append(
                (
                    debrief.table + 1,
                    s.seat,
                    s.name,
                    ("competitor", "monopolist")[s.role],
                    "student" if s.student else "bot",
                    debrief.rules,
                    debrief.round,
                    debrief.over,
                    len(s.taxes),
                    s.cheaper_choices,
                    s.above_cheaper,
                    s.play.rent_paid,
                    s.play.rent_earned,
                    s.play.final_cash,
                    s.bot.rent_paid,
                    s.bot.rent_earned,
                    s.bot.final_cash,
                    s.houses_built,
                    s.apartments_built,
                    s.buildings_sold,
                    s.mortgages,
                    s.redemptions,
                    -1 if s.bankrupt_at is None else s.bankrupt_at,
                    winner == s.seat,
                    leader == s.seat,
                    accounting_decided(debrief),
                )
            )
    return pd.DataFrame(rows, columns=list(CLASS_COLUMNS))


def class_debrief(tables: Sequence[RoomTable]) -> pd.DataFrame:
    """The class's debrief as one tidy frame (`class_frame`), one row per seat of every
    table, in table order."""
    return class_frame([kept_debrief(table) for table in tables])


__all__ = [
    "BANKRUPTCY",
    "CLASS_COLUMNS",
    "LARGEST_RENT",
    "BotGame",
    "Moment",
    "Play",
    "SeatDebrief",
    "TableDebrief",
    "TaxChoice",
    "accounting_decided",
    "accounting_sentence",
    "board_at",
    "bots_in_the_same_seats",
    "buildings_sentence",
    "class_debrief",
    "class_frame",
    "decision_events",
    "game_debrief",
    "kept_debrief",
    "level_before",
    "moment_sentence",
    "money",
    "phone_html",
    "phone_part",
    "play_of",
    "rent_sentence",
    "shows_debrief",
    "table_debrief",
    "tax_sentence",
]
