"""The arena on served Jotto strategies (a published store) and the CLI's name resolution."""
import pytest

from tests.conftest import SMALL_VARIANT
from games.arena import JottoServed, JottoStoreGame, match, play_games, resolve


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
    from games.dudo.store import DudoParams
    from games.arena import DudoGame, DudoServed

    game = DudoGame(2)
    rnd = DudoServed("random")
    s = play_games(game, rnd, rnd, 3, 0, 30)
    assert s == play_games(game, rnd, rnd, 3, 0, 30) and set(s) <= {0.0, 1.0} and 0 < sum(s) < 30
    build_dudo_store(DudoParams(max_dice=1, iterations=100, exact_br_total=0), tmp_path)
    served = DudoServed("dudo-m3-1dice", root=str(tmp_path))
    r = match(DudoGame(1), served, rnd, seed=2, cap=400)
    assert r.verdict == "better"  # an equilibrium strategy beats uniform random play
