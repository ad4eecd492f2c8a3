"""One dictionary's precomputed arrays and the oracles over them (GBR, entropy), for builder and server."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from games.jotto import kernels
from games.jotto.dictionary import Dictionary
from games.jotto.lookahead import lookahead_tree

GBR = kernels.GBR
ENTROPY = kernels.ENTROPY
ROLLOUT = 2  # rollouts of GBR from the ROLLOUT_WIDTH best-scored test words (games.jotto.kernels, the rollout guesser)
ROLLOUT_ENTROPY = 3  # the same with the entropy guesser (any test word) as the base
KIND_NAMES = {GBR: "gbr", ENTROPY: "entropy", ROLLOUT: "rollout", ROLLOUT_ENTROPY: "rollout-entropy"}
KINDS = {name: kind for kind, name in KIND_NAMES.items()}
ROLLOUT_WIDTH = 16


def base_kind(kind: int) -> int:
    """The greedy oracle a rollout kind rolls out (the kind itself for the greedy oracles)."""
    return kind - ROLLOUT if kind >= ROLLOUT else kind


def state_key(D: int, state: np.ndarray) -> bytes:
    """Store key of a state: BLAKE2b-128 of the consistent-word bitset (D bits in dictionary order)."""
    mask = np.zeros(D, dtype=bool)
    mask[state] = True
    return hashlib.blake2b(np.packbits(mask).tobytes(), digest_size=16).digest()


@dataclass
class Tree:
    """One guesser pure strategy as a decision tree: guesses needed per secret word, and its big nodes."""

    guesses: np.ndarray  # int32[D]
    node_states: list[np.ndarray] = field(default_factory=list)  # ascending consistent indices
    node_moves: list[int] = field(default_factory=list)


def build_tree(C: np.ndarray, counts: np.ndarray, h: np.ndarray, candidates: np.ndarray, L: int, kind: int,
               record_threshold: int | None = None, lookahead_width: int = 0) -> Tree:
    """CompNumGuesses (Alg. 6) over plain arrays: the oracle's tree, also run as a builder task. A rollout
    kind with lookahead_width > 0 plays the lookahead guesser at the states of more than record_threshold
    words (games.jotto.lookahead)."""
    thr = C.shape[0] + 1 if record_threshold is None else record_threshold
    h = np.ascontiguousarray(h, dtype=np.float64)
    if kind >= ROLLOUT and lookahead_width > 0:
        g, states, moves = lookahead_tree(np.asarray(C), np.asarray(counts), h, h, np.asarray(candidates), L,
                                          base_kind(kind), ROLLOUT_WIDTH, lookahead_width, thr)
        return Tree(g, states, moves)
    if kind >= ROLLOUT:  # the rollout guesser minimises expected guesses against its input h
        g, rs, re_, rg, order = kernels.rollout_tree(
            np.asarray(C), np.asarray(counts), h, h, np.asarray(candidates), L, base_kind(kind), ROLLOUT_WIDTH, thr)
    else:
        g, rs, re_, rg, order = kernels.comp_num_guesses(
            np.asarray(C), np.asarray(counts), h, np.asarray(candidates), L, kind, thr)
    tree = Tree(g)
    for s, e, m in zip(rs, re_, rg):
        tree.node_states.append(np.sort(order[s:e]))
        tree.node_moves.append(int(m))
    return tree


class JottoOracle:
    def __init__(self, dictionary: Dictionary):
        self.dictionary = dictionary
        self.L = dictionary.length
        self.D = dictionary.size
        self.counts = np.ascontiguousarray(dictionary.counts)
        self.C = kernels.num_comm_letts_matrix(self.counts)
        self.all_words = np.arange(self.D, dtype=np.int32)
        common = np.flatnonzero(dictionary.common).astype(np.int32)
        self.common_words = common if common.size else self.all_words

    def candidates(self, kind: int) -> np.ndarray:
        """Allowed test words: every word for GBR (Ganzfried), common words for Beeler's guesser."""
        return self.common_words if kind == ENTROPY else self.all_words

    @cached_property
    def uniform(self) -> np.ndarray:
        return np.full(self.D, 1.0 / self.D)

    def tree(self, h: np.ndarray, kind: int = GBR, record_threshold: int | None = None) -> Tree:
        """CompNumGuesses for every secret word at once (Alg. 6), optionally keeping nodes > threshold."""
        return build_tree(self.C, self.counts, h, self.candidates(kind), self.L, kind, record_threshold)

    def move(self, state: np.ndarray, h: np.ndarray, kind: int = GBR, rollout_limit: int | None = None) -> int:
        """The oracle's test word at one state (ascending consistent indices). A rollout kind at a state
        of more than `rollout_limit` words (a state its tree never reaches, since those are in the book)
        plays its base oracle's move instead, which costs a rollout's 1/ROLLOUT_WIDTH or less."""
        state = np.ascontiguousarray(state, dtype=np.int32)
        h = np.ascontiguousarray(h, dtype=np.float64)
        if kind >= ROLLOUT and (rollout_limit is None or len(state) <= rollout_limit):
            in_S = np.zeros(self.D, dtype=np.bool_)
            in_S[state] = True
            return int(kernels.rollout_guess(self.C, self.counts, state, in_S, h, h, self.candidates(kind), self.L,
                                               base_kind(kind), ROLLOUT_WIDTH))
        return int(kernels.oracle_move(self.C, self.counts, state, h, self.candidates(kind), self.L, base_kind(kind)))

    def consistent(self, guesses: list[int], answers: list[int]) -> np.ndarray:
        """UpdateState (Alg. 7) along a history of wrong guesses (a guessed word is not the secret)."""
        mask = np.ones(self.D, dtype=bool)
        for g, a in zip(guesses, answers):
            mask &= self.C[g] == a
            mask[g] = False
        return np.flatnonzero(mask).astype(np.int32)

    def warm(self) -> None:
        """Compile and run every kernel once (server start, before the first request)."""
        small = self.all_words[: min(self.D, 8)]
        for kind in KIND_NAMES:
            self.move(small, self.uniform, kind)
