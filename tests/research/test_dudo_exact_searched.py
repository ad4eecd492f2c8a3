"""research.dudo_exact_searched: the searched policy's exact figure on a store's round equals the independent exact
check (games.dudo.reference.exact_check) of the policy the server answers there."""
import pytest

from builder.dudo import build_dudo_store
from builder.measure_search import served_seat_policy
from games.dudo.reference import exact_check as xc
from games.storage import Store
from research.dudo_exact_searched import exact_searched
from tests.server.test_dudo_large_search_serving import PARAMS


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return Store(build_dudo_store(PARAMS, tmp_path_factory.mktemp("dudo")))


@pytest.fixture(scope="module")
def dcfr_store(tmp_path_factory):
    """The same store with the profiles' scheme: DCFR re-solves."""
    from dataclasses import replace
    params = replace(PARAMS, large_search=tuple(PARAMS.large_search) + ((), "dcfr"))
    return Store(build_dudo_store(params, tmp_path_factory.mktemp("dudo-dcfr")))


@pytest.mark.parametrize("which", ["store", "dcfr_store"])
def test_the_walk_is_the_exact_check_of_the_served_policy(which, request):
    from games.dudo.serving.large_search import spec_of
    store = request.getfixturevalue(which)
    assert spec_of(store.manifest).regrets == ("dcfr" if which == "dcfr_store" else "cfr+")
    got = exact_searched(store, 1, 1, log=lambda *a: None)[(1, 1)]
    policy_for_seat, _ = served_seat_policy(store, 1, 1)
    served = lambda own, opp, hist: policy_for_seat(len(hist) % 2 == 1)(hist)   # noqa: E731
    want = xc.exact_figures(served, PARAMS.max_dice, 2)[(1, 1)]["exploitability"]
    assert got[0] == pytest.approx(want, abs=1e-5)
    assert got[1] == store.manifest["rounds"]["1v1"]["exploitability"]


def test_more_iterations_a_resolve_is_another_policy(store):
    """``iterations`` replaces the store's re-solve setting: the walk's figure changes with it, the rows' does not."""
    from games.dudo.serving.large_search import spec_of
    served = spec_of(store.manifest).iterations
    got = exact_searched(store, 1, 1, log=lambda *a: None, iterations=served)[(1, 1)]
    more = exact_searched(store, 1, 1, log=lambda *a: None, iterations=3 * served)[(1, 1)]
    assert got == exact_searched(store, 1, 1, log=lambda *a: None)[(1, 1)]
    assert more[0] != got[0] and more[1] == got[1]


@pytest.mark.parametrize("args, fault", [(["--iterations", "0"], "--iterations 0: at least 1"),
                                         (["--group", "one"], "--group 'one': AvB")])
def test_bad_arguments_exit_2_with_one_line(args, fault, capsys, tmp_path):
    from research.dudo_exact_searched import main
    with pytest.raises(SystemExit) as e:
        main(["--root", str(tmp_path), *args])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert fault in err[-1] and "Traceback" not in "\n".join(err)
