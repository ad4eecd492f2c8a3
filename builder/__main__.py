"""gamestrategy-build: solve games and publish their stores.

  python -m builder --profile default|full [--missing-only] [--variant NAME ...] [--root DIR]
                    [--executor process|dask|serial] [--workers N] [--scheduler tcp://HOST:PORT] [--fresh]
                    [--lanes 1|2]

Parallel work runs on the executor (``builder.executor``): a local process pool by default, Dask
(``--scheduler`` or, with ``--executor dask`` alone, a LocalCluster of ``--workers`` processes).
An interrupted build (Ctrl-C, SIGTERM, SIGKILL, a lost machine) resumes when rerun with the same
arguments: stores it already published are kept (a journal in ``<root>/.work``), the store it was
building resumes from its checkpoints, and the result is the same (``content_hash``) as an
uninterrupted build's. ``--fresh`` ignores the journal.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import sys
import threading
import time
from dataclasses import asdict, is_dataclass
from pathlib import Path

# one BLAS thread in every process of a build (set before numpy loads): results must not depend on it
for _k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_k, "1")
# numba's OpenMP threads sleep at barriers instead of spinning: beside other work (make serve builds at nice 19
# beside the server) a spinning thread holds the core its partner needs (2v2 memory 3, 2 threads at load 14:
# 6.8 CPU s spinning, 0.13 passive)
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from builder import interrupt  # noqa: E402
from builder.profiles import PROFILES  # noqa: E402
from games.jotto.dictionary import Variant, VariantError, load_dictionary, register_list_file  # noqa: E402
from builder.executor import KINDS  # noqa: E402
from games.storage import Store, StoreError, all_current_stores, code_version, stores_root  # noqa: E402


class Journal:
    """Which stores of one build (same plan: variants and parameters) are already published."""

    def __init__(self, root: Path, plan: dict, fresh: bool):
        body = json.dumps({v: [type(p).__name__, asdict(p) if is_dataclass(p) else repr(p)]
                           for v, p in sorted(plan.items())}, sort_keys=True, default=str)
        self.path = Path(root) / ".work" / f"build-{hashlib.sha256(body.encode()).hexdigest()[:12]}.json"
        self.done: dict[str, str] = {}
        if self.path.is_file() and not fresh:
            self.done = json.loads(self.path.read_text())

    def finished(self, root: Path, variant: str) -> Path | None:
        """The store this build already published for ``variant``, if it is still the served one."""
        version = self.done.get(variant)
        if version is None:
            return None
        path = all_current_stores(root).get(variant)
        return path if path is not None and path.name == version else None

    def record(self, variant: str, path: Path) -> None:
        self.done[variant] = path.name
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.done, indent=1, sort_keys=True))
        os.replace(tmp, self.path)

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


class PlanError(Exception):
    """A command line that names no buildable plan; the message is the one line the CLI prints."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="gamestrategy-build", description=__doc__.splitlines()[0])
    ap.add_argument("--profile", choices=sorted(PROFILES), default="default")
    ap.add_argument("--variant", action="append", default=[], help="only these variants (repeatable)")
    ap.add_argument("--missing-only", action="store_true", help="skip variants that already have a store")
    ap.add_argument("--list", action="append", default=[], metavar="NAME=PATH",
                    help="register a word-list file as source file.NAME (repeatable)")
    ap.add_argument("--root", type=Path, default=stores_root())
    ap.add_argument("--executor", choices=KINDS, default="process",
                    help="where parallel work runs (default: a local process pool)")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: every core)")
    ap.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="a running Dask scheduler (implies --executor dask)")
    ap.add_argument("--fresh", action="store_true", help="rebuild everything, even after an interrupted build")
    ap.add_argument("--lanes", type=int, choices=(1, 2, 3), default=1,
                    help="2: build the largest store beside the others, each lane on its own executor; 3: the "
                         "second largest in a lane of its own too")
    return ap.parse_args(argv)


