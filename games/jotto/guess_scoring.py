"""Review of a finished Jotto game of the guesser's: every test word valued in expected guesses
(docs/review.md).

At the state S (the words consistent with the earlier test words and their jots), against secret weights
w on S (the served hider's distribution restricted to S, and separately uniform over S):

* the value of a test word g is the expected number of guesses from S on, g included, when the guesser
  plays g and then continues optimally: ``(W(S) + sum_a V(S_a)) / W(S)`` with S_a the words of S other than
  g that give g ``a`` jots and V the continuation's (unnormalised) expected guesses;
* the continuation is **exact** (``exact.ExactSolver``: the optimal decision tree) when S has at most
  ``EXACT_WORDS`` words and the search ends within ``EXACT_NODES`` states; the best test word is then the
  optimal one over the whole dictionary. Otherwise it is the **greedy** GBR oracle's tree
  (``kernels.tree_cost``), and the best test word the best of the ``WIDTH`` test words the oracle scores
  highest and the word played (the rollout guesser's choice);
* a hider that gives S no weight is replaced by uniform over S; the loss is in guesses against the served
  hider's weights.

Computed with ``ExactSolver.value`` (not ``solve``, whose tree over the whole dictionary took a minute a call
on 5 letters) and ``guess_scoring_memo`` (the greedy trees memoised by set, GBR's choice for all test words in
one pass); the valuers are kept by a live worker from review to review (``Valuer``). docs/review.md.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from games.jotto import guess_scoring_memo, kernels
from games.jotto.exact import ExactSolver
from games.jotto.oracle import GBR, JottoOracle, state_key

THRESHOLDS = (("blunder", 1.0), ("mistake", 0.5), ("inaccuracy", 0.2))  # in expected guesses
EXACT_WORDS = 12  # exact search at 21 words took 1.2 s on 2 letters, 16 words kept reviews at 5 s
# (bench.review_latency); on 5 letters 13-22 words took up to 2.2 s a search, 36 words 54 s (docs/review.md)
EXACT_NODES = 50_000
WIDTH = 16
MAX_TURNS = 64


class TranscriptError(ValueError):
    """An illegal transcript; the message names the first bad move."""


@dataclass
class Turn:
    word: int
    jots: int
    wins: bool  # the winning guess (the secret itself)


@dataclass
class JottoMoveReview:
    index: int
    move: str
    best_move: str
    value: float            # expected guesses from the state on with the played word first (served hider)
    best_value: float
    value_uniform: float    # the same against uniform over the consistent words
    best_value_uniform: float
    best_move_uniform: str
    loss: float
    words_before: int
    words_after: int
    continuation: str       # "exact" | "greedy"
    label: str
    alternatives: list      # [(word, value)] best first (served hider), at most 8


def label(loss: float, thresholds=THRESHOLDS) -> str:
    for nm, t in thresholds:
        if loss >= t - 1e-9:
            return nm
    return ""


def parse_turns(oracle: JottoOracle, turns: list[tuple[str, int]], secret: str = "") -> list[Turn]:
    """Checked turns; TranscriptError naming the first bad one. A turn is a test word that was not the
    secret, except the last when it is the secret (``secret`` given), or, without a secret, when it got all
    L jots and is still consistent (taken as the winning guess)."""
    d, L = oracle.dictionary, oracle.L
    if not turns:
        raise TranscriptError("the transcript has no test word")
    if len(turns) > MAX_TURNS:
        raise TranscriptError(f"the transcript has {len(turns)} test words; at most {MAX_TURNS}")
    sec = None
    if secret:
        try:
            sec = d.index(secret.strip().lower())
        except KeyError:
            raise TranscriptError(f"the secret {secret!r} is not a word of {d.variant.name}") from None
    mask = np.ones(oracle.D, dtype=bool)
    out, seen = [], set()
    for k, (word, jots) in enumerate(turns):
        bad = f"test word {k + 1} ({word!r}, {jots} jots)"
        try:
            g = d.index(str(word).strip().lower())
        except KeyError:
            raise TranscriptError(f"{bad}: not a word of {d.variant.name}") from None
        if g in seen:
            raise TranscriptError(f"{bad}: already guessed")
        if not 0 <= int(jots) <= L:
            raise TranscriptError(f"{bad}: jots are 0..{L}")
        if sec is not None and int(oracle.C[g, sec]) != int(jots):
            raise TranscriptError(f"{bad}: the secret {d.words[sec]!r} gives it {int(oracle.C[g, sec])} jots")
        wins = (g == sec) if sec is not None else (int(jots) == L and bool(mask[g]) and k == len(turns) - 1)
        if wins and k != len(turns) - 1:
            raise TranscriptError(f"{bad}: it is the secret, so the game ended there")
        if not mask[g] and wins:
            raise TranscriptError(f"{bad}: the secret is not consistent with the earlier jots")
        if not wins:
            mask &= oracle.C[g] == int(jots)
            mask[g] = False
            if not mask.any():
                raise TranscriptError(f"{bad}: no word of {d.variant.name} gives these jots with the earlier test words")
        seen.add(g)
        out.append(Turn(g, int(jots), wins))
    return out


class Valuer:
    """Expected guesses of test words at states, against one weight vector. Kept by a live worker from one
    review to the next (``review_from_store``), so what it remembers is bounded (``new_review``):

    * the greedy continuation's tree costs by set (``guess_scoring_memo.memo_cost``: the same trees as
      ``kernels.tree_cost``'s), the exact continuation's values by set;
    * per state, the candidates' values other than the played word's (``bases``): every game starts at the
      whole dictionary, so its 16 candidates are valued once per worker, not once per review.

    Every value is the one the direct computation gives (tests/games/test_jotto_guess_scoring_memo.py)."""

    MEMO_ENTRIES = 400_000   # tree costs kept per valuer (about 100 bytes each, measured: 40 MB)
    EXACT_ENTRIES = 100_000
    STATES = 20_000

    def __init__(self, oracle: JottoOracle, w: np.ndarray, solver: ExactSolver | None = None):
        self.o, self.w = oracle, np.ascontiguousarray(w, dtype=np.float64)
        self.solver = solver or ExactSolver(oracle.C, oracle.L)  # keeps nothing from one search to the next
        self.cand = oracle.candidates(GBR)
        self.k1, self.k2 = guess_scoring_memo.zobrist(oracle.D)
        self.memo = guess_scoring_memo.new_memo()       # greedy cost(T) against self.w
        self.memo_flat = guess_scoring_memo.new_memo()  # ... against uniform (states self.w gives no weight)
        self.exact_memo: dict = {}                   # (flat, T's bytes) -> exact unnormalised value
        self.bases: dict = {}                        # (kind, state key) -> {candidate: value}, or None
        self.stats = np.zeros(2, dtype=np.int64)     # greedy tree nodes walked, memo hits

    def new_review(self) -> None:
        """Called before each review: forgets what has grown past its bound."""
        if len(self.memo) + len(self.memo_flat) > self.MEMO_ENTRIES:
            self.memo, self.memo_flat = guess_scoring_memo.new_memo(), guess_scoring_memo.new_memo()
        if len(self.exact_memo) > self.EXACT_ENTRIES:
            self.exact_memo = {}
        if len(self.bases) > self.STATES:
            self.bases = {}

    def weights_on(self, S: np.ndarray) -> np.ndarray:
        w = np.zeros(self.o.D)
        w[S] = self.w[S]
        if w.sum() <= 0:
            w[S] = 1.0
        return w

    def _flat(self, S: np.ndarray) -> bool:
        return not float(self.w[S].sum()) > 0

    def exact(self, T: np.ndarray, w: np.ndarray, flat: bool = False) -> float | None:
        """Unnormalised optimal expected guesses from T (weights w), None if the search is too large."""
        WT = float(w[T].sum())
        if T.size == 0 or WT <= 0:
            return 0.0
        key = (flat, T.tobytes())
        if key not in self.exact_memo:
            h = np.zeros(self.o.D)
            h[T] = w[T]
            r = self.solver.value(h, max_nodes=EXACT_NODES)
            self.exact_memo[key] = None if r is None else r[0] * WT
        return self.exact_memo[key]

    def greedy(self, S: np.ndarray, words, w: np.ndarray, flat: bool = False) -> np.ndarray:
        """The greedy continuation's unnormalised value of each test word of `words` at S (W(S) + the
        oracle trees' costs of its answers' sets)."""
        return guess_scoring_memo.greedy_after(self.o.C, self.o.counts, np.ascontiguousarray(S, dtype=np.int32),
                                           np.asarray(words, dtype=np.int32), w, self.cand, self.o.L, GBR,
                                           self.k1, self.k2, self.memo_flat if flat else self.memo, self.stats)

    def children(self, S: np.ndarray, g: int):
        row = self.o.C[g]
        rest = S[S != g]
        return [rest[row[rest] == a] for a in range(self.o.L + 1)]

    def after_exact(self, S: np.ndarray, g: int, w: np.ndarray, flat: bool = False) -> float | None:
        W = float(w[S].sum())
        tot = W
        for T in self.children(S, g):
            if T.size:
                v = self.exact(T, w, flat)
                if v is None:
                    return None
                tot += v
        return tot / W

    def _base(self, kind: str, S: np.ndarray, w: np.ndarray, flat: bool):
        """The candidates' values at S but the played word's: exact, the optimal first word's (None if the
        search is too large); greedy, those of the WIDTH words rollout_picks ranks first."""
        key = (kind, flat, state_key(self.o.D, S))
        if key in self.bases:
            return self.bases[key]
        if kind == "exact":
            h = np.zeros(self.o.D)
            h[S] = w[S]
            r = self.solver.value(h, max_nodes=EXACT_NODES)
            v = None if r is None else self.after_exact(S, r[1], w, flat)
            base = None if v is None else {r[1]: v}
        else:
            in_S = np.zeros(self.o.D, dtype=np.bool_)
            in_S[S] = True
            Si = np.ascontiguousarray(S, dtype=np.int32)
            picks = kernels.rollout_picks(self.o.C, self.o.counts, Si, in_S, w, self.cand, self.o.L, GBR, WIDTH)
            words = list(dict.fromkeys(int(x) for x in picks))
            W = float(w[S].sum())
            base = {g: float(v) / W for g, v in zip(words, self.greedy(Si, words, w, flat))}
        self.bases[key] = base
        return base

    def state(self, S: np.ndarray, played: int):
        """(continuation kind, {word: value}) at state S: the played word's and the candidates' values."""
        w = self.weights_on(S)
        flat = self._flat(S)
        if S.size <= EXACT_WORDS:
            base = self._base("exact", S, w, flat)
            if base is not None:
                v = base[played] if played in base else self.after_exact(S, played, w, flat)
                if v is not None:
                    return "exact", {played: v, **base}
        base = self._base("greedy", S, w, flat)
        if played in base:
            return "greedy", {played: base[played], **base}
        v = float(self.greedy(np.ascontiguousarray(S, dtype=np.int32), [played], w, flat)[0]) / float(w[S].sum())
        return "greedy", {played: v, **base}


def _uniform_on(w: np.ndarray, S: np.ndarray) -> bool:
    """The weights are the same positive number on every word of S (then a valuer against them values
    every test word at S as the uniform one does: the oracle's choices and the normalised costs do not
    depend on the weights' scale)."""
    x = w[S]
    return bool(x[0] > 0 and (x == x[0]).all())


def review_turns(oracle: JottoOracle, hider: np.ndarray, turns: list[Turn],
                 valuers: tuple[Valuer, Valuer] | None = None) -> list[JottoMoveReview]:
    """The review of a guesser's game; ``valuers``: (served, uniform) Valuers against ``hider`` and uniform
    weights kept from earlier reviews (None: new ones)."""
    if valuers is None:
        solver = ExactSolver(oracle.C, oracle.L)
        valuers = Valuer(oracle, hider, solver), Valuer(oracle, np.ones(oracle.D), solver)
    served, uniform = valuers
    served.new_review()
    uniform.new_review()
    words = oracle.dictionary.words
    mask = np.ones(oracle.D, dtype=bool)
    out = []
    for k, t in enumerate(turns):
        S = np.flatnonzero(mask).astype(np.int32)
        kind_u, vals_u = uniform.state(S, t.word)
        if _uniform_on(served.w, S) or not float(served.w[S].sum()) > 0:
            kind, vals = kind_u, vals_u  # the served valuer's weights on S are uniform's
        else:
            kind, vals = served.state(S, t.word)
        best = min(vals, key=lambda g: (vals[g], g != t.word))
        best_u = min(vals_u, key=lambda g: (vals_u[g], g != t.word))
        loss = max(0.0, vals[t.word] - vals[best])
        if not t.wins:
            mask &= oracle.C[t.word] == t.jots
            mask[t.word] = False
        alts = sorted(vals.items(), key=lambda kv: (kv[1], kv[0]))[:8]
        out.append(JottoMoveReview(
            k, words[t.word], words[best], vals[t.word], vals[best], vals_u[t.word], vals_u[best_u], words[best_u],
            loss, int(S.size), 0 if t.wins else int(mask.sum()),
            kind if kind == kind_u else f"{kind} (served hider), {kind_u} (uniform)", label(loss),
            [(words[g], v) for g, v in alts]))
    return out


def summary(moves) -> tuple[float, list[int]]:
    if not moves:
        return 100.0, []
    acc = float(np.mean([100.0 * max(0.0, 1.0 - m.loss / THRESHOLDS[0][1]) for m in moves]))
    order = sorted(range(len(moves)), key=lambda i: (-moves[i].loss, i))
    return acc, [i for i in order[:3] if moves[i].loss > 0]


# ------------------------------------------------------------------ the live pool's task

_OPEN: dict = {}
_VALUERS: OrderedDict = OrderedDict()  # (store, strategy; "" for uniform weights) -> Valuer, kept between reviews
VALUERS_KEPT = 4  # at most about 50 MB each (Valuer's bounds)


def review_from_store(store_path: str, strategy: str, turns: list, secret: str = "") -> dict:
    """Plain arguments in, plain data out (run in the server's live pool): the review of a guesser's game
    against the store's hider of ``strategy`` ("" = the served one)."""
    from pathlib import Path

    from games.jotto.dictionary import Variant, dictionary_from_words
    from games.jotto.store import COMMON, read_strategies
    from games.storage import Store
    key = str(Path(store_path).resolve())
    if key not in _OPEN:
        store = Store(Path(store_path))
        m = store.manifest
        d = dictionary_from_words(Variant.parse(m["variant"]), list(m["words"]), common=store.array(COMMON))
        _OPEN[key] = (store, JottoOracle(d), read_strategies(store))
    store, oracle, strategies = _OPEN[key]
    s = strategies[strategy or store.manifest["served"]]
    parsed = parse_turns(oracle, [(w, j) for w, j in turns], secret)
    if (key, "") not in _VALUERS:
        _VALUERS[(key, "")] = Valuer(oracle, np.ones(oracle.D))
    if (key, s.name) not in _VALUERS:
        _VALUERS[(key, s.name)] = Valuer(oracle, s.hider, _VALUERS[(key, "")].solver)
    _VALUERS.move_to_end((key, ""))
    _VALUERS.move_to_end((key, s.name))
    while len(_VALUERS) > VALUERS_KEPT:  # the least recently used (an older store version's, say) go
        _VALUERS.popitem(last=False)
    moves = review_turns(oracle, s.hider, parsed, (_VALUERS[(key, s.name)], _VALUERS[(key, "")]))
    acc, top = summary(moves)
    return dict(moves=[m.__dict__ for m in moves], accuracy=acc, costliest=top)
