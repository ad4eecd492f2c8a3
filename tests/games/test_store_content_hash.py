"""The content hash (games.storage.content_hash) as defined: BLAKE2b-256 over each named database but ``meta`` in
name order (``db\\0<name>\\0``, then per entry in key order the key's length in 4 bytes and the value's in 8,
little-endian, the key and the value) and the manifest without its volatile fields. Recomputed here from
values copied out one by one: the walk that hashes them in place in the map gives the same digest, which
is the one the builder recorded at publish."""
import hashlib
import json
import struct

import numpy as np

from games.storage import Store, StoreWriter, _stable


def reference_hash(store: Store) -> str:
    h = hashlib.blake2b(digest_size=32)
    with store.env.begin(buffers=False) as txn:
        names = sorted(bytes(k) for k, _ in txn.cursor() if bytes(k) != b"meta")
    for name in names:
        h.update(b"db\0" + name + b"\0")
        db = store.env.open_db(name, create=False)
        with store.env.begin(db=db, buffers=False) as txn:
            for key in [bytes(k) for k in txn.cursor().iternext(keys=True, values=False)]:
                value = txn.get(key)
                h.update(struct.pack("<I", len(key)) + key + struct.pack("<Q", len(value)) + value)
    h.update(b"manifest\0" + json.dumps(_stable(store.manifest), sort_keys=True).encode())
    return h.hexdigest()


def test_the_hash_recorded_at_publish_is_the_definitions_on_small_and_overflow_values(tmp_path):
    rng = np.random.default_rng(3)
    with StoreWriter(tmp_path, "dudo", "dudo-hash") as w:
        w.put_many("windows", ((i.to_bytes(8, "big"), rng.bytes(int(n))) for i, n in
                               enumerate(rng.integers(0, 9000, 300))))
        w.put_many("arrays", [(b"big", rng.bytes(3 << 20)), (b"empty", b"")])
        path = w.publish({"game": "dudo", "variant": "dudo-hash", "parameters": {"m": 1}, "code_version": "test"})
    store = Store(path)
    try:
        assert store.manifest["content_hash"] == store.content_hash() == reference_hash(store)
    finally:
        store.close()


def test_a_built_store_hashes_to_the_definition(small_store):
    _, path = small_store
    store = Store(path)
    try:
        assert store.manifest["content_hash"] == store.content_hash() == reference_hash(store)
    finally:
        store.close()
