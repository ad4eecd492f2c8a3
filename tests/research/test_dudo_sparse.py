"""Designs (b) and (c) of the sparse tables: summary memories (research.dudo_summary) against their histories and an independent
exact best response; Linear CFR with partial and regret-based pruning (research.dudo_pruning) against dense
discounted CFR, the sequence-form LP and a walk over every claim history."""
import numpy as np
import pytest

from games.dudo.reference import exact_check
from games.dudo.measure.exploit import best_response_value, exploitability_1v1
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import num_windows
from games.dudo.reference.lp import sequence_form_value
from research.dudo_pruning import PrunedSolver, lift_shorter
from games.dudo.solvers.abstract_cfr import FastSolver
from research.dudo_summary import KINDS, Summary, base_window_map, summary_state, summary_tables, summary_window

W = {(1, 1): 0.486, (1, 2): 0.3, (2, 1): 0.7}


def _histories(K):
    return [[c for c in range(K) if bits >> c & 1] for bits in range(1 << K)]


def test_a_summary_memory_says_what_is_wrong():
    assert Summary.parse("2+first") == Summary(2, "first") and str(Summary(3, "sets")) == "3+sets"
    for bad, why in (("2+faces", "want one of"), ("x+sets", "want CLAIMS"), ("0+sets", ">= 1"), ("2sets", "want CLAIMS")):
        with pytest.raises(ValueError, match=why):
            Summary.parse(bad)


@pytest.mark.parametrize("base", [1, 2, 3])
@pytest.mark.parametrize("kind", KINDS)
def test_summary_windows_follow_every_history(base, kind):
    """Walking the window DAG claim by claim reaches the window computed from the whole history (each player's
    claims before the last ``base``, read in order), and every window is reached."""
    K = 12
    m = Summary(base, kind)
    last, size, act_off, child = summary_tables(K, m)
    seen = set()
    for hist in _histories(K):
        w = 0
        for c in hist:
            w = int(child[act_off[w] + c - last[w]])
        assert w == summary_window(hist, K, m), (hist, summary_state(hist, K, m))
        claims = summary_state(hist, K, m)[0]
        assert int(last[w]) == (claims[-1] if claims else -1) and int(size[w]) == len(claims)
        seen.add(w)
    assert seen == set(range(num_windows(K, m)))


def test_a_summary_memory_of_a_plain_strategy_has_its_exact_best_response():
    """A memory-2 strategy lifted to 2+first and 2+sets (each window plays its claims' row) is best-responded
    to for the same value through either DAG."""
    a, b, m = 1, 2, 2
    g = make_group(a, b, m, W)
    s = FastSolver(g)
    s.solve(30, progress=False)
    st = s.average_strategy()
    resp_open, resp_other = {(1, 1): 0.5}, {(1, 1): 0.5}
    for kind in ("first", "sets"):
        gs = make_group(a, b, Summary(m, kind), W)
        wmap = base_window_map(gs.K, gs.m)
        lifted = np.zeros(gs.nrows)
        for w in range(gs.NW):
            na = int(gs.act_off[w + 1] - gs.act_off[w])
            for side in range(gs.nsides):
                n = int(gs.ns[side])
                fb, cb = int(gs.rbase[side] + gs.act_off[w] * n), int(g.rbase[side] + g.act_off[wmap[w]] * n)
                lifted[fb:fb + na * n] = st[cb:cb + na * n]
        for opener in (1, 2):
            for resp_first in (True, False):
                want = best_response_value(g, st, opener, resp_first, resp_open, resp_other)
                got = best_response_value(gs, lifted, opener, resp_first, resp_open, resp_other)
                assert got == pytest.approx(want, abs=1e-12)


def test_a_trained_summary_strategy_has_the_independent_exact_best_response():
    """CFR+ on 1v1's 1+first windows; the exact best response through its DAG equals exact_check's, written
    from the rules, with the policy read from each history's summary (summary_state)."""
    m = Summary(1, "first")
    g = make_group(1, 1, m, {})
    s = FastSolver(g)
    s.solve(40, progress=False)
    st = s.average_strategy()
    n = int(g.ns[0])

    def policy(own, opp, hist):
        w = summary_window(list(hist), g.K, m)
        na = int(g.act_off[w + 1] - g.act_off[w])
        base = int(g.act_off[w]) * n
        return st[base:base + na * n].reshape(na, n)

    for seat in (0, 1):
        want = exact_check.best_response(1, 1, seat, policy, {}, {})
        got = best_response_value(g, st, 1, seat == 0, {}, {})
        assert got == pytest.approx(want, abs=1e-10)
    v, e = exploitability_1v1(g, st)
    assert 0.05 < e < 0.5           # a coarse memory: far from the LP's equilibrium


