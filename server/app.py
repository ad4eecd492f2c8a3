"""``build_server``: the gRPC server assembled from a :class:`Registry`, the service, its interceptors,
health checking, reflection and its live pool (``server.__main__`` runs it)."""
from __future__ import annotations

from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from protos import gamestrategy_pb2_grpc as pb_grpc
from server import metrics
from server.backends import BACKENDS
from server.interceptors import MetricsInterceptor, TokenInterceptor
from server.registry import Registry
from server.service import SERVICE_NAME, GameStrategyServicer
from server.settings import MAX_MESSAGE_BYTES, ServerSettings


def build_server(registry: Registry, address: str, settings: ServerSettings | None = None) -> tuple[grpc.Server, int]:
    """The server (not started) and the port it bound."""
    s = settings or ServerSettings()
    options = [
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.so_reuseport", 1 if s.reuseport else 0),
        *s.grpc_options(),
    ]
    interceptors = [MetricsInterceptor()]
    if s.tokens:  # outermost: refusals never reach the handlers (they are counted by _refusal)
        interceptors.insert(0, TokenInterceptor(s.tokens))
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=s.threads), options=options,
                         maximum_concurrent_rpcs=s.max_concurrent_rpcs, interceptors=interceptors)
    # live work runs in this server's pool of worker processes; their forkserver imports the live modules
    pool = s.live_pool(tuple(sorted({m for cls in BACKENDS.values() for m in getattr(cls, "live_modules", ())})))
    servicer = GameStrategyServicer(registry, s.max_batch, s.max_streams or max(1, s.threads // 2), pool)
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
    server.live_pool = pool  # close() it after stopping the server
    return server, port
