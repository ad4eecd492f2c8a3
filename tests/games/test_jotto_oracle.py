"""GBR, entropy, CompNumGuesses, HiderBR and the epsilons against literal brute force on tiny dictionaries."""
import math
from fractions import Fraction

import numpy as np
import pytest

from tests.games import jotto_reference as ref
from games.jotto.dictionary import Variant, dictionary_from_words, load_dictionary
from games.jotto.oracle import ENTROPY, GBR, JottoOracle
from games.jotto.solvers import (
    epsilons, guesser_actual_payoff, guesser_br_payoff, hider_actual_payoff, hider_br, hider_br_payoff,
    restricted_game, solve_jotto,
)


def tiny(length: int, n: int, seed: int):
    full = load_dictionary(f"jotto-en_US80-{length}-ganzfried")
    rng = np.random.default_rng(seed)
    words = sorted(rng.choice(full.words, size=n, replace=False).tolist())
    d = dictionary_from_words(Variant("en_US80", length, "ganzfried"), words)
    return d, JottoOracle(d)


CASES = [(3, 18, 1), (3, 24, 2), (4, 20, 3), (5, 22, 4), (2, 16, 5)]


def test_jot_matrix_matches_letter_matching():
    d, o = tiny(5, 30, 0)
    for i, a in enumerate(d.words):
        for j, b in enumerate(d.words):
            assert o.C[i, j] == ref.num_comm_letts(a, b)
    # Beeler's example: GLASS v SMILE or SISSY is 2 jots (repeated letters match one-to-one)
    d2 = dictionary_from_words(Variant("file.x", 5, "all"), ["glass", "smile", "sissy"])
    o2 = JottoOracle(d2)
    i = d2.index
    assert o2.C[i("glass"), i("smile")] == 2 and o2.C[i("glass"), i("sissy")] == 2


@pytest.mark.parametrize("length,n,seed", CASES)
def test_gbr_matches_brute_force(length, n, seed):
    d, o = tiny(length, n, seed)
    rng = np.random.default_rng(seed + 100)
    for trial in range(25):
        size = int(rng.integers(1, n + 1))
        S = np.sort(rng.choice(n, size=size, replace=False)).astype(np.int32)
        # integer-valued weights make the kernel's float sums exact, so ties are exact on both sides
        h = rng.integers(0, 4, size=n).astype(np.float64)
        if trial % 5 == 0:
            h[S] = 0.0  # no weight on the state: the documented uniform fallback
        expected = ref.guesser_gbr(list(d.words), [Fraction(int(x)) for x in h], set(S.tolist()))
        assert o.move(S, h, GBR) == expected


@pytest.mark.parametrize("length,n,seed", CASES)
def test_comp_num_guesses_shared_tree_matches_per_word_replay(length, n, seed):
    d, o = tiny(length, n, seed)
    rng = np.random.default_rng(seed)
    for h in (np.ones(n), rng.integers(0, 5, size=n).astype(np.float64)):
        tree = o.tree(h, GBR)
        expected = ref.comp_num_guesses(list(d.words), [Fraction(int(x)) for x in h])
        assert tree.guesses.tolist() == expected


def test_entropy_guesser_maximises_information():
    d, o = tiny(5, 40, 7)
    rng = np.random.default_rng(1)
    for _ in range(20):
        S = np.sort(rng.choice(d.size, size=int(rng.integers(2, d.size)), replace=False)).astype(np.int32)
        g = o.move(S, o.uniform, ENTROPY)

        def bits(w):
            groups = {}
            for k in S:
                a = ref.num_comm_letts(d.words[w], d.words[k])
                groups[a] = groups.get(a, 0) + 1
            return -sum(c / len(S) * math.log2(c / len(S)) for c in groups.values())

        best = max(bits(w) for w in o.common_words)
        if best > 0:
            assert bits(g) == pytest.approx(best, abs=1e-12)
            assert d.common[g] or g in S


def test_hider_br_takes_every_maximiser():
    sums = np.array([5, 9, 3, 9, 9, 1])
    assert hider_br(sums).tolist() == [1, 3, 4]


