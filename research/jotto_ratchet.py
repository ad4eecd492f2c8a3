"""A proven lower bound on V*(y) by a ratchet of cutoff searches sharing one memo table.

V*(y) is the optimal decision tree's expected guesses against the hider y (every word a test word). A cutoff
search "V*(y) >= beta?" (games.jotto.bitset_bb.best_response_bb with the window's top at beta) proves it, or
finds V*(y) < beta, or runs out of its state budget. Every memo entry it stores is a proven value or bound
whatever beta is, so the searches here keep the table between them (bitset_bb.lower_bound's bisection starts
each probe with an empty one): bisection between the bound proven and the lowest cutoff that ran out of its
budget (first an upper estimate of V*(y)), each probe starting from the bounds the earlier ones proved.
"""
from __future__ import annotations

import time

import numpy as np

from games.jotto.bitset_bb import BitsetExactSolver

_EPS = 1e-12


def ratchet_lower_bound(solver: BitsetExactSolver, h: np.ndarray, hi: float, max_nodes: int,
                        probe_nodes: int, lo: float | None = None, min_step: float = 1e-3,
                        progress=None) -> tuple[float, float | None, int]:
    """(proven lower bound on V*(h), V*(h) if a probe found it exactly, states expanded): cutoff searches
    at the midpoint of [bound, top], at most probe_nodes states each and max_nodes in all; hi is an upper
    estimate of V*(h) (e.g. a heuristic tree's value), the first top."""
    root = solver._prepare(h)
    solver._shift = solver._table()
    best = solver.counting_bound(h) if lo is None else lo
    top = hi
    stats = np.array([0, 0, 0, 0, 0, 0], dtype=np.int64)
    t0 = time.process_time()
    while stats[0] < max_nodes and top - best >= min_step:
        beta = 0.5 * (best + top)
        v, stats = solver._search(root, beta, min(probe_nodes, max_nodes - int(stats[0])), stats)
        if v is None:  # out of budget: the next cutoff lower
            top = beta
        elif v < beta:  # the cutoff was above V*(h): v is V*(h) exactly (best_response_bb)
            return v, v, int(stats[0])
        else:
            best = max(beta, v * (1 - 4 * _EPS))
        if progress is not None:
            progress(best, beta, v is not None, int(stats[0]), time.process_time() - t0)
    return best, None, int(stats[0])
