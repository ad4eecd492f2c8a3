"""The build's progress file (``games.buildprogress``) as the builder keeps it, and the build order.

A plan is built smallest first (by each store's expected time: the last time measured on this root, else
``builder.profiles.EXPECTED_SECONDS``; unknown ones last, in profile order), so that a server started beside
the first build (``python -m launcher``, ``make serve``) has something to serve within seconds.
"""
from __future__ import annotations

import functools
import hashlib
import sys
import threading
import time
from pathlib import Path

from builder.lane_cpu import machine_idle_seconds
from builder.lane_forecast import Counted, LaneForecast
from builder.profiles import DEFAULT, EXPECTED_SECONDS
from builder.step_seconds import expected_cpu_seconds
from builder.steps import on_terminal, steps_of
from builder.time_left import TimeLeft
from games.buildprogress import HEARTBEAT_SECONDS, BuildProgress, measured_seconds, record_seconds


def timing_key(variant: str, params) -> str:
    """The key of a store's measured build time: its variant and a digest of its parameters (a full build
    of a variant takes far longer than a default one)."""
    return f"{variant} {hashlib.sha256(repr(params).encode()).hexdigest()[:10]}"


def expected_seconds(root: Path, plan: dict) -> dict[str, float | None]:
    """{variant: expected build seconds}: the last time measured on this root for these parameters, else the
    default profile's figure (``EXPECTED_SECONDS``) when the parameters are the default profile's, else None."""
    measured = measured_seconds(root)
    out = {}
    for v, params in plan.items():
        fallback = EXPECTED_SECONDS.get(v) if repr(DEFAULT.get(v)) == repr(params) else None
        out[v] = measured.get(timing_key(v, params), fallback)
    return out


def steps_seconds(variant: str, params) -> float | None:
    """A store's expected seconds by its steps' measured walls (``builder.step_seconds``), known before its build
    starts; None for a store whose steps have none (Dudo: its own model, once its build runs)."""
    from builder.guesswho import GuessWhoParams, guesswho_step_seconds
    from builder.hangman import HangmanParams, hangman_step_seconds
    from builder.jotto import JottoParams, jotto_step_shares

    if isinstance(params, JottoParams):
        return sum(jotto_step_shares(variant, params).values())
    if isinstance(params, GuessWhoParams):
        return sum(guesswho_step_seconds().values())
    if isinstance(params, HangmanParams):
        return sum(hangman_step_seconds().values())
    return None


def steps_cpu_seconds(variant: str, params) -> float | None:
    """A store's expected CPU seconds: its steps' expected seconds at the CPU per second its measured builds spent
    (``builder.step_seconds.expected_cpu_seconds``); None where none was measured (Dudo)."""
    wall = steps_seconds(variant, params)
    return expected_cpu_seconds(variant, wall) if wall else None


def rests_by_tasks(plan: dict) -> dict:
    """{variant: f(work counted, workers) -> [(share of its CPU left, tasks side by side)]} of the plan's stores whose
    steps say it (Jotto's: ``builder.jotto.rest_by_tasks``), for the lanes' schedule."""
    from builder.jotto import JottoParams, rest_by_tasks

    return {v: functools.partial(rest_by_tasks, v, p) for v, p in plan.items() if isinstance(p, JottoParams)}


def smallest_first(plan: dict, root: Path) -> dict:
    """The plan reordered by expected build time, shortest first; variants without an estimate keep their
    profile order after those with one."""
    expected = expected_seconds(root, plan)
    order = sorted(enumerate(plan), key=lambda iv: (expected[iv[1]] is None, expected[iv[1]] or 0.0, iv[0]))
    return {v: plan[v] for _, v in order}


