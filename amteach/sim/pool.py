"""One pool for every batch of games: `simulate`, a sweep's values and a best-play search all
play their chunks of games through `Pool.run` (docs/simulation.md, "Workers").

A pool runs a task (a function importable by name, such as `amteach.sim.play.run_chunk`: never
a closure or a lambda) on a list of jobs:

- here, one after another, with one worker;
- on worker processes of its own, with more: started by `forkserver` where the platform has it
  (Linux, macOS) and `spawn` elsewhere (Windows), never by forking the caller, which may run
  threads (a dashboard's batch runs on one; Python deprecates fork there from 3.12). The fork
  server has the engine, the bots and the compiled core imported once (`PRELOAD`), so a worker
  starts from there in milliseconds, and it imports nothing of the UI. A script that starts a
  batch on several workers needs the usual `if __name__ == "__main__":` guard. Batches share
  one such pool a process (`shared_pool`): its workers stay up between batches, with what they
  have learned (a rule set's landing odds), and stop after `IDLE_SECONDS` without a batch;
- on someone else's `concurrent.futures` executor: a Dask cluster's (`amteach.sim.cluster`),
  shut down by its owner.

Every game's seed comes from the master seed and the game's index alone, so how the games are
split, and who plays them, changes no result. Ctrl-C, or a callback that raises
KeyboardInterrupt (a Cancel button), stops a run cleanly: jobs not started are dropped, those
running finish, and everything finished is handed over.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from ..engine.errors import AmteachError
from . import core

# what the fork server imports once for every worker it starts: the engine, the bots, numpy
# and the compiled core (the caller's own script is not among them)
PRELOAD = ("amteach.sim.play",)
MOST_GAMES_A_CHUNK = 100
CHUNKS_A_WORKER = 8  # small enough to share out evenly, and to stop soon after a Cancel
POLL_SECONDS = 0.2  # how often a run looks for a Ctrl-C while it waits
IDLE_SECONDS = 60.0  # a shared pool's workers stop after this long without a batch

IN_PROCESS, PROCESS_POOL = "in-process", "process-pool"


class WorkersStopped(AmteachError):
    """A worker process died before finishing its games."""


def start_method() -> str:
    """How the pool starts its worker processes: "forkserver", or "spawn" where the platform
    has no fork server."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


