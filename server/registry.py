"""The served stores: a :class:`Registry` of backends by variant, with hot refresh.

Every call takes a reference on the backend it reads (``acquire``); a refresh swaps a newly published
store in under a lock and retires the old one, which is closed when its last in-flight call releases it.

A store is served only after server.storecheck verified it (LMDB structure, then its recorded content
hash, in a child process), on the refresh thread: the version served goes on serving meanwhile, and
stays when the new one fails. A served file that changes on disk (size, times, inode) is suspended at
once: moves read from it answer UNAVAILABLE until the next refresh verifies it again, and a failed
check refuses it. Every refusal is logged, counted, and listed by ``refused`` (``/readyz``).
"""
from __future__ import annotations

import calendar
import logging
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from games.storage import Store, StoreError, scan_published
from games.storeverify import Identity
from server import metrics
from server.building import BuildStatus
from server.backends import Backend, NotServed, backend_for, quote
from server.storecheck import CheckUnfinished, verified

log = logging.getLogger("gamestrategy.server")


class StoreUnavailable(NotServed):
    """A variant whose store is not servable now (UNAVAILABLE): its served file changed since it was
    verified (the move read from it is not answered), or its published version was refused."""

    def __init__(self, message: str):
        super().__init__(message, "UNAVAILABLE", retry="store")


class _Check:
    """One variant's check in flight on its own thread: the version it checks and, once done, its outcome."""

    __slots__ = ("path", "thread", "outcome")

    def __init__(self, path: Path, work):
        self.path, self.outcome = path, None
        self.thread = threading.Thread(target=work, args=(self,), name="store-check", daemon=True)


