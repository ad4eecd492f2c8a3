"""Load benchmark: the server as a separate process, driven by a separate load process on loopback.

  python -m bench.load [--seconds 1.5] [--repeats 5] [--concurrency 1,16,64] [--kinds ...] [--root stores]
  python -m bench.load refresh-run [--seconds 60] [--concurrency 16]   # store refresh mid-run

Tables: requests/s, p50/p99/p99.9 latency and server CPU per call for SampleMove book hits, live Jotto
answers, GetStats, SampleMoves batches (64 book moves a call), SampleMoveStream (book moves on
bidirectional streams), Dudo lookups, and a bare gRPC echo server built the same way (same worker
processes, threads and options; unary and streaming echo methods); our throughput as a fraction of the
echo server's. Book hits and streams run alternately with their echo baseline, --repeats times each.
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
    """A bare gRPC server with the service's process model: forked workers on one SO_REUSEPORT port.

    Same worker processes, handler threads, server options and concurrency limit as the service. Its
    methods take and return raw bytes (no protobuf parsing or serialising, no interceptors, no metrics,
    no health or reflection services): `Echo` returns the request body, `EchoStream` each message. The
    ratio to it is therefore what our whole per-call Python path costs over gRPC's own.

    ``--aio``: the same on ``grpc.aio`` (asyncio: one event loop a worker instead of the thread pool;
    same worker processes, options and concurrency limit), the other way to build a Python gRPC server."""
    from concurrent import futures

    import grpc

    from server.supervisor import reserved_port

    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--aio", action="store_true")
    ap.add_argument("--port-file", type=Path, required=True)
    a = ap.parse_args(argv)
    options = [("grpc.max_receive_message_length", 4 * 1024 * 1024)]  # server.app.build_server's

    def serve_aio(port, reuse, bound_to=None):
        """Serve until SIGTERM/SIGINT on an asyncio event loop."""
        async def echo(req, ctx):
            return req

        async def echo_stream(it, ctx):
            async for m in it:
                yield m

        async def main():
            handler = grpc.method_handlers_generic_handler("echo.Echo", {
                "Echo": grpc.unary_unary_rpc_method_handler(echo),
                "EchoStream": grpc.stream_stream_rpc_method_handler(echo_stream)})
            server = grpc.aio.server(handlers=[handler], options=options + [("grpc.so_reuseport", 1 if reuse else 0)],
                                     maximum_concurrent_rpcs=256)
            bound = server.add_insecure_port(f"127.0.0.1:{port}")
            await server.start()
            if bound_to is not None:
                bound_to(bound)
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, stop.set)
            await stop.wait()
            await server.stop(0)

        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
        asyncio.run(main())

    if a.aio and a.workers <= 1:
        serve_aio(0, False, lambda port: a.port_file.write_text(json.dumps({"port": port, "pid": os.getpid()})))
        return 0

    def serve(port, reuse):
        handler = grpc.method_handlers_generic_handler("echo.Echo", {
            "Echo": grpc.unary_unary_rpc_method_handler(lambda req, ctx: req),
            "EchoStream": grpc.stream_stream_rpc_method_handler(lambda it, ctx: it)})
        # the service's server options (server.app.build_server) and thread pool, no interceptors
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=a.threads), handlers=[handler],
                             options=options + [("grpc.so_reuseport", 1 if reuse else 0)], maximum_concurrent_rpcs=256)
        bound = server.add_insecure_port(f"127.0.0.1:{port}")
        server.start()
        return server, bound

    if a.workers <= 1:
        server, port = serve(0, False)
        a.port_file.write_text(json.dumps({"port": port, "pid": os.getpid()}))
        signal.sigwait({signal.SIGTERM, signal.SIGINT})
        server.stop(0)
        return 0
    with reserved_port("127.0.0.1", 0) as reserved:
        port = reserved.getsockname()[1]
        kids = []
        for _ in range(a.workers):
            pid = os.fork()
            if pid == 0:
                if a.aio:
                    serve_aio(port, True)
                    os._exit(0)
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
    if kind == "http-book":  # the same book requests as JSON for POST /v1/SampleMove
        from google.protobuf import json_format

        return "/v1/SampleMove", [json_format.MessageToJson(guesser(s), indent=None).encode() for s in range(256)]
    if kind == "echo":
        return "/echo.Echo/Echo", [guesser(s).SerializeToString() for s in range(256)]
    if kind == "echo-stream":
        return "/echo.Echo/EchoStream", [guesser(s).SerializeToString() for s in range(256)]
    if kind == "stream":
        return "/gamestrategy.v1.GameStrategy/SampleMoveStream", [guesser(s).SerializeToString() for s in range(256)]
    if kind == "dudo":  # store lookups: both seats of the largest group, with and without a claim to answer
        import random
        import re as _re

        d = int(_re.search(r"-(\d)dice(?:-|$)", variant).group(1))  # dudo-m3-2dice, dudo-5dice-default
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
    start_epoch = time.time()
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
    return {"elapsed": elapsed, "lat": lat, "stamps": stamps, "versions": versions, "errors": errors,
            "start_epoch": start_epoch}


STREAMS = 4  # streaming cells: concurrency c = min(c, STREAMS) streams, each with c / streams messages in flight


async def _drive_stream(target, method, bodies, concurrency, seconds, check):
    """`concurrency` messages in flight over min(concurrency, STREAMS) bidirectional streams (one a channel)."""
    from collections import deque

    import grpc
    from grpc import aio

    from protos import gamestrategy_pb2 as pb

    n = min(concurrency, STREAMS)
    window = max(1, concurrency // n)
    chans = [aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(n)]
    lat, errors = [], {}
    go = asyncio.Event()
    ready = []
    box = {}

    async def worker(k):
        call = chans[k].stream_stream(method)(timeout=seconds + 60, wait_for_ready=True)
        await call.write(bodies[k % len(bodies)])  # connect and warm
        await call.read()
        ready.append(k)
        if len(ready) == n:
            box["t_end"] = time.perf_counter() + seconds
            go.set()
        await go.wait()
        t_end = box["t_end"]
        sent = deque()
        i = k
        for _ in range(window):
            await call.write(bodies[i % len(bodies)])
            sent.append(time.perf_counter())
            i += n
        while sent:
            raw = await call.read()
            t1 = time.perf_counter()
            lat.append(t1 - sent.popleft())
            if check:
                code = pb.SampleMoveResult.FromString(raw).code
                if code:
                    errors[str(code)] = errors.get(str(code), 0) + 1
            if t1 < t_end:
                await call.write(bodies[i % len(bodies)])
                sent.append(time.perf_counter())
                i += n
        await call.done_writing()
        await call.read()  # end of stream
        code = await call.code()
        if code != grpc.StatusCode.OK:
            errors[code.name] = errors.get(code.name, 0) + 1

    t0 = time.perf_counter()
    await asyncio.gather(*(worker(k) for k in range(n)))
    elapsed = time.perf_counter() - (box["t_end"] - seconds) if "t_end" in box else time.perf_counter() - t0
    for ch in chans:
        await ch.close()
    return {"elapsed": elapsed, "lat": lat, "stamps": [], "versions": [], "errors": errors}


async def _drive_http(target, path, bodies, concurrency, seconds):
    """`concurrency` HTTP/1.1 keep-alive connections, one request in flight on each (closed loop), the
    same bodies in the same order as the gRPC driver's."""
    host, port = target.rsplit(":", 1)
    conns = [await asyncio.open_connection(host, int(port)) for _ in range(concurrency)]
    lat, errors = [], {}
    head = b"POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %%d\r\n\r\n" % (
        path.encode(), target.encode())

    async def call(reader, writer, body):
        writer.write(head % len(body) + body)
        status = int((await reader.readline()).split()[1])
        length = 0
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        await reader.readexactly(length)
        return status

    for r, w in conns:  # connect and warm every connection
        await call(r, w, bodies[0])
    t_start = time.perf_counter()
    t_end = t_start + seconds

    async def worker(k):
        reader, writer = conns[k]
        i = k
        while time.perf_counter() < t_end:
            body = bodies[i % len(bodies)]
            i += concurrency
            t0 = time.perf_counter()
            status = await call(reader, writer, body)
            if status != 200:
                errors[str(status)] = errors.get(str(status), 0) + 1
                continue
            lat.append(time.perf_counter() - t0)

    await asyncio.gather(*(worker(k) for k in range(concurrency)))
    elapsed = time.perf_counter() - t_start
    for _, w in conns:
        w.close()
    return {"elapsed": elapsed, "lat": lat, "stamps": [], "versions": [], "errors": errors}


