"""Imperfect-recall abstraction of Dudo information sets and their integer IDs (store keys).

An abstract information set is (own dice ``o``, opponent dice ``p``, own roll as a multiset,
the last ``m`` claims of the round).  ``m=None`` is perfect recall (the whole claim history).
The claims of a round strictly increase in strength, so the remembered claims are a set
``w = {c_0 < c_1 < ... < c_{k-1}}`` of claim strengths (``k <= m``) out of ``K = 6 (o + p)``.

Encoding (all integers, 0-based)
--------------------------------
* window index (combinatorial number system, by size then colex)::

      widx(w) = sum_{j<k} C(K, j)  +  sum_{i<k} C(c_i, i + 1)

  ``NW(K, m) = sum_{j<=m} C(K, j)`` windows (``2**K`` for perfect recall).
* roll index: position of the sorted roll among ``itertools.combinations_with_replacement
  (range(1, 7), o)`` (lexicographic), ``R(o) = C(o + 5, 5)`` rolls.
* block offset: blocks are ordered by (own dice, opponent dice) lexicographically over
  1..``max_dice``; ``block_offset(o, p) = sum over earlier blocks (o', p') of R(o') NW(6(o'+p'), m')``
  where a block's memory ``m'`` is ``m``, or perfect recall (None) when ``o' + p' <=
  perfect_recall_total`` (default 0: every block uses ``m``), or, when ``m`` is a per-group plan
  (``memory_plan``), the memory the plan gives the group {o', p'}.
* ``infoset_id = block_offset(o, p) + roll_index * NW(6(o + p), m') + widx``.

The ID space is dense: every (o, p, roll, window) combination has an ID, including windows that
cannot occur (for example an odd number of remembered claims when the opponent has five dice
and we have fewer; see ``paper_infoset_count``).
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb

import numpy as np
from numba import njit
from games import numba_cache  # noqa: F401  (one compile at a time across processes)

from games.dudo.rules import MAX_DICE, num_rolls, roll_index, rolls

DEFAULT_MEMORY = 3


@dataclass(frozen=True)
class Schedule:
    """Memory by claim strength: after a claim of strength L the abstraction remembers the last
    ``mems[i]`` claims, i the number of ``cuts`` at or below L (``mems[0]`` before any claim).

    ``mems`` does not increase, so a window always holds the claims its successor remembers (a
    claim never needs one that was forgotten).  Windows are few where claims are low (C(L, k - 1)
    windows of k claims end at strength L), so a schedule remembers more where that is cheap.
    Written ``4-18-3``: 4 claims while the last claim is below strength 18, then 3."""
    mems: tuple
    cuts: tuple

    def __post_init__(self):
        if len(self.mems) != len(self.cuts) + 1 or not self.cuts:
            raise ValueError("a schedule has one memory more than cuts, and at least one cut")
        if any(x < y for x, y in zip(self.mems, self.mems[1:])) or min(self.mems) < 1:
            raise ValueError("a schedule's memories must be >= 1 and must not increase")
        if any(x >= y for x, y in zip(self.cuts, self.cuts[1:])) or self.cuts[0] < 0:
            raise ValueError("a schedule's cuts must increase")

    def at(self, last: int) -> int:
        """Claims remembered when the last claim has strength ``last`` (-1: none yet)."""
        return self.mems[bisect_right(self.cuts, last)]

    def __str__(self) -> str:
        out = [str(self.mems[0])]
        for c, mm in zip(self.cuts, self.mems[1:]):
            out += [str(c), str(mm)]
        return "-".join(out)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    @classmethod
    def parse(cls, text: str) -> "Schedule":
        parts = str(text).split("-")
        if len(parts) < 3 or len(parts) % 2 == 0 or not all(x.isdigit() for x in parts):
            raise ValueError(f"memory schedule {text!r}: want m0-cut1-m1[-cut2-m2...] in whole numbers")
        parts = [int(x) for x in parts]
        return cls(tuple(parts[0::2]), tuple(parts[1::2]))


FACE_CODES = 7      # a remembered face: 1..6, 0 = none (fewer claims than that were forgotten)


@dataclass(frozen=True)
class Faces:
    """Memory ``base`` (claims, an int or a ``Schedule``) plus the faces of the ``f`` claims just before
    the window, most recent first, once the last claim has strength ``start`` or more: a claim's face says
    which dice its claimant holds, its count is bounded by the claims after it, and 6 faces cost far fewer
    windows than the up to K claims one more remembered claim can be.  Written ``2+1f`` (the last 2 claims
    and the face of the one before), ``3-28-2+1f28`` (a face only from strength 28, where the window
    shrinks to 2 claims).  Claims plus faces never grow with the claim (a face is never of a claim forgotten
    earlier).

    Window index: the rank of (base index, faces code = sum_i face_i 7**i, face 0: none) among the pairs
    some history reaches (``_faces_tables``)."""
    base: object
    f: int
    start: int = 0

    def __post_init__(self):
        if not isinstance(self.base, (int, Schedule)) or isinstance(self.base, bool) or \
                (isinstance(self.base, int) and self.base < 1):
            raise ValueError("a face memory's base is a memory of at least 1 claim or a schedule")
        if not isinstance(self.f, int) or not 1 <= self.f <= 3:
            raise ValueError("a face memory remembers 1 to 3 faces")
        if not isinstance(self.start, int) or self.start < 0:
            raise ValueError("a face memory's start is a claim strength >= 0")
        top = max([self.start] + list(getattr(self.base, "cuts", ()))) + 1
        depth = [self.claims_at(L) + self.faces_at(L) for L in range(0, top + 1)]
        if any(x < y for x, y in zip(depth, depth[1:])):
            raise ValueError(f"memory {self}: claims plus faces grow with the claim (a face of a claim "
                             f"forgotten before)")

    def claims_at(self, last: int) -> int:
        return self.base.at(last) if isinstance(self.base, Schedule) else self.base

    def faces_at(self, last: int) -> int:
        """Faces remembered after a claim of strength ``last``."""
        return self.f if last >= self.start else 0

    @property
    def codes(self) -> int:
        return FACE_CODES ** self.f

    def __str__(self) -> str:
        return f"{self.base}+{self.f}f" + (str(self.start) if self.start else "")

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    @classmethod
    def parse(cls, text: str) -> "Faces":
        base, sep, faces = str(text).partition("+")
        f, fsep, start = faces.partition("f")
        if not sep or not fsep or not f.isdigit() or not (start == "" or start.isdigit()):
            raise ValueError(f"face memory {text!r}: want MEMORY+Nf[START], for example 2+1f or 3-28-2+1f28")
        return cls(parse_memory(base), int(f), int(start or 0))


def _faces_code(claims, faces) -> int:
    """The faces code of claims (most recent first): sum_i face_i 7**i, ``faces`` = ``claim_faces(K)``."""
    return sum(int(faces[c]) * FACE_CODES ** i for i, c in enumerate(claims))


@lru_cache(maxsize=None)
def claim_faces(K: int) -> np.ndarray:
    """The face (1..6) of every claim strength of a round with K / 6 dice in play (read only: cached, a
    served face memory looks it up on every request)."""
    from games.dudo.rules import claim_table
    faces = np.array([r for _, r in claim_table(K // 6)], dtype=np.int64)
    faces.setflags(write=False)
    return faces


def parse_memory(value):
    """A memory as written in JSON and manifests: None/"perfect", an int, or a schedule's text."""
    if value is None or value == "perfect":
        return None
    if isinstance(value, (Schedule, Faces, int)):
        return value
    text = str(value)
    if "+" in text:
        return Faces.parse(text)
    return int(text) if text.isdigit() else Schedule.parse(text)


