"""docs/dudo.md's summary table against the stores it describes: its default and full columns are generated from the
default and the full Dudo store (`python -m builder.dudo_report --docs docs/dudo.md`) and checked against each when
one is built under stores/. A default store is about 9 minutes of two cores, too costly for CI to build: there the page's rows
of up to 3 dice in play are checked against the default profile's groups of up to 3 dice built here (the same
groups, bit for bit, as the store's), and the build of a default store says in its log when the page states other
figures (builder.docs_check); the generator itself is tested on a manifest of every round."""
import re
from pathlib import Path

import pytest

from builder.docs_check import differing_rows, docs_notice
from builder.dudo_report import DOCS_BEGIN, DOCS_END, docs_cells, update_docs
from games.storage import Store, all_current_stores

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "dudo.md"
DEFAULT = "dudo-5dice-default"
FULL = "dudo-5dice-full"


def _rows(text: str) -> dict[str, list[str]]:
    body = text.split(DOCS_BEGIN, 1)[1].split(DOCS_END, 1)[0]
    return {cells[1].strip(): [c.strip() for c in cells[2:-1]]
            for cells in (line.split("|") for line in body.splitlines()) if len(cells) > 4 and cells[1].strip()[:1].isdigit()}


def _manifest(variant: str = DEFAULT) -> dict:
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
    return dict(variant=variant, rounds=rounds)


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
    searched = _manifest()      # 2v1 served by search, its stated figures the search's: the table keeps the rows'
    searched["rounds"]["2v1"].update(exploitability=0.0015, stored_exploitability=0.002, served="search")
    assert docs_cells(searched, ["1v2", "2v1"]) == ("2", "2.0e-3 / 2.0e-3 exact")
    assert out.count("\n") == text.count("\n")       # every line kept whole, the end marker on its own line


def test_the_generator_writes_the_full_stores_columns_and_leaves_the_default_ones():
    text = PAGE.read_text()
    out = update_docs(text, _manifest(FULL))
    before, after = _rows(text), _rows(out)
    assert after["1v2 / 2v1"][2:4] == ["2", "2.0e-3 / 2.0e-3 exact"] and after["5v5"][2:4] == ["2", "≥ 0.250"]
    for k in before:
        assert after[k][:2] == before[k][:2] and after[k][4:] == before[k][4:]


def _built(variant: str) -> dict:
    store = all_current_stores(ROOT / "stores").get(variant)
    if store is None:
        pytest.skip(f"no {variant} store under stores/ ({'make serve builds it, about 9 minutes' if variant == DEFAULT else 'make build-stores builds it, about 2 hours'}); "
                    f"docs/dudo.md's columns of it are regenerated from one with python -m builder.dudo_report --docs "
                    "docs/dudo.md")
    s = Store(store)
    try:
        return dict(s.manifest)
    finally:
        s.close()


@pytest.mark.parametrize("variant", [DEFAULT, FULL])
def test_the_docs_table_states_the_built_stores_figures(variant):
    manifest = _built(variant)
    text = PAGE.read_text()
    assert update_docs(text, manifest) == text, f"docs/dudo.md's {variant} columns differ from the built store's figures"
    assert re.search(manifest["content_hash"][:8], text), f"docs/dudo.md names another content hash for {variant}"


def test_the_pages_rounds_of_up_to_3_dice_are_what_the_default_profile_builds(tmp_path):
    """The default profile's groups of up to 3 dice in play (1v1, 1v2; about 30 CPU s with numba's compile), as
    the default store's build solves them, give the page's rows 1v1 and 1v2 / 2v1."""
    from builder.profiles import DUDO_DEFAULT
    from games.dudo.build.rows import round_stats
    from games.dudo.build.solve_game import solve_params

    sol = solve_params(DUDO_DEFAULT, progress=False, checkpoint_dir=str(tmp_path), max_total=3)
    manifest = dict(rounds=round_stats(sol))
    rows = _rows(PAGE.read_text())
    for row in ("1v1", "1v2 / 2v1"):
        assert rows[row][:2] == list(docs_cells(manifest, [r.strip() for r in row.split("/")])), row


