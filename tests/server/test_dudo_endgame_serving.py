"""Endgame re-solving served: a late Dudo decision is re-solved with perfect recall in the live
pool and answered LIVE; the store answers (BOOK) before the endgame, and says DEGRADED when the pool
refuses (slots, an estimate over the time left) or the re-solve is stopped; a caller gone still
ends the call. The mechanism,
without timing asserts (the re-solve itself is checked in tests/games/test_dudo_endgame*.py)."""
import itertools
import time

import numpy as np
import pytest

from games.dudo.serving.endgame_store import STOPPED, resolve_from_store, would_resolve
from games.dudo.rules import claim
from games.dudo.build.params import DudoParams
from protos import gamestrategy_pb2 as pb
from server.backends import dudo as dudo_backend
from server.live import LiveCall, Refused, Stopped
from server.settings import ServerSettings
from tests.server.test_live_pool import ready
from tests.server.test_live_serving import dudo_registry, served

PARAMS = DudoParams(max_dice=1, iterations=60, memory=2, perfect_recall_total=0, exact_br_total=0)
LATE = (2, 4)      # claim strengths of 1v1: 7 claims left after the last (the policy re-solves from 8)
EARLY = (1,)       # 10 left: before the endgame


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    yield from dudo_registry(tmp_path_factory, PARAMS)


@pytest.fixture(scope="module")
def service(registry):
    """One live slot, its worker started (a re-solve never waits for a worker to start: it gets the book)."""
    for stub, server in served(registry, live_slots=1):
        server.live_pool.start(1)
        assert ready(server.live_pool)
        yield stub, server


@pytest.fixture(scope="module")
def no_slots(registry):
    yield from served(registry, live_slots=0)


@pytest.fixture(scope="module")
def overestimating(registry):
    """Estimates scaled up 1e6 times: no re-solve fits in any deadline."""
    yield from served(registry, live_slots=1, live_estimate_scale=1e6)


def req(history, roll=(4,), seed=0, params=PARAMS):
    opened = len(history) % 2 == 0
    return pb.SampleMoveRequest(variant=params.variant, game_seed=seed, want_distribution=True, dudo=pb.DudoState(
        own_dice=1, opponent_dice=1, roll=list(roll), requester_opened=opened,
        history=[pb.DudoClaim(count=n, face=r) for n, r in (claim(s, 2) for s in history)]))


def distribution(reply):
    return {d.move: d.probability for d in reply.distribution}


def moves(actions, probs):
    p = np.maximum(np.asarray(probs), 0.0)
    p = p / p.sum()
    return {("dudo" if a < 0 else "{}x{}".format(*claim(int(a), 2))): float(q) for a, q in zip(actions, p)}


def book(registry, history, roll=(4,), params=PARAMS):
    with registry.acquire(params.variant) as b:
        return moves(*b._row(1, 1, roll, list(history)))


def test_late_decision_is_re_solved_live(service, registry):
    stub, _ = service
    r = stub.SampleMove(req(LATE), timeout=60)
    assert r.source == pb.SampleMoveReply.LIVE
    with registry.acquire(PARAMS.variant) as b:
        path = str(b.store.path)
    want = resolve_from_store(path, 1, 1, (4,), LATE, True, dudo_backend.ENDGAME)
    got = distribution(r)
    assert got == pytest.approx(moves(want[0], want[1]), abs=1e-12)
    assert got != pytest.approx(book(registry, LATE), abs=1e-3)   # the re-solve changed the store's move
    assert stub.SampleMove(req(LATE), timeout=60) == r                 # deterministic


def test_early_decision_is_the_book(service, registry):
    stub, _ = service
    r = stub.SampleMove(req(EARLY), timeout=60)
    assert r.source == pb.SampleMoveReply.BOOK
    assert distribution(r) == pytest.approx(book(registry, EARLY), abs=1e-12)


@pytest.mark.parametrize("fixture", ["no_slots", "overestimating"])
def test_refused_re_solve_is_the_book_marked_degraded(request, registry, fixture):
    """No live slot, or an estimate over the time left before the deadline: the store's move at once, marked
    DEGRADED (an idle server re-solves it), and counted so by source."""
    from server import metrics
    stub, server = request.getfixturevalue(fixture)
    r = stub.SampleMove(req(LATE), timeout=60)
    assert r.source == pb.SampleMoveReply.DEGRADED
    assert distribution(r) == pytest.approx(book(registry, LATE), abs=1e-12)
    assert server.live_pool.pids()["busy"] == []
    metrics.flush()
    assert metrics.MOVES.labels(variant=PARAMS.variant, source="degraded")._value.get() >= 1
    # before the endgame the policy reads the store: BOOK under any load
    assert stub.SampleMove(req(EARLY), timeout=60).source == pb.SampleMoveReply.BOOK


def test_an_endgame_the_policy_keeps_in_the_store_stays_book(no_slots, service, registry):
    """A late decision whose endgame the store's strategy reaches less than ``min_reach``: the policy serves
    the store's row there (no re-solve on any server), so a server without slots says BOOK, as an idle one."""
    stub, _ = no_slots
    with registry.acquire(PARAMS.variant) as b:
        K, pol = 12, dudo_backend.ENDGAME
        late = [h for k in (2, 4, 6) for h in itertools.combinations(range(K), k) if h[-1] >= 3]   # 8 claims left
        rare = next(h for h in late if not would_resolve(b.store, b.memories, 1, 1, h, True, pol))
    r = stub.SampleMove(req(rare), timeout=60)
    assert r.source == pb.SampleMoveReply.BOOK
    assert distribution(r) == pytest.approx(book(registry, rare), abs=1e-12)
    assert service[0].SampleMove(req(rare), timeout=60) == r


