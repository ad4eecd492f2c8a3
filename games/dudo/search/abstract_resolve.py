"""Depth-limited continual re-solving made cheap enough for 5v5: an action abstraction inside the
lookahead and a small leaf (docs/dudo-search-serving.md).

The same re-solve as ``continual`` (DeepStack's continual re-solving; Brown, Sandholm & Amos 2018's
several continuation strategies at the leaves; Burch, Johanson & Bowling's gadget), with three changes
that decide its cost:

* **action abstraction** (the lookahead only, the real game is unchanged): at the requester's nodes the
  subgame keeps Dudo and ``A`` claims: the next ``near`` claims after the last one and the claims the
  blueprint plays most at the node's window (mean over rolls, chance-weighted); at the opponent's nodes
  every claim at the subgame's first level (depth <= 1: every real reply has a target for the next
  re-solve) and the same ``A`` claims deeper.  Restricting one's own strategy keeps the gadget's
  guarantee; the opponent is restricted only below the first reply;
* **a cheaper leaf**: the continuation value matrices are float32 or int8 (``int8_continuations``) and read
  in their stored order (one contiguous pass per leaf and continuation, sums in float32), and each CFR+ pass
  computes the updating seat's values only (the other seat's leaf product is not needed for its regrets),
  half the leaf work of ``continual``; the leaves of a pass are independent, so they may run on several
  threads (``threads``);
* the **round-root re-solve** (the same for every request) is an argument: a server computes it once.

Layout: nodes in breadth-first order; node i's children ``cfirst[i] .. cfirst[i] + nch[i] - 1`` claim
``last[child]`` (increasing); node i's block of a per-(node, slot, roll) array starts at ``off[i]``:
interior nodes ``(nch + 1) * n_mover`` entries (slot 0 Dudo, slot j + 1 child j), leaves ``C * n_opp``
(the opponent's continuation choice).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from games.dudo.search.continual import Continuations, ContinualResolver, forward_reaches
from games.dudo.search.endgame import GADGETS, OPP, REQ, _gadget_update, _root_reach
from games.dudo.abstraction.infoset import history_window
from games.dudo.solvers.tree_cfr import regret_match


# --------------------------------------------------------------------------------------------
# the abstraction

def top_claims(strat: np.ndarray, g, count: int) -> np.ndarray:
    """``top[s, w, :count]``: the claim strengths the blueprint ``strat`` plays most at window ``w`` of
    side ``s`` of group ``g`` (chance-weighted mean over rolls, Dudo excluded; -1 pads), strongest
    weight first."""
    K = g.K
    top = np.full((g.nsides, g.NW, count), -1, dtype=np.int64)
    for s in range(g.nsides):
        n = int(g.ns[s])
        pr = g.probs[s, :n]
        for w in range(g.NW):
            L = int(g.last[w])
            na = K - L
            base = int(g.rbase[s] + g.act_off[w] * n)
            rows = strat[base:base + na * n].reshape(na, n)
            mean = rows @ pr
            order = [j for j in np.argsort(-mean[1:], kind="stable") + 1 if mean[j] > 0][:count]
            top[s, w, :len(order)] = [L + j for j in order]
    return top


def abstract_layout(L0: int, w0: int, d: int, K: int, p0: int, ns, C: int, act_off, child, side,
                    top, A: int, near: int, full_opp_depth: int = 1, full_root: bool = False):
    """(last, depth, cfirst, nch, mover, leaf, off, win) of the abstracted depth-``d`` subgame after a
    history whose last claim is ``L0`` (window ``w0``), ``p0`` moving at its root.  ``full_root``: the
    root keeps every claim (the round-root re-solve, computed once)."""
    last, depth, mover, win = [L0], [0], [p0], [w0]
    cfirst, nch = [], []
    i = 0
    while i < len(last):
        L, k, p, w = last[i], depth[i], mover[i], win[i]
        kids: list[int] = []
        if k < d and L < K - 1:
            if (p == OPP and k <= full_opp_depth) or (k == 0 and full_root):
                kids = list(range(L + 1, K))
            else:
                s = int(side[p]) if top.shape[0] > 1 else 0     # a == b: one shared strategy
                cand = set(range(L + 1, min(K, L + 1 + near)))
                for c in top[s, w]:
                    if len(cand) >= A:
                        break
                    if c > L:
                        cand.add(int(c))
                c = L + 1 + near
                while len(cand) < A and c < K:     # the blueprint plays fewer than A claims: the next ones
                    cand.add(c)
                    c += 1
                kids = sorted(cand)
        cfirst.append(len(last))
        nch.append(len(kids))
        for c in kids:
            last.append(c)
            depth.append(k + 1)
            mover.append(1 - p)
            win.append(int(child[act_off[w] + (c - L)]))
        i += 1
    last = np.array(last, dtype=np.int64)
    depth = np.array(depth, dtype=np.int64)
    mover = np.array(mover, dtype=np.int64)
    win = np.array(win, dtype=np.int64)
    cfirst = np.array(cfirst, dtype=np.int64)
    nch = np.array(nch, dtype=np.int64)
    leaf = (depth == d) & (last < K - 1)
    size = np.where(leaf, C * ns[OPP], (nch + 1) * ns[mover])
    off = np.zeros(last.size + 1, dtype=np.int64)
    np.cumsum(size, out=off[1:])
    return last, depth, cfirst, nch, mover, leaf, off, win


# --------------------------------------------------------------------------------------------
# kernels

# The rows are slices so that their index is the loop's own (never negative): indexing the flat matrix at
# ``base + x`` makes numba wrap negative indices, and the loop then gathers instead of streaming (3-4x slower).
# Sums over a row run in float32 (``f32``: scratch of max(nR, nO)), twice the lanes of float64; a row has at
# most 252 terms, so the sums keep about 6 digits (the leaves' values are float32 or multiples of 1/127).

@njit(cache=True, nogil=True, fastmath=True)
def _leaf_req(V, base, req_moves, wO, nR, nO, out, f32):
    """out[x] += sum_y wO[y] * (requester's value at the leaf, rolls x, y) for one continuation."""
    if req_moves:                      # the requester's matrix: [y * nR + x]
        acc = f32[:nR]
        acc[:] = 0.0
        for y in range(nO):
            w = np.float32(wO[y])
            if w != 0.0:
                row = V[base + y * nR:base + (y + 1) * nR]
                for x in range(nR):
                    acc[x] += w * row[x]
        for x in range(nR):
            out[x] += acc[x]
    else:                              # the opponent's matrix: [x * nO + y], the requester's value negated
        w = f32[:nO]
        for y in range(nO):
            w[y] = wO[y]
        for x in range(nR):
            row = V[base + x * nO:base + (x + 1) * nO]
            s = np.float32(0.0)
            for y in range(nO):
                s += w[y] * row[y]
            out[x] -= s


@njit(cache=True, nogil=True, fastmath=True)
def _leaf_opp(V, base, req_moves, rR, nR, nO, out, f32):
    """out[y] = the opponent's counterfactual value at the leaf under one continuation (requester reach rR)."""
    if req_moves:
        r = f32[:nR]
        for x in range(nR):
            r[x] = rR[x]
        for y in range(nO):
            row = V[base + y * nR:base + (y + 1) * nR]
            s = np.float32(0.0)
            for x in range(nR):
                s += r[x] * row[x]
            out[y] = -s
    else:
        acc = f32[:nO]
        acc[:] = 0.0
        for x in range(nR):
            w = np.float32(rR[x])
            if w != 0.0:
                row = V[base + x * nO:base + (x + 1) * nO]
                for y in range(nO):
                    acc[y] += w * row[y]
        for y in range(nO):
            out[y] = acc[y]


@njit(cache=True, nogil=True)
def _strategies(reg, sig, last, nch, mover, leaf, off, ns, C):
    for i in range(last.size):
        if leaf[i]:
            regret_match(reg, sig, off[i], C, ns[OPP], 0)
        else:
            regret_match(reg, sig, off[i], nch[i] + 1, ns[mover[i]], 1 if last[i] < 0 else 0)


@njit(cache=True, nogil=True)
def _dudo_mover(p, L, rq, np_, nq, rc, claim_r, U, D, cnt, gp):
    """gp[x]: the value to mover p (roll x) of challenging claim L against the other's reach rq."""
    r = claim_r[L] - 1
    q = 1 - p
    for tt in range(D + 1):
        cnt[tt] = 0.0
    for y in range(nq):
        cnt[rc[q, y, r]] += rq[y]
    for x in range(np_):
        cx = rc[p, x, r]
        acc = 0.0
        for tt in range(D + 1 - cx):
            if cnt[tt] != 0.0:
                acc += cnt[tt] * U[p, L, cx + tt]
        gp[x] = acc


@njit(cache=True, nogil=True)
def _dudo_other(p, L, rp, sig, lo, np_, nq, rc, claim_r, U, D, cnt, vq):
    """vq[y] += the other's value (roll y) when mover p (reach rp) challenges claim L with probability
    ``sig[lo + x]``."""
    r = claim_r[L] - 1
    q = 1 - p
    for tt in range(D + 1):
        cnt[tt] = 0.0
    for x in range(np_):
        cnt[rc[p, x, r]] += rp[x] * sig[lo + x]
    for y in range(nq):
        cy = rc[q, y, r]
        acc = 0.0
        for tt in range(D + 1 - cy):
            if cnt[tt] != 0.0:
                acc -= cnt[tt] * U[p, L, tt + cy]
        vq[y] += acc


@njit(cache=True, nogil=True)
def _leaf_node(i, u, best, t, mover, off, lbase, reg, sig, rR, rO, v, ns, V, cidx, vscale, g, tmp, f32):
    """Seat ``u``'s values at leaf ``i`` (the continuations ``V[cidx[c]]``' values, and the opponent's choice
    among them: its regrets with ``t > 0``, the best with ``best``)."""
    nR = ns[REQ]
    nO = ns[OPP]
    C = cidx.size
    lo = off[i]
    vi = v[i]
    for x in range(ns[u]):
        vi[x] = -1e300 if best else 0.0
    rm = mover[i] == REQ
    if u == REQ:
        for c in range(C):
            for y in range(nO):
                tmp[y] = rO[i, y] * sig[lo + c * nO + y] * vscale
            _leaf_req(V[cidx[c]], lbase[i], rm, tmp, nR, nO, vi, f32)
    else:
        for c in range(C):
            _leaf_opp(V[cidx[c]], lbase[i], rm, rR[i], nR, nO, g[c], f32)
            for y in range(nO):
                g[c, y] *= vscale
                if best:
                    if g[c, y] > vi[y]:
                        vi[y] = g[c, y]
                else:
                    vi[y] += sig[lo + c * nO + y] * g[c, y]
        if t > 0:
            for c in range(C):
                for y in range(nO):
                    idx = lo + c * nO + y
                    r = reg[idx] + g[c, y] - vi[y]
                    reg[idx] = r if r > 0 else 0.0


@njit(cache=True, nogil=True)
def _leaves(u, best, t, leaves, mover, off, lbase, reg, sig, rR, rO, v, ns, V, cidx, vscale):
    """``_leaf_node`` at each of ``leaves``, in order."""
    m = max(ns[REQ], ns[OPP])
    g = np.zeros((cidx.size, m))
    tmp = np.zeros(m)
    f32 = np.zeros(m, dtype=np.float32)
    for k in range(leaves.size):
        _leaf_node(leaves[k], u, best, t, mover, off, lbase, reg, sig, rR, rO, v, ns, V, cidx, vscale, g, tmp, f32)


@njit(cache=True, parallel=True)
def _leaves_threads(u, best, t, leaves, mover, off, lbase, reg, sig, rR, rO, v, ns, V, cidx, vscale, nchunks):
    """``_leaves`` with the leaves split into ``nchunks`` ranges run at once (numba threads): the same bits,
    as each leaf writes only its own values and regrets."""
    per = (leaves.size + nchunks - 1) // nchunks
    for c in prange(nchunks):
        _leaves(u, best, t, leaves[c * per:min(leaves.size, (c + 1) * per)], mover, off, lbase, reg, sig, rR, rO,
                v, ns, V, cidx, vscale)


@njit(cache=True, nogil=True)
def _pass(u, best, t, last, cfirst, nch, mover, leaf, leaves, off, lbase, reg, ssum, sig, rR, rO, v, ns, rc,
          claim_r, U, V, cidx, vscale, K, D, cnt, g, nchunks):
    """One pass for seat ``u``: forward reaches, then u's counterfactual values ``v`` bottom-up (the leaves'
    first, on ``nchunks`` threads when above 1); with ``t > 0`` u's regrets (and the requester's average)
    are updated; with ``best`` (u the opponent) it best-responds (max per roll at its nodes and over
    continuations at the leaves)."""
    N = last.size
    nu = ns[u]
    forward_reaches(cfirst, nch, mover, off, sig, rR, rO, ns)
    if nchunks > 1:
        _leaves_threads(u, best, t, leaves, mover, off, lbase, reg, sig, rR, rO, v, ns, V, cidx, vscale, nchunks)
    else:
        _leaves(u, best, t, leaves, mover, off, lbase, reg, sig, rR, rO, v, ns, V, cidx, vscale)
    for i in range(N - 1, -1, -1):
        if leaf[i]:
            continue
        lo = off[i]
        vi = v[i]
        for x in range(nu):
            vi[x] = -1e300 if (best and mover[i] == OPP) else 0.0
        p = mover[i]
        n = ns[p]
        L = last[i]
        own = p == u
        bst = best and p == OPP
        if L >= 0:
            if own:
                _dudo_mover(p, L, rO[i] if p == REQ else rR[i], n, ns[1 - p], rc, claim_r, U, D, cnt, g[0])
            else:
                _dudo_other(p, L, rR[i] if p == REQ else rO[i], sig, lo, n, nu, rc, claim_r, U, D, cnt, vi)
        if own:
            for x in range(n):
                if L >= 0:
                    if bst:
                        vi[x] = g[0, x]
                    else:
                        vi[x] += sig[lo + x] * g[0, x]
            for j in range(nch[i]):
                cv = v[cfirst[i] + j]
                for x in range(n):
                    if bst:
                        if cv[x] > vi[x]:
                            vi[x] = cv[x]
                    else:
                        vi[x] += sig[lo + (j + 1) * n + x] * cv[x]
            if t > 0:
                for j in range(0 if L >= 0 else 1, nch[i] + 1):
                    for x in range(n):
                        gv = g[0, x] if j == 0 else v[cfirst[i] + j - 1, x]
                        idx = lo + j * n + x
                        r = reg[idx] + gv - vi[x]
                        reg[idx] = r if r > 0 else 0.0
                        if p == REQ:
                            ssum[idx] += t * rR[i, x] * sig[idx]
        else:
            for j in range(nch[i]):
                cv = v[cfirst[i] + j]
                for x in range(nu):
                    vi[x] += cv[x]


@njit(cache=True, nogil=True)
def cfr_plus_abstract(iters, gadget, use_gadget, last, cfirst, nch, mover, leaf, off, lbase, reg, ssum, sig,
                      rR, rO, vR, vO, ns, rc, claim_r, U, V, cidx, vscale, K, D, reach_req, prior_opp, target, greg,
                      qroot, nchunks):
    """``iters`` alternating CFR+ iterations (linear averaging) on the abstracted subgame, with the
    re-solving gadget at the root when ``use_gadget``; then the requester's average strategy in ``sig``
    and the opponent's best-response values ``vO`` at every node (the next re-solves' targets).  The
    leaves' values are computed on ``nchunks`` threads when above 1 (the same bits)."""
    nR = ns[REQ]
    nO = ns[OPP]
    C = cidx.size
    m = max(nR, nO)
    cnt = np.zeros(D + 2)
    g = np.zeros((max(C, 2), m))
    leaves = np.nonzero(leaf)[0]
    for t in range(1, iters + 1):
        if use_gadget:
            _root_reach(gadget, greg, prior_opp, prior_opp, qroot)
        else:
            for y in range(nO):
                qroot[y] = prior_opp[y]
        for u in range(2):
            _strategies(reg, sig, last, nch, mover, leaf, off, ns, C)
            for x in range(nR):
                rR[0, x] = reach_req[x]
            for y in range(nO):
                rO[0, y] = qroot[y]
            _pass(u, False, float(t), last, cfirst, nch, mover, leaf, leaves, off, lbase, reg, ssum, sig, rR, rO,
                  vR if u == REQ else vO, ns, rc, claim_r, U, V, cidx, vscale, K, D, cnt, g, nchunks)
        if use_gadget:
            _gadget_update(gadget, greg, vO[0, :nO].copy(), target, qroot)
    _strategies(reg, sig, last, nch, mover, leaf, off, ns, C)
    for i in range(last.size):
        if leaf[i] or mover[i] != REQ:
            continue
        a0 = 1 if last[i] < 0 else 0
        na = nch[i] + 1
        lo = off[i]
        for x in range(nR):
            tot = 0.0
            for j in range(a0, na):
                tot += ssum[lo + j * nR + x]
            if tot > 0:
                for j in range(a0, na):
                    sig[lo + j * nR + x] = ssum[lo + j * nR + x] / tot
    for x in range(nR):
        rR[0, x] = reach_req[x]
    for y in range(nO):
        rO[0, y] = 1.0
    _pass(OPP, True, 0.0, last, cfirst, nch, mover, leaf, leaves, off, lbase, reg, ssum, sig, rR, rO, vO, ns, rc,
          claim_r, U, V, cidx, vscale, K, D, cnt, g, nchunks)


# --------------------------------------------------------------------------------------------
# the policy

@dataclass
class AbstractResolve:
    """One abstracted re-solve: the requester's root strategy ([slot, roll], slot j = claim L0 + j; claims
    outside the abstraction 0), the opponent's best-response values at every node, and the tree."""
    root_strategy: np.ndarray | None
    vO: np.ndarray
    cfirst: np.ndarray
    nch: np.ndarray
    last: np.ndarray
    L0: int
    seconds: float
    nodes: int
    leaves: int

    def target(self, claims) -> np.ndarray:
        """The opponent's values at the node ``claims`` below the root (KeyError: outside the subgame)."""
        i = 0
        for c in claims:
            lo, n = int(self.cfirst[i]), int(self.nch[i])
            j = int(np.searchsorted(self.last[lo:lo + n], c))
            if j >= n or self.last[lo + j] != c:
                raise KeyError(f"claim {c} is not in the re-solved subgame")
            i = lo + j
        return self.vO[i]


def float32_continuations(cont: Continuations) -> Continuations:
    """The same continuations with float32 value matrices (half the bytes a leaf reads)."""
    return Continuations(np.ascontiguousarray(cont.Vc, dtype=np.float32), cont.voff, cont.side, cont.act_off,
                         cont.child, cont.memory, cont.K, cont.names)


INT8_STEP = 1.0 / 127


def int8_continuations(cont: Continuations) -> Continuations:
    """The same continuations with int8 value matrices, multiples of ``INT8_STEP`` (a quarter of float64's
    bytes, half of float32's; the values lie in [-1, 1], so each is off by at most 1/254)."""
    V = cont.Vc
    q = np.empty(V.shape, dtype=np.int8)
    flat, out = V.reshape(V.shape[0], -1), q.reshape(V.shape[0], -1)
    step = 1 << 22
    for c in range(flat.shape[0]):
        for lo in range(0, flat.shape[1], step):
            x = np.asarray(flat[c, lo:lo + step], dtype=np.float32)
            if x.size and np.abs(x).max() > 1.0 + 1e-6:
                raise ValueError("int8 leaves need values in [-1, 1]")
            out[c, lo:lo + step] = np.rint(x * 127)
    return Continuations(q, cont.voff, cont.side, cont.act_off, cont.child, cont.memory, cont.K, cont.names)


class AbstractResolver(ContinualResolver):
    """``ContinualResolver`` with the abstracted lookahead and float32 or int8 leaves: ``A`` claims at the
    requester's nodes (``near`` of them the next claims, the rest the blueprint's most played, ``top``
    from ``top_claims``), every claim at the opponent's first reply.  ``root_full``: the round-root
    re-solve keeps every claim (it is computed once).  ``cache``: keep re-solves by (history, range)
    (deterministic, so a hit returns the same bits).  ``threads``: the leaves' values on that many numba
    threads (the same bits)."""

    def __init__(self, own, opp, opened, W, cont, top, depth=2, iterations=50, gadget="maxmargin", A=4,
                 near=1, root_full=True, cache=False, threads=1):
        super().__init__(own, opp, opened, W, cont, depth=depth, iterations=iterations, gadget=gadget)
        if threads < 1:
            raise ValueError(f"threads={threads}: need at least 1")
        self.threads = threads
        if depth % 2:
            raise ValueError("depth must be even (leaves at the requester's decisions)")
        if A < 1 or near < 0 or near > A:
            raise ValueError(f"abstraction A={A}, near={near}: need 1 <= A and 0 <= near <= A")
        self.top, self.A, self.near, self.root_full = top, A, near, root_full
        if cont.Vc.dtype in (np.float32, np.int8):
            self.Vf = cont.Vc
        else:
            self.Vf = np.ascontiguousarray(cont.Vc, dtype=np.float32)
        self.vscale = INT8_STEP if self.Vf.dtype == np.int8 else 1.0
        self.cidx = (np.arange(self.Vf.shape[0], dtype=np.int64) if cont.cidx is None
                     else np.asarray(cont.cidx, dtype=np.int64))
        self.cache = {} if cache else None

    def resolve(self, history, reach_req, target=None, opp_range=None) -> AbstractResolve:
        """Re-solve after ``history`` with the requester's range ``reach_req`` and the opponent's targets
        (gadget), or without a gadget the opponent entering with ``opp_range`` (default its prior)."""
        history = tuple(int(c) for c in history)
        key = None
        if self.cache is not None:
            key = (history, np.asarray(reach_req).tobytes(),
                   None if target is None else np.asarray(target).tobytes(),
                   None if opp_range is None else np.asarray(opp_range).tobytes())
            if key in self.cache:
                return self.cache[key]
        t0 = time.perf_counter()
        K, ns, cont = self.K, self.ns, self.cont
        k0 = len(history)
        L0 = history[-1] if history else -1
        C = self.cidx.size
        p0 = self.mover(k0)
        w0 = history_window(history, K, cont.memory)
        last, depth, cfirst, nch, mover, leaf, off, win = abstract_layout(
            L0, w0, self.depth, K, p0, ns, C, cont.act_off, cont.child, cont.side, self.top, self.A, self.near,
            1, self.root_full and k0 == 0)
        N = last.size
        nR, nO = int(ns[REQ]), int(ns[OPP])
        s_of = cont.side[mover]
        lbase = (cont.voff[s_of] + win * (nR * nO)).astype(np.int64)
        rows = int(off[-1])
        reg = np.zeros(rows)
        ssum = np.zeros(rows)
        sig = np.zeros(rows)
        rR = np.zeros((N, nR))
        rO = np.zeros((N, nO))
        vR = np.zeros_like(rR)
        vO = np.zeros_like(rO)
        use_gadget = target is not None
        tgt = np.zeros(nO) if target is None else np.asarray(target, dtype=np.float64)
        greg = np.zeros((2, nO))
        qroot = np.zeros(nO)
        cfr_plus_abstract(self.iterations, GADGETS[self.gadget], use_gadget, last, cfirst, nch, mover, leaf, off,
                          lbase, reg, ssum, sig, rR, rO, vR, vO, ns, self.rc, self.claim_r, self.U, self.Vf,
                          self.cidx, self.vscale, K, self.D, np.asarray(reach_req, dtype=np.float64),
                          self.prior_opp if opp_range is None else np.asarray(opp_range, dtype=np.float64), tgt, greg,
                          qroot, self.threads if int(leaf.sum()) >= 4 * self.threads else 1)
        root = None
        if p0 == REQ:
            root = np.zeros((K - L0, nR))
            blk = sig[off[0]:off[1]].reshape(nch[0] + 1, nR)
            root[0] = blk[0]
            for j in range(nch[0]):
                root[last[cfirst[0] + j] - L0] = blk[j + 1]
        dt = time.perf_counter() - t0
        self.stats["resolves"] += 1
        self.stats["seconds"] += dt
        self.stats["times"].append(dt)
        res = AbstractResolve(root, vO, cfirst, nch, last, L0, dt, N, int(leaf.sum()))
        if key is not None:
            self.cache[key] = res
        return res


def blueprint_ranges(g, strat: np.ndarray, own: int, opp: int, opened: bool, history):
    """(requester's, opponent's) ranges per roll after ``history``: chance's prior times the blueprint's
    (``strat`` on group ``g``) probability of each claim its player made.  A claim the blueprint never
    makes with any roll of its player leaves that range as it was (the range would vanish)."""
    K = g.K
    sides = [(0 if g.nsides == 1 else g.dice.index(d)) for d in (own, opp)]
    rng = [g.probs[s, :int(g.ns[s])].copy() for s in sides]
    L = -1
    for k, c in enumerate(history):
        p = REQ if (k % 2 == 0) == opened else OPP
        s, n = sides[p], int(g.ns[sides[p]])
        w = history_window(tuple(history[:k]), K, g.m)
        row = strat[int(g.rbase[s] + g.act_off[w] * n + (c - L) * n):][:n]
        new = rng[p] * row
        if new.sum() > 0:
            rng[p] = new
        L = c
    return rng[REQ], rng[OPP]


class BlueprintRangeResolver(AbstractResolver):
    """One re-solve per request, no chain: the requester's and the opponent's ranges are the blueprint's
    along the history (``blueprint_ranges``), the opponent enters with its range (no gadget: unsafe
    re-solving, Brown & Sandholm 2017's term), so a request costs one re-solve and depends on its history
    only.  ``g``, ``strat``: the blueprint's group and strategy (the stored rows)."""

    def __init__(self, own, opp, opened, W, cont, top, g, strat, **kw):
        super().__init__(own, opp, opened, W, cont, top, **kw)
        self.g, self.strat = g, strat

    def resolve(self, history, reach_req=None, target=None, opp_range=None) -> AbstractResolve:
        rr, ro = blueprint_ranges(self.g, self.strat, self.own, self.opp, self.opened, tuple(history))
        return super().resolve(history, rr, None, ro)


class BlueprintTargetResolver(BlueprintRangeResolver):
    """One safe re-solve per request, no chain: the requester's range is the blueprint's along the history,
    the opponent enters through the gadget with targets its best-response counterfactual values against
    the blueprint at this history, read from the "br" continuation matrix of the history's window (the
    blueprint's value below a history depends on its window only), as ``endgame`` does for the endgame."""

    def resolve(self, history, reach_req=None, target=None, opp_range=None) -> AbstractResolve:
        history = tuple(int(c) for c in history)
        rr, _ = blueprint_ranges(self.g, self.strat, self.own, self.opp, self.opened, history)
        if self.mover(len(history)) != REQ:     # the opponent opens: the round's root, chance's ranges
            return AbstractResolver.resolve(self, history, rr)
        cont = self.cont
        c = list(cont.names).index("br")
        w0 = history_window(history, self.K, cont.memory)
        nR, nO = int(self.ns[REQ]), int(self.ns[OPP])
        base = int(cont.voff[cont.side[REQ]] + w0 * (nR * nO))
        tgt = np.zeros(nO)
        _leaf_opp(self.Vf[self.cidx[c]], base, True, rr, nR, nO, tgt, np.zeros(max(nR, nO), dtype=np.float32))
        tgt *= self.vscale
        return AbstractResolver.resolve(self, history, rr, tgt if history else None)
