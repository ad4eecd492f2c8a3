"""CFR+ against responders that remember more (games.dudo.build.cfrbr), checked against independent computations:
the coarse DAG's own regrets, the sequence-form LP value of 1v1 and the exact perfect-recall best response."""
import numpy as np
import pytest

from games.dudo.measure.bound import lift_strategy
from games.dudo.build.cfrbr import CFRBR
from games.dudo.measure.exploit import exploitability_1v1
from games.dudo.abstraction.dag import make_group
from games.dudo.solvers.abstract_cfr import FastSolver

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


def test_solve_game_trains_a_group_against_responders_that_remember_more(tmp_path):
    """The builder's path: a group with a train memory is less exploitable (exact best response, computed
    by the solver's own figures) than the same memory trained on its abstract game, and says so."""
    from games.dudo.build.solve_game import solve_game
    plan = {(1, 1): None, (1, 2): 1, (2, 2): 1}
    runs = {}
    for name, tm in (("plain", None), ("fine", {(1, 2): 3})):
        sol = solve_game(max_dice=2, m=plan, iterations=200, progress=False, log=None, max_total=3,
                         checkpoint_dir=str(tmp_path / name), train_memory=tm)
        runs[name] = sol.stats[(2, 1)]
    assert runs["fine"]["train_memory"] == "3" and "train_memory" not in runs["plain"]
    assert runs["fine"]["br_kind"] == runs["plain"]["br_kind"] == "exact-perfect-recall"
    assert runs["fine"]["exploitability"] < 0.5 * runs["plain"]["exploitability"]
    with pytest.raises(ValueError, match="remember more"):
        solve_game(max_dice=2, m=plan, iterations=2, progress=False, log=None, max_total=3,
                   checkpoint_dir=str(tmp_path / "bad"), train_memory={(1, 2): 1})


def test_the_manifest_records_train_memories():
    from games.dudo.build.params import DudoParams, manifest_parameters
    p = DudoParams(max_dice=3, iterations=10, memory_budget=1 << 30, memory_by_group=(((3, 3), 2),),
                   train_memory_by_group=(((3, 3), 3),))
    assert p.train_memories() == {(3, 3): 3}
    assert manifest_parameters(p)["train_memory_by_group"] == [[[3, 3], 3]]
    assert "train_memory_by_group" not in manifest_parameters(DudoParams(max_dice=3, iterations=10))
    def params(group):
        return DudoParams(max_dice=3, iterations=10, memory_budget=1 << 30, train_memory_by_group=((group, 3),))

    with pytest.raises(ValueError, match="no group 3v4"):
        params((3, 4)).train_memories()
    with pytest.raises(ValueError, match="must remember more"):     # 1v1 has perfect recall
        params((1, 1)).train_memories()


def test_a_resumed_run_is_bit_identical(tmp_path):
    g, gf = make_group(1, 2, 1, W12), make_group(1, 2, 3, W12)
    whole = CFRBR(g, gf).solve(12)
    ck = str(tmp_path / "ck.npz")
    CFRBR(g, gf).solve(5, checkpoint=ck)
    resumed = CFRBR(g, gf).load(ck).solve(7)
    assert resumed.t == 12
    assert np.array_equal(resumed.average_strategy(), whole.average_strategy())
    with pytest.raises(ValueError, match="another"):
        CFRBR(g, make_group(1, 2, 4, W12)).load(ck)


def test_threads_give_the_same_bits():
    g, gf = make_group(2, 2, 1, {(1, 2): 0.2, (2, 1): 0.8}), make_group(2, 2, 2, {(1, 2): 0.2, (2, 1): 0.8}, split=True)
    one = CFRBR(g, gf).solve(3)
    two = CFRBR(g, gf, threads=2).solve(3)
    assert np.array_equal(one.reg, two.reg) and np.array_equal(one.ssum, two.ssum)


@pytest.mark.parametrize("a,b,m,m_fine", [(1, 2, 1, 3), (2, 2, 1, 2), (1, 2, 2, 4)])
def test_cost_model_bytes_cover_the_arrays(a, b, m, m_fine):
    """``cost.cfrbr_cost``: the fine group's arrays (split seats) and the abstract strategy's."""
    from games.dudo.cost import cfrbr_cost
    W = {(x, y): 0.5 for x in range(1, 4) for y in range(1, 4)}
    cb = CFRBR(make_group(a, b, m, W), make_group(a, b, m_fine, W, split=a == b))
    arrays = sum(v.nbytes for obj in (cb, cb.fine) for v in vars(obj).values() if isinstance(v, np.ndarray))
    arrays += 3 * 8 * cb.g.nrows      # an iteration's sigma, regrets and strategy sums
    assert arrays <= cfrbr_cost(a, b, m, m_fine).bytes


