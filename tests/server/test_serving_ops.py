"""Operations and security: metrics, limits, deadlines, batch calls, bearer token, TLS and mutual TLS."""
import threading
import time
import urllib.request

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY

from clients.client import GameStrategyClient
from tests.conftest import SMALL_VARIANT
from tests.server.certs import make_certs
from protos import gamestrategy_pb2 as pb
from server import metrics
from server.metrics_endpoint import serve_metrics
from server.backends import DeadlineExceeded
from server.settings import TLSConfig

TOKEN = "s3cret-token-for-tests"


def _sample(name, **labels):
    return REGISTRY.get_sample_value(name, labels) or 0.0


def _err(fn):
    with pytest.raises(grpc.RpcError) as e:
        fn()
    return e.value.code(), e.value.details()


def test_metrics_count_calls_codes_sources_and_store_version(serve, registry):
    port = serve()
    c = GameStrategyClient(f"127.0.0.1:{port}", timeout=20)
    ok0 = _sample("gamestrategy_requests_total", method="SampleMove", code="OK")
    bad0 = _sample("gamestrategy_errors_total", method="SampleMove", code="INVALID_ARGUMENT")
    book0 = _sample("gamestrategy_moves_total", variant=SMALL_VARIANT, source="book")
    lat0 = _sample("gamestrategy_request_seconds_count", method="SampleMove")
    for seed in range(5):
        assert c.jotto_move(SMALL_VARIANT, "guesser", seed=seed).source == "book"
    _err(lambda: c.jotto_move(SMALL_VARIANT, "guesser", [("qq", 1)]))
    assert _sample("gamestrategy_requests_total", method="SampleMove", code="OK") == ok0 + 5
    assert _sample("gamestrategy_errors_total", method="SampleMove", code="INVALID_ARGUMENT") == bad0 + 1
    assert _sample("gamestrategy_moves_total", variant=SMALL_VARIANT, source="book") == book0 + 5
    assert _sample("gamestrategy_request_seconds_count", method="SampleMove") == lat0 + 6
    version = registry.backends[SMALL_VARIANT].version
    assert _sample("gamestrategy_store_info", variant=SMALL_VARIANT, version=version) == 1
    # the HTTP endpoint on its own port
    listener = serve_metrics(0)
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{listener.port}/metrics", timeout=10).read().decode()
    finally:
        listener.stop(0)
    assert 'gamestrategy_requests_total{code="OK",method="SampleMove"}' in text
    assert "gamestrategy_request_seconds_bucket" in text and "gamestrategy_store_info" in text
    c.close()


def test_max_concurrent_rpcs_gives_resource_exhausted(serve, registry, monkeypatch):
    port = serve(max_concurrent_rpcs=2, threads=4)
    b = registry.backends[SMALL_VARIANT]
    gate, entered = threading.Event(), threading.Semaphore(0)
    real = b.sample_hider

    def slow(*a, **kw):
        entered.release()
        gate.wait(30)
        return real(*a, **kw)

    monkeypatch.setattr(b, "sample_hider", slow)
    c = GameStrategyClient(f"127.0.0.1:{port}", timeout=30)
    futs = [c.stub.SampleMove.future(pb.SampleMoveRequest(variant=SMALL_VARIANT, jotto=pb.JottoState(role=1)),
                                     timeout=30) for _ in range(2)]
    assert entered.acquire(timeout=30) and entered.acquire(timeout=30)
    code, _ = _err(lambda: c.jotto_move(SMALL_VARIANT, "hider", seed=1))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    gate.set()
    assert all(f.result().move for f in futs)
    c.close()


def test_request_size_limit_and_batch_limit(serve):
    port = serve(max_batch=4)
    c = GameStrategyClient(f"127.0.0.1:{port}", timeout=20)
    big = pb.SampleMoveRequest(variant=SMALL_VARIANT, strategy="x" * 70_000, jotto=pb.JottoState(role=2))
    code, details = _err(lambda: c.stub.SampleMove(big, timeout=10))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "at most 65536" in details
    huge = pb.SampleMoveRequest(variant="x" * (5 << 20))
    code, _ = _err(lambda: c.stub.SampleMove(huge, timeout=10))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    reqs = [pb.SampleMoveRequest(variant=SMALL_VARIANT, jotto=pb.JottoState(role=2))] * 5
    code, details = _err(lambda: c.sample_moves(reqs))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "at most 4" in details
    c.close()


