"""Inequality among the players: the Gini coefficient, Lorenz curves and the gap between roles.

Everything here works on a ``rounds`` frame: one row per player per round with columns game,
round, seat, role, bot, cash, titles, buildings and wealth (docs/simulation.md). A batch gives
one (`SimulationResult.rounds`); `wealth_history` builds the same frame for one game, so a game
played in the classroom app is studied with the same functions and charts.

**The Gini coefficient** (`gini`) is the mean absolute difference between two players' wealth
divided by twice the mean wealth::

    G = sum_i sum_j |x_i - x_j| / (2 * n**2 * mean(x))

where both sums run over all n players (a player paired with itself counts, with difference 0).
It is 0 when everyone holds the same amount and (n - 1) / n when one of n players holds
everything: 0.5 for two players, 0.75 for four. This is the plain form, without the
n / (n - 1) correction some textbooks apply to samples, because the players of a game are the
whole population, not a sample of it.

**Wealth** is the rounds frame's ``wealth`` column: cash + titles at price (mortgaged: price
less the redeem price) + buildings at what was paid for them, as `Game.wealth_parts` reports
it. A bankrupt player counts with wealth 0: they are still one of the game's players, and
having nothing is part of the inequality.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..engine.board import ROLES
from ..engine.errors import InputError
from ..engine.game import Game
from ..session import RoundRecorder
from ..style import (
    DOLLAR_AXIS,
    ROLE_COLOURS,
    ROLE_DASHES,
    ROLE_LABELS,
    ROLE_PLURALS,
    ROLE_SYMBOLS,
    WHOLE_AXIS,
    chart_layout,
)

DEFAULT_LORENZ_ROUNDS = (0, 10, 25, 50)
# share of games the Gini band covers: the middle 95% of the games still running
BAND_COVERAGE = 0.95
# most points drawn per pooled Lorenz curve (a batch of 10,000 games pools 40,000 players)
LORENZ_POINTS = 201


# -- one list of amounts ------------------------------------------------------------------------
def _amounts(values: Iterable[float] | np.ndarray, name: str = "values") -> np.ndarray:
    """Check a list of wealth amounts and return it as a flat float array (named in any error)."""
    try:
        raw = values if isinstance(values, np.ndarray | pd.Series) else list(values)
        amounts = np.asarray(raw, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a list of numbers", field=name) from None
    if amounts.size == 0:
        raise InputError(f"{name} must hold at least one amount, not none", field=name)
    if not np.all(np.isfinite(amounts)):
        raise InputError(f"{name} must be numbers, not NaN or infinity", field=name)
    if np.any(amounts < 0):
        raise InputError(f"{name} must be at least 0, not {amounts.min():g}", field=name)
    return amounts


def gini(values: Iterable[float] | np.ndarray) -> float:
    """The Gini coefficient of some players' wealth: 0 means everyone holds the same.

    It is the average gap between two players' wealth (over every pair of players, each player
    also paired with itself) divided by twice the average wealth. With n players it runs from 0
    (everyone equal) to (n - 1) / n (one player holds everything): 0.5 for two players, 0.75
    for four. For example, wealth 1, 2, 3 and 4 gives 0.25.

    Amounts must be 0 or more: a player's wealth never falls below 0 (a player who cannot pay
    goes bankrupt and hands over what is left), and cash can be 0. If every amount is 0, nobody
    holds more than anyone else, so the answer is 0.0. An empty list, NaN, infinity or a
    negative amount raises `InputError` naming ``values``.
    """
    amounts = np.sort(_amounts(values))
    n = amounts.size
    total = amounts.sum()
    if total == 0:
        return 0.0
    # For sorted amounts x_1 <= ... <= x_n the double sum of |x_i - x_j| equals
    # 2 * sum_i (2i - n - 1) x_i, so no n-by-n table of differences is needed.
    ranks = np.arange(1, n + 1)
    result = float(np.sum((2 * ranks - n - 1) * amounts) / (n * total))
    # rounding can stray a hair outside the exact bounds
    return min(max(result, 0.0), (n - 1) / n)


def lorenz(values: Iterable[float] | np.ndarray) -> pd.DataFrame:
    """The Lorenz curve of some players' wealth, poorest first.

    Row k says what share of all wealth the poorest k players hold together: columns
    ``population_share`` (k / n) and ``wealth_share``. The curve starts at (0, 0) and ends at
    (1, 1). If everyone held the same it would be the diagonal (the equality line); the
    further it sags below the diagonal, the more unequal the wealth. If every amount is 0 the
    curve is the diagonal (nobody holds more than anyone else, as `gini` says).
    """
    amounts = np.sort(_amounts(values))
    n = amounts.size
    total = amounts.sum()
    population = np.arange(n + 1) / n
    if total == 0:
        wealth = population.copy()
    else:
        wealth = np.concatenate(([0.0], np.cumsum(amounts) / total))
        wealth[-1] = 1.0  # exactly 1, whatever the rounding of the running sum
    return pd.DataFrame({"population_share": population, "wealth_share": wealth})


# -- a rounds frame (a batch, or one game's history) --------------------------------------------
def _check_rounds(rounds: pd.DataFrame, needed: Sequence[str], name: str = "rounds") -> None:
    if not isinstance(rounds, pd.DataFrame):
        raise InputError(
            f"{name} must be a pandas DataFrame (a SimulationResult's rounds, or "
            f"wealth_history(game)), not {type(rounds).__name__}",
            field=name,
        )
    missing = [c for c in needed if c not in rounds.columns]
    if missing:
        raise InputError(
            f"{name} lacks the column(s) {', '.join(missing)}; it needs {', '.join(needed)}",
            field=name,
        )
    if rounds.empty:
        raise InputError(
            f"{name} has no rows (was the batch run with record_rounds=False?)", field=name
        )
    if rounds["wealth"].isna().any() or (rounds["wealth"] < 0).any():
        raise InputError(f"{name}: wealth must be 0 or more and never missing", field=name)


def _game_ginis(rounds: pd.DataFrame) -> pd.DataFrame:
    """The Gini coefficient of each (game, round): columns game, round, gini, players."""
    ordered = rounds.sort_values(["game", "round", "wealth"], kind="stable")
    keys = ordered[["game", "round"]].to_numpy()
    wealth = ordered["wealth"].to_numpy(dtype=float)
    # each group is one contiguous block; rank players within it (1..n, poorest first)
    starts = np.flatnonzero(np.r_[True, np.any(keys[1:] != keys[:-1], axis=1)])
    sizes = np.diff(np.r_[starts, len(keys)])
    rank = np.arange(len(keys)) - np.repeat(starts, sizes) + 1
    n = np.repeat(sizes, sizes)
    # the same sorted-rank form of the Gini as `gini`, summed group by group
    weighted = np.add.reduceat((2 * rank - n - 1) * wealth, starts)
    totals = np.add.reduceat(wealth, starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(totals > 0, weighted / (sizes * totals), 0.0)
    values = np.clip(values, 0.0, (sizes - 1) / sizes)
    return pd.DataFrame(
        {
            "game": keys[starts, 0],
            "round": keys[starts, 1].astype(int),
            "gini": values,
            "players": sizes,
        }
    )


def gini_by_round(rounds: pd.DataFrame, coverage: float = BAND_COVERAGE) -> pd.DataFrame:
    """The Gini coefficient among each game's players at each round, averaged over games.

    For every game and round, the Gini coefficient of the players' wealth (bankrupt players
    count with 0). At each round these are averaged over the games still running then (a game
    that ended at round R has its last row, after the end, at round R, and no rows later).

    Columns: ``round``; ``gini_mean``, the average over those games; ``gini_low`` and
    ``gini_high``, the band holding the middle `coverage` (95%) of those games (the 2.5th and
    97.5th percentiles): it shows how much games differ, not how precisely the mean is known;
    ``gini_sd``, the standard deviation of those games' Ginis (empty with one game), from
    which an interval for the mean or for a difference of two means can be worked out
    (`stats.compare_means`); ``games``, how many games are still running; ``players``, the most players in one of them
    (one player holding everything would give (players - 1) / players).
    """
    _check_rounds(rounds, ("game", "round", "wealth"))
    if not 0 < coverage < 1:
        raise InputError(f"coverage must be between 0 and 1, not {coverage}", field="coverage")
    per_game = _game_ginis(rounds)
    tail = (1 - coverage) / 2
    grouped = per_game.groupby("round", sort=True)["gini"]
    frame = pd.DataFrame(
        {
            "gini_mean": grouped.mean(),
            "gini_low": grouped.quantile(tail),
            "gini_high": grouped.quantile(1 - tail),
            "gini_sd": grouped.std(ddof=1),
            "games": grouped.size(),
            "players": per_game.groupby("round", sort=True)["players"].max(),
        }
    ).reset_index()
    return frame.astype({"round": int, "games": int, "players": int})


def role_gap_by_round(rounds: pd.DataFrame) -> pd.DataFrame:
    """Average wealth of Competitors and of Monopolists at each round, and the gap between them.

    Columns: ``round``; ``competitor_mean`` and ``monopolist_mean``, the average wealth of the
    players of that role, over all games still running at that round (bankrupt players count
    with 0); ``gap``, Monopolists' average minus Competitors' (positive: Monopolists are
    richer); ``ratio``, Monopolists' average divided by Competitors' (empty if Competitors hold
    nothing); ``games``, how many games are still running.
    """
    _check_rounds(rounds, ("game", "round", "role", "wealth"))
    # a categorical role column groups fast (a batch has millions of rows); strings are turned
    # into one, and anything that is not a role is reported
    unknown = rounds["role"][~rounds["role"].isin(ROLES)]
    if len(unknown):
        raise InputError(
            f"rounds: role must be {' or '.join(ROLES)}, not {unknown.iloc[0]!r}", field="role"
        )
    role = pd.Categorical(rounds["role"], categories=list(ROLES))
    means = (
        pd.DataFrame(
            {
                "round": rounds["round"].to_numpy(),
                "role": role,
                "wealth": rounds["wealth"].to_numpy(),
            }
        )
        .groupby(["round", "role"], sort=True, observed=True)["wealth"]
        .mean()
        .unstack("role")
        .reindex(columns=list(ROLES))
    )
    frame = pd.DataFrame(
        {
            "competitor_mean": means["competitor"],
            "monopolist_mean": means["monopolist"],
        }
    )
    frame["gap"] = frame["monopolist_mean"] - frame["competitor_mean"]
    competitor = frame["competitor_mean"].where(frame["competitor_mean"] > 0)
    frame["ratio"] = frame["monopolist_mean"] / competitor
    frame["games"] = rounds.groupby("round", sort=True)["game"].nunique()
    frame = frame.reset_index()
    return frame.astype({"round": int, "games": int})


def lorenz_at_rounds(
    rounds: pd.DataFrame,
    at: Iterable[int] | int = DEFAULT_LORENZ_ROUNDS,
    max_points: int = LORENZ_POINTS,
) -> pd.DataFrame:
    """Lorenz curves of all players' wealth, pooled over games, at chosen rounds.

    At each round in `at`, the players of every game still running then are put together in
    one list and its Lorenz curve is drawn (see `lorenz`). Games that ended earlier are left
    out rather than frozen at their last row: a finished game's wealth no longer changes, and
    mixing it in would blur what is happening at that round. So a late round describes only
    the games that lasted that long. Rounds no game reached are skipped.

    Columns: ``round``, ``population_share``, ``wealth_share`` (as in `lorenz`), ``games``
    (games pooled) and ``players`` (players pooled). A curve of more than `max_points` points
    is read off at `max_points` evenly spaced population shares (the curve is straight between
    players, so these points lie exactly on it). An `at` that is not a list of whole numbers of
    0 or more, or that no game reaches, raises `InputError` naming ``at``.
    """
    _check_rounds(rounds, ("game", "round", "wealth"))
    if isinstance(max_points, bool) or not isinstance(max_points, int) or max_points < 2:
        raise InputError(
            f"max_points must be a whole number of at least 2, not {max_points!r}",
            field="max_points",
        )
    wanted = _rounds_list(at)
    present = set(rounds["round"].unique().tolist())
    kept = [r for r in wanted if r in present]
    if not kept:
        last = int(rounds["round"].max())
        raise InputError(
            f"no game reaches round(s) {', '.join(map(str, wanted))}; rounds run from 0 to {last}",
            field="at",
        )
    parts = []
    for r in kept:
        rows = rounds[rounds["round"] == r]
        curve = lorenz(rows["wealth"].to_numpy())
        if len(curve) > max_points:
            shares = np.linspace(0.0, 1.0, max_points)
            curve = pd.DataFrame(
                {
                    "population_share": shares,
                    "wealth_share": np.interp(
                        shares, curve["population_share"], curve["wealth_share"]
                    ),
                }
            )
        curve.insert(0, "round", r)
        curve["games"] = rows["game"].nunique()
        curve["players"] = len(rows)
        parts.append(curve)
    return pd.concat(parts, ignore_index=True)


def _rounds_list(at: Iterable[int] | int) -> list[int]:
    """`at` as a sorted list of distinct rounds, or an `InputError` naming ``at``."""
    items = [at] if isinstance(at, int | np.integer) else at
    try:
        wanted = list(items)
    except TypeError:
        raise InputError(f"at must be a list of rounds, not {at!r}", field="at") from None
    if not wanted:
        raise InputError("at must name at least one round", field="at")
    for r in wanted:
        if isinstance(r, bool) or not isinstance(r, int | np.integer) or r < 0:
            raise InputError(f"at must hold whole numbers of 0 or more, not {r!r}", field="at")
    return sorted({int(r) for r in wanted})


# -- one game -----------------------------------------------------------------------------------
def wealth_history(
    game: Game, bots: Sequence[str] | Mapping[int, str] | None = None
) -> pd.DataFrame:
    """One game's wealth round by round, in the shape of a batch's ``rounds`` frame.

    The game is replayed from its set-up, decision by decision, by a
    `amteach.session.RoundRecorder`, and each player's cash, titles and buildings are read from
    the engine (`Game.wealth_parts`) at the same moments a batch records them: round 0 is the
    start, round r the end of round r, and when the game is over a last row is taken after its
    end. If the game is still going, a last row shows the round in progress as it stands now,
    so the last row always equals `Game.wealth(p)["net_worth"]`.

    `bots` names who plays each seat, e.g. the classroom app's controllers ("human",
    "investor", ...), as a list in seat order or a {seat: name} mapping; seats not named get
    "". The columns are game (always 0), round, seat, role, bot, cash, titles, buildings and
    wealth (cash + titles + buildings), so `gini_by_round`, `role_gap_by_round` and
    `lorenz_at_rounds` work on it as on a batch.
    """
    if not isinstance(game, Game):
        raise InputError(f"game must be an amteach Game, not {type(game).__name__}", field="game")
    seats = len(game.names)
    labels = _seat_labels(bots, seats)
    # the moments `amteach.sim.play` records in a batch, so both frames mean the same
    rows = RoundRecorder.of(game).table(game)

    frame = pd.DataFrame(rows, columns=["round", "seat", "cash", "titles", "buildings"])
    seat = frame["seat"].to_numpy()
    frame.insert(0, "game", 0)
    frame.insert(3, "role", pd.Categorical([ROLES[game.roles[s]] for s in seat], list(ROLES)))
    frame.insert(4, "bot", [labels[s] for s in seat])
    frame["wealth"] = frame["cash"] + frame["titles"] + frame["buildings"]
    return frame


def _seat_labels(bots: Sequence[str] | Mapping[int, str] | None, seats: int) -> list[str]:
    if bots is None:
        return [""] * seats
    if isinstance(bots, Mapping):
        bad = [s for s in bots if not isinstance(s, int) or not 0 <= s < seats]
        if bad:
            raise InputError(
                f"bots: seat {bad[0]!r} is not a seat of this game (0 to {seats - 1})",
                field="bots",
            )
        return [str(bots.get(s, "")) for s in range(seats)]
    if isinstance(bots, str) or len(bots) != seats:
        raise InputError(
            f"bots must name one controller per seat ({seats}), not {bots!r}", field="bots"
        )
    return [str(label) for label in bots]


# -- charts ------------------------------------------------------------------------------------
def _layout(title: str, x: str, y: str, **more: Any) -> dict[str, Any]:
    """A chart over the rounds (whole rounds along the bottom, unless `xaxis` says
    otherwise); `xaxis` and `yaxis` in `more` add to the axes' titles."""
    axes = {"xaxis": {"title": {"text": x}, **WHOLE_AXIS}, "yaxis": {"title": {"text": y}}}
    for key in axes:
        axes[key].update(more.pop(key, {}))
    if "range" in axes["xaxis"]:  # a fixed range (the Lorenz chart's 0 to 100%)
        axes["xaxis"].pop("autorangeoptions")
    return chart_layout(title, **{"height": 400, **axes, **more})


