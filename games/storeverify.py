"""Checking a published store before it is served: the LMDB structure, read from the file with plain reads
(never through a memory map, so that a short file is never touched), then the content hash recomputed from
the data and compared with the one its manifest recorded at build time.

LMDB reads its data through a memory map: a page past the end of a truncated file is a SIGBUS, and a
damaged branch page can send a cursor anywhere (SIGSEGV). ``check_structure`` refuses the first before any
map exists; ``verify`` walks every database, so run it in a process of its own (server.storecheck) when
a crash must not take the caller down.

The meta page layout is LMDB's (``MDB_meta`` after the 16-byte page header, 64-bit build; H. Chu, "LMDB",
liblmdb/mdb.c), as byte offsets in a meta page: magic at 16, data version at 20, the page size in the free
database's ``md_pad`` at 40, the free and main databases' root pages at 80 and 128, the last page number
at 136, the transaction id at 144. LMDB uses the valid meta page of the two with the higher transaction id.
"""
from __future__ import annotations

import os
import struct
import typing
from pathlib import Path

from games.storage import Store, StoreError

META_MAGIC = 0xBEEFC0DE
DATA_VERSION = 1
INVALID_PAGE = 2**64 - 1  # an empty database's root
_META = struct.Struct("<II16xI36xQ40xQQQ")  # magic, version, psize, free root, main root, last page, txnid


class Identity(typing.NamedTuple):
    """What changes when a file is written, truncated or replaced: compared before and after serving."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> "Identity":
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _meta(head: bytes, offset: int):
    if len(head) < offset + _META.size + 16:
        return None
    magic, version, psize, free_root, main_root, last_page, txnid = _META.unpack_from(head, offset + 16)
    if magic != META_MAGIC or version != DATA_VERSION or psize < 512 or psize & (psize - 1):
        return None
    return psize, free_root, main_root, last_page, txnid


def check_structure(path: Path) -> int:
    """The store's data file size in bytes, after checking that it holds every page its LMDB meta names;
    StoreError naming the fault otherwise (no data file, no valid meta page, a file shorter than its last
    page, a database root past the last page)."""
    data = Path(path) / "data.mdb"
    try:
        with open(data, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(2 * 65536)  # both meta pages at the largest page size LMDB uses
    except OSError as e:
        raise StoreError(f"store {path}: cannot read data.mdb ({e.strerror or e})") from e
    first = _meta(head, 0)
    second = _meta(head, first[0] if first else 4096)
    metas = [m for m in (first, second) if m is not None]
    if not metas:
        raise StoreError(f"store {path}: data.mdb ({size} bytes) has no valid LMDB meta page")
    psize, free_root, main_root, last_page, _ = max(metas, key=lambda m: m[4])
    need = (last_page + 1) * psize
    if size < need:
        raise StoreError(f"store {path}: data.mdb is {size} bytes, shorter than its last page needs ({need}: "
                         f"{last_page + 1} pages of {psize}); truncated")
    for name, root in (("free", free_root), ("main", main_root)):
        if root != INVALID_PAGE and root > last_page:
            raise StoreError(f"store {path}: the {name} database's root page {root} is past the last page "
                             f"{last_page}")
    return size


def verify(path: Path) -> str:
    """The store's content hash, after checking its structure and that the hash recomputed from the data
    equals the recorded one; StoreError naming the fault otherwise."""
    check_structure(path)
    store = Store(path)
    try:
        recorded = store.manifest.get("content_hash")
        if not recorded:
            raise StoreError(f"store {path}: its manifest records no content hash")
        actual = store.content_hash()
    except StoreError:
        raise
    except Exception as e:  # noqa: BLE001 - lmdb's errors on damaged pages, a manifest of the wrong shape
        raise StoreError(f"store {path}: unreadable while hashing ({type(e).__name__}: {e})") from e
    finally:
        store.close()
    if actual != recorded:
        raise StoreError(f"store {path}: content hash {actual[:16]}... differs from the recorded "
                         f"{recorded[:16]}...; the data changed after the build")
    return actual
