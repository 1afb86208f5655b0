"""Landing odds: a Markov chain of one pawn's movement under the rules (the engine owns chance).

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

A landing is resolved as `landing_outcomes` says the engine resolves it, card chains (a card
moving the pawn to another card space) solved exactly. Counting (`LandingOdds.arrivals`):
every space the pawn arrives on by dice or by a card counts one landing; being sent to the
hold space is not a landing on it; a failed try for doubles lands nowhere.

It lives in the engine, below the bots, because the investor bot weighs titles by these odds;
`amteach.analysis.landing` measures the engine against it and draws it for students.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .board import COMPETITOR, MONOPOLIST, Board, standard_board
from .game import landing_outcomes
from .rules import RuleSet

POLICIES = ("pay", "doubles")

# two dice: (first die, second die), each of the 36 outcomes with probability 1/36
DICE = tuple((a, b) for a in range(1, 7) for b in range(1, 7))


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
    """How a landing on each space ends, from the engine's `landing_outcomes`.

    Returns (stop, sent, landings): stop[s, u] = probability that a landing on s leaves the
    pawn standing on u (not held); sent[s] = probability that it ends with the pawn sent to
    the hold space; landings[s, u] = expected landings on u it counts (s itself included).
    """
    n = len(board.spaces)
    moves = np.zeros((n, n))  # moves[s, t]: probability that landing on s moves the pawn to t
    stays = np.zeros(n)  # the pawn stays where it landed
    sends = np.zeros(n)  # the pawn is sent to the hold space
    for s in range(n):
        for outcome in landing_outcomes(s, role, board):
            if outcome.result == "moves":
                moves[s, outcome.space] += outcome.probability
            elif outcome.result == "sent_to_hold":
                sends[s] += outcome.probability
            else:
                stays[s] += outcome.probability
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
