"""Tables sparse by reach: Linear CFR with regret-based pruning on a Dudo group's window DAG (design b).

Brown & Sandholm's regret-based pruning (NIPS 2015; "Reduced Space and Faster Convergence in
Imperfect-Information Games via Pruning", ICML 2017) needs regrets that may stay negative, so the regrets here
are Linear CFR's (Brown & Sandholm 2019: iteration t's instantaneous regret weighted by t, not floored; the
average strategy weighted by t), not CFR+'s.  Full width over every pair of rolls as ``kernels.fsicfr_backward``
(one value matrix per public node), with three changes:

* **Pruned actions.**  A claim j at public node (side s, window w) is pruned while every roll of the mover
  has a negative regret for it (so plays it with probability 0).  Its subtree is not visited for it: its
  counterfactual value, ``G[j, x] = -sum_y q[y] V_child[y, x]``, is replaced by the bound ``sum_y q[y]`` (node
  values are win probabilities in +-1 units), so the regret kept for it is an upper bound on its true
  regret; it comes back once that bound turns positive.
* **Partial pruning** (Lanctot et al. 2009), exact: during one seat's update the other seat's claims that no roll
  it reaches the node with plays are not visited: nothing below them changes a regret of the updating seat.
* **Active nodes.**  A node is visited only if some visited parent has a claim into it that is not pruned (the
  root always).
* **Tables sparse by reach.**  ``allocated[s, w]`` marks the nodes whose mover's opponent ever reaches them (with
  total probability above ``eps`` when a fallback exists): where a regret can change.  ``sparse_rows`` /
  ``sparse_mb`` count what a table holding only those needs; the arrays here are dense.  Without a fallback the
  strategy sums of every node the mover reaches are kept too (so the run is exactly Linear CFR with pruning);
  with one (``warm_start``) a node never allocated plays the fallback and keeps no sums.

``warm_start`` starts the regrets from a strategy of a shorter memory (Brown & Sandholm 2016, "Strategy-Based
Warm Starting for Regret Minimization in Games", simplified): one pass evaluating the shorter memory's
strategy lifted to this DAG gives every played claim its counterfactual regret times ``weight``; the claims it
never plays get the lowest regret their values allow (the bound's opposite), so they start pruned and only the
shorter strategy's reach is allocated until a claim's bound turns positive."""
from __future__ import annotations

import time

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.dudo.abstraction.dag import Group
from games.dudo.abstraction.infoset import is_perfect_recall, window_from_index, window_index
from games.dudo.solvers.tree_cfr import regret_match


@njit(cache=True)
def lcfr_strategy(reg, strat, ns, rbase, NW, act_off, last, allocated, fallback):
    """Regret matching on the positive part of the regrets (uniform where none is positive) at the allocated
    nodes; the others play ``fallback`` (a warm start's strategy; uniform if it is empty)."""
    for s in range(ns.size):
        n = ns[s]
        for w in range(NW):
            a0 = 1 if last[w] < 0 else 0
            na = act_off[w + 1] - act_off[w]
            base = rbase[s] + act_off[w] * n
            if not allocated[s, w]:
                for idx in range(base, base + na * n):
                    strat[idx] = fallback[idx] if fallback.size else (0.0 if idx < base + a0 * n else 1.0 / (na - a0))
                continue
            regret_match(reg, strat, base, na, n, a0)


@njit(cache=True)
def average_with_fallback(ssum, out, ns, rbase, NW, act_off, last, fallback):
    """The average strategy (strategy sums normalised); a roll's row never summed plays ``fallback`` (uniform
    if it is empty)."""
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
                    idx = base + j * n + x
                    if tot > 0:
                        out[idx] = ssum[idx] / tot
                    else:
                        out[idx] = fallback[idx] if fallback.size else 1.0 / (na - a0)
                if a0 == 1:
                    out[base + x] = 0.0


@njit(cache=True)
def _rbp_pruned(reg, strat, base, n, j):
    """Claim slot j of a node: every roll has a negative regret and probability 0 for it."""
    for x in range(n):
        idx = base + j * n + x
        if strat[idx] != 0.0 or reg[idx] >= 0.0:
            return False
    return True


@njit(cache=True)
def _unreached(strat, mreach, s, w, base, n, j, eps):
    """Claim slot j of a node: the rolls the mover reaches the node with play it with total probability at most
    ``eps`` (0: none plays it)."""
    tot = 0.0
    for x in range(n):
        tot += mreach[s, w, x] * strat[base + j * n + x]
    return tot <= eps