class ProgressReporter:
    """Writes ``<root>/.build-progress.json``: at start, at each store's start and end, and every
    ``HEARTBEAT_SECONDS`` (a daemon thread) so that readers can tell a running build from a dead one."""

    def __init__(self, root: Path, plan: dict, heartbeat: float = HEARTBEAT_SECONDS,
                 stop_types: tuple[type[BaseException], ...] = (KeyboardInterrupt,), out=None,
                 lanes: list[list[str]] | None = None, clock=time.monotonic):
        self.root = Path(root)
        self.out = out
        self._stop_types = stop_types
        exp = expected_seconds(self.root, plan)
        self._keys = {v: timing_key(v, p) for v, p in plan.items()}
        measured = measured_seconds(self.root)
        self._measured_here = {v for v in plan if self._keys[v] in measured}   # built on this root before
        self._steps_seconds = {v: steps_seconds(v, p) for v, p in plan.items()}
        self._forecast = LaneForecast(lanes or [list(plan)], {v: steps_cpu_seconds(v, p) for v, p in plan.items()},
                                      {v: exp[v] or self._steps_seconds[v] for v in plan}, clock=clock,
                                      rest_by_tasks=rests_by_tasks(plan))
        self._unestimated: set[str] = set()     # stores whose expected time says nothing of this build
        self.progress = BuildProgress.start([(v, exp[v]) for v in plan])
        self._by_name = {v.variant: v for v in self.progress.variants}
        self._current: dict[str, float] = {}   # variant -> its start (perf_counter), one per build lane
        self._cpu: dict[str, tuple] = {}        # variant -> (its lane's CPU count, that count at its start)
        self._time_left: dict[str, TimeLeft] = {}   # variant -> its time left's estimate, once counted
        self._own_left: dict[str, float | None] = {}  # variant -> its time left from its own pace, last counted
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._heartbeat = heartbeat
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "ProgressReporter":
        self._write()
        self._thread = threading.Thread(target=self._run, daemon=True, name="build-progress")
        self._thread.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            if exc_type is None:
                self.progress.state = "done"
            elif issubclass(exc_type, self._stop_types):
                self.progress.state, self.progress.message = "stopped", "interrupted; a rerun resumes"
            else:
                self.progress.state = "failed"
                self.progress.message = f"{exc_type.__name__}: {exc}"[:300]
                for v in self._current:
                    self._by_name[v].state = "failed"
        self._write()

    def _run(self) -> None:
        while not self._stop.wait(self._heartbeat):
            self._write()

    def _write(self) -> None:
        with self._lock:
            for v, t0 in self._current.items():
                self._by_name[v].seconds = time.perf_counter() - t0
                self._by_name[v].cpu_seconds = self._cpu_since_start(v)
                self._count_work(self._by_name[v])
            try:
                self._through_the_lanes()
            except Exception:  # noqa: BLE001 - progress is for display: never fail the build (its own estimates stand)
                pass
            try:
                self.progress.write(self.root)
            except OSError:
                pass  # progress is for display: a full disk must not fail the build

    def _count_work(self, v) -> None:
        """The store's fraction from its build's steps (``builder.steps``), and its time left from that and the
        seconds it has taken (``builder.time_left``: the expected time at first, the pace kept as it goes)."""
        steps = steps_of(v.variant)
        if steps is None:
            if v.variant not in self._time_left:    # not counting yet (imports, a compile): nothing done
                v.work_fraction, v.work_remaining = 0.0, self._prior(v, None)
                v.counted, self._own_left[v.variant] = 0.0, v.work_remaining
            return                                  # counted before: its last count stands until it is published
        try:
            steps.poll()
            f = steps.fraction()
            v.cores_ahead = steps.cores_ahead()
            v.tasks = steps.tasks()
        except Exception:  # noqa: BLE001 - progress is for display: never fail the build
            return
        left = self._time_left.setdefault(v.variant, TimeLeft(self._prior(v, steps)))
        v.work_fraction = v.counted = f
        v.work_remaining = self._own_left[v.variant] = left(v.seconds, f)

    def _through_the_lanes(self) -> None:
        """Each running store's time left and fraction through the lanes' schedule (``builder.lane_forecast``);
        where the lanes' CPU is not measured (no ``/proc``, a lane's first seconds) they stand as counted from the
        store's own pace."""
        running = []
        for variant in self._current:
            v = self._by_name[variant]
            cpu = self._cpu.get(variant, (None, None))[0]
            if cpu is None or v.lane is None or v.counted is None:
                return
            v.nice = cpu.nice()
            self._forecast.observe_lane(v.lane, cpu.seconds(), v.nice, cpu.executor.local_cores)
            own = self._time_left.get(variant)
            running.append(Counted(variant, v.lane, v.seconds, v.counted, v.cpu_seconds, self._own_left.get(variant),
                                   v.cores_ahead, own.expected if own is not None else None))
        if not running:
            return
        self.progress.idle_seconds = machine_idle_seconds()
        self._forecast.observe_machine(self.progress.idle_seconds)
        planned = {v.variant for v in self.progress.variants if v.state == "planned"}
        said = self._forecast.estimate(running, planned)
        for variant in planned:
            self._by_name[variant].published_in = self._forecast.coming.get(variant)
        for c in running:
            steps = steps_of(c.variant)
            if c.variant in said:
                self._by_name[c.variant].work_fraction, self._by_name[c.variant].work_remaining = said[c.variant]
            if steps is not None:       # its log lines say the fraction /readyz says (none said: the work counted)
                steps.said = self._by_name[c.variant].fraction if c.variant in said else None

    def _cpu_since_start(self, variant: str) -> float | None:
        count, at_start = self._cpu.get(variant, (None, None))
        now = count.seconds() if count is not None else None
        return None if now is None or at_start is None else now - at_start

    def _prior(self, v, steps) -> float | None:
        """The expected seconds the store's time left starts from: its last time on this root for these parameters,
        else its steps' own (the measured builds their weights come from: ``builder.step_seconds``, Dudo's
        ``builder.dudo_estimate.progress_walls``), else the profile's; none where an estimate says nothing."""
        if v.variant in self._unestimated:
            return None
        if v.variant in self._measured_here:
            return v.expected_seconds
        own = steps.expected_seconds() if steps is not None else self._steps_seconds.get(v.variant)
        return own or v.expected_seconds

    def started(self, variant: str, estimate: bool = True, lane: int | None = None, cpu=None) -> None:
        """``variant`` is being built; ``estimate`` False: its expected time says nothing of this build (a lane at
        nice 19 beside a store that keeps the cores takes what that store leaves it), so no fraction or ETA.
        ``lane``: the build lane it is built in; ``cpu``: that lane's CPU count (``builder.lane_cpu.LaneCpu``)."""
        at_start = cpu.seconds() if cpu is not None else None
        with self._lock:
            self._current[variant] = time.perf_counter()
            self._cpu[variant] = (cpu, at_start)
            self._by_name[variant].state = "building"
            self._by_name[variant].lane = lane
            if not estimate:
                self._by_name[variant].expected_seconds = None
                self._unestimated.add(variant)
        self._line(f"{variant}: build started")
        self._write()

    def finished(self, variant: str, seconds: float | None = None, measured: bool = True) -> None:
        """``variant`` is published (``measured``: its build time is recorded for the next estimates)."""
        with self._lock:
            v = self._by_name[variant]
            v.state = "done"
            if seconds is not None:
                v.seconds = seconds
            self._current.pop(variant, None)
        if seconds is not None:
            self._line(f"{variant}: published, built in {seconds:.1f} s")
        if measured and seconds is not None:
            try:
                record_seconds(self.root, self._keys[variant], seconds)
            except OSError:
                pass
        self._write()

    def _line(self, text: str) -> None:
        """A store's start and publication in the build's log (not on a terminal, whose bars say it), stamped as
        the steps' lines are: bench.build_progress reads each store's wall from them."""
        out = self.out or sys.stderr
        if not on_terminal(out):
            print(f"{time.strftime('%H:%M:%S')} {text}", file=out, flush=True)
