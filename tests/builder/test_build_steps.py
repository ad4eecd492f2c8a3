"""What a build says of itself: the store's fraction built weighted by each step's cost (Jotto and the others
in-process, Dudo from its workers' files), the progress file's fraction and time left from it, and a log that
`tail` reads (lines, no progress bars)."""
import io
import json
import re
import time

import pytest

from builder.dudo import build_dudo_store
from builder.dudo_progress import DudoWork, tables_marker
from builder.jotto import JottoParams, build_jotto_store
from builder.profiles import DUDO_DEFAULT
from builder.progress import ProgressReporter
from builder.steps import StoreSteps, steps_of
from games.buildprogress import read_progress
from games.dudo.build.params import DudoParams
from tests.conftest import SMALL_VARIANT


def test_the_fraction_weights_each_step_by_its_share_and_the_log_is_lines():
    out = io.StringIO()
    clock = [0.0]
    with StoreSteps("v", {"cheap": 1.0, "dear": 3.0}, out=out, every=10.0, clock=lambda: clock[0]) as steps:
        assert steps_of("v") is steps
        with steps.step("cheap", 2) as s:
            s.update()
            assert steps.fraction() == 0.125
        assert steps.fraction() == 0.25
        with steps.step("dear", 100) as s:
            for _ in range(50):
                clock[0] += 1.0
                s.update()
            assert steps.fraction() == 0.25 + 0.75 * 0.5
    assert steps_of("v") is None
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue() and all(len(line) < 200 for line in lines)
    # a start and an end line a step, and in 50 s of updates one line every 10 s
    assert sum("dear " in line and "/100" in line and "done" not in line for line in lines) == 5
    assert lines[-1].endswith("dear done (100/100); the store about 100% built") or "dear done" in lines[-1]


def test_a_timed_step_moves_with_its_time_between_its_counts():
    """Shares in expected seconds: a running step is as far as its time says at the build's pace, never less than its
    counts and at most 0.9 of the way to its next count; once the build has shown its pace (twice the model's here),
    its steps' time is read at that pace."""
    clock = [0.0]
    with StoreSteps("t", {"a": 10.0, "b": 10.0}, out=io.StringIO(), clock=lambda: clock[0], timed=True) as steps:
        a = steps.step("a", 1)
        clock[0] = 5.0
        assert steps.fraction() == pytest.approx(0.25)          # half of a's expected 10 s
        clock[0] = 15.0
        assert steps.fraction() == pytest.approx(0.45)          # past its time: 0.9 of it until it ends
        clock[0] = 20.0
        a.close()
        assert steps.fraction() == pytest.approx(0.5)
        b = steps.step("b", 4)
        clock[0] = 25.0                                          # a quarter of b's time at the build's pace (2x)
        assert steps.fraction() == pytest.approx(0.5 + 0.5 * 0.9 * 0.25)    # but 0.9 of its first count at most
        b.update(1)
        clock[0] = 30.0                                          # half its time, one count of four
        assert steps.fraction() == pytest.approx(0.5 + 0.5 * (0.25 + 0.9 * 0.25))
        b.update(3)                                              # counts ahead of its time
        assert steps.fraction() == pytest.approx(1.0)
        b.close()
    with StoreSteps("u", {"a": 10.0}, out=io.StringIO(), clock=lambda: clock[0]) as steps:   # not timed: counts
        steps.step("a", 2)
        clock[0] = 45.0
        assert steps.fraction() == 0.0


def test_a_step_of_uneven_counts_is_counted_by_their_measured_cost():
    """The exact double oracle's first rounds are cheap (11 of 49 in about 7 % of its CPU): counted by the measured
    costs, 11 rounds say 0.073 of it, not 11 / 49 = 0.22; between the points, linearly; its first rounds from nothing
    (round 1 read along the line through rounds 11 and 19 said -0.067, round 10 0.059, where it came at 0.03)."""
    from builder.step_seconds import EXACT_DO_ROUND_COSTS, EXACT_DO_ROUNDS

    with StoreSteps("c", {"exact double oracle": 1.0}, out=io.StringIO()) as steps:
        step = steps.step("exact double oracle", 200, expected=EXACT_DO_ROUNDS, costs=EXACT_DO_ROUND_COSTS)
        step.update(1)
        assert steps.fraction() == pytest.approx(0.003)
        step.update(9)
        assert steps.fraction() == pytest.approx(0.03)
        step.update(1)
        assert steps.fraction() == pytest.approx(0.073)
        step.update(4)
        assert steps.fraction() == pytest.approx(0.073 + (0.185 - 0.073) * 4 / 8)
        step.update(EXACT_DO_ROUNDS)
        assert steps.fraction() == 1.0


