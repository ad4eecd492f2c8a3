"""The gRPC service: SampleMove, SampleMoves, GetStats, ListVariants over the published stores.

The stores are held by a :class:`Registry`: every call takes a reference on the backend it reads
(``acquire``), a refresh swaps a newly published store in under a lock and retires the old one, which is
closed when its last in-flight call releases it. Interceptors count every call (Prometheus) and check
the bearer token when one is configured.
"""
from __future__ import annotations

import hmac
import logging
import threading
import time
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from games.storage import Store, StoreError, current_stores
from protos import gamestrategy_pb2 as pb
from protos import gamestrategy_pb2_grpc as pb_grpc
from server import metrics
from server.backends import GAMES, backend_for, register
from server.guesswho_backend import GuessWhoBackend
from server.hangman_backend import HangmanBackend
from server.jotto_backend import BadRequest, DeadlineExceeded, JottoBackend, quote

register("guesswho", GuessWhoBackend)
register("hangman", HangmanBackend)

log = logging.getLogger("gamestrategy.server")
SERVICE_NAME = pb.DESCRIPTOR.services_by_name["GameStrategy"].full_name
MAX_REQUEST_BYTES = 64 * 1024  # larger SampleMove requests get INVALID_ARGUMENT naming their size
MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # transport limit (RESOURCE_EXHAUSTED past it)
MAX_BATCH = 1024  # SampleMoves: requests per call
MAX_STREAMS = 4  # SampleMoveStream: open streams per server process (each holds a handler thread)
SOURCES = {"book": pb.SampleMoveReply.BOOK, "live": pb.SampleMoveReply.LIVE}
HEALTH_PREFIX = "/grpc.health.v1.Health/"


# ---------------------------------------------------------------------------------------- stores
class _Handle:
    """One open backend with a count of the calls reading it."""

    __slots__ = ("backend", "path", "refs", "retired", "closed")

    def __init__(self, backend: JottoBackend, path: Path):
        self.backend, self.path = backend, path
        self.refs, self.retired, self.closed = 0, False, False


def open_backend(path: Path, variant: str | None = None, warm: bool = True) -> JottoBackend:
    """Open and check one store; StoreError (with the reason) if it cannot be served."""
    store = Store(path)
    try:
        b = backend_for(store)
        if variant is not None and b.variant != variant:
            raise StoreError(f"store {path}: holds variant {b.variant!r}, published as {variant!r}")
        if warm:
            b.warm()
        b.probe()  # one request through the real paths
        return b
    except Exception as e:  # noqa: BLE001 - any failure refuses the store
        store.close()
        if isinstance(e, StoreError):
            raise
        raise StoreError(f"store {path}: cannot be served ({type(e).__name__}: {e})") from e


