"""The exact best response to continual re-solving (``games.dudo.search.continual``), as one numba walk.

``continual.seat_best_response`` walks a round's claim histories in Python and calls
``ContinualResolver.resolve`` (Python around numba kernels) at each of the requester's decisions; that is
about 2 ms a decision at 1v2, hours a seat at 4 dice in play (2**24 claim histories).  This module does the
same walk in numba over plain arrays with the re-solve inlined (``resolve_at``: the same layout and kernel,
``subgame_layout``, ``leaf_windows``, ``leaf_bases``, ``cfr_resolve``, so a re-solve gives the same bits
as ``ContinualResolver.resolve``; the full-width lookahead only, not ``abstract_resolve``'s).

The walk (``search_best_response_walk``) is a depth-first search over claim histories with an explicit
stack, one level per claim:

* the requester's decision after history h: one re-solve with its perfect-recall range (chance times
  its own earlier re-solved probabilities) and the opponent's targets at h from the re-solve at its
  previous decision (the round's root re-solve, without a gadget, at the first), exactly as a server
  computes them along h; each re-solve is made once, its root strategy and the targets of its depth-2
  nodes (the requester's next decisions) kept on the stack level;
* the responder (perfect recall, sees its roll and h) maximises per roll over Dudo and every claim;
* a history the requester reaches with total probability at most ``min_reach`` contributes nothing and
  is not searched (exact at 0: the responder's values there are multiplied by a zero reach).

``mode`` 1 replaces the re-solve by a fixed table (the requester's row of the history's window), so the
walk itself can be checked against an independent best response over the same table
(``exploit.best_response_value``, ``exact_check.best_response``).
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.dudo.search.resolve import CFR_PLUS, cfr_resolve, leaf_bases, leaf_windows, subgame_layout
from games.dudo.search.endgame import GADGETS, OPP, REQ

RESOLVE, TABLE = 0, 1   # the walk's modes: the requester re-solves, or answers a fixed table


@njit(cache=True, nogil=True)
def _subgame_nodes(R, d):
    """Nodes of the depth-``d`` subgame with ``R`` claims left: sum of C(R, j), j <= min(d, R)."""
    tot = 0
    c = 1
    for j in range(min(d, R) + 1):
        tot += c
        c = c * (R - j) // (j + 1)
    return tot


@njit(cache=True, nogil=True)
def resolve_at(L0, p0, w0, depth, iters, gadget, use_gadget, K, D, ns, rc, claim_r, U, V, cidx, vscale, acc_type,
               voff, side, act_off, child, reach_req, prior_opp, target, P, T2):
    """``ContinualResolver.resolve`` in numba: the depth-limited re-solve after a history whose last claim
    is ``L0`` and blueprint window ``w0`` (``p0`` to move).  Writes the requester's root strategy into
    ``P[slot, roll]`` (when it moves) and the opponent's best-response values at every node two claims
    below the root into ``T2[c1, c2, roll]`` (the targets of the requester's next decisions; one claim
    below into ``T2[c1, K]`` when the opponent moves at the root).  Returns the subgame's node count."""
    R = K - 1 - L0
    N = _subgame_nodes(R, depth)
    C = cidx.size
    nR = ns[REQ]
    nO = ns[OPP]
    last, dep, cfirst, nch, mover, leaf, off = subgame_layout(L0, depth, K, N, p0, ns, C)
    win = leaf_windows(w0, cfirst, nch, act_off, child)
    lbase = leaf_bases(voff, side, mover, win, nR, nO)
    rows = off[N]
    reg = np.zeros(rows)
    ssum = np.zeros(rows)
    sig = np.zeros(rows)
    rR = np.zeros((N, nR))
    rO = np.zeros((N, nO))
    vR = np.zeros((N, nR))
    vO = np.zeros((N, nO))
    greg = np.zeros((2, nO))
    qroot = np.zeros(nO)
    cfr_resolve(iters, gadget, use_gadget, last, cfirst, nch, mover, leaf, off, lbase, reg, ssum, sig, rR,
                rO, vR, vO, ns, rc, claim_r, U, V, cidx, vscale, acc_type, K, D, reach_req, prior_opp, target,
                greg, qroot, np.int64(1), np.int64(CFR_PLUS))
    if p0 == REQ:
        for j in range(K - L0):
            for x in range(nR):
                P[j, x] = sig[off[0] + j * nR + x]
    for j1 in range(nch[0]):
        a = cfirst[0] + j1
        c1 = L0 + 1 + j1
        if p0 == OPP:
            for y in range(nO):
                T2[c1, K, y] = vO[a, y]
        for j2 in range(nch[a]):
            b = cfirst[a] + j2
            for y in range(nO):
                T2[c1, c1 + 1 + j2, y] = vO[b, y]
    return N


