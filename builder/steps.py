"""A store build's steps as a person and the progress file see them.

On a terminal each step is a progress bar (tqdm); in a log (stderr not a terminal: ``make serve``'s
``stores/.work/serve-build.log``) there are no bars but one line when a step starts, one when it ends and at most
one every ``LOG_EVERY_SECONDS`` in between, so that ``tail`` shows where the build is. The store's work counted
is each step's share of the build (its expected cost) times how far that step is, summed: the builder's progress
file (``builder.progress.ProgressReporter``) reads it for its estimate of the store's fraction and time left (``/readyz``,
ListVariants, the play page), and a line says that estimate's fraction where there is one.

Where the shares are expected seconds (``timed``: Jotto, Guess Who, Hangman, ``builder.step_seconds``), a running step
is also as far as its time says (its seconds so far over its expected seconds at the pace the build has kept: the
build's seconds to its last count over the expected seconds of what it has counted), never less than its counts and
at most ``TIMED_CAP`` of the way to its next count: a step of few counts (a compile, one exact search) moves between
them instead of standing, and a step of many counts of uneven cost (the exact double oracle's rounds) is never told
ahead of them by more than a count.
"""
from __future__ import annotations

import sys
import threading
import time

LOG_EVERY_SECONDS = 20.0
# a running step's time says at most this much of the way to its next count: the rest waits for the count
TIMED_CAP = 0.9
# the build's pace is read once its counted steps expected this share of it (before: the model's pace), and is
# taken as at most PACE_LIMIT times slower or faster than the model
MIN_PACE_SHARE = 0.05
PACE_LIMIT = 4.0

_lock = threading.Lock()
_building: dict[str, "StoreSteps"] = {}   # variant -> its steps, while this process builds it


def steps_of(variant: str) -> "StoreSteps | None":
    """The steps of ``variant`` while this process builds it, else None."""
    with _lock:
        return _building.get(variant)


def on_terminal(out=None) -> bool:
    out = out or sys.stderr
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False


class StoreSteps:
    """One store's build as named steps with shares (any positive numbers: their expected costs); a context
    manager that registers it for the progress file while the store builds."""

    def __init__(self, variant: str, shares: dict[str, float], out=None, every: float = LOG_EVERY_SECONDS,
                 clock=time.monotonic, timed: bool = False):
        self.variant = variant
        self.shares = {k: float(v) for k, v in shares.items() if v > 0}
        self.out = out
        self.every = every
        self.clock = clock
        self.timed = timed                  # the shares are expected seconds: a running step moves with its time
        self._done: dict[str, float] = {}   # step -> fraction of it done
        self._running: dict[str, tuple[float, "Step"]] = {}  # step -> (its start (clock), the step)
        self._t0 = clock()
        self._counted_at = self._t0         # the clock at the last count
        self._lock = threading.Lock()
        self._last_line = float("-inf")
        self.current = ""                   # the step now running, as the log names it
        self.said: float | None = None      # the fraction the progress file says, where the build's estimate set it

    def __enter__(self) -> "StoreSteps":
        with _lock:
            _building[self.variant] = self
        return self

    def __exit__(self, *exc) -> None:
        with _lock:
            if _building.get(self.variant) is self:
                del _building[self.variant]

    # ------------------------------------------------------------------ what the progress file reads
    def fraction(self) -> float:
        """The store's fraction built: the steps' shares weighted by how far each is (a step never started: 0; a
        running step of a ``timed`` build: as far as its counts or its time say)."""
        total = sum(self.shares.values())
        with self._lock:
            counted = {k: min(1.0, self._done.get(k, 0.0)) for k in self.shares}
            running, counted_at = dict(self._running), self._counted_at
        done = sum(self.shares[k] * f for k, f in counted.items())
        if self.timed and running:
            now = self.clock()
            pace = (counted_at - self._t0) / done if done >= MIN_PACE_SHARE * total else 1.0
            pace = min(PACE_LIMIT, max(1.0 / PACE_LIMIT, pace))
            for k, (t, step) in running.items():
                if k in self.shares:
                    upto = counted[k] + TIMED_CAP * (step.share_at(step.n + 1) - counted[k])
                    timed = min(upto, (now - t) / (self.shares[k] * pace))
                    done += self.shares[k] * max(0.0, timed - counted[k])
        return min(1.0, done / total) if total else 0.0

    def began(self, step: "Step") -> None:
        with self._lock:
            self._running[step.name] = (self.clock(), step)

    def expected_seconds(self) -> float | None:
        """The build's expected seconds where the shares are seconds (``timed``), else None."""
        return sum(self.shares.values()) if self.timed else None

    def describe(self) -> str:
        return self.current

    def cores_ahead(self) -> list[tuple[float, int]] | None:
        """[(expected seconds, tasks side by side)] of the build still to go where its steps know it (Dudo's
        groups: ``builder.dudo_progress``; a running step that says the threads it runs on: its store's rest on
        them), else None."""
        with self._lock:
            running = [step for _, step in self._running.values()]
        if not running or any(step.cores is None for step in running):
            return None
        left = sum(self.shares.values()) * (1.0 - self.fraction())
        return [(left, sum(step.cores for step in running))]

    def tasks(self) -> int | None:
        """The tasks its running steps run side by side now (the busy threads of its lane's CPU count: the builder's
        thread or its executor's workers), where every running step says; else None. Recorded for the lanes'
        schedule, which the kernel shares by busy task, not by lane."""
        with self._lock:
            running = [step for _, step in self._running.values()]
        if not running or any(step.tasks is None for step in running):
            return None
        return sum(step.tasks for step in running)

    def poll(self) -> None:
        """Called every few seconds by the progress file's heartbeat (a step that reports nothing for long
        still gets its line: ``DudoWork`` reads its workers' files here)."""

    # ------------------------------------------------------------------ the steps
    def step(self, name: str, total: int, desc: str | None = None, start: int = 0,
             expected: int | None = None, costs: tuple = (), cores: int | None = None,
             tasks: int | None = None) -> "Step":
        """A step of ``total`` counts at most; ``expected``: the counts it usually takes (a loop that stops early),
        which its share of the store is counted against; ``costs``: ((counts, share of the step done), ...) where
        its counts cost unevenly (measured), read linearly between; ``cores``: the threads of its build lane's CPU
        count it runs on, where it says (``builder.lane_cpu``: the lane's thread and its executor's workers); ``tasks``:
        the tasks it runs side by side, where it says (``cores`` where that is given)."""
        return Step(self, name, total, desc or name, start, expected, costs, cores, tasks)

    def set_done(self, name: str, fraction: float) -> None:
        with self._lock:
            self._done[name] = fraction
            self._counted_at = self.clock()
            if fraction >= 1.0:
                self._running.pop(name, None)

    def line(self, text: str, force: bool = False) -> None:
        """One line of the log (not on a terminal, whose bars say it); at most one every ``every`` seconds
        unless ``force`` (a step's start and end)."""
        now = self.clock()
        if not force and now - self._last_line < self.every:
            return
        self._last_line = now
        out = self.out or sys.stderr
        if on_terminal(out):
            return
        stamp = time.strftime("%H:%M:%S")
        shown = self.said if self.said is not None else self.fraction()     # the log says what /readyz says
        print(f"{stamp} {self.variant}: {text}; the store about {round(100 * shown)}% built", file=out, flush=True)


