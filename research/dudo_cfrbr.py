"""Abstract equilibrium against least-exploitable abstract strategy: the same memory m trained by CFR+ on
the abstract game (the builder's ``FastSolver``) and against responders that remember more
(``games.dudo.build.cfrbr``: CFR+ responders, or best responses as in CFR-BR), on rounds with an exact best
response.  One process, same machine; continuations: the smaller rounds solved with perfect recall.

    .venv/bin/python -m research.dudo_cfrbr --runs 1v1:2:perfect,1v2:3:perfect,2v2:3:6 --points 100,400
"""
from __future__ import annotations

import argparse
import time

from research.dudo import _round_exploitability, perfect_recall_continuations
from games.dudo.build.cfrbr import CFRBR
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import memory_json, parse_memory
from games.dudo.solvers.abstract_cfr import FastSolver


def worst(g, strat, W, bo, bn) -> float:
    return max(x[3] for x in _round_exploitability(g, strat, W, bo, bn).values())


def run(a, b, m, m_fine, points, W, bo, bn, methods=("cfr", "asym", "cfr-br")):
    """Rows (method, iterations, seconds, exploitability of the average strategy) of one group."""
    g = make_group(a, b, m, W)
    rows = []
    for method in methods:
        if method == "cfr":
            s = FastSolver(g)
            step = s.fsicfr_iteration
        else:
            gf = make_group(a, b, m_fine, W, split=(a == b))
            s = CFRBR(g, gf, "cfr" if method == "asym" else "br")
            step = s.fsicfr_iteration
        for p in points:
            while s.t < p:
                step()
            e = worst(g, s.average_strategy(), W, bo, bn)
            rows.append((method, s.t, s.seconds, e))
            print(f"{a}v{b:<3} m={memory_json(m)!s:>5} fine={memory_json(m_fine)!s:>8} {method:>7} {s.t:>6}"
                  f" {s.seconds:>8.1f} s {e:>10.3e}", flush=True)
        del s
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.dudo_cfrbr")
    ap.add_argument("--runs", default="1v1:2:perfect,1v1:3:perfect,1v2:3:perfect,2v2:3:6",
                    help="group:memory:responder memory, comma-separated (responder memory 'perfect')")
    ap.add_argument("--points", default="100,400", help="iteration counts at which to measure")
    ap.add_argument("--methods", default="cfr,asym,cfr-br")
    args = ap.parse_args(argv)
    points = [int(x) for x in args.points.split(",")]
    t0 = time.perf_counter()
    W, bo, bn = {}, {}, {}
    if any(sum(int(x) for x in item.split(":")[0].split("v")) > 2 for item in args.runs.split(",")):
        W, bo, bn = perfect_recall_continuations(log=print)     # 1v1 decides the game: no continuation
        print(f"continuations in {time.perf_counter() - t0:.0f} s\n")
    print("exploitability: exact perfect-recall best response, worst round of the group, win probability;"
          " cfr = CFR+ on the abstract game (the builder's rule), asym = CFR+ against CFR+ responders with the"
          " fine memory, cfr-br = against their best responses")
    for item in args.runs.split(","):
        grp, m, mf = item.split(":")
        a, b = (int(x) for x in grp.split("v"))
        run(a, b, parse_memory(m), parse_memory(mf), points, W, bo, bn,
            tuple(args.methods.split(",")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
