"""Graceful stop for long builds: the first Ctrl-C or SIGTERM asks the build to stop at the next
iteration boundary (after writing a checkpoint); a second one stops at once."""
from __future__ import annotations

import signal

_requested = False


def _handler(signum, frame):
    global _requested
    if _requested:
        raise KeyboardInterrupt
    _requested = True


def install() -> None:
    signal.signal(signal.SIGINT, _handler)
    signal.signal(signal.SIGTERM, _handler)


def requested() -> bool:
    return _requested


def stop_if_requested(save=None) -> None:
    """Call at an iteration boundary: checkpoint with `save` and stop if a stop was asked for."""
    if _requested:
        if save is not None:
            save()
        raise KeyboardInterrupt