def _check_frame(frame: pd.DataFrame, needed: Sequence[str], name: str, maker: str) -> None:
    if not isinstance(frame, pd.DataFrame) or any(c not in frame.columns for c in needed):
        raise InputError(f"{name} must be a frame made by {maker}", field=name)
    if frame.empty:
        raise InputError(f"{name} has no rows", field=name)


def gini_figure(gini_frame: pd.DataFrame) -> go.Figure:
    """The Gini coefficient over the rounds, with the band holding the middle 95% of games."""
    _check_frame(
        gini_frame, ("round", "gini_mean", "gini_low", "gini_high"), "gini_frame", "gini_by_round"
    )
    rounds = gini_frame["round"].tolist()
    figure = go.Figure(
        layout=_layout(
            "Inequality over the game (Gini coefficient)",
            "round",
            "Gini coefficient (0 = everyone equal)",
            yaxis={"range": [0, 1], "dtick": 0.2},
        )
    )
    # the band: along the top edge, then back along the bottom edge
    figure.add_scatter(
        x=rounds + rounds[::-1],
        y=gini_frame["gini_high"].tolist() + gini_frame["gini_low"].tolist()[::-1],
        fill="toself",
        fillcolor="rgba(90, 90, 90, 0.18)",
        line={"width": 0},
        hoverinfo="skip",
        name="middle 95% of games",
    )
    customdata = gini_frame[["games"]].to_numpy() if "games" in gini_frame else None
    figure.add_scatter(
        x=rounds,
        y=gini_frame["gini_mean"],
        mode="lines",
        line={"color": "#333", "width": 2.5},
        name="average over games",
        customdata=customdata,
        hovertemplate="round %{x}: Gini %{y:.2f}"
        + (" over %{customdata[0]} games" if customdata is not None else "")
        + "<extra></extra>",
    )
    return figure


