"""Time per exact best response of the guesser, the bitset kernel (games.jotto.bitset_bb) against
the first branch and bound (games.jotto.exact), on a store's hiders.

  python -m research.jotto_exact_br [--root stores] --variant jotto-en_US80-2-ganzfried
                                 [--hiders double_oracle,fp] [--solvers bitset,dict] [--nodes N]

Prints per hider and solver: support, V* (the optimal tree's expected guesses), states expanded and CPU s
(`time.process_time`; numba compilation excluded by a warm-up on a tiny hider).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from games.jotto.bitset_bb import BitsetExactSolver
from games.jotto.dictionary import load_dictionary
from games.jotto.exact import ExactSolver
from games.jotto.oracle import JottoOracle
from games.storage import Store, all_current_stores, stores_root

SOLVERS = {"bitset": BitsetExactSolver, "dict": ExactSolver}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="research.jotto_exact_br", description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(stores_root()))
    ap.add_argument("--variant", required=True)
    ap.add_argument("--hiders", default="double_oracle,fp")
    ap.add_argument("--solvers", default="bitset,dict")
    ap.add_argument("--nodes", type=int, default=2**62)
    a = ap.parse_args(argv)
    path = all_current_stores(a.root).get(a.variant)
    if path is None:
        print(f"no store for {a.variant} under {a.root}", file=sys.stderr)
        return 2
    st = Store(path)
    o = JottoOracle(load_dictionary(a.variant))
    warm = np.zeros(o.D)
    warm[:5] = 1.0
    for name in a.solvers.split(","):
        SOLVERS[name](o.C, o.L).solve(warm)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print("| hider | support | solver | V* | states | CPU s |")
    print("|---|---|---|---|---|---|")
    for hn in a.hiders.split(","):
        h = st.array(f"hider:{hn}")
        for name in a.solvers.split(","):
            t0 = time.process_time()
            r = SOLVERS[name](o.C, o.L).solve(h, max_nodes=a.nodes)
            cpu = time.process_time() - t0
            v = "out of budget" if r is None else f"{r.value:.6f}"
            n = a.nodes if r is None else r.nodes
            print(f"| {hn} | {np.count_nonzero(h)} | {name} | {v} | {n:,} | {cpu:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