def test_a_step_on_one_thread_says_so_to_the_lanes_forecast():
    """The lanes' forecast gives a store no more cores than its running step runs on (builder.lane_forecast)."""
    with StoreSteps("c", {"setup": 1.0, "exact double oracle": 3.0}, out=io.StringIO()) as steps:
        with steps.step("setup", 1):
            assert steps.cores_ahead() is None          # a step that does not say
        with steps.step("exact double oracle", 4, cores=1) as step:
            step.update(2)
            assert steps.cores_ahead() == [(pytest.approx(1.5), 1)]     # the half of its 3 left, on one thread


def test_a_store_says_the_tasks_its_running_steps_run_side_by_side():
    with StoreSteps("c", {"setup": 1.0, "trees": 1.0, "search": 1.0}, out=io.StringIO()) as steps:
        with steps.step("setup", 1):
            assert steps.tasks() is None                # a step that does not say
        with steps.step("trees", 4, tasks=2):
            assert steps.tasks() == 2
            assert steps.cores_ahead() is None          # its tasks say nothing of the store's rest
        with steps.step("search", 4, cores=1):
            assert steps.tasks() == 1                   # a step on one thread runs one task


def _write_group(work, a, b, what, t=0):
    stem = work / f"dudo_{a}v{b}_m2"
    if what == "training":
        (work / f"dudo_{a}v{b}_m2.npz.progress").write_text(json.dumps({"t": t}))
    elif what == "trained":
        (work / f"dudo_{a}v{b}_m2.trained.json").write_text("{}")
    else:
        stem.with_suffix(".json").write_text("{}")


def test_the_dudo_fraction_counts_the_biggest_rounds_iterations_by_their_cost(tmp_path):
    """The issue's case: every group below done, 5v5 at 27 of its 60 iterations. The fraction counts by the
    default build's measured walls, so 5v5's training moves it (a count of groups would say 14 of 15 done)."""
    work = DudoWork(DUDO_DEFAULT, tmp_path, default=True)
    assert work.fraction() == 0.0
    groups = sorted(work.walls)
    for a, b in groups:
        if (a, b) not in ((4, 5), (5, 5)):
            _write_group(tmp_path, a, b, "done")
    _write_group(tmp_path, 4, 5, "trained")
    before = work.fraction()
    _write_group(tmp_path, 5, 5, "training", 27)
    mid = work.fraction()
    _write_group(tmp_path, 5, 5, "training", 60)
    after = work.fraction()
    # the 5v5 training step (with 4v5's measuring beside it) is about a ninth of the modelled build, and its
    # iterations move the fraction in proportion; 5v5 at 27/60 is far from "99 %"
    assert 0.05 < after - before < 0.16 and abs((mid - before) / (after - before) - 27 / 60) < 0.15
    tables = sum(work.tables.values()) / work.total      # the search tables after the last group: about a seventh
    assert 0.1 < tables < 0.2
    assert 0.8 < mid / (1 - tables) < 0.92
    (tmp_path / "running").mkdir()
    (tmp_path / "running" / "5v5").write_text("1")
    (tmp_path / "running" / "4v5-measure").write_text("1")
    assert work.describe() == "training 5v5 (60/60 iterations); measuring 4v5"
    for p in (tmp_path / "running").iterdir():
        p.unlink()
    (tmp_path / "dudo_4v5_m2.json").write_text("{}")
    (tmp_path / "dudo_5v5_m2.json").write_text("{}")
    rows = (work.total - sum(work.step_walls) - sum(work.tables.values())) / work.total   # the rows and the publish
    assert rows < 0.03
    assert abs(work.fraction() - (1 - tables - rows)) < 0.001 and work.describe() == "search tables (0/9 groups)"
    for a, b in work.tables:
        (tmp_path / tables_marker(a, b)).write_text("{}")
    # 1v5 kept on the rows; 1v2 for its exact round 2v1
    assert abs(work.fraction() - (1 - rows)) < 0.001 and work.describe() == "search tables (9/9 groups)"


