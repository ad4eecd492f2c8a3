"""The policy a Dudo server serves, as a function of the round's whole claim history: the store's row, or
in an endgame the requester's strategy re-solved with perfect recall (``endgame.resolve_endgame``, the
function the server's live worker runs through ``endgame_store.resolve_from_store``), without a deadline
(what an idle server with a free live slot answers); in a round the builder measured lower under search
(``serves_search``), continual re-solving on the stored rows (``games.dudo.policy.searched``).  ``exact_check`` measures it like any policy.  Which
rounds get their endgames re-solved (``resolves_round``) is decided here, and recorded per round in the
manifest (``served_label``) by the builder."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from games.dudo.measure.bound import EXACT
from games.dudo.search.endgame import REQ, EndgamePolicy, endgame_root, node_id, resolve_endgame

# what a round's stored figures describe, by whether its endgames are re-solved when served (the manifest's
# per-round label ``served``)
SERVED_BOOK = "stored rows"
SERVED_RESOLVED = "stored rows, endgames re-solved live (the figures are of the stored rows)"
# a round answered by continual re-solving on the stored rows (``games.dudo.policy.searched``): its figures are the
# searched policy's, exact (``search_walk``); the stored rows' are kept beside them (``stored_*``)
SERVED_SEARCHED = "continual re-solving on the stored rows (the figures are of the searched policy)"
# a large round answered by depth-limited continual re-solving on the stored rows with an action abstraction
# (``games.dudo.serving.large_search``, its tables in the store): the stored rows' figures are kept, the searched
# policy's are stated where measured (``served_*``)
# (search5: the action-abstracted re-solve, games.dudo.search.abstract_resolve; the label is stored data)
SERVED_SEARCH_LARGE = "depth-limited continual re-solving on the stored rows (search5)"


def searched_exact(st: dict) -> bool:
    """A round served by search on the store's tables whose stated figures (``br_opener``, ``br_other``,
    ``exploitability``, exact) are its searched policy's, the stored rows' kept as ``stored_*``: an exact round
    of ``LargeSearchSpec.exact_rounds`` that the walk (``builder.measure_search``) found lower under search."""
    return st.get("served") == SERVED_SEARCH_LARGE and "stored_exploitability" in st


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


# what answers one decision of the served policy (``decide``)
BOOK, ENDGAME, SEARCH_EXACT, SEARCH_LARGE = "book", "endgame", "searched", "search"
SEARCH, ROWS = "search", "fsicfr"   # the strategies a Dudo store serves: search on its large rounds, or its rows


@dataclass(frozen=True)
class ServedRounds:
    """What a store's strategies do round by round: ``large`` the rounds searched on its tables (strategy
    ``search``), ``exact_searched`` those served by continual re-solving (any strategy), ``resolves(opener,
    other)`` whether a round's endgames are re-solved, ``endgame`` how (None: never)."""
    large: frozenset = frozenset()
    exact_searched: frozenset = frozenset()
    resolves: Callable[[int, int], bool] = lambda opener, other: True
    endgame: EndgamePolicy | None = None


def served_rounds(manifest: dict, endgame: EndgamePolicy | None) -> ServedRounds:
    """A store's ``ServedRounds`` from its manifest's per-round ``served`` labels (a store built before the labels:
    endgames re-solved where the stated figure is not exact, ``resolves_round``)."""
    from games.dudo.measure.bound import kind_of
    labels = {tuple(int(x) for x in name.split("v")): st.get("served", served_label(kind_of(st)))
              for name, st in manifest["rounds"].items()}
    large = frozenset(r for r, lab in labels.items() if lab == SERVED_SEARCH_LARGE) \
        if manifest.get("large_search") else frozenset()
    exact = frozenset(r for r, lab in labels.items() if lab == SERVED_SEARCHED)
    resolved = {r: lab == SERVED_RESOLVED for r, lab in labels.items()}
    return ServedRounds(large, exact, lambda opener, other: resolved.get((opener, other), True), endgame)


def decide(served: ServedRounds, strategy: str, own: int, opp: int, history, opened: bool) -> str:
    """The served policy's source at the requester's decision (``own`` dice against ``opp``; ``opened``: it
    opened the round) after the round's claims ``history``: ``SEARCH_LARGE``, ``SEARCH_EXACT``, ``ENDGAME``
    (a re-solve of the rest of the round) or ``BOOK`` (the store's row).  The server's backend runs what this
    names in its live pool; the measurement (``served_policy``) runs the same functions in-process."""
    rnd = (own, opp) if opened else (opp, own)
    if strategy == SEARCH and rnd in served.large:
        return SEARCH_LARGE
    if rnd in served.exact_searched:
        return SEARCH_EXACT
    if served.endgame is None or not served.resolves(*rnd):
        return BOOK
    if endgame_root(list(history), served.endgame.remaining_limit(own, opp), 6 * (own + opp)) is None:
        return BOOK
    return ENDGAME


def served_policy(stored, blueprint, W, endgame: EndgamePolicy | None, rounds=None, searched=None, large=None,
                  strategy: str = SEARCH):
    """``policy(own, opp, history) -> P[slot, roll]`` as served: ``stored`` is the store's rows as a
    policy (``exact_check.stored_policy``), ``blueprint`` the same rows as an endgame blueprint
    (``endgame_store.store_blueprint``, or ``endgame.SolutionBlueprint`` of the same quantised strategy),
    ``W`` the round values the re-solve's terminals use (``endgame_store.store_W``), ``endgame`` the
    policy (None: never re-solved); ``rounds``: a predicate ``(opener, other) -> bool`` of the rounds
    whose endgames are re-solved (default all).  Each endgame is re-solved once per requester seat.
    ``searched``: {(opener, other): policy} of the rounds served by search (``searched_store.searched_strategy``
    of the store, as ``lambda own, opp, hist: ...``), answered by it whatever the rest says; ``large``: the same
    for the large rounds searched on the store's tables (``large_search.searched_strategy``), answered by them
    under ``strategy`` ``SEARCH``.  Each decision's source is ``decide``'s, as the server's."""
    solved = {}
    served = ServedRounds(large=frozenset(large or ()), exact_searched=frozenset(searched or ()),
                          resolves=rounds or (lambda opener, other: True), endgame=endgame)

    def policy(own, opp, hist):
        opened = len(hist) % 2 == 0          # the mover made the round's first claim
        kind = decide(served, strategy, own, opp, hist, opened)
        if kind == SEARCH_LARGE:      # None off the searched policy's support: the store's row, as served
            P = large[(own, opp) if opened else (opp, own)](own, opp, hist)
            return stored(own, opp, hist) if P is None else P
        if kind == SEARCH_EXACT:
            return searched[(own, opp) if opened else (opp, own)](own, opp, hist)
        if kind == BOOK:
            return stored(own, opp, hist)
        K = 6 * (own + opp)
        k0 = endgame_root(list(hist), endgame.remaining_limit(own, opp), K)
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