class _Call(LiveCall):
    """A live call whose pool answers every submission with ``exc``."""

    def __init__(self, pool, exc):
        super().__init__(pool, None, lambda: True)
        self.exc = exc

    def submit(self, fn, *args, cost, deadline=None, ready_only=False):
        raise self.exc


def test_stopped_re_solve_falls_back_unless_the_caller_went(service, registry):
    _, server = service
    with registry.acquire(PARAMS.variant) as b:
        stopped = _Call(server.live_pool, Stopped("DEADLINE_EXCEEDED", "stopped at the deadline"))
        assert b._endgame(1, 1, (4,), list(LATE), True, stopped) == "degraded"
        assert b._endgame(1, 1, (4,), list(LATE), True, _Call(server.live_pool, Refused("RESOURCE_EXHAUSTED", ""))) \
            == "degraded"
        assert b._endgame(1, 1, (4,), list(EARLY), True, stopped) == "book"
        with pytest.raises(Stopped):
            b._endgame(1, 1, (4,), list(LATE), True, _Call(server.live_pool, Stopped("CANCELLED", "gone")))


class _Deadlines(LiveCall):
    """A live call whose pool records the deadline each submission gets, then stops it."""

    def __init__(self, pool, deadline):
        super().__init__(pool, deadline, lambda: True)
        self.got = []

    def submit(self, fn, *args, cost, deadline=None, ready_only=False):
        self.got.append(deadline)
        raise Stopped("DEADLINE_EXCEEDED", "stopped at the deadline")


def test_a_re_solve_stops_the_live_margin_before_the_callers_deadline(registry):
    """Live work with a fallback (the store's row) runs until the live pool's margin (``--live-margin``) before the
    caller's deadline, leaving the fallback and its reply that long to reach the caller."""
    pool = ServerSettings(live_slots=0, live_margin=0.3).live_pool()
    try:
        with registry.acquire(PARAMS.variant) as b:
            call = _Deadlines(pool, time.monotonic() + 5.0)
            assert b._endgame(1, 1, (4,), list(LATE), True, call) == "degraded"
    finally:
        pool.close()
    assert call.got == [pytest.approx(call.deadline - 0.3, abs=1e-9)]


def test_re_solve_past_its_deadline_serves_nothing(registry):
    """The worker's task stops at its deadline and says so (the store answers, DEGRADED): a partial
    re-solve is never served."""
    with registry.acquire(PARAMS.variant) as b:
        path = str(b.store.path)
    assert resolve_from_store(path, 1, 1, (4,), LATE, True, dudo_backend.ENDGAME, deadline=0.0) == STOPPED


EXACT_PARAMS = DudoParams(max_dice=1, iterations=60)     # 1v1 with perfect recall: its figure is exact


@pytest.fixture(scope="module")
def exact_service(tmp_path_factory):
    for registry in dudo_registry(tmp_path_factory, EXACT_PARAMS):
        for stub, server in served(registry, live_slots=1):
            server.live_pool.start(1)
            assert ready(server.live_pool)
            yield stub, server, registry


def test_a_round_with_an_exact_figure_is_served_from_the_store(exact_service):
    """Its endgames are not re-solved (games.dudo.policy.served.resolves_round), so the exact figure GetStats
    states is the served policy's; the manifest and GetStats say so."""
    stub, server, registry = exact_service
    r = stub.SampleMove(pb.SampleMoveRequest(variant=EXACT_PARAMS.variant, game_seed=0, want_distribution=True,
                                             dudo=pb.DudoState(own_dice=1, opponent_dice=1, roll=[4], requester_opened=True,
                                                               history=[pb.DudoClaim(count=n, face=f) for n, f in
                                                                        (claim(s, 2) for s in LATE)])), timeout=60)
    assert r.source == pb.SampleMoveReply.BOOK
    with registry.acquire(EXACT_PARAMS.variant) as b:
        assert b.manifest["rounds"]["1v1"]["served"] == "stored rows" and not b.resolves(1, 1)
        assert distribution(r) == pytest.approx(moves(*b._row(1, 1, (4,), list(LATE))), abs=1e-12)
    stats = stub.GetStats(pb.GetStatsRequest(variant=EXACT_PARAMS.variant), timeout=10)
    rnd = next(s for v in stats.variants for s in v.strategies if s.strategy == "round 1v1")
    assert rnd.labels["br_kind"] == "exact-perfect-recall" and rnd.labels["served"] == "stored rows"
    assert server.live_pool.pids()["busy"] == []


def test_a_round_with_a_bound_is_still_re_solved(registry):
    """This module's other store states a lower bound for 1v1 (memory 2): its endgames are re-solved."""
    with registry.acquire(PARAMS.variant) as b:
        assert b.manifest["rounds"]["1v1"]["served"].startswith("stored rows, endgames re-solved")
        assert b.resolves(1, 1)
