"""Equilibrium solvers for Jotto over the greedy oracle: Ganzfried's fictitious play and a double oracle.

Payoffs are numbers of guesses (the hider's payoff). A guesser strategy is a mixture over greedy
responses ("members"), each member being GuesserGBR against one hider strategy; its per-word
expected guesses are ANG = G @ weights with G[i, c] the guesses member c needs for word i.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.optimize import linprog

from games.fixedmath import dot, exp, matvec
from games.jotto.exact import ExactResult
from games.jotto.oracle import GBR, JottoOracle, Tree, state_key


# ---------------------------------------------------------------- Ganzfried Alg. 8-12
def hider_br(sum_guesses: np.ndarray) -> np.ndarray:
    """HiderBR (Alg. 8): the words needing the most guesses on average, as an index array.

    Takes the integer sum of guesses over iterations (ANG times t+1) so that ties are exact.
    """
    return np.flatnonzero(sum_guesses == sum_guesses.max()).astype(np.int32)


def hider_br_payoff(ang: np.ndarray) -> float:
    """HiderBRPayoff (Alg. 9)."""
    return float(ang.max())


def hider_actual_payoff(ang: np.ndarray, s_h: np.ndarray) -> float:
    """HiderActualPayoff (Alg. 10)."""
    return dot(ang, s_h)


def guesser_br_payoff(ing: np.ndarray, s_h: np.ndarray) -> float:
    """GuesserBRPayoff (Alg. 11)."""
    return -dot(ing, s_h)


def guesser_actual_payoff(ang: np.ndarray, s_h: np.ndarray) -> float:
    """GuesserActualPayoff (Alg. 12)."""
    return -hider_actual_payoff(ang, s_h)


def epsilons(ang: np.ndarray, ing: np.ndarray, s_h: np.ndarray) -> tuple[float, float]:
    """Ganzfried's (epsilon_hider, epsilon_guesser) for the pair (s_h, guesser mixture with per-word ANG);
    ING: guesses of GuesserGBR against s_h."""
    eps_h = hider_br_payoff(ang) - hider_actual_payoff(ang, s_h)
    eps_g = guesser_br_payoff(ing, s_h) - guesser_actual_payoff(ang, s_h)
    return eps_h, eps_g


@dataclass
class PairStats:
    """Item-4 figures of one (hider, guesser mixture) pair; all in guesses."""

    guarantee: float  # max over secret words of the mixture's expected guesses (lower is better)
    hider_vs_gbr: float  # hider's payoff against GuesserGBR to the hider (higher is better)
    self_play: float  # hider's payoff against the mixture
    epsilon_hider: float
    epsilon_guesser: float
    mixture_size: int
    mean_vs_uniform: float = 0.0  # the mixture's expected guesses against the uniform hider
    worst_guesses: int = 0  # most guesses any member of the mixture needs for any word

    @property
    def epsilon(self) -> float:
        return max(self.epsilon_hider, self.epsilon_guesser)

    @property
    def gap(self) -> float:
        return self.epsilon_hider + self.epsilon_guesser

    def as_dict(self) -> dict[str, float]:
        return {
            "guarantee": self.guarantee, "hider_vs_gbr": self.hider_vs_gbr, "self_play": self.self_play,
            "epsilon_hider": self.epsilon_hider, "epsilon_guesser": self.epsilon_guesser,
            "epsilon": self.epsilon, "gap": self.gap, "mixture_size": float(self.mixture_size),
            "mean_guesses_vs_uniform": self.mean_vs_uniform, "worst_guesses": float(self.worst_guesses),
        }


def pair_stats(h: np.ndarray, gbr_guesses_vs_h: np.ndarray, member_guesses: np.ndarray, weights: np.ndarray) -> PairStats:
    """Figures for hider h against the mixture (member_guesses D x m, weights m)."""
    ang = matvec(member_guesses, weights)
    eps_h, eps_g = epsilons(ang, gbr_guesses_vs_h.astype(np.float64), h)
    return PairStats(
        guarantee=hider_br_payoff(ang), hider_vs_gbr=dot(h, gbr_guesses_vs_h), self_play=dot(h, ang),
        epsilon_hider=eps_h, epsilon_guesser=eps_g, mixture_size=int(np.count_nonzero(weights)),
        mean_vs_uniform=float(ang.mean()), worst_guesses=int(member_guesses[:, weights > 0].max()),
    )


# ---------------------------------------------------------------- SolveJotto (Alg. 13)
def fp_hider(br_sets: list[np.ndarray], t: int, D: int) -> np.ndarray:
    """s_{h,t} of fictitious play from the best-response sets of iterations 1..t (s_{h,0} uniform).

    Computed as the running sum of the best responses divided by t+1 (the update of Alg. 13 written
    without rounding drift); builder and server both call this, so a member's oracle input is the same.
    """
    w = np.full(D, 1.0 / D)
    for k in range(1, t + 1):
        s = br_sets[k - 1]
        w[s] += 1.0 / len(s)
    return w / (t + 1)


@dataclass
class FPState:
    """Fictitious-play progress: enough to resume, to rebuild the strategy file and the mixture."""

    D: int
    t: int = 0
    sum_guesses: np.ndarray | None = None  # int64[D], sum of ING over iterations 0..t
    br_sets: list[np.ndarray] = field(default_factory=list)  # HiderBR support at iterations 1..t
    member_guesses: list[np.ndarray] = field(default_factory=list)  # ING_t, the GBR tree vs s_{h,t}
    eps: list[tuple[float, float]] = field(default_factory=list)
    seconds: float = 0.0
    w: np.ndarray | None = None  # running sum of best responses (s_{h,t} * (t+1))
    book: list[tuple[int, bytes, int, int]] = field(default_factory=list)  # (member t, state key, |S|, move)

    def record(self, t: int, tree: Tree) -> None:
        for state, move in zip(tree.node_states, tree.node_moves):
            self.book.append((t, state_key(self.D, state), len(state), move))

    @property
    def t_star(self) -> int:
        e = np.array([max(a, b) for a, b in self.eps])
        return int(np.argmin(e))

    def curves(self) -> np.ndarray:
        """Per iteration t: (epsilon_hider, epsilon_guesser, guarantee of the uniform mixture over the
        greedy responses 0..t), the last = max over words of its expected guesses."""
        total = np.zeros(self.D)
        guarantee = []
        for t, g in enumerate(self.member_guesses):
            total += g
            guarantee.append(total.max() / (t + 1))
        return np.column_stack([np.array(self.eps, dtype=np.float64).reshape(-1, 2), guarantee])

    def hider(self, t: int | None = None) -> np.ndarray:
        t = self.t if t is None else t
        if t == self.t and self.w is not None:
            return self.w / (self.t + 1)
        return fp_hider(self.br_sets, t, self.D)

    def to_arrays(self) -> dict[str, np.ndarray]:
        lens = np.array([len(s) for s in self.br_sets], dtype=np.int64)
        flat = np.concatenate(self.br_sets) if self.br_sets else np.zeros(0, np.int32)
        return {
            "D": np.array(self.D), "t": np.array(self.t), "sum_guesses": self.sum_guesses,
            "br_lens": lens, "br_flat": flat.astype(np.int32),
            "member_guesses": np.array(self.member_guesses, dtype=np.uint8),
            "eps": np.array(self.eps, dtype=np.float64).reshape(-1, 2), "seconds": np.array(self.seconds), "w": self.w,
            "book_t": np.array([b[0] for b in self.book], dtype=np.int64),
            "book_key": np.array([np.frombuffer(b[1], np.uint8) for b in self.book], dtype=np.uint8).reshape(-1, 16),
            "book_n": np.array([b[2] for b in self.book], dtype=np.int64),
            "book_move": np.array([b[3] for b in self.book], dtype=np.int64),
        }

    @staticmethod
    def from_arrays(a) -> "FPState":
        splits = np.cumsum(a["br_lens"])[:-1]
        br = list(np.split(a["br_flat"], splits)) if len(a["br_lens"]) else []
        return FPState(
            D=int(a["D"]), t=int(a["t"]), sum_guesses=a["sum_guesses"].copy(), br_sets=br,
            member_guesses=list(a["member_guesses"]), eps=[tuple(e) for e in a["eps"]],
            seconds=float(a["seconds"]), w=a["w"].copy(),
            book=[(int(t), k.tobytes(), int(n), int(m)) for t, k, n, m in
                  zip(a["book_t"], a["book_key"], a["book_n"], a["book_move"])],
        )


def solve_jotto(
    oracle: JottoOracle, T: int, state: FPState | None = None,
    on_iteration: Callable[[FPState], None] | None = None, record_threshold: int | None = None,
) -> FPState:
    """SolveJotto (Alg. 13): fictitious play with HiderBR and GuesserGBR, tracking epsilon and t*.

    Resumes from `state` if given; `on_iteration` is called after every iteration (progress, checkpoints).
    """
    D = oracle.D
    if state is None:
        start = time.perf_counter()
        state = FPState(D=D, w=np.full(D, 1.0 / D))
        tree = oracle.tree(state.hider(0), GBR, record_threshold)
        state.record(0, tree)
        ing = tree.guesses
        state.sum_guesses = ing.astype(np.int64)
        state.member_guesses.append(ing.astype(np.uint8))
        state.eps.append(epsilons(ing.astype(np.float64), ing.astype(np.float64), state.hider(0)))
        state.seconds += time.perf_counter() - start
        if on_iteration:
            on_iteration(state)
    while state.t < T:
        start = time.perf_counter()
        t = state.t + 1
        br = hider_br(state.sum_guesses)
        state.br_sets.append(br)
        state.w[br] += 1.0 / len(br)
        state.t = t
        s_h = state.hider()
        tree = oracle.tree(s_h, GBR, record_threshold)
        state.record(t, tree)
        ing = tree.guesses
        state.sum_guesses += ing
        state.member_guesses.append(ing.astype(np.uint8))
        ang = state.sum_guesses / (t + 1)
        state.eps.append(epsilons(ang, ing.astype(np.float64), s_h))
        state.seconds += time.perf_counter() - start
        if on_iteration:
            on_iteration(state)
    return state


# ---------------------------------------------------------------- Hedge (beyond the paper)
def hedge_hider(sum_guesses: np.ndarray, eta: float) -> np.ndarray:
    """The Hedge (multiplicative weights, Freund & Schapire 1999) hider: word i weighted by
    exp(eta * (its guesses summed over the responses so far - the largest such sum)).

    Fictitious play's HiderBR puts all weight on the words of the largest sum; Hedge's softmax keeps
    every word in play, so each greedy response is one against a smooth hider, not a specialist."""
    z = exp(eta * (sum_guesses.astype(np.float64) - float(sum_guesses.max())))
    return z / z.sum()


@dataclass
class HedgeState:
    """Hedge's progress: the hider of every iteration and the guesses of its greedy response."""

    D: int
    eta: float
    hiders: list[np.ndarray] = field(default_factory=list)
    columns: list[np.ndarray] = field(default_factory=list)  # uint8 guesses per word of GBR(hiders[t])
    seconds: float = 0.0

    @property
    def t(self) -> int:
        return len(self.columns)

    def sum_guesses(self) -> np.ndarray:
        return np.sum(np.array(self.columns, dtype=np.int64), axis=0) if self.columns else np.zeros(self.D, np.int64)

    def average_hider(self) -> np.ndarray:
        return np.mean(self.hiders, axis=0)

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {"D": np.array(self.D), "eta": np.array(self.eta), "hiders": np.array(self.hiders).reshape(-1, self.D),
                "columns": np.array(self.columns, dtype=np.uint8).reshape(-1, self.D), "seconds": np.array(self.seconds)}

    @staticmethod
    def from_arrays(a) -> "HedgeState":
        return HedgeState(int(a["D"]), float(a["eta"]), list(a["hiders"]), list(a["columns"]), float(a["seconds"]))


