"""Build steps that pyproject.toml cannot declare. Everything else is in pyproject.toml."""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import setup

# -- the compiled core (issues 14 and 26; docs/development.md) ------------------------------
# Three modules in Cython's pure-Python mode, each typed by the .pxd beside it, are compiled
# with Cython and a C compiler when both are there: amteach/engine/core.py (the board, the
# rules and the rule arithmetic, which the engine and the kernel share), amteach/bots/core.py
# (the bots' decisions, which the bots and the kernel share) and amteach/sim/kernel.py (a
# batch's games), which cimports both. The extensions are optional: without a compiler the
# build goes on, and amteach runs both as plain Python with the same results.
CORE = Path("amteach/engine/core.py")
BOTS = Path("amteach/bots/core.py")
KERNEL = Path("amteach/sim/kernel.py")
CORE_SOURCES = (CORE, CORE.with_suffix(".pxd"))
# the bots' decisions (amteach/bots/core.py) cimport the rules core: their digest covers both
BOTS_SOURCES = (BOTS, BOTS.with_suffix(".pxd"), *CORE_SOURCES)
# the kernel's build depends on the cores' declarations too, so its digest covers all three
KERNEL_SOURCES = (KERNEL, KERNEL.with_suffix(".pxd"), *CORE_SOURCES, *BOTS_SOURCES[:2])


def sources_digest(sources: tuple[Path, ...]) -> str:
    """The SHA-256 of these files in this order (amteach.engine.builds.sources_digest
    computes the same, to refuse a build older than its sources)."""
    digest = hashlib.sha256()
    for source in sources:
        digest.update(source.read_bytes())
    return digest.hexdigest()


# Issue 41: a wheel for every later CPython. A wheel's modules are built on Python's Limited
# API (the stable ABI of 3.11), so one wheel, tagged cp311-abi3, serves 3.11 and every later
# CPython. In-place builds (./dev, build_ext --inplace) stay for this Python only, whose
# modules Python prefers to an abi3 one beside them. AMTEACH_LIMITED_API=1 or 0 says it
# outright.
LIMITED_API_ENV = "AMTEACH_LIMITED_API"
LIMITED_API = os.environ.get(LIMITED_API_ENV, "").strip() == "1" or (
    os.environ.get(LIMITED_API_ENV, "").strip() == "" and "bdist_wheel" in sys.argv
)
STABLE_ABI = "0x030B0000"  # Python 3.11, the oldest amteach supports
NO_COMPILER = (
    "amteach: no C compiler ({}) found; installing the pure-Python core, which gives the same "
    "results but plays batches dozens of times slower (docs/development.md)"
)


def c_compiler() -> tuple[str, bool]:
    """The C compiler a build would call ($CC, else the one Python was built with), and
    whether it is there: without it the build skips the core, in one line, instead of
    failing on every module."""
    command = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    name = (shlex.split(command) or ["cc"])[0]
    return name, shutil.which(name) is not None


# gcc's optimisation level: 2, unless AMTEACH_OPTIMIZE says 0, 1, 2 or 3 (tests/test_packaging.py
# builds its wheel at 0: it checks what the wheel holds and that its core loads, not its speed;
# gcc compiled the rules core's C file in 4 CPU-seconds at -O0, 12 at -O1, more at -O2)
OPTIMIZE = os.environ.get("AMTEACH_OPTIMIZE", "").strip()
OPTIMIZE = OPTIMIZE if OPTIMIZE in ("0", "1", "2", "3") else "2"


def compiled_core() -> list:
    if {"sdist", "egg_info", "dist_info"} & set(sys.argv[1:]):
        return []  # an sdist carries the sources only (MANIFEST.in), and metadata needs none
    if os.environ.get("AMTEACH_SKIP_CORE", "").strip() == "1":
        return []  # ./dev's editable install: ./dev builds the core beside it (./dev says why)
    compiler, found = c_compiler()
    if not found:
        print(NO_COMPILER.format(compiler), file=sys.stderr)
        return []
    try:
        from Cython.Build import cythonize
        from setuptools import Extension
    except ImportError:  # no Cython: the pure-Python core only
        return []
    extensions = [
        Extension(
            name,
            [str(sources[0])],
            define_macros=[
                (macro, f'"{sources_digest(sources)}"'),
                *LIMITED_API_MACROS,
            ],
            # no debug data (-g0): it was stripped anyway, and made the compile slower
            extra_compile_args=[f"-O{OPTIMIZE}", "-g0"],
            # stripped: the symbols and debug data were four fifths of each module's size
            extra_link_args=["-s"] if sys.platform.startswith("linux") else [],
            py_limited_api=LIMITED_API,
            optional=True,
        )
        for name, sources, macro in (
            ("amteach.engine.core", CORE_SOURCES, "AMTEACH_CORE_SHA256"),
            ("amteach.bots.core", BOTS_SOURCES, "AMTEACH_BOTS_SHA256"),
            ("amteach.sim.kernel", KERNEL_SOURCES, "AMTEACH_KERNEL_SHA256"),
        )
    ]
    # cythonize does not see that the kernel depends on core.pxd (a cimport from another
    # package), so a C file older than any of its sources is regenerated by force; its
    # digest, a C macro, is then compiled in afresh
    stale: dict[bool, list] = {True: [], False: []}
    all_sources = (CORE_SOURCES, BOTS_SOURCES, KERNEL_SOURCES)
    for extension, sources in zip(extensions, all_sources, strict=True):
        generated = sources[0].with_suffix(".c")
        stale[
            not generated.exists()
            or any(source.stat().st_mtime > generated.stat().st_mtime for source in sources)
        ].append(extension)
    built = []
    for force, group in stale.items():
        if group:  # the C files are generated side by side, one process each (JOBS)
            built += cythonize(
                group,
                language_level=3,
                quiet=True,
                force=force,
                nthreads=JOBS if len(group) > 1 else 0,
            )
    for extension in built:  # cythonize makes new Extension objects: keep them optional
        extension.optional = True
    return built


# The three modules are generated and compiled side by side, one per core (build_ext's
# `parallel`; `build_ext -j N` on the command line overrides it): the rules core's C file alone
# is 5 MB, and one after another the three took 57 CPU-seconds on one core where two cores
# now wait for the longest only. Every build runs so: ./dev's editable install, build_ext
# --inplace, and the wheel a `pip install` of the sdist builds (tests/test_packaging.py).
JOBS = min(
    3, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
)
BUILD_OPTIONS = {"build_ext": {"parallel": JOBS}} if JOBS > 1 else {}

LIMITED_API_MACROS = (
    [("Py_LIMITED_API", STABLE_ABI), ("CYTHON_LIMITED_API", "1")] if LIMITED_API else []
)
# the wheel's tag says so: cp311-abi3 (any CPython from 3.11 on)
WHEEL_OPTIONS = {"bdist_wheel": {"py_limited_api": "cp311"}} if LIMITED_API else {}
# the generated C files stay out of the wheel (and MANIFEST.in keeps them out of the sdist)
NO_C_FILES = {"amteach": ["*.c", "*/*.c"]}

# -- end of the compiled core ----------------------------------------------------------------

setup(
    ext_modules=compiled_core(),
    options={**WHEEL_OPTIONS, **BUILD_OPTIONS},
    exclude_package_data=NO_C_FILES,
)
