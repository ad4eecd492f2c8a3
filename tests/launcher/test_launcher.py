"""The launcher (`make serve`): server and build as processes of their own; the build stops when the server
stops (or on SIGTERM), a failed build is one log line and the server goes on, a publication refreshes the
server (SIGHUP). Fake server and build scripts keep it to seconds; every wait is bounded."""
import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

FAKE_SERVER = textwrap.dedent("""
    import json, os, signal, sys, time
    port_file, marks, exit_after = sys.argv[1], sys.argv[2], float(sys.argv[3])
    def mark(what):
        with open(marks, "a") as f:
            f.write(what + "\\n")
    signal.signal(signal.SIGHUP, lambda *a: mark("hup"))
    if len(sys.argv) < 5:   # else SIGTERM ends it as it ends a process without a handler (or one already exiting)
        signal.signal(signal.SIGTERM, lambda *a: (mark("server stopped"), sys.exit(0)))
    thp = next((ln.split()[-1] for ln in open("/proc/self/status") if ln.startswith("THP_enabled:")), "-")
    mark(f"server {os.getpid()} thp {thp} nice {os.nice(0)}")
    with open(port_file + ".tmp", "w") as f:
        json.dump({"port": 1}, f)
    os.replace(port_file + ".tmp", port_file)
    def build_started():    # the build marks its start after its SIGTERM handler is in place
        return any(ln.startswith("build ") for ln in open(marks))
    t0 = None               # exit_after counts from the build's start: a loaded machine can start it late
    while exit_after <= 0 or t0 is None or time.monotonic() - t0 < exit_after:
        if t0 is None and exit_after > 0 and build_started():
            t0 = time.monotonic()
        time.sleep(0.05)
    mark("server exits by itself")
    sys.exit(3)
""")

FAKE_BUILD = textwrap.dedent("""
    import os, signal, sys, time
    from games.buildprogress import BuildProgress
    root, marks, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    def mark(what):
        with open(marks, "a") as f:
            f.write(what + "\\n")
    if mode == "slow":  # stops at its "next checkpoint" only in 10 minutes, at once on a second SIGTERM
        signal.signal(signal.SIGTERM, lambda *a: (mark("build asked to stop"), signal.signal(
            signal.SIGTERM, lambda *b: (mark("build stopped at once"), sys.exit(130)))))
    else:
        signal.signal(signal.SIGTERM, lambda *a: (mark("build stopped"), sys.exit(130)))
    group = open("/proc/self/autogroup").read().split()[-1] if os.path.exists("/proc/self/autogroup") else "-"
    thp = next((ln.split()[-1] for ln in open("/proc/self/status") if ln.startswith("THP_enabled:")), "-")
    mark(f"build {os.getpid()} thp {thp} nice {os.nice(0)} autogroup nice {group}")
    p = BuildProgress.start([("jotto-small", 1.0), ("dudo-big", 100.0)])
    p.variants[0].state = "building"
    p.write(root)
    time.sleep(0.5)
    p.variants[0].state, p.variants[0].seconds = "done", 0.5
    p.variants[1].state = "building"
    p.write(root)
    if mode == "fail":
        print("gamestrategy-build: boom: the solver ran out of memory", flush=True)
        sys.exit(1)
    if mode == "ok":
        print("gamestrategy-build: hangman-x: the store present was built with other theta than the default "
              "profile now has; it is kept and served as it is", flush=True)
        print("summary table", flush=True)
        sys.exit(0)
    while True:
        time.sleep(0.05)
""")


FAKE_MEASURE = textwrap.dedent("""
    import os, signal, sys, time
    marks, mode = sys.argv[1], sys.argv[2]
    def mark(what):
        with open(marks, "a") as f:
            f.write(what + "\\n")
    signal.signal(signal.SIGTERM, lambda *a: (mark("measurement stopped"), sys.exit(143)))
    mark(f"measure {os.getpid()} nice {os.nice(0)}")
    if mode == "wait":
        while True:
            time.sleep(0.05)
    time.sleep(0.5)     # the build's refresh has reached the server before this one's
    print("published stores/dudo/dudo-x/20261129T000000-abcdef12", flush=True)
""")


