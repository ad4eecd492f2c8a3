"""gamestrategy-build: solve games and publish their stores.

  python -m builder --profile default|full [--missing-only] [--variant NAME ...] [--root DIR]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from builder import interrupt
from builder.profiles import PROFILES
from games.jotto.dictionary import Variant, VariantError, load_dictionary, register_list_file
from games.storage import DEFAULT_ROOT, current_stores


def main(argv: list[str] | None = None) -> int:
    # Ctrl-C and SIGTERM stop a build at the next iteration boundary, after a checkpoint, even when
    # started in the background (where SIGINT is otherwise ignored); a rerun resumes there.
    interrupt.install()
    ap = argparse.ArgumentParser(prog="gamestrategy-build", description=__doc__.splitlines()[0])
    ap.add_argument("--profile", choices=sorted(PROFILES), default="default")
    ap.add_argument("--variant", action="append", default=[], help="only these variants (repeatable)")
    ap.add_argument("--missing-only", action="store_true", help="skip variants that already have a store")
    ap.add_argument("--list", action="append", default=[], metavar="NAME=PATH",
                    help="register a word-list file as source file.NAME (repeatable)")
    ap.add_argument("--root", type=Path, default=Path(os.environ.get("GAMESTRATEGY_STORES", DEFAULT_ROOT)))
    args = ap.parse_args(argv)
    from builder.dudo import DudoParams, build_dudo_store
    from builder.guesswho import GuessWhoParams, build_guesswho_store
    from builder.hangman import HangmanParams, build_hangman_store
    from builder.jotto import build_jotto_store

    for item in args.list:
        name, sep, path = item.partition("=")
        try:
            if not sep:
                raise VariantError(f"--list {item!r}: expected NAME=PATH")
            register_list_file(name, path)
        except VariantError as e:
            print(f"gamestrategy-build: {e}", file=sys.stderr)
            return 2
    plan = dict(PROFILES[args.profile])
    for v in args.variant:
        if v not in plan and not v.startswith("jotto-"):
            print(f"gamestrategy-build: unknown store {v!r} (known: {', '.join(sorted(PROFILES['full']))})",
                  file=sys.stderr)
            return 2
        if v not in plan:
            try:
                Variant.parse(v)
                load_dictionary(v)
            except VariantError as e:
                print(f"gamestrategy-build: {e}", file=sys.stderr)
                return 2
            plan[v] = PROFILES["default"].get(v) or next(iter(PROFILES["default"].values()))
    if args.variant:
        plan = {v: p for v, p in plan.items() if v in args.variant}
    have = {**current_stores(args.root, "jotto"), **current_stores(args.root, "dudo"),
            **current_stores(args.root, "guesswho"), **current_stores(args.root, "hangman")}
    if args.missing_only:
        plan = {v: p for v, p in plan.items() if v not in have}
    if not plan:
        print("gamestrategy-build: every store is present")
        return 0
    summary = []
    for variant, params in plan.items():
        t0 = time.perf_counter()
        if isinstance(params, DudoParams):
            path = build_dudo_store(params, args.root)
        elif isinstance(params, GuessWhoParams):
            path = build_guesswho_store(params, args.root)
        elif isinstance(params, HangmanParams):
            path = build_hangman_store(params, args.root)
        else:
            path = build_jotto_store(variant, params, args.root)
        summary.append((variant, time.perf_counter() - t0, path))
    print(f"\n{'store':40s} {'seconds':>8s}  version")
    for variant, secs, path in summary:
        print(f"{variant:40s} {secs:8.1f}  {path.name}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ngamestrategy-build: interrupted; rerun to resume from the last checkpoint", file=sys.stderr)
        sys.exit(130)
