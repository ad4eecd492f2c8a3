"""Cauwet & Teytaud optimisers: reproducibility, the Nash mixture LP, improvement on Guess Who."""
from fractions import Fraction

import numpy as np
import pytest

from games.guesswho import Bisection, Parametric, match_value
from builder.evaluation.optimisers import METHODS, guesswho_problem, nash_mixture, nash_strategy, seeds


def _seat_avg(a, b):
    return (match_value(a, b, 24) + 1 - match_value(b, a, 24)) / 2


def test_nash_mixture_rock_paper_scissors():
    A = np.array([[0.5, 0, 1], [1, 0.5, 0], [0, 1, 0.5]])
    w, v = nash_mixture(A)
    assert np.allclose(w, 1 / 3, atol=1e-6) and abs(v - 0.5) < 1e-9
    # a dominant row takes all the weight
    w, v = nash_mixture(np.array([[0.5, 0.9], [0.1, 0.5]]))
    assert np.allclose(w, [1, 0]) and abs(v - 0.5) < 1e-9


@pytest.mark.parametrize("method", sorted(METHODS))
def test_reproducible_and_within_budget(method):
    p = guesswho_problem(24)
    a = METHODS[method](p, 6000, seed=3, cap=300)
    b = METHODS[method](p, 6000, seed=3, cap=300)
    assert a.trajectory == b.trajectory and a.best == b.best
    assert a.games <= 6000 + 2 * 300 * 4
    lo, hi = zip(*p.bounds)
    assert all(l <= x <= h for x, l, h in zip(a.best, lo, hi))


def test_iterative_from_bisection_finds_a_bold_policy():
    """Starting at bisection, the iterative method must end with a policy that beats bisection
    (checked exactly) - bisection is not a best response to itself (the bold bids gain)."""
    p = guesswho_problem(24)
    run = METHODS["iterative"](p, 60000, seed=5, cap=1000, start=Parametric.bisection().theta)
    assert _seat_avg(p.make(run.best), Bisection()) > Fraction(1, 2)


def test_seed_method_nash_mixture_is_a_distribution():
    p = guesswho_problem(24)
    run = seeds(p, 3000, seed=2, population=6)
    w = np.asarray(run.extra["nash_weights"])
    assert abs(w.sum() - 1) < 1e-9 and (w >= -1e-12).all()
    A = np.asarray(run.extra["average"])
    assert run.best == tuple(run.extra["points"][int(np.argmax(A))])
    assert nash_strategy(p, run).members


def test_hangman_problem_runs_reproducibly():
    from builder.evaluation.optimisers import problem_by_name

    p, refs = problem_by_name("hangman4")
    assert set(refs) == {"seed", "ours-default"}
    a = METHODS["approx_coevolution"](p, 60, seed=1, cap=20, population=2)
    b = METHODS["approx_coevolution"](p, 60, seed=1, cap=20, population=2)
    assert a.trajectory == b.trajectory and len(a.best) == p.dim
