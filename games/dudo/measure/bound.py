"""A lower bound on a Dudo round's exploitability: the best response of a responder with memory m'.

The fixed player's abstract strategy depends only on its last ``m`` claims, so on the public DAG of
a longer window ``m' >= m`` it is the same strategy, looked up by the last ``m`` claims of each
``m'``-window (``lift_strategy``): the ``m'``-DAG with the lifted strategy is the same game for the
fixed player.  On that DAG the responder picks, per (window, roll), the action with the best
counterfactual value (``abstract_best_response``); that pure response remembers ``m'`` claims, is a
legal strategy of the round, and its value is computed exactly, so its gain is a lower bound on the
exploitability.  It grows with ``m'`` (the responder's choices are per window, and a longer window
splits the shorter one's) and equals the exact best response when ``m'`` covers the whole round
(the DAG is then a tree).  Label: ``br_kind(m', m)``: with ``m' = m`` it is the abstraction's own
bound (the responder restricted to the abstraction), with ``m' > m`` the stronger one.
"""
from __future__ import annotations

import re

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.dudo.measure.exploit import _resp_tables
from games.dudo.abstraction.dag import Group, make_group
from games.dudo.abstraction.infoset import dominates
from games.dudo.abstraction.precision import node_value_dtype


EXACT = "exact-perfect-recall"
NOT_MEASURED = "not measured"


def br_kind(m_resp, m_abstraction=None) -> str:
    """The label of a responder-memory bound (manifest ``br_kind``, ``GetStats``, reports); with
    perfect recall (None) the DAG is a tree and the response is the exact one; with the
    abstraction's own memory it is the abstraction's bound."""
    if m_resp is None:
        return EXACT
    if m_resp == m_abstraction:
        return f"lower bound: abstraction (best response with memory {m_resp})"
    return f"lower bound: best response with memory {m_resp}"


def kind_memory(kind: str) -> str | None:
    """The responder memory a kind names, as written ("4-24-3", "2+1f28"; ``br_kind`` or
    ``lbr.improvement_kind``), or None where it names none."""
    found = re.search(r"with memory ([^ )]+)", kind or "")
    return found.group(1) if found else None


def kind_of(stats: dict) -> str:
    """A round's ``br_kind`` as stored; stores built before the kinds were named say "none" (or
    nothing) where nothing was measured, and "abstract-local" for the abstraction's bound."""
    kind = stats.get("br_kind")
    if kind in (None, "none"):
        return NOT_MEASURED
    if kind == "abstract-local":
        return "lower bound: abstraction"
    return kind


@njit(cache=True, nogil=True)
def suffix_map(order, act_off_big, child_big, act_off_small, child_small, NW_big):
    """phi[w'] = the window of the small memory holding the last claims of window w' (same K):
    phi(empty) = empty, and a claim moves both windows along the same action slot; -1 where no
    history reaches w'."""
    phi = np.full(NW_big, -1, dtype=np.int64)
    phi[0] = 0
    for k in range(NW_big):
        w = order[k]
        ws = phi[w]
        if ws < 0:          # no history reaches w
            continue
        for j in range(1, act_off_big[w + 1] - act_off_big[w]):
            c = child_big[act_off_big[w] + j]
            cs = child_small[act_off_small[ws] + j]
            if phi[c] < 0:
                phi[c] = cs
    return phi


@njit(cache=True, nogil=True)
def _lift(strat, out, phi, n, base_small, base_big, act_off_small, act_off_big, NW_big):
    for w in range(NW_big):
        if phi[w] < 0:      # no history reaches it (a face memory's short window with a face)
            continue
        na = act_off_big[w + 1] - act_off_big[w]
        src = base_small + act_off_small[phi[w]] * n
        dst = base_big + act_off_big[w] * n
        for i in range(na * n):
            out[dst + i] = strat[src + i]


