"""The builder's order (smallest first) and its progress file while it builds."""
import argparse
import contextlib
import time

import pytest

from builder import __main__ as build_main
from builder.profiles import DEFAULT, EXPECTED_SECONDS
from builder.progress import ProgressReporter, smallest_first, timing_key
from games.buildprogress import measured_seconds, read_progress, record_seconds
from games.dudo.build.params import DudoParams


def _args(root, **kw):
    ns = dict(profile="default", variant=[], missing_only=False, list=[], root=root, executor="serial",
              workers=None, scheduler=None, fresh=False)
    ns.update(kw)
    return argparse.Namespace(**ns)


def test_the_default_plan_is_built_smallest_first_and_dudo_last(tmp_path):
    plan = build_main.make_plan(_args(tmp_path))
    order = list(plan)
    assert set(order) == set(DEFAULT)
    assert [EXPECTED_SECONDS[v] for v in order] == sorted(EXPECTED_SECONDS[v] for v in order)
    assert order[0] == "jotto-en_US80-3-ganzfried"  # 2 letters certify its bracket by an exact search: later
    assert isinstance(plan[order[-1]], DudoParams)  # the big one


def test_times_measured_on_this_root_reorder_the_plan(tmp_path):
    v2, v3 = "jotto-en_US80-2-ganzfried", "jotto-en_US80-3-ganzfried"
    plan = {v2: DEFAULT[v2], v3: DEFAULT[v3]}
    assert list(smallest_first(plan, tmp_path)) == [v3, v2]
    record_seconds(tmp_path, timing_key(v3, DEFAULT[v3]), 500.0)  # this machine measured it slower
    assert list(smallest_first(plan, tmp_path)) == [v2, v3]
    other = {v3: DEFAULT[v2], v2: DEFAULT[v2]}  # other parameters: no default estimate, last
    assert list(smallest_first(other, tmp_path)) == [v2, v3]


def test_the_reporter_writes_states_heartbeats_and_the_outcome(tmp_path):
    v2, v3 = "jotto-en_US80-2-ganzfried", "jotto-en_US80-3-ganzfried"
    plan = {v2: DEFAULT[v2], v3: DEFAULT[v3]}
    with ProgressReporter(tmp_path, plan, heartbeat=0.05) as rep:
        p = read_progress(tmp_path)
        assert [(v.variant, v.state) for v in p.variants] == [(v2, "planned"), (v3, "planned")]
        assert p.variants[0].expected_seconds == EXPECTED_SECONDS[v2]
        rep.started(v2)
        first = read_progress(tmp_path).updated
        deadline = time.monotonic() + 10
        while read_progress(tmp_path).updated == first and time.monotonic() < deadline:
            time.sleep(0.02)
        p = read_progress(tmp_path)
        assert p.updated > first and p.variants[0].state == "building" and p.variants[0].seconds > 0
        rep.finished(v2, 3.5)
        assert [s["variant"] for s in read_progress(tmp_path).summary()] == [v3]
    p = read_progress(tmp_path)
    assert p.state == "done" and p.summary() == []
    assert list(smallest_first(plan, tmp_path)) == [v2, v3]  # 3.5 s measured
    try:
        with ProgressReporter(tmp_path, plan, heartbeat=10) as rep:
            rep.started(v3)
            raise RuntimeError("solver blew up")
    except RuntimeError:
        pass
    p = read_progress(tmp_path)
    assert p.state == "failed" and "solver blew up" in p.message and p.variants[1].state == "failed"


def _three_small_stores() -> dict:
    """A plan of three stores that build in seconds: Jotto 2 letters, Guess Who, Hangman (smallest first)."""
    from builder.guesswho import GuessWhoParams
    from builder.hangman import HangmanParams
    from builder.jotto import JottoParams

    return {"jotto-en_US80-2-ganzfried": JottoParams(fp_iterations=2, do_iterations=1, people_oracle="gbr"),
            "guesswho-24": GuessWhoParams(24, budget=2000), "hangman-en_US50-5": HangmanParams(5, eval_games=2)}


def test_lanes_put_the_largest_store_beside_the_others():
    plan = {"a": 1, "b": 2, "c": 3}
    assert build_main.lanes_of(plan, 1) == [["a", "b", "c"]]
    assert build_main.lanes_of(plan, 2) == [["a", "b"], ["c"]]
    assert build_main.lanes_of({"a": 1}, 2) == [["a"]]
    assert build_main.lanes_of(plan, 3) == [["a"], ["b"], ["c"]]
    assert build_main.lanes_of({"a": 1, "b": 2, "c": 3, "d": 4}, 3) == [["a", "b"], ["c"], ["d"]]
    assert build_main.lanes_of({"a": 1, "b": 2}, 3) == [["a"], ["b"]]


