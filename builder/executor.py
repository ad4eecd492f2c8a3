"""One executor interface for every parallel piece of the builder.

``make_executor("process")`` (default) runs tasks in a local process pool, ``"dask"`` on Dask
distributed (``scheduler="tcp://HOST:PORT"``, or a ``LocalCluster`` started here when no scheduler is
given) and ``"serial"`` in this process. Every kind gives the same results in the same order: ``map``
returns results in input order, so whatever finishes first, what the builder writes is the same.

Large read-only arrays go to workers once: ``share(array)`` returns a handle that tasks receive as an
argument and see as the array itself. The process pool memory-maps one ``.npy`` file per array (loaded
once per worker process), Dask scatters it to every worker (``broadcast=True``). Tasks must be pure
functions of their arguments (module-level, picklable): a lost worker's tasks are simply run again --
Dask reschedules them, the process pool is restarted and the unfinished tasks resubmitted.
"""
from __future__ import annotations

import atexit
import hashlib
import logging
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import numpy as np

KINDS = ("process", "dask", "serial")
POOL_RESTARTS = 3
# one BLAS thread per worker: results must not depend on how many threads a library picked
SINGLE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


class ExecutorError(RuntimeError):
    """The executor cannot be started (bad scheduler address, dask missing, ...)."""


class Shared:
    """Handle to a large read-only array shared with the workers (see ``BuildExecutor.share``)."""

    __slots__ = ("key", "path", "future", "array")

    def __init__(self, key: str, path: str | None = None, future=None, array=None):
        self.key, self.path, self.future, self.array = key, path, future, array

    def __getstate__(self):  # only the file reference travels to a process-pool worker
        return {"key": self.key, "path": self.path}

    def __setstate__(self, state):
        self.key, self.path, self.future, self.array = state["key"], state["path"], None, None


_MAPPED: dict[str, np.ndarray] = {}


def _resolve(x):
    if isinstance(x, Shared):
        if x.array is not None:
            return x.array
        a = _MAPPED.get(x.path)
        if a is None:
            a = _MAPPED[x.path] = np.load(x.path, mmap_mode="r")
        return a
    return x


def _worker_init(driver: int, nice: int = 0) -> None:
    # Ctrl-C reaches the whole process group: the builder decides when to stop (after a checkpoint)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice > os.nice(0):
        os.nice(nice - os.nice(0))
    threading.Thread(target=_exit_with, args=(driver,), daemon=True, name="driver-watch").start()


def _exit_with(driver: int) -> None:
    """A worker outlives a build killed with SIGKILL (it is the forkserver's child): leave with it."""
    while True:
        time.sleep(1.0)
        try:
            os.kill(driver, 0)
        except ProcessLookupError:
            os._exit(1)


def _call(fn, args):
    return fn(*(_resolve(a) for a in args))


def _beside(driver: int, nice: int, fn, args) -> None:
    _worker_init(driver, nice)
    fn(*args)


def _key(array: np.ndarray) -> str:
    h = hashlib.blake2b(digest_size=12)
    h.update(str((array.dtype.str, array.shape)).encode())
    h.update(np.ascontiguousarray(array).data)
    return h.hexdigest()


