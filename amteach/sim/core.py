"""Which core plays a batch: the compiled one (`amteach.sim.kernel`, built from kernel.py and
kernel.pxd, with the rules core amteach/engine/core.py and core.pxd, by `pip install .`,
`./dev run` or `./dev test` where a C compiler exists) or the pure-Python engine and bots,
which give identical frames.

Pure Python is used when `AMTEACH_PURE_PYTHON=1` is set, when the kernel or the rules core was
never compiled (no compiler: `amteach.sim.kernel` then imports as plain Python), or when
either build is older than the sources beside it (a stale build is never used; `./dev`
rebuilds it). See docs/development.md.
"""

from __future__ import annotations

import warnings
from functools import cache
from pathlib import Path
from types import ModuleType

from amteach.bots.builds import decisions, decisions_sources
from amteach.engine.builds import (
    PURE_PYTHON_ENV,
    StaleCoreWarning,
    core_is_compiled,
    core_sources,
    is_stale,
    pure_python_requested,
    sources_digest,
)

__all__ = [
    "COMPILED",
    "PURE_PYTHON",
    "PURE_PYTHON_ENV",
    "StaleCoreWarning",
    "core_name",
    "kernel",
    "kernel_sources",
    "sources_digest",
]

COMPILED = "compiled"
PURE_PYTHON = "pure Python"
KERNEL_SOURCES = ("kernel.py", "kernel.pxd")


def kernel_sources(folder: Path | None = None) -> tuple[Path, ...]:
    """The files a build of the kernel is made from, in the order its digest reads them:
    kernel.py and kernel.pxd in `folder` (by default this package's), then the rules core's
    core.py and core.pxd and the bots' core's, whose declarations the kernel cimports
    (setup.py reads the same)."""
    folder = Path(__file__).parent if folder is None else folder
    return (
        *(folder / name for name in KERNEL_SOURCES),
        *core_sources(),
        *decisions_sources()[:2],
    )


@cache
def kernel() -> ModuleType | None:
    """The compiled kernel module, or None when batches run on pure Python."""
    if pure_python_requested():
        return None
    # the kernel runs the rules core's C functions: a core on plain Python (stale, or never
    # compiled) means the kernel's build cannot be used either
    if not core_is_compiled():
        return None
    # likewise the bots' core, whose decisions the kernel calls
    if not decisions().COMPILED:
        return None
    try:
        from . import kernel as module
    except ImportError:  # uncompiled, without the cython package
        return None
    # a build of the hand-written kernel.pyx (before kernel.py) has no COMPILED: it is a
    # compiled module, and the digest check below finds it stale
    if not getattr(module, "COMPILED", True):
        # kernel.py itself, uncompiled: batches play on the engine and bots, the reference
        return None
    if is_stale(module, kernel_sources()):
        warnings.warn(
            "the compiled core is older than amteach/sim/kernel.py, kernel.pxd or the rules "
            "core amteach/engine/core.py or core.pxd, so batches run on pure Python; rebuild "
            "it with `./dev test` or `python setup.py build_ext --inplace`",
            StaleCoreWarning,
            stacklevel=2,
        )
        return None
    return module


def core_name() -> str:
    """ "compiled" or "pure Python": the core that plays batches in this process."""
    return COMPILED if kernel() is not None else PURE_PYTHON
