"""Reading a best-play run (`amteach.analysis.best_play_results.BestPlayResult`) for students:
each role's strategy in sentences and short bullets, what the run found in a paragraph
(`reading_best_play`), and the tournament matrix as a heatmap with its reading. Every
sentence keeps within the role's rules (never more houses than they allow).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from ..bots import KNOBS, FamilyParams
from ..engine.board import ROLES
from ..engine.errors import InputError
from ..engine.rules import RuleSet
from ..style import ROLE_COLOURS, ROLE_PLURALS
from . import stats
from .best_play_results import BEST, COMPETITOR, MONOPOLIST, NAMED, BestPlayResult, importance

if TYPE_CHECKING:
    import plotly.graph_objects as go

KNOB_WORDS = {
    "reserve": "how much cash they keep when buying",
    "streets": "whether they buy streets",
    "transports": "whether they buy transport companies",
    "utilities": "whether they buy utilities",
    "key_streets": "whether they pay for streets that complete or block a monopoly",
    "build_reserve": "how much cash they keep when building",
    "houses": "how many houses they build on a street",
    "apartments": "whether they build apartments",
    "build_order": "where they build first",
    "builds_per_turn": "how fast they build",
    "redeem_reserve": "when they redeem mortgages",
    "raise_first": "what they sell first to raise money",
    "tax": "their income-tax choice",
    "offer": "how much they offer for a street",
    "accept": "the price at which they accept a trade",
    "fine_cash": "when they pay to leave Prison or the Price War",
    "final_adjust": "whether they build and redeem at the final accounting",
    "team": "whether they sell a teammate the street that completes its city",
}


def role_max_houses(preset: str, role: str) -> int:
    """The most houses a role may build on a street under a preset's rules."""
    return RuleSet.preset(preset).max_houses(ROLES.index(role))


def strategy_words(params: FamilyParams, role: str | None, preset: str = "default") -> list[str]:
    """A strategy in sentences for a role under a preset's rules (never more houses than the
    rules allow the role)."""
    if role is None:
        return params.sentences(None)
    return params.sentences(ROLES.index(role), role_max_houses(preset, role))


def strategy_record(
    params: FamilyParams, role: str | None, preset: str = "default"
) -> dict[str, Any]:
    """A strategy as the JSON file keeps it: its text, its knobs and its words."""
    return {
        "text": params.text(),
        "knobs": params.as_dict(),
        "words": strategy_words(params, role, preset),
    }


def strategies_words(result: BestPlayResult) -> list[tuple[str, list[str]]]:
    """Each role's best strategy in sentences, for a page: (role's plural, sentences)."""
    preset = result.summary.get("preset", "default")
    return [
        (ROLE_PLURALS[ROLES.index(role)], strategy_words(result.best(role), role, preset))
        for role in ROLES
    ]


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def reading_best_play(result: BestPlayResult, top: int = 3) -> str:
    """Sentences for students: the Monopolists' win rate under the strongest strategies found,
    with its interval and the exact test against half; each role's strategy by its most
    important knobs; the features that matter most; and the conditions (round cap)."""
    summary = result.summary
    figures = summary.get("equilibrium") or {}
    if not figures:
        return "The search stopped before its final games, so there are no figures to read yet."
    m = figures[MONOPOLIST]
    test = stats.EvenTest(
        wins=m["wins"],
        games=figures["games"],
        plays_per_game=1,
        even=0.5,
        rate=m["rate"],
        low=m["ci_low"],
        high=m["ci_high"],
        p_value=figures["even_test"]["p_value"],
        confidence=stats.CONFIDENCE,
    )
    text = (
        f"Under the strongest strategies we found ({summary['preset']} rules), Monopolists win "
        f"{_percent(m['rate'])} of {figures['games']:,} fresh games (95% interval "
        f"{_percent(m['ci_low'])} to {_percent(m['ci_high'])}); against an even game's 50%, "
        + stats.even_verdict("they", test).replace("they won", "they win")
        + "."
    )
    for role, lead in (
        (COMPETITOR, "The Competitors' best strategy is to "),
        (MONOPOLIST, "the Monopolists' is to "),
    ):
        knobs = importance(result, role)["knob"].head(top).tolist() or [k.name for k in KNOBS[:top]]
        most = role_max_houses(summary["preset"], role)
        phrases = [
            knob_phrase(name, getattr(result.best(role), name), role, most) for name in knobs
        ]
        sentence = lead + _join_phrases(phrases)
        text += (" " if role == COMPETITOR else "; ") + sentence
    text += "."
    parts = []
    for role in ROLES:
        table = importance(result, role).head(top)
        if table.empty:
            continue
        names = [KNOB_WORDS[k] for k in table["knob"]]
        parts.append(
            f"for the {ROLE_PLURALS[ROLES.index(role)]}, {_join_phrases(names)} (moving one of "
            f"them alone costs up to {100 * table['drop'].max():.1f} points of their win rate)"
        )
    if parts:
        text += " The features that matter most are, " + "; and ".join(parts) + "."
    text += (
        f" The games stop at round {summary['round_cap']}, where a final accounting picks the "
        f"winner: it settled {_percent(figures['round_cap_share'])} of them."
    )
    if not summary.get("converged", False):
        text += (
            " The search stopped (its budget or its number of alternations ran out) before "
            "both roles stopped improving, so these are the strongest strategies found, not an "
            "equilibrium."
        )
    return text


