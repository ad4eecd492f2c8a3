"""A perfect-recall lower bound beyond the exact best response: one step of policy improvement over
the memory-m' best response, sampled (in the spirit of Lisý & Bowling's local best response, AAAI 2017).

The responder with memory m' (``bound.memory_best_response``, policy pi) has, on the m'-window DAG,
an exact value matrix V(w)[x, y] for every node (the continuation's value given both rolls: the
fixed player plays its strategy, pi plays its choices; neither depends on claims before the window).
The improved responder remembers the whole round and keeps the exact posterior over the fixed
player's roll (prior times the strategy's probability of each claim it made).  At each of its turns
it plays the action of highest value Q(a) = sum_y posterior(y) V(child(a))[x, y] (Dudo: the exact
terminal value), i.e. the best action if pi played on from there.  By the policy-improvement theorem
(the responder faces a fixed strategy: a POMDP whose belief is that posterior) it gains at least
pi's value from every history, and by the performance-difference identity its value is

    value(improved) = value(pi) + E_improved[ sum over its turns of Q(its action) - Q(pi's action) ],

each term >= 0 and computed exactly given the claims.  The expectation is sampled: the fixed
player's claims are drawn from the posterior predictive, ``games`` rounds per responder roll
(stratified), so the estimate carries a standard error; value(pi) is exact.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.dudo.measure.bound import lift_strategy, seat_group
from games.dudo.abstraction.dag import Group
from games.dudo.solvers.kernels import br_backward, expected_value
from games.dudo.solvers.abstract_cfr import FastSolver

KIND = "lower bound: perfect-recall improvement of the best response with memory {m} (sampled)"


def improvement_kind(m_resp: int) -> str:
    return KIND.format(m=m_resp)


@njit(cache=True, nogil=True)
def _splitmix(state):
    """One step of splitmix64 on ``state[0]``: a uniform float in [0, 1)."""
    state[0] = state[0] + np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def improvement_games(x, games, seed, resp_first, strat, sf_base, nf, nr, rc_r, rc_f, probs_f,
                      claim_r, U_resp, K, act_off, child, V, vf_off, choice, rr_base, out, by_last):
    """Play ``games`` rounds of the improved responder holding roll ``x``; ``out[0], out[1]`` get
    the sum and sum of squares of each round's summed advantage over pi (+-1 units), ``out[2]``
    the responder's turns, ``out[3]`` the turns where it left pi's action; ``by_last[0, L + 1]`` and
    ``by_last[1, L + 1]`` the advantage and the turns where the last claim had strength L (-1: none).
    Returns 1 if the fixed strategy has no action where the round reached, else 0."""
    A = np.empty((K, nf))      # responder's utility when it challenges claim c and the other holds y
    for c in range(K):
        r = claim_r[c] - 1
        cx = rc_r[x, r]
        for y in range(nf):
            A[c, y] = U_resp[c, cx + rc_f[y, r]]
    post = np.empty(nf)
    q = np.empty(K + 1)
    Q = np.empty(K + 1)
    tot0 = 0.0
    for y in range(nf):
        tot0 += probs_f[y]
    state = np.empty(1, dtype=np.uint64)
    s1 = 0.0
    s2 = 0.0
    turns = 0
    changed = 0
    by_last[:] = 0.0
    for gi in range(games):
        state[0] = np.uint64(seed) * np.uint64(1000003) + np.uint64(x) * np.uint64(7919) \
            + np.uint64(gi) * np.uint64(0x632BE59BD9B4E019)
        for y in range(nf):
            post[y] = probs_f[y] / tot0
        w = 0
        L = -1
        k = 0
        adv = 0.0
        while True:
            if (k % 2 == 0) == resp_first:
                turns += 1
                na = K - L
                a0 = 1 if L < 0 else 0
                if L >= 0:
                    v = 0.0
                    for y in range(nf):
                        v += post[y] * A[L, y]
                    Q[0] = v
                for j in range(1, na):
                    vb = vf_off + child[act_off[w] + j] * (nf * nr) + x * nf
                    v = 0.0
                    for y in range(nf):
                        v -= post[y] * V[vb + y]
                    Q[j] = v
                best = a0
                for j in range(a0 + 1, na):
                    if Q[j] > Q[best]:
                        best = j
                jp = choice[rr_base + act_off[w] * nr + x]
                if jp < a0 or jp >= na:
                    jp = best
                by_last[1, L + 1] += 1.0
                if Q[best] > Q[jp]:
                    adv += Q[best] - Q[jp]
                    by_last[0, L + 1] += Q[best] - Q[jp]
                    changed += 1
                if best == 0:
                    break
                w = child[act_off[w] + best]
                L = L + best
                k += 1
            else:
                base = sf_base + act_off[w] * nf
                na = K - L
                tot = 0.0
                for j in range(na):
                    s = 0.0
                    for y in range(nf):
                        s += post[y] * strat[base + j * nf + y]
                    q[j] = s
                    tot += s
                if tot <= 0.0:
                    return 1
                u = _splitmix(state) * tot
                j = -1
                acc = 0.0
                for jj in range(na):
                    acc += q[jj]
                    if u < acc and q[jj] > 0.0:
                        j = jj
                        break
                if j < 0:       # u at the very top (rounding): the last action with any weight
                    j = na - 1
                    while q[j] <= 0.0:
                        j -= 1
                if j == 0:
                    break
                for y in range(nf):
                    post[y] = post[y] * strat[base + j * nf + y] / q[j]
                w = child[act_off[w] + j]
                L = L + j
                k += 1
        s1 += adv
        s2 += adv * adv
    out[0] = s1
    out[1] = s2
    out[2] = turns
    out[3] = changed
    return 0


@dataclass(frozen=True)
class SeatEstimate:
    value: float        # the improved responder's game-winning probability (estimate)
    stderr: float
    base: float         # pi's game-winning probability (exact)
    games: int
    changed: float      # share of the responder's turns where it left pi's action
    # [2, K + 1]: the expected advantage (win probability) and responder turns per round by the strength
    # of the last claim at the turn (index L + 1)
    by_last: np.ndarray = field(default=None, compare=False)


@dataclass
class ResponderTables:
    """The memory-m' responder pi of one seat on the m'-window group ``gs``: the fixed player's lifted
    strategy, the value matrices of every node (``solver.V``, ``solver.voff``), pi's choices and the
    responder's game-winning probabilities after a challenge (``T_resp``: it challenges, ``T_fix``:
    the fixed player does)."""
    gs: Group
    lifted: np.ndarray
    solver: FastSolver
    choice: np.ndarray
    T_resp: np.ndarray
    T_fix: np.ndarray
    s_open: int
    s_resp: int
    s_fix: int

    def base_value(self, resp_is_opener: bool) -> float:
        """pi's value (+-1 units) from the round's root."""
        g = self.gs
        nr, nf = int(g.ns[self.s_resp]), int(g.ns[self.s_fix])
        pr, pf = g.probs[self.s_resp, :nr], g.probs[self.s_fix, :nf]
        root = self.solver.root_matrix(self.s_open)    # [other's roll, opener's roll]
        # a fixed summation order, not BLAS (whose kernel, and with it the sum's last bits, depends on the CPU):
        # the figure goes into the store's manifest, whose content hash must not depend on the machine
        return float(expected_value(pf, root, pr)) if resp_is_opener else -float(expected_value(pr, root, pf))


def responder_tables(g: Group, strat: np.ndarray, opener_dice: int, resp_is_opener: bool, m_resp, W,
                     resp_open: dict, resp_other: dict, max_dice: int) -> ResponderTables:
    """pi's tables for one seat (the same DAG and terminal values as ``bound.memory_best_response``,
    with the reference kernel, which keeps every node's value matrix)."""
    gs, s_open, s_resp, s_fix, small_fix, T_resp, T_fix = seat_group(g, opener_dice, resp_is_opener, m_resp, W,
                                                                     resp_open, resp_other, max_dice)
    lifted = lift_strategy(g, strat, gs, [small_fix], [s_fix])
    solver = FastSolver(gs, kernel="reference", train=False)
    solver._forward(lifted)
    choice = np.full(gs.nrows, -1, dtype=np.int16)
    br_backward(lifted, solver.V, solver.oreach, gs.ns, gs.oth, gs.rc, gs.claim_r, gs.terminal, gs.rbase,
                gs.order, gs.act_off, gs.last, gs.child, gs.NW, solver.reachable, s_resp, solver.voff, choice)
    return ResponderTables(gs, lifted, solver, choice, T_resp, T_fix, s_open, s_resp, s_fix)


