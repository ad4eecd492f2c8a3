"""The cost of verifying a store before it is served (server.storecheck): the LMDB structure check and the
content-hash check in its child process, per published store, in seconds and MB/s; beside it, as the
baseline, BLAKE2b of the same file's bytes read in order, in a child at the same priority (the least any
check of every byte costs). Both run with the file in the page cache (it is read once before). The
machine's load average is printed before and after.

  python -m bench.storecheck [--root stores]          every published store under the root
  python -m bench.storecheck --synthetic-mb 200       a store of random values written for the purpose
      [--synthetic-arrays-mb 1300] [--tmp DIR]        (values of 900 bytes, about a Dudo row window's size;
                                                      with arrays: that much more in values of 256 MB, as
                                                      a Dudo store's search tables; written under DIR)
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from games.storage import StoreWriter, all_current_stores, stores_root
from games.storeverify import check_structure
from server.storecheck import CHECK_NICE, _check_in_child

VALUE_BYTES = 900
FILE_HASH = """\
import hashlib, os, sys, time
os.nice(int(sys.argv[2]))
t = time.perf_counter()
h = hashlib.blake2b(digest_size=32)
with open(sys.argv[1], "rb") as f:
    while block := f.read(1 << 20):
        h.update(block)
print(time.perf_counter() - t)
"""


ARRAY_BYTES = 256 << 20


def synthetic_store(root: Path, megabytes: int, array_megabytes: int = 0) -> Path:
    rng = __import__("numpy").random.default_rng(0)
    n = (megabytes << 20) // VALUE_BYTES
    arrays = -(-(array_megabytes << 20) // ARRAY_BYTES)
    with StoreWriter(root, "dudo", "dudo-synthetic") as w:
        w.put_many("windows", ((i.to_bytes(8, "big"), rng.bytes(VALUE_BYTES)) for i in range(n)))
        for i in range(arrays):
            w.put("arrays", f"table-{i}".encode(), rng.bytes(min(ARRAY_BYTES, (array_megabytes << 20) - i * ARRAY_BYTES)))
        return w.publish({"game": "dudo", "variant": "dudo-synthetic", "parameters": {}, "code_version": "bench"})


def read_through(path: Path) -> None:
    """Read the file once, untimed: the check and the baseline then both find it in the page cache (as a
    store just published or served is), and neither pays the other's disk reads."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def measure(path: Path) -> dict:
    read_through(Path(path) / "data.mdb")
    t0 = time.perf_counter()
    size = check_structure(path)
    t1 = time.perf_counter()
    _check_in_child(path, size)
    t2 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", FILE_HASH, str(Path(path) / "data.mdb"), str(CHECK_NICE)],
                       capture_output=True, text=True, check=True)
    return {"mb": size / 1e6, "structure_s": t1 - t0, "content_s": t2 - t1, "file_hash_s": float(r.stdout)}


def load_average() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.storecheck", description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=stores_root())
    ap.add_argument("--synthetic-mb", type=int, default=0, help="measure a random store of this many MB instead")
    ap.add_argument("--synthetic-arrays-mb", type=int, default=0,
                    help="and this many MB more in values of 256 MB (a Dudo store's search tables)")
    ap.add_argument("--tmp", type=Path, default=None, help="where the synthetic store is written (default: the "
                    "system's temporary directory; it needs twice the store's size while publishing)")
    args = ap.parse_args(argv)
    if args.synthetic_mb < 0 or args.synthetic_arrays_mb < 0:
        ap.error("--synthetic-mb and --synthetic-arrays-mb must be >= 0")
    with tempfile.TemporaryDirectory(prefix="bench-storecheck-", dir=args.tmp) as tmp:
        if args.synthetic_mb or args.synthetic_arrays_mb:
            t0 = time.perf_counter()
            stores = {"dudo-synthetic": synthetic_store(Path(tmp), args.synthetic_mb, args.synthetic_arrays_mb)}
            print(f"# synthetic store written in {time.perf_counter() - t0:.0f} s")
        else:
            stores = all_current_stores(args.root)
        if not stores:
            print(f"bench.storecheck: no published store under {args.root}", file=sys.stderr)
            return 2
        print(f"# load average {load_average()} (1, 5, 15 min) at the start; cpus {os.cpu_count()}")
        print(f"{'variant':32s} {'MB':>9s} {'structure s':>12s} {'content s':>10s} {'MB/s':>7s} "
              f"{'file hash s':>12s} {'MB/s':>7s}")
        for variant, path in sorted(stores.items()):
            r = measure(path)
            print(f"{variant:32s} {r['mb']:9.1f} {r['structure_s']:12.4f} {r['content_s']:10.2f} "
                  f"{r['mb'] / r['content_s']:7.0f} {r['file_hash_s']:12.2f} {r['mb'] / r['file_hash_s']:7.0f}")
        print(f"# load average {load_average()} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