def test_the_reporter_writes_the_counted_fraction_and_the_time_left_at_the_pace_kept(tmp_path):
    plan = {"dudo-x": None}
    with ProgressReporter(tmp_path, plan, heartbeat=3600) as rep:
        with StoreSteps("dudo-x", {"all": 1.0}) as steps:
            rep.started("dudo-x", estimate=False)
            p = read_progress(tmp_path).variants[0]
            assert p.fraction == 0.0 and p.remaining_seconds() is None
            step = steps.step("all", 10)
            step.update(5)
            rep._current["dudo-x"] = time.perf_counter() - 30.0   # 30 s into the build: half done
            rep._write()
            p = read_progress(tmp_path).variants[0]
            assert p.fraction == 0.5 and abs(p.remaining_seconds() - 30.0) < 1.0
            summary = read_progress(tmp_path).summary()[0]
            assert summary["fraction"] == 0.5 and abs(summary["eta_seconds"] - 30.0) < 1.0
            step.close()


@pytest.mark.parametrize("case, first_left", [("fresh root", 100.0), ("built here before", 250.0),
                                              ("a lane without an estimate", None)])
def test_the_time_left_starts_from_the_best_expected_time_there_is(tmp_path, case, first_left):
    """The first time left of a store whose steps are timed: its last time on this root for these parameters, else its
    steps' own expected seconds (the measured build their weights come from), not the profile's figure; none in a lane
    whose estimate says nothing."""
    from builder.progress import timing_key
    from games.buildprogress import record_seconds

    plan = {"jotto-q": None}
    if case == "built here before":
        record_seconds(tmp_path, timing_key("jotto-q", None), 250.0)
    with ProgressReporter(tmp_path, plan, heartbeat=3600) as rep:
        rep.progress.variants[0].expected_seconds = rep.progress.variants[0].expected_seconds or 16.7
        rep.started("jotto-q", estimate=case != "a lane without an estimate")
        with StoreSteps("jotto-q", {"a": 40.0, "b": 60.0}, timed=True):
            rep._write()
            left = read_progress(tmp_path).variants[0].remaining_seconds()
    assert left == (None if first_left is None else pytest.approx(first_left, rel=0.01))


def test_before_its_steps_start_a_store_says_its_steps_expected_time(tmp_path):
    """A default Guess Who store on a fresh root, before its build registers its steps: the time left is its steps'
    measured seconds (about 5 s), not the profile's older figure (19.9 s)."""
    from builder.guesswho import guesswho_step_seconds
    from builder.profiles import DEFAULT, EXPECTED_SECONDS

    with ProgressReporter(tmp_path, {"guesswho-24": DEFAULT["guesswho-24"]}, heartbeat=3600) as rep:
        rep.started("guesswho-24")
        rep._write()
        left = read_progress(tmp_path).variants[0].remaining_seconds()
    assert left == pytest.approx(sum(guesswho_step_seconds().values())) and left < EXPECTED_SECONDS["guesswho-24"] / 2


def _fractions(err: str, variant: str) -> list[int]:
    """The store's percentages its log lines state, in order."""
    return [int(m) for m in re.findall(rf"{re.escape(variant)}: .*; the store about (\d+)% built", err)]


def test_a_jotto_build_reports_a_fraction_that_grows_to_one(tmp_path, capsys):
    build_jotto_store(SMALL_VARIANT, JottoParams(fp_iterations=200, do_iterations=4, book_threshold=6), tmp_path)
    err = capsys.readouterr().err
    seen = _fractions(err, SMALL_VARIANT)
    assert seen == sorted(seen) and seen[-1] == 100 and len(set(seen)) >= 5, err
    assert "\r" not in err     # no progress bar off a terminal


