"""What Dudo work costs: the one model that prices every kind of work the builder plans and the server admits,
each from the sizes of its tables and a constant measured once on the development machine (one core).

The kinds of work, one function each:

* **training a dice group** (the build, ``solvers``): ``group_cost`` an iteration of CFR+ on the abstract DAG
  or the perfect-recall tree, ``cfrbr_cost`` against fine responders, ``bound_cost`` a round's
  responder-memory bound, ``improvement_bytes`` the perfect-recall improvement's matrices, ``store_bytes`` a
  group's rows on disk. The builder chooses each group's memory with them (``build.budget``), so their
  constants are part of what a store's content depends on: change one and a default build changes.
* **a live solve** of the groups a store does not hold (``serving.live_solve``): ``live_group_cost``, the
  training's ``group_cost`` times ``LIVE_SOLVE_FACTOR`` (measured by ``python -m bench.dudo_cost --live``).
* **an endgame re-solve** with perfect recall (``search.endgame``, ``serving.endgame_store``):
  ``endgame_cost`` (its size and seconds an iteration), ``endgame_resolve_cost`` (with the store rows read).
* **a searched answer on an exact round** (continual re-solving along the history,
  ``serving.searched_store``): ``exact_search_seconds``.
* **a large round's depth-limited re-solve** (``serving.large_search``): ``large_resolve_seconds``.
* **a reviewed game** (``serving.move_scoring``): ``review_seconds``.

The constants are constants, not measurements at run time, so a plan (and with it a store) is the same on
every machine; the server scales its admission estimates by ``--live-estimate-scale`` where its machine
differs. The default build's measured walls per group, which its progress estimate schedules, are
measurements of one build, not prices: ``builder.dudo_estimate``.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import comb

from games.dudo.abstraction.infoset import Faces, is_perfect_recall, memory_at, memory_size, num_windows, window_tables
from games.dudo.abstraction.precision import node_value_bytes
from games.dudo.rules import num_rolls, roll_arrays

# --------------------------------------------------------------------------------------------
# training a dice group
#
# A group {a, b} with memory m (``None`` = perfect recall) has ``window_actions(K, m)`` (window, action)
# slots per roll (``K = 6 (a + b)`` claims); its tables are
#
# * per side s with ``n_s`` rolls: regrets, strategy sums, current strategy and the average strategy, float64,
#   ``window_actions * n_s`` entries each (perfect recall, ``tree_cfr.TreeSolver``: regrets and strategy sums
#   only);
# * node value matrices, ``windows * n_a * n_b`` per side, of which the blocked kernel's pool holds
#   ``POOL_FRACTION`` at once (all of them at m = 1), float64 (float32 past 1 GB), and the per-node reach vectors.
#
# One training iteration costs ``SECONDS_PER_PAIR`` per (window action x roll pair) and side for the node values
# and, per backward pass (two with alternating updates: two sides or perfect recall), ``SECONDS_PER_ROLL`` per
# (window action x roll) for regrets and strategies (the whole cost of the perfect-recall tree walk, which has no
# roll-pair matrices).
#
# The responder-memory bound (``bound.memory_best_response``) of a round with memory m' costs, per responder
# seat, a forward and a backward pass over the m'-window group with two seats: about ``BOUND_PAIRS`` times
# ``SECONDS_PER_PAIR`` per (window action x roll pair) for both seats (measured 3.5e-9 to 5e-9 s per window
# action x roll pair at 7-8 dice), and the training tables' memory of the m' group (measured 1.66 GB peak at
# 4v4 m' = 3, modelled 1.67 GB).
#
# Calibrated with ``python -m bench.dudo_cost``: CPU seconds per iteration against the model's work, over groups
# of 1v1 to 5v5 (it prints the factor to apply where another machine should set them).

SECONDS_PER_PAIR = 2.0e-9
SECONDS_PER_ROLL = 3.0e-8
POOL_FRACTION = 0.6  # blocked kernel: value matrices held at once / windows (measured 0.46-0.56 for m >= 2)
STORE_BYTES_PER_ROW = 70   # store bytes per (window, roll): the default store's largest group mean is 66
BOUND_PAIRS = 2.5    # bound seconds / (SECONDS_PER_PAIR x window actions x roll pairs), both seats


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
    """An iteration of training group {a, b} with memory ``m`` (the model above, ``SECONDS_PER_PAIR`` and
    ``SECONDS_PER_ROLL`` calibrated by ``python -m bench.dudo_cost``); ``split``: equal dice with the seats on two
    sides (``dag.make_group(split=True)``), as two different dice are; ``tree``: perfect recall is solved by
    ``tree_cfr.TreeSolver`` (else by ``FastSolver`` on its windows, as ``cfrbr``)."""
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
    """An iteration of training group {a, b} with memory ``m`` against responders remembering ``m_fine``
    (``cfrbr.CFRBR``): the fine group with its seats on two sides, four of its passes an iteration (two
    alternating iterations' worth), and the abstract strategy's regrets, sums and per-iteration sums."""
    K = 6 * (a + b)
    fine = group_cost(a, b, m_fine, split=True, tree=False)
    rows = window_actions(K, m) * sum({a: num_rolls(a), b: num_rolls(b)}.values())
    return GroupCost(m, num_windows(K, m), window_actions(K, m), fine.bytes + 8 * 5 * rows,
                     2 * fine.seconds_per_iteration)


def bound_cost(a: int, b: int, m_resp: int) -> GroupCost:
    """One round's responder-memory bound with memory ``m_resp`` in group {a, b} (both responder seats;
    ``seconds_per_iteration`` is the whole bound's; ``BOUND_PAIRS`` from the bounds' seconds and peak memory at
    7-8 dice that ``python -m research.dudo largebounds`` prints)."""
    K = 6 * (a + b)
    c = group_cost(a, b, m_resp)
    na, nb = num_rolls(a), num_rolls(b)
    seconds = BOUND_PAIRS * SECONDS_PER_PAIR * c.window_actions * na * nb \
        + 2 * SECONDS_PER_ROLL * c.window_actions * (na + nb)
    return GroupCost(c.m, c.windows, c.window_actions, c.bytes if a != b else _split_bound_bytes(a, m_resp, K),
                     seconds)


def _split_bound_bytes(a: int, m_resp: int, K: int) -> int:
    """Bytes of a symmetric group's bound: its seats split into two sides (``make_group(split=True)``)."""
    n = num_rolls(a)
    nw, wa = num_windows(K, m_resp), window_actions(K, m_resp)
    values = nw * n * n * 2 * (1.0 if m_resp == 1 else POOL_FRACTION)
    values = node_value_bytes(values)
    return 8 * 3 * wa * 2 * n + values + 8 * 2 * 2 * nw * n


