"""Landing odds: a Markov chain of one pawn's movement, and the engine measured against it.

The chain follows one pawn from throw to throw. Its states are the pawn's situation before a
throw (a "throw" is one roll decision):

* ``"s:first"``: on space ``s``, about to make the first throw of a turn;
* ``"s:extra"``: on space ``s``, about to make the extra throw that doubles earned
  (doubles on it earn nothing more: decision 2);
* ``"heldK"`` (policy ``"doubles"`` only): held in Prison / Price War with ``K`` turns spent.
  While ``K < held_turns_before_forced_fine`` the throw is a try for doubles (doubles: leave,
  move by that throw, and take the extra throw; otherwise stay, and the turn ends). At ``K ==
  held_turns_before_forced_fine`` the fine is forced as the turn starts and the throw is a
  normal first throw from the hold space (decision 3).

With policy ``"pay"`` a held pawn pays the fine at once and throws normally, so being held is
the state ``"<hold space>:first"``.

A landing is resolved as the engine resolves it (`Game._land`): the Go to Prison / Price War
space sends the pawn to the hold space (the extra throw is cancelled); a card space draws a
card of the role's deck, each card with probability 1/25 (the long-run frequency of a deck
that is cycled, card to the bottom); a moving card moves the pawn forward to its target, which
is then resolved as a landing in turn; a go-to-hold card sends the pawn to the hold space. Card
chains (a card moving the pawn to another card space) are solved exactly.

Counting (`LandingOdds.arrivals`): every space the pawn arrives on by dice or by a card counts
one landing, so a card that moves the pawn counts a landing on the card space and one on the
target. Being sent to the hold space (from the Go to Prison space or by a card) is not a
landing on the hold space; a failed try for doubles lands nowhere.

`simulate_throws` plays the real engine and measures the same quantities from its events, so
the two can be compared (tests/test_landing.py).
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..engine import events as ev
from ..engine.board import COMPETITOR, MONOPOLIST, ROLES, Board, standard_board
from ..engine.choices import Choice
from ..engine.game import Game, PlayerSetup, Setup
from ..engine.rules import RuleSet

POLICIES = ("pay", "doubles")
HOLD_CARD_EFFECTS = ("go_to_price_war", "go_to_prison")
TITLE_KINDS = ("street", "transport", "utility")

# two dice: (first die, second die), each of the 36 outcomes with probability 1/36
DICE = tuple((a, b) for a in range(1, 7) for b in range(1, 7))

# throws played in one engine game before play continues in a fresh game from the same
# position (see `simulate_throws`)
_CHUNK_THROWS = 10_000


@dataclass(frozen=True)
class LandingOdds:
    """Where one pawn of `role` lands and stands, in the long run, under a hold `policy`.

    arrivals: expected landings on each space per throw (card moves count the card space and
        the target; being sent to hold is not a landing on the hold space; a failed try for
        doubles lands nowhere).
    occupancy: stationary probability of the space the pawn stands on after a throw.
    throws_per_turn: expected throws per turn (doubles add one; a failed try counts as one).
    transition, states: the chain itself (row = state before a throw, column = state before
        the next throw) and the labels of its states.
    """

    role: int
    policy: str
    arrivals: np.ndarray
    occupancy: np.ndarray
    throws_per_turn: float
    transition: np.ndarray
    states: tuple[str, ...]


def landing_odds(
    role: int, policy: str = "pay", rules: RuleSet | None = None, board: Board | None = None
) -> LandingOdds:
    """The landing odds of a Competitor (role 0) or Monopolist (role 1) pawn.

    `policy` is "pay" (leave Prison / Price War at once by paying the fine) or "doubles" (stay
    and try for doubles while the rules allow). Results are cached per (role, policy, rules,
    board); their arrays are read-only.
    """
    if role not in (COMPETITOR, MONOPOLIST) or isinstance(role, bool):
        raise ValueError(f"role must be {COMPETITOR} (competitor) or {MONOPOLIST} (monopolist)")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    rules = RuleSet.preset("default") if rules is None else rules
    board = standard_board() if board is None else board
    return _landing_odds(int(role), policy, rules, _BoardKey(board))


class _BoardKey:
    """A Board for lru_cache: Board holds a dict (cities), so it cannot be hashed itself."""

    __slots__ = ("board", "key")

    def __init__(self, board: Board) -> None:
        self.board = board
        self.key = tuple(
            tuple(sorted(value.items())) if isinstance(value, dict) else value
            for value in (getattr(board, f.name) for f in dataclasses.fields(board))
        )

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _BoardKey) and self.key == other.key


@lru_cache(maxsize=64)
def _landing_odds(role: int, policy: str, rules: RuleSet, board_key: _BoardKey) -> LandingOdds:
    board = board_key.board
    n = len(board.spaces)
    hold = board.hold_space
    stop, sent, landings = _landing_resolution(board, role)
    forced_after = rules.held_turns_before_forced_fine

    # the states
    labels = [f"{s}:first" for s in range(n)] + [f"{s}:extra" for s in range(n)]
    if policy == "doubles":
        labels += [f"held{k}" for k in range(forced_after + 1)]

    def first(s: int) -> int:
        return s

    def extra(s: int) -> int:
        return n + s

    def held(k: int) -> int:
        return 2 * n + k

    sent_state = held(0) if policy == "doubles" else first(hold)

    size = len(labels)
    transition = np.zeros((size, size))
    arrivals_from = np.zeros((size, n))  # expected landings on each space, per state's throw
    w = 1.0 / len(DICE)

    def throw_to(row: int, space: int, then_extra: bool) -> None:
        """Dice bring the pawn to `space`: resolve the landing, fill in the row."""
        nxt = extra if then_extra else first
        transition[row, [nxt(u) for u in range(n)]] += w * stop[space]
        transition[row, sent_state] += w * sent[space]
        arrivals_from[row] += w * landings[space]

    for s in range(n):
        for a, b in DICE:
            throw_to(first(s), (s + a + b) % n, then_extra=a == b)
            throw_to(extra(s), (s + a + b) % n, then_extra=False)
    if policy == "doubles":
        for k in range(forced_after + 1):
            row = held(k)
            if k == forced_after:  # the fine is forced as the turn starts: a normal throw
                for a, b in DICE:
                    throw_to(row, (hold + a + b) % n, then_extra=a == b)
                continue
            for a, b in DICE:
                if a == b:  # leave by doubles, move by that throw, the extra throw follows
                    throw_to(row, (hold + a + b) % n, then_extra=True)
                else:  # stay held, one more turn spent; no landing
                    transition[row, held(k + 1)] += w

    pi = _stationary(transition, sent_state)
    positions = np.array(
        [hold if label.startswith("held") else int(label.split(":")[0]) for label in labels]
    )
    occupancy = np.bincount(positions, weights=pi, minlength=n)
    arrivals = pi @ arrivals_from
    turn_starts = np.array([not label.endswith(":extra") for label in labels])
    throws_per_turn = float(1.0 / pi[turn_starts].sum())
    for array in (arrivals, occupancy, transition):
        array.setflags(write=False)
    return LandingOdds(
        role=role,
        policy=policy,
        arrivals=arrivals,
        occupancy=occupancy,
        throws_per_turn=throws_per_turn,
        transition=transition,
        states=tuple(labels),
    )


def _landing_resolution(board: Board, role: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How a landing on each space ends, as `Game._land` and `Game._draw_card` resolve it.

    Returns (stop, sent, landings): stop[s, u] = probability that a landing on s leaves the
    pawn standing on u (not held); sent[s] = probability that it ends with the pawn sent to
    the hold space; landings[s, u] = expected landings on u it counts (s itself included).
    """
    n = len(board.spaces)
    deck = board.deck(role)
    if not deck:
        raise ValueError(f"the {ROLES[role]} deck is empty")
    p_card = 1.0 / len(deck)
    moves = np.zeros((n, n))  # moves[s, t]: probability that landing on s moves the pawn to t
    stays = np.zeros(n)  # the pawn stays where it landed
    sends = np.zeros(n)  # the pawn is sent to the hold space
    for space in board.spaces:
        s = space.index
        # the order of the engine's checks in Game._land
        if space.kind in TITLE_KINDS:
            stays[s] = 1.0
        elif s == board.go_to_hold_space:
            sends[s] = 1.0
        elif space.kind == "card":
            for card in deck:
                if card.effect == "move_to":
                    moves[s, card.target] += p_card
                elif card.effect in HOLD_CARD_EFFECTS:
                    sends[s] += p_card
                else:
                    stays[s] += p_card
        else:
            stays[s] = 1.0
    try:
        # expected landings on each space, starting from a landing on s (a card may chain)
        landings = np.linalg.inv(np.eye(n) - moves)
    except np.linalg.LinAlgError:
        raise ValueError("the cards move pawns between card spaces forever") from None
    stop = landings * stays[np.newaxis, :]
    sent = landings @ sends
    return stop, sent, landings


