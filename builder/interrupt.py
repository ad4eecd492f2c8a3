"""Graceful stop for long builds: the first Ctrl-C or SIGTERM asks the build to stop at the next
iteration boundary (after writing a checkpoint); a second one stops at once.

Worker processes (process pool, Dask LocalCluster) see the request through a stop file whose path
the builder puts in the environment before it starts them (``use_stop_file``)."""
from __future__ import annotations

import os
import signal
from pathlib import Path

STOP_FILE_ENV = "GAMESTRATEGY_STOP_FILE"
_requested = False


def _handler(signum, frame):
    global _requested
    if _requested:
        raise KeyboardInterrupt
    _requested = True
    path = os.environ.get(STOP_FILE_ENV)
    if path:
        try:
            Path(path).touch()
        except OSError:
            pass


def install() -> None:
    signal.signal(signal.SIGINT, _handler)
    signal.signal(signal.SIGTERM, _handler)


def use_stop_file(path: Path) -> None:
    """Tell this process and the workers it starts from now on where a stop request is written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    os.environ[STOP_FILE_ENV] = str(path)


def clear_stop_file() -> None:
    path = os.environ.pop(STOP_FILE_ENV, None)
    if path:
        Path(path).unlink(missing_ok=True)


def requested() -> bool:
    """A stop was asked for: in this process, or (in a worker) by the builder through the stop file."""
    if _requested:
        return True
    path = os.environ.get(STOP_FILE_ENV)
    return bool(path) and os.path.exists(path)


def stop_if_requested(save=None) -> None:
    """Call at an iteration boundary: checkpoint with `save` and stop if a stop was asked for."""
    if requested():
        if save is not None:
            save()
        raise KeyboardInterrupt
