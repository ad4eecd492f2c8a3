"""Serving while building: book-hit latency beside a build, and the time to a first answer.

  python -m bench.serve_while_building [p99] [--seconds 20] [--concurrency 4] [--build-variant V] [--root DIR]
  python -m bench.serve_while_building first [--variant V ...] [--timeout 600]
  python -m bench.serve_while_building beside [--seconds 30] [--rounds 3] [--churn-mb 1200] [--root DIR]

``p99``: a server process (1 worker) on a root holding the smallest default store (built first if missing),
driven with SampleMove book hits (the guesser's first move, 256 game seeds) by --concurrency client threads;
latency percentiles idle, then while ``python -m builder --profile default --variant V`` builds one more store
into the same root at nice 19 (as ``make serve`` runs it; the server swaps the store in when it is published),
then idle again. Table: phase, calls, calls/s, p50, p99, p99.9, max; during-build p99 over the idle p99s.

``first``: ``python -m launcher --variant V ...`` on a fresh store root with a fresh numba cache (compiles
included, the venv as it is): seconds from the command to the first SampleMove answered, and to each
variant served (ListVariants), then SIGTERM and the seconds the launcher took to stop both.

``beside``: the same server and book hits (one client thread, a call every 20 ms, as ``bench.fresh_serve``
sends them), idle and beside one process per core of each kind of load, started as ``make serve`` starts its
build (a session of its own at nice 19, the session's scheduling group at nice 19: ``launcher``'s
``_low_priority``): ``compute`` streams a 64 MB array, ``memory churn`` allocates, fills and frees
--churn-mb at a time (memory returned to the system and taken again, as the build's large groups do), in
--rounds rounds of each. Table: one row per window, then the median p99 of each kind over the median idle p99.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SMALLEST = "jotto-en_US80-2-ganzfried"
NEXT = "jotto-en_US80-3-ganzfried"


def _env(**extra) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO), **extra)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    return env


def _pct(xs, q):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def _book_requests(variant: str) -> list[bytes]:
    from protos import gamestrategy_pb2 as pb

    return [pb.SampleMoveRequest(variant=variant, game_seed=s, jotto=pb.JottoState(role=pb.JottoState.GUESSER))
            .SerializeToString() for s in range(256)]


def _drive(port: int, variant: str, concurrency: int, until, pause: float = 0.0) -> tuple[list[float], int]:
    """Book hits from `concurrency` threads until `until()`, each waiting `pause` s after a call; (latencies in
    seconds, errors)."""
    import grpc

    reqs = _book_requests(variant)
    lat: list[list[float]] = [[] for _ in range(concurrency)]
    errors = [0] * concurrency

    def worker(k):
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            call = ch.unary_unary("/gamestrategy.v1.GameStrategy/SampleMove")
            i = k
            while not until():
                t0 = time.perf_counter()
                try:
                    call(reqs[i % len(reqs)], timeout=10)
                    lat[k].append(time.perf_counter() - t0)
                except grpc.RpcError:
                    errors[k] += 1
                i += concurrency
                if pause:
                    time.sleep(pause)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return [x for xs in lat for x in xs], sum(errors)


def _start_server(root: Path, tmp: Path, log) -> tuple[subprocess.Popen, int]:
    ports = tmp / "ports.json"
    p = subprocess.Popen([sys.executable, "-m", "server", "--root", str(root), "--port", "0", "--http-port", "-1",
                          "--metrics-port", "-1", "--workers", "1", "--refresh-seconds", "1", "--port-file", str(ports)],
                         cwd=REPO, env=_env(), stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while not ports.exists():
        if p.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"bench.serve_while_building: the server did not start (see {log.name})")
        time.sleep(0.05)
    return p, json.loads(ports.read_text())["port"]


def _root_with_smallest(args, tmp: Path) -> Path:
    root = Path(args.root) if args.root else tmp / "stores"
    if not (root / "jotto" / SMALLEST / "current").exists():
        print(f"building {SMALLEST} into {root} first ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "builder", "--profile", "default", "--variant", SMALLEST, "--root",
                        str(root)], cwd=REPO, env=_env(), check=True, stdout=subprocess.DEVNULL)
    return root


@contextlib.contextmanager
def _serving_smallest(args, prefix: str, pause: float = 0.0):
    """A server process (1 worker) on a root holding the smallest default store, warmed up by 2 s of book hits;
    yields (its port, the root, a temporary directory); stopped on exit."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    root = _root_with_smallest(args, tmp)
    with open(tmp / "server.log", "wb") as log:
        server, port = _start_server(root, tmp, log)
        try:
            _drive(port, SMALLEST, args.concurrency, _for(2.0), pause)
            yield port, root, tmp
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(60)