class Registry:
    """The served backends by variant; hot refresh with reference-counted retirement."""

    def __init__(self, root: Path, warm: bool = True):
        self.root = Path(root)
        self.warm = warm
        self._lock = threading.Lock()
        self._refresh_lock = threading.Lock()
        self._handles: dict[str, _Handle] = {}
        self._refused: dict[str, Path] = {}  # variant -> last refused path (not retried until it changes)
        self._opened: set[Path] = set()  # every path opened in this process: py-lmdb opens a path once

    # -------------------------------------------------------------- reading
    @property
    def backends(self) -> dict[str, JottoBackend]:
        with self._lock:
            return {v: h.backend for v, h in self._handles.items()}

    def variants(self) -> list[str]:
        with self._lock:
            return sorted(self._handles)

    def _take(self, variant: str) -> _Handle:
        with self._lock:
            h = self._handles.get(variant)
            if h is None:
                known = ", ".join(sorted(self._handles)) or "none"
                raise BadRequest(f"unknown variant {quote(variant)} (served: {known})")
            h.refs += 1
            return h

    def _release(self, h: _Handle) -> None:
        with self._lock:
            h.refs -= 1
            close = h.retired and h.refs == 0 and not h.closed
            if close:
                h.closed = True
        if close:
            self._close(h)

    @contextmanager
    def acquire(self, variant: str):
        h = self._take(variant)
        try:
            yield h.backend
        finally:
            self._release(h)

    @contextmanager
    def acquire_all(self):
        with self._lock:
            hs = sorted(self._handles.items())
            for _, h in hs:
                h.refs += 1
        try:
            yield [(v, h.backend) for v, h in hs]
        finally:
            for _, h in hs:
                self._release(h)

    def _close(self, h: _Handle) -> None:
        try:
            h.backend.store.close()
            log.info("closed store", extra={"fields": {"variant": h.backend.variant,
                                                                 "store_version": h.backend.version}})
        except Exception as e:  # noqa: BLE001
            log.error("closing retired store failed", extra={"fields": {"path": str(h.path), "error": str(e)}})

    # -------------------------------------------------------------- refresh
    def refresh(self) -> dict[str, str]:
        """Open every newly published store and swap it in; returns {variant: outcome}."""
        out: dict[str, str] = {}
        with self._refresh_lock:
            try:
                published = {}
                for game in GAMES:
                    published.update(current_stores(self.root, game))
            except OSError as e:
                log.error("cannot list stores", extra={"fields": {"root": str(self.root), "error": str(e)}})
                return out
            for variant, path in published.items():
                with self._lock:
                    cur = self._handles.get(variant)
                if cur is not None and cur.path == path:
                    continue
                if self._refused.get(variant) == path:
                    continue
                if path in self._opened:  # py-lmdb opens a path once per process: never reopen
                    self._refused[variant] = path
                    metrics.STORE_LOADS.labels(result="refused").inc()
                    log.error("refusing store: this version was served before in this process; publish it as a "
                              "new version or restart", extra={"fields": {"variant": variant, "path": str(path)}})
                    out[variant] = "refused"
                    continue
                self._opened.add(path)
                try:
                    b = open_backend(path, variant, self.warm)
                except Exception as e:  # noqa: BLE001
                    self._refused[variant] = path
                    metrics.STORE_LOADS.labels(result="refused").inc()
                    log.error("refusing store; keeping the previous one" if cur else "refusing store",
                              extra={"fields": {"variant": variant, "path": str(path), "error": str(e),
                                                "serving": cur.backend.version if cur else None}})
                    out[variant] = "refused"
                    continue
                self._refused.pop(variant, None)
                new = _Handle(b, path)
                with self._lock:
                    old = self._handles.get(variant)
                    self._handles[variant] = new
                    close_old = False
                    if old is not None:
                        old.retired = True
                        close_old = old.refs == 0 and not old.closed
                        if close_old:
                            old.closed = True
                if old is not None:
                    metrics.STORE_VERSION.labels(variant=variant, version=old.backend.version).set(0)
                metrics.STORE_VERSION.labels(variant=variant, version=b.version).set(1)
                metrics.STORE_LOADS.labels(result="loaded").inc()
                log.info("serving store", extra={"fields": {
                    "variant": variant, "store_version": b.version,
                    "replaced": old.backend.version if old else None}})
                out[variant] = "loaded" if old is None else "swapped"
                if close_old:
                    self._close(old)
        return out

    def close(self) -> None:
        with self._lock:
            hs = list(self._handles.values())
            self._handles.clear()
        for h in hs:
            if not h.closed:
                h.closed = True
                self._close(h)


def load_backends(root: Path) -> dict[str, JottoBackend]:
    """Open every published store; a store that cannot be served is logged and skipped."""
    backends = {}
    published = {}
    for game in GAMES:
        published.update(current_stores(root, game))
    for variant, path in published.items():
        try:
            b = backend_for(Store(path))
        except Exception as e:  # noqa: BLE001 - any store that cannot be served is refused, not fatal
            log.error("refusing store %s: %s", path, e)
            continue
        backends[b.variant] = b
        log.info("serving %s from store %s", b.variant, b.version)
    return backends


