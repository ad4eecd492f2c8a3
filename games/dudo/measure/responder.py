"""A sampled lower bound on the exploitability of any Dudo policy given as a function of the claim
history, searched or stored: the responder plays against the policy itself (docs/dudo-search-serving.md).

The responder is ``lbr``'s perfect-recall improvement (after Lisý & Bowling's local best response, AAAI
2017): it keeps the exact posterior over the fixed player's roll, computed from *the policy's own*
probabilities of the claims made along the history, and at each of its turns plays the action of
highest Q(a) = sum_y posterior(y) V(child(a))[x, y], V the value matrices of the memory-m' best response
to the stored strategy (``lbr.responder_tables``); Dudo is valued exactly.  Whatever Q it uses, this is
one fixed strategy of the responder, so its expected value against the policy is at most the policy's
best response value: a lower bound.  The value is sampled: the responder's roll from chance, the fixed
player's claims from the posterior predictive (its roll marginalised), each round's payoff the exact
posterior expectation at its end.  Rounds are seeded one by one, so the same seed gives the same rounds
against two policies as long as they agree (common random numbers).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.dudo.search.endgame import REQ
from games.dudo.abstraction.infoset import history_window
from games.dudo.measure.lbr import ResponderTables


def stored_policy(g, strat: np.ndarray, side: int):
    """``policy(hist) -> P[slot, roll]`` of side ``side`` of group ``g`` playing the stored ``strat``."""
    n = int(g.ns[side])

    def policy(hist):
        L = hist[-1] if hist else -1
        w = history_window(tuple(hist), g.K, g.m)
        base = int(g.rbase[side] + g.act_off[w] * n)
        return strat[base:base + (g.K - L) * n].reshape(g.K - L, n)
    return policy


class SearchedPolicy:
    """``policy(hist) -> P[slot, roll]`` of a re-solver (``continual.ContinualResolver`` or
    ``abstract_resolve.AbstractResolver``) by the chain of re-solves along ``hist``, each kept by its history (a
    chain prefix is computed once, as a server keeping its re-solves would)."""

    def __init__(self, resolver):
        self.r = resolver
        self.memo = {}

    def __call__(self, hist):
        return self.state(tuple(int(c) for c in hist))[1].root_strategy

    def state(self, hist):
        """(requester's range, re-solve) at the requester's decision after ``hist``."""
        if hist in self.memo:
            return self.memo[hist]
        r = self.r
        k = len(hist)
        if r.mover(k) != REQ:
            raise ValueError("it is the opponent's turn after this history")
        if k == 0:
            rr = r.prior_req.copy()
            out = (rr, r.resolve((), rr))
        elif k == 1:                   # the opponent opened: the round-root re-solve gives the targets
            if ("root",) not in self.memo:
                self.memo[("root",)] = r.resolve((), r.prior_req.copy())
            rr = r.prior_req.copy()
            out = (rr, r.resolve(hist, rr, self.memo[("root",)].target(hist)))
        else:
            rr0, res0 = self.state(hist[:-2])
            L = hist[-3] if k >= 3 else -1
            rr = rr0 * res0.root_strategy[hist[-2] - L]
            out = (rr, r.resolve(hist, rr, res0.target(hist[-2:])))
        self.memo[hist] = out
        return out


@dataclass(frozen=True)
class Sampled:
    value: float        # the responder's mean game-winning probability
    stderr: float
    games: int
    values: np.ndarray  # per round (win probability), for paired differences


def rows_action_values(t: ResponderTables, x: int, w: int, L: int, post: np.ndarray) -> np.ndarray:
    """The responder's values (+-1 units) of its actions at window ``w`` after last claim ``L`` (-1: none), holding
    roll ``x``, the fixed player's roll with posterior ``post``: Dudo exactly, a claim by the value matrix of the
    memory-m' best response to the stored rows below it (slot 0 Dudo, -inf where it is not an action)."""
    gs = t.gs
    nr, nf = int(gs.ns[t.s_resp]), int(gs.ns[t.s_fix])
    Q = np.full(gs.K - L, -np.inf)
    if L >= 0:
        Q[0] = post @ challenge_payoffs(t, 2 * t.T_resp - 1, L, x)
    V = t.solver.V
    vf = int(t.solver.voff[t.s_fix])
    for j in range(1, Q.size):
        vb = vf + int(gs.child[gs.act_off[w] + j]) * (nf * nr) + x * nf
        Q[j] = -(post @ V[vb:vb + nf])
    return Q


def challenge_payoffs(t: ResponderTables, U: np.ndarray, L: int, x: int) -> np.ndarray:
    """The responder's payoff per fixed roll when claim ``L`` is challenged; ``U``: +-1 unit tables of the
    challenger (``2 * t.T_resp - 1``: the responder challenges, ``2 * t.T_fix - 1``: the fixed player does)."""
    gs = t.gs
    r = gs.claim_r[L] - 1
    return U[L, gs.rc[t.s_resp][x, r] + gs.rc[t.s_fix][:int(gs.ns[t.s_fix]), r]]


def rows_choice(t: ResponderTables):
    """``choose(x, hist, w, L, post) -> slot``: this module's responder (argmax of ``rows_action_values``)."""
    return lambda x, hist, w, L, post: int(np.argmax(rows_action_values(t, x, w, L, post)))


def reply_estimates(t: ResponderTables, x: int, w: int, L: int, post: np.ndarray, P: np.ndarray):
    """(predictive probability of each reply of the fixed player at window ``w`` after claim ``L``, the
    responder's estimated value after each): Dudo exactly, a claim by the best of ``rows_action_values`` at the
    responder's next decision.  The control variate of ``sample_response(control=True)``."""
    gs = t.gs
    joint = np.asarray(P) * post
    q = joint.sum(axis=1)
    est = np.zeros(q.size)
    for b in np.flatnonzero(q > 0):
        post_b = joint[b] / q[b]
        if b == 0:
            est[0] = post_b @ challenge_payoffs(t, 2 * t.T_fix - 1, L, x)
        else:
            est[b] = rows_action_values(t, x, int(gs.child[gs.act_off[w] + b]), L + int(b), post_b).max()
    return q, est


def root_estimates(t: ResponderTables, policy, resp_is_opener: bool) -> np.ndarray:
    """The responder's estimated value at the round's root for each of its rolls (the control variate of its
    roll): at its own decision the best of ``rows_action_values``, at the policy's the expectation of
    ``reply_estimates``."""
    gs = t.gs
    nr, nf = int(gs.ns[t.s_resp]), int(gs.ns[t.s_fix])
    pf = gs.probs[t.s_fix, :nf] / gs.probs[t.s_fix, :nf].sum()
    if resp_is_opener:
        return np.array([rows_action_values(t, x, 0, -1, pf).max() for x in range(nr)])
    P = np.asarray(policy(()))
    out = np.empty(nr)
    for x in range(nr):
        q, est = reply_estimates(t, x, 0, -1, pf, P)
        out[x] = q @ est
    return out


def sample_response(t: ResponderTables, policy, resp_is_opener: bool, games: int, seed: int = 0,
                    log_every: int = 0, log=print, choose=None, control: bool = False) -> Sampled:
    """The responder of ``t`` (one seat) against ``policy`` (the fixed player's P[slot, roll] at each of
    its histories, in the rolls of ``t``'s fixed side), ``games`` sampled rounds.  ``choose(x, hist, w, L,
    post) -> slot``: the responder's choice, a function of what it observes (default ``rows_choice``).

    ``control``: each round's value less zero-mean control variates (Burch, Schmid, Moravčík, Morrill & Bowling,
    "AIVAT", AAAI 2018): at the responder's roll and at each reply of the policy, the estimated value of what
    was drawn less its expectation over what could have been (``root_estimates``, ``reply_estimates``; the
    draws are made from exactly those probabilities), so the mean is the same in expectation and the variance
    is what the estimates do not explain."""
    if games < 2:
        raise ValueError("games must be at least 2 (the standard error needs two)")
    choose = rows_choice(t) if choose is None else choose
    gs = t.gs
    K = gs.K
    nr, nf = int(gs.ns[t.s_resp]), int(gs.ns[t.s_fix])
    pr = gs.probs[t.s_resp, :nr] / gs.probs[t.s_resp, :nr].sum()
    pf = gs.probs[t.s_fix, :nf] / gs.probs[t.s_fix, :nf].sum()
    Ur = 2 * t.T_resp - 1
    Uf = 2 * t.T_fix - 1        # the responder's payoff when the fixed player challenges
    at_root = root_estimates(t, policy, resp_is_opener) if control else None
    vals = np.empty(games)
    for gi in range(games):
        rng = np.random.default_rng([seed, gi])
        x = int(rng.choice(nr, p=pr))
        cv = at_root[x] - pr @ at_root if control else 0.0
        post = pf.copy()
        hist: list[int] = []
        w, L, k = 0, -1, 0
        while True:
            if (k % 2 == 0) == resp_is_opener:
                j = choose(x, tuple(hist), w, L, post)
                if j == 0:
                    u = post @ challenge_payoffs(t, Ur, L, x)
                    break
            else:
                P = np.asarray(policy(tuple(hist)))
                q = P @ post
                tot = q.sum()
                if tot <= 0:
                    raise ValueError(f"the policy has no action after {hist}")
                j = int(rng.choice(q.size, p=q / tot))
                if control:
                    qe, est = reply_estimates(t, x, w, L, post, P)
                    cv += est[j] - qe @ est / qe.sum()
                post = post * P[j]
                post = post / post.sum()
                if j == 0:
                    u = post @ challenge_payoffs(t, Uf, L, x)
                    break
            w = int(gs.child[gs.act_off[w] + j])
            L += j
            hist.append(L)
            k += 1
        vals[gi] = 0.5 * (1 + u - cv)
        if log_every and (gi + 1) % log_every == 0:
            log(f"    {gi + 1} rounds: {vals[:gi + 1].mean():.4f} +- {vals[:gi + 1].std(ddof=1) / np.sqrt(gi + 1):.4f}")
    return Sampled(float(vals.mean()), float(vals.std(ddof=1) / np.sqrt(games)), games, vals)


def strategy_value(t: ResponderTables, policy, resp_is_opener: bool, choose=None) -> float:
    """The responder's game-winning probability against ``policy`` exactly (what ``sample_response`` estimates):
    every roll of the responder and every reply of the policy enumerated, the responder's one action per
    (roll, history) by ``choose`` (default ``rows_choice``).  Feasible where the policy's support is small (the
    exact rounds); histories the policy reaches with probability 0 are not visited."""
    choose = rows_choice(t) if choose is None else choose
    gs = t.gs
    nr, nf = int(gs.ns[t.s_resp]), int(gs.ns[t.s_fix])
    pr = gs.probs[t.s_resp, :nr] / gs.probs[t.s_resp, :nr].sum()
    pf = gs.probs[t.s_fix, :nf] / gs.probs[t.s_fix, :nf].sum()
    Ur = 2 * t.T_resp - 1
    Uf = 2 * t.T_fix - 1

    def value(x, hist, w, L, post):
        """The responder's value (+-1 units) from its turn or the policy's after ``hist``."""
        if (len(hist) % 2 == 0) == resp_is_opener:
            j = choose(x, hist, w, L, post)
            if j == 0:
                return float(post @ challenge_payoffs(t, Ur, L, x))
            return value(x, hist + (L + j,), int(gs.child[gs.act_off[w] + j]), L + j, post)
        joint = np.asarray(policy(hist)) * post          # [reply, fixed roll]
        v = float(joint[0] @ challenge_payoffs(t, Uf, L, x)) if L >= 0 else 0.0
        for b in range(1, gs.K - L):
            q = joint[b].sum()
            if q > 0:
                v += q * value(x, hist + (L + b,), int(gs.child[gs.act_off[w] + b]), L + b, joint[b] / q)
        return v

    u = sum(pr[x] * value(x, (), 0, -1, pf.copy()) for x in range(nr))
    return 0.5 * (1 + u)
