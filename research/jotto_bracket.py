"""The certified bracket of a Jotto store's served pair, as the builder's certify="served" states it.

  python -m research.jotto_bracket [--root stores] --variant jotto-en_US80-3-ganzfried [--nodes 2000000]
                                [--steps 8]

Upper end: the served guesser mixture's guarantee (the hider's exact best response: the worst secret word,
every word checked; the store's figure). Lower end: V* of the served hider by the exact best response
(games.jotto.bitset_bb) within --nodes states, else a proven lower bound by bisection (--steps probes of
at most --nodes states each, from the counting bound towards the rollout tree's value). Prints the bracket,
its kind and CPU s (`time.process_time`).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from games.jotto.bitset_bb import BitsetExactSolver
from games.jotto.dictionary import load_dictionary
from games.jotto.oracle import ROLLOUT, JottoOracle
from games.storage import stores_root

from research.jotto_exact import open_store


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="research.jotto_bracket", description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(stores_root()))
    ap.add_argument("--variant", required=True)
    ap.add_argument("--nodes", type=int, default=2_000_000)
    ap.add_argument("--steps", type=int, default=8)
    a = ap.parse_args(argv)
    st = open_store(a.root, a.variant)
    if st is None:
        return 2
    m = st.manifest
    name = min(("double_oracle", "fp"), key=lambda k: m["strategies"][k]["figures"]["guarantee"])
    upper = m["strategies"][name]["figures"]["guarantee"]
    h = st.array(f"hider:{name}")
    o = JottoOracle(load_dictionary(a.variant))
    print(f"load average {os.getloadavg()[0]:.2f}; served {name}: hider support {np.count_nonzero(h)}, "
          f"guarantee {upper:.6f}", flush=True)
    t0 = time.process_time()
    hi = float(o.tree(h, ROLLOUT).guesses @ h / h.sum())
    solver = BitsetExactSolver(o.C, o.L)
    r = solver.solve(h, upper=hi, max_nodes=a.nodes)
    if r is not None:
        lo, kind, states = r.value, "exact", r.nodes
    else:
        def show(step, lb, top):
            print(f"  probe {step}: proven >= {lb:.6f} (searching below {top:.6f}), "
                  f"{time.process_time() - t0:.1f} CPU s", flush=True)

        lo, exact = solver.lower_bound(h, None, hi, a.nodes, a.steps, progress=show)
        kind = "exact" if exact is not None else f"bounded ({a.steps} probes of {a.nodes:,} states)"
        states = None
    print(f"bracket [{lo:.6f}, {upper:.6f}] gap {upper - lo:.6f}, lower end {kind}; rollout tree {hi:.6f}; "
          f"states {states if states is None else f'{states:,}'}; {time.process_time() - t0:.1f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