def test_batch_answers_each_request_on_its_own(serve):
    port = serve()
    c = GameStrategyClient(f"127.0.0.1:{port}", timeout=20)
    reqs = [pb.SampleMoveRequest(variant=SMALL_VARIANT, game_seed=s, jotto=pb.JottoState(role=2)) for s in range(6)]
    reqs.insert(2, pb.SampleMoveRequest(variant="nope", jotto=pb.JottoState(role=2)))
    out = c.sample_moves(reqs)
    assert len(out) == 7 and out[2][0] == grpc.StatusCode.NOT_FOUND and "unknown variant" in out[2][1]
    singles = [c.jotto_move(SMALL_VARIANT, "guesser", seed=s) for s in range(6)]
    assert [m for i, m in enumerate(out) if i != 2] == singles
    assert c.sample_moves([]) == []
    c.close()


def test_live_computation_past_the_deadline_is_abandoned(registry, serve, monkeypatch):
    b = registry.backends[SMALL_VARIANT]
    s = b.strategies["benchmark"]
    # a state below the book threshold: live
    o = b.oracle
    hist = next(([pb.JottoTurn(guess=b.dictionary.words[g], jots=a), pb.JottoTurn(guess=b.dictionary.words[h], jots=e)]
                 for g in range(o.D) for h in range(g + 1, o.D) for a in range(o.L) for e in range(o.L)
                 if 2 <= len(o.consistent([g, h], [a, e])) <= b.threshold), None)
    assert hist is not None
    b._moves.clear()
    with pytest.raises(DeadlineExceeded):
        b.sample_guesser("benchmark", 0, hist, False, deadline=time.monotonic() - 1)
    # over gRPC: the live kernel is slower than the caller's deadline, the server abandons the rest
    calls = []
    real = type(s).move

    def slow_move(self, oracle, c, state, rollout_limit=None):
        calls.append(c)
        time.sleep(0.3)
        return real(self, oracle, c, state, rollout_limit)

    monkeypatch.setattr(type(s), "move", slow_move)
    b._moves.clear()
    port = serve()
    c = GameStrategyClient(f"127.0.0.1:{port}", timeout=20)
    before = _sample("gamestrategy_errors_total", method="SampleMove", code="DEADLINE_EXCEEDED")
    code, _ = _err(lambda: c.jotto_move(SMALL_VARIANT, "guesser", [(t.guess, t.jots) for t in hist],
                                        strategy="double_oracle", timeout=0.4))
    assert code == grpc.StatusCode.DEADLINE_EXCEEDED
    members = b.strategies["double_oracle"].size
    for _ in range(100):  # the server finishes the call it is in, then gives up (bounded wait)
        if _sample("gamestrategy_errors_total", method="SampleMove", code="DEADLINE_EXCEEDED") > before:
            break
        time.sleep(0.1)
    assert _sample("gamestrategy_errors_total", method="SampleMove", code="DEADLINE_EXCEEDED") == before + 1
    assert len(calls) < members  # not every member's live move was computed
    c.close()


def test_a_reply_made_past_the_deadline_is_counted_as_the_caller_got_it(serve, monkeypatch):
    """A handler that returns after its call's deadline (a serving thread the machine woke late): the caller got
    DEADLINE_EXCEEDED, and the metrics count that, not OK."""
    from server import service
    real = service._sample

    def late(*args, **kw):
        time.sleep(0.5)
        return real(*args, **kw)

    monkeypatch.setattr(service, "_sample", late)
    port = serve()
    c = GameStrategyClient(f"127.0.0.1:{port}", timeout=20)
    ok0 = _sample("gamestrategy_requests_total", method="SampleMove", code="OK")
    late0 = _sample("gamestrategy_errors_total", method="SampleMove", code="DEADLINE_EXCEEDED")
    code, _ = _err(lambda: c.jotto_move(SMALL_VARIANT, "guesser", seed=1, timeout=0.2))
    assert code == grpc.StatusCode.DEADLINE_EXCEEDED
    for _ in range(100):  # the handler returns after its sleep (bounded wait)
        metrics.flush()
        if _sample("gamestrategy_errors_total", method="SampleMove", code="DEADLINE_EXCEEDED") > late0:
            break
        time.sleep(0.1)
    assert _sample("gamestrategy_errors_total", method="SampleMove", code="DEADLINE_EXCEEDED") == late0 + 1
    assert _sample("gamestrategy_requests_total", method="SampleMove", code="OK") == ok0
    c.jotto_move(SMALL_VARIANT, "guesser", seed=1, timeout=20)     # in time: OK
    metrics.flush()
    assert _sample("gamestrategy_requests_total", method="SampleMove", code="OK") == ok0 + 1
    c.close()


