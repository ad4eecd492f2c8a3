"""Solve Dudo bottom-up (fewest dice first) and measure the result.

``solve_game`` trains every dice group {a, b} with ``abstract_cfr.FastSolver``; the continuation value of
a challenge is the game-winning probability of the position it leads to under the strategies
already solved.  Groups with at most ``perfect_recall_total`` dice in play use perfect recall, the
others memory ``m``; or ``m`` is a per-group plan (``infoset.memory_plan``, e.g. of the memories
``budget.choose_memories`` picks) giving each group its own memory.

Statistics per round (opener dice a, other dice b), all in win-probability units:
* ``value``: opener's game-winning probability under the solved strategies (both sides).
* ``br_opener`` / ``br_other``: winning probability of a best responder in that seat against our
  strategy (continuations: the responder keeps best-responding in later rounds).
* ``exploitability`` = (br_opener - value) + (br_other - (1 - value)): the sum of both seats'
  gains (equals NashConv / 2 in +-1 units, OpenSpiel's "exploitability").
* ``br_kind``: "exact-perfect-recall" (responder sees the whole history; <= 4 dice in play),
  "lower bound: best response with memory m'" (``bound.memory_best_response``: the responder
  remembers the last m' >= m claims and its seat and chooses by counterfactual value on the
  m'-window DAG; a legal strategy, so its gain is a lower bound on the exploitability; its
  continuation values are the responder values of the smaller rounds, exact or bounds as labelled
  there; "lower bound: abstraction (...)" when m' = m, the responder restricted to the
  abstraction) or "not measured".  Stores built before these kinds say "abstract-local" for the
  abstraction's bound and "none" for not measured (``bound.kind_of`` reads both).
* ``served``: what a server answers in that round (``served.served_label``): the stored rows only where
  the figure is exact (so it is the served policy's), else the stored rows with endgames re-solved live.
"""
from __future__ import annotations

import functools
import json
import os
import time
from dataclasses import dataclass, field

import numpy as np

from games.dudo.measure.bound import NOT_MEASURED, br_kind, memory_best_response, no_worse_than_ours
from games.dudo.build.cfrbr import CFRBR
from games.dudo.measure.exploit import best_response_value
from games.dudo.solvers.abstract_cfr import FastSolver
from games.dudo.solvers.training import train_to_floor
from games.dudo.solvers.tree_cfr import TreeSolver
from games.dudo.abstraction.dag import Group, make_group, round_reachable
from games.dudo.abstraction.infoset import block_memory, dominates, history_window, memory_json, memory_plan, remembers_more
from games.dudo.measure.lbr import improvement_kind, round_improved_best_response
from games.dudo.cost import improvement_bytes
from games.dudo.rules import MAX_DICE, roll_index
from games.dudo.policy.served import served_label
from games.dudo.build.params import DudoParams
from games.dudo.build.rows import quantised_strategy


def groups_in_order(max_dice: int = MAX_DICE):
    """Dice groups (a <= b) in solving order: by total dice, then a."""
    return [(a, D - a) for D in range(2, 2 * max_dice + 1)
            for a in range(1, max_dice + 1) if a <= D - a <= max_dice]


@dataclass
class DudoSolution:
    """Average strategies of every group plus per-round statistics."""
    m: int | None
    max_dice: int
    perfect_recall_total: int = 0
    groups: dict = field(default_factory=dict)      # (a, b) -> Group
    strategies: dict = field(default_factory=dict)  # (a, b) -> flat strategy array
    W: dict = field(default_factory=dict)           # (opener, other) -> opener's win prob
    stats: dict = field(default_factory=dict)       # (opener, other) -> dict

    def iter_infosets(self):
        """Every information set of every group with its action distribution (store rows)."""
        for key, g in self.groups.items():
            yield from iter_group_infosets(g, self.strategies[key], self.m, self.max_dice,
                                           self.perfect_recall_total)

    def group_key(self, own: int, opp: int):
        return (min(own, opp), max(own, opp))

    def action_distribution(self, own_dice: int, opp_dice: int, roll, history):
        """[(action, prob)] for a player with ``roll`` after the round's claim ``history``
        (claim strengths, oldest first); action -1 is Dudo, otherwise a claim strength."""
        key = self.group_key(own_dice, opp_dice)
        g, st = self.groups[key], self.strategies[key]
        side = 0 if g.nsides == 1 else g.dice.index(own_dice)
        w = history_window(history, g.K, g.m)
        L = int(g.last[w])
        n = int(g.ns[side])
        x = roll_index(roll)
        base = int(g.rbase[side] + g.act_off[w] * n + x)
        na = int(g.act_off[w + 1] - g.act_off[w])
        out = []
        for j in range(1 if L < 0 else 0, na):
            out.append((-1 if j == 0 else L + j, float(st[base + j * n])))
        return out