@njit(cache=True, nogil=True)
def _dudo_values(L, weights, p, D, rc, claim_r, nR, nO, V_resp, cnt, out):
    """The responder's values per roll when the mover ``p`` challenges claim ``L`` (the requester's
    rolls weighted by ``weights``): ``out[y] = sum_x w[x] V_resp[p, L, min(c_x + c_y, D)]``."""
    r = claim_r[L] - 1
    for t in range(D + 1):
        cnt[t] = 0.0
    for x in range(nR):
        cnt[rc[REQ, x, r]] += weights[x]
    for y in range(nO):
        cy = rc[OPP, y, r]
        acc = 0.0
        for t in range(D + 1):
            if cnt[t] != 0.0:
                tt = t + cy
                acc += cnt[t] * V_resp[p, L, tt if tt < D else D]
        out[y] = acc


@njit(cache=True, nogil=True)
def search_best_response_walk(mode, req_first, w_root, depth, iters, gadget, K, D, ns, rc, claim_r, U, V, cidx,
                              vscale, acc_type, voff, side, act_off, child, prior_req, prior_opp, V_resp, min_reach,
                              tab, tab_off, stats):
    """The responder's value per roll (its prior not applied) at the round's root against the requester's
    policy: re-solving (``mode`` 0) or the fixed table ``tab`` (``mode`` 1, window w's rows at
    ``tab[tab_off[w]:]``, entry ``slot * n + roll``).  ``stats``: [re-solves, subgame nodes summed,
    histories visited, histories pruned]."""
    nR = ns[REQ]
    nO = ns[OPP]
    Lk = np.empty(K + 2, dtype=np.int64)
    wk = np.empty(K + 2, dtype=np.int64)
    nxt = np.empty(K + 2, dtype=np.int64)
    isreq = np.zeros(K + 2, dtype=np.bool_)
    rr = np.zeros((K + 2, nR))
    acc = np.zeros((K + 2, nO))
    P = np.zeros((K + 2, K + 1, nR))
    T2 = np.zeros((K + 2, K + 1, K + 1, nO))      # targets from the re-solve at level k
    tmpw = np.zeros(nR)
    cnt = np.zeros(D + 2)
    zero_t = np.zeros(nO)
    hist = np.empty(K + 2, dtype=np.int64)
    pre = np.zeros((K + 1, K + 1, nO))            # the round's root re-solve when the opponent opens
    if mode == RESOLVE and not req_first:
        # typed values, not literals (numba compiles a callee again for each literal argument): one resolve_at
        resolve_at(np.int64(-1), np.int64(OPP), w_root, depth, iters, gadget, np.bool_(False), K, D, ns, rc, claim_r,
                   U, V, cidx, vscale, acc_type, voff, side, act_off, child, prior_req, prior_opp, zero_t, P[0], pre)
        stats[0] += 1
        stats[1] += _subgame_nodes(K, depth)
    k = 0
    Lk[0] = -1
    wk[0] = w_root
    for x in range(nR):
        rr[0, x] = prior_req[x]
    entering = True
    while True:
        if entering:                     # set up level k (its history: hist[:k])
            entering = False
            L = Lk[k]
            stats[2] += 1
            s = 0.0
            for x in range(nR):
                s += rr[k, x]
            isreq[k] = (k % 2 == 0) == req_first
            nxt[k] = L + 1
            if s <= min_reach:
                stats[3] += 1
                for y in range(nO):
                    acc[k, y] = 0.0
                nxt[k] = K
            elif isreq[k]:
                if mode == RESOLVE:
                    if k == 0:
                        target = zero_t
                    elif k == 1:
                        target = pre[hist[0], K]
                    else:
                        target = T2[k - 2, hist[k - 2], hist[k - 1]]
                    resolve_at(L, np.int64(REQ), wk[k], depth, iters, gadget, k > 0, K, D, ns, rc, claim_r, U, V,
                               cidx, vscale, acc_type, voff, side, act_off, child, rr[k], prior_opp, target, P[k],
                               T2[k])
                    stats[0] += 1
                    stats[1] += _subgame_nodes(K - 1 - L, depth)
                else:
                    base = tab_off[wk[k]]
                    for j in range(K - L):
                        for x in range(nR):
                            P[k, j, x] = tab[base + j * nR + x]
                if L >= 0:
                    for x in range(nR):
                        tmpw[x] = rr[k, x] * P[k, 0, x]
                    _dudo_values(L, tmpw, REQ, D, rc, claim_r, nR, nO, V_resp, cnt, acc[k])
                else:
                    for y in range(nO):
                        acc[k, y] = 0.0
            else:
                if L >= 0:
                    _dudo_values(L, rr[k], OPP, D, rc, claim_r, nR, nO, V_resp, cnt, acc[k])
                else:
                    for y in range(nO):
                        acc[k, y] = -np.inf
        if nxt[k] < K:                   # descend by the next claim
            c = nxt[k]
            nxt[k] += 1
            L = Lk[k]
            hist[k] = c
            Lk[k + 1] = c
            wk[k + 1] = child[act_off[wk[k]] + (c - L)]
            if isreq[k]:
                for x in range(nR):
                    rr[k + 1, x] = rr[k, x] * P[k, c - L, x]
            else:
                for x in range(nR):
                    rr[k + 1, x] = rr[k, x]
            k += 1
            entering = True
            continue
        if k == 0:
            break
        k -= 1                           # fold level k + 1's values into level k
        if isreq[k]:
            for y in range(nO):
                acc[k, y] += acc[k + 1, y]
        else:
            for y in range(nO):
                if acc[k + 1, y] > acc[k, y]:
                    acc[k, y] = acc[k + 1, y]
    return acc[0].copy()