def chunks(
    games: int,
    workers: int,
    per_worker: int = CHUNKS_A_WORKER,
    most: int | None = MOST_GAMES_A_CHUNK,
    least: int = 1,
) -> list[tuple[int, int]]:
    """Games 0..games-1 cut into (start, stop) chunks: about `per_worker` chunks a worker, of
    at most `most` games (None: no bound) and at least `least` (but the last)."""
    size = -(-games // max(1, workers * per_worker))
    if most is not None:
        size = min(size, most)
    size = max(1, least, size)
    return [(start, min(start + size, games)) for start in range(0, games, size)]


def start_worker(pure_python: bool) -> None:
    """What every worker process does first: leave Ctrl-C to the caller (which stops the run
    and keeps what finishes), and play on the caller's core."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ[core.PURE_PYTHON_ENV] = "1" if pure_python else "0"
    core.kernel.cache_clear()


@dataclass(frozen=True)
class Chunking:
    """How a pool cuts a batch into jobs: about `per_worker` chunks a worker, of at most
    `most` games (None: no bound) and at least `least`. Worker processes of our own cost
    about a millisecond a job, so small chunks (the default) share the games out evenly and
    stop soon after a Cancel; a cluster's job costs more (`amteach.sim.cluster`)."""

    per_worker: int = CHUNKS_A_WORKER
    most: int | None = MOST_GAMES_A_CHUNK
    least: int = 1


class Pool:
    """Runs jobs here (`workers` 1), on worker processes of its own (`workers` > 1), or on
    `executor` (a Dask cluster's; `workers` is then the games it plays at once). Use it as a
    context manager: the processes start on entry and stop on exit, and one pool can serve
    many runs (a sweep's values, a search's matches)."""

    def __init__(
        self,
        workers: int = 1,
        executor: Executor | None = None,
        backend: str | None = None,
        chunking: Chunking | None = None,
    ) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers!r}")
        self.workers = workers
        self.chunking = chunking or Chunking()
        self.executor = executor
        self.own_executor = False
        self.backend = backend or (
            "executor" if executor is not None else PROCESS_POOL if workers > 1 else IN_PROCESS
        )
        self.key: tuple[int, bool] | None = None  # set for the shared pools (shared_pool)
        self.users = 0
        self.idle: threading.Timer | None = None
        self.stopped = threading.Event()

    def chunks(self, games: int) -> list[tuple[int, int]]:
        """Games 0..games-1 cut into this pool's chunks (see `Chunking`)."""
        c = self.chunking
        return chunks(games, self.workers, c.per_worker, c.most, c.least)

    def __enter__(self) -> Pool:
        if self.key is None:  # a shared pool is up already, and counted its user
            self.start()
        return self

    def start(self) -> None:
        """Start the worker processes, if this pool has its own."""
        if self.executor is None and self.workers > 1:
            context = multiprocessing.get_context(start_method())
            if context.get_start_method() == "forkserver":
                context.set_forkserver_preload(list(PRELOAD))
            self.executor = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=context,
                initializer=start_worker,
                initargs=(core.kernel() is None,),
            )
            self.own_executor = True

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker processes of our own (an executor given to us is its owner's); a
        shared pool stops them once it has been idle for `IDLE_SECONDS`."""
        if self.key is not None:
            with SHARED_LOCK:
                self.users -= 1
                if self.users or SHARED.get(self.key) is not self:
                    # in use, or dropped (a worker died): the last user stops it
                    now = not self.users
                else:
                    now = False
                    self.idle = threading.Timer(IDLE_SECONDS, self.stop_if_idle)
                    self.idle.daemon = True
                    self.idle.start()
            if now:
                self.stop()
            return
        self.stop()

    def stop_if_idle(self) -> None:
        """(A shared pool's timer.) Stop the workers if no batch has come since."""
        with SHARED_LOCK:
            if self.users or SHARED.get(self.key) is not self:
                return
            del SHARED[self.key]
        self.stop()

    def stop(self) -> None:
        """Stop the worker processes of our own now."""
        if self.own_executor and self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
            self.executor = None
            self.own_executor = False
        self.stopped.set()

    def run(
        self,
        task: Callable[..., Any],
        jobs: Sequence[tuple[Any, ...]],
        on_result: Callable[[int, Any], None],
    ) -> bool:
        """Call `task(*job)` for every job, and `on_result(index, result)` here as each one
        finishes (in the order they finish). Ctrl-C, or `on_result` raising
        KeyboardInterrupt, stops the run: jobs not started are dropped, those running finish
        and are handed to `on_result` too. Returns whether the run was stopped."""
        if self.executor is None:
            try:
                for index, job in enumerate(jobs):
                    on_result(index, task(*job))
            except KeyboardInterrupt:
                return True
            return False
        stop = threading.Event()
        with ctrl_c_sets(stop):
            pending = {self.executor.submit(task, *job): i for i, job in enumerate(jobs)}
            try:
                while pending and not stop.is_set():
                    ready, _ = wait(pending, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
                    for future in ready:
                        index = pending.pop(future)
                        on_result(index, self.result_of(future))
            except KeyboardInterrupt:
                stop.set()
            if not stop.is_set():
                return False
            for future in pending:
                future.cancel()
            wait(pending)
            for future, index in pending.items():
                if not future.cancelled() and future.exception() is None:
                    with suppress(KeyboardInterrupt):  # the run is stopping already
                        on_result(index, future.result())
        return True

    def result_of(self, future: Future) -> Any:
        """A finished job's result; a worker that died says so in one sentence (and a shared
        pool is not used again)."""
        try:
            return future.result()
        except BrokenProcessPool:
            if self.key is not None:
                with SHARED_LOCK:
                    if SHARED.get(self.key) is self:
                        del SHARED[self.key]
            raise WorkersStopped(
                "a worker process stopped before finishing its games (it ran out of memory, "
                "was killed, or a script started a batch on several workers without "
                '`if __name__ == "__main__":`); run with workers=1 to see the error here'
            ) from None


# the shared pools, by (workers, pure Python or not)
SHARED: dict[tuple[int, bool], Pool] = {}
SHARED_LOCK = threading.Lock()


def shared_pool(workers: int) -> Pool:
    """This process's pool of `workers` worker processes, shared by its batches so that
    workers start once and keep what they learn (a rule set's landing odds) from one batch to
    the next; they stop after `IDLE_SECONDS` without a batch, or with the process. With one
    worker, a pool that plays here. Use it as a context manager (`with shared_pool(2) as
    pool:`): the block's end tells the pool its user is done."""
    if workers == 1:
        return Pool(1)
    key = (workers, core.kernel() is None)
    with SHARED_LOCK:
        pool = SHARED.get(key)
        if pool is None:
            pool = Pool(workers)
            pool.start()
            pool.key = key
            SHARED[key] = pool
        pool.users += 1
        if pool.idle is not None:
            pool.idle.cancel()
            pool.idle = None
        return pool


@contextmanager
def ctrl_c_sets(stop: threading.Event) -> Iterator[None]:
    """While the block runs, Ctrl-C only sets `stop` (on the main thread; elsewhere Ctrl-C
    does not arrive): a KeyboardInterrupt raised inside the pool's own locking could leave it
    unable to shut down."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: stop.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class Progress:
    """How far a run has got, shown as a tqdm bar (`progress` True: one that suits a notebook;
    "text": a terminal's; False: none) and told to `on_advance(done, total)`, which may raise
    KeyboardInterrupt to stop the run (a Cancel button). Use it as a context manager: the bar
    closes on exit."""

    def __init__(
        self,
        progress: bool | str,
        total: int,
        unit: str = "game",
        description: str = "Simulating",
        on_advance: Callable[[int, int], None] | None = None,
    ) -> None:
        self.total = total
        self.done = 0
        self.on_advance = on_advance
        self.bar = None
        if progress:
            if progress == "text":
                from tqdm import tqdm
            else:
                from tqdm.auto import tqdm
            self.bar = tqdm(total=total, unit=unit, desc=description, leave=False)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def advance(self, amount: int) -> None:
        """`amount` more done."""
        self.to(self.done + amount)

    def to(self, done: int, **status: Any) -> None:
        """`done` in all; `status` shown beside the bar (best play's phase and best rate)."""
        done = min(done, self.total)
        if self.bar is not None:
            if status:
                self.bar.set_postfix(status, refresh=False)
            if done != self.done:
                self.bar.update(done - self.done)  # tqdm redraws at most every 0.1 s
            elif status:
                self.bar.refresh()
        self.done = done
        if self.on_advance is not None:
            self.on_advance(self.done, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
