"""Memory by claim strength (infoset.Schedule): its windows against the histories they abstract, and the
solver, the exact best response, the store and the endgame on a schedule against independent walks."""
import json
import random

import numpy as np
import pytest

from games.dudo.measure.bound import lift_strategy, memory_best_response
from games.dudo.cost import group_cost, window_actions
from games.dudo.search.endgame import endgame_windows
from games.dudo.measure.exploit import best_response_value
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import (Schedule, _binom_tables, dominates, last_claims, memory_json, memory_plus, memory_size,
                                num_windows, parse_memory, window_from_index, window_index,
                                window_index_tables, window_tables)
from games.dudo.solvers.abstract_cfr import FastSolver
from games.dudo.build.params import DudoParams
from games.dudo.store import format_fields, store_memories
from tests.conftest import assert_served_rows_follow_the_dag, assert_solver_values_the_strategy_as_the_history_walk_does

W = {(1, 1): 0.486, (1, 2): 0.3, (2, 1): 0.7}


def test_a_schedule_reads_and_writes_as_text_and_refuses_what_would_need_forgotten_claims():
    s = parse_memory("4-18-3")
    assert s == Schedule((4, 3), (18,)) and str(s) == "4-18-3" and parse_memory(memory_json(s)) == s
    assert [s.at(L) for L in (-1, 0, 17, 18, 35)] == [4, 4, 4, 3, 3]
    assert parse_memory("perfect") is None and parse_memory("3") == 3 and parse_memory(3) == 3
    assert memory_plus(s, 1) == Schedule((5, 4), (18,))
    for bad, why in (("3-10-4", "must not increase"), ("4-18-3-12-2", "cuts must increase"),
                     ("4-18", "want m0-cut1-m1"), ("4-x-3", "want m0-cut1-m1")):
        with pytest.raises(ValueError, match=why):
            parse_memory(bad)


@pytest.mark.parametrize("K,text", [(12, "3-4-2"), (18, "4-6-3-12-1"), (36, "4-18-3")])
def test_schedule_windows_follow_every_history(K, text):
    m = parse_memory(text)
    last, size, act_off, child = window_tables(K, m)
    assert len(last) == num_windows(K, m) and int(act_off[-1]) == window_actions(K, m)
    # windows and indices are inverse; a window of k claims ending at L exists iff m(L) >= k
    for w in range(len(last)):
        claims = window_from_index(w, K, m)
        assert window_index(claims, K, m) == w and len(claims) == size[w]
        assert not claims or len(claims) <= m.at(claims[-1])
    rng = random.Random(K)
    for _ in range(3000):
        hist = sorted(rng.sample(range(K), rng.randint(0, min(K, 10))))
        w = 0
        for c in hist:                      # the solver's tables walk the history claim by claim
            w = int(child[act_off[w] + c - last[w]])
        assert window_from_index(w, K, m) == last_claims(hist, m)
        assert len(last_claims(hist, m)) == min(len(hist), m.at(hist[-1]) if hist else 0)


def _solved(a, b, m, its=60):
    g = make_group(a, b, m, W)
    return g, FastSolver(g).solve(its, progress=False).average_strategy()


def test_the_solver_values_a_schedule_strategy_as_a_walk_over_every_history_does():
    assert_solver_values_the_strategy_as_the_history_walk_does(*_solved(1, 1, parse_memory("3-4-2")))


# 1v1 is the group of one side (equal dice) and 1v2 the one of two, each opener; 2v2 ("3-8-2", one side too)
# took 45 s of CPU in the perfect-recall walks for no path that 1v1 does not take
@pytest.mark.parametrize("a,b,text,opener", [(1, 1, "3-4-2", 1), (1, 2, "3-6-2", 1), (1, 2, "3-6-2", 2)])
def test_exact_response_to_a_schedule_is_the_response_to_it_lifted_to_the_uniform_memory(a, b, text, opener):
    m = parse_memory(text)
    g, st = _solved(a, b, m)
    big = make_group(a, b, memory_size(g.K, m), W)
    sides = list(range(g.nsides))
    lifted = lift_strategy(g, st, big, sides, sides)
    cont = ({(1, 1): 0.49, (1, 2): 0.3, (2, 1): 0.6}, {(1, 1): 0.52, (1, 2): 0.35, (2, 1): 0.65})
    exact = [best_response_value(g, st, opener, seat, *cont) for seat in (True, False)]
    for seat, value in zip((True, False), exact):
        assert value == pytest.approx(best_response_value(big, lifted, opener, seat, *cont), abs=1e-12)
    # the responder remembering one claim more after every claim lies between the abstraction's and the exact
    own = memory_best_response(g, st, opener, m, W, *cont, 5)
    wider = memory_best_response(g, st, opener, memory_plus(m, 1), W, *cont, 5)
    for i in range(2):
        assert own[i] <= wider[i] + 1e-12 <= exact[i] + 2e-12
    assert dominates(g.K, memory_plus(m, 1), m) and not dominates(g.K, 2, m)
    with pytest.raises(ValueError, match="remember at least"):
        memory_best_response(g, st, opener, 2, W, *cont, 5)


def test_endgame_windows_of_a_schedule_are_the_windows_of_their_histories():
    K, m = 18, parse_memory("3-6-2")
    mem_at, remap = window_index_tables(K, m)
    binom, size_off = _binom_tables(K, memory_size(K, m))
    root = [2, 5, 7]
    got = endgame_windows(np.array(root), len(root), root[-1], True, K, mem_at, remap, binom, size_off)
    want = []

    def walk(hist, L):                       # depth first, claims in order; the requester opened the round
        k = len(hist)
        want.append(window_index(last_claims(hist, m), K, m) if k % 2 == 0 else -1)
        for c in range(L + 1, K):
            walk(hist + [c], c)
    walk(root, root[-1])
    np.testing.assert_array_equal(got, want)


def test_a_schedule_by_group_reaches_the_manifest_and_back_and_is_costed_by_its_windows():
    params = DudoParams(max_dice=3, iterations=10, memory_budget=1 << 30, time_budget=2.0, label="t",
                        memory_by_group=(((2, 3), "4-15-3"),))
    mem = params.memories()
    assert mem[(2, 3)] == Schedule((4, 3), (15,))
    fields = json.loads(json.dumps(format_fields(params.memories())))
    fields.update(row_format=fields["row_format"], probability_unit=fields["probability_unit"])
    assert store_memories(fields) == mem
    c, lo, hi = group_cost(2, 3, mem[(2, 3)]), group_cost(2, 3, 3), group_cost(2, 3, 4)
    assert lo.windows < c.windows < hi.windows and lo.bytes < c.bytes < hi.bytes
    assert c.windows == num_windows(30, mem[(2, 3)])


def test_a_served_row_of_a_schedule_group_is_the_row_of_the_window_its_history_reaches():
    m = parse_memory("3-6-2")
    g, st = _solved(1, 2, m, its=20)
    assert_served_rows_follow_the_dag(g, st, m, max_claims=6)
