"""The first build's estimate of the default Dudo store (``builder.dudo_estimate``): the builder's schedule of
groups over levels and workers, checked on a build whose every group wall was measured, and the profile's figure
is the model's."""
from dataclasses import replace

import numpy as np
import pytest

from builder.dudo_estimate import (FRESH_CLONE_SPLIT, GROUP_CPU, SEARCH_TABLE_SECONDS, STORE_SECONDS, TRAINED_FIRST,
                                   dudo_default_seconds, first_build_seconds, level_seconds, levels, pipelined_seconds)
from builder.profiles import DUDO_DEFAULT, EXPECTED_SECONDS
from games.dudo.build.solve_game import groups_in_order

pytestmark = pytest.mark.usefixtures("built_before_first_replies")     # every build recorded here

# group walls of a fresh clone's `make serve` (2 workers, cold numba cache) whose Dudo store took 834 s
# (docs/dudo-speed.md, "Before")
MEASURED_WALLS = {(1, 1): 7, (1, 2): 57, (1, 3): 59, (2, 2): 57, (1, 4): 19, (2, 3): 63, (1, 5): 37, (2, 4): 31,
                  (3, 3): 94, (2, 5): 62, (3, 4): 70, (3, 5): 101, (4, 4): 82, (4, 5): 183, (5, 5): 163}


def test_the_schedule_gives_the_measured_build():
    assert [len(lv) for lv in levels(MEASURED_WALLS)] == [1, 1, 2, 2, 3, 2, 2, 1, 1]
    total = sum(level_seconds([MEASURED_WALLS[g] for g in lv], 2) for lv in levels(MEASURED_WALLS))
    assert total == 828      # 3v3 waits for 2v4 (31 + 94 s) at 6 dice in play
    assert abs(total - 834) / 834 < 0.02
    assert level_seconds([37, 31, 94], 1) == 162 and level_seconds([37, 31, 94], 3) == 94


def test_the_first_build_estimate_schedules_the_fresh_clones_walls():
    # the fresh clone at 6f3803e (pipelined, 5v4 at 45 iterations, the late kernels compiled beside the first
    # groups) took 538.3 s for the store (the launcher's "published" line), before the store held search tables;
    # they come after the last group
    assert abs(first_build_seconds(store_seconds=STORE_SECONDS) - 538.3) / 538.3 < 0.03
    tables = sum(SEARCH_TABLE_SECONDS.values())
    assert first_build_seconds() == first_build_seconds(store_seconds=STORE_SECONDS + tables)
    assert first_build_seconds(workers=1) > first_build_seconds()
    # the same walls run level by level (each level's groups whole, no level measured beside the next) take longer
    assert first_build_seconds(store_seconds=STORE_SECONDS) < dudo_default_seconds(group_cpu=FRESH_CLONE_SPLIT,
                                                                             thread_speedup={})


def test_the_pipelined_schedule_measures_a_level_beside_the_next_ones_training():
    split = {(1, 1): (10, 4), (1, 2): (20, 6), (2, 2): (30, 50), (1, 3): (5, 1)}
    # steps: train 1v1 (10); train 1v2 + rest of 1v1 (20 | 4); train 1v3, 2v2 + rest of 1v2 (5 + 6 | 30);
    # rest of 1v3 and 2v2 (1 + ... | 50): 10 + 20 + 30 + 50, and the store writing
    assert pipelined_seconds(split, 2, 0.0) == 110
    assert pipelined_seconds(split, 1, 0.0) == 10 + 24 + 41 + 51


