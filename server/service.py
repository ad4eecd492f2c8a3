"""The GameStrategy service: SampleMove, SampleMoves, SampleMoveStream, GetWords, GetStats and
ListVariants over the backends a :class:`Registry` holds."""
from __future__ import annotations

import threading
import time

import grpc

from games.dudo.serving import move_scoring as dudo_review
from games.jotto import guess_scoring as jotto_review
from protos import gamestrategy_pb2 as pb
from protos import gamestrategy_pb2_grpc as pb_grpc
from server import metrics
from server.backends import Backend, BadRequest, DeadlineExceeded, NotServed
from server.live import LiveCall, LiveError, LivePool, Refused, Stopped
from server.registry import Registry
from server.settings import MAX_BATCH, MAX_REQUEST_BYTES, MAX_STREAMS

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["GameStrategy"].full_name
# how long AnalyzeGame waits for the live pool when the caller sets no deadline (the CLI's and page's wait)
REVIEW_DEFAULT_SECONDS = 120.0
REVIEW_THRESHOLDS = {"dudo": dudo_review.THRESHOLDS, "jotto": jotto_review.THRESHOLDS}
SOURCES = {"book": pb.SampleMoveReply.BOOK, "live": pb.SampleMoveReply.LIVE, "degraded": pb.SampleMoveReply.DEGRADED}


class _Abort(Exception):
    def __init__(self, code: grpc.StatusCode, message: str, retry: str = "building"):
        super().__init__(message)
        self.code, self.message, self.retry = code, message, retry


def _sample(registry: Registry, request: pb.SampleMoveRequest, live: LiveCall,
            size: int | None = None, reply: pb.SampleMoveReply | None = None) -> pb.SampleMoveReply | bytes:
    """One move, written into `reply` and returned; _Abort with the status. Without `reply`: a new
    SampleMoveReply, or its encoding (bytes) when the backend answered with a result it answered before.

    `live`: the call's deadline and its access to the live pool. `size`: the request's encoded size when
    the caller has it (else measured here)."""
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
            r = b.sample(request, live.deadline, live)  # BadRequest naming the field when the state is missing
            registry.check_served(h)  # no answer read from a file that changed since it was verified
        finally:
            registry._release(h)  # noqa: SLF001
    except BadRequest as e:
        raise _Abort(grpc.StatusCode.INVALID_ARGUMENT, str(e)) from None
    except NotServed as e:
        raise _Abort(grpc.StatusCode[e.status], str(e), e.retry) from None
    except DeadlineExceeded as e:
        raise _Abort(grpc.StatusCode.DEADLINE_EXCEEDED, str(e)) from None
    except (Refused, Stopped) as e:  # live work refused at once, or stopped (deadline, caller gone, memory)
        raise _Abort(grpc.StatusCode[e.status], str(e)) from None
    except LiveError as e:
        raise _Abort(grpc.StatusCode.INTERNAL, str(e)) from None
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


def _building(out, registry: Registry, keep=lambda p: True) -> None:
    """Fill a reply's ``building`` with what the build beside the server is still making."""
    for p in registry.building():
        if keep(p):
            out.building.add(game=p["game"], variant=p["variant"], state=p["state"],
                             fraction=-1.0 if p["fraction"] is None else p["fraction"],
                             eta_seconds=-1.0 if p["eta_seconds"] is None else p["eta_seconds"])


# trailing metadata of an UNAVAILABLE the service itself answers, a client tells it from a connection that failed
# (which gRPC reports with the same code); its value says why: "building" (the variant is being built) or "store"
# (its store is being verified again, or a good version is awaited)
RETRY_KEY = "gamestrategy-retry"


def _abort_not_served(context, e: NotServed):
    code = grpc.StatusCode[e.status]
    if code is grpc.StatusCode.UNAVAILABLE:
        context.set_trailing_metadata(((RETRY_KEY, e.retry),))
    context.abort(code, str(e))


NO_DEADLINE_SECONDS = 10 * 365 * 86400  # gRPC reports "no deadline" as an effectively infinite time remaining


def _deadline(context) -> float | None:
    """The caller's deadline on the monotonic clock; None when the call has none."""
    remaining = context.time_remaining()
    if remaining is None or remaining > NO_DEADLINE_SECONDS:
        return None
    return time.monotonic() + remaining


