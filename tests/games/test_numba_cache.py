"""games.numba_cache: a cached kernel compiled against a cached parallel callee runs when loaded; a process saving
an entry holds the lock beside the kernel's index, a process loading one does not wait for it; every module that
caches a kernel installs it."""
from __future__ import annotations

import ast
import fcntl
import os
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]

KERNELS = r'''

@njit(cache=True)
def inner(x):
    return x + 1


@njit(cache=True)
def outer(x):
    return inner(x) * 2
'''

SAVER = r'''
import sys
from numba import njit
from numba.core.caching import IndexDataCacheFile
from games import numba_cache

save_data = IndexDataCacheFile._save_data


def paused_save_data(self, name, data):
    print("saving", numba_cache.lock_path(self), flush=True)
    sys.stdin.readline()
    return save_data(self, name, data)


IndexDataCacheFile._save_data = paused_save_data
''' + KERNELS + r'''
print("result", outer(20), flush=True)
'''


def _lock_is_free(path: Path) -> bool:
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def test_a_process_saving_an_entry_holds_the_lock(tmp_path):
    src = tmp_path / "saver.py"
    src.write_text(SAVER)
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.Popen([sys.executable, str(src)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env=env, cwd=tmp_path)
    try:
        locks = []
        for _ in ("inner", "outer"):       # a callee's entry is saved before its caller's
            word, path = p.stdout.readline().split()
            assert word == "saving"
            locks.append(Path(path))
            assert locks[-1].exists() and not _lock_is_free(locks[-1]), "the lock is free while saving"
            p.stdin.write("\n")
            p.stdin.flush()
        assert p.stdout.readline().split() == ["result", "42"]
        assert p.wait(timeout=120) == 0
        assert all(_lock_is_free(lock) for lock in locks)
        assert locks[0].parent.parent == tmp_path / "cache"
    finally:
        p.kill()
        p.wait()


LOADER = r'''
from numba import njit
from games import numba_cache
''' + KERNELS + r'''
print("result", outer(20), outer._cache_hits[outer.signatures[0]], flush=True)
'''


def test_a_cached_kernel_loads_while_another_process_holds_the_lock(tmp_path):
    src = tmp_path / "loader.py"
    src.write_text(LOADER)
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    first = subprocess.run([sys.executable, str(src)], capture_output=True, text=True, env=env, timeout=120)
    assert first.stdout.split() == ["result", "42", "0"], first.stderr[-2000:]   # compiled, and cached
    (lock,) = (tmp_path / "cache").rglob(".save.lock")
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        again = subprocess.run([sys.executable, str(src)], capture_output=True, text=True, env=env, timeout=120)
    finally:
        os.close(fd)
    assert again.stdout.split() == ["result", "42", "1"], again.stderr[-2000:]   # loaded, the lock held elsewhere


PARALLEL_CALLEE = r'''
import sys
import numpy as np
from numba import njit, prange
from games import numba_cache


@njit(cache=True, parallel=True)
def inner(x, n):
    per = (x.size + n - 1) // n
    for c in prange(n):
        for i in range(c * per, min(x.size, (c + 1) * per)):
            x[i] += 1.0


@njit(cache=True)
def outer(x, n):
    inner(x, n)
    return x.sum()


x = np.zeros(1000)
if sys.argv[1] == "inner":
    inner(x, 2)
    print("inner", x.sum(), flush=True)
else:
    print("outer", outer(x, 2), sum(outer._cache_hits.values()), flush=True)
'''


def test_a_kernel_compiled_against_a_cached_parallel_callee_runs_from_the_cache(tmp_path):
    """The parallel callee compiled and cached alone; the caller compiled in a second process, which loads the callee
    from the cache; a third process loads the caller (numba alone segfaults there: numba#8578)."""
    src = tmp_path / "parallel_callee.py"
    src.write_text(PARALLEL_CALLEE)
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, str(src), step], capture_output=True, text=True, env=env, timeout=120)
            for step in ("inner", "outer", "outer")]
    assert [r.returncode for r in runs] == [0, 0, 0], runs[-1].stderr[-2000:]
    assert [r.stdout.split() for r in runs] == [["inner", "1000.0"], ["outer", "1000.0", "0"],
                                                ["outer", "1000.0", "1"]]


def _caches_a_kernel(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                "njit", "jit", "vectorize", "guvectorize"):
            if any(k.arg == "cache" and getattr(k.value, "value", False) is True for k in node.keywords):
                return True
    return False


def _installs_the_lock(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "games" and any(
                a.name == "numba_cache" for a in node.names):
            return True
        if isinstance(node, ast.Import) and any(a.name == "games.numba_cache" for a in node.names):
            return True
    return False


def test_every_module_that_caches_a_kernel_installs_the_lock():
    modules = [p for d in ("games", "research", "builder", "server", "bench") for p in (ROOT / d).rglob("*.py")]
    caching = [p for p in modules if _caches_a_kernel(ast.parse(p.read_text()))]
    assert len(caching) >= 15, caching
    missing = [str(p.relative_to(ROOT)) for p in caching if not _installs_the_lock(ast.parse(p.read_text()))]
    assert missing == []
