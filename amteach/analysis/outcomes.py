"""How a batch of bot games went for each role, round by round and in rent: the charts the
dashboard's *Who wins* tab shows beside the win rates (`fairness.win_rates_figure`)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ..engine.board import ROLES
from ..style import (
    DOLLAR_AXIS,
    ROLE_COLOURS,
    ROLE_DASHES,
    ROLE_PLURALS,
    ROLE_SYMBOLS,
    WHOLE_AXIS,
    chart_layout,
    role_bar,
)


def wealth_by_role_figure(result: Any) -> go.Figure:
    """Mean wealth by role at the end of each round, over all games still running."""
    rounds = result.rounds
    mean = rounds.groupby(["round", "role"], observed=True)["wealth"].mean().reset_index()
    figure = go.Figure(
        layout=chart_layout(
            "Mean wealth by role, round by round",
            height=380,
            xaxis={"title": {"text": "round"}, **WHOLE_AXIS},
            yaxis={"title": {"text": "wealth (net worth)"}, **DOLLAR_AXIS},
        )
    )
    for role, key in enumerate(ROLES):
        part = mean[mean["role"] == key]
        figure.add_scatter(
            x=part["round"],
            y=part["wealth"],
            mode="lines+markers",
            name=ROLE_PLURALS[role],
            line={"color": ROLE_COLOURS[role], "dash": ROLE_DASHES[role], "width": 3},
            marker={"symbol": ROLE_SYMBOLS[role], "size": 7, "maxdisplayed": 25},
            hovertemplate="round %{x}: $%{y:,.0f}<extra>" + ROLE_PLURALS[role] + "</extra>",
        )
    return figure


def rent_flows_figure(result: Any) -> go.Figure:
    """Mean rent paid and received per player, by role."""
    by_role = result.players.groupby("role", observed=True)[["rent_paid", "rent_received"]].mean()
    figure = go.Figure(
        layout=chart_layout(
            "Rent flows: mean per player over a game",
            height=380,
            barmode="group",
            yaxis={"title": {"text": "rent per player"}, **DOLLAR_AXIS},
        )
    )
    for role, key in enumerate(ROLES):
        if key in by_role.index:
            amounts = [by_role.loc[key, "rent_received"], by_role.loc[key, "rent_paid"]]
            figure.add_bar(
                x=["rent received", "rent paid"],
                y=amounts,
                name=ROLE_PLURALS[role],
                marker=role_bar(role),
                text=[f"${amount:,.0f}" for amount in amounts],
                textposition="outside",
                cliponaxis=False,
                hovertemplate="%{x}: $%{y:,.0f}<extra>" + ROLE_PLURALS[role] + "</extra>",
            )
    return figure
