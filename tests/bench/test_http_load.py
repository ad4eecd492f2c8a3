"""The HTTP driver of `make bench` (bench.load http) against a real HTTP API, briefly."""
from tests.conftest import SMALL_VARIANT


def test_http_driver_answers_book_hits(registry):
    from bench.load import _one
    from server.app import build_server
    from server.http_api import HttpApi
    from server.listener import HttpServer
    from server.settings import ServerSettings

    grpc_server, _ = build_server(registry, "127.0.0.1:0", settings=ServerSettings(threads=2))
    api = HttpApi(grpc_server.servicer, threads=2)
    http = HttpServer(api.app, "127.0.0.1", 0).start()
    try:
        for conc in (1, 4):
            r = _one({"target": f"127.0.0.1:{http.port}", "kind": "http-book", "variant": SMALL_VARIANT}, conc, 0.3, 4)
            assert r["lat"] and not r["errors"], r["errors"]
        r = _one({"target": f"127.0.0.1:{http.port}", "kind": "http-book", "variant": "nope"}, 2, 0.2, 4)
        assert not r["lat"] and set(r["errors"]) == {"404"}  # failures are counted, not timed (an unknown variant)
    finally:
        http.stop(0)
        api.close()
        grpc_server.stop(0).wait()
