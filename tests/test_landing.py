"""Landing odds (amteach.analysis.landing): the Markov chain of one pawn, checked for
consistency, against the rules (decisions 2, 3, 10) and against the engine itself."""

from __future__ import annotations

import math

import numpy as np
import pytest

from amteach.analysis.landing import (
    DICE,
    POLICIES,
    LandingOdds,
    landing_figure,
    landing_odds,
    landing_table,
    reading_landing,
    simulate_throws,
)
from amteach.engine.board import COMPETITOR, MONOPOLIST, ROLES, standard_board
from amteach.engine.rules import RuleSet

BOARD = standard_board()
N = len(BOARD.spaces)
HOLD = BOARD.hold_space
GO_TO_HOLD = BOARD.go_to_hold_space
CARD_SPACES = [s.index for s in BOARD.spaces if s.kind == "card"]
COMBOS = [(role, policy) for role in (COMPETITOR, MONOPOLIST) for policy in POLICIES]


def position_of(label: str) -> int:
    return HOLD if label.startswith("held") else int(label.split(":")[0])


def stationary_by_eigenvector(odds: LandingOdds) -> np.ndarray:
    """pi with pi P = pi, found independently of the module (eigenvector of P transposed)."""
    values, vectors = np.linalg.eig(odds.transition.T)
    vector = np.real(vectors[:, np.argmin(abs(values - 1))])
    return vector / vector.sum()


# -- the chain is a proper chain -------------------------------------------------------------


@pytest.mark.parametrize(("role", "policy"), COMBOS)
def test_transition_is_a_stochastic_matrix(role, policy):
    odds = landing_odds(role, policy)
    P = odds.transition
    assert P.shape == (len(odds.states), len(odds.states))
    assert len(set(odds.states)) == len(odds.states)
    assert (P >= 0).all()
    assert np.abs(P.sum(axis=1) - 1).max() < 1e-12


@pytest.mark.parametrize(("role", "policy"), COMBOS)
def test_occupancy_is_the_stationary_distribution(role, policy):
    odds = landing_odds(role, policy)
    assert odds.occupancy.shape == (N,)
    assert (odds.occupancy >= 0).all()
    assert abs(odds.occupancy.sum() - 1) < 1e-12
    pi = stationary_by_eigenvector(odds)
    by_space = np.bincount([position_of(s) for s in odds.states], weights=pi, minlength=N)
    assert np.abs(by_space - odds.occupancy).max() < 1e-10


@pytest.mark.parametrize(("role", "policy"), COMBOS)
def test_arrivals_exceed_one_per_throw_only_through_card_moves(role, policy):
    """Every throw lands once, except a failed try for doubles (no landing); a card that moves
    the pawn adds one landing (its target). So sum(arrivals) = 1 - P(failed try) + P(card
    move), both probabilities computed here from the chain's states and the deck."""
    odds = landing_odds(role, policy)
    deck = BOARD.deck(role)
    movers = [card for card in deck if card.effect == "move_to"]
    # in the data no card moves a pawn to a card space, so a throw moves by card at most once
    assert all(card.target not in CARD_SPACES for card in movers)
    p_move_on_card = len(movers) / len(deck)
    pi = stationary_by_eigenvector(odds)
    forced_after = RuleSet.preset("default").held_turns_before_forced_fine
    p_failed = p_card_move = 0.0
    for weight, label in zip(pi, odds.states, strict=True):
        trying = label.startswith("held") and int(label[4:]) < forced_after
        for a, b in DICE:
            if trying and a != b:
                p_failed += weight / 36
                continue
            if (position_of(label) + a + b) % N in CARD_SPACES:
                p_card_move += weight / 36 * p_move_on_card
    assert (odds.arrivals >= 0).all()
    assert abs(odds.arrivals.sum() - (1 - p_failed + p_card_move)) < 1e-12
    if policy == "pay":
        assert p_failed == 0
        assert odds.arrivals.sum() > 1
    else:
        assert p_failed > 0


