"""Numba kernels for Jotto shared by the builder and the server's live fallback: the greedy oracles (GBR,
entropy), the rollout guesser over them, and the one decision-tree walk (CompNumGuesses) every guesser uses.

State: the consistent words, always as an ascending int32 array of dictionary indices. A guess that
was answered with fewer than L jots, or a word guessed and not the secret, is no longer consistent.

Tie-break of both oracles (documented, relied upon by the stores): test words whose scores are equal
(within a relative 1e-10, i.e. equal up to floating rounding of the hider's weights) are tied; among
them a word that is still consistent wins (it may end the game), then the lowest dictionary index
(alphabetical order).

When the hider strategy puts no weight on any consistent word, GBR's answer probabilities (Alg. 4)
are undefined; the oracle then uses uniform weights over the consistent words.
"""
from __future__ import annotations

import os

import numpy as np
from numba import njit

from games.fixedmath import log_fixed

GBR = 0  # Ganzfried's greedy best response: maximise expected eliminations (Alg. 1-4)
ENTROPY = 1  # Beeler: maximise expected information, uniform weights

CACHE = True
TIE_TOLERANCE = 1e-10  # relative: scores this close are equal up to floating rounding, hence tied
LEAST_TOLERANCE = 1e-11  # relative: a score this close to the least possible one is it, up to rounding


@njit(cache=CACHE, nogil=True)
def num_comm_letts_matrix(counts):
    """NumCommLetts (Alg. 5) for every pair: jots = one-to-one letter matches (min of letter counts)."""
    d = counts.shape[0]
    out = np.empty((d, d), dtype=np.uint8)
    for i in range(d):
        for j in range(i, d):
            s = 0
            for k in range(26):
                a = counts[i, k]
                b = counts[j, k]
                s += a if a < b else b
            out[i, j] = s
            out[j, i] = s
    return out


@njit(cache=CACHE, nogil=True, inline="always")
def guess_score(row, S, h, L, kind, uniform, hw, cnt):
    """The oracle's score of the test word with jot row `row` at state S (lower is better): GBR's
    sum_j A_j n_j (Alg. 2-4, ExpNumElims = n - score / H) or Beeler's sum_j n_j log n_j."""
    n = S.shape[0]
    for j in range(L + 1):
        hw[j] = 0.0
        cnt[j] = 0
    for k in range(n):
        a = row[S[k]]
        cnt[a] += 1
        if not uniform:
            hw[a] += h[S[k]]
    score = 0.0
    if kind == ENTROPY:
        # minimise sum n_j log n_j  <=>  maximise entropy of the answer distribution
        for j in range(L + 1):
            if cnt[j] > 1:
                score += cnt[j] * log_fixed(np.float64(cnt[j]))      # libm's log has per-CPU variants
    elif uniform:
        # ExpNumElims = n - sum_j A_j n_j with A_j = n_j / n: minimise sum_j n_j^2
        for j in range(L + 1):
            score += cnt[j] * cnt[j]
    else:
        # ExpNumElims = n - sum_j A_j n_j with A_j = hw_j / H: minimise sum_j hw_j n_j
        for j in range(L + 1):
            score += hw[j] * cnt[j]
    return score


@njit(cache=CACHE, nogil=True)
def uses_uniform(S, h, kind):
    """True where the oracle scores with uniform weights: entropy always, GBR when h puts no weight on S."""
    if kind == ENTROPY:
        return True
    H = 0.0
    for k in range(S.shape[0]):
        H += h[S[k]]
    return H <= 0.0


@njit(cache=CACHE, nogil=True, inline="always")
def prefer(score, g_in, best, best_score, best_in):
    """Whether a test word scoring ``score`` (``g_in``: a consistent word) replaces the best so far (``best`` < 0:
    none yet): a lower score beyond TIE_TOLERANCE, or a tie won by a consistent word over an inconsistent one."""
    tol = TIE_TOLERANCE * abs(best_score) if best >= 0 else 0.0
    return best < 0 or score < best_score - tol or (score <= best_score + tol and g_in and not best_in)


