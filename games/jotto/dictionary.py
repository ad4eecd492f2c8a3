"""Jotto dictionaries and variants.

A variant is (word source, word length, filter) and has a stable name
``jotto-<source>-<length>-<filter>``:

- source ``en_US80`` (also en_GB, en_CA, en_AU; any SCOWL size cap 10..95): the SCOWL words of that
  language list whose size is at most the cap; ``file.<stem>`` a list, one word a line, bundled as
  ``games/data/lists/<stem>.txt`` or a user's own registered with :func:`register_list_file`.
  The unfit words (``games/data/unfit_words.tsv``: offensive words, abbreviations, proper nouns;
  games/data/README.md) are out of the SCOWL sources and the bundled lists, before any filter; a
  registered list is taken as given.
- filter ``ganzfried``: distinct letters and no word with an anagram in the list (Ganzfried's rules);
  ``anagram1``: one word per anagram class (the most common, then the alphabetically first);
  ``distinct1``: the same among the words with distinct letters (the SGB list of the
  published entropy-guesser figures); ``all``: every word of the source with the right length.

Words are sorted alphabetically; the index of a word is its position. A word is *common* when its
SCOWL size (in en_US for a file list) is at most 50 (Beeler's common/uncommon bit).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
SCOWL_TABLE = DATA_DIR / "scowl_words.tsv"
# words no player is ever given: offensive, abbreviations, proper nouns (games/data/README.md)
UNFIT_TABLE = DATA_DIR / "unfit_words.tsv"
LANGUAGES = ("en_US", "en_GB", "en_CA", "en_AU")
FILTERS = ("ganzfried", "anagram1", "distinct1", "all")
COMMON_MAX_SIZE = 50
MIN_LENGTH, MAX_LENGTH = 2, 6
_LIST_FILES: dict[str, Path] = {}
_NAME = re.compile(r"jotto-(?P<source>(?:en_(?:US|GB|CA|AU)\d{2})|(?:file\.[A-Za-z0-9_]+))-(?P<length>\d)-(?P<filter>[a-z0-9]+)")


class VariantError(ValueError):
    """A variant name or word list that cannot be used; the message names the fault."""


@dataclass(frozen=True)
class Variant:
    source: str
    length: int
    filter: str

    @property
    def name(self) -> str:
        return f"jotto-{self.source}-{self.length}-{self.filter}"

    @staticmethod
    def parse(name: str) -> "Variant":
        m = _NAME.fullmatch(name or "")
        if not m:
            raise VariantError(f"unknown variant {name!r}: expected jotto-<en_US80|file.NAME>-<2..6>-<{'|'.join(FILTERS)}>")
        v = Variant(m["source"], int(m["length"]), m["filter"])
        if not MIN_LENGTH <= v.length <= MAX_LENGTH:
            raise VariantError(f"variant {name!r}: word length must be {MIN_LENGTH}..{MAX_LENGTH}")
        if v.filter not in FILTERS:
            raise VariantError(f"variant {name!r}: unknown filter {v.filter!r} (known: {', '.join(FILTERS)})")
        if v.source.startswith("en_") and not 10 <= int(v.source[5:]) <= 95:
            raise VariantError(f"variant {name!r}: SCOWL size cap must be 10..95")
        return v


def register_list_file(stem: str, path: str | Path) -> str:
    """Make a user word-list file available as source ``file.<stem>``; returns the source name."""
    if not re.fullmatch(r"[A-Za-z0-9_]+", stem):
        raise VariantError(f"list name {stem!r} must be letters, digits or _")
    p = Path(path)
    if not p.is_file():
        raise VariantError(f"word list file {str(p)!r} does not exist")
    _LIST_FILES[stem] = p
    load_dictionary.cache_clear()
    return f"file.{stem}"


@lru_cache(maxsize=1)
def unfit_words() -> dict[str, str]:
    """word -> why it is out of every list (offensive, abbreviation, proper-noun): games/data/unfit_words.tsv."""
    out = {}
    for line in UNFIT_TABLE.read_text().splitlines():
        if line and not line.startswith("#"):
            word, reason = line.split("\t")
            out[word] = reason
    return out


@lru_cache(maxsize=1)
def _scowl_table() -> dict[str, tuple[int, ...]]:
    """Every word of the SCOWL table -> its sizes (the common bit of a registered list's words)."""
    table = {}
    for line in SCOWL_TABLE.read_text().splitlines():
        if line.startswith("#"):
            continue
        word, *sizes = line.split("\t")
        table[word] = tuple(int(s) for s in sizes)
    return table


@lru_cache(maxsize=1)
def _scowl_sizes() -> dict[str, tuple[int, ...]]:
    """The SCOWL table without the unfit words."""
    unfit = unfit_words()
    return {w: s for w, s in _scowl_table().items() if w not in unfit}


def _source_words(source: str, length: int) -> dict[str, int]:
    """word -> SCOWL size (99 where unknown) for every word of the source with that length."""
    scowl = _scowl_sizes()
    if source.startswith("en_"):
        lang, cap = source[:5], int(source[5:])
        col = LANGUAGES.index(lang)
        return {w: s[col] for w, s in scowl.items() if len(w) == length and 0 < s[col] <= cap}
    stem = source[len("file."):]
    path = _LIST_FILES.get(stem, DATA_DIR / "lists" / f"{stem}.txt")
    if not path.is_file():
        raise VariantError(f"unknown word list {stem!r}: no file {path}")
    words = {}
    unfit = unfit_words() if stem not in _LIST_FILES else {}  # a user's own list is theirs to choose
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        w = line.strip().lower()
        if not w or w.startswith("#"):
            continue
        if not re.fullmatch(r"[a-z]+", w):
            raise VariantError(f"word list {path.name} line {n}: {w!r} is not a word of letters a-z")
        if len(w) == length and w not in unfit:
            size = _scowl_table().get(w, (0,))[0]
            words[w] = size if size else 99
    return words


def list_rule(name: str) -> str:
    """What a variant's list holds, in a few words: 'the words of 5 different letters with no anagram'."""
    v = Variant.parse(name)
    return {"ganzfried": f"the words of {v.length} different letters that have no anagram",
            "anagram1": f"one word of {v.length} letters of each set of anagrams",
            "distinct1": f"one word of {v.length} different letters of each set of anagrams"}.get(
                v.filter, f"the words of {v.length} letters")


def why_left_out(name: str, word: str) -> str | None:
    """Why ``word`` (of the variant's length, letters a-z) is not in variant ``name``'s list, as a phrase; None
    when it is in the list. The reason is the first that holds: not a word of the source list at all, left out as
    unfit, a repeated letter where the list has only distinct ones, an anagram of another word of the source."""
    v = Variant.parse(name)
    word = word.lower()
    if word in load_dictionary(name).words:
        return None
    unfit = unfit_words().get(word)
    if unfit is not None:
        return f"it is left out of every list ({unfit})"
    if v.filter in ("ganzfried", "distinct1") and len(set(word)) < len(word):
        return f"it repeats a letter, and this list has only words of {v.length} different letters"
    source = _source_words(v.source, v.length)
    if word not in source:
        return f"it is not a word of the {v.source} list I draw mine from"
    others = sorted(w for w in source if w != word and _sort_key(w) == _sort_key(word))
    if others:
        kept = "leaves out every word that has one" if v.filter == "ganzfried" else "keeps one word of each set"
        return f"it has an anagram ({', '.join(others[:3])}), and this list {kept}"
    return "this list leaves it out"


def _sort_key(w: str) -> str:
    return "".join(sorted(w))


def apply_filter(words: dict[str, int], filt: str) -> list[str]:
    if filt == "all":
        return sorted(words)
    classes: dict[str, list[str]] = {}
    for w in words:
        classes.setdefault(_sort_key(w), []).append(w)
    if filt == "ganzfried":
        return sorted(ws[0] for k, ws in classes.items() if len(ws) == 1 and len(set(k)) == len(k))
    if filt in ("anagram1", "distinct1"):
        keep = [ws for k, ws in classes.items() if filt == "anagram1" or len(set(k)) == len(k)]
        return sorted(min(ws, key=lambda w: (words[w], w)) for ws in keep)
    raise VariantError(f"unknown filter {filt!r}")


@dataclass(frozen=True)
class Dictionary:
    variant: Variant
    words: tuple[str, ...]
    common: np.ndarray  # bool[D]
    counts: np.ndarray  # uint8[D, 26] letter counts

    @property
    def size(self) -> int:
        return len(self.words)

    @property
    def length(self) -> int:
        return self.variant.length

    @property
    def sha256(self) -> str:
        h = hashlib.sha256()
        for w, c in zip(self.words, self.common):
            h.update(f"{w}:{int(c)}\n".encode())
        return h.hexdigest()

    def index(self, word: str) -> int:
        i = self._index.get(word)
        if i is None:
            raise KeyError(word)
        return i

    @property
    def _index(self) -> dict[str, int]:
        cached = self.__dict__.get("_index_cache")
        if cached is None:
            cached = {w: i for i, w in enumerate(self.words)}
            object.__setattr__(self, "_index_cache", cached)
        return cached


def dictionary_from_words(variant: Variant, words: list[str], sizes: dict[str, int] | None = None,
                          common: np.ndarray | None = None) -> Dictionary:
    """A dictionary over `words` (sorted here); the common bit from SCOWL sizes, or given as in a store."""
    words = sorted(words)
    counts = np.zeros((len(words), 26), dtype=np.uint8)
    for i, w in enumerate(words):
        for ch in w:
            counts[i, ord(ch) - 97] += 1
    if common is None:
        sizes = sizes or {}
        common = np.array([sizes.get(w, 0) <= COMMON_MAX_SIZE for w in words], dtype=bool)
    return Dictionary(variant, tuple(words), np.asarray(common, dtype=bool), counts)


@lru_cache(maxsize=32)
def load_dictionary(name: str) -> Dictionary:
    variant = Variant.parse(name)
    sizes = _source_words(variant.source, variant.length)
    words = apply_filter(sizes, variant.filter)
    if len(words) < 2:
        raise VariantError(f"variant {name!r} has {len(words)} words; at least 2 are needed")
    return dictionary_from_words(variant, words, sizes)
