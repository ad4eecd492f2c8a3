"""The server's settings: limits, thread and stream counts, live work, bearer tokens, TLS."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import grpc

from server import live
from server.connections import ConnectionLimits

MAX_REQUEST_BYTES = 64 * 1024  # larger SampleMove requests get INVALID_ARGUMENT naming their size
MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # transport limit (RESOURCE_EXHAUSTED past it)
MAX_BATCH = 1024  # SampleMoves: requests per call
MAX_STREAMS = 4  # SampleMoveStream: open streams per server process (each holds a handler thread)
GRPC_IDLE_SECONDS = 300.0  # a gRPC connection without calls this long gets GOAWAY (clients reconnect at need)
HTTP_PORT = 8080  # the HTTP/JSON API and the web pages (server.http_api)


@dataclass
class TLSConfig:
    """One TLS setting for every listener (gRPC, HTTP, metrics): the same certificate, and with a client CA
    the same demand for client certificates."""
    cert: bytes
    key: bytes
    client_ca: bytes | None = None  # mutual TLS: clients must present a certificate signed by it
    cert_path: Path | None = None  # the files (the HTTP listeners load them by path)
    key_path: Path | None = None
    client_ca_path: Path | None = None

    @classmethod
    def from_files(cls, cert: Path, key: Path, client_ca: Path | None = None) -> "TLSConfig":
        return cls(Path(cert).read_bytes(), Path(key).read_bytes(), Path(client_ca).read_bytes() if client_ca else None,
                   Path(cert), Path(key), Path(client_ca) if client_ca else None)

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
    # live work (server.live): computations at once per server process, the wait of a call without a
    # deadline, the caps on one computation's estimate, the results kept, the estimates' calibration
    live_slots: int = live.DEFAULT_SLOTS
    live_seconds: float = live.DEFAULT_SECONDS
    live_max_seconds: float = live.MAX_SECONDS
    live_max_mb: int = live.MAX_BYTES >> 20
    live_cache_mb: int = live.CACHE_BYTES >> 20
    live_estimate_scale: float = 1.0
    live_margin: float = live.DEFAULT_MARGIN
    # connections (server.connections): the handshake (TLS and HTTP/2 preface) within header_timeout,
    # idle connections (no call in flight) closed after grpc_idle_timeout, at most max_connections open
    connections: ConnectionLimits = field(default_factory=ConnectionLimits)
    grpc_idle_timeout: float = GRPC_IDLE_SECONDS

    def grpc_options(self) -> list[tuple[str, int]]:
        """gRPC core's own connection hygiene: handshake deadline, idle close, connection cap, keepalive."""
        return [
            ("grpc.server_handshake_timeout_ms", int(self.connections.header_timeout * 1000)),
            ("grpc.max_connection_idle_ms", int(self.grpc_idle_timeout * 1000)),
            ("grpc.max_allowed_incoming_connections", self.connections.max_connections),
            ("grpc.keepalive_time_ms", 60_000),  # ping a connection silent for a minute ...
            ("grpc.keepalive_timeout_ms", 10_000),  # ... and close it if the ping is not answered in 10 s
            ("grpc.http2.max_pings_without_data", 0),
        ]

    def live_pool(self, preload: tuple[str, ...] = ()) -> live.LivePool:
        return live.LivePool(slots=self.live_slots, default_seconds=self.live_seconds,
                             max_seconds=self.live_max_seconds, max_bytes=self.live_max_mb << 20, preload=preload,
                             estimate_scale=self.live_estimate_scale, cache_bytes=self.live_cache_mb << 20,
                             margin=self.live_margin)
