"""Build a Symmetric Hangman store: the lexicon of one word length and what both served strategies need.

Variant ``hangman-<source>-<L>`` (e.g. ``hangman-en_US50-5``). Arrays: ``codes`` (N, L) letter codes of
the words (sorted), ``solo`` / ``solo_scored`` (N, 2) asks and misses the seed's guesser / our guesser
needs alone on each word (their decision trees), ``seed_words`` (the seed's four criteria) and
``hard_words`` (the 2% hardest for both, our word choice). The manifest holds the parameters of our letter rule and the score of ours against the seed's
strategy over ``eval_games`` seeded games (seats alternated).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from builder.recorded import recorded_parameters
from builder.step_seconds import measured_step_seconds
from builder.steps import StoreSteps
from games.hangman import strategies as hs
from games.hangman.game import DEFAULT_SOURCE, MAX_MISSES, HangmanGame, lexicon
from games.hangman.store import CODES, HARD_WORDS, SEED_WORDS, SOLO, SOLO_SCORED
from games.storage import StoreWriter, code_version

GAME = "hangman"


@dataclass(frozen=True)
class HangmanParams:
    length: int = 5
    source: str = DEFAULT_SOURCE
    max_misses: int = MAX_MISSES
    theta: tuple[float, ...] = hs.SCORED_DEFAULT
    eval_games: int = 200
    seed: int = 1

    @property
    def variant(self) -> str:
        return f"hangman-{self.source}-{self.length}"


def eval_games(game, a, b, seed: int, games: int, executor=None, chunk: int = 50) -> list[float]:
    """A's scores in games 0..games-1 against B (seats alternated), chunked over the executor, in game order."""
    from builder.evaluation.arena import play_games
    if executor is None:
        return play_games(game, a, b, seed, 0, games) if games else []
    starts = list(range(0, games, chunk))
    k = len(starts)
    parts = executor.map(play_games, [game] * k, [a] * k, [b] * k, [seed] * k, starts,
                         [min(s + chunk, games) for s in starts])
    return [x for part in parts for x in part]


def hangman_step_seconds() -> dict[str, float]:
    """{step: expected seconds} of a Hangman build: the default store's measured steps."""
    return measured_step_seconds("hangman-en_US50-5")


def build_hangman_store(params: HangmanParams, root: Path, executor=None) -> Path:
    """Lexicon tables, then the seeded evaluation games (in chunks on ``executor``), then the store."""

    with StoreSteps(params.variant, hangman_step_seconds(), timed=True) as steps:
        with steps.step("tables", 1):
            lex = lexicon(params.source, params.length)
            solo = hs.solo_table(lex)
            solo_scored = hs.solo_table(lex, "scored")
            seed_words = hs.seed_word_subset(lex)
            hard_words = hs.hard_subset(lex)
        with steps.step("evaluation games", 1):
            game = HangmanGame(params.length, params.source, params.max_misses)
            ours = hs.Player(hs.HardWords(), hs.ScoredLetters(tuple(params.theta)), name="ours")
            scores = eval_games(game, ours, hs.seed_player(), params.seed, params.eval_games, executor)
        with steps.step("publish", 1):
            return _publish(params, root, lex, solo, solo_scored, seed_words, hard_words, scores)


def _publish(params: HangmanParams, root: Path, lex, solo, solo_scored, seed_words, hard_words, scores) -> Path:
    with StoreWriter(root, GAME, params.variant) as w:
        w.put_array(CODES, lex.codes)
        w.put_array(SOLO, solo)
        w.put_array(SOLO_SCORED, solo_scored)
        w.put_array(SEED_WORDS, seed_words.astype(np.int32))
        w.put_array(HARD_WORDS, hard_words.astype(np.int32))
        s = np.asarray(scores, dtype=float)
        figures = {"words": len(lex), "seed_words": len(seed_words), "hard_words": len(hard_words),
                   "mean_solo_asks": float(solo[:, 0].mean()),
                   "mean_solo_asks_scored": float(solo_scored[:, 0].mean())}
        if len(s):
            figures.update(ours_vs_seed=float(s.mean()), ours_vs_seed_games=len(s),
                           ours_vs_seed_wins=int((s == 1).sum()), ours_vs_seed_draws=int((s == 0.5).sum()),
                           ours_vs_seed_losses=int((s == 0).sum()))
        manifest = dict(game=GAME, variant=params.variant, parameters=recorded_parameters(params), length=params.length,
                        figures=figures, code_version=code_version())
        return w.publish(manifest)
