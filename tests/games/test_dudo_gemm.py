"""The blocked kernel's counterfactual values by ``kernels._gemm_fixed`` (vectorised over the rolls) give the
bits of the reference order (one ``dot_fixed`` per parent, action and roll: ``FastSolver.tiled = False``), in
training, evaluation and best responses, serial and on threads, with float64 and float32 node values (every block
through ``_gemm_fixed``, ``tiled = 1``, and the builds' choice, ``test_default_choice_same_bits``); and both
stay within 1e-9 of the independent per-node kernel (``fsicfr_backward``, ``test_dudo_blocked``)."""
import numpy as np
import pytest

from games.dudo.abstraction.dag import make_group
from games.dudo.abstraction.infoset import parse_memory
from games.dudo.solvers.abstract_cfr import FastSolver, abstract_best_response
from games.dudo.solvers.kernels import _gemm_fixed
from games.fixedmath import dot_fixed

W = {(a, b): 0.5 + 0.1 * (a - b) / max(a, b) for a in range(1, 4) for b in range(1, 4)}


def _pair(g, threads, dtype):
    ref = FastSolver(g, threads=threads, value_dtype=dtype)
    ref.tiled = 0
    new = FastSolver(g, threads=threads, value_dtype=dtype)
    assert new.tiled == 32 and new.kernel == "blocked"
    new.tiled = 1       # every block through _gemm_fixed, even the small ones the builds leave to dot_fixed
    return ref, new


# 1v2: 6 x 21 rolls (no full block of eight for one die, a tail of five for two); 2v3 with a schedule;
# 3v3 (56 rolls: seven full blocks); threads split the rolls into ranges
@pytest.mark.parametrize("dice, m, threads, dtype", [((1, 2), 2, 1, np.float64), ((2, 2), 3, 1, np.float64),
                                                     ((2, 3), "3-8-2", 3, np.float64), ((3, 3), 2, 1, np.float32),
                                                     ((1, 3), 3, 2, np.float64)])
def test_tiled_gives_the_reference_bits(dice, m, threads, dtype):
    g = make_group(*dice, parse_memory(str(m)), W, max_dice=3)
    ref, new = _pair(g, threads, dtype)
    for _ in range(6):
        ref.fsicfr_iteration()
        new.fsicfr_iteration()
    for name in ("reg", "ssum", "strat"):
        assert np.array_equal(getattr(ref, name), getattr(new, name)), name
    assert np.array_equal(ref.V, new.V)
    assert np.abs(ref.reg).max() > 0
    strat = ref.average_strategy()
    assert np.array_equal(ref.root_values(strat), new.root_values(strat))
    for s in range(g.nsides):      # best responses through the same pass (br_side)
        a, b = (FastSolver(g, train=False, threads=threads, value_dtype=dtype) for _ in range(2))
        a.tiled, b.tiled = 0, 1
        ca, cb = np.zeros(g.nrows, dtype=np.int8), np.zeros(g.nrows, dtype=np.int8)
        for solver, choice in ((a, ca), (b, cb)):
            solver._forward(strat)
            solver._backward(strat, False, br_side=s, choice=choice)
        assert np.array_equal(ca, cb) and np.array_equal(a.V, b.V)
        assert ca.any()


def test_tiled_best_response_equals_reference_kernel():
    g = make_group(2, 2, 3, W, 3)
    s = FastSolver(g)
    for _ in range(10):
        s.fsicfr_iteration()
    st = s.average_strategy()
    v_ref, _ = abstract_best_response(g, st, 0, kernel="reference")
    v_new, _ = abstract_best_response(g, st, 0)
    assert np.abs(v_ref - v_new).max() < 1e-9


@pytest.mark.parametrize("no, x0, x1", [(5, 0, 7), (8, 2, 9), (21, 0, 21), (37, 3, 30)])
@pytest.mark.parametrize("zeros", [0.0, 0.7])
def test_gemm_fixed_is_dot_fixed(no, x0, x1, zeros):
    """Each entry is the bits of ``dot_fixed`` of its row pair (random values, every tail length), also where
    most of the opponent's reach is zero (``_gemm_fixed`` skips those rolls; ``dot_fixed`` adds their +-0
    products) and the values hold exact zeros of both signs."""
    from numba import njit
    rng = np.random.default_rng(no)
    P, n = 4, x1 + 2
    Q, M = rng.standard_normal(P * no), rng.standard_normal(n * no).astype(np.float32)
    if zeros:
        Q[rng.random(Q.size) < zeros] = 0.0
        Q[rng.random(Q.size) < 0.1] = -0.0
        M[rng.random(M.size) < 0.2] = 0.0
        M[rng.random(M.size) < 0.2] = -0.0
        assert (Q == 0).mean() > 0.5
    G = np.full((P, 2, n), np.nan)
    _gemm_fixed(Q, P, no, M, x0, x1, True, G, 1, np.empty((no, n)), np.empty((8, n)))
    dot = njit(lambda a, ao, b, bo, k: dot_fixed(a, ao, b, bo, k))
    for p in range(P):
        for x in range(x0, x1):
            assert G[p, 1, x] == -dot(Q, p * no, M, x * no, no)
        assert np.isnan(G[p, 1, :x0]).all() and np.isnan(G[p, 1, x1:]).all() and np.isnan(G[p, 0]).all()


def test_default_choice_same_bits():
    """The builds' setting (``_gemm_fixed`` only on blocks of 4 parents and 32 rolls) on 3v3, where both kinds occur."""
    g = make_group(3, 3, 2, W, max_dice=3)
    ref, new = FastSolver(g), FastSolver(g)
    ref.tiled = 0
    assert new.tiled == 32
    for _ in range(5):
        ref.fsicfr_iteration()
        new.fsicfr_iteration()
    assert np.array_equal(ref.reg, new.reg) and np.array_equal(ref.ssum, new.ssum)