def memory_json(m):
    """A memory as JSON (``parse_memory`` reads it back): None, an int, or a schedule's (face memory's) text."""
    return str(m) if isinstance(m, (Schedule, Faces)) else m


def memory_at(K: int, m, last: int) -> int:
    """Claims remembered after a claim of strength ``last`` (-1: none) with memory ``m`` (a face memory:
    its base's)."""
    if isinstance(m, Faces):
        return memory_at(K, m.base, last)
    if isinstance(m, Schedule):
        return min(m.at(last), K)
    return memory_size(K, m)


def memory_plus(m, k: int):
    """Memory ``m`` remembering ``k`` claims more after every claim (None stays perfect recall)."""
    if m is None:
        return None
    if isinstance(m, Faces):
        return Faces(memory_plus(m.base, k), m.f, m.start)
    if isinstance(m, Schedule):
        return Schedule(tuple(x + k for x in m.mems), m.cuts)
    return m + k


def memory_size(K: int, m) -> int:
    """Effective memory: ``m`` capped at K claims (``None`` = perfect recall = K); a schedule's
    largest; a face memory's base's."""
    if isinstance(m, Faces):
        return memory_size(K, m.base)
    if isinstance(m, Schedule):
        return min(m.mems[0], K)
    return K if m is None else min(m, K)


