"""Endgame re-solving from a Dudo store: the blueprint read row by row from the store, the
continuation values from its manifest, and the top-level task a server's live worker runs
(``resolve_from_store``: plain arguments in, plain data out, the store opened once per process)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from games.storage import Store
from games.dudo.cost import endgame_resolve_cost
from games.dudo.search.endgame import EndgamePolicy, RowBlueprint, endgame_root, resolve_endgame
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import history_window
from games.dudo.rules import num_rolls, roll_arrays
from games.dudo.store import decode_window, read_row, store_group_strategy, store_memories, window_key


def store_W(manifest: dict) -> dict:
    """Continuation values: the opener's game-winning probability of every stored round."""
    return {tuple(int(x) for x in name.split("v")): float(st["value"])
            for name, st in manifest["rounds"].items()}


def stored_group(store: Store, key: tuple[int, int]):
    """(group, stored strategy, memory) of the store's dice group ``key`` (a <= b), as it was trained: its memory
    and the continuation values of the manifest."""
    man = store.manifest
    m = store_memories(man)[key]
    g = make_group(key[0], key[1], m, store_W(man), int(man["parameters"]["max_dice"]))
    return g, store_group_strategy(lambda k: store.get("windows", k), g), m


def store_blueprint(store: Store) -> RowBlueprint:
    """The store's strategy as a blueprint, read through games.dudo.store's readers (its memory per
    dice group from the manifest)."""
    memories = store_memories(store.manifest)
    return RowBlueprint(
        lambda own, opp, roll, history: read_row(store, memories, own, opp, roll, history),
        lambda own, opp: memories[(min(own, opp), max(own, opp))])


_OPEN: dict[str, tuple] = {}


STOPPED = "stopped"   # resolve_from_store: the deadline came before the re-solve's end


def resolve_from_store(store_path: str, own: int, opp: int, roll: tuple, history: tuple,
                       requester_opened: bool, policy: EndgamePolicy, deadline: float | None = None):
    """The requester's re-solved action distribution as ``(actions, probs, info)`` (plain lists and
    a dict); None where the policy keeps the store's row (not in an endgame, or the blueprint's reach
    below ``min_reach``); ``STOPPED`` where ``deadline`` (``time.monotonic``, the same clock in every
    process) came before the re-solve's end (a partial re-solve is never served)."""
    key = str(Path(store_path).resolve())
    if key not in _OPEN:
        store = Store(Path(store_path))
        _OPEN[key] = (store, store_blueprint(store), store_W(store.manifest))
    _, bp, W = _OPEN[key]
    history = tuple(int(c) for c in history)
    sol = resolve_endgame(bp, own, opp, history, requester_opened, W, policy, deadline)
    if sol is None:
        return None
    if sol.stopped:
        return STOPPED
    dist = sol.distribution(roll, history)
    return ([a for a, _ in dist], [p for _, p in dist],
            dict(root=sol.problem.k0, iterations=sol.iterations, seconds=sol.seconds))


def requester_reach(store: Store, memories: dict, own: int, opp: int, history, requester_opened: bool) -> float:
    """The requester's blueprint reach after ``history`` summed over its rolls (chance times the store's
    probabilities of its own claims; ``endgame.ranges``' first half, what ``resolve_endgame`` compares with
    the policy's ``min_reach``), one window read per claim of the requester's."""
    from games.quantise import UNIT
    K, n = 6 * (own + opp), num_rolls(own)
    m = memories[(min(own, opp), max(own, opp))]
    reach = roll_arrays(own)[0].copy()
    for k, c in enumerate(history):
        if (k % 2 == 0) != requester_opened:
            continue
        h = list(history[:k])
        last = h[-1] if h else -1
        raw = store.get("windows", window_key(own, opp, history_window(h, K, m)))
        table = np.zeros((K - last) * n)
        decode_window(np.frombuffer(raw, dtype=np.uint8).astype(np.int64), n, table, 0, UNIT)
        reach = reach * table.reshape(K - last, n)[int(c) - last]
    return float(reach.sum())


def would_resolve(store: Store, memories: dict, own: int, opp: int, history, requester_opened: bool,
                  policy: EndgamePolicy) -> bool:
    """Whether ``resolve_from_store`` re-solves this decision (an endgame, reached by the blueprint at least
    ``min_reach``) rather than keep the store's row: what a server that could not run it says (DEGRADED)."""
    K = 6 * (own + opp)
    k0 = endgame_root(list(history), policy.remaining_limit(own, opp), K)
    return k0 is not None and requester_reach(store, memories, own, opp, history[:k0], requester_opened) >= policy.min_reach


def resolve_cost(own: int, opp: int, history, policy: EndgamePolicy):
    """(claims left at the endgame's root, CPU seconds, peak bytes) of :func:`resolve_from_store` for
    this decision, estimated before anything is read; None where the policy keeps the store's row
    (not in an endgame yet)."""
    K = 6 * (own + opp)
    limit = policy.remaining_limit(own, opp)
    k0 = endgame_root(history, limit, K)
    if k0 is None:
        return None
    remaining = K - 1 - (history[k0 - 1] if k0 else -1)
    return (remaining, *endgame_resolve_cost(remaining, k0, own, opp, policy.iterations))
