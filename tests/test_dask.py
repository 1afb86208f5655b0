"""Batches and best play on a Dask cluster of separate processes: `dask scheduler` and two
`dask worker` processes on loopback (temporary folders, stopped by process id), driven by the
command line as a user drives it (`amteach simulate --dask`, `amteach best-play --dask`). The
results must equal the local pool's for the same seed: every game's seed comes from the master
seed and the game's index alone (amteach.sim.play.game_seed), whoever plays it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pandas as pd
import pytest

BIN = Path(sys.executable).parent
STARTUP = 120.0  # seconds: two loaded cores start three Python processes


class DaskCluster:
    """A scheduler and its workers, each a process of its own; `address` is the scheduler's."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.processes: list[subprocess.Popen] = []
        self.address = ""

    def _start(self, name: str, command: list[str], ready: str) -> str:
        """Start `command`; wait until its log has a line with `ready`; return that line."""
        log = self.folder / f"{name}.log"
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=self.folder,
            start_new_session=True,
        )
        self.processes.append(process)
        lines: list[str] = []
        found = threading.Event()
        line_found: list[str] = []

        def read() -> None:
            with log.open("w") as out:
                for line in process.stdout:
                    out.write(line)
                    out.flush()
                    lines.append(line)
                    if ready in line and not found.is_set():
                        line_found.append(line)
                        found.set()
            found.set()  # the process ended

        threading.Thread(target=read, daemon=True).start()
        found.wait(STARTUP)
        if not line_found:
            pytest.fail(f"{name} did not start:\n" + "".join(lines[-30:]))
        return line_found[0]

    def start_scheduler(self) -> None:
        line = self._start(
            "scheduler",
            [
                str(BIN / "dask"),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",  # a free port, read back from the log
                "--no-dashboard",
                "--no-show",
            ],
            "Scheduler at:",
        )
        self.address = line.split("Scheduler at:", 1)[1].strip()
        assert self.address.startswith("tcp://127.0.0.1:"), line

    def start_worker(self, name: str) -> None:
        folder = self.folder / name
        folder.mkdir()
        self._start(
            name,
            [
                str(BIN / "dask"),
                "worker",
                self.address,
                "--host",
                "127.0.0.1",
                "--nworkers",
                "1",
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--local-directory",
                str(folder),
                "--name",
                name,
            ],
            "Registered to:",
        )

    def worker_pids(self) -> list[int]:
        return [p.pid for p in self.processes[1:]]

    def stop(self) -> None:
        # the workers first, each to its end, then the scheduler
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            with suppress(subprocess.TimeoutExpired):
                process.wait(timeout=30)
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)


@contextmanager
def dask_cluster(folder: Path, workers: int = 2) -> Iterator[DaskCluster]:
    cluster = DaskCluster(folder)
    try:
        cluster.start_scheduler()
        for i in range(workers):
            cluster.start_worker(f"worker-{i + 1}")
        yield cluster
    finally:
        cluster.stop()


def amteach(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    run = subprocess.run(
        [str(BIN / "amteach"), *args], capture_output=True, text=True, cwd=cwd, timeout=600
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Traceback" not in run.stderr
    return run


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[DaskCluster]:
    with dask_cluster(tmp_path_factory.mktemp("dask")) as running:
        yield running


@pytest.fixture(scope="module")
def local_batch(tmp_path_factory) -> tuple[object, Path]:
    """The batch both cluster tests check against, played once for the module, here (one
    worker) and saved as `amteach simulate` saves it: 1,200 games, seed 11, round cap 60.
    Game i's frames depend on the seed and i alone, whatever the workers (tests/test_core.py
    and tests/test_sim.py check that), so one local run serves both tests; each used to play
    it again (a command-line run on two pool workers, and a run in the test)."""
    from amteach.sim import simulate

    local = simulate(games=1200, seed=11, round_cap=60, progress=False, workers=1)
    folder = tmp_path_factory.mktemp("local") / "pool"
    local.save(folder, format="parquet")
    return local, folder


def played_by(cluster: DaskCluster) -> dict[str, int]:
    """Tasks each worker process finished (the workers' own counts, over Dask's protocol)."""
    from distributed import Client

    with Client(cluster.address, timeout=60) as client:
        counts = client.run(
            lambda dask_worker: sum(
                1 for _ in dask_worker.state.log if _[0] and str(_[0]).startswith("run_chunk")
            )
        )
        names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}
    return {names[address]: count for address, count in counts.items()}


def test_a_dask_task_plays_hundreds_of_games_not_the_local_pools_hundred():
    """Issue 41: a Dask task costs milliseconds; a game under one. On a cluster of two worker
    threads, 10,000 games go as 8 tasks of 1,250 (four a thread), never below 500 a task."""
    from amteach.sim.cluster import DASK_CHUNKING, dask_pool

    class TwoThreads:  # what dask_pool asks of a Client
        def scheduler_info(self):
            return {"workers": {"a": {"nthreads": 1}, "b": {"nthreads": 1}}}

        def get_executor(self, pure):
            return None

    pool = dask_pool(TwoThreads())
    assert pool.workers == 2 and pool.backend == "dask"
    assert pool.chunks(10_000) == [(i, i + 1250) for i in range(0, 10_000, 1250)]
    sizes = [b - a for a, b in pool.chunks(1_200)]
    assert sizes == [500, 500, 200] and DASK_CHUNKING.least == 500
    assert [b - a for a, b in pool.chunks(120)] == [120]


def test_simulate_on_a_cluster_gives_the_local_pools_frames(cluster, local_batch, tmp_path):
    # 1,200 games: three tasks of at least 500 (but the last), so both workers play
    args = ["simulate", "--games", "1200", "--seed", "11", "--round-cap", "60", "--quiet"]
    args += ["--format", "parquet"]
    amteach(*args, "--dask", cluster.address, "--out", str(tmp_path / "dask"), cwd=tmp_path)
    _, pool = local_batch  # the same command's batch, played here and saved alike
    for table in ("games", "players", "rounds", "taxes"):
        on_dask = pd.read_parquet(tmp_path / "dask" / f"{table}.parquet")
        local = pd.read_parquet(pool / f"{table}.parquet")
        assert len(local) > 0
        pd.testing.assert_frame_equal(on_dask, local)
    assert len(pd.read_parquet(tmp_path / "dask" / "games.parquet")) == 1200
    meta = json.loads((tmp_path / "dask" / "meta.json").read_text())
    assert meta["backend"] == "dask"
    # both worker processes played part of the batch
    counts = played_by(cluster)
    assert set(counts) == {"worker-1", "worker-2"} and all(n > 0 for n in counts.values()), counts


def test_amteach_dask_points_a_kernels_default_batches_at_the_cluster(
    cluster, local_batch, tmp_path
):
    """What a dashboard's kernels do when the server was started with AMTEACH_DASK: Who wins
    calls simulate() with no workers, and the batch plays on the shared cluster."""
    code = (
        "import json; from amteach.sim import simulate; "
        "r = simulate(games=1200, seed=11, round_cap=60, progress=False); "
        f"r.games.to_parquet({str(tmp_path / 'games.parquet')!r}); "
        "print(json.dumps([r.meta['backend'], r.meta['completed']]))"
    )
    env = {**os.environ, "AMTEACH_DASK": cluster.address, "AMTEACH_WORKERS": "1"}
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout.strip().splitlines()[-1]) == ["dask", 1200]
    local, _ = local_batch  # simulate(games=1200, seed=11, round_cap=60, workers=1)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "games.parquet"), local.games)