def _stationary(transition: np.ndarray, start: int) -> np.ndarray:
    """The stationary distribution of the closed class holding `start`, by solving pi P = pi
    with sum(pi) = 1 on that class (states outside it, never revisited, get exactly 0)."""
    size = len(transition)
    edges = transition > 0
    reach = np.zeros(size, dtype=bool)
    reach[start] = True
    while True:  # states reachable from `start`
        grown = reach | edges[reach].any(axis=0)
        if (grown == reach).all():
            break
        reach = grown
    back = np.zeros(size, dtype=bool)
    back[start] = True
    while True:  # states from which `start` is reachable
        grown = back | edges[:, back].any(axis=1)
        if (grown == back).all():
            break
        back = grown
    if (reach & ~back).any():
        raise ValueError("the chain does not return to the hold: no single long-run behaviour")
    cls = np.flatnonzero(reach)
    sub = transition[np.ix_(cls, cls)]
    system = sub.T - np.eye(len(cls))
    system[-1, :] = 1.0
    rhs = np.zeros(len(cls))
    rhs[-1] = 1.0
    pi = np.zeros(size)
    pi[cls] = np.linalg.solve(system, rhs)
    return pi


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
    rules = base.replace(starting_cash=10**12, round_cap=None)
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
        held = game.held
        position = positions[me]
        apply = game.apply
        while True:
            phase = game.phase
            if game.actor != me:
                if phase == "pre_roll":
                    apply(_ROLL)
                elif phase == "buy":
                    apply(_DECLINE)
                elif phase == "income_tax":
                    apply(_TAX_FLAT)
                elif phase == "post_roll":
                    apply(_END_TURN)
                else:
                    raise RuntimeError(f"unexpected phase {phase!r} for the opponent")
                continue
            if phase == "pre_roll":
                if pay and held[me] >= 0:
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
            elif phase == "buy":
                apply(_DECLINE)
            elif phase == "income_tax":
                apply(_TAX_FLAT)
            elif phase == "post_roll":
                if counted >= chunk_end:
                    break
                apply(_END_TURN)
            else:
                raise RuntimeError(f"unexpected phase {phase!r} for the measured player")
        positions = list(game.position)
        helds = [h if h >= 0 else None for h in game.held]
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
            legend={"y": 1.02, "yanchor": "bottom", "x": 1, "xanchor": "right"},
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
