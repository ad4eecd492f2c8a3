"""Search in a large Dudo round from a store's search tables (``search.tables``): the task a server's live worker
runs (``searched_move``: plain arguments in, plain data out).

The searched policy is continual re-solving (``abstract_resolve.AbstractResolver``): at each of the requester's decisions
one depth-limited re-solve whose requester range and gadget targets come from the re-solve at its previous
decision.  Each re-solve is a function of the history, so the chain's *state* at a decision (the requester's
range and the re-solve) is too; a worker keeps none of it between calls: the caller passes the state of the
longest history prefix it holds (``start``) and receives the new states (``states``), so whichever worker
answers, and whatever the caller held, the answer is the same bits.  The round's root re-solve is the store's.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from games.storage import Store, array_from_bytes
from games.dudo.serving.endgame_store import store_W
from games.dudo.rules import roll_index
from games.dudo.search.resolve import Resolve
from games.dudo.search.tables import LargeSearchSpec, group_key, resolver, root_from_tables, seat_key
from games.dudo.store import store_memories

TABLE_NAMES = ("V", "voff", "top")
ROOT_NAMES = ("vO", "cfirst", "nch", "last", "root_strategy")


@dataclass
class ChainState:
    """The searched policy at the requester's decision after ``k`` claims: its range and its re-solve."""
    k: int
    rr: np.ndarray
    res: Resolve

    def plain(self) -> tuple:
        r = self.res
        return (self.k, self.rr, r.root_strategy, r.vO, r.cfirst, r.nch, r.last, r.L0)

    @staticmethod
    def from_plain(t) -> "ChainState":
        k, rr, root, vO, cfirst, nch, last, L0 = t
        return ChainState(int(k), np.asarray(rr), Resolve(root, vO, cfirst, nch, last, int(L0), 0.0,
                                                                     int(np.asarray(last).size), 0))

    @property
    def nbytes(self) -> int:
        r = self.res
        return int(self.rr.nbytes + r.vO.nbytes + (0 if r.root_strategy is None else r.root_strategy.nbytes)
                   + r.cfirst.nbytes * 3)


def spec_of(manifest: dict) -> LargeSearchSpec | None:
    """The store's large-round search settings (None: the store keeps no search tables)."""
    raw = manifest.get("large_search")
    return None if raw is None else LargeSearchSpec(**raw)


class OffPolicy(Exception):
    """The history has a claim of the requester that the searched policy never makes."""


_SEATS: dict[tuple, tuple] = {}


def seat_resolver(store_path: str, own: int, opp: int, opened: bool):
    """(resolver, root re-solve) of the requester's seat, built once per process on the store's tables (the
    leaves read in place from the store's map: shared by every process, no copy)."""
    key = (str(Path(store_path).resolve()), own, opp, bool(opened))
    got = _SEATS.get(key)
    if got is None:
        store = Store(Path(store_path))
        man = store.manifest
        spec = spec_of(man)
        a, b = min(own, opp), max(own, opp)
        gk = group_key(a, b)
        tables = {n: store.array_view(f"{gk}/{n}") if n == "V" else store.array(f"{gk}/{n}") for n in TABLE_NAMES}
        m = store_memories(man)[(a, b)]
        W = {r: v for r, v in store_W(man).items() if sum(r) < a + b}
        res = resolver(tables, a, b, m, W, own, opp, opened, spec)
        sk = seat_key(own, opp, opened)
        root = {}
        for n in ROOT_NAMES:
            if n == "root_strategy" and not opened:
                continue
            root[n] = store.array(f"{sk}/{n}")
        res.first_replies = {} if opened else _first_replies(store, own, opp)
        got = _SEATS[key] = (res, root_from_tables(root))
    return got


def _first_replies(store: Store, own: int, opp: int) -> dict[int, Resolve]:
    """{opening claim: the requester's first re-solve after it} as the store keeps them (``tables.first_replies``;
    none in a store built before it kept them)."""
    sk = seat_key(own, opp, False)
    return {c: root_from_tables({n: store.array(f"{sk}/first/{c}/{n}") for n in ROOT_NAMES}, L0=c)
            for c in sorted(stored_first_claims(store, own, opp))}


def chain(pol, root: Resolve, history: tuple, start: ChainState | None) -> list[ChainState]:
    """The chain's states from ``start`` (None: the round's root) to the requester's decision after ``history``:
    every state computed here, in order (the last is the decision's); the requester's first decision read from
    ``pol.first_replies`` where the store keeps it."""
    opened = pol.opened
    k = len(history)
    out: list[ChainState] = []
    if start is None:
        rr = pol.prior_req.copy()
        if opened:
            cur = ChainState(0, rr, root)
        else:
            first = getattr(pol, "first_replies", {}).get(history[0]) if history else None
            if first is None:
                first = pol.resolve(history[:1], rr, _target(root, history[:1]))
            cur = ChainState(1, rr, first)
        out.append(cur)
    else:
        cur = start
    while cur.k < k:
        j = cur.k + 2
        L = history[cur.k - 1] if cur.k >= 1 else -1
        rr = cur.rr * cur.res.root_strategy[history[cur.k] - L]
        if not rr.any():
            raise OffPolicy(f"claim {history[cur.k]} after {list(history[:cur.k])}")
        cur = ChainState(j, rr, pol.resolve(history[:j], rr, _target(cur.res, history[cur.k:j])))
        out.append(cur)
    return out


