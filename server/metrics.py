"""Prometheus metrics of the server, and the HTTP endpoint that exposes them.

With several worker processes, ``PROMETHEUS_MULTIPROC_DIR`` is set before this module is imported (by
``server.__main__``) and the parent process serves the sum over its workers.
"""
from __future__ import annotations

import os

import grpc
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

MULTIPROC = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))
_gauge_mode = {"multiprocess_mode": "livemax"} if MULTIPROC else {}

REQUESTS = Counter("gamestrategy_requests_total", "gRPC calls answered, by method and status code",
                   ["method", "code"])
ERRORS = Counter("gamestrategy_errors_total", "gRPC calls answered with a status other than OK, by method and code",
                 ["method", "code"])
LATENCY = Histogram("gamestrategy_request_seconds", "Server-side time of a gRPC call, by method", ["method"],
                    buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                             1.0, 2.5, 5.0, 10.0))
MOVES = Counter("gamestrategy_moves_total", "Moves answered, by variant and source (book hit or live)",
                ["variant", "source"])
AUTH_REFUSALS = Counter("gamestrategy_auth_refusals_total", "Calls refused by the token check, by status code",
                        ["code"])
STORE_VERSION = Gauge("gamestrategy_store_info", "1 for the store version served per variant (0: retired)",
                      ["variant", "version"], **_gauge_mode)
STORE_LOADS = Counter("gamestrategy_store_loads_total", "Stores opened at start or refresh: loaded or refused",
                      ["result"])


def observe(method: str, code: grpc.StatusCode, seconds: float) -> None:
    name = code.name if isinstance(code, grpc.StatusCode) else str(code)
    REQUESTS.labels(method=method, code=name).inc()
    if name != "OK":
        ERRORS.labels(method=method, code=name).inc()
    LATENCY.labels(method=method).observe(seconds)


def serve_metrics(port: int, host: str = "127.0.0.1") -> int:
    """Start the /metrics HTTP endpoint on a daemon thread; returns the bound port."""
    registry = None
    if MULTIPROC:
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    kwargs = {"registry": registry} if registry is not None else {}
    httpd, _thread = start_http_server(port, addr=host, **kwargs)
    return httpd.server_address[1]
