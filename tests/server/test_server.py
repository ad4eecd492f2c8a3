"""The service over a real gRPC channel on loopback, including bad input."""
import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from clients.client import GameStrategyClient
from tests.conftest import SMALL_VARIANT
from protos import gamestrategy_pb2 as pb
from games.jotto.dictionary import load_dictionary
from server.app import build_server
from server.registry import Registry

W = load_dictionary(SMALL_VARIANT).words[0]


@pytest.fixture(scope="module")
def service(small_store):
    root, path = small_store
    registry = Registry(root)
    registry.refresh()
    server, port = build_server(registry, "127.0.0.1:0")
    server.start()
    client = GameStrategyClient(f"127.0.0.1:{port}", timeout=20)
    yield client, registry.backends[SMALL_VARIANT], port
    client.close()
    server.stop(0).wait()
    registry.close()


def play(client, backend, secret: str, seed: int, strategy: str = ""):
    """A whole game: the service guesses `secret`; returns the replies."""
    history, replies = [], []
    for _ in range(40):
        m = client.jotto_move(SMALL_VARIANT, "guesser", history, seed=seed, strategy=strategy)
        replies.append(m)
        if m.move == secret:
            return replies
        i, j = backend.dictionary.index(m.move), backend.dictionary.index(secret)
        history.append((m.move, int(backend.oracle.C[i, j])))
    raise AssertionError("the guesser did not find the word")


def test_health_and_list_variants(service):
    client, backend, port = service
    stub = health_pb2_grpc.HealthStub(client.channel)
    assert stub.Check(health_pb2.HealthCheckRequest(service="gamestrategy.v1.GameStrategy"),
                      timeout=5).status == health_pb2.HealthCheckResponse.SERVING
    v = client.list_variants().variants
    assert [x.variant for x in v] == [SMALL_VARIANT]
    assert {s.name for s in v[0].strategies} == {"benchmark", "beeler", "fp", "double_oracle", "people"}
    assert sum(s.served_default for s in v[0].strategies) == 1


def test_reflection_describes_the_service(service):
    """grpcurl and other tools find the service through server reflection (a bidirectional stream)."""
    from google.protobuf.descriptor_pool import DescriptorPool
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

    client, _, _ = service
    db = ProtoReflectionDescriptorDatabase(client.channel)
    assert "gamestrategy.v1.GameStrategy" in db.get_services()
    svc = DescriptorPool(db).FindServiceByName("gamestrategy.v1.GameStrategy")
    assert {"SampleMove", "SampleMoves", "SampleMoveStream", "GetStats"} <= {m.name for m in svc.methods}


def test_whole_games_follow_one_member_and_match_its_tree(service):
    client, backend, _ = service
    s = backend.strategies[backend.served]
    for seed in range(6):
        secret = backend.dictionary.words[(seed * 17) % backend.oracle.D]
        replies = play(client, backend, secret, seed)
        member = replies[0].member
        assert all(r.member == member and r.on_policy for r in replies)
        assert member == s.member_for_seed(seed)
        tree = backend.oracle.tree(s.member_hider(member), s.member_kind(member))  # a greedy or rollout member
        assert len(replies) == tree.guesses[backend.dictionary.index(secret)]
        assert all((r.source == "book") == (r.consistent_words > backend.threshold) for r in replies)


def test_moves_are_reproducible_and_distribution_is_a_distribution(service):
    client, backend, _ = service
    a = client.jotto_move(SMALL_VARIANT, "guesser", [], seed=99, distribution=True)
    b = client.jotto_move(SMALL_VARIANT, "guesser", [], seed=99, distribution=True)
    assert a == b and a.source == "book"
    assert sum(p for _, p in a.distribution) == pytest.approx(1.0)
    assert dict(a.distribution)[a.move] == pytest.approx(a.probability)
    h1 = client.jotto_move(SMALL_VARIANT, "hider", seed=5, distribution=True)
    h2 = client.jotto_move(SMALL_VARIANT, "hider", seed=5)
    assert h1.move == h2.move and h1.move in backend.dictionary.words
    assert sum(p for _, p in h1.distribution) == pytest.approx(1.0)


