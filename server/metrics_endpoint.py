"""The Prometheus ``/metrics`` HTTP endpoint: a guarded listener of its own (server.listener) serving
server.metrics' registry, or with several workers the sum over their multi-process files."""
from __future__ import annotations

import json

from prometheus_client import CollectorRegistry, make_asgi_app

from server import metrics
from server.auth import check_bearer
from server.connections import ConnectionLimits
from server.listener import HttpServer

METRICS_MAX_CONNECTIONS = 64  # scrapers are few


def serve_metrics(port: int, host: str = "127.0.0.1", tls=None, tokens: list[str] = (), limits=None):
    """Start the /metrics endpoint; returns the listener (``.port`` bound, ``.stop()``). With `tls` it speaks
    HTTPS (and asks for client certificates under mutual TLS) and with `tokens` it wants
    ``Authorization: Bearer <token>``, as every other port."""
    registry = metrics.REGISTRY
    if metrics.MULTIPROC:
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    app = make_asgi_app(registry)
    if tokens:
        app = BearerOnly(app, tokens)
    limits = limits or ConnectionLimits(max_connections=METRICS_MAX_CONNECTIONS)
    return HttpServer(app, host, port, limits=limits, tls=tls, listener="metrics").start()


class BearerOnly:
    """ASGI middleware: 401/403 in the service's JSON error shape unless the call carries an accepted token."""

    def __init__(self, app, tokens):
        self.app, self.tokens = app, [t.encode() for t in tokens if t]

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            value = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"authorization"), None)
            refused = check_bearer(value, self.tokens)
            if refused is not None:
                code, message = refused
                body = json.dumps({"code": code.value[0], "status": code.name, "message": message}).encode()
                await send({"type": "http.response.start", "status": 401 if code.value[0] == 16 else 403,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
