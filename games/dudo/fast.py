"""Full-width FSICFR with CFR+ regret updates on the abstract public DAG of a Dudo group.

Each iteration is Algorithm 2 (FSICFR) done for every pair of rolls at once: a forward pass
sums, per abstract public node, the reach of every roll of each player over all paths, and a
backward pass computes the node's value for every roll pair (a matrix) from its children and
updates the regrets of every (node, roll) information set.  Regrets follow CFR+ (floored at
zero), optionally predictive CFR+ (default) or discounted CFR, and the average strategy is
weighted by ``t ** avg_power``.
Strategies of all information sets stay fixed during an iteration (simultaneous updates).

Array layout (one group, see ``game.Group``): regrets / strategies are flat float64 arrays;
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
"""
from __future__ import annotations

import os
import time

import numpy as np
from numba import njit

from .game import Group


@njit(cache=True, inline="always")
def update_regret(reg, pred, ssum, strat, idx, inst, mode, pos_disc, neg_disc, avg_reach):
    """One information set's regret update with instantaneous regret ``inst``: CFR+ (mode 0, floored
    at zero), discounted CFR (1) or predictive CFR+ (2, keeps ``inst``); then the average strategy sum,
    weighted by ``avg_reach`` (averaging weight x own reach)."""
    r = reg[idx] + inst
    if mode == 1:
        reg[idx] = r * pos_disc if r > 0 else r * neg_disc
    else:
        reg[idx] = r if r > 0 else 0.0
        if mode == 2:
            pred[idx] = inst
    ssum[idx] += avg_reach * strat[idx]


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


@njit(cache=True)
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


@njit(cache=True, fastmath=True)
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


class TrainingStopped(Exception):
    """Training stopped at an iteration boundary because a stop was asked for (checkpoint saved)."""


def train(solver, iterations: int, checkpoint: str | None = None, every: int = 0, progress: bool = True,
          desc: str = "", should_stop=None):
    """Run ``iterations`` of ``solver.fsicfr_iteration`` with a progress bar, saving to ``checkpoint``
    every ``every`` iterations and at the end; when ``should_stop()`` turns true (a graceful stop of the
    build), save and raise ``TrainingStopped`` at the iteration boundary (an ordinary exception, so it
    travels back from a worker process like any task error)."""
    from tqdm import tqdm
    for i in tqdm(range(iterations), desc=desc, disable=not progress, leave=False):
        solver.fsicfr_iteration()
        if checkpoint and every and (i + 1) % every == 0:
            solver.save(checkpoint)
        if should_stop is not None and should_stop():
            if checkpoint:
                solver.save(checkpoint)
            raise TrainingStopped(f"{desc}: stopped after iteration {solver.t}")
    if checkpoint:
        solver.save(checkpoint)
    return solver


