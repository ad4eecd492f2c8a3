"""A round served by search (games.dudo.policy.searched): the exact figure the builder states for it is the
independent exact best response (games.dudo.reference.exact_check, written from the rules) against the policy the
server answers (games.dudo.serving.searched_store, the live worker's task, run here in-process)."""
from pathlib import Path

import pytest

from games.dudo.reference import exact_check as xc
from games.dudo.policy.searched import SearchSpec
from games.dudo.serving.searched_store import searched_move_from_store, searched_strategy
from games.dudo.policy.served import SERVED_SEARCHED
from games.dudo.abstraction.infoset import history_window
from games.dudo.build.params import DudoParams
from games.storage import Store
from tests.conftest import built_dudo_manifest

# 1v1 remembering one claim (exploitability about 0.2): depth-2 search with few iterations lowers it
PARAMS = DudoParams(max_dice=1, iterations=60, memory=1, perfect_recall_total=0, exact_br_total=2,
                    search_by_round=(((1, 1), 2, 40, "maxmargin"),))


@pytest.fixture(scope="module")
def searched_store(tmp_path_factory):
    root, manifest = built_dudo_manifest(PARAMS, tmp_path_factory.mktemp("dudosearch"))
    return str((root / "dudo" / PARAMS.variant / "current").resolve()), manifest


def test_stated_figure_of_a_searched_round_is_the_best_response_to_the_served_policy(searched_store):
    path, manifest = searched_store
    st = manifest["rounds"]["1v1"]
    assert st["served"] == SERVED_SEARCHED
    assert st["exploitability"] < st["stored_exploitability"]

    def served(own, opp, hist):      # the requester opened iff it is to move after an even number of claims
        return searched_strategy(path, own, opp, hist, len(hist) % 2 == 0)

    for resp_seat, k in ((0, "br_opener"), (1, "br_other")):
        assert xc.best_response(1, 1, resp_seat, served, {}, {}) == pytest.approx(st[k], abs=1e-9), k
    # the stored rows' figure is kept beside the searched one, and is the rows' own
    store = Store(Path(path))
    try:
        rows = xc.stored_policy(lambda key: store.get("windows", key), {(1, 1): 1}, history_window)
        e = xc.best_response(1, 1, 0, rows, {}, {}) + xc.best_response(1, 1, 1, rows, {}, {}) - 1
    finally:
        store.close()
    assert st["stored_exploitability"] == pytest.approx(e, abs=1e-9)


def test_a_searched_answer_lists_every_legal_action_and_sums_to_one(searched_store):
    path, _ = searched_store
    acts, probs = searched_move_from_store(path, 1, 1, (3,), (0, 4), True)
    assert acts == [-1] + list(range(5, 12))
    assert sum(probs) == pytest.approx(1.0, abs=1e-9)
    assert acts == searched_move_from_store(path, 1, 1, (3,), (0, 4), True)[0]


def test_bad_search_specs_are_refused():
    for bad in (dict(depth=3), dict(depth=0), dict(iterations=0), dict(gadget="unsafe")):
        with pytest.raises(ValueError):
            SearchSpec(**bad)


def test_search_by_round_round_trips_through_the_manifest():
    import json

    from games.dudo.policy.searched import search_specs
    from games.dudo.build.params import manifest_parameters
    back = json.loads(json.dumps(manifest_parameters(PARAMS)))       # as a backend reads the manifest
    assert back["search_by_round"] == [[[1, 1], 2, 40, "maxmargin"]]
    assert search_specs(DudoParams(**back).search_by_round) == {(1, 1): SearchSpec(2, 40, "maxmargin")}
    assert "search_by_round" not in manifest_parameters(DudoParams(max_dice=1, iterations=10))