@njit(cache=CACHE, nogil=True, inline="always")
def least_score(S, h, kind, uniform):
    """The least score a test word can have at S (every weighted word alone in its answer class), up to
    LEAST_TOLERANCE: once a consistent word reaches it, no later candidate can win (not better beyond the tie
    tolerance, and a tie keeps the consistent word), so a scan stops there with the same answer. Entropy: 0."""
    least = 0.0
    if kind != ENTROPY:
        if uniform:
            least = float(S.shape[0])
        else:
            for k in range(S.shape[0]):
                least += h[S[k]]
    return least + LEAST_TOLERANCE * least


@njit(cache=CACHE, nogil=True)
def choose_guess(C, S, in_S, h, candidates, L, kind):
    """GuesserGBR (Alg. 1-4, answers 0..L) or Beeler's entropy choice at state S; returns a word index. The
    reference scan (one pass over S per test word): the oracles choose with choose_guess_wide, and the tests check
    that it gives this word.

    C: jot matrix; S: ascending consistent indices; in_S: bool mask of S; h: hider weights (GBR only);
    candidates: ascending indices of allowed test words.
    """
    n = S.shape[0]
    if n == 1:
        return S[0]
    hw = np.zeros(L + 1)
    cnt = np.zeros(L + 1, dtype=np.int64)
    uniform = uses_uniform(S, h, kind)
    least = least_score(S, h, kind, uniform)
    best = -1
    best_score = np.inf
    best_in = False
    for ci in range(candidates.shape[0]):
        g = candidates[ci]
        score = guess_score(C[g], S, h, L, kind, uniform, hw, cnt)
        g_in = in_S[g]
        if prefer(score, g_in, best, best_score, best_in):
            best = g
            best_score = score
            best_in = g_in
            if best_in and best_score <= least:
                break
    return best


@njit(cache=CACHE, nogil=True)
def answer_tables(C, S, h, uniform, acc_c, acc_h):
    """Every word's answer classes at state S at once: acc_c[g, a] = the words of S that give g ``a`` jots and,
    unless uniform, acc_h[g, a] = their weight under h; one pass over the jot row of each word of S (C is
    symmetric: C[s, g] = C[g, s]) instead of one pass over S per test word. Each count and weight is summed in
    S's order, as guess_score sums it. acc_c: int64[D, L+1] and acc_h: float64[D, L+1] scratch."""
    D = C.shape[0]
    acc_c[:, :] = 0
    if not uniform:
        acc_h[:, :] = 0.0
    for k in range(S.shape[0]):
        s = S[k]
        row = C[s]
        if uniform:
            for g in range(D):
                acc_c[g, row[g]] += 1
        else:
            hs = h[s]
            for g in range(D):
                a = row[g]
                acc_c[g, a] += 1
                acc_h[g, a] += hs


@njit(cache=CACHE, nogil=True, inline="always")
def table_score(acc_c, acc_h, g, L, kind, uniform):
    """guess_score of test word g from answer_tables: the same operations in the same order, so the same double."""
    score = 0.0
    if kind == ENTROPY:
        for j in range(L + 1):
            if acc_c[g, j] > 1:
                score += acc_c[g, j] * log_fixed(np.float64(acc_c[g, j]))
    elif uniform:
        for j in range(L + 1):
            score += acc_c[g, j] * acc_c[g, j]
    else:
        for j in range(L + 1):
            score += acc_h[g, j] * acc_c[g, j]
    return score


@njit(cache=CACHE, nogil=True)
def choose_guess_wide(C, S, in_S, h, candidates, L, kind, acc_c, acc_h):
    """choose_guess(C, S, in_S, h, candidates, L, kind), the same word, from answer_tables: every score is the
    same double and the scan (ties within TIE_TOLERANCE: a consistent word, then the earlier candidate; the stop
    at the least possible score) the same. 1.6x faster at the biggest states of 5 letters, 3-6x at the small
    ones, where choose_guess's per-test-word overhead dominates (docs/review.md). acc_c, acc_h: answer_tables'
    scratch."""
    n = S.shape[0]
    if n == 1:
        return S[0]
    D = C.shape[0]
    if n == 2 and kind == GBR and candidates.shape[0] == D:
        # every word a candidate: the first consistent word scores the least possible (each word alone in its
        # answer class), or, if the two are anagrams, every test word scores alike and the tie goes to it
        return S[0] if S[0] < S[1] else S[1]
    uniform = uses_uniform(S, h, kind)
    answer_tables(C, S, h, uniform, acc_c, acc_h)
    least = least_score(S, h, kind, uniform)
    best = -1
    best_score = np.inf
    best_in = False
    for ci in range(candidates.shape[0]):
        g = candidates[ci]
        score = table_score(acc_c, acc_h, g, L, kind, uniform)
        g_in = in_S[g]
        if prefer(score, g_in, best, best_score, best_in):
            best = g
            best_score = score
            best_in = g_in
            if best_in and best_score <= least:
                break
    return best


