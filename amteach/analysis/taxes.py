"""Income tax: where the percentage overtakes the flat amount, and what players chose.

Decision 1 lets a player who lands on Income Tax pay the flat amount ($200) or a percentage
of their assets: Competitors 10% of cash, 10% of property (the printed price of their
unmortgaged titles) and 10% of improvements (what they paid for buildings); Monopolists 20%
of cash and 10% of the rest. Whoever has little pays less with the percentage; whoever has
much pays less with the flat amount. `tax_break_even` finds the assets at which the two meet,
and `tax_choice_summary` counts, from a simulated batch, how often each option was the
cheaper one and what each tax behaviour cost.

The break-even is the engine's own answer, not a formula typed in here: a player is set up
with the assets and `Game.tax_options` says what the percentage comes to (whole dollars,
rounded half up, as the engine does it). Cash can be any number of dollars, property and
buildings cannot (they come in title prices and house costs), so the break-even for an asset
taxed at r% is found with r% applied to cash. The engine taxes cash, property and
improvements the same way (each amount times its rate, summed, then rounded once), so a
dollar of property taxed at 10% counts exactly like a dollar of cash taxed at 10%.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..bots.strategies import TAX_BEHAVIOURS
from ..engine.board import COMPETITOR, MONOPOLIST, ROLES, Board, standard_board
from ..engine.errors import InputError
from ..engine.game import Game, PlayerSetup, Setup
from ..engine.rules import RuleSet
from ..style import (
    DOLLAR_AXIS,
    PERCENT_AXIS,
    ROLE_COLOURS,
    ROLE_LABELS,
    ROLE_PLURALS,
    ROLE_SYMBOLS,
    chart_layout,
    role_bar,
)

ASSETS = ("cash", "property", "improvements")
# plain words for the three kinds of assets (the engine calls buildings "improvements")
ASSET_WORDS = {"cash": "cash", "property": "property", "improvements": "buildings"}
BEHAVIOUR_WORDS = {
    "cheaper": "always the cheaper",
    "flat": "always flat",
    "percent": "always the percentage",
}
HABIT_WORDS = {
    "cheaper": "always chose the cheaper option",
    "flat": "always paid the flat tax",
    "percent": "always paid the percentage",
}
BREAK_EVEN_COLUMNS = (
    "role",
    "flat",
    "cash_percent",
    "property_percent",
    "improvements_percent",
    "break_even",
    "break_even_cash",
    "break_even_property",
    "break_even_improvements",
    "note",
)
SUMMARY_COLUMNS = (
    "role",
    "tax",
    "players",
    "decisions",
    "flat_cheaper",
    "percent_cheaper",
    "equal",
    "flat_cheaper_share",
    "percent_cheaper_share",
    "equal_share",
    "chose_flat",
    "chose_percent",
    "paid_total",
    "paid_mean",
    "cheaper_total",
    "overpaid_total",
    "income_tax_paid",
    "role_income_tax_paid",
)
# doubling the assets this many times without reaching the flat amount means "never"
_MAX_DOUBLINGS = 60


class _PercentTax:
    """The engine's percentage tax on `amount` dollars of one asset taxed at `rate`% for a
    player of `role`: a player holding that much cash, under rules that tax cash at the rate
    and nothing else."""

    def __init__(self, rules: RuleSet, role: int, rate: int, board: Board) -> None:
        self.rules = rules.replace(**{f"income_tax_percent_{ROLES[role]}": [rate, 0, 0]})
        self.role = role
        self.board = board

    def __call__(self, amount: int) -> int:
        players = (
            PlayerSetup("taxpayer", self.role, cash=amount),
            PlayerSetup("other", 1 - self.role),
        )
        game = Game(Setup(players=players, rules=self.rules, seed=0), self.board)
        return game.tax_options(0).percent


def _break_even(percent_tax: _PercentTax, flat: int) -> int | None:
    """The fewest dollars at which the percentage reaches the flat amount (None: never).
    The engine's percentage never falls as assets grow, so a doubling search then halving
    finds the first dollar."""
    if percent_tax(0) >= flat:
        return 0
    high = 1
    for _ in range(_MAX_DOUBLINGS):
        if percent_tax(high) >= flat:
            break
        high *= 2
    else:
        return None
    low = high // 2  # percent_tax(low) < flat
    while high - low > 1:
        middle = (low + high) // 2
        if percent_tax(middle) >= flat:
            high = middle
        else:
            low = middle
    return high


def tax_break_even(rules: RuleSet | str | None = None, board: Board | None = None) -> pd.DataFrame:
    """The assets at which the percentage income tax reaches the flat amount, for each role.

    One row per role. Columns: ``role``; ``flat`` (the flat amount); ``cash_percent``,
    ``property_percent``, ``improvements_percent`` (the role's rates); ``break_even_cash``,
    ``break_even_property``, ``break_even_improvements``: the fewest dollars of that asset
    alone at which the percentage first reaches the flat amount (one dollar less and it is
    below); ``break_even``: the same in assets of any kind, filled in only when the three
    rates are equal (then a dollar is a dollar, whatever it is held in); ``note``: the row
    in words. A rate of 0 never reaches a flat amount above 0: those break-evens are empty.

    Below the break-even the percentage is the cheaper choice; from it on the flat amount
    costs no more (at the break-even itself the two may be equal).
    """
    rules = RuleSet.coerce(rules)
    board = standard_board() if board is None else board
    flat = rules.income_tax_flat
    rows = []
    for role in (COMPETITOR, MONOPOLIST):
        rates = dict(zip(ASSETS, rules.income_tax_percents(role), strict=True))
        found: dict[int, int | None] = {}
        for rate in sorted(set(rates.values())):
            found[rate] = _break_even(_PercentTax(rules, role, rate, board), flat)
        points = {asset: found[rate] for asset, rate in rates.items()}
        same = len(set(rates.values())) == 1
        rows.append(
            {
                "role": ROLES[role],
                "flat": flat,
                **{f"{asset}_percent": rates[asset] for asset in ASSETS},
                "break_even": points["cash"] if same else None,
                **{f"break_even_{asset}": points[asset] for asset in ASSETS},
                "note": _note(role, flat, rates, points),
            }
        )
    frame = pd.DataFrame(rows, columns=list(BREAK_EVEN_COLUMNS))
    for column in BREAK_EVEN_COLUMNS:
        if column.startswith("break_even"):
            frame[column] = frame[column].astype("Int64")
    return frame


def _money(value: Any) -> str:
    return f"${int(value):,}"


def _groups(rates: dict[str, int]) -> list[tuple[int, list[str]]]:
    """The assets grouped by rate, highest rate first: [(20, ["cash"]), (10, [...])]."""
    by_rate: dict[int, list[str]] = {}
    for asset, rate in rates.items():
        by_rate.setdefault(rate, []).append(asset)
    return sorted(by_rate.items(), reverse=True)


def _words(assets: list[str]) -> str:
    words = [ASSET_WORDS[a] for a in assets]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _note(role: int, flat: int, rates: dict[str, int], points: dict[str, int | None]) -> str:
    groups = _groups(rates)
    parts = []
    for rate, assets in groups:
        where = points[assets[0]]
        kind = "assets of any kind" if len(groups) == 1 else f"{_words(assets)} alone"
        amount = "never on" if where is None else f"at {_money(where)} of"
        parts.append(f"{amount} {kind} (taxed at {rate}%)")
    return (
        f"A {ROLE_LABELS[role]}'s percentage tax reaches the flat {_money(flat)} "
        + "; ".join(parts)
        + "."
    )


def _curve(rules: RuleSet, role: int, rate: int, board: Board, top: int) -> tuple[list, list]:
    amounts = np.linspace(0, top, 41).round().astype(int).tolist()
    tax = _PercentTax(rules, role, rate, board)
    return amounts, [tax(a) for a in amounts]


def tax_break_even_figure(
    rules: RuleSet | str | None = None, board: Board | None = None
) -> go.Figure:
    """The percentage income tax against assets for each role, the flat amount as a level
    line, and the break-even marked where they meet (Competitors green circles, Monopolists
    blue squares; a dashed line is an asset taxed at a lower rate than the role's first)."""

    rules = RuleSet.coerce(rules)
    board = standard_board() if board is None else board
    frame = tax_break_even(rules, board)
    flat = rules.income_tax_flat
    points = frame[[f"break_even_{a}" for a in ASSETS]].stack().dropna()
    top = int(max(points.max() * 1.6, 500)) if len(points) else 3000
    figure = go.Figure()
    for role in (COMPETITOR, MONOPOLIST):
        row = frame.iloc[role]
        rates = {asset: int(row[f"{asset}_percent"]) for asset in ASSETS}
        for number, (rate, assets) in enumerate(_groups(rates)):
            label = "any assets" if len(rates) == len(assets) else _words(assets)
            x, y = _curve(rules, role, rate, board, top)
            figure.add_scatter(
                x=x,
                y=y,
                mode="lines",
                name=f"{ROLE_LABELS[role]}: {label} at {rate}%",
                legendgroup=ROLES[role],
                line={
                    "color": ROLE_COLOURS[role],
                    "width": 3,
                    "dash": "solid" if number == 0 else "dash",
                },
                hovertemplate=f"{ROLE_LABELS[role]}, {label}: $%{{x:,}} → tax $%{{y:,}}<extra></extra>",
            )
            where = row[f"break_even_{assets[0]}"]
            if pd.isna(where):
                continue
            figure.add_scatter(
                x=[int(where)],
                y=[flat],
                mode="markers+text",
                name=f"{ROLE_LABELS[role]} break-even ({label})",
                legendgroup=ROLES[role],
                showlegend=False,
                # the Competitor's circle is drawn larger, so a Monopolist's square at the
                # same point leaves it visible as a ring
                marker={
                    "symbol": ROLE_SYMBOLS[role],
                    "size": 17 if role == COMPETITOR else 11,
                    "color": ROLE_COLOURS[role],
                },
                text=[_money(where)],
                textposition="top left" if role == MONOPOLIST else "bottom right",
                textfont={"color": ROLE_COLOURS[role], "size": 16},
                hovertemplate=f"{ROLE_LABELS[role]}: the percentage reaches the flat tax at $%{{x:,}} of {label}<extra></extra>",
            )
    figure.add_scatter(
        x=[0, top],
        y=[flat, flat],
        mode="lines",
        name=f"flat tax {_money(flat)}",
        line={"color": "#555", "width": 2, "dash": "dot"},
        hoverinfo="skip",
    )
    return figure.update_layout(
        chart_layout(
            "Income tax: the percentage against the flat amount",
            height=460,
            xaxis={"title": {"text": "assets"}, **DOLLAR_AXIS, "range": [0, top]},
            yaxis={"title": {"text": "tax to pay"}, **DOLLAR_AXIS},
        )
    )


def reading_tax_break_even(frame: pd.DataFrame) -> str:
    """Two sentences: where the percentage meets the flat amount for each role, read from
    `tax_break_even`'s frame."""
    if not isinstance(frame, pd.DataFrame) or not set(BREAK_EVEN_COLUMNS) <= set(frame.columns):
        raise InputError("frame must be the DataFrame tax_break_even() returns", field="frame")
    flat = _money(frame["flat"].iloc[0])
    parts = []
    for row in frame.itertuples():
        role = ROLE_LABELS[ROLES.index(row.role)]
        rates = {asset: getattr(row, f"{asset}_percent") for asset in ASSETS}
        groups = _groups(rates)
        pieces = []
        for _rate, assets in groups:
            where = getattr(row, f"break_even_{assets[0]}")
            kind = "assets" if len(groups) == 1 else _words(assets)
            pieces.append(
                f"never on {kind} (taxed at 0%)"
                if pd.isna(where)
                else f"at {_money(where)} of {kind}"
            )
        parts.append(f"a {role} {' or '.join(pieces)}")
    return (
        f"Below its break-even the percentage is the cheaper income tax; from there on the flat "
        f"{flat} costs no more. The percentage reaches {flat} for " + ", and for ".join(parts) + "."
    )


# -- what the players chose, from a simulated batch -------------------------------------------


def _frame_of(result: Any, name: str, needed: tuple[str, ...]) -> pd.DataFrame:
    frame = getattr(result, name, None)
    if not isinstance(frame, pd.DataFrame):
        raise InputError(
            "result must be a SimulationResult (from amteach.simulate) with a "
            f"{name} frame, not {type(result).__name__}",
            field="result",
        )
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise InputError(
            f"the {name} frame lacks the column(s) {', '.join(missing)}", field=f"result.{name}"
        )
    return frame


def tax_choice_summary(result: Any) -> pd.DataFrame:
    """How each role's income-tax decisions went under each tax behaviour, from a batch.

    One row per role and tax behaviour found in the batch's players (`cheaper`, `flat`,
    `percent`). Columns: ``players`` (seats of that role and behaviour, summed over games);
    ``decisions`` (income-tax decisions they took); ``flat_cheaper``, ``percent_cheaper``,
    ``equal`` (how often each option was the cheaper one, and their ``_share`` of the
    decisions); ``chose_flat``, ``chose_percent``; ``paid_total`` and ``paid_mean`` (the
    amounts chosen, per decision); ``cheaper_total`` (what the cheaper option would have
    cost) and ``overpaid_total`` (paid less that); ``income_tax_paid`` (from the players
    frame: the income tax these players actually paid, which can be less than paid_total if
    one went bankrupt owing it); ``role_income_tax_paid`` (the same for the whole role, on
    each of the role's rows).
    """
    taxes = _frame_of(
        result, "taxes", ("game", "seat", "role", "flat", "percent", "choice", "paid", "cheaper")
    )
    players = _frame_of(result, "players", ("game", "seat", "role", "tax", "income_tax_paid"))
    behaviour = players[["game", "seat", "tax"]]
    decided = taxes.merge(behaviour, on=["game", "seat"], how="left", validate="many_to_one")
    decided = decided.assign(
        role=decided["role"].astype(str),
        tax=decided["tax"].astype(str),
        cheaper=decided["cheaper"].astype(str),
        choice=decided["choice"].astype(str),
        lower=np.minimum(decided["flat"], decided["percent"]),
    )
    seats = players.assign(role=players["role"].astype(str), tax=players["tax"].astype(str))
    role_paid = seats.groupby("role")["income_tax_paid"].sum()
    rows = []
    for (role, tax), group in seats.groupby(["role", "tax"], sort=False):
        mine = decided[(decided["role"] == role) & (decided["tax"] == tax)]
        n = len(mine)
        counts = {
            kind: int((mine["cheaper"] == kind).sum()) for kind in ("flat", "percent", "equal")
        }
        paid = int(mine["paid"].sum())
        lower = int(mine["lower"].sum())
        rows.append(
            {
                "role": role,
                "tax": tax,
                "players": len(group),
                "decisions": n,
                "flat_cheaper": counts["flat"],
                "percent_cheaper": counts["percent"],
                "equal": counts["equal"],
                **{
                    f"{kind}_share": counts[kind.split("_")[0]] / n if n else np.nan
                    for kind in ("flat_cheaper", "percent_cheaper", "equal")
                },
                "chose_flat": int((mine["choice"] == "flat").sum()),
                "chose_percent": int((mine["choice"] == "percent").sum()),
                "paid_total": paid,
                "paid_mean": paid / n if n else np.nan,
                "cheaper_total": lower,
                "overpaid_total": paid - lower,
                "income_tax_paid": int(group["income_tax_paid"].sum()),
                "role_income_tax_paid": int(role_paid[role]),
            }
        )
    frame = pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))
    order = {"role": list(ROLES), "tax": list(TAX_BEHAVIOURS)}
    key = {c: frame[c].map({v: i for i, v in enumerate(order[c])}) for c in order}
    return (
        frame.assign(_r=key["role"], _t=key["tax"])
        .sort_values(["_r", "_t"])
        .drop(columns=["_r", "_t"])
        .reset_index(drop=True)
    )


