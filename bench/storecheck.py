"""The cost of verifying a store before it is served (server.storecheck): the LMDB structure check and the
content-hash check in its child process, per published store, in seconds and MB/s.

  python -m bench.storecheck [--root stores]          every published store under the root
  python -m bench.storecheck --synthetic-mb 200       a store of random values written for the purpose
                                                      (values of 900 bytes, about a Dudo store's average)
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from games.storage import StoreWriter, all_current_stores, stores_root
from games.storeverify import check_structure
from server.storecheck import _check_in_child

VALUE_BYTES = 900


def synthetic_store(root: Path, megabytes: int) -> Path:
    rng = __import__("numpy").random.default_rng(0)
    n = (megabytes << 20) // VALUE_BYTES
    with StoreWriter(root, "dudo", "dudo-synthetic") as w:
        w.put_many("windows", ((i.to_bytes(8, "big"), rng.bytes(VALUE_BYTES)) for i in range(n)))
        return w.publish({"game": "dudo", "variant": "dudo-synthetic", "parameters": {}, "code_version": "bench"})


def measure(path: Path) -> dict:
    t0 = time.perf_counter()
    size = check_structure(path)
    t1 = time.perf_counter()
    _check_in_child(path, size)
    t2 = time.perf_counter()
    return {"mb": size / 1e6, "structure_s": t1 - t0, "content_s": t2 - t1}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.storecheck", description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=stores_root())
    ap.add_argument("--synthetic-mb", type=int, default=0, help="measure a random store of this many MB instead")
    args = ap.parse_args(argv)
    if args.synthetic_mb < 0:
        ap.error("--synthetic-mb must be >= 0")
    with tempfile.TemporaryDirectory(prefix="bench-storecheck-") as tmp:
        if args.synthetic_mb:
            stores = {"dudo-synthetic": synthetic_store(Path(tmp), args.synthetic_mb)}
        else:
            stores = all_current_stores(args.root)
        if not stores:
            print(f"bench.storecheck: no published store under {args.root}", file=sys.stderr)
            return 2
        print(f"{'variant':32s} {'MB':>9s} {'structure s':>12s} {'content s':>10s} {'MB/s':>7s}   (cpus {os.cpu_count()})")
        for variant, path in sorted(stores.items()):
            r = measure(path)
            print(f"{variant:32s} {r['mb']:9.1f} {r['structure_s']:12.4f} {r['content_s']:10.2f} "
                  f"{r['mb'] / r['content_s']:7.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
