"""One server process: open the stores, serve gRPC and HTTP, refresh the stores, stop on a signal
(``run_worker``; ``server.__main__`` runs one, or forks several that share the ports)."""
from __future__ import annotations

import logging
import signal
import threading
import time

SIGNAL_POLL_SECONDS = 0.1  # how often the main thread acts on the signals its handlers recorded

log = logging.getLogger("gamestrategy.server")


def run_worker(args, port: int, tokens: list[str], reuseport: bool, worker: int, ready=None,
               http_port: int | None = None) -> int:
    """One server process: open the stores, serve gRPC (and HTTP on `http_port`), refresh on SIGHUP and by
    polling, stop on SIGTERM. `ready(grpc_port, http_port)` once listening."""
    from server.app import build_server

    received = record_signals()
    started = time.monotonic()
    registry, start_checks = open_registry(args.root)
    if any(sig != signal.SIGHUP for sig in received):  # stopped while opening the stores: never listen
        registry.close()
        log.info("stopped before listening", extra={"fields": {"worker": worker}})
        return 0
    try:
        server, bound = build_server(registry, f"{args.host}:{port}", settings=server_settings(args, tokens, reuseport))
        http = http_listener(args, server, tokens, http_port, reuseport)
    except RuntimeError as e:  # build_server's "cannot bind", or a StartupError
        registry.close()
        log.error("%s", e, extra={"fields": getattr(e, "fields", {})})
        return 1
    stop, wake = threading.Event(), threading.Event()
    readiness = Readiness(server, registry, worker, stop)
    registry.on_change = wake.set  # a served file seen changed is checked again at once
    registry.on_checked = lambda: (readiness.update(), start_live_pool(server, registry))
    readiness.update()  # a check that ended before on_checked was set
    start_refresh(registry, readiness, args.refresh_seconds, stop, wake)
    if not registry.variants() and not registry.verifying() and worker == 0:
        threading.Thread(target=warm_for_build, args=(registry, log, stop), name="kernel-warm", daemon=True).start()
    start_listening(server, http, registry)
    log.info("listening", extra={"fields": {
        "address": f"{args.host}:{bound}", "worker": worker,
        "http": f"{http.scheme}://{args.http_host}:{http.port}/" if http else None, "variants": registry.variants(),
        "verifying": [v["variant"] for v in registry.verifying()],
        "tls": args.tls is not None, "mutual_tls": bool(args.tls and args.tls.client_ca),
        "token_required": bool(tokens), "threads": args.threads, "max_concurrent_rpcs": args.max_concurrent_rpcs}})
    threading.Thread(target=report_start_checks, args=(registry, start_checks, worker, started, ready, bound, http),
                     name="start-checks", daemon=True).start()
    wait_for_stop(received, stop, wake)
    shut_down(server, http, registry, args.grace, worker, wake, drain=args.drain_seconds)
    return 0


def report_start_checks(registry, checks, worker: int, started: float, ready, grpc_port: int, http) -> None:
    """Once the checks of the stores present at start-up have ended (each served, refused, or unfinished and
    left to the next refresh): log what they did and call `ready(grpc_port, http_port)` (the --port-file)."""
    outcomes = registry.wait_for(checks)
    by_outcome: dict[str, list[str]] = {}
    for variant, outcome in sorted(outcomes.items()):
        by_outcome.setdefault(outcome, []).append(variant)
    log.info("stores checked at start-up", extra={"fields": {
        "worker": worker, "seconds": round(time.monotonic() - started, 3), **by_outcome}})
    if ready is not None:
        ready(grpc_port, http.port if http else None)


class StartupError(RuntimeError):
    """A listener that cannot start; `fields` go to the log line."""

    def __init__(self, message: str, **fields):
        super().__init__(message)
        self.fields = fields