@njit(cache=CACHE, nogil=True)
def new_tables(D, L):
    """answer_tables' scratch for a dictionary of D words of L letters."""
    return np.empty((D, L + 1), dtype=np.int64), np.empty((D, L + 1))


@njit(cache=CACHE, nogil=True)
def beeler_guess(C, counts, S, in_S, h, candidates, L, acc_c, acc_h):
    """Beeler's guesser: entropy over common test words; once every letter is known (all consistent
    words are anagrams of one another), or no common word splits the state, guess a consistent word.
    acc_c, acc_h: answer_tables' scratch."""
    n = S.shape[0]
    same = True
    for k in range(1, n):
        for c in range(26):
            if counts[S[k], c] != counts[S[0], c]:
                same = False
                break
        if not same:
            break
    if same:
        return S[0]
    g = choose_guess_wide(C, S, in_S, h, candidates, L, ENTROPY, acc_c, acc_h)
    row = C[g]
    a0 = row[S[0]]
    for k in range(1, n):
        if row[S[k]] != a0:
            return g
    return S[0]


@njit(cache=CACHE, nogil=True)
def _oracle(C, counts, S, in_S, h, candidates, L, kind, acc_c, acc_h):
    if kind == ENTROPY:
        return beeler_guess(C, counts, S, in_S, h, candidates, L, acc_c, acc_h)
    return choose_guess_wide(C, S, in_S, h, candidates, L, GBR, acc_c, acc_h)


@njit(cache=CACHE, nogil=True, inline="always")
def split_node(C, order, tmp, s, e, g, depth, L, cnt, guesses, stack_s, stack_e, stack_d, top):
    """One node of a decision-tree walk over order[s:e] with test word g at this depth: records g's
    guesses if it is in the state, splits the rest in place by answer (a stable counting sort, g last)
    and pushes each answer's state; returns the new stack top."""
    S = order[s:e]
    # stable counting sort of S \ {g} by answer; g goes last
    for j in range(L + 2):
        cnt[j] = 0
    row = C[g]
    for k in range(e - s):
        w = S[k]
        if w == g:
            guesses[w] = depth
        else:
            cnt[row[w] + 1] += 1
    for j in range(1, L + 2):
        cnt[j] += cnt[j - 1]
    # cnt[a] = start offset of answer a
    m = 0
    for k in range(e - s):
        w = S[k]
        if w != g:
            a = row[w]
            tmp[cnt[a]] = w
            cnt[a] += 1
            m += 1
    # after placement cnt[a] = end offset of answer a
    has_g = m < e - s
    for k in range(m):
        order[s + k] = tmp[k]
    if has_g:
        order[s + m] = g
    prev = 0
    for a in range(L + 1):
        end = cnt[a]
        if end > prev:
            stack_s[top] = s + prev
            stack_e[top] = s + end
            stack_d[top] = depth + 1
            top += 1
        prev = end
    return top


@njit(cache=CACHE, nogil=True)
def greedy_chooser(C, counts, S, in_S, h, w, candidates, L, kind, width, acc_c, acc_h):
    """The walk's chooser for the greedy oracles (GBR, entropy): the oracle's move at S (any order)."""
    return _oracle(C, counts, S, in_S, h, candidates, L, kind, acc_c, acc_h)


@njit(cache=CACHE, nogil=True)
def rollout_chooser(C, counts, S, in_S, h, w, candidates, L, kind, width, acc_c, acc_h):
    """The walk's chooser for the rollout guesser over the greedy oracle `kind`."""
    return rollout_guess(C, counts, np.sort(S), in_S, h, w, candidates, L, kind, width)