def is_perfect_recall(K: int, m) -> bool:
    """Whether memory ``m`` remembers the whole round (None, or a uniform memory of at least K claims)."""
    return m is None or (isinstance(m, int) and m >= K)


def memory_faces(m, last: int) -> int:
    """Faces a memory remembers before its window after a claim of strength ``last`` (0 unless a ``Faces``)."""
    return m.faces_at(last) if isinstance(m, Faces) else 0


def dominates(K: int, big, small) -> bool:
    """Whether memory ``big`` remembers at least what ``small`` does after every claim (so a strategy
    of ``small``'s windows is one of ``big``'s): as many whole claims, and as many claims at least
    by their face."""
    return all(memory_at(K, big, L) >= memory_at(K, small, L)
               and memory_at(K, big, L) + memory_faces(big, L) >= memory_at(K, small, L) + memory_faces(small, L)
               for L in range(-1, K))


def remembers_more(K: int, big, small) -> bool:
    """Whether responders with memory ``big`` remember more than an abstract strategy with memory ``small``
    (which forgets: not perfect recall): they dominate it and differ from it (``cfrbr``'s fine group)."""
    return small is not None and big != small and dominates(K, big, small)


@lru_cache(maxsize=None)     # one per group a served store holds: none evicted per request
def _schedule_windows(K: int, m: Schedule):
    """A schedule's windows in index order (by size, then colex as ``window_index``) and their index."""
    wins = []
    for k in range(memory_size(K, m) + 1):
        if k == 0:
            sized = [()]
        else:
            sized = [w + (L,) for L in range(k - 1, K) if m.at(L) >= k for w in combinations(range(L), k - 1)]
        sized.sort(key=lambda w: w[::-1])
        wins.extend(sized)
    return wins, {w: i for i, w in enumerate(wins)}


def num_windows(K: int, m) -> int:
    if hasattr(m, "summary_tables"):     # summary.Summary: the last claims plus a summary of older ones
        return len(m.summary_tables(K)[0])
    if isinstance(m, Faces):
        return len(_faces_tables(K, m)[0])
    if isinstance(m, Schedule):     # C(L, k - 1) windows of k claims end at L, where m(L) >= k
        return 1 + sum(comb(L, k - 1) for k in range(1, memory_size(K, m) + 1) for L in range(k - 1, K)
                       if m.at(L) >= k)
    mm = memory_size(K, m)
    return sum(comb(K, j) for j in range(mm + 1))


def window_index(window, K: int, m=None) -> int:
    """Index of a set of remembered claim strengths (any iterable of distinct ints < K); with a
    schedule ``m`` its rank among the schedule's windows.  A face memory's index needs the claims before
    the window too: ``history_window``."""
    if isinstance(m, Faces):
        raise ValueError(f"memory {m} remembers faces before the window: index it by the history")
    if isinstance(m, Schedule):
        w = tuple(sorted(window))
        try:
            return _schedule_windows(K, m)[1][w]
        except KeyError:
            raise ValueError(f"window {w} is not one of memory {m}'s") from None
    w = sorted(window)
    k = len(w)
    idx = sum(comb(K, j) for j in range(k))
    for i, c in enumerate(w):
        if not 0 <= c < K:
            raise ValueError("claim strength out of range")
        idx += comb(c, i + 1)
    return idx


def window_from_index(idx: int, K: int, m=None) -> tuple[int, ...]:
    """Inverse of ``window_index``: the sorted remembered claims (a face memory: ``face_window``)."""
    if isinstance(m, Faces):
        raise ValueError(f"memory {m} remembers faces before the window: see face_window")
    if isinstance(m, Schedule):
        return _schedule_windows(K, m)[0][idx]
    k = 0
    while idx >= comb(K, k):
        idx -= comb(K, k)
        k += 1
    out = []
    for i in range(k, 0, -1):
        c = i - 1
        while comb(c + 1, i) <= idx:
            c += 1
        out.append(c)
        idx -= comb(c, i)
    return tuple(reversed(out))


def history_window(history, K: int, m) -> int:
    """The window index (memory ``m``) that a claim history (strengths, oldest first) reaches."""
    if isinstance(m, Faces):
        h = list(history)
        win = last_claims(h, m.base)
        before = h[:len(h) - len(win)][::-1][:m.faces_at(h[-1] if h else -1)]
        code = _faces_code(before, claim_faces(K))
        dense = _faces_dense(K, m)[4]
        pair = window_index(win, K, m.base) * m.codes + code
        i = int(np.searchsorted(dense, pair))
        if i == dense.size or dense[i] != pair:
            raise ValueError(f"history {h} reaches no window of memory {m}")
        return i
    return window_index(last_claims(history, m), K, m)


