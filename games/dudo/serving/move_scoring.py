"""Review of a finished Dudo game against a stored strategy: every move of the reviewed player valued
in game-winning probability (docs/review.md).

At each of the reviewed player's decisions (own roll ``x``, the round's claim history ``h``):

* the opponent's range is Bayes over its rolls ``y``: prior(y) times the stored strategy's probability of
  each of the opponent's claims in ``h`` with roll ``y`` (at the window that claim's history reached);
  where every roll gives the history probability zero (it left the strategy's support) the prior is used;
* the value of an action (Dudo, or any legal claim) is its expected game-winning probability for the
  reviewed player over that range, both players following the stored strategy for the rest of the round,
  a challenge leading to the next round's continuation value ``W[(opener, other)]`` (the store's round
  values, ``endgame_store.store_W``), 1 or 0 when a player is out;
* the win probability before the move is the strategy's own mix of those values, after it the played
  action's value; the loss is the best action's value minus the played one's.

The strategy whose probabilities a decision shows (the move's probability, the mix before it, the alternatives'
and the tie-break between equal values) is the served one: in a game played under strategy ``search``, at a
decision the server searches, the searched policy's (``searched_probabilities``); elsewhere the stored rows'.
The range and the rest of the round stay the stored rows'.

The rest of a round is valued by dynamic programming over the strategy's abstract states (mover, window
index): the stored strategy depends on the history only through its window, so one vector over the
opponent's rolls per state suffices.  ``max_nodes`` caps the states a round may visit.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from games.dudo.abstraction.dag import challenge_win_prob, win_prob
from games.dudo.abstraction.infoset import history_window
from games.dudo.rules import (RuleError, action_name, check_dice, check_roll, claim_strengths, claim_table, count_for,
                    roll_arrays, roll_index)
from games.dudo.policy.served import ROWS, SEARCH
from games.dudo.store import decode_window, store_memories, window_key

# loss thresholds in game-winning probability (docs/review.md)
THRESHOLDS = (("blunder", 0.20), ("mistake", 0.08), ("inaccuracy", 0.03))
MAX_NODES = 400_000


class TranscriptError(ValueError):
    """An illegal transcript; the message names the first bad move."""


class TooLarge(RuntimeError):
    pass


def label(loss: float, thresholds=THRESHOLDS) -> str:
    for name, t in thresholds:
        if loss >= t - 1e-12:
            return name
    return ""


def move_accuracy(loss: float, thresholds=THRESHOLDS) -> float:
    """100 for a loss of zero, falling linearly to 0 at the blunder threshold (docs/review.md)."""
    return 100.0 * max(0.0, 1.0 - loss / thresholds[0][1])


@dataclass
class Round:
    own: int                 # the reviewed player's dice
    opp: int
    roll: tuple              # the reviewed player's faces
    opp_roll: tuple | None   # the opponent's, when known
    opened: bool             # the reviewed player made the round's first claim
    claims: list             # [(n, r)] in order
    challenged: bool         # the player after the last claimant called Dudo (False: the round is unfinished)


class StoreTables:
    """A Dudo store's rows read by window: ``table(own, opp, history)`` is the [action slot, roll] array of
    probabilities (slot 0 = Dudo, slot j = claim last + j) of the player with ``own`` dice, cached."""

    def __init__(self, get, memories: dict, cache_limit: int = 200_000):
        self.get, self.memories, self.cache, self.limit = get, memories, {}, cache_limit

    @classmethod
    def of_store(cls, store):
        return cls(lambda key: store.get("windows", key), store_memories(store.manifest))

    def window(self, own: int, opp: int, history) -> int:
        return history_window(history, 6 * (own + opp), self.memories[(min(own, opp), max(own, opp))])

    def table(self, own: int, opp: int, history, w: int | None = None) -> np.ndarray:
        K = 6 * (own + opp)
        if w is None:
            w = self.window(own, opp, history)
        key = (own, opp, w)
        t = self.cache.get(key)
        if t is None:
            last = history[-1] if len(history) else -1
            n = roll_arrays(own)[0].size
            raw = self.get(window_key(own, opp, w))
            if raw is None:
                raise KeyError(f"no stored window for {own} v {opp} dice after {list(history)}")
            flat = np.zeros((K - last) * n)
            decode_window(np.frombuffer(raw, dtype=np.uint8).astype(np.int64), n, flat, 0, 1 << 16)
            t = flat.reshape(K - last, n)
            if len(self.cache) >= self.limit:
                self.cache.clear()
            self.cache[key] = t
        return t


class RoundValues:
    """Values (reviewed player's game-winning probability) of the rest of one round, as vectors over the
    opponent's rolls, with the reviewed player's roll fixed."""

    def __init__(self, tables: StoreTables, W: dict, own: int, opp: int, roll, max_nodes: int = MAX_NODES):
        self.t, self.W, self.own, self.opp = tables, W, own, opp
        self.D, self.K = own + opp, 6 * (own + opp)
        self.x = roll_index(roll)
        self.ct = claim_table(self.D)
        mine = roll_arrays(own)[2][self.x]
        self.opp_rc = roll_arrays(opp)[2]
        self.mine = mine
        self.memo: dict = {}
        self.max_nodes = max_nodes
        # challenge values per (claim, dice counting), for the reviewed player challenging / being challenged
        D = self.D
        self._ch_me = np.array([[challenge_win_prob(W, own, opp, n, t) for t in range(D + 1)] for n, _ in self.ct])
        self._ch_opp = np.array([[1.0 - challenge_win_prob(W, opp, own, n, t) for t in range(D + 1)]
                                 for n, _ in self.ct])

    def actual(self, L: int) -> np.ndarray:
        r = self.ct[L][1]
        return self.mine[r - 1] + self.opp_rc[:, r - 1]

    def challenge(self, L: int, me_challenges: bool) -> np.ndarray:
        return (self._ch_me if me_challenges else self._ch_opp)[L][self.actual(L)]

    def node(self, hist: tuple, me: bool) -> np.ndarray:
        """Value vector at ``hist`` with the reviewed player (``me``) or the opponent to move."""
        mover, other = (self.own, self.opp) if me else (self.opp, self.own)
        w = self.t.window(mover, other, hist)
        key = (me, w)
        v = self.memo.get(key)
        if v is not None:
            return v
        if len(self.memo) >= self.max_nodes:
            raise TooLarge(f"the rest of the round visits more than {self.max_nodes} states")
        tab = self.t.table(mover, other, hist, w)
        v = np.zeros(self.opp_rc.shape[0])
        if me:
            p = tab[:, self.x]
            for j in np.flatnonzero(p > 0):
                v += p[j] * self.child(hist, int(j), True)
        else:
            for j in np.flatnonzero(tab.any(axis=1)):
                v += tab[j] * self.child(hist, int(j), False)
        self.memo[key] = v
        return v

    def child(self, hist: tuple, j: int, me: bool) -> np.ndarray:
        last = hist[-1] if hist else -1
        if j == 0:
            return self.challenge(last, me)
        return self.node(hist + (last + j,), not me)


def opponent_range(tables: StoreTables, own: int, opp: int, hist, opened: bool) -> tuple[np.ndarray, bool]:
    """(posterior over the opponent's rolls, on_support): prior times the stored strategy's probability of the
    opponent's claims in ``hist``; the prior (on_support False) where every roll gives them probability 0."""
    prior = roll_arrays(opp)[0]
    reach = prior.copy()
    for k, c in enumerate(hist):
        mine = (k % 2 == 0) == opened
        if mine:
            continue
        h = tuple(hist[:k])
        last = h[-1] if h else -1
        reach = reach * tables.table(opp, own, h)[c - last]
    tot = float(reach.sum())
    if tot > 0:
        return reach / tot, True
    return prior.copy(), False


@dataclass
class MoveReview:
    round: int
    index: int               # the move's position among the round's moves (claims, then the challenge)
    move: str
    best_move: str
    probability: float
    value: float
    best_value: float
    loss: float
    before: float
    after: float
    label: str
    on_support: bool
    alternatives: list = field(default_factory=list)  # [(move, value, probability)], best first
    policy: str = ROWS       # whose probabilities: the stored rows', the searched policy's, or why not the served one


def decision(tables: StoreTables, W: dict, rnd: Round, hist: tuple, action: int,
             max_nodes: int = MAX_NODES, rv: RoundValues | None = None, sigma=None) -> MoveReview:
    """One reviewed decision: ``action`` (-1 = Dudo) at ``hist`` (claim strengths) of ``rnd``; ``sigma``: the
    probabilities of the reviewed player's actions by slot (None: the stored rows')."""
    own, opp = rnd.own, rnd.opp
    rv = rv or RoundValues(tables, W, own, opp, rnd.roll, max_nodes)
    post, on_support = opponent_range(tables, own, opp, hist, rnd.opened)
    last = hist[-1] if hist else -1
    if sigma is None:
        sigma = tables.table(own, opp, hist)[:, rv.x]
    vals = {}
    for j in range(0 if hist else 1, rv.K - last):
        vals[j] = float(post @ rv.child(hist, j, True))
    jp = 0 if action < 0 else action - last
    best_j = max(vals, key=lambda j: (vals[j], sigma[j]))
    before = float(sum(sigma[j] * vals[j] for j in vals))
    loss = max(0.0, vals[best_j] - vals[jp])
    D = own + opp
    alts = sorted(((action_name(-1 if j == 0 else last + j, D), vals[j], float(sigma[j])) for j in vals),
                  key=lambda a: (-a[1], -a[2]))
    return MoveReview(0, 0, action_name(action, D), action_name(-1 if best_j == 0 else last + best_j, D), float(sigma[jp]),
                      vals[jp], vals[best_j], loss, before, vals[jp], label(loss), on_support, alts)


def parse_rounds(rounds: list[dict], max_dice: int) -> list[Round]:
    """Checked rounds from plain dicts (keys own, opp, roll, opp_roll, opened, claims, challenged);
    TranscriptError naming the first bad move."""
    if not rounds:
        raise TranscriptError("the transcript has no round")
    out = []
    for i, r in enumerate(rounds):
        where = f"round {i + 1}"
        own, opp = int(r["own"]), int(r["opp"])
        roll = tuple(int(f) for f in r["roll"])
        opp_roll = tuple(int(f) for f in r["opp_roll"]) if r.get("opp_roll") else None
        D = own + opp

        def claim_at(k, n, face, opened=bool(r["opened"]), where=where):
            who = "your" if (k % 2 == 0) == opened else "the opponent's"
            return f"{where}, move {k + 1} ({who} claim {n}x{face})"
        try:
            for nm, d in (("own_dice", own), ("opponent_dice", opp)):
                check_dice(nm, d)
                if d > max_dice:
                    raise RuleError(f"{nm} is {d}; the variant's store holds rounds of at most {max_dice} dice a player")
            check_roll("roll", roll, own)
            if opp_roll is not None:
                check_roll("opponent_roll", opp_roll, opp)
        except RuleError as e:
            raise TranscriptError(f"{where}: {e}") from None
        try:
            hist = claim_strengths(r["claims"], D, claim_at)
        except RuleError as e:
            raise TranscriptError(str(e)) from None
        challenged = bool(r.get("challenged", True))
        if challenged and not hist:
            raise TranscriptError(f"{where}, move 1: Dudo before any claim (the opener must claim)")
        if not challenged and i != len(rounds) - 1:
            raise TranscriptError(f"{where}: only the last round may end without a challenge")
        out.append(Round(own, opp, tuple(sorted(roll)), tuple(sorted(opp_roll)) if opp_roll else None,
                         bool(r["opened"]), list(zip(hist, [c for c in r["claims"]])), challenged))
        # the challenge's outcome against the next round's dice (and the rolls, when both are known)
        if challenged and i + 1 < len(rounds):
            nxt = rounds[i + 1]
            n_own, n_opp = int(nxt["own"]), int(nxt["opp"])
            you_claimed_last = (len(hist) % 2 == 1) == bool(r["opened"])
            lost_own, lost_opp = own - n_own, opp - n_opp
            ok = (lost_own >= 1 and lost_opp == 0) or (lost_opp >= 1 and lost_own == 0)
            if ok:
                you_lost = lost_own >= 1
                if bool(nxt["opened"]) == you_lost:
                    raise TranscriptError(f"round {i + 2}: the winner of round {i + 1}'s challenge opens it")
                if opp_roll is not None:
                    cn, cr = claim_table(D)[hist[-1]]
                    actual = count_for(np.bincount(roll + opp_roll, minlength=7)[1:], cr)
                    challenger_lost = actual >= cn
                    loser_is_you = challenger_lost == (not you_claimed_last)
                    k = actual - cn if actual > cn else (cn - actual if actual < cn else 1)
                    if loser_is_you != you_lost or (lost_own if you_lost else lost_opp) != k:
                        ok = False
            if not ok:
                raise TranscriptError(f"round {i + 2}: its dice ({n_own} v {n_opp}) are not what round {i + 1}'s "
                                      f"challenge leaves")
    return out


def review_rounds(tables: StoreTables, W: dict, rounds: list[Round], max_nodes: int = MAX_NODES,
                  searched=None) -> list[MoveReview]:
    """Every reviewed player's decision of the game, in order; ``searched``: ``(round, history) -> (sigma or None,
    policy label)`` for a game played under strategy ``search`` (``searched_probabilities``), else the stored
    rows' probabilities."""
    out = []
    for i, rnd in enumerate(rounds):
        rv = RoundValues(tables, W, rnd.own, rnd.opp, rnd.roll, max_nodes)
        hist: tuple = ()
        moves = [s for s, _ in rnd.claims] + ([-1] if rnd.challenged else [])
        for k, a in enumerate(moves):
            mine = (k % 2 == 0) == rnd.opened
            if mine:
                sigma, policy = (None, ROWS) if searched is None else searched(rnd, hist)
                m = decision(tables, W, rnd, hist, a, max_nodes, rv, sigma)
                m.round, m.index, m.policy = i, k, policy
                out.append(m)
            if a >= 0:
                hist = hist + (a,)
    return out


def summary(moves, thresholds=THRESHOLDS) -> tuple[float, list[int]]:
    """(accuracy: the mean of ``move_accuracy``, indices of the three costliest moves with a loss > 0)."""
    if not moves:
        return 100.0, []
    acc = float(np.mean([move_accuracy(m.loss, thresholds) for m in moves]))
    order = sorted(range(len(moves)), key=lambda i: (-moves[i].loss, i))
    return acc, [i for i in order[:3] if moves[i].loss > 0]


# ------------------------------------------------------------------ the live pool's task

_OPEN: dict = {}


def review_from_store(store_path: str, rounds: list[dict], max_nodes: int = MAX_NODES,
                      search_until: float | None = None, search_scale: float = 1.0) -> dict:
    """Plain arguments in, plain data out (the server's live pool runs it in a worker process): the review
    of ``rounds`` (``parse_rounds``'s dicts) against the store at ``store_path``: of a game played under strategy
    ``search`` when ``search_until`` (monotonic clock) says until when its decisions may be searched
    (``searched_probabilities``; ``search_scale``: the server's estimate scale), else under the stored rows
    (``fsicfr``)."""
    from pathlib import Path

    from games.storage import Store
    from games.dudo.serving.endgame_store import store_W
    key = str(Path(store_path).resolve())
    if key not in _OPEN:
        store = Store(Path(store_path))
        _OPEN[key] = (store, StoreTables.of_store(store), store_W(store.manifest))
    store, tables, W = _OPEN[key]
    parsed = parse_rounds(rounds, int(store.manifest["parameters"]["max_dice"]))
    searched = None
    if search_until is not None:
        from games.dudo.serving.searched_probabilities import SearchedProbabilities
        searched = SearchedProbabilities(key, store.manifest, search_until, search_scale)
    try:
        moves = review_rounds(tables, W, parsed, max_nodes, searched)
    except TooLarge as e:  # the server answers FAILED_PRECONDITION with this
        return dict(too_large=f"reviewing this game: {e}")
    acc, top = summary(moves)
    return dict(moves=[m.__dict__ for m in moves], accuracy=acc, costliest=top,
                rounds=[round_start(W, r) for r in parsed], strategy=ROWS if searched is None else SEARCH)


def round_start(W: dict, r: Round) -> float:
    """The reviewed player's game-winning probability at the round's start (before the rolls)."""
    return win_prob(W, r.own, r.opp) if r.opened else 1.0 - win_prob(W, r.opp, r.own)
