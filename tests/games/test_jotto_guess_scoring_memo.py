"""The Jotto review's caches (games/jotto/guess_scoring_memo.py, games/jotto/guess_scoring.py) against the direct
computations: the memoised greedy tree cost against kernels.tree_cost and the literal GBR guesser replayed
per secret (tests/games/jotto_reference.py), the exact value without the full tree against ExactSolver.solve,
and a whole review against a plain review written here (no cache, every child's tree walked afresh)."""
from fractions import Fraction

import numpy as np
import pytest

from games.jotto import kernels, guess_scoring_memo
from games.jotto.dictionary import Variant, dictionary_from_words
from games.jotto.exact import ExactSolver
from games.jotto.oracle import ENTROPY, GBR, JottoOracle
from games.jotto.guess_scoring import EXACT_NODES, EXACT_WORDS, WIDTH, Turn, Valuer, review_turns
from tests.games import jotto_reference as ref
from tests.games.test_jotto_oracle import tiny


@pytest.mark.parametrize("length,n,seed", [(5, 60, 1), (3, 40, 2), (2, 30, 3)])
def test_memo_cost_equals_tree_cost_and_the_replayed_guesser(length, n, seed):
    """One memo shared by every call (so later calls hit nodes earlier ones walked): each set's cost equals
    kernels.tree_cost's and, on the small sets, the literal GBR guesser replayed per secret word."""
    d, o = tiny(length, n, seed)
    words = list(d.words)
    rng = np.random.default_rng(seed)
    k1, k2 = guess_scoring_memo.zobrist(n)
    for w in (np.ones(n), rng.integers(0, 4, size=n).astype(np.float64)):
        memo = guess_scoring_memo.new_memo()
        stats = np.zeros(2, dtype=np.int64)
        in_S = np.zeros(n, dtype=np.bool_)
        acc_c, acc_h = np.zeros((n, o.L + 1), dtype=np.int64), np.zeros((n, o.L + 1))
        replayed = 0
        for trial in range(60):
            size = int(rng.integers(1, n + 1))
            T = np.sort(rng.choice(n, size=size, replace=False)).astype(np.int32)
            got = guess_scoring_memo.memo_cost(o.C, o.counts, T, w, o.all_words, o.L, GBR, k1, k2, memo, in_S, stats,
                                           acc_c, acc_h)
            direct = kernels.tree_cost(o.C, o.counts, T, w, w, o.all_words, o.L, GBR, np.zeros(n, dtype=np.int32))
            assert got == pytest.approx(direct, rel=1e-12, abs=1e-12)
            if size <= 12:
                # integer weights: the kernel's sums are exact, so its cost is the replayed one exactly
                assert got == ref.replay_cost(words, [Fraction(int(x)) for x in w], [Fraction(int(x)) for x in w],
                                              set(T.tolist()))
                replayed += 1
            assert not in_S.any()
        assert replayed >= 5 and stats[1] > 0  # the memo was used


