"""Build a Guess Who store: the exact optimum (DP in fractions), bisection, and a tuned parametric policy.

Variant ``guesswho-<N>`` (both players start with N candidates). The store holds the optimal bid table
``bid_optimal[n, m]`` (n, m in 2..N) and its win probabilities ``win_optimal`` (float64; the exact
fractions of the start position are in the manifest), plus the parameters of the policy the chosen
optimiser (Cauwet & Teytaud) found, with its exact seat-averaged scores against bisection and the optimum.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from builder.recorded import recorded_parameters
from builder.step_seconds import measured_step_seconds
from builder.steps import StoreSteps
from games.guesswho import game as gw
from games.guesswho.store import BID_OPTIMAL, WIN_OPTIMAL
from games.storage import StoreWriter, code_version

GAME = "guesswho"


@dataclass(frozen=True)
class GuessWhoParams:
    n: int = 24
    optimiser: str = "approx_coevolution"
    budget: int = 100_000   # games for the optimiser
    seed: int = 1

    @property
    def variant(self) -> str:
        return f"guesswho-{self.n}"


def seat_average(a, b, n: int) -> Fraction:
    return (gw.match_value(a, b, n) + 1 - gw.match_value(b, a, n)) / 2


def guesswho_step_seconds() -> dict[str, float]:
    """{step: expected seconds} of a Guess Who build: the default store's measured steps."""
    return measured_step_seconds("guesswho-24")


def build_guesswho_store(params: GuessWhoParams, root: Path, executor=None) -> Path:
    """Exact DP, then the optimiser's races (games in parallel on ``executor``), then the store."""
    from builder.evaluation.optimisers import METHODS, guesswho_problem

    N = params.n
    if not 2 <= N <= 200:
        raise ValueError(f"guesswho: N={N} outside 2..200")
    with StoreSteps(params.variant, guesswho_step_seconds(), timed=True) as steps:
        with steps.step("exact DP", 1):
            W, K = gw.solve(N)
        bid = np.zeros((N + 1, N + 1), dtype=np.int32)
        win = np.zeros((N + 1, N + 1), dtype=np.float64)
        for n in range(2, N + 1):
            for m in range(2, N + 1):
                bid[n, m], win[n, m] = K[n][m], float(W[n][m])
        with steps.step("optimiser races", params.budget) as pb:    # counts the games raced
            run = METHODS[params.optimiser](guesswho_problem(N), params.budget, seed=params.seed, executor=executor,
                                            progress=lambda games: pb.update(min(games, params.budget) - pb.n))
        with steps.step("figures", 1):
            figures, strategies = _figures(N, W, gw.Parametric(tuple(run.best), name="tuned"))
        with steps.step("publish", 1):
            return _publish(params, root, bid, win, figures, strategies, run)


def _figures(N: int, W, tuned) -> tuple[dict, dict]:
    """The exact optimal and bisection policies' match values, and each policy's against both."""
    opt, bis = gw.ExactOptimal(), gw.Bisection()
    figures = {
        "optimal_first_mover": str(W[N][N]),
        "bisection_vs_bisection": str(gw.match_value(bis, bis, N)),
        "bisection_vs_optimal": str(gw.match_value(bis, opt, N)),
        "optimal_vs_bisection": str(gw.match_value(opt, bis, N)),
    }
    strategies = {}
    for name, pol in (("optimal", opt), ("bisection", bis), ("tuned", tuned)):
        strategies[name] = {"vs_optimal": str(seat_average(pol, opt, N)), "vs_bisection": str(seat_average(pol, bis, N))}
    return figures, strategies


def _publish(params: GuessWhoParams, root: Path, bid, win, figures: dict, strategies: dict, run) -> Path:
    N = params.n
    with StoreWriter(root, GAME, params.variant) as w:
        w.put_array(BID_OPTIMAL, bid)
        w.put_array(WIN_OPTIMAL, win)
        manifest = dict(game=GAME, variant=params.variant, parameters=recorded_parameters(params), n=N, figures=figures,
                        strategies=strategies, tuned_theta=list(run.best), tuned_games=run.games,
                        tuned_acceptances=sum(1 for r in run.trajectory if r["event"] in ("accept", "new-baseline")),
                        code_version=code_version())
        return w.publish(manifest)
