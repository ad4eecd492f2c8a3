"""Load benchmark: the server as a separate process, driven by a separate load process on loopback.

  python -m builder.loadbench [--seconds 3] [--concurrency 1,16,64] [--workers 0] [--root stores]
  python -m builder.loadbench refresh-run [--seconds 60] [--concurrency 16]   # store refresh mid-run

Tables: requests/s and p50/p99/p99.9 latency for SampleMove book hits, live Jotto answers, GetStats,
SampleMoves batches (64 book moves a call), and a bare gRPC echo server built the same way (same worker
processes, threads and options); our throughput as a fraction of the echo server's.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BATCH = 64


# ---------------------------------------------------------------------------------------- echo server
def echo_server(argv) -> int:
    """A bare gRPC server with the service's process model: forked workers on one SO_REUSEPORT port."""
    from concurrent import futures

    import grpc

    from server.__main__ import _reserve_port

    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--port-file", type=Path, required=True)
    a = ap.parse_args(argv)

    def serve(port, reuse):
        handler = grpc.method_handlers_generic_handler(
            "echo.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(lambda req, ctx: req)})
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=a.threads), handlers=[handler],
                             options=[("grpc.so_reuseport", 1 if reuse else 0)], maximum_concurrent_rpcs=256)
        bound = server.add_insecure_port(f"127.0.0.1:{port}")
        server.start()
        return server, bound

    if a.workers <= 1:
        server, port = serve(0, False)
        a.port_file.write_text(json.dumps({"port": port, "pid": os.getpid()}))
        signal.sigwait({signal.SIGTERM, signal.SIGINT})
        server.stop(0)
        return 0
    with _reserve_port("127.0.0.1", 0) as port:
        kids = []
        for _ in range(a.workers):
            pid = os.fork()
            if pid == 0:
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
                server, _ = serve(port, True)
                signal.sigwait({signal.SIGTERM, signal.SIGINT})
                server.stop(0)
                os._exit(0)
            kids.append(pid)
        a.port_file.write_text(json.dumps({"port": port, "pid": os.getpid()}))
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
        signal.sigwait({signal.SIGTERM, signal.SIGINT})
        for pid in kids:
            os.kill(pid, signal.SIGTERM)
        for pid in kids:
            os.waitpid(pid, 0)
    return 0


# ---------------------------------------------------------------------------------------- load process
def _requests(kind: str, variant: str, live_histories):
    from protos import gamestrategy_pb2 as pb

    def guesser(seed, hist=()):
        return pb.SampleMoveRequest(variant=variant, game_seed=seed, jotto=pb.JottoState(
            role=pb.JottoState.GUESSER, history=[pb.JottoTurn(guess=w, jots=j) for w, j in hist]))

    if kind == "book":
        return "/gamestrategy.v1.GameStrategy/SampleMove", [guesser(s).SerializeToString() for s in range(256)]
    if kind == "live":
        return "/gamestrategy.v1.GameStrategy/SampleMove", [guesser(i, h).SerializeToString()
                                                            for i, h in enumerate(live_histories)]
    if kind == "stats":
        return "/gamestrategy.v1.GameStrategy/GetStats", [pb.GetStatsRequest(variant=variant).SerializeToString()]
    if kind == "batch":
        return "/gamestrategy.v1.GameStrategy/SampleMoves", [
            pb.SampleMovesRequest(requests=[guesser(k * BATCH + s) for s in range(BATCH)]).SerializeToString()
            for k in range(4)]
    if kind == "echo":
        return "/echo.Echo/Echo", [guesser(s).SerializeToString() for s in range(256)]
    if kind == "dudo":  # store lookups: both seats of the largest group, with and without a claim to answer
        import random
        import re as _re

        d = int(_re.search(r"-(\d)dice$", variant).group(1))
        rnd = random.Random(0)
        bodies = []
        for s in range(256):
            opened = s % 2 == 0
            hist = [] if opened else [pb.DudoClaim(count=1, face=rnd.randint(2, 6))]
            bodies.append(pb.SampleMoveRequest(variant=variant, game_seed=s, dudo=pb.DudoState(
                own_dice=d, opponent_dice=d, roll=[rnd.randint(1, 6) for _ in range(d)], history=hist,
                requester_opened=opened)).SerializeToString())
        return "/gamestrategy.v1.GameStrategy/SampleMove", bodies
    raise ValueError(kind)


