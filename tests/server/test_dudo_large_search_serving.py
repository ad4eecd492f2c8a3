"""Large rounds served by search (games.dudo.serving.large_search on the store's search tables): the server answers the
searched policy in the live pool (LIVE), the same bits as the research path's resolver chain computed from the
stored rows (continual.continuation_values, search5.int8_continuations, search5.AbstractResolver), whatever chain
states the server held before; DEGRADED with the store's row without a live slot; the store's rows on request
(strategy "fsicfr"); an unknown strategy refused."""
import re

import grpc
import numpy as np
import pytest

from games.dudo.search.continual import continuation_values
from games.dudo.serving.endgame_store import resolve_from_store, stored_group
from games.dudo.search.abstract_resolve import AbstractResolver, int8_continuations, top_claims
from games.dudo.policy.served import SERVED_SEARCH_LARGE
from games.dudo.build.params import DudoParams
from games.dudo.rules import claim
from games.storage import Store
from protos import gamestrategy_pb2 as pb
from server.backends import dudo as dudo_backend
from tests.server import test_dudo_endgame_serving as endgame
from tests.server.test_dudo_endgame_serving import distribution, moves
from tests.server.test_live_pool import ready
from tests.server.test_live_serving import dudo_registry, served

PARAMS = DudoParams(max_dice=1, iterations=60, memory=1, perfect_recall_total=0, exact_br_total=2,
                    large_search=(2, 2, 20, 4))
HIST = (0, 4)     # the requester opened; its second decision


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    yield from dudo_registry(tmp_path_factory, PARAMS)


def _service(registry):
    for stub, server in served(registry, live_slots=1):
        server.live_pool.start(1)
        assert ready(server.live_pool, wait=900.0)
        yield stub, server


@pytest.fixture(scope="module")
def service(registry):
    yield from _service(registry)


@pytest.fixture(scope="module")
def no_slots(registry):
    yield from served(registry, live_slots=0)


def req(history, roll=(4,), seed=0, strategy=""):
    r = endgame.req(history, roll, seed, params=PARAMS)
    r.strategy = strategy
    return r


def research_policy(registry, opened, threads=1):
    """The searched policy as the research path computes it, from the store's rows only."""
    with registry.acquire(PARAMS.variant) as b:
        store = Store(b.store.path)
    g, strat, m = stored_group(store, (1, 1))
    W = {}
    cont = int8_continuations(continuation_values(1, 1, m, strat, W, 1, opened))
    return AbstractResolver(1, 1, opened, W, cont, top_claims(strat, g, 4), depth=2, iterations=20, A=4,
                            threads=threads)


def test_a_large_round_is_answered_by_search_as_the_research_path_computes_it(service, registry):
    stub, _ = service
    r = stub.SampleMove(req(HIST), timeout=120)
    assert r.source == pb.SampleMoveReply.LIVE and r.strategy == "search"
    from games.dudo.rules import roll_index
    P = research_policy(registry, True).strategy(HIST)
    x = roll_index((4,))
    want = moves([-1] + list(range(5, 12)), [P[0, x]] + [P[c - 4, x] for c in range(5, 12)])
    assert distribution(r) == pytest.approx(want, abs=1e-12)
    assert distribution(r) != pytest.approx(endgame.book(registry, HIST, params=PARAMS), abs=1e-3)
    assert stub.SampleMove(req(HIST), timeout=120) == r      # again, from the chain state held


def test_the_answer_does_not_depend_on_the_chain_states_held(registry):
    """A server that answered the earlier decisions first (their chain states cached) and a fresh one answer
    the same bits; and so does the resolver on two threads."""
    answers = []
    for warm in (False, True):
        for stub, _ in _service(registry):
            if warm:
                stub.SampleMove(req(()), timeout=120)
            answers.append(distribution(stub.SampleMove(req(HIST), timeout=120)))
    assert answers[0] == answers[1]
    assert np.array_equal(research_policy(registry, True, threads=2).strategy(HIST),
                          research_policy(registry, True).strategy(HIST))