def test_a_build_in_two_lanes_builds_the_largest_store_beside_the_others(tmp_path, monkeypatch):
    """--lanes 2: the plan's last store is built while the others are, from the first lane's first store on
    (both 'building' in the progress file at once, the side lane's ETA its own remaining time), on an executor
    of its own, the first lane marking a core as taken (``busy``) while it builds, for the side lane's Dudo
    groups to count; every store is published and the journal is cleared as after a one-lane build."""
    import os
    import threading

    from games.storage import all_current_stores

    plan = _three_small_stores()
    j2, gw, hm = plan
    real = build_main.build_store
    started = {v: threading.Event() for v in plan}
    executors, building, marked = {}, {}, {}

    def build(variant, params, root, executor, busy=None, beside_lanes=False):
        executors[variant] = id(executor)
        if variant == hm:   # the side lane waits for the first lane's first store (the server's first answer)
            assert set(all_current_stores(root)) == {j2}
        started[variant].set()
        if variant in (gw, hm):   # the two lanes' stores wait for each other: built at the same time
            assert started[hm if variant == gw else gw].wait(60)
            p = read_progress(root)
            building[variant] = {v.variant for v in p.variants if v.state == "building"}
            marked[variant] = sorted(os.listdir(busy))
            if variant == hm:  # its own remaining time, not the other lane's added before it
                assert 0 < p.eta_seconds(hm) <= 100.0
        return real(variant, params, root, executor)

    for v in plan:
        record_seconds(tmp_path, timing_key(v, plan[v]), 100.0)
    monkeypatch.setattr(build_main, "build_store", build)
    lowered = []    # the first lane lowers its priority once, after its first store (the first answer unhurt)
    monkeypatch.setattr(build_main, "_lower_priority", lambda ex: lowered.append(
        (threading.current_thread() is threading.main_thread(), id(ex), sorted(all_current_stores(tmp_path)))))
    args = _args(tmp_path, variant=[], lanes=2)
    assert build_main.run_plan(plan, args) == 0
    assert building[gw] == building[hm] == {gw, hm}
    assert marked[gw] == marked[hm] == ["lane-0"]     # the first lane's mark, not the side lane's
    assert lowered == [(True, executors[j2], [j2])]
    assert not os.listdir(tmp_path / ".work" / "busy")
    assert executors[hm] != executors[gw] == executors[j2]
    assert set(all_current_stores(tmp_path)) == set(plan)
    assert read_progress(tmp_path).state == "done"
    assert not list((tmp_path / ".work").glob("build-*.json"))   # the journal is cleared


def test_a_build_in_three_lanes_gives_the_second_largest_store_a_filler_lane(tmp_path, monkeypatch):
    """--lanes 3 (make serve): after the first store, the second largest store gets a lane of its own beside the
    largest's; it marks a core as taken while it builds and lowers its priority like the first lane, the last
    lane (the largest store, Dudo's) does neither."""
    import os
    import threading

    from games.storage import all_current_stores

    plan = _three_small_stores()
    j2, gw, hm = plan
    real = build_main.build_store
    started = {v: threading.Event() for v in plan}
    executors, marked, estimates, beside = {}, {}, {}, {}

    def build(variant, params, root, executor, busy=None, beside_lanes=False):
        executors[variant] = id(executor)
        beside[variant] = beside_lanes
        started[variant].set()
        if variant in (gw, hm):   # the two side lanes' stores: built at the same time, after the first store
            assert set(all_current_stores(root)) == {j2}
            assert started[hm if variant == gw else gw].wait(60)
            marked[variant] = sorted(os.listdir(busy))
            estimates[variant] = {v.variant: v.expected_seconds for v in read_progress(root).variants}[variant]
        return real(variant, params, root, executor)

    for v in plan:
        record_seconds(tmp_path, timing_key(v, plan[v]), 100.0)
    monkeypatch.setattr(build_main, "build_store", build)
    lowered = []
    monkeypatch.setattr(build_main, "_lower_priority", lambda ex: lowered.append(
        (threading.current_thread() is threading.main_thread(), id(ex))))
    assert build_main.run_plan(plan, _args(tmp_path, variant=[], lanes=3)) == 0
    assert marked[gw] == marked[hm] == ["lane-1"]
    # the last lane's store is built beside the filler lane's (a Dudo group alone then trains on one core)
    assert beside == {j2: False, gw: False, hm: True}
    assert estimates == {gw: None, hm: 100.0}   # the filler lane's store at nice 19: no fraction, no ETA
    # build times for the next plan's order: the first store's and the last lane's, not the filler lane's
    times = measured_seconds(tmp_path)
    assert times[timing_key(j2, plan[j2])] != 100.0 and times[timing_key(hm, plan[hm])] != 100.0
    assert times[timing_key(gw, plan[gw])] == 100.0
    assert sorted(lowered) == sorted([(True, executors[j2]), (False, executors[gw])])
    assert len({executors[j2], executors[gw], executors[hm]}) == 3
    assert set(all_current_stores(tmp_path)) == set(plan)


