"""The guesser's exact best response to a hider strategy: the decision tree with the fewest expected
guesses against a weighted secret, by depth-first branch and bound (as the exact Wordle solvers do).

V(S) = W(S) + min_g sum_a V(S_a): at the consistent-word set S (total weight W), test word g splits the
words other than g by their jots with g; g itself is found at this guess. Only test words that split S
or belong to S are worth playing. Admissible lower bound (``counting_bound``): a tree whose nodes have at
most k children (k = the number of jot answers two different words can give) finds at most one word per
node, so at most k^(d-1) words at depth d; giving the heaviest words the shallowest depths bounds V(S).
The search orders test words by W + sum_a bound(S_a), prunes against the best tree so far and the
caller's budget, and caches exact values and failed budgets (lower bounds, stored negated) in one table keyed by the set S
(two 64-bit Zobrist hashes). Words of zero weight cost nothing and are left out of S; every dictionary word
stays a test word.

Values are exact up to floating rounding of the weights (the search compares sums of the given doubles).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, types
from numba.typed import Dict

from games.jotto.kernels import CACHE

_KEY = types.UniTuple(types.uint64, 2)
_EPS = 1e-12  # relative: costs this close are equal (rounding of the weights)


@njit(cache=CACHE, nogil=True)
def _counting_bound(S, w, depth_of_rank):
    """counting_bound of S (S sorted by weight, heaviest first) with one row of the depth table."""
    s = 0.0
    for r in range(S.shape[0]):
        s += w[S[r]] * depth_of_rank[r]
    return s


@njit(cache=CACHE, nogil=True)
def _key(S, k1, k2):
    a = np.uint64(0)
    b = np.uint64(0)
    for i in range(S.shape[0]):
        a ^= k1[S[i]]
        b ^= k2[S[i]]
    return (a, b)


@njit(cache=CACHE, nogil=True, inline="always")
def _bound_row(dr, m, r, n):
    """The depth-table row (e, m) for a set of n words whose split width is at most m and reach at most r
    (r - m = e is 0 or 1)."""
    mm = min(m, n - 1)
    rr = min(r, mm + 1, n)
    if rr < 1:
        rr = 1
    cap = dr.shape[1] - 1
    return dr[rr - mm, cap if mm >= cap else mm]


@njit(cache=CACHE, nogil=True)
def _split_width(S, C, cand, L, in_S, cnt):
    """(m(S), r(S)): the most words any test word sends outside its largest answer class (its own word
    aside), and the most it finds or sends outside that class together (m or m + 1)."""
    n = S.shape[0]
    K = L + 1
    m = 0
    r = 0
    for ci in range(cand.shape[0]):
        g = cand[ci]
        row = C[g]
        for a in range(K):
            cnt[a] = 0
        for i in range(n):
            cnt[row[S[i]]] += 1
        member = 1 if in_S[g] else 0
        if member:
            cnt[row[g]] -= 1
        big = 0
        for a in range(K):
            if cnt[a] > big:
                big = cnt[a]
        if n - member - big > m:
            m = n - member - big
        if n - big > r:
            r = n - big
    return m, r


@njit(cache=CACHE, nogil=True)
def _three(S, C, w, cand):
    """(V(S), its test word) for three words, heaviest first, in closed form: a consistent test word
    finds itself and the other two cost their weights once more if it separates them, plus the lighter
    one's again if not; another test word costs W again, plus the lighter of a pair it leaves together."""
    a, b, c = S[0], S[1], S[2]
    W = w[a] + w[b] + w[c]
    best = np.inf
    best_g = -1
    for ci in range(cand.shape[0]):
        g = cand[ci]
        v = three_word_cost(C[g], g, a, b, c, w, W)
        if v < best:
            best = v
            best_g = g
    return best, best_g


@njit(cache=CACHE, nogil=True, inline="always")
def three_word_cost(row, g, a, b, c, w, W):
    """Expected guesses (unnormalised) from the three words a, b, c (weights summing to W) when test word g
    (its answers against every word: ``row``) is played first and the rest optimally; inf if it separates none."""
    if g == a or g == b or g == c:
        if g == a:
            p, q = b, c
        elif g == b:
            p, q = a, c
        else:
            p, q = a, b
        v = W + (W - w[g])
        if row[p] == row[q]:
            v += min(w[p], w[q])
        return v
    ra, rb, rc = row[a], row[b], row[c]
    if ra == rb and rb == rc:
        return np.inf
    v = W + W
    if ra == rb:
        v += min(w[a], w[b])
    elif ra == rc:
        v += min(w[a], w[c])
    elif rb == rc:
        v += min(w[b], w[c])
    return v


