"""Build one Jotto store: benchmark, Beeler's guesser, fictitious play, double oracle, books, statistics.

Long stages checkpoint to ``<root>/.work/jotto/<variant>-<params hash>/`` and resume from there.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from builder import interrupt
from builder.steps import StoreSteps
from games.fixedmath import dot
from games.jotto import kernels
from games.jotto.dictionary import load_dictionary
from builder.executor import BuildExecutor
from builder.step_seconds import (BRACKET_COMPILE_COSTS, EXACT_DO_ROUND_COSTS, EXACT_DO_ROUNDS, ROBUST_COMPILE_COSTS,
                                  jotto_step_seconds)
from builder.recorded import recorded_parameters
from games.jotto.certify import BOUNDED, EXACT, solve_exact_double_oracle
from games.jotto.bitset_bb import BitsetExactSolver as ExactSolver, search_compiled
from games.jotto.oracle import ENTROPY, GBR, KIND_NAMES, KINDS, ROLLOUT, ROLLOUT_WIDTH, JottoOracle, Tree, build_tree
from games.jotto.pricing import TruncatedExactPricing
from games.jotto.people import guesses_figures, secret_distribution
from games.jotto.solvers import (
    DOState, FPState, HedgeState, hider_candidates, pair_stats, restricted_game, select_hider, select_robust_hider,
    solve_double_oracle, solve_hedge, solve_jotto, stronger_figures,
)
from games.jotto.store import (
    CERT_CURVES, COMMON, DO_CURVES, MEMBER_EXACT, FP_BR_FLAT, FP_BR_LENS, FP_CURVES, FP_EPSILON, GUARANTEE_HISTORY, HIDER, MEMBER_HIDERS,
    MEMBER_KINDS, MIXED, WEIGHTS, array_key, book_db, book_key, encode_book_value,
)
from games.storage import StoreWriter, code_version

CHECKPOINT_SECONDS = 20.0
# the robust hider's shortlist: the GBR choice and these points of the segment from the uniform hider to Hedge's
# average (measured on the full stores: at 4 letters the uniform end was picked, at 5 letters 0.1 of the way,
# against 0.2 / 0.4 / 0.5 / 0.7 / 1.0 of the way, whose epsilon against the rollout oracle grew with the step)
ROBUST_ALPHAS = (0.0, 0.1, 0.2, 0.3)


@dataclass(frozen=True)
class JottoParams:
    fp_iterations: int
    do_iterations: int
    book_threshold: int = 100
    # the double oracle's column oracles (oracle names: "gbr", "rollout"); with "rollout" the served hider
    # is also chosen by its epsilon against the rollout oracle
    do_oracles: tuple[str, ...] = ("gbr",)
    # the people's guesser: the secret distribution it minimises expected guesses against ("common",
    # "uniform" or a strategy of this store, whose hider it then is) and its oracle
    people_secret: str = "common"
    people_oracle: str = "rollout"
    # (width, threshold): the people's rollout guesser looks one level further at the states of more than
    # `threshold` words (the lookahead guesser, games.jotto.lookahead), trying the rollout guesser's choice
    # and `width` best-scored words; those states are its book (its own book threshold); () = none
    people_lookahead: tuple[int, int] | tuple = ()
    # figures against stronger guessers: the rollout oracle's (every strategy's hider), and the exact best
    # response on dictionaries of at most exact_max_words words (searched within exact_max_nodes states)
    rollout_figures: bool = False
    exact_max_words: int = 0
    exact_max_nodes: int = 5_000_000
    # Hedge iterations (games.jotto.solvers.solve_hedge) whose greedy responses seed the double oracle and
    # whose average hider is one of its anchors; 0 = none
    hedge_iterations: int = 0
    hedge_eta: float = 0.3
    # serve the hider least exploitable by GBR and the rollout oracle together (as the builds with rollout
    # figures do) without computing the other rollout figures
    robust_hider: bool = False
    # certification (games.jotto.certify): "exact" runs the double oracle with exact oracles on both sides
    # (seeded with the store's members, its strategy "exact_do" served where it finishes with the smallest
    # guarantee), within certify_rounds rounds and certify_nodes states per exact search (no time budget: the
    # result must not depend on the machine's load);
    # "served" states the bracket [the exact response to the served hider, or a proven lower bound on it by
    # bounded search (certify_steps probes of at most certify_nodes states), the served guarantee];
    # "" = none
    certify: str = ""
    certify_rounds: int = 200
    certify_nodes: int = 50_000_000
    certify_steps: int = 10
    # "exact": each round also adds the exact best response to the restricted game's own hider (lp_hider_too:
    # two exact trees a round; it closed the 2-letter gap where one tree a round stalled, docs/jotto-exact.md)
    certify_both: bool = False
    # "exact": heuristic pricing first (games.jotto.pricing: the GBR and rollout trees, the exact responses to
    # the hider truncated to each size of certify_pricing, the branch and bound expanding at most w moves a state
    # for each w of certify_pricing_widths; certify_pricing_nodes states a search); the exact search only when
    # no cheap column improves the restricted game by certify_pricing_gain x the gap; smoothing towards the best
    # proven hider off (the round's exact search is the restricted game's own hider's); () = none
    certify_pricing: tuple = ()
    certify_pricing_widths: tuple = ()
    certify_pricing_gain: float = 0.02
    certify_pricing_nodes: int = 500_000

    def as_dict(self) -> dict:
        """The parameters as recorded; people_lookahead and the Hedge parameters only when set, so stores
        built without them keep their content hash."""
        d = asdict(self)
        if d["people_lookahead"]:
            d["people_lookahead"] = list(d["people_lookahead"])
        else:
            del d["people_lookahead"]
        if not d["hedge_iterations"]:
            del d["hedge_iterations"], d["hedge_eta"]
        if not d["robust_hider"]:
            del d["robust_hider"]
        if not d["certify_both"]:
            del d["certify_both"]
        if d["certify_pricing"] or d["certify_pricing_widths"]:
            d["certify_pricing"] = list(d["certify_pricing"])
            d["certify_pricing_widths"] = list(d["certify_pricing_widths"])
        else:
            for k in ("certify_pricing", "certify_pricing_widths", "certify_pricing_gain", "certify_pricing_nodes"):
                del d[k]
        if not d["certify"]:
            for k in ("certify", "certify_rounds", "certify_nodes", "certify_steps"):
                del d[k]
        return d

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.as_dict(), sort_keys=True).encode()).hexdigest()[:10]


class Checkpoint:
    def __init__(self, root: Path, variant: str, params: JottoParams):
        self.dir = Path(root) / ".work" / "jotto" / f"{variant}-{params.digest()}"
        self.dir.mkdir(parents=True, exist_ok=True)
        self._last = time.monotonic()

    def load(self, name: str):
        p = self.dir / f"{name}.npz"
        if not p.is_file():
            return None
        with np.load(p, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}

    def due(self) -> bool:
        return time.monotonic() - self._last >= CHECKPOINT_SECONDS

    def save(self, name: str, arrays: dict) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.dir / f"{name}.tmp.npz"
        np.savez(tmp, **arrays)
        tmp.replace(self.dir / f"{name}.npz")
        self._last = time.monotonic()

    def tick(self, name: str, state) -> None:
        """After an iteration of a resumable solve: save its state when due, and stop (saved) if asked to."""
        if self.due():
            self.save(name, state.to_arrays())
        interrupt.stop_if_requested(lambda: self.save(name, state.to_arrays()))

    def clear(self) -> None:
        for p in self.dir.glob("*"):
            p.unlink()
        self.dir.rmdir()


class TreeRunner:
    """Response trees (CompNumGuesses, Alg. 6) as executor tasks; the dictionary's arrays reach each
    worker once. Every tree records the book's nodes (more than record_threshold words) and is kept by
    (oracle kind, hider), so a tree the double oracle computed as a column is not computed again for its
    book, nor the benchmark's for the double oracle's first column."""

    def __init__(self, oracle: JottoOracle, executor: BuildExecutor, record_threshold: int):
        self.ex, self.L, self.thr = executor, oracle.L, record_threshold
        self.C, self.counts = executor.share(oracle.C), executor.share(oracle.counts)
        self.candidates = {k: executor.share(oracle.candidates(k)) for k in KIND_NAMES}
        self._kept: dict[tuple[int, bytes], Tree] = {}

    def __call__(self, hiders: list[np.ndarray], kind: int = GBR, lookahead_width: int = 0,
                 record_threshold: int | None = None) -> list[Tree]:
        thr = self.thr if record_threshold is None else record_threshold
        keys = [(kind, lookahead_width, thr, np.ascontiguousarray(h, dtype=np.float64).tobytes()) for h in hiders]
        todo = {k: h for k, h in zip(keys, hiders) if k not in self._kept}
        n = len(todo)
        for k, tree in zip(todo, self.ex.map(build_tree, [self.C] * n, [self.counts] * n, list(todo.values()),
                                             [self.candidates[kind]] * n, [self.L] * n, [kind] * n, [thr] * n,
                                             [lookahead_width] * n)):
            self._kept[k] = tree
        return [self._kept[k] for k in keys]


def exact_search(C: np.ndarray, L: int, h: np.ndarray, upper: float, max_nodes: int):
    """The exact best response to hider h (ExactSolver.solve with its default seed) as an executor task."""
    return ExactSolver(C, L).solve(h, upper=upper, max_nodes=max_nodes)


def _book_from_trees(D: int, trees: dict[int, Tree]) -> dict[bytes, tuple[int, list[int], list[int]]]:
    book: dict[bytes, tuple[int, list[int], list[int]]] = {}
    for member, tree in trees.items():
        for state, move in zip(tree.node_states, tree.node_moves):
            _add(book, book_key(D, state), len(state), member, move)
    return book


def _add(book, key, n, member, move):
    entry = book.setdefault(key, (n, [], []))
    entry[1].append(member)
    entry[2].append(move)


def _write_book(writer: StoreWriter, strategy: str, book) -> int:
    items = ((k, encode_book_value(n, np.array(m), np.array(mv))) for k, (n, m, mv) in sorted(book.items()))
    return writer.put_many(book_db(strategy), items)


def _stronger_figures(oracle: JottoOracle, params: JottoParams, trees: TreeRunner, strategies: dict, hiders: dict,
                      columns: dict) -> None:
    """Each strategy's epsilon against the rollout oracle and, on small dictionaries, the exact best
    response (one search per distinct hider; a search beyond exact_max_nodes is reported as not done)."""
    if not (params.rollout_figures or oracle.D <= params.exact_max_words):  # the exact search starts from a rollout
        return
    distinct: dict[bytes, np.ndarray] = {}
    for name in columns:
        distinct.setdefault(hiders[name].tobytes(), hiders[name])
    rollouts = dict(zip(distinct, (t.guesses for t in trees(list(distinct.values()), ROLLOUT))))
    exact: dict[bytes, object] = {}
    if oracle.D <= params.exact_max_words:  # the searches run on the executor, one task per hider
        n = len(distinct)
        uppers = [dot(rollouts[k], h) / h.sum() for k, h in distinct.items()]
        exact = dict(zip(distinct, trees.ex.map(exact_search, [trees.C] * n, [oracle.L] * n, list(distinct.values()),
                                                uppers, [params.exact_max_nodes] * n)))
    for name, (G, w) in columns.items():
        k = hiders[name].tobytes()
        h = hiders[name] / hiders[name].sum()
        strategies[name]["figures"].update(stronger_figures(h, G, w, rollouts[k], exact.get(k)))


class _JottoBuild:
    """One variant's build: the solvers' shared state and what the store will hold."""

    def __init__(self, variant: str, params: JottoParams, root: Path, position: int, executor: BuildExecutor | None,
                 steps: StoreSteps):
        self.variant, self.params, self.position, self.steps = variant, params, position, steps
        self.d = load_dictionary(variant)
        self.oracle = JottoOracle(self.d)
        self.D, self.thr = self.oracle.D, params.book_threshold
        self.trees = TreeRunner(self.oracle, executor or BuildExecutor(), self.thr)
        self.ckpt = Checkpoint(root, variant, params)
        self.strategies: dict[str, dict] = {}
        self.arrays: dict[str, np.ndarray] = {}
        self.books: dict[str, dict] = {}
        self.columns: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # per strategy: member guesses, weights
        self.certified: dict | None = None  # the game's value bracket (_certify)

    def bar(self, desc, total, costs: tuple = ()):
        """A step with a count (a bar on a terminal, a few lines in a log: ``builder.steps``)."""
        return self.steps.step(desc, total, costs=costs, tasks=step_tasks(desc, self.trees.ex.local_cores))

    def phase(self, desc):
        """A step without a count: one line when it starts and one when it ends."""
        return self.steps.step(desc, 1, tasks=step_tasks(desc, self.trees.ex.local_cores))

    def single(self, name: str, hider: np.ndarray, tree: Tree, strategy: dict) -> None:
        """Record a one-member strategy: its hider, its guesser's tree as the book."""
        self.strategies[name] = strategy
        self.arrays.update({array_key(HIDER, name): hider, array_key(WEIGHTS, name): np.ones(1),
                            array_key(MEMBER_HIDERS, name): hider[None, :]})
        self.books[name] = _book_from_trees(self.D, {0: tree})
        self.columns[name] = (tree.guesses[:, None], np.ones(1))