def test_every_default_group_has_a_figure_and_the_profile_uses_the_measured_walls():
    assert set(GROUP_CPU) == set(groups_in_order(DUDO_DEFAULT.max_dice)) == set(FRESH_CLONE_SPLIT)
    assert EXPECTED_SECONDS[DUDO_DEFAULT.variant] == round(first_build_seconds(), 1)
    assert dudo_default_seconds(workers=1) > dudo_default_seconds()
    assert TRAINED_FIRST == set(DUDO_DEFAULT.train_memories())
    # 3v3 (CFR-BR) starts first at 6 dice in play and no longer waits for 2v4
    assert levels(GROUP_CPU, TRAINED_FIRST)[4] == [(3, 3), (1, 5), (2, 4)]


# the recorded builds and their parameters: the first three made 1v5's search tables too (the profile keeps 1v5 on
# the rows since)
RECORDED_PARAMS = replace(DUDO_DEFAULT, large_search=DUDO_DEFAULT.large_search[:4])
RISING = ("dudo_default_build_0703.json", RECORDED_PARAMS)
BUILDS = (("dudo_default_build_0749.json", RECORDED_PARAMS), ("dudo_default_build_0817.json", RECORDED_PARAMS),
          ("dudo_default_build_0833.json", DUDO_DEFAULT))


def _replayed_gaps(build: tuple, walls=None) -> list[float]:
    """The default build's fraction less the share of its time elapsed, every 5 s of a recorded build's work
    directory (tests/builder/data/ and its parameters), with the progress weights or ``walls``."""
    counts, total = _replayed_fractions(build, walls)
    return [f - t / total for t, f in counts]


