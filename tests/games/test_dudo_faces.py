"""Face memories (infoset.Faces: the last claims plus the faces of the claims before them): their windows
against the histories they abstract, and the solver, the exact best response and the store on them
against independent walks over claim histories."""
import random

import numpy as np
import pytest

from games.dudo.measure.bound import lift_strategy
from games.dudo.cost import window_actions
from games.dudo.measure.exploit import _resp_tables, best_response_value
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import (Faces, Schedule, claim_faces, dominates, face_window, history_window,
                                last_claims, memory_json, memory_plus, num_windows, parse_memory, window_index,
                                window_tables)
from games.dudo.rules import roll_arrays
from games.dudo.solvers.abstract_cfr import FastSolver
from tests.conftest import assert_served_rows_follow_the_dag, assert_solver_values_the_strategy_as_the_history_walk_does

W = {(1, 1): 0.486, (1, 2): 0.3, (2, 1): 0.7}


def test_a_face_memory_reads_and_writes_as_text_and_says_what_is_wrong():
    m = parse_memory("3-28-2+1f")
    assert m == Faces(Schedule((3, 2), (28,)), 1) and str(m) == "3-28-2+1f"
    assert parse_memory(memory_json(m)) == m and parse_memory("2+2f") == Faces(2, 2)
    assert memory_plus(Faces(2, 1), 1) == Faces(3, 1)
    assert parse_memory("3-28-2+1f28") == Faces(Schedule((3, 2), (28,)), 1, 28)
    assert str(Faces(Schedule((3, 2), (9,)), 1, 9)) == "3-9-2+1f9"
    for bad, why in (("2+f", "want MEMORY"), ("2+1", "want MEMORY"), ("2+4f", "1 to 3 faces"),
                     ("0+1f", "at least 1 claim"), ("2+1f3x", "want MEMORY"), ("2+1f5", "grow with the claim"),
                     ("3-28-2+2f28", "grow with the claim")):
        with pytest.raises(ValueError, match=why):
            parse_memory(bad)
    with pytest.raises(ValueError, match="index it by the history"):
        window_index((1, 2), 12, Faces(2, 1))


def _faces_before(hist, m):
    win = last_claims(hist, m)
    return win, hist[:len(hist) - len(win)][::-1][:m.f if hist and hist[-1] >= m.start else 0]


@pytest.mark.parametrize("K,text", [(12, "1+1f"), (12, "2+2f"), (18, "3-6-2+1f"), (24, "2+1f"), (12, "3-6-2+1f6"),
                                    (24, "4-8-3-12-2+1f12"), (24, "4-12-2+2f12")])
def test_face_windows_follow_every_history(K, text):
    m = parse_memory(text)
    last, size, act_off, child = window_tables(K, m)
    assert len(last) == num_windows(K, m) and int(act_off[-1]) == window_actions(K, m)
    face = [r for r in claim_faces(K)]
    if K == 12:     # every history: each window is reached, and by nothing else
        hists = [[c for c in range(K) if bits >> c & 1] for bits in range(1 << K)]
    else:
        rng = random.Random(K)
        hists = [sorted(rng.sample(range(K), rng.randint(0, min(K, 9)))) for _ in range(3000)]
    seen = set()
    for hist in hists:
        w = 0
        for c in hist:                      # the solver's tables walk the history claim by claim
            w = int(child[act_off[w] + c - last[w]])
        assert w == history_window(hist, K, m)
        win, before = _faces_before(hist, m)
        assert face_window(w, K, m) == (win, tuple(face[c] for c in before))
        assert last[w] == (hist[-1] if hist else -1) and size[w] == len(win)
        seen.add(w)
    if K == 12:
        assert seen == set(range(len(last)))


def test_the_endgame_finds_the_window_of_every_node_by_the_dag():
    """The endgame's blueprint window at each requester node (``endgame_windows_dag``, the layout's preorder)
    holds that node's last claims and the faces before them; the opponent's nodes get -1."""
    from games.dudo.search.endgame import endgame_windows_dag
    K, m = 24, parse_memory("3-12-2+1f12")
    face = claim_faces(K)
    root = [2, 9, 13, 15]
    _, _, act_off, child = window_tables(K, m)
    got = endgame_windows_dag(history_window(root, K, m), len(root), root[-1], False, K, act_off, child)
    want = []

    def walk(hist):              # depth first, claims in order; the requester did not open: it moves at odd k
        if len(hist) % 2 == 1:
            win, before = _faces_before(hist, m)
            want.append((win, tuple(face[c] for c in before)))
        else:
            want.append(None)
        for c in range(hist[-1] + 1, K):
            walk(hist + [c])
    walk(root)
    assert len(got) == len(want) == 1 << (K - 1 - root[-1])
    assert [None if w < 0 else face_window(w, K, m) for w in got.tolist()] == want


