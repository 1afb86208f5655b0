"""The dashboard's Best play tab: who wins when each role plays the strongest strategy a search
found (`amteach.analysis.strategy`), from the runs shipped with amteach. It shows the
equilibrium's win rates, each role's strategy in words, the tournament matrix, what matters
most, and a button that sets up a game of best against best on the Play tab."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from ..analysis import stats
from ..analysis import strategy as best
from ..engine.board import ROLES
from ..render import html_join, html_text
from ..session import TABLE_PLAYERS, Reply, Session
from ..style import ROLE_COLOURS, ROLE_PATTERNS, ROLE_PLURALS, ROLE_SHAPES
from .batch import chart_widgets


def strategies_html(result: best.BestPlayResult) -> str:
    """Each role's strongest strategy found, in sentences, beside its colour and shape."""
    blocks = []
    for role, (plural, sentences) in zip(ROLES, best.strategies_words(result), strict=True):
        colour, shape = ROLE_COLOURS[ROLES.index(role)], ROLE_SHAPES[ROLES.index(role)]
        blocks.append(
            html_text(
                "<div style='flex:1;min-width:320px;border-left:6px solid {};padding-left:10px'>"
                "<p style='font-size:1.1em'><b>{} {}' strongest strategy found</b></p><ul>{}</ul>"
                "<p style='font-size:0.85em;color:#555'>As a seat: <code>{}:family:{}</code></p>"
                "</div>",
                colour,
                shape,
                plural,
                html_join(html_text("<li>{}</li>", s) for s in sentences),
                role,
                result.strategies[role]["text"],
            )
        )
    return html_text(
        "<div style='display:flex;gap:24px;flex-wrap:wrap'>{}</div>", html_join(blocks)
    )


def provenance_html(result: best.BestPlayResult) -> str:
    """Where the numbers come from: the command, seed, version, date and core of the run."""
    s = result.summary
    return html_text(
        "<p style='font-size:0.9em;color:#444'>From <code>{}</code> (seed {}, amteach {}, {}, "
        "{} core): {:,} candidate strategies, {:,} games, {} alternations{}.</p>",
        s["command"],
        s["seed"],
        s["version"],
        s["date"],
        s["core"],
        s["candidates"],
        s["games_played"],
        s["phases"],
        ", an approximate equilibrium" if s.get("converged") else ", stopped by its budget",
    )


def presets_sentence() -> str:
    """The Monopolists' equilibrium win rate under default and under edition-2005, compared
    with Newcombe's interval for the difference (two separate batches of fresh games)."""
    a, b = best.shipped("default"), best.shipped("edition-2005")
    change = best.compare_presets(a, b)
    return (
        "From the default rules to edition-2005, under the strongest strategies found for each: "
        + stats.difference_sentence("the Monopolists' win rate", change)
    )


