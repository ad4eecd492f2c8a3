"""Jot lookups in the GBR scan: the jot matrix's row, as the oracle reads it
(games.jotto.kernels.guess_score), against popcount(mask_a & mask_b) over letter-count masks.

  python -m research.jotto_jots [--lengths 4,5] [--sizes 0,300,30] [--seed 0]

A word's mask holds, for each letter, a unary field as wide as the most copies of that letter in any
word of the dictionary, with as many low bits set as the word has copies; NumCommLetts(a, b) (the sum
over letters of the smaller count) is then popcount(mask_a & mask_b), exact while the fields fit in 64
bits. Each row: one scan of every test word at a random state of n words (n = 0: every word) with
random hider weights (GBR's weighted score, the builder's case) and with uniform weights (the
histogram of answers only), in ms of CPU a scan; both lookups must give the same scores to the bit.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from games.jotto.dictionary import load_dictionary
from games.jotto.oracle import JottoOracle


class MaskWidthError(ValueError):
    """The dictionary's letter counts need more than 64 bits of unary fields."""


def letter_masks(counts: np.ndarray) -> np.ndarray:
    """uint64[D] letter-count masks (unary field per letter, as wide as its largest count)."""
    counts = np.asarray(counts)
    widths = counts.max(axis=0).astype(np.int64)
    if widths.sum() > 64:
        raise MaskWidthError(f"letter-count masks need {int(widths.sum())} bits (more than 64)")
    masks = np.zeros(counts.shape[0], dtype=np.uint64)
    offset = 0
    for k in range(counts.shape[1]):
        unary = (np.left_shift(np.uint64(1), counts[:, k].astype(np.uint64)) - np.uint64(1))
        masks |= unary << np.uint64(offset)
        offset += int(widths[k])
    return masks


@intrinsic
def _popcount(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@njit(nogil=True)
def jots_by_masks(masks, a, b):
    """NumCommLetts(a, b) by popcount of the letter-count masks."""
    return int(_popcount(masks[a] & masks[b]))


@njit(nogil=True, inline="always")
def _clear(cnt, hw):
    cnt[:] = 0
    hw[:] = 0.0


@njit(nogil=True, inline="always")
def _score(cnt, hw, uniform):
    """GBR's score from the answer histogram: sum_j n_j^2 (uniform weights) or sum_j hw_j n_j."""
    s = 0.0
    for j in range(cnt.shape[0]):
        s += cnt[j] * cnt[j] if uniform else hw[j] * cnt[j]
    return s


@njit(nogil=True)
def scan_matrix(C, S, h, cands, L, uniform):
    out = np.empty(cands.shape[0])
    cnt = np.zeros(L + 1, dtype=np.int64)
    hw = np.zeros(L + 1)
    for ci in range(cands.shape[0]):
        row = C[cands[ci]]
        _clear(cnt, hw)
        for k in range(S.shape[0]):
            a = row[S[k]]
            cnt[a] += 1
            if not uniform:
                hw[a] += h[S[k]]
        out[ci] = _score(cnt, hw, uniform)
    return out


@njit(nogil=True)
def scan_masks(M, S, h, cands, L, uniform):
    n = S.shape[0]
    ms = np.empty(n, dtype=np.uint64)  # the state's masks and weights, gathered once a scan
    hs = np.empty(n)
    for k in range(n):
        ms[k] = M[S[k]]
        hs[k] = h[S[k]]
    out = np.empty(cands.shape[0])
    cnt = np.zeros(L + 1, dtype=np.int64)
    hw = np.zeros(L + 1)
    for ci in range(cands.shape[0]):
        mg = M[cands[ci]]
        _clear(cnt, hw)
        for k in range(n):
            a = _popcount(mg & ms[k])
            cnt[a] += 1
            if not uniform:
                hw[a] += hs[k]
        out[ci] = _score(cnt, hw, uniform)
    return out


def _cpu_ms(fn, reps):
    fn()
    t0 = time.process_time()
    for _ in range(reps):
        fn()
    return (time.process_time() - t0) / reps * 1e3


def table_jots(lengths, sizes, seed=0, out=print) -> list[dict]:
    out(f"{'letters':>7} {'words':>6} {'state':>6} {'weights':>8} {'matrix ms':>10} {'popcount ms':>12} "
        f"{'popcount/matrix':>16}")
    rng = np.random.default_rng(seed)
    rows = []
    for L in lengths:
        o = JottoOracle(load_dictionary(f"jotto-en_US80-{L}-ganzfried"))
        M = letter_masks(o.counts)
        h = rng.random(o.D)
        for size in sizes:
            n = o.D if size <= 0 or size > o.D else size
            S = np.sort(rng.choice(o.D, n, replace=False)).astype(np.int32)
            reps = max(1, int(2e7 // (n * o.D)))
            for uniform in (False, True):
                a = scan_matrix(o.C, S, h, o.all_words, L, uniform)
                b = scan_masks(M, S, h, o.all_words, L, uniform)
                if not np.array_equal(a, b):
                    raise AssertionError(f"{L} letters, state of {n}: the two lookups' scores differ")
                tm = _cpu_ms(lambda: scan_matrix(o.C, S, h, o.all_words, L, uniform), reps)
                tp = _cpu_ms(lambda: scan_masks(M, S, h, o.all_words, L, uniform), reps)
                row = dict(letters=L, words=o.D, state=n, weights="uniform" if uniform else "hider",
                           matrix_ms=tm, popcount_ms=tp)
                rows.append(row)
                out(f"{L:>7} {o.D:>6} {n:>6} {row['weights']:>8} {tm:>10.3f} {tp:>12.3f} {tp / tm:>16.2f}")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.jotto_jots")
    ap.add_argument("--lengths", default="4,5")
    ap.add_argument("--sizes", default="0,300,30", help="state sizes (0: every word)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        lengths = [int(x) for x in args.lengths.split(",")]
        sizes = [int(x) for x in args.sizes.split(",")]
    except ValueError:
        ap.error("--lengths and --sizes take comma-separated whole numbers")
    table_jots(lengths, sizes, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
