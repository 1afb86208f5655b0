"""Which build of the bots' decisions (`amteach.bots.core`) the Python bots use: the compiled
one (built from core.py and core.pxd with the rules core, like `amteach.engine.builds`
describes) or core.py run as plain Python, which decides the same.

Plain Python is used when `AMTEACH_PURE_PYTHON=1` is set, when the rules core runs as plain
Python (the compiled bots read the compiled rules' tables), when core.py was never compiled,
or when the build is older than the sources it was built from (a stale build is never used).
"""

from __future__ import annotations

import importlib
import warnings
from functools import cache
from pathlib import Path
from types import ModuleType

from amteach.engine.builds import (
    StaleCoreWarning,
    core_is_compiled,
    core_sources,
    is_stale,
    load_source,
    pure_python_requested,
    source_core,
)

DECISIONS = "amteach.bots.core"
FOLDER = Path(__file__).parent


def decisions_sources() -> tuple[Path, ...]:
    """The files a build of the bots' core is made from, in the order its digest reads them:
    core.py and core.pxd here, then the rules core's, whose declarations it cimports
    (setup.py reads the same)."""
    return (FOLDER / "core.py", FOLDER / "core.pxd", *core_sources())


@cache
def source_decisions() -> ModuleType:
    """core.py run as plain Python (the uncompiled kernel decides on this one too)."""
    return load_source(DECISIONS + "_source", FOLDER / "core.py")


@cache
def decisions() -> ModuleType:
    """The build of `amteach.bots.core` the Python bots use (see the module's docstring)."""
    if pure_python_requested() or not core_is_compiled():
        return source_decisions()
    module = importlib.import_module(DECISIONS)
    if not module.COMPILED:
        return source_decisions()
    if is_stale(module, decisions_sources()):
        warnings.warn(
            "the compiled bots core is older than amteach/bots/core.py or core.pxd (or the "
            "rules core), so the bots run on plain Python; rebuild it with `./dev check` or "
            "`python setup.py build_ext --inplace`",
            StaleCoreWarning,
            stacklevel=2,
        )
        return source_decisions()
    return module


@cache
def source_tables(board: object, rules: object) -> object:
    """The board and rules as the plain-Python rules core's `Tables` (for the plain-Python
    bots on a game whose own state is the compiled core's: `strategies.game_state`)."""
    return source_core().tables(board, rules)
