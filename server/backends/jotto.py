"""Answers Jotto requests from one store: book lookups, live oracle moves, validation."""
from __future__ import annotations

import bisect
import threading
import time
from collections import OrderedDict

import numpy as np

from games.jotto.dictionary import Variant, dictionary_from_words
from games.jotto.oracle import JottoOracle, state_key
from games.jotto.guess_scoring import TranscriptError, parse_turns, review_from_store
from games.jotto.store import COMMON, JottoManifest, book_moves, read_strategies
from games.jotto.strategy import GuesserStrategy
from games.seeding import seeded_uniform
from games.storage import Store, StoreError, check_manifest
from protos import gamestrategy_pb2 as pb
from server.backends import BadRequest, DeadlineExceeded, MoveResult, quote
from server.backends import figures
from server.live import NO_LIVE, Cost, LiveCall, Refused

GUESSER, HIDER = pb.JottoState.GUESSER, pb.JottoState.HIDER


def draw(cum: list[float], u: float) -> int:
    """The index a uniform `u` in [0, 1) picks from cumulative weights: the same as
    GuesserStrategy.member_for_seed / hider_word (np.searchsorted side="right" on the same doubles), but
    on a Python list with bisect. numpy's searchsorted releases the GIL, and on a server with busy threads
    getting it back cost about 15 us a call; bisect never lets go of it."""
    return min(bisect.bisect_right(cum, u * cum[-1]), len(cum) - 1)
MAX_HISTORY = 64
REVIEW_SECONDS = 0.2  # a reviewed test word's estimate (bench/review_latency.py measures it)
MAX_RESULTS = 100_000  # guesser results kept for reuse, with their encoded replies (about 400 bytes each)
# live oracle moves (states below the book threshold) run on the serving thread: at most this many at once per
# process, so that costly histories (up to half a second each) leave the other threads and cores to book hits;
# a call waits for its turn until its deadline (without one: LIVE_WAIT_SECONDS), then RESOURCE_EXHAUSTED
LIVE_THREADS = 1
LIVE_WAIT_SECONDS = 10.0