def iter_group_infosets(g: Group, strat, m: int | None, max_dice: int = MAX_DICE,
                        perfect_recall_total: int = 0, reachable_only=None):
    """Yield (infoset_id, own_dice, opp_dice, roll, window, actions, probs) for every
    information set of a group: ``actions`` are claim strengths with -1 = Dudo, ``probs`` the
    strategy; IDs use ``infoset.infoset_id`` with the group's memory (None = perfect recall).
    ``reachable_only``: optional boolean array [side, window] to skip unreachable nodes."""
    from games.dudo.abstraction.infoset import block_offsets, window_from_index
    from games.dudo.rules import rolls
    for s in range(g.nsides):
        own, opp = g.dice[s], g.dice[g.oth[s]]
        off, _ = block_offsets(m, max_dice, perfect_recall_total)[(own, opp)]
        n = int(g.ns[s])
        rl = rolls(own)
        for w in range(g.NW):
            if reachable_only is not None and not reachable_only[s, w]:
                continue
            L = int(g.last[w])
            a0 = 1 if L < 0 else 0
            na = int(g.act_off[w + 1] - g.act_off[w])
            actions = [-1 if j == 0 else L + j for j in range(a0, na)]
            base = int(g.rbase[s] + g.act_off[w] * n)
            block = strat[base:base + na * n].reshape(na, n)[a0:]
            win = window_from_index(w, g.K, g.m)
            for x in range(n):
                yield off + x * g.NW + w, own, opp, rl[x], win, actions, block[:, x]


def _pairs(d: dict) -> list:
    """A {(a, b): float} dict as a sorted JSON-able list (exact: floats round-trip)."""
    return [[int(a), int(b), float(v)] for (a, b), v in sorted(d.items())]


def _unpairs(rows) -> dict:
    return {(int(a), int(b)): float(v) for a, b, v in rows}


