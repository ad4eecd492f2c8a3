"""gamestrategy-server: serve the published stores over gRPC.

  python -m server [--host 127.0.0.1] [--port 50051] [--root stores] [--workers N]
                   [--metrics-port 9464] [--tls-cert C --tls-key K [--tls-client-ca CA]] [--token-file F]

Every option also reads an environment variable (GAMESTRATEGY_<OPTION>, e.g. GAMESTRATEGY_WORKERS,
GAMESTRATEGY_TOKEN). SIGHUP: look for newly published stores now (they are also polled every
--refresh-seconds). SIGTERM/SIGINT: stop taking calls, give in-flight ones --grace seconds.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

# numba's OpenMP threads (live workers) sleep at barriers rather than spin beside the serving threads
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from games.storage import current_stores, stores_root
from server import live
from server.settings import HTTP_PORT
from server.storecheck import VERDICTS_ENV
from server.worker import run_worker

_RESERVED = {"name", "msg", "args", "levelname", "levelno", "pathname", "filename", "module", "exc_info",
             "exc_text", "stack_info", "lineno", "funcName", "created", "msecs", "relativeCreated", "thread",
             "threadName", "processName", "process", "taskName", "message", "fields"}


class JSONFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, pid, message and the record's `fields`."""

    def format(self, record: logging.LogRecord) -> str:
        out = {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
               "level": record.levelname, "logger": record.name, "pid": record.process,
               "message": record.getMessage()}
        fields = getattr(record, "fields", None)
        if fields:
            out.update(fields)
        for k, v in record.__dict__.items():
            if k not in _RESERVED and k not in out:
                out[k] = v if isinstance(v, (str, int, float, bool, type(None))) else repr(v)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def setup_logging(fmt: str, level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JSONFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s[%(process)d]: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def _env(name: str, default=None):
    return os.environ.get(f"GAMESTRATEGY_{name}", default)


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="gamestrategy-server", description=__doc__.splitlines()[0])
    ap.add_argument("--host", default=_env("HOST", "127.0.0.1"))
    ap.add_argument("--port", type=int, default=int(_env("PORT", "50051")), help="0 = any free port")
    ap.add_argument("--root", type=Path, default=stores_root(), help="store root (GAMESTRATEGY_STORES)")
    ap.add_argument("--workers", type=int, default=int(_env("WORKERS", "0")),
                    help="server processes sharing the port (SO_REUSEPORT); 0 = number of cores, 1 = no fork")
    ap.add_argument("--threads", type=int, default=int(_env("THREADS", "8")), help="handler threads per worker")
    ap.add_argument("--max-concurrent-rpcs", type=int, default=int(_env("MAX_CONCURRENT_RPCS", "256")),
                    help="per worker; calls past it get RESOURCE_EXHAUSTED (0 = no limit)")
    ap.add_argument("--max-batch", type=int, default=int(_env("MAX_BATCH", "1024")), help="SampleMoves requests per call")
    ap.add_argument("--max-streams", type=int, default=int(_env("MAX_STREAMS", "0")),
                    help="open SampleMoveStream calls per worker, each holding a thread (0 = half the threads)")
    ap.add_argument("--live-slots", type=int, default=int(_env("LIVE_SLOTS", str(live.DEFAULT_SLOTS))),
                    help="live computations at once per worker, each in a process of its own (more get RESOURCE_EXHAUSTED)")
    ap.add_argument("--live-seconds", type=float, default=float(_env("LIVE_SECONDS", str(live.DEFAULT_SECONDS))),
                    help="how long a call without a deadline may wait for live work")
    ap.add_argument("--live-max-seconds", type=float, default=float(_env("LIVE_MAX_SECONDS", str(live.MAX_SECONDS))),
                    help="no live computation estimated longer than this starts (FAILED_PRECONDITION)")
    ap.add_argument("--live-max-mb", type=int, default=int(_env("LIVE_MAX_MB", str(live.MAX_BYTES >> 20))),
                    help="nor one estimated larger; a live worker past it is killed")
    ap.add_argument("--live-cache-mb", type=int, default=int(_env("LIVE_CACHE_MB", str(live.CACHE_BYTES >> 20))),
                    help="live results (solved Dudo games) kept per worker (0 = none)")
    ap.add_argument("--live-estimate-scale", type=float, default=float(_env("LIVE_ESTIMATE_SCALE", "1")),
                    help="multiplies the live cost estimates' seconds (calibration to this machine)")
    ap.add_argument("--live-margin", type=float, default=float(_env("LIVE_MARGIN", str(live.DEFAULT_MARGIN))),
                    help="live work with a fallback answer (a Dudo store row, DEGRADED) stops this many seconds "
                         "before the caller's deadline")
    ap.add_argument("--grace", type=float, default=float(_env("GRACE", "5")), help="seconds in-flight calls get on shutdown")
    ap.add_argument("--drain-seconds", type=float, default=float(_env("DRAIN_SECONDS", "0")),
                    help="on SIGTERM, keep answering calls this long while /readyz and gRPC health say NOT_SERVING "
                         "(a load balancer's checks take the server out first), then stop as --grace says")
    ap.add_argument("--refresh-seconds", type=float, default=float(_env("REFRESH_SECONDS", "5")),
                    help="poll the store root for newly published versions this often (0 = only on SIGHUP)")
    ap.add_argument("--http-port", type=int, default=int(_env("HTTP_PORT", str(HTTP_PORT))),
                    help="HTTP/JSON API and web pages (-1 = off, 0 = any free port)")
    ap.add_argument("--http-host", default=_env("HTTP_HOST"), help="HTTP address (default: --host)")
    ap.add_argument("--metrics-port", type=int, default=int(_env("METRICS_PORT", "9464")),
                    help="Prometheus /metrics HTTP port (-1 = off, 0 = any free port)")
    ap.add_argument("--metrics-host", default=_env("METRICS_HOST", "127.0.0.1"))
    ap.add_argument("--tls-cert", type=Path, default=_env("TLS_CERT"), help="server certificate chain (PEM): serve TLS")
    ap.add_argument("--tls-key", type=Path, default=_env("TLS_KEY"), help="server private key (PEM)")
    ap.add_argument("--tls-client-ca", type=Path, default=_env("TLS_CLIENT_CA"),
                    help="CA certificate(s) (PEM): require client certificates signed by it (mutual TLS)")
    ap.add_argument("--token-file", type=Path, default=_env("TOKEN_FILE"),
                    help="file of accepted bearer tokens, one a line (GAMESTRATEGY_TOKEN: one token)")
    ap.add_argument("--http-insecure", action="store_true", default=bool(_env("HTTP_INSECURE")),
                    help="with TLS on: serve the HTTP port in plain HTTP (for a TLS proxy in front); it then "
                         "refuses every call that needs a token, and cannot be combined with --tls-client-ca")
    ap.add_argument("--header-timeout", type=float, default=float(_env("HEADER_TIMEOUT", "5")),
                    help="seconds a connection has for its TLS handshake and request head (gRPC: handshake and "
                         "HTTP/2 settings) before it is closed")
    ap.add_argument("--body-timeout", type=float, default=float(_env("BODY_TIMEOUT", "10")),
                    help="seconds an HTTP request has for its body after its head")
    ap.add_argument("--idle-timeout", type=float, default=float(_env("IDLE_TIMEOUT", "5")),
                    help="seconds an HTTP keep-alive connection may wait for its next request")
    ap.add_argument("--grpc-idle-timeout", type=float, default=float(_env("GRPC_IDLE_TIMEOUT", "300")),
                    help="seconds a gRPC connection without calls stays open (then GOAWAY; clients reconnect)")
    ap.add_argument("--max-connections", type=int, default=int(_env("MAX_CONNECTIONS", "0")),
                    help="open connections per listener (HTTP, gRPC) and worker; past it HTTP closes its "
                         "oldest idle one and gRPC refuses new ones (0 = from the descriptor limit)")
    ap.add_argument("--log-format", choices=["json", "text"], default=_env("LOG_FORMAT", "json"))
    ap.add_argument("--log-level", default=_env("LOG_LEVEL", "INFO"))
    ap.add_argument("--port-file", type=Path, help="write the bound gRPC, HTTP and metrics ports here as JSON once the stores present at "
                         "start-up were checked (tests, bench; the ports accept before)")
    args = ap.parse_args(argv)
    args.http_host = args.http_host or args.host
    if (args.tls_cert is None) != (args.tls_key is None):
        ap.error("--tls-cert and --tls-key go together")
    if args.tls_client_ca and not args.tls_cert:
        ap.error("--tls-client-ca needs --tls-cert and --tls-key")
    if args.http_insecure and args.tls_client_ca:
        ap.error("--http-insecure cannot be combined with --tls-client-ca: a plain HTTP port cannot check "
                 "client certificates")
    for name in ("header_timeout", "body_timeout", "idle_timeout", "grpc_idle_timeout"):
        if not getattr(args, name) > 0:
            ap.error(f"--{name.replace('_', '-')} must be a number of seconds > 0")
    if args.max_connections < 0:
        ap.error("--max-connections must be >= 0 (0: from the descriptor limit)")
    if args.max_streams <= 0:
        args.max_streams = max(1, args.threads // 2)
    if args.workers <= 0:
        args.workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return args


def _tokens(args) -> list[str]:
    tokens = []
    if _env("TOKEN"):
        tokens.append(_env("TOKEN").strip())
    if args.token_file:
        tokens += [t.strip() for t in args.token_file.read_text().splitlines() if t.strip() and not t.startswith("#")]
    return tokens


def warm_kernels(root: Path, log) -> None:
    """Compile the numba kernels (fills NUMBA_CACHE_DIR) without opening any store."""
    from games.jotto.dictionary import load_dictionary
    from games.jotto.oracle import JottoOracle

    t0 = time.perf_counter()
    for variant in list(current_stores(root, "jotto"))[:1]:
        try:
            JottoOracle(load_dictionary(variant)).warm()
        except Exception as e:  # noqa: BLE001 - a worker warms again on its own
            log.warning("kernel warm-up in the parent failed", extra={"fields": {"error": str(e)}})
    log.info("kernels warmed", extra={"fields": {"seconds": round(time.perf_counter() - t0, 3)}})


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with ExitStack() as stack:
        if args.workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):  # ours: removed when the server stops
            os.environ["PROMETHEUS_MULTIPROC_DIR"] = stack.enter_context(
                tempfile.TemporaryDirectory(prefix="gamestrategy-metrics-", ignore_cleanup_errors=True))
        return _serve(args)