def store_bytes(a: int, b: int, m: int | None) -> int:
    """Group {a, b}'s bytes in the store (row format 2, ``store.encode_window``): every window of each seat's
    dice with ``STORE_BYTES_PER_ROW`` per roll (an overestimate: unreachable windows are not stored, and a
    roll's row is 1 byte plus 3 per action it plays; measured 4.5 to 66 bytes per roll on the default store,
    most where m = 1 mixes many actions)."""
    K = 6 * (a + b)
    return num_windows(K, None if is_perfect_recall(K, m) else m) * sum({a: num_rolls(a), b: num_rolls(b)}.values()) \
        * STORE_BYTES_PER_ROW


def improvement_bytes(a: int, b: int, m_resp: int) -> int:
    """Bytes of the value matrices the perfect-recall improvement (``lbr.improved_best_response``)
    keeps: every node of both sides of the m'-window group (float32 past 1 GB, as the solver's)."""
    n = 2 * num_windows(6 * (a + b), m_resp) * num_rolls(a) * num_rolls(b)
    return node_value_bytes(n)


# --------------------------------------------------------------------------------------------
# a live solve of the groups a store does not hold
#
# A live solve (``serving.live_solve.solve_live``: the builder's ``solve_game`` without figures) trains each group as
# the build does, so its training is priced as the builder prices it, ``group_cost(a, b, m)`` an iteration, and then
# values the group's rounds once on ``FastSolver`` (``group_cost(..., tree=False)``, one iteration's pass).
# ``LIVE_SOLVE_FACTOR`` covers the rest, measured by ``nice -n 5 python -m bench.dudo_cost --live`` (CPU seconds of
# ``solve_live``, numba warm: 12 solves of games of 2 and 3 dice a player, m = 1 to 4 and perfect recall, 20 to 300
# iterations, 0.13 to 22 s each, on the shared 2-core development machine at load 6-7; docs/serving.md has the table):
# measured / ``group_cost`` was 0.47 to 1.93 a solve and 0.34 to 2.01 a group. The high end is where 1v1 weighs most:
# ``solve_game`` trains 1v1 with perfect recall on ``FastSolver``, 1.7-2.0 times the tree walk ``group_cost`` prices,
# and a live solve adds fixed work (the window tables, a checkpoint every tenth of its iterations, the quantised rows)
# that the smallest solves feel. 2.5 is 1.24 times the largest group's ratio, room for a machine loaded otherwise: the
# estimate was 1.3 to 5.4 times the measured CPU of a solve, most on the 3-dice games, whose 3v3 ``group_cost`` prices
# at 1.9 to 2.9 times its measured CPU. An estimate that is short lets a solve run into its caller's deadline; one
# that is long refuses it, naming the store that would answer it.

