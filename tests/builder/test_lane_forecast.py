"""The lanes' forecast (builder.lane_forecast): each running store's time left and fraction, by hand."""
import pytest

from builder.lane_forecast import Counted, LaneForecast


def _forecast():
    now = [0.0]
    forecast = LaneForecast([["jotto-4", "jotto-5"], ["dudo"]], {"jotto-4": 40.0, "jotto-5": 60.0, "dudo": None},
                            {"dudo": 500.0}, clock=lambda: now[0])
    return forecast, now


def _observe(forecast, now, t, jotto_cpu, dudo_cpu, idle=0.0):
    now[0] = t
    forecast.observe_lane(0, jotto_cpu, 19, 2)
    forecast.observe_lane(1, dudo_cpu, 10, 2)
    forecast.observe_machine(idle)


def test_each_store_ends_when_the_lanes_cores_say():
    forecast, now = _forecast()
    _observe(forecast, now, 0.0, 0.0, 0.0)
    _observe(forecast, now, 10.0, 4.0, 16.0)      # the Jotto lane at 0.4 cores, Dudo at 1.6; no core idle
    said = forecast.estimate([Counted("jotto-4", 0, 10.0, 0.1, 4.0),
                              Counted("dudo", 1, 100.0, 0.2, None, wall_left=100.0)], {"jotto-5"})
    # Jotto 4: 40 expected CPU s, 0.1 counted at 4 CPU s: 36 left (builder.time_left at its first count), 90 s at 0.4.
    # Dudo: 100 s left at 1.6 cores, 160 CPU s; it leaves cores to the nice-19 lane, so it asks for no more and
    # ends at 100 s. Jotto 5 starts at 90 s, 60 CPU s at 0.4 until Dudo ends, then the 2 cores: 56 / 2, at 128 s.
    assert said["jotto-4"] == pytest.approx((10.0 / 100.0, 90.0))
    assert said["dudo"] == pytest.approx((0.2, 100.0))     # scheduled in wall seconds: its work counted
    assert forecast.coming == {"jotto-5": pytest.approx(128.0)}


def test_no_forecast_before_any_rate_is_measured():
    forecast, now = _forecast()
    _observe(forecast, now, 0.0, 0.0, 0.0)
    running = [Counted("jotto-4", 0, 1.0, 0.0, 0.0), Counted("dudo", 1, 1.0, 0.0, None, wall_left=500.0)]
    assert forecast.estimate(running, {"jotto-5"}) == {}
    _observe(forecast, now, 1.0, 0.4, 1.6)      # 1 s: too short a span to read a rate from
    assert forecast.estimate(running, {"jotto-5"}) == {}


def test_a_lane_just_started_gets_its_share_of_the_cores_by_its_niceness():
    forecast, now = _forecast()
    for t in (0.0, 5.0, 10.0):      # the Jotto lane alone at nice 19: one core, the other idle
        now[0] = t
        forecast.observe_lane(0, t, 19, 2)
        forecast.observe_machine(t)
    now[0] = 11.0                   # Dudo's lane starts
    forecast.observe_lane(0, 11.0, 19, 2)
    forecast.observe_lane(1, 0.0, 10, 2)
    forecast.observe_machine(11.0)
    said = forecast.estimate([Counted("jotto-4", 0, 11.0, 0.1, 10.0),
                              Counted("dudo", 1, 1.0, 0.0, None, wall_left=500.0)], {"jotto-5"})
    # no rate of Dudo's lane yet: the build's core and the idle one shared by the kernel's weights, 110 at nice 10
    # and 15 at 19: Dudo 1.76 cores (it leaves cores to the nice-19 lane: it asks for no more), Jotto 0.24. Jotto 4:
    # 40 expected CPU s, 0.1 counted at 10: builder.time_left's mean of 0.9 x (4 + 10) / 0.2 and 0.9 x 40, 49.5 left
    jotto = 2.0 * 15 / 125
    assert said["dudo"] == pytest.approx((0.0, 500.0))
    assert said["jotto-4"][1] == pytest.approx(49.5 / jotto)