@pytest.mark.parametrize("a,b,m", [(1, 1, None), (1, 2, 3)])
def test_partial_pruning_is_linear_cfr(a, b, m):
    """Skipping the claims no reached roll of the non-updating seat plays changes nothing: the average strategy
    equals dense discounted CFR's with Linear CFR's weights (solver.FastSolver, its own kernels), and it skips
    work."""
    g = make_group(a, b, m, W)
    f = FastSolver(g, mode="dcfr", alpha=1.0, beta=1.0, avg_power=1.0)
    f.solve(40, progress=False)
    dense = PrunedSolver(g, prune=False, partial=False)
    part = PrunedSolver(g, prune=False)
    dense.solve(40)
    part.solve(40)
    np.testing.assert_allclose(dense.average_strategy(), f.average_strategy(), atol=1e-5)
    np.testing.assert_allclose(part.average_strategy(), dense.average_strategy(), atol=1e-12)
    assert part.stats[1] < dense.stats[1] and part.stats[2] > 0 and dense.stats[2] == 0


def test_pruned_linear_cfr_approaches_the_lp_value():
    """1v1 with perfect recall: Linear CFR with partial pruning at the sequence-form LP's value and near its
    equilibrium; with regret-based pruning too, within the looser figures that bound-based pruning reaches."""
    lp_value, _ = sequence_form_value(1, 1)
    g = make_group(1, 1, None, {})
    exact = PrunedSolver(g, prune=False)
    exact.solve(400)
    v, e = exploitability_1v1(g, exact.average_strategy())
    assert abs(v - lp_value) < 2e-4 and e < 0.003
    rbp = PrunedSolver(g)
    rbp.solve(400)
    v, e = exploitability_1v1(g, rbp.average_strategy())
    assert abs(v - lp_value) < 0.01 and e < 0.05 and rbp.stats[2] > exact.stats[2]


def test_warm_start_allocates_what_the_shorter_strategy_reaches():
    """1v1, perfect recall warm-started from memory 1: the allocated nodes are those whose mover's opponent
    reaches them with probability above eps under the lifted strategy, found by a walk over every claim history;
    before any iteration the lifted strategy is played everywhere and its exact best response is the shorter
    memory's."""
    eps = 1e-3
    gc = make_group(1, 1, 1, {})
    fc = FastSolver(gc)
    fc.solve(50, progress=False)
    sc = fc.average_strategy()
    g = make_group(1, 1, None, {})
    lifted = lift_shorter(g, gc, sc)
    s = PrunedSolver(g, eps=eps)
    s.warm_start(lifted, 10.0)
    n = int(g.ns[0])
    K = g.K
    reached = set()

    def walk(hist, w, reach):     # reach[p]: player p's own reach per roll (chance included); player 0 opens
        mover = len(hist) % 2
        if reach[1 - mover].sum() > eps:        # the mover's regrets here can change: allocated
            reached.add(w)
        last = hist[-1] if hist else -1
        base = int(g.act_off[w]) * n
        for c in range(last + 1, K):
            j = c - last
            nxt = [r.copy() for r in reach]
            nxt[mover] = reach[mover] * lifted[base + j * n:base + (j + 1) * n]
            walk(hist + [c], int(g.child[g.act_off[w] + j]), nxt)

    walk([], 0, [g.probs[0, :n].copy(), g.probs[0, :n].copy()])
    assert set(np.flatnonzero(s.allocated[0])) == reached
    assert 0 < len(reached) < g.NW / 2
    np.testing.assert_allclose(s.average_strategy(), lifted, atol=1e-12)
    want = exploitability_1v1(gc, sc)[1]
    assert exploitability_1v1(g, s.average_strategy())[1] == pytest.approx(want, abs=1e-9)


def test_pruning_says_what_is_wrong():
    g1 = make_group(1, 1, 1, {})
    g2 = make_group(1, 2, 2, W)
    with pytest.raises(ValueError, match="not the same dice"):
        lift_shorter(g2, g1, np.zeros(g1.nrows))
    s = PrunedSolver(g1)
    s.solve(1)
    with pytest.raises(ValueError, match="before the first iteration"):
        s.warm_start(np.zeros(g1.nrows), 1.0)
