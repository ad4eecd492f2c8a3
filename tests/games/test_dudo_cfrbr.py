"""CFR+ against responders that remember more (games.dudo.cfrbr), checked against independent computations:
the coarse DAG's own regrets, the sequence-form LP value of 1v1 and the exact perfect-recall best response."""
import numpy as np
import pytest

from games.dudo.bound import lift_strategy
from games.dudo.cfrbr import CFRBR
from games.dudo.exploit import exploitability_1v1
from games.dudo.game import make_group
from games.dudo.solver import FastSolver

EXACT_1V1 = -7 / 258      # the opener's value in +-1 units (sequence-form LP, test_dudo_solvers)
W12 = {(1, 1): 0.5 - 7 / 516}


def _random_strategy(g, seed):
    """A random legal strategy of group g (every node's rows sum to one over its actions)."""
    rng = np.random.default_rng(seed)
    out = np.zeros(g.nrows)
    for s in range(g.nsides):
        n = int(g.ns[s])
        for w in range(g.NW):
            na = int(g.act_off[w + 1] - g.act_off[w])
            a0 = 1 if g.last[w] < 0 else 0
            p = rng.random((na - a0, n))
            base = int(g.rbase[s] + g.act_off[w] * n)
            out[base + a0 * n:base + na * n] = (p / p.sum(axis=0)).ravel()
    return out


@pytest.mark.parametrize("a,b,m,m_fine", [(1, 2, 1, 3), (1, 2, 2, None), (1, 1, 1, None), (1, 1, 2, 4)])
def test_summed_fine_regrets_are_the_coarse_regrets(a, b, m, m_fine):
    """With the responder playing the abstract strategy too, the regrets summed over fine windows are the
    regrets the coarse DAG computes directly (its nodes merge exactly those histories)."""
    W = W12 if a + b > 2 else {}
    g = make_group(a, b, m, W)
    gf = make_group(a, b, m_fine, W, split=a == b)
    sigma = _random_strategy(g, 7)
    cb = CFRBR(g, gf)
    f = cb.fine
    summed = np.zeros(g.nrows)
    for cs, fs, _ in cb.pairs:
        cb.profile[:] = lift_strategy(g, sigma, gf, [p[0] for p in cb.pairs], [p[1] for p in cb.pairs])
        f.pred[:] = 0.0
        cb._pass("record", fs)
        cb._gather(f.pred, summed, cs, fs)
    coarse = FastSolver(g, mode="record", alternate=False)
    coarse._forward(sigma)
    coarse._backward(sigma, True, 1.0, phase=-1)
    assert np.abs(coarse.pred).max() > 1e-3
    np.testing.assert_allclose(summed, coarse.pred, atol=1e-12)


def test_perfect_recall_reaches_the_lp_value():
    """Both players with perfect recall: the asymmetric game is the game, so the average is an equilibrium."""
    g = make_group(1, 1, None)
    cb = CFRBR(g, make_group(1, 1, None, split=True)).solve(300)
    v, e = exploitability_1v1(g, cb.average_strategy())
    assert e < 2e-3
    assert v == pytest.approx(EXACT_1V1, abs=2e-3)


@pytest.mark.parametrize("responder,factor", [("cfr", 0.2), ("br", 0.6)])
def test_less_exploitable_than_the_abstract_equilibrium(responder, factor):
    """Memory 2 in 1v1: CFR+ on the abstract game settles on a strategy that a perfect-recall responder
    exploits by about 0.1; trained against such responders the same memory is exploited far less (best
    responses converge as 1/sqrt(T): 0.045 after 300 iterations, CFR+ responders 0.007)."""
    g = make_group(1, 1, 2)
    _, e_abstract = exploitability_1v1(g, FastSolver(g).solve(300, progress=False).average_strategy())
    cb = CFRBR(g, make_group(1, 1, None, split=True), responder).solve(300)
    _, e = exploitability_1v1(g, cb.average_strategy())
    assert e_abstract > 0.08
    assert e < factor * e_abstract


def test_the_fine_group_must_remember_more():
    with pytest.raises(ValueError, match="remember at least"):
        CFRBR(make_group(1, 1, 3), make_group(1, 1, 2, split=True))
    with pytest.raises(ValueError, match="split"):
        CFRBR(make_group(1, 1, 2), make_group(1, 1, None))