class _Handle:
    """One open backend with a count of the calls reading it, and the identity of the file it verified."""

    __slots__ = ("backend", "path", "refs", "retired", "closed", "fd", "identity", "suspect", "deleted")

    def __init__(self, backend: Backend, path: Path, fd: int, identity: Identity):
        self.backend, self.path, self.fd, self.identity = backend, path, fd, identity
        self.refs, self.retired, self.closed, self.suspect, self.deleted = 0, False, False, False, False

    def changed(self) -> bool:
        """Whether the served file was written or truncated since it was verified (one fstat; its status
        change time is left out: a chmod or an unlink leaves the bytes as they were)."""
        try:
            st = os.fstat(self.fd)  # the descriptor's inode never changes: its size and time do
        except OSError:
            return True
        return st.st_mtime_ns != self.identity.mtime_ns or st.st_size != self.identity.size


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
    """The served backends by variant; hot refresh with reference-counted retirement.

    `verify=False` skips the content check (tests of other parts that build stores by hand)."""

    def __init__(self, root: Path, warm: bool = True, verify: bool = True):
        self.root = Path(root)
        self.warm, self.verify = warm, verify
        self._lock = threading.Lock()
        self._refresh_lock = threading.Lock()
        self._handles: dict[str, _Handle] = {}
        # variant (or "<game>/") -> (refused path or None, reason); a path is not retried until it changes
        self._refused: dict[str, tuple[Path | None, str]] = {}
        self._opened: set[Path] = set()  # every path opened in this process: py-lmdb opens a path once
        self._checks: dict[str, _Check] = {}  # variant -> its check in flight (one at a time per variant)
        # variant -> the published version awaited: no version of it served, none refused since it was published
        self._awaited: dict[str, Path] = {}
        self._closed = False
        self.build_status = BuildStatus(self.root)  # what a build beside the server is still making
        self.on_change = lambda: None  # called when a served file is seen changed (wakes the refresh)
        self.on_checked = lambda: None  # called on a check's own thread when it has ended (readiness)

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
            refused = self._refused.get(variant)
            awaited = self._awaited.get(variant)
        if awaited is not None:
            raise StoreUnavailable(f"variant {quote(variant)} is not served yet: its store is being verified (its "
                                   "content hash checked against its data) and comes online when it passes; retry")
        if refused is not None:
            raise StoreUnavailable(f"variant {quote(variant)} is not served: its published store was refused "
                                   f"({_reason(refused[1])}); it comes online when a good version is published")
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
            os.close(h.fd)
        except OSError:
            pass
        try:
            h.backend.store.close()
            log.info("closed store", extra={"fields": {"variant": h.backend.variant,
                                                                 "store_version": h.backend.version}})
        except Exception as e:  # noqa: BLE001
            log.error("closing retired store failed", extra={"fields": {"path": str(h.path), "error": str(e)}})

    def refused(self) -> list[dict]:
        """What is refused now: entries of the root and store versions, each with the reason (``/readyz``)."""
        with self._lock:
            items = sorted(self._refused.items())
        return [{"variant": v, "version": path.name if path else None, "reason": _reason(why)}
                for v, (path, why) in items]

    def verifying(self) -> list[dict]:
        """The store versions being checked, or awaiting their check, that no call is answered from yet
        (``/readyz``): a variant that serves an older version meanwhile is listed with ``serving`` set."""
        with self._lock:
            versions = {v: c.path for v, c in self._checks.items()}
            versions.update(self._awaited)
            serving = {v: h.backend.version for v, h in self._handles.items() if h.path != versions.get(v)}
        return [{"variant": v, "version": path.name, **({"serving": serving[v]} if v in serving else {})}
                for v, path in sorted(versions.items())]

    def check_served(self, h: _Handle) -> None:
        """Raise StoreUnavailable when the file a move was just read from changed since it was verified (the
        move is then not answered); the handle is suspended and the refresh woken to check it again."""
        if h.suspect or h.changed():
            if not h.suspect:
                h.suspect = True
                log.error("a served store file changed on disk: its moves are refused until it is verified again",
                          extra={"fields": {"variant": h.backend.variant, "path": str(h.path)}})
                self.on_change()
            raise StoreUnavailable(f"the store of {h.backend.variant} changed on disk since it was verified; it is "
                               "being checked again: retry")

    # -------------------------------------------------------------- refresh
    def refresh(self, wait: bool = True) -> dict[str, str]:
        """Check the served files, then verify and swap in every newly published store, each variant's check
        on a thread of its own. ``wait``: wait for every check in flight and return their outcomes,
        {variant: outcome} (loaded, swapped, refused, withdrawn, checking: its check did not finish);
        otherwise return {} at once (``on_checked`` is called as each check ends)."""
        checks = self.start_checks()
        return self.wait_for(checks) if wait else {}

    def start_checks(self) -> dict[str, _Check]:
        """Scan the root and start the checks it calls for; every check in flight, by variant."""
        with self._refresh_lock:
            published, problems = scan_published(self.root)
            self._note_problems(problems)
            with self._lock:
                for variant in [v for v in self._awaited if v not in published]:
                    del self._awaited[variant]   # unpublished (deleted) before its check ended
                checks = dict(self._checks)
            checks.update(self._recheck_served())
            for variant, path in published.items():
                check = self._consider(variant, path)
                if check is not None:
                    checks[variant] = check
            return checks

    @staticmethod
    def wait_for(checks: dict[str, _Check]) -> dict[str, str]:
        """Wait for these checks to end; {variant: outcome} of those that changed something."""
        for check in checks.values():
            check.thread.join()
        return {v: c.outcome for v, c in checks.items() if c.outcome is not None}

    def _start_check(self, variant: str, path: Path, work) -> _Check | None:
        """Run ``work()`` (its outcome or None) on a thread of its own unless a check of the variant is in flight
        (None then)."""
        def run(check: _Check) -> None:
            try:
                check.outcome = work()
            except Exception:  # noqa: BLE001 - a check never takes the server down
                log.exception("store check failed", extra={"fields": {"variant": variant, "path": str(path)}})
            finally:
                with self._lock:
                    if self._checks.get(variant) is check:
                        del self._checks[variant]
                self.on_checked()

        with self._lock:
            if variant in self._checks or self._closed:
                return None
            check = self._checks[variant] = _Check(path, run)
        check.thread.start()
        return check

    def _note_problems(self, problems: dict[str, str]) -> None:
        """Entries of the root that cannot be read: each logged once while it lasts, the rest unaffected."""
        with self._lock:
            for name, why in problems.items():
                if self._refused.get(name, (None, None))[1] == why:
                    continue
                self._refused[name] = (None, why)
                cur = self._handles.get(name)
                metrics.STORE_LOADS.labels(result="refused").inc()
                log.error("refusing entry of the store root" + ("; still serving the version opened before" if cur else ""),
                          extra={"fields": {"entry": name, "error": why,
                                            "serving": cur.backend.version if cur else None}})
            for name in [n for n, (path, _) in self._refused.items() if path is None and n not in problems]:
                del self._refused[name]

    def _recheck_served(self) -> dict[str, _Check]:
        """Served files changed on disk are verified again, each on its check's thread: kept when they pass,
        withdrawn when they fail. A deleted version goes on being served from its open file (its bytes are
        intact), with a warning."""
        with self._lock:
            served = list(self._handles.items())
        checks = {}
        for variant, h in served:
            try:
                st = os.fstat(h.fd)
            except OSError:
                st = None
            if st is not None and st.st_nlink == 0 and not h.deleted:
                h.deleted = True
                log.warning("the served store version was deleted from disk: serving it from its open file until "
                            "a new version is published", extra={"fields": {
                                "variant": variant, "path": str(h.path), "store_version": h.backend.version}})
            if h.suspect or h.changed():
                check = self._start_check(variant, h.path, lambda variant=variant, h=h, st=st: self._recheck(variant, h, st))
                if check is not None:
                    checks[variant] = check
        return checks

    def _recheck(self, variant: str, h: _Handle, st: os.stat_result | None) -> str | None:
        try:
            if st is None or not self.verify or h.deleted:
                raise StoreError(f"store {h.path}: data.mdb changed on disk")
            _, ident = verified(h.path)
            if ident[:2] != (st.st_dev, st.st_ino):
                raise StoreError(f"store {h.path}: data.mdb was replaced by another file")
        except CheckUnfinished as e:  # the file stays suspended: checked again at the next refresh
            log.warning("store check unfinished: checked again at the next refresh", extra={"fields": {
                "variant": variant, "path": str(h.path), "error": str(e)}})
            return "checking"
        except (StoreError, OSError) as e:
            self._withdraw(variant, h, str(e))
            return "withdrawn"
        h.identity, h.suspect = ident, False
        log.warning("a served store file changed on disk and passed its check again: serving it",
                    extra={"fields": {"variant": variant, "store_version": h.backend.version}})
        return None

    def _withdraw(self, variant: str, h: _Handle, why: str) -> None:
        with self._lock:
            if self._handles.get(variant) is h:
                del self._handles[variant]
            self._refused[variant] = (h.path, why)
            h.retired = True
            close = h.refs == 0 and not h.closed
            if close:
                h.closed = True
        metrics.STORE_VERSION.labels(variant=variant, version=h.backend.version).set(0)
        metrics.STORE_BUILD_TIME.labels(variant=variant).set(0)
        metrics.STORE_LOADS.labels(result="refused").inc()
        log.error("refusing the served store: its file changed on disk and fails its check",
                  extra={"fields": {"variant": variant, "path": str(h.path), "error": why}})
        if close:
            self._close(h)

    def _consider(self, variant: str, path: Path) -> _Check | None:
        """Start the check of the store published at `path` unless it is served, refused or checked already."""
        with self._lock:
            cur = self._handles.get(variant)
            refused = self._refused.get(variant, (None, None))[0]
            if (cur is not None and cur.path == path) or refused == path:
                return None
            if cur is None:
                self._awaited[variant] = path
        return self._start_check(variant, path, lambda: self._load(variant, path, cur))

    def _load(self, variant: str, path: Path, cur: _Handle | None) -> str | None:
        """Verify, open and swap in the store published at `path` (on its check's thread); the outcome."""
        if path in self._opened:  # py-lmdb opens a path once per process: never reopen
            return self._refuse(variant, path, cur, "this version was served before in this process; publish it "
                                "as a new version or restart")
        try:
            b, fd, ident = self._open_verified(variant, path)
        except CheckUnfinished as e:    # a busy machine: nothing known of the store, so it is checked again
            log.warning("store check unfinished: checked again at the next refresh", extra={"fields": {
                "variant": variant, "path": str(path), "error": str(e)}})
            return "checking"
        except Exception as e:  # noqa: BLE001 - any failure refuses the store
            return self._refuse(variant, path, cur, str(e))
        try:
            built = build_timestamp(b.store.manifest)
        except ValueError:
            os.close(fd)
            b.store.close()
            return self._refuse(variant, path, cur, f"store {path}: manifest field 'build_time' is "
                                f"{b.store.manifest['build_time']!r}, expected YYYY-MM-DDTHH:MM:SSZ")
        new = _Handle(b, path, fd, ident)
        with self._lock:
            closed = self._closed
            old, close_old = None, False
            if not closed:
                self._refused.pop(variant, None)
                self._awaited.pop(variant, None)
                old = self._handles.get(variant)
                self._handles[variant] = new
                if old is not None:
                    old.retired = True
                    close_old = old.refs == 0 and not old.closed
                    if close_old:
                        old.closed = True
        if closed:  # the registry closed while this store was checked
            new.closed = True
            self._close(new)
            return None
        if old is not None:
            metrics.STORE_VERSION.labels(variant=variant, version=old.backend.version).set(0)
        metrics.STORE_VERSION.labels(variant=variant, version=b.version).set(1)
        metrics.STORE_BUILD_TIME.labels(variant=variant).set(built)
        metrics.STORE_LOADS.labels(result="loaded").inc()
        log.info("serving store", extra={"fields": {
            "variant": variant, "store_version": b.version, "replaced": old.backend.version if old else None}})
        if close_old:
            self._close(old)
        return "loaded" if old is None else "swapped"

    def _open_verified(self, variant: str, path: Path) -> tuple[Backend, int, Identity]:
        """The store's backend once its file passed the check, with an open descriptor of that file and its
        identity; StoreError when the file fails, or changes between the check and the opening."""
        ident = None
        if self.verify:
            _, ident = verified(path)
        fd = os.open(path / "data.mdb", os.O_RDONLY | os.O_CLOEXEC)
        try:
            now = Identity.of(os.fstat(fd))
            if ident is not None and now != ident:
                raise StoreError(f"store {path}: data.mdb changed while it was checked")
            self._opened.add(path)
            b = open_backend(path, variant, self.warm)
            if Identity.of(os.fstat(fd)) != now:
                b.store.close()
                raise StoreError(f"store {path}: data.mdb changed while it was opened")
            return b, fd, now
        except BaseException:
            os.close(fd)
            raise

    def _refuse(self, variant: str, path: Path, cur: _Handle | None, why: str) -> str:
        with self._lock:
            self._refused[variant] = (path, why)
            self._awaited.pop(variant, None)
        metrics.STORE_LOADS.labels(result="refused").inc()
        log.error("refusing store; keeping the previous one" if cur else "refusing store",
                  extra={"fields": {"variant": variant, "path": str(path), "error": why,
                                    "serving": cur.backend.version if cur else None}})
        return "refused"

    def close(self) -> None:
        with self._lock:
            self._closed = True  # a check still in flight opens nothing more
            hs = list(self._handles.values())
            self._handles.clear()
        for h in hs:
            if not h.closed:
                h.closed = True
                self._close(h)


def build_timestamp(manifest: dict) -> float:
    """A manifest's build time (``%Y-%m-%dT%H:%M:%SZ``, set when the store was published) in Unix seconds."""
    return float(calendar.timegm(time.strptime(manifest["build_time"], "%Y-%m-%dT%H:%M:%SZ")))


def _reason(message: str) -> str:
    """A refusal's reason without the store's path (``/readyz`` answers without a token)."""
    if message.startswith("store "):
        head, sep, rest = message.partition(": ")
        if sep:
            return rest
    return message
