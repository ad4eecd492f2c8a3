"""The guesser for people: the fewest expected guesses against a given secret distribution.

A person hides a common word, not an equilibrium mixture. This guesser is the rollout oracle
(``games.jotto.kernels``, the rollout guesser) run against the secret distribution: by default uniform over the
dictionary's common words (every word if it marks none common), or any hider strategy of the store.
It is one deterministic member whose oracle input is that distribution; words of zero weight are still
found (they stay in the consistent sets) but cost nothing in the objective.
"""
from __future__ import annotations

import numpy as np

from games.fixedmath import dot
from games.jotto.oracle import JottoOracle

DEFAULT_SECRET = "common"


def secret_distribution(oracle: JottoOracle, name: str, hiders: dict[str, np.ndarray] | None = None) -> np.ndarray:
    """The secret distribution called `name`: "common" (uniform over the common words), "uniform" (every
    word), or the hider of a strategy in `hiders`."""
    if name == "common":
        w = np.asarray(oracle.dictionary.common, dtype=np.float64)
        if w.sum() == 0:
            w = np.ones(oracle.D)
    elif name == "uniform":
        w = np.ones(oracle.D)
    elif hiders and name in hiders:
        w = np.asarray(hiders[name], dtype=np.float64)
    else:
        known = ["common", "uniform"] + sorted(hiders or {})
        raise ValueError(f"unknown secret distribution {name!r} (one of {', '.join(known)})")
    return w / w.sum()


def guesses_figures(guesses: np.ndarray, secret: np.ndarray) -> dict[str, float]:
    """Mean guesses against the secret distribution, the most any word it can hide needs, and the
    mean over every word (the uniform hider)."""
    return {"mean_guesses_vs_secret": dot(guesses, secret), "worst_guesses_vs_secret": float(guesses[secret > 0].max()),
            "mean_guesses_vs_uniform": float(guesses.mean()), "worst_guesses": float(guesses.max())}
