"""Process faults of ``python -m server --workers 2`` on a copy of the stores: kill -9 of the parent, SIGTERM
during start-up, a served file truncated under the workers' memory maps, and thousands of made-up method
names from callers without a token."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import grpc
import pytest

from clients.client import GameStrategyClient, guesswho_request
from protos import gamestrategy_pb2 as pb
from server.interceptors import KNOWN_METHODS
from tests.faults.conftest import GUESSWHO, JOTTO, REPO, served_file, truncate

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="workers fork")
TOKEN = "fault-suite-token-0123"


def _wait(cond, seconds=60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return False


def _logs(path):
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _servers_on(root) -> list[int]:
    """Every live process whose command line names this store root: the server and its workers."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    if str(root).encode() in f.read() and _alive(int(d)):
                        out.append(int(d))
            except OSError:
                pass
    return out


def _free_ports(n: int) -> tuple[int, ...]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return tuple(s.getsockname()[1] for s in socks)
    finally:
        for s in socks:
            s.close()


def _accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def _listening_ports(pid: int) -> set[int]:
    """The TCP ports a process holds listening sockets on (its descriptors against /proc/net/tcp*)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                cols = line.split()
                if cols[3] == "0A" and cols[9] in inodes:  # LISTEN
                    ports.add(int(cols[1].rsplit(":", 1)[1], 16))
    return ports


class Server:
    """``python -m server`` as a process, its log parsed, stopped (and killed if need be) on leaving."""

    def __init__(self, root, tmp_path, *args, ports=(0, 0, 0), token=None, name="server", path_first=None,
                 env=None):
        self.root, self.log, self.port_file = root, tmp_path / f"{name}.log", tmp_path / f"{name}.ports"
        environ = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
        pythonpath = os.pathsep.join(str(p) for p in (path_first, REPO) if p is not None)
        scratch = tmp_path / f"{name}-tmpdir"  # what a server killed by a test leaves behind stays in pytest's directory
        scratch.mkdir(exist_ok=True)
        environ.update(PYTHONPATH=pythonpath, GAMESTRATEGY_TOKEN=token or "", TMPDIR=str(scratch), **(env or {}))
        env = environ
        with open(self.log, "wb") as fh:
            self.p = subprocess.Popen(
                [sys.executable, "-m", "server", "--root", str(root), "--workers", "2", "--port", str(ports[0]),
                 "--http-port", str(ports[1]), "--metrics-port", str(ports[2]), "--port-file", str(self.port_file),
                 "--grace", "1", *args], cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT)

    def records(self, message=None):
        return [r for r in _logs(self.log) if message is None or r.get("message") == message]

    def wait_ready(self, workers=2):
        ok = _wait(lambda: self.port_file.exists() and len({r["pid"] for r in self.records("listening")}) >= workers)
        assert ok, self.log.read_text()[-3000:]
        return json.loads(self.port_file.read_text())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(30)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(10)
        for pid in _servers_on(self.root):  # nothing of this test outlives it, whatever failed
            os.kill(pid, signal.SIGKILL)


def test_kill_9_of_the_parent_takes_its_workers_and_a_restart_binds_every_port(root, tmp_path):
    with Server(root, tmp_path) as first:
        ports = first.wait_ready()
        workers = {r["pid"] for r in first.records("listening")}
        # no listening socket in a process that does not serve it: metrics in the parent only
        assert ports["metrics_port"] in _listening_ports(first.p.pid)
        for w in workers:
            assert _listening_ports(w) & {ports["port"], ports["http_port"], ports["metrics_port"]} == \
                {ports["port"], ports["http_port"]}
        first.p.kill()
        first.p.wait(10)
        t0 = time.monotonic()
        assert _wait(lambda: not any(_alive(w) for w in workers), 10), "workers outlived their parent"
        gone_after = time.monotonic() - t0
        print(f"workers gone {gone_after:.3f} s after the parent's kill -9")
    fixed = (ports["port"], ports["http_port"], ports["metrics_port"])
    with Server(root, tmp_path, ports=fixed, name="restart") as again:
        info = again.wait_ready()
        assert (info["port"], info["http_port"], info["metrics_port"]) == fixed
        with GameStrategyClient(f"127.0.0.1:{fixed[0]}", timeout=20) as c:
            assert c.jotto_move(JOTTO, "guesser", seed=1).store_version
        assert urllib.request.urlopen(f"http://127.0.0.1:{fixed[2]}/metrics", timeout=10).status == 200


@pytest.mark.parametrize("moment", ["first worker listening", "workers forked"])
def test_sigterm_during_start_up_stops_every_process(root, tmp_path, moment):
    with Server(root, tmp_path) as s:
        if moment == "first worker listening":
            assert _wait(lambda: s.records("listening"), 60), s.log.read_text()[-3000:]
        else:  # the workers exist but none listens yet (each is opening and verifying the stores)
            assert _wait(lambda: s.records("kernels warmed"), 60), s.log.read_text()[-3000:]
            time.sleep(0.05)
        s.p.send_signal(signal.SIGTERM)
        assert s.p.wait(30) == 0, s.log.read_text()[-3000:]
        assert _wait(lambda: not _servers_on(root), 10), _servers_on(root)


def test_a_truncated_store_at_start_up_is_refused_and_the_good_one_served(root, tmp_path):
    truncate(served_file(root))
    with Server(root, tmp_path) as s:
        info = s.wait_ready()
        with GameStrategyClient(f"127.0.0.1:{info['port']}", timeout=20) as c:
            assert c.sample_move(guesswho_request(GUESSWHO, 12, 12)).store_version
            with pytest.raises(grpc.RpcError) as e:
                c.jotto_move(JOTTO, "guesser", seed=1)
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE and "truncated" in e.value.details()
        assert s.p.poll() is None and not s.records("worker died: replacing it")


@pytest.mark.parametrize("keep", ["half", "meta pages"])
def test_a_served_file_truncated_under_the_workers_is_refused_and_the_rest_serves_within_seconds(root, tmp_path, keep):
    """Cut to half, the pages the served calls read may still be there (the per-call check refuses the
    store); cut to its two meta pages, the first lookup of a history not read before touches a page past
    the end of the file under the memory map: SIGBUS, and the worker is replaced."""
    with Server(root, tmp_path, "--refresh-seconds", "1") as s:
        info = s.wait_ready()
        target = f"127.0.0.1:{info['port']}"
        with GameStrategyClient(target, timeout=10) as c:
            before = {seed: c.jotto_move(JOTTO, "guesser", seed=seed) for seed in range(20)}
            words = c.stub.GetWords(pb.GetWordsRequest(variant=JOTTO), timeout=10).words
        path = served_file(root)
        os.truncate(path, os.path.getsize(path) // 2 if keep == "half" else 2 * 4096)
        t0 = time.monotonic()
        wrong = []
        with GameStrategyClient(target, timeout=5) as c:  # histories no worker has read yet: book lookups
            for word in words[:6]:
                try:
                    c.jotto_move(JOTTO, "guesser", history=[(word, 0)], seed=1)
                    wrong.append(word)  # answered from a file that changed since it was verified
                except grpc.RpcError:
                    pass

        def refused_and_others_serve():
            with GameStrategyClient(target, timeout=5) as c:
                for seed in range(20):
                    try:
                        r = c.jotto_move(JOTTO, "guesser", seed=seed)
                    except grpc.RpcError as e:
                        if e.code() == grpc.StatusCode.UNAVAILABLE and "refused" in (e.details() or ""):
                            continue
                        return False
                    if (r.move, r.probability) != (before[seed].move, before[seed].probability):
                        wrong.append(seed)
                    return False
                try:
                    return bool(c.sample_move(guesswho_request(GUESSWHO, 12, 12)).store_version)
                except grpc.RpcError:
                    return False

        assert _wait(refused_and_others_serve, 30), s.log.read_text()[-4000:]
        died = [r["died_of"] for r in s.records("worker died: replacing it")]
        print(f"cut to {keep}: the truncated store refused and the other served {time.monotonic() - t0:.2f} s after "
              f"the truncation; workers replaced: {died}")
        if keep == "meta pages":
            assert "signal SIGBUS" in died
        assert wrong == []  # no answer from damaged bytes

        def readyz():  # a fresh connection each time: either worker answers
            return json.loads(urllib.request.urlopen(f"http://127.0.0.1:{info['http_port']}/readyz", timeout=10).read())

        def both_refuse():  # a worker that served no Jotto call since notices at its next refresh (1 s)
            return all(JOTTO in {r["variant"] for r in readyz()["refused"]} for _ in range(8))

        assert _wait(both_refuse, 15)
        ready = readyz()
        assert ready["status"] == "SERVING"
        assert "truncated" in json.dumps(ready["refused"]) or "changed on disk" in json.dumps(ready["refused"])


def test_a_worker_that_dies_is_replaced(root, tmp_path):
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    with Server(root, tmp_path, env={"PROMETHEUS_MULTIPROC_DIR": str(metrics)}) as s:
        info = s.wait_ready()
        victim = s.records("listening")[0]["pid"]
        assert list(metrics.glob(f"gauge_live*_{victim}.db"))  # the store version it serves, say
        os.kill(victim, signal.SIGBUS)  # what a page of a truncated file does under a memory map
        assert _wait(lambda: len({r["pid"] for r in s.records("listening")} - {victim}) == 2, 30), \
            s.log.read_text()[-3000:]
        died = s.records("worker died: replacing it")
        assert [(r["pid"], r["died_of"]) for r in died] == [(victim, "signal SIGBUS")]
        for seed in range(8):  # fresh connections land on either worker
            with GameStrategyClient(f"127.0.0.1:{info['port']}", timeout=20) as c:
                assert c.jotto_move(JOTTO, "guesser", seed=seed).store_version
        # the dead worker's gauges no longer stand beside the live ones; what it counted still counts
        assert not list(metrics.glob(f"*live*_{victim}.db"))
        assert list(metrics.glob(f"counter_{victim}.db"))


def test_made_up_method_names_from_callers_without_a_token_add_one_label_and_no_log_flood(root, tmp_path):
    with Server(root, tmp_path, token=TOKEN) as s:
        info = s.wait_ready()

        def scrape():
            req = urllib.request.Request(f"http://127.0.0.1:{info['metrics_port']}/metrics",
                                         headers={"Authorization": f"Bearer {TOKEN}"})
            return urllib.request.urlopen(req, timeout=10).read().decode().splitlines()

        def methods(lines):
            return {line.split('method="', 1)[1].split('"', 1)[0] for line in lines if 'method="' in line}

        def rss():
            return sum(int(open(f"/proc/{pid}/statm").read().split()[1]) for pid in _servers_on(root)) * 4096

        def http_post(path):
            req = urllib.request.Request(f"http://127.0.0.1:{info['http_port']}{path}", data=b"{}", method="POST")
            try:
                return urllib.request.urlopen(req, timeout=10).status
            except urllib.error.HTTPError as e:
                return e.code

        def made_up(channel, start, n):
            for i in range(start, start + n):
                name = f"/made.up.Service{i}/Method{i}" + ("x" * 2000 if i % 100 == 0 else "")
                with pytest.raises(grpc.RpcError) as e:
                    channel.unary_unary(name)(b"", timeout=10)
                assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED

        base = scrape()
        with grpc.insecure_channel(f"127.0.0.1:{info['port']}") as ch:
            made_up(ch, 0, 100)
            # over HTTP the token is checked before the method exists: 401, not 501
            assert {http_post(f"/v1/MadeUp{i}") for i in range(20)} == {401}
            assert http_post("/v1/SampleMoveStream") == 401
            time.sleep(1.5)  # the workers fold their tallies into the metrics every second
            after_first, rss_first = scrape(), rss()
            made_up(ch, 100, 2900)
        assert {http_post(f"/v1/MadeUp{i}" + "y" * (i % 7) * 300) for i in range(20, 300)} == {401}
        time.sleep(1.5)
        after_all, rss_all = scrape(), rss()
        print(f"metrics lines {len(base)} -> {len(after_first)} -> {len(after_all)}; "
              f"RSS {rss_first / 2**20:.0f} -> {rss_all / 2**20:.0f} MB over 3,000 made-up names")
        known = {m.rsplit("/", 1)[1] for m in KNOWN_METHODS}
        assert methods(after_all) - methods(base) <= {"unknown"} | known and "unknown" in methods(after_all)
        assert len(after_all) == len(after_first)
        refused_logs = [r for r in s.records() if r.get("message", "").startswith("refused")]
        assert len(refused_logs) <= 2 * 10 * 2  # two workers, gRPC and HTTP, a budget of 10 a minute each
        assert max(len(r.get("method", "")) for r in refused_logs) < 200  # echoed names clipped


# imported by every python process of the server (PYTHONPATH): the content check of the version named by
# FAULTS_HOLD_CHECK (``python -m server.storecheck PATH``) waits until the file FAULTS_RELEASE exists, so that
# check is as slow as the test wants
HOLD_CHECK = """\
import os, sys, time
if sys.orig_argv[-2:] == ["server.storecheck", os.environ.get("FAULTS_HOLD_CHECK")]:
    open(os.environ["FAULTS_HELD"], "w").close()
    end = time.monotonic() + 300
    while not os.path.exists(os.environ["FAULTS_RELEASE"]) and time.monotonic() < end:
        time.sleep(0.05)
