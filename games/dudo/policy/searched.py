"""A round served by continual re-solving (``games.dudo.search.continual``) on the store's rows, and its exact figure.

Where measurement shows that search lowers a round's exact exploitability, the round's policy is the
searched one: at each of the requester's decisions a depth-limited re-solve from the whole claim history,
the leaves valued by the store's own (quantised) rows of the round's group (``continuation_values``), the
chain of re-solves along the history as ``ContinualResolver.strategy`` computes it.  ``SearchedRound``
memoises the re-solves by history prefix (each depends only on the history, so a cached answer is the same
bits as a recomputed one; the round-root re-solve, the largest, is made once); ``searched_figures`` states
the round's exact figure by the numba walk (``search_walk``), one seat at a time, as ``GetStats`` sums them.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from games.dudo.search.continual import ContinualResolver, continuation_values


@dataclass(frozen=True)
class SearchSpec:
    """How a searched round re-solves: depth (claims, even), CFR+ iterations per re-solve, gadget."""
    depth: int = 4
    iterations: int = 200
    gadget: str = "maxmargin"

    def __post_init__(self):
        if self.depth < 2 or self.depth % 2:
            raise ValueError(f"search depth {self.depth}: an even number of claims, at least 2")
        if self.iterations < 1:
            raise ValueError(f"search iterations {self.iterations}: at least 1")
        if self.gadget not in ("resolve", "maxmargin"):
            raise ValueError(f"search gadget {self.gadget!r}: 'resolve' or 'maxmargin'")

    def label(self) -> str:
        return f"depth {self.depth}, {self.iterations} CFR+ iterations a re-solve, {self.gadget} gadget"


def search_specs(search_by_round) -> dict:
    """{(opener, other): SearchSpec} from ``DudoParams.search_by_round`` (((opener, other), depth,
    iterations, gadget) entries)."""
    out = {}
    for entry in search_by_round:
        (op, oth), depth, its, gadget = entry
        out[(int(op), int(oth))] = SearchSpec(int(depth), int(its), str(gadget))
    return out


class SearchedRound:
    """The requester's searched policy in one round (``own`` dice against ``opp``; ``opened``: it opens),
    on the blueprint ``strat`` of group {a, b} with memory ``m`` (the solvers' layout) and the round values
    ``W`` of the rounds below.  ``strategy(history)`` is ``ContinualResolver.strategy(history)``, with the
    re-solves of history prefixes kept (at most ``cache`` of them, least recently used dropped)."""

    def __init__(self, a, b, m, strat, W, own, opp, opened, spec: SearchSpec, cache: int = 100_000):
        self.cont = continuation_values(a, b, m, strat, W, own, opened)
        self.policy = ContinualResolver(own, opp, opened, W, self.cont, depth=spec.depth,
                                        iterations=spec.iterations, gadget=spec.gadget)
        self.cache = cache
        self._memo: OrderedDict = OrderedDict()
        self._root_opp = None

    def _resolved(self, hist: tuple):
        """(re-solve, requester's range) at the requester's decision after ``hist``."""
        got = self._memo.get(hist)
        if got is not None:
            self._memo.move_to_end(hist)
            return got
        pol = self.policy
        k = len(hist)
        if k == 0:
            rr = pol.prior_req.copy()
            out = (pol.resolve((), rr), rr)
        elif k == 1:
            if self._root_opp is None:      # the round's root when the opponent opens: targets only
                self._root_opp = pol.resolve((), pol.prior_req.copy())
            rr = pol.prior_req.copy()
            out = (pol.resolve(hist, rr, self._root_opp.target(hist)), rr)
        else:
            prev, rr_prev = self._resolved(hist[:-2])
            L = hist[-3] if k >= 3 else -1
            rr = rr_prev * prev.root_strategy[hist[-2] - L]
            out = (pol.resolve(hist, rr, prev.target(hist[-2:])), rr)
        self._memo[hist] = out
        if len(self._memo) > self.cache:
            self._memo.popitem(last=False)
        return out

    def strategy(self, history) -> np.ndarray:
        """P[slot, roll] at the requester's decision after ``history`` (slot 0 Dudo, slot j claim last + j)."""
        hist = tuple(int(c) for c in history)
        if self.policy.mover(len(hist)) != 0:
            raise ValueError(f"after {list(hist)} it is the opponent's turn, not the searched player's")
        return self._resolved(hist)[0].root_strategy

    def best_response(self, V_resp: np.ndarray) -> float:
        """The exact perfect-recall best responder's value against this policy (``search_walk``)."""
        from games.dudo.measure.search_walk import search_best_response
        return search_best_response(self.policy, V_resp)


def searched_figures(g, strat, opener: int, W: dict, br_open: dict, br_other: dict, spec: SearchSpec) -> dict:
    """The round ``opener`` v other dice of group ``g`` served by search on ``strat``: each seat's exact
    perfect-recall best response (``br_opener``: the responder opens; later rounds worth ``br_open`` /
    ``br_other`` to the responder, as ``exploit.best_response_value`` takes them) and their sum - 1."""
    from games.dudo.measure.exploit import seat_payoff_tables
    a, b = g.dice[0], g.dice[-1]
    other = a + b - opener
    out = {}
    for resp_opens in (True, False):
        own, opp = (other, opener) if resp_opens else (opener, other)
        rnd = SearchedRound(a, b, g.m, strat, W, own, opp, not resp_opens, spec, cache=1)
        V_resp = seat_payoff_tables(g, own, br_open, br_other)
        out["br_opener" if resp_opens else "br_other"] = rnd.best_response(V_resp)
    out["exploitability"] = out["br_opener"] + out["br_other"] - 1.0
    return out


def state_searched_rounds(sol, search_by_round, exact_br_total: int, log=None) -> dict:
    """{round name: manifest updates} of the rounds ``search_by_round`` names (``DudoParams``), from a solved
    game ``sol`` (``solve_game.DudoSolution``, its stored quantised strategies and per-round stats): each round's
    searched exact figures, and, where ``served.serves_search`` takes them, the round served by search (its
    ``br_opener`` / ``br_other`` / ``exploitability`` those of the searched policy, the stored rows' kept as
    ``stored_*``); else the stored rows stay served and the searched figure is recorded beside them
    (``search_exploitability``).  Later rounds of the stored rows' figures are what the responder gets."""
    import time

    from games.dudo.policy.served import SERVED_BOOK, SERVED_SEARCHED
    out = {}
    for (op, oth), spec in sorted(search_specs(search_by_round).items()):
        D = op + oth
        if D > exact_br_total:
            raise ValueError(f"search_by_round: {op}v{oth} has {D} dice in play; search is served only where "
                             f"its exact figure can be stated (at most exact_br_total = {exact_br_total})")
        key = (min(op, oth), max(op, oth))
        if key not in sol.groups:
            raise ValueError(f"search_by_round: no group {key[0]}v{key[1]} in the solved game")
        g = sol.groups[key]
        if g.m is None:
            raise ValueError(f"search_by_round: {op}v{oth} has perfect recall; nothing to search")
        W = {r: v for r, v in sol.W.items() if sum(r) < D}
        bo, bn = {}, {}
        for (x, y), st in sol.stats.items():
            if x + y < D and "br_opener" in st:
                bo[(x, y)], bn[(x, y)] = st["br_opener"], st["br_other"]
        t0 = time.process_time()
        figs = searched_figures(g, np.asarray(sol.strategies[key], dtype=np.float64), op, W, bo, bn, spec)
        st = sol.stats[(op, oth)]
        upd = {"served": SERVED_BOOK, **searched_updates(st, figs, spec.label(), SERVED_SEARCHED),
               "search_seconds": time.process_time() - t0}
        if log:
            log(f"round {op}v{oth} searched ({spec.label()}): {figs['exploitability']:.6g} against the stored "
                f"rows' {st['exploitability']:.6g}: served {upd['served']}")
        out[f"{op}v{oth}"] = upd
    return out


def searched_updates(st: dict, figs: dict, label: str, served: str) -> dict:
    """Manifest updates of an exact round (``st``: its stated figures, the stored rows') from its searched policy's
    exact ``figs`` (``br_opener``, ``br_other``, ``exploitability``; ``label`` the search's settings): the round
    served by search (``served`` its label) with these figures where ``served.serves_search`` takes them, the rows'
    kept as ``stored_*``; else the searched figure recorded beside the rows' (``search_exploitability``)."""
    from games.dudo.policy.served import serves_search
    upd = dict(search=label, search_exploitability=figs["exploitability"])
    if serves_search(st["exploitability"], figs["exploitability"]):
        upd.update(served=served, stored_br_opener=st["br_opener"], stored_br_other=st["br_other"],
                   stored_exploitability=st["exploitability"], br_opener=figs["br_opener"],
                   br_other=figs["br_other"], exploitability=figs["exploitability"])
    return upd