def test_the_rows_that_differ_from_a_store_are_named():
    m = _manifest()
    page = update_docs(PAGE.read_text(), m)
    assert differing_rows(page, m) == []
    m["rounds"]["5v5"]["improved_exploitability"] = 0.5
    m["rounds"]["1v2"]["exploitability"] = 0.5
    assert differing_rows(page, m) == ["1v2 / 2v1", "5v5"]


def test_a_default_build_whose_figures_the_page_does_not_state_says_so_in_one_line(tmp_path):
    page = tmp_path / "dudo.md"
    m = dict(_manifest(), content_hash="abcdef0123456789")
    page.write_text(update_docs(PAGE.read_text(), m) + "\ncontent hash `abcdef01…`\n")
    assert docs_notice(DEFAULT, m, page) is None
    assert docs_notice("dudo-5dice-other", m, page) is None         # the page states no figures of it
    assert docs_notice(DEFAULT, m, tmp_path / "nosuch.md") is None   # no docs: an installed package
    m["rounds"]["4v4"]["improved_exploitability"] = 0.9
    line = docs_notice(DEFAULT, m, page)
    assert line.startswith("gamestrategy-build: docs/dudo.md states other figures than the dudo-5dice-default store")
    assert "rows 4v4;" in line and "abcdef01" in line and "--docs docs/dudo.md" in line and "\n" not in line
    m2 = dict(_manifest(), content_hash="0000000011111111")
    assert "names another content hash" in docs_notice(DEFAULT, m2, page)
    full = dict(_manifest(FULL), content_hash="abcdef0123456789")      # the full columns are the page's own
    assert docs_notice(FULL, full, page).startswith("gamestrategy-build: docs/dudo.md states other figures than the "
                                                    "dudo-5dice-full store")
    assert docs_notice(FULL, full, tmp_path / "nosuch.md") is None


def test_the_builder_logs_the_notice_after_building_the_default_store(tmp_path, monkeypatch, capsys):
    """LaneBuild: the default Dudo store just built against docs/dudo.md (here a page stating other figures)."""
    import argparse

    from builder import __main__ as build_main
    from builder import docs_check
    from builder.profiles import DUDO_DEFAULT
    from games.storage import StoreWriter

    page = tmp_path / "dudo.md"
    page.write_text(PAGE.read_text())
    monkeypatch.setattr(docs_check, "DUDO_PAGE", page)

    def build(variant, params, root, executor, busy=None, beside_lanes=False):
        with StoreWriter(root, "dudo", variant) as w:
            w.put_many("windows", iter([(b"k", b"v")]))
            return w.publish(_manifest())

    monkeypatch.setattr(build_main, "build_store", build)
    args = argparse.Namespace(profile="default", variant=[DEFAULT], missing_only=False, list=[], root=tmp_path / "r",
                              executor="serial", workers=None, scheduler=None, fresh=False, lanes=1)
    assert build_main.run_plan({DEFAULT: DUDO_DEFAULT}, args) == 0
    err = capsys.readouterr().err
    assert "gamestrategy-build: docs/dudo.md states other figures than the dudo-5dice-default store just built" in err


def test_the_command_regenerates_the_columns_of_each_store_built_and_names_a_fault(tmp_path, capsys):
    from builder import dudo_report
    from games.storage import StoreWriter

    root, page = tmp_path / "r", tmp_path / "dudo.md"
    page.write_text(PAGE.read_text())
    assert dudo_report.main(["--root", str(root), "--docs", str(page)]) == 1      # no store built
    assert "no store dudo-5dice-default" in capsys.readouterr().out
    with StoreWriter(root, "dudo", FULL) as w:
        w.put_many("windows", iter([(b"k", b"v")]))
        w.publish(_manifest(FULL))
    assert dudo_report.main(["--root", str(root), "--docs", str(page)]) == 0
    rows = _rows(page.read_text())
    assert rows["5v5"][2:4] == ["2", "≥ 0.250"] and rows["5v5"][:2] == _rows(PAGE.read_text())["5v5"][:2]
    assert dudo_report.main(["--root", str(root), "--docs", str(page), "--variant", DEFAULT]) == 1
    assert dudo_report.main(["--root", str(root), "--docs", str(page), "--variant", "dudo-3dice-x"]) == 2
    assert capsys.readouterr().out.strip().splitlines()[-1].startswith("the page states no figures of dudo-3dice-x")
