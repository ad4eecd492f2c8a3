"""The abstracted re-solver (games.dudo.search.abstract_resolve) and the sampled responder against a policy
(games.dudo.measure.responder), checked on 1v1 against independent computations: continual.py's full-width
re-solver (itself checked against the sequence-form LP in test_dudo_continual.py), exploit.py's exact
best response and lbr.py's estimator of the same responder (value of pi plus its exact-per-turn advantage)."""
import numpy as np
import pytest

from games.dudo.measure.exploit import payoff_tables
from games.dudo.search.continual import ContinualResolver, continuation_values, seat_best_response
from games.dudo.measure.exploit import best_response_value
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import history_window
from games.dudo.measure.lbr import improved_best_response, responder_tables
from games.dudo.search.abstract_resolve import AbstractResolver, BlueprintTargetResolver, blueprint_ranges, top_claims
from games.dudo.measure.responder import SearchedPolicy, sample_response, stored_policy
from games.dudo.solvers.abstract_cfr import FastSolver


@pytest.fixture(scope="module")
def coarse():
    g = make_group(1, 1, 1, {})
    s = FastSolver(g)
    s.solve(100, progress=False)
    return g, s.average_strategy()


def test_full_width_abstraction_is_the_full_width_resolve(coarse):
    """With A covering every claim, the abstracted re-solve is continual.py's re-solve: the same root
    strategy (to float32 leaf rounding) and the same exact best response."""
    g, st = coarse
    V = payoff_tables(1, 1, {}, {}, {})
    top = top_claims(st, g, 12)
    for opened in (True, False):
        cont = continuation_values(1, 1, 1, st, {}, 1, opened)
        ref = ContinualResolver(1, 1, opened, {}, cont, depth=2, iterations=20)
        ab = AbstractResolver(1, 1, opened, {}, cont, top, depth=2, iterations=20, gadget="resolve", A=12)
        hist = (0, 3) if opened else (2,)
        assert np.abs(ab.strategy(hist) - ref.strategy(hist)).max() < 1e-4
        assert seat_best_response(ab, V) == pytest.approx(seat_best_response(ref, V), abs=1e-4)


def test_every_searched_policy_runs_one_kernel(coarse):
    """Given the same float32 leaves, the abstraction that keeps every claim and continual.py's full-width
    re-solver build the same subgame and run the same kernel: equal bits, re-solve for re-solve."""
    from dataclasses import replace
    g, st = coarse
    top = top_claims(st, g, 12)
    for opened in (True, False):
        cont = continuation_values(1, 1, 1, st, {}, 1, opened)
        cont32 = replace(cont, Vc=cont.Vc.astype(np.float32))
        ref = ContinualResolver(1, 1, opened, {}, cont32, depth=2, iterations=20, gadget="maxmargin")
        ab = AbstractResolver(1, 1, opened, {}, cont32, top, depth=2, iterations=20, gadget="maxmargin", A=12)
        rr = ref.prior_req.copy()
        for hist, target in (((), None), ((0, 3) if opened else (2,), np.full(int(ref.ns[1]), 0.1))):
            a, b = ref.resolve(hist, rr, target), ab.resolve(hist, rr, target)
            assert np.array_equal(a.vO, b.vO) and np.array_equal(a.last, b.last)
            if a.root_strategy is not None:
                assert np.array_equal(a.root_strategy, b.root_strategy)


def test_abstracted_subgame_keeps_every_first_reply(coarse):
    """The opponent's first reply has a target for each claim; the requester's own claims are A."""
    g, st = coarse
    cont = continuation_values(1, 1, 1, st, {}, 1, True)
    ab = AbstractResolver(1, 1, True, {}, cont, top_claims(st, g, 2), depth=2, iterations=5, A=2)
    res = ab.resolve((), ab.prior_req.copy())
    assert res.nch[0] == 12                           # the round's root keeps every claim (computed once)
    res = ab.resolve((0, 1), ab.prior_req.copy(), np.zeros(int(ab.ns[1])))
    assert res.nch[0] == 2
    for c in res.last[1:3]:
        assert res.nch[res.last[:3].tolist().index(c)] == 11 - c
        res.target((c, 11))
    outside = next(c for c in range(2, 12) if c not in res.last[1:3])
    with pytest.raises(KeyError):
        res.target((outside,))
    assert np.all(np.isin(np.flatnonzero(res.root_strategy.sum(axis=1)), [0] + [c - 1 for c in res.last[1:3]]))


def test_blueprint_ranges_are_the_blueprints_reach(coarse):
    g, st = coarse
    rr, ro = blueprint_ranges(g, st, 1, 1, True, (2, 4))
    n = int(g.ns[0])
    p0 = g.probs[0, :n]
    a0 = int(g.act_off[history_window((), g.K, 1)])
    assert np.allclose(rr, p0 * st[(a0 + 3) * n:(a0 + 4) * n])      # slot 3: claim 2 after no claim
    a1 = int(g.act_off[history_window((2,), g.K, 1)])
    assert np.allclose(ro, p0 * st[(a1 + 2) * n:(a1 + 3) * n])      # slot 2: claim 4 after claim 2


