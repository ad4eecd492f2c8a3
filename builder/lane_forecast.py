"""Each running store's time left and fraction in a build of lanes, from what the build counts: each store's work
counted and the CPU seconds its lane has spent on it, each lane's CPU rate (measured over the last
``WINDOW_SECONDS``) and niceness, the cores the machine leaves idle; played forwards through the lanes' schedule
(``builder.lane_schedule``).

- **A store's CPU seconds left**: ``builder.time_left.TimeLeft`` in CPU seconds, from its expected CPU seconds (the
  measured builds', ``builder.step_seconds.expected_cpu_seconds``) to the pace per CPU second it keeps. A store
  without an expected CPU time (Dudo, whose fraction is scheduled in wall seconds) counts its wall time left (the
  builder's own, from its pace) at its lane's rate.
- **Dudo's build runs fewer groups side by side as it goes** (its last level's groups alone, then its tables, rows and
  publish): once every lane's rate is measured its time left is shared among those parts as their expected seconds
  are, each asking for the cores of its groups at the rate a group gets now, and the lanes beside it get
  ``LEFT_TO_LANES`` of the cores it leaves.
- **A Jotto store's steps run one task or several** (its tree steps on both workers): its CPU seconds left are shared
  among its steps still to go (``builder.jotto.rest_by_tasks``). The schedule weighs each lane by its running part's
  tasks (Dudo's by its groups), as the kernel weighs each busy task.
- **The machine's pace**: Dudo's own time left against the seconds it expected; beyond ``SAME_MACHINE`` of them
  (a slower or faster machine than the measured one) each store's expected CPU seconds are read at it when the store
  starts.
- **A store to come** in a lane costs its expected CPU seconds at the machine's pace (else its expected time at its
  lane's rate).
- **A lane that has just ended** leaves the cores it held over the window to the lanes left at once (the build's CPU
  rate, every lane's together, less the running lanes').
- **Its time left**: when the schedule says its store ends; **its fraction**: the share of its build's time that has
  passed then, seconds / (seconds + time left): what a person reading "about 40 %" takes it for, where the work
  counted moves at the pace of the cores the lanes leave it; a store scheduled in wall seconds (Dudo) keeps its work
  counted (docs/operations.md has the measurements).
"""
from __future__ import annotations

import collections
import time
from dataclasses import dataclass

from builder.lane_schedule import NEVER, Lane, finish_times, nice_weight, water_fill
from builder.time_left import TimeLeft

# the window a lane's rate and the machine's idle cores are measured over: long enough that a count every 2 s is
# many counts, short enough that a change (another lane's store ending, Dudo's level of one group) is seen in it
WINDOW_SECONDS = 30.0
# the machine's pace (``LaneForecast._machine_speed``) within which it is taken for the machine the expected seconds
# were measured on: the eight make serve traces of that machine (14:19 to 04:55, tests/builder/data/) built Dudo in
# 0.98-1.09 of the wall it expects, and the estimates are judged within 0.10; the 06:34 trace's machine took 1.23
SAME_MACHINE = 0.10
# a rate is read from at least this long a span of counts: the progress file's heartbeat is 2 s, and a store of a few
# seconds (Guess Who, Hangman beside Dudo) needs a rate from its lane's first counts
MIN_SPAN_SECONDS = 1.5
# the share of the cores a part of Dudo's build running fewer groups side by side leaves that reaches the nice-19
# lanes beside it, the rest kept by the machine's other work; measured on a fresh make serve (14:19,
# tests/builder/data/serve_lanes_build_1419.json): Dudo went from 1.6 cores (two groups) to 0.88 (one), the two
# Jotto lanes beside it from 0.29 to 0.80, nothing idle: 0.51 of the 0.72 cores
LEFT_TO_LANES = 0.7
# the CPU rate of a lane whose niceness has just changed, before its rate is read again: make serve's first lane at
# nice 19 once the side lanes start beside Dudo's first groups (Guess Who got 0.44-0.57 of a core in the six traced
# builds, where every lane's share by niceness of the build's rate gave it 0.19)
CHANGED_LANE_RATE = 0.5
# the cores the build's rate may exceed its running lanes' by with no lane just ended (counts' rounding, a lane's window
# a heartbeat longer than another's)
STEADY_CORES = 0.05


