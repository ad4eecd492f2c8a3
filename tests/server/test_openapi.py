"""The OpenAPI document of the HTTP API (server.openapi): valid OpenAPI 3.1, generated from the proto and
committed without drift, served at /openapi.json without a token, and obeyed by a live server: real
replies of every method conform to it, and schemathesis's generated valid and invalid bodies for every
operation get no 5xx and only documented, conforming answers."""
import contextlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from protos import gamestrategy_pb2 as pb
from server import openapi
from server.http_api import HTTP_STATUS, UNARY, HttpApi
from server.listener import HttpServer
from server.service import REVIEW_DEFAULT_SECONDS
from tests.conftest import SMALL_VARIANT
from tests.server.test_http_api import Http

COMMITTED = json.loads(openapi.COMMITTED.read_text())
BIN = Path(sys.executable).parent


@contextlib.contextmanager
def _api(registry, tokens=()):
    """The HTTP API over a gRPC server's servicer on the small store (as a server process runs them)."""
    from server.app import build_server
    from server.settings import ServerSettings

    grpc_server, _ = build_server(registry, "127.0.0.1:0", settings=ServerSettings(threads=4, tokens=list(tokens)))
    grpc_server.start()
    api = HttpApi(grpc_server.servicer, tokens=list(tokens), threads=4)
    http = HttpServer(api.app, "127.0.0.1", 0).start()
    try:
        yield http.port
    finally:
        http.stop(0)
        api.close()
        grpc_server.stop(0).wait()


@pytest.fixture(scope="module")
def api_port(registry):
    with _api(registry) as port:
        yield port


def test_the_document_is_valid_openapi_3_1():
    validate(COMMITTED)
    assert COMMITTED["openapi"].startswith("3.1")


def test_the_committed_document_is_the_protos():
    assert openapi.render(openapi.document()) == openapi.COMMITTED.read_text(), "run make openapi"


