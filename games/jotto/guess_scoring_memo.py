"""The review's greedy continuation, memoised (games.jotto.guess_scoring, docs/review.md).

``kernels.tree_cost(T)`` is the expected guesses (unnormalised, weights w) of the greedy oracle's decision
tree from the set T, with the oracle's input h = w. The tree is a function of T alone (the oracle at a node
sees only that node's words and their weights), so

    cost(T) = W(T) + sum over answers a of cost(T_a)

with g the oracle's test word at T and T_a the words of T other than g that give g ``a`` jots; a set whose
weight is zero costs nothing. ``memo_cost`` computes exactly that recursion and remembers cost(T) for every
node it visits, keyed by T (two 64-bit Zobrist hashes of its words, as ``exact.py`` keys its states): the
candidate test words of one state, the later states of the same game (their oracle trees were walked for the
played word's children) and the subtrees shared between different candidates' trees are each walked once.
The same tree as ``tree_cost``'s (the same oracle call on the same ascending word array at every node), the
same cost up to the order of floating additions.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from games.jotto import kernels
from games.jotto.kernels import CACHE

KEY = types.UniTuple(types.uint64, 2)
GBR_KIND = kernels.GBR


def new_memo():
    """An empty cost table for ``memo_cost`` (one per weight vector)."""
    return Dict.empty(key_type=KEY, value_type=types.float64)


def zobrist(D: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    k1 = rng.integers(0, 2**63, size=D, dtype=np.int64).astype(np.uint64) * np.uint64(2) + np.uint64(1)
    k2 = rng.integers(0, 2**63, size=D, dtype=np.int64).astype(np.uint64)
    return k1, k2


@njit(cache=CACHE, nogil=True)
def memo_cost(C, counts, T, w, candidates, L, kind, k1, k2, memo, in_S, stats, acc_c, acc_h):
    """kernels.tree_cost(C, counts, T, w, w, candidates, L, kind) with every node's cost remembered in memo.
    T: ascending word indices; in_S: bool[D] scratch, all False (left so); stats: int64[2] (nodes walked,
    memo hits), counted up; acc_c, acc_h: kernels.answer_tables' scratch."""
    n = T.shape[0]
    if n == 0:
        return 0.0
    W = 0.0
    for k in range(n):
        W += w[T[k]]
    if n == 1 or W <= 0.0:  # one word: found at this guess; no weight: costs nothing, whatever the tree
        return W
    if n == 2 and kind == GBR_KIND:
        # GBR plays T[0]: it scores the least possible (W: itself and T[1] each alone in their answer class),
        # or, if T[1] is its anagram, every test word scores 2 W and the tie goes to the first consistent
        # word; either way T[1] is found at the second guess
        return W + w[T[1]]
    a1 = np.uint64(0)
    a2 = np.uint64(0)
    for k in range(n):
        a1 ^= k1[T[k]]
        a2 ^= k2[T[k]]
    key = (a1, a2)
    known = memo.get(key, -1.0)
    if known >= 0.0:
        stats[1] += 1
        return known
    stats[0] += 1
    for k in range(n):
        in_S[T[k]] = True
    g = kernels._oracle(C, counts, T, in_S, w, candidates, L, kind, acc_c, acc_h)
    for k in range(n):
        in_S[T[k]] = False
    child = np.empty(n, dtype=np.int32)
    start = np.empty(L + 2, dtype=np.int64)
    kernels.split_by_answer(C, T, g, L, child, start)
    cost = W
    for a in range(L + 1):
        if start[a + 1] > start[a]:
            cost += memo_cost(C, counts, child[start[a]:start[a + 1]], w, candidates, L, kind, k1, k2, memo, in_S,
                              stats, acc_c, acc_h)
    memo[key] = cost
    return cost


@njit(cache=CACHE, nogil=True)
def greedy_after(C, counts, S, words, w, candidates, L, kind, k1, k2, memo, stats):
    """For each test word g of `words`: W(S) + sum over answers of memo_cost(S_a), S ascending (the
    unnormalised expected guesses from S with g played first and the greedy oracle after it)."""
    n = S.shape[0]
    W = 0.0
    for k in range(n):
        W += w[S[k]]
    in_S = np.zeros(C.shape[0], dtype=np.bool_)
    child = np.empty(max(n, 1), dtype=np.int32)
    start = np.empty(L + 2, dtype=np.int64)
    out = np.empty(words.shape[0])
    acc_c = np.zeros((C.shape[0], L + 1), dtype=np.int64)
    acc_h = np.zeros((C.shape[0], L + 1))
    for i in range(words.shape[0]):
        kernels.split_by_answer(C, S, words[i], L, child, start)
        cost = W
        for a in range(L + 1):
            if start[a + 1] > start[a]:
                cost += memo_cost(C, counts, child[start[a]:start[a + 1]].copy(), w, candidates, L, kind, k1, k2,
                                  memo, in_S, stats, acc_c, acc_h)
        out[i] = cost
    return out
