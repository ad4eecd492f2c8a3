"""SampleMoveStream over a real channel: order, per-message errors, lockstep play, auth, limits, metrics."""
import time

import grpc
import pytest
from prometheus_client import REGISTRY

from clients.client import GameStrategyClient, jotto_request
from tests.conftest import SMALL_VARIANT
from protos import gamestrategy_pb2 as pb

TOKEN = "stream-test-token-42"
METHOD = "/gamestrategy.v1.GameStrategy/SampleMoveStream"


@pytest.fixture()
def serve(serve):
    """``serve(**settings) -> "127.0.0.1:port"`` (conftest's servers, addressed by target)."""
    return lambda **kw: f"127.0.0.1:{serve(**kw)}"


def _metric(name, **labels):
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_stream_answers_in_order_like_sample_move_and_survives_bad_messages(serve):
    target = serve()
    with GameStrategyClient(target, timeout=20) as c:
        good = [jotto_request(SMALL_VARIANT, "guesser", seed=s) for s in range(5)] + [
            jotto_request(SMALL_VARIANT, "hider", seed=7, distribution=True)]
        singles = [c.jotto_move(SMALL_VARIANT, "guesser", seed=s) for s in range(5)] + [
            c.jotto_move(SMALL_VARIANT, "hider", seed=7, distribution=True)]
        bad = {
            1: pb.SampleMoveRequest(variant="nope", jotto=pb.JottoState(role=2)),  # unknown variant
            3: pb.SampleMoveRequest(variant=SMALL_VARIANT),  # no game state
            4: jotto_request(SMALL_VARIANT, "guesser", [("zzzz", 1)]),  # not a word
            6: pb.SampleMoveRequest(variant=SMALL_VARIANT, strategy="x" * 70_000, jotto=pb.JottoState(role=2)),
        }
        reqs, expect = [], []
        for r, m in zip(good, singles):
            while len(reqs) in bad:
                reqs.append(bad[len(reqs)])
                expect.append(None)
            reqs.append(r)
            expect.append(m)
        ok0 = _metric("gamestrategy_requests_total", method="SampleMoveStream", code="OK")
        bad0 = _metric("gamestrategy_stream_messages_total", method="SampleMoveStream", code="INVALID_ARGUMENT")
        out = list(c.sample_move_stream(iter(reqs), timeout=30))
    assert len(out) == len(reqs)
    for i, (got, want) in enumerate(zip(out, expect)):
        if want is None:
            code, message = got
            want_code = grpc.StatusCode.NOT_FOUND if i == 1 else grpc.StatusCode.INVALID_ARGUMENT
            assert code == want_code and message.startswith(f"message {i}: "), (i, got)
        else:
            assert got == want, i
    assert "unknown variant" in out[1][1] and "set `jotto`" in out[3][1] and "at most 65536" in out[6][1]
    assert _metric("gamestrategy_requests_total", method="SampleMoveStream", code="OK") == ok0 + 1
    assert _metric("gamestrategy_stream_messages_total", method="SampleMoveStream",
                   code="INVALID_ARGUMENT") == bad0 + len(bad) - 1


def test_stream_reports_undecodable_bytes_by_index_and_goes_on(serve):
    target = serve()
    body = jotto_request(SMALL_VARIANT, "guesser", seed=3).SerializeToString()
    msgs = [body, b"\xff\xff\xff\xff", body, b"\x0a\x05ab", b"", body]
    with grpc.insecure_channel(target) as ch:
        call = ch.stream_stream(METHOD, request_serializer=None, response_deserializer=pb.SampleMoveResult.FromString)
        out = list(call(iter(msgs), timeout=30))
    assert [r.index for r in out] == list(range(len(msgs)))
    assert [r.code for r in out] == [0, 3, 0, 3, 3, 0]
    assert "message 1: the 4-byte body is not a valid SampleMoveRequest" in out[1].message
    assert "message 4: request names no variant" in out[4].message  # the empty message is a valid, empty request
    assert out[0].reply == out[2].reply == out[5].reply and out[0].reply.move
    assert not out[1].HasField("reply")