def _cpu_seconds(pids) -> float:
    """User + system CPU time of these processes (clock ticks of /proc/<pid>/stat)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _one(run, concurrency, seconds, channels, versions=False):
    method, bodies = _requests(run["kind"], run.get("variant", ""), run.get("live", []))
    cpu0 = _cpu_seconds(run.get("pids", ()))
    if run["kind"].startswith("http-"):
        r = asyncio.run(_drive_http(run["target"], method, bodies, concurrency, seconds))
    elif run["kind"] in ("stream", "echo-stream"):
        r = asyncio.run(_drive_stream(run["target"], method, bodies, concurrency, seconds, run["kind"] == "stream"))
    else:
        r = asyncio.run(_drive(run["target"], method, bodies, concurrency, seconds, min(channels, concurrency),
                               versions))
    r["server_cpu"] = _cpu_seconds(run.get("pids", ())) - cpu0
    r["kind"] = run["kind"]
    return r


def load(argv) -> int:
    """One load process: a single run (--target/--kind), or a series of runs (--runs, a JSON list of
    {target, kind, variant, live, pids}) one after the other at the same concurrency."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--target")
    ap.add_argument("--kind")
    ap.add_argument("--runs", default="", help="JSON list of runs")
    ap.add_argument("--variant", default="")
    ap.add_argument("--live", default="[]", help="JSON list of histories reaching live states")
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--channels", type=int, default=4)
    ap.add_argument("--versions", action="store_true")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    if a.runs:
        out = [_one(run, a.concurrency, a.seconds, a.channels) for run in json.loads(a.runs)]
    else:
        out = _one({"target": a.target, "kind": a.kind, "variant": a.variant, "live": json.loads(a.live)},
                   a.concurrency, a.seconds, a.channels, a.versions)
    a.out.write_text(json.dumps(out))
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


