"""The bitset branch and bound (games.jotto.bitset_bb) against brute force over every tree, the plain dynamic
program over consistent sets, and the first branch and bound (games.jotto.exact, a separate implementation)."""
from fractions import Fraction

import numpy as np
import pytest

from tests.games import jotto_reference as ref
from tests.games.test_jotto_certify import plain_dp
from games.jotto.bitset_bb import BitsetExactSolver
from games.jotto.dictionary import load_dictionary
from games.jotto.exact import ExactSolver
from games.jotto.kernels import num_comm_letts_matrix


def random_list(n, length, letters, seed):
    """n distinct random words over a small alphabet (repeated letters and anagrams happen)."""
    rng = np.random.default_rng(seed)
    words = set()
    while len(words) < n:
        words.add("".join(rng.choice(list(letters), size=length)))
    words = sorted(words)
    counts = np.zeros((n, 26), dtype=np.int8)
    for i, wd in enumerate(words):
        for ch in wd:
            counts[i, ord(ch) - 97] += 1
    return words, num_comm_letts_matrix(counts)


def check_tree(C, weights, r, value):
    """The returned tree finds every word, needs `value` expected guesses, and each secret's guesses replay
    from its nodes."""
    D = C.shape[0]
    assert (r.tree_guesses >= 1).all()
    assert float(weights @ r.tree_guesses) / weights.sum() == pytest.approx(value, abs=1e-12)
    moves = {tuple(s.tolist()): m for s, m in zip(r.node_states, r.node_moves)}
    for secret in range(D):
        state, n = tuple(range(D)), 0
        while True:
            g = moves[state]
            n += 1
            if g == secret:
                break
            state = tuple(s for s in state if s != g and C[g, s] == C[g, secret])
        assert n == r.tree_guesses[secret]


@pytest.mark.parametrize("length,letters,seed", [(2, "abcde", 0), (3, "abcdef", 1), (3, "abcd", 2), (4, "abcdefg", 3)])
def test_bitset_bb_is_the_best_of_every_tree_on_random_tiny_lists(length, letters, seed):
    words, C = random_list(7, length, letters, seed)
    rng = np.random.default_rng(seed)
    for _ in range(3):
        weights = rng.integers(0, 5, size=7)
        weights[rng.integers(7)] += 1
        best = float(ref.optimal_tree_value(words, [Fraction(int(x)) for x in weights]))
        r = BitsetExactSolver(C, length).solve(weights.astype(float))
        assert r.value == pytest.approx(best, abs=1e-12)
        assert ExactSolver(C, length).solve(weights.astype(float)).value == pytest.approx(best, abs=1e-12)
        check_tree(C, weights, r, best)
        solver = BitsetExactSolver(C, length)
        assert solver.proves_at_least(weights.astype(float), best * 0.99, 10**6) is True
        assert solver.proves_at_least(weights.astype(float), best * 1.01, 10**6) == pytest.approx(best)
        lb, exact = solver.lower_bound(weights.astype(float), None, best + 1.0, 1, steps=6)
        assert lb <= best + 1e-12 and (exact is None or exact == pytest.approx(best, abs=1e-12))


@pytest.mark.parametrize("seed,table_bits", [(0, 22), (1, 22), (2, 2)])
def test_bitset_bb_on_two_letters_is_the_plain_dynamic_programs(seed, table_bits):
    """The whole 2-letter list as test words, 12 weighted words; a 4-entry memo table (entries replaced all
    the time, the tree's states solved again) gives the same value and tree."""
    d = load_dictionary("jotto-en_US80-2-ganzfried")
    C = num_comm_letts_matrix(np.ascontiguousarray(d.counts))
    rng = np.random.default_rng(seed)
    weights = np.zeros(d.size, dtype=np.int64)
    support = rng.choice(d.size, size=12, replace=False)
    weights[support] = rng.integers(1, 6, size=12)
    want = float(Fraction(plain_dp(C, tuple(int(x) for x in weights), support), int(weights.sum())))
    solver = BitsetExactSolver(C, 2, table_bits=table_bits)
    r = solver.solve(weights.astype(float))
    assert r.value == pytest.approx(want, abs=1e-12)
    check_tree(C, weights, r, want)
    if table_bits < 8:
        assert solver.stats[3] > 0  # the small table did replace entries


def test_bitset_bb_with_more_than_64_weighted_words_is_the_first_branch_and_bounds():
    """Two-word bitsets (66 weighted 3-letter words) against games.jotto.exact."""
    d = load_dictionary("jotto-en_US80-3-ganzfried")
    C = num_comm_letts_matrix(np.ascontiguousarray(d.counts))
    rng = np.random.default_rng(5)
    h = np.zeros(d.size)
    h[rng.choice(d.size, size=66, replace=False)] = rng.random(66)
    r = BitsetExactSolver(C, 3).solve(h)
    want = ExactSolver(C, 3).solve(h)
    assert r.value == pytest.approx(want.value, rel=1e-12)
    assert float(h @ r.tree_guesses) / h.sum() == pytest.approx(want.value, rel=1e-12)


def test_bad_hider_is_refused():
    d = load_dictionary("jotto-en_US80-2-ganzfried")
    C = num_comm_letts_matrix(np.ascontiguousarray(d.counts))
    with pytest.raises(ValueError, match="hider weights"):
        BitsetExactSolver(C, 2).solve(np.zeros(d.size))
    with pytest.raises(ValueError, match="square"):
        BitsetExactSolver(C[:3], 2)
