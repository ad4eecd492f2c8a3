"""One numba compile at a time among the processes that share a kernel cache (``NUMBA_CACHE_DIR``).

numba's on-disk cache is written without any lock between processes (numba#4807, numba#10128). When two
processes compile the same kernels at once, as ``make serve``'s build lanes, its live pool's forkserver and the
measurement's two seat processes do, a caller's cache entry can be written against callees that another process
compiled under other internal names. Such an entry loads, and its first call segfaults, in every later process,
until the cache is deleted. A fresh clone's ``make serve`` left one (a searched chain's ``cfr_resolve`` on a
store's read-only leaves), and the live workers then died at their first searched move.

Every compile of a cached kernel here runs, with the rest of the top-level compile it belongs to (a dispatcher's
``compile``: its callees' compiles and the cache's saves), under an exclusive ``flock`` on a file in the cache
directory, so processes that share a cache compile one after another, each seeing the complete entries of those
before it: the case numba's cache is made for. Loading an entry takes no lock: a top-level compile whose entry the
cache's index holds loads it at once, and takes the lock only if the load fails and it has to compile after all
(numba's ``numba:compile`` event, which also covers compiles that start elsewhere). One whose entry is missing takes
the lock first, so a process that waited for another compiling the same kernel loads the entry instead of compiling
it again. The lock is taken inside numba's own process-wide compiler lock (one lock order in every thread); it is
the kernel's, so a process that dies holding it releases it, and it is opened per compile, never inherited across a
fork."""
from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

from numba.core import config, event
from numba.core.caching import NullCache
from numba.core.compiler_lock import global_compiler_lock
from numba.core.dispatcher import Dispatcher

LOCK_NAME = ".compile.lock"


class _Lock:
    """The process's hold on the cache's lock: taken at most once for a nest of compiles, released when the
    outermost ends. Read and written under numba's global compiler lock only."""

    def __init__(self):
        self.scopes = 0     # open top-level compiles and compile events
        self.fd: int | None = None

    def take(self) -> None:
        if self.fd is None:
            path = lock_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except BaseException:
                os.close(fd)
                raise
            self.fd = fd

    def leave(self) -> None:
        self.scopes -= 1
        if self.scopes == 0 and self.fd is not None:
            os.close(self.fd)   # releases the flock
            self.fd = None

    @property
    def held(self) -> bool:
        return self.fd is not None


_lock = _Lock()


def lock_path() -> Path:
    """The lock beside the cache: ``NUMBA_CACHE_DIR`` when set (each version of the kernels has its own), else one
    per user in the temporary directory (numba then caches beside each source file)."""
    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / LOCK_NAME
    return Path(tempfile.gettempdir()) / f"gamestrategy-numba-{os.getuid()}{LOCK_NAME}"


def _cached(dispatcher) -> bool:
    return not isinstance(getattr(dispatcher, "_cache", None), (NullCache, type(None)))


def _indexed(dispatcher, sig) -> bool:
    """Whether the cache's index holds an entry for ``sig`` (its load may still fail; the compile event then locks)."""
    try:
        cache = dispatcher._cache
        key = cache._index_key(sig, dispatcher.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:  # noqa: BLE001 - numba's internals moved: lock, as for a missing entry
        return False


def _locked_compile(compile_):
    def compile(self, sig):
        with global_compiler_lock:
            _lock.scopes += 1
            try:
                if not _lock.held and _cached(self) and not _indexed(self, sig):
                    _lock.take()
                return compile_(self, sig)
            finally:
                _lock.leave()
    compile.__wrapped__ = compile_
    compile.__doc__ = compile_.__doc__
    return compile


class _LockWhileCompiling(event.Listener):
    def on_start(self, ev):
        with global_compiler_lock:
            _lock.scopes += 1
            dispatcher = (ev.data or {}).get("dispatcher")
            if dispatcher is None or _cached(dispatcher):
                _lock.take()

    def on_end(self, ev):
        with global_compiler_lock:
            _lock.leave()


def install() -> None:
    """Wrap numba's dispatcher compile and listen to its compile events (once per process)."""
    if not hasattr(Dispatcher.compile, "__wrapped__"):
        Dispatcher.compile = _locked_compile(Dispatcher.compile)
        event.register("numba:compile", _LockWhileCompiling())


install()
