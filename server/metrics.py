"""Prometheus metrics of the server: the counters, gauges and histograms, and the cheap per-call tallies
that feed them (the HTTP endpoint that exposes them is server.metrics_endpoint; this module imports no
other module of server/).

With several worker processes, ``PROMETHEUS_MULTIPROC_DIR`` is set before this module is imported (by
``server.__main__``) and the parent process serves the sum over its workers.

Per-call figures (calls by method and code, latency, moves by source) are cheap to record: a call adds to
plain in-process tallies under one lock (about half a microsecond), and the tallies are folded into the
Prometheus metrics by :func:`flush` - every ``FLUSH_SECONDS`` on a daemon thread (:func:`start_flusher`),
at every scrape of this process's registry, and on shutdown. Updating the Prometheus objects on every
call cost about 7 us a call (label lookups, and in multi-process mode a locked mmap write per value),
a sixth of a book-hit call. What a scrape shows lags the calls by at most ``FLUSH_SECONDS``.
"""
from __future__ import annotations

import bisect
import os
import threading

import grpc
from prometheus_client import REGISTRY, Counter, Gauge, Histogram

MULTIPROC = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))
_gauge_mode = {"multiprocess_mode": "livemax"} if MULTIPROC else {}
FLUSH_SECONDS = 1.0
BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

_lock = threading.Lock()
_calls: dict = {}  # (method, code name) -> count
_latency: dict = {}  # method -> [count per bucket (last: +Inf), sum of seconds]
_moves: dict = {}  # (variant, source) -> count
_stream_messages: dict = {}  # (method, code name) -> count


def flush() -> None:
    """Fold the tallies recorded since the last flush into the Prometheus metrics."""
    global _calls, _latency, _moves, _stream_messages
    with _lock:
        calls, latency, moves, stream = _calls, _latency, _moves, _stream_messages
        _calls, _latency, _moves, _stream_messages = {}, {}, {}, {}
    for (method, code), n in calls.items():
        REQUESTS.labels(method=method, code=code).inc(n)
        if code != "OK":
            ERRORS.labels(method=method, code=code).inc(n)
    for method, (counts, total) in latency.items():
        h = LATENCY.labels(method=method)
        h._sum.inc(total)  # noqa: SLF001 - a histogram has no public "add n observations"
        for i, n in enumerate(counts):
            if n:
                h._buckets[i].inc(n)  # noqa: SLF001
    for (variant, source), n in moves.items():
        MOVES.labels(variant=variant, source=source).inc(n)
    for (method, code), n in stream.items():
        STREAM_MESSAGES.labels(method=method, code=code).inc(n)


class _FlushOnCollect:
    """Registered first: a scrape of this process's registry sees every call recorded so far."""

    def collect(self):
        flush()
        return []

    def describe(self):
        return []


if not MULTIPROC:
    REGISTRY.register(_FlushOnCollect())

REQUESTS = Counter("gamestrategy_requests_total", "gRPC calls answered, by method and status code",
                   ["method", "code"])
ERRORS = Counter("gamestrategy_errors_total", "gRPC calls answered with a status other than OK, by method and code",
                 ["method", "code"])
LATENCY = Histogram("gamestrategy_request_seconds", "Server-side time of a gRPC call, by method", ["method"],
                    buckets=BUCKETS)
MOVES = Counter("gamestrategy_moves_total", "Moves answered, by variant and source (book hit, live, or degraded: the "
                "store's answer where the policy computes one live and could not)",
                ["variant", "source"])
STREAM_MESSAGES = Counter("gamestrategy_stream_messages_total",
                          "Messages answered on streaming calls, by method and per-message status code",
                          ["method", "code"])
AUTH_REFUSALS = Counter("gamestrategy_auth_refusals_total", "Calls refused by the token check, by status code",
                        ["code"])
STORE_VERSION = Gauge("gamestrategy_store_info", "1 for the store version served per variant (0: retired)",
                      ["variant", "version"], **_gauge_mode)
STORE_BUILD_TIME = Gauge("gamestrategy_store_build_timestamp_seconds",
                         "When the store version served per variant was built and published (its manifest's "
                         "build_time), Unix seconds; 0 when the variant's store was withdrawn",
                         ["variant"], **_gauge_mode)
STORE_LOADS = Counter("gamestrategy_store_loads_total", "Stores opened at start or refresh: loaded or refused",
                      ["result"])
CONNECTIONS_CLOSED = Counter("gamestrategy_connections_closed_total",
                             "HTTP connections the server closed, by listener (http, metrics) and reason "
                             "(header_timeout, body_timeout, idle_timeout, head_too_large, evicted: the oldest idle "
                             "one past the cap, refused: past the cap with none idle)", ["listener", "reason"])
_NB = len(BUCKETS) + 1


def observe(method: str, code, seconds: float) -> None:
    """One call answered: by method and status code, and its server-side time."""
    name = code.name if isinstance(code, grpc.StatusCode) else str(code)
    key = (method, name)
    i = bisect.bisect_left(BUCKETS, seconds)
    with _lock:
        _calls[key] = _calls.get(key, 0) + 1
        lat = _latency.get(method)
        if lat is None:
            lat = _latency[method] = [[0] * _NB, 0.0]
        lat[0][i] += 1
        lat[1] += seconds


def move(variant: str, source: str) -> None:
    key = (variant, source)
    with _lock:
        _moves[key] = _moves.get(key, 0) + 1


def stream_message(method: str, code_name: str) -> None:
    key = (method, code_name)
    with _lock:
        _stream_messages[key] = _stream_messages.get(key, 0) + 1


_flusher: threading.Thread | None = None
_flusher_pid = 0


def start_flusher() -> None:
    """The daemon thread that flushes every FLUSH_SECONDS (once per process, also after a fork)."""
    global _flusher, _flusher_pid
    with _lock:
        if _flusher is not None and _flusher_pid == os.getpid() and _flusher.is_alive():
            return

        def run():
            ev = threading.Event()
            while True:
                ev.wait(FLUSH_SECONDS)
                flush()

        _flusher = threading.Thread(target=run, name="metrics-flush", daemon=True)
        _flusher_pid = os.getpid()
        _flusher.start()
