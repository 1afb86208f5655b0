"""Live plotly charts for the classroom app, fed from the engine's events: a view of a
`Session` that reads new events through its own cursor.

Each chart is one `FigureWidget` for the life of the app, so the page never swaps a chart's
view: plotly's widget leaves a removed view listening to its model, and that view's error on
the next update kept the live one from drawing (issue 12). New points are appended inside
`batch_update`, so one update is one message however long the game; `ChartFeed.reset`
(new game, undo, load) replaces the traces' data and never touches the layout.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ..engine import events as ev
from ..engine.game import Game
from ..render import chart_text
from ..serving import figure_widget
from ..session import Session, replay
from ..style import (
    DOLLAR_AXIS,
    ROLE_COLOURS,
    ROLE_DASHES,
    ROLE_LABELS,
    ROLE_PLURALS,
    ROLE_SYMBOLS,
    ROLE_TONES,
    WHOLE_AXIS,
    chart_layout,
)

CHART_HEIGHT = 320


def _layout(title: str, x: str, y: str) -> dict[str, Any]:
    return chart_layout(
        title,
        height=CHART_HEIGHT,
        margin={"l": 75, "r": 20, "t": 50, "b": 50},
        xaxis={"title": {"text": x}, **WHOLE_AXIS},
        yaxis={"title": {"text": y}, **DOLLAR_AXIS},
        legend={"y": -0.28},
    )


def player_line(game: Game, seat: int) -> dict[str, Any]:
    """A player's line: the role's colour (a tone per player of that role), dash and shape."""
    role = game.roles[seat]
    nth = sum(1 for p in range(seat) if game.roles[p] == role)
    tones = ROLE_TONES[role]
    return {
        "line": {"color": tones[nth % len(tones)], "dash": ROLE_DASHES[role], "width": 2},
        "marker": {"symbol": ROLE_SYMBOLS[role], "size": 6, "color": tones[nth % len(tones)]},
    }


def chart_figures(game: Game) -> dict[str, go.Figure]:
    """The three charts for `game`, with their traces and no points yet."""
    names, roles = game.names, game.roles
    wealth = go.Figure(layout=_layout("Wealth over turns", "turn", "net worth"))
    for p, name in enumerate(names):
        wealth.add_scatter(
            x=[],
            y=[],
            mode="lines+markers",
            name=chart_text(f"{name} ({ROLE_LABELS[roles[p]]})"),
            **player_line(game, p),
        )
    for role in (0, 1):
        wealth.add_scatter(
            x=[],
            y=[],
            mode="lines",
            name=f"{ROLE_PLURALS[role]} (mean)",
            line={"color": ROLE_COLOURS[role], "width": 6, "dash": ROLE_DASHES[role]},
            opacity=0.35,
        )
    rents = go.Figure(
        layout=_layout("Rent received and paid, by role", "turn", "rent so far (cumulative)")
    )
    for role in (0, 1):
        for side, width, fill in (("received", 3.5, ""), ("paid", 1.5, "-open")):
            rents.add_scatter(
                x=[],
                y=[],
                mode="lines+markers",
                name=f"{ROLE_PLURALS[role]} {side}",
                line={"color": ROLE_COLOURS[role], "dash": ROLE_DASHES[role], "width": width},
                marker={"symbol": ROLE_SYMBOLS[role] + fill, "size": 7, "maxdisplayed": 30},
                line_shape="hv",
            )
    taxes = go.Figure(
        layout=_layout("Income tax: both amounts, and the one chosen", "income-tax decision", "tax")
    )
    taxes.add_scatter(
        x=[],
        y=[],
        mode="markers",
        name="flat amount",
        marker={"symbol": "line-ew-open", "size": 18, "color": "#555", "line": {"width": 3}},
    )
    taxes.add_scatter(
        x=[],
        y=[],
        mode="markers",
        name="percentage amount",
        marker={"symbol": "x-thin-open", "size": 14, "color": "#b36b00", "line": {"width": 3}},
    )
    for role in (0, 1):
        taxes.add_scatter(
            x=[],
            y=[],
            mode="markers",
            name=f"chosen by a {ROLE_LABELS[role]}",
            marker={
                "symbol": ROLE_SYMBOLS[role],
                "size": 13,
                "color": ROLE_COLOURS[role],
                "line": {"width": 1, "color": "#fff"},
            },
            text=[],
            hovertemplate="%{text}<extra></extra>",
        )
    return {"wealth": wealth, "rents": rents, "taxes": taxes}


def show_data(widget: go.FigureWidget, figure: go.Figure) -> None:
    """Give `widget` the traces of `figure`: their data and style only (no layout message, so
    a chart on a hidden tab is not re-laid out). Same number of traces: one update; another
    number (another table): the traces are deleted and added."""
    if len(widget.data) == len(figure.data):
        with widget.batch_update():
            for trace, new in zip(widget.data, figure.data, strict=True):
                trace.update(new.to_plotly_json(), overwrite=True)
    else:
        widget.data = ()
        widget.add_traces(list(figure.data))


class ChartFeed:
    """The three charts (wealth, rents, taxes) and the bookkeeping that feeds them."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.cursor = session.cursor()
        self.charts: dict[str, go.FigureWidget] = {}
        self.decisions = 0
        self.update()

    def update(self) -> None:
        """Catch up with the session: new points for new events, or fresh charts."""
        game = self.session.game
        events, restarted = self.cursor.take()
        # wealth is read as each turn starts: after several decisions at once, read it again
        # from a replay rather than from the position now
        if restarted or len(game.decisions) - self.decisions > 1:
            self.reset(game)
        elif events:
            self.feed(game, events)
        self.decisions = len(game.decisions)

    # -- building ---------------------------------------------------------------------------
    def reset(self, game: Game) -> None:
        """Fresh traces for `game` (seats may differ from the previous game), in the same
        chart widgets."""
        self.game = game
        fresh = chart_figures(game)
        self.turn = 0
        self.tax_count = 0
        self.rent_totals = {(role, side): 0 for role in (0, 1) for side in ("received", "paid")}
        self._pending: dict[str, list[Any]] = {"wealth": [], "rents": [], "taxes": []}
        # wealth is read at each turn's start, so rebuild the history by replaying the game
        seen = 0
        for state in replay(game):
            self.feed(state, state.events[seen:], flush=False)
            seen = len(state.events)
        self.game = game
        # fill plain figures first, so a widget gets its data in one message
        self.flush(fresh)
        for key, figure in fresh.items():
            if key in self.charts:
                show_data(self.charts[key], figure)
            else:
                self.charts[key] = figure_widget(figure)

    # -- feeding -----------------------------------------------------------------------------
    def feed(self, game: Game, new: Any, flush: bool = True) -> None:
        """Take in `new` events, the last decision's, with `game` as it stands after it."""
        pending = self._pending
        for event in new:
            if isinstance(event, ev.TurnStarted | ev.GameOver):
                self.turn += 1
                pending["wealth"].append((self.turn, [sum(parts) for parts in game.wealth_parts()]))
            elif isinstance(event, ev.RentPaid):
                pending["rents"].append((self.turn, game.roles[event.payer], "paid", event.amount))
                pending["rents"].append(
                    (self.turn, game.roles[event.payee], "received", event.amount)
                )
            elif isinstance(event, ev.IncomeTaxChoice):
                pending["taxes"].append(event)
        if flush:
            self.flush()

    def flush(self, figures: dict[str, Any] | None = None) -> None:
        """Send what `feed` collected: one batch update per chart that changed."""
        figures = self.charts if figures is None else figures
        pending = self._pending
        if pending["wealth"]:
            self._append_wealth(figures["wealth"], self.game, pending["wealth"])
        if pending["rents"]:
            self._append_rents(figures["rents"], pending["rents"])
        if pending["taxes"]:
            self._append_taxes(figures["taxes"], self.game, pending["taxes"])
        self._pending = {"wealth": [], "rents": [], "taxes": []}

    def _append_wealth(self, figure: Any, game: Game, points: list[tuple[int, list[int]]]) -> None:
        n = len(game.names)
        with figure.batch_update():
            for p in range(n):
                trace = figure.data[p]
                trace.x = (*trace.x, *(turn for turn, _ in points))
                trace.y = (*trace.y, *(values[p] for _, values in points))
            for role in (0, 1):
                seats = [p for p in range(n) if game.roles[p] == role]
                if not seats:
                    continue
                trace = figure.data[n + role]
                trace.x = (*trace.x, *(turn for turn, _ in points))
                trace.y = (
                    *trace.y,
                    *(sum(values[p] for p in seats) / len(seats) for _, values in points),
                )

    def _append_rents(self, figure: Any, points: list[tuple[int, int, str, int]]) -> None:
        with figure.batch_update():
            for turn, role, side, amount in points:
                self.rent_totals[(role, side)] += amount
                trace = figure.data[role * 2 + (0 if side == "received" else 1)]
                trace.x = (*trace.x, turn)
                trace.y = (*trace.y, self.rent_totals[(role, side)])

    def _append_taxes(self, figure: Any, game: Game, points: list[ev.IncomeTaxChoice]) -> None:
        with figure.batch_update():
            for event in points:
                self.tax_count += 1
                k = self.tax_count
                flat, percent = figure.data[0], figure.data[1]
                flat.x, flat.y = (*flat.x, k), (*flat.y, event.flat)
                percent.x, percent.y = (*percent.x, k), (*percent.y, event.percent)
                chosen = figure.data[2 + game.roles[event.player]]
                paid = event.flat if event.choice == "flat" else event.percent
                chosen.x, chosen.y = (*chosen.x, k), (*chosen.y, paid)
                chosen.text = (
                    *chosen.text,
                    chart_text(
                        f"{game.names[event.player]} chose {event.choice}: ${paid} "
                        f"(other: ${event.percent if event.choice == 'flat' else event.flat})"
                    ),
                )
