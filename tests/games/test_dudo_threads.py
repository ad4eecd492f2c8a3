"""The blocked kernel on several threads (``kernels.blocked_backward_threads``) gives the serial kernel's
bits, and a build's groups share the machine's cores (``solve_game.SharedCores``) without changing results."""
import numpy as np
import pytest

from games.dudo.abstraction.dag import make_group
from games.dudo.build.solve_game import RUNNING, SharedCores, clear_running, solve_game
from games.dudo.solvers.abstract_cfr import FastSolver

W = {(a, b): 0.5 + 0.1 * (a - b) / max(a, b) for a in range(1, 4) for b in range(1, 4)}


@pytest.mark.parametrize("dice, m, threads", [((1, 2), 2, 2), ((2, 2), 3, 2), ((2, 3), "3-8-2", 3)])
def test_threads_give_the_serial_bits(dice, m, threads):
    from games.dudo.abstraction.infoset import parse_memory
    g = make_group(*dice, parse_memory(str(m)), W, max_dice=3)
    one, many = FastSolver(g), FastSolver(g, threads=threads)
    for _ in range(6):
        one.fsicfr_iteration()
        many.fsicfr_iteration()
    for name in ("reg", "ssum", "strat"):
        assert np.array_equal(getattr(one, name), getattr(many, name)), name
    assert np.array_equal(one.V, many.V)
    # a best response through the same pass (br_side): same choices and values
    strat = one.average_strategy()
    for s in range(g.nsides):
        a = FastSolver(g, train=False)
        b = FastSolver(g, train=False, threads=threads)
        ca, cb = np.zeros(g.nrows, dtype=np.int8), np.zeros(g.nrows, dtype=np.int8)   # as abstract_best_response's
        for solver, choice in ((a, ca), (b, cb)):
            solver._forward(strat)
            solver._backward(strat, False, br_side=s, choice=choice)
        assert np.array_equal(ca, cb) and np.array_equal(a.V, b.V)
        assert ca.any()


def test_threads_refuse_zero():
    g = make_group(1, 1, 1, {}, max_dice=1)
    with pytest.raises(ValueError, match="threads is 0"):
        FastSolver(g, threads=0)


def test_shared_cores_split_among_running_groups(tmp_path):
    d = str(tmp_path / RUNNING)
    with SharedCores(d, "2v4", 2) as first:
        assert first() == 2                      # alone: every core
        with SharedCores(d, "3v3", 2) as second:
            assert first() == 1 and second() == 1
        assert first() == 2                      # the other group finished
    with SharedCores(d, "5v5", 1) as single:
        assert single() == 1
    # a stopped build's marks are forgotten when the next one starts
    SharedCores(d, "4v4", 2).__enter__()
    clear_running(str(tmp_path))
    with SharedCores(d, "4v5", 2) as again:
        assert again() == 2
    # other work marked in `busy` (a build's other lane) takes a core too
    busy = tmp_path / "busy"
    with SharedCores(d, "5v5", 2, str(busy)) as lone:
        assert lone() == 2                       # no such directory yet: nothing else runs
        busy.mkdir()
        (busy / "lane-0").write_text("1")
        assert lone() == 1
        (busy / "lane-0").unlink()
        assert lone() == 2


def test_solve_game_same_result_with_shared_cores(tmp_path):
    kw = dict(max_dice=2, m=3, iterations=lambda a, b: 30 if a + b == 2 else 12, exact_br_total=3,
              progress=False, log=None)
    serial = solve_game(checkpoint_dir=str(tmp_path / "a"), **kw)
    shared = solve_game(checkpoint_dir=str(tmp_path / "b"), cores=2, **kw)
    for key in serial.strategies:
        assert np.array_equal(np.asarray(serial.strategies[key]), np.asarray(shared.strategies[key]))
    strip = lambda st: {k: v for k, v in st.items() if "seconds" not in k}   # noqa: E731
    assert {k: strip(v) for k, v in serial.stats.items()} == {k: strip(v) for k, v in shared.stats.items()}
    assert not (tmp_path / "b" / RUNNING).exists() or not list((tmp_path / "b" / RUNNING).iterdir())