def _busy_seconds() -> float:
    """CPU time the whole machine spent busy (all cores), from /proc/stat."""
    try:
        f = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return float("nan")
    return (sum(f[:8]) - f[3] - f[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait


OTHERS = {"busy": 0.0, "ours": 0.0, "wall": 0.0}  # machine CPU during the runs, and ours (servers + load)
LOADGEN: list[tuple[float, float]] = []  # (CPU seconds, wall seconds) of each load process


def _run_series(runs, concurrency, seconds, tmp, tag, server_pids=()):
    """Runs one after the other in one load process (no process start between them)."""
    import resource

    out = Path(tmp) / f"load-{tag}-{concurrency}.json"
    cmd = [sys.executable, "-m", "bench.load", "load", "--runs", json.dumps(runs), "--concurrency",
           str(concurrency), "--seconds", str(seconds), "--out", str(out)]
    ru0, busy0, srv0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), _busy_seconds(), _cpu_seconds(server_pids), \
        time.perf_counter()
    subprocess.run(cmd, cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), check=True)
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    LOADGEN.append((ru1.ru_utime - ru0.ru_utime + ru1.ru_stime - ru0.ru_stime, time.perf_counter() - t0))
    OTHERS["busy"] += _busy_seconds() - busy0
    OTHERS["ours"] += (_cpu_seconds(server_pids) - srv0 + ru1.ru_utime - ru0.ru_utime + ru1.ru_stime - ru0.ru_stime)
    OTHERS["wall"] += time.perf_counter() - t0
    return json.loads(out.read_text())


def _tree(pid: int) -> list[int]:
    """A server process and its worker processes."""
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        kids = []
    return [pid] + [int(k) for k in kids]