@njit(cache=True)
def active_reach(strat, reg, pruned, mreach, oreach, active, reached, own_reached, allocated, ns, oth, probs, root_w, rbase,
                 order, act_off, child, NW, seat, phase, rbp, partial, warm, eps):
    """Forward pass: the reach of each roll summed over paths at every node (``kernels.forward_reach``),
    ``reached[s, w]`` (some roll of either player reaches it), and the nodes this pass visits:
    ``active[s, w]``, the root and every child of an active node by a claim not pruned.  At the updating
    seat's nodes (``seat == phase``, every node when ``phase`` < 0) a claim is pruned by its regrets
    (``rbp``: every roll's regret negative and probability 0, at allocated nodes); at the other seat's nodes
    (``partial``) when no roll the mover reaches the node with plays it, which changes no regret of the
    updating seat (Lanctot et al. 2009's partial pruning: exact).  ``warm``: every claim no reached roll
    plays is pruned (``PrunedSolver.warm_start``).  With ``eps`` > 0 (a fallback strategy exists) "no roll"
    and "reached" mean "with total probability at most / above eps"."""
    mreach[:] = 0.0
    oreach[:] = 0.0
    active[:] = False
    pruned[:] = False
    nsd = ns.size
    for s in range(nsd):
        if root_w[s] > 0:
            active[s, 0] = True
            o = oth[s]
            for x in range(ns[s]):
                mreach[s, 0, x] = root_w[s] * probs[s, x]
            for y in range(ns[o]):
                oreach[s, 0, y] += root_w[s] * probs[o, y]
    for k in range(NW):
        w = order[k]
        for s in range(nsd):
            n = ns[s]
            o = oth[s]
            tot = 0.0
            for x in range(n):
                tot += mreach[s, w, x]
            for y in range(ns[o]):
                tot += oreach[s, w, y]
            opp = 0.0
            for y in range(ns[o]):
                opp += oreach[s, w, y]
            reached[s, w] = opp > eps       # the opponent reaches it: the mover's regrets here can change
            own = 0.0
            for x in range(n):
                own += mreach[s, w, x]
            own_reached[s, w] = own > 0.0
            if tot == 0.0 and not active[s, w]:
                continue
            base = rbase[s] + act_off[w] * n
            mine = phase < 0 or seat[s, w] == phase
            for j in range(1, act_off[w + 1] - act_off[w]):
                e = act_off[w] + j
                c = child[e]
                for y in range(ns[o]):
                    mreach[o, c, y] += oreach[s, w, y]
                for x in range(n):
                    oreach[o, c, x] += mreach[s, w, x] * strat[base + j * n + x]
                if not active[s, w]:
                    continue
                if warm:
                    p = _unreached(strat, mreach, s, w, base, n, j, eps)
                elif mine:
                    p = rbp and allocated[s, w] and _rbp_pruned(reg, strat, base, n, j)
                else:
                    p = partial and _unreached(strat, mreach, s, w, base, n, j, eps)
                pruned[s, e] = p
                if not p:
                    active[o, c] = True


