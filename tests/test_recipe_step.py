"""docs/architecture.md's recipe "Add a step", followed on a scratch copy (issue 38: a new
step is added in one place, a method of the rules core's `State`, declared once).

For a made-up step, `laps` (a pawn reaching or passing START completes a lap, and the game's
events say so), the test makes each numbered step's edit on a copy of amteach/ in a temporary
folder, then one python subprocess checks: a `Game` tells of the lap in its events, in words;
the kernel's `G` (uncompiled, amteach/sim/kernel.py, which gets no edit) takes the step too;
the compiled build's declarations (core.pxd) carry it. `test_every_edit_of_the_step_is_needed`
leaves out each file's edit in turn and shows that a check then fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_recipes import Edit, chain, insert_after, replace_once

REPO = Path(__file__).resolve().parents[1]
RECIPE = REPO / "docs" / "architecture.md"
RECIPE_TITLE = "### Add a step"


STATE_METHOD = '''
    def laps(self, p):
        """p's pawn completed a lap (reached or passed START)."""
        if self.sink is not None:
            self.sink(N_LAP, p)
        return 0
'''
EVENT = """

@dataclass(slots=True)
class LapCompleted(Event):
    type: ClassVar[str] = "lap"
    player: int

    def _text(self, t: Table) -> str:
        return f"{t.name(self.player)} completes a lap."
"""

EDITS: dict[str, tuple[Edit, tuple[str, ...]]] = {
    "amteach/engine/core.py": (
        chain(
            replace_once(
                "    def new_round(self):\n        self.round += 1\n        return 0\n",
                "    def new_round(self):\n        self.round += 1\n        return 0\n"
                + STATE_METHOD,
            ),
            insert_after(r'^    "moved",  # p, start, end, by', '    "lap",  # p\n'),
            insert_after(r"^N_MOVED = ", "N_LAP = 25\n"),
            replace_once(
                "    if end <= start or end == 0:\n",
                "    if end <= start or end == 0:\n        game.laps(p)\n",
            ),
        ),
        ("game", "kernel"),
    ),
    "amteach/engine/core.pxd": (
        chain(
            replace_once(
                "    cdef inline int new_round(self) except -1\n",
                "    cdef inline int new_round(self) except -1\n"
                "    cdef inline int laps(self, int p) except -1\n",
            ),
            insert_after(r"^cdef int N_TURN_STARTED", "cdef int N_LAP\n"),
        ),
        ("declarations",),
    ),
    "amteach/engine/game.py": (
        insert_after(
            r'^        "moved": lambda',
            '        "lap": lambda g, p: ev.LapCompleted(g._table, p),\n',
        ),
        ("game",),
    ),
    "amteach/engine/events.py": (
        chain(
            replace_once("\n\nEVENT_TYPES: dict", EVENT + "\n\nEVENT_TYPES: dict"),
            insert_after(r"^        GameOver,", "        LapCompleted,\n"),
        ),
        ("game",),
    ),
}

CHECKER = r"""
import json, re, sys, traceback
from pathlib import Path

sys.dont_write_bytecode = True


def check_game():
    from amteach.engine.game import Game, PlayerSetup, Setup
    from amteach.engine.rules import RuleSet

    setup = Setup(
        players=(PlayerSetup("Ana", 0, position=36), PlayerSetup("Ben", 1)),
        rules=RuleSet.preset("default"),
        seed=1,
        dice=((2, 3),),
    )
    game = Game(setup)
    events = game.apply("roll")
    laps = [e for e in events if e.type == "lap"]
    assert len(laps) == 1 and laps[0].player == 0, events
    assert laps[0].text == "Ana completes a lap."


def check_kernel():
    import importlib.util

    import amteach.sim
    from amteach.engine.board import standard_board
    from amteach.engine.builds import source_core
    from amteach.engine.rules import RuleSet

    source = Path(amteach.sim.__file__).with_name("kernel.py")
    spec = importlib.util.spec_from_file_location("recipe_step_kernel", source)
    kernel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernel)
    core = source_core()
    tables = core.tables(standard_board(), RuleSet.preset("default"))
    g = kernel.G()
    g.reset(tables, [0, 1], 0, 1)
    g.place_seat(0, 1500, 36, -1)
    told = []
    g.sink = lambda code, *numbers: told.append((core.NOTES[code], numbers))
    core.move_to(g, tables, 0, 1, 0)
    assert ("lap", (0,)) in told, told


def check_declarations():
    import amteach.engine

    pxd = (Path(amteach.engine.__file__).parent / "core.pxd").read_text()
    state = pxd.split("cdef class State:", 1)[1].split("\ncpdef ", 1)[0]
    line = "cdef inline int laps(self, int p) except -1"
    assert line in state, "State lacks the step"
    assert pxd.count("int laps(") == 1, "the step is declared once"
    assert re.search(r"^cdef int N_LAP$", pxd, flags=re.M), "N_LAP is not declared"


CHECKS = {"game": check_game, "kernel": check_kernel, "declarations": check_declarations}

reports = {}
for root, names in json.loads(sys.argv[1]):
    for module in [m for m in sys.modules if m.split(".")[0] == "amteach"]:
        del sys.modules[module]
    sys.path.insert(0, root)
    report = {}
    for name in names:
        try:
            import amteach  # a copy whose edit breaks the import fails each check

            assert Path(amteach.__file__).is_relative_to(Path(root)), amteach.__file__
            CHECKS[name]()
            report[name] = "ok"
        except BaseException as err:  # noqa: BLE001 - each check reports, whatever broke
            report[name] = "".join(traceback.format_exception_only(err)).strip()[:600]
    reports[root] = report
    del sys.path[0]
print(json.dumps(reports))
"""
ALL_CHECKS = ("game", "kernel", "declarations")


def recipe_files() -> list[str]:
    """The files the recipe's numbered steps name, in order."""
    text = RECIPE.read_text(encoding="utf-8")
    assert RECIPE_TITLE in text, f"docs/architecture.md has no {RECIPE_TITLE!r} section"
    section = text.split(RECIPE_TITLE, 1)[1].split("\n### ", 1)[0]
    steps = re.split(r"^\d+\. ", section, flags=re.M)[1:]
    named = [path for step in steps for path in re.findall(r"`(amteach/[\w/.-]+\.\w+)`", step)]
    return list(dict.fromkeys(named))


def scratch_copy(folder: Path, edits: list[str]) -> Path:
    shutil.copytree(
        REPO / "amteach",
        folder / "amteach",
        symlinks=True,
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.c", "*.pyd", "best_play"),
    )
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
    followed = [path for path in recipe_files() if path in EDITS]
    folders = {"recipe": scratch_copy(tmp_path_factory.mktemp("step"), followed)}
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


def test_the_step_recipe_names_the_files_this_test_edits():
    """The recipe names exactly the files a new step needs: one place, the rules core, and
    Game's record of it (the kernel is not among them)."""
    assert recipe_files() == list(EDITS)


def test_the_recipe_adds_a_step_that_game_and_the_kernel_both_take(reports):
    failed = {check: why for check, why in reports["recipe"].items() if why != "ok"}
    assert not failed, failed
    assert set(reports["recipe"]) == set(ALL_CHECKS)


@pytest.mark.parametrize("left_out", list(EDITS))
def test_every_edit_of_the_step_is_needed(reports, left_out):
    """Without one file's edit, the checks that stand for it fail."""
    _, checks = EDITS[left_out]
    report = reports[left_out]
    assert set(report) == set(checks)
    passed = [check for check, why in report.items() if why == "ok"]
    assert not passed, f"without the edit of {left_out}, {passed} still passed"
