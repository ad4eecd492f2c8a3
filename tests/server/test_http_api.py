"""The HTTP/JSON API against a real server on loopback: every RPC answers what gRPC answers for the same
request, and the gRPC hostile-input cases (reused from test_serving_hostile) end in a well-formed JSON error
with the HTTP status of their gRPC code; plus the faults only HTTP has (bodies that are no JSON, bad
grpc-timeout, wrong verb) and the shared token check."""
import http.client
import json

import grpc
import pytest
from google.protobuf import json_format
from hypothesis import given, settings, strategies as st

from tests.server import test_serving_hostile as hostile
from tests.conftest import SMALL_VARIANT
from protos import gamestrategy_pb2 as pb
from protos import gamestrategy_pb2_grpc as pb_grpc
from server.service import REVIEW_DEFAULT_SECONDS
from server.http_api import HTTP_STATUS, HttpApi, UNARY
from server.listener import HttpServer

CODES = {c.value[0]: c for c in grpc.StatusCode}
SETTINGS = settings(hostile.SETTINGS, max_examples=50)  # the gRPC module's cases, fewer of them (both transports are called)


@pytest.fixture(scope="module")
def servers(registry):
    """One gRPC server and the HTTP API over its servicer (as a server process runs them)."""
    from server.app import build_server
    from server.settings import ServerSettings

    grpc_server, port = build_server(registry, "127.0.0.1:0", settings=ServerSettings(threads=4))
    grpc_server.start()
    api = HttpApi(grpc_server.servicer, threads=4)
    http = HttpServer(api.app, "127.0.0.1", 0).start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    yield pb_grpc.GameStrategyStub(channel), http.port
    channel.close()
    http.stop(0)
    api.close()
    grpc_server.stop(0).wait()


class Http:
    def __init__(self, port, headers=None, timeout: float = 30.0):
        self.port, self.headers = port, headers or {}
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)

    def post(self, method, body=b"", headers=None, verb="POST"):
        if not isinstance(body, (bytes, str)):
            body = json_format.MessageToJson(body)
        if isinstance(body, str):
            body = body.encode()
        for attempt in (0, 1):
            try:
                self.conn.request(verb, f"/v1/{method}", body=body, headers={**self.headers, **(headers or {})})
                r = self.conn.getresponse()
                data = r.read()
                break
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                # The server closes a kept-alive connection idle past its keep-alive timeout (uvicorn: 5 s,
                # reached when the machine is busy); as HTTP clients do, send again once on a new one.
                self.conn.close()
                if attempt:
                    raise
            except Exception:
                self.conn.close()  # a fresh connection for the next call
                raise
        assert r.getheader("content-type", "").startswith("application/json"), (r.status, data[:200])
        return r.status, json.loads(data)


@pytest.fixture(scope="module")
def client(servers):
    return Http(servers[1])


def _grpc(stub, method, request):
    # a review runs in the live pool, whose first call starts a worker process (on a clean clone it compiles its
    # kernels): it may take what the server gives a review
    timeout = REVIEW_DEFAULT_SECONDS if method == "AnalyzeGame" else 20
    try:
        return 0, getattr(stub, method)(request, timeout=timeout)
    except grpc.RpcError as e:
        return e.code().value[0], e.details()


def check_call(client, stub, method, request):
    """POST the JSON of `request`; the answer must be gRPC's for the same message (reply or status)."""
    status, body = client.post(method, request)
    code, want = _grpc(stub, method, request)
    if code == 0:
        assert status == 200, body
        got = json_format.ParseDict(body, UNARY[method][1]())
        assert got == want
        hostile.COUNTS["OK"] += 1
        return got
    assert status == HTTP_STATUS[CODES[code]] and body["code"] == code and body["message"] == want, (body, want)
    assert body["status"] == CODES[code].name and "Traceback" not in body["message"]
    hostile.COUNTS[CODES[code].name] += 1
    return None