def p99(args) -> int:
    rows = []
    with _serving_smallest(args, "bench-swb-") as (port, root, tmp):
        rows.append(("idle", *_measure(port, args, _for(args.seconds)), ""))
        build_log = open(tmp / "build.log", "wb")
        t0 = time.monotonic()
        build = subprocess.Popen([sys.executable, "-m", "builder", "--profile", "default", "--variant",
                                  args.build_variant, "--root", str(root), "--fresh"], cwd=REPO, env=_env(),
                                 stdout=build_log, stderr=subprocess.STDOUT, preexec_fn=lambda: os.nice(19))
        # the whole build, or --build-seconds of it if it is longer
        res = _measure(port, args, lambda: build.poll() is not None or time.monotonic() - t0 > args.build_seconds)
        note = (f"{args.build_variant} built in {time.monotonic() - t0:.0f} s (nice 19)" if build.poll() == 0
                else f"first {time.monotonic() - t0:.0f} s of building {args.build_variant} (nice 19)")
        if build.poll() is None:
            build.send_signal(signal.SIGTERM)
            build.wait()
        build_log.close()
        rows.append(("during build", *res, note))
        rows.append(("idle again", *_measure(port, args, _for(args.seconds)), ""))
    idle = max(r[4] for r in rows if r[0].startswith("idle"))
    print(f"\nbook hits (SampleMove, guesser's first move) on {SMALLEST}: 1 server worker, {args.concurrency} "
          f"client threads, {os.cpu_count()} cores, load average before {os.getloadavg()[0]:.1f}")
    print(f"{'phase':<14}{'calls':>8}{'calls/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'p99.9 ms':>10}{'max ms':>9}"
          f"{'errors':>8}  note")
    for name, n, rate, p50, p99_, p999, mx, errs, _slow, note in rows:
        print(f"{name:<14}{n:>8}{rate:>9.0f}{p50 * 1e3:>9.2f}{p99_ * 1e3:>9.2f}{p999 * 1e3:>10.2f}{mx * 1e3:>9.1f}"
              f"{errs:>8}  {note}")
    during = next(r for r in rows if r[0] == "during build")[4]
    print(f"p99 during the build / the larger idle p99: {during / idle:.2f}x (the target: at most 2x)")
    return 0


def _loads(churn_mb: int) -> dict[str, str]:
    return {"compute": "import numpy as np\na = np.ones(1 << 23)\nwhile True:\n    a *= 1.0000001\n",
            "memory churn": f"import numpy as np\nwhile True:\n    a = np.ones({churn_mb << 17})\n    a *= 2.0\n    del a\n"}


BESIDE_PAUSE = 0.02  # s between one client's book hits in ``beside``, as bench.fresh_serve sends them


def beside(args) -> int:
    from launcher.__main__ import _low_priority

    rows = []
    with _serving_smallest(args, "bench-swb-beside-", pause=BESIDE_PAUSE) as (port, _root, _tmp):
        for _ in range(args.rounds):
            rows.append(("idle", *_measure(port, args, _for(args.seconds), BESIDE_PAUSE)))
            for kind, code in _loads(args.churn_mb).items():
                procs = [subprocess.Popen([sys.executable, "-c", code], preexec_fn=_low_priority(19),
                                          start_new_session=True) for _ in range(os.cpu_count() or 1)]
                try:
                    time.sleep(1.0)
                    rows.append((kind, *_measure(port, args, _for(args.seconds), BESIDE_PAUSE)))
                finally:
                    for p in procs:
                        p.kill()
                        p.wait()
    print(f"\nbook hits (SampleMove, guesser's first move, one every 20 ms) on {SMALLEST}: 1 server worker; "
          f"loads: {os.cpu_count()} processes each at nice 19 in a session of their own (its group at nice 19)")
    print(f"{'window':<14}{'calls':>8}{'p50 ms':>9}{'p99 ms':>9}{'p99.9 ms':>10}{'max ms':>9}{'> 15 ms':>9}{'errors':>8}")
    for name, n, _rate, p50, p99_, p999, mx, errs, slow in rows:
        print(f"{name:<14}{n:>8}{p50 * 1e3:>9.2f}{p99_ * 1e3:>9.2f}{p999 * 1e3:>10.2f}{mx * 1e3:>9.1f}{slow:>9}{errs:>8}")
    idle = _pct([r[4] for r in rows if r[0] == "idle"], 0.5)
    for kind in _loads(args.churn_mb):
        print(f"median p99 beside {kind} / median idle p99: "
              f"{_pct([r[4] for r in rows if r[0] == kind], 0.5) / idle:.2f}x")
    return 0


def _for(seconds: float):
    end = time.monotonic() + seconds
    return lambda: time.monotonic() > end


