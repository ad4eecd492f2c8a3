"""Literal, slow reference implementations of Ganzfried's algorithms in exact arithmetic (tests only)."""
from __future__ import annotations

import itertools
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


def guesses_to_find(words, h, S, secret, oracle=guesser_gbr):
    """The guesses `oracle` (against h) needs from state S to name `secret`, replayed move by move."""
    state, n = set(S), 0
    while True:
        n += 1
        g = oracle(words, h, state)
        if g == secret:
            return n
        state = update_state(words, state, g, num_comm_letts(words[secret], words[g]))
        assert n <= len(words), "guesser does not terminate"


def comp_num_guesses(words, h, oracle=guesser_gbr):
    """Alg. 6, literally: replay the guesser once per secret word."""
    return [guesses_to_find(words, h, range(len(words)), secret, oracle) for secret in range(len(words))]


def all_trees(words, S):
    """Every guesser decision tree for the secret set S, as {secret: guesses}. A node's test word is any
    word that is in S or splits S (any other word repeats the node at the cost of a guess)."""
    S = frozenset(S)
    if not S:
        yield {}
        return
    for g in range(len(words)):
        parts = {}
        for s in S:
            if s != g:
                parts.setdefault(num_comm_letts(words[g], words[s]), set()).add(s)
        if g not in S and len(parts) == 1:
            continue
        subtrees = [list(all_trees(words, p)) for p in parts.values()]
        for combo in itertools.product(*subtrees):
            tree = {g: 1} if g in S else {}
            for t in combo:
                tree.update({s: k + 1 for s, k in t.items()})
            yield tree


def optimal_tree_value(words, h):
    """The fewest expected guesses of any tree against weights h (Fractions), by enumerating every tree."""
    S = [i for i in range(len(words)) if h[i] > 0]
    return min(sum(h[s] * t[s] for s in S) for t in all_trees(words, S)) / sum(h)


def replay_cost(words, h, w, S, oracle=guesser_gbr):
    """Expected guesses (weights w, unnormalised) of `oracle` against h from state S, replayed per word."""
    return sum((Fraction(w[secret]) * guesses_to_find(words, h, S, secret, oracle) for secret in S), Fraction(0))


def rollout_guess(words, h, w, S):
    """One-step rollout of GuesserGBR with every test word: the word minimising w(S) + the replayed
    cost of GBR from each answer's state; ties to GBR's own ranking is not needed when costs differ."""
    best = None
    for g in range(len(words)):
        parts = {}
        for s in S:
            if s != g:
                parts.setdefault(num_comm_letts(words[g], words[s]), set()).add(s)
        if g not in S and len(parts) <= 1:
            continue
        cost = sum(Fraction(w[s]) for s in S) + sum(replay_cost(words, h, w, p) for p in parts.values())
        if best is None or cost < best[0]:
            best = (cost, g)
    return best
