"""The Dudo store's on-disk format: its keys and row codec, the manifest's format fields, and the reads of a
row (``lookup_row``, ``read_row``) and of a group's stored strategy. The build side writes it
(``games.dudo.build.rows``, with the parameters in ``games.dudo.build.params``); the server reads it through this
module.

Row format 2: one LMDB entry (database ``windows``) per reachable (own dice, opponent dice, window of
remembered claims), holding every roll's action distribution quantised to integer units
(``games.quantise``: zero-probability actions dropped, the rest summing to exactly ``UNIT``); see
``encode_window``.  A lookup is one read (``lookup_row``).  The window index uses the memory of the
dice group, which the manifest records per group (``memory_by_group``).
"""
from __future__ import annotations

import struct

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.quantise import UNIT, largest_remainder
from games.storage import StoreManifest

from games.dudo.abstraction.infoset import history_window, memory_json, parse_memory
from games.dudo.rules import num_rolls, roll_index

WINDOW_KEY = struct.Struct(">BBI")  # own dice, opponent dice, window index (big-endian: key order)
ROW_FORMAT = 2  # one entry per (own, opp, window) holding every roll's quantised row (``encode_window``)


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


def format_fields(memories: dict) -> dict:
    """The manifest fields a reader needs to decode the rows: row format, probability unit and the
    memory of every group ({(a, b): m}, ``DudoParams.memories``; "perfect" = perfect recall)."""
    return dict(row_format=ROW_FORMAT, probability_unit=UNIT,
                memory_by_group=[[a, b, "perfect" if m is None else memory_json(m)] for (a, b), m in sorted(memories.items())])


def store_memories(manifest: dict) -> dict:
    """{(a, b): m (None = perfect recall)} of a store, from its manifest; StoreError if its rows are not
    in row format ``ROW_FORMAT`` (a store built before it: rebuild)."""
    from games.storage import StoreError

    if manifest.get("row_format") != ROW_FORMAT or manifest.get("probability_unit") != UNIT:
        raise StoreError(f"Dudo store {manifest.get('variant')}: row format {manifest.get('row_format', 1)} is not "
                         f"the supported {ROW_FORMAT}; rebuild it (make build-default-stores)")
    return {(int(a), int(b)): parse_memory(m) for a, b, m in manifest["memory_by_group"]}


class DudoManifest(StoreManifest):
    """A Dudo store's manifest (``games.storage.check_manifest`` checks it when a backend loads)."""

    row_format: int          # ROW_FORMAT of the rows in ``windows``
    probability_unit: int    # probabilities are integer multiples of 1/probability_unit
    memory_by_group: list    # [own, opp, m or "perfect"] per dice group (``format_fields``)
    windows: int             # entries in ``windows``
    rounds: dict             # per round: memory, iterations, value, exploitability and its kind, ...
