"""Full-width FSICFR with CFR+ regret updates on the abstract public DAG of a Dudo group.

Each iteration is Algorithm 2 (FSICFR) done for every pair of rolls at once: a forward pass
sums, per abstract public node, the reach of every roll of each player over all paths, and a
backward pass computes the node's value for every roll pair (a matrix) from its children and
updates the regrets of every (node, roll) information set.  Regrets follow CFR+ (floored at
zero), optionally predictive CFR+ (default) or discounted CFR, and the average strategy is
weighted by ``t ** avg_power``.
Strategies of all information sets stay fixed during an iteration (simultaneous updates).

Array layout (one group, see ``dag.Group``): regrets / strategies are flat float64 arrays;
side ``s``'s entry for window ``w``, action slot ``j`` and roll ``x`` sits at
``rbase[s] + (act_off[w] + j) * ns[s] + x``.

Two backward kernels: ``fsicfr_backward`` (reference: one value matrix per node, each child's
matrix re-read once per parent edge, about 14 per child at m = 3, so memory-bound) and
``blocked_backward`` (default): windows with identical child lists (with memory m the children
depend only on the last m - 1 claims) are processed as one block, so each child's matrix is read
once per block; node values live in a slot pool released after their last reader.

Memory at 5v5, m = 3 (one side, 36051 windows, 252 rolls, 141M (node, action, roll) rows):
regrets, strategy sums, current strategy and the predictive-CFR+ term are float64, 1.05 GB each
(4.2 GB; no ``pred`` outside pcfr+); the value pool is float32, 16439 of 36051 matrices of
252 x 252 at once (3.9 GB instead of 8.5); measured peak 8.5 GB.  Strategy sums stay float64: in
float32 a sum weighted by t**2 over many iterations loses the late iterations' low digits, and
the stored average would depend on that rounding.

Same bits on every machine: no kernel here uses ``fastmath`` (which lets LLVM reassociate sums, fuse
multiply-adds and pick the vector width of the host CPU) or BLAS (whose kernel and summation order
OpenBLAS picks per CPU); sums over rolls run in one fixed order (``games.fixedmath.dot_fixed``, ``expected_value``).
With only IEEE-754 basic operations in a fixed order, the strategies, values and best responses (and
so the stores) are the same on any x86-64 CPU, with any executor.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.borrow import borrow, keep
from games.fixedmath import dot_fixed


@njit(cache=True, inline="always")
def update_regret(reg, pred, ssum, strat, idx, inst, mode, pos_disc, neg_disc, avg_reach):
    """One information set's regret update with instantaneous regret ``inst``: CFR+ (mode 0, floored
    at zero), discounted CFR (1) or predictive CFR+ (2, keeps ``inst``), or none (3, only keeps ``inst``:
    ``cfrbr`` sums it into coarser information sets); then the average strategy sum, weighted by
    ``avg_reach`` (averaging weight x own reach)."""
    if mode == 3:
        pred[idx] = inst
        ssum[idx] += avg_reach * strat[idx]
        return
    r = reg[idx] + inst
    if mode == 1:
        reg[idx] = r * pos_disc if r > 0 else r * neg_disc
    else:
        reg[idx] = r if r > 0 else 0.0
        if mode == 2:
            pred[idx] = inst
    ssum[idx] += avg_reach * strat[idx]


@njit(cache=True, nogil=True)
def expected_value(p_row, M, p_col):
    """p_row @ M @ p_col summed in a fixed order (row by row), for the same bits on every machine."""
    v = 0.0
    for y in range(M.shape[0]):
        r = 0.0
        for x in range(M.shape[1]):
            r += np.float64(M[y, x]) * p_col[x]
        v += p_row[y] * r
    return v


@njit(cache=True)
def regret_matching(reg, strat, ns, rbase, NW, act_off, last, pred, use_pred):
    """Equation 5 for every information set (uniform where no regret is positive).

    With ``use_pred`` the regrets are ``reg + pred`` (predictive CFR+)."""
    for s in range(ns.size):
        n = ns[s]
        for w in range(NW):
            a0 = 1 if last[w] < 0 else 0
            na = act_off[w + 1] - act_off[w]
            base = rbase[s] + act_off[w] * n
            for x in range(n):
                tot = 0.0
                for j in range(a0, na):
                    r = reg[base + j * n + x]
                    if use_pred:
                        r += pred[base + j * n + x]
                    if r > 0:
                        tot += r
                if tot > 0:
                    for j in range(a0, na):
                        r = reg[base + j * n + x]
                        if use_pred:
                            r += pred[base + j * n + x]
                        strat[base + j * n + x] = r / tot if r > 0 else 0.0
                else:
                    u = 1.0 / (na - a0)
                    for j in range(a0, na):
                        strat[base + j * n + x] = u
                if a0 == 1:
                    strat[base + x] = 0.0


@njit(cache=True)
def normalize_average(ssum, strat, ns, rbase, NW, act_off, last):
    """Average strategy: the strategy sums normalised (uniform where never reached)."""
    for s in range(ns.size):
        n = ns[s]
        for w in range(NW):
            a0 = 1 if last[w] < 0 else 0
            na = act_off[w + 1] - act_off[w]
            base = rbase[s] + act_off[w] * n
            for x in range(n):
                tot = 0.0
                for j in range(a0, na):
                    tot += ssum[base + j * n + x]
                for j in range(a0, na):
                    strat[base + j * n + x] = (ssum[base + j * n + x] / tot if tot > 0
                                               else 1.0 / (na - a0))
                if a0 == 1:
                    strat[base + x] = 0.0


@njit(cache=True, nogil=True)
def forward_reach(strat, mreach, oreach, ns, oth, probs, root_w, rbase, order, act_off, last,
                  child, NW):
    """Forward pass of Algorithm 2 for all rolls: per node, reach of each roll summed over paths.

    mreach[s, w, x]: mover's own reach (incl. chance of x); oreach[s, w, y]: opponent's.
    """
    mreach[:] = 0.0
    oreach[:] = 0.0
    nsd = ns.size
    for s in range(nsd):
        o = oth[s]
        for x in range(ns[s]):
            mreach[s, 0, x] = root_w[s] * probs[s, x]
        for y in range(ns[o]):
            oreach[s, 0, y] += root_w[s] * probs[o, y]
    for k in range(NW):
        w = order[k]
        na = act_off[w + 1] - act_off[w]
        for s in range(nsd):
            n = ns[s]
            o = oth[s]
            no = ns[o]
            tot = 0.0
            for x in range(n):
                tot += mreach[s, w, x]
            for y in range(no):
                tot += oreach[s, w, y]
            if tot == 0.0:
                continue
            base = rbase[s] + act_off[w] * n
            for j in range(1, na):
                c = child[act_off[w] + j]
                for y in range(no):
                    mreach[o, c, y] += oreach[s, w, y]
                for x in range(n):
                    oreach[o, c, x] += mreach[s, w, x] * strat[base + j * n + x]


@njit(cache=True)
def fsicfr_backward(strat, reg, ssum, V, mreach, oreach, ns, oth, rc, claim_r, terminal,
                    rbase, order, act_off, last, child, NW, reachable, update, avg_w, mode,
                    pos_disc, neg_disc, pred, seat, phase, voff):
    """Backward pass of Algorithm 2 for all roll pairs, with regret updates.

    V[voff[s] + w * ns[s] * ns[oth[s]] + y * ns[s] + x] is the value (+-1) to the mover (roll
    x) against roll y.  ``mode``:
    0 CFR+, 1 discounted CFR (positive/negative regrets scaled by pos_disc/neg_disc), 2
    predictive CFR+ (``pred`` keeps the last instantaneous regrets).  With ``update`` false it
    only evaluates ``strat``; with ``phase >= 0`` only nodes with ``seat[s, w] == phase`` are
    updated (alternating updates).
    """
    nsd = ns.size
    maxn = 0
    for s in range(nsd):
        maxn = max(maxn, ns[s])
    maxna = act_off[1] - act_off[0]
    B = np.zeros(maxn * maxn)
    G = np.zeros((maxna, maxn))
    gbar = np.zeros(maxn)
    for k in range(NW - 1, -1, -1):
        w = order[k]
        na = act_off[w + 1] - act_off[w]
        L = last[w]
        for s in range(nsd):
            if not reachable[s, w]:
                continue
            n = ns[s]
            o = oth[s]
            no = ns[o]
            base = rbase[s] + act_off[w] * n
            q = oreach[s, w]
            B[:n * no] = 0.0
            gbar[:n] = 0.0
            if L >= 0:
                # Dudo: terminal values
                r = claim_r[L] - 1
                for x in range(n):
                    cx = rc[s, x, r]
                    sg = strat[base + x]
                    acc = 0.0
                    for y in range(no):
                        u = terminal[s, L, cx + rc[o, y, r]]
                        acc += q[y] * u
                        B[x * no + y] += sg * u
                    G[0, x] = acc
                    gbar[x] += sg * acc
            for j in range(1, na):
                c = child[act_off[w] + j]
                vb = voff[o] + c * (no * n)
                for x in range(n):
                    sg = strat[base + j * n + x]
                    acc = 0.0
                    xo = x * no
                    if sg != 0.0:
                        for y in range(no):
                            vv = V[vb + xo + y]
                            acc -= q[y] * vv
                            B[xo + y] -= sg * vv
                    else:       # action not played by this roll: only its regret is needed
                        for y in range(no):
                            acc -= q[y] * V[vb + xo + y]
                    G[j, x] = acc
                    gbar[x] += sg * acc
            if update and (phase < 0 or seat[s, w] == phase):
                a0 = 1 if L < 0 else 0
                for j in range(a0, na):
                    for x in range(n):
                        idx = base + j * n + x
                        update_regret(reg, pred, ssum, strat, idx, G[j, x] - gbar[x], mode, pos_disc,
                                      neg_disc, avg_w * mreach[s, w, x])
            sb = voff[s] + w * (n * no)
            for x in range(n):
                for y in range(no):
                    V[sb + y * n + x] = B[x * no + y]


@njit(cache=True)
def _br_choices(bestj, q, V, rc, terminal, child, s, o, n, no, L, r, a0, na, vo, aw):
    """``br_backward``'s choice for every roll x of side s at one node: the first action of the best
    counterfactual value sum_y q[y] u(x, y), each sum over y in order (one accumulator per roll, as the
    reference loop).  Four rolls at a time: four independent accumulators keep the adder busy where one
    waited for the previous sum (the choices and values are the same bits; 4v4's improvement spent 23 of
    its 30 s in the one-roll loop)."""
    x = 0
    while x < n:
        nx = min(4, n - x)
        v0 = v1 = v2 = v3 = -1e300
        b0 = b1 = b2 = b3 = -1
        for j in range(a0, na):
            c0 = 0.0
            c1 = 0.0
            c2 = 0.0
            c3 = 0.0
            if j == 0:
                cx0 = rc[s, x, r]
                cx1 = rc[s, x + 1, r] if nx > 1 else cx0
                cx2 = rc[s, x + 2, r] if nx > 2 else cx0
                cx3 = rc[s, x + 3, r] if nx > 3 else cx0
                for y in range(no):
                    qy = q[y]
                    t = rc[o, y, r]
                    c0 += qy * terminal[s, L, cx0 + t]
                    c1 += qy * terminal[s, L, cx1 + t]
                    c2 += qy * terminal[s, L, cx2 + t]
                    c3 += qy * terminal[s, L, cx3 + t]
            else:
                vb = vo + child[aw + j] * (no * n)
                r0 = vb + x * no
                r1 = r0 + no if nx > 1 else r0
                r2 = r0 + 2 * no if nx > 2 else r0
                r3 = r0 + 3 * no if nx > 3 else r0
                for y in range(no):
                    qy = q[y]
                    c0 -= qy * V[r0 + y]
                    c1 -= qy * V[r1 + y]
                    c2 -= qy * V[r2 + y]
                    c3 -= qy * V[r3 + y]
            if c0 > v0:
                v0 = c0
                b0 = j
            if c1 > v1:
                v1 = c1
                b1 = j
            if c2 > v2:
                v2 = c2
                b2 = j
            if c3 > v3:
                v3 = c3
                b3 = j
        bestj[x] = b0
        if nx > 1:
            bestj[x + 1] = b1
        if nx > 2:
            bestj[x + 2] = b2
        if nx > 3:
            bestj[x + 3] = b3
        x += nx


@njit(cache=True, nogil=True)
def br_backward(strat, V, oreach, ns, oth, rc, claim_r, terminal, rbase, order, act_off, last,
                child, NW, reachable, br_side, voff, choice):
    """Backward pass where side ``br_side`` plays the action with the best counterfactual value
    (given the other side's path-summed reach) at each (node, roll); the other side plays
    ``strat``.  Fills V like ``fsicfr_backward`` and the chosen slots in ``choice``."""
    nsd = ns.size
    maxn = 0
    for s in range(nsd):
        maxn = max(maxn, ns[s])
    B = np.zeros(maxn * maxn)
    bestj = np.zeros(maxn, dtype=np.int64)
    for k in range(NW - 1, -1, -1):
        w = order[k]
        na = act_off[w + 1] - act_off[w]
        L = last[w]
        a0 = 1 if L < 0 else 0
        for s in range(nsd):
            if not reachable[s, w]:
                continue
            n = ns[s]
            o = oth[s]
            no = ns[o]
            base = rbase[s] + act_off[w] * n
            B[:n * no] = 0.0
            r = claim_r[L] - 1 if L >= 0 else 0
            if s == br_side:
                _br_choices(bestj, oreach[s, w], V, rc, terminal, child, s, o, n, no, L, r, a0, na,
                            voff[o], act_off[w])
                for x in range(n):
                    choice[base + x] = bestj[x]
            for x in range(n):
                best = bestj[x] if s == br_side else -1
                for j in range(a0, na):
                    sg = strat[base + j * n + x] if s != br_side else (1.0 if j == best else 0.0)
                    if sg == 0.0:
                        continue
                    if j == 0:
                        cx = rc[s, x, r]
                        for y in range(no):
                            B[x * no + y] += sg * terminal[s, L, cx + rc[o, y, r]]
                    else:
                        vb = voff[o] + child[act_off[w] + j] * (no * n)
                        for y in range(no):
                            B[x * no + y] -= sg * V[vb + x * no + y]
            sb = voff[s] + w * (n * no)
            for x in range(n):
                for y in range(no):
                    V[sb + y * n + x] = B[x * no + y]


@njit(cache=True)
def assign_slots(side, rep, off, members, oth, act_off, child, nsides, NW):
    """Slot of each node's value matrix: allocated when its block writes it, released after the
    last block that reads it (a stack of free slots, so the assignment is deterministic)."""
    nb = side.size
    lastread = np.full((nsides, NW), -1, dtype=np.int64)
    for k in range(nb):
        o = oth[side[k]]
        w0 = rep[k]
        for j in range(1, act_off[w0 + 1] - act_off[w0]):
            lastread[o, child[act_off[w0] + j]] = k
    vslot = np.full((nsides, NW), -1, dtype=np.int64)
    free = np.empty(nsides * NW, dtype=np.int64)
    nfree = 0
    nslots = 0
    for k in range(nb):
        s = side[k]
        for i in range(off[k], off[k + 1]):
            if nfree > 0:
                nfree -= 1
                vslot[s, members[i]] = free[nfree]
            else:
                vslot[s, members[i]] = nslots
                nslots += 1
        o = oth[s]
        w0 = rep[k]
        for j in range(1, act_off[w0 + 1] - act_off[w0]):
            c = child[act_off[w0] + j]
            if lastread[o, c] == k and vslot[o, c] >= 0:
                free[nfree] = vslot[o, c]
                nfree += 1
    return vslot, nslots


@njit(cache=True, nogil=True)
def structural_reach(ns, oth, root_w, order, act_off, child, NW):
    """Nodes some path reaches (reach under the uniform strategy is positive)."""
    nsd = ns.size
    reach = np.zeros((nsd, NW), dtype=np.bool_)
    for s in range(nsd):
        if root_w[s] > 0:
            reach[s, 0] = True
    for k in range(NW):
        w = order[k]
        for s in range(nsd):
            if reach[s, w]:
                o = oth[s]
                for j in range(1, act_off[w + 1] - act_off[w]):
                    reach[o, child[act_off[w] + j]] = True
    return reach


@njit(cache=True)
def _gemm_fixed(Q, P, no, M, x0, x1, neg, G, j, MT, acc):
    """G[p, j, x] = +-sum_y Q[p * no + y] * M[x * no + y] for p < P, x0 <= x < x1, with the bits of
    ``dot_fixed`` (the same eight partial sums over y, each in the order of y, then the same tree and tail)
    but computed for all x at once: M's rows x0 .. x1 - 1 are transposed into ``MT`` (float64, exact) and
    each partial sum is an array over x (``acc``), so the innermost loop runs over x with no loop-carried
    sum and LLVM vectorises it without reassociating anything (``dot_fixed`` per (p, x) ran as scalar
    code: 5v5 at m = 2 spent 1.5 of its 2.3 s an iteration there).  ``neg``: store the negated sum."""
    nx = x1 - x0
    for y in range(no):
        mt = MT[y]
        for xi in range(nx):
            mt[xi] = np.float64(M[(x0 + xi) * no + y])
    nfull = no // 8
    for p in range(P):
        for k in range(8):
            a = acc[k]
            for xi in range(nx):
                a[xi] = 0.0
        for c in range(nfull):
            for k in range(8):
                y = 8 * c + k
                q = np.float64(Q[p * no + y])
                if q == 0.0:        # the opponent never holds y here (about 2/3 of 5v5's entries): adding
                    continue        # +-0 leaves a partial sum that is never -0 unchanged, so the same bits
                a = acc[k]
                mt = MT[y]
                for xi in range(nx):
                    a[xi] += q * mt[xi]
        a0 = acc[0]
        a1 = acc[1]
        a2 = acc[2]
        a3 = acc[3]
        a4 = acc[4]
        a5 = acc[5]
        a6 = acc[6]
        a7 = acc[7]
        g = G[p, j]
        for xi in range(nx):
            t = ((a0[xi] + a1[xi]) + (a2[xi] + a3[xi])) + ((a4[xi] + a5[xi]) + (a6[xi] + a7[xi]))
            for y in range(8 * nfull, no):
                t += np.float64(Q[p * no + y]) * MT[y, xi]
            g[x0 + xi] = -t if neg else t


@njit(cache=True)
def _block_rolls(x0, x1, s, o, n, no, L, a0, na, w0, P, pw, upd, need_g, Q, Tb, G, Sr, Xr, Bout, gbar,
                 strat, reg, ssum, V, mreach, rc, claim_r, terminal, rbase, act_off, child, avg_w, mode,
                 pos_disc, neg_disc, pred, vslot, br_side, choice, MT, Acc, tiled):
    """One block's work for own rolls ``x0 .. x1 - 1`` (``blocked_backward``): every roll's work writes
    only that roll's entries, and parents never share a slot with the children this block reads (a
    child's slot is freed after its last reader's parents got theirs), so roll ranges may run at once
    and give the same bits as one range.  ``Sr``, ``Xr``: this range's own scratch.  The roll loops
    start at a literal 0 and skip to ``x0``: so numba knows the index is not negative and drops the
    negative-index wrap-around, which lets LLVM vectorise them (``range(x0, x1)`` took 2.4 times as
    long on 4v4)."""
    T = Tb[:n * no].reshape((n, no))
    if L >= 0:
        r = claim_r[L] - 1
        for x in range(x1):
            if x < x0:
                continue
            cx = rc[s, x, r]
            for y in range(no):
                T[x, y] = terminal[s, L, cx + rc[o, y, r]]
    # ``_gemm_fixed`` pays a transposition per child and runs its vectors over the rolls: it loses below about four
    # parents or 32 rolls a side (1v3's one-die side: half the speed), so there the dot products stay (``tiled``:
    # the least of 8 x parents, rolls in the range and opponent rolls that takes ``_gemm_fixed``; 0: never)
    if need_g and not (tiled > 0 and min(8 * P, x1 - x0, no) >= tiled):     # one dot_fixed per (p, x)
        if L >= 0:
            for p in range(P):
                for x in range(x1):
                    if x < x0:
                        continue
                    G[p, 0, x] = dot_fixed(Q, p * no, Tb, x * no, no)
        for j in range(1, na):
            Vj = V[vslot[o, child[act_off[w0] + j]]]
            for p in range(P):
                for x in range(x1):
                    if x < x0:
                        continue
                    G[p, j, x] = -dot_fixed(Q, p * no, Vj, x * no, no)
    elif need_g:                    # the same sums, vectorised over x (``_gemm_fixed``)
        if L >= 0:
            _gemm_fixed(Q, P, no, Tb, x0, x1, False, G, 0, MT, Acc)
        for j in range(1, na):
            _gemm_fixed(Q, P, no, V[vslot[o, child[act_off[w0] + j]]], x0, x1, True, G, j, MT, Acc)
    S = Sr[:P * na].reshape((P, na))
    X = Xr[:na * no].reshape((na, no))
    for x in range(x1):
        if x < x0:
            continue
        if L >= 0:
            for y in range(no):
                X[0, y] = T[x, y]
        else:
            for y in range(no):
                X[0, y] = 0.0
        for j in range(1, na):
            vr = V[vslot[o, child[act_off[w0] + j]]]
            for y in range(no):
                X[j, y] = -vr[x * no + y]
        for p in range(P):
            base = rbase[s] + act_off[pw[p]] * n
            if s == br_side:
                best = a0
                bestv = G[p, a0, x]
                for j in range(a0 + 1, na):
                    if G[p, j, x] > bestv:
                        bestv = G[p, j, x]
                        best = j
                choice[base + x] = best
                for j in range(na):
                    S[p, j] = 1.0 if j == best else 0.0
            else:
                for j in range(na):
                    S[p, j] = strat[base + j * n + x]
                if a0 == 1:
                    S[p, 0] = 0.0
        # B[p, x, :] = S_x @ X_x by hand: CFR+ strategies are mostly zero (about 80% after
        # a few iterations), and skipping them beat a GEMM (4v4: 0.41 s vs 0.60 s)
        for p in range(P):
            bo = Bout[p]
            for y in range(no):
                bo[x * no + y] = 0.0
            for j in range(na):
                sv = S[p, j]
                if sv != 0.0:
                    for y in range(no):
                        bo[x * no + y] += sv * X[j, y]
    for p in range(P):
        sl = vslot[s, pw[p]]
        for y in range(no):
            for x in range(x1):
                if x < x0:
                    continue
                V[sl, y * n + x] = Bout[p, x * no + y]
    for p in range(P):
        if not upd[p]:
            continue
        base = rbase[s] + act_off[pw[p]] * n
        for x in range(x1):
            if x < x0:
                continue
            gbar[x] = 0.0
        for j in range(a0, na):
            for x in range(x1):
                if x < x0:
                    continue
                gbar[x] += strat[base + j * n + x] * G[p, j, x]
        for j in range(a0, na):
            for x in range(x1):
                if x < x0:
                    continue
                idx = base + j * n + x
                update_regret(reg, pred, ssum, strat, idx, G[p, j, x] - gbar[x], mode, pos_disc,
                              neg_disc, avg_w * mreach[s, pw[p], x])


@njit(cache=True)
def _block_parents(k, s, bmem, boff, reachable, update, phase, seat, oreach, no, pw, upd, Qb):
    """The reachable parents of block ``k`` into ``pw``/``upd`` and their opponent reach into ``Qb``
    (row p = parent p); returns (their number, whether any regret is updated)."""
    P = 0
    need_g = False
    for i in range(boff[k], boff[k + 1]):
        w = bmem[i]
        if reachable[s, w]:
            pw[P] = w
            upd[P] = update and (phase < 0 or seat[s, w] == phase)
            need_g = need_g or upd[P]
            P += 1
    for p in range(P):
        for y in range(no):
            Qb[p * no + y] = oreach[s, pw[p], y]
    return P, need_g


@njit(cache=True)
def blocked_backward(strat, reg, ssum, V, mreach, oreach, ns, oth, rc, claim_r, terminal, rbase,
                     act_off, last, child, reachable, update, avg_w, mode, pos_disc, neg_disc,
                     pred, seat, phase, bside, brep, boff, bmem, vslot, maxp, br_side, choice, tiled):
    """Algorithm 2 (FSICFR) backward pass over all roll pairs, blocked by suffix class.

    Same results as ``fsicfr_backward`` (up to summation order) but every child's value matrix
    is read once per block of parents sharing the child list: per child j the parents'
    counterfactual values are G[p, j, :] = -Q @ V_j^T (Q: the parents' opponent reach), and per
    own roll x the parents' node values are B[p, x, :] = S_x @ (-V_j[x, :])_j (S_x: their
    strategies at x), G by ``dot_fixed`` in float64 (a fixed summation order: no BLAS, whose kernel
    and order depend on the CPU), B in V's dtype by a loop skipping zero probabilities.  V is the slot
    pool (nslots, n0 * n1):
    V[vslot[s, w], y * n + x] is the value (+-1) to the mover of (s, w) with roll x against y.
    Regrets are computed only where they are updated.  With ``br_side >= 0`` that side plays a
    best response by counterfactual value (first best slot, stored in ``choice``) instead of
    ``strat``, as ``br_backward``.  ``blocked_backward_threads`` is the same pass on several threads.
    ``tiled``: the counterfactual values of blocks of at least ``tiled`` / 8 parents and ``tiled`` rolls a side by
    ``_gemm_fixed`` (the same bits, up to 3 times faster on large blocks), the others by one ``dot_fixed`` per
    (parent, action, roll) (the reference order; ``tiled = 0``: everywhere, for the test and the benchmark).
    """
    # every array borrowed (games.borrow): the blocks' calls and views below then count no references
    strat, reg, ssum, V = borrow(strat), borrow(reg), borrow(ssum), borrow(V)
    mreach, oreach, ns, oth = borrow(mreach), borrow(oreach), borrow(ns), borrow(oth)
    rc, claim_r, terminal, rbase = borrow(rc), borrow(claim_r), borrow(terminal), borrow(rbase)
    act_off, last, child, reachable = borrow(act_off), borrow(last), borrow(child), borrow(reachable)
    pred, seat, bside, brep = borrow(pred), borrow(seat), borrow(bside), borrow(brep)
    boff, bmem, vslot, choice = borrow(boff), borrow(bmem), borrow(vslot), borrow(choice)
    maxn = 0
    for s in range(ns.size):
        maxn = max(maxn, ns[s])
    maxna = act_off[1] - act_off[0]
    dt = V.dtype
    own = (np.empty(maxp * maxn, dtype=dt), np.empty(maxp * maxna, dtype=dt), np.empty(maxna * maxn, dtype=dt),
           np.zeros(maxn * maxn, dtype=dt), np.empty((maxp, maxn * maxn), dtype=dt), np.zeros((maxp, maxna, maxn)),
           np.zeros(maxn), np.empty(maxp, dtype=np.int64), np.zeros(maxp, dtype=np.bool_), np.empty((maxn, maxn)),
           np.empty((8, maxn)))
    Qb, Sb, Xb, Tb = borrow(own[0]), borrow(own[1]), borrow(own[2]), borrow(own[3])
    Bout, G, gbar, pw = borrow(own[4]), borrow(own[5]), borrow(own[6]), borrow(own[7])
    upd, MT, Acc = borrow(own[8]), borrow(own[9]), borrow(own[10])
    for k in range(bside.size):
        s = bside[k]
        w0 = brep[k]
        o = oth[s]
        P, need_g = _block_parents(k, s, bmem, boff, reachable, update, phase, seat, oreach, ns[o], pw, upd, Qb)
        if P == 0:
            continue
        L = last[w0]
        a0 = 1 if L < 0 else 0
        need_g = need_g or s == br_side
        _block_rolls(0, ns[s], s, o, ns[s], ns[o], L, a0, act_off[w0 + 1] - act_off[w0], w0, P, pw, upd,
                     need_g, Qb, Tb, G,
                     Sb, Xb, Bout, gbar, strat, reg, ssum, V, mreach, rc, claim_r, terminal, rbase,
                     act_off, child, avg_w, mode, pos_disc, neg_disc, pred, vslot, br_side, choice, MT, Acc, tiled)
    keep(own)  # the scratch borrowed above is freed only here


@njit(cache=True, parallel=True)
def blocked_backward_threads(strat, reg, ssum, V, mreach, oreach, ns, oth, rc, claim_r, terminal, rbase,
                             act_off, last, child, reachable, update, avg_w, mode, pos_disc, neg_disc,
                             pred, seat, phase, bside, brep, boff, bmem, vslot, maxp, br_side, choice,
                             tiled, nchunks):
    """``blocked_backward`` with each block's own rolls split into ``nchunks`` ranges run in parallel
    (numba threads): the same bits, as every roll's work is the same and writes its own entries."""
    # every array borrowed (games.borrow): the blocks' calls and views below then count no references
    strat, reg, ssum, V = borrow(strat), borrow(reg), borrow(ssum), borrow(V)
    mreach, oreach, ns, oth = borrow(mreach), borrow(oreach), borrow(ns), borrow(oth)
    rc, claim_r, terminal, rbase = borrow(rc), borrow(claim_r), borrow(terminal), borrow(rbase)
    act_off, last, child, reachable = borrow(act_off), borrow(last), borrow(child), borrow(reachable)
    pred, seat, bside, brep = borrow(pred), borrow(seat), borrow(bside), borrow(brep)
    boff, bmem, vslot, choice = borrow(boff), borrow(bmem), borrow(vslot), borrow(choice)
    maxn = 0
    for s in range(ns.size):
        maxn = max(maxn, ns[s])
    maxna = act_off[1] - act_off[0]
    dt = V.dtype
    own = (np.empty(maxp * maxn, dtype=dt), np.empty((nchunks, maxp * maxna), dtype=dt),
           np.empty((nchunks, maxna * maxn), dtype=dt), np.zeros(maxn * maxn, dtype=dt),
           np.empty((maxp, maxn * maxn), dtype=dt), np.zeros((maxp, maxna, maxn)), np.zeros(maxn),
           np.empty(maxp, dtype=np.int64), np.zeros(maxp, dtype=np.bool_), np.empty((nchunks, maxn, maxn)),
           np.empty((nchunks, 8, maxn)))
    Qb, Sb, Xb, Tb = borrow(own[0]), borrow(own[1]), borrow(own[2]), borrow(own[3])
    Bout, G, gbar, pw = borrow(own[4]), borrow(own[5]), borrow(own[6]), borrow(own[7])
    upd, MT, Acc = borrow(own[8]), borrow(own[9]), borrow(own[10])
    for k in range(bside.size):
        s = bside[k]
        w0 = brep[k]
        o = oth[s]
        n = ns[s]
        P, need_g = _block_parents(k, s, bmem, boff, reachable, update, phase, seat, oreach, ns[o], pw, upd, Qb)
        if P == 0:
            continue
        L = last[w0]
        a0 = 1 if L < 0 else 0
        na = act_off[w0 + 1] - act_off[w0]
        no = ns[o]
        need_g = need_g or s == br_side
        for c in prange(nchunks):
            _block_rolls(c * n // nchunks, (c + 1) * n // nchunks, s, o, n, no, L, a0, na, w0, P, pw, upd,
                         need_g, Qb, Tb, G, Sb[c], Xb[c], Bout, gbar, strat, reg, ssum, V,
                         mreach, rc, claim_r, terminal, rbase, act_off, child, avg_w, mode, pos_disc,
                         neg_disc, pred, vslot, br_side, choice, MT[c], Acc[c], tiled)
    keep(own)  # the scratch borrowed above is freed only here