@njit(cache=True)
def pruned_backward(strat, reg, ssum, V, mreach, oreach, active, exact_average, allocated, pruned, ns, oth, rc, claim_r, terminal, rbase,
                    order, act_off, last, child, NW, weight, phase, seat, bound_sign, stats, pair):
    """Backward pass of FSICFR over the active nodes with Linear CFR updates (regret += weight x instantaneous
    regret, strategy sum += weight x own reach x strategy) where ``seat[s, w] == phase`` (all: ``phase`` < 0).
    A pruned claim's counterfactual value is ``bound_sign`` x (the opponent's reach summed): its upper bound
    (+1, the pruning bound) or lower bound (-1, ``warm_start``).  ``stats``: [active nodes, claims visited,
    claims pruned] of the pass (added to)."""
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
            if not active[s, w]:
                if exact_average and (phase < 0 or seat[s, w] == phase):
                    # not visited, its regrets unchanged (no opponent reach): only the strategy sum grows
                    n = ns[s]
                    base = rbase[s] + act_off[w] * n
                    for idx in range(base + (1 if L < 0 else 0) * n, base + na * n):
                        ssum[idx] += weight * mreach[s, w, (idx - base) % n] * strat[idx]
                continue
            stats[0] += 1
            n = ns[s]
            o = oth[s]
            no = ns[o]
            base = rbase[s] + act_off[w] * n
            q = oreach[s, w]
            qsum = 0.0
            for y in range(no):
                qsum += q[y]
            B[:n * no] = 0.0
            gbar[:n] = 0.0
            if L >= 0:
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
                if pruned[s, act_off[w] + j]:        # its value: the bound (only used where regrets update)
                    stats[2] += 1
                    for x in range(n):
                        G[j, x] = bound_sign * qsum
                    continue
                stats[1] += 1
                c = child[act_off[w] + j]
                vb = (o * NW + c) * pair
                for x in range(n):
                    sg = strat[base + j * n + x]
                    acc = 0.0
                    xo = x * no
                    if sg != 0.0:
                        for y in range(no):
                            vv = V[vb + xo + y]
                            acc -= q[y] * vv
                            B[xo + y] -= sg * vv
                    else:
                        for y in range(no):
                            acc -= q[y] * V[vb + xo + y]
                    G[j, x] = acc
                    gbar[x] += sg * acc
            if phase < 0 or seat[s, w] == phase:
                a0 = 1 if L < 0 else 0
                for j in range(a0, na):
                    for x in range(n):
                        idx = base + j * n + x
                        reg[idx] += weight * (G[j, x] - gbar[x])
                        if exact_average or allocated[s, w]:
                            ssum[idx] += weight * mreach[s, w, x] * strat[idx]
            sb = (s * NW + w) * pair
            for x in range(n):
                for y in range(no):
                    V[sb + y * n + x] = B[x * no + y]


