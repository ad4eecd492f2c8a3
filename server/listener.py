"""``HttpServer``: uvicorn serving an ASGI app on its own thread and event loop, on a socket bound here,
with the connection guard (server.connections) and, when given, TLS."""
from __future__ import annotations

import socket
import threading
import time

from server.connections import ConnectionLimits, GuardedServer, uvicorn_config

BACKLOG = 4096  # connections the kernel queues before accept (capped by net.core.somaxconn): a burst of
# new connections waits there, not in SYN retransmissions (a second each)


class HttpServer:
    """Uvicorn serving an ASGI app on its own thread and event loop, on a socket bound here
    (SO_REUSEPORT with worker processes, so that they share the port as they share gRPC's).

    `limits`: timeouts and the connection cap (server.connections); `tls`: a server.settings.TLSConfig
    (HTTPS with its certificate; with a client CA, client certificates are required); `listener`: the
    name its closed connections are counted under."""

    def __init__(self, app, host: str, port: int, reuseport: bool = False, limits: ConnectionLimits | None = None,
                 tls=None, listener: str = "http"):
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(fam, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuseport:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        # accepted connections inherit it: without, a reply written in two parts waits for the client's
        # delayed ACK (40 ms a call)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.bind((host, port))
        self.sock.listen(BACKLOG)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.limits = limits or ConnectionLimits()
        self.tls = tls
        # uvloop and httptools: about 40% less server CPU a call than asyncio and h11 (book hits, measured)
        config = uvicorn_config(app, self.limits, tls=tls, timeout_graceful_shutdown=5, backlog=BACKLOG)
        self.server = GuardedServer(config, self.limits, listener)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, name=listener,
                                       daemon=True)

    @property
    def scheme(self) -> str:
        return "https" if self.tls is not None else "http"

    def start(self) -> "HttpServer":
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started and self.thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not self.server.started:
            raise RuntimeError("the HTTP server did not start")
        return self

    def stop(self, grace: float = 5.0) -> None:
        self.server.config.timeout_graceful_shutdown = max(grace, 0.1)
        self.server.should_exit = True
        self.thread.join(grace + 5)
        self.sock.close()