def importance_figure(result: best.BestPlayResult) -> Any:
    """How much each role's win rate falls when one knob of its best strategy moves alone:
    the five knobs that matter most for each role, as bars in the role's colour and pattern."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    figure = make_subplots(
        rows=2,
        cols=1,
        subplot_titles=[f"{p} {s}" for p, s in zip(ROLE_PLURALS, ROLE_SHAPES, strict=True)],
        vertical_spacing=0.16,
    )
    for index, role in enumerate(ROLES):
        table = best.importance(result, role).head(5).iloc[::-1]
        figure.add_trace(
            go.Bar(
                x=100 * table["drop"],
                y=[best.KNOB_WORDS[k] for k in table["knob"]],
                orientation="h",
                marker={
                    "color": ROLE_COLOURS[index],
                    "pattern": {"shape": ROLE_PATTERNS[index]},
                },
                text=[f"{100 * d:.1f}" for d in table["drop"]],
                textposition="outside",
                textfont={"size": 14},
                hovertemplate="%{y}: moving it alone costs up to %{x:.1f} points<extra></extra>",
                showlegend=False,
            ),
            row=index + 1,
            col=1,
        )
    figure.update_xaxes(
        title={"text": "win rate lost, points", "font": {"size": 14}}, tickfont={"size": 14}
    )
    figure.update_yaxes(tickfont={"size": 14}, automargin=True)
    figure.update_annotations(font={"size": 15})
    figure.update_layout(
        title={"text": "What matters most in each role's strategy", "font": {"size": 17}},
        template="plotly_white",
        height=560,
        margin={"l": 20, "r": 40, "t": 80, "b": 50},
    )
    return figure


def play_best_against_best(session: Session, result: best.BestPlayResult) -> Reply:
    """A new game on the Play tab, under the run's rules, with every seat played by its role's
    strongest strategy found (through the session's public API)."""
    preset = result.summary["preset"]
    with session.grouped():
        reply = session.new_game(preset=preset, players=TABLE_PLAYERS)
        if not reply.ok:
            return reply
        for seat, role in enumerate(session.game.roles):
            session.set_controller(seat, best.family_name(result.best(ROLES[role])))
    return Reply(
        True,
        f"Best against best is set up on the Play tab ({preset} rules): press Play to watch.",
    )


def best_play_page(session: Session, show_play: Callable[[], None] | None = None) -> widgets.Widget:
    """The Best play tab: the shipped run for the rules chosen, and a button that plays best
    against best on the Play tab (`show_play` switches to it)."""
    w = widgets
    preset = w.ToggleButtons(
        options=[("Default rules", "default"), ("Edition 2005", "edition-2005")],
        value="default",
        description="Rules",
        style={"button_width": "auto"},
    )
    status = w.HTML()
    body = w.VBox()
    play = w.Button(
        description="Play best against best",
        button_style="primary",
        tooltip="a new game on the Play tab, every seat played by its role's best strategy",
        layout=w.Layout(width="260px"),
    )

    def show(_: Any = None) -> None:
        result = best.shipped(preset.value)
        body.children = [
            w.HTML(
                html_text(
                    "<p class='am-reading' style='white-space:normal;max-width:900px;"
                    "font-size:1.1em'>{}</p>",
                    best.reading_best_play(result),
                )
            ),
            w.HTML(strategies_html(result)),
            *chart_widgets(
                [
                    (best.matrix_figure(result.matrix), best.reading_matrix(result)),
                    (importance_figure(result), importance_reading(result)),
                ]
            ),
            w.HTML(provenance_html(result)),
        ]

    def start_game(_: Any) -> None:
        reply = play_best_against_best(session, best.shipped(preset.value))
        colour = "#1b5e20" if reply.ok else "#b00020"
        status.value = html_text("<p style='color:{}'>{}</p>", colour, reply.message)
        if reply.ok and show_play is not None:
            show_play()

    preset.observe(show, names="value")
    play.on_click(start_game)
    show()
    return w.VBox(
        [
            w.HTML(
                html_text(
                    "<p style='max-width:900px'>Is it the rules or the bots? A search tried "
                    "thousands of strategies for each role, each on the same games, and kept "
                    "each role's best answer to the other's, until neither could do better by "
                    "more than luck. These are the strongest strategies it found, and who "
                    "wins when they meet. {}</p>",
                    presets_sentence(),
                )
            ),
            preset,
            w.HBox([play, status]),
            body,
        ]
    )


def importance_reading(result: best.BestPlayResult) -> str:
    """A sentence under the importance chart: the knob that matters most for each role."""
    parts = []
    for role in ROLES:
        table = best.importance(result, role)
        if table.empty:
            continue
        top = table.iloc[0]
        parts.append(
            f"for the {ROLE_PLURALS[ROLES.index(role)]}, "
            f"{best.KNOB_WORDS[top['knob']]} (moving it alone costs up to "
            f"{100 * top['drop']:.1f} points of their win rate on the same games)"
        )
    if not parts:
        return ""
    return (
        "Each bar moves one knob of a role's best strategy to other values, everything else "
        "kept, and plays the same fresh games again. What matters most: " + "; ".join(parts) + "."
    )