def solve_hedge(oracle: JottoOracle, T: int, eta: float, state: HedgeState | None = None,
                on_iteration: Callable[[HedgeState], None] | None = None, trees: TreeMap | None = None) -> HedgeState:
    """T iterations of the Hedge hider against GuesserGBR: each iteration's hider (``hedge_hider`` of the
    guesses summed so far; the first is uniform) and its greedy response, a column for the restricted
    game. Resumes from ``state``; the sums are integers, so a resumed run is identical."""
    if not eta > 0:
        raise ValueError(f"Hedge's eta must be positive, not {eta}")
    if state is None:
        state = HedgeState(oracle.D, eta)
    if state.eta != eta:
        raise ValueError(f"cannot resume a Hedge run of eta {state.eta} with eta {eta}")
    total = state.sum_guesses()
    while state.t < T:
        start = time.perf_counter()
        h = hedge_hider(total, eta)
        g = gbr_guesses(oracle, [h], trees)[0]
        state.hiders.append(h)
        state.columns.append(g.astype(np.uint8))
        total += g
        state.seconds += time.perf_counter() - start
        if on_iteration:
            on_iteration(state)
    return state


# ---------------------------------------------------------------- double oracle (beyond the paper)
def restricted_game(G: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """Exact LP of the restricted game: the hider picks any of the D words, the guesser mixes the C
    member trees. Returns (guesser weights, guarantee, hider strategy from the duals)."""
    D, C = G.shape
    c = np.zeros(C + 1)
    c[-1] = 1.0
    A_ub = np.hstack([G.astype(np.float64), -np.ones((D, 1))])
    A_eq = np.zeros((1, C + 1))
    A_eq[0, :C] = 1.0
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(D), A_eq=A_eq, b_eq=[1.0],
                  bounds=[(0, None)] * C + [(None, None)], method="highs")
    if res.status != 0:
        raise RuntimeError(f"restricted-game LP failed: {res.message}")
    x = np.where(res.x[:C] > 1e-12, res.x[:C], 0.0)
    x /= x.sum()
    y = np.maximum(-res.ineqlin.marginals, 0.0)
    y = y / y.sum() if y.sum() > 0 else np.full(D, 1.0 / D)
    guarantee = float(matvec(G, x).max())
    return x, guarantee, y


