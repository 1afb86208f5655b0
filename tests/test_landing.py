"""Landing odds (amteach.analysis.landing): the Markov chain of one pawn, checked for
consistency, against the rules (decisions 2, 3, 10) and against the engine itself."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

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
from amteach.engine import events as ev
from amteach.engine.board import COMPETITOR, MONOPOLIST, ROLES, standard_board
from amteach.engine.choices import Choice
from amteach.engine.game import Game, Phase, PlayerSetup, Setup
from amteach.engine.rules import LARGEST_WHOLE, RuleSet

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


# -- the chain is the engine's own chain, throw by throw (exact) -------------------------------
#
# Every (state, dice throw, card drawn) case the chain models is played through `Game` itself,
# with scripted dice and a forced card order (`Setup.dice`, `Setup.cards`, as scenarios use),
# and where the measured pawn then stands is read from the engine. That gives the engine's own
# transition matrix, which must equal `landing_odds`' to 1e-12, with no sampling at all.
#
# What this pins: decision 2 (doubles give one extra throw; doubles on it give nothing more),
# decision 3 (space 30 and the hold cards send the pawn straight to the hold space; a held
# pawn tries for doubles, and on doubles moves by that throw and takes the extra throw; at the
# start of the turn after `held_turns_before_forced_fine` turns held the fine is forced and the
# throw is normal; arriving on the hold space by a move is a visit), decision 10 (a card space
# draws from the role's own deck; moving cards move forward and the target is a landing).
#
# What it assumes, as the chain does: the card drawn is each card of the role's deck with
# probability 1/(cards in the deck). That is exact for the first draw from a freshly shuffled
# deck and is each card's long-run frequency in a cycled deck, but a cycled deck's successive
# draws are not independent (the engine puts the card at the bottom, decision 10): the chain
# is an approximation of that, and `test_the_engine_played_at_length_agrees_with_the_chain`
# measures that the approximation is small.

_ROLL = Choice("roll")
_DECLINE = Choice("decline")
_TAX_FLAT = Choice("income_tax", "flat")
_PAY_FINE = Choice("pay_fine")
# cash no pawn can run out of in one throw, so no debt ever interrupts a move
_RULES = RuleSet.preset("default").replace(starting_cash=LARGEST_WHOLE, round_cap=None)


@dataclass(frozen=True)
class Situation:
    """What a chain state stands for in the engine: the measured pawn (seat 0) about to throw.

    extra: the throw is the extra throw that doubles earned; held: turns spent held (None: not
    held); pays: a held pawn pays the fine before the throw (the "pay" policy)."""

    position: int
    extra: bool = False
    held: int | None = None
    pays: bool = False


@dataclass(frozen=True)
class Outcome:
    """One way a throw ends, with its probability: where the pawn stands before its next
    throw (a Situation without `pays`) and the spaces it arrived on, in order."""

    probability: float
    then: Situation
    landings: tuple[int, ...]


def _stays_cards(role: int) -> list[str]:
    """Cards that leave the pawn where it drew them and throw no dice."""
    return [c.id for c in BOARD.deck(role) if c.effect in ("collect", "pay", "nothing")]


def _play_one_throw(
    role: int, start: Situation, dice: tuple[int, int], card: str | None, rules: RuleSet
) -> tuple[Outcome, int]:
    """Set up the engine in `start`, throw `dice` (with `card` on top of the role's deck), and
    read where the pawn stands before its next throw. Returns the outcome (probability 1) and
    the number of cards the throw drew."""
    approach: tuple[tuple[int, ...], ...] = ()
    forced_cards: tuple[str, ...] = () if card is None else (card,)
    position = start.position
    if start.extra:
        # the pawn reaches `position` by doubles (1, 1) from two spaces back, and stays there
        position = (start.position - 2) % N
        approach = ((1, 1),)
        if start.position == BOARD.foundation_space and role == COMPETITOR:
            approach += ((6,),)  # a Competitor on the Foundation throws one die
        if BOARD.spaces[start.position].kind == "card":
            stays = [c for c in _stays_cards(role) if c != card]
            forced_cards = (stays[0], *forced_cards)
    cards = (forced_cards, ()) if role == COMPETITOR else ((), forced_cards)
    setup = Setup(
        players=(
            PlayerSetup("measured", role, position=position, held=start.held),
            PlayerSetup("opponent", 1 - role),
        ),
        rules=rules,
        seed=1,
        dice=(*approach, dice),
        cards=cards,
    )
    game = Game(setup, BOARD)
    if start.extra:
        game.apply(_ROLL)
        _finish_the_move(game)
        assert _situation(game) == start, f"could not set up {start}"
    if start.pays:
        game.apply(_PAY_FINE)
    assert (game.actor, game.phase, game.state.is_extra) == (0, Phase.PRE_ROLL, start.extra)
    events = game.apply(_ROLL)
    events += _finish_the_move(game)
    mine = [e for e in events if getattr(e, "player", None) == 0]
    # decision 3: a held pawn that has not paid throws to try for doubles, others to move
    trying = start.held is not None and not start.pays
    trying = trying and start.held < rules.held_turns_before_forced_fine
    throws = [
        e for e in mine if isinstance(e, ev.DiceThrown) and e.purpose in ("move", "doubles_attempt")
    ]
    assert [(e.dice, e.purpose) for e in throws] == [
        (dice, "doubles_attempt" if trying else "move")
    ]
    landings = tuple(e.end for e in mine if isinstance(e, ev.Moved))
    drawn = sum(isinstance(e, ev.CardDrawn) for e in mine)
    if card is not None and drawn:
        assert next(e for e in mine if isinstance(e, ev.CardDrawn)).card == card
    return Outcome(1.0, _situation(game), landings), drawn


def _finish_the_move(game: Game) -> list[ev.Event]:
    """The measured player's decisions after a throw: decline to buy, pay income tax flat."""
    events = []
    while game.actor == 0 and game.phase in (Phase.BUY, Phase.INCOME_TAX):
        events += game.apply(_DECLINE if game.phase == Phase.BUY else _TAX_FLAT)
    return events


def _situation(game: Game) -> Situation:
    """Where the measured pawn stands before its next throw, read from the engine."""
    assert game.actor == 0 and not game.over
    if game.phase == Phase.PRE_ROLL and game.state.is_extra:
        assert not game.is_held(0)
        return Situation(game.position[0], extra=True)
    assert game.phase == Phase.POST_ROLL, game.phase  # the turn is over
    held = game.state.held[0] if game.is_held(0) else None
    return Situation(game.position[0], held=held)


@cache
def engine_outcomes(role: int, start: Situation, rules: RuleSet = _RULES) -> tuple[Outcome, ...]:
    """Every way one throw from `start` can end in the engine: each of the 36 dice throws with
    probability 1/36, and when the throw lands on a card space, each card of the role's deck
    on top with probability 1/(cards in the deck)."""
    deck = [c.id for c in BOARD.deck(role)]
    outcomes = []
    for dice in DICE:
        plain, drawn = _play_one_throw(role, start, dice, None, rules)
        if not drawn:
            outcomes.append(Outcome(1 / 36, plain.then, plain.landings))
            continue
        for card in deck:
            outcome, drawn = _play_one_throw(role, start, dice, card, rules)
            # a card moving the pawn on to another card space would draw a second card, from
            # the same cycled deck: no card in the data does (asserted in
            # test_arrivals_exceed_one_per_throw_only_through_card_moves)
            assert drawn == 1, f"{card} drew {drawn} cards in one throw"
            outcomes.append(Outcome(1 / 36 / len(deck), outcome.then, outcome.landings))
    return tuple(outcomes)


def chain_label(then: Situation, policy: str) -> str:
    """The chain's state for an engine situation (the states of amteach.engine.odds)."""
    if then.held is not None:
        return f"held{then.held}" if policy == "doubles" else f"{HOLD}:first"
    return f"{then.position}:{'extra' if then.extra else 'first'}"


def engine_situations(label: str, policy: str) -> list[Situation]:
    """The engine situations a chain state stands for (under "pay" the hold space's first
    throw is both a visitor's and a held player's who pays the fine first)."""
    if label.startswith("held"):
        return [Situation(HOLD, held=int(label[4:]))]
    space, kind = label.split(":")
    situations = [Situation(int(space), extra=kind == "extra")]
    if policy == "pay" and int(space) == HOLD and kind == "first":
        situations.append(Situation(HOLD, held=0, pays=True))
    return situations


def engine_chain(
    role: int, policy: str, states: tuple[str, ...], rules: RuleSet = _RULES
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The engine's transition matrix and expected landings per throw on each space, over the
    chain's `states`, and the rows the engine has (all but the extra throw on space 30: no
    pawn ever stands there after a move, decision 3)."""
    index = {label: i for i, label in enumerate(states)}
    transition = np.zeros((len(states), len(states)))
    arrivals_from = np.zeros((len(states), N))
    rows = []
    for row, label in enumerate(states):
        if label == f"{GO_TO_HOLD}:extra":
            continue
        rows.append(row)
        tables = []
        for start in engine_situations(label, policy):
            to, landed = np.zeros(len(states)), np.zeros(N)
            for outcome in engine_outcomes(role, start, rules):
                assert outcome.then.position != GO_TO_HOLD  # decision 3: never stood on
                to[index[chain_label(outcome.then, policy)]] += outcome.probability
                for space in outcome.landings:
                    landed[space] += outcome.probability
            tables.append((to, landed))
        transition[row], arrivals_from[row] = tables[0]
        for to, landed in tables[1:]:  # a visitor and a held player who pays throw alike
            assert np.abs(to - transition[row]).max() < 1e-12
            assert np.abs(landed - arrivals_from[row]).max() < 1e-12
    return transition, arrivals_from, rows


@pytest.mark.parametrize(("role", "policy"), COMBOS)
def test_the_chain_is_the_engine_s_own_chain(role, policy):
    """Decisions 2, 3 and 10: the chain's transition matrix is the engine's, exactly (to 1e-12),
    built by playing every (state, dice throw, card drawn) case through Game; and the chain's
    long-run figures (occupancy, landings per throw, throws per turn) are those of the
    engine's matrix and the landings the engine's events report."""
    odds = landing_odds(role, policy)
    transition, arrivals_from, rows = engine_chain(role, policy, odds.states)
    assert np.abs(transition[rows] - odds.transition[rows]).max() < 1e-12
    # the one state the engine cannot be put in is never entered, in either
    never = [odds.states.index(f"{GO_TO_HOLD}:{kind}") for kind in ("first", "extra")]
    assert not transition[:, never].any() and not odds.transition[:, never].any()
    # long-run figures from the engine's own matrix (its one closed class, found here)
    sub = transition[np.ix_(rows, rows)]
    values, vectors = np.linalg.eig(sub.T)
    pi = np.real(vectors[:, np.argmin(abs(values - 1))])
    pi /= pi.sum()
    positions = [position_of(odds.states[row]) for row in rows]
    occupancy = np.bincount(positions, weights=pi, minlength=N)
    assert np.abs(occupancy - odds.occupancy).max() < 1e-10
    assert np.abs(pi @ arrivals_from[rows] - odds.arrivals).max() < 1e-10
    turn_starts = [not odds.states[row].endswith(":extra") for row in rows]
    assert abs(1 / pi[turn_starts].sum() - odds.throws_per_turn) < 1e-10


@pytest.mark.parametrize("tries", [0, 1, 3, 4])
def test_the_held_states_follow_the_rule_parameter_in_the_engine(tries):
    """Decision 3 with held_turns_before_forced_fine = `tries`: the chain's held rows are the
    engine's (trying for doubles while turns held < tries, the fine forced at the start of
    the turn after), exactly, for both roles. (Rows off the hold space do not depend on the
    parameter; test_the_chain_is_the_engine_s_own_chain compares them at the default.)"""
    rules = _RULES.replace(held_turns_before_forced_fine=tries)
    for role in (COMPETITOR, MONOPOLIST):
        odds = landing_odds(
            role, "doubles", RuleSet.preset("default").replace(held_turns_before_forced_fine=tries)
        )
        index = {label: i for i, label in enumerate(odds.states)}
        for k in range(tries + 1):
            row = np.zeros(len(odds.states))
            for outcome in engine_outcomes(role, Situation(HOLD, held=k), rules):
                row[index[chain_label(outcome.then, "doubles")]] += outcome.probability
            assert np.abs(row - odds.transition[index[f"held{k}"]]).max() < 1e-12


def test_the_engine_played_at_length_agrees_with_the_chain():
    """What enumeration cannot cover: in play a role's deck is cycled (decision 10), so
    successive cards are not independent draws as the chain has them. The engine played
    for 100,000 throws (a freshly shuffled game every 10,000, see simulate_throws: turns,
    an opponent, decks cycled and forced fines in sequence) for a case with the most states
    (a Monopolist trying for doubles: the held states too) stays within 5 binomial standard
    errors of the chain's largest probability on every space: 0.005. One fixed deck order moves card-space
    occupancy by up to about 0.001 (exact joint chain of position and deck position), below
    this tolerance, and the 10 orders played average it further: so this bounds the cycled
    deck's effect, and it checks simulate_throws' counting end to end. Successive
    throws are dependent: by the Markov-chain central limit theorem the true standard error
    of any space is within 1.48 binomial ones of p_max (the hold space; 0.95 elsewhere), so the
    tolerance is 3.4 true standard errors or more."""
    throws = 100_000
    odds = landing_odds(MONOPOLIST, "doubles")
    arrivals, occupancy = simulate_throws(MONOPOLIST, throws, "doubles", seed=23)
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
