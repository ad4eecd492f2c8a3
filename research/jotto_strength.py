"""Strength figures from published Jotto stores, each labelled with what it is.

  python -m research.jotto_strength table1 [--root stores] [--variant V ...] [--strategy S ...] [--rollout]
                                        [--exact-max-words 100] [--exact-max-nodes 5000000]
                                        [--exact-bound-steps N]
  python -m research.jotto_strength people --variant V [--secret common|uniform] [--guessers g1,g2,...] [--root stores]
  python -m research.jotto_strength solvers [--lengths 3,4,5] [--trees 200] [--eta 0.3]

`table1`: per store and strategy, epsilon against GBR (Ganzfried's, a lower bound on the true epsilon: a
greedy response), against the rollout oracle (a tighter lower bound: the stored figure, or computed with
--rollout) and against the exact best response (exact; stored, or computed with the branch and bound on
dictionaries of at most --exact-max-words words; where that search runs out of --exact-max-nodes,
--exact-bound-steps N bisects on proofs "the optimum needs at least beta" (N probes of the same node budget
each, from the counting bound towards the rollout tree's value) for a certified lower bound on the exact
best response's value, so the exact epsilon is bracketed: eps exact in [eps rollout, the bound's]), the guarantee (max over words of the mixture's expected
guesses: exact for the mixture), the gap against GBR, the mixture size and the build seconds.

`solvers`: the three equilibrium solvers on the same budget of greedy trees, in one process: fictitious play
(Ganzfried's SolveJotto), the double oracle from the uniform hider's tree (two trees a round) and Hedge, each
with the guarantee of its own guesser (fictitious play: the uniform mixture; the others: the restricted game's
LP) and of the LP over its trees, and CPU seconds, with the ratios against fictitious play.

`people`: guessers against a secret distribution (uniform over the common words, or over every word):
mean and worst guesses, first test word, CPU seconds. Guessers: `served:<strategy>` (a store's mixture,
its first test words by weight), `entropy-any` (Beeler's entropy, any word as test word), `gbr-uniform`,
`gbr-secret` (GBR against the uniform / the secret distribution), `rollout-gbr`, `rollout-entropy` (the
rollout guesser over GBR / entropy against the secret distribution, as the full stores' `people`),
`lookahead-gbr[:W[:T]]`, `lookahead-entropy[:W[:T]]` (the lookahead guesser at states of more than T words,
trying the rollout guesser's choice and the W best-scored words; default 16 and 8, as `people_lookahead` of
the full SGB store).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from games.jotto import kernels
from games.jotto.dictionary import dictionary_from_words, load_dictionary, Variant
from games.jotto.exact import ExactSolver
from games.jotto.oracle import ENTROPY, GBR, KINDS, ROLLOUT, ROLLOUT_ENTROPY, JottoOracle, build_tree
from games.jotto.people import secret_distribution
from games.jotto.solvers import stronger_from_pair
from games.jotto.store import HIDER, array_key, read_strategies
from games.storage import Store, current_stores, stores_root

STRATEGIES = ("double_oracle", "fp", "benchmark", "beeler", "people")
LOOKAHEAD = (16, 8)  # the full SGB store's people_lookahead (width, threshold)


def _oracle(store: Store) -> JottoOracle:
    m = store.manifest
    return JottoOracle(dictionary_from_words(Variant.parse(m["variant"]), list(m["words"]),
                                             common=store.array("common")))


def table1(root: Path, variants=None, strategies=STRATEGIES, rollout=False, exact_max_words=0,
           exact_max_nodes=5_000_000, exact_bound_steps=0, out=print) -> list[dict]:
    """Table 1's rows (one per store and strategy), printed; missing figures print as '-'."""
    rows = []
    stores = current_stores(root, "jotto")
    out(f"{'variant':28s} {'strategy':14s} {'D':>5} {'members':>7} {'guarantee':>9} {'eps GBR':>8} "
        f"{'eps rollout':>11} {'eps exact':>13} {'gap GBR':>8} {'gap rollout':>11} {'gap exact':>9} {'build s':>8} "
        f"{'DO s':>7} {'figure s':>8}")
    for variant, path in stores.items():
        if variants and variant not in variants:
            continue
        store = Store(path)
        try:
            m = store.manifest
            oracle = _oracle(store) if rollout or m["dictionary"]["size"] <= exact_max_words else None
            computed: dict[bytes, dict] = {}  # per distinct hider: its payoffs against the stronger guessers
            for name in strategies:
                info = m["strategies"].get(name)
                if info is None:
                    continue
                f = dict(info["figures"])
                t0 = time.process_time()
                if oracle is not None and ("epsilon_rollout" not in f or
                                           (oracle.D <= exact_max_words and "epsilon_exact" not in f)):
                    h = store.array(array_key(HIDER, name))
                    h = h / h.sum()
                    vs = computed.get(h.tobytes())
                    if vs is None:
                        vs = computed[h.tobytes()] = _stronger_payoffs(oracle, h, exact_max_words, exact_max_nodes,
                                                                       exact_bound_steps, out)
                    f.update({k: v for k, v in stronger_from_pair(f["guarantee"], f["self_play"], *vs[:2]).items()
                              if k not in f})
                    if vs[1] is None and vs[2] is not None:  # bracketed: the bound's epsilon is an upper bound
                        f["hider_vs_exact_lb"] = vs[2]
                        f["epsilon_exact_ub"] = max(f["guarantee"] - f["self_play"], f["self_play"] - vs[2])
                row = dict(variant=variant, strategy=name, D=oracle.D if oracle else m["dictionary"]["size"],
                           members=info["members"], guarantee=f["guarantee"], epsilon_gbr=f["epsilon"],
                           epsilon_rollout=f.get("epsilon_rollout"), epsilon_exact=f.get("epsilon_exact"),
                           hider_vs_exact_lb=f.get("hider_vs_exact_lb"), epsilon_exact_ub=f.get("epsilon_exact_ub"),
                           gap_gbr=f["gap"],
                           gap_rollout=f["guarantee"] - f["hider_vs_rollout"] if "hider_vs_rollout" in f else None,
                           gap_exact=f.get("gap_exact"), build_seconds=m.get("build_seconds"),
                           do_seconds=info.get("seconds") if name == "double_oracle" else None,
                           figure_seconds=time.process_time() - t0)
                rows.append(row)
                out(f"{variant:28s} {name:14s} {row['D']:5d} {row['members']:7d} {row['guarantee']:9.3f} "
                    f"{row['epsilon_gbr']:8.3f} {_fmt(row['epsilon_rollout'], 11)} {_eps_exact(row):>13s} "
                    f"{row['gap_gbr']:8.3f} {_fmt(row['gap_rollout'], 11)} {_fmt(row['gap_exact'], 9)} {_fmt(row['build_seconds'], 8, 1)} "
                    f"{_fmt(row['do_seconds'], 7, 1)} {row['figure_seconds']:8.1f}")
        finally:
            store.close()
    out("epsilon = max(epsilon_hider, epsilon_guesser); eps GBR and eps rollout are lower bounds (greedy and "
        "rollout responses), eps exact is exact (lo..hi: bracketed, hi from a certified lower bound on the exact "
        "best response's value); gap = guarantee - the hider's payoff against that response; "
        "guarantee is exact for the mixture; build s, DO s: wall seconds of the build (as the manifest records "
        "them); figure s: CPU s this command spent computing the row's missing figures")
    return rows


