"""3 letters: a certified bracket of Jotto's value from heuristic column generation and a ratchet of
cutoff searches.

  python -m research.jotto_cert3 [--root stores] [--variant jotto-en_US80-3-ganzfried] [--rounds 100]
                              [--hider uniform|served|centre] [--nodes 12000000] [--probe 2000000]

Upper end: the guarantee (the worst word's expected guesses) of the restricted game's guesser mixture after
--rounds rounds of research.jotto_colgen (rollout and greedy trees), seeded with the store's double-oracle member
trees and its benchmark's and people's. Lower end: a proven lower bound on V*(hider) (research.jotto_ratchet,
cutoff searches of at most --probe states, --nodes in all) for the chosen hider: the uniform one, the store's
served one, or column generation's centre. Prints each step and the bracket; CPU s are time.process_time().
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from games.jotto.bitset_bb import BitsetExactSolver
from research.jotto_colgen import column_generation
from games.jotto.dictionary import load_dictionary
from games.jotto.oracle import GBR, KINDS, ROLLOUT, JottoOracle
from research.jotto_ratchet import ratchet_lower_bound
from games.storage import stores_root

from research.jotto_exact import open_store


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="research.jotto_cert3", description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(stores_root()))
    ap.add_argument("--variant", default="jotto-en_US80-3-ganzfried")
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--hider", choices=("uniform", "served", "centre"), default="uniform")
    ap.add_argument("--nodes", type=int, default=12_000_000)
    ap.add_argument("--probe", type=int, default=2_000_000)
    a = ap.parse_args(argv)
    st = open_store(a.root, a.variant)
    if st is None:
        return 2
    m = st.manifest
    o = JottoOracle(load_dictionary(a.variant))
    t0 = time.process_time()
    hs = st.array("member_hiders:double_oracle")
    kind = KINDS.get(m["strategies"]["double_oracle"]["kind"], GBR)
    kinds = st.array("member_kinds:double_oracle") if m["strategies"]["double_oracle"]["kind"] == "mixed" else None
    seeds = [o.tree(hs[c], int(kinds[c]) if kinds is not None else kind).guesses for c in range(len(hs))]
    for name in ("benchmark", "people"):
        seeds.append(o.tree(st.array(f"hider:{name}"), KINDS[m["strategies"][name]["kind"]]).guesses)
    print(f"load average {os.getloadavg()[0]:.2f}; {len(seeds)} seed columns, {time.process_time() - t0:.1f} CPU s",
          flush=True)

    def line(h):
        print(f"  guarantee {h[0]:.6f}, centre's heuristic value {h[1]:.6f}, columns {h[2]}, "
              f"{time.process_time() - t0:.1f} CPU s", flush=True)

    cg = column_generation(o, seeds, a.rounds, on_round=line)
    t1 = time.process_time()
    h = {"uniform": o.uniform, "served": st.array(f"hider:{m['served']}"), "centre": cg.centre}[a.hider]
    h = h / h.sum()
    hi = float(o.tree(h, ROLLOUT).guesses @ h)
    solver = BitsetExactSolver(o.C, o.L)

    def show(best, beta, ok, states, sec):
        print(f"  cutoff {beta:.6f}: {'proven' if ok else 'out of budget'}; bound {best:.6f}; states {states:,}; "
              f"{time.process_time() - t1:.1f} CPU s", flush=True)

    print(f"hider {a.hider}: support {np.count_nonzero(h)}, rollout tree {hi:.6f}, counting bound "
          f"{solver.counting_bound(h):.6f}", flush=True)
    lo, exact, states = ratchet_lower_bound(solver, h, hi, a.nodes, a.probe, progress=show, min_step=0.005)
    kind = "exact" if exact is not None else f"bounded (cutoff searches of {a.probe:,} states, {states:,} in all)"
    print(f"bracket [{lo:.6f}, {cg.guarantee:.6f}] gap {cg.guarantee - lo:.6f}; lower end {kind}; guesser support "
          f"{int(np.count_nonzero(cg.weights))} of {len(cg.columns)} columns; column generation "
          f"{t1 - t0:.1f} CPU s, lower bound {time.process_time() - t1:.1f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
