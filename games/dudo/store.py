"""The Dudo store's format: its parameters, keys and row codec, the manifest's format fields,
parameters and per-round statistics; the builder writes it and the server reads it through this module.

Row format 2: one LMDB entry (database ``windows``) per reachable (own dice, opponent dice, window of
remembered claims), holding every roll's action distribution quantised to integer units
(``games.quantise``: zero-probability actions dropped, the rest summing to exactly ``UNIT``); see
``encode_window``.  A lookup is one read (``lookup_row``).  The window index uses the memory of the
dice group, which the manifest records per group (``memory_by_group``).
"""
from __future__ import annotations

import struct
from dataclasses import asdict, dataclass

import numpy as np
from numba import njit

from games.quantise import UNIT, largest_remainder
from games.storage import StoreManifest

from games.dudo.build.budget import cfrbr_cost, choose_bound_memory, choose_improvement_memory, choose_memories, group_cost
from games.dudo.abstraction.infoset import block_memory, dominates, history_window, memory_json, parse_memory, remembers_more
from games.dudo.solvers.kernels import structural_reach
from games.dudo.rules import num_rolls, roll_index

WINDOW_KEY = struct.Struct(">BBI")  # own dice, opponent dice, window index (big-endian: key order)
ROW_FORMAT = 2  # one entry per (own, opp, window) holding every roll's quantised row (``encode_window``)


