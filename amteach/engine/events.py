"""Typed events: the one record of what happened in a game.

Events are cheap records (player indices, amounts, space indices). Their English sentence is
rendered only when someone reads `event.text`, so a batch run that never narrates pays nothing
for it. `TREASURY` stands where the Treasury pays or is paid.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from ..style import ROLE_LABELS
from .board import Board
from .terms import NO_SPACE, TREASURY, PaymentReason

HOLD_NAMES = ("Price War", "Prison")


@dataclass(frozen=True, slots=True)
class Table:
    """Who sits at the game: names and roles by seat, and the board. Shared by all events."""

    names: tuple[str, ...]
    roles: tuple[int, ...]
    board: Board

    def who(self, player: int) -> str:
        if player == TREASURY:
            return "the Treasury"
        return f"{self.names[player]} ({ROLE_LABELS[self.roles[player]]})"

    def name(self, player: int) -> str:
        return "the Treasury" if player == TREASURY else self.names[player]

    def space(self, index: int) -> str:
        return self.board.spaces[index].name

    def hold(self, player: int) -> str:
        return HOLD_NAMES[self.roles[player]]


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


@dataclass(slots=True)
class Event:
    """Base of all events. `type` is a stable snake_case name; `text` is one English sentence."""

    type: ClassVar[str] = "event"
    # shared by every event of a game, and as large as the board: left out of repr so that
    # an event prints in a line, not in kilobytes
    table: Table = field(repr=False)

    @property
    def text(self) -> str:
        # names such as "Rush St." already end in a full stop
        return self._text(self.table).replace("..", ".")

    def _text(self, t: Table) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for member in fields(self):
            if member.name != "table":
                value = getattr(self, member.name)
                out[member.name] = list(value) if isinstance(value, tuple) else value
        out["text"] = self.text
        return out


@dataclass(slots=True)
class TurnStarted(Event):
    type: ClassVar[str] = "turn_started"
    player: int
    round: int

    def _text(self, t: Table) -> str:
        return f"Round {self.round}: {t.who(self.player)} begins a turn."


@dataclass(slots=True)
class DiceThrown(Event):
    type: ClassVar[str] = "dice"
    player: int
    dice: tuple[int, ...]
    purpose: str  # move | doubles_attempt | foundation | card

    def _text(self, t: Table) -> str:
        shown = " and ".join(str(d) for d in self.dice)
        total = sum(self.dice)
        doubles = len(self.dice) == 2 and self.dice[0] == self.dice[1]
        if self.purpose == "doubles_attempt":
            outcome = "doubles, and leaves" if doubles else "no doubles, so stays"
            return f"{t.name(self.player)} tries for doubles in {t.hold(self.player)}: {shown}, {outcome}."
        if self.purpose == "foundation":
            return f"{t.name(self.player)} throws one die at the Foundation: {shown}."
        extra = " (doubles)" if doubles and self.purpose == "move" else ""
        return f"{t.name(self.player)} throws {shown}: {total}{extra}."


@dataclass(slots=True)
class Moved(Event):
    type: ClassVar[str] = "moved"
    player: int
    start: int
    end: int
    by: str  # dice | card

    def _text(self, t: Table) -> str:
        how = "" if self.by == "dice" else " on a card's orders"
        return (
            f"{t.name(self.player)} moves{how} from {t.space(self.start)} to {t.space(self.end)}."
        )


_PAYMENT_TEXT: dict[str, str] = {
    "start": "{payee} collects ${amount} for reaching START.",
    "income_tax": "{payer} pays ${amount} income tax.",
    "property_tax": "{payer} pays ${amount} property tax.",
    "foundation_fee": "{payer} pays the Anti-Monopoly Foundation ${amount}: Monopolists pay a fee there.",
    "foundation_grant": "{payee} collects ${amount} from the Anti-Monopoly Foundation.",
    "card": "{payer} pays {payee_name} ${amount} because of a card.",
    "fine": "{payer} pays a ${amount} fine to leave {hold}.",
    "settlement": "{payer} hands ${amount} to the Treasury in the final accounting, keeping {percent}% of their cash.",
    "trade": "{payer} pays {payee_name} ${amount} as part of a trade.",
}


@dataclass(slots=True)
class Payment(Event):
    """Money moving for any reason but rent (which has its own event, with its why)."""

    type: ClassVar[str] = "payment"
    payer: int
    payee: int
    amount: int
    reason: PaymentReason
    space: int = NO_SPACE
    percent: int = 0

    def _text(self, t: Table) -> str:
        if self.reason == PaymentReason.CARD and self.payer == TREASURY:
            return f"{t.who(self.payee)} collects ${self.amount} because of a card."
        if self.reason == PaymentReason.CARD and self.payee == TREASURY:
            return f"{t.who(self.payer)} pays ${self.amount} to the Treasury because of a card."
        holder = self.payer if self.payer != TREASURY else self.payee
        return _PAYMENT_TEXT[self.reason].format(
            payer=t.who(self.payer),
            payee=t.who(self.payee),
            payee_name=t.name(self.payee),
            amount=self.amount,
            hold=t.hold(holder) if holder != TREASURY else "",
            percent=self.percent,
        )


@dataclass(slots=True)
class RentPaid(Event):
    """Rent, with the basis that explains the amount (for the narration's "why")."""

    type: ClassVar[str] = "rent"
    payer: int
    payee: int
    space: int
    amount: int
    basis: str  # see RENT_BASES in game.py
    count: int = 0
    dice: int = 0

    def _text(self, t: Table) -> str:
        return (
            f"{t.who(self.payer)} pays {t.who(self.payee)} ${self.amount} rent for "
            f"{t.space(self.space)}{rent_reason(t, self.payee, self.space, self.basis, self.count, self.dice)}."
        )


def rent_reason(t: Table, owner: int, space: int, basis: str, count: int, dice: int) -> str:
    """The clause that says why a rent is what it is (empty for a plain bare street)."""
    city = t.board.spaces[space].city
    owner_name = t.name(owner)
    if basis == "single":
        return f"; {owner_name} owns only one {city} street, so it is the single rent"
    if basis == "monopoly":
        return f"; {owner_name} owns {count} {city} streets, so the rent is doubled"
    if basis == "monopoly_houses":
        return f"; {city} is monopolized and the street has {_plural(count, 'house')}"
    if basis == "houses":
        return f"; the street has {_plural(count, 'house')}"
    if basis == "apartment":
        return "; the street has an apartment"
    if basis == "transport_competitor":
        return "; a Competitor's fare is the same however many companies they own"
    if basis == "transport_monopolist":
        if count == 1:
            return f"; {owner_name} owns 1 transport company"
        return f"; {owner_name} owns {count} transport companies, so the fare doubled with each"
    if basis == "utility":
        return f"; {count} times the dice total of {dice}"
    return ""


@dataclass(slots=True)
class NoRent(Event):
    type: ClassVar[str] = "no_rent"
    player: int
    other: int
    space: int
    reason: str  # prison | mortgaged

    def _text(self, t: Table) -> str:
        if self.reason == "prison":
            why = f"{t.name(self.other)} is in Prison, and a Monopolist in Prison collects no rent"
        else:
            why = "it is mortgaged, and a mortgaged title earns nothing"
        return f"{t.name(self.player)} owes no rent for {t.space(self.space)}: {why}."


@dataclass(slots=True)
class IncomeTaxDue(Event):
    """Decision 1: both amounts are shown before the player chooses."""

    type: ClassVar[str] = "income_tax_due"
    player: int
    flat: int
    percent: int
    cash: int
    property: int
    improvements: int
    rates: tuple[int, int, int]

    def _text(self, t: Table) -> str:
        r = self.rates
        return (
            f"{t.who(self.player)} lands on Income Tax and chooses: ${self.flat} flat, or ${self.percent} "
            f"({r[0]}% of ${self.cash} cash + {r[1]}% of ${self.property} property + "
            f"{r[2]}% of ${self.improvements} buildings)."
        )


@dataclass(slots=True)
class IncomeTaxChoice(IncomeTaxDue):
    """The choice made, with both amounts (one row of the taxes table)."""

    type: ClassVar[str] = "income_tax_choice"
    choice: str  # flat | percent

    def _text(self, t: Table) -> str:
        chosen, other = (
            (self.flat, self.percent) if self.choice == "flat" else (self.percent, self.flat)
        )
        label = "the flat tax" if self.choice == "flat" else "the percentage tax"
        if chosen < other:
            verdict = "the cheaper option"
        elif chosen == other:
            verdict = "the same either way"
        else:
            verdict = "not the cheaper option"
        return f"{t.who(self.player)} chooses {label}: ${chosen} instead of ${other} ({verdict})."


@dataclass(slots=True)
class Purchased(Event):
    type: ClassVar[str] = "purchase"
    player: int
    space: int
    price: int

    def _text(self, t: Table) -> str:
        return f"{t.who(self.player)} buys {t.space(self.space)} for ${self.price}."


@dataclass(slots=True)
class Declined(Event):
    type: ClassVar[str] = "decline"
    player: int
    space: int

    def _text(self, t: Table) -> str:
        return (
            f"{t.name(self.player)} does not buy {t.space(self.space)}; it stays with the Treasury."
        )


@dataclass(slots=True)
class CardDrawn(Event):
    type: ClassVar[str] = "card"
    player: int
    card: str

    def _text(self, t: Table) -> str:
        card = t.board.card(self.card)
        deck = ROLE_LABELS[card.deck]
        return f"{t.name(self.player)} draws a {deck} card: {card.text}"


@dataclass(slots=True)
class SentToHold(Event):
    type: ClassVar[str] = "sent_to_hold"
    player: int
    cause: str  # space | card

    def _text(self, t: Table) -> str:
        how = "by a card" if self.cause == "card" else "from the Go to Prison / Price War corner"
        extra = "" if t.roles[self.player] == 0 else " and collects no rent while there"
        return f"{t.who(self.player)} is sent to {t.hold(self.player)} {how}{extra}."


@dataclass(slots=True)
class LeftHold(Event):
    type: ClassVar[str] = "left_hold"
    player: int
    how: str  # fine | doubles

    def _text(self, t: Table) -> str:
        how = "by paying the fine" if self.how == "fine" else "by throwing doubles"
        return f"{t.name(self.player)} leaves {t.hold(self.player)} {how}."


@dataclass(slots=True)
class StayedHeld(Event):
    type: ClassVar[str] = "stayed_held"
    player: int
    turns_spent: int

    def _text(self, t: Table) -> str:
        return f"{t.name(self.player)} stays in {t.hold(self.player)} ({_plural(self.turns_spent, 'turn')} spent there)."


@dataclass(slots=True)
class Built(Event):
    type: ClassVar[str] = "build"
    player: int
    space: int
    building: str  # house | apartment
    cost: int

    def _text(self, t: Table) -> str:
        return f"{t.who(self.player)} builds {'an apartment' if self.building == 'apartment' else 'a house'} on {t.space(self.space)} for ${self.cost}."


@dataclass(slots=True)
class BuildingSold(Event):
    type: ClassVar[str] = "sell_building"
    player: int
    space: int
    building: str
    refund: int

    def _text(self, t: Table) -> str:
        return f"{t.name(self.player)} sells {'the apartment' if self.building == 'apartment' else 'a house'} on {t.space(self.space)} back to the Treasury for ${self.refund}."


@dataclass(slots=True)
class Mortgaged(Event):
    type: ClassVar[str] = "mortgage"
    player: int
    space: int
    amount: int

    def _text(self, t: Table) -> str:
        return f"{t.name(self.player)} mortgages {t.space(self.space)} and receives ${self.amount}."


@dataclass(slots=True)
class Redeemed(Event):
    type: ClassVar[str] = "redeem"
    player: int
    space: int
    amount: int

    def _text(self, t: Table) -> str:
        return f"{t.name(self.player)} pays ${self.amount} to lift the mortgage on {t.space(self.space)}."


def _titles(t: Table, spaces: tuple[int, ...]) -> str:
    return ", ".join(t.space(s) for s in spaces) or "no titles"


def _trade_terms(
    t: Table, player: int, other: int, give: tuple[int, ...], get: tuple[int, ...], pay: int
) -> str:
    parts = []
    if give:
        parts.append(f"{_titles(t, give)} to {t.name(other)}")
    if get:
        parts.append(f"{_titles(t, get)} from {t.name(other)}")
    if pay > 0:
        parts.append(f"${pay} paid by {t.name(player)}")
    elif pay < 0:
        parts.append(f"${-pay} paid by {t.name(other)}")
    return "; ".join(parts)


@dataclass(slots=True)
class TradeProposed(Event):
    type: ClassVar[str] = "trade_proposed"
    player: int
    other: int
    give: tuple[int, ...]
    get: tuple[int, ...]
    pay: int

    def _text(self, t: Table) -> str:
        return f"{t.who(self.player)} offers {t.who(self.other)} a trade: {_trade_terms(t, self.player, self.other, self.give, self.get, self.pay)}."


@dataclass(slots=True)
class TradeAnswered(Event):
    type: ClassVar[str] = "trade_answered"
    player: int  # who answered
    other: int  # who proposed
    accepted: bool
    give: tuple[int, ...]
    get: tuple[int, ...]
    pay: int

    def _text(self, t: Table) -> str:
        verb = "accepts" if self.accepted else "turns down"
        return f"{t.name(self.player)} {verb} {t.name(self.other)}'s trade ({_trade_terms(t, self.other, self.player, self.give, self.get, self.pay)})."


@dataclass(slots=True)
class MustRaiseMoney(Event):
    type: ClassVar[str] = "must_raise"
    player: int
    payee: int
    amount: int
    cash: int

    def _text(self, t: Table) -> str:
        return (
            f"{t.name(self.player)} owes {t.name(self.payee)} ${self.amount} but has only ${self.cash}, "
            "and must sell buildings or mortgage titles to pay."
        )


@dataclass(slots=True)
class Bankrupt(Event):
    type: ClassVar[str] = "bankrupt"
    player: int
    payee: int
    debt: int
    cash_handed: int
    titles: tuple[int, ...]

    def _text(self, t: Table) -> str:
        if self.payee == TREASURY:
            where = "their titles go back to the Treasury, unowned"
        else:
            where = f"{t.name(self.payee)} takes their ${self.cash_handed} and {_plural(len(self.titles), 'title')}"
        return f"{t.who(self.player)} cannot pay ${self.debt} to {t.name(self.payee)} and is bankrupt; {where}."


@dataclass(slots=True)
class FinalAccounting(Event):
    type: ClassVar[str] = "final_accounting"
    reason: str  # two_hour | round_cap

    def _text(self, t: Table) -> str:
        why = "Time is up" if self.reason == "two_hour" else "The round limit is reached"
        return (
            f"{why}: final accounting. Players may sell or buy buildings and mortgage or redeem "
            "with the Treasury, then hand over most of their cash, and the Treasurer travels once round the board paying rent."
        )


@dataclass(slots=True)
class TreasurerPaid(Event):
    type: ClassVar[str] = "treasurer_rent"
    payee: int
    space: int
    amount: int

    def _text(self, t: Table) -> str:
        return f"The Treasurer lands on {t.space(self.space)} and pays {t.name(self.payee)} ${self.amount}."


@dataclass(slots=True)
class GameOver(Event):
    type: ClassVar[str] = "game_over"
    winner: int | None
    reason: str  # game_a | game_b | two_hour | round_cap
    scores: tuple[int, ...]

    def _text(self, t: Table) -> str:
        how = {
            "game_a": "is the last player standing (Game A)",
            "game_b": "is the richest of the role still in play (Game B)",
            "two_hour": "has the most cash after the final accounting",
            "round_cap": "has the most cash after the final accounting (round limit reached)",
        }[self.reason]
        if self.winner is None:
            return "The game is over with no winner."
        return f"Game over: {t.who(self.winner)} wins; {t.name(self.winner)} {how}."


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        TurnStarted,
        DiceThrown,
        Moved,
        Payment,
        RentPaid,
        NoRent,
        IncomeTaxDue,
        IncomeTaxChoice,
        Purchased,
        Declined,
        CardDrawn,
        SentToHold,
        LeftHold,
        StayedHeld,
        Built,
        BuildingSold,
        Mortgaged,
        Redeemed,
        TradeProposed,
        TradeAnswered,
        MustRaiseMoney,
        Bankrupt,
        FinalAccounting,
        TreasurerPaid,
        GameOver,
    )
}
