"""Write games/hangman/data/scowl_words_7_8.tsv: the 7- and 8-letter words of SCOWL (Debian `scowl`).

Same format and rules as games/data/scowl_words.tsv (which holds 2..6 letters; see
games/data/generate_scowl_words.py), restricted to words of SCOWL size <= 60 in some language list.

Usage: python -m games.hangman.generate_words /usr/share/dict/scowl games/hangman/data/scowl_words_7_8.tsv
"""
import re
import sys
from pathlib import Path

REGIONS = {"en_US": "american", "en_GB": "british", "en_CA": "canadian", "en_AU": "australian"}
WORD = re.compile(r"[a-z]{7,8}")
MAX_SIZE = 60


def main(src: str, out: str) -> None:
    per_list: dict[str, dict[str, int]] = {}
    for f in sorted(Path(src).iterdir()):
        m = re.fullmatch(r"([a-z_0-9]+)-words\.(\d+)", f.name)
        if not m:
            continue
        kind, size = m.group(1), int(m.group(2))
        table = per_list.setdefault(kind, {})
        for line in f.read_text(encoding="latin-1").splitlines():
            w = line.strip()
            if WORD.fullmatch(w):
                table[w] = min(table.get(w, 999), size)
    words = sorted(set().union(*[per_list[k] for k in ["english", *REGIONS.values()]]))
    lines = ["# word\t" + "\t".join(REGIONS) + "\t(SCOWL size per language list; 0 = absent)"]
    for w in words:
        sizes = []
        for region in REGIONS.values():
            s = min(per_list["english"].get(w, 999), per_list[region].get(w, 999))
            sizes.append(0 if s == 999 else s)
        if any(0 < s <= MAX_SIZE for s in sizes):
            lines.append(w + "\t" + "\t".join(map(str, sizes)))
    Path(out).write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines) - 1} words to {out}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