@dataclass(frozen=True)
class DudoParams:
    max_dice: int
    iterations: int
    memory: int = 3  # the paper's m: claims remembered (every group, without budgets)
    perfect_recall_total: int = 2  # groups with at most this many dice in play are solved without forgetting
    exact_br_total: int = 4  # exact perfect-recall best response up to this many dice in play
    # (total dice in play, iterations) overriding ``iterations`` for the groups of that total
    iterations_by_total: tuple = ()
    # memory per group by budget (``games.dudo.build.budget``): perfect recall where it fits, else the largest m
    # whose tables fit ``memory_budget`` bytes and whose planned iterations fit ``time_budget`` seconds
    # (cost model, one core); 0 = every group uses ``memory`` (perfect recall up to perfect_recall_total)
    memory_budget: int = 0
    time_budget: float = 0.0
    # ((a, b), m) with a <= b: group {a, b}'s memory set by the profile (by measurement, ``research.dudo
    # mtable``: the exploitability each m reaches; or to spend a first run's time where the game is large),
    # overriding the time budget's choice; its tables must still fit ``memory_budget``; m is an int or a
    # schedule's text ("4-24-3": 4 claims while the last claim is below strength 24, then 3; ``infoset.Schedule``)
    memory_by_group: tuple = ()
    # ((a, b), iterations) with a <= b: group {a, b}'s iteration cap, overriding ``iterations_by_total``
    iterations_by_group: tuple = ()
    label: str = "auto"  # names a budgeted variant: dudo-<max_dice>dice-<label>
    # > 0: train each group to its floor (``training.train_to_floor``): stop when a doubling of the
    # iterations improves the group's exploitability by less than this fraction; the planned iterations
    # (the time budget's) are a cap
    stop_rel: float = 0.0
    # beyond ``exact_br_total`` dice in play each round's exploitability is the lower bound of a
    # responder remembering m' claims (``bound.memory_best_response``): the largest m' <= m +
    # ``bound_memory`` whose modelled tables fit ``bound_budget`` bytes and one bound
    # ``bound_time_budget`` seconds (``budget.bound_cost``, one core; 0 = no limit); m' = m (0 here,
    # or nothing larger fits) is the abstraction's own bound
    bound_memory: int = 0
    bound_budget: int = 0
    bound_time_budget: float = 0.0
    # > 0: beyond ``exact_br_total`` dice in play each round also gets the perfect-recall improvement
    # of a memory-m'' responder (``lbr.improved_best_response``; m'' the bound's m' where its value
    # matrices fit ``bound_budget``, else smaller), sampled with this many rounds per responder roll
    # and seat (seeded by ``improve_seed``)
    improve_games: int = 0
    improve_seed: int = 0
    # ((a, b), m_fine) with a <= b: group {a, b}'s abstract strategy (memory m) learns by CFR+ against CFR+
    # responders remembering m_fine claims (``cfrbr.CFRBR``, the least exploitable strategy of memory m
    # rather than the equilibrium of the abstract game); its responders' tables are not stored
    train_memory_by_group: tuple = ()
    # ((opener, other), depth, iterations, gadget): rounds with an exact figure where the server answers
    # continual re-solving on the stored rows (``games.dudo.policy.searched``) if the builder's exact figure of
    # it is lower than the stored rows' (``served.serves_search``); chosen by measurement (research.dudo_walk)
    search_by_round: tuple = ()
    # (min_total, depth, iterations, claims): the rounds with at least min_total dice in play are served by
    # depth-limited continual re-solving on the stored rows (``search.tables``, ``serving.large_search``), with the
    # store holding their leaves and round-start re-solves; () = none
    large_search: tuple = ()

    @property
    def budgeted(self) -> bool:
        return self.memory_budget > 0 or self.time_budget > 0

    @property
    def variant(self) -> str:
        """dudo-m<m>-<N>dice with one memory for every group; dudo-<N>dice-<label> with memory by budget."""
        if self.budgeted:
            return f"dudo-{self.max_dice}dice-{self.label}"
        return f"dudo-m{self.memory}-{self.max_dice}dice"

    def group_iterations(self, a: int, b: int) -> int:
        by_group = {tuple(g): n for g, n in self.iterations_by_group}
        return by_group.get((a, b)) or group_iterations(self.iterations, tuple(self.iterations_by_total), a, b)

    def bound_memories(self) -> dict:
        """{(a, b): m'} of the responder-memory bound for every group with more than
        ``exact_br_total`` dice in play and an imperfect-recall memory.  A group trained against responders
        (``train_memory_by_group``) is measured by a responder remembering at least as much as they do."""
        out, trained = {}, self.train_memories()
        for (a, b), m in self.memories().items():
            if a + b > self.exact_br_total and m is not None:
                mr = choose_bound_memory(a, b, m, self.bound_memory, self.bound_budget or 1 << 62,
                                         self.bound_time_budget or float("inf"))
                mf = trained.get((a, b))
                out[(a, b)] = mf if mf is not None and not dominates(6 * (a + b), mr, mf) else mr
        return out

    def improvement_memories(self) -> dict:
        """{(a, b): m''} of the perfect-recall improvement's starting responder (``improve_games`` > 0)."""
        if self.improve_games <= 0:
            return {}
        mems = self.memories()
        return {(a, b): choose_improvement_memory(a, b, mems[(a, b)], mr, self.bound_budget or 1 << 62)
                for (a, b), mr in self.bound_memories().items()}

    def train_memories(self) -> dict:
        """{(a, b): m_fine} of the groups trained against responders that remember more (each must
        remember more than its group's memory)."""
        out = {tuple(g): parse_memory(m) for g, m in self.train_memory_by_group}
        mems = self.memories() if out else {}
        for (a, b), mf in out.items():
            if (a, b) not in mems:
                raise ValueError(f"train_memory_by_group: no group {a}v{b} (a <= b <= {self.max_dice})")
            m = mems[(a, b)]
            if not remembers_more(6 * (a + b), mf, m):
                raise ValueError(f"train_memory_by_group: {a}v{b} with memory {m} cannot train against"
                                 f" responders remembering {mf}: they must remember more")
            if self.memory_budget and cfrbr_cost(a, b, m, mf).bytes > self.memory_budget:
                raise ValueError(f"train_memory_by_group: {a}v{b} against responders remembering {mf} does not"
                                 " fit the memory budget")
        return out

    def memories(self) -> dict:
        """{(a, b): m} for every group a <= b (None = perfect recall)."""
        if not self.budgeted:
            return {(a, b): block_memory(a, b, self.memory, self.perfect_recall_total)
                    for a in range(1, self.max_dice + 1) for b in range(a, self.max_dice + 1)}
        out = choose_memories(self.max_dice, self.group_iterations, self.memory_budget or 1 << 62,
                              self.time_budget or float("inf"))
        for (a, b), m in self.memory_by_group:
            m = parse_memory(m)
            if (a, b) not in out:
                raise ValueError(f"memory_by_group: no group {a}v{b} (a <= b <= {self.max_dice})")
            if self.memory_budget and group_cost(a, b, m).bytes > self.memory_budget:
                raise ValueError(f"memory_by_group: {a}v{b} with m = {m} does not fit the memory budget")
            out[(a, b)] = m
        return out