@njit(cache=CACHE, nogil=True)
def _solve(S, beta, mpar, rpar, C, w, cand, L, k1, k2, dr, memo, move, stats):
    """V(S) if it is below beta (then cached as exact); otherwise a lower bound >= beta.
    S: words of positive weight, heaviest first (children keep that order: the split is stable);
    mpar, rpar: upper bounds on S's split width and reach (its parent's)."""
    n = S.shape[0]
    if n == 0:
        return 0.0
    W = 0.0
    for i in range(n):
        W += w[S[i]]
    if n == 1:
        return W
    if n == 2:  # the heavier word first; no test word can find both in fewer
        return W + w[S[1]]
    if n == 3:
        return _three(S, C, w, cand)[0]
    if stats[1] != 0:  # out of budget: the caller discards everything from here on
        return np.inf
    key = _key(S, k1, k2)
    known = memo.get(key, 0.0)  # > 0: V(S); < 0: -(a lower bound); 0: nothing known
    if known > 0.0:
        return known
    lb0 = _counting_bound(S, w, _bound_row(dr, mpar, rpar, n))
    if -known > lb0:
        lb0 = -known
    if lb0 >= beta:
        return lb0
    stats[0] += 1
    if stats[0] > stats[2]:
        stats[1] = 1
        return np.inf
    K = L + 1
    nc = cand.shape[0]
    cnt = np.zeros(K, dtype=np.int64)
    in_S = np.zeros(C.shape[0], dtype=np.bool_)
    for i in range(n):
        in_S[S[i]] = True
    m, r = _split_width(S, C, cand, L, in_S, cnt)
    m = min(m, mpar)
    r = min(r, rpar)
    drow = _bound_row(dr, m, r, n)
    lbm = _counting_bound(S, w, drow)
    if lbm > lb0:
        lb0 = lbm
        if lb0 >= beta:
            memo[key] = -lb0
            return lb0
    bound = np.empty(nc)
    sig = np.zeros(nc, dtype=np.uint64)
    valid = np.zeros(nc, dtype=np.bool_)
    lbc = np.zeros(K)
    h1 = np.zeros(K, dtype=np.uint64)
    h2 = np.zeros(K, dtype=np.uint64)
    for ci in range(nc):
        g = cand[ci]
        row = C[g]
        for a in range(K):
            cnt[a] = 0
            lbc[a] = 0.0
            h1[a] = 0
            h2[a] = 0
        for i in range(n):
            s = S[i]
            if s == g:
                continue
            a = row[s]
            lbc[a] += w[s] * drow[cnt[a]]
            cnt[a] += 1
            h1[a] ^= k1[s]
            h2[a] ^= k2[s]
        member = in_S[g]
        if not member:
            split = True
            for a in range(K):
                if cnt[a] == n:
                    split = False
            if not split:
                continue
        b = W
        sg = k1[g] if member else np.uint64(0)
        for a in range(K):
            if cnt[a] == 0:
                continue
            v = lbc[a]
            if cnt[a] > 2:
                kv = memo.get((h1[a], h2[a]), 0.0)
                if kv > 0.0 or -kv > v:
                    v = abs(kv)
            b += v
            sg += (h1[a] ^ (h2[a] >> np.uint64(7))) * np.uint64(0x9E3779B97F4A7C15)
        bound[ci] = b
        sig[ci] = sg
        valid[ci] = True
    idx = np.flatnonzero(valid)
    order = idx[np.argsort(bound[idx], kind="mergesort")]
    best = np.inf
    best_g = -1
    node_lb = np.inf
    seen = np.empty(order.shape[0], dtype=np.uint64)
    seen_b = np.empty(order.shape[0])
    nseen = 0
    child = np.empty(n, dtype=np.int32)
    kids = np.empty(K, dtype=np.int64)
    own = np.zeros(K)
    offs = np.zeros(K + 1, dtype=np.int64)
    for oi in range(order.shape[0]):
        ci = order[oi]
        lim = min(best, beta)
        if bound[ci] >= lim * (1.0 - _EPS):
            node_lb = min(node_lb, bound[ci])
            break
        # a test word splitting S as an earlier one did (same classes, same membership) has the same bound up
        # to rounding, so only the earlier ones of (nearly) equal bound are compared
        dup = False
        j = nseen - 1
        while j >= 0 and seen_b[j] >= bound[ci] * (1.0 - 1e-9):
            if seen[j] == sig[ci]:
                dup = True
                break
            j -= 1
        if dup:
            continue
        seen[nseen] = sig[ci]
        seen_b[nseen] = bound[ci]
        nseen += 1
        g = cand[ci]
        row = C[g]
        # children, largest first (their bounds are the least tight), with their current bounds (the
        # caches may have tightened since the candidates were scored)
        for a in range(K):
            cnt[a] = 0
        for i in range(n):
            if S[i] != g:
                cnt[row[S[i]]] += 1
        nk = 0
        for _ in range(K):
            amax = -1
            for a in range(K):
                if cnt[a] > 0 and (amax < 0 or cnt[a] > cnt[amax]):
                    amax = a
            if amax < 0:
                break
            kids[nk] = amax
            cnt[amax] = 0
            nk += 1
        cost = W
        start = 0
        offs[0] = 0
        for j in range(nk):
            mm = 0
            for i in range(n):
                s = S[i]
                if s != g and row[s] == kids[j]:
                    child[start + mm] = s
                    mm += 1
            offs[j + 1] = start + mm
            cs = child[start:start + mm]
            b = _counting_bound(cs, w, _bound_row(dr, m, r, mm))
            if mm > 2:
                kv = memo.get(_key(cs, k1, k2), 0.0)
                if kv > 0.0 or -kv > b:
                    b = abs(kv)
            own[j] = b
            cost += b
            start += mm
        ok = cost < lim * (1.0 - _EPS)
        for j in range(nk):
            if not ok:
                break
            rest = cost - own[j]
            v = _solve(child[offs[j]:offs[j + 1]].copy(), lim - rest, m, r, C, w, cand, L, k1, k2, dr,
                       memo, move, stats)
            cost = rest + v
            if cost >= lim * (1.0 - _EPS):
                ok = False
        if ok:
            best = cost
            best_g = g
        else:
            node_lb = min(node_lb, cost)
    if stats[1] != 0:
        return np.inf
    if best < beta:
        memo[key] = best
        move[key] = best_g
        return best
    # every test word failed against beta: V(S) >= the least of their lower bounds (each >= beta)
    lb = max(lb0, node_lb, beta)
    memo[key] = -lb
    return lb


