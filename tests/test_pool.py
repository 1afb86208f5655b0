"""The batch pool (amteach/sim/pool.py) that simulate, sweeps and best play share: how it cuts
a batch into chunks, how its workers start (forkserver on Linux, never a fork of the caller,
nothing of the UI imported), the core they play on, and how a Ctrl-C or a dead worker ends a
run. Frames equal across workers and Dask are pinned in test_sim.py and test_core.py."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from amteach.engine.rules import RuleSet
from amteach.sim import core
from amteach.sim import pool as pools
from amteach.sim.play import BatchConfig, run_chunk
from amteach.sim.pool import Pool, Progress, WorkersStopped, chunks, shared_pool, start_method
from amteach.sim.runner import parse_seats

BUILT = core.core_name()  # the core this checkout has: compiled where it is built
UI_MODULES = ("amteach.ui", "amteach.cli", "ipywidgets", "plotly", "voila", "IPython")


def modules_loaded(prefixes: tuple[str, ...]) -> list[str]:
    """(Run in a worker.) The modules of this process whose names start with `prefixes`."""
    return sorted(name for name in sys.modules if name.startswith(prefixes))


def config(seed: int = 3) -> BatchConfig:
    rules = RuleSet.preset("default", round_cap=30).to_dict()
    return BatchConfig(parse_seats(None), rules, seed, record_rounds=False)


@given(games=st.integers(1, 5000), workers=st.integers(1, 64), most=st.none() | st.integers(1, 200))
def test_chunks_cover_every_game_once_in_order(games, workers, most):
    parts = chunks(games, workers, most=most)
    assert [g for start, stop in parts for g in range(start, stop)] == list(range(games))
    assert all(stop > start for start, stop in parts)
    if most is not None:
        assert max(stop - start for start, stop in parts) <= most


@given(games=st.integers(1, 50_000), workers=st.integers(1, 64), least=st.integers(1, 2000))
def test_chunks_are_at_least_least_games_but_the_last(games, workers, least):
    parts = chunks(games, workers, per_worker=4, most=None, least=least)
    assert [g for start, stop in parts for g in range(start, stop)] == list(range(games))
    assert all(stop - start >= least for start, stop in parts[:-1])


def test_one_chunk_a_worker_when_asked():
    assert chunks(500, 2, per_worker=1, most=None) == [(0, 250), (250, 500)]
    assert chunks(7, 1, per_worker=1, most=None) == [(0, 7)]


def test_workers_come_from_the_fork_server_not_from_a_fork_of_the_caller():
    """Where the platform has a fork server the workers come from it; elsewhere they are
    spawned (started afresh, never a fork of the caller either)."""
    has_fork_server = "forkserver" in multiprocessing.get_all_start_methods()
    assert start_method() == ("forkserver" if has_fork_server else "spawn")
    parents: list[int] = []
    with Pool(2) as pool:
        stopped = pool.run(os.getppid, [()] * 4, lambda i, ppid: parents.append(ppid))
    assert not stopped and len(parents) == 4
    # a forked or spawned worker's parent would be this process; the fork server's are its own
    assert (os.getpid() not in parents) == has_fork_server


def test_a_worker_imports_nothing_of_the_ui_even_when_the_caller_has():
    import amteach.ui.batch  # noqa: F401  (the caller is a dashboard, say)

    assert modules_loaded(("amteach.ui",))
    seen: list[list[str]] = []
    with Pool(2) as pool:
        pool.run(modules_loaded, [(UI_MODULES,)] * 2, lambda i, names: seen.append(names))
        pool.run(run_chunk, [(0, 2, config())], lambda i, tables: None)  # a real chunk, too
        pool.run(modules_loaded, [(UI_MODULES,)] * 2, lambda i, names: seen.append(names))
    assert seen == [[]] * 4


@pytest.mark.parametrize("pure", [False, True])
def test_workers_play_on_the_callers_core(pure, monkeypatch):
    """A worker does not start from the caller's memory, so it is told which core to use."""
    if pure:
        monkeypatch.setattr(core, "kernel", lambda: None)
    names: list[str] = []
    with Pool(2) as pool:
        pool.run(core.core_name, [()] * 4, lambda i, name: names.append(name))
    assert names == [core.PURE_PYTHON if pure else BUILT] * 4


