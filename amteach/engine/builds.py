"""Which build of the rules core (`amteach.engine.core`) the engine uses: the compiled one
(built from core.py and core.pxd by `pip install .`, `./dev` or `python setup.py build_ext
--inplace` where a C compiler exists) or core.py run as plain Python, which gives the same
answers.

Plain Python is used when `AMTEACH_PURE_PYTHON=1` is set, when core.py was never compiled, or
when the build is older than the core.py and core.pxd beside it (a stale build is never used;
`./dev` rebuilds it). This module reads those two files once, when the engine is imported, to
compare their hash with the build's; the rules never do I/O.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import warnings
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from types import ModuleType

PURE_PYTHON_ENV = "AMTEACH_PURE_PYTHON"
CORE = "amteach.engine.core"
CORE_SOURCES = ("core.py", "core.pxd")
FOLDER = Path(__file__).parent


class StaleCoreWarning(UserWarning):
    """A compiled core was built from older sources; plain Python is used instead."""


def pure_python_requested() -> bool:
    """Is AMTEACH_PURE_PYTHON set (to anything but 0)?"""
    return os.environ.get(PURE_PYTHON_ENV, "").strip() not in ("", "0")


def sources_digest(paths: Iterable[Path]) -> str:
    """The SHA-256 of these files, in this order (setup.py computes the same for a build)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def core_sources() -> tuple[Path, ...]:
    return tuple(FOLDER / name for name in CORE_SOURCES)


def is_stale(module: ModuleType, sources: tuple[Path, ...]) -> bool:
    """Is `module` a build of older sources than these? (False where the sources are not
    beside it, as in an installed wheel: the build is what was installed.)"""
    if not all(path.is_file() for path in sources):
        return False
    return sources_digest(sources) != module.SOURCE_SHA256


def load_source(name: str, path: Path) -> ModuleType:
    """The module at `path` run as plain Python under `name` (a core's uncompiled build,
    beside the compiled one that has the module's own name)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@cache
def source_core() -> ModuleType:
    """core.py run as plain Python (the uncompiled kernel plays on this one too)."""
    return load_source(CORE + "_source", FOLDER / "core.py")


@cache
def rules_core() -> ModuleType:
    """The build of `amteach.engine.core` the engine uses (see the module's docstring)."""
    if pure_python_requested():
        return source_core()
    module = importlib.import_module(CORE)
    if not module.COMPILED:
        return module
    if is_stale(module, core_sources()):
        warnings.warn(
            "the compiled rules core is older than amteach/engine/core.py or core.pxd, so "
            "the engine and batches run on plain Python; rebuild it with `./dev check` or "
            "`python setup.py build_ext --inplace`",
            StaleCoreWarning,
            stacklevel=2,
        )
        return source_core()
    return module


def core_is_compiled() -> bool:
    """Does the engine use the compiled build of its rules core?"""
    return bool(rules_core().COMPILED)