def test_live_answer_for_a_small_state(service):
    client, backend, _ = service
    # the first secret whose game reaches a small state (a lucky guess can end a game in the book)
    replies = next(r for r in (play(client, backend, w, seed=1, strategy="benchmark")
                               for w in backend.dictionary.words[3:13]) if r[-1].source == "live")
    assert replies[0].source == "book" and replies[-1].source == "live"
    assert replies[-1].consistent_words <= backend.threshold


def test_off_policy_history_is_answered_and_flagged(service):
    client, backend, _ = service
    first = client.jotto_move(SMALL_VARIANT, "guesser", [], seed=4)
    other = next(w for w in backend.dictionary.words if w != first.move
                 and all(m != w for m, _ in client.jotto_move(SMALL_VARIANT, "guesser", [], distribution=True).distribution))
    m = client.jotto_move(SMALL_VARIANT, "guesser", [(other, 0)], seed=4)
    assert not m.on_policy and m.move in backend.dictionary.words


def test_stats(service):
    client, backend, _ = service
    v = client.stats(SMALL_VARIANT).variants[0]
    assert v.served_strategy == backend.served
    figs = {s.strategy: dict(s.figures) for s in v.strategies}
    for name in ("benchmark", "fp", "double_oracle", "beeler", "people"):
        f = figs[name]
        assert f["gap"] == pytest.approx(f["epsilon_hider"] + f["epsilon_guesser"])
        assert f["gap"] == pytest.approx(f["guarantee"] - f["hider_vs_gbr"])
        # the rollout guesser never needs more guesses than the GBR it rolls out (rollout improvement)
        assert f["hider_vs_rollout"] <= f["hider_vs_gbr"] + 1e-9
        assert f["epsilon_rollout"] >= f["epsilon"] - 1e-9
    assert figs["fp"]["iterations"] == 60
    for s in v.strategies:     # each names its headline, of its kind, in its unit
        assert (s.headline, s.headline_kind, s.units["guarantee"]) == ("guarantee", "exact", "guesses"), s.strategy
        assert s.units["epsilon"] == "guesses" and s.units["mixture_size"] == "count"


def _err(fn):
    with pytest.raises(grpc.RpcError) as e:
        fn()
    return e.value.code(), e.value.details()


@pytest.mark.parametrize("history,fault", [
    ([("qq", 1)], "is not a word"),
    ([(W, 7)], "out of range"),
    ([(W, 1), (W, 1)], "already guessed"),
    ([(W, 2)], "game is over"),
])
def test_bad_history_is_invalid_argument(service, history, fault):
    client, backend, _ = service
    code, details = _err(lambda: client.jotto_move(SMALL_VARIANT, "guesser", history))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and fault in details


def test_contradictory_history_is_invalid_argument(service):
    client, backend, _ = service
    d, o = backend.dictionary, backend.oracle
    # two answers below L that no word satisfies together, found by search
    hist = next([(d.words[a], ja), (d.words[b], jb)]
                for a in range(d.size) for b in range(a + 1, d.size) for ja in range(d.length) for jb in range(d.length)
                if len(o.consistent([a], [ja])) and len(o.consistent([b], [jb])) and not len(o.consistent([a, b], [ja, jb])))
    code, details = _err(lambda: client.jotto_move(SMALL_VARIANT, "guesser", hist))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "no consistent word" in details


