"""The network surface under abuse, on loopback, against a server process started here with its
default connection options under ``ulimit -n 1024``: each abuse runs on a thread while normal gRPC and
HTTP calls are made beside it. Each test asserts that every normal call made during the abuse succeeded
within its deadline, that the server closed every abusive connection within the configured timeout, and
that the server's descriptors and memory came back to their idle level afterwards."""
import json
import signal
import socket
import ssl
import subprocess
import sys
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.abuse import (Abuse, Prober, close_all, fd_count, http_call, open_silent, raise_own_fd_limit, rss_mb,
                         send_each, start_server, wait_closed)
from clients.client import GameStrategyClient
from server.connections import ConnectionLimits
from server.settings import MAX_MESSAGE_BYTES
from tests.conftest import SMALL_VARIANT
from tests.server.certs import make_certs

NOFILE = 1024
SILENT = 5000
DEFAULTS = ConnectionLimits()  # what `python -m server` runs with unless told otherwise
SLACK = 2.0  # seconds between a timeout and the close seen here: a burst of 5,000 connects waits up to
# about a second in the kernel's accept queue before the server's clock starts, plus timer and scheduling
TOKEN = "abuse-test-token"
CALL_DEADLINE = 2.0
HEAD = b"POST /v1/SampleMove HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"

pytestmark = pytest.mark.skipif(raise_own_fd_limit(SILENT + 1000) < SILENT + 1000,
                                reason=f"this process cannot open {SILENT + 1000} descriptors (hard limit)")


@pytest.fixture(scope="module")
def plain(small_store, tmp_path_factory):
    root, _ = small_store
    srv = start_server(root, nofile=NOFILE, workdir=tmp_path_factory.mktemp("plain"))
    prober = Prober(srv.ports, SMALL_VARIANT, timeout=CALL_DEADLINE)
    prober.run(20)  # warm both paths
    time.sleep(0.5)
    srv.idle = (fd_count(srv.pid), rss_mb(srv.pid))
    yield srv, prober
    prober.close()
    srv.stop()


def _abuse(srv, prober, start_fn, trickle, timeout):
    """Run one abuse beside normal calls; check the calls, the closes and the server's resources."""
    fd0, rss0 = srv.idle
    abuse = Abuse(start_fn, trickle, timeout + SLACK + 2)
    abuse.start()
    abuse.opened.wait(30)
    during = prober.run(20, seconds=60, until=lambda: not abuse.is_alive())
    abuse.join(60)
    assert not during["failures"], during["failures"][:5]
    assert len(during["grpc"]) >= 20 and len(during["http"]) >= 20
    assert abuse.still_open == 0, f"{abuse.still_open} of {len(abuse.socks)} abusive connections still open"
    assert abuse.longest <= timeout + SLACK, f"a connection lived {abuse.longest:.2f} s (timeout {timeout} s)"
    deadline = time.monotonic() + 5
    while fd_count(srv.pid) > fd0 + 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert fd_count(srv.pid) <= fd0 + 2, f"descriptors {fd_count(srv.pid)} against {fd0} idle"
    assert rss_mb(srv.pid) <= rss0 + 48, f"resident {rss_mb(srv.pid):.0f} MB against {rss0:.0f} MB idle"
    assert srv.proc.poll() is None
    return during


def test_silent_http_connections_leave_grpc_and_http_answering(plain):
    srv, prober = plain
    side = {}

    def start():
        socks = open_silent(srv.ports["http_port"], SILENT)
        # while they are open: the metrics port, gRPC health and a store refresh (SIGHUP) still work
        side["metrics"] = http_call(srv.ports["metrics_port"], "/metrics", None, CALL_DEADLINE)[0]
        with grpc.insecure_channel(f"127.0.0.1:{srv.ports['port']}") as ch:
            side["health"] = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(),
                                                                  timeout=CALL_DEADLINE).status
        srv.proc.send_signal(signal.SIGHUP)
        return socks

    _abuse(srv, prober, start, None, DEFAULTS.header_timeout)
    assert side == {"metrics": 200, "health": health_pb2.HealthCheckResponse.SERVING}
    # the store refresh still lists and opens stores (it failed with EMFILE before)
    log = srv.log.read_text()
    assert "Too many open files" not in log and "store refresh failed" not in log


