"""The compiled core (issue 14): amteach/sim/kernel.py, compiled with the types of kernel.pxd
(Cython's pure-Python mode), plays a batch, the Python engine and bots stay the reference, and
both must give identical frames for the same seeds. The same kernel.py run uncompiled, as plain
Python, must give the compiled build's frames too (issue 26).

The differential tests play the same games on both cores and compare every column of every
frame: 60 seeds for each table of bots the suite uses, 2,000 seeds of the default table in the
`slow` test (which `./dev test` runs too), and any table, rules preset and ending in the
property test; benchmarks/diff_cores.py runs 2,000 seeds of every table. Anything changed in
the engine or the bots and not in kernel.py fails here.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import warnings
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from state_edit import poke

from amteach import RuleSet, simulate
from amteach.bots import KNOBS, STRATEGIES, FamilyParams
from amteach.bots import builds as bots_builds
from amteach.cli import main
from amteach.engine import builds
from amteach.engine import game as game_module
from amteach.engine.board import COMPETITOR, MONOPOLIST
from amteach.engine.game import Game, PlayerSetup, Setup, StateView
from amteach.sim import core, runner
from amteach.sim.play import (
    KERNEL_BOTS,
    KERNEL_RULES,
    BatchConfig,
    compiled_chunk,
    kernel_plays,
    python_chunk,
)
from amteach.sim.runner import parse_seats

# these tests compare the two cores, so they need the compiled one (`./dev test` builds it;
# its pure-Python pass runs the rules, save, load and simulation tests, not this file)
KERNEL = core.kernel()


def uncompiled_kernel() -> ModuleType:
    """amteach/sim/kernel.py run as plain Python: the source the extension is built from,
    loaded under another name so that the compiled build stays `amteach.sim.kernel`."""
    source = Path(core.__file__).with_name("kernel.py")
    spec = importlib.util.spec_from_file_location("amteach_kernel_uncompiled", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


UNCOMPILED = uncompiled_kernel()

# every table of bots and tax behaviours the suite plays (tests/test_*.py)
MIXES = {
    "four investors (the default)": "competitor:investor,monopolist:investor,"
    "competitor:investor,monopolist:investor",
    "test_sim MIXED": "competitor:investor,monopolist:builder:flat,"
    "competitor:cautious:percent,monopolist:random",
    "test_fairness MIXED": "competitor:investor,monopolist:builder,"
    "competitor:cautious,monopolist:investor",
    "test_tax_analysis SEATS": "competitor:cautious:flat,monopolist:cautious:percent,"
    "competitor:cautious:percent,monopolist:cautious:cheaper,competitor:cautious,"
    "monopolist:cautious:flat",
    "test_inequality": "competitor:builder,monopolist:investor",
    "all random": "competitor:random:flat,monopolist:random:percent,competitor:random",
    "family (the start) against investors": "competitor:family,monopolist:investor,"
    "competitor:family,monopolist:investor",
    "family strategies of every kind": "competitor:family:houses=2/apartments=no/tax=flat/"
    "key_streets=block/build_order=rent/raise_first=titles,monopolist:family:offer=6/"
    "accept=1/builds_per_turn=1/fine_cash=0/streets=always/utilities=never,"
    "competitor:cautious,monopolist:family:reserve=0/redeem_reserve=0/final_adjust=no/"
    "transports=never/accept=5/offer=0",
}


def both_cores(
    seats, games: int, seed: int = 0, rules: RuleSet | None = None, first: int = 0, **options
) -> tuple[dict, dict]:
    """The same games on the compiled and the pure-Python core: their tables of arrays (games
    `first` to `first + games - 1` of the batch: a game's seed depends on its index only)."""
    rules = rules or RuleSet.preset("default", round_cap=200)
    one_role = options.pop("allow_one_role", False)
    config = BatchConfig(
        parse_seats(seats, allow_one_role=one_role),
        rules.to_dict(),
        seed,
        allow_one_role=one_role,
        **options,
    )
    return (
        compiled_chunk(KERNEL, first, first + games, config, rules),
        python_chunk(first, first + games, config, rules),
    )


def assert_identical(compiled: dict, pure: dict) -> None:
    assert compiled.keys() == pure.keys()
    for table, columns in pure.items():
        assert compiled[table].keys() == columns.keys(), table
        for column, values in columns.items():
            other = compiled[table][column]
            assert other.dtype == values.dtype, (table, column)
            if not np.array_equal(other, values):
                rows = np.flatnonzero(other != values) if len(other) == len(values) else []
                raise AssertionError(
                    f"{table}.{column} differs between the cores"
                    + (f" first at row {rows[0]}" if len(rows) else " (lengths differ)")
                )


# -- chance ------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**63 + 5])
def test_the_kernels_random_stream_is_cpythons(seed: int):
    """Mersenne Twister seeded from an int, random() and _randbelow (shuffle, choice and
    randint are built on it), draw for draw."""
    stream = random.Random(seed)
    expected = []
    for i in range(3000):
        expected.append(stream.random())
        expected.append(stream._randbelow(1 + i % 50))
    assert KERNEL.random_stream(seed, 3000) == expected
    # uncompiled, every 32-bit step is masked, so plain Python draws the same numbers
    assert UNCOMPILED.random_stream(seed, 300) == expected[:600]


# -- the kernel uncompiled ---------------------------------------------------------------------


def test_the_kernel_module_is_the_compiled_build():
    """Batches run the extension built from kernel.py and kernel.pxd (the loader picks it
    over kernel.py), and it knows the digest of the sources it was built from."""
    assert KERNEL.COMPILED is True
    assert not KERNEL.__file__.endswith(".py")
    assert UNCOMPILED.COMPILED is False
    assert UNCOMPILED.SOURCE_SHA256 is None
    assert core.sources_digest(core.kernel_sources()) == KERNEL.SOURCE_SHA256


def test_the_engine_runs_the_compiled_rules_core_too():
    """The rules core (amteach/engine/core.py, compiled with core.pxd) is the build Game calls
    and the kernel cimports, and it knows the digest of the sources it was built from."""
    rules_core = builds.rules_core()
    assert rules_core.COMPILED is True
    assert rules_core is game_module.core is KERNEL.core
    assert builds.sources_digest(builds.core_sources()) == rules_core.SOURCE_SHA256
    assert UNCOMPILED.core is builds.source_core()
    assert builds.source_core().COMPILED is False


def test_a_stale_rules_core_is_never_used(monkeypatch):
    """A core.py or core.pxd edited after the build: the engine runs core.py as plain Python,
    and batches run on pure Python (the kernel's build cimports the stale core), both saying
    so."""
    rules_core = builds.rules_core()
    monkeypatch.setattr(rules_core, "SOURCE_SHA256", "0" * 64)
    builds.rules_core.cache_clear()
    core.kernel.cache_clear()
    try:
        with pytest.warns(builds.StaleCoreWarning, match="older than"):
            assert builds.rules_core() is builds.source_core()
        assert core.kernel() is None
        assert core.core_name() == "pure Python"
    finally:
        monkeypatch.undo()
        builds.rules_core.cache_clear()
        core.kernel.cache_clear()
    assert builds.rules_core() is rules_core
    assert core.kernel() is KERNEL


def test_the_kernels_array_sizes_are_declared_alike_in_both_files():
    """kernel.pxd and core.pxd write their array sizes as numbers and kernel.py and core.py
    as names (MAX_SPACES, ...): every C array declared in a .pxd has the size of the list its
    .py makes for it, so raising a limit on one side only (a C array overrun when compiled)
    fails here."""
    declared = re.compile(r"^cdef class (\w+)(?:\([\w.]+\))?:|^    cdef \w+ (\w+)((?:\[\d+\])+)$")
    arrays = []
    for module, pxd in (
        (UNCOMPILED, Path(core.__file__).with_name("kernel.pxd")),
        (builds.source_core(), builds.core_sources()[1]),
        (bots_builds.source_decisions(), bots_builds.decisions_sources()[1]),
    ):
        cls = None
        for line in pxd.read_text().splitlines():
            match = declared.match(line)
            if match and match.group(1):
                cls = match.group(1)
            elif match:
                sizes = [int(size) for size in re.findall(r"\d+", match.group(3))]
                arrays.append((module, cls, match.group(2), sizes))
    assert len(arrays) > 60  # every class's arrays were read
    assert {cls for _, cls, _, _ in arrays} >= {"Tables", "Static", "State", "Context", "BotState"}
    for module, cls, name, sizes in arrays:
        value = getattr(getattr(module, cls)(), name)
        for size in sizes:
            assert len(value) == size, f"{cls}.{name}: {len(value)} in the .py, {size} in .pxd"
            value = value[0]


@pytest.mark.parametrize("mix", list(MIXES))
def test_the_uncompiled_kernel_gives_the_compiled_frames(mix: str):
    """One source, two builds: kernel.py as plain Python plays the compiled build's games,
    every column of every frame (a few games per table: plain Python runs it slowly)."""
    rules = RuleSet.preset("default", round_cap=200)
    config = BatchConfig(parse_seats(MIXES[mix]), rules.to_dict(), 26)
    compiled = compiled_chunk(KERNEL, 0, 10, config, rules)
    plain = compiled_chunk(UNCOMPILED, 0, 10, config, rules)
    assert_identical(compiled, plain)
    assert len(plain["games"]["game"]) == 10
    assert len(plain["rounds"]["round"]) > 10 * 4  # the games were played, not empty tables


# -- frames from both cores --------------------------------------------------------------------


# 60 games a table (120 until issue 40): a game of 2 to 6 bots is some 100 to 200 rounds, so 60
# games give each bot and tax behaviour of a table thousands of decisions on both cores; the
# pure-Python side is the cost (about 0.03 CPU-s a game). The default table is compared on
# 2,000 seeds below, any table in the property tests, and every table on 2,000 seeds in
# benchmarks/diff_cores.py (by hand after a change to the rules, the bots or the kernel).
FRAMES_GAMES = 60


@pytest.mark.parametrize("mix", list(MIXES))
def test_both_cores_give_identical_frames(mix: str):
    compiled, pure = both_cores(MIXES[mix], games=FRAMES_GAMES, seed=7)
    assert_identical(compiled, pure)
    assert len(compiled["games"]["game"]) == FRAMES_GAMES


# 2,000 games of the default table (the dashboard's and the benchmark's), default rules and the
# default round cap, every column of every frame. The same for every table of the suite is
# benchmarks/diff_cores.py (about 7 CPU-minutes, too long for every run). The same 2,000 games
# as one test took 96 s of one worker (the slowest test of the suite): they are played in four
# blocks of 500, each a class, because `./dev test` (--dist loadscope) gives each class to one
# worker, so the blocks run on whichever workers are free; each block is five tests of 100
# games, so that a worker given a block has more than two tests to run and does not take the
# next block too (xdist hands a worker another scope when it has two tests or fewer left).
# Game i's seed is game_seed(14, i) whatever the block, so these are the 2,000 games the one
# test played (test_the_blocks_are_the_2000_games_once_each).
SEEDS_BLOCK = 500
SEEDS_PART = 100


class _BothCoresAgreeOn2000Seeds:
    first = 0  # the block's first game

    @pytest.mark.slow
    @pytest.mark.parametrize("part", range(SEEDS_BLOCK // SEEDS_PART))
    def test_both_cores_agree_on_2000_seeds(self, part: int):
        first = self.first + part * SEEDS_PART
        seats = MIXES["four investors (the default)"]
        compiled, pure = both_cores(seats, games=SEEDS_PART, seed=14, first=first)
        assert_identical(compiled, pure)
        assert compiled["games"]["game"].tolist() == list(range(first, first + SEEDS_PART))


class TestGames0To499(_BothCoresAgreeOn2000Seeds):
    first = 0


class TestGames500To999(_BothCoresAgreeOn2000Seeds):
    first = 500


class TestGames1000To1499(_BothCoresAgreeOn2000Seeds):
    first = 1000


class TestGames1500To1999(_BothCoresAgreeOn2000Seeds):
    first = 1500


def test_the_blocks_are_the_2000_games_once_each():
    blocks = _BothCoresAgreeOn2000Seeds.__subclasses__()
    games = sorted(
        block.first + part * SEEDS_PART + offset
        for block in blocks
        for part in range(SEEDS_BLOCK // SEEDS_PART)
        for offset in range(SEEDS_PART)
    )
    assert games == list(range(2000))
    # game i of a block is game i of the whole batch: its seed depends on i only
    rules = RuleSet.preset("default", round_cap=200)
    config = BatchConfig(parse_seats(MIXES["four investors (the default)"]), rules.to_dict(), 14)
    whole = compiled_chunk(KERNEL, 0, 6, config, rules)
    part = compiled_chunk(KERNEL, 3, 6, config, rules)
    for column, values in part["games"].items():
        assert values.tolist() == whole["games"][column][-len(values) :].tolist(), column


@pytest.mark.parametrize(
    ("mix", "rules", "game_type"),
    [
        ("test_sim MIXED", "edition-2005", "B"),
        ("all random", "default", "two-hour"),
        ("test_fairness MIXED", "edition-2005", "two-hour"),
        ("four investors (the default)", "default", "B"),
    ],
)
def test_both_cores_agree_on_every_ending_and_preset(mix: str, rules: str, game_type: str):
    compiled, pure = both_cores(
        MIXES[mix], 100, 3, RuleSet.preset(rules, round_cap=60), game_type=game_type
    )
    assert_identical(compiled, pure)


def test_both_cores_agree_on_a_table_of_one_role_and_without_round_rows():
    seats = ["monopolist:investor"] * 3 + ["monopolist:builder:percent"]
    assert_identical(*both_cores(seats, 60, 5, allow_one_role=True))
    assert_identical(*both_cores(MIXES["test_sim MIXED"], 60, 5, record_rounds=False))


@st.composite
def tables(draw: st.DrawFn) -> str:
    n = draw(st.integers(2, 6))
    competitors = draw(st.sampled_from(sorted({n // 2, n - n // 2})))
    roles = draw(st.permutations(["competitor"] * competitors + ["monopolist"] * (n - competitors)))
    bots = st.sampled_from(["cautious", "builder", "investor", "random"])
    taxes = st.sampled_from(["cheaper", "flat", "percent"])
    return ",".join(f"{role}:{draw(bots)}:{draw(taxes)}" for role in roles)


def family_knobs() -> st.SearchStrategy[str]:
    """Any family strategy: every knob anywhere on its grid."""
    return st.tuples(*(st.integers(0, knob.size - 1) for knob in KNOBS)).map(
        lambda grid: FamilyParams.from_grid(grid).text()
    )


@st.composite
def family_tables(draw: st.DrawFn) -> list[str]:
    """A table of 2 to 6 seats where most seats are family bots with any knobs."""
    roles = draw(tables()).split(",")
    seats = []
    for seat in roles:
        role = seat.split(":")[0]
        if draw(st.integers(0, 3)):
            seats.append(f"{role}:family:{draw(family_knobs())}")
        else:
            seats.append(seat)
    return seats


# 60 examples of 4 games each, whatever the hypothesis profile: 240 random tables and rule
# sets a run (a few CPU-seconds), new ones every run; the "thorough" profile's depth for the cores
# is benchmarks/diff_cores.py.
@settings(max_examples=60, deadline=None)
@given(
    seats=family_tables(),
    seed=st.integers(0, 2**40),
    overrides=st.fixed_dictionaries(
        {
            "round_cap": st.integers(1, 80),
            "monopoly_streets": st.integers(1, 3),
            "held_turns_before_forced_fine": st.integers(0, 3),
            "starting_cash": st.sampled_from([200, 1500, 5000]),
            "supply_houses": st.integers(0, 35),
            "max_houses_monopolist": st.integers(1, 3),
        }
    ),
    preset=st.sampled_from(["default", "edition-2005"]),
)
def test_both_cores_agree_on_any_family_strategy(seats, seed, overrides, preset):
    """Family bots with random knobs (issue 15): every column identical, no invariant broken."""
    rules = RuleSet.preset(preset, **overrides)
    compiled, pure = both_cores(seats, 4, seed, rules, check_invariants=True)
    assert_identical(compiled, pure)
    assert compiled["checks"]["violations"][0] == 0


@settings(max_examples=60, deadline=None)  # as the family tables above
@given(
    seats=tables(),
    seed=st.integers(0, 2**40),
    overrides=st.fixed_dictionaries(
        {
            "round_cap": st.integers(1, 80),
            "building_supply": st.sampled_from(["limited", "unlimited"]),
            "supply_houses": st.integers(0, 35),
            "supply_apartments": st.integers(0, 15),
            "monopoly_streets": st.integers(1, 3),
            "held_turns_before_forced_fine": st.integers(0, 3),
            "foundation_monopolist_fee": st.sampled_from([0, 10, 160]),
            "starting_cash": st.sampled_from([200, 1500, 5000]),
            "start_payment": st.sampled_from([0, 100]),
        }
    ),
    preset=st.sampled_from(["default", "edition-2005"]),
    game_type=st.sampled_from(["A", "B", "two-hour"]),
)
def test_both_cores_agree_on_any_table_and_rules(seats, seed, overrides, preset, game_type):
    rules = RuleSet.preset(preset, **overrides)
    compiled, pure = both_cores(seats, 4, seed, rules, game_type=game_type, check_invariants=True)
    assert_identical(compiled, pure)
    assert compiled["checks"]["violations"][0] == 0


# -- choosing the core -------------------------------------------------------------------------


def test_the_kernel_knows_every_bot_and_rule_parameter():
    """A bot or rule parameter added to the Python side must be added to kernel.py (and to
    KERNEL_BOTS / KERNEL_RULES in sim/play.py); until then such batches play on pure Python."""
    assert set(STRATEGIES) == KERNEL_BOTS, "teach amteach/sim/kernel.py the new bot"
    fields = {f.name for f in dataclasses.fields(RuleSet)}
    assert fields == KERNEL_RULES, "teach amteach/sim/kernel.py the new rule parameter"
    config = BatchConfig(parse_seats(None), RuleSet.preset("default").to_dict(), 1)
    assert kernel_plays(config)
    unknown = BatchConfig(config.seats, {**config.rules, "free_parking": 500}, 1)
    assert not kernel_plays(unknown)


def run_amteach(*args: str, pure: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != core.PURE_PYTHON_ENV}
    if pure:
        env[core.PURE_PYTHON_ENV] = "1"
    return subprocess.run(
        [sys.executable, "-m", "amteach.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_version_names_the_core_in_use():
    pure = run_amteach("--version", pure=True)
    assert pure.returncode == 0
    assert pure.stdout.strip().endswith("core: pure Python")
    assert pure.stdout.startswith("amteach ")
    default = run_amteach("--version", pure=False)
    built = importlib.util.find_spec("amteach.sim.kernel") is not None
    assert default.stdout.strip().endswith(f"core: {'compiled' if built else 'pure Python'}")


def test_the_compiled_core_is_in_use_where_a_compiler_is():
    """`./dev test` builds the core: where a C compiler exists a run must have it, so a
    failed or stale build cannot pass unnoticed as a pure-Python run."""
    compiler = shutil.which(sysconfig.get_config_var("CC").split()[0] or "cc")
    assert os.environ.get(core.PURE_PYTHON_ENV, "") in ("", "0")
    assert core.core_name() == ("compiled" if compiler else "pure Python")
    assert simulate(games=2, workers=1, progress=False).meta["core"] == core.core_name()


def test_a_stale_build_is_never_used(tmp_path, monkeypatch):
    """A kernel.py or kernel.pxd edited after the build: the core falls back to pure Python
    and says so."""
    monkeypatch.setattr(KERNEL, "SOURCE_SHA256", "0" * 64)
    core.kernel.cache_clear()
    try:
        with pytest.warns(core.StaleCoreWarning, match="older than"):
            assert core.kernel() is None
        assert core.core_name() == "pure Python"
    finally:
        monkeypatch.undo()
        core.kernel.cache_clear()
    assert core.kernel() is KERNEL


def test_a_build_of_the_old_hand_written_kernel_is_stale_not_an_error(monkeypatch):
    """A checkout updated past kernel.pyx with its old build still in place: that build has no
    COMPILED flag and an older digest; batches fall back to pure Python with the warning
    (not an AttributeError) until `./dev` rebuilds it."""
    old_build = ModuleType("amteach.sim.kernel")
    old_build.SOURCE_SHA256 = "1" * 64
    monkeypatch.setitem(sys.modules, "amteach.sim.kernel", old_build)
    monkeypatch.setattr(sys.modules["amteach.sim"], "kernel", old_build, raising=False)
    core.kernel.cache_clear()
    try:
        with pytest.warns(core.StaleCoreWarning, match="older than"):
            assert core.kernel() is None
    finally:
        monkeypatch.undo()
        core.kernel.cache_clear()
    assert core.kernel() is KERNEL


def test_the_build_digest_covers_the_kernel_and_the_rules_core(tmp_path):
    """An edit to kernel.py, kernel.pxd, the rules core's core.py or core.pxd, or the bots'
    core.py or core.pxd (a type, an array size) changes the digest the kernel's build is
    checked against, so any of them makes the build stale; setup.py hashes the same files in
    the same order."""
    sources = core.kernel_sources()
    assert [path.name for path in sources] == [
        "kernel.py",
        "kernel.pxd",
        "core.py",
        "core.pxd",
        "core.py",
        "core.pxd",
    ]
    assert [path.parent.name for path in sources[2:]] == ["engine", "engine", "bots", "bots"]
    setup_py = (Path(core.__file__).parents[2] / "setup.py").read_text()
    assert (
        'KERNEL_SOURCES = (KERNEL, KERNEL.with_suffix(".pxd"), *CORE_SOURCES, *BOTS_SOURCES[:2])'
        in setup_py
    )
    copies = [tmp_path / f"{i}-{path.name}" for i, path in enumerate(sources)]
    for path, copy in zip(sources, copies, strict=True):
        copy.write_bytes(path.read_bytes())
    assert core.sources_digest(copies) == core.sources_digest(sources)
    digests = {core.sources_digest(copies)}
    for copy in copies:
        with copy.open("a") as source:
            source.write("\n# an edit\n")
        digests.add(core.sources_digest(copies))
    assert len(digests) == 1 + len(sources)


def test_a_large_batch_on_pure_python_warns_once(monkeypatch):
    monkeypatch.setattr(core, "kernel", lambda: None)
    monkeypatch.setattr(runner, "_warned", False)
    monkeypatch.setattr(runner, "PURE_PYTHON_WARN_GAMES", 3)
    with pytest.warns(runner.PurePythonWarning, match="pure-Python core"):
        first = simulate(games=3, workers=1, progress=False, round_cap=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = simulate(games=3, workers=1, progress=False, round_cap=5)
        simulate(games=2, workers=1, progress=False, round_cap=5)  # small: never warns
    assert first.meta["core"] == second.meta["core"] == "pure Python"


def test_frames_are_identical_whatever_the_core_and_the_workers(monkeypatch):
    seats = MIXES["test_sim MIXED"]
    options = {"games": 40, "seats": seats, "seed": 9, "progress": False, "round_cap": 80}
    results = [simulate(workers=1, **options), simulate(workers=2, **options)]
    monkeypatch.setattr(core, "kernel", lambda: None)
    results += [simulate(workers=1, **options), simulate(workers=2, **options)]
    assert [r.meta["core"] for r in results[2:]] == ["pure Python", "pure Python"]
    for other in results[1:]:
        for table in ("games", "players", "rounds", "taxes"):
            assert getattr(results[0], table).equals(getattr(other, table)), table


# -- invariants --------------------------------------------------------------------------------


def test_invariant_violations_names_what_broke():
    game = Game(
        Setup(
            players=(PlayerSetup("Ana", COMPETITOR), PlayerSetup("Ben", MONOPOLIST)),
            rules=RuleSet.preset("default"),
            seed=1,
        )
    )
    assert game.state.invariant_violations() == []
    poke(game, cash={0: -5}, held={1: 0}, owner={1: 1}, houses={1: 2})
    broken = game.state.invariant_violations()
    assert any("negative cash" in line for line in broken)
    assert any("is held but stands" in line for line in broken)
    assert any("cash plus the Treasury" in line for line in broken)
    assert any("without a monopoly" in line for line in broken)
    assert any("houses and" in line for line in broken)


@pytest.mark.parametrize("pure", [False, True])
def test_simulate_check_invariants_reports_the_count(pure: bool, monkeypatch):
    if pure:
        monkeypatch.setattr(core, "kernel", lambda: None)
    result = CliRunner().invoke(
        main,
        [
            "simulate",
            "--games",
            "6",
            "--round-cap",
            "40",
            "--workers",
            "1",
            "--quiet",
            "--check-invariants",
            "--seats",
            MIXES["test_sim MIXED"],
        ],
    )
    assert result.exit_code == 0, result.output
    assert "0 violations." in result.stdout
    assert ("pure Python core" if pure else f"{core.core_name()} core") in result.stdout


def test_simulate_check_invariants_exits_1_on_a_violation(monkeypatch):
    """A broken rule shows up as a count and exit status 1 (a pure-Python engine that loses
    money on every decision stands in for one)."""
    monkeypatch.setattr(core, "kernel", lambda: None)
    monkeypatch.setattr(StateView, "invariant_violations", lambda self: ["money was lost"])
    result = CliRunner().invoke(
        main,
        [
            "simulate",
            "--games",
            "2",
            "--round-cap",
            "3",
            "--workers",
            "1",
            "--quiet",
            "--check-invariants",
        ],
    )
    assert result.exit_code == 1
    decisions = int(
        result.stdout.split("after each of ")[1].split(" decisions")[0].replace(",", "")
    )
    assert f"{decisions:,} violations." in result.stdout
