"""Calibrate the Dudo group cost model (games.dudo.cost.group_cost) against measurement.

  python -m bench.dudo_cost [--quick]

For each (group, memory) it builds the group, runs a few training iterations and prints the CPU
seconds per iteration (``time.process_time``, so a loaded machine inflates it less than wall time)
beside the model's, and the solver's array bytes beside the model's; the last line is the median
ratio of measured to modelled seconds, the factor to apply to ``SECONDS_PER_PAIR`` /
``SECONDS_PER_ROLL`` if the machine that should set them differs.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from games.dudo.cost import group_cost
from games.dudo.abstraction.dag import make_group
from games.dudo.solvers.abstract_cfr import FastSolver
from games.dudo.solvers.tree_cfr import TreeSolver

CASES = [(1, 1, None, 50), (1, 2, None, 4), (1, 2, 3, 100), (2, 2, 3, 20), (1, 3, 3, 20), (2, 3, 2, 20),
         (2, 3, 3, 5), (3, 3, 2, 10), (2, 4, 2, 10), (3, 3, 3, 3), (4, 4, 1, 5), (4, 4, 2, 3), (3, 5, 2, 2),
         (5, 5, 1, 3), (4, 5, 1, 3)]
QUICK = [(1, 2, 3, 20), (2, 3, 2, 5), (3, 3, 2, 3), (4, 4, 1, 2)]


def solver_bytes(s) -> int:
    return sum(a.nbytes for a in vars(s).values() if isinstance(a, np.ndarray))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="four small cases")
    args = ap.parse_args(argv)
    W = {(a, b): 0.5 for a in range(1, 6) for b in range(1, 6)}
    print(f"{'group':>6} {'m':>7} {'cpu s/it':>9} {'model':>9} {'ratio':>6} {'arrays MB':>10} {'model MB':>9}")
    ratios = {"pair": [], "roll": []}
    for a, b, m, its in (QUICK if args.quick else CASES):
        g = make_group(a, b, m, W, 5)
        s = TreeSolver(g) if m is None else FastSolver(g)
        s.fsicfr_iteration()        # compiles
        c0 = time.process_time()
        for _ in range(its):
            s.fsicfr_iteration()
        cpu = (time.process_time() - c0) / its
        c = group_cost(a, b, m)
        ratios["roll" if m is None else "pair"].append(cpu / c.seconds_per_iteration)
        print(f"{a}v{b:<4} {'perfect' if m is None else m:>7} {cpu:>9.4f} {c.seconds_per_iteration:>9.4f}"
              f" {cpu / c.seconds_per_iteration:>6.2f} {solver_bytes(s) / 1e6:>10.1f} {c.bytes / 1e6:>9.1f}")
    for k, v in ratios.items():
        if v:
            print(f"median measured/model, per {k}: {statistics.median(v):.2f} ({len(v)} groups)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