@njit(cache=CACHE)
def _cached_move(S, k1, k2, move):
    return move.get(_key(S, k1, k2), -1)


def depth_of_rank(D: int, k: int, m: int | None = None, r: int | None = None) -> np.ndarray:
    """The shallowest depth the r-th word (0-based) can have in a tree whose nodes have at most k children,
    send at most m words (None: any number) outside their largest child and find-or-send at most r (m or
    m + 1): N(0) = 0 and N(d) = N(d-1) + max over f in {0, 1}, f <= r, of f + min(r - f, m, (k-1) N(d-1))
    words fit within depth d (the counting bound for m = None: N(d) = 1 + k N(d-1))."""
    out = np.empty(D + 1, dtype=np.float64)
    rank, d, fit = 0, 1, 0
    while rank <= D:
        x = (k - 1) * fit
        if m is None:
            fit = fit + 1 + x
        else:
            rr = m + 1 if r is None else r
            fit = fit + max(f + min(rr - f, m, x) for f in (0, 1) if f <= rr)
        while rank < fit and rank <= D:
            out[rank] = d
            rank += 1
        d += 1
    return out


def depth_table(D: int, k: int, cap: int = 256) -> np.ndarray:
    """depth_of_rank for reach r = m + e (e = 0, 1) and split widths m = 0..cap-1, the last row any width:
    [e, m, rank]."""
    cap = min(cap, D)
    return np.stack([np.stack([depth_of_rank(D, k, m, max(m + e, 1)) for m in range(cap)]
                              + [depth_of_rank(D, k)]) for e in (0, 1)])


def branching(C: np.ndarray, L: int) -> int:
    """How many jot answers a test word can give about the words other than itself (L + 1 if two
    different words share all letters, else L)."""
    off = C.copy()
    np.fill_diagonal(off, 0)
    return L + 1 if (off == L).any() else L


