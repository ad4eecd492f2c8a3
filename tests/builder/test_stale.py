"""`--missing-only` (make serve) keeps a present store, and names one built with other parameters than the profile."""
import dataclasses

import pytest

from games.dudo.build.params import DudoParams

BUILT = DudoParams(max_dice=1, iterations=30, exact_br_total=0)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    from builder.dudo import build_dudo_store
    r = tmp_path_factory.mktemp("stale")
    build_dudo_store(BUILT, r)
    return r


def test_a_store_built_with_the_profiles_parameters_is_not_stale(root):
    from builder.stale import stale_stores
    from games.storage import all_current_stores
    assert stale_stores({BUILT.variant: BUILT}, all_current_stores(root)) == []


def test_a_store_built_with_other_parameters_is_named_with_what_differs(root):
    from builder.stale import stale_stores
    from games.storage import all_current_stores
    now = dataclasses.replace(BUILT, iterations=60)
    assert stale_stores({BUILT.variant: now}, all_current_stores(root)) == [(BUILT.variant, ["iterations"])]
    assert stale_stores({"dudo-m3-2dice": DudoParams(max_dice=2, iterations=30)}, all_current_stores(root)) == []


def test_missing_only_keeps_a_stale_store_and_says_so_in_one_line(root, monkeypatch, capsys):
    import builder.__main__ as cli
    from games.storage import all_current_stores
    before = all_current_stores(root)[BUILT.variant]
    monkeypatch.setattr(cli.interrupt, "install", lambda: None)    # keep pytest's own Ctrl-C handling
    monkeypatch.setattr(cli, "PROFILES", {"default": {BUILT.variant: dataclasses.replace(BUILT, iterations=60)}})
    assert cli.main(["--profile", "default", "--missing-only", "--root", str(root)]) == 0
    out = capsys.readouterr()
    assert out.out.strip() == "gamestrategy-build: every store is present"
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and BUILT.variant in lines[0] and "iterations" in lines[0] and "rebuilds it" in lines[0]
    assert all_current_stores(root)[BUILT.variant] == before


def test_a_store_built_on_another_word_list_is_named(tmp_path, monkeypatch):
    """A Hangman store built before the playable lists changed (the unfit words out) is stale by its words."""
    from builder.hangman import HangmanParams, build_hangman_store
    from builder.stale import stale_stores
    from games.hangman import game
    from games.storage import all_current_stores
    params = HangmanParams(4, eval_games=2)
    build_hangman_store(params, tmp_path)
    assert stale_stores({params.variant: params}, all_current_stores(tmp_path)) == []
    now = game.lexicon("en_US50", 4)
    monkeypatch.setattr(game, "lexicon", lambda source, length: game.Lexicon(now.words[1:]))
    assert stale_stores({params.variant: params}, all_current_stores(tmp_path)) == [(params.variant, ["word list"])]


def test_a_jotto_store_on_another_word_list_is_named(small_store, monkeypatch):
    from builder.stale import word_list_differs
    from games.jotto import dictionary
    from games.storage import Store
    from tests.conftest import SMALL_VARIANT
    store = Store(small_store[1])
    try:
        assert not word_list_differs(store, SMALL_VARIANT)
        now = dictionary.load_dictionary(SMALL_VARIANT)
        other = dictionary.dictionary_from_words(now.variant, list(now.words[1:]), common=now.common[1:])
        monkeypatch.setattr(dictionary, "load_dictionary", lambda name: other)
        assert word_list_differs(store, SMALL_VARIANT)
    finally:
        store.close()
