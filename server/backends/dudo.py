"""Answers Dudo requests from a store of abstract information sets. Late in a round (few claims left) the
rest of the round is re-solved with perfect recall from the store (safe endgame re-solving,
games/dudo/search/endgame.py) and answered LIVE; from the store (BOOK) where the policy keeps the store's row, and
marked DEGRADED where the re-solve cannot finish before the caller's deadline or the live pool refuses (an
idle server answers it LIVE). Rounds whose stated figure is exact are always answered from the store
(games.dudo.policy.served.resolves_round: re-solving raised their measured exploitability), so their figure is the
served policy's; rounds the builder measured lower under search (games.dudo.policy.searched: continual re-solving on
the stored rows, its exact figure stated) are answered by search (LIVE, DEGRADED with the store's row where it
cannot be had); rounds the store's game never plays are solved live. Live work runs in the server's live
pool (a worker process, within the caller's deadline and the caps)."""
from __future__ import annotations

import logging
import time
from dataclasses import replace

import numpy as np

from games.dudo.measure.bound import EXACT, kind_of
from games.dudo.measure.lookahead import validation
from games.dudo.search.endgame import EndgamePolicy
from games.dudo.serving.endgame_store import STOPPED, resolve_cost, resolve_from_store, would_resolve
from games.dudo.abstraction.dag import round_reachable
from games.dudo.serving.large_search import (ChainState, decisions_to_search, longest_cached, searched_move, spec_of,
                                             stored_first_claims)
from games.dudo.serving.live_solve import live_cost, solve_live
from games.dudo.serving.searched_store import searched_move_from_store, searched_rounds
from games.dudo.policy.served import (ENDGAME as ENDGAME_SOURCE, ROWS, SEARCH, SEARCH_EXACT, SEARCH_LARGE, SERVED_BOOK,
                               SERVED_RESOLVED, SERVED_SEARCH_LARGE, SERVED_SEARCHED, ServedRounds, decide, searched_exact,
                               served_label, served_rounds)
from games.dudo.serving.move_scoring import MAX_NODES, TranscriptError, parse_rounds, review_from_store
from games.dudo.rules import MAX_DICE, RuleError, action_name, check_dice, check_roll, claim_strengths
from games.dudo.build.params import DudoParams
from games.dudo.cost import SEARCH_WORKER_BYTES, exact_search_seconds, large_resolve_seconds, review_seconds
from games.dudo.store import DudoManifest, read_row, store_memories
from games.quantise import UNIT
from games.seeding import seeded_pick
from games.storage import Store, StoreError, check_manifest
from server.backends import BadRequest, MoveResult, figures, quote
from server.live import NO_LIVE, Cost, LiveCall, LiveError, Refused, Stopped, others_running

log = logging.getLogger("gamestrategy.server.dudo")

# the 5-dice stores the builder's profiles name (default and full): what answers every round from the book
FIVE_DICE = DudoParams(max_dice=MAX_DICE, iterations=1, memory_budget=1, label="default").variant
FIVE_DICE_FULL = DudoParams(max_dice=MAX_DICE, iterations=1, memory_budget=1, label="full").variant

ENDGAME = EndgamePolicy()  # when and how a late decision is re-solved (games.dudo.search.endgame)
BOOK, DEGRADED = "book", "degraded"   # the sources of a move answered from the store (server.service.SOURCES)
NOT_HAD = object()      # live work with a fallback that could not be had in time (``DudoBackend._with_fallback``)
# a re-solve stops itself this long before its live deadline (``LiveCall.fallback_deadline``), so that its worker
# answers STOPPED and is kept rather than killed there
SELF_STOP_SECONDS = 0.025
MAX_REVIEW_ROUNDS = 64


