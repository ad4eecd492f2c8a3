"""The lookahead guesser's decision tree: the lookahead (a rollout of the rollout guesser,
``kernels.lookahead_guess``) at every state of more than `big` words, the rollout guesser below.

The store's book holds every state of more than `big` words (its threshold), so the server plays the
book there and the rollout guesser live below: the tree walked here is the strategy served, and its
figures are exact for it.
"""
from __future__ import annotations

import numpy as np

from games.jotto import kernels


def lookahead_tree(C: np.ndarray, counts: np.ndarray, h: np.ndarray, w: np.ndarray, candidates: np.ndarray, L: int,
                   kind: int, width: int, lookahead_width: int, big: int):
    """(guesses[D], node_states, node_moves): guesses needed for every secret word, and each state of
    more than `big` words (ascending indices) with the test word played there."""
    D = C.shape[0]
    guesses = np.zeros(D, dtype=np.int32)
    sub = np.zeros(D, dtype=np.int32)
    in_S = np.zeros(D, dtype=np.bool_)
    none64, none32 = np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int32)
    node_states: list[np.ndarray] = []
    node_moves: list[int] = []
    stack = [(np.arange(D, dtype=np.int32), 1)]
    while stack:
        S, depth = stack.pop()
        if len(S) <= big:  # the rollout guesser's subtree, as served live
            kernels.rollout_descend(C, counts, S.copy(), h, w, candidates, L, kind, width, big, sub, none64, none64,
                                    none32)
            guesses[S] = sub[S] + (depth - 1)
            continue
        in_S[S] = True
        g = int(kernels.lookahead_guess(C, counts, S, in_S, h, w, candidates, L, kind, width, lookahead_width))
        in_S[S] = False
        node_states.append(S)
        node_moves.append(g)
        answers = C[g, S]
        if np.any(S == g):
            guesses[g] = depth
        for a in range(L, -1, -1):
            child = S[(answers == a) & (S != g)]
            if len(child):
                stack.append((child, depth + 1))
    return guesses, node_states, node_moves
