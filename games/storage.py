"""Read-only LMDB stores: format, atomic publication, reading.

Layout: ``<root>/<game>/<variant>/<version>/data.mdb`` and a symlink ``<root>/<game>/<variant>/current``
naming the served version. A store is written into a fresh hidden directory, compacted into its
version directory, and published by atomically replacing the symlink; a killed build never touches
what is served. Named databases: ``meta`` (``manifest``: JSON with format version, variant, dictionary
hash, parameters, build time, code version, statistics and ``content_hash``, see ``content_hash``), ``arrays`` (NumPy ``.npy`` blobs) and one
``book:<strategy>`` per guesser strategy.
"""
from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import shutil
import subprocess
import threading
import time
import typing
import uuid
from pathlib import Path

import lmdb
import numpy as np

FORMAT_VERSION = 1
INITIAL_MAP_SIZE = 64 << 20  # the writer's map doubles whenever it fills (MapFullError)
BATCH_BYTES = 64 << 20  # put_many commits about this much at a time
MAX_DBS = 32
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ROOT = REPO_ROOT / "stores"


def stores_root(root: str | Path | None = None) -> Path:
    """The store root: ``root`` if given, else $GAMESTRATEGY_STORES, else ``stores/`` in the repository."""
    return Path(root or os.environ.get("GAMESTRATEGY_STORES") or DEFAULT_ROOT)


class StoreError(RuntimeError):
    """A store that cannot be served (missing, corrupt or of another format); the message says which."""


class StoreManifest(typing.TypedDict):
    """The fields every store's manifest has: the builder's, then the four ``StoreWriter.publish`` adds.
    Each game's ``games/<game>/store.py`` extends it with the fields its reader needs."""

    game: str
    variant: str
    parameters: dict
    code_version: str
    format_version: int
    build_time: str
    store_version: str
    content_hash: str


def check_manifest(store: "Store", schema: type) -> dict:
    """The store's manifest, checked against a manifest type (a ``StoreManifest``): every field present
    with its type, else StoreError naming the first field missing or of the wrong type."""
    m = store.manifest
    for name, typ in typing.get_type_hints(schema).items():
        want = typing.get_origin(typ) or typ
        if name not in m:
            raise StoreError(f"store {store.path}: its manifest has no {name!r}")
        if not isinstance(m[name], want) or (want is int and isinstance(m[name], bool)):
            raise StoreError(f"store {store.path}: manifest field {name!r} is {type(m[name]).__name__}, "
                             f"expected {want.__name__}")
    return m


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """git commit (with -dirty) and a hash of the game and builder sources, read once per process: the
    builder reads it when it starts, so a store names the code that built it even if the tree changes
    during a long build."""
    h = hashlib.sha256()
    for pkg in ("games", "builder"):
        for p in sorted((REPO_ROOT / pkg).rglob("*.py")):
            h.update(p.relative_to(REPO_ROOT).as_posix().encode())
            h.update(p.read_bytes())
    try:
        git = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=REPO_ROOT, capture_output=True,
                             text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        git = ""
    return f"{git or 'nogit'}+src.{h.hexdigest()[:12]}"


def array_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(a), allow_pickle=False)
    return buf.getvalue()


def array_from_bytes(raw: bytes) -> np.ndarray:
    return np.load(io.BytesIO(raw), allow_pickle=False)


VOLATILE = ("build_time", "store_version", "content_hash", "code_version", "build")


def _stable(x):
    """The manifest without what differs between two builds of the same content: timings (any key
    naming seconds), build time, version, code version and the ``build`` record (executor, memory)."""
    if isinstance(x, dict):
        return {k: _stable(v) for k, v in x.items() if k not in VOLATILE and "seconds" not in k}
    if isinstance(x, list):
        return [_stable(v) for v in x]
    return x


def content_hash(env: lmdb.Environment, manifest: dict) -> str:
    """BLAKE2b-256 of every named database but ``meta`` (names, keys and values in key order) and of the
    manifest without its volatile fields: two builds with the same results have the same hash."""
    h = hashlib.blake2b(digest_size=32)
    with env.begin() as txn:
        names = sorted(k for k, _ in txn.cursor() if k != b"meta")
    for name in names:
        db = env.open_db(name, create=False)
        h.update(b"db\0" + name + b"\0")
        # buffers: keys and values are hashed in place in the map, never copied (the search tables of a
        # Dudo store are values of hundreds of MB); each is used before the cursor moves on
        with env.begin(db=db, buffers=True) as txn:
            for k, v in txn.cursor():
                h.update(len(k).to_bytes(4, "little") + k + len(v).to_bytes(8, "little"))
                h.update(v)
    h.update(b"manifest\0" + json.dumps(_stable(manifest), sort_keys=True).encode())
    return h.hexdigest()


