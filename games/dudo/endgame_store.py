"""Endgame re-solving from a Dudo store: the blueprint read row by row from the store, the
continuation values from its manifest, and the top-level task a server's live worker runs
(``resolve_from_store``: plain arguments in, plain data out, the store opened once per process)."""
from __future__ import annotations

from pathlib import Path

from ..storage import Store, StoreError
from .endgame import EndgamePolicy, RowBlueprint, resolve_move
from .infoset import block_memory, infoset_id
from .store import DudoParams, decode_row, infoset_key


def read_row(store: Store, params: DudoParams, own: int, opp: int, roll, history):
    """(actions, probs) of the store's information set for this player and claim history."""
    iid = infoset_id(own, opp, roll, history, params.memory, params.max_dice,
                     params.perfect_recall_total)
    raw = store.get("infosets", infoset_key(iid))
    if raw is None:
        raise StoreError(f"store {store.path}: no information set {iid}")
    return decode_row(raw)


def store_W(manifest: dict) -> dict:
    """Continuation values: the opener's game-winning probability of every stored round."""
    return {tuple(int(x) for x in name.split("v")): float(st["value"])
            for name, st in manifest["rounds"].items()}


def store_blueprint(store: Store) -> RowBlueprint:
    params = DudoParams(**store.manifest["parameters"])
    return RowBlueprint(
        lambda own, opp, roll, history: read_row(store, params, own, opp, roll, history),
        lambda own, opp: block_memory(own, opp, params.memory, params.perfect_recall_total))


_OPEN: dict[str, tuple] = {}


def resolve_from_store(store_path: str, own: int, opp: int, roll: tuple, history: tuple,
                       requester_opened: bool, policy: EndgamePolicy):
    """The requester's re-solved action distribution as ``(actions, probs, info)`` (plain lists and
    a dict), or None where the policy keeps the store's row."""
    key = str(Path(store_path).resolve())
    if key not in _OPEN:
        store = Store(Path(store_path))
        _OPEN[key] = (store, store_blueprint(store), store_W(store.manifest))
    _, bp, W = _OPEN[key]
    mv = resolve_move(bp, own, opp, roll, history, requester_opened, W, policy)
    if mv is None:
        return None
    return (mv.actions.tolist(), mv.probs.tolist(),
            dict(root=mv.root, iterations=mv.iterations, seconds=mv.seconds))
