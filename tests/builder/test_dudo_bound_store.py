"""The builder records the stronger lower bound (DudoParams.bound_memory: a responder remembering m' > m
claims, games.dudo.measure.bound) per round with its kind, in the manifest, the report and GetStats; checked
on a tiny game against the exact best response and the abstraction's bound computed here."""
from dataclasses import replace

import pytest

from builder import dudo_report
from games.dudo.measure.bound import kind_of, memory_best_response
from games.dudo.measure.exploit import best_response_value
from games.dudo.build.solve_game import solve_params
from games.dudo.build.params import DudoParams
from protos import gamestrategy_pb2 as pb
from tests.conftest import built_dudo_manifest, stub_on

# 2 dice a player, memory 1 beyond 1v1; the exact best response only at 2 dice in play, the bound's
# responder remembers 2 claims on 2v1 and 2v2
BOUND = DudoParams(max_dice=2, iterations=40, memory=1, exact_br_total=2, bound_memory=1)


@pytest.fixture(scope="module")
def bound_store(tmp_path_factory):
    return built_dudo_manifest(BOUND, tmp_path_factory.mktemp("dudobound"))


def test_the_plan_names_each_groups_bound_memory():
    assert BOUND.memories() == {(1, 1): None, (1, 2): 1, (2, 2): 1}
    assert BOUND.bound_memories() == {(1, 2): 2, (2, 2): 2}
    # a bound budget that nothing fits leaves the abstraction's own bound
    assert replace(BOUND, bound_budget=1).bound_memories() == {(1, 2): 1, (2, 2): 1}
    assert replace(BOUND, bound_memory=0).bound_memories() == {(1, 2): 1, (2, 2): 1}


def test_bound_lies_between_the_abstraction_and_the_exact_response(bound_store, tmp_path, capsys):
    _, m = bound_store
    assert m["parameters"]["bound_memory"] == 1 and "bound_budget" not in m["parameters"]
    rounds = m["rounds"]
    assert rounds["1v1"]["br_kind"] == "exact-perfect-recall"
    assert rounds["2v1"]["br_kind"] == rounds["2v2"]["br_kind"] == "lower bound: best response with memory 2"
    # the same strategies again (the solve is deterministic), measured here by the exact best response
    # and by the abstraction's own bound; continuations of 2v1: the exact 1v1 figures
    sol = solve_params(BOUND, progress=False, checkpoint_dir=str(tmp_path))
    g, strat = sol.groups[(1, 2)], sol.strategies[(1, 2)]
    one = rounds["1v1"]
    cont = ({(1, 1): one["br_opener"]}, {(1, 1): one["br_other"]})
    exact = sum(best_response_value(g, strat, 2, seat, *cont) for seat in (True, False)) - 1
    abstract = sum(memory_best_response(g, strat, 2, 1, sol.W, *cont, 2)) - 1
    recorded = rounds["2v1"]["exploitability"]
    assert abstract < recorded <= exact + 1e-12
    assert recorded == pytest.approx(sol.stats[(2, 1)]["exploitability"], abs=1e-12)
    # the groups solved so far, from the work directory (an unfinished build's)
    assert dudo_report.main(["--work", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "unfinished build" in out
    row = next(line for line in out.splitlines() if line.startswith("2v1 "))
    assert f"{recorded:.2e}" in row and row.endswith("lower bound: best response with memory 2")


def test_report_getstats_and_old_kinds(bound_store, capsys):
    root, m = bound_store
    assert dudo_report.main(["--root", str(root), "--variant", BOUND.variant]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("2v2 "))
    assert row.endswith("lower bound: best response with memory 2")
    with stub_on(root) as stub:
        reply = stub.GetStats(pb.GetStatsRequest(variant=BOUND.variant), timeout=10)
    rnd = next(s for v in reply.variants for s in v.strategies if s.strategy == "round 2v2")
    assert rnd.labels["br_kind"] == "lower bound: best response with memory 2"
    assert rnd.figures["exploitability"] == pytest.approx(m["rounds"]["2v2"]["exploitability"])
    # stores built before the kinds were named
    assert kind_of({}) == kind_of({"br_kind": "none"}) == "not measured"
    assert kind_of({"br_kind": "abstract-local"}) == "lower bound: abstraction"


def test_without_a_bound_memory_the_kind_is_the_abstractions(tmp_path):
    p = DudoParams(max_dice=2, iterations=5, memory=1, exact_br_total=2)
    _, m = built_dudo_manifest(p, tmp_path)
    assert "bound_memory" not in m["parameters"]
    assert m["rounds"]["2v2"]["br_kind"] == "lower bound: abstraction (best response with memory 1)"


def test_plan_prints_each_groups_memory_and_bound(capsys):
    from builder.profiles import DUDO_FULL
    assert dudo_report.main(["--plan", "full"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split() for line in out if line[:1].isdigit() and "v" in line.split()[0]}
    mems, bounds, trained = DUDO_FULL.memories(), DUDO_FULL.bound_memories(), DUDO_FULL.train_memories()
    assert len(rows) == len(mems) == 15
    for (a, b), m in mems.items():
        r = rows[f"{a}v{b}"]
        if (a, b) in trained:       # "m vs m_fine": two more columns
            assert r[2:4] == ["vs", str(trained[(a, b)])]
            r = r[:2] + r[4:]
        assert r[1] == ("perfect" if m is None else str(m)) and int(r[2]) == DUDO_FULL.group_iterations(a, b)
        assert r[5] == (str(bounds[(a, b)]) if (a, b) in bounds else "exact")
    assert out[-1].startswith("modelled: peak tables")
    assert dudo_report.main(["--plan", "nosuch"]) == 2


def test_a_bound_never_falls_below_our_own_play():
    """A memory-limited responder can do worse than our own strategy (imperfect recall); given our
    value, each seat's bound takes our own play where that is better, so a bound is never a negative
    exploitability; the builder's recorded bounds are given it."""
    sol = solve_params(BOUND, progress=False)
    g, strat = sol.groups[(1, 2)], sol.strategies[(1, 2)]
    cont = ({(1, 1): sol.stats[(1, 1)]["br_opener"]}, {(1, 1): sol.stats[(1, 1)]["br_other"]})
    raw = memory_best_response(g, strat, 2, 1, sol.W, *cont, 2)
    for value in (raw[0] + 0.1, 1.0 - raw[1] + 0.1):      # ours better in the opener's, then the other's seat
        got = memory_best_response(g, strat, 2, 1, sol.W, *cont, 2, value)
        assert got == (max(raw[0], value), max(raw[1], 1.0 - value))
        assert got != raw
    for rnd in ((2, 1), (2, 2)):
        st = sol.stats[rnd]
        assert st["br_opener"] >= st["value"] and st["br_other"] >= 1 - st["value"]
        assert st["exploitability"] >= 0