def record_signals() -> list[int]:
    """SIGINT, SIGTERM and SIGHUP appended to the returned list, which the main thread acts on.

    A handler runs in the main thread between two bytecodes, possibly inside ``stop.wait`` while it holds
    the Event's lock: ``stop.set()`` there would wait for that lock forever (seen with two SIGTERMs at
    once, the operator's and the parent's forwarded one). Handlers only append; the main thread acts."""
    received: list[int] = []
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for sig in signals:
        signal.signal(sig, lambda signum, _frame: received.append(signum))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, signals)  # a forked worker starts with them blocked
    return received


def open_registry(root):
    """The registry and the checks it started (``Registry.start_checks``), one per published store, each on a
    thread of its own: the server listens meanwhile and serves each store once its check passes. On a root
    with none yet, a warning saying what will bring one (the server still starts, not ready, and stores
    published later come online by refresh)."""
    from server.registry import Registry

    registry = Registry(root)
    checks = registry.start_checks()
    if not registry.variants() and not registry.verifying():
        building = registry.building()
        log.warning("no store to serve yet: not ready (health NOT_SERVING, /readyz 503) until one is published"
                    + (f"; the build beside this server is making {len(building)}" if building else
                       "; run `make serve` (builds the defaults beside the server) or `make build-stores`"),
                    extra={"fields": {"root": str(root), "building": [p["variant"] for p in building]}})
    return registry, checks


def server_settings(args, tokens: list[str], reuseport: bool):
    from server.settings import ServerSettings

    return ServerSettings(connections=args.limits, grpc_idle_timeout=args.grpc_idle_timeout,
                          threads=args.threads, max_concurrent_rpcs=args.max_concurrent_rpcs or None,
                          max_batch=args.max_batch, max_streams=args.max_streams, tokens=tokens, tls=args.tls,
                          reuseport=reuseport, live_slots=args.live_slots, live_seconds=args.live_seconds,
                          live_max_seconds=args.live_max_seconds, live_max_mb=args.live_max_mb,
                          live_cache_mb=args.live_cache_mb, live_estimate_scale=args.live_estimate_scale,
                          live_margin=args.live_margin)


def http_listener(args, server, tokens: list[str], http_port: int | None, reuseport: bool):
    """The HTTP/JSON API and pages on `http_port` (None: no HTTP port), bound but not started."""
    if http_port is None:
        return None
    from server.http_api import HttpApi
    from server.listener import HttpServer

    tls = args.tls
    plain_refusal = None
    if tls is not None and args.http_insecure:
        plain_refusal = ("this HTTP port is plain HTTP (--http-insecure) while the service uses TLS: it takes "
                         "no bearer token; call the gRPC port over TLS")
    api = HttpApi(server.servicer, tokens, threads=args.threads, max_concurrent=args.max_concurrent_rpcs or None,
                  plain_refusal=plain_refusal)
    try:
        http = HttpServer(api.app, args.http_host, http_port, reuseport=reuseport, limits=args.limits,
                          tls=None if args.http_insecure else tls)
    except OSError as e:
        api.close()
        raise StartupError("cannot serve HTTP", address=f"{args.http_host}:{http_port}", error=str(e)) from e
    http.api = api
    return http


class Readiness:
    """gRPC health follows readiness: SERVING while at least one store is loaded."""

    def __init__(self, server, registry, worker: int, stop: threading.Event):
        self.server, self.registry, self.worker, self.stop = server, registry, worker, stop
        self.serving = True  # build_server starts SERVING
        self._lock = threading.Lock()  # updated by the refresh thread and by each store check's thread
        self.update()

    def update(self) -> None:
        from grpc_health.v1 import health_pb2

        from server.service import SERVICE_NAME

        with self._lock:
            now = bool(self.registry.variants())
            if now == self.serving or self.stop.is_set():
                return
            self.serving = now
            for name in ("", SERVICE_NAME):
                self.server.health.set(name, health_pb2.HealthCheckResponse.SERVING if now
                                       else health_pb2.HealthCheckResponse.NOT_SERVING)
        if now:
            log.info("ready", extra={"fields": {"variants": self.registry.variants(), "worker": self.worker}})


