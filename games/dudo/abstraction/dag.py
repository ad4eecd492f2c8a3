"""The abstract public DAG of a Dudo round and its terminal utilities.

A *group* is an unordered dice pair {a, b}.  Its abstract public nodes are (side, window):
the player to move holds ``dice[side]`` dice, the opponent ``dice[other[side]]``, and ``window``
is the remembered claims (``infoset.window_tables``).  A claim moves to (other side, new
window), Dudo ends the round.  Rounds (a, b) and (b, a) (opener's dice first) share the nodes
whose window holds ``m`` claims, so a group is trained as a whole; its roots are (side, empty
window) for every round that the game can reach (a round opened by a player with fewer than
``max_dice`` dice against ``max_dice`` dice cannot happen).  For a == b there is one side and
both seats share it.

Utilities are zero-sum in "+-1 units": u = 2 P - 1 where P is the mover's probability of
winning the *game* from the position the challenge leads to (``continuation`` gives the opener's
winning probability W(opener dice, other dice) of later rounds).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from games.dudo.abstraction.infoset import memory_size, num_windows, window_tables
from games.dudo.rules import MAX_DICE, claim_table, roll_arrays


def win_prob(W, opener: int, other: int) -> float:
    """Opener's game-winning probability; W[(a, b)] for live positions, 1/0 when someone is out."""
    if other <= 0:
        return 1.0
    if opener <= 0:
        return 0.0
    return float(W[(opener, other)])


def challenge_win_prob(W, challenger: int, claimant: int, claim_n: int, actual: int) -> float:
    """Challenger's game-winning probability after the challenge (section 1.1 outcomes)."""
    if actual > claim_n:        # challenger loses (actual - claim) dice, claimant opens
        return 1.0 - win_prob(W, claimant, challenger - (actual - claim_n))
    if actual < claim_n:        # claimant loses (claim - actual) dice, challenger opens
        return win_prob(W, challenger, claimant - (claim_n - actual))
    return 1.0 - win_prob(W, claimant, challenger - 1)  # exact: challenger loses one die


def round_reachable(opener: int, other: int, max_dice: int = MAX_DICE) -> bool:
    """Can a round start with these dice (opener first)?  Not if other == max > opener."""
    return not (other == max_dice and opener < max_dice)


@dataclass
class Group:
    dice: tuple            # dice per side (1 or 2 sides)
    m: int | None
    K: int
    NW: int
    last: np.ndarray
    wsize: np.ndarray
    act_off: np.ndarray
    child: np.ndarray
    order: np.ndarray      # windows in topological order (by last claim)
    claim_n: np.ndarray
    claim_r: np.ndarray
    ns: np.ndarray         # rolls per side
    oth: np.ndarray        # other side
    probs: np.ndarray      # (nsides, maxns)
    rc: np.ndarray         # (nsides, maxns, 6) dice counting for each rank
    root_w: np.ndarray     # weight of root (side, empty window)
    rbase: np.ndarray      # offset of each side's block in regret/strategy arrays
    nrows: int = 0
    terminal: np.ndarray = field(default=None)   # (nsides, K, D+1) challenger utility (+-1)

    @property
    def nsides(self):
        return len(self.dice)

    @property
    def D(self):
        return self.dice[0] + self.dice[-1]


def make_group(a: int, b: int, m: int | None = 3, W=None, max_dice: int = MAX_DICE,
               openers=None, split: bool = False) -> Group:
    """Build the DAG tables of group {a, b}; ``W`` holds the continuation values (needed if
    any challenge can leave both players with dice).  ``openers`` (dice counts) overrides which
    rounds are roots (default: every reachable round).  ``split`` gives equal dice two sides
    (side 0 = the opener's seat, the only root), for evaluating two different strategies or a
    seat's best response."""
    dice = (a,) if (a == b and not split) else (a, b)
    D = a + b
    K = 6 * D
    last, wsize, act_off, child = window_tables(K, m)
    order = np.argsort(last, kind="stable").astype(np.int64)
    ct = claim_table(D)
    claim_n = np.array([c[0] for c in ct], dtype=np.int64)
    claim_r = np.array([c[1] for c in ct], dtype=np.int64)
    nsides = len(dice)
    ns = np.array([roll_arrays(d)[0].size for d in dice], dtype=np.int64)
    oth = np.array([0] if nsides == 1 else [1, 0], dtype=np.int64)
    maxns = int(ns.max())
    probs = np.zeros((nsides, maxns))
    rc = np.zeros((nsides, maxns, 6), dtype=np.int64)
    for s, d in enumerate(dice):
        p, _, r = roll_arrays(d)
        probs[s, :p.size] = p
        rc[s, :p.size] = r
    if split and a == b:
        root_w = np.array([1.0, 0.0])
    elif openers is not None:
        root_w = np.array([1.0 if dice[s] in openers else 0.0 for s in range(nsides)])
    elif nsides == 1:
        root_w = np.array([1.0])
    else:
        root_w = np.array([1.0 if round_reachable(dice[s], dice[1 - s], max_dice) else 0.0
                           for s in range(2)])
    total_acts = int(act_off[-1])
    rbase = np.zeros(nsides + 1, dtype=np.int64)
    for s in range(nsides):
        rbase[s + 1] = rbase[s] + total_acts * ns[s]
    g = Group(dice, m, K, num_windows(K, m), last, wsize, act_off, child, order, claim_n,
              claim_r, ns, oth, probs, rc, root_w, rbase, int(rbase[-1]))
    g.terminal = terminal_table(g, W)
    return g


def terminal_table(g: Group, W) -> np.ndarray:
    """terminal[s, L, t]: utility (+-1) to the challenger on side s when claim L is challenged
    and t dice count for it."""
    T = np.zeros((g.nsides, g.K, g.D + 1))
    for s in range(g.nsides):
        ch, cl = g.dice[s], g.dice[g.oth[s]]
        for L in range(g.K):
            for t in range(g.D + 1):
                T[s, L, t] = 2.0 * challenge_win_prob(W or {}, ch, cl, int(g.claim_n[L]), t) - 1.0
    return T


class RollSampler:
    """One sampled pair of rolls per iteration (chance sampling of Alg. 1 and Alg. 2): player p
    holds side p's dice (both players side 0 when the dice counts are equal)."""

    def __init__(self, g: "Group", rng: np.random.Generator):
        self.rng = rng
        self.sides = [0, 1] if g.nsides == 2 else [0, 0]
        self.cdf = [np.cumsum(g.probs[s, :g.ns[s]]) for s in range(g.nsides)]

    def __call__(self) -> np.ndarray:
        out = np.empty(2, dtype=np.int64)
        for p in range(2):
            c = self.cdf[self.sides[p]]
            out[p] = min(int(np.searchsorted(c, self.rng.random() * c[-1], side="right")), c.size - 1)
        return out