class Step:
    """One step: tqdm's interface (``update``, ``set_postfix``, a context manager); a bar on a terminal only."""

    def __init__(self, steps: StoreSteps, name: str, total: int, desc: str, start: int = 0,
                 expected: int | None = None, costs: tuple = (), cores: int | None = None,
                 tasks: int | None = None):
        self.steps, self.name, self.total, self.desc = steps, name, max(0, int(total)), desc
        self.cores = cores
        self.tasks = cores if tasks is None else tasks
        self.expected = expected or self.total
        self.costs = ((0, 0.0),) + tuple(costs) if costs else ()
        self.n = 0
        self.postfix = ""
        self.bar = None
        if on_terminal(steps.out):
            from tqdm import tqdm
            self.bar = tqdm(total=self.total, desc=f"{steps.variant} {desc}", unit="it", leave=True,
                            dynamic_ncols=True, mininterval=0.5, file=steps.out)
        steps.current = desc
        steps.began(self)
        steps.line(f"{desc} started" + (f" ({self.total} steps)" if self.total > 1 else ""), force=True)
        if start:
            self.update(start)

    def __enter__(self) -> "Step":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        elif self.bar is not None:    # stopped or failed: not done
            self.bar.close()
            self.bar = None

    def update(self, n: int = 1) -> None:
        self.n += n
        self.steps.set_done(self.name, self.share_at(self.n))
        if self.bar is not None:
            self.bar.update(n)
        self.steps.line(f"{self.desc} {self.n}/{self.total}{self.postfix}")

    def share_at(self, n: int) -> float:
        """The share of the step done at ``n`` counts."""
        if not self.expected:
            return 1.0
        if not self.costs:
            return min(1.0, n / self.expected)
        for (n0, s0), (n1, s1) in zip(self.costs, self.costs[1:]):
            if n <= n1:
                return s0 + (s1 - s0) * (n - n0) / (n1 - n0)
        return 1.0

    def set_postfix(self, refresh: bool = False, **figures) -> None:
        self.postfix = " (" + ", ".join(f"{k} {v}" for k, v in figures.items()) + ")" if figures else ""
        if self.bar is not None:
            self.bar.set_postfix(refresh=refresh, **figures)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        self.steps.set_done(self.name, 1.0)
        count = f" ({self.n}/{self.total}{self.postfix})" if self.total > 1 else self.postfix
        self.steps.line(f"{self.desc} done{count}", force=True)