def window_key(own: int, opp: int, window: int) -> bytes:
    return WINDOW_KEY.pack(own, opp, window)


@njit(cache=True)
def encode_window(strat, base, n, a0, na, out):
    """One window's value: every roll's distribution (``strat[base + j * n + x]``, action slots
    ``a0 .. na - 1``) quantised (``games.quantise``) and packed into ``out``; returns the length.

    Layout: counts[n] uint8 | slots[S] uint8 | units[S - n] little-endian uint16, where roll x has
    counts[x] >= 1 actions with positive units, listed by increasing slot (0 = Dudo, j >= 1 = claim
    last + j), and ``units`` holds all but each roll's last action (whose units are ``UNIT`` minus
    the others': a roll's units sum to ``UNIT`` exactly and every stored value fits 16 bits)."""
    k = na - a0
    p = np.empty(k)
    u = np.empty(n * k, dtype=np.int64)
    nslots = 0
    for x in range(n):
        for j in range(k):
            p[j] = strat[base + (a0 + j) * n + x]
        largest_remainder(p, u[x * k:(x + 1) * k], UNIT)
        c = 0
        for j in range(k):
            if u[x * k + j] > 0:
                out[n + nslots + c] = a0 + j
                c += 1
        out[x] = c
        nslots += c
    uo = n + nslots
    for x in range(n):
        c = out[x]
        seen = 0
        for j in range(k):
            v = u[x * k + j]
            if v > 0:
                seen += 1
                if seen < c:
                    out[uo] = v & 0xFF
                    out[uo + 1] = v >> 8
                    uo += 2
    return uo


def decode_window_row(raw: bytes, x: int, n: int, last: int) -> tuple[np.ndarray, np.ndarray]:
    """(actions, units) of roll ``x`` (of ``n``) in a window's value: actions as claim strengths,
    -1 = Dudo, ``last`` = the window's last claim (-1 for the empty window); units sum to ``UNIT``."""
    c = np.frombuffer(raw, dtype=np.uint8, count=n)
    before = int(c[:x].sum(dtype=np.int64))
    k = int(c[x])
    total = int(c.sum(dtype=np.int64))
    slots = np.frombuffer(raw, dtype=np.uint8, count=k, offset=n + before).astype(np.int64)
    units = np.empty(k, dtype=np.int64)
    units[:k - 1] = np.frombuffer(raw, dtype="<u2", count=k - 1, offset=n + total + 2 * (before - x))
    units[k - 1] = UNIT - int(units[:k - 1].sum())
    return np.where(slots == 0, -1, last + slots), units


@njit(cache=True)
def decode_window(buf, n, strat, base, unit):
    """Inverse of ``encode_window``: every roll's quantised distribution in ``buf`` written as
    probabilities (units / ``unit``) to ``strat[base + j * n + x]`` (slot j, roll x)."""
    total = 0
    for x in range(n):
        total += buf[x]
    pos = n
    uo = n + total
    for x in range(n):
        c = buf[x]
        left = unit
        for i in range(c):
            j = buf[pos + i]
            if i < c - 1:
                v = buf[uo] | (buf[uo + 1] << 8)
                uo += 2
                left -= v
            else:
                v = left
            strat[base + j * n + x] = v / unit
        pos += c


@njit(cache=True)
def _quantise_rows(strat, ns, rbase, act_off, last, NW, unit):
    for s in range(ns.size):
        n = ns[s]
        for w in range(NW):
            a0 = 1 if last[w] < 0 else 0
            k = act_off[w + 1] - act_off[w] - a0
            base = rbase[s] + (act_off[w] + a0) * n
            p = np.empty(k)
            u = np.empty(k, dtype=np.int64)
            for x in range(n):
                for j in range(k):
                    p[j] = strat[base + j * n + x]
                largest_remainder(p, u, unit)
                for j in range(k):
                    strat[base + j * n + x] = u[j] / unit


