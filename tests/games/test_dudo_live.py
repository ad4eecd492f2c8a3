"""Dudo live solves: the cost model's table sizes against the built tables, their price (the builder's
``group_cost``), and the live solution against the full solve of the same game."""
import numpy as np
import pytest

from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import window_tables
from games.dudo import cost
from games.dudo.cost import LIVE_SOLVE_FACTOR, group_cost, live_group_cost, window_actions
from games.dudo.serving.live_solve import live_cost, solve_live
from games.dudo.rules import rolls
from games.dudo.build.solve_game import solve_game


@pytest.mark.parametrize("K,m", [(12, 3), (18, 3), (24, 2), (12, None), (30, 4)])
def test_action_slots_match_the_window_tables(K, m):
    assert window_actions(K, m) == int(window_tables(K, m)[2][-1])


@pytest.mark.parametrize("a,b,m", [(1, 1, None), (1, 2, 3), (2, 2, 3), (1, 3, 3)])
def test_rows_match_the_built_group(a, b, m):
    assert live_group_cost(a, b, m, 10).rows == make_group(a, b, m, {(x, y): 0.5 for x in range(1, 5) for y in range(1, 5)},
                                                      5).nrows


@pytest.mark.parametrize("a,b,m", [(1, 1, None), (1, 2, None), (1, 2, 3), (2, 3, 3), (3, 3, 1)])
def test_a_live_group_is_priced_as_the_builder_trains_it_and_one_valuation(a, b, m):
    c = live_group_cost(a, b, m, 40)
    assert c.work_seconds == pytest.approx(40 * group_cost(a, b, m).seconds_per_iteration
                                           + group_cost(a, b, m, tree=False).seconds_per_iteration)
    assert c.seconds == pytest.approx(LIVE_SOLVE_FACTOR * c.work_seconds)


@pytest.mark.parametrize("a,b,m", [(1, 1, None), (2, 3, 3)])
def test_the_live_price_moves_with_the_builders_calibration(monkeypatch, a, b, m):
    """One calibration: group_cost's constants, scaled, scale the live estimate with them."""
    before = live_group_cost(a, b, m, 100).seconds
    monkeypatch.setattr(cost, "SECONDS_PER_PAIR", 3 * cost.SECONDS_PER_PAIR)
    monkeypatch.setattr(cost, "SECONDS_PER_ROLL", 3 * cost.SECONDS_PER_ROLL)
    assert live_group_cost(a, b, m, 100).seconds == pytest.approx(3 * before)


def test_estimates_grow_with_the_game():
    s3, b3, g3 = live_cost(3, 6, 3, 2, 300)
    s5, b5, g5 = live_cost(5, 10, 3, 2, 300)
    assert [g.group for g in g3] == [(1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (3, 3)]
    assert s5 > 10 * s3 and b5 > 10 * b3


def test_live_solution_equals_the_full_solve():
    sol, nbytes = solve_live(2, 3, 3, 0, 10)
    ref = solve_game(max_dice=2, m=3, iterations=10, perfect_recall_total=0, exact_br_total=0, progress=False,
                     log=None, max_total=3)
    assert sorted(sol.groups) == sorted(ref.groups) == [(1, 1), (1, 2)] and nbytes > 0
    for own, opp in ((1, 1), (1, 2), (2, 1)):
        for roll in rolls(own):
            for history in ([], [3], [3, 7]):
                a = sol.action_distribution(own, opp, roll, history)
                b = ref.action_distribution(own, opp, roll, history)
                assert [x for x, _ in a] == [x for x, _ in b]
                np.testing.assert_array_equal([p for _, p in a], [p for _, p in b])
