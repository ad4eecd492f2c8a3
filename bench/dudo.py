"""Dudo measurement tables (Neller & Hnath Fig. 4a, 1v1 convergence, Fig. 5, per-pair stats).

    NUMBA_CACHE_DIR=.numba_cache nice -n 15 .venv/bin/python -m bench.dudo [sections]

Sections: fig4 (ms per FSICFR / full-width iteration per dice pair), curve (1v1 exploitability vs
seconds of the full-width solver), fig5 (1v1 win rate of memory m = 1..4 against the exact
equilibrium), fig3 (2v2 head-to-head at equal training seconds), game (value and exploitability
per round, small games), pr3 (rounds with <= 3 dice in play solved with perfect recall).  Single-threaded.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from games.dudo.exploit import best_response_value, cross_play_value
from games.dudo.solver import FastSolver, evaluate
from games.dudo.fsicfr import FSICFR
from games.dudo.game import make_group
from games.dudo.lp import sequence_form_value

EXACT_1V1 = -7 / 258
FAKE_W = None


def fake_W(max_dice=5):
    """Placeholder continuation values (timing does not depend on them)."""
    return {(a, b): 0.5 + 0.1 * (a - b) / max(a, b) for a in range(1, max_dice + 1)
            for b in range(1, max_dice + 1)}


def work_units(g, reachable):
    """Full-width work of one iteration: sum over reachable nodes of actions x n_mover x n_other."""
    na = np.diff(g.act_off)
    tot = 0
    for s in range(g.nsides):
        tot += int((na * reachable[s]).sum()) * int(g.ns[s]) * int(g.ns[g.oth[s]])
    return tot


def _time_fast(g, kernel, min_seconds=2.0, max_iters=50):
    """(ms per iteration, iterations) of the full-width solver: one warm-up iteration (compile,
    first touch of the arrays), then iterations until ``min_seconds`` of process CPU time."""
    s = FastSolver(g, kernel=kernel)
    s.fsicfr_iteration()
    c0 = time.process_time()
    k = 0
    while k < max_iters and (time.process_time() - c0 < min_seconds or k < 1):
        s.fsicfr_iteration()
        k += 1
    ms = 1000 * (time.process_time() - c0) / k
    reach = s.reachable
    del s
    return ms, k, reach


def fig4(max_dice=5, m=3, fsicfr_iters=1000, fsicfr_seconds=4.0, fast_mem_gb=2.5,
         blocked=True):
    """Fig. 4(a): ms per iteration (process CPU time, one thread) of sampled FSICFR (Alg. 2),
    the full-width reference kernel (``fsicfr_backward``; estimated where its node values would
    pass ``fast_mem_gb`` GB) and the blocked kernel (``blocked_backward``), every (d1, d2)."""
    W = fake_W(max_dice)
    rows = {}
    calib = []
    for d1 in range(1, max_dice + 1):
        for d2 in range(1, max_dice + 1):
            g = make_group(d1, d2, m, W, max_dice, openers=(d1,))
            f = FSICFR(g, seed=1)
            f.fsicfr_iteration()                   # compile / warm
            f.t, f.seconds = 0, 0.0
            c0 = time.process_time()
            f.solve(fsicfr_iters, seconds=fsicfr_seconds)
            ms_f = 1000 * (time.process_time() - c0) / f.t
            # reference full-width kernel: memory of its node values (float64)
            n_vals = sum(g.NW * int(g.ns[s]) * int(g.ns[g.oth[s]]) for s in range(g.nsides))
            mem_gb = n_vals * 8 / 2**30
            est = mem_gb > fast_mem_gb
            reach = None
            ms_w = None
            if not est:
                ms_w, _, reach = _time_fast(g, "reference")
                if ms_w > 50:      # calibrate the work model on the larger measured pairs
                    calib.append(ms_w / work_units(g, reach))
            ms_b = its_b = None
            if blocked:
                ms_b, its_b, reach = _time_fast(g, "blocked", max_iters=20)
            rows[(d1, d2)] = dict(fsicfr_ms=ms_f, fsicfr_its=f.t, fast_ms=ms_w, blocked_ms=ms_b,
                                  g=g, est=est, mem=mem_gb, pairs=int(g.ns[0] * g.ns[-1]))
            print(f"  measured {d1}v{d2}: FSICFR {ms_f:.3f} ms/it over {f.t} its"
                  + ("" if est else f", reference full-width {ms_w:.2f} ms/it")
                  + ("" if ms_b is None else f", blocked {ms_b:.2f} ms/it over {its_b} its"),
                  flush=True)
    c = float(np.median(calib))
    for key, r in rows.items():
        if r["est"]:
            g = r["g"]
            s_reach = _structural_reach(g)
            r["fast_ms"] = c * work_units(g, s_reach)
    print(f"\nFig. 4(a) re-measured: ms (process CPU time) per iteration, memory m={m}, d1 ="
          " opener's dice, one round (this machine, numba, 1 thread, shared with other jobs)")
    print("FSICFR (Alg. 2, one sampled roll pair per iteration)")
    _table(rows, lambda r: f"{r['fsicfr_ms']:.3f}", max_dice)
    print("Full-width FSICFR + CFR+, reference kernel (all roll pairs per iteration); '~' ="
          f" estimate from the work model ({c * 1e6:.3f} ns per action x roll pair, median of"
          " measured pairs)")
    _table(rows, lambda r: ("~" if r["est"] else "") + f"{r['fast_ms']:.1f}", max_dice)
    if blocked:
        print("Full-width FSICFR + CFR+, blocked kernel (suffix classes, GEMMs; float32 node"
              " values from 4v4 up)")
        _table(rows, lambda r: f"{r['blocked_ms']:.1f}", max_dice)
        print("Ratio reference / blocked kernel time per iteration")
        _table(rows, lambda r: ("~" if r["est"] else "") + f"{r['fast_ms'] / r['blocked_ms']:.2f}",
               max_dice)
        print("Ratio blocked full-width / FSICFR time per iteration")
        _table(rows, lambda r: f"{r['blocked_ms'] / r['fsicfr_ms']:.0f}", max_dice)
    print("Ratio reference full-width / FSICFR time per iteration")
    _table(rows, lambda r: ("~" if r["est"] else "") + f"{r['fast_ms'] / r['fsicfr_ms']:.0f}",
           max_dice)
    print("Ratio per roll pair covered: (blocked full-width ms / roll pairs) / FSICFR ms")
    _table(rows, lambda r: f"{(r['blocked_ms'] or r['fast_ms']) / r['pairs'] / r['fsicfr_ms']:.3f}",
           max_dice)
    print("Reference kernel node-value memory (GB, float64)")
    _table(rows, lambda r: f"{r['mem']:.2f}", max_dice)
    return rows


def _structural_reach(g):
    from games.dudo.kernels import forward_reach, regret_matching
    nrows = g.nrows
    reg = np.zeros(nrows)
    strat = np.zeros(nrows)
    regret_matching(reg, strat, g.ns, g.rbase, g.NW, g.act_off, g.last, reg, False)
    maxn = int(g.ns.max())
    mr = np.zeros((g.nsides, g.NW, maxn))
    orr = np.zeros((g.nsides, g.NW, maxn))
    forward_reach(strat, mr, orr, g.ns, g.oth, g.probs, g.root_w, g.rbase, g.order, g.act_off,
                  g.last, g.child, g.NW)
    return mr.sum(axis=2) > 0


def _table(rows, fmt, max_dice):
    print("d1\\d2 " + "".join(f"{d2:>10}" for d2 in range(1, max_dice + 1)))
    for d1 in range(1, max_dice + 1):
        print(f"{d1:>5} " + "".join(f"{fmt(rows[(d1, d2)]):>10}" for d2 in range(1, max_dice + 1)))
    print()


def expl_1v1(g, strat):
    ev = FastSolver(g)
    v = evaluate(ev, strat)[0]
    W = 0.5 * (1 + v)
    e1 = best_response_value(g, strat, 1, True, {}, {})
    e2 = best_response_value(g, strat, 1, False, {}, {})
    return v, (e1 - W) + (e2 - (1 - W))


def curve(checkpoints=(100, 250, 500, 1000, 2000, 3000, 4500, 6000, 9000, 12000)):
    t0 = time.perf_counter()
    lp, _ = sequence_form_value(1, 1)
    t_lp = time.perf_counter() - t0
    print(f"1v1 sequence-form LP (HiGHS): value {lp:.10f} (+-1 units; -7/258 = {EXACT_1V1:.10f});"
          f" opener wins with probability {0.5 * (1 + lp):.8f}; {t_lp:.2f} s incl. building")
    g = make_group(1, 1, None)
    s = FastSolver(g)
    print("\n1v1 perfect recall, full-width solver (alternating CFR+, linear averaging)")
    print("exploitability = sum of both seats' best-response gains in win probability"
          " (= OpenSpiel's NashConv/2 in +-1 units); seconds = solver time incl. first compile (cache warm: none)")
    print(f"{'iters':>7} {'wall s':>9} {'cpu s':>9} {'value(+-1)':>13} {'|v - LP|':>10} {'exploitability':>15}")
    for it in checkpoints:
        s.solve(it - s.t, progress=False)
        v, e = expl_1v1(g, s.average_strategy())
        print(f"{s.t:>7} {s.seconds:>9.2f} {s.cpu_seconds:>9.2f} {v:>13.8f} {abs(v - lp):>10.2e} {e:>15.3e}", flush=True)
    return s


def fig5(iters=3000, ref=None):
    """Win rate of the m-memory solution against the exact (perfect-recall) equilibrium."""
    g_ex = make_group(1, 1, None)
    if ref is None:
        ref = FastSolver(g_ex).solve(6000, progress=False)
    st_ex = ref.average_strategy()
    v_ex, e_ex = expl_1v1(g_ex, st_ex)
    T = g_ex.terminal[0]
    print(f"\nFig. 5 analogue: 1v1, full-width solver {iters} iterations per memory m, against the"
          f" perfect-recall equilibrium (its exploitability {e_ex:.1e}); exact expected results,"
          " no sampling; win rate averaged over both seats (0.5 = as good as optimal)")
    print(f"{'m':>3} {'value':>11} {'exploit.':>10} {'win rate vs eq':>15} {'seconds':>8}")
    for m in (1, 2, 3, 4):
        g = make_group(1, 1, m)
        s = FastSolver(g).solve(iters, progress=False)
        st = s.average_strategy()
        v, e = expl_1v1(g, st)
        # m-strategy opens vs equilibrium, and equilibrium opens vs m-strategy
        a = cross_play_value(1, 1, g, st, g_ex, st_ex, (T, -T))
        b = cross_play_value(1, 1, g_ex, st_ex, g, st, (T, -T))
        win = 0.5 * (0.5 * (1 + a) + 0.5 * (1 - b))
        print(f"{m:>3} {v:>11.6f} {e:>10.2e} {win:>15.6f} {s.seconds:>8.2f}", flush=True)


def game(max_dice=3, m=3, iterations=None, perfect_recall_total=2, max_total=None):
    from games.dudo.solve import solve_game
    its = iterations or (lambda a, b: {2: 6000, 3: 2000, 4: 1000, 5: 600, 6: 400}.get(a + b, 300))
    t0 = time.perf_counter()
    sol = solve_game(max_dice=max_dice, m=m, iterations=its, progress=False, log=None,
                     perfect_recall_total=perfect_recall_total, max_total=max_total)
    print(f"\nPer-round results, game with at most {max_dice} dice each, memory m={m} (perfect"
          f" recall up to {perfect_recall_total} dice in play), total"
          f" {time.perf_counter() - t0:.0f} s")
    print("value = opener's game-winning probability; exploitability = sum of both seats' best-"
          "response gains (win probability), responder with perfect recall and best-responding"
          " in later rounds too")
    print(f"{'round':>6} {'memory':>8} {'iters':>6} {'train s':>8} {'value':>9} {'BR opener':>10}"
          f" {'BR other':>9} {'exploit.':>9} {'BR kind':>22}")
    for (a, b), st in sorted(sol.stats.items(), key=lambda kv: (sum(kv[0]), kv[0])):
        e = st.get("exploitability")
        print(f"{a}v{b:<4} {str(st['memory']):>8} {st['iterations']:>6} {st['train_seconds']:>8.1f}"
              f" {st['value']:>9.5f} {st.get('br_opener', float('nan')):>10.5f}"
              f" {st.get('br_other', float('nan')):>9.5f} "
              f"{(f'{e:.2e}' if e is not None else '-'):>9} {st['br_kind']:>22}", flush=True)
    return sol


def fig3(budgets=(1, 2, 4, 8, 16, 32, 64), m=3):
    """2v2: FSICFR vs CFR and full-width vs FSICFR at equal training seconds (exact win rates)."""
    from games.dudo.cfr import CFR
    W = {}
    g11 = make_group(1, 1, None)
    W[(1, 1)] = 0.5 * (1 + FastSolver(g11).solve(3000, progress=False).root_values()[0])
    g12 = make_group(1, 2, m, W)
    s12 = FastSolver(g12).solve(2000, progress=False)
    v12 = s12.root_values()
    W[(1, 2)] = 0.5 * (1 + v12[0])
    W[(2, 1)] = 0.5 * (1 + v12[1])
    g = make_group(2, 2, m, W)
    gs = make_group(2, 2, m, W, split=True)
    ev = FastSolver(gs, mode="cfr+", alternate=False)

    def winrate(A, B):
        """A's game-winning probability from 2v2, averaged over who opens (exact)."""
        va = evaluate(ev, np.concatenate([A, B]))[0]
        vb = evaluate(ev, np.concatenate([B, A]))[0]
        return 0.5 * (0.5 * (1 + va) + 0.5 * (1 - vb))

    print(f"\nFig. 3 analogue, 2v2 dice, memory m={m}; 1v1/1v2/2v1 solved beforehand (W(2,1) ="
          f" {W[(2, 1)]:.5f}); win rates are exact expectations over rolls and both seats"
          " (no sampled games, so no confidence interval is needed)")
    cfr, fsi, fast = CFR(g, seed=1), FSICFR(g, seed=1), FastSolver(g)
    cfr.cfr_iteration(); fsi.fsicfr_iteration(); fast.fsicfr_iteration()   # compile
    print(f"{'seconds':>8} {'CFR its':>8} {'FSICFR its':>11} {'fast its':>9} {'FSICFR vs CFR':>14}"
          f" {'fast vs FSICFR':>15} {'fast vs CFR':>12}")
    for b in budgets:
        while cfr.seconds < b:
            cfr.cfr_iteration()
        fsi.solve(10 ** 9, seconds=b - fsi.seconds)
        while fast.seconds < b:
            fast.fsicfr_iteration()
        A, B, C = cfr.average_strategy(), fsi.average_strategy(), fast.average_strategy()
        print(f"{b:>8} {cfr.t:>8} {fsi.t:>11} {fast.t:>9} {winrate(B, A):>14.4f}"
              f" {winrate(C, B):>15.4f} {winrate(C, A):>12.4f}", flush=True)


