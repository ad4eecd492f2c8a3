"""A lane's CPU count (builder.lane_cpu): its thread and its executor's processes, never going back."""
import os
import subprocess
import sys
import time

import pytest

from builder.lane_cpu import LaneCpu, machine_idle_seconds

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


class _Executor:
    def __init__(self):
        self.pids = []

    def process_ids(self):
        return self.pids


def test_a_lane_counts_its_thread_and_its_workers_and_keeps_an_exited_workers_seconds():
    ex = _Executor()
    lane = LaneCpu(ex)
    start = lane.seconds()
    worker = subprocess.Popen([sys.executable, "-c", "import time\nt = time.process_time()\n"
                               "while time.process_time() - t < 0.4: pass\nprint(flush=True)\ntime.sleep(30)"],
                              stdout=subprocess.PIPE)
    try:
        ex.pids = [worker.pid]
        worker.stdout.readline()            # its 0.4 CPU s are spent
        with_worker = lane.seconds()
        assert with_worker - start >= 0.35
    finally:
        worker.kill()
        worker.wait()
    assert lane.seconds() >= with_worker     # gone: its seconds stay counted
    t = time.process_time()
    while time.process_time() - t < 0.2:    # this thread's own work
        pass
    assert lane.seconds() - with_worker >= 0.15
    assert lane.nice() == os.nice(0)


def test_the_machine_idle_seconds_grow():
    assert machine_idle_seconds() > 0


def test_a_process_pools_workers_are_its_processes(tmp_path):
    from builder.executor import ProcessExecutor

    ex = ProcessExecutor(workers=1, share_dir=str(tmp_path))
    try:
        assert ex.process_ids() == []
        assert ex.submit(os.getpid).result() in ex.process_ids()
    finally:
        ex.close()
