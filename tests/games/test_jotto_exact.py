"""The exact guesser best response (branch and bound) and the rollout guesser, against brute force."""
from fractions import Fraction

import numpy as np
import pytest

from tests.games import jotto_reference as ref
from games.jotto.dictionary import load_dictionary
from games.jotto.exact import ExactSolver
from games.jotto.kernels import GBR, num_comm_letts_matrix
from games.jotto.kernels import rollout_guess, rollout_tree


def tiny(length, n, seed):
    d = load_dictionary(f"jotto-en_US80-{length}-ganzfried")
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(d.size, size=n, replace=False))
    words = [d.words[i] for i in idx]
    counts = np.ascontiguousarray(d.counts[idx])
    weights = rng.integers(0, 5, size=n)
    weights[rng.integers(n)] += 1
    return words, counts, num_comm_letts_matrix(counts), weights


@pytest.mark.parametrize("length,seed", [(2, 0), (2, 1), (2, 2), (3, 3), (3, 4), (3, 5)])
def test_exact_best_response_is_the_best_of_every_tree(length, seed):
    words, _, C, weights = tiny(length, 7, seed)
    h = [Fraction(int(x)) for x in weights]
    best = ref.optimal_tree_value(words, h)
    r = ExactSolver(C, length).solve(weights.astype(float))
    assert r.value == pytest.approx(float(best), abs=1e-12)
    # the tree it returns finds every weighted word and needs exactly that many guesses
    assert (r.guesses[weights > 0] >= 1).all()
    assert float(weights @ r.guesses) / weights.sum() == pytest.approx(r.value, abs=1e-12)
    solver = ExactSolver(C, length)
    assert solver.proves_at_least(weights.astype(float), r.value * 0.99, 10**6) is True
    assert solver.proves_at_least(weights.astype(float), r.value * 1.01, 10**6) == pytest.approx(r.value)


@pytest.mark.parametrize("length,seed", [(2, 6), (3, 7)])
def test_rollout_guess_matches_literal_rollout_and_never_loses_to_gbr(length, seed):
    words, counts, C, weights = tiny(length, 8, seed)
    h = weights / weights.sum()
    cand = np.arange(len(words), dtype=np.int32)
    S = np.arange(len(words), dtype=np.int32)
    in_S = np.ones(len(words), dtype=bool)
    g = rollout_guess(C, counts, S, in_S, h, h, cand, length, GBR, len(words))
    cost, _ = ref.rollout_guess(words, list(h), list(h), set(range(len(words))))
    parts = {}
    for s in range(len(words)):
        if s != g:
            parts.setdefault(ref.num_comm_letts(words[g], words[s]), set()).add(s)
    mine = 1 + sum(ref.replay_cost(words, list(h), list(h), p) for p in parts.values())
    assert float(mine) == pytest.approx(float(cost), abs=1e-9)
    tree = rollout_tree(C, counts, h, h, cand, length, GBR, len(words), len(words) + 1)[0]
    gbr = ref.comp_num_guesses(words, list(h))
    assert h @ tree <= h @ np.array(gbr) + 1e-12


def test_rollout_tree_matches_per_word_replay_of_rollout_moves():
    from games.jotto.dictionary import Variant, dictionary_from_words
    from games.jotto.oracle import ROLLOUT, ROLLOUT_ENTROPY, JottoOracle

    d = load_dictionary("jotto-en_US80-2-ganzfried")
    o = JottoOracle(dictionary_from_words(Variant.parse(d.variant.name), list(d.words[:40])))
    rng = np.random.default_rng(3)
    h = rng.random(o.D) * (rng.random(o.D) < 0.7)
    for kind in (ROLLOUT, ROLLOUT_ENTROPY):
        tree = o.tree(h, kind).guesses
        for secret in range(o.D):
            guesses, answers = [], []
            while True:
                g = o.move(o.consistent(guesses, answers), h, kind)
                if g == secret:
                    break
                guesses.append(g)
                answers.append(int(o.C[g, secret]))
            assert tree[secret] == len(guesses) + 1


@pytest.mark.parametrize("length,seed", [(2, 12), (3, 13), (3, 14)])
def test_lower_bound_is_certified_below_the_optimum(length, seed):
    words, _, C, weights = tiny(length, 7, seed)
    best = float(ref.optimal_tree_value(words, [Fraction(int(x)) for x in weights]))
    h = weights.astype(float)
    solver = ExactSolver(C, length)
    cb = solver.counting_bound(h)
    assert cb <= best + 1e-12
    # too few nodes to finish: the bisection proves what it can, never above the optimum
    for nodes in (1, 2, 3):
        lb, exact = solver.lower_bound(h, None, best + 1.0, nodes, steps=10)
        if exact is None:
            assert cb <= lb <= best + 1e-12
        else:
            assert exact == pytest.approx(best, abs=1e-12)
    # enough nodes: a probe below the optimum finds it exactly
    lb, exact = solver.lower_bound(h, None, best + 1.0, 10**6, steps=10)
    assert exact == pytest.approx(best, abs=1e-12)
