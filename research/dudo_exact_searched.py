"""The exact exploitability of the served search (the store's large-round settings: depth 2, A own claims, 100
iterations of CFR+ or DCFR, int8 leaves, max-margin gadget) on a store's exact rounds, beside the stored rows' exact
figure: the rule that serves search on a round only where it is lower (docs/dudo-search-serving.md, section 8).

  python -m research.dudo_exact_searched [--root stores] [--variant dudo-5dice-default] [--group 1v2] [--A 14]
      [--iterations 100] [--regrets cfr+|dcfr]

The search runs on the group's stored rows through the same tables as a served round (``search.tables``); each
seat's figure is the exact perfect-recall best response to it (``continual.seat_best_response``, every claim
history walked), both seats summed less 1, as GetStats states the rows'.
"""
from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path


def exact_searched(store, a: int, b: int, A: int | None = None, log=print, iterations: int | None = None,
                   regrets: str | None = None) -> dict:
    """{round: (searched exploitability, stored rows' exploitability)} of group {a, b}'s rounds; ``A``,
    ``iterations`` (a re-solve) and ``regrets`` (their scheme) in place of the store's settings."""
    from games.dudo.measure.exploit import payoff_tables
    from games.dudo.search.continual import seat_best_response
    from games.dudo.search.tables import LargeSearchSpec, leaf_tables, resolver
    from games.dudo.serving.endgame_store import store_W, stored_group
    from games.dudo.serving.large_search import spec_of
    man = store.manifest
    g, strat, m = stored_group(store, (a, b))
    below = {tuple(int(x) for x in k.split("v")): v for k, v in man["rounds"].items()
             if sum(int(x) for x in k.split("v")) < a + b}
    W = {r: v for r, v in store_W(man).items() if sum(r) < a + b}
    bo = {r: v["br_opener"] for r, v in below.items()}
    bn = {r: v["br_other"] for r, v in below.items()}
    spec = spec_of(man) or LargeSearchSpec()          # the store's settings (the default's where it has none)
    spec = replace(spec, min_total=0, A=A or spec.A, iterations=iterations or spec.iterations,
                   regrets=regrets or spec.regrets)
    t = leaf_tables(a, b, m, strat, W, spec.A)
    out = {}
    for op, oth in sorted({(a, b), (b, a)}):
        t0, total = time.process_time(), 0.0
        for resp_opens in (True, False):
            own, opp = (oth, op) if resp_opens else (op, oth)
            pol = resolver(t, a, b, m, W, own, opp, not resp_opens, spec)
            total += seat_best_response(pol, payoff_tables(own, opp, W, bo, bn))
        rows = man["rounds"][f"{op}v{oth}"]["exploitability"]
        out[(op, oth)] = (total - 1.0, rows)
        log(f"| {op}v{oth} | {m} | {total - 1.0:.5f} | {rows:.5f} | {time.process_time() - t0:.0f} |")
    return out


def main(argv=None) -> int:
    from games.dudo.search.resolve import REGRET_SCHEMES
    from games.storage import Store, current_stores, stores_root
    ap = argparse.ArgumentParser(prog="python -m research.dudo_exact_searched", description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--variant", default="dudo-5dice-default")
    ap.add_argument("--group", default="1v2", help="a group with an exact figure, AvB with A <= B")
    ap.add_argument("--A", type=int, default=None, help="own claims kept in the lookahead (default: the store's)")
    ap.add_argument("--iterations", type=int, default=None, help="iterations a re-solve (default: the store's)")
    ap.add_argument("--regrets", choices=tuple(REGRET_SCHEMES), default=None,
                    help="the re-solves' regret scheme (default: the store's)")
    a = ap.parse_args(argv)
    if a.iterations is not None and a.iterations < 1:
        ap.error(f"--iterations {a.iterations}: at least 1")
    try:
        x, y = (int(v) for v in a.group.split("v"))
    except ValueError:
        ap.error(f"--group {a.group!r}: AvB, e.g. 1v2")
    path = current_stores(a.root or stores_root(), "dudo").get(a.variant)
    if path is None:
        ap.error(f"no Dudo store {a.variant!r} under {a.root or stores_root()}")
    print("| round | memory | searched (exact) | stored rows (exact) | CPU s |\n|---|---|---|---|---|")
    exact_searched(Store(path), min(x, y), max(x, y), a.A, iterations=a.iterations, regrets=a.regrets)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
