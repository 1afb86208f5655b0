"""What decided a game: the standing before the final accounting, what the accounting changed
and the standing after it (rules decision 12; issue 37).

A two-hour game (time up) or a batch game that reached its round cap ends in the final
accounting: each player still in may sell or buy buildings and mortgage or redeem with the
Treasury, then keeps the role's share of their cash (Competitors 10%, Monopolists 20% as
written) and hands the rest over, and the Treasurer's tour pays one landing's rent for every
owned, unmortgaged title. Most cash wins.

The breakdown is read from the game's state and events, and no rule is worked out here again:
the cash and the leader when the accounting began are what the engine recorded at that moment
(`game.state.cash_at_final`, `game.state.leader_at_final`: the winner's rule, `core.most_cash`, asked
then); the adjustments, the settlement and the Treasurer's rent are the events after
`FinalAccounting`; the cash after is the final cash.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import events as ev
from ..engine.board import ROLES
from ..engine.game import Game
from ..engine.terms import NOBODY, PaymentReason

# the endings that run the final accounting (the other two, game_a and game_b, do not)
ACCOUNTING_ENDINGS = ("two_hour", "round_cap")


@dataclass(frozen=True)
class SeatAccounting:
    """One seat's final accounting. A seat out of the game before it (bankrupt, to a player or
    to the Treasury) took no part: every amount is 0 and so is `kept_percent`
    (`game.bankrupt[seat]` tells it apart from a player who had nothing left)."""

    seat: int
    role: str  # "competitor" or "monopolist"
    cash_before: int  # cash when the final accounting began (time up / round cap)
    adjustments: int  # cash from selling/buying buildings, mortgaging, redeeming during it
    handed_over: int  # cash handed to the Treasury by the keep shares (the settlement)
    kept_percent: int
    treasurer_rent: int  # rent the Treasurer's tour paid this seat
    cash_after: int  # cash_before + adjustments - handed_over + treasurer_rent


@dataclass(frozen=True)
class AccountingBreakdown:
    """A game's final accounting, seat by seat, with the leader before it and the winner."""

    reason: str  # the game's end reason ("two_hour" or "round_cap")
    seats: tuple[SeatAccounting, ...]
    # the seat with most cash when the accounting began, by the winner's rule (the first seat
    # of the most); None when no one was left
    leader_before: int | None
    winner: int | None

    @property
    def changed_winner(self) -> bool:
        """Did the accounting change who wins (the leader before it is not the winner)?"""
        return self.leader_before != self.winner

    @property
    def changed_winning_role(self) -> bool:
        """Did the accounting hand the win to the other role than the leader's before it?"""
        return self._role(self.leader_before) != self._role(self.winner)

    def _role(self, seat: int | None) -> str | None:
        return None if seat is None else self.seats[seat].role


def accounting_breakdown(game: Game) -> AccountingBreakdown | None:
    """The final accounting of a finished game; None for a game not over, or over without
    the accounting (Game A's last player standing, Game B's richest)."""
    if not game.over or game.end_reason not in ACCOUNTING_ENDINGS:
        return None
    n = len(game.names)
    adjustments, handed_over, treasurer_rent = [0] * n, [0] * n, [0] * n
    kept_percent = [0] * n
    started = False
    for event in game.events:
        if isinstance(event, ev.FinalAccounting):
            started = True
        elif not started:
            continue
        elif isinstance(event, ev.BuildingSold):
            adjustments[event.player] += event.refund
        elif isinstance(event, ev.Built):
            adjustments[event.player] -= event.cost
        elif isinstance(event, ev.Mortgaged):
            adjustments[event.player] += event.amount
        elif isinstance(event, ev.Redeemed):
            adjustments[event.player] -= event.amount
        elif isinstance(event, ev.Payment) and event.reason == PaymentReason.SETTLEMENT:
            handed_over[event.payer] += event.amount
            kept_percent[event.payer] = event.percent
        elif isinstance(event, ev.TreasurerPaid):
            treasurer_rent[event.payee] += event.amount
    before = game.state.cash_at_final
    assert before is not None  # recorded by the engine when the accounting began
    seats = tuple(
        SeatAccounting(
            seat=p,
            role=ROLES[game.roles[p]],
            cash_before=before[p],
            adjustments=adjustments[p],
            handed_over=handed_over[p],
            kept_percent=kept_percent[p],
            treasurer_rent=treasurer_rent[p],
            cash_after=game.cash[p],
        )
        for p in range(n)
    )
    leader = game.state.leader_at_final
    return AccountingBreakdown(
        reason=game.end_reason,
        seats=seats,
        leader_before=None if leader == NOBODY else leader,
        winner=game.winner,
    )
