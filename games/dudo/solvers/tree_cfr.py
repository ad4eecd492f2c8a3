"""Vector CFR+ on the unabstracted round (perfect recall, the public tree is a tree).

With perfect recall every abstract public node is one claim history, so the full-width
iteration needs no roll-pair matrices: a depth-first walk passes each player's reach vector
(over its rolls) down and returns each player's counterfactual values, O(nodes x rolls) per
iteration instead of O(nodes x rolls^2).  Alternating CFR+ updates, linear averaging.  Tables
share ``dag.Group``'s layout (group built with ``m=None``), so ``abstract_cfr``/``exploit`` tools apply.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.dudo.abstraction.dag import Group
from games.dudo.abstraction.infoset import _binom_tables, _widx, is_perfect_recall


@njit(cache=True)
def node_reached(rp, rq, cp, cq, n, no):
    """Zeroes a node's counterfactual values cp[:n], cq[:no]; False if neither player's reach
    (rp, rq) is positive there (nothing below it counts)."""
    tp = 0.0
    tq = 0.0
    for x in range(n):
        cp[x] = 0.0
        tp += rp[x]
    for y in range(no):
        cq[y] = 0.0
        tq += rq[y]
    return tp != 0.0 or tq != 0.0


@njit(cache=True)
def regret_match(reg, sig, lo, na, n, a0):
    """Regret matching (Neller & Hnath Eq. 5) at one node, flat rows: sig[lo + j * n + x] from
    reg[lo + j * n + x] (uniform where none is positive; slot 0, Dudo, is illegal when ``a0 == 1``)."""
    for x in range(n):
        tot = 0.0
        for j in range(a0, na):
            r = reg[lo + j * n + x]
            if r > 0:
                tot += r
        for j in range(a0, na):
            r = reg[lo + j * n + x]
            sig[lo + j * n + x] = (r / tot if r > 0 else 0.0) if tot > 0 else 1.0 / (na - a0)
        if a0 == 1:
            sig[lo + x] = 0.0


@njit(cache=True)
def node_strategy(reg, base, n, na, a0, sg):
    """Regret matching (Neller & Hnath Eq. 5) at one node for every roll x of the mover:
    sg[j, x] from the regrets at ``reg[base + j * n + x]`` (uniform where none is positive;
    slot 0, Dudo, is illegal when ``a0 == 1``)."""
    for x in range(n):
        tot = 0.0
        for j in range(a0, na):
            r = reg[base + j * n + x]
            if r > 0:
                tot += r
        for j in range(a0, na):
            r = reg[base + j * n + x]
            sg[j, x] = (r / tot if r > 0 else 0.0) if tot > 0 else 1.0 / (na - a0)
        if a0 == 1:
            sg[0, x] = 0.0


@njit(cache=True, nogil=True)
def dudo_mover_values(L, sp, sq, n, no, rq, rc, claim_r, util, c, G):
    """G[x] = the mover's value (weighted by the opponent's reach rq) of challenging claim L with
    roll x (``dudo_values``' first half)."""
    r = claim_r[L] - 1
    for t in range(c.shape[0]):
        c[t] = 0.0
    for y in range(no):
        c[rc[sq, y, r]] += rq[y]
    for x in range(n):
        cx = rc[sp, x, r]
        acc = 0.0
        for t in range(c.shape[0]):
            if c[t] != 0.0:
                acc += c[t] * util[L, cx + t]
        G[x] = acc


@njit(cache=True, nogil=True)
def dudo_other_values(L, sp, sq, n, no, rp, sg, rc, claim_r, util, c, cq):
    """Adds to cq[y] the opponent's value of the mover's challenge of claim L (the mover's reach rp
    times its Dudo probability sg[0]) (``dudo_values``' second half)."""
    r = claim_r[L] - 1
    for t in range(c.shape[0]):
        c[t] = 0.0
    for x in range(n):
        c[rc[sp, x, r]] += rp[x] * sg[0, x]
    for y in range(no):
        cy = rc[sq, y, r]
        acc = 0.0
        for t in range(c.shape[0]):
            if c[t] != 0.0:
                acc -= c[t] * util[L, t + cy]
        cq[y] += acc


@njit(cache=True, nogil=True)
def dudo_values(L, sp, sq, n, no, rp, rq, sg, rc, claim_r, util, c, G, cq):
    """The Dudo action at a node whose last claim is L: G[x] = the mover's value (weighted by the
    opponent's reach rq) of challenging with roll x, and the opponent's value of the mover's
    challenge (mover's reach rp times its Dudo probability sg[0]) added to cq[y].  ``util[L, t]``
    is the challenger's utility when t dice count (zero-sum); ``c`` is scratch of D + 1."""
    dudo_mover_values(L, sp, sq, n, no, rq, rc, claim_r, util, c, G)
    dudo_other_values(L, sp, sq, n, no, rp, sg, rc, claim_r, util, c, cq)


@njit(cache=True)
def _walk(k, L, hist, first, upd, reach, cfv, sig, cnt, nsides, ns, rc, claim_r, terminal,
          rbase, act_off, K, binom, size_off, reg, ssum, avg_w):
    """Fills cfv[k, p, :] (player p's counterfactual values) below history hist[:k]."""
    p = first if k % 2 == 0 else 1 - first     # player (= side of a 2-sided group) to move
    q = 1 - p
    sp = p if nsides == 2 else 0
    sq = q if nsides == 2 else 0
    n = ns[sp]
    no = ns[sq]
    rp = reach[k, p]
    rq = reach[k, q]
    cp = cfv[k, p]
    cq = cfv[k, q]
    if not node_reached(rp, rq, cp, cq, n, no):
        return
    w = _widx(hist, k, K, binom, size_off)
    na = act_off[w + 1] - act_off[w]
    a0 = 1 if L < 0 else 0
    base = rbase[sp] + act_off[w] * n
    sg = sig[k]
    node_strategy(reg, base, n, na, a0, sg)
    if L >= 0:
        G = cfv[k, 2]         # scratch: mover's value of the Dudo action
        dudo_values(L, sp, sq, n, no, rp, rq, sg, rc, claim_r, terminal[sp], cnt[k], G, cq)
        for x in range(n):
            cp[x] += sg[0, x] * G[x]
            if upd == p:
                reg[base + x] += G[x]          # action value; the node value is removed below
    for j in range(1, na):
        cl = L + j
        hist[k] = cl
        nr = reach[k + 1]
        for x in range(n):
            nr[p, x] = rp[x] * sg[j, x]
        for y in range(no):
            nr[q, y] = rq[y]
        _walk(k + 1, cl, hist, first, upd, reach, cfv, sig, cnt, nsides, ns, rc, claim_r,
              terminal, rbase, act_off, K, binom, size_off, reg, ssum, avg_w)
        ch = cfv[k + 1]
        for x in range(n):
            cp[x] += sg[j, x] * ch[p, x]
            if upd == p:
                reg[base + j * n + x] += ch[p, x]
        for y in range(no):
            cq[y] += ch[q, y]
    if upd == p:
        for j in range(a0, na):
            for x in range(n):
                idx = base + j * n + x
                v = reg[idx] - cp[x]
                reg[idx] = v if v > 0 else 0.0
                ssum[idx] += avg_w * rp[x] * sg[j, x]


class TreeSolver:
    """Alternating vector CFR+ on a perfect-recall group (``make_group(a, b, None, W)``)."""

    def __init__(self, group: Group):
        g = self.g = group
        if not is_perfect_recall(g.K, g.m):
            raise ValueError("TreeSolver needs a perfect-recall group")
        self.t = 0
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self.reg = np.zeros(g.nrows)
        self.ssum = np.zeros(g.nrows)
        self.binom, self.size_off = _binom_tables(g.K, g.K)
        maxn = int(g.ns.max())
        self.reach = np.zeros((g.K + 2, 2, maxn))
        self.cfv = np.zeros((g.K + 2, 3, maxn))
        self.sig = np.zeros((g.K + 2, g.K + 1, maxn))
        self.cnt = np.zeros((g.K + 3, g.D + 1))
        self.hist = np.zeros(g.K + 1, dtype=np.int64)
        if g.nsides == 2:
            self.firsts = [s for s in range(2) if g.root_w[s] > 0]
        else:
            self.firsts = [0]

    def fsicfr_iteration(self):
        """One full-width iteration (Algorithm 2's fixed point, tree form) with CFR+ updates."""
        g = self.g
        t0, c0 = time.perf_counter(), time.process_time()
        self.t += 1
        for upd in (0, 1):
            for first in self.firsts:
                self.reach[0] = 0.0
                for p in range(2):
                    s = p if g.nsides == 2 else 0
                    self.reach[0, p, :g.ns[s]] = g.probs[s, :g.ns[s]]
                _walk(0, -1, self.hist, first, upd, self.reach, self.cfv, self.sig, self.cnt,
                      g.nsides, g.ns, g.rc, g.claim_r, g.terminal, g.rbase, g.act_off, g.K,
                      self.binom, self.size_off, self.reg, self.ssum, float(self.t))
        self.seconds += time.perf_counter() - t0
        self.cpu_seconds += time.process_time() - c0

    def solve(self, iterations: int, checkpoint: str | None = None, every: int = 0,
              progress: bool = True, desc: str = "", should_stop=None):
        from games.dudo.solvers.training import train
        return train(self, iterations, checkpoint, every, progress, desc or f"dudo tree {self.g.dice}",
                     should_stop)

    def average_strategy(self):
        from games.dudo.solvers.kernels import normalize_average
        g = self.g
        out = np.zeros(g.nrows)
        normalize_average(self.ssum, out, g.ns, g.rbase, g.NW, g.act_off, g.last)
        return out

    def root_values(self, strat=None):
        from games.dudo.solvers.abstract_cfr import FastSolver, evaluate
        return evaluate(FastSolver(self.g, train=False),
                        self.average_strategy() if strat is None else strat)

    def save(self, path: str):
        import os
        tmp = path + ".tmp.npz"
        np.savez(tmp, reg=self.reg, ssum=self.ssum, t=self.t, seconds=self.seconds,
                 dice=np.array(self.g.dice), m=-1)
        os.replace(tmp, path)

    def load(self, path: str):
        z = np.load(path)
        if tuple(z["dice"]) != tuple(self.g.dice) or int(z["m"]) != -1:
            raise ValueError("checkpoint is for another group")
        self.reg[:] = z["reg"]
        self.ssum[:] = z["ssum"]
        self.t = int(z["t"])
        self.seconds = float(z["seconds"])
        return self