class _FixedRegistry(Registry):
    """A registry over backends opened by the caller (tests, bench): no refresh."""

    def __init__(self, backends: dict[str, JottoBackend]):
        super().__init__(Path("/nonexistent"), warm=False)
        for v, b in backends.items():
            self._handles[v] = _Handle(b, b.store.path)
            metrics.STORE_VERSION.labels(variant=v, version=b.version).set(1)

    def refresh(self) -> dict[str, str]:
        return {}


# ---------------------------------------------------------------------------------------- service
class _Abort(Exception):
    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code, self.message = code, message


def _sample(registry: Registry, request: pb.SampleMoveRequest, deadline: float | None,
            size: int | None = None, reply: pb.SampleMoveReply | None = None) -> pb.SampleMoveReply | bytes:
    """One move, written into `reply` and returned; _Abort with the status. Without `reply`: a new
    SampleMoveReply, or its encoding (bytes) when the backend answered with a result it answered before.

    `size`: the request's encoded size when the caller has it (else measured here)."""
    try:
        if size is None:
            size = request.ByteSize()
        if size > MAX_REQUEST_BYTES:
            raise BadRequest(f"request is {size} bytes; at most {MAX_REQUEST_BYTES}")
        variant = request.variant
        if not variant:
            raise BadRequest("request names no variant")
        h = registry._take(variant)  # noqa: SLF001 - the hot path: no context-manager frame
        try:
            b = h.backend
            r = b.sample(request, deadline)  # raises BadRequest naming the field when the state is missing
        finally:
            registry._release(h)  # noqa: SLF001
    except BadRequest as e:
        raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, str(e)) from None
    except DeadlineExceeded as e:
        raise _Abort(grpc.StatusCode.DEADLINE_EXCEEDED, str(e)) from None
    metrics.move(variant, r.source)
    wire = r.wire
    if wire is not None:  # this result object was answered before (the backend reuses immutable results)
        if reply is None:
            return wire
        reply.MergeFromString(wire)
        return reply
    if reply is None:
        reply = pb.SampleMoveReply(
            move=r.move, probability=r.probability, source=SOURCES[r.source], store_version=b.version,
            strategy=r.strategy, member=r.member, consistent_words=r.consistent_words,
            history_on_policy=r.on_policy)
    else:
        reply.move, reply.probability, reply.source, reply.store_version = (
            r.move, r.probability, SOURCES[r.source], b.version)
        reply.strategy, reply.member, reply.consistent_words, reply.history_on_policy = (
            r.strategy, r.member, r.consistent_words, r.on_policy)
    if r.distribution:
        reply.distribution.extend([pb.MoveProbability(move=m, probability=p) for m, p in r.distribution])
    else:
        r.wire = reply.SerializeToString()
    return reply


_parse_move_request = pb.SampleMoveRequest.FromString


NO_DEADLINE_SECONDS = 10 * 365 * 86400  # gRPC reports "no deadline" as an effectively infinite time remaining


def _deadline(context) -> float | None:
    """The caller's deadline on the monotonic clock; None when the call has none."""
    remaining = context.time_remaining()
    if remaining is None or remaining > NO_DEADLINE_SECONDS:
        return None
    return time.monotonic() + remaining