def _stronger_payoffs(oracle: JottoOracle, h: np.ndarray, exact_max_words: int, exact_max_nodes: int,
                      exact_bound_steps: int = 0, out=print):
    """The hider's payoff against the rollout oracle's response and, on small dictionaries, against the
    exact best response (None where the search ran out of nodes) and, where it ran out and
    exact_bound_steps > 0, a certified lower bound on that payoff (else None)."""
    vs_rollout = float(h @ oracle.tree(h, ROLLOUT).guesses)
    if oracle.D > exact_max_words:
        return vs_rollout, None, None
    solver = ExactSolver(oracle.C, oracle.L)
    res = solver.solve(h, upper=vs_rollout, max_nodes=exact_max_nodes)
    if res is not None:
        return vs_rollout, res.value, None
    if exact_bound_steps <= 0:
        return vs_rollout, None, None
    out(f"  exact search out of {exact_max_nodes} nodes: bisecting on a lower bound, {exact_bound_steps} probes")
    lb, exact = solver.lower_bound(h, None, vs_rollout, exact_max_nodes, exact_bound_steps,
                                   progress=lambda k, lo, hi: out(f"  probe {k}: value in [{lo:.4f}, {vs_rollout:.4f}], "
                                                                  f"next probes below {hi:.4f}"))
    return (vs_rollout, exact, None) if exact is not None else (vs_rollout, None, lb)


def _eps_exact(row) -> str:
    if row["epsilon_exact"] is not None:
        return f"{row['epsilon_exact']:.3f}"
    if row.get("epsilon_exact_ub") is not None and row["epsilon_rollout"] is not None:
        return f"{row['epsilon_rollout']:.3f}..{row['epsilon_exact_ub']:.3f}"
    return "-"


