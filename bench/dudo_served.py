"""The served Dudo under load: every decision of self-played games asked of a server process by
``--concurrency`` callers for ``--seconds``; how each answer was made (BOOK, LIVE, DEGRADED) and its latency.

  python -m bench.dudo_served [--root stores] [--variant dudo-5dice-default] [--concurrency 16] [--seconds 60]

The requests: every decision, both seats, of ``--games`` games the store's strategy plays against itself
from max_dice v max_dice (bench.review_latency.dudo_game: seeded draws from the stored rows, a challenge's loser
losing what the rules say), each with both rolls known to its own seat only. An idle pass first: one
caller, each request once (p50 / p99 by round size, the 5v5 moves apart). Then ``--concurrency`` threads
send them round robin for ``--seconds`` with ``--deadline`` each. Prints, per phase: answers by source,
the degraded share (the target: at most 1 % at c = 16 for 60 s; docs/serving.md has runs), errors by status, and p50 / p99
of the moves at the game's start size (5v5) and of all moves. A reply's source is the server's own statement of how it was made:
DEGRADED is a stored row given where the served policy would have searched.
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


def decisions(root: Path, variant: str, games: int, rng: np.random.Generator) -> list:
    """(dice a player at the start, [(dice, SampleMoveRequest)]) for every decision of ``games`` self-played
    games."""
    from bench.review_latency import dudo_game
    from games.dudo.serving import move_scoring as dr
    from games.storage import current_stores
    from protos import gamestrategy_pb2 as pb
    from games.storage import Store
    store = Store(current_stores(root, "dudo")[variant])
    tables = dr.StoreTables.of_store(store)
    md = int(store.manifest["parameters"]["max_dice"])
    out = []
    for g in range(games):
        for rnd in dudo_game(tables, md, 64, rng, long=False):
            dice = (rnd["own"], rnd["opp"])
            rolls = (rnd["roll"], rnd["opp_roll"])
            opener = 0 if rnd["opened"] else 1
            claims = [pb.DudoClaim(count=int(n), face=int(f)) for n, f in rnd["claims"]]
            for k in range(len(claims) + 1):
                mover = opener if k % 2 == 0 else 1 - opener
                out.append((dice, pb.SampleMoveRequest(
                    variant=variant, game_seed=int(rng.integers(1 << 31)), dudo=pb.DudoState(
                        own_dice=dice[mover], opponent_dice=dice[1 - mover], roll=list(rolls[mover]),
                        requester_opened=mover == opener, history=claims[:k]))))
    return md, out


def _phase(stub, reqs, top, callers: int, seconds: float | None, deadline: float):
    """Each caller sends requests round robin (one pass over ``reqs`` in all when ``seconds`` is None)."""
    import grpc

    from protos import gamestrategy_pb2 as pb
    sources, errors = Counter(), Counter()
    lat: dict[str, list] = {"start": [], "all": []}
    lock = threading.Lock()
    nxt = [0]
    stop_at = None if seconds is None else time.monotonic() + seconds

    def caller():
        while True:
            with lock:
                i = nxt[0]
                nxt[0] += 1
            if stop_at is None and i >= len(reqs):
                return
            if stop_at is not None and time.monotonic() >= stop_at:
                return
            dice, req = reqs[i % len(reqs)]
            t = time.perf_counter()
            try:
                r = stub.SampleMove(req, timeout=deadline)
            except grpc.RpcError as e:
                with lock:
                    errors[e.code().name] += 1
                continue
            dt = time.perf_counter() - t
            with lock:
                sources[pb.SampleMoveReply.Source.Name(r.source)] += 1
                lat["all"].append(dt)
                if dice == top:
                    lat["start"].append(dt)

    ths = [threading.Thread(target=caller, daemon=True) for _ in range(callers)]
    t0 = time.monotonic()
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    return sources, errors, lat, time.monotonic() - t0


def _print(name: str, top, sources: Counter, errors: Counter, lat: dict, secs: float) -> None:
    from bench.load import _pct
    n = sum(sources.values())
    deg = sources.get("DEGRADED", 0)
    src = ", ".join(f"{k} {v}" for k, v in sorted(sources.items()))
    err = ", ".join(f"{k} {v}" for k, v in sorted(errors.items())) or "none"
    print(f"{name}: {n} answers in {secs:.1f} s ({n / secs:.0f}/s): {src}; degraded {100.0 * deg / max(n, 1):.2f} %; "
          f"errors: {err}")
    for k in ("start", "all"):
        xs = lat[k]
        label = f"{top[0]}v{top[1]}" if k == "start" else "all"
        print(f"  {label:4s} moves: {len(xs):7d}  p50 {_pct(xs, 0.5) * 1e3:8.2f} ms  p99 {_pct(xs, 0.99) * 1e3:8.2f} ms  "
              f"max {max(xs, default=float('nan')) * 1e3:8.2f} ms")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.dudo_served", description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=None, help="a store root holding the variant (default: stores/)")
    ap.add_argument("--variant", default="dudo-5dice-default")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--deadline", type=float, default=2.0, help="each SampleMove's deadline, seconds")
    ap.add_argument("--workers", type=int, default=1, help="server worker processes")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    import grpc

    from bench.load import _start, _stop
    from protos import gamestrategy_pb2_grpc as pb_grpc
    from games.storage import current_stores, stores_root
    named = a.root is not None
    a.root = a.root or stores_root()
    if a.variant not in current_stores(a.root, "dudo"):
        if named:   # a root the caller named: its store is missing (an error); make bench's stores/: not built yet
            print(f"bench.dudo_served: {a.variant} is not built under {a.root}", file=sys.stderr)
            return 2
        print(f"bench.dudo_served: {a.variant} is not built under {a.root}; skipped")
        return 0
    md, reqs = decisions(a.root, a.variant, a.games, np.random.default_rng(a.seed))
    top = (md, md)
    print(f"{len(reqs)} decisions of {a.games} self-played games of {a.variant} "
          f"({sum(d == top for d, _ in reqs)} at {md}v{md})", flush=True)
    with tempfile.TemporaryDirectory(prefix="dudo-served-") as tmp, open(Path(tmp) / "server.log", "wb") as log:
        sp, port = _start([sys.executable, "-m", "server", "--root", str(a.root), "--port", "0", "--workers",
                           str(a.workers), "--metrics-port", "-1", "--http-port", "-1", "--log-level", "WARNING",
                           "--port-file", str(Path(tmp) / "server.json")], Path(tmp) / "server.json", log)
        try:
            ch = grpc.insecure_channel(f"127.0.0.1:{port}")
            stub = pb_grpc.GameStrategyStub(ch)
            _phase(stub, reqs[:50], top, 1, None, 60.0)   # warm: the store opened, rows decoded
            _print("idle, one caller, each decision once", top, *_phase(stub, reqs, top, 1, None, a.deadline))
            _print(f"load, {a.concurrency} callers for {a.seconds:g} s", top,
                   *_phase(stub, reqs, top, a.concurrency, a.seconds, a.deadline))
            ch.close()
        finally:
            _stop(sp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
