"""The server's settings: limits, thread and stream counts, bearer tokens, TLS."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import grpc

MAX_REQUEST_BYTES = 64 * 1024  # larger SampleMove requests get INVALID_ARGUMENT naming their size
MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # transport limit (RESOURCE_EXHAUSTED past it)
MAX_BATCH = 1024  # SampleMoves: requests per call
MAX_STREAMS = 4  # SampleMoveStream: open streams per server process (each holds a handler thread)
HTTP_PORT = 8080  # the HTTP/JSON API and the web pages (server.http_api)


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