def test_other_bad_requests(service):
    client, backend, port = service
    stub = client.stub
    cases = {
        "empty": pb.SampleMoveRequest(),
        "no state": pb.SampleMoveRequest(variant=SMALL_VARIANT),
        "no role": pb.SampleMoveRequest(variant=SMALL_VARIANT, jotto=pb.JottoState()),
        "unknown strategy": pb.SampleMoveRequest(variant=SMALL_VARIANT, strategy="nope", jotto=pb.JottoState(role=2)),
        "oversized": pb.SampleMoveRequest(variant=SMALL_VARIANT, jotto=pb.JottoState(
            role=2, history=[pb.JottoTurn(guess="x" * 1000, jots=1)] * 100)),
        "hider with history": pb.SampleMoveRequest(variant=SMALL_VARIANT, jotto=pb.JottoState(
            role=1, history=[pb.JottoTurn(guess=W, jots=1)])),
    }
    for name, req in cases.items():
        code, details = _err(lambda: stub.SampleMove(req, timeout=5))
        assert code == grpc.StatusCode.INVALID_ARGUMENT, name
        assert details, name
    code, details = _err(lambda: stub.SampleMove(pb.SampleMoveRequest(variant="jotto-en_US80-9-nope",
                                                                       jotto=pb.JottoState(role=1)), timeout=5))
    assert code == grpc.StatusCode.NOT_FOUND and "unknown variant 'jotto-en_US80-9-nope'" in details
    code, _ = _err(lambda: client.stats("jotto-nope"))
    assert code == grpc.StatusCode.NOT_FOUND
    # and the server still serves
    assert client.jotto_move(SMALL_VARIANT, "guesser", [], seed=1).move


def test_cli_reports_errors_in_one_line(service, capsys):
    from clients.cli import main

    _, _, port = service
    assert main(["--target", f"127.0.0.1:{port}", "sample", SMALL_VARIANT, "--history", "qq:1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "INVALID_ARGUMENT" in err[0] and "'qq'" in err[0]
    assert main(["--target", f"127.0.0.1:{port}", "stats"]) == 0
    assert "double_oracle" in capsys.readouterr().out


def test_server_draws_equal_the_strategy_draws(service):
    """The backend draws members and secret words with bisect on Python lists (no numpy call on the hot
    path): the same draws as GuesserStrategy.member_for_seed / hider_word for every strategy and seed."""
    _, b, _ = service
    from games.seeding import seeded_uniform
    from server.backends.jotto import draw

    for name, s in b.strategies.items():
        for seed in list(range(3000)) + [2**64 - 1, 2**63, 123456789123456789]:
            assert draw(b._member_cum[name], seeded_uniform(seed, 0)) == s.member_for_seed(seed)
            w = s.hider_word(seed)
            r = b.sample_hider(name, seed, False)
            assert r.move == b.dictionary.words[w]
            assert r.probability == float((s.hider / s.hider.sum())[w])
            assert b.sample_hider(name, seed, True).probability == r.probability


def test_reused_results_are_bounded_and_equal_fresh_ones(service, monkeypatch):
    import server.backends.jotto as jb

    _, b, _ = service
    fresh = [b.sample_guesser("", seed, [], False) for seed in range(40)]
    monkeypatch.setattr(jb, "MAX_RESULTS", 5)
    b._results.clear()
    for _ in range(2):
        again = [b.sample_guesser("", seed, [], False) for seed in range(40)]
        assert again == fresh and len(b._results) <= 5


def test_a_call_without_a_deadline_has_none():
    """gRPC reports "no deadline" as an enormous time remaining; waiting that long overflowed (a live
    Dudo answer without a client deadline failed with UNKNOWN: timestamp out of range)."""
    import time
    from concurrent import futures

    from server.service import _deadline

    def handler(request, context):
        d = _deadline(context)
        return b"none" if d is None else f"{d - time.monotonic():.1f}".encode()

    server = grpc.server(futures.ThreadPoolExecutor(2), options=[("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
        "t.T", {"D": grpc.unary_unary_rpc_method_handler(handler)})])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            call = ch.unary_unary("/t.T/D")
            assert call(b"") == b"none"
            assert 0 < float(call(b"", timeout=30)) <= 31
    finally:
        server.stop(0).wait()
