"""The Hedge hider against GuesserGBR: its hiders by the rule written out by hand, its columns the greedy
trees, Hedge's regret bound, and the restricted game over its columns."""
import io
import math

import numpy as np
import pytest

from games.jotto.dictionary import load_dictionary
from games.jotto.oracle import GBR, JottoOracle
from games.jotto.solvers import HedgeState, restricted_game, solve_hedge
from tests.games.test_jotto_oracle import tiny


@pytest.mark.parametrize("length,n,seed,eta", [(3, 18, 1, 0.3), (4, 20, 3, 1.0), (5, 22, 4, 0.05)])
def test_hiders_follow_the_rule_and_columns_are_greedy_trees(length, n, seed, eta):
    d, o = tiny(length, n, seed)
    T = 15
    s = solve_hedge(o, T, eta)
    sums = [0] * n
    for t in range(T):
        # exp(eta * (S_i - max S)) / sum, from the integer sums of the columns before t
        top = max(sums)
        z = [math.exp(eta * (x - top)) for x in sums]
        want = [x / sum(z) for x in z]
        assert s.hiders[t] == pytest.approx(want, rel=1e-12)
        assert s.columns[t].tolist() == o.tree(s.hiders[t], GBR).guesses.tolist()
        sums = [a + int(b) for a, b in zip(sums, s.columns[t])]
    assert s.t == T and np.array_equal(s.sum_guesses(), sums)


def test_regret_within_hedge_bound():
    """Hedge's guarantee for any sequence of payoff vectors in [lo, hi] (Freund & Schapire): the best
    fixed word's total minus the hiders' expected total is at most ln(D) / eta + eta T (hi - lo)^2 / 8."""
    o = JottoOracle(load_dictionary("jotto-en_US80-2-ganzfried"))
    T, eta = 60, 0.2
    s = solve_hedge(o, T, eta)
    G = np.array(s.columns, dtype=np.float64)
    earned = sum(float(h @ g) for h, g in zip(s.hiders, G))
    regret = G.sum(axis=0).max() - earned
    span = G.max() - G.min()
    assert regret <= math.log(o.D) / eta + eta * T * span ** 2 / 8
    # and the guesser side: the restricted game over the columns never guarantees more than their average
    _, guarantee, _ = restricted_game(G.T.astype(np.uint8))
    assert guarantee <= G.mean(axis=0).max() + 1e-9


def test_resumed_hedge_equals_uninterrupted():
    o = JottoOracle(load_dictionary("jotto-en_US80-2-ganzfried"))
    whole = solve_hedge(o, 20, 0.3)
    buf = io.BytesIO()
    np.savez(buf, **solve_hedge(o, 7, 0.3).to_arrays())
    buf.seek(0)
    with np.load(buf) as z:
        part = HedgeState.from_arrays({k: z[k] for k in z.files})
    resumed = solve_hedge(o, 20, 0.3, part)
    a, b = whole.to_arrays(), resumed.to_arrays()
    for k in a:
        if k != "seconds":
            assert np.array_equal(a[k], b[k]), k
    with pytest.raises(ValueError, match="eta"):
        solve_hedge(o, 25, 0.5, resumed)


def test_robust_hider_minimises_the_larger_lower_bound():
    from games.jotto.solvers import select_robust_hider

    # the larger of the two bounds decides: 0.30, 0.22, 0.25 -> the second
    assert select_robust_hider([0.01, 0.10, 0.05], [0.30, 0.22, 0.25]) == 1
    # within the tolerance of the least, the lower epsilon against GBR: 0.2159 vs 0.2161 (GBR 0.1035 vs 0.0425)
    assert select_robust_hider([0.1035, 0.0425, 0.0028], [0.2159, 0.2161, 0.3736]) == 1
    assert select_robust_hider([0.1035, 0.0425], [0.2159, 0.2161], tolerance=0.0) == 0
    # the GBR epsilon can be the larger bound too
    assert select_robust_hider([0.5, 0.1], [0.2, 0.3]) == 1


def test_eta_must_be_positive():
    o = JottoOracle(load_dictionary("jotto-en_US80-2-ganzfried"))
    for eta in (0.0, -0.3):
        with pytest.raises(ValueError, match="eta must be positive"):
            solve_hedge(o, 3, eta)
