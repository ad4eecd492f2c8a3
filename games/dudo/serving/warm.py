"""Imported once by a server's live-pool forkserver (``server.live`` preloads the backends'
``live_modules``): runs a tiny endgame re-solve, so that the numba kernels of the re-solve are loaded
(from the cache, or compiled) in the forkserver and every worker forked from it starts with them. Without
it each new worker, and each replacement of a worker killed at a deadline, would load them on its first
re-solve (about a second, much more under load) inside some caller's deadline."""
from __future__ import annotations

from games.dudo.search.endgame import UniformBlueprint, prepare, solve


def warm() -> None:
    for opened in (True, False):
        solve(prepare(UniformBlueprint(), 1, 1, (7, 8), opened, {}), 2)


warm()