CHAIN_CACHE_BYTES = 512 << 20      # searched chain states kept per server process (each about 1-2 MB)
# a searched move that finds the machine idle (no other live work in its process, nothing else runnable) re-solves
# on this many threads: the same bits, about 1.5 times sooner (docs/dudo-search-serving.md section 6); on busy
# cores two threads wait for each other at every pass and take longer than one
IDLE_SEARCH_THREADS = 2
# "nothing else runnable": at most this many other tasks running at that instant (on this virtual machine an idle
# moment reads 1-2 besides the reader: kernel threads and the caller's own gRPC pollers come and go)
OTHERS_IDLE = 1
class ChainCache:
    """Searched chain states (``large_search.ChainState.plain``) by (seat, history prefix), least recently used
    dropped past ``max_bytes``.  A state is a function of its history, so which are kept changes no answer."""

    def __init__(self, max_bytes: int):
        import threading
        from collections import OrderedDict
        self.max_bytes, self.nbytes = max_bytes, 0
        self._d: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def longest(self, seat, history):
        """The state of the longest prefix of ``history`` held, or None."""
        with self._lock:
            return longest_cached(self._d, tuple(history), lambda prefix: (seat, prefix))

    def put(self, seat, prefix, state) -> None:
        size = ChainState.from_plain(state).nbytes
        with self._lock:
            key = (seat, tuple(prefix))
            if key in self._d:
                return
            self._d[key] = state
            self.nbytes += size
            while self.nbytes > self.max_bytes and self._d:
                _, old = self._d.popitem(last=False)
                self.nbytes -= ChainState.from_plain(old).nbytes


