"""Fixed-point distributions (games.quantise): exact sums, zero actions dropped, an independent
exact-rational largest-remainder rounding, stability under perturbations far below one unit."""
from fractions import Fraction

import numpy as np
import pytest

from games.quantise import UNIT, quantise


def exact_largest_remainder(p):
    """Largest remainder in exact rationals (ties: larger share, then lower index)."""
    tot = sum(Fraction(x) for x in p)
    x = [Fraction(v) * UNIT / tot for v in p]
    units = [int(v) for v in x]
    order = sorted(range(len(p)), key=lambda i: (-(x[i] - units[i]), -x[i], i))
    for i in order[:UNIT - sum(units)]:
        units[i] += 1
    return units


def random_distributions(rng, count):
    for _ in range(count):
        k = int(rng.integers(1, 62))
        p = rng.random(k) ** 3 * (rng.random(k) < 0.6)
        if p.sum() == 0:
            p[rng.integers(k)] = 1.0
        yield p / p.sum()


def test_units_sum_exactly_match_exact_rounding_and_give_zero_nothing():
    rng = np.random.default_rng(0)
    for p in random_distributions(rng, 500):
        u = quantise(p)
        assert u.sum() == UNIT and (u >= 0).all()
        assert u.tolist() == exact_largest_remainder(p)
        assert (u[p == 0] == 0).all()                          # a zero action never gets a unit
        assert (np.abs(u - p * UNIT) < 1).all()                # within one unit of the probability


def test_stable_under_perturbation_far_below_one_unit():
    rng = np.random.default_rng(1)
    for p in random_distributions(rng, 500):
        q = p * (1 + rng.uniform(-1e-12, 1e-12, p.size))      # another machine's rounding, 1e-7 units
        assert quantise(q).tolist() == quantise(p).tolist()


def test_edge_cases():
    assert quantise([1.0]).tolist() == [UNIT]
    assert quantise([1, 1, 1]).tolist() == [21846, 21845, 21845]
    assert quantise([0.0, 0.0]).tolist() == [UNIT // 2, UNIT // 2]     # all zero: uniform
    with pytest.raises(ValueError):
        quantise([0.5, -0.1])
