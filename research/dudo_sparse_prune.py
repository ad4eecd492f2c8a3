"""``python -m research.dudo_sparse prune``: design (b), tables sparse by reach with regret-based pruning
(``research.dudo_pruning``), against dense CFR+ (``abstract_cfr.FastSolver``, how the stores train) and dense Linear CFR,
exploitability (exact perfect-recall best response, both seats, win probability) against CPU seconds and MB.

Solvers per memory m: ``cfr+`` dense CFR+; ``lcfr`` Linear CFR with partial pruning only (exact:
``PrunedSolver(prune=False)``); ``rbp`` Linear CFR with regret-based pruning; ``rbp+warm`` the same warm-started
from dense CFR+ on memory ``m - 1`` (perfect recall: the longest plain memory of the list) after ``warm_it``
iterations, the shorter strategy played where the opponent's reach stays at most ``eps``, whose CPU seconds and
memory are counted in.  Points at doubling iterations until ``seconds`` of training CPU.  MB: ``dense`` the
solver's regret + strategy-sum rows (16 bytes) and value matrices (4 bytes an entry); ``sparse`` the same for
the nodes the run ever visited (``PrunedSolver.sparse_mb``), where the warm start's dense solve adds its own."""
from __future__ import annotations

import time

from games.dudo.abstraction.dag import make_group
from research.dudo_pruning import PrunedSolver, lift_shorter
from games.dudo.solvers.abstract_cfr import FastSolver

from research.dudo import _round_exploitability


def dense_mb(g) -> float:
    pair = int(g.ns[0]) * int(g.ns[-1])
    return (g.nrows * 16 + g.nsides * g.NW * pair * 4) / 1e6


def curve(g, solver, seconds, W, bo, bn, mb_of, extra_cpu=0.0, first=8):
    pts, t = [], first
    while True:
        solver.solve(t - solver.t, progress=False)
        res = _round_exploitability(g, solver.average_strategy(), W, bo, bn)
        pts.append((solver.t, {r: v[3] for r, v in res.items()}, solver.cpu_seconds + extra_cpu, mb_of()))
        if solver.cpu_seconds + extra_cpu >= seconds:
            return pts
        t *= 2


def prune_curves(groups, memories, seconds, W, bo, bn, warms=(0.0,), warm_it=64, eps=1e-4, log=print):
    rows = []

    def emit(group, m, kind, pts):
        for it, ex, cpu, mb in pts:
            for rnd, e in sorted(ex.items()):
                row = (f"{rnd[0]}v{rnd[1]}", f"m={'perfect' if m is None else m} {kind}", it, e, cpu, mb)
                rows.append(row)
                log(fmt(row))

    for a, b in groups:
        ms = [None if x == "perfect" else int(x) for x in memories]
        for m in ms:
            g = make_group(a, b, m, W)
            emit((a, b), m, "cfr+ dense", curve(g, FastSolver(g), seconds, W, bo, bn, lambda: dense_mb(g)))
            s = PrunedSolver(g, prune=False)
            emit((a, b), m, "lcfr, partial pruning (exact)", curve(g, s, seconds, W, bo, bn, s.sparse_mb))
            s = PrunedSolver(g)
            emit((a, b), m, "lcfr+rbp", curve(g, s, seconds, W, bo, bn, s.sparse_mb))
            coarse_m = (m - 1) if m is not None else max(x for x in ms if x is not None)
            for wt in warms:
                if not wt or coarse_m < 1:
                    continue
                gc = make_group(a, b, coarse_m, W)
                fc = FastSolver(gc)
                fc.solve(warm_it, progress=False)
                s = PrunedSolver(g, eps=eps)
                c0 = time.process_time()
                lifted = lift_shorter(g, gc, fc.average_strategy())
                s.warm_start(lifted, wt)
                extra = fc.cpu_seconds + time.process_time() - c0
                emit((a, b), m, f"lcfr+rbp warm {wt:g} from m={coarse_m} ({warm_it} it), eps {eps:g}",
                     curve(g, s, seconds, W, bo, bn, lambda: s.sparse_mb() + dense_mb(gc), extra_cpu=extra))
    print(f"\nDesign (b) on the exact rounds\n{HEADER}")
    for r in rows:
        print(fmt(r))
    return rows


HEADER = "| round | design | iterations | exploitability (exact) | CPU s | MB |\n|---|---|---|---|---|---|"


def fmt(r) -> str:
    rnd, design, it, e, cpu, mb = r
    return f"| {rnd} | {design} | {it} | {e:.5f} | {cpu:.1f} | {mb:.1f} |"
