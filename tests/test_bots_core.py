"""The bots' decisions written once (issue 26): amteach/bots/core.py, compiled with core.pxd
or run as plain Python, decides for the Python bots (through a view of a `Game`) and for the
batch kernel (through its own view). The frames of both cores are compared in
tests/test_core.py; here, the vocabulary each side matches by position, and the two builds of
the core deciding alike on states reached by play."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amteach.bots import KNOBS, STRATEGIES, TAX_BEHAVIOURS, FamilyParams, make_strategy, strategies
from amteach.bots import builds as bots_builds
from amteach.bots.family import TAX_BY_LEVEL
from amteach.bots.strategies import RandomStrategy
from amteach.engine import builds as engine_builds
from amteach.engine.board import COMPETITOR, MONOPOLIST
from amteach.engine.choices import CHOICE_KINDS
from amteach.engine.game import Game, PlayerSetup, Setup
from amteach.engine.rules import RuleSet
from amteach.engine.terms import Phase
from amteach.sim import core as sim_core

SOURCE = bots_builds.source_decisions()
BUILT = bots_builds.decisions()


def test_the_bots_run_the_build_of_their_core_the_kernel_runs():
    """With the compiled kernel the bots run the compiled build of their core, which knows the
    digest of the sources it was built from; on the pure-Python core (AMTEACH_PURE_PYTHON=1)
    they run core.py as plain Python."""
    kernel = sim_core.kernel()
    if kernel is None:
        assert BUILT is SOURCE
        assert SOURCE.COMPILED is False
        return
    assert BUILT.COMPILED is True
    assert engine_builds.sources_digest(bots_builds.decisions_sources()) == BUILT.SOURCE_SHA256
    assert kernel.bots is BUILT


def test_every_code_of_the_pxd_is_readable_from_python_with_its_value():
    """Compiled, a module's C globals are not attributes: `CODES` gives each one declared in
    core.pxd, with the value the plain-Python module computes."""
    pxd = bots_builds.decisions_sources()[1].read_text()
    declared = []
    for line in pxd.splitlines():
        match = re.match(r"^cdef (?:int|double) ([^(]+)$", line)
        if match:
            declared += [name.strip() for name in match.group(1).split(",")]
    assert len(declared) > 40
    assert set(BUILT.CODES) == set(declared)
    for name in declared:
        assert BUILT.CODES[name] == getattr(SOURCE, name), name


def test_the_vocabulary_matched_by_position_comes_from_one_definition():
    """Bot names, tax behaviours, knobs, phases and choice kinds: each side takes them from the
    core, and the core's phases and choice kinds are the engine's own names in order."""
    assert tuple(STRATEGIES) == BUILT.BOTS
    assert TAX_BEHAVIOURS == BUILT.TAX_BEHAVIOURS == TAX_BY_LEVEL
    assert tuple(k.name for k in KNOBS) == BUILT.FAMILY_KNOBS
    assert len(FamilyParams().vector()) == BUILT.CODES["FAMILY_SIZE"] == len(KNOBS)
    assert tuple(Phase) == BUILT.PHASES
    codes = BUILT.CHOICE_CODES
    assert codes[0] == "none"
    assert [c.partition(":")[0] for c in codes[1:]] == [
        k for k in CHOICE_KINDS for _ in range(2 if k == "income_tax" else 1)
    ]
    assert len(codes) <= BUILT.CODES["CHOICE_BASE"]
    for name in STRATEGIES:
        bot = make_strategy(name)
        assert bot.state.kind == BUILT.BOTS.index(name)


def test_the_kernel_has_no_bot_decision_of_its_own():
    """The kernel's bots section only binds a `Context` to its state for the core and asks the
    core: none of the decisions the core makes is written there again."""
    kernel_py = Path(sim_core.__file__).with_name("kernel.py").read_text()
    for decision in (
        "income_tax_choice",
        "family_wants",
        "title_value",
        "accepts",
        "raise_money",
        "final_adjust",
        "propose_monopoly_trade",
        "family_build",
        "family_manage",
        "before_throw",
        "random_trade",
        "random_choose",
    ):
        assert not re.search(rf"^def {decision}\(", kernel_py, re.M), decision


def played_game(seed: int, steps: int, seats: int) -> Game:
    """A game of random bots after `steps` decisions (or at its end)."""
    roles = [COMPETITOR, MONOPOLIST] * 3
    game = Game(
        Setup(
            players=tuple(PlayerSetup(f"P{i}", roles[i]) for i in range(seats)),
            rules=RuleSet.preset("default", round_cap=60),
            seed=seed,
        )
    )
    movers = [RandomStrategy(seed + seat, trade_rate=0.2, tax="cheaper") for seat in range(seats)]
    for _ in range(steps):
        if game.over:
            break
        game.apply(movers[game.actor].choose(game, game.legal()))
    return game


def test_the_bots_read_the_games_own_state_and_the_rules_cores_legal_list():
    """Issue 38: a bot of the build the engine runs reads the game's `core.State` itself
    (`game.state.core`, no copy, no adapter), and the random bot's list is the rules core's
    `legal_codes`, the list `Game.legal_choices` reads."""
    game = played_game(11, 60, 4)
    context = strategies.read_game(BUILT, game)
    assert context.s is game.state.core
    assert context.t is game.state.core.t
    count = BUILT.rules.legal_codes(context.s, context.legal)
    assert count == len(game.legal_choices()) > 0
    assert [BUILT.rules.as_choice(c) for c in context.legal.as_list()] == game.legal_choices()


BOT_NAMES = [
    "cautious",
    "builder",
    "investor",
    "random",
    "family",
    "family:key_streets=block/build_order=rent/raise_first=titles/offer=6/team=sell",
]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    steps=st.integers(0, 400),
    seats=st.integers(2, 6),
    tax=st.sampled_from(TAX_BEHAVIOURS),
)
def test_both_builds_of_the_core_decide_alike_on_states_reached_by_play(seed, steps, seats, tax):
    """Every bot, asked the pending decision of a game reached by play, chooses the same on
    the compiled and the plain-Python build of its core (the kernel's view is compared with
    the engine's frame by frame in tests/test_core.py)."""
    game = played_game(seed, steps, seats)
    if game.over:
        return
    for name in BOT_NAMES:
        answers = []
        for module in (BUILT, SOURCE):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(strategies, "decisions", lambda module=module: module)
                bot = make_strategy(name, tax=tax, seed=seed)
            assert bot.state.__class__ is module.BotState
            answers.append(bot.choose(game, game.legal()))
        assert answers[0] == answers[1], (name, game.phase)
        assert game.is_legal(answers[0]), (name, answers[0])
