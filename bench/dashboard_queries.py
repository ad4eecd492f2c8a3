"""The Grafana dashboard's queries answered by a real Prometheus: Debian's prometheus scrapes a live server under
load with the rules of deploy/prometheus loaded, and every panel's expression of
deploy/grafana/gamestrategy-dashboard.json is evaluated; each must return data. Grafana itself cannot run here
(docs/deploying.md says why), so ``--screenshot`` has Chromium take Prometheus's own graph page of some of them.

  python -m bench.dashboard_queries [--root stores] [--variant dudo-5dice-default] [--seconds 120]
                                    [--screenshot docs/img/prometheus-dashboard-queries.png]

The server runs with two workers, a bearer token on every port (Prometheus scrapes with it) and a small
``--max-connections``, so that every panel has something to show: book hits over gRPC, HTTP and a stream, a caller's
bad request (INVALID_ARGUMENT), a call without the token (UNAUTHENTICATED), and idle HTTP keep-alive connections
past the cap (the oldest evicted). Prometheus scrapes every second and evaluates the rules every second; after
``--seconds`` of load each panel's expression is asked of ``/api/v1/query`` and the table says how many series it
returned and one value. Exit 1 when a panel's expression returns nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
RULES = REPO / "deploy" / "prometheus" / "gamestrategy-rules.yml"
DASHBOARD = REPO / "deploy" / "grafana" / "gamestrategy-dashboard.json"
PROMETHEUS = "/usr/bin/prometheus"
PROMTOOL = "/usr/bin/promtool"
CHROMIUM = "/usr/bin/chromium"
JOB = "gamestrategy"
TOKEN = "dashboard-queries-token"
MAX_CONNECTIONS = 4
# the dashboard's key expressions shown on Prometheus's graph page (--screenshot)
SHOWN = ("gamestrategy:requests:rate5m", "gamestrategy:request_seconds:p99_5m", "gamestrategy:store_age_seconds")


def panel_queries(dashboard: Path = DASHBOARD, job: str = JOB) -> list[tuple[str, str]]:
    """(panel title, expression) of every target of the dashboard, its ``$job`` variable set."""
    d = json.loads(dashboard.read_text())
    return [(p["title"], t["expr"].replace("$job", job)) for p in d["panels"] for t in p["targets"]]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prometheus_config(metrics_port: int, token_file: Path) -> dict:
    return {"global": {"scrape_interval": "1s", "evaluation_interval": "1s", "scrape_timeout": "1s"},
            "rule_files": [str(RULES)],
            "scrape_configs": [{"job_name": JOB, "authorization": {"credentials_file": str(token_file)},
                                "static_configs": [{"targets": [f"127.0.0.1:{metrics_port}"]}]}]}


@contextmanager
def prometheus(metrics_port: int, token_file: Path, tmp: Path):
    """Debian's prometheus scraping the server's metrics port, with the rules loaded; yields its base URL."""
    import yaml
    config = tmp / "prometheus.yml"
    config.write_text(yaml.safe_dump(prometheus_config(metrics_port, token_file)))
    r = subprocess.run([PROMTOOL, "check", "config", str(config)],
                       capture_output=True, text=True, timeout=60)
    if r.returncode:
        raise RuntimeError(f"promtool check config: {r.stdout}{r.stderr}")
    for attempt in range(3):  # the port is free when chosen; another process may take it before prometheus binds
        port = free_port()
        log = open(tmp / f"prometheus-{attempt}.log", "wb")
        p = subprocess.Popen([PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp / 'tsdb'}",
                              f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
                             stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            if _wait_ready(p, url):
                yield url
                return
        finally:
            p.terminate()
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            log.close()
    raise RuntimeError(f"prometheus did not start: see {tmp}/prometheus-*.log")


def _wait_ready(p: subprocess.Popen, url: str) -> bool:
    for _ in range(600):
        if p.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url + "/-/ready", timeout=1) as r:
                if r.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def query(url: str, expr: str) -> list[dict]:
    """The instant vector (or scalar, as one sample) of ``expr`` now."""
    with urllib.request.urlopen(f"{url}/api/v1/query?" + urllib.parse.urlencode({"query": expr}), timeout=10) as r:
        body = json.loads(r.read())
    if body["status"] != "success":
        raise RuntimeError(f"{expr}: {body}")
    data = body["data"]
    if data["resultType"] == "vector":
        return data["result"]
    return [{"metric": {}, "value": data["result"]}]


class Load:
    """Calls of every kind the dashboard shows, on threads, until ``stop``; counts what it sent."""

    def __init__(self, ports: dict, variant: str, max_dice: int, seed: int):
        self.ports, self.variant, self.max_dice = ports, variant, max_dice
        self.rng = np.random.default_rng(seed)
        self.sent: dict[str, int] = {}
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._idle: list[socket.socket] = []

    def _count(self, what: str) -> None:
        self.sent[what] = self.sent.get(what, 0) + 1

    def __enter__(self):
        from bench.dudo_search_served import book_requests
        self.reqs = book_requests(self.variant, self.max_dice, 64, self.rng)
        for fn in (self._grpc_calls, self._http_calls):
            th = threading.Thread(target=fn, daemon=True)
            th.start()
            self._threads.append(th)
        return self

    def __exit__(self, *exc):
        self._stop.set()
        for th in self._threads:
            th.join()
        for s in self._idle:
            s.close()

    def _grpc_calls(self):
        import grpc

        from clients.client import GameStrategyClient
        from protos import gamestrategy_pb2 as pb
        good = GameStrategyClient(f"127.0.0.1:{self.ports['port']}", timeout=10, token=TOKEN)
        anonymous = GameStrategyClient(f"127.0.0.1:{self.ports['port']}", timeout=10, token="")
        i = 0
        try:
            while not self._stop.wait(0.02):
                i += 1
                try:
                    good.sample_move(self.reqs[i % len(self.reqs)])
                    self._count("grpc book hit")
                    if i % 25 == 0:
                        bad = pb.SampleMoveRequest(variant=self.variant, dudo=pb.DudoState(own_dice=0))
                        self._expect_error(lambda: good.sample_move(bad), "bad request")
                        self._expect_error(lambda: anonymous.sample_move(self.reqs[0]), "call without the token")
                    if i % 50 == 0:
                        for _ in good.sample_move_stream(self.reqs[:4], timeout=10):
                            self._count("stream message")
                except grpc.RpcError as e:
                    self._count(f"failed {e.code().name}")
        finally:
            good.close()
            anonymous.close()

    def _expect_error(self, call, what: str) -> None:
        import grpc
        try:
            call()
        except grpc.RpcError:
            self._count(what)

    def _http_calls(self):
        from google.protobuf.json_format import MessageToJson
        bodies = [MessageToJson(r).encode() for r in self.reqs]
        i = 0
        while not self._stop.wait(0.05):
            i += 1
            req = urllib.request.Request(f"http://127.0.0.1:{self.ports['http_port']}/v1/SampleMove",
                                         data=bodies[i % len(bodies)], headers={
                                             "Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"})
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    r.read()
                self._count("http book hit")
            except OSError:
                self._count("http failed")
            if i % 40 == 0:
                self._idle_connections()

    def _idle_connections(self):
        """Keep-alive connections that send nothing, past the workers' cap: each worker closes its oldest idle."""
        for s in self._idle:
            s.close()
        self._idle = []
        for _ in range(3 * MAX_CONNECTIONS):
            s = socket.create_connection(("127.0.0.1", self.ports["http_port"]), timeout=5)
            self._idle.append(s)
        self._count("idle connection sets")