class GameStrategyServicer(pb_grpc.GameStrategyServicer):
    def __init__(self, registry: Registry | dict, max_batch: int = MAX_BATCH, max_streams: int = MAX_STREAMS):
        self.registry = registry if isinstance(registry, Registry) else _FixedRegistry(registry)
        self.max_batch = max_batch
        self.max_streams = max_streams
        self._streams = threading.BoundedSemaphore(max_streams)

    @property
    def backends(self) -> dict[str, JottoBackend]:
        return self.registry.backends

    def ListVariants(self, request, context):
        out = pb.ListVariantsReply()
        with self.registry.acquire_all() as items:
            for name, b in items:
                if request.game in ("", b.game):
                    b.variant_info(out.variants.add(game=b.game, variant=name, store_version=b.version))
        return out

    def SampleMove(self, request, context):
        """The reply, or its encoding (bytes) when cached: MetricsInterceptor's serializer passes bytes on."""
        try:
            return _sample(self.registry, request, _deadline(context))
        except _Abort as e:
            context.abort(e.code, e.message)

    def SampleMoves(self, request, context):
        n = len(request.requests)
        if n > self.max_batch:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"batch has {n} requests; at most {self.max_batch}")
        deadline = _deadline(context)
        out = pb.SampleMovesReply()
        for req in request.requests:
            res = out.results.add()
            try:
                _sample(self.registry, req, deadline, reply=res.reply)
            except _Abort as e:
                res.ClearField("reply")
                res.code, res.message = e.code.value[0], e.message
        return out

    def SampleMoveStream(self, request_iterator, context):
        """One SampleMoveResult per request, in order; per-message faults go in the result.

        The items are SampleMoveRequest messages, or their raw bytes (the MetricsInterceptor hands the
        bytes over so that a body that is no message gets its own INVALID_ARGUMENT result instead of
        ending the stream). A stream holds one handler thread for its whole life, so a worker serves at
        most `max_streams` at once (fewer than its threads: unary calls keep running)."""
        if not self._streams.acquire(blocking=False):
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                          f"this server process already serves its maximum of {self.max_streams} open "
                          "SampleMoveStream calls; retry later, or use SampleMoves")
        try:
            deadline = _deadline(context)
            registry = self.registry
            for i, item in enumerate(request_iterator):
                res = pb.SampleMoveResult(index=i)
                try:
                    if isinstance(item, bytes):
                        size = len(item)
                        try:
                            item = _parse_move_request(item)
                        except Exception:  # noqa: BLE001 - any undecodable body
                            raise _Abort(grpc.StatusCode.INVALID_ARGUMENT,
                                         f"the {size}-byte body is not a valid SampleMoveRequest message") from None
                    else:
                        size = None
                    _sample(registry, item, deadline, size, res.reply)
                    metrics.stream_message("SampleMoveStream", "OK")
                except _Abort as e:
                    res.ClearField("reply")
                    res.code, res.message = e.code.value[0], f"message {i}: {e.message}"
                    metrics.stream_message("SampleMoveStream", e.code.name)
                yield res
        finally:
            self._streams.release()

    def GetWords(self, request, context):
        try:
            if not request.variant:
                raise BadRequest("request names no variant")
            with self.registry.acquire(request.variant) as b:
                if not hasattr(b, "get_words"):
                    raise BadRequest(f"{request.variant} is a {b.game} variant; GetWords serves Jotto variants")
                out = pb.GetWordsReply(variant=request.variant, store_version=b.version)
                b.get_words(out)
                return out
        except BadRequest as e:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))

    def GetStats(self, request, context):
        out = pb.GetStatsReply()
        if request.variant:
            try:
                with self.registry.acquire(request.variant) as b:
                    self._stats(out, request.variant, b)
            except BadRequest as e:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
            return out
        with self.registry.acquire_all() as items:
            for name, b in items:
                self._stats(out, name, b)
        return out

    @staticmethod
    def _stats(out, name, b):
        cached = getattr(b, "_stats_message", None)  # a store is immutable: build its figures once
        if cached is not None:
            out.variants.add().CopyFrom(cached)
            return
        m = b.manifest
        v = out.variants.add(variant=name, store_version=b.version, code_version=m.get("code_version", ""),
                             build_time=m.get("build_time", ""))
        b.stats(v)
        b._stats_message = pb.VariantStats()
        b._stats_message.CopyFrom(v)


# ---------------------------------------------------------------------------------------- interceptors
def _short(method: str) -> str:
    return method.rsplit("/", 1)[-1] if method else "unknown"


