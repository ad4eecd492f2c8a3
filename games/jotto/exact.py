"""The guesser's exact best response to a hider strategy: the decision tree with the fewest expected
guesses against a weighted secret, by depth-first branch and bound (as the exact Wordle solvers do).

V(S) = W(S) + min_g sum_a V(S_a): at the consistent-word set S (total weight W), test word g splits the
words other than g by their jots with g; g itself is found at this guess. Only test words that split S
or belong to S are worth playing. Admissible lower bound (``counting_bound``): a tree whose nodes have at
most k children (k = the number of jot answers two different words can give) finds at most one word per
node, so at most k^(d-1) words at depth d; giving the heaviest words the shallowest depths bounds V(S).
The search orders test words by W + sum_a bound(S_a), prunes against the best tree so far and the
caller's budget, and caches exact values and failed budgets (lower bounds) keyed by the set S (two
64-bit Zobrist hashes). Words of zero weight cost nothing and are left out of S; every dictionary word
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
    """counting_bound of S (S sorted by weight, heaviest first)."""
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


@njit(cache=CACHE, nogil=True)
def _solve(S, beta, C, w, cand, L, k1, k2, depth_of_rank, exact, lower, move, stats):
    """V(S) if it is below beta (then cached as exact); otherwise a lower bound >= beta.
    S: words of positive weight, heaviest first (children keep that order: the split is stable)."""
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
    if stats[1] != 0:  # out of budget: the caller discards everything from here on
        return np.inf
    key = _key(S, k1, k2)
    if key in exact:
        return exact[key]
    lb0 = _counting_bound(S, w, depth_of_rank)
    if key in lower:
        lb0 = max(lb0, lower[key])
    if lb0 >= beta:
        return lb0
    stats[0] += 1
    if stats[0] > stats[2]:
        stats[1] = 1
        return np.inf
    K = L + 1
    nc = cand.shape[0]
    bound = np.empty(nc)
    sig = np.zeros(nc, dtype=np.uint64)
    valid = np.zeros(nc, dtype=np.bool_)
    cnt = np.zeros(K, dtype=np.int64)
    lbc = np.zeros(K)
    h1 = np.zeros(K, dtype=np.uint64)
    h2 = np.zeros(K, dtype=np.uint64)
    in_S = np.zeros(C.shape[0], dtype=np.bool_)
    for i in range(n):
        in_S[S[i]] = True
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
            lbc[a] += w[s] * depth_of_rank[cnt[a]]
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
                ck = (h1[a], h2[a])
                if ck in exact:
                    v = exact[ck]
                elif ck in lower and lower[ck] > v:
                    v = lower[ck]
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
    nseen = 0
    child = np.empty(n, dtype=np.int32)
    for oi in range(order.shape[0]):
        ci = order[oi]
        lim = min(best, beta)
        if bound[ci] >= lim * (1.0 - _EPS):
            node_lb = min(node_lb, bound[ci])
            break
        dup = False
        for j in range(nseen):
            if seen[j] == sig[ci]:
                dup = True
                break
        if dup:
            continue
        seen[nseen] = sig[ci]
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
        kids = np.empty(K, dtype=np.int64)
        own = np.zeros(K)
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
        offs = np.zeros(K + 1, dtype=np.int64)
        for j in range(nk):
            m = 0
            for i in range(n):
                s = S[i]
                if s != g and row[s] == kids[j]:
                    child[start + m] = s
                    m += 1
            offs[j + 1] = start + m
            cs = child[start:start + m]
            b = _counting_bound(cs, w, depth_of_rank)
            if m > 2:
                ck = _key(cs, k1, k2)
                if ck in exact:
                    b = exact[ck]
                elif ck in lower and lower[ck] > b:
                    b = lower[ck]
            own[j] = b
            cost += b
            start += m
        ok = cost < lim * (1.0 - _EPS)
        for j in range(nk):
            if not ok:
                break
            rest = cost - own[j]
            v = _solve(child[offs[j]:offs[j + 1]].copy(), lim - rest, C, w, cand, L, k1, k2, depth_of_rank,
                       exact, lower, move, stats)
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
        exact[key] = best
        move[key] = best_g
        return best
    # every test word failed against beta: V(S) >= the least of their lower bounds (each >= beta)
    lb = max(lb0, node_lb, beta)
    lower[key] = lb
    return lb


@njit(cache=CACHE)
def _cached_move(S, k1, k2, move):
    return move.get(_key(S, k1, k2), -1)


def depth_of_rank(D: int, k: int) -> np.ndarray:
    """The shallowest depth the r-th word (0-based) can have in a tree with at most k children a node."""
    out = np.empty(D + 1, dtype=np.float64)
    r, d, width = 0, 1, 1
    while r <= D:
        for _ in range(width):
            if r > D:
                break
            out[r] = d
            r += 1
        d += 1
        width *= k
    return out


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
        self.depth_of_rank = depth_of_rank(D, branching(self.C, L))

    def _weights(self, h):
        h = np.asarray(h, dtype=np.float64)
        w = h / h.sum()
        S = np.flatnonzero(w > 0)
        return w, S[np.argsort(-w[S], kind="stable")].astype(np.int32)

    def _run(self, w, S, beta, max_nodes):
        exact = Dict.empty(key_type=_KEY, value_type=types.float64)
        lower = Dict.empty(key_type=_KEY, value_type=types.float64)
        move = Dict.empty(key_type=_KEY, value_type=types.int64)
        stats = np.array([0, 0, max_nodes], dtype=np.int64)
        v = _solve(S, beta, self.C, w, self.cand, self.L, self.k1, self.k2, self.depth_of_rank,
                   exact, lower, move, stats)
        return (None if stats[1] else v), exact, move, int(stats[0])

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
        return ExactResult(float(v), guesses, first, nodes)

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
        return float(_counting_bound(S, w, self.depth_of_rank))

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


def exact_best_response(C: np.ndarray, L: int, h: np.ndarray, upper: float = np.inf) -> ExactResult:
    """The guesser's exact best response to hider h (optimal decision tree, expected guesses)."""
    return ExactSolver(C, L).solve(h, upper)