def _serve(args) -> int:
    setup_logging(args.log_format, args.log_level)
    log = logging.getLogger("gamestrategy.server")
    try:
        tokens = _tokens(args)
    except OSError as e:
        log.error("cannot read the token file", extra={"fields": {"error": str(e)}})
        return 1
    from server.connections import ConnectionLimits, default_max_connections, raise_fd_limit
    from server.metrics_endpoint import METRICS_MAX_CONNECTIONS, serve_metrics
    from server.settings import TLSConfig

    fd_soft, fd_hard = raise_fd_limit()
    cap = args.max_connections or default_max_connections(fd_soft)
    args.limits = ConnectionLimits(header_timeout=args.header_timeout, body_timeout=args.body_timeout,
                                   idle_timeout=args.idle_timeout, max_connections=cap)
    log.info("connection limits", extra={"fields": {
        "fd_soft": fd_soft, "fd_hard": fd_hard, "max_connections_per_listener": cap,
        "metrics_max_connections": METRICS_MAX_CONNECTIONS, "header_timeout": args.header_timeout,
        "body_timeout": args.body_timeout, "idle_timeout": args.idle_timeout,
        "grpc_idle_timeout": args.grpc_idle_timeout}})
    if cap * 2 + METRICS_MAX_CONNECTIONS > fd_soft:
        log.warning("the connection caps exceed the descriptor limit: raise `ulimit -n` or lower --max-connections",
                    extra={"fields": {"fd_soft": fd_soft, "max_connections": cap}})
    try:
        args.tls = TLSConfig.from_files(args.tls_cert, args.tls_key, args.tls_client_ca) if args.tls_cert else None
    except OSError as e:
        log.error("cannot read the TLS files", extra={"fields": {"error": str(e)}})
        return 1
    if args.tls is not None and args.http_insecure and args.http_port >= 0:
        log.warning("--http-insecure: the HTTP port speaks plain HTTP although TLS is on; it refuses every call "
                    "that needs a token", extra={"fields": {"http_port": args.http_port}})
    metrics_port = None
    if args.metrics_port >= 0:
        try:
            metrics_server = serve_metrics(args.metrics_port, args.metrics_host, tls=args.tls, tokens=tokens)
        except (OSError, RuntimeError) as e:
            log.error("cannot serve metrics", extra={"fields": {"port": args.metrics_port, "error": str(e)}})
            return 1
        metrics_port = metrics_server.port
        log.info("metrics", extra={"fields": {
            "address": f"{metrics_server.scheme}://{args.metrics_host}:{metrics_port}/metrics"}})

    def write_ports(port, http_port):
        if args.port_file:
            tmp = args.port_file.with_suffix(".tmp")
            tmp.write_text(json.dumps({"port": port, "http_port": http_port, "metrics_port": metrics_port,
                                       "pid": os.getpid()}))
            os.replace(tmp, args.port_file)

    if args.workers == 1:
        return run_worker(args, args.port, tokens, reuseport=False, worker=0, ready=write_ports,
                          http_port=args.http_port if args.http_port >= 0 else None)
    return _run_workers(args, tokens, log, write_ports, [metrics_server.sock] if metrics_port is not None else [])


