"""What a fresh clone's first build pays for numba's compile: the default stores built with an empty numba cache,
then again into a new root with the cache that build left (the same process runs both), compile events logged.

    python -m bench.cold_build [--variant V ...] [--lanes 3] [--cold-only] [--top 15]

Each build is ``python -m builder --profile default --missing-only --lanes L`` at nice 10 into a fresh root without
transparent huge pages, as ``make serve``'s launcher starts it. Every Python process of the build logs numba's compile events (a
``sitecustomize`` on its path registers a listener for ``numba:compile``): the process, the function, its
signature and the CPU seconds of the compile without those of the kernels it compiled inside it. Table: wall and
CPU seconds of each build (CPU: the whole machine's, from /proc/stat, so run it alone), the CPU seconds numba
compiled in, the part of it spent compiling a (function, signature) another process of the same build had
compiled already (each process compiles what is not in the cache when it first calls it), each store's build
seconds, then the functions that took the most compile CPU. docs/serving-while-building.md has the runs.
"""
from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from launcher.__main__ import _no_huge_pages

REPO = Path(__file__).resolve().parent.parent

HOOK = '''
import os, time
try:
    from numba.core import event as _event

    class _CompileLog(_event.Listener):
        stack = []

        def on_start(self, e):
            self.stack.append([time.process_time(), 0.0])

        def on_end(self, e):
            c0, inner = self.stack.pop()
            cpu = time.process_time() - c0
            if self.stack:
                self.stack[-1][1] += cpu
            d = e.data.get("dispatcher")
            f = getattr(d, "py_func", None)
            name = f"{f.__module__}.{f.__qualname__}" if f is not None else str(d)
            sig = ",".join(str(a) for a in e.data.get("args", ()))
            with open(os.environ["BENCH_COMPILE_LOG"], "a") as out:
                out.write(f"{os.getpid()}\\t{cpu - inner:.4f}\\t{name}\\t{sig}\\n")

    _event.register("numba:compile", _CompileLog())
except Exception:
    pass
'''


def _machine_cpu_seconds() -> float:
    with open("/proc/stat") as f:
        parts = f.readline().split()
    user, nice, system, _idle, _iowait, irq, softirq = (int(x) for x in parts[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def compile_summary(lines: list[str]) -> dict:
    """{compile_cpu, duplicated, by_function}: the compile CPU seconds logged, the part spent on a (function,
    signature) another process had compiled before, and the CPU seconds per function."""
    seen: dict[tuple[str, str], str] = {}
    total = duplicated = 0.0
    by_function: dict[str, float] = collections.defaultdict(float)
    for line in lines:
        pid, cpu, name, sig = line.rstrip("\n").split("\t")
        cpu = float(cpu)
        total += cpu
        by_function[name] += cpu
        first = seen.setdefault((name, sig), pid)
        if first != pid:
            duplicated += cpu
    return dict(compile_cpu=total, duplicated=duplicated, by_function=dict(by_function))


def store_seconds(builder_output: str) -> dict[str, float]:
    """The builder's closing table: {store: build seconds}."""
    out, table = {}, False
    for line in builder_output.splitlines():
        if line.startswith("store ") and "seconds" in line:
            table = True
            continue
        if table:
            parts = line.split()
            if len(parts) < 2:
                break
            out[parts[0]] = float(parts[1])
    return out


def build(work: Path, cache: Path, variants: list[str], lanes: int) -> dict:
    """One build into a fresh root under ``work`` with numba's cache in ``cache``; its figures."""
    work.mkdir(parents=True)
    (work / "hook").mkdir()
    (work / "hook" / "sitecustomize.py").write_text(HOOK)
    log = work / "compile.log"
    log.touch()
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), BENCH_COMPILE_LOG=str(log),
               PYTHONPATH=os.pathsep.join([str(work / "hook"), str(REPO)]))
    cmd = ["nice", "-n", "10", sys.executable, "-m", "builder", "--profile", "default", "--missing-only",
           "--lanes", str(lanes), "--root", str(work / "root"), *(a for v in variants for a in ("--variant", v))]
    c0, t0 = _machine_cpu_seconds(), time.perf_counter()
    p = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, preexec_fn=_no_huge_pages)
    wall, cpu = time.perf_counter() - t0, _machine_cpu_seconds() - c0
    if p.returncode != 0:
        raise SystemExit(f"bench.cold_build: the build failed ({p.returncode}): {p.stderr.strip().splitlines()[-1:]}")
    return dict(wall=wall, cpu=cpu, stores=store_seconds(p.stdout), **compile_summary(log.read_text().splitlines()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", action="append", default=[], help="a default store to build (default: all)")
    ap.add_argument("--lanes", type=int, choices=(1, 2, 3), default=3,
                    help="the builder's lanes (default 3, as make serve)")
    ap.add_argument("--cold-only", action="store_true", help="no second build with the warm cache")
    ap.add_argument("--top", type=int, default=15, help="functions listed by compile CPU (default 15)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-cold-build-") as tmp:
        cache = Path(tmp) / "numba-cache"
        runs = {"cold cache": build(Path(tmp) / "cold", cache, args.variant, args.lanes)}
        if not args.cold_only:
            runs["warm cache"] = build(Path(tmp) / "warm", cache, args.variant, args.lanes)
    stores = ", ".join(args.variant) if args.variant else "every store"
    print(f"\nthe default build ({stores}), {args.lanes} lanes, nice 10; CPU: the machine's")
    print(f"{'numba cache':<12}{'wall s':>9}{'CPU s':>9}{'compile CPU s':>15}{'of it duplicated':>18}")
    for name, r in runs.items():
        print(f"{name:<12}{r['wall']:>9.1f}{r['cpu']:>9.1f}{r['compile_cpu']:>15.1f}{r['duplicated']:>18.1f}")
    if "warm cache" in runs:
        c, w = runs["cold cache"], runs["warm cache"]
        print(f"cold / warm: wall {c['wall'] / w['wall']:.2f}x, CPU {c['cpu'] / w['cpu']:.2f}x")
    print(f"\n{'store':<28}" + "".join(f"{name + ' s':>16}" for name in runs))
    for store in runs["cold cache"]["stores"]:
        print(f"{store:<28}" + "".join(f"{r['stores'].get(store, float('nan')):>16.1f}" for r in runs.values()))
    print("\nnumba compile CPU s by function (cold cache, every process):")
    top = sorted(runs["cold cache"]["by_function"].items(), key=lambda kv: -kv[1])[:args.top]
    for name, cpu in top:
        print(f"{cpu:>8.1f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
