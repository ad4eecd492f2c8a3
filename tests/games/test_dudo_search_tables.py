"""The stored search tables (games.dudo.search.tables) against the research path they replace: the leaves
computed once per group for both seats are, row for row, the int8 continuations ``continual.continuation_values``
computes per seat, and a resolver on them re-solves to the same bits."""
import numpy as np
import pytest

from games.dudo.search.continual import continuation_values
from games.dudo.abstraction.dag import make_group
from games.dudo.search.abstract_resolve import AbstractResolver, int8_continuations, top_claims
from games.dudo.search.tables import LargeSearchSpec, leaf_tables, resolver
from games.dudo.solvers.abstract_cfr import FastSolver


def _solved(a, b, m, W):
    g = make_group(a, b, m, W)
    s = FastSolver(g)
    s.solve(30, progress=False)
    return s.average_strategy()


@pytest.mark.parametrize("a,b", [(1, 2), (2, 2)])
def test_tables_are_each_seats_int8_continuations(a, b):
    W = {(1, 1): 0.55, (1, 2): 0.3, (2, 1): 0.7}
    strat = _solved(a, b, 1, W)
    spec = LargeSearchSpec(min_total=2, iterations=15, A=5)
    t = leaf_tables(a, b, 1, strat, W, spec.A)
    for own in sorted({a, b}):
        opp = a + b - own
        for opened in (True, False):
            ref = int8_continuations(continuation_values(a, b, 1, strat, W, own, opened))
            res = resolver(t, a, b, 1, W, own, opp, opened, spec)
            got = res.V[res.cidx]
            assert np.array_equal(got, ref.Vc)
            assert np.array_equal(res.cont.voff, ref.voff) and np.array_equal(res.cont.side, ref.side)
            top = top_claims(strat, make_group(a, b, 1, W), spec.A)
            alone = AbstractResolver(own, opp, opened, W, ref, top, depth=2, iterations=15, A=5)
            hist = (0, 3) if opened else (2,)
            assert np.array_equal(res.strategy(hist), alone.strategy(hist))


@pytest.mark.parametrize("regrets", ["cfr+", "dcfr"])
def test_stored_root_resolves_are_the_one_thread_resolves(regrets):
    """group_tables computes the round-start re-solves on two threads, by the spec's regret scheme: the same bits
    as one thread's re-solves by that scheme."""
    from types import SimpleNamespace

    from games.dudo.search.tables import group_tables, seat_key, seats
    W = {(1, 1): 0.55, (1, 2): 0.3, (2, 1): 0.7}
    strat = _solved(1, 2, 1, W)
    spec = LargeSearchSpec(min_total=2, iterations=15, A=5, regrets=regrets)
    sol = SimpleNamespace(groups={(1, 2): make_group(1, 2, 1, W)}, W=W, strategies={(1, 2): strat})
    got = dict(group_tables(sol, spec, (1, 2)))
    t = leaf_tables(1, 2, 1, strat, W, spec.A)
    for own, opp, opened in seats(1, 2):
        pol = resolver(t, 1, 2, 1, W, own, opp, opened, spec, threads=1)
        res = pol.resolve((), pol.prior_req.copy())
        assert np.array_equal(got[f"{seat_key(own, opp, opened)}/vO"], res.vO)
        if opened:
            assert np.array_equal(got[f"{seat_key(own, opp, opened)}/root_strategy"], res.root_strategy)


def test_a_group_kept_on_the_rows_is_not_searched():
    """The profile's rows_groups leave a group's rounds to the rows, also as the manifest records the spec."""
    import json
    from dataclasses import asdict

    from builder.profiles import DUDO_DEFAULT
    from games.dudo.build.params import DudoParams, manifest_parameters
    from games.dudo.serving.large_search import spec_of
    spec = DUDO_DEFAULT.large_search_spec()
    assert not spec.covers(5, 1) and not spec.covers(1, 5) and spec.covers(5, 2) and spec.covers(2, 4)
    assert not spec.covers(2, 3)
    back = spec_of(json.loads(json.dumps({"large_search": asdict(spec)})))
    assert back == spec and not back.covers(5, 1)
    params = DudoParams(**json.loads(json.dumps(manifest_parameters(DUDO_DEFAULT))))
    assert params.large_search_spec() == spec


