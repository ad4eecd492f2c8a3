"""Jotto solved by the double oracle with exact oracles on both sides (McMahan, Gordon & Blum 2003).

The hider's pure strategies are the D words, so every row is in the restricted game from the start and
the hider's exact best response to the guesser's restricted-game mixture x (the word of most expected
guesses, max_s (G x)_s) is read off the LP: it is the guarantee, the upper end of the value bracket.
The guesser's exact best response to the restricted game's hider y is the optimal decision tree against
y (games.jotto.exact, every word a test word); its value V*(y) is the lower end. Each round adds that
tree as a column and re-solves the LP (HiGHS), until the bracket [max_t V*(y_t), min_t guarantee_t] is
narrower than the tolerance, the round limit or the time budget is reached, or an exact search runs out
of its node budget (then the round's lower end is a bounded-search bound and the bracket is labelled so).

A tree is a complete pure strategy: zero-weight words follow the optimal tree while weighted words remain
and greedy_completion afterwards, so its column holds the guesses every word needs.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from games.jotto.bitset_bb import BitsetExactSolver as ExactSolver
from games.jotto.solvers import restricted_game

EXACT = "exact"  # the bracket's kind: both ends exact figures of the strategies found
BOUNDED = "bounded"  # the lower end is a bounded-search bound (the exact search ran out of its budget)


@dataclass
class Round:
    columns: int  # columns of the restricted game solved this round
    guarantee: float  # the LP's guesser mixture against the hider's exact best response (upper end)
    hider_value: float  # the LP's hider y against the guesser's exact best response, or its proven lower bound
    exact: bool  # hider_value is V*(y) (True) or a lower bound from a bounded search (False)
    seconds: float  # the exact best response's time
    nodes: int  # states it expanded


@dataclass
class CertifiedDO:
    columns: list[np.ndarray]  # guesses per word of every column (int32[D])
    trees: dict[int, tuple[list, list]]  # searched columns: index -> (node states, node moves)
    inputs: dict[int, np.ndarray]  # searched columns: index -> the hider it answers (exact unless heuristic)
    weights: np.ndarray  # the final restricted game's guesser mixture over the columns
    guarantee: float  # its guarantee: the upper end of the value bracket
    hider: np.ndarray  # the hider with the best proven payoff against every guesser
    hider_value: float  # that payoff (V*(hider) or its proven lower bound): the lower end
    kind: str  # EXACT or BOUNDED
    rounds: list[Round] = field(default_factory=list)
    seconds: float = 0.0
    max_nodes: int = 0
    priced: int = 0  # restricted games improved by heuristic pricing's columns (no exact search)
    heuristic: set[int] = field(default_factory=set)  # columns in trees that are not exact responses to inputs


    @property
    def gap(self) -> float:
        return self.guarantee - self.hider_value

    def curves(self) -> np.ndarray:
        """float64[rounds, 6]: columns, guarantee, hider value, exact (1/0), seconds, nodes per round."""
        return np.array([[r.columns, r.guarantee, r.hider_value, float(r.exact), r.seconds, r.nodes]
                         for r in self.rounds], dtype=np.float64).reshape(-1, 6)


def solve_exact_double_oracle(C: np.ndarray, L: int, seed_columns: list[np.ndarray], tol: float = 1e-6,
                              max_rounds: int = 200, max_nodes: int = 50_000_000, time_budget: float = np.inf,
                              lower_steps: int = 10, extra_columns=None, hiders: list[np.ndarray] = (),
                              smoothing: float = 0.5, on_round=None, lp_hider_too: bool = False,
                              pricing=None, pricing_gain: float = 0.1, max_priced: int = 5000,
                              threads: int = 1) -> CertifiedDO:
    """The double oracle with exact oracles on both sides (McMahan, Gordon & Blum 2003), seeded with
    `seed_columns` (guesses per word of guesser pure strategies, e.g. a store's members).
    extra_columns(y), if given, returns more columns to add each round beside the exact one (e.g. the greedy
    and rollout trees against y: cheap, and complete on the words y leaves out).

    Dual smoothing (Wentges 1997): the guesser's exact best response is computed against
    smoothing * c + (1 - smoothing) * y, where c is the hider of the best proven payoff so far (the
    stability centre; `hiders` are candidates for it, e.g. a store's served hiders, each solved exactly
    once first) and y the restricted game's hider. Every such hider is a hider strategy, so its exact
    value is a lower end of the bracket; its tree either improves the restricted game or its hider
    becomes the new centre (V* is concave), so the bracket narrows every round.
    lp_hider_too: every round also adds the exact best response to the restricted game's own hider y (two
    exact trees a round).
    pricing(y), if given (games.jotto.pricing), yields levels of cheap columns against the restricted game's
    hider y, cheapest first; a level whose best column improves the restricted game by at least
    pricing_gain x the current gap (and tol) is added and the LP solved again without an exact search
    (at most max_priced times); exact columns among them (exact responses to held hiders) raise the lower end.
    The exact oracle runs only when no level improves enough, so every round still ends with an exact search
    and the bracket's ends are exact figures as without pricing.
    threads 2: a round's search for the restricted game's own hider (which a smoothed round runs too, or instead)
    starts in a second thread beside the smoothed hider's (the kernel releases the GIL); the same searches and
    results as with one thread, in less wall time when a core is free."""
    t0 = time.perf_counter()
    solver = ExactSolver(C, L)
    beside = ExactSolver(C, L) if threads > 1 else None  # the second thread's own memo table
    pool = ThreadPoolExecutor(1, thread_name_prefix="exact-do") if beside is not None else None
    columns = [np.asarray(c, dtype=np.int32) for c in seed_columns]
    seen = {c.tobytes() for c in columns}
    trees: dict[int, tuple[list, list]] = {}
    inputs: dict[int, np.ndarray] = {}
    rounds: list[Round] = []
    best_lo, best_y, kind = -np.inf, None, EXACT
    x = None
    upper = np.inf
    pending = [np.asarray(h, dtype=np.float64) / np.sum(h) for h in hiders]
    priced = 0
    heuristic: set[int] = set()

    def add(col, tree=None, hider=None, exact=True) -> bool:
        col = np.asarray(col, dtype=np.int32)
        if col.tobytes() in seen:
            return False
        seen.add(col.tobytes())
        if tree is not None:
            trees[len(columns)] = (tree.node_states, tree.node_moves)
            inputs[len(columns)] = hider
            if not exact:
                heuristic.add(len(columns))
        columns.append(col)
        return True

    try:
        for _ in range(max_rounds):
            G = np.stack(columns, axis=1).astype(np.float64)
            x, guarantee, y = restricted_game(G)
            while pricing is not None and not pending and priced < max_priced:
                improved = False
                for level in pricing(y):
                    for c in level:
                        if c.exact and c.tree.value > best_lo:
                            best_lo, best_y, kind = c.tree.value, c.hider, EXACT
                    if guarantee - best_lo <= tol:
                        break
                    need = guarantee - max(tol, pricing_gain * (guarantee - best_lo))
                    if min(float(y @ c.guesses) for c in level) < need:
                        improved = any([add(c.guesses, c.tree, c.hider, c.exact) for c in level
                                        if float(y @ c.guesses) < guarantee - tol])
                        if improved:
                            break
                if not improved or guarantee - best_lo <= tol:
                    break
                priced += 1
                G = np.stack(columns, axis=1).astype(np.float64)
                x, guarantee, y = restricted_game(G)
            if guarantee - best_lo <= tol:
                upper = guarantee
                break
            upper = guarantee  # nonincreasing: the columns only grow
            y_lp = y
            if pending:
                y = pending.pop(0)
            elif best_y is not None and smoothing > 0:
                y = smoothing * best_y + (1.0 - smoothing) * y
            lp_search = _LPSearch(solver, beside, pool, y_lp, float((y_lp @ G).min()), max_nodes,
                                  ahead=y is not y_lp and lp_hider_too)
            ts = time.perf_counter()
            r = solver.solve(y, upper=float((y @ G).min()), max_nodes=max_nodes)
            if r is None and y is not y_lp:  # the smoothed hider is out of budget: the restricted game's own
                rounds.append(Round(len(columns), guarantee, np.nan, False, time.perf_counter() - ts, max_nodes))
                y = y_lp
                r, seconds = lp_search.result()
                ts = time.perf_counter() - seconds
            if r is None:  # out of budget: this hider's proven bound, then stop
                lo, _ = solver.lower_bound(y, None, guarantee, max_nodes, steps=lower_steps)
                rounds.append(Round(len(columns), guarantee, lo, False, time.perf_counter() - ts, max_nodes))
                if lo > best_lo:
                    best_lo, best_y, kind = lo, y, BOUNDED
                break
            rounds.append(Round(len(columns), guarantee, r.value, True, time.perf_counter() - ts, r.nodes))
            if r.value > best_lo:
                best_lo, best_y, kind = r.value, y, EXACT
            if on_round is not None:
                on_round(rounds[-1])
            if upper - best_lo <= tol or time.perf_counter() - t0 > time_budget:
                break
            col = r.tree_guesses.astype(np.int32)
            if y is not y_lp and float(y_lp @ col) >= guarantee - tol:
                # mis-pricing: the smoothed hider's tree does not improve the restricted game (its hider became
                # the centre); the restricted game's own hider's tree does, unless the bracket is closed
                r, seconds = lp_search.result()
                if r is None:
                    break
                rounds.append(Round(len(columns), guarantee, r.value, True, seconds, r.nodes))
                y = y_lp
                if r.value > best_lo:
                    best_lo, best_y, kind = r.value, y, EXACT
                if upper - best_lo <= tol:
                    break
                col = r.tree_guesses.astype(np.int32)
            if not add(col, r, y):  # only when V*(y) = the guarantee up to rounding: nothing left to add
                break
            if lp_hider_too and y is not y_lp:
                r2, seconds = lp_search.result()
                if r2 is not None:
                    rounds.append(Round(len(columns), guarantee, r2.value, True, seconds, r2.nodes))
                    if on_round is not None:
                        on_round(rounds[-1])
                    if r2.value > best_lo:
                        best_lo, best_y, kind = r2.value, y_lp, EXACT
                    add(r2.tree_guesses, r2, y_lp)
            for c in (extra_columns(y) if extra_columns is not None else []):
                add(c)
    finally:
        if pool is not None:  # a search started ahead for a round that closed the bracket first, or an
            pool.shutdown(wait=True)  # interrupt: waited for, so that no search outlives the call
    # the guesser mixture of the last LP solved (its guarantee is min over rounds: columns only grow)
    trees = {c: t for c, t in trees.items() if c < len(x)}
    return CertifiedDO(columns[: len(x)], trees, inputs, x, upper, best_y, best_lo, kind, rounds,
                       time.perf_counter() - t0, max_nodes, priced, heuristic & set(trees))


class _LPSearch:
    """The exact best response to a round's own LP hider, computed at most once: started at once in the second
    thread (``ahead``, when the round will need it beside the smoothed hider's search) or when first asked for."""

    def __init__(self, solver, beside, pool, y, upper, max_nodes, ahead):
        self.args = (y, upper, max_nodes)
        self.solver = solver
        self.future = pool.submit(self._run, beside) if ahead and pool is not None else None
        self.done = None

    def _run(self, solver):
        y, upper, max_nodes = self.args
        ts = time.perf_counter()
        r = solver.solve(y, upper=upper, max_nodes=max_nodes)
        return r, time.perf_counter() - ts

    def result(self):
        """(the search's ExactResult or None if out of budget, its seconds)."""
        if self.done is None:
            self.done = self.future.result() if self.future is not None else self._run(self.solver)
        return self.done
