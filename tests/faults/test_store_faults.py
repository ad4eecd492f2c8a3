"""Damaged stores: published, present at start-up, or changed under the server; bad entries in the root.
Each refuses only itself, names itself in the log and in ``Registry.refused`` (``/readyz``), and no answer
is computed from damaged bytes."""
import logging
import os
import shutil
import tempfile
import threading
from pathlib import Path

import grpc
import pytest

from clients.client import GameStrategyClient, guesswho_request
from games.storage import scan_published
from server.registry import Registry, StoreUnavailable
from tests.conftest import servers_on
from tests.faults.conftest import DAMAGE, GUESSWHO, JOTTO, publish_copy, random_bytes, served_file, swapped_values

SEEDS = range(40)


@pytest.fixture()
def served(root):
    """(registry, client) on the copy of the stores, both variants served."""
    registry = Registry(root)
    assert registry.refresh() == {JOTTO: "loaded", GUESSWHO: "loaded"}
    with servers_on(registry) as start:
        port = start()
        with GameStrategyClient(f"127.0.0.1:{port}", timeout=30) as client:
            yield registry, client
    registry.close()


def answers(client):
    return [(r.move, r.probability, r.store_version)
            for r in (client.jotto_move(JOTTO, "guesser", seed=s) for s in SEEDS)]


def refused_names(registry):
    return {(r["variant"], r["version"]) for r in registry.refused()}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_version_published_is_refused_and_the_previous_one_serves(served, root, caplog, damage):
    registry, client = served
    before = answers(client)
    DAMAGE[damage](publish_copy(root, f"20990101T000000-{damage}"))
    with caplog.at_level(logging.ERROR, logger="gamestrategy.server"):
        assert registry.refresh() == {JOTTO: "refused"}
    assert answers(client) == before  # 0 failed calls, no answer changed
    assert (JOTTO, f"20990101T000000-{damage}") in refused_names(registry)
    assert any(r.getMessage().startswith("refusing store") and r.fields["variant"] == JOTTO for r in caplog.records)


@pytest.mark.parametrize("damage", ["truncated", "flipped_pages", "swapped_values"])
def test_a_damaged_store_at_start_up_refuses_only_itself(root, damage):
    DAMAGE[damage](served_file(root))
    registry = Registry(root)
    try:
        assert registry.refresh() == {JOTTO: "refused", GUESSWHO: "loaded"}
        assert registry.variants() == [GUESSWHO]
        assert [r["variant"] for r in registry.refused()] == [JOTTO]
    finally:
        registry.close()


def test_the_content_check_runs_in_a_child_process(root, monkeypatch):
    """A check that crashes (what a damaged branch page can do to LMDB) refuses the store; the caller lives."""
    import server.storecheck as storecheck

    crash = root / "crash.py"
    crash.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    real_run = storecheck.subprocess.run
    monkeypatch.setattr(storecheck.subprocess, "run", lambda cmd, **kw: real_run([cmd[0], str(crash)], **kw))
    registry = Registry(root)
    try:
        assert registry.refresh() == {JOTTO: "refused", GUESSWHO: "refused"}
        assert all("died of SIGSEGV" in r["reason"] for r in registry.refused())
    finally:
        registry.close()


def test_a_check_that_does_not_finish_refuses_nothing_and_is_made_again(root, monkeypatch, tmp_path):
    """A content check past its time (a busy machine) is no verdict: the store is not refused, the workers' shared
    verdicts record nothing, and the next refresh checks it again with twice the time and serves it."""
    import server.storecheck as storecheck

    verdicts = tmp_path / "verdicts"
    verdicts.mkdir()
    monkeypatch.setenv(storecheck.VERDICTS_ENV, str(verdicts))
    monkeypatch.setattr(storecheck, "CHECK_MIN_SECONDS", 1e-4)
    monkeypatch.setattr(storecheck, "CHECK_FLOOR_BYTES_PER_SECOND", 1 << 50)
    registry = Registry(root)
    try:
        assert registry.refresh() == {JOTTO: "checking", GUESSWHO: "checking"}
        assert registry.refused() == [] and registry.variants() == []
        assert [p.read_text() for p in verdicts.iterdir()] == ["", ""]
        monkeypatch.setattr(storecheck, "CHECK_MIN_SECONDS", 60.0)
        assert registry.refresh() == {JOTTO: "loaded", GUESSWHO: "loaded"}
        assert storecheck.check_seconds(1 << 20, 1) == 2 * storecheck.check_seconds(1 << 20, 0)
    finally:
        registry.close()


@pytest.mark.parametrize("damage", [random_bytes, swapped_values])
def test_a_served_file_damaged_in_place_answers_no_move_and_is_withdrawn(served, root, damage):
    registry, client = served
    answers(client)
    path = served_file(root)
    damage(path)
    with pytest.raises(grpc.RpcError) as e:  # the move read from changed bytes is not answered
        client.jotto_move(JOTTO, "guesser", seed=1)
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE and "changed on disk" in e.value.details()
    assert ("gamestrategy-retry", "store") in tuple(e.value.trailing_metadata())   # not "building"
    assert registry.refresh() == {JOTTO: "withdrawn"}
    with pytest.raises(grpc.RpcError) as e:
        client.jotto_move(JOTTO, "guesser", seed=1)
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE and "refused" in e.value.details()
    assert ("gamestrategy-retry", "store") in tuple(e.value.trailing_metadata())
    assert [r["variant"] for r in registry.refused()] == [JOTTO]
    assert client.sample_move(guesswho_request(GUESSWHO, 12, 12)).store_version  # the other store serves on