@dataclass
class DOState:
    hiders: list[np.ndarray] = field(default_factory=list)  # oracle input of each column
    columns: list[np.ndarray] = field(default_factory=list)  # guesses per word of each column (uint8)
    weights: np.ndarray | None = None
    guarantee_history: list[float] = field(default_factory=list)
    seconds: float = 0.0
    iterations: int = 0

    last_used: list[int] = field(default_factory=list)  # iteration a column was added or last in the support
    kinds: list[int] = field(default_factory=list)  # the oracle kind of each column (GBR, ROLLOUT, ...)
    # the restricted game's hider (its LP's duals) where `weights` are that LP's over every column; None otherwise
    # (before such an LP, and once a column is added)
    hider: np.ndarray | None = None

    def add(self, h: np.ndarray, guesses: np.ndarray, kind: int = GBR) -> None:
        self.hiders.append(h)
        self.columns.append(guesses.astype(np.uint8))
        self.last_used.append(self.iterations)
        self.kinds.append(kind)
        self.hider = None

    def active(self, keep: int) -> np.ndarray:
        """Columns added or in the restricted game's support within the last `keep` iterations."""
        return np.flatnonzero(np.array(self.last_used) >= self.iterations - keep)

    def matrix(self) -> np.ndarray:
        return np.stack(self.columns, axis=1)

    def curves(self) -> np.ndarray:
        """Per round: (guarantee of the restricted game's guesser, payoff of its hider against that
        hider's greedy response); their gap is the round's epsilon."""
        first = len(self.columns) - 2 * self.iterations  # the uniform and seed columns, then two per round
        y = self.hider_payoffs()[first::2][: self.iterations]
        return np.column_stack([np.array(self.guarantee_history, dtype=np.float64), y])

    def round_hiders(self, per_round: int) -> list[np.ndarray]:
        """The restricted game's hider y of every round (a round adds `per_round` columns, y's first)."""
        first = len(self.columns) - per_round * self.iterations
        return self.hiders[first::per_round][: self.iterations]

    def hider_payoffs(self) -> np.ndarray:
        """Each column's hider against its own greedy response: the hider's payoff vs GBR."""
        return np.array([dot(g, h) for h, g in zip(self.hiders, self.columns)])

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {"hiders": np.array(self.hiders), "columns": np.array(self.columns),
                "weights": self.weights if self.weights is not None else np.zeros(0),
                "guarantee_history": np.array(self.guarantee_history), "seconds": np.array(self.seconds),
                "iterations": np.array(self.iterations), "last_used": np.array(self.last_used, dtype=np.int64),
                "kinds": np.array(self.kinds, dtype=np.int64),
                "hider": self.hider if self.hider is not None else np.zeros(0)}

    @staticmethod
    def from_arrays(a) -> "DOState":
        w = a["weights"]
        it = int(a["iterations"])
        last = [int(x) for x in a["last_used"]] if "last_used" in a else [it] * len(a["columns"])
        kinds = [int(x) for x in a["kinds"]] if "kinds" in a else [GBR] * len(a["columns"])
        y = a["hider"] if "hider" in a and a["hider"].size else None
        return DOState(list(a["hiders"]), list(a["columns"]), w if w.size else None,
                       list(a["guarantee_history"]), float(a["seconds"]), it, last, kinds, y)


