"""How the two roles look everywhere: their names, colours and shapes, in one place for the
board (render), the live charts (ui) and the analysis charts. Roles are numbered as in the
engine: 0 is Competitor, 1 is Monopolist (`amteach.engine.board.ROLES` has their keys).

Colours follow the pawns (Competitors green, Monopolists blue) and always come with a label
and a shape, so the charts read without colour too. One pattern language on every chart:
Competitors are solid green (bars plain, lines solid, circles), Monopolists hatched blue
(bars hatched, lines dashed, squares).

The chart helpers below return plain dicts for plotly's layout, so this module imports
nothing: every chart takes its type size, axes and margins from here, and a change here
changes them all.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

ROLE_LABELS = ("Competitor", "Monopolist")
ROLE_PLURALS = ("Competitors", "Monopolists")
# Every colour here is 3:1 or more against white (lines, bars, pawns: WCAG 1.4.11), and the
# role colours 4.5:1 (they also colour text); tests/test_accessibility.py checks.
ROLE_COLOURS = ("#18763a", "#1f4fb4")  # Competitor green, Monopolist blue
# lighter and darker tones of each role's colour, for several players of one role on a chart
ROLE_TONES = (
    ("#18763a", "#40a055", "#0c4a21"),
    ("#1f4fb4", "#6388de", "#0f2a6e"),
)
ROLE_SHAPES = ("●", "■")  # as text
ROLE_SYMBOLS = ("circle", "square")  # the same shapes as plotly marker symbols
ROLE_PATTERNS = (
    "",
    "/",
)  # plotly bar fill patterns: plain for Competitors, hatched for Monopolists
ROLE_DASHES = ("solid", "dash")  # plotly line dashes
NEUTRAL_COLOUR = "#6b6b6b"  # bars that are not a role (bots, a mixed table)
# the player to move, on the board and in the players panel: amber, 3:1 against white and
# against the board's green
HIGHLIGHT_COLOUR = "#a86400"

# Type on charts: at least 14 px for tick labels, from the back of a classroom (plotly
# sizes every label from the layout's font unless told otherwise).
CHART_FONT_SIZE = 15
CHART_TITLE_SIZE = 18

# Axes that say what they count. Whole turns and rounds: always including 0 to 10 keeps
# plotly from placing ticks at half a turn. Dollars: whole dollars, from 0.
WHOLE_AXIS: dict[str, Any] = {"tickformat": ",d", "autorangeoptions": {"include": [0, 10]}}
DOLLAR_AXIS: dict[str, Any] = {"tickprefix": "$", "tickformat": ",d", "rangemode": "tozero"}
PERCENT_AXIS: dict[str, Any] = {"tickformat": ".0%", "range": [0, 1], "dtick": 0.2}


def role_bar(role: int) -> dict[str, Any]:
    """A bar's marker for a role: its colour, and plain or hatched."""
    return {
        "color": ROLE_COLOURS[role],
        "pattern": {"shape": ROLE_PATTERNS[role], "fgcolor": "#ffffff", "solidity": 0.35},
        "line": {"color": ROLE_COLOURS[role], "width": 1.5},
    }


def bar_patterns(roles: list[int | None]) -> dict[str, Any]:
    """Markers for bars that are each a role or neither (None: grey, plain)."""
    return {
        "color": [NEUTRAL_COLOUR if r is None else ROLE_COLOURS[r] for r in roles],
        "pattern": {
            "shape": ["" if r is None else ROLE_PATTERNS[r] for r in roles],
            "fgcolor": "#ffffff",
            "solidity": 0.35,
        },
        "line": {
            "color": [NEUTRAL_COLOUR if r is None else ROLE_COLOURS[r] for r in roles],
            "width": 1.5,
        },
    }