def lorenz_figure(lorenz_frame: pd.DataFrame) -> go.Figure:
    """One Lorenz curve per chosen round, with the line of perfect equality."""
    _check_frame(
        lorenz_frame,
        ("round", "population_share", "wealth_share"),
        "lorenz_frame",
        "lorenz_at_rounds",
    )
    figure = go.Figure(
        layout=_layout(
            "Who holds the wealth (Lorenz curves)",
            "share of players, poorest first",
            "share of all wealth they hold",
            # a square chart (equal steps on both axes) that keeps its axes at 0 to 100%
            xaxis={"tickformat": ".0%", "range": [0, 1], "dtick": 0.2, "constrain": "domain"},
            yaxis={
                "tickformat": ".0%",
                "range": [0, 1],
                "dtick": 0.2,
                "scaleanchor": "x",
                "constrain": "domain",
            },
            height=560,
        )
    )
    figure.add_scatter(
        x=[0, 1],
        y=[0, 1],
        mode="lines",
        line={"color": "#999", "dash": "dash", "width": 1.5},
        name="everyone equal",
    )
    chosen = sorted(lorenz_frame["round"].unique())
    # later rounds darker, and each round its own marker, so curves read apart without colour
    shades = np.linspace(0.35, 0.95, len(chosen)) if len(chosen) > 1 else [0.8]
    markers = ("circle", "diamond", "triangle-up", "cross", "x", "star")
    for i, (r, shade) in enumerate(zip(chosen, shades, strict=True)):
        curve = lorenz_frame[lorenz_frame["round"] == r]
        grey = int(200 * (1 - shade))
        figure.add_scatter(
            x=curve["population_share"],
            y=curve["wealth_share"],
            mode="lines+markers" if len(curve) <= 12 else "lines",
            line={"color": f"rgb({grey}, {grey + 20}, {min(grey + 90, 255)})", "width": 2},
            marker={"symbol": markers[i % len(markers)], "size": 6},
            name=f"round {r}",
            hovertemplate="poorest %{x:.0%} hold %{y:.0%}<extra>round " + str(r) + "</extra>",
        )
    return figure


