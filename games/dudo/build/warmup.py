"""Compile the Dudo kernels that a build needs late into numba's cache ahead of time.

On a fresh clone numba compiles each kernel where a task first calls it, and some first calls fall on the
build's critical path: in the first ``make serve`` of 2026-11-28 Dudo's 4v5 stopped 19 s in its 32nd iteration
to compile the two-thread backward pass (``kernels.blocked_backward_threads``: the first time a group had both
cores), with the other core idle. ``compile_kernels`` runs each late kernel once on tiny groups, in a process
of low priority beside the build's first groups (``builder.dudo``), so that the build's tasks load them from
the cache instead: training against CFR+ responders (``cfrbr``), the memory bound and the perfect-recall
improvement, the two-thread pass, the float32 variants of the largest groups and the store's row encoder.
Nothing it computes is kept; what it compiles is what the build would compile, with the same types.

The build's first groups compile the kernels every group trains with (the window tables' backward pass and
its helpers) as they start; a warm-up compiling them at the same time compiled each twice (in a fresh clone's
default build, about 25 of the 53 CPU seconds numba spent on kernels two processes compiled). So, given the
build's work directory, it waits until a group with window tables there has trained (``FIRST_TRAINED``):
then its tiny build loads those kernels from the cache and compiles only the ones the build needs later.
"""
from __future__ import annotations

import glob
import os
import tempfile
import time
from unittest import mock

import numpy as np

from games.dudo.solvers import abstract_cfr as solver
from games.dudo.abstraction.dag import make_group
from games.dudo.build.solve_game import DudoSolution, solve_game, solve_group
from games.dudo.solvers.abstract_cfr import FastSolver
from games.dudo.build.rows import iter_rows

# max_dice 3: a perfect-recall round, exact best responses, a group trained against CFR+ responders, the
# memory bound and the improvement beyond 2 dice in play; the kinds of work of the default profile
TINY = dict(max_dice=3, m={(1, 1): None, (1, 2): 1, (1, 3): 1, (2, 2): 1, (2, 3): 1, (3, 3): 1},
            iterations=2, progress=False, log=None, exact_br_total=2, train_memory={(2, 2): 2}, br_memory=2,
            improve_games=2, improve_memory=2, improve_seed=0, pipelined=True)


def _tiny_build(d: str) -> DudoSolution:
    """Every kind of group's work in float64, the store's rows encoded."""
    sol = solve_game(checkpoint_dir=d, **TINY)
    for _ in iter_rows(sol):
        pass
    return sol


def _two_threads(sol: DudoSolution, d: str) -> None:
    FastSolver(make_group(1, 2, 2, sol.W, TINY["max_dice"]), threads=2).solve(1, progress=False)


def _float32_values(sol: DudoSolution, d: str) -> None:
    """A group trained, bounded and improved with float32 node values (the largest groups' precision: the
    solver's values only, as there; the strategies stay float64)."""
    below = [rnd for rnd in sol.stats if sum(rnd) == 2]
    br_open = {rnd: sol.stats[rnd]["br_opener"] for rnd in below}
    br_other = {rnd: sol.stats[rnd]["br_other"] for rnd in below}
    with mock.patch.object(solver, "node_value_dtype", lambda n: np.float32):
        solve_group((1, 2), 1, sol.W, TINY["max_dice"], 2, d, exact_br_total=2, br_open=br_open,
                    br_other=br_other, br_memory=2, improve_games=2, improve_memory=2)


# the group of 3 dice in play trained (``solve_game``'s "<stem>.trained.json") or finished ("<stem>.json") in the work
# directory: the first group after 1v1 in every profile, and the first with window tables in the default one
# (its 1v2 remembers 4 claims)
FIRST_TRAINED = "dudo_1v2_*.json"
WAIT_SECONDS = 600.0


def wait_for_first_group(work_dir: str, seconds: float = WAIT_SECONDS, poll: float = 0.5) -> float:
    """Sleep until ``FIRST_TRAINED`` is in ``work_dir`` (at most ``seconds``); the seconds waited."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        if glob.glob(os.path.join(work_dir, FIRST_TRAINED)):
            break
        time.sleep(poll)
    return time.perf_counter() - t0


def compile_kernels(work_dir: str | None = None) -> dict:
    """Run each step once (a tiny build, the two-thread pass, the float32 values), after the first group of
    the build in ``work_dir`` (if given) has trained; {step: seconds}."""
    seconds = {}
    if work_dir is not None:
        seconds["waiting"] = wait_for_first_group(work_dir)
    with tempfile.TemporaryDirectory(prefix="dudo-warmup-") as d:
        t0 = time.perf_counter()
        sol = _tiny_build(os.path.join(d, "build"))
        seconds["float64 build"] = time.perf_counter() - t0
        for name, step in (("two-thread pass", _two_threads), ("float32 values", _float32_values)):
            t0 = time.perf_counter()
            step(sol, os.path.join(d, name.replace(" ", "-")))
            seconds[name] = time.perf_counter() - t0
    return seconds


if __name__ == "__main__":
    print(compile_kernels())