def _merged(base: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in more.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merged(out[key], value)
        else:
            out[key] = value
    return out


def chart_layout(title: str = "", **more: Any) -> dict[str, Any]:
    """A plotly layout for any amteach chart: the white template, type large enough for a
    projector, a title, and a legend under the plot; `more` adds or overrides (nested dicts
    are merged). The width is left to the page, so a chart fills its container."""
    base: dict[str, Any] = {
        "template": "plotly_white",
        "font": {"size": CHART_FONT_SIZE},
        "hoverlabel": {"font": {"size": CHART_FONT_SIZE}},
        "margin": {"l": 70, "r": 20, "t": 60, "b": 50},
        # the legend at the foot of the whole chart (container, not plot, coordinates): plotly
        # keeps the legend's height out of the plot's area, so the x-axis' tick labels and
        # title are laid out above it and never under it, however wide the chart or however
        # many lines the legend wraps to (a legend placed at a fraction of the plot's height
        # sat on the tick labels, issue 39)
        "legend": {
            "orientation": "h",
            "yref": "container",
            "y": 0,
            "yanchor": "bottom",
            "x": 0,
            "xanchor": "left",
        },
        # the axes make room for their own tick labels and titles
        "xaxis": {"automargin": True},
        "yaxis": {"automargin": True},
        "autosize": True,
    }
    if title:
        base["title"] = {
            "text": title,
            "font": {"size": CHART_TITLE_SIZE},
            "x": 0,
            "xref": "paper",
            "y": 0.985,  # at the top, whatever sits above the plot (a legend, subplot titles)
            "yref": "container",
            "yanchor": "top",
            "pad": {"t": 0},
        }
    return _merged(base, more)


# Pawns. Every seat's pawn at a table differs from every other's by its shape and by its
# initials, not only by colour: a role's seats take that role's shapes in seat order (its first
# seat keeps the role's own shape, circle or square), and a table holds at most three of a
# role (decision 13); a seventh player, or a fourth of one role, takes any shape still free.
# Competitors' pawns are filled solid and Monopolists' hatched, as on the charts, so a pawn
# tells its role without its colour too.
ROLE_PAWN_SHAPES = (("circle", "diamond", "triangle"), ("square", "hexagon", "pennant"))
PAWN_SHAPES = ("circle", "square", "diamond", "hexagon", "triangle", "pennant")
# each shape as a CSS clip-path of the pawn's box
PAWN_CLIPS = {
    "circle": "circle(50%)",
    "square": "inset(4% round 3px)",
    "diamond": "polygon(50% 0,100% 50%,50% 100%,0 50%)",
    "hexagon": "polygon(25% 4%,75% 4%,100% 50%,75% 96%,25% 96%,0 50%)",
    "triangle": "polygon(50% 0,100% 96%,0 96%)",  # pointing up
    "pennant": "polygon(0 4%,100% 4%,50% 100%)",  # a triangle pointing down
}
# the fill of a role's pawn: solid green, or blue hatched with its darker tone
PAWN_FILLS = (
    ROLE_COLOURS[0],
    f"repeating-linear-gradient(135deg,{ROLE_COLOURS[1]} 0 4px,{ROLE_TONES[1][2]} 4px 7px)",
)


def pawn_shapes(roles: list[int] | tuple[int, ...]) -> list[str]:
    """Each seat's pawn shape (a key of `PAWN_CLIPS`), all different for up to six seats."""
    return list(_pawn_shapes(tuple(roles)))


@lru_cache(maxsize=1024)  # a served class draws the same tables' pawns over and over
def _pawn_shapes(roles: tuple[int, ...]) -> tuple[str, ...]:
    used: set[str] = set()
    shapes = []
    for role in roles:
        free = [s for s in ROLE_PAWN_SHAPES[role] if s not in used] or [
            s for s in PAWN_SHAPES if s not in used
        ]
        shape = free[0] if free else PAWN_SHAPES[len(shapes) % len(PAWN_SHAPES)]
        used.add(shape)
        shapes.append(shape)
    return tuple(shapes)


def pawn_initials(names: list[str] | tuple[str, ...]) -> list[str]:
    """What each seat's pawn shows, different at one table: the name's first letter; where
    first letters clash, the letter and the name's number ("Bot 2": "B2"), or its first two
    letters ("Ben", "Bo": "Be", "Bo"), and the one name of the group with neither keeps the
    letter ("Ben", "Bot 2": "B", "B2"); if those still clash, the letter and a count ("Ben",
    "Bea": "B", "B2")."""
    return list(_pawn_initials(tuple(names)))


@lru_cache(maxsize=1024)
def _pawn_initials(names: tuple[str, ...]) -> tuple[str, ...]:
    words = ["".join(c for c in name if c.isalnum()) or name.strip() or "?" for name in names]
    firsts = [word[:1].upper() for word in words]
    out = list(firsts)
    for first in set(firsts):
        group = [i for i, f in enumerate(firsts) if f == first]
        if len(group) == 1:
            continue
        digits = {i: "".join(c for c in words[i] if c.isdigit()) for i in group}
        plain = [i for i in group if not digits[i]]
        for i in group:
            if digits[i]:
                out[i] = first + digits[i][-2:]
            elif len(plain) > 1:
                out[i] = first + words[i][1:2].lower()
        if len({out[i] for i in group}) < len(group):
            for k, i in enumerate(group):
                out[i] = first if k == 0 else f"{first}{k + 1}"
    return tuple(out)
