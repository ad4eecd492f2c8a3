"""A certified lower bound on Jotto's value from the subgame where the hider may only pick words of a set T.

Any hider strategy y gives the lower bound V*(y) (the optimal decision tree's expected guesses against y,
every word a test word), and the best hider on T is found by the double oracle with exact oracles on the
subgame (McMahan, Gordon & Blum 2003): the restricted game's LP has T's rows only (the hider's pure
strategies), its columns are complete guesser trees, and the guesser's exact best response to the LP's
hider (games.jotto.bitset_bb, whose state space is subsets of T: small T is cheap) is added each round.
The result is max over the rounds' hiders of V*(y), proven; the LP's guarantee on T bounds the subgame's
value from above (not the game's).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from games.jotto.bitset_bb import BitsetExactSolver
from games.jotto.solvers import restricted_game


@dataclass
class SubgameBound:
    T: np.ndarray  # the hider's allowed words
    hider: np.ndarray  # float64[D], zero outside T: the hider of the best proven value
    value: float  # V*(hider), exact: a proven lower bound on the game's value
    upper_T: float  # the subgame restricted game's guarantee on T (>= the subgame's value)
    columns: list[np.ndarray]  # guesses per word of every column (int32[D])
    rounds: list[tuple[float, float, int, float]] = field(default_factory=list)  # upper_T, V*(y), states, CPU s
    exact: bool = True  # False if an exact search ran out of its budget (value is then the best finished one)

    @property
    def gap(self) -> float:
        return self.upper_T - self.value


def subgame_double_oracle(C: np.ndarray, L: int, T, columns: list[np.ndarray], tol: float = 1e-6,
                          max_rounds: int = 100, max_nodes: int = 20_000_000, smoothing: float = 0.5,
                          solver: BitsetExactSolver | None = None, on_round=None) -> SubgameBound:
    """The exact double oracle on the subgame whose hider picks words of T (see the module docstring), seeded
    with `columns`; the smoothed hider (towards the best proven one) and the LP's own are solved each round."""
    T = np.asarray(sorted(set(int(t) for t in T)), dtype=np.int64)
    D = C.shape[0]
    solver = solver or BitsetExactSolver(C, L)
    cols = [np.asarray(c, dtype=np.int32) for c in columns]
    seen = {c.tobytes() for c in cols}
    best_v, best_y, exact = -np.inf, None, True
    rounds = []
    up = np.inf
    for _ in range(max_rounds):
        G = np.stack(cols, axis=1)[T].astype(np.float64)
        _, up, yT = restricted_game(G)
        y_lp = np.zeros(D)
        y_lp[T] = yT
        hs = [y_lp] if best_y is None else [smoothing * best_y + (1 - smoothing) * y_lp, y_lp]
        added = 0
        for y in hs:
            t0 = time.process_time()
            Gy = np.stack(cols, axis=1).astype(np.float64)
            r = solver.solve(y, upper=float((y @ Gy).min()), max_nodes=max_nodes)
            if r is None:
                exact = False
                rounds.append((up, np.nan, max_nodes, time.process_time() - t0))
                continue
            rounds.append((up, r.value, r.nodes, time.process_time() - t0))
            if on_round is not None:
                on_round(rounds[-1])
            if r.value > best_v:
                best_v, best_y = r.value, y
            c = r.tree_guesses.astype(np.int32)
            if c.tobytes() not in seen:
                seen.add(c.tobytes())
                cols.append(c)
                added += 1
        if up - best_v <= tol or added == 0:
            break
    return SubgameBound(T, best_y, best_v, up, cols, rounds, exact)