"""


def test_a_server_listens_while_a_store_is_verified_and_serves_the_others_meanwhile(root, tmp_path):
    """One store's content check held: the ports accept, the other store answers, the held one answers
    UNAVAILABLE (retry: store) and /readyz names it; released, it is served."""
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(HOLD_CHECK)
    held, release = tmp_path / "held", tmp_path / "release"
    version = (root / "guesswho" / GUESSWHO / "current").resolve()
    ports = _free_ports(3)
    env = {"FAULTS_HOLD_CHECK": str(version), "FAULTS_HELD": str(held), "FAULTS_RELEASE": str(release)}
    with Server(root, tmp_path, ports=ports, path_first=inject, env=env) as s:
        assert _wait(held.exists), s.log.read_text()[-3000:]
        assert _wait(lambda: _accepts(ports[0]) and _accepts(ports[1])), \
            "the server does not listen while a store's check runs:\n" + s.log.read_text()[-3000:]
        assert _wait(lambda: len({r["pid"] for r in s.records("serving store") if r["variant"] == JOTTO}) == 2)
        assert not release.exists() and not s.port_file.exists()  # written once the stores present were checked
        for _ in range(4):  # both workers (the ports are shared) answer alike
            with urllib.request.urlopen(f"http://127.0.0.1:{ports[1]}/readyz", timeout=10) as r:
                ready = json.loads(r.read())
            assert ready["status"] == "SERVING" and ready["variants"] == 1
            assert ready["verifying"] == [{"variant": GUESSWHO, "version": version.name}]
        with GameStrategyClient(f"127.0.0.1:{ports[0]}", timeout=20) as c:
            for seed in range(8):
                assert c.jotto_move(JOTTO, "guesser", seed=seed).store_version
                with pytest.raises(grpc.RpcError) as e:
                    c.sample_move(guesswho_request(GUESSWHO, 12, 12))
                assert e.value.code() == grpc.StatusCode.UNAVAILABLE and "being verified" in e.value.details()
                assert ("gamestrategy-retry", "store") in tuple(e.value.trailing_metadata())
            release.touch()
            info = s.wait_ready()
            assert info["port"] == ports[0]
            assert _wait(lambda: len({r["pid"] for r in s.records("serving store") if r["variant"] == GUESSWHO}) == 2)
            for seed in range(8):
                assert c.sample_move(guesswho_request(GUESSWHO, 12, 12, seed=seed)).store_version == version.name
