"""Hostile input over a real channel: malformed, extreme and random requests at every RPC.

Every call must end in a well-formed status (OK or a code the service means to give, with a message),
the server must stay up, its memory bounded, and the store files unchanged. The counts by status code are
printed at the end of the module.
"""
import collections
import hashlib
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.conftest import SMALL_VARIANT
from games.jotto.dictionary import load_dictionary
from protos import gamestrategy_pb2 as pb
from server.app import build_server
from server.registry import Registry
from server.settings import ServerSettings

WORDS = list(load_dictionary(SMALL_VARIANT).words)
EXPECTED = {grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
            grpc.StatusCode.RESOURCE_EXHAUSTED}  # only past the transport's 4 MiB message limit
COUNTS: collections.Counter = collections.Counter()  # calls by final status
BY_RPC: collections.Counter = collections.Counter()  # (rpc, final status) -> calls
ITEMS: collections.Counter = collections.Counter()  # SampleMoves items and SampleMoveStream messages by their own code
CODE_NAMES = {c.value[0]: c.name for c in grpc.StatusCode}
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
U64 = st.integers(0, 2**64 - 1)
U32 = st.integers(0, 2**32 - 1)
TEXT = st.one_of(st.text(max_size=40), st.sampled_from(WORDS + [SMALL_VARIANT, "", " ", "\x00", "double_oracle"]),
                 st.text(min_size=1000, max_size=3000))


def _rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _hash_tree(root: Path) -> dict:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def target(small_store):
    root, _ = small_store
    before = _hash_tree(root)
    registry = Registry(root)
    registry.refresh()
    server, port = build_server(registry, "127.0.0.1:0", settings=ServerSettings(threads=4))
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    rss0 = _rss_kib()
    yield channel
    health = health_pb2_grpc.HealthStub(channel)
    assert health.Check(health_pb2.HealthCheckRequest(), timeout=10).status == health_pb2.HealthCheckResponse.SERVING
    growth_mib = (_rss_kib() - rss0) / 1024
    channel.close()
    server.stop(0).wait()
    assert _hash_tree(root) == before, "a store file changed"
    total = sum(COUNTS.values())
    summary = ", ".join(f"{k}={v}" for k, v in sorted(COUNTS.items()))
    items = ", ".join(f"{k}={v}" for k, v in sorted(ITEMS.items()))
    sys.__stdout__.write(f"\nhostile requests: {total} calls ({summary}); inside them {sum(ITEMS.values())} batch "
                         f"items and stream messages ({items}); server RSS growth {growth_mib:.1f} MiB\n")
    rpcs = sorted({r for r, _ in BY_RPC})
    for r in rpcs:
        codes = ", ".join(f"{c}={n}" for (x, c), n in sorted(BY_RPC.items()) if x == r)
        sys.__stdout__.write(f"  {r}: {codes}\n")
    assert growth_mib < 300


def call(fn, request, check=None, rpc="?"):
    try:
        reply = fn(request, timeout=20)
    except grpc.RpcError as e:
        code = e.code()
        COUNTS[code.name] += 1
        BY_RPC[rpc, code.name] += 1
        if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
            assert "larger than max" in e.details(), e.details()  # only the transport's message-size limit
        assert code in EXPECTED, (code, e.details(), request)
        assert e.details(), code
        assert "Traceback" not in e.details()
        return None
    COUNTS["OK"] += 1
    BY_RPC[rpc, "OK"] += 1
    if check:
        check(reply)
    return reply


def turns():
    return st.lists(st.builds(pb.JottoTurn, guess=TEXT, jots=st.one_of(st.integers(0, 3), U32)), max_size=70)


def jotto_states():
    return st.builds(pb.JottoState, role=st.one_of(st.integers(0, 3), st.integers(-2**31, 2**31 - 1)), history=turns())


def plausible_requests():
    """Well-formed requests (real words, jots in range; the histories may still contradict themselves)."""
    length = len(WORDS[0])
    history = st.lists(st.builds(pb.JottoTurn, guess=st.sampled_from(WORDS), jots=st.integers(0, length)), max_size=3)
    return st.builds(pb.SampleMoveRequest, variant=st.just(SMALL_VARIANT),
                     strategy=st.sampled_from(["", "", "fp", "benchmark", "double_oracle"]), game_seed=U64,
                     want_distribution=st.booleans(),
                     jotto=st.builds(pb.JottoState, role=st.sampled_from([1, 2, 2]), history=history))


def move_requests():
    return st.one_of(plausible_requests(), st.builds(
        pb.SampleMoveRequest, variant=st.one_of(st.just(SMALL_VARIANT), TEXT),
        strategy=st.one_of(st.sampled_from(["", "fp", "benchmark", "beeler", "double_oracle", "people"]), TEXT),
        game_seed=U64, want_distribution=st.booleans(), jotto=st.one_of(st.none(), jotto_states())))


def _check_move(r):
    assert r.move in WORDS and 0 < r.probability <= 1 + 1e-9 and r.store_version


@SETTINGS
@given(req=move_requests())
def test_sample_move(target, req):
    stub = target.unary_unary("/gamestrategy.v1.GameStrategy/SampleMove",
                              request_serializer=pb.SampleMoveRequest.SerializeToString,
                              response_deserializer=pb.SampleMoveReply.FromString)
    call(stub, req, _check_move, "SampleMove")