class BuildExecutor:
    kind = "serial"
    workers = 1
    # cores this machine's tasks may share as threads (a task left alone takes them all): the pool's
    # workers; 1 on Dask, whose workers' machines this process cannot see
    local_cores = 1

    def map(self, fn, *iterables) -> list:
        """``[fn(*args) for args in zip(*iterables)]``, run on the workers, in input order."""
        return [_call(fn, args) for args in zip(*iterables)]

    def submit(self, fn, *args) -> Future:
        f: Future = Future()
        try:
            f.set_result(_call(fn, args))
        except BaseException as e:  # noqa: BLE001 - delivered through the future like a pool does
            f.set_exception(e)
        return f

    def share(self, array: np.ndarray) -> Shared:
        return Shared(_key(array), array=np.asarray(array))

    def lower_priority(self, nice: int) -> None:
        """Run this executor's later tasks at niceness ``nice`` (no lower than now): local workers only."""

    def process_ids(self) -> list[int]:
        """The ids of this machine's processes working for this executor now (its workers, those ``beside``
        started): what a lane's CPU count reads (``builder.lane_cpu``); none where its workers are elsewhere."""
        return []

    def beside(self, fn, *args, nice: int = 19):
        """Start ``fn(*args)`` in a process of its own on this machine at niceness ``nice``, beside the tasks,
        for work whose result nobody waits for (numba's cache warmed ahead of the tasks); the process, or
        None where the executor has no local workers. ``stop_beside`` ends it."""
        return None

    @staticmethod
    def stop_beside(proc) -> None:
        """End a process ``beside`` started, if it still runs."""
        if proc is not None and proc.is_alive():
            proc.terminate()
            proc.join(5.0)

    def close(self, kill: bool = False) -> None:
        """Release the workers; ``kill`` stops running tasks instead of waiting for them."""

    def describe(self) -> str:
        return "serial (this process)"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class ProcessExecutor(BuildExecutor):
    """A local process pool (forkserver: no LMDB handle or numba thread pool crosses a fork)."""

    kind = "process"

    def __init__(self, workers: int | None = None, share_dir: str | None = None):
        self.workers = self.local_cores = max(1, workers or os.cpu_count() or 1)
        self._ctx = multiprocessing.get_context("forkserver")
        self._pool: ProcessPoolExecutor | None = None
        if share_dir is not None:
            Path(share_dir).mkdir(parents=True, exist_ok=True)
        self._dir = Path(tempfile.mkdtemp(prefix=f"share-{os.getpid()}-", dir=share_dir))
        self._shared: dict[str, Shared] = {}
        self.restarts = 0
        self._nice = 0
        self._beside: list = []

    def _get_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            for k, v in SINGLE_THREAD_ENV.items():
                os.environ.setdefault(k, v)
            self._pool = ProcessPoolExecutor(self.workers, mp_context=self._ctx, initializer=_worker_init,
                                             initargs=(os.getpid(), self._nice))
        return self._pool

    def beside(self, fn, *args, nice: int = 19):
        proc = self._ctx.Process(target=_beside, args=(os.getpid(), nice, fn, args), daemon=True)
        proc.start()
        self._beside = [p for p in self._beside if p.is_alive()] + [proc]
        return proc

    def process_ids(self) -> list[int]:
        try:        # the pool's own thread may be adding or removing a worker
            workers = list(getattr(self._pool, "_processes", None) or {})
        except RuntimeError:
            workers = []
        return workers + [p.pid for p in self._beside if p.pid is not None]

    def lower_priority(self, nice: int) -> None:
        # the next task starts a new pool whose workers take the niceness (numba's kernels load from its cache)
        self._nice = nice
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def _restart(self, err: BaseException) -> None:
        self.restarts += 1
        if self.restarts > POOL_RESTARTS:
            raise ExecutorError(f"process pool broke {self.restarts} times; last: {err}") from err
        print(f"gamestrategy-build: a worker process died ({err}); restarting the pool and resubmitting "
              f"unfinished tasks", file=sys.stderr)
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = None

    def map(self, fn, *iterables) -> list:
        todo = list(zip(*iterables))
        out: list = [None] * len(todo)
        done = [False] * len(todo)
        while not all(done):
            pool = self._get_pool()
            try:
                futs = {i: pool.submit(_call, fn, todo[i]) for i in range(len(todo)) if not done[i]}
                for i, f in futs.items():
                    out[i] = f.result()
                    done[i] = True
            except BrokenProcessPool as e:
                for i, f in futs.items():  # keep what finished before the pool broke
                    if not done[i] and f.done() and not f.cancelled() and f.exception() is None:
                        out[i], done[i] = f.result(), True
                self._restart(e)
        return out

    def submit(self, fn, *args) -> Future:
        return self._get_pool().submit(_call, fn, args)

    def share(self, array: np.ndarray) -> Shared:
        key = _key(array)
        if key not in self._shared:
            path = self._dir / f"{key}.npy"
            if not path.exists():
                tmp = self._dir / f".{key}.{os.getpid()}.npy"
                np.save(tmp, np.ascontiguousarray(array), allow_pickle=False)
                os.replace(tmp, path)
            self._shared[key] = Shared(key, path=str(path), array=np.asarray(array))
        return self._shared[key]

    def close(self, kill: bool = False) -> None:
        if self._pool is not None:
            if kill:
                for p in list(getattr(self._pool, "_processes", {}).values()):
                    p.terminate()
            self._pool.shutdown(wait=not kill, cancel_futures=True)
            self._pool = None
        shutil.rmtree(self._dir, ignore_errors=True)  # workers that still map a file keep it until they exit

    def describe(self) -> str:
        return f"process pool ({self.workers} workers)"