def lift_strategy(g_small: Group, strat, g_big: Group, sides_small, sides_big, dtype=np.float64):
    """``strat`` (on ``g_small``) as a strategy of ``g_big`` (same rounds, longer memory): side
    ``sides_big[i]`` of the big group plays what side ``sides_small[i]`` of the small one plays;
    the other sides' entries stay zero (the responder's, never read by the best response)."""
    if g_small.K != g_big.K:
        raise ValueError("the two groups must have the same dice")
    if not dominates(g_big.K, g_big.m, g_small.m):
        raise ValueError(f"memory {g_big.m} does not remember all that memory {g_small.m} does: no lift")
    phi = suffix_map(g_big.order, g_big.act_off, g_big.child, g_small.act_off, g_small.child, g_big.NW)
    out = np.zeros(g_big.nrows, dtype=dtype)
    for ss, sb in zip(sides_small, sides_big):
        n = int(g_small.ns[ss])
        if n != int(g_big.ns[sb]):
            raise ValueError("sides hold different dice")
        _lift(strat, out, phi, n, int(g_small.rbase[ss]), int(g_big.rbase[sb]), g_small.act_off,
              g_big.act_off, g_big.NW)
    return out


def seat_group(g: Group, opener: int, resp_is_opener: bool, m_resp, W, br_open: dict, br_other: dict,
               max_dice: int):
    """The m'-window group of one responder seat in the round of group ``g`` opened by the player with
    ``opener`` dice: ``(gs, s_open, s_resp, s_fix, small_fix, T_resp, T_fix)``, the opener's, responder's
    and fixed player's sides of ``gs``, the fixed player's side of ``g`` (equal dice: one side split in
    two seats, side 0 opens) and the responder's winning probabilities after a challenge
    (``exploit._resp_tables``); ``gs.terminal`` holds them in +-1 units for each side's mover."""
    a, b = g.dice[0], g.dice[-1]
    if a == b:
        gs = make_group(a, b, m_resp, W, max_dice, split=True)
        s_open, s_resp, small_fix = 0, (0 if resp_is_opener else 1), 0
    else:
        gs = make_group(a, b, m_resp, W, max_dice, openers=(opener,))   # same side order
        s_open = gs.dice.index(opener)
        s_resp = s_open if resp_is_opener else 1 - s_open
        small_fix = 1 - s_resp
    s_fix = 1 - s_resp
    T_resp, T_fix = _resp_tables(gs, s_resp, s_fix, br_open, br_other)
    gs.terminal = np.zeros_like(gs.terminal)
    gs.terminal[s_resp] = 2 * T_resp - 1
    gs.terminal[s_fix] = 1 - 2 * T_fix
    return gs, s_open, s_resp, s_fix, small_fix, T_resp, T_fix


def no_worse_than_ours(br_opener: float, br_other: float, value: float) -> list:
    """Each seat's bound at least what our own strategy gets there (``value``: the opener's winning probability):
    a memory-limited responder may play ours in this round instead."""
    return [max(br_opener, value), max(br_other, 1.0 - value)]


def memory_best_response(g: Group, strat, opener: int, m_resp, W, br_open: dict, br_other: dict,
                         max_dice: int, value: float | None = None):
    """(responder-as-opener, responder-as-other) game-winning probabilities of a responder with
    memory ``m_resp`` (>= the group's ``m``; None = perfect recall) in the round of group ``g``
    opened by the player with ``opener`` dice, against ``strat``.  Continuations: ``br_open`` /
    ``br_other`` are the responder's winning probabilities in the later rounds (as for
    ``exploit.best_response_value``).

    ``value``: the opener's winning probability under ``strat``; given, each seat's figure is at least
    ours there.  A memory-limited responder choosing by counterfactual value can do worse than our own
    strategy (imperfect recall); it may play ours in this round instead, which with continuations no
    lower than ours (true bottom-up) reaches at least our value."""
    from games.dudo.solvers.abstract_cfr import abstract_best_response
    if not dominates(g.K, m_resp, g.m):
        raise ValueError("the responder must remember at least the abstraction's claims")
    out = []
    for resp_is_opener in (True, False):
        gs, s_open, s_resp, s_fix, small_fix, _, _ = seat_group(g, opener, resp_is_opener, m_resp, W, br_open,
                                                                br_other, max_dice)
        dtype = node_value_dtype(gs.nrows)
        lifted = lift_strategy(g, strat, gs, [small_fix], [s_fix], dtype)
        vals, _ = abstract_best_response(gs, lifted, s_resp, build_response=False)
        del lifted
        v_open = vals[s_open]
        out.append(0.5 * (1 + v_open) if resp_is_opener else 0.5 * (1 - v_open))
    if value is not None:
        out = no_worse_than_ours(out[0], out[1], value)
    return tuple(out)
