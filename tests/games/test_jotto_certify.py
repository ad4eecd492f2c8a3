"""The exact best response's bound and complete trees, and the exact double oracle, against independent
computations: every tree of a tiny list, a plain dynamic program over consistent sets, and the LP of the
whole game (every tree a column)."""
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

from tests.games import jotto_reference as ref
from games.jotto.certify import EXACT, solve_exact_double_oracle
from games.jotto.dictionary import load_dictionary
from games.jotto.exact import ExactSolver, _bound_row, _counting_bound, _split_width
from games.jotto.kernels import num_comm_letts_matrix
from games.jotto.pricing import TruncatedExactPricing
from games.jotto.solvers import restricted_game


def tiny(length, n, seed):
    d = load_dictionary(f"jotto-en_US80-{length}-ganzfried")
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(d.size, size=n, replace=False))
    words = [d.words[i] for i in idx]
    return words, num_comm_letts_matrix(np.ascontiguousarray(d.counts[idx]))


def plain_dp(C, weights, support):
    """V(S) = W(S) + min over test words g (in S, or splitting S) of sum over answers of V(S_a): every
    consistent set solved, no bound, no ordering, integer weights (exact)."""
    D = C.shape[0]

    @lru_cache(maxsize=None)
    def V(S):
        if not S:
            return 0
        W = sum(weights[s] for s in S)
        if len(S) == 1:
            return W
        best = None
        for g in range(D):
            parts = {}
            for s in S:
                if s != g:
                    parts.setdefault(int(C[g, s]), []).append(s)
            if g not in S and len(parts) == 1:
                continue
            v = W + sum(V(tuple(p)) for p in parts.values())
            best = v if best is None or v < best else best
        return best

    return V(tuple(sorted(support)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_response_on_two_letters_is_the_plain_dynamic_programs(seed):
    """The whole 2-letter list as test words, a hider on 12 of its words with integer weights."""
    d = load_dictionary("jotto-en_US80-2-ganzfried")
    C = num_comm_letts_matrix(np.ascontiguousarray(d.counts))
    rng = np.random.default_rng(seed)
    weights = np.zeros(d.size, dtype=np.int64)
    support = rng.choice(d.size, size=12, replace=False)
    weights[support] = rng.integers(1, 6, size=12)
    want = Fraction(plain_dp(C, tuple(int(x) for x in weights), support), int(weights.sum()))
    r = ExactSolver(C, 2).solve(weights.astype(float))
    assert r.value == pytest.approx(float(want), abs=1e-12)
    # the complete tree: every word found, the weighted words as the value says, and each secret's guesses
    # replayed from its nodes
    assert (r.tree_guesses >= 1).all()
    assert float(weights @ r.tree_guesses) / weights.sum() == pytest.approx(float(want), abs=1e-12)
    moves = {tuple(s.tolist()): m for s, m in zip(r.node_states, r.node_moves)}
    for secret in range(d.size):
        state, n = tuple(range(d.size)), 0
        while True:
            g = moves[state]
            n += 1
            if g == secret:
                break
            state = tuple(s for s in state if s != g and C[g, s] == C[g, secret])
        assert n == r.tree_guesses[secret]


@pytest.mark.parametrize("length,seed", [(2, 20), (2, 21), (3, 22), (3, 23)])
def test_split_width_bound_is_below_every_tree(length, seed):
    """The bound from a set's split width and reach never exceeds the best tree (every tree enumerated)."""
    words, C = tiny(length, 7, seed)
    rng = np.random.default_rng(seed)
    solver = ExactSolver(C, length)
    cand = np.arange(len(words), dtype=np.int32)
    for _ in range(6):
        h = rng.integers(0, 5, size=len(words)).astype(float)
        h[rng.integers(len(words))] += 1
        w, S = solver._weights(h)
        in_S = np.zeros(len(words), dtype=bool)
        in_S[S] = True
        m, r = _split_width(S, solver.C, cand, length, in_S, np.zeros(length + 1, dtype=np.int64))
        bound = _counting_bound(S, w, _bound_row(solver.dr, m, r, len(S)))
        best = ref.optimal_tree_value(words, [Fraction(float(x)) for x in h])
        assert bound <= float(best) + 1e-12


def whole_game(length, n, seed):
    """(words, C, the value of the LP whose columns are every tree of the tiny list, one tree's column)."""
    words, C = tiny(length, n, seed)
    trees = {tuple(t[s] for s in range(n)) for t in ref.all_trees(words, range(n))}
    G = np.array(sorted(trees), dtype=np.float64).T
    return words, C, restricted_game(G)[1], G[:, 0].astype(np.int32)


def assert_closed_on(res, words, value):
    """The bracket is exact, closed, holds the value, and its ends are the served mixture's guarantee and the
    held hider's exact value (recomputed from the columns and by brute force over every tree)."""
    assert res.kind == EXACT
    assert res.hider_value - 1e-9 <= value <= res.guarantee + 1e-9
    assert res.gap <= 1e-6
    Gd = np.stack(res.columns, axis=1).astype(np.float64)
    assert (Gd @ res.weights).max() == pytest.approx(res.guarantee, abs=1e-9)
    assert float(ref.optimal_tree_value(words, [Fraction(float(x)) for x in res.hider])) == pytest.approx(
        res.hider_value, abs=1e-9)


@pytest.mark.parametrize("length,seed,n,lp_too", [(2, 30, 6, False), (2, 31, 7, False), (3, 32, 6, False),
                                                  (2, 31, 7, True), (3, 33, 6, True)])
def test_exact_double_oracle_finds_the_value_of_the_whole_games_lp(length, seed, n, lp_too):
    """Seeded with one tree, the double oracle's bracket closes on the value of the LP whose columns are
    every tree of the list."""
    words, C, value, seed_column = whole_game(length, n, seed)
    res = solve_exact_double_oracle(C, length, [seed_column], tol=1e-9, lp_hider_too=lp_too)
    assert_closed_on(res, words, value)


@pytest.mark.parametrize("length,seed,n,widths", [(2, 31, 7, ()), (2, 34, 8, (1, 2)), (3, 33, 7, (1,))])
def test_heuristic_pricing_closes_on_the_value_of_the_whole_games_lp(length, seed, n, widths):
    """With heuristic pricing (truncated hiders' exact trees and width-limited trees before the exact oracle),
    the bracket still closes on the value of the LP over every tree, and its ends are the served mixture's
    guarantee and the exact value of a held hider (both recomputed by brute force)."""
    words, C, value, seed_column = whole_game(length, n, seed)
    pricing = TruncatedExactPricing(C, length, ks=(2, 3, 4), table_bits=12, widths=widths)
    res = solve_exact_double_oracle(C, length, [seed_column], tol=1e-9, smoothing=0.0, pricing=pricing,
                                    pricing_gain=0.0)
    assert res.priced > 0 and pricing.searches > 0
    assert_closed_on(res, words, value)
    # every exact column is the optimal tree against its input hider, a width-limited one no better (brute force
    # over every tree)
    for c, h in res.inputs.items():
        best = float(ref.optimal_tree_value(words, [Fraction(float(x)) for x in h]))
        got = float(h @ res.columns[c]) / h.sum()
        assert got >= best - 1e-9 if c in res.heuristic else got == pytest.approx(best, abs=1e-9)


def _trace(res):
    return ([c.tobytes() for c in res.columns], res.weights.tolist(), res.guarantee, res.hider_value,
            [(r.columns, r.guarantee, r.hider_value, r.exact, r.nodes) for r in res.rounds])


@pytest.mark.parametrize("case", ["tiny-2", "tiny-3", "two-letters"])
def test_two_threads_run_the_same_double_oracle(case):
    """threads=2 starts each round's search for the LP's own hider beside the smoothed hider's: the same
    columns, mixture, bracket and rounds (values and states of every search) as one thread."""
    if case == "two-letters":  # the whole list, a few rounds from the uniform hider's GBR tree
        from games.jotto.oracle import GBR, JottoOracle
        o = JottoOracle(load_dictionary("jotto-en_US80-2-ganzfried"))
        C, length, seeds, rounds = o.C, o.L, [o.tree(np.ones(o.C.shape[0]), GBR).guesses], 4
    else:
        length, seed, n = (2, 31, 7) if case == "tiny-2" else (3, 33, 6)
        words, C, value, seed_column = whole_game(length, n, seed)
        seeds, rounds = [seed_column], 200
    one = solve_exact_double_oracle(C, length, seeds, tol=1e-9, lp_hider_too=True, max_rounds=rounds)
    two = solve_exact_double_oracle(C, length, seeds, tol=1e-9, lp_hider_too=True, max_rounds=rounds, threads=2)
    assert _trace(two) == _trace(one)
    assert sum(1 for r in one.rounds if r.exact) >= 2
    if case != "two-letters":
        assert_closed_on(two, words, value)


def test_an_interrupted_double_oracle_leaves_no_search_thread():
    """An exception from on_round (the builder's interrupt) ends the call with the second thread's search
    waited for and its thread gone."""
    import threading

    words, C, value, seed_column = whole_game(2, 7, 31)

    class Stop(Exception):
        pass

    def stop(r):
        raise Stop

    with pytest.raises(Stop):
        solve_exact_double_oracle(C, 2, [seed_column], tol=1e-9, lp_hider_too=True, threads=2, on_round=stop,
                                  hiders=[np.ones(C.shape[0])])
    assert [t for t in threading.enumerate() if t.name.startswith("exact-do")] == []
