"""A Dudo store whose manifest names search settings this server cannot serve (an unknown regret scheme, an exact
round with as many dice as the large rounds) passes its content check yet is refused alone: the version served
before keeps answering, and the refusal names the fault."""
import json

import pytest

from builder.dudo import build_dudo_store
from builder.measure_search import publish_changed
from games.storage import Store, current_stores
from server.registry import Registry
from tests.server.test_dudo_large_search_serving import PARAMS


@pytest.fixture()
def served(tmp_path):
    root = tmp_path / "stores"
    build_dudo_store(PARAMS, root)
    registry = Registry(root)
    assert registry.refresh() == {PARAMS.variant: "loaded"}
    yield root, registry
    registry.close()


@pytest.mark.parametrize("change, fault", [
    (lambda m: m["large_search"].update(regrets="nosuch"), "regrets 'nosuch': one of cfr+, dcfr"),
    (lambda m: m["large_search"].update(exact_rounds=[[1, 1]]), "exact round 1v1: it has min_total = 2 dice or more"),
])
def test_a_manifest_with_unservable_search_settings_is_refused_alone(served, change, fault):
    root, registry = served
    with registry.acquire(PARAMS.variant) as b:
        before = b.version
    store = Store(current_stores(root, "dudo")[PARAMS.variant])
    bad = publish_changed(store, root, change).name
    store.close()
    assert registry.refresh() == {PARAMS.variant: "refused"}
    refused = [r for r in registry.refused() if r.get("variant") == PARAMS.variant or bad in str(r)]
    assert refused and fault in json.dumps(refused)
    with registry.acquire(PARAMS.variant) as b:      # the version before still serves
        assert b.version == before
