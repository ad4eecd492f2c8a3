"""An independent exact check of a Dudo policy: perfect-recall best responses and self-play values of
every round, written from the rules of Neller & Hnath (section 1.1) in plain Python and numpy.

Nothing here comes from the solvers, the DAG tables or ``exploit``: the claim order is derived from the
rules text (``claim_order``), rolls and dice counting are enumerated here, and the fixed player's play is
whatever a *policy* says at a full claim history: ``policy(own, opp, history) -> P`` with ``P[slot, roll]``
(slot 0 = Dudo, slot j = claim ``last + j``; rolls in ``rolls_of(own)`` order).  A store's served rows
(``stored_policy``) look the history up the way the server does; a served policy with endgame re-solving
is another such function.

The responder sees its roll and the whole claim history (perfect recall); the walk visits every claim
history of the round (``2**(6 D)`` of them: about a second at 3 dice in play, minutes at 4).  A round's
loser loses dice by the rules, the challenge's winner opens the next round, and the responder's value of
that next position is its best-response value there (``exact_figures`` works bottom-up: the responder keeps
best-responding in every later round), 1 / 0 where the game ends.
"""
from __future__ import annotations

import itertools
from math import factorial

import numpy as np

FACES = 6


# ------------------------------------------------------------------------------------------- rules

