"""Which core plays a batch: the compiled one (`amteach.sim.kernel`, built from kernel.py and
kernel.pxd by `pip install .`, `./dev run` or `./dev test` where a C compiler exists) or the
pure-Python engine and bots, which give identical frames.

Pure Python is used when `AMTEACH_PURE_PYTHON=1` is set, when the kernel was never compiled
(no compiler: `amteach.sim.kernel` then imports as plain Python, or not at all without the
`cython` package), or when the build is older than the kernel.py and kernel.pxd beside it (a
stale build is never used; `./dev` rebuilds it). See docs/development.md.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from functools import cache
from pathlib import Path
from types import ModuleType

PURE_PYTHON_ENV = "AMTEACH_PURE_PYTHON"
COMPILED = "compiled"
PURE_PYTHON = "pure Python"


class StaleCoreWarning(UserWarning):
    """The compiled core was built from older kernel sources; pure Python is used instead."""


KERNEL_SOURCES = ("kernel.py", "kernel.pxd")


def sources_digest(folder: Path) -> str:
    """The SHA-256 of kernel.py then kernel.pxd in `folder` (setup.py passes the same digest
    to the build, which keeps it as `SOURCE_SHA256`)."""
    digest = hashlib.sha256()
    for name in KERNEL_SOURCES:
        digest.update((folder / name).read_bytes())
    return digest.hexdigest()


@cache
def kernel() -> ModuleType | None:
    """The compiled kernel module, or None when batches run on pure Python."""
    if os.environ.get(PURE_PYTHON_ENV, "").strip() not in ("", "0"):
        return None
    try:
        from . import kernel as module
    except ImportError:  # uncompiled, without the cython package
        return None
    # a build of the hand-written kernel.pyx (before kernel.py) has no COMPILED: it is a
    # compiled module, and the digest check below finds it stale
    if not getattr(module, "COMPILED", True):
        # kernel.py itself, uncompiled (it needs the cython package for its names, which only
        # the development tools install): batches play on the engine and bots, the reference
        return None
    folder = Path(__file__).parent
    # in a development checkout (the sources beside the build) the build must match them
    checkout = all((folder / name).is_file() for name in KERNEL_SOURCES)
    if checkout and sources_digest(folder) != module.SOURCE_SHA256:
        warnings.warn(
            "the compiled core is older than amteach/sim/kernel.py or kernel.pxd, so "
            "batches run on pure Python; rebuild it with `./dev test` or "
            "`python setup.py build_ext --inplace`",
            StaleCoreWarning,
            stacklevel=2,
        )
        return None
    return module


def core_name() -> str:
    """ "compiled" or "pure Python": the core that plays batches in this process."""
    return COMPILED if kernel() is not None else PURE_PYTHON
