"""What the build progress said against what the build did: each store's fraction and time left, as ``/readyz``
reports them, sampled every few seconds during a build, then compared with the store's real progress, the share of
its wall elapsed at the sample (from the build log's time-stamped ``build started`` and ``published, built in N s``
lines, ``builder.progress.ProgressReporter``).

    nice -n 5 python -m bench.build_progress --root /tmp/bp [--variant dudo-5dice-default] [--every 5]
    python -m bench.build_progress --watch http://127.0.0.1:8080 --log stores/.work/serve-build.log
    python -m bench.build_progress --samples FILE.jsonl --log BUILD.log
    python -m bench.build_progress --steps --log BUILD.log
    python -m bench.build_progress --replay TRACE.jsonl --log BUILD.log

The first starts ``python -m builder --profile default --variant ...`` on the empty root ``--root`` (numba's cache in a
new directory under it, cold as a fresh clone's) and reads its progress file as the server does (the figures
``/readyz`` gives); the second watches a running ``make serve`` through its ``/readyz`` until nothing is being built;
the third compares samples recorded by either (``<root>/.work/progress-samples.jsonl``, or ``--record FILE``) again;
the fourth prints each store's step walls from the log's step lines (what ``builder.step_seconds`` records); the fifth
plays a recorded build's counts (the progress file's ``counted``, ``cpu_seconds``, ``lane``, ``nice``, ``cores_ahead``,
``tasks`` and ``idle_seconds`` at each write, as ``--trace FILE`` records them beside ``--root`` or ``--watch``) through the
lanes' forecast (``builder.lane_forecast``) of this code, and compares what it would have said.

For each store built: its wall, the samples taken while it was being built, the worst gap between the fraction
said and the true one (and where in the build it was), the share of samples within 0.10, the same for the time
left (|said - true time left| / the store's wall; a sample without one is not within), and the fraction's mean gap
over each tenth of the build (what a calibration of the weights reads: ``builder.dudo_estimate``,
``builder.step_seconds``).
docs/operations.md has the runs.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

TOLERANCE = 0.10
TENTHS = 10
# a line of the builder's log: its time of day, then ``VARIANT: build started`` or ``VARIANT: published, built in N s``
_LINE = re.compile(r"^(\d\d):(\d\d):(\d\d) (\S+): (?:(build started)|published, built in ([0-9.]+) s)\s*$")
# a step's start or end (``builder.steps``): ``VARIANT: STEP started (N steps); the store about P% built``, ``... done``
_STEP = re.compile(r"^(\d\d):(\d\d):(\d\d) (\S+): (.+?) (started|done)(?: \(.*\))?; the store about \d+% built\s*$")
SHORTEST_STEP = 0.5     # a step that started and ended within the log's second
TRACE_POLL_SECONDS = 0.5    # --trace reads the progress file this often between samples (the build writes it every 2 s)


@dataclass
class Sample:
    t: float                    # unix seconds of the figures
    variant: str
    fraction: float | None      # None: no estimate
    eta: float | None           # seconds until it is published, None: no estimate


@dataclass
class Wall:
    start: float
    end: float
    uncertainty: float = 0.0    # seconds the start (and so every sample's true fraction) may be off by

    @property
    def seconds(self) -> float:
        return self.end - self.start


# ---------------------------------------------------------------------- the log
def _stamp(hms: tuple[int, int, int], near: float) -> float:
    """Unix seconds of a local time of day: the one of the days around ``near`` nearest to it."""
    day = datetime.datetime.fromtimestamp(near).date()
    times = [datetime.datetime.combine(day + datetime.timedelta(days=d), datetime.time(*hms)).timestamp()
             for d in (-1, 0, 1)]
    return min(times, key=lambda t: abs(t - near))


def store_walls(log_text: str, near: float) -> dict[str, list[Wall]]:
    """{variant: [its builds' walls]} of every store the log shows started and published (a store started and not
    published, an interrupted build, has none); local times of day read as the days around ``near``.

    A wall is the build time the published line states (tenths of a second); its start, which the lines' whole-second
    stamps give only to the second, is the middle of the times both stamps allow (the start within its second, the
    end within its own, the two that time apart), off by at most ``uncertainty`` (half a second or less)."""
    started: dict[str, float] = {}
    out: dict[str, list[Wall]] = {}
    for line in log_text.replace("\r", "\n").splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        t = _stamp((int(m[1]), int(m[2]), int(m[3])), near)
        if m[5]:
            started[m[4]] = t
        elif m[4] in started:
            t0, seconds = started.pop(m[4]), float(m[6])
            lo, hi = max(t0, t - seconds), min(t0 + 1.0, t + 1.0 - seconds)
            if lo > hi:             # stamps and time that disagree: the stamps as they are
                lo, hi, seconds = t0, t0, t - t0
            out.setdefault(m[4], []).append(Wall((lo + hi) / 2, (lo + hi) / 2 + seconds, (hi - lo) / 2))
    return out


def step_walls(log_text: str) -> dict[str, dict[str, float]]:
    """{variant: {step: wall seconds}} of each store's last build in the log, from its steps' start and end lines (a
    step within one second of the log's stamps: ``SHORTEST_STEP``), in the order the steps ran: what
    ``builder.step_seconds`` records."""
    out: dict[str, dict[str, float]] = {}
    begun: dict[tuple[str, str], int] = {}
    for line in log_text.replace("\r", "\n").splitlines():
        m = _LINE.match(line)
        if m and m[5]:                          # a new build of this store: its earlier steps go
            out.pop(m[4], None)
            continue
        m = _STEP.match(line)
        if not m:
            continue
        t = 3600 * int(m[1]) + 60 * int(m[2]) + int(m[3])
        if m[6] == "started":
            begun[(m[4], m[5])] = t
        elif (m[4], m[5]) in begun:
            wall = (t - begun.pop((m[4], m[5]))) % 86400
            out.setdefault(m[4], {})[m[5]] = max(SHORTEST_STEP, float(wall))
    return out


def format_steps(walls: dict[str, dict[str, float]]) -> str:
    return "\n".join(f"{v}: {json.dumps(steps)}" for v, steps in walls.items())


# ---------------------------------------------------------------------- the comparison
@dataclass
class StoreGaps:
    variant: str
    wall: float
    samples: int
    worst_fraction: float | None = None     # the said fraction less the true one, largest in size
    worst_fraction_at: float | None = None  # the true fraction there
    fraction_within: int = 0                # samples whose fraction is within the tolerance (one not said is not)
    fraction_counted: int = 0               # samples with a fraction
    worst_eta: float | None = None          # (said time left less the true one) / the store's wall
    worst_eta_at: float | None = None
    eta_within: int = 0                     # samples whose time left is within the tolerance (one not said is not)
    eta_counted: int = 0                    # samples
    eta_missing: int = 0                    # samples without a time left
    by_tenth: tuple = ()                    # mean fraction gap over each tenth of the build (None: no sample)
    tolerance: float = TOLERANCE            # the tolerance, widened by the true fraction's uncertainty


def compare(samples: list[Sample], walls: dict[str, list[Wall]], tolerance: float = TOLERANCE) -> list[StoreGaps]:
    """Each store's gaps between the samples taken during one of its builds and its real progress then."""
    out = []
    for variant, builds in walls.items():
        for w in builds:
            mine = [s for s in samples if s.variant == variant and w.start <= s.t <= w.end]
            if mine:
                out.append(_gaps(variant, w, mine, tolerance))
    return out


def _gaps(variant: str, w: Wall, samples: list[Sample], tolerance: float) -> StoreGaps:
    g = StoreGaps(variant, w.seconds, len(samples))
    tenths: list[list[float]] = [[] for _ in range(TENTHS)]
    if w.seconds > 0:       # the true fraction is known to the start's uncertainty: a short build's sample is
        tolerance += w.uncertainty / w.seconds      # judged within that too
    g.tolerance = tolerance
    for s in samples:
        true = (s.t - w.start) / w.seconds if w.seconds > 0 else 1.0
        if s.fraction is not None:
            gap = s.fraction - true
            g.fraction_counted += 1
            g.fraction_within += abs(gap) <= tolerance
            tenths[min(TENTHS - 1, int(true * TENTHS))].append(gap)
            if g.worst_fraction is None or abs(gap) > abs(g.worst_fraction):
                g.worst_fraction, g.worst_fraction_at = gap, true
        if w.seconds <= 0:
            continue
        g.eta_counted += 1
        if s.eta is None:
            g.eta_missing += 1
        else:
            gap = (s.eta - (w.end - s.t)) / w.seconds
            g.eta_within += abs(gap) <= tolerance
            if g.worst_eta is None or abs(gap) > abs(g.worst_eta):
                g.worst_eta, g.worst_eta_at = gap, true
    g.by_tenth = tuple(sum(x) / len(x) if x else None for x in tenths)
    return g


def format_table(gaps: list[StoreGaps], tolerance: float = TOLERANCE) -> str:
    def share(k: int, n: int) -> str:
        return f"{k}/{n} ({100 * k / n:.0f} %)" if n else "-"

    def worst(gap, at) -> str:
        return "-" if gap is None else f"{gap:+.3f} at {at:.2f}"

    head = (f"{'store':<28} {'wall s':>7} {'samples':>7}  {'fraction: worst gap':>21} {f'within {tolerance:.2f}':>15}"
            f"  {'time left: worst':>18} {f'within {tolerance:.2f}':>15} {'none':>5} {'tol':>5}")
    lines = [head]
    for g in gaps:
        lines.append(f"{g.variant:<28} {g.wall:>7.0f} {g.samples:>7}  {worst(g.worst_fraction, g.worst_fraction_at):>21}"
                     f" {share(g.fraction_within, g.samples):>15}  {worst(g.worst_eta, g.worst_eta_at):>18}"
                     f" {share(g.eta_within, g.eta_counted):>15} {g.eta_missing:>5} {g.tolerance:>5.2f}")
    lines.append("gap: said less true ('at': the true fraction then, the share of the store's wall elapsed); the time "
                 "left's gap as a share of the store's wall, |said - true time left| / wall, every sample counted "
                 "(one without a time left, 'none', is not within); 'tol': the tolerance, widened by the true "
                 "fraction's uncertainty (the log's whole-second stamps: at most 0.5 s / wall)")
    lines.append("the fraction's mean gap over each tenth of the build:")
    for g in gaps:
        lines.append(f"  {g.variant:<26} " + " ".join("    -" if x is None else f"{x:+.2f}" for x in g.by_tenth))
    return "\n".join(lines)


# ---------------------------------------------------------------------- sampling
def building_samples(entries: list[dict], t: float) -> list[Sample]:
    """The samples of /readyz's (or the progress file's summary's) ``building`` entries being built (not planned);
    -1 or null: no estimate."""
    def num(x):
        return None if x is None or x < 0 else float(x)

    return [Sample(t, e["variant"], num(e.get("fraction")), num(e.get("eta_seconds")))
            for e in entries if e.get("state") == "building"]


def read_readyz(url: str, timeout: float = 5.0) -> list[dict] | None:
    """/readyz's ``building`` entries (None: no answer)."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/readyz", timeout=timeout) as r:
            body = r.read()
    except urllib.error.HTTPError as e:     # 503 before the first store: the same body
        body = e.read()
    except (OSError, ValueError):
        return None
    try:
        return json.loads(body).get("building", [])
    except (ValueError, AttributeError):
        return None


def read_file(root: Path) -> tuple[float, list[dict], bool] | None:
    """(its time, its summary, the build still running) of the root's progress file (None: none yet)."""
    from games.buildprogress import ProgressError, read_progress

    try:
        p = read_progress(root)
    except ProgressError:
        return None
    if p is None:
        return None
    return p.updated, p.summary(), p.state == "building"


def record(samples: list[Sample], path: Path) -> None:
    with open(path, "a") as f:
        for s in samples:
            f.write(json.dumps(asdict(s)) + "\n")


def record_rows(rows: list[dict], path: Path) -> None:
    with open(path, "a") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def load_samples(path: Path) -> list[Sample]:
    return [Sample(**json.loads(line)) for line in Path(path).read_text().splitlines() if line.strip()]


def sample_build(root: Path, variants: list[str], profile: str, every: float, record_to: Path,
                 numba_cache: Path, trace_to: Path | None = None, lanes: int = 1) -> tuple[list[Sample], Path, int]:
    """Run the build on ``root``, sampling its progress file every ``every`` seconds: (samples, its log, exit code)."""
    work = root / ".work"
    work.mkdir(parents=True, exist_ok=True)
    log = work / "build.log"
    cmd = [sys.executable, "-m", "builder", "--profile", profile, "--root", str(root), "--fresh", "--lanes", str(lanes)]
    for v in variants:
        cmd += ["--variant", v]
    env = dict(os.environ, NUMBA_CACHE_DIR=str(numba_cache))
    samples: list[Sample] = []
    last = None
    with open(log, "ab") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=out, env=env)
        try:
            while True:
                running = proc.poll() is None
                got = read_file(root)
                if got is not None and got[0] != last:
                    last = got[0]
                    new = building_samples(got[1], got[0])
                    samples += new
                    record(new, record_to)
                    if trace_to is not None:
                        record_rows(trace_rows(root, got[0]), trace_to)
                if not running:
                    break
                _wait_tracing(every, trace_to, root)
        finally:        # Ctrl-C or SIGTERM here: the build stops too (at its next checkpoint)
            if proc.poll() is None:
                proc.terminate()
                proc.wait()
    return samples, log, proc.returncode


def watch(url: str, every: float, record_to: Path | None, give_up: float, trace_to: Path | None = None,
          root: Path | None = None) -> list[Sample]:
    """/readyz's building stores every ``every`` seconds until none is left (after one was seen, at three samples
    in a row) or nothing answers for ``give_up`` seconds; ``trace_to``: the progress file's counts of ``root`` too."""
    samples: list[Sample] = []
    seen, quiet_since, empty = False, time.time(), 0
    while True:
        t = time.time()
        entries = read_readyz(url)
        if entries is None:
            if t - quiet_since > give_up:
                return samples
        else:
            quiet_since = t
            new = building_samples(entries, t)
            samples += new
            if record_to is not None:
                record(new, record_to)
            if trace_to is not None and root is not None:
                record_rows(trace_rows(root, t), trace_to)
            seen = seen or bool(entries)
            empty = 0 if entries else empty + 1
            if seen and empty >= 3:
                return samples
        _wait_tracing(every, trace_to if root is not None else None, root)


def _wait_tracing(seconds: float, trace_to: Path | None, root: Path | None) -> None:
    """Wait ``seconds``; with a trace, record each write of the root's progress file meanwhile too (``sampled``
    None: no sample beside it), so that a replay observes the lanes as often as the build did (every heartbeat and
    each store's start, where a sample comes every 5 s)."""
    end = time.monotonic() + seconds
    if trace_to is None or root is None:
        time.sleep(seconds)
        return
    got = read_file(root)
    last = None if got is None else got[0]
    while (left := end - time.monotonic()) > 0:
        time.sleep(min(TRACE_POLL_SECONDS, left))
        rows = trace_rows(root)
        if rows and rows[0]["t"] != last:
            last = rows[0]["t"]
            record_rows(rows, trace_to)


# ---------------------------------------------------------------------- a recorded build played again
def trace_rows(root: Path, sampled: float | None = None) -> list[dict]:
    """The progress file's stores being built, each with the file's time and idle seconds and ``sampled``, the time
    the sample beside it was taken (the figures /readyz gave then are the file's, up to a heartbeat older); [] with
    no file yet."""
    from games.buildprogress import ProgressError, read_progress

    try:
        p = read_progress(root)
    except ProgressError:
        return []
    if p is None:
        return []
    return [{"t": p.updated, "idle_seconds": p.idle_seconds, "variant": v.variant, "seconds": v.seconds,
             "counted": v.counted, "cpu_seconds": v.cpu_seconds, "lane": v.lane, "nice": v.nice,
             "cores_ahead": v.cores_ahead, "tasks": v.tasks,
             "fraction": v.fraction, "eta": v.remaining_seconds(), "sampled": sampled}
            for v in p.variants if v.state == "building"]


def replay(rows: list[dict], build_nice: int = 10, cores: float = 2.0) -> list[Sample]:
    """What this code's forecast would have said at each recorded write of a build's progress file (``rows``: its
    stores being built, as ``trace_rows`` gives them), stamped when the sample was taken (a row's ``sampled``: /readyz
    read then, the write's figures up to a heartbeat and the server's second older, carried to then as /readyz carries
    them, ``games.buildprogress.carried``; a row of an older trace: its write). Each lane's CPU count is rebuilt from its stores' (the running one's, and each finished one's to the next
    store's start, at the pace of its last rows), and observed at each store's start too, as the build observes it
    (``builder.progress.ProgressReporter.started``): a side lane's first row then has the rate the build read. Its
    stores in the order the lanes built them, each store's expected CPU and wall seconds those of the default profile.
    A row without its lane's niceness (an older trace) takes the rule the build follows: the last lane at the
    build's, the others at 19 after the first store."""
    from builder.lane_forecast import Counted, LaneForecast
    from builder.profiles import DEFAULT, EXPECTED_SECONDS
    from builder.progress import rests_by_tasks, steps_cpu_seconds, steps_seconds
    from builder.time_left import TimeLeft
    from games.buildprogress import carried

    rows = [r for r in rows if r.get("lane") is not None and r.get("counted") is not None]
    lanes: dict[int, list[str]] = {}
    for r in rows:
        if r["variant"] not in lanes.setdefault(r["lane"], []):
            lanes[r["lane"]].append(r["variant"])
    plan = [v for lane in sorted(lanes) for v in lanes[lane]]
    wall = {v: steps_seconds(v, DEFAULT[v]) or EXPECTED_SECONDS.get(v) if v in DEFAULT else None for v in plan}
    cpu = {v: steps_cpu_seconds(v, DEFAULT[v]) if v in DEFAULT else None for v in plan}
    now = [0.0]
    forecast = LaneForecast([lanes[k] for k in sorted(lanes)], cpu, wall, clock=lambda: now[0],
                            rest_by_tasks=rests_by_tasks({v: DEFAULT[v] for v in plan if v in DEFAULT}))
    first_store = plan and lanes[min(lanes)][0]
    # a store of a side lane but the first has no time left of its own, as in the build (``builder.__main__``)
    own = {v: TimeLeft(_own_prior(v, wall[v], len(lanes) > 1) if v == first_store or v in lanes[max(lanes)] else None)
           for v in plan}
    counts = _LaneCounts()
    writes: dict[float, dict[str, dict]] = {}      # a write's stores, each row once
    sampled: dict[float, list[float]] = {}          # the times a sample was taken beside each write
    seen: dict[tuple, int] = {}
    for r in rows:
        writes.setdefault(r["t"], {}).setdefault(r["variant"], r)
        if "sampled" not in r:                      # an older trace: a sample at each row of a write
            seen[(r["t"], r["variant"])] = n = seen.get((r["t"], r["variant"]), 0) + 1
            if n > len(sampled.setdefault(r["t"], [])):
                sampled[r["t"]].append(r["t"])
        elif r["sampled"] is not None and r["sampled"] not in sampled.setdefault(r["t"], []):
            sampled[r["t"]].append(r["sampled"])
    out = []
    for t, by_variant in sorted(writes.items()):
        written = list(by_variant.values())
        for r in written:
            if not counts.seen(r["variant"]):       # its start: the build observed its lane then
                start = t - r["seconds"]
                nice = _nice(r, lanes, first_store, build_nice)
                if counts.start(r["lane"], r["variant"], start):
                    now[0] = start
                    forecast.observe_lane(r["lane"], counts.lane(r["lane"]), nice, cores)
        now[0] = t
        running = []
        for r in written:
            v, lane = r["variant"], r["lane"]
            counts.count(lane, v, t, r["cpu_seconds"] or 0.0)
            forecast.observe_lane(lane, counts.lane(lane), _nice(r, lanes, first_store, build_nice), cores)
            running.append(Counted(v, lane, r["seconds"], r["counted"], r["cpu_seconds"],
                                   own[v](r["seconds"], r["counted"]), r.get("cores_ahead"), own[v].expected))
        forecast.observe_machine(written[0].get("idle_seconds"))
        planned = set(plan) - counts.started - {c.variant for c in running}
        said = forecast.estimate(running, planned)
        for at in sampled.get(t, []):               # a write between samples (``sampled`` None): observed only
            for c in running:               # as /readyz gave the write's figures when the sample was taken
                fraction, left = carried(c.seconds, *said.get(c.variant, (c.counted, c.wall_left)), at - t)
                out.append(Sample(at, c.variant, fraction, left))
    return out


def _own_prior(variant: str, wall: float | None, beside_lanes: bool) -> float | None:
    """The expected seconds a store's own time left starts from in the build (``ProgressReporter._prior`` on a fresh
    root): its steps' own, Dudo's from its groups' measured walls (``builder.dudo_progress.DudoWork``), else
    ``wall``."""
    from builder.dudo_progress import DudoWork
    from builder.profiles import DEFAULT
    from games.dudo.build.params import DudoParams

    params = DEFAULT.get(variant)
    if isinstance(params, DudoParams):
        return DudoWork(params, Path(), default=True, beside_lanes=beside_lanes).expected_seconds()
    return wall


def _nice(row: dict, lanes: dict[int, list[str]], first_store: str, build_nice: int) -> int:
    nice = row.get("nice")
    if nice is None:
        nice = build_nice if row["lane"] == max(lanes) or row["variant"] == first_store else 19
    return nice


class _LaneCounts:
    """Each lane's CPU count as the build reads it, rebuilt from its stores' recorded counts: a finished store's
    count runs on, at the pace of its last two rows, to the next store's start (the trace's last row of it is up to a
    sample before its end)."""

    def __init__(self):
        self.started: set[str] = set()
        self._done: dict[int, float] = {}           # the lane's finished stores' CPU seconds
        self._last: dict[int, tuple] = {}           # lane -> (its running store, [(t, its cpu), ...] last two)

    def seen(self, variant: str) -> bool:
        return variant in self.started

    def start(self, lane: int, variant: str, at: float) -> bool:
        """A store starts in the lane at ``at``: its earlier store's count runs on to then. False where ``at`` is
        not after the lane's last row (the trace's first row of it came late)."""
        self.started.add(variant)
        rows = self._last.get(lane, (None, []))[1]
        if rows and at <= rows[-1][0]:
            self._done[lane] = self._done.get(lane, 0.0) + rows[-1][1]
            self._last[lane] = (variant, [])
            return False
        if rows:
            end = rows[-1][1]
            if len(rows) == 2 and rows[1][0] > rows[0][0]:
                end += max(0.0, (rows[1][1] - rows[0][1]) / (rows[1][0] - rows[0][0])) * (at - rows[1][0])
            self._done[lane] = self._done.get(lane, 0.0) + end
        self._last[lane] = (variant, [])
        return True

    def count(self, lane: int, variant: str, t: float, cpu: float) -> None:
        rows = self._last.setdefault(lane, (variant, []))[1]
        rows.append((t, cpu))
        del rows[:-2]

    def lane(self, lane: int) -> float:
        rows = self._last.get(lane, (None, []))[1]
        return self._done.get(lane, 0.0) + (rows[-1][1] if rows else 0.0)


def load_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


# ---------------------------------------------------------------------- the command
class _Parser(argparse.ArgumentParser):
    def error(self, message):   # one line, not the usage too
        print(f"{self.prog}: {message}", file=sys.stderr)
        sys.exit(2)


def parse_args(argv):
    ap = _Parser(prog="python -m bench.build_progress", description=__doc__.splitlines()[0])
    how = ap.add_mutually_exclusive_group(required=True)
    how.add_argument("--root", type=Path, help="build on this empty store root and sample its progress file")
    how.add_argument("--watch", metavar="URL", help="sample a running server's /readyz (e.g. http://127.0.0.1:8080)")
    how.add_argument("--samples", type=Path, help="compare samples recorded before (JSON lines)")
    how.add_argument("--steps", action="store_true",
                     help="print each store's step walls from --log (what builder.step_seconds records)")
    how.add_argument("--replay", type=Path, metavar="TRACE",
                     help="play a recorded build's counts (--trace's file) through this code's forecast")
    ap.add_argument("--log", type=Path, help="the build's log (--watch, --samples; make serve's: stores/.work/serve-build.log)")
    ap.add_argument("--variant", action="append", default=[], help="--root: build these (default: dudo-5dice-default)")
    ap.add_argument("--profile", default="default", help="--root: the builder's profile")
    ap.add_argument("--every", type=float, default=5.0, help="seconds between samples (default 5)")
    ap.add_argument("--record", type=Path, help="append the samples to this file (--root: <root>/.work/progress-samples.jsonl)")
    ap.add_argument("--give-up", type=float, default=120.0, help="--watch: stop after this long without an answer")
    ap.add_argument("--trace", type=Path, help="--root, --watch: append the progress file's counts to this file at each "
                    "sample (--watch: the file of the root whose .work holds --log), for --replay")
    ap.add_argument("--lanes", type=int, choices=(1, 2, 3), default=1, help="--root: the builder's lanes")
    args = ap.parse_args(argv)
    if args.every <= 0:
        ap.error(f"--every {args.every:g}: must be positive")
    if (args.watch or args.samples or args.steps or args.replay) and args.log is None:
        ap.error("--watch, --samples, --steps and --replay need --log, the build's log")
    if args.replay is not None and not args.replay.is_file():
        ap.error(f"--replay {args.replay}: no such file")
    if args.samples is not None and not args.samples.is_file():
        ap.error(f"--samples {args.samples}: no such file")
    if args.log is not None and not args.log.is_file() and not args.watch:
        ap.error(f"--log {args.log}: no such file")
    if args.root is not None and args.root.exists() and any(args.root.iterdir()):
        ap.error(f"--root {args.root}: not empty (a fresh build needs an empty root)")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.steps:
        walls = step_walls(args.log.read_text(errors="replace"))
        if not walls:
            print(f"bench.build_progress: {args.log} shows no step started and ended", file=sys.stderr)
            return 1
        print(format_steps(walls))
        return 0
    if args.root is not None:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))    # stops the build as Ctrl-C does
        args.root.mkdir(parents=True, exist_ok=True)
        record_to = args.record or args.root / ".work" / "progress-samples.jsonl"
        (args.root / ".work").mkdir(parents=True, exist_ok=True)
        samples, log, code = sample_build(args.root, args.variant or ["dudo-5dice-default"], args.profile, args.every,
                                          record_to, args.root / ".numba_cache", args.trace, args.lanes)
        if code != 0:
            print(f"bench.build_progress: the build failed (exit {code}); its log: {log}", file=sys.stderr)
            return 1
        print(f"samples: {record_to}; the build's log: {log}")
    elif args.watch:
        samples = watch(args.watch, args.every, args.record, args.give_up, args.trace, args.log.parent.parent)
        log = args.log
    elif args.replay:
        samples, log = replay(load_rows(args.replay)), args.log
    else:
        samples, log = load_samples(args.samples), args.log
    if not samples:
        print("bench.build_progress: no store was being built while sampling", file=sys.stderr)
        return 1
    try:
        text = Path(log).read_text(errors="replace")
    except OSError as e:
        print(f"bench.build_progress: {log}: {e.strerror}", file=sys.stderr)
        return 1
    gaps = compare(samples, store_walls(text, samples[0].t))
    if not gaps:
        print(f"bench.build_progress: {log} shows no store started and published while sampling", file=sys.stderr)
        return 1
    print(format_table(gaps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
