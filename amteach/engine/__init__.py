"""The rules of Anti-Monopoly: pure Python, no widgets, no file writes.

The engine's vocabulary is exported here: `Phase` (what a game waits for), `PaymentReason`
(why money moved), the named "no player" values (`TREASURY`, `NOBODY`, `NOT_HELD`,
`NO_SPACE`), and `landing_outcomes` (where a landing can lead, with its probability).
"""

from .game import Game, LandingOutcome, landing_outcomes
from .setup import PlayerSetup, Setup, TitleSetup, validate_setup
from .terms import NO_SPACE, NOBODY, NOT_HELD, TREASURY, PaymentReason, Phase

__all__ = [
    "NOBODY",
    "NOT_HELD",
    "NO_SPACE",
    "TREASURY",
    "Game",
    "LandingOutcome",
    "PaymentReason",
    "Phase",
    "PlayerSetup",
    "Setup",
    "TitleSetup",
    "landing_outcomes",
    "validate_setup",
]
