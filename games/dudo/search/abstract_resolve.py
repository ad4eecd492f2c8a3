"""Depth-limited continual re-solving made cheap enough for 5v5: an action abstraction inside the
lookahead and a small leaf (docs/dudo-search-serving.md).

The same re-solve as ``continual`` (the same kernel, ``resolve.cfr_resolve``), with three changes
that decide its cost:

* **action abstraction** (the lookahead only, the real game is unchanged): at the requester's nodes the
  subgame keeps Dudo and ``A`` claims: the next ``near`` claims after the last one and the claims the
  blueprint plays most at the node's window (mean over rolls, chance-weighted); at the opponent's nodes
  every claim at the subgame's first level (depth <= 1: every real reply has a target for the next
  re-solve) and the same ``A`` claims deeper.  Restricting one's own strategy keeps the gadget's
  guarantee; the opponent is restricted only below the first reply;
* **a cheaper leaf**: the continuation value matrices are float32 or int8 (``int8_continuations``), summed
  in float32; the leaves of a pass are independent, so they may run on several threads (``threads``);
* the **round-root re-solve** (the same for every request) is an argument: a server computes it once.
"""
from __future__ import annotations

import numpy as np

from games.dudo.abstraction.infoset import history_window
from games.dudo.search.continual import Continuations, ContinualResolver
from games.dudo.search.endgame import OPP, REQ
from games.dudo.search.resolve import Resolve, _leaf_opp


# --------------------------------------------------------------------------------------------
# the abstraction

def top_claims(strat: np.ndarray, g, count: int) -> np.ndarray:
    """``top[s, w, :count]``: the claim strengths the blueprint ``strat`` plays most at window ``w`` of
    side ``s`` of group ``g`` (chance-weighted mean over rolls, Dudo excluded; -1 pads), strongest
    weight first."""
    K = g.K
    top = np.full((g.nsides, g.NW, count), -1, dtype=np.int64)
    for s in range(g.nsides):
        n = int(g.ns[s])
        pr = g.probs[s, :n]
        for w in range(g.NW):
            L = int(g.last[w])
            na = K - L
            base = int(g.rbase[s] + g.act_off[w] * n)
            rows = strat[base:base + na * n].reshape(na, n)
            mean = rows @ pr
            order = [j for j in np.argsort(-mean[1:], kind="stable") + 1 if mean[j] > 0][:count]
            top[s, w, :len(order)] = [L + j for j in order]
    return top


def abstract_layout(L0: int, w0: int, d: int, K: int, p0: int, ns, C: int, act_off, child, side,
                    top, A: int, near: int, full_opp_depth: int = 1, full_root: bool = False):
    """(last, depth, cfirst, nch, mover, leaf, off, win) of the abstracted depth-``d`` subgame after a
    history whose last claim is ``L0`` (window ``w0``), ``p0`` moving at its root.  ``full_root``: the
    root keeps every claim (the round-root re-solve, computed once)."""
    last, depth, mover, win = [L0], [0], [p0], [w0]
    cfirst, nch = [], []
    i = 0
    while i < len(last):
        L, k, p, w = last[i], depth[i], mover[i], win[i]
        kids: list[int] = []
        if k < d and L < K - 1:
            if (p == OPP and k <= full_opp_depth) or (k == 0 and full_root):
                kids = list(range(L + 1, K))
            else:
                s = int(side[p]) if top.shape[0] > 1 else 0     # a == b: one shared strategy
                cand = set(range(L + 1, min(K, L + 1 + near)))
                for c in top[s, w]:
                    if len(cand) >= A:
                        break
                    if c > L:
                        cand.add(int(c))
                c = L + 1 + near
                while len(cand) < A and c < K:     # the blueprint plays fewer than A claims: the next ones
                    cand.add(c)
                    c += 1
                kids = sorted(cand)
        cfirst.append(len(last))
        nch.append(len(kids))
        for c in kids:
            last.append(c)
            depth.append(k + 1)
            mover.append(1 - p)
            win.append(int(child[act_off[w] + (c - L)]))
        i += 1
    last = np.array(last, dtype=np.int64)
    depth = np.array(depth, dtype=np.int64)
    mover = np.array(mover, dtype=np.int64)
    win = np.array(win, dtype=np.int64)
    cfirst = np.array(cfirst, dtype=np.int64)
    nch = np.array(nch, dtype=np.int64)
    leaf = (depth == d) & (last < K - 1)
    size = np.where(leaf, C * ns[OPP], (nch + 1) * ns[mover])
    off = np.zeros(last.size + 1, dtype=np.int64)
    np.cumsum(size, out=off[1:])
    return last, depth, cfirst, nch, mover, leaf, off, win


