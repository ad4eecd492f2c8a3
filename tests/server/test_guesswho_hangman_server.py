"""Guess Who and Hangman served over a real gRPC channel: moves, whole games, bad input."""
from fractions import Fraction

import grpc
import numpy as np
import pytest

from builder.guesswho import GuessWhoParams, build_guesswho_store
from builder.hangman import HangmanParams, build_hangman_store
from games.guesswho import optimal_bid
from games.hangman import strategies as hs
from games.hangman.game import ALPHABET, State, lexicon
from protos import gamestrategy_pb2 as pb
from protos import gamestrategy_pb2_grpc as pb_grpc
from server.app import build_server
from server.registry import Registry

GW, HM = "guesswho-12", "hangman-en_US50-4"


@pytest.fixture(scope="module")
def stub(tmp_path_factory):
    root = tmp_path_factory.mktemp("stores")
    build_guesswho_store(GuessWhoParams(12, budget=4000), root)
    build_hangman_store(HangmanParams(4, eval_games=4), root)
    registry = Registry(root)
    registry.refresh()
    assert {GW, HM} <= set(registry.variants())
    server, port = build_server(registry, "127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    yield pb_grpc.GameStrategyStub(channel)
    channel.close()
    server.stop(0).wait()
    registry.close()


def gw(stub, own, opp, strategy="", **kw):
    return stub.SampleMove(pb.SampleMoveRequest(variant=GW, strategy=strategy, guesswho=pb.GuessWhoState(
        own_count=own, opponent_count=opp), **kw), timeout=20)


def hm(stub, action, strategy="", seed=0, **st):
    return stub.SampleMove(pb.SampleMoveRequest(variant=HM, strategy=strategy, game_seed=seed,
                                                hangman=pb.HangmanState(action=action, **st)), timeout=20)


def bad(fn, *a, **kw) -> str:
    with pytest.raises(grpc.RpcError) as e:
        fn(*a, **kw)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    return e.value.details()


def test_guesswho_moves_are_the_dp_bids(stub):
    for own in range(2, 13):
        for opp in range(2, 13):
            r = gw(stub, own, opp)
            assert int(r.move) == optimal_bid(own, opp) and r.strategy == "optimal" and r.probability == 1.0
    assert gw(stub, 12, 3, strategy="bisection").move == "6"
    assert 1 <= int(gw(stub, 12, 3, strategy="tuned").move) <= 11


def test_guesswho_listing_and_exact_stats(stub):
    v = {x.variant: x for x in stub.ListVariants(pb.ListVariantsRequest(game="guesswho")).variants}
    assert set(v) == {GW} and {s.name for s in v[GW].strategies} == {"optimal", "bisection", "tuned"}
    st = stub.GetStats(pb.GetStatsRequest(variant=GW)).variants[0]
    opt = next(s for s in st.strategies if s.strategy == "optimal")
    from games.guesswho import optimal_value
    assert Fraction(opt.labels["optimal_first_mover"]) == optimal_value(12, 12)
    assert opt.labels["vs_optimal"] == "1/2"
    for s in st.strategies:
        assert (s.headline, s.headline_kind) == ("vs_optimal", "exact (dynamic programming)")
        assert all(s.units[k] == "win probability" for k in s.figures if k.startswith("vs_"))
    hm_stats = stub.GetStats(pb.GetStatsRequest()).variants
    ours = next(s for v in hm_stats if v.variant.startswith("hangman") for s in v.strategies if s.strategy == "ours")
    assert ours.headline == "ours_vs_seed" and ours.headline_kind.startswith("measured by play (")
    assert "win probability" in ours.units["ours_vs_seed"]
    seed = next(s for v in hm_stats if v.variant.startswith("hangman") for s in v.strategies if s.strategy == "seed")
    assert (seed.headline, seed.headline_kind) == ("", "not measured")


def test_guesswho_bad_input(stub):
    assert "own_count is 1" in bad(gw, stub, 1, 5)
    assert "opponent_count is 13" in bad(gw, stub, 5, 13)
    assert "own_count is 0" in bad(gw, stub, 0, 5)
    assert "unknown strategy" in bad(gw, stub, 5, 5, strategy="nope")
    with pytest.raises(grpc.RpcError) as e:
        stub.SampleMove(pb.SampleMoveRequest(variant=GW, hangman=pb.HangmanState()), timeout=20)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "guesswho" in e.value.details()


def test_hangman_word_choice(stub):
    lex = lexicon("en_US50", 4)
    seeds = {hm(stub, pb.HangmanState.CHOOSE_WORD, "seed", seed=s).move for s in range(20)}
    allowed = {lex.words[i] for i in hs.seed_word_subset(lex)}
    assert seeds <= allowed and len(seeds) > 1
    ours = [hm(stub, pb.HangmanState.CHOOSE_WORD, seed=s) for s in range(20)]
    hard = {lex.words[i] for i in hs.hard_subset(lex)}
    assert {r.move for r in ours} <= hard and abs(ours[0].probability - 1 / len(hard)) < 1e-12
    assert hm(stub, pb.HangmanState.CHOOSE_WORD, seed=3).move == ours[3].move  # reproducible


def test_hangman_letters_play_a_whole_game_like_the_library(stub):
    """Both sides asked through the service replay exactly the library's game (ours vs seed)."""
    lex = lexicon("en_US50", 4)
    for w0, w1 in [("cold", "dime"), ("jump", "haze")]:
        st = State(lex, (lex.index[w0], lex.index[w1]))
        names = ("ours", "seed")
        rules = (hs.ScoredLetters(hs.SCORED_DEFAULT), hs.SeedLetters())
        while st.result is None:
            p = st.to_move
            asked = "".join(ALPHABET[c] for _, c in st.history)
            r = hm(stub, pb.HangmanState.CHOOSE_LETTER, names[p], opponent_word=lex.words[st.words[1 - p]],
                   asked=asked, own_pattern=st.pattern(p))
            assert r.move == ALPHABET[rules[p].choose_letter(st.view(), None)]
            assert r.consistent_words == len(st.cands[p])
            st.ask(ord(r.move) - 97)


def test_hangman_bad_input(stub):
    L = pb.HangmanState.CHOOSE_LETTER
    assert "not a word" in bad(hm, stub, L, opponent_word="zzzz", asked="", own_pattern="____")
    assert "asked twice" in bad(hm, stub, L, opponent_word="cold", asked="aa", own_pattern="____")
    assert "a-z only" in bad(hm, stub, L, opponent_word="cold", asked="A", own_pattern="____")
    assert "4 characters" in bad(hm, stub, L, opponent_word="cold", asked="", own_pattern="___")
    assert "never asked" in bad(hm, stub, L, opponent_word="cold", asked="", own_pattern="a___")
    assert "no word" in bad(hm, stub, L, opponent_word="cold", asked="qxj", own_pattern="qxj_")
    assert "complete" in bad(hm, stub, L, opponent_word="cold", asked="cold", own_pattern="____")
    assert "CHOOSE_WORD or CHOOSE_LETTER" in bad(hm, stub, pb.HangmanState.ACTION_UNSPECIFIED)
    assert "unknown strategy" in bad(hm, stub, L, "x", opponent_word="cold", asked="", own_pattern="____")