class DudoBackend:
    game = "dudo"
    live_modules = ("games.dudo.serving.live_solve", "games.dudo.serving.endgame_store", "games.dudo.serving.warm",
                    "games.dudo.serving.move_scoring", "games.dudo.serving.searched_store",
                    "games.dudo.serving.large_search", "games.dudo.serving.searched_probabilities")
    endgame: EndgamePolicy | None = ENDGAME  # None: every decision the store holds is answered from it

    def __init__(self, store: Store):
        m = check_manifest(store, DudoManifest)
        self.store, self.manifest = store, m
        self.variant, self.version = m["variant"], store.version
        p = m["parameters"]
        self.params = DudoParams(**p)
        self.max_dice = self.params.max_dice
        if not 1 <= self.max_dice <= MAX_DICE:
            raise StoreError(f"store {store.path}: max_dice {self.max_dice} out of 1..{MAX_DICE}")
        self.memories = store_memories(m)  # StoreError for a store of another row format
        # rounds (opener, other dice) whose endgames are re-solved: as the manifest records it (``served``), or
        # for a store built before that, by the rule (not where the stated figure is exact)
        self.resolved_rounds = {tuple(int(x) for x in name.split("v")): st.get("served", served_label(kind_of(st)))
                                != SERVED_BOOK for name, st in m["rounds"].items()}
        # rounds served by continual re-solving on the stored rows (where the builder measured it lower):
        # {(opener, other): SearchSpec}
        self.searched = searched_rounds(m)
        for r in self.searched:
            self.resolved_rounds[r] = False
        # large rounds served by search on the store's search tables (games.dudo.serving.large_search)
        self.served_rounds = served_rounds(m, self.endgame)
        self.large_spec = spec_of(m)
        self.large_rounds = set(self.served_rounds.large)
        self.chains = ChainCache(CHAIN_CACHE_BYTES)
        self.first_claims: dict[tuple[int, int], frozenset] = {}

    def warm(self) -> None:
        pass

    def probe(self) -> None:
        self._row(1, 1, (1,), [])

    # ------------------------------------------------------------------ validation
    def parse(self, st) -> tuple[int, int, tuple[int, ...], list[int]]:
        own, opp = int(st.own_dice), int(st.opponent_dice)
        roll = tuple(int(x) for x in st.roll)
        try:
            check_dice("dudo.own_dice", own)
            check_dice("dudo.opponent_dice", opp)
            check_roll("dudo.roll", roll, own)
            history = claim_strengths([(c.count, c.face) for c in st.history], own + opp,
                                      lambda k, n, f: f"dudo.history[{k}] ({n}x{f})")
        except RuleError as e:
            raise BadRequest(str(e)) from None
        requester_to_move = (len(history) % 2 == 0) == bool(st.requester_opened)
        if not requester_to_move:
            raise BadRequest("it is the opponent's turn: the requester made the last claim"
                             if history else "the round's opener moves first: requester_opened is false")
        return own, opp, tuple(sorted(roll)), history

    # ------------------------------------------------------------------ lookup
    def _row(self, own: int, opp: int, roll, history):
        return read_row(self.store, self.memories, own, opp, roll, history)

    def _endgame(self, own, opp, roll, history, opened: bool, live: LiveCall):
        """(actions, probs) of an endgame decision (``decide``) re-solved with perfect recall in the live pool;
        ``BOOK`` where the policy answers from the store (no live pool: not a server; the store's strategy
        reaches it too rarely to re-solve); ``DEGRADED`` where the policy
        re-solves it but the server could not: the re-solve cannot end the live pool's margin before the
        deadline (refused at once, or stopped), the pool refuses it (slots, caps, no worker ready: starting
        one would take the caller's time) or it failed. A caller gone (CANCELLED) raises."""
        policy = self.endgame
        if live.pool is None:
            return BOOK
        est = resolve_cost(own, opp, history, policy)
        if est is None:      # not an endgame (``decide`` does not send one here)
            return BOOK
        remaining, seconds, nbytes = est
        deadline = live.fallback_deadline()
        cost = Cost(seconds, nbytes, f"re-solving the last {remaining} claims of a {own}v{opp} Dudo round with "
                    f"perfect recall ({policy.iterations} CFR+ iterations)")
        out = self._with_fallback(live, "endgame re-solve", resolve_from_store, str(self.store.path), own, opp,
                                  tuple(roll), tuple(history), opened, policy, deadline - SELF_STOP_SECONDS,
                                  cost=cost, deadline=deadline)
        if out is NOT_HAD:
            return self._not_resolved(own, opp, history, opened)
        if out is None:
            return BOOK     # the policy keeps the store's row (its reach is below the policy's floor)
        if out == STOPPED:
            return DEGRADED
        return np.array(out[0]), np.array(out[1])

    def _searched(self, own, opp, roll, history, opened: bool, spec, live: LiveCall):
        """(actions, probs) of the searched policy (``games.dudo.serving.searched_store``, in the live pool: each worker
        keeps the round's re-solves by history prefix, so the answer is the same bits whether cached or
        not); ``DEGRADED`` (the store's row) where it cannot be had: no live pool, no free slot or worker, the
        deadline, or a fault. A caller gone (CANCELLED) raises."""
        if live.pool is None:
            return DEGRADED
        seconds = exact_search_seconds(own, opp, history, opened, spec.depth, spec.iterations)
        cost = Cost(seconds, SEARCH_WORKER_BYTES,
                    f"continual re-solving of a {own}v{opp} Dudo decision ({spec.label()})")
        deadline = live.fallback_deadline()
        out = self._with_fallback(live, "search", searched_move_from_store, str(self.store.path), own, opp,
                                  tuple(roll), tuple(history), opened, cost=cost, deadline=deadline)
        if out is NOT_HAD:
            return DEGRADED
        return np.array(out[0]), np.array(out[1])

    def _large_searched(self, own, opp, roll, history, opened: bool, live: LiveCall):
        """(actions, probs) of the searched policy of a large round (``games.dudo.serving.large_search``, in the live
        pool, from the longest history prefix whose chain state this process holds); ``BOOK`` where the history
        holds a claim of the requester's that the searched policy never makes (its answer there is the store's);
        ``DEGRADED`` (the store's row) where it cannot be had in time: no live pool, no free slot or worker, the
        deadline, or a fault. A caller gone (CANCELLED) raises."""
        if live.pool is None:
            return DEGRADED
        seat = (own, opp, opened)
        start = self.chains.longest(seat, history)
        steps = decisions_to_search(tuple(history), opened, None if start is None else start[0],
                                    self._first_claims(own, opp))
        seconds = steps * large_resolve_seconds(own, opp, history, self.large_spec.A, self.large_spec.iterations)
        cost = Cost(seconds, SEARCH_WORKER_BYTES, f"{steps} depth-limited re-solve{'s' if steps != 1 else ''} of a "
                    f"{own}v{opp} Dudo decision ({self.large_spec.label()})")
        deadline = live.fallback_deadline()
        others = others_running()
        threads = IDLE_SEARCH_THREADS if live.pool.running == 0 and others is not None and others <= OTHERS_IDLE else 1
        out = self._with_fallback(live, "search", searched_move, str(self.store.path), own, opp, tuple(roll),
                                  tuple(history), opened, start, threads, cost=cost, deadline=deadline)
        if out is NOT_HAD:
            return DEGRADED
        if out is None:
            return BOOK
        for st in out["states"]:
            self.chains.put(seat, tuple(history[:st[0]]), st)
        return np.array(out["actions"]), np.array(out["probs"])

    def _with_fallback(self, live: LiveCall, what: str, fn, *args, cost: Cost, deadline: float):
        """``fn(*args)`` in the live pool, never starting a worker on the caller's time (``ready_only``); NOT_HAD
        where it cannot be had in time (refused, stopped at the deadline, or failed: logged), for the caller's
        fallback, the store's row. A caller gone (CANCELLED) raises."""
        try:
            return live.submit(fn, *args, cost=cost, deadline=deadline, ready_only=True)
        except Refused as e:
            log.info(f"{what} refused", extra={"fields": {"variant": self.variant, "status": e.status,
                                                          "reason": str(e)[:200]}})
        except Stopped as e:
            if e.status == "CANCELLED":
                raise
        except LiveError as e:  # a fault of the work: the store's answer, and the fault in the log
            log.warning(f"{what} failed", extra={"fields": {"variant": self.variant, "error": str(e)}})
        return NOT_HAD

    def _first_claims(self, own: int, opp: int) -> frozenset:
        """The opening claims after which the store keeps the requester's first searched reply (read once a seat)."""
        key = (own, opp)
        if key not in self.first_claims:
            self.first_claims[key] = stored_first_claims(self.store, own, opp)
        return self.first_claims[key]

    def _not_resolved(self, own, opp, history, opened: bool) -> str:
        """A re-solve the server could not run: DEGRADED where it would have re-solved, else BOOK."""
        return DEGRADED if would_resolve(self.store, self.memories, own, opp, history, opened, self.endgame) else BOOK

    def served(self) -> ServedRounds:
        """What this store's strategies do round by round (``games.dudo.policy.served.decide`` takes it)."""
        return replace(self.served_rounds, resolves=self.resolves, endgame=self.endgame)

    def resolves(self, opener: int, other: int) -> bool:
        """Whether the round opened by ``opener`` dice against ``other`` gets its endgames re-solved."""
        return self.resolved_rounds.get((opener, other), True)

    def _live_distribution(self, own, opp, roll, history, need: int, live: LiveCall):
        """From the game with `need` dice a player (the smallest whose play reaches this round: a store of
        fewer dice never plays it, and holds only the solver's untrained uniform rows there), its groups up
        to this round's dice in play solved live in a worker process with the store's parameters; a solved
        game is kept in the live cache for the next requests."""
        p, total = self.params, own + opp
        by_total = tuple(tuple(x) for x in p.iterations_by_total)
        key = (p.memory, p.perfect_recall_total, p.iterations, by_total, need)
        cache = live.cache
        sol = cache.find(lambda k: k[:-1] == key and k[-1] >= total) if cache is not None else None
        if sol is None:
            seconds, nbytes, groups = live_cost(need, total, p.memory, p.perfect_recall_total, p.iterations, by_total)
            rows = sum(g.rows for g in groups)
            cost = Cost(seconds, nbytes,
                        f"solving Dudo with {need} dice a player live for {self.variant} ({len(groups)} groups up to "
                        f"{total} dice in play, {rows:,} information-set rows)",
                        f"a store with {need} or more dice a player answers it from the book: build {FIVE_DICE} "
                        f"(`make build-default-stores`) or {FIVE_DICE_FULL} (`make build-stores ARGS='--variant "
                        f"{FIVE_DICE_FULL}'`)")
            sol, nbytes = live.submit(solve_live, need, total, p.memory, p.perfect_recall_total, p.iterations,
                                      by_total, cost=cost)
            if cache is not None:
                cache.put(key + (total,), sol, nbytes)
        dist = sol.action_distribution(own, opp, roll, history)
        return np.array([a for a, _ in dist]), np.array([p for _, p in dist])

    def sample(self, request, deadline: float | None, live: LiveCall = NO_LIVE) -> MoveResult:
        if request.WhichOneof("state") != "dudo":
            raise BadRequest(f"{self.variant} is a Dudo variant: set `dudo` in the request")
        strategy = self.strategy_of(request.strategy)
        own, opp, roll, history = self.parse(request.dudo)
        opener, other = (own, opp) if request.dudo.requester_opened else (opp, own)
        need = next((d for d in range(max(own, opp), MAX_DICE + 1) if round_reachable(opener, other, d)), None)
        if need is None:
            raise BadRequest(f"no Dudo game reaches a round opened by a player with {opener} dice against {other}")
        opened = bool(request.dudo.requester_opened)
        if need <= self.max_dice:
            kind = decide(self.served(), strategy, own, opp, history, opened)
            if kind == SEARCH_LARGE:
                res = self._large_searched(own, opp, roll, history, opened, live)
            elif kind == SEARCH_EXACT:
                res = self._searched(own, opp, roll, history, opened, self.searched[(opener, other)], live)
            elif kind == ENDGAME_SOURCE:
                res = self._endgame(own, opp, roll, history, opened, live)
            else:
                res = BOOK
            if isinstance(res, str):    # BOOK by policy, or DEGRADED: the policy's live answer could not be had
                actions, probs = self._row(own, opp, roll, history)  # exact units / UNIT
                source = res
            else:
                actions, probs = res
                source = "live"
        else:
            actions, probs = self._live_distribution(own, opp, roll, history, need, live)
            source = "live"
        k = seeded_pick(probs, request.game_seed, 100 + len(history))
        p = np.maximum(probs, 0.0)
        p = p / p.sum()
        total = own + opp
        dist = []
        if request.want_distribution:
            order = np.argsort(-p, kind="stable")
            dist = [(action_name(actions[i], total), float(p[i])) for i in order]
        return MoveResult(action_name(actions[k], total), float(p[k]), dist, source, strategy, 0, 0, True)

    def strategy_of(self, name: str) -> str:
        """The strategy a request names ("": the served one); BadRequest for one this store does not serve."""
        known = self.strategies()
        if not name:
            return known[0]
        if name not in known:
            raise BadRequest(f"unknown strategy {quote(name)} for {self.variant} (known: {', '.join(known)})")
        return name

    def strategies(self) -> list[str]:
        """The strategies served, the default first: ``search`` where the store has search tables."""
        return [SEARCH, ROWS] if self.large_rounds else [ROWS]

    # ------------------------------------------------------------------ review
    def analyze(self, request, live: LiveCall = NO_LIVE) -> dict:
        """AnalyzeGame: the transcript checked here (BadRequest naming the first bad move), the review
        (``games.dudo.serving.move_scoring``) run in the live pool."""
        strategy = self.strategy_of(request.strategy)
        if request.HasField("jotto") or not request.dudo:
            raise BadRequest(f"{self.variant} is a Dudo variant: give the game's rounds in `dudo`")
        if len(request.dudo) > MAX_REVIEW_ROUNDS:
            raise BadRequest(f"the transcript has {len(request.dudo)} rounds; at most {MAX_REVIEW_ROUNDS}")
        rounds = [dict(own=r.own_dice, opp=r.opponent_dice, roll=list(r.roll), opp_roll=list(r.opponent_roll),
                       opened=r.reviewed_opened, claims=[(c.count, c.face) for c in r.claims],
                       challenged=not r.unfinished) for r in request.dudo]
        try:
            parsed = parse_rounds(rounds, self.max_dice)
        except TranscriptError as e:
            raise BadRequest(str(e)) from None
        decisions = sum(len(r.claims) // 2 + 1 for r in parsed)
        seconds = review_seconds(decisions)
        what = f"reviewing a Dudo game of {len(parsed)} rounds ({decisions} decisions) against {self.variant}"
        search_until, scale = None, 1.0
        if strategy == SEARCH:   # searched decisions within the pool's cap and before the caller's deadline
            now = time.monotonic()
            cap = live.pool.max_seconds if live.pool is not None else 0.0
            scale = live.pool.estimate_scale if live.pool is not None else 1.0
            search_until = now + max(0.0, min(live.fallback_deadline(now) - now, cap) - seconds)
            what += f" under strategy {SEARCH} (searching for at most {search_until - now:.0f} s)"
        cost = Cost(seconds, SEARCH_WORKER_BYTES, what)
        out = live.submit(review_from_store, str(self.store.path), rounds, MAX_NODES, search_until, scale, cost=cost)
        if "too_large" in out:
            raise Refused("FAILED_PRECONDITION", out["too_large"])
        return out

    # ------------------------------------------------------------------ listing
    def variant_info(self, v) -> None:
        if self.large_rounds:
            v.strategies.add(name=SEARCH, description=self._search_description(), members=1, served_default=True)
        v.strategies.add(name=ROWS, description=self._description(), members=1, served_default=not self.large_rounds)

    def _search_description(self) -> str:
        large = sorted(r for r in self.large_rounds if sum(r) >= self.large_spec.min_total)
        exact = sorted(r for r in self.large_rounds if sum(r) < self.large_spec.min_total)
        rounds = ", ".join(f"{a}v{b}" for a, b in large)
        rounds += f"; and {', '.join(f'{a}v{b}' for a, b in exact)}, where search has the lower exact figure" \
            if exact else ""
        return (f"the stored rows ({ROWS}) with the rounds of {self.large_spec.min_total} or more dice in play "
                f"({rounds}) searched at every decision: {self.large_spec.label()}; a searched move past the "
                f"server's search slots or the caller's deadline is the stored row, marked DEGRADED")

    def _description(self) -> str:
        mem = ", ".join(f"{a}v{b} {'perfect' if m is None else m}" for (a, b), m in sorted(self.memories.items()))
        return (f"full-width FSICFR (CFR+) on the imperfect-recall abstraction (last m claims; m per dice group: "
                f"{mem}), every group up to {self.max_dice} dice a player; probabilities in 1/{UNIT} units")

    def stats(self, v) -> None:
        v.served_strategy = self.strategies()[0]
        for name, st in self.manifest["rounds"].items():
            s = v.strategies.add(strategy=f"round {name}", description="opener v other dice")
            for k, val in st.items():
                if isinstance(val, str):
                    s.labels[k] = val
                else:
                    s.figures[k] = float(val)
            s.labels["br_kind"] = kind_of(st)    # a store built before the kinds: "none" or missing
            op, oth = (int(x) for x in name.split("v"))
            measured = (op, oth) in self.large_rounds and not searched_exact(st)
            if (op, oth) in self.large_rounds and searched_exact(st):
                s.labels["rows_figures"] = ("stored_exploitability, stored_br_opener, stored_br_other: of the stored "
                                            "rows (strategy fsicfr)")
            if measured:     # the served policy is the searched one: its figure apart
                s.labels["served_kind"] = st.get("served_kind", "not measured (python -m builder.measure_search "
                                                 "states it)")
                s.labels["rows_figures"] = ("exploitability, improved_exploitability, br_opener, br_other: of the "
                                            "stored rows (strategy fsicfr)")
            s.labels["served"] = (SERVED_SEARCH_LARGE if (op, oth) in self.large_rounds else
                                  SERVED_SEARCHED if (op, oth) in self.searched else
                                  SERVED_RESOLVED if self.resolves(op, oth) else SERVED_BOOK)
            # the round's figure: the perfect-recall improvement where measured (the larger lower bound), else
            # the exploitability with its best response's kind
            if measured:   # the searched policy's figure, or none: the rows' are context
                key = "served_game" if "served_game_exploitability" in s.figures else "served"  # to the game's end
                stated = st.get(f"{key}_kind", "")
                checked = validation(stated.removeprefix("lower bound: "))     # of the responder it names
                if checked:
                    s.labels["responder_validation"] = checked
                figures.label(s, "dudo", f"{key}_exploitability", "; ".join(filter(None, (stated, checked))))
            elif "improved_exploitability" in s.figures:
                figures.label(s, "dudo", "improved_exploitability", s.labels.get("improved_kind", "lower bound"))
            else:
                kind = s.labels["br_kind"]
                figures.label(s, "dudo", "exploitability", "exact (perfect-recall best response)" if kind == EXACT
                              else kind)
