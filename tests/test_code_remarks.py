"""The code states why, not when: no work-log remark (an issue or session number, "(was 60)") in the product (games,
builder, server, clients, launcher, bench), the studies (research), the tests or the docs' scripts; that history is in
the docs pages and git."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("games", "builder", "server", "clients", "launcher", "bench")
BESIDE = ("research", "tests", "docs")
WORK_LOG = re.compile(r"\b(issue|session)s? \d+|\((was|were) [^)]|\brounds? of work\b", re.I)


def work_log_remarks(paths) -> list[str]:
    return [f"{p.relative_to(ROOT)}:{k}: {line.strip()}" for p in paths
            for k, line in enumerate(p.read_text().splitlines(), 1) if WORK_LOG.search(line)]


def test_the_product_code_has_no_work_log_remark():
    paths = sorted(p for d in PRODUCT for p in (ROOT / d).rglob("*.py"))
    assert len(paths) > 100
    assert work_log_remarks(paths) == []


def test_the_studies_tests_and_docs_scripts_have_no_work_log_remark():
    paths = sorted(p for d in BESIDE for p in (ROOT / d).rglob("*.py") if p != Path(__file__).resolve())
    assert len(paths) > 100
    assert work_log_remarks(paths) == []


def test_the_pattern_finds_the_kinds_of_remark(tmp_path):
    sample = ROOT / "tests" / "_remarks_sample.py"
    lines = ["x = 1  # 60 iterations (was 30)", "# fixed in session 31", "# issue 13's figures", "# this round of work",
             "y = 2  # was measured", "# the issues of a store"]
    try:
        sample.write_text("\n".join(lines))
        found = work_log_remarks([sample])
    finally:
        sample.unlink()
    assert [r.split(": ", 1)[1] for r in found] == lines[:4]