def test_without_a_live_slot_the_stored_row_is_marked_degraded(no_slots, registry):
    stub, _ = no_slots
    r = stub.SampleMove(req(HIST), timeout=60)
    assert r.source == pb.SampleMoveReply.DEGRADED
    assert distribution(r) == pytest.approx(endgame.book(registry, HIST, params=PARAMS), abs=1e-12)


def test_the_stored_rows_on_request_and_an_unknown_strategy_refused(service, registry):
    stub, _ = service
    r = stub.SampleMove(req(HIST, strategy="fsicfr"), timeout=60)
    assert r.source == pb.SampleMoveReply.LIVE and r.strategy == "fsicfr"   # the rows, this endgame re-solved
    with registry.acquire(PARAMS.variant) as b:
        path = str(b.store.path)
    want = resolve_from_store(path, 1, 1, (4,), HIST, True, dudo_backend.ENDGAME)
    assert distribution(r) == pytest.approx(moves(want[0], want[1]), abs=1e-12)
    early = stub.SampleMove(req((), strategy="fsicfr"), timeout=60)
    assert early.source == pb.SampleMoveReply.BOOK
    assert distribution(early) == pytest.approx(endgame.book(registry, (), params=PARAMS), abs=1e-12)
    with pytest.raises(grpc.RpcError) as e:
        stub.SampleMove(req(HIST, strategy="nosuch"), timeout=60)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "nosuch" in e.value.details()


def test_a_claim_the_search_never_makes_gets_the_stored_row(service, registry):
    """Own claims outside the searched policy's support: the policy never reaches the history; the store's row."""
    stub, _ = service
    pol = research_policy(registry, True)
    P = pol.strategy(HIST)            # A = 4 claims kept after the root: the others never made
    never = next(c for c in range(5, 11) if not P[c - 4].any())
    hist = HIST + (never, never + 1)
    r = stub.SampleMove(req(hist), timeout=60)
    assert r.source == pb.SampleMoveReply.BOOK
    assert distribution(r) == pytest.approx(endgame.book(registry, hist, params=PARAMS), abs=1e-12)


def test_stats_label_the_searched_rounds_and_name_search_served(service):
    stub, _ = service
    v = stub.GetStats(pb.GetStatsRequest(variant=PARAMS.variant), timeout=30).variants[0]
    assert v.served_strategy == "search"
    st = {s.strategy: s for s in v.strategies}["round 1v1"]
    assert st.labels["served"] == SERVED_SEARCH_LARGE
    assert st.labels["served_kind"].startswith("not measured") and "stored rows" in st.labels["rows_figures"]
    assert st.headline == "" and st.headline_kind == "not measured"    # the rows' figures are not the served one's
    lv = stub.ListVariants(pb.ListVariantsRequest(game="dudo"), timeout=30).variants[0]
    assert [s.name for s in lv.strategies] == ["search", "fsicfr"]


def test_the_measured_policy_is_the_served_one(service, registry):
    """served.served_policy (what the figures measure) answers each decision as the server does: the same
    dispatch (served.decide) and the same task functions."""
    from games.dudo.reference import exact_check as xc
    from games.dudo.serving.endgame_store import store_blueprint, store_W
    from games.dudo.abstraction.infoset import history_window
    from games.dudo.serving.large_search import searched_strategy
    from games.dudo.rules import roll_index
    from games.dudo.policy.served import served_policy
    from games.dudo.store import store_memories
    stub, _ = service
    with registry.acquire(PARAMS.variant) as b:
        store, path, backend = b.store, str(b.store.path), b
        stored = xc.stored_policy(lambda key: store.get("windows", key), store_memories(store.manifest),
                                  history_window)
        pol = served_policy(stored, store_blueprint(store), store_W(store.manifest), backend.endgame,
                            rounds=backend.resolves, large={r: (lambda o, p, h: searched_strategy(path, o, p, h, len(h) % 2 == 0))
                                   for r in backend.large_rounds})
    for hist in [(), (0, 4), (2,), (1, 6, 8)]:
        opened = len(hist) % 2 == 0
        r = stub.SampleMove(req(hist), timeout=120)
        on_policy = searched_strategy(path, 1, 1, hist, opened) is not None
        assert r.source == (pb.SampleMoveReply.LIVE if on_policy else pb.SampleMoveReply.BOOK)
        P = pol(1, 1, hist)
        x = roll_index((4,))
        last = hist[-1] if hist else -1
        acts = ([-1] if hist else []) + list(range(last + 1, 12))
        want = moves(acts, [P[0 if a < 0 else a - last, x] for a in acts])
        assert distribution(r) == pytest.approx(want, abs=1e-12), hist


