"""Endgame re-solving from a Dudo store: the blueprint read row by row from the store, the
continuation values from its manifest, and the top-level task a server's live worker runs
(``resolve_from_store``: plain arguments in, plain data out, the store opened once per process)."""
from __future__ import annotations

from pathlib import Path

from ..storage import Store
from .endgame import EndgamePolicy, RowBlueprint, endgame_root, estimate, resolve_move
from .rules import num_rolls
from .store import read_row, store_memories


def store_W(manifest: dict) -> dict:
    """Continuation values: the opener's game-winning probability of every stored round."""
    return {tuple(int(x) for x in name.split("v")): float(st["value"])
            for name, st in manifest["rounds"].items()}


def store_blueprint(store: Store) -> RowBlueprint:
    """The store's strategy as a blueprint, read through games.dudo.store's readers (its memory per
    dice group from the manifest)."""
    memories = store_memories(store.manifest)
    return RowBlueprint(
        lambda own, opp, roll, history: read_row(store, memories, own, opp, roll, history),
        lambda own, opp: memories[(min(own, opp), max(own, opp))])


_OPEN: dict[str, tuple] = {}


def resolve_from_store(store_path: str, own: int, opp: int, roll: tuple, history: tuple,
                       requester_opened: bool, policy: EndgamePolicy, deadline: float | None = None):
    """The requester's re-solved action distribution as ``(actions, probs, info)`` (plain lists and
    a dict), or None where the policy keeps the store's row or ``deadline`` (``time.monotonic``,
    the same clock in every process) came before the re-solve's end."""
    key = str(Path(store_path).resolve())
    if key not in _OPEN:
        store = Store(Path(store_path))
        _OPEN[key] = (store, store_blueprint(store), store_W(store.manifest))
    _, bp, W = _OPEN[key]
    mv = resolve_move(bp, own, opp, roll, history, requester_opened, W, policy, deadline)
    if mv is None:
        return None
    return (mv.actions.tolist(), mv.probs.tolist(),
            dict(root=mv.root, iterations=mv.iterations, seconds=mv.seconds))


# a store row read and decoded into a blueprint table: 5-20 us measured (LMDB get + decode_row), taken high
SECONDS_PER_ROW = 3e-5
PROCESS_BYTES = 200 << 20  # a worker with numpy, numba and the kernels loaded


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
    size = estimate(remaining, own, opp)
    # the requester's rows at its nodes of the endgame (half of them) and along the history before it
    rows = (size.nodes // 2 + k0) * num_rolls(own) + k0 * num_rolls(opp)
    return remaining, size.seconds(policy.iterations) + rows * SECONDS_PER_ROW, PROCESS_BYTES + size.bytes
