"""Hangman strategies: a player = a word chooser (the word the opponent must complete) + a letter chooser.

The seed's (Saija & Henken 2011):

* :func:`seed_letter` - its pseudo-code, steps 1-4:
  1. one possible world left: ask the remaining letters of that word, first those not in the opponent's
     word (alphabetical within each group);
  2. entropy ``H(c) = -p log2 p - (1-p) log2 (1-p)`` of "the word holds c" over my possible worlds and
     over the opponent's (public) possible worlds, and the frequency list (occurrences of c over my
     possible worlds), for the letters not asked yet;
  3. walk the letters by my entropy, highest first (ties: higher frequency, then alphabetical), and ask
     the first whose entropy for me is higher than for the opponent;
  4. none: the letter with the highest entropy for me, ties by frequency (then alphabetical).
* :func:`seed_word_subset` - its four word-selection criteria combined (intersection) and a uniform
  draw from the subset: dissimilarity (no repeated letter), letter frequency (only rare letters: every
  letter of the word outside the ``common`` (6) most frequent letters of the lexicon; relaxed one letter at a
  time until some word qualifies), no subwords (the word's letters, in any order, are not contained in
  another word of the whole lexical database, e.g. 'bal' is excluded by 'labs'; same-length anagrams
  count), word length (prefer long words: inert here, the length is fixed per game). If the
  intersection is empty the criteria are dropped from the last until it is not.

Ours:

* :class:`ScoredLetters` - a parametric letter rule (5 real parameters) scoring each letter not asked by
  ``P(c in my word) + a * H_me(c) - b * [c in the opponent's word] * (1 + k / r) - d * H_opp(c)`` where ``r``
  is the number of letters the opponent still needs; letters that would complete only the opponent's
  word are never asked while another exists; with one possible world left it asks my word's letters,
  those absent from the opponent's word first.
* :class:`HardWords` - search over candidate words: every word is scored by the asks (then misses)
  the seed's rule and our rule need alone on it (their whole decision trees, :func:`solo_table`), the
  smaller of the two counting; a word is drawn uniformly from the hardest 2%.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.hangman.game import ALPHABET, Lexicon, State, View, entropy, letter_stats

ROUND = 12  # entropies equal to 1e-12 are tied


# ------------------------------------------------------------------------------------- seed letters
def seed_letter(v: View) -> int:
    lex = v.lex
    unguessed = v.unguessed
    if len(v.my_cands) == 1:  # step 1
        w = int(v.my_cands[0])
        remaining = [c for c in unguessed if lex.presence[w, c]]
        not_opp = [c for c in remaining if not lex.presence[v.opp_word, c]]
        return int((not_opp or remaining)[0])
    _, h_me, freq = letter_stats(lex, v.my_cands)  # step 2
    _, h_opp, _ = letter_stats(lex, v.opp_cands)
    h_me, h_opp = np.round(h_me, ROUND), np.round(h_opp, ROUND)
    order = sorted(unguessed, key=lambda c: (-h_me[c], -freq[c], c))
    for c in order:  # step 3
        if h_me[c] > h_opp[c]:
            return int(c)
    return int(order[0])  # step 4: highest entropy, then frequency


def seed_explain(v: View) -> dict:
    """The quantities the seed's rule looks at (for tests and the example game)."""
    _, h_me, freq = letter_stats(v.lex, v.my_cands)
    _, h_opp, _ = letter_stats(v.lex, v.opp_cands)
    return {ALPHABET[c]: (round(float(h_me[c]), 3), round(float(h_opp[c]), 3), int(freq[c])) for c in v.unguessed}


# --------------------------------------------------------------------------------------- seed words
def _rare_letters_ok(lex: Lexicon, common: int) -> np.ndarray:
    freq = lex.presence.sum(axis=0)
    top = np.argsort(-freq, kind="stable")[:common]
    bad = np.zeros(26, dtype=bool)
    bad[top] = True
    return ~(lex.presence & bad).any(axis=1)


def _no_subword(lex: Lexicon, idx: np.ndarray) -> np.ndarray:
    """For the words ``idx``: True where the letter multiset is not contained in another database word."""
    others = [w for w in set(lex.database) if len(w) >= lex.length]
    oc = np.zeros((len(others), 26), dtype=np.int16)
    for i, w in enumerate(others):
        for ch in w:
            oc[i, ord(ch) - 97] += 1
    ok = np.ones(len(idx), dtype=bool)
    for j, i in enumerate(idx):
        hits = np.flatnonzero((oc >= lex.counts[i]).all(axis=1))
        ok[j] = not any(others[h] != lex.words[i] for h in hits)
    return ok


