"""Empirical Bernstein race and the arena: error rate on equal players, separation, reproducibility."""
import math

import numpy as np

from builder.evaluation.arena import match, play_games
from games.guesswho import Bisection, ExactOptimal, GuessWhoGame, RandomBaseline
from builder.evaluation.race import BETTER, NOT_SEPARABLE, WORSE, BernsteinRace, bernstein_radius


def test_radius_shrinks_and_covers_range():
    assert bernstein_radius(1, 0.25, 0.05) > 1
    assert bernstein_radius(10_000, 0.25, 0.05) < bernstein_radius(1000, 0.25, 0.05) < 0.2


def test_equal_coins_rarely_separated():
    """50 races between two fair coins (delta 0.1): a verdict is an error; expect about <= 5."""
    rng = np.random.Generator(np.random.PCG64(123))
    wrong = 0
    for _ in range(50):
        race = BernsteinRace(delta=0.1, cap=400)
        while not race.done:
            race.add(float(rng.random() < 0.5))
        wrong += race.verdict != NOT_SEPARABLE
    assert wrong <= 10  # P(Binomial(50, 0.1) > 10) < 0.01, and the race is conservative


def test_equal_strategies_in_the_arena_rarely_separated():
    """Same strategy both sides (seats alternate: 7/9 for the first mover): 50 capped races, delta 0.1."""
    game = GuessWhoGame(24)
    verdicts = [match(game, Bisection(), Bisection(), seed=s, delta=0.1, cap=300).verdict for s in range(50)]
    assert sum(v != NOT_SEPARABLE for v in verdicts) <= 10


def test_clearly_different_strategies_are_separated_in_the_right_direction():
    game = GuessWhoGame(24)
    r = match(game, ExactOptimal(), RandomBaseline(), seed=1, delta=0.05, cap=20_000)
    assert r.verdict == BETTER and r.low > 0.5
    r = match(game, RandomBaseline(), ExactOptimal(), seed=2, delta=0.05, cap=20_000)
    assert r.verdict == WORSE and r.high < 0.5


def test_race_stops_at_cap_when_undecided():
    race = BernsteinRace(delta=0.05, cap=10)
    for x in [1, 0] * 5:
        race.add(x)
    r = race.result()
    assert r.verdict == NOT_SEPARABLE and r.games == 10 and math.isclose(r.score, 0.5)


def test_reproducible_and_worker_independent():
    game = GuessWhoGame(24)
    a = match(game, ExactOptimal(), Bisection(), seed=7, delta=0.05, cap=1500, workers=1, batch=50)
    b = match(game, ExactOptimal(), Bisection(), seed=7, delta=0.05, cap=1500, workers=2, batch=50)
    assert (a.verdict, a.games, a.score, a.wins) == (b.verdict, b.games, b.score, b.wins)
    assert play_games(game, Bisection(), RandomBaseline(), 3, 0, 50) == play_games(game, Bisection(), RandomBaseline(), 3, 0, 50)
    assert play_games(game, Bisection(), RandomBaseline(), 3, 0, 50) != play_games(game, Bisection(), RandomBaseline(), 4, 0, 50)