def test_every_rpc_answers_as_grpc(client, servers):
    stub, _ = servers
    lv = check_call(client, stub, "ListVariants", pb.ListVariantsRequest())
    assert [v.variant for v in lv.variants] == [SMALL_VARIANT]
    words = check_call(client, stub, "GetWords", pb.GetWordsRequest(variant=SMALL_VARIANT))
    assert list(words.words) == hostile.WORDS
    stats = check_call(client, stub, "GetStats", pb.GetStatsRequest())
    assert stats.variants[0].variant == SMALL_VARIANT
    move = pb.SampleMoveRequest(variant=SMALL_VARIANT, game_seed=7, want_distribution=True,
                                jotto=pb.JottoState(role=pb.JottoState.GUESSER))
    r = check_call(client, stub, "SampleMove", move)
    assert r.move in hostile.WORDS and r.distribution
    batch = check_call(client, stub, "SampleMoves", pb.SampleMovesRequest(requests=[move, pb.SampleMoveRequest()]))
    assert batch.results[0].reply == r and batch.results[1].code == 3
    # the JSON is the protobuf mapping: camelCase names, enum names, 64-bit integers as strings
    status, body = client.post("SampleMove", json.dumps({"variant": SMALL_VARIANT, "game_seed": "7",
                                                          "jotto": {"role": "GUESSER"}}))
    assert status == 200 and body["source"] in ("BOOK", "LIVE") and body["storeVersion"] == r.store_version


def test_cached_replies_are_decoded(client):
    """A repeated book hit comes back from the backend already encoded: still the same JSON."""
    req = json.dumps({"variant": SMALL_VARIANT, "gameSeed": "3", "jotto": {"role": "GUESSER"}})
    assert client.post("SampleMove", req) == client.post("SampleMove", req)


@SETTINGS
@given(req=hostile.move_requests())
def test_hostile_sample_move(client, servers, req):
    check_call(client, servers[0], "SampleMove", req)


@SETTINGS
@given(reqs=st.lists(hostile.move_requests(), max_size=20))
def test_hostile_sample_moves(client, servers, reqs):
    check_call(client, servers[0], "SampleMoves", pb.SampleMovesRequest(requests=reqs))


@SETTINGS
@given(variant=st.one_of(st.just(SMALL_VARIANT), hostile.TEXT), game=st.one_of(st.just("jotto"), hostile.TEXT))
def test_hostile_words_stats_and_list(client, servers, variant, game):
    check_call(client, servers[0], "GetWords", pb.GetWordsRequest(variant=variant))
    check_call(client, servers[0], "GetStats", pb.GetStatsRequest(variant=variant))
    check_call(client, servers[0], "ListVariants", pb.ListVariantsRequest(game=game))


@SETTINGS
@given(method=st.sampled_from(sorted(UNARY)), raw=st.one_of(hostile._raw_bodies(), st.text(max_size=200)))
def test_bodies_that_are_no_json_of_the_message(client, method, raw):
    """Arbitrary bytes and text: OK when they happen to be JSON of the message, else INVALID_ARGUMENT
    naming the method and what is wrong."""
    status, body = client.post(method, raw)
    if status != 200:
        assert status == 400 and body["code"] == 3, body
        assert body["message"].startswith(f"the {len(raw if isinstance(raw, bytes) else raw.encode())}-byte request body "
                                          f"is not a valid {method} request") or "request names no variant" in body["message"], body
        hostile.COUNTS["INVALID_ARGUMENT"] += 1


@pytest.mark.parametrize("body, fault", [
    ('{"variant": 5}', "variant"),
    ('{"nope": 1}', "nope"),
    ('{"variant": "x", "jotto": {"role": "SPY"}}', "SPY"),
    ('{"gameSeed": "-1"}', "gameSeed"),
    ('[' * 100_000 + ']' * 100_000, "request body"),
    (b'\xff\xfe{}', "request body"),
])
def test_json_faults_name_the_field(client, body, fault):
    status, out = client.post("SampleMove", body)
    assert status == 400 and out["code"] == 3 and fault in out["message"], out


@pytest.mark.parametrize("role, status", [("2.5", 400), ("true", 400), ('"2"', 400), ("1e-300", 400),
                                          ('"GUESSER"', 200), ("2", 200), ("2.0", 200)])
def test_an_enum_is_a_name_or_an_integer(client, role, status):
    """json_format alone reads any value int() takes as an enum number (true as 1, 2.5 as 2)."""
    got, out = client.post("SampleMove", f'{{"variant": "{SMALL_VARIANT}", "jotto": {{"role": {role}}}}}')
    assert got == status, out
    if status == 400:
        assert out["code"] == 3 and "jotto.role is" in out["message"] and "GUESSER" in out["message"], out