class JottoBackend:
    game = "jotto"

    def __init__(self, store: Store):
        m = check_manifest(store, JottoManifest)
        self.store = store
        self.manifest = m
        self.variant = m["variant"]
        self.version = store.version
        words = list(m["words"])
        if words != sorted(words):
            raise StoreError(f"store {store.path}: word list is not in dictionary order")
        self.dictionary = dictionary_from_words(Variant.parse(self.variant), words, common=store.array(COMMON))
        if self.dictionary.sha256 != m["dictionary"]["sha256"]:
            raise StoreError(f"store {store.path}: dictionary hash does not match its word list")
        self.oracle = JottoOracle(self.dictionary)
        self.threshold = int(m["parameters"]["book_threshold"])
        self.served = m["served"]
        self.strategies: dict[str, GuesserStrategy] = read_strategies(store)
        # seeded draws without numpy calls (see draw): cumulative member weights and hider, hider probabilities
        self._member_cum = {n: np.cumsum(g.weights).tolist() for n, g in self.strategies.items()}
        self._hider_cum = {n: np.cumsum(g.hider).tolist() for n, g in self.strategies.items()}
        self._hider_p = {n: (g.hider / g.hider.sum()).tolist() for n, g in self.strategies.items()}
        self._hider_results: dict = {}  # (strategy, word) -> MoveResult (no distribution), reused
        self._results: dict = {}  # ((strategy, guesses, answers), member) -> MoveResult (no distribution), reused
        self._moves: OrderedDict = OrderedDict()  # (strategy, member, state key) -> move, live results
        self._moves_lock = threading.Lock()  # calls run on many threads
        self._live_gate = threading.Semaphore(LIVE_THREADS)
        self._analysed: OrderedDict = OrderedDict()  # (strategy, guesses, answers) -> seed-free analysis

    def warm(self) -> None:
        self.oracle.warm()

    # ------------------------------------------------------------------ helpers
    def strategy(self, name: str) -> GuesserStrategy:
        name = name or self.served
        s = self.strategies.get(name)
        if s is None:
            raise BadRequest(f"unknown strategy {quote(name)} for {self.variant} (known: {', '.join(sorted(self.strategies))})")
        return s

    def parse_history(self, history) -> tuple[list[int], list[int]]:
        if not history:
            return [], []
        if len(history) > MAX_HISTORY:
            raise BadRequest(f"history has {len(history)} turns; at most {MAX_HISTORY}")
        L = self.dictionary.length
        guesses, answers, seen = [], [], set()
        for k, turn in enumerate(history):
            word = turn.guess.strip().lower()
            try:
                g = self.dictionary.index(word)
            except KeyError:
                raise BadRequest(f"history[{k}]: {quote(turn.guess)} is not a word of {self.variant}") from None
            if g in seen:
                raise BadRequest(f"history[{k}]: {word!r} was already guessed")
            if not 0 <= turn.jots <= L:
                raise BadRequest(f"history[{k}]: {turn.jots} jots is out of range 0..{L}")
            if turn.jots == L and int((self.oracle.C[g] == L).sum()) == 1:
                raise BadRequest(f"history[{k}]: {L} jots on {word!r} means it is the secret; the game is over")
            seen.add(g)
            guesses.append(g)
            answers.append(turn.jots)
        return guesses, answers

    def book_threshold(self, strategy: str) -> int:
        """States of more than this many words are in the strategy's book (its own threshold, else the store's)."""
        t = self.strategies[strategy].book_threshold
        return self.threshold if t is None else t

    def book_entry(self, strategy: str, state: np.ndarray):
        if len(state) <= self.book_threshold(strategy):
            return None
        return book_moves(self.store, strategy, self.oracle.D, state)

    def _live(self, s: GuesserStrategy, c: int, state: np.ndarray, key: bytes, deadline: float | None) -> int:
        ck = (s.name, c, key)
        with self._moves_lock:
            hit = self._moves.get(ck)
            if hit is not None:
                self._moves.move_to_end(ck)
                return hit
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineExceeded("live computation abandoned: the caller's deadline passed")
        wait = LIVE_WAIT_SECONDS if deadline is None else max(0.0, deadline - time.monotonic())
        if not self._live_gate.acquire(timeout=wait):
            raise Refused("RESOURCE_EXHAUSTED", f"live work refused: this server process was computing other "
                          f"Jotto moves off its book for the {wait:.1f} s this call could wait; retry later")
        try:
            with self._moves_lock:
                hit = self._moves.get(ck)  # computed by the call this one waited for
            mv = hit if hit is not None else s.move(self.oracle, c, state, rollout_limit=self.book_threshold(s.name))
        finally:
            self._live_gate.release()
        with self._moves_lock:
            self._moves[ck] = mv
            if len(self._moves) > 100_000:
                self._moves.popitem(last=False)
        return mv

    def member_moves(self, s: GuesserStrategy, state: np.ndarray, members, deadline: float | None) -> tuple[dict[int, int], bool]:
        """Moves of the given members at a state; True if every one came from the book."""
        entry = self.book_entry(s.name, state) or {}
        key = state_key(self.oracle.D, state)
        out, all_book = {}, True
        for c in members:
            mv = entry.get(c)
            if mv is None:
                mv = self._live(s, c, state, key, deadline)
                all_book = False
            out[c] = mv
        return out, all_book

    # ------------------------------------------------------------------ requests
    def sample_hider(self, strategy: str, seed: int, want_distribution: bool, common_only: bool = False) -> MoveResult:
        s = self.strategy(strategy)
        if common_only:  # Beeler: never an uncommon secret; the hider restricted to common words, renormalised
            common = np.asarray(self.dictionary.common, dtype=bool)
            if not common.any():
                raise BadRequest(f"{self.variant} has no common word to hide")
            h = np.where(common, s.hider, 0.0)
            if h.sum() <= 0:
                h = common.astype(np.float64)
            h = h / h.sum()
            cum = np.cumsum(h)
            w = min(int(np.searchsorted(cum, seeded_uniform(seed, 1) * cum[-1], side="right")), len(cum) - 1)
            while not common[w]:  # rounding at the top end of the cumulative sum
                w -= 1
        else:
            w = draw(self._hider_cum[s.name], seeded_uniform(seed, 1))
            if not want_distribution:
                key = (s.name, w)
                r = self._hider_results.get(key)
                if r is None:
                    r = self._hider_results[key] = MoveResult(self.dictionary.words[w], self._hider_p[s.name][w], [],
                                                              "book", s.name, 0, self.oracle.D, True)
                return r
            h = s.hider / s.hider.sum()
        dist = []
        if want_distribution:
            order = np.argsort(-h, kind="stable")
            dist = [(self.dictionary.words[i], float(h[i])) for i in order if h[i] > 0]
        return MoveResult(self.dictionary.words[w], float(h[w]), dist, "book", s.name, 0, self.oracle.D, True)

    def _analyse(self, s: GuesserStrategy, guesses: list[int], answers: list[int], deadline: float | None):
        """Everything about a history that does not depend on the seed, memoised (stores are immutable):
        (consistent words, members that could have played it, on policy, their moves, the members
        answered from the book, the move distribution)."""
        memo_key = (s.name, tuple(guesses), tuple(answers))
        with self._moves_lock:
            hit = self._analysed.get(memo_key)
            if hit is not None:
                self._analysed.move_to_end(memo_key)
                return hit
        final = self.oracle.consistent(guesses, answers)
        if len(final) == 0:
            raise BadRequest("the history leaves no consistent word: some answer is wrong")
        pool = np.arange(s.size)
        on_policy = True
        for k in range(len(guesses)):
            state = self.oracle.consistent(guesses[:k], answers[:k])
            moves, _ = self.member_moves(s, state, pool, deadline)
            pool = np.array([c for c in pool if moves[c] == guesses[k]], dtype=np.int64)
            if len(pool) == 0:
                pool, on_policy = np.arange(s.size), False
                break
        moves, _ = self.member_moves(s, final, pool, deadline)
        entry = self.book_entry(s.name, final) or {}
        w = s.weights[pool]
        total = w.sum()
        mass: dict[int, float] = {}
        for c, wc in zip(pool.tolist(), w):
            mass[moves[c]] = mass.get(moves[c], 0.0) + wc / total
        result = (len(final), pool, on_policy, moves, frozenset(entry), mass, memo_key)
        with self._moves_lock:
            self._analysed[memo_key] = result
            if len(self._analysed) > 20_000:
                self._analysed.popitem(last=False)
        return result

    def sample_guesser(self, strategy: str, seed: int, history, want_distribution: bool,
                       deadline: float | None = None) -> MoveResult:
        s = self.strategy(strategy)
        guesses, answers = self.parse_history(history)
        n_final, pool, on_policy, moves, from_book, mass, memo_key = self._analyse(s, guesses, answers, deadline)
        member = draw(self._member_cum[s.name], seeded_uniform(seed, 0))  # = s.member_for_seed(seed)
        if member not in moves:  # a history this seed's member would not have played
            member = s.member_for_seed(seed, among=pool)
        if not want_distribution:  # one result per (history, member), reused
            rkey = (memo_key, member)
            r = self._results.get(rkey)
            if r is not None:
                return r
        source = "book" if member in from_book else "live"
        move = moves[member]
        dist = []
        if want_distribution:
            dist = sorted(((self.dictionary.words[m], p) for m, p in mass.items()), key=lambda x: (-x[1], x[0]))
        r = MoveResult(self.dictionary.words[move], mass[move], dist, source, s.name, member, n_final, on_policy)
        if not want_distribution:
            if len(self._results) >= MAX_RESULTS:  # bounded (about 40 MB): start over
                self._results.clear()
            self._results[rkey] = r
        return r

    # ------------------------------------------------------------------ the backend interface (server/backends.py)
    def probe(self) -> None:
        """One request through the real paths (the served hider and the root book entry)."""
        self.sample_hider("", 0, False)
        self.sample_guesser("", 0, [], False)

    def sample(self, request, deadline: float | None, live=None) -> MoveResult:
        if not request.HasField("jotto"):
            raise BadRequest(f"{self.variant} is a Jotto variant: set `jotto` in the request")
        st = request.jotto
        role = st.role
        if role == GUESSER:
            return self.sample_guesser(request.strategy, request.game_seed, st.history, request.want_distribution,
                                       deadline)
        if role == HIDER:
            if len(st.history):
                raise BadRequest("the hider role takes no history")
            return self.sample_hider(request.strategy, request.game_seed, request.want_distribution,
                                     st.common_secret)
        raise BadRequest("jotto.role must be HIDER or GUESSER")

    def analyze(self, request, live: LiveCall = NO_LIVE) -> dict:
        """AnalyzeGame: the guesser's test words checked here (BadRequest naming the first bad one), the
        review (``games.jotto.guess_scoring``) run in the live pool."""
        s = self.strategy(request.strategy)
        if request.dudo or not request.HasField("jotto"):
            raise BadRequest(f"{self.variant} is a Jotto variant: give the game in `jotto`")
        g = request.jotto
        if g.role != GUESSER:
            raise BadRequest("jotto.role: only the guesser's test words are reviewed (role GUESSER)")
        turns = [(t.guess, int(t.jots)) for t in g.turns]
        try:
            parsed = parse_turns(self.oracle, turns, g.secret)
        except TranscriptError as e:
            raise BadRequest(str(e)) from None
        cost = Cost(REVIEW_SECONDS * len(parsed) + self.oracle.D ** 2 * 2e-8, 200 * 2**20 + 2 * self.oracle.D ** 2,
                    f"reviewing a Jotto game of {len(parsed)} test words against {self.variant}")
        return live.submit(review_from_store, str(self.store.path), s.name, turns, g.secret, cost=cost)

    def get_words(self, reply) -> None:
        """GetWords: the dictionary in order with its common bit."""
        reply.words.extend(self.dictionary.words)
        reply.common.extend(bool(c) for c in self.dictionary.common)
        reply.word_length = self.dictionary.length

    def variant_info(self, v) -> None:
        v.words, v.word_length, v.dictionary_sha256 = self.oracle.D, self.dictionary.length, self.dictionary.sha256
        for sname, info in sorted(self.manifest["strategies"].items()):
            v.strategies.add(name=sname, description=info.get("description", ""),
                             members=int(info["members"]), served_default=sname == self.served)

    def stats(self, v) -> None:
        v.served_strategy, v.words, v.dictionary_sha256 = self.served, self.oracle.D, self.dictionary.sha256
        for sname, info in sorted(self.manifest["strategies"].items()):
            s = v.strategies.add(strategy=sname, description=info.get("description", ""))
            for k, val in info["figures"].items():
                s.figures[k] = float(val)
            for k in ("iterations", "t_star", "seconds_per_iteration", "members", "book_entries", "columns"):
                if k in info:
                    s.figures[k] = float(info[k])
            if "first_test_word" in info:
                s.labels["first_test_word"] = info["first_test_word"]
            s.labels["served"] = "yes" if sname == self.served else "no"
            cert = self.manifest.get("certified")
            if cert is not None:  # the game's value bracket (builder.jotto._certify), on the strategy it is about
                s.labels["value_bracket"] = (f"[{cert['lower']:.6f}, {cert['upper']:.6f}] {cert['kind']}: "
                                             f"{cert['lower_kind']}; {cert['upper_kind']}")
                if sname == cert["guesser"]:
                    s.figures["value_lower"] = float(cert["lower"])
                    s.figures["value_upper"] = float(cert["upper"])
                    s.figures["value_gap"] = float(cert["upper"] - cert["lower"])
            # the guarantee is exact: the hider's exact best response (every secret word) to the guesser mixture
            figures.label(s, "jotto", "guarantee", figures.EXACT)