def make_plan(args: argparse.Namespace) -> dict:
    """{variant: parameters} to build: the profile, narrowed to --variant (a Jotto variant outside the
    profile gets the default profile's parameters), without the present stores under --missing-only."""
    if args.workers is not None and args.workers < 1:
        raise PlanError(f"--workers {args.workers}: must be at least 1")
    for item in args.list:
        name, sep, path = item.partition("=")
        try:
            if not sep:
                raise VariantError(f"--list {item!r}: expected NAME=PATH")
            register_list_file(name, path)
        except VariantError as e:
            raise PlanError(str(e)) from None
    plan = dict(PROFILES[args.profile])
    for v in args.variant:
        if v not in plan and not v.startswith("jotto-"):
            raise PlanError(f"unknown store {v!r} (known: {', '.join(sorted(PROFILES['full']))})")
        if v not in plan:
            try:
                Variant.parse(v)
                load_dictionary(v)
            except VariantError as e:
                raise PlanError(str(e)) from None
            plan[v] = PROFILES["default"].get(v) or next(iter(PROFILES["default"].values()))
    if args.variant:
        plan = {v: p for v, p in plan.items() if v in args.variant}
    if args.missing_only:
        have = all_current_stores(args.root)
        plan = {v: p for v, p in plan.items() if v not in have}
    from builder.progress import smallest_first
    return smallest_first(plan, args.root)


def build_store(variant: str, params, root: Path, executor, busy: str | None = None,
                beside_lanes: bool = False) -> Path:
    """Build and publish one store with its game's build function; returns the published version.
    ``busy``: a directory whose files mark other work holding a core (a Dudo group then takes fewer threads);
    ``beside_lanes``: other lanes will hold them while it builds."""
    from builder.dudo import build_dudo_store
    from builder.guesswho import GuessWhoParams, build_guesswho_store
    from builder.hangman import HangmanParams, build_hangman_store
    from builder.jotto import build_jotto_store
    from games.dudo.build.params import DudoParams

    if isinstance(params, DudoParams):
        return build_dudo_store(params, root, map_fn=executor.map, cores=executor.local_cores, busy=busy,
                                executor=executor, beside_lanes=beside_lanes)
    if isinstance(params, GuessWhoParams):
        return build_guesswho_store(params, root, executor=executor)
    if isinstance(params, HangmanParams):
        return build_hangman_store(params, root, executor=executor)
    return build_jotto_store(variant, params, root, executor=executor)


def lanes_of(plan: dict, lanes: int) -> list[list[str]]:
    """The plan's variants as ``lanes`` sequences built side by side: with 2, the last (largest expected, the
    plan being smallest first) gets a lane of its own and the others share the first, in order; with 3 the
    second largest gets one too."""
    order = list(plan)
    k = min(lanes, len(order))
    if k <= 1:
        return [order]
    return [order[:len(order) - k + 1]] + [[v] for v in order[len(order) - k + 1:]]


def run_plan(plan: dict, args: argparse.Namespace) -> int:
    """Build every store of the plan on the executor, journalled so that a rerun resumes; print the summary.

    ``args.lanes`` 2: the largest store is built beside the others, on an executor of its own, so that the
    build's total is not the sum of its stores where they leave cores idle (the Jotto stores' fictitious play,
    double oracles and certification run on one core each); 3: the second largest in a third lane."""
    from games.dudo.solvers.training import TrainingStopped
    from builder.executor import ExecutorError
    from builder.summary import format_summary

    journal = Journal(args.root, plan, args.fresh)
    t_build = time.perf_counter()
    interrupt.use_stop_file(args.root / ".work" / f"stop-{os.getpid()}")  # before workers start
    lanes = lanes_of(plan, getattr(args, "lanes", 1))
    try:
        executors = open_executors(args, len(lanes))
    except ExecutorError as e:
        print(f"gamestrategy-build: {e}", file=sys.stderr)
        return 2
    build = LaneBuild(plan, args, journal, lanes)
    try:
        build.run(executors)
    except TrainingStopped as e:  # a worker stopped at an iteration boundary after a checkpoint
        close_executors(executors, kill=True)
        raise KeyboardInterrupt(str(e)) from None
    except BaseException:
        close_executors(executors, kill=True)  # do not wait for running tasks: they resume from their checkpoints
        raise
    else:
        close_executors(executors)
    finally:
        interrupt.clear_stop_file()
    journal.clear()
    print(format_summary(build.results_in_plan_order(), executors[0].describe(), time.perf_counter() - t_build))
    return 0


