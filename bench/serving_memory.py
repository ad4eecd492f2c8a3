"""The memory a serving process tree holds on a store root under searched Dudo moves and book calls: RSS and PSS
of the parent, of each server worker and of each live worker, peak and steady, and the whole tree's PSS (the figure
a container's memory request and limit are set from: docs/deploying.md).

  python -m bench.serving_memory [--root stores] [--variant dudo-5dice-default] [--workers 2] [--seconds 60]
                                 [--search-games 2] [--book-clients 8] [--json out.json]

The server runs with the Kubernetes Deployment's options (deploy/kubernetes/deployment.yaml, read here: workers,
grace, drain, refresh, live pool), gRPC, HTTP and metrics on loopback. Phases: ``idle`` (``--idle-seconds`` after the
stores are served), ``warm`` (searched games until a live worker has answered), ``load`` (``--search-games`` searched
games played at once, every move strategy ``search``, beside ``--book-clients`` gRPC callers and one HTTP caller
asking book hits, for ``--seconds``), ``after`` (``--idle-seconds`` once the load stops). Every ``--every`` seconds
each process of the tree is read from ``/proc/<pid>/smaps_rollup``: RSS, PSS (shared pages divided among the
processes mapping them: the store's map is read in place by all), and the anonymous part of each. Peak: the largest
sample over the run; steady: the median of the load phase's second half. A role with several processes (workers,
live workers) reports its largest. Run it alone on the machine: the searched games keep two cores busy.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import psutil

DEPLOYMENT = Path(__file__).resolve().parents[1] / "deploy" / "kubernetes" / "deployment.yaml"
ROLLUP_FIELDS = {"Rss": "rss", "Pss": "pss", "Pss_Anon": "pss_anon", "Anonymous": "anon"}
ROLES = ("parent", "server worker", "live forkserver", "live worker", "other")


def rollup(pid: int) -> dict[str, int] | None:
    """RSS, PSS and their anonymous parts of one process, in bytes (None once it has gone)."""
    out = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                name, _, rest = line.partition(":")
                if name in ROLLUP_FIELDS:
                    out[ROLLUP_FIELDS[name]] = int(rest.split()[0]) * 1024
    except (OSError, ValueError):
        return None
    return out


def roles(parent: int) -> dict[int, str]:
    """pid -> role for every process of the server's tree: the parent, its forked server workers, each worker's
    live pool (multiprocessing's forkserver and the live workers it forks) and anything else (resource tracker)."""
    try:
        root = psutil.Process(parent)
        kids = root.children(recursive=True)
    except psutil.Error:
        return {}
    seen = {}  # pid -> (parent pid, command line)
    for p in kids:
        try:
            seen[p.pid] = (p.ppid(), " ".join(p.cmdline()))
        except psutil.Error:
            continue
    # the live workers are forked by the forkserver without exec: they keep its command line
    forkservers = {pid for pid, (ppid, cmd) in seen.items()
                   if "multiprocessing.forkserver" in cmd and "multiprocessing.forkserver" not in seen.get(ppid, (0, ""))[1]}
    out = {parent: "parent"}
    for pid, (ppid, cmd) in seen.items():
        if pid in forkservers:
            out[pid] = "live forkserver"
        elif ppid in forkservers:
            out[pid] = "live worker"
        elif ppid == parent and "resource_tracker" not in cmd:
            out[pid] = "server worker"
        else:
            out[pid] = "other"
    return out


class Sampler:
    """Samples the tree every ``every`` seconds on a thread; ``phase`` names what the load does now."""

    def __init__(self, parent: int, every: float):
        self.parent, self.every = parent, every
        self.phase = "start"
        self.samples: list[dict] = []  # {t, phase, pid, role, rss, pss, pss_anon, anon}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memory-sampler", daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        while not self._stop.is_set():
            t = time.monotonic()
            for pid, role in roles(self.parent).items():
                m = rollup(pid)
                if m:
                    self.samples.append(dict(m, t=t, phase=self.phase, pid=pid, role=role))
            self._stop.wait(self.every)


def summarise(samples: list[dict]) -> dict:
    """Per role (its largest process) and for the whole tree: peak over the run, steady over the load's second half."""
    load_t = [s["t"] for s in samples if s["phase"] == "load"]
    if not load_t:
        raise RuntimeError("no sample was taken during the load phase")
    half = (min(load_t) + max(load_t)) / 2
    steady_of = lambda s: s["phase"] == "load" and s["t"] >= half  # noqa: E731
    by_pid: dict[int, list[dict]] = defaultdict(list)
    for s in samples:
        by_pid[s["pid"]].append(s)
    out: dict = {"roles": {}, "tree": {}}
    for role in ROLES:
        pids = [pid for pid, ss in by_pid.items() if ss[0]["role"] == role]
        if not pids:
            continue
        row = {"processes": len(pids)}
        for k in ("rss", "pss", "anon"):
            row[f"peak_{k}"] = max(s[k] for pid in pids for s in by_pid[pid])
            steadies = [statistics.median(s[k] for s in by_pid[pid] if steady_of(s))
                        for pid in pids if any(steady_of(s) for s in by_pid[pid])]
            row[f"steady_{k}"] = max(steadies) if steadies else None
        out["roles"][role] = row
    by_t: dict[float, list[dict]] = defaultdict(list)
    for s in samples:
        by_t[s["t"]].append(s)
    for k in ("pss", "pss_anon"):
        totals = {t: sum(s[k] for s in ss) for t, ss in by_t.items()}
        out["tree"][f"peak_{k}"] = max(totals.values())
        out["tree"][f"steady_{k}"] = statistics.median(v for t, v in totals.items()
                                                       if any(steady_of(s) for s in by_t[t]))
        out["tree"][f"idle_{k}"] = statistics.median(v for t, v in totals.items()
                                                     if any(s["phase"] == "idle" for s in by_t[t]))
    out["tree"]["processes_peak"] = max(len(ss) for ss in by_t.values())
    return out


def _mb(x) -> str:
    return "-" if x is None else f"{x / 2**20:8.0f}"


def print_table(summary: dict) -> None:
    print("role              procs  peak RSS  peak PSS  peak anon  steady RSS  steady PSS  steady anon   (MiB)")
    for role, r in summary["roles"].items():
        print(f"{role:17s} {r['processes']:5d}  {_mb(r['peak_rss'])}  {_mb(r['peak_pss'])}  {_mb(r['peak_anon'])}   "
              f"{_mb(r['steady_rss'])}    {_mb(r['steady_pss'])}     {_mb(r['steady_anon'])}")
    t = summary["tree"]
    print(f"whole tree (PSS, MiB): idle {_mb(t['idle_pss']).strip()}, steady under load {_mb(t['steady_pss']).strip()}, "
          f"peak {_mb(t['peak_pss']).strip()}; of it anonymous: idle {_mb(t['idle_pss_anon']).strip()}, steady "
          f"{_mb(t['steady_pss_anon']).strip()}, peak {_mb(t['peak_pss_anon']).strip()}; at most "
          f"{t['processes_peak']} processes at once")


def deployment_options() -> list[str]:
    """The server options of deploy/kubernetes/deployment.yaml but its addresses, store root and log format."""
    import yaml
    (deployment,) = [d for d in yaml.safe_load_all(DEPLOYMENT.read_text()) if d]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    args, out = list(container["args"]), []
    while args:
        opt = args.pop(0)
        value = args.pop(0) if args and not args[0].startswith("--") else None
        if opt not in ("--host", "--metrics-host", "--root", "--log-format"):
            out += [opt] + ([value] if value is not None else [])
    return out


def server_command(root: Path, port_file: Path, workers: int | None = None) -> list[str]:
    """The server as the Deployment runs it, on ``root``, on loopback ports of its choosing (``port_file``)."""
    opts = deployment_options()
    if workers is not None:
        opts[opts.index("--workers") + 1] = str(workers)
    return [sys.executable, "-m", "server", "--root", str(root), *opts, "--port", "0", "--http-port", "0",
            "--metrics-port", "0", "--log-level", "WARNING", "--port-file", str(port_file)]


def http_book_caller(port: int, reqs: list, seconds: float, counts: dict) -> None:
    """Book hits over HTTP/JSON, one after the other, for ``seconds``."""
    from google.protobuf.json_format import MessageToJson
    bodies = [MessageToJson(r).encode() for r in reqs]
    stop_at, i = time.monotonic() + seconds, 0
    while time.monotonic() < stop_at:
        req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/SampleMove", data=bodies[i % len(bodies)],
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                r.read()
            counts["ok"] += 1
        except OSError:
            counts["failed"] += 1
        i += 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.serving_memory", description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=None, help="a store root holding the variant (default: stores/)")
    ap.add_argument("--variant", default="dudo-5dice-default")
    ap.add_argument("--workers", type=int, default=None, help="server worker processes (default: the Deployment's)")
    ap.add_argument("--seconds", type=float, default=60.0, help="the load phase")
    ap.add_argument("--idle-seconds", type=float, default=10.0)
    ap.add_argument("--search-games", type=int, default=2, help="searched games played at once")
    ap.add_argument("--book-clients", type=int, default=8, help="gRPC callers asking book hits")
    ap.add_argument("--deadline", type=float, default=10.0, help="each searched move's deadline, seconds")
    ap.add_argument("--every", type=float, default=0.5, help="seconds between samples")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="write the samples' summary here")
    ap.add_argument("--numba-cache", choices=("fresh", "inherit"), default="fresh",
                    help="fresh: the server compiles its kernels into an empty NUMBA_CACHE_DIR, as a pod does on its "
                    "emptyDir /tmp (the compile's memory counts); inherit: this process's cache")
    a = ap.parse_args(argv)
    import grpc

    from bench.dudo_search_served import Recorder, book_load, book_requests, play_game
    from bench.load import _start, _stop
    from games.storage import Store, current_stores, stores_root
    from protos import gamestrategy_pb2_grpc as pb_grpc
    a.root = a.root or stores_root()
    stores = current_stores(a.root, "dudo")
    if a.variant not in stores:
        print(f"bench.serving_memory: {a.variant} is not built under {a.root}", file=sys.stderr)
        return 2
    manifest = Store(stores[a.variant]).manifest
    md = int(manifest["parameters"]["max_dice"])
    served = {g: sorted(v) for g in ("dudo", "jotto", "guesswho", "hangman") if (v := current_stores(a.root, g))}
    print(f"stores served from {a.root}: {json.dumps(served)}; {a.variant} {manifest['store_version']} "
          f"(code {manifest['code_version']}), {sum(p.stat().st_size for p in a.root.rglob('data.mdb')) / 2**20:.0f} MiB "
          f"of data.mdb under the root")
    rng = np.random.default_rng(a.seed)
    with tempfile.TemporaryDirectory(prefix="serving-memory-") as tmp, open(Path(tmp) / "server.log", "wb") as log:
        if a.numba_cache == "fresh":
            os.environ["NUMBA_CACHE_DIR"] = str(Path(tmp) / "numba")  # the server's environment (bench.load._start)
        cmd = server_command(a.root, Path(tmp) / "server.json", a.workers)
        sp, port = _start(cmd, Path(tmp) / "server.json", log)
        http_port = json.loads((Path(tmp) / "server.json").read_text())["http_port"]
        ch = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub = pb_grpc.GameStrategyStub(ch)
        try:
            with Sampler(sp.pid, a.every) as sampler:
                sampler.phase = "idle"
                time.sleep(a.idle_seconds)
                sampler.phase = "warm"
                warm, t0 = Recorder(), time.monotonic()
                while not warm.sources.get("LIVE") and time.monotonic() < t0 + 300:
                    play_game(stub, a.variant, md, np.random.default_rng(10_000 + a.seed), 120.0, warm)
                sampler.phase = "load"
                busy, stop, searched_errors = Recorder(), threading.Event(), Counter()

                def searched():
                    g = np.random.default_rng(int(rng.integers(1 << 31)))
                    while not stop.is_set():
                        try:
                            play_game(stub, a.variant, md, g, a.deadline, busy)
                        except grpc.RpcError as e:  # a move past its deadline on a busy machine: a new game
                            with busy.lock:
                                searched_errors[e.code().name] += 1

                reqs = book_requests(a.variant, md, 256, rng)
                http_counts = {"ok": 0, "failed": 0}
                ths = [threading.Thread(target=searched, daemon=True) for _ in range(a.search_games)]
                ths.append(threading.Thread(target=http_book_caller, args=(http_port, reqs, a.seconds, http_counts),
                                            daemon=True))
                for th in ths:
                    th.start()
                lat, errors = book_load(stub, reqs, a.book_clients, a.seconds, 5.0)
                stop.set()
                for th in ths:
                    th.join()
                sampler.phase = "after"
                time.sleep(a.idle_seconds)
        finally:
            ch.close()
            _stop(sp)
    busy.print(f"load: {a.search_games} searched games at once (games ended by an error: "
               f"{dict(searched_errors) or 'none'})")
    print(f"book hits: {len(lat)} over gRPC (errors {dict(errors) or 'none'}), {http_counts['ok']} over HTTP "
          f"({http_counts['failed']} failed)")
    summary = summarise(sampler.samples)
    summary["run"] = {"root": str(a.root), "served": served, "variant": a.variant,
                      "store_version": manifest["store_version"], "server": cmd[3:], "seconds": a.seconds,
                      "search_games": a.search_games, "book_clients": a.book_clients,
                      "searched_answers": dict(busy.sources), "searched_errors": dict(searched_errors),
                      "book_answers_grpc": len(lat),
                      "book_answers_http": http_counts["ok"]}
    print_table(summary)
    if a.json:
        a.json.write_text(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