def test_epsilon_formulas_match_algorithms_9_to_12():
    rng = np.random.default_rng(3)
    ang = rng.uniform(5, 9, size=12)
    ing = rng.integers(3, 10, size=12).astype(float)
    s_h = rng.dirichlet(np.ones(12))
    # literal loops of Alg. 9-12
    maxng = 0.0
    for x in ang:
        if x > maxng:
            maxng = x
    actual = sum(a * s for a, s in zip(ang, s_h))
    gbr = -sum(i * s for i, s in zip(ing, s_h))
    assert hider_br_payoff(ang) == maxng
    assert hider_actual_payoff(ang, s_h) == pytest.approx(actual)
    assert guesser_br_payoff(ing, s_h) == pytest.approx(gbr)
    assert guesser_actual_payoff(ang, s_h) == pytest.approx(-actual)
    eh, eg = epsilons(ang, ing, s_h)
    assert eh == pytest.approx(maxng - actual) and eg == pytest.approx(gbr + actual)


@pytest.mark.parametrize("length,n,seed", [(3, 16, 11), (4, 14, 12)])
def test_fictitious_play_epsilons_against_exact_replay(length, n, seed):
    """Every iteration's epsilon from SolveJotto equals an exact recomputation: s_{h,t} by the update of
    Alg. 13 in fractions, each greedy tree by per-word replay in fractions."""
    d, o = tiny(length, n, seed)
    T = 12
    fp = solve_jotto(o, T)
    words = list(d.words)
    s_h = [Fraction(1, n)] * n
    sum_ng = [0] * n
    for t in range(T + 1):
        if t > 0:
            mx = max(sum_ng)
            T_star = [i for i in range(n) if sum_ng[i] == mx]
            br = [Fraction(1, len(T_star)) if i in T_star else Fraction(0) for i in range(n)]
            s_h = [(1 - Fraction(1, t + 1)) * a + Fraction(1, t + 1) * b for a, b in zip(s_h, br)]
        ing = ref.comp_num_guesses(words, s_h)
        sum_ng = [a + b for a, b in zip(sum_ng, ing)]
        ang = [Fraction(x, t + 1) for x in sum_ng]
        eps_h = max(ang) - sum(a * s for a, s in zip(ang, s_h))
        eps_g = -sum(i * s for i, s in zip(ing, s_h)) + sum(a * s for a, s in zip(ang, s_h))
        assert fp.member_guesses[t].tolist() == ing
        assert fp.eps[t][0] == pytest.approx(float(eps_h), abs=1e-9)
        assert fp.eps[t][1] == pytest.approx(float(eps_g), abs=1e-9)


def test_restricted_game_lp_matches_hider_side_lp_and_brute_force():
    from scipy.optimize import linprog

    rng = np.random.default_rng(5)
    G = rng.integers(2, 10, size=(9, 4)).astype(np.uint8)
    x, value, y = restricted_game(G)
    # the hider's side solved independently: maximise v s.t. y^T G[:, c] >= v, y in the simplex
    D, C = G.shape
    res = linprog(np.r_[np.zeros(D), -1.0], A_ub=np.hstack([-G.T.astype(float), np.ones((C, 1))]),
                  b_ub=np.zeros(C), A_eq=np.r_[np.ones(D), 0.0][None, :], b_eq=[1.0],
                  bounds=[(0, None)] * D + [(None, None)], method="highs")
    assert value == pytest.approx(-res.fun, abs=1e-9)
    assert (G.astype(float) @ x).max() == pytest.approx(value, abs=1e-9)
    assert (y @ G.astype(float)).min() == pytest.approx(value, abs=1e-7)
    # brute force over a grid of mixtures of the columns can never beat the LP
    grid = [np.array(w) / 6 for w in np.ndindex(7, 7, 7, 7) if sum(w) == 6]
    assert min((G.astype(float) @ w).max() for w in grid) >= value - 1e-9


def test_guarantee_is_exact_worst_word_against_the_mixture():
    d, o = tiny(3, 20, 21)
    rng = np.random.default_rng(2)
    hiders = [o.uniform, rng.dirichlet(np.ones(d.size)), rng.dirichlet(np.ones(d.size) * 0.3)]
    G = np.stack([o.tree(h).guesses for h in hiders], axis=1)
    x, value, _ = restricted_game(G)
    words = list(d.words)
    exact = [ref.comp_num_guesses(words, [Fraction(float(v)) for v in h]) for h in hiders]
    per_word = [sum(float(x[c]) * exact[c][i] for c in range(len(hiders))) for i in range(d.size)]
    assert value == pytest.approx(max(per_word), abs=1e-9)