def test_a_search_runs_on_two_threads_only_on_an_idle_machine(registry, monkeypatch):
    """The thread count follows the live work running in the process and the tasks runnable on the machine (the
    answer does not: the tests above compare the server's answers with one thread's)."""
    from server.live import LiveCall, Refused
    asked = []

    class SpyPool:
        default_seconds, margin = 10.0, 0.05

        def __init__(self, running):
            self.running = running

        def submit(self, fn, *args, **kw):
            asked.append(args[7])
            raise Refused("RESOURCE_EXHAUSTED", "spy")

    with registry.acquire(PARAMS.variant) as b:
        for running, others in ((0, 0), (1, 0), (0, 3), (0, 1), (0, None)):
            monkeypatch.setattr(dudo_backend, "others_running", lambda others=others: others)
            assert b._large_searched(1, 1, (4,), HIST, True, LiveCall(SpyPool(running))) == dudo_backend.DEGRADED
    assert asked == [2, 1, 1, 2, 1] and dudo_backend.IDLE_SEARCH_THREADS == 2 and dudo_backend.OTHERS_IDLE == 1


def test_others_running_reads_the_instant_count(tmp_path):
    """/proc/loadavg's fourth field counts the reader too; an unreadable or odd file is None, not a guess."""
    from server.live import others_running
    f = tmp_path / "loadavg"
    for text, want in (("0.52 0.58 0.59 3/467 12345\n", 2), ("0.00 0.01 0.05 1/90 7\n", 0), ("0.1 0.2\n", None),
                       ("0.1 0.2 0.3 x/90 7\n", None)):
        f.write_text(text)
        assert others_running(str(f)) == want
    assert others_running(str(tmp_path / "missing")) is None


def _game(third):
    """A 1v1 game of one round: the reviewed player opens 1x2 (strength 0), the opponent claims 1x6 (4), the
    reviewed player claims ``third``, the opponent calls Dudo."""
    return pb.DudoRound(own_dice=1, opponent_dice=1, roll=[4], opponent_roll=[3], reviewed_opened=True,
                        claims=[pb.DudoClaim(count=n, face=f) for n, f in (claim(s, 2) for s in (0, 4, third))])


def test_a_review_under_search_gives_the_searched_policys_probabilities(service, registry):
    """AnalyzeGame of a game played under strategy search (the default here): each decision of the searched round
    shows the searched policy's probabilities (large_search.searched_strategy, what SampleMove serves), labelled
    search; under fsicfr the stored rows', labelled so."""
    from games.dudo.rules import roll_index
    from games.dudo.serving.large_search import searched_strategy
    stub, _ = service
    with registry.acquire(PARAMS.variant) as b:
        path = str(b.store.path)
    x = roll_index((4,))
    P = searched_strategy(path, 1, 1, HIST, True)
    third = next(c for c in range(5, 11) if P[c - 4, x] > 0)
    r = stub.AnalyzeGame(pb.AnalyzeGameRequest(variant=PARAMS.variant, dudo=[_game(third)]), timeout=120)
    assert r.strategy == "search" and [m.policy for m in r.moves] == ["search", "search"]
    for m, hist, played in zip(r.moves, ((), HIST), (0, third)):
        P = searched_strategy(path, 1, 1, hist, True)
        last = hist[-1] if hist else -1
        assert m.probability == pytest.approx(P[played - last, x], abs=1e-12)
        by_move = {a.move: a.probability for a in m.alternatives}
        acts = ([-1] if hist else []) + list(range(last + 1, 12))
        assert by_move == pytest.approx(moves(acts, [P[0 if a < 0 else a - last, x] for a in acts]), abs=1e-12)
        assert m.before == pytest.approx(sum(a.probability * a.value for a in m.alternatives), abs=1e-12)
    rows = stub.AnalyzeGame(pb.AnalyzeGameRequest(variant=PARAMS.variant, strategy="fsicfr", dudo=[_game(third)]),
                            timeout=120)
    assert rows.strategy == "fsicfr" and [m.policy for m in rows.moves] == ["fsicfr", "fsicfr"]
    assert rows.moves[1].probability == pytest.approx(endgame.book(registry, HIST, params=PARAMS)[
        "{}x{}".format(*claim(third, 2))], abs=1e-12)
    assert rows.moves[1].probability != pytest.approx(r.moves[1].probability, abs=1e-3)
    assert [m.value for m in rows.moves] == [m.value for m in r.moves]     # the values: the stored rows' rest of round