class SharedCores:
    """The threads of one group's solver: ``cores`` shared by the groups training now, each holding a
    file in ``directory`` while it trains, re-counted at every call, so a group left alone (its level's
    other groups done) takes every core.  Files in ``busy`` count too: other work on the machine that
    holds a core (a build's other lane), so that threads do not fight it for the cores (on 2 cores a group
    on 2 threads beside one busy core ran 2-3 times slower than on one).  Threads never change the bits
    (``kernels``), only the time."""

    def __init__(self, directory: str, name: str, cores: int, busy: str | None = None):
        self.path = os.path.join(directory, name)
        self.directory, self.cores, self.busy = directory, int(cores), busy

    def __enter__(self):
        os.makedirs(self.directory, exist_ok=True)
        with open(self.path, "w") as f:
            f.write(str(os.getpid()))
        return self

    def __exit__(self, *exc):
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def __call__(self) -> int:
        if self.cores <= 1:
            return 1
        running = 0
        for d in (self.directory, self.busy):
            try:
                running += len(os.listdir(d)) if d else 0
            except FileNotFoundError:
                pass
        return max(1, self.cores // max(1, running))


def clear_running(checkpoint_dir: str) -> None:
    """Forget the groups a stopped build left marked as training (``SharedCores``' files)."""
    import shutil
    shutil.rmtree(os.path.join(checkpoint_dir, RUNNING), ignore_errors=True)


RUNNING = "running"     # SharedCores' directory in a checkpoint directory


def solve_group(group, m: int | None, W: dict, max_dice: int, iterations, checkpoint_dir: str,
                perfect_recall_total: int = 2, exact_br_total: int = 4, abstract_br: bool = True,
                br_open: dict | None = None, br_other: dict | None = None, progress: bool = False,
                log=None, should_stop=None, br_memory=None, stop_rel: float = 0.0,
                improve_memory=None, improve_games: int = 0, improve_seed: int = 0, cores: int = 1,
                train_memory=None, busy: str | None = None, phase: str = "all") -> dict:
    """Solve one dice group {a, b} (a task: top level and picklable, for any ``map``).

    Trains the group on the continuation values ``W`` of the rounds with fewer dice, writes its
    average strategy to ``checkpoint_dir/dudo_{a}v{b}_m{m}.npy`` and a metadata JSON beside it,
    and returns the metadata: ``path``, ``W`` and ``stats`` of its reachable rounds (opener,
    other), the best-response values ``br_open``/``br_other`` they add (continuations of the
    larger rounds' best responses), the iterations ``t`` and ``seconds``.  If that .npy and a
    JSON with the same inputs exist, they are returned without recomputing; an unfinished
    group resumes from its solver checkpoint (.npz), giving bit-identical results.

    Beyond ``exact_br_total`` dice in play the exploitability is the lower bound of a responder
    with memory ``br_memory(a, b)`` (an int, a function of the group, a {(a, b): m'} dict, or None:
    the group's own m) claims, when ``abstract_br``.

    With ``stop_rel > 0`` the iterations are a cap: the group trains to its floor
    (``training.train_to_floor``: the worst round's exploitability, exact or the bound above,
    measured at every doubling from ``cap >> FLOOR_DOUBLINGS``, less than ``stop_rel`` better over
    a doubling); each round's stats record the curve (``curve_iterations``,
    ``curve_exploitability``, ``curve_seconds``: solver seconds) and ``stop`` ("floor" or "cap");
    the group keeps the measured average strategy of least exploitability (``iterations``; the
    iterations trained in ``iterations_trained`` when more).
    ``group_seconds``: the group's wall time (training, measurements and best responses).
    ``cores``: the cores this machine's groups share (``SharedCores``, with other work marked in ``busy``;
    the result does not depend on them).

    ``train_memory``: a {(a, b): m_fine} dict; a group in it trains against CFR+ responders remembering
    m_fine claims (``cfrbr.CFRBR``) instead of on its abstract game; its rounds' stats record ``train_memory``.

    With ``improve_games`` > 0 each of those rounds also gets the perfect-recall improvement of the
    responder with memory ``improve_memory`` (a {(a, b): m''} dict or an int; default the bound's m'),
    ``lbr.round_improved_best_response`` on the stored strategy: ``improved_exploitability``, its
    ``improved_stderr`` and ``improved_kind``, ``improved_games``, ``improved_left`` (the share of the
    responder's turns where it left the memory-m'' response) and ``improved_seconds``.

    ``phase``: "all" (the above); "train" trains only (no ``stop_rel``: the floor rule measures as it
    trains) and returns the rounds' values ``W`` and the trained rows' ``path``, which need only ``W``;
    "measure" then computes the figures and writes what "all" writes, with the same bits
    (``solve_game(pipelined=True)`` measures a level while the next one trains).
    """
    a, b = int(group[0]), int(group[1])
    plan = _plan_group(a, b, m, W, max_dice, iterations, checkpoint_dir, perfect_recall_total, exact_br_total,
                       abstract_br, br_open, br_other, br_memory, stop_rel, improve_memory, improve_games,
                       improve_seed, train_memory)
    if phase == "train":
        if stop_rel > 0:
            raise ValueError("a group training to its floor measures as it trains: no separate train phase")
        return _train_phase(plan, W, max_dice, exact_br_total, abstract_br, checkpoint_dir, cores, busy, progress,
                            should_stop)
    if phase == "measure" and os.path.exists(plan.stem + ".trained.json"):
        return _measure_phase(plan, W, max_dice, exact_br_total, abstract_br, checkpoint_dir, cores, busy, log)
    if phase not in ("all", "measure"):     # measure with no trained rows left (a finished group of other
        raise ValueError(f"unknown phase {phase!r}")    # continuations): trained and measured again below
    done = _finished(plan)
    if done is not None:
        return done
    # the group holds a core while it trains and measures: a group left alone takes every core
    with SharedCores(os.path.join(checkpoint_dir, RUNNING), f"{a}v{b}", cores, busy) as cores_now:
        t_start = time.perf_counter()
        g = make_group(a, b, plan.mg, W, max_dice)
        trained = _train(plan, g, W, max_dice, exact_br_total, abstract_br, cores_now, progress, should_stop, log)
        return _measure_and_write(plan, g, trained, W, max_dice, exact_br_total, abstract_br, log,
                                  time.perf_counter() - t_start, cores_now=cores_now)


@dataclass
class _GroupPlan:
    """What one group's solve is: its memories, iterations, files and the inputs its results are keyed by."""
    a: int
    b: int
    mg: object
    its: int
    stem: str
    m_resp: object
    m_train: object
    m_imp: object
    stop_rel: float
    br_open: dict
    br_other: dict
    improve_games: int
    improve_seed: int
    inputs: dict

    @property
    def openers(self) -> list:
        D = self.a + self.b
        return [op for op in ([self.a] if self.a == self.b else [self.a, self.b]) if round_reachable(op, D - op, self.max_dice)]

    @property
    def max_dice(self) -> int:
        return self.inputs["max_dice"]

    def train_inputs(self) -> dict:
        return _train_keys(self.inputs)


def _train_keys(inputs: dict) -> dict:
    """The inputs training depends on (not the figures' continuations of the rounds below)."""
    return {k: v for k, v in inputs.items() if k not in ("br_open", "br_other")}


def _json_if_present(path: str, *needed: str):
    """The JSON object in ``path`` if it and every file of ``needed`` exist, else None."""
    if os.path.exists(path) and all(os.path.exists(p) for p in needed):
        with open(path) as f:
            return json.load(f)
    return None


def _save_npy(path: str, arr) -> None:
    """``np.save`` to ``path`` (a name ending in .npy) through a temporary file: never a half-written one."""
    tmp = path[:-len(".npy")] + ".tmp.npy"
    np.save(tmp, arr)
    os.replace(tmp, path)


def _dump_json(path: str, obj) -> None:
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f)
    os.replace(path + ".tmp", path)


