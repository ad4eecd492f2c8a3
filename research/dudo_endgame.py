"""What endgame re-solving buys on Dudo: exact exploitability of blueprint + re-solving against the
blueprint alone, and the re-solve's latency per move.

    nice -n 19 .venv/bin/python -m research.dudo_endgame [exploit] [--memory 3 2] [--max-total 3]
        [--rounds 2v2 ...] [--threshold 8] [--iterations 300] [--min-reach 1e-4] [--threads 2]
        [--work DIR]    # resumable: blueprints and every chunk of evaluated endgames are kept in DIR
    nice -n 10 .venv/bin/python -m research.dudo_endgame timing     # re-solve seconds vs claims left
    nice -n 10 .venv/bin/python -m research.dudo_endgame serve [--variant V] [--serve-rounds 40] [--deadline 5]
        # latency per move as served (a server process on the store root plays against itself)

For every round with at most ``--max-total`` dice in play (at most 4: where the exact perfect-recall
best response is practical), blueprints with memory m are solved with the existing solver (every
group abstracted; cached in ``--work``), then each seat of each round is evaluated by one walk over
the round's claim histories:

* above the threshold the seat plays the blueprint; at each endgame root (the first history with at
  most ``threshold`` claims left) it re-solves the endgame (``games.dudo.search.endgame``: gadget, CFR+,
  the policy's iterations) when its blueprint reach there is at least ``--min-reach``, and plays the
  re-solved strategy below it;
* the responder best-responds with perfect recall (its values per roll, maximised at its own
  decisions), in win-probability units with the continuation values of the later rounds' best
  responses, bottom-up, exactly as ``games.dudo.measure.exploit`` / ``solve_game.solve_group`` define the
  stored rounds' exploitability (the blueprint-only column reproduces those figures: a check).

The policy's defaults are the served ones (``EndgamePolicy()``, as ``server.backends.dudo`` uses it):
below ``min_reach`` the server answers from the store, and so does the evaluated player here, so the
measured strategy is the served one.  Every endgame root the player reaches is evaluated (a blueprint
average strategy is never exactly zero, so no root is skipped): roots are listed by a first walk,
evaluated in chunks (checkpointed under ``--work``; ``--threads`` at a time) and combined by a second.

Exploitability of a round = (responder as opener) + (responder as other) - 1.  The latency column
is the wall time of ``prepare`` + ``solve`` of each re-solved endgame (one per endgame root: a
server re-solves from the root at every decision in the endgame, so this is the added latency of
each such move), on this machine under its current load (printed).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from games.dudo.cost import endgame_cost
from games.dudo.search import endgame as eg
from games.dudo.measure.exploit import payoff_tables
from games.dudo.rules import roll_arrays


def _seat_walk(bp, own: int, opp: int, opened: bool, V_bp, V_rs, R: int, at_root):
    """The responder's best-response values per roll against (blueprint, blueprint + re-solving) in
    the round where the evaluated player holds ``own`` dice: one walk over the claim histories above
    the endgames (the evaluated player's reach passed down, the responder maximising per roll), with
    ``at_root(history, reach)`` giving both value vectors at each endgame root it reaches."""
    K = 6 * (own + opp)
    ns, rc, claim_r = eg._seat_arrays(own, opp)
    nr, no = int(ns[0]), int(ns[1])
    D = own + opp
    idx = np.arange(D + 1)

    def walk(hist, rr):
        k = len(hist)
        L = hist[-1] if hist else -1
        if rr.sum() == 0:
            return np.zeros(no), np.zeros(no)
        if K - 1 - L <= R:
            return at_root(tuple(hist), rr)
        mine = eg._mover_py(k, opened) == eg.REQ
        if mine:
            P = bp.table(own, opp, tuple(hist))
            ob, orr = np.zeros(no), np.zeros(no)
        else:
            ob, orr = np.full(no, -np.inf), np.full(no, -np.inf)
        if L >= 0:
            r = claim_r[L] - 1
            c = np.bincount(rc[0, :nr, r], weights=rr * P[0] if mine else rr, minlength=D + 1)
            t = np.minimum(idx[:, None] + rc[1, :no, r][None, :], D)
            p = 0 if mine else 1
            vb, vr = c @ V_bp[p, L][t], c @ V_rs[p, L][t]
            if mine:
                ob, orr = ob + vb, orr + vr
            else:
                ob, orr = np.maximum(ob, vb), np.maximum(orr, vr)
        for cl in range(L + 1, K):
            cb, cr = walk(hist + [cl], rr * P[cl - L] if mine else rr)
            if mine:
                ob, orr = ob + cb, orr + cr
            else:
                ob, orr = np.maximum(ob, cb), np.maximum(orr, cr)
        return ob, orr

    ob, orr = walk([], roll_arrays(own)[0].copy())
    prior = roll_arrays(opp)[0]
    return float(prior @ ob), float(prior @ orr)


def seat_values_direct(bp, own: int, opp: int, opened: bool, W, V_bp, V_rs, policy: eg.EndgamePolicy):
    """``seat_values`` the direct way, one root at a time through the served calls (``prepare`` and
    ``solve`` as ``resolve_move`` makes them, nothing shared between roots): the reference the fast
    path is tested against."""
    K = 6 * (own + opp)
    ns, rc, claim_r = eg._seat_arrays(own, opp)
    st = dict(endgames=0, resolved=0, kept_mass=0.0, times=[])

    def at_root(hist, rr):
        st["endgames"] += 1
        if rr.sum() < policy.min_reach:
            st["kept_mass"] += rr.sum()
            off, bpl = eg.blueprint_layout(bp, own, opp, hist, opened)
            return tuple(eg.best_response_values(off, bpl, len(hist), hist[-1], opened, ns, rc, claim_r, V,
                                                 rr, K) for V in (V_bp, V_rs))
        t0 = time.perf_counter()
        pr = eg.prepare(bp, own, opp, hist, opened, W, reach=(rr, None))
        sol = eg.solve(pr, policy.iterations, policy.gadget)
        st["times"].append((pr.remaining, time.perf_counter() - t0))
        st["resolved"] += 1
        return (eg.best_response_values(pr.off, pr.bp, pr.k0, pr.L0, opened, ns, rc, claim_r, V_bp, rr, K),
                sol.best_response_values(V_rs))

    vb, vr = _seat_walk(bp, own, opp, opened, V_bp, V_rs, policy.remaining_limit(own, opp), at_root)
    return vb, vr, st


def root_values(ctx: eg.RoundContext, hist, opened: bool, rr, V_bp, V_rs, policy: eg.EndgamePolicy):
    """(responder's values vs the blueprint, vs the policy's play, re-solve seconds or nan) at one endgame
    root: the policy's re-solve where the evaluated player's reach is at least ``min_reach`` (as
    ``resolve_move`` serves it), else the blueprint for both."""
    args = (len(hist), hist[-1], opened, ctx.ns, ctx.rc, ctx.claim_r)
    if rr.sum() < policy.min_reach:
        off, bpl = eg.blueprint_layout(ctx.blueprint, ctx.own, ctx.opp, hist, opened, ctx)
        vb = eg.best_response_values(off, bpl, *args, V_bp, rr, ctx.K)
        return vb, (vb if V_rs is V_bp else eg.best_response_values(off, bpl, *args, V_rs, rr, ctx.K)), np.nan
    t0 = time.perf_counter()
    pr = eg.prepare(ctx.blueprint, ctx.own, ctx.opp, hist, opened, None, reach=(rr, None), ctx=ctx)
    sol = eg.solve(pr, policy.iterations, policy.gadget, chunk=policy.iterations)
    dt = time.perf_counter() - t0
    return eg.best_response_values(pr.off, pr.bp, *args, V_bp, rr, ctx.K), sol.best_response_values(V_rs), dt


def seat_values(bp, own: int, opp: int, opened: bool, W, V_bp, V_rs, policy: eg.EndgamePolicy,
                progress: bool = True, work: str | None = None, threads: int = 1, chunk: int = 4000):
    """Responder's best-response win probability against (blueprint, blueprint + re-solving) in
    the round where the evaluated player holds ``own`` dice (``opened``: it opens), and the
    re-solves' statistics.

    The endgame roots the player reaches are listed by one walk, their values computed in chunks of
    ``chunk`` roots (``threads`` at a time: the kernels release the interpreter lock; one
    ``round_context`` shared by all), each chunk saved under ``work`` (resumable: a saved chunk of the
    same blueprint, policy and payoffs is loaded, not recomputed), then a second walk combines them."""
    R = policy.remaining_limit(own, opp)
    ctx = eg.round_context(bp, own, opp, W)
    if np.array_equal(V_bp, V_rs):
        V_rs = V_bp
    roots = []
    _seat_walk(bp, own, opp, opened, V_bp, V_rs, R,
               lambda h, rr: (roots.append((h, rr)), (np.zeros(int(ctx.ns[1])),) * 2)[1])
    n, no = len(roots), int(ctx.ns[1])
    vals = np.zeros((n, 2, no))
    secs = np.full(n, np.nan)
    name = f"{own}v{opp}-{'opens' if opened else 'other'}"
    key = hashlib.sha256(repr((policy, n, R)).encode())
    for a in (V_bp, V_rs, ctx.table if ctx.table is not None else np.zeros(0)):
        key.update(np.ascontiguousarray(a).tobytes())
    cdir = Path(work) / "endgame-eval" / f"{name}-{key.hexdigest()[:16]}" if work else None
    if cdir:
        cdir.mkdir(parents=True, exist_ok=True)
    t_start, done_new = time.perf_counter(), 0
    pool = ThreadPoolExecutor(threads) if threads > 1 else None
    try:
        for c0 in range(0, n, chunk):
            c1 = min(n, c0 + chunk)
            path = cdir / f"{c0:07d}.npz" if cdir else None
            if path and path.exists():
                with np.load(path) as z:
                    vals[c0:c1], secs[c0:c1] = z["vals"], z["secs"]
                continue

            def one(i):
                return root_values(ctx, roots[i][0], opened, roots[i][1], V_bp, V_rs, policy)
            for i, (vb, vr, dt) in zip(range(c0, c1), (pool.map if pool else map)(one, range(c0, c1))):
                vals[i, 0], vals[i, 1], secs[i] = vb, vr, dt
            if path:
                np.savez(str(path) + ".tmp.npz", vals=vals[c0:c1], secs=secs[c0:c1])
                os.replace(str(path) + ".tmp.npz", path)
            done_new += c1 - c0
            if progress:
                el = time.perf_counter() - t_start
                print(f"  {name}: {c1}/{n} endgames, {int(np.sum(~np.isnan(secs[:c1])))} re-solved, "
                      f"{done_new / el:.0f}/s, ETA {(n - c1) * el / done_new:.0f} s", file=sys.stderr, flush=True)
    finally:
        if pool:
            pool.shutdown()
    it = iter(range(n))

    def at_root(h, rr):
        i = next(it)
        assert roots[i][0] == h
        return vals[i, 0], vals[i, 1]
    vb, vr = _seat_walk(bp, own, opp, opened, V_bp, V_rs, R, at_root)
    low = np.isnan(secs)
    st = dict(endgames=n, resolved=int((~low).sum()),
              kept_mass=float(sum(roots[i][1].sum() for i in np.flatnonzero(low))),
              times=[(6 * (own + opp) - 1 - roots[i][0][-1], float(secs[i])) for i in np.flatnonzero(~low)])
    return vb, vr, st


def evaluate(sol, policy: eg.EndgamePolicy, max_total: int = 4, log=print, only=None,
             progress: bool = True, work: str | None = None, threads: int = 1):
    """Rows (opener, other, stored exploitability, blueprint, blueprint + re-solving, stats) of
    every round of ``sol`` with at most ``max_total`` dice in play, bottom-up (re-solving in every
    round); ``only``: just these rounds, re-solving in them alone (the later rounds' continuation
    values are the blueprint's best-response values for both columns)."""
    bp = eg.SolutionBlueprint(sol)
    W = sol.W
    br = {"bp": ({}, {}), "rs": ({}, {})}       # responder opens / responder is the other
    if only:
        for key in ("bp", "rs"):
            for r, st in sol.stats.items():
                br[key][0][r], br[key][1][r] = st["br_opener"], st["br_other"]
    rows = []
    # rounds of one dice total need only smaller ones: among them the cheaper to evaluate first
    # (fewer endgames the player reaches often enough to re-solve: 2v2, 3v1, 1v3 with memory 3)
    for (op, oth) in sorted(sol.stats, key=lambda r: (sum(r), -min(r), -r[0])):
        if op + oth > max_total or (only and (op, oth) not in only):
            continue
        res = {}
        for resp_opens in (True, False):
            own, opp = (oth, op) if resp_opens else (op, oth)
            V_bp = payoff_tables(own, opp, W, *br["bp"])
            V_rs = payoff_tables(own, opp, W, *br["rs"])
            t0 = time.perf_counter()
            res[resp_opens] = seat_values(bp, own, opp, not resp_opens, W, V_bp, V_rs, policy,
                                          progress, work, threads)
            res[resp_opens][2]["seconds"] = time.perf_counter() - t0
        for j, key in enumerate(("bp", "rs")):
            br[key][0][(op, oth)] = res[True][j]
            br[key][1][(op, oth)] = res[False][j]
        stats = {k: res[True][2][k] + res[False][2][k]
                 for k in ("endgames", "resolved", "kept_mass", "times", "seconds")}
        row = (op, oth, sol.stats[(op, oth)].get("exploitability"),
               res[True][0] + res[False][0] - 1, res[True][1] + res[False][1] - 1, stats)
        rows.append(row)
        if log:
            log(format_row(sol.m, row))
    return rows


def format_row(m, row) -> str:
    op, oth, stored, e_bp, e_rs, st = row
    t = np.array([s for _, s in st["times"]]) * 1e3 if st["times"] else np.full(1, np.nan)
    return (f"| {op}v{oth} | {m} | {e_bp:.5f} | {e_rs:.5f} | {e_rs - e_bp:+.5f} | "
            f"{st['resolved']} of {st['endgames']} ({st['kept_mass']:.1e}) | "
            f"{np.percentile(t, 50):.1f} | {np.percentile(t, 99):.1f} | {st['seconds']:.0f} |"
            + ("" if stored is None or abs(stored - e_bp) < 1e-9 else f" stored {stored:.5f}?"))


HEADER = ("| round | m | blueprint (exact BR) | + re-solving (exact BR) | change | endgames re-solved "
          "(blueprint kept: reach mass) | p50 ms | p99 ms | eval s |\n|---|---|---|---|---|---|---|---|---|")


def timing(policy: eg.EndgamePolicy, pairs=((1, 1), (2, 2), (3, 3), (5, 5)), claims=(4, 6, 8, 10),
           repeats: int = 3):
    """Seconds of one re-solve (prepare + the policy's iterations) against the claims left, the
    estimate's seconds, and the policy's limit in claims for the dice."""
    W = {(a, b): 0.5 for a in range(1, 6) for b in range(1, 6)}
    bp = eg.UniformBlueprint()
    print(f"| dice | claims left | nodes | node x rolls | MB | seconds (median of {repeats}) | "
          f"estimate s | s per node-roll-walk | within budget |\n|---|---|---|---|---|---|---|---|---|")
    for own, opp in pairs:
        K = 6 * (own + opp)
        eg.solve(eg.prepare(bp, own, opp, (K - 3,), True, W), 2)      # load the kernels
        for R in claims:
            if R > K - 2:
                continue
            ts = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                eg.solve(eg.prepare(bp, own, opp, (K - 2 - R, K - 1 - R), True, W),
                         policy.iterations, policy.gadget)
                ts.append(time.perf_counter() - t0)
            est = endgame_cost(R, own, opp)
            sec = float(np.median(ts))
            print(f"| {own}v{opp} | {R} | {est.nodes} | {est.node_rolls} | {est.bytes / 1e6:.1f} | "
                  f"{sec:.3f} | {est.seconds(policy.iterations):.3f} | "
                  f"{sec / policy.iterations / 2 / est.node_rolls:.1e} | "
                  f"{'yes' if R <= policy.remaining_limit(own, opp) else 'no'} |", flush=True)


def serve(root, variant: str, rounds: int, deadline: float, seed: int = 0) -> None:
    """Added latency per move as served: a server process on the store root (one worker, one live slot)
    plays ``rounds`` Dudo rounds against itself (both seats ask it, each with ``deadline``), dice pairs
    in turn over the store's rounds, rolls drawn from ``seed``; every move's latency by what answered it
    (BOOK before the endgame, LIVE re-solved, BOOK where the endgame fell back to the store)."""
    import grpc

    from bench.load import _pct, _start, _stop
    from games.dudo.rules import claim, strength
    from games.seeding import game_rng
    from games.storage import Store, current_stores
    from protos import gamestrategy_pb2 as pb
    from protos import gamestrategy_pb2_grpc as pb_grpc

    stores = current_stores(root, "dudo")
    variant = variant or next(iter(sorted(stores)), "")
    path = stores.get(variant)
    if path is None:
        raise SystemExit(f"no Dudo store {variant} under {root}: run `make build-default-stores` first")
    store = Store(path)
    rounds_m = store.manifest["rounds"]
    pairs = sorted({tuple(int(x) for x in r.split("v")) for r in rounds_m}, key=lambda r: (sum(r), r))
    # a round whose endgames the policy re-solves (games.dudo.policy.served: not one with an exact figure)
    resolved = [p for p in pairs if rounds_m[f"{p[0]}v{p[1]}"].get("served") != "stored rows"] or pairs[:1]
    store.close()
    lat: dict[str, list] = {"book": [], "live": [], "fallback": [], "degraded": []}
    by_dice: dict[tuple, list] = {}
    with tempfile.TemporaryDirectory(prefix="endgame-serve-") as tmp, open(os.path.join(tmp, "server.log"), "wb") as log:
        pf = Path(tmp) / "server.json"
        sp, port = _start([sys.executable, "-m", "server", "--root", str(root), "--port", "0", "--workers", "1",
                           "--metrics-port", "-1", "--http-port", "-1", "--log-level", "WARNING", "--live-slots", "1",
                           "--port-file", str(pf)], pf, log)
        try:
            stub = pb_grpc.GameStrategyStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
            # the live worker starts in the background (a re-solve never waits for it): until it is ready,
            # endgame moves the policy re-solves get the store's answer marked DEGRADED; wait for it (a round
            # the policy serves from the store answers BOOK at once)
            o1, o2 = resolved[-1]
            late = pb.SampleMoveRequest(variant=variant, dudo=pb.DudoState(
                own_dice=o2, opponent_dice=o1, roll=[3] * o2, history=[pb.DudoClaim(count=o1 + o2, face=4)],
                requester_opened=False))
            t_ready = time.monotonic() + 120
            while stub.SampleMove(late, timeout=30, wait_for_ready=True).source == pb.SampleMoveReply.DEGRADED:
                if time.monotonic() > t_ready:
                    raise SystemExit("the server's live worker did not become ready in 120 s")
                time.sleep(0.5)
            for i in range(rounds):
                opener, other = pairs[i % len(pairs)]
                rng = game_rng(seed, i)
                dice = [tuple(sorted(int(x) for x in rng.integers(1, 7, n))) for n in (opener, other)]
                D, hist, k = opener + other, [], 0
                while True:
                    s = k % 2
                    own, opp = (opener, other) if s == 0 else (other, opener)
                    req = pb.SampleMoveRequest(variant=variant, game_seed=seed * 100003 + i, dudo=pb.DudoState(
                        own_dice=own, opponent_dice=opp, roll=list(dice[s]), requester_opened=(s == 0),
                        history=[pb.DudoClaim(count=n, face=r) for n, r in (claim(c, D) for c in hist)]))
                    in_endgame = eg.endgame_root(hist, eg.EndgamePolicy().remaining_limit(own, opp), 6 * D) is not None
                    t0 = time.perf_counter()
                    r = stub.SampleMove(req, timeout=deadline, wait_for_ready=True)
                    dt = time.perf_counter() - t0
                    kind = ("live" if r.source == pb.SampleMoveReply.LIVE else
                            "degraded" if r.source == pb.SampleMoveReply.DEGRADED else
                            "fallback" if in_endgame else "book")
                    lat[kind].append(dt)
                    by_dice.setdefault((kind, D), []).append(dt)
                    if r.move == "dudo":
                        break
                    n, f = (int(x) for x in r.move.split("x"))
                    hist.append(strength(n, f, D))
                    k += 1
        finally:
            _stop(sp)
    print(f"| {variant}: moves answered by | moves | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|")
    for name, label in (("book", "store, before the endgame (BOOK)"), ("live", "endgame re-solved (LIVE)"),
                        ("fallback", "store in the endgame (BOOK: reach below the floor, or a round served from the store)"),
                        ("degraded", "store in the endgame, the re-solve refused or stopped (DEGRADED)")):
        xs = lat[name]
        if xs:
            print(f"| {label} | {len(xs)} | {_pct(xs, .5) * 1e3:.1f} | {_pct(xs, .99) * 1e3:.1f} | "
                  f"{max(xs) * 1e3:.1f} |")
        else:
            print(f"| {label} | 0 | | | |")
    print("\n| dice in play | answered by | moves | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|---|")
    for (name, D), xs in sorted(by_dice.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        print(f"| {D} | {name} | {len(xs)} | {_pct(xs, .5) * 1e3:.1f} | {_pct(xs, .99) * 1e3:.1f} | "
              f"{max(xs) * 1e3:.1f} |")
    if lat["live"] and lat["book"]:
        print(f"added latency of a re-solved move over a store lookup: p50 "
              f"{(_pct(lat['live'], .5) - _pct(lat['book'], .5)) * 1e3:.0f} ms, p99 "
              f"{(_pct(lat['live'], .99) - _pct(lat['book'], .5)) * 1e3:.0f} ms ({rounds} rounds, deadline {deadline} s)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("section", nargs="?", default="exploit", choices=("exploit", "timing", "serve"))
    ap.add_argument("--memory", type=int, nargs="+", default=[3, 2])
    ap.add_argument("--blueprint-iterations", type=int, default=1000)
    ap.add_argument("--threshold", type=int, default=eg.EndgamePolicy.threshold)
    ap.add_argument("--iterations", type=int, default=eg.EndgamePolicy.iterations)
    ap.add_argument("--gadget", default=eg.EndgamePolicy.gadget, choices=sorted(eg.GADGETS))
    ap.add_argument("--min-reach", type=float, default=eg.EndgamePolicy.min_reach)
    ap.add_argument("--budget", type=float, default=eg.EndgamePolicy.budget_seconds,
                    help="estimated seconds a re-solve may take (lowers the threshold with more dice)")
    ap.add_argument("--max-total", type=int, default=3, choices=(2, 3, 4))
    ap.add_argument("--rounds", nargs="*", default=None,
                    help="only these rounds (e.g. 2v2), re-solving in them alone")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "dudo-endgame-bench"),
                    help="blueprints and the evaluation's checkpoints (a rerun resumes from them)")
    ap.add_argument("--threads", type=int, default=1, help="endgames evaluated at a time")
    ap.add_argument("--root", default=os.environ.get("GAMESTRATEGY_STORES", "stores"), help="serve: the store root")
    ap.add_argument("--variant", default="", help="serve: the Dudo store (default: the root's first)")
    ap.add_argument("--serve-rounds", type=int, default=40, help="serve: rounds of self-play")
    ap.add_argument("--deadline", type=float, default=5.0, help="serve: each move's deadline (s)")
    a = ap.parse_args(argv)
    from games.dudo.build.solve_game import solve_game
    policy = eg.EndgamePolicy(a.threshold, a.iterations, a.gadget, a.min_reach, a.budget)
    print(f"# Dudo endgame re-solving: {policy}; load {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    if a.section == "serve":
        serve(a.root, a.variant, a.serve_rounds, a.deadline)
        print(f"# load at the end {os.getloadavg()[0]:.1f}")
        return
    if a.section == "timing":
        timing(policy)
        print(f"# load at the end {os.getloadavg()[0]:.1f}")
        return
    eg.solve(eg.prepare(eg.UniformBlueprint(), 1, 1, (7,), False, {}), 2)    # load the kernels before timing
    print(HEADER, flush=True)
    for m in a.memory:
        sol = solve_game(max_dice=4, m=m, iterations=a.blueprint_iterations, perfect_recall_total=0,
                         exact_br_total=4, progress=False, log=None, max_total=a.max_total,
                         checkpoint_dir=os.path.join(a.work, f"m{m}_{a.blueprint_iterations}"))
        only = {tuple(int(x) for x in r.split("v")) for r in a.rounds} if a.rounds else None
        evaluate(sol, policy, a.max_total, log=lambda s: print(s, flush=True), only=only, work=a.work,
                 threads=a.threads)
    print(f"# load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