class StoreWriter:
    """Writes one store into a fresh hidden directory; ``publish`` makes it the served version.

    Used as a context manager: leaving the block without publishing (an error, Ctrl-C) removes the
    half-written directory, so nothing already published is touched."""

    def __init__(self, root: Path, game: str, variant: str):
        self.base = Path(root) / game / variant
        self.base.mkdir(parents=True, exist_ok=True)
        self.tmp = self.base / f".build-{uuid.uuid4().hex[:8]}"
        self.tmp.mkdir()
        self.env = lmdb.open(str(self.tmp), map_size=INITIAL_MAP_SIZE, max_dbs=MAX_DBS, subdir=True, sync=False)
        self._dbs: dict[str, object] = {}
        self.published: Path | None = None

    def __enter__(self) -> "StoreWriter":
        return self

    def __exit__(self, *exc) -> None:
        if self.published is None:
            self.abort()

    def _db(self, name: str):
        if name not in self._dbs:
            self._dbs[name] = self.env.open_db(name.encode())
        return self._dbs[name]

    def _commit(self, db: str, batch: list) -> None:
        """Write ``batch`` in one transaction, doubling the map until it fits (the map follows the data)."""
        handle = self._db(db)
        while True:
            try:
                with self.env.begin(write=True, db=handle) as txn:
                    for k, v in batch:
                        txn.put(k, v)
                return
            except lmdb.MapFullError:
                self.env.set_mapsize(2 * self.env.info()["map_size"])

    def put(self, db: str, key: bytes, value: bytes) -> None:
        self._commit(db, [(key, value)])

    def put_many(self, db: str, items) -> int:
        """Write ``(key, value)`` pairs, committing about ``BATCH_BYTES`` at a time."""
        n, size, batch = 0, 0, []
        for k, v in items:
            batch.append((k, v))
            size += len(k) + len(v)
            if size >= BATCH_BYTES:
                self._commit(db, batch)
                n, size, batch = n + len(batch), 0, []
        self._commit(db, batch)
        return n + len(batch)

    def put_array(self, key: str, a: np.ndarray) -> None:
        self.put("arrays", key.encode(), array_bytes(a))

    def publish(self, manifest: dict) -> Path:
        """Write the manifest, compact into the version directory (its files read-only), switch `current`
        atomically."""
        manifest = dict(manifest, format_version=FORMAT_VERSION, build_time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        manifest["content_hash"] = digest = content_hash(self.env, manifest)
        version = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + digest[:8]
        if (self.base / version).exists():  # the same content published twice within one second
            version += "-" + uuid.uuid4().hex[:4]
        manifest["store_version"] = version
        self.put("meta", b"manifest", json.dumps(manifest, sort_keys=True).encode())
        self.env.sync(True)
        final_tmp = self.base / f".{version}.tmp"
        final_tmp.mkdir()
        self.env.copy(str(final_tmp), compact=True)
        for f in final_tmp.iterdir():  # a published version is never written again; servers map it
            f.chmod(0o444)
        self.env.close()
        shutil.rmtree(self.tmp)
        final = self.base / version
        os.replace(final_tmp, final)
        link_tmp = self.base / f".current-{uuid.uuid4().hex[:8]}"
        os.symlink(version, link_tmp)
        os.replace(link_tmp, self.base / "current")
        self.published = final
        return final

    def abort(self) -> None:
        try:
            self.env.close()
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


class Store:
    """An open read-only store (one LMDB environment).

    LMDB allows one environment per file per process, so opening a path that is already open returns
    the same object with one more reference; `close` drops a reference and closes at zero.
    """

    _open: dict[Path, "Store"] = {}
    _lock = threading.Lock()

    def __new__(cls, path: Path):
        with cls._lock:
            inst = cls._open.get(Path(path).resolve())
            if inst is not None:
                inst._refs += 1
                return inst
            return super().__new__(cls)

    def __init__(self, path: Path):
        if getattr(self, "_refs", 0):
            return
        self.path = Path(path).resolve()
        if not (self.path / "data.mdb").is_file():
            raise StoreError(f"store {self.path}: no data.mdb")
        self._dbs: dict[str, object] = {}
        self._view_txn = None
        try:
            # map what the file holds (LMDB raises a smaller map to the data's size)
            self.env = lmdb.open(str(self.path), readonly=True, lock=False, max_dbs=MAX_DBS, subdir=True,
                                 map_size=(self.path / "data.mdb").stat().st_size)
            raw = self._get("meta", b"manifest")
        except lmdb.Error as e:
            raise StoreError(f"store {self.path}: unreadable LMDB ({e})") from e
        if raw is None:
            raise StoreError(f"store {self.path}: no manifest")
        try:
            self.manifest = json.loads(raw)
        except ValueError as e:
            raise StoreError(f"store {self.path}: corrupt manifest ({e})") from e
        if self.manifest.get("format_version") != FORMAT_VERSION:
            raise StoreError(f"store {self.path}: format version {self.manifest.get('format_version')} "
                             f"is not the supported {FORMAT_VERSION}")
        with Store._lock:
            self._refs = 1
            Store._open[self.path] = self

    @property
    def version(self) -> str:
        return self.manifest["store_version"]

    def content_hash(self) -> str:
        """The content hash recomputed from the data (equals ``manifest['content_hash']`` when intact)."""
        return content_hash(self.env, self.manifest)

    def _db(self, name: str):
        if name not in self._dbs:
            self._dbs[name] = self.env.open_db(name.encode(), create=False)
        return self._dbs[name]

    def _get(self, db: str, key: bytes) -> bytes | None:
        with self.env.begin(db=self._db(db), buffers=False) as txn:
            return txn.get(key)

    def get(self, db: str, key: bytes) -> bytes | None:
        try:
            return self._get(db, key)
        except lmdb.NotFoundError:
            return None

    def array(self, key: str) -> np.ndarray:
        raw = self.get("arrays", key.encode())
        if raw is None:
            raise StoreError(f"store {self.path}: missing array {key!r}")
        return array_from_bytes(raw)

    def array_view(self, key: str) -> np.ndarray:
        """The array ``key`` read in place from the store's map (read-only, no copy: every process mapping
        the store shares its pages), valid while the store is open."""
        if self._view_txn is None:
            self._view_txn = self.env.begin(db=self._db("arrays"), buffers=True)
        buf = self._view_txn.get(key.encode())
        if buf is None:
            raise StoreError(f"store {self.path}: missing array {key!r}")
        head = io.BytesIO(bytes(buf[:4096]))
        version = np.lib.format.read_magic(head)
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read(head)
        if fortran or dtype.hasobject:
            raise StoreError(f"store {self.path}: array {key!r} is not a plain C-order array")
        a = np.frombuffer(buf, dtype=dtype, count=int(np.prod(shape)), offset=head.tell()).reshape(shape)
        return a

    def items(self, db: str):
        with self.env.begin(db=self._db(db)) as txn:
            yield from txn.cursor()

    def close(self) -> None:
        with Store._lock:
            self._refs -= 1
            if self._refs > 0:
                return
            Store._open.pop(self.path, None)
        if self._view_txn is not None:
            self._view_txn.abort()
        self.env.close()


def current_stores(root: Path, game: str) -> dict[str, Path]:
    """variant name -> served version directory, for every published store of a game (entries that cannot
    be read are left out: ``scan_published`` names them)."""
    return scan_published(root, (game,))[0]


STORE_GAMES = ("jotto", "dudo", "guesswho", "hangman")


def all_current_stores(root: Path) -> dict[str, Path]:
    """variant name -> served version directory, for every published store of every game."""
    return scan_published(root)[0]


def scan_published(root: Path, games=STORE_GAMES) -> tuple[dict[str, Path], dict[str, str]]:
    """(variant -> served version directory, entry -> why it cannot be served) under ``root``.

    One bad entry costs only itself: a game or variant directory that cannot be read, a ``current`` link
    that loops, dangles or names no directory is reported under its variant name (a game directory under
    ``<game>/``), never raised. A variant deleted while it is scanned is left out silently, as is one
    without ``current`` (a first build still running)."""
    stores: dict[str, Path] = {}
    problems: dict[str, str] = {}
    for game in games:
        base = Path(root) / game
        try:
            variants = sorted(d for d in base.iterdir() if not d.name.startswith("."))
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as e:
            problems[f"{game}/"] = f"cannot list {base} ({e.strerror or e})"
            continue
        for d in variants:
            link = d / "current"
            try:
                if not link.is_symlink():
                    continue
                target = link.resolve(strict=True)
                if not target.is_dir():
                    problems[d.name] = f"{link} names {target}, which is not a directory"
                    continue
            except FileNotFoundError:
                if d.exists() and link.is_symlink():
                    problems[d.name] = f"{link} names {os.readlink(link)!r}, which does not exist"
                continue  # else deleted while scanned
            except RuntimeError as e:  # Python < 3.13 reports a symlink loop so
                problems[d.name] = f"{link}: {e}"
                continue
            except OSError as e:
                problems[d.name] = f"cannot read {link} ({e.strerror or e})"
                continue
            stores[d.name] = target
    return stores, problems
