"""How far a Dudo store's build is, read from its work directory while its groups run in worker processes.

The build (``games.dudo.build.solve_game.solve_game``, pipelined) runs in steps: step D trains the groups of D dice in play
and measures those of D - 1 (best responses, bounds, improvement), each group's task on the next free worker; then
the rows, each searched group's search tables and the publish. A group's files say how far it is:
``<stem>.npz.progress`` its training's iterations (written as it trains, ``games.dudo.solvers.training``),
``<stem>.trained.json`` its training done, ``<stem>.json`` the group done; ``search_<a>v<b>.json`` its search tables.
Each task is weighted by its expected wall (the default store: ``builder.dudo_estimate.progress_walls``, measured
builds on a quiet and a loaded machine; other parameters: the solver's cost model, ``games.dudo.cost.group_cost``,
times the group's iterations) and each step by its expected wall scheduled on the workers
(``dudo_estimate.level_seconds``), so that the fraction follows the build's time, not its count of groups.
"""
from __future__ import annotations

import json
from pathlib import Path

from builder.dudo_estimate import (FIRST_REPLY_CPU, STORE_SECONDS, THREAD_SPEEDUP, TRAINED_FIRST, busy_profile,
                                   first_reply_serve_seconds, level_seconds, levels, progress_walls, serve_seconds,
                                   serve_wall_share)
from builder.steps import StoreSteps
from games.dudo.build.params import DudoParams

# a group's measuring (figures, bounds, improvement) against its training, where no measured wall says it
MEASURE_SHARE = 0.3
RUNNING = "running"     # games.dudo.build.solve_game.RUNNING: a group's file while it trains or measures
PROGRESS_SUFFIX = ".npz.progress"   # games.dudo.solvers.training.PROGRESS_SUFFIX of the solver's .npz checkpoint


def group_walls(params: DudoParams, default: bool,
                beside_lanes: bool = False) -> dict[tuple[int, int], tuple[float, float]]:
    """(a, b) -> expected (training, measuring) walls of every group of the store. ``beside_lanes``: built beside
    other lanes that hold a core (``make serve``): a group that trains alone on every core in a build alone (the
    measured builds: 4v5, 5v5) trains on the one the other lanes leave it
    (``games.dudo.build.solve_game.SharedCores``), ``THREAD_SPEEDUP`` times its wall."""
    if default:
        split = progress_walls()[0]
        if not beside_lanes:
            return split
        return {ab: (train * THREAD_SPEEDUP.get(ab, 1.0), rest) for ab, (train, rest) in split.items()}
    from games.dudo.cost import group_cost
    out = {}
    for (a, b), m in params.memories().items():
        train = group_cost(a, b, m).seconds_per_iteration * params.group_iterations(a, b)
        out[(a, b)] = (train, MEASURE_SHARE * train)
    return out


def tables_marker(a: int, b: int) -> str:
    """The work directory's file that says group {a, b}'s search tables are written (``builder.dudo``)."""
    return f"search_{a}v{b}.json"


# the tables of a group searched for an exact round only (1v2 for 2v1: 3 MB of leaves and two root re-solves, 0.13-0.20
# s of wall on the default store's rows), which the measured builds did not make
EXACT_ROUND_TABLE_SECONDS = 0.2


def search_table_walls(params: DudoParams, default: bool) -> dict[tuple[int, int], float]:
    """(a, b) -> expected seconds of the search tables of every searched group (none without ``large_search``)."""
    spec = params.large_search_spec()
    if spec is None:
        return {}
    groups = [ab for ab, m in params.memories().items() if spec.tabled_rounds(*ab) and m is not None]
    tables = progress_walls()[1] if default else {}
    return {ab: tables.get(ab, 1.0 if spec.covers(*ab) else EXACT_ROUND_TABLE_SECONDS) for ab in groups}


