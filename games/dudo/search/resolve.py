"""The re-solve kernel of Dudo's search: one depth-limited subgame solved by CFR+ or DCFR with the re-solving gadget,
written once for every searched policy (``continual``'s full-width lookahead with float64 leaves,
``abstract_resolve``'s abstracted lookahead with float32 or int8 leaves, ``measure.search_walk``'s exact walk).

The method is DeepStack's continual re-solving (Moravcik et al., Science 2017) with the several continuation
strategies at the leaves of Brown, Sandholm & Amos ("Depth-Limited Solving for Imperfect-Information Games",
NeurIPS 2018) and the gadget of Burch, Johanson & Bowling (AAAI 2014); ``continual`` says how a policy chains
the re-solves.  Vector CFR over rolls with alternating updates, its regrets by CFR+ (Tammelin 2014: floors at 0,
linear averaging) or DCFR (Brown & Sandholm, AAAI 2019: discounted regrets, quadratic averaging): each pass
computes the updating seat's counterfactual values only, bottom-up, the leaves first.

Subgame layout: nodes in breadth-first order (node 0 the root); node i's children ``cfirst[i] ..
cfirst[i] + nch[i] - 1`` claim ``last[child]`` (increasing); node i's block of a per-(node, slot, roll) array
starts at ``off[i]``: interior nodes ``(nch + 1) * n_mover`` entries (slot 0 Dudo, slot j + 1 child j, entry
``slot * n + roll``), leaves ``C * n_opp`` (the opponent's continuation choice, entry ``c * n + y``).  The
full-width layout (``subgame_layout``: every claim at every node) has child j claim ``last + 1 + j``, so its
slot j is claim ``last + j``.  Leaf i's value matrices start at ``lbase[i]`` (``leaf_bases``: the window's
block of the mover's side, ``y * nR + x`` for the requester's, ``x * nO + y`` for the opponent's, values to
the mover).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.dudo.search.endgame import OPP, REQ, _gadget_update, _root_reach
from games.dudo.solvers.tree_cfr import regret_match

INT8_STEP = 1.0 / 127       # int8 leaves hold multiples of this (values in [-1, 1])


# --------------------------------------------------------------------------------------------
# layout

@njit(cache=True, nogil=True)
def subgame_layout(L0, d, K, N, p0, ns, C):
    """(last, depth, cfirst, nch, mover, leaf, off) of the depth-``d`` subgame (Dudo ends it earlier)
    after a history whose last claim is ``L0`` (``N`` nodes), ``p0`` moving at its root."""
    last = np.empty(N, dtype=np.int64)
    depth = np.empty(N, dtype=np.int64)
    cfirst = np.zeros(N, dtype=np.int64)
    nch = np.zeros(N, dtype=np.int64)
    mover = np.empty(N, dtype=np.int64)
    leaf = np.zeros(N, dtype=np.bool_)
    off = np.zeros(N + 1, dtype=np.int64)
    last[0] = L0
    depth[0] = 0
    n = 1
    for i in range(N):
        mover[i] = p0 if depth[i] % 2 == 0 else 1 - p0
        if depth[i] < d:
            cfirst[i] = n
            nch[i] = K - 1 - last[i]
            for c in range(last[i] + 1, K):
                last[n] = c
                depth[n] = depth[i] + 1
                n += 1
        elif last[i] < K - 1:
            leaf[i] = True
        if leaf[i]:
            off[i + 1] = off[i] + C * ns[OPP]
        else:
            off[i + 1] = off[i] + (K - last[i]) * ns[mover[i]]
    return last, depth, cfirst, nch, mover, leaf, off


@njit(cache=True, nogil=True)
def leaf_windows(w0, cfirst, nch, act_off, child):
    """The blueprint window of every subgame node, following the window DAG (``infoset.window_tables``)
    from the root's window ``w0`` (the leaves' are read)."""
    N = nch.size
    win = np.full(N, -1, dtype=np.int64)
    win[0] = w0
    for i in range(N):
        for j in range(1, nch[i] + 1):
            win[cfirst[i] + j - 1] = child[act_off[win[i]] + j]
    return win


@njit(cache=True, nogil=True)
def forward_reaches(cfirst, nch, mover, off, sig, rR, rO, ns):
    """Both seats' reaches of every node from the root's (rows 0 of rR, rO), top-down: the mover's reach
    times its strategy for the child's claim (slot j + 1 of the node's rows; slot 0 is Dudo)."""
    nR = ns[REQ]
    nO = ns[OPP]
    for i in range(nch.size):
        if nch[i] == 0:
            continue
        p = mover[i]
        n = ns[p]
        lo = off[i]
        for j in range(1, nch[i] + 1):
            ch = cfirst[i] + j - 1
            if p == REQ:
                for x in range(nR):
                    rR[ch, x] = rR[i, x] * sig[lo + j * n + x]
                for y in range(nO):
                    rO[ch, y] = rO[i, y]
            else:
                for y in range(nO):
                    rO[ch, y] = rO[i, y] * sig[lo + j * n + y]
                for x in range(nR):
                    rR[ch, x] = rR[i, x]


@njit(cache=True, nogil=True)
def leaf_bases(voff, side, mover, win, nR, nO):
    """Where each node's value matrix starts: the block of the mover's side, at its window (``win``)."""
    out = np.empty(mover.size, dtype=np.int64)
    for i in range(mover.size):
        out[i] = voff[side[mover[i]]] + win[i] * (nR * nO)
    return out


# --------------------------------------------------------------------------------------------
# kernels

CFR_PLUS, DCFR = 0, 1
REGRET_SCHEMES = {"cfr+": CFR_PLUS, "dcfr": DCFR}   # ``cfr_resolve``'s regret updates, by name


def regret_scheme(name: str) -> int:
    """``cfr_resolve``'s ``scheme`` of a regret scheme's name (ValueError naming the known ones)."""
    if name not in REGRET_SCHEMES:
        raise ValueError(f"regrets {name!r}: one of {', '.join(REGRET_SCHEMES)}")
    return REGRET_SCHEMES[name]


@njit(cache=True, nogil=True, inline="always")
def _regret_step(reg, idx, gain, base, scheme, dpos):
    """Add the instantaneous regret ``gain - base`` to ``reg[idx]``: CFR+ floors the sum at 0 (Tammelin 2014);
    DCFR(3/2, 0, 2) first scales a positive regret by ``dpos`` = t^1.5 / (t^1.5 + 1) and a negative one by 1/2
    (Brown & Sandholm, "Solving Imperfect-Information Games via Discounted Regret Minimization", AAAI 2019,
    section 4)."""
    if scheme == DCFR:
        r = reg[idx]
        reg[idx] = r * (dpos if r > 0 else 0.5) + gain - base
    else:
        r = reg[idx] + gain - base
        reg[idx] = r if r > 0 else 0.0


# The rows are slices so that their index is the loop's own (never negative): indexing the flat matrix at
# ``base + x`` makes numba wrap negative indices, and the loop then gathers instead of streaming (3-4x slower).
# Sums over a row run in the scratch's type (``acc``: max(nR, nO) + 1 entries, the last a cell that casts a
# weight to that type): float32 for float32 and int8 leaves, twice the lanes of float64 (a row has at most 252
# terms, so the sums keep about 6 digits; int8 values are multiples of 1/127), float64 for float64 leaves.

@njit(cache=True, nogil=True, fastmath=True)
def _leaf_req(V, base, req_moves, wO, nR, nO, out, scratch):
    """out[x] += sum_y wO[y] * (requester's value at the leaf, rolls x, y) for one continuation."""
    cell = scratch.size - 1
    if req_moves:                      # the requester's matrix: [y * nR + x]
        acc = scratch[:nR]
        acc[:] = 0.0
        for y in range(nO):
            scratch[cell] = wO[y]
            w = scratch[cell]
            if w != 0.0:
                row = V[base + y * nR:base + (y + 1) * nR]
                for x in range(nR):
                    acc[x] += w * row[x]
        for x in range(nR):
            out[x] += acc[x]
    else:                              # the opponent's matrix: [x * nO + y], the requester's value negated
        w = scratch[:nO]
        for y in range(nO):
            w[y] = wO[y]
        scratch[cell] = 0.0
        zero = scratch[cell]
        for x in range(nR):
            row = V[base + x * nO:base + (x + 1) * nO]
            s = zero
            for y in range(nO):
                s += w[y] * row[y]
            out[x] -= s


@njit(cache=True, nogil=True, fastmath=True)
def _leaf_opp(V, base, req_moves, rR, nR, nO, out, scratch):
    """out[y] = the opponent's counterfactual value at the leaf under one continuation (requester reach rR)."""
    cell = scratch.size - 1
    if req_moves:
        r = scratch[:nR]
        for x in range(nR):
            r[x] = rR[x]
        scratch[cell] = 0.0
        zero = scratch[cell]
        for y in range(nO):
            row = V[base + y * nR:base + (y + 1) * nR]
            s = zero
            for x in range(nR):
                s += r[x] * row[x]
            out[y] = -s
    else:
        acc = scratch[:nO]
        acc[:] = 0.0
        for x in range(nR):
            scratch[cell] = rR[x]
            w = scratch[cell]
            if w != 0.0:
                row = V[base + x * nO:base + (x + 1) * nO]
                for y in range(nO):
                    acc[y] += w * row[y]
        for y in range(nO):
            out[y] = acc[y]


@njit(cache=True, nogil=True)
def _strategies(reg, sig, last, nch, mover, leaf, off, ns, C, seat=-1):
    """Regret matching at every node, or (``seat`` >= 0) at that seat's only (a leaf's continuations are the
    opponent's choice)."""
    for i in range(last.size):
        if leaf[i]:
            if seat != REQ:
                regret_match(reg, sig, off[i], C, ns[OPP], 0)
        elif seat < 0 or mover[i] == seat:
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
def _leaf_node(i, u, best, t, scheme, dpos, mover, off, lbase, reg, sig, rR, rO, v, ns, V, cidx, vscale, g, tmp,
               scratch):
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
            _leaf_req(V[cidx[c]], lbase[i], rm, tmp, nR, nO, vi, scratch)
    else:
        for c in range(C):
            _leaf_opp(V[cidx[c]], lbase[i], rm, rR[i], nR, nO, g[c], scratch)
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
                    _regret_step(reg, lo + c * nO + y, g[c, y], vi[y], scheme, dpos)


@njit(cache=True, nogil=True)
def _leaves(u, best, t, scheme, dpos, leaves, mover, off, lbase, reg, sig, rR, rO, v, ns, V, cidx, vscale,
            acc_type):
    """``_leaf_node`` at each of ``leaves``, in order; sums in ``acc_type``'s dtype."""
    m = max(ns[REQ], ns[OPP])
    g = np.zeros((cidx.size, m))
    tmp = np.zeros(m)
    scratch = np.zeros(m + 1, dtype=acc_type.dtype)
    for k in range(leaves.size):
        _leaf_node(leaves[k], u, best, t, scheme, dpos, mover, off, lbase, reg, sig, rR, rO, v, ns, V, cidx, vscale,
                   g, tmp, scratch)


@njit(cache=True, parallel=True)
def _leaves_threads(u, best, t, scheme, dpos, leaves, mover, off, lbase, reg, sig, rR, rO, v, ns, V, cidx, vscale,
                    acc_type, nchunks):
    """``_leaves`` with the leaves split into ``nchunks`` ranges run at once (numba threads): the same bits,
    as each leaf writes only its own values and regrets."""
    per = (leaves.size + nchunks - 1) // nchunks
    for c in prange(nchunks):
        _leaves(u, best, t, scheme, dpos, leaves[c * per:min(leaves.size, (c + 1) * per)], mover, off, lbase, reg,
                sig, rR, rO, v, ns, V, cidx, vscale, acc_type)


@njit(cache=True, nogil=True)
def _pass(u, best, t, scheme, dpos, wavg, last, cfirst, nch, mover, leaf, leaves, off, lbase, reg, ssum, sig, rR,
          rO, v, ns, rc, claim_r, U, V, cidx, vscale, acc_type, K, D, cnt, g, nchunks):
    """One pass for seat ``u`` (regrets by ``scheme``, ``dpos`` its discount; the average weighted ``wavg``):
    forward reaches, then u's counterfactual values ``v`` bottom-up (the leaves'
    first, on ``nchunks`` threads when above 1); with ``t > 0`` u's regrets (and the requester's average)
    are updated; with ``best`` (u the opponent) it best-responds (max per roll at its nodes and over
    continuations at the leaves)."""
    N = last.size
    nu = ns[u]
    forward_reaches(cfirst, nch, mover, off, sig, rR, rO, ns)
    if nchunks > 1:
        _leaves_threads(u, best, t, scheme, dpos, leaves, mover, off, lbase, reg, sig, rR, rO, v, ns, V, cidx,
                        vscale, acc_type, nchunks)
    else:
        _leaves(u, best, t, scheme, dpos, leaves, mover, off, lbase, reg, sig, rR, rO, v, ns, V, cidx, vscale,
                acc_type)
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
                        _regret_step(reg, idx, gv, vi[x], scheme, dpos)
                        if p == REQ:
                            ssum[idx] += wavg * rR[i, x] * sig[idx]
        else:
            for j in range(nch[i]):
                cv = v[cfirst[i] + j]
                for x in range(nu):
                    vi[x] += cv[x]


@njit(cache=True, nogil=True)
def cfr_resolve(iters, gadget, use_gadget, last, cfirst, nch, mover, leaf, off, lbase, reg, ssum, sig,
                rR, rO, vR, vO, ns, rc, claim_r, U, V, cidx, vscale, acc_type, K, D, reach_req, prior_opp, target,
                greg, qroot, nchunks, scheme=CFR_PLUS):
    """``iters`` alternating iterations of vector CFR on a depth-limited subgame, their regrets by ``scheme``
    (``_regret_step``: CFR+ with linear averaging, Tammelin 2014; DCFR(3/2, 0, 2) with quadratic averaging)
    (the layout in the module docstring), with the re-solving gadget at the root when ``use_gadget`` (else
    the opponent enters with ``prior_opp``); then the requester's average strategy in ``sig`` (its
    regret-matched current strategy where it never reached a node) and the opponent's best-response values
    ``vO`` at every node (the next re-solves' targets; it picks its best continuation at each leaf).  Leaf
    ``i`` reads the continuations ``V[cidx[c]]`` from ``lbase[i]`` times ``vscale``, summing in
    ``acc_type``'s dtype; the leaves' values are computed on ``nchunks`` threads when above 1 (the same
    bits)."""
    nR = ns[REQ]
    nO = ns[OPP]
    C = cidx.size
    m = max(nR, nO)
    cnt = np.zeros(D + 2)
    g = np.zeros((max(C, 2), m))
    leaves = np.nonzero(leaf)[0]
    _strategies(reg, sig, last, nch, mover, leaf, off, ns, C)
    for t in range(1, iters + 1):
        dpos = t ** 1.5 / (t ** 1.5 + 1.0)
        wavg = float(t) if scheme == CFR_PLUS else float(t) * t
        if use_gadget:
            _root_reach(gadget, greg, prior_opp, prior_opp, qroot)
        else:
            for y in range(nO):
                qroot[y] = prior_opp[y]
        for u in range(2):
            if t > 1 or u > 0:  # the seat the last pass updated: the other's regrets are as they were
                _strategies(reg, sig, last, nch, mover, leaf, off, ns, C, 1 - u)
            for x in range(nR):
                rR[0, x] = reach_req[x]
            for y in range(nO):
                rO[0, y] = qroot[y]
            vu = vR if u == REQ else vO
            _pass(u, np.bool_(False), float(t), scheme, dpos, wavg, last, cfirst, nch, mover, leaf, leaves, off,
                  lbase, reg, ssum, sig, rR, rO, vu, ns, rc, claim_r, U, V, cidx, vscale, acc_type, K, D, cnt, g,
                  nchunks)
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
    # typed values, not literals (numba compiles a callee again for each literal argument): one compiled pass
    _pass(np.int64(OPP), np.bool_(True), 0.0, scheme, 1.0, 0.0, last, cfirst, nch, mover, leaf, leaves, off, lbase,
          reg, ssum, sig, rR, rO, vO, ns, rc, claim_r, U, V, cidx, vscale, acc_type, K, D, cnt, g, nchunks)


# --------------------------------------------------------------------------------------------
# the result

@dataclass
class Resolve:
    """One re-solve: the requester's root strategy ([slot, roll], slot j = claim L0 + j; claims outside the
    subgame 0; None when the opponent moves at the root), the opponent's best-response values at every node
    (the next re-solves' targets), and the tree."""
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
