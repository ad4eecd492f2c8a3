"""The policy a Dudo server serves, as a function of the round's whole claim history: the store's row, or
in an endgame the requester's strategy re-solved with perfect recall (``endgame.resolve_endgame``, the
function the server's live worker runs through ``endgame_store.resolve_from_store``), without a deadline
(what an idle server with a free live slot answers); in a round the builder measured lower under search
(``serves_search``), continual re-solving on the stored rows (``games.dudo.searched``).  ``exact_check`` measures it like any policy.  Which
rounds get their endgames re-solved (``resolves_round``) is decided here, and recorded per round in the
manifest (``served_label``) by the builder."""
from __future__ import annotations

import numpy as np

from .bound import EXACT
from .endgame import REQ, EndgamePolicy, endgame_root, node_id, resolve_endgame

# what a round's stored figures describe, by whether its endgames are re-solved when served (the manifest's
# per-round label ``served``)
SERVED_BOOK = "stored rows"
SERVED_RESOLVED = "stored rows, endgames re-solved live (the figures are of the stored rows)"
# a round answered by continual re-solving on the stored rows (``games.dudo.searched``): its figures are the
# searched policy's, exact (``search_walk``); the stored rows' are kept beside them (``stored_*``)
SERVED_SEARCHED = "continual re-solving on the stored rows (the figures are of the searched policy)"
# a large round answered by depth-limited continual re-solving on the stored rows with an action abstraction
# (``games.dudo.large_search``, its tables in the store): the stored rows' figures are kept, the searched
# policy's are stated where measured (``served_*``)
SERVED_SEARCH_LARGE = "depth-limited continual re-solving on the stored rows (search5)"


def serves_search(stored_exploitability: float, searched_exploitability: float) -> bool:
    """Whether a round with an exact figure is served by search: only where the searched policy's exact
    exploitability (both seats summed) is lower than the stored rows'."""
    return searched_exploitability < stored_exploitability


def resolves_round(kind: str) -> bool:
    """Whether a round whose stated figure has this kind (``bound.br_kind``) gets its endgames re-solved:
    not where the figure is the exact best response's, so that figure is the served policy's.  Measured
    with the independent exact best response (``exact_check``, docs/dudo-exact-check.md) on the default
    profile's groups up to 3 dice in play, re-solving raised 1v1's exact exploitability (0.00102 stored,
    0.00113 served) and lowered 1v2's (0.00304, 0.00236), but the build cannot state the served figure
    yet (that walk took 17 minutes of CPU for 1v2), so no exact round is re-solved."""
    return kind != EXACT


def served_label(kind: str) -> str:
    """The manifest's ``served`` label of a round with a figure of this kind (``resolves_round``)."""
    return SERVED_RESOLVED if resolves_round(kind) else SERVED_BOOK


def served_policy(stored, blueprint, W, endgame: EndgamePolicy | None, rounds=None, searched=None):
    """``policy(own, opp, history) -> P[slot, roll]`` as served: ``stored`` is the store's rows as a
    policy (``exact_check.stored_policy``), ``blueprint`` the same rows as an endgame blueprint
    (``endgame_store.store_blueprint``, or ``endgame.SolutionBlueprint`` of the same quantised strategy),
    ``W`` the round values the re-solve's terminals use (``endgame_store.store_W``), ``endgame`` the
    policy (None: never re-solved); ``rounds``: a predicate ``(opener, other) -> bool`` of the rounds
    whose endgames are re-solved (default all).  Each endgame is re-solved once per requester seat.
    ``searched``: {(opener, other): policy} of the rounds served by search (``searched_store.searched_strategy``
    of the store, as ``lambda own, opp, hist: ...``), answered by it whatever the rest says."""
    solved = {}

    def policy(own, opp, hist):
        opened = len(hist) % 2 == 0
        rnd = (own, opp) if opened else (opp, own)
        if searched and rnd in searched:
            return searched[rnd](own, opp, hist)
        if endgame is None:
            return stored(own, opp, hist)
        opened = len(hist) % 2 == 0          # the mover made the round's first claim
        if rounds is not None and not rounds(*((own, opp) if opened else (opp, own))):
            return stored(own, opp, hist)
        K = 6 * (own + opp)
        k0 = endgame_root(list(hist), endgame.remaining_limit(own, opp), K)
        if k0 is None:
            return stored(own, opp, hist)
        key = (own, opp, hist[:k0], opened)
        if key not in solved:
            solved[key] = resolve_endgame(blueprint, own, opp, hist[:k0], opened, W, endgame)
        sol = solved[key]
        if sol is None or sol.stopped:
            return stored(own, opp, hist)
        pr = sol.problem
        i = node_id(pr.L0, hist[k0:], K)
        L = hist[-1] if hist else -1
        n = int(pr.ns[REQ])
        return np.asarray(sol.strategy[pr.off[i]:pr.off[i] + (K - L) * n]).reshape(K - L, n)

    policy.solved = solved
    return policy
