"""The service over HTTP/JSON: every unary RPC as ``POST /v1/<Method>``, plus the web pages.

A request body is the protobuf JSON mapping (``google.protobuf.json_format``) of the RPC's request message
(an empty body is the empty message); the reply is the JSON mapping of its reply message, every field
written out. The call runs the very servicer object that answers gRPC (same validation, messages, store
registry and hot refresh, metrics by method and code), on a thread pool of its own so that a slow live
computation never holds the event loop. A failure answers ``{"code": <grpc code>, "status": <its name>,
"message": ...}`` with the HTTP status of the gRPC code (:data:`HTTP_STATUS`, as grpc-gateway maps them).
The same bearer tokens are required (``Authorization: Bearer <token>``); ``grpc-timeout`` (gRPC's format,
e.g. ``2S``, ``500m``) sets the call's deadline.
"""
from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
from google.protobuf import json_format
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from protos import gamestrategy_pb2 as pb
from server import metrics
from server.service import SERVICE_NAME
from server.settings import MAX_MESSAGE_BYTES
from server.auth import LogBudget, check_bearer, clip
from server.json_enums import enum_fault
from server.web_ops import Plots, metric_totals, store_facts

log = logging.getLogger("gamestrategy.http")
WEB = Path(__file__).resolve().parent / "web"
OPENAPI = Path(pb.__file__).resolve().parent / "openapi.json"  # generated from the proto: python -m server.openapi

# gRPC status code -> HTTP status (grpc-gateway's mapping)
HTTP_STATUS = {
    grpc.StatusCode.OK: 200, grpc.StatusCode.CANCELLED: 499, grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400, grpc.StatusCode.DEADLINE_EXCEEDED: 504, grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409, grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.UNAUTHENTICATED: 401, grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400, grpc.StatusCode.ABORTED: 409, grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501, grpc.StatusCode.INTERNAL: 500, grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
}
# /readyz's building entries say "no estimate" as ListVariants' BuildingVariant does: -1
NO_ESTIMATE = ("fraction", "eta_seconds")
_SERVICE = pb.DESCRIPTOR.services_by_name["GameStrategy"]
# method -> (request class, reply class): the unary RPCs
UNARY = {m.name: (getattr(pb, m.input_type.name), getattr(pb, m.output_type.name))
         for m in _SERVICE.methods if not m.client_streaming and not m.server_streaming}
STREAMING = sorted(m.name for m in _SERVICE.methods if m.name not in UNARY)
_TIMEOUT = re.compile(r"(\d{1,8})([HMSmun])")
_UNITS = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}


class _Aborted(Exception):
    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code, self.message = code, message


class HttpCallContext:
    """What the servicer asks of a gRPC context, for one HTTP call."""

    __slots__ = ("_deadline",)

    def __init__(self, deadline: float | None):
        self._deadline = deadline

    def abort(self, code: grpc.StatusCode, details: str):
        raise _Aborted(code, details)

    def set_trailing_metadata(self, metadata) -> None:
        pass    # gRPC's; an HTTP answer says it with its status (503: retry)

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def is_active(self) -> bool:
        return True

    def code(self):
        return None


def error(code: grpc.StatusCode, message: str, http_status: int | None = None) -> Response:
    return JSONResponse({"code": code.value[0], "status": code.name, "message": message},
                        status_code=http_status or HTTP_STATUS.get(code, 500))


def parse_timeout(value: str) -> float:
    """gRPC's timeout header format (``2S``, ``500m``, ``1H``); ValueError otherwise."""
    m = _TIMEOUT.fullmatch(value.strip())
    if not m:
        raise ValueError(f"grpc-timeout {value!r} is not a timeout like 2S, 500m or 100u (at most 8 digits and a unit)")
    return int(m.group(1)) * _UNITS[m.group(2)]


def to_json(message) -> bytes:
    return json.dumps(json_format.MessageToDict(message, always_print_fields_with_no_presence=True),
                      separators=(",", ":")).encode()


