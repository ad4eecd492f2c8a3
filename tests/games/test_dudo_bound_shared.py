"""Where the improvement's responder is the bound's (the default profile's every round beyond the exact ones), the
bound's figures come from the improvement's tables (``lbr.RoundEstimate.seat_bases``) instead of a second pass:
checked bit for bit against ``bound.memory_best_response`` computed on its own, and a round whose improvement
remembers more than the bound still gets the bound's own pass."""
import numpy as np

from games.dudo.measure.bound import memory_best_response
from games.dudo.build.solve_game import solve_game

KW = dict(max_dice=3, m={(1, 1): None, (1, 2): 1, (1, 3): 1, (2, 2): 1, (2, 3): 1, (3, 3): 1}, iterations=8,
          progress=False, log=None, exact_br_total=2, br_memory=2, improve_games=2, improve_seed=3)


def _check(sol, m_resp):
    br_open, br_other = {}, {}
    checked = 0
    for (a, b), g in sorted(sol.groups.items(), key=lambda kv: (sum(kv[0]), kv[0])):
        D = a + b
        for op in sorted({a, b}):
            st = sol.stats.get((op, D - op))
            if st is None or "br_opener" not in st:
                continue
            if D > KW["exact_br_total"]:
                e_o, e_n = memory_best_response(g, np.asarray(sol.strategies[(a, b)]), op, m_resp, sol.W, br_open,
                                                br_other, KW["max_dice"], st["value"])
                assert (st["br_opener"], st["br_other"]) == (e_o, e_n), (a, b, op)
                checked += 1
        for op in sorted({a, b}):       # the continuations of the larger rounds' responders
            st = sol.stats.get((op, D - op))
            if st is not None and "br_opener" in st:
                br_open[(op, D - op)], br_other[(op, D - op)] = st["br_opener"], st["br_other"]
    return checked


def test_the_bound_taken_from_the_improvement_is_the_bound(tmp_path):
    sol = solve_game(checkpoint_dir=str(tmp_path / "shared"), improve_memory=2, **KW)
    assert _check(sol, 2) >= 6
    assert all("improved_exploitability" in st for (op, oth), st in sol.stats.items() if op + oth > 2)


def test_an_improvement_remembering_more_leaves_the_bound_its_own_pass(tmp_path):
    sol = solve_game(checkpoint_dir=str(tmp_path / "apart"), improve_memory=3, **KW)
    assert _check(sol, 2) >= 6
