"""Is the game fair? Win rates by role, seat and bot; the charts and readings of rule sweeps
and of presets compared (the sweeps themselves are run by `amteach.sim.sweep`); and a
counterfactual baseline where every player follows one role's rules.

Every number here comes from bot games played by the engine (`amteach.simulate`): nothing
re-implements a rule. Each analysis returns a tidy pandas DataFrame, has a plotly chart
(`*_figure`) and a sentence that reads the chart for a student (`reading_*`).

A 95% interval is the range of win rates that fits what we saw: with more games it narrows.
The readings compare rates as `stats` says: a group of one batch with its even mark (exact
binomial test), and one rate across two batches by Newcombe's interval for the difference.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..bots import STRATEGIES
from ..engine.board import ROLES
from ..engine.errors import InputError
from ..engine.rules import RuleSet
from ..sim.play import SeatSpec
from ..sim.results import SimulationResult
from ..sim.runner import DEFAULT_ROUND_CAP, simulate, with_round_cap
from ..sim.sweep import SWEEP_COLUMNS, check_batch_settings
from ..style import (
    DOLLAR_AXIS,
    PERCENT_AXIS,
    ROLE_COLOURS,
    ROLE_DASHES,
    ROLE_LABELS,
    ROLE_PLURALS,
    ROLE_SHAPES,
    ROLE_SYMBOLS,
    bar_patterns,
    chart_layout,
    role_bar,
)
from . import stats
from .rules_table import parameter_label, parameter_value, parameter_words

if TYPE_CHECKING:
    import plotly.graph_objects as go

MARKET_STRUCTURES = ("all Competitors", "mixed", "all Monopolists")
# the round at which the market structures' inequality is compared: almost every game is still
# running then, so the comparison is not a count of finished games (a game that ends with one
# player left has a Gini of exactly (n - 1) / n, 0.75 for four players, whatever happened)
GINI_ROUND = 50
MARKET_COLUMNS = (
    "structure",
    "players",
    "games",
    "rent_per_turn",
    "rent_per_game",
    "mean_rounds",
    "round_cap_share",
    "round_cap",
    "mean_gini",
    "gini_round",
    "gini_at_round",
    "gini_sd_at_round",
    "gini_games",
    "bankrupt_share",
)


def _percent(x: float) -> str:
    """A rate for a reading, to one decimal place: whole percents would let a rate look equal
    to an end of its interval."""
    return "n/a" if x != x else f"{100 * x:.1f}%"


def _share(x: float) -> str:
    """An even share such as 50% or 33.3%: no decimals when it is a whole percent."""
    text = _percent(x)
    return text.replace(".0%", "%")


def _interval(row: Any) -> str:
    return f"95% interval {_percent(row['ci_low'])} to {_percent(row['ci_high'])}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def seat_label(seat: int) -> str:
    """Turn order in words: seat 0 is "1st to play"."""
    return f"{_ordinal(int(seat) + 1)} to play"


# -- win rates by role, seat or bot -----------------------------------------------------------


def win_rate_table(result: SimulationResult, by: str = "role") -> pd.DataFrame:
    """`result.win_rates(by)` with a plain-English `label` for each row and `even_share`, the
    rate every row would have if the game were even (a role's share of the seats; 1 in n for
    a seat or a bot). `ci_low` and `ci_high` are the exact (Clopper-Pearson) 95% interval that
    the even test reads (`stats.compare_with_even`), not the Wilson interval of `win_rates`.

    By role, the rate is the share of games a player of that role won. By seat or bot, it is
    the share of that seat's (or bot's) games that it won.
    """
    rates = result.win_rates(by)
    seats = [SeatSpec(**s) for s in result.meta.get("seats", [])]
    n = len(seats) or int(result.players.groupby("game").size().max())
    if by == "role":
        labels = [ROLE_PLURALS[ROLES.index(r)] for r in rates["role"]]
        even = [
            sum(s.role == r for s in seats) / n if seats else float("nan") for r in rates["role"]
        ]
    elif by == "seat":
        labels = [
            seat_label(s) + (f" ({ROLE_LABELS[ROLES.index(seats[s].role)]})" if seats else "")
            for s in rates["seat"]
        ]
        even = [1 / n] * len(rates)
    else:
        labels = [str(b) for b in rates["bot"]]
        even = [1 / n] * len(rates)
    # the exact interval the even test reads (stats.compare_with_even), so an interval wholly
    # above or below the even mark says exactly what the test's sentence says
    games = len(result.games)
    ends = [
        _exact_ends(int(row.wins), int(row.games), share, games)
        for row, share in zip(rates.itertuples(), even, strict=True)
    ]
    return rates.assign(
        label=labels,
        even_share=even,
        ci_low=[low for low, _ in ends],
        ci_high=[high for _, high in ends],
    )


def _exact_ends(wins: int, plays: int, even: float, games: int) -> tuple[float, float]:
    """A group's exact 95% interval per play, as the even test computes it (a group that held
    two seats a game is tested on its games, not its plays)."""
    test = stats.group_even_test(wins, plays, even, games)
    if test is not None:
        return test.low, test.high
    return stats.exact_interval(wins, plays) if plays else (float("nan"), float("nan"))


def _bar_role(by: str, key: Any, seats: list[SeatSpec]) -> int | None:
    """The role a bar stands for (its colour and pattern), or None (grey, plain)."""
    if by == "role":
        return ROLES.index(key)
    if by == "seat" and seats:
        return ROLES.index(seats[int(key)].role)
    return None


# a percentage axis with room above 100% for the labels over the whiskers (ticks stop at 100%)
RATE_AXIS = {**PERCENT_AXIS, "range": [0, 1.1]}


def win_rates_figure(result: SimulationResult, by: str = "role") -> go.Figure:
    """Bars of the win rate by role, seat ("1st to play", ...) or bot, each with its exact 95%
    (Clopper-Pearson) interval, the one the even test reads, its rate written above the interval (so a label never sits on a whisker,
    and a small bar has one too), and a mark where an even game would put it. Competitors are
    solid green bars, Monopolists hatched blue, always named under the bar."""
    import plotly.graph_objects as go

    table = win_rate_table(result, by)
    seats = [SeatSpec(**s) for s in result.meta.get("seats", [])]
    roles = [_bar_role(by, key, seats) for key in table[by]]
    figure = go.Figure()
    figure.add_bar(
        x=table["label"],
        y=table["rate"],
        marker=bar_patterns(roles),
        error_y={
            "type": "data",
            "symmetric": False,
            "array": table["ci_high"] - table["rate"],
            "arrayminus": table["rate"] - table["ci_low"],
            "color": "#222",
            "thickness": 2,
            "width": 10,
        },
        customdata=table[["wins", "games", "ci_low", "ci_high"]].to_numpy(),
        hovertemplate=(
            "%{x}: won %{y:.1%} (%{customdata[0]} of %{customdata[1]})<br>"
            "95% interval %{customdata[2]:.1%} to %{customdata[3]:.1%}<extra></extra>"
        ),
        name="win rate",
        showlegend=False,
    )
    figure.add_scatter(
        x=table["label"],
        y=table["even_share"],
        mode="markers",
        marker={"symbol": "line-ew-open", "size": 44, "color": "#b00020", "line": {"width": 3}},
        name="an even game",
        hovertemplate="an even game: %{y:.0%}<extra></extra>",
    )
    # each bar's rate, just above the top of its interval
    figure.add_scatter(
        x=table["label"],
        y=table["ci_high"],
        mode="text",
        text=[_percent(rate) for rate in table["rate"]],
        textposition="top center",
        textfont={"size": 16, "color": "#111"},
        hoverinfo="skip",
        showlegend=False,
        cliponaxis=False,
    )
    what = {"role": "role", "seat": "turn order", "bot": "bot"}[by]
    return figure.update_layout(
        chart_layout(
            f"Who wins, by {what} (thin lines: 95% intervals)",
            height=400,
            xaxis={"title": {"text": what}},
            yaxis={"title": {"text": "share of games won"}, **RATE_AXIS},
            bargap=0.35,
        )
    )


def reading_win_rates(result: SimulationResult, by: str = "role") -> str:
    """One or two sentences reading `win_rates_figure` for a student, numbers from the batch."""
    table = win_rate_table(result, by)
    games = len(result.games)
    if games == 0 or table.empty:
        return "No games finished, so there is nothing to read yet."
    if by == "role":
        parts = [
            f"{row['label']} won {_percent(row['rate'])} ({_interval(row)})"
            for _, row in table.iterrows()
        ]
        text = f"Of these {games} games, " + "; ".join(parts) + "."
        even = [row for _, row in table.iterrows() if row["even_share"] == row["even_share"]]
        if even:
            text += " If the game were even, each role would win its share of the seats: " + (
                ", ".join(f"{_share(r['even_share'])} for {r['label']}" for r in even) + "."
            )
            rows = [(f"the {r['label']}", r["wins"], r["games"], r["even_share"]) for r in even]
            text += stats.even_tests_sentence(rows, games)
        return text + stats.cap_sentence(result)
    best = table.loc[table["rate"].idxmax()]
    worst = table.loc[table["rate"].idxmin()]

    def who(row: pd.Series) -> str:
        return f"the player who was {row['label']}" if by == "seat" else f"the {row['label']} bot"

    name = who(best)
    name = name[0].upper() + name[1:]
    if len(table) == 1:
        return (
            f"{name} played every seat and won {_percent(best['rate'])} of its plays "
            f"({_interval(best)}); an even game gives each play {_share(best['even_share'])}."
        )
    rows = [(who(r), r["wins"], r["games"], r["even_share"]) for r in (best, worst)]
    return (
        f"{name} won {_percent(best['rate'])} of its games "
        f"({_interval(best)}), against {_percent(worst['rate'])} for {who(worst)} "
        f"({_interval(worst)}). If the game were even, each would win "
        f"{_share(best['even_share'])}."
        + stats.even_tests_sentence(rows, games)
        + stats.cap_sentence(result)
    )


# -- sweeps and presets -----------------------------------------------------------------------


def _axis_title(parameter: str) -> str:
    return "rules preset" if parameter == "preset" else parameter_label(parameter)


def _is_numeric(values: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(values))


def sweep_figure(frame: pd.DataFrame) -> go.Figure:
    """Win rate by role against the swept value (a sweep or `compare_presets`), with 95%
    intervals as error bars and a shaded band; Competitors green circles, Monopolists blue
    squares, each named in the legend."""
    import plotly.graph_objects as go

    _check_sweep_frame(frame)
    parameter = str(frame["parameter"].iloc[0])
    numeric = _is_numeric(frame["value"])
    figure = go.Figure()
    for r, role in enumerate(ROLES):
        rows = frame[frame["role"] == role]
        if numeric:
            rows = rows.sort_values("value")
        x = rows["value"] if numeric else rows["value"].astype(str)
        if numeric and len(rows) > 1:
            # the interval as a band: the upper edge, then the lower edge filled up to it
            figure.add_scatter(
                x=list(x) + list(x)[::-1],
                y=list(rows["ci_high"]) + list(rows["ci_low"])[::-1],
                fill="toself",
                fillcolor=ROLE_COLOURS[r],
                opacity=0.15,
                line={"width": 0},
                hoverinfo="skip",
                showlegend=False,
            )
        figure.add_scatter(
            x=x,
            y=rows["rate"],
            mode="lines+markers" if numeric else "markers",
            name=ROLE_PLURALS[r],
            line={"color": ROLE_COLOURS[r], "width": 3, "dash": ROLE_DASHES[r]},
            marker={"symbol": ROLE_SYMBOLS[r], "size": 12, "color": ROLE_COLOURS[r]},
            error_y={
                "type": "data",
                "symmetric": False,
                "array": rows["ci_high"] - rows["rate"],
                "arrayminus": rows["rate"] - rows["ci_low"],
                "color": ROLE_COLOURS[r],
            },
            customdata=rows[["wins", "games", "ci_low", "ci_high"]].to_numpy(),
            hovertemplate=(
                f"{ROLE_PLURALS[r]}, {_axis_title(parameter)} %{{x}}: won %{{y:.1%}} "
                "(%{customdata[0]} of %{customdata[1]})<br>95% interval "
                "%{customdata[2]:.1%} to %{customdata[3]:.1%}<extra></extra>"
            ),
        )
    title = (
        "Who wins under each rules preset (95% intervals)"
        if parameter == "preset"
        else f"Who wins as {parameter_words(parameter)} changes (95% intervals)"
    )
    unit = "$" if _axis_title(parameter).endswith("($)") else ""
    return figure.update_layout(
        chart_layout(
            title,
            height=420,
            xaxis={
                "title": {"text": _axis_title(parameter)},
                "type": "linear" if numeric else "category",
                **({"tickprefix": unit, "tickformat": ",d"} if numeric else {}),
            },
            yaxis={"title": {"text": "share of games won"}, **PERCENT_AXIS, "range": [0, 1.05]},
        )
    )


def _check_sweep_frame(frame: pd.DataFrame) -> None:
    missing = [c for c in SWEEP_COLUMNS[:8] if c not in frame]
    if missing:
        raise InputError(
            f"not a sweep's frame: the column {missing[0]!r} is missing", field="frame"
        )
    if frame.empty:
        raise InputError("the sweep's frame has no rows (no games finished)", field="frame")


def _role_row(rows: pd.DataFrame, role: str) -> pd.Series:
    return rows[rows["role"] == role].iloc[0]


def _value_text(parameter: str, value: Any) -> str:
    return f"the {value} preset" if parameter == "preset" else f"{parameter} = {value}"


def reading_sweep_value(frame: pd.DataFrame, value: Any) -> str:
    """One line for one value of a sweep: each role's win rate with its interval and the
    mean game length."""
    _check_sweep_frame(frame)
    rows = frame[frame["value"] == value]
    if rows.empty:
        raise InputError(f"{value!r} is not a value of this sweep", field="value")
    parameter = str(rows["parameter"].iloc[0])
    c, m = _role_row(rows, "competitor"), _role_row(rows, "monopolist")
    text = (
        f"With {_value_text(parameter, value)}: Monopolists won {_percent(m['rate'])} "
        f"({_interval(m)}), Competitors {_percent(c['rate'])} ({_interval(c)})"
    )
    if "mean_rounds" in rows:
        text += f"; games lasted {rows['mean_rounds'].iloc[0]:.0f} rounds on average"
    if "round_cap_share" in rows:
        text += f", and the round cap settled {_percent(rows['round_cap_share'].iloc[0])} of them"
    return text + "."


def reading_sweep(frame: pd.DataFrame) -> str:
    """Sentences reading `sweep_figure` for a student: how the Monopolists' and the
    Competitors' win rates move between the first and the last value, whether the change is
    more than luck (Newcombe's interval for the difference, `stats.compare_batches`), and
    how many games the round cap settled."""
    _check_sweep_frame(frame)
    parameter = str(frame["parameter"].iloc[0])
    values = list(dict.fromkeys(frame["value"]))
    if _is_numeric(frame["value"]):
        values.sort()
    first = frame[frame["value"] == values[0]]
    last = frame[frame["value"] == values[-1]]
    if len(values) == 1:
        return reading_sweep_value(frame, values[0])
    m0, m1 = _role_row(first, "monopolist"), _role_row(last, "monopolist")
    c0, c1 = _role_row(first, "competitor"), _role_row(last, "competitor")
    subject = (
        f"From the {values[0]} preset to the {values[-1]} preset"
        if parameter == "preset"
        else (
            f"As {parameter_words(parameter)} goes from {parameter_value(parameter, values[0])} "
            f"to {parameter_value(parameter, values[-1])}"
        )
    )
    text = (
        f"{subject}, the Monopolists' win rate goes from {_percent(m0['rate'])} "
        f"({_interval(m0)}) to {_percent(m1['rate'])} ({_interval(m1)}), and the "
        f"Competitors' from {_percent(c0['rate'])} to {_percent(c1['rate'])}."
    )
    change = stats.compare_batches(m0["wins"], m0["games"], m1["wins"], m1["games"])
    text += " " + stats.difference_sentence("the Monopolists' win rate", change)
    if "round_cap_share" in frame:
        text += (
            f" The round cap settled {_percent(m0['round_cap_share'])} of the games at the "
            f"first value and {_percent(m1['round_cap_share'])} at the last."
        )
    return text


# -- the counterfactual: one role's rules for everyone ----------------------------------------


def structure_seats(structure: str, players: int, bot: str) -> list[str]:
    """The seats of a market structure: "all Competitors", "mixed" (roles taking turns, as
    decision 13 allows) or "all Monopolists"."""
    if structure == "all Competitors":
        roles = ["competitor"] * players
    elif structure == "all Monopolists":
        roles = ["monopolist"] * players
    elif structure == "mixed":
        roles = [ROLES[i % 2] for i in range(players)]
    else:
        raise InputError(
            f"structure must be one of {', '.join(MARKET_STRUCTURES)}, not {structure!r}",
            field="structure",
        )
    return [f"{role}:{bot}" for role in roles]


def market_structures(
    games: int = 500,
    players: int = 4,
    bot: str = "investor",
    rules: RuleSet | str | dict[str, Any] = "default",
    seed: int = 0,
    workers: int | None = None,
    round_cap: int | None = DEFAULT_ROUND_CAP,
    progress: bool | str = True,
    on_progress: Callable[[int, int], None] | None = None,
    gini_round: int = GINI_ROUND,
) -> pd.DataFrame:
    """A counterfactual baseline: the same board and bots with every player under the
    Competitors' rules, with the usual mix, and with every player under the Monopolists'
    rules. One row per structure: `rent_per_turn` (rent paid per turn taken),
    `rent_per_game`, `mean_rounds`, `round_cap_share`, `round_cap`, `mean_gini` (the mean
    final Gini coefficient of the players' net worth: 0 is equal, 0.75 means one of four
    players holds everything), `gini_at_round` (the mean Gini of wealth at round
    `gini_round`, over the `gini_games` games still running then; the round is the round cap
    if that comes sooner), `gini_sd_at_round` (how much those games' Ginis spread: their
    standard deviation, for the interval of a difference) and `bankrupt_share` (share of
    players who went bankrupt).

    Compare the structures' inequality with `gini_at_round`, not `mean_gini`: a game that
    ends with one player left has a final Gini of exactly (n - 1) / n, so the final Gini
    mostly counts how many games finished.

    Decision 13 forbids a table of one role; these games are an analysis, not a game a class
    plays, so they use `simulate(..., allow_one_role=True)`. They play Game A (last player
    standing) with the round cap settling the rest: Game B would end at once with one role.
    """
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6:
        raise InputError(f"players must be from 2 to 6, not {players!r}", field="players")
    if bot not in STRATEGIES:
        raise InputError(f"unknown bot {bot!r}; valid bots: {', '.join(STRATEGIES)}", field="bot")
    if isinstance(gini_round, bool) or not isinstance(gini_round, int) or gini_round < 1:
        raise InputError(
            f"gini_round must be a whole number of rounds, at least 1, not {gini_round!r}",
            field="gini_round",
        )
    workers = check_batch_settings(games, workers, "A")
    ruleset = with_round_cap(RuleSet.coerce(rules), round_cap, "round_cap")
    rows = []
    interrupted = False
    for i, structure in enumerate(MARKET_STRUCTURES):

        def advance(done: int, _total: int, played: int = i * games) -> None:
            if on_progress is not None:  # may raise KeyboardInterrupt to stop (Cancel)
                on_progress(played + done, len(MARKET_STRUCTURES) * games)

        result = simulate(
            games=games,
            seats=structure_seats(structure, players, bot),
            rules=ruleset,
            seed=seed,
            workers=workers,
            round_cap=None,
            game="A",
            progress=progress,
            record_rounds=True,  # the Gini at a fixed round reads every round's wealth
            allow_one_role=structure != "mixed",
            on_chunk=advance,
        )
        if result.completed:
            rows.append(_structure_row(structure, players, ruleset, result, gini_round))
        if result.interrupted:
            interrupted = True
            break
    frame = pd.DataFrame(rows, columns=list(MARKET_COLUMNS))
    frame.attrs["interrupted"] = interrupted
    return frame


def _structure_row(
    structure: str, players: int, ruleset: RuleSet, result: SimulationResult, gini_round: int
) -> dict[str, Any]:
    # imported here: it brings plotly, which a sweep never needs
    from .inequality import gini, gini_by_round

    g, p = result.games, result.players
    rent = p.groupby("game")["rent_paid"].sum()
    ginis = p.groupby("game")["net_worth"].apply(lambda worth: gini(worth.to_numpy()))
    at = min(gini_round, ruleset.round_cap) if ruleset.round_cap else gini_round
    by_round = gini_by_round(result.rounds).set_index("round")
    running = by_round.loc[at] if at in by_round.index else None
    return {
        "structure": structure,
        "players": players,
        "games": len(g),
        "rent_per_turn": float(rent.sum() / g["turns"].sum()),
        "rent_per_game": float(rent.mean()),
        "mean_rounds": float(g["rounds"].mean()),
        "round_cap_share": float((g["end_reason"] == "round_cap").mean()),
        "round_cap": ruleset.round_cap,
        "mean_gini": float(ginis.mean()),
        "gini_round": at,
        "gini_at_round": float(running["gini_mean"]) if running is not None else float("nan"),
        "gini_sd_at_round": float(running["gini_sd"]) if running is not None else float("nan"),
        "gini_games": int(running["games"]) if running is not None else 0,
        "bankrupt_share": float(p["bankrupt"].mean()),
    }


def gini_gap(frame: pd.DataFrame) -> stats.MeanDifference:
    """The Gini at the chart's round, all Monopolists' table minus all Competitors', with
    Welch's 95% interval: the two tables are separate sets of games."""
    rows = frame.set_index("structure")
    c, m = rows.loc["all Competitors"], rows.loc["all Monopolists"]
    return stats.compare_means(
        c["gini_at_round"],
        c["gini_sd_at_round"],
        int(c["gini_games"]),
        m["gini_at_round"],
        m["gini_sd_at_round"],
        int(m["gini_games"]),
    )


def gini_gap_sentence(frame: pd.DataFrame) -> str:
    """The Gini gap between the two one-role tables with its interval, for the reading
    ("" when a table has fewer than two games running at that round)."""
    rows = frame.set_index("structure")
    if min(rows.loc[s, "gini_games"] for s in ("all Competitors", "all Monopolists")) < 2:
        return ""
    gap = gini_gap(frame)
    verdict = (
        "it leaves out 0, so the gap is more than luck would explain"
        if gap.significant
        else "it includes 0, so these games cannot rule out luck"
    )
    return (
        f"The Gini of the Monopolists' table minus the Competitors' is {gap.difference:+.2f}, "
        f"with a {gap.confidence:.0%} interval of {gap.low:+.2f} to {gap.high:+.2f} "
        f"(Welch's method for two separate sets of games): {verdict}. "
    )


def _structure_role(structure: str) -> int | None:
    """The role a market structure's bars stand for: all Competitors green and plain, all
    Monopolists blue and hatched, the mix grey."""
    return {"all Competitors": 0, "all Monopolists": 1}.get(structure)


def market_structures_figure(frame: pd.DataFrame) -> go.Figure:
    """Three panels, one bar per market structure (named under each bar): rent paid per
    turn, mean game length in rounds (with the share of games the round cap settled), and
    the mean Gini coefficient of wealth at a fixed round (`gini_round`) over the games still
    running then."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    if frame.empty or "structure" not in frame:
        raise InputError("not a market_structures frame (no structures)", field="frame")
    figure = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=(
            "Rent paid per turn",
            "Game length (rounds)",
            f"Inequality at round {_gini_round(frame)} (Gini)",
        ),
    )
    marker = bar_patterns([_structure_role(s) for s in frame["structure"]])
    panels = (
        ("rent_per_turn", "$%{y:,.0f} per turn", [f"${v:,.0f}" for v in frame["rent_per_turn"]]),
        (
            "mean_rounds",
            "%{y:.0f} rounds",
            [
                f"{v:.0f} rounds<br>{100 * s:.0f}% at the cap"
                for v, s in zip(frame["mean_rounds"], frame["round_cap_share"], strict=True)
            ],
        ),
        (
            "gini_at_round",
            "Gini %{y:.2f}",
            [
                f"{v:.2f}<br>{n} games running"
                for v, n in zip(frame["gini_at_round"], frame["gini_games"], strict=True)
            ],
        ),
    )
    for col, (column, hover, text) in enumerate(panels, start=1):
        figure.add_trace(
            go.Bar(
                x=frame["structure"],
                y=frame[column],
                marker=marker,
                text=text,
                textposition="outside",
                textangle=0,
                cliponaxis=False,
                textfont={"size": 15},
                hovertemplate=f"%{{x}}: {hover}<extra></extra>",
                showlegend=False,
            ),
            row=1,
            col=col,
        )
    top = {column: float(frame[column].max()) * 1.35 for column, _, _ in panels}
    figure.update_yaxes(**DOLLAR_AXIS, range=[0, top["rent_per_turn"]], row=1, col=1)
    figure.update_yaxes(tickformat=",d", range=[0, top["mean_rounds"]], row=1, col=2)
    figure.update_yaxes(range=[0, 1], dtick=0.2, row=1, col=3)
    figure.update_annotations(font={"size": 16})
    return figure.update_layout(
        chart_layout(
            "What market structure does: the same board with different rules",
            height=440,
            margin={"t": 90, "b": 60},
            uniformtext={"minsize": 14, "mode": "show"},
        )
    )


def _gini_round(frame: pd.DataFrame) -> int:
    """The round at which a market-structures frame compares inequality."""
    return int(frame["gini_round"].iloc[0])


def reading_market_structures(frame: pd.DataFrame) -> str:
    """Sentences reading `market_structures_figure` for a student, comparing a table of
    Monopolists with a table of Competitors: rent, game length, the Gini at the chart's round
    with the gap's interval (`gini_gap`), and the cap shares' difference."""
    if "structure" not in frame:
        raise InputError("not a market_structures frame (no structures)", field="frame")
    rows = frame.set_index("structure")
    missing = [s for s in ("all Competitors", "all Monopolists") if s not in rows.index]
    if missing:
        raise InputError(f"the frame has no {missing[0]!r} row", field="frame")
    c, m = rows.loc["all Competitors"], rows.loc["all Monopolists"]
    capped = stats.compare_batches(
        round(c["round_cap_share"] * c["games"]),
        int(c["games"]),
        round(m["round_cap_share"] * m["games"]),
        int(m["games"]),
    )
    return (
        f"When every player follows the Monopolists' rules, each turn costs "
        f"${m['rent_per_turn']:,.0f} in rent on average, against ${c['rent_per_turn']:,.0f} "
        f"when everyone is a Competitor; games last {m['mean_rounds']:.0f} rounds against "
        f"{c['mean_rounds']:.0f} ({_percent(m['round_cap_share'])} and "
        f"{_percent(c['round_cap_share'])} reach the {int(m['round_cap'])}-round cap). "
        f"At round {_gini_round(frame)}, in the games still running then "
        f"({int(m['gini_games'])} and {int(c['gini_games'])} of {int(m['games'])}), the Gini "
        f"coefficient of wealth is {m['gini_at_round']:.2f} among Monopolists and "
        f"{c['gini_at_round']:.2f} among Competitors (0 means everyone is equally rich; the "
        "same round for every table, because a game that ends with one player left always "
        "ends at the highest Gini there is). "
        + gini_gap_sentence(frame)
        + stats.difference_sentence(
            "the share of games the cap settled (Monopolists' table minus Competitors')",
            capped,
            noun="difference",
        )
    )


# -- a class's own games beside a batch -----------------------------------------------------------


def games_count(games: int) -> str:
    """A number of games in words, with the right plural: "1 game", "1,200 games"."""
    return f"{games:,} game" + ("" if games == 1 else "s")


def win_rates_side_by_side(results: dict[str, SimulationResult]) -> go.Figure:
    """Win rate by role for several sets of games side by side (a class's own games and a
    bots' batch), each bar with its exact 95% interval. The sets are named on the x-axis with
    their games counted; a role is one trace, in its colour and its pattern (Competitors green
    and plain, Monopolists blue and hatched), so the legend tells the roles apart without
    colour too."""
    import plotly.graph_objects as go

    tables = {
        f"{name} ({games_count(len(result.games))})": win_rate_table(result, "role")
        for name, result in results.items()
    }
    figure = go.Figure()
    for index, role in enumerate(ROLES):
        rows = [(label, table[table["role"] == role].iloc[0]) for label, table in tables.items()]
        figure.add_bar(
            x=[label for label, _ in rows],
            y=[row["rate"] for _, row in rows],
            name=f"{ROLE_PLURALS[index]} {ROLE_SHAPES[index]}",
            marker=role_bar(index),
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [row["ci_high"] - row["rate"] for _, row in rows],
                "arrayminus": [row["rate"] - row["ci_low"] for _, row in rows],
                "color": "#333",
                "thickness": 2,
            },
            customdata=[
                [row["wins"], row["games"], row["ci_low"], row["ci_high"]] for _, row in rows
            ],
            hovertemplate=(
                f"%{{x}}: {ROLE_PLURALS[index]} won %{{y:.1%}} (%{{customdata[0]}} of "
                "%{customdata[1]})<br>95% interval %{customdata[2]:.1%} to "
                "%{customdata[3]:.1%}<extra></extra>"
            ),
        )
    return figure.update_layout(
        chart_layout(
            "Who wins, by role (thin lines: 95% intervals)",
            height=420,
            barmode="group",
            yaxis={"title": {"text": "share of games won"}, **PERCENT_AXIS},
        )
    )


def reading_class_and_bots(class_games: SimulationResult, bots: SimulationResult) -> str:
    """The class's win rate by role beside the bots', in words: both rates with their
    intervals, and the difference for the Monopolists with Newcombe's interval (two separate
    sets of games)."""
    mine, theirs = win_rate_table(class_games, "role"), win_rate_table(bots, "role")
    if len(class_games.games) == 0:
        return "No table has finished its game yet, so the class has no win rate to show."
    parts = []
    for (_, row), (_, bot_row) in zip(mine.iterrows(), theirs.iterrows(), strict=True):
        parts.append(
            f"{row['label']} won {_percent(row['rate'])} of the class's games ({_interval(row)}) "
            f"and {_percent(bot_row['rate'])} of the bots' ({_interval(bot_row)})"
        )
    games = games_count(len(class_games.games)).replace(" game", " finished game")
    text = f"Of the class's {games}, " + "; ".join(parts) + ". "
    monopolists = [t[t["role"] == "monopolist"].iloc[0] for t in (theirs, mine)]
    change = stats.compare_batches(
        int(monopolists[0]["wins"]),
        int(monopolists[0]["games"]),
        int(monopolists[1]["wins"]),
        int(monopolists[1]["games"]),
    )
    return (
        text
        + stats.difference_sentence(
            "the Monopolists' win rate from the bots to the class", change, "difference"
        )
        + _lengths_sentence(class_games, bots)
    )


def game_round(result: SimulationResult) -> int:
    """The round a set of games reached: the median of their lengths in rounds (at least 1)."""
    return max(1, round(float(result.games["rounds"].median())))


def _lengths_sentence(class_games: SimulationResult, bots: SimulationResult) -> str:
    """How far the two sets of games went: a win rate depends on where play stops, so the
    class is compared with bots stopped at about the same round."""
    mine, theirs = game_round(class_games), game_round(bots)
    text = (
        f" The class's games stopped at round {mine} (the middle game) and the bots' at round "
        f"{theirs}"
    )
    if abs(mine - theirs) <= max(2, 0.1 * mine):
        return text + ": both were settled at about the same point of a game."
    return text + (
        ": a game stopped at another round is settled at another point, so this difference "
        "is partly one of game length."
    )
