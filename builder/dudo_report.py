"""A published Dudo store's figures from its manifest: value and exploitability of every
(opener dice, other dice) round.

  python -m builder.dudo_report [--root stores] [--variant dudo-5dice-default]
  python -m builder.dudo_report --plan full       # a profile's plan before building (cost model)
  python -m builder.dudo_report --work stores/.work/dudo/dudo-5dice-full   # an unfinished build's groups

value = the opener's game-winning probability under the stored strategies; exploitability = the
sum of both seats' best-response gains (win probability), by the best response named in "BR kind"
(exact-perfect-recall: responder with perfect recall; "lower bound: best response with memory m'":
a responder that remembers the last m' > m claims, ``games.dudo.measure.bound``, a lower bound; "lower bound:
abstraction": the same with m' = the abstraction's m, the weakest; not measured; stores built before
these kinds say abstract-local and none, read as the abstraction's bound and not measured).  A memory
written a-L-b remembers a claims while the last claim is below strength L, then b
(``games.dudo.abstraction.infoset.Schedule``).  "improved":
the perfect-recall improvement of a memory-m'' responder (``games.dudo.measure.lbr``; m'' in the table), a
sampled lower bound at least the memory-m'' one, with its standard error; "-" where not measured.  A round opened by a player with fewer than max dice against max dice
cannot happen (the winner of a challenge opens, and a max-dice player has lost nothing): those
pairs are listed as unreachable; their groups are solved (the max-dice side opens) but no value
is computed for a round that no game reaches.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from games.dudo.measure.bound import kind_memory, kind_of
from games.storage import Store, current_stores, stores_root


M2 = "m''"


def table(manifest: dict) -> str:
    md = int(manifest["parameters"]["max_dice"])
    rounds = manifest["rounds"]
    size = (f"{manifest['windows']} windows (row format {manifest.get('row_format')})" if "windows" in manifest
            else f"{manifest['infosets']} information sets" if "infosets" in manifest
            else "unfinished build (the groups solved so far)")
    built = (f", build {manifest['build_seconds']:.0f} s, store {manifest.get('store_version', '?')}"
             if "build_seconds" in manifest else "")
    lines = [f"{manifest['variant']}: {size}{built}",
             f"{'round':>6} {'memory':>8} {'iters':>6} {'stop':>5} {'train s':>8} {'cpu s':>8} {'group s':>8} {'value':>9}"
             f" {'BR opener':>10} {'BR other':>9} {'exploit.':>9} {'improved':>9} {'+-':>7} {M2:>7}  BR kind"]
    for op in range(1, md + 1):
        for oth in range(1, md + 1):
            st = rounds.get(f"{op}v{oth}")
            if st is None:
                why = "unreachable round" if (oth == md and op < md) else "not built"
                lines.append(f"{op}v{oth:<4} {'-':>8} {why:>52}")
                continue
            e = st.get("exploitability")
            mem = st["memory"]
            mem = int(mem) if isinstance(mem, float) and mem.is_integer() else mem
            if "train_memory" in st:
                mem = f"{mem} vs {st['train_memory']}"
            lines.append(
                f"{op}v{oth:<4} {str(mem):>8} {int(st['iterations']):>6} {st.get('stop', '-'):>5}"
                f" {st['train_seconds']:>8.1f} {st.get('train_cpu_seconds', float('nan')):>8.1f}"
                f" {st.get('group_seconds', float('nan')):>8.1f} {st['value']:>9.5f}"
                f" {st.get('br_opener', float('nan')):>10.5f} {st.get('br_other', float('nan')):>9.5f}"
                f" {(f'{e:.2e}' if e is not None else '-'):>9} {_improved(st)}  {kind_of(st)}")
    lines.append("memory: the stored strategy's; 'm vs m2': trained against responders remembering m2 claims"
                 " (games.dudo.build.cfrbr)")
    lines.append("stop: floor (a doubling of the iterations improved the group's exploitability by less than"
                 f" {manifest['parameters'].get('stop_rel', 0):g}), cap (the iteration cap), - (fixed iterations);"
                 " train s / cpu s: training wall / CPU seconds; group s: training, measurements and best responses (wall)")
    return "\n".join(lines)


def _improved(st: dict) -> str:
    """The improvement's cells: estimate, standard error and the memory m'' it starts from."""
    if "improved_exploitability" not in st:
        return f"{'-':>9} {'-':>7} {'-':>7}"
    m = kind_memory(st.get("improved_kind", "")) or ""
    return f"{st['improved_exploitability']:>9.2e} {st['improved_stderr']:>7.1e} {m:>7}"


