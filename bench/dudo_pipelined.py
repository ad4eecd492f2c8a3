"""The default Dudo store built level by level against pipelined (a level measured while the next trains), each
into a fresh root on a process pool: the wall seconds of each build and the stores' content hashes (the same, or
the pipelining changed a bit of the store).

    .venv/bin/python -m bench.dudo_pipelined /tmp/ab [--workers 2] [--order plain,pipelined]

Run it alone on the machine (each build is two busy processes for several minutes). docs/dudo-speed.md has a run.
"""
from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from builder import dudo as builder_dudo
from builder.executor import make_executor
from builder.profiles import DUDO_DEFAULT
from games.dudo.build import solve_game as solve
from games.storage import Store


def build(root: Path, pipelined: bool, workers: int) -> tuple[float, str]:
    """One build of the default store into ``root`` (emptied first): (wall seconds, content hash)."""
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    real = solve.solve_params
    builder_dudo.solve_params = lambda *a, **k: real(*a, **{**k, "pipelined": pipelined})
    try:
        t = time.perf_counter()
        with make_executor("process", workers) as ex:
            path = builder_dudo.build_dudo_store(DUDO_DEFAULT, root, map_fn=ex.map, cores=ex.local_cores)
        wall = time.perf_counter() - t
    finally:
        builder_dudo.solve_params = real
    return wall, Store(path).manifest["content_hash"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", type=Path, help="a scratch directory (each build gets a fresh root under it)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--order", default="plain,pipelined", help="the builds, in the order they run")
    a = ap.parse_args(argv)
    names = a.order.split(",")
    for name in names:
        if name not in ("plain", "pipelined"):
            ap.error(f"--order: unknown build {name!r} (plain or pipelined)")
    rows = []
    for name in names:
        wall, h = build(a.root / name, name == "pipelined", a.workers)
        rows.append((name, wall, h))
        print(f"{name}: {wall:.1f} s, content hash {h[:16]}", flush=True)
    print(f"{'build':>10} {'wall s':>8}  content hash")
    for name, wall, h in rows:
        print(f"{name:>10} {wall:>8.1f}  {h[:16]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