def _fixed_guessers(b: _JottoBuild, pb) -> None:
    """Ganzfried's benchmark pair and Beeler's entropy guesser against the uniform hider; ``pb`` counts three: the two
    trees and the entropy guesser from every first word."""
    oracle, trees = b.oracle, b.trees
    # benchmark pair: HiderUniform / GuesserGBRUniform
    bench = trees([oracle.uniform], GBR)[0]
    pb.update(1)
    st = pair_stats(oracle.uniform, bench.guesses, bench.guesses[:, None], np.ones(1))
    b.single("benchmark", oracle.uniform, bench, dict(
        kind="gbr", members=1, figures=st.as_dict(),
        description="HiderUniform / GuesserGBRUniform (Ganzfried's benchmark)"))

    # Beeler's entropy guesser (common test words) against the uniform hider
    beeler = trees([oracle.uniform], ENTROPY)[0]
    pb.update(1)
    st = pair_stats(oracle.uniform, bench.guesses, beeler.guesses[:, None], np.ones(1))
    first = b.d.words[oracle.move(oracle.all_words, oracle.uniform, ENTROPY)]
    any_word = kernels.comp_num_guesses(oracle.C, oracle.counts, oracle.uniform, oracle.all_words, oracle.L,
                                        ENTROPY, b.D + 1)[0]
    pb.update(1)
    b.single("beeler", oracle.uniform, beeler, dict(
        kind="entropy", members=1, figures=dict(
            st.as_dict(),
            entropy_any_test_word_mean=float(any_word.mean()), entropy_any_test_word_worst=float(any_word.max())),
        first_test_word=first,
        description="Beeler's information-theoretic guesser (common test words) with the uniform hider"))


