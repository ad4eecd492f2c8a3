"""The server as operators run it: worker processes on one SO_REUSEPORT port, SIGHUP refresh, SIGTERM."""
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from builder.jotto import JottoParams, build_jotto_store
from clients.client import GameStrategyClient
from tests.conftest import SMALL_VARIANT

REPO = Path(__file__).resolve().parents[2]
TOKEN = "worker-test-token-0123"


def _wait(cond, seconds=60.0):
    for _ in range(int(seconds * 10)):
        if cond():
            return True
        time.sleep(0.1)
    return False


def _logs(path):
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers fork")
def test_workers_share_the_port_refresh_on_sighup_and_stop_on_sigterm(tmp_path):
    root = tmp_path / "stores"
    params = dict(do_iterations=2, book_threshold=6)
    v1 = build_jotto_store(SMALL_VARIANT, JottoParams(fp_iterations=20, **params), root).name
    ports, log, scratch = tmp_path / "ports.json", tmp_path / "server.log", tmp_path / "tmp"
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(PYTHONPATH=str(REPO), GAMESTRATEGY_TOKEN=TOKEN, TMPDIR=str(scratch))
    with open(log, "wb") as fh:
        p = subprocess.Popen([sys.executable, "-m", "server", "--root", str(root), "--port", "0", "--workers", "2",
                              "--metrics-port", "0", "--http-port", "0", "--port-file", str(ports), "--refresh-seconds", "0",
                              "--grace", "2"], cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT)
    try:
        def listening():
            return {r["pid"] for r in _logs(log) if r.get("message") == "listening"}

        assert _wait(lambda: ports.exists() and len(listening()) == 2), log.read_text()[-3000:]
        info = json.loads(ports.read_text())
        target = f"127.0.0.1:{info['port']}"
        # fresh channels land on either worker; every one answers from v1
        for i in range(8):
            with GameStrategyClient(target, timeout=20, token=TOKEN) as c:
                assert c.jotto_move(SMALL_VARIANT, "guesser", seed=i).store_version == v1
        v2 = build_jotto_store(SMALL_VARIANT, JottoParams(fp_iterations=21, **params), root).name
        p.send_signal(signal.SIGHUP)

        def swapped():
            return {r["pid"] for r in _logs(log) if r.get("message") == "serving store"
                    and r.get("store_version") == v2} == listening()

        assert _wait(swapped), log.read_text()[-3000:]
        for i in range(8):
            with GameStrategyClient(target, timeout=20, token=TOKEN) as c:
                assert c.jotto_move(SMALL_VARIANT, "guesser", seed=i).store_version == v2

        # the HTTP API of the same workers: same token check, the swapped store, the same metrics
        def http(token):
            req = urllib.request.Request(f"http://127.0.0.1:{info['http_port']}/v1/SampleMove", method="POST",
                                         data=json.dumps({"variant": SMALL_VARIANT, "jotto": {"role": "GUESSER"}}).encode(),
                                         headers={"Authorization": f"Bearer {token}"} if token else {})
            try:
                with urllib.request.urlopen(req, timeout=20) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as e:
                return e.code, json.loads(e.read())

        for _ in range(8):
            status, body = http(TOKEN)
            assert status == 200 and body["storeVersion"] == v2, body
        assert http(None)[0] == 401 and http("wrong")[0] == 403

        def scrape(token=TOKEN):  # the metrics port wants the token as every other port
            req = urllib.request.Request(f"http://127.0.0.1:{info['metrics_port']}/metrics",
                                         headers={"Authorization": f"Bearer {token}"})
            return urllib.request.urlopen(req, timeout=10).read().decode()

        with pytest.raises(urllib.error.HTTPError) as refused:
            scrape("wrong")
        assert refused.value.code == 403

        def ok_calls(text):
            ok = [line for line in text.splitlines()
                  if line.startswith('gamestrategy_requests_total{code="OK",method="SampleMove"}')]
            return float(ok[0].split()[-1]) if ok else 0.0

        # workers fold their per-call tallies into the shared metrics every second (metrics.FLUSH_SECONDS)
        assert _wait(lambda: ok_calls(scrape()) >= 24.0, 30), scrape()
        text = scrape()
        assert ok_calls(text) == 24.0  # summed over both workers, gRPC and HTTP calls
        assert f'version="{v2}"' in text
        p.send_signal(signal.SIGTERM)
        assert p.wait(60) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(30)
    records = _logs(log)
    assert sum(r.get("message") == "stopping" for r in records) == 2
    assert TOKEN not in log.read_text()
    # the shared metrics, the store verdicts and the live workers' scratch go with the server
    assert sorted(p.name for p in scratch.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers fork")
def test_sigterm_to_every_process_at_once_stops_the_server(tmp_path):
    """systemd's default stop (KillMode=control-group) and `pkill -f` signal the parent and every worker at
    once, and the parent forwards its signal too: each worker gets several SIGTERMs back to back. A handler
    that set the stop Event itself could deadlock on the lock ``Event.wait`` holds in the main thread."""
    root = tmp_path / "stores"
    build_jotto_store(SMALL_VARIANT, JottoParams(fp_iterations=5, do_iterations=2, book_threshold=6), root)
    ports, log = tmp_path / "ports.json", tmp_path / "server.log"
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(PYTHONPATH=str(REPO))
    with open(log, "wb") as fh:
        p = subprocess.Popen([sys.executable, "-m", "server", "--root", str(root), "--port", "0", "--workers", "2",
                              "--metrics-port", "0", "--port-file", str(ports), "--refresh-seconds", "0",
                              "--grace", "1"], cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT)
    try:
        def workers():
            return {r["pid"] for r in _logs(log) if r.get("message") == "listening"}

        assert _wait(lambda: ports.exists() and len(workers()) == 2), log.read_text()[-3000:]
        pids = [p.pid, *workers()]
        for _ in range(50):
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        assert p.wait(60) == 0, log.read_text()[-3000:]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(30)
    assert sum(r.get("message") == "stopped" for r in _logs(log)) == 3    # two workers and the parent


def test_drain_says_not_serving_while_it_still_answers(tmp_path):
    """--drain-seconds: after SIGTERM, /readyz 503 and gRPC health NOT_SERVING while calls over both
    transports are still answered; then the server stops as --grace says and exits 0."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    root = tmp_path / "stores"
    build_jotto_store(SMALL_VARIANT, JottoParams(fp_iterations=20, do_iterations=2, book_threshold=6), root)
    ports, log = tmp_path / "ports.json", tmp_path / "server.log"
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(PYTHONPATH=str(REPO))
    with open(log, "wb") as fh:
        p = subprocess.Popen([sys.executable, "-m", "server", "--root", str(root), "--port", "0", "--workers", "1",
                              "--metrics-port", "-1", "--http-port", "0", "--port-file", str(ports),
                              "--refresh-seconds", "0", "--grace", "1", "--drain-seconds", "3"],
                             cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT)
    try:
        assert _wait(ports.exists), log.read_text()[-3000:]
        info = json.loads(ports.read_text())
        base = f"http://127.0.0.1:{info['http_port']}"

        def readyz():
            try:
                with urllib.request.urlopen(f"{base}/readyz", timeout=5) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as e:
                return e.code, json.loads(e.read())

        def http_move():
            req = urllib.request.Request(f"{base}/v1/SampleMove", method="POST",
                                         data=json.dumps({"variant": SMALL_VARIANT, "jotto": {"role": "GUESSER"}}).encode())
            with urllib.request.urlopen(req, timeout=5) as r:
                return r.status

        assert _wait(lambda: readyz()[0] == 200), log.read_text()[-3000:]
        with GameStrategyClient(f"127.0.0.1:{info['port']}", timeout=5) as c:
            health = health_pb2_grpc.HealthStub(c.channel)
            assert health.Check(health_pb2.HealthCheckRequest(), timeout=5).status == health_pb2.HealthCheckResponse.SERVING
            t0 = time.monotonic()
            p.send_signal(signal.SIGTERM)
            assert _wait(lambda: readyz()[0] == 503, 2), log.read_text()[-3000:]
            assert readyz()[1]["message"] == "stopping"
            assert health.Check(health_pb2.HealthCheckRequest(), timeout=5).status == \
                health_pb2.HealthCheckResponse.NOT_SERVING
            assert c.jotto_move(SMALL_VARIANT, "guesser", seed=1).move  # still answered over gRPC
            assert http_move() == 200  # and over HTTP
            assert time.monotonic() - t0 < 3  # all of it within the drain
        assert p.wait(30) == 0
        assert time.monotonic() - t0 >= 3
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(30)
