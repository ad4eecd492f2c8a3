"""Dudo rules for two players (Neller & Hnath, section 1.1).

Claims ``n x r`` (``n`` dice of rank ``r``) are numbered by their strength ``s(n, r)``, which
depends on the total number of dice in play ``D``.  Eq. 1 as printed has slipped signs and an
``r`` where an ``n`` belongs; derived from the rules (ones are wild and doubly strong, so
``k x 1`` sits immediately before ``2k x 2`` while ``2k <= D``; the remaining ones follow the
strongest plain claim ``D x 6``) it reads::

    s(n, r) = 5n + floor(n/2) + r - 7      if r != 1
    s(n, 1) = 11n - 6                      if n <= floor(D/2)
    s(n, 1) = 5D + n - 1                   if n >  floor(D/2)

which gives the paper's 1-vs-1 table (1x2..1x6, 1x1, 2x2..2x6, 2x1 = strengths 0..11).
There are ``6 D`` claims, strengths ``0 .. 6D-1``.
"""
from __future__ import annotations

import itertools
from functools import lru_cache
from math import comb, factorial

import numpy as np

MAX_DICE = 5
FACES = 6


def strength(n: int, r: int, total_dice: int) -> int:
    """Strength s(n, r) of claim n x r with ``total_dice`` dice in play (corrected Eq. 1)."""
    if not (1 <= n <= total_dice and 1 <= r <= FACES):
        raise ValueError(f"no claim {n}x{r} with {total_dice} dice in play")
    if r != 1:
        return 5 * n + n // 2 + r - 7
    if n <= total_dice // 2:
        return 11 * n - 6
    return 5 * total_dice + n - 1


@lru_cache(maxsize=None)
def claim_table(total_dice: int) -> tuple[tuple[int, int], ...]:
    """All claims (n, r) in increasing strength, derived by sorting on the rules' order."""
    claims = [(n, r) for n in range(1, total_dice + 1) for r in range(1, FACES + 1)]

    def key(c):
        n, r = c
        # a wild claim k x 1 behaves like 2k x 2 minus a half step while 2k <= D;
        # otherwise it ranks after every plain claim.
        if r == 1:
            return (2 * n, 1.5) if 2 * n <= total_dice else (total_dice + n, 0)
        return (n, r)

    return tuple(sorted(claims, key=key))


def claim(strength_index: int, total_dice: int) -> tuple[int, int]:
    """The claim (n, r) with the given strength."""
    return claim_table(total_dice)[strength_index]


def action_name(action: int, total_dice: int) -> str:
    """A move as players write it: ``dudo`` (action -1) or the claim ``nxr`` of that strength."""
    if action < 0:
        return "dudo"
    n, r = claim_table(total_dice)[action]
    return f"{n}x{r}"


class RuleError(ValueError):
    """A position the rules do not allow, in words naming the fault; callers prefix where it is."""


def check_dice(name: str, d: int) -> None:
    if not 1 <= d <= MAX_DICE:
        raise RuleError(f"{name} is {d}; a player has 1..{MAX_DICE} dice")


def check_roll(name: str, roll, d: int) -> None:
    """A roll of a player holding ``d`` dice."""
    if len(roll) != d:
        raise RuleError(f"{name} has {len(roll)} dice; the player has {d}")
    for k, f in enumerate(roll):
        if not 1 <= f <= FACES:
            raise RuleError(f"{name}[{k}] is {f}; faces are 1..{FACES}")


def claim_strengths(claims, total_dice: int, where) -> list[int]:
    """The strengths of a round's claims ``(n, face)`` in order, each checked against the rules; a fault
    raises RuleError prefixed by ``where(k, n, face)``, the caller's name for claim k."""
    out: list[int] = []
    for k, (n, face) in enumerate(claims):
        n, face = int(n), int(face)
        if not 1 <= face <= FACES:
            raise RuleError(f"{where(k, n, face)}: face {face} is not 1..{FACES}")
        if not 1 <= n <= total_dice:
            raise RuleError(f"{where(k, n, face)}: a claim counts 1..{total_dice} dice (the dice in play)")
        s = strength(n, face, total_dice)
        if out and s <= out[-1]:
            raise RuleError(f"{where(k, n, face)}: not stronger than {action_name(out[-1], total_dice)}")
        out.append(s)
    return out


def num_claims(total_dice: int) -> int:
    return FACES * total_dice


def count_for(roll_counts, r: int) -> int:
    """Dice counting for rank r given face counts (index 0 = ones): r's plus wild ones (r != 1)."""
    if r == 1:
        return int(roll_counts[0])
    return int(roll_counts[0] + roll_counts[r - 1])


def challenge_outcome(claim_n: int, actual: int) -> tuple[str, int]:
    """Who loses how many dice when ``claim_n x r`` is challenged and ``actual`` dice count.

    Returns ("challenger", k) or ("claimant", k).
    """
    if actual > claim_n:
        return "challenger", actual - claim_n
    if actual < claim_n:
        return "claimant", claim_n - actual
    return "challenger", 1


def next_position(challenger_dice: int, claimant_dice: int, claim_n: int, actual: int):
    """Result of a challenge: (winner, next_opener_dice, next_other_dice) or a finished game.

    ``winner`` is "challenger" or "claimant" (the winner of the challenge opens the next round);
    the returned dice pair is (winner's dice, loser's dice); the loser's count <= 0 means the game
    is over and the winner of the challenge has won it.
    """
    loser, k = challenge_outcome(claim_n, actual)
    if loser == "challenger":
        return "claimant", claimant_dice, challenger_dice - k
    return "challenger", challenger_dice, claimant_dice - k


# ---------------------------------------------------------------------------------------------
# rolls

@lru_cache(maxsize=None)
def rolls(d: int) -> tuple[tuple[int, ...], ...]:
    """All rolls of ``d`` dice as sorted face tuples, in lexicographic order (= roll index)."""
    return tuple(itertools.combinations_with_replacement(range(1, FACES + 1), d))


def num_rolls(d: int) -> int:
    return comb(d + FACES - 1, FACES - 1)


@lru_cache(maxsize=None)
def _roll_index_map(d: int) -> dict:
    return {r: i for i, r in enumerate(rolls(d))}


def roll_index(roll) -> int:
    """Index of a roll (any order of faces) among ``rolls(len(roll))``."""
    t = tuple(sorted(int(f) for f in roll))
    return _roll_index_map(len(t))[t]


@lru_cache(maxsize=None)
def roll_arrays(d: int):
    """(probabilities[n_rolls], face_counts[n_rolls, 6], rank_counts[n_rolls, 6]) for d dice.

    ``rank_counts[i, r-1]`` is the number of dice counting for rank r (ones are wild).
    """
    rs = rolls(d)
    probs = np.empty(len(rs))
    fc = np.zeros((len(rs), FACES), dtype=np.int64)
    for i, r in enumerate(rs):
        for f in r:
            fc[i, f - 1] += 1
        m = factorial(d)
        for c in fc[i]:
            m //= factorial(int(c))
        probs[i] = m / FACES ** d
    rc = fc.copy()
    rc[:, 1:] += fc[:, :1]
    return probs, fc, rc
