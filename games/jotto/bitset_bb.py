"""The guesser's exact best response as a numba branch and bound over bitsets (docs/jotto-exact.md): the same recurrence
and bounds as games.jotto.exact (V(S) = W(S) + min_g sum_a V(S_a); the counting / split-width bound), on
plain arrays:

- the hider's weighted words are relabelled 0..n-1 heaviest first, so a consistent set S is a bitset of
  ceil(n / 64) uint64 words whose bit order is the weight order (the bound's rank order);
- every test word's answer classes on the weighted words are precomputed masks (S_a = S & mask[g, a]);
  test words that partition the weighted words alike are one candidate;
- the memo is an open-addressing hash table in arrays keyed by the bitset itself (exact keys, no
  collisions), holding V(S) (> 0), or a proven lower bound (< 0, negated), and the optimal move; when a
  probe sequence is full the entry at its head is replaced (the table is a cache: every entry is proven);
- at a state, test words splitting S alike (the same children, compared exactly after a signature
  match) are one move; the moves are scored first by their children's counting bounds (one bit scan of S
  per test word), then lazily refined with the memo's values of their children when they come up for
  expansion (best-first selection); when every move is cut, refinement continues until the least bound
  is a refined one, so the node's stored lower bound is the same as with eager refinement;
- the recursion keeps its scratch arrays per depth (no allocation per state).

Values are exact up to floating rounding of the weights (relative 1e-12, as games.jotto.exact).
"""
from __future__ import annotations


import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from games.borrow import borrow
from games.jotto.exact import ExactResult, branching, depth_table, greedy_completion, three_word_cost
from games.jotto.kernels import CACHE, kernel_compiled

_EPS = 1e-12
_MIX = np.uint64(0x9E3779B97F4A7C15)
PROBES = 16  # probe sequence length of the memo table
MAX_DEPTH = 96  # the deepest state the search keeps scratch for (deeper: out of budget)


