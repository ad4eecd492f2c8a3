"""The 3-letter certification tools against independent computations: the ratchet of cutoff searches
(research.jotto_ratchet) against every tree and the plain dynamic program; the hider-restricted subgame's exact
double oracle (research.jotto_subgame) against the LP whose columns are every tree; heuristic column generation
(research.jotto_colgen) against its own columns' LP recomputed."""
from fractions import Fraction

import numpy as np
import pytest

from tests.games import jotto_reference as ref
from tests.games.test_jotto_bitset_bb import random_list
from tests.games.test_jotto_certify import plain_dp, tiny
from games.jotto.bitset_bb import BitsetExactSolver
from research.jotto_colgen import column_generation
from games.jotto.dictionary import load_dictionary
from games.jotto.kernels import num_comm_letts_matrix
from games.jotto.oracle import JottoOracle
from research.jotto_ratchet import ratchet_lower_bound
from games.jotto.solvers import restricted_game
from research.jotto_subgame import subgame_double_oracle


@pytest.mark.parametrize("length,letters,seed", [(2, "abcde", 0), (3, "abcdef", 1), (3, "abcd", 2)])
def test_ratchet_is_below_every_tree_and_reaches_it(length, letters, seed):
    words, C = random_list(7, length, letters, seed)
    rng = np.random.default_rng(seed)
    for _ in range(3):
        weights = rng.integers(0, 5, size=7).astype(float)
        weights[rng.integers(7)] += 1
        best = float(ref.optimal_tree_value(words, [Fraction(float(x)) for x in weights]))
        solver = BitsetExactSolver(C, length)
        for probe in (1, 2, 10**6):  # starved probes (aborts, the table kept) and an ample one
            lb, exact, _ = ratchet_lower_bound(solver, weights, best + 1.0, 10**6, probe)
            assert lb <= best + 1e-12
            if exact is not None:
                assert exact == pytest.approx(best, abs=1e-12)
        lb, exact, _ = ratchet_lower_bound(solver, weights, best + 1.0, 10**6, 10**6, min_step=1e-7)
        assert lb == pytest.approx(best, abs=2e-6)


@pytest.mark.parametrize("seed", [0, 1])
def test_ratchet_on_two_letters_is_below_the_plain_dynamic_program(seed):
    """The whole 2-letter list as test words, 14 weighted words, probes of 30 states (many aborts)."""
    d = load_dictionary("jotto-en_US80-2-ganzfried")
    C = num_comm_letts_matrix(np.ascontiguousarray(d.counts))
    rng = np.random.default_rng(seed)
    weights = np.zeros(d.size, dtype=np.int64)
    support = rng.choice(d.size, size=14, replace=False)
    weights[support] = rng.integers(1, 6, size=14)
    want = float(Fraction(plain_dp(C, tuple(int(x) for x in weights), support), int(weights.sum())))
    solver = BitsetExactSolver(C, 2)
    lb, exact, states = ratchet_lower_bound(solver, weights.astype(float), want + 0.5, 3000, 30)
    assert lb <= want + 1e-12 and states <= 3000
    assert exact is None or exact == pytest.approx(want, abs=1e-12)
    lb, exact, _ = ratchet_lower_bound(solver, weights.astype(float), want + 0.5, 10**7, 10**7, min_step=1e-7)
    assert lb == pytest.approx(want, abs=1e-6)


@pytest.mark.parametrize("length,seed,n,k", [(2, 30, 7, 4), (3, 32, 6, 4), (3, 33, 6, 6)])
def test_subgame_double_oracle_is_the_lp_of_every_tree_on_T(length, seed, n, k):
    """The hider restricted to k of the n words: the subgame's value is the LP over every tree with T's rows;
    the bound found is the brute-force value of its hider, and below the whole game's value."""
    words, C = tiny(length, n, seed)
    trees = {tuple(t[s] for s in range(n)) for t in ref.all_trees(words, range(n))}
    G = np.array(sorted(trees), dtype=np.float64).T
    T = np.random.default_rng(seed).choice(n, size=k, replace=False)
    _, value_T, _ = restricted_game(G[np.sort(T)])
    _, value, _ = restricted_game(G)
    res = subgame_double_oracle(C, length, T, [G[:, 0].astype(np.int32)], tol=1e-9)
    assert res.value == pytest.approx(value_T, abs=1e-6)
    assert res.value <= value + 1e-9
    assert set(np.flatnonzero(res.hider > 0)) <= set(T.tolist())
    assert float(ref.optimal_tree_value(words, [Fraction(float(x)) for x in res.hider])) == pytest.approx(
        res.value, abs=1e-9)


def test_column_generation_guarantee_is_its_columns_lp():
    o = JottoOracle(load_dictionary("jotto-en_US80-2-ganzfried"))
    r = column_generation(o, [o.tree(o.uniform).guesses], 5)
    G = np.stack(r.columns, axis=1).astype(np.float64)
    assert (G @ r.weights).max() == pytest.approx(r.guarantee, abs=1e-9)
    assert r.weights.sum() == pytest.approx(1.0) and (r.weights >= 0).all()
    assert r.history[-1][0] <= r.history[0][0] + 1e-9