def role_gap_figure(gap_frame: pd.DataFrame) -> go.Figure:
    """Average wealth of Competitors and of Monopolists over the rounds."""
    # imported here: the UI package loads the widget libraries, which batch analyses do not need

    _check_frame(
        gap_frame,
        ("round", "competitor_mean", "monopolist_mean"),
        "gap_frame",
        "role_gap_by_round",
    )
    figure = go.Figure(
        layout=_layout(
            "Average wealth by role over the game",
            "round",
            "average wealth (net worth)",
            yaxis=DOLLAR_AXIS,
        )
    )
    many = len(gap_frame) > 60
    for role, key in enumerate(ROLES):
        figure.add_scatter(
            x=gap_frame["round"],
            y=gap_frame[f"{key}_mean"],
            mode="lines+markers",
            name=f"{ROLE_PLURALS[role]} (average)",
            line={"color": ROLE_COLOURS[role], "width": 2, "dash": ROLE_DASHES[role]},
            # fewer, smaller markers on long games, so the lines stay readable
            marker={
                "symbol": ROLE_SYMBOLS[role],
                "size": 4 if many else 7,
                "color": ROLE_COLOURS[role],
                "maxdisplayed": 40,
            },
            hovertemplate="round %{x}: $%{y:,.0f}<extra>" + ROLE_LABELS[role] + "s</extra>",
        )
    return figure