def open_executors(args: argparse.Namespace, n: int) -> list:
    """One executor a lane, each with its own share directory; ExecutorError (the ones opened closed) if one
    cannot start."""
    from builder.executor import ExecutorError, make_executor

    executors = []
    try:
        for k in range(n):
            share = args.root / ".work" / ("shared" if k == 0 else f"shared-{k}")
            executors.append(make_executor(args.executor, args.workers, args.scheduler, share_dir=str(share)))
    except ExecutorError:
        close_executors(executors)
        raise
    return executors


def close_executors(executors: list, kill: bool = False) -> None:
    for ex in executors:
        ex.close(kill=kill)


class LaneBuild:
    """The plan's lanes built side by side, one thread a lane: the first lane on the calling thread, the others
    on threads of their own that start after the first lane's first store.

    While a lane other than the last (the largest store's, Dudo's) builds, it holds a file in ``busy``: the
    last lane's Dudo groups count it as a core taken. On a root with no store yet the side lanes start after the
    first lane's first store: that store is the server's first answer, and beside its numba compile (and the
    server's) the Dudo lane's first groups made it 10-20 s later; then (at once where a store is served
    already) every lane but the last goes down to nice 19, so that the last lane's store (Dudo: a chain of
    groups, each level waiting for the one below) keeps the cores and the others fill what it leaves idle."""

    def __init__(self, plan: dict, args: argparse.Namespace, journal: Journal, lanes: list[list[str]]):
        from builder.progress import ProgressReporter
        from games.dudo.solvers.training import TrainingStopped

        self.plan, self.args, self.journal, self.lanes = plan, args, journal, lanes
        self.results: list = []
        self.lock = threading.Lock()
        self.progress = ProgressReporter(args.root, plan, stop_types=(KeyboardInterrupt, TrainingStopped), lanes=lanes)
        self.failed: list[BaseException] = []
        self.busy = args.root / ".work" / "busy"
        shutil.rmtree(self.busy, ignore_errors=True)
        self.first_store = threading.Event()
        if all_current_stores(args.root):
            self.first_store.set()

    def run(self, executors: list) -> None:
        """Every lane to its end; the first failure of a side lane raised here."""
        from tqdm import tqdm

        from builder.steps import on_terminal

        with self.progress:
            bar = tqdm(total=len(self.plan), desc="stores", unit="store", dynamic_ncols=True,
                       disable=not on_terminal())     # a log gets each store's lines instead
            side = [threading.Thread(target=self.side_lane, args=(lane, ex, bar, k), daemon=True,
                                     name=f"build-lane-{k}")
                    for k, (lane, ex) in enumerate(zip(self.lanes, executors)) if k]
            for th in side:
                th.start()
            try:
                self.build_lane(self.lanes[0], executors[0], bar)
            finally:
                self.first_store.set()
            for th in side:
                while th.is_alive():
                    th.join(0.5)
            if self.failed:
                raise self.failed[0]
            bar.close()

    def side_lane(self, variants: list[str], executor, bar, lane: int) -> None:
        try:
            while not self.first_store.wait(0.5):
                interrupt.stop_if_requested()
            self.build_lane(variants, executor, bar, lane)
        except BaseException as e:  # noqa: BLE001 -- handed to the main thread, which raises it
            self.failed.append(e)

    def build_lane(self, variants: list[str], executor, bar, lane: int = 0) -> None:
        from builder.lane_cpu import LaneCpu

        filler = len(self.lanes) > 1 and lane < len(self.lanes) - 1
        cpu = LaneCpu(executor)
        if filler and (lane > 0 or self.first_store.is_set()):
            _lower_priority(executor)
        for variant in variants:
            done = self.journal.finished(self.args.root, variant)
            if done is not None:
                self.resumed(variant, done)
            else:
                self.build_one(variant, executor, lane, filler, cpu)
            bar.update(1)
            interrupt.stop_if_requested()
            if lane == 0 and filler and not self.first_store.is_set():
                self.first_store.set()
                _lower_priority(executor)

    def resumed(self, variant: str, path: Path) -> None:
        from builder.summary import StoreResult

        with self.lock:
            self.results.append(StoreResult(variant, 0.0, 0, path, _manifest(path), resumed=True))
        self.progress.finished(variant, measured=False)

    def build_one(self, variant: str, executor, lane: int, filler: bool, cpu=None) -> None:
        from builder.docs_check import docs_notice
        from builder.summary import PeakMemory, StoreResult
        from games.dudo.build.solve_game import SharedCores

        # a filler lane's store, once it runs at nice 19 beside Dudo's, takes as long as the cores Dudo leaves
        # it: no estimate of its own (Jotto 4 letters, 47 s alone, took 298 s so) and not a build time to order
        # the next plan by (Jotto 5 letters took 753 s so, Dudo 703)
        representative = not filler or (lane == 0 and not self.first_store.is_set())
        self.progress.started(variant, estimate=representative, lane=lane, cpu=cpu)
        t0 = time.perf_counter()
        # a filler lane holds its mark as a Dudo group does in its own directory (``SharedCores``)
        mark = SharedCores(str(self.busy), f"lane-{lane}", 1) if filler else contextlib.nullcontext()
        with PeakMemory() as mem, mark:
            path = build_store(variant, self.plan[variant], self.args.root, executor, busy=str(self.busy),
                               beside_lanes=not filler and self.others_to_build(lane))
        with self.lock:
            self.journal.record(variant, path)
        seconds = time.perf_counter() - t0
        self.progress.finished(variant, seconds, measured=representative)
        manifest = _manifest(path)
        notice = docs_notice(variant, manifest)
        if notice:
            print(notice, file=sys.stderr, flush=True)
        with self.lock:
            self.results.append(StoreResult(variant, seconds, mem.peak, path, manifest))

    def others_to_build(self, lane: int) -> bool:
        """Whether another lane has a store still to build (its lane then holds a core in ``busy``)."""
        with self.lock:
            return any(self.journal.finished(self.args.root, v) is None
                       for k, variants in enumerate(self.lanes) if k != lane for v in variants)

    def results_in_plan_order(self) -> list:
        order = list(self.plan)
        return sorted(self.results, key=lambda r: order.index(r.variant))