def curves(manifest: dict) -> str:
    """Each group's training curve (train_to_floor): its worst round's exploitability, of the kind
    the round table names, at every doubling of the iterations."""
    out = []
    for rnd, c in manifest.get("curves", {}).items():
        kind = kind_of(manifest["rounds"][rnd])
        out.append(f"{rnd} ({kind}): " + ", ".join(
            f"{int(t)}: {e:.2e} ({s:.0f} s)" for t, e, s in zip(c["iterations"], c["exploitability"], c["seconds"])))
    return "\n".join(["curves, iterations: exploitability (solver seconds)"] + out) if out else "no curves (fixed iterations)"


def plan(params, workers: int = 2) -> str:
    """A Dudo profile's plan from the cost model (``games.dudo.build.budget``, one core, modelled seconds):
    per group its memory (``m vs m'``: trained against responders remembering m', ``cost.cfrbr_cost``),
    iteration cap, table bytes and training seconds at the cap, the bound's responder memory with its bytes
    and seconds (one round, both seats; computed at every measurement of the floor rule), and the build's
    modelled wall time on ``workers`` processes (the groups of one total of dice run in parallel, the
    totals one after another)."""
    from games.dudo.cost import bound_cost, cfrbr_cost, group_cost, store_bytes
    from games.dudo.build.solve_game import FLOOR_DOUBLINGS, groups_in_order
    from games.dudo.abstraction.dag import round_reachable
    mems, bmems, tmems = params.memories(), params.bound_memories(), params.train_memories()
    label = {g: "perfect" if m is None else f"{m} vs {tmems[g]}" if g in tmems else str(m) for g, m in mems.items()}
    mw = max(7, *map(len, label.values()))
    bw = max(8, *(len(str(m)) for m in bmems.values()))
    lines = [f"{params.variant}: memory budget {params.memory_budget / 2**30:.2f} GiB, time budget"
             f" {params.time_budget:g} s per group"
             + "".join(f", {a}v{b}: m = {m} set by the profile" for (a, b), m in params.memory_by_group)
             + f"; bound: m + {params.bound_memory}, {params.bound_budget / 2**30:.2f} GiB,"
             f" {params.bound_time_budget:g} s",
             f"{'group':>6} {'m':>{mw}} {'iters':>6} {'GB':>6} {'train s':>8} {'bound m':>{bw}} {'bound GB':>8}"
             f" {'bound s':>8} {'group s':>8} {'store MB':>8}"]
    level: dict[int, list] = {}
    peak, store = 0.0, 0
    for a, b in groups_in_order(params.max_dice):
        m, its = mems[(a, b)], params.group_iterations(a, b)
        c = cfrbr_cost(a, b, m, tmems[(a, b)]) if (a, b) in tmems else group_cost(a, b, m)
        train = c.seconds_per_iteration * its
        nrounds = sum(round_reachable(op, a + b - op, params.max_dice) for op in {a, b})
        measures = (FLOOR_DOUBLINGS + 1) if params.stop_rel > 0 else 1
        if (a, b) in bmems:
            mr = bmems[(a, b)]
            bc = bound_cost(a, b, mr)
            bsec = bc.seconds_per_iteration * nrounds * measures
            bcells = f"{str(mr):>{bw}} {bc.bytes / 1e9:>8.2f} {bsec:>8.0f}"
            gb = (c.bytes + bc.bytes) / 1e9
        else:
            bsec, gb = 0.0, c.bytes / 1e9
            bcells = f"{'exact' if a + b <= params.exact_br_total else '-':>{bw}} {'':>8} {'':>8}"
        peak = max(peak, gb)
        store += store_bytes(a, b, m)
        level.setdefault(a + b, []).append(train + bsec)
        lines.append(f"{a}v{b:<4} {label[(a, b)]:>{mw}} {its:>6} {c.bytes / 1e9:>6.2f} {train:>8.0f}"
                     f" {bcells} {train + bsec:>8.0f} {store_bytes(a, b, m) / 1e6:>8.0f}")
    wall = 0.0
    for secs in level.values():      # longest first onto the least loaded worker
        loads = [0.0] * workers
        for x in sorted(secs, reverse=True):
            loads[loads.index(min(loads))] += x
        wall += max(loads)
    lines.append(f"modelled: peak tables of one group {peak:.2f} GB (training + bound), store at most about"
                 f" {store / 1e9:.2f} GB, build wall about"
                 f" {wall / 60:.0f} min on {workers} workers at the iteration caps (the floor rule may stop earlier;"
                 " the model overestimates large groups by up to 3x: bench.dudo_cost)")
    return "\n".join(lines)


