"""Dudo rules: claim strength (paper's 1-vs-1 table and the rules' derivation), counting and
challenge outcomes."""
import pytest

from games.dudo import rules
from games.dudo.abstraction.dag import challenge_win_prob


def test_strength_matches_paper_one_vs_one_table():
    # Neller & Hnath, table after Eq. 1: strengths 0..11 with 2 dice in play
    paper = ["1x2", "1x3", "1x4", "1x5", "1x6", "1x1", "2x2", "2x3", "2x4", "2x5", "2x6", "2x1"]
    for s, text in enumerate(paper):
        n, r = map(int, text.split("x"))
        assert rules.strength(n, r, 2) == s
        assert rules.claim(s, 2) == (n, r)


def _order_from_rules(D):
    """Claim order built from the rules' wording: plain claims by count then rank; k x 1 is
    inserted immediately before 2k x 2 while 2k <= D; the other ones follow D x 6 by count."""
    order = [(n, r) for n in range(1, D + 1) for r in range(2, 7)]
    for k in range(1, D + 1):
        if 2 * k <= D:
            order.insert(order.index((2 * k, 2)), (k, 1))
    order += [(k, 1) for k in range(1, D + 1) if 2 * k > D]
    return order


@pytest.mark.parametrize("D", range(2, 11))
def test_strength_is_the_rules_order(D):
    order = _order_from_rules(D)
    assert len(order) == 6 * D
    assert [rules.strength(n, r, D) for n, r in order] == list(range(6 * D))
    assert list(rules.claim_table(D)) == order


def test_wild_claims_are_doubly_strong():
    # paper: 1x1, 2x1, 3x1 immediately precede 2x2, 4x2, 6x2 (with enough dice in play)
    D = 10
    for k in (1, 2, 3, 4, 5):
        assert rules.strength(k, 1, D) + 1 == rules.strength(2 * k, 2, D)
        assert rules.strength(k, 1, D) == rules.strength(2 * k - 1, 6, D) + 1
    # the remaining ones follow the strongest plain claim, by count
    assert rules.strength(6, 1, D) == rules.strength(10, 6, D) + 1
    assert rules.strength(10, 1, D) == 6 * D - 1


def test_printed_equation_is_wrong():
    # Eq. 1 as printed (5n - floor(n/2) - r - 7) is not the paper's own table
    printed = lambda n, r: 5 * n - n // 2 - r - 7
    assert printed(2, 2) != rules.strength(2, 2, 2)


def test_counting_ones_are_wild():
    _, fc, rc = rules.roll_arrays(3)
    i = rules.roll_index((1, 5, 5))
    assert rules.count_for(fc[i], 5) == 3 and rc[i, 4] == 3
    assert rules.count_for(fc[i], 1) == 1 and rc[i, 0] == 1
    assert rules.count_for(fc[i], 2) == 1


@pytest.mark.parametrize("claim_n,actual,expected", [
    (7, 10, ("challenger", 3)),   # paper's example: count exceeds the claim
    (7, 5, ("claimant", 2)),      # count below the claim
    (7, 7, ("challenger", 1)),    # exact claim: the challenger loses one die
    (1, 0, ("claimant", 1)),
    (1, 2, ("challenger", 1)),
])
def test_challenge_outcomes(claim_n, actual, expected):
    assert rules.challenge_outcome(claim_n, actual) == expected


def test_paper_transcript():
    # the example game of section 1.1: (claim, challenger roll, claimant roll, who loses, dice)
    rounds = [((5, 6), "23556", "12566", "claimant", 1),
              ((5, 5), "3555", "23455", "challenger", 1),
              ((3, 6), "356", "24466", "challenger", 1),
              ((3, 2), "13456", "12", "challenger", 1),
              ((3, 2), "26", "1222", "challenger", 2)]
    for (n, r), ch, cl, loser, k in rounds:
        fc = [0] * 6
        for f in ch + cl:
            fc[int(f) - 1] += 1
        assert rules.challenge_outcome(n, rules.count_for(fc, r)) == (loser, k)


def test_next_position_and_game_end():
    assert rules.next_position(3, 2, 4, 6) == ("claimant", 2, 1)
    assert rules.next_position(3, 2, 4, 1) == ("challenger", 3, -1)   # claimant is out
    assert rules.next_position(1, 2, 2, 2) == ("claimant", 2, 0)      # challenger is out


def test_challenge_win_prob_uses_continuation():
    W = {(2, 1): 0.8, (1, 2): 0.3}
    # challenger 2 dice, claimant 2 dice, claim 3, actual 3: challenger loses one die and the
    # claimant opens the next round (2 vs 1): challenger wins with 1 - W(2, 1)
    assert challenge_win_prob({**W, (2, 2): 0.5}, 2, 2, 3, 3) == pytest.approx(0.2)
    # claimant loses 1 die: challenger opens 2 vs 1
    assert challenge_win_prob(W, 2, 2, 3, 2) == pytest.approx(0.8)
    # claimant loses 2 dice: out, challenger has won
    assert challenge_win_prob(W, 2, 2, 3, 1) == 1.0
    # challenger loses 2 dice: out
    assert challenge_win_prob(W, 2, 2, 1, 3) == 0.0
