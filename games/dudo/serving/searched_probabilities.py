"""The served policy's probabilities at a reviewed player's decisions of a game played under strategy ``search``
(``move_scoring.review_rounds``' ``searched``): at a decision the served policy searches
(``games.dudo.policy.served.decide`` says ``SEARCH_LARGE``), the searched policy's own, computed by the functions
the server's searched moves run (``large_search.SearchedPolicy``: the same chain of re-solves as
``searched_move``, so the same bits); elsewhere the stored rows'.

A searched decision costs one depth-limited re-solve per decision of the reviewed seat not yet searched
(``games.dudo.cost.large_resolve_seconds``, about 0.2-2 CPU s at 5v5) that cannot be stopped once started, and a
review killed at its caller's deadline answers nothing, so a review searches only what fits well before its
``until`` (monotonic clock): a decision is searched when its re-solves, as modelled and scaled by this process's
slowdown, need at most ``1 / HEADROOM`` of the time left past ``FLOOR_SECONDS`` (kept for building a seat's
resolver, up to 0.2 s measured at 5v5, and the rest of the review). The slowdown is the largest ratio of measured to
modelled seconds among this process's last ``RECENT`` re-solves, at least the server's ``--live-estimate-scale``
(a worker at nice 19 on a loaded machine runs several times slower than the model). A decision not searched
says so in its label, with the seconds it needed and had; once the time is up none is searched.
"""
from __future__ import annotations

import time
from collections import deque

from games.dudo.cost import large_resolve_seconds
from games.dudo.policy.served import ROWS, SEARCH, SEARCH_LARGE, ServedRounds, decide, served_rounds
from games.dudo.rules import roll_index
from games.dudo.serving.large_search import SearchedPolicy, decisions_to_search, spec_of

OFF_POLICY = (f"{ROWS}: the searched policy never makes an earlier claim of yours in this round, so the server "
              f"answers this history from the stored rows")


HEADROOM = 2.0
FLOOR_SECONDS = 0.5
RECENT = 20
_RATIOS: deque = deque(maxlen=RECENT)    # measured over modelled seconds of this process's recent re-solves


def not_afforded(needed: float, left: float) -> str:
    return (f"{ROWS}: not searched, the review's time ran out (its re-solves need about {needed:.1f} s, "
            f"{max(left, 0.0):.1f} s left)")


class SearchedProbabilities:
    """``(round, history) -> (probabilities of the reviewed player's actions by slot or None, label)``: the label
    is ``SEARCH`` where they are the searched policy's, ``ROWS`` where the served policy answers from the stored
    rows (None: the rows' are used), or why a searched decision was not searched."""

    def __init__(self, store_path: str, manifest: dict, until: float, scale: float = 1.0, clock=time.monotonic):
        self.path, self.until, self.scale, self.clock = store_path, until, scale, clock
        self.served: ServedRounds = served_rounds(manifest, None)
        self.spec = spec_of(manifest)
        self.seats: dict = {}       # (own, opp, opened) -> (SearchedPolicy, the last history it searched)

    @property
    def slowdown(self) -> float:
        return max([self.scale, *_RATIOS])

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
        if needed * HEADROOM + FLOOR_SECONDS > left:
            return None, not_afforded(needed, left)
        if policy is None:
            policy = SearchedPolicy(self.path, own, opp, opened)
        t = self.clock()
        P = policy(history)
        if modelled > 0:
            _RATIOS.append((self.clock() - t) / modelled)
        self.seats[seat] = (policy, tuple(history))
        if P is None:
            return None, OFF_POLICY
        return P[:, roll_index(rnd.roll)], SEARCH
