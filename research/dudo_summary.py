"""Memory that keeps older claims coarsely (design c of docs/dudo-search-serving.md): the last ``m`` claims of the round plus a
summary of each player's claims that have left the window.

A ``Summary(m, kind)`` window is (the last m claims, the mover's summary, the opponent's summary), the two
summaries oriented to the player to move.  Kinds (``KINDS``):

* ``"sets"``: the set of faces each player claimed before the window (6 bits each).
* ``"first"``: the face of each player's first claim of the round once it has left the window (0: still
  in the window or none).  A first claim is made knowing the least, so it says most about the claimant's
  own dice.
* ``"count"``: how many claims have left the window, capped at 3 (the length of the bidding, not whose).

(The strongest earlier claim of each player is not a kind: claims only rise, so it is the claim just before
the window and the one before that, which is the plain window of m + 2.)

The windows are the (claims, summaries) states some history reaches from the round's start, ranked by
(last claim, claims, summaries) with the root first; ``summary_tables`` gives them as ``infoset.window_tables``
does (last claim, size, action offsets, children), so the solvers, the exact best response
(``exploit.best_response_value``) and the evaluation take a summary memory unchanged.
``summary_state`` computes a history's window from the history alone (an independent check of the table)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

KINDS = ("sets", "first", "count")
COUNT_CAP = 3


@dataclass(frozen=True)
class Summary:
    """The last ``base`` claims plus a ``kind`` summary of each player's earlier claims (``KINDS``)."""
    base: int
    kind: str

    def __post_init__(self):
        if not isinstance(self.base, int) or isinstance(self.base, bool) or self.base < 1:
            raise ValueError(f"a summary memory's base is a whole number of claims >= 1, not {self.base!r}")
        if self.kind not in KINDS:
            raise ValueError(f"summary kind {self.kind!r}: want one of {', '.join(KINDS)}")

    def __str__(self) -> str:
        return f"{self.base}+{self.kind}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    @classmethod
    def parse(cls, text: str) -> "Summary":
        base, sep, kind = str(text).partition("+")
        if not sep or not base.isdigit():
            raise ValueError(f"summary memory {text!r}: want CLAIMS+KIND, for example 2+sets or 2+first")
        return cls(int(base), kind)

    def summary_tables(self, K: int):
        return summary_tables(K, self)


def _add(kind: str, summ: int, face: int) -> int:
    """One player's summary after one more of its claims (face 1..6) left the window."""
    if kind == "sets":
        return summ | (1 << (face - 1))
    if kind == "first":
        return summ if summ else face
    return min(summ + 1, COUNT_CAP)


def _step(m: Summary, faces, state, c: int):
    """The child of window ``state`` = (claims, own summary, opponent summary) after the mover claims ``c``."""
    w, own, opp = state
    nxt = w + (c,)
    own, opp = opp, own         # the opponent moves next: the child's mover
    if len(nxt) > m.base:
        dropped, nxt = nxt[0], nxt[1:]
        # the window's claims alternate, the last by the child's opponent: its oldest of m + 1 claims
        # was the child's mover's when m is odd
        if m.kind == "count":
            own = opp = _add("count", own, 0)
        elif m.base % 2 == 1:
            own = _add(m.kind, own, int(faces[dropped]))
        else:
            opp = _add(m.kind, opp, int(faces[dropped]))
    return nxt, own, opp


@lru_cache(maxsize=None)
def _states(K: int, m: Summary):
    from games.dudo.abstraction.infoset import claim_faces
    faces = claim_faces(K)
    root = ((), 0, 0)
    seen = {root}
    frontier = [root]
    while frontier:
        new = []
        for st in frontier:
            last = st[0][-1] if st[0] else -1
            for c in range(last + 1, K):
                ch = _step(m, faces, st, c)
                if ch not in seen:
                    seen.add(ch)
                    new.append(ch)
        frontier = new
    states = sorted(seen, key=lambda s: (s[0][-1] if s[0] else -1, len(s[0]), s[0][::-1], s[1], s[2]))
    return states, {s: i for i, s in enumerate(states)}


@lru_cache(maxsize=None)
def summary_tables(K: int, m: Summary):
    """(last[NW], size[NW], act_off[NW + 1], child[...]) over the windows some history reaches (root 0),
    in ``infoset.window_tables``' layout: slot 0 Dudo, slot j the claim last + j."""
    from games.dudo.abstraction.infoset import claim_faces
    faces = claim_faces(K)
    states, index = _states(K, m)
    nw = len(states)
    last = np.array([s[0][-1] if s[0] else -1 for s in states], dtype=np.int64)
    size = np.array([len(s[0]) for s in states], dtype=np.int64)
    act_off = np.zeros(nw + 1, dtype=np.int64)
    np.cumsum(K - last, out=act_off[1:])
    child = np.full(int(act_off[-1]), -1, dtype=np.int64)
    for i, st in enumerate(states):
        for c in range(int(last[i]) + 1, K):
            child[act_off[i] + c - last[i]] = index[_step(m, faces, st, c)]
    return last, size, act_off, child


def summary_state(history, K: int, m: Summary):
    """The window (claims, mover's summary, opponent's summary) of a claim history (strengths, oldest
    first), from the history itself: each player's claims before the last ``m.base``, read in order."""
    from games.dudo.abstraction.infoset import claim_faces
    faces = claim_faces(K)
    h = list(history)
    cut = max(0, len(h) - m.base)
    mover = len(h) % 2                           # claim i was made by player i % 2; this one moves now
    summ = {0: 0, 1: 0}
    for i, c in enumerate(h[:cut]):
        if m.kind == "sets":
            summ[i % 2] |= 1 << (int(faces[c]) - 1)
        elif m.kind == "first":
            if summ[i % 2] == 0:
                summ[i % 2] = int(faces[c])
        else:
            summ[0] = summ[1] = min(cut, COUNT_CAP)
    return tuple(h[cut:]), summ[mover], summ[1 - mover]


def summary_window(history, K: int, m: Summary) -> int:
    """The window index a history reaches (``summary_state`` ranked as in ``summary_tables``)."""
    states, index = _states(K, m)
    return index[summary_state(history, K, m)]


def base_window_map(K: int, m: Summary) -> np.ndarray:
    """Index of each summary window's claims among the plain window of ``m.base`` (``infoset.window_index``):
    a memory-m strategy lifted to the summary memory plays the same at every history."""
    from games.dudo.abstraction.infoset import window_index
    states, _ = _states(K, m)
    return np.array([window_index(s[0], K, m.base) for s in states], dtype=np.int64)
