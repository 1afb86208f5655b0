"""Batches sized to the process's share of the machine (issue 41): the CPU affinity and the
cgroup quota (v2 `cpu.max`, v1 `cpu.cfs_quota_us`), read from fake cgroup folders here, and
a visitor's kernel capped at one worker process by `amteach dashboard`'s environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from amteach.serving import voila_environment
from amteach.sim import cpus


def v2_tree(root: Path, group: str, limits: dict[str, str]) -> Path:
    """A fake cgroup v2 mount under `root` with this process in `group`; `limits` maps a
    folder (relative to the mount) to its cpu.max. Returns the membership file."""
    (root / group.strip("/")).mkdir(parents=True, exist_ok=True)
    for folder, text in limits.items():
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "cpu.max").write_text(text + "\n")
    membership = root / "membership"
    membership.write_text(f"0::{group}\n")
    return membership


def test_a_one_cpu_pod_on_a_larger_host_gets_one_worker(tmp_path, monkeypatch):
    monkeypatch.setattr(cpus, "affinity_cpus", lambda: 64)
    # the pod's limit sits on a parent; the container's own group has none
    membership = v2_tree(
        tmp_path,
        "/kubepods/pod1/container",
        {"kubepods/pod1": "100000 100000", "kubepods/pod1/container": "max 100000"},
    )
    assert cpus.cgroup_cpus(tmp_path, membership) == 1.0
    assert cpus.available_cpus(tmp_path, membership) == 1


@pytest.mark.parametrize(
    ("cpu_max", "quota", "workers"),
    [
        ("250000 100000", 2.5, 2),  # a fraction of a CPU more is no worker more
        ("50000 100000", 0.5, 1),  # half a CPU still plays, on one worker
        ("400000 100000", 4.0, 3),  # the affinity (3) is the lower bound
        ("max 100000", None, 3),  # no quota
        ("banana\n", None, 3),  # unreadable: as no quota
    ],
)
def test_cgroup_v2_quota_and_affinity_take_the_lower(
    tmp_path, monkeypatch, cpu_max, quota, workers
):
    monkeypatch.setattr(cpus, "affinity_cpus", lambda: 3)
    membership = v2_tree(tmp_path, "/", {".": cpu_max})
    assert cpus.cgroup_cpus(tmp_path, membership) == quota
    assert cpus.available_cpus(tmp_path, membership) == workers


def test_cgroup_v1_cfs_quota(tmp_path, monkeypatch):
    monkeypatch.setattr(cpus, "affinity_cpus", lambda: 16)
    group = tmp_path / "cpu,cpuacct" / "docker" / "abc"
    group.mkdir(parents=True)
    (group / "cpu.cfs_quota_us").write_text("200000\n")
    (group / "cpu.cfs_period_us").write_text("100000\n")
    membership = tmp_path / "membership"
    membership.write_text("5:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n")
    assert cpus.cgroup_cpus(tmp_path, membership) == 2.0
    assert cpus.available_cpus(tmp_path, membership) == 2
    (group / "cpu.cfs_quota_us").write_text("-1\n")  # v1's "no limit"
    assert cpus.cgroup_cpus(tmp_path, membership) is None
    assert cpus.available_cpus(tmp_path, membership) == 16


def test_no_cgroups_at_all_leaves_the_affinity(tmp_path, monkeypatch):
    monkeypatch.setattr(cpus, "affinity_cpus", lambda: 5)
    assert cpus.cgroup_cpus(tmp_path, tmp_path / "missing") is None
    assert cpus.available_cpus(tmp_path, tmp_path / "missing") == 5


@given(
    affinity=st.integers(1, 256),
    quota=st.integers(1000, 10_000_000),
    period=st.integers(1000, 1_000_000),
)
def test_the_share_is_at_least_one_and_never_above_either_bound(affinity, quota, period):
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        membership = v2_tree(root, "/", {".": f"{quota} {period}"})
        original = cpus.affinity_cpus
        cpus.affinity_cpus = lambda: affinity
        try:
            share = cpus.available_cpus(root, membership)
        finally:
            cpus.affinity_cpus = original
    assert 1 <= share <= affinity
    assert share <= max(1, quota // period)


def test_the_real_share_is_at_most_the_affinity():
    assert 1 <= cpus.available_cpus() <= len(os.sched_getaffinity(0))


def workers_of_a_default_batch(env: dict[str, str], pin_to_one_cpu: bool = False) -> dict:
    """`simulate` with no `workers`, in a new process: how many workers it used."""
    pin = "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); " if pin_to_one_cpu else ""
    code = (
        f"import os, json; {pin}from amteach.sim import simulate; "
        "r = simulate(games=20, round_cap=30, progress=False); "
        "print(json.dumps({k: r.meta[k] for k in ('workers', 'backend', 'completed')}))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_a_process_pinned_to_one_cpu_plays_its_batch_in_process():
    env = {k: v for k, v in os.environ.items() if k != cpus.WORKERS_ENV}
    meta = workers_of_a_default_batch(env, pin_to_one_cpu=True)
    assert meta == {"workers": 1, "backend": "in-process", "completed": 20}


def test_a_visitors_kernel_is_capped_at_one_worker_and_the_admin_can_raise_it(monkeypatch):
    # what Who wins does in a kernel that `amteach dashboard` started: simulate(workers=None)
    monkeypatch.setattr(cpus, "affinity_cpus", lambda: 8)
    monkeypatch.delenv(cpus.WORKERS_ENV, raising=False)
    with voila_environment() as env:
        assert env[cpus.WORKERS_ENV] == "1"
        monkeypatch.setenv(cpus.WORKERS_ENV, env[cpus.WORKERS_ENV])
        assert cpus.default_workers() == 1
        assert workers_of_a_default_batch(env)["workers"] == 1
    monkeypatch.setenv(cpus.WORKERS_ENV, "3")  # set for the server by its administrator
    with voila_environment() as env:
        assert env[cpus.WORKERS_ENV] == "3"
    assert cpus.default_workers() == min(3, cpus.available_cpus())


@pytest.mark.parametrize("text", ["", "0", "-2", "two", "1.5"])
def test_a_cap_that_is_not_a_whole_number_of_at_least_one_is_no_cap(monkeypatch, text):
    monkeypatch.setattr(cpus, "affinity_cpus", lambda: 4)
    monkeypatch.setenv(cpus.WORKERS_ENV, text)
    assert cpus.workers_cap() is None
    assert cpus.default_workers() == cpus.available_cpus()