def strategy_bullets(result: BestPlayResult, role: str, top: int = 4) -> list[str]:
    """A role's best strategy as a few short bullets for a page, what matters most first (by
    the sensitivity check), each within the role's rules ("Buy streets only when $475 is left
    after paying")."""
    params = result.best(role)
    knobs = importance(result, role)["knob"].tolist() or [k.name for k in KNOBS]
    most = role_max_houses(result.summary.get("preset", "default"), role)
    buys = {"streets": "streets", "transports": "transport companies", "utilities": "utilities"}
    bullets = []
    for name in knobs[:top]:
        value = getattr(params, name)
        if name in buys and value == 1:
            phrase = f"buy {buys[name]} only when ${params.reserve:,} is left after paying"
        else:
            phrase = knob_phrase(name, value, role, most)
        bullets.append(phrase[0].upper() + phrase[1:])
    return bullets


def _join_phrases(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def knob_phrase(name: str, value: int, role: str, max_houses: int | None = None) -> str:
    """A knob's value as a verb phrase ("keep $150 in hand when it buys"); `max_houses`, the
    most houses the role's rules allow, keeps the phrase within them."""
    knob = KNOBS[[k.name for k in KNOBS].index(name)]
    hold = "Prison" if role == MONOPOLIST else "the Price War"
    buys = {"streets": "streets", "transports": "transport companies", "utilities": "utilities"}
    if name in buys:
        return (
            f"never buy {buys[name]}",
            f"buy {buys[name]} only when they keep their reserve",
            f"buy {buys[name]} whenever they can pay",
        )[value]
    if name in ("reserve", "build_reserve"):
        return f"keep ${value:,} in hand when {'buying' if name == 'reserve' else 'building'}"
    if name == "redeem_reserve":
        return f"redeem mortgages only when they keep ${value:,}"
    if name == "houses":
        if value == 0:
            return "never build"
        if max_houses is not None and value >= max_houses:
            return f"build up to {max_houses} houses a street (the most their rules allow)"
        return f"build up to {value} houses a street"
    if name == "builds_per_turn":
        return f"put up at most {value} building{'s' if value > 1 else ''} a turn"
    if name == "offer":
        if value == 0:
            return "never offer to buy a street"
        goal = "to complete a city" if role == MONOPOLIST else "to block a Monopolist's city"
        times = "a street's price" if value == 4 else f"{knob.text(value)} times a street's price"
        return f"offer up to {times} {goal}"
    if name == "accept":
        return f"accept a trade only when they get {knob.text(value)} times what they give up"
    if name == "fine_cash":
        if value == 0:
            return f"pay the fine to leave {hold} at once"
        return f"pay to leave {hold} only with ${value:,} in hand"
    words = {
        "key_streets": (
            "treat every street alike",
            "pay for any street that completes their own monopoly",
            "pay for any street that completes a monopoly or blocks a rival Monopolist's",
        ),
        "apartments": ("never build apartments", "build apartments"),
        "build_order": (
            "build where one landing's rent rises most",
            "build where the expected rent per dollar rises most",
        ),
        "raise_first": (
            "sell buildings before mortgaging",
            "mortgage titles before selling buildings",
        ),
        "tax": (
            "pay the cheaper income tax",
            "always pay the flat income tax",
            "always pay the percentage income tax",
        ),
        "final_adjust": (
            "change nothing at the final accounting",
            "build and redeem at the final accounting",
        ),
        "team": (
            "treat a teammate's offer like any other",
            "sell a teammate the street that completes its city, at any price",
        ),
    }
    return words[name][value - knob.low]


# The heatmap's labels: each cell's win rate, and its interval under it at 16 px, the least any
# text on a projected chart has (issue 39). On a large screen projector.css makes both grow.
RATE_LABEL_SIZE = 17
INTERVAL_LABEL_SIZE = 16


def matrix_figure(matrix: pd.DataFrame) -> go.Figure:
    """The tournament matrix as a heatmap: rows the Competitors' strategies, columns the
    Monopolists', each cell the Monopolists' win rate with its 95% interval written in it.
    Blue where Monopolists win, green where Competitors do, white at an even game."""
    import plotly.graph_objects as go

    if matrix.empty or "monopolist_rate" not in matrix:
        raise InputError("not a tournament matrix (no win rates)", field="matrix")
    rows = list(dict.fromkeys(matrix["competitor"]))
    cols = list(dict.fromkeys(matrix["monopolist"]))
    cells = matrix.set_index(["competitor", "monopolist"])
    z = [[float(cells.loc[(r, c), "monopolist_rate"]) for c in cols] for r in rows]
    text = [
        [
            f"{100 * cells.loc[(r, c), 'monopolist_rate']:.0f}%<br>"
            f"<span style='font-size:{INTERVAL_LABEL_SIZE}px'>"
            f"{100 * cells.loc[(r, c), 'monopolist_ci_low']:.0f}–"
            f"{100 * cells.loc[(r, c), 'monopolist_ci_high']:.0f}</span>"
            for c in cols
        ]
        for r in rows
    ]
    hover = [
        [
            f"Competitors: {r}<br>Monopolists: {c}<br>Monopolists win "
            f"{100 * cells.loc[(r, c), 'monopolist_rate']:.1f}% (95% interval "
            f"{100 * cells.loc[(r, c), 'monopolist_ci_low']:.1f}% to "
            f"{100 * cells.loc[(r, c), 'monopolist_ci_high']:.1f}%), Competitors "
            f"{100 * cells.loc[(r, c), 'competitor_rate']:.1f}%, of "
            f"{int(cells.loc[(r, c), 'games']):,} games"
            for c in cols
        ]
        for r in rows
    ]
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=[f"{c} ■" for c in cols],
            y=[f"{r} ●" for r in rows],
            text=text,
            texttemplate="%{text}",
            textfont={"size": RATE_LABEL_SIZE},
            hovertext=hover,
            hoverinfo="text",
            zmin=0,
            zmax=1,
            colorscale=[[0, ROLE_COLOURS[0]], [0.5, "#ffffff"], [1, ROLE_COLOURS[1]]],
            colorbar={
                "title": {"text": "Monopolists' win rate", "side": "right", "font": {"size": 14}},
                "tickformat": ".0%",
                "tickfont": {"size": 14},
            },
        )
    )
    figure.update_layout(
        title={
            "text": "Who wins when each strategy meets each other (Monopolists' win rate, 95% interval)",
            "font": {"size": 17},
        },
        xaxis={
            "title": {"text": "Monopolists (■) play", "font": {"size": 15}},
            "tickfont": {"size": 14},
            "side": "bottom",
        },
        yaxis={
            "title": {"text": "Competitors (●) play", "font": {"size": 15}},
            "tickfont": {"size": 14},
            "autorange": "reversed",
        },
        template="plotly_white",
        height=560,
        margin={"l": 150, "r": 20, "t": 60, "b": 80},
    )
    return figure