def improved_best_response(g: Group, strat: np.ndarray, opener_dice: int, m_resp, W,
                           resp_open: dict, resp_other: dict, max_dice: int, games: int,
                           seed: int = 0, threads: int = 1) -> tuple[SeatEstimate, SeatEstimate]:
    """(responder as opener, responder as the other) in the round of group ``g`` opened by the
    player with ``opener_dice``, against ``strat``: pi is the responder with memory ``m_resp``
    (>= the group's m); continuations as for ``bound.memory_best_response``. ``threads`` > 1: the two seats
    at once (their kernels release the GIL; the same bits, each seat's work is its own)."""
    if games < 2:
        raise ValueError("games must be at least 2 (the standard error needs two)")
    args = (g, strat, opener_dice, m_resp, W, resp_open, resp_other, max_dice, games, seed)
    if threads > 1:
        with ThreadPoolExecutor(2, thread_name_prefix="improvement-seat") as pool:
            o, n = pool.map(lambda resp_is_opener: _seat_estimate(resp_is_opener, *args), (True, False))
        return o, n
    return _seat_estimate(True, *args), _seat_estimate(False, *args)


def _seat_estimate(resp_is_opener: bool, g: Group, strat: np.ndarray, opener_dice: int, m_resp, W,
                   resp_open: dict, resp_other: dict, max_dice: int, games: int, seed: int) -> SeatEstimate:
    """One seat of ``improved_best_response``."""
    t = responder_tables(g, strat, opener_dice, resp_is_opener, m_resp, W, resp_open, resp_other, max_dice)
    gs = t.gs
    nr, nf = int(gs.ns[t.s_resp]), int(gs.ns[t.s_fix])
    pr, pf = gs.probs[t.s_resp, :nr], np.ascontiguousarray(gs.probs[t.s_fix, :nf])
    base_pm = t.base_value(resp_is_opener)
    U_resp = 2 * t.T_resp - 1
    rc_r, rc_f = np.ascontiguousarray(gs.rc[t.s_resp]), np.ascontiguousarray(gs.rc[t.s_fix])
    acc = np.zeros(4)
    by_x = np.zeros((2, gs.K + 1))
    by_last = np.zeros((2, gs.K + 1))
    mean = var = turns = changed = 0.0
    for x in range(nr):
        if improvement_games(x, games, seed + (0 if resp_is_opener else 1), resp_is_opener, t.lifted,
                             int(gs.rbase[t.s_fix]), nf, nr, rc_r, rc_f, pf, gs.claim_r, U_resp, gs.K,
                             gs.act_off, gs.child, t.solver.V, int(t.solver.voff[t.s_fix]), t.choice,
                             int(gs.rbase[t.s_resp]), acc, by_x):
            raise ValueError(f"the strategy of {gs.dice[t.s_fix]} dice has no action at a window "
                             f"the round reached")
        mx = acc[0] / games
        mean += pr[x] * mx
        var += pr[x] ** 2 * max(0.0, acc[1] / games - mx * mx) * games / (games - 1) / games
        turns += acc[2]
        changed += acc[3]
        by_last += pr[x] / games * by_x
    del t
    by_last[0] *= 0.5       # +-1 units to win probability
    return SeatEstimate(0.5 * (1 + base_pm + mean), 0.5 * float(np.sqrt(var)), 0.5 * (1 + base_pm),
                        games * nr, changed / max(turns, 1.0), by_last)


@dataclass(frozen=True)
class RoundEstimate:
    exploitability: float     # both seats' gains: br_opener + br_other - 1
    stderr: float
    base: float               # the same with pi (the memory-m' bound, exact)
    br_opener: float
    br_other: float
    games: int
    changed: float
    by_last: np.ndarray = field(default=None, compare=False)    # both seats' ``SeatEstimate.by_last`` added
    seat_bases: tuple = ()      # (as opener, as the other): each seat's pi value, ``bound.memory_best_response``'s


def round_improved_best_response(g: Group, strat, opener_dice: int, m_resp, W, resp_open: dict,
                                 resp_other: dict, max_dice: int, games: int, seed: int = 0,
                                 threads: int = 1) -> RoundEstimate:
    """Both seats' improved responders in one round: the estimated exploitability."""
    o, n = improved_best_response(g, strat, opener_dice, m_resp, W, resp_open, resp_other, max_dice,
                                  games, seed, threads)
    return RoundEstimate(o.value + n.value - 1.0, float(np.hypot(o.stderr, n.stderr)),
                         o.base + n.base - 1.0, o.value, n.value, o.games + n.games,
                         0.5 * (o.changed + n.changed), o.by_last + n.by_last, (o.base, n.base))
