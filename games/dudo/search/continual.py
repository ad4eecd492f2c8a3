"""Continual depth-limited safe re-solving of a Dudo round from a windowed blueprint.

The window abstraction forgets claims older than its memory; search gives the player who asks for a
move (the *requester*) perfect recall instead: at each of its decisions it re-solves the next ``d``
claims of the round from the whole claim history, as DeepStack does (Moravcik et al., "DeepStack:
Expert-Level Artificial Intelligence in Heads-Up No-Limit Poker", Science 2017, continual
re-solving) with the leaves of Brown, Sandholm & Amos ("Depth-Limited Solving for
Imperfect-Information Games", NeurIPS 2018):

* the subgame is every claim sequence of at most ``d`` claims after the current history (Dudo ends
  it earlier);
* at a leaf (``d`` claims deep, the round not over) both players would go on with a continuation
  strategy whose value for every pair of rolls is read from the blueprint's value matrix of the
  leaf's window (a windowed strategy's value below a history depends only on its window): the
  requester goes on with the blueprint, the opponent *chooses per roll* among several of its own
  continuation strategies (here the blueprint and its abstract best response to the requester's
  blueprint, ``continuation_values``), so the requester cannot count on the opponent playing the
  blueprint below the leaf;
* the requester's range at the root is its chance prior times its own earlier re-solved
  probabilities of the claims it made (perfect recall); the opponent's range is replaced by the
  re-solving gadget (Burch, Johanson & Bowling 2014, ``endgame``'s "resolve" or "maxmargin") with the
  opponent's counterfactual best-response values at this history that the previous re-solve gave
  (its targets), so a re-solve keeps what the previous one promised;
* the first re-solve of the round is rooted at the round's start (chance's ranges, no gadget), also
  when the opponent opens (it then only supplies targets for the requester's first decisions);
* vector CFR+ or DCFR over rolls solves each subgame (``resolve.cfr_resolve``, the one kernel of every
  searched policy).

Every re-solve depends on the history only (not on the requester's roll), so the policy is a
deterministic function of (history, roll), and ``seat_best_response`` can measure it exactly by one
walk over the round's claim histories with a re-solve at each requester decision it reaches.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from math import comb

import numpy as np

from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import history_window
from games.dudo.rules import roll_arrays
from games.dudo.search.endgame import GADGETS, OPP, REQ, _seat_arrays, utility_tables
from games.dudo.search.resolve import (INT8_STEP, Resolve, cfr_resolve, leaf_bases, leaf_windows, regret_scheme,
                                      subgame_layout)
from games.dudo.solvers.kernels import br_backward


# --------------------------------------------------------------------------------------------
# continuation values from the blueprint

@dataclass
class Continuations:
    """Blueprint value matrices of one round's group for one requester seat: ``Vc[c]`` in the
    reference kernel's layout (``voff``; value to the mover of (side, window), ``y * n + x``), the group's
    window DAG (``act_off``, ``child``) and memory, and ``side[seat]`` the group side of each seat."""
    Vc: np.ndarray
    voff: np.ndarray
    side: np.ndarray
    act_off: np.ndarray
    child: np.ndarray
    memory: object
    K: int
    names: tuple
    # the continuations' rows of ``Vc`` (None: all, in order): a store keeps one blueprint matrix and a best
    # response per opponent side for both seats, and each seat reads its own two
    cidx: np.ndarray | None = None


def continuation_values(a: int, b: int, m, strat: np.ndarray, W, own: int, opened: bool,
                        kinds=("blueprint", "br")) -> Continuations:
    """Value matrices of every window of group {a, b} under the blueprint ``strat`` (memory ``m``) for
    both players ("blueprint") and under the requester's blueprint against the opponent's abstract
    best response to it ("br", ``kernels.br_backward``): the opponent's continuation strategies at the
    leaves (Brown, Sandholm & Amos 2018).  The requester holds ``own`` dice; ``opened``: it opens."""
    from games.dudo.solvers.abstract_cfr import FastSolver
    split = a == b
    g = make_group(a, b, m, W, split=split)
    if split:   # both seats play the shared strategy; side 0 opens
        full = np.concatenate([strat, strat])
        side = np.array([0, 1] if opened else [1, 0], dtype=np.int64)
    else:
        full = strat
        s = g.dice.index(own)
        side = np.array([s, 1 - s], dtype=np.int64)
    sol = FastSolver(g, kernel="reference", train=False)
    sol._forward(full)
    mats = []
    for kind in kinds:
        if kind == "blueprint":
            sol._backward(full, False)
        elif kind == "br":
            choice = np.full(g.nrows, -1, dtype=np.int64)
            br_backward(full, sol.V, sol.oreach, g.ns, g.oth, g.rc, g.claim_r, g.terminal, g.rbase, g.order,
                        g.act_off, g.last, g.child, g.NW, sol.reachable, int(side[OPP]), sol.voff, choice)
        else:
            raise ValueError(f"continuation {kind!r}: 'blueprint' or 'br'")
        mats.append(np.asarray(sol.V, dtype=np.float64).copy())
    return Continuations(np.stack(mats), sol.voff.astype(np.int64), side, g.act_off, g.child, m, g.K,
                         tuple(kinds))


# --------------------------------------------------------------------------------------------
# the policy

@dataclass
class ContinualResolver:
    """The requester's policy in one round (``own`` dice against ``opp``; ``opened``: it opens):
    depth-``depth`` re-solves of the full-width lookahead with ``iterations`` iterations of ``regrets``
    (``resolve.REGRET_SCHEMES``: "cfr+" or "dcfr"), leaves from ``cont`` (summed in float64 for float64
    matrices).  Variants change the lookahead (``_layout``) and the
    leaves' type (``V``), never the kernel."""
    own: int
    opp: int
    opened: bool
    W: dict
    cont: Continuations
    depth: int = 4
    iterations: int = 200
    gadget: str = "resolve"
    regrets: str = "cfr+"
    stats: dict = field(default_factory=lambda: dict(resolves=0, seconds=0.0, times=[]))

    def __post_init__(self):
        if self.depth < 2:
            raise ValueError("depth-limited re-solving needs depth >= 2 (the next decision's targets)")
        self.scheme = regret_scheme(self.regrets)
        self.K = 6 * (self.own + self.opp)
        self.D = self.own + self.opp
        self.ns, self.rc, self.claim_r = _seat_arrays(self.own, self.opp)
        self.U = utility_tables(self.own, self.opp, self.W)
        self.prior_req = roll_arrays(self.own)[0].copy()
        self.prior_opp = roll_arrays(self.opp)[0].copy()
        self.threads = 1
        if self.cont is not None:
            self.use_leaves(self.cont.Vc)

    def use_leaves(self, V: np.ndarray):
        """Read the leaves from ``V`` (``cont.Vc``'s layout; float64, float32, or int8 in steps of
        ``INT8_STEP``): sums in float64 for float64 leaves, else float32."""
        self.V = np.ascontiguousarray(V)
        self.vscale = INT8_STEP if self.V.dtype == np.int8 else 1.0
        self.acc_type = np.zeros(1, dtype=np.float64 if self.V.dtype == np.float64 else np.float32)
        self.cidx = (np.arange(self.V.shape[0], dtype=np.int64) if self.cont.cidx is None
                     else np.asarray(self.cont.cidx, dtype=np.int64))

    def mover(self, k: int) -> int:
        return REQ if (k % 2 == 0) == self.opened else OPP

    def resolve(self, history, reach_req, target=None, opp_range=None) -> Resolve:
        """Re-solve the depth-limited subgame after ``history`` (strengths) with the requester's range
        ``reach_req`` (per roll, unnormalised) and, unless None, the opponent's targets at the root (the
        gadget); without targets the opponent enters with ``opp_range`` (default its prior)."""
        t0 = time.perf_counter()
        history = tuple(int(c) for c in history)
        p0 = self.mover(len(history))
        L0 = history[-1] if history else -1
        last, cfirst, nch, mover, leaf, off, win = self._layout(history, L0, p0)
        sig, vO = self._solve(last, cfirst, nch, mover, leaf, off, win, reach_req, target, opp_range)
        root = self._root_strategy(sig, off, last, cfirst, nch, L0) if p0 == REQ else None
        dt = time.perf_counter() - t0
        self.stats["resolves"] += 1
        self.stats["seconds"] += dt
        self.stats["times"].append(dt)
        return Resolve(root, vO, cfirst, nch, last, L0, dt, int(last.size), int(leaf.sum()))

    def _layout(self, history, L0: int, p0: int):
        """(last, cfirst, nch, mover, leaf, off, win) of the subgame after ``history``: every claim."""
        R = self.K - 1 - L0
        N = sum(comb(R, j) for j in range(min(self.depth, R) + 1))
        last, _, cfirst, nch, mover, leaf, off = subgame_layout(L0, self.depth, self.K, N, p0, self.ns,
                                                                self.cidx.size)
        w0 = history_window(history, self.K, self.cont.memory)
        win = leaf_windows(w0, cfirst, nch, self.cont.act_off, self.cont.child)
        return last, cfirst, nch, mover, leaf, off, win

    def _solve(self, last, cfirst, nch, mover, leaf, off, win, reach_req, target, opp_range):
        """CFR+ or DCFR on the subgame (``resolve.cfr_resolve``): (strategies with the requester's average,
        the opponent's best-response values at every node)."""
        ns = self.ns
        nR, nO = int(ns[REQ]), int(ns[OPP])
        N, rows = last.size, int(off[-1])
        reg, ssum, sig = np.zeros(rows), np.zeros(rows), np.zeros(rows)
        rR, rO = np.zeros((N, nR)), np.zeros((N, nO))
        vR, vO = np.zeros_like(rR), np.zeros_like(rO)
        tgt = np.zeros(nO) if target is None else np.asarray(target, dtype=np.float64)
        prior = self.prior_opp if opp_range is None else np.asarray(opp_range, dtype=np.float64)
        lbase = leaf_bases(self.cont.voff, self.cont.side, mover, win, nR, nO)
        nchunks = self.threads if int(leaf.sum()) >= 4 * self.threads else 1
        cfr_resolve(self.iterations, GADGETS[self.gadget], target is not None, last, cfirst, nch, mover, leaf,
                         off, lbase, reg, ssum, sig, rR, rO, vR, vO, ns, self.rc, self.claim_r, self.U, self.V,
                         self.cidx, self.vscale, self.acc_type, self.K, self.D,
                         np.asarray(reach_req, dtype=np.float64), prior, tgt, np.zeros((2, nO)), np.zeros(nO),
                         nchunks, self.scheme)
        return sig, vO

    def _root_strategy(self, sig, off, last, cfirst, nch, L0: int) -> np.ndarray:
        """[slot, roll] at the root (slot j claim L0 + j; claims outside the subgame 0)."""
        nR = int(self.ns[REQ])
        root = np.zeros((self.K - L0, nR))
        blk = sig[off[0]:off[1]].reshape(nch[0] + 1, nR)
        root[0] = blk[0]
        for j in range(nch[0]):
            root[last[cfirst[0] + j] - L0] = blk[j + 1]
        return root

    def strategy(self, history):
        """[slot, roll] at the requester's decision after ``history``, by the chain of re-solves the
        round's claims lead through (what a server computes per request, keeping nothing between them)."""
        history = tuple(int(c) for c in history)
        if self.mover(len(history)) != REQ:
            raise ValueError("it is the opponent's turn after this history")
        rr = self.prior_req.copy()
        res = self.resolve((), rr)      # the round's root (the opponent's decision if it opens)
        k = 0
        if self.mover(0) == OPP:
            res = self.resolve(history[:1], rr, res.target(history[:1]))
            k = 1
        while k < len(history):         # the requester claimed history[k]; its next decision is k + 2
            L = history[k - 1] if k else -1
            rr = rr * res.root_strategy[history[k] - L]
            res = self.resolve(history[:k + 2], rr, res.target(history[k:k + 2]))
            k += 2
        return res.root_strategy


