"""Safe endgame re-solving of a Dudo round with perfect recall.

Late in a round only the claims stronger than the last one remain, and the rest of the round (the
*endgame*: every claim sequence from the current public history on, ``2**R`` nodes for ``R``
remaining claims) is small enough to solve without forgetting anything.  Given a stored memory-m
strategy (the *blueprint*), the requester's strategy in the endgame is re-solved with the
re-solving gadget of Burch, Johanson & Bowling ("Solving Imperfect Information Games Using
Decomposition", AAAI 2014; "Resolve" in Brown & Sandholm, "Safe and Nested Subgame Solving",
NeurIPS 2017):

* the requester's range at the endgame's root is its blueprint reach per roll (chance times the
  blueprint's probabilities of its own earlier claims, ``ranges``);
* the opponent, per roll ``y``, either enters the endgame or takes its counterfactual best-response
  value against the blueprint in that endgame (``target``, the safe alternative); its trunk
  strategy does not enter (chance gives ``y`` its prior);
* vector CFR+ over rolls (alternating updates, linear averaging) solves the gadget game.  At an
  equilibrium of the gadget every opponent roll's best-response counterfactual value in the
  endgame is at most its target, so the re-solved strategy, played below the endgame's root with the
  blueprint above, is no more exploitable than the blueprint (Burch et al., Theorem 1).

``gadget="maxmargin"`` (the default) is the max-margin gadget (Moravcik et al., AAAI 2016): the
opponent chooses the roll that maximises its margin over the target, so the re-solve pushes every
roll's margin up, not just below zero.  Measured on 1v1 with a memory-3 blueprint it lowered the
round's exact exploitability about twice as much as "resolve" at the same iterations (and
converged faster), as Brown & Sandholm also report; ``gadget="unsafe"`` re-solves against the
opponent's blueprint posterior without any gadget (for comparison only: not safe).

Terminal values are those the blueprint was solved with: ``u = 2 P - 1`` with ``P`` the
challenger's probability of winning the game after the challenge, from ``W[(opener, other)]``
(the opener's game-winning probability of each later round, the store's round values).

Layout: the endgame's nodes are numbered in preorder (children by increasing claim), node ``i``
with last claim ``L`` has ``K - L`` action slots (slot 0 = Dudo, slot ``j`` = claim ``L + j``);
its block of a per-(node, action, roll) array starts at ``off[i]`` and holds ``(K - L) * n``
entries (``n`` = rolls of the player to move), entry ``off[i] + j * n + x``.
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.dudo.abstraction.dag import challenge_win_prob
from games.dudo.abstraction.infoset import (Faces, _binom_tables, _widx, history_window, memory_size, window_index_tables,
                      window_tables)
from games.dudo.cost import endgame_cost
from games.dudo.rules import claim_table, roll_arrays, roll_index
from games.dudo.solvers.tree_cfr import dudo_mover_values, dudo_other_values, node_reached, node_strategy

GADGETS = {"resolve": 0, "maxmargin": 1, "unsafe": 2}
REQ, OPP = 0, 1   # seats: the requester (whose strategy is re-solved) and its opponent


# --------------------------------------------------------------------------------------------
# kernels

@njit(cache=True, nogil=True)
def _mover(k, req_first):
    return REQ if (k % 2 == 0) == req_first else OPP


@njit(cache=True, nogil=True)
def _layout_rec(i, k, L, req_first, K, ns, size):
    """Fills size[i] for the subtree of node i (preorder); returns the next free node id."""
    size[i] = (K - L) * ns[_mover(k, req_first)]
    nxt = i + 1
    for c in range(L + 1, K):
        nxt = _layout_rec(nxt, k + 1, c, req_first, K, ns, size)
    return nxt


def endgame_layout(k0, L0, req_first, K, ns):
    """Block offsets ``off[N + 1]`` of the endgame rooted after ``k0`` claims, the last ``L0``
    (shared between calls: read-only).

    (The recursive kernels are called from Python only: a cached recursive numba function called
    from another jitted function crashes the next process that loads it from the cache, so the
    CFR+ pass, called from the jitted iteration loop, is written as a loop.)"""
    return _layout(_mover_py(int(k0), bool(req_first)) == REQ, int(L0), int(K), tuple(int(n) for n in ns))[0]


@functools.lru_cache(maxsize=256)
def _layout(req_at_root: bool, L0: int, K: int, ns: tuple):
    """(off, depth, last) of an endgame: block offsets and each node's history length (from a root of
    length 0, the requester moving there iff ``req_at_root``) and last claim; depends on nothing else."""
    N = 1 << (K - 1 - L0)
    nsa = np.array(ns, dtype=np.int64)
    size = np.zeros(N, dtype=np.int64)
    _layout_rec(0, 0, L0, req_at_root, K, nsa, size)
    off = np.zeros(N + 1, dtype=np.int64)
    np.cumsum(size, out=off[1:])
    depth = np.zeros(N, dtype=np.int64)
    last = np.zeros(N, dtype=np.int64)
    _node_info(0, 0, L0, K, depth, last)
    return off, depth, last


@njit(cache=True, nogil=True)
def _windows_rec(i, k, L, hist, req_first, K, mem_at, remap, binom, size_off, out):
    if _mover(k, req_first) == REQ:
        w = _widx(hist, k, mem_at[L + 1], binom, size_off)
        out[i] = remap[w] if remap.size > 0 else w
    nxt = i + 1
    for c in range(L + 1, K):
        hist[k] = c
        nxt = _windows_rec(nxt, k + 1, c, hist, req_first, K, mem_at, remap, binom, size_off, out)
    return nxt


def endgame_windows(hist, k0, L0, req_first, K, mem_at, remap, binom, size_off):
    """Blueprint window index of every requester node of the endgame (``infoset.window_index_tables``:
    the memory after each claim and a schedule's remap), -1 at the opponent's nodes; ``hist[:k0]`` is
    the root's history."""
    N = 1 << (K - 1 - L0)
    out = np.full(N, -1, dtype=np.int64)
    h = np.zeros(K + 1, dtype=np.int64)
    h[:k0] = hist[:k0]
    _windows_rec(0, int(k0), int(L0), h, bool(req_first), int(K), mem_at, remap, binom, size_off, out)
    return out


@njit(cache=True, nogil=True)
def _dag_windows_rec(i, k, L, w, req_first, K, act_off, child, out):
    if _mover(k, req_first) == REQ:
        out[i] = w
    nxt = i + 1
    for c in range(L + 1, K):
        nxt = _dag_windows_rec(nxt, k + 1, c, child[act_off[w] + c - L], req_first, K, act_off, child, out)
    return nxt


def endgame_windows_dag(w0, k0, L0, req_first, K, act_off, child):
    """``endgame_windows`` by following the blueprint's window DAG (``infoset.window_tables``) from the
    root's window ``w0``: for a memory whose index a history's last claims do not give (faces)."""
    out = np.full(1 << (K - 1 - L0), -1, dtype=np.int64)
    _dag_windows_rec(0, int(k0), int(L0), int(w0), bool(req_first), int(K), act_off, child, out)
    return out


def _node_histories(history, K: int):
    """Every endgame node's claim history, in the layout's preorder (children by increasing claim)."""
    out = []

    def walk(h):
        out.append(h)
        for c in range((h[-1] if h else -1) + 1, K):
            walk(h + (c,))
    walk(tuple(history))
    return out


@njit(cache=True, nogil=True)
def fill_blueprint(off, node_w, wpos, table, nr, N):
    """Requester's blueprint in endgame layout: node i's block copied from ``table`` at
    ``wpos[node_w[i]]`` (a window's [actions, rolls] block, same slot order)."""
    st = np.zeros(off[N])
    for i in range(N):
        w = node_w[i]
        if w < 0:
            continue
        p = wpos[w]
        for e in range(off[i + 1] - off[i]):
            st[off[i] + e] = table[p + e]
    return st


@njit(cache=True, nogil=True)
def _cfr_enter(i, k, L, req_first, upd, reach, cfv, sig, cnt, ns, rc, claim_r, U, off, reg, K):
    """Pre-visit of endgame node i (history length k, last claim L) in a CFR+ pass: zeroes the
    values; False if neither seat reaches the node, or in the opponent's pass if the requester does
    not (the opponent's values below are then zero and its regrets stay as they are: nothing below
    counts; the opponent's own reach is not kept in its pass, nothing in it needs that)."""
    p = _mover(k, req_first)
    q = 1 - p
    n = ns[p]
    no = ns[q]
    rp = reach[k, p]
    rq = reach[k, q]
    cp = cfv[k, p]
    cq = cfv[k, q]
    if not node_reached(rp, rq, cp, cq, n, no):
        return False
    if upd == OPP:
        rr = reach[k, REQ]
        tot = 0.0
        for x in range(ns[REQ]):
            tot += rr[x]
        if tot == 0.0:
            return False
    na = K - L
    a0 = 1 if L < 0 else 0
    base = off[i]
    sg = sig[k]
    node_strategy(reg, base, n, na, a0, sg)
    if L >= 0:
        if upd == p:
            G = cfv[k, 2]
            dudo_mover_values(L, p, q, n, no, rq, rc, claim_r, U[p], cnt[k], G)
            for x in range(n):
                cp[x] += sg[0, x] * G[x]
                reg[base + x] += G[x]       # the action's value; the node's value comes off later
        else:
            dudo_other_values(L, p, q, n, no, rp, sg, rc, claim_r, U[p], cnt[k], cq)
    return True


@njit(cache=True, nogil=True)
def _cfr_walk(k0, L0, req_first, upd, reach, cfv, sig, cnt, ns, rc, claim_r, U, off, reg, ssum,
              avg_w, K, node_at, last_at, j_at, child_at, live):
    """One vector CFR+ pass over the endgame rooted at depth k0 (``tree_cfr._walk``'s recursion as a
    loop, with endgame-local node numbering): cfv[k0, upd, :] is the updating seat's counterfactual
    value per roll at the root (the other seat's values are not computed: no update needs them); its
    regrets and (requester) strategy sums are updated.
    ``node_at``, ``last_at``, ``j_at``, ``child_at``, ``live``: per-depth scratch."""
    k = k0
    node_at[k] = 0
    last_at[k] = L0
    live[k] = _cfr_enter(0, k, L0, req_first, upd, reach, cfv, sig, cnt, ns, rc, claim_r, U, off,
                         reg, K)
    j_at[k] = 1
    child_at[k] = 1
    while True:
        L = last_at[k]
        if live[k] and j_at[k] < K - L:        # descend into the next child
            p = _mover(k, req_first)
            q = 1 - p
            j = j_at[k]
            sg = sig[k]
            nr_ = reach[k + 1]
            if upd == REQ or p == REQ:
                for x in range(ns[p]):
                    nr_[p, x] = reach[k, p, x] * sg[j, x]
            if upd == REQ or q == REQ:
                for y in range(ns[q]):
                    nr_[q, y] = reach[k, q, y]
            k += 1
            node_at[k] = child_at[k - 1]
            last_at[k] = L + j
            live[k] = _cfr_enter(node_at[k], k, L + j, req_first, upd, reach, cfv, sig, cnt, ns,
                                 rc, claim_r, U, off, reg, K)
            j_at[k] = 1
            child_at[k] = node_at[k] + 1
            continue
        # post-visit: CFR+ regret update and strategy sum of the updating seat
        p = _mover(k, req_first)
        if live[k] and upd == p:
            n = ns[p]
            a0 = 1 if L < 0 else 0
            base = off[node_at[k]]
            cp = cfv[k, p]
            rp = reach[k, p]
            sg = sig[k]
            for j in range(a0, K - L):
                for x in range(n):
                    idx = base + j * n + x
                    v = reg[idx] - cp[x]
                    reg[idx] = v if v > 0 else 0.0
                    if p == REQ:
                        ssum[idx] += avg_w * rp[x] * sg[j, x]
        if k == k0:
            return
        # back to the parent: add this child's values
        k -= 1
        p = _mover(k, req_first)
        q = 1 - p
        j = j_at[k]
        sg = sig[k]
        ch = cfv[k + 1]
        cp = cfv[k, p]
        cq = cfv[k, q]
        n = ns[p]
        base = off[node_at[k]]
        if upd == p:
            for x in range(n):
                cp[x] += sg[j, x] * ch[p, x]
                reg[base + j * n + x] += ch[p, x]
        else:
            for y in range(ns[q]):
                cq[y] += ch[q, y]
        child_at[k] += 1 << (K - 1 - (last_at[k] + j))
        j_at[k] += 1


@njit(cache=True, nogil=True)
def _br_walk(i, k, L, ri, tot, req_first, reach, out, cnt, ns, rc, claim_r, V, off, st, K):
    """Opponent's best-response counterfactual values out[k, y] below endgame node i against the
    requester's fixed strategy ``st`` (endgame layout); reach[ri, x] is the requester's reach (the opponent's
    claim leaves it as it is, so its children read their parent's row; the requester's claims write row k + 1),
    ``tot`` its sum (< 0: not summed yet). ``V[s, L, t]``: the opponent's payoff when seat s challenges claim L
    and t dice count."""
    p = _mover(k, req_first)
    nr = ns[REQ]
    no = ns[OPP]
    rr = reach[ri]
    o = out[k]
    if tot < 0.0:
        tot = 0.0
        for x in range(nr):
            tot += rr[x]
    for y in range(no):
        o[y] = 0.0
    if tot == 0.0:
        return
    if p == OPP:
        for y in range(no):
            o[y] = -1e300
    na = K - L
    base = off[i]
    c = cnt[k]
    if L >= 0:
        r = claim_r[L] - 1
        for t in range(c.shape[0]):
            c[t] = 0.0
        for x in range(nr):
            c[rc[REQ, x, r]] += rr[x] if p == OPP else rr[x] * st[base + x]
        for y in range(no):
            cy = rc[OPP, y, r]
            v = 0.0
            for t in range(c.shape[0]):
                if c[t] != 0.0:
                    v += c[t] * V[p, L, t + cy]
            if p == OPP:
                if v > o[y]:
                    o[y] = v
            else:
                o[y] += v
    child = i + 1
    for j in range(1, na):
        cl = L + j
        if p == OPP:
            _br_walk(child, k + 1, cl, ri, tot, req_first, reach, out, cnt, ns, rc, claim_r, V, off, st, K)
        else:
            nx = reach[k + 1]
            for x in range(nr):
                nx[x] = rr[x] * st[base + j * nr + x]
            _br_walk(child, k + 1, cl, k + 1, -1.0, req_first, reach, out, cnt, ns, rc, claim_r, V, off, st, K)
        ch = out[k + 1]
        if p == OPP:
            for y in range(no):
                if ch[y] > o[y]:
                    o[y] = ch[y]
        else:
            for y in range(no):
                o[y] += ch[y]
        child += 1 << (K - 1 - cl)


@njit(cache=True, nogil=True)
def _root_reach(gadget, greg, prior_opp, post_opp, qroot):
    """The opponent's reach into the endgame per roll under the gadget's current strategy."""
    no = prior_opp.size
    if gadget == 0:            # resolve: enter (F) or take the target (T), per roll
        for y in range(no):
            f = greg[0, y] if greg[0, y] > 0 else 0.0
            tt = greg[1, y] if greg[1, y] > 0 else 0.0
            qroot[y] = prior_opp[y] * (f / (f + tt) if f + tt > 0 else 0.5)
    elif gadget == 1:          # max-margin: the opponent picks the roll
        tot = 0.0
        for y in range(no):
            if greg[0, y] > 0:
                tot += greg[0, y]
        for y in range(no):
            qroot[y] = (greg[0, y] / tot if greg[0, y] > 0 else 0.0) if tot > 0 else 1.0 / no
    else:
        for y in range(no):
            qroot[y] = post_opp[y]


@njit(cache=True, nogil=True)
def _gadget_update(gadget, greg, f, target, qroot):
    """Regret update of the gadget's root choice given the opponent's values ``f`` of entering."""
    no = f.size
    if gadget == 0:
        for y in range(no):
            a = greg[0, y] if greg[0, y] > 0 else 0.0
            b = greg[1, y] if greg[1, y] > 0 else 0.0
            q = a / (a + b) if a + b > 0 else 0.5
            v = q * f[y] + (1 - q) * target[y]
            r0 = greg[0, y] + f[y] - v
            r1 = greg[1, y] + target[y] - v
            greg[0, y] = r0 if r0 > 0 else 0.0
            greg[1, y] = r1 if r1 > 0 else 0.0
    elif gadget == 1:
        v = 0.0
        for y in range(no):
            v += qroot[y] * (f[y] - target[y])
        for y in range(no):
            r0 = greg[0, y] + f[y] - target[y] - v
            greg[0, y] = r0 if r0 > 0 else 0.0


@njit(cache=True, nogil=True)
def cfr_plus_iterations(t, iters, gadget, k0, L0, req_first, ns, rc, claim_r, U, off, reg, ssum,
                        greg, target, prior_opp, post_opp, reach_req, reach, cfv, sig, cnt, qroot,
                        K):
    """``iters`` alternating CFR+ iterations on the gadget game from iteration ``t`` (the
    gadget's own regrets in ``greg``); returns the iteration count reached."""
    nr = ns[REQ]
    no = ns[OPP]
    node_at = np.zeros(K + 2, dtype=np.int64)
    last_at = np.zeros(K + 2, dtype=np.int64)
    j_at = np.zeros(K + 2, dtype=np.int64)
    child_at = np.zeros(K + 2, dtype=np.int64)
    live = np.zeros(K + 2, dtype=np.bool_)
    for _ in range(iters):
        t += 1
        _root_reach(gadget, greg, prior_opp, post_opp, qroot)
        for upd in range(2):
            for x in range(nr):
                reach[k0, REQ, x] = reach_req[x]
            for y in range(no):
                reach[k0, OPP, y] = qroot[y]
            _cfr_walk(k0, L0, req_first, upd, reach, cfv, sig, cnt, ns, rc, claim_r, U, off,
                      reg, ssum, float(t), K, node_at, last_at, j_at, child_at, live)
        _gadget_update(gadget, greg, cfv[k0, OPP, :no].copy(), target, qroot)
    return t


def average_strategy(ssum, reg, off, k0, L0, req_first, K, ns):
    """Requester's average strategy in endgame layout (its regret-matched current strategy where
    it never reached a node, so every roll has a defined strategy)."""
    req_at_root = _mover_py(int(k0), bool(req_first)) == REQ
    _, depth, last = _layout(req_at_root, int(L0), int(K), tuple(int(n) for n in ns))
    return _average(ssum, reg, off, depth, last, req_at_root, int(K), ns)


@njit(cache=True, nogil=True)
def _average(ssum, reg, off, stack_k, stack_L, req_first, K, ns):
    N = off.size - 1
    st = np.zeros(off[N])
    n = ns[REQ]
    for i in range(N):
        if _mover(stack_k[i], req_first) != REQ:
            continue
        L = stack_L[i]
        na = K - L
        a0 = 1 if L < 0 else 0
        base = off[i]
        for x in range(n):
            tot = 0.0
            for j in range(a0, na):
                tot += ssum[base + j * n + x]
            src = ssum
            if tot <= 0.0:
                src = reg
                for j in range(a0, na):
                    if reg[base + j * n + x] > 0:
                        tot += reg[base + j * n + x]
            for j in range(a0, na):
                v = src[base + j * n + x]
                st[base + j * n + x] = ((v if v > 0 else 0.0) / tot) if tot > 0 else 1.0 / (na - a0)
    return st


@njit(cache=True, nogil=True)
def _node_info(i, k, L, K, depth, last):
    depth[i] = k
    last[i] = L
    nxt = i + 1
    for c in range(L + 1, K):
        nxt = _node_info(nxt, k + 1, c, K, depth, last)
    return nxt


def node_id(root_last: int, claims, K: int) -> int:
    """Preorder id of the node reached from the endgame's root by ``claims`` (strengths)."""
    i, L = 0, root_last
    for c in claims:
        if not L < c < K:
            raise ValueError(f"claim {c} does not follow {L}")
        i += 1 + sum(1 << (K - 1 - cc) for cc in range(L + 1, c))
        L = c
    return i


# --------------------------------------------------------------------------------------------
# blueprints

class SolutionBlueprint:
    """A ``solve_game.DudoSolution`` (or any object with its ``groups`` / ``strategies``) as blueprint."""

    def __init__(self, sol):
        self.sol = sol

    def memory(self, own: int, opp: int):
        return self.sol.groups[(min(own, opp), max(own, opp))].m

    def table(self, own: int, opp: int, history) -> np.ndarray:
        """[action slot, roll] probabilities of a player with ``own`` dice at the window a claim
        history reaches (slot 0 = Dudo, slot j = claim last + j)."""
        key = (min(own, opp), max(own, opp))
        g, st = self.sol.groups[key], self.sol.strategies[key]
        side = 0 if g.nsides == 1 else g.dice.index(own)
        w = history_window(history, g.K, g.m)
        n = int(g.ns[side])
        base = int(g.rbase[side] + g.act_off[w] * n)
        na = int(g.act_off[w + 1] - g.act_off[w])
        return np.asarray(st[base:base + na * n]).reshape(na, n)

    def group_arrays(self, own: int, opp: int):
        """(flat strategy, offset of each window's block for ``own``'s side, memory) for the
        kernels: a window's block is ``strategy[off[w]:off[w] + na * n]``."""
        key = (min(own, opp), max(own, opp))
        g, st = self.sol.groups[key], self.sol.strategies[key]
        side = 0 if g.nsides == 1 else g.dice.index(own)
        return np.asarray(st), g.rbase[side] + g.act_off[:-1] * g.ns[side], memory_size(g.K, g.m)


class RowBlueprint:
    """A blueprint read row by row: ``get_row(own, opp, roll, history) -> (actions, probs)`` (the
    store's decoded row for the information set of that history; actions are claim strengths,
    -1 = Dudo) and ``memory(own, opp) -> m`` (None = perfect recall)."""

    def __init__(self, get_row, memory):
        self.get_row = get_row
        self.memory = memory

    def table(self, own: int, opp: int, history) -> np.ndarray:
        from games.dudo.rules import rolls
        K = 6 * (own + opp)
        last = history[-1] if len(history) else -1
        na = K - last
        rs = rolls(own)
        out = np.zeros((na, len(rs)))
        for x, roll in enumerate(rs):
            actions, probs = self.get_row(own, opp, roll, list(history))
            for a, p in zip(actions, probs):
                out[0 if a < 0 else int(a) - last, x] = p
        return out


class UniformBlueprint:
    """Every legal action equally likely, memory 3 (timing and kernel warm-up: the work does not depend
    on the probabilities)."""

    def memory(self, own: int, opp: int):
        return 3

    def table(self, own: int, opp: int, history) -> np.ndarray:
        last = history[-1] if len(history) else -1
        na = 6 * (own + opp) - last
        t = np.full((na, roll_arrays(own)[0].size), 1.0 / (na - (1 if last < 0 else 0)))
        if last < 0:
            t[0] = 0.0
        return t


# --------------------------------------------------------------------------------------------
# problem set-up

def utility_tables(own: int, opp: int, W) -> np.ndarray:
    """U[s, L, t]: seat s's utility (+-1) when it challenges claim L and t dice count, with the
    game-winning probabilities of later rounds from ``W`` (seat 0 = requester with ``own``)."""
    D = own + opp
    ct = claim_table(D)
    dice = (own, opp)
    U = np.zeros((2, 6 * D, D + 1))
    for s in range(2):
        for L, (n, _r) in enumerate(ct):
            for t in range(D + 1):
                U[s, L, t] = 2.0 * challenge_win_prob(W or {}, dice[s], dice[1 - s], n, t) - 1.0
    return U


def ranges(blueprint, own: int, opp: int, history, requester_opened: bool):
    """(requester's reach per roll, opponent's reach per roll) after ``history``: chance times
    the blueprint's probabilities of each player's own claims (unnormalised)."""
    reach = [roll_arrays(own)[0].copy(), roll_arrays(opp)[0].copy()]
    dice = (own, opp)
    for k, c in enumerate(history):
        s = REQ if (k % 2 == 0) == requester_opened else OPP
        h = tuple(history[:k])
        last = h[-1] if h else -1
        reach[s] = reach[s] * blueprint.table(dice[s], dice[1 - s], h)[c - last]
    return reach[0], reach[1]


def posterior(reach_opp: np.ndarray, opp: int) -> np.ndarray:
    """The opponent's roll distribution given the claims (Bayes: prior x likelihood of its own
    claims under the blueprint, normalised); the prior where the blueprint gives every roll
    probability zero."""
    tot = float(reach_opp.sum())
    if tot > 0:
        return reach_opp / tot
    return roll_arrays(opp)[0].copy()


@dataclass(frozen=True)
class EndgamePolicy:
    """When and how to re-solve: at most ``threshold`` claims left and an estimated re-solve time
    (``cost.endgame_cost``, ``iterations`` of CFR+) within ``budget_seconds``, so the threshold in claims
    is lower with more dice; and the requester's blueprint reach at the endgame's root (summed over
    its rolls) at least ``min_reach`` (below it the blueprint almost never plays into this endgame
    and keeps it: equally safe, and it bounds how many endgames a round can need)."""
    threshold: int = 8
    iterations: int = 300
    gadget: str = "maxmargin"
    min_reach: float = 1e-4
    budget_seconds: float = 1.0

    def remaining_limit(self, own: int, opp: int) -> int:
        """The most claims left at which these dice get an endgame re-solve."""
        R = self.threshold
        while R > 0 and endgame_cost(R, own, opp).seconds(self.iterations) > self.budget_seconds:
            R -= 1
        return R


def endgame_root(history, threshold: int, K: int) -> int:
    """Length of the shortest prefix of ``history`` whose remaining claims (``K - 1 - last``,
    ``K`` for the empty history) are at most ``threshold``; None if the round is not there yet."""
    for k in range(len(history) + 1):
        last = history[k - 1] if k else -1
        if K - 1 - last <= threshold:
            return k
    return None


# --------------------------------------------------------------------------------------------
# the re-solve

@dataclass
class EndgameProblem:
    """Everything a re-solve needs, as plain arrays (picklable: it can go to another process)."""
    own: int
    opp: int
    requester_opened: bool
    history: tuple          # the endgame root's history (claim strengths)
    K: int
    ns: np.ndarray
    rc: np.ndarray          # [seat, roll, rank] dice counting for each rank
    claim_r: np.ndarray
    U: np.ndarray
    off: np.ndarray
    bp: np.ndarray          # requester's blueprint, endgame layout
    reach_req: np.ndarray   # requester's range at the root
    reach_opp: np.ndarray   # opponent's blueprint reach at the root (posterior x const)
    prior_opp: np.ndarray
    target: np.ndarray      # opponent's best-response cf. values against the blueprint

    @property
    def k0(self):
        return len(self.history)

    @property
    def L0(self):
        return self.history[-1] if self.history else -1

    @property
    def remaining(self):
        return self.K - 1 - self.L0


def _mover_py(k: int, requester_opened: bool) -> int:
    return REQ if (k % 2 == 0) == requester_opened else OPP


def _seat_arrays(own, opp):
    D = own + opp
    ct = claim_table(D)
    ns = np.array([roll_arrays(own)[0].size, roll_arrays(opp)[0].size], dtype=np.int64)
    rc = np.zeros((2, int(ns.max()), 6), dtype=np.int64)
    rc[0, :ns[0]] = roll_arrays(own)[2]
    rc[1, :ns[1]] = roll_arrays(opp)[2]
    claim_r = np.array([c[1] for c in ct], dtype=np.int64)
    return ns, rc, claim_r


def best_response_values(off, st, k0, L0, requester_opened, ns, rc, claim_r, V, reach_req, K):
    """Opponent's best-response counterfactual values per roll at the endgame's root against the
    requester's strategy ``st`` (endgame layout); ``V[s, L, t]`` the opponent's payoffs."""
    D = K // 6
    reach = np.zeros((K + 2, int(ns[REQ])))
    out = np.zeros((K + 2, int(ns[OPP])))
    cnt = np.zeros((K + 2, D + 1))
    reach[k0] = reach_req
    _br_walk(0, int(k0), int(L0), int(k0), -1.0, bool(requester_opened), reach, out, cnt, ns, rc, claim_r, V, off,
             st, int(K))
    return out[k0].copy()


@dataclass(frozen=True)
class RoundContext:
    """What every endgame of one player (``own`` dice against ``opp``) shares: dice counting, the
    terminal utilities, window tables and, for a blueprint with one flat table, that table.  Built
    once by ``round_context``; ``prepare`` builds one per call unless given it."""
    blueprint: object
    own: int
    opp: int
    K: int
    ns: np.ndarray
    rc: np.ndarray
    claim_r: np.ndarray
    U: np.ndarray | None         # None: built without the round values W (layouts only)
    memory: object               # the blueprint's memory of this group
    mem_at: np.ndarray           # claims remembered after a claim of strength L: mem_at[L + 1]
    remap: np.ndarray            # a schedule's window index from the uniform one (empty: none)
    binom: np.ndarray
    size_off: np.ndarray
    table: np.ndarray | None     # the blueprint's flat strategy (``group_arrays``), or None
    wpos: np.ndarray | None      # offset of each window's block in ``table``
    dag: tuple | None = None     # (act_off, child) of a face memory's windows (indexed by the DAG)


def round_context(blueprint, own: int, opp: int, W=None) -> RoundContext:
    K = 6 * (own + opp)
    ns, rc, claim_r = _seat_arrays(own, opp)
    mem = blueprint.memory(own, opp)
    dag = None
    if isinstance(mem, Faces):      # a face memory's index needs the faces: follow the window DAG
        dag = window_tables(K, mem)[2:]
        mem_at = remap = binom = size_off = np.zeros(0, dtype=np.int64)
    else:                           # claim windows: the index from the last claims, no table needed
        mem_at, remap = window_index_tables(K, mem)
        binom, size_off = _binom_tables(K, memory_size(K, mem))
    table = wpos = None
    arrays = getattr(blueprint, "group_arrays", None)
    if arrays is not None:
        table, wpos, _ = arrays(own, opp)
        table = np.asarray(table, dtype=np.float64)
        wpos = np.asarray(wpos, dtype=np.int64)
    U = None if W is None else utility_tables(own, opp, W)
    return RoundContext(blueprint, own, opp, K, ns, rc, claim_r, U, mem, mem_at, remap, binom,
                        size_off, table, wpos, dag)


def blueprint_layout(blueprint, own: int, opp: int, history, requester_opened: bool,
                     ctx: RoundContext | None = None):
    """(off, bp): the endgame's layout and the requester's blueprint strategy in it."""
    ctx = ctx or round_context(blueprint, own, opp)
    K = ctx.K
    k0 = len(history)
    L0 = history[-1] if history else -1
    ns = ctx.ns
    off = endgame_layout(k0, L0, requester_opened, K, ns)
    hist = np.zeros(K + 1, dtype=np.int64)
    hist[:k0] = history
    if ctx.dag is None:
        node_w = endgame_windows(hist, k0, L0, requester_opened, K, ctx.mem_at, ctx.remap, ctx.binom,
                                 ctx.size_off)
    else:
        node_w = endgame_windows_dag(history_window(history, K, ctx.memory), k0, L0, requester_opened,
                                     K, *ctx.dag)
    table, wpos = ctx.table, ctx.wpos
    if table is None:               # a blueprint read by rows: each window's table once, by a history
        blocks, wpos_d, pos = [], {}, 0
        for w, h in zip(node_w.tolist(), _node_histories(history, K)):
            if w >= 0 and w not in wpos_d:
                b = blueprint.table(own, opp, h)
                blocks.append(b.ravel())
                wpos_d[w] = pos
                pos += b.size
        table = np.concatenate(blocks) if blocks else np.zeros(0)
        wpos = np.full(max(wpos_d, default=0) + 1, -1, dtype=np.int64)
        for w, p in wpos_d.items():
            wpos[w] = p
    bp = fill_blueprint(off, node_w, wpos, np.asarray(table, dtype=np.float64), int(ns[REQ]),
                        off.size - 1)
    return off, bp


def prepare(blueprint, own: int, opp: int, history, requester_opened: bool, W,
            reach=None, ctx: RoundContext | None = None) -> EndgameProblem:
    """Set up the re-solve of the endgame whose root is after ``history`` (the requester holds
    ``own`` dice; ``requester_opened``: it made the round's first claim).  ``reach``: the
    (requester, opponent) reach per roll if already known (``ranges``; the opponent's may be None:
    only the unsafe re-solve uses it); ``ctx``: ``round_context(blueprint, own, opp, W)`` if the
    caller keeps one."""
    ctx = ctx or round_context(blueprint, own, opp, W)
    K = ctx.K
    history = tuple(int(c) for c in history)
    k0 = len(history)
    L0 = history[-1] if history else -1
    ns, rc, claim_r, U = ctx.ns, ctx.rc, ctx.claim_r, ctx.U
    off, bp = blueprint_layout(blueprint, own, opp, history, requester_opened, ctx)
    reach_req, reach_opp = (ranges(blueprint, own, opp, history, requester_opened)
                            if reach is None else reach)
    if reach_opp is None:
        reach_opp = roll_arrays(opp)[0].copy()
    V = np.stack([-U[REQ], U[OPP]])
    target = best_response_values(off, bp, k0, L0, requester_opened, ns, rc, claim_r, V,
                                  reach_req, K)
    return EndgameProblem(own, opp, bool(requester_opened), history, K, ns, rc, claim_r, U,
                          off, bp, reach_req, reach_opp, roll_arrays(opp)[0].copy(), target)


@dataclass
class EndgameSolution:
    problem: EndgameProblem
    strategy: np.ndarray     # requester's average strategy, endgame layout
    iterations: int
    seconds: float
    gadget: str
    stopped: bool = False    # stopped early by the deadline or the stop flag
    extra: dict = field(default_factory=dict)

    def distribution(self, roll, history):
        """[(action, prob)] of the requester holding ``roll`` after ``history`` (which extends the
        endgame root's history); action -1 is Dudo, otherwise a claim strength."""
        pr = self.problem
        history = tuple(int(c) for c in history)
        if history[:pr.k0] != pr.history:
            raise ValueError("history does not pass through this endgame's root")
        if _mover_py(len(history), pr.requester_opened) != REQ:
            raise ValueError("it is the opponent's turn after this history")
        i = node_id(pr.L0, history[pr.k0:], pr.K)
        L = history[-1] if history else -1
        n = int(pr.ns[REQ])
        x = roll_index(roll)
        base = int(pr.off[i])
        out = []
        for j in range(1 if L < 0 else 0, pr.K - L):
            out.append((-1 if j == 0 else L + j, float(self.strategy[base + j * n + x])))
        return out

    def best_response_values(self, V=None, strategy=None):
        """Opponent's best-response counterfactual values per roll against the re-solved (or the
        given) strategy; by default with the re-solve's own payoffs (compare with ``target``)."""
        pr = self.problem
        if V is None:
            V = np.stack([-pr.U[REQ], pr.U[OPP]])
        return best_response_values(pr.off, self.strategy if strategy is None else strategy,
                                    pr.k0, pr.L0, pr.requester_opened, pr.ns, pr.rc,
                                    pr.claim_r, V, pr.reach_req, pr.K)


def solve(problem: EndgameProblem, iterations: int = 300, gadget: str = "maxmargin",
          deadline: float | None = None, should_stop=None, chunk: int = 0) -> EndgameSolution:
    """CFR+ on the gadget game for ``iterations`` iterations, or fewer if ``deadline``
    (``time.monotonic()``) passes or ``should_stop()`` turns true (checked every ``chunk``
    iterations; by default about every 50 ms of estimated work)."""
    pr = problem
    if gadget not in GADGETS:
        raise ValueError(f"gadget {gadget!r}: one of {sorted(GADGETS)}")
    K = pr.K
    rows = int(pr.off[-1])
    reg = np.zeros(rows)
    ssum = np.zeros(rows)
    no = int(pr.ns[OPP])
    greg = np.zeros((2, no))
    maxn = int(pr.ns.max())
    reach = np.zeros((K + 2, 2, maxn))
    cfv = np.zeros((K + 2, 3, maxn))
    sig = np.zeros((K + 2, K + 1, maxn))
    cnt = np.zeros((K + 3, pr.own + pr.opp + 1))
    qroot = np.zeros(no)
    post = posterior(pr.reach_opp, pr.opp)
    if not chunk:
        est = endgame_cost(pr.remaining, pr.own, pr.opp).seconds_per_iteration
        chunk = max(1, int(0.05 / max(est, 1e-9)))
    t0 = time.perf_counter()
    t, stopped = 0, False
    while t < iterations:
        if (deadline is not None and time.monotonic() >= deadline) or (should_stop and should_stop()):
            stopped = True
            break
        step = min(chunk, iterations - t)
        t = cfr_plus_iterations(t, step, GADGETS[gadget], int(pr.k0), int(pr.L0),
                                bool(pr.requester_opened),
                                pr.ns, pr.rc, pr.claim_r, pr.U, pr.off, reg, ssum, greg,
                                pr.target, pr.prior_opp, post, pr.reach_req, reach, cfv, sig,
                                cnt, qroot, K)
    st = average_strategy(ssum, reg, pr.off, pr.k0, pr.L0, pr.requester_opened, K, pr.ns)
    return EndgameSolution(pr, st, t, time.perf_counter() - t0, gadget, stopped)


@dataclass
class EndgameMove:
    actions: np.ndarray      # claim strengths, -1 = Dudo
    probs: np.ndarray
    root: int                # length of the endgame root's history
    iterations: int
    seconds: float
    posterior: np.ndarray    # the opponent's roll distribution at the endgame's root


def resolve_endgame(blueprint, own: int, opp: int, history, requester_opened: bool, W,
                    policy: EndgamePolicy = EndgamePolicy(), deadline: float | None = None,
                    should_stop=None) -> EndgameSolution | None:
    """The re-solve of the endgame a decision after ``history`` is in (its root: the first point of the
    round with at most ``policy.remaining_limit`` claims left): the requester's strategy at every node
    of that endgame for every roll, or None where the policy keeps the blueprint (not in an endgame yet,
    or the blueprint's reach is below ``min_reach``); its ``stopped`` is set where the deadline / stop
    flag came first (a partial solve: never to be served)."""
    history = tuple(int(c) for c in history)
    K = 6 * (own + opp)
    k0 = endgame_root(history, policy.remaining_limit(own, opp), K)
    if k0 is None:
        return None
    reach = ranges(blueprint, own, opp, history[:k0], requester_opened)
    if reach[0].sum() < policy.min_reach:
        return None
    pr = prepare(blueprint, own, opp, history[:k0], requester_opened, W, reach=reach)
    return solve(pr, policy.iterations, policy.gadget, deadline, should_stop)


def resolve_move(blueprint, own: int, opp: int, roll, history, requester_opened: bool, W,
                 policy: EndgamePolicy = EndgamePolicy(), deadline: float | None = None,
                 should_stop=None) -> EndgameMove | None:
    """The requester's action distribution from re-solving the endgame it is in (``resolve_endgame``),
    or None where the policy keeps the blueprint or the deadline / stop flag came first (a partial solve
    is never served, so the answer does not depend on timing).

    The endgame is re-solved from its root, also at later decisions in it: the same root, ranges and
    iterations give the same strategy, so play stays consistent without keeping state."""
    history = tuple(int(c) for c in history)
    sol = resolve_endgame(blueprint, own, opp, history, requester_opened, W, policy, deadline, should_stop)
    if sol is None or sol.stopped:
        return None
    pr = sol.problem
    dist = sol.distribution(roll, history)
    return EndgameMove(np.array([a for a, _ in dist]), np.array([p for _, p in dist]), pr.k0,
                       sol.iterations, sol.seconds, posterior(pr.reach_opp, opp))
