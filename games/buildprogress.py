"""The build's progress file: what a running build plans, builds and has done, for whoever serves the root.

The builder (``python -m builder``) writes ``<root>/.build-progress.json`` when it starts, whenever a store
starts or is published, and every few seconds in between (a heartbeat); each write replaces the file
atomically (a temporary file and ``os.replace``), so a reader never sees half a file. The server reads it
to say which variants are still being built and how far along (ListVariants, GetStats, /readyz, the play
page). Format (JSON, ``format`` 1)::

    {"format": 1, "pid": 1234, "host": "...", "started": "2026-11-27T05:00:00Z", "updated": <unix seconds>,
     "state": "building" | "done" | "failed" | "stopped", "message": "",
     "variants": [{"variant": "jotto-en_US80-5-ganzfried", "game": "jotto",
                   "state": "planned" | "building" | "done" | "failed",
                   "expected_seconds": 96.4,   # this variant's last measured build time, or null
                   "seconds": 12.5,            # while building: seconds since it started; done: its time
                   "fraction": 0.31,           # while building: the share of its build's time elapsed
                   "remaining_seconds": 40.2,  # while building: its estimate of the time left, or null
                   "counted": 0.28,            # while building: the work done, weighted by its measured cost
                   "cpu_seconds": 20.1,        # while building: the CPU seconds its lane has spent on it
                   "lane": 0,                  # the build lane it is built in
                   "nice": 19,                 # while building: that lane's niceness
                   "cores_ahead": [[120.5, 2], [40.1, 1]],  # while building, where its build knows them: the
                                               # expected seconds still to go of each part of it with its tasks side by side
                   "tasks": 2,                 # while building, where its running steps say: their tasks side by side
                   "published_in": 300.2}],    # planned: the builder's seconds until it is published, or absent
     "idle_seconds": 5120.3}                   # the machine's idle core seconds so far, or absent

A store's fraction and time left are the builder's estimate (``builder.progress``: the work counted, each step
weighted by its measured cost, ``builder.steps``, Dudo ``builder.dudo_progress``, read through the lanes' schedule,
``builder.lane_schedule``), the fraction capped below 1 until the store is published. ``counted``, ``cpu_seconds``,
``lane``, ``nice``, ``cores_ahead``, ``tasks`` and ``idle_seconds`` are what the estimate was made from (``python -m
bench.build_progress --replay`` plays a recorded build's through it again). A file without them (an older builder)
is read from its expected time (``fraction = seconds / expected``). A file whose ``updated`` is older than
``STALE_SECONDS`` while its state is ``building`` is a build that died (SIGKILL, a lost machine): readers
treat it as stopped.
"""
from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

FORMAT = 1
FILE_NAME = ".build-progress.json"
STALE_SECONDS = 30.0
HEARTBEAT_SECONDS = 2.0
STATES = ("planned", "building", "done", "failed")
BUILD_STATES = ("building", "done", "failed", "stopped")
MAX_FRACTION = 0.99  # an estimate never says "done" before the store is published
# a store being built whose whole build is estimated under this many seconds (Guess Who, Hangman: 5-8 s) has its
# figures carried to the moment they are read: the file is up to a heartbeat old, and the server's read up to a second
# older, a third of such a store's build
SHORT_STORE_SECONDS = 20.0
# the most seconds a reading carries figures over (a file older than a heartbeat and a read is a builder's stall, or
# another host's clock)
MAX_CARRY_SECONDS = 5.0


class ProgressError(ValueError):
    """A progress file that is no progress file (the message says why)."""


def progress_path(root: str | Path) -> Path:
    return Path(root) / FILE_NAME


def game_of(variant: str) -> str:
    """The game a variant name belongs to (its first dash-separated part: ``jotto``, ``dudo``, ...)."""
    return variant.split("-", 1)[0]


@dataclass
class VariantProgress:
    variant: str
    state: str = "planned"
    expected_seconds: float | None = None
    seconds: float = 0.0
    game: str = ""
    work_fraction: float | None = None      # the builder's count of the work done (None: not counted)
    work_remaining: float | None = None     # the builder's estimate of its seconds left (None: none)
    counted: float | None = None            # the work counted (the fraction's input; None: not counted)
    cpu_seconds: float | None = None        # CPU seconds its lane has spent on it (None: not measured)
    lane: int | None = None                 # the build lane it is built in
    nice: int | None = None                 # that lane's niceness while it builds it
    cores_ahead: list | None = None         # [(expected seconds, tasks side by side)] of its build still to go
    tasks: int | None = None                # the tasks its running steps run side by side now (None: not said)
    published_in: float | None = None       # planned: the builder's seconds until it is published (its lane's schedule)

    def __post_init__(self):
        if self.state not in STATES:
            raise ProgressError(f"variant {self.variant!r}: state {self.state!r} is not one of {', '.join(STATES)}")
        self.game = self.game or game_of(self.variant)

    @property
    def fraction(self) -> float | None:
        """Estimated fraction of this store built: 1 when published, None when there is no estimate."""
        if self.state == "done":
            return 1.0
        if self.state == "planned":
            return 0.0
        if self.work_fraction is not None:
            return min(MAX_FRACTION, max(0.0, self.work_fraction))
        if not self.expected_seconds:
            return None
        return min(MAX_FRACTION, max(0.0, self.seconds / self.expected_seconds))

    def remaining_seconds(self) -> float | None:
        """Estimated seconds of work left on this store (None: unknown)."""
        if self.state in ("done", "failed"):
            return 0.0
        if self.state == "building" and self.work_fraction is not None:
            return self.work_remaining
        if self.expected_seconds is None:
            return None
        return max(0.0, self.expected_seconds - self.seconds) if self.state == "building" else self.expected_seconds