def _target(res: Resolve, claims) -> np.ndarray:
    try:
        return res.target(claims)
    except KeyError as e:
        raise OffPolicy(str(e)) from None


def longest_cached(states: OrderedDict, history: tuple, key=lambda prefix: prefix):
    """The chain state ``states`` (least recently used first) holds for the longest prefix of ``history`` (the
    whole history first, the empty one last), marked most recently used; None if it holds none.  ``key(prefix)``:
    the prefix's key in ``states``."""
    for k in range(len(history), -1, -1):
        state = states.get(key(history[:k]))
        if state is not None:
            states.move_to_end(key(history[:k]))
            return state
    return None


class SearchedPolicy:
    """``policy(history) -> P[slot, roll]`` of one requester seat on a store's tables, in this process, keeping
    the chain states of the last ``keep`` histories (a state is a function of its history: which are kept
    changes no answer); None off the policy's support.  What the figures' measurement plays against."""

    def __init__(self, store_path: str, own: int, opp: int, opened: bool, keep: int = 400):
        self.pol, self.root = seat_resolver(store_path, own, opp, opened)
        self.keep = keep
        self.states: OrderedDict = OrderedDict()
        self.resolves = 0

    def __call__(self, history) -> np.ndarray | None:
        history = tuple(int(c) for c in history)
        start = longest_cached(self.states, history)
        try:
            new = chain(self.pol, self.root, history, start)
        except OffPolicy:
            return None
        self.resolves += sum(1 for s in new if s.res is not self.root)
        for st in new:
            self.states[history[:st.k]] = st
        while len(self.states) > self.keep:
            self.states.popitem(last=False)
        return (new[-1] if new else start).res.root_strategy


def searched_strategy(store_path: str, own: int, opp: int, history, opened: bool) -> np.ndarray | None:
    """P[slot, roll] of the searched policy after ``history`` (slot 0 Dudo, slot j claim last + j), from the
    round's root; None off the policy's support (``searched_move``'s None).  The measurement's view of the
    policy ``searched_move`` serves."""
    pol, root = seat_resolver(store_path, own, opp, opened)
    try:
        return chain(pol, root, tuple(int(c) for c in history), None)[-1].res.root_strategy
    except OffPolicy:
        return None


def searched_move(store_path: str, own: int, opp: int, roll: tuple, history: tuple, opened: bool, start=None,
                  threads: int = 1):
    """``{"actions", "probs", "states"}`` of the searched policy at the requester's decision after ``history``
    (actions: claim strengths, -1 Dudo, every legal one as the store's rows list them); ``start``: a
    ``ChainState.plain()`` of a prefix of ``history`` or None; ``states``: the new states, plain.  ``None`` where
    the history holds a claim of the requester's that the policy never makes (its answer there is the store's).
    ``threads``: the re-solves' leaves on that many threads (the same bits, sooner on idle cores)."""
    pol, root = seat_resolver(store_path, own, opp, opened)
    pol.threads = max(1, int(threads))
    history = tuple(int(c) for c in history)
    first = None if start is None else ChainState.from_plain(start)
    try:
        states = chain(pol, root, history, first)
    except OffPolicy:
        return None
    P = (states[-1] if states else first).res.root_strategy
    x = roll_index(tuple(sorted(roll)))
    last = history[-1] if history else -1
    K = 6 * (own + opp)
    acts = [-1 if j == 0 else last + j for j in range(1 if last < 0 else 0, K - last)]
    probs = [float(P[0 if a < 0 else a - last, x]) for a in acts]
    return {"actions": acts, "probs": probs, "states": [s.plain() for s in states]}


def decisions_to_search(history: tuple, opened: bool, start_k: int | None, first_claims=frozenset()) -> int:
    """Re-solves a ``searched_move`` makes from a state after ``start_k`` claims (None: the root); ``first_claims``:
    the opening claims whose first reply the store keeps (``stored_first_claims``), read rather than re-solved."""
    k = len(history)
    first = 0 if opened else 1
    if start_k is None:
        stored = not opened and bool(history) and history[0] in first_claims
        return (k - first) // 2 + (0 if opened or stored else 1)
    return (k - start_k) // 2


def stored_first_claims(store: Store, own: int, opp: int) -> frozenset:
    """The opponent's opening claims after which the store keeps the requester's first re-solve (``own`` dice
    against ``opp``, the opponent opening)."""
    raw = store.get("arrays", f"{seat_key(own, opp, False)}/first_claims".encode())
    return frozenset() if raw is None else frozenset(int(c) for c in array_from_bytes(raw))