def test_every_unary_rpc_is_a_post_with_its_messages_and_the_error_shape():
    paths = COMMITTED["paths"]
    assert {p for p in paths if p.startswith("/v1/")} == {f"/v1/{m}" for m in UNARY}
    statuses = {str(s) for c, s in HTTP_STATUS.items() if s != 200} | {"413"}
    for method, (req, reply) in UNARY.items():
        op = paths[f"/v1/{method}"]["post"]
        assert op["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(f"/{req.__name__}")
        assert op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(f"/{reply.__name__}")
        assert set(op["responses"]) == {"200"} | statuses
        assert all(r["content"]["application/json"]["schema"]["$ref"].endswith("/Error")
                   for s, r in op["responses"].items() if s != "200")
    assert COMMITTED["components"]["securitySchemes"]["bearerAuth"] == {
        **COMMITTED["components"]["securitySchemes"]["bearerAuth"], "type": "http", "scheme": "bearer"}
    for probe in ("/healthz", "/readyz", "/openapi.json"):
        assert paths[probe]["get"]["security"] == []


def test_fields_follow_the_protobuf_json_mapping():
    """lowerCamelCase names, 64-bit integers as strings, enums by name, oneofs as at most one field."""
    schemas = COMMITTED["components"]["schemas"]
    request = schemas["SampleMoveRequest"]
    assert {"gameSeed", "wantDistribution", "jotto", "dudo"} <= set(request["properties"])
    assert request["additionalProperties"] is False
    seed = request["properties"]["gameSeed"]["anyOf"][0]
    assert {"type": "string", "pattern": "^[0-9]+$"} in seed["oneOf"]
    assert schemas["SampleMoveReply.Source"]["oneOf"][0]["enum"] == list(pb.SampleMoveReply.Source.keys())
    assert set(schemas["SampleMoveReply"]["required"]) >= {"move", "source", "storeVersion", "consistentWords"}
    check = Draft202012Validator({**COMMITTED, "$ref": "#/components/schemas/SampleMoveRequest"})
    assert check.is_valid({"variant": "v", "jotto": {"role": "GUESSER"}, "dudo": None})
    assert not check.is_valid({"variant": "v", "jotto": {}, "dudo": {}})
    assert not check.is_valid({"nope": 1})


def test_served_without_a_token(registry):
    with _api(registry, tokens=["s3cret"]) as port:
        c = Http(port)
        c.conn.request("GET", "/openapi.json")
        r = c.conn.getresponse()
        assert r.status == 200 and r.getheader("content-type").startswith("application/json")
        assert json.loads(r.read()) == COMMITTED
        assert c.post("ListVariants")[0] == 401


def _conforms(status: int, body, method: str):
    op = COMMITTED["paths"][f"/v1/{method}"]["post"]
    ref = op["responses"][str(status)]["content"]["application/json"]["schema"]["$ref"]
    errors = sorted(Draft202012Validator({**COMMITTED, "$ref": ref}).iter_errors(body), key=str)
    assert not errors, (method, status, [e.message for e in errors[:3]])


def test_real_replies_of_every_method_conform(api_port):
    """The happy paths, which schemathesis's generated bodies rarely reach (they name no served variant)."""
    c = Http(api_port)
    word = c.post("GetWords", json.dumps({"variant": SMALL_VARIANT}))[1]["words"][0]
    jotto = {"variant": SMALL_VARIANT, "gameSeed": "7", "wantDistribution": True, "jotto": {"role": "GUESSER"}}
    calls = {
        "ListVariants": {}, "GetStats": {}, "GetWords": {"variant": SMALL_VARIANT}, "SampleMove": jotto,
        "SampleMoves": {"requests": [jotto, {"variant": "nope"}]},
        "AnalyzeGame": {"variant": SMALL_VARIANT, "jotto": {"role": "GUESSER", "secret": word,
                                                                      "turns": [{"guess": word, "jots": len(word)}]}},
    }
    assert set(calls) == set(UNARY)
    review = Http(api_port)
    # a review runs in the live pool, whose first call starts a worker process: the server gives a review
    # without a deadline REVIEW_DEFAULT_SECONDS, and the client waits as long
    review.conn.timeout = REVIEW_DEFAULT_SECONDS + 10
    for method, body in calls.items():
        status, out = (review if method == "AnalyzeGame" else c).post(method, json.dumps(body))
        _conforms(status, out, method)
        assert status == 200, (method, out)
    status, out = c.post("SampleMove", json.dumps({"variant": "nope"}))
    assert status == 404 and "nope" in out["message"]
    _conforms(status, out, "SampleMove")


def _schemathesis(port: int, cwd: Path, examples: int, *extra: str) -> tuple[int, int, str]:
    """Run schemathesis against the server at ``port``; (operations tested, cases, summary), asserting no failure."""
    r = subprocess.run(
        [str(BIN / "schemathesis"), "run", f"http://127.0.0.1:{port}/openapi.json", "--seed", "1",
         "--max-examples", str(examples), "--checks", "all", "--exclude-checks", "positive_data_acceptance",
         "--request-timeout", "20", "--workers", "1", "--no-color", *extra],
        cwd=cwd, capture_output=True, text=True, timeout=300)
    summary = r.stdout[r.stdout.find("SUMMARY"):]
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    selected, total = map(int, re.search(r"Selected: (\d+)/(\d+)", summary).groups())
    tested = int(re.search(r"Tested: (\d+)", summary).group(1))
    generated, passed = map(int, re.search(r"(\d+) generated, (\d+) passed", summary).groups())
    # every operation but GET /openapi.json, which schemathesis leaves out as the schema's own location
    assert tested == selected == total == len(COMMITTED["paths"]) - 1, summary
    assert generated == passed, summary
    return tested, generated, summary


def test_schemathesis_finds_no_fault(api_port, tmp_path):
    """Every operation, valid and invalid bodies (coverage and fuzzing phases, a fixed seed): no 5xx, every
    status documented, every reply conforming, invalid bodies refused; the server answers afterwards.
    `positive_data_acceptance` is left out: a body the schema allows can still name no served variant or
    break a game's rules, which the schema does not express (those are 400 / 404 with the error shape)."""
    tested, generated, summary = _schemathesis(api_port, tmp_path, 50)
    assert generated > 500, summary
    print(f"schemathesis: {tested} operations, {generated} cases, 0 failures")
    status, out = Http(api_port).post("SampleMove", json.dumps(
        {"variant": SMALL_VARIANT, "gameSeed": "7", "jotto": {"role": "GUESSER"}}))
    assert status == 200 and out["move"], out


def test_schemathesis_with_tokens(registry, tmp_path):
    """A server that wants tokens, called with the right one (and, by the ignored_auth check, without it):
    the same checks, and the 401 answers conform too."""
    with _api(registry, tokens=["s3cret"]) as port:
        tested, generated, summary = _schemathesis(port, tmp_path, 15, "--header", "Authorization: Bearer s3cret")
        print(f"schemathesis with tokens: {tested} operations, {generated} cases, 0 failures")
        assert Http(port).post("ListVariants")[0] == 401
        assert Http(port, {"authorization": "Bearer s3cret"}).post("ListVariants")[0] == 200
