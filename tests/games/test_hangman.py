"""Symmetric Hangman: the rules case by case, the seed's worked example (korst / vorst), strategies."""
import numpy as np
import pytest

from games.hangman.game import ALPHABET, HangmanError, HangmanGame, Lexicon, State, tiny_lexicon
from games.hangman.strategies import (
    HardWords, Player, ScoredLetters, SeedLetters, SeedWords, UniformWords, seed_explain, seed_letter,
    seed_word_subset,
)

L = {c: i for i, c in enumerate(ALPHABET)}


def _state(w0, w1, words=("cat", "cab", "dog", "dot", "cob", "tab"), max_misses=10):
    lex = Lexicon(words)
    return State(lex, (lex.index[w0], lex.index[w1]), max_misses)


def test_miss_adds_to_the_askers_diagram_only():
    st = _state("cat", "dog")
    assert st.ask(L["z"]) is None
    assert st.misses == [1, 0] and st.to_move == 1
    st.ask(L["o"])  # in player 1's own word: no miss; revealed
    assert st.misses == [1, 0] and st.pattern(1) == "_o_"
    st.ask(L["a"])  # player 0 hits
    st.ask(L["x"])  # player 1 misses
    assert st.misses == [1, 1] and st.pattern(0) == "_a_"


def test_shared_letter_is_revealed_in_both_words_and_can_hand_the_opponent_the_win():
    st = _state("cat", "cab")
    st.ask(L["c"])
    assert st.pattern(0) == "c__" and st.pattern(1) == "c__"
    st.ask(L["a"])
    assert st.pattern(0) == "ca_" and st.pattern(1) == "ca_" and st.result is None
    # player 0 asks 'b': not in his word (a miss for him), completes player 1's word: player 1 wins
    assert st.ask(L["b"]) == (0.0, 1.0)
    assert st.misses == [1, 0]
    with pytest.raises(HangmanError):
        st.ask(L["t"])


def test_completing_both_words_with_one_letter_is_a_draw():
    st = _state("cat", "tab")
    for c in "ca":
        st.ask(L[c])
    st.ask(L["b"])  # player 0: completes 'tab'? no, 't' missing; a miss for player 0
    assert st.result is None
    assert st.ask(L["t"]) == (0.5, 0.5)  # player 1 asks 't': both complete


def test_own_completion_wins_and_full_diagram_loses():
    st = _state("cat", "dog")
    for c in "cdt":  # p0 c, p1 d, p0 t
        st.ask(L[c])
    st.ask(L["o"])  # p1
    assert st.ask(L["a"]) == (1.0, 0.0)
    st = _state("cat", "dog", max_misses=2)
    st.ask(L["x"]); st.ask(L["d"]); assert st.ask(L["y"]) == (0.0, 1.0)  # noqa: E702
    st = _state("cat", "dog", max_misses=1)
    st.ask(L["c"]); assert st.ask(L["z"]) == (1.0, 0.0)  # noqa: E702


def test_repeated_letter_refused():
    st = _state("cat", "dog")
    st.ask(L["c"])
    with pytest.raises(HangmanError):
        st.ask(L["c"])


def test_seed_worked_example_korst_vorst():
    """Section 4 of the seed: player 1 must complete korst, player 2 vorst, six-word database."""
    lex = tiny_lexicon()
    st = State(lex, (lex.index["korst"], lex.index["vorst"]))
    first = seed_explain(st.view())
    assert {c for c, (h, ho, f) in first.items() if h > 0} == set("bdhkmv")
    assert all(abs(first[c][0] - 0.650) < 1e-3 and first[c][1] == first[c][0] for c in "bdhkmv")
    played, entropies = [], []
    while st.result is None:
        v = st.view()
        ex = seed_explain(v)
        c = seed_letter(v)
        entropies.append(ex[ALPHABET[c]][0])
        st.ask(c)
        played.append(ALPHABET[c])
    assert played == list("bdhkomrvst")
    assert entropies[:4] == [0.650, 0.722, 0.811, 0.918]  # 'b', 'd', 'h', 'k' as in the text
    assert entropies[5] == 1.0  # player 2's 'm'
    assert st.result == (0.5, 0.5)  # both words completed by the last 't': a draw
    assert st.misses == [2, 3]
    assert st.pattern(0) == "korst" and st.pattern(1) == "vorst"


def test_seed_word_criteria():
    lex = Lexicon(["bal", "cat", "dog", "fig", "zzz"], name="t3",
                  database=["bal", "cat", "dog", "fig", "zzz", "labs", "gods"])
    sub = [lex.words[i] for i in seed_word_subset(lex, common=0)]
    # 'zzz' repeats a letter; 'bal' is inside 'labs' and 'dog' inside 'gods' (letters in any order)
    assert "zzz" not in sub and "bal" not in sub and "dog" not in sub
    assert set(sub) == {"cat", "fig"}


def test_players_play_whole_games_reproducibly():
    game = HangmanGame(4)
    ours = Player(HardWords(), ScoredLetters())
    seed = Player(SeedWords(), SeedLetters())
    r1 = [game.play(ours, seed, np.random.Generator(np.random.PCG64(i))) for i in range(6)]
    r2 = [game.play(ours, seed, np.random.Generator(np.random.PCG64(i))) for i in range(6)]
    assert r1 == r2 and all(x in (0.0, 0.5, 1.0) for x in r1)
    uni = Player(UniformWords(), SeedLetters())
    assert game.play(uni, uni, np.random.Generator(np.random.PCG64(1))) in (0.0, 0.5, 1.0)


def test_solo_decision_tree_matches_games_played_one_by_one():
    from games.hangman.game import lexicon
    from games.hangman.strategies import solo_asks, solo_table

    lex = Lexicon(lexicon("en_US50", 4).words[:400], name="first400")
    t = solo_table(lex)
    for i in range(0, 400, 7):
        assert tuple(t[i]) == solo_asks(lex, i)
    assert tuple(solo_table(tiny_lexicon())[tiny_lexicon().index["vorst"]]) == solo_asks(tiny_lexicon(), 5)


def test_scored_solo_tree_matches_games_played_one_by_one():
    from games.hangman.game import entropy, letter_stats, lexicon
    from games.hangman.strategies import SCORED_DEFAULT, solo_asks, solo_table

    a, _, _, _, e = SCORED_DEFAULT

    def rule(v):
        p, h, _ = letter_stats(v.lex, v.my_cands)
        if len(v.my_cands) == 1:
            return int(next(c for c in v.unguessed if v.lex.presence[v.my_cands[0], c]))
        sc = p ** e + a * np.round(entropy(p), 12)
        return int(max(v.unguessed, key=lambda c: (sc[c], -c)))

    lex = Lexicon(lexicon("en_US50", 5).words[:500], name="first500")
    t = solo_table(lex, "scored")
    for i in range(0, 500, 11):
        assert tuple(t[i]) == solo_asks(lex, i, rule)


def test_ours_beats_the_seed_strategy_by_a_race():
    """4 letters, delta 0.05: a regression of our word or letter rule would show here (measured 0.88)."""
    from builder.evaluation.arena import match
    from games.hangman.strategies import our_player, seed_player

    r = match(HangmanGame(4), our_player(), seed_player(), seed=11, delta=0.05, cap=600)
    assert r.verdict == "better" and r.score > 0.6
