"""Live plotly charts for the classroom app, fed from the engine's events: a view of a
`Session` that reads new events through its own cursor.

Each chart is one `FigureWidget` for the life of the app, so the page never swaps a chart's
view: plotly's widget leaves a removed view listening to its model, and that view's error on
the next update kept the live one from drawing (issue 12). New points are appended inside
`batch_update`, so one update is one message however long the game; `ChartFeed.reset`
(new game, undo, load) replaces the traces' data and never touches the layout.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go
from markupsafe import Markup

from ..engine import events as ev
from ..engine.game import Game
from ..render import chart_text, html_join, html_text
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
from .figures import figure_widget

CHART_HEIGHT = 320


def _layout(title: str, x: str, y: str) -> dict[str, Any]:
    return chart_layout(
        title,
        height=CHART_HEIGHT,
        margin={"l": 75, "r": 20, "t": 50, "b": 50},
        xaxis={"title": {"text": x}, **WHOLE_AXIS},
        yaxis={"title": {"text": y}, **DOLLAR_AXIS},
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
        # "Show the data" under each chart, made with the chart
        self.data_tables: dict[str, LiveDataTable] = {}
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
                self.data_tables[key] = LiveDataTable(self.charts[key])
            self.data_tables[key].update()

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
        if figures is self.charts:
            for key, points in pending.items():
                if points:
                    self.data_tables[key].update()
        self._pending = {"wealth": [], "rents": [], "taxes": []}

    def _append_wealth(self, figure: Any, game: Game, points: list[tuple[int, list[int]]]) -> None:
        n = len(game.names)
        turns = [turn for turn, _ in points]
        added = {p: {"x": turns, "y": [values[p] for _, values in points]} for p in range(n)}
        for role in (0, 1):
            seats = [p for p in range(n) if game.roles[p] == role]
            if seats:
                added[n + role] = {
                    "x": turns,
                    "y": [sum(values[p] for p in seats) / len(seats) for _, values in points],
                }
        extend_traces(figure, added)

    def _append_rents(self, figure: Any, points: list[tuple[int, int, str, int]]) -> None:
        added: dict[int, dict[str, list[Any]]] = {}
        for turn, role, side, amount in points:
            self.rent_totals[(role, side)] += amount
            trace = added.setdefault(
                role * 2 + (0 if side == "received" else 1), {"x": [], "y": []}
            )
            trace["x"].append(turn)
            trace["y"].append(self.rent_totals[(role, side)])
        extend_traces(figure, added)

    def _append_taxes(self, figure: Any, game: Game, points: list[ev.IncomeTaxChoice]) -> None:
        # traces 0 and 1: both amounts; 2 and 3: the amount chosen, by the chooser's role
        added: dict[int, dict[str, list[Any]]] = {i: {"x": [], "y": []} for i in (0, 1)} | {
            2 + role: {"x": [], "y": [], "text": []} for role in (0, 1)
        }
        for event in points:
            self.tax_count += 1
            k = self.tax_count
            paid, other = (
                (event.flat, event.percent)
                if event.choice == "flat"
                else (event.percent, event.flat)
            )
            for index, value in ((0, event.flat), (1, event.percent)):
                added[index]["x"].append(k)
                added[index]["y"].append(value)
            chosen = added[2 + game.roles[event.player]]
            chosen["x"].append(k)
            chosen["y"].append(paid)
            chosen["text"].append(
                chart_text(
                    f"{game.names[event.player]} chose {event.choice}: ${paid} (other: ${other})"
                )
            )
        extend_traces(figure, {i: props for i, props in added.items() if props["x"]})


def extend_traces(figure: Any, added: dict[int, dict[str, Sequence[Any]]]) -> None:
    """Append values to traces of `figure` (trace index -> property -> new values) in one
    batch update. Each property is read once, before it is set: inside `batch_update` plotly
    holds every set until the block ends, so a property read again after a set there still
    has its old value (appending point by point kept only the last point of each trace when
    the charts caught up with several decisions at once)."""
    with figure.batch_update():
        for index, props in added.items():
            trace = figure.data[index]
            for name, values in props.items():
                trace[name] = (*(trace[name] or ()), *values)


# -- the data behind a chart, as tables (WCAG 1.1.1: a chart's text alternative) ------------


def _plain(text: Any) -> str:
    """A plotly label as plain words: its HTML tags (<b>, <br>) dropped, entities read."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", str(text or ""))).split())


def _axis(layout: Any, anchor: str | None, letter: str) -> dict[str, Any]:
    """The layout of a trace's axis ("x", "x2", ... as plotly names them) as a plain dict."""
    name = (anchor or letter).replace(letter, f"{letter}axis", 1)
    axis = layout.get(name) or {}
    return axis if isinstance(axis, dict) else {}


def _axis_title(axis: dict[str, Any], fallback: str) -> str:
    title = axis.get("title")
    text = title.get("text") if isinstance(title, dict) else title
    return _plain(text) or fallback


