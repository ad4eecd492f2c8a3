"""Search on the profiles' blueprints, measured exactly with the numba walk (``games.dudo.measure.search_walk``).

    nice -n 10 .venv/bin/python -m research.dudo_walk compare --groups 1v2 --profile default --depths 2,4 \
        [--iterations 200] [--gadget maxmargin] [--cap 0]
    nice -n 10 .venv/bin/python -m research.dudo_walk seat --round 2v1 --responder-opens 0 --profile default --depths 4
    nice -n 10 .venv/bin/python -m research.dudo_walk profile [--group 1v2] [--memory 2]
    nice -n 10 .venv/bin/python -m research.dudo_walk cost --groups 2v2,1v3 --depths 2,4

``compare``: one row per (round, design): the stored strategy the profile builds for the group (its memory,
its iteration count: ``DudoParams.memories`` and ``group_iterations``; ``--cap`` caps the iterations) and
continual re-solving (``games.dudo.search.continual``) on that blueprint at each depth.  Exploitability: the round's
exact perfect-recall best response, both seats summed, win probability; later rounds' continuations are a
perfect-recall solve of the smaller rounds (``research.dudo_design.continuations``), so a row is its own
round's share.  Columns as ``research.dudo_design`` (``move s``: CPU seconds per re-solve, mean over every
decision the walk reached = the walk's CPU / its re-solves; max = the round-root re-solve, timed alone).

``profile``: where the Python walk's time goes (``continual.seat_best_response``): its CPU seconds, the
seconds inside ``ContinualResolver.resolve`` and inside its numba kernels, against the numba walk's.

``cost``: the work of an exact evaluation (re-solves and subgame nodes of every decision the walk reaches,
counted without solving) and the CPU it would take at the rate the 1v2 walk measured.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from games.dudo.search import continual as C
from games.dudo.measure.search_walk import _subgame_nodes, timed_search_best_response

from research.dudo import _round_exploitability
from research.dudo_design import continuations, fmt, stored_mb, train
from games.dudo.measure.exploit import payoff_tables


def _profile_params(name: str):
    from builder.profiles import DUDO_DEFAULT, DUDO_FULL
    return {"default": DUDO_DEFAULT, "full": DUDO_FULL}[name]


def one_seat(opener, other, resp_opens: bool, profile, depth, iterations, gadget, cap=0, log=print):
    """One seat of ``compare``'s search row (the round's exploitability is the two seats' sum - 1), for
    running the seats of a round as separate processes: the same blueprint, value matrices and walk."""
    params = _profile_params(profile)
    a, b = min(opener, other), max(opener, other)
    m = params.memories()[(a, b)]
    its = params.group_iterations(a, b)
    its = min(its, cap) if cap else its
    W, bo, bn = continuations(a + b, log=lambda *x: None)
    g, st, secs = train(a, b, m, its, W)
    own, opp = (other, opener) if resp_opens else (opener, other)
    c0 = time.process_time()
    cont = C.continuation_values(a, b, m, st, W, own, not resp_opens, ("blueprint", "br"))
    t_cont = time.process_time() - c0
    pol = C.ContinualResolver(own, opp, not resp_opens, W, cont, depth=depth, iterations=iterations, gadget=gadget)
    v, info = timed_search_best_response(pol, payoff_tables(own, opp, W, bo, bn))
    c0 = time.process_time()
    pol.resolve((), pol.prior_req.copy())
    root = time.process_time() - c0
    log(f"{opener}v{other} d={depth} {iterations} it {gadget}, blueprint m={m} ({its} it, {secs:.1f} s), responder "
        f"{'opens' if resp_opens else 'second'}: BR {v:.8f}; walk {info['cpu']:.1f} s CPU ({info['wall']:.1f} s "
        f"wall), {info['resolves']} re-solves, {info['nodes']} subgame nodes, pruned {info['pruned']}; value "
        f"matrices {t_cont:.1f} s, {cont.Vc.size * 4 / 1e6 / (2 if a == b else 1):.3f} MB; root re-solve {root:.3f} s")
    return v


def search_seats(a, b, m, st, W, bo, bn, depth, iterations, gadget, log=print):
    """{(opener, other): (exploitability, value-matrix seconds, MB, mean move s, root move s, eval cpu)}."""
    out = {}
    rounds = [(a, b)] if a == b else [(a, b), (b, a)]
    for op, oth in rounds:
        total, cpu, resolves, t_cont, root_s, mb = 0.0, 0.0, 0, 0.0, 0.0, 0.0
        for resp_opens in (True, False):
            own, opp = (oth, op) if resp_opens else (op, oth)
            c0 = time.process_time()
            cont = C.continuation_values(a, b, m, st, W, own, not resp_opens, ("blueprint", "br"))
            t_cont = max(t_cont, time.process_time() - c0)
            mb = cont.Vc.size * 4 / 1e6 / (2 if a == b else 1)
            pol = C.ContinualResolver(own, opp, not resp_opens, W, cont, depth=depth, iterations=iterations,
                                      gadget=gadget)
            v, info = timed_search_best_response(pol, payoff_tables(own, opp, W, bo, bn))
            c0 = time.process_time()
            pol.resolve((), pol.prior_req.copy())
            root_s = max(root_s, time.process_time() - c0)
            log(f"  {op}v{oth} d={depth} responder {'opens' if resp_opens else 'second'}: BR {v:.6f}, "
                f"walk {info['cpu']:.1f} s CPU ({info['wall']:.1f} s wall), {info['resolves']} re-solves, "
                f"{info['nodes']} subgame nodes")
            total += v
            cpu += info["cpu"]
            resolves += info["resolves"]
        out[(op, oth)] = (total - 1, t_cont, mb, cpu / max(resolves, 1), root_s, cpu)
    return out


def compare(groups, profile, depths, iterations, gadget, cap, log=print):
    params = _profile_params(profile)
    mems = params.memories()
    W, bo, bn = continuations(max(x + y for x, y in groups), log=lambda *x: None)
    rows = []
    for a, b in groups:
        m = mems[(a, b)]
        its = params.group_iterations(a, b)
        if cap:
            its = min(its, cap)
        g, st, secs = train(a, b, m, its, W)
        mb = stored_mb(g)
        base = _round_exploitability(g, st, W, bo, bn)
        for rnd, (v, eo, en, e) in sorted(base.items()):
            rows.append((f"{rnd[0]}v{rnd[1]}", f"stored m={m} ({its} it), {profile}", e, secs, mb, None, None))
            log(fmt(rows[-1]))
        for d in depths:
            for rnd, (e, tc, vmb, mean, root, cpu) in sorted(
                    search_seats(a, b, m, st, W, bo, bn, d, iterations, gadget, log).items()):
                rows.append((f"{rnd[0]}v{rnd[1]}", f"search on it, d={d}, {iterations} it, {gadget}", e, secs + tc,
                             mb + vmb, (mean, root), cpu))
                log(fmt(rows[-1]))
    return rows


HEADER = ("| round | design | exploitability (exact) | build s | stored MB | move s (mean / root) | eval CPU s |\n"
          "|---|---|---|---|---|---|---|")


def profile_python_walk(a=1, b=2, m=2, depth=4, iterations=200, gadget="maxmargin", log=print):
    """The Python walk's CPU split (walk / ``resolve``'s Python / its numba kernels) on one seat of round
    ``a``v``b`` (the responder opens), then the numba walk on the same policy."""
    W, bo, bn = continuations(a + b, log=lambda *x: None)
    g, st, _ = train(a, b, m, 200, W)
    own, opp = a, b
    cont = C.continuation_values(a, b, m, st, W, own, False)
    kt = [0.0]
    saved = {}
    for name in ("cfr_resolve", "leaf_bases", "subgame_layout", "leaf_windows"):
        f = saved[name] = getattr(C, name)

        def wrap(*args, _f=f):
            t = time.process_time()
            r = _f(*args)
            kt[0] += time.process_time() - t
            return r
        setattr(C, name, wrap)
    V = payoff_tables(own, opp, W, bo, bn)
    pol = C.ContinualResolver(own, opp, False, W, cont, depth=depth, iterations=iterations, gadget=gadget)
    c0 = time.process_time()
    v = C.seat_best_response(pol, V)
    cpu = time.process_time() - c0
    for name, f in saved.items():
        setattr(C, name, f)
    rs = sum(pol.stats["times"])
    log(f"{a}v{b} m={m} d={depth} {iterations} it {gadget}, the {own}-dice seat (responder opens): "
        f"Python walk BR {v:.12f}, {cpu:.1f} s CPU, {pol.stats['resolves']} re-solves; inside resolve() "
        f"{rs:.1f} s (wall-clock, the process's), of which numba kernels {kt[0]:.1f} s CPU")
    pol2 = C.ContinualResolver(own, opp, False, W, cont, depth=depth, iterations=iterations, gadget=gadget)
    v2, info = timed_search_best_response(pol2, V)
    log(f"numba walk BR {v2:.12f} (difference {v2 - v:.1e}), {info['cpu']:.1f} s CPU, {info['resolves']} "
        f"re-solves, {info['nodes']} subgame nodes: {1e6 * info['cpu'] / (info['nodes'] * iterations):.3f} us "
        "per node-iteration")


def decisions(K: int, req_first: bool, depth: int):
    """(re-solves, subgame nodes) of an exact evaluation of one seat: every requester decision after a
    claim history (2**K of them in all), plus the round root's when the opponent opens."""
    res = nodes = 0
    # histories with k claims ending at strength L: C(L, k - 1); the requester moves after k claims when
    # k is even (it opens) or odd
    from math import comb
    for L in range(-1, K):
        for k in range(0, L + 2):
            cnt = 1 if L < 0 and k == 0 else (comb(L, k - 1) if k >= 1 else 0)
            if cnt == 0 or ((k % 2 == 0) != req_first):
                continue
            res += cnt
            nodes += cnt * _subgame_nodes(K - 1 - L, depth)
    if not req_first:
        res += 1
        nodes += _subgame_nodes(K, depth)
    return res, nodes


