"""Build steps that pyproject.toml cannot declare. Everything else is in pyproject.toml."""

from __future__ import annotations

import hashlib
from pathlib import Path

from setuptools import setup

# -- the compiled core (issues 14 and 26; docs/development.md) ------------------------------
# Two modules in Cython's pure-Python mode, each typed by the .pxd beside it, are compiled with
# Cython and a C compiler when both are there: amteach/engine/core.py (the board, the rules
# and the rule arithmetic, which the engine and the kernel share) and amteach/sim/kernel.py
# (a batch's games), which cimports it. The extensions are optional: without a compiler the
# build goes on, and amteach runs both as plain Python with the same results.
CORE = Path("amteach/engine/core.py")
KERNEL = Path("amteach/sim/kernel.py")
CORE_SOURCES = (CORE, CORE.with_suffix(".pxd"))
# the kernel's build depends on the core's declarations too, so its digest covers both
KERNEL_SOURCES = (KERNEL, KERNEL.with_suffix(".pxd"), *CORE_SOURCES)


def sources_digest(sources: tuple[Path, ...]) -> str:
    """The SHA-256 of these files in this order (amteach.engine.builds.sources_digest
    computes the same, to refuse a build older than its sources)."""
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.read_bytes())
    return digest.hexdigest()


def compiled_core() -> list:
    try:
        from Cython.Build import cythonize
        from setuptools import Extension
    except ImportError:  # no Cython: the pure-Python core only
        return []
    extensions = [
        Extension(
            name,
            [str(sources[0])],
            define_macros=[(macro, f'"{sources_digest(sources)}"')],
            extra_compile_args=["-O2"],
            optional=True,
        )
        for name, sources, macro in (
            ("amteach.engine.core", CORE_SOURCES, "AMTEACH_CORE_SHA256"),
            ("amteach.sim.kernel", KERNEL_SOURCES, "AMTEACH_KERNEL_SHA256"),
        )
    ]
    extensions = cythonize(extensions, language_level=3, quiet=True)
    for built in extensions:  # cythonize makes new Extension objects: keep them optional
        built.optional = True
    return extensions


# -- end of the compiled core ----------------------------------------------------------------

setup(ext_modules=compiled_core())
