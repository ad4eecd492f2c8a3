"""Fixed-point probability distributions: largest-remainder rounding to integer units.

A distribution is stored as integer units summing to exactly ``UNIT = 2**16``: each probability is
scaled to units, rounded down, and the units still missing go one each to the largest remainders
(ties: the larger scaled value, then the lower index, so an action of probability zero never gets a
unit).  Every step is an IEEE-754 basic operation in a fixed order, so the units are the same on
every machine for the same input; a perturbation far below one unit (2**-16 = 1.5e-5) changes them
only when a scaled probability sits within that perturbation of a rounding boundary.  Actions with
zero units are dropped by the stores, so the units always sum to ``UNIT`` exactly.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

UNIT_BITS = 16
UNIT = 1 << UNIT_BITS


@njit(cache=True)
def largest_remainder(p, out, unit):
    """Units ``out[i]`` (int64, summing to ``unit``) of the distribution ``p`` (non-negative, any
    positive sum; an all-zero ``p`` gets uniform units by the same rule)."""
    k = p.size
    tot = 0.0
    for i in range(k):
        tot += p[i]
    x = np.empty(k)
    rem = np.empty(k)
    have = 0
    for i in range(k):
        x[i] = p[i] * unit / tot if tot > 0.0 else unit / k
        f = np.floor(x[i])
        out[i] = np.int64(f)
        rem[i] = x[i] - f
        have += out[i]
    for _ in range(unit - have):
        best = -1
        for i in range(k):
            if best < 0 or rem[i] > rem[best] or (rem[i] == rem[best] and x[i] > x[best]):
                best = i
        out[best] += 1
        rem[best] = -1.0    # at most one extra unit each (the deficit is below k)
    return out


def quantise(p) -> np.ndarray:
    """Units (int64, sum ``UNIT``) of one distribution."""
    p = np.ascontiguousarray(p, dtype=np.float64)
    if p.size == 0 or not np.all(p >= 0) or not np.all(np.isfinite(p)):
        raise ValueError("a distribution needs at least one finite non-negative probability")
    return largest_remainder(p, np.zeros(p.size, dtype=np.int64), UNIT)