def test_a_lane_whose_niceness_changed_ends_its_store_at_the_changed_lanes_rate_until_its_rate_is_read():
    """make serve's first lane lowers itself to nice 19 as the side lanes start: its rate is read from that count on,
    and until it is (``MIN_SPAN_SECONDS``) its store ends at ``CHANGED_LANE_RATE``, not at its share by niceness of
    the build's rate, which the schedule keeps for the lanes beside it."""
    from builder.lane_forecast import CHANGED_LANE_RATE

    forecast, now = _forecast()
    for t in (0.0, 5.0, 10.0):      # the Jotto lane alone at nice 10: one core, the other idle
        now[0] = t
        forecast.observe_lane(0, t, 10, 2)
        forecast.observe_machine(t)
    now[0] = 11.0                   # Dudo's lane starts; the Jotto lane lowers itself to nice 19
    forecast.observe_lane(0, 11.0, 19, 2)
    forecast.observe_lane(1, 0.0, 10, 2)
    forecast.observe_machine(11.0)
    dudo = Counted("dudo", 1, 1.0, 0.0, None, wall_left=500.0)
    said = forecast.estimate([Counted("jotto-4", 0, 0.0, 0.0, 0.0), dudo], {"jotto-5"})
    assert said["jotto-4"] == pytest.approx((0.0, 40.0 / CHANGED_LANE_RATE))    # nothing counted: its 40 CPU s
    assert forecast.coming["jotto-5"] > 40.0 / (2.0 * 15 / 125)                 # its lane at its share by niceness
    now[0] = 13.0                   # 2 s of its counts at nice 19: 0.3 of a core, its rate read
    forecast.observe_lane(0, 11.6, 19, 2)
    forecast.observe_lane(1, 3.4, 10, 2)
    forecast.observe_machine(11.0)
    said = forecast.estimate([Counted("jotto-4", 0, 2.0, 0.0, 0.6), dudo], {"jotto-5"})
    assert said["jotto-4"][1] > 40.0 / CHANGED_LANE_RATE


def test_a_store_alone_on_idle_cores_keeps_its_rate():
    forecast, now = _forecast()
    now[0] = 0.0
    forecast.observe_lane(0, 0.0, 19, 2)
    forecast.observe_machine(0.0)
    now[0] = 10.0
    forecast.observe_lane(0, 10.0, 19, 2)       # one core, the other idle: it wanted no more
    forecast.observe_machine(10.0)
    said = forecast.estimate([Counted("jotto-5", 0, 10.0, 0.0, 10.0)], set())
    # 60 expected CPU s, nothing counted at 10 CPU s: builder.time_left's mean of (0.1 x 60 + 10) / 0.1 = 160 and
    # the expected 60: 110 CPU s left, at 1 core
    assert said["jotto-5"] == pytest.approx((10.0 / 120.0, 110.0))


def test_when_dudo_runs_fewer_groups_the_lane_beside_it_gets_the_cores_it_leaves():
    forecast, now = _forecast()
    _observe(forecast, now, 0.0, 0.0, 0.0)
    _observe(forecast, now, 10.0, 2.0, 16.0)      # the Jotto lane at 0.2 cores, Dudo at 1.6 with two groups
    said = forecast.estimate([Counted("jotto-4", 0, 10.0, 0.1, 4.0),
                              Counted("dudo", 1, 100.0, 0.5, None, wall_left=100.0,
                                      cores_ahead=[(60.0, 2), (40.0, 1)])], {"jotto-5"})
    # Dudo's 100 s left: 60 s of two groups (96 CPU s at 0.8 a group), then 40 s of one, asking for its group's 0.8
    # and the 0.3 of the 0.8 it leaves that the lanes beside it do not get (LEFT_TO_LANES): 41.6 CPU s at 1.04.
    # Jotto 4's 36 CPU s left at 0.2 until 60 s (24 left), then at 0.76 (the 1.8 less Dudo's 1.04): it ends at
    # 60 + 24 / 0.76 s
    assert said["jotto-4"] == pytest.approx((10.0 / (10.0 + 60.0 + 24.0 / 0.76), 60.0 + 24.0 / 0.76))
    assert said["dudo"] == pytest.approx((100.0 / 200.0, 100.0))
    # without the parts Dudo keeps its 1.6 to the end: Jotto 4 at 0.2 until 100 s (16 left), then 1.8
    said = forecast.estimate([Counted("jotto-4", 0, 10.0, 0.1, 4.0),
                              Counted("dudo", 1, 100.0, 0.5, None, wall_left=100.0)], {"jotto-5"})
    assert said["jotto-4"][1] == pytest.approx(100.0 + 16.0 / 1.8)