def _live_histories(root: Path, variant: str, n: int = 32) -> list:
    """Histories whose final state is below the book threshold (answered live), found in-process."""
    from games.storage import Store, current_stores
    from server.backends.jotto import JottoBackend

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


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return float("nan") if not n else xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def table(args) -> int:
    root = args.root
    variant = args.variant or _pick_variant(root)
    live = _live_histories(root, variant)
    concs = [int(x) for x in args.concurrency.split(",")]
    from games.storage import current_stores

    dudo_variant = next(iter(sorted(current_stores(root, "dudo"))), None)
    kinds = [k for k in args.kinds.split(",") if k != "dudo" or dudo_variant]
    paired = {"book": "echo", "stream": "echo-stream"}  # measured in alternation with their baseline
    # book hits alternate with both echo servers: the synchronous one (ours) and the asyncio one
    reps = max(1, args.repeats)
    print(f"\nLoad on loopback: server ({args.workers} workers x {args.threads} threads) and load generator in "
          f"separate processes, {os.cpu_count()} cores (shared with anything else running)")
    print(f"variant {variant}; {args.seconds:g} s per run; book and stream: {reps} runs alternating with their echo "
          f"baseline in one load process, figures = median run (ratio: median of the {reps} paired ratios, "
          "with their range); other calls: 1 run, ratio to the median echo run")
    print(f"live = {len(live)} histories below the book threshold (memoised after their first answer); batch = "
          f"SampleMoves of {BATCH} book moves a call; stream = SampleMoveStream of book moves, min(c, {STREAMS}) "
          f"streams with c messages in flight in all; rates of batch and stream in moves/s; dudo = lookups in "
          f"{dudo_variant}; srv us = server CPU time (user + system, all its processes) per call or move, cpu x = "
          "that over the echo server's (median of the paired runs)")
    print("echo = the same gRPC server (processes, threads, options) with methods returning the raw request "
          "bytes: no parsing, serialising, interceptors or metrics; echo-aio = the same on grpc.aio (one asyncio "
          "event loop a worker), run in alternation with echo and book (its / echo: paired, against echo)")
    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        with open(tmp / "echo.log", "wb") as elog, open(tmp / "server.log", "wb") as slog:
            ep, eport = _start([sys.executable, "-m", "bench.load", "echo-server", "--workers",
                                str(args.workers), "--threads", str(args.threads), "--port-file",
                                str(tmp / "echo.json")], tmp / "echo.json", elog)
            ap_, aport = _start([sys.executable, "-m", "bench.load", "echo-server", "--aio", "--workers",
                                 str(args.workers), "--port-file", str(tmp / "echo-aio.json")],
                                tmp / "echo-aio.json", elog)
            try:
                sp, sport = _start([sys.executable, "-m", "server", "--root", str(root), "--port", "0", "--workers",
                                    str(args.workers), "--threads", str(args.threads), "--metrics-port", "-1", "--http-port", "-1",
                                    "--log-level", "WARNING", "--port-file", str(tmp / "server.json")],
                                   tmp / "server.json", slog)
                try:
                    echo = {"target": f"127.0.0.1:{eport}", "pids": _tree(ep.pid)}
                    echo_aio = {"target": f"127.0.0.1:{aport}", "pids": _tree(ap_.pid)}
                    ours = {"target": f"127.0.0.1:{sport}", "pids": _tree(sp.pid), "variant": variant, "live": live}
                    pids = echo["pids"] + echo_aio["pids"] + ours["pids"]
                    for c in concs:
                        for kind, base in paired.items():
                            if kind == "book":
                                runs = [dict(echo, kind="echo"), dict(echo_aio, kind="echo"), dict(ours, kind=kind)] * reps
                                rs = _run_series(runs, c, args.seconds, tmp, kind, pids)
                                results[("echo", c)], results[("echo-aio", c)], results[("book", c)] = \
                                    rs[0::3], rs[1::3], rs[2::3]
                            elif kind in kinds:
                                runs = [dict(echo, kind=base), dict(ours, kind=kind)] * reps
                                rs = _run_series(runs, c, args.seconds, tmp, kind, pids)
                                results[(base, c)] = rs[0::2]
                                results[(kind, c)] = rs[1::2]
                        others = [k for k in ("live", "stats", "batch", "dudo") if k in kinds]
                        if others:
                            runs = [dict(ours, kind=k, variant=dudo_variant if k == "dudo" else variant)
                                    for k in others]
                            for k, r in zip(others, _run_series(runs, c, args.seconds, tmp, "others", pids)):
                                results[(k, c)] = [r]
                finally:
                    _stop(sp)
            finally:
                _stop(ep)
                _stop(ap_)

    def rate(kind, r):
        return len(r["lat"]) / r["elapsed"] * (BATCH if kind == "batch" else 1)

    def cpu(kind, r):
        return r["server_cpu"] / max(1, len(r["lat"]) * (BATCH if kind == "batch" else 1))

    print(f"\n{'call':12s} {'conc':>5s} {'req/s':>9s} {'p50 ms':>8s} {'p99 ms':>8s} {'p99.9 ms':>9s} "
          f"{'errors':>7s} {'srv us':>7s} {'cpu x':>6s} {'/ echo':>7s}  range")
    order = ["echo", "echo-aio", "book", "live", "stats", "batch", "dudo", "echo-stream", "stream"]
    paired["echo-aio"] = "echo"
    for kind in [k for k in order if any((k, c) in results for c in concs)]:
        for c in concs:
            rs = results[(kind, c)]
            rates = [rate(kind, r) for r in rs]
            mid = sorted(range(len(rs)), key=lambda i: rates[i])[len(rs) // 2]
            lat = rs[mid]["lat"]
            per_call = [cpu(kind, r) * 1e6 for r in rs]
            base = paired.get(kind) or ("echo" if kind not in ("echo", "echo-stream") else None)
            if base is None:
                ratio, rng, cpux = "   1.00", "", "  1.00"
            elif kind in paired:
                ratios = [rate(kind, r) / rate(base, e) for r, e in zip(rs, results[(base, c)])]
                ratio = f"{_median(ratios):7.2f}"
                rng = f"{min(ratios):.2f}-{max(ratios):.2f}" if len(ratios) > 1 else ""
                cpux = f"{_median([cpu(kind, r) / cpu(base, e) for r, e in zip(rs, results[(base, c)])]):6.2f}"
            else:
                ratio = f"{rates[0] / _median([rate(base, e) for e in results[(base, c)]]):7.2f}"
                rng = ""
                cpux = f"{cpu(kind, rs[0]) / _median([cpu(base, e) for e in results[(base, c)]]):6.2f}"
            print(f"{kind:12s} {c:5d} {rates[mid]:9.0f} {_pct(lat, .5) * 1e3:8.3f} {_pct(lat, .99) * 1e3:8.3f} "
                  f"{_pct(lat, .999) * 1e3:9.3f} {sum(sum(r['errors'].values()) for r in rs):7d} "
                  f"{_median(per_call):7.1f} {cpux} {ratio}  {rng}")
    best = []
    for c in concs:
        if ("echo-aio", c) in results:
            aio_x = _median([rate("echo", a) / rate("echo", e) for a, e in zip(results[("echo-aio", c)],
                                                                                results[("echo", c)])])
            faster = "echo-aio" if aio_x > 1 else "echo"
            ratios = [rate("book", r) / rate(faster, e) for r, e in zip(results[("book", c)], results[(faster, c)])]
            best.append(f"c={c}: {_median(ratios):.2f} of {faster} ({min(ratios):.2f}-{max(ratios):.2f})")
    if best:
        print("book hits / the faster echo server at each concurrency (median of the paired ratios, range): "
              + "; ".join(best))
    if LOADGEN:
        share = sorted(c / w for c, w in LOADGEN)
        print(f"load generator (one process, asyncio): CPU {share[0]:.2f}-{share[-1]:.2f} of a core over each series "
              f"(median {_median(share):.2f}), start-up included; it would limit the rates near 1.00")
    if OTHERS["wall"] > 0:
        others = max(0.0, OTHERS["busy"] - OTHERS["ours"]) / OTHERS["wall"]
        print(f"during the runs other processes kept {others:.2f} of the {os.cpu_count()} cores busy (ours: servers and "
              f"load generator at nice {os.nice(0)}); more than a few hundredths make the ratios noisy")
    if ("stream", concs[0]) in results:
        print("stream / unary echo (moves/s over echo req/s): " + ", ".join(
            f"c={c}: {_median([rate('stream', r) for r in results[('stream', c)]]) / _median([rate('echo', e) for e in results[('echo', c)]]):.2f}"
            for c in concs))
    return 0


def http_table(args) -> int:
    """Book hits over HTTP/JSON next to gRPC, from one server serving both; and gRPC book hits of a
    second server with HTTP off (does serving HTTP slow gRPC?). The same load generator alternates the
    three, `repeats` rounds per concurrency."""
    root = args.root
    variant = args.variant or _pick_variant(root)
    concs = [int(x) for x in args.concurrency.split(",")]
    reps = max(1, args.repeats)
    results: dict = {}

    def server(tag, http_port, log):
        return _start([sys.executable, "-m", "server", "--root", str(root), "--port", "0", "--http-port", http_port,
                       "--workers", str(args.workers), "--threads", str(args.threads), "--metrics-port", "-1",
                       "--log-level", "WARNING", "--port-file", str(tmp / f"{tag}.json")], tmp / f"{tag}.json", log)

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        with open(tmp / "server.log", "wb") as slog, open(tmp / "plain.log", "wb") as plog:
            sp, _ = server("server", "0", slog)
            try:
                pp, pport = server("plain", "-1", plog)
                try:
                    ports = json.loads((tmp / "server.json").read_text())
                    pids = _tree(sp.pid) + _tree(pp.pid)
                    grpc_run = {"target": f"127.0.0.1:{ports['port']}", "pids": _tree(sp.pid), "variant": variant,
                                "kind": "book"}
                    http_run = dict(grpc_run, target=f"127.0.0.1:{ports['http_port']}", kind="http-book")
                    plain_run = dict(grpc_run, target=f"127.0.0.1:{pport}", pids=_tree(pp.pid))
                    for c in concs:
                        rs = _run_series([plain_run, grpc_run, http_run] * reps, c, args.seconds, tmp, "http", pids)
                        results[("grpc, http off", c)], results[("grpc", c)], results[("http", c)] = \
                            rs[0::3], rs[1::3], rs[2::3]
                finally:
                    _stop(pp)
            finally:
                _stop(sp)
    print(f"\nBook hits over HTTP/JSON (POST /v1/SampleMove) and gRPC from one server ({args.workers} workers x "
          f"{args.threads} threads), and gRPC from the same server with HTTP off; same load generator, {variant}; "
          f"{reps} rounds of {args.seconds:g} s runs alternating the three; figures = median run, ratios = median of "
          "the paired ratios (range); HTTP: one keep-alive connection per request in flight, gRPC: min(c, 4) channels")
    print(f"{'call':16s} {'conc':>5s} {'req/s':>9s} {'p50 ms':>8s} {'p99 ms':>8s} {'p99.9 ms':>9s} {'errors':>7s} "
          f"{'srv us':>7s} {'ratio':>22s}  range")

    def rates(rs):
        return [len(r["lat"]) / r["elapsed"] for r in rs]

    for kind, base, what in (("grpc, http off", None, ""), ("grpc", "grpc, http off", "grpc / http off"),
                             ("http", "grpc", "http / grpc")):
        for c in concs:
            rs = results[(kind, c)]
            rr = rates(rs)
            mid = sorted(range(len(rs)), key=lambda i: rr[i])[len(rs) // 2]
            lat = rs[mid]["lat"]
            srv = _median([r["server_cpu"] / max(1, len(r["lat"])) * 1e6 for r in rs])
            ratio, rng = "", ""
            if base:
                ratios = [a / b for a, b in zip(rr, rates(results[(base, c)]))]
                ratio, rng = f"{what} {_median(ratios):5.2f}", f"{min(ratios):.2f}-{max(ratios):.2f}"
            print(f"{kind + ' book':16s} {c:5d} {rr[mid]:9.0f} {_pct(lat, .5) * 1e3:8.3f} {_pct(lat, .99) * 1e3:8.3f} "
                  f"{_pct(lat, .999) * 1e3:9.3f} {sum(sum(r['errors'].values()) for r in rs):7d} {srv:7.1f} "
                  f"{ratio:>22s}  {rng}")
    if OTHERS["wall"] > 0:
        others = max(0.0, OTHERS["busy"] - OTHERS["ours"]) / OTHERS["wall"]
        print(f"during the runs other processes kept {others:.2f} of the {os.cpu_count()} cores busy")
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
                              str(args.workers), "--metrics-port", "-1", "--http-port", "-1", "--refresh-seconds", "2",
                              "--port-file", str(tmp / "server.json")], tmp / "server.json", log)
            try:
                out = tmp / "load.json"
                cmd = [sys.executable, "-m", "bench.load", "load", "--target", f"127.0.0.1:{port}",
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
    if argv and argv[0] in ("refresh-run", "http"):
        mode, argv = argv[0], argv[1:]
    from games.storage import stores_root

    ap = argparse.ArgumentParser(prog="python -m bench.load")
    ap.add_argument("--root", type=Path, default=stores_root())
    ap.add_argument("--variant", default="")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60.0 if mode == "refresh-run" else 1.5)
    ap.add_argument("--concurrency", default="16" if mode == "refresh-run" else "1,16,64")
    ap.add_argument("--repeats", type=int, default=5 if mode == "table" else 3,
                    help="book and stream runs, each alternating with echo (http: with gRPC)")
    ap.add_argument("--kinds", default="book,live,stats,batch,dudo,stream",
                    help="calls to measure besides the echo baseline (dudo: lookups in the first Dudo store)")
    args = ap.parse_args(argv)
    if mode == "refresh-run":
        args.concurrency = int(args.concurrency)
        return refresh_run(args)
    if mode == "http":
        return http_table(args)
    return table(args)


if __name__ == "__main__":
    raise SystemExit(main())
