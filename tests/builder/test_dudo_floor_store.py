"""The builder trains each Dudo group to its floor (DudoParams.stop_rel): the manifest, GetStats and
builder.dudo_report carry each round's memory, iterations, stop reason, exploitability and its kind,
and the group's curve."""
import pytest

from builder import dudo_report
from builder.dudo import build_dudo_store
from games.dudo.measure.exploit import best_response_value
from games.dudo.abstraction.dag import make_group
from games.dudo.build.params import DudoParams
from games.storage import Store
from protos import gamestrategy_pb2 as pb
from tests.conftest import stub_on

# 1v1 with memory 1 (no perfect recall): its exploitability stops improving at once (floor about 0.33)
FLOOR = DudoParams(max_dice=1, iterations=512, memory=1, perfect_recall_total=0, stop_rel=0.1)


@pytest.fixture(scope="module")
def floor_store(tmp_path_factory):
    root = tmp_path_factory.mktemp("dudofloor")
    return root, build_dudo_store(FLOOR, root)


def test_manifest_records_the_floor_and_the_curve(floor_store):
    _, path = floor_store
    s = Store(path)
    m = dict(s.manifest)
    s.close()
    assert m["parameters"]["stop_rel"] == 0.1
    st = m["rounds"]["1v1"]
    trained = st.get("iterations_trained", st["iterations"])
    assert st["stop"] == "floor" and trained < 512 and st["memory"] == "1"
    assert st["br_kind"] == "exact-perfect-recall" and st["group_seconds"] >= st["train_seconds"]
    c = m["curves"]["1v1"]
    assert c["iterations"][0] == 512 >> 4 and c["iterations"][-1] == trained
    assert [b >= 2 * a for a, b in zip(c["iterations"], c["iterations"][1:])] == [True] * (len(c["iterations"]) - 1)
    assert c["exploitability"][-1] > 0.9 * c["exploitability"][-2]        # the rule that stopped it
    # the stored strategy is the least exploitable measured one
    assert st["exploitability"] == pytest.approx(min(c["exploitability"]), abs=1e-12)
    assert st["iterations"] == c["iterations"][c["exploitability"].index(min(c["exploitability"]))]
    # the recorded exploitability is the exact best response's, recomputed here from a fresh solve
    # of the same iterations (the solve is deterministic), quantised as the store holds it
    from games.dudo.solvers.abstract_cfr import FastSolver
    from games.dudo.build.rows import quantised_strategy
    g = make_group(1, 1, 1)
    strat = quantised_strategy(g, FastSolver(g).solve(int(st["iterations"]), progress=False).average_strategy())
    e = best_response_value(g, strat, 1, True, {}, {}) + best_response_value(g, strat, 1, False, {}, {}) - 1
    assert st["exploitability"] == pytest.approx(e, abs=1e-9)


def test_report_and_getstats_show_the_stop_reason(floor_store, capsys):
    root, path = floor_store
    assert dudo_report.main(["--root", str(root), "--variant", FLOOR.variant, "--curves"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("1v1 "))
    assert " floor " in row and "exact-perfect-recall" in row
    assert "curves" in out and f"{512 >> 4}: " in out
    with stub_on(root) as stub:
        reply = stub.GetStats(pb.GetStatsRequest(variant=FLOOR.variant), timeout=10)
    rnd = next(s for v in reply.variants for s in v.strategies if s.strategy == "round 1v1")
    assert rnd.labels["stop"] == "floor" and rnd.labels["br_kind"] == "exact-perfect-recall"
    s = Store(path)
    st = dict(s.manifest)["rounds"]["1v1"]
    s.close()
    assert rnd.figures["iterations"] == st["iterations"] < 512
    assert rnd.figures["exploitability"] == pytest.approx(st["exploitability"]) and st["exploitability"] > 0.1


def test_fixed_iterations_leave_the_manifest_as_before(tmp_path):
    path = build_dudo_store(DudoParams(max_dice=1, iterations=20), tmp_path)
    s = Store(path)
    m = dict(s.manifest)
    s.close()
    assert "curves" not in m and "stop_rel" not in m["parameters"] and "stop" not in m["rounds"]["1v1"]
    assert m["rounds"]["1v1"]["iterations"] == 20