def _fictitious_play(b: _JottoBuild) -> FPState:
    """SolveJotto (Alg. 13), resumable from its checkpoint; records the strategy 'fp'."""
    oracle, params, ckpt = b.oracle, b.params, b.ckpt
    saved = ckpt.load("fp")
    fp = FPState.from_arrays(saved) if saved is not None else None
    with b.bar("fictitious play", params.fp_iterations + 1) as pb:
        pb.update(0 if fp is None else fp.t + 1)

        best = [min((max(e) for e in fp.eps), default=np.inf)] if fp else [np.inf]

        def fp_tick(s: FPState):
            best[0] = min(best[0], max(s.eps[-1]))
            pb.update(1)
            pb.set_postfix(eps=f"{max(s.eps[-1]):.3f}", best=f"{best[0]:.3f}", refresh=False)
            ckpt.tick("fp", s)

        fp = solve_jotto(oracle, params.fp_iterations, fp, fp_tick, record_threshold=b.thr)
        ckpt.save("fp", fp.to_arrays())
    ts = fp.t_star
    G_fp = np.stack(fp.member_guesses[: ts + 1], axis=1)
    w_fp = np.full(ts + 1, 1.0 / (ts + 1))
    h_fp = fp.hider(ts)
    st_fp = pair_stats(h_fp, oracle.tree(h_fp, GBR).guesses, G_fp, w_fp)
    b.strategies["fp"] = dict(kind="gbr", members=ts + 1, t_star=ts, iterations=fp.t,
                              seconds_per_iteration=fp.seconds / (fp.t + 1), figures=st_fp.as_dict(),
                              description="Ganzfried's SolveJotto: fictitious play, uniform mixture over the greedy "
                                          "responses of iterations 0..t*, hider s_{h,t*}")
    b.arrays.update({array_key(HIDER, "fp"): h_fp, array_key(WEIGHTS, "fp"): w_fp,
                     array_key(FP_BR_LENS, "fp"): np.array([len(s) for s in fp.br_sets[:ts]], dtype=np.int64),
                     array_key(FP_BR_FLAT, "fp"): (np.concatenate(fp.br_sets[:ts]) if ts else np.zeros(0)).astype(np.int32),
                     array_key(FP_EPSILON, "fp"): np.array([max(e) for e in fp.eps]),
                     array_key(FP_CURVES, "fp"): fp.curves()})
    fp_book: dict = {}
    for t, key, n, move in fp.book:
        if t <= ts:
            _add(fp_book, key, n, t, move)
    b.books["fp"] = fp_book
    b.columns["fp"] = (G_fp, w_fp)
    return fp


