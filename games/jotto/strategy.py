"""Served Jotto strategies: a guesser mixture over oracle members plus a hider distribution.

A mixture member c is the oracle `kind` (GBR, entropy, or a rollout of either; `member_kinds` where
members differ) run against hider weights `member_hider(c)`;
a game is played by one member throughout, chosen from the game seed, so the mixed strategy whose
figures are reported is the one played. (The store's book format is in ``games.jotto.store``.)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.jotto.oracle import JottoOracle
from games.jotto.solvers import fp_hider
from games.seeding import seeded_uniform

@dataclass
class GuesserStrategy:
    name: str
    kind: int  # oracle kind
    weights: np.ndarray  # float64[m], the mixture
    hider: np.ndarray  # float64[D], the hider strategy served with this guesser
    explicit_hiders: np.ndarray | None = None  # float64[m, D], member oracle inputs
    fp_br_sets: list[np.ndarray] | None = None  # fictitious play: member t's input is s_{h,t}
    member_kinds: np.ndarray | None = None  # int[m]: each member's oracle kind, where they differ
    book_threshold: int | None = None  # its own book threshold (the people's lookahead), else the store's

    def member_kind(self, c: int) -> int:
        return self.kind if self.member_kinds is None else int(self.member_kinds[c])

    def member_hider(self, c: int) -> np.ndarray:
        if self.explicit_hiders is not None:
            return self.explicit_hiders[c]
        cache = self.__dict__.setdefault("_fp_cache", {})
        if c not in cache:
            if len(cache) > 64:
                cache.clear()
            cache[c] = fp_hider(self.fp_br_sets, c, len(self.hider))
        return cache[c]

    @property
    def size(self) -> int:
        return len(self.weights)

    def member_for_seed(self, seed: int, among: np.ndarray | None = None) -> int:
        """The member playing the game with this seed (Alg. 14's draw, seeded); `among` restricts the
        draw to the members that could have produced the game's history."""
        if among is None:
            cum = self.__dict__.get("_cum")
            if cum is None:
                cum = self.__dict__["_cum"] = np.cumsum(self.weights)
            u = seeded_uniform(seed, 0) * cum[-1]
            return min(int(np.searchsorted(cum, u, side="right")), self.size - 1)
        idx = np.asarray(among)
        cum = np.cumsum(self.weights[idx])
        u = seeded_uniform(seed, 0) * cum[-1]
        return int(idx[min(int(np.searchsorted(cum, u, side="right")), len(idx) - 1)])

    def hider_word(self, seed: int) -> int:
        cum = self.__dict__.get("_hider_cum")
        if cum is None:
            cum = self.__dict__["_hider_cum"] = np.cumsum(self.hider)
        u = seeded_uniform(seed, 1) * cum[-1]
        return min(int(np.searchsorted(cum, u, side="right")), len(cum) - 1)

    def move(self, oracle: JottoOracle, c: int, state: np.ndarray, rollout_limit: int | None = None) -> int:
        """Live oracle move of member c at a state (a rollout member beyond rollout_limit words: its base
        oracle's move, see JottoOracle.move)."""
        return oracle.move(state, self.member_hider(c), self.member_kind(c), rollout_limit)