def test_the_plan_models_trained_groups_and_the_budget_holds_them(capsys):
    from builder import dudo_report
    from games.dudo.cost import cfrbr_cost, group_cost
    from games.dudo.build.params import DudoParams
    assert dudo_report.main(["--plan", "default"]) == 0
    rows = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines() if ln[:1].isdigit()}
    assert rows["3v3"].split()[1:4] == ["2", "vs", "3"] and rows["2v4"].split()[1] == "2"
    assert cfrbr_cost(3, 3, 2, 3).seconds_per_iteration > 2 * group_cost(3, 3, 3).seconds_per_iteration
    too_big = DudoParams(max_dice=3, iterations=10, memory_budget=cfrbr_cost(3, 3, 2, 3).bytes - 1,
                         memory_by_group=(((3, 3), 2),), train_memory_by_group=(((3, 3), 3),))
    with pytest.raises(ValueError, match="does not fit the memory budget"):
        too_big.train_memories()


def test_a_trained_group_is_measured_by_a_responder_remembering_as_much_as_its_training_responders():
    """The bound's responder memory m' is the budget's (m + 1 where it fits) unless the training responders
    remember more: then theirs, so a figure never comes from a weaker responder than training met."""
    from games.dudo.build.params import DudoParams
    base = dict(max_dice=4, iterations=10, memory_budget=1 << 34, bound_memory=1, bound_budget=1 << 31,
                memory_by_group=(((2, 3), 2), ((3, 4), 2)))
    plain = DudoParams(**base)
    trained = DudoParams(**base, train_memory_by_group=(((2, 3), 3), ((3, 4), 4)))
    assert plain.bound_memories()[(2, 3)] == plain.bound_memories()[(3, 4)] == 3
    assert trained.bound_memories()[(2, 3)] == 3 and trained.bound_memories()[(3, 4)] == 4
    assert {k: v for k, v in trained.bound_memories().items() if k not in ((2, 3), (3, 4))} == \
        {k: v for k, v in plain.bound_memories().items() if k not in ((2, 3), (3, 4))}


def test_groups_training_against_responders_start_first_and_the_order_changes_nothing(tmp_path):
    """``solve_game.started_first``: a level's CFR-BR groups go to ``map`` first (the longest, so they do not wait behind
    the others on 2 workers); the result is the same whatever order the tasks run in."""
    import numpy as np
    from games.dudo.build.solve_game import solve_game, started_first
    assert started_first([(1, 5), (2, 4), (3, 3)], {(2, 3): 3, (3, 3): 3}) == [(3, 3), (1, 5), (2, 4)]
    assert started_first([(1, 4), (2, 3)], None) == [(1, 4), (2, 3)]
    seen = []

    def recording(fn, items):
        items = list(items)
        seen.append(items)
        return [fn(x) for x in items]

    def backwards(fn, items):       # runs the last task first, returns the results in the tasks' order
        items = list(items)
        return [fn(x) for x in reversed(items)][::-1]

    kw = dict(max_dice=3, m={(1, 1): None, (1, 2): 1, (1, 3): 1, (2, 2): 1}, iterations=10, progress=False,
              log=None, max_total=4, exact_br_total=3, train_memory={(2, 2): 2})
    a = solve_game(checkpoint_dir=str(tmp_path / "a"), map_fn=recording, **kw)
    b = solve_game(checkpoint_dir=str(tmp_path / "b"), map_fn=backwards, **kw)
    assert seen[-1] == [(2, 2), (1, 3)]
    for key in a.strategies:
        assert np.array_equal(np.asarray(a.strategies[key]), np.asarray(b.strategies[key]))
    strip = lambda st: {k: v for k, v in st.items() if "seconds" not in k}   # noqa: E731
    assert {k: strip(v) for k, v in a.stats.items()} == {k: strip(v) for k, v in b.stats.items()}
    assert a.stats[(2, 2)]["train_memory"] == "2"
