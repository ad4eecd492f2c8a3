"""gamestrategy-serve: serve at once and build the missing default stores beside the server.

  python -m launcher [--profile default] [--variant NAME ...] [--no-build] [--no-measure] [--build-log PATH]
                     [--stop-seconds 20] [-- SERVER ARGS ...]

Starts ``python -m server SERVER ARGS`` at once (on an empty store root it answers health and /readyz as not
ready until the first store is published) and ``python -m builder --profile default --missing-only`` beside
it in a process of its own at low priority (nice 10, its workers inheriting it; nice 19 in one lane; its session's
scheduling autogroup at nice 19, so that it yields to the server's session; no transparent huge pages, whose
faults stall the server's calls on the other core), smallest stores first. In three lanes (the default profile) the Dudo store and the 5-letter Jotto store are built beside
the others after the first store, and every lane but Dudo's goes down to nice 19 then, so that Dudo's chain of
groups keeps the cores and the Jotto, Guess Who and Hangman stores fill the cores it leaves idle.
Each store comes online as the build publishes it: the launcher sends the server SIGHUP (refresh now) when
the progress file (``<root>/.build-progress.json``) shows one more store done; the server's own polling
(--refresh-seconds) would find it too. The build's output goes to ``<root>/.work/serve-build.log``; here,
one line per store it starts and one when it ends.

Once the build has finished, ``python -m builder.measure_search --unmeasured`` measures the served policies whose
figures are not stated yet (Dudo's searched rounds: the lookahead responder against the searched policy, the whole
game from each round; tens of minutes on 2 cores) at nice 19 in the build's place and publishes them as new
versions of their stores, which the server loads (SIGHUP); until then GetStats says "not measured" there.
``--no-measure`` leaves it out.

Ctrl-C or SIGTERM stops both: the server gets SIGTERM (its --grace), the build SIGTERM (it stops at the next
checkpoint; a second SIGTERM after --stop-seconds, or at once on a second Ctrl-C, stops it at once; SIGKILL
after as long again, or on a third), and the next run resumes the build from its journal. When the server exits on its own, the build is stopped the same way
and the launcher exits with the server's code. A failed build is logged in one line and the server goes on
serving what is published. Both children die with the launcher even if it is killed (PR_SET_PDEATHSIG).

The store root is the server's ``--root`` if SERVER ARGS give one, else $GAMESTRATEGY_STORES, else stores/.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from games.buildprogress import ProgressError, read_progress
from games.parent_death import die_with_parent
from games.storage import stores_root

POLL_SECONDS = 0.5
PR_SET_THP_DISABLE = 41


class Logger:
    """One line per event on stderr, in the server's format (JSON by default, text with --log-format text)."""

    def __init__(self, fmt: str = "json"):
        self.fmt = fmt

    def __call__(self, level: str, message: str, **fields) -> None:
        now = time.time()
        if self.fmt == "json":
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"
            line = json.dumps({"time": stamp, "level": level, "logger": "gamestrategy.launcher", "pid": os.getpid(),
                               "message": message, **fields}, default=str)
        else:
            extra = " ".join(f"{k}={v}" for k, v in fields.items())
            line = (f"{time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(now))} {level} "
                    f"gamestrategy.launcher[{os.getpid()}]: {message}" + (f" ({extra})" if extra else ""))
        print(line, file=sys.stderr, flush=True)


def _server_dies_with_launcher() -> None:
    """In the server's process before exec: SIGTERM when the launcher dies (even by SIGKILL)."""
    die_with_parent(signal.SIGTERM)


def _lowest_autogroup(tries: int = 5) -> None:
    """In a new session on Linux: the session's scheduling autogroup at the lowest priority (best effort).

    With autogroups (``kernel.sched_autogroup_enabled``, the default of most distributions) every session is a
    group that gets an equal share of a busy core against the server's session, whatever its processes'
    niceness: the build's nice alone only orders its own processes. The group's own niceness (sched(7),
    ``/proc/<pid>/autogroup``) makes it yield to the server's group; the kernel takes one change per 100 ms
    from an unprivileged process, hence the retries."""
    for _ in range(tries):
        try:
            with open("/proc/self/autogroup", "w") as f:
                f.write("19")
            return
        except BlockingIOError:
            time.sleep(0.11)
        except OSError:  # no autogroups here
            return