@pytest.mark.parametrize("length,n,seed", [(5, 200, 4), (3, 120, 5), (2, 60, 6)])
def test_choose_guess_wide_chooses_as_choose_guess(length, n, seed):
    """The all-test-words-at-once choice is choose_guess's word on random sets, for GBR and entropy, every word a
    candidate and a subset (the two-word rule applies only to the first), with integer weights (many exact ties,
    so the tie-break is exercised), real weights, no weight on the set (uniform fallback), and uniform weights;
    and the literal Alg. 1 on the small sets."""
    d, o = tiny(length, n, seed)
    words = list(d.words)
    rng = np.random.default_rng(seed)
    acc_c, acc_h = kernels.new_tables(n, o.L)
    some = np.sort(rng.choice(n, size=n // 2, replace=False)).astype(np.int32)
    two = 0
    for trial in range(160):
        size = 2 if trial % 5 == 0 else int(rng.integers(1, n + 1))
        T = np.sort(rng.choice(n, size=size, replace=False)).astype(np.int32)
        h = [rng.integers(0, 4, size=n).astype(np.float64), rng.random(n), np.ones(n)][trial % 3]
        if trial % 7 == 0:
            h[T] = 0.0
        in_S = np.zeros(n, dtype=np.bool_)
        in_S[T] = True
        kind = GBR if trial % 4 else ENTROPY
        cands = o.all_words if trial % 8 < 6 else some
        got = kernels.choose_guess_wide(o.C, T, in_S, h, cands, o.L, kind, acc_c, acc_h)
        assert got == kernels.choose_guess(o.C, T, in_S, h, cands, o.L, kind)
        two += T.size == 2 and kind == GBR
        if T.size <= 10 and kind == GBR and cands is o.all_words and trial % 3 != 1:
            assert got == ref.guesser_gbr(words, [Fraction(int(x)) for x in h], set(T.tolist()))
    assert two >= 10


def test_two_word_rule_holds_for_anagrams():
    """Two consistent anagrams (every test word scores them alike): choose_guess's tie-break gives the lower index,
    as the wide choice's two-word rule does; and two words that are not anagrams."""
    words = ["act", "bat", "cat", "dog", "god", "sun", "tab", "zip"]
    d = dictionary_from_words(Variant("file.x", 3, "all"), words)
    o = JottoOracle(d)
    acc_c, acc_h = kernels.new_tables(len(words), o.L)
    for pair in ((0, 2), (3, 4), (1, 6), (0, 5), (2, 7)):
        T = np.array(pair, dtype=np.int32)
        in_S = np.zeros(len(words), dtype=np.bool_)
        in_S[T] = True
        for h in (np.ones(len(words)), np.arange(len(words), dtype=np.float64)[::-1].copy()):
            assert kernels.choose_guess(o.C, T, in_S, h, o.all_words, o.L, GBR) == pair[0]
            got = kernels.choose_guess_wide(o.C, T[::-1].copy(), in_S, h, o.all_words, o.L, GBR, acc_c, acc_h)
            assert got == pair[0]


def _plain_values(o, w_full, S, played):
    """The review's values at S computed directly: ExactSolver.solve at S and at every child (exact), or
    kernels.rollout_picks and a fresh kernels.tree_cost per child (greedy)."""
    D = o.D
    w = np.zeros(D)
    w[S] = w_full[S]
    if w.sum() <= 0:
        w[S] = 1.0
    W = float(w[S].sum())
    solver = ExactSolver(o.C, o.L)

    def children(g):
        rest = S[S != g]
        return [rest[o.C[g][rest] == a] for a in range(o.L + 1)]

    if S.size <= EXACT_WORDS:
        h = np.zeros(D)
        h[S] = w[S]
        r = solver.solve(h, max_nodes=EXACT_NODES)
        if r is not None:
            out = {}
            for g in dict.fromkeys([played, r.first]):
                tot = W
                for T in children(g):
                    if T.size and w[T].sum() > 0:
                        hT = np.zeros(D)
                        hT[T] = w[T]
                        tot += solver.solve(hT).value * float(w[T].sum())
                out[g] = tot / W
            return "exact", out
    in_S = np.zeros(D, dtype=np.bool_)
    in_S[S] = True
    picks = kernels.rollout_picks(o.C, o.counts, S.astype(np.int32), in_S, w, o.all_words, o.L, GBR, WIDTH)
    out = {}
    for g in dict.fromkeys([played] + [int(x) for x in picks]):
        tot = W
        for T in children(g):
            tot += kernels.tree_cost(o.C, o.counts, T.astype(np.int32), w, w, o.all_words, o.L, GBR,
                                     np.zeros(D, dtype=np.int32))
        out[g] = tot / W
    return "greedy", out


def _random_game(o, hider, rng):
    """Random test words until at most two words are left, then the secret (drawn from the hider)."""
    n = o.D
    secret = int(rng.choice(np.flatnonzero(hider > 0)))
    turns, S = [], np.arange(n)
    while True:
        g = secret if S.size <= 2 else int(rng.choice(np.setdiff1d(np.arange(n), [t.word for t in turns])))
        a = int(o.C[g, secret])
        turns.append(Turn(g, a, g == secret))
        if g == secret:
            return turns
        S = S[(o.C[g][S] == a) & (S != g)]


@pytest.mark.parametrize("length,n,seed,flat", [(5, 90, 7, False), (4, 70, 8, False), (5, 80, 9, True)])
def test_review_equals_the_plain_computation(length, n, seed, flat):
    """Games of random test words on a random list (a random hider with zeros; or one uniform on its
    support, where the served values are taken from the uniform valuer), reviewed one after another with the
    same valuers (as a live worker keeps them; the second and third find the first's caches, the third after
    the caches' bound made them start afresh): every value reported, the best word's and the alternatives',
    equals the plain computation's, state by state."""
    d, o = tiny(length, n, seed)
    rng = np.random.default_rng(seed)
    hider = (np.ones(n) if flat else rng.random(n)) * (rng.random(n) < 0.8)
    valuers = (Valuer(o, hider), Valuer(o, np.ones(n)))
    kinds = set()
    for game in range(3):
        turns = _random_game(o, hider, rng)
        if game == 2:
            for v in valuers:
                v.MEMO_ENTRIES = v.EXACT_ENTRIES = v.STATES = 1
        moves = review_turns(o, hider, turns, valuers)
        S = np.arange(n)
        for t, m in zip(turns, moves):
            for weights, value, best, alts in ((hider, m.value, m.best_value, m.alternatives),
                                               (np.ones(n), m.value_uniform, m.best_value_uniform, None)):
                kind, vals = _plain_values(o, weights, S, t.word)
                kinds.add(kind)
                assert kind in m.continuation
                assert value == pytest.approx(vals[t.word], rel=1e-12)
                assert best == pytest.approx(min(vals.values()), rel=1e-12)
                if alts is not None:
                    assert len(alts) == min(8, len(vals))
                    for word, v in alts:
                        assert v == pytest.approx(vals[d.index(word)], rel=1e-12)
            if not t.wins:
                S = S[(o.C[t.word][S] == t.jots) & (S != t.word)]
    assert kinds == {"exact", "greedy"}
    assert len(valuers[0].memo) + len(valuers[1].memo) > 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exact_value_is_solves_value_and_first_word(seed):
    d, o = tiny(5, 40, seed)
    rng = np.random.default_rng(seed)
    solver = ExactSolver(o.C, o.L)
    for trial in range(12):
        S = rng.choice(o.D, size=int(rng.integers(1, 11)), replace=False)
        h = np.zeros(o.D)
        h[S] = rng.integers(1, 5, size=S.size)
        r = solver.solve(h)
        assert solver.value(h) == (r.value, r.first)


def test_review_from_store_keeps_its_valuers_and_the_same_values(small_store):
    """The live task keeps the store's valuers from one review to the next (and at most VALUERS_KEPT): a game
    reviewed again after others gets the same reply as with new valuers."""
    from games.jotto import guess_scoring as jr
    from tests.conftest import SMALL_VARIANT
    from games.jotto.dictionary import load_dictionary
    from games.jotto.oracle import JottoOracle
    _, path = small_store
    o = JottoOracle(load_dictionary(SMALL_VARIANT))
    words = list(o.dictionary.words)
    rng = np.random.default_rng(3)
    games = []
    for _ in range(3):
        turns = _random_game(o, np.ones(o.D), rng)
        games.append(([(words[t.word], t.jots) for t in turns], words[turns[-1].word]))
    jr._VALUERS.clear()
    fresh = jr.review_from_store(str(path), "", *games[0])
    for g in games[1:]:
        jr.review_from_store(str(path), "", *g)
    kept = dict(jr._VALUERS)
    again = jr.review_from_store(str(path), "", *games[0])
    assert len(jr._VALUERS) == 2 and all(kept[k] is v for k, v in jr._VALUERS.items())
    assert again == fresh
    jr._VALUERS.clear()
