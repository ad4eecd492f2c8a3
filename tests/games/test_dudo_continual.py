"""Continual depth-limited re-solving (games.dudo.search.continual) checked against independent computations
on 1v1: the sequence-form LP value and exploit.py's perfect-recall best response."""
import numpy as np
import pytest

from games.dudo.measure.exploit import payoff_tables
from games.dudo.search.continual import (ContinualResolver, continuation_values,
                                  seat_best_response, seat_best_response_bounds)
from games.dudo.measure.exploit import best_response_value
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import history_window
from games.dudo.reference.lp import sequence_form_value
from games.dudo.solvers.abstract_cfr import FastSolver


@pytest.fixture(scope="module")
def lp_value():
    """The 1v1 opener's value (+-1) by the sequence-form LP, built from the rules alone (-7/258)."""
    return sequence_form_value(1, 1)[0]


def _blueprint(m, iterations):
    g = make_group(1, 1, m, {})
    s = FastSolver(g)
    s.solve(iterations, progress=False)
    return g, s.average_strategy()


@pytest.fixture(scope="module")
def coarse():
    """A memory-1 blueprint (exploitability about 0.24): search has a lot to fix."""
    return _blueprint(1, 100)


def _exploitability(g, st, depth, iterations=150, kinds=("blueprint", "br"), regrets="cfr+"):
    """Both seats' perfect-recall best responses against the policy (win probability) and the sum - 1."""
    V = payoff_tables(1, 1, {}, {}, {})
    brs = []
    for opened in (True, False):
        cont = continuation_values(1, 1, g.m, st, {}, 1, opened, kinds)
        pol = ContinualResolver(1, 1, opened, {}, cont, depth=depth, iterations=iterations, regrets=regrets)
        brs.append(seat_best_response(pol, V))
    return brs, sum(brs) - 1


class _Fixed(ContinualResolver):
    """The blueprint itself as a 'policy' (every re-solve answers the blueprint's row): the walk must
    then give exploit.py's best response."""

    def __init__(self, g, st, opened):
        self.g, self.st = g, st
        super().__init__(1, 1, opened, {}, None)

    def resolve(self, history, reach_req, target=None):
        w = history_window(history, self.g.K, self.g.m)
        n = int(self.g.ns[0])
        a, b = int(self.g.act_off[w]), int(self.g.act_off[w + 1])
        return _Row(self.st[a * n:b * n].reshape(b - a, n).copy())


class _Row:
    def __init__(self, root_strategy):
        self.root_strategy = root_strategy

    def target(self, claims):
        return None


def test_walk_is_exploit_best_response_on_a_fixed_strategy(coarse):
    g, st = coarse
    V = payoff_tables(1, 1, {}, {}, {})
    for opened in (True, False):
        walk = seat_best_response(_Fixed(g, st, opened), V)
        ref = best_response_value(g, st, 1, not opened, {}, {})
        assert walk == pytest.approx(ref, abs=1e-12)


def test_a_walk_that_skips_rare_histories_brackets_the_exact_best_response(coarse):
    """Skipping the histories the policy reaches with at most ``min_reach`` gives bounds that hold the exact walk's
    value, narrowing as ``min_reach`` falls, and the exact value at 0; the blueprint as the policy (every history
    reached) and a searched one."""
    g, st = coarse
    V = payoff_tables(1, 1, {}, {}, {})
    for opened in (True, False):
        cont = continuation_values(1, 1, 1, st, {}, 1, opened)
        for pol in (_Fixed(g, st, opened), ContinualResolver(1, 1, opened, {}, cont, depth=2, iterations=50)):
            exact = seat_best_response(pol, V)
            assert seat_best_response_bounds(pol, V) == (exact, exact)
            widths = []
            for min_reach in (1e-2, 1e-3):
                lo, hi = seat_best_response_bounds(pol, V, min_reach)
                assert lo <= exact + 1e-12 and exact <= hi + 1e-12
                widths.append(hi - lo)
            assert widths[0] > 0 and widths[1] < widths[0]


@pytest.mark.parametrize("regrets", ["cfr+", "dcfr"])
def test_whole_round_resolving_is_near_the_lp_equilibrium(coarse, lp_value, regrets):
    """Depth 12 covers the whole round: the first re-solve is the perfect-recall round itself, by either scheme."""
    brs, e = _exploitability(*coarse, depth=12, regrets=regrets)
    w = 0.5 * (1 + lp_value)
    assert brs[1] >= w - 1e-9 and brs[0] >= 1 - w - 1e-9    # no strategy holds a responder below the value
    assert e < 0.005


def test_depth_limited_search_on_exact_leaves_is_near_the_lp_equilibrium(lp_value):
    """Depth 2 with the leaves of a near-exact perfect-recall blueprint: near the LP value; a wrong leaf
    value or wrong targets would not be (measured: 0.0041 after 150 re-solve iterations, 0.0003 after
    600; with the blueprint as the opponent's only continuation 0.020 after 600)."""
    g, st = _blueprint(None, 1000)
    brs, e = _exploitability(g, st, depth=2, iterations=400)
    w = 0.5 * (1 + lp_value)
    assert brs[1] >= w - 1e-9 and brs[0] >= 1 - w - 1e-9
    assert e < 0.003


def test_depth_limited_search_lowers_a_coarse_blueprints_exploitability(coarse):
    g, st = coarse
    blueprint = (best_response_value(g, st, 1, True, {}, {}) + best_response_value(g, st, 1, False, {}, {}) - 1)
    _, e4 = _exploitability(g, st, depth=4)
    assert blueprint > 0.1 and e4 < blueprint / 10


def test_strategy_of_a_request_is_the_walks_resolve(coarse):
    """What a server computes per request (the chain of re-solves along its history) is what the
    evaluation plays at that history."""
    g, st = coarse
    cont = continuation_values(1, 1, 1, st, {}, 1, False)
    pol = ContinualResolver(1, 1, False, {}, cont, depth=3, iterations=50)
    history = (2, 5, 7)
    rr = pol.prior_req.copy()
    root = pol.resolve((), rr)
    first = pol.resolve(history[:1], rr, root.target(history[:1]))
    rr2 = rr * first.root_strategy[history[1] - history[0]]
    second = pol.resolve(history, rr2, first.target(history[1:3]))
    assert np.array_equal(pol.strategy(history), second.root_strategy)