def test_lockstep_self_play_on_one_stream(serve, registry):
    """Each request depends on the previous answer: a guesser plays against a hider's secret."""
    target = serve()
    oracle = registry.backends[SMALL_VARIANT].oracle
    words = registry.backends[SMALL_VARIANT].dictionary.words
    with GameStrategyClient(target, timeout=20) as c, c.open_move_stream(timeout=60) as s:
        secret = s.ask(jotto_request(SMALL_VARIANT, "hider", seed=11)).move
        history = []
        for _ in range(30):
            m = s.ask(jotto_request(SMALL_VARIANT, "guesser", history, seed=11))
            assert m == c.jotto_move(SMALL_VARIANT, "guesser", history, seed=11)
            if m.move == secret:
                break
            history.append((m.move, int(oracle.C[words.index(m.move), words.index(secret)])))
        else:
            pytest.fail("the guesser never found the secret")
        code, message = s.ask(jotto_request("nope", "guesser"))  # an error mid-game keeps the stream
        assert code == grpc.StatusCode.NOT_FOUND and f"message {len(history) + 2}: " in message
        assert s.ask(jotto_request(SMALL_VARIANT, "guesser", history, seed=11)).move == secret


def test_stream_auth_limit_and_deadline(serve):
    target = serve(tokens=[TOKEN], max_streams=1)
    req = jotto_request(SMALL_VARIANT, "guesser", seed=1)
    ended0 = {code: _metric("gamestrategy_requests_total", method="SampleMoveStream", code=code)
              for code in ("DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED")}  # a client's cancel may count as OK
    for token, code in (("", grpc.StatusCode.UNAUTHENTICATED), ("wrong", grpc.StatusCode.PERMISSION_DENIED)):
        with GameStrategyClient(target, timeout=20, token=token) as c:
            with pytest.raises(grpc.RpcError) as e:
                list(c.sample_move_stream([req], timeout=20))
            assert e.value.code() == code and TOKEN not in e.value.details()
    with GameStrategyClient(target, timeout=20, token=TOKEN) as c:
        with c.open_move_stream(timeout=60) as first:
            assert first.ask(req).move
            with pytest.raises(grpc.RpcError) as e:  # the worker's one stream is taken
                list(c.sample_move_stream([req], timeout=20))
            assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "maximum of 1 open" in e.value.details()
            assert c.jotto_move(SMALL_VARIANT, "guesser", seed=1).move  # unary calls still run
        assert [m.move for m in c.sample_move_stream([req], timeout=20)] == [c.jotto_move(SMALL_VARIANT, "guesser",
                                                                                           seed=1).move]
        s = c.open_move_stream(timeout=0.5)
        assert s.ask(req).move
        time.sleep(1.0)
        with pytest.raises(grpc.RpcError) as e:
            s.ask(req)
        assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        s.cancel()
        # the expired stream gave its slot back, and so does a stream the client cancels
        s = c.open_move_stream(timeout=60)
        for _ in range(100):
            try:
                assert s.ask(req).move
                break
            except grpc.RpcError as err:  # the server may not have seen the end of the expired stream yet
                assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                time.sleep(0.1)
                s = c.open_move_stream(timeout=60)
        else:
            pytest.fail("the expired stream kept its slot")
        s.cancel()
        for _ in range(100):
            try:
                assert len(list(c.sample_move_stream([req], timeout=20))) == 1
                break
            except grpc.RpcError as err:
                assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                time.sleep(0.1)
        else:
            pytest.fail("the cancelled stream kept its slot")

    def counted():  # streams that ended with a status are counted by it
        return all(_metric("gamestrategy_requests_total", method="SampleMoveStream", code=code) > ended0[code]
                   for code in ended0)

    for _ in range(100):
        if counted():
            break
        time.sleep(0.1)
    assert counted(), ended0


def test_oversized_message_ends_the_stream_with_resource_exhausted(serve):
    target = serve()
    with grpc.insecure_channel(target) as ch:
        call = ch.stream_stream(METHOD, request_serializer=None, response_deserializer=pb.SampleMoveResult.FromString)
        body = jotto_request(SMALL_VARIANT, "guesser", seed=3).SerializeToString()
        got = []
        with pytest.raises(grpc.RpcError) as e:
            for r in call(iter([body, b"\x0a" + b"\xff\xff\xff\x02" + b"x" * (5 << 20), body]), timeout=30):
                got.append(r)
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert len(got) <= 1 and all(r.code == 0 for r in got)