class FastSolver:
    """Full-width FSICFR + CFR+ on one group; resumable via ``save``/``load``."""

    MODES = {"cfr+": 0, "dcfr": 1, "pcfr+": 2}

    def __init__(self, group: Group, mode: str = "auto", avg_power: float | None = None,
                 alpha: float = 1.5, beta: float = 0.0, value_dtype=None,
                 alternate: bool = True, kernel: str = "auto", train: bool = True):
        """``mode="auto"``: alternating CFR+ with linear averaging where the seats own separate
        nodes (two sides, or perfect recall), else simultaneous predictive CFR+ with quadratic
        averaging (measured fastest on 1v1).  ``kernel``: "blocked" (``blocked_backward``, node
        values in a slot pool) or "reference" (``fsicfr_backward``, one value matrix per node);
        "auto" takes the reference kernel for 1v1, whose 6 x 6 matrices never made it memory-bound
        (there the blocked kernel's bookkeeping doubles the time), the blocked one elsewhere.
        ``train=False`` allocates no regret / strategy-sum arrays (evaluation and best response)."""
        g = self.g = group
        if mode == "auto":
            seats_split = g.nsides == 2 or g.m is None or g.m >= g.K
            mode = "cfr+" if (seats_split and alternate) else "pcfr+"
            if avg_power is None:
                avg_power = 1.0 if mode == "cfr+" else 2.0
        if avg_power is None:
            avg_power = 1.0
        if kernel == "auto":
            kernel = "reference" if int(g.ns[0]) * int(g.ns[-1]) <= 36 else "blocked"
        if kernel not in ("blocked", "reference"):
            raise ValueError(kernel)
        self.kernel = kernel
        self.mode = mode
        self.avg_power = avg_power
        self.alpha, self.beta = alpha, beta
        self.t = 0
        self.seconds = 0.0
        self.cpu_seconds = 0.0
        rows = g.nrows if train else 1
        self.reg = np.zeros(rows)
        self.ssum = np.zeros(rows)
        self.strat = np.zeros(rows)
        self.pred = np.zeros(rows if mode == "pcfr+" else 1)
        maxn = int(g.ns.max())
        self.mreach = np.zeros((g.nsides, g.NW, maxn))
        self.oreach = np.zeros((g.nsides, g.NW, maxn))
        # structural reachability (reach under the uniform strategy is positive)
        self.reachable = structural_reach(g.ns, g.oth, g.root_w, g.order, g.act_off, g.child, g.NW)
        pair = int(g.ns[0]) * int(g.ns[-1])
        if kernel == "blocked":
            self.blocks = suffix_classes(g)
            nvals = self.blocks["nslots"] * pair
        else:
            sizes = [g.NW * pair for s in range(g.nsides)]
            self.voff = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
            nvals = int(self.voff[-1])
        if value_dtype is None:   # float32 node values (and GEMMs) when float64 would pass 1 GB:
            # half the memory traffic and twice the BLAS rate (4v4 and larger at m = 3)
            value_dtype = np.float64 if nvals * 8 <= 1 << 30 else np.float32
        if kernel == "blocked":
            self.V = np.zeros((self.blocks["nslots"], pair), dtype=value_dtype)
        else:
            self.V = np.zeros(nvals, dtype=value_dtype)
        # seat of each node for alternating updates: the dice side, or the parity of the
        # history length under perfect recall; none when seats share abstract nodes
        self.seat = np.zeros((g.nsides, g.NW), dtype=np.int64)
        if g.nsides == 2:
            self.seat[1, :] = 1
            self.alternate = alternate
        elif g.m is None or g.m >= g.K:
            self.seat[0, :] = g.wsize % 2
            self.alternate = alternate
        else:
            self.alternate = False

    def root_matrix(self, s: int) -> np.ndarray:
        """Value matrix [opponent roll, own roll] of root (side s, empty window)."""
        g = self.g
        n, no = int(g.ns[s]), int(g.ns[g.oth[s]])
        if self.kernel == "blocked":
            return self.V[self.blocks["vslot"][s, 0]][:n * no].reshape(no, n)
        return self.V[self.voff[s]:self.voff[s] + n * no].reshape(no, n)

    def _rm(self, out):
        g = self.g
        regret_matching(self.reg, out, g.ns, g.rbase, g.NW, g.act_off, g.last, self.pred,
                        self.mode == "pcfr+")

    def _forward(self, strat):
        g = self.g
        forward_reach(strat, self.mreach, self.oreach, g.ns, g.oth, g.probs, g.root_w, g.rbase,
                      g.order, g.act_off, g.last, g.child, g.NW)

    def _backward(self, strat, update, avg_w=0.0, phase=-1, br_side=-1, choice=None):
        g = self.g
        t = float(max(self.t, 1))
        pos = t ** self.alpha / (t ** self.alpha + 1.0)
        neg = t ** self.beta / (t ** self.beta + 1.0)
        if self.kernel == "reference":
            fsicfr_backward(strat, self.reg, self.ssum, self.V, self.mreach, self.oreach, g.ns,
                            g.oth, g.rc, g.claim_r, g.terminal, g.rbase, g.order, g.act_off,
                            g.last, g.child, g.NW, self.reachable, update, avg_w,
                            self.MODES[self.mode], pos, neg, self.pred, self.seat, phase,
                            self.voff)
            return
        b = self.blocks
        if choice is None:
            choice = np.zeros(1, dtype=np.int64)
        blocked_backward(strat, self.reg, self.ssum, self.V, self.mreach, self.oreach, g.ns,
                         g.oth, g.rc, g.claim_r, g.terminal, g.rbase, g.act_off, g.last,
                         g.child, self.reachable, update, avg_w, self.MODES[self.mode], pos, neg,
                         self.pred, self.seat, phase, b["side"], b["rep"], b["off"],
                         b["members"], b["vslot"], b["maxp"], br_side, choice)

    def fsicfr_iteration(self):
        """One full-width FSICFR iteration (Algorithm 2 over all roll pairs) with CFR+ updates."""
        g = self.g
        t0 = time.perf_counter()
        c0 = time.process_time()
        self.t += 1
        for phase in ((0, 1) if self.alternate else (-1,)):
            self._rm(self.strat)
            self._forward(self.strat)
            self._backward(self.strat, True, float(self.t) ** self.avg_power, phase)
        self.seconds += time.perf_counter() - t0
        self.cpu_seconds += time.process_time() - c0

    def solve(self, iterations: int, checkpoint: str | None = None, every: int = 0,
              progress: bool = True, desc: str = "", should_stop=None):
        return train(self, iterations, checkpoint, every, progress, desc or f"dudo {self.g.dice}", should_stop)

    def average_strategy(self) -> np.ndarray:
        g = self.g
        out = np.zeros(g.nrows)
        normalize_average(self.ssum, out, g.ns, g.rbase, g.NW, g.act_off, g.last)
        return out

    def current_strategy(self) -> np.ndarray:
        g = self.g
        out = np.zeros(g.nrows)
        self._rm(out)
        return out

    def root_values(self, strat=None) -> np.ndarray:
        """Expected value (+-1) to the opener of each root (side) under ``strat`` (average)."""
        return evaluate(self, self.average_strategy() if strat is None else strat)

    def save(self, path: str):
        tmp = path + ".tmp.npz"
        np.savez(tmp, reg=self.reg, ssum=self.ssum, pred=self.pred, t=self.t, mode=self.mode, seconds=self.seconds,
                 dice=np.array(self.g.dice), m=-1 if self.g.m is None else self.g.m)
        os.replace(tmp, path)

    def load(self, path: str):
        z = np.load(path)
        if tuple(z["dice"]) != tuple(self.g.dice) or int(z["m"]) != (-1 if self.g.m is None else self.g.m):
            raise ValueError("checkpoint is for another group")
        self.reg[:] = z["reg"]
        self.ssum[:] = z["ssum"]
        self.pred[:] = z["pred"]
        self.t = int(z["t"])
        self.seconds = float(z["seconds"])
        return self


