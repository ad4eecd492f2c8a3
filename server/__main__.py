"""gamestrategy-server: serve the published stores over gRPC.

  python -m server [--build-missing] [--host 127.0.0.1] [--port 50051] [--root stores]
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from pathlib import Path

from games.storage import DEFAULT_ROOT


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="gamestrategy-server", description=__doc__.splitlines()[0])
    ap.add_argument("--host", default=os.environ.get("GAMESTRATEGY_HOST", "127.0.0.1"))
    ap.add_argument("--port", type=int, default=int(os.environ.get("GAMESTRATEGY_PORT", "50051")))
    ap.add_argument("--root", type=Path, default=Path(os.environ.get("GAMESTRATEGY_STORES", DEFAULT_ROOT)))
    ap.add_argument("--build-missing", action="store_true", help="build the default stores that are missing first")
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--grace", type=float, default=5.0, help="seconds in-flight calls get on shutdown")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log = logging.getLogger("gamestrategy.server")
    if args.build_missing:
        from builder.__main__ import main as build

        rc = build(["--profile", "default", "--missing-only", "--root", str(args.root)])
        if rc:
            return rc
    from server.app import build_server, load_backends, serve_forever, warm

    backends = load_backends(args.root)
    if not backends:
        log.error("no store to serve under %s: run `make serve` (builds the defaults) or `make build-stores`", args.root)
        return 1
    warm(backends)
    try:
        server, port = build_server(backends, f"{args.host}:{args.port}", max_workers=args.threads)
    except RuntimeError as e:
        log.error("%s", e)
        return 1
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    log.info("listening on %s:%d with %d variants: %s", args.host, port, len(backends), ", ".join(sorted(backends)))
    serve_forever(server, stop, args.grace)
    log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