def test_a_jotto_builds_long_steps_count_within_themselves(tmp_path, monkeypatch):
    """The setup (dictionary, oracle) is a step counted from the build's start; the fixed guessers, the hider selection,
    the robust hider and the value bracket count their trees and searches, so the fraction moves inside them instead
    of jumping at their end; and every step the build runs has a measured share."""
    from builder.jotto import jotto_step_shares

    seen: dict[str, list[float]] = {}
    registered_before_setup = []
    real = StoreSteps.set_done

    def set_done(self, name, fraction):
        seen.setdefault(name, []).append(fraction)
        real(self, name, fraction)

    import builder.jotto as jotto
    real_init = jotto._JottoBuild.__init__

    def init(self, variant, *a, **kw):
        registered_before_setup.append(steps_of(variant) is not None)
        real_init(self, variant, *a, **kw)

    monkeypatch.setattr(StoreSteps, "set_done", set_done)
    monkeypatch.setattr(jotto._JottoBuild, "__init__", init)
    params = JottoParams(fp_iterations=10, do_iterations=2, hedge_iterations=12, people_oracle="gbr",
                         robust_hider=True, certify="served", certify_nodes=1, certify_steps=3)
    build_jotto_store(SMALL_VARIANT, params, tmp_path)
    assert registered_before_setup == [True]
    for step in ("fixed guessers", "hider selection", "robust hider", "value bracket"):
        inside = [f for f in seen.get(step, []) if 0.0 < f < 1.0]
        assert len(set(inside)) >= 2, (step, seen.get(step))
    assert set(seen) == set(jotto_step_shares(SMALL_VARIANT, params))


def test_a_jotto_builds_restricted_games_are_a_step_of_their_own(tmp_path, monkeypatch):
    """The restricted game over Hedge's columns (with the double oracle's final mixture, the hider selection's anchors)
    runs in a step of their own with its share of the store, not after the double oracle's last count with nothing
    counted; the one over every column the double oracle found is not solved again there (DOState.hider)."""
    import builder.jotto as jotto

    during = []
    real = jotto.restricted_game

    def restricted_game(G):
        steps = steps_of(SMALL_VARIANT)
        during.append((steps.current, steps.shares.get(steps.current, 0.0)))
        return real(G)

    monkeypatch.setattr(jotto, "restricted_game", restricted_game)
    params = JottoParams(fp_iterations=10, do_iterations=2, hedge_iterations=12, book_threshold=6)
    build_jotto_store(SMALL_VARIANT, params, tmp_path)
    assert [step for step, _ in during] == ["restricted games"]     # Hedge's
    assert all(share > 0 for _, share in during)
    steps = jotto.jotto_steps(params)
    assert steps.index("restricted games") == steps.index("double oracle") + 1 == steps.index("hider selection") - 1


def test_every_default_stores_steps_have_measured_walls():
    """Each default Jotto store's steps (as its parameters run them) are the steps of its measured builds, and so are
    Guess Who's and Hangman's: no step counted without a weight, no weight for a step that does not run."""
    from builder.jotto import jotto_steps
    from builder.profiles import DEFAULT
    from builder.step_seconds import MEASURED_BUILDS, measured_step_seconds

    for variant, params in DEFAULT.items():
        if variant.startswith("jotto-"):
            assert set(measured_step_seconds(variant)) == set(jotto_steps(params)), variant
    for build in MEASURED_BUILDS.values():
        assert set(build["guesswho-24"]) == {"exact DP", "optimiser races", "figures", "publish"}
        assert set(build["hangman-en_US50-5"]) == {"tables", "evaluation games", "publish"}


def test_a_dudo_build_reports_its_groups_as_they_train(tmp_path, capsys):
    params = DudoParams(max_dice=2, iterations=40)
    work = []
    real_poll = DudoWork.poll

    def poll(self):     # the progress file's heartbeat, once a group's files change
        work.append((self.fraction(), self.describe()))
        real_poll(self)

    from games.dudo.solvers import training
    real_report = training._ProgressFile.__call__

    def report(self, t, force=False):
        real_report(self, t, force=True)
        s = steps_of(params.variant)
        if s is not None:
            s.poll()

    import pytest
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(DudoWork, "poll", poll)
        mp.setattr(training._ProgressFile, "__call__", report)
        build_dudo_store(params, tmp_path)
    fractions = [f for f, _ in work]
    assert fractions == sorted(fractions) and 0.0 < fractions[-1] and len(set(fractions)) >= 5
    # the training counts are no group result (*.json: the kernels' warm-up waits for one) and go with the build
    workdir = tmp_path / ".work" / "dudo" / params.variant
    assert not list(workdir.glob("*.progress")) and not list(workdir.glob("*.json"))
    assert any("iterations)" in d for _, d in work)
    assert "\r" not in capsys.readouterr().err