def screenshot(url: str, exprs, minutes: int, path: Path) -> None:
    """Chromium's picture of Prometheus's graph page with ``exprs`` as stacked graph panels."""
    from playwright.sync_api import sync_playwright
    params = {}
    for i, e in enumerate(exprs):
        params.update({f"g{i}.expr": e, f"g{i}.tab": "0", f"g{i}.stacked": "0", f"g{i}.show_exemplars": "0",
                       f"g{i}.range_input": f"{minutes}m"})
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu",
                                                                 "--no-first-run", "--disable-background-networking"])
        try:
            page = b.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{url}/graph?" + urllib.parse.urlencode(params), wait_until="networkidle", timeout=60_000)
            page.wait_for_function(f"document.querySelectorAll('.legend').length >= {len(exprs)}", timeout=60_000)
            # one viewport as tall as the page: a full-page capture would paint the fixed navigation bar mid-page
            page.set_viewport_size({"width": 1280, "height": page.evaluate("document.body.scrollHeight")})
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(path))
        finally:
            b.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.dashboard_queries", description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=None, help="a store root holding the Dudo variant (default: stores/)")
    ap.add_argument("--variant", default="dudo-5dice-default", help="the Dudo store the book hits ask")
    ap.add_argument("--seconds", type=float, default=120.0, help="load before the panels are asked")
    ap.add_argument("--wait-seconds", type=float, default=60.0,
                    help="after the load time, how long a panel without data is asked again")
    ap.add_argument("--screenshot", type=Path, help="Chromium's PNG of Prometheus's graph page of "
                    + ", ".join(SHOWN))
    ap.add_argument("--dashboard", type=Path, default=DASHBOARD, help="the Grafana dashboard JSON whose panels are asked")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    from bench.load import _start, _stop
    from games.storage import Store, current_stores, stores_root
    for tool in (PROMETHEUS,) + ((CHROMIUM,) if a.screenshot else ()):
        if not Path(tool).exists():
            print(f"bench.dashboard_queries: {tool} is missing (`make test` installs Debian's prometheus and chromium)",
                  file=sys.stderr)
            return 2
    a.root = a.root or stores_root()
    stores = current_stores(a.root, "dudo")
    if a.variant not in stores:
        print(f"bench.dashboard_queries: {a.variant} is not built under {a.root}", file=sys.stderr)
        return 2
    max_dice = int(Store(stores[a.variant]).manifest["parameters"]["max_dice"])
    with tempfile.TemporaryDirectory(prefix="dashboard-queries-") as tmp_name, \
            open(Path(tmp_name) / "server.log", "wb") as log:
        tmp = Path(tmp_name)
        token_file = tmp / "token"
        token_file.write_text(TOKEN + "\n")
        os.chmod(token_file, 0o600)
        sp, _ = _start([sys.executable, "-m", "server", "--root", str(a.root), "--port", "0", "--http-port", "0",
                        "--metrics-port", "0", "--workers", "2", "--token-file", str(token_file),
                        "--max-connections", str(MAX_CONNECTIONS), "--log-level", "WARNING",
                        "--port-file", str(tmp / "server.json")], tmp / "server.json", log)
        ports = json.loads((tmp / "server.json").read_text())
        try:
            with prometheus(ports["metrics_port"], token_file, tmp) as url, \
                    Load(ports, a.variant, max_dice, a.seed) as load:
                t0 = time.monotonic()
                time.sleep(a.seconds)
                answers = {}
                while True:
                    answers = {(title, expr): query(url, expr) for title, expr in panel_queries(a.dashboard)}
                    if all(answers.values()) or time.monotonic() > t0 + a.seconds + a.wait_seconds:
                        break
                    time.sleep(1)
                if a.screenshot:
                    screenshot(url, SHOWN, max(1, round((time.monotonic() - t0) / 60)), a.screenshot)
        finally:
            _stop(sp)
    print(f"load for {a.seconds:.0f} s: {json.dumps(dict(sorted(load.sent.items())))}")
    print("panel | expression | series | a value")
    print("---|---|---|---")
    for (title, expr), result in answers.items():
        value = result[0]["value"][1] if result else "-"
        print(f"{title} | `{expr}` | {len(result)} | {value}")
    empty = [title for (title, _), result in answers.items() if not result]
    print(f"{len(answers) - len(empty)} of {len(answers)} panel expressions returned data"
          + (f"; none from: {', '.join(empty)}" if empty else ""))
    if a.screenshot:
        print(f"screenshot of Prometheus's graph page ({', '.join(SHOWN)}): {a.screenshot}")
    return 1 if empty else 0


if __name__ == "__main__":
    raise SystemExit(main())
