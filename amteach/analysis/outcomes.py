"""How a batch of bot games went for each role, round by round and in rent: the charts the
dashboard's *Who wins* tab shows beside the win rates (`fairness.win_rates_figure`); and game
length, named (`GAME_LENGTHS`: a two-hour game, time up after 200 rounds, played to the end)
and measured (`win_rates_by_length`: each role's win rate from one batch per length)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
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
from .stats import exact_interval, exact_intervals


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


# -- game length -------------------------------------------------------------------------------
# Bots never tire, so a batch needs a round where "time is up": the round cap. Its value is a
# game length, and the win rates depend on it (docs/analysis.md, "Game length"). Three lengths
# are named; the two-hour one is estimated from how long a turn takes at a real table.
SECONDS_PER_TURN = 40  # roll, move, pay or buy, now and then build or trade, at a classroom table
TABLE_SEATS = 4  # the usual table: two Competitors, two Monopolists
EXTRA_TURN_SHARE = 1 / 6  # doubles give one extra turn (a throw is doubles 1 time in 6)
TWO_HOURS = 2 * 60 * 60


def rounds_in(seconds: float, seats: int = TABLE_SEATS, per_turn: float = SECONDS_PER_TURN) -> int:
    """About how many rounds a table of `seats` plays in `seconds`, at `per_turn` seconds a
    turn and one extra turn for every six (doubles), to the nearest 5 rounds."""
    turns_per_round = seats * (1 + EXTRA_TURN_SHARE)
    return max(5, 5 * round(seconds / (per_turn * turns_per_round) / 5))


TWO_HOUR_ROUNDS = rounds_in(TWO_HOURS)  # 40
# high enough that fewer than 1 game in 10 reaches it under the strategies shipped (7.8% of
# default games, 7.8% of edition-2005 games at 2,000 rounds); the rest are settled by the final
# accounting, as at any cap
PLAYED_OUT_ROUNDS = 2000
SIMULATION_ROUNDS = 200  # the simulator's usual cap (amteach.sim.runner.DEFAULT_ROUND_CAP)


@dataclass(frozen=True)
class GameLength:
    """A named game length: `key` (a folder name for shipped runs), the round where time is up
    (`rounds`), and how it reads on a page."""

    key: str
    rounds: int
    label: str
    short: str


GAME_LENGTHS = (
    GameLength(
        "two-hour",
        TWO_HOUR_ROUNDS,
        f"Two-hour game (about {TWO_HOUR_ROUNDS} rounds)",
        "two-hour games",
    ),
    GameLength(
        "round-200",
        SIMULATION_ROUNDS,
        f"Time is up after {SIMULATION_ROUNDS} rounds",
        f"{SIMULATION_ROUNDS}-round games",
    ),
    GameLength(
        "to-the-end",
        PLAYED_OUT_ROUNDS,
        f"Played to the end (stopped at {PLAYED_OUT_ROUNDS:,} rounds)",
        "games played to the end",
    ),
)
LENGTHS_BY_KEY = {length.key: length for length in GAME_LENGTHS}
# the lengths of the by-length chart: the two-hour game, then longer and longer
CHART_ROUNDS = (TWO_HOUR_ROUNDS, 100, SIMULATION_ROUNDS, 500, PLAYED_OUT_ROUNDS)

LENGTH_ASSUMPTIONS = (
    f"A two-hour game is about {TWO_HOUR_ROUNDS} rounds: at a table of {TABLE_SEATS} players a "
    f"round is {TABLE_SEATS} turns plus one extra turn in six for doubles, and a turn takes "
    f"about {SECONDS_PER_TURN} seconds (throw, move, pay or buy, now and then build or trade), "
    f"so {TWO_HOURS // 60} minutes hold about {TWO_HOUR_ROUNDS} rounds. "
    f"'Played to the end' stops at round {PLAYED_OUT_ROUNDS:,}, which fewer than 1 game in 10 "
    "reaches; those few are settled by the final accounting, like any game when time is up."
)


def time_is_up(rounds: int) -> str:
    """The round cap in words: "two-hour game (about 40 rounds)" or "time is up after 500
    rounds"."""
    for length in GAME_LENGTHS:
        if length.rounds == rounds and length.key != "round-200":
            return length.label[0].lower() + length.label[1:]
    return f"time is up after {rounds:,} rounds"