def test_lanes_on_a_root_already_serving_start_together(tmp_path, monkeypatch):
    """Where a store is published already (a resumed first run), the first answer waits for nothing: the side
    lane starts at once beside the first lane, which goes to nice 19 before its first store."""
    import threading

    from games.storage import all_current_stores

    plan = _three_small_stores()
    j2, gw, hm = plan
    assert build_main.run_plan({j2: plan.pop(j2)}, _args(tmp_path, variant=[], lanes=1)) == 0
    real = build_main.build_store
    started = {v: threading.Event() for v in plan}
    events = []

    def build(variant, params, root, executor, busy=None, beside_lanes=False):
        events.append(("start", variant))
        started[variant].set()
        assert started[hm if variant == gw else gw].wait(60)   # both lanes at once: no wait for gw to finish
        return real(variant, params, root, executor)

    monkeypatch.setattr(build_main, "build_store", build)
    monkeypatch.setattr(build_main, "_lower_priority", lambda ex: events.append(("lowered", None)))
    assert build_main.run_plan(plan, _args(tmp_path, variant=[], lanes=2)) == 0
    assert events.count(("lowered", None)) == 1    # the first lane, before its first store
    assert events.index(("lowered", None)) < events.index(("start", gw))
    assert set(all_current_stores(tmp_path)) == {j2, gw, hm}


class _LaneCount:
    """A lane's CPU count as the test sets it (``builder.lane_cpu.LaneCpu``'s interface)."""

    class executor:
        local_cores = 2

    def __init__(self):
        self.cpu = 0.0

    def seconds(self):
        return self.cpu

    def nice(self):
        return 19


def test_a_store_in_lanes_says_the_time_left_of_its_cpu_at_its_lanes_rate(tmp_path):
    from builder.steps import StoreSteps

    v5 = "jotto-en_US80-5-ganzfried"
    now, count = [0.0], _LaneCount()
    rep = ProgressReporter(tmp_path, {v5: DEFAULT[v5]}, heartbeat=60, lanes=[[v5]], clock=lambda: now[0])
    with rep, StoreSteps(v5, {"hedge": 1.0, "robust hider": 1.0}, timed=True):
        rep.started(v5, lane=0, cpu=count)
        rep._write()
        now[0], count.cpu = 10.0, 10.0     # one core for 10 s, nothing counted yet
        rep._write()
        v = read_progress(tmp_path).variants[0]
    # its expected 90 CPU s (builder.step_seconds.MEASURED_CPU_SECONDS), nothing counted at 10 CPU s: the mean of the
    # whole build's pace, (0.1 x 90 + 10) / 0.1 = 190, and the expected 90 (builder.time_left), 140 CPU s left; alone,
    # its lane keeps its core: 140 s; its fraction the share of its build's time passed (its real seconds: near 0)
    assert (v.counted, v.cpu_seconds, v.lane, v.nice) == (0.0, 10.0, 0, 19)
    assert v.work_remaining == pytest.approx(140.0, abs=0.1)
    assert v.fraction < 0.01


class _Forecast:
    """Records what the reporter gives the lanes' forecast and says a fixed estimate."""

    def __init__(self):
        self.given = []

    def observe_lane(self, *args):
        pass

    def observe_machine(self, *args):
        pass

    def estimate(self, running, planned):
        self.given += running
        return {c.variant: (0.5, 1.0) for c in running}


@contextlib.contextmanager
def _dudo_counted_half_done(tmp_path):
    """A reporter of the default Dudo store whose forecast keeps what it is given, the store's one step counted half
    done: (the reporter, its forecast), the reporter still open and the step's count ended."""
    from builder.steps import StoreSteps

    dudo = "dudo-5dice-default"
    rep = ProgressReporter(tmp_path, {dudo: DEFAULT[dudo]}, heartbeat=60, lanes=[[dudo]])
    rep._forecast = forecast = _Forecast()
    with rep:
        rep.started(dudo, lane=0, cpu=_LaneCount())
        with StoreSteps(dudo, {"train": 1.0}) as steps:
            steps.set_done("train", 0.5)
            rep._write()
        yield rep, forecast