def _fmt(x, width, digits=3):
    return "-".rjust(width) if x is None else f"{x:{width}.{digits}f}"


def people(variant: str, secret_name: str, guessers: list[str], root: Path | None = None, out=print) -> list[dict]:
    """The people's-guesser table: each guesser's mean and worst guesses against the secret distribution."""
    store = None
    if any(g.startswith("served:") for g in guessers):
        path = current_stores(root, "jotto").get(variant)
        if path is None:
            raise SystemExit(f"no published store of {variant} under {root}")
        store = Store(path)
        oracle = _oracle(store)
    else:
        oracle = JottoOracle(load_dictionary(variant))
    words = oracle.dictionary.words
    secret = secret_distribution(oracle, secret_name)
    hides = secret > 0
    rows = []
    which = "the common" if secret_name == "common" else "every"
    out(f"{variant}: secret uniform over {which} words ({int(hides.sum())})")
    out(f"{'guesser':24s} {'mean':>7} {'worst':>5}  {'first test word':32s} {'CPU s':>6}")
    try:
        for name in guessers:
            t0 = time.process_time()
            mean, worst, first = _guesser(oracle, store, name, secret)
            row = dict(guesser=name, mean=float(secret @ mean), worst=int(worst[hides].max()),
                       first=" ".join(f"{words[g]}:{p:.2f}" if p < 1 else words[g] for g, p in first[:3]),
                       seconds=time.process_time() - t0)
            rows.append(row)
            out(f"{name:24s} {row['mean']:7.4f} {row['worst']:5d}  {row['first']:32s} {row['seconds']:6.1f}")
    finally:
        if store is not None:
            store.close()
    out("mean, worst: expected and largest number of guesses (exact: every decision tree walked for every word; "
        "a mixture's mean is over its members by weight, its worst the worst member's)")
    return rows


def _guesser(oracle: JottoOracle, store: Store | None, name: str, secret: np.ndarray):
    """(expected guesses per word, most guesses per word, [(first test word, probability)] by probability)
    of one guesser; a mixture's most guesses are its worst member's."""
    if name.startswith("served:"):
        gs = read_strategies(store)[name.split(":", 1)[1]]
        p = gs.weights / gs.weights.sum()
        members = np.flatnonzero(p > 0)
        G = np.stack([oracle.tree(gs.member_hider(c), gs.member_kind(c)).guesses for c in members], axis=1)
        firsts: dict[int, float] = {}
        for c in members:
            g = oracle.move(oracle.all_words, gs.member_hider(c), gs.member_kind(c))
            firsts[g] = firsts.get(g, 0.0) + p[c]
        return G @ p[members], G.max(axis=1), sorted(firsts.items(), key=lambda kv: -kv[1])
    if name == "entropy-any":
        g = kernels.comp_num_guesses(oracle.C, oracle.counts, oracle.uniform, oracle.all_words, oracle.L, ENTROPY,
                                     oracle.D + 1)[0]
        first = int(kernels.oracle_move(oracle.C, oracle.counts, oracle.all_words, oracle.uniform, oracle.all_words,
                                        oracle.L, ENTROPY))
        return g, g, [(first, 1.0)]
    base, _, shape = name.partition(":")
    width, _, threshold = shape.partition(":")
    kind, h = {"gbr-uniform": (GBR, oracle.uniform), "gbr-secret": (GBR, secret),
               "rollout-gbr": (ROLLOUT, secret), "rollout-entropy": (ROLLOUT_ENTROPY, secret),
               "lookahead-gbr": (ROLLOUT, secret), "lookahead-entropy": (ROLLOUT_ENTROPY, secret)}.get(base, (None, None))
    if kind is None or (shape and not (base.startswith("lookahead") and f"{width}{threshold}".isdigit())):
        raise SystemExit(f"unknown guesser {name!r} (served:<strategy>, entropy-any, gbr-uniform, gbr-secret, "
                         f"rollout-gbr, rollout-entropy, lookahead-gbr[:W[:T]], lookahead-entropy[:W[:T]])")
    if base.startswith("lookahead"):  # as a store's people's guesser with people_lookahead=(W, T)
        tree = build_tree(oracle.C, oracle.counts, h, oracle.candidates(kind), oracle.L, kind,
                          int(threshold or LOOKAHEAD[1]), lookahead_width=int(width or LOOKAHEAD[0]))
        return tree.guesses, tree.guesses, [(tree.node_moves[0], 1.0)]
    tree = oracle.tree(h, kind, record_threshold=oracle.D - 1)
    return tree.guesses, tree.guesses, [(tree.node_moves[0] if tree.node_moves else oracle.move(oracle.all_words, h, kind), 1.0)]


