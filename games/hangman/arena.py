"""Hangman in the arena and the optimisers: strategy names and the parametric problem.

Names: ``hangman<L>[m<misses>]:<player>`` with player one of ``seed`` (seed words + seed letters),
``ours`` (hard words + scored letters), or ``<words>+<letters>`` with words in ``seedwords``,
``uniform``, ``hardwords`` and letters in ``seedletters``, ``scored``, ``scored=a,b,k,d,e``.
"""
from __future__ import annotations

import re

from games.hangman import strategies as hs
from games.hangman.game import DEFAULT_SOURCE, MAX_MISSES, HangmanGame

WORDS = {"seedwords": hs.SeedWords(), "uniform": hs.UniformWords(), "hardwords": hs.HardWords()}


def game_for(gname: str) -> HangmanGame:
    m = re.fullmatch(r"hangman(\d)(?:m(\d+))?", gname)
    if not m:
        raise ValueError(f"{gname!r}: expected hangman<L>[m<misses>], e.g. hangman5")
    return HangmanGame(int(m.group(1)), DEFAULT_SOURCE, int(m.group(2) or MAX_MISSES), name=gname)


def letters(spec: str):
    if spec == "seedletters":
        return hs.SeedLetters()
    if spec == "scored":
        return hs.ScoredLetters()
    if spec.startswith("scored="):
        return hs.ScoredLetters(tuple(float(x) for x in spec[7:].split(",")), name=spec)
    raise ValueError(f"letter rule {spec!r}: seedletters, scored, scored=a,b,k,d,e")


def player(sname: str):
    if sname == "seed":
        return hs.seed_player()
    if sname == "ours":
        return hs.our_player()
    if "+" in sname:
        w, l = sname.split("+", 1)
        if w not in WORDS:
            raise ValueError(f"word rule {w!r}: one of {sorted(WORDS)}")
        return hs.Player(WORDS[w], letters(l), name=sname)
    raise ValueError(f"hangman strategy {sname!r}: seed, ours or WORDS+LETTERS")


def resolve(gname: str, sname: str):
    return game_for(gname), player(sname)


def optimiser_problem(name: str):
    """Tune our letter rule (with our word choice) against the seed's player (the baseline)."""
    from games.optimisers import Problem

    game = game_for(name)
    return Problem(name, game, hs.SCORED_BOUNDS, _Make(), hs.seed_player())


class _Make:
    """theta -> our player with that letter rule (picklable, unlike a lambda)."""

    def __call__(self, th):
        return hs.Player(hs.HardWords(), hs.ScoredLetters(tuple(float(x) for x in th)),
                         name="ours(" + ",".join(f"{x:.3g}" for x in th) + ")")


def references(name: str) -> dict:
    return {"seed": hs.seed_player(), "ours-default": hs.our_player()}