def test_a_store_on_one_thread_is_given_no_second_core_when_a_lane_ends():
    forecast, now = _forecast()
    _observe(forecast, now, 0.0, 0.0, 0.0)
    _observe(forecast, now, 10.0, 2.0, 16.0)      # the Jotto lane at 0.2 cores, Dudo at 1.6
    dudo = Counted("dudo", 1, 100.0, 0.5, None, wall_left=100.0)
    said = forecast.estimate([Counted("jotto-4", 0, 10.0, 0.1, 4.0, cores_ahead=[(30.0, 1)]), dudo], {"jotto-5"})
    # Jotto 4's 36 CPU s left at 0.2 until Dudo ends at 100 s (16 left), then on its one thread: 1.0, not the 1.8
    # the two lanes had; Jotto 5 after it may use both cores: 60 CPU s at 1.8
    assert said["jotto-4"][1] == pytest.approx(116.0)
    assert forecast.coming == {"jotto-5": pytest.approx(116.0 + 60.0 / 1.8)}


def test_a_part_of_dudo_that_has_just_started_reads_the_rate_of_the_groups_it_was_measured_over():
    forecast, now = _forecast()
    two_groups = [(60.0, 2), (40.0, 1)]
    said = {}
    for t in range(0, 32, 2):       # the lanes' rates over the 30 s window: Dudo at 1.6 with two groups, Jotto at 0.2
        _observe(forecast, now, float(t), 0.2 * t, 1.6 * t)
        ahead = two_groups if t < 30 else [(5.0, 1), *two_groups]     # at 30 s its part of one group starts
        said[t] = forecast.estimate([Counted("jotto-4", 0, 10.0 + t, 0.1, 4.0),
                                     Counted("dudo", 1, 100.0 + t, 0.5, None, wall_left=105.0 - t / 30.0,
                                             cores_ahead=ahead)], {"jotto-5"})
    # its 1.6 is of two groups (0.8 a group), not of the one that has just started: its two groups ahead ask for
    # 1.6, not 3.2 (which its lane's two cores cannot give: it would take longer than its 105 s), and the Jotto lane
    # beside it keeps the time left it had (within 0.07: the kernel weighs two groups as two tasks, so its two groups
    # get the 1.655 they ask for, read over the 1.94 groups of the window, where a lane weighed once got 1.584)
    assert said[30]["dudo"][1] == pytest.approx(104.0, rel=0.05)
    assert said[30]["jotto-4"][1] == pytest.approx(said[28]["jotto-4"][1], rel=0.1)


def test_dudos_own_time_left_stands_until_every_lanes_rate_is_measured():
    """At its build's first write Dudo's lane has no rate, only its share by niceness (1.76 cores here): that is no
    rate of a group, and its parts read as groups at 1.76 cores each asked for more than its lane's two cores (the
    17:07 make serve's first sample said 1,127.7 s for its 454 s). Its own time left stands until it is measured."""
    forecast, now = _forecast()
    for t in (0.0, 5.0, 10.0):      # the Jotto lane alone at nice 10: one core, the other idle
        now[0] = t
        forecast.observe_lane(0, t, 10, 2)
        forecast.observe_machine(t)
    now[0] = 11.0                   # Dudo's lane starts; the Jotto lane lowers itself to nice 19
    forecast.observe_lane(0, 11.0, 19, 2)
    forecast.observe_lane(1, 0.0, 10, 2)
    forecast.observe_machine(11.0)
    dudo = Counted("dudo", 1, 0.1, 0.0, None, wall_left=465.0,
                   cores_ahead=[(10.0, 1), (4.0, 2), (65.0, 1), (51.0, 2), (300.0, 2), (400.0, 1)])
    said = forecast.estimate([Counted("jotto-4", 0, 11.0, 0.1, 10.0), dudo], {"jotto-5"})
    assert said["dudo"][1] == pytest.approx(465.0)


def test_a_jotto_stores_steps_of_two_tasks_weigh_twice_beside_another_lane():
    """A store whose rest runs two trees side by side (``rest_by_tasks``) is given twice the other nice-19 lane's
    share of the cores Dudo leaves while they run."""
    def said(rests):
        now = [0.0]
        forecast = LaneForecast([["jotto-4"], ["jotto-5"], ["dudo"]], {"jotto-4": 40.0, "jotto-5": 40.0, "dudo": None},
                                {"dudo": 500.0}, clock=lambda: now[0], rest_by_tasks=rests)
        for t in (0.0, 10.0):
            now[0] = t
            forecast.observe_lane(0, 0.2 * t, 19, 2)
            forecast.observe_lane(1, 0.2 * t, 19, 2)
            forecast.observe_lane(2, 1.6 * t, 10, 2)
            forecast.observe_machine(0.0)
        return forecast.estimate([Counted("jotto-4", 0, 10.0, 0.0, 2.0), Counted("jotto-5", 1, 10.0, 0.0, 2.0),
                                  Counted("dudo", 2, 10.0, 0.0, None, wall_left=10.0,
                                          cores_ahead=[(10.0, 2), (500.0, 1)])], set())
    once = said({})
    assert once["jotto-4"][1] == pytest.approx(once["jotto-5"][1])
    twice = said({"jotto-5": lambda counted, workers: [(1.0, 2)]})
    # two thirds of the cores Dudo's group alone leaves (half, weighed once); the other lane gets them when it ends
    assert twice["jotto-5"][1] < 0.8 * once["jotto-5"][1]
    assert twice["jotto-4"][1] == pytest.approx(once["jotto-4"][1])


