"""Which core plays a batch: the compiled one (`amteach.sim.kernel`, built from kernel.pyx by
`pip install .`, `./dev run` or `./dev test` where a C compiler exists) or the pure-Python
engine and bots, which give identical frames.

Pure Python is used when `AMTEACH_PURE_PYTHON=1` is set, when the compiled module was never
built (no compiler), or when it is older than the kernel.pyx beside it (a stale build is never
used; `./dev` rebuilds it). See docs/development.md.
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
    """The compiled core was built from an older kernel.pyx; pure Python is used instead."""


@cache
def kernel() -> ModuleType | None:
    """The compiled kernel module, or None when batches run on pure Python."""
    if os.environ.get(PURE_PYTHON_ENV, "").strip() not in ("", "0"):
        return None
    try:
        from . import kernel as module
    except ImportError:
        return None
    source = Path(__file__).with_name("kernel.pyx")
    if source.is_file():  # a development checkout: the build must match the source
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
        if digest != module.SOURCE_SHA256:
            warnings.warn(
                "the compiled core is older than amteach/sim/kernel.pyx, so batches run on "
                "pure Python; rebuild it with `./dev test` or "
                "`python setup.py build_ext --inplace`",
                StaleCoreWarning,
                stacklevel=2,
            )
            return None
    return module


def core_name() -> str:
    """ "compiled" or "pure Python": the core that plays batches in this process."""
    return COMPILED if kernel() is not None else PURE_PYTHON
