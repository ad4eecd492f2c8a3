"""A process that dies with its parent (Linux's ``PR_SET_PDEATHSIG``): the server's workers, the live pool's workers,
the launcher's children and a measurement's forked seat, so that no child computes on or holds a port after its
parent is killed."""
from __future__ import annotations

import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGKILL, parent: int | None = None) -> None:
    """Ask the kernel to send ``sig`` to this process when its parent goes (Linux; elsewhere nothing). With
    ``parent``, the parent's pid taken before the fork: a parent gone before the request took effect ends this
    process now."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if parent is not None and os.getppid() != parent:
        os._exit(1)
