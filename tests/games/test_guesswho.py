"""Guess Who (race to one): exact DP against brute force and the closed values of NOTES.md."""
from fractions import Fraction

import numpy as np
import pytest

from games.guesswho import (
    Bisection, ExactOptimal, GuessWhoGame, Parametric, RandomBaseline, brute_force_value, match_value,
    optimal_bid, optimal_value,
)


def test_closed_values_24():
    assert optimal_value(24, 24) == Fraction(91, 144)
    assert match_value(Bisection(), Bisection(), 24) == Fraction(7, 9)
    assert match_value(Bisection(), ExactOptimal(), 24) == Fraction(7, 12)
    # the optimal policy as first mover against an optimal opponent attains the DP value
    assert match_value(ExactOptimal(), ExactOptimal(), 24) == Fraction(91, 144)


@pytest.mark.parametrize("n", range(2, 8))
def test_dp_matches_brute_force(n):
    for m in range(2, 8):
        assert optimal_value(n, m) == brute_force_value(n, m), (n, m)


def test_optimal_bid_attains_value_and_is_not_beaten():
    for n in range(2, 13):
        for m in range(2, 13):
            k = optimal_bid(n, m)
            assert 1 <= k <= n // 2
    # against the optimal policy, no deterministic family member does better than the game value
    for theta in [(10, 0, .5, -1), (-10, -.1, .5, -1), (0, 0, .3, 1), (1, 1, .7, -1)]:
        assert match_value(Parametric(theta), ExactOptimal(), 24) <= Fraction(91, 144)
        assert 1 - match_value(ExactOptimal(), Parametric(theta), 24) <= 1 - Fraction(91, 144)


def test_family_contains_bisection_and_bold_optimum():
    bis, nica = Parametric.bisection(), Parametric.nica()
    for n in range(2, 25):
        for m in range(2, 25):
            assert bis.bid(n, m) == n // 2
    # "bold when behind": bid a power of two; as good as the DP optimum in both seats
    assert nica.bid(24, 3) == 2 and nica.bid(24, 5) == 4 and nica.bid(24, 9) == 8
    assert match_value(nica, ExactOptimal(), 24) == Fraction(91, 144)
    assert match_value(ExactOptimal(), nica, 24) == Fraction(91, 144)


def test_sampled_games_agree_with_exact_value():
    game = GuessWhoGame(24)
    rng = np.random.Generator(np.random.PCG64(1))
    wins = sum(game.play(Bisection(), ExactOptimal(), rng) for _ in range(4000))
    # 7/12 = 0.5833; 4000 games: sd 0.0078, allow 4.5 sd
    assert abs(wins / 4000 - 7 / 12) < 0.035
    # random splits lose clearly to the optimum
    wins = sum(game.play(RandomBaseline(), ExactOptimal(), rng) for _ in range(2000))
    assert wins / 2000 < 0.5
