"""The training loop of a Dudo group solver: iterations with a progress bar, checkpoints, graceful stop."""
from __future__ import annotations


class TrainingStopped(Exception):
    """Training stopped at an iteration boundary because a stop was asked for (checkpoint saved)."""


def train(solver, iterations: int, checkpoint: str | None = None, every: int = 0, progress: bool = True,
          desc: str = "", should_stop=None):
    """Run ``iterations`` of ``solver.fsicfr_iteration`` with a progress bar, saving to ``checkpoint``
    every ``every`` iterations and at the end; when ``should_stop()`` turns true (a graceful stop of the
    build), save and raise ``TrainingStopped`` at the iteration boundary (an ordinary exception, so it
    travels back from a worker process like any task error)."""
    from tqdm import tqdm
    for i in tqdm(range(iterations), desc=desc, disable=not progress, leave=False):
        solver.fsicfr_iteration()
        if checkpoint and every and (i + 1) % every == 0:
            solver.save(checkpoint)
        if should_stop is not None and should_stop():
            if checkpoint:
                solver.save(checkpoint)
            raise TrainingStopped(f"{desc}: stopped after iteration {solver.t}")
    if checkpoint:
        solver.save(checkpoint)
    return solver