def test_transport_faults(client):
    status, out = client.post("SampleMove", b'{"variant": "' + b"x" * (5 << 20) + b'"}')
    assert status == 413 and out["status"] == "RESOURCE_EXHAUSTED" and "larger than max" in out["message"]
    status, out = client.post("Nope", "{}")
    assert status == 501 and out["status"] == "UNIMPLEMENTED" and "SampleMove" in out["message"]
    status, out = client.post("N" * 10_000, "{}")  # a name a caller sends is echoed clipped
    assert status == 501 and "(10000 characters)" in out["message"] and len(out["message"]) < 400
    status, out = client.post("SampleMove/" + "p" * 10_000, "{}")  # no such path: echoed clipped too
    assert status == 404 and "(10015 characters)" in out["message"] and len(out["message"]) < 400
    status, out = client.post("SampleMoveStream", "{}")
    assert status == 501 and "streaming" in out["message"]
    status, out = client.post("SampleMove", "{}", headers={"grpc-timeout": "soon"})
    assert status == 400 and "grpc-timeout" in out["message"]
    client.conn.request("GET", "/v1/SampleMove")
    r = client.conn.getresponse()
    r.read()
    assert r.status == 405


def test_oversized_request_and_batch_limits_are_the_services(client):
    status, out = client.post("SampleMove", json.dumps({"variant": SMALL_VARIANT, "strategy": "x" * 70_000}))
    assert status == 400 and "at most 65536" in out["message"]


def test_token_auth(registry):
    from server.app import build_server
    from server.settings import ServerSettings

    grpc_server, _ = build_server(registry, "127.0.0.1:0", settings=ServerSettings(threads=2, tokens=["s3cret"]))
    api = HttpApi(grpc_server.servicer, tokens=["s3cret"], threads=2)
    http = HttpServer(api.app, "127.0.0.1", 0).start()
    try:
        c = Http(http.port)
        assert c.post("ListVariants")[0] == 401
        status, out = c.post("ListVariants", headers={"Authorization": "Basic abc"})
        assert status == 401 and out["status"] == "UNAUTHENTICATED"
        status, out = c.post("ListVariants", headers={"Authorization": "Bearer nope"})
        assert status == 403 and out["status"] == "PERMISSION_DENIED" and "nope" not in out["message"]
        status, out = c.post("ListVariants", headers={"Authorization": "Bearer s3cret"})
        assert status == 200 and out["variants"][0]["variant"] == SMALL_VARIANT
    finally:
        http.stop(0)
        api.close()
        grpc_server.stop(0).wait()


def test_readme_curl_commands_are_valid_requests(client, servers):
    """Every `curl` of the web section (docs/playing.md) is a well-formed call whose answer is gRPC's for the same
    message (on the test store their variants may be unknown: then both give the same NOT_FOUND)."""
    import re
    import shlex
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "playing.md").read_text()
    section = page.split("## On the web", 1)[1].split("\n## ", 1)[0]
    calls = [shlex.split(line) for line in section.splitlines() if line.startswith("curl ")]
    assert len(calls) >= 5
    seen = set()
    for argv in calls:
        url = next(a for a in argv if "/v1/" in a)
        method = re.search(r"/v1/(\w+)$", url).group(1)
        body = argv[argv.index("-d") + 1] if "-d" in argv else "{}"
        seen.add(method)
        caller = Http(servers[1], timeout=REVIEW_DEFAULT_SECONDS) if method == "AnalyzeGame" else client
        check_call(caller, servers[0], method, json_format.Parse(body, UNARY[method][0]()))
    assert seen == set(UNARY)


def test_readyz_says_no_estimate_as_list_variants_does(servers, client, registry, monkeypatch):
    """/readyz's building entries and ListVariants' BuildingVariant agree: -1 where there is no estimate."""
    monkeypatch.setattr(registry, "building", lambda: [dict(variant="dudo-5dice-default", game="dudo", state="building",
                                                            fraction=None, eta_seconds=None)])
    fresh = Http(servers[1])     # the module's client may sit past the server's keep-alive after a long call
    fresh.conn.request("GET", "/readyz")
    body = json.loads(fresh.conn.getresponse().read())
    assert body["building"] == [dict(variant="dudo-5dice-default", game="dudo", state="building", fraction=-1.0,
                                     eta_seconds=-1.0)]
    status, listed = client.post("ListVariants", pb.ListVariantsRequest())
    assert status == 200 and listed["building"][0]["fraction"] == -1.0 and listed["building"][0]["etaSeconds"] == -1.0
