"""The lookahead guesser (a rollout of the rollout guesser at the book's states) against literal replays,
the rollout guesser it must never lose to and the exact optimum it can never beat."""
from fractions import Fraction

import numpy as np
import pytest

from tests.games import jotto_reference as ref
from tests.games.test_jotto_exact import tiny
from games.jotto.dictionary import Variant, dictionary_from_words, load_dictionary
from games.jotto.exact import ExactSolver
from games.jotto.kernels import GBR, lookahead_guess, rollout_guess
from games.jotto.oracle import ROLLOUT, ROLLOUT_ENTROPY, JottoOracle, build_tree


@pytest.mark.parametrize("length,seed", [(2, 11), (3, 12), (3, 13)])
def test_lookahead_guess_minimises_the_literal_replay_of_the_rollout_guesser(length, seed):
    words, counts, C, weights = tiny(length, 8, seed)
    h = weights / weights.sum()
    n = len(words)
    cand = np.arange(n, dtype=np.int32)
    S = np.arange(n, dtype=np.int32)

    def rollout_oracle(_words, _h, state):
        st = np.array(sorted(state), dtype=np.int32)
        mask = np.zeros(n, dtype=bool)
        mask[st] = True
        return int(rollout_guess(C, counts, st, mask, h, h, cand, length, GBR, n))

    def cost(g):  # expected guesses (unnormalised) of playing g, then the rollout guesser, replayed per word
        parts = {}
        for s in range(n):
            if s != g:
                parts.setdefault(ref.num_comm_letts(words[g], words[s]), set()).add(s)
        return sum(Fraction(h[s]) for s in range(n)) + sum(ref.replay_cost(words, h, h, p, rollout_oracle)
                                                           for p in parts.values())

    g = lookahead_guess(C, counts, S, np.ones(n, dtype=bool), h, h, cand, length, GBR, n, n)
    assert float(cost(g)) == pytest.approx(min(float(cost(x)) for x in range(n)), abs=1e-9)


def test_lookahead_tree_is_the_strategy_played_and_between_the_optimum_and_the_rollout_guesser():
    d = load_dictionary("jotto-en_US80-2-ganzfried")
    o = JottoOracle(dictionary_from_words(Variant.parse(d.variant.name), list(d.words[:30])))
    rng = np.random.default_rng(5)
    big = 4
    for kind in (ROLLOUT, ROLLOUT_ENTROPY):
        h = rng.random(o.D) * (rng.random(o.D) < 0.8)
        h /= h.sum()
        tree = build_tree(o.C, o.counts, h, o.candidates(kind), o.L, kind, big, lookahead_width=6)
        book = {tuple(s): m for s, m in zip(tree.node_states, tree.node_moves)}
        assert all(len(s) > big for s in tree.node_states) and len(book) == len(tree.node_states)
        for secret in range(o.D):  # as served: the book above `big` words, the rollout guesser live below
            guesses, answers = [], []
            while True:
                state = o.consistent(guesses, answers)
                g = book[tuple(state)] if len(state) > big else o.move(state, h, kind)
                if g == secret:
                    break
                guesses.append(g)
                answers.append(int(o.C[g, secret]))
            assert tree.guesses[secret] == len(guesses) + 1
        rollout = o.tree(h, kind).guesses
        assert h @ tree.guesses <= h @ rollout + 1e-12
        if kind == ROLLOUT:  # every word a test word: the exact best response bounds it below
            exact = ExactSolver(o.C, o.L).solve(h)
            assert exact.value <= h @ tree.guesses + 1e-12
