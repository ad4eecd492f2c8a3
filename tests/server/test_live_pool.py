"""The live pool: work runs in worker processes that a deadline, a cancellation or the memory cap
kills; admission refuses at once when the slots are full or the estimate exceeds the deadline or caps.
No timing asserts: only what happened (statuses, which processes exist)."""
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from server.live import WORKER_NAME, Cost, LiveCache, LiveError, LivePool, Refused, Stopped


def spin(seconds: float) -> int:
    """Burn CPU for `seconds` of process time (a stand-in for a solve); the worker's pid."""
    t = time.process_time()
    while time.process_time() - t < seconds:
        pass
    return os.getpid()


def hog(nbytes: int) -> int:
    a = np.ones(nbytes // 8)  # touched: resident
    time.sleep(60)
    return int(a[0])


def fail() -> None:
    raise ValueError("no such round")


CHEAP = Cost(0.01, 1, "a test computation", "build the store x")


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def gone(pid, wait=30.0):
    """The process has ended (polled: a SIGKILL takes effect a moment after the call has its status)."""
    t = time.monotonic() + wait
    while alive(pid) and time.monotonic() < t:
        time.sleep(0.01)
    return not alive(pid)


@pytest.fixture
def pool():
    p = LivePool(slots=1, default_seconds=30, max_bytes=1 << 30)
    yield p
    p.close()


def busy_pid(pool) -> int:
    for _ in range(2000):
        b = pool.pids()["busy"]
        if b:
            return b[0]
        time.sleep(0.005)
    raise AssertionError("no worker became busy")


def in_thread(fn, *args, **kw):
    box = {}

    def run():
        try:
            box["result"] = fn(*args, **kw)
        except Exception as e:  # noqa: BLE001
            box["error"] = e

    t = threading.Thread(target=run)
    t.start()
    return t, box


def test_result_comes_from_another_process_which_is_reused(pool):
    pid = pool.submit(spin, 0.01, deadline=None, cost=CHEAP)
    assert pid != os.getpid()
    assert pool.submit(spin, 0.01, deadline=None, cost=CHEAP) == pid
    with pytest.raises(LiveError, match="ValueError: no such round"):
        pool.submit(fail, deadline=None, cost=CHEAP)
    assert pool.submit(spin, 0.01, deadline=None, cost=CHEAP) == pid  # an exception does not cost the worker


def test_deadline_kills_the_worker(pool):
    t, box = in_thread(pool.submit, spin, 600, deadline=time.monotonic() + 0.5, cost=CHEAP)
    pid = busy_pid(pool)
    t.join(60)
    assert isinstance(box.get("error"), Stopped) and box["error"].status == "DEADLINE_EXCEEDED"
    assert gone(pid) and pool.killed == 1
    assert pool.submit(spin, 0.01, deadline=None, cost=CHEAP) != pid  # replaced


def test_cancellation_kills_the_worker(pool):
    caller = threading.Event()
    t, box = in_thread(pool.submit, spin, 600, deadline=None, cost=CHEAP, active=lambda: not caller.is_set())
    pid = busy_pid(pool)
    caller.set()
    t.join(60)
    assert isinstance(box.get("error"), Stopped) and box["error"].status == "CANCELLED"
    assert gone(pid)


def test_full_slots_refuse_with_resource_exhausted(pool):
    caller = threading.Event()
    t, box = in_thread(pool.submit, spin, 600, deadline=None, cost=CHEAP, active=lambda: not caller.is_set())
    pid = busy_pid(pool)
    with pytest.raises(Refused) as e:
        pool.submit(spin, 0.01, deadline=None, cost=CHEAP)
    assert e.value.status == "RESOURCE_EXHAUSTED" and "maximum of 1 live computation" in str(e.value)
    assert pool.pids()["busy"] == [pid]
    caller.set()
    t.join(60)


@pytest.mark.parametrize("cost,deadline_in,fault", [
    (Cost(10.0, 1, "solving it", "build the store x"), 5.0, "more than the"),  # deadline
    (Cost(1e5, 1, "solving it", "build the store x"), 1e6, "cap of"),  # seconds cap
    (Cost(0.1, 8 << 30, "solving it", "build the store x"), 5.0, "8.0 GB"),  # memory cap
])
def test_over_cost_refuses_with_failed_precondition_before_starting(pool, cost, deadline_in, fault):
    with pytest.raises(Refused) as e:
        pool.submit(spin, 600, deadline=time.monotonic() + deadline_in, cost=cost)
    assert e.value.status == "FAILED_PRECONDITION"
    assert fault in str(e.value) and "solving it" in str(e.value) and "build the store x" in str(e.value)
    assert pool.pids() == {"idle": [], "busy": []}  # nothing started


def ready(pool, wait=120.0) -> bool:
    """An idle worker is there (polled: workers start in the background)."""
    t = time.monotonic() + wait
    while not pool.pids()["idle"] and time.monotonic() < t:
        time.sleep(0.01)
    return bool(pool.pids()["idle"])


def test_ready_only_waits_for_the_worker_it_starts_while_the_work_still_fits(pool):
    """Work with a cheap fallback never starts a worker on its own time: with none idle, one is started in the
    background and the call waits for it while the work would still end before the deadline."""
    assert pool.pids() == {"idle": [], "busy": []}
    pid = pool.submit(spin, 0.0, deadline=time.monotonic() + 30, cost=CHEAP, ready_only=True)
    assert pid != os.getpid() and pool.pids() == {"idle": [pid], "busy": []}


def test_ready_only_refuses_once_the_work_would_not_end_before_the_deadline(pool, monkeypatch):
    release = threading.Event()
    real_new = pool._new_worker
    monkeypatch.setattr(pool, "_new_worker", lambda: (release.wait(60), real_new())[1])
    try:
        with pytest.raises(Refused) as e:
            pool.submit(spin, 0.0, deadline=time.monotonic() + 2.0, cost=Cost(1.9, 1, "it"), ready_only=True)
        assert e.value.status == "RESOURCE_EXHAUSTED" and "no live worker is ready" in str(e.value)
    finally:
        release.set()
    assert ready(pool)      # the worker started for it serves the next call
    idle = pool.pids()["idle"]
    assert pool.submit(spin, 0.0, deadline=time.monotonic() + 30, cost=CHEAP, ready_only=True) in idle


def test_ready_only_stops_waiting_when_no_worker_can_be_started(pool, monkeypatch):
    def cannot_start():
        raise Refused("UNAVAILABLE", "no")
    monkeypatch.setattr(pool, "_new_worker", cannot_start)
    with pytest.raises(Refused) as e:
        pool.submit(spin, 0.0, deadline=time.monotonic() + 600, cost=CHEAP, ready_only=True)
    assert e.value.status == "RESOURCE_EXHAUSTED" and "no live worker could be started" in str(e.value)


def test_ready_only_stops_waiting_when_the_caller_goes(pool, monkeypatch):
    starting, release = threading.Event(), threading.Event()
    real_new = pool._new_worker

    def slow_start():
        starting.set()
        release.wait(60)
        return real_new()
    monkeypatch.setattr(pool, "_new_worker", slow_start)
    try:
        with pytest.raises(Stopped) as e:
            pool.submit(spin, 0.0, deadline=time.monotonic() + 600, cost=CHEAP, ready_only=True,
                        active=lambda: not starting.is_set())
        assert e.value.status == "CANCELLED"
    finally:
        release.set()


def test_two_calls_waiting_for_one_starting_worker_both_get_one():
    """The worker being started goes to one waiting call; the other starts the next rather than being refused."""
    p = LivePool(slots=2, default_seconds=30, max_bytes=1 << 30)
    release = threading.Event()
    real_new = p._new_worker
    p._new_worker = lambda: (release.wait(60), real_new())[1]
    try:
        got = []
        calls = [threading.Thread(target=lambda: got.append(
            p.submit(spin, 0.0, deadline=time.monotonic() + 60, cost=CHEAP, ready_only=True))) for _ in range(2)]
        for t in calls:
            t.start()
        release.set()
        for t in calls:
            t.join(90)
        assert len(got) == 2 and len(set(got)) == 2 and set(got) <= set(p.pids()["idle"])
    finally:
        release.set()
        p.close()


def test_two_ready_only_calls_never_race_for_one_idle_worker():
    """Two calls that both see the one idle worker: the first takes it as it is admitted, the second waits for
    another, started in the background. (Before, both were admitted, the second took the worker, and the first
    started a worker on its own time, past its deadline: an endgame re-solve then answered DEADLINE_EXCEEDED
    instead of DEGRADED.)"""
    p = LivePool(slots=2, default_seconds=30, max_bytes=1 << 30)
    try:
        p.start(1)
        assert ready(p)
        idle = p.pids()["idle"]
        admitted, resume = threading.Event(), threading.Event()
        real_run = p._run

        def first_pauses_after_admission(*args, **kw):
            if not admitted.is_set():
                admitted.set()
                resume.wait(30)
            return real_run(*args, **kw)

        p._run = first_pauses_after_admission
        first = []
        t = threading.Thread(target=lambda: first.append(
            p.submit(spin, 0.0, deadline=time.monotonic() + 30, cost=CHEAP, ready_only=True)))
        t.start()
        assert admitted.wait(30)
        second = p.submit(spin, 0.0, deadline=time.monotonic() + 30, cost=CHEAP, ready_only=True)
        resume.set()
        t.join(60)
        assert first == idle  # the first ran on the worker it saw, none was started on its time
        assert second not in idle
    finally:
        p.close()


def test_a_call_without_deadline_gets_the_default_cap():
    p = LivePool(slots=1, default_seconds=0.5)
    try:
        with pytest.raises(Refused, match="left before the deadline"):
            p.submit(spin, 1, deadline=None, cost=Cost(2.0, 1, "it"))
        with pytest.raises(Stopped) as e:
            p.submit(spin, 600, deadline=None, cost=CHEAP)
        assert e.value.status == "DEADLINE_EXCEEDED"
    finally:
        p.close()


def test_memory_cap_kills_the_worker():
    p = LivePool(slots=1, max_bytes=300 << 20)
    try:
        with pytest.raises(Stopped) as e:
            p.submit(hog, 600 << 20, deadline=time.monotonic() + 50, cost=CHEAP)
        assert e.value.status == "RESOURCE_EXHAUSTED" and "300 MB" in str(e.value)
    finally:
        p.close()


def test_close_stops_the_workers():
    p = LivePool(slots=1)
    pid = p.submit(spin, 0.01, deadline=None, cost=CHEAP)
    p.close()
    assert gone(pid)


def scratch_left(tmp: Path) -> list[str]:
    """The pools' scratch directories under ``tmp``."""
    return [d.name for d in tmp.iterdir() if d.name.startswith(WORKER_NAME)]


def test_close_removes_every_workers_scratch(tmp_path, monkeypatch):
    """Once close returns, no scratch directory is left: neither that of a worker busy at close nor that of one
    killed at a deadline before (whose reaping thread a server's exit could cut short)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    p = LivePool(slots=2, default_seconds=30)
    with pytest.raises(Stopped):
        p.submit(spin, 600, deadline=time.monotonic() + 0.5, cost=CHEAP)
    t, box = in_thread(p.submit, spin, 600, deadline=time.monotonic() + 30, cost=CHEAP)
    pid = busy_pid(p)
    p.close()
    assert scratch_left(tmp_path) == []
    t.join(30)
    assert gone(pid) and isinstance(box.get("error"), (Stopped, LiveError))


UNCLOSED_POOL = r'''
import sys, time
sys.path.insert(0, sys.argv[1])
from server.live import Cost, LivePool
print(LivePool(slots=1).submit(sum, [1, 2], deadline=time.monotonic() + 60, cost=Cost(0.01, 1, "a sum")))
'''


def test_a_process_that_never_closes_its_pool_leaves_no_scratch(tmp_path):
    """A process that ends without closing its pool (a test's in-process server, a script) removes the
    workers' scratch directories as it exits."""
    env = dict(os.environ, TMPDIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", UNCLOSED_POOL, str(Path(__file__).resolve().parents[2])], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "3", out.stderr[-2000:]
    assert scratch_left(tmp_path) == []


def test_cache_keeps_within_its_bound():
    c = LiveCache(100)
    assert c.put("a", 1, 60) and c.put("b", 2, 30)
    assert c.get("a") == 1  # a is now the most recent
    assert c.put("c", 3, 30)  # evicts b, the least recent
    assert c.get("b") is None and c.get("a") == 1 and c.get("c") == 3 and c.nbytes == 90
    assert not c.put("d", 4, 101) and c.get("d") is None
    assert c.find(lambda k: k in ("a", "c")) in (1, 3)


CRASHING_FORKSERVER = r'''
import logging, sys
from server.live import Cost, LivePool, Refused

class Fields(logging.Handler):
    def emit(self, record):
        print("log", record.getMessage(), getattr(record, "fields", {}), flush=True)

logging.getLogger("gamestrategy").addHandler(Fields())
pool = LivePool(slots=1, preload=("segfault_on_import",))
for attempt in range(2):
    try:
        pool.submit(abs, -1, deadline=None, cost=Cost(0.01, 1, "a test computation"))
        print("answered", flush=True)
    except Refused as e:
        print("refused", e.status, e, flush=True)
'''


def test_a_forkserver_that_dies_loading_gets_unavailable_and_a_log_naming_the_cache(tmp_path):
    """A forkserver that segfaults as it imports its preload (a damaged numba cache did): each call is refused with a
    retryable status, the log names the cause and the kernel cache; nothing raises past the pool."""
    (tmp_path / "segfault_on_import.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    script = tmp_path / "crash.py"
    script.write_text(CRASHING_FORKSERVER)
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{root}", NUMBA_CACHE_DIR=str(tmp_path / "kernels"))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    refused = [line for line in lines if line.startswith("refused")]
    assert len(refused) == 2 and all(line.startswith("refused UNAVAILABLE") and "retry later" in line
                                     for line in refused), lines
    logged = [line for line in lines if line.startswith("log cannot start a live worker")]
    assert len(logged) == 2 and all(str(tmp_path / "kernels") in line and "segfault_on_import" in line
                                    for line in logged), lines
