"""Time to review a game (AnalyzeGame's work, docs/review.md), as a live worker runs it: p50 / p99 over N
self-played games, in one process (the first review of a store, which opens it and compiles, is not timed; later reviews find
the rows earlier ones decoded, as in a live worker that has reviewed before).

  python -m bench.review_latency --dudo STORE_DIR [--jotto STORE_DIR [--cold]] [--games 50] [--rounds 6] [--seed 0]
  python -m bench.review_latency --served ROOT [--dudo-variant V] [--jotto-variant V] [--games 50] [--calls 600]

``--served``: the same games reviewed over gRPC by a server process on the store root ROOT (AnalyzeGame's
p50 / p99 as a client sees it, the live worker's start included in the first), and the book-hit SampleMove
latency (a Jotto guesser's first move and a 5v5 Dudo opening, alternately, one caller pausing ``--pause`` s
between calls) idle and while a second
caller reviews the games one after another: p50 / p99 and the ratio of the p99s (the target: at most 2; docs/review.md has runs).

Dudo games: both players play the store's strategy (seeded draws from its rows), from max_dice v max_dice,
for at most ``--rounds`` rounds, the first player reviewed; a challenge's loser loses one die (so that a game
has its rounds even with a weakly trained store whose claims run high; the opponent's roll is then left out
of the transcript, and the review does not use it). Jotto games: a secret drawn from the served
hider, the guesser plays a random test word with probability 1/3 and else the greedy oracle's, until it
names the secret. Prints one row per game kind: games, reviewed moves, p50 / p99 / max seconds a game (Jotto
in one process: also in CPU seconds). A Jotto worker keeps its valuers from review to review
(games/jotto/guess_scoring.py); ``--cold`` gives every review new ones.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np


def dudo_game(tables, max_dice: int, rounds: int, rng: np.random.Generator, long: bool = True) -> list[dict]:
    """A self-played game of the stored strategy as AnalyzeGame's round dicts (player 0 reviewed); ``long``:
    a challenge's loser loses one die (the rounds of a long game, whatever the claims)."""
    from games.dudo.rules import claim_table, count_for, roll_index
    dice, opener, out = [max_dice, max_dice], 0, []
    for _ in range(rounds):
        rolls = [sorted(int(f) for f in rng.integers(1, 7, size=d)) for d in dice]
        D = sum(dice)
        hist, mover = [], opener
        while True:
            t = tables.table(dice[mover], dice[1 - mover], tuple(hist))
            p = t[:, roll_index(rolls[mover])]
            j = int(rng.choice(len(p), p=p / p.sum()))
            last = hist[-1] if hist else -1
            if j == 0:
                break
            hist.append(last + j)
            mover = 1 - mover
        ct = claim_table(D)
        n, r = ct[hist[-1]]
        actual = count_for(np.bincount(rolls[0] + rolls[1], minlength=7)[1:], r)
        challenger, claimant = mover, 1 - mover
        loser = challenger if actual >= n else claimant
        # long games: the loser loses one die (the opponent's roll is left out of the transcript, so the
        # rules' larger losses are not checked against it)
        out.append(dict(own=dice[0], opp=dice[1], roll=rolls[0], opp_roll=None if long else rolls[1],
                        opened=opener == 0, claims=[ct[s] for s in hist], challenged=True))
        dice[loser] -= 1 if long else (actual - n if actual > n else 1) if loser == challenger else n - actual
        if dice[loser] <= 0:
            break
        opener = 1 - loser
    return out


def jotto_game(oracle, hider: np.ndarray, rng: np.random.Generator) -> tuple[list, str]:
    words = oracle.dictionary.words
    secret = int(rng.choice(oracle.D, p=hider / hider.sum()))
    S, turns, used = np.arange(oracle.D, dtype=np.int32), [], set()
    while True:
        if rng.random() < 1 / 3 and len(S) > 1:
            g = int(rng.integers(oracle.D))
            while g in used:
                g = int(rng.integers(oracle.D))
        else:
            g = oracle.move(S, oracle.uniform)
        used.add(g)
        turns.append((words[g], int(oracle.C[g, secret])))
        if g == secret:
            return turns, words[secret]
        S = oracle.consistent([oracle.dictionary.index(w) for w, _ in turns], [j for _, j in turns])


def _row(name: str, times: list, moves: int) -> str:
    t = np.array(times)
    return (f"{name:34s} {len(t):6d} {moves:8d} {np.percentile(t, 50):9.3f} {np.percentile(t, 99):9.3f}"
            f" {t.max():9.3f}")


