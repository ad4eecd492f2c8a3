"""Seeded draws shared by every game: a move, a member or a game is reproducible from (seed, purpose)."""
from __future__ import annotations

import bisect

import numpy as np

_M64 = (1 << 64) - 1


def seeded_rng(seed: int, purpose: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64([seed & (2**64 - 1), purpose]))


def seeded_uniform(seed: int, purpose: int) -> float:
    """A uniform number in [0, 1) from (seed, purpose): SplitMix64 of both, cheap enough for every move."""
    z = ((seed & _M64) * 0x9E3779B97F4A7C15 + (purpose + 1) * 0xBF58476D1CE4E5B9) & _M64
    for mul, shift in ((0xBF58476D1CE4E5B9, 30), (0x94D049BB133111EB, 27)):
        z = ((z ^ (z >> shift)) * mul) & _M64
    z ^= z >> 31
    return (z >> 11) * (1.0 / (1 << 53))


def seeded_pick(probs, seed: int, purpose: int) -> int:
    """The index of a probability vector (negatives as zero, renormalised) drawn by ``seeded_uniform``."""
    p = np.maximum(probs, 0.0)
    p = p / p.sum()
    # = np.searchsorted(np.cumsum(p), u, side="right") on the same doubles; bisect keeps the GIL
    # (searchsorted releases it, and a busy server then pays to get it back)
    return min(bisect.bisect_right(np.cumsum(p).tolist(), seeded_uniform(seed, purpose)), len(p) - 1)


def game_rng(seed: int, i: int) -> np.random.Generator:
    """The generator of game ``i`` of a match with seed ``seed``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed) & (2**63 - 1), int(i)])))