def _measure(port, args, until, pause: float = 0.0):
    t0 = time.monotonic()
    lat, errors = _drive(port, SMALLEST, args.concurrency, until, pause)
    dt = time.monotonic() - t0
    return (len(lat), len(lat) / dt, _pct(lat, 0.5), _pct(lat, 0.99), _pct(lat, 0.999), max(lat, default=float("nan")),
            errors, sum(x > 0.015 for x in lat))


def first(args) -> int:
    """Seconds from `python -m launcher` on an empty root to the first answer and to each variant served."""
    import grpc

    from protos import gamestrategy_pb2 as pb
    from protos import gamestrategy_pb2_grpc as pb_grpc

    tmp = Path(tempfile.mkdtemp(prefix="bench-swb-first-"))
    root, ports = tmp / "stores", tmp / "ports.json"
    variants = args.variant or [SMALLEST, NEXT]
    cmd = [sys.executable, "-m", "launcher", *(a for v in variants for a in ("--variant", v)), "--no-measure", "--",
           "--root", str(root), "--port", "0", "--http-port", "-1", "--metrics-port", "-1", "--workers", "1",
           "--port-file", str(ports), "--log-format", "text"]
    env = _env(NUMBA_CACHE_DIR=str(tmp / "numba_cache"))  # nothing compiled yet, as on a fresh clone
    t0 = time.monotonic()
    with open(tmp / "launcher.log", "wb") as log:
        p = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    marks: dict[str, float] = {}
    try:
        while not ports.exists():
            if p.poll() is not None or time.monotonic() - t0 > args.timeout:
                raise SystemExit(f"bench.serve_while_building: the launcher did not start a server (see {tmp})")
            time.sleep(0.05)
        marks["server listening"] = time.monotonic() - t0
        port = json.loads(ports.read_text())["port"]
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            stub = pb_grpc.GameStrategyStub(ch)
            while len([k for k in marks if k.startswith("served ")]) < len(variants):
                if time.monotonic() - t0 > args.timeout or p.poll() is not None:
                    break
                served = {v.variant for v in stub.ListVariants(pb.ListVariantsRequest(), timeout=10).variants}
                for v in served:
                    marks.setdefault(f"served {v}", time.monotonic() - t0)
                if "first SampleMove answered" not in marks and served:
                    v = sorted(served, key=lambda x: marks[f"served {x}"])[0]
                    stub.SampleMove(pb.SampleMoveRequest(variant=v, game_seed=1, jotto=pb.JottoState(
                        role=pb.JottoState.GUESSER)), timeout=30)
                    marks["first SampleMove answered"] = time.monotonic() - t0
                time.sleep(0.1)
    finally:
        t1 = time.monotonic()
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
        p.wait(120)
        stop = time.monotonic() - t1
    print(f"\n`python -m launcher` on an empty root, fresh numba cache, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}; variants: {', '.join(variants)}")
    print(f"{'event':<48}{'seconds':>9}")
    for k, v in sorted(marks.items(), key=lambda kv: kv[1]):
        print(f"{k:<48}{v:>9.1f}")
    print(f"{'SIGTERM -> launcher, server and build stopped':<48}{stop:>9.1f}")
    print(f"(logs in {tmp})")
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    mode = argv.pop(0) if argv and argv[0] in ("p99", "first", "beside") else "p99"
    ap = argparse.ArgumentParser(prog=f"python -m bench.serve_while_building {mode}")
    if mode == "p99":
        ap.add_argument("--seconds", type=float, default=20.0, help="each idle phase")
        ap.add_argument("--build-seconds", type=float, default=300.0, help="at most this much of the build")
        ap.add_argument("--concurrency", type=int, default=4)
        ap.add_argument("--build-variant", default=NEXT)
        ap.add_argument("--root", help="a root holding the smallest default store (default: a new one, built)")
    elif mode == "beside":
        ap.add_argument("--seconds", type=float, default=30.0, help="each window")
        ap.add_argument("--rounds", type=int, default=3)
        ap.add_argument("--churn-mb", type=int, default=1200, help="memory churn: MB allocated and freed at a time")
        ap.add_argument("--root", help="a root holding the smallest default store (default: a new one, built)")
    else:
        ap.add_argument("--variant", action="append", default=[])
        ap.add_argument("--timeout", type=float, default=600.0)
    args = ap.parse_args(argv)
    if mode == "p99" and (args.seconds <= 0 or args.concurrency < 1):
        ap.error("--seconds must be > 0 and --concurrency >= 1")
    if mode == "beside":
        if args.seconds <= 0 or args.rounds < 1 or args.churn_mb < 1:
            ap.error("--seconds must be > 0, --rounds and --churn-mb >= 1")
        args.concurrency = 1
        return beside(args)
    return p99(args) if mode == "p99" else first(args)


if __name__ == "__main__":
    sys.exit(main())