def test_what_a_face_memory_dominates():
    K = 24
    assert dominates(K, 3, Faces(2, 1)) and not dominates(K, Faces(2, 1), 3)
    assert dominates(K, Faces(2, 2), Faces(2, 1)) and dominates(K, Faces(2, 1), 2)
    assert dominates(K, Faces(3, 1), Faces(2, 2)) and not dominates(K, Faces(3, 1), Faces(2, 3))


def test_a_face_strategy_is_not_lifted_to_a_memory_that_forgets_its_faces():
    g = make_group(1, 1, Faces(1, 1), W)
    with pytest.raises(ValueError, match="does not remember"):
        lift_strategy(g, np.zeros(g.nrows), make_group(1, 1, 1, W), [0], [0])


def _solved(a, b, m, its=60):
    g = make_group(a, b, m, W)
    return g, FastSolver(g).solve(its, progress=False).average_strategy()


def test_the_solver_values_a_face_strategy_as_a_walk_over_every_history_does():
    assert_solver_values_the_strategy_as_the_history_walk_does(*_solved(1, 1, parse_memory("1+1f")))


def _walked_best_response(g, st, resp_first, resp_open, resp_other):
    """The perfect-recall responder's value (1v1, one side), walking every history in Python and looking
    the fixed player's distribution up by ``history_window``."""
    T_resp, T_fix = _resp_tables(g, 0, 0, resp_open, resp_other)
    p, _, rc = roll_arrays(1)
    n = p.size

    def walk(hist, reach):          # -> responder's value per roll, weighted by the fixed player's reach
        k, L = len(hist), (hist[-1] if hist else -1)
        resp_moves = (k % 2 == 0) == resp_first
        w = history_window(hist, g.K, g.m)
        base = int(g.act_off[w]) * n
        P = st[base:base + (g.K - L) * n].reshape(g.K - L, n)
        opts = []
        if L >= 0:
            r = int(g.claim_r[L]) - 1
            t = rc[:, r][:, None] + rc[:, r][None, :]           # [resp x, fixed y]
            if resp_moves:
                opts.append((T_resp[L][t] * reach[None, :]).sum(axis=1))
            else:
                fixed_dudo = (T_fix[L][t] * (reach * P[0])[None, :]).sum(axis=1)
        for c in range(L + 1, g.K):
            nxt = reach if resp_moves else reach * P[c - L]
            opts.append(walk(hist + [c], nxt))
        if resp_moves:
            return np.max(opts, axis=0)
        return sum(opts) + (fixed_dudo if L >= 0 else 0.0)

    return float(p @ walk([], p.copy()))


@pytest.mark.parametrize("resp_first", [True, False])
def test_exact_response_to_a_face_strategy_is_a_walk_over_every_history(resp_first):
    m = parse_memory("1+1f")
    g, st = _solved(1, 1, m)
    cont = ({(1, 1): 0.49}, {(1, 1): 0.52})
    got = best_response_value(g, st, 1, resp_first, *cont)
    assert got == pytest.approx(_walked_best_response(g, st, resp_first, *cont), abs=1e-12)
    # a responder remembering two whole claims knows the face too: lifted there, the same exact response
    # lifted to a memory that remembers more (whole claims, or faces too, with windows no history reaches),
    # the same exact response
    for bigger in (2, Faces(2, 1), Faces(1, 2)):
        big = make_group(1, 1, bigger, W)
        assert got == pytest.approx(best_response_value(big, lift_strategy(g, st, big, [0], [0]), 1, resp_first,
                                                        *cont), abs=1e-12)


def test_a_served_row_of_a_face_group_is_the_row_of_the_window_its_history_reaches():
    m = parse_memory("2+1f")
    g, st = _solved(1, 2, m, its=20)
    assert_served_rows_follow_the_dag(g, st, m, max_claims=7)