def _check_summary(summary: Any) -> None:
    if not isinstance(summary, pd.DataFrame) or not set(SUMMARY_COLUMNS) <= set(summary.columns):
        raise InputError(
            "summary must be the DataFrame tax_choice_summary() returns", field="summary"
        )
    if summary.empty:
        raise InputError("summary is empty: the batch has no players", field="summary")


def tax_choice_figure(summary: pd.DataFrame) -> go.Figure:
    """Two panels by tax behaviour, one bar per role: how often the percentage was the
    cheaper option, and the income tax paid per decision (with what the cheaper option would
    have cost marked on each bar)."""
    _check_summary(summary)
    figure = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=(
            "How often the percentage was cheaper",
            "Income tax paid per decision",
        ),
        horizontal_spacing=0.12,
    )
    for role in (COMPETITOR, MONOPOLIST):
        rows = summary[summary["role"] == ROLES[role]]
        if rows.empty:
            continue
        x = [BEHAVIOUR_WORDS.get(t, t) for t in rows["tax"]]
        bar = {
            "name": f"{ROLE_PLURALS[role]}",
            "legendgroup": ROLES[role],
            "marker": role_bar(role),
            "x": x,
        }
        share = rows["percent_cheaper_share"]
        figure.add_bar(
            **bar,
            y=share,
            text=[f"{v:.0%}" if pd.notna(v) else "no decisions" for v in share],
            customdata=np.stack([rows["percent_cheaper"], rows["decisions"]], axis=-1),
            hovertemplate=f"{ROLE_PLURALS[role]}, %{{x}}: the percentage was cheaper in %{{customdata[0]}} of %{{customdata[1]}} decisions<extra></extra>",
            row=1,
            col=1,
        )
        lower = rows["cheaper_total"] / rows["decisions"].where(rows["decisions"] > 0)
        figure.add_bar(
            **bar,
            y=rows["paid_mean"],
            text=[f"${v:,.0f}" if pd.notna(v) else "" for v in rows["paid_mean"]],
            showlegend=False,
            customdata=np.stack([lower.fillna(0), rows["decisions"]], axis=-1),
            hovertemplate=f"{ROLE_PLURALS[role]}, %{{x}}: paid $%{{y:,.0f}} per decision; the cheaper option: $%{{customdata[0]:,.0f}} (%{{customdata[1]}} decisions)<extra></extra>",
            row=1,
            col=2,
        )
    figure.update_traces(textposition="outside", cliponaxis=False, textfont={"size": 15})
    figure.update_layout(
        chart_layout(
            "Income-tax choices in the simulated games, by role and tax behaviour",
            height=460,
            barmode="group",
            margin={"t": 90, "b": 70},
        )
    )
    figure.update_annotations(font={"size": 16})
    figure.update_xaxes(title_text="tax behaviour of the bot")
    figure.update_yaxes(
        title_text="share of decisions", **{**PERCENT_AXIS, "range": [0, 1.12]}, row=1, col=1
    )
    paid = summary["paid_mean"].max()
    figure.update_yaxes(
        title_text="mean tax paid",
        **DOLLAR_AXIS,
        range=[0, 1.15 * (paid if paid == paid and paid > 0 else 1)],
        row=1,
        col=2,
    )
    return figure