def test_bearer_token(serve):
    port = serve(tokens=[TOKEN])
    target = f"127.0.0.1:{port}"
    un0 = _sample("gamestrategy_auth_refusals_total", code="UNAUTHENTICATED")
    pd0 = _sample("gamestrategy_auth_refusals_total", code="PERMISSION_DENIED")
    with GameStrategyClient(target, timeout=10, token="") as c:
        code, details = _err(lambda: c.list_variants())
        assert code == grpc.StatusCode.UNAUTHENTICATED and TOKEN not in details
        code, _ = _err(lambda: c.jotto_move(SMALL_VARIANT, "guesser"))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        code, _ = _err(lambda: c.stub.GetStats(pb.GetStatsRequest(), timeout=10, metadata=(("authorization", "Basic x"),)))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        # health checks stay open for probes
        stub = health_pb2_grpc.HealthStub(c.channel)
        assert stub.Check(health_pb2.HealthCheckRequest(), timeout=10).status == health_pb2.HealthCheckResponse.SERVING
    with GameStrategyClient(target, timeout=10, token="wrong") as c:
        code, details = _err(lambda: c.stats())
        assert code == grpc.StatusCode.PERMISSION_DENIED and "wrong" not in details
    with GameStrategyClient(target, timeout=10, token=TOKEN) as c:
        assert c.jotto_move(SMALL_VARIANT, "guesser", seed=1).move
        assert c.list_variants().variants
    assert _sample("gamestrategy_auth_refusals_total", code="UNAUTHENTICATED") == un0 + 3
    assert _sample("gamestrategy_auth_refusals_total", code="PERMISSION_DENIED") == pd0 + 1
    assert _sample("gamestrategy_errors_total", method="GetStats", code="PERMISSION_DENIED") >= 1


def test_token_from_environment_in_client(serve, monkeypatch):
    port = serve(tokens=[TOKEN])
    monkeypatch.setenv("GAMESTRATEGY_TOKEN", TOKEN)
    with GameStrategyClient(f"127.0.0.1:{port}", timeout=10) as c:
        assert c.list_variants().variants


# ---------------------------------------------------------------------------------------- TLS
def test_tls_and_mutual_tls(serve, tmp_path):
    certs = make_certs(tmp_path)
    cert, key = certs["server"]
    port = serve(tls=TLSConfig.from_files(cert, key))
    with GameStrategyClient(f"127.0.0.1:{port}", timeout=10, tls_ca=certs["ca"]) as c:
        assert c.jotto_move(SMALL_VARIANT, "guesser", seed=1).move
    with GameStrategyClient(f"127.0.0.1:{port}", timeout=3) as c:  # plaintext client on a TLS port
        code, _ = _err(lambda: c.list_variants())
        assert code == grpc.StatusCode.UNAVAILABLE

    mport = serve(tls=TLSConfig.from_files(cert, key, certs["ca"]), tokens=[TOKEN])
    target = f"127.0.0.1:{mport}"
    ccert, ckey = certs["client"]
    with GameStrategyClient(target, timeout=10, tls_ca=certs["ca"], tls_cert=ccert, tls_key=ckey, token=TOKEN) as c:
        assert c.jotto_move(SMALL_VARIANT, "guesser", seed=1).move
    with GameStrategyClient(target, timeout=10, tls_ca=certs["ca"], tls_cert=ccert, tls_key=ckey, token="") as c:
        assert _err(lambda: c.list_variants())[0] == grpc.StatusCode.UNAUTHENTICATED
    with GameStrategyClient(target, timeout=3, tls_ca=certs["ca"], token=TOKEN) as c:  # no client certificate
        assert _err(lambda: c.list_variants())[0] == grpc.StatusCode.UNAVAILABLE
    rcert, rkey = certs["rogue"]
    with GameStrategyClient(target, timeout=3, tls_ca=certs["ca"], tls_cert=rcert, tls_key=rkey, token=TOKEN) as c:
        assert _err(lambda: c.list_variants())[0] == grpc.StatusCode.UNAVAILABLE


def test_cli_tls_and_token_options(serve, tmp_path, capsys):
    from clients.cli import main

    certs = make_certs(tmp_path)
    cert, key = certs["server"]
    port = serve(tls=TLSConfig.from_files(cert, key), tokens=[TOKEN])
    tf = tmp_path / "token"
    tf.write_text(TOKEN + "\n")
    base = ["--target", f"127.0.0.1:{port}", "--tls-ca", str(certs["ca"])]
    assert main(base + ["--token-file", str(tf), "variants"]) == 0
    assert SMALL_VARIANT in capsys.readouterr().out
    assert main(base + ["variants"]) == 1
    err = capsys.readouterr().err
    assert "UNAUTHENTICATED" in err and TOKEN not in err
