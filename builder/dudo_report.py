"""Issue 3 item 4 from a published Dudo store's manifest: value and exploitability of every
(opener dice, other dice) round.

  python -m builder.dudo_report [--root stores] [--variant dudo-5dice-default]

value = the opener's game-winning probability under the stored strategies; exploitability = the
sum of both seats' best-response gains (win probability), by the best response named in "BR kind"
(exact-perfect-recall: responder with perfect recall; "lower bound: best response with memory m'":
a responder that remembers the last m' claims, ``games.dudo.bound``, a lower bound; abstract-local,
in stores built before that: the same with m' = the abstraction's m).  A round opened by a player with fewer than max dice against max dice
cannot happen (the winner of a challenge opens, and a max-dice player has lost nothing): those
pairs are listed as unreachable; their groups are solved (the max-dice side opens) but no value
is computed for a round that no game reaches.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from games.storage import Store, current_stores, stores_root


def table(manifest: dict) -> str:
    md = int(manifest["parameters"]["max_dice"])
    rounds = manifest["rounds"]
    size = (f"{manifest['windows']} windows (row format {manifest.get('row_format')})" if "windows" in manifest
             else f"{manifest['infosets']} information sets")
    lines = [f"{manifest['variant']}: {size}, build"
             f" {manifest.get('build_seconds', float('nan')):.0f} s, store {manifest.get('store_version', '?')}",
             f"{'round':>6} {'memory':>8} {'iters':>6} {'stop':>5} {'train s':>8} {'group s':>8} {'value':>9}"
             f" {'BR opener':>10} {'BR other':>9} {'exploit.':>9}  BR kind"]
    for op in range(1, md + 1):
        for oth in range(1, md + 1):
            st = rounds.get(f"{op}v{oth}")
            if st is None:
                why = "unreachable round" if (oth == md and op < md) else "not built"
                lines.append(f"{op}v{oth:<4} {'-':>8} {why:>43}")
                continue
            e = st.get("exploitability")
            mem = st["memory"]
            mem = int(mem) if isinstance(mem, float) and mem.is_integer() else mem
            lines.append(
                f"{op}v{oth:<4} {str(mem):>8} {int(st['iterations']):>6} {st.get('stop', '-'):>5}"
                f" {st['train_seconds']:>8.1f} {st.get('group_seconds', float('nan')):>8.1f} {st['value']:>9.5f}"
                f" {st.get('br_opener', float('nan')):>10.5f} {st.get('br_other', float('nan')):>9.5f}"
                f" {(f'{e:.2e}' if e is not None else '-'):>9}  {st['br_kind']}")
    lines.append("stop: floor (a doubling of the iterations improved the group's exploitability by less than"
                 f" {manifest['parameters'].get('stop_rel', 0):g}), cap (the iteration cap), - (fixed iterations);"
                 " group s: training, measurements and best responses")
    return "\n".join(lines)


def curves(manifest: dict) -> str:
    """Each group's training curve (train_to_floor): its worst round's exploitability, of the kind
    the round table names, at every doubling of the iterations."""
    out = []
    for rnd, c in manifest.get("curves", {}).items():
        kind = manifest["rounds"][rnd].get("br_kind", "?")
        out.append(f"{rnd} ({kind}): " + ", ".join(
            f"{int(t)}: {e:.2e} ({s:.0f} s)" for t, e, s in zip(c["iterations"], c["exploitability"], c["seconds"])))
    return "\n".join(["curves, iterations: exploitability (solver seconds)"] + out) if out else "no curves (fixed iterations)"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=stores_root())
    ap.add_argument("--variant", action="append", default=[])
    ap.add_argument("--curves", action="store_true", help="also each group's training curve")
    args = ap.parse_args(argv)
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