@pytest.mark.parametrize(("role", "policy"), COMBOS)
def test_go_to_hold_space_is_landed_on_but_never_stood_on(role, policy):
    """Decision 3: the pawn on space 30 goes straight to the hold space; the landing counts
    on 30, nobody ever stands there after a throw."""
    odds = landing_odds(role, policy)
    assert odds.occupancy[GO_TO_HOLD] == 0
    assert odds.arrivals[GO_TO_HOLD] > 0.02
    # the hold space is arrived on only as a Sightseeing Tour; pawns sent there stand there
    assert odds.occupancy[HOLD] > odds.arrivals[HOLD]


@pytest.mark.parametrize("role", [COMPETITOR, MONOPOLIST])
def test_hold_space_is_the_most_occupied_when_trying_for_doubles(role):
    occupancy = landing_odds(role, "doubles").occupancy
    others = np.delete(occupancy, HOLD)
    assert occupancy[HOLD] > others.max()
    assert occupancy[HOLD] > landing_odds(role, "pay").occupancy[HOLD]


@pytest.mark.parametrize(("role", "policy"), COMBOS)
def test_throws_per_turn(role, policy):
    """Decision 2: doubles give one extra throw and no more, so a turn has 1 or 2 throws, and
    2 at most 1/6 of the time (less: a doubles throw sent to hold loses its extra throw)."""
    odds = landing_odds(role, policy)
    assert 1 < odds.throws_per_turn < 1 + 1 / 6


@pytest.mark.parametrize("tries", [0, 1, 2, 3, 4])
def test_held_turns_parameter(tries):
    """held_turns_before_forced_fine is a rule parameter: the chain has one held state per turn
    spent and stays stochastic; more tries keep the pawn in the hold longer; with no tries
    allowed, trying for doubles is the same as paying at once."""
    rules = RuleSet.preset("default", held_turns_before_forced_fine=tries)
    odds = landing_odds(COMPETITOR, "doubles", rules)
    assert [s for s in odds.states if s.startswith("held")] == [
        f"held{k}" for k in range(tries + 1)
    ]
    assert np.abs(odds.transition.sum(axis=1) - 1).max() < 1e-12
    assert abs(odds.occupancy.sum() - 1) < 1e-12
    paying = landing_odds(COMPETITOR, "pay", rules)
    if tries == 0:
        assert np.abs(odds.occupancy - paying.occupancy).max() < 1e-12
        assert np.abs(odds.arrivals - paying.arrivals).max() < 1e-12
    else:
        fewer = RuleSet.preset("default", held_turns_before_forced_fine=tries - 1)
        assert odds.occupancy[HOLD] > landing_odds(COMPETITOR, "doubles", fewer).occupancy[HOLD]


def test_results_are_cached_and_read_only():
    odds = landing_odds(MONOPOLIST, "doubles")
    assert landing_odds(MONOPOLIST, "doubles", RuleSet.preset("default"), BOARD) is odds
    assert landing_odds(MONOPOLIST, "pay") is not odds
    with pytest.raises(ValueError):
        odds.occupancy[0] = 1.0


@pytest.mark.parametrize(("role", "policy"), [(2, "pay"), (COMPETITOR, "wait")])
def test_bad_arguments(role, policy):
    with pytest.raises(ValueError):
        landing_odds(role, policy)
    with pytest.raises(ValueError):
        simulate_throws(role, 10, policy)


def test_landing_table():
    table = landing_table()
    assert list(table.columns) == [
        "space",
        "name",
        "kind",
        "role",
        "policy",
        "arrival",
        "occupancy",
    ]
    assert len(table) == N * 2 * len(POLICIES)
    for (role, policy), group in table.groupby(["role", "policy"]):
        odds = landing_odds(ROLES.index(role), policy)
        assert list(group["space"]) == list(range(N))
        assert list(group["name"]) == [s.name for s in BOARD.spaces]
        assert list(group["kind"]) == [s.kind for s in BOARD.spaces]
        assert np.array_equal(group["occupancy"].to_numpy(), odds.occupancy)
        assert np.array_equal(group["arrival"].to_numpy(), odds.arrivals)


# -- the chain agrees with the engine --------------------------------------------------------