# --------------------------------------------------------------------------------------------
# the policy

def float32_continuations(cont: Continuations) -> Continuations:
    """The same continuations with float32 value matrices (half the bytes a leaf reads)."""
    return Continuations(np.ascontiguousarray(cont.Vc, dtype=np.float32), cont.voff, cont.side, cont.act_off,
                         cont.child, cont.memory, cont.K, cont.names)



def int8_continuations(cont: Continuations) -> Continuations:
    """The same continuations with int8 value matrices, multiples of ``INT8_STEP`` (a quarter of float64's
    bytes, half of float32's; the values lie in [-1, 1], so each is off by at most 1/254)."""
    V = cont.Vc
    q = np.empty(V.shape, dtype=np.int8)
    flat, out = V.reshape(V.shape[0], -1), q.reshape(V.shape[0], -1)
    step = 1 << 22
    for c in range(flat.shape[0]):
        for lo in range(0, flat.shape[1], step):
            x = np.asarray(flat[c, lo:lo + step], dtype=np.float32)
            if x.size and np.abs(x).max() > 1.0 + 1e-6:
                raise ValueError("int8 leaves need values in [-1, 1]")
            out[c, lo:lo + step] = np.rint(x * 127)
    return Continuations(q, cont.voff, cont.side, cont.act_off, cont.child, cont.memory, cont.K, cont.names)


class AbstractResolver(ContinualResolver):
    """``ContinualResolver`` with the abstracted lookahead and float32 or int8 leaves: ``A`` claims at the
    requester's nodes (``near`` of them the next claims, the rest the blueprint's most played, ``top``
    from ``top_claims``), every claim at the opponent's first reply.  ``root_full``: the round-root
    re-solve keeps every claim (it is computed once).  ``cache``: keep re-solves by (history, range)
    (deterministic, so a hit returns the same bits).  ``threads``: the leaves' values on that many numba
    threads (the same bits)."""

    def __init__(self, own, opp, opened, W, cont, top, depth=2, iterations=50, gadget="maxmargin", A=4,
                 near=1, root_full=True, cache=False, threads=1, regrets="cfr+"):
        super().__init__(own, opp, opened, W, cont, depth=depth, iterations=iterations, gadget=gadget,
                         regrets=regrets)
        if threads < 1:
            raise ValueError(f"threads={threads}: need at least 1")
        if depth % 2:
            raise ValueError("depth must be even (leaves at the requester's decisions)")
        if A < 1 or near < 0 or near > A:
            raise ValueError(f"abstraction A={A}, near={near}: need 1 <= A and 0 <= near <= A")
        self.threads = threads
        self.top, self.A, self.near, self.root_full = top, A, near, root_full
        if cont.Vc.dtype not in (np.float32, np.int8):
            self.use_leaves(np.ascontiguousarray(cont.Vc, dtype=np.float32))
        self.cache = {} if cache else None

    def resolve(self, history, reach_req, target=None, opp_range=None) -> Resolve:
        history = tuple(int(c) for c in history)
        if self.cache is None:
            return super().resolve(history, reach_req, target, opp_range)
        key = (history, np.asarray(reach_req).tobytes(), None if target is None else np.asarray(target).tobytes(),
               None if opp_range is None else np.asarray(opp_range).tobytes())
        if key not in self.cache:
            self.cache[key] = super().resolve(history, reach_req, target, opp_range)
        return self.cache[key]

    def _layout(self, history, L0: int, p0: int):
        """The abstracted subgame after ``history`` (``abstract_layout``)."""
        cont = self.cont
        w0 = history_window(history, self.K, cont.memory)
        last, _, cfirst, nch, mover, leaf, off, win = abstract_layout(
            L0, w0, self.depth, self.K, p0, self.ns, self.cidx.size, cont.act_off, cont.child, cont.side, self.top,
            self.A, self.near, 1, self.root_full and not history)
        return last, cfirst, nch, mover, leaf, off, win


