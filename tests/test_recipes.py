"""docs/architecture.md's recipe "Add a rule parameter", followed on a scratch copy.

The test reads the recipe's numbered steps from docs/architecture.md and, for every file a step
names, makes that step's edit for a made-up parameter, `start_fee` (a fee taken from the START
payment), on a copy of amteach/ (and of the docs and tests the recipe names) in a temporary
folder. One python subprocess then imports the copy and checks every place a rule parameter
must reach: the presets, the checks on its values, the engine, a scenario's rules, the Rules
tab's table and words, docs/rules.md, a rules test that plays it, the compiled core's list of
known parameters, and the core comparison's values; and what the recipe says follows by itself
(`amteach rules --set`, saves, a batch, the dashboard's sweep list).

A file the recipe leaves out gets no edit, so its check fails: the recipe must be complete.
`test_every_step_of_the_recipe_is_needed` leaves out each edit in turn and shows that its check
then fails, so no check passes whatever the recipe says.

The copy runs on the pure-Python core (AMTEACH_PURE_PYTHON=1, and no compiled module is
copied): compiling the kernel takes minutes. The compiled core's step is followed all the same:
its source, amteach/sim/kernel.py, runs as plain Python, and the check "kernel" plays the fee on
it and requires the engine's frames; amteach/engine/core.pxd, which only a compiled build
reads, is checked by "kernel declarations": every whole-number rule parameter, which
`fill_tables` copies into the rules' tables by name, is declared there (a compiled build's
`fill_tables` refuses a field missing from it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RECIPE = REPO / "docs" / "architecture.md"
RECIPE_TITLE = "### Add a rule parameter"
NAME = "start_fee"

Edit = Callable[[str], str]


def insert_after(line_pattern: str, addition: str) -> Edit:
    """An edit that adds `addition` after the one line matching `line_pattern`."""

    def edit(text: str) -> str:
        found = list(re.finditer(line_pattern + r".*\n", text, flags=re.M))
        assert len(found) == 1, f"expected one line matching {line_pattern!r}, found {len(found)}"
        end = found[0].end()
        return text[:end] + addition + text[end:]

    return edit


def replace_once(old: str, new: str) -> Edit:
    def edit(text: str) -> str:
        assert text.count(old) == 1, f"expected {old!r} once, found it {text.count(old)} times"
        return text.replace(old, new)

    return edit


def append(addition: str) -> Edit:
    return lambda text: text.rstrip("\n") + "\n" + addition


def chain(*edits: Edit) -> Edit:
    def edit(text: str) -> str:
        for one in edits:
            text = one(text)
        return text

    return edit


RULE_TEST = f'''

def test_param_{NAME}():
    """Parameter 'START fee' (made up by tests/test_recipes.py): taken from the START payment."""
    game = scenario(two(ana={{"position": 36}}), ["roll"], dice=[[2, 3]], rules=rules({NAME}=30))
    assert game.cash[0] == 1500 + 100 - 30
'''

# What each file of the recipe gets for the made-up parameter, and the checks (in CHECKS below)
# that fail without it.
EDITS: dict[str, tuple[Edit, tuple[str, ...]]] = {
    "amteach/data/rules.yaml": (insert_after(r"^  start_payment:", f"  {NAME}: 0\n"), ("presets",)),
    "amteach/engine/rules.py": (
        chain(
            insert_after(r"^    start_payment: int", f"    {NAME}: int\n"),
            insert_after(r'^    "start_payment",', f'    "{NAME}",\n'),  # _NON_NEGATIVE_INTS
        ),
        ("values", "refusals"),
    ),
    "amteach/engine/core.py": (
        replace_once(
            "game.treasury_pays(p, t.start_payment, P_START, 0)\n",
            f"game.treasury_pays(p, max(0, t.start_payment - t.{NAME}), P_START, 0)\n",
        ),
        ("engine", "kernel"),
    ),
    "amteach/analysis/rules_table.py": (
        chain(
            insert_after(
                r'^    "start_payment": ',
                f'    "{NAME}": ("the fee taken from the START payment", "$"),\n',
            ),
            replace_once(
                '_money(r.start_payment), None, "start_payment")',
                f'_money(r.start_payment - r.{NAME}), None, "start_payment", "{NAME}")',
            ),
        ),
        ("rules table",),
    ),
    "docs/rules.md": (
        insert_after(
            r"^\| `start_payment` \|", f"| `{NAME}` | 0 | taken from the START payment |\n"
        ),
        ("docs",),
    ),
    "tests/test_rules_parameters.py": (append(RULE_TEST), ("rules test",)),
    "amteach/sim/play.py": (
        insert_after(r"^KERNEL_RULES = frozenset\(\n    \{", f'        "{NAME}",\n'),
        ("compiled core's list",),
    ),
    "amteach/engine/core.pxd": (
        insert_after(r"^    cdef public int start_payment", f"    cdef public int {NAME}\n"),
        ("kernel declarations",),
    ),
    "tests/test_core_rules.py": (
        chain(
            insert_after(r"^TEST_VALUES: .*\{", f'    "{NAME}": 21,\n'),
            insert_after(r"^RANGES: .*\{", f'    "{NAME}": st.integers(0, 400),\n'),
        ),
        ("core comparison",),
    ),
}

# Files the recipe names that get no edit here, and why.
NOT_EDITED = {
    "amteach/engine/refusals.py": "the fee makes no choice illegal",
    "amteach/engine/setup_schema.py": "a set-up's rules go through RuleSet (checked: 'scenarios')",
    "tests/test_core.py": "it checks KERNEL_RULES, which the check 'compiled core's list' repeats",
    "amteach/engine/game.py": "the START payment is in the turn flow, written once in "
    "core.move_to (step 3): Game runs it there",
    "amteach/sim/kernel.py": "the kernel runs core.move_to too, so the fee reaches it through "
    "the rules' tables",
}

# What the recipe says follows by itself: checked on the whole recipe only.
FOLLOWS = ("scenarios", "saves", "command line", "batch", "sweep list")

# Run in the subprocess, on each copy: the checks named on the command line, one report each.
CHECKER = r"""
import json, sys, traceback
from pathlib import Path

