"""Print the Table-1 style summary of every published Jotto store (and name the other stores' reports); with --html, write the quality
plots of every published store (games.plots, the operations page's) and an index page into a directory.

  python -m builder.report [--root stores] [--html DIR] [--readme README.md]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import html

from games.plots import plot_names, render
from games.storage import Store, all_current_stores, current_stores, stores_root

FIGS = ["guarantee", "hider_vs_gbr", "self_play", "epsilon_hider", "epsilon_guesser", "epsilon", "gap", "mixture_size",
        "mean_guesses_vs_uniform", "worst_guesses"]


# where the other games' stores are summarised
OTHER_REPORTS = {"dudo": "python -m builder.dudo_report", "hangman": "gamestrategy stats", "guesswho": "gamestrategy stats"}


def others(root: Path) -> str:
    """A line naming the root's stores of other games and the command that summarises each ('' if none)."""
    by = {}
    for v in sorted(all_current_stores(root)):
        game = v.split("-", 1)[0]
        if game in OTHER_REPORTS:
            by.setdefault(OTHER_REPORTS[game], []).append(v)
    return "; ".join(f"{', '.join(vs)}: {cmd}" for cmd, vs in by.items())


def table(root: Path) -> str:
    """The Jotto stores' summary, then a line naming the other stores' reports."""
    other = others(root)
    text = jotto_table(root)
    return text + (f"\nthe other stores (this table is of the Jotto ones): {other}" if other else "")


def jotto_table(root: Path) -> str:
    stores = {v: Store(p).manifest for v, p in current_stores(root, "jotto").items()}
    if not stores:
        return f"no Jotto store under {root}"
    names = list(stores)
    w = max(26, *(len(n) for n in names))
    lines = ["".ljust(30) + "".join(n.rjust(w + 2) for n in names)]

    def row(label, fn, fmt="{:.3f}"):
        cells = []
        for n in names:
            try:
                cells.append(fmt.format(fn(stores[n])))
            except (KeyError, TypeError, ValueError):
                cells.append("-")
        lines.append(label.ljust(30) + "".join(c.rjust(w + 2) for c in cells))

    row("dictionary size", lambda m: m["dictionary"]["size"], "{:d}")
    row("served strategy", lambda m: m["served"], "{}")
    row("FP iterations", lambda m: m["strategies"]["fp"]["iterations"], "{:d}")
    row("FP t*", lambda m: m["strategies"]["fp"]["t_star"], "{:d}")
    row("FP seconds per iteration", lambda m: m["strategies"]["fp"]["seconds_per_iteration"], "{:.4f}")
    row("DO iterations", lambda m: m["strategies"]["double_oracle"]["iterations"], "{:d}")
    row("DO seconds", lambda m: m["strategies"]["double_oracle"]["seconds"], "{:.1f}")
    row("Hedge iterations (DO seeds)", lambda m: m["strategies"]["double_oracle"]["hedge_iterations"], "{:d}")
    row("Hedge seconds", lambda m: m["strategies"]["double_oracle"]["hedge_seconds"], "{:.1f}")
    row("Hedge LP guarantee", lambda m: m["strategies"]["double_oracle"]["hedge_guarantee"])
    row("DO hider selected against", lambda m: m["strategies"]["double_oracle"]["hider_selected_against"], "{}")
    row("exact_do rounds", lambda m: m["certified"]["rounds"] if "exact_do" in m["strategies"] else None, "{:d}")
    row("exact_do seconds", lambda m: m["strategies"]["exact_do"]["seconds"], "{:.1f}")
    for strat in ("benchmark", "fp", "double_oracle", "exact_do", "beeler"):
        for f in FIGS:
            row(f"{strat}: {f}", lambda m, s=strat, f=f: m["strategies"][s]["figures"][f])
    row("beeler: first test word", lambda m: m["strategies"]["beeler"]["first_test_word"], "{}")
    row("entropy, any test word: mean", lambda m: m["strategies"]["beeler"]["figures"]["entropy_any_test_word_mean"])
    row("entropy, any test word: worst", lambda m: m["strategies"]["beeler"]["figures"]["entropy_any_test_word_worst"], "{:.0f}")
    row("build seconds", lambda m: m["build_seconds"], "{:.1f}")
    return "\n".join(lines)


FACTS = ("game", "store_version", "build_time", "build_seconds", "code_version", "content_hash", "served", "infosets",
         "windows", "row_format", "memory_by_group")


def write_html(root: Path, out: Path) -> list[Path]:
    """Every published store's plots as SVG files and an index.html showing them with the build facts;
    returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written, parts = [], []
    for variant, path in sorted(all_current_stores(root).items()):
        store = Store(path)
        try:
            m = store.manifest
            rows = "".join(f"<tr><td>{k}</td><td>{html.escape(str(m[k]))}</td></tr>" for k in FACTS if k in m)
            imgs = []
            for name in plot_names(store):
                f = out / f"{variant}.{name}.svg"
                f.write_bytes(render(store, name))
                written.append(f)
                imgs.append(f'<figure><img src="{f.name}" alt="{name} plot of {html.escape(variant)}">'
                            f"<figcaption>{name}</figcaption></figure>")
            parts.append(f"<section><h2>{html.escape(variant)}</h2><table>{rows}</table>{''.join(imgs)}</section>")
        finally:
            store.close()
    index = out / "index.html"
    index.write_text("<!doctype html><html lang=en><meta charset=utf-8><title>Store quality</title>"
                     "<style>body{font-family:sans-serif}img{width:34rem;max-width:100%}figure{display:inline-block}"
                     "td{padding:0 .5rem}</style><h1>Published stores</h1>" + "".join(parts) + "</html>")
    written.append(index)
    return written


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m builder.report")
    ap.add_argument("--root", type=Path, default=stores_root())
    ap.add_argument("--html", type=Path, metavar="DIR", help="write every store's plots (SVG) and an index.html here")
    ap.add_argument("--readme", type=Path, metavar="FILE",
                    help="rewrite FILE's generated tables (strength, speed) from the published stores")
    args = ap.parse_args(argv)
    if args.readme:
        from builder.readme_tables import update

        try:
            args.readme.write_text(update(args.readme.read_text(), args.root))
        except (OSError, ValueError) as e:
            print(f"python -m builder.report: {args.readme}: {e}", file=sys.stderr)
            return 2
        print(f"rewrote the strength and speed tables of {args.readme} from the stores under {args.root}")
        return 0
    if args.html:
        files = write_html(args.root, args.html)
        print(f"wrote {len(files)} files to {args.html} (open {args.html / 'index.html'})")
        return 0
    print(table(args.root))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