def test_silent_grpc_connections_leave_grpc_and_http_answering(plain):
    srv, prober = plain
    _abuse(srv, prober, lambda: open_silent(srv.ports["port"], SILENT), None, DEFAULTS.header_timeout)


def test_slow_heads_are_closed_within_the_header_timeout(plain):
    srv, prober = plain

    def start():
        socks = open_silent(srv.ports["http_port"], 200)
        send_each(socks, HEAD)
        return socks

    _abuse(srv, prober, start, b"x", DEFAULTS.header_timeout)  # a header byte a second, never the end


def test_slow_bodies_are_closed_within_the_body_timeout(plain):
    srv, prober = plain

    def start():
        socks = open_silent(srv.ports["http_port"], 200)
        send_each(socks, HEAD + b"content-length: 1000\r\n\r\n{")
        return socks

    _abuse(srv, prober, start, b"1", DEFAULTS.body_timeout)


def test_idle_keep_alives_are_closed_within_the_idle_timeout(plain):
    srv, prober = plain

    def start():
        socks = open_silent(srv.ports["http_port"], 300)
        send_each(socks, b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
        return socks

    _abuse(srv, prober, start, None, DEFAULTS.idle_timeout)


def _raw_http(port: int, data: bytes, timeout: float = 10) -> tuple[int, dict]:
    """Send raw bytes, read the reply until the server closes or answers: (status, JSON body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        buf = b""
        while b"\r\n\r\n" not in buf or len(buf.split(b"\r\n\r\n", 1)[1]) < _length(buf):
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            buf += chunk
    head, _, body = buf.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0
    return status, (json.loads(body[:_length(buf)]) if body else {})


def _length(buf: bytes) -> int:
    for line in buf.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            return int(v)
    return 0


def _shape(reply: dict, code: grpc.StatusCode, *words: str) -> None:
    assert set(reply) == {"code", "status", "message"}, reply
    assert (reply["code"], reply["status"]) == (code.value[0], code.name), reply
    for w in words:
        assert w in reply["message"], reply


def test_every_http_error_has_the_documented_json_shape(plain):
    srv, _ = plain
    port = srv.ports["http_port"]
    cases = [  # (request bytes, HTTP status, gRPC code, words in the message)
        (b"GET /v1/ListVariants HTTP/1.1\r\nhost: x\r\n\r\n", 405, grpc.StatusCode.UNIMPLEMENTED, ("GET", "POST")),
        (b"GET /no/such/page HTTP/1.1\r\nhost: x\r\n\r\n", 404, grpc.StatusCode.NOT_FOUND, ("/no/such/page",)),
        (b"GET /static/none.js HTTP/1.1\r\nhost: x\r\n\r\n", 404, grpc.StatusCode.NOT_FOUND, ("none.js",)),
        (b"POST /v1/Nope HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}", 501, grpc.StatusCode.UNIMPLEMENTED,
         ("Nope",)),
    ]
    for body, words in ((b"null", ("JSON object", "null")), (b"[1,2]", ("JSON object", "array")),
                        (b"7", ("JSON object", "number")), (b'"x"', ("JSON object", "string")),
                        (b"{bad json", ("not JSON",)), (b"[" * 100_000, ("not JSON",)), (b'{"variant": 5}', ("not a valid",)),
                        (b'{"nosuchfield": 1}', ("nosuchfield",))):
        cases.append((HEAD + b"content-length: %d\r\n\r\n" % len(body) + body, 400, grpc.StatusCode.INVALID_ARGUMENT,
                      words))
    big = MAX_MESSAGE_BYTES + 1
    cases.append((HEAD + b"content-length: %d\r\n\r\n" % big, 413, grpc.StatusCode.RESOURCE_EXHAUSTED, ("larger",)))
    cases.append((b"GET / HTTP/1.1\r\nhost: x\r\nx-pad: " + b"a" * (DEFAULTS.max_head_bytes + 10) + b"\r\n\r\n", 431,
                  grpc.StatusCode.RESOURCE_EXHAUSTED, ("head",)))
    for data, status, code, words in cases:
        got, reply = _raw_http(port, data)
        assert got == status, (data[:60], got, reply)
        _shape(reply, code, *words)
    # bytes that are no HTTP at all: uvicorn answers 400 and closes
    got, reply = _raw_http(port, b"\x16\x03\x01\x00\x00garbage\r\n\r\n")
    assert got == 400
    _shape(reply, grpc.StatusCode.INVALID_ARGUMENT, "HTTP")
    # the health URLs need no token and say so in JSON
    assert json.loads(http_call(port, "/healthz", None, 5)[1]) == {"status": "SERVING"}
    status, body = http_call(port, "/readyz", None, 5)
    assert status == 200 and json.loads(body)["variants"] >= 1


def test_oversized_and_malformed_grpc(plain):
    srv, _ = plain
    port = srv.ports["port"]
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        call = ch.unary_unary("/gamestrategy.v1.GameStrategy/SampleMove")
        with pytest.raises(grpc.RpcError) as e:
            call(b"\xff" * 64, timeout=5)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as e:
            call(b"\x0a" + b"\xff" * (MAX_MESSAGE_BYTES + 10), timeout=10)
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    # bytes that are no HTTP/2: the server closes the connection (within the handshake timeout)
    with socket.create_connection(("127.0.0.1", port), timeout=DEFAULTS.header_timeout + 5) as s:
        s.sendall(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n" + b"\x00" * 100)
        t0 = time.monotonic()
        while True:
            try:
                if not s.recv(65536):
                    break
            except ConnectionResetError:
                break
        assert time.monotonic() - t0 <= DEFAULTS.header_timeout + SLACK


# ---------------------------------------------------------------------------------------- TLS and tokens
@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("certs"))


def _tls_server(small_store, certs, tmp, mutual: bool, extra=()):
    root, _ = small_store
    cert, key = certs["server"]
    token_file = tmp / "tokens"
    token_file.write_text(TOKEN + "\n")
    args = ["--tls-cert", str(cert), "--tls-key", str(key), "--token-file", str(token_file), *extra]
    if mutual:
        args += ["--tls-client-ca", str(certs["ca"])]
    return start_server(root, args, nofile=NOFILE, workdir=tmp)


def _context(certs, client: bool) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(certs["ca"]))
    if client:
        ctx.load_cert_chain(*map(str, certs["client"]))
    return ctx


def test_tls_covers_grpc_http_and_metrics_with_tokens(small_store, certs, tmp_path):
    srv = _tls_server(small_store, certs, tmp_path, mutual=False)
    try:
        http, mport, gport = srv.ports["http_port"], srv.ports["metrics_port"], srv.ports["port"]
        ctx = _context(certs, client=False)
        auth = {"authorization": f"Bearer {TOKEN}"}
        body = json.dumps({"variant": SMALL_VARIANT, "jotto": {"role": "GUESSER"}}).encode()
        # HTTPS with the token answers; without it, 401 in the JSON shape; health needs none
        status, reply = http_call(http, "/v1/SampleMove", body, 10, auth, tls_context=ctx)
        assert status == 200 and json.loads(reply)["move"]
        status, reply = http_call(http, "/v1/SampleMove", body, 10, tls_context=ctx)
        assert status == 401
        _shape(json.loads(reply), grpc.StatusCode.UNAUTHENTICATED)
        assert http_call(http, "/healthz", None, 10, tls_context=ctx)[0] == 200
        assert http_call(http, "/readyz", None, 10, tls_context=ctx)[0] == 200
        # plain HTTP on the HTTP and metrics ports gets no answer: they speak TLS only
        for port in (http, mport):
            got, _ = _raw_http(port, HEAD + b"authorization: Bearer " + TOKEN.encode() + b"\r\n"
                               b"content-length: 2\r\n\r\n{}", timeout=DEFAULTS.header_timeout + 5)
            assert got == 0
        # metrics: HTTPS and the token
        assert http_call(mport, "/metrics", None, 10, tls_context=ctx)[0] == 401
        status, text = http_call(mport, "/metrics", None, 10, auth, tls_context=ctx)
        assert status == 200 and b"gamestrategy_connections_closed_total" in text
        # gRPC: TLS and the token; health and reflection (grpcurl) need no token
        with GameStrategyClient(f"127.0.0.1:{gport}", timeout=10, tls_ca=certs["ca"], token=TOKEN) as c:
            assert c.jotto_move(SMALL_VARIANT, "guesser").move
            health = health_pb2_grpc.HealthStub(c.channel)
            assert health.Check(health_pb2.HealthCheckRequest(), timeout=10).status == health_pb2.HealthCheckResponse.SERVING
        grpcurl = subprocess.run([str(_grpcurl()), "-cacert", str(certs["ca"]), f"127.0.0.1:{gport}",
                                  "grpc.health.v1.Health/Check"], capture_output=True, text=True, timeout=30)
        assert grpcurl.returncode == 0 and "SERVING" in grpcurl.stdout, grpcurl.stderr
        # a silent TLS connection is closed within the handshake timeout, on every port
        # the clients say what is wrong in one line
        target = f"127.0.0.1:{gport}"
        assert "speaks TLS: pass --tls-ca" in _cli_error(["--target", target, "variants"])
        rogue_ca = str(certs["rogue"][0])  # a certificate that did not sign the server's
        assert "not signed by the CA in --tls-ca" in _cli_error(["--target", target, "--tls-ca", rogue_ca, "variants"])
        play = _play(["--target", target, "--tls-ca", str(certs["ca"]), "--token-file", str(tmp_path / "tokens")])
        assert play.returncode == 0 and "cannot reach" not in play.stdout + play.stderr, play.stdout + play.stderr
        play = _play(["--target", target])
        assert play.returncode == 1 and "speaks TLS: pass --tls-ca" in play.stdout + play.stderr
        socks = [s for port in (http, mport, gport) for s in open_silent(port, 50)]
        still, longest = wait_closed(socks, DEFAULTS.header_timeout + SLACK + 2)
        close_all(socks)
        assert still == 0 and longest <= DEFAULTS.header_timeout + SLACK, (still, longest)
    finally:
        srv.stop()


def test_mutual_tls_is_checked_on_grpc_and_http(small_store, certs, tmp_path):
    srv = _tls_server(small_store, certs, tmp_path, mutual=True)
    try:
        http, gport = srv.ports["http_port"], srv.ports["port"]
        auth = {"authorization": f"Bearer {TOKEN}"}
        body = json.dumps({"variant": SMALL_VARIANT, "jotto": {"role": "GUESSER"}}).encode()
        status, reply = http_call(http, "/v1/SampleMove", body, 10, auth, tls_context=_context(certs, client=True))
        assert status == 200 and json.loads(reply)["move"]
        with pytest.raises((ssl.SSLError, ConnectionResetError, BrokenPipeError)):
            http_call(http, "/v1/SampleMove", body, 10, auth, tls_context=_context(certs, client=False))
        with pytest.raises((ssl.SSLError, ConnectionResetError, BrokenPipeError)):
            http_call(http, "/healthz", None, 10, tls_context=_context(certs, client=False))
        ccert, ckey = certs["client"]
        with GameStrategyClient(f"127.0.0.1:{gport}", timeout=10, tls_ca=certs["ca"], tls_cert=ccert, tls_key=ckey,
                                token=TOKEN) as c:
            assert c.jotto_move(SMALL_VARIANT, "guesser").move
        with GameStrategyClient(f"127.0.0.1:{gport}", timeout=3, tls_ca=certs["ca"], token=TOKEN) as c:
            with pytest.raises(grpc.RpcError) as e:
                c.list_variants()
            assert e.value.code() == grpc.StatusCode.UNAVAILABLE
        target, ca = f"127.0.0.1:{gport}", str(certs["ca"])
        assert "wants a client certificate" in _cli_error(["--target", target, "variants"])
        assert "requires a client certificate (mutual TLS): pass --tls-cert" in _cli_error(
            ["--target", target, "--tls-ca", ca, "variants"])
        rcert, rkey = map(str, certs["rogue"])
        assert "refused the client certificate" in _cli_error(
            ["--target", target, "--tls-ca", ca, "--tls-cert", rcert, "--tls-key", rkey, "variants"])
    finally:
        srv.stop()


def test_http_insecure_takes_no_token_and_refuses_mutual_tls(small_store, certs, tmp_path):
    srv = _tls_server(small_store, certs, tmp_path, mutual=False, extra=["--http-insecure"])
    try:
        http = srv.ports["http_port"]
        body = json.dumps({"variant": SMALL_VARIANT, "jotto": {"role": "GUESSER"}}).encode()
        status, reply = http_call(http, "/v1/SampleMove", body, 10, {"authorization": f"Bearer {TOKEN}"})
        assert status == 401
        _shape(json.loads(reply), grpc.StatusCode.UNAUTHENTICATED, "plain HTTP")
        assert http_call(http, "/healthz", None, 10)[0] == 200
        assert "--http-insecure" in srv.log.read_text()
    finally:
        srv.stop()
    cert, key = certs["server"]
    r = subprocess.run([sys.executable, "-m", "server", "--tls-cert", str(cert), "--tls-key", str(key),
                        "--tls-client-ca", str(certs["ca"]), "--http-insecure"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "--http-insecure cannot be combined with --tls-client-ca" in r.stderr
    assert "Traceback" not in r.stderr


def test_readme_security_commands(small_store, certs, tmp_path):
    """The README's security example, run as written in a folder holding ca.crt, server.crt/.key, tokens."""
    import re
    import shutil
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = next(b for b in re.findall(r"```sh\n(.*?)```", readme, re.S) if "--tls-cert server.crt" in b)
    cmds = [re.sub(r"\s+#.*$", "", line).strip() for line in block.strip().splitlines()]
    for name, src in (("ca.crt", certs["ca"]), ("server.crt", certs["server"][0]), ("server.key", certs["server"][1])):
        shutil.copy(src, tmp_path / name)
    (tmp_path / "tokens").write_text(TOKEN + "\n")
    root, _ = small_store
    start = cmds[0].replace(".venv/bin/python -m server", "").split()
    srv = start_server(root, [str(tmp_path / a) if (tmp_path / a).exists() else a for a in start], nofile=NOFILE,
                       workdir=tmp_path / "run")
    bin_dir = Path(sys.executable).parent
    try:
        for cmd in cmds[1:]:
            cmd = (cmd.replace("localhost:8080", f"localhost:{srv.ports['http_port']}")
                   .replace(".venv/bin/gamestrategy ", f"{bin_dir}/gamestrategy --target localhost:{srv.ports['port']} "))
            r = subprocess.run(cmd, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=60)
            assert r.returncode == 0 and r.stdout.strip(), f"{cmd}\n{r.stdout}\n{r.stderr}"
            assert "status" in r.stdout or SMALL_VARIANT in r.stdout, r.stdout
    finally:
        srv.stop()


def test_a_tls_client_on_a_plain_port_is_told_so(plain, certs):
    srv, _ = plain
    err = _cli_error(["--target", f"127.0.0.1:{srv.ports['port']}", "--tls-ca", str(certs["ca"]), "variants"])
    assert "does not speak TLS" in err


def _cli_error(argv: list[str]) -> str:
    """gamestrategy's one line on stderr for a call that cannot connect (exit code 1, no traceback)."""
    r = subprocess.run([sys.executable, "-m", "clients.cli", "--timeout", "5", *argv], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    return r.stderr


def _play(argv: list[str]) -> subprocess.CompletedProcess:
    """gamestrategy-play jotto with no input: it connects, lists the variants, and leaves at the first prompt."""
    return subprocess.run([sys.executable, "-m", "clients.play", "jotto", "--timeout", "10", "--no-color", *argv],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)


def _grpcurl():
    from pathlib import Path

    return Path(sys.executable).parent / "grpcurl"