def _launch(tmp_path, build_mode="wait", server_exit_after=0.0, stop_seconds=5, server_dies_by_sigterm=False,
            measure_mode=None):
    root = tmp_path / "stores"
    root.mkdir()
    (tmp_path / "server.py").write_text(FAKE_SERVER)
    (tmp_path / "build.py").write_text(FAKE_BUILD)
    (tmp_path / "measure.py").write_text(FAKE_MEASURE)
    measure = None if measure_mode is None else [str(tmp_path / "measure.py"), str(tmp_path / "marks"), measure_mode]
    marks, port_file = tmp_path / "marks", tmp_path / "ports.json"
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from launcher.__main__ import Logger, run
        py = sys.executable
        sys.exit(run([py, {str(tmp_path / 'server.py')!r}, {str(port_file)!r}, {str(marks)!r}, "{server_exit_after}"]
                     + (["die"] if {server_dies_by_sigterm!r} else []),
                     [py, {str(tmp_path / 'build.py')!r}, {str(root)!r}, {str(marks)!r}, {build_mode!r}],
                     Path({str(root)!r}), stop_seconds={stop_seconds}, log=Logger("text"), port_file=Path({str(port_file)!r}),
                     measure_cmd=None if {measure!r} is None else [py, *{measure!r}]))
    """)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, env=env, stderr=subprocess.PIPE, text=True)
    return p, marks, root


@contextlib.contextmanager
def _launched(tmp_path, **kw):
    """``_launch``'s (process, marks, root) for the block; the launcher killed after it if still running."""
    p, marks, root = _launch(tmp_path, **kw)
    try:
        yield p, marks, root
    finally:
        if p.poll() is None:
            p.kill()


def _marks(marks: Path) -> list[str]:
    return marks.read_text().splitlines() if marks.exists() else []


def _until(fn, seconds=30):
    deadline = time.monotonic() + seconds
    while not fn():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _pid(marks, who):
    return next(int(m.split()[1]) for m in _marks(marks) if m.startswith(who + " "))


def _gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_build_stops_when_the_server_stops(tmp_path):
    with _launched(tmp_path, server_exit_after=3.0) as (p, marks, root):
        rc = p.wait(60)
    err = p.stderr.read()
    assert rc == 3, err  # the server's exit code
    m = _marks(marks)
    assert "server exits by itself" in m and "build stopped" in m, (m, err)
    assert _until(lambda: _gone(_pid(marks, "build"))) is None
    assert "server exited; stopping the build" in err


def test_sigterm_stops_both_and_a_publication_refreshes_the_server(tmp_path):
    with _launched(tmp_path) as (p, marks, root):
        _until(lambda: "hup" in _marks(marks))  # the first store published: the server refreshes at once
        build_line = next(m for m in _marks(marks) if m.startswith("build "))
        server_line = next(m for m in _marks(marks) if m.startswith("server "))
        # the build at the lowest priority, the server at the launcher's own; where sessions are scheduling
        # groups (Linux's autogroups), the build's group too, else its niceness would not count against the server
        assert " nice 19 autogroup nice " in build_line and server_line.endswith(f"nice {os.nice(0)}")
        if os.path.exists("/proc/self/autogroup"):
            assert build_line.endswith("autogroup nice 19")
        # no transparent huge pages in the build (their faults stall the server's calls); the server keeps the launcher's
        own_thp = next((ln.split()[-1] for ln in open("/proc/self/status") if ln.startswith("THP_enabled:")), "-")
        if own_thp != "-":
            assert " thp 0 " in build_line and f" thp {own_thp} " in server_line
        p.send_signal(signal.SIGTERM)
        rc = p.wait(60)
    err = p.stderr.read()
    assert rc == 0, err
    m = _marks(marks)
    assert "build stopped" in m and "server stopped" in m, (m, err)
    assert "published jotto-small (1 of 2)" in err and "building dudo-big (2 of 2; about 100 s)" in err
    assert "build stopped; the next run resumes it" in err


def test_a_failed_build_is_one_line_and_the_server_keeps_serving(tmp_path):
    with _launched(tmp_path, build_mode="fail") as (p, marks, root):
        _until(lambda: "hup" in _marks(marks))
        time.sleep(2.0)  # the launcher has seen the build exit (it polls every 0.5 s)
        assert p.poll() is None  # still running: the server serves what was published
        assert "server stopped" not in _marks(marks)
        p.send_signal(signal.SIGTERM)
        rc = p.wait(60)
    err = p.stderr.read()
    assert rc == 0, err
    failed = [ln for ln in err.splitlines() if "build failed" in ln]
    assert len(failed) == 1 and "build failed (exit 1): gamestrategy-build: boom: the solver ran out of memory" in failed[0]
    assert "ERROR" in failed[0]