async def _drive(target, method, bodies, concurrency, seconds, channels, record_versions=False):
    import grpc
    from grpc import aio

    from protos import gamestrategy_pb2 as pb

    chans = [aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(channels)]
    calls = [ch.unary_unary(method) for ch in chans]
    for c in calls:  # connect and warm every channel
        await c(bodies[0], timeout=30, wait_for_ready=True)
    lat, stamps, versions, errors = [], [], [], {}
    t_start = time.perf_counter()
    t_end = t_start + seconds

    async def worker(k):
        call = calls[k % len(calls)]
        i = k
        while time.perf_counter() < t_end:
            body = bodies[i % len(bodies)]
            i += concurrency
            t0 = time.perf_counter()
            try:
                raw = await call(body, timeout=30)
            except grpc.RpcError as e:
                errors[e.code().name] = errors.get(e.code().name, 0) + 1
                continue
            t1 = time.perf_counter()
            lat.append(t1 - t0)
            if record_versions:
                stamps.append(t1 - t_start)
                versions.append(pb.SampleMoveReply.FromString(raw).store_version)

    await asyncio.gather(*(worker(k) for k in range(concurrency)))
    elapsed = time.perf_counter() - t_start
    for ch in chans:
        await ch.close()
    return {"elapsed": elapsed, "lat": lat, "stamps": stamps, "versions": versions, "errors": errors}


def load(argv) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)
    ap.add_argument("--kind", required=True)
    ap.add_argument("--variant", default="")
    ap.add_argument("--live", default="[]", help="JSON list of histories reaching live states")
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--channels", type=int, default=4)
    ap.add_argument("--versions", action="store_true")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    method, bodies = _requests(a.kind, a.variant, json.loads(a.live))
    r = asyncio.run(_drive(a.target, method, bodies, a.concurrency, a.seconds,
                           min(a.channels, a.concurrency), a.versions))
    a.out.write_text(json.dumps(r))
    return 0


# ---------------------------------------------------------------------------------------- driver
def _pct(xs, q):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def _start(cmd, port_file, log):
    port_file.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    p = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    for _ in range(1200):
        if port_file.exists():
            return p, json.loads(port_file.read_text())["port"]
        if p.poll() is not None:
            raise RuntimeError(f"server exited with {p.returncode}: see {log.name}")
        time.sleep(0.05)
    p.kill()
    raise RuntimeError("server did not start")


def _stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def _run_load(target, kind, variant, live, concurrency, seconds, tmp, versions=False):
    out = Path(tmp) / f"load-{kind}-{concurrency}.json"
    cmd = [sys.executable, "-m", "builder.loadbench", "load", "--target", target, "--kind", kind,
           "--variant", variant, "--live", json.dumps(live), "--concurrency", str(concurrency),
           "--seconds", str(seconds), "--out", str(out)] + (["--versions"] if versions else [])
    subprocess.run(cmd, cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), check=True)
    return json.loads(out.read_text())


def _live_histories(root: Path, variant: str, n: int = 32) -> list:
    """Histories whose final state is below the book threshold (answered live), found in-process."""
    from games.storage import Store, current_stores
    from server.jotto_backend import JottoBackend

    b = JottoBackend(Store(current_stores(root, "jotto")[variant]))
    o, out = b.oracle, []
    for g in range(o.D):
        hit = next(([[b.dictionary.words[g], a], [b.dictionary.words[h], e]]
                    for a in range(o.L) for h in range(g + 1, o.D) for e in range(o.L)
                    if 1 < len(o.consistent([g, h], [a, e])) <= b.threshold), None)
        if hit:
            out.append(hit)
        if len(out) >= n:
            break
    b.store.close()
    return out


