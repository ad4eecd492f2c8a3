"""Dudo solvers against the exact 1-vs-1 value from the sequence-form LP (-7/258 for the opener
in +-1 units, i.e. winning probability 1/2 - 7/516)."""
from functools import lru_cache

import numpy as np
import pytest

from games.dudo import rules
from games.dudo.reference.cfr import CFR
from games.dudo.measure.exploit import best_response_value, exploitability_1v1
from games.dudo.solvers.abstract_cfr import FastSolver
from games.dudo.reference.fsicfr import FSICFR
from games.dudo.abstraction.dag import make_group
from games.dudo.reference.lp import sequence_form_value
from games.dudo.build.solve_game import solve_game

EXACT = -7 / 258


@pytest.fixture(scope="module")
def lp_value():
    v, _ = sequence_form_value(1, 1)
    return v


@pytest.fixture(scope="module")
def g11():
    return make_group(1, 1, None)


def test_lp_value(lp_value):
    assert lp_value == pytest.approx(EXACT, abs=1e-9)


def _brute_br_vs_uniform(resp_opens):
    """Perfect-recall best response to the uniform 1v1 strategy, by plain recursion."""
    K = 12

    def utility_for_resp(mover_is_resp, h, x, y):
        n, r = rules.claim(h[-1], 2)
        cnt = (x == r or (x == 1 and r != 1)) + (y == r or (y == 1 and r != 1))
        challenger_wins = cnt < n
        return 1.0 if challenger_wins == mover_is_resp else 0.0

    @lru_cache(maxsize=None)
    def value(h, x, ys):
        # responder roll x; ys = tuple of (opponent roll, weight) still possible
        k = len(h)
        resp_moves = (k % 2 == 0) == resp_opens
        acts = (["dudo"] if h else []) + list(range((h[-1] + 1) if h else 0, K))
        vals = []
        for a in acts:
            if a == "dudo":
                vals.append(sum(wt * utility_for_resp(resp_moves, h, x, y) for y, wt in ys))
            else:
                vals.append(value(h + (a,), x, ys))
        if resp_moves:
            return max(vals)
        return sum(vals) / len(acts)       # uniform opponent, independent of its roll

    ys = tuple((y, 1 / 6) for y in range(1, 7))
    return sum(value((), x, ys) for x in range(1, 7)) / 6


def test_best_response_against_uniform(g11):
    uniform = FastSolver(g11).current_strategy()
    for opens in (True, False):
        assert best_response_value(g11, uniform, 1, opens, {}, {}) == pytest.approx(
            _brute_br_vs_uniform(opens), abs=1e-12)


def test_fast_solver_reaches_lp_value(g11, lp_value):
    s = FastSolver(g11)
    s.solve(2500, progress=False)
    v, expl = exploitability_1v1(g11, s.average_strategy())
    assert v == pytest.approx(lp_value, abs=2e-5)
    assert 0 <= expl < 1e-4


def test_fast_solver_abstract_m3_is_close(lp_value):
    g = make_group(1, 1, 3)
    s = FastSolver(g)
    s.solve(1500, progress=False)
    v, expl = exploitability_1v1(g, s.average_strategy())
    assert v == pytest.approx(lp_value, abs=2e-3)
    assert expl < 0.05


def test_fsicfr_and_cfr_approach_lp_value(g11, lp_value):
    # the profile's value is within its exploitability of the game value; both shrink
    # (uniform play: exploitability about 0.35)
    f = FSICFR(g11, seed=3)
    f.solve(20000)
    v, expl = exploitability_1v1(g11, f.average_strategy())
    assert abs(v - lp_value) <= expl
    assert v == pytest.approx(lp_value, abs=0.005)
    assert expl < 0.06
    c = CFR(g11, seed=3)
    c.solve(2500)
    v, expl = exploitability_1v1(g11, c.average_strategy())
    assert abs(v - lp_value) <= expl
    assert expl < 0.12


def test_checkpoint_resume(tmp_path):
    g = make_group(1, 1, 3)
    a = FastSolver(g).solve(60, progress=False)
    b = FastSolver(g).solve(30, checkpoint=str(tmp_path / "c.npz"), progress=False)
    c = FastSolver(g).load(str(tmp_path / "c.npz")).solve(30, progress=False)
    assert c.t == 60
    np.testing.assert_allclose(c.ssum, a.ssum)
    np.testing.assert_allclose(c.reg, a.reg)


