"""Memory per dice group chosen by a budget, on the cost model of ``games.dudo.cost`` (training a group, a
round's bound, the improvement's matrices).

``choose_memory``: perfect recall where it fits both budgets, else the largest m whose tables fit.
``choose_bound_memory``: the responder memory of a round's bound; ``choose_improvement_memory``: the memory the
perfect-recall improvement starts from.
"""
from __future__ import annotations

from games.dudo.abstraction.infoset import Schedule, dominates, memory_plus, memory_size
from games.dudo.cost import GroupCost, bound_cost, group_cost, improvement_bytes
from games.dudo.rules import MAX_DICE

MAX_MEMORY = 12     # windows grow like C(K, m): no group of the real game fits more within any budget here


def choose_memory(a: int, b: int, iterations: int, memory_bytes: int, seconds: float,
                  max_memory: int = MAX_MEMORY) -> int | None:
    """Perfect recall (None) if group {a, b}'s tables fit ``memory_bytes`` and ``iterations`` fit
    ``seconds``; else the largest m (1 at least, at most ``max_memory``) that fits."""
    def fits(c: GroupCost) -> bool:
        return c.bytes <= memory_bytes and c.seconds_per_iteration * iterations <= seconds
    K = 6 * (a + b)
    if fits(group_cost(a, b, None)):
        return None
    best = 1
    for m in range(2, min(max_memory, K - 1) + 1):
        if not fits(group_cost(a, b, m)):
            break
        best = m
    return best


def choose_memories(max_dice: int, iterations, memory_bytes: int, seconds: float) -> dict:
    """{(a, b): m} for every group a <= b <= ``max_dice``; ``iterations`` is a function (a, b) -> int."""
    if not 1 <= max_dice <= MAX_DICE:
        raise ValueError(f"max_dice {max_dice} out of 1..{MAX_DICE}")
    return {(a, b): choose_memory(a, b, int(iterations(a, b)), memory_bytes, seconds)
            for a in range(1, max_dice + 1) for b in range(a, max_dice + 1)}


def larger_memories(K: int, m, extra: int) -> list:
    """Responder memories above ``m`` in increasing order, up to ``extra`` claims more after every
    claim: m + 1 .. m + extra; for a schedule first its largest memory after every claim (the uniform
    memory that the abstraction's strongest window has), then the schedule plus 1 .. ``extra``."""
    out = [memory_size(K, m)] if isinstance(m, Schedule) else []
    return out + [memory_plus(m, k) for k in range(1, extra + 1)]


def choose_bound_memory(a: int, b: int, m: int, extra: int, memory_bytes: int, seconds: float) -> int:
    """The responder memory m' of group {a, b}'s bound: the largest m' <= m + ``extra`` (and below the
    round's K claims) whose ``bound_cost`` fits ``memory_bytes`` and ``seconds``; m (the abstraction's
    own bound) if none larger fits."""
    K = 6 * (a + b)
    best = m
    for mr in larger_memories(K, m, extra):
        if memory_size(K, mr) > K - 1:
            break
        c = bound_cost(a, b, mr)
        if c.bytes > memory_bytes or c.seconds_per_iteration > seconds:
            break
        best = mr
    return best


def choose_improvement_memory(a: int, b: int, m: int, m_resp: int, memory_bytes: int) -> int:
    """The memory of the responder the improvement starts from: ``m_resp`` if its value matrices fit
    ``memory_bytes``, else the largest m'' of the ladder m .. ``m_resp`` whose matrices fit (m, the
    abstraction's, if none larger does)."""
    K = 6 * (a + b)
    if improvement_bytes(a, b, m_resp) <= memory_bytes:
        return m_resp
    best = m
    for mr in larger_memories(K, m, memory_size(K, m_resp) - memory_size(K, m)):
        if not dominates(K, m_resp, mr) or improvement_bytes(a, b, mr) > memory_bytes:
            break
        best = mr
    return best