@dataclass
class ExactResult:
    value: float  # expected guesses of the optimal tree (weights normalised to 1)
    guesses: np.ndarray  # int32[D]: guesses the optimal tree needs per word (0 for words of zero weight)
    first: int  # the optimal first test word
    nodes: int  # states expanded by the search
    # the tree as a complete guesser strategy (every word found, zero-weight words by greedy_completion
    # once no weighted word is left): guesses per word, and every node's state (ascending) and test word
    tree_guesses: np.ndarray | None = None
    node_states: list | None = None
    node_moves: list | None = None


class ExactSolver:
    """Exact best response of the guesser (the optimal decision tree) against weighted secrets."""

    def __init__(self, C: np.ndarray, L: int, candidates: np.ndarray | None = None, seed: int = 0):
        self.C = np.ascontiguousarray(C, dtype=np.uint8)
        self.L = L
        D = self.C.shape[0]
        self.cand = np.arange(D, dtype=np.int32) if candidates is None else np.asarray(candidates, np.int32)
        rng = np.random.default_rng(seed)
        self.k1 = rng.integers(0, 2**63, size=D, dtype=np.int64).astype(np.uint64) * np.uint64(2) + np.uint64(1)
        self.k2 = rng.integers(0, 2**63, size=D, dtype=np.int64).astype(np.uint64)
        self.dr = depth_table(D, branching(self.C, L))

    def _weights(self, h):
        h = np.asarray(h, dtype=np.float64)
        w = h / h.sum()
        S = np.flatnonzero(w > 0)
        return w, S[np.argsort(-w[S], kind="stable")].astype(np.int32)

    def _run(self, w, S, beta, max_nodes):
        memo = Dict.empty(key_type=_KEY, value_type=types.float64)
        move = Dict.empty(key_type=_KEY, value_type=types.int64)
        stats = np.array([0, 0, max_nodes], dtype=np.int64)
        v = _solve(S, beta, len(S), len(S), self.C, w, self.cand, self.L, self.k1, self.k2, self.dr,
                   memo, move, stats)
        return (None if stats[1] else v), memo, move, int(stats[0])

    def solve(self, h: np.ndarray, upper: float = np.inf, max_nodes: int = 2**62) -> ExactResult | None:
        """The optimal tree against secret weights h (any nonnegative scale); None if the search
        expands more than max_nodes states. `upper`: a known upper bound on its (normalised) value, e.g.
        a rollout tree's, to prune from the start."""
        w, S = self._weights(h)
        beta = upper * (1 + 1e-9) + 1e-12 if np.isfinite(upper) else np.inf
        v, exact, move, nodes = self._run(w, S, beta, max_nodes)
        if v is not None and not v < beta:
            v, exact, move, n2 = self._run(w, S, np.inf, max_nodes)
            nodes += n2
        if v is None:
            return None
        guesses = np.zeros(len(w), dtype=np.int32)
        first = self._walk(S, 1, w, exact, move, guesses)
        full = np.zeros(len(w), dtype=np.int32)
        self._w = w
        states: list[np.ndarray] = []
        moves: list[int] = []
        self._walk_full(np.arange(len(w), dtype=np.int32), S, 1, move, full, states, moves)
        return ExactResult(float(v), guesses, first, nodes, full, states, moves)

    def value(self, h: np.ndarray, max_nodes: int = 2**62) -> tuple[float, int] | None:
        """(the optimal tree's value against h (normalised), its first test word), or None if the search
        expands more than max_nodes states: solve's value and first word without the tree over every
        dictionary word that solve also builds (a Python walk over the whole dictionary, the cost of
        solve on a big dictionary, not of the search)."""
        w, S = self._weights(h)
        v, _, move, _ = self._run(w, S, np.inf, max_nodes)
        if v is None:
            return None
        n = len(S)
        if n <= 2:
            first = int(S[0])
        elif n == 3:
            first = int(_three(S, self.C, w, self.cand)[1])
        else:
            first = int(_cached_move(S, self.k1, self.k2, move))
        return float(v), first

    def proves_at_least(self, h: np.ndarray, beta: float, max_nodes: int) -> bool | float | None:
        """Whether the optimal tree against h needs at least beta expected guesses: True (proved), its
        exact value if that is below beta, None if the search ran out of max_nodes."""
        w, S = self._weights(h)
        v, _, _, _ = self._run(w, S, beta, max_nodes)
        if v is None:
            return None
        return True if v >= beta else float(v)

    def counting_bound(self, h: np.ndarray) -> float:
        """The counting bound on the optimal tree's value against h (normalised): certified, no search."""
        w, S = self._weights(h)
        return float(_counting_bound(S, w, self.dr[1, -1]))

    def lower_bound(self, h: np.ndarray, lo: float | None, hi: float, max_nodes: int, steps: int = 12,
                    progress=None) -> tuple[float, float | None]:
        """A certified lower bound on the optimal tree's value by bisection on proofs V >= beta within
        max_nodes each, from lo (a certified bound; None: the counting bound) towards hi (a value the
        optimum is known not to exceed, e.g. a rollout tree's): (bound, exact value if one probe found it).
        A proof raises the bound to the search's own bound where that is above the probe.
        progress(step, lo, hi), if given, is called after every probe."""
        w, S = self._weights(h)
        best_lb = self.counting_bound(h) if lo is None else lo
        for step in range(steps):
            mid = 0.5 * (best_lb + hi)
            v, _, _, _ = self._run(w, S, mid, max_nodes)
            if v is None:
                hi = mid
            elif v >= mid:
                # the search's bound holds up to its relative rounding tolerance
                best_lb = max(mid, v * (1 - 4 * _EPS))
            else:
                return float(v), float(v)
            if progress is not None:
                progress(step + 1, best_lb, hi)
        return best_lb, None

    def _walk(self, S, depth, w, exact, move, guesses) -> int:
        """Replays the optimal tree (the cached moves) and records each word's guesses."""
        n = len(S)
        if n <= 2:
            g = int(S[0])
        elif n == 3:
            g = int(_three(S, self.C, w, self.cand)[1])
        else:
            g = int(_cached_move(S, self.k1, self.k2, move))
            assert g >= 0, "a state of the optimal tree was not solved exactly"
        if g in set(S.tolist()):
            guesses[g] = depth
        rest = S[S != g]
        row = self.C[g]
        for a in range(self.L + 1):
            part = rest[row[rest] == a]
            if len(part):
                self._walk(part, depth + 1, w, exact, move, guesses)
        return g

    def _walk_full(self, F, P, depth, move, guesses, states, moves) -> None:
        """Replays the optimal tree on every word (F ascending; P its weighted words, heaviest first):
        the weighted words' moves from the search, greedy_completion where none is left."""
        if len(P) == 3:
            g = int(_three(P, self.C, self._w, self.cand)[1])
        elif len(P) >= 3:
            g = int(_cached_move(P, self.k1, self.k2, move))
            assert g >= 0, "a state of the optimal tree was not solved exactly"
        elif len(P):
            g = int(P[0])
        else:
            g = greedy_completion(self.C, F)
        states.append(F)
        moves.append(g)
        if g in set(F.tolist()):
            guesses[g] = depth
        row = self.C[g]
        restF, restP = F[F != g], P[P != g]
        for a in range(self.L + 1):
            part = restF[row[restF] == a]
            if len(part):
                self._walk_full(part, restP[row[restP] == a], depth + 1, move, guesses, states, moves)


def greedy_completion(C: np.ndarray, Z: np.ndarray) -> int:
    """The test word that finishes a tree on words the hider never picks (zero weight): the fewest
    sum over answers of n_a^2 on Z (GBR's uniform score), a word of Z on ties, then the lowest index."""
    if len(Z) == 1:
        return int(Z[0])
    best, best_key = -1, None
    in_Z = np.zeros(C.shape[0], dtype=bool)
    in_Z[Z] = True
    for g in range(C.shape[0]):
        rest = Z[Z != g]
        counts = np.bincount(C[g, rest], minlength=1)
        if not in_Z[g] and counts.max() == len(Z):
            continue
        key = (int((counts.astype(np.int64) ** 2).sum()), not in_Z[g], g)
        if best_key is None or key < best_key:
            best, best_key = g, key
    return best


def exact_best_response(C: np.ndarray, L: int, h: np.ndarray, upper: float = np.inf) -> ExactResult:
    """The guesser's exact best response to hider h (optimal decision tree, expected guesses)."""
    return ExactSolver(C, L).solve(h, upper)