def _jotto_4_time_left(tasks_before: int, tasks_now: int, other_lane_ends: bool = False,
                       store: str = "jotto-4") -> float:
    """The 4-letter store's time left (``store``'s) beside the 2-letter store and Dudo, its lane at 0.3 of a core for
    30 s while its steps ran ``tasks_before`` tasks side by side, its last 4 s ``tasks_now`` (the 2-letter lane ends
    then with ``other_lane_ends``)."""
    now = [0.0]
    forecast = LaneForecast([["jotto-4"], ["jotto-2"], ["dudo"]], {"jotto-4": 40.0, "jotto-2": 400.0, "dudo": None},
                            {"dudo": 500.0}, clock=lambda: now[0],
                            rest_by_tasks={"jotto-4": lambda counted, workers: [(1.0, tasks_now if counted >= 0.5
                                                                                  else tasks_before)]})
    for t in range(0, 32, 2):
        now[0] = float(t)
        late = t >= 26
        forecast.observe_lane(0, 0.3 * t, 19, 2)
        if not (late and other_lane_ends):
            forecast.observe_lane(1, 0.2 * t, 19, 2)
        forecast.observe_lane(2, 1.5 * t, 10, 2)
        forecast.observe_machine(0.0)
        running = [Counted("jotto-4", 0, t, 0.5 if late else 0.4, 0.3 * t),
                   Counted("dudo", 2, t, 0.5, None, wall_left=500.0)]
        if not (late and other_lane_ends):
            running.insert(1, Counted("jotto-2", 1, t, 0.1, 0.2 * t))
        said = forecast.estimate(running, set())
    return said[store][1]


def test_a_jotto_store_running_fewer_tasks_than_over_its_lanes_window_reads_its_rate_per_task():
    """A step of one task after steps of two (the 4-letter store's value bracket after its robust hider's two trees)
    gets its lane's rate per task over the window, not the rate two tasks had (the cores it leaves shared among the
    lanes that ask for more: half of them back to it beside the 2-letter lane): its time left 0.29 longer. A store
    whose neighbour's lane has just ended keeps its lane's rate."""
    assert _jotto_4_time_left(2, 1) > 1.2 * _jotto_4_time_left(1, 1)
    assert _jotto_4_time_left(2, 1, other_lane_ends=True) == pytest.approx(_jotto_4_time_left(1, 1, other_lane_ends=True))


def test_a_jotto_store_running_more_tasks_than_over_its_lanes_window_takes_its_tasks_share_of_its_niceness():
    """A step of two tasks after a step of one (the 5-letter store's hider selection after its restricted games) gets
    the kernel's share of its niceness's cores for two tasks beside the 2-letter lane's one (two thirds), not the rate
    its lane read over a window of one task: its time left shorter; the cores it takes are the 2-letter lane's, not
    made (the 2-letter store, which ends after it on the cores the two lanes share, ends when it did); Dudo's lane, of
    another niceness, keeps its rate. A store whose neighbour's lane has just ended keeps its lane's rate."""
    rose, stood = _jotto_4_time_left(1, 2), _jotto_4_time_left(2, 2)
    assert rose < 0.9 * stood
    assert _jotto_4_time_left(1, 2, store="jotto-2") == pytest.approx(_jotto_4_time_left(2, 2, store="jotto-2"))
    assert _jotto_4_time_left(1, 2, store="dudo") == pytest.approx(_jotto_4_time_left(2, 2, store="dudo"))
    assert _jotto_4_time_left(1, 2, other_lane_ends=True) == pytest.approx(_jotto_4_time_left(2, 2,
                                                                                              other_lane_ends=True))


