"""Print the Table-1 style summary of every published Jotto store.

  python -m builder.report [--root stores]
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from games.storage import DEFAULT_ROOT, Store, current_stores

FIGS = ["guarantee", "hider_vs_gbr", "self_play", "epsilon_hider", "epsilon_guesser", "epsilon", "gap", "mixture_size",
        "mean_guesses_vs_uniform", "worst_guesses"]


def table(root: Path) -> str:
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
    for strat in ("benchmark", "fp", "double_oracle", "beeler"):
        for f in FIGS:
            row(f"{strat}: {f}", lambda m, s=strat, f=f: m["strategies"][s]["figures"][f])
    row("beeler: first test word", lambda m: m["strategies"]["beeler"]["first_test_word"], "{}")
    row("entropy, any test word: mean", lambda m: m["strategies"]["beeler"]["figures"]["entropy_any_test_word_mean"])
    row("entropy, any test word: worst", lambda m: m["strategies"]["beeler"]["figures"]["entropy_any_test_word_worst"], "{:.0f}")
    row("build seconds", lambda m: m["build_seconds"], "{:.1f}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m builder.report")
    ap.add_argument("--root", type=Path, default=Path(os.environ.get("GAMESTRATEGY_STORES", DEFAULT_ROOT)))
    print(table(ap.parse_args(argv).root))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
