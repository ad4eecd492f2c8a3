"""games.borrow: a borrowed array is the same memory as its owner, refuses a layout it cannot describe, and a
kernel's own borrowed scratch stays valid until its keep."""
import numpy as np
import pytest
from numba import njit

from games.borrow import borrow, keep


@njit(cache=True)
def _write_through(a, i, v):
    b = borrow(a)
    b[i] = v
    return b.shape[0]


@njit(cache=True)
def _scratch_sum(n, rounds):
    """Fills a borrowed scratch array, allocates and frees other arrays meanwhile (a freed scratch would be
    reused and overwritten by them), then sums it."""
    own = np.empty(n)
    s = borrow(own)
    for i in range(n):
        s[i] = i
    junk = 0.0
    for r in range(rounds):
        t = np.full(n, -1.0)
        junk += t[r % n]
    total = 0.0
    for i in range(n):
        total += s[i]
    keep(own)
    return total, junk


def test_a_borrowed_array_is_its_owners_memory():
    a = np.zeros((3, 4))
    assert _write_through(a.reshape(-1), 5, 2.5) == 12
    assert a[1, 1] == 2.5


def test_a_non_contiguous_array_is_refused():
    with pytest.raises(ValueError, match="C-contiguous"):
        _write_through(np.zeros(12)[::2], 0, 1.0)


def test_kept_scratch_survives_other_allocations():
    total, junk = _scratch_sum(1000, 200)
    assert total == sum(range(1000))
    assert junk == -200.0


_KERNELS_ON_BORROWED_ARRAYS = """
import numpy as np
from games.dudo.abstraction.dag import make_group
from games.dudo.solvers.abstract_cfr import FastSolver
from games.jotto.bitset_bb import BitsetExactSolver
from games.jotto.dictionary import load_dictionary
from games.jotto.oracle import JottoOracle

o = JottoOracle(load_dictionary("jotto-en_US80-2-ganzfried"))
h = np.zeros(o.C.shape[0])
h[:14] = np.arange(1, 15)
r = BitsetExactSolver(o.C, o.L).solve(h)
s = FastSolver(make_group(1, 2, 2, {(a, b): 0.5 for a in range(1, 3) for b in range(1, 3)}, 2))
for _ in range(3):
    s.fsicfr_iteration()
print(repr(r.value), r.nodes, repr(float(np.abs(s.reg).sum())), repr(float(s.ssum.sum())))
"""


def test_the_borrowing_kernels_run_the_same_when_numba_loads_them_from_its_cache(tmp_path):
    """The first run compiles into an empty numba cache, the second loads from it (a borrowing wrapper around a
    recursive kernel once crashed only then); both print the same figures."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, "-c", _KERNELS_ON_BORROWED_ARRAYS], env=env, capture_output=True,
                           text=True, timeout=600) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr[-2000:]
    assert runs[0].stdout == runs[1].stdout
    assert len(runs[0].stdout.split()) == 4
