"""The Dudo store's row codec (one value per window, every roll's quantised row) and the cost model
that chooses each group's memory."""
import json
from dataclasses import replace

import numpy as np
import pytest

from games.dudo.build.budget import choose_memory
from games.dudo.cost import group_cost, window_actions
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import decode_infoset_id, infoset_id, memory_plan, num_windows, window_tables
from games.dudo.solvers.abstract_cfr import FastSolver
from games.dudo.build.params import DudoParams, manifest_parameters
from games.dudo.store import decode_window_row, encode_window, store_group_strategy, window_key
from games.quantise import UNIT, quantise


def test_window_codec_round_trips_random_distributions():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n, a0 = int(rng.integers(1, 40)), int(rng.integers(0, 2))
        na = a0 + int(rng.integers(1, 61))
        strat = np.zeros(na * n)
        for x in range(n):
            p = rng.random(na - a0) ** 4 * (rng.random(na - a0) < 0.5)
            if p.sum() == 0:
                p[rng.integers(na - a0)] = 1.0
            strat[a0 * n + x::n][:na - a0] = p / p.sum()
        out = np.zeros(n * (1 + 3 * (na - a0)), dtype=np.uint8)
        raw = out[:encode_window(strat, 0, n, a0, na, out)].tobytes()
        last = int(rng.integers(-1, 5)) if a0 == 0 else -1
        for x in range(n):
            actions, units = decode_window_row(raw, x, n, last)
            p = strat[a0 * n + x::n][:na - a0]
            q = quantise(p)
            assert units.sum() == UNIT and (units > 0).all()                  # exact sum, no zero actions
            assert units.tolist() == q[q > 0].tolist()
            assert actions.tolist() == [-1 if a0 + j == 0 else last + a0 + j for j in np.flatnonzero(q)]
            assert (np.abs(units / UNIT - p[q > 0]) < 1 / UNIT).all()


def test_a_group_read_back_from_its_rows_is_the_quantised_strategy():
    g = make_group(1, 2, 2, {(1, 1): 0.5})
    st = FastSolver(g).solve(20, progress=False).average_strategy()
    rows = {}
    for s in range(2):
        own, opp, n = g.dice[s], g.dice[g.oth[s]], int(g.ns[s])
        out = np.zeros(n * (1 + 3 * (g.K + 1)), dtype=np.uint8)
        for w in range(1, g.NW, 2):          # every other window stored: the rest must read as zeros
            a0 = 1 if g.last[w] < 0 else 0
            size = encode_window(st, int(g.rbase[s] + g.act_off[w] * n), n, a0, int(g.act_off[w + 1] - g.act_off[w]), out)
            rows[window_key(own, opp, w)] = out[:size].tobytes()
    back = store_group_strategy(rows.get, g)
    for s in range(2):
        own, opp, n = g.dice[s], g.dice[g.oth[s]], int(g.ns[s])
        for w in range(g.NW):
            block = back[g.rbase[s] + g.act_off[w] * n:g.rbase[s] + g.act_off[w + 1] * n].reshape(-1, n)
            if w % 2 == 0:
                assert not block.any()
                continue
            for x in range(n):
                actions, units = decode_window_row(rows[window_key(own, opp, w)], x, n, int(g.last[w]))
                slots = np.where(actions < 0, 0, actions - g.last[w])
                expect = np.zeros(block.shape[0])
                expect[slots] = units / UNIT
                np.testing.assert_array_equal(block[:, x], expect)
                assert block[:, x].sum() == pytest.approx(1.0, abs=1e-12)


def test_window_actions_and_memory_by_budget():
    for K, m in [(12, 1), (12, 3), (12, None), (18, 2), (24, 3)]:
        assert window_actions(K, m) == int(window_tables(K, m)[2][-1])
    its = 100
    assert choose_memory(1, 1, its, 1 << 40, 1e9) is None                    # everything fits: perfect recall
    assert choose_memory(5, 5, its, 1, 1e-9) == 1                             # nothing fits: the least memory
    ms = [choose_memory(3, 4, its, 1 << 40, s) for s in (1, 10, 100, 1000)]
    assert ms == sorted(ms) and ms[0] < ms[-1]                                # more time, more memory
    m = choose_memory(2, 3, its, 1 << 40, 60)
    assert group_cost(2, 3, m).seconds_per_iteration * its <= 60 < group_cost(2, 3, m + 1).seconds_per_iteration * its


@pytest.mark.parametrize("a,b,m", [(1, 2, 3), (2, 2, 2), (2, 3, 1)])
def test_cost_model_bytes_cover_the_solvers_arrays(a, b, m):
    g = make_group(a, b, m, {(x, y): 0.5 for x in range(1, 4) for y in range(1, 4)}, 3)
    s = FastSolver(g)
    arrays = sum(v.nbytes for v in vars(s).values() if isinstance(v, np.ndarray)) + 8 * g.nrows  # + average
    c = group_cost(a, b, m)
    assert c.windows == g.NW == num_windows(g.K, m) and arrays <= c.bytes