def face_window(idx: int, K: int, m: "Faces") -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Inverse of ``history_window`` for a face memory: (remembered claims, faces before them, most
    recent first; none omitted)."""
    wb, code = divmod(int(_faces_dense(K, m)[4][idx]), m.codes)
    faces = []
    while code:
        code, f = divmod(code, FACE_CODES)
        faces.append(f)
    return window_from_index(wb, K, m.base), tuple(faces)


def last_claims(history, m) -> tuple[int, ...]:
    """The abstraction's remembered claims of a claim history (list of strengths, oldest first); a face
    memory's faces are not among them (``history_window`` has both)."""
    h = list(history)
    if isinstance(m, Faces):
        m = m.base
    if isinstance(m, Schedule):
        m = m.at(h[-1]) if h else m.mems[0]
    return tuple(h if m is None else h[max(0, len(h) - m):])


def block_memory(own: int, opp: int, m, perfect_recall_total: int = 0):
    """Memory of block (own, opp): ``m`` is one memory for every block (int, or None = perfect
    recall) or a per-group plan ``((a, b, m_ab), ...)`` over groups a <= b (``memory_plan``)."""
    if isinstance(m, tuple):
        return _plan_dict(m)[(min(own, opp), max(own, opp))]
    return None if own + opp <= perfect_recall_total else m


@lru_cache(maxsize=None)
def _plan_dict(plan: tuple) -> dict:
    return {(int(a), int(b)): mm for a, b, mm in plan}


def memory_plan(memories: dict) -> tuple:
    """A {(a, b): m} dict as the hashable per-group plan that ``block_offsets`` and ``infoset_id``
    take for ``m``."""
    return tuple(sorted((int(a), int(b), mm) for (a, b), mm in memories.items()))


@lru_cache(maxsize=None)
def block_offsets(m: int | None, max_dice: int = MAX_DICE, perfect_recall_total: int = 0) -> dict:
    """{(own, opp): (offset, size)} for the dense ID space."""
    out, off = {}, 0
    for o in range(1, max_dice + 1):
        for p in range(1, max_dice + 1):
            mb = block_memory(o, p, m, perfect_recall_total)
            size = num_rolls(o) * num_windows(6 * (o + p), mb)
            out[(o, p)] = (off, size)
            off += size
    return out


def num_infosets(m: int | None, max_dice: int = MAX_DICE, perfect_recall_total: int = 0) -> int:
    """Size of the dense ID space (every block)."""
    return sum(s for _, s in block_offsets(m, max_dice, perfect_recall_total).values())


def infoset_id(own_dice: int, opp_dice: int, roll, history, m: int | None = DEFAULT_MEMORY,
               max_dice: int = MAX_DICE, perfect_recall_total: int = 0) -> int:
    """Store key of the abstract information set of a player holding ``roll`` after ``history``.

    ``history`` is the round's full claim history as claim strengths (oldest first); only its
    last ``m`` claims enter the key.
    """
    if len(roll) != own_dice:
        raise ValueError("roll size does not match own dice")
    K = 6 * (own_dice + opp_dice)
    off, _ = block_offsets(m, max_dice, perfect_recall_total)[(own_dice, opp_dice)]
    mb = block_memory(own_dice, opp_dice, m, perfect_recall_total)
    nw = num_windows(K, mb)
    return off + roll_index(roll) * nw + history_window(history, K, mb)


def decode_infoset_id(iid: int, m: int | None = DEFAULT_MEMORY, max_dice: int = MAX_DICE,
                      perfect_recall_total: int = 0):
    """Inverse of ``infoset_id``: (own dice, opp dice, roll tuple, remembered claims)."""
    for (o, p), (off, size) in block_offsets(m, max_dice, perfect_recall_total).items():
        if off <= iid < off + size:
            K = 6 * (o + p)
            mb = block_memory(o, p, m, perfect_recall_total)
            ri, wi = divmod(iid - off, num_windows(K, mb))
            return o, p, rolls(o)[ri], window_from_index(wi, K, mb)
    raise ValueError("id out of range")