def _value(value: Any, axis: dict[str, Any]) -> str:
    """A number as its axis shows it: a percentage, dollars, or a plain number."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return _plain(value)
    shape = str(axis.get("tickformat") or "")
    if "%" in shape:
        return f"{100 * value:.1f}%"
    prefix = str(axis.get("tickprefix") or "")
    number = f"{value:,.0f}" if float(value).is_integer() or abs(value) >= 100 else f"{value:,.2f}"
    return f"{'-' if value < 0 else ''}{prefix}{number.lstrip('-')}"


def _values(raw: Any) -> list[Any]:
    if raw is None:
        return []
    if hasattr(raw, "tolist"):
        raw = raw.tolist()
    return list(raw) if isinstance(raw, Sequence | tuple | list) else [raw]


def _trace_table(trace: dict[str, Any], layout: dict[str, Any], index: int) -> Markup:
    """One trace as a table: each point a row (x, y and an interval if it has one); a
    heatmap as its grid."""
    name = _plain(trace.get("name")) or f"series {index + 1}"
    xaxis = _axis(layout, trace.get("xaxis"), "x")
    yaxis = _axis(layout, trace.get("yaxis"), "y")
    if trace.get("type") == "heatmap":
        xs, ys, zs = _values(trace.get("x")), _values(trace.get("y")), _values(trace.get("z"))
        head = html_join(html_text("<th scope='col'>{}</th>", _plain(x)) for x in xs)
        rows = html_join(
            html_text(
                "<tr><th scope='row'>{}</th>{}</tr>",
                _plain(y),
                html_join(html_text("<td>{}</td>", _value(z, {})) for z in _values(row)),
            )
            for y, row in zip(ys, zs, strict=False)
        )
        return html_text(
            "<table><caption>{}</caption><thead><tr><td></td>{}</tr></thead>"
            "<tbody>{}</tbody></table>",
            name,
            head,
            rows,
        )
    xs, ys = _values(trace.get("x")), _values(trace.get("y"))
    x_name, y_name = _axis_title(xaxis, "x"), _axis_title(yaxis, "y")
    if trace.get("orientation") == "h":  # a horizontal bar: the category is on y
        xs, ys, xaxis, yaxis = ys, xs, yaxis, xaxis
        x_name, y_name = y_name, x_name
    if not xs and ys:
        xs = list(range(1, len(ys) + 1))
    error = trace.get("error_y") if trace.get("orientation") != "h" else trace.get("error_x")
    high = _values((error or {}).get("array"))
    low = _values((error or {}).get("arrayminus")) or high
    interval = bool(high) and len(high) == len(ys)
    rows = []
    for i, (x, y) in enumerate(zip(xs, ys, strict=False)):
        cells = [_value(x, xaxis), _value(y, yaxis)]
        if interval and isinstance(y, int | float):
            cells.append(f"{_value(y - low[i], yaxis)} to {_value(y + high[i], yaxis)}")
        rows.append(
            html_text(
                "<tr><th scope='row'>{}</th>{}</tr>",
                cells[0],
                html_join(html_text("<td>{}</td>", c) for c in cells[1:]),
            )
        )
    return html_text(
        "<table><caption>{}</caption><thead><tr><th scope='col'>{}</th><th scope='col'>{}</th>"
        "{}</tr></thead><tbody>{}</tbody></table>",
        name,
        x_name,
        y_name,
        html_text("<th scope='col'>95% interval</th>") if interval else "",
        html_join(rows),
    )


def figure_title(figure: Any) -> str:
    """A chart's title in plain words ("" if it has none)."""
    title = figure.layout.title.text if figure.layout.title else None
    return _plain(title)


def figure_tables_html(figure: Any) -> Markup:
    """The data a chart draws, trace by trace, as HTML tables (a trace with no points is
    left out; a chart with none says so)."""
    plain = figure.to_plotly_json() if hasattr(figure, "to_plotly_json") else figure
    layout = plain.get("layout", {})
    tables = [
        _trace_table(trace, layout, i)
        for i, trace in enumerate(plain.get("data", []))
        if _values(trace.get("y")) or _values(trace.get("z"))
    ]
    if not tables:
        return html_text("<p>No data yet.</p>")
    return html_join(tables)


def data_details_html(figure: Any) -> Markup:
    """ "Show the data": a closed `<details>` holding the chart's tables, opened from the
    keyboard (Enter or Space on its summary)."""
    title = figure_title(figure)
    return html_text(
        '<details class="am-data"><summary>Show the data{}</summary>{}</details>',
        f": {title}" if title else "",
        figure_tables_html(figure),
    )


class LiveDataTable:
    """ "Show the data" for a chart that grows as a game is played: a closed accordion whose
    tables are drawn when it is opened, and redrawn while open (`update`), so a closed one
    costs nothing per decision."""

    def __init__(self, figure: Any) -> None:
        self.figure = figure
        self.tables = widgets.HTML()
        self.widget = widgets.Accordion(children=[self.tables], selected_index=None)
        self.widget.set_title(0, f"Show the data: {figure_title(figure)}")
        self.widget.add_class("am-data")
        self.widget.observe(lambda _: self.update(), names="selected_index")

    def update(self) -> None:
        if self.widget.selected_index is not None:
            self.tables.value = figure_tables_html(self.figure)
