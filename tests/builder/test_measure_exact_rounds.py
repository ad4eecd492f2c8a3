"""An exact round searched on the store's tables (``LargeSearchSpec.exact_rounds``): built on the rows, walked by
``builder.measure_search`` (the exact best response to the searched policy the server answers), and served by search
only where that figure is below the rows' exact one; the figure stated is then the exact figure of the policy served,
checked by the independent exact check (games.dudo.reference.exact_check)."""
import pytest

from builder.dudo import build_dudo_store
from builder.measure_search import _walk_exact_rounds, exact_as_served, exact_candidates, searched_rounds, \
    served_seat_policy
from games.dudo.build.params import DudoParams
from games.dudo.policy.searched import searched_updates
from games.dudo.policy.served import SEARCH, SEARCH_LARGE, BOOK, SERVED_BOOK, SERVED_SEARCH_LARGE, decide, \
    served_rounds
from games.dudo.reference import exact_check as xc
from games.dudo.search.endgame import EndgamePolicy
from games.storage import Store

PARAMS = DudoParams(max_dice=2, iterations=60, memory=1, perfect_recall_total=0, exact_br_total=2,
                    large_search=(3, 2, 20, 4, (), "dcfr", ((1, 1),)))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("exact-rounds")
    return root, Store(build_dudo_store(PARAMS, root))


@pytest.fixture(scope="module")
def walked(built):
    root, store = built
    return _walk_exact_rounds(store, root, processes=2)


def test_an_exact_round_keeps_the_rows_until_its_search_is_walked(built):
    _, store = built
    st = store.manifest["rounds"]["1v1"]
    assert st["served"] == SERVED_BOOK and exact_candidates(store) == [(1, 1)]
    assert (1, 1) not in served_rounds(store.manifest, EndgamePolicy()).large
    names = {k.decode() for k, _ in store.items("arrays")}
    assert {"search/1v1/V", "search/1v1o/vO", "search/1v1n/vO"} <= names
    assert {"search/1v2/V", "search/2v1o/vO", "search/1v2n/vO"} <= names     # the large rounds' as before
    assert store.manifest["large_search"]["exact_rounds"] == [[1, 1]]


def test_the_stated_figure_is_the_exact_figure_of_the_policy_served(built, walked):
    _, store = built
    assert walked.version != store.version and exact_candidates(walked) == []
    st, rows = walked.manifest["rounds"]["1v1"], store.manifest["rounds"]["1v1"]
    assert st["search_exploitability"] < rows["exploitability"]     # this store's rows are weak: search wins
    assert st["served"] == SERVED_SEARCH_LARGE and exact_as_served(st)
    assert (st["stored_exploitability"], st["stored_br_opener"]) == (rows["exploitability"], rows["br_opener"])
    policy_for_seat, _ = served_seat_policy(walked, 1, 1)
    served = lambda own, opp, hist: policy_for_seat(len(hist) % 2 == 1)(hist)   # noqa: E731 - one seat a call
    want = xc.exact_figures(served, PARAMS.max_dice, 2)[(1, 1)]
    for k in ("exploitability", "br_opener", "br_other"):
        assert st[k] == pytest.approx(want[k], abs=1e-6)
    sr = served_rounds(walked.manifest, EndgamePolicy())
    assert decide(sr, SEARCH, 1, 1, (), True) == SEARCH_LARGE and decide(sr, "fsicfr", 1, 1, (), True) == BOOK
    assert (1, 1) not in searched_rounds(walked)       # no responder measures a round with an exact figure
    assert _walk_exact_rounds(walked, built[0], processes=1) is walked     # walked once


def test_a_round_where_search_is_not_lower_keeps_the_rows():
    rows = dict(br_opener=0.51, br_other=0.50, exploitability=0.01)
    kept = searched_updates(rows, dict(br_opener=0.52, br_other=0.50, exploitability=0.02), "lbl", SERVED_SEARCH_LARGE)
    assert kept == dict(search="lbl", search_exploitability=0.02)
    won = searched_updates(rows, dict(br_opener=0.50, br_other=0.505, exploitability=0.005), "lbl", SERVED_SEARCH_LARGE)
    assert won["served"] == SERVED_SEARCH_LARGE and won["exploitability"] == 0.005 and won["stored_exploitability"] == 0.01


def test_getstats_states_the_searched_figure_as_exact_and_the_rows_beside_it(walked):
    from protos import gamestrategy_pb2 as pb
    from server.backends.dudo import DudoBackend
    v = pb.VariantStats()
    backend = DudoBackend(walked)
    backend.stats(v)
    rs = {x.strategy: x for x in v.strategies}["round 1v1"]
    st = walked.manifest["rounds"]["1v1"]
    assert rs.headline == "exploitability" and rs.figures["exploitability"] == st["search_exploitability"]
    assert rs.headline_kind.startswith("exact") and rs.labels["served"] == SERVED_SEARCH_LARGE
    assert rs.figures["stored_exploitability"] == st["stored_exploitability"] and "stored rows" in rs.labels["rows_figures"]
    assert "served_kind" not in rs.labels
    assert "1v1, where search has the lower exact figure" in backend._search_description()


def test_an_exact_round_with_min_total_dice_is_refused():
    from games.dudo.search.tables import LargeSearchSpec
    with pytest.raises(ValueError, match="exact round 2v1: it has min_total = 3 dice or more"):
        LargeSearchSpec(min_total=3, exact_rounds=((2, 1),))