class MetricsInterceptor(grpc.ServerInterceptor):
    """Counts every call by method and status code, and times it.

    It is the innermost interceptor, so what it wraps depends on the method name alone: the wrapped
    handler is built once per method, not once per call. It parses unary requests itself (bytes that are
    no message get INVALID_ARGUMENT, not INTERNAL) and hands stream-request methods their raw messages
    (the handler parses each one and reports a bad one in its reply, keeping the stream open).
    Handlers report failures by `context.abort` (raising), so a call that returns is counted OK.
    """

    def __init__(self):
        self._wrapped: dict[str, object] = {}

    def intercept_service(self, continuation, handler_call_details):
        name = handler_call_details.method
        hit = self._wrapped.get(name)
        if hit is not None:
            return hit
        handler = continuation(handler_call_details)
        if handler is None:
            return handler
        if handler.unary_unary is not None:
            wrapped = self._wrap(handler, _short(name))
        elif handler.stream_stream is not None:
            # our streams parse each message themselves; others (server reflection) keep theirs
            wrapped = self._wrap_stream(handler, _short(name), raw=name.startswith(f"/{SERVICE_NAME}/"))
        else:
            return handler
        self._wrapped[name] = wrapped
        return wrapped

    @staticmethod
    def _wrap(handler, method: str):
        inner = handler.unary_unary
        deserialize = handler.request_deserializer
        observe, clock, OK = metrics.observe, time.perf_counter, grpc.StatusCode.OK

        def behaviour(raw, context):
            t0 = clock()
            try:
                try:  # parsed here so that bytes that are no message get INVALID_ARGUMENT, not INTERNAL
                    request = deserialize(raw) if deserialize is not None else raw
                except Exception:  # noqa: BLE001
                    context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                  f"the {len(raw)}-byte request body is not a valid {method} request message")
                resp = inner(request, context)
            except BaseException:
                observe(method, _final_code(context, grpc.StatusCode.UNKNOWN), clock() - t0)
                raise
            observe(method, OK, clock() - t0)
            return resp

        serialize = handler.response_serializer
        if serialize is not None:
            inner_serialize = serialize

            def serialize(resp):  # a handler may answer with the reply already encoded
                return resp if resp.__class__ is bytes else inner_serialize(resp)

        return grpc.unary_unary_rpc_method_handler(behaviour, None, serialize)

    @staticmethod
    def _wrap_stream(handler, method: str, raw: bool):
        inner = handler.stream_stream
        observe, clock = metrics.observe, time.perf_counter

        def behaviour(raw_iterator, context):
            t0 = clock()
            try:
                yield from inner(raw_iterator, context)
            except BaseException:
                observe(method, _final_code(context, grpc.StatusCode.UNKNOWN), clock() - t0)
                raise
            # the requests also end when the client cancels or the deadline passes
            observe(method, _final_code(context, grpc.StatusCode.OK), clock() - t0)

        return grpc.stream_stream_rpc_method_handler(behaviour, None if raw else handler.request_deserializer,
                                                     handler.response_serializer)


def _final_code(context, default: grpc.StatusCode) -> grpc.StatusCode:
    """The status a call ended with: the one it set; DEADLINE_EXCEEDED when its deadline has passed;
    CANCELLED when it was ended from outside; else `default`. (A stream the client cancels can reach the
    handler as a plain end of its requests before gRPC marks it cancelled: that one counts as `default`.)"""
    code = context.code()
    if code is not None:
        return code
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        return grpc.StatusCode.DEADLINE_EXCEEDED
    if not context.is_active():
        return grpc.StatusCode.CANCELLED
    return default


def _refusal(code: grpc.StatusCode, message: str, method: str, streaming: bool = False):
    """A handler that refuses the call, of the method's shape (a bidi stream gets a stream handler)."""

    def behaviour(request, context):
        metrics.AUTH_REFUSALS.labels(code=code.name).inc()
        metrics.observe(method, code, 0.0)
        context.abort(code, message)

    if streaming:
        return grpc.stream_stream_rpc_method_handler(behaviour)
    return grpc.unary_unary_rpc_method_handler(behaviour)