# --------------------------------------------------------------------------------------------
# exact evaluation

def seat_best_response(policy: ContinualResolver, V_resp: np.ndarray) -> float:
    """Perfect-recall best responder's value (``V_resp[s, L, t]``: its payoff when seat s challenges claim
    L and t dice count; seat 0 = the policy's player) against ``policy`` in its seat, exactly: one walk
    over every claim history with the re-solve the policy makes at each of its decisions."""
    return seat_best_response_bounds(policy, V_resp)[0]


def seat_best_response_bounds(policy: ContinualResolver, V_resp: np.ndarray,
                              min_reach: float = 0.0) -> tuple[float, float]:
    """``seat_best_response``'s value bracketed where the walk skips the histories the policy's player reaches
    with total probability at most ``min_reach`` (no re-solve below them): the lower end counts them as
    worth nothing to the responder, the upper as worth its best payoff at every roll the policy reaches them
    with, each carried up through the responder's max and the policy's sum, so both ends are exact bounds of
    the best response's value (equal at 0)."""
    K, D = policy.K, policy.D
    ns, rc, claim_r = policy.ns, policy.rc, policy.claim_r
    nr, no = int(ns[REQ]), int(ns[OPP])
    idx = np.arange(D + 1)
    best = float(V_resp.max())

    def dudo(L, weights, p):
        r = claim_r[L] - 1
        c = np.bincount(rc[REQ, :nr, r], weights=weights, minlength=D + 1)
        t = np.minimum(idx[:, None] + rc[OPP, :no, r][None, :], D)
        return c @ V_resp[p, L][t]

    def walk(hist, rr, res, kr):
        """Responder's values per roll below ``hist`` (lower, upper); ``res``: the last re-solve above it,
        rooted after ``kr`` claims (None: the round's root is the requester's first decision)."""
        k = len(hist)
        L = hist[-1] if hist else -1
        mass = rr.sum()
        if mass <= min_reach:
            return np.zeros(no), np.full(no, mass * best)
        if policy.mover(k) == REQ:
            mine = policy.resolve(hist, rr, None if res is None else res.target(hist[kr:]))
            P = mine.root_strategy
            lo = dudo(L, rr * P[0], REQ) if L >= 0 else np.zeros(no)
            hi = lo.copy()
            for cl in range(L + 1, K):
                a, b = walk(hist + (cl,), rr * P[cl - L], mine, k)
                lo, hi = lo + a, hi + b
            return lo, hi
        lo = dudo(L, rr, OPP) if L >= 0 else np.full(no, -np.inf)
        hi = lo.copy()
        for cl in range(L + 1, K):
            a, b = walk(hist + (cl,), rr, res, kr)
            lo, hi = np.maximum(lo, a), np.maximum(hi, b)
        return lo, hi

    rr0 = policy.prior_req.copy()
    first = policy.resolve((), rr0) if policy.mover(0) == OPP else None   # targets of the first decisions
    lo, hi = walk((), rr0, first, 0)
    return float(policy.prior_opp @ lo), float(policy.prior_opp @ hi)
