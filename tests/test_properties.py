"""Property-based tests: whole games of random legal play, with the game's invariants checked
after every single decision.

Each example plays a complete game (a small round cap keeps it short) in which every decision
is a random legal choice, made by `RandomStrategy` (which also proposes random trades) or, in
one property, by a mix of random and cautious bots. Under the "ci" profile (100 examples per
property, eight properties; tests/conftest.py says why 100) the file plays some 800 games.

Invariants (decisions.md):
- decision 13: the cash of all players plus the Treasury's balance never changes;
- building supply: houses and apartments on the board plus those in the supply are the supply
  the rules set, and a limited supply never goes below zero;
- decisions 5-7: no buildings on a mortgaged street, none outside a monopolized city for a
  Monopolist, none beyond the role's maximum;
- decision 9: no cash is negative outside the raising-money phase; a player is bankrupt at most
  once, stays bankrupt, leaves the game and holds nothing;
- every game ends, for a recorded reason, with a winner still in the game.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from amteach import Choice, Game, IllegalChoice, Trade
from amteach.bots import KNOBS, CautiousStrategy, FamilyParams, FamilyStrategy, RandomStrategy
from amteach.engine import builds
from amteach.engine import events as ev
from amteach.engine.choices import CHOICE_KINDS, TAX_OPTIONS, TITLE_CHOICES

MAX_DECISIONS = 20_000
END_REASONS = {"game_a", "game_b", "two_hour", "round_cap"}
NOBODY = -1
RAISE = "raise"
OVER = "over"

# where `game.cash[p]`, `game.houses[space]`, ... read: the rules core's `seat_value(field, p)`
# and `space_value(field, space)`, by these field codes (the check below reads them directly)
_CORE = builds.rules_core()
CASH, BANKRUPT = (_CORE.SEAT_FIELDS.index(name) for name in ("cash", "bankrupt"))
OWNER, HOUSES, APARTMENT, MORTGAGED = (
    _CORE.SPACE_FIELDS.index(name) for name in ("owner", "houses", "apartment", "mortgaged")
)

seeds = st.integers(min_value=0, max_value=2**32 - 1)


@st.composite
def seatings(draw: st.DrawFn) -> list[tuple[str, str]]:
    """2 to 6 players, at most 3 of each role, role counts differing by at most one
    (decision 13), seated in any order."""
    n = draw(st.integers(min_value=2, max_value=6))
    competitors = draw(st.sampled_from(sorted({n // 2, n - n // 2})))
    roles = ["competitor"] * competitors + ["monopolist"] * (n - competitors)
    order = draw(st.permutations(roles))
    return [(f"P{i}", role) for i, role in enumerate(order)]


@st.composite
def game_configs(draw: st.DrawFn, **extra: st.SearchStrategy[Any]) -> dict[str, Any]:
    """Keyword arguments for `Game.new`: seating, preset, game type, supply and round cap,
    plus any `extra` rule overrides drawn from the given strategies."""
    config: dict[str, Any] = {
        "players": draw(seatings()),
        "rules": draw(st.sampled_from(["default", "edition-2005"])),
        "seed": draw(seeds),
        "game": draw(st.sampled_from(["A", "B", "two-hour"])),
        "building_supply": draw(st.sampled_from(["limited", "unlimited"])),
        "round_cap": draw(st.integers(min_value=20, max_value=60)),
    }
    for name, strategy in extra.items():
        config[name] = draw(strategy)
    return config


class Where:
    """Where a check failed (the seed and the last decision), written out only when an
    assertion's message is: formatting it after every decision cost more than the checks."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def __str__(self) -> str:
        g = self.game
        last = g.decisions[-1] if g.decisions else "set-up"
        return f"seed {g.setup.seed}, after decision {len(g.decisions)} ({last})"


