"""gRPC server interceptors: per-call metrics (innermost) and the bearer-token check (outermost)."""
from __future__ import annotations

import logging
import time

import grpc

from protos import gamestrategy_pb2 as pb
from server import metrics
from server.auth import LogBudget, check_bearer, clip
from server.service import SERVICE_NAME

log = logging.getLogger("gamestrategy.server")
HEALTH_PREFIX = "/grpc.health.v1.Health/"
# health checks and server reflection need no token: probes (grpc_health_probe, load balancers) and
# grpcurl reach Health/Check through reflection; both describe the service, neither serves a strategy
OPEN_PREFIXES = (HEALTH_PREFIX, "/grpc.reflection.v1alpha.ServerReflection/", "/grpc.reflection.v1.ServerReflection/")


# the methods metrics are labelled with; any other name a caller sends is counted as "unknown"
KNOWN_METHODS = frozenset(
    [f"/{SERVICE_NAME}/{m.name}" for m in pb.DESCRIPTOR.services_by_name["GameStrategy"].methods]
    + [HEALTH_PREFIX + "Check", HEALTH_PREFIX + "Watch"]
    + [p + "ServerReflectionInfo" for p in OPEN_PREFIXES[1:]])


def _short(method: str) -> str:
    """The metric label of a full method name: its last part when it is one of ours, else ``unknown``."""
    return method.rsplit("/", 1)[-1] if method in KNOWN_METHODS else "unknown"


class MetricsInterceptor(grpc.ServerInterceptor):
    """Counts every call by method and status code, and times it.

    It is the innermost interceptor, so what it wraps depends on the method name alone: the wrapped
    handler is built once per method, not once per call. It parses unary requests itself (bytes that are
    no message get INVALID_ARGUMENT, not INTERNAL) and hands stream-request methods their raw messages
    (the handler parses each one and reports a bad one in its reply, keeping the stream open).
    Handlers report failures by `context.abort` (raising), so a call that returns is counted OK, unless it
    returns past its deadline (DEADLINE_EXCEEDED: what the caller got).
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
        observe, clock, OK, LATE = metrics.observe, time.perf_counter, grpc.StatusCode.OK, grpc.StatusCode.DEADLINE_EXCEEDED

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
            # a reply made after the call's deadline never reaches the caller: gRPC ended the call with
            # DEADLINE_EXCEEDED, and so it is counted
            observe(method, OK if context.time_remaining() > 0 else LATE, clock() - t0)
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
    """Requires `authorization: Bearer <token>` on every call except health checks and server reflection.

    Missing or malformed credentials -> UNAUTHENTICATED; a well-formed token that is not accepted ->
    PERMISSION_DENIED. The token is compared in constant time and never logged.
    """

    def __init__(self, tokens: list[str]):
        self._tokens = [t.encode() for t in tokens if t]
        self._log_budget = LogBudget()

    def intercept_service(self, continuation, handler_call_details):
        method = handler_call_details.method or ""
        if method.startswith(OPEN_PREFIXES):
            return continuation(handler_call_details)
        value = None
        for k, v in handler_call_details.invocation_metadata or ():
            if k == "authorization":
                value = v
                break
        refused = check_bearer(value, self._tokens)
        if refused is not None:
            code, message = refused
            held = self._log_budget.take()
            if held is not None:
                log.warning("refused call", extra={"fields": {"method": clip(method), "code": code.name,
                                                              "refusals_not_logged": held}})
            return self._refuse(continuation, handler_call_details, code, message)
        return continuation(handler_call_details)

    @staticmethod
    def _refuse(continuation, handler_call_details, code, message):
        handler = continuation(handler_call_details)  # only for its shape: it is not run
        streaming = handler is not None and handler.request_streaming and handler.response_streaming
        return _refusal(code, message, _short(handler_call_details.method), streaming)