class GameStrategyServicer(pb_grpc.GameStrategyServicer):
    def __init__(self, registry: Registry, max_batch: int = MAX_BATCH, max_streams: int = MAX_STREAMS,
                 live_pool: LivePool | None = None):
        self.registry = registry
        self.live_pool = live_pool
        self.max_batch = max_batch
        self.max_streams = max_streams
        self._streams = threading.BoundedSemaphore(max_streams)

    @property
    def backends(self) -> dict[str, Backend]:
        return self.registry.backends

    def ListVariants(self, request, context):
        out = pb.ListVariantsReply()
        with self.registry.acquire_all() as items:
            for name, b in items:
                if request.game in ("", b.game):
                    b.variant_info(out.variants.add(game=b.game, variant=name, store_version=b.version))
        _building(out, self.registry, lambda p: request.game in ("", p["game"]))
        return out

    def SampleMove(self, request, context):
        """The reply, or its encoding (bytes) when cached: MetricsInterceptor's serializer passes bytes on."""
        try:
            return _sample(self.registry, request, LiveCall(self.live_pool, _deadline(context), context.is_active))
        except _Abort as e:
            if e.code is grpc.StatusCode.UNAVAILABLE:
                context.set_trailing_metadata(((RETRY_KEY, e.retry),))
            context.abort(e.code, e.message)

    def SampleMoves(self, request, context):
        n = len(request.requests)
        if n > self.max_batch:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"batch has {n} requests; at most {self.max_batch}")
        deadline = _deadline(context)
        if deadline is None and self.live_pool is not None:  # one wait for the whole batch, not one a request
            deadline = time.monotonic() + self.live_pool.default_seconds
        live = LiveCall(self.live_pool, deadline, context.is_active)
        out = pb.SampleMovesReply()
        for req in request.requests:
            res = out.results.add()
            try:
                _sample(self.registry, req, live, reply=res.reply)
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
            live = LiveCall(self.live_pool, _deadline(context), context.is_active)
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
                    _sample(registry, item, live, size, res.reply)
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
                    raise BadRequest(f"{request.variant} is a {b.game} variant; GetWords serves Jotto and Hangman "
                                     f"variants")
                out = pb.GetWordsReply(variant=request.variant, store_version=b.version)
                b.get_words(out)
                return out
        except BadRequest as e:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        except NotServed as e:
            _abort_not_served(context, e)

    def AnalyzeGame(self, request, context):
        """A finished game reviewed move by move (docs/review.md); the review runs in the live pool."""
        try:
            if not request.variant:
                raise BadRequest("request names no variant")
            deadline = _deadline(context)
            if deadline is None and self.live_pool is not None:  # a whole game's review: not a move's wait
                deadline = time.monotonic() + max(self.live_pool.default_seconds, REVIEW_DEFAULT_SECONDS)
            live = LiveCall(self.live_pool, deadline, context.is_active)
            with self.registry.acquire(request.variant) as b:
                if not hasattr(b, "analyze"):
                    raise BadRequest(f"{request.variant} is a {b.game} variant; AnalyzeGame reviews Dudo and Jotto games")
                out = b.analyze(request, live)
                version = b.version
                game = b.game
                thresholds = REVIEW_THRESHOLDS[game]
        except BadRequest as e:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        except NotServed as e:
            _abort_not_served(context, e)
        except (Refused, Stopped) as e:
            context.abort(grpc.StatusCode[e.status], str(e))
        except LiveError as e:
            context.abort(grpc.StatusCode.INTERNAL, str(e))
        reply = pb.AnalyzeGameReply(variant=request.variant, store_version=version,
                                    strategy=out["strategy"] if game == "dudo" else request.strategy or b.served,
                                    unit="win probability" if game == "dudo" else "guesses",
                                    accuracy=out["accuracy"], costliest=out["costliest"],
                                    round_start=out.get("rounds", []))
        reply.thresholds.update({k: v for k, v in thresholds})
        for m in out["moves"]:
            r = reply.moves.add(move=m["move"], best_move=m["best_move"], value=m["value"], best_value=m["best_value"],
                                loss=m["loss"], label=m["label"], index=m["index"])
            if game == "dudo":
                r.round, r.probability, r.before, r.after = m["round"], m["probability"], m["before"], m["after"]
                r.continuation = "on-support" if m["on_support"] else "prior"
                r.policy = m["policy"]
                r.alternatives.extend(pb.MoveValue(move=a, value=v, probability=p) for a, v, p in m["alternatives"])
            else:
                r.before, r.after = m["words_before"], m["words_after"]
                r.value_uniform, r.best_value_uniform = m["value_uniform"], m["best_value_uniform"]
                r.continuation = m["continuation"]
                r.alternatives.extend(pb.MoveValue(move=a, value=v) for a, v in m["alternatives"])
        return reply

    def GetStats(self, request, context):
        out = pb.GetStatsReply()
        if request.variant:
            try:
                with self.registry.acquire(request.variant) as b:
                    self._stats(out, request.variant, b)
            except BadRequest as e:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
            except NotServed as e:
                _abort_not_served(context, e)
            return out
        with self.registry.acquire_all() as items:
            for name, b in items:
                self._stats(out, name, b)
        _building(out, self.registry)
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
