"""The served policy's probabilities at a reviewed player's decisions of a game played under strategy ``search``
(``move_scoring.review_rounds``' ``searched``): at a decision the served policy searches
(``games.dudo.policy.served.decide`` says ``SEARCH_LARGE``), the searched policy's own, computed by the functions
the server's searched moves run (``large_search.SearchedPolicy``: the same chain of re-solves as
``searched_move``, so the same bits); elsewhere the stored rows'.

A searched decision costs one depth-limited re-solve per decision of the reviewed seat not yet searched
(``games.dudo.cost.large_resolve_seconds``, about 0.2-2 CPU s at 5v5), so a review searches only what fits before its
``until`` (monotonic clock): a decision whose re-solves, as modelled and scaled by the slowest ratio of
measured to modelled seconds seen so far, would end past it, and every decision once it has passed, is not
searched, and its label says so with the seconds it needed and had.
"""
from __future__ import annotations

import time

from games.dudo.cost import large_resolve_seconds
from games.dudo.policy.served import ROWS, SEARCH, SEARCH_LARGE, ServedRounds, decide, served_rounds
from games.dudo.rules import roll_index
from games.dudo.serving.large_search import SearchedPolicy, decisions_to_search, spec_of

OFF_POLICY = (f"{ROWS}: the searched policy never makes an earlier claim of yours in this round, so the server "
              f"answers this history from the stored rows")


def not_afforded(needed: float, left: float) -> str:
    return (f"{ROWS}: not searched, the review's time ran out (its re-solves need about {needed:.1f} s, "
            f"{max(left, 0.0):.1f} s left)")


class SearchedProbabilities:
    """``(round, history) -> (probabilities of the reviewed player's actions by slot or None, label)``: the label
    is ``SEARCH`` where they are the searched policy's, ``ROWS`` where the served policy answers from the stored
    rows (None: the rows' are used), or why a searched decision was not searched."""

    def __init__(self, store_path: str, manifest: dict, until: float, clock=time.monotonic):
        self.path, self.until, self.clock = store_path, until, clock
        self.served: ServedRounds = served_rounds(manifest, None)
        self.spec = spec_of(manifest)
        self.seats: dict = {}       # (own, opp, opened) -> (SearchedPolicy, the last history it searched)
        self.slowdown = 1.0         # measured over modelled seconds of a re-solve, the largest seen

    def __call__(self, rnd, history: tuple):
        own, opp, opened = rnd.own, rnd.opp, rnd.opened
        if decide(self.served, SEARCH, own, opp, history, opened) != SEARCH_LARGE:
            return None, ROWS
        seat = (own, opp, opened)
        policy, last = self.seats.get(seat, (None, None))
        held = len(last) if last is not None and tuple(history[:len(last)]) == last else None
        steps = decisions_to_search(tuple(history), opened, held)
        modelled = steps * large_resolve_seconds(own, opp, history, self.spec.A, self.spec.iterations)
        needed, left = modelled * self.slowdown, self.until - self.clock()
        if left <= 0 or needed > left:
            return None, not_afforded(needed, left)
        if policy is None:
            policy = SearchedPolicy(self.path, own, opp, opened)
        t = self.clock()
        P = policy(history)
        if modelled > 0:
            self.slowdown = max(self.slowdown, (self.clock() - t) / modelled)
        self.seats[seat] = (policy, tuple(history))
        if P is None:
            return None, OFF_POLICY
        return P[:, roll_index(rnd.roll)], SEARCH
