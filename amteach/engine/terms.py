"""The engine's vocabulary: the phases of play, the reasons money moves, and the named values
that stand for "no player" in the engine's lists.

Phases and payment reasons are `StrEnum`s, so `game.phase == "pre_roll"` and
`payment.reason == "fine"` keep working, and both save and print as their plain text.
"""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """What kind of decision the game waits for (`game.phase`)."""

    PRE_ROLL = "pre_roll"
    BUY = "buy"
    INCOME_TAX = "income_tax"
    RAISE = "raise"
    POST_ROLL = "post_roll"
    TRADE_ANSWER = "trade_answer"
    FINAL_ADJUST = "final_adjust"
    OVER = "over"


class PaymentReason(StrEnum):
    """Why money moved in a `Payment` event (rent has its own event, `RentPaid`)."""

    START = "start"
    INCOME_TAX = "income_tax"
    PROPERTY_TAX = "property_tax"
    FOUNDATION_FEE = "foundation_fee"
    FOUNDATION_GRANT = "foundation_grant"
    CARD = "card"
    FINE = "fine"
    SETTLEMENT = "settlement"
    TRADE = "trade"


# -1 stands for three different things in the engine's lists; each has its own name
TREASURY = -1  # a payer or payee that is the Treasury, not a seat
NOBODY = (
    -1
)  # `game.owner[space]` of an unowned title; `game.state.pending_buy` when nothing is offered
NOT_HELD = -1  # `game.state.held[player]` of a player in neither Prison nor Price War
NO_SPACE = -1  # `Payment.space` when the payment is not tied to a space