class DudoWork(StoreSteps):
    """The progress of one Dudo store's build, read from its work directory (a ``StoreSteps``: the progress file
    and the log ask it as they ask any store's steps)."""

    def __init__(self, params: DudoParams, work: Path, default: bool, pipelined: bool = True, out=None,
                 beside_lanes: bool = False, **kw):
        super().__init__(params.variant, {}, out=out, **kw)
        self.work = Path(work)
        self.walls = group_walls(params, default, beside_lanes)
        self.iterations = {ab: params.group_iterations(*ab) for ab in self.walls}
        order = levels(self.walls, TRAINED_FIRST)
        if pipelined and not params.stop_rel:
            # step k: train level k, measure level k - 1; a last step measures the largest level
            self.plan = [[(ab, "train") for ab in lv] + [(ab, "measure") for ab in prev]
                         for lv, prev in zip(order + [[]], [[]] + order)]
        else:
            self.plan = [[(ab, "all") for ab in lv] for lv in order]
        self.step_walls = self._step_walls(self.walls)
        self.tables = search_table_walls(params, default)
        # the stored first replies of a group's search tables (``FIRST_REPLY_CPU``, measured seconds as its tables')
        self.replies = {ab: FIRST_REPLY_CPU[ab] for ab in self.tables if ab in FIRST_REPLY_CPU} if default else {}
        self.serve = beside_lanes and default     # its work counted read as a make serve build's share of its wall
        if not self.serve:
            self.tables = {ab: w + self.replies.get(ab, 0.0) for ab, w in self.tables.items()}
        self.store = progress_walls()[2] if default else STORE_SECONDS     # the rows and the publish
        rest = self.store + sum(self.tables.values())
        self.total = sum(self.step_walls) + rest
        # beside the lanes the phases' shares change, and the wall expected is a fresh make serve's (the default
        # store's measured ones; other parameters: their walls alone)
        self.expected = self.total
        if beside_lanes:
            self.expected = serve_seconds() if default else sum(self._step_walls(group_walls(params, default))) + rest
        # a make serve build's wall on its first replies: beyond the builds ``SERVE_WALL_SHARES`` reads
        self.reply_walls = {ab: w for ab, w in first_reply_serve_seconds().items() if ab in self.replies} \
            if self.serve else {}
        self.alone_from = self._alone_from()
        self.published = False

    def _alone_from(self) -> float:
        """The work counted where its first step with a group that trains alone (``THREAD_SPEEDUP``: 4v5) begins."""
        done = 0.0
        for step, wall in zip(self.plan, self.step_walls):
            if any(ab in THREAD_SPEEDUP and phase != "measure" for ab, phase in step):
                break
            done += wall
        return done / self.total if self.total else 1.0

    def _step_walls(self, walls: dict) -> list[float]:
        return [level_seconds([self._task_wall(ab, phase, walls) for ab, phase in step]) for step in self.plan]

    def _task_wall(self, ab, phase: str, walls: dict | None = None) -> float:
        train, measure = (walls or self.walls)[ab]
        return {"train": train, "measure": measure, "all": train + measure}[phase]

    def expected_seconds(self) -> float:
        return self.expected

    # ------------------------------------------------------------------ what the files say
    def _group(self, ab) -> tuple[float, bool, bool]:
        """(its training's fraction, trained, done) from the group's files."""
        a, b = ab
        prefix = f"dudo_{a}v{b}_m"
        t, trained, done = 0, False, False
        try:
            names = [p.name[len(prefix):] for p in self.work.glob(prefix + "*")]
        except OSError:
            return 0.0, False, False
        for n in names:
            suffix = n.partition(".")[2]
            if suffix == "json":
                done = True
            elif suffix == "trained.json":
                trained = True
            elif suffix == PROGRESS_SUFFIX[1:]:
                try:
                    t = max(t, int(json.loads((self.work / (prefix + n)).read_text())["t"]))
                except (OSError, ValueError, KeyError, TypeError):
                    pass
        its = max(1, self.iterations.get(ab, 1))
        return (1.0 if trained or done else min(1.0, t / its)), trained or done, done

    def _task_done(self, ab, phase: str) -> float:
        train_f, _, done = self._group(ab)
        if done:
            return 1.0
        if phase == "measure":
            return 0.0
        if phase == "train":
            return train_f
        train, measure = self.walls[ab]
        return train_f * train / (train + measure)

    def fraction(self) -> float:
        """The work counted; the default store's beside the lanes as the share of its wall a make serve build had
        passed then (``builder.dudo_estimate.SERVE_WALL_SHARES``, of builds that stored no first replies), its
        first replies' wall (``reply_walls``) added where their group's tables are done."""
        done = self.work_counted()
        if not self.serve or done >= 1.0:
            return done
        replies = sum(self.reply_walls.values())
        passed = serve_wall_share(done) * (self.expected - replies)
        return (passed + sum(w for ab, w in self.reply_walls.items() if self._tables_done(ab))) / self.expected

    def work_counted(self) -> float:
        """Each step's expected wall times its share done, and the search tables done, over the store's."""
        if self.published:
            return 1.0
        done = 0.0
        for step, wall in zip(self.plan, self.step_walls):
            weights = [self._task_wall(ab, phase) for ab, phase in step]
            total = sum(weights)
            if total:
                done += wall * sum(w * self._task_done(ab, phase) for w, (ab, phase) in zip(weights, step)) / total
        done += sum(w for ab, w in self.tables.items() if self._tables_done(ab))
        return min(1.0, done / self.total)

    def cores_ahead(self, workers: int = 2) -> list[tuple[float, int]]:
        """[(expected seconds, groups side by side)] of the build still to go, in order: each step's unfinished
        tasks on ``workers`` (their walls less what is done, each to the first free worker), then the search tables,
        the rows and the publish, one process at a time. A group alone takes one core beside a build's other lanes
        (``games.dudo.build.solve_game.SharedCores`` counts their marks), so the cores the build asks for fall with
        the groups it runs: what the other lanes get then (``builder.lane_forecast``). The default store beside the
        lanes: its parts that begin before its groups that train alone at their share of a make serve build's wall
        (``serve_parts``)."""
        out: list[tuple[float, int]] = []
        for step in self.plan:
            walls = [self._task_wall(ab, phase) * (1.0 - self._task_done(ab, phase)) for ab, phase in step]
            out += busy_profile([w for w in walls if w > 0], workers)
        rest = self.store + sum(w + (self.replies.get(ab, 0.0) if self.serve else 0.0)
                                for ab, w in self.tables.items() if not self._tables_done(ab))
        out.append((rest, 1))
        merged: list[tuple[float, int]] = []
        for seconds, n in out:
            if merged and merged[-1][1] == n:
                merged[-1] = (merged[-1][0] + seconds, n)
            elif seconds > 0:
                merged.append((seconds, n))
        return self.serve_parts(merged, self.work_counted()) if self.serve else merged

    def serve_parts(self, parts: list[tuple[float, int]], at: float) -> list[tuple[float, int]]:
        """``parts`` from ``at`` of its work counted (expected seconds of the measured builds, groups side by side),
        each that begins before ``alone_from`` at the share of its wall a make serve build passes over its work
        (``SERVE_WALL_SHARES``; in the same seconds): the measured builds, alone on a loaded machine, compiled their first groups' kernels for
        longer (1v2 trained in 44-108 s there, 16-20 s in make serve), so a make serve build's first part of one group
        read from them lasted four times its wall, and the schedule left the nice-19 lanes the core its second group
        took seconds later. Its later parts (its groups alone, its tables) stay the measured builds': read so too,
        the 2-letter and 5-letter Jotto stores' time left was within 0.10 at up to 9 fewer samples of a trace."""
        out = []
        for seconds, n in parts:
            start, at = at, min(1.0, at + seconds / self.total)
            if start < self.alone_from:
                seconds = max(0.0, serve_wall_share(at) - serve_wall_share(start)) * self.total
            if seconds > 0:
                out.append((seconds, n))
        return out

    def _tables_done(self, ab) -> bool:
        return (self.work / tables_marker(*ab)).exists()

    def describe(self) -> str:
        """The groups under way (each holds a file in the work directory's ``running/`` while it works,
        ``games.dudo.build.solve_game.SharedCores``): 'training 5v5 (27/60 iterations); measuring 4v5'."""
        try:
            running = sorted((self.work / RUNNING).iterdir())
        except OSError:
            running = []
        training, measuring = [], []
        for p in running:
            name, _, phase = p.name.partition("-")
            try:
                a, b = (int(x) for x in name.split("v"))
            except ValueError:
                continue
            if phase == "measure":
                measuring.append(name)
                continue
            train_f, trained, _ = self._group((a, b))
            its = self.iterations.get((a, b), 0)
            if trained:     # a group of the level-by-level build measures in the same task
                measuring.append(name)
            else:
                training.append(f"{name} ({round(train_f * its)}/{its} iterations)")
        bits = ([f"training {', '.join(training)}"] if training else []) + (
            [f"measuring {', '.join(measuring)}"] if measuring else [])
        if not bits and self.tables and all(self._group(ab)[2] for ab in self.walls):
            done = sum(1 for ab in self.tables if self._tables_done(ab))
            bits = [f"search tables ({done}/{len(self.tables)} groups)"]
        return "; ".join(bits) or "between groups"

    def poll(self) -> None:
        self.line(self.describe())