def test_the_forecast_is_given_the_stores_own_time_left_not_its_own_last_answer(tmp_path):
    with _dudo_counted_half_done(tmp_path) as (rep, forecast):
        own = forecast.given[-1].wall_left
        rep._write()                    # its steps are done counting: its last count stands until it is published
        v = read_progress(tmp_path).variants[0]
    assert own is not None and own != 1.0
    assert forecast.given[-1].wall_left == own and (v.fraction, v.work_remaining) == (0.5, 1.0)


def test_the_forecast_is_given_the_expected_seconds_the_stores_own_time_left_starts_from(tmp_path):
    """The lanes' forecast reads the machine's pace from Dudo's own time left against the seconds it expected
    (``LaneForecast._machine_speed``): the reporter gives it those seconds with each count."""
    with _dudo_counted_half_done(tmp_path) as (rep, forecast):
        pass
    given = forecast.given[-1]
    assert given.expected is not None and given.expected == rep._time_left["dudo-5dice-default"].expected


def test_a_stores_log_lines_say_the_fraction_the_progress_file_says(tmp_path):
    import io

    from builder.steps import StoreSteps

    dudo, log = "dudo-5dice-default", io.StringIO()
    rep = ProgressReporter(tmp_path, {dudo: DEFAULT[dudo]}, heartbeat=60, lanes=[[dudo]])
    rep._forecast = _Forecast()                     # says 0.5 whatever is counted
    with rep:
        rep.started(dudo, lane=0, cpu=_LaneCount())
        with StoreSteps(dudo, {"train": 1.0, "rows": 3.0}, out=log) as steps:
            steps.set_done("train", 1.0)            # a quarter of the work counted
            rep._write()
            steps.line("rows", force=True)
            rep._forecast = forecast = _Forecast()
            forecast.estimate = lambda running, planned: {}     # no forecast now: the work counted
            rep._write()
            steps.line("rows again", force=True)
    assert "rows; the store about 50% built\n" in log.getvalue()
    assert log.getvalue().rstrip().endswith("rows again; the store about 25% built")


def test_a_forecast_that_fails_leaves_the_stores_own_estimates_and_the_build_going(tmp_path):
    class Broken(_Forecast):
        def estimate(self, running, planned):
            raise ZeroDivisionError("a bug")

    v5 = "jotto-en_US80-5-ganzfried"
    rep = ProgressReporter(tmp_path, {v5: DEFAULT[v5]}, heartbeat=60, lanes=[[v5]])
    rep._forecast = Broken()
    with rep:
        rep.started(v5, lane=0, cpu=_LaneCount())
        v = read_progress(tmp_path).variants[0]
        assert v.state == "building" and v.remaining_seconds() is not None
        rep.finished(v5, 1.0)
    assert read_progress(tmp_path).state == "done"


def test_a_store_records_the_tasks_its_running_steps_run_side_by_side(tmp_path):
    from builder.steps import StoreSteps

    v5 = "jotto-en_US80-5-ganzfried"
    rep = ProgressReporter(tmp_path, {v5: DEFAULT[v5]}, heartbeat=60, lanes=[[v5]])
    with rep, StoreSteps(v5, {"hedge": 1.0, "robust hider": 1.0}, timed=True) as steps:
        rep.started(v5, lane=0, cpu=_LaneCount())
        with steps.step("hedge", 10, tasks=1):
            rep._write()
            hedge = read_progress(tmp_path).variants[0].tasks
        with steps.step("robust hider", 5, tasks=2):
            rep._write()
            robust = read_progress(tmp_path).variants[0].tasks
    assert (hedge, robust) == (1, 2)


def test_a_store_whose_steps_fail_to_say_their_tasks_still_builds(tmp_path, monkeypatch):
    from builder.steps import StoreSteps

    def broken(self):
        raise RuntimeError("a bug")

    monkeypatch.setattr(StoreSteps, "tasks", broken)
    v5 = "jotto-en_US80-5-ganzfried"
    rep = ProgressReporter(tmp_path, {v5: DEFAULT[v5]}, heartbeat=60, lanes=[[v5]])
    with rep, StoreSteps(v5, {"hedge": 1.0}, timed=True) as steps:
        rep.started(v5, lane=0, cpu=_LaneCount())
        with steps.step("hedge", 10, tasks=1):
            rep._write()
            v = read_progress(tmp_path).variants[0]
        rep.finished(v5, 1.0)
    assert v.state == "building" and v.tasks is None
    assert read_progress(tmp_path).state == "done"