def _hedge(b: _JottoBuild) -> HedgeState | None:
    """The Hedge hider against GuesserGBR (solve_hedge), resumable from its checkpoint; None when the
    parameters ask for no Hedge iterations."""
    params, ckpt = b.params, b.ckpt
    if not params.hedge_iterations:
        return None
    saved = ckpt.load("hedge")
    hedge = HedgeState.from_arrays(saved) if saved is not None else None
    with b.bar("hedge", params.hedge_iterations) as pb:
        pb.update(0 if hedge is None else hedge.t)

        def tick(s: HedgeState):
            pb.update(1)
            ckpt.tick("hedge", s)

        hedge = solve_hedge(b.oracle, params.hedge_iterations, params.hedge_eta, hedge, tick, trees=b.trees)
        ckpt.save("hedge", hedge.to_arrays())
    return hedge


def _double_oracle(b: _JottoBuild, fp: FPState, hedge: HedgeState | None = None) -> None:
    """The double oracle over greedy (or rollout) responses, resumable, seeded with fictitious play's trees
    and Hedge's; the hider chosen on the segments between the candidates; records the strategy
    'double_oracle' and its book."""
    oracle, params, ckpt, trees = b.oracle, b.params, b.ckpt, b.trees
    ts = fp.t_star
    saved = ckpt.load("do")
    do = DOState.from_arrays(saved) if saved is not None else None
    with b.bar("double oracle", params.do_iterations) as pb:
        pb.update(0 if do is None else do.iterations)

        def do_tick(s: DOState):
            pb.update(1)
            pb.set_postfix(guarantee=f"{s.guarantee_history[-1]:.3f}", columns=len(s.columns), refresh=False)
            ckpt.tick("do", s)

        # seed the restricted game with fictitious play's greedy trees (no recomputation needed)
        picks = np.unique(np.linspace(0, ts, num=min(ts + 1, 16)).astype(int))
        seeds = [(fp.hider(int(t)), fp.member_guesses[int(t)]) for t in picks]
        if hedge is not None:
            seeds += list(zip(hedge.hiders, hedge.columns))
        do = solve_double_oracle(oracle, params.do_iterations, do, seed_columns=seeds, on_iteration=do_tick,
                                 trees=trees, kinds=tuple(KINDS[k] for k in params.do_oracles))
        ckpt.save("do", do.to_arrays())
    # the anchors, with the restricted game over Hedge's columns (one thread's LP); the one over every column the
    # double oracle found is its final mixture's (do.hider)
    with b.phase("restricted games"):
        G_do, y = do.matrix(), do.hider
        support = np.flatnonzero(do.weights > 0)
        G_s, w_do = G_do[:, support], do.weights[support]
        # anchors: the uniform hider, the restricted game's, fictitious play's and the average of the rounds'
        # restricted-game hiders (y alone is too concentrated: GBR exploits it; its average over the rounds less so)
        rounds_y = do.round_hiders(2 * len(params.do_oracles))
        anchors = [oracle.uniform, y, b.arrays[array_key(HIDER, "fp")]] \
            + ([np.mean(rounds_y, axis=0)] if rounds_y else [])
        hedge_figures = {}
        if hedge is not None:  # Hedge's average hider and its last one (the segment between them is often best)
            anchors += [hedge.average_hider(), hedge.hiders[-1]]
            hedge_figures = dict(hedge_iterations=hedge.t, hedge_eta=hedge.eta, hedge_seconds=hedge.seconds,
                                 hedge_guarantee=restricted_game(np.stack(hedge.columns, axis=1))[1])
        cands = hider_candidates(anchors)
    select_kind = ROLLOUT if "rollout" in params.do_oracles else GBR
    with b.bar("hider selection", len(cands)) as pb:
        _counted_trees(b, pb, cands, select_kind, 4 * trees.ex.workers)
        best, cand_stats = select_hider(oracle, cands, G_s, w_do, trees=trees, kind=select_kind)
    h_do = cands[best]
    st_do = pair_stats(h_do, trees([h_do], GBR)[0].guesses, G_s, w_do) if select_kind != GBR \
        else cand_stats[best]
    selected_against, robust = KIND_NAMES[select_kind], {}
    if robust_selection(params):
        # the hider least exploitable by both oracles, among the GBR choice and the segment from the uniform
        # hider to Hedge's average (the GBR choice alone exploits GBR's greed: at 4-5 letters its epsilon against
        # the rollout oracle was 0.42 / 0.37, the uniform end's 0.22 / 0.22)
        avg = hedge.average_hider()
        short = [h_do] + [(1.0 - a) * oracle.uniform + a * avg for a in ROBUST_ALPHAS]
        with b.bar("robust hider", len(short), robust_hider_costs(len(short))) as pb:   # counts the rollout trees
            gbr = [pair_stats(h, t.guesses, G_s, w_do) for h, t in zip(short, trees(short, GBR))]
            roll_guesses = [t.guesses for t in _counted_trees(b, pb, short, ROLLOUT, trees.ex.workers)]
        roll = [pair_stats(h, g, G_s, w_do) for h, g in zip(short, roll_guesses)]
        pick = select_robust_hider([s.epsilon for s in gbr], [s.epsilon for s in roll])
        h_do, st_do, selected_against = short[pick], gbr[pick], "gbr+rollout"
        robust = stronger_figures(h_do, G_s, w_do, roll_guesses[pick])
    member_hiders = np.stack([do.hiders[c] for c in support])
    member_kinds = np.array([do.kinds[c] for c in support], dtype=np.int64)
    do_kind = KIND_NAMES[int(member_kinds[0])] if len(set(member_kinds.tolist())) == 1 else MIXED
    if do_kind == MIXED:
        b.arrays[array_key(MEMBER_KINDS, "double_oracle")] = member_kinds
    b.strategies["double_oracle"] = dict(
        kind=do_kind, members=int(len(support)), iterations=do.iterations, columns=len(do.columns),
        oracles=list(params.do_oracles), hider_selected_against=selected_against,
        seconds=do.seconds, figures=dict(st_do.as_dict(), **robust), **hedge_figures,
        hider_alpha_figures=[s.as_dict() for s in cand_stats],
        description="double oracle: exact LP of the restricted game over the responses (greedy, or rollouts of "
                    "the greedy oracle) found so far" + (", seeded with the greedy responses to Hedge's hiders"
                                                        if hedge is not None else "")
                    + "; hider chosen on the segments between the uniform, restricted-game, fictitious-play and "
                    "rounds' average restricted-game hiders" + (" and Hedge's average and last" if hedge is not None else "")
                    + " by lowest epsilon" + ("; then the least exploitable by GBR and the rollout oracle together "
                                              "among that one and the segment from the uniform hider to Hedge's average"
                                              if selected_against == "gbr+rollout" else ""))
    b.arrays.update({array_key(HIDER, "double_oracle"): h_do, array_key(WEIGHTS, "double_oracle"): w_do,
                     array_key(MEMBER_HIDERS, "double_oracle"): member_hiders,
                     array_key(GUARANTEE_HISTORY, "double_oracle"): np.array(do.guarantee_history),
                     array_key(DO_CURVES, "double_oracle"): do.curves()})
    members: dict[int, Tree] = {}
    chunk = max(1, 4 * trees.ex.workers)
    with b.bar("double-oracle book", len(support)) as pb:
        for lo in range(0, len(support), chunk):
            part = support[lo:lo + chunk]
            for kind in sorted(set(member_kinds[lo:lo + len(part)].tolist())):
                idx = [m for m in range(lo, lo + len(part)) if member_kinds[m] == kind]
                for m, tree in zip(idx, trees([do.hiders[support[m]] for m in idx], kind)):
                    members[m] = tree
            pb.update(len(part))
            interrupt.stop_if_requested()
    b.books["double_oracle"] = _book_from_trees(b.D, members)
    b.columns["double_oracle"] = (G_s, w_do)


