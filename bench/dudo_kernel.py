"""The blocked kernel's counterfactual values, reference order (one ``dot_fixed`` per parent, action and roll:
``FastSolver.tiled = 0``) against the builds' setting (``kernels._gemm_fixed``, the same sums vectorised over the
rolls, on blocks of at least 4 parents and 32 rolls a side), in one process: CPU seconds per training iteration of each, their ratio, and whether the two gave the same bits.

    .venv/bin/python -m bench.dudo_kernel [--groups 5v5:2,5v4:2,3v3:2] [--iterations 3] [--warm 4] [--threads 1]

Per group (dice, memory): both solvers first train ``--warm`` iterations (the first compiles; CFR+'s strategies
turn sparse, as they are in a build), then ``--iterations`` more each, alternating old and new, each timed by
``time.process_time`` (CPU of this process, so other load on the machine distorts it less than wall time).
Continuation values are a fixed made-up table (they change the numbers, not the work).  ``same bits``: regrets,
strategy sums and node values of the two solvers compared with ``np.array_equal`` after the last iteration.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import parse_memory
from games.dudo.solvers.abstract_cfr import FastSolver

W = {(a, b): min(0.95, max(0.05, 0.5 + 0.1 * (a - b))) for a in range(1, 6) for b in range(1, 6)}


def bench_group(a: int, b: int, m, iterations: int, warm: int, threads: int) -> dict:
    g = make_group(a, b, m, W, 5)
    old, new = FastSolver(g, threads=threads), FastSolver(g, threads=threads)
    old.tiled = 0
    for _ in range(warm):
        old.fsicfr_iteration()
        new.fsicfr_iteration()
    cpu = {"old": 0.0, "new": 0.0}
    for _ in range(iterations):
        for name, s in (("old", old), ("new", new)):
            c = time.process_time()
            s.fsicfr_iteration()
            cpu[name] += time.process_time() - c
    same = all(np.array_equal(getattr(old, k), getattr(new, k)) for k in ("reg", "ssum", "V"))
    return dict(old=cpu["old"] / iterations, new=cpu["new"] / iterations, same=same, windows=g.NW,
                zero=float(np.mean(new.strat == 0)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--groups", default="5v5:2,5v4:2,3v3:2", help="AvB:memory, comma-separated")
    ap.add_argument("--iterations", type=int, default=3)
    ap.add_argument("--warm", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    print(f"{'group':>6} {'m':>6} {'windows':>8} {'zero':>6} {'old s/it':>9} {'new s/it':>9} {'old/new':>8}  same bits")
    for spec in args.groups.split(","):
        dice, m = spec.split(":")
        a, b = (int(x) for x in dice.split("v"))
        r = bench_group(a, b, parse_memory(m), args.iterations, args.warm, args.threads)
        print(f"{dice:>6} {m:>6} {r['windows']:>8} {r['zero']:>6.2f} {r['old']:>9.3f} {r['new']:>9.3f} "
              f"{r['old'] / r['new']:>8.2f}  {r['same']}", flush=True)


if __name__ == "__main__":
    main()
