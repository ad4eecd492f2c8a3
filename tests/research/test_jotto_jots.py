"""research.jotto_jots: the letter-count masks' popcount is NumCommLetts, checked against the reference."""
import numpy as np
import pytest

from research.jotto_jots import MaskWidthError, jots_by_masks, letter_masks, table_jots
from games.jotto.dictionary import Variant, dictionary_from_words
from tests.games import jotto_reference as ref

WORDS = ["abbey", "apple", "eerie", "geese", "mamma", "sassy", "tepee", "otter", "queue", "zz"]


def test_popcount_of_masks_is_num_comm_letts_with_repeated_letters():
    d = dictionary_from_words(Variant("file.x", 5, "all"), WORDS)
    M = letter_masks(d.counts)
    for a, wa in enumerate(d.words):
        for b, wb in enumerate(d.words):
            assert jots_by_masks(M, a, b) == ref.num_comm_letts(wa, wb), (wa, wb)


def test_masks_that_do_not_fit_are_refused_by_name():
    with pytest.raises(MaskWidthError, match="78 bits"):
        letter_masks(np.full((1, 26), 3, dtype=np.uint8))


def test_table_compares_both_lookups_on_every_state():
    lines = []
    rows = table_jots([2], [0, 10], out=lines.append)
    assert [(r["state"], r["weights"]) for r in rows] == [(63, "hider"), (63, "uniform"), (10, "hider"), (10, "uniform")]
    assert len(lines) == 5
