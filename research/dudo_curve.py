"""The perfect-recall improvement along one Dudo group's training: does the figure that counts beyond 4 dice
in play fall with the iterations the way the abstraction's own bound (the floor rule's measure) does?

    .venv/bin/python -m research.dudo_curve --root /tmp/full --variant dudo-5dice-full --group 5v5 \\
        --memory 3-28-2 --points 36,72,144,288 [--games 20] [--threads 2]

Trains the group once (the profile's rule: ``FastSolver`` defaults; ``--update``, ``--avg-power`` and
``--simultaneous`` try other rules) on the store's continuations and, at
each point, measures per round the memory-m' responder's exact-valued bound (m' = ``--responder``, default
the group's memory) and its perfect-recall improvement (the same seed at every point, so the points share
their sampled claims as far as the strategies allow); with at most 4 dice in play also the exact
perfect-recall best response (``exact``).  ``--memory`` takes any memory: 3, a schedule 3-28-2, or a face
memory 2+1f.  ``--measure-after`` trains through every point first, keeping each point's strategy on disk,
and measures once the solver's tables are freed: for a responder whose value matrices do not fit beside them
(5v5 memory 3 by the memory-3 responder: 8.8 GB of training, 18 GB of matrices).
"""
from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from research.dudo import _round_exploitability
from research.dudo_lbr import store_inputs
from games.dudo.build.cfrbr import CFRBR
from games.dudo.abstraction.dag import make_group, round_reachable
from games.dudo.abstraction.infoset import dominates, memory_json, parse_memory, remembers_more
from games.dudo.measure.lbr import round_improved_best_response
from games.dudo.solvers.abstract_cfr import FastSolver
from games.dudo.solvers.training import train
from games.storage import StoreError


EXACT_DICE = 4     # dice in play up to which the exact best response walks every claim history


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.dudo_curve")
    ap.add_argument("--root", default="stores")
    ap.add_argument("--variant", default="dudo-5dice-default")
    ap.add_argument("--group", required=True, help="e.g. 5v5")
    ap.add_argument("--memory", required=True, help="the group's memory: an int or a schedule like 3-28-2")
    ap.add_argument("--responder", default="", help="the improvement's responder memory (default: --memory)")
    ap.add_argument("--points", required=True, help="comma-separated increasing iteration counts")
    ap.add_argument("--fine", default="", help="train against CFR+ responders with this memory (games.dudo.build.cfrbr)"
                    " instead of on the abstract game")
    ap.add_argument("--update", choices=("cfr+", "pcfr+", "dcfr"), default="cfr+",
                    help="the regret update (default: the builds' CFR+)")
    ap.add_argument("--avg-power", type=float, default=1.0,
                    help="the average strategy weighs iteration t by t ** this (default 1: the builds' linear)")
    ap.add_argument("--simultaneous", action="store_true",
                    help="update both seats in one pass an iteration (the builds alternate where the seats own"
                         " separate nodes: two passes)")
    ap.add_argument("--games", type=int, default=20, help="sampled rounds per responder roll and seat")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--measure-after", action="store_true",
                    help="train through every point first and measure after the solver is freed")
    a = ap.parse_args(argv)
    try:
        x, y = (int(v) for v in a.group.split("v"))
        group = (min(x, y), max(x, y))
        m = parse_memory(a.memory)
        resp = parse_memory(a.responder) if a.responder else m
        fine_m = parse_memory(a.fine) if a.fine else None
        if not dominates(6 * (x + y), resp, m):
            raise ValueError(f"--responder {a.responder}: it must remember all that --memory {a.memory} does")
        if a.fine and not remembers_more(6 * (x + y), fine_m, m):
            raise ValueError(f"--fine {a.fine}: the responders must remember more than --memory {a.memory}")
        points = [int(p) for p in a.points.split(",") if p]
        if not points or points != sorted(set(points)) or points[0] < 1:
            raise ValueError(f"--points {a.points!r}: want increasing positive iteration counts")
        if a.games < 2 or a.threads < 1:
            raise ValueError("--games must be at least 2 and --threads at least 1")
        if not 0 <= a.avg_power <= 8:
            raise ValueError(f"--avg-power {a.avg_power}: want a power in 0..8")
        if a.fine and (a.update != "cfr+" or a.avg_power != 1.0 or a.simultaneous):
            raise ValueError("--fine trains against CFR+ responders with the builds' rule: no --update, "
                             "--avg-power or --simultaneous")
    except ValueError as e:
        print(f"bad arguments: {e}", file=sys.stderr)
        return 2
    try:
        _, W, max_dice, bo, bt = store_inputs(a.root, a.variant)
    except StoreError as e:
        print(str(e), file=sys.stderr)
        return 2
    if not 1 <= group[0] <= group[1] <= max_dice:
        print(f"bad arguments: --group {a.group}: each player has 1..{max_dice} dice in this store", file=sys.stderr)
        return 2
    g = make_group(*group, m, W, max_dice)
    openers = [op for op in sorted(set(group)) if round_reachable(op, sum(group) - op, max_dice)]
    if a.fine:
        fine = make_group(*group, fine_m, W, max_dice, split=group[0] == group[1])
        solver = CFRBR(g, fine, "cfr", threads=a.threads)
    else:
        solver = FastSolver(g, mode=a.update, avg_power=a.avg_power, alternate=not a.simultaneous,
                            threads=a.threads)
    against = f" against memory-{a.fine} responders" if a.fine else ""
    print(f"{a.group} memory {memory_json(m)}{against} on {a.variant}'s continuations; improvement of the memory-"
          f"{memory_json(resp)} responder, {a.games} games per roll and seat, seed {a.seed}")
    exact = sum(group) <= EXACT_DICE
    print(f"{'round':>6} {'iters':>6} {'train s':>8} {'own bound':>9} {'improved':>9} {'+-':>7} {'imp s':>6}"
          f" {'exact':>9}", flush=True)

    def measure(t, seconds, strat):
        exact_by_round = _round_exploitability(g, strat, W, bo, bt, openers=openers) if exact else {}
        for op in openers:
            t0 = time.perf_counter()
            est = round_improved_best_response(g, strat, op, resp, W, bo, bt, max_dice, a.games, a.seed)
            took = time.perf_counter() - t0
            ex = f"{exact_by_round[(op, sum(group) - op)][3]:9.2e}" if exact else f"{'-':>9}"
            print(f"{op}v{sum(group) - op:<4} {t:>6} {seconds:8.0f} {est.base:9.4f} "
                  f"{est.exploitability:9.4f} {est.stderr:7.4f} {took:6.0f} {ex}", flush=True)

    if not a.measure_after:
        for t in points:
            train(solver, t - solver.t, progress=False)
            measure(solver.t, solver.seconds, solver.average_strategy())
        return 0
    with tempfile.TemporaryDirectory(prefix="dudo_curve-") as tmp:
        kept = []
        for t in points:
            train(solver, t - solver.t, progress=False)
            path = Path(tmp) / f"{t}.npy"
            np.save(path, solver.average_strategy())
            kept.append((solver.t, solver.seconds, path))
        del solver
        gc.collect()
        for t, seconds, path in kept:
            measure(t, seconds, np.load(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
