"""The parametric-strategy optimisers of Cauwet & Teytaud ("Surprising strategies obtained by
stochastic optimization in partially observable games"), with empirical Bernstein races deciding every
comparison and a budget counted in games.

A :class:`Problem` gives the game, the parameter box, ``make(theta) -> strategy`` and the randomised
baseline. Every method mutates with a (1+1)-ES in the box scaled to [0, 1]^d (Gaussian step, one-fifth
rule: step x 2 on success, x 2^-1/4 on failure) and returns a :class:`Run` with the best point and the
trajectory (games used, event, point, race verdict and score). Runs are reproducible from their seed
(the proposals and every race's game seeds come from one ``numpy`` PCG64 stream).

Races are *limited* as in the paper: a race that reaches its cap without separating the two players
picks the one with the higher mean (``limited=False`` asks for significance; the step size never drops
below ``sigma_min`` since the strategies are piecewise constant in their parameters).

* ``naive``: optimise against the fixed randomised baseline. A proposal is accepted when a paired race
  (same game seeds, proposal and incumbent each against the baseline; score ``(1 + s' - s) / 2``) says
  it is better.
* ``iterative``: the incumbent is the baseline; a proposal replaces it once a race (proposal against
  incumbent) says it is better. Starts from the randomised baseline's first draw.
* ``real_coevolution``: a population; a proposal (mutation of a random member) enters, replacing the
  oldest, only if it beats every member by a race.
* ``approx_coevolution``: the proposal is raced against one member drawn at random and replaces it if
  better ("Parisian" population).
* ``seeds``: ``K`` random points, all pairwise games (``g`` per pair, seats alternated), the best average;
  also the Nash mixture over the seeds of the antisymmetric score matrix (``scipy.optimize.linprog``).
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np

from builder.evaluation.arena import match, play_games
from builder.evaluation.race import BETTER, NOT_SEPARABLE, BernsteinRace


@dataclass
class Problem:
    name: str
    game: Any
    bounds: tuple[tuple[float, float], ...]
    make: Callable[[tuple[float, ...]], Any]
    baseline: Any                      # randomised baseline strategy (naive method, reporting)
    random_point: Callable[[np.random.Generator], tuple[float, ...]] | None = None

    @property
    def dim(self) -> int:
        return len(self.bounds)

    def uniform_point(self, rng) -> tuple[float, ...]:
        if self.random_point is not None:
            return tuple(float(x) for x in self.random_point(rng))
        return tuple(float(rng.uniform(lo, hi)) for lo, hi in self.bounds)

    def mutate(self, theta, sigma: float, rng) -> tuple[float, ...]:
        out = []
        for x, (lo, hi) in zip(theta, self.bounds):
            y = x + sigma * (hi - lo) * rng.normal()
            out.append(float(min(max(y, lo), hi)))
        return tuple(out)


@dataclass
class Run:
    method: str
    problem: str
    seed: int
    budget: int
    games: int = 0
    best: tuple[float, ...] | None = None
    trajectory: list[dict] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    def log(self, event: str, theta=None, **kw) -> None:
        row = {"games": self.games, "event": event}
        if theta is not None:
            row["theta"] = [round(float(x), 6) for x in theta]
        row.update(kw)
        self.trajectory.append(row)

    def to_json(self) -> str:
        return json.dumps(asdict(self), default=float)


def _paired_scores(problem: Problem, new, old, seed: int, start: int, stop: int, executor=None) -> list[float]:
    if executor is None:
        a = play_games(problem.game, new, problem.baseline, seed, start, stop)
        b = play_games(problem.game, old, problem.baseline, seed, start, stop)
    else:
        a, b = executor.map(play_games, [problem.game] * 2, [new, old], [problem.baseline] * 2, [seed] * 2,
                            [start] * 2, [stop] * 2)
    return [(1.0 + x - y) / 2.0 for x, y in zip(a, b)]


def paired_race(problem: Problem, new, old, seed: int, delta: float, cap: int, batch: int = 64, executor=None):
    """Race 'new beats old against the baseline' on common random numbers; returns (verdict, games, score)."""
    race = BernsteinRace(delta=delta, cap=cap)
    nxt = 0
    if executor is not None:
        batch = max(batch, EXECUTOR_BATCH)
    while not race.done:
        for x in _paired_scores(problem, new, old, seed, nxt, min(nxt + batch, cap), executor):
            if race.add(x):
                break
        nxt = min(nxt + batch, cap)
    r = race.result()
    return r.verdict, 2 * r.games, r.score


# games per task when races run on an executor (results do not depend on it: games are fed in order)
EXECUTOR_BATCH = 256


def _race(problem: Problem, a, b, seed: int, delta: float, cap: int, workers: int, executor=None):
    if executor is not None:
        r = match(problem.game, a, b, seed=seed, delta=delta, cap=cap, workers=executor.workers,
                  executor=executor, batch=EXECUTOR_BATCH)
    else:
        r = match(problem.game, a, b, seed=seed, delta=delta, cap=cap, workers=workers)
    return r.verdict, r.games, r.score


def _accept(verdict: str, score: float, limited: bool) -> bool:
    return verdict == BETTER or (limited and verdict == NOT_SEPARABLE and score > 0.5)


SIGMA_MIN = 0.05  # the strategies are piecewise constant in their parameters: never a smaller step
SIGMA_MAX = 0.5  # at most half the (scaled) box
STEP_UP = 2.0  # on a success
STEP_DOWN = 2 ** -0.25  # on a failure: four failures undo one success (the one-fifth rule's balance)


def one_fifth_step(sigma: float, success: bool) -> float:
    """The (1+1)-ES one-fifth rule's step size after a success or a failure, within [SIGMA_MIN, SIGMA_MAX]."""
    return min(sigma * STEP_UP, SIGMA_MAX) if success else max(sigma * STEP_DOWN, SIGMA_MIN)