# -- readings: one or two sentences for a student, with the numbers from the frame ---------------
def _typical_round(frame: pd.DataFrame) -> int:
    """The last round at which at least half the games that started are still running."""
    if "games" not in frame:
        return int(frame["round"].max())
    started = frame["games"].iloc[0]
    running = frame[frame["games"] * 2 >= started]
    return int(running["round"].max())


def _row_at(frame: pd.DataFrame, at: int | None, name: str) -> pd.Series:
    r = _typical_round(frame) if at is None else at
    rows = frame[frame["round"] == r]
    if rows.empty:
        raise InputError(
            f"round {r} is not in {name} (rounds {int(frame['round'].min())} to "
            f"{int(frame['round'].max())})",
            field="at",
        )
    return rows.iloc[0]


def _games_phrase(games: int) -> str:
    return "this game" if games == 1 else f"the {games} games still running"


def reading_gini(gini_frame: pd.DataFrame, at: int | None = None) -> str:
    """Read the Gini chart for a student: where inequality starts and where it stands at round
    `at` (by default the last round at which at least half the games are still running)."""
    _check_frame(
        gini_frame,
        ("round", "gini_mean", "gini_low", "gini_high", "games"),
        "gini_frame",
        "gini_by_round",
    )
    first = gini_frame.iloc[0]
    row = _row_at(gini_frame, at, "gini_frame")
    games = int(row["games"])
    start = f"At round {int(first['round'])} the Gini coefficient is {first['gini_mean']:.2f}"
    if first["gini_mean"] == 0:
        start += " (everyone has the same wealth)"
    sentence = f"{start}; by round {int(row['round'])} it is {row['gini_mean']:.2f}"
    if games == 1:
        sentence += " in this game."
    else:
        sentence += (
            f" on average over {_games_phrase(games)}, and the middle 95% of those games lie "
            f"between {row['gini_low']:.2f} and {row['gini_high']:.2f}."
        )
    if "players" in gini_frame:
        n = int(row["players"])
        sentence += (
            f" 0 would mean everyone is equally rich, {(n - 1) / n:.2f} that one of the "
            f"{n} players holds everything."
        )
    return sentence