def main(argv: list[str] | None = None) -> int:
    # Ctrl-C and SIGTERM stop a build at the next iteration boundary, after a checkpoint, even when
    # started in the background (where SIGINT is otherwise ignored); a rerun resumes there.
    interrupt.install()
    args = parse_args(argv)
    code_version()      # the sources as they are now, before a build that may outlast edits to them
    try:
        plan = make_plan(args)
    except PlanError as e:
        print(f"gamestrategy-build: {e}", file=sys.stderr)
        return 2
    if args.missing_only:
        from builder.stale import stale_notice, stale_stores
        profile = {v: p for v, p in PROFILES[args.profile].items() if not args.variant or v in args.variant}
        for variant, differ in stale_stores(profile, all_current_stores(args.root)):
            print(stale_notice(variant, differ, args.profile), file=sys.stderr)
    if not plan:
        print("gamestrategy-build: every store is present")
        return 0
    return run_plan(plan, args)


LOW_NICE = 19


def _lower_priority(executor) -> None:
    """A filler lane (every lane but the last, from the first store on): this thread and its executor's workers
    at nice 19, so that the last lane's Dudo groups (a chain, each waiting for the last) keep the cores and this
    lane takes what they leave idle. Linux sets a thread's niceness on its own id; elsewhere the whole process's."""
    tid = threading.get_native_id() if sys.platform.startswith("linux") else 0
    try:
        now = os.getpriority(os.PRIO_PROCESS, tid)
        if now < LOW_NICE:
            os.setpriority(os.PRIO_PROCESS, tid, LOW_NICE)
    except OSError:
        return
    executor.lower_priority(LOW_NICE)


def _manifest(path: Path) -> dict:
    try:
        s = Store(path)
    except StoreError:
        return {}
    try:
        return dict(s.manifest)
    finally:
        s.close()


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ngamestrategy-build: interrupted; rerun to resume from the last checkpoint", file=sys.stderr)
        sys.exit(130)
