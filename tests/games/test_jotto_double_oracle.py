"""The double oracle's final mixture: the hider it keeps (state.hider) is, bit for bit, the restricted game's over
every column it found, fresh and resumed from its checkpoint arrays, so the builder need not solve that LP again."""
import io

import numpy as np
import pytest

import games.jotto.solvers as solvers
from games.jotto.oracle import GBR
from games.jotto.solvers import DOState, restricted_game, solve_double_oracle
from tests.games.test_jotto_oracle import tiny


def reload(arrays: dict) -> dict:
    """The arrays as the builder's checkpoint saves and loads them (np.savez, np.load)."""
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    buf.seek(0)
    with np.load(buf) as z:
        return {k: z[k] for k in z.files}


def assert_final_mixture(s: DOState) -> None:
    x, _, y = restricted_game(s.matrix())
    assert s.hider is not None
    assert np.array_equal(s.hider, y) and np.array_equal(s.weights, x)


def seeds(o, n: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    hs = [rng.dirichlet(np.ones(o.D)) for _ in range(n)]
    return [(h, o.tree(h, GBR).guesses) for h in hs]


@pytest.mark.parametrize("length,n,seed,iterations,keep,kinds", [
    (3, 18, 1, 6, 2, (GBR,)),       # the rounds' LPs over a subset of the columns (keep 2 of 6 rounds)
    (4, 20, 3, 3, 8, (GBR,)),       # every column active in every round
    (5, 22, 4, 4, 8, ()),           # no column added: the last round's LP is over every column
    (2, 16, 5, 0, 8, (GBR,)),       # no round: the seeds' LP
])
def test_kept_hider_is_the_final_mixtures_fresh_and_resumed(length, n, seed, iterations, keep, kinds):
    d, o = tiny(length, n, seed)
    cols = seeds(o, 3, seed)
    whole = solve_double_oracle(o, iterations, seed_columns=cols, keep=keep, kinds=kinds)
    assert_final_mixture(whole)
    part = solve_double_oracle(o, iterations // 2, seed_columns=cols, keep=keep, kinds=kinds)
    resumed = solve_double_oracle(o, iterations, DOState.from_arrays(reload(part.to_arrays())), keep=keep, kinds=kinds)
    assert_final_mixture(resumed)
    assert np.array_equal(resumed.hider, whole.hider)


def test_a_finished_checkpoint_resumes_without_solving_again(monkeypatch):
    d, o = tiny(3, 24, 2)
    done = reload(solve_double_oracle(o, 4, seed_columns=seeds(o, 2, 2)).to_arrays())
    calls = []
    monkeypatch.setattr(solvers, "restricted_game", lambda G: calls.append(G.shape) or restricted_game(G))
    resumed = solve_double_oracle(o, 4, DOState.from_arrays(done))
    assert calls == []
    assert_final_mixture(resumed)
    # a checkpoint written before the state kept its hider: the final mixture is solved again, once
    older = {k: v for k, v in done.items() if k != "hider"}
    resumed = solve_double_oracle(o, 4, DOState.from_arrays(older))
    assert len(calls) == 1
    assert_final_mixture(resumed)