def rounds_of_length(value: str | int, option: str = "--length") -> int:
    """The round where time is up for a game length given by name (a `GAME_LENGTHS` key:
    "two-hour", "round-200", "to-the-end") or as a whole number of rounds (at least 1)."""
    from ..engine.errors import InputError

    text = str(value).strip().lower()
    if text in LENGTHS_BY_KEY:
        return LENGTHS_BY_KEY[text].rounds
    try:
        rounds = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        rounds = 0
    if rounds < 1:
        names = ", ".join(LENGTHS_BY_KEY)
        raise InputError(
            f"{option} {str(value)[:40]!r} is not a game length: give one of {names}, or a "
            "whole number of rounds after which time is up"
        )
    return rounds


def short_name(rounds: int) -> str:
    """Games of a length in two or three words: "two-hour games", "200-round games", "games
    played to the end"."""
    for length in GAME_LENGTHS:
        if length.rounds == rounds:
            return length.short
    return f"{rounds:,}-round games"


# -- win rates by game length --------------------------------------------------------------------
LENGTH_COLUMNS = (
    "rounds",
    "role",
    "games",
    "wins",
    "rate",
    "ci_low",
    "ci_high",
    "capped",
    "capped_share",
)


def length_rows(
    rounds: int, competitor_wins: int, monopolist_wins: int, games: int, capped: int
) -> list[dict[str, Any]]:
    """The by-length table's two rows for one length (one per role): wins, the rate and its
    exact 95% (Clopper-Pearson) interval (`stats.exact_interval`, the interval every win rate
    on Who wins and Best play carries), and how many of the games the cap settled."""
    rows = []
    for role, wins in zip(ROLES, (competitor_wins, monopolist_wins), strict=True):
        low, high = exact_interval(wins, games) if games else (float("nan"), float("nan"))
        rows.append(
            {
                "rounds": int(rounds),
                "role": role,
                "games": int(games),
                "wins": int(wins),
                "rate": wins / games if games else float("nan"),
                "ci_low": low,
                "ci_high": high,
                "capped": int(capped),
                "capped_share": capped / games if games else float("nan"),
            }
        )
    return rows


def win_rates_by_length(batches: Mapping[int, Any]) -> pd.DataFrame:
    """Each role's win rate by game length, from one batch per length (`{rounds: result}`,
    each a `SimulationResult` played with that round cap): two rows a length, shortest first
    (columns `LENGTH_COLUMNS`)."""
    rows: list[dict[str, Any]] = []
    for rounds in sorted(batches):
        games = batches[rounds].games
        winners = games["winner_role"].astype("string")
        rows += length_rows(
            rounds,
            int((winners == ROLES[0]).sum()),
            int((winners == ROLES[1]).sum()),
            len(games),
            int((games["end_reason"] == "round_cap").sum()),
        )
    return pd.DataFrame(rows, columns=list(LENGTH_COLUMNS))


def play_by_length(
    seats: str,
    preset: str = "default",
    seed: int = 1,
    games: int = 200,
    lengths: Sequence[int] = CHART_ROUNDS,
    workers: int | None = 1,
    on_length: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """One batch per game length (the same seats, rules, games and seed, so the same dice
    open every batch) and each role's win rate at each (`win_rates_by_length`).
    `on_length(done, total)` is called after each batch."""
    from ..sim import simulate

    batches = {}
    for done, rounds in enumerate(lengths, start=1):
        batches[int(rounds)] = simulate(
            games=games,
            seats=seats,
            rules=preset,
            seed=seed,
            round_cap=int(rounds),
            workers=workers,
            progress=False,
            record_rounds=False,
        )
        if on_length is not None:
            on_length(done, len(lengths))
    return win_rates_by_length(batches)


def reading_by_length(frame: pd.DataFrame) -> str:
    """A sentence under the by-length chart: the Monopolists' win rate in the shortest and the
    longest games, and how many games time settled in each."""
    if frame.empty:
        return "No games were played, so there is nothing to read yet."
    frame = exact_intervals(frame)  # the interval the chart draws, whatever a run stored
    m = frame[frame["role"] == ROLES[1]].sort_values("rounds")
    first, last = m.iloc[0], m.iloc[-1]

    def part(row: Any) -> str:
        return (
            f"{100 * row['rate']:.1f}% of {short_name(int(row['rounds']))} "
            f"(95% interval {100 * row['ci_low']:.1f}% to {100 * row['ci_high']:.1f}%; time "
            f"settled {100 * row['capped_share']:.0f}% of them)"
        )

    return (
        f"Monopolists win {part(first)}, and {part(last)}. Each length is its own batch of "
        f"{int(first['games']):,} games on the same dice: the longer the game, the more of it "
        "is played out rather than settled by the final accounting when time is up."
    )
