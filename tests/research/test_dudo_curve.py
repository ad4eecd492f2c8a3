"""``research.dudo_curve`` on a tiny built store: at 3 dice in play every point's improvement lies between the
responder's exact-valued bound and the exact perfect-recall best response of the same strategy, computed
here independently (which its exact column prints), for a window and a face memory; bad arguments get one line and exit code 2."""
import pytest

from research import dudo_curve
from research.dudo_lbr import store_continuations
from games.dudo.serving.endgame_store import store_W
from games.dudo.measure.exploit import best_response_value
from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import parse_memory
from games.dudo.solvers.abstract_cfr import FastSolver
from games.dudo.build.params import DudoParams
from tests.conftest import built_dudo_manifest

SMALL = DudoParams(max_dice=2, iterations=40, memory=1, exact_br_total=2, bound_memory=1)


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    return built_dudo_manifest(SMALL, tmp_path_factory.mktemp("dudocurve"))


@pytest.mark.parametrize("memory, rule", [("1", {}), ("1+1f", {}),
                                          ("1", dict(mode="pcfr+", avg_power=2.0, alternate=False))])
def test_curve_lies_between_the_bound_and_the_exact_best_response(small_store, capsys, memory, rule):
    """Also with another training rule (predictive CFR+, quadratic averaging, simultaneous updates), trained here
    by ``FastSolver`` with the same rule."""
    root, man = small_store
    args = ["--root", str(root), "--variant", SMALL.variant, "--group", "1v2", "--memory", memory,
            "--points", "8,32", "--games", "30"]
    if rule:
        args += ["--update", rule["mode"], "--avg-power", str(rule["avg_power"]), "--simultaneous"]
    assert dudo_curve.main(args) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in out[2:]]
    assert [(r[0], int(r[1])) for r in rows] == [("2v1", 8), ("2v1", 32)]     # 1v2 is unreachable at 2 dice
    W, (bo, bt) = store_W(man), store_continuations(man)
    g = make_group(1, 2, parse_memory(memory), W, 2)
    s = FastSolver(g, **rule)
    for r in rows:
        s.solve(int(r[1]) - s.t, progress=False)
        strat = s.average_strategy()
        exact = best_response_value(g, strat, 2, True, bo, bt) + best_response_value(g, strat, 2, False, bo, bt) - 1
        own, improved, se = float(r[3]), float(r[4]), float(r[5])
        assert own <= improved + 1e-12 and own <= exact + 1e-9
        assert improved <= exact + 4 * se + 1e-9
        assert float(r[7]) == pytest.approx(exact, rel=6e-3)       # its exact column (3 digits printed)
    assert float(rows[1][3]) < float(rows[0][3])        # more training, a lower bound of its own memory


def test_bad_arguments_name_the_fault(small_store, capsys):
    root, _ = small_store
    base = ["--root", str(root), "--variant", SMALL.variant, "--group", "1v2", "--memory", "1"]
    assert dudo_curve.main(base + ["--points", "16,8"]) == 2
    assert dudo_curve.main(base + ["--points", "8", "--games", "1"]) == 2
    assert dudo_curve.main(["--root", str(root), "--variant", "nope", "--group", "1v2", "--memory", "1",
                            "--points", "8"]) == 2
    assert dudo_curve.main(base[:5] + ["3v1", "--memory", "1", "--points", "8"]) == 2
    assert dudo_curve.main(base + ["--points", "8", "--fine", "1"]) == 2
    assert dudo_curve.main(base[:-1] + ["2", "--responder", "1", "--points", "8"]) == 2
    assert dudo_curve.main(base + ["--points", "8", "--avg-power", "-1"]) == 2
    assert dudo_curve.main(base + ["--points", "8", "--fine", "2", "--simultaneous"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 8 and "increasing" in err[0] and "--games" in err[1] and "--group 3v1" in err[3]
    assert "--avg-power -1.0" in err[6] and "--fine trains against CFR+ responders" in err[7]
    assert "--fine 1: the responders must remember more" in err[4]
    assert "--responder 1: it must remember all that --memory 2 does" in err[5]


@pytest.mark.parametrize("group", ["1v1", "1v2"])
def test_measure_after_training_prints_the_same_figures(small_store, capsys, group):
    """A group of one side (1v1) and one of two whose round goes on to the store's continuations (1v2, its
    rows 2v1); 2v2 took 30 s of CPU a run in the exact walk of 4 dice in play, for no path these do not take."""
    root, _ = small_store
    args = ["--root", str(root), "--variant", SMALL.variant, "--group", group, "--memory", "1",
            "--responder", "2", "--points", "4,12", "--games", "10"]

    def figures(extra):
        assert dudo_curve.main(args + extra) == 0
        rows = [line.split() for line in capsys.readouterr().out.splitlines()[2:]]
        return [r[:2] + r[3:6] + r[7:] for r in rows]       # without the seconds columns

    first = figures([])
    assert len(first) == 2 and first == figures(["--measure-after"])
    assert all(r[-1] != "-" for r in first)     # the exact column is compared too