def robust_selection(params: JottoParams) -> bool:
    """The served hider is chosen against GBR and the rollout oracle together (among the GBR choice and the segment
    from the uniform hider to Hedge's average): where the double oracle has no rollout columns and the build computes
    rollout figures or asks for it, after Hedge."""
    return ("rollout" not in params.do_oracles and (params.rollout_figures or params.robust_hider)
            and params.hedge_iterations > 0)


def _counted_trees(b: _JottoBuild, pb, hiders: list[np.ndarray], kind: int, chunk: int) -> list[Tree]:
    """``b.trees(hiders, kind)`` in chunks of ``chunk`` hiders, each chunk's trees counted on the step ``pb`` as they
    come (the same trees, kept by the tree runner for the calls after)."""
    out: list[Tree] = []
    for lo in range(0, len(hiders), max(1, chunk)):
        part = hiders[lo:lo + max(1, chunk)]
        out += b.trees(part, kind)
        pb.update(len(part))
    return out


def _seed_members(b: _JottoBuild, fp: FPState) -> list[tuple[np.ndarray, int]]:
    """The store's guesser members as (oracle input, kind): the double oracle's and 16 of fictitious play's
    (evenly spaced up to t*), the benchmark's and the people's."""
    out = []
    hs = b.arrays[array_key(MEMBER_HIDERS, "double_oracle")]
    kinds = b.arrays.get(array_key(MEMBER_KINDS, "double_oracle"))
    kind = KINDS.get(b.strategies["double_oracle"]["kind"], GBR)
    for c in range(len(hs)):
        out.append((hs[c], int(kinds[c]) if kinds is not None else kind))
    ts = fp.t_star
    out += [(fp.hider(int(t)), GBR) for t in np.unique(np.linspace(0, ts, num=min(ts + 1, 16)).astype(int))]
    for name in ("benchmark", "people"):
        if name in b.strategies:
            out.append((b.arrays[array_key(HIDER, name)], KINDS[b.strategies[name]["kind"]]))
    return out


def _certify(b: _JottoBuild, fp: FPState) -> None:
    """The game's value bracket: the double oracle with exact oracles on both sides (strategy "exact_do",
    every member's whole tree in its book), or the bounded-search bracket around the served pair."""
    if b.params.certify == "served":
        counts = served_bracket_counts(b.params)
        with b.steps.step("value bracket", counts, costs=served_bracket_costs(counts), tasks=1) as pb:
            b.certified = _served_bracket(b, pb)
        return
    seed_trees, source = _seed_trees(b, _seed_members(b, fp))
    res, pricing, cpu = _exact_double_oracle(b, seed_trees, source)
    members = _exact_do_members(res, source)
    b.certified = _exact_do_certificate(b.params, res, pricing, cpu)
    _store_exact_do(b, res, members, cpu)


