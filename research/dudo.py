"""Dudo measurement tables (Neller & Hnath Fig. 4a, 1v1 convergence, Fig. 5, per-pair stats).

    NUMBA_CACHE_DIR=.numba_cache nice -n 15 .venv/bin/python -m research.dudo [sections]

Sections: fig4 (ms per FSICFR / full-width iteration per dice pair), curve (1v1 exploitability vs
seconds of the full-width solver), fig5 (1v1 win rate of memory m = 1..4 against the exact
equilibrium), fig3 (2v2 head-to-head at equal training seconds), game (value and exploitability
per round, small games), pr3 (rounds with <= 3 dice in play solved with perfect recall); and
mtable (exploitability against memory m on every round with <= 4 dice in play, each trained to its
floor), rules (update rules: exploitability against solver CPU seconds on 2v2, 1v3 and 3v3), bounds
(the responder-memory lower bound against the exact best response and the abstraction's bound).
Single-threaded.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from games.dudo.measure.exploit import best_response_value, cross_play_value, exploitability_1v1
from games.dudo.solvers.abstract_cfr import FastSolver, evaluate
from games.dudo.reference.fsicfr import FSICFR
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import is_perfect_recall
from games.dudo.reference.lp import sequence_form_value

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
    from games.dudo.solvers.kernels import forward_reach, regret_matching
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
        v, e = exploitability_1v1(g, s.average_strategy())
        print(f"{s.t:>7} {s.seconds:>9.2f} {s.cpu_seconds:>9.2f} {v:>13.8f} {abs(v - lp):>10.2e} {e:>15.3e}", flush=True)
    return s


def fig5(iters=3000, ref=None):
    """Win rate of the m-memory solution against the exact (perfect-recall) equilibrium."""
    g_ex = make_group(1, 1, None)
    if ref is None:
        ref = FastSolver(g_ex).solve(6000, progress=False)
    st_ex = ref.average_strategy()
    v_ex, e_ex = exploitability_1v1(g_ex, st_ex)
    T = g_ex.terminal[0]
    print(f"\nFig. 5 analogue: 1v1, full-width solver {iters} iterations per memory m, against the"
          f" perfect-recall equilibrium (its exploitability {e_ex:.1e}); exact expected results,"
          " no sampling; win rate averaged over both seats (0.5 = as good as optimal)")
    print(f"{'m':>3} {'value':>11} {'exploit.':>10} {'win rate vs eq':>15} {'seconds':>8}")
    for m in (1, 2, 3, 4):
        g = make_group(1, 1, m)
        s = FastSolver(g).solve(iters, progress=False)
        st = s.average_strategy()
        v, e = exploitability_1v1(g, st)
        # m-strategy opens vs equilibrium, and equilibrium opens vs m-strategy
        a = cross_play_value(1, 1, g, st, g_ex, st_ex, (T, -T))
        b = cross_play_value(1, 1, g_ex, st_ex, g, st, (T, -T))
        win = 0.5 * (0.5 * (1 + a) + 0.5 * (1 - b))
        print(f"{m:>3} {v:>11.6f} {e:>10.2e} {win:>15.6f} {s.seconds:>8.2f}", flush=True)


def game(max_dice=3, m=3, iterations=None, perfect_recall_total=2, max_total=None):
    from games.dudo.build.solve_game import solve_game
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
    from games.dudo.reference.cfr import CFR
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
    from games.dudo.reference.cfr import CFR
    from games.dudo.solvers.abstract_cfr import abstract_best_response
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
        v, e = exploitability_1v1(g, st)
        print(f"{'full-width PCFR+':>22} {s.t:>9} {s.seconds:>8.1f} {v:>11.6f} {e:>9.4f}"
              f" {within(st):>12.4f}", flush=True)
    for name, Alg in (("FSICFR (Alg. 2)", FSICFR), ("CFR (Alg. 1)", CFR)):
        a = Alg(g, seed=1)
        a.solve(10 ** 9, seconds=seconds)
        st = a.average_strategy()
        v, e = exploitability_1v1(g, st)
        print(f"{name:>22} {a.t:>9} {a.seconds:>8.1f} {v:>11.6f} {e:>9.4f} {within(st):>12.4f}",
              flush=True)



# ---------------------------------------------------------------------------------------------
# Memory against exploitability, update rules, the responder-memory bound

def _round_exploitability(g, strat, W, br_open, br_other, m_resp="exact", openers=None):
    """{(opener, other): (value, BR as opener, BR as other, exploitability)} of every round of group
    ``g`` (win probability; ``openers``: only the rounds these dice open), by the exact perfect-recall best
    response (``m_resp="exact"``) or the responder-memory lower bound (``bound.memory_best_response`` with
    memory ``m_resp``)."""
    from games.dudo.measure.bound import memory_best_response
    a, b = g.dice[0], g.dice[-1]
    vals = evaluate(FastSolver(g, train=False), strat)
    out = {}
    for op in ([a] if a == b else [a, b]) if openers is None else openers:
        s = 0 if g.nsides == 1 else g.dice.index(op)
        v = 0.5 * (1 + vals[s])
        if m_resp == "exact":
            eo = best_response_value(g, strat, op, True, br_open, br_other)
            en = best_response_value(g, strat, op, False, br_open, br_other)
        else:
            eo, en = memory_best_response(g, strat, op, m_resp, W, br_open, br_other, 5, v)
        out[(op, a + b - op)] = (v, eo, en, (eo - v) + (en - (1 - v)))
    return out


def _solve_to_floor(a, b, m, W, br_open, br_other, cap, first, log=print):
    """Train group {a, b} with memory m (None: perfect recall) to its floor (``train_to_floor``,
    exact best response at every doubling); returns (rounds, curve, reason, solver)."""
    from games.dudo.solvers.training import train_to_floor
    from games.dudo.solvers.tree_cfr import TreeSolver
    g = make_group(a, b, m, W)
    pr = is_perfect_recall(g.K, m)
    s = TreeSolver(g) if (pr and a + b > 2) else FastSolver(g)
    last = {}

    def measure(st):
        last["r"] = _round_exploitability(g, st, W, br_open, br_other)
        return max(x[3] for x in last["r"].values())

    curve, reason = train_to_floor(s, measure, cap, first, progress=False,
                                   log=lambda msg: log(f"    {msg}"), desc=f"{a}v{b} m={m}")
    return last["r"], curve, reason, s


MTABLE_CAPS = {2: 64000, 3: 16000, 4: 4096, (3, None): 512, (4, 4): 2048, (4, 5): 512, (4, 6): 256}


def mtable(memories=(1, 2, 3, 4, 5, 6), caps=None, groups=((1, 1), (1, 2), (1, 3), (2, 2)),
           cache=None):
    """Fig. 5 re-measured: exploitability (exact best response) against memory m on every round with
    at most 4 dice in play, each trained to its floor (less than 10% better over a doubling) or its
    iteration cap.  The continuations (later rounds) are the perfect-recall solutions of the smaller
    rounds, so a row measures the memory of its own round only.  ``cache``: a directory keeping each
    finished (group, m) as JSON (rerun with other memories or groups without repeating them)."""
    import json
    import os
    # iteration caps: by dice in play, and (dice, m) where an iteration is expensive
    caps = {**MTABLE_CAPS, **(caps or {})}
    W, bo, bn = {}, {}, {}
    rows = []
    print("\nExploitability against memory m (exact perfect-recall best response, win probability;"
          " continuations: the smaller rounds with perfect recall)")
    for a, b in groups:
        D = a + b
        for m in list(memories) + [None]:
            if m is not None and m >= 6 * D:
                continue
            if m is None and D > 3:
                print(f"  {a}v{b} perfect recall: not measured (2**{6 * D} claim histories)")
                continue
            path = cache and os.path.join(cache, f"mtable_{a}v{b}_m{m}.json")
            if path and os.path.exists(path):
                with open(path) as f:
                    res = json.load(f)
            else:
                cap = caps.get((D, m), caps[D])
                first = max(32, cap >> 5) if m is not None else max(250, cap >> 5)
                r, curve, reason, s = _solve_to_floor(a, b, m, dict(W), bo, bn, cap, first)
                res = dict(rounds=[[op, oth, *map(float, x)] for (op, oth), x in sorted(r.items())],
                           curve=curve, reason=reason, t=s.t, seconds=s.seconds)
                if path:
                    os.makedirs(cache, exist_ok=True)
                    with open(path, "w") as f:
                        json.dump(res, f)
            curve = res["curve"]
            imp = (1 - curve[-1][1] / curve[-2][1]) if len(curve) > 1 else float("nan")
            best = min(p[1] for p in curve)
            mm = "perfect" if m is None else m
            for op, oth, v, eo, en, e in res["rounds"]:
                rows.append((f"{op}v{oth}", mm, res["t"], res["reason"], imp, res["seconds"], v, e, best))
                print(f"  {op}v{oth} m={mm}: {res['t']} iterations ({res['reason']}; last doubling"
                      f" {100 * imp:.0f}% better), {res['seconds']:.0f} s, value {v:.5f},"
                      f" exploitability {e:.2e}", flush=True)
                if m is None:       # the continuations of the larger rounds
                    W[(op, oth)], bo[(op, oth)], bn[(op, oth)] = v, eo, en
    print(f"\n{'round':>6} {'m':>8} {'iters':>7} {'stop':>6} {'last dbl':>9} {'train s':>8} {'value':>9}"
          f" {'exploit.':>9} {'best seen':>9}")
    for rnd, m, t, reason, imp, sec, v, e, best in rows:
        print(f"{rnd:>6} {str(m):>8} {t:>7} {reason:>6} {100 * imp:>8.0f}% {sec:>8.0f} {v:>9.5f} {e:>9.2e}"
              f" {best:>9.2e}")
    print("exploit.: the worst round of the group at the last measurement (exact best response);"
          " best seen: the lowest along the curve")
    return rows


RULES = (("CFR+, linear avg", dict(mode="cfr+", avg_power=1.0)),
         ("CFR+, quadratic avg", dict(mode="cfr+", avg_power=2.0)),
         ("DCFR(1.5, 0, 2)", dict(mode="dcfr", avg_power=2.0)),
         ("PCFR+, quadratic avg", dict(mode="pcfr+", avg_power=2.0)),
         ("PCFR+, linear avg", dict(mode="pcfr+", avg_power=1.0)))


def rules(group=(2, 2), m=3, budgets=(4, 16, 64, 256), m_resps=("exact",), alternate=(False,)):
    """Update rules compared on one group in one process: exploitability of the average strategy
    after each budget of solver CPU seconds, by each of ``m_resps`` ("exact": the exact best
    response; an int k: the responder-memory lower bound with memory k, k = m being the
    abstraction's own bound, which the solver drives down).  Continuations: placeholder values
    (``fake_W``), the same for every rule (speed of convergence, not the game's values)."""
    from games.dudo.measure.bound import br_kind
    a, b = group
    W = fake_W(5)
    bo, bn = dict(W), {k: 1 - v for k, v in W.items()}
    g = make_group(a, b, m, W)
    kinds = ["exact best response" if k == "exact" else br_kind(k, m) for k in m_resps]
    print(f"\nUpdate rules on {a}v{b}, memory {m}: exploitability (worst round of the group; "
          + " / ".join(kinds) + ") after each budget of solver CPU seconds (one process, same machine)")
    print(f"{'rule':>24} {'updates':>12} " + " ".join(f"{f'{B:g} s':>{10 * len(m_resps) + 8}}" for B in budgets))
    out = {}
    for name, kw in RULES:
        for alt in alternate:
            if alt and g.nsides == 1:
                continue    # the seats share the abstract nodes: no alternating updates
            FastSolver(make_group(a, b, 1, W), alternate=alt, **kw).fsicfr_iteration()  # compile (same types)
            s = FastSolver(g, alternate=alt, **kw)
            cells = []
            for B in budgets:
                while s.cpu_seconds < B:
                    s.fsicfr_iteration()
                st = s.average_strategy()
                es = tuple(max(x[3] for x in _round_exploitability(g, st, W, bo, bn, k).values())
                           for k in m_resps)
                cells.append((s.t, es))
            out[(name, alt)] = cells
            print(f"{name:>24} {'alternating' if alt else 'simultaneous':>12} "
                  + " ".join(f"{' / '.join(f'{e:.2e}' for e in es) + f' ({t})':>{10 * len(m_resps) + 8}}"
                             for t, es in cells), flush=True)
    print("cells: exploitability " + " / ".join(kinds) + " (iterations)")
    return out


def perfect_recall_continuations(its_1v2: int = 400, log=None):
    """W, best response as opener and as other of 1v1, 1v2 and 2v1, solved with perfect recall by CFR+
    (4000 iterations at 1v1): the continuations of the rounds with 4 dice in play."""
    from games.dudo.solvers.tree_cfr import TreeSolver
    W, bo, bn = {}, {}, {}
    for a, b, n in ((1, 1, 4000), (1, 2, its_1v2)):
        g = make_group(a, b, None, W)
        s = (FastSolver(g) if a + b == 2 else TreeSolver(g)).solve(n, progress=False)
        for rnd, (v, eo, en, e) in _round_exploitability(g, s.average_strategy(), W, bo, bn).items():
            W[rnd], bo[rnd], bn[rnd] = v, eo, en
            if log:
                log(f"  continuation {rnd[0]}v{rnd[1]}: value {v:.5f}, exploitability {e:.1e}")
    return W, bo, bn


def bounds(groups=((2, 2), (1, 3)), m=3, its=256, m_resps=(3, 4, 5, 6), large=((2, 3), (3, 3)),
           large_its=100, large_resps=(3, 4)):
    """The responder-memory lower bound against the exact best response where it exists (4 dice in
    play, continuations: the smaller rounds with perfect recall), and against the abstraction's bound
    (memory m) on larger rounds (placeholder continuations, ``fake_W``)."""
    W, bo, bn = perfect_recall_continuations(its_1v2=256)
    print(f"\nLower bounds against the exact best response, memory m={m}, {its} iterations"
          " (exploitability in win probability; 'memory k' = best response of a responder that"
          " remembers the last k claims)")
    print(f"{'round':>6} {'kind':>44} {'exploit.':>10} {'seconds':>8}")
    for a, b in groups:
        g = make_group(a, b, m, W)
        st = FastSolver(g).solve(its, progress=False).average_strategy()
        _bound_rows(g, st, W, bo, bn, ("exact",) + tuple(m_resps))
    Wf = fake_W(5)
    bof, bnf = dict(Wf), {k: 1 - v for k, v in Wf.items()}
    print(f"\nLarger rounds (placeholder continuations), memory m={m}, {large_its} iterations")
    for a, b in large:
        g = make_group(a, b, m, Wf)
        st = FastSolver(g).solve(large_its, progress=False).average_strategy()
        _bound_rows(g, st, Wf, bof, bnf, large_resps)


def _bound_rows(g, st, W, bo, bn, m_resps):
    """One row per round of group ``g`` and kind of best response ("exact", or a responder memory)."""
    from games.dudo.measure.bound import br_kind
    for mr in m_resps:
        t0 = time.perf_counter()
        r = _round_exploitability(g, st, W, bo, bn, mr)
        dt = time.perf_counter() - t0
        kind = "exact best response (perfect recall)" if mr == "exact" else br_kind(mr, g.m)
        for rnd in sorted(r):
            print(f"{rnd[0]}v{rnd[1]:<4} {kind:>44} {r[rnd][3]:>10.4e} {dt / len(r):>8.1f}", flush=True)

def largebounds(profile="default", extra=(1, 2), min_total=5, work=None, max_gb=6.0):
    """Rounds beyond 4 dice in play of a profile's Dudo store (solved as the builder solves it, real
    continuations; ``work`` keeps the solved groups for a rerun): the abstraction's bound (the
    responder remembers the group's m claims, as in the manifest) against the responder-memory bound
    with m' = m + k claims for k in ``extra``; a bound whose tables the cost model puts above
    ``max_gb`` is not measured.  Continuations of a larger round use the strongest bound measured on
    the smaller ones.  Wall seconds; the process's peak memory after each row."""
    import resource
    from builder.profiles import PROFILES
    from games.dudo.measure.bound import br_kind, memory_best_response
    from games.dudo.cost import bound_cost
    from games.dudo.build.solve_game import solve_params
    params = next(p for v, p in PROFILES[profile].items() if v.startswith("dudo"))
    t0 = time.perf_counter()
    sol = solve_params(params, progress=False, checkpoint_dir=work)
    print(f"\n{params.variant}: solved in {time.perf_counter() - t0:.0f} s (or reused from {work})")
    bo = {rnd: st["br_opener"] for rnd, st in sol.stats.items() if "br_opener" in st}
    bn = {rnd: st["br_other"] for rnd, st in sol.stats.items() if "br_other" in st}
    print(f"{'round':>6} {'m':>3} {'iters':>6} {'value':>8} {'kind':>46} {'exploit.':>9} {'seconds':>8} {'peak GB':>8}")
    for (a, b), g in sorted(sol.groups.items(), key=lambda kv: (sum(kv[0]), kv[0])):
        if a + b < min_total:
            continue
        strat = sol.strategies[(a, b)]
        for (op, oth), st in sorted(sol.stats.items()):
            if {op, oth} != {a, b} or op + oth != a + b:
                continue
            v = st["value"]
            print(f"{op}v{oth:<4} {str(g.m):>3} {int(st['iterations']):>6} {v:>8.5f} {st['br_kind']:>46}"
                  f" {st.get('exploitability', float('nan')):>9.3e} {st.get('br_seconds', float('nan')):>8.1f}", flush=True)
            for k in extra:
                mr = g.m + k
                gb = bound_cost(a, b, mr).bytes / 1e9
                if gb > max_gb:
                    print(f"{op}v{oth:<4} {str(g.m):>3} {'':>6} {'':>8} {br_kind(mr):>46} {'not measured':>9}"
                          f" (tables about {gb:.1f} GB > {max_gb:g})", flush=True)
                    continue
                t1 = time.perf_counter()
                eo, en = memory_best_response(g, strat, op, mr, sol.W, bo, bn, params.max_dice, v)
                dt = time.perf_counter() - t1
                peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
                print(f"{op}v{oth:<4} {str(g.m):>3} {'':>6} {'':>8} {br_kind(mr):>46} {eo + en - 1:>9.3e}"
                      f" {dt:>8.1f} {peak:>8.2f}", flush=True)
                bo[(op, oth)], bn[(op, oth)] = max(bo.get((op, oth), 0), eo), max(bn.get((op, oth), 0), en)
    print("exploit.: win probability, a lower bound of the kind named (the value of a legal response)")


def threads(groups=((3, 3, "3"), (4, 4, "4-16-3"), (5, 5, "3-20-2")), iters=3, counts=(1, 2)):
    """Wall seconds per FSICFR iteration of the blocked kernel on 1 and more threads
    (``FastSolver(threads=k)``), same group, same process, and whether the regrets have the same bits."""
    from games.dudo.abstraction.infoset import parse_memory
    print(f"\nthreads: wall seconds per iteration ({iters} after one warm-up), ratio to 1 thread")
    print(f"{'group':>6} {'memory':>8} " + " ".join(f"{f'{k} thr s/it':>11}" for k in counts)
          + " " + " ".join(f"{f'x{k}':>6}" for k in counts[1:]) + "  same bits")
    for a, b, m in groups:
        g = make_group(a, b, parse_memory(m), fake_W(max(a, b)), max_dice=max(a, b))
        secs, regs = [], []
        for k in counts:
            s = FastSolver(g, threads=k)
            s.fsicfr_iteration()
            t0 = time.perf_counter()
            for _ in range(iters):
                s.fsicfr_iteration()
            secs.append((time.perf_counter() - t0) / iters)
            regs.append(s.reg.copy())
            del s
        same = all(np.array_equal(regs[0], r) for r in regs[1:])
        print(f"{a}v{b:<4} {m:>8} " + " ".join(f"{x:11.4g}" for x in secs) + " "
              + " ".join(f"{secs[0] / x:6.2f}" for x in secs[1:]) + f"  {same}", flush=True)
        del regs, g


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("sections", nargs="*", default=["curve", "fig5", "fig4", "game"])
    ap.add_argument("--max-dice", type=int, default=5)
    ap.add_argument("--game-max-dice", type=int, default=3)
    ap.add_argument("--fsicfr-seconds", type=float, default=4.0)
    ap.add_argument("--memories", default="1,2,3,4,5,6", help="mtable: memories m to measure")
    ap.add_argument("--groups", default="1v1,1v2,1v3,2v2", help="mtable: dice groups, smaller first")
    ap.add_argument("--caps", default="", help="mtable: iteration caps, e.g. 4:2048,4/5:512 (dice in"
                    " play, or dice/memory)")
    ap.add_argument("--cache", default=None, help="mtable: directory keeping finished (group, m) results")
    ap.add_argument("--profile", default="default", help="largebounds: the builder profile to solve")
    ap.add_argument("--extra", default="1,2", help="largebounds: claims the responder remembers beyond m")
    ap.add_argument("--work", default=None, help="largebounds: directory keeping the solved groups")
    ap.add_argument("--rule-groups", default="2v2,3v3", help="rules: dice groups")
    ap.add_argument("--budgets", default="2,8,32", help="rules: solver CPU seconds at which to measure")
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
    if "mtable" in args.sections:    # exploitability against memory m, rounds with <= 4 dice
        caps = {}
        for item in filter(None, args.caps.split(",")):
            k, v = item.split(":")
            d, _, mm = k.partition("/")
            caps[(int(d), None if mm == "perfect" else int(mm)) if mm else int(d)] = int(v)
        mtable(memories=[int(x) for x in args.memories.split(",")], caps=caps, cache=args.cache,
               groups=[tuple(int(x) for x in gr.split("v")) for gr in args.groups.split(",")])
    if "rules" in args.sections:     # update rules, 2v2 (exact) and 3v3 (lower bound)
        budgets = [float(x) for x in args.budgets.split(",")]
        groups = [tuple(int(x) for x in gr.split("v")) for gr in args.rule_groups.split(",")]
        for gr in groups:
            exact = sum(gr) <= 4
            rules(gr, budgets=budgets, m_resps=("exact", 3) if exact else (3,),
                  alternate=(False, True) if gr[0] != gr[1] else (False,))
    if "bounds" in args.sections:    # the responder-memory bound against the exact one
        bounds()
    if "largebounds" in args.sections:   # the stronger bound beyond 4 dice in play
        largebounds(args.profile, tuple(int(x) for x in args.extra.split(",")), work=args.work)
    if "threads" in args.sections:   # the blocked kernel on several threads (a group left alone)
        threads()
    if "pr3" in args.sections:   # every round with <= 3 dice in play without abstraction
        game(5, iterations=lambda a, b: 6000 if a + b == 2 else 1000, perfect_recall_total=3,
             max_total=3)


if __name__ == "__main__":
    main()
