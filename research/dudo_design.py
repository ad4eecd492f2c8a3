"""Designs past the window floor, compared on the Dudo rounds with an exact best response.

    nice -n 10 .venv/bin/python -m research.dudo_design [--groups 1v1,1v2] [--blueprint 1:200,2:200]
        [--depths 2,4] [--iterations 200] [--gadget resolve] [--baseline 1:200,2:200,3:200,perfect:200]

One table, one row per (round, design): the stored strategy of memory m after N CFR+ iterations
(``stored m=M``), and continual depth-limited re-solving (``games.dudo.search.continual``) on a memory-m
blueprint (``search m=M d=D``).  Every figure is the round's exploitability by the exact perfect-recall
best response, both seats summed, in game-winning probability; the continuation values of later
rounds are those of a perfect-recall solve of the smaller rounds (1v1 at 4000 CFR+ iterations; 1v2 and
2v1 by ``TreeSolver`` when a 4-dice group is asked), so a row measures its own round.

Columns: ``build s`` the CPU seconds of the strategy's training (search: the blueprint's, plus its value
matrices); ``stored MB`` what the design keeps per group (strategy entries at 4 bytes; search adds the
continuation value matrices, one per (side, window, continuation) of n x n' entries at 4 bytes); ``move
s`` the mean / max CPU seconds of one re-solve (what a search answer costs per request; the re-solves of
a request's earlier decisions can be kept by the server or recomputed, ``ContinualResolver.strategy``);
``eval s`` the evaluation's seconds (one re-solve at each decision the policy's player reaches).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from games.dudo.search.continual import ContinualResolver, continuation_values, seat_best_response
from games.dudo.abstraction.dag import make_group
from games.dudo.solvers.abstract_cfr import FastSolver
from games.dudo.solvers.tree_cfr import TreeSolver

from research.dudo import _round_exploitability
from games.dudo.measure.exploit import payoff_tables


def continuations(max_total: int, log=print):
    """(W, responder-opens, responder-other) of the rounds below ``max_total`` dice: perfect recall."""
    W, bo, bn = {}, {}, {}
    todo = [(1, 1, 4000)] + ([(1, 2, 400)] if max_total >= 4 else [])
    for a, b, n in todo:
        g = make_group(a, b, None, W)
        s = (FastSolver(g) if a + b == 2 else TreeSolver(g)).solve(n, progress=False)
        for rnd, (v, eo, en, e) in _round_exploitability(g, s.average_strategy(), W, bo, bn).items():
            W[rnd], bo[rnd], bn[rnd] = v, eo, en
            log(f"  continuation {rnd[0]}v{rnd[1]}: value {v:.5f}, exploitability {e:.1e}")
    return W, bo, bn


def train(a: int, b: int, m, iterations: int, W):
    """(group, average strategy, CPU seconds) of ``iterations`` CFR+ iterations with memory ``m``."""
    g = make_group(a, b, m, W)
    s = TreeSolver(g) if (m is None and a + b > 2) else FastSolver(g)
    t0 = time.process_time()
    s.solve(iterations, progress=False)
    return g, s.average_strategy(), time.process_time() - t0


def stored_mb(g) -> float:
    return g.nrows * 4 / 1e6


def parse_pairs(text: str):
    out = []
    for part in filter(None, text.split(",")):
        m, n = part.split(":")
        out.append((None if m == "perfect" else int(m), int(n)))
    return out


def search_rows(a, b, m, its, W, bo, bn, depths, iterations, gadget, kinds, log=print):
    g, st, secs = train(a, b, m, its, W)
    base = _round_exploitability(g, st, W, bo, bn)
    rows = []
    for (op, oth), (v, eo, en, e) in sorted(base.items()):
        rows.append((f"{op}v{oth}", f"blueprint m={m} ({its} it)", e, secs, stored_mb(g), None, None))
    for d in depths:
        for (op, oth) in sorted(base):
            total, times, t_eval, t_cont, mb = 0.0, [], time.process_time(), 0.0, stored_mb(g)
            for resp_opens in (True, False):
                own, opp = (oth, op) if resp_opens else (op, oth)
                c0 = time.process_time()
                cont = continuation_values(a, b, m, st, W, own, not resp_opens, kinds)
                t_cont = max(t_cont, time.process_time() - c0)
                pol = ContinualResolver(own, opp, not resp_opens, W, cont, depth=d, iterations=iterations,
                                        gadget=gadget)
                total += seat_best_response(pol, payoff_tables(own, opp, W, bo, bn))
                times += pol.stats["times"]
            mb += cont.Vc.size * 4 / 1e6 / (2 if a == b else 1)   # a == b: both seats' matrices are one group's
            row = (f"{op}v{oth}", f"search m={m} ({its} it) d={d}", total - 1, secs + t_cont, mb,
                   (float(np.mean(times)), float(np.max(times))), time.process_time() - t_eval)
            rows.append(row)
            log(fmt(row))
    return rows


def fmt(row) -> str:
    rnd, design, e, secs, mb, mv, ev = row
    mvs = f"{mv[0]:.4f} / {mv[1]:.3f}" if mv else "-"
    evs = f"{ev:.0f}" if ev is not None else "-"
    return f"| {rnd} | {design} | {e:.5f} | {secs:.1f} | {mb:.3f} | {mvs} | {evs} |"


HEADER = ("| round | design | exploitability (exact) | build s | stored MB | move s (mean / max) | eval s |\n"
          "|---|---|---|---|---|---|---|")


def timing(a: int = 5, b: int = 5, m: int = 1, depths=(2, 4), iterations=(30, 100),
           lasts=(-1, 29, 44, 54), log=print):
    """CPU seconds of one re-solve at round {a, b} against the last claim's strength (``-1``: the round's
    first claim) and depth: placeholder continuation values (``research.dudo.fake_W``) and a 20-iteration
    blueprint, as the work does not depend on the values.  Histories: the requester opened, claims spaced
    so that it is to move after the last one."""
    from research.dudo import fake_W
    W = fake_W(5)
    t0 = time.process_time()
    g, st, _ = train(a, b, m, 20, W)
    cont = continuation_values(a, b, m, st, W, a, True)
    log(f"{a}v{b} memory {m}: blueprint and value matrices {time.process_time() - t0:.1f} s, "
        f"{cont.Vc.nbytes / 1e6:.0f} MB of value matrices (float64, 2 continuations)")
    log("| last claim | claims left | depth | iterations | subgame nodes | re-solve s |\n|---|---|---|---|---|---|")
    from math import comb
    for L in lasts:
        hist = () if L < 0 else tuple(range(L - 3, L + 1))    # 4 claims: the requester is to move again
        R = 6 * (a + b) - 1 - (hist[-1] if hist else -1)
        for d in depths:
            N = sum(comb(R, j) for j in range(min(d, R) + 1))
            if N > 60000:
                log(f"| {L} | {R} | {d} | - | {N} | not run (too large) |")
                continue
            for T in iterations:
                est = comb(R, min(d, R)) * int(g.ns[0]) * int(g.ns[-1]) * 6 * T / 1e9   # leaf work, ~1 Gflop/s
                if est > 120:
                    log(f"| {L} | {R} | {d} | {T} | {N} | not run (about {est:.0f} s estimated) |")
                    continue
                pol = ContinualResolver(a, b, True, W, cont, depth=d, iterations=T)
                rr = roll_arrays_prior(a)
                c0 = time.process_time()
                pol.resolve(hist, rr, None if not hist else np.zeros(int(pol.ns[1])))
                log(f"| {L} | {R} | {d} | {T} | {N} | {time.process_time() - c0:.3f} |")


def roll_arrays_prior(d: int):
    from games.dudo.rules import roll_arrays
    return roll_arrays(d)[0].copy()


def main(argv=None):
    if argv is None:
        import sys
        argv = sys.argv[1:]
    if argv[:1] == ["timing"]:
        ap = argparse.ArgumentParser(description="one re-solve's seconds on a large round")
        ap.add_argument("--round", default="5v5")
        ap.add_argument("--memory", type=int, default=1)
        ap.add_argument("--depths", default="2,4")
        ap.add_argument("--iterations", default="30,100")
        t = ap.parse_args(argv[1:])
        ra, rb = (int(x) for x in t.round.split("v"))
        timing(ra, rb, t.memory, tuple(int(x) for x in t.depths.split(",")),
               tuple(int(x) for x in t.iterations.split(",")))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", default="1v1,1v2")
    ap.add_argument("--blueprint", default="1:200,2:200", help="memory:iterations of the search's blueprints")
    ap.add_argument("--depths", default="2,4")
    ap.add_argument("--iterations", type=int, default=200, help="CFR+ iterations per re-solve")
    ap.add_argument("--gadget", default="resolve", choices=("resolve", "maxmargin"))
    ap.add_argument("--continuations", default="blueprint,br",
                    help="the opponent's continuation strategies at the leaves")
    ap.add_argument("--baseline", default="1:200,2:200,3:200,4:200,perfect:200",
                    help="memory:iterations of the stored strategies")
    a = ap.parse_args(argv)
    groups = [tuple(int(x) for x in gtxt.split("v")) for gtxt in a.groups.split(",")]
    t0 = time.time()
    W, bo, bn = continuations(max(x + y for x, y in groups))
    kinds = tuple(a.continuations.split(","))
    rows = []
    for ga, gb in groups:
        for m, its in parse_pairs(a.baseline):
            if m is not None and m >= 6 * (ga + gb):
                continue
            g, st, secs = train(ga, gb, m, its, W)
            for (op, oth), (v, eo, en, e) in sorted(_round_exploitability(g, st, W, bo, bn).items()):
                row = (f"{op}v{oth}", f"stored m={'perfect' if m is None else m} ({its} it)", e, secs,
                       stored_mb(g), None, None)
                rows.append(row)
                print(fmt(row), flush=True)
        for m, its in parse_pairs(a.blueprint):
            rows += search_rows(ga, gb, m, its, W, bo, bn, [int(d) for d in a.depths.split(",")],
                                a.iterations, a.gadget, kinds, log=lambda r: print(r, flush=True))
    print(f"\nExact rounds: designs against stored strategies (gadget {a.gadget}, {a.iterations} CFR+ "
          f"iterations per re-solve, continuations {'+'.join(kinds)}; {time.time() - t0:.0f} s wall)")
    print(HEADER)
    for r in sorted(rows, key=lambda r: (r[0], r[1])):
        print(fmt(r))


if __name__ == "__main__":
    main()
