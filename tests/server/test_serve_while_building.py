"""Serving while the default stores are built: the server starts on an empty root (not ready), says what the
build beside it is making (progress file: ListVariants, GetStats, /readyz, the unknown-variant message, the
play page), and a store published while it runs comes online by refresh."""
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from builder.jotto import JottoParams, build_jotto_store
from games.buildprogress import BuildProgress, VariantProgress
from protos import gamestrategy_pb2 as pb
from protos import gamestrategy_pb2_grpc as pb_grpc
from server.registry import Registry
from server.service import GameStrategyServicer
from tests.conftest import SMALL_VARIANT

REPO = Path(__file__).resolve().parents[2]
BIG = "dudo-5dice-default"


def _progress(root, small_state="building"):
    """A running build's file: the small Jotto store being built (10 of 40 s), the Dudo store planned."""
    return BuildProgress([VariantProgress(SMALL_VARIANT, small_state, 40.0, 10.0),
                          VariantProgress(BIG, "planned", 400.0)], pid=os.getpid()).write(root)


def _guess(variant):
    return pb.SampleMoveRequest(variant=variant, game_seed=1, jotto=pb.JottoState(role=pb.JottoState.GUESSER))


def _http(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.fixture()
def empty_server(tmp_path):
    """`python -m server` on an empty store root, refreshing every 0.3 s: (root, grpc port, http port, log)."""
    root, ports, log = tmp_path / "stores", tmp_path / "ports.json", tmp_path / "server.log"
    root.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PROMETHEUS_MULTIPROC_DIR", "GAMESTRATEGY_TOKEN")}
    with open(log, "wb") as fh:
        p = subprocess.Popen([sys.executable, "-m", "server", "--root", str(root), "--port", "0", "--http-port", "0",
                              "--workers", "1", "--metrics-port", "-1", "--refresh-seconds", "0.3", "--log-format",
                              "text", "--port-file", str(ports)], cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while not ports.exists():  # it listens although there is nothing to serve
            assert p.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.05)
        got = json.loads(ports.read_text())
        yield root, got["port"], got["http_port"], log
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            assert p.wait(30) == 0, log.read_text()[-3000:]
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(30)
            raise


def _post(port, method, body):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/{method}", data=json.dumps(body).encode(), method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _until(fn, seconds=60):
    deadline = time.monotonic() + seconds
    while True:
        got = fn()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def test_server_on_an_empty_root_is_not_ready_then_serves_what_the_build_publishes(empty_server):
    root, port, http_port, log = empty_server
    status, body = _http(http_port, "/readyz")
    assert status == 503 and body == {"status": "NOT_SERVING", "message": "no store loaded", "building": [], "verifying": [],
                                      "refused": []}
    assert _http(http_port, "/healthz")[0] == 200  # alive, not ready
    assert "no store to serve yet: not ready" in log.read_text()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        health = health_pb2_grpc.HealthStub(ch)
        assert health.Check(health_pb2.HealthCheckRequest()).status == health_pb2.HealthCheckResponse.NOT_SERVING
        stub = pb_grpc.GameStrategyStub(ch)
        assert list(stub.ListVariants(pb.ListVariantsRequest()).variants) == []

        _progress(root)  # a build starts beside the server
        status, body = _until(lambda: (lambda r: r if r[1]["building"] else None)(_http(http_port, "/readyz")))
        assert status == 503 and "2 being built" in body["message"]
        assert [(b["variant"], b["state"], b["fraction"], b["eta_seconds"]) for b in body["building"]] == [
            (SMALL_VARIANT, "building", 0.25, 30.0), (BIG, "planned", 0.0, 430.0)]
        reply = stub.ListVariants(pb.ListVariantsRequest())
        assert [(b.variant, b.game, b.state) for b in reply.building] == [
            (SMALL_VARIANT, "jotto", "building"), (BIG, "dudo", "planned")]
        assert [b.variant for b in stub.ListVariants(pb.ListVariantsRequest(game="dudo")).building] == [BIG]
        # a store being built is a temporary state: UNAVAILABLE (HTTP 503), which clients retry; unknown: NOT_FOUND
        with pytest.raises(grpc.RpcError) as e:
            stub.SampleMove(_guess(SMALL_VARIANT))
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "is not served yet: it is being built (about 25%, about 30 s left)" in e.value.details()
        assert ("gamestrategy-retry", "building") in tuple(e.value.trailing_metadata())
        status, body = _post(http_port, "SampleMove", {"variant": SMALL_VARIANT, "jotto": {"role": "GUESSER"}})
        assert status == 503 and body["status"] == "UNAVAILABLE" and "being built" in body["message"]
        with pytest.raises(grpc.RpcError) as e:
            stub.GetStats(pb.GetStatsRequest(variant=SMALL_VARIANT))
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE
        with pytest.raises(grpc.RpcError) as e:
            stub.SampleMove(_guess("jotto-en_US80-9-nosuch"))
        assert e.value.code() == grpc.StatusCode.NOT_FOUND and "unknown variant" in e.value.details()
        status, body = _post(http_port, "GetWords", {"variant": "jotto-en_US80-9-nosuch"})
        assert status == 404 and body["status"] == "NOT_FOUND"
        # the command line says the service's own line (not a connection diagnosis) and exits 1: retry later
        cli = subprocess.run([sys.executable, "-m", "clients.cli", "--target", f"127.0.0.1:{port}", "sample",
                              SMALL_VARIANT, "--role", "guesser"], cwd=REPO, capture_output=True, text=True, timeout=60)
        assert cli.returncode == 1 and cli.stderr.count("\n") == 1, cli.stderr
        assert cli.stderr.startswith("gamestrategy: UNAVAILABLE: variant") and "being built" in cli.stderr
        _progress(root)  # the build's heartbeat (a file older than STALE_SECONDS is a build that died)

        build_jotto_store(SMALL_VARIANT, JottoParams(fp_iterations=20, do_iterations=2, book_threshold=6), root)
        status, body = _until(lambda: (lambda r: r if r[0] == 200 else None)(_http(http_port, "/readyz")))
        # the file still says "building" (the builder has not rewritten it yet): the served one is left out
        assert status == 200 and body["variants"] == 1 and [b["variant"] for b in body["building"]] == [BIG]
        assert health.Check(health_pb2.HealthCheckRequest()).status == health_pb2.HealthCheckResponse.SERVING
        reply = stub.ListVariants(pb.ListVariantsRequest())
        assert [v.variant for v in reply.variants] == [SMALL_VARIANT]
        assert [b.variant for b in reply.building] == [BIG]
        assert stub.SampleMove(_guess(SMALL_VARIANT)).move

        done = BuildProgress.start([(SMALL_VARIANT, 40.0), (BIG, 400.0)])
        done.state = "done"
        done.write(root)
        assert _until(lambda: _http(http_port, "/readyz")[1]["building"] == [])
        assert list(stub.ListVariants(pb.ListVariantsRequest()).building) == []
    assert "ready" in log.read_text().split("serving store", 1)[1]


class _Ctx:
    def abort(self, code, details):
        raise AssertionError(f"aborted: {code} {details}")


def test_get_stats_and_list_variants_report_the_build_and_ignore_a_bad_or_dead_file(small_store, tmp_path, caplog):
    root = tmp_path / "stores"
    (root / "jotto").mkdir(parents=True)
    (root / "jotto" / SMALL_VARIANT).symlink_to(small_store[0] / "jotto" / SMALL_VARIANT)
    registry = Registry(root)
    registry.refresh()
    registry.build_status.every = 0.0  # read the file on every call
    servicer = GameStrategyServicer(registry)
    try:
        assert list(servicer.GetStats(pb.GetStatsRequest(), _Ctx()).building) == []
        BuildProgress([VariantProgress(BIG, "building", None, 5.0)], updated=time.time()).write(root)
        stats = servicer.GetStats(pb.GetStatsRequest(), _Ctx())
        assert [v.variant for v in stats.variants] == [SMALL_VARIANT]
        # no estimate for it: -1, not a guess
        assert [(b.variant, b.state, b.fraction, b.eta_seconds) for b in stats.building] == [(BIG, "building", -1, -1)]
        p = BuildProgress([VariantProgress(BIG, "building", 100.0, 5.0)])
        p.write(root)
        data = json.loads((root / ".build-progress.json").read_text())
        data["updated"] = time.time() - 3600  # its builder died an hour ago
        (root / ".build-progress.json").write_text(json.dumps(data))
        assert list(servicer.ListVariants(pb.ListVariantsRequest(), _Ctx()).building) == []
        (root / ".build-progress.json").write_text("{half a fi")
        with caplog.at_level("WARNING", logger="gamestrategy.server"):
            assert list(servicer.ListVariants(pb.ListVariantsRequest(), _Ctx()).building) == []
            assert list(servicer.GetStats(pb.GetStatsRequest(), _Ctx()).building) == []
        assert [r.message for r in caplog.records].count("ignoring the build progress file") == 1
    finally:
        registry.close()


def test_an_empty_server_compiles_the_kernels_of_the_builds_first_jotto_store_while_it_waits(tmp_path, caplog):
    import logging
    import threading

    from server.worker import warm_for_build

    root = tmp_path / "stores"
    root.mkdir()
    registry = Registry(root)
    log = logging.getLogger("gamestrategy.server")
    stop = threading.Event()
    with caplog.at_level("INFO", logger="gamestrategy.server"):
        warm_for_build(registry, log, stop, wait_seconds=0.3)  # no build beside it: nothing to warm
        assert not [r for r in caplog.records if "kernels warmed" in r.message]
        BuildProgress([VariantProgress(BIG, "building", 400.0, 1.0), VariantProgress(SMALL_VARIANT, "planned", 10.0)],
                      updated=time.time()).write(root)
        warm_for_build(registry, log, stop, wait_seconds=5)
    warmed = [r for r in caplog.records if "kernels warmed" in r.message]
    assert len(warmed) == 1 and warmed[0].fields["variant"] == SMALL_VARIANT  # the first Jotto one, not Dudo
