"""Connection hygiene for the HTTP listeners (the HTTP/JSON API and /metrics) and the fd budget of a process.

uvicorn offers an idle keep-alive timeout (``timeout_keep_alive``, armed after a response) and a 503 past
``limit_concurrency`` (sent only once a request head has arrived, so a connection that sends nothing keeps
its descriptor for ever). It has no timeout on reading a request's head or body and no cap that frees
descriptors. :class:`GuardedHttpToolsProtocol` adds those to uvicorn's own protocol class, through the
``http=`` class hook of its Config:

* a request head must arrive within ``header_timeout`` of the connection (or of a keep-alive request's
  first byte), and be at most ``max_head_bytes``; its body within ``body_timeout`` of the head;
* at most ``max_connections`` connections per listener and process: past it the oldest connection that
  is not being answered (waiting for or reading a head, or idle between requests) is closed, so that a
  flood of silent connections evicts itself and a client that sends its request at once gets in;
  with every connection busy, the new one is closed;
* every close is counted in ``gamestrategy_connections_closed_total{listener, reason}``.

A TLS handshake happens before uvicorn sees the connection; :class:`GuardedServer` bounds it with
``header_timeout`` (asyncio's default is 60 s).
"""
from __future__ import annotations

import asyncio
import json
import logging
import resource
from dataclasses import dataclass

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("gamestrategy.connections")

FD_RESERVE = 256  # descriptors kept for everything but client connections: stores, live workers, pipes, logs


@dataclass(frozen=True)
class ConnectionLimits:
    header_timeout: float = 5.0  # connect (or a request's first byte) -> end of its head; also the TLS handshake
    body_timeout: float = 10.0  # end of the head -> end of the body
    idle_timeout: float = 5.0  # keep-alive: end of a response -> first byte of the next request
    max_connections: int = 1024  # per listener and process
    max_head_bytes: int = 64 * 1024  # a larger request head gets 431 and the connection is closed