# (hiders, oracle kind) -> the oracle's response trees to them, in order (e.g. on the builder's executor)
TreeMap = Callable[[list, int], list]


def gbr_guesses(oracle: JottoOracle, hiders: list[np.ndarray], trees: TreeMap | None = None,
                kind: int = GBR) -> list[np.ndarray]:
    """Guesses per secret word of GuesserGBR (or another oracle kind) against each hider (CompNumGuesses,
    Alg. 6)."""
    if trees is None:
        return [oracle.tree(h, kind).guesses for h in hiders]
    return [t.guesses for t in trees(hiders, kind)]


def solve_double_oracle(
    oracle: JottoOracle, iterations: int, state: DOState | None = None,
    seed_columns: list[tuple[np.ndarray, np.ndarray]] = (),
    on_iteration: Callable[[DOState], None] | None = None, keep: int = 8, trees: TreeMap | None = None,
    kinds: tuple[int, ...] = (GBR,),
) -> DOState:
    """Double oracle over greedy responses: solve the restricted game exactly (LP), then add the
    responses of each oracle kind in `kinds` (GBR; the rollout guesser gives better columns) to the
    restricted hider and to its mix with the uniform hider as new columns.

    Each round's LP runs over the columns added or used within the last `keep` rounds (the LP grows
    slow past a few hundred columns); the final mixture is solved over every column found, its hider kept in
    ``state.hider``. ``trees`` computes a round's greedy responses (in parallel in the builder); by default one
    after another.
    """
    if state is None:
        state = DOState()
        state.add(oracle.uniform, gbr_guesses(oracle, [oracle.uniform], trees)[0])
        for h, g in seed_columns:
            state.add(h, g)
    while state.iterations < iterations:
        start = time.perf_counter()
        act = state.active(keep)
        xa, guarantee, y = restricted_game(state.matrix()[:, act])
        x = np.zeros(len(state.columns))
        x[act] = xa
        for c in act[xa > 0]:
            state.last_used[c] = state.iterations
        state.weights, state.guarantee_history = x, state.guarantee_history + [guarantee]
        state.hider = y if len(act) == len(state.columns) else None
        hs = [y, 0.5 * (y + oracle.uniform)]
        for kind in kinds:
            for h, g in zip(hs, gbr_guesses(oracle, hs, trees, kind)):
                state.add(h, g, kind)
        state.iterations += 1
        state.seconds += time.perf_counter() - start
        if on_iteration:
            on_iteration(state)
    if state.hider is None:
        # the final mixture over every column; guarantee_history keeps one entry per round, so that a
        # resumed solve records exactly what an uninterrupted one does
        state.weights, _, state.hider = restricted_game(state.matrix())
    return state


