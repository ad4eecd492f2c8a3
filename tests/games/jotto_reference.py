"""Literal, slow reference implementations of Ganzfried's algorithms in exact arithmetic (tests only)."""
from __future__ import annotations

from collections import Counter
from fractions import Fraction


def num_comm_letts(a: str, b: str) -> int:
    """Alg. 5 generalised to one-to-one letter matches (Beeler's jots)."""
    ca, cb = Counter(a), Counter(b)
    return sum(min(n, cb[ch]) for ch, n in ca.items())


def answer_probs(words, w, h, S):
    """Alg. 4 (answers 0..L); uniform weights when the hider puts none on S (documented rule)."""
    L = len(w)
    A = [Fraction(0)] * (L + 1)
    for i in S:
        A[num_comm_letts(w, words[i])] += Fraction(h[i])
    total = sum(A)
    if total == 0:
        A = [Fraction(0)] * (L + 1)
        for i in S:
            A[num_comm_letts(w, words[i])] += 1
        total = sum(A)
    return [a / total for a in A]


def num_elims(words, w, S, j):
    """Alg. 3."""
    return sum(1 for k in S if num_comm_letts(w, words[k]) != j)


def exp_num_elims(words, w, h, S):
    """Alg. 2."""
    A = answer_probs(words, w, h, S)
    return sum(A[j] * num_elims(words, w, S, j) for j in range(len(w) + 1))


def guesser_gbr(words, h, S, candidates=None):
    """Alg. 1 with the documented tie-break: a consistent word, then the lowest index."""
    S = sorted(S)
    if len(S) == 1:
        return S[0]
    cands = range(len(words)) if candidates is None else candidates
    scored = [(exp_num_elims(words, words[i], h, S), i in S, -i) for i in cands]
    return -max(scored)[2]


def update_state(words, S, guess, answer):
    """Alg. 7 (and the guessed word, which was not the secret, leaves the state)."""
    return {i for i in S if num_comm_letts(words[guess], words[i]) == answer and i != guess}


def comp_num_guesses(words, h, oracle=guesser_gbr):
    """Alg. 6, literally: replay the guesser once per secret word."""
    L = len(words[0])
    out = []
    for secret in range(len(words)):
        S = set(range(len(words)))
        n = 0
        while True:
            n += 1
            g = oracle(words, h, S)
            if g == secret:
                break
            S = update_state(words, S, g, num_comm_letts(words[secret], words[g]))
            assert n <= len(words), "guesser does not terminate"
        out.append(n)
    del L
    return out
