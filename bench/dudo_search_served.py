"""Searched Dudo moves as served: whole games played against a server process, every move the server's answer
(strategy ``search``, both seats), idle and beside book load.

  python -m bench.dudo_search_served [--root stores] [--variant dudo-5dice-default] [--games 4] [--seconds 60]

Idle: ``--games`` games one after the other, from max_dice v max_dice to the end, each move asked of the server
with ``--deadline`` (a game's seat keeps its own roll; the rolls and the challenges follow the rules, seeded);
latency p50 / p99 / max of the searched moves (the answers whose source is LIVE or DEGRADED in the searched
rounds), by round, and the answers by source. Then ``--book-clients`` callers asking book hits (the stored rows,
strategy ``fsicfr``, of the round's opening decisions) for ``--seconds``: alone, then beside ``--search-games``
searched games played at once; the book hits' p99 in both and the searched moves' sources (DEGRADED: a stored
row where the policy would have searched).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np


def play_game(stub, variant: str, max_dice: int, rng: np.random.Generator, deadline: float, record) -> None:
    """One game from max_dice v max_dice to its end, every move the server's; ``record(round, reply, seconds)``,
    and ``record.error(round, status name)`` for a call that failed, which ends the game there."""
    import grpc

    from games.dudo.rules import count_for
    from protos import gamestrategy_pb2 as pb
    dice = [max_dice, max_dice]
    opener = int(rng.integers(2))
    while min(dice) > 0:
        rolls = [tuple(sorted(int(x) for x in rng.integers(1, 7, size=d))) for d in dice]
        hist: list[tuple[int, int]] = []
        mover = opener
        while True:
            req = pb.SampleMoveRequest(variant=variant, strategy="search", game_seed=int(rng.integers(1 << 31)),
                                       dudo=pb.DudoState(own_dice=dice[mover], opponent_dice=dice[1 - mover],
                                                         roll=list(rolls[mover]), requester_opened=mover == opener,
                                                         history=[pb.DudoClaim(count=n, face=f) for n, f in hist]))
            t = time.perf_counter()
            try:
                r = stub.SampleMove(req, timeout=deadline)
            except grpc.RpcError as e:
                record.error((dice[opener], dice[1 - opener]), e.code().name)
                return
            record((dice[opener], dice[1 - opener]), r, time.perf_counter() - t)
            if r.move == "dudo":
                n, f = hist[-1]
                counts = np.zeros(6, dtype=np.int64)
                for roll in rolls:
                    for x in roll:
                        counts[x - 1] += 1
                actual = count_for(counts, f)
                claimant = 1 - mover
                loser = mover if actual >= n else claimant
                lost = actual - n if actual > n else (n - actual if actual < n else 1)
                dice[loser] -= lost
                opener = 1 - loser
                break
            n, f = (int(x) for x in r.move.split("x"))
            hist.append((n, f))
            mover = 1 - mover


class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.lat: dict[str, list] = defaultdict(list)
        self.sources: Counter = Counter()
        self.errors: Counter = Counter()

    def error(self, rnd, status: str) -> None:
        with self.lock:
            self.errors[f"{rnd[0]}v{rnd[1]} {status}"] += 1

    def __call__(self, rnd, reply, seconds):
        from protos import gamestrategy_pb2 as pb
        src = pb.SampleMoveReply.Source.Name(reply.source)
        with self.lock:
            self.sources[src] += 1
            if src in ("LIVE", "DEGRADED"):
                self.lat[f"{rnd[0]}v{rnd[1]}"].append(seconds)
                self.lat["all searched"].append(seconds)

    def print(self, title: str) -> None:
        from bench.load import _pct
        print(f"{title}: answers by source {dict(sorted(self.sources.items()))}, failed calls (each ended its game) "
              f"{dict(sorted(self.errors.items())) or 'none'}")
        for k in sorted(self.lat, key=lambda k: (k != "all searched", k)):
            xs = self.lat[k]
            print(f"  {k:12s} {len(xs):5d} searched moves  p50 {_pct(xs, 0.5):6.3f} s  p99 {_pct(xs, 0.99):6.3f} s  "
                  f"max {max(xs):6.3f} s")


def book_requests(variant: str, max_dice: int, n: int, rng: np.random.Generator) -> list:
    """Book hits: the stored rows' answer (strategy fsicfr) at a round's first decision."""
    from protos import gamestrategy_pb2 as pb
    out = []
    for _ in range(n):
        out.append(pb.SampleMoveRequest(variant=variant, strategy="fsicfr", game_seed=int(rng.integers(1 << 31)),
                                        dudo=pb.DudoState(own_dice=max_dice, opponent_dice=max_dice,
                                                          roll=[int(x) for x in rng.integers(1, 7, size=max_dice)],
                                                          requester_opened=True)))
    return out


def book_load(stub, reqs, callers: int, seconds: float, deadline: float):
    """Latencies and errors of ``callers`` threads sending ``reqs`` round robin for ``seconds``."""
    import grpc
    lat, errors, lock, nxt = [], Counter(), threading.Lock(), [0]
    stop_at = time.monotonic() + seconds

    def caller():
        while time.monotonic() < stop_at:
            with lock:
                i = nxt[0]
                nxt[0] += 1
            t = time.perf_counter()
            try:
                stub.SampleMove(reqs[i % len(reqs)], timeout=deadline)
            except grpc.RpcError as e:
                with lock:
                    errors[e.code().name] += 1
                continue
            with lock:
                lat.append(time.perf_counter() - t)

    ths = [threading.Thread(target=caller, daemon=True) for _ in range(callers)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    return lat, errors


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.dudo_search_served", description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=None, help="a store root holding the variant (default: stores/)")
    ap.add_argument("--variant", default="dudo-5dice-default")
    ap.add_argument("--games", type=int, default=4, help="idle: games played one after the other")
    ap.add_argument("--search-games", type=int, default=2, help="beside the book load: searched games at once")
    ap.add_argument("--book-clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--deadline", type=float, default=10.0, help="each searched move's deadline, seconds (the "
                    "clients' default)")
    ap.add_argument("--workers", type=int, default=1, help="server worker processes")
    ap.add_argument("--live-slots", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--log-level", default="WARNING", help="the server's (its log is printed at the end with INFO)")
    a = ap.parse_args(argv)
    import grpc

    from bench.load import _pct, _start, _stop
    from games.storage import Store, current_stores, stores_root
    from protos import gamestrategy_pb2_grpc as pb_grpc
    named = a.root is not None
    a.root = a.root or stores_root()
    stores = current_stores(a.root, "dudo")
    if a.variant not in stores:
        if named:
            print(f"bench.dudo_search_served: {a.variant} is not built under {a.root}", file=sys.stderr)
            return 2
        print(f"bench.dudo_search_served: {a.variant} is not built under {a.root}; skipped")
        return 0
    store = Store(stores[a.variant])
    md = int(store.manifest["parameters"]["max_dice"])
    if "large_search" not in store.manifest:
        print(f"bench.dudo_search_served: {a.variant} has no search tables (built before search was served); skipped")
        return 0
    rng = np.random.default_rng(a.seed)
    with tempfile.TemporaryDirectory(prefix="dudo-search-served-") as tmp, open(Path(tmp) / "server.log", "wb") as log:
        sp, port = _start([sys.executable, "-m", "server", "--root", str(a.root), "--port", "0", "--workers",
                           str(a.workers), "--live-slots", str(a.live_slots), "--metrics-port", "-1", "--http-port",
                           "-1", "--log-level", a.log_level, "--port-file", str(Path(tmp) / "server.json")],
                          Path(tmp) / "server.json", log)
        try:
            ch = grpc.insecure_channel(f"127.0.0.1:{port}")
            stub = pb_grpc.GameStrategyStub(ch)
            warm, t0 = Recorder(), time.monotonic()       # until the live workers answer (they start at once)
            while not warm.sources.get("LIVE") and time.monotonic() < t0 + 300:
                play_game(stub, a.variant, md, np.random.default_rng(10_000 + a.seed), 120.0, warm)
            idle = Recorder()
            t0 = time.perf_counter()
            for _ in range(a.games):
                play_game(stub, a.variant, md, rng, a.deadline, idle)
            idle.print(f"idle: {a.games} whole games one after the other ({time.perf_counter() - t0:.0f} s)")
            reqs = book_requests(a.variant, md, 256, rng)
            alone, err = book_load(stub, reqs, a.book_clients, min(a.seconds, 20.0), 5.0)
            print(f"book hits alone: {a.book_clients} callers, {len(alone)} answers, p50 {_pct(alone, 0.5) * 1e3:.2f} ms, "
                  f"p99 {_pct(alone, 0.99) * 1e3:.2f} ms, errors {dict(err) or 'none'}")
            busy = Recorder()
            stop = threading.Event()

            def searched():
                g = np.random.default_rng(int(rng.integers(1 << 31)))
                while not stop.is_set():
                    play_game(stub, a.variant, md, g, a.deadline, busy)

            ths = [threading.Thread(target=searched, daemon=True) for _ in range(a.search_games)]
            for th in ths:
                th.start()
            beside, err = book_load(stub, reqs, a.book_clients, a.seconds, 5.0)
            stop.set()
            for th in ths:
                th.join()
            print(f"book hits beside {a.search_games} searched games: {len(beside)} answers, p50 "
                  f"{_pct(beside, 0.5) * 1e3:.2f} ms, p99 {_pct(beside, 0.99) * 1e3:.2f} ms "
                  f"({_pct(beside, 0.99) / max(_pct(alone, 0.99), 1e-9):.2f} x alone), errors {dict(err) or 'none'}")
            busy.print(f"the searched games beside {a.book_clients} book callers")
            ch.close()
        finally:
            _stop(sp)
            if a.log_level in ("INFO", "DEBUG"):
                log.flush()
                print((Path(tmp) / "server.log").read_text()[-4000:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