def paper_window_parity(own_dice: int, opp_dice: int, max_dice: int = MAX_DICE):
    """Parity restriction the paper applies (section 2): None, 'odd' or 'even' remembered claims.

    With ``own < opp = max_dice`` the player did not open the round, so it moves after an odd
    number of claims; with ``opp < own = max_dice`` after an even number.
    """
    if own_dice < opp_dice == max_dice:
        return "odd"
    if opp_dice < own_dice == max_dice:
        return "even"
    return None


def paper_infoset_count(own_dice: int, opp_dice: int, m: int | None,
                        max_dice: int = MAX_DICE) -> int:
    """Fig. 1's count: IDs of the block whose window size has the parity the paper allows.

    The paper halves by the parity of the number of *remembered* claims.  A window of exactly
    ``m`` claims can also come from a longer history of the other parity, so this undercounts the
    reachable sets of those blocks (``reachable_infoset_count`` counts them properly).
    """
    K = 6 * (own_dice + opp_dice)
    par = paper_window_parity(own_dice, opp_dice, max_dice)
    ks = range(memory_size(K, m) + 1)
    if par == "odd":
        ks = [k for k in ks if k % 2 == 1]
    elif par == "even":
        ks = [k for k in ks if k % 2 == 0]
    return num_rolls(own_dice) * sum(comb(K, k) for k in ks)


def reachable_infoset_count(own_dice: int, opp_dice: int, m: int | None,
                            max_dice: int = MAX_DICE) -> int:
    """Abstract information sets that some claim history actually reaches (parity done right)."""
    K = 6 * (own_dice + opp_dice)
    mm = memory_size(K, m)
    par = paper_window_parity(own_dice, opp_dice, max_dice)
    total = 0
    for k in range(mm + 1):
        full = comb(K, k)
        if par is None:
            total += full
            continue
        want = 1 if par == "odd" else 0
        if k % 2 == want:
            total += full
        elif k == mm and mm < K:
            # a longer history of the right parity: at least one earlier claim below c_0
            total += full - comb(K - 1, k - 1) if k > 0 else 0
    return num_rolls(own_dice) * total


@lru_cache(maxsize=None)
def window_tables(K: int, m: int | None):
    """Per-window arrays for the solvers.

    Returns (last[NW], size[NW], act_off[NW+1], child[sum n_act]) where ``last`` is the last
    (strongest) remembered claim (-1 for the empty window), actions of window ``w`` are slot 0 =
    Dudo (illegal for the empty window) and slot ``j >= 1`` = claim ``last + j``;
    ``n_act = K - last``; ``child[act_off[w] + j]`` is the window after claiming ``last + j``
    (-1 for the Dudo slot).
    """
    if hasattr(m, "summary_tables"):     # summary.Summary
        return m.summary_tables(K)
    if isinstance(m, Faces):
        return _faces_tables(K, m)
    if isinstance(m, Schedule):
        return _schedule_tables(K, m)
    mm = memory_size(K, m)
    nw = num_windows(K, m)
    last = np.empty(nw, dtype=np.int64)
    size = np.empty(nw, dtype=np.int64)
    act_off = np.zeros(nw + 1, dtype=np.int64)
    wins = []
    for wi in range(nw):
        w = window_from_index(wi, K) if nw < 5_000_000 else None
        wins.append(w)
        last[wi] = w[-1] if w else -1
        size[wi] = len(w)
        act_off[wi + 1] = act_off[wi] + (K - last[wi])
    child = np.full(act_off[-1], -1, dtype=np.int64)
    binom, size_off = _binom_tables(K, mm)
    for wi in range(nw):
        w = wins[wi]
        keep = list(w if len(w) < mm else w[1:])
        base = size_off[len(keep) + 1]
        part = sum(int(binom[c, i + 1]) for i, c in enumerate(keep))
        k1 = len(keep) + 1
        o = act_off[wi]
        for j in range(1, K - last[wi]):
            c = last[wi] + j
            child[o + j] = base + part + binom[c, k1]
    return last, size, act_off, child


def _schedule_tables(K: int, m: Schedule):
    """``window_tables`` of a schedule: a claim c appends to the window and keeps its last m(c) claims."""
    wins, index = _schedule_windows(K, m)
    nw = len(wins)
    last = np.array([w[-1] if w else -1 for w in wins], dtype=np.int64)
    size = np.array([len(w) for w in wins], dtype=np.int64)
    act_off = np.zeros(nw + 1, dtype=np.int64)
    act_off[1:] = np.cumsum(K - last)
    child = np.full(act_off[-1], -1, dtype=np.int64)
    keep = [m.at(c) for c in range(K)]
    for wi, w in enumerate(wins):
        o = act_off[wi] - last[wi]
        for c in range(last[wi] + 1, K):
            nxt = w + (c,)
            child[o + c] = index[nxt[max(0, len(nxt) - keep[c]):]]
    return last, size, act_off, child


