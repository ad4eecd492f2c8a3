"""numba's kernel cache (``NUMBA_CACHE_DIR``) made safe for our kernels: a cached kernel that calls a parallel one
starts numba's threads when it loads, and a cache entry is saved by one process at a time.

A cached kernel that calls a ``parallel=True`` kernel, compiled in a process that had loaded that callee from the
cache, is saved without the step that starts numba's threading layer when it loads (numba#8578, #9938; the fix,
numba#9950, is not released). A later process that loads it calls the parallel loop through a null pointer and
segfaults, until the cache is deleted. A fresh clone's ``make serve`` left one (the searched chain's
``cfr_resolve`` on a store's read-only leaves, whose callee ``_pass`` calls ``_leaves_threads``), and the live
workers' forkserver died importing its warm-up. Every cache load here starts the threads first when the loaded code
calls numba's parallel loop, as a complete entry would.

numba saves an entry by reading the kernel's index, taking the next free entry number, writing the index and then
the code, with no lock between processes (``IndexDataCacheFile.save``): two processes saving new signatures of one
kernel at once can take the same number, and the index can end naming one signature's entry while the file holds
the other's code. ``make serve``'s build lanes, its live pool's forkserver and the measurement's two seat processes
compile the same kernels at once. Each save here holds an exclusive ``flock`` on a file beside the kernel's index
for those few milliseconds; compiles and loads take no lock. The lock is the kernel's, so a process that dies
holding it releases it, and it is opened per save, never inherited across a fork."""
from __future__ import annotations

import fcntl
import os
from pathlib import Path

from numba.core.caching import CompileResultCacheImpl, IndexDataCacheFile

LOCK_NAME = ".save.lock"
PARALLEL_LOOP = b"numba_parallel_for"    # the threading layer's entry, which numba's thread launch binds


def lock_path(cache_file: IndexDataCacheFile) -> Path:
    """The lock beside the index (one per cached source file's directory of entries)."""
    return Path(cache_file._cache_path) / LOCK_NAME


def _locked_save(save_):
    def save(self, key, data):
        fd = os.open(lock_path(self), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            return save_(self, key, data)
        finally:
            os.close(fd)    # releases the flock
    save.__wrapped__ = save_
    return save


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
    """Wrap numba's cache load and save (once per process)."""
    if not hasattr(IndexDataCacheFile.save, "__wrapped__"):
        CompileResultCacheImpl.rebuild = _threads_started_rebuild(CompileResultCacheImpl.rebuild)
        IndexDataCacheFile.save = _locked_save(IndexDataCacheFile.save)


install()
