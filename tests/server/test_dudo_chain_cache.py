"""The longest cached prefix of a history (``large_search.longest_cached``): the one lookup that the searched
policy of the measurement (``large_search.SearchedPolicy``) and the server's chain cache
(``server.backends.dudo.ChainCache``) make."""
from collections import OrderedDict

import numpy as np

from games.dudo.serving.large_search import longest_cached
from server.backends.dudo import ChainCache


def test_the_longest_prefix_held_is_found_and_marked_recently_used():
    states = OrderedDict([((), "root"), ((3, 5), "two"), ((3,), "one"), ((4,), "other")])
    assert longest_cached(states, (3, 5, 7, 9)) == "two"
    assert longest_cached(states, (3, 6)) == "one"
    assert longest_cached(states, (8,)) == "root"
    assert list(states) == [(4,), (3, 5), (3,), ()]
    assert longest_cached(states, (4,)) == "other"
    assert longest_cached(OrderedDict([((3,), "one")]), (4, 5)) is None
    keyed = OrderedDict([(("seat", (3,)), "one"), (("other seat", (3, 5)), "two")])
    assert longest_cached(keyed, (3, 5), key=lambda prefix: ("seat", prefix)) == "one"


def _state(k: int, floats: int = 100) -> tuple:
    """A chain state in ``ChainState.plain`` form holding ``8 * floats`` bytes."""
    empty = np.zeros(0)
    return (k, np.zeros(floats), None, empty, np.zeros(0, dtype=np.int32), empty, empty, -1)


def test_the_chain_cache_finds_its_seats_states_and_keeps_its_byte_cap():
    cache = ChainCache(max_bytes=3 * 800)
    cache.put("A", (), _state(0))
    cache.put("A", [3], _state(1))
    cache.put("B", (3, 5), _state(2))
    assert cache.longest("A", [3, 5, 7])[0] == 1          # A's own (3,), not B's longer (3, 5)
    assert cache.longest("B", (3,)) is None
    assert cache.longest("A", (9,))[0] == 0               # A's root, now the most recently used
    cache.put("C", (), _state(0))                          # past the cap: the least recently used (B's) goes
    assert cache.nbytes == 3 * 800
    assert cache.longest("B", (3, 5)) is None
    assert cache.longest("A", (3,))[0] == 1 and cache.longest("C", (1,))[0] == 0