def test_simulation_is_reproducible_and_counts_every_throw():
    first = simulate_throws(COMPETITOR, 2_000, "doubles", seed=3)
    again = simulate_throws(COMPETITOR, 2_000, "doubles", seed=3)
    assert all(np.array_equal(x, y) for x, y in zip(first, again, strict=True))
    arrivals, occupancy = first
    assert abs(occupancy.sum() - 1) < 1e-12
    assert occupancy[GO_TO_HOLD] == 0
    assert arrivals[GO_TO_HOLD] > 0


# 1,000,000 engine throws for every combination: about 14 s each on one core, 1 minute in all
ENGINE_RUNS = [(role, policy, 1_000_000, 20 + i) for i, (role, policy) in enumerate(COMBOS)]


@pytest.mark.parametrize(("role", "policy", "throws", "seed"), ENGINE_RUNS)
def test_chain_agrees_with_the_engine(role, policy, throws, seed):
    """The engine, played for `throws` throws, against the chain, space by space, for both
    landings per throw and occupancy after a throw.

    Tolerance: 5 binomial standard errors of the largest probability in the chain,
    5 * sqrt(p_max (1 - p_max) / throws). Each space's count is (nearly) a sum of Bernoulli
    trials with probability p <= p_max, and p (1 - p) grows with p below 1/2, so this is
    5 standard errors or more for every space. At 1,000,000 throws: p_max = 0.0615 (paying,
    the hold space) gives 0.0012; p_max = 0.113 (trying for doubles) gives 0.0016.

    Successive throws are not independent. The Markov-chain central limit theorem (variance
    from the chain's fundamental matrix) puts the true standard error of every space's
    occupancy within 0.95 binomial standard errors of p_max, except the hold space when trying
    for doubles (a pawn stays up to three throws there): 1.48 of them. So the tolerance is at
    least 3.4 true standard errors for that one space and 5.3 for every other. Landing counts
    are not a function of the chain's state alone, but no space is landed on with p above
    0.034, whose binomial standard error is at most 0.75 of p_max's (paying; 0.55 trying for
    doubles): the tolerance is 6.7 binomial standard errors of any landing count or more.

    The chain draws each card with probability 1/25; the engine cycles a shuffled deck, which
    correlates the card drawn with the space it is drawn on. For one fixed deck order this
    moves card-space occupancy by up to about 0.001 (exact joint chain of position and deck
    position); simulate_throws starts a freshly shuffled game every 10,000 throws, so 100
    deck orders are averaged and that effect falls below 0.0001 (mean over 40 orders: 0.00007).
    """
    odds = landing_odds(role, policy)
    arrivals, occupancy = simulate_throws(role, throws, policy, seed=seed)
    p_max = max(odds.arrivals.max(), odds.occupancy.max())
    tolerance = 5 * math.sqrt(p_max * (1 - p_max) / throws)
    assert np.abs(arrivals - odds.arrivals).max() < tolerance
    assert np.abs(occupancy - odds.occupancy).max() < tolerance
    assert occupancy[GO_TO_HOLD] == 0


def test_the_landing_chart_and_its_reading_show_the_chain_s_own_numbers():
    table = landing_table()
    for policy in POLICIES:
        figure = landing_figure(table, policy)
        assert [trace.name for trace in figure.data] == ["Competitor pawn", "Monopolist pawn"]
        for role, trace in zip(ROLES, figure.data, strict=True):
            rows = table[(table["role"] == role) & (table["policy"] == policy)].sort_values("space")
            assert list(trace.y) == pytest.approx(list(100 * rows["arrival"]))
            assert len(trace.x) == N
        reading = reading_landing(table, policy)
        titles = table[
            (table["role"] == "competitor")
            & (table["policy"] == policy)
            & table["kind"].isin(["street", "transport", "utility"])
        ]
        top = titles.loc[titles["arrival"].idxmax()]
        assert f"{top['name']} is landed on most often ({100 * top['arrival']:.1f} times" in reading
        assert "land alike" in reading  # the two decks move pawns to the same spaces