@njit(cache=CACHE, nogil=True, inline="always")
def walk(choose, C, counts, order, h, w, candidates, L, kind, width, record_threshold, guesses, rec_s, rec_e, rec_g):
    """The decision tree of the guesser `choose` (greedy_chooser or rollout_chooser) from the state
    order[:] (any words), in place: guesses[w] = the guesses it needs for each word w of the state; nodes
    with more than record_threshold words are recorded as order[rec_s:rec_e] (their words, unsorted) and
    the test word rec_g. Returns the number recorded.

    Inlined into descend and rollout_descend, one compiled copy per chooser: numba cannot cache a compiled
    function that takes a function argument, nor one that calls itself (the rollout guesser walks the
    greedy oracle's trees), so neither one walk with a chooser argument nor one with an integer switch."""
    n0 = order.shape[0]
    D = C.shape[0]
    tmp = np.empty(n0, dtype=np.int32)
    in_S = np.zeros(D, dtype=np.bool_)
    stack_s = np.empty(n0 + 1, dtype=np.int64)
    stack_e = np.empty(n0 + 1, dtype=np.int64)
    stack_d = np.empty(n0 + 1, dtype=np.int64)
    nrec = 0
    top = 0
    stack_s[0] = 0
    stack_e[0] = n0
    stack_d[0] = 1
    top = 1 if n0 > 0 else 0
    cnt = np.zeros(L + 2, dtype=np.int64)
    acc_c, acc_h = new_tables(D, L)
    while top > 0:
        top -= 1
        s = stack_s[top]
        e = stack_e[top]
        depth = stack_d[top]
        S = order[s:e]
        for k in range(e - s):
            in_S[S[k]] = True
        g = choose(C, counts, S, in_S, h, w, candidates, L, kind, width, acc_c, acc_h)
        for k in range(e - s):
            in_S[S[k]] = False
        if e - s > record_threshold:
            rec_s[nrec] = s
            rec_e[nrec] = e
            rec_g[nrec] = g
            nrec += 1
        top = split_node(C, order, tmp, s, e, g, depth, L, cnt, guesses, stack_s, stack_e, stack_d, top)
    return nrec


@njit(cache=CACHE, nogil=True)
def descend(C, counts, order, h, candidates, L, kind, record_threshold, guesses, rec_s, rec_e, rec_g):
    """walk with the greedy oracle `kind` (compiled on its own: the rollout guesser calls it)."""
    return walk(greedy_chooser, C, counts, order, h, h, candidates, L, kind, 0, record_threshold, guesses, rec_s,
                rec_e, rec_g)


@njit(cache=CACHE, nogil=True)
def rollout_descend(C, counts, order, h, w, candidates, L, kind, width, record_threshold, guesses, rec_s, rec_e,
                    rec_g):
    """walk with the rollout guesser over the greedy oracle `kind`."""
    return walk(rollout_chooser, C, counts, order, h, w, candidates, L, kind, width, record_threshold, guesses,
                rec_s, rec_e, rec_g)


@njit(cache=CACHE, nogil=True, inline="always")
def _whole_tree(rollout, C, counts, h, w, candidates, L, kind, width, record_threshold):
    D = C.shape[0]
    order = np.arange(D).astype(np.int32)
    guesses = np.zeros(D, dtype=np.int32)
    rec_s = np.empty(2 * D + 2, dtype=np.int64)  # a node removes its test word or splits its state
    rec_e = np.empty(2 * D + 2, dtype=np.int64)
    rec_g = np.empty(2 * D + 2, dtype=np.int32)
    if rollout:
        nrec = rollout_descend(C, counts, order, h, w, candidates, L, kind, width, record_threshold, guesses, rec_s,
                               rec_e, rec_g)
    else:
        nrec = descend(C, counts, order, h, candidates, L, kind, record_threshold, guesses, rec_s, rec_e, rec_g)
    return guesses, rec_s[:nrec].copy(), rec_e[:nrec].copy(), rec_g[:nrec].copy(), order


@njit(cache=CACHE, nogil=True)
def comp_num_guesses(C, counts, h, candidates, L, kind, record_threshold):
    """CompNumGuesses (Alg. 6-7) for every secret word at once: one shared decision tree.

    Returns (guesses[D], rec_start, rec_end, rec_guess, order): the number of guesses needed for each
    secret word, and for every tree node with more than record_threshold consistent words the slice
    order[rec_start:rec_end] holding its consistent words (unsorted) and the test word played there.
    """
    return _whole_tree(False, C, counts, h, h, candidates, L, kind, 0, record_threshold)


