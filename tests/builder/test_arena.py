"""The arena on served Jotto strategies (a published store) and the CLI's name resolution."""
import pytest

from tests.conftest import SMALL_VARIANT
from builder.evaluation.arena import JottoServed, JottoStoreGame, match, play_games, resolve


def test_jotto_store_strategies_play_reproducibly(small_store):
    root, _ = small_store
    game = JottoStoreGame(SMALL_VARIANT, root=str(root))
    a, b = JottoServed("double_oracle"), JottoServed("benchmark")
    s1 = play_games(game, a, b, 5, 0, 12)
    assert s1 == play_games(game, a, b, 5, 0, 12) and all(x in (0.0, 0.5, 1.0) for x in s1)
    same = match(game, a, a, seed=1, cap=40)
    assert same.games == 40 and same.verdict == "not separable"


def test_resolve_names():
    g, s = resolve("guesswho:param=10,0,0.5,-1")
    assert s.bid(24, 3) == 12
    g, s = resolve("hangman5:uniform+scored=0.2,0.5,1,0.1,1")
    assert g.length == 5 and s.letters.theta == (0.2, 0.5, 1.0, 0.1, 1.0)
    for bad in ("guesswho:nope", "hangman5:x+y", "chess:any", "nocolon"):
        with pytest.raises(ValueError):
            resolve(bad)


def test_dudo_games_random_and_served(tmp_path):
    from builder.dudo import build_dudo_store
    from games.dudo.build.params import DudoParams
    from builder.evaluation.arena import DudoGame, DudoServed

    game = DudoGame(2)
    rnd = DudoServed("random")
    s = play_games(game, rnd, rnd, 3, 0, 30)
    assert s == play_games(game, rnd, rnd, 3, 0, 30) and set(s) <= {0.0, 1.0} and 0 < sum(s) < 30
    build_dudo_store(DudoParams(max_dice=1, iterations=100, exact_br_total=0), tmp_path)
    served = DudoServed("dudo-m3-1dice", root=str(tmp_path))
    r = match(DudoGame(1), served, rnd, seed=2, cap=400)
    assert r.verdict == "better"  # an equilibrium strategy beats uniform random play


def test_store_readers_play_as_the_server_does(small_store, tmp_path):
    """The arena reads strategies from the stores (games.<game>.store), not through the server: its moves
    are the server backend's for the same seeds."""
    from builder.dudo import build_dudo_store
    from builder.evaluation.arena import DudoStore, JottoStore
    from games.dudo.rules import claim
    from games.dudo.build.params import DudoParams
    from games.seeding import seeded_pick
    from games.storage import Store
    from protos import gamestrategy_pb2 as pb
    from server.backends.dudo import DudoBackend
    from server.backends.jotto import JottoBackend

    _, path = small_store
    backend, reader = JottoBackend(Store(path)), JottoStore(Store(path))
    words = backend.dictionary.words
    for name in ("double_oracle", "fp", "benchmark"):
        for seed in range(6):
            secret = reader.hider_word(name, seed)
            assert words[secret] == backend.sample_hider(name, seed, False).move
            history = []
            while True:
                mv = backend.sample_guesser(name, seed, history, False).move
                history.append(pb.JottoTurn(guess=mv, jots=int(backend.oracle.C[words.index(mv), secret])))
                if mv == words[secret]:
                    break
            assert reader.guesses(name, seed, secret) == len(history)
    dudo = build_dudo_store(DudoParams(max_dice=1, iterations=50, exact_br_total=0), tmp_path)
    backend, reader = DudoBackend(Store(dudo)), DudoStore(Store(dudo))
    for roll in range(1, 7):
        for history in ([], [3], [0, 5]):
            for seed in range(5):
                opened = len(history) % 2 == 0
                st = pb.DudoState(own_dice=1, opponent_dice=1, roll=[roll], requester_opened=opened,
                                  history=[pb.DudoClaim(count=n, face=f) for n, f in (claim(h, 2) for h in history)])
                served = backend.sample(pb.SampleMoveRequest(variant="dudo-m3-1dice", game_seed=seed, dudo=st), None)
                actions, probs = reader.distribution(1, 1, (roll,), history, opened)
                a = int(actions[seeded_pick(probs, seed, 100 + len(history))])
                assert served.move == ("dudo" if a < 0 else "%dx%d" % claim(a, 2))
