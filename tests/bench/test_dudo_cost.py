"""The Dudo cost-model calibration (bench/dudo_cost.py) runs and compares every case with the model."""


def test_dudo_cost_quick(capsys):
    from bench.dudo_cost import QUICK, main

    assert main(["--quick"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out[1:] if "v" in line.split()[0]]
    assert len(rows) == len(QUICK) and all(float(r.split()[4]) > 0 for r in rows)
    assert out[-1].startswith("median measured/model, per pair:")
