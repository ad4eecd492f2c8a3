"""Memories of one Dudo group side by side: each trained by a profile's rule on a built store's
continuations, then measured by the perfect-recall improvement of one responder that remembers at least
what every candidate does after every claim (so one responder class for all), with where its gain lies
by the strength of the last claim.

    .venv/bin/python -m research.dudo_memory --root stores --variant dudo-5dice-default --group 4v4 \\
        --memories 4-16-3,5-10-4-16-3-28-2 --work /tmp/mem4v4 [--games 30] [--profile full]

Per memory: windows, modelled table bytes and seconds per iteration (games.dudo.build.budget), iterations and
why training stopped, training seconds, the abstraction's own exact-valued bound, the improvement with its
standard error, and the improvement's gain summed over buckets of the last claim's strength (each bucket
named by its first claim). A finished (group, memory) is kept under ``--work`` and not trained again.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from research.dudo_lbr import gain_buckets, store_inputs
from builder.profiles import PROFILES
from games.dudo.cost import group_cost, improvement_bytes
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import Faces, Schedule, memory_at, memory_json, num_windows, parse_memory
from games.dudo.measure.lbr import round_improved_best_response
from games.dudo.build.solve_game import solve_group
from games.storage import StoreError


def join_memories(K: int, memories) -> int | Schedule:
    """The least memory that remembers what each of ``memories`` does after every claim (their
    pointwise largest), as an int where it is uniform.  Face memories need ``--responder``."""
    if any(isinstance(m, Faces) for m in memories):
        raise ValueError("face memories have no claims-only join: give --responder (one that dominates each)")
    at = [max(memory_at(K, m, L) for m in memories) for L in range(-1, K)]
    mems, cuts = [at[0]], []
    for L in range(K):
        if at[L + 1] != mems[-1]:
            mems.append(at[L + 1])
            cuts.append(L)
    return mems[0] if not cuts else Schedule(tuple(mems), tuple(cuts))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.dudo_memory")
    ap.add_argument("--root", default="stores")
    ap.add_argument("--variant", default="dudo-5dice-default")
    ap.add_argument("--group", required=True, help="e.g. 4v4")
    ap.add_argument("--memories", required=True, help="comma-separated: ints, schedules like 4-16-3 or face memories like 2+1f")
    ap.add_argument("--responder", default="", help="the improvement's responder memory (default: the join)")
    ap.add_argument("--profile", default="full", help="the training rule (cap, stop_rel) of this profile")
    ap.add_argument("--cap", type=int, default=0, help="the iteration cap (default: the profile's)")
    ap.add_argument("--games", type=int, default=30, help="sampled rounds per responder roll and seat")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bucket", type=int, default=6, help="strengths per bucket of the gain table")
    ap.add_argument("--max-gib", type=float, default=6.0, help="largest responder value tables")
    ap.add_argument("--work", required=True, help="directory keeping each trained memory")
    a = ap.parse_args(argv)
    try:
        x, y = (int(v) for v in a.group.split("v"))
        group = (min(x, y), max(x, y))
        memories = [parse_memory(t) for t in a.memories.split(",") if t]
        K = 6 * sum(group)
        resp = parse_memory(a.responder) if a.responder else join_memories(K, memories)
        params = PROFILES[a.profile][f"dudo-5dice-{a.profile}"]
    except (ValueError, KeyError) as e:
        print(f"bad arguments: {e}", file=sys.stderr)
        return 2
    if improvement_bytes(*group, resp) > a.max_gib * (1 << 30):
        print(f"the responder {memory_json(resp)} needs {improvement_bytes(*group, resp) / 2**30:.1f} GiB "
              f"of value tables, over --max-gib {a.max_gib}", file=sys.stderr)
        return 2
    try:
        _, W, max_dice, bo, bt = store_inputs(a.root, a.variant)
    except StoreError as e:
        print(str(e), file=sys.stderr)
        return 2
    if a.games < 2:
        print(f"--games is {a.games}; it must be at least 2", file=sys.stderr)
        return 2
    cap = a.cap or dict(params.iterations_by_total).get(sum(group), params.iterations)
    print(f"{a.group} on {a.variant}'s continuations, {a.profile} rule (cap {cap}, stop_rel {params.stop_rel}); "
          f"improvement of the memory-{memory_json(resp)} responder, {a.games} games per roll and seat")
    rows = []
    for m in memories:
        c = group_cost(*group, m)
        meta = solve_group(group, m, W, max_dice, cap, os.path.join(a.work, str(m)), br_open=bo, br_other=bt,
                           stop_rel=params.stop_rel, progress=False, log=lambda s: print("   ", s, flush=True))
        strat = np.load(meta["path"])
        g = make_group(*group, m, W, max_dice)
        for (op, oth), st in sorted(meta["stats"].items()):
            if "exploitability" not in st:
                continue
            t0 = time.process_time()
            est = round_improved_best_response(g, strat, op, resp, W, bo, bt, max_dice, a.games, a.seed)
            rows.append((m, c, op, oth, st, est, time.process_time() - t0))
            print(f"  {op}v{oth} {memory_json(m)!s:>14}: {num_windows(K, m):>7} windows, "
                  f"{c.bytes / 1e9:5.2f} GB, {c.seconds_per_iteration:6.2f} s/it modelled; "
                  f"{st['iterations']} its ({st.get('stop', '-')}), train {st['train_seconds']:.0f} s; "
                  f"own bound {st['exploitability']:.4f}; improved {est.exploitability:.4f} +- {est.stderr:.4f}",
                  flush=True)
    print()
    print(f"{'round':>6} {'memory':>16} {'windows':>8} {'GB':>6} {'its':>5} {'train s':>8} {'own bound':>9} "
          f"{'improved':>8} {'+-':>6} {'imp s':>6}")
    for m, c, op, oth, st, est, secs in rows:
        print(f"{op}v{oth:<4} {memory_json(m)!s:>16} {num_windows(K, m):>8} {c.bytes / 1e9:6.2f} {st['iterations']:>5} "
              f"{st['train_seconds']:8.0f} {st['exploitability']:9.4f} {est.exploitability:8.4f} {est.stderr:6.4f} "
              f"{secs:6.1f}")
    print("\nthe improvement's gain (win probability, both seats) by the last claim's strength at the responder's turn")
    for m, c, op, oth, st, est, secs in rows:
        b = gain_buckets(est.by_last, sum(group), a.bucket)
        print(f"{op}v{oth} {memory_json(m)!s:>14}: " + "  ".join(f"{n} {gain:.4f}" for n, gain, _ in b))
    return 0


if __name__ == "__main__":
    sys.exit(main())
