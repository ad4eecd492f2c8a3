"""Live computation off the serving threads: a pool of worker processes owned by the server process.

A backend that has to compute an answer (nothing in its store) calls, from its serving thread::

    result = pool.submit(fn, *args, deadline=deadline, cost=Cost(seconds, nbytes, what, serve),
                         active=context.is_active)

- ``fn`` is a top-level function in ``games/...`` (pickled by reference), taking plain arguments
  (numbers, strings, tuples, numpy arrays, a store path it opens itself) and returning plain data.
  It runs in a worker process, so it never holds the serving process's interpreter lock; the
  serving thread only waits on a pipe (without the lock) for the answer.
- ``deadline``: the caller's deadline on the ``time.monotonic`` clock, or None: then the pool's
  ``default_seconds`` from now (a call without a deadline still gets a cap).
- ``cost``: the estimate, made before anything starts. ``what`` names the work ("solve Dudo groups
  up to 6 dice in play..."), ``serve`` what would answer it without live work ("build the store
  dudo-m3-3dice: `make build-stores ARGS='--variant dudo-m3-3dice'`").
- ``active``: a callable that turns False when the caller has gone (gRPC ``context.is_active``).

Admission, at once and before any work starts (:class:`Refused`, with the gRPC status name):
RESOURCE_EXHAUSTED when this server process already runs ``slots`` live computations;
FAILED_PRECONDITION when the estimate exceeds the time left before the deadline, the per-computation
caps ``max_seconds`` / ``max_bytes``; the message says what the work was and what would serve it.

While the work runs, the waiting thread checks the caller every ``POLL_SECONDS``. At the deadline,
when the caller cancels, or when the worker's resident memory passes ``max_bytes``, the worker is
killed (SIGKILL: its CPU and memory are freed at once), its scratch directory removed, and a
replacement started in the background; the call gets :class:`Stopped` (DEADLINE_EXCEEDED,
CANCELLED or RESOURCE_EXHAUSTED). Work never outlives its deadline by more than a poll interval and
the kill. An exception inside ``fn`` is :class:`LiveError` (the worker survives and is reused).

A serving call hands its backend a :class:`LiveCall` (the pool, the call's deadline and its
``active``), whose ``submit(fn, *args, cost=...)`` is the above; ``call.cache`` is the pool's cache.

Workers are forkserver processes (the forkserver imports ``preload`` once, so a replacement starts
in milliseconds), reused from one computation to the next, run at ``nice`` (the serving threads win
the cores when both want them), each with a scratch directory as its ``tempfile`` directory (inside the
pool's own, which ``close`` and the process's exit remove), and killed by the kernel if their parent goes.
Work with a fallback (``ready_only``) never gets a worker started on its time: it takes an idle one, or waits
for one being started while the work would still end before its deadline. :class:`LiveCache` keeps results
worth keeping (a solved Dudo game) per server process, within a memory bound.
"""
from __future__ import annotations

import atexit
import logging
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from multiprocessing import spawn

from games.parent_death import die_with_parent

log = logging.getLogger("gamestrategy.server.live")

POLL_SECONDS = 0.02  # how often a waiting call checks its caller (cancellation) and the worker's memory
DEFAULT_SLOTS = 2  # live computations at once per server process (two searched Dudo games at once)
DEFAULT_SECONDS = 10.0  # a call without a deadline may wait this long for live work
MAX_SECONDS = 60.0  # no live computation is admitted with a larger estimate
MAX_BYTES = 2 << 30  # nor with a larger memory estimate; a worker past it is killed
CACHE_BYTES = 256 << 20  # live results kept per server process
NICE = 19  # live workers yield the cores to the serving threads (and to anything else)
# live work with a fallback answer (a Dudo store row) stops this long before the caller's deadline: the time left
# for the fallback, the reply, and the serving thread's own wake-up, which a loaded machine delays
# (bench/deadline_edge.py measures it; docs/serving.md)
DEFAULT_MARGIN = 0.05
WORKER_NAME = "gamestrategy-live"
CLOSE_WAIT_SECONDS = 5.0  # how long closing waits for a killed worker to end


