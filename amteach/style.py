"""How the two roles look everywhere: their names, colours and shapes, in one place for the
board (render), the live charts (ui) and the analysis charts. Roles are numbered as in the
engine: 0 is Competitor, 1 is Monopolist (`amteach.engine.board.ROLES` has their keys).

Colours follow the pawns (Competitors green, Monopolists blue) and always come with a label
and a shape, so the charts read without colour too.
"""

from __future__ import annotations

ROLE_LABELS = ("Competitor", "Monopolist")
ROLE_PLURALS = ("Competitors", "Monopolists")
ROLE_COLOURS = ("#1b7f3b", "#1f4fb4")  # Competitor green, Monopolist blue
ROLE_SHAPES = ("●", "■")  # as text
ROLE_SYMBOLS = ("circle", "square")  # the same shapes as plotly marker symbols
ROLE_PATTERNS = (
    "",
    "/",
)  # plotly bar fill patterns: plain for Competitors, hatched for Monopolists
ROLE_DASHES = ("solid", "dash")  # plotly line dashes
NEUTRAL_COLOUR = "#6b6b6b"  # bars that are not a role (bots, a mixed table)