NAME = "start_fee"
sys.dont_write_bytecode = True


def check_presets():
    from amteach import RuleSet, preset_names

    for preset in preset_names():
        assert RuleSet.preset(preset).start_fee == 0, preset


def check_values():
    from amteach import RuleSet

    assert RuleSet.preset("default", start_fee=30).start_fee == 30
    assert RuleSet.preset("default", start_fee="45").start_fee == 45  # as typed in --set
    assert RuleSet.preset("default", start_fee=30).changed_from_default() == {NAME: 30}


def check_refusals():
    from amteach import RuleSet, RulesError

    RuleSet.preset("default", start_fee=0)  # a known parameter, so the refusals are its checks
    for bad in (-1, "lots", 2.5, True):
        try:
            RuleSet.preset("default", start_fee=bad)
        except RulesError as err:
            assert NAME in str(err) and "must be" in str(err), str(err)
        else:
            raise AssertionError(f"{bad!r} was taken")


def played(fee=None):
    from amteach.engine.scenario import load_scenario, play_script

    rules = {"preset": "default"} if fee is None else {"preset": "default", NAME: fee}
    players = [
        {"name": "Ana", "role": "competitor", "position": 36},
        {"name": "Ben", "role": "monopolist"},
    ]
    game, _ = load_scenario({"players": players, "dice": [[2, 3]], "rules": rules})
    return play_script(game, ["roll"])


def check_engine():
    assert played().cash[0] == 1600  # the START payment, no fee by default
    assert played(30).cash[0] == 1570
    assert played(500).cash[0] == 1500  # never below nothing


def check_scenarios():
    from amteach import ScenarioError

    try:
        played(-5)
    except ScenarioError as err:
        assert f"rules.{NAME}" in str(err), str(err)
    else:
        raise AssertionError("a negative fee was taken")


def check_saves():
    from amteach import Game

    again = Game.from_save(json.loads(json.dumps(played(30).to_save())))
    assert again.rules.start_fee == 30
    assert again.cash[0] == 1570


def check_rules_table():
    from amteach import RuleSet
    from amteach.analysis.rules_table import PARAMETER_WORDS, parameter_words, rules_table

    assert NAME in PARAMETER_WORDS and parameter_words(NAME) != NAME.replace("_", " ")
    rows = [row for row in rules_table(RuleSet.preset("default", start_fee=30)) if NAME in row.parameters]
    assert rows, "no row of the rules table names the parameter"
    assert any(NAME in row.changed and "$70" in row.competitor for row in rows), rows


