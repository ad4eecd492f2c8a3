"""Symmetric Hangman (Saija & Henken, 2011).

Each player picks a word of the game's length for the *opponent* to complete. Players alternately ask a
letter not asked before; the letter is revealed (all positions) in *both* words. If it is not in the
asker's own word (the one he must complete), the asker's hangman diagram gets one more element
(``max_misses`` elements, default 10). After the letter:

* both words complete -> draw;
* otherwise a completed word wins for its owner (the asker or the other player);
* otherwise an asker whose diagram is complete loses.

A player knows the word the opponent must complete (he chose it); his own word's candidates are the
lexicon words consistent with what was revealed of it ("possible worlds"). Letters are 0..25.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from games.fixedmath import log2

ALPHABET = "abcdefghijklmnopqrstuvwxyz"
DATA = Path(__file__).resolve().parent / "data" / "scowl_words_7_8.tsv"
DEFAULT_SOURCE = "en_US50"
MAX_MISSES = 10
# the diagram's pieces as the clients draw them, MAX_MISSES of them in the order they are drawn: each a list of
# (row, column, character) on a grid of 7 rows and 9 columns (the terminal's and the play page's drawing)
DIAGRAM_PIECES = [
    [(6, c, "=") for c in range(0, 9)],            # 1 base
    [(r, 1, "|") for r in range(1, 6)],            # 2 pole
    [(0, c, "-") for c in range(1, 6)] + [(0, 1, "+"), (0, 5, "+")],  # 3 beam
    [(1, 5, "|")],                                 # 4 rope
    [(2, 5, "O")],                                 # 5 head
    [(3, 5, "|")],                                 # 6 body
    [(3, 4, "/")],                                 # 7 left arm
    [(3, 6, "\\")],                                # 8 right arm
    [(4, 4, "/")],                                 # 9 left leg
    [(4, 6, "\\")],                                # 10 right leg
]
WIN, DRAW, LOSS = 1.0, 0.5, 0.0


class HangmanError(ValueError):
    pass


def _scowl_long(length: int, lang_col: int, cap: int) -> list[str]:
    from games.jotto.dictionary import unfit_words

    out, unfit = [], unfit_words()
    for line in DATA.read_text().splitlines()[1:]:
        w, *sizes = line.split("\t")
        s = int(sizes[lang_col])
        if len(w) == length and 0 < s <= cap and w not in unfit:
            out.append(w)
    return out


def source_words(source: str, length: int) -> list[str]:
    """SCOWL words (``en_US50`` = en_US up to size 50; caps up to 60 for 7-8 letters), sorted."""
    from games.jotto.dictionary import LANGUAGES, _source_words

    if not (source.startswith("en_") and source[5:].isdigit()):
        raise HangmanError(f"unknown word source {source!r} (e.g. en_US50)")
    if 2 <= length <= 6:
        return sorted(_source_words(source, length))
    if length in (7, 8):
        cap = int(source[5:])
        if cap > 60:
            raise HangmanError("7- and 8-letter words are kept up to SCOWL size 60")
        return sorted(_scowl_long(length, LANGUAGES.index(source[:5]), cap))
    raise HangmanError(f"word length {length} outside 2..8")


class Lexicon:
    """The words of one length as arrays: codes (N, L), presence (N, 26), letter counts (N, 26)."""

    def __init__(self, words, name: str = "custom", database=None):
        words = sorted(set(words))
        if not words:
            raise HangmanError("empty word list")
        L = len(words[0])
        for w in words:
            if len(w) != L or not w.isascii() or not w.isalpha() or not w.islower():
                raise HangmanError(f"{w!r}: words must be lower-case a-z of one length")
        self.name, self.words, self.length = name, words, L
        self.index = {w: i for i, w in enumerate(words)}
        self.codes = np.array([[ord(c) - 97 for c in w] for w in words], dtype=np.uint8)
        self.counts = np.zeros((len(words), 26), dtype=np.int16)
        for j in range(L):
            np.add.at(self.counts, (np.arange(len(words)), self.codes[:, j]), 1)
        self.presence = self.counts > 0
        self.masks = (self.presence.astype(np.int64) << np.arange(26)).sum(axis=1)
        # the whole lexical database (every length) for the seed's "no subwords" criterion
        self.database = list(database) if database is not None else list(words)

    def __len__(self) -> int:
        return len(self.words)

    def letters_of(self, i: int) -> np.ndarray:
        return self.presence[i]


@lru_cache(maxsize=16)
def lexicon(source: str, length: int) -> Lexicon:
    db = []
    for L in range(2, 9):
        try:
            db += source_words(source, L)
        except HangmanError:
            pass
    return Lexicon(source_words(source, length), name=f"{source}-{length}", database=db)


TINY = ("borst", "dorst", "horst", "korst", "morst", "vorst")  # the seed's six-word "tiny" database


@lru_cache(maxsize=4)
def tiny_lexicon() -> Lexicon:
    return Lexicon(TINY, name="tiny")


# ----------------------------------------------------------------------------------------- the state
@dataclass
class View:
    """What the player to move knows."""
    lex: Lexicon
    me: int
    my_cands: np.ndarray       # candidate indices of my word
    opp_word: int              # the opponent's word (I chose it)
    opp_cands: np.ndarray      # the opponent's candidates (public)
    guessed: np.ndarray        # bool[26]
    my_misses: int
    opp_misses: int
    max_misses: int
    turn: int

    @property
    def unguessed(self) -> np.ndarray:
        return np.flatnonzero(~self.guessed)

    def opp_remaining(self) -> np.ndarray:
        """Letters of the opponent's word not asked yet."""
        return np.flatnonzero(self.lex.presence[self.opp_word] & ~self.guessed)