def timed_cost(a: int, b: int, depth: int, iterations: int, r_max: int = 12, log=print):
    """The CPU seconds of an exact evaluation of each seat of round ``a``v``b``, projected from one re-solve
    timed per number of claims left R <= ``r_max`` (``search_walk.resolve_at`` at a history of that many
    claims left, placeholder values: a 5-iteration memory-1 blueprint, as the work does not depend on them)
    times the requester decisions with R claims left; beyond ``r_max`` at the per-node rate of R = ``r_max``
    (those decisions are few)."""
    from math import comb

    from games.dudo.search.endgame import GADGETS
    from games.dudo.measure.search_walk import resolve_at
    from research.dudo import fake_W
    W = fake_W(5)
    g, st, _ = train(a, b, 1, 5, W)
    K = 6 * (a + b)
    out = {}
    for req_first in (True, False):
        own, opp = (a, b) if req_first else (b, a)
        cont = C.continuation_values(a, b, 1, st, W, own, req_first)
        pol = C.ContinualResolver(own, opp, req_first, W, cont, depth=depth, iterations=iterations,
                                  gadget="maxmargin")
        per_R = {}
        for R in range(0, min(r_max, K - 1) + 1):
            L = K - 1 - R
            P = np.zeros((K + 1, int(pol.ns[0])))
            T2 = np.zeros((K + 1, K + 1, int(pol.ns[1])))
            w0 = int(cont.child[cont.act_off[0] + L + 1])     # the window after the single claim L
            best = float("inf")
            for _ in range(2):          # the first call may compile; the faster of two
                c0 = time.process_time()
                resolve_at(L, 0, w0, depth, iterations, GADGETS["maxmargin"], True, K, a + b, pol.ns, pol.rc,
                           pol.claim_r, pol.U, pol.V, pol.cidx, pol.vscale, pol.acc_type, cont.voff, cont.side,
                           cont.act_off, cont.child,
                           pol.prior_req.copy(), pol.prior_opp, np.zeros(int(pol.ns[1])), P, T2)
                best = min(best, time.process_time() - c0)
            per_R[R] = best
        total = 0.0
        for L in range(-1, K):
            R = K - 1 - L
            n = sum(comb(L, k - 1) for k in range(1, L + 2) if (k % 2 == 0) == req_first) if L >= 0 else int(req_first)
            t = per_R[R] if R in per_R else per_R[r_max] * _subgame_nodes(R, depth) / _subgame_nodes(r_max, depth)
            total += n * t
        out[req_first] = (total, per_R)
        log(f"{a}v{b} requester {'opens' if req_first else 'second'}, depth {depth}, {iterations} it: projected "
            f"{total:.0f} CPU s ({total / 3600:.1f} h); one re-solve by claims left: "
            + ", ".join(f"R={R} {1e3 * t:.2f} ms" for R, t in per_R.items()))
    return out


