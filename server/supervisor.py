"""``--workers N``: N forked server processes sharing the ports (SO_REUSEPORT) under a parent that forwards
signals to them and replaces one that dies.

- The workers die with the parent: each asks the kernel for SIGKILL when its parent goes
  (``PR_SET_PDEATHSIG``), so a ``kill -9`` of the parent leaves no worker holding the ports.
- The parent's signal handlers are in place before the first fork, and each worker is forked with
  SIGINT, SIGTERM and SIGHUP blocked until it has its own handlers: a signal at any moment of start-up
  is acted on, never lost or run by the wrong handler.
- A worker drops every listening socket it inherits (the parent's metrics listener, also the copy uvloop
  made of it) and the port reservations: it serves only the sockets it opens itself.
- A worker that dies of a signal or exits with an error while the server runs (a SIGBUS from a store file
  truncated under its memory map, say) is forked again after a back-off that grows while it keeps dying
  young; the new one verifies the stores as it opens them, so a damaged version is refused.
"""
from __future__ import annotations

import logging
import os
import signal
import socket
import time
from contextlib import contextmanager

from games.parent_death import die_with_parent

log = logging.getLogger("gamestrategy.server")

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
RESPAWN_FIRST_SECONDS = 0.5  # a worker that died is replaced after this, doubled while it dies young
RESPAWN_MAX_SECONDS = 30.0
YOUNG_SECONDS = 30.0  # a worker that lived less than this counts as dying young


def _forget_live_gauges(pid: int) -> None:
    """A dead worker's gauges leave the workers' shared metrics, or its last values would stand beside the live
    workers' for good (a store version it served, say); its counters stay, as counters never go back."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)


@contextmanager
def reserved_port(host: str, port: int):
    """A bound SO_REUSEPORT socket (not listening) holding `port` (0: any free one) for the workers, who bind
    the same port beside it; closed on leaving."""
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(fam, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if sock.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT) == 0:
            raise RuntimeError("SO_REUSEPORT is not available")
        sock.bind((host, port))
        yield sock
    finally:
        sock.close()


def drop_inherited_listeners() -> None:
    """Point every listening socket descriptor of this (just forked) process at /dev/null: the socket is
    released, and the descriptor number stays taken, so that an object of the parent's that still holds
    it (uvloop's server, never run here) cannot close another file later."""
    try:
        fds = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:  # not Linux
        return
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in fds:
            if fd == devnull:
                continue
            try:
                dup = os.dup(fd)
            except OSError:  # the descriptor that listed /proc/self/fd, closed since
                continue
            try:
                probe = socket.socket(fileno=dup)
            except OSError:  # not a socket
                os.close(dup)
                continue
            try:
                listening = probe.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
            except OSError:
                listening = 0
            finally:
                probe.close()
            if listening:
                os.dup2(devnull, fd)
    finally:
        os.close(devnull)


class Supervisor:
    """Forks and watches `n` workers. Its signal handlers are installed when it is made: make it before
    the parent's own start-up work, so that a stop during that work stops the server before any fork."""

    def __init__(self, n: int):
        self.n = n
        self.run_worker, self.inherited = None, []
        self.children: dict[int, tuple[int, float]] = {}  # pid -> (worker index, start time)
        self.stopping = False
        self.parent = os.getpid()
        for sig in FORWARDED:
            signal.signal(sig, self._forward)

    def run(self, run_worker, on_ready, inherited=()) -> int:
        """Fork the workers, call ``on_ready(n_listening)`` once every first worker is listening (or has
        exited), then watch them until a stop signal has reached them all; the exit code.
        `run_worker(worker, ready)` is one worker's life (returns its exit code); `inherited`: sockets a
        worker closes at once (the port reservations)."""
        self.run_worker, self.inherited = run_worker, list(inherited)
        if self.stopping:
            log.info("stopped before the workers started")
            return 0
        ready_r, ready_w = os.pipe()
        for w in range(self.n):
            self._fork(w, ready_w)
        os.close(ready_w)
        on_ready(self._count_ready(ready_r))
        return self._watch()

    def _forward(self, sig, _frame) -> None:
        if sig != signal.SIGHUP:
            self.stopping = True
        for pid in list(self.children):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def _fork(self, worker: int, ready_w: int | None) -> None:
        old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)
        pid = os.fork()
        if pid == 0:
            self._child(worker, ready_w)
        self.children[pid] = (worker, time.monotonic())
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        if self.stopping:  # a stop arrived before this worker existed
            os.kill(pid, signal.SIGTERM)

    def _child(self, worker: int, ready_w: int | None) -> None:
        rc = 1
        try:
            die_with_parent(parent=self.parent)
            for sock in self.inherited:
                sock.close()
            drop_inherited_listeners()
            for sig in FORWARDED:  # the worker records its own signals (server.worker.record_signals)
                signal.signal(sig, signal.SIG_DFL)

            def ready(*_ports):
                if ready_w is not None:
                    os.write(ready_w, b"1")
                    os.close(ready_w)

            rc = self.run_worker(worker, ready)  # which unblocks the signals once it has its handlers
        except BaseException:  # noqa: BLE001
            log.exception("worker crashed")
        finally:
            os._exit(rc)

    def _count_ready(self, ready_r: int) -> int:
        n_ready = 0
        while n_ready < self.n:  # every worker listening (EOF: all exited or wrote)
            chunk = os.read(ready_r, 64)
            if not chunk:
                break
            n_ready += len(chunk)
        os.close(ready_r)
        log.info("workers started", extra={"fields": {"workers": self.n, "listening": n_ready,
                                                      "pids": sorted(self.children)}})
        return n_ready

    def _watch(self) -> int:
        rc, backoff = 0, RESPAWN_FIRST_SECONDS
        while self.children:
            try:
                pid, status = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            if pid not in self.children:  # a child of the parent's own, not a worker
                continue
            worker, started = self.children.pop(pid)
            _forget_live_gauges(pid)
            code = os.waitstatus_to_exitcode(status)
            if self.stopping:
                if code:
                    rc = 1
                    log.error("worker exited", extra={"fields": {"pid": pid, "exit_code": code}})
                continue
            if time.monotonic() - started >= YOUNG_SECONDS:
                backoff = RESPAWN_FIRST_SECONDS
            wait, backoff = backoff, min(2 * backoff, RESPAWN_MAX_SECONDS)
            died = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
            log.error("worker died: replacing it", extra={"fields": {
                "pid": pid, "worker": worker, "died_of": died, "replaced_in_seconds": wait}})
            deadline = time.monotonic() + wait
            while not self.stopping and time.monotonic() < deadline:
                time.sleep(0.05)
            if not self.stopping:
                self._fork(worker, None)
        log.info("stopped")
        return rc
