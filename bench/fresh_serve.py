"""A fresh clone's first `make serve`, from nothing: seconds to the first `SampleMove` answered and to each default
store served, the book hits' p99 during the build against idle after it, and the CPU seconds every process of the
clone used (build, pip, server), summed from `ps`.

    git clone <repo> /tmp/fc/fc && python -m bench.fresh_serve /tmp/fc/fc [--port 50051] [--seconds 1800]

Run it alone on the machine: what it measures is the machine's cores. The clone's `make serve` runs with pip's and uv's
caches off; a poller asks `ListVariants` every second and, from the first Jotto store served on, sends one book hit (that
store's guesser's first move) every 20 ms; when every default store is served it goes on 30 s (reported apart: the build's
processes end and return their memory) and then measures the book hits idle for 90 s, prints the table and stops `make
serve` (SIGTERM to its process group). Beside the p99 of each phase it gives the p99s of its 30 s windows (lowest /
median / highest): on a virtual machine an idle window's p99 varies several times over from one to the next.
docs/serving-while-building.md has the runs.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time

import grpc

from builder.profiles import DEFAULT
from protos import gamestrategy_pb2 as pb
from protos import gamestrategy_pb2_grpc as pbg


def cpu_by_kind(clone: str, stop: threading.Event, out: dict) -> None:
    """Every 3 s: the largest CPU time seen of each process running the clone's python, summed by kind."""
    seen: dict[str, tuple[int, str]] = {}
    py = os.path.join(clone, ".venv", "bin", "python")
    while not stop.is_set():
        lines = subprocess.run(["ps", "-ww", "-eo", "pid,time,args"], capture_output=True, text=True).stdout.splitlines()[1:]
        for line in lines:
            parts = line.split(None, 2)
            if len(parts) < 3 or py not in parts[2]:
                continue
            pid, t, args = parts
            days, _, t = t.rpartition("-")
            h, m, s = (int(x) for x in t.split(":"))
            sec = int(days or 0) * 86400 + h * 3600 + m * 60 + s
            kind = "server" if "-m server" in args else "pip" if "pip" in args else "build"
            if sec >= seen.get(pid, (0, ""))[0]:
                seen[pid] = (sec, kind)
        totals: dict[str, int] = {}
        for sec, kind in seen.values():
            totals[kind] = totals.get(kind, 0) + sec
        out.update(totals)
        stop.wait(3.0)


SETTLE_SECONDS = 30.0
IDLE_SECONDS = 90.0
WINDOW_SECONDS = 30.0  # the p99 of each such window is reported too: on a virtual machine idle p99s vary by window


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1e3 if xs else float("nan")