class PrunedSolver:
    """Linear CFR with regret-based pruning on one group (``dag.Group``, any memory the window tables take,
    perfect recall included); ``prune=False`` is plain Linear CFR (every claim visited).  Alternating updates
    where the seats own separate nodes (two sides, or perfect recall), as ``abstract_cfr.FastSolver``."""

    def __init__(self, group: Group, prune: bool = True, partial: bool = True, exact_average: bool = False,
                 eps: float = 0.0, value_dtype=None):
        g = self.g = group
        self.prune = prune
        self.partial = partial
        self.exact_average = exact_average
        self.eps = float(eps)
        self.fallback = np.zeros(0)
        self.t = 0
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        self.reg = np.zeros(g.nrows)
        self.ssum = np.zeros(g.nrows)
        self.strat = np.zeros(g.nrows)
        maxn = int(g.ns.max())
        self.mreach = np.zeros((g.nsides, g.NW, maxn))
        self.oreach = np.zeros((g.nsides, g.NW, maxn))
        self.active = np.zeros((g.nsides, g.NW), dtype=np.bool_)
        self.allocated = np.zeros((g.nsides, g.NW), dtype=np.bool_)
        self.reached = np.zeros((g.nsides, g.NW), dtype=np.bool_)
        self.own_reached = np.zeros((g.nsides, g.NW), dtype=np.bool_)
        self.pruned = np.zeros((g.nsides, int(g.act_off[-1])), dtype=np.bool_)
        self.pair = int(g.ns[0]) * int(g.ns[-1])
        nv = g.nsides * g.NW * self.pair
        if value_dtype is None:      # float32 node values past 256 MB (as FastSolver past 1 GB)
            value_dtype = np.float64 if nv * 8 <= 1 << 28 else np.float32
        self.V = np.zeros(nv, dtype=value_dtype)
        self.seat = np.zeros((g.nsides, g.NW), dtype=np.int64)
        self.alternate = g.nsides == 2 or is_perfect_recall(g.K, g.m)
        if g.nsides == 2:
            self.seat[1, :] = 1
        elif self.alternate:        # one side with perfect recall: the seat is the parity of the history
            self.seat[0, :] = g.wsize % 2
        self.stats = np.zeros(3, dtype=np.int64)      # active nodes, claims visited, claims pruned (summed)
        self.peak_active = 0

    def _pass(self, weight, phase, bound_sign=1.0, warm=False):
        g = self.g
        active_reach(self.strat, self.reg, self.pruned, self.mreach, self.oreach, self.active, self.reached,
                     self.own_reached,
                     self.allocated, g.ns, g.oth, g.probs, g.root_w, g.rbase, g.order, g.act_off, g.child, g.NW,
                     self.seat, phase, self.prune, self.partial, warm, self.eps if self.fallback.size else 0.0)
        self.allocated |= self.reached
        if not self.fallback.size:      # no shorter strategy to fall back on: keep every strategy sum
            self.allocated |= self.own_reached
        self.peak_active = max(self.peak_active, int(self.active.sum()))
        pruned_backward(self.strat, self.reg, self.ssum, self.V, self.mreach, self.oreach, self.active,
                        self.exact_average or not self.fallback.size, self.allocated, self.pruned, g.ns, g.oth, g.rc, g.claim_r, g.terminal, g.rbase, g.order,
                        g.act_off, g.last, g.child, g.NW, float(weight), phase, self.seat, float(bound_sign),
                        self.stats, self.pair)

    def fsicfr_iteration(self):
        """One iteration: regret matching, the forward and the pruned backward pass (per seat when
        alternating), Linear CFR weight t."""
        g = self.g
        t0, c0 = time.perf_counter(), time.process_time()
        self.t += 1
        for phase in ((0, 1) if self.alternate else (-1,)):
            lcfr_strategy(self.reg, self.strat, g.ns, g.rbase, g.NW, g.act_off, g.last, self.allocated,
                          self.fallback)
            self._pass(self.t, phase)
        self.seconds += time.perf_counter() - t0
        self.cpu_seconds += time.process_time() - c0

    def solve(self, iterations: int, progress: bool = False, desc: str = "", **kw):
        from games.dudo.solvers.training import train
        return train(self, iterations, None, 0, progress, desc or f"dudo pruned {self.g.dice}")

    def warm_start(self, strat: np.ndarray, weight: float):
        """Regrets and strategy sums from ``strat`` (a strategy on this group's DAG, e.g. ``lift_shorter``), as if
        it had been played with total Linear CFR weight ``weight`` (see the module doc); only the nodes it reaches
        are allocated.  Before the first iteration."""
        if self.t:
            raise ValueError("warm_start goes before the first iteration")
        g = self.g
        c0 = time.process_time()
        self.strat[:] = strat
        self.fallback = np.array(strat, dtype=np.float64)
        for phase in ((0, 1) if self.alternate else (-1,)):
            self._pass(weight, phase, bound_sign=-1.0, warm=True)     # the strategy sums too: the shorter
        # strategy counts in the average with the weight of ``weight`` (Linear CFR: iteration t weighs t)
        self.cpu_seconds += time.process_time() - c0

    def average_strategy(self) -> np.ndarray:
        g = self.g
        out = np.zeros(g.nrows)
        average_with_fallback(self.ssum, out, g.ns, g.rbase, g.NW, g.act_off, g.last, self.fallback)
        return out

    def sparse_rows(self) -> int:
        """(node, action, roll) rows of the nodes ever visited: what a table allocated by reach holds."""
        g = self.g
        na = np.diff(g.act_off)
        return int(sum(int((na * self.allocated[s]).sum()) * int(g.ns[s]) for s in range(g.nsides)))

    def sparse_mb(self) -> float:
        """Memory of a table sparse by reach for this run: regrets and strategy sums (float64) of the rows
        ever visited, and one value matrix (float32) per node visited at once at most."""
        g = self.g
        pair = int(g.ns[0]) * int(g.ns[-1])
        return (self.sparse_rows() * 16 + self.peak_active * pair * 4) / 1e6

    def dense_mb(self) -> float:
        """The same table dense: every node's rows and value matrix."""
        g = self.g
        pair = int(g.ns[0]) * int(g.ns[-1])
        return (g.nrows * 16 + g.nsides * g.NW * pair * 4) / 1e6


def lift_shorter(fine: Group, coarse: Group, coarse_strat: np.ndarray) -> np.ndarray:
    """A strategy of plain memory ``coarse.m`` on the DAG of a longer plain memory (or perfect recall)
    ``fine.m``: every fine window plays the row of the coarse window of its last ``coarse.m`` claims."""
    if fine.K != coarse.K or fine.dice != coarse.dice:
        raise ValueError("lift_shorter: the two groups are not the same dice")
    out = np.zeros(fine.nrows)
    mc = coarse.m
    for w in range(fine.NW):
        win = window_from_index(w, fine.K, fine.m)
        cw = window_index(win if mc is None else win[max(0, len(win) - mc):], coarse.K, mc)
        na = int(fine.act_off[w + 1] - fine.act_off[w])
        for s in range(fine.nsides):
            n = int(fine.ns[s])
            fb = int(fine.rbase[s] + fine.act_off[w] * n)
            cb = int(coarse.rbase[s] + coarse.act_off[cw] * n)
            out[fb:fb + na * n] = coarse_strat[cb:cb + na * n]
    return out