def _preparation_data(name, _inner=spawn.get_preparation_data):
    """multiprocessing's start data, without the parent's ``__main__`` for our workers: they need
    nothing from it, and a worker would otherwise run the parent's main script again (or fail, for
    a script read from stdin)."""
    data = _inner(name)
    if name == WORKER_NAME:
        data.pop("init_main_from_path", None)
        data.pop("init_main_from_name", None)
    return data


spawn.get_preparation_data = _preparation_data


@dataclass(frozen=True)
class Cost:
    """An estimate of one live computation, made before it starts."""
    seconds: float  # CPU seconds on one core
    nbytes: int  # peak memory of the worker
    what: str  # the work, e.g. "solve the 3-dice Dudo game's groups up to 4 dice in play (9 groups)"
    serve: str = ""  # what would answer without live work, e.g. "build the store ...: `make ...`"


class Refused(Exception):
    """Not started: ``status`` is RESOURCE_EXHAUSTED (slots full), FAILED_PRECONDITION (cost) or UNAVAILABLE (the
    server is shutting down, or no worker could be started: both temporary)."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


class Stopped(Exception):
    """Started and stopped: ``status`` is DEADLINE_EXCEEDED, CANCELLED or RESOURCE_EXHAUSTED (memory)."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status


class LiveError(Exception):
    """``fn`` raised in the worker (the message names the exception)."""


def _worker_main(conn, scratch: str, nice: int) -> None:
    """A worker: run (fn, args) messages one at a time until the pipe closes."""
    die_with_parent()   # the forkserver, which ends with the server process
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's Ctrl-C is the server's; it kills us
    if nice:
        try:
            os.nice(nice)
        except OSError:
            pass
    tempfile.tempdir = scratch
    while True:
        try:
            fn, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            out = ("ok", fn(*args))
        except BaseException as e:  # noqa: BLE001 - reported to the caller, the worker lives on
            out = ("error", f"{type(e).__name__}: {e}")
        try:
            conn.send(out)
        except (BrokenPipeError, OSError):
            return


class _Worker:
    __slots__ = ("proc", "conn", "scratch")

    def __init__(self, ctx, nice: int, parent: str):
        self.scratch = tempfile.mkdtemp(prefix="worker-", dir=parent)
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child, self.scratch, nice), daemon=True,
                                name=WORKER_NAME)
        try:
            self.proc.start()
        except BaseException:
            self.conn.close()
            shutil.rmtree(self.scratch, ignore_errors=True)
            raise
        finally:
            child.close()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def rss(self) -> int:
        """Resident memory of the worker's own (resident less file-backed and shared pages: a store's map, read in
        place and shared by every process, is not the work's memory)."""
        try:
            with open(f"/proc/{self.proc.pid}/statm") as f:
                fields = f.read().split()
            return (int(fields[1]) - int(fields[2])) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            return 0

    def kill(self) -> None:
        """SIGKILL (the kernel frees its CPU and memory at once); reaped in the background."""
        try:
            os.kill(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, TypeError):
            pass
        threading.Thread(target=self._reap, name="live-reap", daemon=True).start()

    def _reap(self) -> None:
        self.proc.join(30)
        self.conn.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def stop(self) -> None:
        """An idle worker: close its pipe (it exits), then make sure."""
        self.conn.close()
        self.proc.join(1)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(5)
        shutil.rmtree(self.scratch, ignore_errors=True)


def _format_seconds(s: float) -> str:
    if s >= 3600:
        return f"{s / 3600:.1f} h"
    if s >= 60:
        return f"{s / 60:.1f} min"
    return f"{s:.2f} s" if s < 10 else f"{s:.0f} s"