def fixedpoint(seconds=60.0, m=3):
    """1v1 with memory m: where do the full-width solver, FSICFR and CFR end up?"""
    from games.dudo.cfr import CFR
    from games.dudo.solver import abstract_best_response
    g = make_group(1, 1, m)
    gs = make_group(1, 1, m, split=True)

    def within(st):
        both = np.concatenate([st, st])
        v0 = evaluate(FastSolver(gs, mode="cfr+", alternate=False), both)[0]
        b0 = 0.5 * (1 + abstract_best_response(gs, both, 0)[0][0])
        b1 = 0.5 * (1 - abstract_best_response(gs, both, 1)[0][0])
        W = 0.5 * (1 + v0)
        return (b0 - W) + (b1 - (1 - W))

    print(f"\n1v1, memory m={m}: value and exploitability reached by each solver (exact"
          " perfect-recall responder, and the abstraction-restricted responder)")
    print(f"{'solver':>22} {'iters':>9} {'seconds':>8} {'value(+-1)':>11} {'expl. PR':>9}"
          f" {'expl. abstr.':>12}")
    for its in (3000, 20000):
        s = FastSolver(g).solve(its, progress=False)
        st = s.average_strategy()
        v, e = expl_1v1(g, st)
        print(f"{'full-width PCFR+':>22} {s.t:>9} {s.seconds:>8.1f} {v:>11.6f} {e:>9.4f}"
              f" {within(st):>12.4f}", flush=True)
    for name, Alg in (("FSICFR (Alg. 2)", FSICFR), ("CFR (Alg. 1)", CFR)):
        a = Alg(g, seed=1)
        a.solve(10 ** 9, seconds=seconds)
        st = a.average_strategy()
        v, e = expl_1v1(g, st)
        print(f"{name:>22} {a.t:>9} {a.seconds:>8.1f} {v:>11.6f} {e:>9.4f} {within(st):>12.4f}",
              flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("sections", nargs="*", default=["curve", "fig5", "fig4", "game"])
    ap.add_argument("--max-dice", type=int, default=5)
    ap.add_argument("--game-max-dice", type=int, default=3)
    ap.add_argument("--fsicfr-seconds", type=float, default=4.0)
    args = ap.parse_args(argv)
    ref = None
    if "curve" in args.sections:
        ref = curve()
    if "fig5" in args.sections:
        fig5(ref=ref)
    if "fig4" in args.sections:
        fig4(args.max_dice, fsicfr_seconds=args.fsicfr_seconds)
    if "fixedpoint" in args.sections:
        fixedpoint()
    if "fig3" in args.sections:
        fig3()
    if "game" in args.sections:
        game(args.game_max_dice)
    if "pr3" in args.sections:   # every round with <= 3 dice in play without abstraction
        game(5, iterations=lambda a, b: 6000 if a + b == 2 else 1000, perfect_recall_total=3,
             max_total=3)


if __name__ == "__main__":
    main()
