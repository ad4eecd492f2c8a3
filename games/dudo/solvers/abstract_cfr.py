"""``FastSolver``: full-width FSICFR with CFR+ regret updates on one Dudo group (the numba kernels and
the array layout are in ``kernels``); ``evaluate`` and ``abstract_best_response`` on its DAG."""
from __future__ import annotations

import os
import time

import numpy as np

from games.dudo.abstraction.dag import Group
from games.dudo.abstraction.infoset import is_perfect_recall
from games.dudo.abstraction.precision import node_value_dtype
from games.dudo.solvers.kernels import (assign_slots, blocked_backward, blocked_backward_threads, br_backward, expected_value,
                      forward_reach, fsicfr_backward, normalize_average, regret_matching, structural_reach)
from games.dudo.solvers.training import train


TILED = 32      # FastSolver.tiled (``kernels.blocked_backward``): below it ``_gemm_fixed`` lost to the dot products


class FastSolver:
    """Full-width FSICFR + CFR+ on one group; resumable via ``save``/``load``."""

    MODES = {"cfr+": 0, "dcfr": 1, "pcfr+": 2, "record": 3}   # record: instantaneous regrets in pred only

    def __init__(self, group: Group, mode: str = "auto", avg_power: float | None = None,
                 alpha: float = 1.5, beta: float = 0.0, value_dtype=None,
                 alternate: bool = True, kernel: str = "auto", train: bool = True, threads: int = 1):
        """``mode="auto"``: CFR+ with linear averaging, alternating where the seats own separate
        nodes (two sides, or perfect recall), else simultaneous (``python -m research.dudo rules``: on
        2v2 and 3v3 at m = 3 it beat predictive CFR+ with quadratic averaging, the earlier choice from
        1v1, at every budget past the first seconds; DCFR and quadratic averaging lie in between).  ``kernel``: "blocked" (``blocked_backward``, node
        values in a slot pool) or "reference" (``fsicfr_backward``, one value matrix per node);
        "auto" takes the reference kernel for 1v1, whose 6 x 6 matrices never made it memory-bound
        (there the blocked kernel's bookkeeping doubles the time), the blocked one elsewhere.
        ``train=False`` allocates no regret / strategy-sum arrays (evaluation and best response).
        ``threads`` > 1 runs the blocked kernel's rolls on that many numba threads (the same bits); a
        callable is asked before every backward pass (``solve_game.SharedCores``)."""
        g = self.g = group
        if not callable(threads) and int(threads) < 1:
            raise ValueError(f"threads is {threads}; at least 1")
        self.threads = threads if callable(threads) else int(threads)
        if mode == "auto":
            mode = "cfr+"       # alternating only where the seats own their nodes (below)
        if avg_power is None:
            avg_power = 1.0
        if kernel == "auto":
            kernel = "reference" if int(g.ns[0]) * int(g.ns[-1]) <= 36 else "blocked"
        if kernel not in ("blocked", "reference"):
            raise ValueError(kernel)
        self.kernel = kernel
        # blocked kernel: ``kernels._gemm_fixed`` on blocks of at least 4 parents and 32 rolls a side (0: never,
        # 1: everywhere; the same bits)
        self.tiled = TILED
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
        self.pred = np.zeros(rows if mode in ("pcfr+", "record") else 1)
        maxn = int(g.ns.max())
        self.mreach = np.zeros((g.nsides, g.NW, maxn))
        self.oreach = np.zeros((g.nsides, g.NW, maxn))
        # structural reachability (reach under the uniform strategy is positive)
        self.reachable = structural_reach(g.ns, g.oth, g.root_w, g.order, g.act_off, g.child, g.NW)
        pair = int(g.ns[0]) * int(g.ns[-1])
        if kernel == "blocked":
            self.blocks = group_suffix_classes(g)
            nvals = self.blocks["nslots"] * pair
        else:
            sizes = [g.NW * pair for s in range(g.nsides)]
            self.voff = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
            nvals = int(self.voff[-1])
        if value_dtype is None:   # float32 past 1 GB (4v4 and larger at m = 3)
            value_dtype = node_value_dtype(nvals)
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
        elif is_perfect_recall(g.K, g.m):
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
        if choice is None:      # int8 as abstract_best_response's: one compiled kernel for both (a fresh clone
            choice = np.zeros(1, dtype=np.int8)     # compiled blocked_backward twice, 12 s of CPU more)
        args = (strat, self.reg, self.ssum, self.V, self.mreach, self.oreach, g.ns, g.oth, g.rc, g.claim_r,
                g.terminal, g.rbase, g.act_off, g.last, g.child, self.reachable, update, avg_w,
                self.MODES[self.mode], pos, neg, self.pred, self.seat, phase, b["side"], b["rep"], b["off"],
                b["members"], b["vslot"], b["maxp"], br_side, choice, int(self.tiled))
        threads = self.threads() if callable(self.threads) else self.threads
        if threads > 1:
            blocked_backward_threads(*args, threads)
        else:
            blocked_backward(*args)

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
                 dice=np.array(self.g.dice), m=str(self.g.m))
        os.replace(tmp, path)

    def load(self, path: str):
        z = np.load(path)
        if tuple(z["dice"]) != tuple(self.g.dice) or str(z["m"]) != str(self.g.m):
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
        vals[s] = expected_value(g.probs[g.oth[s], :no], M, g.probs[s, :n])
    return vals


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
                vals[s] = expected_value(g.probs[g.oth[s], :no], solver.root_matrix(s), g.probs[s, :g.ns[s]])
        if not build_response:
            return vals, None
    # the response as a strategy table: at each window and roll the chosen slot, at an unreachable node
    # (no choice) the window's first legal action
    resp = strat.copy()
    resp[lo:hi] = 0.0
    rows = lo + g.act_off[:g.NW, None] * n + np.arange(n)[None, :]      # (window, roll) -> its slot-0 row
    j = choice[rows].astype(np.int64)
    j = np.where(j >= 0, j, (g.last[:g.NW] < 0).astype(np.int64)[:, None])
    resp[rows + j * n] = 1.0
    if kernel == "reference":
        return evaluate(solver, resp), resp
    return vals, resp


# ---------------------------------------------------------------------------------------------
# Blocked backward pass: windows with identical child lists ("suffix classes") processed together

CLASS_CAP = 64   # members per block: bounds the workspace (windows ending in the last claim share
                 # the empty child list, up to C(K-1, m-1) of them)


def group_suffix_classes(g: Group) -> dict:
    """``suffix_classes(g)``, computed once per group object and kept on it: they depend on the DAG alone, and
    CFR-BR and the memory bounds build a solver on the same group every iteration (the kernels only read them)."""
    blocks = g.__dict__.get("_suffix_classes")
    if blocks is None:
        blocks = g.__dict__["_suffix_classes"] = suffix_classes(g)
    return blocks


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
    vslot, nslots = assign_slots(side, rep, off, members, g.oth, act_off, child, g.nsides, g.NW)
    return dict(side=side, rep=rep, off=off, members=members, vslot=vslot, nslots=int(nslots),
                maxp=int(np.diff(off).max()) if nb else 1)
