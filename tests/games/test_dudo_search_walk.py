"""The numba evaluation walk of continual re-solving (games.dudo.measure.search_walk) against independent
computations: on a fixed table, exploit.py's best response over the window DAG and exact_check's best
response written from the rules; with re-solving, continual.seat_best_response (the Python walk calling
ContinualResolver.resolve at each decision)."""
import numpy as np
import pytest

from games.dudo.measure.exploit import payoff_tables
from games.dudo.reference import exact_check
from games.dudo.search.continual import ContinualResolver, continuation_values, seat_best_response
from games.dudo.measure.exploit import best_response_value
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import history_window
from games.dudo.measure.search_walk import search_best_response, table_best_response
from games.dudo.solvers.abstract_cfr import FastSolver

# later rounds' worth to the responder (arbitrary, so that the round's payoffs are not symmetric)
RESP_OPEN = {(1, 1): 0.61}
RESP_OTHER = {(1, 1): 0.43}


def _blueprint(a, b, m, iterations, W):
    g = make_group(a, b, m, W)
    s = FastSolver(g)
    s.solve(iterations, progress=False)
    return g, s.average_strategy()


@pytest.fixture(scope="module")
def g11():
    return _blueprint(1, 1, 1, 60, {})


@pytest.fixture(scope="module")
def g12():
    return _blueprint(1, 2, 2, 40, {(1, 1): 0.5})


def _table(g, st, own):
    """(tab, tab_off) of the side holding ``own`` dice, and a history -> P policy of the same rows."""
    s = 0 if g.nsides == 1 else g.dice.index(own)
    n = int(g.ns[s])
    tab_off = int(g.rbase[s]) + g.act_off[:-1] * n

    def policy(o, p, hist):
        w = history_window(list(hist), g.K, g.m)
        L = hist[-1] if hist else -1
        return st[tab_off[w]:tab_off[w] + (g.K - L) * n].reshape(g.K - L, n)

    return st, tab_off, policy


@pytest.mark.parametrize("own,opp", [(1, 1), (1, 2), (2, 1)])
def test_table_walk_is_an_independent_best_response(own, opp, g11, g12):
    """The walk's responder against a fixed table equals exploit.py's best response and exact_check's."""
    g, st = g11 if own + opp == 2 else g12
    tab, tab_off, policy = _table(g, st, own)
    w0 = history_window([], g.K, g.m)
    for opened in (True, False):
        V = payoff_tables(own, opp, {(1, 1): 0.5}, RESP_OPEN, RESP_OTHER)
        walk = table_best_response(own, opp, opened, g.act_off, g.child, w0, tab, tab_off, V)
        ref = best_response_value(g, st, own if opened else opp, not opened, RESP_OPEN, RESP_OTHER)
        opener, other = (own, opp) if opened else (opp, own)
        indep = exact_check.best_response(opener, other, 1 if opened else 0, policy, RESP_OPEN, RESP_OTHER)
        assert walk == pytest.approx(ref, abs=1e-12)
        assert walk == pytest.approx(indep, abs=1e-10)


@pytest.mark.parametrize("depth,gadget", [(2, "maxmargin"), (4, "maxmargin"), (4, "resolve")])
def test_walk_equals_the_python_walk_of_continual_resolving(depth, gadget, g11):
    """Every re-solve the walk makes is ContinualResolver.resolve's, so both walks give the same value."""
    g, st = g11
    V = payoff_tables(1, 1, {}, RESP_OPEN, RESP_OTHER)
    for opened in (True, False):
        cont = continuation_values(1, 1, g.m, st, {}, 1, opened)
        pol = ContinualResolver(1, 1, opened, {}, cont, depth=depth, iterations=40, gadget=gadget)
        stats = np.zeros(4, dtype=np.int64)
        fast = search_best_response(pol, V, stats=stats)
        slow = seat_best_response(pol, V)
        assert fast == pytest.approx(slow, abs=1e-10)
        assert stats[0] == pol.stats["resolves"]     # one re-solve per decision reached, as the Python walk
