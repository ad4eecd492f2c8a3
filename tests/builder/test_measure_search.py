"""builder.measure_search: the responder's figure of the served searched policy, published as a new version of
the store with the data unchanged; checked against the served policy's exact figure (games.dudo.reference.exact_check,
independent of the solvers and of the responder): a lower bound that finds a large share of it."""

import pytest

from builder.dudo import build_dudo_store
from builder.measure_search import main, served_seat_policy
from games.dudo.reference import exact_check as xc
from games.storage import Store, current_stores
from tests.server.test_dudo_large_search_serving import PARAMS


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    r = tmp_path_factory.mktemp("measure")
    build_dudo_store(PARAMS, r)
    return r


def test_the_figure_is_a_lower_bound_of_the_served_policys_exact_one(root, capsys):
    before = Store(current_stores(root, "dudo")[PARAMS.variant])
    policy_for_seat, _ = served_seat_policy(before, 1, 1)
    served = lambda own, opp, hist: policy_for_seat(len(hist) % 2 == 1)(hist)   # noqa: E731 - one seat a call
    exact = xc.exact_figures(served, PARAMS.max_dice, 2)[(1, 1)]["exploitability"]
    assert main(["--root", str(root), "--variant", PARAMS.variant, "--games", "400", "--seed", "3"]) == 0
    after = Store(current_stores(root, "dudo")[PARAMS.variant])
    assert after.version != before.version
    st = after.manifest["rounds"]["1v1"]
    got, se = st["served_exploitability"], st["served_exploitability_stderr"]
    assert got <= exact + 3 * se
    assert got >= 0.5 * exact - 3 * se, (got, se, exact)
    assert "lower bound" in st["served_kind"] and st["served_games"] == 400
    from server.backends.dudo import DudoBackend
    from protos import gamestrategy_pb2 as pb
    v = pb.VariantStats()
    DudoBackend(after).stats(v)
    rs = {x.strategy: x for x in v.strategies}["round 1v1"]
    assert rs.headline == "served_exploitability" and rs.headline_kind == st["served_kind"]
    assert rs.units["served_exploitability"] == "win probability, both seats summed"
    from builder.readme_tables import _dudo
    served, text, kind = _dudo(after.manifest)        # the README's strength row states the searched figure
    assert served == "search" and f"as served (search): exploitability {got:.3f}" in text
    assert kind.startswith("lower bound: lookahead responder") and _dudo(before.manifest)[1].count("not measured")
    assert list(after.items("windows")) == list(before.items("windows"))
    assert list(after.items("arrays")) == list(before.items("arrays"))
    old = {k: v for k, v in before.manifest["rounds"]["1v1"].items()}
    assert {k: st[k] for k in old} == old                      # the stored rows' figures kept as they were


def test_bad_arguments_exit_2_with_one_line(root, capsys):
    assert main(["--root", str(root), "--variant", "nosuch"]) == 2
    assert main(["--root", str(root), "--variant", PARAMS.variant, "--rounds", "4v4"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "nosuch" in err[0] and "searches the rounds 1v1" in err[1]
    with pytest.raises(SystemExit) as e:
        main(["--root", str(root), "--rounds", "five"])
    assert e.value.code == 2


def test_the_rows_measured_by_the_same_responder_publish_nothing(root, capsys):
    before = current_stores(root, "dudo")[PARAMS.variant]
    assert main(["--root", str(root), "--variant", PARAMS.variant, "--games", "50", "--rows"]) == 0
    assert "1v1 (fsicfr): " in capsys.readouterr().out
    assert current_stores(root, "dudo")[PARAMS.variant] == before