def unfinished(work: Path) -> dict:
    """A manifest-like dict of the groups an unfinished (or interrupted) build has solved so far, from
    its work directory (``<root>/.work/dudo/<variant>``: each finished group's JSON, ``solve_game.solve_group``)."""
    import json
    rounds, params = {}, dict(max_dice=1)
    for p in sorted(Path(work).glob("dudo_*v*_m*.json")):
        if p.name.count(".") > 1:   # a group's other files: its curve, trained rows' facts, training's progress
            continue
        meta = json.loads(p.read_text())
        params.update(max_dice=int(meta["inputs"]["max_dice"]), stop_rel=meta["inputs"].get("stop_rel", 0))
        for op, oth, st in meta["stats"]:
            rounds[f"{op}v{oth}"] = {k: v for k, v in st.items() if not k.startswith("curve")}
    return dict(variant=f"{Path(work).name} (work directory {work})", parameters=params, rounds=rounds)


DOCS_BEGIN = "<!-- the store columns: generated from the default and full stores by `python -m builder.dudo_report --docs docs/dudo.md`; do not edit -->"
DOCS_END = "<!-- end of the generated columns -->"
# the summary table's columns (memory, figure) of each store it states: the default store's and the full store's
DOCS_COLUMNS = {"dudo-5dice-default": (2, 3), "dudo-5dice-full": (4, 5)}


def _figure(x: float) -> str:
    """A figure as docs/dudo.md writes it: two significant digits, 3.3e-3 below 0.01, else 0.021."""
    if x < 0.01:
        mantissa, exponent = f"{x:.1e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{x:.3f}"


def _memory(st: dict) -> str:
    mem = st["memory"]
    mem = int(mem) if isinstance(mem, float) and mem.is_integer() else mem
    return f"{mem} vs {st['train_memory']}" if "train_memory" in st else str(mem)


def docs_cells(manifest: dict, rounds: list[str]) -> tuple[str, str]:
    """The summary table's columns of one store for one row of rounds ("1v2 / 2v1"): the memory and each round's
    figure of the stored rows (the perfect-recall improvement where measured, else the exploitability; the rows'
    ``stored_exploitability`` where the round's stated figures are its search's) with its kind ("exact", or "≥": a
    lower bound)."""
    sts = [manifest["rounds"][r] for r in rounds]
    exact = all(kind_of(st) == "exact-perfect-recall" for st in sts)
    figs = " / ".join(_figure(st.get("improved_exploitability", st.get("stored_exploitability", st["exploitability"])))
                      for st in sts)
    return _memory(sts[0]), (f"{figs} exact" if exact else f"≥ {figs}")