def _replayed_fractions(build: tuple, walls=None) -> tuple[list[tuple[float, float]], float]:
    """([(seconds, the fraction then)] every 5 s of a recorded build's work directory, its wall), with the progress
    weights or ``walls``."""
    import json
    import tempfile
    from pathlib import Path
    from unittest import mock

    from builder import dudo_progress
    from builder.dudo_progress import DudoWork

    name, params = build
    rec = json.loads((Path(__file__).parent / "data" / name).read_text())
    events, total = rec["events"], rec["seconds"]
    counts = []
    with tempfile.TemporaryDirectory() as d, \
            mock.patch.object(dudo_progress, "progress_walls", walls or dudo_progress.progress_walls):
        work = Path(d)
        (work / "running").mkdir()
        w = DudoWork(params, work, default=True)
        k = 0
        for step in range(int(total // 5)):
            t = step * 5.0
            while k < len(events) and events[k][0] <= t:
                _, file, value = events[k]
                path = work / file
                if value is None:
                    path.unlink(missing_ok=True)
                else:
                    path.write_text(json.dumps({"t": value}) if file.endswith(".progress") else "{}")
                k += 1
            counts.append((t, w.fraction()))
    return counts, total


def test_the_progress_fraction_follows_the_measured_builds_time():
    """Replayed on the three builds the weights come from (their work directories, every 5 s): within 0.10 of the
    share of the build's time elapsed at every sample; the build whose load rose eightfold midway is not followed
    (up to 0.19 ahead), and its own walls are not the others' (0.15 and more off)."""
    from builder.dudo_estimate import RISING_LOAD_BUILD, progress_walls

    for build in BUILDS:
        gaps = _replayed_gaps(build)
        assert len(gaps) > 80 and max(abs(g) for g in gaps) <= 0.10, build[0]
    split, tables, store = progress_walls()
    assert set(split) == set(FRESH_CLONE_SPLIT) and set(tables) == set(SEARCH_TABLE_SECONDS) and store > STORE_SECONDS
    assert max(_replayed_gaps(RISING)) > 0.15
    assert max(abs(g) for g in _replayed_gaps(BUILDS[2], lambda: RISING_LOAD_BUILD)) > 0.15


def test_the_time_left_follows_the_recorded_builds_from_half_way():
    """The time left (builder.time_left, from the default build's expected seconds, the measured builds' mean) replayed
    on the recorded builds every 5 s: on 07:49 and 08:17 (1,205 and 658 s against the 771 s expected), within 0.10 of
    the wall at every sample from half the build on, where the pace of the last third alone was 0.15 off on both. The
    08:33 build (440 s, 0.58 of the expected: 0.15 off) and the one whose load rose eightfold midway are not held to
    it: no time fixed before a build on a shared machine knows its load (docs/operations.md has all four)."""
    import tempfile
    from pathlib import Path

    from builder.dudo_progress import DudoWork
    from builder.time_left import TimeLeft

    for build in BUILDS[:2]:
        counts, total = _replayed_fractions(build)
        with tempfile.TemporaryDirectory() as d:
            expected = DudoWork(build[1], Path(d), default=True).expected_seconds()
        left = TimeLeft(expected)
        gaps = [(left(t, f) - (total - t)) / total for t, f in counts]
        late = [g for (t, _), g in zip(counts, gaps) if t >= total / 2]
        assert len(late) > 40 and max(abs(g) for g in late) <= 0.10, build[0]


def test_tasks_side_by_side_on_two_workers():
    from builder.dudo_estimate import busy_profile

    # 10 s on one worker, 4 then 3 on the other: two side by side for 7 s, then one for 3
    assert busy_profile([10.0, 4.0, 3.0]) == [(7.0, 2), (3.0, 1)]
    assert busy_profile([5.0]) == [(5.0, 1)] and busy_profile([]) == []


def test_a_dudo_build_says_the_groups_it_will_run_side_by_side(tmp_path):
    from builder.dudo_progress import DudoWork
    from builder.profiles import DEFAULT

    work = DudoWork(DEFAULT["dudo-5dice-default"], tmp_path, default=True)
    ahead = work.cores_ahead()
    assert sum(w for w, _ in ahead) == pytest.approx(work.total)    # the steps' walls as the fraction counts them
    assert {n for _, n in ahead} == {1, 2} and ahead[-1][1] == 1
    # its last groups alone, then the tables, rows and publish: a quarter of the build or more on one core
    assert ahead[-1][0] >= 0.25 * work.total


def test_beside_the_lanes_dudos_first_parts_take_their_share_of_a_make_serve_builds_wall(tmp_path):
    """A make serve build's first levels took less of its wall than the measured builds' (their kernels' compile
    alone on a loaded machine): beside the lanes, its parts that begin before its groups that train alone (4v5) are
    read at a make serve build's share of its wall (``SERVE_WALL_SHARES``; 1v2's part alone 42 s of the measured
    builds' seconds, not 65), its later parts as their walls say."""
    from builder.dudo_progress import DudoWork

    beside = DudoWork(DUDO_DEFAULT, tmp_path, default=True, beside_lanes=True)
    ahead = beside.cores_ahead()
    beside.serve = False
    walls = beside.cores_ahead()
    assert [n for _, n in ahead] == [n for _, n in walls]
    assert ahead[2][0] < 0.7 * walls[2][0]      # 1v2 training alone, its part of one group
    starts = np.cumsum([0.0] + [w for w, _ in walls])[:-1] / beside.total
    late = [k for k, s in enumerate(starts) if s >= beside.alone_from]
    assert late and [ahead[k][0] for k in late] == pytest.approx([walls[k][0] for k in late])


def _played_beside_lanes(weights, tmp_path) -> list[tuple[float, float]]:
    """[(the share of the build's wall passed, the fraction ``weights`` says)] along the schedule of a default build
    beside other lanes: each step's tasks on the first free of two workers at the walls beside the lanes, to the
    end of the groups (the tables, rows and publish after them at their expected walls)."""
    from builder.dudo_progress import DudoWork

    beside = DudoWork(DUDO_DEFAULT, tmp_path, default=True, beside_lanes=True)
    spans, t = [], 0.0
    for step in beside.plan:
        free = [t, t]
        for task in step:
            i = min(range(2), key=free.__getitem__)
            spans.append((free[i], free[i] + beside._task_wall(*task), task))
            free[i] = spans[-1][1]
        t = max(free)
    out = []
    for k in range(101):
        now = t * k / 100
        done = {task: min(1.0, max(0.0, (now - s) / (e - s))) for s, e, task in spans}
        weights._task_done = lambda ab, phase: done[(ab, phase)]
        out.append((now / beside.total, weights.work_counted()))
    return out


def test_beside_other_lanes_a_group_alone_weighs_its_one_core(tmp_path):
    """In make serve's lanes a group alone (4v5, 5v5) trains on the one core the other lanes leave it
    (SharedCores), THREAD_SPEEDUP times its wall on two in the measured builds: played on the schedule of such a
    build, the weights beside the lanes are within 0.03 of the share of its wall at every point, those of a build
    alone up to 0.07 ahead (a fresh make serve's Dudo fraction ran 0.07-0.09 ahead from a tenth of it to 0.7)."""
    from builder.dudo_estimate import THREAD_SPEEDUP, progress_walls, serve_seconds
    from builder.dudo_progress import DudoWork

    beside = DudoWork(DUDO_DEFAULT, tmp_path, default=True, beside_lanes=True)
    alone = DudoWork(DUDO_DEFAULT, tmp_path, default=True)
    split = progress_walls()[0]
    assert beside.walls[(5, 5)] == pytest.approx((split[(5, 5)][0] * THREAD_SPEEDUP[(5, 5)], split[(5, 5)][1]))
    assert beside.walls[(3, 3)] == split[(3, 3)] and alone.walls == split
    assert beside.expected_seconds() == pytest.approx(serve_seconds())     # a fresh make serve's, not theirs
    assert max(abs(f - p) for p, f in _played_beside_lanes(beside, tmp_path)) <= 0.03
    assert max(f - p for p, f in _played_beside_lanes(alone, tmp_path)) >= 0.05


def test_a_make_serve_builds_dudo_fraction_read_back_beside_the_lanes(tmp_path):
    """The 11:18 make serve's Dudo samples (tests/builder/data/dudo_serve_build_1118.json: the fraction its weights
    of a build alone said) read back through the schedule of a build beside the lanes as the weights beside them
    say it, then as the share of its wall a make serve build has passed at that work counted (``SERVE_WALL_SHARES``,
    of four later builds; this one is not among them), its time left from a make serve's expected wall
    (``SERVE_WALLS``): the fraction within 0.10 of the share of its wall at every sample (87 of 92 as said), the
    time left at 91 (47 as said, from the 761.5 s of the measured builds alone; 84 read back from those, 64 from a
    make serve's wall without the shares)."""
    import json
    from pathlib import Path

    import numpy as np

    from builder.dudo_estimate import serve_wall_share
    from builder.dudo_progress import DudoWork
    from builder.time_left import TimeLeft

    rec = json.loads((Path(__file__).parent / "data" / "dudo_serve_build_1118.json").read_text())
    wall, samples = rec["wall"], rec["samples"]
    beside = DudoWork(DUDO_DEFAULT, tmp_path, default=True, beside_lanes=True)
    alone = DudoWork(DUDO_DEFAULT, tmp_path, default=True)
    said = np.array([f for _, f in _played_beside_lanes(alone, tmp_path)] + [1.0])
    then = np.array([f for _, f in _played_beside_lanes(beside, tmp_path)] + [1.0])

    def within(read_back: bool, expected: float) -> tuple[int, int]:
        left, fractions, times = TimeLeft(expected), 0, 0
        for t, f in samples:
            f = serve_wall_share(float(np.interp(f, said, then))) if read_back else f
            fractions += abs(f - t / wall) <= 0.10
            times += abs(left(t, f) - (wall - t)) <= 0.10 * wall
        return fractions, times

    assert len(samples) == 92
    assert within(False, alone.expected_seconds()) == (87, 47)
    fractions, times = within(True, beside.expected_seconds())
    assert fractions == 92 and times >= 91