def _served_strategy(b: _JottoBuild) -> str:
    """The served one of the double oracle and fictitious play: the smaller guarantee."""
    return min(("double_oracle", "fp"), key=lambda k: b.strategies[k]["figures"]["guarantee"])


def served_bracket_counts(params: JottoParams) -> int:
    """The served bracket's counts: the rollout tree, the exact search, each probe of the bounded search."""
    return 2 + params.certify_steps


def robust_hider_costs(counts: int) -> tuple:
    """The robust hider's counts' costs: where the workers compile the rollout tree's kernel first, its first count
    holds most of the step (``ROBUST_COMPILE_COSTS``); else none (its counts even)."""
    if kernels.rollout_compiled():
        return ()
    return (*((n, share) for n, share in ROBUST_COMPILE_COSTS if n < counts), (counts, 1.0))


def served_bracket_costs(counts: int) -> tuple:
    """The served bracket's counts' costs: where its exact search compiles the search kernel first, that count holds
    most of the step (``BRACKET_COMPILE_COSTS``); else none (its counts even)."""
    if search_compiled():
        return ()
    return (*((n, share) for n, share in BRACKET_COMPILE_COSTS if n < counts), (counts, 1.0))


def _served_bracket(b: _JottoBuild, pb) -> dict:
    """[the guesser's exact best response to the served hider (or a proven lower bound by bisection within the
    node budget), the served guarantee]; ``pb`` counts its searches (``served_bracket_counts``)."""
    params = b.params
    name = _served_strategy(b)
    h = b.arrays[array_key(HIDER, name)]
    upper = b.strategies[name]["figures"]["guarantee"]
    t0 = time.process_time()
    roll = b.trees([h], ROLLOUT)[0].guesses
    pb.update(1)
    hi = dot(roll, h) / h.sum()
    solver = ExactSolver(b.oracle.C, b.oracle.L)
    r = solver.solve(h, upper=hi, max_nodes=params.certify_nodes)
    pb.update(1)
    if r is not None:
        lo, exact = r.value, r.value
    else:
        lo, exact = solver.lower_bound(h, None, hi, params.certify_nodes, params.certify_steps,
                                       progress=lambda *_: pb.update(1))
    return dict(lower=float(lo), upper=float(upper), kind=EXACT if exact is not None else BOUNDED,
                method="served",
                lower_kind=("exact response to the hider" if exact is not None else
                            f"bounded search: {params.certify_steps} probes of at most "
                            f"{params.certify_nodes} states"),
                upper_kind="guarantee: the hider's exact best response (every word)",
                hider=name, guesser=name, cpu_seconds=time.process_time() - t0,
                max_nodes=params.certify_nodes)


def _seed_trees(b: _JottoBuild, members: list) -> tuple[list, dict]:
    """The seed members' trees (one call of the tree builder per oracle kind), and the source of every column:
    {guesses as bytes: (hider, oracle kind, tree)}."""
    by_kind: dict[int, list[int]] = {}
    for i, (_, k) in enumerate(members):
        by_kind.setdefault(k, []).append(i)
    seed_trees: list = [None] * len(members)
    for k, idx in by_kind.items():
        for i, t in zip(idx, b.trees([members[i][0] for i in idx], k, record_threshold=0)):
            seed_trees[i] = t
    source: dict[bytes, tuple[np.ndarray, int, Tree]] = {}
    for (h, k), t in zip(members, seed_trees):
        source.setdefault(t.guesses.astype(np.int32).tobytes(), (h, k, t))
    return seed_trees, source


def _exact_double_oracle(b: _JottoBuild, seed_trees: list, source: dict):
    """The double oracle with exact oracles, seeded with the members' trees, the greedy and rollout trees against
    each round's hider as extra columns (recorded in ``source``); (its result, the pricing or None, CPU s)."""
    params, oracle = b.params, b.oracle

    def extra(y):
        out = []
        for k in (GBR, ROLLOUT):
            t = b.trees([y], k, record_threshold=0)[0]
            source.setdefault(t.guesses.astype(np.int32).tobytes(), (y, k, t))
            out.append(t.guesses)
        return out

    served = _served_strategy(b)
    rounds = params.certify_rounds
    costs = EXACT_DO_ROUND_COSTS if rounds >= EXACT_DO_ROUNDS else ()
    # one thread of its lane's CPU count: the search beside it runs in a thread of its own (games.jotto.certify)
    with b.steps.step("exact double oracle", rounds, expected=min(rounds, EXACT_DO_ROUNDS), costs=costs,
                      cores=1) as pb:
        def tick(r):
            pb.update(1)
            pb.set_postfix(lower=f"{r.hider_value:.4f}", upper=f"{r.guarantee:.4f}", refresh=False)
            interrupt.stop_if_requested()

        cpu0 = time.process_time()
        pricing = (TruncatedExactPricing(oracle.C, oracle.L, params.certify_pricing, extra,
                                         params.certify_pricing_nodes, widths=params.certify_pricing_widths)
                   if params.certify_pricing or params.certify_pricing_widths else None)
        res = solve_exact_double_oracle(
            oracle.C, oracle.L, [t.guesses for t in seed_trees], tol=1e-6, max_rounds=params.certify_rounds,
            max_nodes=params.certify_nodes, lower_steps=params.certify_steps,
            extra_columns=extra, hiders=[b.arrays[array_key(HIDER, served)]], on_round=tick,
            lp_hider_too=params.certify_both, pricing=pricing, pricing_gain=params.certify_pricing_gain,
            smoothing=0.0 if pricing else 0.5, threads=min(2, os.cpu_count() or 1))  # 2 threads: the same result, sooner
        cpu = time.process_time() - cpu0
    return res, pricing, cpu