@dataclass
class BuildProgress:
    variants: list[VariantProgress]
    state: str = "building"
    message: str = ""
    pid: int = 0
    host: str = ""
    started: str = ""
    updated: float = 0.0
    extra: dict = field(default_factory=dict)
    idle_seconds: float | None = None       # the machine's idle core seconds when written (what the estimate read)

    def __post_init__(self):
        if self.state not in BUILD_STATES:
            raise ProgressError(f"build state {self.state!r} is not one of {', '.join(BUILD_STATES)}")

    # ------------------------------------------------------------------ what readers show
    def stale(self, now: float | None = None) -> bool:
        return self.state == "building" and (now or time.time()) - self.updated > STALE_SECONDS

    @property
    def running(self) -> bool:
        """The build is going on (written recently, not finished)."""
        return self.state == "building" and not self.stale()

    def pending(self) -> list[VariantProgress]:
        """The variants still to come while the build runs (building first, then planned), else none."""
        if not self.running:
            return []
        return [v for v in self.variants if v.state == "building"] + [v for v in self.variants if v.state == "planned"]

    def eta_seconds(self, variant: str) -> float | None:
        """Estimated seconds until ``variant`` is published: its own remaining time and that of every store
        built before it (a store being built: its own; a build in lanes builds several at once); None when one
        of them has no estimate."""
        pending = self.pending()
        for v in pending:
            if v.variant == variant and v.state == "building":   # its own time, whatever the other lanes build
                return v.remaining_seconds()
        for v in pending:
            if v.variant == variant and v.state == "planned" and v.published_in is not None:
                return v.published_in       # the builder's schedule of its lanes says when
        total = 0.0
        for v in pending:
            left = v.remaining_seconds()
            if left is None:
                return None
            total += left
            if v.variant == variant:
                return total
        return None

    def summary(self, now: float | None = None) -> list[dict]:
        """The pending variants as plain dicts (variant, game, state, fraction, eta_seconds) as of ``now`` (unix
        seconds, default the clock's): a store of a few seconds being built carried from the file's time
        (``carried``)."""
        age = (time.time() if now is None else now) - self.updated
        out = []
        for v in self.pending():
            eta = self.eta_seconds(v.variant)
            frac = v.fraction
            if v.state == "building":
                frac, eta = carried(v.seconds, frac, eta, age)
            out.append({"variant": v.variant, "game": v.game, "state": v.state,
                        "fraction": None if frac is None else round(frac, 3),
                        "eta_seconds": None if eta is None else round(eta, 1)})
        return out

    # ------------------------------------------------------------------ file
    def to_json(self) -> dict:
        return {"format": FORMAT, "pid": self.pid, "host": self.host, "started": self.started,
                "updated": self.updated, "state": self.state, "message": self.message,
                "variants": [{"variant": v.variant, "game": v.game, "state": v.state,
                              "expected_seconds": v.expected_seconds, "seconds": round(v.seconds, 3),
                              **({} if v.work_fraction is None else {
                                  "fraction": round(v.work_fraction, 4),
                                  "remaining_seconds": None if v.work_remaining is None else round(v.work_remaining, 1)}),
                              **({} if v.counted is None else {"counted": round(v.counted, 4)}),
                              **({} if v.cpu_seconds is None else {"cpu_seconds": round(v.cpu_seconds, 2)}),
                              **({} if v.lane is None else {"lane": v.lane}),
                              **({} if v.nice is None else {"nice": v.nice}),
                              **({} if not v.cores_ahead else {
                                  "cores_ahead": [[round(w, 1), n] for w, n in v.cores_ahead]}),
                              **({} if v.tasks is None else {"tasks": v.tasks}),
                              **({} if v.published_in is None or v.state != "planned" else {
                                  "published_in": round(v.published_in, 1)})}
                             for v in self.variants],
                **({} if self.idle_seconds is None else {"idle_seconds": round(self.idle_seconds, 2)})}

    @classmethod
    def from_json(cls, data) -> "BuildProgress":
        if not isinstance(data, dict):
            raise ProgressError(f"expected a JSON object, got {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise ProgressError(f"format {data.get('format')!r} is not the supported {FORMAT}")
        try:
            variants = [VariantProgress(variant=str(v["variant"]), state=v.get("state", "planned"),
                                        expected_seconds=None if v.get("expected_seconds") is None
                                        else float(v["expected_seconds"]),
                                        seconds=float(v.get("seconds") or 0.0), game=str(v.get("game") or ""),
                                        work_fraction=_number(v.get("fraction")),
                                        work_remaining=_number(v.get("remaining_seconds")),
                                        counted=_number(v.get("counted")), cpu_seconds=_number(v.get("cpu_seconds")),
                                        lane=None if v.get("lane") is None else int(v["lane"]),
                                        nice=None if v.get("nice") is None else int(v["nice"]),
                                        cores_ahead=_parts(v.get("cores_ahead")),
                                        tasks=None if v.get("tasks") is None else int(v["tasks"]),
                                        published_in=_number(v.get("published_in")))
                        for v in data.get("variants", [])]
            return cls(variants=variants, state=data.get("state", "building"), message=str(data.get("message", "")),
                       pid=int(data.get("pid") or 0), host=str(data.get("host", "")),
                       started=str(data.get("started", "")), updated=float(data.get("updated") or 0.0),
                       idle_seconds=_number(data.get("idle_seconds")))
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, ProgressError):
                raise
            raise ProgressError(f"malformed entry ({type(e).__name__}: {e})") from None

    def write(self, root: str | Path) -> Path:
        """Replace the root's progress file atomically (stamping ``updated``)."""
        self.updated = time.time()
        path = progress_path(root)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{FILE_NAME}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1))
        os.replace(tmp, path)
        return path

    @classmethod
    def start(cls, variants: list[tuple[str, float | None]]) -> "BuildProgress":
        """A new build's progress: every variant planned, in build order, with its expected seconds."""
        return cls([VariantProgress(v, expected_seconds=s) for v, s in variants], pid=os.getpid(),
                   host=socket.gethostname(), started=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))


