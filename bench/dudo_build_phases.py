"""The default Dudo store built serially into a fresh root, CPU seconds per phase of every group.

    NUMBA_CACHE_DIR=$(mktemp -d) .venv/bin/python -m bench.dudo_build_phases /tmp/dudo-root

One process, one thread (``builder.dudo.build_dudo_store`` with ``map``, ``cores=1``); with an empty numba cache
directory numba's compile lands in the first group that uses each kernel. Per group (``time.process_time``, so
other load on the machine distorts it less than wall time): training (the solver's own CPU seconds), figures
(``solve_game._round_figures``: exact best responses up to 4 dice in play, else the memory-m' bounds), improvement
(``solve_game.round_improved_best_response``), the whole group task and its wall; then the store writing. The table goes
to ``<root>.phases.json`` too; the store's content hash is printed (it does not depend on the kernels' speed).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from builder.dudo import build_dudo_store
from builder.profiles import DUDO_DEFAULT
from games.dudo.build import solve_game as S
from games.storage import Store


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", type=Path)
    args = ap.parse_args(argv)
    rows: dict[str, dict] = {}
    cur = {"g": None}

    def timed(name, fn):
        def wrapped(*a, **k):
            c = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                d = rows.setdefault(cur["g"], {})
                d[name] = d.get(name, 0.0) + time.process_time() - c
        return wrapped

    S._round_figures = timed("figures", S._round_figures)
    S.round_improved_best_response = timed("improvement", S.round_improved_best_response)
    solve_group = S.solve_group

    def group_task(group, **kw):
        cur["g"] = "%dv%d" % tuple(group)
        c, t = time.process_time(), time.perf_counter()
        res = solve_group(group, **kw)
        d = rows.setdefault(cur["g"], {})
        d.update(group=time.process_time() - c, wall=time.perf_counter() - t,
                 train=max(st.get("train_cpu_seconds", 0.0) for st in res["stats"].values()))
        print(cur["g"], {k: round(v, 1) for k, v in d.items()}, flush=True)
        return res

    S.solve_group = group_task      # solve_game looks it up at every level
    c0, t0 = time.process_time(), time.perf_counter()
    path = build_dudo_store(DUDO_DEFAULT, args.root, map_fn=map, cores=1)
    total = time.process_time() - c0
    groups = sum(d["group"] for d in rows.values())
    print(f"total CPU {total:.1f} s (groups {groups:.1f}, store writing {total - groups:.1f}), wall "
          f"{time.perf_counter() - t0:.1f} s")
    print(f"{'group':>6} {'train':>7} {'figures':>8} {'improve':>8} {'other':>6} {'group':>7}")
    for g, d in rows.items():
        other = d["group"] - d["train"] - d.get("figures", 0.0) - d.get("improvement", 0.0)
        print(f"{g:>6} {d['train']:>7.1f} {d.get('figures', 0.0):>8.1f} {d.get('improvement', 0.0):>8.1f} "
              f"{other:>6.1f} {d['group']:>7.1f}")
    print("content hash", Store(Path(path)).manifest["content_hash"])
    Path(str(args.root) + ".phases.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
