"""Chance-sampled CFR (Neller & Hnath, Algorithm 1) on the abstract information sets.

The recursion walks the real claim histories of the round (exponential in the number of
claims), looks every decision up in the abstract tables of a ``dag.Group`` (layout shared with
``abstract_cfr.FastSolver``) and updates cumulative regrets and strategy sums on every visit, so the
strategy changes within an iteration.  Players are as in ``fsicfr``.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.dudo.abstraction.dag import Group, RollSampler
from games.dudo.abstraction.infoset import Faces, Schedule, _binom_tables, _widx, memory_size


@njit(cache=True)
def _cfr(k, L, hist, i, pi0, pi1, first, xr, nsides, regs, ssum, sig_ws, v_ws, ns, rc, claim_r,
         terminal, rbase, act_off, K, mm, binom, size_off):
    """CFR(h, i, t, pi_1, pi_2) of Algorithm 1; returns the value for player i."""
    p = first if k % 2 == 0 else 1 - first          # player to move
    q = 1 - p
    side = p if nsides == 2 else 0
    oside = q if nsides == 2 else 0
    n = ns[side]
    x = xr[p]
    w = _widx(hist, k, mm, binom, size_off)
    na = act_off[w + 1] - act_off[w]
    a0 = 1 if L < 0 else 0
    base = rbase[side] + act_off[w] * n + x
    sig = sig_ws[k]
    va = v_ws[k]
    tot = 0.0
    for j in range(a0, na):
        r = regs[base + j * n]
        if r > 0:
            tot += r
    for j in range(a0, na):
        if tot > 0:
            r = regs[base + j * n]
            sig[j] = r / tot if r > 0 else 0.0
        else:
            sig[j] = 1.0 / (na - a0)
    v = 0.0
    if L >= 0:  # Dudo: terminal, utility to player i
        r = claim_r[L] - 1
        u = terminal[side, L, rc[side, x, r] + rc[oside, xr[q], r]]
        va[0] = u if p == i else -u
        v += sig[0] * va[0]
    for j in range(1, na):
        c = L + j
        hist[k] = c
        if p == 0:
            vj = _cfr(k + 1, c, hist, i, sig[j] * pi0, pi1, first, xr, nsides, regs, ssum, sig_ws,
                      v_ws, ns, rc, claim_r, terminal, rbase, act_off, K, mm, binom, size_off)
        else:
            vj = _cfr(k + 1, c, hist, i, pi0, sig[j] * pi1, first, xr, nsides, regs, ssum, sig_ws,
                      v_ws, ns, rc, claim_r, terminal, rbase, act_off, K, mm, binom, size_off)
        sig = sig_ws[k]
        va = v_ws[k]
        va[j] = vj
        v += sig[j] * vj
    if p == i:
        pi_i = pi0 if i == 0 else pi1
        pi_o = pi1 if i == 0 else pi0
        for j in range(a0, na):
            regs[base + j * n] += pi_o * (va[j] - v)
            ssum[base + j * n] += pi_i * sig[j]
    return v


class CFR:
    """Algorithm 1 with one sampled roll pair per iteration (both players traverse)."""

    def __init__(self, group: Group, seed: int = 0):
        g = self.g = group
        self.rng = np.random.default_rng(seed)
        self.t = 0
        self.seconds = 0.0
        self.reg = np.zeros(g.nrows)
        self.ssum = np.zeros(g.nrows)
        if isinstance(g.m, (Schedule, Faces)):   # it indexes windows by the last claims alone
            raise ValueError(f"the sampling CFR reference takes a last-m-claims memory, not {g.m}")
        self.mm = memory_size(g.K, g.m)
        self.binom, self.size_off = _binom_tables(g.K, self.mm)
        self.sig_ws = np.zeros((g.K + 2, g.K + 1))
        self.v_ws = np.zeros((g.K + 2, g.K + 1))
        self.hist = np.zeros(g.K + 1, dtype=np.int64)
        # roots: which player opens (player p holds side p's dice; seat 0 opens for equal dice)
        if g.nsides == 2:
            self.firsts = [s for s in range(2) if g.root_w[s] > 0]
        else:
            self.firsts = [0]
        self.sample_rolls = RollSampler(g, self.rng)

    def cfr_iteration(self, xr=None):
        """One chance-sampled CFR iteration (Algorithm 1, lines 30-33) per reachable round."""
        g = self.g
        t0 = time.perf_counter()
        if xr is None:
            xr = self.sample_rolls()
        for first in self.firsts:
            for i in range(2):
                _cfr(0, -1, self.hist, i, 1.0, 1.0, first, xr, g.nsides, self.reg, self.ssum,
                     self.sig_ws, self.v_ws, g.ns, g.rc, g.claim_r, g.terminal, g.rbase,
                     g.act_off, g.K, self.mm, self.binom, self.size_off)
        self.t += 1
        self.seconds += time.perf_counter() - t0

    def solve(self, iterations: int, seconds: float | None = None):
        t_end = None if seconds is None else time.perf_counter() + seconds
        for _ in range(iterations):
            self.cfr_iteration()
            if t_end is not None and time.perf_counter() > t_end:
                break
        return self

    def average_strategy(self):
        from games.dudo.solvers.kernels import normalize_average
        g = self.g
        out = np.zeros(g.nrows)
        normalize_average(self.ssum, out, g.ns, g.rbase, g.NW, g.act_off, g.last)
        return out
