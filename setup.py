"""Build steps that pyproject.toml cannot declare. Everything else is in pyproject.toml."""

from __future__ import annotations

import hashlib
from pathlib import Path

from setuptools import setup

# -- the compiled core (issue 14; docs/development.md) ---------------------------------------
# amteach/sim/kernel.py (Cython's pure-Python mode, typed by kernel.pxd beside it) is compiled
# with Cython and a C compiler when both are there. The extension is optional: without a
# compiler the build goes on, and amteach runs on its pure-Python core with the same results.
KERNEL = Path("amteach/sim/kernel.py")
KERNEL_SOURCES = (KERNEL, KERNEL.with_suffix(".pxd"))


def sources_digest() -> str:
    """The SHA-256 of kernel.py then kernel.pxd (amteach.sim.core.sources_digest computes the
    same, to refuse a build older than its sources)."""
    digest = hashlib.sha256()
    for source in KERNEL_SOURCES:
        digest.update(source.read_bytes())
    return digest.hexdigest()


def compiled_core() -> list:
    try:
        from Cython.Build import cythonize
        from setuptools import Extension
    except ImportError:  # no Cython: the pure-Python core only
        return []
    digest = sources_digest()
    extension = Extension(
        "amteach.sim.kernel",
        [str(KERNEL)],
        define_macros=[("AMTEACH_KERNEL_SHA256", f'"{digest}"')],
        extra_compile_args=["-O2"],
        optional=True,
    )
    extensions = cythonize([extension], language_level=3, quiet=True)
    for built in extensions:  # cythonize makes new Extension objects: keep them optional
        built.optional = True
    return extensions


# -- end of the compiled core ----------------------------------------------------------------

setup(ext_modules=compiled_core())
