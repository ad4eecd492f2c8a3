"""The builder records the perfect-recall improvement (DudoParams.improve_games, games.dudo.measure.lbr) per round
beyond the exact best response, with its kind and standard error, in the manifest, the report and
GetStats; ``research.dudo_lbr`` measures it on a built store's quantised rows.  Checked on a tiny game
against the exact best response computed here."""
from dataclasses import replace

import pytest

from research import dudo_lbr
from builder import dudo_report
from games.dudo.serving.endgame_store import store_W
from games.dudo.measure.exploit import best_response_value
from games.dudo.build.solve_game import solve_params
from games.dudo.build.params import DudoParams
from protos import gamestrategy_pb2 as pb
from tests.conftest import built_dudo_manifest, stub_on

IMPROVE = DudoParams(max_dice=2, iterations=40, memory=1, exact_br_total=2, bound_memory=1, improve_games=60)
KIND = "lower bound: perfect-recall improvement of the best response with memory 2 (sampled)"


@pytest.fixture(scope="module")
def improve_store(tmp_path_factory):
    return built_dudo_manifest(IMPROVE, tmp_path_factory.mktemp("dudoimprove"))


def test_the_improvement_is_recorded_and_below_the_exact_best_response(improve_store, tmp_path):
    _, m = improve_store
    assert m["parameters"]["improve_games"] == 60
    rounds = m["rounds"]
    assert "improved_exploitability" not in rounds["1v1"]          # exact there: nothing to improve on
    sol = solve_params(replace(IMPROVE, improve_games=0), progress=False, checkpoint_dir=str(tmp_path))
    g, strat = sol.groups[(1, 2)], sol.strategies[(1, 2)]
    one = rounds["1v1"]
    cont = ({(1, 1): one["br_opener"]}, {(1, 1): one["br_other"]})
    exact = sum(best_response_value(g, strat, 2, seat, *cont) for seat in (True, False)) - 1
    st = rounds["2v1"]
    assert st["improved_kind"] == KIND and st["improved_games"] == 60 * (21 + 6)   # each seat: every responder roll
    assert 0 < st["improved_stderr"] < 0.01
    assert st["improved_exploitability"] <= exact + 4 * st["improved_stderr"]
    assert st["improved_exploitability"] >= st["exploitability"] - 4 * st["improved_stderr"]


def test_report_and_getstats_show_it(improve_store, capsys):
    root, m = improve_store
    assert dudo_report.main(["--root", str(root), "--variant", IMPROVE.variant]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("2v2 "))
    assert f"{m['rounds']['2v2']['improved_exploitability']:.2e}" in row
    with stub_on(root) as stub:
        reply = stub.GetStats(pb.GetStatsRequest(variant=IMPROVE.variant), timeout=10)
    rnd = next(s for v in reply.variants for s in v.strategies if s.strategy == "round 2v2")
    assert rnd.labels["improved_kind"] == KIND
    assert rnd.figures["improved_exploitability"] == pytest.approx(m["rounds"]["2v2"]["improved_exploitability"])
    # the round's headline is the improvement (the larger lower bound), with its kind; an exact round's is its
    # exploitability; every probability says so
    assert (rnd.headline, rnd.headline_kind) == ("improved_exploitability", KIND)
    exact = next(s for v in reply.variants for s in v.strategies if s.strategy == "round 1v1")
    assert (exact.headline, exact.headline_kind) == ("exploitability", "exact (perfect-recall best response)")
    for key in ("exploitability", "improved_exploitability", "improved_stderr", "value", "br_opener", "br_other"):
        assert "probability" in rnd.units[key], key


def test_bench_measures_the_stored_rows(improve_store, capsys, tmp_path):
    root, m = improve_store
    assert dudo_lbr.main(["--root", str(root), "--variant", IMPROVE.variant, "--games", "30", "--min-dice", "2"]) == 0
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()[2:]}
    assert set(rows) == {"2v1", "2v2"}
    for name, r in rows.items():
        # the memory-2 bound recomputed on the quantised rows: the recorded one within quantisation
        assert float(r[-6]) == pytest.approx(m["rounds"][name]["exploitability"], abs=2e-3)
        assert float(r[-5]) >= float(r[-6]) - 1e-9
    # the round's own share: later rounds at the store's values, never above the whole figure (a responder's
    # value only grows with its continuations); the bound recomputed here against the exact best response
    assert dudo_lbr.main(["--root", str(root), "--variant", IMPROVE.variant, "--games", "30", "--min-dice", "2",
                          "--local", "--rounds", "2v2"]) == 0
    local = capsys.readouterr().out.splitlines()[2].split()
    assert local[0] == "2v2" and float(local[-6]) <= float(rows["2v2"][-6]) + 1e-9
    sol = solve_params(replace(IMPROVE, improve_games=0), progress=False, checkpoint_dir=str(tmp_path))
    g, strat = sol.groups[(2, 2)], sol.strategies[(2, 2)]
    W = store_W(m)
    exact = sum(best_response_value(g, strat, 2, seat, W, {r: 1 - v for r, v in W.items()})
                for seat in (True, False)) - 1
    assert float(local[-6]) <= exact + 2e-3                 # the quantised rows against the solver's strategy
    assert dudo_lbr.main(["--root", str(root), "--variant", IMPROVE.variant, "--games", "1"]) == 2
    assert dudo_lbr.main(["--root", str(root), "--variant", "dudo-nosuch"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "--games is 1" in err[0] and "dudo-nosuch" in err[1]


def test_bench_takes_the_responders_memory(improve_store, capsys):
    """``--responder`` replaces the store's bound memory (a responder that remembers more gets at least as much);
    a store's schedule is read whole from its kind, not as its first number."""
    from games.dudo.abstraction.infoset import parse_memory
    root, m = improve_store
    args = ["--root", str(root), "--variant", IMPROVE.variant, "--games", "10", "--min-dice", "2", "--rounds", "2v2"]
    assert dudo_lbr.main(args) == 0
    own = capsys.readouterr().out.splitlines()[2].split()
    assert dudo_lbr.main(args + ["--responder", "3"]) == 0
    more = capsys.readouterr().out.splitlines()[2].split()
    assert more[-7] == "3" and own[-7] != "3"
    assert float(more[-6]) >= float(own[-6]) - 1e-9
    assert dudo_lbr.main(args + ["--responder", "x"]) == 2
    assert "--responder 'x'" in capsys.readouterr().err
    kind = {"br_kind": "lower bound: abstraction (best response with memory 4-24-3-32-2)"}
    assert dudo_lbr.responder_memory(kind, 2, 3, 4, 1 << 40) == parse_memory("4-24-3-32-2")


def test_bench_refuses_a_responder_that_forgets_what_the_store_remembers(tmp_path, capsys):
    """A ``--responder`` that does not remember all a measured round's memory does gets one line and exit 2
    before any round is measured (it was a ValueError from the strategy's lift)."""
    params = DudoParams(max_dice=2, iterations=10, memory=2, exact_br_total=2, bound_memory=0)
    root, _ = built_dudo_manifest(params, tmp_path)
    capsys.readouterr()                                     # the build's progress bars
    args = ["--root", str(root), "--variant", params.variant, "--games", "4", "--min-dice", "2", "--rounds", "2v2"]
    assert dudo_lbr.main(args + ["--responder", "1"]) == 2
    out, err = capsys.readouterr()
    assert err.strip() == "--responder 1: it must remember all that round 2v2's memory 2 does"
    assert "2v2" not in out
    assert dudo_lbr.main(args + ["--responder", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[2].split()[0] == "2v2"
