"""Arithmetic with the same bits on every x86-64 CPU, for figures and decisions that reach a store: IEEE-754
basic operations in an order fixed by the source.  No BLAS (OpenBLAS picks its kernel, and with it the
summation order, per CPU), no fastmath (which would let LLVM reassociate sums, fuse multiply-adds and pick the
host's vector width)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def dot_fixed(a, ao, b, bo, n):
    """sum_i a[ao + i] * b[bo + i] in float64 in a fixed order: eight interleaved partial sums, then a
    fixed tree.  Only exact IEEE operations (no fastmath, no BLAS), so the result has the same bits
    whether the compiler vectorises it or not, on any x86-64 CPU."""
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    s4 = 0.0
    s5 = 0.0
    s6 = 0.0
    s7 = 0.0
    i = 0
    while i + 8 <= n:
        s0 += np.float64(a[ao + i]) * np.float64(b[bo + i])
        s1 += np.float64(a[ao + i + 1]) * np.float64(b[bo + i + 1])
        s2 += np.float64(a[ao + i + 2]) * np.float64(b[bo + i + 2])
        s3 += np.float64(a[ao + i + 3]) * np.float64(b[bo + i + 3])
        s4 += np.float64(a[ao + i + 4]) * np.float64(b[bo + i + 4])
        s5 += np.float64(a[ao + i + 5]) * np.float64(b[bo + i + 5])
        s6 += np.float64(a[ao + i + 6]) * np.float64(b[bo + i + 6])
        s7 += np.float64(a[ao + i + 7]) * np.float64(b[bo + i + 7])
        i += 8
    t = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    while i < n:
        t += np.float64(a[ao + i]) * np.float64(b[bo + i])
        i += 1
    return t
