"""Column generation for Jotto's restricted game with heuristic pricing (rollout and greedy trees), smoothed.

Each round solves the restricted game's LP over the columns found (guesses per word of guesser pure
strategies), prices the restricted game's hider y and its smoothed version (towards the hider whose cheap
best response was worst so far, Wentges 1997) and its mix with the uniform hider with the rollout and greedy
oracles, and adds their trees as columns. The guarantee is exact (the worst word's expected guesses); the
heuristic lower end min_tree(y @ tree) only estimates V*(y) from above, so the pair is not certified here.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from games.jotto.oracle import GBR, ROLLOUT, JottoOracle
from games.jotto.solvers import restricted_game


@dataclass
class ColGen:
    columns: list[np.ndarray]  # guesses per word (int32[D])
    weights: np.ndarray  # the last LP's guesser mixture
    guarantee: float  # its guarantee (the worst word's expected guesses)
    hider: np.ndarray  # the restricted game's hider of the last LP
    centre: np.ndarray  # the hider with the largest heuristic best-response value
    centre_value: float  # that value: min over the priced trees of its expected guesses (>= V*(centre))
    history: list[tuple[float, float, int, float]] = field(default_factory=list)  # guarantee, centre, cols, s


def column_generation(oracle: JottoOracle, columns: list[np.ndarray], rounds: int, smoothing: float = 0.5,
                      kinds=(ROLLOUT, GBR), tol: float = 1e-4, on_round=None) -> ColGen:
    """`rounds` rounds of heuristic column generation from `columns` (see the module docstring)."""
    cols = [np.asarray(c, dtype=np.int32) for c in columns]
    seen = {c.tobytes() for c in cols}
    centre, centre_v = None, -np.inf
    hist = []
    x = g = y = None
    for _ in range(rounds):
        t0 = time.process_time()
        G = np.stack(cols, axis=1).astype(np.float64)
        x, g, y = restricted_game(G)
        hs = [y, 0.5 * (y + oracle.uniform)]
        if centre is not None and smoothing > 0:
            hs.append(smoothing * centre + (1 - smoothing) * y)
        added = 0
        for h in hs:
            vals = []
            for kind in kinds:
                c = oracle.tree(h, kind).guesses.astype(np.int32)
                vals.append(float(c @ h))
                if c.tobytes() not in seen:
                    seen.add(c.tobytes())
                    cols.append(c)
                    added += 1
            if min(vals) > centre_v:
                centre_v, centre = min(vals), h
        hist.append((g, centre_v, len(cols), time.process_time() - t0))
        if on_round is not None:
            on_round(hist[-1])
        if added == 0 or g - centre_v <= tol:
            break
    G = np.stack(cols, axis=1).astype(np.float64)
    x, g, y = restricted_game(G)
    return ColGen(cols, x, g, y, centre, centre_v, hist)
