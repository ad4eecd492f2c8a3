"""Build the Dudo store: every dice-count group solved bottom-up, every information set with its
whole action distribution (quantised, one entry per window: ``games.dudo.store``), and the per-round
statistics (memory, value, exploitability and its kind)."""
from __future__ import annotations

import importlib
import time
from dataclasses import asdict
from pathlib import Path

from builder import interrupt
from builder.dudo_progress import DudoWork, tables_marker
from games.dudo.search.tables import group_tables, searched_groups
from games.dudo.policy.searched import state_searched_rounds
from games.dudo.policy.served import SERVED_SEARCH_LARGE
from games.dudo.build.solve_game import clear_running, solve_params
from builder.recorded import recorded_parameters
from games.dudo.build.warmup import compile_kernels
from games.dudo.build.params import DudoParams
from games.dudo.build.rows import iter_rows, round_curves, round_stats
from games.dudo.store import format_fields
from games.storage import StoreWriter, code_version


def build_dudo_store(params: DudoParams, root: Path, map_fn=map, cores: int = 1, busy: str | None = None,
                     executor=None, beside_lanes: bool = False) -> Path:
    """Solve (groups of one total of dice through ``map_fn``, sharing ``cores`` threads where its tasks
    run on this machine with the other work marked in ``busy``; finished groups in the work directory are
    reused) and publish the store (``beside_lanes``: other lanes hold cores in ``busy`` as it builds, which its
    progress weighs: ``builder.dudo_progress.group_walls``). With an ``executor`` of local workers and a core to
    spare, the kernels the build needs late and those the server's live work needs are compiled beside its groups
    once the first has trained (``compile_beside_build``, nice 19)."""
    t0 = time.perf_counter()
    work = Path(root) / ".work" / "dudo" / params.variant
    work.mkdir(parents=True, exist_ok=True)
    from builder.profiles import DUDO_DEFAULT

    # the progress file reads the work directory until the store is published (groups, then search tables)
    with DudoWork(params, work, default=params == DUDO_DEFAULT, beside_lanes=beside_lanes):
        warming = executor.beside(compile_beside_build, str(work)) if executor is not None and cores > 1 else None
        try:
            sol = solve_params(params, checkpoint_dir=str(work), map_fn=map_fn, should_stop=interrupt.requested,
                               cores=cores, busy=busy)
        finally:
            if executor is not None:
                executor.stop_beside(warming)
        rounds = round_stats(sol)
        if params.search_by_round:      # rounds served by search where it lowers their exact figure
            for name, upd in state_searched_rounds(sol, params.search_by_round, params.exact_br_total).items():
                rounds[name].update(upd)
        spec = params.large_search_spec()
        groups = searched_groups(sol, spec) if spec else []
        for key in groups:      # the exact rounds keep the rows until measure_search walks their search
            for op, oth in spec.tabled_rounds(*key):
                if f"{op}v{oth}" in rounds and spec.covers(op, oth):       # a round the game reaches
                    rounds[f"{op}v{oth}"].update(served=SERVED_SEARCH_LARGE, search=spec.label())
        with StoreWriter(root, "dudo", params.variant) as writer:
            n = writer.put_many("windows", iter_rows(sol))
            for key in groups:
                for name, arr in group_tables(sol, spec, key, log=print):
                    writer.put_array(name, arr)
                (work / tables_marker(*key)).write_text("{}")     # the progress reads it
            curves = round_curves(sol)
            manifest = dict(game="dudo", variant=params.variant, parameters=recorded_parameters(params),
                            **format_fields(params.memories()), windows=n, rounds=rounds,
                            **({"large_search": asdict(spec)} if spec else {}),
                            **({"curves": curves} if curves else {}), code_version=code_version(),
                            build_seconds=time.perf_counter() - t0)
            path = writer.publish(manifest)
    for pat in ("*.npz", "*.npy", "*.json", "*.progress"):
        for p in work.glob(pat):
            p.unlink()
    clear_running(str(work))
    return path


def compile_beside_build(work_dir: str | None = None) -> dict:
    """What a build compiles into numba's cache beside its groups (``executor.beside``): the kernels the build needs
    late (``games.dudo.build.warmup``), then those of the server's live re-solves (``compile_serving_kernels``);
    {step: seconds}."""
    seconds = compile_kernels(work_dir)
    seconds["serving"] = compile_serving_kernels()
    return seconds


def compile_serving_kernels() -> float:
    """The kernels of the server's live work (an endgame re-solve, a searched chain on int8 leaves read-only as a
    store's map gives them): ``games.dudo.serving.warm``, which a server's live pool imports as a store with live work
    comes online, runs them on tiny games at its import. Compiled here, the server's pools and the measurement after
    the build load them from the cache. Without it each server process of a fresh clone's ``make serve`` compiled
    them as Dudo came online (for about 23 s, both at once, the measurement beside them), and the README's
    Dudo request waited for a live worker 9 s and then got the store's row (DEGRADED). The seconds it took."""
    t0 = time.perf_counter()
    importlib.import_module("games.dudo.serving.warm")
    return time.perf_counter() - t0