@intrinsic
def _popcount(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _ctz(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@njit(cache=CACHE, nogil=True, inline="always")
def _count(S):
    c = 0
    for i in range(S.shape[0]):
        c += _popcount(S[i])
    return c


@njit(cache=CACHE, nogil=True, inline="always")
def _weight_and_bound(S, w, drow):
    """(W(S), counting bound of S with one depth-table row): the r-th set bit (heaviest first) at depth
    drow[r]."""
    W = 0.0
    lb = 0.0
    r = 0
    for j in range(S.shape[0]):
        x = S[j]
        while x != 0:
            b = _ctz(x)
            x &= x - np.uint64(1)
            i = j * 64 + np.int64(b)
            W += w[i]
            lb += w[i] * drow[r]
            r += 1
    return W, lb


@njit(cache=CACHE, nogil=True, inline="always")
def _bound_row(dr, m, r, n):
    """games.jotto.exact._bound_row: the depth-table row for n words of split width <= m, reach <= r."""
    mm = min(m, n - 1)
    rr = min(r, mm + 1, n)
    if rr < 1:
        rr = 1
    cap = dr.shape[1] - 1
    return dr[rr - mm, cap if mm >= cap else mm]


@njit(cache=CACHE, nogil=True, inline="always")
def _hash(S):
    h = np.uint64(0x243F6A8885A308D3)
    for j in range(S.shape[0]):
        h = (h ^ S[j]) * _MIX
        h ^= h >> np.uint64(29)
    return h


@njit(cache=CACHE, nogil=True, inline="always")
def _probe(S, keys, shift):
    """(slot, found): the slot holding S (found), else the first empty slot on its probe path, else -1.
    keys[slot]: the set's nw words, its value's bits, its move + 1."""
    cap = keys.shape[0]
    h = np.int64(_hash(S) >> np.uint64(shift))
    nw = S.shape[0]
    for p in range(PROBES):
        s = (h + p) & (cap - 1)
        empty = True
        same = True
        for j in range(nw):
            if keys[s, j] != 0:
                empty = False
            if keys[s, j] != S[j]:
                same = False
        if same:
            return s, True
        if empty:
            return s, False
    return -1, False


@njit(cache=CACHE, nogil=True, inline="always")
def _find(S, keys, shift):
    """The slot holding S, or -1."""
    s, found = _probe(S, keys, shift)
    return s if found else -1


@njit(cache=CACHE, nogil=True, inline="always")
def _lookup(S, keys, vals, shift):
    s = _find(S, keys, shift)
    return 0.0 if s < 0 else vals[s, S.shape[0]]


@njit(cache=CACHE, nogil=True)
def _store(S, v, g, keys, vals, moves, shift, stats):
    s, _ = _probe(S, keys, shift)
    if s < 0:          # the probe path is full: S replaces its first slot's set
        stats[3] += 1
        s = np.int64(_hash(S) >> np.uint64(shift)) & (keys.shape[0] - 1)
    nw = S.shape[0]
    for j in range(nw):
        keys[s, j] = S[j]
    vals[s, nw] = v
    keys[s, nw + 1] = np.uint64(g + 1)


@njit(cache=CACHE, nogil=True)
def _three(S, Cs, selfbit, w):
    """(V(S), candidate) for three weighted words in closed form (games.jotto.exact._three)."""
    idx = np.empty(3, dtype=np.int64)
    k = 0
    for j in range(S.shape[0]):
        x = S[j]
        while x != 0:
            idx[k] = j * 64 + np.int64(_ctz(x))
            x &= x - np.uint64(1)
            k += 1
    a, b, c = idx[0], idx[1], idx[2]
    W = w[a] + w[b] + w[c]
    best = np.inf
    best_g = -1
    for ci in range(Cs.shape[0]):
        v = three_word_cost(Cs[ci], selfbit[ci], a, b, c, w, W)
        if v < best:
            best = v
            best_g = ci
    return best, best_g


@njit(cache=CACHE, nogil=True, inline="always")
def _child_bound(c, n_c, n_row, w, dr, m, r, keys, vals, shift, refine):
    """A lower bound on V(c) for a child of n_c words: exact for 1-2 words, else the counting bound with
    the parent's split width and reach, raised to the memo's value or bound if refine."""
    if n_c == 1 or n_c == 2:
        W = 0.0
        first = -1.0
        last = 0.0
        for j in range(c.shape[0]):
            x = c[j]
            while x != 0:
                i = j * 64 + np.int64(_ctz(x))
                x &= x - np.uint64(1)
                W += w[i]
                if first < 0:
                    first = w[i]
                last = w[i]
        return W + (last if n_c == 2 else 0.0)
    W, b = _weight_and_bound(c, w, _bound_row(dr, m, r, n_row))
    if refine:
        kv = _lookup(c, keys, vals, shift)
        if kv > 0.0 or -kv > b:
            b = abs(kv)
    return b


@njit(cache=CACHE, nogil=True, inline="always")
def _same_split(S, masks, cnt, ci, ce):
    """Whether test words ci and ce split S into the same children (as sets, whatever their answers)."""
    K = masks.shape[1]
    nw = S.shape[0]
    for a in range(K):
        if cnt[ci, a] == 0:
            continue
        found = False
        for a2 in range(K):
            if cnt[ce, a2] != cnt[ci, a]:
                continue
            eq = True
            for j in range(nw):
                if (S[j] & masks[ci, a, j]) != (S[j] & masks[ce, a2, j]):
                    eq = False
                    break
            if eq:
                found = True
                break
        if not found:
            return False
    return True


@njit(cache=CACHE, nogil=True)
def best_response_bb(S, depth, beta, mpar, rpar, masks, selfbit, Cs, w, dr, keys, vals, moves, shift,
                     ws_cnt, ws_cb, ws_bnd, ws_state, ws_sig, ws_child, ws_hts, ws_htc, ws_order, ws_own, stats,
                     width=0):
    """V(S) if it is below beta (then stored as exact with its move); otherwise a lower bound >= beta
    (stored negated). S: bitset of weighted words; mpar, rpar: bounds on S's split width and reach.
    ws_*: scratch per depth. stats: [states expanded, out of budget, budget, memo replacements,
    candidates refined, candidates expanded]. width > 0: a heuristic, not exact: at most `width` moves a state
    are expanded (best bound first), so the value is a tree's, at least V(S)."""
    if depth == 0:  # the root borrows every array (games.borrow): the recursion, its views and inlined helpers
        # then count no references (a fifth of the search's time before)
        S, masks, selfbit, Cs, w, dr = borrow(S), borrow(masks), borrow(selfbit), borrow(Cs), borrow(w), borrow(dr)
        keys, vals, moves, stats = borrow(keys), borrow(vals), borrow(moves), borrow(stats)
        ws_cnt, ws_cb, ws_bnd, ws_state = borrow(ws_cnt), borrow(ws_cb), borrow(ws_bnd), borrow(ws_state)
        ws_sig, ws_child, ws_hts, ws_htc = borrow(ws_sig), borrow(ws_child), borrow(ws_hts), borrow(ws_htc)
        ws_order, ws_own = borrow(ws_order), borrow(ws_own)
    nw = S.shape[0]
    n = _count(S)
    if n == 0:
        return 0.0
    if n <= 2:
        W = 0.0
        last = 0.0
        for j in range(nw):
            x = S[j]
            while x != 0:
                i = j * 64 + np.int64(_ctz(x))
                x &= x - np.uint64(1)
                W += w[i]
                last = w[i]
        return W + (last if n == 2 else 0.0)
    if n == 3:
        return _three(S, Cs, selfbit, w)[0]
    if stats[1] != 0:
        return np.inf
    known = _lookup(S, keys, vals, shift)
    if known > 0.0:
        return known
    W, lb0 = _weight_and_bound(S, w, _bound_row(dr, mpar, rpar, n))
    if -known > lb0:
        lb0 = -known
    if lb0 >= beta:
        return lb0
    stats[0] += 1
    if stats[0] > stats[2] or depth >= ws_cnt.shape[0]:  # out of budget, or deeper than the scratch
        stats[1] = 1
        return np.inf
    G = masks.shape[0]
    K = masks.shape[1]

    cnt = ws_cnt[depth]
    bnd = ws_bnd[depth]
    state = ws_state[depth]
    sig = ws_sig[depth]
    child = ws_child[depth]
    cb = ws_cb[depth]
    ht_stamp = ws_hts[depth]
    ht_cand = ws_htc[depth]
    HT = ht_stamp.shape[0]
    hshift = 64
    while (1 << (64 - hshift)) < HT:
        hshift -= 1
    stamp = stats[0]
    # pass 1: class sizes, split width and reach, the useful candidates, and each one's partition signature
    m = 0
    r = 0
    for ci in range(G):
        sb = selfbit[ci]
        member = 0
        if sb >= 0 and (S[sb >> 6] >> np.uint64(sb & 63)) & np.uint64(1):
            member = 1
        big = 0
        sg = np.uint64(0)
        for a in range(K):
            c = 0
            hh = np.uint64(0x243F6A8885A308D3)
            for j in range(nw):
                x = S[j] & masks[ci, a, j]
                c += _popcount(x)
                hh = (hh ^ x) * _MIX
                hh ^= hh >> np.uint64(29)
            cnt[ci, a] = c
            if c > big:
                big = c
            if c > 0:
                sg += hh
        if member == 0 and big == n:
            state[ci] = 0
            continue
        if n - member - big > m:
            m = n - member - big
        if n - big > r:
            r = n - big
        # a test word splitting S as an earlier one does (the same children) is the same move: skipped
        state[ci] = 1
        sig[ci] = sg
        p = np.int64(sg >> np.uint64(hshift))
        while True:
            p &= HT - 1
            if ht_stamp[p] != stamp:
                ht_stamp[p] = stamp
                ht_cand[p] = ci
                break
            if sig[ht_cand[p]] == sg and _same_split(S, masks, cnt, ci, ht_cand[p]):
                state[ci] = 0
                break
            p += 1
    m = min(m, mpar)
    r = min(r, rpar)
    drow = _bound_row(dr, m, r, n)
    _, lbm = _weight_and_bound(S, w, drow)
    if lbm > lb0:
        lb0 = lbm
        if lb0 >= beta:
            _store(S, -lb0, -1, keys, vals, moves, shift, stats)
            return lb0
    # pass 2: coarse bounds, every child's counting bound with S's row (exact for 1-2 words), in one scan
    # of S per test word
    rk = ws_order[depth]
    for ci in range(G):
        if state[ci] == 0:
            continue
        row = Cs[ci]
        sb = selfbit[ci]
        for a in range(K):
            rk[a] = 0
            cb[ci, a] = 0.0
        for j in range(nw):
            x = S[j]
            while x != 0:
                i = j * 64 + np.int64(_ctz(x))
                x &= x - np.uint64(1)
                if i == sb:
                    continue
                a = row[i]
                cb[ci, a] += w[i] * drow[rk[a]]
                rk[a] += 1
        b = W
        for a in range(K):
            b += cb[ci, a]
        bnd[ci] = b
    tmp = child[0]
    best = np.inf
    best_g = -1
    node_lb = np.inf
    expanded = 0
    while True:
        ci = -1
        for cj in range(G):
            if state[cj] != 0 and (ci < 0 or bnd[cj] < bnd[ci]):
                ci = cj
        if ci < 0:
            break
        if width > 0 and expanded >= width:
            node_lb = min(node_lb, bnd[ci])
            break
        lim = min(best, beta)
        if bnd[ci] >= lim * (1.0 - _EPS) and state[ci] == 2:
            # every remaining test word is cut, and the least bound among them is a refined one
            node_lb = min(node_lb, bnd[ci])
            break
        if state[ci] == 1:  # refine with the memo's values of its children, then select again
            b = bnd[ci]
            for a in range(K):
                if cnt[ci, a] <= 2:
                    continue
                for j in range(nw):
                    tmp[j] = S[j] & masks[ci, a, j]
                kv = _lookup(tmp, keys, vals, shift)
                if kv > 0.0 or -kv > cb[ci, a]:
                    b += abs(kv) - cb[ci, a]
            bnd[ci] = b
            state[ci] = 2
            stats[4] += 1
            continue
        state[ci] = 0
        stats[5] += 1
        expanded += 1
        # children, largest first, with their current bounds
        nk = 0
        order = ws_order[depth]
        own = ws_own[depth]
        taken = 0
        for _ in range(K):
            amax = -1
            for a in range(K):
                if cnt[ci, a] > 0 and not (taken >> a) & 1 and (amax < 0 or cnt[ci, a] > cnt[ci, amax]):
                    amax = a
            if amax < 0:
                break
            taken |= 1 << amax
            order[nk] = amax
            nk += 1
        cost = W
        for k in range(nk):
            a = order[k]
            for j in range(nw):
                child[k + 1, j] = S[j] & masks[ci, a, j]
            own[k] = _child_bound(child[k + 1], cnt[ci, a], cnt[ci, a], w, dr, m, r, keys, vals, shift, cnt[ci, a] > 2)
            cost += own[k]
        ok = cost < lim * (1.0 - _EPS)
        for k in range(nk):
            if not ok:
                break
            rest = cost - own[k]
            v = best_response_bb(child[k + 1], depth + 1, lim - rest, m, r, masks, selfbit, Cs, w, dr, keys,
                                 vals, moves, shift, ws_cnt, ws_cb, ws_bnd, ws_state, ws_sig, ws_child, ws_hts, ws_htc, ws_order,
                                 ws_own, stats, width)
            cost = rest + v
            if cost >= lim * (1.0 - _EPS):
                ok = False
        if ok:
            best = cost
            best_g = ci
        else:
            node_lb = min(node_lb, cost)
    if stats[1] != 0:
        return np.inf
    if best < beta:
        _store(S, best, best_g, keys, vals, moves, shift, stats)
        return best
    lb = max(lb0, node_lb, beta)
    _store(S, -lb, -1, keys, vals, moves, shift, stats)
    return lb


@njit(cache=CACHE, nogil=True)
def _move_of(S, keys, moves, shift):
    s = _find(S, keys, shift)
    return -1 if s < 0 else np.int64(keys[s, S.shape[0] + 1]) - 1


class BitsetExactSolver:
    """Exact best response of the guesser (the optimal decision tree) against weighted secrets: the interface
    of games.jotto.exact.ExactSolver, on the bitset kernel best_response_bb."""

    def __init__(self, C: np.ndarray, L: int, table_bits: int = 22, table_mb: int = 256, width: int = 0):
        self.C = np.ascontiguousarray(C, dtype=np.uint8)
        if self.C.ndim != 2 or self.C.shape[0] != self.C.shape[1]:
            raise ValueError(f"C must be a square answer matrix, got shape {self.C.shape}")
        self.L = L
        self.D = self.C.shape[0]
        self.k = branching(self.C, L)
        self.table_bits = table_bits
        self.table_mb = table_mb
        self.width = width  # > 0: at most this many moves a state (a heuristic tree, not the optimal one)
        self._keys = None

    # -- setup per hider ---------------------------------------------------------------------------------
    def _prepare(self, h):
        h = np.asarray(h, dtype=np.float64)
        if h.shape != (self.D,) or not np.all(np.isfinite(h)) or (h < 0).any() or h.sum() <= 0:
            raise ValueError(f"hider weights must be {self.D} finite nonnegative numbers with a positive sum")
        w_all = h / h.sum()
        sup = np.flatnonzero(w_all > 0)
        sup = sup[np.argsort(-w_all[sup], kind="stable")].astype(np.int32)  # heaviest first, then index
        n = len(sup)
        nw = (n + 63) // 64
        pos = np.full(self.D, -1, dtype=np.int64)
        pos[sup] = np.arange(n)
        K = self.L + 1
        Cs_all = self.C[:, sup]  # [D, n]
        masks_all = np.zeros((self.D, K, nw), dtype=np.uint64)
        for a in range(K):
            hit = (Cs_all == a)
            hit[pos >= 0, pos[pos >= 0]] = False  # a test word's own word is found, in no class
            for j in range(nw):
                blk = hit[:, j * 64:(j + 1) * 64]
                bits = (np.uint64(1) << np.arange(blk.shape[1], dtype=np.uint64))
                masks_all[:, a, j] = (blk.astype(np.uint64) * bits).sum(axis=1, dtype=np.uint64)
        # test words partitioning the weighted words alike are one candidate (the first of them)
        seen, keep = {}, []
        for g in range(self.D):
            key = (int(pos[g]), tuple(sorted(masks_all[g, a].tobytes() for a in range(K))))
            if key not in seen:
                seen[key] = g
                keep.append(g)
        keep = np.array(keep, dtype=np.int32)
        self._w_all = w_all
        self.w = np.ascontiguousarray(w_all[sup])
        self.sup = sup
        self.n, self.nw = n, nw
        self.gword = keep
        self.masks = np.ascontiguousarray(masks_all[keep])
        self.selfbit = pos[keep].astype(np.int64)
        self.Cs = np.ascontiguousarray(Cs_all[keep])
        self.dr = depth_table(max(n, 1), self.k)
        G = len(keep)
        HT = 1 << int(2 * G - 1).bit_length()  # the per-state table of splits: at most half full
        dmax = min(n + 2, MAX_DEPTH)  # a deeper line counts as out of budget
        self.ws = (np.zeros((dmax, G, K), dtype=np.int64), np.zeros((dmax, G, K)), np.zeros((dmax, G)), np.zeros((dmax, G), dtype=np.int8),
                   np.zeros((dmax, G), dtype=np.uint64), np.zeros((dmax, K + 1, nw), dtype=np.uint64),
                   np.full((dmax, HT), -1, dtype=np.int64), np.zeros((dmax, HT), dtype=np.int64),
                   np.zeros((dmax, K), dtype=np.int64), np.zeros((dmax, K)))
        root = np.zeros(nw, dtype=np.uint64)
        for i in range(n):
            root[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
        return root

    def _table(self):
        bits = self.table_bits
        while bits > 12 and (8 << bits) * (self.nw + 2) > self.table_mb << 20:
            bits -= 1  # many weighted words (4-5 letters): fewer entries, within table_mb
        cap = 1 << bits
        if self._keys is not None and self._keys.shape[0] != cap:
            self._keys = None
        if self._keys is None or self._keys.shape[1] != self.nw + 2:
            # one row per entry (one cache line for up to 6 key words): the set's words, its value (the
            # float64 view), its move + 1
            self._keys = np.zeros((cap, self.nw + 2), dtype=np.uint64)
            self._vals = self._keys.view(np.float64)
            self._moves = self._keys
        else:
            self._keys.fill(0)
        return 64 - bits

    def _search(self, S, beta, max_nodes, stats=None):
        if stats is None:
            stats = np.array([0, 0, max_nodes, 0, 0, 0], dtype=np.int64)
        else:
            stats[1] = 0
            stats[2] = stats[0] + max_nodes
        v = best_response_bb(S, 0, beta, self.n, self.n, self.masks, self.selfbit, self.Cs, self.w, self.dr,
                             self._keys, self._vals, self._moves, self._shift, *self.ws, stats, self.width)
        return (None if stats[1] else float(v)), stats

    def _run(self, h, beta, max_nodes):
        root = self._prepare(h)
        self._shift = self._table()
        return root, self._search(root, beta, max_nodes)

    # -- the interface of ExactSolver ---------------------------------------------------------------------
    def solve(self, h: np.ndarray, upper: float = np.inf, max_nodes: int = 2**62) -> ExactResult | None:
        """The optimal tree against secret weights h (any nonnegative scale); None if the search expands
        more than max_nodes states. `upper`: a known upper bound on its normalised value, to prune from the
        start."""
        beta = upper * (1 + 1e-9) + 1e-12 if np.isfinite(upper) else np.inf
        root, (v, stats) = self._run(h, beta, max_nodes)
        if v is not None and not v < beta:
            v, stats = self._search(root, np.inf, max_nodes, stats)
        self.stats = stats
        if v is None:
            return None
        full = np.zeros(self.D, dtype=np.int32)
        states: list[np.ndarray] = []
        moves: list[int] = []
        first = self._walk_full(np.arange(self.D, dtype=np.int32), np.arange(self.n), 1, full, states, moves)
        guesses = np.where(self._w_all > 0, full, 0).astype(np.int32)
        return ExactResult(float(v), guesses, first, int(stats[0]), full, states, moves)

    def proves_at_least(self, h: np.ndarray, beta: float, max_nodes: int) -> bool | float | None:
        """True if the optimal tree against h needs at least beta expected guesses, its exact value if that
        is below beta, None if the search ran out of max_nodes."""
        _, (v, _) = self._run(h, beta, max_nodes)
        if v is None:
            return None
        return True if v >= beta else v

    def counting_bound(self, h: np.ndarray) -> float:
        """The counting bound on the optimal tree's value against h (normalised): certified, no search."""
        root = self._prepare(h)
        return float(_weight_and_bound(root, self.w, self.dr[1, -1])[1])

    def lower_bound(self, h: np.ndarray, lo: float | None, hi: float, max_nodes: int, steps: int = 12,
                    progress=None) -> tuple[float, float | None]:
        """A certified lower bound by bisection on proofs V >= beta within max_nodes each (as
        ExactSolver.lower_bound): (bound, exact value if one probe found it)."""
        best_lb = self.counting_bound(h) if lo is None else lo
        for step in range(steps):
            mid = 0.5 * (best_lb + hi)
            _, (v, _) = self._run(h, mid, max_nodes)
            if v is None:
                hi = mid
            elif v >= mid:
                best_lb = max(mid, v * (1 - 4 * _EPS))
            else:
                return v, v
            if progress is not None:
                progress(step + 1, best_lb, hi)
        return best_lb, None

    # -- the tree ----------------------------------------------------------------------------------------
    def _bits(self, P):
        S = np.zeros(self.nw, dtype=np.uint64)
        for i in P:
            S[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
        return S

    def _move(self, P) -> int:
        """The optimal test word (a dictionary index) at weighted words P (support indices, ascending)."""
        if len(P) <= 2:
            return int(self.sup[P[0]])
        S = self._bits(P)
        if len(P) == 3:
            return int(self.gword[_three(S, self.Cs, self.selfbit, self.w)[1]])
        c = _move_of(S, self._keys, self._moves, self._shift)
        if c < 0:  # replaced in the memo table: solve this state again (its value is below infinity)
            self._search(S, np.inf, 2**62, self.stats)
            c = _move_of(S, self._keys, self._moves, self._shift)
            assert c >= 0, "a state of the optimal tree was not solved exactly"
        return int(self.gword[c])

    def _walk_full(self, F, P, depth, guesses, states, moves) -> int:
        """Replays the optimal tree on every word (F ascending; P its weighted words as support indices,
        ascending = heaviest first): the search's moves, greedy_completion once no weighted word is left."""
        g = self._move(P) if len(P) else greedy_completion(self.C, F)
        states.append(F)
        moves.append(g)
        if (F == g).any():
            guesses[g] = depth
        row = self.C[g]
        restF = F[F != g]
        restP = P[self.sup[P] != g]
        for a in range(self.L + 1):
            part = restF[row[restF] == a]
            if len(part):
                self._walk_full(part, restP[row[self.sup[restP]] == a], depth + 1, guesses, states, moves)
        return g


def search_compiled() -> bool:
    """Whether the search kernel (``best_response_bb``) is compiled in this process or numba's cache holds it: its
    first search then loads it, where with the cache cold it compiles it first (seconds: most of the 3-letter Jotto
    store's value bracket on a fresh clone)."""
    return kernel_compiled(best_response_bb)