class Rate:
    """A cumulative count's rate over the last ``window`` seconds."""

    def __init__(self, window: float = WINDOW_SECONDS):
        self.window = window
        self.counts: collections.deque = collections.deque()    # (clock, count)

    def add(self, t: float, count: float) -> None:
        self.counts.append((t, count))
        while len(self.counts) > 2 and self.counts[1][0] <= t - self.window:
            self.counts.popleft()

    def restart(self) -> None:
        """Read the rate from the last count on."""
        while len(self.counts) > 1:
            self.counts.popleft()

    def rate(self) -> float | None:
        if len(self.counts) < 2:
            return None
        (t0, c0), (t1, c1) = self.counts[0], self.counts[-1]
        return max(0.0, (c1 - c0) / (t1 - t0)) if t1 - t0 >= MIN_SPAN_SECONDS else None


@dataclass
class Counted:
    """One running store as the build counts it now."""
    variant: str
    lane: int
    seconds: float                  # wall seconds since its build started
    counted: float                  # its work counted, 0..1
    cpu_seconds: float | None       # CPU seconds its lane has spent on it
    wall_left: float | None = None  # its time left from its own wall pace (``builder.time_left``), None: none
    # [(expected seconds, tasks side by side)] of its build still to go, where its steps know it (Dudo's groups)
    cores_ahead: list | None = None
    expected: float | None = None   # the expected seconds its own time left (``wall_left``) starts from, None: none


@dataclass
class _Lane:
    rate: Rate
    nice: int = 0
    cap: float = 1.0
    changed: bool = False       # its niceness changed while it ran: its rate read from then on


