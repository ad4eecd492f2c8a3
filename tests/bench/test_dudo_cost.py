"""The Dudo cost-model calibration (bench/dudo_cost.py) runs and compares every case with the model: the groups'
training and, with --live, the live solves."""


def test_dudo_cost_quick(capsys):
    from bench.dudo_cost import QUICK, main

    assert main(["--quick"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out[1:] if "v" in line.split()[0]]
    assert len(rows) == len(QUICK) and all(float(r.split()[4]) > 0 for r in rows)
    assert out[-1].startswith("median measured/model, per pair:")


def test_dudo_cost_live_quick(capsys):
    from bench.dudo_cost import LIVE_QUICK, main

    assert main(["--live", "--quick"]) == 0
    out = capsys.readouterr().out.splitlines()
    solves = [line.split() for line in out[1:-1] if line.split()[5:6] == ["all"]]
    groups = [line.split() for line in out[1:-1] if line.split()[5:6] != ["all"]]
    assert [tuple(int(x) for x in r[:5]) for r in solves] == LIVE_QUICK
    assert [r[0] for r in groups] == ["1v1", "1v2", "1v1", "1v2", "2v2"]
    assert all(float(r[6]) > 0 and float(r[7]) > 0 and float(r[9]) > 0 for r in solves)
    assert out[-1].startswith("largest measured/group_cost: ")
