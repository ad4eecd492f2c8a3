"""The responder against search, validated where the searched policy's exact exploitability is known.

    NUMBA_NUM_THREADS=1 nice -n 10 .venv/bin/python -m research.dudo_responder validate [--group 1v2]
        [--blueprint 2:200] [--A 6] [--iterations 100] [--regrets cfr+|dcfr] [--widths 2,4,8] [--width 4]
        [--games 20000] [--min-reach 0]
    NUMBA_NUM_THREADS=1 nice -n 10 .venv/bin/python -m research.dudo_responder cost --group 2v2 --A 14 [--games 300]

On the group's rounds (both orders), against the searched policy (``abstract_resolve.AbstractResolver`` chained:
depth 2, ``--A`` own claims, ``--iterations`` iterations a re-solve of ``--regrets``, int8 leaves, max-margin gadget)
on a blueprint trained here, and against the blueprint's stored rows: the exact best-response figure (both seats
summed, win probability: ``continual.seat_best_response_bounds`` / ``exploit.best_response_value``; with
``--min-reach`` above 0 the searched policy's figure is the walk's bracket, the histories it reaches with at most that
probability skipped: rounds of 4 dice, whose walk is hours, in minutes), then each
responder's own figure computed exactly (``responder.strategy_value``: every roll and every reply of the
policy enumerated; no sampling error) and its share of the exact one: the rows' responder (``measure.responder``)
and the lookahead responder (``measure.lookahead``, depth 1) at each of ``--widths``; last, the sampled figure
``respond.respond`` states (width ``--width``, ``--games`` a seat, AIVAT's control variates, mean +- standard
error) and the same sampled plainly.  The exact responder figures (``--widths``) are computed up to 3 dice only.

``cost``: on a round too large for the exact walk (up to 4 dice), the re-solves the lookahead makes the searched
policy compute beside the rows' responder's, and both figures.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from games.dudo.search.continual import continuation_values, seat_best_response_bounds
from games.dudo.measure.exploit import best_response_value
from games.dudo.measure.lbr import responder_tables
from games.dudo.search.abstract_resolve import AbstractResolver, int8_continuations, top_claims
from games.dudo.search.resolve import REGRET_SCHEMES
from games.dudo.measure.responder import SearchedPolicy, rows_choice, sample_response, stored_policy, strategy_value
from games.dudo.measure.lookahead import LookaheadChooser
from games.dudo.serving.respond import respond

from research.dudo_design import continuations, train
from games.dudo.measure.exploit import payoff_tables


def _figure(lo: float, hi: float) -> str:
    return f"{lo:.5f}" if lo == hi else f"[{lo:.5f}, {hi:.5f}]"


def _share(value: float, lo: float, hi: float) -> str:
    return f"{value / lo:.3f}" if lo == hi else f"{value / hi:.3f}-{value / lo:.3f}"


def validate(a, b, m, its, A, iterations, widths, width, games, seed=0, m_resp=2, min_reach=0.0, log=print,
             regrets="cfr+"):
    W, bo, bn = continuations(a + b, log=lambda *x: None)
    g, st, _ = train(a, b, m, its, W)
    top = top_claims(st, g, A)
    log(f"blueprint memory {m}, {its} CFR+ iterations; search: depth 2, A = {A}, {iterations} {regrets.upper()} "
        f"iterations a re-solve, int8 leaves, max-margin gadget; responders' leaves: the memory-{m_resp} best response "
        f"to the rows")
    log("| round | policy | exact | responder | its figure (exact) | share | CPU s |\n|---|---|---|---|---|---|---|")
    for op, oth in sorted({(a, b), (b, a)}):
        policies, exact = {}, {"search": [], "rows": []}
        for resp_opens in (True, False):
            own, opp = (oth, op) if resp_opens else (op, oth)   # the policy's dice first
            cont = int8_continuations(continuation_values(a, b, m, st, W, own, not resp_opens))
            resolver = AbstractResolver(own, opp, not resp_opens, W, cont, top, depth=2, iterations=iterations,
                                        gadget="maxmargin", A=A, near=1, regrets=regrets)
            exact["search"].append(seat_best_response_bounds(resolver, payoff_tables(own, opp, W, bo, bn), min_reach))
            v = best_response_value(g, st, op, resp_opens, bo, bn)
            exact["rows"].append((v, v))
            policies[resp_opens] = {
                "search": SearchedPolicy(AbstractResolver(own, opp, not resp_opens, W, cont, top, depth=2,
                                                          iterations=iterations, gadget="maxmargin", A=A, near=1,
                                                          regrets=regrets)),
                "rows": stored_policy(g, st, 0 if g.nsides == 1 else g.dice.index(own))}
        responders = [("rows' best response (measure.responder)", None)] + [
            (LookaheadChooser.name_of(1, w), w) for w in widths] if a + b <= 3 else []
        for kind in ("search", "rows"):
            lo, hi = (sum(x[i] for x in exact[kind]) - 1 for i in (0, 1))
            ex = _figure(lo, hi)
            for name, w in responders:
                c0 = time.process_time()
                total = -1.0
                for resp_opens in (True, False):
                    t = responder_tables(g, st, op, resp_opens, m_resp, W, bo, bn, 5)
                    pol = policies[resp_opens][kind]
                    choose = rows_choice(t) if w is None else LookaheadChooser(t, pol, depth=1, width=w)
                    total += strategy_value(t, pol, resp_opens, choose)
                log(f"| {op}v{oth} | {kind} | {ex} | {name} | {total:.5f} | {_share(total, lo, hi)} | "
                    f"{time.process_time() - c0:.0f} |")
            for control in (True, False):
                c0 = time.process_time()
                r = respond(lambda resp_opens: policies[resp_opens][kind], (op, oth), g, st, W, bo, bn, 5, games,
                            seed, m_resp=m_resp, width=width, control=control)
                how = "with AIVAT's control variates" if control else "plainly"
                log(f"| {op}v{oth} | {kind} | {ex} | {r['responder']}, sampled {how} ({games} games a seat, seed "
                    f"{seed}) | {r['value']:.5f} +- {r['stderr']:.5f} | {_share(r['value'], lo, hi)} +- "
                    f"{r['stderr'] / lo:.3f} | {time.process_time() - c0:.0f} |")


def cost(a, b, m, its, A, iterations, width, games, seed=0, m_resp=2, log=print):
    """What the lookahead costs where no exact figure is at hand: per seat of round a v b (a opens), the rows'
    responder and the lookahead (depth 1, ``width``) against search, each on a fresh searched policy that keeps
    its re-solves by history: the figure (control variates) and the re-solves the policy made."""
    W, bo, bn = continuations(a + b, log=lambda *x: None)
    g, st, _ = train(a, b, m, its, W)
    top = top_claims(st, g, A)
    log(f"{a}v{b}: blueprint memory {m}, {its} CFR+ iterations; search: depth 2, A = {A}, {iterations} iterations a "
        f"re-solve, int8 leaves, max-margin gadget; {games} rounds a seat, seed {seed}")
    log("| round | responder seat | responder | figure (win probability) | re-solves | re-solves a round | CPU s |\n"
        "|---|---|---|---|---|---|---|")
    for resp_opens in (True, False):
        own, opp = (b, a) if resp_opens else (a, b)
        cont = int8_continuations(continuation_values(a, b, m, st, W, own, not resp_opens))
        t = responder_tables(g, st, a, resp_opens, m_resp, W, bo, bn, 5)
        for name, w in (("rows' best response (measure.responder)", None), (LookaheadChooser.name_of(1, width), width)):
            resolver = AbstractResolver(own, opp, not resp_opens, W, cont, top, depth=2, iterations=iterations,
                                        gadget="maxmargin", A=A, near=1)
            pol = SearchedPolicy(resolver)
            c0 = time.process_time()
            choose = None if w is None else LookaheadChooser(t, pol, depth=1, width=w)
            r = sample_response(t, pol, resp_opens, games, seed=seed + (0 if resp_opens else 1), choose=choose,
                                control=True)
            n = resolver.stats["resolves"]
            log(f"| {a}v{b} | {'opens' if resp_opens else 'other'} | {name} | {r.value:.4f} +- {r.stderr:.4f} | {n} | "
                f"{n / games:.2f} | {time.process_time() - c0:.1f} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("validate", "cost"))
    ap.add_argument("--group", default="1v2")
    ap.add_argument("--blueprint", default="2:200", help="memory:CFR+ iterations")
    ap.add_argument("--A", type=int, default=6)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--regrets", choices=tuple(REGRET_SCHEMES), default="cfr+", help="validate: the re-solves' regret "
                    "scheme")
    ap.add_argument("--widths", default="2,4,8", help="lookahead widths computed exactly, by commas")
    ap.add_argument("--width", type=int, default=4, help="the sampled responder's width")
    ap.add_argument("--games", type=int, default=20000, help="sampled rounds a seat")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--min-reach", type=float, default=0.0,
                    help="validate: skip the histories the searched policy reaches with at most this probability "
                         "(its figure then a bracket)")
    t = ap.parse_args(argv)
    try:
        a, b = (int(x) for x in t.group.split("v"))
        m, its = (int(x) for x in t.blueprint.split(":"))
        widths = tuple(int(x) for x in t.widths.split(","))
    except ValueError:
        ap.error(f"--group {t.group} / --blueprint {t.blueprint} / --widths {t.widths}: e.g. 1v2, 2:200, 2,4,8")
    if min(a, b) < 1 or a + b > 4 or (t.what == "validate" and a + b == 4 and not 0 < t.min_reach < 1):
        ap.error(f"--group {t.group}: up to 4 dice; validate's exact walk runs on 1v1 and 1v2 (minutes), on 4 dice "
                 f"with --min-reach between 0 and 1 (a bracket)")
    if t.games < 2 or t.width < 1 or min(widths) < 1:
        ap.error("--games needs at least 2, --width and --widths at least 1")
    log = lambda r: print(r, flush=True)   # noqa: E731
    if t.what == "cost":
        cost(a, b, m, its, t.A, t.iterations, t.width, t.games, t.seed, log=log)
    else:
        validate(a, b, m, its, t.A, t.iterations, widths, t.width, t.games, t.seed, min_reach=t.min_reach, log=log,
                 regrets=t.regrets)


if __name__ == "__main__":
    main()
