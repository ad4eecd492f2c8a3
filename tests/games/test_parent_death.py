"""games.parent_death: a child asks for a signal when its parent goes; a parent already gone ends it at once."""
import os
import signal
import subprocess
import sys
import textwrap
import time

from games.parent_death import die_with_parent


def test_a_parent_gone_before_the_request_ends_the_child_at_once():
    pid = os.fork()
    if pid == 0:                                   # the child: its "parent" is not the one it was forked from
        die_with_parent(parent=os.getppid() + 1_000_000)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 1


def test_the_child_is_killed_when_its_parent_is(tmp_path):
    """A middle process forks a child that asks for SIGKILL on its parent's death and sleeps; SIGKILL to the middle
    process ends the child too."""
    pid_file = tmp_path / "child.pid"
    code = textwrap.dedent(f"""
        import os, time
        from games.parent_death import die_with_parent
        parent = os.getpid()
        if os.fork() == 0:
            die_with_parent(parent=parent)
            open({str(pid_file)!r}, "w").write(str(os.getpid()))
            time.sleep(60)
            os._exit(0)
        time.sleep(60)
    """)
    middle = subprocess.Popen([sys.executable, "-c", code], cwd=os.getcwd())
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    child = int(pid_file.read_text())
    middle.send_signal(signal.SIGKILL)
    middle.wait(30)
    deadline = time.monotonic() + 10
    while True:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        with open(f"/proc/{child}/stat") as f:      # a zombie of init's counts as gone
            if f.read().split(") ")[1].startswith("Z"):
                break
        assert time.monotonic() < deadline, "the child outlived its parent"
        time.sleep(0.05)
