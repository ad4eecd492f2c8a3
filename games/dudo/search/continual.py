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
* vector CFR+ over rolls (alternating updates, linear averaging) solves each subgame.

Every re-solve depends on the history only (not on the requester's roll), so the policy is a
deterministic function of (history, roll), and ``seat_best_response`` can measure it exactly by one
walk over the round's claim histories with a re-solve at each requester decision it reaches.

Subgame layout: nodes in breadth-first order (node 0 the root; node i's children, claims
``last[i] + 1 ..``, are ``cfirst[i] ..``), node i's block of a per-(node, action, roll) array starts at
``off[i]``: interior nodes ``(K - last) * n_mover`` entries (slot 0 Dudo, slot j claim ``last + j``,
entry ``j * n + x``), leaves ``C * n_opp`` (the opponent's continuation choice, entry ``c * n + y``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from math import comb

import numpy as np
from numba import njit

from games.dudo.search.endgame import GADGETS, OPP, REQ, _gadget_update, _root_reach, _seat_arrays, utility_tables
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import history_window
from games.dudo.solvers.kernels import br_backward
from games.dudo.rules import roll_arrays
from games.dudo.solvers.tree_cfr import regret_match


# --------------------------------------------------------------------------------------------
# kernels

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
def _leaf_value(Vc, c, voff, side, win, mover, nR, nO, x, y):
    """Value to the requester (roll x) against the opponent (roll y) at a leaf under continuation c."""
    p = mover
    s = side[p]
    if p == REQ:
        return Vc[c, voff[s] + win * (nR * nO) + y * nR + x]
    return -Vc[c, voff[s] + win * (nR * nO) + x * nO + y]


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
def _pass(upd, t, last, cfirst, nch, mover, leaf, off, win, reg, ssum, sig, rR, rO, vR, vO, ns, rc,
          claim_r, U, Vc, voff, side, K, D, cnt, gc, br):
    """One CFR+ pass (``upd`` the updating seat; ``upd < 0``: no update) given the strategies ``sig``
    and the root reaches rR[0], rO[0]: forward reaches, then counterfactual values vR, vO (requester,
    opponent) bottom-up; with ``br`` the opponent best-responds (its values maximised per roll)."""
    N = last.size
    nR = ns[REQ]
    nO = ns[OPP]
    C = Vc.shape[0]
    forward_reaches(cfirst, nch, mover, off, sig, rR, rO, ns)
    for i in range(N - 1, -1, -1):
        lo = off[i]
        for x in range(nR):
            vR[i, x] = 0.0
        for y in range(nO):
            vO[i, y] = -1e300 if (br and (leaf[i] or mover[i] == OPP)) else 0.0
        if leaf[i]:
            for c in range(C):
                for y in range(nO):
                    acc = 0.0
                    for x in range(nR):
                        acc -= rR[i, x] * _leaf_value(Vc, c, voff, side, win[i], mover[i], nR, nO, x, y)
                    gc[c, y] = acc
                    if br:
                        if acc > vO[i, y]:
                            vO[i, y] = acc
                    else:
                        vO[i, y] += sig[lo + c * nO + y] * acc
            if not br:
                for x in range(nR):
                    acc = 0.0
                    for y in range(nO):
                        if rO[i, y] != 0.0:
                            u = 0.0
                            for c in range(C):
                                u += sig[lo + c * nO + y] * _leaf_value(Vc, c, voff, side, win[i], mover[i],
                                                                        nR, nO, x, y)
                            acc += rO[i, y] * u
                    vR[i, x] = acc
            if upd == OPP:
                for c in range(C):
                    for y in range(nO):
                        idx = lo + c * nO + y
                        r = reg[idx] + gc[c, y] - vO[i, y]
                        reg[idx] = r if r > 0 else 0.0
            continue
        p = mover[i]
        q = 1 - p
        n = ns[p]
        no = ns[q]
        L = last[i]
        rp = rR[i] if p == REQ else rO[i]
        rq = rO[i] if p == REQ else rR[i]
        vp = vR[i] if p == REQ else vO[i]
        vq = vO[i] if p == REQ else vR[i]
        best = br and p == OPP
        if L >= 0:                     # Dudo: slot 0
            r = claim_r[L] - 1
            for tt in range(D + 1):
                cnt[tt] = 0.0
            for y in range(no):
                cnt[rc[q, y, r]] += rq[y]
            for x in range(n):
                cx = rc[p, x, r]
                acc = 0.0
                for tt in range(D + 1 - cx):
                    if cnt[tt] != 0.0:
                        acc += cnt[tt] * U[p, L, cx + tt]
                gc[0, x] = acc
            for tt in range(D + 1):
                cnt[tt] = 0.0
            for x in range(n):
                cnt[rc[p, x, r]] += rp[x] * (1.0 if best else sig[lo + x])
            for y in range(no):
                cy = rc[q, y, r]
                acc = 0.0
                for tt in range(D + 1 - cy):
                    if cnt[tt] != 0.0:
                        acc -= cnt[tt] * U[p, L, tt + cy]
                if not best:
                    vq[y] += acc
            for x in range(n):
                if best:
                    vp[x] = gc[0, x]
                else:
                    vp[x] += sig[lo + x] * gc[0, x]
        for j in range(1, nch[i] + 1):
            ch = cfirst[i] + j - 1
            cvp = vR[ch] if p == REQ else vO[ch]
            cvq = vO[ch] if p == REQ else vR[ch]
            for x in range(n):
                if best:
                    if cvp[x] > vp[x]:
                        vp[x] = cvp[x]
                else:
                    vp[x] += sig[lo + j * n + x] * cvp[x]
            if not best:
                for y in range(no):
                    vq[y] += cvq[y]
        if upd == p:
            a0 = 1 if L < 0 else 0
            na = K - L
            for j in range(a0, na):
                for x in range(n):
                    g = gc[0, x] if j == 0 else (vR[cfirst[i] + j - 1, x] if p == REQ
                                                 else vO[cfirst[i] + j - 1, x])
                    idx = lo + j * n + x
                    r = reg[idx] + g - vp[x]
                    reg[idx] = r if r > 0 else 0.0
                    if p == REQ:
                        ssum[idx] += t * rp[x] * sig[idx]


@njit(cache=True, nogil=True)
def _strategies(reg, sig, last, mover, leaf, off, ns, K, C):
    """Regret matching (Neller & Hnath Eq. 5) at every node and leaf choice."""
    for i in range(last.size):
        if leaf[i]:
            regret_match(reg, sig, off[i], C, ns[OPP], 0)
        else:
            L = last[i]
            regret_match(reg, sig, off[i], K - L, ns[mover[i]], 1 if L < 0 else 0)


@njit(cache=True, nogil=True)
def cfr_plus_resolve(iters, gadget, use_gadget, last, cfirst, nch, mover, leaf, off, win, reg, ssum,
                     sig, rR, rO, vR, vO, ns, rc, claim_r, U, Vc, voff, side, K, D, reach_req,
                     prior_opp, target, greg, qroot):
    """``iters`` alternating CFR+ iterations (linear averaging) on the depth-limited subgame, with the
    re-solving gadget at the root when ``use_gadget`` (else the opponent enters with ``prior_opp``)."""
    nR = ns[REQ]
    nO = ns[OPP]
    C = Vc.shape[0]
    cnt = np.zeros(D + 2)
    gc = np.zeros((max(C, 1), max(nR, nO)))
    for t in range(1, iters + 1):
        if use_gadget:
            _root_reach(gadget, greg, prior_opp, prior_opp, qroot)
        else:
            for y in range(nO):
                qroot[y] = prior_opp[y]
        for upd in range(2):
            _strategies(reg, sig, last, mover, leaf, off, ns, K, C)
            for x in range(nR):
                rR[0, x] = reach_req[x]
            for y in range(nO):
                rO[0, y] = qroot[y]
            _pass(upd, float(t), last, cfirst, nch, mover, leaf, off, win, reg, ssum, sig, rR, rO, vR, vO,
                  ns, rc, claim_r, U, Vc, voff, side, K, D, cnt, gc, False)
        if use_gadget:
            _gadget_update(gadget, greg, vO[0, :nO].copy(), target, qroot)


@njit(cache=True, nogil=True)
def average_and_best_response(last, cfirst, nch, mover, leaf, off, win, reg, ssum, sig, rR, rO, vR, vO, ns,
                              rc, claim_r, U, Vc, voff, side, K, D, reach_req):
    """The requester's average strategy (in ``sig`` at its nodes; its regret-matched current strategy
    where it never reached a node), then the opponent's best-response counterfactual values vO at every
    node against it (the opponent chooses its best continuation at each leaf)."""
    C = Vc.shape[0]
    nR = ns[REQ]
    _strategies(reg, sig, last, mover, leaf, off, ns, K, C)
    for i in range(last.size):
        if leaf[i] or mover[i] != REQ:
            continue
        L = last[i]
        a0 = 1 if L < 0 else 0
        na = K - L
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
    for y in range(ns[OPP]):
        rO[0, y] = 1.0
    cnt = np.zeros(D + 2)
    gc = np.zeros((max(C, 1), max(nR, ns[OPP])))
    _pass(-1, 0.0, last, cfirst, nch, mover, leaf, off, win, reg, ssum, sig, rR, rO, vR, vO, ns, rc,
          claim_r, U, Vc, voff, side, K, D, cnt, gc, True)


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
class Resolve:
    """One depth-limited re-solve: the requester's strategy at the root ([slot, roll]) and the
    opponent's best-response values at every subgame node (targets of the next re-solves)."""
    root_strategy: np.ndarray | None
    vO: np.ndarray
    cfirst: np.ndarray
    L0: int
    seconds: float

    def target(self, claims) -> np.ndarray:
        """The opponent's values at the node ``claims`` (strengths) below the root."""
        i, L = 0, self.L0
        for c in claims:
            i = int(self.cfirst[i]) + (c - L - 1)
            L = c
        return self.vO[i]


@dataclass
class ContinualResolver:
    """The requester's policy in one round (``own`` dice against ``opp``; ``opened``: it opens):
    depth-``depth`` re-solves with ``iterations`` CFR+ iterations, leaves from ``cont``."""
    own: int
    opp: int
    opened: bool
    W: dict
    cont: Continuations
    depth: int = 4
    iterations: int = 200
    gadget: str = "resolve"
    stats: dict = field(default_factory=lambda: dict(resolves=0, seconds=0.0, times=[]))

    def __post_init__(self):
        if self.depth < 2:
            raise ValueError("depth-limited re-solving needs depth >= 2 (the next decision's targets)")
        self.K = 6 * (self.own + self.opp)
        self.D = self.own + self.opp
        self.ns, self.rc, self.claim_r = _seat_arrays(self.own, self.opp)
        self.U = utility_tables(self.own, self.opp, self.W)
        self.prior_req = roll_arrays(self.own)[0].copy()
        self.prior_opp = roll_arrays(self.opp)[0].copy()

    def mover(self, k: int) -> int:
        return REQ if (k % 2 == 0) == self.opened else OPP

    def resolve(self, history, reach_req, target=None) -> Resolve:
        """Re-solve the depth-limited subgame after ``history`` (strengths) with the requester's range
        ``reach_req`` (per roll, unnormalised) and, unless None, the opponent's targets at the root."""
        t0 = time.perf_counter()
        history = tuple(int(c) for c in history)
        K, ns = self.K, self.ns
        k0 = len(history)
        L0 = history[-1] if history else -1
        R = K - 1 - L0
        d = min(self.depth, R)
        N = sum(comb(R, j) for j in range(d + 1))
        C = self.cont.Vc.shape[0]
        p0 = self.mover(k0)
        last, depth, cfirst, nch, mover, leaf, off = subgame_layout(L0, self.depth, K, N, p0, ns, C)
        w0 = history_window(history, K, self.cont.memory)
        win = leaf_windows(w0, cfirst, nch, self.cont.act_off, self.cont.child)
        rows = int(off[-1])
        reg = np.zeros(rows)
        ssum = np.zeros(rows)
        sig = np.zeros(rows)
        rR = np.zeros((N, int(ns[REQ])))
        rO = np.zeros((N, int(ns[OPP])))
        vR = np.zeros_like(rR)
        vO = np.zeros_like(rO)
        reach_req = np.asarray(reach_req, dtype=np.float64)
        use_gadget = target is not None
        tgt = np.zeros(int(ns[OPP])) if target is None else np.asarray(target, dtype=np.float64)
        greg = np.zeros((2, int(ns[OPP])))
        qroot = np.zeros(int(ns[OPP]))
        cfr_plus_resolve(self.iterations, GADGETS[self.gadget], use_gadget, last, cfirst, nch, mover, leaf,
                         off, win, reg, ssum, sig, rR, rO, vR, vO, ns, self.rc, self.claim_r, self.U,
                         self.cont.Vc, self.cont.voff, self.cont.side, K, self.D, reach_req, self.prior_opp,
                         tgt, greg, qroot)
        average_and_best_response(last, cfirst, nch, mover, leaf, off, win, reg, ssum, sig, rR, rO, vR, vO,
                                  ns, self.rc, self.claim_r, self.U, self.cont.Vc, self.cont.voff,
                                  self.cont.side, K, self.D, reach_req)
        root = None
        if p0 == REQ:
            n = int(ns[REQ])
            root = sig[off[0]:off[1]].reshape(K - L0, n).copy()
        dt = time.perf_counter() - t0
        self.stats["resolves"] += 1
        self.stats["seconds"] += dt
        self.stats["times"].append(dt)
        return Resolve(root, vO, cfirst, L0, dt)

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

def seat_best_response(policy: ContinualResolver, V_resp: np.ndarray, min_reach: float = 0.0) -> float:
    """Perfect-recall best responder's value (``V_resp[s, L, t]``: its payoff when seat s challenges claim
    L and t dice count; seat 0 = the policy's player) against ``policy`` in its seat, exactly: one walk
    over every claim history with the re-solve the policy makes at each of its decisions.  Histories the
    policy's player reaches with total probability at most ``min_reach`` contribute nothing (exact at 0)."""
    K, D = policy.K, policy.D
    ns, rc, claim_r = policy.ns, policy.rc, policy.claim_r
    nr, no = int(ns[REQ]), int(ns[OPP])
    idx = np.arange(D + 1)

    def dudo(L, weights, p):
        r = claim_r[L] - 1
        c = np.bincount(rc[REQ, :nr, r], weights=weights, minlength=D + 1)
        t = np.minimum(idx[:, None] + rc[OPP, :no, r][None, :], D)
        return c @ V_resp[p, L][t]

    def walk(hist, rr, res, kr):
        """Responder's values per roll below ``hist``; ``res``: the last re-solve above it, rooted after
        ``kr`` claims (None: the round's root is the requester's first decision)."""
        k = len(hist)
        L = hist[-1] if hist else -1
        if rr.sum() <= min_reach:
            return np.zeros(no)
        if policy.mover(k) == REQ:
            mine = policy.resolve(hist, rr, None if res is None else res.target(hist[kr:]))
            P = mine.root_strategy
            out = dudo(L, rr * P[0], REQ) if L >= 0 else np.zeros(no)
            for cl in range(L + 1, K):
                out = out + walk(hist + (cl,), rr * P[cl - L], mine, k)
            return out
        out = dudo(L, rr, OPP) if L >= 0 else np.full(no, -np.inf)
        for cl in range(L + 1, K):
            out = np.maximum(out, walk(hist + (cl,), rr, res, kr))
        return out

    rr0 = policy.prior_req.copy()
    first = policy.resolve((), rr0) if policy.mover(0) == OPP else None   # targets of the first decisions
    v = walk((), rr0, first, 0)
    return float(policy.prior_opp @ v)