def test_the_regret_scheme_is_recorded_and_a_store_without_one_is_cfr_plus():
    """The profiles re-solve with DCFR and the manifest says so; a store whose manifest names no scheme was built
    with CFR+ (its stored round-start re-solves are CFR+'s), so it is read as CFR+; an unknown scheme is refused."""
    import json
    from dataclasses import asdict

    from builder.profiles import DUDO_DEFAULT, DUDO_FULL
    from games.dudo.build.params import DudoParams, manifest_parameters
    from games.dudo.serving.large_search import spec_of
    for params in (DUDO_DEFAULT, DUDO_FULL):
        spec = params.large_search_spec()
        assert spec.regrets == "dcfr" and "100 DCFR iterations" in spec.label()
        assert DudoParams(**json.loads(json.dumps(manifest_parameters(params)))).large_search_spec() == spec
        old = {k: v for k, v in asdict(spec).items() if k != "regrets"}
        assert spec_of({"large_search": old}).regrets == "cfr+"
    with pytest.raises(ValueError, match="regrets 'pcfr'"):
        LargeSearchSpec(regrets="pcfr")


def test_dcfr_and_cfr_plus_resolves_differ():
    """The scheme reaches the kernel: the same subgame re-solved by DCFR and by CFR+ gives other strategies."""
    W = {(1, 1): 0.55, (1, 2): 0.3, (2, 1): 0.7}
    strat = _solved(1, 2, 1, W)
    t = leaf_tables(1, 2, 1, strat, W, 5)
    got = {}
    for regrets in ("cfr+", "dcfr"):
        pol = resolver(t, 1, 2, 1, W, 2, 1, True, LargeSearchSpec(min_total=2, iterations=15, A=5, regrets=regrets))
        got[regrets] = pol.strategy((0, 3))
    assert got["cfr+"].shape == got["dcfr"].shape and not np.allclose(got["cfr+"], got["dcfr"])


def test_stored_first_replies_are_the_chains_resolves(tmp_path, monkeypatch):
    """Where the opponent opens, the store keeps the requester's first re-solve after each opening claim whose subgame
    is large enough (every one here, the threshold lowered): the server's chain reads it instead of re-solving, and
    its answers are the bits it computes without them."""
    from builder.dudo import build_dudo_store
    from games.dudo.search import tables
    from games.dudo.serving import large_search
    from games.storage import Store
    from tests.server.test_dudo_large_search_serving import PARAMS
    monkeypatch.setattr(tables, "FIRST_REPLY_LEAVES", 1)
    store = Store(build_dudo_store(PARAMS, tmp_path))
    claims = store.array("search/1v1n/first_claims")
    assert claims.size >= 8 and store.get("arrays", b"search/1v1o/first_claims") is None
    pol, root = large_search.seat_resolver(str(store.path), 1, 1, False)
    assert sorted(pol.first_replies) == sorted(int(c) for c in claims)
    # a server prices the chain by the re-solves it makes: a stored first reply is read, not re-solved
    from server.backends.dudo import DudoBackend
    first = DudoBackend(store)._first_claims(1, 1)
    assert first == frozenset(int(c) for c in claims)
    c = int(claims[0])
    assert large_search.decisions_to_search((c,), False, None, first) == 0
    assert large_search.decisions_to_search((c, c + 1, c + 2), False, None, first) == 1
    assert large_search.decisions_to_search((c, c + 1, c + 2), False, None) == 2
    assert large_search.decisions_to_search((c, c + 1, c + 2), False, 1, first) == 1      # from a held state
    stored = pol.first_replies
    for c in (int(claims[0]), int(claims[-1])):
        for hist in ((c,), (c, c + 1, c + 2)):
            if c + 2 >= pol.K:
                continue
            before = pol.stats["resolves"]
            got = large_search.chain(pol, root, hist, None)
            used = pol.stats["resolves"] - before
            pol.first_replies = {}
            try:
                want = large_search.chain(pol, root, hist, None)
            finally:
                pol.first_replies = stored
            assert used == len(want) - 1       # the first re-solve read, the later ones computed
            for a, b in zip(got, want):
                assert a.k == b.k and np.array_equal(a.rr, b.rr)
                assert np.array_equal(a.res.root_strategy, b.res.root_strategy) and np.array_equal(a.res.vO, b.res.vO)
                assert a.res.L0 == b.res.L0
