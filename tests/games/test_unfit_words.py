"""Words fit for players: no offensive word, abbreviation or proper noun in a playable list."""
import json

import pytest

from games.data.generate_unfit_words import offensive_terms, plural_of, scowl_forms, unfit
from games.hangman.game import lexicon
from games.jotto.dictionary import (FILTERS, Variant, dictionary_from_words, load_dictionary, register_list_file,
                                    unfit_words)

JOTTO = [f"jotto-en_US80-{n}-{f}" for n in range(2, 7) for f in FILTERS] + \
        [f"jotto-file.sgb-5-{f}" for f in FILTERS] + ["jotto-en_GB95-4-all", "jotto-en_AU95-5-all"]
HANGMAN = [("en_US50", n) for n in range(2, 9)] + [("en_US60", 8)]
# the issue's examples
SLURS = {"fagot", "dykes", "cunts", "fags", "dyke"}
ABBREVIATIONS = {"bs", "kb", "lm", "mf"}


def test_the_table_holds_the_issues_examples_with_their_reason():
    u = unfit_words()
    assert {w: u.get(w) for w in SLURS} == {w: "offensive" for w in SLURS}
    assert {w: u.get(w) for w in ABBREVIATIONS} == {w: "abbreviation" for w in ABBREVIATIONS}
    assert set(u.values()) == {"offensive", "abbreviation", "proper-noun"}
    # ordinary words the README and the tests play with stay
    assert not {"crane", "tears", "lions", "doyen", "crust", "assess", "hell", "god"} & set(u)


@pytest.mark.parametrize("name", JOTTO)
def test_no_unfit_word_in_a_jotto_list(name):
    d = load_dictionary(name)
    assert len(d.words) > 1
    assert not set(d.words) & set(unfit_words()), name
    assert not set(d.words) & (SLURS | ABBREVIATIONS)


@pytest.mark.parametrize("source,length", HANGMAN)
def test_no_unfit_word_in_a_hangman_list(source, length):
    lex = lexicon(source, length)
    assert not set(lex.words) & set(unfit_words())
    assert not set(lex.database) & set(unfit_words())


def test_the_two_letter_list_is_words():
    d = load_dictionary("jotto-en_US80-2-ganzfried")
    assert len(d.words) == 63
    assert {"by", "go", "of", "ox", "up", "we"} <= set(d.words)


def test_a_registered_list_is_taken_as_given(tmp_path):
    p = tmp_path / "mine.txt"
    p.write_text("bs\nkb\nup\nox\n")
    src = register_list_file("unfit_mine", p)
    assert load_dictionary(f"jotto-{src}-2-all").words == ("bs", "kb", "ox", "up")
    # the common bit of a registered list's words is SCOWL's, unfit or not
    assert dictionary_from_words(Variant(src, 2, "all"), ["bs"], {"bs": 80}).common.tolist() == [False]


def test_the_generators_rules(tmp_path):
    catalog = {"entries": {
        "dyke": dict(classification="term", languages=["en"], is_okayish=False, source_count=13),
        "ass": dict(classification="term", languages=["en"], is_okayish=False, source_count=18),
        "hell": dict(classification="term", languages=["en"], is_okayish=True, source_count=11),
        "puss": dict(classification="term", languages=["en"], is_okayish=False, source_count=2),
        "flick": dict(classification="phrase", languages=["en"], is_okayish=False, source_count=9),
        "merde": dict(classification="term", languages=["fr"], is_okayish=False, source_count=5)}}
    (tmp_path / "catalog.json").write_text(json.dumps(catalog))
    terms = offensive_terms(str(tmp_path / "catalog.json"))
    assert terms == {"dyke", "ass"}
    assert plural_of("dykes", terms) and plural_of("asses", terms)
    assert not plural_of("assess", terms) and not plural_of("asss", terms)
    scowl = tmp_path / "scowl"
    scowl.mkdir()
    (scowl / "english-abbreviations.40").write_text("BS\nKb.\n")
    (scowl / "english-proper-names.50").write_text("Jo\nLaura\n")
    (scowl / "english-words.10").write_text("bs\n")  # a words list is no abbreviation list
    abbr, names = scowl_forms(str(scowl), "abbreviations"), scowl_forms(str(scowl), "proper-names")
    assert abbr == {"bs": 40, "kb": 40} and names == {"jo": 50, "laura": 50}
    words = {"bs": 80, "kb": 35, "jo": 70, "laura": 50, "dykes": 60, "hell": 10, "asses": 40, "assess": 20}
    assert unfit(words, terms, abbr, names) == {"bs": "abbreviation", "jo": "proper-noun", "dykes": "offensive",
                                                "asses": "offensive"}