class LaneForecast:
    """The lanes' forecast: feed it the lanes' counts (``observe_lane``, ``observe_machine``) and ask ``estimate``."""

    def __init__(self, lanes: list[list[str]], cpu_expected: dict[str, float | None],
                 wall_expected: dict[str, float | None], window: float = WINDOW_SECONDS, clock=time.monotonic,
                 rest_by_tasks: dict | None = None):
        self.lanes = lanes
        self.cpu_expected = cpu_expected
        self.wall_expected = wall_expected
        # {variant: f(work counted, workers) -> [(share of its CPU left, tasks side by side)]} of a store whose steps
        # run different numbers of tasks (``builder.jotto.rest_by_tasks``)
        self.rest_by_tasks = rest_by_tasks or {}
        self.window, self.clock = window, clock
        self._lanes: dict[int, _Lane] = {}
        self._idle = Rate(window)
        self._build = Rate(window)      # every lane's CPU together, those that have ended too
        self._build_cpu = 0.0
        self._cpu_left: dict[str, TimeLeft] = {}
        # each store's tasks side by side at each estimate over the window (clock, tasks): a lane's rate is read over
        # the window, and a part that has just started has not set it yet
        self._tasks: dict[str, collections.deque] = {}
        self._lane_tasks: dict[int, collections.deque] = {}    # each lane's tasks side by side, likewise
        self.coming: dict[str, float] = {}      # the last estimate's stores to come: seconds until each ends
        self.speed = 1.0        # the machine's pace against the expected seconds (``_machine_speed``)

    def observe_lane(self, lane: int, cpu_seconds: float | None, nice: int | None, cap: float) -> None:
        """The lane's CPU count now (its thread and workers: ``builder.lane_cpu.LaneCpu``), niceness and cores. A
        lane whose niceness changes reads its rate from then on, this count the first (``make serve``'s first lane
        builds the 3-letter Jotto store at the build's nice 10 on both cores, then Guess Who and Hangman at 19: over a
        window of both, Hangman's lane read 1.1 cores where it got 0.4; from the count before the change, Guess Who's
        0.9-1.0 where it got 0.44-0.57)."""
        state = self._lanes.setdefault(lane, _Lane(Rate(self.window)))
        changed = nice is not None and nice != state.nice and bool(state.rate.counts)
        if cpu_seconds is not None:
            if state.rate.counts:
                self._build_cpu += max(0.0, cpu_seconds - state.rate.counts[-1][1])
            state.rate.add(self.clock(), cpu_seconds)
        if changed:
            state.rate.restart()
            state.changed = True
        state.nice = state.nice if nice is None else nice
        state.cap = max(1.0, cap)

    def observe_machine(self, idle_seconds: float | None) -> None:
        """The machine's idle core seconds so far (``builder.lane_cpu.machine_idle_seconds``), after the lanes'."""
        if idle_seconds is not None:
            self._idle.add(self.clock(), idle_seconds)
        self._build.add(self.clock(), self._build_cpu)

    def estimate(self, running: list[Counted], planned: set[str]) -> dict[str, tuple[float, float]]:
        """{variant: (fraction, seconds left)} of the running stores; {} while no lane's rate or a store's CPU left
        is known yet (the builder's own estimates stand then)."""
        lanes, order, known, own = [], [], True, {}
        self.speed = self._machine_speed(running)
        rates, idle = self._rates(running)
        measured = self._measured(running)
        if measured:
            rates = self._rates_by_tasks_now(running, rates)
        for c in running:       # every store's CPU left counted at every estimate: its pace's window needs them all
            state = self._lanes.get(c.lane)
            rate = rates.get(c.lane)
            left = self._cpu_seconds_left(c, rate)
            if rate is None or left is None:
                known = False
                continue
            end = self._changed_lane_end(c, state, left)
            if end is not None:
                own[c.variant] = end
            parts, asks, tasks = self._store_parts(c, rate, left, state.cap, measured)
            names = self._coming(c.variant, planned)
            coming = [self._coming_cpu(v, rate) for v in names]
            lanes.append(Lane(state.nice, rate, state.cap, [*parts, *coming], asks, self._running_cap(c), tasks))
            order.append((c, len(parts), names))
        if not known:
            self.coming = {}
            return {}
        build = self._build.rate()
        freed = build - sum(x.rate for x in lanes) if build is not None else 0.0
        ends = finish_times(lanes, idle, freed)
        out, self.coming = {}, {}
        for (c, parts, names), e in zip(order, ends):
            end = own.get(c.variant, e[parts - 1] if len(e) >= parts else NEVER)
            if end != NEVER:
                out[c.variant] = (self._fraction(c, end), end)
            self.coming.update({v: t for v, t in zip(names, e[parts:]) if t != NEVER})
        return out

    def _changed_lane_end(self, c: Counted, state: _Lane, left: float) -> float | None:
        """The seconds until the store ends, counted in CPU seconds, where its lane's niceness has just changed and
        its rate is not read again yet (``MIN_SPAN_SECONDS`` from the change: make serve's Guess Who, its first lane
        at nice 19 as the side lanes start): its CPU left at ``CHANGED_LANE_RATE``. The schedule's share by niceness of
        the build's rate gave it 0.19 of a core (its one sample of a 5-7 s build said 12-18 s); that share stands for
        the lane's later stores and the lanes beside it: a lane's first-seconds rate played forwards gives the lanes
        beside it its later stores' cores far too soon. None otherwise."""
        if state.changed and state.rate.rate() is not None:
            state.changed = False
        if not state.changed or not self.cpu_expected.get(c.variant):
            return None
        return left / CHANGED_LANE_RATE

    def _measured(self, running: list[Counted]) -> bool:
        """Every running store's lane has a rate read from its counts (not its share by niceness)."""
        return all(self._lanes[c.lane].rate.rate() is not None for c in running if c.lane in self._lanes)

    def _rates(self, running: list[Counted]) -> tuple[dict[int, float], float]:
        """({lane: the CPU seconds a second it gets now}, the idle cores the schedule may share out): each lane's
        measured rate and the measured idle cores; while a lane's counts are too few to read a rate from (its first
        ``MIN_SPAN_SECONDS`` and a heartbeat: the side lanes' start), every lane's share by its niceness
        (``water_fill``) of the cores the build gets now and those left idle, and none left idle (the rates measured
        before are of the cores before that lane came); no rates while nothing is measured."""
        idle = self._idle.rate() or 0.0
        lanes = sorted({c.lane for c in running if c.lane in self._lanes})
        if len(lanes) < len({c.lane for c in running}):
            return {}, idle
        measured = {k: self._lanes[k].rate.rate() for k in lanes}
        if all(r is not None for r in measured.values()):
            return measured, idle
        build = self._build.rate()
        if build is None:
            return {}, idle
        states = [self._lanes[k] for k in lanes]
        shares = water_fill([x.cap for x in states], [nice_weight(x.nice) for x in states], build + idle)
        return dict(zip(lanes, shares)), 0.0

    def _rates_by_tasks_now(self, running: list[Counted], rates: dict[int, float]) -> dict[int, float]:
        """The lanes' rates now, a lane whose store runs fewer tasks side by side than its lane ran over the window
        its rate is read over (a Jotto store's restricted games or value bracket, one task, after its double oracle's
        or robust hider's two) at that rate per task times its tasks now: beside Dudo's groups a nice-19 task gets
        about the same share of a core however many its lane runs (the 4-letter store's value bracket 0.14 of a core
        where its robust hider's two trees had 0.25-0.31); the cores it leaves are shared among the lanes that ask for
        more, as those of a lane that has just ended are (``finish_times``' ``freed``). Not while a lane has just
        ended (the build's rate above the lanes': its cores are being shared again, and the window's rates are of the
        sharing before). A lane running more tasks than over its window takes its tasks' share of the cores of the
        lanes of its niceness (``_more_tasks_share``), not its rate per task times its tasks (that read every lane
        up at once: cores no lane gets, and the 2-letter store's time left within 0.10 at 1-8 fewer samples of every
        make serve trace). A store whose steps do not say their tasks keeps its lane's rate (Dudo's parts read their
        rate per group themselves, ``_parts``)."""
        now = self.clock()
        tasks = {c.lane: self._tasks_now(c) for c in running if c.lane in rates}
        for lane, n in tasks.items():
            seen = self._lane_tasks.setdefault(lane, collections.deque())
            seen.append((now, n))
            while len(seen) > 1 and seen[0][0] < now - self.window:
                seen.popleft()
        build = self._build.rate()
        if build is not None and build - sum(rates.values()) > STEADY_CORES:
            return rates
        out, more = dict(rates), []
        for c in running:
            if c.variant not in self.rest_by_tasks or c.lane not in rates:
                continue
            seen = self._lane_tasks[c.lane]
            mean = sum(n for _, n in seen) / len(seen)
            if tasks[c.lane] < mean:
                out[c.lane] = rates[c.lane] * tasks[c.lane] / mean
            elif tasks[c.lane] > mean:
                more.append((c.lane, mean))
        for lane, mean in more:
            self._more_tasks_share(out, tasks, lane, mean)
        return out

    def _more_tasks_share(self, rates: dict[int, float], tasks: dict[int, int], lane: int, mean: float) -> None:
        """A lane whose store runs more tasks side by side than its lane ran over the window (the 5-letter Jotto
        store's hider selection, two trees, after its restricted games' one task) takes from the lanes of its
        niceness the cores the kernel gives its tasks now beyond those it gave them over the window: among threads of
        one niceness it weighs each busy task alike, so of what those lanes get its share is its tasks over all
        their tasks. Its rate over the window stood until the part ended, where its two trees got 0.53 of a core for
        the 0.36 read on the 01:45 trace (the 5-letter store's time left +0.10 to +0.16 at 51-61 % of four make serve
        traces); the lanes of another niceness (Dudo's, which asks for what it gets) keep theirs. Updates ``rates``."""
        nice = self._lanes[lane].nice
        peers = [k for k in rates if k != lane and self._lanes[k].nice == nice]
        theirs = sum(rates[k] for k in peers)
        if theirs <= 0:
            return
        peer_tasks = sum(tasks.get(k, 1) for k in peers)
        share_now = tasks[lane] / (tasks[lane] + peer_tasks)
        share_before = mean / (mean + peer_tasks)
        more = min(theirs, rates[lane] * (share_now / share_before - 1.0))
        for k in peers:
            rates[k] -= more * rates[k] / theirs
        rates[lane] += more

    def _tasks_now(self, c: Counted) -> int:
        """The tasks the store runs side by side now: its running part's (``cores_ahead``), a Jotto store's running
        step's (``rest_by_tasks``), else one."""
        if c.cores_ahead:
            return max(1, c.cores_ahead[0][1])
        if c.variant in self.rest_by_tasks:
            rest = self.rest_by_tasks[c.variant](c.counted, int(self._lanes[c.lane].cap))
            return rest[0][1] if rest else 1
        return 1

    def _fraction(self, c: Counted, left: float) -> float:
        """The share of its build's time passed, seconds / (seconds + time left), of a store counted in CPU seconds;
        the work counted of one scheduled in wall seconds (Dudo: its weights are its own build's walls, and at nice
        10 it keeps the cores it asks for, so its work counted follows its wall: within 0.10 at 222 of 226 samples
        of two make serve builds, against 203 for the share its time left says)."""
        if not self.cpu_expected.get(c.variant):
            return c.counted
        total = c.seconds + left
        return c.seconds / total if total > 0 else 0.0

    def _running_cap(self, c: Counted) -> float | None:
        """The most cores a store counted in CPU seconds can use where its running step says the threads it runs on
        (the 2-letter Jotto store's exact double oracle: one), else None: its lane's cores. Dudo's groups side by
        side say what its parts ask for instead (``_parts``): a group alone trains on every core the other lanes
        leave it."""
        if not self.cpu_expected.get(c.variant) or not c.cores_ahead:
            return None
        return max(1.0, float(c.cores_ahead[0][1]))

    def _tasks_measured(self, c: Counted) -> float | None:
        """The mean number of tasks the store ran side by side over the window its lane's rate is read over (the
        first part of its ``cores_ahead`` at each estimate); None where it does not say."""
        if not c.cores_ahead:
            return None
        seen = self._tasks.setdefault(c.variant, collections.deque())
        now = self.clock()
        seen.append((now, max(1, c.cores_ahead[0][1])))
        while len(seen) > 1 and seen[0][0] < now - self.window:
            seen.popleft()
        return sum(n for _, n in seen) / len(seen)

    def _store_parts(self, c: Counted, rate: float, left: float, cap: float,
                     measured: bool) -> tuple[list[float], list[float | None], list[float]]:
        """(the store's CPU seconds left in parts, the cores each later part asks for, the tasks each part runs side
        by side): Dudo's parts of its groups (``_parts``) once every lane's rate is measured (before, a lane's share
        by niceness is no rate of a group: its own time left stands), a Jotto store's by its steps' tasks
        (``rest_by_tasks``), else one part. The schedule weighs each lane by its part's tasks, as the kernel weighs
        each busy task."""
        tasks_now = self._tasks_measured(c)
        if measured:
            parts, asks = self._parts(c, rate, left, tasks_now)
            if len(parts) > 1:
                return parts, asks, [float(n) for w, n in c.cores_ahead if w > 0]
        rest = self.rest_by_tasks[c.variant](c.counted, int(cap)) if c.variant in self.rest_by_tasks else []
        if rest:
            return [left * share for share, _ in rest], [], [float(n) for _, n in rest]
        return [left], [], []

    @staticmethod
    def _parts(c: Counted, rate: float, left: float, tasks: float | None = None) -> tuple[list[float], list[float | None]]:
        """The store's CPU seconds left as the parts of its build that run different numbers of tasks side by side
        (its time left shared among them as their expected seconds are, each part's CPU at the rate a task gets
        now: ``rate`` over ``tasks``, the tasks it ran over the window that rate is measured over, not the running
        part's alone: a part that has just started would read a rate of two groups as one group's), and the cores
        each later part asks for; one part where the store does not say. A part of fewer groups than its most asks
        for the cores its groups use and the share of those it leaves that the lanes beside it do not get
        (``LEFT_TO_LANES``): its CPU seconds count them too, so its own wall is unchanged."""
        ahead = [(w, n) for w, n in (c.cores_ahead or []) if w > 0]
        total = sum(w for w, _ in ahead)
        if len(ahead) < 2 or c.wall_left is None or total <= 0:
            return [left], []
        per_task = rate / (tasks or max(1, ahead[0][1]))
        most = max(n for _, n in ahead)
        cores = [(n + (1.0 - LEFT_TO_LANES) * (most - n)) * per_task for _, n in ahead]
        parts = [c.wall_left * w / total * x for (w, _), x in zip(ahead, cores)]
        return parts, [None] + cores[1:]

    def _machine_speed(self, running: list[Counted]) -> float:
        """The machine's pace against the expected seconds, read from the stores counted in wall seconds that keep the
        cores they ask for (Dudo at nice 10): their whole time as their own time left says it now (the expected
        seconds at first, the pace they keep as they go: ``builder.time_left``) over their expected seconds, pooled by
        those; 1.0 within ``SAME_MACHINE`` of them; the last one read where none runs now."""
        walls = [(c.seconds + c.wall_left, c.expected) for c in running
                 if not self.cpu_expected.get(c.variant) and c.wall_left is not None and c.expected]
        if not walls:
            return self.speed
        pace = sum(w for w, _ in walls) / sum(e for _, e in walls)
        return pace if abs(pace - 1.0) > SAME_MACHINE else 1.0

    def _cpu_seconds_left(self, c: Counted, rate: float | None) -> float | None:
        """A store's CPU seconds left: its own time left in CPU seconds, from its expected CPU seconds read at the
        machine's pace when it started (``_machine_speed``: a slower machine takes longer over every store, and the
        store's own pace moves from what it expects only as it goes); a store without them, its wall time left at its
        lane's rate."""
        expected = self.cpu_expected.get(c.variant)
        if expected and c.cpu_seconds is not None:
            if c.variant not in self._cpu_left:
                self._cpu_left[c.variant] = TimeLeft(expected * self.speed)
            return self._cpu_left[c.variant](c.cpu_seconds, c.counted)
        if c.wall_left is not None and rate is not None:
            return c.wall_left * rate
        return None

    def _coming(self, running: str, planned: set[str]) -> list[str]:
        order = next((x for x in self.lanes if running in x), [])
        return [v for v in order[order.index(running) + 1:] if v in planned]

    def _coming_cpu(self, variant: str, rate: float) -> float:
        expected = self.cpu_expected.get(variant)
        return expected * self.speed if expected else (self.wall_expected.get(variant) or 0.0) * rate