def test_sampled_responder_agrees_with_lbr_and_stays_below_the_best_response(coarse):
    """Against the stored rows the sampled responder estimates what lbr.py computes (pi's exact value plus
    sampled advantages) and stays below exploit.py's exact best response; against search below the exact
    walk's best response."""
    g, st = coarse
    est_o, est_n = improved_best_response(g, st, 1, 2, {}, {}, {}, 5, games=300, seed=3)
    for resp_opens, est in ((True, est_o), (False, est_n)):
        t = responder_tables(g, st, 1, resp_opens, 2, {}, {}, {}, 5)
        s = sample_response(t, stored_policy(g, st, 0), resp_opens, 3000, seed=5)
        assert abs(s.value - est.value) < 4 * np.hypot(s.stderr, est.stderr)
        br = best_response_value(g, st, 1, resp_opens, {}, {})
        assert s.value < br + 3 * s.stderr
        cont = continuation_values(1, 1, 1, st, {}, 1, not resp_opens)
        pol = AbstractResolver(1, 1, not resp_opens, {}, cont, top_claims(st, g, 4), depth=2, iterations=60, A=4)
        exact = seat_best_response(pol, payoff_tables(1, 1, {}, {}, {}))
        s = sample_response(t, SearchedPolicy(pol), resp_opens, 1000, seed=5)
        assert s.value < exact + 3 * s.stderr


def test_blueprint_targets_policy_is_a_function_of_the_history(coarse):
    """One re-solve per request: the same history gives the same bits, whatever came before."""
    g, st = coarse
    cont = continuation_values(1, 1, 1, st, {}, 1, True)
    a = BlueprintTargetResolver(1, 1, True, {}, cont, top_claims(st, g, 4), g, st, depth=2, iterations=20, A=4)
    b = BlueprintTargetResolver(1, 1, True, {}, cont, top_claims(st, g, 4), g, st, depth=2, iterations=20, A=4)
    a.resolve((0, 2))
    assert np.array_equal(a.resolve((1, 3, 5, 7)).root_strategy, b.resolve((1, 3, 5, 7)).root_strategy)


def test_int8_leaves_are_the_float_resolve_on_the_rounded_values(coarse):
    """int8 value matrices hold each value to 1/254, and a re-solve on them is the float32 re-solve on the
    explicitly rounded values (the step applied at every leaf, in both seats' passes and the targets)."""
    from dataclasses import replace

    from games.dudo.search.abstract_resolve import int8_continuations
    from games.dudo.search.resolve import INT8_STEP

    g, st = coarse
    V = payoff_tables(1, 1, {}, {}, {})
    top = top_claims(st, g, 6)
    for opened in (True, False):
        cont = continuation_values(1, 1, 1, st, {}, 1, opened)
        q = int8_continuations(cont)
        assert q.Vc.dtype == np.int8
        assert np.abs(q.Vc * INT8_STEP - cont.Vc).max() <= 0.5 / 127 + 1e-7
        rounded = replace(cont, Vc=(q.Vc * INT8_STEP).astype(np.float32))
        with pytest.raises(ValueError, match=r"\[-1, 1\]"):           # a value int8 cannot hold is refused
            int8_continuations(replace(cont, Vc=cont.Vc * 1.5 + np.sign(cont.Vc)))
        for kind in (AbstractResolver, BlueprintTargetResolver):
            extra = (g, st) if kind is BlueprintTargetResolver else ()
            a8 = kind(1, 1, opened, {}, q, top, *extra, depth=2, iterations=20, gadget="maxmargin", A=6)
            af = kind(1, 1, opened, {}, rounded, top, *extra, depth=2, iterations=20, gadget="maxmargin", A=6)
            hist = (0, 3) if opened else (2,)
            assert np.abs(a8.strategy(hist) - af.strategy(hist)).max() < 1e-5
            assert seat_best_response(a8, V) == pytest.approx(seat_best_response(af, V), abs=1e-6)


def test_leaves_on_two_threads_give_the_same_bits(coarse):
    """The leaves split across threads write disjoint values and regrets: the re-solve is bit for bit the
    one-thread re-solve, at the round's root and after claims, in both seats."""
    g, st = coarse
    top = top_claims(st, g, 6)
    for opened in (True, False):
        cont = continuation_values(1, 1, 1, st, {}, 1, opened)
        one = AbstractResolver(1, 1, opened, {}, cont, top, depth=2, iterations=20, A=6)
        two = AbstractResolver(1, 1, opened, {}, cont, top, depth=2, iterations=20, A=6, threads=2)
        for hist in ((), (0, 3)) if opened else ((1,), (1, 2, 3)):
            target = None if not hist else np.linspace(-0.5, 0.5, int(one.ns[1]))
            r1 = one.resolve(hist, one.prior_req.copy(), target)
            r2 = two.resolve(hist, two.prior_req.copy(), target)
            assert r1.leaves >= 8                     # enough leaves that both threads get some
            assert np.array_equal(r1.vO, r2.vO)
            assert (r1.root_strategy is None) == (r2.root_strategy is None)
            if r1.root_strategy is not None:
                assert np.array_equal(r1.root_strategy, r2.root_strategy)
