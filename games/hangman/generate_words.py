"""Write games/hangman/data/scowl_words_7_8.tsv: the 7- and 8-letter words of SCOWL (Debian `scowl`).

Same format and rules as games/data/scowl_words.tsv (which holds 2..6 letters; see
games/data/generate_scowl_words.py), restricted to words of SCOWL size <= 60 in some language list.

Usage: python -m games.hangman.generate_words /usr/share/dict/scowl games/hangman/data/scowl_words_7_8.tsv
"""
import re
import sys

from games.data.generate_scowl_words import read_sizes, write_table

WORD = re.compile(r"[a-z]{7,8}")
MAX_SIZE = 60


def main(src: str, out: str) -> None:
    write_table({w: s for w, s in read_sizes(src, WORD).items() if any(0 < x <= MAX_SIZE for x in s)}, out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