def carried(seconds: float, fraction: float | None, eta: float | None,
            age: float) -> tuple[float | None, float | None]:
    """A store's (fraction, time left) said ``age`` seconds ago, as of now: where its whole build is estimated under
    ``SHORT_STORE_SECONDS`` (``seconds`` + ``eta``), its time left less ``age`` and its fraction moved on as far over
    its rest (``fraction + (1 - fraction) * age / eta``: seconds / (seconds + time left) carried, for a store whose
    fraction is that share); else as said. ``age`` at most ``MAX_CARRY_SECONDS``. Replayed on the recorded make serve
    traces (``bench.build_progress --replay``), carrying every store's figures put the 3-letter Jotto store's (31-35
    s, its time left read ahead of its compiles) within 0.10 at 1-2 fewer samples of three traces."""
    if fraction is None or eta is None or eta <= 0 or age <= 0 or seconds + eta >= SHORT_STORE_SECONDS:
        return fraction, eta
    age = min(age, MAX_CARRY_SECONDS)
    return min(MAX_FRACTION, fraction + (1.0 - fraction) * min(1.0, age / eta)), max(0.0, eta - age)


def _number(x) -> float | None:
    return None if x is None else float(x)


def _parts(x) -> list | None:
    return None if not x else [(float(w), int(n)) for w, n in x]


def read_progress(root: str | Path) -> BuildProgress | None:
    """The root's build progress; None when there is no file. ProgressError when it cannot be read as one."""
    path = progress_path(root)
    try:
        raw = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ProgressError(f"{path}: {e}") from None
    try:
        data = json.loads(raw)
    except ValueError as e:
        raise ProgressError(f"{path}: not JSON ({e})") from None
    try:
        return BuildProgress.from_json(data)
    except ProgressError as e:
        raise ProgressError(f"{path}: {e}") from None


# ---------------------------------------------------------------------- measured build times
TIMES_FILE = ".work/measured-seconds.json"  # not build-*.json: those are the journals a finished build drops


def measured_seconds(root: str | Path) -> dict[str, float]:
    """The last measured build time of each variant built into this root ({} if none or unreadable)."""
    try:
        data = json.loads((Path(root) / TIMES_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float))} if isinstance(data, dict) else {}


def record_seconds(root: str | Path, variant: str, seconds: float) -> None:
    times = measured_seconds(root)
    times[variant] = round(seconds, 1)
    path = Path(root) / TIMES_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(times, indent=1, sort_keys=True))
    os.replace(tmp, path)
