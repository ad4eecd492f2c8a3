"""research.dudo_search5's claims_cover against closed forms: a uniform strategy needs ceil(q x claims) claims to
hold a share q of the claim mass; a strategy on one claim needs one."""
import math

import numpy as np

from research.dudo_search5 import claims_cover
from games.dudo.abstraction.dag import make_group


def _uniform_and_single(g):
    uni = np.zeros(g.nrows)
    one = np.zeros(g.nrows)
    expect_uni, windows = [], 0
    for s in range(g.nsides):
        n = int(g.ns[s])
        for w in range(g.NW):
            na = g.K - int(g.last[w])
            base = int(g.rbase[s] + g.act_off[w] * n)
            rows = uni[base:base + na * n].reshape(na, n)
            rows[:] = 1.0 / na
            one[base + (na - 1) * n:base + na * n] = 1.0   # every roll plays the strongest claim
            if na > 8:
                expect_uni.append(na - 1)
                windows += 1
    return uni, one, np.array(expect_uni), windows


def test_cover_of_uniform_and_single_claim_strategies():
    g = make_group(1, 2, 1, {(1, 1): 0.5})
    uni, one, claims, windows = _uniform_and_single(g)
    assert windows > 0
    for q in (0.5, 0.9, 0.99):
        got = claims_cover(g, uni, q)
        assert got.size == windows
        assert np.array_equal(got, [math.ceil(q * c - 1e-9) for c in claims])
        assert np.all(claims_cover(g, one, q) == 1)
