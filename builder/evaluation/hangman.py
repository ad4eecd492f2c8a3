"""Hangman strategy names for the arena and the optimisers.

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
