"""Live work over gRPC on a small Dudo store (1 die a player): rounds it does not hold are solved in
the server's live pool. The mechanism, without timing asserts: a deadline or a cancellation stops the
worker process, full slots refuse with RESOURCE_EXHAUSTED, an over-cost request gets FAILED_PRECONDITION
naming the store to build, a cheap one is answered LIVE."""
import threading
import time

import grpc
import pytest

from builder.dudo import build_dudo_store
from games.dudo.build.params import DudoParams
from protos import gamestrategy_pb2 as pb
from protos import gamestrategy_pb2_grpc as pb_grpc
from server.app import build_server
from server.registry import Registry
from server.settings import ServerSettings
from tests.server.test_live_pool import busy_pid, gone

PARAMS = DudoParams(max_dice=1, iterations=20)


def dudo_registry(tmp_path_factory, params):
    """A registry of a Dudo store built with ``params``; closed after."""
    root = tmp_path_factory.mktemp("dudo-live")
    build_dudo_store(params, root)
    r = Registry(root)
    r.refresh()
    yield r
    r.close()


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    yield from dudo_registry(tmp_path_factory, PARAMS)


def served(registry, **settings):
    """(stub, server) over the registry with these settings (one live slot unless given); stopped (and its
    live pool closed) after."""
    server, port = build_server(registry, "127.0.0.1:0", ServerSettings(**{"live_slots": 1, **settings}))
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    yield pb_grpc.GameStrategyStub(channel), server
    channel.close()
    server.stop(0).wait()
    server.live_pool.close()


@pytest.fixture(scope="module")
def service(registry):
    """Estimates as they are."""
    yield from served(registry)


@pytest.fixture(scope="module")
def admitting(registry):
    """Estimates scaled down 1000x: it starts work that runs past its deadline."""
    yield from served(registry, live_estimate_scale=1e-3)


def req(own, opp, seed=0):
    return pb.SampleMoveRequest(variant=PARAMS.variant, game_seed=seed, want_distribution=True, dudo=pb.DudoState(
        own_dice=own, opponent_dice=opp, roll=[1 + k % 6 for k in range(own)], requester_opened=True))


def quiet(pool, wait=30.0):
    """No live computation running (a previous test's stopped one has released its slot)."""
    t = time.monotonic() + wait
    while pool.running and time.monotonic() < t:
        time.sleep(0.01)
    return not pool.running


def test_a_cheap_live_request_is_answered_live(service):
    stub, server = service
    r = stub.SampleMove(req(2, 1), timeout=120)
    assert r.source == pb.SampleMoveReply.LIVE and r.move
    assert sum(d.probability for d in r.distribution) == pytest.approx(1.0)
    assert server.live_pool.pids()["idle"]  # it ran in a worker process, now idle
    again = stub.SampleMove(req(2, 1), timeout=120)
    assert again == r  # seeded, and answered from the solved game kept in the live cache


def test_over_cost_request_gets_failed_precondition_naming_the_store(service):
    stub, server = service
    with pytest.raises(grpc.RpcError) as e:
        stub.SampleMove(req(5, 5), timeout=30)
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "dudo-5dice-default" in e.value.details() and "make build-default-stores" in e.value.details()
    assert "dudo-5dice-full" in e.value.details()
    assert server.live_pool.pids()["busy"] == []  # nothing started


def test_deadline_stops_the_worker(admitting):
    stub, server = admitting
    assert quiet(server.live_pool)
    fut = stub.SampleMove.future(req(3, 3), timeout=1.0)
    pid = busy_pid(server.live_pool)
    with pytest.raises(grpc.RpcError) as e:
        fut.result()
    assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert gone(pid)


def test_cancel_stops_the_worker_and_full_slots_refuse(admitting):
    stub, server = admitting
    assert quiet(server.live_pool)
    fut = stub.SampleMove.future(req(3, 3), timeout=120)
    pid = busy_pid(server.live_pool)
    with pytest.raises(grpc.RpcError) as e:  # the one slot is taken
        stub.SampleMove(req(2, 2), timeout=120)
    assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "maximum of 1 live" in e.value.details()
    assert stub.SampleMove(req(1, 1), timeout=30).source == pb.SampleMoveReply.BOOK  # book hits still served
    fut.cancel()
    assert gone(pid)
    assert server.live_pool.pids()["busy"] == []


def test_the_stores_named_for_5_dice_are_the_profiles():
    """The refusal's advice names stores the builder's profiles build (the server cannot import the builder)."""
    from builder.profiles import DEFAULT, DUDO_DEFAULT, DUDO_FULL, FULL
    from server.backends.dudo import FIVE_DICE, FIVE_DICE_FULL

    assert (FIVE_DICE, FIVE_DICE_FULL) == (DUDO_DEFAULT.variant, DUDO_FULL.variant)
    assert FIVE_DICE in DEFAULT and FIVE_DICE_FULL in FULL
