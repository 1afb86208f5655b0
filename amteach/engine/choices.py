"""Decisions a player can take, as small values that save to JSON and replay exactly."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CHOICE_KINDS = (
    "roll",
    "buy",
    "decline",
    "build",
    "sell_building",
    "mortgage",
    "redeem",
    "income_tax",
    "pay_fine",
    "trade",
    "accept",
    "reject",
    "end_turn",
    "end_game",
)
TITLE_CHOICES = ("build", "sell_building", "mortgage", "redeem")
TAX_OPTIONS = ("flat", "percent")


@dataclass(frozen=True, slots=True)
class Trade:
    """An offer from the player whose turn it is. `pay` > 0: the proposer pays that much cash;
    `pay` < 0: the proposer receives it. Titles are space indices."""

    other: int
    give: tuple[int, ...] = ()
    get: tuple[int, ...] = ()
    pay: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"with": self.other, "give": list(self.give), "get": list(self.get), "pay": self.pay}


@dataclass(frozen=True, slots=True)
class Choice:
    """One decision: a kind from CHOICE_KINDS and, where needed, its argument
    (a space index, "flat"/"percent", or a Trade)."""

    kind: str
    arg: Any = None

    def to_json(self) -> Any:
        if self.arg is None:
            return self.kind
        if isinstance(self.arg, Trade):
            return {self.kind: self.arg.to_json()}
        return {self.kind: self.arg}

    def __str__(self) -> str:
        return self.kind if self.arg is None else f"{self.kind} {self.arg}"


ROLL = Choice("roll")
BUY = Choice("buy")
DECLINE = Choice("decline")
PAY_FINE = Choice("pay_fine")
ACCEPT = Choice("accept")
REJECT = Choice("reject")
END_TURN = Choice("end_turn")
END_GAME = Choice("end_game")
TAX_FLAT = Choice("income_tax", "flat")
TAX_PERCENT = Choice("income_tax", "percent")