@SETTINGS
@given(reqs=st.lists(move_requests(), max_size=20))
def test_sample_moves(target, reqs):
    stub = target.unary_unary("/gamestrategy.v1.GameStrategy/SampleMoves",
                              request_serializer=pb.SampleMovesRequest.SerializeToString,
                              response_deserializer=pb.SampleMovesReply.FromString)

    def check(r):
        assert len(r.results) == len(reqs)
        for x in r.results:
            ITEMS[CODE_NAMES.get(x.code, str(x.code))] += 1
            if x.code == 0:
                _check_move(x.reply)
            else:
                assert x.message and x.code in {c.value[0] for c in EXPECTED}

    call(stub, pb.SampleMovesRequest(requests=reqs), check, "SampleMoves")


def _raw_bodies():
    return st.one_of(st.binary(max_size=200),
                     st.builds(lambda b, n: b * n, st.binary(min_size=1, max_size=8), st.integers(1, 20_000)))


@SETTINGS
@given(items=st.lists(st.one_of(move_requests().map(lambda r: r.SerializeToString()), _raw_bodies()), max_size=20))
def test_sample_move_stream(target, items):
    """A stream of requests and arbitrary bytes: one result per message, in order, each with its status;
    the stream itself ends OK."""
    stub = target.stream_stream("/gamestrategy.v1.GameStrategy/SampleMoveStream", request_serializer=None,
                                response_deserializer=pb.SampleMoveResult.FromString)

    def call_stream(msgs, timeout):
        return list(stub(iter(msgs), timeout=timeout))

    def check(results):
        assert [x.index for x in results] == list(range(len(items)))
        for i, x in enumerate(results):
            ITEMS[CODE_NAMES.get(x.code, str(x.code))] += 1
            if x.code == 0:
                _check_move(x.reply)
            else:
                assert x.code in (grpc.StatusCode.INVALID_ARGUMENT.value[0], grpc.StatusCode.NOT_FOUND.value[0]), x
                assert x.message.startswith(f"message {i}: ") and "Traceback" not in x.message
                assert not x.HasField("reply")

    call(call_stream, items, check, "SampleMoveStream")


@SETTINGS
@given(variant=st.one_of(st.just(SMALL_VARIANT), TEXT))
def test_get_words(target, variant):
    stub = target.unary_unary("/gamestrategy.v1.GameStrategy/GetWords",
                              request_serializer=pb.GetWordsRequest.SerializeToString,
                              response_deserializer=pb.GetWordsReply.FromString)

    def check(r):
        assert list(r.words) == WORDS and len(r.common) == len(WORDS) and r.store_version

    call(stub, pb.GetWordsRequest(variant=variant), check, "GetWords")


@SETTINGS
@given(variant=st.one_of(st.just(SMALL_VARIANT), TEXT), game=st.one_of(st.just("jotto"), TEXT))
def test_stats_and_list(target, variant, game):
    stats = target.unary_unary("/gamestrategy.v1.GameStrategy/GetStats",
                               request_serializer=pb.GetStatsRequest.SerializeToString,
                               response_deserializer=pb.GetStatsReply.FromString)
    lst = target.unary_unary("/gamestrategy.v1.GameStrategy/ListVariants",
                             request_serializer=pb.ListVariantsRequest.SerializeToString,
                             response_deserializer=pb.ListVariantsReply.FromString)
    call(stats, pb.GetStatsRequest(variant=variant), rpc="GetStats")
    call(lst, pb.ListVariantsRequest(game=game), rpc="ListVariants")


@SETTINGS
@given(method=st.sampled_from(["SampleMove", "SampleMoves", "GetStats", "ListVariants", "GetWords"]),
       raw=_raw_bodies())
def test_raw_bytes(target, method, raw):
    """Arbitrary bytes as the request body: not always a valid protobuf message."""
    stub = target.unary_unary(f"/gamestrategy.v1.GameStrategy/{method}", request_serializer=None,
                              response_deserializer=None)
    call(stub, raw, rpc=f"{method} (raw bytes)")


def test_unknown_method_and_oversized_message(target):
    stub = target.unary_unary("/gamestrategy.v1.GameStrategy/Nope", request_serializer=None, response_deserializer=None)
    with pytest.raises(grpc.RpcError) as e:
        stub(b"", timeout=10)
    assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED
    COUNTS["UNIMPLEMENTED"] += 1
    BY_RPC["Nope (unknown method)", "UNIMPLEMENTED"] += 1
    big = target.unary_unary("/gamestrategy.v1.GameStrategy/SampleMove", request_serializer=None,
                             response_deserializer=None)
    call(big, b"\x0a" + b"\xff\xff\xff\x02" + b"x" * (5 << 20), rpc="SampleMove (5 MiB)")
    stream = target.stream_stream("/gamestrategy.v1.GameStrategy/SampleMoveStream", request_serializer=None,
                                  response_deserializer=None)
    call(lambda msgs, timeout: list(stream(iter(msgs), timeout=timeout)),
         [b"", b"\x0a" + b"\xff\xff\xff\x02" + b"x" * (5 << 20), b""], rpc="SampleMoveStream (5 MiB)")