def test_ids_with_a_memory_per_group():
    params = DudoParams(max_dice=3, iterations=10, memory_budget=1 << 30, time_budget=2.0, label="t")
    mem = params.memories()
    assert params.variant == "dudo-3dice-t" and len(set(mem.values())) > 1
    plan = memory_plan(mem)
    seen = set()
    for own, opp, roll, hist in [(1, 1, (2,), [0, 3]), (2, 3, (1, 6), [0, 5, 9, 12]), (3, 3, (1, 1, 4), [7]),
                                 (3, 1, (2, 2, 5), [1, 2, 3, 4, 5, 6])]:
        iid = infoset_id(own, opp, roll, hist, plan, 3)
        m = mem[(min(own, opp), max(own, opp))]
        kept = tuple(hist if m is None else hist[max(0, len(hist) - m):])
        assert decode_infoset_id(iid, plan, 3) == (own, opp, roll, kept) and iid not in seen
        seen.add(iid)


def test_memory_and_iterations_by_group_override_that_group_only():
    base = DudoParams(max_dice=3, iterations=100, memory_budget=1 << 30, time_budget=1.0, label="t")
    more = replace(base, memory_by_group=(((2, 2), 5), ((1, 3), 4)))
    mb, mm = base.memories(), more.memories()
    assert mb[(2, 2)] != 5 and mb[(1, 3)] != 4
    assert mm == {**mb, (2, 2): 5, (1, 3): 4}
    assert "memory_by_group" not in manifest_parameters(base)
    back = json.loads(json.dumps(manifest_parameters(more)))          # as a backend reads the manifest
    assert back["memory_by_group"] == [[[2, 2], 5], [[1, 3], 4]]
    assert DudoParams(**back).memories() == mm
    capped = replace(more, iterations_by_total=((4, 50),), iterations_by_group=(((1, 3), 7),))
    assert [capped.group_iterations(a, b) for a, b in ((1, 3), (2, 2), (1, 2))] == [7, 50, 100]
    back = json.loads(json.dumps(manifest_parameters(capped)))
    assert back["iterations_by_group"] == [[[1, 3], 7]] and DudoParams(**back).group_iterations(1, 3) == 7
    with pytest.raises(ValueError, match="does not fit the memory budget"):
        replace(base, memory_budget=1 << 20, memory_by_group=(((2, 2), 6),)).memories()
    with pytest.raises(ValueError, match="no group 3v2"):
        replace(base, memory_by_group=(((3, 2), 2),)).memories()


def test_improvement_starts_from_the_bound_responder_where_it_fits():
    """The improvement starts from the bound's responder when its value matrices fit, even a schedule
    that the ladder m + 1, m + 2 never names (3-28-2 over memory 2); below that, the ladder's largest
    that fits; the abstraction's own memory if none does."""
    from games.dudo.build.budget import choose_improvement_memory
    from games.dudo.cost import improvement_bytes
    from games.dudo.abstraction.infoset import parse_memory
    s = parse_memory("3-28-2")
    assert choose_improvement_memory(5, 5, 2, s, improvement_bytes(5, 5, s)) == s
    assert choose_improvement_memory(5, 5, 2, s, improvement_bytes(5, 5, s) - 1) == 2
    assert choose_improvement_memory(2, 3, 2, 4, improvement_bytes(2, 3, 4)) == 4
    assert choose_improvement_memory(2, 3, 2, 4, improvement_bytes(2, 3, 4) - 1) == 3
    assert choose_improvement_memory(2, 3, 2, 4, improvement_bytes(2, 3, 3) - 1) == 2


def test_the_quantised_strategy_is_what_the_rows_decode_to():
    """``rows.quantised_strategy`` (what the builder measures and continues from) equals the store's rows
    decoded, bit for bit, and quantising it again changes nothing."""
    from games.dudo.build.rows import quantised_strategy
    g = make_group(1, 2, 2, {(1, 1): 0.5})
    st = FastSolver(g).solve(20, progress=False).average_strategy()
    q = quantised_strategy(g, st)
    rows = {}
    for s in range(2):
        own, opp, n = g.dice[s], g.dice[g.oth[s]], int(g.ns[s])
        out = np.zeros(n * (1 + 3 * (g.K + 1)), dtype=np.uint8)
        for w in range(g.NW):
            a0 = 1 if g.last[w] < 0 else 0
            size = encode_window(st, int(g.rbase[s] + g.act_off[w] * n), n, a0, int(g.act_off[w + 1] - g.act_off[w]), out)
            rows[window_key(own, opp, w)] = out[:size].tobytes()
    assert np.array_equal(store_group_strategy(rows.get, g), q)
    assert np.array_equal(quantised_strategy(g, q), q) and not np.array_equal(q, st)
    assert np.abs(q - st).max() < 1 / UNIT