def _plan_group(a, b, m, W, max_dice, iterations, checkpoint_dir, perfect_recall_total, exact_br_total, abstract_br,
                br_open, br_other, br_memory, stop_rel, improve_memory, improve_games, improve_seed,
                train_memory) -> _GroupPlan:
    D = a + b
    br_open, br_other = dict(br_open or {}), dict(br_other or {})
    mg = block_memory(a, b, m, perfect_recall_total)
    its = int(iterations(a, b) if callable(iterations) else iterations)
    os.makedirs(checkpoint_dir, exist_ok=True)
    stem = os.path.join(checkpoint_dir, f"dudo_{a}v{b}_m{mg}")
    m_resp = (br_memory(a, b) if callable(br_memory) else br_memory.get((a, b)) if isinstance(br_memory, dict)
              else br_memory)
    if mg is None or m_resp is None or not dominates(6 * D, m_resp, mg):
        m_resp = mg
    inputs = dict(group=[a, b], m=memory_json(mg), max_dice=max_dice, iterations=its,
                  exact_br_total=exact_br_total, abstract_br=bool(abstract_br), W=_pairs(W),
                  br_open=_pairs(br_open), br_other=_pairs(br_other), measured=MEASURED)
    if m_resp != mg and D > exact_br_total and abstract_br:
        inputs["br_memory"] = memory_json(m_resp)
    if stop_rel > 0:
        inputs["stop_rel"] = float(stop_rel)
    m_train = (train_memory or {}).get((a, b))
    if m_train is not None:
        if not remembers_more(6 * D, m_train, mg):
            raise ValueError(f"train memory {m_train} of {a}v{b} must remember more than its memory {mg}")
        inputs["train_memory"] = memory_json(m_train)
    m_imp = None
    if improve_games > 0 and D > exact_br_total and abstract_br and mg is not None:
        m_imp = improve_memory.get((a, b), m_resp) if isinstance(improve_memory, dict) else (improve_memory or m_resp)
        inputs.update(improve_memory=memory_json(m_imp), improve_games=int(improve_games), improve_seed=int(improve_seed))
    return _GroupPlan(a, b, mg, its, stem, m_resp, m_train, m_imp, float(stop_rel), br_open, br_other,
                      int(improve_games), int(improve_seed), inputs)


def _finished(plan: _GroupPlan):
    """The group's results from an earlier run with the same inputs, or None."""
    meta = _json_if_present(plan.stem + ".json", plan.stem + ".npy")
    return _meta_out(meta) if meta is not None and meta.get("inputs") == plan.inputs else None


@dataclass
class _Trained:
    strat: np.ndarray
    t_done: int
    t_trained: int
    train_seconds: float
    train_cpu: float
    curve: list | None = None
    stop: str | None = None
    figs: dict | None = None        # the figures of ``strat`` where the floor rule measured them already


def _figures_fn(plan: _GroupPlan, g, W, max_dice, exact_br_total, abstract_br):
    return functools.partial(_round_figures, g, openers=plan.openers, W=W, br_open=plan.br_open,
                             br_other=plan.br_other, max_dice=max_dice, exact_br_total=exact_br_total,
                             m_resp=plan.m_resp if abstract_br else False)