def test_a_served_file_touched_but_intact_serves_again_after_its_check(served, root):
    registry, client = served
    before = answers(client)
    path = served_file(root)
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    with pytest.raises(grpc.RpcError) as e:
        client.jotto_move(JOTTO, "guesser", seed=1)
    assert e.value.code() == grpc.StatusCode.UNAVAILABLE
    assert registry.refresh() == {}
    assert answers(client) == before


def test_a_deleted_version_is_logged_and_served_from_its_open_file(served, root, caplog):
    registry, client = served
    before = answers(client)
    shutil.rmtree(served_file(root).parent)
    with caplog.at_level(logging.WARNING, logger="gamestrategy.server"):
        assert registry.refresh() == {}
    assert any("was deleted from disk" in r.getMessage() for r in caplog.records)
    assert answers(client) == before
    assert JOTTO in {r["variant"] for r in registry.refused()}  # its `current` link now dangles


def _loop(root, variant="jotto-en_US80-3-ganzfried"):
    d = root / "jotto" / variant
    d.mkdir()
    os.symlink("current", d / "current")


def test_a_symlink_loop_and_a_dangling_link_refuse_only_themselves(root):
    _loop(root)
    (root / "guesswho" / "guesswho-99").mkdir()
    os.symlink("gone", root / "guesswho" / "guesswho-99" / "current")
    registry = Registry(root)
    try:
        assert registry.refresh() == {JOTTO: "loaded", GUESSWHO: "loaded"}
        reasons = {r["variant"]: r["reason"] for r in registry.refused()}
        assert "Symlink loop" in reasons["jotto-en_US80-3-ganzfried"] and "does not exist" in reasons["guesswho-99"]
    finally:
        registry.close()


def test_a_bad_entry_appearing_at_runtime_does_not_stop_the_refresh_of_the_others(served, root):
    registry, client = served
    _loop(root)
    name = publish_copy(root, "20990101T000000-next", GUESSWHO).parent.name
    assert registry.refresh() == {GUESSWHO: "swapped"}
    assert registry.backends[GUESSWHO].store.path.name == name
    assert answers(client)


def test_an_unreadable_directory_refuses_only_itself_for_an_ordinary_user():
    """Mode 000 as the kernel enforces it: as root (which bypasses permissions, as in CI) the scan runs in a
    child process that has dropped to user nobody."""
    base = Path(tempfile.mkdtemp(prefix="gamestrategy-mode000-"))
    try:
        base.chmod(0o755)
        for game, variant in (("jotto", "a"), ("jotto", "b"), ("dudo", "c"), ("guesswho", "d")):
            (base / game / variant / "v1").mkdir(parents=True)
            os.symlink("v1", base / game / variant / "current")
        (base / "jotto" / "b").chmod(0o000)
        (base / "dudo").chmod(0o000)
        if os.geteuid() != 0:  # an ordinary user already: the kernel's permissions apply here
            stores, problems = scan_published(base)
            out = repr((sorted(stores), sorted(problems)))
        else:
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                try:
                    os.close(r)
                    os.setgid(65534)
                    os.setuid(65534)
                    stores, problems = scan_published(base)
                    os.write(w, repr((sorted(stores), sorted(problems))).encode())
                finally:
                    os._exit(0)
            os.close(w)
            with os.fdopen(r) as f:
                out = f.read()
            os.waitpid(pid, 0)
    finally:
        for d in (base / "jotto" / "b", base / "dudo"):
            d.chmod(0o755)
        shutil.rmtree(base)
    assert out == repr((["a", "d"], ["b", "dudo/"]))


def test_a_slow_check_holds_up_only_its_own_variant(root, monkeypatch):
    """Checks held on purpose (a large store on a busy machine): the other variant is served meanwhile; one with
    nothing served answers UNAVAILABLE (retry: store) and is listed as verifying; a served variant whose new
    version is being verified goes on answering from the old one."""
    import server.registry as registry_module

    held = {(root / "guesswho" / GUESSWHO / "current").resolve(): threading.Event()}
    real = registry_module.verified

    def held_check(path):
        if path in held:
            assert held[path].wait(60), "never released"
        return real(path)

    monkeypatch.setattr(registry_module, "verified", held_check)
    registry = Registry(root)
    try:
        checks = registry.start_checks()
        assert registry.wait_for({JOTTO: checks[JOTTO]}) == {JOTTO: "loaded"}
        assert registry.variants() == [JOTTO]
        guesswho_version = next(iter(held)).name
        assert registry.verifying() == [{"variant": GUESSWHO, "version": guesswho_version}]
        with pytest.raises(StoreUnavailable) as e, registry.acquire(GUESSWHO):
            pass
        assert e.value.status == "UNAVAILABLE" and e.value.retry == "store" and "being verified" in str(e.value)

        served = registry.backends[JOTTO].version
        new = publish_copy(root, "20990101T000000-next").parent
        held[new] = threading.Event()
        assert registry.refresh(wait=False) == {}
        assert registry.verifying() == [{"variant": GUESSWHO, "version": guesswho_version},
                                        {"variant": JOTTO, "version": new.name, "serving": served}]
        with registry.acquire(JOTTO) as b:
            assert b.version == served
        for release in held.values():
            release.set()
        assert registry.refresh() == {GUESSWHO: "loaded", JOTTO: "swapped"}
        assert registry.verifying() == [] and registry.backends[JOTTO].store.path == new
    finally:
        for release in held.values():
            release.set()
        registry.close()