@njit(cache=CACHE, nogil=True)
def oracle_move(C, counts, S, h, candidates, L, kind):
    """The test word the oracle plays at state S (the server's live path)."""
    in_S = np.zeros(C.shape[0], dtype=np.bool_)
    for k in range(S.shape[0]):
        in_S[S[k]] = True
    acc_c, acc_h = new_tables(C.shape[0], L)
    return _oracle(C, counts, S, in_S, h, candidates, L, kind, acc_c, acc_h)


# ---------------------------------------------------------------- the rollout guesser
# A stronger guesser than the greedy oracle: rollouts of the greedy oracle from each candidate test word.
#
# At the state S the rollout guesser ranks the test words by the base oracle's own score (GBR or entropy),
# and for the `width` best of them plays each one and then lets the base oracle finish the game from every
# answer's state (one shared tree per answer, as CompNumGuesses builds them); it plays the test word
# whose rollout costs the fewest expected guesses against the secret weights w, ties to the better-ranked
# word. The base oracle's own choice is ranked first, so by the rollout improvement property the rollout
# guesser never needs more expected guesses than the base oracle, from any state.
#
# The secret weights w (whose expected guesses are minimised) and the base oracle's input h are separate:
# a best response to a hider uses w = h; the guesser for people uses w = its secret distribution.
# A state on which w puts no weight is scored as if w were uniform over it.


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
    return weighted_guesses(S, w, guesses)


@njit(cache=CACHE, nogil=True, inline="always")
def weighted_guesses(S, w, guesses):
    """sum over the words s of S of w[s] * guesses[s]."""
    c = 0.0
    for k in range(S.shape[0]):
        c += w[S[k]] * guesses[S[k]]
    return c


@njit(cache=CACHE, nogil=True)
def _effective_weights(S, w):
    W = 0.0
    for k in range(S.shape[0]):
        W += w[S[k]]
    return W


@njit(cache=CACHE, nogil=True)
def rollout_picks(C, counts, S, in_S, h, candidates, L, kind, width):
    """The test words the rollout guesser tries at state S (n >= 3): the base oracle's choice first, then
    the `width` best by the base oracle's score (ties: a consistent word, then the lowest index); a test
    word that neither splits S nor belongs to it is never tried."""
    n = S.shape[0]
    nc = candidates.shape[0]
    uniform = uses_uniform(S, h, kind)
    acc_c, acc_h = new_tables(C.shape[0], L)
    answer_tables(C, S, h, uniform, acc_c, acc_h)
    key = np.empty(nc)
    for ci in range(nc):
        g = candidates[ci]
        sc = table_score(acc_c, acc_h, g, L, kind, uniform)
        split = in_S[g]
        if not split:
            for j in range(L + 1):
                if acc_c[g, j] > 0 and acc_c[g, j] < n:
                    split = True
                    break
        key[ci] = sc if split else np.inf
    base = _oracle(C, counts, S, in_S, h, candidates, L, kind, acc_c, acc_h)
    order = np.argsort(key, kind="mergesort")
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
    return picks[:npk]


@njit(cache=CACHE, nogil=True, inline="always")
def split_by_answer(C, S, g, L, child, start):
    """S minus g grouped by g's answer into child[start[a]:start[a + 1]] (stable)."""
    row = C[g]
    for a in range(L + 2):
        start[a] = 0
    for k in range(S.shape[0]):
        if S[k] != g:
            start[row[S[k]] + 1] += 1
    for a in range(1, L + 2):
        start[a] += start[a - 1]
    pos = start[:L + 1].copy()
    for k in range(S.shape[0]):
        s = S[k]
        if s != g:
            child[pos[row[s]]] = s
            pos[row[s]] += 1


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
    picks = rollout_picks(C, counts, S, in_S, h, candidates, L, kind, width)
    scratch = np.zeros(D, dtype=np.int32)
    child = np.empty(n, dtype=np.int32)
    start = np.empty(L + 2, dtype=np.int64)
    W = _effective_weights(S, ww)
    best = -1
    best_cost = np.inf
    for pi in range(picks.shape[0]):
        g = picks[pi]
        split_by_answer(C, S, g, L, child, start)
        cost = W
        for a in range(L + 1):
            if start[a + 1] > start[a]:
                cost += tree_cost(C, counts, child[start[a]:start[a + 1]], h, ww, candidates, L, kind, scratch)
            if cost >= best_cost:
                break
        if cost < best_cost * (1.0 - TIE_TOLERANCE):
            best = g
            best_cost = cost
    return best