def _run_workers(args, tokens, log, write_ports, inherited) -> int:
    """`args.workers` forked workers on shared ports under a server.supervisor.Supervisor."""
    from server.supervisor import Supervisor, reserved_port

    sup = Supervisor(args.workers)  # its signal handlers from here on: a stop while warming up is acted on
    warm_kernels(args.root, log)  # before any fork: compiled code and the on-disk cache are shared
    with ExitStack() as stack:
        # the workers share their store verdicts (server.storecheck): one content check per file
        os.environ[VERDICTS_ENV] = stack.enter_context(tempfile.TemporaryDirectory(prefix="gamestrategy-verified-"))
        try:
            grpc_sock = stack.enter_context(reserved_port(args.host, args.port))
            http_sock = (stack.enter_context(reserved_port(args.http_host, args.http_port))
                         if args.http_port >= 0 else None)  # one HTTP port every worker shares, as for gRPC
        except (OSError, RuntimeError) as e:
            log.error("cannot bind", extra={"fields": {"host": args.host, "port": args.port,
                                                       "http_port": args.http_port, "error": str(e)}})
            return 1
        port = grpc_sock.getsockname()[1]
        http_port = http_sock.getsockname()[1] if http_sock else None

        def worker(w, ready):
            return run_worker(args, port, tokens, reuseport=True, worker=w, http_port=http_port, ready=ready)

        def on_ready(n_ready):
            if n_ready:  # after the handlers: whoever reads the port file may send SIGHUP at once
                write_ports(port, http_port)

        return sup.run(worker, on_ready, [s for s in (grpc_sock, http_sock, *inherited) if s is not None])


if __name__ == "__main__":
    sys.exit(main())
