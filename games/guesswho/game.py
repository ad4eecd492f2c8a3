"""Guess Who as a race to one candidate.

Each player has a secret among his own ``n`` candidates. On a turn the mover splits his ``n`` remaining
candidates into ``k`` and ``n - k`` (1 <= k <= n - 1) and asks which part holds his target; he keeps
``k`` with probability ``k / n``. Whoever reaches one candidate wins (he names it on the spot). The
state, up to symmetry, is ``(n, m)``: the mover's count and the opponent's.

* :func:`solve` -- the exact optimum by dynamic programming over ``(n, m)`` in exact fractions.
  ``W[n][m]`` = probability that the mover wins under optimal play by both.
* :func:`brute_force_value` -- an independent check: plain recursive minimax/expectation over the game
  tree (no table, no symmetry ``k <-> n-k``), for small counts.
* :func:`match_value` -- exact win probability of one fixed deterministic policy against another.
* Policies: :class:`Bisection`, :class:`ExactOptimal`, :class:`Parametric` (the family containing
  bisection and "bold when behind": bid a power of two), :class:`RandomBaseline`,
  :class:`RandomParametric` (the naive method's randomised baseline).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import numpy as np

N_DEFAULT = 24


def _after(k: int, n: int, m: int, W) -> Fraction:
    """Mover's win probability after splitting n into k / n-k, given the table W (or a callable)."""
    total = Fraction(0)
    for part in (k, n - k):
        total += Fraction(part, n) * (1 if part == 1 else 1 - W(m, part))
    return total


