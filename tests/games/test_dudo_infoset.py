"""Abstract information sets: the ID encoding and the paper's Fig. 1 counts."""
import itertools
import random

import pytest

from games.dudo.abstraction import infoset as I
from games.dudo.rules import num_rolls

FIG1A = {1: 57626, 2: 2069336, 3: 21828536, 4: 380033636, 5: 2751474854}
FIG1B = [[1794, 5928, 13950, 27156, 43056],
         [20748, 48825, 95046, 163947, 241962],
         [130200, 253456, 437192, 693504, 971264],
         [570276, 983682, 1560384, 2327598, 3132108],
         [159012, 217224, 284508, 360864, 9084852]]


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5])
def test_fig1a_totals(m):
    assert sum(I.paper_infoset_count(o, p, m) for o in range(1, 6) for p in range(1, 6)) == FIG1A[m]


def test_fig1b_cells():
    for o in range(1, 6):
        for p in range(1, 6):
            assert I.paper_infoset_count(o, p, 3) == FIG1B[o - 1][p - 1], (o, p)


def _paper_count_by_decoding(o, p, m):
    """Count the IDs of a block by decoding each one and applying the paper's parity rule."""
    off, size = I.block_offsets(m)[(o, p)]
    par = I.paper_window_parity(o, p)
    n = 0
    for iid in range(off, off + size):
        own, opp, roll, w = I.decode_infoset_id(iid, m)
        assert (own, opp, len(roll)) == (o, p, o)
        if par is None or (len(w) % 2 == 1) == (par == "odd"):
            n += 1
    return n


@pytest.mark.parametrize("o,p", [(1, 1), (1, 2), (2, 1), (1, 5)])
def test_fig1b_by_decoding_ids(o, p):
    assert _paper_count_by_decoding(o, p, 3) == FIG1B[o - 1][p - 1]


def test_id_round_trip_and_density():
    rng = random.Random(1)
    total = I.num_infosets(3)
    assert total == sum(num_rolls(o) * I.num_windows(6 * (o + p), 3)
                        for o in range(1, 6) for p in range(1, 6))
    for _ in range(300):
        iid = rng.randrange(total)
        o, p, roll, w = I.decode_infoset_id(iid, 3)
        assert I.infoset_id(o, p, roll, list(w), 3) == iid
    # only the last m claims matter; roll order does not
    assert I.infoset_id(2, 2, (5, 1), [0, 3, 7, 9], 3) == I.infoset_id(2, 2, (1, 5), [3, 7, 9], 3)
    assert I.infoset_id(2, 2, (5, 1), [0, 3, 7, 9], 3) != I.infoset_id(2, 2, (5, 1), [0, 3, 7], 3)
    # perfect recall keeps the whole history
    assert I.infoset_id(1, 1, (3,), [0, 3, 7, 9], None) != I.infoset_id(1, 1, (3,), [3, 7, 9], None)


def test_window_index_is_dense():
    K = 12
    seen = set()
    for k in range(4):
        for w in itertools.combinations(range(K), k):
            seen.add(I.window_index(w, K))
    assert seen == set(range(I.num_windows(K, 3)))


def test_reachable_counts_by_enumerating_histories():
    # max_dice = 2, round (2, 1) is the only one with a 2-vs-1 split: the 2-dice player opens
    # (moves after an even number of claims), the 1-die player moves after an odd number.
    D, K, m = 3, 18, 3
    seen = {0: set(), 1: set()}
    stack = [()]
    while stack:
        h = stack.pop()
        seen[len(h) % 2].add(h[-m:])
        for c in range((h[-1] + 1) if h else 0, K):
            stack.append(h + (c,))
    assert len(seen[1]) * num_rolls(1) == I.reachable_infoset_count(1, 2, m, max_dice=2)
    assert len(seen[0]) * num_rolls(2) == I.reachable_infoset_count(2, 1, m, max_dice=2)
    # the paper's parity halving misses 3-claim windows after 4, 6, ... claims
    assert I.reachable_infoset_count(2, 1, m, max_dice=2) > I.paper_infoset_count(2, 1, m, max_dice=2)
    assert I.reachable_infoset_count(1, 2, m, max_dice=2) == I.paper_infoset_count(1, 2, m, max_dice=2)


def test_window_tables_children():
    last, size, act_off, child = I.window_tables(12, 3)
    for wi in range(I.num_windows(12, 3)):
        w = I.window_from_index(wi, 12)
        for j in range(1, 12 - last[wi]):
            c = last[wi] + j
            assert I.window_from_index(int(child[act_off[wi] + j]), 12) == (w + (c,))[-3:]