def reading_tax_choice(summary: pd.DataFrame) -> str:
    """Two sentences from `tax_choice_summary`: how often the percentage was cheaper for each
    role, and which role and behaviour paid the most above the cheaper option."""
    _check_summary(summary)
    parts = []
    for role in (COMPETITOR, MONOPOLIST):
        rows = summary[summary["role"] == ROLES[role]]
        decisions = int(rows["decisions"].sum())
        if decisions == 0:
            continue
        share = rows["percent_cheaper"].sum() / decisions
        parts.append(f"for {ROLE_PLURALS[role]} in {share:.0%} of {decisions:,} decisions")
    if not parts:
        return "Nobody landed on Income Tax in these games, so there were no choices to count."
    first = "The percentage was the cheaper income tax " + " and ".join(parts) + "."
    worst = summary.sort_values("overpaid_total", ascending=False, kind="stable").iloc[0]
    if worst["overpaid_total"] <= 0:
        return first + " Every choice made was the cheaper one (or the two were equal)."
    role = ROLE_LABELS[ROLES.index(worst["role"])]
    return (
        f"{first} {role}s who {HABIT_WORDS.get(worst['tax'], worst['tax'])} "
        f"paid the most extra: ${int(worst['overpaid_total']):,} more than the cheaper option "
        f"over {int(worst['decisions']):,} decisions."
    )
