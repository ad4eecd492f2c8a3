"""games.fixedmath: sums and exp whose bits are fixed by the source, checked against exact arithmetic and against
a plain-Python replay of the documented order (Python's floats are IEEE doubles: the same bits on every CPU)."""
import math
from fractions import Fraction

import numpy as np
import pytest

from games.fixedmath import _ATANH, _INV_LN2, _LN2_HI, _LN2_LO, _SQRT_HALF, _TAYLOR, dot, exp, log, log2, matvec


def _replay_dot(a, b):
    """Eight interleaved partial sums over whole blocks of eight, a fixed tree, then the rest in order."""
    s = [0.0] * 8
    n = len(a) - len(a) % 8
    for i in range(0, n, 8):
        for j in range(8):
            s[j] += float(a[i + j]) * float(b[i + j])
    t = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
    for i in range(n, len(a)):
        t += float(a[i]) * float(b[i])
    return t


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 64, 431, 1000])
def test_dot_is_the_documented_order_and_near_the_exact_sum(n):
    rng = np.random.default_rng(n)
    a, b = rng.random(n) - 0.3, rng.random(n)
    got = dot(a, b)
    assert got == _replay_dot(a, b)                                    # the same bits as the replay
    exact = sum((Fraction(x) * Fraction(y) for x, y in zip(a, b)), Fraction(0))
    assert abs(got - float(exact)) <= n * 2.3e-16 * float(sum(abs(Fraction(x) * Fraction(y)) for x, y in zip(a, b)))


def test_dot_and_matvec_take_integer_entries_and_say_what_is_wrong():
    g = np.arange(20, dtype=np.uint8).reshape(4, 5)
    w = np.array([0.5, 0.25, 0.125, 0.0625, 0.0625])
    assert matvec(g, w).tolist() == [_replay_dot(row, w) for row in g]
    assert dot(g[1], w) == _replay_dot(g[1], w)
    with pytest.raises(ValueError, match="3 and 5"):
        dot(np.ones(3), w)
    with pytest.raises(ValueError, match="matvec"):
        matvec(g, np.ones(4))


def _replay_exp(x):
    xc = min(max(x, -746.0), 710.0)
    k = math.floor(xc * _INV_LN2 + 0.5)
    r = (xc - k * _LN2_HI) - k * _LN2_LO
    p = _TAYLOR[0]
    for c in _TAYLOR[1:]:
        p = p * r + c
    try:
        return math.ldexp(p, k)
    except OverflowError:
        return math.inf


def test_exp_is_the_documented_steps_and_within_an_ulp_or_two():
    rng = np.random.default_rng(5)
    xs = np.concatenate([rng.uniform(-745, 709, 3000), -rng.exponential(3, 3000), rng.uniform(-1e-8, 1e-8, 200),
                         [0.0, 1.0, -1.0, 709.78, -745.13, -746.0, 800.0, -800.0, -np.inf, np.inf]])
    got = exp(xs)
    assert [float(v) for v in got] == [_replay_exp(float(x)) for x in xs]   # basic operations in a fixed order
    for x, v in zip(xs, got):
        want = math.exp(x) if x < 709.79 else math.inf
        if 2.3e-308 < want < math.inf:
            assert abs(v - want) <= 2 * math.ulp(want)
        else:
            assert v == want or abs(v - want) <= 2 * 5e-324
    assert np.isnan(exp(np.array([np.nan]))[0])


def _replay_log(x, base2=False):
    m, e = math.frexp(x)
    if m < _SQRT_HALF:
        m, e = m * 2.0, e - 1
    s = (m - 1.0) / (m + 1.0)
    z = s * s
    p = _ATANH[0]
    for c in _ATANH[1:]:
        p = p * z + c
    lm = 2.0 * s * p
    return e + lm * _INV_LN2 if base2 else e * _LN2_HI + (lm + e * _LN2_LO)


def test_log_is_the_documented_steps_and_within_a_few_ulps():
    rng = np.random.default_rng(7)
    xs = np.concatenate([rng.uniform(1e-300, 1, 2000), rng.uniform(0.5, 2, 2000), np.arange(1.0, 3000.0),
                         np.exp(rng.uniform(-700, 700, 2000)), [5e-324, 2.2e-308, 1.7e308, 1.0, 2.0, 0.5]])
    for f, base2, ref in ((log, False, math.log), (log2, True, math.log2)):
        got = f(xs)
        assert [float(v) for v in got] == [_replay_log(float(x), base2) for x in xs]
        for x, v in zip(xs, got):
            want = ref(x)
            assert abs(v - want) <= 4 * math.ulp(want) if want != 0 else v == 0.0
    assert log2(np.array([1024.0, 0.125])).tolist() == [10.0, -3.0]
    got = log(np.array([0.0, -1.0, np.inf, np.nan]))
    assert got[0] == -np.inf and np.isnan(got[1]) and got[2] == np.inf and np.isnan(got[3])
