"""The training loop of a Dudo group solver: iterations with a progress bar, checkpoints, graceful stop,
and training to the floor (a stopping rule on the measured exploitability)."""
from __future__ import annotations

import json
import os
import sys
import time


class TrainingStopped(Exception):
    """Training stopped at an iteration boundary because a stop was asked for (checkpoint saved)."""


def train(solver, iterations: int, checkpoint: str | None = None, every: int = 0, progress: bool = True,
          desc: str = "", should_stop=None):
    """Run ``iterations`` of ``abstract_cfr.fsicfr_iteration`` with a progress bar, saving to ``checkpoint``
    every ``every`` iterations and at the end; when ``should_stop()`` turns true (a graceful stop of the
    build), save and raise ``TrainingStopped`` at the iteration boundary (an ordinary exception, so it
    travels back from a worker process like any task error)."""
    from tqdm import tqdm
    shown = progress and sys.stderr.isatty()   # a bar on a terminal; a log gets the builder's lines instead
    report = _ProgressFile(checkpoint)
    for i in tqdm(range(iterations), desc=desc, disable=not shown, leave=False):
        solver.fsicfr_iteration()
        report(solver.t)
        if checkpoint and every and (i + 1) % every == 0:
            solver.save(checkpoint)
        if should_stop is not None and should_stop():
            if checkpoint:
                solver.save(checkpoint)
            raise TrainingStopped(f"{desc}: stopped after iteration {solver.t}")
    if checkpoint:
        solver.save(checkpoint)
    report(solver.t, force=True)
    return solver


PROGRESS_SUFFIX = ".progress"  # not .json: the work directory's *.json are groups' results (warmup waits for one)
PROGRESS_EVERY_SECONDS = 1.0


class _ProgressFile:
    """``<checkpoint>.progress``: the iterations trained so far, for the builder's progress
    (``builder.dudo_progress``) while the group trains in a worker process; at most once a second (it is for
    display: never part of a result)."""

    def __init__(self, checkpoint: str | None):
        self.path = checkpoint + PROGRESS_SUFFIX if checkpoint else None
        self.last = float("-inf")

    def __call__(self, t: int, force: bool = False) -> None:
        now = time.monotonic()
        if self.path is None or (not force and now - self.last < PROGRESS_EVERY_SECONDS):
            return
        self.last = now
        try:
            with open(self.path + ".tmp", "w") as f:
                json.dump({"t": int(t)}, f)
            os.replace(self.path + ".tmp", self.path)
        except OSError:
            pass


def doubling_targets(first: int, cap: int) -> list[int]:
    """Where ``train_to_floor`` measures: first, 2 first, 4 first, ... and ``cap`` (if not on the way)."""
    out, t = [], max(1, int(first))
    while t < cap:
        out.append(t)
        t *= 2
    return out + [int(cap)]


def floor_reached(curve, rel: float) -> bool:
    """The stopping rule: the last doubling improved the exploitability by less than ``rel``.  A last
    step shorter than a doubling (the cap, reached between two doublings) is not a floor: a group that
    improved 17% over its last doubling and 0.5% over the few iterations to its cap stopped at the cap."""
    return (len(curve) >= 2 and curve[-1][0] >= 2 * curve[-2][0]
            and curve[-1][1] > (1.0 - rel) * curve[-2][1])


def train_to_floor(solver, measure, cap: int, first: int, rel: float = 0.1, curve=None, on_point=None,
                   checkpoint: str | None = None, progress: bool = True, desc: str = "", should_stop=None,
                   log=None):
    """Train until the exploitability stops improving: measure it (``measure(average strategy)``) at
    ``doubling_targets(first, cap)`` iterations and stop when a doubling improved it by less than
    ``rel`` (``floor_reached``) or at ``cap``.  The decision depends only on computed values, never
    on time, so the result is the same on any machine; a time budget enters as ``cap`` (planned from
    a cost model).  ``curve``: the points [iterations, exploitability, seconds] of an interrupted run
    (resume: the solver loaded from its checkpoint); ``on_point(curve)`` is called after every
    measurement (with the checkpoint saved), so a resumed run repeats none.  Returns (curve, reason)
    with reason "floor" or "cap"."""
    curve = [list(p) for p in (curve or [])]
    if floor_reached(curve, rel):
        return curve, "floor"
    for target in doubling_targets(first, cap):
        if curve and curve[-1][0] >= target:
            continue
        train(solver, target - solver.t, checkpoint, max(1, (target - solver.t) // 4), progress, desc,
              should_stop)
        curve.append([solver.t, float(measure(solver.average_strategy())), solver.seconds])
        if on_point is not None:
            on_point(curve)
        if log:
            log(f"{desc}: {solver.t} iterations, {solver.seconds:.1f} s, exploitability {curve[-1][1]:.3e}")
        if floor_reached(curve, rel):
            return curve, "floor"
    return curve, "cap"
