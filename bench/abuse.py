"""The network surface under abuse: a server started here (a process of its own, under a lowered
``ulimit -n``) takes silent connections, slow heads and bodies, idle keep-alives, while normal gRPC and
HTTP calls are timed beside them.

  python -m bench.abuse [--root stores] [--nofile 1024] [--silent 5000] [--calls 200]

prints one table: the p50/p99 of a gRPC SampleMove and of an HTTP SampleMove (a new connection a call)
on the idle server, then during each abuse, the abusive connections still open after the configured
timeouts, and the server's open descriptors and resident memory before and after. Loopback only;
every loop is bounded in count and time. The tests (tests/server/test_abuse.py) use the same pieces.
"""
from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import resource
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HOST = "127.0.0.1"


def raise_own_fd_limit(need: int) -> int:
    """Raise this process's soft descriptor limit towards `need` (at most the hard limit); the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(max(soft, need), hard if hard != resource.RLIM_INFINITY else need)
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


@dataclass
class ServerProcess:
    proc: subprocess.Popen
    ports: dict
    log: Path
    args: list = field(default_factory=list)

    @property
    def pid(self) -> int:
        return self.ports["pid"]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def start_server(root: Path, args: list[str] = (), nofile: int | None = 1024, timeout: float = 120,
                 workdir: Path | None = None) -> ServerProcess:
    """``python -m server --workers 1`` on `root` with free ports, under ``ulimit -n nofile`` (soft and hard)."""
    workdir = Path(workdir or tempfile.mkdtemp(prefix="abuse-"))
    workdir.mkdir(parents=True, exist_ok=True)
    port_file, log = workdir / "ports.json", workdir / "server.log"
    port_file.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "server", "--root", str(root), "--workers", "1", "--port", "0", "--http-port", "0",
           "--metrics-port", "0", "--port-file", str(port_file), "--log-format", "text", *args]

    def limit():
        if nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    env = dict(os.environ, GRPC_ENABLE_FORK_SUPPORT="0")
    proc = subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT, preexec_fn=limit, env=env,
                            cwd=Path(__file__).resolve().parent.parent)
    deadline = time.monotonic() + timeout
    while not port_file.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"the server did not start: {log.read_text()[-2000:]}")
        time.sleep(0.05)
    return ServerProcess(proc, json.loads(port_file.read_text()), log, cmd)


def fd_count(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# ---------------------------------------------------------------------------------------- abusers
OPENED_AT: dict[int, float] = {}  # socket fd -> when its connect was issued (time.monotonic)


def open_silent(port: int, n: int, seconds: float = 20.0) -> list[socket.socket]:
    """`n` TCP connections that send nothing (non-blocking connects; those not connected within `seconds`
    are left as they are)."""
    socks = []
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        OPENED_AT[s.fileno()] = time.monotonic()
        with contextlib.suppress(BlockingIOError):
            s.connect((HOST, port))
        socks.append(s)
    deadline = time.monotonic() + seconds
    pending = set(socks)
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_WRITE)
    while pending and time.monotonic() < deadline:
        for key, _ in sel.select(0.2):
            sel.unregister(key.fileobj)
            pending.discard(key.fileobj)
            OPENED_AT[key.fileobj.fileno()] = time.monotonic()  # connected: the server's clock starts about now
    sel.close()
    return socks


def send_each(socks: list[socket.socket], data: bytes) -> None:
    for s in socks:
        with contextlib.suppress(OSError):
            s.send(data)


def wait_closed(socks: list[socket.socket], seconds: float, trickle: bytes | None = None,
                every: float = 1.0) -> tuple[int, float]:
    """Wait until the server has closed every socket (EOF or reset) or `seconds` pass, sending `trickle`
    on each still open one every `every` seconds (a slow client). (still open, the longest time from a
    connect to its close by the server)."""
    open_ = {s for s in socks}
    longest = 0.0
    t0 = time.monotonic()
    next_trickle = t0 + every
    sel = selectors.DefaultSelector()
    for s in socks:
        sel.register(s, selectors.EVENT_READ)
    while open_ and time.monotonic() - t0 < seconds:
        for key, _ in sel.select(0.1):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                sel.unregister(s)
                open_.discard(s)
                longest = max(longest, time.monotonic() - OPENED_AT.get(s.fileno(), t0))
        if trickle is not None and time.monotonic() >= next_trickle:
            send_each(list(open_), trickle)
            next_trickle += every
    sel.close()
    return len(open_), longest


class Abuse(threading.Thread):
    """An abuser on a thread of its own: `start_fn()` opens its connections, then it waits (sending
    `trickle` every second) until the server has closed them all or `seconds` pass."""

    def __init__(self, start_fn, trickle: bytes | None = None, seconds: float = 30.0):
        super().__init__(daemon=True)
        self.start_fn, self.trickle, self.seconds = start_fn, trickle, seconds
        self.socks: list[socket.socket] = []
        self.opened = threading.Event()
        self.still_open, self.longest = -1, float("nan")  # longest: a connection's life, connect to close

    def run(self):
        try:
            self.socks = self.start_fn()
            self.opened.set()
            self.still_open, self.longest = wait_closed(self.socks, self.seconds, self.trickle)
        finally:
            self.opened.set()
            close_all(self.socks)


def close_all(socks) -> None:
    for s in socks:
        with contextlib.suppress(OSError):
            s.close()


# ---------------------------------------------------------------------------------------- normal calls
def http_call(port: int, path: str, body: bytes | None, timeout: float, headers=None, tls_context=None):
    """One HTTP call on a new connection: (status, body)."""
    if tls_context is not None:
        conn = http.client.HTTPSConnection(HOST, port, timeout=timeout, context=tls_context)
    else:
        conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request("POST" if body is not None else "GET", path, body=body,
                     headers={"content-type": "application/json", **(headers or {})})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


@dataclass
class Prober:
    """Times normal calls: a gRPC SampleMove on a channel opened before the abuse, an HTTP SampleMove on
    a new connection each."""
    ports: dict
    variant: str
    timeout: float = 2.0

    def __post_init__(self):
        from clients.client import GameStrategyClient

        self.client = GameStrategyClient(f"{HOST}:{self.ports['port']}", timeout=self.timeout)
        self.body = json.dumps({"variant": self.variant, "gameSeed": 1, "jotto": {"role": "GUESSER"}}).encode()

    def grpc_once(self) -> float:
        t0 = time.perf_counter()
        self.client.jotto_move(self.variant, "guesser", seed=1)
        return time.perf_counter() - t0

    def http_once(self) -> float:
        t0 = time.perf_counter()
        status, body = http_call(self.ports["http_port"], "/v1/SampleMove", self.body, self.timeout)
        if status != 200:
            raise RuntimeError(f"HTTP {status}: {body[:200]!r}")
        return time.perf_counter() - t0

    def run(self, n: int, seconds: float = 30.0, until=None) -> dict:
        """`n` calls of each kind, alternating (at most `seconds`; with `until`, on until it returns True,
        `n` calls or more): latencies and failures by kind."""
        out = {"grpc": [], "http": [], "failures": []}
        t0 = time.monotonic()
        i = 0
        while time.monotonic() - t0 < seconds and (i < n or (until is not None and not until())):
            i += 1
            for kind, call in (("grpc", self.grpc_once), ("http", self.http_once)):
                try:
                    out[kind].append(call())
                except Exception as e:  # noqa: BLE001 - a failed call is what is measured
                    out["failures"].append(f"{kind}: {type(e).__name__}: {str(e)[:200]}")
        return out

    def close(self) -> None:
        self.client.close()


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


# ---------------------------------------------------------------------------------------- the table
def _abuses(ports: dict, silent: int):
    """(name, start() -> sockets, trickle bytes or None, the timeout that must close them)."""
    head = b"POST /v1/SampleMove HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
    http, grpc_port = ports["http_port"], ports["port"]

    def slow_head():
        socks = open_silent(http, 200)
        send_each(socks, head)
        return socks

    def slow_body():
        socks = open_silent(http, 200)
        send_each(socks, head + b"content-length: 1000\r\n\r\n{")
        return socks

    def idle_keepalive():
        socks = open_silent(http, 300)
        send_each(socks, b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
        return socks

    return [
        (f"{silent} silent HTTP connections", lambda: open_silent(http, silent), None, "header"),
        (f"{silent} silent gRPC connections", lambda: open_silent(grpc_port, silent), None, "header"),
        ("200 slow HTTP heads (a byte a second)", slow_head, b"x", "header"),
        ("200 slow HTTP bodies (a byte a second)", slow_body, b"1", "body"),
        ("300 idle HTTP keep-alives", idle_keepalive, None, "idle"),
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.abuse", description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path(os.environ.get("GAMESTRATEGY_STORES", "stores")))
    ap.add_argument("--variant", default="jotto-en_US80-2-ganzfried")
    ap.add_argument("--nofile", type=int, default=1024, help="the server's ulimit -n (soft and hard)")
    ap.add_argument("--silent", type=int, default=5000)
    ap.add_argument("--calls", type=int, default=200, help="normal calls of each kind per phase")
    args = ap.parse_args(argv)
    raise_own_fd_limit(args.silent + 1000)
    srv = start_server(args.root, nofile=args.nofile)
    timeouts = {"header": 5.0, "body": 10.0, "idle": 5.0}  # the defaults (python -m server --help)
    try:
        prober = Prober(srv.ports, args.variant)
        prober.run(20)  # warm
        time.sleep(1)
        fd0, rss0 = fd_count(srv.pid), rss_mb(srv.pid)
        idle = prober.run(args.calls)
        rows = [("idle", idle, "", fd0, rss0)]
        for name, start, trickle, which in _abuses(srv.ports, args.silent):
            abuse = Abuse(start, trickle, timeouts[which] + 2.0)
            abuse.start()
            during = prober.run(args.calls, until=lambda: not abuse.is_alive())
            abuse.join()
            time.sleep(1.0)
            closed = (f"all, each within {abuse.longest:.1f} s" if abuse.still_open == 0
                      else f"{abuse.still_open} still open")
            rows.append((name, during, f"{len(abuse.socks)}: {closed}", fd_count(srv.pid), rss_mb(srv.pid)))
        print(f"server: ulimit -n {args.nofile}, default options; gRPC SampleMove on an open channel, HTTP "
              f"SampleMove on a new connection each; {args.calls} calls of each a phase")
        print(f"{'phase':42s} {'gRPC p50/p99 ms':>16s} {'HTTP p50/p99 ms':>16s} {'p99 x idle':>11s} {'failed':>6s} "
              f"{'abusive connections closed':>28s} {'fds':>5s} {'RSS MB':>7s}")
        ig, ih = pct(idle["grpc"], .99), pct(idle["http"], .99)
        for name, r, still, fds, rss in rows:
            g50, g99, h50, h99 = (pct(r["grpc"], .5), pct(r["grpc"], .99), pct(r["http"], .5), pct(r["http"], .99))
            ratio = f"{g99 / ig:.1f} / {h99 / ih:.1f}"
            print(f"{name:42s} {g50 * 1e3:7.2f}/{g99 * 1e3:<8.2f} {h50 * 1e3:7.2f}/{h99 * 1e3:<8.2f} {ratio:>11s} "
                  f"{len(r['failures']):6d} {still:>28s} {fds:5d} {rss:7.1f}")
            for f in r["failures"][:3]:
                print(f"    {f}")
        prober.close()
    finally:
        srv.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
