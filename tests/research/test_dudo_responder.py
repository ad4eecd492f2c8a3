"""research.dudo_responder validate and cost, small (1v1), the commands docs/dudo-search-serving.md section 7 shows:
a row per policy and responder, each responder's exact figure at most the exact one; a row per seat and responder
with the re-solves made; a bad argument exits 2 with argparse's line naming it."""
import contextlib
import io
import re

import pytest

from research.dudo_responder import main


@pytest.fixture(scope="module")
def validate_1v1():
    """``validate --group 1v1 --games 20 --widths 4`` and the given arguments: its output, each command run once for
    the tests that read it."""
    outputs = {}

    def output(*argv):
        if argv not in outputs:
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                main(["validate", "--group", "1v1", "--games", "20", "--widths", "4", *argv])
            outputs[argv] = printed.getvalue()
        return outputs[argv]
    return output


def test_validate_prints_the_table_on_1v1(validate_1v1):
    rows = [r for r in validate_1v1().splitlines() if r.startswith("| 1v1 |")]
    assert [r.split(" | ")[1] for r in rows] == ["search"] * 4 + ["rows"] * 4
    for r in rows:
        exact = float(r.split(" | ")[2])
        figure = float(re.match(r"[-0-9.]+", r.split(" | ")[4]).group())
        if "sampled" not in r:
            assert 0 < figure <= exact + 1e-9
    assert "sampled with AIVAT's control variates (20 games a seat, seed 0)" in rows[2] and "+-" in rows[2]
    assert "sampled plainly (20 games a seat, seed 0)" in rows[3]


def test_validate_takes_the_served_regret_scheme(validate_1v1):
    """``--regrets dcfr`` validates against the search the profiles serve: another policy, another exact figure."""
    figures = {}
    for regrets, argv in (("cfr+", ()), ("dcfr", ("--regrets", "dcfr"))):   # CFR+ is the command's default
        out = validate_1v1(*argv)
        assert f"100 {regrets.upper()} iterations a re-solve" in out
        figures[regrets] = float(out.split("| 1v1 | search | ")[1].split(" | ")[0])
    assert figures["cfr+"] != figures["dcfr"]


def test_validate_brackets_the_searched_figure_when_it_skips_rare_histories(validate_1v1):
    """With ``--min-reach`` the searched policy's figure is a bracket holding the exact one, its shares a range."""
    exact = float(validate_1v1().split("| 1v1 | search | ")[1].split(" | ")[0])
    row = validate_1v1("--min-reach", "1e-3").split("| 1v1 | search | ")[1].split(" | ")
    lo, hi = (float(x) for x in re.fullmatch(r"\[([0-9.]+), ([0-9.]+)\]", row[0]).groups())
    assert lo < hi and lo <= exact <= hi
    assert re.fullmatch(r"[0-9.]+-[0-9.]+", row[3])


@pytest.mark.parametrize("argv, fault", [(["validate", "--group", "2v2"], "--group"),
                                         (["validate", "--group", "2v2", "--min-reach", "1"], "--group"),
                                         (["validate", "--group", "2v3", "--min-reach", "1e-4"], "--group"),
                                         (["validate", "--group", "one"], "--group"),
                                         (["validate", "--games", "1"], "--games"),
                                         (["cost", "--group", "2v3"], "--group")])
def test_bad_arguments_exit_2(argv, fault, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    assert fault in capsys.readouterr().err.strip().splitlines()[-1]


def test_cost_prints_each_seat_and_responder(capsys):
    main(["cost", "--group", "1v1", "--games", "20"])
    rows = [r.split(" | ") for r in capsys.readouterr().out.splitlines() if r.startswith("| 1v1 |")]
    assert [(r[1], "lookahead" in r[2]) for r in rows] == [("opens", False), ("opens", True), ("other", False),
                                                          ("other", True)]
    assert all(int(r[4]) > 0 and "+-" in r[3] for r in rows)
