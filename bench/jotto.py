"""`make bench`: performance tables, each figure beside a baseline measured in the same process.

  python -m bench.jotto [--lengths 2,3,4,5] [--fp-iterations 20] [--replay-sample 40] [--requests 300]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from games.jotto.dictionary import load_dictionary
from games.jotto.oracle import GBR, JottoOracle
from games.jotto.solvers import solve_jotto

PAPER_MINUTES_PER_ITERATION = {2: 3.635e-4, 3: 0.028, 4: 1.160, 5: 12.576}  # Ganzfried Table 1, 16 cores


def per_word_replay(o: JottoOracle, h: np.ndarray, secrets: np.ndarray) -> list[int]:
    """Alg. 6 as written: replay the guesser once per secret word (same GBR kernel)."""
    out = []
    for secret in secrets:
        S = o.all_words
        n = 0
        while True:
            n += 1
            g = o.move(S, h, GBR)
            if g == secret:
                break
            S = S[(o.C[g, S] == o.C[g, secret]) & (S != g)]
        out.append(n)
    return out


def table_solver(lengths, iterations, sample):
    print("\nJotto fictitious play: one iteration = HiderBR + CompNumGuesses over every secret word (1 core)")
    print(f"{'letters':>7} {'words':>6} {'s/iteration':>12} {'paper s/it (16 cores)':>22} {'paper/ours':>11} "
          f"{'per-word replay s (est.)':>25} {'shared tree s':>14} {'speed-up':>9}")
    for L in lengths:
        o = JottoOracle(load_dictionary(f"jotto-en_US80-{L}-ganzfried"))
        o.tree(o.uniform)  # compile
        t0 = time.perf_counter()
        fp = solve_jotto(o, iterations)
        per_it = (time.perf_counter() - t0) / (iterations + 1)
        h = fp.hider()
        t0 = time.perf_counter()
        tree = o.tree(h)
        shared = time.perf_counter() - t0
        rng = np.random.default_rng(0)
        secrets = rng.choice(o.D, size=min(sample, o.D), replace=False)
        t0 = time.perf_counter()
        replay = per_word_replay(o, h, secrets)
        replay_s = (time.perf_counter() - t0) * o.D / len(secrets)
        assert replay == tree.guesses[secrets].tolist(), "shared tree and replay disagree"
        paper = PAPER_MINUTES_PER_ITERATION.get(L)
        paper_s = f"{paper * 60:.3f}" if paper else "-"
        ratio = f"{paper * 60 / per_it:.0f}x" if paper else "-"
        print(f"{L:7d} {o.D:6d} {per_it:12.4f} {paper_s:>22} {ratio:>11} {replay_s:25.2f} {shared:14.4f} "
              f"{replay_s / shared:8.0f}x")


def table_serving(requests):
    from builder.jotto import JottoParams, build_jotto_store
    from clients.client import GameStrategyClient
    from games.storage import Store
    from server.app import build_server
    from server.backends.jotto import JottoBackend
    from server.registry import Registry

    variant = "jotto-en_US80-4-ganzfried"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = build_jotto_store(variant, JottoParams(fp_iterations=20, do_iterations=10), root)
        b = JottoBackend(Store(path))
        s = b.strategies[b.served]
        root_state = b.oracle.all_words
        key_book = b.book_entry(s.name, root_state)
        t_book = _time(lambda: b.book_entry(s.name, root_state), 2000)
        t_live = _time(lambda: s.move(b.oracle, 0, root_state), 20)
        print(f"\nJotto move at the root ({b.oracle.D} words), in process: book lookup vs live GBR")
        print(f"{'book lookup us':>15} {'live GBR us':>12} {'live/book':>10}")
        print(f"{t_book * 1e6:15.1f} {t_live * 1e6:12.1f} {t_live / t_book:9.0f}x")
        assert key_book is not None
        b.store.close()
        registry = Registry(root)
        registry.refresh()
        server, port = build_server(registry, "127.0.0.1:0")
        server.start()
        try:
            c = GameStrategyClient(f"127.0.0.1:{port}")
            secret = 11
            hist, live_hist = [], None
            while True:
                m = c.jotto_move(variant, "guesser", hist, seed=3)
                if m.source == "live" and live_hist is None:
                    live_hist = list(hist)
                g = b.dictionary.index(m.move)
                if g == secret:
                    break
                hist.append((m.move, int(b.oracle.C[g, secret])))
            print(f"\ngRPC SampleMove on loopback, concurrency 1, {requests} calls each (bench.load adds load)")
            print(f"{'call':24s} {'p50 ms':>8} {'p99 ms':>8} {'calls/s':>8}")
            for name, fn in [("book hit (root)", lambda: c.jotto_move(variant, "guesser", [], seed=3)),
                             ("live, memoised", lambda: c.jotto_move(variant, "guesser", live_hist, seed=3)),
                             ("live, computed", lambda: (registry.backends[variant]._moves.clear(),
                                                         c.jotto_move(variant, "guesser", live_hist, seed=3))),
                             ("GetStats", lambda: c.stats(variant))]:
                lat = []
                for _ in range(requests):
                    t0 = time.perf_counter()
                    fn()
                    lat.append(time.perf_counter() - t0)
                lat.sort()
                print(f"{name:24s} {lat[len(lat) // 2] * 1e3:8.3f} {lat[int(len(lat) * 0.99)] * 1e3:8.3f} "
                      f"{len(lat) / sum(lat):8.0f}")
            c.close()
        finally:
            server.stop(0).wait()
            registry.close()


def _time(fn, n):
    best = []
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best.append((time.perf_counter() - t0) / n)
    return statistics.median(best)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.jotto")
    ap.add_argument("--lengths", default="2,3,4,5")
    ap.add_argument("--fp-iterations", type=int, default=20)
    ap.add_argument("--replay-sample", type=int, default=40)
    ap.add_argument("--requests", type=int, default=300)
    args = ap.parse_args(argv)
    table_solver([int(x) for x in args.lengths.split(",")], args.fp_iterations, args.replay_sample)
    table_serving(args.requests)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
