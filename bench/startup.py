"""A server's start-up on a store root, as a client sees it: seconds from the process start to the gRPC and
HTTP ports accepting, to ``/healthz`` and ``/readyz`` answering, and, per published variant, every change in
what a ``SampleMove`` gets (its status code and ``gamestrategy-retry`` metadata) until it is answered.

  python -m bench.startup --root R [--workers N] [--seconds 600]

It starts ``python -m server --root R`` on free loopback ports (no metrics port), polls every 50 ms, and
stops the server (SIGTERM) once every variant has answered or after ``--seconds``. docs/serving.md has runs.
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import grpc

from bench.load import _stop
from games.storage import scan_published
from protos import gamestrategy_pb2 as pb
from protos import gamestrategy_pb2_grpc as pbg

REPO = Path(__file__).resolve().parent.parent
POLL_SECONDS = 0.05
RETRY_KEY = "gamestrategy-retry"


def sample_request(game: str, variant: str) -> pb.SampleMoveRequest:
    """A request each game's store answers from its book."""
    state = {
        "jotto": {"jotto": pb.JottoState(role=pb.JottoState.GUESSER)},
        "dudo": {"dudo": pb.DudoState(own_dice=5, opponent_dice=5, roll=[1, 2, 3, 5, 6],
                                      history=[pb.DudoClaim(count=3, face=4)])},
        "hangman": {"hangman": pb.HangmanState(action=pb.HangmanState.CHOOSE_WORD)},
        "guesswho": {"guesswho": pb.GuessWhoState(own_count=12, opponent_count=24)},
    }[game]
    return pb.SampleMoveRequest(variant=variant, game_seed=7, **state)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def http_get(port: int, path: str) -> tuple[int, dict] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=1.0) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")
    except (OSError, ValueError):
        return None


def sample_outcome(stub, request) -> str:
    """OK, or the status code with its retry metadata (a refused connection: ``no connection``)."""
    try:
        stub.SampleMove(request, timeout=2.0)
        return "OK"
    except grpc.RpcError as e:
        retry = dict(e.trailing_metadata() or ()).get(RETRY_KEY)
        if e.code() is grpc.StatusCode.UNAVAILABLE and retry is None:
            return "no connection"
        return f"{e.code().name}" + (f" ({RETRY_KEY}: {retry})" if retry else "")


def readyz_summary(answer: tuple[int, dict]) -> str:
    status, body = answer
    parts = [str(status)]
    for key in ("variants", "verifying", "refused", "message"):
        value = body.get(key)
        if isinstance(value, list):
            value = sorted(v.get("variant", "?") for v in value)
        if value:
            parts.append(f"{key}={value}")
    return " ".join(parts)


def timeline(root: Path, workers: int, seconds: float) -> list[tuple[float, str]]:
    published, _ = scan_published(root)
    requests = {v: sample_request(p.parent.parent.name, v) for v, p in sorted(published.items())}
    grpc_port, http_port = free_port(), free_port()
    cmd = [sys.executable, "-m", "server", "--root", str(root), "--port", str(grpc_port), "--http-port",
           str(http_port), "--metrics-port", "-1", "--workers", str(workers), "--refresh-seconds", "5"]
    events: list[tuple[float, str]] = []
    t0 = time.monotonic()
    server = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def note(what: str) -> None:
        events.append((time.monotonic() - t0, what))

    seen: dict[str, str] = {}
    channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
    stub = pbg.GameStrategyStub(channel)
    try:
        while time.monotonic() - t0 < seconds and server.poll() is None:
            for name, port in (("gRPC port", grpc_port), ("HTTP port", http_port)):
                if name not in seen and accepts(port):
                    seen[name] = "accepts"
                    note(f"{name} accepts")
            if "HTTP port" in seen:
                for path in ("/healthz", "/readyz"):
                    answer = http_get(port=http_port, path=path)
                    text = None if answer is None else (readyz_summary(answer) if path == "/readyz" else str(answer[0]))
                    if text is not None and seen.get(path) != text:
                        seen[path] = text
                        note(f"{path} {text}")
            if "gRPC port" in seen:
                for variant, request in requests.items():
                    if seen.get(variant) == "OK":
                        continue
                    outcome = sample_outcome(stub, request)
                    if seen.get(variant) != outcome:
                        seen[variant] = outcome
                        note(f"SampleMove {variant}: {outcome}")
            if all(seen.get(v) == "OK" for v in requests) and seen.get("/readyz", "").startswith("200"):
                break
            time.sleep(POLL_SECONDS)
        if server.poll() is not None:
            note(f"the server exited with code {server.returncode}")
    finally:
        channel.close()
        if server.poll() is None:
            _stop(server)
    return events


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.startup", description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=600.0, help="give up after this long")
    args = ap.parse_args(argv)
    if args.workers < 1:
        ap.error("--workers must be >= 1")
    if args.seconds <= 0:
        ap.error("--seconds must be > 0")
    if not scan_published(args.root)[0]:
        print(f"bench.startup: no published store under {args.root}", file=sys.stderr)
        return 2
    print(f"# {args.root}, --workers {args.workers}, load average {open('/proc/loadavg').read().split()[0]} "
          f"at the start (cpus {os.cpu_count()})")
    for t, what in timeline(args.root, args.workers, args.seconds):
        print(f"{t:8.2f} s  {what}")
    print(f"# load average {open('/proc/loadavg').read().split()[0]} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
