"""Hot refresh: a newly published store is swapped in under load, the old one closed after its calls."""
import datetime
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import lmdb
import pytest

from builder.jotto import JottoParams, build_jotto_store
from clients.client import GameStrategyClient
from tests.conftest import SMALL_VARIANT
from server.app import build_server
from server.registry import Registry
from server.settings import ServerSettings

REPO = Path(__file__).resolve().parents[2]


def _build(root, fp):
    return build_jotto_store(SMALL_VARIANT, JottoParams(fp_iterations=fp, do_iterations=2, book_threshold=6), root)


@pytest.fixture()
def served(tmp_path):
    root = tmp_path / "stores"
    v1 = _build(root, 20)
    registry = Registry(root)
    assert registry.refresh() == {SMALL_VARIANT: "loaded"}
    server, port = build_server(registry, "127.0.0.1:0", settings=ServerSettings(threads=8))
    server.start()
    client = GameStrategyClient(f"127.0.0.1:{port}", timeout=20)
    yield root, registry, client, v1.name
    client.close()
    server.stop(0).wait()
    registry.close()


def _link(root):
    return root / "jotto" / SMALL_VARIANT / "current"


def test_swap_under_load_fails_no_request_and_closes_the_old_store(served):
    root, registry, client, v1 = served
    assert client.jotto_move(SMALL_VARIANT, "guesser", seed=1).store_version == v1
    stop = threading.Event()
    seen: list[list[str]] = [[] for _ in range(4)]
    failures = []

    def load(k):
        for i in range(20000):  # bounded
            if stop.is_set():
                return
            try:
                seen[k].append(client.jotto_move(SMALL_VARIANT, "guesser", [], seed=i).store_version)
            except Exception as e:  # noqa: BLE001
                failures.append(repr(e))

    threads = [threading.Thread(target=load, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    while sum(map(len, seen)) < 200 and all(t.is_alive() for t in threads):
        time.sleep(0.01)
    old = registry._handles[SMALL_VARIANT]
    v2 = _build(root, 21).name
    assert registry.refresh() == {SMALL_VARIANT: "swapped"}
    n_at_swap = sum(map(len, seen))
    while sum(map(len, seen)) < n_at_swap + 200 and all(t.is_alive() for t in threads):
        time.sleep(0.01)
    stop.set()
    for t in threads:
        t.join()
    assert failures == []
    for s in seen:  # each caller sees v1 then v2, never back
        assert set(s) <= {v1, v2}
        first_new = s.index(v2) if v2 in s else len(s)
        assert all(v == v2 for v in s[first_new:])
    assert any(v2 in s for s in seen) and any(v1 in s for s in seen)
    assert old.retired and old.closed and old.refs == 0
    assert client.jotto_move(SMALL_VARIANT, "hider", seed=1).store_version == v2
    assert {v.variant: v.store_version for v in client.list_variants().variants} == {SMALL_VARIANT: v2}


def test_in_flight_call_keeps_the_old_store_open_until_it_ends(served):
    root, registry, client, v1 = served
    with registry.acquire(SMALL_VARIANT) as b:
        old = registry._handles[SMALL_VARIANT]
        _build(root, 22)
        assert registry.refresh() == {SMALL_VARIANT: "swapped"}
        assert old.retired and not old.closed
        # the in-flight call still reads its store
        assert b.book_entry(b.served, b.oracle.all_words) is not None
        assert b.sample_guesser("", 3, [], False).move
    assert old.closed
    assert registry.refresh() == {}  # nothing new: nothing reopened


def _publish_dir(root, name, writer):
    base = root / "jotto" / SMALL_VARIANT
    d = base / name
    d.mkdir()
    writer(d)
    tmp = base / f".current-{name}"
    os.symlink(name, tmp)
    os.replace(tmp, base / "current")


@pytest.mark.parametrize("kind,fault", [
    ("garbage", "no valid LMDB meta page"),
    ("format", "format version 99"),
    ("no manifest", "no manifest"),
])
def test_corrupt_or_incompatible_store_is_refused_and_the_previous_one_serves(served, caplog, kind, fault):
    root, registry, client, v1 = served

    def write(d):
        if kind == "garbage":
            (d / "data.mdb").write_bytes(os.urandom(8192))
            return
        env = lmdb.open(str(d), max_dbs=4)
        db = env.open_db(b"meta")
        with env.begin(write=True, db=db) as txn:
            if kind == "format":
                txn.put(b"manifest", b'{"format_version": 99, "store_version": "bad", "variant": "x"}')
            else:
                txn.put(b"other", b"1")
        env.close()

    with caplog.at_level(logging.ERROR, logger="gamestrategy.server"):
        _publish_dir(root, f"bad-{kind.replace(' ', '_')}", write)
        assert registry.refresh() == {SMALL_VARIANT: "refused"}
    rec = [r for r in caplog.records if "refusing store" in r.getMessage()]
    assert rec and fault in rec[0].fields["error"] and rec[0].fields["serving"] == v1
    assert client.jotto_move(SMALL_VARIANT, "guesser", seed=2).store_version == v1
    assert registry.refresh() == {}  # refused once, not retried (no log flood)
    # a good build after it is taken
    v3 = _build(root, 23).name
    assert registry.refresh() == {SMALL_VARIANT: "swapped"}
    assert client.jotto_move(SMALL_VARIANT, "guesser", seed=2).store_version == v3


def test_a_store_of_another_variant_is_refused(served, tmp_path):
    root, registry, client, v1 = served
    other = build_jotto_store("jotto-en_US80-3-ganzfried", JottoParams(fp_iterations=3, do_iterations=1,
                                                                          book_threshold=400), tmp_path / "other")
    base = root / "jotto" / SMALL_VARIANT
    os.symlink(other, base / ".current-x")
    os.replace(base / ".current-x", base / "current")
    assert registry.refresh() == {SMALL_VARIANT: "refused"}
    assert client.jotto_move(SMALL_VARIANT, "guesser", seed=2).store_version == v1


def test_build_killed_half_way_leaves_the_served_store_untouched(served, tmp_path):
    root, registry, client, v1 = served
    before = os.readlink(_link(root))
    code = ("import sys; from pathlib import Path; from builder.jotto import JottoParams, build_jotto_store;"
            f"build_jotto_store({SMALL_VARIANT!r}, JottoParams(fp_iterations=10**7, do_iterations=2), Path(sys.argv[1]))")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    err = tmp_path / "build.err"
    with open(err, "wb") as fh:
        p = subprocess.Popen([sys.executable, "-c", code, str(root)], env=env, stdout=subprocess.DEVNULL, stderr=fh)
    try:
        for _ in range(600):  # up to 60 s for the build to be solving
            if b"fictitious play" in err.read_bytes() or p.poll() is not None:
                break
            time.sleep(0.1)
        assert p.poll() is None and b"fictitious play" in err.read_bytes(), err.read_text()[-2000:]
        p.send_signal(signal.SIGKILL)
        p.wait(30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == -signal.SIGKILL
    # and a writer abandoned half-way through writing its store (killed before publish)
    from games.storage import StoreWriter

    w = StoreWriter(root, "jotto", SMALL_VARIANT)
    w.put("meta", b"manifest", b"{}")
    w.env.close()
    assert os.readlink(_link(root)) == before
    assert registry.refresh() == {}
    assert client.jotto_move(SMALL_VARIANT, "guesser", seed=5).store_version == v1


def _build_time_gauge(variant=SMALL_VARIANT):
    from prometheus_client import REGISTRY
    return REGISTRY.get_sample_value("gamestrategy_store_build_timestamp_seconds", {"variant": variant})


def _publish_with_build_time(root, name, build_time):
    """A copy of the served version under `name` whose manifest states `build_time` (outside the content
    hash, so the copy passes its check), made `current`."""
    base = root / "jotto" / SMALL_VARIANT

    def write(d):
        shutil.copy(base / "current" / "data.mdb", d / "data.mdb")
        os.chmod(d / "data.mdb", 0o644)
        env = lmdb.open(str(d), max_dbs=4)
        db = env.open_db(b"meta")
        with env.begin(write=True, db=db) as txn:
            manifest = dict(json.loads(txn.get(b"manifest")), build_time=build_time, store_version=name)
            txn.put(b"manifest", json.dumps(manifest).encode())
        env.close()

    _publish_dir(root, name, write)


def test_the_build_time_gauge_follows_the_served_version(served):
    root, registry, client, v1 = served
    stated = registry.backends[SMALL_VARIANT].store.manifest["build_time"]
    assert _build_time_gauge() == datetime.datetime.fromisoformat(stated.replace("Z", "+00:00")).timestamp()
    assert abs(_build_time_gauge() - time.time()) < 3600  # built by the fixture just now
    _publish_with_build_time(root, "20200102T030405-old", "2020-01-02T03:04:05Z")
    assert registry.refresh() == {SMALL_VARIANT: "swapped"}
    assert client.jotto_move(SMALL_VARIANT, "guesser", seed=1).store_version == "20200102T030405-old"
    assert _build_time_gauge() == 1577934245.0
    # a build time that cannot be read refuses the version; the gauge keeps the version still served
    _publish_with_build_time(root, "20200103T000000-bad", "yesterday")
    assert registry.refresh() == {SMALL_VARIANT: "refused"}
    assert "build_time" in registry.refused()[0]["reason"] and "'yesterday'" in registry.refused()[0]["reason"]
    assert _build_time_gauge() == 1577934245.0
    # the served file damaged in place: withdrawn, and the gauge says no store (0)
    os.symlink("20200102T030405-old", root / "jotto" / SMALL_VARIANT / ".current-old")
    os.replace(root / "jotto" / SMALL_VARIANT / ".current-old", _link(root))
    with open(root / "jotto" / SMALL_VARIANT / "20200102T030405-old" / "data.mdb", "r+b") as f:
        f.seek(4096 * 3)
        f.write(os.urandom(4096))
    assert registry.refresh() == {SMALL_VARIANT: "withdrawn"}
    assert _build_time_gauge() == 0.0