def main(argv=None):
    import sys
    argv = sys.argv[1:] if argv is None else argv
    cmd, rest = ((argv[0], argv[1:]) if argv and argv[0] in ("compare", "profile", "cost", "seat")
                 else ("compare", argv))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", default="1v2")
    ap.add_argument("--group", default="1v2")
    ap.add_argument("--memory", type=int, default=2)
    ap.add_argument("--round", default="1v2", help="seat: the round (opener v other)")
    ap.add_argument("--responder-opens", type=int, default=1, help="seat: 1 the responder opens, 0 not")
    ap.add_argument("--profile", default="default", choices=("default", "full"))
    ap.add_argument("--depths", default="2,4")
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--gadget", default="maxmargin", choices=("resolve", "maxmargin"))
    ap.add_argument("--cap", type=int, default=0, help="cap on the blueprint's iterations (0: the profile's)")
    ap.add_argument("--rate", type=float, default=0.0,
                    help="cost: us per node-iteration (0: counts only; -1: time one re-solve per claims left)")
    t = ap.parse_args(rest)
    depths = [int(x) for x in t.depths.split(",")]
    if cmd == "seat":
        op, oth = (int(x) for x in t.round.split("v"))
        one_seat(op, oth, bool(t.responder_opens), t.profile, depths[-1], t.iterations, t.gadget, t.cap,
                 log=lambda s: print(s, flush=True))
        return
    if cmd == "profile":
        ga, gb = (int(x) for x in t.group.split("v"))
        profile_python_walk(ga, gb, t.memory, depths[-1], t.iterations, t.gadget, log=lambda s: print(s, flush=True))
        return
    groups = [tuple(int(x) for x in g.split("v")) for g in t.groups.split(",")]
    if cmd == "cost" and t.rate < 0:
        for a, b in groups:
            for d in depths:
                timed_cost(a, b, d, t.iterations, log=lambda s: print(s, flush=True))
        return
    if cmd == "cost":
        print("| round seat | depth | re-solves | subgame nodes | CPU h at the rate |\n|---|---|---|---|---|")
        for a, b in groups:
            for req_first in (True, False):
                for d in depths:
                    r, n = decisions(6 * (a + b), req_first, d)
                    h = n * t.iterations * t.rate / 1e6 / 3600
                    print(f"| {a}v{b} requester {'opens' if req_first else 'second'} | {d} | {r:,} | {n:,} | "
                          f"{h:.1f} |")
        return
    t0, c0 = time.time(), time.process_time()
    rows = compare(groups, t.profile, depths, t.iterations, t.gadget, t.cap, log=lambda s: print(s, flush=True))
    print(f"\n{t.profile} profile's blueprints, {t.iterations} CFR+ iterations per re-solve, gadget {t.gadget}; "
          f"{time.time() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU")
    print(HEADER)
    for r in rows:
        print(fmt(r))


if __name__ == "__main__":
    main()