@dataclass
class _ExactDoMembers:
    """The support of the double oracle's guesser mixture: weights, columns, and per member its input hider,
    oracle kind, whether its tree is exact, and its tree."""
    support: np.ndarray
    weights: np.ndarray
    columns: np.ndarray
    hiders: list
    kinds: list
    exact: list
    nodes: dict


def _exact_do_members(res, source: dict) -> _ExactDoMembers:
    support = np.flatnonzero(res.weights > 0)
    member_hiders, member_kinds, member_exact, nodes = [], [], [], {}
    for m, c in enumerate(support):
        if c in res.trees:  # a searched tree: its input hider, GBR against it off the tree (never on it)
            states, moves = res.trees[c]
            member_hiders.append(res.inputs[c])
            member_kinds.append(GBR)
            member_exact.append(0 if c in res.heuristic else 1)
        else:
            h, k, t = source[res.columns[c].tobytes()]
            states, moves = t.node_states, t.node_moves
            member_hiders.append(h)
            member_kinds.append(k)
            member_exact.append(0)
        nodes[m] = Tree(res.columns[c], list(states), list(moves))
    return _ExactDoMembers(support, res.weights[support], np.stack([res.columns[c] for c in support], axis=1),
                           member_hiders, member_kinds, member_exact, nodes)


def _exact_do_certificate(params: JottoParams, res, pricing, cpu: float) -> dict:
    return dict(lower=float(res.hider_value), upper=float(res.guarantee), kind=res.kind,
                method="exact double oracle",
                lower_kind="exact response to the hider" if res.kind == EXACT else
                f"bounded search: {params.certify_steps} probes of at most {params.certify_nodes} states",
                upper_kind="guarantee: the hider's exact best response (every word)",
                hider="exact_do", guesser="exact_do", cpu_seconds=cpu, max_nodes=params.certify_nodes,
                rounds=len(res.rounds), **(dict(priced=res.priced, truncated_searches=pricing.searches,
                                                truncated_states=pricing.nodes) if pricing else {}))


def _store_exact_do(b: _JottoBuild, res, members: _ExactDoMembers, cpu: float) -> None:
    """The strategy "exact_do": its figures, arrays, book (every member's whole tree) and columns."""
    h = res.hider
    st = pair_stats(h, b.trees([h], GBR)[0].guesses, members.columns, members.weights)
    rounds = res.curves()
    curves = np.delete(rounds, 4, axis=1)  # the seconds column out: the stored rows are the same in every build
    b.strategies["exact_do"] = dict(
        kind=MIXED, members=int(len(members.support)), rounds=len(res.rounds), columns=len(res.columns),
        book_threshold=0, seconds=res.seconds, cpu_seconds=cpu, round_seconds=rounds[:, 4].tolist(),
        exact_members=int(sum(members.exact)),
        figures=dict(st.as_dict(), value_lower=float(res.hider_value), value_upper=float(res.guarantee),
                     value_gap=float(res.gap), hider_vs_exact=float(res.hider_value),
                     exact_seconds_per_response=float(np.mean(rounds[:, 4])) if len(rounds) else 0.0,
                     hider_support=float(np.count_nonzero(h > 0))),
        description="double oracle with exact oracles on both sides: the restricted game's LP over the store's "
                    "members, the guesser's exact best responses (optimal decision trees) and the greedy and "
                    "rollout trees against each round's hider; the hider's exact best response is the guarantee; "
                    "dual smoothing (Wentges) towards the best proven hider; every member's whole tree in the book")
    b.arrays.update({array_key(HIDER, "exact_do"): h, array_key(WEIGHTS, "exact_do"): members.weights,
                     array_key(MEMBER_HIDERS, "exact_do"): np.stack(members.hiders),
                     array_key(MEMBER_KINDS, "exact_do"): np.array(members.kinds, dtype=np.int64),
                     array_key(MEMBER_EXACT, "exact_do"): np.array(members.exact, dtype=np.uint8),
                     array_key(CERT_CURVES, "exact_do"): curves})
    b.books["exact_do"] = _book_from_trees(b.D, members.nodes)
    b.columns["exact_do"] = (members.columns, members.weights)


def _people(b: _JottoBuild) -> None:
    """The people's guesser: the fewest expected guesses against a person's secret distribution."""
    oracle, params, trees = b.oracle, b.params, b.trees
    hiders = {name: b.arrays[array_key(HIDER, name)] for name in b.strategies}
    secret = secret_distribution(oracle, params.people_secret, hiders)
    people_kind = KINDS[params.people_oracle]
    lookahead, threshold = params.people_lookahead if people_kind >= ROLLOUT and params.people_lookahead else (0, None)
    people = trees([secret], people_kind, lookahead, threshold)[0]
    st = pair_stats(secret, trees([secret], GBR)[0].guesses, people.guesses[:, None], np.ones(1))
    extra = dict(lookahead_width=lookahead, book_threshold=threshold) if lookahead else {}
    b.single("people", secret, people, dict(
        kind=params.people_oracle, members=1, secret=params.people_secret, rollout_width=ROLLOUT_WIDTH, **extra,
        figures=dict(st.as_dict(), **guesses_figures(people.guesses, secret)),
        first_test_word=b.d.words[people.node_moves[0] if len(people.node_moves) and len(people.node_states[0]) == b.D
                                  else oracle.move(oracle.all_words, secret, people_kind)],
        description=f"the fewest expected guesses against the {params.people_secret} secret distribution: rollouts of "
                    f"the greedy oracle from its {ROLLOUT_WIDTH} best test words at every state"
                    + (f"; at the states of more than {threshold} words (its book) one level further: the "
                       f"rollout guesser's choice and the {lookahead} best-scored words, each scored by rollout-guesser "
                       f"trees from every answer" if lookahead else "")))