def quantised_strategy(g, strat, in_place: bool = False) -> np.ndarray:
    """Group ``g``'s strategy as its store rows hold it: every (side, window, roll) distribution quantised
    (``encode_window``'s units / ``UNIT``; ``decode_window`` of the rows gives the same numbers), a new
    array (``in_place``: ``strat`` itself, a float64 array the caller owns).  The builder measures and
    continues from this, the strategy a server reads, not the solver's floats (they differ by up to a
    unit, 1.5e-5, per probability)."""
    out = strat if in_place else np.array(strat, dtype=np.float64, copy=True)
    _quantise_rows(out, g.ns, g.rbase, g.act_off, g.last, g.NW, UNIT)
    return out


def store_group_strategy(get, g) -> np.ndarray:
    """The stored (quantised) strategy of group ``g`` (``dag.make_group`` with the store's memory of
    that group) in the solvers' layout; windows the store lacks stay zero.  ``get(key)`` reads the
    ``windows`` database."""
    strat = np.zeros(g.nrows)
    for s in range(g.nsides):
        own, opp = g.dice[s], g.dice[g.oth[s]]
        n = int(g.ns[s])
        for w in range(g.NW):
            raw = get(window_key(own, opp, w))
            if raw is not None:
                decode_window(np.frombuffer(raw, dtype=np.uint8).astype(np.int64), n, strat,
                              int(g.rbase[s] + g.act_off[w] * n), UNIT)
    return strat


def lookup_row(get, memories: dict, own: int, opp: int, roll, history) -> tuple[np.ndarray, np.ndarray]:
    """(actions, probabilities) stored for a player with ``roll`` after the round's claim ``history``
    (claim strengths, oldest first); ``get(key)`` reads the store's ``windows`` database (None if
    absent: KeyError), ``memories`` is the store's {(a, b): m} (``store_memories``).  Probabilities are
    the quantised units / ``UNIT``: exact binary fractions whose sums and running sums are exact, so
    ``games.seeding.seeded_pick`` draws from them the same index on every machine."""
    K = 6 * (own + opp)
    mb = memories[(min(own, opp), max(own, opp))]
    raw = get(window_key(own, opp, history_window(history, K, mb)))
    if raw is None:
        raise KeyError(f"no stored window for {own} v {opp} dice after {list(history)}")
    actions, units = decode_window_row(raw, roll_index(roll), num_rolls(own), history[-1] if len(history) else -1)
    return actions, units / UNIT


def read_row(store, memories: dict, own: int, opp: int, roll, history) -> tuple[np.ndarray, np.ndarray]:
    """``lookup_row`` in a published store; StoreError if the store lacks the window."""
    from games.storage import StoreError

    try:
        return lookup_row(lambda key: store.get("windows", key), memories, own, opp, roll, history)
    except KeyError as e:
        raise StoreError(f"store {store.path}: {e.args[0]}") from None


def format_fields(params: DudoParams) -> dict:
    """The manifest fields a reader needs to decode the rows: row format, probability unit and the
    memory of every group ("perfect" = perfect recall)."""
    return dict(row_format=ROW_FORMAT, probability_unit=UNIT,
                memory_by_group=[[a, b, "perfect" if m is None else memory_json(m)] for (a, b), m in sorted(params.memories().items())])


def store_memories(manifest: dict) -> dict:
    """{(a, b): m (None = perfect recall)} of a store, from its manifest; StoreError if its rows are not
    in row format ``ROW_FORMAT`` (a store built before it: rebuild)."""
    from games.storage import StoreError

    if manifest.get("row_format") != ROW_FORMAT or manifest.get("probability_unit") != UNIT:
        raise StoreError(f"Dudo store {manifest.get('variant')}: row format {manifest.get('row_format', 1)} is not "
                         f"the supported {ROW_FORMAT}; rebuild it (make build-default-stores)")
    return {(int(a), int(b)): parse_memory(m) for a, b, m in manifest["memory_by_group"]}