class Invariants:
    """Checks the invariants of one game after every decision; tracks what must persist
    (bankruptcies) by reading only the new events each time."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.seen_events = 0
        self.bankrupt_events = [0] * len(game.names)
        self.was_bankrupt = [False] * len(game.names)
        self.game_over_events = 0
        self.seats, self.spaces = range(len(game.names)), range(len(game.board.spaces))
        self.check()

    def check(self) -> None:
        g = self.game
        rules = g.rules
        where = Where(g)
        # each column read once into a list: `game.houses[space]` goes through a view of the
        # rules core's state on every index, and indexing it per space after every decision
        # was most of this file's CPU (80 of 91 s in a profile). The lists are read from the
        # rules core's state itself (`game.state.core`, read only), by the calls the views
        # make, so the values checked are the views' values: through the views (a view object
        # and a generator per column) the reading was still a third of the file's CPU (issue 40)
        state = g.state
        seat_value, space_value = state.core.seat_value, state.core.space_value
        seats, spaces = self.seats, self.spaces
        cash, bankrupt = (
            [seat_value(CASH, p) for p in seats],
            [seat_value(BANKRUPT, p) for p in seats],
        )
        houses = [space_value(HOUSES, s) for s in spaces]
        apartment = [space_value(APARTMENT, s) for s in spaces]
        owners = [space_value(OWNER, s) for s in spaces]

        # decision 13: money is only ever moved, never made or lost
        assert sum(cash) + state.treasury == state.total_money, f"money not conserved, {where}"

        # the building supply: what is on the board plus what is in the supply is the supply
        # the rules set; when limited, that is a hard limit (the engine keeps the same
        # bookkeeping with an unlimited supply, whose count may then go below zero)
        assert sum(houses) + state.supply_houses == rules.supply_houses, f"houses, {where}"
        assert sum(apartment) + state.supply_apartments == rules.supply_apartments, (
            f"apartments, {where}"
        )
        if not rules.unlimited_supply:
            assert state.supply_houses >= 0 and state.supply_apartments >= 0, (
                f"supply below zero, {where}"
            )

        # decisions 5, 6, 7: where buildings may stand
        built = [s for s in spaces if houses[s] or apartment[s]]
        if built:
            mortgaged, roles = [space_value(MORTGAGED, s) for s in spaces], g.roles
        for space in built:
            sp = g.board.spaces[space]
            owner = owners[space]
            assert sp.kind == "street", f"buildings on {sp.name}, which is not a street, {where}"
            assert owner != NOBODY, f"buildings on unowned {sp.name}, {where}"
            assert not mortgaged[space], f"buildings on mortgaged {sp.name}, {where}"
            assert not (houses[space] and apartment[space]), f"houses and apartment on {sp.name}"
            assert 0 <= houses[space] <= rules.max_houses(roles[owner]), f"{sp.name}, {where}"
            if roles[owner] == 1:
                assert g.is_monopolized(owner, sp.city), (
                    f"monopolist buildings on {sp.name} outside a monopolized {sp.city}, {where}"
                )

        # decision 9 (no borrowing): cash goes below zero nowhere outside the raise phase
        phase = g.phase
        if phase != RAISE:
            assert min(cash) >= 0, f"negative cash {cash} in phase {phase}, {where}"

        # decision 9: bankrupt at most once, for good, holding nothing
        events = g.events
        for event in events[self.seen_events :]:
            if event.type == ev.Bankrupt.type:
                self.bankrupt_events[event.player] += 1
            elif event.type == ev.GameOver.type:
                self.game_over_events += 1
        self.seen_events = len(events)
        for p in range(len(g.names)):
            if self.was_bankrupt[p]:
                assert bankrupt[p], f"{g.names[p]} is no longer bankrupt, {where}"
            assert self.bankrupt_events[p] == (1 if bankrupt[p] else 0), (
                f"{g.names[p]}: {self.bankrupt_events[p]} Bankrupt events, bankrupt={bankrupt[p]}, {where}"
            )
            if bankrupt[p]:
                assert cash[p] == 0, f"bankrupt {g.names[p]} still has ${cash[p]}, {where}"
                # game.titles_of(p), read from the owners' list already made
                titles = [s for s in g.board.titles if owners[s] == p]
                assert not titles, f"bankrupt {g.names[p]} still holds titles, {where}"
        self.was_bankrupt = bankrupt

        # a bankrupt player has left the game: never asked to decide (the seat to decide,
        # `game.pending.player`, is `game.actor` until the game is over; `pending` also works
        # out the legal kinds of choice, which this check does not read)
        if phase != OVER:
            actor = g.actor
            assert not bankrupt[actor], f"bankrupt {g.names[actor]} to decide, {where}"
        if rules.round_cap is not None:
            assert g.round <= rules.round_cap + 1, f"round {g.round} past the cap, {where}"
        # `game.over` is `game.phase == "over"`
        assert self.game_over_events == (1 if phase == OVER else 0), f"GameOver events, {where}"


def play_out(game: Game, bots: list[Any]) -> Invariants:
    """Let the bots play the game to its end, checking the invariants after every decision,
    then check how it ended."""
    invariants = Invariants(game)
    for _ in range(MAX_DECISIONS):
        if game.over:
            break
        legal = game.legal_choices()
        assert legal, f"no legal choice in phase {game.phase} (seed {game.setup.seed})"
        game.apply(bots[game.actor].choose(game, legal))
        invariants.check()
    assert game.over, f"seed {game.setup.seed}: not over after {MAX_DECISIONS} decisions"
    check_ending(game)
    return invariants


def check_ending(game: Game) -> None:
    rules = game.rules
    assert game.end_reason in END_REASONS
    assert game.pending is None
    assert game.legal_choices() == []
    assert game.winner is not None, "a game always has a winner (someone is still in it)"
    assert not game.bankrupt[game.winner], "the winner went bankrupt"
    assert game.events[-1].type == ev.GameOver.type
    assert game.events[-1].winner == game.winner
    assert game.events[-1].reason == game.end_reason
    alive = [p for p in range(len(game.names)) if not game.bankrupt[p]]
    reason = game.end_reason
    if reason == "game_a":
        assert alive == [game.winner], "Game A ends with one player left"
    elif reason == "game_b":
        assert game.setup.game_type == "B"
        assert len({game.roles[p] for p in alive}) == 1, "Game B ends when one role is left"
        best = max(game.rule25_wealth(p) for p in alive)
        assert game.rule25_wealth(game.winner) == best, "Game B: the richest (rule 25) wins"
    else:
        if reason == "two_hour":
            assert game.setup.game_type == "two-hour", (
                "only the two-hour game is ended by the clock"
            )
        else:
            assert game.round == rules.round_cap, "ended by the round cap after its last round"
        assert game.cash[game.winner] == max(game.cash[p] for p in alive), "most cash wins"
    with pytest.raises(IllegalChoice):
        game.apply("roll")


def random_bots(game: Game, bot_seed: int, trade_rate: float = 0.05) -> list[RandomStrategy]:
    return [
        RandomStrategy(bot_seed + seat, trade_rate=trade_rate) for seat in range(len(game.names))
    ]


# -- whole games ----------------------------------------------------------------------------


@given(config=game_configs(), bot_seed=seeds)
def test_random_play_keeps_every_invariant(config: dict[str, Any], bot_seed: int) -> None:
    game = Game.new(**config)
    play_out(game, random_bots(game, bot_seed))


@given(
    config=game_configs(round_cap=st.integers(min_value=10, max_value=40)),
    bot_seed=seeds,
    trade_rate=st.floats(min_value=0.3, max_value=0.9),
)
def test_trade_heavy_play_keeps_every_invariant(
    config: dict[str, Any], bot_seed: int, trade_rate: float
) -> None:
    """Rule 23: many random trades (titles, mortgaged ones included, and cash either way)."""
    game = Game.new(**config)
    play_out(game, random_bots(game, bot_seed, trade_rate))


@given(
    config=game_configs(), bot_seed=seeds, cautious=st.lists(st.booleans(), min_size=6, max_size=6)
)
def test_mixed_bots_keep_every_invariant(
    config: dict[str, Any], bot_seed: int, cautious: list[bool]
) -> None:
    """Cautious bots keep their cash and build more, so games run longer and build higher."""
    game = Game.new(**config)
    bots = random_bots(game, bot_seed)
    for seat in range(len(game.names)):
        if cautious[seat]:
            bots[seat] = CautiousStrategy(reserve=100)
    play_out(game, bots)


@given(
    config=game_configs(),
    grids=st.lists(
        st.tuples(*(st.integers(0, knob.size - 1) for knob in KNOBS)), min_size=6, max_size=6
    ),
)
def test_family_bots_with_any_knobs_keep_every_invariant(
    config: dict[str, Any], grids: list[tuple[int, ...]]
) -> None:
    """Family strategies (issue 15) anywhere on their grid: hoarding, building, trading,
    mortgaging first, never leaving Prison early."""
    game = Game.new(**config)
    play_out(
        game,
        [FamilyStrategy(FamilyParams.from_grid(grids[seat])) for seat in range(len(game.names))],
    )


@given(
    config=game_configs(
        building_supply=st.just("limited"),
        supply_houses=st.integers(min_value=0, max_value=8),
        supply_apartments=st.integers(min_value=0, max_value=3),
        starting_cash=st.integers(min_value=0, max_value=700),
        max_houses_competitor=st.integers(min_value=1, max_value=4),
        max_houses_monopolist=st.integers(min_value=1, max_value=3),
        monopoly_streets=st.integers(min_value=1, max_value=3),
        held_turns_before_forced_fine=st.integers(min_value=0, max_value=2),
    ),
    bot_seed=seeds,
)
def test_scarce_supply_and_cash_keep_every_invariant(config: dict[str, Any], bot_seed: int) -> None:
    """A tiny building supply and little cash: supply runs out, debts force raising money,
    players go bankrupt to each other and to the Treasury."""
    game = Game.new(**config)
    play_out(game, random_bots(game, bot_seed, trade_rate=0.1))


@st.composite
def full_tables(draw: st.DrawFn) -> dict[str, Any]:
    """Six players, three of each role: every "collect from each" card has three debtors."""
    config = draw(game_configs(round_cap=st.integers(min_value=10, max_value=30)))
    roles = draw(st.permutations(["competitor"] * 3 + ["monopolist"] * 3))
    config["players"] = [(f"P{i}", role) for i, role in enumerate(roles)]
    return config


@given(config=full_tables(), bot_seed=seeds)
def test_full_tables_keep_every_invariant(config: dict[str, Any], bot_seed: int) -> None:
    game = Game.new(**config)
    play_out(game, random_bots(game, bot_seed, trade_rate=0.1))


# -- legal and illegal choices ---------------------------------------------------------------


# a short game, sometimes poor, so that raising money and bankruptcy come up quickly
short_games = game_configs(
    round_cap=st.integers(min_value=6, max_value=16),
    starting_cash=st.one_of(st.just(1500), st.integers(min_value=100, max_value=400)),
)


def stopping_point(config: dict[str, Any], bot_seed: int, data: st.DataObject) -> Game:
    """Play a whole game at random, then rebuild it (by replay) at a moment drawn from it:
    first a phase that occurred, then a decision point in that phase, so that rare phases
    (raising money, income tax, answering a trade, the final accounting) are tested as often
    as common ones."""
    game = Game.new(**config)
    bots = random_bots(game, bot_seed, trade_rate=0.2)
    points: dict[str, list[int]] = {}
    while not game.over:
        points.setdefault(game.phase, []).append(len(game.decisions))
        game.apply(bots[game.actor].choose(game, game.legal_choices()))
    points["over"] = [len(game.decisions)]
    # a seeded choice (hypothesis would favour the first phases): half the time the rarest
    # phase of this game, otherwise any phase that occurred
    rng = random.Random(data.draw(seeds, label="moment"))
    rarest = min(sorted(set(points) - {"over"}), key=lambda name: len(points[name]))
    phase = rarest if rng.random() < 0.5 else rng.choice(sorted(points))
    at = rng.choice(points[phase])
    return Game.replay(game.setup, game.decisions[:at])


def random_trade(game: Game, seed: int) -> Choice | None:
    """Bare titles either way and cash either way, with a random partner still in the game."""
    rng = random.Random(seed)
    me = game.actor
    others = [p for p in [p for p in range(len(game.names)) if not game.bankrupt[p]] if p != me]
    other = rng.choice(others)

    def bare(player: int) -> tuple[int, ...]:
        return tuple(
            s
            for s in game.titles_of(player)
            if not (game.houses[s] or game.apartment[s]) and rng.random() < 0.5
        )

    give, get = bare(me), bare(other)
    if not (give or get):
        return None
    pay = rng.randint(-game.cash[other], game.cash[me])
    return Choice("trade", Trade(other, give, get, pay))


def every_simple_choice(game: Game) -> list[Choice]:
    """Every choice but trades: each kind with every possible argument."""
    out = []
    for kind in CHOICE_KINDS:
        if kind in TITLE_CHOICES:
            out.extend(Choice(kind, s) for s in range(len(game.board.spaces)))
        elif kind == "income_tax":
            out.extend(Choice(kind, option) for option in (*TAX_OPTIONS, "half"))
        elif kind != "trade":
            out.append(Choice(kind))
    return out


@given(config=short_games, bot_seed=seeds, trade_seed=seeds, data=st.data())
def test_every_legal_choice_is_accepted(
    config: dict[str, Any], bot_seed: int, trade_seed: int, data: st.DataObject
) -> None:
    game = stopping_point(config, bot_seed, data)
    legal = game.legal_choices()
    if game.over:
        assert legal == []
        assert game.pending is None
        return
    pending = game.pending
    # `pending.kinds` and `legal_choices()` tell the same story (trades are open-ended)
    assert {c.kind for c in legal} == set(pending.kinds) - {"trade"}
    assert len(set(legal)) == len(legal), "a legal choice is listed twice"
    assert legal, f"nobody can move in phase {game.phase}"
    # a random trade the engine calls legal must be accepted too
    trade = random_trade(game, trade_seed) if "trade" in pending.kinds else None
    candidates = [*legal, *([trade] if trade is not None and game.is_legal(trade) else [])]
    before = game.state.as_dict()
    for choice in candidates:
        assert game.is_legal(choice)
        copy = Game.replay(game.setup, game.decisions)
        assert copy.state.as_dict() == before
        copy.apply(choice, player=pending.player)  # must not raise
        assert copy.decisions == [*game.decisions, choice]
    assert game.state.as_dict() == before, "trying choices on copies changed the game"


@given(config=short_games, bot_seed=seeds, data=st.data())
def test_an_illegal_choice_raises_and_changes_nothing(
    config: dict[str, Any], bot_seed: int, data: st.DataObject
) -> None:
    game = stopping_point(config, bot_seed, data)
    legal = set(game.legal_choices())
    candidates = every_simple_choice(game)
    # `is_legal` and `legal_choices` agree on every choice
    for choice in candidates:
        assert game.is_legal(choice) == (choice in legal), choice
    illegal = [c for c in candidates if c not in legal]
    n = len(game.names)
    illegal += [
        Choice("trade", Trade(game.actor)),  # with oneself
        Choice("trade", Trade((game.actor + 1) % n)),  # nothing traded: a loan
        Choice("trade", Trade((game.actor + 1) % n, give=(0,))),  # START is no title
        Choice("trade", Trade(n + 3, give=(1,))),  # nobody sits there
    ]
    choice = data.draw(st.sampled_from(illegal), label="illegal choice")
    assert not game.is_legal(choice)
    before, n_events, n_decisions = game.state.as_dict(), len(game.events), len(game.decisions)
    with pytest.raises(IllegalChoice) as err:
        game.apply(choice)
    assert err.value.rule, "an IllegalChoice names the rule it breaks"
    assert game.state.as_dict() == before
    assert (len(game.events), len(game.decisions)) == (n_events, n_decisions)
    # nothing hidden moved either (dice stream, decks): the game goes on exactly as a replay
    if not game.over:
        twin = Game.replay(game.setup, game.decisions)
        next_choice = sorted(legal, key=str)[0]
        assert [e.to_dict() for e in game.apply(next_choice)] == [
            e.to_dict() for e in twin.apply(next_choice)
        ]
        assert game.state.as_dict() == twin.state.as_dict()
