"""A stronger guesser than the greedy oracle: rollouts of the greedy oracle from each candidate test word.

At the state S the rollout guesser ranks the test words by the base oracle's own score (GBR or entropy),
and for the `width` best of them plays each one and then lets the base oracle finish the game from every
answer's state (one shared tree per answer, as CompNumGuesses builds them); it plays the test word
whose rollout costs the fewest expected guesses against the secret weights w, ties to the better-ranked
word. The base oracle's own choice is ranked first, so by the rollout improvement property the rollout
guesser never needs more expected guesses than the base oracle, from any state.

The secret weights w (whose expected guesses are minimised) and the base oracle's input h are separate:
a best response to a hider uses w = h; the guesser for people uses w = its secret distribution.
A state on which w puts no weight is scored as if w were uniform over it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from games.jotto.kernels import (
    CACHE, ENTROPY, GBR, TIE_TOLERANCE, _oracle, descend, guess_score, split_node, uses_uniform,
)

__all__ = ["GBR", "ENTROPY", "rollout_guess", "rollout_tree", "tree_cost"]


@njit(cache=CACHE, nogil=True)
def tree_cost(C, counts, S, h, w, candidates, L, kind, guesses):
    """Expected guesses (weighted by w, unnormalised) the base oracle needs from state S, counting
    its first guess at S as 1. guesses: int32[D] scratch."""
    n = S.shape[0]
    if n == 0:
        return 0.0
    if n == 1:
        return w[S[0]]
    order = S.copy()
    rec = np.empty(0, dtype=np.int64)
    recg = np.empty(0, dtype=np.int32)
    descend(C, counts, order, h, candidates, L, kind, n + 1, guesses, rec, rec, recg)
    c = 0.0
    for k in range(n):
        c += w[S[k]] * guesses[S[k]]
    return c


@njit(cache=CACHE, nogil=True)
def _effective_weights(S, w):
    W = 0.0
    for k in range(S.shape[0]):
        W += w[S[k]]
    return W


@njit(cache=CACHE, nogil=True)
def rollout_guess(C, counts, S, in_S, h, w, candidates, L, kind, width):
    """The rollout guesser's test word at state S (ascending consistent indices, mask in_S)."""
    n = S.shape[0]
    if n == 1:
        return S[0]
    if n == 2:  # guess the heavier word: no test word finds both sooner
        return S[1] if w[S[1]] > w[S[0]] else S[0]
    D = C.shape[0]
    ww = w
    if _effective_weights(S, w) <= 0.0:
        ww = np.ones(D)
    # rank test words by the base oracle's score (ties: a consistent word, then the lowest index)
    nc = candidates.shape[0]
    hw = np.zeros(L + 1)
    cnt = np.zeros(L + 1, dtype=np.int64)
    uniform = uses_uniform(S, h, kind)
    score = np.empty(nc)
    for ci in range(nc):
        g = candidates[ci]
        sc = guess_score(C[g], S, h, L, kind, uniform, hw, cnt)
        # a test word that neither splits S nor belongs to it wastes a guess
        split = in_S[g]
        if not split:
            for j in range(L + 1):
                if cnt[j] > 0 and cnt[j] < n:
                    split = True
                    break
        score[ci] = sc if split else np.inf
    base = _oracle(C, counts, S, in_S, h, candidates, L, kind)
    key = np.empty(nc)
    for ci in range(nc):
        key[ci] = score[ci]
    order = np.argsort(key, kind="mergesort")
    # the base oracle's choice first, then the best-scored others (consistent words first among ties)
    picks = np.empty(min(width, nc) + 1, dtype=np.int32)
    picks[0] = base
    npk = 1
    oi = 0
    while npk < picks.shape[0] and oi < nc:
        # collect one tie group of the score, consistent words first
        s0 = key[order[oi]]
        if not np.isfinite(s0):
            break
        tol = TIE_TOLERANCE * abs(s0)
        oj = oi
        while oj < nc and key[order[oj]] <= s0 + tol:
            oj += 1
        for pass_in in (True, False):
            for q in range(oi, oj):
                g = candidates[order[q]]
                if in_S[g] == pass_in and g != base and npk < picks.shape[0]:
                    picks[npk] = g
                    npk += 1
        oi = oj
    scratch = np.zeros(D, dtype=np.int32)
    child = np.empty(n, dtype=np.int32)
    W = _effective_weights(S, ww)
    best = -1
    best_cost = np.inf
    for pi in range(npk):
        g = picks[pi]
        row = C[g]
        cost = W
        for a in range(L + 1):
            m = 0
            for k in range(n):
                s = S[k]
                if s != g and row[s] == a:
                    child[m] = s
                    m += 1
            if m > 0:
                cost += tree_cost(C, counts, child[:m], h, ww, candidates, L, kind, scratch)
            if cost >= best_cost:
                break
        if cost < best_cost * (1.0 - TIE_TOLERANCE):
            best = g
            best_cost = cost
    return best


@njit(cache=CACHE, nogil=True)
def rollout_tree(C, counts, h, w, candidates, L, kind, width, record_threshold):
    """The rollout guesser's decision tree over every secret word (CompNumGuesses with the rollout
    guesser): (guesses[D], rec_start, rec_end, rec_guess, order) as kernels.comp_num_guesses returns."""
    D = C.shape[0]
    order = np.arange(D).astype(np.int32)
    tmp = np.empty(D, dtype=np.int32)
    guesses = np.zeros(D, dtype=np.int32)
    in_S = np.zeros(D, dtype=np.bool_)
    stack_s = np.empty(D + 1, dtype=np.int64)
    stack_e = np.empty(D + 1, dtype=np.int64)
    stack_d = np.empty(D + 1, dtype=np.int64)
    rec_s = np.empty(2 * D + 2, dtype=np.int64)
    rec_e = np.empty(2 * D + 2, dtype=np.int64)
    rec_g = np.empty(2 * D + 2, dtype=np.int32)
    nrec = 0
    stack_s[0] = 0
    stack_e[0] = D
    stack_d[0] = 1
    top = 1
    cnt = np.zeros(L + 2, dtype=np.int64)
    while top > 0:
        top -= 1
        s = stack_s[top]
        e = stack_e[top]
        depth = stack_d[top]
        S = np.sort(order[s:e])
        for k in range(e - s):
            in_S[S[k]] = True
        g = rollout_guess(C, counts, S, in_S, h, w, candidates, L, kind, width)
        for k in range(e - s):
            in_S[S[k]] = False
        if e - s > record_threshold:
            rec_s[nrec] = s
            rec_e[nrec] = e
            rec_g[nrec] = g
            nrec += 1
        top = split_node(C, order, tmp, s, e, g, depth, L, cnt, guesses, stack_s, stack_e, stack_d, top)
    return guesses, rec_s[:nrec].copy(), rec_e[:nrec].copy(), rec_g[:nrec].copy(), order