def blueprint_ranges(g, strat: np.ndarray, own: int, opp: int, opened: bool, history):
    """(requester's, opponent's) ranges per roll after ``history``: chance's prior times the blueprint's
    (``strat`` on group ``g``) probability of each claim its player made.  A claim the blueprint never
    makes with any roll of its player leaves that range as it was (the range would vanish)."""
    K = g.K
    sides = [(0 if g.nsides == 1 else g.dice.index(d)) for d in (own, opp)]
    rng = [g.probs[s, :int(g.ns[s])].copy() for s in sides]
    L = -1
    for k, c in enumerate(history):
        p = REQ if (k % 2 == 0) == opened else OPP
        s, n = sides[p], int(g.ns[sides[p]])
        w = history_window(tuple(history[:k]), K, g.m)
        row = strat[int(g.rbase[s] + g.act_off[w] * n + (c - L) * n):][:n]
        new = rng[p] * row
        if new.sum() > 0:
            rng[p] = new
        L = c
    return rng[REQ], rng[OPP]


class BlueprintRangeResolver(AbstractResolver):
    """One re-solve per request, no chain: the requester's and the opponent's ranges are the blueprint's
    along the history (``blueprint_ranges``), the opponent enters with its range (no gadget: unsafe
    re-solving, Brown & Sandholm 2017's term), so a request costs one re-solve and depends on its history
    only.  ``g``, ``strat``: the blueprint's group and strategy (the stored rows)."""

    def __init__(self, own, opp, opened, W, cont, top, g, strat, **kw):
        super().__init__(own, opp, opened, W, cont, top, **kw)
        self.g, self.strat = g, strat

    def resolve(self, history, reach_req=None, target=None, opp_range=None) -> Resolve:
        rr, ro = blueprint_ranges(self.g, self.strat, self.own, self.opp, self.opened, tuple(history))
        return super().resolve(history, rr, None, ro)


class BlueprintTargetResolver(BlueprintRangeResolver):
    """One safe re-solve per request, no chain: the requester's range is the blueprint's along the history,
    the opponent enters through the gadget with targets its best-response counterfactual values against
    the blueprint at this history, read from the "br" continuation matrix of the history's window (the
    blueprint's value below a history depends on its window only), as ``endgame`` does for the endgame."""

    def resolve(self, history, reach_req=None, target=None, opp_range=None) -> Resolve:
        history = tuple(int(c) for c in history)
        rr, _ = blueprint_ranges(self.g, self.strat, self.own, self.opp, self.opened, history)
        if self.mover(len(history)) != REQ:     # the opponent opens: the round's root, chance's ranges
            return AbstractResolver.resolve(self, history, rr)
        cont = self.cont
        c = list(cont.names).index("br")
        w0 = history_window(history, self.K, cont.memory)
        nR, nO = int(self.ns[REQ]), int(self.ns[OPP])
        base = int(cont.voff[cont.side[REQ]] + w0 * (nR * nO))
        tgt = np.zeros(nO)
        _leaf_opp(self.V[self.cidx[c]], base, True, rr, nR, nO, tgt, np.zeros(max(nR, nO) + 1, dtype=np.float32))
        tgt *= self.vscale
        return AbstractResolver.resolve(self, history, rr, tgt if history else None)
