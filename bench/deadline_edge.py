"""Endgame re-solves stopped at the caller's deadline: each must reach its caller as the store's row marked
DEGRADED, never as DEADLINE_EXCEEDED (docs/serving.md, "Two races of the serving path").

  python -m bench.deadline_edge [--root R --variant V] [--calls 60000] [--concurrency 2] [--spread 0.6]

The requests: every decision of ``--games`` self-played games (``bench.dudo_served.decisions``) that the
served policy answers by an endgame re-solve (``games.dudo.policy.served.decide`` says ENDGAME and the
blueprint reaches it: ``endgame_store.would_resolve``). A server process on the store (one process, the live
pool's default slots, cost estimates scaled by ``--estimate-scale`` so that admission lets through a call
that the deadline then stops) first answers each once with a long deadline: its idle latency ``t``. Then
``--concurrency`` callers send ``--calls`` calls, each a random one of them with the deadline
``margin + t * u`` (``u`` uniform in ``1 +- spread``, ``margin`` the server's ``--live-margin``, what it
leaves between a stopped re-solve and the caller's deadline): at the edge where the re-solve just ends or is
just stopped.

Prints the answers by source, the errors by status and ``DEADLINE_EXCEEDED: N``; of the DEGRADED answers
that waited for the live pool (latency past ``t * u / 2``), the client's slack: its deadline less its latency
(min, p0.1, p1, p50), which is what remains of the margin the server reserves; and how late this process's
own 20 ms sleeps woke meanwhile (p99, p99.9, max): the machine's scheduling stalls, which that margin must
also absorb (a stall of the server's serving thread past the margin is a DEADLINE_EXCEEDED however right
the server is).

Without ``--root`` it first builds a small store whose rounds of 3 and 4 dice re-solve their endgames
(tests/conftest.py's ``endgame_root``; about a minute) in a temporary directory.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np

SMALL_PARAMS = dict(max_dice=2, iterations=30, exact_br_total=2)


def requests_by_kind(root: Path, variant: str, games: int, strategy: str, seed: int) -> tuple[list, list]:
    """(endgame, book): the SampleMoveRequests among every decision of ``games`` self-played games that the
    served policy answers by an endgame re-solve, and those it answers from the store's rows."""
    from bench.dudo_served import decisions
    from games.dudo.policy.served import BOOK, ENDGAME, decide
    from games.dudo.serving.endgame_store import would_resolve
    from games.storage import Store, current_stores
    from server.backends.dudo import DudoBackend
    store = Store(current_stores(root, "dudo")[variant])
    backend = DudoBackend(store)
    _, reqs = decisions(root, variant, games, np.random.default_rng(seed))
    endgame, book = [], []
    for _, req in reqs:
        req.strategy = strategy
        own, opp, _, history = backend.parse(req.dudo)
        opened = bool(req.dudo.requester_opened)
        kind = decide(backend.served(), backend.strategy_of(strategy), own, opp, history, opened)
        if kind == ENDGAME and would_resolve(store, backend.memories, own, opp, history, opened, backend.endgame):
            endgame.append(req)
        elif kind == BOOK:
            book.append(req)
    store.close()
    return endgame, book


def idle_latencies(stub, reqs, tries: int = 100) -> list:
    """(request, seconds) of each request answered LIVE with a long deadline, one caller; a request answered
    DEGRADED (no live worker ready yet: one is starting) is asked again after a pause, up to ``tries`` times."""
    from protos import gamestrategy_pb2 as pb
    out = []
    for req in reqs:
        for _ in range(tries):
            t = time.perf_counter()
            r = stub.SampleMove(req, timeout=60)
            dt = time.perf_counter() - t
            if r.source != pb.SampleMoveReply.DEGRADED:
                break
            time.sleep(0.2)
        if r.source == pb.SampleMoveReply.LIVE:
            out.append((req, dt))
    return out