def test_a_lane_whose_niceness_changes_reads_its_rate_from_then_on():
    """make serve's first lane builds the 3-letter store at the build's nice 10 on 1.6 cores, then Hangman at 19:
    Hangman's time left is read at the 0.4 of a core its lane gets since, not over a window with the 1.6 before."""
    now = [0.0]
    forecast = LaneForecast([["jotto-3", "hangman"], ["dudo"]], {"jotto-3": 40.0, "hangman": 4.0, "dudo": None},
                            {"dudo": 500.0}, clock=lambda: now[0])
    lane = idle = 0.0
    for t in range(0, 29):
        now[0] = float(t)
        nice = 10 if t <= 20 else 19
        if t:
            lane += 1.6 if nice == 10 else 0.4
            idle += 0.0 if nice == 10 else 1.2
        forecast.observe_lane(0, lane, nice, 2)
        forecast.observe_lane(1, 0.4 * t, 10, 2)
        forecast.observe_machine(idle)
        if t > 20:      # Hangman from 20 s on
            cpu = 0.4 * (t - 20)
            said = forecast.estimate([Counted("hangman", 0, t - 20.0, cpu / 4.0, cpu),
                                      Counted("dudo", 1, t, 0.5, None, wall_left=500.0)], set())
    # 4 CPU s expected, 3.2 spent at 0.4 a second, as counted: 0.8 CPU s left at 0.4, 2 s (at the window's rate, 1.6
    # cores over its first 20 s: under 1 s)
    assert said["hangman"][1] == pytest.approx(2.0, rel=0.1)


def _paced(dudo_expected: float, later_expected: float | None = None):
    """The forecast's figures beside a Dudo store whose own time left says 240 s in all (100 s done, 140 left) against
    ``dudo_expected``; with ``later_expected``, those of a second estimate 10 s on, Dudo's expected seconds then."""
    forecast, now = _forecast()
    _observe(forecast, now, 0.0, 0.0, 0.0)
    _observe(forecast, now, 10.0, 4.0, 16.0)      # the Jotto lane at 0.4 cores, Dudo at 1.6; no core idle
    said = forecast.estimate([Counted("jotto-4", 0, 10.0, 0.1, 4.0),
                              Counted("dudo", 1, 100.0, 0.2, None, wall_left=140.0, expected=dudo_expected)],
                             {"jotto-5"})
    if later_expected is not None:
        _observe(forecast, now, 20.0, 8.0, 32.0)
        said = forecast.estimate([Counted("jotto-4", 0, 20.0, 0.2, 8.0),
                                  Counted("dudo", 1, 110.0, 0.22, None, wall_left=130.0, expected=later_expected)],
                                 {"jotto-5"})
    return said, dict(forecast.coming)


def test_a_store_starting_on_a_slower_machine_expects_its_cpu_seconds_at_the_pace_dudo_keeps():
    """Dudo's own time left says 240 s where it expects 200 s: the machine takes 1.2 times the expected seconds, and a
    store starting then (Jotto 4) or still to come (Jotto 5) expects 1.2 times its CPU seconds. Jotto 4: 48 expected,
    0.1 counted at 4 CPU s: builder.time_left's mean of 0.9 x (4.8 + 4) / 0.2 and 0.9 x 48, 41.4 left, 103.5 s at 0.4
    cores; Jotto 5's 72 from then, 0.4 cores until Dudo ends at 140 s, then the 2 cores."""
    said, coming = _paced(200.0)
    assert said["jotto-4"][1] == pytest.approx(41.4 / 0.4)
    assert coming["jotto-5"] == pytest.approx(140.0 + (72.0 - 0.4 * (140.0 - 103.5)) / 2.0)


def test_a_pace_within_a_tenth_of_the_expected_is_the_machine_they_were_measured_on():
    """Dudo at 1.05 times its expected seconds (the eight make serve traces of the measured machine: 0.98-1.09): every
    store expects its measured CPU seconds, as beside a Dudo on its expected time."""
    assert _paced(240.0 / 1.05) == _paced(240.0)
    said, coming = _paced(240.0)
    assert said["jotto-4"][1] == pytest.approx(36.0 / 0.4)


def test_a_running_store_keeps_the_cpu_seconds_it_expected_when_it_started():
    """A store's expected CPU seconds are read at the machine's pace when it starts; its own pace moves it from there
    (Jotto 4 started beside Dudo on its expected time: a later pace of 1.2 changes the stores to come only)."""
    same, same_coming = _paced(240.0, later_expected=240.0)
    slow, slow_coming = _paced(240.0, later_expected=200.0)
    assert slow["jotto-4"] == pytest.approx(same["jotto-4"])
    assert slow_coming["jotto-5"] > same_coming["jotto-5"]