def _no_huge_pages() -> None:
    """In a child before exec: no transparent huge pages for it and its children (Linux, best effort).

    numpy asks for huge pages for every large array (madvise); each first touch of one then zeroes, and may
    compact, 2 MB in the kernel, and on this kind of virtual machine those faults stall the server's book hits
    on the other core (docs/serving-while-building.md: p99 beside two processes churning memory
    1.98-22.23 ms with huge pages, 1.02-1.11 ms without, idle 1.14-1.58)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _low_priority(nice: int) -> Callable[[], None]:
    def preexec() -> None:
        die_with_parent(signal.SIGTERM)
        _lowest_autogroup()
        _no_huge_pages()
        try:
            os.nice(max(0, nice - os.nice(0)))  # to `nice`, whatever the launcher's own niceness (never higher)
        except OSError:
            pass
    return preexec


def server_option(args: list[str], name: str) -> str | None:
    """The value of ``--name V`` or ``--name=V`` in the server's arguments (the last one wins)."""
    value = None
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            value = args[i + 1]
        elif a.startswith(name + "="):
            value = a.split("=", 1)[1]
    return value


def _last_line(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            tail = f.read().decode(errors="replace")
    except OSError:
        return ""
    lines = [ln.strip() for ln in tail.replace("\r", "\n").splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def _notices(path: Path, offset: int) -> list[str]:
    """The builder's own one-line notices (``gamestrategy-build: ...``) in its log since ``offset``."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            text = f.read().decode(errors="replace")
    except OSError:
        return []
    return [ln.strip() for ln in text.replace("\r", "\n").splitlines() if ln.startswith("gamestrategy-build: ")]


def _stop_all(procs: dict[str, subprocess.Popen], seconds: float, log: Logger, received: list[int] = ()) -> dict[str, int]:
    """SIGTERM to each; after ``seconds`` SIGTERM again to those still running (the builder's "now"); after
    as long again SIGKILL to their process groups (their sessions: the build's workers too). Exit codes.
    A signal the launcher receives meanwhile (a second Ctrl-C) moves on to the next step at once."""
    for sig in (signal.SIGTERM, signal.SIGTERM, signal.SIGKILL):
        asked = len(received)
        running = {k: p for k, p in procs.items() if p.poll() is None}
        if not running:
            break
        for what, p in running.items():
            try:
                if sig == signal.SIGKILL:
                    log("WARNING", f"{what} did not stop; killing it", pid=p.pid)
                    os.killpg(p.pid, sig)
                else:
                    p.send_signal(sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and any(p.poll() is None for p in running.values()):
            if len(received) > asked:
                break
            time.sleep(0.05)
    return {k: p.wait() for k, p in procs.items()}


def run(server_cmd: list[str], build_cmd: list[str] | None, root: Path, build_log: Path | None = None,
        stop_seconds: float = 20.0, log: Logger | None = None, port_file: Path | None = None,
        build_nice: int = 19, measure_cmd: list[str] | None = None) -> int:
    """Run the server and the build beside it until the server stops (or SIGINT/SIGTERM); the server's code.
    The build runs at niceness ``build_nice``; once it has finished, ``measure_cmd`` (the served policies'
    figures, published as new store versions) at nice 19 in its place, stopped the same way.

    ``port_file``: the server's --port-file; the launcher sends SIGHUP only once it exists (before, the
    server may not have its handler yet, and SIGHUP's default action ends a process)."""
    log = log or Logger()
    if port_file is not None:
        port_file.unlink(missing_ok=True)
    received: list[int] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, _frame: received.append(signum))
    server = subprocess.Popen(server_cmd, preexec_fn=_server_dies_with_launcher, start_new_session=True)
    listening = (lambda: True) if port_file is None else port_file.exists
    log("INFO", "server started", pid=server.pid, root=str(root))
    build = None
    build_log = build_log or root / ".work" / "serve-build.log"
    if build_cmd:
        build_log.parent.mkdir(parents=True, exist_ok=True)
        log_offset = build_log.stat().st_size if build_log.exists() else 0
        with open(build_log, "ab") as out:
            out.write(f"\n==== {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {' '.join(build_cmd)}\n".encode())
            out.flush()
            build = subprocess.Popen(build_cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                     preexec_fn=_low_priority(build_nice), start_new_session=True)
        log("INFO", f"building the missing stores beside the server (nice {build_nice}, smallest first); "
            "each comes online when published", pid=build.pid, log=str(build_log))
    t0 = time.monotonic()
    seen: dict[str, str] = {}  # variant -> last state reported
    rc = None
    measuring = False
    while True:
        if received:
            log("INFO", "stopping the server" + (" and the build" if build is not None and build.poll() is None
                                                 else ""))
            break
        rc = server.poll()
        if rc is not None:
            log("ERROR" if rc else "INFO", "server exited" + ("; stopping the build (it resumes on the next run)"
                                                              if build is not None and build.poll() is None else ""),
                exit_code=rc)
            break
        if build is not None and not measuring:
            _watch_progress(root, seen, server, log, t0, listening)
            code = build.poll()
            if code is not None:
                _watch_progress(root, seen, server, log, t0, listening)
                if code == 0:
                    for line in _notices(build_log, log_offset):  # e.g. a present store built with other parameters
                        log("WARNING" if "other" in line else "INFO", line)
                    log("INFO", "build finished: every store of the profile is published",
                        seconds=round(time.monotonic() - t0, 1))
                else:
                    log("ERROR", f"build failed (exit {code}): {_last_line(build_log) or 'no output'}; serving "
                        f"what is published, the next run resumes", log=str(build_log))
                if listening():
                    _signal(server, signal.SIGHUP)
                build = None
                if code == 0 and measure_cmd:
                    build, measuring = _start_measurement(measure_cmd, build_log, log), True
        elif build is not None:
            code = build.poll()
            if code is not None:
                if code == 0:
                    log("INFO", _last_line(build_log) or "measured", log=str(build_log))
                    if listening():
                        _signal(server, signal.SIGHUP)
                else:
                    log("ERROR", f"measuring the served policies failed (exit {code}): "
                        f"{_last_line(build_log) or 'no output'}; their figures say 'not measured'", log=str(build_log))
                build = None
        time.sleep(POLL_SECONDS)
    what = "the measurement" if measuring else "the build"
    procs = {what: build} if build is not None and build.poll() is None else {}
    if rc is None:
        procs["the server"] = server
    received.clear()
    codes = _stop_all(procs, stop_seconds, log, received)
    if "the build" in codes:
        log("INFO", "build stopped; the next run resumes it", exit_code=codes["the build"])
    if "the measurement" in codes:
        log("INFO", "measurement stopped; the next run measures again", exit_code=codes["the measurement"])
    if rc is None:
        rc = codes["the server"]
        log("INFO", "server stopped", exit_code=rc)
        if rc == -signal.SIGTERM:   # ended by the signal it was sent (a second Ctrl-C can reach it as it exits)
            rc = 0
    return rc


def _start_measurement(cmd: list[str], build_log: Path, log: Logger) -> subprocess.Popen:
    with open(build_log, "ab") as out:
        out.write(f"\n==== {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {' '.join(cmd)}\n".encode())
        out.flush()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                preexec_fn=_low_priority(19), start_new_session=True)
    log("INFO", "measuring the served policies where no figure is stated yet (nice 19; Dudo's searched rounds, "
        "the whole game: tens of minutes on 2 cores); each is published as a new version of its store",
        pid=proc.pid, log=str(build_log))
    return proc


def _signal(proc: subprocess.Popen, sig: int) -> None:
    if proc.poll() is None:
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            pass


def _watch_progress(root: Path, seen: dict[str, str], server: subprocess.Popen, log: Logger, t0: float,
                    listening=lambda: True) -> bool:
    """Log each store the build starts and publishes (SIGHUP to the server on a publication); True if any."""
    try:
        progress = read_progress(root)
    except ProgressError:
        return False
    if progress is None or progress.updated < time.time() - (time.monotonic() - t0) - 5:
        return False  # none yet, or an earlier build's file
    published = False
    n = len(progress.variants)
    for i, v in enumerate(progress.variants, 1):
        if seen.get(v.variant) == v.state or v.state == "planned":
            continue
        seen[v.variant] = v.state
        if v.state == "building":
            exp = f"; about {round(v.expected_seconds)} s" if v.expected_seconds else ""
            log("INFO", f"building {v.variant} ({i} of {n}{exp})")
        elif v.state == "done":
            published = True
            log("INFO", f"published {v.variant} ({i} of {n}); the server loads it now",
                seconds=round(v.seconds, 1), since_start=round(time.monotonic() - t0, 1))
    if published and listening():  # else its first refresh (at start-up) finds the store
        _signal(server, signal.SIGHUP)
    return published


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    server_args: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, server_args = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(prog="gamestrategy-serve", description=__doc__.splitlines()[0],
                                 epilog="Arguments after -- go to the server (python -m server --help).")
    ap.add_argument("--profile", default="default", help="the builder's profile (default: default)")
    ap.add_argument("--variant", action="append", default=[],
                    help="build only these variants of the profile (repeatable; default: every missing one)")
    ap.add_argument("--no-build", action="store_true", help="only the server")
    ap.add_argument("--lanes", type=int, choices=(1, 2, 3), default=None,
                    help="the builder's lanes (default: 3 for the default profile, whose Dudo and 5-letter Jotto "
                         "stores are built beside the others; 1 otherwise, for memory)")
    ap.add_argument("--build-log", type=Path, help="the build's output (default: <root>/.work/serve-build.log)")
    ap.add_argument("--no-measure", action="store_true", help="after the build, do not measure the served "
                    "policies whose figures are not stated yet (python -m builder.measure_search --unmeasured)")
    ap.add_argument("--stop-seconds", type=float, default=20.0,
                    help="how long the build and the server get to stop before the next, harder signal")
    args = ap.parse_args(argv)
    if args.stop_seconds <= 0:
        ap.error("--stop-seconds must be > 0")
    root = Path(server_option(server_args, "--root") or stores_root())
    log = Logger(server_option(server_args, "--log-format") or os.environ.get("GAMESTRATEGY_LOG_FORMAT", "json"))
    py = sys.executable
    port_file = server_option(server_args, "--port-file")
    own_port_file = port_file is None
    if own_port_file:  # the launcher's own, to know when the server listens (and takes SIGHUP)
        port_file = str(root / ".work" / f"serve-ports-{os.getpid()}.json")
        Path(port_file).parent.mkdir(parents=True, exist_ok=True)
        server_args = [*server_args, "--port-file", port_file]
    lanes = args.lanes or (3 if args.profile == "default" else 1)
    build_cmd = None if args.no_build else [py, "-m", "builder", "--profile", args.profile, "--missing-only",
                                            "--lanes", str(lanes), "--root", str(root),
                                            *(a for v in args.variant for a in ("--variant", v))]
    try:
        # in lanes the build starts at nice 10 and all its lanes but the last go to 19 after the first store
        measure_cmd = None if args.no_measure else [py, "-m", "builder.measure_search", "--root", str(root),
                                                    "--unmeasured"]
        return run([py, "-m", "server", *server_args], build_cmd, root, args.build_log, args.stop_seconds, log,
                   Path(port_file), build_nice=10 if lanes > 1 else 19, measure_cmd=measure_cmd)
    finally:
        if own_port_file:
            Path(port_file).unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