def hider_candidates(anchors: list[np.ndarray], alphas=(0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 0.85, 1.0)) -> list[np.ndarray]:
    """Hider strategies on the segments between every pair of anchor strategies (e.g. the uniform
    hider, the restricted game's hider, fictitious play's average hider)."""
    out = [a for a in anchors]
    for i in range(len(anchors)):
        for j in range(i + 1, len(anchors)):
            out += [(1.0 - a) * anchors[i] + a * anchors[j] for a in alphas if 0.0 < a < 1.0]
    return out


def select_hider(oracle: JottoOracle, candidates: list[np.ndarray], G: np.ndarray, weights: np.ndarray,
                 trees: TreeMap | None = None, kind: int = GBR) -> tuple[int, list[PairStats]]:
    """Pick the hider served beside a guesser mixture: lowest Ganzfried epsilon of the pair, then the
    highest payoff against the guesser's response (GBR, or the stronger rollout oracle by `kind`)."""
    stats = [pair_stats(h, g, G, weights) for h, g in zip(candidates, gbr_guesses(oracle, candidates, trees, kind))]
    best = min(range(len(stats)), key=lambda i: (stats[i].epsilon, -stats[i].hider_vs_gbr))
    return best, stats


# candidates whose larger lower bound on the true epsilon is within this many guesses of the least count as tied
ROBUST_TOLERANCE = 0.005