def group_iterations(default: int, by_total: tuple, a: int, b: int) -> int:
    """Iterations of group {a, b}: the schedule's entry for a + b dice in play, else ``default``."""
    return dict(by_total).get(a + b, default)


def iter_rows(sol):
    """(key, value) of every reachable (own dice, opponent dice, window) in key order: the window's
    rows of every roll, quantised (``encode_window``)."""
    for (a, b), g in sorted(sol.groups.items()):
        strat = sol.strategies[(a, b)]
        reach = structural_reach(g.ns, g.oth, g.root_w, g.order, g.act_off, g.child, g.NW)
        for own, opp in sorted({(a, b), (b, a)}):
            s = 0 if g.nsides == 1 else g.dice.index(own)
            n = int(g.ns[s])
            out = np.empty(n * (1 + 3 * (g.K + 1)), dtype=np.uint8)
            for w in range(g.NW):
                if not reach[s, w]:
                    continue
                a0 = 1 if g.last[w] < 0 else 0
                base = int(g.rbase[s] + g.act_off[w] * n)
                size = encode_window(strat, base, n, a0, int(g.act_off[w + 1] - g.act_off[w]), out)
                yield window_key(own, opp, w), out[:size].tobytes()


def round_stats(sol) -> dict[str, dict]:
    """Per-round statistics for the manifest (and ``GetStats``): numbers and labels."""
    out = {}
    for (op, oth), st in sorted(sol.stats.items()):
        out[f"{op}v{oth}"] = {k: (v if isinstance(v, str) else float(v)) for k, v in st.items()
                              if isinstance(v, (str, int, float, np.floating, np.integer))}
    return out


def round_curves(sol) -> dict[str, dict]:
    """Each round's training curve of ``training.train_to_floor`` (the group's worst round's
    exploitability at every doubling): {round: {iterations, exploitability, seconds}} (the seconds,
    under a key naming seconds, stay outside the content hash); empty without the floor rule."""
    out = {}
    for (op, oth), st in sorted(sol.stats.items()):
        if "curve_iterations" in st:
            out[f"{op}v{oth}"] = dict(iterations=[int(x) for x in st["curve_iterations"]],
                                      exploitability=[float(x) for x in st["curve_exploitability"]],
                                      seconds=[float(x) for x in st["curve_seconds"]])
    return out


def manifest_parameters(params: DudoParams) -> dict:
    """The parameters as recorded in the manifest (an empty schedule, a zero ``stop_rel`` and zero bound
    parameters are left out, so stores built before they existed keep their manifest)."""
    d = asdict(params)
    for k in ("stop_rel", "bound_memory", "bound_budget", "bound_time_budget", "improve_games", "improve_seed"):
        if not d[k]:
            del d[k]
    if not d["iterations_by_total"]:
        del d["iterations_by_total"]
    else:
        d["iterations_by_total"] = [list(x) for x in d["iterations_by_total"]]
    for k in ("memory_by_group", "iterations_by_group", "train_memory_by_group"):
        if not d[k]:
            del d[k]
        else:
            d[k] = [[list(g), x] for g, x in d[k]]
    if not d["large_search"]:
        del d["large_search"]
    else:
        d["large_search"] = [int(x) for x in d["large_search"]]
    if not d["search_by_round"]:
        del d["search_by_round"]
    else:
        d["search_by_round"] = [[list(r), int(dp), int(it), str(gd)] for r, dp, it, gd in d["search_by_round"]]
    return d


class DudoManifest(StoreManifest):
    """A Dudo store's manifest (``games.storage.check_manifest`` checks it when a backend loads)."""

    row_format: int          # ROW_FORMAT of the rows in ``windows``
    probability_unit: int    # probabilities are integer multiples of 1/probability_unit
    memory_by_group: list    # [own, opp, m or "perfect"] per dice group (``format_fields``)
    windows: int             # entries in ``windows``
    rounds: dict             # per round: memory, iterations, value, exploitability and its kind, ...