@njit(cache=CACHE, nogil=True)
def rollout_tree(C, counts, h, w, candidates, L, kind, width, record_threshold):
    """The rollout guesser's decision tree over every secret word (CompNumGuesses with the rollout
    guesser): (guesses[D], rec_start, rec_end, rec_guess, order) as comp_num_guesses returns."""
    return _whole_tree(True, C, counts, h, w, candidates, L, kind, width, record_threshold)


# ---------------------------------------------------------------- the lookahead guesser
# One level more than the rollout guesser: each tried test word is scored by the rollout guesser's own
# trees from every answer's state (a rollout of the rollout guesser). The rollout guesser's own choice is
# tried first, so by the rollout improvement property the lookahead never costs more expected guesses
# than the rollout guesser from the same state. games.jotto.lookahead plays it at the big states only.


def rollout_compiled() -> bool:
    """Whether the rollout tree's kernel (``rollout_tree``) is compiled in this process or numba's cache holds it: the
    executor's workers then load it, where with the cache cold each compiles it before its first rollout tree
    (seconds: most of the 3-letter Jotto store's robust hider on a fresh clone)."""
    return kernel_compiled(rollout_tree)


def kernel_compiled(kernel) -> bool:
    """Whether a numba ``kernel`` is compiled in this process or numba's cache holds it (its first call then loads
    it instead of compiling it)."""
    if kernel.signatures:
        return True
    try:
        return os.path.exists(kernel._cache._cache_file._index_path)
    except AttributeError:      # caching off (no cache file): every process compiles it
        return False


@njit(cache=CACHE, nogil=True)
def rollout_tree_cost(C, counts, S, h, w, candidates, L, kind, width, guesses):
    """Expected guesses (weighted by w, unnormalised) the rollout guesser needs from state S, counting
    its first guess at S as 1. guesses: int32[D] scratch."""
    if S.shape[0] <= 1:  # no guess to choose: the same as any guesser's
        return tree_cost(C, counts, S, h, w, candidates, L, kind, guesses)
    none = np.empty(0, dtype=np.int64)
    rollout_descend(C, counts, S.copy(), h, w, candidates, L, kind, width, S.shape[0] + 1, guesses, none, none,
                    np.empty(0, dtype=np.int32))
    return weighted_guesses(S, w, guesses)


@njit(cache=CACHE, nogil=True)
def lookahead_guess(C, counts, S, in_S, h, w, candidates, L, kind, width, lookahead_width):
    """The lookahead guesser's test word at state S (ascending, mask in_S): of the rollout guesser's
    choice and the base oracle's `lookahead_width` best-scored test words, the one whose rollout-guesser
    trees cost the fewest expected guesses against w (branch and bound over the answers)."""
    n = S.shape[0]
    if n <= 2:
        return rollout_guess(C, counts, S, in_S, h, w, candidates, L, kind, width)
    D = C.shape[0]
    ww = w
    if _effective_weights(S, w) <= 0.0:
        ww = np.ones(D)
    first = rollout_guess(C, counts, S, in_S, h, ww, candidates, L, kind, width)
    ranked = rollout_picks(C, counts, S, in_S, h, candidates, L, kind, lookahead_width)
    picks = np.empty(ranked.shape[0] + 1, dtype=np.int32)
    picks[0] = first
    npk = 1
    for q in range(ranked.shape[0]):
        if ranked[q] != first:
            picks[npk] = ranked[q]
            npk += 1
    scratch = np.zeros(D, dtype=np.int32)
    child = np.empty(n, dtype=np.int32)
    start = np.empty(L + 2, dtype=np.int64)
    W = _effective_weights(S, ww)
    best = -1
    best_cost = np.inf
    for pi in range(npk):
        g = picks[pi]
        split_by_answer(C, S, g, L, child, start)
        cost = W
        for a in range(L + 1):
            if start[a + 1] > start[a]:
                cost += rollout_tree_cost(C, counts, child[start[a]:start[a + 1]].copy(), h, ww, candidates, L, kind,
                                          width, scratch)
            if cost >= best_cost:
                break
        if cost < best_cost * (1.0 - TIE_TOLERANCE):
            best = g
            best_cost = cost
    return best