def _format_bytes(n: int) -> str:
    return f"{n / 2**30:.1f} GB" if n >= 2**30 else f"{n / 2**20:.0f} MB"


class LivePool:
    """Worker processes for live computation, with admission control (see the module docstring)."""

    def __init__(self, slots: int = DEFAULT_SLOTS, default_seconds: float = DEFAULT_SECONDS,
                 max_seconds: float = MAX_SECONDS, max_bytes: int = MAX_BYTES, nice: int = NICE,
                 preload: tuple[str, ...] = (), estimate_scale: float = 1.0, cache_bytes: int = CACHE_BYTES,
                 margin: float = DEFAULT_MARGIN):
        """``preload``: modules the forkserver imports once for every worker (those of the live
        functions). ``estimate_scale`` multiplies every cost estimate's seconds (calibrates the
        estimates to a slower or faster machine). ``margin``: what work with a fallback leaves before
        the caller's deadline (``LiveCall.fallback_deadline``)."""
        if slots < 0:
            raise ValueError("slots must be >= 0")
        if margin < 0:
            raise ValueError("margin must be >= 0")
        self.margin = margin
        self.slots, self.default_seconds = slots, default_seconds
        self.max_seconds, self.max_bytes, self.nice = max_seconds, max_bytes, nice
        self.estimate_scale = estimate_scale
        self._ctx = multiprocessing.get_context("forkserver")
        self._preload = ("server.live_threading", "server.live", *preload)
        self._ctx.set_forkserver_preload(list(self._preload))
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # notified when a worker turns idle or a start ends
        self._running = 0
        self._idle: list[_Worker] = []
        self._busy: dict[int, _Worker] = {}  # pid -> worker, for the bench and tests
        self._closed = False
        self._starting = False  # a background start of idle workers is under way
        self._start_failures = 0  # background starts that ended without a worker (their cause logged)
        self._scratch: str | None = None  # the workers' scratch directories' parent, made with the first worker
        self.killed = 0  # workers killed at a deadline, a cancellation or the memory cap
        self.cache = LiveCache(cache_bytes)

    # ------------------------------------------------------------------ workers
    def start(self, n: int = 1) -> None:
        """Start up to ``n`` idle workers in the background (server start-up)."""
        with self._lock:
            self._starting = True
        threading.Thread(target=self._fill, args=(n,), name="live-pool-start", daemon=True).start()

    def _fill(self, n: int) -> None:
        try:
            self._fill_to(n)
        finally:
            with self._changed:
                self._starting = False
                self._changed.notify_all()

    def _fill_to(self, n: int) -> None:
        try:
            while True:
                with self._lock:
                    if self._closed or len(self._idle) + len(self._busy) >= max(n, self.slots) \
                            or len(self._idle) >= n:
                        return
                w = self._new_worker()
                with self._lock:
                    if self._closed:
                        w.stop()
                        return
                    self._idle.append(w)
                    self._changed.notify_all()
        except Refused:  # logged; a worker that cannot start is started on demand instead
            with self._lock:
                self._start_failures += 1

    def _new_worker(self) -> _Worker:
        """A started worker; Refused(UNAVAILABLE) when none can be started, the cause in the log. The usual cause is
        the forkserver dying as it imports ``preload``: at the next start multiprocessing starts a new one."""
        try:
            return _Worker(self._ctx, self.nice, self._scratch_parent())
        except Exception as e:  # noqa: BLE001 - any cause; the caller may retry
            log.error("cannot start a live worker", extra={"fields": {
                "error": f"{type(e).__name__}: {e}"[:300], "preload": ",".join(self._preload),
                "numba_cache_dir": os.environ.get("NUMBA_CACHE_DIR", "")}})
            raise Refused("UNAVAILABLE", "live work refused: this server could not start a live worker (its "
                                         "log says why); retry later") from None

    def _scratch_parent(self) -> str:
        with self._lock:
            if self._scratch is None:
                self._scratch = tempfile.mkdtemp(prefix=f"{WORKER_NAME}-")
                # a process that ends without closing its pool (a test's server, a script) leaves none either
                atexit.register(shutil.rmtree, self._scratch, ignore_errors=True)
            return self._scratch

    def _take_worker(self) -> _Worker:
        with self._lock:
            w = self._idle.pop() if self._idle else None
        if w is not None and not w.proc.is_alive():
            w.stop()
            w = None
        if w is None:
            w = self._new_worker()
        with self._lock:
            self._busy[w.pid] = w
        return w

    def _give_back(self, w: _Worker) -> None:
        with self._lock:
            self._busy.pop(w.pid, None)
            if not self._closed:
                self._idle.append(w)
                self._changed.notify_all()
                return
        w.stop()

    def _discard(self, w: _Worker, why: str, what: str) -> None:
        with self._lock:
            self._busy.pop(w.pid, None)
            self.killed += 1
            replace = not self._closed and not self._idle
        w.kill()
        log.warning("live worker killed", extra={"fields": {"worker_pid": w.pid, "reason": why, "work": what}})
        if replace:
            self.start(1)

    def pids(self) -> dict[str, list[int]]:
        """Worker process ids: {"idle": [...], "busy": [...]}."""
        with self._lock:
            return {"idle": [w.pid for w in self._idle], "busy": list(self._busy)}

    @property
    def running(self) -> int:
        return self._running

    # ------------------------------------------------------------------ admission
    def check(self, cost: Cost, deadline: float | None, now: float | None = None) -> float:
        """The deadline this computation would run under; Refused(FAILED_PRECONDITION) if the cost
        cannot be afforded within it or the caps."""
        now = time.monotonic() if now is None else now
        if deadline is None:
            deadline = now + self.default_seconds
        left = deadline - now
        seconds = cost.seconds * self.estimate_scale
        serve = f"; {cost.serve}" if cost.serve else ""
        if cost.nbytes > self.max_bytes:
            raise Refused("FAILED_PRECONDITION",
                          f"live work refused: {cost.what} would need about {_format_bytes(cost.nbytes)}, over this "
                          f"server's cap of {_format_bytes(self.max_bytes)} per live computation{serve}")
        if seconds > self.max_seconds:
            raise Refused("FAILED_PRECONDITION",
                          f"live work refused: {cost.what} would take about {_format_seconds(seconds)}, over this "
                          f"server's cap of {_format_seconds(self.max_seconds)} per live computation{serve}")
        if seconds > left:
            raise Refused("FAILED_PRECONDITION",
                          f"live work refused: {cost.what} would take about {_format_seconds(seconds)}, more than the "
                          f"{_format_seconds(max(left, 0.0))} left before the deadline; ask with a longer deadline"
                          f"{serve}")
        return deadline

    def submit(self, fn, *args, deadline: float | None, cost: Cost, active=None, ready_only: bool = False):
        """Run ``fn(*args)`` in a worker; its result, or Refused / Stopped / LiveError. ``ready_only``: never start
        a worker on the call's time (work with a cheap fallback): take an idle one, or wait for one already being
        started while the work would still end before the deadline, else refuse (RESOURCE_EXHAUSTED)."""
        deadline = self.check(cost, deadline)
        with self._lock:
            if self._closed:
                raise Refused("UNAVAILABLE", "the server is shutting down")
            if self._running >= self.slots:
                raise Refused("RESOURCE_EXHAUSTED",
                              f"live work refused: this server process already runs its maximum of {self.slots} "
                              f"live computation{'s' if self.slots != 1 else ''} ({cost.what}); retry later"
                              + (f", or {cost.serve}" if cost.serve else ""))
            self._running += 1
        try:
            ready = self._ready_worker(deadline - cost.seconds * self.estimate_scale, cost, active) \
                if ready_only else None
            return self._run(fn, args, deadline, cost, active, ready)
        finally:
            with self._lock:
                self._running -= 1

    def _ready_worker(self, latest: float, cost: Cost, active) -> _Worker:
        """An idle worker, taken under the lock (two calls that both saw one never race for it); when none is idle,
        one is started in the background and waited for until ``latest`` (when the work would no longer end before
        the caller's deadline), the start ends without one, or the caller goes: then Refused."""
        with self._changed:
            failures = self._start_failures
            while not self._idle:
                left = latest - time.monotonic()
                if self._closed:
                    raise Refused("UNAVAILABLE", "the server is shutting down")
                if self._start_failures > failures:
                    raise Refused("RESOURCE_EXHAUSTED", "live work refused: no live worker could be started (the "
                                                        f"server's log says why) ({cost.what})")
                if not self._starting:      # none under way (or the one started took another caller's turn)
                    self._starting = True
                    threading.Thread(target=self._fill, args=(1,), name="live-pool-start", daemon=True).start()
                if left <= 0:
                    raise Refused("RESOURCE_EXHAUSTED", f"live work refused: no live worker is ready yet ({cost.what})")
                self._changed.wait(min(POLL_SECONDS, left))
                if active is not None and not active():
                    raise Stopped("CANCELLED", f"live work stopped: the caller went away ({cost.what})")
            w = self._idle.pop()
            self._busy[w.pid] = w
            return w

    def _run(self, fn, args, deadline: float, cost: Cost, active, ready: "_Worker | None" = None):
        if ready is not None and not ready.proc.is_alive():
            self._discard(ready, "ended while idle", cost.what)
            raise Refused("RESOURCE_EXHAUSTED", f"live work refused: no live worker is ready yet ({cost.what})")
        w = ready if ready is not None else self._take_worker()
        try:
            w.conn.send((fn, args))
        except (BrokenPipeError, OSError):
            self._discard(w, "ended before taking the work", cost.what)
            raise LiveError("the live worker ended before taking the work") from None
        next_rss = 0.0
        while True:
            now = time.monotonic()
            left = deadline - now
            if left <= 0:
                self._discard(w, "DEADLINE_EXCEEDED", cost.what)
                raise Stopped("DEADLINE_EXCEEDED", f"live work stopped at the deadline: {cost.what}")
            if active is not None and not active():
                if left < 0.1:  # gRPC ends the call at its deadline, a moment before our clock says so
                    self._discard(w, "DEADLINE_EXCEEDED", cost.what)
                    raise Stopped("DEADLINE_EXCEEDED", f"live work stopped at the deadline: {cost.what}")
                self._discard(w, "CANCELLED", cost.what)
                raise Stopped("CANCELLED", f"live work stopped: the caller went away ({cost.what})")
            if now >= next_rss:
                next_rss = now + 0.25
                if w.rss() > self.max_bytes:
                    self._discard(w, "memory cap", cost.what)
                    raise Stopped("RESOURCE_EXHAUSTED",
                                  f"live work stopped: it used more than this server's cap of "
                                  f"{_format_bytes(self.max_bytes)} ({cost.what})")
            try:
                ready = w.conn.poll(min(POLL_SECONDS, left))
            except (EOFError, OSError):
                ready = True
            if not ready:
                continue
            try:
                status, value = w.conn.recv()
            except (EOFError, OSError):
                self._discard(w, "died", cost.what)
                raise LiveError(f"the live worker died ({cost.what})") from None
            self._give_back(w)
            if status == "ok":
                return value
            raise LiveError(f"live work failed: {value}")

    # ------------------------------------------------------------------ shutdown
    def close(self) -> None:
        """Stop every worker (busy ones are killed: their callers get Stopped or LiveError) and remove their scratch
        directories, those of workers killed earlier too (their reaping threads end with the process)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
            idle, busy = self._idle, list(self._busy.values())
            self._idle = []
            scratch = self._scratch
        for w in idle:
            w.stop()
        for w in busy:
            try:
                os.kill(w.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for w in busy:  # ended, so that nothing writes in the scratch as it goes
            multiprocessing.connection.wait([w.proc.sentinel], timeout=CLOSE_WAIT_SECONDS)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def others_running(loadavg: str = "/proc/loadavg") -> int | None:
    """Tasks running or runnable on the machine at this instant besides the caller (Linux ``/proc/loadavg``'s
    fourth field, which counts the reader); None where it cannot be read.  Unlike the load average it has no lag:
    what a computation about to start would share the cores with."""
    try:
        with open(loadavg) as f:
            return max(0, int(f.read().split()[3].split("/")[0]) - 1)
    except (OSError, IndexError, ValueError):
        return None


class LiveCall:
    """One serving call's access to the live pool: the pool, the call's deadline (monotonic clock,
    None = none) and ``active`` (False once the caller has gone). What a backend's ``sample`` gets."""

    __slots__ = ("pool", "deadline", "active")

    def __init__(self, pool: LivePool | None, deadline: float | None = None, active=None):
        self.pool, self.deadline, self.active = pool, deadline, active

    @property
    def cache(self) -> "LiveCache | None":
        return self.pool.cache if self.pool is not None else None

    def submit(self, fn, *args, cost: Cost, deadline: float | None = None, ready_only: bool = False):
        """``deadline``: an earlier one than the call's for this computation (e.g. to leave time for a
        fallback answer); never later than the call's. ``ready_only``: see :meth:`LivePool.submit`."""
        if self.pool is None:
            raise Refused("FAILED_PRECONDITION", f"live work refused: {cost.what} is live work, which this caller "
                          "does not run" + (f"; {cost.serve}" if cost.serve else ""))
        if deadline is None or (self.deadline is not None and self.deadline < deadline):
            deadline = self.deadline
        return self.pool.submit(fn, *args, deadline=deadline, cost=cost, active=self.active, ready_only=ready_only)

    def fallback_deadline(self, now: float | None = None) -> float:
        """The deadline of live work whose caller has a fallback answer: the pool's ``margin`` before this
        call's deadline (the pool's wait for a call without one), so that a computation stopped there still
        leaves the fallback and its reply that long to reach the caller."""
        now = time.monotonic() if now is None else now
        margin = self.pool.margin if self.pool is not None else DEFAULT_MARGIN
        return now + self.time_left(now) - margin

    def time_left(self, now: float | None = None) -> float:
        """Seconds before this call's deadline (the pool's wait for a call without one)."""
        now = time.monotonic() if now is None else now
        if self.deadline is not None:
            return self.deadline - now
        return self.pool.default_seconds if self.pool is not None else 0.0


NO_LIVE = LiveCall(None)  # for callers outside a server (probes, the arena): live work is refused


class LiveCache:
    """Results of live work kept for reuse in this process, least recently used first out, within
    ``max_bytes`` (a result larger than that is not kept)."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._items: OrderedDict = OrderedDict()  # key -> (value, nbytes)
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            hit = self._items.get(key)
            if hit is None:
                return None
            self._items.move_to_end(key)
            return hit[0]

    def find(self, pred):
        """The most recently used value whose key satisfies ``pred``, or None."""
        with self._lock:
            for key in reversed(self._items):
                if pred(key):
                    self._items.move_to_end(key)
                    return self._items[key][0]
        return None

    def put(self, key, value, nbytes: int) -> bool:
        if nbytes > self.max_bytes:
            return False
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._items[key] = (value, nbytes)
            self._bytes += nbytes
            while self._bytes > self.max_bytes:
                _, (_, n) = self._items.popitem(last=False)
                self._bytes -= n
        return True

    @property
    def nbytes(self) -> int:
        return self._bytes