def _publish(b: _JottoBuild, root: Path, t_start: float) -> Path:
    """Write every array, book and the manifest; serve the double oracle or fictitious play, whichever
    guarantees fewer guesses."""
    d, params, strategies = b.d, b.params, b.strategies
    served = min(("double_oracle", "fp", "exact_do") if "exact_do" in strategies else ("double_oracle", "fp"),
                 key=lambda s: strategies[s]["figures"]["guarantee"])
    with StoreWriter(root, "jotto", b.variant) as writer:
        for k, a in b.arrays.items():
            writer.put_array(k, a)
        writer.put_array(COMMON, d.common.astype(np.uint8))
        for name, book in b.books.items():
            strategies[name]["book_entries"] = _write_book(writer, name, book)
        manifest = dict(
            game="jotto", variant=b.variant, words=list(d.words), served=served,
            dictionary=dict(sha256=d.sha256, size=b.D, length=d.length, source=d.variant.source, filter=d.variant.filter),
            parameters=recorded_parameters(params), code_version=code_version(), strategies=strategies,
            build_seconds=time.perf_counter() - t_start,
        )
        if b.certified is not None:
            manifest["certified"] = b.certified
        return writer.publish(manifest)


def build_jotto_store(variant: str, params: JottoParams, root: Path, position: int = 0,
                      executor: BuildExecutor | None = None) -> Path:
    """Solve one variant and publish its store; returns the published version directory.

    Response trees (double-oracle rounds, hider selection, books) run on ``executor``; fictitious play
    is sequential (each iteration needs the last)."""
    t_start = time.perf_counter()
    with StoreSteps(variant, jotto_step_shares(variant, params), timed=True) as steps:
        with steps.step("setup", 1, tasks=1):    # the dictionary, its oracle's tables, the executor's copies of them
            b = _JottoBuild(variant, params, root, position, executor, steps)
        with b.bar("fixed guessers", 3) as pb:
            _fixed_guessers(b, pb)
        fp = _fictitious_play(b)
        _double_oracle(b, fp, _hedge(b))
        with b.phase("people's guesser"):
            _people(b)
        if params.certify:
            _certify(b, fp)
        hiders = {name: b.arrays[array_key(HIDER, name)] for name in b.strategies}
        with b.phase("figures"):
            _stronger_figures(b.oracle, params, b.trees, b.strategies, hiders, b.columns)
        with b.phase("publish"):
            path = _publish(b, root, t_start)
    b.ckpt.clear()
    return path


# the steps whose trees run on the executor's workers side by side (many hiders at a call); the double oracle's rounds
# ask for two trees at a time (the restricted game's hider and its midpoint with the uniform one, per oracle kind);
# every other step runs one task: the builder's thread, or one tree at a time while it waits (Hedge's iterations, the
# fixed and people's guessers, the value bracket's rollout tree)
TREES_SIDE_BY_SIDE = {"double oracle": 2, "hider selection": None, "robust hider": None, "double-oracle book": None,
                      "figures": None}


def step_tasks(step: str, workers: int) -> int:
    """The tasks a Jotto build's step runs side by side on an executor of ``workers`` local workers."""
    if step not in TREES_SIDE_BY_SIDE:
        return 1
    most = TREES_SIDE_BY_SIDE[step]
    return max(1, min(workers, most or workers))


def rest_by_tasks(variant: str, params: JottoParams, counted: float, workers: int) -> list[tuple[float, int]]:
    """[(share of the build's CPU seconds left, tasks side by side)] of its steps still to go at ``counted`` of its
    work, consecutive steps of as many tasks merged: each step's CPU its expected wall (``jotto_step_shares``) times
    its tasks (``step_tasks``), the running one's from where its work counted stands."""
    shares = jotto_step_shares(variant, params)
    at = min(1.0, max(0.0, counted)) * sum(shares.values())
    out: list[list] = []
    start = 0.0
    for step, seconds in shares.items():
        rest, start = start + seconds - max(start, at), start + seconds
        if rest <= 0:
            continue
        n = step_tasks(step, workers)
        if out and out[-1][1] == n:
            out[-1][0] += rest * n
        else:
            out.append([rest * n, n])
    total = sum(cpu for cpu, _ in out)
    return [(cpu / total, n) for cpu, n in out] if total > 0 else []


def jotto_steps(params: JottoParams) -> list[str]:
    """The steps a Jotto build with these parameters runs, in order (``build_jotto_store``)."""
    return (["setup", "fixed guessers", "fictitious play"] + (["hedge"] if params.hedge_iterations else [])
            + ["double oracle", "restricted games", "hider selection"] + (["robust hider"] if robust_selection(params) else [])
            + ["double-oracle book", "people's guesser"]
            + {"exact": ["exact double oracle"], "served": ["value bracket"]}.get(params.certify, [])
            + ["figures", "publish"])


def jotto_step_shares(variant: str, params: JottoParams) -> dict[str, float]:
    """{step: expected share} of a Jotto build: each step's measured seconds in the default store of the nearest word
    length that runs it (``builder.step_seconds``), scaled by this build's iterations where the step is a loop of
    them."""
    from games.jotto.dictionary import Variant
    length = Variant.parse(variant).length if variant.startswith("jotto-") else 5
    loops = {"fictitious play": "fp_iterations", "hedge": "hedge_iterations", "double oracle": "do_iterations",
             "exact double oracle": "certify_rounds"}
    out = {}
    for step in jotto_steps(params):
        base, seconds = jotto_step_seconds(length, step)
        field = loops.get(step)
        if field and base.get(field):
            ran = getattr(params, field)
            seconds *= (min(ran, EXACT_DO_ROUNDS) if step == "exact double oracle" else ran) / base[field]
        out[step] = seconds
    return out