def _seed(rng) -> int:
    return int(rng.integers(0, 2**62))


def naive(problem: Problem, budget: int, seed: int = 0, delta: float = 0.05, cap: int = 2000,
          sigma: float = 0.3, start=None, limited: bool = True, executor=None, **_) -> Run:
    rng = np.random.Generator(np.random.PCG64(seed))
    run = Run("naive", problem.name, seed, budget)
    x = tuple(start) if start is not None else problem.uniform_point(rng)
    run.log("start", x)
    while run.games < budget:
        y = problem.mutate(x, sigma, rng)
        verdict, g, score = paired_race(problem, problem.make(y), problem.make(x), _seed(rng), delta,
                                        min(cap, max(2, (budget - run.games) // 2)), executor=executor)
        run.games += g
        if _accept(verdict, score, limited):
            x, sigma = y, one_fifth_step(sigma, True)
            run.log("accept", x, verdict=verdict, score=score, sigma=sigma)
        else:
            sigma = one_fifth_step(sigma, False)
            run.log("reject", y, verdict=verdict, score=score, sigma=sigma)
    run.best = x
    return run


def iterative(problem: Problem, budget: int, seed: int = 0, delta: float = 0.05, cap: int = 2000,
              sigma: float = 0.3, workers: int = 1, start=None, limited: bool = True, executor=None, **_) -> Run:
    rng = np.random.Generator(np.random.PCG64(seed))
    run = Run("iterative", problem.name, seed, budget)
    base = tuple(start) if start is not None else problem.uniform_point(rng)
    run.log("start", base)
    while run.games < budget:
        y = problem.mutate(base, sigma, rng)
        verdict, g, score = _race(problem, problem.make(y), problem.make(base), _seed(rng), delta,
                                  min(cap, max(2, budget - run.games)), workers, executor)
        run.games += g
        if _accept(verdict, score, limited):
            base, sigma = y, one_fifth_step(sigma, True)
            run.log("new-baseline", base, verdict=verdict, score=score, sigma=sigma)
        else:
            sigma = one_fifth_step(sigma, False)
            run.log("reject", y, verdict=verdict, score=score, sigma=sigma)
    run.best = base
    return run


def real_coevolution(problem: Problem, budget: int, seed: int = 0, delta: float = 0.05, cap: int = 2000,
                     sigma: float = 0.3, population: int = 4, workers: int = 1, limited: bool = True, executor=None,
                     **_) -> Run:
    return _coevolution("real_coevolution", problem, budget, seed, delta, cap, sigma, population, workers, limited,
                        executor, parisian=False)


def approx_coevolution(problem: Problem, budget: int, seed: int = 0, delta: float = 0.05, cap: int = 2000,
                       sigma: float = 0.3, population: int = 4, workers: int = 1, limited: bool = True, executor=None,
                       progress=None, **_) -> Run:
    return _coevolution("approx_coevolution", problem, budget, seed, delta, cap, sigma, population, workers,
                        limited, executor, parisian=True, progress=progress)


def _coevolution(method: str, problem: Problem, budget: int, seed: int, delta: float, cap: int, sigma: float,
                 population: int, workers: int, limited: bool, executor, parisian: bool, progress=None) -> Run:
    """A proposal (mutation of a random member) raced against every member, entering in place of the
    oldest if it beats them all (real); or against one member drawn at random, replacing it (Parisian).
    ``progress``: called with the games played so far after each race."""
    rng = np.random.Generator(np.random.PCG64(seed))
    run = Run(method, problem.name, seed, budget)
    pop = [problem.uniform_point(rng) for _ in range(population)]
    last = pop[0]
    for p in pop:
        run.log("member", p)
    while run.games < budget:
        y = problem.mutate(pop[int(rng.integers(len(pop)))], sigma, rng)
        opponents = [int(rng.integers(len(pop)))] if parisian else range(len(pop))
        ok = True
        for j in opponents:
            verdict, g, score = _race(problem, problem.make(y), problem.make(pop[j]), _seed(rng), delta,
                                      min(cap, max(2, budget - run.games)), workers, executor)
            run.games += g
            if progress is not None:
                progress(run.games)
            if not _accept(verdict, score, limited):
                ok = False
                break
        if ok:
            if parisian:
                pop[opponents[0]] = y
                where = {"replaced": opponents[0]}
            else:
                pop = pop[1:] + [y]
                where = {}
            last, sigma = y, one_fifth_step(sigma, True)
            run.log("accept", y, **where, score=score, sigma=sigma)
        else:
            sigma = one_fifth_step(sigma, False)
            run.log("reject", y, verdict=verdict, score=score, sigma=sigma)
    run.best = last
    run.extra["population"] = [list(p) for p in pop]
    return run


def nash_mixture(A: np.ndarray) -> tuple[np.ndarray, float]:
    """Maximin mixture of the row player of the zero-sum matrix game with payoffs A (row's score)."""
    from scipy.optimize import linprog

    k, l = A.shape
    # variables: x (k), v; maximise v s.t. A^T x >= v, sum x = 1, x >= 0
    c = np.zeros(k + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-A.T, np.ones((l, 1))])
    b_ub = np.zeros(l)
    A_eq = np.hstack([np.ones((1, k)), np.zeros((1, 1))])
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0],
                  bounds=[(0, None)] * k + [(None, None)], method="highs")
    if not res.success:
        raise RuntimeError(f"linprog: {res.message}")
    x = np.clip(res.x[:k], 0, None)
    return x / x.sum(), float(res.x[-1])


