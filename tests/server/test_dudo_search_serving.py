"""A round served by search (games.dudo.policy.searched): the server answers the searched policy in the live pool
(LIVE, the same distribution as the worker's task run in-process, the same on a repeat), says DEGRADED with
the store's row where it cannot (no live slot), and labels the round in GetStats.  The figure it states is
checked in tests/games/test_dudo_searched.py."""
import functools

import pytest

from games.dudo.serving.searched_store import searched_move_from_store
from games.dudo.policy.served import SERVED_SEARCHED
from protos import gamestrategy_pb2 as pb
from tests.server import test_dudo_endgame_serving as endgame
from tests.server.test_dudo_endgame_serving import distribution, moves
from tests.server.test_live_pool import ready
from tests.server.test_live_serving import dudo_registry, served
from tests.games.test_dudo_searched import PARAMS

HIST = (0, 4)     # the requester opened; its second decision


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    yield from dudo_registry(tmp_path_factory, PARAMS)


@pytest.fixture(scope="module")
def service(registry):
    for stub, server in served(registry, live_slots=1):
        server.live_pool.start(1)
        assert ready(server.live_pool, wait=900.0)    # a loaded machine can take minutes
        yield stub, server


@pytest.fixture(scope="module")
def no_slots(registry):
    yield from served(registry, live_slots=0)


req = functools.partial(endgame.req, params=PARAMS)
book = functools.partial(endgame.book, params=PARAMS)


def test_a_searched_round_is_answered_by_search_live(service, registry):
    stub, _ = service
    r = stub.SampleMove(req(HIST), timeout=120)
    assert r.source == pb.SampleMoveReply.LIVE
    with registry.acquire(PARAMS.variant) as b:
        path = str(b.store.path)
    want = searched_move_from_store(path, 1, 1, (4,), HIST, True)
    assert distribution(r) == pytest.approx(moves(*want), abs=1e-12)
    assert distribution(r) != pytest.approx(book(registry, HIST), abs=1e-3)
    assert stub.SampleMove(req(HIST), timeout=120) == r


def test_without_a_live_slot_the_stored_row_is_marked_degraded(no_slots, registry):
    stub, _ = no_slots
    r = stub.SampleMove(req(HIST), timeout=60)
    assert r.source == pb.SampleMoveReply.DEGRADED
    assert distribution(r) == pytest.approx(book(registry, HIST), abs=1e-12)


def test_stats_label_the_searched_round(service):
    stub, _ = service
    v = stub.GetStats(pb.GetStatsRequest(variant=PARAMS.variant), timeout=30).variants[0]
    st = {s.strategy: s for s in v.strategies}["round 1v1"]
    assert st.labels["served"] == SERVED_SEARCHED
    assert st.figures["exploitability"] < st.figures["stored_exploitability"]
