"""The perfect-recall improvement of the memory-m' responder (games.dudo.measure.lbr) against independent
computations: the memory-m' bound (games.dudo.measure.bound, the blocked kernel), the exact perfect-recall best
response (games.dudo.measure.exploit) and, on 1v1, the improved responder's value by walking every claim
history in plain Python (no sampling, no performance-difference identity)."""
import numpy as np
import pytest

from games.dudo.measure.bound import memory_best_response
from games.dudo.measure.exploit import best_response_value
from games.dudo.abstraction.dag import make_group
from games.dudo.measure.lbr import improved_best_response, responder_tables
from games.dudo.solvers.abstract_cfr import FastSolver

W = {(1, 1): 0.486, (1, 2): 0.21, (2, 1): 0.79}
BR_OPEN = {(1, 1): 0.49, (1, 2): 0.22, (2, 1): 0.80}
BR_OTHER = {(1, 1): 0.52, (1, 2): 0.21, (2, 1): 0.79}


def _strategy(a, b, m, its):
    g = make_group(a, b, m, W)
    return g, FastSolver(g).solve(its, progress=False).average_strategy()


# two sides (1v2, each opener, memory 1 and 2) and one side (1v1); 2v2 and 1v3 (4 dice in play) took 15 s of
# CPU each in the exact perfect-recall walk, for no path these do not take
@pytest.mark.parametrize("a,b,m,its,opener", [(1, 2, 1, 60, 1), (1, 2, 1, 60, 2), (1, 1, 1, 60, 1),
                                              (1, 2, 2, 40, 2)])
def test_improvement_lies_between_the_memory_bound_and_the_exact_best_response(a, b, m, its, opener):
    g, st = _strategy(a, b, m, its)
    cont = (BR_OPEN, BR_OTHER)
    exact = [best_response_value(g, st, opener, seat, *cont) for seat in (True, False)]
    bound = memory_best_response(g, st, opener, m, W, *cont, 5)
    est = improved_best_response(g, st, opener, m, W, *cont, 5, games=200, seed=3)
    for i in range(2):
        assert est[i].base == pytest.approx(bound[i], abs=1e-9)      # two kernels, one responder
        assert est[i].value >= est[i].base - 1e-12                   # every advantage is >= 0
        assert est[i].value <= exact[i] + 4 * est[i].stderr + 1e-9
        # the gain by the last claim's strength adds up to the whole gain (win-probability units)
        assert est[i].by_last[0].sum() == pytest.approx(est[i].value - est[i].base, abs=1e-12)
        assert est[i].by_last[0].min() >= 0.0 and est[i].by_last[1].sum() >= 1.0
    # the window forgets claims a perfect-recall responder uses: a real gain on these rounds
    assert sum(e.value - e.base for e in est) > 4 * np.hypot(est[0].stderr, est[1].stderr)


def _improved_value_by_walk(g, st, opener, resp_is_opener, m_resp):
    """The improved responder's game-winning probability, every history walked with exact reach."""
    t = responder_tables(g, st, opener, resp_is_opener, m_resp, W, {}, {}, 5)
    gs = t.gs
    nr, nf = int(gs.ns[t.s_resp]), int(gs.ns[t.s_fix])
    K = gs.K
    V = t.solver.V.astype(np.float64)
    fbase = int(gs.rbase[t.s_fix])

    def count(x, y, L):
        r = int(gs.claim_r[L]) - 1
        return int(gs.rc[t.s_resp][x, r] + gs.rc[t.s_fix][y, r])

    def walk(x, reach, w, L, k):
        if (k % 2 == 0) == resp_is_opener:
            post = reach / reach.sum()
            q = {}
            if L >= 0:
                q[0] = sum(post[y] * (2 * t.T_resp[L, count(x, y, L)] - 1) for y in range(nf))
            for j in range(1, K - L):
                c = int(gs.child[gs.act_off[w] + j])
                vb = int(t.solver.voff[t.s_fix]) + c * nf * nr + x * nf
                q[j] = -float(post @ V[vb:vb + nf])
            best = max(sorted(q), key=lambda j: (q[j], -j))
            if best == 0:
                return sum(reach[y] * t.T_resp[L, count(x, y, L)] for y in range(nf))
            return walk(x, reach, int(gs.child[gs.act_off[w] + best]), L + best, k + 1)
        base = fbase + int(gs.act_off[w]) * nf
        total = 0.0
        for j in range(K - L):
            p = t.lifted[base + j * nf:base + (j + 1) * nf]
            if not (reach * p).any():
                continue
            if j == 0:
                total += sum(reach[y] * p[y] * t.T_fix[L, count(x, y, L)] for y in range(nf))
            else:
                total += walk(x, reach * p, int(gs.child[gs.act_off[w] + j]), L + j, k + 1)
        return total

    pf, pr = gs.probs[t.s_fix, :nf], gs.probs[t.s_resp, :nr]
    return sum(pr[x] * walk(x, pf.copy(), 0, -1, 0) for x in range(nr))


@pytest.mark.parametrize("seat", [True, False])
def test_sampled_estimate_matches_the_walked_value_on_1v1(seat):
    g, st = _strategy(1, 1, 1, 30)
    est = improved_best_response(g, st, 1, 1, W, {}, {}, 5, games=400, seed=11)[0 if seat else 1]
    walked = _improved_value_by_walk(g, st, 1, seat, 1)
    assert est.value - est.base > 1e-3            # the improvement is not empty here
    assert abs(est.value - walked) <= 4 * est.stderr + 1e-9


def test_same_seed_same_estimate_and_games_checked():
    g, st = _strategy(1, 2, 1, 20)
    a = improved_best_response(g, st, 1, 1, W, BR_OPEN, BR_OTHER, 5, games=20, seed=5)
    b = improved_best_response(g, st, 1, 1, W, BR_OPEN, BR_OTHER, 5, games=20, seed=5)
    assert a == b and all(np.array_equal(x.by_last, y.by_last) for x, y in zip(a, b))
    with pytest.raises(ValueError, match="games"):
        improved_best_response(g, st, 1, 1, W, BR_OPEN, BR_OTHER, 5, games=1)


@pytest.mark.parametrize("a,b,m", [(1, 2, 2), (2, 2, 1)])
def test_two_seats_at_once_give_the_same_bits(a, b, m):
    """``threads=2`` (the last group's measuring, alone on the machine) runs each seat on its own thread: the same
    estimates, bit for bit, as one after the other."""
    g, st = _strategy(a, b, m, 20)
    one = improved_best_response(g, st, a, m, W, BR_OPEN, BR_OTHER, 5, games=10, seed=7)
    two = improved_best_response(g, st, a, m, W, BR_OPEN, BR_OTHER, 5, games=10, seed=7, threads=2)
    assert one == two and all(np.array_equal(x.by_last, y.by_last) for x, y in zip(one, two))
