"""Each game's manifest type (games/<game>/store.py) checked by games.storage.check_manifest: a store a
builder wrote passes, and a missing or mistyped field is refused with a message naming it."""
import json
from types import SimpleNamespace

import pytest

from games.jotto.store import JottoManifest
from games.storage import Store, StoreError, check_manifest


def test_a_built_store_has_its_games_manifest(small_store):
    _, path = small_store
    store = Store(path)
    try:
        m = check_manifest(store, JottoManifest)
        assert m is store.manifest and m["game"] == "jotto"
    finally:
        store.close()


@pytest.mark.parametrize("fault, message", [
    (lambda m: m.pop("served"), "has no 'served'"),
    (lambda m: m.update(words="ab cd"), "'words' is str, expected list"),
    (lambda m: m.update(format_version=True), "'format_version' is bool, expected int"),
])
def test_a_missing_or_mistyped_field_is_named(small_store, fault, message):
    _, path = small_store
    store = Store(path)
    try:
        manifest = json.loads(json.dumps(store.manifest))
    finally:
        store.close()
    fault(manifest)
    with pytest.raises(StoreError, match=message):
        check_manifest(SimpleNamespace(path=path, manifest=manifest), JottoManifest)
