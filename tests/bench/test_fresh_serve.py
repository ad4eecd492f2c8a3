"""bench.fresh_serve's CPU accounting: the processes running a clone's python, summed by kind from `ps`."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

from bench.fresh_serve import cpu_by_kind, pct


def test_cpu_is_summed_by_kind_for_the_clones_processes_only(tmp_path):
    clone = tmp_path / "clone"
    (clone / ".venv" / "bin").mkdir(parents=True)
    py = clone / ".venv" / "bin" / "python"
    os.symlink(sys.executable, py)
    spin = "import time\nt = time.process_time()\nwhile time.process_time() - t < 1.2: pass\ntime.sleep(30)"
    procs = [subprocess.Popen([str(py), "-c", spin, "-m", "server"]),   # 'server' in its arguments
             subprocess.Popen([str(py), "-c", spin])]                    # a build process
    other = subprocess.Popen([sys.executable, "-c", spin])              # not the clone's python: not counted
    out, stop = {}, threading.Event()
    th = threading.Thread(target=cpu_by_kind, args=(str(clone), stop, out), daemon=True)
    try:
        th.start()
        deadline = time.monotonic() + 20
        while not (out.get("server", 0) >= 1 and out.get("build", 0) >= 1) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        stop.set()
        for p in procs + [other]:
            p.kill()
            p.wait()
    assert out.get("server", 0) >= 1 and out.get("build", 0) >= 1
    assert set(out) <= {"server", "build"} and out["build"] < 3   # the third spinner is not in it


def test_percentiles_in_milliseconds():
    assert pct([0.001, 0.002, 0.003, 0.004], 0.5) == 3.0
    assert pct([], 0.99) != pct([], 0.99)   # nan: nothing measured


def test_window_p99s_leave_out_the_partial_last_window():
    from bench.fresh_serve import window_p99s

    calls = [(100.0 + i * 0.1, 0.001 * (1 + (i // 300))) for i in range(700)]   # 70 s: 30 s at 1 ms, 30 s at 2 ms
    assert window_p99s(calls, 30.0) == [1.0, 2.0]
    assert window_p99s([], 30.0) == []
    nearly = [(i * 0.1, 0.001 * (1 + (i // 300))) for i in range(900)]   # 89.9 s: the third window counts
    assert window_p99s(nearly, 30.0) == [1.0, 2.0, 3.0]