def window_p99s(calls: list[tuple[float, float]], seconds: float = WINDOW_SECONDS) -> list[float]:
    """The p99 (ms) of each ``seconds`` window of (time, latency) calls, in time order; a last window of less than
    nine tenths of ``seconds`` is left out."""
    if not calls:
        return []
    t0, by = calls[0][0], {}
    for t, lat in calls:
        by.setdefault(int((t - t0) // seconds), []).append(lat)
    span = calls[-1][0] - t0
    whole = int(span // seconds) + (span % seconds >= 0.9 * seconds)
    return [pct(by.get(k, []), .99) for k in range(whole)]


def _spread(p99s: list[float]) -> str:
    """Lowest / median / highest of window p99s (ms), the median as ``pct`` picks it."""
    return f"{min(p99s):.2f} / {sorted(p99s)[len(p99s) // 2]:.2f} / {max(p99s):.2f}" if p99s else "-"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clone", help="a fresh clone of the repository (no .venv, no stores)")
    ap.add_argument("--port", type=int, default=50051, help="the server's gRPC port (make serve's default)")
    ap.add_argument("--seconds", type=float, default=1800.0, help="give up after this long")
    args = ap.parse_args(argv)
    clone = os.path.abspath(args.clone)
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "VIRTUAL_ENV")}
    env["PIP_NO_CACHE_DIR"] = "1"
    env["UV_NO_CACHE"] = "1"
    cpu: dict[str, int] = {}
    stop = threading.Event()
    threading.Thread(target=cpu_by_kind, args=(clone, stop, cpu), daemon=True).start()
    t0 = time.monotonic()
    with open(os.path.join(clone, "..", "make-serve.log"), "wb") as log:
        proc = subprocess.Popen(["make", "serve"], cwd=clone, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, env=env)
    stub = pbg.GameStrategyStub(grpc.insecure_channel(f"127.0.0.1:{args.port}"))
    want, seen = set(DEFAULT), {}
    req, first = None, None
    during: list[float] = []
    last_list = 0.0
    try:
        while time.monotonic() - t0 < args.seconds and not want <= set(seen):
            now = time.monotonic()
            if now - last_list > 1.0:
                last_list = now
                try:
                    variants = stub.ListVariants(pb.ListVariantsRequest(), timeout=2).variants
                except grpc.RpcError:
                    variants = []
                for v in variants:
                    if v.variant not in seen:
                        seen[v.variant] = now - t0
                        print(f"{now - t0:7.1f} s  served {v.variant}", flush=True)
                        if req is None and v.variant.startswith("jotto-"):
                            req = pb.SampleMoveRequest(variant=v.variant, game_seed=1,
                                                       jotto=pb.JottoState(role=pb.JottoState.GUESSER))
            if req is not None:
                t = time.perf_counter()
                try:
                    stub.SampleMove(req, timeout=5)
                    if first is None:
                        first = time.monotonic() - t0
                        print(f"{first:7.1f} s  first SampleMove answered ({req.variant})", flush=True)
                    else:
                        during.append((time.monotonic(), time.perf_counter() - t))
                except grpc.RpcError as e:
                    print(f"error {e.code()}", flush=True)
            time.sleep(0.02)
        total = time.monotonic() - t0
        print(f"{total:7.1f} s  every default store served: {want <= set(seen)}", flush=True)
        print(f"CPU seconds of the clone's processes so far: {json.dumps(cpu)}", flush=True)
        # idle: the first 30 s after the build (its processes ending, memory returned) apart from the settled
        # 90 s after them, which the build's p99 is compared with
        settling: list[float] = []
        idle: list[tuple[float, float]] = []
        t1 = time.monotonic()
        while req is not None and time.monotonic() - t1 < SETTLE_SECONDS + IDLE_SECONDS:
            t = time.perf_counter()
            stub.SampleMove(req, timeout=5)
            if time.monotonic() - t1 < SETTLE_SECONDS:
                settling.append(time.perf_counter() - t)
            else:
                idle.append((time.monotonic(), time.perf_counter() - t))
            time.sleep(0.02)
        build_lat, idle_lat = [x for _, x in during], [x for _, x in idle]
        idle_windows = window_p99s(idle)
        print(f"book hits ({req.variant if req else '-'}, one every 20 ms): during the build p50 {pct(build_lat, .5):.2f} "
              f"p99 {pct(build_lat, .99):.2f} ms ({len(build_lat)} calls; p99 of its {WINDOW_SECONDS:.0f} s windows "
              f"min / median / max {_spread(window_p99s(during))} ms); the first {SETTLE_SECONDS:.0f} s after it p99 "
              f"{pct(settling, .99):.2f} ms; idle (settled) p50 {pct(idle_lat, .5):.2f} p99 {pct(idle_lat, .99):.2f} ms "
              f"({len(idle_lat)} calls; its windows {_spread(idle_windows)} ms); ratio "
              f"{pct(build_lat, .99) / pct(idle_lat, .99):.2f} (to the lowest idle window's "
              f"{pct(build_lat, .99) / min(idle_windows, default=float('nan')):.2f})", flush=True)
        print(json.dumps(dict(first=first, served=seen, all=total, cpu=cpu)), flush=True)
    finally:
        stop.set()
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
