"""One numba compile at a time among the processes that share a kernel cache (``NUMBA_CACHE_DIR``).

numba's on-disk cache is written without any lock between processes (numba#4807, numba#10128). When two
processes compile the same kernels at once, as ``make serve``'s build lanes, its live pool's forkserver and the
measurement's two seat processes do, a caller's cache entry can be written against callees that another process
compiled under other internal names. Such an entry loads, and its first call segfaults, in every later process,
until the cache is deleted. A fresh clone's ``make serve`` left one (a searched chain's ``cfr_resolve`` on a
store's read-only leaves), and the live workers then died at their first searched move.

Each top-level compile (a dispatcher's ``compile``: the cache's load, else the compile and the cache's save, and
every nested compile of a callee) here holds an exclusive ``flock`` on a file in the cache directory, taken
inside numba's own process-wide compiler lock, so the lock order is the same in every thread. Processes that
share a cache then compile one after another, each seeing the complete entries of those before it: the case
numba's cache is made for. The lock is the kernel's, so a process that dies holding it releases it; it is opened
per compile and never inherited across a fork."""
from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

from numba.core import config
from numba.core.compiler_lock import global_compiler_lock
from numba.core.dispatcher import Dispatcher

LOCK_NAME = ".compile.lock"

_depth = 0          # nested compiles in this process; read and written under numba's global compiler lock


def lock_path() -> Path:
    """The lock beside the cache: ``NUMBA_CACHE_DIR`` when set (each version of the kernels has its own), else one
    per user in the temporary directory (numba then caches beside each source file)."""
    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / LOCK_NAME
    return Path(tempfile.gettempdir()) / f"gamestrategy-numba-{os.getuid()}{LOCK_NAME}"


def _locked_compile(compile_):
    def compile(self, sig):
        global _depth
        with global_compiler_lock:
            if _depth:
                return compile_(self, sig)
            path = lock_path()
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                _depth += 1
                try:
                    return compile_(self, sig)
                finally:
                    _depth -= 1
            finally:
                os.close(fd)
    compile.__wrapped__ = compile_
    compile.__doc__ = compile_.__doc__
    return compile


def install() -> None:
    """Wrap numba's dispatcher compile (once per process)."""
    if not hasattr(Dispatcher.compile, "__wrapped__"):
        Dispatcher.compile = _locked_compile(Dispatcher.compile)


install()
