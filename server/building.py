"""What the builder beside this server is still building: its progress file (``games.buildprogress``), read
at most once a second and shared by ListVariants, GetStats, /readyz and the play page, its figures as of each
answer (a store of a few seconds carried from the file's time: ``games.buildprogress.carried``)."""
from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from games.buildprogress import BuildProgress, ProgressError, read_progress

log = logging.getLogger("gamestrategy.server")
READ_EVERY_SECONDS = 1.0


class BuildStatus:
    """The pending variants of the root's running build ([] when no build runs or its file is stale)."""

    def __init__(self, root: Path, every: float = READ_EVERY_SECONDS):
        self.root = Path(root)
        self.every = every
        self._lock = threading.Lock()
        self._at = float("-inf")
        self._progress: BuildProgress | None = None
        self._fault: str | None = None

    def pending(self, served: set[str] | frozenset = frozenset()) -> list[dict]:
        """[{variant, game, state, fraction, eta_seconds}] in build order, without those in ``served`` (a
        store published since the last read and already swapped in)."""
        now = time.monotonic()
        with self._lock:
            if now - self._at >= self.every:
                self._at = now
                self._progress = self._read()
            progress = self._progress
        out = [] if progress is None else progress.summary()
        return [p for p in out if p["variant"] not in served]

    def _read(self) -> BuildProgress | None:
        try:
            progress = read_progress(self.root)
        except ProgressError as e:
            if str(e) != self._fault:  # once per distinct fault, not once a second
                self._fault = str(e)
                log.warning("ignoring the build progress file", extra={"fields": {"error": str(e)}})
            return None
        self._fault = None
        return progress

    def describe(self, variant: str) -> str | None:
        """One phrase on ``variant`` if the build is making it (for the unknown-variant message), else None."""
        for p in self.pending():
            if p["variant"] == variant:
                return phrase(p)
        return None


def phrase(p: dict) -> str:
    """'being built (about 40%, about 1 min 20 s left)' / 'planned (about 5 min left)'."""
    bits = []
    if p["state"] == "building" and p["fraction"] is not None:
        bits.append(f"about {round(100 * p['fraction'])}%")
    if p["eta_seconds"] is not None:
        bits.append(f"about {duration(p['eta_seconds'])} left")
    what = "being built" if p["state"] == "building" else "waiting to be built"
    return what + (f" ({', '.join(bits)})" if bits else "")


def duration(seconds: float) -> str:
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    m, s = divmod(s, 60)
    return f"{m} min {s} s" if s else f"{m} min"
