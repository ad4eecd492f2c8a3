"""What one abstracted re-solve (``games.dudo.search.abstract_resolve``) costs on a large round, and what the abstraction
keeps on the exact rounds.

    nice -n 10 .venv/bin/python -m research.dudo_search5 timing [--round 5v5] [--memory 1] [--A 3,6]
        [--iterations 30,50] [--depth 2] [--leaves float32,int8] [--threads 1,2]
    nice -n 10 .venv/bin/python -m research.dudo_search5 exact [--group 1v1] [--blueprint 1:200]
        [--depths 2,4] [--A 3,6] [--iterations 200] [--policies full,chain,targets,ranges]
    nice -n 10 .venv/bin/python -m research.dudo_search5 check [--group 1v1] [--blueprint 1:200] [--depth 2]
        [--A 6] [--iterations 200] [--games 4000] [--m-resp 2]
    nice -n 10 .venv/bin/python -m research.dudo_search5 respond --root stores [--rounds 3v3,5v5] [--games 200]
        [--m-resp 2] [--A 3] [--iterations 30] [--kinds chain,targets,served] [--train-missing 2:50]
    .venv/bin/python -m research.dudo_search5 cover --root stores [--rounds 5v5,4v4,2v3,1v2] [--group 1v2]
        [--blueprint 2:200]
    .venv/bin/python -m research.dudo_search5 rank --root stores [--round 5v5] [--windows 60]
    .venv/bin/python -m research.dudo_search5 leaves --root stores [--rounds 3v3,3v4,...,5v5]

``timing``: CPU seconds of one re-solve against the history (placeholder continuation values,
``research.dudo.fake_W``, and a 20-iteration blueprint: the work does not depend on the values); the
requester to move after four consecutive claims ending at the given strength.  ``exact``: the round's
exploitability by the exact perfect-recall best response (``continual.seat_best_response``, both seats
summed, win probability) of full-width re-solving (``continual.ContinualResolver``) beside the abstracted
one at each A.  ``cover``: how many claims carry a blueprint's play (per window with at least 8 claims
left, the fewest claims holding 90 / 95 / 99 % of the chance-weighted claim mass; Dudo left out): the
stored rows of --rounds and a blueprint trained like ``exact``'s.  ``rank``: how far the stored 5v5
blueprint's value matrices (the leaves' continuations) are from low rank: the worst max-abs and relative
Frobenius errors of truncated SVDs over sampled windows.  ``leaves``: the int8 bytes and CPU seconds of the
stored rounds' value matrices (what serving search would hold).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from games.dudo.search.continual import ContinualResolver, continuation_values, seat_best_response
from games.dudo.serving.endgame_store import store_W, stored_group
from games.dudo.rules import roll_arrays
from games.dudo.search.abstract_resolve import AbstractResolver, float32_continuations, int8_continuations, top_claims

from research.dudo_design import continuations, train
from games.dudo.measure.exploit import payoff_tables


LEAVES = {"float32": float32_continuations, "int8": int8_continuations}


def timing(a, b, m, depth, As, iterations, lasts=(-1, 11, 19, 29, 39, 44, 54), leaves=("float32",), threads=(1,),
           log=print):
    """``leaves``: the value matrices' number types, ``threads``: the re-solve's thread counts, timed one after
    the other on the same re-solves (CPU seconds with one thread, wall seconds with more)."""
    from research.dudo import fake_W
    W = fake_W(5)
    c0 = time.process_time()
    g, st, _ = train(a, b, m, 20, W)
    full = continuation_values(a, b, m, st, W, a, True)
    if full.Vc.dtype != np.float32 and "float32" in leaves:
        full = float32_continuations(full)
    conts = {kind: (full if full.Vc.dtype == np.dtype(kind) else LEAVES[kind](full)) for kind in leaves}
    del full
    top = top_claims(st, g, max(As))
    log(f"{a}v{b} memory {m}: blueprint and value matrices {time.process_time() - c0:.1f} CPU s, " + ", ".join(
        f"{c.Vc.nbytes / 1e6:.0f} MB of {kind}" for kind, c in conts.items()) + " value matrices (2 continuations)")
    runs = [(kind, th) for kind in leaves for th in threads]
    log("| last claim | claims left | depth | A | iterations | nodes | leaves | " + " | ".join(
        f"{kind} " + ("CPU s" if th == 1 else f"{th} threads wall s") for kind, th in runs)
        + " |\n|---|---|---|---|---|---|---|" + "---|" * len(runs))
    rr = roll_arrays(a)[0].copy()
    for L in lasts:
        hist = () if L < 0 else tuple(range(L - 3, L + 1))
        R = 6 * (a + b) - 1 - (hist[-1] if hist else -1)
        for A in As:
            for T in iterations:
                secs = []
                for kind, th in runs:
                    pol = AbstractResolver(a, b, True, W, conts[kind], top, depth=depth, iterations=T, A=A, near=1,
                                           root_full=True, threads=th)
                    c0, w0 = time.process_time(), time.perf_counter()
                    res = pol.resolve(hist, rr, None if not hist else np.zeros(int(pol.ns[1])))
                    secs.append(time.process_time() - c0 if th == 1 else time.perf_counter() - w0)
                log(f"| {'none (round start)' if L < 0 else L} | {R} | {depth} | {A if hist else 'all'} | {T} | "
                    f"{res.nodes} | {res.leaves} | " + " | ".join(f"{x:.3f}" for x in secs) + " |")
            if not hist:
                break


def exact(a, b, m, its, depths, As, iterations, gadget, policies=("full", "chain"), leaves="float32", log=print):
    """Exact exploitability (both seats) of each policy: ``full`` continual.py's full-width chain, ``chain``
    the abstracted chain, ``targets`` / ``ranges`` the one-re-solve policies (max-margin gadget for
    ``targets``); the abstracted ones read ``leaves`` value matrices (float32 or int8)."""
    from games.dudo.search.abstract_resolve import BlueprintRangeResolver, BlueprintTargetResolver
    W, bo, bn = continuations(a + b, log=lambda *x: None)
    g, st, _ = train(a, b, m, its, W)
    top = top_claims(st, g, max(As))
    log("| round | blueprint | depth | policy | exploitability (exact) | re-solve wall s (mean / max) |\n"
        "|---|---|---|---|---|---|")
    for op, oth in sorted({(a, b), (b, a)}):
        for d in depths:
            for kind in policies:
                for A in ([None] if kind == "full" else As):
                    total, times = 0.0, []
                    for resp_opens in (True, False):
                        own, opp = (oth, op) if resp_opens else (op, oth)
                        cont = continuation_values(a, b, m, st, W, own, not resp_opens)
                        if kind != "full":
                            cont = LEAVES[leaves](cont)
                        kw = dict(depth=d, iterations=iterations, A=A, near=1)
                        if kind == "full":
                            pol = ContinualResolver(own, opp, not resp_opens, W, cont, depth=d,
                                                    iterations=iterations, gadget=gadget)
                        elif kind == "chain":
                            pol = AbstractResolver(own, opp, not resp_opens, W, cont, top, gadget=gadget, **kw)
                        elif kind == "targets":
                            pol = BlueprintTargetResolver(own, opp, not resp_opens, W, cont, top, g, st,
                                                          gadget="maxmargin", **kw)
                        else:
                            pol = BlueprintRangeResolver(own, opp, not resp_opens, W, cont, top, g, st, **kw)
                        total += seat_best_response(pol, payoff_tables(own, opp, W, bo, bn))
                        times += pol.stats["times"]
                    look = "full width" if A is None else f"{kind} A={A} ({leaves})"
                    log(f"| {op}v{oth} | m={m} ({its} it) | {d} | {look} | {total - 1:.5f} | "
                        f"{np.mean(times):.4f} / {np.max(times):.3f} |")


def check(a, b, m, its, depth, A, iterations, games, m_resp, log=print):
    """The sampled responder (``search_lbr``) against the abstracted chain and against the stored rows,
    beside the exact best response against the chain (``continual.seat_best_response``), per seat."""
    from games.dudo.measure.lbr import responder_tables
    from games.dudo.measure.responder import SearchedPolicy, sample_response, stored_policy
    W, bo, bn = continuations(a + b, log=lambda *x: None)
    g, st, _ = train(a, b, m, its, W)
    top = top_claims(st, g, A)
    log("| round | responder seat | exact best response vs search | sampled vs search | sampled vs stored |\n"
        "|---|---|---|---|---|")
    for op, oth in sorted({(a, b), (b, a)}):
        for resp_opens in (True, False):
            own, opp = (oth, op) if resp_opens else (op, oth)
            cont = continuation_values(a, b, m, st, W, own, not resp_opens)
            kw = dict(depth=depth, iterations=iterations, gadget="resolve", A=A, near=1)
            ex = seat_best_response(AbstractResolver(own, opp, not resp_opens, W, cont, top, **kw),
                                    payoff_tables(own, opp, W, bo, bn))
            t = responder_tables(g, st, op, resp_opens, m_resp, W, bo, bn, 5)
            s = sample_response(t, SearchedPolicy(AbstractResolver(own, opp, not resp_opens, W, cont, top, **kw)),
                                resp_opens, games, seed=1)
            s0 = sample_response(t, stored_policy(g, st, 0 if g.nsides == 1 else g.dice.index(own)), resp_opens,
                                 games, seed=1)
            log(f"| {op}v{oth} | {'opens' if resp_opens else 'other'} | {ex:.5f} | {s.value:.5f} +- {s.stderr:.5f} | "
                f"{s0.value:.5f} +- {s0.stderr:.5f} |")


def respond(root, variant, rounds, games, m_resp, A, iterations, depth, kinds, seed, train_missing=None,
            leaves="float32", threads=1, log=print):
    """The sampled responder (``games.dudo.measure.responder``) against the stored rows and against search on
    them, one table row per (round, policy); the responder plays on at the store's values once the round
    is over (the round's own share)."""
    from pathlib import Path

    from games.dudo.search.endgame import EndgamePolicy
    from games.dudo.serving.endgame_store import store_blueprint
    from games.dudo.policy.served import served_policy
    from games.dudo.abstraction.dag import make_group
    from games.dudo.measure.lbr import responder_tables
    from games.dudo.search.abstract_resolve import BlueprintRangeResolver, BlueprintTargetResolver
    from games.dudo.measure.responder import SearchedPolicy, sample_response, stored_policy
    from games.dudo.store import store_memories
    from games.storage import Store

    from research.dudo_lbr import local_continuations

    store = ckpt = None
    if Path(root, "dudo", variant, "current").exists():
        store = Store(Path(root) / "dudo" / variant / "current")
        man = store.manifest
        W = store_W(man)
        mems = store_memories(man)
        max_dice = int(man["parameters"]["max_dice"])
    else:       # a build still running: its finished groups' checkpoints (unquantised strategies)
        import json
        ckpt = Path(root) / ".work" / "dudo" / variant
        W, mems = {}, {}
        for f in ckpt.glob("dudo_*.json"):
            j = json.loads(f.read_text())
            W.update({(a, b): v for a, b, v in j["inputs"]["W"] + j["W"]})
            a, b = j["inputs"]["group"]
            mems[(a, b)] = (j["inputs"]["m"], f.with_suffix(".npy"))
            max_dice = int(j["inputs"]["max_dice"])
        log(f"checkpoints of a running build ({ckpt}): groups {sorted(mems)}; unquantised strategies")
    if train_missing:
        missing = []
        for t in range(2, 2 * max_dice + 1):
            for a_ in range(1, max_dice + 1):
                b_ = t - a_
                if 1 <= b_ <= max_dice and (a_, b_) not in W:   # the known round one die fewer each, same lead
                    W[(a_, b_)] = W.get((a_ - 1, b_ - 1), 0.5)
                    missing.append((a_, b_))
        bo, bt = local_continuations(W)
        log(f"groups without a checkpoint: trained here, memory {train_missing[0]}, {train_missing[1]} CFR+ "
            f"iterations; placeholder values of the rounds without one (the value of the round with one die "
            f"fewer each): {[(r, round(W[r], 4)) for r in missing]}")
    bo, bt = local_continuations(W)
    log("| round | policy | responder (sum of seats - 1) | +- | paired difference to stored | games per seat | "
        "re-solves | re-solve wall s (mean / p99 / max) | CPU s |\n|---|---|---|---|---|---|---|---|---|")
    for op, oth in rounds:
        key = (min(op, oth), max(op, oth))
        if key not in mems and train_missing:
            m = train_missing[0]
            c0 = time.process_time()
            g, st, _ = train(key[0], key[1], m, train_missing[1], W)
            log(f"  {key[0]}v{key[1]} memory {m}: {train_missing[1]} iterations in {time.process_time() - c0:.0f} CPU s")
        elif store is not None:
            g, st, m = stored_group(store, key)
        else:
            m, path = mems[key]
            g = make_group(key[0], key[1], m, W, max_dice)
            st = np.load(path)
            if st.size != g.nrows:
                raise ValueError(f"{path}: {st.size} entries, group {key} has {g.nrows}")
        top = top_claims(st, g, A)
        res = {}
        for kind in ("stored",) + tuple(kinds):
            c0 = time.process_time()
            seats, times = [], []
            for resp_opens in (True, False):
                own, opp = (oth, op) if resp_opens else (op, oth)   # the fixed (policy) player's dice first
                t = responder_tables(g, st, op, resp_opens, m_resp, W, bo, bt, max_dice)
                if kind == "stored":
                    pol = stored_policy(g, st, 0 if g.nsides == 1 else g.dice.index(own))
                elif kind == "served":   # the server's answer: the rows, endgames re-solved (an idle server)
                    if store is None:
                        raise SystemExit("--kinds served needs a published store, not a build's checkpoints")
                    sp = stored_policy(g, st, 0 if g.nsides == 1 else g.dice.index(own))
                    pol = r = _EndgameServed(served_policy(lambda o, p, h, sp=sp: sp(h), store_blueprint(store), W,
                                                           EndgamePolicy()), own, opp)
                else:
                    cont = LEAVES[leaves](continuation_values(key[0], key[1], m, st, W, own, not resp_opens))
                    kw = dict(depth=depth, iterations=iterations, gadget="maxmargin", A=A, near=1, threads=threads)
                    if kind == "chain":
                        r = AbstractResolver(own, opp, not resp_opens, W, cont, top, **kw)
                        pol = SearchedPolicy(r)
                    else:
                        cls = BlueprintTargetResolver if kind == "targets" else BlueprintRangeResolver
                        r = cls(own, opp, not resp_opens, W, cont, top, g, st, cache=True, **kw)
                        pol = lambda h, r=r: r.resolve(h).root_strategy
                    del cont
                seats.append(sample_response(t, pol, resp_opens, games, seed=seed + (0 if resp_opens else 1)))
                if kind != "stored":
                    times += r.stats["times"]
                del t
            val = seats[0].value + seats[1].value - 1
            se = float(np.hypot(seats[0].stderr, seats[1].stderr))
            res[kind] = seats
            diff = "-"
            if kind != "stored":
                d = [(s.values - b.values) for s, b in zip(seats, res["stored"])]
                dv = sum(x.mean() for x in d)
                dse = float(np.sqrt(sum(x.var(ddof=1) / x.size for x in d)))
                diff = f"{dv:+.4f} +- {dse:.4f}"
            mv = (f"{np.mean(times):.3f} / {np.percentile(times, 99):.3f} / {np.max(times):.3f}" if times else "-")
            log(f"| {op}v{oth} | {kind} | {val:.4f} | {se:.4f} | {diff} | {games} | {len(times) or '-'} | {mv} | "
                f"{time.process_time() - c0:.0f} |")


class _EndgameServed:
    """``policy(hist)`` of the fixed player (``own`` dice against ``opp``) as ``served.served_policy``
    answers it, with the wall seconds of each endgame re-solve in ``stats["times"]`` (as the re-solvers record theirs)."""

    def __init__(self, served, own, opp):
        self.served, self.own, self.opp, self.stats = served, own, opp, {"times": []}

    def __call__(self, hist):
        n, t0 = len(self.served.solved), time.perf_counter()
        out = self.served(self.own, self.opp, tuple(int(c) for c in hist))
        if len(self.served.solved) > n:
            self.stats["times"].append(time.perf_counter() - t0)
        return out


def claims_cover(g, strat, q: float) -> np.ndarray:
    """Per window of ``g`` with at least 8 claims left: the fewest claims holding a share ``q`` of the
    blueprint's chance-weighted claim mass (Dudo excluded)."""
    out = []
    for s in range(g.nsides):
        n = int(g.ns[s])
        pr = g.probs[s, :n]
        for w in range(g.NW):
            na = g.K - int(g.last[w])
            base = int(g.rbase[s] + g.act_off[w] * n)
            cl = np.sort(strat[base:base + na * n].reshape(na, n)[1:] @ pr)[::-1]
            if na > 8 and cl.sum() > 1e-9:
                out.append(int(np.searchsorted(np.cumsum(cl) / cl.sum(), q - 1e-9) + 1))   # ties at q exactly
    return np.array(out)


def cover(root, variant, rounds, group, m, its, log=print):
    """``claims_cover`` of the stored rounds and of an ``exact``-style blueprint of ``group``."""
    from pathlib import Path

    from games.storage import Store
    log("| round | blueprint | windows | claims for 90 % (median / p90) | 95 % | 99 % |\n|---|---|---|---|---|---|")

    def row(name, what, g, st):
        c = [claims_cover(g, st, q) for q in (0.9, 0.95, 0.99)]
        log(f"| {name} | {what} | {c[0].size} | " + " | ".join(f"{np.median(x):.0f} / {np.percentile(x, 90):.0f}"
                                                            for x in c) + " |")
    a, b = group
    W, _, _ = continuations(a + b, log=lambda *x: None)
    g, st, _ = train(a, b, m, its, W)
    row(f"{a}v{b}", f"m={m} ({its} it, trained here)", g, st)
    store = Store(Path(root) / "dudo" / variant / "current")
    for a, b in rounds:
        key = (min(a, b), max(a, b))
        g, st, m = stored_group(store, key)
        row(f"{key[0]}v{key[1]}", f"stored m={m}", g, st)


def rank(root, variant, rnd, windows, ranks=(4, 16, 64), log=print):
    """Truncated-SVD errors of the stored blueprint's continuation value matrices of round ``rnd``."""
    from pathlib import Path

    from games.storage import Store
    store = Store(Path(root) / "dudo" / variant / "current")
    a, b = rnd
    g, st, m = stored_group(store, (a, b))
    c0 = time.process_time()
    cont = continuation_values(a, b, m, st, store_W(store.manifest), b, True)
    log(f"{a}v{b} stored m={m}: {g.NW} windows, value matrices {cont.Vc.nbytes / 1e9:.2f} GB (float64, 2 "
        f"continuations) in {time.process_time() - c0:.1f} CPU s")
    log("| continuation | side | windows sampled | " + " | ".join(f"rank {r}: max-abs / rel. Frobenius" for r in ranks)
        + " |\n|---|---|---|" + "---|" * len(ranks))
    rng = np.random.default_rng(0)
    for c, name in enumerate(cont.names):
        for s in range(g.nsides):
            n, no = int(g.ns[s]), int(g.ns[g.oth[s]])
            pair = n * no
            err = {r: (0.0, 0.0) for r in ranks}
            used = 0
            for w in sorted(rng.choice(g.NW, size=min(windows, g.NW), replace=False)):
                M = cont.Vc[c, cont.voff[s] + w * pair: cont.voff[s] + (w + 1) * pair].reshape(no, n)
                if not M.any():
                    continue
                used += 1
                U, S, Vt = np.linalg.svd(M, full_matrices=False)
                for r in ranks:
                    e = (float(np.abs((U[:, :r] * S[:r]) @ Vt[:r] - M).max()),
                         float(np.sqrt((S[r:] ** 2).sum() / (S ** 2).sum())))
                    err[r] = (max(err[r][0], e[0]), max(err[r][1], e[1]))
            log(f"| {name} | {s} | {used} | " + " | ".join(f"{err[r][0]:.3f} / {err[r][1]:.3f}" for r in ranks) + " |")


def leaves(root, variant, rounds, log=print):
    """What serving search on ``rounds`` would hold: per round, the stored blueprint's value matrices (the
    leaves' continuations: the blueprint's, and each seat's opponent best-responding) as int8, and the CPU
    seconds computing them from the stored rows takes (at build time or at server start)."""
    from pathlib import Path

    from games.storage import Store
    store = Store(Path(root) / "dudo" / variant / "current")
    W = store_W(store.manifest)
    log("| round | memory | windows | blueprint + best response (seat 1) CPU s | best response (seat 2) CPU s | "
        "int8 MB (3 matrices sets) | float64 MB while computing |\n|---|---|---|---|---|---|---|")
    tot_s = tot_mb = 0.0
    for a, b in rounds:
        g, st, m = stored_group(store, (a, b))
        c0 = time.process_time()
        both = continuation_values(a, b, m, st, W, a, True)
        t1 = time.process_time() - c0
        peak = both.Vc.nbytes
        mb = int8_continuations(both).Vc.nbytes
        del both
        c0 = time.process_time()
        other = continuation_values(a, b, m, st, W, b, False, kinds=("br",))
        t2 = time.process_time() - c0
        mb += int8_continuations(other).Vc.nbytes
        del other
        tot_s += t1 + t2
        tot_mb += mb / 1e6
        log(f"| {a}v{b} | {m} | {g.NW} | {t1:.1f} | {t2:.1f} | {mb / 1e6:.0f} | {peak / 1e6:.0f} |")
    log(f"| all | | | {tot_s:.1f} CPU s in all | | {tot_mb:.0f} | |")


def main(argv=None):
    import sys
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("timing", "exact", "check", "respond", "cover", "rank", "leaves"))
    ap.add_argument("--windows", type=int, default=60, help="rank: windows sampled")
    ap.add_argument("--policies", default="full,chain", help="exact: full, chain, targets, ranges")
    ap.add_argument("--root", default="stores")
    ap.add_argument("--variant", default="dudo-5dice-default")
    ap.add_argument("--rounds", default="3v3,5v5")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--m-resp", type=int, default=2)
    ap.add_argument("--kinds", default="ranges", help="searched policies: chain (continual), targets (blueprint ranges and targets), ranges (unsafe), "
                    "served (the stored rows with endgames re-solved, as the server answers)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--train-missing", default="", help="memory:iterations of groups without a checkpoint")
    ap.add_argument("--round", default="5v5")
    ap.add_argument("--group", default="1v1")
    ap.add_argument("--memory", type=int, default=1)
    ap.add_argument("--blueprint", default="1:200", help="memory:iterations (exact)")
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--depths", default="2,4")
    ap.add_argument("--A", default="3,6")
    ap.add_argument("--iterations", default="30,50")
    ap.add_argument("--gadget", default="resolve")
    ap.add_argument("--threads", default="1", help="timing: the re-solve's thread counts, by commas")
    ap.add_argument("--leaves", default="float32", help="value matrices: float32, int8 (timing: several, by commas)")
    t = ap.parse_args(argv)
    bad = [x for x in t.leaves.split(",") if x not in LEAVES]
    if bad:
        ap.error(f"--leaves {','.join(bad)}: the value matrices are {' or '.join(LEAVES)}")
    if not all(x.isdigit() and int(x) >= 1 for x in t.threads.split(",")):
        ap.error(f"--threads {t.threads}: whole numbers >= 1, by commas")
    As = tuple(int(x) for x in t.A.split(","))
    if t.what == "timing":
        ra, rb = (int(x) for x in t.round.split("v"))
        timing(ra, rb, t.memory, t.depth, As, tuple(int(x) for x in t.iterations.split(",")),
               leaves=tuple(t.leaves.split(",")), threads=tuple(int(x) for x in t.threads.split(",")))
    elif t.what == "cover":
        m, its = (int(x) for x in t.blueprint.split(":"))
        cover(t.root, t.variant, [tuple(int(x) for x in r.split("v")) for r in t.rounds.split(",")],
              tuple(int(x) for x in t.group.split("v")), m, its)
    elif t.what == "leaves":
        leaves(t.root, t.variant, [tuple(int(x) for x in r.split("v")) for r in t.rounds.split(",")])
    elif t.what == "rank":
        rank(t.root, t.variant, tuple(int(x) for x in t.round.split("v")), t.windows)
    elif t.what == "respond":
        rounds = [tuple(int(x) for x in r.split("v")) for r in t.rounds.split(",")]
        respond(t.root, t.variant, rounds, t.games, t.m_resp, As[0], int(t.iterations.split(",")[0]), t.depth,
                tuple(filter(None, t.kinds.split(","))), t.seed,
                tuple(int(x) for x in t.train_missing.split(":")) if t.train_missing else None,
                leaves=t.leaves, threads=int(t.threads.split(",")[0]),
                log=lambda r: print(r, flush=True))
    else:
        ga, gb = (int(x) for x in t.group.split("v"))
        m, its = (int(x) for x in t.blueprint.split(":"))
        T = int(t.iterations.split(",")[0])
        if t.what == "check":
            check(ga, gb, m, its, t.depth, As[0], T, t.games, t.m_resp)
        else:
            exact(ga, gb, m, its, tuple(int(x) for x in t.depths.split(",")), As, T, t.gadget,
                  tuple(t.policies.split(",")), t.leaves)


if __name__ == "__main__":
    main()