class HttpApi:
    """The ASGI app over one servicer (the process's gRPC servicer)."""

    def __init__(self, servicer, tokens: list[str] = (), threads: int = 8, max_concurrent: int | None = 256,
                 plain_refusal: str | None = None):
        self.servicer = servicer
        self.tokens = [t.encode() for t in tokens if t]
        # a plain-HTTP port of a TLS service (--http-insecure): every call that needs a token is refused
        self.plain_refusal = plain_refusal if self.tokens else None
        self.max_concurrent = max_concurrent
        self._in_flight = 0
        self._log_budget = LogBudget()
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="http")
        self.plots = Plots()
        self.app = Starlette(routes=[
            Route("/healthz", self.healthz, methods=["GET", "HEAD"]),
            Route("/readyz", self.readyz, methods=["GET", "HEAD"]),
            Route("/openapi.json", self.openapi, methods=["GET", "HEAD"]),
            Route("/v1/{method}", self.rpc, methods=["POST"]),
            Route("/", self.page("play.html")), Route("/play", self.page("play.html")),
            Route("/ops", self.page("ops.html")),
            Route("/play/rules/dudo.json", self.dudo_rules),
            Route("/play/rules/hangman.json", self.hangman_rules),
            Route("/ops/facts.json", self.ops_json(lambda: store_facts(self.servicer.registry))),
            Route("/ops/plots.json", self.ops_json(lambda: self.plots.names(self.servicer.registry))),
            Route("/ops/metrics.json", self.ops_json(metric_totals)),
            Route("/ops/plot/{variant}/{name}.svg", self.plot),
            Mount("/static", StaticFiles(directory=WEB), name="static"),
        ], exception_handlers={HTTPException: http_error, Exception: internal_error})

    def close(self) -> None:
        self.closing = True
        self._pool.shutdown(wait=False, cancel_futures=True)

    closing = False

    async def healthz(self, request: Request) -> Response:
        """Liveness: the process answers HTTP (no token: load balancers and orchestrators probe it)."""
        return JSONResponse({"status": "SERVING"})

    async def readyz(self, request: Request) -> Response:
        """Readiness: 200 while stores are loaded and the process is not stopping, else 503 (no token). Both
        answers list the variants a build beside the server is still making (``building``), the store versions
        being verified (``verifying``: their content check has not ended; a variant without an older version
        served answers UNAVAILABLE meanwhile) and what is refused, with the reason (``refused``: store
        versions that failed their check, unreadable entries)."""
        registry = self.servicer.registry
        variants = registry.variants()
        building = [] if self.closing else await asyncio.get_running_loop().run_in_executor(self._pool, registry.building)
        building = [{k: -1.0 if v is None and k in NO_ESTIMATE else v for k, v in b.items()} for b in building]
        verifying = registry.verifying()
        refused = registry.refused()
        if variants and not self.closing:
            return JSONResponse({"status": "SERVING", "variants": len(variants), "building": building,
                                 "verifying": verifying, "refused": refused})
        if self.closing:
            why = "stopping"
        elif verifying:
            why = f"no store loaded yet: {len(verifying)} being verified, each comes online when its check passes"
        elif building:
            why = f"no store loaded yet: {len(building)} being built, the first comes online when published"
        elif refused:
            why = f"no store loaded: {len(refused)} refused"
        else:
            why = "no store loaded"
        return JSONResponse({"status": "NOT_SERVING", "message": why, "building": building, "verifying": verifying,
                             "refused": refused}, status_code=503)

    @staticmethod
    async def openapi(request: Request) -> Response:
        """The API's OpenAPI 3.1 document (no token: it is the public contract)."""
        return FileResponse(OPENAPI, media_type="application/json")

    @staticmethod
    def page(name: str):
        path = WEB / name

        async def endpoint(request: Request) -> Response:
            return FileResponse(path, media_type="text/html; charset=utf-8")

        return endpoint

    @staticmethod
    async def dudo_rules(request: Request) -> Response:
        """The claim order for every total of dice (games.dudo.rules), for the page's referee."""
        from games.dudo.rules import MAX_DICE, claim_table

        return JSONResponse({"max_dice": MAX_DICE, "claims": {
            str(t): [list(c) for c in claim_table(t)] for t in range(2, 2 * MAX_DICE + 1)}})

    @staticmethod
    async def hangman_rules(request: Request) -> Response:
        """The size of a player's diagram and its pieces (games.hangman.game), for the page's referee."""
        from games.hangman.game import DIAGRAM_PIECES, MAX_MISSES

        return JSONResponse({"max_misses": MAX_MISSES, "pieces": DIAGRAM_PIECES})

    def ops_json(self, fn):
        """A GET endpoint of the operations page: `fn()` as JSON, on the thread pool, behind the token."""

        async def endpoint(request: Request) -> Response:
            refused = self.refuse_credentials(request)
            if refused is not None:
                return error(*refused)
            out = await asyncio.get_running_loop().run_in_executor(self._pool, fn)
            return JSONResponse(out)

        return endpoint

    async def plot(self, request: Request) -> Response:
        refused = self.refuse_credentials(request)
        if refused is not None:
            return error(*refused)
        variant, name = request.path_params["variant"], request.path_params["name"]
        try:
            svg = await asyncio.get_running_loop().run_in_executor(
                self._pool, self.plots.svg, self.servicer.registry, variant, name)
        except KeyError:
            return error(grpc.StatusCode.NOT_FOUND, f"no plot {clip(name)!r} of variant {clip(variant)!r}")
        return Response(svg, media_type="image/svg+xml", headers={"cache-control": "private, max-age=60"})

    def refuse_credentials(self, request: Request) -> tuple[grpc.StatusCode, str] | None:
        """(code, message) when the call's credentials are refused; None when accepted (or none needed)."""
        if not self.tokens:
            return None
        if self.plain_refusal is not None:
            return grpc.StatusCode.UNAUTHENTICATED, self.plain_refusal
        return check_bearer(request.headers.get("authorization"), self.tokens)

    async def body(self, request: Request) -> bytes:
        """The body, at most MAX_MESSAGE_BYTES (past it: _Aborted RESOURCE_EXHAUSTED, as gRPC's transport)."""
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > MAX_MESSAGE_BYTES:
            raise _Aborted(grpc.StatusCode.RESOURCE_EXHAUSTED,
                           f"request body of {int(declared)} bytes is larger than max ({MAX_MESSAGE_BYTES} bytes)")
        chunks, n = [], 0
        async for chunk in request.stream():
            n += len(chunk)
            if n > MAX_MESSAGE_BYTES:
                raise _Aborted(grpc.StatusCode.RESOURCE_EXHAUSTED,
                               f"request body is larger than max ({MAX_MESSAGE_BYTES} bytes)")
            chunks.append(chunk)
        return b"".join(chunks)

    async def rpc(self, request: Request) -> Response:
        method = request.path_params["method"]
        label = method if method in UNARY or method in STREAMING else "unknown"  # metric labels: a fixed set
        t0 = time.perf_counter()
        refused = self.refuse_credentials(request)  # first: a caller without a token learns nothing more
        if refused is not None:
            code, message = refused
            metrics.AUTH_REFUSALS.labels(code=code.name).inc()
            metrics.observe(label, code, 0.0)
            held = self._log_budget.take()
            if held is not None:
                log.warning("refused HTTP call", extra={"fields": {"method": clip(method), "code": code.name,
                                                                   "refusals_not_logged": held}})
            return error(code, message)
        types = UNARY.get(method)
        if types is None:
            if method in STREAMING:
                return error(grpc.StatusCode.UNIMPLEMENTED,
                             f"{method} is a streaming RPC: use gRPC ({SERVICE_NAME}/{method}), or SampleMoves "
                             "for many moves in one HTTP call")
            return error(grpc.StatusCode.UNIMPLEMENTED,
                         f"unknown method {clip(method)!r}; POST /v1/<method> serves {', '.join(sorted(UNARY))}")
        if self.max_concurrent and self._in_flight >= self.max_concurrent:
            metrics.observe(method, grpc.StatusCode.RESOURCE_EXHAUSTED, 0.0)
            return error(grpc.StatusCode.RESOURCE_EXHAUSTED,
                         f"this server process already answers its maximum of {self.max_concurrent} concurrent calls")
        self._in_flight += 1
        try:
            code, out = await self._call(request, method, *types)
        finally:
            self._in_flight -= 1
        metrics.observe(method, code, time.perf_counter() - t0)
        if code is grpc.StatusCode.OK:
            return Response(out, media_type="application/json")
        return error(code, out, 413 if code is grpc.StatusCode.RESOURCE_EXHAUSTED else None)

    async def _call(self, request: Request, method: str, req_cls, reply_cls) -> tuple[grpc.StatusCode, bytes | str]:
        try:
            raw = await self.body(request)
            deadline = None
            timeout = request.headers.get("grpc-timeout")
            if timeout is not None:
                try:
                    deadline = time.monotonic() + parse_timeout(timeout)
                except ValueError as e:
                    raise _Aborted(grpc.StatusCode.INVALID_ARGUMENT, str(e)) from None
            try:
                body = json.loads(raw or b"{}")
                fault = (enum_fault(body, req_cls.DESCRIPTOR) if isinstance(body, dict)
                         else f"it is {_json_kind(body)}, not a JSON object")
            except (ValueError, RecursionError) as e:
                fault = f"it is not JSON: {_first_line(e)}"
            if fault is not None:
                raise _Aborted(grpc.StatusCode.INVALID_ARGUMENT,
                               f"the {len(raw)}-byte request body is not a valid {method} request "
                               f"(a JSON object of {req_cls.DESCRIPTOR.full_name}): {fault}")
            try:
                message = json_format.ParseDict(body, req_cls())
            except Exception as e:  # noqa: BLE001 - any body that is no JSON of this message
                raise _Aborted(grpc.StatusCode.INVALID_ARGUMENT,
                               f"the {len(raw)}-byte request body is not a valid {method} request "
                               f"(JSON of {req_cls.DESCRIPTOR.full_name}): {_first_line(e)}") from None
            handler = getattr(self.servicer, method)
            loop = asyncio.get_running_loop()
            reply = await loop.run_in_executor(self._pool, handler, message, HttpCallContext(deadline))
            if reply.__class__ is bytes:  # a reply the backend answered before, already encoded
                reply = reply_cls.FromString(reply)
            return grpc.StatusCode.OK, to_json(reply)
        except _Aborted as e:
            return e.code, e.message
        except Exception:  # noqa: BLE001 - a fault of ours: logged, answered as gRPC would (UNKNOWN)
            log.exception("HTTP call failed", extra={"fields": {"method": method}})
            return grpc.StatusCode.UNKNOWN, f"{method} failed on the server (logged)"