def _root_window(cont) -> int:
    from games.dudo.abstraction.infoset import history_window
    return int(history_window((), cont.K, cont.memory))


def search_best_response(policy, V_resp: np.ndarray, min_reach: float = 0.0, stats: np.ndarray | None = None
                         ) -> float:
    """``continual.seat_best_response`` by the numba walk: the perfect-recall best responder's value
    (``V_resp[s, L, t]``, seat 0 the policy's player) against ``policy`` (a ``ContinualResolver``)."""
    st = np.zeros(4, dtype=np.int64) if stats is None else stats
    cont = policy.cont
    v = search_best_response_walk(
        RESOLVE, bool(policy.opened), _root_window(cont), int(policy.depth), int(policy.iterations),
        int(GADGETS[policy.gadget]), int(policy.K), int(policy.D), policy.ns, policy.rc, policy.claim_r,
        policy.U, policy.V, policy.cidx, float(policy.vscale), policy.acc_type, cont.voff, cont.side, cont.act_off,
        cont.child, policy.prior_req, policy.prior_opp,
        np.ascontiguousarray(V_resp, dtype=np.float64), float(min_reach), np.zeros(1), np.zeros(1, np.int64),
        st)
    return float(policy.prior_opp @ v)


def table_best_response(own: int, opp: int, opened: bool, act_off, child, w_root: int, tab: np.ndarray,
                        tab_off: np.ndarray, V_resp: np.ndarray) -> float:
    """The same walk against a fixed table (the requester's rows of window w at ``tab[tab_off[w]:]``):
    the perfect-recall best responder's value in the other seat."""
    from games.dudo.search.endgame import _seat_arrays
    from games.dudo.rules import roll_arrays
    ns, rc, claim_r = _seat_arrays(own, opp)
    K, D = 6 * (own + opp), own + opp
    st = np.zeros(4, dtype=np.int64)
    v = search_best_response_walk(
        TABLE, bool(opened), int(w_root), 2, 0, 0, K, D, ns, rc, claim_r, np.zeros((2, K, D + 1)),
        np.zeros((1, 1)), np.zeros(1, np.int64), 1.0, np.zeros(1), np.zeros(2, np.int64), np.zeros(2, np.int64), np.asarray(act_off, np.int64),
        np.asarray(child, np.int64), roll_arrays(own)[0].copy(), roll_arrays(opp)[0].copy(),
        np.ascontiguousarray(V_resp, dtype=np.float64), 0.0, np.ascontiguousarray(tab, dtype=np.float64),
        np.asarray(tab_off, np.int64), st)
    return float(roll_arrays(opp)[0] @ v)


def timed_search_best_response(policy, V_resp, min_reach: float = 0.0):
    """(value, stats dict): the walk's value with its CPU seconds, re-solves and subgame nodes."""
    st = np.zeros(4, dtype=np.int64)
    c0, t0 = time.process_time(), time.perf_counter()
    v = search_best_response(policy, V_resp, min_reach, st)
    return v, dict(cpu=time.process_time() - c0, wall=time.perf_counter() - t0, resolves=int(st[0]),
                   nodes=int(st[1]), histories=int(st[2]), pruned=int(st[3]))