def evaluate(solver: FastSolver, strat: np.ndarray) -> np.ndarray:
    """Root values (+-1, opener's view) of a strategy profile on the solver's group."""
    g = solver.g
    solver._forward(strat)
    solver._backward(strat, False)
    vals = np.zeros(g.nsides)
    for s in range(g.nsides):
        n, no = g.ns[s], g.ns[g.oth[s]]
        M = solver.root_matrix(s)
        vals[s] = g.probs[g.oth[s], :no] @ M @ g.probs[s, :n]
    return vals


@njit(cache=True)
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
            for x in range(n):
                best = -1
                if s == br_side:
                    bestv = -1e300
                    for j in range(a0, na):
                        acc = 0.0
                        if j == 0:
                            cx = rc[s, x, r]
                            for y in range(no):
                                acc += oreach[s, w, y] * terminal[s, L, cx + rc[o, y, r]]
                        else:
                            vb = voff[o] + child[act_off[w] + j] * (no * n)
                            for y in range(no):
                                acc -= oreach[s, w, y] * V[vb + x * no + y]
                        if acc > bestv:
                            bestv = acc
                            best = j
                    choice[base + x] = best
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


def abstract_best_response(g: Group, strat: np.ndarray, br_side: int, kernel: str = "blocked",
                           build_response: bool = True):
    """Best response of side ``br_side`` restricted to the abstraction (it sees only its roll and
    the node), chosen by counterfactual value on the DAG.

    Returns the root values (+-1, each root's opener view) of (best response, ``strat``) and the
    response as a strategy table (None without ``build_response``).  The values are those of
    the pure response evaluated exactly: each node's value is computed from its children with
    the responder's chosen action (``kernel="reference"`` re-evaluates the table with
    ``evaluate``).  The response is a legal abstract strategy, so its gain is a lower bound on
    the best gain within the abstraction (exact when the DAG is a tree).
    """
    solver = FastSolver(g, mode="cfr+", alternate=False, kernel=kernel, train=False)
    solver._forward(strat)
    n = int(g.ns[br_side])
    lo, hi = int(g.rbase[br_side]), int(g.rbase[br_side + 1])
    if kernel == "reference":
        choice = np.full(g.nrows, -1, dtype=np.int64)
        br_backward(strat, solver.V, solver.oreach, g.ns, g.oth, g.rc, g.claim_r, g.terminal,
                    g.rbase, g.order, g.act_off, g.last, g.child, g.NW, solver.reachable, br_side,
                    solver.voff, choice)
    else:
        choice = np.full(g.nrows, -1, dtype=np.int8)    # slots < 128 (at most 6 * 10 + 1)
        solver._backward(strat, False, br_side=br_side, choice=choice)
        vals = np.zeros(g.nsides)
        for s in range(g.nsides):
            if g.root_w[s] > 0:
                no = g.ns[g.oth[s]]
                vals[s] = g.probs[g.oth[s], :no] @ solver.root_matrix(s) @ g.probs[s, :g.ns[s]]
        if not build_response:
            return vals, None
    # the response as a strategy table
    resp = strat.copy()
    resp[lo:hi] = 0.0
    for w in range(g.NW):
        base = lo + int(g.act_off[w]) * n
        for x in range(n):
            j = int(choice[base + x])
            if j >= 0:
                resp[base + j * n + x] = 1.0
            else:   # unreachable node: any legal action
                resp[base + (1 if g.last[w] < 0 else 0) * n + x] = 1.0
    if kernel == "reference":
        return evaluate(solver, resp), resp
    return vals, resp