def test_a_finished_build_relays_the_builders_notices_and_the_server_goes_on(tmp_path):
    with _launched(tmp_path, build_mode="ok") as (p, marks, root):
        _until(lambda: "hup" in _marks(marks))
        time.sleep(2.0)
        assert p.poll() is None and "server stopped" not in _marks(marks)
        p.send_signal(signal.SIGTERM)
        rc = p.wait(60)
    err = p.stderr.read()
    assert rc == 0, err
    assert "WARNING gamestrategy.launcher" in err and "hangman-x: the store present was built with other theta" in err
    assert "build finished" in err and "summary table" not in err and "build stopped" not in err


def test_a_second_sigterm_stops_a_slow_build_at_once(tmp_path):
    """The build would take 10 minutes to reach its checkpoint and --stop-seconds is 10 minutes: only the
    second signal (a second Ctrl-C) ends it within the test's bounded wait."""
    with _launched(tmp_path, build_mode="slow", stop_seconds=600) as (p, marks, root):
        _until(lambda: "hup" in _marks(marks))
        p.send_signal(signal.SIGTERM)
        _until(lambda: "build asked to stop" in _marks(marks))
        p.send_signal(signal.SIGTERM)
        rc = p.wait(60)
    err = p.stderr.read()
    assert rc == 0, err
    assert "build stopped at once" in _marks(marks) and "server stopped" in _marks(marks)


def test_a_server_ended_by_the_stop_signal_is_a_clean_stop(tmp_path):
    """A server the launcher's SIGTERM ends by the signal itself (a second Ctrl-C reaching it while it exits
    after the first: the fake server here has no handler) stopped as asked: the launcher exits 0, not 241."""
    with _launched(tmp_path, build_mode="wait", server_dies_by_sigterm=True) as (p, marks, root):
        _until(lambda: "hup" in _marks(marks))
        p.send_signal(signal.SIGTERM)
        rc = p.wait(60)
    err = p.stderr.read()
    assert rc == 0, err
    assert "server stopped (exit_code=-15)" in err and "build stopped" in _marks(marks)


def test_after_the_build_the_measurement_runs_at_the_lowest_priority_and_its_stores_are_loaded(tmp_path):
    with _launched(tmp_path, build_mode="ok", measure_mode="ok") as (p, marks, root):
        # a refresh after the measurement's start (two SIGHUPs close together, the first store's and the build's
        # end, can reach the server as one: a signal pending is not queued twice)
        def refreshed_after_measuring():
            m = _marks(marks)
            starts = [i for i, x in enumerate(m) if x.startswith("measure ")]
            return bool(starts) and "hup" in m[starts[0]:]
        _until(refreshed_after_measuring)
        assert p.poll() is None and "server stopped" not in _marks(marks)
        p.send_signal(signal.SIGTERM)
        rc = p.wait(60)
    err = p.stderr.read()
    assert rc == 0, err
    measure_line = next(m for m in _marks(marks) if m.startswith("measure "))
    assert measure_line.endswith("nice 19")
    m = _marks(marks)
    assert m.index(measure_line) > m.index("hup")        # after the build, not beside it
    assert "measuring the served policies where no figure is stated yet" in err
    assert "published stores/dudo/dudo-x/20261129T000000-abcdef12" in err
    assert "measurement stopped" not in err


def test_sigterm_stops_a_running_measurement(tmp_path):
    with _launched(tmp_path, build_mode="ok", measure_mode="wait") as (p, marks, root):
        _until(lambda: any(m.startswith("measure ") for m in _marks(marks)))
        p.send_signal(signal.SIGTERM)
        rc = p.wait(60)
    err = p.stderr.read()
    assert rc == 0, err
    assert "measurement stopped" in _marks(marks) and "server stopped" in _marks(marks)
    assert "measurement stopped; the next run measures again" in err
    assert _until(lambda: _gone(_pid(marks, "measure"))) is None