def test_an_unreachable_amteach_dask_is_one_sentence_naming_it():
    with __import__("socket").socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code = (
        "from amteach.sim import simulate; from amteach.sim.cluster import ClusterUnavailable\n"
        "try:\n    simulate(games=10, progress=False)\n"
        "except ClusterUnavailable as err:\n    print(err)"
    )
    env = {
        **os.environ,
        "AMTEACH_DASK": f"tcp://127.0.0.1:{port}",
        "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s",
    }
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-3000:]
    (line,) = run.stdout.strip().splitlines()
    assert line.startswith(f"cannot reach the Dask scheduler tcp://127.0.0.1:{port} (AMTEACH_DASK)")


def test_best_play_on_a_cluster_finds_what_it_finds_here(cluster, tmp_path):
    args = ["best-play", "--full", "--games-per-candidate", "20", "--generations", "1"]
    args += ["--phases", "2"]
    args += ["--budget", "120", "--seed", "5", "--quiet"]
    dask_run = amteach(*args, "--dask", cluster.address, "--out", str(tmp_path / "d"), cwd=tmp_path)
    local_run = amteach(*args, "--workers", "2", "--out", str(tmp_path / "l"), cwd=tmp_path)
    on_dask, local = tmp_path / "d", tmp_path / "l"
    # the same strategies, search history, checks, matrix and sensitivity, game for game
    assert json.loads((on_dask / "strategies.json").read_text()) == json.loads(
        (local / "strategies.json").read_text()
    )
    for name in ("history.csv", "phases.csv", "matrix.csv", "sensitivity.csv"):
        dask_frame, local_frame = pd.read_csv(on_dask / name), pd.read_csv(local / name)
        assert len(local_frame) > 0, name
        pd.testing.assert_frame_equal(dask_frame, local_frame, obj=name)
    dask_summary = json.loads((on_dask / "summary.json").read_text())
    local_summary = json.loads((local / "summary.json").read_text())
    for key in ("equilibrium", "games", "games_played", "candidates", "converged", "seeds"):
        assert dask_summary[key] == local_summary[key], key
    assert dask_summary["equilibrium"]["games"] > 0
    # what it prints: the same reading and the same strategies
    assert dask_run.stdout.splitlines()[:-1] == local_run.stdout.splitlines()[:-1]
    counts = played_by(cluster)
    assert all(n > 0 for n in counts.values()), counts


def test_an_unreachable_scheduler_is_one_line(tmp_path):
    with __import__("socket").socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens here once the socket closes
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}
    for args in (
        ["simulate", "--games", "10", "--quiet"],
        ["best-play", "--full", "--games-per-candidate", "20", "--quiet", "--out", "o"],
    ):
        run = subprocess.run(
            [str(BIN / "amteach"), *args, "--dask", f"tcp://127.0.0.1:{port}"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=120,
        )
        assert run.returncode == 2, run.stderr
        assert "Traceback" not in run.stderr
        lines = run.stderr.strip().splitlines()
        assert lines[-1].startswith("amteach: cannot reach the Dask scheduler tcp://127.0.0.1:")
        assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--generations", "0"], "--generations must be at least 1"),
        (["--generations", "two"], "--generations must be a whole number"),
        (["--phases", "0"], "--phases must be at least 1"),
    ],
)
def test_best_plays_search_bounds_are_checked_before_any_game(args, words, tmp_path):
    from click.testing import CliRunner

    from amteach.cli import main

    result = CliRunner().invoke(
        main, ["best-play", "--full", "--out", str(tmp_path / "run"), *args]
    )
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert words in result.stderr and "Traceback" not in result.output
    assert not (tmp_path / "run").exists()