def test_a_store_not_counting_yet_is_at_zero_not_at_its_elapsed_time(tmp_path):
    """Before the store's build registers its steps (imports, a compile), its fraction is 0, not seconds / expected:
    the fraction never goes back once the count starts."""
    plan = {"dudo-y": None}
    with ProgressReporter(tmp_path, plan, heartbeat=3600) as rep:
        rep.progress.variants[0].expected_seconds = 100.0
        rep.started("dudo-y")
        rep._current["dudo-y"] = time.perf_counter() - 40.0
        rep._write()
        p = read_progress(tmp_path).variants[0]
        assert p.fraction == 0.0 and p.remaining_seconds() == 100.0


def test_a_counted_store_keeps_its_count_until_published(tmp_path):
    """A store's last count stands when its steps end before it is published (a Dudo build writes its search
    tables after its solve)."""
    with ProgressReporter(tmp_path, {"dudo-z": None}, heartbeat=3600) as rep:
        rep.started("dudo-z")
        with StoreSteps("dudo-z", {"all": 1.0}) as steps:
            steps.step("all", 4).update(3)
            rep._write()
        rep._write()
        assert read_progress(tmp_path).variants[0].fraction == 0.75


def test_the_dudo_build_is_counted_until_its_store_is_published(tmp_path, monkeypatch):
    import builder.dudo as dudo

    params = DudoParams(max_dice=1, iterations=10)
    seen = []
    publish = dudo.StoreWriter.publish

    def checked(self, manifest):
        seen.append(steps_of(params.variant))
        return publish(self, manifest)

    monkeypatch.setattr(dudo.StoreWriter, "publish", checked)
    build_dudo_store(params, tmp_path)
    assert len(seen) == 1 and isinstance(seen[0], DudoWork) and steps_of(params.variant) is None


def _time_left_gaps(counts, expected, wall):
    """(said less true time left) / wall at each (seconds, fraction) count of a build of ``wall`` seconds."""
    from builder.time_left import TimeLeft

    left = TimeLeft(expected)
    return [(left(t, f) - (wall - t)) / wall for t, f in counts]


def test_the_time_left_is_the_expected_time_at_first_and_the_pace_kept_later():
    """The first count says the expected time; a build that keeps half the model's pace is told so as it goes (within
    0.10 of its wall from a third of it on)."""
    from builder.time_left import TimeLeft

    assert TimeLeft(100.0)(0.0, 0.0) == pytest.approx(100.0)
    counts = [(t, t / 200.0) for t in range(0, 200, 5)]      # 200 s where 100 were expected
    gaps = _time_left_gaps(counts, 100.0, 200.0)
    assert all(abs(g) <= 0.10 for (t, _), g in zip(counts, gaps) if t >= 200 / 3)
    assert abs(gaps[0]) == pytest.approx(0.5)                # nothing known yet: the expected 100 s


def test_a_fast_first_step_does_not_set_the_time_left():
    """A build whose first 10 s count a tenth of it (a step lighter than its weight) and then keeps the model's pace:
    the time left stays within a quarter of the build's wall, where extrapolating the first pace said 90 s of 190."""
    counts = [(5.0, 0.05), (10.0, 0.10)] + [(t, 0.10 + 0.9 * (t - 10) / 190) for t in range(15, 200, 5)]
    gaps = _time_left_gaps(counts, 200.0, 200.0)
    assert max(abs(g) for g in gaps) <= 0.25
    assert all(abs(g) <= 0.10 for (t, _), g in zip(counts, gaps) if t >= 100)


def test_without_an_expected_time_the_time_left_waits_for_a_pace():
    from builder.time_left import TimeLeft

    assert TimeLeft(None)(5.0, 0.01) is None
    assert TimeLeft(None)(40.0, 0.4) == pytest.approx(60.0)     # 40 s for 0.4: the same again and a half


