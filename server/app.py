"""The gRPC service: SampleMove, GetStats, ListVariants over the published stores."""
from __future__ import annotations

import logging
import threading
import time
from concurrent import futures
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from games.storage import Store, StoreError, current_stores
from protos import gamestrategy_pb2 as pb
from protos import gamestrategy_pb2_grpc as pb_grpc
from server.jotto_backend import BadRequest, DeadlineExceeded, JottoBackend

log = logging.getLogger("gamestrategy.server")
SERVICE_NAME = pb.DESCRIPTOR.services_by_name["GameStrategy"].full_name
MAX_REQUEST_BYTES = 64 * 1024  # larger requests get INVALID_ARGUMENT naming their size
MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # transport limit (RESOURCE_EXHAUSTED past it)
SOURCES = {"book": pb.SampleMoveReply.BOOK, "live": pb.SampleMoveReply.LIVE}


def load_backends(root: Path) -> dict[str, JottoBackend]:
    """Open every published Jotto store; a store that cannot be served is logged and skipped."""
    backends = {}
    for variant, path in current_stores(root, "jotto").items():
        try:
            b = JottoBackend(Store(path))
        except Exception as e:  # noqa: BLE001 - any store that cannot be served is refused, not fatal
            log.error("refusing store %s: %s", path, e)
            continue
        backends[b.variant] = b
        log.info("serving %s from store %s", b.variant, b.version)
    return backends


class GameStrategyServicer(pb_grpc.GameStrategyServicer):
    def __init__(self, backends: dict[str, JottoBackend]):
        self.backends = backends

    def _backend(self, variant: str) -> JottoBackend:
        b = self.backends.get(variant)
        if b is None:
            known = ", ".join(sorted(self.backends)) or "none"
            raise BadRequest(f"unknown variant {variant!r} (served: {known})")
        return b

    def ListVariants(self, request, context):
        out = pb.ListVariantsReply()
        if request.game not in ("", "jotto"):
            return out
        for name, b in sorted(self.backends.items()):
            v = out.variants.add(game="jotto", variant=name, words=b.oracle.D, word_length=b.dictionary.length,
                                 store_version=b.version, dictionary_sha256=b.dictionary.sha256)
            for sname, info in sorted(b.manifest["strategies"].items()):
                v.strategies.add(name=sname, description=info.get("description", ""),
                                 members=int(info["members"]), served_default=sname == b.served)
        return out

    def SampleMove(self, request, context):
        try:
            size = request.ByteSize()
            if size > MAX_REQUEST_BYTES:
                raise BadRequest(f"request is {size} bytes; at most {MAX_REQUEST_BYTES}")
            if not request.variant:
                raise BadRequest("request names no variant")
            b = self._backend(request.variant)
            if request.WhichOneof("state") != "jotto":
                raise BadRequest("request has no game state: set `jotto`")
            st = request.jotto
            remaining = context.time_remaining()
            deadline = None if remaining is None else time.monotonic() + remaining
            if st.role == pb.JottoState.HIDER:
                if len(st.history):
                    raise BadRequest("the hider role takes no history")
                r = b.sample_hider(request.strategy, request.game_seed, request.want_distribution)
            elif st.role == pb.JottoState.GUESSER:
                r = b.sample_guesser(request.strategy, request.game_seed, st.history, request.want_distribution, deadline)
            else:
                raise BadRequest("jotto.role must be HIDER or GUESSER")
        except BadRequest as e:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        except DeadlineExceeded as e:
            context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, str(e))
        reply = pb.SampleMoveReply(
            move=r.move, probability=r.probability, source=SOURCES[r.source], store_version=b.version,
            strategy=r.strategy, member=r.member, consistent_words=r.consistent_words, history_on_policy=r.on_policy)
        for m, p in r.distribution:
            reply.distribution.add(move=m, probability=p)
        return reply

    def GetStats(self, request, context):
        if request.variant:
            try:
                items = [(request.variant, self._backend(request.variant))]
            except BadRequest as e:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        else:
            items = sorted(self.backends.items())
        out = pb.GetStatsReply()
        for name, b in items:
            m = b.manifest
            v = out.variants.add(variant=name, store_version=b.version, served_strategy=b.served, words=b.oracle.D,
                                 dictionary_sha256=b.dictionary.sha256, code_version=m["code_version"],
                                 build_time=m["build_time"])
            for sname, info in sorted(m["strategies"].items()):
                s = v.strategies.add(strategy=sname, description=info.get("description", ""))
                for k, val in info["figures"].items():
                    s.figures[k] = float(val)
                for k in ("iterations", "t_star", "seconds_per_iteration", "members", "book_entries", "columns"):
                    if k in info:
                        s.figures[k] = float(info[k])
                if "first_test_word" in info:
                    s.labels["first_test_word"] = info["first_test_word"]
                s.labels["served"] = "yes" if sname == b.served else "no"
        return out


def build_server(backends: dict[str, JottoBackend], address: str, max_workers: int = 8,
                 max_concurrent_rpcs: int | None = 256) -> tuple[grpc.Server, int]:
    options = [
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.so_reuseport", 0),
    ]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=max_workers), options=options,
                         maximum_concurrent_rpcs=max_concurrent_rpcs)
    pb_grpc.add_GameStrategyServicer_to_server(GameStrategyServicer(backends), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    port = server.add_insecure_port(address)
    if port == 0:
        raise RuntimeError(f"cannot bind {address}")
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, port


def warm(backends: dict[str, JottoBackend]) -> None:
    for b in backends.values():
        b.warm()


def serve_forever(server: grpc.Server, stop: threading.Event, grace: float = 5.0) -> None:
    server.start()
    stop.wait()
    server.stop(grace).wait()