def check_docs():
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert f"| `{NAME}` | 0 |" in text


def check_rules_test():
    import test_rules_parameters

    getattr(test_rules_parameters, f"test_param_{NAME}")()


def check_compiled_cores_list():
    import dataclasses

    from amteach import RuleSet
    from amteach.sim.play import KERNEL_RULES

    assert KERNEL_RULES == {f.name for f in dataclasses.fields(RuleSet)}


def check_core_comparison():
    import test_core_rules

    test_core_rules.test_every_rule_parameter_has_a_test_value_and_a_range()
    test_core_rules.test_test_values_differ_from_every_default()


def check_command_line():
    from click.testing import CliRunner

    from amteach.cli import main

    result = CliRunner().invoke(main, ["rules", "--set", f"{NAME}=30"])
    assert result.exit_code == 0, result.output
    assert any(line.split() == [NAME, "30", "*"] for line in result.output.splitlines()), result.output


def check_batch():
    from amteach.sim import simulate

    def cash(fee):
        result = simulate(games=3, rules={NAME: fee}, seed=5, workers=1, round_cap=12, progress=False)
        assert result.meta["core"] == "pure Python"
        return result.players["final_cash"].tolist()

    assert cash(0) != cash(80), "the fee changed no game of the batch"


def check_sweep_list():
    from amteach.ui.economics import sweepable_parameters

    assert NAME in sweepable_parameters()


def check_kernel():
    import importlib.util

    import numpy as np

    import amteach.sim
    from amteach import RuleSet
    from amteach.sim.play import BatchConfig, compiled_chunk, python_chunk
    from amteach.sim.runner import parse_seats

    source = Path(amteach.sim.__file__).with_name("kernel.py")
    spec = importlib.util.spec_from_file_location("recipe_kernel_uncompiled", source)
    kernel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernel)
    seats = parse_seats("competitor:investor,monopolist:investor,competitor:builder")

    def frames(chunk, fee):
        rules = RuleSet.preset("default", round_cap=12, **{NAME: fee})
        return chunk(0, 3, BatchConfig(seats, rules.to_dict(), 5), rules)

    kernel_chunk = lambda *a: compiled_chunk(kernel, *a)  # noqa: E731
    plays = frames(kernel_chunk, 30)
    assert not np.array_equal(
        plays["players"]["final_cash"], frames(kernel_chunk, 0)["players"]["final_cash"]
    ), "the fee changed no game on the kernel"
    engine = frames(python_chunk, 30)
    for table, columns in engine.items():
        for column, values in columns.items():
            assert np.array_equal(plays[table][column], values), (table, column)


def check_kernel_declarations():
    import re

    import amteach.engine
    from amteach import RuleSet
    from amteach.engine.builds import source_core

    folder = Path(amteach.engine.__file__).parent
    whole = set(source_core().whole_number_rules(RuleSet.preset("default", round_cap=200)))
    declarations = (folder / "core.pxd").read_text().split("cdef class Tables", 1)[1]
    declarations = declarations.split("\ncpdef ", 1)[0]
    declared = set(re.findall(r"^    cdef public int (\w+)$", declarations, flags=re.M))
    assert NAME in whole and whole <= declared, sorted(whole - declared)


CHECKS = {
    "presets": check_presets,
    "values": check_values,
    "refusals": check_refusals,
    "engine": check_engine,
    "scenarios": check_scenarios,
    "saves": check_saves,
    "rules table": check_rules_table,
    "docs": check_docs,
    "rules test": check_rules_test,
    "compiled core's list": check_compiled_cores_list,
    "kernel": check_kernel,
    "kernel declarations": check_kernel_declarations,
    "core comparison": check_core_comparison,
    "command line": check_command_line,
    "batch": check_batch,
    "sweep list": check_sweep_list,
}

reports = {}
for root, names in json.loads(sys.argv[1]):
    ROOT = Path(root)
    for module in [m for m in sys.modules if m.split(".")[0] in ("amteach", "conftest") or m.startswith("test_")]:
        del sys.modules[module]
    sys.path[:0] = [root, str(ROOT / "tests")]
    import amteach

    assert Path(amteach.__file__).is_relative_to(ROOT), amteach.__file__
    report = {}
    for name in names:
        try:
            CHECKS[name]()
            report[name] = "ok"
        except BaseException as err:  # noqa: BLE001 - each check reports, whatever broke
            report[name] = "".join(traceback.format_exception_only(err)).strip()[:600]
    reports[root] = report
    del sys.path[:2]