def start_refresh(registry, readiness: Readiness, every_seconds: float, stop: threading.Event,
                  wake: threading.Event) -> None:
    """A daemon thread that refreshes the stores every `every_seconds` (0: only when `wake` is set)."""

    def poll():
        while not stop.is_set():
            wake.wait(every_seconds if every_seconds > 0 else None)
            if stop.is_set():
                return
            wake.clear()
            try:
                registry.refresh(wait=False)  # each check on its own thread; on_checked follows each
            except Exception:  # noqa: BLE001 - a refresh never takes the server down
                log.exception("store refresh failed")
            readiness.update()

    threading.Thread(target=poll, name="store-refresh", daemon=True).start()


def start_listening(server, http, registry) -> None:
    server.start()
    if http is not None:
        http.start()
    start_live_pool(server, registry)


def start_live_pool(server, registry) -> None:
    """Once a store with live work is served: a live worker a slot ready before the first live calls."""
    if getattr(server, "live_pool_started", False):
        return
    if any(getattr(b, "live_modules", ()) for b in registry.backends.values()):
        server.live_pool_started = True
        server.live_pool.start(max(server.live_pool.slots, 1))


def wait_for_stop(received: list[int], stop: threading.Event, wake: threading.Event) -> None:
    """Act on the recorded signals until one asks to stop: SIGHUP wakes the refresh, the others stop."""
    while not stop.is_set():
        time.sleep(SIGNAL_POLL_SECONDS)
        while received:
            if received.pop(0) == signal.SIGHUP:
                wake.set()
            else:
                stop.set()


def shut_down(server, http, registry, grace: float, worker: int, wake: threading.Event, drain: float = 0.0) -> None:
    """Say NOT_SERVING (gRPC health, /readyz) and go on answering for `drain` seconds, so that load balancers
    stop sending calls first; then stop taking calls, give in-flight ones `grace` seconds, close the live pool
    and the stores."""
    from server import metrics

    log.info("stopping", extra={"fields": {"grace_seconds": grace, "drain_seconds": drain, "worker": worker}})
    server.health.enter_graceful_shutdown()
    if http is not None:
        http.api.closing = True  # /readyz: 503 "stopping"
    if drain > 0:
        time.sleep(drain)
    if http is not None:
        http.stop(grace)
        http.api.close()
    server.stop(grace).wait()
    server.live_pool.close()
    metrics.flush()
    wake.set()
    registry.close()
    log.info("stopped", extra={"fields": {"worker": worker}})


def warm_for_build(registry, log, stop: threading.Event, wait_seconds: float = 30.0) -> None:
    """On a root with no store yet: compile the Jotto kernels for the first Jotto variant the build beside
    the server is making (its progress file), so that the store is served as soon as it is published rather
    than after the compile (numba's cache on disk then serves the other workers and later stores)."""
    from games.jotto.dictionary import load_dictionary
    from games.jotto.oracle import JottoOracle

    deadline = time.monotonic() + wait_seconds
    while not stop.is_set() and time.monotonic() < deadline:  # the builder writes its file once it has started
        pending = [p["variant"] for p in registry.building() if p["game"] == "jotto"]
        if pending or registry.variants():
            break
        stop.wait(0.5)
    else:
        return
    if not pending or registry.variants():
        return
    t0 = time.perf_counter()
    try:
        JottoOracle(load_dictionary(pending[0])).warm()
    except Exception as e:  # noqa: BLE001 - only an early compile: the store's own warm-up does it anyway
        log.warning("kernel warm-up for the build failed", extra={"fields": {"error": str(e)}})
        return
    log.info("kernels warmed for the build's first store", extra={"fields": {
        "variant": pending[0], "seconds": round(time.perf_counter() - t0, 3)}})


