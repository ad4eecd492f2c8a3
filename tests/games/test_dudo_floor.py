"""Training to the floor: the stopping rule's decisions, resuming, and the curve in a group's stats."""
import numpy as np
import pytest

from games.dudo.solvers.training import TrainingStopped, doubling_targets, floor_reached, train_to_floor
from games.dudo.build.solve_game import solve_group


class Counter:
    """A stand-in solver: counts iterations; its 'exploitability' is a given function of them."""

    def __init__(self):
        self.t, self.seconds = 0, 0.0

    def fsicfr_iteration(self):
        self.t += 1
        self.seconds += 0.5

    def average_strategy(self):
        return self.t

    def save(self, path):
        pass


def test_doubling_targets():
    assert doubling_targets(100, 1000) == [100, 200, 400, 800, 1000]
    assert doubling_targets(64, 256) == [64, 128, 256]
    assert doubling_targets(0, 3) == [1, 2, 3]


def test_stops_when_a_doubling_improves_less_than_ten_percent():
    values = {4: 1.0, 8: 0.5, 16: 0.46, 32: 0.1}
    s = Counter()
    curve, reason = train_to_floor(s, values.get, cap=64, first=4, rel=0.1, progress=False)
    assert reason == "floor" and s.t == 16
    assert [p[:2] for p in curve] == [[4, 1.0], [8, 0.5], [16, 0.46]]
    assert curve[-1][2] == 8.0      # seconds are recorded, never used to decide
    assert floor_reached(curve, 0.1) and not floor_reached(curve[:2], 0.1)
    # a worse value also stops; the cap stops a run that keeps improving
    s = Counter()
    assert train_to_floor(s, {4: 1.0, 8: 1.2}.get, 64, 4, progress=False)[1] == "floor"
    s = Counter()
    curve, reason = train_to_floor(s, lambda t: 1.0 / t, 20, 4, progress=False)
    assert reason == "cap" and s.t == 20 and [p[0] for p in curve] == [4, 8, 16, 20]
    # the step to a cap between doublings is not a doubling: 16 -> 20 improving 1% is the cap, not a floor
    s = Counter()
    curve, reason = train_to_floor(s, {4: 1.0, 8: 0.5, 16: 0.4, 20: 0.396}.get, 20, 4, progress=False)
    assert reason == "cap" and [p[0] for p in curve] == [4, 8, 16, 20]
    assert not floor_reached(curve, 0.1) and floor_reached([[8, 0.5], [16, 0.46]], 0.1)


def test_resume_repeats_no_measurement():
    seen = []

    def measure(t):
        seen.append(t)
        return 1.0 / t

    saved = {}
    s = Counter()
    stop = iter([False] * 9 + [True] * 100)
    with pytest.raises(TrainingStopped):
        train_to_floor(s, measure, 64, 4, progress=False, should_stop=lambda: next(stop),
                       on_point=lambda c: saved.__setitem__(0, [list(p) for p in c]))
    assert [p[0] for p in saved[0]] == [4, 8] and s.t == 10
    seen.clear()
    curve, reason = train_to_floor(s, measure, 64, 4, curve=saved[0], progress=False)
    assert seen == [16, 32, 64] and [p[0] for p in curve] == [4, 8, 16, 32, 64]


def test_group_trains_to_its_floor_and_records_the_curve(tmp_path):
    # 1v1 with memory 1 stops improving at once (its floor is about 0.33); perfect recall keeps
    # improving until the cap; the stats carry the curve of the exact best response
    from games.dudo.measure.exploit import best_response_value
    from games.dudo.abstraction.dag import make_group
    res = solve_group((1, 1), 1, {}, 5, 512, str(tmp_path), perfect_recall_total=0, stop_rel=0.1)
    st = res["stats"][(1, 1)]
    trained = st.get("iterations_trained", st["iterations"])
    assert st["stop"] == "floor" and trained < 512
    assert st["curve_iterations"][0] == 32 and st["curve_iterations"][-1] == trained
    assert st["curve_exploitability"][-1] > 0.9 * st["curve_exploitability"][-2]
    # the group keeps the least exploitable measured strategy
    best = int(np.argmin(st["curve_exploitability"]))
    assert st["iterations"] == st["curve_iterations"][best]
    assert st["exploitability"] == pytest.approx(st["curve_exploitability"][best], abs=1e-12)
    res = solve_group((1, 1), None, {}, 5, 256, str(tmp_path), stop_rel=0.1)
    st = res["stats"][(1, 1)]
    assert st["stop"] == "cap" and st["curve_iterations"] == [16, 32, 64, 128, 256]
    assert all(b < 0.9 * a for a, b in zip(st["curve_exploitability"], st["curve_exploitability"][1:]))
    # the recorded exploitability is the exact best response's, computed independently here
    g = make_group(1, 1, None)
    strat = np.load(res["path"])
    # (br_opener - value) + (br_other - (1 - value)): the value cancels
    e = best_response_value(g, strat, 1, True, {}, {}) + best_response_value(g, strat, 1, False, {}, {}) - 1
    assert st["exploitability"] == pytest.approx(e, abs=1e-12)


def test_an_interrupted_group_resumes_to_the_same_strategy(tmp_path):
    # stopped after its first measurement (32 iterations), resumed: the same curve, the same kept
    # strategy (the least exploitable measured one) as a run without interruption
    full = solve_group((1, 1), 1, {}, 5, 512, str(tmp_path / "a"), perfect_recall_total=0, stop_rel=0.1)
    calls = iter([False] * 40 + [True] * 10_000)
    with pytest.raises(TrainingStopped):
        solve_group((1, 1), 1, {}, 5, 512, str(tmp_path / "b"), perfect_recall_total=0, stop_rel=0.1,
                    should_stop=lambda: next(calls))
    resumed = solve_group((1, 1), 1, {}, 5, 512, str(tmp_path / "b"), perfect_recall_total=0, stop_rel=0.1)
    a, b = full["stats"][(1, 1)], resumed["stats"][(1, 1)]
    assert [a[k] for k in ("iterations", "curve_iterations", "curve_exploitability", "exploitability")] == \
        [b[k] for k in ("iterations", "curve_iterations", "curve_exploitability", "exploitability")]
    np.testing.assert_array_equal(np.load(full["path"]), np.load(resumed["path"]))