def test_a_real_ctrl_c_keeps_the_chunks_that_finish():
    """SIGINT, sent to this process once the first chunk is in, stops the run: chunks not
    started are dropped, and every chunk kept is the one played here."""
    jobs = [(start, start + 2, config()) for start in range(0, 80, 2)]
    kept: dict[int, dict] = {}

    def got(index: int, tables: dict) -> None:
        kept[index] = tables
        if len(kept) == 1:
            os.kill(os.getpid(), signal.SIGINT)

    with Pool(2) as pool:
        stopped = pool.run(run_chunk, jobs, got)
    assert stopped and 0 < len(kept) < len(jobs)
    for index, tables in kept.items():
        here = run_chunk(*jobs[index])
        np.testing.assert_array_equal(tables["games"]["winner"], here["games"]["winner"])
        np.testing.assert_array_equal(tables["games"]["seed"], here["games"]["seed"])


@pytest.mark.parametrize("workers", [1, 2])
def test_a_cancel_from_the_callback_stops_the_run(workers):
    """A Cancel button raises KeyboardInterrupt in the progress callback."""
    jobs = [(start, start + 2, config()) for start in range(0, 60, 2)]
    kept: list[int] = []

    def cancel(index: int, tables: dict) -> None:
        kept.append(index)
        raise KeyboardInterrupt

    with Pool(workers) as pool:
        assert pool.run(run_chunk, jobs, cancel)
    assert 0 < len(kept) < len(jobs)


def test_a_worker_that_dies_is_one_clear_error():
    with Pool(2) as pool, pytest.raises(WorkersStopped, match="worker process stopped"):
        pool.run(signal.raise_signal, [(signal.SIGKILL,)], lambda i, r: None)


def test_progress_counts_to_the_total_and_may_stop_the_run():
    seen: list[tuple[int, int]] = []
    with Progress(False, 10, on_advance=lambda done, total: seen.append((done, total))) as shown:
        shown.advance(4)
        shown.to(12)  # never past the total
    assert seen == [(4, 10), (10, 10)]


def test_batches_share_warm_workers_that_stop_once_idle(monkeypatch):
    """Batch after batch plays on the same worker processes (what they learned kept), a
    cancelled run leaves them fit for the next, and they stop after IDLE_SECONDS idle."""
    monkeypatch.setattr(pools, "IDLE_SECONDS", 0.5)
    jobs = [(start, start + 2, config()) for start in range(0, 40, 2)]
    first: list[int] = []
    with shared_pool(2) as pool:
        pool.run(os.getpid, [()] * 6, lambda i, pid: first.append(pid))

        def cancel(index: int, tables: dict) -> None:
            raise KeyboardInterrupt

        assert pool.run(run_chunk, jobs, cancel)
    again: list[int] = []
    winners: dict[int, list[int]] = {}
    with shared_pool(2) as same:
        assert same is pool
        same.run(os.getpid, [()] * 6, lambda i, pid: again.append(pid))
        stopped = same.run(
            run_chunk, jobs, lambda i, t: winners.__setitem__(i, t["games"]["winner"].tolist())
        )
    assert not stopped
    assert len(set(first) | set(again)) <= 2  # the same two workers: none started anew
    assert [winners[i] for i in range(len(jobs))] == [
        run_chunk(*job)["games"]["winner"].tolist() for job in jobs
    ]
    assert pool.stopped.wait(timeout=120)  # idle for IDLE_SECONDS: its workers stop
    with shared_pool(2) as fresh:
        assert fresh is not pool
