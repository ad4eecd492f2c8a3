"""Answers Guess Who requests (state: both candidate counts; move: the bid k) from a guesswho store."""
from __future__ import annotations

from fractions import Fraction

from games.guesswho import game as gw
from games.guesswho.store import BID_OPTIMAL, WIN_OPTIMAL, GuessWhoManifest
from games.storage import Store, StoreError, check_manifest
from server.backends import BadRequest, MoveResult, quote
from server.backends import figures

DESCRIPTIONS = {
    "optimal": "exact optimum by DP over (own, opponent) counts in fractions (Nica): bisect, or when behind bid "
               "the power of two below the opponent's count",
    "bisection": "split the candidates in halves (k = n // 2)",
    "tuned": "parametric policy (bold when behind) tuned by a Cauwet & Teytaud optimiser",
}


class GuessWhoBackend:
    game = "guesswho"

    def __init__(self, store: Store):
        m = check_manifest(store, GuessWhoManifest)
        self.store, self.manifest = store, m
        self.variant, self.version = m["variant"], store.version
        self.n = int(m["n"])
        self.bid = store.array(BID_OPTIMAL)
        self.win = store.array(WIN_OPTIMAL)
        if self.bid.shape != (self.n + 1, self.n + 1):
            raise StoreError(f"store {store.path}: bid table {self.bid.shape} does not match N={self.n}")
        self.policies = {"optimal": None, "bisection": gw.Bisection(),
                         "tuned": gw.Parametric(tuple(float(x) for x in m["tuned_theta"]), name="tuned")}
        self.served = "optimal"

    def warm(self) -> None:
        pass

    def probe(self) -> None:
        self._move("optimal", self.n, self.n)

    def _move(self, strategy: str, own: int, opp: int) -> int:
        if strategy == "optimal":
            return int(self.bid[own, opp])
        return int(self.policies[strategy].bid(own, opp))

    def sample(self, request, deadline: float | None, live=None) -> MoveResult:
        if request.WhichOneof("state") != "guesswho":
            raise BadRequest(f"{self.variant} is a Guess Who variant: set `guesswho` in the request")
        strategy = request.strategy or self.served
        if strategy not in self.policies:
            raise BadRequest(f"unknown strategy {quote(strategy)} for {self.variant} "
                             f"(one of {', '.join(sorted(self.policies))})")
        st = request.guesswho
        own, opp = int(st.own_count), int(st.opponent_count)
        for name, c in (("own_count", own), ("opponent_count", opp)):
            if c == 1:
                raise BadRequest(f"guesswho.{name} is 1: that player has found the character; the game is over")
            if not 2 <= c <= self.n:
                raise BadRequest(f"guesswho.{name} is {c}; this variant has 2..{self.n} candidates")
        k = self._move(strategy, own, opp)
        dist = [(str(k), 1.0)] if request.want_distribution else []
        return MoveResult(str(k), 1.0, dist, "book" if strategy == "optimal" else "live", strategy, 0, own, True)

    def variant_info(self, v) -> None:
        v.words = self.n
        for name in ("optimal", "bisection", "tuned"):
            v.strategies.add(name=name, description=DESCRIPTIONS[name], members=1, served_default=name == self.served)

    def stats(self, v) -> None:
        m = self.manifest
        v.served_strategy = self.served
        v.words = self.n
        for name, figs in m["strategies"].items():
            s = v.strategies.add(strategy=name, description=DESCRIPTIONS.get(name, ""))
            for k, val in figs.items():  # seat-averaged exact win probabilities
                s.figures[k] = float(Fraction(val))
                s.labels[k] = val
            if name == "optimal":
                for k, val in m["figures"].items():  # first mover's exact win probability at N vs N
                    s.figures[k] = float(Fraction(val))
                    s.labels[k] = val
            if name == "tuned":
                s.labels["theta"] = ",".join(f"{x:.4g}" for x in m["tuned_theta"])
                s.labels["optimiser"] = m["parameters"]["optimiser"]
                s.figures["optimiser_games"] = float(m["tuned_games"])
            # against the optimal policy, seats averaged: exact win probabilities by dynamic programming
            figures.label(s, "guesswho", "vs_optimal", "exact (dynamic programming)")
