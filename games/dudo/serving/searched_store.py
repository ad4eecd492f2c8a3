"""Search from a Dudo store: the searched policy of a round (``searched.SearchedRound``) on the store's own
rows and round values, and the top-level task a server's live worker runs (``searched_move_from_store``:
plain arguments in, plain data out).  Each (store, round, seat)'s policy is built once per process and keeps
its re-solves by history prefix, so a repeated or extended history costs only its new re-solves, and the
answer never depends on what was asked before (every re-solve is a function of the history)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from games.storage import Store
from games.dudo.serving.endgame_store import store_W, stored_group
from games.dudo.rules import roll_arrays
from games.dudo.policy.searched import SearchedRound, search_specs
from games.dudo.policy.served import SERVED_SEARCHED
from games.dudo.build.params import DudoParams

_ROUNDS: dict[tuple, SearchedRound] = {}
_STORES: dict[str, Store] = {}


def searched_rounds(manifest: dict) -> dict:
    """{(opener, other): SearchSpec} of the rounds a store serves by search (manifest ``served``)."""
    specs = search_specs(DudoParams(**manifest["parameters"]).search_by_round)
    return {r: s for r, s in specs.items() if manifest["rounds"].get(f"{r[0]}v{r[1]}", {}).get("served")
            == SERVED_SEARCHED}


def searched_round(store_path: str, own: int, opp: int, opened: bool) -> SearchedRound:
    """The requester's searched policy in the round ``own`` v ``opp`` dice of the store at ``store_path``
    (built on first use: the group's stored rows, its value matrices and, on the first request, the
    round-root re-solve)."""
    key = (str(Path(store_path).resolve()), own, opp, bool(opened))
    rnd = _ROUNDS.get(key)
    if rnd is None:
        store = _STORES.get(key[0])
        if store is None:
            store = _STORES[key[0]] = Store(Path(store_path))
        manifest = store.manifest
        opener, other = (own, opp) if opened else (opp, own)
        spec = searched_rounds(manifest).get((opener, other))
        if spec is None:
            raise ValueError(f"round {opener}v{other} of {store_path} is not served by search")
        a, b = min(own, opp), max(own, opp)
        _, strat, m = stored_group(store, (a, b))
        rnd = _ROUNDS[key] = SearchedRound(a, b, m, strat, store_W(manifest), own, opp, opened, spec)
    return rnd


def searched_strategy(store_path: str, own: int, opp: int, history, opened: bool) -> np.ndarray:
    """P[slot, roll] the searched policy answers after ``history`` (slot 0 Dudo, slot j claim last + j; rolls
    in ``rules.roll_arrays`` order)."""
    return searched_round(store_path, own, opp, opened).strategy(tuple(int(c) for c in history))


def searched_move_from_store(store_path: str, own: int, opp: int, roll: tuple, history: tuple, opened: bool):
    """(actions, probs) of the searched policy at the requester's decision: actions are claim strengths,
    -1 Dudo (every legal action, probability 0 included, as the store's rows list them)."""
    from games.dudo.rules import roll_index
    P = searched_strategy(store_path, own, opp, history, opened)
    x = roll_index(tuple(sorted(roll)))
    last = history[-1] if history else -1
    K = 6 * (own + opp)
    acts = [-1 if j == 0 else last + j for j in range(1 if last < 0 else 0, K - last)]
    probs = [float(P[0 if a < 0 else a - last, x]) for a in acts]
    return acts, probs

