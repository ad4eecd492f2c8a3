"""Print the content hash of every published store, recomputed from its data and checked against the
hash its manifest recorded at build time.

  python -m builder.storehash [--root DIR]     exit code 1 if any store's data no longer matches
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from games.storage import Store, StoreError, all_current_stores, stores_root


def store_hashes(root: Path) -> dict[str, tuple[str, str, str]]:
    """variant -> (version, recorded hash, recomputed hash) for every published store under ``root``."""
    out = {}
    for variant, path in all_current_stores(root).items():
        s = Store(path)
        try:
            out[variant] = (s.version, s.manifest.get("content_hash", ""), s.content_hash())
        finally:
            s.close()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m builder.storehash", description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=stores_root())
    args = ap.parse_args(argv)
    try:
        hashes = store_hashes(args.root)
    except StoreError as e:
        print(f"storehash: {e}", file=sys.stderr)
        return 2
    bad = 0
    for variant, (version, recorded, actual) in sorted(hashes.items()):
        ok = "ok" if recorded == actual else ("no recorded hash" if not recorded else "MISMATCH")
        bad += recorded != actual
        print(f"{variant:32s} {actual}  {version}  {ok}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
