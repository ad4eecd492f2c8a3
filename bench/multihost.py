"""Three hosts behind a real load balancer, under steady load, with faults (docs/operations.md, "Scaling out").

    sudo .venv/bin/python -m bench.multihost [--rate 20] [--seconds 4]

Needs root (network namespaces) and Debian's haproxy. Three network namespaces stand for three hosts, each
joined by a veth pair to a bridge in the root namespace; each host runs ``python -m server`` on its own copy
of the same store (copied, then checked: each copy's content hash recomputed from its data equals the
source's). HAProxy in the root namespace balances gRPC (HTTP/2 to the hosts) and HTTP/JSON round robin,
checks every host's ``/readyz`` twice a second, and retries a call whose connection failed or came back
empty on another host. Clients send SampleMove over gRPC (a retry policy in the channel's service config:
UNAVAILABLE is retried) and over HTTP (502/503/504 and connection errors retried) at a steady rate while
the drill runs its phases:

1. ``steady``: nothing happens.
2. ``kill``: host 1's server gets SIGKILL; it is started again and rejoins.
3. ``cut``: host 2's link goes down, then up again.
4. ``roll``: a new store version is published on each host in turn (copied in, ``current`` switched,
   SIGHUP, the host answering the new version before the next host's turn).
5. ``drain``: host 3's server gets SIGTERM: gRPC health and /readyz say NOT_SERVING while it still answers
   for ``--drain-seconds`` (the balancer's checks take it out), then in-flight calls get ``--grace``.

It prints, per phase, the calls sent, the failed ones (after retries; each with its error), p50 / p99 and
the store versions of the replies that came in during the phase.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import numpy as np

from protos import gamestrategy_pb2 as pb
from protos import gamestrategy_pb2_grpc as pb_grpc

VARIANT = "jotto-en_US80-2-ganzfried"
HOSTS = 3
GRPC_PORT, HTTP_PORT = 50051, 8080
CHECK_MS = 500  # HAProxy's health-check interval; a host is out after 2 failed checks, back after 2 good ones
GRACE = 3.0  # the hosts' --grace
DRAIN = 1.5  # the hosts' --drain-seconds: 2 failed checks at CHECK_MS take a draining host out before it stops
# gRPC's retry policy (https://github.com/grpc/proposal/blob/master/A6-client-retries.md), in the service config
SERVICE_CONFIG = json.dumps({"methodConfig": [{
    "name": [{"service": "gamestrategy.v1.GameStrategy"}],
    "timeout": "10s",
    "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.05s", "maxBackoff": "1s", "backoffMultiplier": 2,
                    "retryableStatusCodes": ["UNAVAILABLE"]}}]})
HTTP_RETRY_STATUS = (502, 503, 504)
HTTP_ATTEMPTS = 5


def sh(*cmd: str) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


@dataclass
class Network:
    """A bridge in the root namespace and one namespace per host, each on a veth pair; names and subnet from
    ``tag`` so that two drills on one machine do not meet."""
    tag: int
    hosts: int = HOSTS

    def __post_init__(self):
        self.bridge = f"gs{self.tag}br"
        self.subnet = f"10.{200 + self.tag % 50}.{self.tag // 50 % 250}"
        self.gateway = f"{self.subnet}.1"

    def ns(self, i: int) -> str:
        return f"gs{self.tag}h{i}"

    def veth(self, i: int) -> str:
        return f"gs{self.tag}v{i}"

    def address(self, i: int) -> str:
        return f"{self.subnet}.{10 + i}"

    def up(self) -> None:
        sh("ip", "link", "add", self.bridge, "type", "bridge")
        sh("ip", "addr", "add", f"{self.gateway}/24", "dev", self.bridge)
        sh("ip", "link", "set", self.bridge, "up")
        for i in range(1, self.hosts + 1):
            ns, veth, peer = self.ns(i), self.veth(i), f"gs{self.tag}p{i}"
            sh("ip", "netns", "add", ns)
            sh("ip", "link", "add", veth, "type", "veth", "peer", "name", peer)
            sh("ip", "link", "set", peer, "netns", ns)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "addr", "add", f"{self.address(i)}/24", "dev", peer)
            sh("ip", "-n", ns, "link", "set", peer, "up")
            sh("ip", "link", "set", veth, "master", self.bridge)
            sh("ip", "link", "set", veth, "up")

    def link(self, i: int, state: str) -> None:
        sh("ip", "link", "set", self.veth(i), state)

    def down(self) -> None:
        for i in range(1, self.hosts + 1):
            subprocess.run(["ip", "netns", "del", self.ns(i)], capture_output=True)  # takes its veth pair along
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)


def copy_store(source: Path, root: Path) -> Path:
    """Publish a copy of store version ``source`` under ``root`` as a build does: the version directory in
    place under a temporary name, then ``current`` switched atomically."""
    base = root / "jotto" / VARIANT
    base.mkdir(parents=True, exist_ok=True)
    tmp = base / f".{source.name}.tmp"
    shutil.copytree(source, tmp)
    os.replace(tmp, base / source.name)
    link = base / f".current-{source.name}"
    os.symlink(source.name, link)
    os.replace(link, base / "current")
    return base / source.name


def verified_hash(path: Path) -> str:
    """The store's content hash recomputed from its data; ValueError unless it is the recorded one."""
    from games.storage import Store

    store = Store(path)
    try:
        got, recorded = store.content_hash(), store.manifest["content_hash"]
    finally:
        store.close()
    if got != recorded:
        raise ValueError(f"{path}: content hash {got} is not the recorded {recorded}")
    return got


