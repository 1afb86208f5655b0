"""Playing games on a dask.distributed cluster: a scheduler and workers in other processes,
on this machine or others (docs/deploy.md, "Batches and best play on a cluster").

A cluster is one more way for the batch pool (`amteach.sim.pool.Pool`) to play its jobs: its
executor takes the place of the pool's own worker processes, and everything else (chunks,
progress, Ctrl-C keeping what finished) is the same. `simulate(client=...)` plays a batch on
a client's cluster (`dask_pool`); a best-play search takes the cluster as an executor
(`cluster_executor(address)` gives one, with the number of worker threads).

Results are the same as on one machine: every game's seed comes from the master seed and the
game's index alone (`play.game_seed`), so how the games are split across workers changes
nothing. The workers must run the same amteach version as the caller (they import
`amteach.sim.play` to play a chunk).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..engine.errors import InputError
from .cpus import available_cpus
from .pool import Chunking, Pool

DASK = "dask"
# Issue 41: a Dask task costs milliseconds of the scheduler's and the workers' time (3 ms on
# a quiet machine, tens under load: benchmarks/bench_dask.py), against under a millisecond for
# a game on the compiled core. A task therefore plays at least `least` games, so that this
# cost stays under 5% of the task, and a batch is cut into a few tasks a worker thread (so a
# slow worker does not hold up the end of the batch), not the local pool's chunks of 100.
DASK_CHUNKING = Chunking(per_worker=4, most=None, least=500)


class ClusterUnavailable(InputError):
    """The Dask scheduler cannot be reached, or it has no workers."""


@dataclass(frozen=True)
class Cluster:
    """A connected cluster: its executor and how many games it plays at once."""

    executor: Executor
    slots: int  # worker threads across the cluster (one game at a time each)
    address: str


def dask_client(address: str) -> Any:
    """A dask.distributed Client: "local" starts a LocalCluster with one process per CPU this
    process may use (`available_cpus`)."""
    from distributed import Client, LocalCluster

    if address == "local":
        cluster = LocalCluster(
            n_workers=available_cpus(),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
        return Client(cluster)
    return Client(address)


# a scheduler's address (tcp://host:port): batches that name no workers, in every process
# started with it (every kernel of a dashboard server), play on that one cluster
DASK_ENV = "AMTEACH_DASK"
CLIENTS: dict[str, Any] = {}
CLIENTS_LOCK = threading.Lock()


def shared_client() -> Any:
    """This process's client of the cluster `AMTEACH_DASK` names (connected once, then kept),
    or None where it names none. An unreachable scheduler is a `ClusterUnavailable`."""
    address = os.environ.get(DASK_ENV, "").strip()
    if not address:
        return None
    with CLIENTS_LOCK:
        client = CLIENTS.get(address)
        if client is None or client.status not in ("running", "connecting"):
            try:
                client = dask_client(address)
            except OSError as err:
                raise ClusterUnavailable(
                    f"cannot reach the Dask scheduler {address} ({DASK_ENV}): {err}"
                ) from None
            CLIENTS[address] = client
        return client


def worker_threads(client: Any) -> int:
    """Threads across the cluster's workers (at least 1)."""
    workers = client.scheduler_info().get("workers", {})
    return max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))


def dask_pool(client: Any, workers: int = 1) -> Pool:
    """A pool that plays its jobs on the client's cluster, as many at once as the cluster has
    worker threads (or `workers`, if more). `pure=False`: every call runs, even one with the
    same arguments as another."""
    try:
        slots = worker_threads(client)
    except Exception:  # pragma: no cover - an unreachable scheduler shows up when submitting
        slots = 1
    return Pool(
        max(workers, slots), client.get_executor(pure=False), backend=DASK, chunking=DASK_CHUNKING
    )


@contextmanager
def cluster_executor(address: str, wait_seconds: float = 30.0) -> Iterator[Cluster]:
    """Connect to the scheduler at `address` ("tcp://host:port", or "local" for a
    LocalCluster of one process per core) and yield a `Cluster` whose executor runs each
    submitted call on a worker. Waits up to `wait_seconds` for a first worker. The client is
    closed when the block ends; the cluster itself keeps running."""
    try:
        client = dask_client(address)
    except OSError as err:
        raise ClusterUnavailable(f"cannot reach the Dask scheduler {address}: {err}") from None
    try:
        try:
            client.wait_for_workers(1, timeout=wait_seconds)
        except TimeoutError:
            raise ClusterUnavailable(
                f"the Dask scheduler {address} has no workers (waited {wait_seconds:g} s)"
            ) from None
        # pure=False: every call runs, even one with the same arguments as another
        yield Cluster(client.get_executor(pure=False), worker_threads(client), address)
    finally:
        client.close()