LIVE_SOLVE_FACTOR = 2.5
WORKER_BYTES = 200 << 20  # a live worker with numpy, numba and the kernels loaded


@dataclass(frozen=True)
class LiveGroupCost:
    group: tuple[int, int]
    memory: int | None
    rows: int  # (window, action, roll) rows of the regret / strategy arrays
    iterations: int
    work_seconds: float  # group_cost's seconds of its training and its valuation pass
    seconds: float       # the estimate: work_seconds x LIVE_SOLVE_FACTOR
    nbytes: int  # peak while it trains (arrays; the process itself not counted)


def live_group_cost(a: int, b: int, m: int | None, iterations: int) -> LiveGroupCost:
    """Group {a, b} with memory ``m`` built and trained ``iterations`` times in a live worker: ``group_cost``'s
    seconds of its training and of one valuation pass, times ``LIVE_SOLVE_FACTOR``, and its arrays' peak bytes."""
    K = 6 * (a + b)
    T = window_actions(K, m)
    na, nb = num_rolls(a), num_rolls(b)
    rows = T * (na if a == b else na + nb)
    NW = num_windows(K, m)
    # regrets, strategy sums, current strategy, predictive term; node values (at most one matrix a
    # window, float32 past 1 GB); the window tables
    values = node_value_bytes(NW * na * nb * (1 if a == b else 2))
    nbytes = rows * 32 + values + T * 8 + NW * 24
    train = group_cost(a, b, m)     # the builder's price of the group (build.budget)
    valuation = group_cost(a, b, m, tree=False)
    work = iterations * train.seconds_per_iteration + valuation.seconds_per_iteration
    return LiveGroupCost((a, b), m, rows, iterations, work, work * LIVE_SOLVE_FACTOR, nbytes)


# --------------------------------------------------------------------------------------------
# an endgame re-solve

# seconds per (node x roll) per walk of the CFR+ kernel: 0.4-2e-7 measured by ``research.dudo_endgame``'s
# timing table on the shared 2-core development machine at load 20 (1v1 to 5v5, 4 to 12 claims
# left); an unloaded core is several times faster, so estimates made with it are conservative
SECONDS_PER_NODE_ROLL = 1.0e-7
# a store row read and decoded into a blueprint table: 5-20 us measured (LMDB get + decode_row), taken high
SECONDS_PER_STORE_ROW = 3e-5


def endgame_nodes(remaining: int) -> int:
    """Claim histories of an endgame with ``remaining`` claims left: every subset of them."""
    return 1 << remaining


def endgame_rows(remaining: int, own: int, opp: int) -> int:
    """Upper bound on the (node, action, roll) entries of the endgame's arrays: ``2**R`` nodes
    have ``2**(R + 1) - 1`` action slots (a Dudo slot each, plus one per edge), each with the
    rolls of the player to move there (at most the larger roll count)."""
    n = max(roll_arrays(own)[0].size, roll_arrays(opp)[0].size)
    return ((1 << (remaining + 1)) - 1) * n


@dataclass(frozen=True)
class EndgameSize:
    remaining: int          # claims stronger than the last one
    nodes: int              # claim histories of the endgame
    node_rolls: int         # nodes x (requester rolls + opponent rolls): work of one walk
    bytes: int              # regrets, strategy sums, blueprint copy, average strategy
    seconds_per_iteration: float

    def seconds(self, iterations: int) -> float:
        return self.seconds_per_iteration * iterations