class Host:
    """One host: its namespace, its store root and its server process."""

    def __init__(self, net: Network, i: int, work: Path):
        self.net, self.i, self.root = net, i, work / f"host{i}" / "stores"
        self.log = work / f"host{i}" / "server.log"
        self.proc: subprocess.Popen | None = None

    @property
    def address(self) -> str:
        return self.net.address(self.i)

    def start(self) -> None:
        cmd = ["ip", "netns", "exec", self.net.ns(self.i), sys.executable, "-m", "server", "--host", self.address,
               "--port", str(GRPC_PORT), "--http-port", str(HTTP_PORT), "--metrics-port", "-1", "--workers", "1",
               "--root", str(self.root), "--grace", str(GRACE), "--drain-seconds", str(DRAIN), "--refresh-seconds", "0",
               "--log-format", "json"]
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        self.proc = subprocess.Popen(cmd, stdout=self.log.open("ab"), stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def wait_exit(self, timeout: float) -> int:
        return self.proc.wait(timeout)

    def get(self, path: str, timeout: float = 2.0) -> tuple[int, dict]:
        c = http.client.HTTPConnection(self.address, HTTP_PORT, timeout=timeout)
        try:
            c.request("GET" if not path.startswith("/v1/") else "POST", path, body=b"{}" if path.startswith("/v1/") else None)
            r = c.getresponse()
            return r.status, json.loads(r.read() or b"{}")
        finally:
            c.close()

    def wait_ready(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"host {self.i}'s server exited ({self.proc.returncode}); see {self.log}")
            try:
                if self.get("/readyz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise TimeoutError(f"host {self.i} not ready within {timeout} s; see {self.log}")

    def version(self) -> str:
        status, body = self.get("/v1/ListVariants")
        return body["variants"][0]["storeVersion"] if status == 200 else ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


HAPROXY_CONFIG = """\
global
    maxconn 4096
    log stdout format raw local0
defaults
    mode http
    log global
    option httplog
    timeout connect 500ms
    timeout client 30s
    timeout server 3s
    timeout check 1s
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response response-timeout 502 503 504
frontend grpc_in
    bind {gateway}:{grpc_port} proto h2
    default_backend grpc_hosts
frontend http_in
    bind {gateway}:{http_port}
    default_backend http_hosts
backend grpc_hosts
    balance roundrobin
    # each host's gRPC server follows its /readyz check in http_hosts
    default-server proto h2 on-marked-down shutdown-sessions
{grpc_servers}
backend http_hosts
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server check inter {check_ms} fall 2 rise 2 on-marked-down shutdown-sessions
{http_servers}
"""


def haproxy_config(bind: str, grpc_port: int, http_port: int, hosts: list[str]) -> str:
    """HAProxy's configuration: gRPC and HTTP frontends on ``bind``, round robin over ``hosts`` (addresses)."""
    return HAPROXY_CONFIG.format(
        gateway=bind, grpc_port=grpc_port, http_port=http_port, check_ms=CHECK_MS,
        grpc_servers="\n".join(f"    server h{i} {a}:{GRPC_PORT} track http_hosts/h{i}" for i, a in enumerate(hosts, 1)),
        http_servers="\n".join(f"    server h{i} {a}:{HTTP_PORT}" for i, a in enumerate(hosts, 1)))


EXAMPLE_HOSTS = ["10.0.0.11", "10.0.0.12", "10.0.0.13"]
EXAMPLE_CONFIG = Path(__file__).resolve().parents[1] / "deploy" / "haproxy" / "gamestrategy.cfg"


def example_config() -> str:
    """deploy/haproxy/gamestrategy.cfg: the drill's configuration for three hosts at EXAMPLE_HOSTS."""
    return ("# HAProxy in front of three gamestrategy hosts (docs/operations.md, Scaling out). Generated by\n"
            "# `python -m bench.multihost --example-config`: the multi-host drill runs this configuration with its\n"
            "# own addresses (tests/bench/test_multihost.py checks the file with `haproxy -c`).\n"
            + haproxy_config("0.0.0.0", GRPC_PORT, HTTP_PORT, EXAMPLE_HOSTS))


@dataclass
class Call:
    phase: str  # when the call was sent
    answered_in: str  # the phase when its answer came
    transport: str
    ok: bool
    seconds: float
    version: str = ""
    error: str = ""


@dataclass
class Load:
    """Steady SampleMove load through the balancer: ``rate`` calls a second on each transport."""
    gateway: str
    grpc_port: int
    http_port: int
    rate: float
    phase: str = "steady"
    calls: list = field(default_factory=list)

    def __post_init__(self):
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def start(self, threads_per_transport: int = 4) -> None:
        for transport in ("grpc", "http"):
            for k in range(threads_per_transport):
                t = threading.Thread(target=self._run, args=(transport, k, threads_per_transport), daemon=True)
                t.start()
                self._threads.append(t)

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(30)

    def _run(self, transport: str, k: int, n: int) -> None:
        period = n / self.rate
        channel = grpc.insecure_channel(f"{self.gateway}:{self.grpc_port}",
                                        options=[("grpc.service_config", SERVICE_CONFIG), ("grpc.enable_retries", 1)])
        stub = pb_grpc.GameStrategyStub(channel)
        conn = None
        seed = k
        next_at = time.monotonic() + k * period / n
        while not self._stop.is_set():
            delay = next_at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            next_at += period
            seed += n
            phase, t0 = self.phase, time.perf_counter()
            if transport == "grpc":
                ok, version, error = self._grpc(stub, seed)
            else:
                ok, version, error, conn = self._http(conn, seed)
            call = Call(phase, self.phase, transport, ok, time.perf_counter() - t0, version, error)
            with self._lock:
                self.calls.append(call)
        channel.close()

    @staticmethod
    def _grpc(stub, seed: int) -> tuple[bool, str, str]:
        req = pb.SampleMoveRequest(variant=VARIANT, game_seed=seed, jotto=pb.JottoState(role=pb.JottoState.GUESSER))
        try:
            return True, stub.SampleMove(req, timeout=10).store_version, ""
        except grpc.RpcError as e:
            return False, "", f"{e.code().name}: {e.details()}"

    def _http(self, conn, seed: int):
        body = json.dumps({"variant": VARIANT, "gameSeed": str(seed), "jotto": {"role": "GUESSER"}})
        error = ""
        for attempt in range(HTTP_ATTEMPTS):
            if attempt:
                time.sleep(min(1.0, 0.05 * 2 ** (attempt - 1)))
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(self.gateway, self.http_port, timeout=10)
                conn.request("POST", "/v1/SampleMove", body=body, headers={"content-type": "application/json"})
                r = conn.getresponse()
                data = r.read()
                if r.status == 200:
                    return True, json.loads(data)["storeVersion"], "", conn
                error = f"HTTP {r.status}: {data[:200]!r}"
                if r.status not in HTTP_RETRY_STATUS:
                    return False, "", error, conn
            except (OSError, http.client.HTTPException) as e:
                error = f"{type(e).__name__}: {e}"
                conn.close()
                conn = None
        return False, "", error, conn


@dataclass
class PhaseReport:
    phase: str
    calls: int
    failed: int
    p50_ms: float
    p99_ms: float
    versions: dict
    errors: list

    def row(self) -> str:
        versions = ", ".join(f"{v[-8:]}: {n}" for v, n in sorted(self.versions.items()))
        return (f"| {self.phase} | {self.calls} | {self.failed} | {self.p50_ms:.1f} / {self.p99_ms:.1f} | "
                f"{versions} |")


def report(calls: list[Call], phases: list[str]) -> list[PhaseReport]:
    out = []
    for phase in phases:
        mine = [c for c in calls if c.phase == phase]
        ms = np.array([c.seconds * 1e3 for c in mine]) if mine else np.zeros(1)
        answered = Counter(c.version for c in calls if c.ok and c.answered_in == phase)
        out.append(PhaseReport(phase, len(mine), sum(not c.ok for c in mine), float(np.percentile(ms, 50)),
                               float(np.percentile(ms, 99)), dict(answered),
                               [f"{c.transport}: {c.error}" for c in mine if not c.ok]))
    return out


class Drill:
    """The setup (network, stores, servers, balancer) and the phases, as named steps."""

    def __init__(self, work: Path, rate: float, seconds: float, log=print):
        self.work, self.rate, self.seconds, self.log = work, rate, seconds, log
        self.net = Network(os.getpid() % 12500)
        self.hosts = [Host(self.net, i, work) for i in range(1, HOSTS + 1)]
        self.haproxy: subprocess.Popen | None = None
        self.load: Load | None = None
        self.phase_times: dict[str, float] = {}
        self.roll_versions: list[tuple[int, str]] = []
        self.drain: dict = {}
        self.down_events: list[str] = []

    def run(self) -> list[PhaseReport]:
        try:
            v1, v2 = self.build_store_versions()
            self.net.up()
            self.give_each_host_a_verified_copy(v1)
            self.start_servers()
            self.start_balancer()
            self.start_load()
            self.phase("steady", lambda: time.sleep(self.seconds))
            self.phase("kill", self.kill_and_restart_host_1)
            self.phase("cut", self.cut_and_restore_host_2)
            self.phase("roll", lambda: self.roll(v2))
            self.phase("drain", self.drain_host_3)
            self.load.stop()
            return report(self.load.calls, list(self.phase_times))
        finally:
            self.tear_down()
            self.down_events = self.balancer_down_events()

    def balancer_down_events(self) -> list[str]:
        """HAProxy's "host out" lines (``Server http_hosts/h3 is DOWN, reason: ...``), in order."""
        path = self.work / "haproxy.log"
        lines = path.read_text(errors="replace").splitlines() if path.exists() else []
        return [line.split("Server ", 1)[1].split(". ")[0] for line in lines
                if line.startswith("Server http_hosts/") and " is DOWN" in line]

    def build_store_versions(self) -> tuple[Path, Path]:
        from builder.jotto import JottoParams, build_jotto_store

        source = self.work / "published"
        params = JottoParams(fp_iterations=20, do_iterations=2, book_threshold=6)
        v1 = build_jotto_store(VARIANT, params, source)
        v2 = build_jotto_store(VARIANT, JottoParams(fp_iterations=21, do_iterations=2, book_threshold=6), source)
        return v1, v2

    def give_each_host_a_verified_copy(self, version: Path) -> None:
        want = verified_hash(version)
        for h in self.hosts:
            (h.root.parent).mkdir(parents=True, exist_ok=True)
            got = verified_hash(copy_store(version, h.root))
            assert got == want
        self.log(f"each host holds its own copy of {version.name}, content hash {want[:16]}... verified")

    def start_servers(self) -> None:
        for h in self.hosts:
            h.start()
        for h in self.hosts:
            h.wait_ready()

    def start_balancer(self) -> None:
        self.grpc_port, self.http_port = 18000 + self.net.tag % 1000 * 2, 18001 + self.net.tag % 1000 * 2
        cfg = self.work / "haproxy.cfg"
        cfg.write_text(haproxy_config(self.net.gateway, self.grpc_port, self.http_port,
                                      [self.net.address(i) for i in range(1, HOSTS + 1)]))
        sh("haproxy", "-c", "-q", "-f", str(cfg))
        self.haproxy = subprocess.Popen(["haproxy", "-db", "-f", str(cfg)], stdout=(self.work / "haproxy.log").open("wb"),
                                        stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while True:
            try:
                c = http.client.HTTPConnection(self.net.gateway, self.http_port, timeout=2)
                c.request("POST", "/v1/ListVariants", body=b"{}")
                if c.getresponse().status == 200:
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.1)
        time.sleep(2 * CHECK_MS / 1000)  # every host passes its first checks

    def start_load(self) -> None:
        self.load = Load(self.net.gateway, self.grpc_port, self.http_port, self.rate)
        self.load.start()

    def phase(self, name: str, action) -> None:
        self.load.phase = name
        t0 = time.monotonic()
        action()
        self.phase_times[name] = time.monotonic() - t0
        self.log(f"phase {name}: {self.phase_times[name]:.1f} s")

    def kill_and_restart_host_1(self) -> None:
        h = self.hosts[0]
        h.signal(signal.SIGKILL)
        h.wait_exit(10)
        time.sleep(self.seconds)
        h.start()
        h.wait_ready()
        time.sleep(3 * CHECK_MS / 1000)  # two good checks bring it back

    def cut_and_restore_host_2(self) -> None:
        self.net.link(2, "down")
        time.sleep(self.seconds)
        self.net.link(2, "up")
        self.hosts[1].wait_ready()
        time.sleep(3 * CHECK_MS / 1000)

    def roll(self, version: Path) -> None:
        want = verified_hash(version)
        for h in self.hosts:
            assert verified_hash(copy_store(version, h.root)) == want
            h.signal(signal.SIGHUP)
            deadline = time.monotonic() + 30
            while h.version() != version.name:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"host {h.i} did not swap in {version.name}")
                time.sleep(0.05)
            h.wait_ready()
            self.roll_versions.append((h.i, version.name))
            time.sleep(self.seconds / HOSTS)

    def drain_host_3(self) -> None:
        """SIGTERM; the seconds until /readyz answers 503 (the balancer's cue) and until the process exits."""
        h = self.hosts[2]
        t0 = time.monotonic()
        h.signal(signal.SIGTERM)
        self.drain = {"readyz_503_s": None, "exit_s": None}
        while h.proc.poll() is None and time.monotonic() - t0 < DRAIN + GRACE * 3 + 10:
            try:
                if h.get("/readyz", timeout=0.5)[0] == 503:
                    self.drain["readyz_503_s"] = time.monotonic() - t0
                    break
            except OSError:
                break  # the HTTP listener closed before a 503 was seen
            time.sleep(0.01)
        code = h.wait_exit(DRAIN + GRACE * 3 + 10)
        self.drain["exit_s"] = time.monotonic() - t0
        if code != 0:
            raise RuntimeError(f"host 3's server exited {code} on SIGTERM; see {h.log}")
        self.log(f"drain: /readyz 503 after {self.drain['readyz_503_s']} s, exit after {self.drain['exit_s']:.2f} s")
        time.sleep(self.seconds)

    def tear_down(self) -> None:
        if self.load is not None:
            self.load.stop()
        if self.haproxy is not None and self.haproxy.poll() is None:
            self.haproxy.terminate()
            self.haproxy.wait(10)
        for h in self.hosts:
            h.stop()
        self.net.down()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.multihost", description=__doc__.splitlines()[0])
    ap.add_argument("--rate", type=float, default=20.0, help="SampleMove calls a second on each transport")
    ap.add_argument("--seconds", type=float, default=4.0, help="how long each fault lasts (and the steady phase)")
    ap.add_argument("--example-config", action="store_true",
                    help="print the HAProxy configuration for three hosts at 10.0.0.11-13 and exit")
    args = ap.parse_args(argv)
    if args.example_config:
        print(example_config(), end="")
        return 0
    if os.geteuid() != 0:
        ap.error("needs root: network namespaces (run it with sudo)")
    if shutil.which("haproxy") is None:
        ap.error("needs Debian's haproxy (apt-get install haproxy)")
    with tempfile.TemporaryDirectory(prefix="gamestrategy-multihost-") as tmp:
        drill = Drill(Path(tmp), args.rate, args.seconds)
        reports = drill.run()
    print("| phase | calls | failed | p50 / p99 ms | store versions answering (replies in the phase) |")
    print("|---|---|---|---|---|")
    for r in reports:
        print(r.row())
    print(f"drain: /readyz answered 503 {drill.drain['readyz_503_s']:.2f} s after SIGTERM, the process exited after "
          f"{drill.drain['exit_s']:.2f} s")
    for event in drill.down_events:
        print(f"balancer: {event}")
    for r in reports:
        for e in r.errors:
            print(f"failed in {r.phase}: {e}")
    return 0 if not any(r.failed for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