def _pick_variant(root: Path) -> str:
    from games.storage import current_stores

    variants = sorted(current_stores(root, "jotto"))
    if not variants:
        raise SystemExit(f"no store under {root}: run `make build-default-stores` first")
    return "jotto-en_US80-3-ganzfried" if "jotto-en_US80-3-ganzfried" in variants else variants[0]


def table(args) -> int:
    root = args.root
    variant = args.variant or _pick_variant(root)
    live = _live_histories(root, variant)
    concs = [int(x) for x in args.concurrency.split(",")]
    from games.storage import current_stores

    dudo_variant = next(iter(sorted(current_stores(root, "dudo"))), None)
    kinds = [k for k in args.kinds.split(",") if k != "dudo" or dudo_variant]
    print(f"\nLoad on loopback: server ({args.workers} workers) and load generator in separate processes, "
          f"{args.seconds:g} s per cell, {os.cpu_count()} cores (shared with anything else running: noisy)")
    print(f"variant {variant}; live = {len(live)} histories below the book threshold (memoised after their "
          f"first answer); batch = SampleMoves of {BATCH} book moves, rates in moves/s; dudo = lookups in {dudo_variant}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        results = {}
        with open(tmp / "echo.log", "wb") as log:
            p, port = _start([sys.executable, "-m", "builder.loadbench", "echo-server", "--workers",
                              str(args.workers), "--threads", str(args.threads), "--port-file", str(tmp / "echo.json")],
                             tmp / "echo.json", log)
            try:
                for c in concs:
                    results[("echo", c)] = _run_load(f"127.0.0.1:{port}", "echo", variant, live, c, args.seconds, tmp)
            finally:
                _stop(p)
        with open(tmp / "server.log", "wb") as log:
            p, port = _start([sys.executable, "-m", "server", "--root", str(root), "--port", "0", "--workers",
                              str(args.workers), "--threads", str(args.threads), "--metrics-port", "-1",
                              "--log-level", "WARNING", "--port-file", str(tmp / "server.json")],
                             tmp / "server.json", log)
            try:
                for kind in [k for k in ("book", "live", "stats", "batch", "dudo") if k in kinds]:
                    for c in concs:
                        v = dudo_variant if kind == "dudo" else variant
                        results[(kind, c)] = _run_load(f"127.0.0.1:{port}", kind, v, live, c, args.seconds, tmp)
            finally:
                _stop(p)
    print(f"\n{'call':10s} {'conc':>5s} {'req/s':>9s} {'p50 ms':>8s} {'p99 ms':>8s} {'p99.9 ms':>9s} "
          f"{'errors':>7s} {'/ echo':>7s}")
    for kind in [k for k in ("echo", "book", "live", "stats", "batch", "dudo") if k == "echo" or k in kinds]:
        for c in concs:
            r = results[(kind, c)]
            rps = len(r["lat"]) / r["elapsed"]
            per = rps * (BATCH if kind == "batch" else 1)
            echo = len(results[("echo", c)]["lat"]) / results[("echo", c)]["elapsed"]
            ratio = f"{per / echo:7.2f}" if kind != "echo" else "   1.00"
            print(f"{kind:10s} {c:5d} {per:9.0f} {_pct(r['lat'], .5) * 1e3:8.3f} {_pct(r['lat'], .99) * 1e3:8.3f} "
                  f"{_pct(r['lat'], .999) * 1e3:9.3f} {sum(r['errors'].values()):7d} {ratio}")
    return 0


def refresh_run(args) -> int:
    """A long load run at one concurrency with a new store published (and SIGHUP) half-way."""
    from builder.jotto import JottoParams, build_jotto_store
    from games.storage import current_stores

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        root = tmp / "stores"
        variant = args.variant or "jotto-en_US80-3-ganzfried"
        params = dict(do_iterations=4, book_threshold=30)
        build_jotto_store(variant, JottoParams(fp_iterations=40, **params), root)
        v1 = current_stores(root, "jotto")[variant].name
        live = _live_histories(root, variant)
        with open(tmp / "server.log", "wb") as log:
            p, port = _start([sys.executable, "-m", "server", "--root", str(root), "--port", "0", "--workers",
                              str(args.workers), "--metrics-port", "-1", "--refresh-seconds", "2",
                              "--port-file", str(tmp / "server.json")], tmp / "server.json", log)
            try:
                out = tmp / "load.json"
                cmd = [sys.executable, "-m", "builder.loadbench", "load", "--target", f"127.0.0.1:{port}",
                       "--kind", "book", "--variant", variant, "--concurrency", str(args.concurrency),
                       "--seconds", str(args.seconds), "--versions", "--out", str(out)]
                t0 = time.perf_counter()
                lp = subprocess.Popen(cmd, cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)))
                time.sleep(args.seconds / 2)
                t_build = time.perf_counter() - t0
                build_jotto_store(variant, JottoParams(fp_iterations=41, **params), root)
                v2 = current_stores(root, "jotto")[variant].name
                t_pub = time.perf_counter() - t0
                p.send_signal(signal.SIGHUP)
                lp.wait()
                r = json.loads(out.read_text())
            finally:
                _stop(p)
            logs = (tmp / "server.log").read_text()
    stamps, lat, vers = r["stamps"], r["lat"], r["versions"]
    first_v2 = min((s for s, v in zip(stamps, vers) if v == v2), default=None)
    last_v1 = max((s for s, v in zip(stamps, vers) if v == v1), default=None)
    print(f"\nRefresh under load: {args.seconds:g} s of SampleMove book hits at concurrency {args.concurrency}, "
          f"{args.workers} workers; a new store built from t={t_build:.1f} s, published at t={t_pub:.1f} s "
          "(+SIGHUP; the workers also poll every 2 s)")
    errors = sum(r["errors"].values())
    print(f"requests answered {len(lat)}, failed {errors} {r['errors'] or ''}; answered by {v1}: "
          f"{vers.count(v1)}, by {v2}: {vers.count(v2)}; last {v1} reply at t={last_v1:.2f} s, "
          f"first {v2} reply at t={first_v2:.2f} s" if first_v2 is not None else f"no reply from {v2}")
    windows = [("before the build", 0, t_build), ("during the build and swap", t_build, (first_v2 or t_pub) + 2),
               ("after", (first_v2 or t_pub) + 2, args.seconds + 1)]
    print(f"{'window':28s} {'req/s':>8s} {'p50 ms':>8s} {'p99 ms':>8s} {'p99.9 ms':>9s}")
    for name, a, b in windows:
        xs = [x for s, x in zip(stamps, lat) if a <= s < b]
        print(f"{name:28s} {len(xs) / max(b - a, 1e-9):8.0f} {_pct(xs, .5) * 1e3:8.3f} {_pct(xs, .99) * 1e3:8.3f} "
              f"{_pct(xs, .999) * 1e3:9.3f}")
    swaps = sum('"serving store"' in line and v2 in line for line in logs.splitlines())
    closed = sum('"closed store"' in line and v1 in line for line in logs.splitlines())
    print(f"server log: {swaps} workers swapped to {v2}, {closed} closed {v1}")
    return 1 if errors or first_v2 is None else 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "echo-server":
        return echo_server(argv[1:])
    if argv and argv[0] == "load":
        return load(argv[1:])
    mode = "table"
    if argv and argv[0] == "refresh-run":
        mode, argv = "refresh-run", argv[1:]
    from games.storage import DEFAULT_ROOT

    ap = argparse.ArgumentParser(prog="python -m builder.loadbench")
    ap.add_argument("--root", type=Path, default=Path(os.environ.get("GAMESTRATEGY_STORES", DEFAULT_ROOT)))
    ap.add_argument("--variant", default="")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=3.0 if mode == "table" else 60.0)
    ap.add_argument("--concurrency", default="1,16,64" if mode == "table" else "16")
    ap.add_argument("--kinds", default="book,live,stats,batch,dudo",
                    help="calls to measure besides the echo baseline (dudo: lookups in the first Dudo store)")
    args = ap.parse_args(argv)
    if mode == "refresh-run":
        args.concurrency = int(args.concurrency)
        return refresh_run(args)
    return table(args)


if __name__ == "__main__":
    raise SystemExit(main())