def _train(plan: _GroupPlan, g, W, max_dice, exact_br_total, abstract_br, cores_now, progress, should_stop,
           log) -> _Trained:
    """Train the group (resuming its solver checkpoint) and return the rows a store holds."""
    a, b, D, stem, its = plan.a, plan.b, plan.a + plan.b, plan.stem, plan.its
    # perfect recall: the public DAG is a tree, vector CFR+ is cheaper than roll-pair values
    if plan.m_train is not None:
        solver = CFRBR(g, make_group(a, b, plan.m_train, W, max_dice, split=a == b), threads=cores_now)
    else:
        solver = FastSolver(g, threads=cores_now) if (plan.mg is not None or D == 2) else TreeSolver(g)
    ckpt = stem + ".npz"
    if os.path.exists(ckpt):
        solver.load(ckpt)
    figures = _figures_fn(plan, g, W, max_dice, exact_br_total, abstract_br)
    curve, stop, best = None, None, {}
    best_path = stem + ".best.npy"
    measured = D <= exact_br_total or bool(abstract_br)
    if plan.stop_rel > 0:
        curve_path = stem + ".curve.json"
        curve = _json_if_present(curve_path, ckpt)
        if curve and measured:      # the best measured so far is in best_path
            best.update(t=min(curve, key=lambda p: p[1])[0], e=min(p[1] for p in curve))

        def on_point(c):
            _dump_json(curve_path, c)

        def measure(st):
            st = quantised_strategy(g, np.asarray(st, dtype=np.float64), in_place=True)   # as the store holds it
            figs = figures(st)
            e = max((r[3] for r in figs.values() if r[3] is not None), default=0.0)
            if measured and (not best or e < best["e"]):     # keep the least exploitable measured strategy
                _save_npy(best_path, st)
                best.update(t=solver.t, e=e, figs=figs)
            return e

        curve, stop = train_to_floor(solver, measure, its, max(1, its >> FLOOR_DOUBLINGS), plan.stop_rel,
                                     curve, on_point, ckpt, progress, f"dudo {a}v{b}", should_stop, log)
    else:
        solver.solve(max(0, its - solver.t), checkpoint=ckpt, every=max(1, its // 10),
                     progress=progress, desc=f"dudo {a}v{b}", should_stop=should_stop)
    t_trained, train_seconds, train_cpu = solver.t, solver.seconds, solver.cpu_seconds
    # with the floor rule the stored strategy is the measured one of least exploitability (with an
    # imperfect-recall abstraction it can grow with the iterations); else the last
    t_done = min(curve, key=lambda p: p[1])[0] if (curve and measured) else t_trained
    # what the store holds and a server reads: the quantised rows (``rows.quantised_strategy``); every
    # figure, the continuation values of the larger rounds and the saved strategy are of these
    strat = quantised_strategy(g, solver.average_strategy() if t_done == t_trained else np.load(best_path),
                               in_place=True)
    del solver          # free regrets and node values before evaluating and best responses
    figs = best["figs"] if (best.get("t") == t_done and "figs" in best) else None
    return _Trained(strat, t_done, t_trained, train_seconds, train_cpu, curve, stop, figs)


def _measure_and_write(plan: _GroupPlan, g, trained: _Trained, W, max_dice, exact_br_total, abstract_br, log,
                       seconds_before: float, values: dict | None = None, cores_now=None) -> dict:
    """The group's figures (best responses, bounds, improvement) of the trained rows; writes the rows and the
    metadata (the solver's files removed) and returns the results. ``seconds_before``: the group's wall until
    now (its training); ``values``: the rounds' values where the train phase computed them already;
    ``cores_now``: the cores free for it (``SharedCores``), asked before each round's improvement."""
    a, b, D, stem, strat = plan.a, plan.b, plan.a + plan.b, plan.stem, trained.strat
    t_start = time.perf_counter() - seconds_before
    improved, bounds = {}, {}
    if plan.m_imp is not None:
        # the improvement's tables hold its responder's own best response (pi): where that responder is the
        # bound's, its two seats' values are the bound's, the same bits (the same pass and sums), not computed twice
        share = trained.figs is None and abstract_br and memory_json(plan.m_imp) == memory_json(plan.m_resp)
        for op in plan.openers:
            t2 = time.perf_counter()
            est = round_improved_best_response(g, strat, op, plan.m_imp, W, plan.br_open, plan.br_other, max_dice,
                                               plan.improve_games,
                                               plan.improve_seed * 1_000_000 + 1000 * op + 10 * (D - op),
                                               threads=_seat_threads(a, b, plan.m_imp, cores_now))
            improved[(op, D - op)] = dict(improved_exploitability=est.exploitability, improved_stderr=est.stderr,
                                          improved_kind=improvement_kind(plan.m_imp), improved_games=est.games,
                                          improved_left=est.changed, improved_seconds=time.perf_counter() - t2)
            if share:
                bounds[op] = est.seat_bases
    t1 = time.perf_counter()
    if trained.figs is not None:
        figs = trained.figs
    else:
        figs = _figures_fn(plan, g, W, max_dice, exact_br_total, abstract_br)(strat, values=values, bounds=bounds)
    br_seconds = time.perf_counter() - t1
    Wg = {rnd: f[0] for rnd, f in figs.items()}
    stats, new_open, new_other = {}, {}, {}
    curve, t_done, t_trained, mg = trained.curve, trained.t_done, trained.t_trained, plan.mg
    for (op, oth), (value, e_o, e_n, expl, kind) in figs.items():
        st = {"value": value, "memory": "perfect" if mg is None else str(mg),
              "iterations": t_done, "train_seconds": trained.train_seconds, "train_cpu_seconds": trained.train_cpu}
        if t_trained != t_done:
            st["iterations_trained"] = t_trained
        if plan.m_train is not None:
            st["train_memory"] = str(plan.m_train)
        st["served"] = served_label(NOT_MEASURED if kind is None else kind)   # re-solved live or not
        if kind is None:
            st.update(br_kind=NOT_MEASURED)
        else:
            new_open[(op, oth)] = e_o
            new_other[(op, oth)] = e_n
            st.update(br_opener=e_o, br_other=e_n, exploitability=expl, br_kind=kind,
                      br_seconds=br_seconds / len(figs))
            st.update(improved.get((op, oth), {}))
        st["group_seconds"] = time.perf_counter() - t_start    # training, measurements, best responses
        if curve is not None:
            st.update(stop=trained.stop, curve_iterations=[int(p[0]) for p in curve],
                      curve_exploitability=[float(p[1]) for p in curve],
                      curve_seconds=[float(p[2]) for p in curve])
        stats[(op, oth)] = st
        if log:
            log(f"round {op}v{oth}: " + ", ".join(
                f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in st.items()
                if not k.startswith("curve")))
    npy, meta_path = stem + ".npy", stem + ".json"
    _save_npy(npy, strat)
    meta = dict(inputs=plan.inputs, path=npy, W=_pairs(Wg),
                stats=[[op, oth, st] for (op, oth), st in sorted(stats.items())],
                br_open=_pairs(new_open), br_other=_pairs(new_other), t=t_done,
                train_seconds=trained.train_seconds, seconds=time.perf_counter() - t_start)
    _dump_json(meta_path, meta)
    for p in (stem + ".npz", stem + ".curve.json", stem + ".best.npy", stem + ".trained.npy", stem + ".trained.json"):
        if os.path.exists(p):
            os.unlink(p)
    return _meta_out(meta)


# both seats' improvements at once only where their tables together stay within this (the default profile's 5v5:
# 2 x 0.87 GB); a group whose level left it alone measures on the cores its training had
SEAT_THREADS_BYTES = 4 << 30


def _seat_threads(a: int, b: int, m_imp, cores_now) -> int:
    """Threads for a round's improvement: 2 (one a seat) when the cores are free and the tables fit."""
    if cores_now is None or cores_now() < 2 or not isinstance(m_imp, int):
        return 1
    return 2 if 2 * improvement_bytes(a, b, m_imp) <= SEAT_THREADS_BYTES else 1


def _train_phase(plan: _GroupPlan, W, max_dice, exact_br_total, abstract_br, checkpoint_dir, cores, busy, progress,
                 should_stop) -> dict:
    """solve_group's "train" phase: the trained rows in ``<stem>.trained.npy`` and their rounds' values, training
    and timings in ``<stem>.trained.json`` (reused when their inputs match, as the finished group's are)."""
    a, b = plan.a, plan.b
    keyed = plan.train_inputs()
    npy = plan.stem + ".npy"
    meta = _json_if_present(plan.stem + ".json", npy)
    if meta is not None and _train_keys(meta.get("inputs", {})) == keyed:   # finished: the measure phase reuses it
        return dict(W=_unpairs(meta["W"]), path=npy)
    tjson, tnpy = plan.stem + ".trained.json", plan.stem + ".trained.npy"
    tm = _json_if_present(tjson, tnpy)
    if tm is not None and tm.get("inputs") == keyed:
        return dict(W=_unpairs(tm["W"]), path=tnpy)
    with SharedCores(os.path.join(checkpoint_dir, RUNNING), f"{a}v{b}", cores, busy) as cores_now:
        t_start = time.perf_counter()
        g = make_group(a, b, plan.mg, W, max_dice)
        trained = _train(plan, g, W, max_dice, exact_br_total, abstract_br, cores_now, progress, should_stop, None)
        values = _round_values(g, trained.strat, plan.openers)
        seconds = time.perf_counter() - t_start
    _save_npy(tnpy, trained.strat)
    tm = dict(inputs=keyed, W=_pairs(values), t_done=trained.t_done, t_trained=trained.t_trained,
              train_seconds=trained.train_seconds, train_cpu=trained.train_cpu, seconds=seconds)
    _dump_json(tjson, tm)
    return dict(W=values, path=tnpy)


def _measure_phase(plan: _GroupPlan, W, max_dice, exact_br_total, abstract_br, checkpoint_dir, cores, busy,
                   log) -> dict:
    """solve_group's "measure" phase: the figures of the rows the train phase left, written as "all" writes them."""
    done = _finished(plan)
    if done is not None:
        return done
    a, b = plan.a, plan.b
    tjson, tnpy = plan.stem + ".trained.json", plan.stem + ".trained.npy"
    with open(tjson) as f:
        tm = json.load(f)
    if tm.get("inputs") != plan.train_inputs():
        raise RuntimeError(f"dudo {a}v{b}: the trained rows in {tnpy} are of other inputs; train it first")
    strat = np.load(tnpy)
    trained = _Trained(strat, int(tm["t_done"]), int(tm["t_trained"]), float(tm["train_seconds"]),
                       float(tm["train_cpu"]))
    with SharedCores(os.path.join(checkpoint_dir, RUNNING), f"{a}v{b}-measure", cores, busy) as cores_now:
        g = make_group(a, b, plan.mg, W, max_dice)
        return _measure_and_write(plan, g, trained, W, max_dice, exact_br_total, abstract_br, log,
                                  float(tm["seconds"]), values=_unpairs(tm["W"]), cores_now=cores_now)


# the figures are of the stored (quantised) rows; results of a work directory written before were of the
# solver's floats and are recomputed
MEASURED = "quantised rows"

FLOOR_DOUBLINGS = 4    # train_to_floor measures from cap / 16 on: at most 5 measurements a group


def _round_values(g: Group, strat, openers) -> dict:
    """{(opener, other): the opener's winning probability} of the group's rounds under ``strat`` (both sides)."""
    D = g.dice[0] + g.dice[-1]
    vals = FastSolver(g, train=False).root_values(strat)
    return {(op, D - op): 0.5 * (1.0 + vals[0 if g.nsides == 1 else g.dice.index(op)]) for op in openers}


def _round_figures(g: Group, strat, openers, W, br_open, br_other, max_dice, exact_br_total,
                   m_resp, values: dict | None = None, bounds: dict | None = None) -> dict:
    """{(opener, other): (value, BR as opener, BR as other, exploitability, br_kind)} of the group's
    rounds: exact best response up to ``exact_br_total`` dice in play, else the responder-memory
    bound with memory ``m_resp`` (``False``: none; then the BR figures are None). ``values``: the rounds'
    values (``_round_values``) where known; ``bounds``: {opener: the bound's two seat values before the max with
    ours} where the improvement computed them (``lbr.RoundEstimate.seat_bases``)."""
    D = g.dice[0] + g.dice[-1]
    values = values if values is not None else _round_values(g, strat, openers)
    out = {}
    for op in openers:
        value = values[(op, D - op)]
        if D <= exact_br_total:
            e_o = best_response_value(g, strat, op, True, br_open, br_other)
            e_n = best_response_value(g, strat, op, False, br_open, br_other)
            kind = "exact-perfect-recall"
        elif m_resp is not False:
            if bounds and op in bounds:
                e_o, e_n = no_worse_than_ours(*bounds[op], value)
            else:
                e_o, e_n = memory_best_response(g, strat, op, m_resp, W, br_open, br_other, max_dice, value)
            kind = br_kind(m_resp, g.m)
        else:
            out[(op, D - op)] = (value, None, None, None, None)
            continue
        out[(op, D - op)] = (value, e_o, e_n, (e_o - value) + (e_n - (1 - value)), kind)
    return out


def _meta_out(meta: dict) -> dict:
    return dict(path=meta["path"], W=_unpairs(meta["W"]), br_open=_unpairs(meta["br_open"]),
                br_other=_unpairs(meta["br_other"]),
                stats={(int(op), int(oth)): st for op, oth, st in meta["stats"]},
                t=meta["t"], train_seconds=meta["train_seconds"], seconds=meta["seconds"])


def started_first(level: list, train_memory=None) -> list:
    """The order a level's groups are handed to ``map``: those training against CFR+ responders (``train_memory``)
    first, the rest in the level's order. A group's result depends on the smaller levels alone, so the order
    changes only the schedule: on 2 workers the default profile's 6-dice level ran 1v5 and 2v4 first and 3v3
    (CFR-BR, the longest) after 2v4, 31 + 94 s of wall; 3v3 first runs beside 1v5 and then 2v4 (94 s)."""
    tm = train_memory or {}
    return [g for g in level if g in tm] + [g for g in level if g not in tm]


def solve_game(max_dice: int = MAX_DICE, m=3, iterations=1000,
               perfect_recall_total: int = 2, exact_br_total: int = 4, progress: bool = True,
               checkpoint_dir: str | None = None, log=print, abstract_br: bool = True,
               max_total: int | None = None, map_fn=map, should_stop=None, br_memory=None,
               stop_rel: float = 0.0, improve_memory=None, improve_games: int = 0, improve_seed: int = 0,
               cores: int = 1, train_memory=None, busy: str | None = None, pipelined: bool = False):
    """Solve every group bottom-up (up to ``max_total`` dice in play); ``iterations`` is an int
    or a function (a, b) -> int; ``m`` one memory (int, None = perfect recall) or a per-group plan
    (a {(a, b): m} dict or ``infoset.memory_plan`` tuple).

    The groups of one total of dice are independent: they run as ``map_fn(solve_group_task,
    groups)`` (any map, e.g. an executor's; the groups training against CFR+ responders first,
    ``started_first``; results are consumed in the level's order, so the result does not depend on
    the parallelism or that order).  Strategies are written to ``checkpoint_dir`` (a
    temporary directory if None) and loaded memory-mapped; finished groups are reused on a
    rerun with the same parameters.  ``cores``: the cores of the machine running ``map_fn``'s
    tasks, shared by the groups training at once and the work marked in ``busy`` (``SharedCores``; 1 where
    the tasks run elsewhere).

    ``pipelined`` (not with ``stop_rel``): a level's figures (best responses, bounds, improvement: the
    continuations of the next level's figures) are computed while the next level trains (which needs only
    the rounds' values): each ``map_fn`` call runs the train phase of level D and the measure phase of level
    D - 1 (``solve_group``'s ``phase``), so the cores a lone group's training leaves idle measure the level
    below. The same results, bit for bit.
    """
    import tempfile
    if isinstance(m, dict):
        m = memory_plan(m)
    sol = DudoSolution(m, max_dice, perfect_recall_total)
    br_open, br_other = {}, {}
    cdir = checkpoint_dir or tempfile.mkdtemp(prefix="dudo_solve_")
    clear_running(cdir)
    order = groups_in_order(max_dice)
    levels = [[ab for ab in order if sum(ab) == D] for D in sorted({a + b for a, b in order})
              if max_total is None or D <= max_total]
    common = dict(m=m, max_dice=max_dice, iterations=iterations, checkpoint_dir=cdir,
                  perfect_recall_total=perfect_recall_total, exact_br_total=exact_br_total, abstract_br=abstract_br,
                  progress=progress, log=log, should_stop=should_stop, br_memory=br_memory, stop_rel=stop_rel,
                  improve_memory=improve_memory, improve_games=improve_games, improve_seed=improve_seed,
                  cores=cores, train_memory=train_memory, busy=busy)

    def consume(level, done):
        for (a, b) in level:        # consumed in the level's order whatever order they ran in
            res = done[(a, b)]
            mg = block_memory(a, b, m, perfect_recall_total)
            sol.groups[(a, b)] = make_group(a, b, mg, W_of[(a, b)], max_dice)
            sol.strategies[(a, b)] = np.load(res["path"], mmap_mode="r")
            sol.W.update(res["W"])
            br_open.update(res["br_open"])
            br_other.update(res["br_other"])
            sol.stats.update(res["stats"])

    W_of = {}           # the continuation values each group trained with
    if not pipelined or stop_rel > 0:
        for level in levels:
            for ab in level:
                W_of[ab] = dict(sol.W)
            fn = functools.partial(solve_group, W=dict(sol.W), br_open=dict(br_open), br_other=dict(br_other),
                                   **common)
            run = started_first(level, train_memory)
            consume(level, dict(zip(run, map_fn(fn, run))))
    else:
        measuring = []      # the level trained in the previous step, measured in this one
        for level in levels + [[]]:
            train = started_first(level, train_memory)
            tasks = [("train", ab, dict(sol.W), {}, {}) for ab in train]
            tasks += [("measure", ab, W_of[ab], dict(br_open), dict(br_other)) for ab in measuring]
            for ab in train:
                W_of[ab] = dict(sol.W)
            results = list(map_fn(functools.partial(_group_phase, **common), tasks))
            for (phase, ab, *_), res in zip(tasks, results):
                if phase == "train":
                    sol.W.update(res["W"])      # the next level trains on these; the figures come next step
            consume(measuring, {ab: res for (phase, ab, *_), res in zip(tasks, results) if phase == "measure"})
            measuring = level
    if checkpoint_dir is None:      # the memory maps stay valid after the files are removed
        import shutil
        shutil.rmtree(cdir, ignore_errors=True)
    return sol


def _group_phase(task, **common) -> dict:
    """One task of a pipelined ``solve_game`` step: (phase, group, W, br_open, br_other) -> ``solve_group``."""
    phase, ab, W, br_open, br_other = task
    return solve_group(ab, W=W, br_open=br_open, br_other=br_other, phase=phase, **common)


def solve_params(params: DudoParams, progress: bool = True, checkpoint_dir: str | None = None, map_fn=map,
                 should_stop=None, cores: int = 1, busy: str | None = None, pipelined: bool = True,
                 max_total: int | None = None) -> DudoSolution:
    """``solve_game`` with a store's parameters (its per-total iteration schedule and per-group memory;
    with ``stop_rel`` the iterations are caps and each group trains to its floor; beyond
    ``exact_br_total`` dice in play the bound's responder memory per group, ``bound_memories``); pipelined
    (a level measured while the next trains) where no group trains to its floor. ``max_total``: only the groups of
    at most that many dice in play (the same groups, bit for bit, as the whole store's)."""
    return solve_game(max_dice=params.max_dice, m=params.memories(), iterations=params.group_iterations,
                      perfect_recall_total=params.perfect_recall_total, exact_br_total=params.exact_br_total,
                      progress=progress, checkpoint_dir=checkpoint_dir, log=None, map_fn=map_fn,
                      should_stop=should_stop, stop_rel=params.stop_rel, br_memory=params.bound_memories(),
                      improve_memory=params.improvement_memories(), improve_games=params.improve_games,
                      improve_seed=params.improve_seed, cores=cores, train_memory=params.train_memories(),
                      busy=busy, pipelined=pipelined, max_total=max_total)