def test_two_dice_game_bottom_up():
    sol = solve_game(max_dice=2, m=3, iterations=lambda a, b: 600 if a + b == 2 else 150,
                     exact_br_total=3, progress=False, log=None)
    # a round opened by 1 die against the maximum (2) cannot happen
    assert set(sol.W) == {(1, 1), (2, 1), (2, 2)}
    for key, st in sol.stats.items():
        assert 0 < st["value"] < 1
        if "exploitability" in st:
            assert st["br_opener"] >= st["value"] - 1e-9
            assert st["br_other"] >= 1 - st["value"] - 1e-9
    # more dice is better
    assert sol.W[(2, 1)] > 0.5
    # store rows: IDs decode back to what they describe and agree with action_distribution
    from games.dudo.abstraction.infoset import decode_infoset_id
    rows = list(sol.iter_infosets())
    assert len({r[0] for r in rows}) == len(rows)
    for iid, own, opp, roll, win, actions, probs in rows[::997]:
        assert decode_infoset_id(iid, 3, 2, perfect_recall_total=2) == (own, opp, roll, win)
        assert sol.action_distribution(own, opp, roll, list(win)) == list(zip(actions, probs))
    dist = sol.action_distribution(2, 2, (1, 6), [0, 3])
    assert sum(p for _, p in dist) == pytest.approx(1.0)
    assert {a for a, _ in dist} == {-1} | set(range(4, 24))


def test_abstract_best_response_is_exact_on_a_tree(g11):
    # with perfect recall the DAG is a tree, so the DAG best response is the exact one
    from games.dudo.solvers.abstract_cfr import abstract_best_response
    st = FastSolver(g11).solve(200, progress=False).average_strategy()
    gs = make_group(1, 1, None, split=True)
    both = np.concatenate([st, st])
    for side in (0, 1):
        vals, _ = abstract_best_response(gs, both, side)
        br = 0.5 * (1 + vals[0]) if side == 0 else 0.5 * (1 - vals[0])
        assert br == pytest.approx(best_response_value(g11, st, 1, side == 0, {}, {}), abs=1e-12)
    # with memory 3 the responder is restricted: never above the perfect-recall responder
    g3 = make_group(1, 1, 3)
    st3 = FastSolver(g3).solve(200, progress=False).average_strategy()
    gs3 = make_group(1, 1, 3, split=True)
    vals, _ = abstract_best_response(gs3, np.concatenate([st3, st3]), 0)
    assert 0.5 * (1 + vals[0]) <= best_response_value(g3, st3, 1, True, {}, {}) + 1e-12


def test_tree_solver_matches_full_width_solver(g11):
    # same algorithm (alternating CFR+, linear averaging), two implementations: identical first
    # iteration; later, regret matching amplifies rounding at zero regret, so compare quality
    from games.dudo.solvers.tree_cfr import TreeSolver
    a = FastSolver(g11).solve(1, progress=False)
    b = TreeSolver(g11).solve(1, progress=False)
    np.testing.assert_allclose(a.reg, b.reg, atol=1e-12)
    np.testing.assert_allclose(a.ssum, b.ssum, atol=1e-12)
    a.solve(299, progress=False)
    b.solve(299, progress=False)
    va, ea = exploitability_1v1(g11, a.average_strategy())
    vb, eb = exploitability_1v1(g11, b.average_strategy())
    assert vb == pytest.approx(va, abs=1e-5)
    assert eb == pytest.approx(ea, rel=0.1)


@pytest.mark.parametrize("memory", ["3-6-2", "1+1f"])
def test_the_sampling_cfr_reference_refuses_a_memory_it_cannot_index(memory):
    """CFR walks histories and indexes windows by their last claims: a schedule or a face memory is refused
    by name instead of being indexed wrongly."""
    from games.dudo.abstraction.infoset import parse_memory
    with pytest.raises(ValueError, match=memory.replace("+", r"\+")):
        CFR(make_group(1, 1, parse_memory(memory), {}), seed=3)
