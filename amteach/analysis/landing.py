"""Landing odds for students: the engine measured against its Markov chain, tables, a chart
and a reading.

The chain itself (`landing_odds`, `LandingOdds`) is in `amteach.engine.odds`, below the bots
that read it, and is re-exported here. `simulate_throws` plays the real engine and measures
the same quantities from its events, so the two can be compared (tests/test_landing.py).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..engine import events as ev
from ..engine.board import COMPETITOR, MONOPOLIST, ROLES, Board, standard_board
from ..engine.choices import Choice
from ..engine.game import Game, Phase, PlayerSetup, Setup
from ..engine.odds import DICE, POLICIES, LandingOdds, landing_odds
from ..engine.rules import LARGEST_WHOLE, RuleSet

__all__ = [
    "DICE",
    "POLICIES",
    "LandingOdds",
    "landing_figure",
    "landing_odds",
    "landing_table",
    "reading_landing",
    "simulate_throws",
]

TITLE_KINDS = ("street", "transport", "utility")

# throws played in one engine game before play continues in a fresh game from the same
# position (see `simulate_throws`)
_CHUNK_THROWS = 10_000


# -- the engine, measured -----------------------------------------------------------------------

_ROLL = Choice("roll")
_DECLINE = Choice("decline")
_END_TURN = Choice("end_turn")
_PAY_FINE = Choice("pay_fine")
_TAX_FLAT = Choice("income_tax", "flat")


def simulate_throws(
    role: int,
    throws: int,
    policy: str = "pay",
    seed: int = 0,
    rules: RuleSet | None = None,
    board: Board | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Play the engine and measure one pawn: (landings per throw, occupancy after each throw).

    Two players: the measured one (seat 0, `role`) and an opponent of the other role. Both
    decline every purchase, pay income tax flat and end their turns; the measured player
    follows `policy` in Prison / Price War ("pay": pay the fine whenever held; "doubles": try
    for doubles while allowed), the opponent always tries for doubles. Everyone starts with
    a trillion dollars (no bankruptcy) and there is no round cap. Only the measured player's
    throws are counted, from the engine's events: DiceThrown with purpose "move" or
    "doubles_attempt" is one throw, each Moved event one landing on its `end`, SentToHold puts
    the pawn on the hold space.

    Play moves on to a fresh game (the next seed of the stream started by `seed`) every
    10,000 throws, at the end of the measured player's turn, with both players' positions and
    held turns carried over: a turn boundary, so the pawn's state is exactly what the next
    turn of the old game would start from. This keeps the event log small, and it reshuffles
    the decks: a cycled deck makes the card drawn depend on where in the deck play is, which
    correlates with where the pawn is, so one fixed deck order has landing odds of its own
    (card-space occupancy off the 1/25 model by up to about 0.001). Many short games average
    over deck orders, as the chain's 1/25 per card does.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    if role not in (COMPETITOR, MONOPOLIST) or isinstance(role, bool):
        raise ValueError(f"role must be {COMPETITOR} (competitor) or {MONOPOLIST} (monopolist)")
    if throws < 1:
        raise ValueError("throws must be 1 or more")
    base = RuleSet.preset("default") if rules is None else rules
    # cash no pawn can run out of within a chunk of throws (a new game starts every chunk)
    rules = base.replace(starting_cash=LARGEST_WHOLE, round_cap=None)
    board = standard_board() if board is None else board
    n = len(board.spaces)
    hold = board.hold_space
    pay = policy == "pay"
    seeds = random.Random(seed)
    arrivals = [0] * n
    occupancy = [0] * n
    me, other = 0, 1
    positions = [0, 0]
    helds: list[int | None] = [None, None]
    counted = 0
    moved_cls, sent_cls, dice_cls = ev.Moved, ev.SentToHold, ev.DiceThrown
    while counted < throws:
        setup = Setup(
            players=(
                PlayerSetup("measured", role, position=positions[me], held=helds[me]),
                PlayerSetup("opponent", 1 - role, position=positions[other], held=helds[other]),
            ),
            rules=rules,
            seed=seeds.getrandbits(63),
        )
        game = Game(setup, board)
        chunk_end = min(throws, counted + _CHUNK_THROWS)
        position = positions[me]
        apply = game.apply
        while True:
            phase = game.phase
            if game.actor != me:
                if phase == Phase.PRE_ROLL:
                    apply(_ROLL)
                elif phase == Phase.BUY:
                    apply(_DECLINE)
                elif phase == Phase.INCOME_TAX:
                    apply(_TAX_FLAT)
                elif phase == Phase.POST_ROLL:
                    apply(_END_TURN)
                else:
                    raise RuntimeError(f"unexpected phase {phase!r} for the opponent")
                continue
            if phase == Phase.PRE_ROLL:
                if pay and game.is_held(me):
                    apply(_PAY_FINE)
                thrown = 0
                for event in apply(_ROLL):
                    cls = type(event)
                    if cls is moved_cls:
                        if event.player == me:
                            arrivals[event.end] += 1
                            position = event.end
                    elif cls is sent_cls:
                        if event.player == me:
                            position = hold
                    elif (
                        cls is dice_cls
                        and event.player == me
                        and event.purpose in ("move", "doubles_attempt")
                    ):
                        thrown += 1
                if thrown != 1 or position != game.position[me]:
                    raise RuntimeError("the engine's events do not account for one throw")
                occupancy[position] += 1
                counted += 1
                if counted == throws:
                    break
            elif phase == Phase.BUY:
                apply(_DECLINE)
            elif phase == Phase.INCOME_TAX:
                apply(_TAX_FLAT)
            elif phase == Phase.POST_ROLL:
                if counted >= chunk_end:
                    break
                apply(_END_TURN)
            else:
                raise RuntimeError(f"unexpected phase {phase!r} for the measured player")
        positions = list(game.position)
        helds = [game.state.held[p] if game.is_held(p) else None for p in range(len(game.names))]
    total = float(counted)
    return np.array(arrivals) / total, np.array(occupancy) / total


def landing_table(rules: RuleSet | None = None, board: Board | None = None) -> Any:
    """A tidy pandas DataFrame: one row per space, role and policy, with columns space, name,
    kind, role ("competitor"/"monopolist"), policy, arrival (landings per throw) and
    occupancy (probability of standing there after a throw)."""
    import pandas as pd

    board = standard_board() if board is None else board
    rows = []
    for role in (COMPETITOR, MONOPOLIST):
        for policy in POLICIES:
            odds = landing_odds(role, policy, rules, board)
            for space in board.spaces:
                rows.append(
                    {
                        "space": space.index,
                        "name": space.name,
                        "kind": space.kind,
                        "role": ROLES[role],
                        "policy": policy,
                        "arrival": float(odds.arrivals[space.index]),
                        "occupancy": float(odds.occupancy[space.index]),
                    }
                )
    return pd.DataFrame(rows)


def landing_figure(table: Any, policy: str = "pay") -> Any:
    """Landings per throw on every space, one bar per role (from `landing_table`)."""
    import plotly.graph_objects as go

    from ..style import ROLE_LABELS, chart_layout, role_bar

    rows = table[table["policy"] == policy]
    figure = go.Figure(
        layout=chart_layout(
            f"How often a pawn lands on each space (held players {_POLICY_WORDS[policy]})",
            height=560,
            margin={"b": 190, "t": 80},
            barmode="group",
            bargap=0.25,
            yaxis={"title": {"text": "landings per 100 throws"}, "rangemode": "tozero"},
            xaxis={"title": {"text": "the spaces in board order, from START"}, "tickangle": -60},
            legend={"yref": "paper", "y": 1.02, "yanchor": "bottom", "x": 1, "xanchor": "right"},
        )
    )
    for role, key in enumerate(ROLES):
        part = rows[rows["role"] == key].sort_values("space")
        figure.add_bar(
            x=[
                _axis_name(s, n, k)
                for s, n, k in zip(part["space"], part["name"], part["kind"], strict=True)
            ],
            y=100 * part["arrival"],
            name=ROLE_LABELS[role] + " pawn",
            marker=role_bar(role),
        )
    return figure


_POLICY_WORDS = {"pay": "pay the fine at once", "doubles": "stay and try for doubles"}


def _axis_name(space: int, name: str, kind: str) -> str:
    """A space's axis label, unique and short: its number, and "Card" for the card spaces."""
    return f"{space}. {'Card' if kind == 'card' else name}"


def reading_landing(table: Any, policy: str = "pay") -> str:
    """Two sentences reading `landing_figure` for a student, numbers from the table."""
    rows = table[table["policy"] == policy]
    competitor = rows[rows["role"] == ROLES[COMPETITOR]].set_index("space")
    monopolist = rows[rows["role"] == ROLES[MONOPOLIST]].set_index("space")
    titles = competitor[competitor["kind"].isin(TITLE_KINDS)]
    top, bottom = titles["arrival"].idxmax(), titles["arrival"].idxmin()
    gap = float((competitor["arrival"] - monopolist["arrival"]).abs().max())
    same = (
        "Competitor and Monopolist pawns land alike: their cards move pawns to the same places."
        if gap < 1e-9
        else f"Competitor and Monopolist pawns differ by at most {100 * gap:.2f} landings per 100 throws."
    )
    return (
        f"Among the titles, {titles.loc[top, 'name']} is landed on most often "
        f"({100 * titles.loc[top, 'arrival']:.1f} times per 100 throws) and "
        f"{titles.loc[bottom, 'name']} least often ({100 * titles.loc[bottom, 'arrival']:.1f}); "
        f"if every space were equally likely, each would get {100 / len(competitor):.1f}. {same}"
    )