print(json.dumps(reports))
"""
ALL_CHECKS = tuple(dict.fromkeys(c for _, checks in EDITS.values() for c in checks)) + FOLLOWS


def recipe_steps() -> list[list[str]]:
    """The files each numbered step of the recipe names, in the recipe's order."""
    text = RECIPE.read_text(encoding="utf-8")
    assert RECIPE_TITLE in text, f"docs/architecture.md has no {RECIPE_TITLE!r} section"
    section = text.split(RECIPE_TITLE, 1)[1].split("\n### ", 1)[0]
    steps = re.split(r"^\d+\. ", section, flags=re.M)[1:]
    return [re.findall(r"`((?:amteach|docs|tests)/[\w/.-]+\.\w+)`", step) for step in steps]


def scratch_copy(folder: Path, edits: list[str]) -> Path:
    """amteach/ and the files the recipe edits outside it, copied into `folder`, with `edits`
    made in that order."""
    shutil.copytree(
        REPO / "amteach",
        folder / "amteach",
        symlinks=True,
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.c", "*.pyd", "best_play"),
    )
    for path in [*EDITS, "tests/conftest.py"]:
        if not path.startswith("amteach/"):
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / path, folder / path)
    for path in edits:
        target = folder / path
        edit, _ = EDITS[path]
        try:
            target.write_text(edit(target.read_text(encoding="utf-8")), encoding="utf-8")
        except AssertionError as err:
            raise AssertionError(
                f"the recipe's edit of {path} no longer fits the code ({err}): "
                "update the recipe in docs/architecture.md and EDITS here together"
            ) from None
    return folder


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """The checks' reports: on the copy with the recipe followed ("recipe"), and on copies
    with one edit left out (named by the file it leaves out). One subprocess runs them all."""
    named = [path for step in recipe_steps() for path in step]
    followed = [path for path in dict.fromkeys(named) if path in EDITS]
    folders = {"recipe": scratch_copy(tmp_path_factory.mktemp("recipe"), followed)}
    plan = [(str(folders["recipe"]), list(ALL_CHECKS))]
    for left_out, (_, checks) in EDITS.items():
        kept = [path for path in EDITS if path != left_out]
        folders[left_out] = scratch_copy(tmp_path_factory.mktemp("without"), kept)
        plan.append((str(folders[left_out]), list(checks)))
    env = {**os.environ, "AMTEACH_PURE_PYTHON": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        [sys.executable, "-c", CHECKER, json.dumps(plan)],
        cwd=tmp_path_factory.mktemp("cwd"),
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    by_folder = json.loads(done.stdout.strip().splitlines()[-1])
    return {key: by_folder[str(folder)] for key, folder in folders.items()}


def test_the_recipe_names_only_files_this_test_knows():
    """Every file the recipe names gets an edit here or a reason it needs none, so a new step
    in the recipe comes with its edit in this test."""
    named = {path for step in recipe_steps() for path in step}
    assert named, "the recipe names no files"
    unknown = sorted(named - set(EDITS) - set(NOT_EDITED))
    assert not unknown, f"the recipe names {unknown}: give EDITS their edit for {NAME}"
    for path in named:
        assert (REPO / path).is_file(), f"the recipe names {path}, which does not exist"


def test_the_recipe_adds_a_rule_parameter_everywhere_it_must_go(reports):
    """Followed as written, the recipe's edits make the made-up parameter work everywhere."""
    failed = {check: why for check, why in reports["recipe"].items() if why != "ok"}
    missing = sorted(set(EDITS) - {path for step in recipe_steps() for path in step})
    assert not failed, f"the recipe misses {missing or 'nothing it names'}; failed: {failed}"
    assert set(reports["recipe"]) == set(ALL_CHECKS)


@pytest.mark.parametrize("left_out", list(EDITS))
def test_every_step_of_the_recipe_is_needed(reports, left_out):
    """Without one file's edit, the checks that stand for it fail: none passes regardless."""
    _, checks = EDITS[left_out]
    report = reports[left_out]
    assert set(report) == set(checks)
    passed = [check for check, why in report.items() if why == "ok"]
    assert not passed, f"without the edit of {left_out}, {passed} still passed"