class State:
    """A game in progress. ``words[i]`` is the word player i must complete."""

    def __init__(self, lex: Lexicon, words: tuple[int, int], max_misses: int = MAX_MISSES, first: int = 0):
        if max_misses < 1:
            raise HangmanError("max_misses must be >= 1")
        self.lex, self.words, self.max_misses = lex, tuple(words), max_misses
        self.guessed = np.zeros(26, dtype=bool)
        self.cands = [np.arange(len(lex)), np.arange(len(lex))]
        self.misses = [0, 0]
        self.to_move = first
        self.turn = 0
        self.result: tuple[float, float] | None = None  # scores of player 0, player 1
        self.history: list[tuple[int, int]] = []  # (player, letter)

    def view(self, player: int | None = None) -> View:
        p = self.to_move if player is None else player
        return View(self.lex, p, self.cands[p], self.words[1 - p], self.cands[1 - p], self.guessed.copy(),
                    self.misses[p], self.misses[1 - p], self.max_misses, self.turn)

    def complete(self, i: int) -> bool:
        return not (self.lex.presence[self.words[i]] & ~self.guessed).any()

    def pattern(self, i: int) -> str:
        w = self.lex.words[self.words[i]]
        return "".join(c if self.guessed[ord(c) - 97] else "_" for c in w)

    def ask(self, letter: int) -> tuple[float, float] | None:
        if self.result is not None:
            raise HangmanError("the game is over")
        if not 0 <= letter < 26:
            raise HangmanError(f"letter {letter} outside a..z")
        if self.guessed[letter]:
            raise HangmanError(f"letter {ALPHABET[letter]!r} was asked before")
        p = self.to_move
        self.guessed[letter] = True
        self.history.append((p, letter))
        codes = self.lex.codes
        for i in (0, 1):
            at = codes[self.words[i]] == letter
            c = self.cands[i]
            self.cands[i] = c[np.all((codes[c] == letter) == at, axis=1)]
        if not self.lex.presence[self.words[p], letter]:
            self.misses[p] += 1
        done = (self.complete(0), self.complete(1))
        if done[0] and done[1]:
            self.result = (DRAW, DRAW)
        elif done[0] or done[1]:
            self.result = (WIN, LOSS) if done[0] else (LOSS, WIN)
        elif self.misses[p] >= self.max_misses:
            self.result = (LOSS, WIN) if p == 0 else (WIN, LOSS)
        self.to_move = 1 - p
        self.turn += 1
        return self.result


def entropy(p: np.ndarray) -> np.ndarray:
    """Binary entropy (bits) of each probability, 0 at 0 and 1."""
    q = np.clip(p, 1e-300, 1.0)
    r = np.clip(1.0 - p, 1e-300, 1.0)
    h = -(p * log2(q) + (1.0 - p) * log2(r))       # fixedmath: the same bits on every CPU
    return np.where((p <= 0) | (p >= 1), 0.0, h)


def letter_stats(lex: Lexicon, cands: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(probability a candidate holds the letter, entropy, frequency = occurrences over the candidates)."""
    n = max(len(cands), 1)
    pres = lex.presence[cands].sum(axis=0)
    p = pres / n
    return p, entropy(p), lex.counts[cands].sum(axis=0)


# ---------------------------------------------------------------------------------------------- game
@dataclass(frozen=True)
class HangmanGame:
    """The arena's game: ``first`` chooses the word ``second`` must complete and vice versa; ``first``
    asks first. Score of ``first``: 1 win, 1/2 draw, 0 loss."""
    length: int = 5
    source: str = DEFAULT_SOURCE
    max_misses: int = MAX_MISSES
    words: tuple[str, ...] | None = None  # an explicit list instead of the SCOWL source
    name: str = field(default="hangman")

    def lexicon(self) -> Lexicon:
        if self.words is not None:
            return _explicit(self.words)
        return lexicon(self.source, self.length)

    def play(self, first, second, rng: np.random.Generator) -> float:
        lex = self.lexicon()
        w_second = int(first.choose_word(lex, rng))   # first picks the word second must complete
        w_first = int(second.choose_word(lex, rng))
        st = State(lex, (w_first, w_second), self.max_misses)
        players = (first, second)
        while st.result is None:
            st.ask(int(players[st.to_move].choose_letter(st.view(), rng)))
        return st.result[0]


@lru_cache(maxsize=8)
def _explicit(words: tuple[str, ...]) -> Lexicon:
    return Lexicon(words)