def raise_fd_limit() -> tuple[int, int]:
    """Raise this process's soft limit on open descriptors to its hard limit; (soft, hard) after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft, hard


def default_max_connections(fd_soft: int, listeners: int = 2) -> int:
    """The connection cap of one listener: the descriptors past FD_RESERVE shared by `listeners` (HTTP and
    gRPC), at least 64 and at most 10,000."""
    return max(64, min(10_000, (fd_soft - FD_RESERVE) // max(1, listeners)))


class ConnectionGuard:
    """The open connections of one listener in one process, oldest first (used on its event loop only)."""

    def __init__(self, limits: ConnectionLimits, listener: str):
        self.limits, self.listener = limits, listener
        self.open: dict[GuardedHttpToolsProtocol, None] = {}
        self._closed = {}

    def closed(self, reason: str) -> None:
        c = self._closed.get(reason)
        if c is None:
            from server import metrics  # not at import: server.__main__ sets the multi-process mode first

            c = self._closed[reason] = metrics.CONNECTIONS_CLOSED.labels(listener=self.listener, reason=reason)
        c.inc()

    def admit(self, proto: "GuardedHttpToolsProtocol") -> bool:
        """Add a new connection; past the cap close the oldest idle one (or refuse this one: False)."""
        self.open[proto] = None
        if len(self.open) <= self.limits.max_connections:
            return True
        for old in self.open:
            if old is not proto and old.evictable():
                old.close_for("evicted")
                return True
        proto.close_for("refused")
        return False

    def discard(self, proto: "GuardedHttpToolsProtocol") -> None:
        self.open.pop(proto, None)


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with head and body timeouts, a head-size cap and the listener's cap
    (the guard is ``server_state.guard``, set by :class:`GuardedServer`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.guard: ConnectionGuard = self.server_state.guard
        self._phase = "head"  # head (waiting for or reading one), body, busy (being answered), idle (keep-alive)
        self._timer: asyncio.TimerHandle | None = None
        self._head_bytes = 0
        self._tail = b""  # the last bytes seen, for a blank line split between two reads

    # -- the guard's view
    def evictable(self) -> bool:
        return self._phase in ("head", "idle")

    def close_for(self, reason: str) -> None:
        self._cancel()
        self.guard.discard(self)  # no longer counted against the cap, although the loop closes it a bit later
        if self.transport is not None and not self.transport.is_closing():
            self.guard.closed(reason)
            self.transport.close()

    def _arm(self, seconds: float, reason: str) -> None:
        self._cancel()
        self._timer = self.loop.call_later(seconds, self.close_for, reason)

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # -- asyncio and httptools callbacks
    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        if self.guard.admit(self):
            self._arm(self.guard.limits.header_timeout, "header_timeout")

    def connection_lost(self, exc) -> None:
        self._cancel()
        self.guard.discard(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._phase in ("head", "idle"):  # count the head's bytes only, up to its blank line
            seen = self._tail + data
            end = seen.find(b"\r\n\r\n")
            self._head_bytes += len(data) if end < 0 else max(0, end + 4 - len(self._tail))
            self._tail = seen[-3:]
            if self._head_bytes > self.guard.limits.max_head_bytes:
                self._cancel()
                self.guard.closed("head_too_large")
                self._phase = "busy"
                self.send_431()
                return
        super().data_received(data)

    def send_431(self) -> None:
        self._send_error(b"431 Request Header Fields Too Large", 8, "RESOURCE_EXHAUSTED",
                         f"request head larger than {self.guard.limits.max_head_bytes} bytes")

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to bytes that are no HTTP request, in the API's JSON error shape."""
        self._send_error(b"400 Bad Request", 3, "INVALID_ARGUMENT", f"{msg} (not an HTTP/1.1 request)")

    def _send_error(self, status: bytes, code: int, name: str, message: str) -> None:
        body = json.dumps({"code": code, "status": name, "message": message}).encode()
        self.transport.write(b"HTTP/1.1 %s\r\ncontent-type: application/json\r\nconnection: close\r\n"
                             b"content-length: %d\r\n\r\n%s" % (status, len(body), body))
        self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._phase == "idle":  # a keep-alive request's first byte: its head has header_timeout from now
            self._phase = "head"
            self._arm(self.guard.limits.header_timeout, "header_timeout")

    def on_headers_complete(self) -> None:
        self._phase = "body"
        self._arm(self.guard.limits.body_timeout, "body_timeout")
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._phase = "busy"
        self._cancel()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # arms uvicorn's keep-alive timeout (idle_timeout)
        if self._phase == "busy" and not self.transport.is_closing():
            self._phase = "idle"
            self._head_bytes, self._tail = 0, b""

    def timeout_keep_alive_handler(self) -> None:
        if not self.transport.is_closing():
            self.guard.closed("idle_timeout")
        super().timeout_keep_alive_handler()


class GuardedServer(uvicorn.Server):
    """A uvicorn server on sockets bound by the caller, with the guard's protocol and the TLS handshake
    bounded by ``header_timeout``."""

    def __init__(self, config: uvicorn.Config, limits: ConnectionLimits, listener: str):
        super().__init__(config)
        self.server_state.guard = ConnectionGuard(limits, listener)

    async def startup(self, sockets=None) -> None:
        await self.lifespan.startup()
        config = self.config
        limits = self.server_state.guard.limits

        def create_protocol(_loop=None):
            return config.http_protocol_class(config=config, server_state=self.server_state,
                                              app_state=self.lifespan.state, _loop=_loop)

        loop = asyncio.get_running_loop()
        tls = {"ssl": config.ssl, "ssl_handshake_timeout": limits.header_timeout} if config.ssl else {}
        self.servers = [await loop.create_server(create_protocol, sock=s, backlog=config.backlog, **tls)
                        for s in sockets]
        self.started = True


def uvicorn_config(app, limits: ConnectionLimits, tls=None, **kwargs) -> uvicorn.Config:
    """uvicorn's Config for a guarded listener: the guarded protocol, uvloop, the idle timeout, and TLS
    (`tls`: a server.settings.TLSConfig with file paths) when given."""
    ssl = {}
    if tls is not None:
        import ssl as _ssl

        ssl = {"ssl_certfile": str(tls.cert_path), "ssl_keyfile": str(tls.key_path)}
        if tls.client_ca_path:
            ssl.update(ssl_ca_certs=str(tls.client_ca_path), ssl_cert_reqs=_ssl.CERT_REQUIRED)
    return uvicorn.Config(app, log_config=None, access_log=False, lifespan="off", loop="uvloop",
                          http=GuardedHttpToolsProtocol, timeout_keep_alive=limits.idle_timeout, **ssl, **kwargs)
