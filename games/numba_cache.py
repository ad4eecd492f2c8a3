"""numba's kernel cache (``NUMBA_CACHE_DIR``) made safe for our kernels: a cached kernel that calls a parallel one
starts numba's threads when it loads, and one numba compile runs at a time among the processes sharing the cache.

A cached kernel that calls a ``parallel=True`` kernel, compiled in a process that had loaded that callee from the
cache, is saved without the step that starts numba's threading layer when it loads (numba#8578, #9938; the fix,
numba#9950, is not released). A later process that loads it calls the parallel loop through a null pointer and
segfaults, until the cache is deleted. A fresh clone's ``make serve`` left one (the searched chain's
``cfr_resolve`` on a store's read-only leaves, whose callee ``_pass`` calls ``_leaves_threads``), and the live
workers' forkserver died importing its warm-up. Every cache load here starts the threads first when the loaded code
calls numba's parallel loop, as a complete entry would.

numba's on-disk cache is also written without any lock between processes: two processes that save new entries of
one kernel at once can each take the same entry number from the index they read, and the index can end naming one
signature's entry while the file holds the other's code (``IndexDataCacheFile.save``). ``make serve``'s build
lanes, its live pool's forkserver and the measurement's two seat processes compile the same kernels at once.

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
from numba.core.caching import CompileResultCacheImpl, NullCache
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


PARALLEL_LOOP = b"numba_parallel_for"    # the threading layer's entry, which numba's thread launch binds


def _object_code(libdata) -> bytes:
    """The machine code of a cached library (numba's ``serialize_using_object_code``: (name, kind, data))."""
    found = []

    def walk(x, depth=0):
        if isinstance(x, bytes):
            found.append(x)
        elif isinstance(x, (tuple, list)) and depth < 4:
            for y in x:
                walk(y, depth + 1)
    walk(libdata)
    return b"".join(found)


def _threads_started_rebuild(rebuild_):
    def rebuild(self, target_context, payload):
        if PARALLEL_LOOP in _object_code(payload[0]):
            from numba.np.ufunc.parallel import _launch_threads
            _launch_threads()
        return rebuild_(self, target_context, payload)
    rebuild.__wrapped__ = rebuild_
    return rebuild


def install() -> None:
    """Wrap numba's cache load and dispatcher compile, and listen to its compile events (once per process)."""
    if not hasattr(Dispatcher.compile, "__wrapped__"):
        CompileResultCacheImpl.rebuild = _threads_started_rebuild(CompileResultCacheImpl.rebuild)
        Dispatcher.compile = _locked_compile(Dispatcher.compile)
        event.register("numba:compile", _LockWhileCompiling())


install()