def solvers(lengths, trees: int, eta: float, out=print) -> list[dict]:
    """The solvers compared on ``trees`` greedy trees each (see the module docstring)."""
    from games.jotto.solvers import restricted_game, solve_double_oracle, solve_hedge, solve_jotto

    def lp(columns) -> float:
        return restricted_game(np.stack(columns, axis=1))[1]

    rows = []
    out(f"{'letters':>7} {'words':>6} {'solver':>14} {'trees':>6} {'guarantee':>9} {'LP over its trees':>17} "
        f"{'CPU s':>7} {'CPU / FP':>8}")
    for L in lengths:
        o = JottoOracle(load_dictionary(f"jotto-en_US80-{L}-ganzfried"))
        o.tree(o.uniform)  # compile
        runs = []
        t0 = time.process_time()
        fp = solve_jotto(o, trees - 1)
        cpu = time.process_time() - t0
        runs.append(("fictitious play", trees, fp.curves()[-1, 2], lp(fp.member_guesses), cpu))
        t0 = time.process_time()
        do = solve_double_oracle(o, (trees - 1) // 2)
        cpu = time.process_time() - t0
        g = float((do.matrix() @ do.weights).max())  # its final mixture is the LP over every column
        runs.append(("double oracle", len(do.columns), g, g, cpu))
        t0 = time.process_time()
        he = solve_hedge(o, trees, eta)
        cpu = time.process_time() - t0
        g = lp(he.columns)
        runs.append((f"hedge {eta:g}", trees, g, g, cpu))
        for name, n, guarantee, over, cpu in runs:
            row = dict(letters=L, words=o.D, solver=name, trees=n, guarantee=guarantee, lp=over, cpu=cpu,
                       ratio=cpu / runs[0][4])
            rows.append(row)
            out(f"{L:7d} {o.D:6d} {name:>14} {n:6d} {guarantee:9.4f} {over:17.4f} {cpu:7.1f} {row['ratio']:8.2f}")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m research.jotto_strength")
    sub = ap.add_subparsers(dest="table", required=True)
    t1 = sub.add_parser("table1")
    t1.add_argument("--root", default=None)
    t1.add_argument("--variant", action="append")
    t1.add_argument("--strategy", action="append")
    t1.add_argument("--rollout", action="store_true", help="compute epsilon against the rollout oracle where the "
                                                           "store has none (minutes at 5 letters)")
    t1.add_argument("--exact-max-words", type=int, default=0)
    t1.add_argument("--exact-max-nodes", type=int, default=5_000_000)
    t1.add_argument("--exact-bound-steps", type=int, default=0,
                    help="where the exact search runs out of nodes: probes of a bisection for a certified lower "
                         "bound on its value (each up to --exact-max-nodes)")
    pp = sub.add_parser("people")
    pp.add_argument("--variant", required=True)
    pp.add_argument("--secret", default="common", choices=("common", "uniform"))
    pp.add_argument("--guessers", default="served:double_oracle,served:beeler,served:benchmark,served:people,entropy-any")
    pp.add_argument("--root", default=None)
    sv = sub.add_parser("solvers")
    sv.add_argument("--lengths", default="3,4,5")
    sv.add_argument("--trees", type=int, default=200)
    sv.add_argument("--eta", type=float, default=0.3)
    args = ap.parse_args(argv)
    if args.table == "solvers":
        if args.trees < 3 or args.eta <= 0:
            ap.error("--trees must be at least 3 and --eta positive")
        try:
            lengths = [int(x) for x in args.lengths.split(",")]
            for L in lengths:
                Variant.parse(f"jotto-en_US80-{L}-ganzfried")
        except ValueError as e:
            ap.error(f"--lengths {args.lengths!r}: {e}")
        solvers(lengths, args.trees, args.eta)
        return 0
    root = stores_root(args.root)
    if args.table == "table1":
        if args.exact_bound_steps < 0 or args.exact_max_nodes < 1:
            ap.error("--exact-bound-steps must be at least 0 and --exact-max-nodes at least 1")
        table1(root, args.variant, tuple(args.strategy or STRATEGIES), args.rollout, args.exact_max_words,
               args.exact_max_nodes, args.exact_bound_steps)
    else:
        people(args.variant, args.secret, args.guessers.split(","), root)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
