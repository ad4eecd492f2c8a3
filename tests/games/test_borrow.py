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
