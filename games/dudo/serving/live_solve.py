"""Dudo rounds that a store does not hold, solved live: the cost estimate and the solve.

A store built for ``max_dice`` dice a player never plays a round that only a game with more dice
reaches (a round opened by a player with fewer dice than the maximum against the maximum, or more
dice than the store has). Such a round is answered by solving the game with ``need`` dice a player
bottom-up, the groups up to the round's dice in play, with the store's parameters. The server runs
:func:`solve_live` in its live pool (a worker process, never a serving thread) after checking
:func:`live_cost` against the caller's deadline and its caps.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from games.dudo.cost import WORKER_BYTES, LiveGroupCost, live_group_cost
from games.dudo.build.solve_game import DudoSolution, groups_in_order, solve_game
from games.dudo.build.params import group_iterations


def live_groups(max_dice: int, max_total: int) -> list[tuple[int, int]]:
    """The groups a live solve of round totals up to ``max_total`` trains, in order."""
    return [(a, b) for a, b in groups_in_order(max_dice) if a + b <= max_total]


def live_cost(max_dice: int, max_total: int, memory: int | None, perfect_recall_total: int,
              iterations: int, iterations_by_total=()) -> tuple[float, int, list[LiveGroupCost]]:
    """(CPU seconds, peak bytes, per group) of :func:`solve_live` with these parameters: an estimate
    from the table sizes and iterations alone (nothing is built; ``cost.live_group_cost``)."""
    groups = [live_group_cost(a, b, None if a + b <= perfect_recall_total else memory,
                              group_iterations(iterations, tuple(iterations_by_total), a, b))
              for a, b in live_groups(max_dice, max_total)]
    kept = sum(g.rows * 8 for g in groups)  # the strategies of every group, returned
    peak = WORKER_BYTES + kept + max((g.nbytes for g in groups), default=0)
    return sum(g.seconds for g in groups), peak, groups


def _lookup_only(g):
    """The tables ``DudoSolution.action_distribution`` reads (the DAG's edges and terminal values go)."""
    return dataclasses.replace(g, wsize=None, child=None, order=None, claim_n=None, claim_r=None, probs=None,
                               rc=None, root_w=None, terminal=None)


def solve_live(max_dice: int, max_total: int, memory: int | None, perfect_recall_total: int, iterations: int,
               iterations_by_total=()) -> tuple[DudoSolution, int]:
    """Train the groups of the ``max_dice`` game up to ``max_total`` dice in play (no statistics):
    (a solution with every trained group's strategy, its size in bytes)."""
    its = functools.partial(group_iterations, iterations, tuple(iterations_by_total))
    sol = solve_game(max_dice=max_dice, m=memory, iterations=its,
                     perfect_recall_total=perfect_recall_total, exact_br_total=0, progress=False, log=None,
                     abstract_br=False, max_total=max_total)
    nbytes = 0
    for key in list(sol.groups):
        st = np.array(sol.strategies[key])  # off the memory map of a removed file
        g = sol.groups[key] = _lookup_only(sol.groups[key])
        sol.strategies[key] = st
        nbytes += st.nbytes + g.last.nbytes + g.act_off.nbytes
    sol.stats = {}
    return sol, nbytes
