"""``python -m research.dudo_sparse reach``: how many windows of a longer memory a shorter memory's strategy reaches
on a large round, so what a table sparse by reach (``research.dudo_pruning``) would hold there.

The round's group is trained with CFR+ (``abstract_cfr.FastSolver``) on placeholder continuation values
(``research.dudo.fake_W``: the count depends on the strategy's sparsity, which these only roughly imitate), lifted to
each longer memory (``dudo_pruning.lift_shorter``), and one forward pass (``dudo_pruning.active_reach`` in warm-start mode)
gives per window the reach of each roll; a window counts when its mover's opponent reaches it with a total
probability above eps (its regrets would change) and the rows (window, action, roll) of those windows at 16
bytes (regret and strategy sum, float64) are the sparse table's MB.  Seconds per iteration: the dense shorter
memory's measured seconds scaled by the ratio of full-width work (actions x rolls x rolls) of the counted
windows."""
from __future__ import annotations

import time

import numpy as np

from games.dudo.abstraction.dag import make_group
from research.dudo_pruning import active_reach, lift_shorter
from games.dudo.solvers.abstract_cfr import FastSolver

from research.dudo import fake_W


def reach_table(round_text: str, memory: str, iterations: int, fine: str, eps: str, log=print):
    a, b = (int(x) for x in round_text.split("v"))
    mc = int(memory)
    W = fake_W(max(a, b))
    gc = make_group(a, b, mc, W)
    fc = FastSolver(gc)
    fc.solve(iterations, progress=False)
    sc = fc.average_strategy()
    sec_it = fc.cpu_seconds / max(1, fc.t)
    na_c = np.diff(gc.act_off)
    pair = int(gc.ns[0]) * int(gc.ns[-1])
    work_c = int(na_c.sum()) * pair * gc.nsides
    log(f"{a}v{b} memory {mc}: {gc.NW:,} windows, {iterations} CFR+ iterations, {fc.cpu_seconds:.1f} CPU s "
        f"({sec_it:.2f} s an iteration), dense tables {gc.nrows * 16 / 1e6:.1f} MB")
    log("| memory | windows (dense) | windows reached > eps | rows reached | sparse MB | dense MB "
        "| s an iteration (estimated) |\n|---|---|---|---|---|---|---|")
    epss = [float(x) for x in eps.split(",")]
    for mf in [int(x) for x in fine.split(",")]:
        c0 = time.process_time()
        g = make_group(a, b, mf, W)
        lifted = lift_shorter(g, gc, sc)
        maxn = int(g.ns.max())
        mreach, oreach = np.zeros((g.nsides, g.NW, maxn)), np.zeros((g.nsides, g.NW, maxn))
        flags = [np.zeros((g.nsides, g.NW), dtype=np.bool_) for _ in range(4)]
        active_reach(lifted, np.zeros(1), np.zeros((g.nsides, int(g.act_off[-1])), dtype=np.bool_), mreach, oreach,
                     *flags, g.ns, g.oth, g.probs, g.root_w, g.rbase, g.order, g.act_off, g.child, g.NW,
                     np.zeros((g.nsides, g.NW), dtype=np.int64), -1, False, False, True, 0.0)
        opp = oreach.sum(axis=2)
        na = np.diff(g.act_off)
        for e in epss:
            hit = opp > e
            rows = sum(int((na * hit[si]).sum()) * int(g.ns[si]) for si in range(g.nsides))
            work = sum(int((na * hit[si]).sum()) for si in range(g.nsides)) * pair
            log(f"| {mf} (eps {e:g}) | {g.NW * g.nsides:,} | {int(hit.sum()):,} | {rows:,} | {rows * 16 / 1e6:.1f} "
                f"| {g.nrows * 16 / 1e6:.1f} | {sec_it * work / work_c:.2f} |")
        log(f"  (memory {mf}: {time.process_time() - c0:.1f} CPU s to lift and count)")