@dataclass(frozen=True)
class Mixture:
    """A mixture of strategies: one member plays the whole game, drawn from the game's generator."""
    members: tuple
    weights: tuple[float, ...]
    name: str = "mixture"

    def for_game(self, rng):
        return self.members[int(rng.choice(len(self.members), p=np.asarray(self.weights)))]


def seeds(problem: Problem, budget: int, seed: int = 0, games_per_pair: int | None = None,
          population: int | None = None, workers: int = 1, executor=None, **_) -> Run:
    """Random population, all pairwise games, the best average; and the Nash mixture over the seeds."""
    rng = np.random.Generator(np.random.PCG64(seed))
    run = Run("seeds", problem.name, seed, budget)
    if population is None:
        g = games_per_pair or 100
        population = max(2, int((1 + math.sqrt(1 + 8 * budget / g)) / 2))
    K = population
    pairs = K * (K - 1) // 2
    g = games_per_pair or max(2, (budget // max(pairs, 1)) // 2 * 2)
    pts = [problem.uniform_point(rng) for _ in range(K)]
    strats = [problem.make(p) for p in pts]
    A = np.full((K, K), 0.5)
    pairs_ij = [(i, j) for i in range(K) for j in range(i + 1, K)]
    seeds_ij = [_seed(rng) for _ in pairs_ij]
    n = len(pairs_ij)
    run_all = executor.map if executor is not None else lambda f, *it: list(map(f, *it))
    results = run_all(play_games, [problem.game] * n, [strats[i] for i, _ in pairs_ij],
                      [strats[j] for _, j in pairs_ij], seeds_ij, [0] * n, [g] * n)
    for (i, j), scores in zip(pairs_ij, results):
        s = float(np.mean(scores))
        A[i, j], A[j, i] = s, 1.0 - s
        run.games += g
    avg = A.mean(axis=1)
    best = int(np.argmax(avg))
    run.best = pts[best]
    w, value = nash_mixture(A)
    run.log("seeds", None, population=K, games_per_pair=g, best_index=best, best_average=float(avg[best]))
    run.extra.update(points=[list(p) for p in pts], average=avg.tolist(), nash_weights=w.tolist(),
                     nash_value=value)
    return run


def nash_strategy(problem: Problem, run: Run, tol: float = 1e-6) -> Mixture:
    pts, w = run.extra["points"], run.extra["nash_weights"]
    keep = [i for i, x in enumerate(w) if x > tol]
    ws = np.asarray([w[i] for i in keep])
    return Mixture(tuple(problem.make(tuple(pts[i])) for i in keep), tuple((ws / ws.sum()).tolist()),
                   name="seeds-nash")


METHODS = {"naive": naive, "iterative": iterative, "real_coevolution": real_coevolution,
           "approx_coevolution": approx_coevolution, "seeds": seeds}


def guesswho_problem(n: int = 24) -> Problem:
    from games.guesswho import game as gw

    return Problem(f"guesswho{n}", gw.GuessWhoGame(n), gw.PARAM_BOUNDS,
                   lambda th: gw.Parametric(tuple(th), name="param=" + ",".join(f"{x:.3g}" for x in th)),
                   gw.RandomParametric())


def hangman_problem(name: str) -> Problem:
    """Tune our letter rule (with our word choice) against the seed's player (the baseline)."""
    from builder.evaluation.hangman import game_for
    from games.hangman import strategies as hs

    return Problem(name, game_for(name), hs.SCORED_BOUNDS, _HangmanPlayer(), hs.seed_player())


class _HangmanPlayer:
    """theta -> our Hangman player with that letter rule (picklable, unlike a lambda)."""

    def __call__(self, th):
        from games.hangman import strategies as hs

        return hs.Player(hs.HardWords(), hs.ScoredLetters(tuple(float(x) for x in th)),
                         name="ours(" + ",".join(f"{x:.3g}" for x in th) + ")")


# ------------------------------------------------------------------------------------ driver / table
def problem_by_name(name: str) -> tuple[Problem, dict]:
    """The problem and the named reference strategies to evaluate against."""
    if name.startswith("guesswho"):
        from games.guesswho import game as gw

        n = int(name[len("guesswho"):] or gw.N_DEFAULT)
        return guesswho_problem(n), {"bisection": gw.Bisection(), "optimal": gw.ExactOptimal()}
    if name.startswith("hangman"):
        from games.hangman import strategies as hs

        return hangman_problem(name), {"seed": hs.seed_player(), "ours-default": hs.our_player()}
    raise ValueError(f"unknown problem {name!r}")


def _exact(problem: Problem, a, b):
    """Seat-averaged exact score for Guess Who between deterministic policies, else None."""
    if not problem.name.startswith("guesswho") or not (getattr(a, "deterministic", False) and getattr(b, "deterministic", False)):
        return None
    from games.guesswho import match_value

    n = problem.game.n
    return float((match_value(a, b, n) + 1 - match_value(b, a, n)) / 2)


def evaluate(problem: Problem, strategies: dict, references: dict, eval_games: int = 20000, delta: float = 0.05,
             cap: int = 20000, workers: int = 1, seed: int = 12345) -> list[dict]:
    rows = []
    for sname, s in strategies.items():
        row = {"method": sname}
        m = float(np.mean(play_games(problem.game, s, problem.baseline, seed, 0, eval_games)))
        sd = math.sqrt(max(m * (1 - m), 0) / eval_games)
        row["vs_baseline"] = (m, 1.96 * sd)
        for rname, r in references.items():
            res = match(problem.game, s, r, seed=seed + 1, delta=delta, cap=cap, workers=workers)
            row[f"vs_{rname}"] = (res.score, res.low, res.high, res.games, res.verdict, _exact(problem, s, r))
        rows.append(row)
    return rows


def format_table(problem: Problem, rows: list[dict], references: dict) -> str:
    head = f"| method | score vs baseline ({problem.baseline.name}) |" + "".join(
        f" vs {r}: score [CI] games verdict |" for r in references)
    out = [head, "|" + "---|" * (2 + len(references))]
    for row in rows:
        m, h = row["vs_baseline"]
        cells = [row["method"], f"{m:.4f} +- {h:.4f}"]
        for r in references:
            sc, lo, hi, g, v, ex = row[f"vs_{r}"]
            cells.append(f"{sc:.4f} [{lo:.3f}, {hi:.3f}] {g} {v}" + (f" (exact {ex:.4f})" if ex is not None else ""))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def _executor(args):
    """The executor the CLI asked for explicitly (Dask), else None: races then use ``workers``."""
    from builder.evaluation import arena
    return arena._DEFAULT


def main(argv=None) -> int:
    import argparse
    from pathlib import Path

    ap = argparse.ArgumentParser(prog="python -m builder.evaluation.optimisers")
    ap.add_argument("problem", help="guesswho[N] or hangman<L>")
    ap.add_argument("--budget", type=int, default=200_000, help="games per method")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--delta", type=float, default=0.05)
    ap.add_argument("--cap", type=int, default=1000, help="games per race inside the optimisers")
    ap.add_argument("--eval-games", type=int, default=20000)
    ap.add_argument("--eval-cap", type=int, default=20000)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default="results/optimisers")
    ap.add_argument("--cross-games", type=int, default=0,
                    help="also play the methods' results against each other (Table III), this many games a pair")
    from builder.evaluation.arena import add_executor_args, start_executor
    add_executor_args(ap)
    args = ap.parse_args(argv)
    start_executor(args)
    problem, refs = problem_by_name(args.problem)
    strategies, runs = {}, {}
    for m in args.methods.split(","):
        run = METHODS[m](problem, args.budget, seed=args.seed, delta=args.delta, cap=args.cap, workers=args.workers,
                         executor=_executor(args))
        runs[m] = run
        strategies[m] = problem.make(run.best)
        print(f"{m}: {run.games} games, best {tuple(round(x, 3) for x in run.best)}, "
              f"{sum(1 for r in run.trajectory if r['event'] in ('accept', 'new-baseline'))} acceptances", flush=True)
        if m == "seeds":
            strategies["seeds-nash"] = nash_strategy(problem, run)
        Path(args.out).mkdir(parents=True, exist_ok=True)
        Path(args.out, f"{problem.name}-{m}-{args.seed}.json").write_text(run.to_json())
    rows = evaluate(problem, strategies, refs, eval_games=args.eval_games, delta=args.delta, cap=args.eval_cap,
                    workers=args.workers)
    table = format_table(problem, rows, refs)
    print(table)
    if args.cross_games:
        names = [m for m in strategies if m != "seeds-nash"]
        lines = ["| row vs column | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        for a in names:
            cells = []
            for b in names:
                if a == b:
                    cells.append("0.5")
                    continue
                ex = _exact(problem, strategies[a], strategies[b])
                sc = float(np.mean(play_games(problem.game, strategies[a], strategies[b], args.seed + 7, 0,
                                              args.cross_games)))
                cells.append(f"{sc:.3f}" + (f" (exact {ex:.3f})" if ex is not None else ""))
            lines.append(f"| {a} | " + " | ".join(cells) + " |")
        cross = "\n".join(lines)
        print(cross)
        table += "\n\n" + cross
    Path(args.out, f"{problem.name}-table-{args.seed}.md").write_text(table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