def select_robust_hider(eps_gbr: list[float], eps_rollout: list[float], tolerance: float = ROBUST_TOLERANCE) -> int:
    """The hider to serve among candidates with epsilons against GBR and against the rollout oracle: both are
    lower bounds on the true epsilon, so the one whose larger bound is least; among those within
    ``tolerance`` of it, the lowest epsilon against GBR (Ganzfried's figure)."""
    worst = [max(a, b) for a, b in zip(eps_gbr, eps_rollout)]
    least = min(worst)
    return min((i for i, w in enumerate(worst) if w <= least + tolerance), key=lambda i: (eps_gbr[i], worst[i], i))


def stronger_figures(h: np.ndarray, member_guesses: np.ndarray, weights: np.ndarray, rollout_guesses: np.ndarray,
                     exact: ExactResult | None = None) -> dict[str, float]:
    """The pair's figures against guesser responses stronger than GBR: the rollout oracle (its epsilon is a
    lower bound on the exact one) and, where it was computed, the exact best response (optimal tree),
    which makes epsilon_guesser, epsilon and the gap exact: the game's value lies in
    [hider_vs_exact, guarantee]."""
    ang = matvec(member_guesses, weights)
    return stronger_from_pair(hider_br_payoff(ang), hider_actual_payoff(ang, h), dot(rollout_guesses, h),
                              None if exact is None else exact.value)


def stronger_from_pair(guarantee: float, self_play: float, vs_rollout: float, vs_exact: float | None = None
                       ) -> dict[str, float]:
    """stronger_figures from the pair's guarantee and self-play payoff (a store's figures) and the hider's
    payoff against the rollout oracle's response (and the exact best response's, where computed)."""
    eps_h = guarantee - self_play
    out = {"hider_vs_rollout": vs_rollout, "epsilon_guesser_rollout": self_play - vs_rollout,
           "epsilon_rollout": max(eps_h, self_play - vs_rollout)}
    if vs_exact is not None:
        out.update(hider_vs_exact=vs_exact, epsilon_guesser_exact=self_play - vs_exact,
                   epsilon_exact=max(eps_h, self_play - vs_exact), gap_exact=guarantee - vs_exact)
    return out
