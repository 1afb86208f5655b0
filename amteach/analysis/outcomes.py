"""How a batch of bot games went for each role, round by round and in rent: the charts the
dashboard's *Who wins* tab shows beside the win rates (`fairness.win_rates_figure`)."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ..engine.board import ROLES
from ..style import ROLE_COLOURS, ROLE_DASHES, ROLE_PATTERNS, ROLE_PLURALS


def wealth_by_role_figure(result: Any) -> go.Figure:
    """Mean wealth by role at the end of each round, over all games still running."""
    rounds = result.rounds
    mean = rounds.groupby(["round", "role"], observed=True)["wealth"].mean().reset_index()
    figure = go.Figure(
        layout={
            "title": "Mean wealth by role, round by round",
            "height": 300,
            "template": "plotly_white",
            "xaxis": {"title": "round"},
            "yaxis": {"title": "wealth", "tickprefix": "$"},
        }
    )
    for role, key in enumerate(ROLES):
        part = mean[mean["role"] == key]
        figure.add_scatter(
            x=part["round"],
            y=part["wealth"],
            name=ROLE_PLURALS[role],
            line={"color": ROLE_COLOURS[role], "dash": ROLE_DASHES[role]},
        )
    return figure


def rent_flows_figure(result: Any) -> go.Figure:
    """Mean rent paid and received per player, by role."""
    by_role = result.players.groupby("role", observed=True)[["rent_paid", "rent_received"]].mean()
    figure = go.Figure(
        layout={
            "title": "Rent flows: mean per player",
            "height": 300,
            "template": "plotly_white",
            "barmode": "group",
            "yaxis": {"tickprefix": "$"},
        }
    )
    for role, key in enumerate(ROLES):
        if key in by_role.index:
            figure.add_bar(
                x=["rent received", "rent paid"],
                y=[by_role.loc[key, "rent_received"], by_role.loc[key, "rent_paid"]],
                name=ROLE_PLURALS[role],
                marker={"color": ROLE_COLOURS[role], "pattern": {"shape": ROLE_PATTERNS[role]}},
            )
    return figure
