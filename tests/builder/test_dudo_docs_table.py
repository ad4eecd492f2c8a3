"""docs/dudo.md's summary table against the store it describes: its default columns are generated from the
default Dudo store (`python -m builder.dudo_report --docs docs/dudo.md`) and checked against it when one is built
under stores/. A default store is about 9 minutes of two cores, too costly for a test to build: where none is
built the check says so and skips; the generator itself is tested on a manifest of every round."""
import re
from pathlib import Path

import pytest

from builder.dudo_report import DOCS_BEGIN, DOCS_END, docs_cells, update_docs
from games.storage import Store, all_current_stores

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "dudo.md"
DEFAULT = "dudo-5dice-default"


def _rows(text: str) -> dict[str, list[str]]:
    body = text.split(DOCS_BEGIN, 1)[1].split(DOCS_END, 1)[0]
    return {cells[1].strip(): [c.strip() for c in cells[2:-1]]
            for cells in (line.split("|") for line in body.splitlines()) if len(cells) > 4 and cells[1].strip()[:1].isdigit()}


def _manifest() -> dict:
    rounds = {}
    for a in range(1, 6):
        for b in range(1, 6):
            exact = a + b <= 4
            st = dict(memory=2.0, exploitability=0.001 * a * b, br_kind="exact-perfect-recall" if exact else
                      "lower bound: best response with memory 3")
            if not exact:
                st["improved_exploitability"] = 0.01 * a * b
            rounds[f"{a}v{b}"] = st
    rounds["2v3"]["train_memory"] = 3
    return dict(variant=DEFAULT, rounds=rounds)


def test_the_generator_writes_each_rounds_headline_and_kind_and_only_the_default_columns():
    text = PAGE.read_text()
    out = update_docs(text, _manifest())
    before, after = _rows(text), _rows(out)
    assert set(before) == set(after) and len(after) >= 15
    assert after["1v2 / 2v1"][:2] == ["2", "2.0e-3 / 2.0e-3 exact"]
    assert after["5v5"][:2] == ["2", "≥ 0.250"] and after["2v3 / 3v2"][:2] == ["2 vs 3", "≥ 0.060 / 0.060"]
    for k in before:       # the full store's columns and the targets are left as they are
        assert after[k][2:] == before[k][2:]
    assert out.replace(out.split(DOCS_BEGIN)[1].split(DOCS_END)[0], "") == \
        text.replace(text.split(DOCS_BEGIN)[1].split(DOCS_END)[0], "")
    assert docs_cells(_manifest(), ["1v1"]) == ("2", "1.0e-3 exact")
    assert out.count("\n") == text.count("\n")       # every line kept whole, the end marker on its own line


def test_the_docs_table_states_the_built_default_stores_figures():
    store = all_current_stores(ROOT / "stores").get(DEFAULT)
    if store is None:
        pytest.skip(f"no {DEFAULT} store under stores/ (make serve builds it, about 9 minutes); docs/dudo.md's default "
                    "columns are regenerated from one with python -m builder.dudo_report --docs docs/dudo.md")
    s = Store(store)
    try:
        manifest = dict(s.manifest)
    finally:
        s.close()
    text = PAGE.read_text()
    assert update_docs(text, manifest) == text, "docs/dudo.md's default columns differ from the built store's figures"
    assert re.search(manifest["content_hash"][:8], text), "docs/dudo.md names another content hash"
