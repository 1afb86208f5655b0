"""How many worker processes a batch that names none should start: this process's share of the
machine, not the host's cores (docs/simulation.md, "Workers").

`os.cpu_count()` counts the host's cores. A process may be allowed fewer: its CPU affinity
(`taskset`, a cpuset) or a cgroup's CPU quota (a Kubernetes pod's CPU limit, a systemd unit's
`CPUQuota=`, `docker run --cpus`). A 1-CPU pod on a 64-core host that started 64 workers would
only make them take turns, with 64 times the memory. `available_cpus` reads both, and
`default_workers` caps the result where the environment says so (`AMTEACH_WORKERS`; the
dashboard's server sets it for every visitor's kernel).

A quota of 1.5 CPUs counts as 1: a worker more than the quota would be throttled, not faster.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

# at most this many worker processes for a batch that names none (a whole number >= 1);
# `amteach dashboard` sets it in its kernels' environment (amteach.serving.environment)
WORKERS_ENV = "AMTEACH_WORKERS"
CGROUP_ROOT = Path("/sys/fs/cgroup")
MEMBERSHIP = Path("/proc/self/cgroup")  # which cgroup this process is in, per hierarchy


def affinity_cpus() -> int:
    """The CPUs this process may run on (its affinity), or the host's where the platform does
    not say (macOS, Windows)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def read_number_pair(path: Path) -> tuple[str, str] | None:
    try:
        words = path.read_text().split()
    except (OSError, UnicodeDecodeError):
        return None
    return (words[0], words[1]) if len(words) >= 2 else None


def quota_v2(folder: Path) -> float | None:
    """CPUs allowed by cgroup v2's `cpu.max` ("max 100000": no limit) in `folder`."""
    pair = read_number_pair(folder / "cpu.max")
    if pair is None or pair[0] == "max":
        return None
    try:
        quota, period = int(pair[0]), int(pair[1])
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def quota_v1(folder: Path) -> float | None:
    """CPUs allowed by cgroup v1's `cpu.cfs_quota_us` (-1: no limit) over `cpu.cfs_period_us`."""
    try:
        quota = int((folder / "cpu.cfs_quota_us").read_text().split()[0])
        period = int((folder / "cpu.cfs_period_us").read_text().split()[0])
    except (OSError, ValueError, IndexError, UnicodeDecodeError):
        return None
    return quota / period if quota > 0 and period > 0 else None


def folders_up(mount: Path, group: str) -> list[Path]:
    """The cgroup's folder under `mount` and each parent up to the mount: a limit on any of
    them holds for the process. A group not found under the mount (a container sees its own
    cgroup at the mount's root) leaves the mount alone."""
    folder = mount / group.strip("/")
    if not folder.is_dir():
        return [mount]
    folders = [folder]
    while folder != mount and mount in folder.parents:
        folder = folder.parent
        folders.append(folder)
    return folders


def cgroup_cpus(root: Path = CGROUP_ROOT, membership: Path = MEMBERSHIP) -> float | None:
    """The CPU quota (in CPUs, maybe fractional) of this process's cgroup and its parents,
    cgroup v2 or v1, or None where no quota is set (or no cgroups exist: not Linux)."""
    try:
        lines = membership.read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    quotas: list[float] = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, group = parts
        if controllers == "":  # cgroup v2, unified: one hierarchy at the root
            for folder in folders_up(root, group):
                quotas.append(quota_v2(folder) or math.inf)
        elif "cpu" in controllers.split(","):
            for name in (controllers, "cpu", "cpu,cpuacct", "cpuacct,cpu"):
                mount = root / name
                if mount.is_dir():
                    for folder in folders_up(mount, group):
                        quotas.append(quota_v1(folder) or math.inf)
                    break
    least = min(quotas, default=math.inf)
    return None if least == math.inf else least


def available_cpus(root: Path = CGROUP_ROOT, membership: Path = MEMBERSHIP) -> int:
    """This process's share of the machine in whole CPUs: its affinity, lowered to its cgroup
    quota rounded down (at least 1)."""
    cpus = affinity_cpus()
    quota = cgroup_cpus(root, membership)
    if quota is not None:
        cpus = min(cpus, max(1, math.floor(quota)))
    return max(1, cpus)


def workers_cap() -> int | None:
    """`AMTEACH_WORKERS`, when set to a whole number of at least 1 (otherwise no cap)."""
    text = os.environ.get(WORKERS_ENV, "").strip()
    return int(text) if text.isdigit() and int(text) >= 1 else None


def default_workers() -> int:
    """Worker processes for a batch that names none: `available_cpus`, at most
    `AMTEACH_WORKERS` where it is set."""
    cpus = available_cpus()
    cap = workers_cap()
    return cpus if cap is None else min(cpus, cap)
