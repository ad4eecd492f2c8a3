"""The responder-memory lower bound (games.dudo.measure.bound) against the exact perfect-recall best
response (games.dudo.measure.exploit, an independent depth-first walk over every claim history)."""
import numpy as np
import pytest

from games.dudo.measure.bound import br_kind, lift_strategy, memory_best_response
from games.dudo.measure.exploit import best_response_value
from games.dudo.solvers.abstract_cfr import FastSolver
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import window_from_index, window_index

W = {(1, 1): 0.486}
BR_OPEN, BR_OTHER = {(1, 1): 0.49}, {(1, 1): 0.52}


def _strategy(a, b, m, its=100):
    g = make_group(a, b, m, W)
    return g, FastSolver(g).solve(its, progress=False).average_strategy()


def test_lifted_strategy_is_looked_up_by_the_last_m_claims():
    g, st = _strategy(1, 2, 2, its=20)
    big = make_group(1, 2, 4, W)
    lifted = lift_strategy(g, st, big, [0, 1], [0, 1])
    rng = np.random.default_rng(0)
    for w in rng.integers(0, big.NW, 200):
        claims = window_from_index(int(w), big.K)
        ws = window_index(claims[-2:], g.K)
        na = int(big.act_off[w + 1] - big.act_off[w])
        for s in range(2):
            n = int(g.ns[s])
            a = lifted[big.rbase[s] + big.act_off[w] * n:][:na * n]
            b = st[g.rbase[s] + g.act_off[ws] * n:][:na * n]
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("a,b,m,opener", [(1, 1, 2, 1), (1, 2, 2, 1), (1, 2, 2, 2)])
def test_bound_lies_between_the_abstract_bound_and_the_exact_response(a, b, m, opener):
    g, st = _strategy(a, b, m)
    cont = (BR_OPEN, BR_OTHER) if a + b > 2 else ({}, {})
    exact = [best_response_value(g, st, opener, seat, *cont) for seat in (True, False)]
    abstract = memory_best_response(g, st, opener, m, W, *cont, 5)
    wider = memory_best_response(g, st, opener, m + 1, W, *cont, 5)
    for i in range(2):
        assert abstract[i] <= wider[i] + 1e-12
        assert wider[i] <= exact[i] + 1e-12
    # the longer memory finds strictly more on these rounds (the abstraction forgets)
    assert sum(wider) > sum(abstract) + 1e-4


def test_a_window_over_the_whole_round_is_the_exact_best_response():
    g, st = _strategy(1, 1, 2)
    exact = [best_response_value(g, st, 1, seat, {}, {}) for seat in (True, False)]
    full = memory_best_response(g, st, 1, None, W, {}, {}, 5)
    np.testing.assert_allclose(full, exact, atol=1e-12)
    assert br_kind(None) == "exact-perfect-recall"
    assert br_kind(5) == "lower bound: best response with memory 5"


def test_the_responder_remembers_at_least_the_abstraction():
    g, st = _strategy(1, 1, 3, its=5)
    with pytest.raises(ValueError):
        memory_best_response(g, st, 1, 2, W, {}, {}, 5)