def test_a_searched_decision_the_review_cannot_afford_says_so(registry):
    """Less time left than a decision's re-solve: that move shows the stored rows' probabilities and its label says
    it was not searched, with the seconds it needed; the round's root needs no re-solve. With the time up, no
    decision is searched."""
    import time

    from games.dudo.serving.move_scoring import MAX_NODES, Round, review_from_store
    from games.dudo.serving.searched_probabilities import FLOOR_SECONDS, SearchedProbabilities
    with registry.acquire(PARAMS.variant) as b:
        path, manifest = str(b.store.path), dict(b.store.manifest)
    nearly_up = SearchedProbabilities(path, manifest, until=100.0, clock=lambda: 100.0 - FLOOR_SECONDS - 1e-9)
    rnd = Round(1, 1, (4,), (3,), True, [], True)
    assert nearly_up(rnd, ())[1] == "search"
    sigma, label = nearly_up(rnd, HIST)
    assert sigma is None and re.fullmatch(r"fsicfr: not searched, the review's time ran out \(its re-solves need "
                                          r"about [\d.]+ s, 0\.5 s left\)", label)
    rounds = [dict(own=1, opp=1, roll=[4], opp_roll=[3], opened=True, claims=[claim(s, 2) for s in (0, 4, 6)])]
    out = review_from_store(path, rounds, MAX_NODES, time.monotonic())
    assert out["strategy"] == "search"
    assert [m["policy"].startswith("fsicfr: not searched") for m in out["moves"]] == [True, True]
    assert out["moves"][1]["probability"] == pytest.approx(endgame.book(registry, HIST, params=PARAMS)[
        "{}x{}".format(*claim(6, 2))], abs=1e-12)


def test_a_review_searches_a_decision_only_with_twice_its_scaled_time_left(registry, monkeypatch):
    """A re-solve cannot be stopped and a review killed at its deadline answers nothing: a decision is searched
    when its modelled re-solves, scaled by the server's estimate scale or the slowest recent re-solve of the
    process, need at most half the time left past the floor."""
    from collections import deque

    from games.dudo.cost import large_resolve_seconds
    from games.dudo.serving import searched_probabilities as sp
    from games.dudo.serving.move_scoring import Round
    with registry.acquire(PARAMS.variant) as b:
        path, manifest = str(b.store.path), dict(b.store.manifest)
    rnd = Round(1, 1, (4,), (3,), True, [], True)
    modelled = large_resolve_seconds(1, 1, HIST, 4, 20)        # one re-solve: the seat's second decision
    for scale, left, searched in ((1.0, 1.5, False), (1.0, 2.5, True), (2.0, 2.5, False), (2.0, 4.5, True)):
        monkeypatch.setattr(sp, "_RATIOS", deque(maxlen=sp.RECENT))
        probs = sp.SearchedProbabilities(path, manifest, until=100.0, scale=scale,
                                         clock=lambda left=left: 100.0 - sp.FLOOR_SECONDS - left * modelled)
        assert (probs(rnd, HIST)[1] == "search") is searched, (scale, left)
    monkeypatch.setattr(sp, "_RATIOS", deque([3.0], maxlen=sp.RECENT))    # a slow re-solve seen: 3 x the model
    probs = sp.SearchedProbabilities(path, manifest, until=100.0,
                                     clock=lambda: 100.0 - sp.FLOOR_SECONDS - 5.5 * modelled)
    assert probs(rnd, HIST)[1].startswith("fsicfr: not searched")