@lru_cache(maxsize=None)
def _faces_dense(K: int, m: Faces):
    """(last, size, act_off, child, reached) over every (base window, faces code) pair, index
    ``base * 7**f + code``; ``reached``: the sorted pairs some history reaches (the root's closure)."""
    lb, sb, ab, cb = window_tables(K, m.base)
    F = m.codes
    faces = claim_faces(K)
    last = np.repeat(lb, F)
    size = np.repeat(sb, F)
    act_off = np.zeros(last.size + 1, dtype=np.int64)
    np.cumsum(K - last, out=act_off[1:])
    child = np.full(int(act_off[-1]), -1, dtype=np.int64)
    codes = np.arange(F, dtype=np.int64)
    keep = [memory_at(K, m.base, c) for c in range(K)]
    for wb in range(lb.size):
        w = window_from_index(wb, K, m.base)
        starts = act_off[wb * F + codes]
        for c in range(int(lb[wb]) + 1, K):
            nxt = w + (c,)
            fc = m.faces_at(c)
            dropped = nxt[:max(0, len(nxt) - keep[c])][::-1][:fc]
            head = _faces_code(dropped, faces)
            new = head + (codes * FACE_CODES ** len(dropped)) % (FACE_CODES ** fc)
            j = c - int(lb[wb])
            child[starts + j] = int(cb[ab[wb] + j]) * F + new
    seen = np.zeros(last.size, dtype=np.bool_)
    seen[0] = True
    for w in np.argsort(last, kind="stable"):      # parents (weaker last claim) before children
        if seen[w]:
            seen[child[act_off[w] + 1:act_off[w + 1]]] = True
    return last, size, act_off, child, np.flatnonzero(seen).astype(np.int64)


@lru_cache(maxsize=None)
def _faces_tables(K: int, m: Faces):
    """``window_tables`` of a face memory, over the windows some history reaches: the base's claim moves
    the base window; the claims it drops (the most recent first) put their faces in front of the
    remembered faces, which keep the first ``m.faces_at(claim)``."""
    last, size, act_off, child, reached = _faces_dense(K, m)
    rank = np.full(last.size, -1, dtype=np.int64)
    rank[reached] = np.arange(reached.size)
    nact = (act_off[1:] - act_off[:-1])[reached]
    c_off = np.zeros(reached.size + 1, dtype=np.int64)
    np.cumsum(nact, out=c_off[1:])
    rows = np.concatenate([np.arange(act_off[w], act_off[w + 1]) for w in reached]) if reached.size else \
        np.zeros(0, dtype=np.int64)
    kids = child[rows]
    c_child = np.where(kids >= 0, rank[np.maximum(kids, 0)], -1)
    return last[reached], size[reached], c_off, c_child


def _binom_tables(K, mm):
    binom = np.array([[comb(n, k) for k in range(mm + 2)] for n in range(K + 1)], dtype=np.int64)
    size_off = np.array([sum(comb(K, j) for j in range(k)) for k in range(mm + 2)], dtype=np.int64)
    return binom, size_off


@njit(cache=True)
def _widx(hist, k, mm, binom, size_off):
    lo = k - mm if k > mm else 0
    ks = k - lo
    idx = size_off[ks]
    for i in range(ks):
        idx += binom[hist[lo + i], i + 1]
    return idx


def window_index_tables(K: int, m):
    """(mem_at[K + 1], remap) for numba kernels that index windows from a history: after a claim of
    strength L a window holds the last ``mem_at[L + 1]`` claims; its index is the uniform index (memory
    ``memory_size(K, m)``) of those claims, mapped through ``remap`` for a schedule (empty: none).  Not
    for a face memory (its index needs the faces: follow the DAG's ``child`` instead)."""
    if isinstance(m, Faces):
        raise ValueError(f"memory {m} remembers faces: follow the window DAG instead of indexing claims")
    mem_at = np.array([memory_at(K, m, L) for L in range(-1, K)], dtype=np.int64)
    if not isinstance(m, Schedule):
        return mem_at, np.zeros(0, dtype=np.int64)
    wins, _ = _schedule_windows(K, m)
    remap = np.full(num_windows(K, memory_size(K, m)), -1, dtype=np.int64)
    for i, w in enumerate(wins):
        remap[window_index(w, K)] = i
    return mem_at, remap
