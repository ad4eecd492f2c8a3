"""Imported once by a server's live-pool forkserver (``server.live`` preloads the backends'
``live_modules``): runs a tiny endgame re-solve and a tiny searched chain, so that the numba kernels of both
are loaded (from the cache, or compiled) in the forkserver and every worker forked from it starts with them.
Without it each new worker, and each replacement of a worker killed at a deadline, would load them on its first
re-solve (about a second, much more under load) inside some caller's deadline; on a clean clone a searched
move would compile them there, and a worker killed at the deadline before its compile ended would write no
cache, so the next one would compile again."""
from __future__ import annotations

import numpy as np

from games.dudo.abstraction.dag import make_group
from games.dudo.search.endgame import UniformBlueprint, prepare, solve
from games.dudo.search.tables import LargeSearchSpec, leaf_tables, resolver
from games.dudo.serving.large_search import OffPolicy, chain


def warm() -> None:
    for opened in (True, False):
        solve(prepare(UniformBlueprint(), 1, 1, (7, 8), opened, {}), 2)


def warm_search() -> None:
    """A searched chain on a uniform 1v1 blueprint, its leaves read-only int8 as a store's map gives them."""
    g = make_group(1, 1, 1, {})
    strat = np.zeros(g.nrows)
    t = leaf_tables(1, 1, 1, strat, {}, 4)
    t["V"].setflags(write=False)
    spec = LargeSearchSpec(min_total=2, iterations=2, A=4)
    for opened, hist in ((True, (0, 4)), (False, (2, 5, 7))):
        pol = resolver(t, 1, 1, 1, {}, 1, 1, opened, spec)
        root = pol.resolve((), pol.prior_req.copy())
        try:
            chain(pol, root, hist, None)
        except OffPolicy:       # the kernels ran; a uniform blueprint's search need not reach the history
            pass


warm()
warm_search()