def reading_matrix(result: BestPlayResult) -> str:
    """A sentence reading the matrix: how each role's best strategy fares against the named
    bots, and the cell of best against best."""
    matrix = result.matrix
    if matrix.empty:
        return "The search stopped before the matrix was played."
    cells = matrix.set_index(["competitor", "monopolist"])
    best = cells.loc[(BEST, BEST)]
    named = matrix[matrix["competitor"].isin(NAMED) & (matrix["monopolist"] == BEST)]
    worst = named.loc[named["monopolist_rate"].idxmin()] if len(named) else None
    text = (
        f"Best against best, the Monopolists win {_percent(best['monopolist_rate'])} (95% "
        f"interval {_percent(best['monopolist_ci_low'])} to {_percent(best['monopolist_ci_high'])})."
    )
    if worst is not None:
        text += (
            f" Against the best Monopolist strategy, the named bot that does best as the "
            f"Competitors is the {worst['competitor']} bot, which still loses "
            f"{_percent(worst['monopolist_rate'])} of its games."
        )
    named_m = matrix[matrix["monopolist"].isin(NAMED) & (matrix["competitor"] == BEST)]
    if len(named_m):
        strongest = named_m.loc[named_m["monopolist_rate"].idxmax()]
        text += (
            f" Against the best Competitor strategy, the strongest named Monopolist bot, the "
            f"{strongest['monopolist']} bot, wins {_percent(strongest['monopolist_rate'])}."
        )
    return text