def endgame_cost(remaining: int, own: int, opp: int) -> EndgameSize:
    """The endgame with ``remaining`` claims left and these dice (``remaining`` at most ``6 (own + opp)``):
    its size and the seconds of one CFR+ iteration (``SECONDS_PER_NODE_ROLL``, from the timing table of
    ``python -m research.dudo_endgame``)."""
    nodes = endgame_nodes(remaining)
    n = roll_arrays(own)[0].size + roll_arrays(opp)[0].size
    rows = endgame_rows(remaining, own, opp)
    # one iteration = two walks (alternating updates), each touching every node's rolls
    return EndgameSize(remaining, nodes, nodes * n, 4 * 8 * rows,
                       2 * nodes * n * SECONDS_PER_NODE_ROLL)


def endgame_resolve_cost(remaining: int, root: int, own: int, opp: int, iterations: int) -> tuple[float, int]:
    """(CPU seconds, peak bytes) of re-solving from a store the endgame with ``remaining`` claims left whose
    root is ``root`` claims into the round: ``iterations`` of CFR+, the requester's rows read at its nodes of
    the endgame (half of them) and along the history before it, in a live worker."""
    size = endgame_cost(remaining, own, opp)
    rows = (size.nodes // 2 + root) * num_rolls(own) + root * num_rolls(opp)
    return size.seconds(iterations) + rows * SECONDS_PER_STORE_ROW, WORKER_BYTES + size.bytes


# --------------------------------------------------------------------------------------------
# searched answers

# CPU seconds per subgame node and iteration of an exact round's depth-limited re-solve (about what
# ``python -m research.dudo_walk profile`` measures)
SECONDS_PER_NODE_ITERATION = 2e-6
# CPU seconds per leaf, CFR+ iteration and 252 x 252 rolls of a large round's int8 re-solve
# (docs/dudo-search-serving.md section 6: 1.18 s for 551 leaves and 100 iterations at 5v5)
SECONDS_PER_LEAF_ITERATION = 2.2e-5
# memory admitted for a search or a review in a live worker: the worker's own memory, 232-237 MiB anonymous measured
# during searched moves on the default store (``python -m bench.serving_memory``, docs/deploying.md), with room
SEARCH_WORKER_BYTES = 300 << 20


def subgame_nodes(R: int, d: int) -> int:
    """Nodes of the depth-``d`` subgame with ``R`` claims left: sum of C(R, j), j <= min(d, R)."""
    return sum(comb(R, j) for j in range(min(d, R) + 1))


def exact_search_seconds(own: int, opp: int, history, opened: bool, depth: int, iterations: int) -> float:
    """An uncached searched answer on an exact round: every re-solve of the chain along ``history`` (the round's
    root, then one per decision of the requester), subgame nodes x iterations x ``SECONDS_PER_NODE_ITERATION``
    (``python -m research.dudo_walk profile``)."""
    K = 6 * (own + opp)
    hist = tuple(history)
    nodes = subgame_nodes(K, depth)
    for k in range(0 if opened else 1, len(hist) + 1, 2):
        last = hist[k - 1] if k else -1
        nodes += subgame_nodes(K - 1 - last, depth)
    return float(nodes) * iterations * SECONDS_PER_NODE_ITERATION


def large_resolve_seconds(own: int, opp: int, history, actions: int, iterations: int) -> float:
    """One depth-limited re-solve of a large round after ``history``: its leaves (at most ``actions`` own
    claims, then every reply) times ``iterations``, scaled by the rolls (``SECONDS_PER_LEAF_ITERATION``, measured at
    5v5 in docs/dudo-search-serving.md section 6)."""
    K = 6 * (own + opp)
    last = history[-1] if history else -1
    left = K - 1 - last
    leaves = min(actions, left) * max(left - 1, 1) if history else left * max(left - 1, 1)
    scale = num_rolls(own) * num_rolls(opp) / (252 * 252)
    return leaves * iterations * SECONDS_PER_LEAF_ITERATION * scale


# --------------------------------------------------------------------------------------------
# a reviewed game

# a reviewed decision: every action's rest of the round valued (``python -m bench.review_latency`` measures it)
SECONDS_PER_REVIEWED_DECISION = 0.05


def review_seconds(decisions: int) -> float:
    """Reviewing a game's ``decisions`` of the reviewed player against a store (``SECONDS_PER_REVIEWED_DECISION``,
    from ``python -m bench.review_latency``)."""
    return SECONDS_PER_REVIEWED_DECISION * decisions
