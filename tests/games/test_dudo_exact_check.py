"""The exact figures a Dudo store states (value, each seat's perfect-recall best response, exploitability)
are to be checked by an independent computation (games.dudo.exact_check: the paper's rules, every claim
history walked in plain numpy); here the independent code itself is checked: its claim order and challenge
outcomes against the paper, its best response against the sequence-form LP's equilibrium of 1v1."""
import numpy as np
import pytest

from games.dudo import exact_check as xc
from games.dudo.rules import claim_table


def test_claim_order_is_the_papers():
    # the paper's table for 2 players with 1 die each (strengths 0..11)
    assert xc.claim_order(2) == [(1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (1, 1),
                                 (2, 2), (2, 3), (2, 4), (2, 5), (2, 6), (2, 1)]
    six = xc.claim_order(6)     # "1x1, 2x1 and 3x1 immediately precede 2x2, 4x2 and 6x2"
    for k in (1, 2, 3):
        assert six.index((2 * k, 2)) == six.index((k, 1)) + 1
    for D in range(2, 11):
        order = xc.claim_order(D)
        assert sorted(order) == sorted((n, r) for n in range(1, D + 1) for r in range(1, 7))
        assert order == list(claim_table(D))        # the order the store's claim strengths use


def test_challenge_outcomes_are_the_papers():
    # Cal challenges Bob's 7x6: 10 count -> Cal loses 3; 5 -> Bob loses 2; 7 -> Cal loses 1; the winner opens
    assert xc.after_challenge(5, 5, 7, 10) == (False, 5, 2)
    assert xc.after_challenge(5, 5, 7, 5) == (True, 5, 3)
    assert xc.after_challenge(5, 5, 7, 7) == (False, 5, 4)
    assert xc.counting((1, 2, 6, 6), 6) == 3 and xc.counting((1, 2, 6, 6), 1) == 1
    assert sum(xc.roll_probability(r) for r in xc.rolls_of(3)) == pytest.approx(1.0, abs=1e-15)


def test_a_best_response_to_the_lp_equilibrium_gains_nothing():
    """The opener's sequence-form LP strategy of 1v1 (games.dudo.lp, exact) guarantees the game value:
    the independent perfect-recall best responder in the other seat wins exactly 1 - value."""
    from games.dudo.lp import sequence_form_value
    v, plan = sequence_form_value(1, 1)
    assert v == pytest.approx(-7 / 258, abs=1e-9)

    def lp_policy(own, opp, hist):
        last = hist[-1] if hist else -1
        P = np.zeros((12 - last, 6))
        for x in range(6):
            parent = plan[(x, hist[:-2], hist[-2])] if len(hist) >= 2 else 1.0
            for j in range(1 if last < 0 else 0, 12 - last):
                P[j, x] = plan.get((x, hist, -1 if j == 0 else last + j), 0.0) / parent if parent > 1e-12 else 0.0
        return P

    W = 0.5 * (1 - 7 / 258)
    assert xc.best_response(1, 1, 1, lp_policy, {}, {}) == pytest.approx(1 - W, abs=1e-7)
    # and a responder gains against a strategy that is not an equilibrium: uniform claims, never Dudo
    def naive(own, opp, hist):
        last = hist[-1] if hist else -1
        P = np.zeros((12 - last, 6))
        P[1:] = 1.0 / max(1, 11 - last)
        if last == 11:
            P[0] = 1.0
        return P
    assert xc.best_response(1, 1, 1, naive, {}, {}) > 1 - W + 0.1