def update_docs(text: str, manifest: dict, variant: str | None = None) -> str:
    """docs/dudo.md with the summary table's columns of ``variant``'s store (``DOCS_COLUMNS``: the default store's
    2 and 3, the full store's 4 and 5; by default the manifest's) regenerated from ``manifest``."""
    mem_col, fig_col = DOCS_COLUMNS[variant or manifest["variant"]]
    head, sep, rest = text.partition(DOCS_BEGIN)
    body, sep2, tail = rest.partition(DOCS_END)
    if not sep or not sep2:
        raise ValueError("docs/dudo.md has no generated table markers")
    out = []
    for line in body.splitlines():
        cells = line.split("|")
        if len(cells) > 4 and "v" in cells[1] and cells[1].strip()[0].isdigit():
            rounds = [r.strip() for r in cells[1].split("/")]
            mem, fig = docs_cells(manifest, rounds)
            cells[mem_col], cells[fig_col] = f" {mem} ", f" {fig} "
            line = "|".join(cells)
        out.append(line)
    return head + sep + "\n".join(out) + ("\n" if body.endswith("\n") else "") + sep2 + tail


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=stores_root())
    ap.add_argument("--variant", action="append", default=[])
    ap.add_argument("--curves", action="store_true", help="also each group's training curve")
    ap.add_argument("--plan", metavar="PROFILE", help="print a profile's Dudo plan (cost model) and exit")
    ap.add_argument("--work", type=Path, metavar="DIR", help="the groups an unfinished build has solved so far"
                    " (its work directory, <root>/.work/dudo/<variant>)")
    ap.add_argument("--docs", type=Path, metavar="PAGE", help="regenerate the summary table's columns of PAGE "
                    "(docs/dudo.md) from the default and the full store under --root (those built, or --variant's)")
    args = ap.parse_args(argv)
    if args.docs:
        stores = current_stores(args.root, "dudo")
        variants = args.variant or [v for v in DOCS_COLUMNS if v in stores]
        unknown = [v for v in variants if v not in DOCS_COLUMNS]
        if unknown:
            print(f"the page states no figures of {unknown[0]} (it states {', '.join(DOCS_COLUMNS)})")
            return 2
        missing = [v for v in variants if v not in stores]
        if not variants or missing:
            print(f"no store {(missing or list(DOCS_COLUMNS))[0]} under {args.root}: build it first (make serve, or "
                  f"make build-stores for the full one)")
            return 1
        text = args.docs.read_text()
        for variant in variants:
            s = Store(stores[variant])
            try:
                text = update_docs(text, dict(s.manifest))
            finally:
                s.close()
            print(f"{args.docs}: the {variant} columns from {stores[variant].name}")
        args.docs.write_text(text)
        return 0
    if args.work:
        if not args.work.is_dir():
            print(f"no work directory {args.work}")
            return 1
        print(table(unfinished(args.work)))
        return 0
    if args.plan:
        from builder.profiles import PROFILES
        if args.plan not in PROFILES:
            print(f"unknown profile {args.plan!r} (known: {', '.join(sorted(PROFILES))})")
            return 2
        for v, p in PROFILES[args.plan].items():
            if v.startswith("dudo"):
                print(plan(p))
        return 0
    stores = current_stores(args.root, "dudo")
    names = args.variant or sorted(stores)
    if not names:
        print(f"no Dudo store under {args.root}")
        return 1
    for v in names:
        if v not in stores:
            print(f"no store {v} under {args.root}")
            return 1
        s = Store(stores[v])
        try:
            print(table(dict(s.manifest)))
            if args.curves:
                print(curves(dict(s.manifest)))
        finally:
            s.close()
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
