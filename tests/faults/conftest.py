"""The fault suite: damage, process and hostile-caller faults done to a server on a copy of small test
stores, each checked against its outcome (docs/serving.md, "Faults")."""
import os
import random
import shutil
from pathlib import Path

import pytest

from tests.conftest import SMALL_VARIANT

GUESSWHO = "guesswho-12"
JOTTO = SMALL_VARIANT
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def template_root(tmp_path_factory):
    """Two small stores (a Jotto and a Guess Who variant) built once; tests damage copies of them."""
    from builder.guesswho import GuessWhoParams, build_guesswho_store
    from builder.jotto import JottoParams, build_jotto_store

    root = tmp_path_factory.mktemp("fault-stores")
    build_jotto_store(JOTTO, JottoParams(fp_iterations=20, do_iterations=2, book_threshold=6), root)
    build_guesswho_store(GuessWhoParams(12, budget=4000), root)
    return root


@pytest.fixture()
def root(template_root, tmp_path):
    """A private copy of the stores (links kept as links)."""
    dest = tmp_path / "stores"
    shutil.copytree(template_root, dest, symlinks=True)
    return dest


def served_file(root: Path, variant: str = JOTTO) -> Path:
    game = variant.split("-", 1)[0]
    return (root / game / variant / "current").resolve() / "data.mdb"


def publish_copy(root: Path, name: str, variant: str = JOTTO) -> Path:
    """Copy the served version of `variant` to a new version directory and make it `current`; its data file."""
    game = variant.split("-", 1)[0]
    base = root / game / variant
    new = base / name
    shutil.copytree((base / "current").resolve(), new)
    os.chmod(new / "data.mdb", 0o644)
    os.symlink(name, base / f".current-{name}")
    os.replace(base / f".current-{name}", base / "current")
    return new / "data.mdb"


def truncate(path: Path) -> None:
    os.truncate(path, os.path.getsize(path) // 2)


def random_bytes(path: Path) -> None:
    """4 KiB of random bytes in the middle of the file, written in place."""
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.seek(size // 2 - 2048)
        f.write(random.Random(1).randbytes(4096))


def flip_pages(path: Path, page: int = 4096) -> None:
    """One byte flipped in every page of the second half, in place."""
    size = os.path.getsize(path)
    rng = random.Random(2)
    with open(path, "r+b") as f:
        for start in range(size // 2 // page * page, size, page):
            at = start + rng.randrange(16, page)
            f.seek(at)
            b = f.read(1)
            f.seek(at)
            f.write(bytes([b[0] ^ 0xFF]))


def swapped_values(path: Path) -> None:
    """Book entries of the same length swapped in place, pair by pair: the LMDB structure and every value's
    format intact, the strategies wrong (what only the content hash tells)."""
    from games.storage import Store

    store = Store(path.parent)  # the server's own instance when it has the file open (one per process)
    try:
        with store.env.begin() as txn:
            books = [k.decode() for k, _ in txn.cursor() if k.startswith(b"book:")]
        by_length: dict[int, list[bytes]] = {}
        for name in books:
            for _, v in store.items(name):
                by_length.setdefault(len(v), []).append(bytes(v))
    finally:
        store.close()
    data = bytearray(path.read_bytes())
    for values in by_length.values():
        for v, w in zip(values[::2], values[1::2]):
            i, j = data.find(v), data.find(w)
            if v != w and i >= 0 and j >= 0 and abs(i - j) >= len(v):
                data[i:i + len(v)], data[j:j + len(w)] = w, v
    with open(path, "r+b") as f:
        f.write(data)


def zero_length(path: Path) -> None:
    os.truncate(path, 0)


DAMAGE = {"truncated": truncate, "random_bytes": random_bytes, "flipped_pages": flip_pages,
          "swapped_values": swapped_values, "zero_length": zero_length}
