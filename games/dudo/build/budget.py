"""Memory per dice group chosen by a budget: a cost model of a group's solver tables.

A group {a, b} with memory m (``None`` = perfect recall) has ``window_actions(K, m)`` (window,
action) slots per roll (``K = 6 (a + b)`` claims); its tables are

* per side s with ``n_s`` rolls: regrets, strategy sums, current strategy and the average strategy, float64, ``window_actions * n_s``
  entries each (perfect recall, ``tree_cfr.TreeSolver``: regrets and strategy sums only);
* node value matrices, ``windows * n_a * n_b`` per side, of which the blocked kernel's pool holds
  ``POOL_FRACTION`` at once (all of them at m = 1), float64 (float32 past 1 GB), and the per-node
  reach vectors.

One training iteration costs ``SECONDS_PER_PAIR`` per (window action x roll pair) and side for the
node values and, per backward pass (two with alternating updates: two sides or perfect recall),
``SECONDS_PER_ROLL`` per (window action x roll) for regrets and strategies (the whole cost of the
perfect-recall tree walk, which has no roll-pair matrices).

The responder-memory bound (``bound.memory_best_response``) of a round with memory m' costs, per
responder seat, a forward and a backward pass over the m'-window group with two seats
(``bound_cost``): about ``BOUND_PAIRS`` times ``SECONDS_PER_PAIR`` per (window action x roll pair)
for both seats (measured 3.5e-9 to 5e-9 s per window action x roll pair at 7-8 dice), and the
training tables' memory of the m' group (measured 1.66 GB peak at 4v4 m' = 3, modelled 1.67 GB).  The constants were measured with
``python -m bench.dudo_cost`` (CPU seconds per iteration against the model's work, over groups of 1v1
to 5v5, on the development machine); they are constants, not measurements at build time, so the
memory chosen for a group (and with it the store's content) is the same on every machine.

``choose_memory``: perfect recall where it fits both budgets, else the largest m whose tables fit.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import comb

from games.dudo.abstraction.infoset import (Faces, Schedule, dominates, is_perfect_recall, memory_at, memory_plus, memory_size, num_windows,
                      window_tables)
from games.dudo.abstraction.precision import node_value_bytes
from games.dudo.rules import MAX_DICE, num_rolls

SECONDS_PER_PAIR = 2.0e-9
SECONDS_PER_ROLL = 3.0e-8
POOL_FRACTION = 0.6  # blocked kernel: value matrices held at once / windows (measured 0.46-0.56 for m >= 2)
STORE_BYTES_PER_ROW = 70   # store bytes per (window, roll): the default store's largest group mean is 66
BOUND_PAIRS = 2.5    # bound seconds / (SECONDS_PER_PAIR x window actions x roll pairs), both seats
MAX_MEMORY = 12     # windows grow like C(K, m): no group of the real game fits more within any budget here


def window_actions(K: int, m: int | None) -> int:
    """Action slots summed over all windows (``infoset.window_tables``' ``act_off[-1]``): the empty
    window has K + 1 slots; a window of k claims whose last is L (C(L, k - 1) of them) has K - L; a face
    memory's, counted on its tables."""
    if isinstance(m, Faces):
        return int(window_tables(K, m)[2][-1])
    mm = memory_size(K, m)
    total = K + 1
    for k in range(1, mm + 1):
        total += sum(comb(L, k - 1) * (K - L) for L in range(k - 1, K) if memory_at(K, m, L) >= k)
    return total


@dataclass(frozen=True)
class GroupCost:
    m: int | None
    windows: int
    window_actions: int
    bytes: int                      # peak table memory of training plus evaluation (model)
    seconds_per_iteration: float    # model, one core


def group_cost(a: int, b: int, m: int | None, split: bool = False, tree: bool = True) -> GroupCost:
    """The cost model of group {a, b} with memory ``m`` (see the module docstring); ``split``: equal dice
    with the seats on two sides (``dag.make_group(split=True)``), as two different dice are; ``tree``:
    perfect recall is solved by ``tree_cfr.TreeSolver`` (else by ``FastSolver`` on its windows, as ``cfrbr``)."""
    K = 6 * (a + b)
    m = None if is_perfect_recall(K, m) else m
    perfect = m is None and tree
    ns = [num_rolls(a)] if a == b and not split else [num_rolls(a), num_rolls(b)]
    nw, wa = num_windows(K, m), window_actions(K, m)
    rows = wa * sum(ns)
    pair = ns[0] * ns[-1]
    if perfect:
        arrays, passes = 3, 2
        seconds = SECONDS_PER_ROLL * passes * rows
    else:
        shared = len(ns) == 1           # one side: the seats share nodes (simultaneous CFR+)
        arrays, passes = 4, (1 if shared else 2)
        # the roll-pair work is measured to cost once per iteration, not once per pass: with two
        # sides and alternating updates the per-pass model was 2.7-3.2 times the measured CPU at 7-9
        # dice (3v4 m3, 3v5 m2, 4v5 m2; python -m bench.dudo_cost)
        seconds = SECONDS_PER_PAIR * wa * pair * len(ns) + passes * SECONDS_PER_ROLL * rows
    values = nw * pair * len(ns) * (1.0 if m == 1 else POOL_FRACTION)
    values = node_value_bytes(values)
    reach = 8 * 2 * len(ns) * nw * max(ns)
    return GroupCost(m, nw, wa, 8 * arrays * rows + values + reach, seconds)


def cfrbr_cost(a: int, b: int, m, m_fine) -> GroupCost:
    """The cost model of group {a, b} with memory ``m`` trained against responders remembering ``m_fine``
    (``cfrbr.CFRBR``): the fine group with its seats on two sides, four of its passes an iteration (two
    alternating iterations' worth), and the abstract strategy's regrets, sums and per-iteration sums."""
    K = 6 * (a + b)
    fine = group_cost(a, b, m_fine, split=True, tree=False)
    rows = window_actions(K, m) * sum({a: num_rolls(a), b: num_rolls(b)}.values())
    return GroupCost(m, num_windows(K, m), window_actions(K, m), fine.bytes + 8 * 5 * rows,
                     2 * fine.seconds_per_iteration)


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


def bound_cost(a: int, b: int, m_resp: int) -> GroupCost:
    """The cost model of one round's responder-memory bound with memory ``m_resp`` in group {a, b}
    (both responder seats; see the module docstring)."""
    K = 6 * (a + b)
    c = group_cost(a, b, m_resp)
    na, nb = num_rolls(a), num_rolls(b)
    seconds = BOUND_PAIRS * SECONDS_PER_PAIR * c.window_actions * na * nb \
        + 2 * SECONDS_PER_ROLL * c.window_actions * (na + nb)
    return GroupCost(c.m, c.windows, c.window_actions, c.bytes if a != b else group_cost_split_bytes(a, m_resp, K), seconds)


def group_cost_split_bytes(a: int, m_resp: int, K: int) -> int:
    """Bytes of a symmetric group's bound: its seats split into two sides (``make_group(split=True)``)."""
    n = num_rolls(a)
    nw, wa = num_windows(K, m_resp), window_actions(K, m_resp)
    values = nw * n * n * 2 * (1.0 if m_resp == 1 else POOL_FRACTION)
    values = node_value_bytes(values)
    return 8 * 3 * wa * 2 * n + values + 8 * 2 * 2 * nw * n


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


def store_bytes(a: int, b: int, m: int | None) -> int:
    """Model of group {a, b}'s bytes in the store (row format 2, ``store.encode_window``): every window
    of each seat's dice with ``STORE_BYTES_PER_ROW`` per roll (an overestimate: unreachable windows are
    not stored, and a roll's row is 1 byte plus 3 per action it plays; measured 4.5 to 66 bytes per roll
    on the default store, most where m = 1 mixes many actions)."""
    K = 6 * (a + b)
    return num_windows(K, None if is_perfect_recall(K, m) else m) * sum({a: num_rolls(a), b: num_rolls(b)}.values()) \
        * STORE_BYTES_PER_ROW


def improvement_bytes(a: int, b: int, m_resp: int) -> int:
    """Bytes of the value matrices the perfect-recall improvement (``lbr.improved_best_response``)
    keeps: every node of both sides of the m'-window group (float32 past 1 GB, as the solver's)."""
    n = 2 * num_windows(6 * (a + b), m_resp) * num_rolls(a) * num_rolls(b)
    return node_value_bytes(n)


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

