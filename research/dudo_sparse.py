"""Designs (b) and (c) of the sparse tables on the Dudo rounds with an exact best response, against the plain window.

    nice -n 10 .venv/bin/python -m research.dudo_sparse memory --groups 2v2,1v2 \\
        --memories 2,3,4,2+1f,1+first,2+count,2+first --points 64,128,256,512
    nice -n 10 .venv/bin/python -m research.dudo_sparse prune --groups 1v2,2v2 --memories 2,3,4,perfect \\
        --seconds 60
    nice -n 10 .venv/bin/python -m research.dudo_sparse reach --round 5v5 --memory 2 --iterations 20 \\
        --fine 3 --eps 1e-2,1e-4,1e-6,0

``memory`` (design c, memory that keeps older claims coarsely): CFR+ (``abstract_cfr.FastSolver``, as the stores
train) on each memory's windows, the exact perfect-recall best response of every round of the group at each
point of the curve (``exploit.best_response_value``, both seats summed, win probability).
``prune`` (design b, tables sparse by reach with regret-based pruning, ``research.dudo_pruning``): Linear CFR
with regret-based pruning against dense CFR+ on the same memory and on the next shorter one, exploitability
against CPU seconds and the rows a table sparse by reach keeps.  ``reach``: how many windows of a longer
memory a trained shorter one reaches with probability above eps (what a table sparse by reach would hold at
5v5).

Continuations (later rounds) of a 4-dice group: 1v1 by CFR+ with perfect recall (2000 iterations), 1v2 / 2v1
memory 4 (400 iterations, exploitability about 0.003); every figure is the round's own share.
CPU seconds: ``time.process_time`` of the training only (the evaluation is not counted)."""
from __future__ import annotations

import argparse
import time

import numpy as np

from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import parse_memory
from games.dudo.solvers.abstract_cfr import FastSolver
from research.dudo_summary import Summary

from research.dudo import _round_exploitability


def memory_of(text: str):
    text = text.strip()
    if text == "perfect":
        return None
    if "+" in text and not text.rstrip("0123456789").endswith("f"):
        return Summary.parse(text)
    return parse_memory(text)


def continuations(max_total: int, log=print):
    """(W, responder-opens, responder-other) of the rounds below ``max_total`` dice (see the module doc)."""
    W, bo, bn = {}, {}, {}
    todo = [(1, 1, None, 2000)] + ([(1, 2, 4, 400)] if max_total >= 4 else [])
    for a, b, m, n in todo:
        g = make_group(a, b, m, W)
        s = FastSolver(g)
        s.solve(n, progress=False)
        for rnd, (v, eo, en, e) in _round_exploitability(g, s.average_strategy(), W, bo, bn).items():
            W[rnd], bo[rnd], bn[rnd] = v, eo, en
            log(f"  continuation {rnd[0]}v{rnd[1]} (memory {m}, {n} it): value {v:.5f}, exploitability {e:.1e}")
    return W, bo, bn


def solver_mb(s) -> float:
    """Training memory of a FastSolver: its regret, strategy and value arrays."""
    return sum(a.nbytes for a in (s.reg, s.ssum, s.strat, s.pred, s.V, s.mreach, s.oreach)) / 1e6


def memory_curves(groups, memories, points, W, bo, bn, log=print):
    rows = []
    for a, b in groups:
        for text in memories:
            m = memory_of(text)
            g = make_group(a, b, m, W)
            s = FastSolver(g)
            for p in points:
                s.solve(p - s.t, progress=False)
                res = _round_exploitability(g, s.average_strategy(), W, bo, bn)
                for (op, oth), (v, eo, en, e) in sorted(res.items()):
                    row = (f"{op}v{oth}", f"window {text}", g.NW, int(g.act_off[-1]), s.t, e, s.cpu_seconds,
                           g.nrows * 4 / 1e6, solver_mb(s))
                    rows.append(row)
                    log(fmt_memory(row))
    return rows


def fmt_memory(r) -> str:
    rnd, design, nw, na, it, e, cpu, mb, tmb = r
    return f"| {rnd} | {design} | {nw:,} | {na:,} | {it} | {e:.5f} | {cpu:.1f} | {mb:.2f} | {tmb:.1f} |"


MEMORY_HEADER = ("| round | memory | windows | actions | iterations | exploitability (exact) | CPU s | stored MB "
                 "| training MB |\n|---|---|---|---|---|---|---|---|---|")


def main(argv=None):
    import sys
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in ("memory", "prune", "reach"):
        raise SystemExit("usage: python -m research.dudo_sparse memory|prune|reach [options] (see the module doc)")
    cmd, argv = argv[0], argv[1:]
    ap = argparse.ArgumentParser(prog=f"research.dudo_sparse {cmd}")
    ap.add_argument("--groups", default="1v2,2v2")
    ap.add_argument("--memories", default="2,3,4")
    ap.add_argument("--points", default="64,128,256,512")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--round", default="5v5")
    ap.add_argument("--memory", default="2")
    ap.add_argument("--iterations", type=int, default=60)
    ap.add_argument("--fine", default="3,4")
    ap.add_argument("--eps", default="1e-6")
    ap.add_argument("--warm", default="0")
    a = ap.parse_args(argv)
    t0 = time.time()
    if cmd == "reach":
        from research.dudo_sparse_reach import reach_table
        reach_table(a.round, a.memory, a.iterations, a.fine, a.eps)
        return
    groups = [tuple(int(x) for x in gt.split("v")) for gt in a.groups.split(",")]
    W, bo, bn = continuations(max(x + y for x, y in groups))
    memories = [x for x in a.memories.split(",") if x]
    if cmd == "memory":
        rows = memory_curves(groups, memories, [int(p) for p in a.points.split(",")], W, bo, bn)
        print(f"\nMemories on the exact rounds (CFR+; {time.time() - t0:.0f} s wall)\n{MEMORY_HEADER}")
        for r in rows:
            print(fmt_memory(r))
        return
    from research.dudo_sparse_prune import prune_curves
    prune_curves(groups, memories, a.seconds, W, bo, bn, [float(x) for x in a.warm.split(",")],
                 eps=float(a.eps.split(",")[0]))


if __name__ == "__main__":
    main()