_SUBSETS: dict[tuple, np.ndarray] = {}


def seed_word_subset(lex: Lexicon, common: int = 6) -> np.ndarray:
    """Indices of the words the seed's four criteria allow (see the module docstring)."""
    key = (lex.name, hash(tuple(lex.words)), hash(tuple(lex.database)), common)
    if key in _SUBSETS:
        return _SUBSETS[key]
    dissimilar = lex.presence.sum(axis=1) == lex.length
    rare = np.zeros(len(lex), dtype=bool)
    c = common
    while c >= 0:
        rare = _rare_letters_ok(lex, c)
        if (rare & dissimilar).any():
            break
        c -= 1
    sel = dissimilar & rare
    if not sel.any():
        sel = dissimilar if dissimilar.any() else np.ones(len(lex), dtype=bool)
    else:
        idx = np.flatnonzero(sel)
        nosub = _no_subword(lex, idx)  # word length: inert (fixed per game)
        if nosub.any():
            sel = np.zeros(len(lex), dtype=bool)
            sel[idx[nosub]] = True
    out = np.flatnonzero(sel)
    _SUBSETS[key] = out
    return out


# ------------------------------------------------------------------------------------- word choosers
@dataclass(frozen=True)
class UniformWords:
    name: str = "uniform"

    def choose_word(self, lex: Lexicon, rng) -> int:
        return int(rng.integers(len(lex)))


@dataclass(frozen=True)
class SeedWords:
    common: int = 6
    name: str = "seedwords"

    def choose_word(self, lex: Lexicon, rng) -> int:
        sub = seed_word_subset(lex, self.common)
        return int(sub[rng.integers(len(sub))])


def solo_asks(lex: Lexicon, word: int, letter_rule=None) -> tuple[int, int]:
    """(asks, misses) a guesser needs alone on ``word`` (the opponent's side frozen as complete)."""
    st = State(lex, (word, word), max_misses=27)
    asks = misses = 0
    while not st.complete(0):
        v = st.view(0)
        v.opp_cands = v.my_cands  # alone: no opponent to spare
        c = seed_letter(v) if letter_rule is None else letter_rule(v)
        misses += not lex.presence[word, c]
        st.to_move = 0
        st.guessed[c] = True
        codes = lex.codes
        at = codes[word] == c
        cc = st.cands[0]
        st.cands[0] = cc[np.all((codes[cc] == c) == at, axis=1)]
        asks += 1
    return asks, misses


_SOLO: dict[tuple, np.ndarray] = {}


def _seed_solo_letter(h, freq, unguessed, p, theta):
    return min(unguessed, key=lambda x: (-h[x], -freq[x], x))


def _scored_solo_letter(h, freq, unguessed, p, theta):
    a, _, _, _, e = theta
    sc = p ** e + a * h
    return max(unguessed, key=lambda x: (sc[x], -x))


def solo_table(lex: Lexicon, rule: str = "seed", theta: tuple[float, ...] = None) -> np.ndarray:
    """``(N, 2)`` int array: for every word, the (asks, misses) a guesser needs alone on it.

    ``rule="seed"``: the seed's rule; alone, the opponent's possible worlds are the player's own, so it
    is step 4 (highest entropy, then frequency, then alphabetical) until one world is left, then the
    word's remaining letters. ``rule="scored"``: our rule without its opponent terms
    (``p ** e + a * H``, default parameters). Computed once per lexicon as the rule's decision tree (each
    node's candidates split by the positions of the asked letter); :func:`solo_asks` plays the same
    games one by one (the test compares them).
    """
    theta = tuple(SCORED_DEFAULT if theta is None else theta)
    key = (lex.name, hash(tuple(lex.words)), rule, theta)
    if key in _SOLO:
        return _SOLO[key]
    pick = {"seed": _seed_solo_letter, "scored": _scored_solo_letter}[rule]
    out = np.zeros((len(lex), 2), dtype=np.int32)
    codes, presence, counts = lex.codes, lex.presence, lex.counts
    stack = [(np.arange(len(lex)), np.zeros(26, dtype=bool), 0, 0)]
    while stack:
        cands, guessed, asks, misses = stack.pop()
        if len(cands) == 1:
            w = int(cands[0])
            out[w] = (asks + int((presence[w] & ~guessed).sum()), misses)
            continue
        n = len(cands)
        p = presence[cands].sum(axis=0) / n
        h = np.round(entropy(p), ROUND)
        freq = counts[cands].sum(axis=0)
        c = pick(h, freq, np.flatnonzero(~guessed), p, theta)
        g2 = guessed.copy()
        g2[c] = True
        keys = ((codes[cands] == c).astype(np.int64) << np.arange(lex.length)).sum(axis=1)
        for kv in np.unique(keys):
            sub = cands[keys == kv]
            stack.append((sub, g2, asks + 1, misses + (kv == 0)))
    _SOLO[key] = out
    return out