def _json_kind(value) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array"}.get(
        type(value), f"a {type(value).__name__}")


_HTTP_TO_GRPC = {400: grpc.StatusCode.INVALID_ARGUMENT, 401: grpc.StatusCode.UNAUTHENTICATED,
                 403: grpc.StatusCode.PERMISSION_DENIED, 404: grpc.StatusCode.NOT_FOUND,
                 405: grpc.StatusCode.UNIMPLEMENTED, 413: grpc.StatusCode.RESOURCE_EXHAUSTED,
                 429: grpc.StatusCode.RESOURCE_EXHAUSTED, 503: grpc.StatusCode.UNAVAILABLE}


async def http_error(request: Request, exc: HTTPException) -> Response:
    """Starlette's own refusals (no such path, a method the path does not take) in the documented shape."""
    code = _HTTP_TO_GRPC.get(exc.status_code, grpc.StatusCode.UNKNOWN)
    path = request.url.path
    if exc.status_code == 404:
        message = (f"no such path {clip(path)!r}: POST /v1/<method> for the API (described at /openapi.json), / for the "
                   "play page, /ops, /healthz, /readyz")
    elif exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        message = f"{request.method} is not allowed on {clip(path)} (allowed: {allowed or 'none'})"
    else:
        message = str(exc.detail)
    response = error(code, message, exc.status_code)
    for k, v in (exc.headers or {}).items():
        response.headers[k] = v
    return response


async def internal_error(request: Request, exc: Exception) -> Response:
    log.error("HTTP request failed", exc_info=exc, extra={"fields": {"path": request.url.path}})
    return error(grpc.StatusCode.UNKNOWN, f"{request.method} {request.url.path} failed on the server (logged)")


def _first_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:300]