# ---------------------------------------------------------------------------------------------
# Blocked backward pass: windows with identical child lists ("suffix classes") processed together

CLASS_CAP = 64   # members per block: bounds the workspace (windows ending in the last claim share
                 # the empty child list, up to C(K-1, m-1) of them)


def suffix_classes(g: Group, reachable=None, cap: int = CLASS_CAP):
    """Blocks of (side, windows) with identical child lists, in reverse topological order, and
    a pooled slot for every node's value matrix (freed after its last reader).

    Derived generically from ``g.child``/``g.act_off`` (any m, one or two sides): with memory m
    the children of a window depend only on its last m - 1 claims, so the windows sharing those
    (and the shorter windows at the round start) share their children.  Returns a dict with
    ``side``, ``rep`` (a member whose child list is the block's), ``off``/``members`` (CSR),
    ``vslot[s, w]`` and ``nslots``.
    """
    act_off, child, last = g.act_off, g.child, g.last
    groups = {}
    for w in range(g.NW):
        key = child[act_off[w] + 1:act_off[w + 1]].tobytes()
        groups.setdefault(key, []).append(w)
    blocks = []     # (last claim, side, first member, members)
    for ws in groups.values():
        L = int(last[ws[0]])
        assert all(int(last[w]) == L for w in ws), "a child list determines the last claim"
        for s in range(g.nsides):
            for i in range(0, len(ws), cap):
                blocks.append((L, s, ws[i], ws[i:i + cap]))
    # children have a stronger last claim than their parents: decreasing L is reverse topological
    blocks.sort(key=lambda b: (-b[0], b[1], b[2]))
    nb = len(blocks)
    side = np.array([b[1] for b in blocks], dtype=np.int64)
    rep = np.array([b[2] for b in blocks], dtype=np.int64)
    off = np.zeros(nb + 1, dtype=np.int64)
    off[1:] = np.cumsum([len(b[3]) for b in blocks])
    members = np.array([w for b in blocks for w in b[3]], dtype=np.int64)
    vslot, nslots = _assign_slots(side, rep, off, members, g.oth, act_off, child, g.nsides, g.NW)
    return dict(side=side, rep=rep, off=off, members=members, vslot=vslot, nslots=int(nslots),
                maxp=int(np.diff(off).max()) if nb else 1)


@njit(cache=True)
def _assign_slots(side, rep, off, members, oth, act_off, child, nsides, NW):
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


@njit(cache=True)
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