@lru_cache(maxsize=None)
def solve(N: int) -> tuple[tuple[tuple[Fraction, ...], ...], tuple[tuple[int, ...], ...]]:
    """Exact optimal values and bids for every state with counts 1..N.

    Returns ``(W, K)``: ``W[n][m]`` the mover's optimal win probability (n, m >= 2), ``K[n][m]`` the
    optimal bid (the smallest optimal ``k <= n // 2``; the split is symmetric). Row/column 0 and 1 unused.
    Filled in order of n + m: the state after a move has the sum lowered (the mover's count drops).
    """
    W = [[Fraction(0)] * (N + 1) for _ in range(N + 1)]
    K = [[0] * (N + 1) for _ in range(N + 1)]
    get = lambda a, b: W[a][b]  # noqa: E731
    for s in range(4, 2 * N + 1):
        for n in range(max(2, s - N), min(N, s - 2) + 1):
            m = s - n
            best, bk = None, 0
            for k in range(1, n // 2 + 1):
                v = _after(k, n, m, get)
                if best is None or v > best:
                    best, bk = v, k
            W[n][m], K[n][m] = best, bk
    return tuple(map(tuple, W)), tuple(map(tuple, K))


def optimal_value(n: int, m: int) -> Fraction:
    W, _ = solve(max(n, m))
    return W[n][m]


def optimal_bid(n: int, m: int) -> int:
    _, K = solve(max(n, m))
    return K[n][m]


def brute_force_value(n: int, m: int) -> Fraction:
    """Independent game-tree minimax: the mover maximises over every k in 1..n-1 (no symmetry used);
    chance picks the part; a count of 1 wins; otherwise the opponent moves and the value flips."""
    if n == 1:
        return Fraction(1)
    best = Fraction(-1)
    for k in range(1, n):
        v = Fraction(0)
        for part, weight in ((k, Fraction(k, n)), (n - k, Fraction(n - k, n))):
            if part == 1:
                v += weight
            else:
                v += weight * (1 - brute_force_value(m, part))
        best = max(best, v)
    return best


def match_value(first, second, n: int = N_DEFAULT, m: int | None = None) -> Fraction:
    """Exact win probability of ``first`` (moving first with n candidates) against ``second`` (m),
    both deterministic policies (``bid(n, m)``)."""
    m = n if m is None else m

    @lru_cache(maxsize=None)
    def v(a: int, b: int, mover_is_first: bool) -> Fraction:
        pol = first if mover_is_first else second
        k = pol.bid(a, b)
        total = Fraction(0)
        for part in (k, a - k):
            p = Fraction(part, a)
            total += p * (1 if part == 1 else 1 - v(b, part, not mover_is_first))
        return total

    return v(n, m, True)


# ------------------------------------------------------------------------------------------ policies
def _clip(k: int, n: int) -> int:
    return min(max(int(k), 1), n - 1)


@dataclass(frozen=True)
class Bisection:
    name: str = "bisection"
    deterministic: bool = True

    def bid(self, n: int, m: int, rng=None) -> int:
        return n // 2


@dataclass(frozen=True)
class ExactOptimal:
    name: str = "optimal"
    deterministic: bool = True

    def bid(self, n: int, m: int, rng=None) -> int:
        return optimal_bid(n, m)


@dataclass(frozen=True)
class RandomBaseline:
    """Any split uniformly at random (the 'very randomised' baseline)."""
    name: str = "random"
    deterministic: bool = False

    def bid(self, n: int, m: int, rng=None) -> int:
        return int(rng.integers(1, n))


PARAM_NAMES = ("behind", "bold_shift", "fraction", "pow2_normal")
PARAM_BOUNDS = ((-4.0, 4.0), (-2.0, 2.0), (0.0, 1.0), (-1.0, 1.0))


@dataclass(frozen=True)
class Parametric:
    """The parametric family (4 real parameters).

    ``gap = log2(n) - log2(m)`` (positive: the mover is behind).

    * bold play when ``gap > behind``: bid ``2 ** floor(log2(m) + bold_shift)`` (a power of two tied to
      the opponent's count), clipped to ``[1, n // 2]``;
    * otherwise bid ``floor(fraction * n)`` clipped to ``[1, n - 1]``, and if ``pow2_normal > 0`` that
      bid is rounded down to a power of two.

    Bisection: ``behind`` large (never bold), ``fraction = 0.5``, ``pow2_normal <= 0``.
    Nica's optimum (bid the power of two just below m, or bisect): ``behind`` very negative,
    ``bold_shift`` slightly negative (e.g. -0.1).
    """
    theta: tuple[float, ...] = (10.0, 0.0, 0.5, -1.0)
    name: str = "parametric"
    deterministic: bool = True

    @staticmethod
    def bisection() -> "Parametric":
        return Parametric((10.0, 0.0, 0.5, -1.0), name="param-bisection")

    @staticmethod
    def nica() -> "Parametric":
        return Parametric((-10.0, -0.1, 0.5, -1.0), name="param-nica")

    def bid(self, n: int, m: int, rng=None) -> int:
        behind, shift, frac, pow2 = self.theta
        if math.log2(n) - math.log2(m) > behind:
            k = 2 ** math.floor(math.log2(m) + shift)
            return min(max(int(k), 1), n // 2)
        k = _clip(math.floor(frac * n), n)
        if pow2 > 0:
            k = 2 ** int(math.floor(math.log2(k)))
        return k


@dataclass(frozen=True)
class RandomParametric:
    """The naive method's randomised baseline: independent standard Gaussian parameters, drawn afresh
    for every game (the fraction through a logistic into (0, 1))."""
    scale: float = 1.0
    name: str = "random-parametric"
    deterministic: bool = False

    def for_game(self, rng) -> Parametric:
        theta = rng.normal(0.0, self.scale, size=4)
        theta[2] = 1.0 / (1.0 + math.exp(-theta[2]))  # fraction in (0, 1)
        return Parametric(tuple(float(x) for x in theta), name=self.name)

    def bid(self, n: int, m: int, rng=None) -> int:
        return self.for_game(rng).bid(n, m)


# ---------------------------------------------------------------------------------------------- game
@dataclass(frozen=True)
class GuessWhoGame:
    """One game of race-to-one, played by sampling (the arena's interface)."""
    n: int = N_DEFAULT
    m: int | None = None
    name: str = field(default="guesswho")

    def play(self, first, second, rng: np.random.Generator) -> float:
        """1.0 if ``first`` (who moves first) wins, else 0.0."""
        counts = [self.n, self.n if self.m is None else self.m]
        players = (first, second)
        mover = 0
        while True:
            a, b = counts[mover], counts[1 - mover]
            k = players[mover].bid(a, b, rng)
            if not 1 <= k <= a - 1:
                raise ValueError(f"{players[mover].name}: bid {k} outside 1..{a - 1}")
            keep = k if rng.random() < k / a else a - k
            if keep == 1:
                return 1.0 if mover == 0 else 0.0
            counts[mover] = keep
            mover = 1 - mover
