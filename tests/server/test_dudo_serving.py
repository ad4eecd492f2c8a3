"""Dudo served over gRPC: store rows equal the solver's distributions, validation, live fallback."""
import grpc
import numpy as np
import pytest

from builder.dudo import build_dudo_store
from games.dudo.build.solve_game import solve_params
from games.dudo.build.params import DudoParams
from games.dudo.store import lookup_row, store_memories
from games.dudo.rules import strength
from games.quantise import UNIT, quantise
from games.storage import Store
from protos import gamestrategy_pb2 as pb
from server.app import build_server
from server.registry import Registry
from tests.conftest import stub_on

PARAMS = DudoParams(max_dice=1, iterations=200)


@pytest.fixture(scope="module")
def dudo_service(tmp_path_factory):
    root = tmp_path_factory.mktemp("dudo")
    path = build_dudo_store(PARAMS, root)
    registry = Registry(root)
    registry.refresh()
    server, port = build_server(registry, "127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    from protos import gamestrategy_pb2_grpc as pb_grpc

    yield pb_grpc.GameStrategyStub(channel), path
    channel.close()
    server.stop(0).wait()
    server.live_pool.close()
    registry.close()


def req(own=1, opp=1, roll=(3,), history=(), opened=True, seed=0, dist=True, variant=PARAMS.variant):
    return pb.SampleMoveRequest(variant=variant, game_seed=seed, want_distribution=dist, dudo=pb.DudoState(
        own_dice=own, opponent_dice=opp, roll=list(roll),
        history=[pb.DudoClaim(count=n, face=r) for n, r in history], requester_opened=opened))


def test_store_holds_every_information_set_with_the_solvers_distribution(dudo_service):
    _, path = dudo_service
    sol = solve_params(PARAMS, progress=False)
    store = Store(path)
    get, mem = (lambda k: store.get("windows", k)), store_memories(store.manifest)
    windows = set()
    for iid, own, opp, roll, window, actions, probs in sol.iter_infosets():
        a, p = lookup_row(get, mem, own, opp, roll, list(window))
        q = quantise(np.asarray(probs))
        assert a.tolist() == [ac for ac, u in zip(actions, q) if u > 0] and (p * UNIT).tolist() == q[q > 0].tolist()
        assert p.sum() == 1.0 and np.abs(p - np.asarray(probs)[q > 0]).max() < 1 / UNIT
        windows.add((own, opp, window))
    assert len(windows) == store.manifest["windows"] > 0
    assert store.manifest["memory_by_group"] == [[1, 1, "perfect"]]
    store.close()


def test_sample_move_reads_the_book_and_is_reproducible(dudo_service):
    stub, path = dudo_service
    r1 = stub.SampleMove(req(seed=5), timeout=10)
    r2 = stub.SampleMove(req(seed=5), timeout=10)
    assert r1 == r2 and r1.source == pb.SampleMoveReply.BOOK and r1.store_version == path.name
    assert sum(d.probability for d in r1.distribution) == pytest.approx(1.0)
    assert "dudo" not in [d.move for d in r1.distribution]  # no challenge before the first claim
    after = stub.SampleMove(req(history=[(1, 4)], opened=False), timeout=10)
    moves = [d.move for d in after.distribution]
    assert "dudo" in moves and all(m == "dudo" or strength(*map(int, m.split("x")), 2) > strength(1, 4, 2)
                                   for m in moves)  # only stronger claims follow 1x4 (zero-probability ones are left out)
    store = Store(path)
    a, p = lookup_row(lambda k: store.get("windows", k), store_memories(store.manifest), 1, 1, (3,), [strength(1, 4, 2)])
    assert dict(zip([d.move for d in after.distribution], [d.probability for d in after.distribution]))["dudo"] == \
        p[a.tolist().index(-1)]
    store.close()


@pytest.mark.parametrize("bad,fault", [
    (dict(roll=(3, 4)), "roll has 2 dice"),
    (dict(roll=(7,)), "faces are 1..6"),
    (dict(own=6, roll=(1,) * 6), "1..5 dice"),
    (dict(history=[(3, 2)], opened=False), "a claim counts 1..2 dice"),
    (dict(history=[(1, 4), (1, 3)]), "not stronger"),
    (dict(history=[(1, 4)], opened=True), "opponent's turn"),
    (dict(history=[], opened=False), "opener moves first"),
    (dict(history=[(1, 9)], opened=False), "face 9"),
])
def test_bad_dudo_requests_are_invalid_argument(dudo_service, bad, fault):
    stub, _ = dudo_service
    with pytest.raises(grpc.RpcError) as e:
        stub.SampleMove(req(**bad), timeout=10)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and fault in e.value.details()
    assert stub.SampleMove(req(), timeout=10).move  # still serving


def test_an_unknown_strategy_is_refused_as_every_game_refuses_it(dudo_service):
    stub, _ = dudo_service
    bad = req()
    bad.strategy = "nosuch"
    with pytest.raises(grpc.RpcError) as e:
        stub.SampleMove(bad, timeout=10)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "unknown strategy 'nosuch'" in e.value.details() and "(known: fsicfr)" in e.value.details()
    named = req()
    named.strategy = "fsicfr"
    assert stub.SampleMove(named, timeout=10) == stub.SampleMove(req(), timeout=10)


def test_dice_beyond_the_store_are_solved_live(dudo_service):
    stub, _ = dudo_service
    r = stub.SampleMove(req(own=2, opp=1, roll=(1, 5)), timeout=120)
    assert r.source == pb.SampleMoveReply.LIVE
    assert sum(d.probability for d in r.distribution) == pytest.approx(1.0)


def test_stats_per_round(dudo_service):
    stub, _ = dudo_service
    v = stub.GetStats(pb.GetStatsRequest(variant=PARAMS.variant), timeout=10).variants[0]
    rounds = {s.strategy: s for s in v.strategies}
    r11 = rounds["round 1v1"]
    # the 1v1 round value against the exact game value -7/258 of the first claimant (NOTES.md)
    assert r11.figures["value"] == pytest.approx(0.5 * (1 - 7 / 258), abs=2e-3)
    assert r11.labels["br_kind"] == "exact-perfect-recall" and r11.figures["exploitability"] >= 0
    assert r11.labels["memory"] == "perfect"
    assert (r11.headline, r11.headline_kind) == ("exploitability", "exact (perfect-recall best response)")
    assert r11.units["exploitability"] == "win probability, both seats summed"
    assert r11.units["value"] == "win probability (the opener's)"


TINY5 = DudoParams(max_dice=5, iterations=1, exact_br_total=0, memory_budget=1, time_budget=1e-9, label="tiny")


def test_five_dice_store_with_memory_by_budget_answers_every_round_from_the_book(tmp_path):
    """Budgets too small for anything give every group m = 1; a 5 v 5 question (and every reachable
    round's first move) is then a book answer, and GetStats shows each round's memory."""
    assert TINY5.variant == "dudo-5dice-tiny" and set(TINY5.memories().values()) == {1}
    build_dudo_store(TINY5, tmp_path)
    with stub_on(tmp_path) as stub:
        r = stub.SampleMove(req(5, 5, (1, 2, 3, 4, 6), history=[(3, 4)], opened=False, variant=TINY5.variant),
                            timeout=10)
        assert r.source == pb.SampleMoveReply.BOOK and sum(d.probability for d in r.distribution) == 1.0
        for op in range(1, 6):
            for oth in range(1, 6):
                if oth == 5 and op < 5:     # no game reaches it
                    continue
                r = stub.SampleMove(req(op, oth, (2,) * op, variant=TINY5.variant), timeout=10)
                assert r.source == pb.SampleMoveReply.BOOK
        v = stub.GetStats(pb.GetStatsRequest(variant=TINY5.variant), timeout=10).variants[0]
        memory = {s.strategy: s.labels["memory"] for s in v.strategies if s.strategy.startswith("round")}
        assert memory["round 5v5"] == "1" and len(memory) == 21



FACES2 = DudoParams(max_dice=2, iterations=40, memory_budget=1 << 30, time_budget=2.0, exact_br_total=2,
                    label="faces", memory_by_group=(((1, 2), "2+1f"), ((2, 2), "1+1f")))


def test_a_store_of_face_memories_serves_the_window_each_history_reaches(tmp_path):
    """Face memories (``infoset.Faces``) built and served: each reply is the solver's distribution at the window
    that walking the group's DAG claim by claim reaches, answered from the book (an endgame may be re-solved: LIVE)."""
    import random
    from games.dudo.search.endgame import endgame_root
    from games.dudo.rules import claim as claim_of, rolls
    from server.backends.dudo import ENDGAME
    build_dudo_store(FACES2, tmp_path)
    sol = solve_params(FACES2, progress=False)
    rng = random.Random(3)
    before = 0
    with stub_on(tmp_path) as stub:
        for _ in range(60):
            own, opp = rng.choice([(1, 2), (2, 1), (2, 2)])
            g, st = sol.groups[(min(own, opp), max(own, opp))], sol.strategies[(min(own, opp), max(own, opp))]
            hist = sorted(rng.sample(range(g.K), rng.randint(0, 6)))
            if own != opp and (len(hist) % 2 == 0) != (own == 2):     # the player with 1 die never opens 1v2
                hist = hist[:-1] if hist else [0]
            opened = len(hist) % 2 == 0             # the requester moves: it opened iff the claims are even
            w = 0
            for c in hist:
                w = int(g.child[g.act_off[w] + c - g.last[w]])
            s = 0 if g.nsides == 1 else g.dice.index(own)
            n, x = int(g.ns[s]), rng.randrange(int(g.ns[s]))
            roll = rolls(own)[x]
            r = stub.SampleMove(req(own, opp, roll, history=[claim_of(c, own + opp) for c in hist], opened=opened,
                                    variant=FACES2.variant), timeout=10)
            in_endgame = endgame_root(hist, ENDGAME.remaining_limit(own, opp), g.K) is not None
            before += not in_endgame
            if r.source == pb.SampleMoveReply.LIVE:     # a face group's endgame is re-solved too (when a worker is up)
                assert in_endgame
                continue
            # the store's row: by policy (BOOK), or where the re-solve could not be had in time (DEGRADED)
            assert r.source == pb.SampleMoveReply.BOOK or (r.source == pb.SampleMoveReply.DEGRADED and in_endgame)
            L = hist[-1] if hist else -1
            row = st[g.rbase[s] + g.act_off[w] * n + x:g.rbase[s] + g.act_off[w + 1] * n:n]
            q = quantise(np.asarray(row[0 if hist else 1:]))
            moves = (["dudo"] if hist else []) + ["%dx%d" % claim_of(c, own + opp) for c in range(L + 1, g.K)]
            want = {mv: u / UNIT for mv, u in zip(moves, q) if u > 0}
            assert {d.move: d.probability for d in r.distribution} == pytest.approx(want, abs=1e-12)
        assert before >= 20
        v = stub.GetStats(pb.GetStatsRequest(variant=FACES2.variant), timeout=10).variants[0]
        memory = {s.strategy: s.labels["memory"] for s in v.strategies if s.strategy.startswith("round")}
        assert memory["round 2v2"] == "1+1f" and memory["round 2v1"] == "2+1f"
