"""Fixed-Strategy Iteration CFR (Neller & Hnath, Algorithm 2), one sampled roll pair per iteration.

The DAG of a group is walked as written: nodes are (player to move, remembered claims) for the
sampled rolls; the forward pass accumulates visits and each player's reach (pSum), the backward
pass computes values and updates the *average* regrets r with the visit-weighted rule of line 36.
Tables use ``dag.Group``'s layout (``rbase[s] + (act_off[w] + j) * ns[s] + x``), so strategies
are interchangeable with ``abstract_cfr.FastSolver``'s.  Players: with two sides, player p holds the
dice of side p; with one side (equal dice), players 0 and 1 are the two seats and share side 0.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.dudo.abstraction.dag import Group, RollSampler


@njit(cache=True)
def Tcount_index(rbase, act_off, side, w, n, x):
    """Index of information set (side, w, x) in the per-infoset counter array (its Dudo slot)."""
    return rbase[side] + act_off[w] * n + x


@njit(cache=True)
def _fsicfr_kernel(xr, regs, Tcount, ssum, sig, visits, psum, val, nsides, ns, rc, claim_r,
                   terminal, rbase, order, act_off, last, child, NW, roots):
    """One iteration of Algorithm 2 for the predetermined rolls xr[0], xr[1]."""
    for p in range(2):
        if roots[p] > 0:
            visits[p, 0] = 1.0
            psum[p, 0, 0] = 1.0
            psum[p, 0, 1] = 1.0
    # forward pass (lines 3-25)
    for k in range(NW):
        w = order[k]
        na = act_off[w + 1] - act_off[w]
        a0 = 1 if last[w] < 0 else 0
        for p in range(2):
            if visits[p, w] == 0.0:
                continue
            side = p if nsides == 2 else 0
            n = ns[side]
            x = xr[p]
            base = rbase[side] + act_off[w] * n + x
            sb = act_off[w]
            tot = 0.0
            for j in range(a0, na):
                r = regs[base + j * n]
                if r > 0:
                    tot += r
            for j in range(na):
                if j < a0:
                    sig[p, sb + j] = 0.0
                elif tot > 0:
                    r = regs[base + j * n]
                    sig[p, sb + j] = r / tot if r > 0 else 0.0
                else:
                    sig[p, sb + j] = 1.0 / (na - a0)
                ssum[base + j * n] += sig[p, sb + j] * psum[p, w, p]
            q = 1 - p
            for j in range(1, na):
                c = child[sb + j]
                visits[q, c] += visits[p, w]
                psum[q, c, p] += sig[p, sb + j] * psum[p, w, p]
                psum[q, c, q] += psum[p, w, q]
    # backward pass (lines 26-45)
    for k in range(NW - 1, -1, -1):
        w = order[k]
        na = act_off[w + 1] - act_off[w]
        a0 = 1 if last[w] < 0 else 0
        L = last[w]
        for p in range(2):
            if visits[p, w] == 0.0:
                continue
            side = p if nsides == 2 else 0
            oside = (1 - p) if nsides == 2 else 0
            n = ns[side]
            x = xr[p]
            base = rbase[side] + act_off[w] * n + x
            sb = act_off[w]
            q = 1 - p
            v = 0.0
            if L >= 0:
                r = claim_r[L] - 1
                u = terminal[side, L, rc[side, x, r] + rc[oside, xr[q], r]]
                val[p, w, 0] = u  # scratch for v(a) of Dudo
                v += sig[p, sb] * u
            for j in range(1, na):
                v += sig[p, sb + j] * (-val[q, child[sb + j], 1])
            cfp = psum[p, w, q]
            ti = Tcount_index(rbase, act_off, side, w, n, x)
            T = Tcount[ti]
            vis = visits[p, w]
            for j in range(a0, na):
                va = val[p, w, 0] if j == 0 else -val[q, child[sb + j], 1]
                idx = base + j * n
                regs[idx] = (T * regs[idx] + vis * cfp * (va - v)) / (T + vis)
            Tcount[ti] = T + vis
            val[p, w, 1] = v
            visits[p, w] = 0.0
            psum[p, w, 0] = 0.0
            psum[p, w, 1] = 0.0


class FSICFR:
    """Algorithm 2 on a group, with sampled rolls; tables compatible with ``FastSolver``."""

    def __init__(self, group: Group, seed: int = 0):
        g = self.g = group
        self.rng = np.random.default_rng(seed)
        self.t = 0
        self.seconds = 0.0
        self.reg = np.zeros(g.nrows)
        self.ssum = np.zeros(g.nrows)
        self.Tcount = np.zeros(g.nrows)
        na_tot = int(g.act_off[-1])
        self.sig = np.zeros((2, na_tot))
        self.visits = np.zeros((2, g.NW))
        self.psum = np.zeros((2, g.NW, 2))
        self.val = np.zeros((2, g.NW, 2))
        if g.nsides == 2:
            self.roots = (g.root_w > 0).astype(np.int64)
        else:
            self.roots = np.array([1, 0], dtype=np.int64)
        self.sample_rolls = RollSampler(g, self.rng)

    def fsicfr_iteration(self, xr=None):
        """One FSICFR iteration (Algorithm 2) on one sampled pair of rolls."""
        g = self.g
        t0 = time.perf_counter()
        if xr is None:
            xr = self.sample_rolls()
        _fsicfr_kernel(xr, self.reg, self.Tcount, self.ssum, self.sig, self.visits, self.psum,
                       self.val, g.nsides, g.ns, g.rc, g.claim_r, g.terminal, g.rbase, g.order,
                       g.act_off, g.last, g.child, g.NW, self.roots)
        self.t += 1
        self.seconds += time.perf_counter() - t0

    def solve(self, iterations: int, progress: bool = False, seconds: float | None = None):
        from tqdm import tqdm
        bar = tqdm(total=iterations, disable=not progress, leave=False, desc=f"fsicfr {self.g.dice}")
        t_end = None if seconds is None else time.perf_counter() + seconds
        for _ in range(iterations):
            self.fsicfr_iteration()
            bar.update()
            if t_end is not None and time.perf_counter() > t_end:
                break
        bar.close()
        return self

    def average_strategy(self):
        from games.dudo.solvers.kernels import normalize_average
        g = self.g
        out = np.zeros(g.nrows)
        normalize_average(self.ssum, out, g.ns, g.rbase, g.NW, g.act_off, g.last)
        return out
