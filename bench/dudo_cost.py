"""Calibrate the Dudo group cost model (games.dudo.cost.group_cost) against measurement.

  python -m bench.dudo_cost [--quick]
  nice -n 5 python -m bench.dudo_cost --live [--quick]

For each (group, memory) it builds the group, runs a few training iterations and prints the CPU
seconds per iteration (``time.process_time``, so a loaded machine inflates it less than wall time)
beside the model's, and the solver's array bytes beside the model's; the last line is the median
ratio of measured to modelled seconds, the factor to apply to ``SECONDS_PER_PAIR`` /
``SECONDS_PER_ROLL`` if the machine that should set them differs.

``--live``: the live solve (``games.dudo.serving.live_solve.solve_live``, what a server's live worker runs for a
round its store does not hold) of the groups up to a total of dice in play, for memories, perfect-recall totals and
iterations a store may have: its CPU seconds (numba warm) per call and per group beside ``group_cost``'s seconds of
the same groups (``cost.live_group_cost``'s ``work_seconds``) and the admission estimate (``seconds``, times
``LIVE_SOLVE_FACTOR``); the last line is the largest measured / ``group_cost`` ratio of a solve and of a group,
which ``LIVE_SOLVE_FACTOR`` must not be below (then no estimate is below the measured CPU).
"""
from __future__ import annotations

import argparse
import statistics
import time
from unittest import mock

import numpy as np

import games.dudo.build.solve_game as solve_game_module
from games.dudo.cost import LIVE_SOLVE_FACTOR, group_cost
from games.dudo.abstraction.dag import make_group
from games.dudo.solvers.abstract_cfr import FastSolver
from games.dudo.serving.live_solve import live_cost, solve_live
from games.dudo.solvers.tree_cfr import TreeSolver

CASES = [(1, 1, None, 50), (1, 2, None, 4), (1, 2, 3, 100), (2, 2, 3, 20), (1, 3, 3, 20), (2, 3, 2, 20),
         (2, 3, 3, 5), (3, 3, 2, 10), (2, 4, 2, 10), (3, 3, 3, 3), (4, 4, 1, 5), (4, 4, 2, 3), (3, 5, 2, 2),
         (5, 5, 1, 3), (4, 5, 1, 3)]
QUICK = [(1, 2, 3, 20), (2, 3, 2, 5), (3, 3, 2, 3), (4, 4, 1, 2)]
# live solves: (dice a player of the game solved, dice in play up to, memory, perfect-recall total, iterations)
LIVE_CASES = [(2, 3, 1, 2, 20), (2, 3, 1, 2, 300), (2, 3, 2, 2, 100), (2, 3, 3, 2, 20), (2, 3, 3, 2, 300),
              (2, 4, 3, 2, 300), (2, 4, 4, 2, 50), (2, 3, 3, 3, 20), (3, 6, 1, 2, 300), (3, 6, 2, 2, 100),
              (3, 6, 3, 2, 20), (3, 6, 3, 2, 40)]
LIVE_QUICK = [(2, 3, 3, 2, 20), (2, 4, 2, 2, 10)]


def solver_bytes(s) -> int:
    return sum(a.nbytes for a in vars(s).values() if isinstance(a, np.ndarray))


def timed_live_solve(need: int, total: int, m, perfect_recall_total: int, iterations: int) -> tuple[float, dict]:
    """CPU seconds of ``solve_live`` and {group: CPU seconds of its ``solve_group``} (the rest: the solved
    groups' tables looked up again)."""
    per_group = {}
    solve_group = solve_game_module.solve_group

    def timed(group, **kw):
        c0 = time.process_time()
        out = solve_group(group, **kw)
        per_group[tuple(group)] = time.process_time() - c0
        return out

    with mock.patch.object(solve_game_module, "solve_group", timed):
        c0 = time.process_time()
        solve_live(need, total, m, perfect_recall_total, iterations)
        return time.process_time() - c0, per_group


def warm_live() -> None:
    """Load (or compile) the kernels a live solve runs: FastSolver's and TreeSolver's."""
    solve_live(2, 3, 3, 2, 2)
    TreeSolver(make_group(1, 1, None, {}, 1)).fsicfr_iteration()


def live_main(cases) -> int:
    warm_live()
    print(f"{'game':>5} {'dice':>4} {'m':>4} {'perfect':>7} {'its':>4} {'group':>6} {'cpu s':>8} {'group_cost s':>12}"
          f" {'cpu/gc':>6} {'estimate s':>10} {'est/cpu':>7}")
    worst, worst_group = 0.0, 0.0
    for need, total, m, perfect, its in cases:
        cpu, per_group = timed_live_solve(need, total, m, perfect, its)
        seconds, _, groups = live_cost(need, total, m, perfect, its)
        work = sum(g.work_seconds for g in groups)
        for g in groups:
            a, b = g.group
            worst_group = max(worst_group, per_group[g.group] / g.work_seconds)
            print(f"{'':>5} {'':>4} {'':>4} {'':>7} {'':>4} {f'{a}v{b}':>6} {per_group[g.group]:>8.3f}"
                  f" {g.work_seconds:>12.3f} {per_group[g.group] / g.work_seconds:>6.2f} {g.seconds:>10.3f}"
                  f" {g.seconds / per_group[g.group]:>7.2f}")
        worst = max(worst, cpu / work)
        print(f"{need:>5} {total:>4} {m:>4} {perfect:>7} {its:>4} {'all':>6} {cpu:>8.3f} {work:>12.3f}"
              f" {cpu / work:>6.2f} {seconds:>10.3f} {seconds / cpu:>7.2f}", flush=True)
    print(f"largest measured/group_cost: {worst:.2f} a live solve, {worst_group:.2f} a group"
          f" (LIVE_SOLVE_FACTOR {LIVE_SOLVE_FACTOR:g})")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="four small cases (with --live: two)")
    ap.add_argument("--live", action="store_true", help="the live solve's CPU against group_cost")
    args = ap.parse_args(argv)
    if args.live:
        return live_main(LIVE_QUICK if args.quick else LIVE_CASES)
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