@njit(cache=True, fastmath=True)
def blocked_backward(strat, reg, ssum, V, mreach, oreach, ns, oth, rc, claim_r, terminal, rbase,
                     act_off, last, child, reachable, update, avg_w, mode, pos_disc, neg_disc,
                     pred, seat, phase, bside, brep, boff, bmem, vslot, maxp, br_side, choice):
    """Algorithm 2 (FSICFR) backward pass over all roll pairs, blocked by suffix class: GEMMs.

    Same results as ``fsicfr_backward`` (up to summation order) but every child's value matrix
    is read once per block of parents sharing the child list: per child j the parents'
    counterfactual values are G[p, j, :] = -Q @ V_j^T (Q: the parents' opponent reach), and per
    own roll x the parents' node values are B[p, x, :] = S_x @ (-V_j[x, :])_j (S_x: their
    strategies at x), in V's dtype (G by BLAS, B by a loop skipping zero probabilities).  V is the slot pool (nslots, n0 * n1):
    V[vslot[s, w], y * n + x] is the value (+-1) to the mover of (s, w) with roll x against y.
    Regrets are computed only where they are updated.  With ``br_side >= 0`` that side plays a
    best response by counterfactual value (first best slot, stored in ``choice``) instead of
    ``strat``, as ``br_backward``.
    """
    nsd = ns.size
    maxn = 0
    for s in range(nsd):
        maxn = max(maxn, ns[s])
    maxna = act_off[1] - act_off[0]
    dt = V.dtype
    Qb = np.empty(maxp * maxn, dtype=dt)
    Sb = np.empty(maxp * maxna, dtype=dt)
    Xb = np.empty(maxna * maxn, dtype=dt)
    Tb = np.zeros(maxn * maxn, dtype=dt)
    Bout = np.empty((maxp, maxn * maxn), dtype=dt)
    G = np.zeros((maxp, maxna, maxn))
    gbar = np.zeros(maxn)
    pw = np.empty(maxp, dtype=np.int64)
    upd = np.zeros(maxp, dtype=np.bool_)
    for k in range(bside.size):
        s = bside[k]
        w0 = brep[k]
        na = act_off[w0 + 1] - act_off[w0]
        L = last[w0]
        a0 = 1 if L < 0 else 0
        n = ns[s]
        o = oth[s]
        no = ns[o]
        P = 0
        need_g = False
        for i in range(boff[k], boff[k + 1]):
            w = bmem[i]
            if reachable[s, w]:
                pw[P] = w
                upd[P] = update and (phase < 0 or seat[s, w] == phase)
                need_g = need_g or upd[P]
                P += 1
        if P == 0:
            continue
        if s == br_side:
            need_g = True
        Q = Qb[:P * no].reshape((P, no))
        for p in range(P):
            for y in range(no):
                Q[p, y] = oreach[s, pw[p], y]
        T = Tb[:n * no].reshape((n, no))
        if L >= 0:
            r = claim_r[L] - 1
            for x in range(n):
                cx = rc[s, x, r]
                for y in range(no):
                    T[x, y] = terminal[s, L, cx + rc[o, y, r]]
        if need_g:
            if L >= 0:
                Gj = np.dot(Q, T.T)
                for p in range(P):
                    for x in range(n):
                        G[p, 0, x] = Gj[p, x]
            for j in range(1, na):
                Vj = V[vslot[o, child[act_off[w0] + j]]][:n * no].reshape((n, no))
                Gj = np.dot(Q, Vj.T)
                for p in range(P):
                    for x in range(n):
                        G[p, j, x] = -Gj[p, x]
        S = Sb[:P * na].reshape((P, na))
        X = Xb[:na * no].reshape((na, no))
        for x in range(n):
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
            # a few iterations), and skipping them beats the GEMM (4v4: 0.41 s vs 0.60 s)
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
                for x in range(n):
                    V[sl, y * n + x] = Bout[p, x * no + y]
        for p in range(P):
            if not upd[p]:
                continue
            base = rbase[s] + act_off[pw[p]] * n
            for x in range(n):
                gbar[x] = 0.0
            for j in range(a0, na):
                for x in range(n):
                    gbar[x] += strat[base + j * n + x] * G[p, j, x]
            for j in range(a0, na):
                for x in range(n):
                    idx = base + j * n + x
                    update_regret(reg, pred, ssum, strat, idx, G[p, j, x] - gbar[x], mode, pos_disc,
                                  neg_disc, avg_w * mreach[s, pw[p], x])