def at_the_edge(stub, timed, book, calls: int, callers: int, spread: float, margin: float, seed: int):
    """``calls`` calls by ``callers`` threads, each a random timed request with the deadline ``margin + t * u``;
    meanwhile one more thread asks the ``book`` requests in turn with the deadline ``margin`` and checks how
    late 20 ms sleeps wake. (sources, errors, slack of the DEGRADED answers that waited, the book calls'
    statuses, the oversleep of 20 ms sleeps, seconds)."""
    import grpc

    from protos import gamestrategy_pb2 as pb
    sources, errors, slack = Counter(), Counter(), []
    lock = threading.Lock()
    sent = [0]

    def caller(k):
        rng = np.random.default_rng([seed, k])
        while True:
            with lock:
                if sent[0] >= calls:
                    return
                sent[0] += 1
            req, t = timed[int(rng.integers(len(timed)))]
            wait = t * float(rng.uniform(1 - spread, 1 + spread))
            deadline = margin + wait
            t0 = time.perf_counter()
            try:
                r = stub.SampleMove(req, timeout=deadline)
            except grpc.RpcError as e:
                with lock:
                    errors[e.code().name] += 1
                continue
            dt = time.perf_counter() - t0
            with lock:
                sources[pb.SampleMoveReply.Source.Name(r.source)] += 1
                if r.source == pb.SampleMoveReply.DEGRADED and dt > wait / 2:
                    slack.append(deadline - dt)

    oversleep, control, done = [], Counter(), threading.Event()

    def sleeper():
        k = 0
        while not done.is_set():
            t = time.monotonic()
            time.sleep(0.02)
            oversleep.append(time.monotonic() - t - 0.02)
            try:
                stub.SampleMove(book[k % len(book)], timeout=margin)
                control["OK"] += 1
            except grpc.RpcError as e:
                control[e.code().name] += 1
            k += 1

    t0 = time.monotonic()
    ths = [threading.Thread(target=caller, args=(k,), daemon=True) for k in range(callers)]
    watch = threading.Thread(target=sleeper, daemon=True)
    watch.start()
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    done.set()
    watch.join()
    return sources, errors, slack, control, oversleep, time.monotonic() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.deadline_edge", description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=None, help="a store root holding the variant (default: build a small one)")
    ap.add_argument("--variant", default=None, help="the Dudo variant (with --root)")
    ap.add_argument("--strategy", default="", help="the requests' strategy (default: the served one)")
    ap.add_argument("--games", type=int, default=60, help="self-played games whose endgame decisions are asked")
    ap.add_argument("--calls", type=int, default=60000)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--spread", type=float, default=0.6, help="deadlines at margin + t * U(1 - spread, 1 + spread)")
    ap.add_argument("--estimate-scale", type=float, default=0.05, help="the server's --live-estimate-scale")
    ap.add_argument("--margin", type=float, default=None, help="the server's --live-margin (default: its default)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--server-log", type=Path, default=None, help="keep the server's log (level INFO) here")
    a = ap.parse_args(argv)
    if (a.root is None) != (a.variant is None):
        print("bench.deadline_edge: give --root and --variant together, or neither", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="deadline-edge-") as tmp:
        if a.root is None:
            from builder.dudo import build_dudo_store
            from games.dudo.build.params import DudoParams
            params = DudoParams(**SMALL_PARAMS)
            a.root, a.variant = Path(tmp) / "stores", params.variant
            print(f"building {a.variant} ...", flush=True)
            build_dudo_store(params, a.root)
        from games.storage import current_stores
        if a.variant not in current_stores(a.root, "dudo"):
            print(f"bench.deadline_edge: {a.variant} is not built under {a.root}", file=sys.stderr)
            return 2
        return run(a, Path(tmp))


def run(a, tmp: Path) -> int:
    import grpc

    from bench.load import _pct, _start, _stop
    from protos import gamestrategy_pb2_grpc as pb_grpc
    from server.live import DEFAULT_MARGIN
    margin = DEFAULT_MARGIN if a.margin is None else a.margin
    reqs, book = requests_by_kind(a.root, a.variant, a.games, a.strategy, a.seed)
    print(f"{len(reqs)} endgame decisions of {a.games} self-played games of {a.variant}", flush=True)
    if not reqs:
        print("bench.deadline_edge: no decision of these games re-solves an endgame", file=sys.stderr)
        return 2
    with open(a.server_log or tmp / "server.log", "wb") as log:
        sp, port = _start([sys.executable, "-m", "server", "--root", str(a.root), "--port", "0", "--workers", "1",
                           "--metrics-port", "-1", "--http-port", "-1", "--log-level", "INFO" if a.server_log else "ERROR",
                           "--live-estimate-scale", str(a.estimate_scale), "--live-margin", str(margin),
                           "--port-file", str(tmp / "server.json")], tmp / "server.json", log)
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
                stub = pb_grpc.GameStrategyStub(ch)
                idle_latencies(stub, reqs[:5])     # the live worker started, the store opened in it
                timed = idle_latencies(stub, reqs)
                ts = [t for _, t in timed]
                print(f"idle: {len(timed)} answered LIVE, re-solve latency p50 {_pct(ts, 0.5) * 1e3:.1f} ms, "
                      f"max {max(ts) * 1e3:.1f} ms; deadlines: {margin * 1e3:.0f} ms margin + "
                      f"t x U({1 - a.spread:g}, {1 + a.spread:g})", flush=True)
                sources, errors, slack, control, oversleep, secs = at_the_edge(
                    stub, timed, book, a.calls, a.concurrency, a.spread, margin, a.seed)
        finally:
            _stop(sp)
    n = sum(sources.values()) + sum(errors.values())
    src = ", ".join(f"{k} {v}" for k, v in sorted(sources.items()))
    err = ", ".join(f"{k} {v}" for k, v in sorted(errors.items())) or "none"
    print(f"at the edge: {n} calls in {secs:.0f} s by {a.concurrency} callers: {src}; errors: {err}")
    print(f"DEADLINE_EXCEEDED: {errors.get('DEADLINE_EXCEEDED', 0)}")
    if slack:
        print(f"slack of the {len(slack)} DEGRADED answers that waited for the pool (deadline - latency): "
              f"min {min(slack) * 1e3:.1f} ms, p0.1 {_pct(slack, 0.001) * 1e3:.1f} ms, "
              f"p1 {_pct(slack, 0.01) * 1e3:.1f} ms, p50 {_pct(slack, 0.5) * 1e3:.1f} ms")
    print(f"beside them, book hits with the margin as their deadline ({margin * 1e3:.0f} ms): "
          + ", ".join(f"{k} {v}" for k, v in sorted(control.items())))
    print(f"this process's 20 ms sleeps woke late by p99 {_pct(oversleep, 0.99) * 1e3:.1f} ms, "
          f"p99.9 {_pct(oversleep, 0.999) * 1e3:.1f} ms, max {max(oversleep) * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
