"""The served stores: a :class:`Registry` of backends by variant, with hot refresh.

Every call takes a reference on the backend it reads (``acquire``); a refresh swaps a newly published
store in under a lock and retires the old one, which is closed when its last in-flight call releases it.
"""
from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from pathlib import Path

from games.storage import Store, StoreError, all_current_stores
from server import metrics
from server.building import BuildStatus
from server.backends import Backend, NotServed, backend_for, quote

log = logging.getLogger("gamestrategy.server")


class _Handle:
    """One open backend with a count of the calls reading it."""

    __slots__ = ("backend", "path", "refs", "retired", "closed")

    def __init__(self, backend: Backend, path: Path):
        self.backend, self.path = backend, path
        self.refs, self.retired, self.closed = 0, False, False


def open_backend(path: Path, variant: str | None = None, warm: bool = True) -> Backend:
    """Open and check one store; StoreError (with the reason) if it cannot be served."""
    store = Store(path)
    try:
        b = backend_for(store)
        if variant is not None and b.variant != variant:
            raise StoreError(f"store {path}: holds variant {b.variant!r}, published as {variant!r}")
        if warm:
            b.warm()
        b.probe()  # one request through the real paths
        return b
    except Exception as e:  # noqa: BLE001 - any failure refuses the store
        store.close()
        if isinstance(e, StoreError):
            raise
        raise StoreError(f"store {path}: cannot be served ({type(e).__name__}: {e})") from e


class Registry:
    """The served backends by variant; hot refresh with reference-counted retirement."""

    def __init__(self, root: Path, warm: bool = True):
        self.root = Path(root)
        self.warm = warm
        self._lock = threading.Lock()
        self._refresh_lock = threading.Lock()
        self._handles: dict[str, _Handle] = {}
        self._refused: dict[str, Path] = {}  # variant -> last refused path (not retried until it changes)
        self._opened: set[Path] = set()  # every path opened in this process: py-lmdb opens a path once
        self.build_status = BuildStatus(self.root)  # what a build beside the server is still making

    # -------------------------------------------------------------- reading
    @property
    def backends(self) -> dict[str, Backend]:
        with self._lock:
            return {v: h.backend for v, h in self._handles.items()}

    def variants(self) -> list[str]:
        with self._lock:
            return sorted(self._handles)

    def building(self) -> list[dict]:
        """The variants a build beside the server is still making (server.building.BuildStatus.pending)."""
        with self._lock:
            served = set(self._handles)
        return self.build_status.pending(served)

    def _take(self, variant: str) -> _Handle:
        with self._lock:
            h = self._handles.get(variant)
            if h is not None:
                h.refs += 1
                return h
            known = ", ".join(sorted(self._handles)) or "none"
        building = self.build_status.describe(variant)
        if building is not None:
            raise NotServed(f"variant {quote(variant)} is not served yet: it is {building} and comes online "
                            f"when published; retry (served: {known})", "UNAVAILABLE")
        raise NotServed(f"unknown variant {quote(variant)} (served: {known})", "NOT_FOUND")

    def _release(self, h: _Handle) -> None:
        with self._lock:
            h.refs -= 1
            close = h.retired and h.refs == 0 and not h.closed
            if close:
                h.closed = True
        if close:
            self._close(h)

    @contextmanager
    def acquire(self, variant: str):
        h = self._take(variant)
        try:
            yield h.backend
        finally:
            self._release(h)

    @contextmanager
    def acquire_all(self):
        with self._lock:
            hs = sorted(self._handles.items())
            for _, h in hs:
                h.refs += 1
        try:
            yield [(v, h.backend) for v, h in hs]
        finally:
            for _, h in hs:
                self._release(h)

    def _close(self, h: _Handle) -> None:
        try:
            h.backend.store.close()
            log.info("closed store", extra={"fields": {"variant": h.backend.variant,
                                                                 "store_version": h.backend.version}})
        except Exception as e:  # noqa: BLE001
            log.error("closing retired store failed", extra={"fields": {"path": str(h.path), "error": str(e)}})

    # -------------------------------------------------------------- refresh
    def refresh(self) -> dict[str, str]:
        """Open every newly published store and swap it in; returns {variant: outcome}."""
        out: dict[str, str] = {}
        with self._refresh_lock:
            try:
                published = all_current_stores(self.root)
            except OSError as e:
                log.error("cannot list stores", extra={"fields": {"root": str(self.root), "error": str(e)}})
                return out
            for variant, path in published.items():
                with self._lock:
                    cur = self._handles.get(variant)
                if cur is not None and cur.path == path:
                    continue
                if self._refused.get(variant) == path:
                    continue
                if path in self._opened:  # py-lmdb opens a path once per process: never reopen
                    self._refused[variant] = path
                    metrics.STORE_LOADS.labels(result="refused").inc()
                    log.error("refusing store: this version was served before in this process; publish it as a "
                              "new version or restart", extra={"fields": {"variant": variant, "path": str(path)}})
                    out[variant] = "refused"
                    continue
                self._opened.add(path)
                try:
                    b = open_backend(path, variant, self.warm)
                except Exception as e:  # noqa: BLE001
                    self._refused[variant] = path
                    metrics.STORE_LOADS.labels(result="refused").inc()
                    log.error("refusing store; keeping the previous one" if cur else "refusing store",
                              extra={"fields": {"variant": variant, "path": str(path), "error": str(e),
                                                "serving": cur.backend.version if cur else None}})
                    out[variant] = "refused"
                    continue
                self._refused.pop(variant, None)
                new = _Handle(b, path)
                with self._lock:
                    old = self._handles.get(variant)
                    self._handles[variant] = new
                    close_old = False
                    if old is not None:
                        old.retired = True
                        close_old = old.refs == 0 and not old.closed
                        if close_old:
                            old.closed = True
                if old is not None:
                    metrics.STORE_VERSION.labels(variant=variant, version=old.backend.version).set(0)
                metrics.STORE_VERSION.labels(variant=variant, version=b.version).set(1)
                metrics.STORE_LOADS.labels(result="loaded").inc()
                log.info("serving store", extra={"fields": {
                    "variant": variant, "store_version": b.version,
                    "replaced": old.backend.version if old else None}})
                out[variant] = "loaded" if old is None else "swapped"
                if close_old:
                    self._close(old)
        return out

    def close(self) -> None:
        with self._lock:
            hs = list(self._handles.values())
            self._handles.clear()
        for h in hs:
            if not h.closed:
                h.closed = True
                self._close(h)
