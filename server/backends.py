"""Which backend serves a store: one class per game, chosen by the store manifest's `game`.

A backend has `game`, `variant`, `version`, `store`, `manifest`, and the methods `warm()`, `probe()`
(one real request, at load), `sample(request, deadline) -> MoveResult` (raises BadRequest with the
fault), `variant_info(pb.VariantInfo)` and `stats(pb.VariantStats)`.
"""
from __future__ import annotations

from games.storage import Store, StoreError
from server.dudo_backend import DudoBackend
from server.jotto_backend import JottoBackend

GAMES: dict[str, type] = {"jotto": JottoBackend, "dudo": DudoBackend}


def register(game: str, cls: type) -> None:
    GAMES[game] = cls


def backend_for(store: Store):
    game = store.manifest.get("game")
    cls = GAMES.get(game)
    if cls is None:
        raise StoreError(f"store {store.path}: game {game!r} is not served (known: {', '.join(sorted(GAMES))})")
    return cls(store)
