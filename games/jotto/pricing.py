"""Heuristic pricing for the exact double oracle (column generation's standard trick): before the guesser's
exact best response, try cheap columns against the restricted game's hider, cheapest first, and call the
exact oracle only when none improves the restricted game enough (games.jotto.certify).

The cheap columns: the caller's greedy trees (e.g. GBR and the rollout guesser against the hider), then the
exact best response to the hider truncated to its k heaviest words, for each k in turn, then the bitset branch
and bound against the whole hider expanding at most w moves a state (best bound first), for each w in turn. A
truncated hider is a hider strategy too, so its exact value is a lower end of the value bracket (the tree is
complete: words the truncated hider leaves out follow it, then greedy completion); a width-limited tree's value
is only a tree's (never a lower end).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.jotto.bitset_bb import BitsetExactSolver
from games.jotto.exact import ExactResult


@dataclass
class Column:
    guesses: np.ndarray  # guesses per word (int32[D])
    tree: ExactResult | None  # the search's tree (node states and moves), if a search made it
    hider: np.ndarray  # the hider it answers
    exact: bool = False  # tree is the exact best response to hider (tree.value = V*(hider))


def truncated(y: np.ndarray, k: int) -> np.ndarray:
    """The hider y on its k heaviest words (ties by index), renormalised."""
    sup = np.flatnonzero(y > 0)
    top = sup[np.argsort(-y[sup], kind="stable")[:k]]
    out = np.zeros_like(y, dtype=np.float64)
    out[top] = y[top]
    return out / out.sum()


class TruncatedExactPricing:
    """Cheap columns against a hider, in levels cheapest first: greedy(y)'s trees, the exact best response to y
    truncated to its k heaviest words for each k of ks below y's support, then the width-limited search against
    y for each width of widths (max_nodes states each search)."""

    def __init__(self, C: np.ndarray, L: int, ks=(15, 18), greedy=None, max_nodes: int = 2_000_000,
                 table_bits: int = 18, widths=()):
        self.solver = BitsetExactSolver(C, L, table_bits=table_bits)
        self.narrow = [BitsetExactSolver(C, L, table_bits=table_bits, width=w) for w in widths]
        self.ks, self.greedy, self.max_nodes = tuple(ks), greedy, max_nodes
        self.searches = 0  # truncated exact searches run
        self.nodes = 0  # states they expanded

    def __call__(self, y: np.ndarray):
        if self.greedy is not None:
            yield [Column(np.asarray(g, dtype=np.int32), None, y) for g in self.greedy(y)]
        n = int(np.count_nonzero(y > 0))
        searches = [(self.solver, truncated(y, k)) for k in self.ks if k < n] + [(s, y) for s in self.narrow]
        for solver, h in searches:
            r = solver.solve(h, max_nodes=self.max_nodes)
            self.searches += 1
            self.nodes += int(solver.stats[0])
            if r is not None:
                yield [Column(r.tree_guesses.astype(np.int32), r, h, solver.width == 0)]