def _store_games(root: Path, dudo_variant: str, jotto_variant: str, n: int, rounds: int, rng) -> list:
    """AnalyzeGameRequests of self-played games on the stores under ``root`` (Dudo and Jotto alternately)."""
    from protos import gamestrategy_pb2 as pb
    from games.storage import Store, current_stores
    reqs: list = []
    dudo = current_stores(root, "dudo").get(dudo_variant)
    jotto = current_stores(root, "jotto").get(jotto_variant)
    if dudo is not None:
        from games.dudo.serving import move_scoring as dr
        store = Store(dudo)
        tables = dr.StoreTables.of_store(store)
        md = int(store.manifest["parameters"]["max_dice"])
        for _ in range(n):
            g = dudo_game(tables, md, rounds, rng)
            reqs.append(("dudo", pb.AnalyzeGameRequest(variant=dudo_variant, dudo=[pb.DudoRound(
                own_dice=r["own"], opponent_dice=r["opp"], roll=r["roll"], opponent_roll=r.get("opp_roll") or [],
                reviewed_opened=r["opened"], claims=[pb.DudoClaim(count=c, face=f) for c, f in r["claims"]],
                unfinished=not r.get("challenged", True)) for r in g])))
    if jotto is not None:
        from games.jotto.dictionary import Variant, dictionary_from_words
        from games.jotto.oracle import JottoOracle
        from games.jotto.store import COMMON, read_strategies
        store = Store(jotto)
        m = store.manifest
        oracle = JottoOracle(dictionary_from_words(Variant.parse(m["variant"]), list(m["words"]),
                                                   common=store.array(COMMON)))
        hider = read_strategies(store)[m["served"]].hider
        for _ in range(n):
            turns, secret = jotto_game(oracle, hider, rng)
            reqs.append(("jotto", pb.AnalyzeGameRequest(variant=jotto_variant, jotto=pb.JottoGame(
                role=pb.JottoState.GUESSER, secret=secret, turns=[pb.JottoTurn(guess=w, jots=j) for w, j in turns]))))
    return reqs