def test_a_value_bracket_whose_search_compiles_first_counts_its_exact_search_as_most_of_it(monkeypatch):
    """The 3-letter Jotto store of a fresh clone: its value bracket's second count, the exact search, compiles the
    search kernel (numba's cache cold) and comes at 0.5-0.85 of the step, the bounded search's four probes after it:
    its counts weighed by BRACKET_COMPILE_COSTS (counted even, 2 of 6 counts, it sat 0.1 of the store behind). A
    kernel compiled or cached: even counts."""
    import builder.jotto as jotto
    from builder.step_seconds import BRACKET_COMPILE_COSTS

    monkeypatch.setattr(jotto, "search_compiled", lambda: False)
    costs = jotto.served_bracket_costs(6)
    assert costs == (*BRACKET_COMPILE_COSTS, (6, 1.0))
    with StoreSteps("c", {"value bracket": 1.0}, out=io.StringIO()) as steps:
        step = steps.step("value bracket", 6, costs=costs)
        step.update(1)
        assert steps.fraction() == pytest.approx(0.05)
        step.update(1)
        assert steps.fraction() == pytest.approx(0.75)
        step.update(2)
        assert steps.fraction() == pytest.approx(0.875)
    assert jotto.served_bracket_costs(2) == ((1, 0.05), (2, 1.0))
    monkeypatch.setattr(jotto, "search_compiled", lambda: True)
    assert jotto.served_bracket_costs(6) == ()


@pytest.mark.parametrize("module, kernel, compiled", [("games.jotto.bitset_bb", "best_response_bb", "search_compiled"),
                                                     ("games.jotto.kernels", "rollout_tree", "rollout_compiled")])
def test_a_fresh_processs_kernel_is_not_compiled_with_numbas_cache_cold(module, kernel, compiled, tmp_path):
    """``search_compiled`` / ``rollout_compiled`` in a new process with an empty numba cache (a fresh clone's): False;
    with the kernel's cache index there (a build before on this clone): True."""
    import os
    import subprocess
    import sys

    code = (f"import pathlib; from {module} import {kernel}, {compiled}; "
            f"print({compiled}()); index = pathlib.Path({kernel}._cache._cache_file._index_path); "
            f"index.parent.mkdir(parents=True, exist_ok=True); index.touch(); print({compiled}())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    assert out.stdout.split() == ["False", "True"]


def test_a_robust_hider_whose_workers_compile_first_counts_its_first_rollout_tree_as_most_of_it(monkeypatch):
    """The 3-letter Jotto store of a fresh clone: its robust hider's workers compile the rollout tree's kernel (numba's
    cache cold) and its five rollout trees all come in the step's last seconds: its first count weighed by
    ROBUST_COMPILE_COSTS, so its time moves it to 0.72 of the step (counted even: 0.18, where it stood for 5-6 s of
    its 8-9). A kernel compiled or cached: even counts."""
    import builder.jotto as jotto
    from builder.step_seconds import ROBUST_COMPILE_COSTS

    monkeypatch.setattr(jotto.kernels, "rollout_compiled", lambda: False)
    costs = jotto.robust_hider_costs(5)
    assert costs == (*ROBUST_COMPILE_COSTS, (5, 1.0))
    now = [0.0]
    with StoreSteps("c", {"before": 10.0, "robust hider": 10.0}, out=io.StringIO(), clock=lambda: now[0],
                    timed=True) as steps:
        before = steps.step("before", 1)
        now[0] = 10.0                                   # the pace kept: a second a second of its expected
        before.update(1)
        before.close()
        step = steps.step("robust hider", 5, costs=costs)
        now[0] = 19.0                                   # 0.9 of its expected 10 s at the pace kept
        assert steps.fraction() == pytest.approx(0.5 + 0.5 * 0.9 * 0.8)
        step.update(1)                                  # its first tree: 0.8 of it, its time on to 0.9 of the next
        assert steps.fraction() == pytest.approx(0.5 + 0.5 * (0.8 + 0.9 * 0.2 / 4))
    monkeypatch.setattr(jotto.kernels, "rollout_compiled", lambda: True)
    assert jotto.robust_hider_costs(5) == ()
