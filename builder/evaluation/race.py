"""Empirical Bernstein race (Mnih, Szepesvari & Audibert 2008) on game scores in [0, 1].

After ``t`` games with empirical mean ``mean_t`` and (biased) standard deviation ``sd_t`` the bound
``c_t = sd_t * sqrt(2 * log(3 / d_t) / t) + 3 * R * log(3 / d_t) / t`` holds for every t at once with
probability >= 1 - delta when ``d_t = delta / (t * (t + 1))`` (the d_t sum to delta). The race stops as
soon as ``|mean_t - 1/2| > c_t``: A is declared better (mean above 1/2) or worse; at the game cap it
stops with "not separable". Whatever the two players, a wrong verdict has probability <= delta.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

BETTER, WORSE, NOT_SEPARABLE = "better", "worse", "not separable"


def bernstein_radius(t: int, var: float, delta: float, value_range: float = 1.0) -> float:
    d_t = delta / (t * (t + 1))
    lg = math.log(3.0 / d_t)
    return math.sqrt(max(var, 0.0) * 2.0 * lg / t) + 3.0 * value_range * lg / t


@dataclass
class RaceResult:
    verdict: str
    games: int
    score: float       # mean score of A
    low: float         # anytime confidence interval at the stop
    high: float
    delta: float

    def __str__(self) -> str:
        return (f"{self.verdict}: score {self.score:.4f} [{self.low:.4f}, {self.high:.4f}] "
                f"after {self.games} games (delta {self.delta})")


class BernsteinRace:
    """Feed scores one by one (``add``); ``done`` once separated or capped."""

    def __init__(self, delta: float = 0.05, cap: int = 10_000, value_range: float = 1.0,
                 threshold: float = 0.5, min_games: int = 2):
        if not 0 < delta < 1:
            raise ValueError("delta must be in (0, 1)")
        self.delta, self.cap, self.R, self.threshold, self.min_games = delta, cap, value_range, threshold, min_games
        self.t, self.sum, self.sumsq = 0, 0.0, 0.0
        self.verdict: str | None = None
        self.radius = math.inf

    @property
    def mean(self) -> float:
        return self.sum / self.t if self.t else 0.5

    def add(self, x: float) -> str | None:
        if self.verdict is not None:
            return self.verdict
        self.t += 1
        self.sum += x
        self.sumsq += x * x
        mean = self.mean
        var = self.sumsq / self.t - mean * mean
        self.radius = bernstein_radius(self.t, var, self.delta, self.R)
        if self.t >= self.min_games and abs(mean - self.threshold) > self.radius:
            self.verdict = BETTER if mean > self.threshold else WORSE
        elif self.t >= self.cap:
            self.verdict = NOT_SEPARABLE
        return self.verdict

    @property
    def done(self) -> bool:
        return self.verdict is not None

    def result(self) -> RaceResult:
        return RaceResult(self.verdict or NOT_SEPARABLE, self.t, self.mean, max(0.0, self.mean - self.radius),
                          min(1.0, self.mean + self.radius), self.delta)