def served(args) -> int:
    """Reviews over gRPC and the book-hit latency beside them (see the module's docstring)."""
    import tempfile
    import threading

    import grpc

    from bench.load import _pct, _start, _stop
    from protos import gamestrategy_pb2 as pb
    from protos import gamestrategy_pb2_grpc as pb_grpc

    rng = np.random.default_rng(args.seed)
    reqs = _store_games(Path(args.served), args.dudo_variant, args.jotto_variant, args.games, args.rounds, rng)
    if not reqs:
        raise SystemExit(f"neither {args.dudo_variant} nor {args.jotto_variant} is built under {args.served}")
    book = [pb.SampleMoveRequest(variant=args.jotto_variant, game_seed=k,
                                 jotto=pb.JottoState(role=pb.JottoState.GUESSER)) for k in range(16)]
    book += [pb.SampleMoveRequest(variant=args.dudo_variant, game_seed=k, dudo=pb.DudoState(
        own_dice=5, opponent_dice=5, roll=[1 + (k + i) % 6 for i in range(5)], requester_opened=True))
        for k in range(16)]
    kinds = {r.variant for _, r in reqs}
    book = [b for b in book if b.variant in kinds]
    with tempfile.TemporaryDirectory(prefix="review-bench-") as tmp, open(Path(tmp) / "server.log", "wb") as log:
        sp, port = _start([sys.executable, "-m", "server", "--root", str(args.served), "--port", "0", "--workers", "1",
                           "--metrics-port", "-1", "--http-port", "-1", "--log-level", "WARNING",
                           "--port-file", str(Path(tmp) / "server.json")], Path(tmp) / "server.json", log)
        try:
            ch = grpc.insecure_channel(f"127.0.0.1:{port}")
            stub = pb_grpc.GameStrategyStub(ch)
            for b in book:  # warm: each store opened, rows decoded once
                stub.SampleMove(b, timeout=60)

            def hits(n: int) -> list[float]:
                out = []
                for k in range(n):
                    t = time.perf_counter()
                    stub.SampleMove(book[k % len(book)], timeout=10)
                    out.append(time.perf_counter() - t)
                    time.sleep(args.pause)  # a paced caller, not a flood that would itself take the cores
                return out

            idle = hits(args.calls)
            times: dict[str, list[float]] = {"dudo": [], "jotto": []}
            moves: dict[str, int] = {"dudo": 0, "jotto": 0}
            done = threading.Event()
            failed: list = []

            def reviewer():
                rch = grpc.insecure_channel(f"127.0.0.1:{port}")
                rstub = pb_grpc.GameStrategyStub(rch)
                try:
                    for game, r in reqs:
                        t = time.perf_counter()
                        try:
                            reply = rstub.AnalyzeGame(r, timeout=args.review_timeout)
                        except grpc.RpcError as e:  # counted, not fatal: a review past its deadline is a finding
                            failed.append((game, e.code().name, time.perf_counter() - t))
                            continue
                        times[game].append(time.perf_counter() - t)
                        moves[game] += len(reply.moves)
                finally:
                    rch.close()
                    done.set()

            th = threading.Thread(target=reviewer, daemon=True)
            th.start()
            during: list[float] = []
            while not done.is_set():
                during += hits(20)
            th.join()
            ch.close()
        finally:
            _stop(sp)
    print(f"{'AnalyzeGame over gRPC (s a game)':34s} {'games':>6s} {'moves':>8s} {'p50':>9s} {'p99':>9s} {'max':>9s}")
    for game in ("dudo", "jotto"):
        if times[game]:
            v = args.dudo_variant if game == "dudo" else args.jotto_variant
            print(_row(v, times[game], moves[game]))
    for game, code, secs in failed:
        print(f"  a {game} review failed: {code} after {secs:.1f} s")
    i50, i99, d50, d99 = (_pct(idle, 0.5) * 1e3, _pct(idle, 0.99) * 1e3, _pct(during, 0.5) * 1e3,
                          _pct(during, 0.99) * 1e3)
    print(f"book-hit SampleMove (ms)            idle p50 {i50:.2f} p99 {i99:.2f} ({len(idle)} calls); during reviews "
          f"p50 {d50:.2f} p99 {d99:.2f} ({len(during)} calls); p99 ratio {d99 / i99:.2f}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.review_latency")
    ap.add_argument("--dudo", type=Path, help="a Dudo store's directory (its version or `current`)")
    ap.add_argument("--jotto", type=Path, help="a Jotto store's directory")
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--served", type=Path, help="a store root: review over gRPC, with book hits beside (docstring)")
    ap.add_argument("--dudo-variant", default="dudo-5dice-default")
    ap.add_argument("--jotto-variant", default="jotto-en_US80-5-ganzfried")
    ap.add_argument("--cold", action="store_true",
                    help="Jotto in one process: every review with new valuers (a worker's first review of the store, "
                         "compiling aside), not those earlier reviews filled")
    ap.add_argument("--calls", type=int, default=600, help="--served: idle book hits")
    ap.add_argument("--review-timeout", type=float, default=300.0, help="--served: each AnalyzeGame's deadline")
    ap.add_argument("--pause", type=float, default=0.01, help="--served: seconds between book hits")
    args = ap.parse_args(argv)
    if args.served:
        return served(args)
    rng = np.random.default_rng(args.seed)
    print(f"{'reviews (seconds a game)':34s} {'games':>6s} {'moves':>8s} {'p50':>9s} {'p99':>9s} {'max':>9s}")
    if args.dudo:
        from games.dudo.serving import move_scoring as dr
        from games.storage import Store
        store = Store(args.dudo)
        tables = dr.StoreTables.of_store(store)
        md = int(store.manifest["parameters"]["max_dice"])
        games = [dudo_game(tables, md, args.rounds, rng) for _ in range(args.games + 1)]
        dr.review_from_store(str(args.dudo), games[0])  # opens the store, compiles
        times, moves = [], 0
        for g in games[1:]:
            t = time.perf_counter()
            out = dr.review_from_store(str(args.dudo), g)
            times.append(time.perf_counter() - t)
            moves += len(out["moves"])
        rounds = np.mean([len(g) for g in games[1:]])
        print(_row(f"{store.manifest['variant']} ({rounds:.1f} rounds)", times, moves))
    if args.jotto:
        from games.jotto import guess_scoring as jr
        from games.jotto.dictionary import Variant, dictionary_from_words
        from games.jotto.oracle import JottoOracle
        from games.jotto.store import COMMON, read_strategies
        from games.storage import Store
        store = Store(args.jotto)
        m = store.manifest
        oracle = JottoOracle(dictionary_from_words(Variant.parse(m["variant"]), list(m["words"]),
                                                   common=store.array(COMMON)))
        hider = read_strategies(store)[m["served"]].hider
        games = [jotto_game(oracle, hider, rng) for _ in range(args.games + 1)]
        jr.review_from_store(str(args.jotto), "", *games[0])
        times, cpu, moves = [], [], 0
        for turns, secret in games[1:]:
            if args.cold:
                jr._VALUERS.clear()
            t, c = time.perf_counter(), time.process_time()
            out = jr.review_from_store(str(args.jotto), "", turns, secret)
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
            moves += len(out["moves"])
        cold = ", cold" if args.cold else ""
        print(_row(f"{m['variant']} ({moves / args.games:.1f} words{cold})", times, moves))
        print(_row("  the same in CPU seconds", cpu, moves))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