class TokenInterceptor(grpc.ServerInterceptor):
    """Requires `authorization: Bearer <token>` on every call except health checks.

    Missing or malformed credentials -> UNAUTHENTICATED; a well-formed token that is not accepted ->
    PERMISSION_DENIED. The token is compared in constant time and never logged.
    """

    def __init__(self, tokens: list[str]):
        self._tokens = [t.encode() for t in tokens if t]

    def intercept_service(self, continuation, handler_call_details):
        method = handler_call_details.method or ""
        if method.startswith(HEALTH_PREFIX):
            return continuation(handler_call_details)
        value = None
        for k, v in handler_call_details.invocation_metadata or ():
            if k == "authorization":
                value = v
                break
        if value is None:
            log.warning("refused call without credentials", extra={"fields": {"method": method}})
            return self._refuse(continuation, handler_call_details, grpc.StatusCode.UNAUTHENTICATED,
                                "missing `authorization: Bearer <token>` metadata")
        scheme, _, token = value.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            log.warning("refused call with malformed credentials", extra={"fields": {"method": method}})
            return self._refuse(continuation, handler_call_details, grpc.StatusCode.UNAUTHENTICATED,
                                "authorization metadata must be `Bearer <token>`")
        t = token.strip().encode()
        if not any(hmac.compare_digest(t, ok) for ok in self._tokens):
            log.warning("refused call with a token that is not accepted", extra={"fields": {"method": method}})
            return self._refuse(continuation, handler_call_details, grpc.StatusCode.PERMISSION_DENIED,
                                "the bearer token is not accepted")
        return continuation(handler_call_details)

    @staticmethod
    def _refuse(continuation, handler_call_details, code, message):
        handler = continuation(handler_call_details)  # only for its shape: it is not run
        streaming = handler is not None and handler.request_streaming and handler.response_streaming
        return _refusal(code, message, _short(handler_call_details.method), streaming)


# ---------------------------------------------------------------------------------------- server
@dataclass
class TLSConfig:
    cert: bytes
    key: bytes
    client_ca: bytes | None = None  # mutual TLS: clients must present a certificate signed by it

    @classmethod
    def from_files(cls, cert: Path, key: Path, client_ca: Path | None = None) -> "TLSConfig":
        return cls(Path(cert).read_bytes(), Path(key).read_bytes(), Path(client_ca).read_bytes() if client_ca else None)

    def credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials([(self.key, self.cert)], root_certificates=self.client_ca,
                                           require_client_auth=self.client_ca is not None)


@dataclass
class ServerSettings:
    threads: int = 8
    max_concurrent_rpcs: int | None = 256
    max_batch: int = MAX_BATCH
    max_streams: int | None = None  # open SampleMoveStream calls; None = half the threads (at least 1)
    tokens: list[str] = field(default_factory=list)
    tls: TLSConfig | None = None
    reuseport: bool = False


def build_server(backends, address: str, max_workers: int = 8, max_concurrent_rpcs: int | None = 256,
                 settings: ServerSettings | None = None) -> tuple[grpc.Server, int]:
    """`backends`: a Registry (hot refresh) or a dict of opened backends."""
    s = settings or ServerSettings(threads=max_workers, max_concurrent_rpcs=max_concurrent_rpcs)
    options = [
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.so_reuseport", 1 if s.reuseport else 0),
    ]
    interceptors = [MetricsInterceptor()]
    if s.tokens:  # outermost: refusals never reach the handlers (they are counted by _refusal)
        interceptors.insert(0, TokenInterceptor(s.tokens))
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=s.threads), options=options,
                         maximum_concurrent_rpcs=s.max_concurrent_rpcs, interceptors=interceptors)
    servicer = GameStrategyServicer(backends, s.max_batch, s.max_streams or max(1, s.threads // 2))
    metrics.start_flusher()
    pb_grpc.add_GameStrategyServicer_to_server(servicer, server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    try:
        port = server.add_secure_port(address, s.tls.credentials()) if s.tls else server.add_insecure_port(address)
    except RuntimeError:
        port = 0
    if port == 0:
        raise RuntimeError(f"cannot bind {address}")
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    server.health = health_servicer
    server.servicer = servicer
    return server, port


def warm(backends: dict[str, JottoBackend]) -> None:
    for b in backends.values():
        b.warm()


def serve_forever(server: grpc.Server, stop: threading.Event, grace: float = 5.0) -> None:
    server.start()
    stop.wait()
    health_servicer = getattr(server, "health", None)
    if health_servicer is not None:
        health_servicer.enter_graceful_shutdown()
    server.stop(grace).wait()