def hard_subset(lex: Lexicon, top: float = 0.02) -> np.ndarray:
    """The words hardest for both guessers alone: ranked by the smaller of the asks the seed's rule and
    our scored rule need (then the smaller of their misses); every word at least as hard as the one at
    the ``top`` quantile (ties included)."""
    t1, t2 = solo_table(lex, "seed"), solo_table(lex, "scored")
    asks, misses = np.minimum(t1[:, 0], t2[:, 0]), np.minimum(t1[:, 1], t2[:, 1])
    order = np.lexsort((-misses, -asks))
    k = max(1, int(round(top * len(lex))))
    cut = (asks[order[k - 1]], misses[order[k - 1]])
    return np.flatnonzero([(a, m) >= cut for a, m in zip(asks, misses)])


@dataclass(frozen=True)
class HardWords:
    """Search over candidate words: uniform over the ``top`` fraction hardest for both guessers."""
    top: float = 0.02
    name: str = "hardwords"

    def choose_word(self, lex: Lexicon, rng) -> int:
        sub = hard_subset(lex, self.top)
        return int(sub[rng.integers(len(sub))])


# ------------------------------------------------------------------------------------ letter choosers
@dataclass(frozen=True)
class SeedLetters:
    name: str = "seedletters"

    def choose_letter(self, v: View, rng) -> int:
        return seed_letter(v)


SCORED_NAMES = ("a_entropy", "b_helps_opp", "k_urgency", "d_opp_entropy", "e_prob_power")
SCORED_BOUNDS = ((0.0, 2.0), (0.0, 2.0), (0.0, 4.0), (0.0, 2.0), (0.25, 4.0))
SCORED_DEFAULT = (0.2, 0.5, 1.0, 0.1, 1.0)


@dataclass(frozen=True)
class ScoredLetters:
    theta: tuple[float, ...] = SCORED_DEFAULT
    name: str = "scored"

    def choose_letter(self, v: View, rng) -> int:
        a, b, k, d, e = self.theta
        lex = v.lex
        unguessed = v.unguessed
        opp_rem = lex.presence[v.opp_word] & ~v.guessed
        r = int(opp_rem.sum())
        if len(v.my_cands) == 1:
            w = int(v.my_cands[0])
            remaining = [c for c in unguessed if lex.presence[w, c]]
            # my last letter: ask it (a win or, if shared, a draw); else spare the opponent's letters
            not_opp = [c for c in remaining if not opp_rem[c]]
            return int((not_opp or remaining)[0])
        p, h_me, _ = letter_stats(lex, v.my_cands)
        _, h_opp, _ = letter_stats(lex, v.opp_cands)
        score = p ** e + a * h_me - b * opp_rem * (1.0 + k / max(r, 1)) - d * h_opp
        # never hand the opponent his last letter unless my word is surely completed too
        if r == 1:
            last = int(np.flatnonzero(opp_rem)[0])
            if len(unguessed) > 1:
                score[last] = -np.inf if p[last] < 1.0 else score[last]
        best = max(unguessed, key=lambda c: (score[c], -c))
        return int(best)


# ------------------------------------------------------------------------------------------- players
@dataclass(frozen=True)
class Player:
    words: object
    letters: object
    name: str = "player"

    def choose_word(self, lex, rng) -> int:
        return self.words.choose_word(lex, rng)

    def choose_letter(self, v, rng) -> int:
        return self.letters.choose_letter(v, rng)


def seed_player() -> Player:
    return Player(SeedWords(), SeedLetters(), name="seed")


def our_player(theta=SCORED_DEFAULT) -> Player:
    return Player(HardWords(), ScoredLetters(tuple(theta)), name="ours")