def claim_order(total_dice: int) -> list[tuple[int, int]]:
    """Every claim ``(n, r)`` in increasing strength, from the rules: a claim is stronger with more dice,
    or as many dice of a higher rank; ones are wild and count double, so ``k x 1`` comes immediately
    before ``2k x 2`` while ``2k`` dice can be in play, and the ones beyond that follow ``D x 6`` in
    order of their count."""
    plain = [(n, r) for n in range(1, total_dice + 1) for r in range(2, FACES + 1)]
    out = []
    for n, r in plain:
        if r == 2 and n % 2 == 0:
            out.append((n // 2, 1))          # k x 1 immediately precedes 2k x 2
        out.append((n, r))
    out += [(k, 1) for k in range(total_dice // 2 + 1, total_dice + 1)]
    return out


def rolls_of(d: int) -> list[tuple[int, ...]]:
    """Every roll of ``d`` dice as a sorted tuple of faces."""
    return list(itertools.combinations_with_replacement(range(1, FACES + 1), d))


def roll_probability(roll) -> float:
    """Chance of a sorted roll (multinomial over six equally likely faces)."""
    m = factorial(len(roll))
    for f in set(roll):
        m //= factorial(roll.count(f))
    return m / FACES ** len(roll)


def counting(roll, r: int) -> int:
    """Dice of ``roll`` that count for rank ``r``: the r's and, unless r is 1, the wild ones."""
    return sum(1 for f in roll if f == r or (f == 1 and r != 1))


def after_challenge(challenger: int, claimant: int, n: int, actual: int):
    """(challenger wins, next opener's dice, the other's dice) after ``n x r`` is challenged with
    ``actual`` dice counting: the loser loses the difference (one die, the challenger's, when exact);
    the winner opens.  A count of 0 dice ends the game."""
    if actual > n:
        return False, claimant, challenger - (actual - n)
    if actual < n:
        return True, challenger, claimant - (n - actual)
    return False, claimant, challenger - 1


# ------------------------------------------------------------------------------------------- walks

class _Round:
    """The round opened by ``opener`` dice against ``other`` dice: seats 0 (opener) and 1."""

    def __init__(self, opener: int, other: int):
        self.dice = (opener, other)
        self.D = opener + other
        self.claims = claim_order(self.D)
        self.K = len(self.claims)
        self.rolls = [rolls_of(d) for d in self.dice]
        self.prob = [np.array([roll_probability(r) for r in rs]) for rs in self.rolls]

    def counts(self, seat: int, L: int) -> np.ndarray:
        r = self.claims[L][1]
        return np.array([counting(x, r) for x in self.rolls[seat]])

    def payoff(self, challenger_seat: int, L: int, to_seat: int, value_of) -> np.ndarray:
        """[roll of seat 0, roll of seat 1] game-winning probability of ``to_seat`` when
        ``challenger_seat`` challenges claim ``L``; ``value_of(winner_seat, opener_dice, other_dice)``
        is ``to_seat``'s winning probability of the next round, opened by the challenge's winner."""
        n = self.claims[L][0]
        c0, c1 = self.counts(0, L), self.counts(1, L)
        ch, cl = self.dice[challenger_seat], self.dice[1 - challenger_seat]
        table = {}
        for t in range(self.D + 1):
            ch_wins, a, b = after_challenge(ch, cl, n, t)
            winner = challenger_seat if ch_wins else 1 - challenger_seat
            if b <= 0:
                table[t] = 1.0 if winner == to_seat else 0.0
            else:
                table[t] = value_of(winner, a, b)
        return np.vectorize(table.get, otypes=[float])(c0[:, None] + c1[None, :])


def best_response(opener: int, other: int, resp_seat: int, policy, resp_open: dict, resp_other: dict) -> float:
    """Game-winning probability of a perfect-recall best responder in ``resp_seat`` (0 = opener) of the
    round ``opener`` v ``other`` dice against ``policy`` in the other seat.  ``resp_open[(a, b)]``: the
    responder's winning probability when it opens a later round with a dice against b; ``resp_other[(a,
    b)]``: when the fixed player opens with a against the responder's b."""
    rd = _Round(opener, other)
    fix_seat = 1 - resp_seat
    own_fix, opp_fix = rd.dice[fix_seat], rd.dice[resp_seat]

    def value_of(winner, a, b):
        return resp_open[(a, b)] if winner == resp_seat else resp_other[(a, b)]

    # M[L]: [responder roll, fixed roll] responder's winning probability when the mover challenges L
    M_resp = [_oriented(rd.payoff(resp_seat, L, resp_seat, value_of), resp_seat) for L in range(rd.K)]
    M_fix = [_oriented(rd.payoff(fix_seat, L, resp_seat, value_of), resp_seat) for L in range(rd.K)]

    zero = np.zeros(len(rd.rolls[resp_seat]))

    def walk(hist: tuple, reach: np.ndarray) -> np.ndarray:
        """Responder's counterfactual values per roll below ``hist``: the sum over the fixed player's
        rolls of its ``reach`` (chance x its probabilities of its claims so far, not all zero) times the
        responder's winning probability."""
        L = hist[-1] if hist else -1
        if (len(hist) % 2 == 0) == (resp_seat == 0):        # the responder moves: its best action
            best = M_resp[L] @ reach if L >= 0 else None
            for c in range(L + 1, rd.K):
                v = walk(hist + (c,), reach)
                best = v if best is None else np.maximum(best, v)
            return best
        P = policy(own_fix, opp_fix, hist)
        total = M_fix[L] @ (reach * P[0]) if L >= 0 else zero
        for c in range(L + 1, rd.K):
            nxt = reach * P[c - L]
            if nxt.any():
                total = total + walk(hist + (c,), nxt)
        return total

    return float(rd.prob[resp_seat] @ walk((), rd.prob[fix_seat].copy()))


def self_play_value(opener: int, other: int, policy, W: dict) -> float:
    """The opener's game-winning probability when both seats play ``policy`` in this round and the
    later rounds are worth ``W[(a, b)]`` to their opener (1 / 0 where the game ends)."""
    rd = _Round(opener, other)

    def value_of(winner, a, b):      # to seat 0 (the opener of this round)
        w = W[(a, b)]
        return w if winner == 0 else 1.0 - w

    M = [[rd.payoff(s, L, 0, value_of) for L in range(rd.K)] for s in (0, 1)]

    def walk(hist: tuple, r0: np.ndarray, r1: np.ndarray) -> float:
        if not (r0.any() and r1.any()):
            return 0.0
        L = hist[-1] if hist else -1
        s = len(hist) % 2
        P = policy(rd.dice[s], rd.dice[1 - s], hist)
        v = 0.0
        if L >= 0:
            v = (r0 * P[0]) @ M[s][L] @ r1 if s == 0 else r0 @ M[s][L] @ (r1 * P[0])
        for c in range(L + 1, rd.K):
            if s == 0:
                v += walk(hist + (c,), r0 * P[c - L], r1)
            else:
                v += walk(hist + (c,), r0, r1 * P[c - L])
        return v

    return float(walk((), rd.prob[0].copy(), rd.prob[1].copy()))


def _oriented(M: np.ndarray, resp_seat: int) -> np.ndarray:
    """[seat 0 roll, seat 1 roll] as [responder roll, fixed roll]."""
    return M if resp_seat == 0 else M.T


# ------------------------------------------------------------------------------------------- game

def reachable_rounds(max_dice: int, max_total: int) -> list[tuple[int, int]]:
    """Rounds (opener dice, other dice) a game of ``max_dice`` a player can play, up to ``max_total``
    dice in play, fewest dice first: a player opens every round after the first by winning a challenge,
    so a round opened by fewer dice than ``max_dice`` against ``max_dice`` never happens."""
    out = []
    for D in range(2, max_total + 1):
        for a in range(max(1, D - max_dice), min(max_dice, D - 1) + 1):
            b = D - a
            if not (b == max_dice and a < max_dice):
                out.append((a, b))
    return out


def exact_figures(policy, max_dice: int, max_total: int, progress=None) -> dict:
    """{(opener, other): dict(value, br_opener, br_other, exploitability)} of every reachable round up to
    ``max_total`` dice in play, all in game-winning probability: the self-play value on the later rounds'
    self-play values, and each seat's exact perfect-recall best response on the later rounds' best
    responses (GetStats' ``exploitability`` sums both seats' gains)."""
    W, resp_open, resp_other, out = {}, {}, {}, {}
    for a, b in reachable_rounds(max_dice, max_total):
        value = self_play_value(a, b, policy, W)
        br_o = best_response(a, b, 0, policy, resp_open, resp_other)
        br_n = best_response(a, b, 1, policy, resp_open, resp_other)
        W[(a, b)], resp_open[(a, b)], resp_other[(a, b)] = value, br_o, br_n
        out[(a, b)] = dict(value=value, br_opener=br_o, br_other=br_n,
                           exploitability=(br_o - value) + (br_n - (1.0 - value)))
        if progress:
            progress(a, b, out[(a, b)])
    return out


# ------------------------------------------------------------------------------------------- policies

def table_policy(get_row):
    """A policy from a row reader ``get_row(own, opp, roll, history) -> (actions, probs)`` (actions as
    claim strengths, -1 = Dudo), each history's table built once."""
    cache = {}

    def policy(own, opp, hist):
        key = (own, opp, hist)
        P = cache.get(key)
        if P is None:
            K = 6 * (own + opp)
            last = hist[-1] if hist else -1
            rs = rolls_of(own)
            P = np.zeros((K - last, len(rs)))
            for x, roll in enumerate(rs):
                actions, probs = get_row(own, opp, roll, list(hist))
                for act, p in zip(actions, probs):
                    P[0 if act < 0 else int(act) - last, x] = p
            cache[key] = P
        return P

    return policy


def stored_policy(get, memories: dict, window_of):
    """The rows a store serves: ``get(key)`` reads its ``windows`` database, ``memories`` its {(a, b): m}
    and ``window_of(history, K, m)`` gives the window index a history reaches (the server's lookup,
    ``infoset.history_window``).  The table of a window is decoded once and shared by every history
    that reaches it; with a plain memory of m claims the window is known from the last m claims."""
    from games.quantise import UNIT
    from games.dudo.store import decode_window_row, window_key
    tables, by_claims = {}, {}

    def policy(own, opp, hist):
        m = memories[(min(own, opp), max(own, opp))]
        short = (own, opp, hist if m is None else hist[-m:]) if isinstance(m, int) or m is None else None
        P = by_claims.get(short) if short is not None else None
        if P is not None:
            return P
        K = 6 * (own + opp)
        key = window_key(own, opp, window_of(list(hist), K, m))
        last = hist[-1] if hist else -1
        P = tables.get((key, last))
        if P is None:
            raw = get(key)
            if raw is None:
                raise KeyError(f"no stored window for {own} v {opp} dice after {list(hist)}")
            n = len(rolls_of(own))
            P = np.zeros((K - last, n))
            for x in range(n):
                actions, units = decode_window_row(raw, x, n, last)
                for act, u in zip(actions, units):
                    P[0 if act < 0 else int(act) - last, x] = u / UNIT
            tables[(key, last)] = P
        if short is not None:
            by_claims[short] = P
        return P

    return policy