def _share_held(curve: pd.DataFrame, poorest: float) -> float:
    """The share of wealth held by the poorest `poorest` of players, read off the curve."""
    return float(np.interp(poorest, curve["population_share"], curve["wealth_share"]))


def reading_lorenz(lorenz_frame: pd.DataFrame) -> str:
    """Read the Lorenz chart for a student: how much the poorest half hold at each round."""
    _check_frame(
        lorenz_frame,
        ("round", "population_share", "wealth_share"),
        "lorenz_frame",
        "lorenz_at_rounds",
    )
    shares = [
        (int(r), _share_held(curve, 0.5)) for r, curve in lorenz_frame.groupby("round", sort=True)
    ]
    listed = [f"{share:.0%} at round {r}" for r, share in shares]
    # "50% of all the wealth at round 0, 41% at round 10 and 28% at round 50"
    listed[0] = listed[0].replace(" at round", " of all the wealth at round", 1)
    said = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]
    return (
        f"The poorest half of the players hold {said} (50% would mean everyone is equal). "
        "The further a curve sags below the dashed diagonal, the more the wealth sits with a "
        "few players."
    )


def _money(amount: float) -> str:
    return f"${amount:,.0f}"


def reading_role_gap(gap_frame: pd.DataFrame, at: int | None = None) -> str:
    """Read the role-gap chart for a student: the two roles' average wealth at round `at` (by
    default the last round at which at least half the games are still running)."""
    _check_frame(
        gap_frame,
        ("round", "competitor_mean", "monopolist_mean", "gap", "games"),
        "gap_frame",
        "role_gap_by_round",
    )
    row = _row_at(gap_frame, at, "gap_frame")
    competitor, monopolist = row["competitor_mean"], row["monopolist_mean"]
    where = "in this game" if int(row["games"]) == 1 else f"over {_games_phrase(int(row['games']))}"
    sentence = (
        f"At round {int(row['round'])}, {where}, a Monopolist holds {_money(monopolist)} on "
        f"average and a Competitor {_money(competitor)}"
    )
    gap = row["gap"]
    if gap == 0:
        return sentence + ": the two roles are level."
    richer, poorer = ("Monopolists", "Competitors") if gap > 0 else ("Competitors", "Monopolists")
    sentence += f", so {richer} are {_money(abs(gap))} richer"
    low, high = sorted((competitor, monopolist))
    if low > 0:
        sentence += f": {richer} hold {high / low:.1f} times as much as {poorer}."
    else:
        sentence += f": {poorer} hold nothing."
    return sentence
