"""Arithmetic with the same bits on every x86-64 CPU, for figures and decisions that reach a store: IEEE-754
basic operations in an order fixed by the source.  No BLAS (OpenBLAS picks its kernel, and with it the
summation order, per CPU), no fastmath (which would let LLVM reassociate sums, fuse multiply-adds and pick the
host's vector width)."""
from __future__ import annotations

import math

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)


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


@njit(cache=True)
def _dot(a, b):
    return dot_fixed(a, 0, b, 0, a.size)


@njit(cache=True)
def _matvec(M, v, out):
    n = v.size
    flat = M.reshape(-1)
    for i in range(out.size):
        out[i] = dot_fixed(flat, i * n, v, 0, n)


def dot(a, b) -> float:
    """``a @ b`` of two vectors in the fixed order (any numeric dtypes, summed in float64)."""
    a, b = np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b, dtype=np.float64).reshape(-1)
    if a.size != b.size:
        raise ValueError(f"dot of vectors of {a.size} and {b.size} entries")
    return float(_dot(a, b))


def matvec(M, v) -> np.ndarray:
    """``M @ v`` (float64) in the fixed order, row by row."""
    M, v = np.ascontiguousarray(M), np.ascontiguousarray(v, dtype=np.float64)
    if M.ndim != 2 or M.shape[1] != v.size:
        raise ValueError(f"matvec of a {M.shape} matrix and {v.size} entries")
    out = np.empty(M.shape[0])
    _matvec(M, v, out)
    return out


# exp: Cody & Waite's reduction x = k ln2 + r (ln2 in two parts, fdlibm's, so k * LN2_HI is exact), then
# Taylor's series of exp(r) to r**13 / 13! (|r| <= ln2 / 2: the first term left out is below 5e-18) by Horner,
# then the exact scaling by 2**k.  numpy's np.exp picks an AVX-512 or a libm path by CPU, whose last bits differ.
_INV_LN2 = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_TAYLOR = tuple(1.0 / np.prod(np.arange(1.0, n + 1.0)) for n in range(13, -1, -1))   # 1/13!, ..., 1/1!, 1/0!


def exp(x) -> np.ndarray:
    """e**x of every entry (float64) from basic operations only: 0 below -745.13, inf above 709.78,
    within a few units in the last place of the correctly rounded value."""
    x = np.asarray(x, dtype=np.float64)
    xc = np.clip(np.where(np.isnan(x), 0.0, x), -746.0, 710.0)
    k = np.floor(xc * _INV_LN2 + 0.5)
    r = (xc - k * _LN2_HI) - k * _LN2_LO
    p = np.full_like(r, _TAYLOR[0])
    for c in _TAYLOR[1:]:
        p = p * r + c
    with np.errstate(over="ignore"):
        out = np.ldexp(p, k.astype(np.int64))
    return np.where(np.isnan(x), np.nan, out)


# log: x = m 2**e with m in [sqrt(1/2), sqrt(2)) (frexp, exact), log m = 2 atanh(s), s = (m - 1) / (m + 1), by its
# series in s**2 to s**23 / 23 (|s| <= 0.1716: the first term left out is below 1e-18), then e ln2 added in two
# parts.  libm's log (numba's np.log, numpy's) has per-CPU variants (glibc's FMA ones) whose last bits differ.
_SQRT_HALF = 0.7071067811865476
_ATANH = tuple(1.0 / (2.0 * k + 1.0) for k in range(11, -1, -1))     # 1/23, ..., 1/3, 1


@njit(cache=True, nogil=True)
def _log_parts(x):
    """(e, log m) with x = m 2**e (x > 0, finite), both from basic operations in a fixed order."""
    m, e = math.frexp(x)
    if m < _SQRT_HALF:
        m *= 2.0
        e -= 1
    s = (m - 1.0) / (m + 1.0)
    z = s * s
    p = _ATANH[0]
    for i in range(1, len(_ATANH)):
        p = p * z + _ATANH[i]
    return e, 2.0 * s * p


@njit(cache=True, nogil=True)
def log_fixed(x):
    """Natural log of a float from basic operations only (-inf at 0, nan below or at nan, inf at inf);
    within a few units in the last place."""
    if not x > 0.0:
        return -math.inf if x == 0.0 else math.nan
    if x == math.inf:
        return x
    e, lm = _log_parts(x)
    return e * _LN2_HI + (lm + e * _LN2_LO)


@njit(cache=True, nogil=True)
def log2_fixed(x):
    """Base-2 log as ``log_fixed`` (exact at powers of two)."""
    if not x > 0.0:
        return -math.inf if x == 0.0 else math.nan
    if x == math.inf:
        return x
    e, lm = _log_parts(x)
    return e + lm * _INV_LN2


@njit(cache=True)
def _map_log(x, out, base2):
    for i in range(x.size):
        out[i] = log2_fixed(x[i]) if base2 else log_fixed(x[i])


def _each_log(x, base2: bool) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    out = np.empty(x.size)
    _map_log(np.ascontiguousarray(x).reshape(-1), out, base2)
    return out.reshape(x.shape)


def log(x) -> np.ndarray:
    """``log_fixed`` of every entry (float64)."""
    return _each_log(x, False)


def log2(x) -> np.ndarray:
    """``log2_fixed`` of every entry (float64)."""
    return _each_log(x, True)