class DaskExecutor(BuildExecutor):
    """Dask distributed futures: a scheduler at ``scheduler``, or a LocalCluster of ``workers`` processes."""

    kind = "dask"

    def __init__(self, workers: int | None = None, scheduler: str | None = None):
        try:
            from distributed import Client, LocalCluster
        except ImportError as e:  # pragma: no cover - dask is a pinned dependency
            raise ExecutorError("dask distributed is not installed (pip install -e .)") from e
        for k, v in SINGLE_THREAD_ENV.items():
            os.environ.setdefault(k, v)
        self._cluster = None
        try:
            if scheduler:
                self.client = Client(scheduler, timeout="10s")
            else:
                self._cluster = LocalCluster(n_workers=max(1, workers or os.cpu_count() or 1), threads_per_worker=1,
                                             processes=True, dashboard_address=None, memory_limit=0,
                                             silence_logs=logging.ERROR)
                self.client = Client(self._cluster)
        except (OSError, TimeoutError, ValueError) as e:
            raise ExecutorError(f"cannot reach the Dask scheduler {scheduler or '(local cluster)'}: {e}") from e
        self.scheduler = scheduler or self._cluster.scheduler_address
        self.workers = max(1, len(self.client.scheduler_info(n_workers=-1)["workers"]))
        where = self.scheduler if scheduler else f"LocalCluster at {self.scheduler}"
        self._description = f"dask ({self.workers} workers, {where})"
        self._shared: dict[str, Shared] = {}
        atexit.register(self.close)

    def _args(self, args):
        return tuple(a.future if isinstance(a, Shared) else a for a in args)

    def map(self, fn, *iterables) -> list:
        items = list(zip(*iterables))
        for attempt in range(POOL_RESTARTS + 1):
            futs = [self.client.submit(_call, fn, self._args(args), pure=False) for args in items]
            try:
                return self.client.gather(futs)
            except CancelledError as e:  # a shared array was lost with the workers holding it
                if attempt == POOL_RESTARTS:
                    raise ExecutorError(f"dask: tasks cancelled {attempt + 1} times; last: {e}") from e
                print(f"gamestrategy-build: dask lost shared data ({e}); scattering it again", file=sys.stderr)
                self._rescatter()
        raise AssertionError("unreachable")

    def _rescatter(self) -> None:
        for h in self._shared.values():
            h.future = self.client.scatter(np.ascontiguousarray(h.array), broadcast=True, hash=False)

    def submit(self, fn, *args) -> Future:
        return self.client.submit(_call, fn, self._args(args), pure=False)

    def share(self, array: np.ndarray) -> Shared:
        key = _key(array)
        if key not in self._shared:
            fut = self.client.scatter(np.ascontiguousarray(array), broadcast=True, hash=False)
            self._shared[key] = Shared(key, future=fut, array=np.asarray(array))
        return self._shared[key]

    def close(self, kill: bool = False) -> None:
        client, self.client = getattr(self, "client", None), None
        if client is not None:
            client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None

    def describe(self) -> str:
        return self._description


def make_executor(kind: str = "process", workers: int | None = None, scheduler: str | None = None,
                  share_dir: str | None = None) -> BuildExecutor:
    if scheduler and kind != "dask":
        kind = "dask"
    if kind == "serial" or (kind == "process" and workers == 1):
        return BuildExecutor()
    if kind == "process":
        return ProcessExecutor(workers, share_dir)
    if kind == "dask":
        return DaskExecutor(workers, scheduler)
    raise ExecutorError(f"unknown executor {kind!r} (one of {', '.join(KINDS)})")
