"""The exact double oracle on a published Jotto store, a table per round.

  python -m research.jotto_exact [--root stores] --variant jotto-en_US80-2-ganzfried [--rounds 60]
                              [--nodes 20000000] [--smoothing 0.5] [--lp-hider-too] [--log FILE]
                              [--pricing 15,18] [--pricing-widths 4,8] [--pricing-gain 0.1]
                              [--pricing-nodes 500000] [--max-priced 5000]

Seeds the restricted game with the store's members (its double oracle's member trees, the benchmark's and
the people's), solves the served hider exactly first (the first centre) and runs
games.jotto.certify.solve_exact_double_oracle; per round: columns, guarantee (the hider's exact best response
to the LP's guesser mixture: the upper end), the round's hider against the guesser's exact best response, the
best lower end so far, the gap, states expanded and CPU seconds of the exact search (`time.process_time`).
--pricing K,... / --pricing-widths W,...: heuristic pricing first (games.jotto.pricing: the GBR and rollout
trees, the exact responses to the hider truncated to its K heaviest words, the branch and bound expanding at
most W moves a state); the last line counts every search and its states.
The store is not changed (the builder's `certify="exact"` does the same inside a build).
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from games.jotto.certify import solve_exact_double_oracle
from games.jotto.dictionary import load_dictionary
from games.jotto.oracle import GBR, KINDS, ROLLOUT, JottoOracle
from games.jotto.pricing import TruncatedExactPricing
from games.storage import Store, all_current_stores, stores_root


def open_store(root: str, variant: str) -> Store | None:
    """The current store of ``variant`` under ``root``; None (and a line on stderr) if there is none."""
    path = all_current_stores(root).get(variant)
    if path is None:
        print(f"no store for {variant} under {root}", file=sys.stderr)
        return None
    return Store(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="research.jotto_exact", description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(stores_root()))
    ap.add_argument("--variant", required=True)
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--nodes", type=int, default=20_000_000)
    ap.add_argument("--smoothing", type=float, default=0.5)
    ap.add_argument("--lp-hider-too", action="store_true", help="two exact trees a round (smoothed and LP hider)")
    ap.add_argument("--pricing", default="", help="heuristic pricing: truncation sizes K,... (games.jotto.pricing)")
    ap.add_argument("--pricing-widths", default="", help="heuristic pricing: widths W,... (games.jotto.pricing)")
    ap.add_argument("--pricing-gain", type=float, default=0.1)
    ap.add_argument("--pricing-nodes", type=int, default=500_000)
    ap.add_argument("--max-priced", type=int, default=5000, help="heuristic pricing: at most this many priced LPs")
    ap.add_argument("--log", default=None, help="also append each round's line to this file")
    a = ap.parse_args(argv)
    st = open_store(a.root, a.variant)
    if st is None:
        return 2
    m = st.manifest
    o = JottoOracle(load_dictionary(a.variant))
    hs = st.array("member_hiders:double_oracle")
    kind = KINDS.get(m["strategies"]["double_oracle"]["kind"], GBR)
    kinds = st.array("member_kinds:double_oracle") if m["strategies"]["double_oracle"]["kind"] == "mixed" else None
    seeds = [o.tree(hs[c], int(kinds[c]) if kinds is not None else kind).guesses for c in range(len(hs))]
    for name in ("benchmark", "people"):
        seeds.append(o.tree(st.array(f"hider:{name}"), KINDS[m["strategies"][name]["kind"]]).guesses)
    served = st.array(f"hider:{m['served']}")
    log = open(a.log, "a") if a.log else None
    best = [-np.inf]
    cpu = [time.process_time()]
    print("| round | columns | guarantee | round's hider vs exact BR | best lower end | gap | states | CPU s |")
    print("|---|---|---|---|---|---|---|---|")

    def line(r):
        now = time.process_time()
        best[0] = max(best[0], r.hider_value)
        n = line.count = getattr(line, "count", 0) + 1
        s = (f"| {n} | {r.columns} | {r.guarantee:.6f} | {r.hider_value:.6f} | {best[0]:.6f} | "
             f"{r.guarantee - best[0]:.6f} | {r.nodes:,} | {now - cpu[0]:.1f} |")
        cpu[0] = now
        print(s, flush=True)
        if log:
            print(s, file=log, flush=True)

    greedy = lambda y: [o.tree(y, GBR).guesses, o.tree(y, ROLLOUT).guesses]  # noqa: E731
    ints = lambda s: [int(k) for k in s.split(",") if k]  # noqa: E731
    pricing = (TruncatedExactPricing(o.C, o.L, ints(a.pricing), greedy, a.pricing_nodes, widths=ints(a.pricing_widths))
               if a.pricing or a.pricing_widths else None)
    cpu0 = time.process_time()
    res = solve_exact_double_oracle(o.C, o.L, seeds, tol=1e-6, max_rounds=a.rounds, max_nodes=a.nodes,
                                    extra_columns=greedy, hiders=[served], smoothing=a.smoothing, on_round=line,
                                    lp_hider_too=a.lp_hider_too, pricing=pricing, pricing_gain=a.pricing_gain,
                                    max_priced=a.max_priced)
    cpu = time.process_time() - cpu0
    print(f"bracket [{res.hider_value:.6f}, {res.guarantee:.6f}] gap {res.gap:.6f} ({res.kind}); guesser support "
          f"{int(np.count_nonzero(res.weights))}, hider support {int(np.count_nonzero(res.hider))}; "
          f"{len(res.rounds)} rounds")
    exact_nodes = int(sum(r.nodes for r in res.rounds))
    print(f"exact searches {len(res.rounds)} ({exact_nodes:,} states); priced restricted games {res.priced}, "
          f"pricing searches {pricing.searches if pricing else 0} "
          f"({pricing.nodes if pricing else 0:,} states); {cpu:.1f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
