"""The one list of store games (games.storage.STORE_GAMES) and the server's one registration."""
from games.storage import STORE_GAMES
from server.backends import BACKENDS


def test_every_store_game_has_one_backend():
    assert sorted(BACKENDS) == sorted(STORE_GAMES)
    assert all(cls.game == game for game, cls in BACKENDS.items())
