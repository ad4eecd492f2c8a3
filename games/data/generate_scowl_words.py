"""Regenerate games/data/scowl_words.tsv from SCOWL (Debian package `scowl`).

Usage: python games/data/generate_scowl_words.py /usr/share/dict/scowl games/data/scowl_words.tsv

Keeps lower-case a-z words of 2..6 letters from the `*-words.N` lists. For each of the language lists
en_US, en_GB, en_CA, en_AU (SCOWL's `english` words plus the region's own spellings) the word's SCOWL
size is the smallest N of a list holding it (0: not in that language list).
"""
import re
import sys
from pathlib import Path

REGIONS = {"en_US": "american", "en_GB": "british", "en_CA": "canadian", "en_AU": "australian"}
WORD = re.compile(r"[a-z]{2,6}")


def read_sizes(src: str, word: re.Pattern) -> dict[str, tuple[int, ...]]:
    """word -> its SCOWL size in each language list of REGIONS (0 = absent), for words matching `word`."""
    per_list: dict[str, dict[str, int]] = {}
    for f in sorted(Path(src).iterdir()):
        m = re.fullmatch(r"([a-z_0-9]+)-words\.(\d+)", f.name)
        if not m:
            continue
        kind, size = m.group(1), int(m.group(2))
        table = per_list.setdefault(kind, {})
        for line in f.read_text(encoding="latin-1").splitlines():
            w = line.strip()
            if word.fullmatch(w):
                table[w] = min(table.get(w, 999), size)
    out = {}
    for w in sorted(set().union(*[per_list[k] for k in ["english", *REGIONS.values()]])):
        sizes = [min(per_list["english"].get(w, 999), per_list[region].get(w, 999)) for region in REGIONS.values()]
        out[w] = tuple(0 if s == 999 else s for s in sizes)
    return out


def write_table(sizes: dict[str, tuple[int, ...]], out: str) -> None:
    lines = ["# word\t" + "\t".join(REGIONS) + "\t(SCOWL size per language list; 0 = absent)"]
    lines += [w + "\t" + "\t".join(map(str, s)) for w, s in sizes.items()]
    Path(out).write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines) - 1} words to {out}")


def main(src: str, out: str) -> None:
    write_table({w: s for w, s in read_sizes(src, WORD).items() if any(s)}, out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
